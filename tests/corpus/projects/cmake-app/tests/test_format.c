#include <assert.h>
#include <string.h>

#include "ledger.h"

int main(void)
{
	char buf[32];
	format_amount(buf, sizeof buf, 1234);
	assert(strcmp(buf, "12.34") == 0);
	return 0;
}
