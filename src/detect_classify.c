/*
 * detect_classify.c - what a simple command runs (stage 2 of detect.c):
 * skip assignments, keywords and wrappers (env, npx, timeout, uv run,
 * ...), look through shells, python -m, node, make, package managers, go
 * and cargo, and turn the program and its first arguments into the "match
 * words" (normalized program name, subcommand or target) that detect.c
 * compares with the whitelist.  Apart from the matching because this is
 * where each program's option syntax lives, and it grows with every tool.
 */
#include "detect_internal.h"
#include "callus/buf.h"

#include <stdlib.h>
#include <string.h>

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
	{ "bundle", "exec", { NULL, "|gemfile|", 0, NULL, 0, NULL, NULL }, 0, 0 },
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

/* Is there a one-word pattern for this program (`pnpm eslint .` runs it)? */
static int is_tool_program(const callus_whitelist *wl, struct span name)
{
	const callus_pattern *r;

	for (size_t i = 0; (r = callus_detect_rule_at(wl, i)); i++)
		if (!callus_detect_rule_removed(wl, i) && eq(name.p, name.len, r->pattern))
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

int callus_detect_classify(const callus_whitelist *wl, struct cmd *c)
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

void callus_detect_cmd_release(struct cmd *c)
{
	free(c->a);
	free(c->hide);
	free(c->w);
	free(c->dirs);
}
