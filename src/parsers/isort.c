/*
 * isort.c - isort run as a check (--check-only, with or without --diff):
 *
 *   ERROR: /abs/app/shell.py Imports are incorrectly sorted and/or formatted.
 *
 * One diagnostic per file: isort says which files, not where (a --diff's
 * hunks are what it would change).
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "ERROR: PATH Imports are incorrectly sorted and/or formatted." */
static int isort_line(const char *s, size_t len, const char **path, size_t *pl)
{
	long msg = callus_pu_find(s, len, " Imports are incorrectly sorted");

	if (!callus_pu_starts(s, len, "ERROR: ") || msg <= 7)
		return 0;
	*path = s + 7;
	*pl = (size_t)msg - 7;
	return 1;
}

static int isort_parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s, *path, *m;
	size_t len, pl, ml;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!isort_line(s, len, &path, &pl))
			continue;
		m = path + pl + 1;
		ml = (size_t)(s + len - m);
		if (ml && m[ml - 1] == '.')
			ml--;
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, path, pl, 0, 0, NULL, 0, m, ml,
				       "error")) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int isort_sniff_line(const char *s, size_t len)
{
	const char *path;
	size_t pl;

	return isort_line(s, len, &path, &pl);
}

static int isort_sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, isort_sniff_line);
}

static const char *const tools[] = { "isort", NULL };

const callus_parser callus_parser_isort = { "isort", tools, isort_sniff, isort_parse, NULL };
