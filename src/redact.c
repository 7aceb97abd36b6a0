/*
 * redact.c - hand-written scanners for secrets in tool output.
 *
 * One left-to-right pass.  A 256-entry table marks the few bytes that can
 * start a match (the first byte of a token prefix at a word start, ':',
 * '=', '-', '~', '>'); every other byte costs one table lookup, or less
 * where sixteen bytes are asked at once (SSE2), which is what keeps
 * ordinary compiler output fast.  At a word start, a second table
 * of byte pairs rejects most words before any prefix is compared.  Matchers recognise fixed prefixes and then spans of a character
 * class, so no backtracking is possible; spans that may be re-scanned from a
 * later start are capped, so the whole pass stays linear.
 *
 * Redacted ranges start at or after the trigger byte (names, schemes and
 * users are kept), so input is copied to the output lazily, and the text a
 * match keeps after its trigger is scanned on its own.
 *
 * Redaction is idempotent: a second pass over the output finds nothing.
 * That needs every decision to depend only on bytes that the output keeps:
 * matchers look back no further than the end of the previous redaction
 * (scan.floor), and a value that contains a "[REDACTED:" marker is left
 * alone, because the pass that wrote the marker left the rest of it.
 *
 * This file builds the tables and drives the pass; the matchers are
 * redact_tokens.c (secrets known by their shape), redact_assign.c (secrets
 * known by their name) and redact_cli.c (secrets known by the command-line
 * option that carries them, and command lines given as words).
 */
#include "callus/redact.h"
#include "callus/cleantext.h"
#include "redact_internal.h"
#include "swar.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- where a match may start ------------------------------------------ */

/*
 * Most of a tool's output starts no match: the scan went on a byte at a
 * time through two table lookups (start, wordy) for every byte of it.
 * With SSE2 sixteen bytes are
 * asked at once whether they may start one, by the classes the tables
 * are made of: a byte of ":=-~>" anywhere, or at a word's start a word
 * byte (ASCII letter, digit, '_', '-') or '#'.  That is more than the
 * tables start (most words' first letters begin no prefix), and each byte
 * it gives is asked of them as before; sixteen_fits() checks that it
 * gives every byte they start, else the tables alone are used.
 */
#ifdef __SSE2__
static int sixteen_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int sixteen_punct(int c)
{
	return c && strchr(":=-~>", c);
}

static int sixteen_fits(const callus_redactor *r)
{
	for (int c = 0; c < 256; c++)
		if (r->wordy[c] != sixteen_word(c) ||
		    (r->start[1][c] && !sixteen_punct(c)) ||
		    (r->start[0][c] && !sixteen_punct(c) && !sixteen_word(c) && c != '#'))
			return 0;
	return 1;
}

/* The bytes of p[0..16) that may start a match, a bit each in memory's
 * order, the byte before p a word byte or not (prev_word): the classes
 * of sixteen_word() and sixteen_punct(), and '#'. */
static unsigned block_starts(const unsigned char *p, unsigned prev_word)
{
	__m128i v = callus_sse_load(p), dash = callus_sse_is(v, '-');
	__m128i word = _mm_or_si128(
		_mm_or_si128(callus_sse_in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'z'),
			     callus_sse_in_range(v, '0', '9')),
		_mm_or_si128(dash, callus_sse_is(v, '_')));
	__m128i punct = _mm_or_si128(_mm_or_si128(callus_sse_is(v, ':'), callus_sse_is(v, '=')),
				     _mm_or_si128(_mm_or_si128(dash, callus_sse_is(v, '~')),
						  callus_sse_is(v, '>')));
	unsigned w = (unsigned)_mm_movemask_epi8(word);
	unsigned lead = (unsigned)_mm_movemask_epi8(_mm_or_si128(word, callus_sse_is(v, '#')));

	return (unsigned)_mm_movemask_epi8(punct) | (lead & ~(w << 1 | prev_word));
}
#else
static int sixteen_fits(const callus_redactor *r)
{
	(void)r;
	return 0;
}
#endif

/* A block of sixteen bytes from base and those of them that may start a
 * match: the calls within one block read it once. */
struct block {
	size_t base;
	unsigned may;
};

#define BLOCK_NONE { (size_t)-1, 0 }

/* Whether the tables start a match at s[k], the byte before it a word
 * byte or not (after_word): its byte may, and a token's first letter has
 * after it the second of some prefix. */
static inline int starts_at(const callus_redactor *r, const unsigned char *s, size_t k,
			    size_t end, int after_word)
{
	unsigned c = s[k], d;

	if (!r->start[after_word][c])
		return 0;
	if (r->trig[c] != T_WORD)
		return 1;
	return k + 1 < end && (d = s[k + 1], r->pair[c][d >> 3] >> (d & 7) & 1);
}

/* The first j in (i, end) at which the tables start a match, or end. */
static size_t next_start(const callus_redactor *r, const unsigned char *s, size_t i,
			 size_t end, struct block *b)
{
#ifdef __SSE2__
	while (r->sixteen) {
		size_t j = i + 1;

		if (j < b->base || j - b->base >= 16) {
			if (end - j < 16)
				break;
			b->base = j;
			b->may = block_starts(s + j, r->wordy[s[j - 1]]);
		}
		for (unsigned m = b->may & (~0u << (j - b->base)); m; m &= m - 1) {
			size_t k = b->base + (size_t)__builtin_ctz(m);

			if (starts_at(r, s, k, end, r->wordy[s[k - 1]]))
				return k;
		}
		i = b->base + 15;
	}
#else
	(void)b;
#endif
	do {
		if (++i == end)
			return end;
	} while (!starts_at(r, s, i, end, r->wordy[s[i - 1]]));
	return i;
}

int callus_redactor_new(callus_redactor **out, callus_error *err)
{
	callus_redactor *r;
	int c;

	if (!out)
		return callus_error_set(err, CALLUS_EINVAL, "redactor: no output");
	*out = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return callus_error_set(err, CALLUS_ENOMEM, "redactor: out of memory");
	for (c = 0; c < 256; c++) {
		uint32_t k = 0;

		if (c >= 'A' && c <= 'Z')
			k |= C_UP;
		if (c >= 'a' && c <= 'z')
			k |= C_LO;
		if (c >= '0' && c <= '9')
			k |= C_DIG;
		if (c >= 0x80)
			k |= C_HIGH;
		if (c == ' ' || (c >= '\t' && c <= '\r'))
			k |= C_WS;
		if (in_set("\"'`", c))
			k |= C_QUOTE;
		if (in_set(".,;:)]}>", c))
			k |= C_STRIP;
		if (c == '_')
			k |= C_US;
		if (c == '-')
			k |= C_DASH;
		if (c == '.')
			k |= C_DOT;
		if (c == '+' || c == '/')
			k |= C_B64;
		if (c == '~')
			k |= C_TILDE;
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
			k |= C_HEX;
		if (c == '=')
			k |= C_EQ;
		if (c == '%')
			k |= C_PCT;
		if (in_set("\n\r;|&(`", c))
			k |= C_SEGEND;
		if (in_set("([{,`", c))
			k |= C_OPTPRE;
		r->cls[c] = k;
	}
	callus_redact_tokens_init(r);
	callus_redact_cli_init(r);
	r->trig[':'] = T_COLON;
	r->trig['='] = T_EQ;
	r->trig['-'] = T_DASH;
	r->trig['~'] = T_TILDE;
	r->trig['>'] = T_GT;
	for (c = 0; c < 256; c++) {
		r->wordy[c] = (r->cls[c] & C_B64URL) != 0;
		r->start[0][c] = r->trig[c] != T_NONE;
		r->start[1][c] = r->trig[c] != T_NONE && r->trig[c] != T_WORD;
	}
	r->sixteen = sixteen_fits(r);
	*out = r;
	return 0;
}

void callus_redactor_free(callus_redactor *r)
{
	free(r);
}

/* ---- driver ----------------------------------------------------------- */

static int try_at(const struct scan *sc, size_t i, unsigned t, struct match *m)
{
	const unsigned char *s = sc->s;

	switch (t) {
	case T_WORD:
		/* a word's start that begins some prefix (scan_range) */
		return callus_redact_match_token(sc, i, m);
	case T_COLON:
		if (i + 2 < sc->n && s[i + 1] == '/' && s[i + 2] == '/')
			return callus_redact_match_url(sc, i, m);
		return callus_redact_match_telegram(sc, i, m) ||
		       (callus_redact_colon_named(sc, i) && callus_redact_match_assign(sc, i, m));
	case T_EQ:
		return callus_redact_match_assign(sc, i, m);
	case T_DASH:
		if (i + 11 <= sc->n && s[i + 1] == '-' && s[i + 5] == 'B')
			return callus_redact_match_pem(sc, i, m);
		if (i + 3 < sc->n && s[i + 1] == 'u' && s[i + 2] == 's')
			return callus_redact_match_mailchimp(sc, i, m);
		return callus_redact_match_option(sc, i, m);
	case T_TILDE:
		return callus_redact_match_tilde(sc, i, m);
	case T_GT:
		return callus_redact_match_element(sc, i, m);
	}
	return 0;
}

/* Text the scan keeps, in[0..len), to the output; a scan without one
 * (finds()) writes nothing. */
static int put_kept(const struct scan *sc, const unsigned char *in, size_t len)
{
	if (!sc->out)
		return 0;
	return sc->json ? callus_buf_put_json_chars(sc->out, (const char *)in, len)
			: callus_buf_put(sc->out, in, len);
}

static int put_kind(callus_buf *out, const char *kind)
{
	int rc;

	if (!out)
		return 0;
	/* Each write checked: a ceiling (ETOOBIG) is not sticky like OOM. */
	if ((rc = callus_buf_puts(out, "[REDACTED:")) < 0 ||
	    (rc = callus_buf_puts(out, kind)) < 0)
		return rc;
	return callus_buf_putc(out, ']');
}

/*
 * Scan [i, end) and emit everything before the last match into sc->out.
 * The text a match keeps between its trigger and the secret (the user of a
 * URL, the scheme word of an Authorization header) is scanned too, so a
 * token there is not skipped over; such text holds no "://" or header of
 * its own, so this recurses at most one level.
 */
static int scan_range(struct scan *sc, size_t i, size_t end)
{
	const callus_redactor *r = sc->r;
	const unsigned char *s = sc->s;
	size_t n = sc->n;
	size_t pem;
	struct block blk = BLOCK_NONE;
	int rc = 0;

	sc->n = end;
	while (i < end) {
		struct match m = { 0, 0, 0, NULL };
		unsigned t;

		/* The hot loop: the byte a match ended at (the floor) starts
		 * as a text's first byte does, every later one by the byte
		 * before it. */
		if (!starts_at(r, s, i, end, i > sc->floor && r->wordy[s[i - 1]]) &&
		    (i = next_start(r, s, i, end, &blk)) == end)
			goto out;
		t = r->trig[s[i]];
		if (!try_at(sc, i, t, &m)) {
			i = m.resume > i ? m.resume : i + 1;
			continue;
		}
		/* A value or token class that admits '-' can run into a key
		 * block ("KEY=-----BEGIN ..."); stop there so that the block
		 * is matched whole rather than cut after "BEGIN". */
		if (m.kind != callus_redact_kind_pem &&
		    (pem = callus_redact_pem_within(sc, m.start, m.end)) < m.end) {
			m.end = pem;
			if (m.end == m.start) {
				i++;
				continue;
			}
		}
		if (m.start > i + 1 && (rc = scan_range(sc, i + 1, m.start)) < 0)
			goto out;
		if ((rc = put_kept(sc, sc->s + sc->copied, m.start - sc->copied)) < 0 ||
		    (rc = put_kind(sc->out, m.kind)) < 0)
			goto out;
		sc->copied = sc->floor = i = m.end;
		sc->count++;
	}
out:
	sc->n = n;
	return rc;
}

int callus_redact(const callus_redactor *r, callus_buf *out, const char *in,
		size_t len, size_t *count)
{
	return callus_redact_scan(r, out, in, len, NULL, 0, count);
}

/* callus_redact_scan(), the kept text escaped for JSON when json. */
static int redact_into(const callus_redactor *r, callus_buf *out, const char *in, size_t len,
		       const struct callus_redact_tool *tool, int argv_word, int json,
		       size_t *count)
{
	struct scan sc;
	size_t orig;
	int rc;

	if (count)
		*count = 0;
	if (!r || !out || (!in && len))
		return CALLUS_EINVAL;
	orig = out->len;
	if (!len)
		return callus_buf_status(out);
	sc.r = r;
	sc.s = (const unsigned char *)in;
	sc.n = len;
	sc.floor = 0;
	sc.out = out;
	sc.copied = 0;
	sc.count = 0;
	sc.argv_tool = tool;
	sc.argv_word = argv_word;
	sc.json = json;
	/* Most input has no secret: reserve the copy in one allocation, unless
	 * a ceiling forbids it (redaction can also shrink the text). */
	if ((!out->limit || len <= out->limit - out->len) &&
	    (rc = callus_buf_prefault(out, len)) < 0)
		goto out;
	if ((rc = scan_range(&sc, 0, len)) < 0 ||
	    (rc = put_kept(&sc, sc.s + sc.copied, len - sc.copied)) < 0)
		goto out;
	if (count)
		*count = sc.count;
	return 0;
out:
	callus_buf_truncate(out, orig);
	return rc;
}

int callus_redact_scan(const callus_redactor *r, callus_buf *out, const char *in,
		       size_t len, const struct callus_redact_tool *tool, int argv_word,
		       size_t *count)
{
	return redact_into(r, out, in, len, tool, argv_word, 0, count);
}

/* The text of in as callus stores it (cleaned, then redacted), appended
 * to out raw or escaped for JSON. */
static int redact_text(const callus_redactor *r, callus_buf *out, const char *in, int json)
{
	callus_buf clean = CALLUS_BUF_INIT;
	size_t len = strlen(in);
	int rc;

	/* cleaned first: an escape sequence inside a token must not hide it
	 * from the scan */
	if (!callus_text_is_clean(in, len, 0)) {
		if ((rc = callus_text_clean(&clean, in, len, 0)) < 0)
			goto out;
		in = clean.ptr;
		len = clean.len;
	}
	rc = redact_into(r, out, in, len, NULL, 0, json, NULL);
out:
	callus_buf_release(&clean);
	return rc;
}

int callus_redact_str_json(const callus_redactor *r, callus_buf *out, const char *in)
{
	if (!r || !out || !in)
		return CALLUS_EINVAL;
	return redact_text(r, out, in, 1);
}

int callus_redact_str(const callus_redactor *r, char **out, const char *in)
{
	callus_buf b = CALLUS_BUF_INIT;
	int rc;

	if (!out)
		return CALLUS_EINVAL;
	*out = NULL;
	if (!in)
		return 0;
	if ((rc = redact_text(r, &b, in, 0)) == 0 && !(*out = callus_buf_detach(&b)))
		rc = CALLUS_ENOMEM;
	callus_buf_release(&b);
	return rc;
}

int callus_redact_json(const callus_redactor *r, json_t *v, int *changed)
{
	const char *key;
	json_t *item;
	size_t i;
	char *red = NULL;
	int rc = 0;

	if (json_is_array(v)) {
		json_array_foreach(v, i, item) {
			if ((rc = callus_redact_json(r, item, changed)) < 0)
				return rc;
		}
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, item) {
			if ((rc = callus_redact_json(r, item, changed)) < 0)
				return rc;
		}
	} else if (json_is_string(v)) {
		if ((rc = callus_redact_str(r, &red, json_string_value(v))) < 0)
			return rc;
		if (strcmp(red, json_string_value(v)) != 0) {
			rc = json_string_set(v, red) < 0 ? CALLUS_ENOMEM : 0;
			*changed = 1;
		}
		free(red);
	}
	return rc;
}

int callus_redact_again(const callus_redactor *r, const char *text, int json, size_t json_flags,
			char **out)
{
	json_t *v;
	int rc, changed = 0;

	*out = NULL;
	if (json && (v = json_loads(text, JSON_DECODE_ANY, NULL))) {
		if ((rc = callus_redact_json(r, v, &changed)) == 0 && changed &&
		    !(*out = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY | json_flags)))
			rc = CALLUS_ENOMEM;
		json_decref(v);
		return rc;
	}
	if ((rc = callus_redact_str(r, out, text)) < 0)
		return rc;
	if (!strcmp(*out, text)) {
		free(*out);
		*out = NULL;
	}
	return 0;
}

/* Whether the scan of in[0..len) finds anything to redact: 1 or 0, or a
 * negative CALLUS_E* code.  Nothing is written. */
static int finds(const callus_redactor *r, const char *in, size_t len)
{
	struct scan sc;
	int rc;

	memset(&sc, 0, sizeof(sc));
	sc.r = r;
	sc.s = (const unsigned char *)in;
	sc.n = len;
	if (!len)
		return 0;
	if ((rc = scan_range(&sc, 0, len)) < 0)
		return rc;
	return sc.count > 0;
}

int callus_redact_in_place(const callus_redactor *r, char **text)
{
	char *v = NULL;
	size_t len;
	int rc;

	if (!*text)
		return 0;
	/* most strings (a lesson's files, its errors' messages) are clean and
	 * hold no secret: kept as they are, where a copy of each was made and
	 * the string freed (7,815 of them in a megabyte of distinct errors) */
	len = strlen(*text);
	if (r && callus_text_is_clean(*text, len, 0) && (rc = finds(r, *text, len)) <= 0)
		return rc;
	if ((rc = callus_redact_str(r, &v, *text)) < 0)
		return rc;
	free(*text);
	*text = v;
	return 0;
}
