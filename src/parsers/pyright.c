/*
 * pyright.c - pyright's report (and basedpyright's), as text and as
 * `--outputjson`:
 *
 *   /abs/store/items.py
 *     /abs/store/items.py:12:17 - error: Cannot access attribute "cost" for class "Item"
 *       Attribute "cost" is unknown (reportAttributeAccessIssue)
 *   5 errors, 0 warnings, 0 informations
 *
 * One diagnostic per error and warning (informations are not failures).
 * The rule in parentheses ends the diagnostic's last line: it is the code.
 * The message is the first line; the lines under it explain it in terms of
 * this code's own types.  JSON: generalDiagnostics[] with file, severity,
 * message, rule and a 0-based range.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct pending {
	int open;
	callus_buf file, msg, rule;
	long line, col;
	const char *sev;
} pending;

/* "  PATH:L:C - error: msg" */
static int pyright_line(const char *s, size_t len, callus_pu_loc *loc, const char **sev,
			size_t *msg_at)
{
	static const char *const sevs[] = { "error", "warning", "information" };
	size_t i = callus_pu_indent(s, len);

	if (!callus_pu_location(s + i, len - i, loc) || !loc->has_col)
		return 0;
	i += loc->end;
	if (!callus_pu_starts(s + i, len - i, " - "))
		return 0;
	i += 3;
	for (size_t k = 0; k < 3; k++) {
		size_t n = strlen(sevs[k]);
		if (i + n + 1 < len && !memcmp(s + i, sevs[k], n) && s[i + n] == ':') {
			*sev = sevs[k];
			*msg_at = i + n + 2;
			return 1;
		}
	}
	return 0;
}

/* A trailing "(reportXxx)": its length with the parentheses, or 0. */
static size_t rule_at_end(const char *s, size_t len, const char **rule, size_t *rl)
{
	size_t open;

	if (len < 4 || s[len - 1] != ')')
		return 0;
	for (open = len - 1; open > 0 && s[open - 1] != '('; open--)
		if (!((s[open - 1] >= 'a' && s[open - 1] <= 'z') ||
		      (s[open - 1] >= 'A' && s[open - 1] <= 'Z')))
			return 0;
	if (!open || !callus_pu_starts(s + open, len - open, "report"))
		return 0;
	*rule = s + open;
	*rl = len - 1 - open;
	return len - open + 1;
}

static int flush(pending *p, const callus_parse_input *in, callus_diags *diags,
		 callus_strlist *files)
{
	int rc;

	if (!p->open)
		return 0;
	p->open = 0;
	if ((rc = callus_buf_status(&p->file)) < 0 || (rc = callus_buf_status(&p->msg)) < 0 ||
	    (rc = callus_buf_status(&p->rule)) < 0)
		return rc;
	if (!strcmp(p->sev, "information"))
		return 0;
	return callus_pu_diag(NULL, diags, files, in->pc, p->file.ptr, p->file.len, p->line, p->col,
			    p->rule.len ? p->rule.ptr : NULL, p->rule.len, p->msg.ptr ? p->msg.ptr : "",
			    p->msg.len, p->sev);
}

static int parse_json(const callus_parse_input *in, json_t *doc, callus_diags *diags,
		      callus_strlist *files)
{
	json_t *d;
	size_t i;
	int rc = 0;

	json_array_foreach(json_object_get(doc, "generalDiagnostics"), i, d) {
		const char *file = json_string_value(json_object_get(d, "file"));
		const char *sev = json_string_value(json_object_get(d, "severity"));
		const char *msg = json_string_value(json_object_get(d, "message"));
		const char *rule = json_string_value(json_object_get(d, "rule"));
		json_t *start = json_object_get(json_object_get(d, "range"), "start");
		const char *nl;

		if (!msg || !sev || !strcmp(sev, "information"))
			continue;
		nl = strchr(msg, '\n');
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, file, file ? strlen(file) : 0,
				       (long)json_integer_value(json_object_get(start, "line")) + 1,
				       (long)json_integer_value(json_object_get(start, "character")) + 1,
				       rule, rule ? strlen(rule) : 0, msg,
				       nl ? (size_t)(nl - msg) : strlen(msg),
				       strcmp(sev, "error") ? "warning" : "error")) < 0)
			break;
	}
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	pending p = { 0, CALLUS_BUF_INIT, CALLUS_BUF_INIT, CALLUS_BUF_INIT, 0, 0, NULL };
	json_t *doc = callus_pu_json_document(in);
	callus_pu_lines it;
	const char *s, *sev, *m, *rule;
	size_t len, at, ml, cut, rl;
	callus_pu_loc loc;
	int rc;

	if (doc && json_is_array(json_object_get(doc, "generalDiagnostics"))) {
		rc = parse_json(in, doc, diags, files);
		json_decref(doc);
		return rc < 0 ? rc : 0;
	}
	json_decref(doc);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (pyright_line(s, len, &loc, &sev, &at)) {
			if ((rc = flush(&p, in, diags, files)) < 0)
				break;
			p.open = 1;
			p.sev = sev;
			p.line = loc.line;
			p.col = loc.col;
			callus_buf_clear(&p.file);
			callus_buf_clear(&p.msg);
			callus_buf_clear(&p.rule);
			callus_buf_put(&p.file, s + callus_pu_indent(s, len), loc.path_len);
			m = s + at;
			ml = len - at;
			if ((cut = rule_at_end(m, ml, &rule, &rl))) {
				callus_buf_put(&p.rule, rule, rl);
				ml -= cut;
			}
			callus_pu_trim(&m, &ml);
			callus_buf_put(&p.msg, m, ml);
			continue;
		}
		if (!p.open)
			continue;
		/* the explanation under it (indented with spaces and no-break
		 * spaces): its last line holds the rule */
		if (len && s[0] == ' ') {
			if (!p.rule.len && rule_at_end(s, len, &rule, &rl))
				callus_buf_put(&p.rule, rule, rl);
			continue;
		}
		if ((rc = flush(&p, in, diags, files)) < 0)
			break;
	}
	if (rc >= 0)
		rc = flush(&p, in, diags, files);
	callus_buf_release(&p.file);
	callus_buf_release(&p.msg);
	callus_buf_release(&p.rule);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	const char *sev;
	size_t at;

	return pyright_line(s, len, &loc, &sev, &at) ||
	       (callus_pu_ends(s, len, " informations") && callus_pu_find(s, len, " errors, ") > 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "pyright", "basedpyright", NULL };

const callus_parser callus_parser_pyright = { "pyright", tools, sniff, parse, sniff_line };
