/*
 * redact_assign.c - secrets known by the name they are given: the value
 * of `TOKEN=...`, `"apiKey": "..."`, `password: ...`, `NAME := ...` (and
 * Make's ?= += ::=), a typed declaration (`password: str = "..."`, C#'s
 * `Password { get; set; } =`, a Go group's line), `#define API_KEY "..."`,
 * an environment entry (`name: DB_PASSWORD` then `value: ...`) or an
 * Authorization header, when the name says it holds a secret and the value
 * is not a placeholder, a reference or code (get_token(), env["X"]), or
 * the literal such code falls back to (`env.X || "..."`) or a wrapper
 * holds (`SecretStr("...")`, `String::from("...")`).  Called by the
 * driver in redact.c at an '=' or ':'; apart from the shape matchers
 * (redact_tokens.c) because deciding what a name and a value are is its
 * own set of heuristics.
 */
#include "redact_internal.h"

#include <string.h>

/* ---- names ------------------------------------------------------------ */

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

/* Is word the whole name or its last component (DB_PASS, smtpPass, --pass,
 * but not bypass)? */
static int last_component(const unsigned char *name, size_t len, const char *word)
{
	size_t wl = strlen(word), cs, cl;

	if (!ends_ci(name, len, word))
		return 0;
	if (len == wl)
		return 1;
	/* the leading dashes of an option are not a component */
	for (cs = 0; cs < len - wl && name[cs] == '-'; cs++)
		;
	return cs == len - wl || component_before(name, len, wl, &cs, &cl);
}

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define ALPHABET "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

int callus_redact_secret_tail(const unsigned char *name, size_t len)
{
	return len >= 3 && callus_redact_secret_pair(name[len - 2], name[len - 1]);
}

int callus_redact_name_kind(const unsigned char *name, size_t len)
{
	/* Keys that identify rather than authenticate. */
	static const char *const public_keys[] = {
		"public", "primary", "foreign", "sort", "partition", "cache",
		"shard", "routing", "idempotency", "unique", "composite", "hash",
		"host", "ssh", "gpg", "object", "map", "dict", "lookup", "index",
		"group", "row", "column", "table", "bucket", "secondary"
	};
	/* Keys written as one word. */
	static const char *const one_word_keys[] = {
		"apikey", "secretkey", "accesskey", "privatekey", "masterkey",
		"authkey", "accountkey", "sharedaccesskey", "subscriptionkey",
		"encryptionkey", "clientkey", "appkey", "adminkey", "servicekey"
	};
	/* Tokenizer vocabulary entries, printed by every ML training log. */
	static const char *const vocab_tokens[] = {
		"bos", "eos", "pad", "unk", "sep", "cls", "mask"
	};
	/* Prose or secret: the value decides. */
	static const char *const weak[] = {
		"auth", "credentials", "credential", "creds", "session"
	};
	size_t cs, cl;

	/* Most names stop here. */
	if (!callus_redact_secret_tail(name, len))
		return NAME_NO;
	if (ends_ci(name, len, "authorization"))
		return NAME_AUTH;
	/* Rails' key that signs every session cookie */
	if (ends_ci(name, len, "secret_key_base") || ends_ci(name, len, "secret-key-base"))
		return NAME_SECRET;
	if (ends_ci(name, len, "secret_access_key") ||
	    ends_ci(name, len, "secret-access-key") || ends_ci(name, len, "secretaccesskey"))
		return NAME_AWS;
	if (ends_ci(name, len, "token")) {
		if (component_before(name, len, 5, &cs, &cl) &&
		    component_is(name, cs, cl, vocab_tokens, NELEM(vocab_tokens)))
			return NAME_NO;
		return NAME_TOKEN;
	}
	if (ends_ci(name, len, "secret") || ends_ci(name, len, "password") ||
	    ends_ci(name, len, "passwd") || ends_ci(name, len, "passphrase") ||
	    ends_ci(name, len, "key-data") || ends_ci(name, len, "key_data"))
		return NAME_SECRET;
	if (ends_ci(name, len, "cookie"))
		return NAME_COOKIE;
	if (last_component(name, len, "pwd"))
		return NAME_PWD;
	if (last_component(name, len, "pass"))
		return NAME_PASS;
	if (last_component(name, len, "sig") || last_component(name, len, "signature"))
		return NAME_SIG;
	for (size_t k = 0; k < NELEM(weak); k++)
		if (last_component(name, len, weak[k]))
			return NAME_WEAK;
	for (size_t k = 0; k < NELEM(one_word_keys); k++) {
		size_t kl = strlen(one_word_keys[k]);

		if (ends_ci(name, len, one_word_keys[k]) &&
		    (len == kl || !in_set(ALPHABET, name[len - kl - 1])))
			return NAME_SECRET;
	}
	/* A bare "key" or "monkey" is not a secret name; API_KEY is. */
	if (ends_ci(name, len, "key") &&
	    component_before(name, len, 3, &cs, &cl) && cl > 0 &&
	    !component_is(name, cs, cl, public_keys, NELEM(public_keys)))
		return NAME_SECRET;
	return NAME_NO;
}

/* A value that is a credential rather than a word of prose: at least min
 * bytes with a digit or a symbol of base64 or of a password, or random
 * mixed case (not CamelCase words). */
int callus_redact_looks_credential(const struct scan *sc, size_t v, size_t len, size_t min)
{
	size_t up = 0, lo = 0, steps = 0;

	if (len < min || is_placeholder(sc, v, len))
		return 0;
	for (size_t k = v; k < v + len; k++) {
		unsigned char c = sc->s[k];

		if (HAS(sc, k, C_DIG) || in_set("+/=!@#$%^&*~?", c))
			return 1;
		if (HAS(sc, k, C_UP))
			up++;
		else if (HAS(sc, k, C_LO))
			lo++;
		if (k > v && !HAS(sc, k, C_UP) != !HAS(sc, k - 1, C_UP))
			steps++;
	}
	return up >= 3 && lo >= 3 && steps * 4 >= len;
}

/* A path, not a secret: ./x, ../x, ~/x, C:\x, or /a/b of lower-case words
 * (a base64 secret may start with '/', but has capitals). */
int callus_redact_is_path(const struct scan *sc, size_t v, size_t len)
{
	const unsigned char *p = sc->s + v;

	if ((len >= 2 && p[0] == '.' && p[1] == '/') || (len >= 3 && !memcmp(p, "../", 3)) ||
	    (len >= 2 && p[0] == '~' && p[1] == '/') ||
	    (len >= 3 && HAS(sc, v, C_ALPHA) && p[1] == ':' && p[2] == '\\'))
		return 1;
	if (len < 2 || p[0] != '/')
		return 0;
	for (size_t k = v; k < v + len; k++)
		if (!HAS(sc, k, C_LO | C_DIG | C_DOT | C_US | C_DASH) && sc->s[k] != '/')
			return 0;
	return 1;
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

/* Does code open a call, a subscript or a generic at k: "(", "[", "<",
 * or a Rust macro's "!(" and "![". */
static int opens_call(const struct scan *sc, size_t k, size_t end)
{
	return k < end && (in_set("([<", sc->s[k]) ||
			   (sc->s[k] == '!' && k + 1 < end && in_set("([", sc->s[k + 1])));
}

/* Code that calls, indexes or instantiates: get_token(), env["X"],
 * Option<String>, *p->key(, env!("X"). */
static int is_call(const struct scan *sc, size_t v)
{
	size_t k = v, end;
	int segs;

	if (k < sc->n && in_set("&*!", sc->s[k]))
		k++;
	end = ident_path(sc, k, sc->n, &segs);
	return segs && opens_call(sc, end, sc->n);
}

/* A file and line: "auth.py:88" after a logger's name (pytest's captured
 * log: "ERROR app.auth:auth.py:88 ..."), "token.rs:12:5". */
static int source_location(const struct scan *sc, size_t v, size_t ve)
{
	size_t k = v, ext;

	while (k < ve && sc->s[k] != ':')
		k++;
	if (k == ve || k + 1 == ve)
		return 0;
	for (ext = k; ext > v && HAS(sc, ext - 1, C_ALNUM); ext--)
		;
	if (ext == v || sc->s[ext - 1] != '.' || k - ext > 5 || k == ext)
		return 0;
	for (k++; k < ve; k++)
		if (!HAS(sc, k, C_DIG) && sc->s[k] != ':')
			return 0;
	return 1;
}

/* Does a part of the dotted path [v, ve) look random (a digit and both
 * cases): "Pepper.kFI9wA" is a password, "self.token" is code. */
static int random_part(const struct scan *sc, size_t v, size_t ve)
{
	for (size_t b = v, e; b < ve; b = e + 1) {
		for (e = b; e < ve && HAS(sc, e, C_WORD); e++)
			;
		if (e - b >= 6 && any_of(sc, b, e - b, C_DIG) && any_of(sc, b, e - b, C_UP) &&
		    any_of(sc, b, e - b, C_LO))
			return 1;
	}
	return 0;
}

/* An environment variable's name (DB_PASSWORD, API_KEY2): upper-case
 * letters, digits and '_', a letter first. */
static int env_name(const struct scan *sc, size_t b, size_t e)
{
	return e > b && HAS(sc, b, C_UP) && all_of(sc, b, e - b, C_UP | C_DIG | C_US);
}

/*
 * Should the bare (unquoted) value [v, ve) be left alone?  raw_end is where
 * the value stopped before trailing punctuation was dropped.  Bare values
 * are where code and prose show up: get_token(), self.token, TOKEN_EXPIRED,
 * "token: string" in a type error.
 */
static int bare_is_not_secret(const struct scan *sc, size_t v, size_t ve,
			      size_t raw_end, int colon, int literal)
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
	if (opens_call(sc, id_end, raw_end))
		return 1;              /* a call, subscript or generic type */
	if (colon && id_end < raw_end && (s[id_end] == '=' ||
					  (s[id_end] == '?' && id_end + 1 == ve)))
		return 1;              /* a type: "dbSecret: String? =", "password:str=" */
	if (id_end < ve)
		return source_location(sc, k, ve);  /* more follows: not a plain reference */
	if ((segs > 1 || sigil) && !random_part(sc, k, ve))
		return 1;              /* self.token, p->key, *secret */
	/* A single identifier: in code a variable (api_key=api_key, token:
	 * ACCESS_TOKEN); after an environment's NAME=, where a word is the
	 * value itself (PASSWORD=supersecret), one with a lower-case letter
	 * is the secret */
	if (callus_redact_name_kind(s + k, ve - k) != NAME_NO &&
	    !(literal && any_of(sc, k, ve - k, C_LO)))
		return 1;
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

/* End of a bare value at v: white space, a quote, NUL, '<', ';' (the next
 * field of a connection string, the next shell command), an escaped
 * newline, tab or quote (the end of a line in a JSON string) or, in a query
 * string, '&'; at most cap bytes on. */
static size_t bare_end(const struct scan *sc, size_t v, int query, size_t cap)
{
	size_t k;

	for (k = v; k < sc->n && k - v < cap; k++) {
		unsigned char c = sc->s[k];

		if (!c || HAS(sc, k, C_WS | C_QUOTE) || c == '<' || c == ';' ||
		    (query && c == '&') ||
		    (c == '\\' && k + 1 < sc->n && in_set("nrt\"'", sc->s[k + 1])))
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
 * The value of a Cookie header (every pair: they are all session state) or
 * of a Set-Cookie header (its cookie's value; the attributes are kept), up
 * to the end of the line or of the quoted string the header is in.
 * Node's inspect prints headers as 'set-cookie': [ 'sid=...; Path=/' ].
 */
static int cookie_value(const struct scan *sc, size_t v, int set, struct match *m)
{
	size_t k = v, e, rs, re;

	if (k + 1 < sc->n && sc->s[k] == '[' && (sc->s[k + 1] == ' ' || HAS(sc, k + 1, C_QUOTE))) {
		k++;
		while (k < sc->n && sc->s[k] == ' ')
			k++;
	}
	if (k < sc->n && HAS(sc, k, C_QUOTE))
		k++;
	for (e = k; e < sc->n && e - k < 4096; e++) {
		unsigned char c = sc->s[e];

		if (!c || c == '\n' || c == '\r' || c == '\\' || HAS(sc, e, C_QUOTE))
			break;
	}
	while (e > k && (sc->s[e - 1] == ' ' || sc->s[e - 1] == '\t'))
		e--;
	if (e == k || has_marker(sc, k, e - k) || is_placeholder(sc, k, e - k) ||
	    !memchr(sc->s + k, '=', e - k))
		return 0;
	rs = k;
	re = e;
	if (set) {
		rs = (size_t)((const unsigned char *)memchr(sc->s + k, '=', e - k) - sc->s) + 1;
		for (re = rs; re < e && sc->s[re] != ';'; re++)
			;
		if (re == rs || is_placeholder(sc, rs, re - rs))
			return 0;
	}
	return found(m, rs, re, "cookie");
}

/*
 * A quoted value starting at v (at its opening quote, possibly escaped as
 * \" inside a JSON string).  Returns 0 for prose (white space inside), else
 * 1 with the contents in [*vs, *ve); an unterminated value runs to the end
 * of the line.  Shell quoting is read as the shell reads it: '\'' inside a
 * single-quoted string is a quote, a value starting with '\'' or '"'"' is a
 * quoted string inside an outer one (sh -c 'X='\''value'\'''), and $'...'
 * is ANSI-C quoting.  Those are shell, not prose: spaces are kept in them,
 * as they are after "NAME='" (spaced is 0: the quote follows the '=').
 */
static int quoted_value(const struct scan *sc, size_t v, int spaced, size_t *vs,
			size_t *ve)
{
	int esc = sc->s[v] == '\\', shell = !spaced && (sc->s[v] == '\'' || sc->s[v] == '"');
	unsigned char q = sc->s[v + esc];
	size_t k = v + esc + 1;
	const char *d;

	if ((d = callus_redact_nested_quote(sc, v, 0))) {
		*vs = v + strlen(d);
		*ve = callus_redact_delimiter_end(sc, *vs, d);
		return !has_marker(sc, *vs, *ve - *vs);
	}
	if (sc->s[v] == '$') {   /* $'...' */
		shell = 1;
		q = '\'';
		k = v + 2;
	}
	*vs = k;
	for (; k < sc->n; k++) {
		unsigned char c = sc->s[k];

		if (c == '\n' || c == '\r')
			break;
		if (HAS(sc, k, C_WS) && !shell)
			return 0;      /* prose */
		if (esc) {
			if (c == '\\' && k + 1 < sc->n && sc->s[k + 1] == q)
				break;
		} else if (c == '\\' && (q != '\'' || sc->s[v] == '$') && k + 1 < sc->n &&
			   !HAS(sc, k + 1, C_WS)) {
			k++;           /* an escaped character, never the end */
		} else if (c == q) {
			/* 'it'\''s': the string goes on after a quoted quote */
			if (q == '\'' && (d = callus_redact_nested_quote(sc, k, 0)))
				k += strlen(d) - 1;
			else
				break;
		}
	}
	*ve = k < sc->n ? k : sc->n;
	/* Partly redacted already (see has_marker). */
	return !has_marker(sc, *vs, *ve - *vs);
}

/* Is the value [vs, ve) one that a name of this kind holds a secret in? */
static int value_fits(const struct scan *sc, int kind, size_t vs, size_t ve)
{
	switch (kind) {
	case NAME_WEAK:
		return callus_redact_looks_credential(sc, vs, ve - vs, 6);
	case NAME_PWD:
		/* PWD=/home/ci: the working directory */
		return !callus_redact_is_path(sc, vs, ve - vs) && (sc->s[vs] != '/' || ve - vs < 2);
	case NAME_AWS:
		return 1;
	case NAME_TOKEN:
		/* a credential has digits, symbols or random case; a
		 * lexer's token kind is a word */
		return !callus_redact_is_path(sc, vs, ve - vs) &&
		       (!all_of(sc, vs, ve - vs, C_ALPHA | C_US) ||
			callus_redact_looks_credential(sc, vs, ve - vs, 8));
	default:
		return !callus_redact_is_path(sc, vs, ve - vs);
	}
}

/* The identifier ending at e (blanks before e skipped when blanks): its
 * start in *b, or 0. */
static int ident_before(const struct scan *sc, size_t e, int blanks, size_t *b, size_t *ne)
{
	if (blanks)
		e = blanks_before(sc, e);
	for (*b = e; *b > sc->floor && e - *b <= NAME_MAX_LEN && HAS(sc, *b - 1, C_WORD); (*b)--)
		;
	*ne = e;
	return *b < e && e - *b <= NAME_MAX_LEN;
}

/*
 * The names an '=' whose name is a type may be assigning, type_end being
 * where the type ends.  Each returns 1 with the name in [*ns, *ne).
 */

/* The name the type annotates: "password: str =", "apiKey: Optional[str]
 * =", "val dbSecret: String? =", "api_key: &str =" (Python, TypeScript,
 * Kotlin, Swift, Rust). */
static int annotated_name(const struct scan *sc, size_t type_end, size_t *ns, size_t *ne)
{
	const unsigned char *s = sc->s;
	size_t k = type_end;

	/* back over the type to its ':' (at most 64 bytes:
	 * Optional[Dict[str, str]], string | undefined) */
	while (k > sc->floor && type_end - k < 64 && s[k - 1] != ':' &&
	       (HAS(sc, k - 1, C_WORD | C_DOT) || in_set("[]<>,|?&'* \t", s[k - 1]))) {
		/* words side by side are prose, not a type ("secret: rotated
		 * key_id ="): a type's blanks follow a ',' or stand around a
		 * '|', or follow Rust's lifetime or mut (&'static str) */
		if ((s[k - 1] == ' ' || s[k - 1] == '\t') && k < type_end && HAS(sc, k, C_WORD)) {
			size_t b = blanks_before(sc, k - 1), wb;

			for (wb = b; wb > sc->floor && HAS(sc, wb - 1, C_WORD); wb--)
				;
			if (b > sc->floor && HAS(sc, b - 1, C_WORD | C_DOT | C_QUOTE) &&
			    s[b - 1] != ':' && !(wb > sc->floor && s[wb - 1] == '\'') &&
			    !eq_ci(s + wb, b - wb, "mut") && !eq_ci(s + wb, b - wb, "dyn"))
				return 0;
		}
		k--;
	}
	if (k == sc->floor || s[k - 1] != ':' || (k - 1 > sc->floor && s[k - 2] == ':'))
		return 0;      /* no annotation, or a path (Rust's a::b) */
	return ident_before(sc, k - 1, 1, ns, ne);
}

/* The start of the line holding k, not before the floor. */
static size_t line_from(const struct scan *sc, size_t k)
{
	while (k > sc->floor && sc->s[k - 1] != '\n')
		k--;
	return k;
}

/* The end of the line at k, before a '\r'. */
static size_t line_end(const struct scan *sc, size_t k)
{
	const unsigned char *nl = memchr(sc->s + k, '\n', sc->n - k);
	size_t e = nl ? (size_t)(nl - sc->s) : sc->n;

	return e > k && sc->s[e - 1] == '\r' ? e - 1 : e;
}

/* Past a diff's '+' or '-' at the start of the line at ls. */
static size_t past_diff_mark(const struct scan *sc, size_t ls, size_t end)
{
	return ls < end && (sc->s[ls] == '+' || sc->s[ls] == '-') ? ls + 1 : ls;
}

/*
 * Is the line starting at ls inside a Go group, "var (" or "const (" on a
 * line above it (indented or not, a diff's mark before it), each line
 * between indented or empty and none closing it with ')'?  At most 64
 * lines back, and not past the floor: a second pass must read what the
 * first read, so a group whose earlier line was redacted is not seen.
 */
static int in_go_group(const struct scan *sc, size_t ls)
{
	const unsigned char *s = sc->s;
	size_t e = ls, ps, c, le;

	for (int lines = 0; lines < 64 && e > sc->floor && s[e - 1] == '\n'; lines++, e = ps) {
		ps = line_from(sc, e - 1);
		if ((ps > 0 && (ps == sc->floor || ls - ps > 4096)) || has_marker(sc, ps, e - ps))
			return 0;      /* its start not seen; what a second pass
					* would not read past */
		le = line_end(sc, ps);
		c = skip_blanks(sc, past_diff_mark(sc, ps, le), le);
		if ((c + 5 <= le && !memcmp(s + c, "var (", 5)) ||
		    (c + 7 <= le && !memcmp(s + c, "const (", 7))) {
			/* nothing after it but a comment */
			c = skip_blanks(sc, c + (s[c] == 'v' ? 5 : 7), le);
			return c == le || (c + 1 < le && s[c] == '/' && s[c + 1] == '/');
		}
		if (c < le && (s[c] == ')' || c == past_diff_mark(sc, ps, le)))
			return 0;      /* closed, or a line not in any group */
	}
	return 0;
}

/*
 * Go's declared name: "var apiToken string =", "const apiToken string =",
 * "var (apiToken string =", and "apiToken string =" first on a line of a
 * group.  A line of a group is known by gofmt's tab before it (only Go
 * declares "name type =" first on a line: elsewhere that is prose or a
 * syntax error), or else by the group's "var (" or "const (" above it.
 */
static int declared_name(const struct scan *sc, size_t type_end, size_t *ns, size_t *ne)
{
	const unsigned char *s = sc->s;
	size_t k, w, ls;

	if (!ident_before(sc, type_end, 0, &k, &w) || k == sc->floor ||
	    (s[k - 1] != ' ' && s[k - 1] != '\t') || !ident_before(sc, k, 1, ns, ne))
		return 0;
	w = blanks_before(sc, *ns);
	if (w > sc->floor && s[w - 1] == '(' && w - 1 < *ns)
		k = blanks_before(sc, w - 1);
	else
		k = w;
	if (k < *ns && (word_ends_at(sc, k, "var", 0, &k) || word_ends_at(sc, k, "const", 0, &k)))
		return 1;
	/* the line's tests below cost more than the name's, which most
	 * "type name =" of other languages fail ("int count =") */
	if (callus_redact_name_kind(s + *ns, *ne - *ns) == NAME_NO)
		return 0;
	/* first on its line (after a diff's mark): the line's start */
	ls = w > sc->floor && (s[w - 1] == '+' || s[w - 1] == '-') ? w - 1 : w;
	if (ls != 0 && (ls == sc->floor || s[ls - 1] != '\n'))
		return 0;
	return memchr(s + ls, '\t', *ns - ls) != NULL || in_go_group(sc, ls);
}

/* C's array, "char api_key[] =", "NAME[16] =", sized by a macro or an
 * expression ("api_key[KEY_LEN + 1] =", "[sizeof(x)]"); a map's quoted key,
 * "os.environ["DB_PASSWORD"] =", "ENV['TOKEN'] =". */
static int subscript_name(const struct scan *sc, size_t type_end, size_t *ns, size_t *ne)
{
	const unsigned char *s = sc->s;
	size_t k = type_end;

	if (k == sc->floor || s[k - 1] != ']')
		return 0;
	if (k - 1 > sc->floor && (s[k - 2] == '"' || s[k - 2] == '\'')) {
		size_t qe = k - 2, qs;

		for (qs = qe; qs > sc->floor && qe - qs <= NAME_MAX_LEN && HAS(sc, qs - 1, C_NAME); qs--)
			;
		if (qs > sc->floor + 1 && s[qs - 1] == s[qe] && s[qs - 2] == '[' && qs < qe) {
			*ns = qs;
			*ne = qe;
			return 1;
		}
		return 0;
	}
	for (k--; k > sc->floor && type_end - k < 64 && s[k - 1] != '['; k--)
		if (!HAS(sc, k - 1, C_WORD) && !in_set(" \t+-*/()", s[k - 1]))
			return 0;
	return k > sc->floor && s[k - 1] == '[' && ident_before(sc, k - 1, 0, ns, ne);
}

/* C#'s property with an initializer, "string Password { get; set; } =":
 * the name before its accessors (words and ';' between braces, a "get"
 * among them, so that a block of code is not read as accessors). */
static int property_name(const struct scan *sc, size_t type_end, size_t *ns, size_t *ne)
{
	const unsigned char *s = sc->s;
	size_t k = type_end, get = 0;

	if (k == sc->floor || s[k - 1] != '}')
		return 0;
	for (k--; k > sc->floor && type_end - k < 64 && s[k - 1] != '{'; k--) {
		if (!HAS(sc, k - 1, C_WORD) && !in_set(" \t;", s[k - 1]))
			return 0;
		if (k - 1 >= sc->floor + 3 && !memcmp(s + k - 4, "get", 3) &&
		    !HAS(sc, k - 1, C_WORD) && (k - 4 == sc->floor || !HAS(sc, k - 5, C_WORD)))
			get = 1;
	}
	return get && k > sc->floor && s[k - 1] == '{' && ident_before(sc, k - 1, 1, ns, ne);
}

/*
 * A plan's change of the value whose closing quote is at ve: Terraform's
 * `~ admin_password = "old" -> "new"`.  Both are the secret's: the end of
 * the new one's text, taken with the old, else ve.
 */
static size_t plan_change_end(const struct scan *sc, size_t ve)
{
	const unsigned char *s = sc->s;
	size_t k = ve + 1, e;

	if (ve >= sc->n || !HAS(sc, ve, C_QUOTE) || k + 4 >= sc->n ||
	    memcmp(s + k, " -> ", 4) || s[k + 4] != s[ve])
		return ve;
	for (e = k + 5; e < sc->n && e - k < VALUE_CAP && s[e] != s[ve] && s[e] != '\n'; e++)
		;
	return e < sc->n && s[e] == s[ve] && !has_marker(sc, k + 5, e - k - 5) ? e : ve;
}

/*
 * The length of a string literal's prefix at v, when a quote follows it:
 * Python's f b r u rb br fr rf (either case), C's L u U u8, T-SQL's N,
 * PostgreSQL's E, C#'s @; else 0.  A word that merely ends at a quote is
 * not one: the prefix must start the value.
 */
static size_t literal_prefix(const struct scan *sc, size_t v)
{
	static const char *const prefixes[] = {
		"f", "b", "r", "u", "rb", "br", "fr", "rf", "L", "U", "u8", "N", "E", "@"
	};
	const unsigned char *s = sc->s;

	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t l = strlen(prefixes[i]), k;

		if (v + l >= sc->n || (s[v + l] != '"' && s[v + l] != '\''))
			continue;
		for (k = 0; k < l; k++)
			if (s[v + k] != (unsigned char)prefixes[i][k] &&
			    (prefixes[i][k] < 'a' || prefixes[i][k] > 'z' ||
			     s[v + k] != (unsigned char)(prefixes[i][k] - 'a' + 'A')))
				break;
		if (k == l)
			return l;
	}
	return 0;
}

static int literal_at(const struct scan *sc, size_t k, int kind, struct match *m);

/* The new value of a plan's change from nothing, after the old one's end
 * at k: ` -> "new"` (Terraform setting a password the first time). */
static int plan_new_value(const struct scan *sc, size_t k, int kind, struct match *m)
{
	if (k + 4 >= sc->n || memcmp(sc->s + k, " -> ", 4))
		return 0;
	return literal_at(sc, k + 4, kind, m);
}

/* Does the callee ending at e read an environment or a map with a
 * default (getenv, get, fetch, getOrDefault)? */
static int default_getter(const struct scan *sc, size_t e)
{
	static const char *const names[] = { "getenv", "get", "fetch", "getOrDefault", "env" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t l = strlen(names[i]);

		if (e >= sc->floor + l && !memcmp(sc->s + e - l, names[i], l) &&
		    (e - l == sc->floor || !HAS(sc, e - l - 1, C_WORD)))
			return 1;
	}
	return 0;
}

/* The literal at k (a quote), when it is a secret of this kind: 1 with it
 * in *m. */
static int literal_at(const struct scan *sc, size_t k, int kind, struct match *m)
{
	size_t vs, ve;

	k = skip_blanks(sc, k, sc->n);
	if (k >= sc->n || !HAS(sc, k, C_QUOTE) || !quoted_value(sc, k, 1, &vs, &ve) ||
	    ve == vs || is_placeholder(sc, vs, ve - vs) || is_nullish(sc->s + vs, ve - vs) ||
	    !value_fits(sc, kind, vs, ve))
		return 0;
	return found(m, vs, ve, "secret-assignment");
}

/* Past a YAML block scalar's indicator at v (| or >, a chomping - or +
 * and an indentation digit, blanks, a comment): the next line's start, or
 * 0 when v holds no indicator that ends its line. */
static size_t block_indicator(const struct scan *sc, size_t v)
{
	const unsigned char *s = sc->s;
	size_t k = v + 1;

	if (s[v] != '|' && s[v] != '>')
		return 0;
	for (int h = 0; h < 2 && k < sc->n && (s[k] == '-' || s[k] == '+' ||
					      (s[k] >= '1' && s[k] <= '9')); h++)
		k++;
	k = skip_blanks(sc, k, sc->n);
	if (k < sc->n && s[k] == '#' && k > v + 1 && (s[k - 1] == ' ' || s[k - 1] == '\t'))
		while (k < sc->n && s[k] != '\n')
			k++;
	if (k < sc->n && s[k] == '\r')
		k++;
	return k + 1 < sc->n && s[k] == '\n' ? k + 1 : 0;
}

/*
 * A YAML block scalar, "password: |" or "private_key: >-" then the lines
 * indented deeper than the key (ks, its quote when quoted), which are the
 * secret: one match from the first line's text to the last's end (as a key
 * block, its lines become one).  body is the first line's start.  Decided
 * on the first line (a placeholder, "{{ .Values.x }}", or a marker is not
 * a secret), so that a block refused is not read to its end.  A diff's
 * '+' or '-' before the key's line and each of the block's is read past.
 */
static int block_scalar(const struct scan *sc, size_t ks, size_t body, int kind,
			struct match *m)
{
	const unsigned char *s = sc->s;
	size_t ls, col, k, c, e, vs = 0, ve = 0;
	unsigned char mark = 0;

	ls = line_from(sc, ks);
	if (ls > 0 && ls == sc->floor)
		return 0;      /* the key line's start not seen */
	if ((s[ls] == '+' || s[ls] == '-') && s[body] == s[ls])
		mark = s[ls];
	col = ks - ls;
	for (k = body; k < sc->n; k = e + 1) {
		size_t p = k;

		if (mark && s[p++] != mark)
			break;
		c = p;
		while (c < sc->n && s[c] == ' ')
			c++;
		e = line_end(sc, c);
		if (c == e) {          /* an empty line: the block goes on */
			e = e < sc->n && s[e] == '\r' ? e + 1 : e;
			continue;
		}
		if (c - k <= col)
			break;         /* the block's end */
		if (!vs) {
			size_t l = e - c < VALUE_CAP ? e - c : VALUE_CAP;

			if (is_placeholder(sc, c, l) || is_nullish(s + c, l) ||
			    !value_fits(sc, kind, c, c + l))
				return 0;
			vs = c;
		}
		ve = blanks_before(sc, e);
		e = e < sc->n && s[e] == '\r' ? e + 1 : e;
	}
	return vs && found(m, vs, ve, "secret-assignment");
}

/*
 * The kind of the name a "value" key's sibling gives, the key starting at
 * ks (its quote, when quoted): Kubernetes' and ECS's environment entries,
 * {"name": "API_TOKEN", "value": "..."}, {name: API_TOKEN, value: ...},
 * { name = "API_TOKEN", value = "..." } (HCL), name=API_TOKEN value=...
 * (logfmt), or over two lines, "- name: DB_PASSWORD" then "value: ...".
 * The sibling is the pair just before the key, on its line (after a ','
 * or blanks) or ending the line above (its ',' too); not past the floor.
 */
static int sibling_kind(const struct scan *sc, size_t ks)
{
	const unsigned char *s = sc->s;
	size_t e = blanks_before(sc, ks), xs, xe, k;
	unsigned char q = 0;
	int kind;

	if (e > sc->floor && s[e - 1] == ',') {
		e = blanks_before(sc, e - 1);
	} else if (e > sc->floor && s[e - 1] == '\n') {
		e--;
		if (e > sc->floor && s[e - 1] == '\r')
			e--;
		e = blanks_before(sc, e);
		if (e > sc->floor && s[e - 1] == ',')
			e = blanks_before(sc, e - 1);
	} else if (e == ks) {
		return NAME_NO;        /* glued to what is before it */
	}
	/* the name, bare or quoted */
	if (e > sc->floor && (s[e - 1] == '"' || s[e - 1] == '\''))
		q = s[--e];
	for (xe = xs = e; xs > sc->floor && xe - xs <= NAME_MAX_LEN && HAS(sc, xs - 1, C_NAME); xs--)
		;
	if (xs == xe || xe - xs > NAME_MAX_LEN)
		return NAME_NO;
	k = xs;
	if (q && (k == sc->floor || s[--k] != q))
		return NAME_NO;
	/* its key: name: or name = */
	k = blanks_before(sc, k);
	if (k == sc->floor || (s[k - 1] != ':' && s[k - 1] != '='))
		return NAME_NO;
	k = blanks_before(sc, k - 1);
	if (k > sc->floor && s[k - 1] == q && q)
		k--;
	if (k < sc->floor + 4 || !eq_ci(s + k - 4, 4, "name"))
		return NAME_NO;
	k -= 4;
	if (q && k > sc->floor && s[k - 1] == q)
		k--;
	if (k > sc->floor && !in_set(" \t\n{,-(", s[k - 1]))
		return NAME_NO;        /* hostname:, a longer key */
	kind = callus_redact_name_kind(s + xs, xe - xs);
	/* the rules of a key's own name ("pass: 3" counts tests, sig= is a
	 * query's) are not the rules of a name given as a value */
	return kind == NAME_PASS ? NAME_SECRET : kind == NAME_SIG ? NAME_NO : kind;
}

/*
 * The literal a wrapper holds: SecretStr("..."), String::from("..."),
 * Secret::new("..."), SecretString::new("...".into()), os.fsencode("..."),
 * new String("..."): a constructor or conversion (its last name in the
 * table) whose first argument is the value.  Any other call reads the value
 * from elsewhere (getenv("X"), input("Password: "), cfg.get("key")), its
 * argument a name or a prompt, so the table lists wrappers, not getters.
 */
static int wrapped_literal(const struct scan *sc, size_t v, int kind, struct match *m)
{
	static const char *const wrappers[] = {
		"SecretStr", "SecretBytes", "Secret", "SecretString", "SecretBox",
		"new", "from", "fsencode", "bytes", "bytearray", "Some", "String"
	};
	const unsigned char *s = sc->s;
	size_t k = v, end, b;
	int segs;

	if (k < sc->n && s[k] == '&')
		k++;           /* Rust's &String::from("...") */
	if (k + 4 < sc->n && !memcmp(s + k, "new ", 4))
		k += 4;
	end = ident_path(sc, k, sc->n, &segs);
	if (!segs || end >= sc->n || s[end] != '(')
		return 0;
	for (b = end; b > k && HAS(sc, b - 1, C_WORD); b--)
		;
	for (size_t w = 0; w < NELEM(wrappers); w++)
		if (end - b == strlen(wrappers[w]) && !memcmp(s + b, wrappers[w], end - b))
			/* Secret::new("API_KEY") names a variable, it holds none */
			return literal_at(sc, end + 1, kind, m) &&
			       callus_redact_name_kind(s + m->start, m->end - m->start) == NAME_NO;
	return 0;
}

/*
 * The literal a secret's name falls back to when its value is code:
 * "apiKey: process.env.API_KEY || 'literal'", "token = getenv('T') or
 * 'literal'", "?? \"literal\"", "os.getenv('T', 'literal')".  From v, the
 * code's start, to the end of its statement on that line (at most 160
 * bytes).
 */
static int fallback_literal(const struct scan *sc, size_t v, int kind, struct match *m)
{
	const unsigned char *s = sc->s;
	size_t k;

	for (k = v; k < sc->n && k - v < 160; k++) {
		unsigned char c = s[k];

		/* a marker stands for what an earlier pass took, which may have
		 * ended the statement (a ',') or closed a subscript or a call:
		 * the second pass stops as the first did, here and inside them */
		if (c == '\n' || c == ';' || c == ',' || c == '}' || starts_marker(sc, k))
			return 0;
		if (c == '{')
			return literal_at(sc, k + 1, kind, m);  /* Ruby's fetch("X") { "..." } */
		if (c == '[') {
			/* a subscript, ENV["X"]: skipped */
			unsigned char q = 0;

			for (k++; k < sc->n && k - v < 160 && s[k] != '\n' && (q || s[k] != ']'); k++)
				if (starts_marker(sc, k))
					return 0;
				else if (q)
					q = s[k] == q ? 0 : q;
				else if (HAS(sc, k, C_QUOTE))
					q = s[k];
			if (k >= sc->n || s[k] != ']')
				return 0;
			continue;
		}
		if (c == '(') {
			/* a call's arguments: a getter's default, else skipped */
			int depth = 1, getter = default_getter(sc, k);
			unsigned char q = 0;

			for (k++; k < sc->n && k - v < 160 && depth && s[k] != '\n'; k++) {
				if (starts_marker(sc, k))
					return 0;
				if (q) {
					q = s[k] == q ? 0 : q;
				} else if (HAS(sc, k, C_QUOTE)) {
					q = s[k];
				} else if (s[k] == '(') {
					depth++;
				} else if (s[k] == ')') {
					depth--;
				} else if (s[k] == ',' && depth == 1 && getter) {
					return literal_at(sc, k + 1, kind, m);
				}
			}
			if (depth)
				return 0;
			k--;
			continue;
		}
		if (HAS(sc, k, C_QUOTE))
			return 0;      /* a key or a string: not the fallback */
		if (k + 2 < sc->n && ((c == '|' && s[k + 1] == '|') || (c == '?' && s[k + 1] == '?')))
			k += 2;
		else if (c == ' ' && k + 3 < sc->n && s[k + 1] == 'o' && s[k + 2] == 'r' &&
			 s[k + 3] == ' ')
			k += 3;
		else
			continue;
		return literal_at(sc, k, kind, m);
	}
	return 0;
}

/*
 * The bytes before an '=' at op that are its operator's, not the name's:
 * Make's ?= and += (also shell's and code's +=), ::= and :::= (POSIX and
 * GNU Make's immediate assignments).  *make says the operator is Make's
 * alone, whose value follows blanks as := does.  A single ':' is not one
 * ("a:=" is read at its ':').
 */
static size_t assign_prefix(const struct scan *sc, size_t op, int *make)
{
	size_t k = op;
	unsigned char c = k > sc->floor ? sc->s[k - 1] : 0;

	*make = 0;
	if (c != '+' && c != '?' && c != ':')
		return 0;      /* most '=' */
	if (c == '+')
		return 1;
	if (c == '?') {
		*make = 1;
		return 1;
	}
	while (k > sc->floor && op - k < 4 && sc->s[k - 1] == ':')
		k--;
	if (op - k == 2 || op - k == 3) {
		*make = 1;
		return op - k;
	}
	return 0;
}

/* At an '=' or ':' that may end a secret's name. */
int callus_redact_match_assign(const struct scan *sc, size_t op, struct match *m)
{
	const unsigned char *s = sc->s;
	size_t n = sc->n, op_end = op + 1, j, name_end, name_start, v, vs, ve;
	size_t raw_end, pre = 0, body;
	unsigned char q = 0;
	int colon = s[op] == ':', kind, query, spaced, make = 0;
	struct match tok = { 0, 0, 0, NULL };

	if (colon) {
		if ((op + 1 < n && s[op + 1] == ':') ||
		    (op > sc->floor && s[op - 1] == ':'))
			return 0;
		if (op + 1 < n && s[op + 1] == '=')
			op_end++;   /* Go's and Make's := */
	} else {
		pre = assign_prefix(sc, op, &make);
		/* Comparisons are code, not assignments. */
		if ((!pre && op > sc->floor && in_set("=!<>:", s[op - 1])) ||
		    (op + 1 < n && s[op + 1] == '='))
			return 0;
		if (op + 1 < n && s[op + 1] == '>')
			op_end++;
	}

	/* The name, possibly quoted: NAME=, "NAME":, \"NAME\":, NAME = ,
	 * NAME := (Go, Make), NAME ?= NAME += NAME ::= (Make) */
	j = op - pre;
	if (!colon || op_end > op + 1)
		while (j > sc->floor && op - j < 8 + pre &&
		       (s[j - 1] == ' ' || s[j - 1] == '\t'))
			j--;
	spaced = colon || j < op - pre || op_end > op + 1 || make;
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
	if (name_end - name_start > NAME_MAX_LEN)
		return 0;
	if (q && (name_start == sc->floor || s[name_start - 1] != q))
		return 0;
	kind = name_end == name_start ? NAME_NO
				      : callus_redact_name_kind(s + name_start, name_end - name_start);
	/* "password: str =": the name is the one the type annotates (also
	 * written "password:str="; the others take blanks before the '='),
	 * declares, subscripts or gives accessors */
	if (kind == NAME_NO && !colon && !q) {
		static int (*const typed[])(const struct scan *, size_t, size_t *, size_t *) = {
			annotated_name, declared_name, subscript_name, property_name
		};

		for (size_t t = 0; t < (spaced ? NELEM(typed) : 1) && kind == NAME_NO; t++) {
			size_t ts, te;

			if (typed[t](sc, name_end, &ts, &te) &&
			    (kind = callus_redact_name_kind(s + ts, te - ts)) != NAME_NO) {
				name_start = ts;
				name_end = te;
			}
		}
	}
	if (kind == NAME_NO && name_end - name_start == 5 &&
	    eq_ci(s + name_start, name_end - name_start, "value"))
		kind = sibling_kind(sc, q ? name_start - 1 : name_start);
	if (kind == NAME_NO)
		return 0;
	if (colon && eq_ci(s + name_start, name_end - name_start, "token") &&
	    parser_diagnostic(sc, name_start))
		return 0;
	/* In a query string '&' starts the next parameter. */
	query = name_start > sc->floor &&
		(s[name_start - 1] == '?' || s[name_start - 1] == '&');
	switch (kind) {
	case NAME_SIG:
		/* sig=, X-Amz-Signature=: a query's or a header's parameter */
		if (colon || (!query && eq_ci(s + name_start, name_end - name_start, "sig")))
			return 0;
		break;
	case NAME_PASS:
		/* "pass: 3" counts tests; "pass:secret" is openssl's */
		if (colon && op_end < n && (s[op_end] == ' ' || s[op_end] == '\t'))
			return 0;
		break;
	case NAME_WEAK:
		/* "app.auth:auth.py:88" (a logger and a file): a weak name
		 * takes a value after ": ", a quote or '=' */
		if (colon && !q && op_end < n && !HAS(sc, op_end, C_WS | C_QUOTE))
			return 0;
		break;
	case NAME_COOKIE:
		if (!colon) {
			kind = NAME_WEAK;
			break;
		}
		v = op_end;
		while (v < n && (s[v] == ' ' || s[v] == '\t'))
			v++;
		return v < n && cookie_value(sc, v, ends_ci(s + name_start, name_end - name_start,
							   "set-cookie"), m);
	}

	/* In shell, "NAME= next" assigns the empty string. */
	v = op_end;
	while (spaced && v < n && (s[v] == ' ' || s[v] == '\t'))
		v++;
	if (v >= n)
		return 0;
	if (kind == NAME_AUTH)
		return auth_value(sc, v, m);
	/* a string literal's prefix (f"", b'', r'', u8"", L"", N'', @"") is
	 * not the value: the string after it is */
	if (!sc->argv_word)
		v += literal_prefix(sc, v);

	if (sc->argv_word && !colon && !spaced && name_start == 0) {
		/* an argv word NAME=value: the value is the rest of it */
		vs = v;
		ve = n;
		if (in_set("{[(<", s[v]) || placeholder_start(sc, v, ve - v) ||
		    is_nullish(s + vs, ve - vs) || has_marker(sc, vs, ve - vs))
			return 0;
	} else if (HAS(sc, v, C_QUOTE) ||
	    (s[v] == '\\' && v + 1 < n && HAS(sc, v + 1, C_QUOTE)) ||
	    (s[v] == '$' && v + 1 < n && s[v + 1] == '\'')) {
		if (!quoted_value(sc, v, spaced, &vs, &ve))
			return 0;
		if (ve == vs || is_placeholder(sc, vs, ve - vs) || is_nullish(s + vs, ve - vs))
			return plan_new_value(sc, ve + 1, kind, m);  /* "" -> "new" */
		/* no closing quote and no letter nor digit: the quote closed a
		 * prompt the name was in (input("Password: ")), and what
		 * follows it is code */
		if ((ve >= n || s[ve] == '\n' || s[ve] == '\r') &&
		    !any_of(sc, vs, ve - vs, C_ALNUM | C_HIGH))
			return 0;
		ve = plan_change_end(sc, ve);
	} else if (!colon && !spaced && !q && name_start > sc->floor &&
		   (s[name_start - 1] == '\'' || s[name_start - 1] == '"')) {
		/* 'NAME=value with spaces' (a word quoted whole: docker -e,
		 * an argv joined by the shell's rules): to the closing quote */
		vs = v;
		ve = callus_redact_string_end(sc, v, s[name_start - 1], s[name_start - 1] == '"');
		if (ve == vs || in_set("{[(<", s[v]) || placeholder_start(sc, v, ve - v) ||
		    is_nullish(s + vs, ve - vs) || has_marker(sc, vs, ve - vs))
			return 0;
	} else if (colon && (body = block_indicator(sc, v)) != 0) {
		return block_scalar(sc, q ? name_start - 1 : name_start, body, kind, m);
	} else {
		/* What the start tells is decided before the end is found. */
		if (in_set("{[(<", s[v]) || placeholder_start(sc, v, n - v))
			return 0;
		if (is_call(sc, v) || (has_prefix(sc, v, "new ") && is_call(sc, v + 4)))
			return wrapped_literal(sc, v, kind, m) || fallback_literal(sc, v, kind, m);
		vs = v;
		/* Decide on at most VALUE_CAP bytes, so that a long value
		 * with many names in it is not re-read from each of them. */
		raw_end = bare_end(sc, v, query, VALUE_CAP);
		ve = raw_end;
		while (ve > vs && HAS(sc, ve - 1, C_STRIP))
			ve--;
		if (ve == vs || has_marker(sc, vs, raw_end - vs))
			return 0;
		if (is_nullish(s + vs, ve - vs))
			return plan_new_value(sc, raw_end, kind, m);  /* null -> "new" */
		if (bare_is_not_secret(sc, vs, ve, raw_end, colon,
				       !spaced && !q && env_name(sc, name_start, name_end)))
			return fallback_literal(sc, raw_end, kind, m);
		if (raw_end - v == VALUE_CAP) {  /* decided on a prefix */
			raw_end = bare_end(sc, v, query, (size_t)-1);
			for (ve = raw_end; ve > vs && HAS(sc, ve - 1, C_STRIP); ve--)
				;
		}
	}
	if (!value_fits(sc, kind, vs, ve))
		return 0;

	/* Name the kind of a known token when the value is exactly one. */
	if (kind == NAME_AWS)
		return found(m, vs, ve, "aws-secret");
	if (!HAS(sc, vs - 1, C_B64URL) && callus_redact_match_token(sc, vs, &tok) &&
	    tok.start == vs && tok.end == ve)
		return found(m, vs, ve, tok.kind);
	return found(m, vs, ve, "secret-assignment");
}

/* At the '>' of <password>...</password>: the element's text, when the
 * element is closed on the same line and its text has no space. */
int callus_redact_match_element(const struct scan *sc, size_t gt, struct match *m)
{
	size_t j = gt, v = gt + 1, e;
	int kind;

	while (j > sc->floor && gt - j <= NAME_MAX_LEN && HAS(sc, j - 1, C_NAME))
		j--;
	if (j == gt || j == sc->floor || sc->s[j - 1] != '<')
		return 0;
	kind = callus_redact_name_kind(sc->s + j, gt - j);
	if (kind == NAME_NO || kind == NAME_AUTH || kind == NAME_COOKIE || kind == NAME_SIG)
		return 0;
	for (e = v; e < sc->n && e - v < VALUE_CAP; e++)
		if (sc->s[e] == '<' || HAS(sc, e, C_WS) || !sc->s[e])
			break;
	if (e == v || e + 1 >= sc->n || sc->s[e] != '<' || sc->s[e + 1] != '/' ||
	    is_placeholder(sc, v, e - v) || has_marker(sc, v, e - v) || !value_fits(sc, kind, v, e))
		return 0;
	return found(m, v, e, "secret-assignment");
}

/* At "#define": a C macro whose name says it holds a secret, defined as a
 * string or a bare word: #define API_KEY "...", #define DB_PASSWORD xyz. */
int callus_redact_match_define(const struct scan *sc, size_t i, struct match *m)
{
	const unsigned char *s = sc->s;
	size_t k = i + 1, ns, ne, vs, ve;
	int kind;

	/* "#define", or "#  define" indented */
	while (k < sc->n && k - i < 16 && (s[k] == ' ' || s[k] == '\t'))
		k++;
	if (k + 6 >= sc->n || memcmp(s + k, "define", 6))
		return 0;
	k += 6;
	if (s[k] != ' ' && s[k] != '\t')
		return 0;
	k = skip_blanks(sc, k, sc->n);
	for (ns = k; k < sc->n && k - ns <= NAME_MAX_LEN && HAS(sc, k, C_WORD); k++)
		;
	ne = k;
	if (ne == ns || ne - ns > NAME_MAX_LEN || k >= sc->n || (s[k] != ' ' && s[k] != '\t'))
		return 0;   /* no name, or a macro with parameters */
	kind = callus_redact_name_kind(s + ns, ne - ns);
	if (kind == NAME_NO || kind == NAME_AUTH || kind == NAME_COOKIE || kind == NAME_SIG)
		return 0;
	k = skip_blanks(sc, k, sc->n);
	if (k >= sc->n)
		return 0;
	if (s[k] == '"') {
		for (vs = ve = k + 1; ve < sc->n && ve - vs < VALUE_CAP && s[ve] != '"' &&
				      s[ve] != '\n'; ve++)
			if (s[ve] == '\\' && ve + 1 < sc->n && s[ve + 1] != '\n')
				ve++;
		if (ve >= sc->n || s[ve] != '"')
			return 0;
	} else {
		vs = k;
		ve = bare_end(sc, vs, 0, VALUE_CAP);
		if (ve == vs || bare_is_not_secret(sc, vs, ve, ve, 0, 0))
			return 0;
		if (ve - vs == VALUE_CAP)   /* decided on a prefix: taken whole */
			ve = bare_end(sc, vs, 0, (size_t)-1);
	}
	if (ve == vs || is_placeholder(sc, vs, ve - vs) || has_marker(sc, vs, ve - vs) ||
	    !value_fits(sc, kind, vs, ve))
		return 0;
	return found(m, vs, ve, "secret-assignment");
}

/* At a setter's name ("setenv(", "set_var(", "setProperty(", "put(",
 * "set("): setenv("API_TOKEN", "..."), props.put("db.password", "..."):
 * the second argument, a string, when the first names a secret. */
int callus_redact_match_setter(const struct scan *sc, size_t i, struct match *m)
{
	const unsigned char *s = sc->s;
	const unsigned char *open = memchr(s + i, '(', sc->n - i < 16 ? sc->n - i : 16);
	size_t k, ns, ne;
	int kind;
	unsigned char q;

	if (!open)
		return 0;
	k = (size_t)(open - s) + 1;
	if (k >= sc->n || (s[k] != '"' && s[k] != '\''))
		return 0;
	q = s[k];
	for (ns = ne = k + 1; ne < sc->n && ne - ns <= NAME_MAX_LEN && HAS(sc, ne, C_NAME); ne++)
		;
	if (ne == ns || ne >= sc->n || s[ne] != q)
		return 0;
	/* the name's last part: db.password */
	for (k = ne; k > ns && s[k - 1] != '.'; k--)
		;
	kind = callus_redact_name_kind(s + k, ne - k);
	if (kind == NAME_NO || kind == NAME_AUTH || kind == NAME_COOKIE || kind == NAME_SIG)
		return 0;
	k = ne + 1;
	k = skip_blanks(sc, k, sc->n);
	if (k >= sc->n || s[k] != ',')
		return 0;
	return literal_at(sc, k + 1, kind, m);
}
