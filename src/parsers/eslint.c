/*
 * eslint.c - eslint's stylish (the default), unix, compact and json
 * formats.
 *
 *   stylish   /abs/src/app.js                       (a file on a line of its own)
 *               4:9  error  'x' is assigned ...  no-unused-vars
 *   unix      /abs/src/app.js:4:9: 'x' is assigned .... [Error/no-unused-vars]
 *   compact   /abs/src/app.js: line 4, col 9, Error - 'x' is ... (no-unused-vars)
 *   json      [{"filePath":"/abs/src/app.js","messages":[{"ruleId":...}]}]
 *
 * A parsing error has no rule: stylish leaves the column out, unix prints
 * "[Error]", compact no "(rule)", json a null ruleId.  stylish drops the
 * final period of a message; the others keep it, so it is dropped
 * everywhere and the same problem reads the same in every format.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <jansson.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || c == '\t'; }

/* A rule id: "no-unused-vars", "@typescript-eslint/no-explicit-any",
 * "react-hooks/exhaustive-deps". */
static int is_rule(const char *s, size_t len)
{
	if (!len || len > 100)
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
		      c == '-' || c == '_' || c == '/' || c == '@' || c == '.'))
			return 0;
	}
	return 1;
}

/* stylish's message.replace(/([^ ])\.$/u, "$1") */
static size_t drop_period(const char *m, size_t len)
{
	if (len >= 2 && m[len - 1] == '.' && m[len - 2] != ' ')
		return len - 1;
	return len;
}

static long num(const char *s, size_t len, size_t *used)
{
	long v = 0;
	size_t i = 0;

	while (i < len && is_digit(s[i]) && i < 9)
		v = v * 10 + (s[i++] - '0');
	*used = i;
	return v;
}

static const char *severity_word(const char *s, size_t len, size_t *used)
{
	if (callus_pu_starts(s, len, "error") || callus_pu_starts(s, len, "Error")) {
		*used = 5;
		return "error";
	}
	if (callus_pu_starts(s, len, "warning") || callus_pu_starts(s, len, "Warning")) {
		*used = 7;
		return "warning";
	}
	return NULL;
}

static int add(callus_diags *diags, callus_strlist *files, const callus_pathctx *pc,
	       const char *file, size_t file_len, long line, long col, const char *rule,
	       size_t rule_len, const char *msg, size_t msg_len, const char *sev)
{
	callus_buf m = CALLUS_BUF_INIT;
	int rc;

	callus_js_message_add(&m, msg, drop_period(msg, msg_len));
	if ((rc = callus_buf_status(&m)) == 0)
		rc = callus_parse_diag(diags, files, pc, file, file_len, line, col, rule,
				     rule_len, m.ptr, m.len, sev);
	callus_buf_release(&m);
	return rc < 0 ? rc : 0;
}

/* "  4:9  error  message  rule" under a file line */
static int stylish_message(const char *s, size_t len, const char *file, size_t file_len,
			   callus_diags *diags, callus_strlist *files, const callus_pathctx *pc)
{
	size_t i = callus_js_indent(s, len), n, msg, end, rule = 0;
	long line, col;
	const char *sev;

	if (i == 0 || i >= len || !is_digit(s[i]))
		return 0;
	line = num(s + i, len - i, &n);
	i += n;
	if (i >= len || s[i] != ':')
		return 0;
	col = num(s + i + 1, len - i - 1, &n);
	i += 1 + n;
	if (!n || i >= len || !is_space(s[i]))
		return 0;
	i += callus_js_indent(s + i, len - i);
	if (!(sev = severity_word(s + i, len - i, &n)) || i + n >= len ||
	    !is_space(s[i + n]))
		return 0;
	i += n;
	msg = i + callus_js_indent(s + i, len - i);
	end = len;
	/* the rule is the last column, two blanks or more after the message */
	for (size_t k = len; k > msg + 2; k--)
		if (is_space(s[k - 1]) && is_space(s[k - 2])) {
			if (is_rule(s + k, len - k)) {
				rule = k;
				end = k;
				while (end > msg && is_space(s[end - 1]))
					end--;
			}
			break;
		}
	return add(diags, files, pc, file, file_len, line, col, rule ? s + rule : NULL,
		   rule ? len - rule : 0, s + msg, end - msg, sev);
}

/* "FILE:L:C: message [Error/rule]" */
static int unix_line(const char *s, size_t len, callus_diags *diags, callus_strlist *files,
		     const callus_pathctx *pc)
{
	const char *open, *close, *sev, *slash;
	size_t i, n, msg_end, used;
	long line, col;
	int rc;

	if (len < 8 || s[len - 1] != ']' || is_space(s[0]))
		return 0;
	close = s + len - 1;
	for (open = close; open > s && open[-1] != '['; open--)
		;
	if (open == s || open - 1 == s || open[-2] != ' ')
		return 0;
	if (!(sev = severity_word(open, (size_t)(close - open), &used)))
		return 0;
	slash = open + used;
	if (slash != close &&
	    (*slash != '/' || !is_rule(slash + 1, (size_t)(close - slash - 1))))
		return 0;
	/* the first ":L:C: " after a path */
	for (i = 1; i + 1 < len; i++) {
		size_t j;

		if (s[i] != ':' || !is_digit(s[i + 1]))
			continue;
		line = num(s + i + 1, len - i - 1, &n);
		j = i + 1 + n;
		if (j + 1 >= len || s[j] != ':' || !is_digit(s[j + 1]))
			continue;
		col = num(s + j + 1, len - j - 1, &n);
		j += 1 + n;
		if (j + 1 >= len || s[j] != ':' || s[j + 1] != ' ')
			continue;
		msg_end = (size_t)(open - 2 - s);
		if (msg_end < j + 2)
			return 0;
		rc = add(diags, files, pc, s, i, line, col,
			 slash != close ? slash + 1 : NULL,
			 slash != close ? (size_t)(close - slash - 1) : 0, s + j + 2,
			 msg_end - j - 2, sev);
		return rc < 0 ? rc : 1;
	}
	return 0;
}

/* "FILE: line L, col C, Error - message (rule)" */
static int compact_line(const char *s, size_t len, callus_diags *diags, callus_strlist *files,
			const callus_pathctx *pc)
{
	const char *at = NULL, *sev;
	size_t i, n, msg, end, rule = 0, rule_len = 0, used;
	long line, col;
	int rc;

	for (i = 1; i + 7 < len; i++)
		if (!memcmp(s + i, ": line ", 7)) {
			at = s + i;
			break;
		}
	if (!at || is_space(s[0]))
		return 0;
	i += 7;
	line = num(s + i, len - i, &n);
	i += n;
	if (!n || !callus_pu_starts(s + i, len - i, ", col "))
		return 0;
	i += 6;
	col = num(s + i, len - i, &n);
	i += n;
	if (!n || !callus_pu_starts(s + i, len - i, ", "))
		return 0;
	i += 2;
	if (!(sev = severity_word(s + i, len - i, &used)) ||
	    !callus_pu_starts(s + i + used, len - i - used, " - "))
		return 0;
	msg = i + used + 3;
	end = len;
	if (end > msg + 2 && s[end - 1] == ')') {
		const char *open = s + end - 1;

		while (open > s + msg && *open != '(')
			open--;
		if (*open == '(' && open > s + msg && open[-1] == ' ' &&
		    is_rule(open + 1, (size_t)(s + end - 2 - open))) {
			rule = (size_t)(open + 1 - s);
			rule_len = (size_t)(s + end - 2 - open);
			end = (size_t)(open - 1 - s);
		}
	}
	rc = add(diags, files, pc, s, (size_t)(at - s), line, col, rule ? s + rule : NULL,
		 rule_len, s + msg, end - msg, sev);
	return rc < 0 ? rc : 1;
}

/* A line holding nothing but a path: stylish's file header. */
static int file_header(const char *s, size_t len)
{
	if (!len || is_space(s[0]) || s[len - 1] == ':')
		return 0;
	for (size_t i = 1; i < len; i++)
		if (is_space(s[i]) && is_space(s[i - 1]))
			return 0;
	return callus_path_has_source_ext(s, len) || (s[0] == '/' && memchr(s, '.', len));
}

static int parse_lines(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	callus_buf file = CALLUS_BUF_INIT;
	const char *s;
	size_t len;
	int rc;

	callus_js_lines_init(&it, in);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		if (!len || callus_js_wrapper_noise(s, len))
			continue;
		if (is_space(s[0])) {
			if (file.len && (rc = stylish_message(s, len, file.ptr, file.len,
							      diags, files, in->pc)) < 0)
				break;
			continue;
		}
		if ((rc = unix_line(s, len, diags, files, in->pc)) != 0 ||
		    (rc = compact_line(s, len, diags, files, in->pc)) != 0) {
			if (rc < 0)
				break;
			continue;
		}
		callus_buf_clear(&file);
		if (file_header(s, len)) {
			callus_buf_put(&file, s, len);
			if ((rc = callus_buf_status(&file)) < 0)
				break;
		}
	}
	callus_js_lines_release(&it);
	callus_buf_release(&file);
	return rc < 0 ? rc : 0;
}

/* ----- -f json, -f json-with-metadata ----------------------------------- */

static int json_results(json_t *results, callus_diags *diags, callus_strlist *files,
			const callus_pathctx *pc)
{
	size_t i, k;
	json_t *r, *m;

	json_array_foreach (results, i, r) {
		const char *path = json_string_value(json_object_get(r, "filePath"));
		json_t *messages = json_object_get(r, "messages");

		if (!path || !json_is_array(messages))
			continue;
		json_array_foreach (messages, k, m) {
			const char *msg =
			    json_string_value(json_object_get(m, "message"));
			const char *rule =
			    json_string_value(json_object_get(m, "ruleId"));
			json_int_t sev =
			    json_integer_value(json_object_get(m, "severity"));
			json_int_t line = json_integer_value(json_object_get(m, "line"));
			json_int_t col = json_integer_value(json_object_get(m, "column"));
			int rc;

			if (!msg)
				continue;
			rc = add(diags, files, pc, path, strlen(path),
				 line > 0 && line < 1000000000 ? (long)line : 0,
				 col > 0 && col < 1000000000 ? (long)col : 0, rule,
				 rule && is_rule(rule, strlen(rule)) ? strlen(rule) : 0,
				 msg, strlen(msg), sev == 1 ? "warning" : "error");
			if (rc < 0)
				return rc;
		}
		/* a file with problems is affected even when they are beyond
		 * CALLUS_DIAGS_MAX */
		if (json_array_size(messages) &&
		    callus_parse_file(files, NULL, pc, path, strlen(path)) < 0)
			return CALLUS_ENOMEM;
	}
	return 0;
}

/* Where the JSON starts: a line opening the results array (npm may have
 * printed lines before it). */
static const char *json_start(const char *p, const char *end, int *object)
{
	const char *line;
	size_t len;

	while (callus_next_line(&p, end, &line, &len)) {
		if (callus_pu_starts(line, len, "[{\"filePath\":") ||
		    (len >= 2 && line[0] == '[' && line[1] == ']')) {
			*object = 0;
			return line;
		}
		if (callus_pu_starts(line, len, "{\"results\":[")) {
			*object = 1;
			return line;
		}
	}
	return NULL;
}

static int parse_json(const callus_parse_input *in, callus_diags *diags, callus_strlist *files,
		      int *found)
{
	const char *start, *end;
	json_t *root = NULL, *results;
	json_error_t jerr;
	callus_buf cut = CALLUS_BUF_INIT;
	int object = 0, rc = 0;

	*found = 0;
	if (!in->raw)
		return 0;
	end = in->raw + in->raw_len;
	if (!(start = json_start(in->raw, end, &object)))
		return 0;
	*found = 1;
	root = json_loadb(start, (size_t)(end - start), JSON_DISABLE_EOF_CHECK, &jerr);
	if (!root) {
		/* An output cut at the raw head's limit: the files before the
		 * last complete one still parse.  `},{"filePath":` cannot occur
		 * inside a JSON string, where quotes are escaped. */
		static const char sep[] = "},{\"filePath\":";
		const char *last = NULL;

		for (const char *q = start; q + sizeof(sep) - 1 <= end;) {
			const char *hit = memchr(q, '}', (size_t)(end - q));
			if (!hit || hit + sizeof(sep) - 1 > end)
				break;
			if (!memcmp(hit, sep, sizeof(sep) - 1))
				last = hit;
			q = hit + 1;
		}
		if (!last)
			goto out;
		callus_buf_put(&cut, start, (size_t)(last + 1 - start));
		callus_buf_puts(&cut, object ? "]}" : "]");
		if ((rc = callus_buf_status(&cut)) < 0)
			goto out;
		root = json_loadb(cut.ptr, cut.len, 0, &jerr);
	}
	results = object ? json_object_get(root, "results") : root;
	if (json_is_array(results))
		rc = json_results(results, diags, files, in->pc);
out:
	json_decref(root);
	callus_buf_release(&cut);
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	int found, rc = parse_json(in, diags, files, &found);

	if (rc < 0 || found)
		return rc;
	return parse_lines(in, diags, files);
}

/* npm run lint: a line of one of eslint's formats, "✖ 3 problems (2
 * errors, 1 warning)" (stylish), a results array (json), "[Error/rule]"
 * lines (unix), ", Error - " (compact) */
static int sniff_line(const char *s, size_t n)
{
	size_t i = callus_js_indent(s, n), k;

	if (callus_pu_starts(s + i, n - i, "\xe2\x9c\x96 ") && i + 4 < n &&
	    is_digit(s[i + 4])) {
		for (k = i + 4; k < n && is_digit(s[k]); k++)
			;
		if (callus_pu_starts(s + k, n - k, " problem"))
			return 1;
	}
	if (callus_pu_starts(s, n, "[{\"filePath\":\"") ||
	    callus_pu_starts(s, n, "{\"results\":[{\"filePath\":\""))
		return 1;
	if (n > 10 && s[n - 1] == ']' && !is_space(s[0])) {
		const char *br = s + n - 1;
		while (br > s && br[-1] != '[')
			br--;
		if ((callus_pu_starts(br, (size_t)(s + n - br), "Error") ||
		     callus_pu_starts(br, (size_t)(s + n - br), "Warning")) &&
		    memmem(s, n, ": ", 2) && br - s > 2 && br[-2] == ' ') {
			size_t fl;
			long l, c;
			const char *colon = memmem(s, n, ": ", 2);
			if (callus_js_split_location(s, (size_t)(colon - s), &fl,
						   &l, &c) &&
			    c)
				return 1;
		}
	}
	/* a comma looked for first: rare in a compiler's line */
	if (memchr(s, ',', n) && memmem(s, n, ": line ", 7) &&
	    (memmem(s, n, ", Error - ", 10) || memmem(s, n, ", Warning - ", 12)))
		return 1;
	return 0;
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = {"eslint", NULL};

const callus_parser callus_parser_eslint = { "eslint", tools, sniff, parse, sniff_line };
