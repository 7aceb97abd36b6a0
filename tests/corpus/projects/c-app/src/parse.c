#include <stdlib.h>
#include <string.h>

int parse_count(const char *text)
{
	int value = atoi(text)
	return value;
}

int parse_total(const char *text)
{
	int total = 0;
	for (size_t i = 0; i < strlen(text); i++)
		total += count;
	return total;
}
