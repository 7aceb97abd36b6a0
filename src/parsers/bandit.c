/*
 * bandit.c - bandit's findings, in its screen/txt format (the default),
 * its custom format's default template and JSON:
 *
 *   >> Issue: [B602:subprocess_popen_with_shell_equals_true] subprocess call with shell=True ...
 *      Severity: High   Confidence: High
 *      Location: app/shell.py:7            (bandit >= 1.7: ./app/shell.py:7:11)
 *   /abs/app/shell.py:7: B602[bandit]: HIGH: subprocess call with shell=True ...
 *   {"results": [{"filename", "line_number", "col_offset", "test_id", "issue_text",
 *                 "issue_severity"}]}
 *
 * One diagnostic per issue, the test id (B602) its code.  Any issue fails
 * the run; high and medium severities are errors, low ones warnings.  The
 * log lines ("[main]	INFO ...") and the metrics are not findings.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct issue {
	int open;
	callus_buf code, msg;
	const char *sev;
} issue;

/* "B602" at s: its length. */
static size_t test_id(const char *s, size_t len)
{
	size_t i = 1;

	if (!len || s[0] != 'B')
		return 0;
	while (i < len && callus_pu_is_digit(s[i]))
		i++;
	return i >= 4 && i <= 5 ? i : 0;
}

static const char *severity(const char *s, size_t len)
{
	return callus_pu_starts(s, len, "Low") || callus_pu_starts(s, len, "LOW") ? "warning" : "error";
}

static int parse_json(const callus_parse_input *in, json_t *doc, callus_diags *diags,
		      callus_strlist *files)
{
	json_t *r;
	size_t i;
	int rc = 0;

	json_array_foreach(json_object_get(doc, "results"), i, r) {
		const char *file = json_string_value(json_object_get(r, "filename"));
		const char *id = json_string_value(json_object_get(r, "test_id"));
		const char *msg = json_string_value(json_object_get(r, "issue_text"));
		const char *sev = json_string_value(json_object_get(r, "issue_severity"));

		if (!msg)
			continue;
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, file, file ? strlen(file) : 0,
				       (long)json_integer_value(json_object_get(r, "line_number")),
				       0, id, id ? strlen(id) : 0, msg, strlen(msg),
				       severity(sev ? sev : "", sev ? strlen(sev) : 0))) < 0)
			break;
	}
	return rc;
}

/* `-f json`: the document, after the log lines bandit prints first
 * ("[main]	INFO	profile include tests: None") on stderr. */
static json_t *json_report(const callus_parse_input *in)
{
	const char *p = in->raw, *end = p ? p + in->raw_len : NULL;

	if (!p || !in->raw_complete)
		return NULL;
	while (p < end && callus_pu_starts(p, (size_t)(end - p), "[main]")) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));

		p = nl ? nl + 1 : end;
	}
	if (p == end || *p != '{')
		return NULL;
	return json_loadb(p, (size_t)(end - p), 0, NULL);
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	issue is = { 0, CALLUS_BUF_INIT, CALLUS_BUF_INIT, "error" };
	json_t *doc = json_report(in);
	callus_pu_lines it;
	const char *s, *t;
	size_t len, tl, n;
	callus_pu_loc loc;
	int rc;

	if (doc && json_is_array(json_object_get(doc, "results"))) {
		rc = parse_json(in, doc, diags, files);
		json_decref(doc);
		return rc < 0 ? rc : 0;
	}
	json_decref(doc);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		t = s;
		tl = len;
		callus_pu_trim(&t, &tl);
		if (callus_pu_starts(t, tl, ">> Issue: [") && (n = test_id(t + 11, tl - 11))) {
			const char *close = memchr(t, ']', tl);

			if (!close)
				continue;
			is.open = 1;
			is.sev = "error";
			callus_buf_clear(&is.code);
			callus_buf_clear(&is.msg);
			callus_buf_put(&is.code, t + 11, n);
			t = close + 1;
			tl = (size_t)(s + len - t);
			callus_pu_trim(&t, &tl);
			callus_buf_put(&is.msg, t, tl);
			continue;
		}
		if (is.open && callus_pu_starts(t, tl, "Severity: ")) {
			is.sev = severity(t + 10, tl - 10);
			continue;
		}
		if (is.open && callus_pu_starts(t, tl, "Location: ") &&
		    callus_pu_location(t + 10, tl - 10, &loc)) {
			is.open = 0;
			if ((rc = callus_buf_status(&is.code)) < 0 || (rc = callus_buf_status(&is.msg)) < 0 ||
			    (rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, 0, is.code.ptr, is.code.len, is.msg.ptr,
					       is.msg.len, is.sev)) < 0)
				break;
			continue;
		}
		/* "PATH:7: B602[bandit]: HIGH: msg" */
		if (callus_pu_location(s, len, &loc) && loc.end + 1 < len && s[loc.end] == ' ' &&
		    (n = test_id(s + loc.end + 1, len - loc.end - 1)) &&
		    callus_pu_starts(s + loc.end + 1 + n, len - loc.end - 1 - n, "[bandit]: ")) {
			const char *code = s + loc.end + 1, *m = code + n + 10, *colon;
			size_t ml = (size_t)(s + len - m);
			const char *sev = "error";

			if ((colon = memchr(m, ':', ml))) {
				sev = severity(m, (size_t)(colon - m));
				ml -= (size_t)(colon + 1 - m);
				m = colon + 1;
			}
			callus_pu_trim(&m, &ml);
			if ((rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, 0, code, n, m, ml, sev)) < 0)
				break;
		}
	}
	callus_buf_release(&is.code);
	callus_buf_release(&is.msg);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t i = callus_pu_indent(s, len);

	/* the metrics end the screen format: the tail of any output keeps them */
	return callus_pu_starts(s, len, ">> Issue: [B") || callus_pu_find(s, len, "[bandit]: ") > 0 ||
	       callus_pu_starts(s + i, len - i, "Total issues (by confidence):");
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "bandit", NULL };

const callus_parser callus_parser_bandit = { "bandit", tools, sniff, parse, sniff_line };
