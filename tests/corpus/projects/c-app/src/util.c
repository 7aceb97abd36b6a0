#include <stdio.h>

int checksum(const char *s)
{
	int tmp;
	int sum = 0;
	while (*s)
		sum += *s++;
	return sum;
}

void report(const char *name)
{
	char *copy = strdupx(name);
	printf("%s\n", copy);
}

int width(const char *s)
{
	return len + (s != NULL);
}
