#include <stdio.h>

#include "account.h"

int main(void)
{
	struct account a = { "ada", 0 };

	account_deposit(&a, 100);
	puts(report_line(&a));
	return 0;
}
