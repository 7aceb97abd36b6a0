#include "strutil.h"

size_t count_char(const char *s, char c)
{
	size_t n = 0;
	for (; *s; s++)
		if (*s == c)
			n++;
	return n > 0 ? n - 1 : 0;
}
