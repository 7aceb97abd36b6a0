/*
 * redact.c - hand-written scanners for secrets in tool output.
 *
 * One left-to-right pass.  A 256-entry table marks the few bytes that can
 * start a match (prefix letters at a word start, ':', '=', '-'); every other
 * byte costs one table lookup, which is what keeps ordinary compiler output
 * fast.  Matchers recognise fixed prefixes and then spans of a character
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
 */
#include "callus/redact.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Character classes. */
enum {
	C_UP = 1 << 0,
	C_LO = 1 << 1,
	C_DIG = 1 << 2,
	C_US = 1 << 3,      /* _ */
	C_DASH = 1 << 4,    /* - */
	C_DOT = 1 << 5,     /* . */
	C_WS = 1 << 6,      /* ASCII white space */
	C_QUOTE = 1 << 7,   /* " ' ` */
	C_B64 = 1 << 8,     /* + / */
	C_TILDE = 1 << 9,   /* ~ */
	C_HIGH = 1 << 10,   /* bytes >= 0x80: part of some UTF-8 text */
	C_STRIP = 1 << 11,  /* trailing punctuation that ends a bare value */

	C_ALPHA = C_UP | C_LO,
	C_ALNUM = C_ALPHA | C_DIG,
	C_WORD = C_ALNUM | C_US,
	C_B64URL = C_WORD | C_DASH,
	C_NAME = C_B64URL | C_DOT,
	C_BEARER = C_B64URL | C_DOT | C_B64 | C_TILDE
};

/* What a byte may start. */
enum { T_NONE = 0, T_WORD, T_COLON, T_EQ, T_DASH };

struct callus_redactor {
	uint16_t cls[256];
	uint8_t trig[256];
	/* start[w][c]: may byte c start a match when the byte before it is
	 * (w = 1) or is not (w = 0) base64url?  One lookup per byte in the
	 * hot loop, and prefix letters inside words are not candidates. */
	uint8_t start[2][256];
	uint8_t wordy[256];
};

/* A found secret: replace [start, end) by the kind.  When nothing is found,
 * resume says where scanning may continue (0: the next byte). */
struct match {
	size_t start, end, resume;
	const char *kind;
};

struct scan {
	const callus_redactor *r;
	const unsigned char *s;
	size_t n;
	/* End of the last redaction.  Matchers look no further back: what
	 * precedes a byte in the output is "]", not the secret, and a second
	 * pass over the output must decide exactly as this one did. */
	size_t floor;
	callus_buf *out;
	size_t copied;  /* input before this is in out */
	size_t count;
};

/* Longest span a matcher may re-scan from a later start: longer than any
 * real token, short enough to bound the cost of adversarial input. */
#define SPAN_CAP 1024
/* How much of a value or credential decides whether it is a secret; an
 * accepted one is then taken whole. */
#define VALUE_CAP 256
#define NAME_MAX_LEN 128

#define HAS(sc, i, mask) ((sc)->r->cls[(sc)->s[i]] & (mask))

/* strchr() would also find the terminating NUL, and input may hold NULs. */
static int in_set(const char *set, int c)
{
	return c && strchr(set, c);
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
		uint16_t k = 0;

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
		r->cls[c] = k;
	}
	for (const char *p = "gAxnsrehB"; *p; p++)
		r->trig[(unsigned char)*p] = T_WORD;
	r->trig[':'] = T_COLON;
	r->trig['='] = T_EQ;
	r->trig['-'] = T_DASH;
	for (c = 0; c < 256; c++) {
		r->wordy[c] = (r->cls[c] & C_B64URL) != 0;
		r->start[0][c] = r->trig[c] != T_NONE;
		r->start[1][c] = r->trig[c] != T_NONE && r->trig[c] != T_WORD;
	}
	*out = r;
	return 0;
}

void callus_redactor_free(callus_redactor *r)
{
	free(r);
}

/* ---- small helpers ---------------------------------------------------- */

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Byte by byte: most calls fail on the first or second byte. */
static int has_prefix(const struct scan *sc, size_t i, const char *lit)
{
	for (size_t k = 0; lit[k]; k++)
		if (i + k >= sc->n || sc->s[i + k] != (unsigned char)lit[k])
			return 0;
	return 1;
}

/* p[0..len) equals the lowercase lit, ignoring case. */
static int eq_ci(const unsigned char *p, size_t len, const char *lit)
{
	size_t k;

	for (k = 0; k < len; k++)
		if (!lit[k] || lower(p[k]) != lit[k])
			return 0;
	return !lit[k];
}

static int ends_ci(const unsigned char *p, size_t len, const char *lit)
{
	size_t l = strlen(lit);

	return len >= l && eq_ci(p + len - l, l, lit);
}

/* Length of the run of class `mask` at i, at most cap. */
static size_t span(const struct scan *sc, size_t i, unsigned mask, size_t cap)
{
	size_t k = i;

	while (k < sc->n && k - i < cap && HAS(sc, k, mask))
		k++;
	return k - i;
}

static int any_of(const struct scan *sc, size_t i, size_t len, unsigned mask)
{
	for (size_t k = i; k < i + len; k++)
		if (HAS(sc, k, mask))
			return 1;
	return 0;
}

static int all_of(const struct scan *sc, size_t i, size_t len, unsigned mask)
{
	for (size_t k = i; k < i + len; k++)
		if (!HAS(sc, k, mask))
			return 0;
	return 1;
}

static int found(struct match *m, size_t start, size_t end, const char *kind)
{
	m->start = start;
	m->end = end;
	m->kind = kind;
	return 1;
}

/*
 * Values that stand for a secret without being one: shell and template
 * references, documentation stand-ins, masks, and our own output (which
 * keeps redaction idempotent).
 */
static int placeholder_start(const struct scan *sc, size_t i, size_t len)
{
	const unsigned char *p = sc->s + i;

	if (p[0] == '<' || (len >= 2 && p[0] == '{' && p[1] == '{') ||
	    (len >= 2 && p[0] == '%' && (p[1] == '(' || p[1] == 's')))
		return 1;
	if (p[0] == '$' && len >= 2 &&
	    (p[1] == '{' || p[1] == '(' || HAS(sc, i + 1, C_ALPHA | C_US)))
		return 1;
	return len >= 9 && memcmp(p, "[REDACTED", 9) == 0;
}

static int is_placeholder(const struct scan *sc, size_t i, size_t len)
{
	const unsigned char *p = sc->s + i;
	size_t k;

	if (len == 0 || placeholder_start(sc, i, len))
		return 1;
	for (k = 0; k < len; k++)
		if (!in_set("*xX.#", p[k]))
			break;
	return k == len;
}

/*
 * A value that a previous pass redacted part of must be left as that pass
 * left it, or redacting twice would not be the same as redacting once.
 */
static int has_marker(const struct scan *sc, size_t i, size_t len)
{
	return memmem(sc->s + i, len, "[REDACTED:", 10) != NULL;
}

static int is_nullish(const unsigned char *p, size_t len)
{
	static const char *const words[] = {
		"null", "nil", "none", "undefined", "true", "false", "new",
		"await", "this", "self", "function", "lambda", "sizeof",
		"typeof", "not", "and", "or"
	};

	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (eq_ci(p, len, words[k]))
			return 1;
	return 0;
}

/* ---- names ------------------------------------------------------------ */

enum { NAME_NO = 0, NAME_SECRET, NAME_AWS, NAME_AUTH };

/*
 * The component of name[0..len) just before its last `suffix` bytes, split
 * at _ - . or a lower-to-upper camelCase step ("PUBLIC" in PUBLIC_KEY,
 * "public" in publicKey).  Returns 0 when the suffix is not preceded by such
 * a boundary, 1 otherwise with the component in [*cs, *cs + *cl).
 */
static int component_before(const unsigned char *name, size_t len,
			    size_t suffix, size_t *cs, size_t *cl)
{
	size_t e = len - suffix, b;
	int camel;

	if (e == 0)
		return 0;
	camel = name[e] >= 'A' && name[e] <= 'Z' &&
		((name[e - 1] >= 'a' && name[e - 1] <= 'z') ||
		 (name[e - 1] >= '0' && name[e - 1] <= '9'));
	if (!camel) {
		if (!in_set("_-.", name[e - 1]))
			return 0;
		e--;
	}
	b = e;
	while (b > 0 && !in_set("_-.", name[b - 1])) {
		b--;
		if (camel && name[b] >= 'A' && name[b] <= 'Z')
			break;
	}
	*cs = b;
	*cl = e - b;
	return 1;
}

static int component_is(const unsigned char *name, size_t cs, size_t cl,
			const char *const *list, size_t nlist)
{
	for (size_t k = 0; k < nlist; k++)
		if (eq_ci(name + cs, cl, list[k]))
			return 1;
	return 0;
}

/* Does a variable, key or header called name[0..len) hold a secret? */
static int name_kind(const unsigned char *name, size_t len)
{
	/* Keys that identify rather than authenticate. */
	static const char *const public_keys[] = {
		"public", "primary", "foreign", "sort", "partition", "cache",
		"shard", "routing", "idempotency", "unique", "composite", "hash"
	};
	/* Tokenizer vocabulary entries, printed by every ML training log. */
	static const char *const vocab_tokens[] = {
		"bos", "eos", "pad", "unk", "sep", "cls", "mask"
	};
	size_t cs, cl;

	/* Every secret name ends in n, t, d or y: most names stop here. */
	if (!len || !in_set("ntdyNTDY", name[len - 1]))
		return NAME_NO;
	if (ends_ci(name, len, "authorization"))
		return NAME_AUTH;
	if (ends_ci(name, len, "secret_access_key") ||
	    ends_ci(name, len, "secret-access-key"))
		return NAME_AWS;
	if (ends_ci(name, len, "token")) {
		if (component_before(name, len, 5, &cs, &cl) &&
		    component_is(name, cs, cl, vocab_tokens,
				 sizeof(vocab_tokens) / sizeof(vocab_tokens[0])))
			return NAME_NO;
		return NAME_SECRET;
	}
	if (ends_ci(name, len, "secret") || ends_ci(name, len, "password") ||
	    ends_ci(name, len, "passwd"))
		return NAME_SECRET;
	/* A bare "key" or "monkey" is not a secret name; API_KEY is. */
	if (ends_ci(name, len, "key") &&
	    component_before(name, len, 3, &cs, &cl) && cl > 0 &&
	    !component_is(name, cs, cl, public_keys,
			  sizeof(public_keys) / sizeof(public_keys[0])))
		return NAME_SECRET;
	return NAME_NO;
}

/* ---- prefixed tokens -------------------------------------------------- */

enum {
	NEED_DIGIT = 1 << 0,
	NEED_UPPER_OR_DIGIT = 1 << 1,
	STRIP_DOTS = 1 << 2
};

/*
 * A token: plen prefix bytes at i, then at least min bytes of class mask.
 * flags ask for a digit (random ids have one; kebab-case words do not).
 */
static int body(const struct scan *sc, size_t i, size_t plen, unsigned mask,
		size_t min, unsigned flags, const char *kind, struct match *m)
{
	/* A class with '.' has word starts inside it ("glpat-a.glpat-a."):
	 * decide on fewer bytes there; real tokens are far shorter. */
	size_t cap = (mask & C_DOT) ? 128 : SPAN_CAP;
	size_t b = i + plen, raw = span(sc, b, mask, cap), len = raw;

	if (flags & STRIP_DOTS)
		while (len && sc->s[b + len - 1] == '.')
			len--;
	if (len < min)
		return 0;
	if ((flags & NEED_DIGIT) && !any_of(sc, b, len, C_DIG))
		return 0;
	if ((flags & NEED_UPPER_OR_DIGIT) && !any_of(sc, b, len, C_UP | C_DIG))
		return 0;
	/* Accepted: take the whole run, however long, since we jump past it. */
	if (raw == cap) {
		len = raw + span(sc, b + raw, mask, (size_t)-1);
		if (flags & STRIP_DOTS)
			while (sc->s[b + len - 1] == '.')
				len--;
	}
	return found(m, i, b + len, kind);
}

static int match_gitlab(const struct scan *sc, size_t i, struct match *m)
{
	static const char *const prefixes[] = {
		"glpat-", "gloas-", "gldt-", "glrt-", "glrtr-", "glcbt-",
		"glptt-", "glft-", "glimt-", "glagent-", "glsoat-", "glffct-",
		"glwt-"
	};

	for (size_t k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++)
		if (has_prefix(sc, i, prefixes[k]))
			return body(sc, i, strlen(prefixes[k]), C_B64URL | C_DOT,
				    20, NEED_UPPER_OR_DIGIT | STRIP_DOTS,
				    "gitlab-token", m);
	return 0;
}

/*
 * OpenAI-style keys share "sk-" with many kebab-case words, so the body
 * must look random: a digit and both cases, or (DeepSeek-style) a long
 * lowercase hex string.
 */
static int match_sk(const struct scan *sc, size_t i, struct match *m)
{
	size_t b = i + 3, len = span(sc, b, C_B64URL, SPAN_CAP);
	int random;

	if (len < 20 || !any_of(sc, b, len, C_DIG))
		return 0;
	random = any_of(sc, b, len, C_UP) && any_of(sc, b, len, C_LO);
	if (!random && len >= 32) {
		random = 1;
		for (size_t k = b; k < b + len; k++)
			if (!in_set("0123456789abcdef", sc->s[k]))
				random = 0;
	}
	if (!random)
		return 0;
	return body(sc, i, 3, C_B64URL, 20, 0,
		    has_prefix(sc, b, "ant-") ? "anthropic-key" : "openai-key", m);
}

/* header.payload.signature, each base64url; the header is JSON, so it
 * starts "eyJ".  An empty signature (alg "none") still counts; a JWE's
 * extra segments are taken too.  Spans are not capped: a payload can be
 * long, and another "eyJ" can only start after a '.', so each segment is
 * read by at most three starts. */
static int match_jwt(const struct scan *sc, size_t i, struct match *m)
{
	size_t k = i, len;
	int seg;

	len = span(sc, k, C_B64URL, (size_t)-1);
	if (len < 10)
		return 0;
	k += len;
	for (seg = 1; seg < 5; seg++) {
		if (k >= sc->n || sc->s[k] != '.')
			break;
		len = span(sc, k + 1, C_B64URL, (size_t)-1);
		if (seg == 1 && len < 4)
			return 0;
		if (seg >= 3 && len == 0)
			break;
		k += 1 + len;
	}
	if (seg < 3)
		return 0;
	return found(m, i, k, "jwt");
}

static int match_slack_webhook(const struct scan *sc, size_t i,
			       struct match *m)
{
	size_t b = i + 16, len;

	if (!has_prefix(sc, i, "hooks.slack.com/"))
		return 0;
	if (!has_prefix(sc, b, "services/") && !has_prefix(sc, b, "workflows/") &&
	    !has_prefix(sc, b, "triggers/"))
		return 0;
	len = span(sc, b, C_B64URL | C_B64, SPAN_CAP);
	if (len < 20 || is_placeholder(sc, b, len))
		return 0;
	len += span(sc, b + len, C_B64URL | C_B64, (size_t)-1);
	return found(m, b, b + len, "slack-webhook");
}

static int match_bearer(const struct scan *sc, size_t i, struct match *m)
{
	size_t b = i + 6, sp, len;

	if (!has_prefix(sc, i, "Bearer "))
		return 0;
	sp = 0;
	while (b + sp < sc->n && sc->s[b + sp] == ' ' && sp < 4)
		sp++;
	b += sp;
	len = span(sc, b, C_BEARER, SPAN_CAP);
	if (len < 16 || !any_of(sc, b, len, C_DIG) || is_placeholder(sc, b, len))
		return 0;
	len += span(sc, b + len, C_BEARER, (size_t)-1);
	while (b + len < sc->n && sc->s[b + len] == '=')
		len++;
	return found(m, b, b + len, "bearer-token");
}

/* Tokens recognised by their prefix; i is at a word start. */
static int match_token(const struct scan *sc, size_t i, struct match *m)
{
	const unsigned char *p = sc->s + i;
	size_t rest = sc->n - i;

	if (rest < 4)
		return 0;
	switch (p[0]) {
	case 'g':
		if (p[1] == 'h' && p[3] == '_' && in_set("pousr", p[2]))
			return body(sc, i, 4, C_ALNUM, 30, 0, "github-token", m);
		if (has_prefix(sc, i, "github_pat_"))
			return body(sc, i, 11, C_WORD, 40, 0, "github-token", m);
		if (p[1] == 'l')
			return match_gitlab(sc, i, m);
		return 0;
	case 'A':
		if (has_prefix(sc, i, "AKIA") || has_prefix(sc, i, "ASIA") ||
		    has_prefix(sc, i, "ABIA") || has_prefix(sc, i, "ACCA")) {
			/* Exactly 16 more: a longer capitalised word is not one. */
			if (span(sc, i + 4, C_UP | C_DIG, 17) != 16 ||
			    (i + 20 < sc->n && HAS(sc, i + 20, C_WORD)))
				return 0;
			return found(m, i, i + 20, "aws-key");
		}
		if (has_prefix(sc, i, "AIza"))
			return body(sc, i, 4, C_B64URL, 35, 0, "google-api-key", m);
		return 0;
	case 'x':
		if ((has_prefix(sc, i, "xox") && in_set("abprse", p[3]) &&
		     rest > 4 && p[4] == '-'))
			return body(sc, i, 5, C_ALNUM | C_DASH, 10, NEED_DIGIT,
				    "slack-token", m);
		if (has_prefix(sc, i, "xapp-"))
			return body(sc, i, 5, C_ALNUM | C_DASH, 10, NEED_DIGIT,
				    "slack-token", m);
		return 0;
	case 'n':
		if (has_prefix(sc, i, "npm_"))
			return body(sc, i, 4, C_ALNUM, 36, 0, "npm-token", m);
		return 0;
	case 's':
	case 'r':
		if (has_prefix(sc, i + 1, "k_live_") || has_prefix(sc, i + 1, "k_test_"))
			return body(sc, i, 8, C_ALNUM, 16, 0, "stripe-key", m);
		if (p[0] == 's' && p[1] == 'k' && p[2] == '-')
			return match_sk(sc, i, m);
		return 0;
	case 'e':
		if (p[1] == 'y' && p[2] == 'J')
			return match_jwt(sc, i, m);
		return 0;
	case 'h':
		return match_slack_webhook(sc, i, m);
	case 'B':
		return match_bearer(sc, i, m);
	}
	return 0;
}

/* ---- PEM private keys ------------------------------------------------- */

static const char kind_pem[] = "private-key";

/* At i: "-----<word> LABEL-----" with a label naming a private key?  On
 * success *end is just past the closing dashes. */
static int pem_line(const struct scan *sc, size_t i, const char *word,
		    size_t *end)
{
	size_t b = i + 5 + strlen(word), k = b;
	int priv = 0;

	if (!has_prefix(sc, i, "-----") || !has_prefix(sc, i + 5, word))
		return 0;
	while (k < sc->n && k - b < 64 &&
	       (HAS(sc, k, C_UP | C_DIG) || sc->s[k] == ' ')) {
		if (has_prefix(sc, k, "PRIVATE KEY"))
			priv = 1;
		k++;
	}
	if (!priv || !has_prefix(sc, k, "-----"))
		return 0;
	*end = k + 5;
	return 1;
}

static int match_pem(const struct scan *sc, size_t i, struct match *m)
{
	size_t k, end;
	const unsigned char *q;

	if (!pem_line(sc, i, "BEGIN ", &k))
		return 0;
	/* The body may be real lines or "\n" escapes inside a JSON string:
	 * either way the END line is the end. */
	while ((q = memmem(sc->s + k, sc->n - k, "-----END ", 9))) {
		k = (size_t)(q - sc->s);
		if (pem_line(sc, k, "END ", &end))
			return found(m, i, end, kind_pem);
		k += 9;
	}
	/* Unterminated (a truncated log): the rest may all be key material. */
	return found(m, i, sc->n, kind_pem);
}

/* Where a private key block starts in [i, end), or end. */
static size_t pem_within(const struct scan *sc, size_t i, size_t end)
{
	const unsigned char *q;
	size_t k;

	while (i < end && (q = memmem(sc->s + i, end - i, "-----BEGIN", 10))) {
		i = (size_t)(q - sc->s);
		if (pem_line(sc, i, "BEGIN ", &k))
			return i;
		i++;
	}
	return end;
}

/* ---- URLs with a password -------------------------------------------- */

/* Can a host start at k (the byte after an '@'), before the authority
 * ends at end?  A name, or an IPv6 literal such as "[::1]". */
static int host_start(const struct scan *sc, size_t k, size_t end)
{
	if (k >= end)
		return 0;
	if (HAS(sc, k, C_ALNUM))
		return 1;
	return sc->s[k] == '[' && k + 1 < end &&
	       (sc->s[k + 1] == ':' ||
		in_set("0123456789abcdefABCDEF", sc->s[k + 1]));
}

/* At the ':' of "scheme://user:password@host". */
static int match_url(const struct scan *sc, size_t p, struct match *m)
{
	size_t a = p + 3, k, at = 0, colon = 0, scheme = p;

	while (scheme > sc->floor && p - scheme < 32 &&
	       HAS(sc, scheme - 1, C_ALNUM | C_DASH | C_DOT | C_B64))
		scheme--;
	/* Two letters at least: "C://" is a Windows path, not a scheme. */
	if (p - scheme < 2 || !HAS(sc, scheme, C_ALPHA))
		return 0;
	/* The authority ends where a path, query or fragment starts. */
	for (k = a; k < sc->n; k++) {
		unsigned char c = sc->s[k];

		if (HAS(sc, k, C_WS | C_QUOTE) || !c || in_set("/?#<>\\", c))
			break;
		if (c == ':' && !colon)
			colon = k;
	}
	/* An unencoded '@' in a password is common, so the host follows the
	 * last '@' that a host name can follow. */
	for (at = k; at > a; at--)
		if (sc->s[at - 1] == '@' && host_start(sc, at, k))
			break;
	if (at-- == a)
		return 0;
	if (has_marker(sc, a, at - a)) {
		m->resume = at + 1;     /* redacted by an earlier pass */
		return 0;
	}
	if (!colon || colon > at)
		return 0;
	if (colon + 1 == at || is_placeholder(sc, colon + 1, at - colon - 1)) {
		/* Keep the ':' inside the placeholder from being read as an
		 * assignment operator. */
		m->resume = at + 1;
		return 0;
	}
	return found(m, colon + 1, at, "url-password");
}

/* ---- assignments ------------------------------------------------------ */

/* Words before "token:" in parser diagnostics ("Unexpected token: ...". */
static int parser_diagnostic(const struct scan *sc, size_t name_start)
{
	static const char *const words[] = {
		"unexpected", "expected", "invalid", "unknown", "illegal", "bad",
		"unterminated", "unrecognized", "unrecognised", "next", "last",
		"current", "first", "missing", "extra", "stray"
	};
	size_t e = name_start, b;

	if (e == sc->floor || sc->s[e - 1] != ' ')
		return 0;
	e--;
	b = e;
	while (b > sc->floor && e - b < 16 && HAS(sc, b - 1, C_ALPHA))
		b--;
	/* A whole word, not the tail of "Ij9expected". */
	if (b == sc->floor ? b > 0 : !in_set(" \t\n(:\"'", sc->s[b - 1]))
		return 0;
	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (eq_ci(sc->s + b, e - b, words[k]))
			return 1;
	return 0;
}

/* Start of an identifier path (a.b, a->b, a::b) at k, or k if none. */
static size_t ident_path(const struct scan *sc, size_t k, size_t end, int *segs)
{
	*segs = 0;
	while (k < end && HAS(sc, k, C_ALPHA | C_US)) {
		k += span(sc, k, C_WORD, end - k);
		(*segs)++;
		if (k + 1 < end && sc->s[k] == '.' && HAS(sc, k + 1, C_ALPHA | C_US))
			k++;
		else if (k + 2 < end && HAS(sc, k + 2, C_ALPHA | C_US) &&
			 ((sc->s[k] == '-' && sc->s[k + 1] == '>') ||
			  (sc->s[k] == ':' && sc->s[k + 1] == ':')))
			k += 2;
		else
			break;
	}
	return k;
}

/* Code that calls, indexes or instantiates: get_token(), env["X"],
 * Option<String>, *p->key(. */
static int is_call(const struct scan *sc, size_t v)
{
	size_t k = v, end;
	int segs;

	if (k < sc->n && in_set("&*!", sc->s[k]))
		k++;
	end = ident_path(sc, k, sc->n, &segs);
	return segs && end < sc->n && in_set("([<", sc->s[end]);
}

/*
 * Should the bare (unquoted) value [v, ve) be left alone?  raw_end is where
 * the value stopped before trailing punctuation was dropped.  Bare values
 * are where code and prose show up: get_token(), self.token, TOKEN_EXPIRED,
 * "token: string" in a type error.
 */
static int bare_is_not_secret(const struct scan *sc, size_t v, size_t ve,
			      size_t raw_end, int colon)
{
	size_t k = v, len = ve - v, id_end;
	int segs, sigil = 0;
	const unsigned char *s = sc->s;

	if (is_placeholder(sc, v, len) || is_nullish(s + v, len))
		return 1;
	/* Structure markers (YAML "|", "-") and masks carry no secret. */
	if (!any_of(sc, v, len, C_ALNUM | C_HIGH))
		return 1;
	if (s[k] == '-')
		k++;
	if (k < ve && ve - k <= 5 && all_of(sc, k, ve - k, C_DIG))
		return 1;
	k = v;
	if ((s[k] == '&' || s[k] == '*' || s[k] == '!') && k + 1 < ve) {
		k++;
		sigil = 1;
	}
	id_end = ident_path(sc, k, raw_end, &segs);
	if (!segs)
		return 0;
	if (id_end < raw_end && in_set("([<", s[id_end]))
		return 1;              /* a call, subscript or generic type */
	if (id_end < ve)
		return 0;              /* more follows: not a plain reference */
	if (segs > 1 || sigil)
		return 1;              /* self.token, p->key, *secret */
	/* A single identifier. */
	if (name_kind(s + k, ve - k) != NAME_NO)
		return 1;              /* api_key=api_key, token: ACCESS_TOKEN */
	if (HAS(sc, k, C_UP) && any_of(sc, k, ve - k, C_US) &&
	    !any_of(sc, k, ve - k, C_LO))
		return 1;              /* a constant such as TOKEN_EXPIRED */
	if (colon) {
		size_t after = ve;

		/* "token: string", "password: Optional" in type errors. */
		if (all_of(sc, k, ve - k, C_ALPHA) && ve - k < 12)
			return 1;
		while (after < sc->n && s[after] == ' ')
			after++;
		if (after < sc->n && in_set(";)|=", s[after]) &&
		    (HAS(sc, k, C_UP) || all_of(sc, k, ve - k, C_ALPHA)))
			return 1;      /* "token: Uint8Array;" */
	}
	return 0;
}

/* End of a bare value at v: white space, a quote, NUL, '<' or, in a query
 * string, '&'; at most cap bytes on. */
static size_t bare_end(const struct scan *sc, size_t v, int query, size_t cap)
{
	size_t k;

	for (k = v; k < sc->n && k - v < cap; k++) {
		unsigned char c = sc->s[k];

		if (!c || HAS(sc, k, C_WS | C_QUOTE) || c == '<' ||
		    (query && c == '&'))
			break;
	}
	return k;
}

/* Length of credentials at c: up to white space, a quote or a backslash
 * (the end of an escaped JSON string); at most cap bytes. */
static size_t cred_len(const struct scan *sc, size_t c, size_t cap)
{
	size_t len;

	for (len = 0; c + len < sc->n && len < cap; len++) {
		unsigned char ch = sc->s[c + len];

		if (!ch || HAS(sc, c + len, C_WS | C_QUOTE) || ch == '\\')
			break;
	}
	return len;
}

/* The credentials of "Authorization: Bearer abc", keeping the scheme. */
static int auth_value(const struct scan *sc, size_t v, struct match *m)
{
	size_t k = v, w, c, len, raw;

	if (k < sc->n && (HAS(sc, k, C_QUOTE) || sc->s[k] == '\\')) {
		k++;
		if (k < sc->n && HAS(sc, k, C_QUOTE))
			k++;
	}
	w = span(sc, k, C_ALNUM | C_DASH, 32);
	c = k;
	if (w && k + w < sc->n && sc->s[k + w] == ' ') {
		c = k + w;
		while (c < sc->n && sc->s[c] == ' ')
			c++;
	}
	raw = len = cred_len(sc, c, VALUE_CAP);
	while (len && HAS(sc, c + len - 1, C_STRIP))
		len--;
	if (!len || is_placeholder(sc, c, len) || is_nullish(sc->s + c, len) ||
	    has_marker(sc, c, len))
		return 0;
	/* "Authorization: required", "Bearer token missing" are messages;
	 * credentials are never a plain lowercase word. */
	if (all_of(sc, c, len, C_LO) || (c == k && all_of(sc, c, len, C_ALPHA)))
		return 0;
	if (raw == VALUE_CAP) {  /* decided on a prefix: take it all */
		len = cred_len(sc, c, (size_t)-1);
		while (len && HAS(sc, c + len - 1, C_STRIP))
			len--;
	}
	return found(m, c, c + len, "auth-header");
}

/*
 * A quoted value starting at v (at its opening quote, possibly escaped as
 * \" inside a JSON string).  Returns 0 for prose (white space inside), else
 * 1 with the contents in [*vs, *ve); an unterminated value runs to the end
 * of the line.
 */
static int quoted_value(const struct scan *sc, size_t v, size_t *vs,
			size_t *ve)
{
	int esc = sc->s[v] == '\\';
	unsigned char q = sc->s[v + esc];
	size_t k = v + esc + 1;

	*vs = k;
	for (; k < sc->n; k++) {
		unsigned char c = sc->s[k];

		if (c == '\n' || c == '\r')
			break;
		if (HAS(sc, k, C_WS))
			return 0;      /* prose */
		if (esc) {
			if (c == '\\' && k + 1 < sc->n && sc->s[k + 1] == q)
				break;
		} else if (c == '\\' && q != '\'' && k + 1 < sc->n &&
			   !HAS(sc, k + 1, C_WS)) {
			k++;           /* an escaped character, never the end */
		} else if (c == q) {
			break;
		}
	}
	*ve = k < sc->n ? k : sc->n;
	/* Partly redacted already (see has_marker). */
	return !has_marker(sc, *vs, *ve - *vs);
}

/* At an '=' or ':' that may end a secret's name. */
static int match_assign(const struct scan *sc, size_t op, struct match *m)
{
	const unsigned char *s = sc->s;
	size_t n = sc->n, op_end = op + 1, j, name_end, name_start, v, vs, ve;
	size_t raw_end;
	unsigned char q = 0;
	int colon = s[op] == ':', kind, query, spaced;
	struct match tok = { 0, 0, 0, NULL };

	if (colon) {
		if ((op + 1 < n && s[op + 1] == ':') ||
		    (op > sc->floor && s[op - 1] == ':'))
			return 0;
		if (op + 1 < n && s[op + 1] == '=')
			op_end++;
	} else {
		/* Comparisons are code, not assignments. */
		if ((op > sc->floor && in_set("=!<>:", s[op - 1])) ||
		    (op + 1 < n && s[op + 1] == '='))
			return 0;
		if (op + 1 < n && s[op + 1] == '>')
			op_end++;
	}

	/* The name, possibly quoted: NAME=, "NAME":, \"NAME\":, NAME = */
	j = op;
	if (!colon)
		while (j > sc->floor && op - j < 8 &&
		       (s[j - 1] == ' ' || s[j - 1] == '\t'))
			j--;
	spaced = colon || j < op || op_end > op + 1;
	if (j > sc->floor && HAS(sc, j - 1, C_QUOTE)) {
		q = s[--j];
		if (j > sc->floor && s[j - 1] == '\\')
			j--;
	}
	name_end = j;
	while (j > sc->floor && name_end - j <= NAME_MAX_LEN &&
	       HAS(sc, j - 1, C_NAME))
		j--;
	name_start = j;
	if (name_end == name_start || name_end - name_start > NAME_MAX_LEN)
		return 0;
	if (q && (name_start == sc->floor || s[name_start - 1] != q))
		return 0;
	kind = name_kind(s + name_start, name_end - name_start);
	if (kind == NAME_NO)
		return 0;
	if (colon && eq_ci(s + name_start, name_end - name_start, "token") &&
	    parser_diagnostic(sc, name_start))
		return 0;

	/* In shell, "NAME= next" assigns the empty string. */
	v = op_end;
	while (spaced && v < n && (s[v] == ' ' || s[v] == '\t'))
		v++;
	if (v >= n)
		return 0;
	if (kind == NAME_AUTH)
		return auth_value(sc, v, m);

	if (HAS(sc, v, C_QUOTE) ||
	    (s[v] == '\\' && v + 1 < n && HAS(sc, v + 1, C_QUOTE))) {
		if (!quoted_value(sc, v, &vs, &ve) || ve == vs ||
		    is_placeholder(sc, vs, ve - vs) ||
		    is_nullish(s + vs, ve - vs))
			return 0;
	} else {
		/* What the start tells is decided before the end is found. */
		if (in_set("{[(<", s[v]) || is_call(sc, v) ||
		    placeholder_start(sc, v, n - v))
			return 0;
		/* In a query string '&' starts the next parameter. */
		query = name_start > sc->floor &&
			(s[name_start - 1] == '?' || s[name_start - 1] == '&');
		vs = v;
		/* Decide on at most VALUE_CAP bytes, so that a long value
		 * with many names in it is not re-read from each of them. */
		raw_end = bare_end(sc, v, query, VALUE_CAP);
		ve = raw_end;
		while (ve > vs && HAS(sc, ve - 1, C_STRIP))
			ve--;
		if (ve == vs || has_marker(sc, vs, raw_end - vs) ||
		    bare_is_not_secret(sc, vs, ve, raw_end, colon))
			return 0;
		if (raw_end - v == VALUE_CAP) {  /* decided on a prefix */
			raw_end = bare_end(sc, v, query, (size_t)-1);
			for (ve = raw_end; ve > vs && HAS(sc, ve - 1, C_STRIP); ve--)
				;
		}
	}

	/* Name the kind of a known token when the value is exactly one. */
	if (kind == NAME_AWS)
		return found(m, vs, ve, "aws-secret");
	if (!HAS(sc, vs - 1, C_B64URL) && match_token(sc, vs, &tok) &&
	    tok.start == vs && tok.end == ve)
		return found(m, vs, ve, tok.kind);
	return found(m, vs, ve, "secret-assignment");
}

/* ---- driver ----------------------------------------------------------- */

static int try_at(const struct scan *sc, size_t i, unsigned t, struct match *m)
{
	const unsigned char *s = sc->s;

	switch (t) {
	case T_WORD:
		/* Tokens start a word; inside base64 or a longer id they
		 * are coincidence. */
		if (i > sc->floor && HAS(sc, i - 1, C_B64URL))
			return 0;
		return match_token(sc, i, m);
	case T_COLON:
		if (i + 2 < sc->n && s[i + 1] == '/' && s[i + 2] == '/')
			return match_url(sc, i, m);
		return match_assign(sc, i, m);
	case T_EQ:
		return match_assign(sc, i, m);
	case T_DASH:
		if (i + 11 <= sc->n && s[i + 1] == '-' && s[i + 5] == 'B')
			return match_pem(sc, i, m);
		return 0;
	}
	return 0;
}

static int put_kind(callus_buf *out, const char *kind)
{
	int rc;

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
	int rc = 0;

	sc->n = end;
	while (i < end) {
		struct match m = { 0, 0, 0, NULL };

		/* The hot loop.  Each test reads the byte pair afresh rather
		 * than carrying the previous byte's class, so that iterations
		 * do not wait on each other's loads. */
		if (!r->start[i > sc->floor && r->wordy[s[i - 1]]][s[i]]) {
			do {
				if (++i == end)
					goto out;
			} while (!r->start[r->wordy[s[i - 1]]][s[i]]);
		}
		if (!try_at(sc, i, r->trig[s[i]], &m)) {
			i = m.resume > i ? m.resume : i + 1;
			continue;
		}
		/* A value or token class that admits '-' can run into a key
		 * block ("KEY=-----BEGIN ..."); stop there so that the block
		 * is matched whole rather than cut after "BEGIN". */
		if (m.kind != kind_pem &&
		    (pem = pem_within(sc, m.start, m.end)) < m.end) {
			m.end = pem;
			if (m.end == m.start) {
				i++;
				continue;
			}
		}
		if (m.start > i + 1 && (rc = scan_range(sc, i + 1, m.start)) < 0)
			goto out;
		if ((rc = callus_buf_put(sc->out, sc->s + sc->copied,
				       m.start - sc->copied)) < 0 ||
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
	/* Most input has no secret: reserve the copy in one allocation, unless
	 * a ceiling forbids it (redaction can also shrink the text). */
	if ((!out->limit || len <= out->limit - out->len) &&
	    (rc = callus_buf_grow(out, len)) < 0)
		goto out;
	if ((rc = scan_range(&sc, 0, len)) < 0 ||
	    (rc = callus_buf_put(out, in + sc.copied, len - sc.copied)) < 0)
		goto out;
	if (count)
		*count = sc.count;
	return 0;
out:
	callus_buf_truncate(out, orig);
	return rc;
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
	if ((rc = callus_redact(r, &b, in, strlen(in), NULL)) < 0)
		goto out;
	if (!(*out = callus_buf_detach(&b)))
		rc = CALLUS_ENOMEM;
out:
	callus_buf_release(&b);
	return rc;
}
