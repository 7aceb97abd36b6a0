/*
 * redact_internal.h - what the pieces of the redactor share: the character
 * classes and trigger table (redact.c builds them), the state of one scan,
 * the small byte helpers every matcher uses, and the matchers the driver
 * (redact.c) calls: secrets known by their shape (redact_tokens.c: prefixed
 * tokens, private keys, URLs with a password), by the name they are given
 * (redact_assign.c), and by the option that carries them on a command line
 * (redact_cli.c, which also reads shell words).  The helpers are static
 * inline: they run on the hot path of every scan.  Not part of the public
 * API: callers go through callus/redact.h.
 */
#ifndef CALLUS_REDACT_INTERNAL_H
#define CALLUS_REDACT_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "callus/buf.h"
#include "callus/redact.h"

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
	C_HEX = 1 << 12,    /* 0-9 a-f A-F */
	C_EQ = 1 << 13,     /* = (base64 padding) */
	C_PCT = 1 << 14,    /* % (URL-encoded padding) */
	C_SEGEND = 1 << 15, /* ends a shell command: newline ; | & ( ` */
	C_TOOL0 = 1 << 16,  /* starts the name of a tool of redact_cli.c */
	C_OPTPRE = 1 << 17, /* may precede an option inside a word: ( [ { , ` */
	C_PWOPT = 1 << 18,  /* a short option that may carry a password
			     * (redact_cli.c's table, -u, -p) */

	C_ALPHA = C_UP | C_LO,
	C_ALNUM = C_ALPHA | C_DIG,
	C_WORD = C_ALNUM | C_US,
	C_B64URL = C_WORD | C_DASH,
	C_NAME = C_B64URL | C_DOT,
	C_BEARER = C_B64URL | C_DOT | C_B64 | C_TILDE
};

/* What a byte may start. */
enum { T_NONE = 0, T_WORD, T_COLON, T_EQ, T_DASH, T_TILDE, T_GT };

/* The prefixed tokens (redact_tokens.c) a byte may start, in table order:
 * rule[first[c]] .. rule[first[c + 1] - 1]. */
#define CALLUS_REDACT_MAX_RULES 256

struct callus_redactor {
	uint32_t cls[256];
	uint8_t trig[256];
	/* start[w][c]: may byte c start a match when the byte before it is
	 * (w = 1) or is not (w = 0) base64url?  One lookup per byte in the
	 * hot loop, and prefix letters inside words are not candidates. */
	uint8_t start[2][256];
	uint8_t wordy[256];
	/* pair[a][b / 8] bit b % 8: does some token prefix start with the
	 * bytes a, b?  Most word starts are rejected by this one lookup. */
	uint8_t pair[256][32];
	uint16_t first[257];
	uint16_t rule[CALLUS_REDACT_MAX_RULES];
	/* The tables start no match where the scan's sixteen-byte test of
	 * a block (redact.c, block_starts) sees none: it may be used. */
	int sixteen;
};

/*
 * What a command line's words say about the options that follow (redact_cli.c):
 * which tool runs, and whether its subcommand (docker "login") was seen.
 * tool is an index in that file's table, or -1.
 */
struct callus_redact_tool {
	int tool;
	int sub;
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
	/* The tool of the words before this text when it is one word of a
	 * command line (callus_redact_argv), else NULL. */
	const struct callus_redact_tool *argv_tool;
	/* This text is one argv word that is not a script (the word after
	 * sh -c): the value of a NAME= or an option at its start runs to its
	 * end, spaces and quotes included (the shell removed the quoting). */
	int argv_word;
	/* What is kept of the text is written to out escaped as a JSON
	 * string's contents (callus_redact_str_json). */
	int json;
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
static inline int in_set(const char *set, int c)
{
	return c && strchr(set, c);
}


/* ---- small helpers ---------------------------------------------------- */

static inline int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Byte by byte: most calls fail on the first or second byte. */
static inline int has_prefix(const struct scan *sc, size_t i, const char *lit)
{
	for (size_t k = 0; lit[k]; k++)
		if (i + k >= sc->n || sc->s[i + k] != (unsigned char)lit[k])
			return 0;
	return 1;
}

/* p[0..len) equals the lowercase lit, ignoring case. */
static inline int eq_ci(const unsigned char *p, size_t len, const char *lit)
{
	size_t k;

	for (k = 0; k < len; k++)
		if (!lit[k] || lower(p[k]) != lit[k])
			return 0;
	return !lit[k];
}

static inline int ends_ci(const unsigned char *p, size_t len, const char *lit)
{
	size_t l = strlen(lit);

	return len >= l && eq_ci(p + len - l, l, lit);
}

/* Length of the run of class `mask` at i, at most cap.  A run stops before
 * a key block ("...-----BEGIN"): the block is a match of its own, whose
 * marker would stop the run on a second pass, so the first stops there too
 * (else a length read past it could refuse what the second accepts). */
static inline size_t span(const struct scan *sc, size_t i, unsigned mask, size_t cap)
{
	size_t k = i;

	while (k < sc->n && k - i < cap && HAS(sc, k, mask)) {
		if (sc->s[k] == '-' && k + 10 <= sc->n && !memcmp(sc->s + k, "-----BEGIN", 10))
			break;
		k++;
	}
	return k - i;
}

/* Past the blanks (spaces, tabs) at k, up to end. */
static inline size_t skip_blanks(const struct scan *sc, size_t k, size_t end)
{
	while (k < end && (sc->s[k] == ' ' || sc->s[k] == '\t'))
		k++;
	return k;
}

/* The start of the blanks that end at e, not before the floor. */
static inline size_t blanks_before(const struct scan *sc, size_t e)
{
	while (e > sc->floor && (sc->s[e - 1] == ' ' || sc->s[e - 1] == '\t'))
		e--;
	return e;
}

/* Does the word w (ignoring case when ci) end at e, whole: at the floor or
 * after white space, a quote or '('?  Its start in *b. */
static inline int word_ends_at(const struct scan *sc, size_t e, const char *w, int ci, size_t *b)
{
	size_t l = strlen(w);

	if (e < sc->floor + l || (ci ? !eq_ci(sc->s + e - l, l, w) : memcmp(sc->s + e - l, w, l)))
		return 0;
	*b = e - l;
	return *b == sc->floor || (sc->r->cls[sc->s[*b - 1]] & (C_WS | C_QUOTE)) ||
	       sc->s[*b - 1] == '(';
}

static inline int any_of(const struct scan *sc, size_t i, size_t len, unsigned mask)
{
	for (size_t k = i; k < i + len; k++)
		if (HAS(sc, k, mask))
			return 1;
	return 0;
}

static inline int all_of(const struct scan *sc, size_t i, size_t len, unsigned mask)
{
	for (size_t k = i; k < i + len; k++)
		if (!HAS(sc, k, mask))
			return 0;
	return 1;
}

static inline int found(struct match *m, size_t start, size_t end, const char *kind)
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
static inline int placeholder_start(const struct scan *sc, size_t i, size_t len)
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

static inline int is_placeholder(const struct scan *sc, size_t i, size_t len)
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
static inline int has_marker(const struct scan *sc, size_t i, size_t len)
{
	return memmem(sc->s + i, len, "[REDACTED:", 10) != NULL;
}

static inline int is_nullish(const unsigned char *p, size_t len)
{
	static const char *const words[] = {
		"null", "nil", "none", "undefined", "true", "false", "new",
		"await", "this", "self", "function", "lambda", "sizeof",
		"typeof", "not", "and", "or", "try", "if", "when", "match", "yield"
	};

	for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++)
		if (eq_ci(p, len, words[k]))
			return 1;
	return 0;
}

/* Does a "[REDACTED:...]" marker start at k? */
static inline int starts_marker(const struct scan *sc, size_t k)
{
	return k + 10 <= sc->n && memcmp(sc->s + k, "[REDACTED:", 10) == 0;
}

/* Is there a letter, digit or '_' at k (inside the input)?  A marker
 * counts as one: a check that a token ends at k must not pass on the
 * second pass because a later match of the first replaced the word that
 * followed it ("glc_...=0OUV" where "0OUV" is an assignment's value). */
static inline int is_word_char(const struct scan *sc, size_t k)
{
	return k < sc->n && (HAS(sc, k, C_WORD) || starts_marker(sc, k));
}

/* Does a "[REDACTED:...]" marker end just before b?  Matchers that read
 * words before their trigger stop there, as they stop at scan.floor, so
 * that a second pass reads what the first one read. */
static inline int marker_before(const struct scan *sc, size_t b)
{
	size_t k;

	if (b == 0 || sc->s[b - 1] != ']')
		return 0;
	for (k = b - 1; k > 0 && b - k < 40; k--)
		if (sc->s[k - 1] == '[')
			return b - k >= 10 && memcmp(sc->s + k - 1, "[REDACTED:", 10) == 0;
	return 0;
}

/* ---- the matchers ----------------------------------------------------- */

/*
 * Each is called at a trigger byte (redact.c, try_at()) and returns 1 with
 * *m filled when it found a secret, else 0 (m->resume may say where
 * scanning may continue).
 */

/* Fill the token tables of a new redactor (first, rule, pair, and the
 * trigger of each prefix's first byte). */
void callus_redact_tokens_init(callus_redactor *r);

/* Mark the first bytes of the tools of redact_cli.c (C_TOOL0). */
void callus_redact_cli_init(callus_redactor *r);

/* Tokens recognised by their prefix; i is at a word start. */
int callus_redact_match_token(const struct scan *sc, size_t i, struct match *m);

/* Shapes with no prefix, found from a byte inside them: a Telegram bot
 * token at its ':', an Azure AD client secret at its '~', a Mailchimp key
 * at the '-' of its "-usN" suffix. */
int callus_redact_match_telegram(const struct scan *sc, size_t p, struct match *m);
int callus_redact_match_tilde(const struct scan *sc, size_t p, struct match *m);
int callus_redact_match_mailchimp(const struct scan *sc, size_t p, struct match *m);

/* The kind of a private key block; compared by address. */
extern const char callus_redact_kind_pem[];

/* A PEM private key block at the '-' at i. */
int callus_redact_match_pem(const struct scan *sc, size_t i, struct match *m);

/* Where a private key block starts in [i, end), or end. */
size_t callus_redact_pem_within(const struct scan *sc, size_t i, size_t end);

/* At the ':' of "scheme://user:password@host". */
int callus_redact_match_url(const struct scan *sc, size_t p, struct match *m);

/* At an '=' or ':' that may end a secret's name. */
int callus_redact_match_assign(const struct scan *sc, size_t op, struct match *m);

/* At the '>' of <password>...</password>. */
int callus_redact_match_element(const struct scan *sc, size_t gt, struct match *m);

/* Does a variable, key, header or option called name[0..len) hold a
 * secret?  NAME_* below. */
enum {
	NAME_NO = 0,
	NAME_SECRET,  /* any value that is not code, a reference or empty */
	NAME_TOKEN,   /* ...token: as NAME_SECRET, but not a plain word (a
		       * lexer's token kind, token = "IDENT") */
	NAME_AWS,     /* AWS secret access key */
	NAME_AUTH,    /* an Authorization header: keep its scheme */
	NAME_WEAK,    /* auth, credentials, session...: also prose, so the
		       * value must look like a credential */
	NAME_COOKIE,  /* a Cookie or Set-Cookie header */
	NAME_PWD,     /* pwd: a password, or the working directory */
	NAME_SIG,     /* sig, signature: only in a query or as NAME= */
	NAME_PASS     /* pass: also a test count (pass: 3) */
};
int callus_redact_name_kind(const unsigned char *name, size_t len);

/* Do the last bytes of name[0..len) end some secret name (token, ...key,
 * pass...)?  The cheap test callus_redact_name_kind() starts with. */
int callus_redact_secret_tail(const unsigned char *name, size_t len);
/* The same test of a name's last two bytes, x then y. */
static inline int callus_redact_secret_pair(unsigned char x, unsigned char y)
{
	int a = lower(x), b = lower(y);

	switch (b) {
	case 'n': return a == 'e' || a == 'o';  /* token; authorization, session */
	case 't': return a == 'e';              /* secret */
	case 'd': return a == 'r' || a == 'w';  /* password; passwd, pwd */
	case 'y': return a == 'e';              /* key */
	case 'h': return a == 't';              /* auth */
	case 's': return a == 's' || a == 'l' || a == 'd';  /* pass, credentials, creds */
	case 'l': return a == 'a';              /* credential */
	case 'g': return a == 'i';              /* sig */
	case 'e': return a == 'r' || a == 'i' || a == 's';  /* signature, cookie, passphrase */
	case 'a': return a == 't';              /* key-data */
	}
	return 0;
}

/*
 * Can the colon at op end the name of a secret, or "value" (whose sibling
 * may name one)?  0 only where callus_redact_match_assign() would find
 * nothing: a bare name before a lone ':' is one of those only by its last
 * two bytes.  So a compiler's "file.c:12:5: error:", four colons and no
 * secret, costs no walk back over a name and no call: that was a tenth of
 * redacting such output (bench/record1m.sh).
 */
static inline int callus_redact_colon_named(const struct scan *sc, size_t op)
{
	const unsigned char *s = sc->s;

	if (op == sc->floor || !HAS(sc, op - 1, C_NAME))
		return 1;
	if (op - 1 == sc->floor || !HAS(sc, op - 2, C_NAME))
		return 0;
	return callus_redact_secret_pair(s[op - 2], s[op - 1]) ||
	       (lower(s[op - 2]) == 'u' && lower(s[op - 1]) == 'e');
}

/* Is v[0..len) a path (./x, ../x, ~/x, C:\\x, /lower/case) rather than a
 * secret? */
int callus_redact_is_path(const struct scan *sc, size_t v, size_t len);

/* Does v[0..len) look like a credential rather than a word: a digit or
 * mixed case, at least min bytes? */
int callus_redact_looks_credential(const struct scan *sc, size_t v, size_t len, size_t min);

/* ---- command lines (redact_cli.c) -------------------------------------- */

/* One shell word read at a value: the bytes to replace [rs, re) (inside
 * the quotes when the word is one quoted string) and its end. */
struct shell_word {
	size_t rs, re, end;
};

/* Read the shell word at v.  encl is the quote the text around it is in
 * ('\'' for the words of "sh -c '...'" seen from inside, 0 when none),
 * known when an option was found right after it: the value then ends at the
 * matching quote.  Quoting inside a quoted string ('\'', '"'"', \") is
 * read as the shell reads it.  Stops at the end of the line. */
void callus_redact_shell_word(const struct scan *sc, size_t v, unsigned char encl,
			      struct shell_word *w);

/* The quoting that opens a string nested inside a single-quoted one at k,
 * as sh -c '...' holds it: '\\'' or '"'"', and with dquote also \\" (a
 * string nested in a double-quoted one); NULL when there is none. */
const char *callus_redact_nested_quote(const struct scan *sc, size_t k, int dquote);

/* The closing q of a string whose body starts at k (backslash escapes
 * when esc), or the end of the line.  In a single-quoted string, '\\'' and
 * '"'"' are a quote and the string goes on. */
size_t callus_redact_string_end(const struct scan *sc, size_t k, unsigned char q, int esc);

/* Where the delimiter d (quoting inside a quoted string: '\\'', \\") next
 * occurs at or after k on this line, or the line's end. */
size_t callus_redact_delimiter_end(const struct scan *sc, size_t k, const char *d);

/* At a '-' that may start a command-line option carrying a secret. */
int callus_redact_match_option(const struct scan *sc, size_t i, struct match *m);

/* "machine HOST login USER password SECRET" (.netrc), "config set NAME
 * VALUE" (npm, yarn, aws): a secret after a word naming it.  i is at the
 * word "password" or "set". */
int callus_redact_match_keyword(const struct scan *sc, size_t i, struct match *m);

/* setenv("NAME", "value") and its kin, where NAME names a secret.  i is
 * at the setter's name. */
int callus_redact_match_setter(const struct scan *sc, size_t i, struct match *m);

/* "#define NAME value" where NAME names a secret.  i is at the '#'. */
int callus_redact_match_define(const struct scan *sc, size_t i, struct match *m);

/* SQL setting a password: PASSWORD 'x', IDENTIFIED [WITH PLUGIN] BY 'x'.
 * i is at the word "PASSWORD" (either case) or "BY". */
int callus_redact_match_sql(const struct scan *sc, size_t i, struct match *m);

/* The redaction pass over in[0..len) appended to out, with the tool of the
 * command line's earlier words (may be NULL) and scan.argv_word.
 * callus_redact() is this with NULL and 0. */
int callus_redact_scan(const callus_redactor *r, callus_buf *out, const char *in,
		       size_t len, const struct callus_redact_tool *tool, int argv_word,
		       size_t *count);

#endif
