/*
 * markdownlint.c - markdownlint-cli and markdownlint-cli2:
 *
 *   docs/guide.md:3 MD022/blanks-around-headings Headings should be surrounded by blank
 *       lines [Expected: 1; Actual: 0; Below] [Context: "## Install"]
 *   docs/guide.md:8:1 MD004/ul-style Unordered list style [Expected: asterisk; Actual: plus]
 *   docs/guide.md:8:1 error MD004/ul-style Unordered list style ...      (cli2)
 *
 * One diagnostic per finding, the rule's number (MD022) its code.  The
 * "[Context: ...]" that ends a message quotes the line: it is in the
 * source already, and would make every finding of a rule another message.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

static int md_line(const char *s, size_t len, callus_pu_loc *loc, const char **code,
		   size_t *cl, const char **msg, size_t *ml, const char **sev)
{
	size_t i, n;
	long ctx;

	if (!callus_pu_location(s, len, loc) || loc->end >= len || s[loc->end] != ' ')
		return 0;
	i = loc->end + 1;
	*sev = "error";
	if (callus_pu_starts(s + i, len - i, "error ")) {
		i += 6;
	} else if (callus_pu_starts(s + i, len - i, "warning ")) {
		*sev = "warning";
		i += 8;
	}
	if (!callus_pu_starts(s + i, len - i, "MD"))
		return 0;
	for (n = 2; i + n < len && callus_pu_is_digit(s[i + n]); n++)
		;
	if (n != 5)
		return 0;
	*code = s + i;
	*cl = n;
	while (i + n < len && s[i + n] != ' ')
		n++; /* "/blanks-around-headings" */
	i += n;
	*msg = s + i;
	*ml = len - i;
	if ((ctx = callus_pu_find(*msg, *ml, " [Context: ")) >= 0)
		*ml = (size_t)ctx;
	callus_pu_trim(msg, ml);
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s, *code, *msg, *sev;
	size_t len, cl, ml;
	callus_pu_loc loc;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!md_line(s, len, &loc, &code, &cl, &msg, &ml, &sev))
			continue;
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len, loc.line,
				       loc.col, code, cl, msg, ml, sev)) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	const char *code, *msg, *sev;
	size_t cl, ml;

	return md_line(s, len, &loc, &code, &cl, &msg, &ml, &sev);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "markdownlint", "markdownlint-cli2", NULL };

const callus_parser callus_parser_markdownlint = { "markdownlint", tools, sniff, parse,
	sniff_line };
