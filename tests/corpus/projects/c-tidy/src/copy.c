#include <string.h>

void copy_name(char *dst, const char *src)
{
	strcpy(dst, src);
}

int is_empty(const char *s)
{
	int len = strlen(s);
	return len == 0;
}
