/*
 * detect.c - is a shell command line a verification command (detect.h)?
 *
 * Three stages, all in memory and linear in the length of the line:
 *  1. lex: split the line into words and operators as a POSIX shell would,
 *     without expanding anything;
 *  2. classify each simple command: skip assignments, keywords and
 *     wrappers, and turn the program and its first arguments into the
 *     "match words" (normalized program name, subcommand or target);
 *  3. match the words against the whitelist and describe the first hit.
 *
 * The lexer is shlex.c.  The hook runs this on every command an agent executes, so the common case
 * (not a verification) must cost microseconds: no regex, no I/O, a handful
 * of allocations per call.
 */
#include "callus/detect.h"
#include "callus/buf.h"
#include "shlex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>


/* ------------------------------------------------------------------ */
/* The built-in whitelist (docs/config.md lists the same patterns).     */

#define LINT CALLUS_LESSON_LINT
#define TEST CALLUS_LESSON_TEST
#define ANALYSIS CALLUS_LESSON_ANALYSIS

/* `<pm> run <script>` for the scripts projects use to check themselves. */
#define PM_RUN_SCRIPTS(pm)                                   \
	{ pm " run test:*", NULL, TEST, 0 },                 \
	{ pm " run lint", NULL, LINT, 0 },                   \
	{ pm " run lint:*", NULL, LINT, 0 },                 \
	{ pm " run check", NULL, ANALYSIS, 0 },              \
	{ pm " run check:*", NULL, ANALYSIS, 0 },            \
	{ pm " run typecheck", NULL, ANALYSIS, 0 },          \
	{ pm " run type-check", NULL, ANALYSIS, 0 }

/* pnpm and yarn also run a script named without "run"; the tool name says
 * "run" anyway, so that both spellings are one check. */
#define PM_SHORT_SCRIPTS(pm)                                 \
	{ pm " test:*", pm " run *", TEST, 0 },              \
	{ pm " lint", pm " run lint", LINT, 0 },             \
	{ pm " lint:*", pm " run *", LINT, 0 },              \
	{ pm " check", pm " run check", ANALYSIS, 0 },       \
	{ pm " check:*", pm " run *", ANALYSIS, 0 },         \
	{ pm " typecheck", pm " run typecheck", ANALYSIS, 0 }, \
	{ pm " type-check", pm " run type-check", ANALYSIS, 0 }

static const callus_pattern builtins[] = {
	/* JavaScript and TypeScript */
	{ "eslint", NULL, LINT, 0 },
	{ "jest", NULL, TEST, 0 },
	{ "vitest", NULL, TEST, 0 },
	{ "mocha", NULL, TEST, 0 },
	{ "node --test", NULL, TEST, 0 },
	{ "tsc", NULL, ANALYSIS, 0 },
	/* Python */
	{ "pytest", NULL, TEST, 0 },
	{ "py.test", "pytest", TEST, 0 },
	{ "python -m pytest", "pytest", TEST, 0 },
	{ "python -m unittest", "unittest", TEST, 0 },
	{ "mypy", NULL, ANALYSIS, 0 },
	{ "python -m mypy", "mypy", ANALYSIS, 0 },
	{ "ruff", NULL, LINT, 0 },
	{ "python -m ruff", "ruff", LINT, 0 },
	{ "flake8", NULL, LINT, 0 },
	{ "python -m flake8", "flake8", LINT, 0 },
	{ "pylint", NULL, LINT, 0 },
	{ "python -m pylint", "pylint", LINT, 0 },
	/* Go and Rust */
	{ "go test", NULL, TEST, 0 },
	{ "go vet", NULL, ANALYSIS, 0 },
	{ "go build", NULL, ANALYSIS, 0 },
	{ "cargo test", NULL, TEST, 0 },
	{ "cargo build", NULL, ANALYSIS, 0 },
	{ "cargo check", NULL, ANALYSIS, 0 },
	{ "cargo clippy", NULL, ANALYSIS, 0 },
	{ "rustc", NULL, ANALYSIS, 0 },
	/* C and C++, shell */
	{ "gcc", NULL, ANALYSIS, 0 },
	{ "g++", NULL, ANALYSIS, 0 },
	{ "clang", NULL, ANALYSIS, 0 },
	{ "clang++", NULL, ANALYSIS, 0 },
	{ "cc", NULL, ANALYSIS, 0 },
	{ "c++", NULL, ANALYSIS, 0 },
	{ "make check", "make", TEST, 1 },
	{ "make test", "make", TEST, 1 },
	{ "make", NULL, ANALYSIS, 0 },
	{ "ctest", NULL, TEST, 0 },
	{ "cppcheck", NULL, LINT, 0 },
	{ "shellcheck", NULL, LINT, 0 },
	/* package managers */
	{ "npm test", NULL, TEST, 0 },
	{ "npm run test", "npm test", TEST, 0 },
	PM_RUN_SCRIPTS("npm"),
	{ "pnpm test", NULL, TEST, 0 },
	{ "pnpm run test", "pnpm test", TEST, 0 },
	PM_RUN_SCRIPTS("pnpm"),
	PM_SHORT_SCRIPTS("pnpm"),
	{ "yarn test", NULL, TEST, 0 },
	{ "yarn run test", "yarn test", TEST, 0 },
	PM_RUN_SCRIPTS("yarn"),
	PM_SHORT_SCRIPTS("yarn"),
	/* `bun test` is bun's own runner, `bun run test` the package script */
	{ "bun test", NULL, TEST, 0 },
	{ "bun run test", NULL, TEST, 0 },
	PM_RUN_SCRIPTS("bun"),
};

#define NBUILTIN (sizeof(builtins) / sizeof(builtins[0]))

const callus_pattern *callus_whitelist_builtin(size_t i)
{
	return i < NBUILTIN ? &builtins[i] : NULL;
}

struct callus_whitelist {
	callus_pattern *adds;             /* [verify] add, in file order; patterns owned */
	size_t nadds;
	unsigned char removed[NBUILTIN]; /* [verify] remove, by built-in index */
};

/* ------------------------------------------------------------------ */
/* Small helpers.                                                       */

struct span {
	const char *p;
	size_t len;
};

static int eq(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return n == len && !memcmp(p, lit, n);
}

/* Is p[0..len) one of the names in list, written "|a|b|c|"? */
static int in_list(const char *list, const char *p, size_t len)
{
	const char *q;

	if (!list || !len)
		return 0;
	for (q = list; (q = strchr(q, '|')) && q[1]; q++) {
		const char *e = strchr(q + 1, '|');

		if (!e)
			break;
		if ((size_t)(e - q - 1) == len && !memcmp(q + 1, p, len))
			return 1;
	}
	return 0;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ------------------------------------------------------------------ */
/* 2. Classifying a simple command.                                     */

struct word {
	const char *p;
	size_t len;
	unsigned char assign;
};

/* A match word: what the whitelist is compared with, and which word of the
 * command it stands for (several match words may share one: -mpytest). */
struct mword {
	const char *p;
	size_t len;
	size_t idx;
};

/* What a simple command does.  K_AGAIN, from the classify_* helpers: the
 * word at *ip is a new program to classify (a wrapper's command, a script). */
enum { K_AGAIN = -1, K_NONE, K_RUN, K_CD, K_CDBACK, K_NEST };

struct cmd {
	struct word *a;       /* the words, redirections removed */
	size_t n, cap_a;
	unsigned char *hide;  /* per word: not one of the tool's arguments */
	size_t cap_hide;
	struct mword *w;
	size_t nw, cap_w;
	struct span *dirs;    /* directory options (env -C, make -C, ...) */
	size_t ndirs, cap_dirs;
	size_t prog;          /* index of the program word (K_RUN) */
	struct span target;   /* K_CD: the directory; K_NEST: the command line */
	int nested;           /* an option gave a command line (npx -c) */
	int nomem;
};

/* How a program's options are read. */
struct opts {
	const char *shortarg; /* short options that take a value */
	const char *longarg;  /* "|a|b|": long options that take a value */
	char shortdir;        /* the option naming a working directory */
	const char *longdir;
	char shortnest;       /* the option whose value is a command line */
	const char *longnest;
	const char *stop;     /* short options after which nothing runs (command -v) */
};

/* A program that runs another one given after its own options. */
struct wrapper {
	const char *name;
	const char *sub;        /* a subcommand that must come first (uv run) */
	struct opts o;
	unsigned char operands; /* its own operands before the command (timeout) */
	unsigned char pkg;      /* the command may carry an @version (npx eslint@8) */
};

static const struct wrapper wrappers[] = {
	{ "env", NULL, { "uP", "|unset|", 'C', "chdir", 'S', "split-string", NULL }, 0, 0 },
	{ "time", NULL, { "fo", "|format|output|", 0, NULL, 0, NULL, NULL }, 0, 0 },
	{ "nice", NULL, { "n", "|adjustment|", 0, NULL, 0, NULL, NULL }, 0, 0 },
	{ "nohup", NULL, { NULL, NULL, 0, NULL, 0, NULL, NULL }, 0, 0 },
	{ "timeout", NULL, { "sk", "|signal|kill-after|", 0, NULL, 0, NULL, NULL }, 1, 0 },
	{ "sudo", NULL,
	  { "ugCprtUTR", "|user|group|close-from|prompt|role|type|other-user|command-timeout|"
			 "chroot|host|",
	    'D', "chdir", 0, NULL, "lVveK" },
	  0, 0 },
	{ "xvfb-run", NULL,
	  { "efnpsw", "|error-file|auth-file|server-num|xauth-protocol|server-args|wait|", 0,
	    NULL, 0, NULL, NULL },
	  0, 0 },
	{ "command", NULL, { NULL, NULL, 0, NULL, 0, NULL, "vV" }, 0, 0 },
	{ "exec", NULL, { "a", NULL, 0, NULL, 0, NULL, NULL }, 0, 0 },
	{ "stdbuf", NULL, { "ioe", "|input|output|error|", 0, NULL, 0, NULL, NULL }, 0, 0 },
	{ "xargs", NULL,
	  { "adEILnPs", "|arg-file|delimiter|max-args|max-procs|max-chars|process-slot-var|", 0,
	    NULL, 0, NULL, NULL },
	  0, 0 },
	{ "npx", NULL, { "p", "|package|", 0, NULL, 'c', "call", NULL }, 0, 1 },
	{ "pnpx", NULL, { "p", "|package|", 0, NULL, 'c', NULL, NULL }, 0, 1 },
	{ "bunx", NULL, { "p", "|package|", 0, NULL, 0, NULL, NULL }, 0, 1 },
	{ "uvx", NULL,
	  { "pw", "|from|with|python|with-requirements|with-editable|index|", 0, "directory", 0,
	    NULL, NULL },
	  0, 1 },
	{ "uv", "run",
	  { "pw", "|with|python|project|package|extra|group|env-file|index|only-group|no-group|"
		  "with-requirements|with-editable|config-file|",
	    0, "directory", 0, NULL, NULL },
	  0, 0 },
	{ "poetry", "run", { "P", "|project|", 'C', "directory", 0, NULL, NULL }, 0, 0 },
	{ "pipenv", "run", { NULL, NULL, 0, NULL, 0, NULL, NULL }, 0, 0 },
};

/* Package managers: options before the subcommand, the subcommands that run
 * a package's program (npm exec), npm's aliases (t, tst, run-script). */
struct pkgmgr {
	const char *name;
	struct opts o;
	const char *execs;
	unsigned char aliases;
	unsigned char bins;      /* `pnpm eslint` runs the eslint program */
	unsigned char workspace; /* `yarn workspace NAME <command>` */
};

static const struct pkgmgr pkgmgrs[] = {
	{ "npm", { "w", "|workspace|package|loglevel|registry|cache|userconfig|", 'C', "prefix", 'c',
		   "call", NULL },
	  "|exec|x|", 1, 0, 0 },
	{ "pnpm", { "F", "|filter|filter-prod|reporter|loglevel|package|", 'C', "dir", 'c', NULL,
		    NULL },
	  "|exec|dlx|", 1, 1, 0 },
	{ "yarn", { "p", "|package|", 0, "cwd", 0, NULL, NULL }, "|exec|dlx|", 0, 1, 1 },
	{ "bun", { "F", "|filter|", 0, "cwd", 0, NULL, NULL }, "|x|", 0, 0, 0 },
};

static const struct opts go_opts = { NULL, NULL, 'C', NULL, 0, NULL, NULL };
static const struct opts cargo_opts = { "Z", "|config|color|", 'C', NULL, 0, NULL, NULL };

/* Shells whose -c STRING is looked into. */
static const char shells[] = "|sh|bash|dash|zsh|ksh|ash|mksh|";

static void add_dir(struct cmd *c, const char *p, size_t len)
{
	struct span *v = callus_array_grow(c->dirs, &c->cap_dirs, c->ndirs + 1, sizeof(*v));

	if (!v) {
		c->nomem = 1;
		return;
	}
	c->dirs = v;
	v[c->ndirs].p = p;
	v[c->ndirs].len = len;
	c->ndirs++;
}

static void add_mword(struct cmd *c, const char *p, size_t len, size_t idx)
{
	struct mword *v = callus_array_grow(c->w, &c->cap_w, c->nw + 1, sizeof(*v));

	if (!v) {
		c->nomem = 1;
		return;
	}
	c->w = v;
	v[c->nw].p = p;
	v[c->nw].len = len;
	v[c->nw].idx = idx;
	c->nw++;
}

/* The match words after the program: every word from i on. */
static void add_rest(struct cmd *c, size_t i)
{
	for (; i < c->n; i++)
		add_mword(c, c->a[i].p, c->a[i].len, i);
}

/* An option's value: the rest of the word, or the next word (hidden, as
 * every value is when hide_all; a directory always). */
static void take_value(struct cmd *c, size_t *i, const char *rest, size_t restlen, int kind,
		       int hide_all)
{
	const char *p = rest;
	size_t len = restlen;

	if (!restlen) {
		if (*i + 1 >= c->n)
			return;
		++*i;
		p = c->a[*i].p;
		len = c->a[*i].len;
		if (hide_all || kind)
			c->hide[*i] = 1;
	}
	if (kind == 1)
		add_dir(c, p, len);
	else if (kind == 2) {
		c->target.p = p;
		c->target.len = len;
		c->nested = 1;
	}
}

/*
 * Step over the options at c->a[*ip...], up to the first operand (or just
 * past "--").  Option words are hidden when hide_all (a wrapper's options
 * are not the tool's arguments), directory options always.  Returns -1
 * when an option means no command runs.
 */
static int skip_opts(struct cmd *c, size_t *ip, const struct opts *o, int hide_all)
{
	size_t i = *ip;

	for (; i < c->n; i++) {
		const char *p = c->a[i].p;
		size_t len = c->a[i].len;

		if (!len || p[0] != '-')
			break;
		if (eq(p, len, "--")) {
			c->hide[i] |= (unsigned char)hide_all;
			i++;
			break;
		}
		if (len > 2 && p[1] == '-') {
			const char *name = p + 2, *equal = memchr(p, '=', len);
			size_t nlen = (equal ? (size_t)(equal - p) : len) - 2;
			int kind = 0;

			if (o->longdir && eq(name, nlen, o->longdir))
				kind = 1;
			else if (o->longnest && eq(name, nlen, o->longnest))
				kind = 2;
			c->hide[i] |= (unsigned char)(hide_all || kind == 1);
			if (equal)
				take_value(c, &i, equal + 1, len - (size_t)(equal + 1 - p), kind,
					   hide_all);
			else if (kind || in_list(o->longarg, name, nlen))
				take_value(c, &i, NULL, 0, kind, hide_all);
			continue;
		}
		c->hide[i] |= (unsigned char)hide_all;
		for (size_t k = 1; k < len; k++) {
			char ch = p[k];
			int kind = ch == o->shortdir ? 1 : ch == o->shortnest ? 2 : 0;

			if (o->stop && strchr(o->stop, ch))
				return -1;
			if (kind || (o->shortarg && strchr(o->shortarg, ch))) {
				c->hide[i] |= (unsigned char)(kind == 1);
				take_value(c, &i, p + k + 1, len - k - 1, kind, hide_all);
				break;
			}
		}
	}
	*ip = i;
	return 0;
}

/* The program's name as the whitelist knows it: the base name, without a
 * version (python3.11 -> python, gcc-12 -> gcc), an npm @version (pkg) or a
 * script extension (script, for `node node_modules/.bin/jest.js`). */
static struct span prog_name(const char *p, size_t len, int pkg, int script)
{
	struct span r;
	size_t k;

	for (k = len; k > 0 && p[k - 1] != '/'; k--)
		;
	r.p = p + k;
	r.len = len - k;
	if (pkg && r.len > 1) {
		const char *at = memchr(r.p + 1, '@', r.len - 1);

		if (at)
			r.len = (size_t)(at - r.p);
	}
	if (script) {
		static const char *const exts[] = { ".js", ".cjs", ".mjs" };

		for (size_t e = 0; e < 3; e++) {
			size_t el = strlen(exts[e]);

			if (r.len > el && !memcmp(r.p + r.len - el, exts[e], el)) {
				r.len -= el;
				break;
			}
		}
	}
	if (r.len >= 6 && !memcmp(r.p, "python", 6)) {
		for (k = 6; k < r.len && (is_digit(r.p[k]) || r.p[k] == '.'); k++)
			;
		if (k == r.len)
			r.len = 6;
		return r;
	}
	for (k = r.len; k > 0 && (is_digit(r.p[k - 1]) || r.p[k - 1] == '.'); k--)
		;
	if (k < r.len && k > 1 && r.p[k - 1] == '-' && is_digit(r.p[k]))
		r.len = k - 1;
	return r;
}

static const callus_pattern *rule_at(const callus_whitelist *wl, size_t i)
{
	if (wl) {
		if (i < wl->nadds)
			return &wl->adds[i];
		i -= wl->nadds;
	}
	return i < NBUILTIN ? &builtins[i] : NULL;
}

static int rule_removed(const callus_whitelist *wl, size_t i)
{
	if (!wl)
		return 0;
	if (i < wl->nadds)
		return 0;
	return wl->removed[i - wl->nadds];
}

/* Is there a one-word pattern for this program (`pnpm eslint .` runs it)? */
static int is_tool_program(const callus_whitelist *wl, struct span name)
{
	const callus_pattern *r;

	for (size_t i = 0; (r = rule_at(wl, i)); i++)
		if (!rule_removed(wl, i) && eq(name.p, name.len, r->pattern))
			return 1;
	return 0;
}

static int parse_cd(struct cmd *c, size_t i)
{
	static const char home[] = "~";

	for (i++; i < c->n && c->a[i].len > 1 && c->a[i].p[0] == '-'; i++)
		if (eq(c->a[i].p, c->a[i].len, "--")) {
			i++;
			break;
		}
	if (i >= c->n) {
		c->target.p = home;
		c->target.len = 1;
		return K_CD;
	}
	if (eq(c->a[i].p, c->a[i].len, "-"))
		return K_CDBACK;
	c->target.p = c->a[i].p;
	c->target.len = c->a[i].len;
	return K_CD;
}

/* `sh [options] -c STRING` or `sh script`. */
static int classify_shell(struct cmd *c, size_t *ip)
{
	size_t i = *ip + 1;
	int saw_c = 0, saw_s = 0;

	while (i < c->n && c->a[i].len && (c->a[i].p[0] == '-' || c->a[i].p[0] == '+')) {
		const char *p = c->a[i].p;
		size_t len = c->a[i].len, values = 0;

		if (len == 1 || eq(p, len, "--")) {
			i++;
			break;
		}
		if (p[1] == '-') {
			i += in_list("|rcfile|init-file|", p + 2, len - 2) ? 2 : 1;
			continue;
		}
		for (size_t k = 1; k < len; k++) {
			if (p[k] == 'c' && p[0] == '-')
				saw_c = 1;
			else if (p[k] == 's' && p[0] == '-')
				saw_s = 1;
			else if (p[k] == 'o' || p[k] == 'O')
				values++;
		}
		i += 1 + values;
	}
	if (saw_c) {
		if (i >= c->n)
			return K_NONE;
		c->target.p = c->a[i].p;
		c->target.len = c->a[i].len;
		return K_NEST;
	}
	if (saw_s || i >= c->n)
		return K_NONE;
	*ip = i; /* a script: it is the program */
	return K_RUN;
}

/* `python [options] -m MODULE ...`. */
static int classify_python(struct cmd *c, size_t i, struct span name)
{
	size_t j;

	for (j = i + 1; j < c->n; j++) {
		const char *p = c->a[j].p;
		size_t len = c->a[j].len;

		if (len < 2 || p[0] != '-')
			break;
		if (eq(p, len, "--")) {
			j++;
			break;
		}
		if (p[1] == '-') {
			if (eq(p, len, "--check-hash-based-pycs"))
				j++;
			continue;
		}
		for (size_t k = 1; k < len; k++) {
			if (p[k] == 'c')
				return K_NONE; /* python -c CODE: a program text, not a tool */
			if (p[k] == 'm') {
				add_mword(c, name.p, name.len, i);
				add_mword(c, "-m", 2, j);
				if (k + 1 < len) {
					add_mword(c, p + k + 1, len - k - 1, j);
				} else if (j + 1 < c->n) {
					j++;
					add_mword(c, c->a[j].p, c->a[j].len, j);
				}
				add_rest(c, j + 1);
				return K_RUN;
			}
			if (p[k] == 'W' || p[k] == 'X') {
				if (k + 1 == len)
					j++;
				break;
			}
		}
	}
	add_mword(c, name.p, name.len, i);
	add_rest(c, j);
	return K_RUN;
}

/* `make [options] [VAR=value] [targets]`: the targets are the match words
 * (GNU make accepts options among them). */
static int classify_make(struct cmd *c, size_t i, struct span name)
{
	add_mword(c, name.p, name.len, i);
	for (size_t k = i + 1; k < c->n; k++) {
		const char *p = c->a[k].p;
		size_t len = c->a[k].len;

		if (c->a[k].assign)
			continue;
		if (len < 2 || p[0] != '-') {
			add_mword(c, p, len, k);
			continue;
		}
		if (eq(p, len, "--")) {
			for (k++; k < c->n; k++)
				if (!c->a[k].assign)
					add_mword(c, c->a[k].p, c->a[k].len, k);
			break;
		}
		if (p[1] == '-') {
			const char *equal = memchr(p, '=', len);
			size_t nlen = (equal ? (size_t)(equal - p) : len) - 2;

			if (eq(p + 2, nlen, "directory")) {
				c->hide[k] = 1;
				if (equal)
					add_dir(c, equal + 1, len - (size_t)(equal + 1 - p));
				else
					take_value(c, &k, NULL, 0, 1, 1);
			} else if (!equal &&
				   in_list("|file|makefile|include-dir|old-file|assume-old|new-file|"
					   "assume-new|what-if|eval|",
					   p + 2, nlen) &&
				   k + 1 < c->n) {
				k++;
			}
			continue;
		}
		for (size_t m = 1; m < len; m++) {
			char ch = p[m];

			if (ch == 'C') {
				c->hide[k] = 1;
				take_value(c, &k, p + m + 1, len - m - 1, 1, 1);
				break;
			}
			if (strchr("fIoWE", ch)) {
				if (m + 1 == len && k + 1 < c->n)
					k++;
				break;
			}
			if (ch == 'j' || ch == 'l') {
				/* the value is optional: only a number that follows is one */
				if (m + 1 == len && k + 1 < c->n && c->a[k + 1].len &&
				    strspn(c->a[k + 1].p, "0123456789.") == c->a[k + 1].len)
					k++;
				break;
			}
		}
	}
	return K_RUN;
}

/* A wrapper at c->a[*ip]: step over it and its options to its command. */
static int classify_wrapper(struct cmd *c, size_t *ip, struct span name, int *pkg)
{
	size_t i = *ip, j;

	for (size_t k = 0; k < sizeof(wrappers) / sizeof(wrappers[0]); k++) {
		const struct wrapper *w = &wrappers[k];
		size_t saved = c->ndirs;

		if (!eq(name.p, name.len, w->name))
			continue;
		j = i + 1;
		if (skip_opts(c, &j, &w->o, 1) < 0)
			return K_NONE;
		if (w->sub) {
			if (j >= c->n || !eq(c->a[j].p, c->a[j].len, w->sub)) {
				/* `uv pip install`: not the wrapper form */
				c->ndirs = saved;
				memset(c->hide + i + 1, 0, (j < c->n ? j : c->n) - i - 1);
				return K_RUN;
			}
			c->hide[j++] = 1;
			if (skip_opts(c, &j, &w->o, 1) < 0)
				return K_NONE;
		}
		if (c->nested)
			return K_NEST;
		for (unsigned o = 0; o < w->operands && j < c->n; o++)
			c->hide[j++] = 1;
		*pkg = w->pkg;
		*ip = j;
		return K_AGAIN;
	}
	return K_RUN;
}

/* `node [options] --test ...`, or node running a tool's script. */
static int classify_node(struct cmd *c, size_t *ip, struct span name, int *script)
{
	size_t i = *ip, j, test = 0;

	for (j = i + 1; j < c->n && c->a[j].len > 1 && c->a[j].p[0] == '-'; j++) {
		if (eq(c->a[j].p, c->a[j].len, "--")) {
			j++;
			break;
		}
		if (eq(c->a[j].p, c->a[j].len, "--test"))
			test = j;
		else if (in_list("|-r|--require|--import|--loader|--experimental-loader|-C|"
				 "--conditions|",
				 c->a[j].p, c->a[j].len))
			j++;
	}
	if (test) {
		add_mword(c, name.p, name.len, i);
		add_mword(c, c->a[test].p, c->a[test].len, test);
		add_rest(c, j);
		return K_RUN;
	}
	/* `node node_modules/.bin/jest`: the tool is the script; any other
	 * script is the project's own program */
	if (j < c->n && memmem(c->a[j].p, c->a[j].len, "node_modules/", 13)) {
		memset(c->hide + i, 1, j - i);
		*script = 1;
		*ip = j;
		return K_AGAIN;
	}
	add_mword(c, name.p, name.len, i);
	add_rest(c, i + 1);
	return K_RUN;
}

/* `npm|pnpm|yarn|bun [options] SUBCOMMAND ...`. */
static int classify_pkgmgr(const callus_whitelist *wl, struct cmd *c, size_t *ip,
			   const struct pkgmgr *pm, struct span name, int *pkg)
{
	size_t i = *ip, j = i + 1;
	struct span sub;

	for (;;) {
		if (skip_opts(c, &j, &pm->o, 0) < 0)
			return K_NONE;
		if (c->nested)
			return K_NEST;
		if (!pm->workspace || j + 1 >= c->n || !eq(c->a[j].p, c->a[j].len, "workspace"))
			break;
		j += 2; /* yarn workspace NAME: an argument, as --filter NAME is */
	}
	if (j >= c->n)
		return K_NONE;
	sub.p = c->a[j].p;
	sub.len = c->a[j].len;
	if (pm->aliases) {
		if (eq(sub.p, sub.len, "t") || eq(sub.p, sub.len, "tst")) {
			sub.p = "test";
			sub.len = 4;
		} else if (eq(sub.p, sub.len, "run-script")) {
			sub.p = "run";
			sub.len = 3;
		}
	}
	if (in_list(pm->execs, sub.p, sub.len)) {
		j++;
		if (skip_opts(c, &j, &pm->o, 1) < 0)
			return K_NONE;
		if (c->nested)
			return K_NEST;
		memset(c->hide + i, 1, j - i);
		*pkg = 1;
		*ip = j;
		return K_AGAIN;
	}
	if (pm->bins && is_tool_program(wl, prog_name(sub.p, sub.len, 1, 0))) {
		memset(c->hide + i, 1, j - i);
		*pkg = 1;
		*ip = j;
		return K_AGAIN;
	}
	add_mword(c, name.p, name.len, i);
	add_mword(c, sub.p, sub.len, j);
	j++;
	if (eq(sub.p, sub.len, "run")) {
		if (skip_opts(c, &j, &pm->o, 0) < 0)
			return K_NONE;
		if (c->nested)
			return K_NEST;
	}
	add_rest(c, j);
	return K_RUN;
}

/* `go [-C dir] SUBCOMMAND`, `cargo [+toolchain] [options] SUBCOMMAND`. */
static int classify_subcommand(struct cmd *c, size_t i, struct span name)
{
	int cargo = name.p[0] == 'c';
	size_t j = i + 1;

	if (cargo && j < c->n && c->a[j].len && c->a[j].p[0] == '+')
		j++;
	if (skip_opts(c, &j, cargo ? &cargo_opts : &go_opts, 0) < 0)
		return K_NONE;
	add_mword(c, name.p, name.len, i);
	add_rest(c, j);
	return K_RUN;
}

/*
 * Work out what the simple command c->a[0..n) runs.  K_RUN fills c->w
 * (match words), c->prog, c->hide and c->dirs; K_CD and K_NEST set
 * c->target.
 */
static int classify(const callus_whitelist *wl, struct cmd *c)
{
	size_t i = 0;
	int pkg = 0, script = 0, kind = K_AGAIN;

	memset(c->hide, 0, c->n);
	c->nw = 0;
	c->ndirs = 0;
	c->nested = 0;
	while (kind == K_AGAIN) {
		const struct pkgmgr *pm = NULL;
		const struct word *a;
		struct span name;

		while (i < c->n && c->a[i].assign)
			c->hide[i++] = 1;
		if (i >= c->n)
			return K_NONE;
		a = &c->a[i];
		c->hide[i] = 1;
		c->prog = i;
		if (in_list("|!|{|if|then|else|elif|do|while|until|", a->p, a->len)) {
			i++;
			continue;
		}
		if (eq(a->p, a->len, "cd") || eq(a->p, a->len, "pushd"))
			return parse_cd(c, i);
		if (eq(a->p, a->len, "popd"))
			return K_CDBACK;
		name = prog_name(a->p, a->len, pkg, script);
		pkg = script = 0;

		if ((kind = classify_wrapper(c, &i, name, &pkg)) != K_RUN)
			continue;
		if (in_list(shells, name.p, name.len)) {
			size_t j = i;

			if ((kind = classify_shell(c, &j)) == K_RUN) {
				/* a script: it is the program */
				memset(c->hide + i, 1, j - i);
				i = j;
				kind = K_AGAIN;
			}
			continue;
		}
		if (eq(name.p, name.len, "node")) {
			kind = classify_node(c, &i, name, &script);
			continue;
		}
		if (eq(name.p, name.len, "python"))
			return classify_python(c, i, name);
		if (eq(name.p, name.len, "make"))
			return classify_make(c, i, name);
		for (size_t k = 0; k < sizeof(pkgmgrs) / sizeof(pkgmgrs[0]); k++)
			if (eq(name.p, name.len, pkgmgrs[k].name))
				pm = &pkgmgrs[k];
		if (pm) {
			kind = classify_pkgmgr(wl, c, &i, pm, name, &pkg);
			continue;
		}
		if (eq(name.p, name.len, "go") || eq(name.p, name.len, "cargo"))
			return classify_subcommand(c, i, name);

		add_mword(c, name.p, name.len, i);
		add_rest(c, i + 1);
		return K_RUN;
	}
	return kind;
}

/* ------------------------------------------------------------------ */
/* 3. Matching, and describing the match.                               */

/* How many of w[] the pattern matches, 0 for none; *glob is the index of
 * the word its '*' word matched (SIZE_MAX if it has none). */
static size_t match_pattern(const char *pat, const struct mword *w, size_t nw, size_t *glob)
{
	size_t k = 0;

	*glob = SIZE_MAX;
	for (const char *p = pat; *p; k++) {
		const char *sp = strchr(p, ' ');
		size_t plen = sp ? (size_t)(sp - p) : strlen(p);

		if (k >= nw)
			return 0;
		if (plen && p[plen - 1] == '*') {
			if (w[k].len < plen - 1 || memcmp(w[k].p, p, plen - 1))
				return 0;
			if (*glob == SIZE_MAX)
				*glob = k;
		} else if (w[k].len != plen || memcmp(w[k].p, p, plen)) {
			return 0;
		}
		if (!sp) {
			k++;
			break;
		}
		p = sp + 1;
	}
	return k;
}

/* State for one command line (the outer one, or a `sh -c` string). */
struct run {
	const callus_whitelist *wl;
	unsigned depth;
	const char *base;   /* the directory from an outer line's cd, or NULL */
	callus_shtoks toks;
	struct cmd cmd;
	struct span *cds;   /* the cd targets in effect, in order */
	size_t ncds, cap_cds;
	size_t *stack;      /* ncds at each open parenthesis: a subshell's cd ends with it */
	size_t nstack, cap_stack;
	int pipefail;       /* the line sets it: a pipeline fails when the tool does */
};

static int detect_text(const callus_whitelist *wl, const char *s, size_t n, unsigned depth,
		       const char *base, callus_detection *out);

static void free_run(struct run *r)
{
	free(r->toks.v);
	callus_buf_release(&r->toks.text);
	free(r->cmd.a);
	free(r->cmd.hide);
	free(r->cmd.w);
	free(r->cmd.dirs);
	free(r->cds);
	free(r->stack);
}

static int safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       (c && strchr("_@%+=:,./-", c));
}

/* Append a word so that a shell would read it back as one word. */
static void put_quoted(callus_buf *b, const char *p, size_t len)
{
	size_t k = 0;

	while (k < len && safe_char(p[k]))
		k++;
	if (len && k == len) {
		callus_buf_put(b, p, len);
		return;
	}
	callus_buf_putc(b, '\'');
	for (k = 0; k < len; k++) {
		if (p[k] == '\'')
			callus_buf_puts(b, "'\\''");
		else
			callus_buf_putc(b, p[k]);
	}
	callus_buf_putc(b, '\'');
}

static void add_component(callus_buf *b, const char *p, size_t len)
{
	if (!len)
		return;
	if (p[0] == '/' || p[0] == '~')
		callus_buf_clear(b);
	else if (b->len)
		callus_buf_putc(b, '/');
	callus_buf_put(b, p, len);
}

/* The directory the current command runs in (detect.h, `dir`): *out is
 * NULL when it is the directory the line started in. */
static int join_dirs(char **out, const struct run *r)
{
	callus_buf raw = CALLUS_BUF_INIT, norm = CALLUS_BUF_INIT;
	const char *p, *end;
	int rc = 0;

	*out = NULL;
	if (r->base)
		add_component(&raw, r->base, strlen(r->base));
	for (size_t i = 0; i < r->ncds; i++)
		add_component(&raw, r->cds[i].p, r->cds[i].len);
	for (size_t i = 0; i < r->cmd.ndirs; i++)
		add_component(&raw, r->cmd.dirs[i].p, r->cmd.dirs[i].len);
	p = raw.ptr;
	end = raw.ptr + raw.len;
	if (p < end && *p == '/')
		callus_buf_putc(&norm, '/');
	while (p < end) {
		const char *sl = memchr(p, '/', (size_t)(end - p));
		size_t len = sl ? (size_t)(sl - p) : (size_t)(end - p);

		if (len && !(len == 1 && *p == '.')) {
			if (norm.len && norm.ptr[norm.len - 1] != '/')
				callus_buf_putc(&norm, '/');
			callus_buf_put(&norm, p, len);
		}
		p += len + 1;
	}
	if (callus_buf_status(&raw) < 0 || callus_buf_status(&norm) < 0)
		rc = CALLUS_ENOMEM;
	else if (norm.len && !(*out = callus_buf_detach(&norm)))
		rc = CALLUS_ENOMEM;
	callus_buf_release(&raw);
	callus_buf_release(&norm);
	return rc;
}

/* Fill *out for the matched command; 0 (and nothing filled) when it only
 * asks the tool for its version or help. */
static int describe(struct run *r, const callus_pattern *rule, size_t k, size_t glob,
		    callus_detection *out)
{
	struct cmd *c = &r->cmd;
	callus_buf tool = CALLUS_BUF_INIT, args = CALLUS_BUF_INIT;
	size_t absorb = rule->name_words && rule->name_words < k ? rule->name_words : k;
	size_t nargs = 0, ninfo = 0;
	char *dir = NULL;
	int rc = 0;

	for (size_t m = 0; m < absorb; m++)
		c->hide[c->w[m].idx] = 1;
	for (size_t i = c->prog + 1; i < c->n; i++) {
		if (c->hide[i])
			continue;
		if (nargs++)
			callus_buf_putc(&args, ' ');
		put_quoted(&args, c->a[i].p, c->a[i].len);
		ninfo += (size_t)in_list("|--version|--help|-h|-V|", c->a[i].p, c->a[i].len);
	}
	if (nargs && ninfo == nargs)
		goto out;

	if (!rule->tool) {
		for (size_t m = 0; m < k; m++) {
			if (m)
				callus_buf_putc(&tool, ' ');
			callus_buf_put(&tool, c->w[m].p, c->w[m].len);
		}
	} else {
		for (const char *t = rule->tool; *t; t++) {
			if (*t == '*' && glob != SIZE_MAX)
				callus_buf_put(&tool, c->w[glob].p, c->w[glob].len);
			else
				callus_buf_putc(&tool, *t);
		}
	}
	if ((rc = join_dirs(&dir, r)) < 0)
		goto out;
	if (callus_buf_status(&tool) < 0 || callus_buf_status(&args) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (!(out->tool = callus_buf_detach(&tool)) || !(out->args = callus_buf_detach(&args))) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	out->verification = 1;
	out->category = rule->category;
	out->dir = dir;
	dir = NULL;
	rc = 1;
out:
	free(dir);
	callus_buf_release(&tool);
	callus_buf_release(&args);
	return rc;
}

/* Returns 1 when the command is a verification (out filled), 0 when not,
 * or a negative error. */
static int eval_command(struct run *r, callus_detection *out)
{
	struct cmd *c = &r->cmd;
	const callus_pattern *best = NULL, *rule;
	size_t best_k = 0, best_glob = SIZE_MAX;
	unsigned char *hide;
	struct span *cds;
	char *dir = NULL;
	int rc;

	if (!(hide = callus_array_grow(c->hide, &c->cap_hide, c->n, 1)))
		return CALLUS_ENOMEM;
	c->hide = hide;
	c->nomem = 0;
	switch (classify(r->wl, c)) {
	case K_RUN:
		break;
	case K_CD:
		if (!(cds = callus_array_grow(r->cds, &r->cap_cds, r->ncds + 1, sizeof(*cds))))
			return CALLUS_ENOMEM;
		r->cds = cds;
		cds[r->ncds++] = c->target;
		return c->nomem ? CALLUS_ENOMEM : 0;
	case K_CDBACK:
		r->ncds = 0;
		return 0;
	case K_NEST:
		if (c->nomem)
			return CALLUS_ENOMEM;
		if (r->depth >= 1)
			return 0; /* one level deep is what agents write */
		if ((rc = join_dirs(&dir, r)) < 0)
			return rc;
		rc = detect_text(r->wl, c->target.p, c->target.len, r->depth + 1, dir, out);
		free(dir);
		return rc < 0 ? rc : out->verification;
	default:
		return c->nomem ? CALLUS_ENOMEM : 0;
	}
	if (c->nomem)
		return CALLUS_ENOMEM;

	/* the longest match wins; on a tie the earlier rule, so added
	 * patterns override built-ins */
	for (size_t i = 0; (rule = rule_at(r->wl, i)); i++) {
		size_t glob, k;

		if (rule_removed(r->wl, i))
			continue;
		k = match_pattern(rule->pattern, c->w, c->nw, &glob);
		if (k > best_k) {
			best = rule;
			best_k = k;
			best_glob = glob;
		}
	}
	return best ? describe(r, best, best_k, best_glob, out) : 0;
}

/*
 * Whether the line's exit status can differ from that of the tool whose
 * simple command ends at token t: a pipe after it (without pipefail), an
 * `||`, a `&`, or a `;` with more to run; after `&&` the same is asked of
 * the list that follows (`eslint . && true || true`).  Parentheses close
 * without changing anything: a subshell's status is its last command's.
 */
static int status_masked(const struct run *r, size_t t)
{
	int first = 1;

	for (; t < r->toks.n; t++) {
		const callus_shtok *tk = &r->toks.v[t];

		if (tk->kind != T_END)
			continue;
		switch (tk->sep) {
		case '|':
			if (first && !r->pipefail)
				return 1;
			break;
		case 'o':
		case '&':
			return 1;
		case 'a':
			break;
		default:
			for (size_t u = t + 1; u < r->toks.n; u++)
				if (r->toks.v[u].kind == T_WORD)
					return 1;
			return 0;
		}
		first = 0;
	}
	return 0;
}

/* Collect the words of each simple command (redirections dropped) and
 * evaluate them in order until one is a verification. */
static int walk(struct run *r, callus_detection *out)
{
	int skip = 0, rc;

	for (size_t t = 0;; t++) {
		const callus_shtok *tk = t < r->toks.n ? &r->toks.v[t] : NULL;

		if (tk && tk->kind == T_WORD) {
			struct word *v;

			if (skip) { /* a redirection's target */
				skip = 0;
				continue;
			}
			if (!(v = callus_array_grow(r->cmd.a, &r->cmd.cap_a, r->cmd.n + 1, sizeof(*v))))
				return CALLUS_ENOMEM;
			r->cmd.a = v;
			v[r->cmd.n].p = r->toks.text.ptr + tk->off;
			v[r->cmd.n].len = tk->len;
			v[r->cmd.n].assign = tk->assign;
			r->cmd.n++;
			continue;
		}
		if (tk && tk->kind == T_REDIR) {
			skip = 1;
			continue;
		}
		skip = 0;
		if (r->cmd.n) {
			int negated = eq(r->cmd.a[0].p, r->cmd.a[0].len, "!");

			rc = eval_command(r, out);
			r->cmd.n = 0;
			if (rc == 1 && (negated || status_masked(r, t)))
				out->status_masked = 1;
			if (rc)
				return rc;
		}
		if (!tk)
			return 0;
		if (tk->kind == T_LPAREN) {
			size_t *st = callus_array_grow(r->stack, &r->cap_stack, r->nstack + 1, sizeof(*st));

			if (!st)
				return CALLUS_ENOMEM;
			r->stack = st;
			st[r->nstack++] = r->ncds;
		} else if (tk->kind == T_RPAREN && r->nstack) {
			size_t saved = r->stack[--r->nstack];

			if (saved < r->ncds)
				r->ncds = saved;
		}
	}
}

static int detect_text(const callus_whitelist *wl, const char *s, size_t n, unsigned depth,
		       const char *base, callus_detection *out)
{
		struct run r;
	int rc;

	memset(&r, 0, sizeof(r));
	callus_buf_init(&r.toks.text, 0);
	r.wl = wl;
	r.depth = depth;
	r.base = base;
	r.pipefail = memmem(s, n, "pipefail", 8) != NULL;
	rc = callus_shlex(s, n, &r.toks);
	if (rc == 0)
		rc = walk(&r, out);
	else if (rc == CALLUS_SHLEX_SYNTAX)
		rc = 0; /* a shell would refuse the line: nothing runs */
	free_run(&r);
	return rc < 0 ? rc : 0;
}

int callus_detect(callus_detection *out, const callus_whitelist *wl, const char *command,
		callus_error *err)
{
	int rc;

	if (!out || !command)
		return callus_error_set(err, CALLUS_EINVAL, "callus_detect: no output or command");
	memset(out, 0, sizeof(*out));
	out->category = CALLUS_LESSON_OTHER;
	if ((rc = detect_text(wl, command, strlen(command), 0, NULL, out)) < 0) {
		callus_detection_release(out);
		return callus_error_set(err, rc, "out of memory");
	}
	return 0;
}

void callus_detection_release(callus_detection *d)
{
	if (!d)
		return;
	free(d->tool);
	free(d->dir);
	free(d->args);
	memset(d, 0, sizeof(*d));
	d->category = CALLUS_LESSON_OTHER;
}

/* ------------------------------------------------------------------ */
/* The whitelist from the config.                                       */

static int parse_category(const char *p, size_t len, callus_lesson_type *out)
{
	/* upper case only, so that `add = just test` is not read as a TEST */
	static const struct {
		const char *name;
		callus_lesson_type type;
	} cats[] = {
		{ "LINT", CALLUS_LESSON_LINT },
		{ "TEST", CALLUS_LESSON_TEST },
		{ "ANALYSIS", CALLUS_LESSON_ANALYSIS },
		{ "OTHER", CALLUS_LESSON_OTHER },
	};

	for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
		if (eq(p, len, cats[i].name)) {
			*out = cats[i].type;
			return 1;
		}
	return 0;
}

/* Normalize an added pattern as commands are normalized (so that
 * `./scripts/check.sh` is "check.sh" and `python3 -m tox` "python -m tox")
 * into pat.  CALLUS_EINVAL with *why for the user. */
static int normalize_pattern(callus_buf *pat, const char *text, size_t len, const char **why)
{
		struct run r;
	unsigned char *hide;
	int rc;

	memset(&r, 0, sizeof(r));
	callus_buf_init(&r.toks.text, 0);
	rc = callus_shlex(text, len, &r.toks);
	if (rc == CALLUS_SHLEX_SYNTAX) {
		*why = "cannot be parsed (unbalanced quote or parenthesis?)";
		rc = CALLUS_EINVAL;
	}
	if (rc < 0)
		goto out;
	for (size_t t = 0; t < r.toks.n; t++) {
		struct word *v;

		if (r.toks.v[t].kind != T_WORD) {
			*why = "must be one command, without operators or redirections";
			rc = CALLUS_EINVAL;
			goto out;
		}
		if (!(v = callus_array_grow(r.cmd.a, &r.cmd.cap_a, r.cmd.n + 1, sizeof(*v)))) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
		r.cmd.a = v;
		v[r.cmd.n].p = r.toks.text.ptr + r.toks.v[t].off;
		v[r.cmd.n].len = r.toks.v[t].len;
		v[r.cmd.n].assign = r.toks.v[t].assign;
		r.cmd.n++;
	}
	rc = CALLUS_EINVAL;
	if (!r.cmd.n) {
		*why = "is empty";
		goto out;
	}
	if (!(hide = callus_array_grow(r.cmd.hide, &r.cmd.cap_hide, r.cmd.n, 1))) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	r.cmd.hide = hide;
	if (classify(NULL, &r.cmd) != K_RUN || !r.cmd.nw) {
		*why = r.cmd.nomem ? "" : "does not name a program";
		rc = r.cmd.nomem ? CALLUS_ENOMEM : CALLUS_EINVAL;
		goto out;
	}
	if (r.cmd.nomem) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (!r.cmd.w[0].len || r.cmd.w[0].p[r.cmd.w[0].len - 1] == '*') {
		*why = "cannot start with a wildcard";
		goto out;
	}
	for (size_t m = 0; m < r.cmd.nw; m++) {
		const struct mword *w = &r.cmd.w[m];

		if (!w->len || memchr(w->p, ' ', w->len) || memchr(w->p, '\t', w->len) ||
		    memchr(w->p, '\n', w->len)) {
			*why = "has an empty word or a word with spaces";
			goto out;
		}
		if (m)
			callus_buf_putc(pat, ' ');
		callus_buf_put(pat, w->p, w->len);
	}
	rc = callus_buf_status(pat) < 0 ? CALLUS_ENOMEM : 0;
out:
	free_run(&r);
	return rc;
}

static int add_pattern(callus_whitelist *wl, size_t *cap, const callus_config *cfg,
		       const callus_config_entry *e, callus_error *err)
{
	const char *v = e->value, *end = v + strlen(v), *last;
	callus_lesson_type cat = CALLUS_LESSON_OTHER;
	callus_buf pat = CALLUS_BUF_INIT;
	const char *why = "";
	callus_pattern *adds;
	int rc;

	/* an all-caps last word is the category */
	while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (last = end; last > v && last[-1] != ' ' && last[-1] != '\t'; last--)
		;
	if (parse_category(last, (size_t)(end - last), &cat))
		end = last;
	rc = normalize_pattern(&pat, v, (size_t)(end - v), &why);
	if (rc == CALLUS_EINVAL) {
		rc = callus_error_set(err, rc, "'%s' line %u: pattern '%s' %s", callus_config_name(cfg),
				    e->line, v, why);
		goto out;
	}
	if (rc < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if (!(adds = callus_array_grow(wl->adds, cap, wl->nadds + 1, sizeof(*adds)))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	wl->adds = adds;
	if (!(adds[wl->nadds].pattern = callus_buf_detach(&pat))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	adds[wl->nadds].tool = NULL;
	adds[wl->nadds].category = cat;
	adds[wl->nadds].name_words = 0;
	wl->nadds++;
out:
	callus_buf_release(&pat);
	return rc;
}

static int remove_pattern(callus_whitelist *wl, const callus_config *cfg, const callus_config_entry *e,
			  callus_error *err)
{
	callus_buf text = CALLUS_BUF_INIT;
	int found = 0;

	/* compared with the documented text, blanks normalized */
	for (const char *p = e->value; *p;) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		len = strcspn(p, " \t");
		if (text.len)
			callus_buf_putc(&text, ' ');
		callus_buf_put(&text, p, len);
		p += len;
	}
	if (callus_buf_status(&text) < 0) {
		callus_buf_release(&text);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < NBUILTIN; i++)
		if (!strcmp(builtins[i].pattern, text.ptr)) {
			wl->removed[i] = 1;
			found = 1;
		}
	callus_buf_release(&text);
	if (!found)
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' line %u: 'remove = %s' names no built-in pattern "
				      "(see docs/config.md)",
				      callus_config_name(cfg), e->line, e->value);
	return 0;
}

int callus_whitelist_new(callus_whitelist **out, const callus_config *cfg, callus_error *err)
{
	callus_whitelist *wl;
	const callus_config_entry *e;
	size_t it = 0, cap = 0;
	int rc = 0;

	if (!out)
		return callus_error_set(err, CALLUS_EINVAL, "callus_whitelist_new: no output");
	*out = NULL;
	if (!(wl = calloc(1, sizeof(*wl))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* other [verify] keys belong to other modules */
	while ((e = callus_config_next(cfg, "verify", NULL, &it))) {
		if (!strcmp(e->key, "add"))
			rc = add_pattern(wl, &cap, cfg, e, err);
		else if (!strcmp(e->key, "remove"))
			rc = remove_pattern(wl, cfg, e, err);
		if (rc < 0)
			goto out;
	}
	*out = wl;
	wl = NULL;
out:
	callus_whitelist_free(wl);
	return rc;
}

void callus_whitelist_free(callus_whitelist *wl)
{
	if (!wl)
		return;
	for (size_t i = 0; i < wl->nadds; i++)
		free((void *)wl->adds[i].pattern);
	free(wl->adds);
	free(wl);
}
