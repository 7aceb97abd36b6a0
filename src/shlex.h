/*
 * shlex.h - a shell command line split into words and operators as a POSIX
 * shell would, without expanding anything (library-internal: detect.c is
 * its user).
 *
 * Linear in the line's length and bounded in depth, for hostile input:
 * the hook runs it on every command an agent executes.
 */
#ifndef CALLUS_SHLEX_H
#define CALLUS_SHLEX_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"

enum { T_WORD, T_END, T_LPAREN, T_RPAREN, T_REDIR };

typedef struct callus_shtok {
	unsigned char kind;
	unsigned char assign; /* an unquoted NAME=value word */
	unsigned char sep;    /* what ended a T_END: ';' (also ";;" and newlines),
			       * '|' (also "|&"), 'o' ("||"), 'a' ("&&"), '&' */
	size_t off, len;      /* the word's value in toks.text */
} callus_shtok;

typedef struct callus_shtoks {
	callus_shtok *v;
	size_t n, cap;
	callus_buf text; /* word values, each NUL-terminated */
} callus_shtoks;

/* callus_shlex() result for a line a shell would reject: it runs nothing. */
#define CALLUS_SHLEX_SYNTAX 1

/*
 * Append the tokens of s[0..n) to out (zeroed, or holding an earlier
 * line's; the caller frees out->v and releases out->text).  0,
 * CALLUS_SHLEX_SYNTAX, or CALLUS_ENOMEM.  Command substitutions are read
 * as words (their text kept); a line ends each simple command with T_END.
 */
int callus_shlex(const char *s, size_t n, callus_shtoks *out);

#endif
