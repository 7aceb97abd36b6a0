#include <assert.h>
#include <stdio.h>

#include "strutil.h"

int main(void)
{
	assert(count_char("banana", 'a') == 3);
	printf("ok\n");
	return 0;
}
