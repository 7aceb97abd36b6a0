/*
 * utf8.h - tool output is bytes; JSON and the store want valid UTF-8.
 */
#ifndef DEJA_UTF8_H
#define DEJA_UTF8_H

#include <stddef.h>

#include "deja/buf.h"

/* 1 when s[0..len) is valid UTF-8 (no overlongs, no surrogates). */
int deja_utf8_valid(const char *s, size_t len);

/* Append s[0..len) to out with each invalid byte replaced by U+FFFD. */
int deja_utf8_sanitize(deja_buf *out, const char *s, size_t len);

#endif
