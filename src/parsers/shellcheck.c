/*
 * shellcheck.c - shellcheck's tty (default) and gcc formats.
 *
 *   In deploy.sh line 3:
 *   cp $target /tmp/out
 *      ^-----^ SC2086 (info): Double quote to prevent globbing and word splitting.
 *
 *   deploy.sh:3:4: note: Double quote to prevent globbing and word splitting. [SC2086]
 *
 * One diagnostic per SC finding; in the tty format the column is where the
 * caret stands under the printed source line.  "Did you mean:" and "For
 * more information:" blocks are skipped.  Severity: error, warning; info
 * and style are notes (as the gcc format prints them).  -f json1 and json
 * are read as JSON.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* "SC2086" at s: its length, or 0. */
static size_t sc_code(const char *s, size_t len)
{
	size_t i = 2;

	if (!callus_pu_starts(s, len, "SC"))
		return 0;
	while (i < len && i < 8 && callus_pu_is_digit(s[i]))
		i++;
	return i > 2 && (i == len || !callus_pu_is_digit(s[i])) ? i : 0;
}

static const char *severity(const char *s, size_t len)
{
	if (callus_pu_starts(s, len, "error"))
		return "error";
	if (callus_pu_starts(s, len, "warning"))
		return "warning";
	return "note";
}

/* "In path with spaces line 12:" */
static int in_line(const char *s, size_t len, const char **path, size_t *plen, long *line)
{
	long at = -1, k;
	size_t n;

	if (!callus_pu_starts(s, len, "In ") || !len || s[len - 1] != ':')
		return 0;
	/* the last " line " */
	for (k = 0; (k = callus_pu_find(s + at + 1, len - (size_t)(at + 1), " line ")) >= 0;)
		at += k + 1;
	if (at < 3)
		return 0;
	*line = callus_pu_num(s + at + 6, len - (size_t)at - 6, &n);
	if (!n || (size_t)at + 6 + n != len - 1)
		return 0;
	*path = s + 3;
	*plen = (size_t)at - 3;
	return 1;
}

/* "   ^-----^ SC2086 (info): message" */
static int caret_line(const char *s, size_t len, long *col, const char **code, size_t *cl,
		      const char **sev, const char **msg, size_t *ml)
{
	size_t i = callus_pu_indent(s, len), n;
	long sp;
	const char *close;

	if (i >= len || s[i] != '^')
		return 0;
	*col = (long)i + 1;
	if ((sp = callus_pu_find(s + i, len - i, " SC")) < 0)
		return 0;
	i += (size_t)sp + 1;
	if (!(n = sc_code(s + i, len - i)) || i + n + 2 >= len || s[i + n] != ' ' ||
	    s[i + n + 1] != '(')
		return 0;
	*code = s + i;
	*cl = n;
	*sev = severity(s + i + n + 2, len - i - n - 2);
	if (!(close = memchr(s + i, ')', len - i)) || (size_t)(close - s) + 2 > len)
		return 0;
	*msg = close + 1;
	*ml = len - (size_t)(close + 1 - s);
	if (*ml && **msg == ':') {
		(*msg)++;
		(*ml)--;
	}
	callus_pu_trim(msg, ml);
	return 1;
}

/* "path:L:C: note: message [SC2086]" */
static int gcc_line(const char *s, size_t len, callus_pu_loc *loc, const char **code,
		    size_t *cl, const char **sev, const char **msg, size_t *ml)
{
	const char *m, *open;
	size_t n, i;

	if (!callus_pu_location(s, len, loc) || loc->end >= len || s[loc->end] != ' ' ||
	    len < 8 || s[len - 1] != ']')
		return 0;
	for (open = s + len - 1; open > s && open[-1] != '['; open--)
		;
	if (open <= s || !(n = sc_code(open, (size_t)(s + len - 1 - open))) ||
	    open + n != s + len - 1)
		return 0;
	*code = open;
	*cl = n;
	i = loc->end + 1;
	m = s + i;
	*sev = severity(m, len - i);
	if (!(m = memchr(m, ':', len - i)))
		return 0;
	*msg = m + 1;
	*ml = (size_t)(open - 1 - *msg);
	callus_pu_trim(msg, ml);
	return 1;
}

/* -f json1 ({"comments": [...]}) and -f json ([...]): 1 when the raw output
 * was one of them. */
static int parse_json(const callus_parse_input *in, callus_diags *diags, callus_strlist *files,
		      int *rc)
{
	json_t *doc, *list, *c;
	size_t i;

	if (!(doc = callus_pu_json_document(in)))
		return 0;
	list = json_is_array(doc) ? doc : json_object_get(doc, "comments");
	*rc = 0;
	json_array_foreach(list, i, c) {
		const char *file = json_string_value(json_object_get(c, "file"));
		const char *msg = json_string_value(json_object_get(c, "message"));
		const char *level = json_string_value(json_object_get(c, "level"));
		json_t *code = json_object_get(c, "code"), *line = json_object_get(c, "line");
		json_t *col = json_object_get(c, "column");
		char sc[32];
		int n;

		if (!msg || !json_is_integer(code))
			continue;
		n = snprintf(sc, sizeof(sc), "SC%lld", (long long)json_integer_value(code));
		if ((*rc = callus_pu_diag(NULL, diags, files, in->pc, file, file ? strlen(file) : 0,
					json_is_integer(line) ? (long)json_integer_value(line) : 0,
					json_is_integer(col) ? (long)json_integer_value(col) : 0, sc,
					n > 0 && (size_t)n < sizeof(sc) ? (size_t)n : 0, msg, strlen(msg),
					severity(level ? level : "", level ? strlen(level) : 0))) < 0)
			break;
	}
	json_decref(doc);
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	callus_buf file = CALLUS_BUF_INIT;
	const char *s, *code, *sev, *msg, *path;
	size_t len, cl, ml, pl;
	long line = 0, col;
	callus_pu_loc loc;
	int rc = 0;

	if (parse_json(in, diags, files, &rc))
		return rc;
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (in_line(s, len, &path, &pl, &line)) {
			callus_buf_clear(&file);
			if ((rc = callus_buf_put(&file, path, pl)) < 0)
				break;
			continue;
		}
		if (file.len && caret_line(s, len, &col, &code, &cl, &sev, &msg, &ml)) {
			if ((rc = callus_pu_diag(NULL, diags, files, in->pc, file.ptr, file.len, line,
					       col, code, cl, msg, ml, sev)) < 0)
				break;
			continue;
		}
		if (gcc_line(s, len, &loc, &code, &cl, &sev, &msg, &ml)) {
			if ((rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, loc.col, code, cl, msg, ml, sev)) < 0)
				break;
			continue;
		}
		/* "x.sh: x.sh: openBinaryFile: does not exist (No such file or directory)" */
		if (callus_pu_find(s, len, ": openBinaryFile: ") > 0 &&
		    (rc = callus_pu_diag(NULL, diags, files, in->pc, NULL, 0, 0, 0, NULL, 0, s, len,
				       "error")) < 0)
			break;
	}
	callus_buf_release(&file);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	long at = callus_pu_find(s, len, "SC");
	const char *path, *code, *sev, *msg;
	size_t pl, cl, ml;
	long line, col;
	callus_pu_loc loc;

	if (callus_pu_find(s, len, "\"level\":\"") >= 0 && callus_pu_find(s, len, "\"code\":") >= 0)
		return 1; /* json */
	if (at < 0)
		return in_line(s, len, &path, &pl, &line);
	return callus_pu_find(s, len, "shellcheck.net/wiki/SC") >= 0 ||
	       caret_line(s, len, &col, &code, &cl, &sev, &msg, &ml) ||
	       gcc_line(s, len, &loc, &code, &cl, &sev, &msg, &ml);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "shellcheck", NULL };

const callus_parser callus_parser_shellcheck = { "shellcheck", tools, sniff, parse, sniff_line };
