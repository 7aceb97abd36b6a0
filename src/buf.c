#include "deja/buf.h"
#include "deja/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char deja_buf__empty[1];

void deja_buf_init(deja_buf *b, size_t limit)
{
	b->ptr = deja_buf__empty;
	b->len = 0;
	b->cap = 0;
	b->limit = limit;
	b->failed = 0;
}

int deja_buf_grow(deja_buf *b, size_t extra)
{
	size_t need, cap;
	char *p;

	if (b->failed)
		return DEJA_ENOMEM;
	if (deja_size_add(&need, b->len, extra) < 0 ||
	    deja_size_add(&need, need, 1) < 0)
		goto oom;
	if (b->limit && need - 1 > b->limit)
		return DEJA_ETOOBIG;
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
	return DEJA_ENOMEM;
}

int deja_buf_put(deja_buf *b, const void *data, size_t len)
{
	int rc = deja_buf_grow(b, len);

	if (rc < 0)
		return rc;
	if (len)
		memmove(b->ptr + b->len, data, len);
	b->len += len;
	b->ptr[b->len] = '\0';
	return 0;
}

int deja_buf_puts(deja_buf *b, const char *s)
{
	return deja_buf_put(b, s, strlen(s));
}

int deja_buf_putc(deja_buf *b, char c)
{
	return deja_buf_put(b, &c, 1);
}

int deja_buf_vprintf(deja_buf *b, const char *fmt, va_list ap)
{
	va_list cp;
	int n, rc;

	va_copy(cp, ap);
	n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return DEJA_EINVAL;
	if ((rc = deja_buf_grow(b, (size_t)n)) < 0)
		return rc;
	vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int deja_buf_printf(deja_buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = deja_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void deja_buf_truncate(deja_buf *b, size_t len)
{
	if (len >= b->len)
		return;
	b->len = len;
	if (b->cap)
		b->ptr[len] = '\0';
}

void deja_buf_rtrim(deja_buf *b)
{
	size_t n = b->len;

	while (n && (b->ptr[n - 1] == ' ' || b->ptr[n - 1] == '\t' ||
		     b->ptr[n - 1] == '\n' || b->ptr[n - 1] == '\r'))
		n--;
	deja_buf_truncate(b, n);
}

char *deja_buf_detach(deja_buf *b)
{
	char *p = b->cap ? b->ptr : strdup("");
	size_t limit = b->limit;

	deja_buf_init(b, limit);
	return p;
}

void deja_buf_release(deja_buf *b)
{
	size_t limit = b->limit;

	if (b->cap)
		free(b->ptr);
	deja_buf_init(b, limit);
}
