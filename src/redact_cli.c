/*
 * redact_cli.c - secrets known by the command-line option that carries them:
 * the value of --password, --token, --secret, --api-key, --auth and their
 * '=' forms in any tool, the password of -u/--user user:password, and the
 * short options that are a password only for some tools (mysql -pX, docker
 * login -p X, sshpass, redis-cli -a, ldapsearch -w, zip -P, ...); a secret
 * after the word naming it (.netrc's "password", "npm config set NAME
 * VALUE", SQL's PASSWORD '...', IDENTIFIED BY '...' and SET PASSWORD =
 * '...'); and callus_redact_argv(), which redacts a command given as words
 * before it is quoted.  Values are read as a shell reads them: a password in
 * single quotes with '\'' inside, in double quotes, in $'...', or quoted
 * once more inside "sh -c '...'".
 *
 * An option is found at its '-' when it starts a word.  Which tool runs is
 * read back from the start of the command (the line, or the last ; | & ( `)
 * and not past a redaction, so that a second pass decides as the first did.
 */
#include "callus/redact.h"
#include "callus/cleantext.h"
#include "callus/shellquote.h"
#include "redact_internal.h"

#include <string.h>

enum {
	OPT_NONE = 0,
	OPT_SECRET,    /* the whole value */
	OPT_USERPASS,  /* what follows the user and its separator */
	OPT_AUTH,      /* user:password, or a credential alone */
	OPT_COOKIE,    /* name=value pairs */
	OPT_GUESS      /* -p of a tool not in the table: when it looks random */
};

/* ---- tools ------------------------------------------------------------ */

/* No pointer in a tool's row: a static PIE's start writes every page
 * that holds one (its relocation), and this table was one of those every
 * process copied (docs/scale-history.md, the eighty-third pass). */
struct tool {
	char name[15];         /* the program's base name, at most 14 bytes */
	char sub[6];           /* a word that must follow it ("login"), or "" */
	char attached[3];      /* short options whose attached value is a password */
	char separate[3];      /* short options whose next word is a password */
	char userpass;         /* the separator in -u/-U user?password, 0 for ':' */
};

static const struct tool tools[] = {
	/* -pSECRET only: "mysql -p db" prompts, and db is the database */
	{ "mysql", "", "p", "", 0 },
	{ "mysqldump", "", "p", "", 0 },
	{ "mysqladmin", "", "p", "", 0 },
	{ "mysqlimport", "", "p", "", 0 },
	{ "mysqlshow", "", "p", "", 0 },
	{ "mysqlcheck", "", "p", "", 0 },
	{ "mysqlpump", "", "p", "", 0 },
	{ "mysqlslap", "", "p", "", 0 },
	{ "mysqlsh", "", "p", "", 0 },
	{ "mariadb", "", "p", "", 0 },
	{ "mariadb-dump", "", "p", "", 0 },
	{ "mariadb-admin", "", "p", "", 0 },
	{ "mariadb-import", "", "p", "", 0 },
	{ "mariadb-check", "", "p", "", 0 },
	{ "7z", "", "p", "", 0 },
	{ "7za", "", "p", "", 0 },
	{ "7zr", "", "p", "", 0 },
	{ "7zz", "", "p", "", 0 },
	{ "rar", "", "p", "", 0 },
	{ "unrar", "", "p", "", 0 },
	{ "sshpass", "", "p", "p", 0 },
	/* registries: "docker login -p", not "docker run -p 80:80" */
	{ "docker", "login", "", "p", 0 },
	{ "podman", "login", "", "p", 0 },
	{ "nerdctl", "login", "", "p", 0 },
	{ "buildah", "login", "", "p", 0 },
	{ "skopeo", "login", "", "p", 0 },
	{ "helm", "login", "", "p", 0 },
	{ "oras", "login", "", "p", 0 },
	{ "crane", "login", "", "p", 0 },
	{ "az", "login", "", "p", 0 },
	{ "oc", "login", "", "p", 0 },
	{ "cf", "login", "", "p", 0 },
	{ "mongo", "", "", "p", 0 },
	{ "mongosh", "", "", "p", 0 },
	{ "mongodump", "", "", "p", 0 },
	{ "mongorestore", "", "", "p", 0 },
	{ "mongoexport", "", "", "p", 0 },
	{ "mongoimport", "", "", "p", 0 },
	{ "mongostat", "", "", "p", 0 },
	{ "mongotop", "", "", "p", 0 },
	{ "mongofiles", "", "", "p", 0 },
	{ "rabbitmqadmin", "", "", "p", 0 },
	{ "sqlcmd", "", "P", "P", 0 },
	{ "bcp", "", "P", "P", 0 },
	{ "osql", "", "P", "P", 0 },
	{ "zip", "", "P", "P", 0 },
	{ "unzip", "", "P", "P", 0 },
	{ "zipcloak", "", "P", "P", 0 },
	{ "mosquitto_pub", "", "", "P", 0 },
	{ "mosquitto_sub", "", "", "P", 0 },
	{ "mosquitto_rr", "", "", "P", 0 },
	{ "ldapsearch", "", "w", "w", 0 },
	{ "ldapadd", "", "w", "w", 0 },
	{ "ldapmodify", "", "w", "w", 0 },
	{ "ldapdelete", "", "w", "w", 0 },
	{ "ldappasswd", "", "w", "w", 0 },
	{ "ldapwhoami", "", "w", "w", 0 },
	{ "ldapcompare", "", "w", "w", 0 },
	{ "ldapmodrdn", "", "w", "w", 0 },
	{ "ldapexop", "", "w", "w", 0 },
	{ "vsql", "", "w", "w", 0 },
	{ "redis-cli", "", "a", "a", 0 },
	{ "valkey-cli", "", "a", "a", 0 },
	{ "keydb-cli", "", "a", "a", 0 },
	{ "ssh-keygen", "", "NP", "NP", 0 },
	{ "openssl", "", "", "k", 0 },
	{ "curl", "", "", "b", 0 },          /* -b name=value: a cookie */
	{ "smbclient", "", "", "", '%' },    /* -U user%password */
	{ "rpcclient", "", "", "", '%' },
	{ "smbcacls", "", "", "", '%' },
	{ "lftp", "", "", "", ',' },         /* -u user,password */
};

#define NTOOLS (sizeof(tools) / sizeof(tools[0]))

/* The short options short_kind() reads in any tool: -u/-U/-a user:password,
 * -p of an unknown tool. */
#define ANY_TOOL_OPTIONS "uUap"

static void mark(callus_redactor *r, const char *set, uint32_t cls)
{
	for (; *set; set++)
		r->cls[(unsigned char)*set] |= cls;
}

void callus_redact_cli_init(callus_redactor *r)
{
	for (size_t k = 0; k < NTOOLS; k++) {
		r->cls[(unsigned char)tools[k].name[0]] |= C_TOOL0;
		if (tools[k].sub[0])
			r->cls[(unsigned char)tools[k].sub[0]] |= C_TOOL0;
		mark(r, tools[k].attached, C_PWOPT);
		mark(r, tools[k].separate, C_PWOPT);
	}
	mark(r, ANY_TOOL_OPTIONS, C_PWOPT);
}

/* The tool a word names (its base name, without ".exe"), or -1. */
static int tool_index(const unsigned char *w, size_t len)
{
	size_t b = len;

	while (b > 0 && w[b - 1] != '/')
		b--;
	w += b;
	len -= b;
	if (len > 4 && !memcmp(w + len - 4, ".exe", 4))
		len -= 4;
	if (len < 2 || len > 14)
		return -1;
	for (size_t k = 0; k < NTOOLS; k++)
		if (tools[k].name[0] == w[0] && strlen(tools[k].name) == len &&
		    !memcmp(tools[k].name, w, len))
			return (int)k;
	return -1;
}

/* One more word of a command: a tool, or the subcommand of the last one. */
static void tool_step(struct callus_redact_tool *t, const unsigned char *w, size_t len)
{
	int k = tool_index(w, len);

	if (k >= 0) {
		t->tool = k;
		t->sub = 0;
	} else if (t->tool >= 0 && tools[t->tool].sub[0] &&
		   strlen(tools[t->tool].sub) == len && !memcmp(tools[t->tool].sub, w, len)) {
		t->sub = 1;
	}
}

/* The tool of the command that reaches i: its words from the start of the
 * line or after the last ; | & ( `, not before the last redaction. */
static void tool_before(const struct scan *sc, size_t i, struct callus_redact_tool *t)
{
	size_t b = i, k, e;

	t->tool = -1;
	t->sub = 0;
	while (b > sc->floor && i - b < 1024) {
		unsigned char c = sc->s[b - 1];

		if ((sc->r->cls[c] & C_SEGEND) || marker_before(sc, b))
			break;
		b--;
	}
	for (k = b; k < i; k = e) {
		while (k < i && (HAS(sc, k, C_WS | C_QUOTE) || sc->s[k] == '$' || sc->s[k] == '{'))
			k++;
		for (e = k; e < i && !HAS(sc, e, C_WS | C_QUOTE) && sc->s[e]; e++)
			;
		if (e > k && (HAS(sc, k, C_TOOL0) || memchr(sc->s + k, '/', e - k)))
			tool_step(t, sc->s + k, e - k);
		if (e == k)
			e++;
	}
	/* One word of a command given as words: the words before it. */
	if (t->tool < 0 && b == 0 && sc->argv_tool)
		*t = *sc->argv_tool;
}

/* ---- what an option's name says ----------------------------------------- */

static int starts_ci(const unsigned char *p, size_t len, const char *lit)
{
	size_t l = strlen(lit);

	return len >= l && eq_ci(p, l, lit);
}

/* A long option's name (without its dashes): what its value is. */
static int long_kind(const unsigned char *name, size_t len)
{
	/* keytool's, jarsigner's and openssl's single-dash options */
	static const char *const passes[] = {
		"storepass", "keypass", "srcstorepass", "deststorepass", "srckeypass",
		"destkeypass", "passin", "passout", "bearer", "oauth2-bearer"
	};
	static const char *const flags[] = { "no-", "with-", "skip-", "ask-", "prompt-", "use-" };
	int a, b;

	/* Most options stop here: a secret's name, user, passin, passout */
	if (len < 3)
		return OPT_NONE;
	a = lower(name[len - 2]);
	b = lower(name[len - 1]);
	if (!callus_redact_secret_tail(name, len) && !(a == 'e' && b == 'r') &&
	    !(a == 'i' && b == 'n') && !(a == 'u' && b == 't'))
		return OPT_NONE;
	for (size_t k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
		if (starts_ci(name, len, flags[k]))
			return OPT_NONE;
	for (size_t k = 0; k < sizeof(passes) / sizeof(passes[0]); k++)
		if (eq_ci(name, len, passes[k]))
			return OPT_SECRET;
	if (eq_ci(name, len, "user") || ends_ci(name, len, "-user"))
		return OPT_USERPASS;
	switch (callus_redact_name_kind(name, len)) {
	case NAME_SECRET:
	case NAME_TOKEN:
	case NAME_AWS:
	case NAME_PWD:
	case NAME_PASS:
	case NAME_AUTH:
		return OPT_SECRET;
	case NAME_WEAK:
		return OPT_AUTH;
	case NAME_COOKIE:
		return OPT_COOKIE;
	}
	return OPT_NONE;
}

/* Short option c, its value attached (-pX) or the next word. */
static int short_kind(const struct scan *sc, size_t i, unsigned char c, int attached, char *sep)
{
	struct callus_redact_tool t;

	*sep = ':';
	if (!(sc->r->cls[c] & C_PWOPT))
		return OPT_NONE;
	tool_before(sc, i, &t);
	if (t.tool >= 0 && (!tools[t.tool].sub[0] || t.sub)) {
		const struct tool *w = &tools[t.tool];

		if (in_set(attached ? w->attached : w->separate, c))
			return c == 'b' ? OPT_COOKIE : OPT_SECRET;
		if ((c == 'u' || c == 'U') && w->userpass && !attached) {
			*sep = w->userpass;
			return OPT_USERPASS;
		}
	}
	if (in_set("uUa", c))
		return attached ? OPT_NONE : OPT_USERPASS;
	return c == 'p' ? OPT_GUESS : OPT_NONE;
}

/* A password, by its look alone: long, no path, and random (both cases and
 * a digit) or a password's mix of letters, digits and symbols. */
static int looks_secret(const struct scan *sc, size_t v, size_t len)
{
	int up, lo, dig, sym = 0;

	if (len < 8 || memchr(sc->s + v, '/', len))
		return 0;
	up = any_of(sc, v, len, C_UP);
	lo = any_of(sc, v, len, C_LO);
	dig = any_of(sc, v, len, C_DIG);
	for (size_t k = v; k < v + len; k++)
		if (in_set("!@#$%^&*+=?~", sc->s[k]))
			sym = 1;
	return (up && lo && dig) || ((up || lo) && dig && sym);
}

/* ---- shell words ----------------------------------------------------- */

size_t callus_redact_delimiter_end(const struct scan *sc, size_t k, const char *d)
{
	for (; k < sc->n && sc->s[k] != '\n' && sc->s[k] != '\r'; k++)
		if (sc->s[k] == (unsigned char)d[0] && has_prefix(sc, k, d))
			return k;
	return k;
}

const char *callus_redact_nested_quote(const struct scan *sc, size_t k, int dquote)
{
	static const char *const nested[] = { "'\\''", "'\"'\"'", "\\\"" };

	for (size_t d = 0; d < (dquote ? 3u : 2u); d++)
		if (has_prefix(sc, k, nested[d]))
			return nested[d];
	return NULL;
}

size_t callus_redact_string_end(const struct scan *sc, size_t k, unsigned char q, int esc)
{
	const char *d;

	for (; k < sc->n && sc->s[k] != '\n' && sc->s[k] != '\r'; k++) {
		if (esc && sc->s[k] == '\\') {
			k++;
			continue;
		}
		if (sc->s[k] != q)
			continue;
		if (q == '\'' && !esc && (d = callus_redact_nested_quote(sc, k, 0)))
			k += strlen(d) - 1;
		else
			return k;
	}
	return k < sc->n ? k : sc->n;
}

/* How much of an unquoted word is read before a value is decided on: a
 * refused one is read again from each later option. */
#define WORD_CAP 4096

static void shell_word(const struct scan *sc, size_t v, unsigned char encl, size_t cap,
		       struct shell_word *w)
{
	const unsigned char *s = sc->s;
	const char *d;
	size_t n = sc->n, k = v;

	if (encl) {
		w->rs = v;
		w->re = w->end = callus_redact_string_end(sc, v, encl, encl == '"');
		return;
	}
	if ((d = callus_redact_nested_quote(sc, v, 1))) {
		w->rs = v + strlen(d);
		w->re = callus_redact_delimiter_end(sc, w->rs, d);
		w->end = w->re < n && s[w->re] != '\n' && s[w->re] != '\r' ? w->re + strlen(d) : w->re;
		return;
	}
	while (k < n && k - v < cap) {
		unsigned char c = s[k];

		if (c == '\'' || c == '"' || (c == '$' && k + 1 < n && s[k + 1] == '\'')) {
			size_t q0 = k, body = k + (c == '$' ? 2 : 1);
			unsigned char q = c == '$' ? '\'' : c;

			k = callus_redact_string_end(sc, body, q, q == '"' || c == '$');
			if (k < n && s[k] == q)
				k++;
			/* A word that starts with a quoted string ends with it,
			 * unless the shell goes on: "it"'s', 'a'\''b' (JSON's
			 * "x", and Python's 'x'] end there). */
			if (q0 == v && !(k < n && (HAS(sc, k, C_QUOTE) || s[k] == '\\' || s[k] == '$')))
				break;
			continue;
		}
		if (c == '\\' && k + 1 < n && s[k + 1] != '\n') {
			k += 2;
			continue;
		}
		if (!c || HAS(sc, k, C_WS) || in_set(";&|<>()`", c))
			break;
		k++;
	}
	w->end = k;
	w->rs = v;
	w->re = k;
	/* Quoted as a whole: the quotes are kept. */
	if (k - v >= 2 && (s[v] == '\'' || s[v] == '"') && s[k - 1] == s[v]) {
		w->rs = v + 1;
		w->re = k - 1;
	} else if (k - v >= 3 && s[v] == '$' && s[v + 1] == '\'' && s[k - 1] == '\'') {
		w->rs = v + 2;
		w->re = k - 1;
	}
}

void callus_redact_shell_word(const struct scan *sc, size_t v, unsigned char encl,
			      struct shell_word *w)
{
	shell_word(sc, v, encl, WORD_CAP, w);
}

/* ---- values ------------------------------------------------------------ */

enum {
	V_RAW = 1 << 0,   /* the value is the rest of the input: an argv word */
	V_NAMED = 1 << 1, /* of an option known by its name: may be help text
			   * ("--token TOKEN", "--password=PASSWORD") */
	V_PROSE = 1 << 2  /* the next word after it: may be prose ("Using
			   * --password via the CLI", "--token string") */
};

/* A help text's name for a value: TOKEN, API_KEY, PASSWORD] (usage lines),
 * upper-case letters, '_' and '-', brackets and punctuation after. */
static int metavar(const struct scan *sc, size_t rs, size_t re)
{
	while (re > rs && (HAS(sc, re - 1, C_STRIP) || in_set("[]", sc->s[re - 1])))
		re--;
	return re > rs && all_of(sc, rs, re - rs, C_UP | C_US | C_DASH);
}

/*
 * The secret in the value at v of an option of this kind: a shell word
 * (or, V_RAW, the whole rest of the input: one word of an argv), inside its
 * quotes.  Fills m and returns 1 when there is one.
 */
static int option_value(const struct scan *sc, size_t v, unsigned char encl, int kind,
			char sep, int flags, struct match *m)
{
	struct match tok = { 0, 0, 0, NULL };
	struct shell_word w;
	size_t rs, re, p;

	if (v >= sc->n)
		return 0;
	if (flags & V_RAW) {
		w.rs = v;
		w.re = w.end = sc->n;
	} else {
		callus_redact_shell_word(sc, v, encl, &w);
	}
	rs = w.rs;
	re = w.re;
	if (re <= rs || has_marker(sc, rs, re - rs) || is_placeholder(sc, rs, re - rs))
		return 0;
	if (((flags & V_PROSE) && all_of(sc, rs, re - rs, C_LO)) ||
	    ((flags & V_NAMED) && metavar(sc, rs, re)))
		return 0;
	if (kind == OPT_AUTH) {
		/* user:password, or a credential alone */
		if (memchr(sc->s + rs, ':', re - rs))
			kind = OPT_USERPASS;
		else if (!callus_redact_looks_credential(sc, rs, re - rs, 6))
			return 0;
	}
	switch (kind) {
	case OPT_AUTH:
		break;
	case OPT_USERPASS:
		for (p = rs; p < re && sc->s[p] != (unsigned char)sep; p++)
			;
		if (p + 1 >= re || is_placeholder(sc, p + 1, re - p - 1))
			return 0;
		/* uid:gid (docker run -u 1000:1000) */
		if (all_of(sc, rs, p - rs, C_DIG) && all_of(sc, p + 1, re - p - 1, C_DIG))
			return 0;
		rs = p + 1;
		if (metavar(sc, rs, re))
			return 0;
		break;
	case OPT_COOKIE:
		if (!memchr(sc->s + rs, '=', re - rs))
			return 0;
		break;
	case OPT_GUESS:
		if (!looks_secret(sc, rs, re - rs))
			return 0;
		break;
	case OPT_SECRET:
		/* openssl's pass:SECRET; env:, file:, fd: and stdin say where
		 * the secret is */
		if (has_prefix(sc, rs, "pass:") && re - rs > 5)
			rs += 5;
		else if (has_prefix(sc, rs, "env:") || has_prefix(sc, rs, "file:") ||
			 has_prefix(sc, rs, "fd:") || (re - rs == 5 && has_prefix(sc, rs, "stdin")))
			return 0;
		if (callus_redact_is_path(sc, rs, re - rs) || is_nullish(sc->s + rs, re - rs))
			return 0;
		break;
	default:
		return 0;
	}
	/* Decided on its first WORD_CAP bytes: the rest of the word goes too. */
	if (!(flags & V_RAW) && w.end - v >= WORD_CAP) {
		shell_word(sc, v, encl, (size_t)-1, &w);
		re = w.re;
	}
	/* Name the kind of a known token when the value is exactly one. */
	if (kind != OPT_COOKIE && (rs == sc->floor || !HAS(sc, rs - 1, C_B64URL)) &&
	    callus_redact_match_token(sc, rs, &tok) && tok.start == rs && tok.end == re)
		return found(m, rs, re, tok.kind);
	return found(m, rs, re, kind == OPT_COOKIE ? "cookie" : "cli-password");
}

/* Where the next word starts after an option's name ending at k: past
 * spaces (and escaped newlines) on the same line.  When the option was
 * quoted (encl), after its closing quote and a list's ", " (Python's and
 * JSON's argv lists).  Returns sc->n when there is none. */
static size_t next_word(const struct scan *sc, size_t k, unsigned char encl)
{
	const unsigned char *s = sc->s;
	size_t n = sc->n, k0;

	if (encl) {
		if (k >= n || s[k] != encl)
			return n;
		k++;
		k0 = k;
		while (k < n && (s[k] == ',' || s[k] == ' '))
			k++;
		return k > k0 && k < n && HAS(sc, k, C_QUOTE) ? k : n;
	}
	if (k >= n || (s[k] != ' ' && s[k] != '\t'))
		return n;
	while (k < n) {
		if (s[k] == ' ' || s[k] == '\t')
			k++;
		else if (s[k] == '\\' && k + 1 < n && s[k + 1] == '\n')
			k += 2;
		else
			break;
	}
	return k < n && s[k] != '\n' && s[k] != '\r' && s[k] != '-' ? k : n;
}

/* ---- options ------------------------------------------------------------- */

/* An option at i: its kind, and where its value starts (sc->n when it is
 * the next word and there is none), attached to it (-pX, --x=) or not. */
struct option {
	int kind;
	char sep;
	int attached;
	int named;        /* known by its long name, not by its tool */
	size_t name_end;  /* just past the name */
	size_t value;     /* where the value starts, sc->n for the next word */
	unsigned char encl;
};

static int parse_option(const struct scan *sc, size_t i, struct option *o)
{
	const unsigned char *s = sc->s;
	size_t n = sc->n, ns, ne;
	int dashes, lk, long_name;
	unsigned char c;

	memset(o, 0, sizeof(*o));
	o->sep = ':';
	if (i > 0) {
		/* An option starts a word. */
		if (i == sc->floor || !HAS(sc, i - 1, C_WS | C_QUOTE | C_OPTPRE))
			return 0;
		if (HAS(sc, i - 1, C_QUOTE))
			o->encl = s[i - 1];
	}
	dashes = i + 1 < n && s[i + 1] == '-' ? 2 : 1;
	ns = i + dashes;
	if (ns >= n || !HAS(sc, ns, C_ALNUM))
		return 0;
	ne = ns + span(sc, ns, C_ALNUM | C_DASH | C_US, 65);
	/* No option has a longer name; but -pVALUE is a short option whose
	 * attached value may be that long, so a single dash reads on. */
	long_name = ne - ns <= 64;
	if (!long_name && dashes == 2)
		return 0;
	/* (scanning resumes after the name: inside a longer word, at the
	 * next byte, as for a word that is no option) */
	o->name_end = long_name ? ne : ns;
	o->value = n;
	if (dashes == 1) {
		c = s[ns];
		/* -pX: more of the word follows the letter */
		o->attached = ns + 1 < n && !HAS(sc, ns + 1, C_WS) && s[ns + 1] != '\n' &&
			      !(o->encl && s[ns + 1] == o->encl) && s[ns + 1] != '=';
		o->kind = short_kind(sc, i, c, o->attached, &o->sep);
		if (o->kind == OPT_SECRET || o->kind == OPT_COOKIE) {
			if (o->attached)
				o->value = ns + 1;
			return 1;
		}
		/* -password X, -storepass X: one dash, a long name */
		lk = long_name && ne - ns >= 3 && !any_of(sc, ns, ne - ns, C_UP) ?
			     long_kind(s + ns, ne - ns) : 0;
		if (!lk) {
			if (o->attached) {
				if (o->kind == OPT_GUESS)
					o->value = ns + 1;
				else
					o->kind = OPT_NONE;
			}
			return long_name || o->kind != OPT_NONE;
		}
		o->kind = lk;
		o->attached = 0;
	} else {
		o->kind = long_kind(s + ns, ne - ns);
	}
	o->named = 1;
	if (ne < n && s[ne] == '=') {
		o->attached = 1;
		o->value = ne + 1;
	} else if (ne < n && !HAS(sc, ne, C_WS) && !(o->encl && s[ne] == o->encl)) {
		o->kind = OPT_NONE;   /* --name.more, --name/x: not an option */
	}
	return 1;
}

int callus_redact_match_option(const struct scan *sc, size_t i, struct match *m)
{
	struct option o;
	size_t v;

	if (!parse_option(sc, i, &o))
		return 0;
	m->resume = o.name_end;
	if (o.kind == OPT_NONE)
		return 0;
	if (o.value < sc->n)
		return option_value(sc, o.value, o.encl, o.kind, o.sep,
				    (o.named ? V_NAMED : 0) | (sc->argv_word && i == 0 ? V_RAW : 0), m);
	v = next_word(sc, o.name_end, o.encl);
	/* a list item is its own quoted word */
	return v < sc->n && option_value(sc, v, 0, o.kind, o.sep,
					 o.named ? V_NAMED | V_PROSE : 0, m);
}

/* ---- a secret after the word naming it -------------------------------- */

/* Where the line holding k starts, not before the last redaction. */
static size_t line_start(const struct scan *sc, size_t k)
{
	size_t lim = k > 512 ? k - 512 : 0;

	while (k > sc->floor && k > lim && sc->s[k - 1] != '\n' && !marker_before(sc, k))
		k--;
	return k;
}

/* Is "password" at i a .netrc keyword: after "machine HOST login USER" on
 * its line, or alone on a line after "login USER"?  ("Failed login for bob:
 * password mismatch" is not.) */
static int netrc_password(const struct scan *sc, size_t i)
{
	size_t b = line_start(sc, i), t = skip_blanks(sc, b, i), pb, k;

	if (t == i) {
		if (b == sc->floor || b == 0 || sc->s[b - 1] != '\n')
			return 0;
		pb = line_start(sc, b - 1);
		pb = skip_blanks(sc, pb, b - 1);
		return has_prefix(sc, pb, "login ") || has_prefix(sc, pb, "machine ");
	}
	/* "login USER " just before, "machine " or "default " before that */
	for (k = i; k > t && sc->s[k - 1] == ' '; k--)
		;
	while (k > t && !HAS(sc, k - 1, C_WS))
		k--;
	if (k < t + 7 || memcmp(sc->s + k - 7, " login ", 7))
		return 0;
	for (pb = t; pb + 8 <= k; pb++)
		if ((pb == t || sc->s[pb - 1] == ' ') &&
		    (!memcmp(sc->s + pb, "machine ", 8) || !memcmp(sc->s + pb, "default ", 8)))
			return 1;
	return 0;
}

/* The word before i, ending at the space before i. */
static int word_before_is(const struct scan *sc, size_t i, const char *word)
{
	size_t l = strlen(word);

	return i >= sc->floor + l + 1 && sc->s[i - 1] == ' ' &&
	       !memcmp(sc->s + i - 1 - l, word, l) &&
	       (i - 1 - l == sc->floor || i - 1 - l == 0 || HAS(sc, i - 2 - l, C_WS));
}

int callus_redact_match_keyword(const struct scan *sc, size_t i, struct match *m)
{
	struct shell_word w;
	size_t v, b;
	int kind;

	if (sc->s[i] == 'p') {
		/* .netrc: machine HOST login USER password SECRET (and not
		 * "failed login for bob: password mismatch") */
		if (!netrc_password(sc, i))
			return callus_redact_match_sql(sc, i, m);
		v = next_word(sc, i + 8, 0);
		return v < sc->n && option_value(sc, v, 0, OPT_SECRET, ':', 0, m);
	}
	/* npm/yarn/pnpm config set NAME VALUE, aws configure set NAME VALUE,
	 * dotnet user-secrets set NAME VALUE */
	if (!word_before_is(sc, i, "config") && !word_before_is(sc, i, "configure") &&
	    !word_before_is(sc, i, "user-secrets"))
		return 0;
	v = next_word(sc, i + 3, 0);
	if (v >= sc->n)
		return 0;
	callus_redact_shell_word(sc, v, 0, &w);
	/* A name read across a redaction (an open quote) is not one: the
	 * first pass, which made it, could not read that far. */
	if (has_marker(sc, v, w.end - v))
		return 0;
	/* the name's last part: //registry.npmjs.org/:_authToken, Db:Password */
	for (b = w.re; b > w.rs && !in_set(":/", sc->s[b - 1]); b--)
		;
	kind = callus_redact_name_kind(sc->s + b, w.re - b);
	if (kind == NAME_NO || kind == NAME_COOKIE || kind == NAME_SIG)
		return 0;
	v = next_word(sc, w.end, 0);
	return v < sc->n && option_value(sc, v, 0, kind == NAME_WEAK ? OPT_AUTH : OPT_SECRET,
					 ':', 0, m);
}

/*
 * MySQL's SET PASSWORD [FOR account] = 'x', or = PASSWORD('x') before 5.7:
 * i at PASSWORD, v past the blanks after it.  Where the value's quote is,
 * or 0 when this is not that statement ("SET PASSWORD is deprecated").
 */
static size_t set_password_value(const struct scan *sc, size_t i, size_t v)
{
	const unsigned char *s = sc->s;
	size_t k = v, e = blanks_before(sc, i), b;
	unsigned char q = 0;

	if (e == i || !word_ends_at(sc, e, "set", 1, &b))
		return 0;
	if (k + 4 < sc->n && eq_ci(s + k, 3, "for") && (s[k + 3] == ' ' || s[k + 3] == '\t')) {
		/* the account: 'bob'@'localhost', bob@"%", CURRENT_USER() */
		for (k += 4; k < sc->n && k - v < 256 && (q || s[k] != '='); k++) {
			if (s[k] == '\n' || (!q && s[k] == ';'))
				return 0;
			if (q)
				q = s[k] == q ? 0 : q;
			else if (HAS(sc, k, C_QUOTE))
				q = s[k];
		}
	}
	if (k >= sc->n || s[k] != '=')
		return 0;
	k = skip_blanks(sc, k + 1, sc->n);
	if (k + 9 < sc->n && eq_ci(s + k, 9, "password("))
		k += 9;
	else if (k + 13 < sc->n && eq_ci(s + k, 13, "old_password("))
		k += 13;
	return k < sc->n && (s[k] == '\'' || s[k] == '"') ? k : 0;
}

/*
 * SQL that sets a password: PASSWORD 'x' (PostgreSQL's CREATE and ALTER
 * ROLE or USER), IDENTIFIED BY 'x' and IDENTIFIED WITH PLUGIN BY 'x'
 * (MySQL; Oracle's IDENTIFIED BY takes a bare word too), SET PASSWORD
 * [FOR account] = 'x' (MySQL).  A psql or migration error echoes the
 * statement.  At the keyword's first letter.
 */
int callus_redact_match_sql(const struct scan *sc, size_t i, struct match *m)
{
	const unsigned char *s = sc->s;
	size_t v, e, b, w;
	int by = lower(s[i]) == 'b', bare = 0, escapes = 0;
	unsigned char q;

	v = skip_blanks(sc, i + (by ? 2 : 8), sc->n);
	if (v == i + (by ? 2 : 8) || v >= sc->n)
		return 0;
	if (!by && (w = set_password_value(sc, i, v)) != 0)
		v = w;
	if (by) {
		/* IDENTIFIED BY, or IDENTIFIED WITH PLUGIN BY */
		w = blanks_before(sc, i);
		if (w == i)
			return 0;
		if (!word_ends_at(sc, w, "identified", 1, &b)) {
			for (b = w; b > sc->floor && w - b < 64 && HAS(sc, b - 1, C_WORD); b--)
				;
			if (b == w || !word_ends_at(sc, blanks_before(sc, b), "with", 1, &b) ||
			    !word_ends_at(sc, blanks_before(sc, b), "identified", 1, &b))
				return 0;
		} else {
			bare = 1;
		}
	}
	if (by) {
		/* MySQL's IDENTIFIED BY PASSWORD '*hash', Oracle's IDENTIFIED
		 * BY VALUES 'hash': the hash is the secret; DEFAULT is none */
		size_t l = 0;

		if (v + 9 < sc->n && eq_ci(s + v, 8, "password") && s[v + 8] == ' ')
			l = 8;
		else if (v + 7 < sc->n && eq_ci(s + v, 6, "values") && s[v + 6] == ' ')
			l = 6;
		if (l) {
			v = skip_blanks(sc, v + l, sc->n);
			bare = 0;
		} else if (v + 7 <= sc->n && eq_ci(s + v, 7, "default")) {
			return 0;
		}
	}
	if ((s[v] == 'E' || s[v] == 'e') && v + 1 < sc->n && s[v + 1] == '\'') {
		v++;           /* PostgreSQL's E'...', where \' is a quote inside */
		escapes = 1;
	}
	q = s[v];
	if (q == '$' && v + 1 < sc->n && s[v + 1] == '$') {
		/* PostgreSQL's $$...$$ */
		const unsigned char *end = memmem(s + v + 2, sc->n - v - 2 < VALUE_CAP
								  ? sc->n - v - 2 : VALUE_CAP, "$$", 2);

		if (!end)
			return 0;
		v += 2;
		e = (size_t)(end - s);
	} else if (q == '\'' || q == '"') {
		for (e = ++v; e < sc->n && e - v < VALUE_CAP; e++) {
			if (escapes && s[e] == '\\' && e + 1 < sc->n && s[e + 1] != '\n')
				e++;
			else if (s[e] == q && e + 1 < sc->n && s[e + 1] == q)
				e++;   /* '' is a quote inside */
			else if (s[e] == q || HAS(sc, e, C_WS) || !s[e])
				break;
		}
		if (e >= sc->n || s[e] != q)
			return 0;   /* prose, or no end in sight */
	} else if (bare && HAS(sc, v, C_ALNUM)) {
		for (e = v; e < sc->n && e - v < VALUE_CAP && !HAS(sc, e, C_WS | C_QUOTE) && s[e] != ';';
		     e++)
			;
		if (e - v < 4 || !any_of(sc, v, e - v, C_DIG | C_UP) ||
		    is_nullish(s + v, e - v))
			return 0;   /* "identified by name", not a password */
		/* decided on a prefix: taken whole, never cut inside a
		 * character */
		while (e < sc->n && !HAS(sc, e, C_WS | C_QUOTE) && s[e] != ';')
			e++;
	} else {
		return 0;
	}
	if (e == v || is_placeholder(sc, v, e - v) || has_marker(sc, v, e - v))
		return 0;
	return found(m, v, e, "sql-password");
}

/* ---- a command given as words ----------------------------------------- */

/* Does the word a (a whole argv element) end with an option whose value is
 * the next word?  Its kind, or OPT_NONE. */
static int wants_value(const callus_redactor *r, const char *a, size_t len,
		       const struct callus_redact_tool *t, char *sep)
{
	struct scan sc;
	struct option o;

	memset(&sc, 0, sizeof(sc));
	sc.r = r;
	sc.s = (const unsigned char *)a;
	sc.n = len;
	sc.argv_tool = t;
	if (!len || a[0] != '-' || !parse_option(&sc, 0, &o) || o.kind == OPT_NONE ||
	    o.value < len || o.name_end != len)
		return OPT_NONE;
	*sep = o.sep;
	return o.kind;
}

/* The secret in the whole word a, the value of an option of this kind. */
static int raw_value(const callus_redactor *r, const char *a, size_t len, int kind, char sep,
		     struct match *m)
{
	struct scan sc;

	memset(&sc, 0, sizeof(sc));
	sc.r = r;
	sc.s = (const unsigned char *)a;
	sc.n = len;
	return option_value(&sc, 0, 0, kind, sep, V_RAW, m);
}

/* Is argv[i] a script for a shell: the word after sh -c, bash -lc, -ec? */
static int is_script(const char *const *argv, size_t i)
{
	const char *o = i ? argv[i - 1] : "";
	size_t l = strlen(o);

	if (l < 2 || o[0] != '-' || o[1] == '-' || o[l - 1] != 'c')
		return 0;
	for (size_t k = 1; k < l; k++)
		if (o[k] < 'a' || o[k] > 'z')
			return 0;
	return 1;
}

int callus_redact_argv(const callus_redactor *r, callus_buf *out, size_t argc,
		       const char *const *argv, size_t *count)
{
	struct callus_redact_tool t = { -1, 0 };
	callus_buf word = CALLUS_BUF_INIT, clean = CALLUS_BUF_INIT;
	size_t orig, total = 0, n1, i;
	int pending = OPT_NONE, rc = 0;
	char sep = ':';

	if (count)
		*count = 0;
	if (!r || !out || (argc && !argv))
		return CALLUS_EINVAL;
	for (i = 0; i < argc; i++)
		if (!argv[i])
			return CALLUS_EINVAL;
	orig = out->len;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		size_t len = strlen(a);
		struct match m = { 0, 0, 0, NULL };

		callus_buf_clear(&clean);
		if (!callus_text_is_clean(a, len, 0)) {
			if ((rc = callus_text_clean(&clean, a, len, 0)) < 0)
				goto out;
			a = clean.ptr;
			len = clean.len;
		}
		callus_buf_clear(&word);
		if (pending && len && a[0] != '-' && raw_value(r, a, len, pending, sep, &m)) {
			callus_buf_put(&word, a, m.start);
			callus_buf_printf(&word, "[REDACTED:%s]", m.kind);
			callus_buf_put(&word, a + m.end, len - m.end);
			total++;
			pending = OPT_NONE;
		} else {
			if ((rc = callus_redact_scan(r, &word, a, len, &t, !is_script(argv, i),
						     &n1)) < 0)
				goto out;
			total += n1;
			pending = wants_value(r, a, len, &t, &sep);
		}
		tool_step(&t, (const unsigned char *)a, len);
		if ((i && (rc = callus_buf_putc(out, ' ')) < 0) ||
		    (rc = callus_buf_status(&word)) < 0 ||
		    (rc = callus_shell_quote(out, word.ptr)) < 0)
			goto out;
	}
	if (count)
		*count = total;
out:
	if (rc < 0)
		callus_buf_truncate(out, orig);
	callus_buf_release(&word);
	callus_buf_release(&clean);
	return rc;
}
