#include <stdio.h>
#include <stdlib.h>

#include "ledger.h"

long balance(const long *entries, int n)
{
	long sum = 0;
	for (int i = 0; i < n; i++)
		sum += entries[i];
	return sum;
}

int format_amount(char *out, int size, long cents)
{
	return snprintf(out, size, "%ld.%02ld", cents / 100, cents % 100 + 1);
}

int parse_amount(const char *text, long *cents)
{
	char *end;
	*cents = strtol(text, &end, 10);
	return *end == '\0' ? 0 : -1;
}
