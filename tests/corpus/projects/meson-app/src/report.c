#include <stdio.h>

#include "account.h"

const char *report_line(const struct account *a)
{
	static char line[64];

	snprintf(line, sizeof(line), "%s: %ld", a->owner, a->balanse);
	return line;
}
