#include "callus/cleantext.h"
#include "callus/utf8.h"
#include "swar.h"

#include <stdio.h>
#include <string.h>

#define ESC 0x1b
#define BEL 0x07

/* Code points shown as <U+XXXX>: they change the order text is displayed
 * in, or display as nothing.  The variation selectors among them (U+FE00
 * to U+FE0E, U+E0100 to U+E01EF), like the tags, can carry any bytes in a
 * run a reader does not see; U+FE0F, the emoji presentation selector,
 * stays (it follows every emoji a test runner prints, and alone carries
 * nothing but a count). */
static int hidden(unsigned cp)
{
	return cp == 0x00ad || cp == 0x034f || cp == 0x061c || cp == 0x115f || cp == 0x1160 ||
	       cp == 0x17b4 || cp == 0x17b5 || (cp >= 0x180b && cp <= 0x180f) ||
	       (cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 || cp == 0x2029 ||
	       (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x3164 || (cp >= 0xfe00 && cp <= 0xfe0e) ||
	       cp == 0xfeff || cp == 0xffa0 || (cp >= 0xfff9 && cp <= 0xfffb) ||
	       (cp >= 0x1bca0 && cp <= 0x1bca3) || (cp >= 0x1d173 && cp <= 0x1d17a) ||
	       (cp >= 0xe0000 && cp <= 0xe007f) || (cp >= 0xe0100 && cp <= 0xe01ef);
}

/* The length of the escape sequence at s[0] == ESC (all of it, however
 * malformed: what follows an unfinished sequence is the sequence's). */
static size_t escape_len(const unsigned char *s, size_t len)
{
	size_t i = 1;

	if (len < 2)
		return len;
	switch (s[1]) {
	case '[': /* CSI: parameters, intermediates, one final byte */
		for (i = 2; i < len && s[i] >= 0x20 && s[i] <= 0x3f; i++)
			;
		return i < len && s[i] >= 0x40 && s[i] <= 0x7e ? i + 1 : i;
	case ']': /* OSC, DCS, SOS, PM, APC: up to BEL or ST (ESC \) */
	case 'P':
	case 'X':
	case '^':
	case '_':
		for (i = 2; i < len; i++) {
			if (s[i] == BEL)
				return i + 1;
			if (s[i] == ESC)
				return i + 1 < len && s[i + 1] == '\\' ? i + 2 : i + 1;
		}
		return len;
	default: /* intermediates, then one final byte */
		while (i < len && s[i] >= 0x20 && s[i] <= 0x2f)
			i++;
		return i < len && s[i] >= 0x30 && s[i] <= 0x7e ? i + 1 : i;
	}
}

/* What to do at s[0..len): *keep bytes copied as they are, or *drop bytes
 * replaced by what is put in rep (nothing, a space, <U+XXXX>, U+FFFD). */
static void step(const unsigned char *s, size_t len, unsigned flags, size_t *keep, size_t *drop,
		 char rep[16])
{
	unsigned cp;
	size_t n;

	*keep = *drop = 0;
	rep[0] = '\0';
	if (s[0] >= 0x20 && s[0] < 0x7f) {
		/* callus_swar_printable_len()'s walk, written out: called here, a
		 * megabyte's redaction took 1.4 million instructions more
		 * (callgrind, bench/record1m.sh's repeated line) */
		size_t i = 1;

		while (i + 8 <= len && callus_swar_all_printable(callus_swar_load(s + i)))
			i += 8;
		while (i < len && s[i] >= 0x20 && s[i] < 0x7f)
			i++;
		*keep = i;
		return;
	}
	if (s[0] == '\n' || s[0] == '\t') {
		if (flags & CALLUS_TEXT_ONE_LINE) {
			*drop = 1;
			snprintf(rep, 16, " ");
		} else {
			*keep = 1;
		}
		return;
	}
	if (s[0] == ESC) {
		*drop = escape_len(s, len);
		return;
	}
	if (s[0] < 0x80) {
		*drop = 1; /* C0 controls and DEL */
		return;
	}
	if (!(n = callus_utf8_next((const char *)s, len, &cp))) {
		*drop = 1;
		snprintf(rep, 16, "\xef\xbf\xbd");
		return;
	}
	if (cp >= 0x80 && cp < 0xa0) {
		*drop = n; /* C1 controls, the 8-bit CSI among them */
		return;
	}
	if (hidden(cp)) {
		*drop = n;
		snprintf(rep, 16, "<U+%04X>", cp);
		return;
	}
	*keep = n;
}

int callus_text_is_clean(const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	int lines = !(flags & CALLUS_TEXT_ONE_LINE);
	char rep[16];

	for (size_t i = 0, keep, drop; i < len; i += keep) {
		/* a printable run, and the newline after it, are kept as step()
		 * keeps them, without its call: a megabyte of output is some
		 * 40,000 of each */
		if (p[i] >= 0x20 && p[i] < 0x7f) {
			keep = callus_swar_printable_len(s + i, len - i);
			continue;
		}
		if (lines && (p[i] == '\n' || p[i] == '\t')) {
			keep = 1;
			continue;
		}
		step(p + i, len - i, flags, &keep, &drop, rep);
		if (drop)
			return 0;
	}
	return 1;
}

int callus_text_clean(callus_buf *out, const char *s, size_t len, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t orig = out->len, run = 0, i = 0;
	char rep[16];
	int rc = 0;

	while (i < len) {
		size_t keep, drop;

		step(p + i, len - i, flags, &keep, &drop, rep);
		if (keep) {
			i += keep;
			continue;
		}
		if ((rc = callus_buf_put(out, s + run, i - run)) < 0 ||
		    (rc = callus_buf_puts(out, rep)) < 0)
			goto out;
		run = i += drop;
	}
	rc = callus_buf_put(out, s + run, i - run);
out:
	if (rc < 0)
		callus_buf_truncate(out, orig);
	return rc;
}

int callus_text_quote(callus_buf *out, const char *s, size_t max)
{
	callus_buf line = CALLUS_BUF_INIT;
	size_t orig = out->len, n, cut;
	int rc;

	if (!s)
		s = "";
	n = strcspn(s, "\n");
	if ((rc = callus_text_clean(&line, s, n, CALLUS_TEXT_ONE_LINE)) < 0)
		goto out;
	for (size_t i = 0; i < line.len; i++)
		if (line.ptr[i] == '`')
			line.ptr[i] = '\'';
	callus_buf_rtrim(&line);
	cut = callus_utf8_cut(line.ptr, line.len, max);
	if ((rc = callus_buf_putc(out, '`')) < 0 || (rc = callus_buf_put(out, line.ptr, cut)) < 0 ||
	    (cut < line.len && (rc = callus_buf_puts(out, "...")) < 0) ||
	    (rc = callus_buf_putc(out, '`')) < 0)
		goto out;
out:
	if (rc < 0)
		callus_buf_truncate(out, orig);
	callus_buf_release(&line);
	return rc;
}

/* The bytes a code, a tool's or a file's name holds when it is one word:
 * nothing a sentence is made of (a blank, a backquote, a quote). */
static int word_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("._-+/:@#~%=,[]()", c));
}

int callus_text_word(callus_buf *out, const char *s, size_t max)
{
	size_t n = s ? strlen(s) : 0, i;

	for (i = 0; i < n && word_byte((unsigned char)s[i]); i++)
		;
	if (n && i == n && n <= max)
		return callus_buf_put(out, s, n);
	return callus_text_quote(out, s, max);
}
