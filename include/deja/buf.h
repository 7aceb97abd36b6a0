/*
 * buf.h - a growable byte buffer (after git's strbuf, curl's dynbuf and
 * libgit2's git_str).
 *
 * Invariants: `ptr` is never NULL and always NUL-terminated at ptr[len], so
 * a buffer can be handed to any C string function; an empty buffer points at
 * a shared static "" until something is written.  An optional ceiling
 * (`limit`, 0 = none) makes writes past it fail with DEJA_ETOOBIG.  The
 * out-of-memory flag is sticky: once an allocation failed, every later write
 * fails too, so a sequence of writes can be checked once at the end.
 *
 * Ownership: the buffer owns `ptr`; deja_buf_release() frees it and resets
 * the buffer; deja_buf_detach() hands it to the caller (free() it).
 */
#ifndef DEJA_BUF_H
#define DEJA_BUF_H

#include <stdarg.h>
#include <stddef.h>

extern char deja_buf__empty[];

typedef struct deja_buf {
	char *ptr;
	size_t len;
	size_t cap;   /* 0 while ptr is deja_buf__empty */
	size_t limit; /* maximum len, 0 for none */
	int failed;   /* sticky: a write failed for lack of memory */
} deja_buf;

#define DEJA_BUF_INIT { deja_buf__empty, 0, 0, 0, 0 }

void deja_buf_init(deja_buf *b, size_t limit);

/* Make room for `extra` more bytes (plus the terminating NUL). */
int deja_buf_grow(deja_buf *b, size_t extra);

int deja_buf_put(deja_buf *b, const void *data, size_t len);
int deja_buf_puts(deja_buf *b, const char *s);
int deja_buf_putc(deja_buf *b, char c);
int deja_buf_printf(deja_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int deja_buf_vprintf(deja_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/* Shorten to len (len <= b->len); keeps the allocation. */
void deja_buf_truncate(deja_buf *b, size_t len);
static inline void deja_buf_clear(deja_buf *b) { deja_buf_truncate(b, 0); }

/* Remove trailing whitespace. */
void deja_buf_rtrim(deja_buf *b);

/* 0, or DEJA_ENOMEM if any write failed since init/release. */
static inline int deja_buf_status(const deja_buf *b) { return b->failed ? -2 : 0; }

/* Give the contents to the caller (never NULL unless allocation fails);
 * the buffer is left empty. */
char *deja_buf_detach(deja_buf *b);

void deja_buf_release(deja_buf *b);

#endif
