/*
 * parse_flake8.c - flake8's default format, "path:LINE:COL: CODE message"
 * (also with --color=always, and its pylint format "path:LINE: [CODE]
 * message").  pycodestyle's W codes are warnings, everything else an error
 * (what fails the run).
 */
#include "parsers/parsers.h"
#include "parsers/util.h"

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s, *code, *msg;
	size_t len, cl, ml;
	callus_pu_loc loc;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!callus_pu_lint_line(s, len, &loc, &code, &cl, &msg, &ml))
			continue;
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
				       loc.line, loc.col, code, cl, msg, ml,
				       code[0] == 'W' ? "warning" : "error")) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	const char *code, *msg;
	size_t cl, ml;
	callus_pu_loc loc;

	return callus_pu_lint_line(s, len, &loc, &code, &cl, &msg, &ml) &&
	       (callus_pu_ends(loc.path, loc.path_len, ".py") ||
		callus_pu_ends(loc.path, loc.path_len, ".pyi"));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "flake8", NULL };

const callus_parser callus_parser_flake8 = { "flake8", tools, sniff, parse, sniff_line };
