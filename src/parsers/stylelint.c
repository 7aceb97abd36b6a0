/*
 * stylelint.c - stylelint's report: the string format (the default),
 * unix, compact and JSON.
 *
 *   styles/main.css
 *      3:12  ✖  Unexpected unit        length-zero-no-unit
 *   styles/main.css:3:12: Unexpected unit (length-zero-no-unit) [error]        (unix)
 *   styles/main.css: line 3, col 12, error - Unexpected unit (length-zero-no-unit)   (compact)
 *   [{"source": "/abs/styles/main.css", "warnings": [{"line": 3, "column": 12,
 *     "rule": "length-zero-no-unit", "severity": "error", "text": "Unexpected unit (...)"}]}]
 *
 * One diagnostic per problem, the rule its code; ✖ marks an error, ⚠ a
 * warning.  The rule repeated at the end of a message, "(rule)", is cut.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* Cut " (rule)" off the end of a message. */
static void cut_rule(const char *m, size_t *ml, const char *rule, size_t rl)
{
	if (rl && *ml > rl + 3 && m[*ml - 1] == ')' && m[*ml - rl - 2] == '(' &&
	    !memcmp(m + *ml - rl - 1, rule, rl))
		*ml -= rl + 2;
	while (*ml && m[*ml - 1] == ' ')
		(*ml)--;
}

/* A "(rule)" at the end of m: its span. */
static int trailing_rule(const char *m, size_t ml, const char **rule, size_t *rl)
{
	size_t open;

	if (ml < 3 || m[ml - 1] != ')')
		return 0;
	for (open = ml - 1; open > 0 && m[open - 1] != '(' && m[open - 1] != ' '; open--)
		;
	if (!open || m[open - 1] != '(' || open == ml - 1)
		return 0;
	*rule = m + open;
	*rl = ml - 1 - open;
	return 1;
}

static int parse_json(const callus_parse_input *in, json_t *doc, callus_diags *diags,
		      callus_strlist *files)
{
	json_t *res, *w;
	size_t i, k;
	int rc = 0;

	json_array_foreach(doc, i, res) {
		const char *src = json_string_value(json_object_get(res, "source"));

		json_array_foreach(json_object_get(res, "warnings"), k, w) {
			const char *rule = json_string_value(json_object_get(w, "rule"));
			const char *text = json_string_value(json_object_get(w, "text"));
			const char *sev = json_string_value(json_object_get(w, "severity"));
			size_t tl, rl = rule ? strlen(rule) : 0;

			if (!text)
				continue;
			tl = strlen(text);
			cut_rule(text, &tl, rule, rl);
			if ((rc = callus_pu_diag(NULL, diags, files, in->pc, src, src ? strlen(src) : 0,
					       (long)json_integer_value(json_object_get(w, "line")),
					       (long)json_integer_value(json_object_get(w, "column")),
					       rule, rl, text, tl,
					       sev && !strcmp(sev, "warning") ? "warning" : "error")) < 0)
				return rc;
		}
	}
	return rc;
}

/* "   3:12  ✖  Unexpected unit    rule" */
static int string_entry(const char *s, size_t len, long *line, long *col, const char **sev,
			const char **msg, size_t *ml, const char **rule, size_t *rl)
{
	size_t i = callus_pu_indent(s, len), n, e;

	if (!i)
		return 0;
	*line = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n >= len || s[i + n] != ':')
		return 0;
	i += n + 1;
	*col = callus_pu_num(s + i, len - i, &n);
	if (!n)
		return 0;
	i += n;
	i += callus_pu_indent(s + i, len - i);
	if (callus_pu_starts(s + i, len - i, "\xe2\x9c\x96")) /* ✖ */
		*sev = "error";
	else if (callus_pu_starts(s + i, len - i, "\xe2\x9a\xa0")) /* ⚠ */
		*sev = "warning";
	else
		return 0;
	i += 3;
	i += callus_pu_indent(s + i, len - i);
	/* the rule is the last word, after two blanks or more */
	for (e = len; e > i && s[e - 1] != ' '; e--)
		;
	if (e <= i + 1 || s[e - 2] != ' ')
		return 0;
	*rule = s + e;
	*rl = len - e;
	*msg = s + i;
	*ml = e - i;
	callus_pu_trim(msg, ml);
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_buf file = CALLUS_BUF_INIT;
	json_t *doc = callus_pu_json_document(in);
	callus_pu_lines it;
	const char *s, *sev, *msg, *rule;
	size_t len, ml, rl;
	long line, col;
	callus_pu_loc loc;
	int rc;

	if (doc && json_is_array(doc)) {
		rc = parse_json(in, doc, diags, files);
		json_decref(doc);
		return rc < 0 ? rc : 0;
	}
	json_decref(doc);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (string_entry(s, len, &line, &col, &sev, &msg, &ml, &rule, &rl)) {
			if (!file.len)
				continue;
			rc = callus_pu_diag(NULL, diags, files, in->pc, file.ptr, file.len, line, col, rule,
					  rl, msg, ml, sev);
		} else if (len && s[0] != ' ' && !memchr(s, ' ', len) &&
			   callus_path_has_source_ext(s, len)) {
			/* the string format's file header */
			callus_buf_clear(&file);
			callus_buf_put(&file, s, len);
			rc = callus_buf_status(&file);
		} else if (callus_pu_location(s, len, &loc) && loc.has_col &&
			   (callus_pu_ends(s, len, " [error]") || callus_pu_ends(s, len, " [warning]"))) {
			/* unix */
			int err = callus_pu_ends(s, len, " [error]");

			msg = s + loc.end;
			ml = len - loc.end - (err ? 8 : 10);
			callus_pu_trim(&msg, &ml);
			rule = NULL;
			rl = 0;
			if (trailing_rule(msg, ml, &rule, &rl))
				cut_rule(msg, &ml, rule, rl);
			rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len, loc.line,
					  loc.col, rule, rl, msg, ml, err ? "error" : "warning");
		} else {
			/* compact: "PATH: line 3, col 12, error - msg (rule)" */
			long at = callus_pu_find(s, len, ": line ");
			long dash = callus_pu_find(s, len, " - ");
			size_t n;

			if (at <= 0 || dash <= at || memchr(s, ' ', (size_t)at))
				continue;
			line = callus_pu_num(s + at + 7, len - (size_t)at - 7, &n);
			col = 0;
			if (callus_pu_starts(s + at + 7 + n, len - (size_t)at - 7 - n, ", col "))
				col = callus_pu_num(s + at + 13 + n, len - (size_t)at - 13 - n, &n);
			msg = s + dash + 3;
			ml = len - (size_t)dash - 3;
			rule = NULL;
			rl = 0;
			if (trailing_rule(msg, ml, &rule, &rl))
				cut_rule(msg, &ml, rule, rl);
			rc = callus_pu_diag(NULL, diags, files, in->pc, s, (size_t)at, line, col, rule, rl,
					  msg, ml,
					  callus_pu_find(s + at, (size_t)(dash - at), "warning") > 0
						  ? "warning"
						  : "error");
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
	long line, col;
	const char *sev, *msg, *rule;
	size_t ml, rl;

	return string_entry(s, len, &line, &col, &sev, &msg, &ml, &rule, &rl) &&
	       memchr(rule, '-', rl);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "stylelint", NULL };

const callus_parser callus_parser_stylelint = { "stylelint", tools, sniff, parse, sniff_line };
