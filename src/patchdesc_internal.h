/*
 * patchdesc_internal.h - what the patch reader (patchdesc.c) shares with
 * the function finders (patchdesc_funcs.c): the language a file is read
 * as, a few byte helpers bounded by a length, and the finder itself.  Not
 * part of the public API: callers go through callus/patchdesc.h.
 */
#ifndef CALLUS_PATCHDESC_INTERNAL_H
#define CALLUS_PATCHDESC_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "callus/buf.h"
#include "callus/common.h"

typedef enum lang { LANG_OTHER, LANG_JS, LANG_PY } lang;

/* ---- small byte helpers, all bounded by n ---- */

static inline int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

static inline int is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline size_t skip_ws(const char *s, size_t n, size_t i)
{
	while (i < n && is_space((unsigned char)s[i]))
		i++;
	return i;
}

static inline int starts_with(const char *s, size_t n, const char *prefix)
{
	size_t pl = strlen(prefix);

	return n >= pl && !memcmp(s, prefix, pl);
}

/*
 * The function or class the line s[0..n) defines, its name in out: 1 when
 * there is one, 0 when not, CALLUS_ENOMEM.  header: the line is a hunk
 * header's context, which git already chose as a definition, so weaker
 * shapes are trusted anywhere; in a hunk's body they are trusted only at
 * column 0 (where git's own default rule looks) or, for JS/TS methods,
 * with no return type and an opening brace.  Python has only def/class.
 */
int callus_patchdesc_function(callus_buf *out, const char *s, size_t n, int header, lang lg);

#endif
