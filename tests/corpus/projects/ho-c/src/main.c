#include <stdio.h>

int queue_depth(void);

int main(void)
{
	printf("%d\n", queue_depth());
	return 0;
}
