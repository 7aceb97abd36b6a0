/*
 * buf.h - a growable byte buffer (after git's strbuf, curl's dynbuf and
 * libgit2's git_str).
 *
 * Invariants: `ptr` is never NULL and always NUL-terminated at ptr[len], so
 * a buffer can be handed to any C string function; an empty buffer points at
 * a shared static "" until something is written.  An optional ceiling
 * (`limit`, 0 = none) makes writes past it fail with CALLUS_ETOOBIG.  The
 * out-of-memory flag is sticky: once an allocation failed, every later write
 * fails too, so a sequence of writes can be checked once at the end.
 *
 * Ownership: the buffer owns `ptr`; callus_buf_release() frees it and resets
 * the buffer; callus_buf_detach() hands it to the caller (free() it).
 */
#ifndef CALLUS_BUF_H
#define CALLUS_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

extern char callus_buf__empty[];

typedef struct callus_buf {
	char *ptr;
	size_t len;
	size_t cap;   /* 0 while ptr is callus_buf__empty */
	size_t limit; /* maximum len, 0 for none */
	int failed;   /* sticky: a write failed for lack of memory */
} callus_buf;

#define CALLUS_BUF_INIT { callus_buf__empty, 0, 0, 0, 0 }

void callus_buf_init(callus_buf *b, size_t limit);

/* Make room for `extra` more bytes (plus the terminating NUL). */
int callus_buf_grow(callus_buf *b, size_t extra);

/*
 * The pages of p[0..len) that are about to be written, faulted in by one
 * call into the kernel (Linux 5.14's MADV_POPULATE_WRITE) rather than a
 * trap each as they are first touched: a megabyte of output is written
 * several times over by a recording (some 1,600 page faults; the minimums
 * of bench/results/record1m-prefault-a5052421.md).  Only for spans of
 * CALLUS_PREFAULT_MIN bytes or more, and only for bytes the caller will
 * write (a page faulted in and never used is zeroed for nothing).  A
 * kernel without it, or a failure, changes nothing.
 */
#define CALLUS_PREFAULT_MIN (64u * 1024u)
void callus_prefault(void *p, size_t len);
/* callus_prefault() of the room for the next `extra` bytes, made first
 * (callus_buf_grow). */
int callus_buf_prefault(callus_buf *b, size_t extra);

/* Whether len more bytes and the NUL fit as the buffer is, without
 * callus_buf_grow()'s call and checks: the write most puts are.  Never
 * true of an empty buffer's static "" (cap 0). */
static inline int callus_buf_has_room(const callus_buf *b, size_t len)
{
	return !b->failed && len < b->cap - b->len && (!b->limit || b->len + len <= b->limit);
}

/* len bytes of data, which may lie in b itself.  The room asked inline
 * (138,000 runs of the distinct megabyte's recording, callgrind of
 * bench/record1m.sh), the rest by callus_buf_put_grow(). */
int callus_buf_put_grow(callus_buf *b, const void *data, size_t len);
static inline int callus_buf_put(callus_buf *b, const void *data, size_t len)
{
	if (!callus_buf_has_room(b, len))
		return callus_buf_put_grow(b, data, len);
	if (len)
		memmove(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}
/* Inline: a literal's length is known where it is compiled. */
static inline int callus_buf_puts(callus_buf *b, const char *s)
{
	return callus_buf_put(b, s, strlen(s));
}
/* One byte: inline where there is room (the same recording puts 79,000
 * bytes one at a time, a call each), else callus_buf_put_grow's. */
static inline int callus_buf_putc(callus_buf *b, char c)
{
	if (!callus_buf_has_room(b, 1))
		return callus_buf_put_grow(b, &c, 1);
	b->ptr[b->len++] = c;
	b->ptr[b->len] = '\0';
	return 0;
}
/* n in decimal, as printf's "%llu" and "%lld" write it, in one write:
 * for the paths that put a number a line (a printf is some 900
 * instructions). */
int callus_buf_put_uint(callus_buf *b, unsigned long long n);
int callus_buf_put_int(callus_buf *b, long long n);
int callus_buf_printf(callus_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int callus_buf_vprintf(callus_buf *b, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

/*
 * One read(2) of up to max bytes from fd, straight into the buffer's room
 * (no copy through a buffer of the caller's).  0 with *got the bytes read
 * (0 at the end of the file); CALLUS_ETOOBIG when max more bytes would pass
 * the ceiling (nothing read); CALLUS_ENOMEM; CALLUS_EIO with errno as
 * read(2) left it (EINTR included: the caller decides).
 */
int callus_buf_read(callus_buf *b, int fd, size_t max, size_t *got);

/*
 * Read fd to its end: what fits under the ceiling is kept, the rest read
 * and only counted, so that a writer on the other end of a pipe is never
 * left blocked.  *total gets every byte read (more than b->len when some
 * were not kept).  0; CALLUS_ENOMEM; CALLUS_EIO with errno as read(2)
 * left it (EINTR is retried).
 */
int callus_buf_read_all(callus_buf *b, int fd, uint64_t *total);

/* s[0..n) as a JSON string, quotes included: '"', '\\' and control bytes
 * escaped (\b \f \n \r \t, the others \u00XX in capitals), the rest as it
 * is (s is UTF-8).  Byte for byte what jansson's compact dump writes, at the
 * speed of a copy: a hook writes a megabyte of output so before recording
 * it, and a list stored as JSON is looked up by its text.  0; or
 * CALLUS_ENOMEM, or CALLUS_ETOOBIG past b's ceiling, having stopped at the
 * part refused (what is in b then is the string's start). */
int callus_buf_put_json(callus_buf *b, const char *s, size_t n);
/* The same without the quotes: a string's contents, appended in parts. */
int callus_buf_put_json_chars(callus_buf *b, const char *s, size_t n);

/* Shorten to len (len <= b->len); keeps the allocation. */
void callus_buf_truncate(callus_buf *b, size_t len);
static inline void callus_buf_clear(callus_buf *b) { callus_buf_truncate(b, 0); }

/* Remove trailing whitespace. */
void callus_buf_rtrim(callus_buf *b);

/* 0, or CALLUS_ENOMEM if any write failed since init/release. */
static inline int callus_buf_status(const callus_buf *b) { return b->failed ? -2 : 0; }

/* Give the contents to the caller (never NULL unless allocation fails);
 * the buffer is left empty. */
char *callus_buf_detach(callus_buf *b);

void callus_buf_release(callus_buf *b);

/* A growable array: make room in v (of *cap elements of size bytes) for
 * need elements, doubling; returns the (possibly moved) array, or NULL
 * with v left alone when memory runs out or a size would wrap. */
void *callus_array_grow(void *v, size_t *cap, size_t need, size_t size);

#endif
