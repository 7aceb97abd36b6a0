#include <stddef.h>

int first(void)
{
	int *p = NULL;
	return *p;
}
