/*
 * black.c - black run as a check (--check, with or without --diff):
 *
 *   would reformat /abs/app/style.py
 *   error: cannot format app/x.py: Cannot parse: 3:7: def f(
 *   1 file would be reformatted, 4 files would be left unchanged.
 *
 * One diagnostic per file: a formatter says which files, not where (a
 * --diff's hunks are what it would change, not errors).  A parse error
 * says where black could not read the file.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

static int black_parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s;
	size_t len;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (callus_pu_starts(s, len, "would reformat ")) {
			if ((rc = callus_pu_diag(NULL, diags, files, in->pc, s + 15, len - 15, 0, 0,
					       NULL, 0, "would reformat", 14, "error")) < 0)
				break;
			continue;
		}
		/* "error: cannot format app/x.py: Cannot parse: 3:7: def f(" */
		if (callus_pu_starts(s, len, "error: cannot format ")) {
			const char *p = s + 21, *m;
			long sep = callus_pu_find(p, len - 21, ": ");
			size_t ml, n;
			long line = 0, col = 0;

			if (sep <= 0)
				continue;
			m = p + sep + 2;
			ml = (size_t)(s + len - m);
			if (callus_pu_starts(m, ml, "Cannot parse: ")) {
				line = callus_pu_num(m + 14, ml - 14, &n);
				if (n && 14 + n + 1 < ml && m[14 + n] == ':')
					col = callus_pu_num(m + 15 + n, ml - 15 - n, &n);
			}
			if ((rc = callus_pu_diag(NULL, diags, files, in->pc, p, (size_t)sep, line, col,
					       NULL, 0, m, ml, "error")) < 0)
				break;
		}
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int black_sniff_line(const char *s, size_t len)
{
	return callus_pu_starts(s, len, "would reformat ") ||
	       (callus_pu_find(s, len, " would be reformatted") > 0 &&
		callus_pu_find(s, len, " file") > 0);
}

static int black_sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, black_sniff_line);
}

static const char *const tools[] = { "black", NULL };

const callus_parser callus_parser_black = { "black", tools, black_sniff, black_parse, NULL };
