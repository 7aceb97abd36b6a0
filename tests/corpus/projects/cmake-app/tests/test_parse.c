#include <stdio.h>

#include "ledger.h"

int main(void)
{
	long cents;
	if (parse_amount("12.34", &cents) != 0) {
		fprintf(stderr, "%s:%d: parse_amount(\"12.34\") failed\n", __FILE__, __LINE__);
		return 1;
	}
	return 0;
}
