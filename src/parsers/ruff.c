/*
 * ruff.c - ruff check's text formats.  ruff is not packaged in Debian
 * 12, so this follows its documented output and its own snapshot tests
 * rather than outputs produced here:
 *
 *   concise, and full before 0.12:  src/x.py:1:8: F401 [*] `os` imported but unused
 *   full since 0.12:                F401 [*] `os` imported but unused
 *                                    --> src/x.py:1:8
 *   grouped:                        src/x.py:
 *                                     1:8 F401 [*] `os` imported but unused
 *   pylint:                         src/x.py:1: [F401] `os` imported but unused
 *
 * Syntax errors have no code ("invalid-syntax: ...", formerly
 * "SyntaxError: ..."): their code is "invalid-syntax" either way.  The code snippets, "help:"
 * lines and the "Found 3 errors." summary are skipped.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "F401 [*] message" or "invalid-syntax: message": code and message. */
static int head(const char *s, size_t len, const char **code, size_t *cl, const char **msg,
		size_t *ml)
{
	size_t n = callus_pu_lint_code(s, len);

	if (n && n < len && s[n] == ' ') {
		*code = s;
		*cl = n;
		*msg = s + n + 1;
		*ml = len - n - 1;
	} else if (callus_pu_starts(s, len, "invalid-syntax: ") ||
		   callus_pu_starts(s, len, "SyntaxError: ")) {
		/* one code for both spellings, old and new */
		size_t at = (size_t)callus_pu_find(s, len, ": ");
		*code = "invalid-syntax";
		*cl = 14;
		*msg = s + at + 2;
		*ml = len - at - 2;
	} else {
		return 0;
	}
	if (callus_pu_starts(*msg, *ml, "[*] ")) {
		*msg += 4;
		*ml -= 4;
	}
	callus_pu_trim(msg, ml);
	return *ml > 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	callus_buf group = CALLUS_BUF_INIT, pcode = CALLUS_BUF_INIT, pmsg = CALLUS_BUF_INIT;
	const char *s, *code, *msg;
	size_t len, cl, ml;
	callus_pu_loc loc;
	int rc, pending = 0;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		size_t ind = callus_pu_indent(s, len);

		/* the new full format: " --> path:L:C" under "CODE message" */
		if (pending && callus_pu_starts(s + ind, len - ind, "--> ")) {
			pending = 0;
			if (callus_pu_location(s + ind + 4, len - ind - 4, &loc) &&
			    (rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, loc.col, pcode.ptr, pcode.len, pmsg.ptr,
					       pmsg.len, "error")) < 0)
				break;
			continue;
		}
		pending = 0;
		if (!ind && callus_pu_location(s, len, &loc)) {
			const char *rest = s + loc.end;
			size_t rl = len - loc.end;

			callus_pu_trim(&rest, &rl);
			if (head(rest, rl, &code, &cl, &msg, &ml) ||
			    callus_pu_lint_line(s, len, &loc, &code, &cl, &msg, &ml)) {
				if ((rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path,
						       loc.path_len, loc.line, loc.col, code, cl,
						       msg, ml, "error")) < 0)
					break;
			}
			continue;
		}
		/* grouped: a file, then its "  LINE:COL CODE message" lines */
		if (!ind && len > 1 && s[len - 1] == ':' && !memchr(s, ' ', len) &&
		    callus_path_has_source_ext(s, len - 1)) {
			callus_buf_clear(&group);
			callus_buf_put(&group, s, len - 1);
			if ((rc = callus_buf_status(&group)) < 0)
				break;
			continue;
		}
		if (ind && group.len && ind < len && callus_pu_is_digit(s[ind])) {
			size_t n1, n2 = 0;
			long line = callus_pu_num(s + ind, len - ind, &n1), col = 0;
			size_t i = ind + n1;

			if (i < len && s[i] == ':') {
				col = callus_pu_num(s + i + 1, len - i - 1, &n2);
				i += 1 + n2;
			}
			if (n2 && i < len && s[i] == ' ' &&
			    head(s + i + 1, len - i - 1, &code, &cl, &msg, &ml) &&
			    (rc = callus_pu_diag(NULL, diags, files, in->pc, group.ptr, group.len, line,
					       col, code, cl, msg, ml, "error")) < 0)
				break;
			continue;
		}
		if (!ind && len && !callus_pu_starts(s, len, "Found ") &&
		    head(s, len, &code, &cl, &msg, &ml)) {
			callus_buf_clear(&pcode);
			callus_buf_clear(&pmsg);
			callus_buf_put(&pcode, code, cl);
			callus_buf_put(&pmsg, msg, ml);
			if ((rc = callus_buf_status(&pcode)) < 0 || (rc = callus_buf_status(&pmsg)) < 0)
				break;
			pending = 1;
			continue;
		}
		if (!ind)
			callus_buf_clear(&group);
	}
	callus_buf_release(&group);
	callus_buf_release(&pcode);
	callus_buf_release(&pmsg);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	long star = callus_pu_find(s, len, " [*] ");

	/* what flake8 never prints: the summary, fix markers, the --> lines */
	if ((callus_pu_starts(s, len, "Found ") && (callus_pu_ends(s, len, " error.") ||
						  callus_pu_ends(s, len, " errors."))) ||
	    /* a backquote looked for first: rare in any other tool's line */
	    (memchr(s, '`', len) && (callus_pu_find(s, len, "fixable with the `--fix` option") >= 0 ||
				    callus_pu_find(s, len, "fixable with `--fix`") >= 0)) ||
	    callus_pu_starts(s, len, "No fixes available"))
		return 1;
	return star > 0;
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "ruff", NULL };

const callus_parser callus_parser_ruff = { "ruff", tools, sniff, parse, sniff_line };
