#include "account.h"

long account_deposit(struct account *a, long cents)
{
	a->balance += cent;
	return a->balance;
}
