#include "callus/signature.h"
#include "callus/common.h"
#include "callus/context.h"
#include "callus/paths.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_word(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }
static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* Characters a path token is made of. */
static int path_char(char c)
{
	return is_word(c) || c == '.' || c == '/' || c == '-' || c == '@' || c == '+' || c == '~' ||
	       c == '\\';
}

/* A byte a pattern holds escaped: "\\^$.|?*+()[]{}/#". */
static int needs_escape(char c)
{
	switch (c) {
	case '\\': case '^': case '$': case '.': case '|': case '?': case '*': case '+':
	case '(': case ')': case '[': case ']': case '{': case '}': case '/': case '#':
		return 1;
	default:
		return 0;
	}
}

/* Regex-escape one literal character. */
static void put_literal(callus_buf *out, char c)
{
	if (needs_escape(c))
		callus_buf_putc(out, '\\');
	callus_buf_putc(out, c);
}

/* Length of a match at s of the given shape, or 0. */
static size_t match_quoted(const char *s, size_t len, char *q, int ld)
{
	char open = s[0], close;
	size_t i;

	if (open == '\'' || open == '"' || open == '`')
		close = open;
	else if (len >= 3 && !memcmp(s, "\xe2\x80\x98", 3)) /* ‘ … ’ (gcc) */
		close = 0;
	else
		return 0;
	if (!close) {
		for (i = 3; i + 2 < len; i++)
			if (!memcmp(s + i, "\xe2\x80\x99", 3))
				return (*q = 0, i + 3);
		return 0;
	}
	for (i = 1; i < len && i < 200; i++) {
		if (s[i] == '\n')
			return 0;
		/* `name' (ld, older GNU tools) closes with the other quote */
		if (s[i] == close || (ld && open == '`' && s[i] == '\''))
			return (*q = s[i], i + 1);
	}
	return 0;
}

static size_t match_uuid(const char *s, size_t len)
{
	static const int dash[] = { 8, 13, 18, 23 };

	if (len < 36)
		return 0;
	for (size_t i = 0, d = 0; i < 36; i++) {
		if (d < 4 && (int)i == dash[d]) {
			if (s[i] != '-')
				return 0;
			d++;
		} else if (!is_hex(s[i])) {
			return 0;
		}
	}
	return 36;
}

/* 2024-01-31, 2024-01-31T10:20:30.123Z, 10:20:30 */
static size_t match_date(const char *s, size_t len)
{
	size_t i = 0;

	if (len >= 10 && is_digit(s[0]) && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
	    s[4] == '-' && is_digit(s[5]) && is_digit(s[6]) && s[7] == '-' && is_digit(s[8]) &&
	    is_digit(s[9])) {
		i = 10;
		if (i < len && (s[i] == 'T' || s[i] == ' ') && i + 1 < len && is_digit(s[i + 1]))
			i++;
		else
			return i;
	}
	if (i + 8 <= len && is_digit(s[i]) && is_digit(s[i + 1]) && s[i + 2] == ':' &&
	    is_digit(s[i + 3]) && is_digit(s[i + 4]) && s[i + 5] == ':' && is_digit(s[i + 6]) &&
	    is_digit(s[i + 7])) {
		i += 8;
		while (i < len && (is_digit(s[i]) || s[i] == '.' || s[i] == 'Z' || s[i] == '+' ||
				   (s[i] == ':' && i + 1 < len && is_digit(s[i + 1]))))
			i++;
		return i;
	}
	return i >= 10 ? i : 0;
}

/* 0x7ffd1234, or 8+ hex digits holding both a digit and a letter (hashes) */
static size_t match_hex(const char *s, size_t len)
{
	size_t i;
	int digit = 0, letter = 0;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && is_hex(s[2])) {
		for (i = 2; i < len && is_hex(s[i]); i++)
			;
		return i;
	}
	for (i = 0; i < len && is_hex(s[i]); i++) {
		if (is_digit(s[i]))
			digit = 1;
		else
			letter = 1;
	}
	return (i >= 8 && digit && letter && (i == len || !is_word(s[i]))) ? i : 0;
}

size_t callus_duration_len(const char *s, size_t len)
{
	static const char *const units[] = { "ms", "sec", "seconds", "s", "min", "m", "us", "µs" };
	size_t i = 0;

	while (i < len && is_digit(s[i]))
		i++;
	if (!i)
		return 0;
	if (i + 1 < len && s[i] == '.' && is_digit(s[i + 1]))
		for (i++; i < len && is_digit(s[i]); i++)
			;
	if (i < len && s[i] == ' ')
		i++;
	for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
		size_t n = strlen(units[u]);
		if (i + n <= len && !memcmp(s + i, units[u], n) && (i + n == len || !is_word(s[i + n])))
			return i + n;
	}
	return 0;
}

static size_t match_number(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_digit(s[i]))
		i++;
	if (i && i + 1 < len && s[i] == '.' && is_digit(s[i + 1]))
		for (i++; i < len && is_digit(s[i]); i++)
			;
	return i;
}

/* A path: a run of path characters holding a '/' or ending in a source
 * extension. */
static size_t match_path(const char *s, size_t len)
{
	size_t i = 0, slash = 0, dot = 0;

	while (i < len && path_char(s[i])) {
		if (s[i] == '/' || s[i] == '\\')
			slash = 1;
		else if (s[i] == '.')
			dot = 1;
		i++;
	}
	/* trailing punctuation belongs to the sentence */
	while (i > 0 && (s[i - 1] == '.' || s[i - 1] == '-'))
		i--;
	if (i < 2)
		return 0;
	/* an extension needs a dot: most words of a message have none, and
	 * are not walked back for one */
	if ((slash && (i > 1 || s[0] != '/')) || (dot && callus_path_has_source_ext(s, i)))
		return i;
	return 0;
}

static size_t match_url(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && is_alpha(s[i]))
		i++;
	if (i < 2 || i + 3 > len || memcmp(s + i, "://", 3))
		return 0;
	for (i += 3; i < len && !is_space(s[i]) && s[i] != '\'' && s[i] != '"' && s[i] != ')'; i++)
		;
	return i;
}

static size_t match_tmp(const char *s, size_t len)
{
	static const char *const roots[] = { "/tmp/", "/var/folders/", "/private/var/", "/var/tmp/" };

	for (size_t r = 0; r < sizeof(roots) / sizeof(roots[0]); r++) {
		size_t n = strlen(roots[r]);
		if (len > n && !memcmp(s, roots[r], n)) {
			size_t i = n;
			while (i < len && path_char(s[i]))
				i++;
			return i;
		}
	}
	return 0;
}

/* The placeholders of a message pattern (callus_pattern_may_match reads
 * them back). */
#define PH_URL "(?#url)[a-zA-Z]+://[^\\s'\")]*"
#define PH_TMP "(?#tmp)[^\\s:'\"(),;]+"
#define PH_UUID "(?#uuid)[0-9a-fA-F-]{36}"
#define PH_DATE "(?#date)[0-9][0-9TZ:.+ -]*"
#define PH_HEX "(?#hex)(?:0[xX])?[0-9a-fA-F]+"
#define PH_DURATION "(?#duration)[0-9.]+ ?[a-zµ]+"
#define PH_PATH "(?#path)[^\\s:'\"(),;]+"
#define PH_NUM "(?#num)[-+]?[0-9.]+"
#define QUOTED "(?#str)(?:'[^']*'|\"[^\"]*\"|`[^`]*`|\xe2\x80\x98.*?\xe2\x80\x99)"
/* `name' (ld, older GNU tools): a placeholder of its own, so that every
 * other quoted message keeps the pattern, and the id, it had */
#define QUOTED_LD "(?#str)(?:`[^`']*')"

/* Where the literal bytes from s[i] end: s[i], and the bytes after it
 * while they continue a word (a byte after a word byte is no token's
 * start) and are no whitespace. */
static size_t literal_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len && is_word(s[i - 1]) && !is_space(s[i]); i++)
		;
	return i;
}

/*
 * One piece of a message as its pattern sees it, from s[i]: a run of
 * whitespace (*ph "\\s+"), a variable part (*ph its placeholder), or
 * literal bytes (*ph NULL): one, and the rest of a word it ends (no piece
 * starts inside a word).  Returns where the next piece starts.  The one
 * scan both callus_message_pattern and callus_message_may_match follow.
 */
static size_t next_piece(const char *s, size_t len, size_t i, const char **ph, int ld)
{
	/* a placeholder only starts where a token starts */
	int boundary = i == 0 || !is_word(s[i - 1]);
	size_t n;
	char q;

	if (is_space(s[i])) {
		while (i < len && is_space(s[i]))
			i++;
		*ph = "\\s+";
		return i;
	}
	*ph = NULL;
	if (!boundary)
		return literal_end(s, len, i);
	if (is_alpha(s[i]) || s[i] == '_') {
		/* of the shapes below, only these start with a letter (or _),
		 * in the same order: most tokens of a message, tried at once */
		if ((n = match_url(s + i, len - i)) > 0)
			*ph = PH_URL;
		else if (is_hex(s[i]) && (n = match_uuid(s + i, len - i)) > 0)
			*ph = PH_UUID;
		else if (is_hex(s[i]) && (n = match_hex(s + i, len - i)) > 0)
			*ph = PH_HEX;
		else if ((n = match_path(s + i, len - i)) > 0)
			*ph = PH_PATH;
		else
			return literal_end(s, len, i);
	} else if (is_digit(s[i])) {
		/* of the shapes below, those a digit starts, in the same
		 * order */
		if ((n = match_uuid(s + i, len - i)) > 0)
			*ph = PH_UUID;
		else if ((n = match_date(s + i, len - i)) > 0)
			*ph = PH_DATE;
		else if ((n = match_hex(s + i, len - i)) > 0)
			*ph = PH_HEX;
		else if ((n = callus_duration_len(s + i, len - i)) > 0)
			*ph = PH_DURATION;
		else if ((n = match_path(s + i, len - i)) > 0)
			*ph = PH_PATH;
		else if ((n = match_number(s + i, len - i)) > 0)
			*ph = PH_NUM;
		else
			return literal_end(s, len, i);
	} else if ((n = match_quoted(s + i, len - i, &q, ld)) > 0) {
		/* one placeholder for every quoting style: gcc's curly quotes
		 * and a shell's straight ones name the same thing */
		*ph = s[i] == '`' && q == '\'' ? QUOTED_LD : QUOTED;
	} else if ((n = match_tmp(s + i, len - i)) > 0) {
		*ph = PH_TMP;
	} else if ((n = match_path(s + i, len - i)) > 0) {
		/* a URL, a UUID, a date, a hex number, a duration and a number
		 * start with a letter or a digit: not here */
		*ph = PH_PATH;
	} else if ((s[i] == '-' || s[i] == '+') && i + 1 < len && is_digit(s[i + 1]) &&
		   (n = match_number(s + i + 1, len - i - 1)) > 0) {
		/* a sign belongs to the number after it: -1 and +0 are numbers */
		*ph = PH_NUM;
		n++;
	} else {
		return literal_end(s, len, i);
	}
	return i + n;
}

/* Where a hint "did you mean ...?" that ends s[0..len) starts, with the
 * separator before it ("; ", ". ", ", " or a blank): len when there is
 * none.  Short and on the message's last line only. */
static size_t guess_at(const char *s, size_t len)
{
	static const char *const words[] = { "did you mean", "Did you mean" };

	for (size_t i = len; i-- > 0;) {
		if (s[i] == '\n' || len - i > 240)
			return len;
		for (size_t k = 0; k < 2; k++) {
			size_t n = strlen(words[k]), at = i;

			if (len - i < n || memcmp(s + i, words[k], n) || !i || s[i - 1] != ' ')
				continue;
			while (at && s[at - 1] == ' ')
				at--;
			if (at && (s[at - 1] == ';' || s[at - 1] == '.' || s[at - 1] == ','))
				at--;
			return at;
		}
	}
	return len;
}

/* The length of a type's expansion " {aka ‘long int’}" at s[0..len), 0
 * when none is there. */
static size_t aka_len(const char *s, size_t len)
{
	size_t i;

	if (len < 7 || memcmp(s, " {aka ", 6))
		return 0;
	i = 6;
	/* the quoted type may hold braces itself ({lambda(int)#1}) */
	if (len - i >= 3 && !memcmp(s + i, "\xe2\x80\x98", 3)) {
		for (i += 3; i + 3 <= len && memcmp(s + i, "\xe2\x80\x99", 3); i++)
			;
		i += 3;
	} else if (s[i] == '\'') {
		const char *q = memchr(s + i + 1, '\'', len - i - 1);

		i = q ? (size_t)(q - s) + 1 : len;
	}
	while (i < len && s[i] != '}' && s[i] != '\n')
		i++;
	return i < len && s[i] == '}' ? i + 1 : 0;
}

int callus_message_unhinted(callus_buf *out, const char *s, size_t len)
{
	size_t end = guess_at(s, len), from = 0;
	int cut = end < len;

	callus_buf_clear(out);
	for (const char *aka = s; (aka = memmem(aka, end - (size_t)(aka - s), " {aka ", 6));) {
		size_t n = aka_len(aka, end - (size_t)(aka - s));

		if (!n) {
			aka++;
			continue;
		}
		callus_buf_put(out, s + from, (size_t)(aka - s) - from);
		from = (size_t)(aka - s) + n;
		aka += n;
		cut = 1;
	}
	if (!cut)
		return 0;
	callus_buf_put(out, s + from, end - from);
	return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : 1;
}

static int pattern_scan(callus_buf *out, const char *s, size_t len, int ld);

/* v42: the pattern schema 42 makes (ld's quoting read, hints left out);
 * else the one schema 41 made. */
static int pattern_of(callus_buf *out, const char *s, size_t len, int v42)
{
	callus_buf plain = CALLUS_BUF_INIT;
	int rc;

	/* the message without its hints: the same error with and without */
	if (v42 && (rc = callus_message_unhinted(&plain, s, len)) != 0) {
		if (rc > 0)
			rc = pattern_scan(out, plain.ptr, plain.len, 1);
		callus_buf_release(&plain);
		return rc;
	}
	return pattern_scan(out, s, len, v42);
}

static int pattern_scan(callus_buf *out, const char *s, size_t len, int ld)
{
	for (size_t i = 0, next; i < len; i = next) {
		const char *ph;

		next = next_piece(s, len, i, &ph, ld);
		if (ph) {
			callus_buf_puts(out, ph);
			continue;
		}
		/* copied at once between the bytes to escape */
		for (size_t j = i, from = i; j <= next; j++) {
			if (j == next || needs_escape(s[j])) {
				callus_buf_put(out, s + from, j - from);
				if (j < next)
					put_literal(out, s[j]);
				from = j + 1;
			}
		}
	}
	return callus_buf_status(out);
}

int callus_message_pattern(callus_buf *out, const char *s, size_t len)
{
	return pattern_of(out, s, len, 1);
}

int callus_message_pattern_v41(callus_buf *out, const char *s, size_t len)
{
	return pattern_of(out, s, len, 0);
}

int callus_signature_pattern_stored(const callus_signature *g, const char **out)
{
	callus_buf made = CALLUS_BUF_INIT;
	const char *orig = g->original ? g->original : "";
	int rc;

	*out = g->message_pattern ? g->message_pattern : "";
	if (g->pattern_of_original && g->message_pattern && g->original) {
		*out = "";
		return 0;
	}
	if ((rc = callus_message_pattern(&made, orig, strlen(orig))) == 0 && !strcmp(made.ptr, *out))
		*out = "";
	callus_buf_release(&made);
	return rc < 0 ? CALLUS_ENOMEM : 0;
}

int callus_signature_pattern_load(callus_buf *out, const char *stored, const char *original)
{
	if (stored && *stored)
		return callus_buf_puts(out, stored) < 0 ? CALLUS_ENOMEM : 0;
	if (!original)
		original = "";
	return callus_message_pattern(out, original, strlen(original)) < 0 ? CALLUS_ENOMEM : 0;
}

/* The length of the placeholder (or \s+) p starts with, 0 if none.  Each
 * starts with "\\s+" or "(?#": the others are not compared at every byte of
 * every candidate pattern, where they were most of a failing hook's regex
 * fallback. */
static size_t placeholder_len(const char *p)
{
	static const char *const ph[] = { QUOTED, QUOTED_LD, PH_URL, PH_TMP, PH_UUID, PH_DATE,
					  PH_HEX, PH_DURATION, PH_PATH, PH_NUM };

	if (p[0] == '\\')
		return p[1] == 's' && p[2] == '+' ? 3 : 0;
	if (p[0] != '(' || p[1] != '?' || p[2] != '#')
		return 0;
	for (size_t k = 0; k < sizeof(ph) / sizeof(ph[0]); k++) {
		size_t len = strlen(ph[k]);

		if (!strncmp(p, ph[k], len))
			return len;
	}
	return 0;
}

/*
 * The literal run being read: looked for in msg when it ends, or, with
 * mask set, its 3-byte strings' bits added to *mask
 * (callus_signature_sketch), or, with out set, put there as msg would be
 * looked for it (callus_message_runs).
 */
typedef struct lit_run {
	const char *msg;
	uint64_t *mask;
	callus_buf *out;
	char text[256];
	size_t n;
} lit_run;

/*
 * The bit of the 3 bytes at s among CALLUS_SKETCH_LITERAL_BITS: their
 * bytes mixed (murmur3's finalizer): of the pairs of tests/corpus's
 * messages the literal test refuses, a multiplication alone let 3.8 %
 * through, this 1.6 % (bench/sketchpass.sh).
 */
static uint64_t trigram_bit(const char *s)
{
	uint32_t h = (uint32_t)(unsigned char)s[0] | (uint32_t)(unsigned char)s[1] << 8 |
		     (uint32_t)(unsigned char)s[2] << 16;

	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return (uint64_t)1 << h % CALLUS_SKETCH_LITERAL_BITS;
}

/* The run ended (a placeholder, \s+, the end): 0 when msg lacks it. */
static int run_end(lit_run *r)
{
	int found = 1;

	if (r->n >= 3 && r->mask) {
		for (size_t j = 0; j + 3 <= r->n; j++)
			*r->mask |= trigram_bit(r->text + j);
	} else if (r->n >= 3 && r->out) {
		callus_buf_put(r->out, r->text, r->n);
		callus_buf_putc(r->out, '\0');
	} else if (r->n >= 3) {
		r->text[r->n] = '\0';
		found = strstr(r->msg, r->text) != NULL;
	}
	r->n = 0;
	return found;
}

/* One more byte of the run: 0 when msg lacks what a long run kept. */
static int run_add(lit_run *r, char c)
{
	if (r->n < sizeof(r->text) - 1) {
		r->text[r->n++] = c;
		return 1;
	}
	/* a long run: what was kept of it is looked for */
	return run_end(r);
}

/*
 * The literal runs of a pattern made by callus_message_pattern: its text
 * between placeholders and \s+, unescaped, each given to r as it ends.
 * Anchored at both ends, the pattern can only match a message that holds
 * every run; a run is looked for when it has 3 bytes or more.  0 when a
 * run is missing, 1 when none is, -1 for a pattern with anything else in
 * it (made by another version): it may match anything.
 */
static int pattern_runs(const char *pat, lit_run *r)
{
	for (const char *p = pat;; ) {
		size_t len = placeholder_len(p);

		if (len || !*p) {
			if (!run_end(r))
				return 0;
			if (!*p)
				return 1;
			p += len;
			continue;
		}
		if (*p == '\\') {
			if (!needs_escape(p[1]))
				return -1;
			p++;
		} else if (strchr("^$.|?*+()[]{}", *p)) {
			return -1;
		}
		if (!run_add(r, *p))
			return 0;
		p++;
	}
}

/* The runs of the pattern of message[0..len), without making it: the
 * literal bytes between the pieces next_piece gives a placeholder. */
static int message_runs_of(const char *message, size_t len, lit_run *r)
{
	for (size_t i = 0, next; i < len; i = next) {
		const char *ph;

		next = next_piece(message, len, i, &ph, 1);
		if (ph && !run_end(r))
			return 0;
		for (size_t j = i; !ph && j < next; j++)
			if (!run_add(r, message[j]))
				return 0;
	}
	return run_end(r);
}

/* The same of a whole message, its hints left out as its pattern leaves
 * them (callus_message_unhinted). */
static int message_runs(const char *message, lit_run *r)
{
	callus_buf plain = CALLUS_BUF_INIT;
	size_t len = strlen(message);
	int rc = callus_message_unhinted(&plain, message, len);

	if (rc < 0)
		return rc;
	if (rc > 0)
		rc = message_runs_of(plain.ptr, plain.len, r);
	else
		rc = message_runs_of(message, len, r);
	callus_buf_release(&plain);
	return rc;
}

int callus_pattern_may_match(const char *pat, const char *msg)
{
	lit_run r = { .msg = msg };

	return pattern_runs(pat, &r) != 0;
}

int callus_message_may_match(const char *message, const char *msg)
{
	lit_run r = { .msg = msg };

	return message_runs(message, &r);
}

int callus_message_runs(callus_buf *out, const char *message)
{
	lit_run r = { .out = out };
	int rc = message_runs(message, &r);

	if (rc < 0)
		return rc;
	callus_buf_putc(out, '\0');
	return callus_buf_status(out);
}

int callus_runs_may_match(const char *runs, const char *msg)
{
	for (const char *run = runs; *run; run += strlen(run) + 1)
		if (!strstr(msg, run))
			return 0;
	return 1;
}

#define SKETCH_LITERALS (((uint64_t)1 << CALLUS_SKETCH_LITERAL_BITS) - 1)

int64_t callus_signature_sketch(const char *stored, const char *original, int has_stack)
{
	uint64_t mask = 0;
	lit_run r = { .mask = &mask };

	if (stored && *stored) {
		if (pattern_runs(stored, &r) < 0)
			mask = 0;
	} else {
		message_runs(original ? original : "", &r);
	}
	/* the stack's bit the sign of 48 bits: 6 bytes either way */
	return has_stack ? (int64_t)mask - ((int64_t)1 << CALLUS_SKETCH_LITERAL_BITS) : (int64_t)mask;
}

uint64_t callus_message_mask(const char *msg)
{
	uint64_t mask = 0;

	for (size_t i = 0; msg[i] && msg[i + 1] && msg[i + 2]; i++)
		mask |= trigram_bit(msg + i);
	return mask;
}

int callus_sketch_may_match(int64_t sketch, uint64_t msg_mask, int has_stack)
{
	if (has_stack && sketch < 0)
		return 1;
	return ((uint64_t)sketch & SKETCH_LITERALS & ~msg_mask) == 0;
}

/* "TypeError: x", "AssertionError", "thread 'main' panicked" */
static int exception_name(const char *m, size_t *len)
{
	size_t i = 0;

	while (is_word(m[i]) || m[i] == '.')
		i++;
	if (i > 5 && (!strncmp(m + i - 5, "Error", 5) || (i > 9 && !strncmp(m + i - 9, "Exception", 9)) ||
		      !strncmp(m + i - 5, "Fault", 5))) {
		*len = i;
		return 1;
	}
	return 0;
}

char *callus_error_type(const callus_diag *d, const char *tool)
{
	callus_buf b = CALLUS_BUF_INIT;
	const char *m = d->message ? d->message : "";
	const char *expect = strstr(m, "expect(");
	size_t n;

	if (d->code && !strncmp(d->code, "-Werror=", 8)) {
		/* gcc's -Werror=x is warning -Wx made fatal: the same error */
		callus_buf_printf(&b, "-W%s", d->code + 8);
	} else if (d->code && *d->code) {
		callus_buf_puts(&b, d->code);
	} else if (exception_name(m, &n)) {
		callus_buf_put(&b, m, n);
	} else if ((m = strstr(m, "Error: ")) && m > d->message && exception_name(m - 1, &n)) {
		/* "FAILED x - AssertionError: ..." keeps only the class */
		const char *start = m;
		while (start > d->message && (is_word(start[-1]) || start[-1] == '.'))
			start--;
		callus_buf_put(&b, start, (size_t)(m + 5 - start));
	} else if (expect && (m = strstr(expect, ").")) && is_alpha(m[2])) {
		/* jest/vitest: the matcher is the kind of assertion */
		size_t k = 2;
		while (is_word(m[k]))
			k++;
		callus_buf_puts(&b, "expect.");
		callus_buf_put(&b, m + 2, k - 2);
	} else if (strstr(d->message ? d->message : "", "panic")) {
		callus_buf_puts(&b, "panic");
	} else {
		/* no code, no class: the kind of failure.  Not the tool: gcc's
		 * error is the same error when make runs gcc. */
		(void)tool;
		callus_buf_puts(&b, d->test ? "test-failure" : (d->severity ? d->severity : "error"));
	}
	if (callus_buf_status(&b) < 0)
		return NULL;
	return callus_buf_detach(&b);
}

int callus_error_type_is_rule(const char *t)
{
	/* the kinds callus_error_type() falls back to, and the status words
	 * parsers give as a code (cargo's "panic", ctest's "Failed") */
	static const char *const kinds[] = { "error", "warning", "panic", "Failed",
					     "test-failure", NULL };
	size_t n = t ? strlen(t) : 0;

	if (!n || strchr(t, ' '))
		return 0;
	for (size_t i = 0; kinds[i]; i++)
		if (!strcmp(t, kinds[i]))
			return 0;
	/* exception classes */
	if ((n > 5 && !strcmp(t + n - 5, "Error")) || (n > 9 && !strcmp(t + n - 9, "Exception")))
		return 0;
	return 1;
}

/* "function\tdir/file.js" -> "function@file.js" */
static int stack_pattern(callus_strlist *out, const char *frame)
{
	callus_buf b = CALLUS_BUF_INIT;
	const char *tab = strchr(frame, '\t'), *file = tab ? tab + 1 : frame;
	const char *base = strrchr(file, '/');
	int rc;

	callus_buf_put(&b, frame, tab ? (size_t)(tab - frame) : 0);
	callus_buf_putc(&b, '@');
	callus_buf_puts(&b, base ? base + 1 : file);
	if ((rc = callus_buf_status(&b)) == 0)
		rc = callus_strlist_add_unique(out, b.ptr, b.len, NULL);
	callus_buf_release(&b);
	return rc;
}

int callus_signature_id(char id[CALLUS_SHA256_HEX_LEN + 1], const char *error_type,
			const char *pattern, const callus_strlist *stack)
{
	callus_sha256 *h = NULL;

	if (callus_sha256_new(&h) < 0)
		return CALLUS_ENOMEM;
	callus_sha256_part(h, error_type, strlen(error_type));
	callus_sha256_part(h, pattern, strlen(pattern));
	for (size_t i = 0; stack && i < stack->count; i++)
		callus_sha256_part(h, stack->items[i], strlen(stack->items[i]));
	return callus_sha256_finish(h, id) < 0 ? CALLUS_ENOMEM : 0;
}

/* All of a signature but its id. */
static int build_fields(callus_signature *out, const callus_diag *d, const char *tool,
			const callus_strlist *context)
{
	callus_buf pat = CALLUS_BUF_INIT;
	const char *msg = d->message ? d->message : "";
	int rc = CALLUS_ENOMEM;

	memset(out, 0, sizeof(*out));
	if (!(out->error_type = callus_error_type(d, tool)) ||
	    callus_message_pattern(&pat, msg, strlen(msg)) < 0 || !(out->original = strdup(msg)) ||
	    !(out->tool = strdup(tool ? tool : "")))
		goto fail;
	out->message_pattern = callus_buf_detach(&pat);
	if (!out->message_pattern)
		goto fail;
	out->pattern_of_original = 1;
	for (size_t i = 0; i < d->frames.count; i++)
		if (stack_pattern(&out->stack_patterns, d->frames.items[i]) < 0)
			goto fail;
	for (size_t i = 0; context && i < context->count; i++)
		if (callus_strlist_add(&out->context_patterns, context->items[i],
				     strlen(context->items[i])) < 0)
			goto fail;
	return 0;
fail:
	callus_buf_release(&pat);
	callus_signature_release(out);
	return rc;
}

int callus_signature_build(callus_signature *out, const callus_diag *d, const char *tool,
			 const callus_strlist *context)
{
	int rc = build_fields(out, d, tool, context);

	if (rc == 0 && (rc = callus_signature_id(out->id, out->error_type, out->message_pattern,
						 &out->stack_patterns)) < 0)
		callus_signature_release(out);
	return rc;
}

/* A part of an id's key: its length, ':', itself. */
static void put_part(callus_buf *key, const char *part)
{
	size_t len = strlen(part);

	callus_buf_put_uint(key, len);
	callus_buf_putc(key, ':');
	callus_buf_put(key, part, len);
}

/* What callus_signature_id() hashes of s, each part after its length, into
 * key (cleared first): equal keys, equal ids. */
static int id_key(callus_buf *key, const callus_signature *s)
{
	callus_buf_clear(key);
	put_part(key, s->error_type);
	put_part(key, s->message_pattern);
	for (size_t i = 0; i < s->stack_patterns.count; i++)
		put_part(key, s->stack_patterns.items[i]);
	return callus_buf_status(key);
}

void callus_signature_release(callus_signature *s)
{
	if (!s)
		return;
	free(s->error_type);
	free(s->message_pattern);
	free(s->original);
	free(s->tool);
	callus_strlist_release(&s->stack_patterns);
	callus_strlist_release(&s->context_patterns);
	memset(s, 0, sizeof(*s));
}

void callus_signatures_free(callus_signature *sigs, size_t count)
{
	for (size_t i = 0; sigs && i < count; i++)
		callus_signature_release(&sigs[i]);
	free(sigs);
}

/* Whether a and b give the same signature: everything of a diagnostic
 * callus_signature_build() reads (not its place, not its file). */
static int same_inputs(const callus_diag *a, const callus_diag *b)
{
	if (!callus_str_same(a->message, b->message) || !callus_str_same(a->code, b->code) ||
	    !callus_str_same(a->severity, b->severity) || !callus_str_same(a->test, b->test) ||
	    a->frames.count != b->frames.count)
		return 0;
	for (size_t i = 0; i < a->frames.count; i++)
		if (strcmp(a->frames.items[i], b->frames.items[i]))
			return 0;
	return 1;
}

int callus_signatures_for(callus_signature **out, size_t *count, callus_diags *diags,
			const callus_strlist *files, const char *framework, const callus_pathctx *pc)
{
	callus_strlist context = CALLUS_STRLIST_INIT, keys = CALLUS_STRLIST_INIT;
	callus_buf dir = CALLUS_BUF_INIT, key = CALLUS_BUF_INIT;
	callus_signature *sigs = NULL;
	size_t n = 0;
	int rc = 0;

	*out = NULL;
	*count = 0;
	if (!diags->count)
		return 0;
	/* sigs[k]'s key is keys.items[k]: a diagnostic of a signature seen
	 * before in the run (another identifier, another file) is neither
	 * hashed again nor compared with each signature (a build's thousand
	 * errors of a few kinds: 13 million instructions of hashing) */
	(void)callus_strlist_index(&keys);
	if (pc && pc->workspace) {
		callus_buf_puts(&dir, pc->workspace);
		if (pc->cwd_rel && *pc->cwd_rel)
			callus_buf_printf(&dir, "/%s", pc->cwd_rel);
	}
	if (callus_buf_status(&dir) < 0 ||
	    callus_context_patterns(&context, pc ? pc->workspace : NULL, dir.ptr, framework,
				  files) < 0 ||
	    !(sigs = calloc(diags->count, sizeof(*sigs)))) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < diags->count; i++) {
		callus_diag *d = &diags->items[i];
		callus_signature sig;
		size_t k;

		/* a tool that prints one error again and again (a megabyte of
		 * gcc's: 1,000 kept, one signature) is signed once a run */
		if (i && diags->items[i - 1].signature && same_inputs(d, &diags->items[i - 1])) {
			free(d->signature);
			if (!(d->signature = strdup(diags->items[i - 1].signature))) {
				rc = CALLUS_ENOMEM;
				goto out;
			}
			continue;
		}
		if ((rc = build_fields(&sig, d, framework, &context)) < 0)
			goto out;
		if ((rc = id_key(&key, &sig)) < 0) {
			callus_signature_release(&sig);
			goto out;
		}
		if (callus_strlist_find(&keys, key.ptr, key.len, &k)) {
			callus_signature_release(&sig);
		} else {
			if ((rc = callus_signature_id(sig.id, sig.error_type, sig.message_pattern,
						     &sig.stack_patterns)) < 0 ||
			    (rc = callus_strlist_add(&keys, key.ptr, key.len)) < 0) {
				callus_signature_release(&sig);
				goto out;
			}
			k = n;
			sigs[n++] = sig;
		}
		free(d->signature);
		if (!(d->signature = strdup(sigs[k].id))) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
	}
	*out = sigs;
	*count = n;
	sigs = NULL;
	n = 0;
out:
	callus_signatures_free(sigs, n);
	callus_strlist_release(&context);
	callus_strlist_release(&keys);
	callus_buf_release(&dir);
	callus_buf_release(&key);
	return rc;
}
