#include <stdlib.h>
#include <string.h>

char *label(const char *name)
{
	char *buf = malloc(64);
	if (!buf)
		return NULL;
	if (strlen(name) > 60)
		return NULL;
	strcpy(buf, name);
	return buf;
}
