/*
 * cppcheck.c - cppcheck's report (stderr), with the default template
 * of cppcheck 2.x, its gcc template, and the 1.x format:
 *
 *   check/null.c:6:10: error: Null pointer dereference: p [nullPointer]
 *   check/null.c:6:10: warning: Null pointer dereference: p [nullPointer]   (--template=gcc)
 *   [check/null.c:6]: (error) Null pointer dereference: p
 *
 * One diagnostic per finding, code the checker id.  The "note:" lines that
 * follow a finding (the value's history) and the code and caret lines are
 * context; "information:" findings (missing includes, checker lists) are
 * about cppcheck's run, not the code.  Severity: error; warning, style,
 * performance and portability are warnings.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"

#include <string.h>

static const char *const sevs[] = { "error", "warning", "style", "performance",
				    "portability", "information", "debug", "note" };

/* The severity's index at s (followed by ':' or ')'), and its length. */
static int severity(const char *s, size_t len, size_t *n, char end)
{
	for (size_t k = 0; k < sizeof(sevs) / sizeof(sevs[0]); k++) {
		size_t l = strlen(sevs[k]);
		if (l < len && !memcmp(s, sevs[k], l) && s[l] == end) {
			*n = l + 1;
			return (int)k;
		}
	}
	return -1;
}

/* A checker id: letters and digits, starting with a lowercase letter. */
static int is_id(const char *s, size_t len)
{
	if (!len || s[0] < 'a' || s[0] > 'z')
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      callus_pu_is_digit(s[i]) || s[i] == '_'))
			return 0;
	return 1;
}

typedef struct finding {
	callus_pu_loc loc;
	int sev;
	const char *msg, *id;
	size_t ml, il;
} finding;

static int cppcheck_line(const char *s, size_t len, finding *f)
{
	size_t i, n;

	f->id = NULL;
	f->il = 0;
	if (len > 4 && s[0] == '[') {
		/* 1.x: "[file:line]: (severity) message" */
		long close = callus_pu_find(s, len, "]: (");
		if (close < 2 || !callus_pu_location(s + 1, (size_t)close - 1, &f->loc) ||
		    f->loc.end < (size_t)close - 1)
			return 0;
		i = (size_t)close + 4;
		if ((f->sev = severity(s + i, len - i, &n, ')')) < 0)
			return 0;
		i += n;
	} else {
		if (!callus_pu_location(s, len, &f->loc) || f->loc.end >= len || s[f->loc.end] != ' ')
			return 0;
		i = f->loc.end + 1;
		if ((f->sev = severity(s + i, len - i, &n, ':')) < 0)
			return 0;
		i += n;
		if (callus_pu_starts(s + i, len - i, "inconclusive:"))
			i += 13;
	}
	f->msg = s + i;
	f->ml = len - i;
	callus_pu_trim(&f->msg, &f->ml);
	/* " [nullPointer]" */
	if (f->ml > 3 && f->msg[f->ml - 1] == ']') {
		const char *open = f->msg + f->ml - 1;
		while (open > f->msg && open[-1] != '[')
			open--;
		if (open > f->msg + 1 && open[-2] == ' ' &&
		    is_id(open, (size_t)(f->msg + f->ml - 1 - open))) {
			f->id = open;
			f->il = (size_t)(f->msg + f->ml - 1 - open);
			f->ml = (size_t)(open - 2 - f->msg);
		}
	}
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s;
	size_t len;
	finding f;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		int nofile;

		if (!cppcheck_line(s, len, &f) || f.sev >= 5)
			continue;
		/* "nofile:0:0:" is about the whole run */
		nofile = f.loc.path_len == 6 && !memcmp(f.loc.path, "nofile", 6);
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, nofile ? NULL : f.loc.path,
				       nofile ? 0 : f.loc.path_len, f.loc.line, f.loc.col, f.id,
				       f.il, f.msg, f.ml, f.sev == 0 ? "error" : "warning")) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	finding f;

	if (callus_pu_starts(s, len, "Checking ") && callus_pu_ends(s, len, " ..."))
		return 1;
	/* the end first: every line of a build is asked */
	if (callus_pu_ends(s, len, "% done") && callus_pu_find(s, len, " files checked ") > 0)
		return 1;
	/* a C file and what gcc never prints: cppcheck's severities or ids */
	return cppcheck_line(s, len, &f) && callus_pu_is_c_family(f.loc.path, f.loc.path_len) &&
	       ((f.sev >= 2 && f.sev <= 5) || f.id);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "cppcheck", NULL };

const callus_parser callus_parser_cppcheck = { "cppcheck", tools, sniff, parse, sniff_line };
