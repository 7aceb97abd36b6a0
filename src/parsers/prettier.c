/*
 * prettier.c - prettier --check (and --list-different):
 *
 *   Checking formatting...
 *   [warn] src/format.js
 *   [warn] Code style issues found in the above file. Run Prettier with --write to fix.
 *   [error] src/broken.js: SyntaxError: Unexpected token (3:5)
 *
 * One diagnostic per file: a formatter says which files, not where.  A file
 * it cannot parse is an error at the place its message gives.
 * --list-different prints the files alone, one a line.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "(3:5)" at the end -> line and column. */
static size_t trailing_position(const char *s, size_t len, long *line, long *col)
{
	size_t open, n, m;

	if (len < 5 || s[len - 1] != ')')
		return 0;
	for (open = len - 1; open > 0 && s[open - 1] != '('; open--)
		;
	if (!open)
		return 0;
	*line = callus_pu_num(s + open, len - open, &n);
	if (!n || open + n >= len || s[open + n] != ':')
		return 0;
	*col = callus_pu_num(s + open + n + 1, len - open - n - 1, &m);
	if (!m || open + n + 1 + m != len - 1)
		return 0;
	return len - open + 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	int list = callus_pu_find(in->command, strlen(in->command), "--list-different") >= 0 ||
		   callus_pu_find(in->command, strlen(in->command), " -l") >= 0;
	callus_pu_lines it;
	const char *s;
	size_t len;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (callus_pu_starts(s, len, "[warn] ") && !memchr(s + 7, ' ', len - 7)) {
			rc = callus_pu_diag(NULL, diags, files, in->pc, s + 7, len - 7, 0, 0, NULL, 0,
					  "Code style issues found", 23, "error");
		} else if (callus_pu_starts(s, len, "[error] ")) {
			long sep = callus_pu_find(s + 8, len - 8, ": ");
			const char *m;
			size_t ml, cut;
			long line = 0, col = 0;

			if (sep <= 0 || memchr(s + 8, ' ', (size_t)sep))
				continue;
			m = s + 8 + sep + 2;
			ml = (size_t)(s + len - m);
			if ((cut = trailing_position(m, ml, &line, &col)))
				ml -= cut;
			callus_pu_trim(&m, &ml);
			rc = callus_pu_diag(NULL, diags, files, in->pc, s + 8, (size_t)sep, line, col,
					  NULL, 0, m, ml, "error");
		} else if (list && len && !memchr(s, ' ', len) &&
			   callus_path_has_source_ext(s, len)) {
			rc = callus_pu_diag(NULL, diags, files, in->pc, s, len, 0, 0, NULL, 0,
					  "Code style issues found", 23, "error");
		}
		if (rc < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	return callus_pu_starts(s, len, "[warn] Code style issues") ||
	       callus_pu_starts(s, len, "Checking formatting...");
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "prettier", NULL };

const callus_parser callus_parser_prettier = { "prettier", tools, sniff, parse, sniff_line };
