#include <stdio.h>

int frobnicate(int level);

int main(void)
{
	printf("%d\n", frobnicate(3));
	return 0;
}
