/*
 * deno_lint.c - `deno lint`'s reporters: pretty (the default), compact and
 * JSON.
 *
 *   error[no-unused-vars]: `unused` is never used
 *    --> /abs/src/report.ts:5:9
 *     |
 *   5 |   const unused = words(text).length;
 *     = hint: If this is intentional, prefix it with an underscore like `_unused`
 *
 *   file:///abs/src/report.ts: line 5, col 9 - `unused` is never used (no-unused-vars)
 *
 *   {"version": 1, "diagnostics": [{"filename": "file:///abs/src/report.ts",
 *     "range": {"start": {"line": 5, "col": 8, ...}}, "message": ...,
 *     "code": "no-unused-vars", "hint": ...}], "errors": [...]}
 *
 * One diagnostic per problem, the rule its code (JSON's columns count from
 * 0).  A file that does not parse is an "errors" entry in JSON, and
 * "error: ... at FILE:L:C" in text, without a rule.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

static int add(callus_diags *diags, callus_strlist *files, const callus_pathctx *pc,
	       const char *file, size_t file_len, long line, long col, const char *code,
	       size_t code_len, const char *msg, size_t msg_len)
{
	callus_buf path = CALLUS_BUF_INIT, m = CALLUS_BUF_INIT;
	int rc = callus_js_path(&path, file, file_len);

	/* the JavaScript family's message: CALLUS_JS_MESSAGE_MAX at most */
	if (rc >= 0 && (rc = callus_js_message_add(&m, msg, msg_len)) >= 0)
		rc = callus_parse_diag(diags, files, pc, path.ptr, path.len, line, col, code,
				       code_len, m.ptr ? m.ptr : "", m.len, "error");
	callus_buf_release(&path);
	callus_buf_release(&m);
	return rc;
}

static int parse_json(const callus_parse_input *in, json_t *doc, callus_diags *diags,
		      callus_strlist *files)
{
	size_t i;
	json_t *d;
	int rc = 0;

	json_array_foreach(json_object_get(doc, "diagnostics"), i, d) {
		const char *file = json_string_value(json_object_get(d, "filename"));
		const char *msg = json_string_value(json_object_get(d, "message"));
		const char *code = json_string_value(json_object_get(d, "code"));
		json_t *start = json_object_get(json_object_get(d, "range"), "start");

		if (!file || !msg)
			continue;
		if ((rc = add(diags, files, in->pc, file, strlen(file),
			      (long)json_integer_value(json_object_get(start, "line")),
			      (long)json_integer_value(json_object_get(start, "col")) + 1, code,
			      code ? strlen(code) : 0, msg, strlen(msg))) < 0)
			return rc;
	}
	json_array_foreach(json_object_get(doc, "errors"), i, d) {
		const char *file = json_string_value(json_object_get(d, "file_path"));
		const char *msg = json_string_value(json_object_get(d, "message"));

		if (file && msg &&
		    (rc = add(diags, files, in->pc, file, strlen(file), 0, 0, NULL, 0, msg,
			      strlen(msg))) < 0)
			return rc;
	}
	return 0;
}

/* "error[rule]: message": the rule's span and the message */
static int pretty_header(const char *s, size_t len, const char **code, size_t *code_len,
			 const char **msg, size_t *msg_len)
{
	const char *close;

	if (!callus_pu_starts(s, len, "error[") && !callus_pu_starts(s, len, "warning["))
		return 0;
	*code = (const char *)memchr(s, '[', len) + 1;
	close = memchr(*code, ']', (size_t)(s + len - *code));
	if (!close || close + 2 > s + len || close[1] != ':')
		return 0;
	*code_len = (size_t)(close - *code);
	*msg = close + 2;
	*msg_len = (size_t)(s + len - *msg);
	callus_pu_trim(msg, msg_len);
	return 1;
}

/* "FILE: line 5, col 9 - message (rule)" */
static int compact_line(const char *s, size_t len, callus_diags *diags, callus_strlist *files,
			const callus_pathctx *pc)
{
	long at = callus_pu_find(s, len, ": line "), dash;
	size_t used = 0, i;
	long line, col;
	const char *msg, *code = NULL;
	size_t msg_len, code_len = 0;

	if (at <= 0)
		return 0;
	i = (size_t)at + 7;
	line = callus_pu_num(s + i, len - i, &used);
	if (!used || !callus_pu_starts(s + i + used, len - i - used, ", col "))
		return 0;
	i += used + 6;
	col = callus_pu_num(s + i, len - i, &used);
	if (!used || (dash = callus_pu_find(s + i + used, len - i - used, " - ")) != 0)
		return 0;
	msg = s + i + used + 3;
	msg_len = (size_t)(s + len - msg);
	if (msg_len > 2 && msg[msg_len - 1] == ')') {
		const char *o = memrchr(msg, '(', msg_len);

		if (o && o > msg && o[-1] == ' ' && !memchr(o, ' ', (size_t)(msg + msg_len - o))) {
			code = o + 1;
			code_len = (size_t)(msg + msg_len - 1 - code);
			msg_len = (size_t)(o - 1 - msg);
		}
	}
	return add(diags, files, pc, s, (size_t)at, line, col, code, code_len, msg, msg_len) < 0 ?
		       CALLUS_ENOMEM : 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	json_t *doc = callus_pu_json_document(in);
	callus_js_lines it;
	callus_buf code = CALLUS_BUF_INIT, msg = CALLUS_BUF_INIT;
	const char *s;
	size_t len;
	int rc, open = 0;

	if (doc && json_is_array(json_object_get(doc, "diagnostics"))) {
		rc = parse_json(in, doc, diags, files);
		json_decref(doc);
		return rc;
	}
	json_decref(doc);
	callus_js_lines_init(&it, in);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len), fl;
		const char *c, *m;
		size_t cl, ml;
		long line, col;

		if (pretty_header(s, len, &c, &cl, &m, &ml)) {
			callus_buf_clear(&code);
			callus_buf_clear(&msg);
			callus_buf_put(&code, c, cl);
			callus_buf_put(&msg, m, ml);
			open = 1;
			continue;
		}
		if (open && callus_pu_starts(s + i, len - i, "--> ") &&
		    callus_js_split_location(s + i + 4, len - i - 4, &fl, &line, &col)) {
			open = 0;
			if ((rc = add(diags, files, in->pc, s + i + 4, fl, line, col, code.ptr,
				      code.len, msg.ptr, msg.len)) < 0)
				break;
			continue;
		}
		if ((rc = compact_line(s, len, diags, files, in->pc)) < 0)
			break;
		rc = 0;
	}
	callus_js_lines_release(&it);
	callus_buf_release(&code);
	callus_buf_release(&msg);
	return rc < 0 ? rc : 0;
}

/* pretty's " --> " under an "error[rule]:" line, compact's ": line N, col
 * N - " (JSON, whose lines have no error keyword, is not told from the
 * filtered text: it is read when the command is `deno lint`) */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;
	int header = 0;

	while (callus_next_line(&p, end, &s, &n)) {
		size_t i = callus_js_indent(s, n);

		if (callus_pu_starts(s, n, "error[") && memmem(s, n, "]: ", 3)) {
			/* rustc's "error[E0308]:" looks the same: deno's rules are
			 * lower-case words */
			header = s[6] >= 'a' && s[6] <= 'z';
			continue;
		}
		if (header && callus_pu_starts(s + i, n - i, "--> "))
			return 1;
		if (callus_pu_starts(s, n, "file://") && memmem(s, n, ": line ", 7) &&
		    memmem(s, n, ", col ", 6))
			return 1;
		header = 0;
	}
	return 0;
}

static const char *const tools[] = {"deno lint", NULL};

const callus_parser callus_parser_deno_lint = { "deno_lint", tools, sniff, parse, NULL };
