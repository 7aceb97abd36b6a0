/*
 * banned.h - functions that invite overflows or hidden state (after git's
 * banned.h).  Included into every translation unit by the Makefile; use
 * callus_buf, snprintf, strtol and explicit-length copies instead.
 */
#ifndef CALLUS_BANNED_H
#define CALLUS_BANNED_H

/* The system headers that declare them come first, so that the macros
 * below do not rewrite their declarations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLUS_BANNED(func) sorry_##func##_is_banned_in_callus

#undef strcpy
#define strcpy(x, y) CALLUS_BANNED(strcpy)
#undef strcat
#define strcat(x, y) CALLUS_BANNED(strcat)
#undef sprintf
#define sprintf(...) CALLUS_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) CALLUS_BANNED(vsprintf)
#undef strtok
#define strtok(x, y) CALLUS_BANNED(strtok)
#undef atoi
#define atoi(x) CALLUS_BANNED(atoi)
#undef gets
#define gets(x) CALLUS_BANNED(gets)

#endif
