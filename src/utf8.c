#include "callus/utf8.h"
#include "swar.h"

#include <stdint.h>
#include <string.h>

size_t callus_utf8_next(const char *str, size_t len, unsigned *out)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned char c;
	size_t n;
	unsigned cp;

	if (!len)
		return 0;
	c = s[0];
	if (c < 0x80) {
		if (out)
			*out = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (out)
		*out = cp;
	return n;
}

static size_t seq_len(const unsigned char *s, size_t len)
{
	return callus_utf8_next((const char *)s, len, NULL);
}

int callus_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; i < len;) {
		size_t n;
		uint64_t w;

		/* ASCII, eight bytes at a time: most of any tool's output */
		if (i + 8 <= len && (w = callus_swar_load(p + i), !callus_swar_any_high(w))) {
			i += 8;
			continue;
		}
		/* an ASCII byte of a short string's tail at once: a list of
		 * 7,815 file names is checked before it is stored */
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		n = seq_len(p + i, len - i);
		if (!n)
			return 0;
		i += n;
	}
	return 1;
}

int callus_utf8_put(callus_buf *out, unsigned cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | cp >> 6);
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | cp >> 12);
		u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | cp >> 18);
		u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
		u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return callus_buf_put(out, u, n);
}

int callus_utf8_sanitize(callus_buf *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < len) {
		size_t n;

		/* ASCII runs, the bulk of tool output, need no decoding */
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		n = seq_len(p + i, len - i);

		if (n) {
			i += n;
			continue;
		}
		callus_buf_put(out, s + run, i - run);
		callus_buf_put(out, "\xef\xbf\xbd", 3);
		run = ++i;
	}
	callus_buf_put(out, s + run, i - run);
	return callus_buf_status(out);
}

size_t callus_utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

size_t callus_utf8_cut_word(const char *s, size_t len, size_t max)
{
	size_t cut = callus_utf8_cut(s, len, max), at = cut;

	if (cut == len || cut == 0 || blank(s[cut]) || blank(s[cut - 1]))
		return cut;
	while (at > 0 && !blank(s[at - 1]))
		at--;
	while (at > 0 && blank(s[at - 1]))
		at--;
	return at ? at : cut;
}
