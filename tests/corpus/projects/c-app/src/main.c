#include <stdio.h>

int main(void)
{
	printf("shop\n");
	return 0;
}
