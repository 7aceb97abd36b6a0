#include "callus/buf.h"
#include "callus/common.h"
#include "swar.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

char callus_buf__empty[1];

void callus_buf_init(callus_buf *b, size_t limit)
{
	b->ptr = callus_buf__empty;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
	b->failed = 0;
}

int callus_buf_grow(callus_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->failed)
		return CALLUS_ENOMEM;
	if (callus_size_add(&need, b->len, extra) < 0 ||
	    callus_size_add(&need, need, 1) < 0)
		goto oom;
	if (b->limit && need - 1 > b->limit)
		return CALLUS_ETOOBIG;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need) {
		if (cap > (size_t)-1 / 2) {
			cap = need;
			break;
		}
		cap *= 2;
	}
	p = realloc(b->cap ? b->ptr : NULL, cap);
	if (!p)
		goto oom;
	if (!b->cap)
		p[0] = '\0';
	b->ptr = p;
	b->cap = cap;
	return 0;
oom:
	b->failed = 1;
	return CALLUS_ENOMEM;
}

void callus_prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page, from, to;

	/* the length first: a recording asks it of every text it redacts,
	 * and sysconf() is a call into the C library */
	if (len < CALLUS_PREFAULT_MIN || !p)
		return;
	page = (uintptr_t)sysconf(_SC_PAGESIZE);
	if (page == (uintptr_t)-1 || !page)
		return;
	/* the pages wholly inside: a page shared with other data is
	 * faulted in by its first write as before */
	from = ((uintptr_t)p + page - 1) & ~(page - 1);
	to = ((uintptr_t)p + len) & ~(page - 1);
	if (from < to)
		(void)madvise((void *)from, to - from, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

int callus_buf_prefault(callus_buf *b, size_t extra)
{
	int rc = callus_buf_grow(b, extra);

	if (rc == 0)
		callus_prefault(b->ptr + b->len, extra);
	return rc;
}

int callus_buf_put_grow(callus_buf *b, const void *data, size_t len)
{
	int rc;

	if (!callus_buf_has_room(b, len) && (rc = callus_buf_grow(b, len)) < 0)
		return rc;
	if (len)
		memmove(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int callus_buf_read(callus_buf *b, int fd, size_t max, size_t *got)
{
	ssize_t n;
	int rc;

	*got = 0;
	if ((rc = callus_buf_grow(b, max)) < 0)
		return rc;
	if ((n = read(fd, b->ptr + b->len, max)) < 0)
		return CALLUS_EIO;
	b->len += (size_t)n;
	b->ptr[b->len] = '\0';
	*got = (size_t)n;
	return 0;
}

int callus_buf_read_all(callus_buf *b, int fd, uint64_t *total)
{
	char sink[65536];

	*total = 0;
	for (;;) {
		size_t got = 0, max = sizeof(sink);
		ssize_t n;
		int rc = 0;

		if (b->limit && b->limit - b->len < max)
			max = b->limit - b->len;
		/* read into place while there is room under the ceiling */
		if (max && (rc = callus_buf_read(b, fd, max, &got)) != CALLUS_ETOOBIG) {
			if (rc == CALLUS_EIO && errno == EINTR)
				continue;
			if (rc < 0)
				return rc;
			if (!got)
				return 0;
			*total += got;
			continue;
		}
		if ((n = read(fd, sink, sizeof(sink))) == 0)
			return 0;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return CALLUS_EIO;
		}
		*total += (uint64_t)n;
	}
}

/* n's digits, and a '-' before them when negative, put in one write (past
 * a ceiling, refused whole, as a printf is). */
static int put_number(callus_buf *b, unsigned long long n, int negative)
{
	char digits[21]; /* "-" and 18446744073709551615 */
	size_t at = sizeof(digits);

	do
		digits[--at] = (char)('0' + n % 10);
	while ((n /= 10) != 0);
	if (negative)
		digits[--at] = '-';
	return callus_buf_put(b, digits + at, sizeof(digits) - at);
}

int callus_buf_put_uint(callus_buf *b, unsigned long long n)
{
	return put_number(b, n, 0);
}

int callus_buf_put_int(callus_buf *b, long long n)
{
	/* the magnitude unsigned: -LLONG_MIN does not fit a long long */
	return put_number(b, n < 0 ? 0ull - (unsigned long long)n : (unsigned long long)n, n < 0);
}

int callus_buf_put_json(callus_buf *b, const char *s, size_t n)
{
	int rc;

	if ((rc = callus_buf_putc(b, '"')) < 0 || (rc = callus_buf_put_json_chars(b, s, n)) < 0)
		return rc;
	return callus_buf_putc(b, '"');
}

int callus_buf_put_json_chars(callus_buf *b, const char *s, size_t n)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t i = 0;
	int rc = 0;

	/* stopped at the first write refused: a ceiling (ETOOBIG) is not
	 * sticky, and text after a hole must not be taken for whole */
	while (i < n && rc == 0) {
		size_t run = i;
		unsigned char c;

		i += callus_json_plain_len(s + i, n - i);
		if ((rc = callus_buf_put(b, s + run, i - run)) < 0 || i >= n)
			break;
		c = (unsigned char)s[i++];
		/* two bytes each, put inline: a megabyte's newlines go by here */
		switch (c) {
		case '"': rc = callus_buf_put(b, "\\\"", 2); break;
		case '\\': rc = callus_buf_put(b, "\\\\", 2); break;
		case '\b': rc = callus_buf_put(b, "\\b", 2); break;
		case '\f': rc = callus_buf_put(b, "\\f", 2); break;
		case '\n': rc = callus_buf_put(b, "\\n", 2); break;
		case '\t': rc = callus_buf_put(b, "\\t", 2); break;
		case '\r': rc = callus_buf_put(b, "\\r", 2); break;
		default: {
			char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

			rc = callus_buf_put(b, u, sizeof(u));
		}
		}
	}
	return rc < 0 ? rc : callus_buf_status(b);
}

int callus_buf_vprintf(callus_buf *b, const char *fmt, va_list ap)
{
	size_t room = b->cap - b->len;
	va_list cp;
	int n, rc;

	if (b->failed)
		return CALLUS_ENOMEM;
	/* Printed into the room there is, which is nearly always enough, and
	 * again only when it was not: measuring first walked every format
	 * twice (0.1 million instructions of a failing hook's 12.6,
	 * bench/hookinstr.sh). */
	va_copy(cp, ap);
	n = vsnprintf(b->cap ? b->ptr + b->len : NULL, room, fmt, cp);
	va_end(cp);
	if (n >= 0 && (size_t)n < room && (!b->limit || b->len + (size_t)n <= b->limit)) {
		b->len += (size_t)n;
		return 0;
	}
	/* a cut print, or one past the limit: the text as it was */
	if (b->cap)
		b->ptr[b->len] = '\0';
	if (n < 0)
		return CALLUS_EINVAL;
	if ((rc = callus_buf_grow(b, (size_t)n)) < 0)
		return rc;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int callus_buf_printf(callus_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = callus_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void callus_buf_truncate(callus_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	if (b->cap)
		b->ptr[len] = '\0';
}

void callus_buf_rtrim(callus_buf *b)
{
	size_t n = b->len;

	while (n && (b->ptr[n - 1] == ' ' || b->ptr[n - 1] == '\t' ||
		     b->ptr[n - 1] == '\n' || b->ptr[n - 1] == '\r'))
		n--;
	callus_buf_truncate(b, n);
}

char *callus_buf_detach(callus_buf *b)
{
	char *p = b->cap ? b->ptr : strdup("");
	size_t limit = b->limit;

	callus_buf_init(b, limit);
	return p;
}

void callus_buf_release(callus_buf *b)
{
	size_t limit = b->limit;

	if (b->cap)
		free(b->ptr);
	callus_buf_init(b, limit);
}

void *callus_array_grow(void *v, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 16, bytes;
	void *p;

	if (need <= *cap)
		return v;
	while (c < need)
		if (callus_size_mul(&c, c, 2) < 0)
			return NULL;
	if (callus_size_mul(&bytes, c, size) < 0 || !(p = realloc(v, bytes)))
		return NULL;
	*cap = c;
	return p;
}
