/*
 * redact_tokens.c - secrets known by their shape, wherever they appear:
 * tokens with a vendor's prefix (GitHub, GitLab, Slack, AWS, Google,
 * npm, OpenAI, Anthropic and Stripe keys), JWTs and Bearer credentials,
 * PEM private key blocks, and the password of a
 * "scheme://user:password@host" URL.  Called by the driver in redact.c at
 * a trigger byte; apart from it because each vendor's format adds a
 * matcher here.
 */
#include "redact_internal.h"

#include <string.h>

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
int callus_redact_match_token(const struct scan *sc, size_t i, struct match *m)
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

const char callus_redact_kind_pem[] = "private-key";

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

int callus_redact_match_pem(const struct scan *sc, size_t i, struct match *m)
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
			return found(m, i, end, callus_redact_kind_pem);
		k += 9;
	}
	/* Unterminated (a truncated log): the rest may all be key material. */
	return found(m, i, sc->n, callus_redact_kind_pem);
}

/* Where a private key block starts in [i, end), or end. */
size_t callus_redact_pem_within(const struct scan *sc, size_t i, size_t end)
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
int callus_redact_match_url(const struct scan *sc, size_t p, struct match *m)
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

