/*
 * yamllint.c - yamllint's formats: standard (and colored, its ANSI
 * version), parsable and github.
 *
 *   config/deploy.yaml
 *     4:1       error    duplication of key "replicas" in mapping  (key-duplicates)
 *   config/deploy.yaml:4:1: [error] duplication of key "replicas" in mapping (key-duplicates)
 *   ::error file=config/deploy.yaml,line=4,col=1::4:1 [key-duplicates] duplication of key ...
 *
 * One diagnostic per problem, the rule its code.  Warnings fail a run
 * only with --strict, but they are the file's problems all the same.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct problem {
	long line, col;
	const char *sev, *msg, *rule;
	size_t ml, rl;
} problem;

/* "msg  (rule)" -> the message and the rule. */
static void split_rule(problem *p)
{
	size_t open;

	p->rule = NULL;
	p->rl = 0;
	if (p->ml < 3 || p->msg[p->ml - 1] != ')')
		return;
	for (open = p->ml - 1; open > 0 && p->msg[open - 1] != '(' && p->msg[open - 1] != ' '; open--)
		;
	if (!open || p->msg[open - 1] != '(' || open < 2 || p->msg[open - 2] != ' ')
		return;
	p->rule = p->msg + open;
	p->rl = p->ml - 1 - open;
	p->ml = open - 1;
	while (p->ml && p->msg[p->ml - 1] == ' ')
		p->ml--;
}

static const char *severity(const char *s, size_t len, size_t *n)
{
	if (callus_pu_starts(s, len, "error")) {
		*n = 5;
		return "error";
	}
	if (callus_pu_starts(s, len, "warning")) {
		*n = 7;
		return "warning";
	}
	return NULL;
}

/* standard: "  4:1       error    msg  (rule)" */
static int standard_entry(const char *s, size_t len, problem *p)
{
	size_t i = callus_pu_indent(s, len), n;

	if (!i)
		return 0;
	p->line = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n >= len || s[i + n] != ':')
		return 0;
	i += n + 1;
	p->col = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n >= len || s[i + n] != ' ')
		return 0;
	i += n;
	i += callus_pu_indent(s + i, len - i);
	if (!(p->sev = severity(s + i, len - i, &n)) || i + n >= len || s[i + n] != ' ')
		return 0;
	i += n;
	p->msg = s + i;
	p->ml = len - i;
	callus_pu_trim(&p->msg, &p->ml);
	split_rule(p);
	return p->rule != NULL;
}

/* parsable: "PATH:L:C: [error] msg (rule)" */
static int parsable_line(const char *s, size_t len, callus_pu_loc *loc, problem *p)
{
	size_t i, n;

	if (!callus_pu_location(s, len, loc) || !loc->has_col || loc->end + 2 >= len ||
	    s[loc->end] != ' ' || s[loc->end + 1] != '[')
		return 0;
	i = loc->end + 2;
	if (!(p->sev = severity(s + i, len - i, &n)) || i + n >= len || s[i + n] != ']')
		return 0;
	i += n + 1;
	p->line = loc->line;
	p->col = loc->col;
	p->msg = s + i;
	p->ml = len - i;
	callus_pu_trim(&p->msg, &p->ml);
	split_rule(p);
	return 1;
}

/* github: "::error file=F,line=L,col=C::L:C [rule] msg" */
static int github_line(const char *s, size_t len, const char **file, size_t *fl, problem *p)
{
	long sep, f, l, c, open, close;
	size_t n;

	if (callus_pu_starts(s, len, "::error "))
		p->sev = "error";
	else if (callus_pu_starts(s, len, "::warning "))
		p->sev = "warning";
	else
		return 0;
	if ((sep = callus_pu_find(s + 2, len - 2, "::")) < 0 ||
	    (f = callus_pu_find(s, (size_t)sep + 2, "file=")) < 0 ||
	    (l = callus_pu_find(s, (size_t)sep + 2, ",line=")) < f ||
	    (c = callus_pu_find(s, (size_t)sep + 2, ",col=")) < l)
		return 0;
	sep += 2;
	*file = s + f + 5;
	*fl = (size_t)(l - f - 5);
	p->line = callus_pu_num(s + l + 6, len - (size_t)l - 6, &n);
	p->col = callus_pu_num(s + c + 5, len - (size_t)c - 5, &n);
	p->msg = s + sep + 2;
	p->ml = len - (size_t)sep - 2;
	p->rule = NULL;
	p->rl = 0;
	if ((open = callus_pu_find(p->msg, p->ml, " [")) >= 0 &&
	    (close = callus_pu_find(p->msg + open, p->ml - (size_t)open, "] ")) > 0) {
		p->rule = p->msg + open + 2;
		p->rl = (size_t)close - 2;
		p->ml -= (size_t)(open + close + 2);
		p->msg += open + close + 2;
	}
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_buf file = CALLUS_BUF_INIT;
	callus_pu_lines it;
	const char *s, *f;
	size_t len, fl;
	callus_pu_loc loc;
	problem p;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (standard_entry(s, len, &p)) {
			if (!file.len)
				continue;
			rc = callus_pu_diag(NULL, diags, files, in->pc, file.ptr, file.len, p.line, p.col,
					  p.rule, p.rl, p.msg, p.ml, p.sev);
		} else if (parsable_line(s, len, &loc, &p)) {
			rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len, p.line,
					  p.col, p.rule, p.rl, p.msg, p.ml, p.sev);
		} else if (github_line(s, len, &f, &fl, &p)) {
			rc = callus_pu_diag(NULL, diags, files, in->pc, f, fl, p.line, p.col, p.rule,
					  p.rl, p.msg, p.ml, p.sev);
		} else if (len && s[0] != ' ' && !memchr(s, ' ', len)) {
			/* the standard format's file header */
			callus_buf_clear(&file);
			callus_buf_put(&file, s, len);
			rc = callus_buf_status(&file);
		}
		if (rc < 0)
			break;
	}
	callus_buf_release(&file);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	problem p;

	return standard_entry(s, len, &p) ||
	       (parsable_line(s, len, &loc, &p) &&
		(callus_pu_ends(loc.path, loc.path_len, ".yaml") ||
		 callus_pu_ends(loc.path, loc.path_len, ".yml")));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "yamllint", NULL };

const callus_parser callus_parser_yamllint = { "yamllint", tools, sniff, parse, sniff_line };
