/*
 * wordlist.h - fixed lists of words that carry their lengths, for the
 * checks asked of every line of a tool's output (a wrapper's noise, a
 * path's third-party folders, the commands make echoes): an array of
 * strings had each length counted again at every comparison, 8 % of
 * recording a megabyte of gcc errors (docs/scale-history.md, the twentieth pass).
 * Library-internal, header only.
 */
#ifndef CALLUS_WORDLIST_H
#define CALLUS_WORDLIST_H

#include <stddef.h>
#include <string.h>

typedef struct callus_word {
	const char *s;
	size_t len;
} callus_word;

/* An entry of a list, from a string literal. */
#define CALLUS_WORD(lit) { lit, sizeof(lit) - 1 }
#define CALLUS_WORDS_COUNT(list) (sizeof(list) / sizeof((list)[0]))

/* Whether s[0..len) is one of w[0..n) (none empty): the length, then the
 * first character, turn most of them away before a comparison. */
static inline int callus_words_is(const callus_word *w, size_t n, const char *s, size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (w[i].len == len && w[i].s[0] == s[0] && !memcmp(w[i].s, s, len))
			return 1;
	return 0;
}

/* The first of w[0..n) (none empty) that s[0..len) starts with, its
 * index; -1 when none does.  The first character turns most of them away
 * before a comparison: lists asked of every line of a build (a
 * compiler's severities, maven's levels, PHP's kinds) need no guard of
 * their own. */
static inline int callus_words_which_start(const callus_word *w, size_t n, const char *s,
					   size_t len)
{
	for (size_t i = 0; len && i < n; i++)
		if (w[i].s[0] == s[0] && len >= w[i].len && !memcmp(s, w[i].s, w[i].len))
			return (int)i;
	return -1;
}

/* Whether s[0..len) starts with one of w[0..n) (none empty). */
static inline int callus_words_start(const callus_word *w, size_t n, const char *s, size_t len)
{
	return callus_words_which_start(w, n, s, len) >= 0;
}

#endif
