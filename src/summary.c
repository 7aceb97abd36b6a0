#include "callus/summary.h"

#include "callus/buf.h"
#include "callus/capture.h"
#include "callus/common.h"
#include "callus/lesson.h"
#include "callus/strlist.h"
#include "callus/utf8.h"
#include "parsers/js_util.h"
#include "swar.h"
#include "wordlist.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A failure's message and test name are cut to these many bytes. */
#define MSG_MAX 160
#define TEST_MAX 120
/* What every listed failure keeps of its message before any keeps more:
 * enough for "expect(received).toBe(expected) Expected: 630". */
#define MSG_FLOOR 48
/* A totals line longer than this is not a totals line worth its room. */
#define TOTALS_MAX 120

static int is_space(char c) { return c == ' ' || c == '\t'; }
/* what stands between a counting word and its count ("failures=2") */
static int is_sep(char c) { return is_space(c) || c == ':' || c == '='; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* Code frames ("  3 | x = 1", "    |     ^") repeat the source: no room for
 * them in 500 characters. */
static int is_code_frame(const char *s, size_t len)
{
	size_t i = 0;

	if (i < len && s[i] == '>')
		i++;
	while (i < len && is_space(s[i]))
		i++;
	while (i < len && is_digit(s[i]))
		i++;
	while (i < len && is_space(s[i]))
		i++;
	return i < len && s[i] == '|';
}

/* The workspace's folder and its real path, as a summary cuts them from
 * the paths its lines name: their lengths measured once a summary, where
 * they were at every line. */
typedef struct roots {
	const char *s[2];
	size_t n[2];
} roots;

static void roots_of(roots *r, const callus_pathctx *pc)
{
	r->s[0] = pc ? pc->workspace : NULL;
	r->s[1] = pc ? pc->workspace_real : NULL;
	for (int k = 0; k < 2; k++)
		r->n[k] = r->s[k] ? strlen(r->s[k]) : 0;
}

/* Where the first root of s[i..len) a path names starts (a slash, the
 * root, a slash), *cut its length with the slash after it; len when
 * there is none. */
static size_t next_root(const char *s, size_t len, size_t i, const roots *r, size_t *cut)
{
	const char *slash;

	while (i < len && (slash = memchr(s + i, '/', len - i))) {
		i = (size_t)(slash - s);
		for (int k = 0; k < 2; k++)
			if (r->n[k] > 1 && i + r->n[k] < len && s[i + r->n[k]] == '/' &&
			    !memcmp(s + i, r->s[k], r->n[k])) {
				*cut = r->n[k] + 1;
				return i;
			}
		i++;
	}
	return len;
}

/* Copy s to out, dropping the workspace prefix of absolute paths so that
 * the summary is the same wherever the workspace lives. */
static void put_relative(callus_buf *out, const char *s, size_t len, const roots *r)
{
	size_t i = 0, run = 0, cut;

	while ((i = next_root(s, len, i, r, &cut)) < len) {
		callus_buf_put(out, s + run, i - run);
		i += cut;
		run = i;
	}
	callus_buf_put(out, s + run, len - run);
}

/* --- words ------------------------------------------------------------------------- */

/* A word: letters, digits, '_', '.' inside, and any byte of a multibyte
 * character, so "test_calc.py", "0.18ms" and "größe" are one word each. */
static inline int word_byte(char c)
{
	/* the ASCII ones as bits of two words, bytes 0-63 and 64-127: asked of
	 * every byte of every line a summary looks for its totals in */
	static const uint64_t low = UINT64_C(1) << '.' | UINT64_C(0x3ff) << '0';
	static const uint64_t high = UINT64_C(0x3ffffff) << ('A' - 64) |
				     UINT64_C(1) << ('_' - 64) | UINT64_C(0x3ffffff) << ('a' - 64);
	unsigned char u = (unsigned char)c;

	return u >= 0x80 || (((u < 64 ? low : high) >> (u & 63)) & 1);
}

/* The next word of s[0..len) from *pos, without leading or trailing dots;
 * 0 when there is none. */
static size_t next_word(const char *s, size_t len, size_t *pos, const char **w)
{
	while (*pos < len) {
		size_t i = *pos, n;

		while (i < len && !word_byte(s[i]))
			i++;
		*pos = i;
		while (*pos < len && word_byte(s[*pos]))
			(*pos)++;
		while (i < *pos && s[i] == '.')
			i++;
		n = *pos - i;
		while (n && s[i + n - 1] == '.')
			n--;
		if (n) {
			*w = s + i;
			return n;
		}
	}
	return 0;
}

/* Whether w[0..n) is one of list[0..count) in any case. */
static int word_is(const char *w, size_t n, const callus_word *list, size_t count)
{
	for (size_t k = 0; k < count; k++)
		if (list[k].len == n && !strncasecmp(w, list[k].s, n))
			return 1;
	return 0;
}

static int all_digits(const char *w, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_digit(w[i]))
			return 0;
	return n > 0;
}

/* The words that only say a test's status, in any tool's report. */
static const callus_word status_words[] = {
	CALLUS_WORD("fail"), CALLUS_WORD("failed"), CALLUS_WORD("failing"),
	CALLUS_WORD("failure"), CALLUS_WORD("failures"), CALLUS_WORD("error"),
	CALLUS_WORD("errors"), CALLUS_WORD("err"), CALLUS_WORD("test"), CALLUS_WORD("tests"),
	CALLUS_WORD("ok"), CALLUS_WORD("not"), CALLUS_WORD("pass"), CALLUS_WORD("passed"),
};

/* 0.18ms, 0.00s, 12us: a duration says nothing of a failure. */
static int is_duration(const char *w, size_t n)
{
	size_t i = 0;

	while (i < n && (is_digit(w[i]) || w[i] == '.'))
		i++;
	if (!i || i == n || !is_digit(w[0]))
		return 0;
	return (n - i == 1 && w[i] == 's') ||
	       (n - i == 2 && (!memcmp(w + i, "ms", 2) || !memcmp(w + i, "us", 2))) ||
	       (n - i == 3 && !memcmp(w + i, "\xc2\xb5s", 3));
}

/* A word that carries something: not a status word, not a duration, not
 * a lone letter or sign ("E" before pytest's assertion, jest's "●", "✕"). */
static int content_word(const char *w, size_t n)
{
	if (n == 1 && is_alpha(w[0]))
		return 0;
	if ((unsigned char)w[0] >= 0x80 && callus_utf8_next(w, n, NULL) == n)
		return 0;
	return !word_is(w, n, status_words, CALLUS_WORDS_COUNT(status_words)) && !is_duration(w, n);
}

int callus_summary_repeats(const char *line, size_t len, const char *parsed, size_t parsed_len)
{
	size_t lp = 0, pp = 0, n, m;
	const char *w, *v;
	int lettered = 0;

	while ((n = next_word(line, len, &lp, &w))) {
		int found = 0;

		if (!content_word(w, n))
			continue;
		while (!found && (m = next_word(parsed, parsed_len, &pp, &v)))
			found = m == n && !memcmp(w, v, n);
		if (!found)
			return 0;
		for (size_t i = 0; i < n && !lettered; i++)
			lettered = is_alpha(w[i]) || (unsigned char)w[i] >= 0x80;
	}
	/* a line of status words and numbers only ("3 fail") is not a repeat */
	return lettered;
}

/* The word whose bytes include s[at] (a word byte), as next_word() cuts
 * it: *start and *end without its leading and trailing dots; *run_start
 * and *run_end (each may be NULL) around all its bytes.  Its length (0:
 * dots only). */
static size_t word_around(const char *s, size_t len, size_t at, size_t *run_start,
			  size_t *start, size_t *end, size_t *run_end)
{
	size_t a = at, b = at;

	while (a > 0 && word_byte(s[a - 1]))
		a--;
	while (b < len && word_byte(s[b]))
		b++;
	if (run_start)
		*run_start = a;
	if (run_end)
		*run_end = b;
	while (a < b && s[a] == '.')
		a++;
	while (b > a && s[b - 1] == '.')
		b--;
	*start = a;
	*end = b;
	return b - a;
}

/* Whether c can begin a word is_totals() counts ("4 failed": f, e, p,
 * t, w, i or r in either case), or end one that counts ("failures=2": l,
 * d, g or s): what most numbers' neighbours are turned away by
 * ("src/f12.c:40:7:"), before their words are cut out.  The letters are
 * bits of a - z; they follow the lists in callus_summary_is_totals(). */
static int letter_in(char c, uint32_t letters)
{
	return is_alpha(c) && (letters >> ((c | 0x20) - 'a') & 1);
}

#define LETTER(c) (UINT32_C(1) << ((c) - 'a'))

static int counted_first(char c)
{
	return letter_in(c, LETTER('f') | LETTER('e') | LETTER('p') | LETTER('t') | LETTER('w') |
				    LETTER('i') | LETTER('r'));
}

static int counting_last(char c)
{
	return letter_in(c, LETTER('l') | LETTER('d') | LETTER('g') | LETTER('s'));
}

/* The digits of line[0..len) (len <= TOTALS_MAX), its blanks, and its
 * blanks, ':' and '=', a bit each: the line is read once, sixteen bytes at
 * a time where there is SSE2, and each search for the next digit is a
 * look at a word of bits. */
#define DIGIT_WORDS ((TOTALS_MAX + 63) / 64)

typedef struct line_bits {
	uint64_t digit[DIGIT_WORDS], blank[DIGIT_WORDS], sep[DIGIT_WORDS];
} line_bits;

#ifdef __SSE2__
/* Sixteen bits of m, those of line[k..k+16), into w: across two words
 * when k is not a multiple of sixteen (the last block). */
CALLUS_SPAN_INLINE void put_bits(uint64_t w[DIGIT_WORDS], size_t k, __m128i m)
{
	uint64_t b = (unsigned)_mm_movemask_epi8(m);

	w[k / 64] |= b << (k % 64);
	if (k % 64 > 48)
		w[k / 64 + 1] |= b >> (64 - k % 64);
}

CALLUS_SPAN_INLINE void block_bits(const char *line, size_t k, line_bits *lb)
{
	__m128i v = callus_sse_load(line + k);
	__m128i blank = _mm_or_si128(callus_sse_is(v, ' '), callus_sse_is(v, '\t'));

	put_bits(lb->digit, k, callus_sse_in_range(v, '0', '9'));
	put_bits(lb->blank, k, blank);
	put_bits(lb->sep, k, _mm_or_si128(blank, _mm_or_si128(callus_sse_is(v, ':'),
							       callus_sse_is(v, '='))));
}
#endif

static void bits_of(const char *line, size_t len, line_bits *lb)
{
	size_t k = 0;

	memset(lb, 0, sizeof(*lb));
#ifdef __SSE2__
	if (len >= 16) {
		for (; k + 16 <= len; k += 16)
			block_bits(line, k, lb);
		/* the rest as the last sixteen bytes, read again */
		if (k < len)
			block_bits(line, len - 16, lb);
		return;
	}
#endif
	for (; k < len; k++) {
		uint64_t bit = UINT64_C(1) << (k % 64);

		if (is_digit(line[k]))
			lb->digit[k / 64] |= bit;
		if (is_space(line[k]))
			lb->blank[k / 64] |= bit;
		if (is_sep(line[k]))
			lb->sep[k / 64] |= bit;
	}
}

/* Whether line[0..len) holds what each pair is_totals() takes holds: a
 * digit, blanks, a letter a counted word begins with ("4 failed"), or a
 * letter a counting word ends with, blanks, ':' or '=', a digit
 * ("failures=2").  Where the byte after a digit or before one is none of
 * those, as in most lines ("src/f12.c:40:7: error"), nothing is cut into
 * words.  test_summary's totals_found_as_said fails when a pair is missed. */
static int may_be_totals(const char *line, size_t len, const line_bits *lb)
{
	for (size_t w = 0; w < DIGIT_WORDS; w++) {
		int last = w + 1 == DIGIT_WORDS;
		uint64_t blank_next = lb->blank[w] >> 1 | (last ? 0 : lb->blank[w + 1] << 63);
		uint64_t digit_next = lb->digit[w] >> 1 | (last ? 0 : lb->digit[w + 1] << 63);

		for (uint64_t a = lb->digit[w] & blank_next; a; a &= a - 1) {
			size_t x = w * 64 + (size_t)__builtin_ctzll(a) + 1;

			while (x < len && is_space(line[x]))
				x++;
			if (x < len && counted_first(line[x]))
				return 1;
		}
		for (uint64_t b = lb->sep[w] & digit_next; b; b &= b - 1) {
			size_t x = w * 64 + (size_t)__builtin_ctzll(b) + 1;

			while (x > 0 && is_sep(line[x - 1]))
				x--;
			if (x > 0 && counting_last(line[x - 1]))
				return 1;
		}
	}
	return 0;
}

/* The first digit of bits at or after i, or len. */
static size_t next_digit(const uint64_t bits[DIGIT_WORDS], size_t i, size_t len)
{
	for (; i < len; i = (i | 63) + 1) {
		uint64_t w = bits[i / 64] >> (i % 64);

		if (w)
			return i + (size_t)__builtin_ctzll(w);
	}
	return len;
}

int callus_summary_is_totals(const char *line, size_t len)
{
	/* "4 failed", "2 errors": a count, then what it counts */
	static const callus_word counted[] = {
		CALLUS_WORD("fail"), CALLUS_WORD("failed"), CALLUS_WORD("failing"),
		CALLUS_WORD("failure"), CALLUS_WORD("failures"), CALLUS_WORD("error"),
		CALLUS_WORD("errors"), CALLUS_WORD("problem"), CALLUS_WORD("problems"),
		CALLUS_WORD("passed"), CALLUS_WORD("passing"), CALLUS_WORD("tests"),
		CALLUS_WORD("examples"), CALLUS_WORD("warnings"), CALLUS_WORD("issues"),
		CALLUS_WORD("runs"),
	};
	/* "failures=2", "# fail 2", "Tests: 5": what is counted, then the count */
	static const callus_word counting[] = {
		CALLUS_WORD("fail"), CALLUS_WORD("failed"), CALLUS_WORD("failing"),
		CALLUS_WORD("failures"), CALLUS_WORD("errors"), CALLUS_WORD("tests"),
	};

	line_bits lb;

	if (len > TOTALS_MAX)
		return 0;
	/* Each pair of words it takes has a count in it: the words of digits
	 * are found first, and only their neighbours read (a compiler's
	 * thousands of error lines, none of them a total, were each cut into
	 * all their words: 34 million instructions of a megabyte's recording).
	 * The words are next_word()'s; a dot left between two of them by
	 * either's outer dots, or by a word of dots only, is neither a blank
	 * nor a separator. */
	bits_of(line, len, &lb);
	if (!may_be_totals(line, len, &lb))
		return 0;
	for (size_t i = 0; i < len; i++) {
		size_t from, a, b, to, x, ws, we, j;

		if ((i = next_digit(lb.digit, i, len)) >= len)
			break;
		/* a word with a letter before its first digit is no count */
		if (i > 0 && word_byte(line[i - 1]) && line[i - 1] != '.') {
			while (i + 1 < len && word_byte(line[i + 1]))
				i++;
			continue;
		}
		/* a number standing alone (":40:", " 3 "), as most are: its
		 * word is its digits, found without word_around's walk */
		for (j = i; j < len && is_digit(line[j]); j++)
			;
		if ((i == 0 || !word_byte(line[i - 1])) && (j == len || !word_byte(line[j]))) {
			from = a = i;
			b = to = j;
		} else if (!word_around(line, len, i, &from, &a, &b, &to) ||
			   !all_digits(line + a, b - a)) {
			i = to - 1;
			continue;
		}
		/* the count, then what it counts, blanks between; each word
		 * counted begins with a letter */
		for (x = to; b == to && x < len && is_space(line[x]); x++)
			;
		if (x < len && counted_first(line[x]) &&
		    word_around(line, len, x, NULL, &ws, &we, NULL) &&
		    word_is(line + ws, we - ws, counted, CALLUS_WORDS_COUNT(counted)))
			return 1;
		/* what is counted, then the count, blanks, ':' or '=' between;
		 * each word that counts ends with a letter */
		for (x = from; a == from && x > 0 && is_sep(line[x - 1]); x--)
			;
		if (x > 0 && counting_last(line[x - 1]) &&
		    word_around(line, len, x - 1, NULL, &ws, &we, NULL) &&
		    word_is(line + ws, we - ws, counting, CALLUS_WORDS_COUNT(counting)))
			return 1;
		i = to - 1;
	}
	return 0;
}

/* --- the essentials of each failure ------------------------------------------------------ */

typedef struct essential {
	size_t head;  /* "FAIL test at file:line:col: code" */
	size_t sep;   /* 2 when ": " joins head and message, else 0 */
	size_t msg;   /* the message's length, at most MSG_MAX */
	int first;    /* the first failure of its file (or test) */
	int chosen;
	size_t diff[2]; /* the output's first "-" and "+" lines of its diff,
			 * NO_LINE when none */
	size_t extra;   /* their bytes, a newline before each */
} essential;

#define NO_LINE ((size_t)-1)
/* A diff line longer than this is not shown with its failure. */
#define DIFF_MAX 100
/* How many lines after its message a failure's diff may start. */
#define DIFF_WINDOW 16

/* "- Expected  - 1", "+ Received  + 1", "+ actual - expected ... Lines
 * skipped": a diff's legend, one space after its sign, not its content
 * ("-   \"PAN\","). */
static int diff_legend(const char *s, size_t len)
{
	static const callus_word legend[] = {
		CALLUS_WORD("expected"), CALLUS_WORD("received"), CALLUS_WORD("actual"),
	};
	size_t pos = 0, n;
	const char *w;

	if (len < 2 || !is_space(s[0]) || is_space(s[1]) || !(n = next_word(s, len, &pos, &w)))
		return 0;
	return w == s + 1 && word_is(w, n, legend, CALLUS_WORDS_COUNT(legend));
}

/* Which side of a diff the line is on: '-', '+', or 0 when it is none
 * ("-   \"PAN\",", "+ 3"; not "--- a/x", "-1", a legend). */
static char diff_side(const char *s, size_t len)
{
	if (len < 3 || (s[0] != '-' && s[0] != '+') || !is_space(s[1]) || len > DIFF_MAX ||
	    diff_legend(s + 1, len - 1))
		return 0;
	return s[0];
}

/* How far into the output failures' messages are looked for, and how far
 * after the previous one's: a message the output does not hold as the
 * parser joined it costs one bounded search, not a scan of megabytes for
 * each failure. */
#define DIFF_SEARCH_MAX (1u << 20)
#define DIFF_SEARCH_NEXT (128u << 10)
/* Only the first failures (all that can fit) have their diff looked for. */
#define DIFF_FAILURES 32

/* The line of out at *at (stripped of colours, valid UTF-8, trimmed) into
 * line; *at moves past it. */
static int output_line(callus_buf *line, callus_buf *scratch, const char *out, size_t len,
		       size_t *at)
{
	const char *s = out + *at, *nl = memchr(s, '\n', len - *at);
	size_t n = nl ? (size_t)(nl - s) : len - *at, lead = 0;

	*at += n + (nl != NULL);
	callus_buf_clear(scratch);
	callus_buf_clear(line);
	/* a diff line is short: no need to clean megabytes of one line */
	callus_ansi_strip_line(scratch, s, n < CALLUS_CAPTURE_LINE_MAX ? n : CALLUS_CAPTURE_LINE_MAX);
	while (lead < scratch->len && is_space(scratch->ptr[lead]))
		lead++;
	callus_utf8_sanitize(line, scratch->ptr + lead, scratch->len - lead);
	while (line->len && (is_space(line->ptr[line->len - 1]) || line->ptr[line->len - 1] == '\r'))
		callus_buf_truncate(line, line->len - 1);
	return callus_buf_status(line);
}

/*
 * The first "-" and "+" lines of the diff after the failure's message in
 * the output as printed (out, from *from on; *from moves past the message
 * found), added to diffs: a failure whose message only says "toEqual"
 * shows what differed.  The filtered text has no such lines: they carry
 * no error word.
 */
static int find_diff(essential *e, const char *line, const char *out, size_t len, size_t *from,
		     callus_strlist *diffs)
{
	callus_buf l = CALLUS_BUF_INIT, scratch = CALLUS_BUF_INIT;
	char key[33];
	size_t klen = e->msg < sizeof(key) - 1 ? e->msg : sizeof(key) - 1, at, end;
	const char *hit;
	int rc = 0;

	e->diff[0] = e->diff[1] = NO_LINE;
	if (klen < 8 || !out || *from >= len)
		return 0;
	memcpy(key, line + e->head + e->sep, klen);
	key[klen] = '\0';
	end = *from && len - *from > DIFF_SEARCH_NEXT ? *from + DIFF_SEARCH_NEXT : len;
	if (!(hit = memmem(out + *from, end - *from, key, klen)))
		return 0;
	at = (size_t)(hit - out);
	output_line(&l, &scratch, out, len, &at); /* the message's own line */
	*from = at;
	for (int k = 0; k < DIFF_WINDOW && at < len && rc == 0; k++) {
		char side;

		if ((rc = output_line(&l, &scratch, out, len, &at)) < 0)
			break;
		side = diff_side(l.ptr, l.len);
		/* the same diff as an earlier failure's is not said again */
		if (side && callus_strlist_contains(diffs, l.ptr, l.len))
			continue;
		if (side && e->diff[side == '+'] == NO_LINE) {
			e->diff[side == '+'] = diffs->count;
			e->extra += l.len + 1;
			rc = callus_strlist_add(diffs, l.ptr, l.len);
		} else if (!side && callus_line_rank(l.ptr, l.len) == 2) {
			break; /* the next failure */
		}
	}
	callus_buf_release(&l);
	callus_buf_release(&scratch);
	return rc;
}

/* The line's length with its message cut to at most cap bytes. */
static size_t line_len(const essential *e, const char *line, size_t cap)
{
	if (!e->msg)
		return e->head;
	return e->head + e->sep + callus_utf8_cut_word(line + e->head + e->sep, e->msg, cap) + e->extra;
}

/* s with each run of blanks and line breaks made one space, onto b: a
 * failure is one line, whatever its parts hold (a test named over two
 * lines in a JUnit report). */
static void put_flat(callus_buf *b, const char *s)
{
	size_t start = b->len;

	while (*s) {
		size_t n = strcspn(s, " \t\r\n");

		if (n) {
			if (b->len > start)
				callus_buf_putc(b, ' ');
			callus_buf_put(b, s, n);
		}
		s += n;
		s += strspn(s, " \t\r\n");
	}
}

/* One failure in one line: where, which test, what code, what message (its
 * lines joined: the expected and received values parsers keep in it). */
static int essential_line(callus_buf *out, essential *e, const callus_diag *d,
			  const roots *rt)
{
	callus_buf head = CALLUS_BUF_INIT, msg = CALLUS_BUF_INIT;
	int rc;

	if (d->test) {
		size_t at;

		callus_buf_puts(&head, "FAIL ");
		at = head.len;
		put_flat(&head, d->test);
		if (callus_buf_status(&head) == 0)
			callus_buf_truncate(&head, at + callus_utf8_cut_word(head.ptr + at, head.len - at,
								     TEST_MAX));
	}
	if (d->file) {
		if (d->test)
			callus_buf_puts(&head, " at ");
		callus_buf_puts(&head, d->file);
		if (d->line) {
			callus_buf_putc(&head, ':');
			callus_buf_put_int(&head, d->line);
		}
		if (d->line && d->column) {
			callus_buf_putc(&head, ':');
			callus_buf_put_int(&head, d->column);
		}
	}
	if (d->code) {
		if (head.len)
			callus_buf_puts(&head, ": ");
		put_flat(&head, d->code);
	}
	put_flat(&msg, d->message ? d->message : "");
	callus_buf_clear(out);
	put_relative(out, head.ptr, head.len, rt);
	e->head = out->len;
	if ((rc = callus_buf_status(&msg)) == 0 && msg.len) {
		size_t at;

		e->sep = e->head ? 2 : 0;
		if (e->sep)
			callus_buf_puts(out, ": ");
		at = out->len;
		put_relative(out, msg.ptr, msg.len, rt);
		e->msg = callus_utf8_cut_word(out->ptr + at, out->len - at, MSG_MAX);
		callus_buf_truncate(out, at + e->msg);
	}
	if (rc == 0)
		rc = callus_buf_status(out);
	callus_buf_release(&head);
	callus_buf_release(&msg);
	return rc;
}

/* Whether a and b make the same line (essential_line reads these). */
static int same_failure(const callus_diag *a, const callus_diag *b)
{
	return a->line == b->line && a->column == b->column &&
	       callus_str_same(a->message, b->message) && callus_str_same(a->file, b->file) &&
	       callus_str_same(a->code, b->code) && callus_str_same(a->test, b->test);
}

/*
 * Choose and cut the failures' lines for at most budget bytes, appending
 * them to sum (and each to shown).  Each distinct failure, the first of
 * each file before the others, is taken while its location and the first
 * MSG_FLOOR bytes of its message fit; then every message is given the
 * largest common cap that fits, so no failure eats another's room.
 */
static int put_essentials(callus_buf *sum, callus_strlist *shown, const callus_diags *diags,
			  const roots *rt, size_t budget, const char *out, size_t out_len)
{
	callus_strlist lines = CALLUS_STRLIST_INIT, keys = CALLUS_STRLIST_INIT;
	callus_strlist diffs = CALLUS_STRLIST_INIT;
	callus_buf line = CALLUS_BUF_INIT;
	essential *es = NULL;
	size_t n = 0, used = 0, k = 0, cap = MSG_MAX, forced = 0, from = 0;

	if (out_len > DIFF_SEARCH_MAX)
		out_len = DIFF_SEARCH_MAX;
	int rc = CALLUS_ENOMEM;

	if (!diags || !diags->count)
		return 0;
	/* a thousand failures, each looked for in both */
	if (!(es = calloc(diags->count, sizeof(*es))) || callus_strlist_pool(&lines) < 0 ||
	    callus_strlist_pool(&keys) < 0 || callus_strlist_index(&lines) < 0 ||
	    callus_strlist_index(&keys) < 0)
		goto out;
	for (size_t i = 0; i < diags->count; i++) {
		const callus_diag *d = &diags->items[i];
		const char *key = d->file ? d->file : d->test ? d->test : "";
		int added = 0;

		/* the failure before it again (a build's one error for each of
		 * its steps): its line is listed already */
		if (i && same_failure(d, d - 1))
			continue;
		memset(&es[n], 0, sizeof(es[n]));
		es[n].diff[0] = es[n].diff[1] = NO_LINE;
		if ((rc = essential_line(&line, &es[n], d, rt)) < 0)
			goto out;
		rc = CALLUS_ENOMEM;
		if (!line.len)
			continue;
		/* the same failure twice (a test's two reports) is listed once */
		if (callus_strlist_add_unique(&lines, line.ptr, line.len, &added) < 0)
			goto out;
		if (!added)
			continue;
		if (callus_strlist_add_unique(&keys, key, strlen(key), &es[n].first) < 0)
			goto out;
		if (n < DIFF_FAILURES &&
		    find_diff(&es[n], line.ptr, out, out_len, &from, &diffs) < 0)
			goto out;
		n++;
	}
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < n; i++) {
			size_t least = line_len(&es[i], lines.items[i], MSG_FLOOR) + (k ? 1 : 0);

			if (es[i].chosen || (pass == 0 && !es[i].first))
				continue;
			if (!k && least > budget) { /* the first one alone, cut */
				es[i].chosen = 1;
				forced = budget;
				k = 1;
				used = budget;
				continue;
			}
			if (used + least > budget)
				continue;
			es[i].chosen = 1;
			used += least;
			k++;
		}
	while (!forced && cap > MSG_FLOOR) {
		size_t total = k ? k - 1 : 0;

		for (size_t i = 0; i < n; i++)
			if (es[i].chosen)
				total += line_len(&es[i], lines.items[i], cap);
		if (total <= budget)
			break;
		cap--;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len;

		if (!es[i].chosen)
			continue;
		len = line_len(&es[i], lines.items[i], cap) - es[i].extra;
		if (forced)
			len = callus_utf8_cut_word(lines.items[i], strlen(lines.items[i]), forced);
		/* two reports of one test can differ only beyond the cut */
		if (callus_strlist_contains(shown, lines.items[i], len))
			continue;
		if (sum->len)
			callus_buf_putc(sum, '\n');
		callus_buf_put(sum, lines.items[i], len);
		if (callus_strlist_add(shown, lines.items[i], len) < 0)
			goto out;
		/* its diff right under it, in the output's order */
		for (size_t d = 0; d < 2 && !forced; d++) {
			size_t j = es[i].diff[0] < es[i].diff[1] ? es[i].diff[d] : es[i].diff[1 - d];

			if (j == NO_LINE)
				continue;
			callus_buf_putc(sum, '\n');
			callus_buf_puts(sum, diffs.items[j]);
			if (callus_strlist_add(shown, diffs.items[j], strlen(diffs.items[j])) < 0)
				goto out;
		}
	}
	rc = callus_buf_status(sum);
out:
	free(es);
	callus_buf_release(&line);
	callus_strlist_release(&lines);
	callus_strlist_release(&keys);
	callus_strlist_release(&diffs);
	return rc;
}

/* --- the whole summary --------------------------------------------------------------- */

static int repeats_shown(const char *s, size_t n, const callus_strlist *shown)
{
	for (size_t i = 0; i < shown->count; i++)
		if ((strlen(shown->items[i]) == n && !memcmp(s, shown->items[i], n)) ||
		    callus_summary_repeats(s, n, shown->items[i], strlen(shown->items[i])))
			return 1;
	return 0;
}

/* The output's lines as the summary reads them, one after another: their
 * leading blanks, a line as the one before it, code frames and a
 * wrapper's noise left out, the workspace's paths made relative. */
typedef struct line_walk {
	const char *p, *end, *prev;
	size_t prev_n;
	const roots *rt;
	size_t at;        /* the line's place among those read: 0, 1, ... */
	const char *raw;  /* the line as the output has it, its blanks left out */
	size_t raw_len;
	const char *line; /* as read: raw, or copy when a path was made
			   * relative or a NUL ends it early */
	size_t len;
	callus_buf copy;
} line_walk;

static void walk_init(line_walk *w, const char *text, size_t len, const roots *rt)
{
	memset(w, 0, sizeof(*w));
	w->p = text;
	w->end = text + len;
	w->rt = rt;
	w->at = (size_t)-1;
	callus_buf_init(&w->copy, 0);
}

/* s[0..n) as a summary reads it into b (cleared first): its paths made
 * relative, up to a NUL as a string of it is.  Its length. */
static size_t read_line(callus_buf *b, const char *s, size_t n, const roots *rt)
{
	callus_buf_clear(b);
	put_relative(b, s, n, rt);
	callus_buf_truncate(b, strlen(b->ptr));
	return b->len;
}

/* The next line, w->line and w->len, its place in w->at: 1; 0 at the end;
 * CALLUS_ENOMEM.  Most lines are read as the output has them, not copied. */
static int walk_next(line_walk *w)
{
	while (w->p < w->end) {
		const char *nl = memchr(w->p, '\n', (size_t)(w->end - w->p));
		size_t n = (size_t)((nl ? nl : w->end) - w->p), cut;
		const char *s = w->p;

		w->p = nl ? nl + 1 : w->end;
		while (n && is_space(*s)) {
			s++;
			n--;
		}
		/* a line as the one before it is read already, or left out as
		 * it was: a build repeats one error for each step */
		if (w->prev && n == w->prev_n && !memcmp(s, w->prev, n))
			continue;
		w->prev = s;
		w->prev_n = n;
		if (!n || is_code_frame(s, n) || callus_js_wrapper_noise(s, n))
			continue;
		w->raw = s;
		w->raw_len = n;
		w->line = s;
		w->len = n;
		if (next_root(s, n, 0, w->rt, &cut) < n || memchr(s, '\0', n)) {
			w->len = read_line(&w->copy, s, n, w->rt);
			w->line = w->copy.ptr;
			if (callus_buf_status(&w->copy) < 0)
				return CALLUS_ENOMEM;
		}
		w->at++;
		return 1;
	}
	return 0;
}

/* A line short enough to be taken, as the first reading left it: its
 * place among the lines read, where it is in the text, and its length
 * there and as read (the same when its text is the output's own: no path
 * made relative, no NUL). */
typedef struct line_ref {
	size_t at, off;
	uint32_t raw_len, len;
} line_ref;

/* Into lines (pooled, indexed), each line of refs[0..n) whose length and
 * newline fit in room, once, as its first place has it; its place among
 * the lines read in at[], the caller's (freed by it).  0 or
 * CALLUS_ENOMEM. */
static int lines_that_fit(callus_strlist *lines, size_t **at, const line_ref *refs, size_t n,
			  size_t room, const char *text, const roots *rt)
{
	callus_buf line = CALLUS_BUF_INIT;
	size_t cap = 0;
	int rc = CALLUS_ENOMEM;

	if (callus_strlist_pool(lines) < 0 || callus_strlist_index(lines) < 0)
		goto out;
	for (size_t k = 0; k < n; k++) {
		const line_ref *r = &refs[k];
		const char *t = text + r->off;
		int added;

		if ((size_t)r->len + 1 > room)
			continue;
		if (r->len != r->raw_len) {
			read_line(&line, t, r->raw_len, rt);
			t = line.ptr;
		}
		if (callus_buf_status(&line) < 0 ||
		    callus_strlist_add_unique(lines, t, r->len, &added) < 0)
			goto out;
		if (!added)
			continue;
		if (lines->count > cap) {
			size_t *a = callus_array_grow(*at, &cap, lines->count, sizeof(**at));

			if (!a)
				goto out;
			*at = a;
		}
		(*at)[lines->count - 1] = r->at;
	}
	rc = 0;
out:
	callus_buf_release(&line);
	return rc;
}

/* The line w read, in refs (*n of them, room for *cap): 0 or
 * CALLUS_ENOMEM. */
static int ref_add(line_ref **refs, size_t *n, size_t *cap, const line_walk *w, const char *text)
{
	line_ref *r = callus_array_grow(*refs, cap, *n + 1, sizeof(**refs));

	if (!r)
		return CALLUS_ENOMEM;
	*refs = r;
	r[*n].at = w->at;
	r[*n].off = (size_t)(w->raw - text);
	r[*n].raw_len = (uint32_t)w->raw_len;
	r[(*n)++].len = (uint32_t)w->len;
	return 0;
}

int callus_summary_build(char **out, const char *text, size_t len, const char *output,
			 size_t output_len, const callus_pathctx *pc, const callus_diags *diags)
{
	callus_buf sum = CALLUS_BUF_INIT, first = CALLUS_BUF_INIT, totals = CALLUS_BUF_INIT;
	callus_strlist lines = CALLUS_STRLIST_INIT, shown = CALLUS_STRLIST_INIT,
		       seen = CALLUS_STRLIST_INIT;
	unsigned char *chosen = NULL;
	size_t *at = NULL, used, room, totals_at = (size_t)-1, reserve = 0;
	line_ref *refs = NULL;
	size_t nrefs = 0, refs_cap = 0;
	int rc = CALLUS_ENOMEM, more, totals_chosen = 0;
	line_walk w;
	roots rt;

	/* Every line of the output is read for the totals, the last line of
	 * them to appear (each by its first place): room is kept for it
	 * before the failures share the rest.  Of the rest only the lines
	 * that can still fit are kept, once the failures have taken their
	 * room (thousands of a build's error lines, each kept and indexed,
	 * for a summary of 500 bytes the failures filled): where each is, in
	 * a list of places, not read again.  The totals lines seen are kept
	 * to tell a first place from a later one, indexed: every line of
	 * some outputs reads as one (eslint's "10:1  error"). */
	roots_of(&rt, pc);
	walk_init(&w, text, len, &rt);
	if (callus_strlist_pool(&seen) < 0 || callus_strlist_index(&seen) < 0)
		goto out;
	while ((more = walk_next(&w)) > 0) {
		int added;

		if (w.at == 0)
			callus_buf_put(&first, w.line, w.len);
		if (w.len <= CALLUS_SUMMARY_MAX && w.raw_len <= UINT32_MAX &&
		    ref_add(&refs, &nrefs, &refs_cap, &w, text) < 0)
			goto out;
		if (!callus_summary_is_totals(w.line, w.len))
			continue;
		if (callus_strlist_add_unique(&seen, w.line, w.len, &added) < 0)
			goto out;
		if (added) {
			callus_buf_clear(&totals);
			callus_buf_put(&totals, w.line, w.len);
			totals_at = w.at;
		}
	}
	if (more < 0 || callus_buf_status(&first) < 0 || callus_buf_status(&totals) < 0)
		goto out;
	if (totals_at != (size_t)-1)
		reserve = totals.len + 1;
	/* what the parser understood comes first, every failure of it, so
	 * that the later files and tests survive a long first one */
	if ((rc = put_essentials(&sum, &shown, diags, &rt, CALLUS_SUMMARY_MAX - reserve, output,
				 output_len)) < 0)
		goto out;
	rc = CALLUS_ENOMEM;
	used = sum.len ? sum.len + 1 : 0;
	if (totals_at != (size_t)-1 &&
	    !callus_strlist_contains(&shown, totals.ptr, totals.len)) {
		totals_chosen = 1;
		used += reserve;
	}
	/* then the output's own lines that say what failed, the lines around
	 * them, the rest of the tail, while there is room; none that only
	 * says again a failure listed above.  A line takes its length and a
	 * newline: those longer than the room left now are never taken. */
	room = used <= CALLUS_SUMMARY_MAX + 1 ? CALLUS_SUMMARY_MAX + 1 - used : 0;
	if (room > 1 && lines_that_fit(&lines, &at, refs, nrefs, room, text, &rt) < 0)
		goto out;
	if (lines.count && !(chosen = calloc(lines.count, 1)))
		goto out;
	/* the totals line among them is taken already */
	for (size_t i = 0; totals_chosen && i < lines.count; i++)
		if (at[i] == totals_at)
			chosen[i] = 1;
	for (int rank = 2; rank >= 0; rank--)
		for (size_t i = 0; i < lines.count; i++) {
			size_t n = strlen(lines.items[i]);

			if (chosen[i] || used + n + 1 > CALLUS_SUMMARY_MAX + 1 ||
			    callus_line_rank(lines.items[i], n) != rank ||
			    repeats_shown(lines.items[i], n, &shown))
				continue;
			chosen[i] = 1;
			used += n + 1;
		}
	/* the lines taken in the output's order, the totals line at its place */
	for (size_t i = 0; i <= lines.count; i++) {
		if (totals_chosen && (i == lines.count || at[i] >= totals_at)) {
			if (sum.len)
				callus_buf_putc(&sum, '\n');
			callus_buf_put(&sum, totals.ptr, totals.len);
			totals_chosen = 0;
			if (i < lines.count && at[i] == totals_at)
				continue;
		}
		if (i == lines.count || !chosen[i])
			continue;
		if (sum.len)
			callus_buf_putc(&sum, '\n');
		callus_buf_puts(&sum, lines.items[i]);
	}
	if (sum.len > CALLUS_SUMMARY_MAX)
		callus_buf_truncate(&sum, callus_utf8_cut_word(sum.ptr, sum.len, CALLUS_SUMMARY_MAX));
	/* a first line longer than the whole budget is cut, not dropped */
	if (!sum.len && first.len)
		callus_buf_put(&sum, first.ptr,
			       callus_utf8_cut_word(first.ptr, first.len, CALLUS_SUMMARY_MAX));
	if ((rc = callus_buf_status(&sum)) == 0)
		*out = callus_buf_detach(&sum);
out:
	free(chosen);
	free(at);
	free(refs);
	callus_buf_release(&sum);
	callus_buf_release(&first);
	callus_buf_release(&totals);
	callus_buf_release(&w.copy);
	callus_strlist_release(&lines);
	callus_strlist_release(&shown);
	callus_strlist_release(&seen);
	return rc;
}
