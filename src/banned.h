/*
 * banned.h - functions that invite overflows or hidden state (after git's
 * banned.h).  Included into every translation unit by the Makefile; use
 * deja_buf, snprintf, strtol and explicit-length copies instead.
 */
#ifndef DEJA_BANNED_H
#define DEJA_BANNED_H

/* The system headers that declare them come first, so that the macros
 * below do not rewrite their declarations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEJA_BANNED(func) sorry_##func##_is_banned_in_deja

#undef strcpy
#define strcpy(x, y) DEJA_BANNED(strcpy)
#undef strcat
#define strcat(x, y) DEJA_BANNED(strcat)
#undef sprintf
#define sprintf(...) DEJA_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) DEJA_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) DEJA_BANNED(strtok)
#undef atoi
#define atoi(x) DEJA_BANNED(atoi)
#undef gets
#define gets(x) DEJA_BANNED(gets)

#endif
