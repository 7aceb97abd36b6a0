#include "ledger.h"

long overdraft(const long *entries, int n)
{
	long b = balance(entries, n)
	return b < 0 ? -b : 0;
}
