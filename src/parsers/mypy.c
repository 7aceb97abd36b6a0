/*
 * mypy.c - mypy's report.
 *
 *   src/x.py:5:18: error: Argument 1 to "total" has incompatible type ...  [arg-type]
 *   src/x.py:5: note: See https://...
 *
 * One diagnostic per error (and warning); notes belong to the error above
 * them and are skipped.  The code is the trailing "[arg-type]".  --pretty
 * wraps long messages onto unindented lines (the code then ends the last
 * one) and adds indented source and caret lines: the wrapped parts are
 * joined again, the source is skipped.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct pending {
	int active, closed;
	callus_buf file, msg;
	long line, col;
	const char *severity;
} pending;

/* "path[:LINE[:COL]]: error: " -> offsets; severity "error", "warning", "note". */
static int mypy_line(const char *s, size_t len, callus_pu_loc *loc, const char **sev,
		     size_t *msg_at)
{
	static const char *const sevs[] = { "error", "warning", "note" };
	size_t i;

	if (!callus_pu_location(s, len, loc)) {
		/* "x.py: error: Duplicate module named 'x'" */
		long c = callus_pu_find(s, len, ": ");
		if (c <= 0 || memchr(s, ' ', (size_t)c))
			return 0;
		loc->path = s;
		loc->path_len = (size_t)c;
		loc->line = loc->col = 0;
		loc->end = (size_t)c + 1;
	}
	if (!callus_pu_ends(loc->path, loc->path_len, ".py") &&
	    !callus_pu_ends(loc->path, loc->path_len, ".pyi"))
		return 0;
	i = loc->end;
	if (i < len && s[i] == ' ')
		i++;
	for (size_t k = 0; k < sizeof(sevs) / sizeof(sevs[0]); k++) {
		size_t n = strlen(sevs[k]);
		if (i + n < len && !memcmp(s + i, sevs[k], n) && s[i + n] == ':') {
			*sev = sevs[k];
			*msg_at = i + n + 1;
			return 1;
		}
	}
	return 0;
}

/* Split "message  [code]". */
static void split_code(const char *m, size_t len, size_t *msg_len, const char **code,
		       size_t *code_len)
{
	size_t i;

	*msg_len = len;
	*code = NULL;
	*code_len = 0;
	if (len < 3 || m[len - 1] != ']')
		return;
	for (i = len - 1; i > 0 && m[i - 1] != '['; i--) {
		char c = m[i - 1];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return;
	}
	if (i < 2 || i == len - 1 || (m[i - 2] != ' ' && m[i - 2] != '\t'))
		return;
	*code = m + i;
	*code_len = len - 1 - i;
	*msg_len = i - 1;
	while (*msg_len && (m[*msg_len - 1] == ' ' || m[*msg_len - 1] == '\t'))
		(*msg_len)--;
}

static int has_code(const pending *p)
{
	const char *c;
	size_t ml, cl;

	split_code(p->msg.ptr, p->msg.len, &ml, &c, &cl);
	return c != NULL;
}

static int flush(pending *p, const callus_pathctx *pc, callus_diags *diags, callus_strlist *files)
{
	const char *code, *m;
	size_t ml, cl;
	int rc;

	if (!p->active)
		return 0;
	p->active = 0;
	if ((rc = callus_buf_status(&p->msg)) < 0 || (rc = callus_buf_status(&p->file)) < 0)
		return rc;
	m = p->msg.ptr;
	ml = p->msg.len;
	callus_pu_trim(&m, &ml);
	split_code(m, ml, &ml, &code, &cl);
	return callus_pu_diag(NULL, diags, files, pc, p->file.ptr, p->file.len, p->line, p->col,
			    code, cl, m, ml, p->severity);
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	pending p = { 0, 0, CALLUS_BUF_INIT, CALLUS_BUF_INIT, 0, 0, NULL };
	callus_pu_lines it;
	const char *s, *sev;
	size_t len, at;
	callus_pu_loc loc;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (mypy_line(s, len, &loc, &sev, &at)) {
			if ((rc = flush(&p, in->pc, diags, files)) < 0)
				break;
			if (!strcmp(sev, "note"))
				continue;
			p.active = 1;
			p.closed = 0;
			p.line = loc.line;
			p.col = loc.col;
			p.severity = sev;
			callus_buf_clear(&p.file);
			callus_buf_put(&p.file, loc.path, loc.path_len);
			callus_buf_clear(&p.msg);
			callus_buf_put(&p.msg, s + at, len - at);
			continue;
		}
		if (callus_pu_starts(s, len, "mypy: ") || callus_pu_starts(s, len, "Found ") ||
		    callus_pu_starts(s, len, "Success: ") || !len) {
			if ((rc = flush(&p, in->pc, diags, files)) < 0)
				break;
			/* "mypy: can't read file 'x.py': No such file or directory" */
			if (callus_pu_starts(s, len, "mypy: ") &&
			    (rc = callus_pu_diag(NULL, diags, files, in->pc, NULL, 0, 0, 0, NULL, 0,
					       s + 6, len - 6, "error")) < 0)
				break;
			continue;
		}
		/* --pretty: source and carets are indented; the message's wrapped
		 * rest is not, and ends with the code */
		if (s[0] == ' ' || s[0] == '\t') {
			p.closed = 1;
			continue;
		}
		if (p.active && !p.closed && !has_code(&p)) {
			callus_buf_putc(&p.msg, ' ');
			callus_buf_put(&p.msg, s, len);
		}
	}
	if (rc >= 0)
		rc = flush(&p, in->pc, diags, files);
	callus_buf_release(&p.file);
	callus_buf_release(&p.msg);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	const char *sev;
	size_t at;

	return mypy_line(s, len, &loc, &sev, &at) ||
	       (callus_pu_starts(s, len, "Found ") && callus_pu_find(s, len, " (checked ") > 0) ||
	       callus_pu_starts(s, len, "Success: no issues found");
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "mypy", NULL };

const callus_parser callus_parser_mypy = { "mypy", tools, sniff, parse, sniff_line };
