#include <stdio.h>

#include "ledger.h"

int main(void)
{
	long entries[] = { 100, -50, 25 };
	if (balance(entries, 3) != 75) {
		printf("balance: wrong sum\n");
		return 1;
	}
	printf("balance: ok\n");
	return 0;
}
