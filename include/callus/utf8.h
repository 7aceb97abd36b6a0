/*
 * utf8.h - tool output is bytes; JSON and the store want valid UTF-8.
 */
#ifndef CALLUS_UTF8_H
#define CALLUS_UTF8_H

#include <stddef.h>

#include "callus/buf.h"

/* 1 when s[0..len) is valid UTF-8 (no overlongs, no surrogates). */
int callus_utf8_valid(const char *s, size_t len);

/* How many bytes of valid UTF-8 s[0..len) to keep for at most max bytes:
 * len when it fits, else max or less, never inside a character. */
size_t callus_utf8_cut(const char *s, size_t len, size_t max);

/*
 * callus_utf8_cut(), but never inside a word: a cut that would split a
 * run of non-blank bytes ends before the run (and the blanks before it),
 * unless the run starts s (one word longer than max: cut inside it).
 * What a text cut before it is redacted needs: half a token, or a URL
 * cut before its '@host', is no longer what the redactor finds, and was
 * kept as it was.
 */
size_t callus_utf8_cut_word(const char *s, size_t len, size_t max);

/* The length of the valid sequence starting s[0..len), its code point in
 * *cp (may be NULL); 0 when none starts there (an invalid byte, a
 * truncated sequence, an empty s). */
size_t callus_utf8_next(const char *s, size_t len, unsigned *cp);

/* Append code point cp (at most 0x10ffff, no surrogate) to out as UTF-8. */
int callus_utf8_put(callus_buf *out, unsigned cp);

/* Append s[0..len) to out with each invalid byte replaced by U+FFFD. */
int callus_utf8_sanitize(callus_buf *out, const char *s, size_t len);

#endif
