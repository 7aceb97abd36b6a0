/*
 * redact_assign.c - secrets known by the name they are given: the value
 * of `TOKEN=...`, `"apiKey": "..."`, `password: ...` or an Authorization
 * header, when the name says it holds a secret and the value is not a
 * placeholder, a reference or code (get_token(), env["X"]).  Called by the
 * driver in redact.c at an '=' or ':'; apart from the shape matchers
 * (redact_tokens.c) because deciding what a name and a value are is its
 * own set of heuristics.
 */
#include "redact_internal.h"

#include <string.h>

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
int callus_redact_match_assign(const struct scan *sc, size_t op, struct match *m)
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
	if (!HAS(sc, vs - 1, C_B64URL) && callus_redact_match_token(sc, vs, &tok) &&
	    tok.start == vs && tok.end == ve)
		return found(m, vs, ve, tok.kind);
	return found(m, vs, ve, "secret-assignment");
}

