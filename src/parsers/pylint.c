/*
 * pylint.c - pylint's text, colorized and parseable formats:
 *
 *   ************* Module shop.cart
 *   src/shop/cart.py:1:0: C0114: Missing module docstring (missing-module-docstring)
 *   src/shop/cart.py:1: [C0114(missing-module-docstring), ] Missing module docstring
 *
 * The code is the message id (C0114); the symbol in parentheses is dropped
 * from the message.  Severity by the id's category: E and F errors, W
 * warnings, C (convention), R (refactor) and I notes.  Columns are 0-based
 * in pylint: 1 is added.  The json and json2 formats are read as JSON.
 * pylint quotes the names in its messages ("Unused variable 'x'"), except
 * in unused-import's: they are quoted here too, so that an unused import
 * is one error whatever the module, as an unused variable is.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"

#include <jansson.h>
#include <string.h>

static int is_msg_id(const char *s, size_t len)
{
	if (len != 5 || !strchr("CRWEFI", s[0]))
		return 0;
	for (size_t i = 1; i < 5; i++)
		if (!callus_pu_is_digit(s[i]))
			return 0;
	return 1;
}

/* W0611's "Unused import NAME" / "Unused NAME imported from MODULE", its
 * names quoted, into out; 0, or 1 when msg is not one of them. */
static int quote_unused_import(callus_buf *out, const char *code, const char *msg, size_t ml)
{
	static const char imp[] = "Unused import ", from[] = " imported from ";
	const char *f;

	if (memcmp(code, "W0611", 5) || ml < 8 || memchr(msg, '\'', ml))
		return 1;
	if (ml > sizeof(imp) - 1 && !memcmp(msg, imp, sizeof(imp) - 1) &&
	    !memchr(msg + sizeof(imp) - 1, ' ', ml - (sizeof(imp) - 1))) {
		callus_buf_printf(out, "%s'%.*s'", imp, (int)(ml - (sizeof(imp) - 1)),
				  msg + sizeof(imp) - 1);
		return callus_buf_status(out) < 0 ? 1 : 0;
	}
	if (ml > 7 && !memcmp(msg, "Unused ", 7) && (f = memmem(msg, ml, from, sizeof(from) - 1))) {
		const char *mod = f + sizeof(from) - 1;

		callus_buf_printf(out, "Unused '%.*s'%s'%.*s'", (int)(f - msg - 7), msg + 7, from,
				  (int)(ml - (size_t)(mod - msg)), mod);
		return callus_buf_status(out) < 0 ? 1 : 0;
	}
	return 1;
}

/* callus_pu_diag() with W0611's names quoted. */
static int add_diag(callus_diags *diags, callus_strlist *files, const callus_parse_input *in,
		    const char *path, size_t path_len, long line, long col, const char *code,
		    size_t code_len, const char *msg, size_t ml, const char *sev)
{
	callus_buf q = CALLUS_BUF_INIT;
	int rc;

	if (code_len == 5 && quote_unused_import(&q, code, msg, ml) == 0) {
		msg = q.ptr;
		ml = q.len;
	}
	rc = callus_pu_diag(NULL, diags, files, in->pc, path, path_len, line, col, code, code_len,
			  msg, ml, sev);
	callus_buf_release(&q);
	return rc;
}

static const char *severity(char c)
{
	return c == 'E' || c == 'F' ? "error" : c == 'W' ? "warning" : "note";
}

/* Returns 1 with the parts of a message line. */
static int pylint_line(const char *s, size_t len, callus_pu_loc *loc, const char **code,
		       const char **msg, size_t *ml)
{
	size_t i;

	if (!callus_pu_location(s, len, loc) || loc->end + 1 >= len || s[loc->end] != ' ')
		return 0;
	i = loc->end + 1;
	if (s[i] == '[') {
		/* parseable: "[C0114(symbol), obj] message" */
		const char *close = memchr(s + i, ']', len - i);
		if (i + 6 >= len || !is_msg_id(s + i + 1, 5) || !close ||
		    (s[i + 6] != '(' && s[i + 6] != ',' && s[i + 6] != ']'))
			return 0;
		*code = s + i + 1;
		*msg = close + 1;
		*ml = len - (size_t)(close + 1 - s);
	} else {
		if (i + 7 > len || !is_msg_id(s + i, 5) || s[i + 5] != ':')
			return 0;
		*code = s + i;
		*msg = s + i + 6;
		*ml = len - i - 6;
		/* " (missing-module-docstring)" */
		if (*ml > 3 && (*msg)[*ml - 1] == ')') {
			size_t k = *ml - 1;
			while (k > 0 && (*msg)[k - 1] != '(' && (*msg)[k - 1] != ' ')
				k--;
			if (k > 1 && (*msg)[k - 1] == '(' && (*msg)[k - 2] == ' ')
				*ml = k - 2;
		}
	}
	callus_pu_trim(msg, ml);
	return 1;
}

static const char *json_severity(const char *type)
{
	if (!strcmp(type, "error") || !strcmp(type, "fatal"))
		return "error";
	return strcmp(type, "warning") ? "note" : "warning";
}

/*
 * --output-format=json (an array of messages) and json2 ({"messages": [...]},
 * pylint 3): the whole output is one document, so it is read from the raw
 * output; 1 when it was one.
 */
static int parse_json(const callus_parse_input *in, callus_diags *diags, callus_strlist *files,
		      int *rc)
{
	json_t *doc, *list, *m;
	size_t i;

	if (!(doc = callus_pu_json_document(in)))
		return 0;
	list = json_is_array(doc) ? doc : json_object_get(doc, "messages");
	*rc = 0;
	json_array_foreach(list, i, m) {
		const char *path = json_string_value(json_object_get(m, "path"));
		const char *id = json_string_value(json_object_get(m, "message-id"));
		const char *msg = json_string_value(json_object_get(m, "message"));
		const char *type = json_string_value(json_object_get(m, "type"));
		json_t *line = json_object_get(m, "line"), *col = json_object_get(m, "column");

		if (!id)
			id = json_string_value(json_object_get(m, "messageId"));
		if (!msg || !id)
			continue;
		if ((*rc = add_diag(diags, files, in, path, path ? strlen(path) : 0,
				    json_is_integer(line) ? (long)json_integer_value(line) : 0,
				    json_is_integer(col) ? (long)json_integer_value(col) + 1 : 0, id,
				    strlen(id), msg, strlen(msg),
				    type ? json_severity(type) : severity(id[0]))) < 0)
			break;
	}
	json_decref(doc);
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s, *code, *msg;
	size_t len, ml;
	callus_pu_loc loc;
	int rc = 0;

	if (parse_json(in, diags, files, &rc))
		return rc;
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!pylint_line(s, len, &loc, &code, &msg, &ml))
			continue;
		if ((rc = add_diag(diags, files, in, loc.path, loc.path_len, loc.line,
				   loc.has_col ? loc.col + 1 : 0, code, 5, msg, ml,
				   severity(code[0]))) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	const char *code, *msg;
	size_t ml;

	return callus_pu_starts(s, len, "************* Module ") ||
	       (callus_pu_find(s, len, "\"message-id\": \"") >= 0) ||
	       callus_pu_starts(s, len, "Your code has been rated at ") ||
	       pylint_line(s, len, &loc, &code, &msg, &ml);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "pylint", NULL };

const callus_parser callus_parser_pylint = { "pylint", tools, sniff, parse, sniff_line };
