#include "callus/capture.h"
#include "callus/common.h"
#include "callus/utf8.h"
#include "swar.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void callus_capture_init(callus_capture *c)
{
	memset(c, 0, sizeof(*c));
	callus_buf_init(&c->partial, 0);
	callus_buf_init(&c->stripped, 0);
	callus_buf_init(&c->clean, 0);
	callus_buf_init(&c->kept, 0);
	callus_buf_init(&c->head, 0);
	for (size_t i = 0; i < CALLUS_CAPTURE_TAIL; i++)
		callus_buf_init(&c->tail[i], 0);
	callus_buf_init(&c->held[0], 0);
	callus_buf_init(&c->held[1], 0);
}

void callus_capture_release(callus_capture *c)
{
	if (!c)
		return;
	callus_buf_release(&c->partial);
	callus_buf_release(&c->stripped);
	callus_buf_release(&c->clean);
	callus_buf_release(&c->kept);
	callus_buf_release(&c->head);
	for (size_t i = 0; i < CALLUS_CAPTURE_TAIL; i++)
		callus_buf_release(&c->tail[i]);
	callus_buf_release(&c->held[0]);
	callus_buf_release(&c->held[1]);
	free(c->lines);
	free(c->owned);
	callus_capture_init(c);
}

/* Whether the raw head is the whole output, text: what a queue keeps. */
static int raw_is_whole(const callus_capture *c)
{
	size_t len;

	(void)callus_capture_raw(c, &len);
	return !c->binary && len == c->total_bytes;
}

int callus_capture_output(const callus_capture *c, callus_buf *out)
{
	size_t len;
	const char *raw = callus_capture_raw(c, &len);

	if (!raw_is_whole(c))
		return callus_capture_text(c, out) < 0 ? CALLUS_ENOMEM : 0;
	return callus_buf_put(out, raw, len) < 0 ? CALLUS_ENOMEM : 0;
}

void callus_capture_keep_raw(callus_capture *c)
{
	if (!raw_is_whole(c))
		return;
	callus_buf_release(&c->partial);
	callus_buf_release(&c->stripped);
	callus_buf_release(&c->clean);
	callus_buf_release(&c->kept);
	for (size_t i = 0; i < CALLUS_CAPTURE_TAIL; i++) {
		callus_buf_release(&c->tail[i]);
		c->tail_lineno[i] = 0;
	}
	callus_buf_release(&c->held[0]);
	callus_buf_release(&c->held[1]);
	free(c->lines);
	c->lines = NULL;
	c->nlines = c->alloc = 0;
	c->lent = NULL;
	c->lent_len = 0;
	c->lent_open = 0;
}

int callus_ansi_strip_line(callus_buf *out, const char *s, size_t len)
{
	size_t start = out->len, i = 0;

	while (i < len) {
		unsigned char ch = (unsigned char)s[i];
		size_t run = i;

		/* copy plain text in one piece: most lines have no escape at all */
		while (run < len && ((unsigned char)s[run] >= 0x20 || s[run] == '\t') &&
		       s[run] != 0x7f)
			run++;
		if (run > i) {
			callus_buf_put(out, s + i, run - i);
			i = run;
			continue;
		}
		if (ch == 0x1b) {
			i++;
			if (i >= len)
				break;
			if (s[i] == '[') {
				/* CSI: parameters and intermediates, then a final byte */
				i++;
				while (i < len && !((unsigned char)s[i] >= 0x40 &&
						    (unsigned char)s[i] <= 0x7e))
					i++;
				i++;
			} else if (s[i] == ']' || s[i] == 'P' || s[i] == '_' || s[i] == '^') {
				/* OSC/DCS/APC/PM: up to BEL or ST (ESC \) */
				i++;
				while (i < len && s[i] != '\a' &&
				       !(s[i] == 0x1b && i + 1 < len && s[i + 1] == '\\'))
					i++;
				i += (i < len && s[i] == 0x1b) ? 2 : 1;
			} else if (strchr("()*+-./", s[i]) && i + 1 < len) {
				i += 2; /* charset designation: ESC ( B */
			} else {
				i++; /* two-byte escape such as ESC = */
			}
			continue;
		}
		if (ch == '\r') {
			/* A redraw: what follows overwrites the line.  A bare
			 * trailing \r (CRLF) changes nothing. */
			if (i + 1 < len)
				callus_buf_truncate(out, start);
			i++;
			continue;
		}
		if (ch == '\b') {
			if (out->len > start)
				callus_buf_truncate(out, out->len - 1);
			i++;
			continue;
		}
		if (ch < 0x20 && ch != '\t') {
			i++;
			continue;
		}
		callus_buf_putc(out, (char)ch);
		i++;
	}
	return callus_buf_status(out);
}

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c | 0x20) : c;
}

/* A line that is nothing but a path to a file: eslint's stylish format
 * names each file on a line of its own. */
static int is_path_line(const char *s, size_t len)
{
	size_t i = 0, dot = 0, slash = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i == len)
		return 0;
	for (; i < len; i++) {
		if (s[i] == ' ' || s[i] == '\t')
			return 0;
		if (s[i] == '/' || s[i] == '\\')
			slash = i + 1;
		else if (s[i] == '.')
			dot = i + 1;
	}
	return slash && dot > slash && dot < len;
}

/*
 * The keywords of an interesting line, lowercase, and the location forms.
 * A line is scanned once: a keyword (or a location) can only start where
 * the byte and the next one are both possible first and second bytes of
 * one, and two table lookups say that; only there is anything compared.
 * Big outputs are mostly lines without either, and cost one pass each.
 */
enum {
	K_ERROR, K_FAIL, K_EXCEPTION, K_EXPECTED, K_RECEIVED, K_ASSERT, K_PANIC, K_TRACEBACK,
	K_FATAL, K_WARNING, K_NOTOK, K_UNDEFREF, K_CROSS, K_HEAVYX, K_BULLET, K_TIMES,
	K_BALLOTX, K_THROWN, K_NKEYWORDS,
	K_SPLINE = 29, /* shellcheck's "In x.sh line 3:" */
	K_PYLINE = 30, /* Python's File "x.py", line 3 */
	K_LOC = 31     /* name.ext:12 or name.ext(12,3) */
};

static const char *const keywords[K_NKEYWORDS] = {
	"error", "fail", "exception", "expected", "received", "assert", "panic", "traceback",
	"fatal", "warning", "not ok", "undefined reference",
	"\xe2\x9c\x95" /* ✕ */, "\xe2\x9c\x96" /* ✖ */, "\xe2\x97\x8f" /* ● */,
	"\xc3\x97" /* × */, "\xe2\x9c\x98" /* ✘ */,
	"thrown: " /* jest: timeouts and throws of non-errors */,
};

#define B(k) (1u << (k))
#define BOTH(c, v) [c] = (v), [(c) - 32] = (v) /* a lowercase letter and its capital */

static const uint32_t first_byte[256] = {
	BOTH('e', B(K_ERROR) | B(K_EXCEPTION) | B(K_EXPECTED)),
	BOTH('f', B(K_FAIL) | B(K_FATAL)),
	BOTH('r', B(K_RECEIVED)),
	BOTH('a', B(K_ASSERT)),
	BOTH('p', B(K_PANIC)),
	BOTH('t', B(K_TRACEBACK) | B(K_THROWN)),
	BOTH('w', B(K_WARNING)),
	BOTH('n', B(K_NOTOK)),
	BOTH('u', B(K_UNDEFREF)),
	[0xe2] = B(K_CROSS) | B(K_HEAVYX) | B(K_BULLET) | B(K_BALLOTX),
	[0xc3] = B(K_TIMES),
	[':'] = B(K_LOC),
	['('] = B(K_LOC),
	['"'] = B(K_PYLINE),
	[' '] = B(K_SPLINE),
};

static const uint32_t second_byte[256] = {
	BOTH('r', B(K_ERROR) | B(K_TRACEBACK)),
	BOTH('h', B(K_THROWN)),
	BOTH('a', B(K_FAIL) | B(K_PANIC) | B(K_FATAL) | B(K_WARNING)),
	BOTH('x', B(K_EXCEPTION) | B(K_EXPECTED)),
	BOTH('e', B(K_RECEIVED)),
	BOTH('s', B(K_ASSERT)),
	BOTH('o', B(K_NOTOK)),
	BOTH('n', B(K_UNDEFREF)),
	[0x9c] = B(K_CROSS) | B(K_HEAVYX) | B(K_BALLOTX),
	[0x97] = B(K_BULLET) | B(K_TIMES),
	['0'] = B(K_LOC), ['1'] = B(K_LOC), ['2'] = B(K_LOC), ['3'] = B(K_LOC),
	['4'] = B(K_LOC), ['5'] = B(K_LOC), ['6'] = B(K_LOC), ['7'] = B(K_LOC),
	['8'] = B(K_LOC), ['9'] = B(K_LOC),
	[','] = B(K_PYLINE),
	['l'] = B(K_SPLINE),
};

/* At s[i], ':' or '(' then a digit: is the token before it a file name? */
static int location_at(const char *s, size_t i)
{
	/* the token read back from the colon, a dot or slash in it answering
	 * at once: most names end ".c", one byte back */
	for (size_t j = i; j > 0; j--) {
		char c = s[j - 1];

		if (c == '.' || c == '/')
			return 1;
		if (c == ' ' || c == '\t' || c == '(' || c == '"' || c == '\'')
			return 0;
	}
	return 0;
}

static int word_at(const char *s, size_t len, size_t i, const char *w)
{
	size_t j = 0;

	while (w[j] && i + j < len && ascii_lower(s[i + j]) == w[j])
		j++;
	return !w[j];
}

/* The words that say something failed, as opposed to the lines around a
 * failure (locations, expected/received, warnings). */
static const uint32_t strong = B(K_ERROR) | B(K_FAIL) | B(K_EXCEPTION) | B(K_ASSERT) |
			       B(K_PANIC) | B(K_FATAL) | B(K_NOTOK) | B(K_UNDEFREF) | B(K_CROSS) |
			       B(K_HEAVYX) | B(K_BULLET) | B(K_TIMES) | B(K_BALLOTX);

#ifdef __SSE2__
/* The places of s[0..16) (s[16] read) where a strong keyword may start:
 * the byte one of the strong keywords' first bytes, the next one of their
 * second bytes, letters in either case (a byte with 0x20 set is a small
 * letter only if it was that letter, small or capital), the symbols' UTF-8
 * bytes as they are: what the two tables ask of strong.  test_capture's
 * ranks_as_said fails when a byte is left out of either set. */
CALLUS_SPAN_INLINE unsigned strong_pairs(const char *s)
{
	const __m128i small = _mm_set1_epi8(0x20);
	__m128i v = callus_sse_load(s), w = callus_sse_load(s + 1);
	__m128i lv = _mm_or_si128(v, small), lw = _mm_or_si128(w, small);
	__m128i first = _mm_or_si128(
		_mm_or_si128(_mm_or_si128(callus_sse_is(lv, 'e'), callus_sse_is(lv, 'f')),
			     _mm_or_si128(callus_sse_is(lv, 'a'), callus_sse_is(lv, 'p'))),
		_mm_or_si128(_mm_or_si128(callus_sse_is(lv, 'n'), callus_sse_is(lv, 'u')),
			     _mm_or_si128(callus_sse_is(v, '\xe2'), callus_sse_is(v, '\xc3'))));
	__m128i second = _mm_or_si128(
		_mm_or_si128(_mm_or_si128(callus_sse_is(lw, 'r'), callus_sse_is(lw, 'a')),
			     _mm_or_si128(callus_sse_is(lw, 'x'), callus_sse_is(lw, 's'))),
		_mm_or_si128(_mm_or_si128(callus_sse_is(lw, 'o'), callus_sse_is(lw, 'n')),
			     _mm_or_si128(callus_sse_is(w, '\x9c'), callus_sse_is(w, '\x97'))));

	return (unsigned)_mm_movemask_epi8(_mm_and_si128(first, second));
}
#endif

/* Whether one of the keywords in mask starts in s: only where two table
 * lookups allow one is it compared.  scan_interesting() walks the same
 * tables with its own copy of the inner loop: through one inline helper
 * both cost 1.2 to 1.4 million instructions more a megabyte's recording
 * (callgrind, bench/record1m.sh's repeated line, 256 KB of go's). */
static int has_keyword(const char *s, size_t len, uint32_t mask)
{
	size_t from = 0;

#ifdef __SSE2__
	/* a summary asks it of every line of a build's output (6,431 of
	 * go's 256 KB), most of them with no strong word: the pairs that
	 * may start one found sixteen places at a time */
	if (mask == strong) {
		for (; from + 17 <= len; from += 16)
			for (unsigned m = strong_pairs(s + from); m; m &= m - 1) {
				size_t i = from + (size_t)__builtin_ctz(m);
				uint32_t k = first_byte[(unsigned char)s[i]] &
					     second_byte[(unsigned char)s[i + 1]] & mask;

				for (; k; k &= k - 1)
					if (word_at(s, len, i, keywords[__builtin_ctz(k)]))
						return 1;
			}
	}
#endif
	for (size_t i = from; i + 1 < len; i++) {
		uint32_t m = first_byte[(unsigned char)s[i]] & second_byte[(unsigned char)s[i + 1]] &
			     mask;

		while (m) {
			int k = __builtin_ctz(m);

			if (word_at(s, len, i, keywords[k]))
				return 1;
			m &= m - 1;
		}
	}
	return 0;
}

static int scan_interesting(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		uint32_t m = first_byte[(unsigned char)s[i]] & second_byte[(unsigned char)s[i + 1]];

		if (!m)
			continue;
		if ((m & B(K_LOC)) && i > 0 && location_at(s, i))
			return 1;
		if ((m & B(K_PYLINE)) && word_at(s, len, i, "\", line "))
			return 1;
		if ((m & B(K_SPLINE)) && word_at(s, len, i, " line ") && i + 6 < len &&
		    s[i + 6] >= '0' && s[i + 6] <= '9')
			return 1;
		m &= B(K_NKEYWORDS) - 1;
		while (m) {
			int k = __builtin_ctz(m);

			if (word_at(s, len, i, keywords[k]))
				return 1;
			m &= m - 1;
		}
	}
	return 0;
}

#undef B
#undef BOTH

int callus_line_is_interesting(const char *s, size_t len)
{
	/* A compiler's line names its place first ("src/a.c:12:"): its first
	 * colon, asked as scan_interesting() would ask it, settles most
	 * before every pair of bytes is looked up; an answer of no is asked
	 * again by the walk. */
	const char *colon = len > 2 ? memchr(s + 1, ':', len - 2) : NULL;

	if (colon && colon[1] >= '0' && colon[1] <= '9' && location_at(s, (size_t)(colon - s)))
		return 1;
	return scan_interesting(s, len) || is_path_line(s, len);
}

int callus_line_rank(const char *s, size_t len)
{
	if (!callus_line_is_interesting(s, len))
		return 0;
	/* each byte against each word's first was 4,800 instructions a line
	 * of go's, read for a summary of thousands of them */
	return has_keyword(s, len, strong) ? 2 : 1;
}

/* The kept lines' text, each line with its newline (but a lent last
 * line's, lent_open), and its length, newlines counted. */
static const char *kept_text(const callus_capture *c)
{
	return c->lent ? c->lent : c->kept.ptr;
}

static size_t kept_len(const callus_capture *c)
{
	return c->lent ? c->lent_len : c->kept.len;
}

/* The bytes of the lines kept, their newlines not counted: what
 * CALLUS_CAPTURE_KEPT_MAX bounds. */
static size_t kept_bytes(const callus_capture *c)
{
	return kept_len(c) - c->nlines;
}

/* Room in kept for the lines kept (the lent ones too, about to be copied
 * in) and len more bytes of lines (and one for a last line without its
 * newline), as far as the bound allows: made at once, where doubling
 * copies all that was kept at each step.  Best effort. */
static void kept_room(callus_capture *c, size_t len)
{
	size_t room = CALLUS_CAPTURE_KEPT_MAX - kept_bytes(c);

	(void)callus_buf_grow(&c->kept,
			      kept_len(c) - c->kept.len + (len < room ? len : room) + 1);
}

/* Room for the lines of a feed of len bytes: its bytes in kept, unless
 * they may be lent (callus_capture_whole), and an entry for every 40 of
 * them in lines (a guess: more lines only grow the index as before).
 * Best effort. */
static void reserve(callus_capture *c, size_t len)
{
	size_t room = CALLUS_CAPTURE_KEPT_MAX - kept_bytes(c);
	size_t bytes = len < room ? len : room;
	size_t n = c->nlines + bytes / 40 + 64, size;
	callus_capture_line *p;

	if (!c->whole_end)
		kept_room(c, len);
	if (n > c->alloc && callus_size_mul(&size, n, sizeof(*p)) == 0 &&
	    (p = realloc(c->lines, size))) {
		c->lines = p;
		c->alloc = n;
	}
}

/* Whether the line s[0, len) is kept as it lies in callus_capture_whole's
 * data: as printed, ended by its newline or by the output's end, and
 * right after the lines lent before it (or the first line kept).  *open
 * is set when it has no newline. */
static int lendable(const callus_capture *c, const char *s, size_t len, int *open)
{
	uintptr_t at = (uintptr_t)s, from = (uintptr_t)c->whole, end = (uintptr_t)c->whole_end;

	/* compared as numbers: s may be a buffer of the capture's own */
	if (!c->whole_end || at < from || at > end || end - at < len)
		return 0;
	/* the first line kept, or right after the last one lent */
	if (!c->lent && (c->kept.len || c->kept.failed))
		return 0;
	if (c->lent && (c->lent_open || s != c->lent + c->lent_len))
		return 0;
	*open = end - at == len;
	return *open || s[len] == '\n';
}

/* The lent lines copied into kept: the next line kept is not where they
 * end, or not as it was printed.  Memory short, the lines are dropped
 * (their offsets are kept's, which holds none of them). */
static void unlend(callus_capture *c)
{
	const char *at = c->lent;
	size_t n = c->lent_len;

	/* the rest of the output too, as reserve() would have made it; a
	 * lent line without its newline is the output's last, and none
	 * comes after it: the lent bytes are all in the output */
	kept_room(c, (size_t)(c->whole_end - (at + n)));
	c->lent = NULL;
	c->lent_len = 0;
	callus_buf_put(&c->kept, at, n);
	if (callus_buf_status(&c->kept) < 0) {
		c->dropped_lines += c->nlines;
		c->nlines = 0;
	}
}

static int keep_line(callus_capture *c, const char *s, size_t len, uint64_t lineno)
{
	callus_capture_line *l;
	size_t off;
	int open;

	if (kept_bytes(c) + len > CALLUS_CAPTURE_KEPT_MAX)
		goto drop;
	if (c->nlines == c->alloc) {
		size_t n = c->alloc ? c->alloc * 2 : 64, bytes;
		callus_capture_line *p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(c->lines, bytes)))
			goto drop;
		c->lines = p;
		c->alloc = n;
	}
	if (lendable(c, s, len, &open)) {
		if (!c->lent)
			c->lent = s;
		off = c->lent_len;
		c->lent_len += len + 1;
		c->lent_open = open;
	} else {
		if (c->lent)
			unlend(c);
		else if (!c->kept.cap && c->whole_end)
			kept_room(c, (size_t)(c->whole_end - c->whole));
		off = c->kept.len;
		/* each with its newline: the text, when it is the kept
		 * lines, is kept as it lies (callus_capture_text_view) */
		if (callus_buf_put(&c->kept, s, len) < 0 || callus_buf_putc(&c->kept, '\n') < 0)
			goto drop;
	}
	l = &c->lines[c->nlines++];
	l->lineno = lineno;
	l->off = off;
	l->len = len;
	return 0;
drop:
	c->dropped_lines++;
	return 0;
}

/* Only printable ASCII, tabs and DEL: nothing to strip, nothing to repair.
 * Sixteen bytes at a time, then eight: a word with no byte at or above
 * 0x80 and none below 0x20 is plain at once; only a word holding a
 * control byte (a tab, most often) is looked at byte by byte. */
#ifdef __SSE2__
/* The bytes of v no plain line holds: below 0x20 but a tab, from 0x80. */
CALLUS_SPAN_INLINE __m128i unplain(__m128i v)
{
	return _mm_andnot_si128(callus_sse_is(v, '\t'), callus_sse_below_or_high(v));
}
#endif

static int is_plain(const char *s, size_t len)
{
	size_t i = 0;

#ifdef __SSE2__
	if (callus_sse_span(s, len, unplain, &i))
		return 0;
#endif
	for (; i + 8 <= len; i += 8) {
		uint64_t w = callus_swar_load(s + i);

		if (callus_swar_any_high(w))
			return 0;
		if (callus_swar_any_below(w, 0x20)) {
			for (size_t k = i; k < i + 8; k++)
				if ((unsigned char)s[k] < 0x20 && s[k] != '\t')
					return 0;
		}
	}
	for (; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80 || (c < 0x20 && c != '\t'))
			return 0;
	}
	return 1;
}

static void process_line(callus_capture *c, const char *line, size_t len)
{
	const char *t = line;
	size_t n = len, slot, before;
	const callus_buf *prev;

	c->total_lines++;
	if (!is_plain(line, len)) {
		callus_buf_clear(&c->stripped);
		callus_buf_clear(&c->clean);
		callus_ansi_strip_line(&c->stripped, line, len);
		/* everything downstream (JSON, the store) needs valid UTF-8 */
		callus_utf8_sanitize(&c->clean, c->stripped.ptr, c->stripped.len);
		t = c->clean.ptr;
		n = c->clean.len;
	}
	while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
		n--;
	if (!n)
		return;
	/* a line as the one before it (a build prints one error for each of
	 * its steps, 19,000 times a megabyte): what that one was, read from
	 * the ring, where it is the last */
	before = (size_t)((c->total_lines - 1) % CALLUS_CAPTURE_TAIL);
	prev = &c->tail[before];
	if (!(c->total_lines > 1 && c->tail_lineno[before] == c->total_lines - 1 && !prev->failed &&
	      prev->len == n && !memcmp(prev->ptr, t, n)))
		c->last_interesting = callus_line_is_interesting(t, n);
	if (c->last_interesting)
		keep_line(c, t, n, c->total_lines);
	slot = (size_t)(c->total_lines % CALLUS_CAPTURE_TAIL);
	callus_buf_clear(&c->tail[slot]);
	callus_buf_put(&c->tail[slot], t, n);
	c->tail_lineno[slot] = c->total_lines;
}

static void end_line(callus_capture *c)
{
	process_line(c, c->partial.ptr, c->partial.len);
	callus_buf_clear(&c->partial);
	c->partial_cut = 0;
}

/* The lines of a chunk, its raw bytes left to the caller. */
static void feed_lines(callus_capture *c, const char *data, size_t len)
{
	const char *p = data, *end = data + len;

	c->total_bytes += len;
	if (!c->binary && memchr(data, '\0', len))
		c->binary = 1;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		size_t room = CALLUS_CAPTURE_LINE_MAX - c->partial.len;

		if (!c->partial.len && (nl || end == c->whole_end)) {
			/* a whole line in this chunk, or a whole output's
			 * last: no copy, and it may be lent (keep_line) */
			process_line(c, p, n < CALLUS_CAPTURE_LINE_MAX ? n : CALLUS_CAPTURE_LINE_MAX);
			if (!nl)
				break;
			p = nl + 1;
			continue;
		}
		if (n > room) {
			c->partial_cut = 1;
			n = room;
		}
		if (n)
			callus_buf_put(&c->partial, p, n);
		if (!nl)
			break;
		end_line(c);
		p = nl + 1;
	}
}

int callus_capture_feed(callus_capture *c, const char *data, size_t len)
{
	/* structured formats (eslint -f json, cargo JSON) need the bytes as
	 * printed, long lines included */
	if (c->head.len < CALLUS_CAPTURE_HEAD_MAX) {
		size_t room = CALLUS_CAPTURE_HEAD_MAX - c->head.len;
		callus_buf_put(&c->head, data, len < room ? len : room);
	}
	feed_lines(c, data, len);
	return 0;
}

int callus_capture_whole(callus_capture *c, const char *data, size_t len)
{
	/* the raw head is the caller's: a megabyte of output copied once
	 * less, and its pages not faulted in again (docs/scale-history.md,
	 * the seventy-third pass) */
	c->whole = data;
	c->whole_len = len < CALLUS_CAPTURE_HEAD_MAX ? len : CALLUS_CAPTURE_HEAD_MAX;
	/* the kept lines lent from data while they lie in it as printed:
	 * a build's megabyte of errors is its own text (keep_line) */
	c->whole_end = data + len;
	/* room for what it may keep made now, not by doubling, each
	 * doubling a copy of all that was kept */
	reserve(c, len);
	feed_lines(c, data, len);
	callus_capture_finish(c);
	return 0;
}

int callus_capture_whole_owned(callus_capture *c, char *data, size_t len)
{
	c->owned = data;
	return callus_capture_whole(c, data ? data : "", data ? len : 0);
}

const char *callus_capture_raw(const callus_capture *c, size_t *len)
{
	if (c->whole) {
		*len = c->whole_len;
		return c->whole;
	}
	*len = c->head.len;
	return c->head.ptr ? c->head.ptr : "";
}

/* A stream's held bytes go in, their line left open for what follows. */
static void put_held(callus_capture *c, callus_buf *held)
{
	if (held->len)
		(void)callus_capture_feed(c, held->ptr, held->len);
	callus_buf_clear(held);
}

/* A line held past this goes in as it is: the capture cuts a line at
 * CALLUS_CAPTURE_LINE_MAX anyway (the raw head keeps it whole, the other
 * stream's bytes inside it then). */
#define HELD_MAX (64u * 1024)

int callus_capture_feed_stream(callus_capture *c, int stream, const char *data, size_t len)
{
	callus_buf *held = &c->held[stream == 2];
	const char *nl = len ? memrchr(data, '\n', len) : NULL;
	size_t whole = nl ? (size_t)(nl + 1 - data) : len;

	if (!nl && held->len + len <= HELD_MAX && callus_buf_put(held, data, len) == 0)
		return 0;
	/* the held start of its first line, then its whole lines (all of
	 * it when it was too long to hold, or memory ran out) */
	put_held(c, held);
	(void)callus_capture_feed(c, data, whole);
	if (whole < len && callus_buf_put(held, data + whole, len - whole) < 0)
		(void)callus_capture_feed(c, data + whole, len - whole);
	c->open_stream = c->partial.len ? stream : 0;
	return 0;
}

void callus_capture_finish(callus_capture *c)
{
	/* the stream whose line is open first: its held bytes end it */
	int first = c->open_stream == 2;

	for (int k = 0; k < 2; k++) {
		callus_buf *held = &c->held[(first + k) % 2];
		int unfinished = held->len > 0;

		put_held(c, held);
		if (c->partial.len)
			end_line(c);
		/* nor are the two glued in the raw bytes */
		if (unfinished && c->head.len < CALLUS_CAPTURE_HEAD_MAX)
			callus_buf_putc(&c->head, '\n');
	}
}

/* The tail's slots in output order: their line numbers in order[], their
 * slots in slot_of[].  Returns how many hold a line. */
static size_t tail_order(const callus_capture *c, uint64_t order[CALLUS_CAPTURE_TAIL],
			 size_t slot_of[CALLUS_CAPTURE_TAIL])
{
	size_t ntail = 0;

	for (size_t i = 0; i < CALLUS_CAPTURE_TAIL; i++) {
		uint64_t ln = c->tail_lineno[i];
		size_t j;

		if (!ln)
			continue;
		for (j = ntail; j > 0 && order[j - 1] > ln; j--) {
			order[j] = order[j - 1];
			slot_of[j] = slot_of[j - 1];
		}
		order[j] = ln;
		slot_of[j] = i;
		ntail++;
	}
	return ntail;
}

int callus_capture_text(const callus_capture *c, callus_buf *out)
{
	const char *kept = kept_text(c);
	size_t ti = 0, k = 0, ntail, room = kept_len(c);
	uint64_t order[CALLUS_CAPTURE_TAIL];
	size_t slot_of[CALLUS_CAPTURE_TAIL];

	/* the text's size is known: one allocation, no copy on growing */
	for (size_t i = 0; i < CALLUS_CAPTURE_TAIL; i++)
		room += c->tail[i].len + 1;
	(void)callus_buf_grow(out, room);
	ntail = tail_order(c, order, slot_of);
	while (k < c->nlines || ti < ntail) {
		if (ti < ntail && (k == c->nlines || order[ti] < c->lines[k].lineno)) {
			const callus_buf *t = &c->tail[slot_of[ti]];
			callus_buf_put(out, t->ptr, t->len);
			callus_buf_putc(out, '\n');
			ti++;
		} else {
			const callus_capture_line *l = &c->lines[k];
			if (ti < ntail && order[ti] == l->lineno)
				ti++;
			/* the line and its newline (a lent last line has
			 * none in the output) */
			callus_buf_put(out, kept + l->off, l->len);
			callus_buf_putc(out, '\n');
			k++;
		}
	}
	return callus_buf_status(out);
}

/* Of the tail's lines in output order (order, slot_of: ntail of them),
 * those after the last line kept, when they follow the lent lines in the
 * output as the text has them (each as printed and ended by its newline,
 * the last by the output's end if need be): *end is where the text then
 * ends in the output, and the count returned is of the tail's lines left
 * to find among the kept ones.  The output's last line, not kept (make's
 * closing words, a line cut off), is most often one. */
static size_t lent_tail(const callus_capture *c, const uint64_t *order, const size_t *slot_of,
			size_t ntail, const char **end)
{
	const char *at = c->lent + c->lent_len, *stop = c->whole_end;
	uint64_t last = c->lines[c->nlines - 1].lineno;
	size_t first = ntail;

	while (first > 0 && order[first - 1] > last)
		first--;
	for (size_t j = first; j < ntail; j++) {
		const callus_buf *t = &c->tail[slot_of[j]];

		if (t->failed || !t->len || (size_t)(stop - at) < t->len ||
		    memcmp(at, t->ptr, t->len))
			return ntail;
		at += t->len;
		if (at < stop && *at == '\n')
			at++;
		else if (at < stop || j + 1 < ntail)
			return ntail;
	}
	*end = at;
	return first;
}

int callus_capture_text_view(const callus_capture *c, callus_buf *scratch, const char **text,
			     size_t *len)
{
	uint64_t order[CALLUS_CAPTURE_TAIL];
	size_t slot_of[CALLUS_CAPTURE_TAIL];
	size_t ntail = tail_order(c, order, slot_of), k = c->nlines, ti;
	const char *lent_end = c->lent ? c->lent + c->lent_len - c->lent_open : NULL;
	int rc;

	if (c->lent && !c->lent_open)
		ntail = lent_tail(c, order, slot_of, ntail, &lent_end);
	ti = ntail;

	/* each of the tail's lines looked for among the kept ones, from the
	 * last: most often the last few kept lines are the tail's */
	while (ti > 0 && k > 0) {
		while (k > 0 && c->lines[k - 1].lineno > order[ti - 1])
			k--;
		if (!k || c->lines[k - 1].lineno != order[ti - 1])
			break;
		k--;
		ti--;
	}
	/* a write that failed for memory may have left a line without its
	 * newline: the lines indexed are made into the text then */
	if (!ti && c->lent) {
		*text = c->lent;
		*len = (size_t)(lent_end - c->lent);
		return 0;
	}
	if (!ti && callus_buf_status(&c->kept) == 0) {
		*text = c->kept.ptr ? c->kept.ptr : "";
		*len = c->kept.len;
		return 0;
	}
	if ((rc = callus_capture_text(c, scratch)) < 0)
		return rc;
	*text = scratch->ptr ? scratch->ptr : "";
	*len = scratch->len;
	return 0;
}
