/*
 * pyflakes.c - pyflakes's report, "path:LINE:COL: message" (and
 * "path:LINE: message" before pyflakes 2.2); a syntax error is followed by
 * its source and caret lines, which are context.
 *
 * pyflakes prints no codes, but flake8 gives each of its messages one (the
 * F codes of flake8's documentation): the same code is given here, so that
 * an unused import is one error whether flake8 or pyflakes found it.  A
 * message flake8 has no code for keeps none.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* flake8's code for a pyflakes message: what it starts and ends with. */
static const struct {
	const char *starts, *ends, *code;
} fcodes[] = {
	{ "'from ", "used; unable to detect undefined names", "F403" },
	{ "import ", " shadowed by loop variable", "F402" },
	{ "", " may be undefined, or defined from star imports: ", "F405" },
	{ "", " imported but unused", "F401" },
	{ "redefinition of unused ", "", "F811" },
	{ "undefined name ", " in __all__", "F822" },
	{ "undefined name ", "", "F821" },
	{ "local variable ", " referenced before assignment", "F823" },
	{ "local variable ", " is assigned to but never used", "F841" },
	{ "duplicate argument ", "", "F831" },
	{ "f-string is missing placeholders", "", "F541" },
	{ "'...' % ... has unused named argument", "", "F504" },
	{ "'...'.format(...) has unused arguments", "", "F523" },
	{ "dictionary key ", " repeated with different values", "F601" },
	{ "use ==/!= to compare constant literals", "", "F632" },
	{ "'return' outside function", "", "F706" },
	{ "'yield' outside function", "", "F704" },
	{ "'break' outside loop", "", "F701" },
	{ "'continue' not properly in loop", "", "F702" },
	{ "assertion is always true", "", "F631" },
	{ "syntax error in forward annotation ", "", "F722" },
};

static const char *fcode(const char *msg, size_t len)
{
	for (size_t k = 0; k < sizeof(fcodes) / sizeof(fcodes[0]); k++) {
		const char *e = fcodes[k].ends;

		if (!callus_pu_starts(msg, len, fcodes[k].starts))
			continue;
		/* "may be undefined, or defined from star imports: os" ends with the module */
		if (*e && (e[strlen(e) - 1] == ' ' ? callus_pu_find(msg, len, e) < 0
						     : !callus_pu_ends(msg, len, e)))
			continue;
		return fcodes[k].code;
	}
	return NULL;
}

static int pyflakes_line(const char *s, size_t len, callus_pu_loc *loc, const char **msg,
			 size_t *ml)
{
	if (!callus_pu_location(s, len, loc) || loc->end >= len || s[loc->end] != ' ' ||
	    !(callus_pu_ends(loc->path, loc->path_len, ".py") ||
	      callus_pu_ends(loc->path, loc->path_len, ".pyi")))
		return 0;
	*msg = s + loc->end;
	*ml = len - loc->end;
	callus_pu_trim(msg, ml);
	return *ml > 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	const char *s, *msg, *code;
	size_t len, ml;
	callus_pu_loc loc;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!pyflakes_line(s, len, &loc, &msg, &ml))
			continue;
		code = fcode(msg, ml);
		if ((rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len, loc.line,
				       loc.col, code, code ? strlen(code) : 0, msg, ml, "error")) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	const char *msg;
	size_t ml;

	return pyflakes_line(s, len, &loc, &msg, &ml) && fcode(msg, ml);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "pyflakes", NULL };

const callus_parser callus_parser_pyflakes = { "pyflakes", tools, sniff, parse, sniff_line };
