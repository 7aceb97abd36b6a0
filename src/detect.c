/*
 * detect.c - is a shell command line a verification command (detect.h)?
 *
 * Three stages, all in memory and linear in the length of the line:
 *  1. lex: split the line into words and operators as a POSIX shell would,
 *     without expanding anything (shlex.c);
 *  2. classify each simple command: skip assignments, keywords and
 *     wrappers, and turn the program and its first arguments into the
 *     "match words" (normalized program name, subcommand or target)
 *     (detect_classify.c);
 *  3. match the words against the whitelist and describe the first hit
 *     (here).
 *
 * The built-in rules are detect_rules.c, the whitelist a config makes of
 * them detect_whitelist.c.  The hook runs this on every command an agent
 * executes, so the common case (not a verification) must cost
 * microseconds: no regex, no I/O, a handful of allocations per call.
 */
#include "detect_internal.h"
#include "callus/buf.h"
#include "shlex.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	callus_detect_cmd_release(&r->cmd);
	free(r->cds);
	free(r->stack);
}

static int safe_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       (c && strchr("_@%+=:,./-", c));
}

/* The length of the redaction marker "[REDACTED:kind]" (redact.c) at p,
 * 0 for none. */
static size_t marker_len(const char *p, size_t len)
{
	static const char open[] = "[REDACTED:";
	size_t n = sizeof(open) - 1, k;

	if (len <= n || memcmp(p, open, n))
		return 0;
	for (k = n; k < len && ((p[k] >= 'a' && p[k] <= 'z') || is_digit(p[k]) || p[k] == '-'); k++)
		;
	return k > n && k < len && p[k] == ']' ? k + 1 : 0;
}

/* Append a word so that a shell would read it back as one word.  A
 * redaction marker is taken for safe characters: args are a check's name,
 * never run (a shell would read the marker as a glob), and the args
 * detected again from a redacted command line (a queued run, drained)
 * must name the check its live run named (callus_detect_requote). */
static void put_quoted(callus_buf *b, const char *p, size_t len)
{
	size_t k = 0;

	while (k < len) {
		size_t m = safe_char(p[k]) ? 1 : marker_len(p + k, len - k);

		if (!m)
			break;
		k += m;
	}
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

int callus_detect_requote(char **out, const char *args)
{
	callus_shtoks t;
	callus_buf b = CALLUS_BUF_INIT;
	int rc = 0, words = 1;

	*out = NULL;
	memset(&t, 0, sizeof(t));
	if (!args)
		return CALLUS_EINVAL;
	if ((rc = callus_shlex(args, strlen(args), &t)) < 0)
		goto out;
	/* words only, as describe() wrote them; anything else is left be */
	for (size_t i = 0; rc == 0 && i < t.n; i++)
		words &= t.v[i].kind == T_WORD || (t.v[i].kind == T_END && i == t.n - 1);
	if (rc != 0 || !words) {
		rc = 0;
		callus_buf_puts(&b, args);
	} else {
		for (size_t i = 0; i < t.n; i++) {
			if (t.v[i].kind != T_WORD)
				continue;
			if (b.len)
				callus_buf_putc(&b, ' ');
			put_quoted(&b, t.text.ptr + t.v[i].off, t.v[i].len);
		}
	}
	if (callus_buf_status(&b) < 0 || !(*out = b.len ? callus_buf_detach(&b) : strdup("")))
		rc = CALLUS_ENOMEM;
out:
	free(t.v);
	callus_buf_release(&t.text);
	callus_buf_release(&b);
	return rc;
}

/* Whether a shell reads s whole: 0, 1 (it would reject it), <0 no memory. */
static int shell_rejects(const char *s)
{
	callus_shtoks t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = callus_shlex(s, strlen(s), &t);
	free(t.v);
	callus_buf_release(&t.text);
	return rc < 0 ? rc : rc == CALLUS_SHLEX_SYNTAX;
}

char *callus_detect_close_quote(const char *command)
{
	static const char quotes[] = { '\'', '"' };
	callus_buf b = CALLUS_BUF_INIT;

	const char *last = NULL;

	/* a value that took the quote took the rest of the line: the command
	 * ends with its marker */
	for (const char *p = command; p && (p = strstr(p, "[REDACTED:")); p++)
		last = p;
	if (!last || strchr(last, ']') != last + strlen(last) - 1 || shell_rejects(command) != 1)
		return NULL;
	for (size_t i = 0; i < sizeof(quotes); i++) {
		callus_buf_clear(&b);
		callus_buf_puts(&b, command);
		callus_buf_putc(&b, quotes[i]);
		if (callus_buf_status(&b) < 0)
			break;
		if (shell_rejects(b.ptr) == 0)
			return callus_buf_detach(&b);
	}
	callus_buf_release(&b);
	return NULL;
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
	switch (callus_detect_classify(r->wl, c)) {
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
	for (size_t i = 0; (rule = callus_detect_rule_at(r->wl, i)); i++) {
		size_t glob, k;

		if (callus_detect_rule_removed(r->wl, i))
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
