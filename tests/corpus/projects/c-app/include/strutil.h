#ifndef STRUTIL_H
#define STRUTIL_H

#include <stddef.h>

size_t count_char(const char *s, char c);

#endif
