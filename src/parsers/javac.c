/*
 * javac.c - the Java compiler's diagnostics.
 *
 *   src/main/java/shop/Cart.java:30: error: cannot find symbol
 *           return total() / count;
 *                            ^
 *     symbol:   variable count
 *     location: class Cart
 *   src/main/java/shop/Legacy.java:14: warning: [unchecked] unchecked conversion
 *   Note: src/main/java/shop/Legacy.java uses unchecked or unsafe operations.
 *   error: warnings found and -Werror specified
 *   3 errors
 *
 * One diagnostic per error or warning, at the file and line printed (javac
 * prints no column: the caret line says it, and is context).  A lint
 * warning's category ("[unchecked]", "[deprecation]") is its code; errors
 * have none.  The message is the first line only: the "symbol:" and
 * "location:" lines under it name the identifier, which would make every
 * "cannot find symbol" a different error.  "Note:" lines are about files
 * that compiled; javac's own errors without a location ("error: warnings
 * found and -Werror specified", "error: file not found: X.java") count only
 * when nothing else was found, as they are the consequence of the others or
 * the whole story.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "path.java:LINE: error: msg" -> 1, severity and the message's offset. */
static int javac_line(const char *s, size_t len, callus_pu_loc *loc, const char **sev,
		      size_t *msg_at)
{
	size_t i;

	if (!callus_pu_location(s, len, loc) || loc->has_col ||
	    !callus_pu_ends(loc->path, loc->path_len, ".java"))
		return 0;
	i = loc->end;
	if (i < len && s[i] == ' ')
		i++;
	if (callus_pu_starts(s + i, len - i, "error: ")) {
		*sev = "error";
		*msg_at = i + 7;
		return 1;
	}
	if (callus_pu_starts(s + i, len - i, "warning: ")) {
		*sev = "warning";
		*msg_at = i + 9;
		return 1;
	}
	return 0;
}

/* "[unchecked] unchecked conversion": the lint category. */
static void lint_code(const char **msg, size_t *ml, const char **code, size_t *cl)
{
	const char *close;

	*code = NULL;
	*cl = 0;
	if (*ml < 3 || (*msg)[0] != '[' || !(close = memchr(*msg, ']', *ml)) || close == *msg + 1)
		return;
	for (const char *p = *msg + 1; p < close; p++)
		if (!((*p >= 'a' && *p <= 'z') || *p == '-' || *p == '_'))
			return;
	*code = *msg + 1;
	*cl = (size_t)(close - *msg - 1);
	*ml -= (size_t)(close + 1 - *msg);
	*msg = close + 1;
	callus_pu_trim(msg, ml);
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_buf lone = CALLUS_BUF_INIT;
	size_t before = diags->count + diags->dropped;
	callus_pu_lines it;
	const char *s, *sev, *msg, *code;
	size_t len, at, ml, cl;
	callus_pu_loc loc;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (javac_line(s, len, &loc, &sev, &at)) {
			msg = s + at;
			ml = len - at;
			callus_pu_trim(&msg, &ml);
			lint_code(&msg, &ml, &code, &cl);
			if ((rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, 0, code, cl, msg, ml, sev)) < 0)
				break;
			continue;
		}
		/* javac's own: "error: file not found: x.java"; the first one */
		if (callus_pu_starts(s, len, "error: ") && !lone.len)
			callus_buf_put(&lone, s + 7, len - 7);
	}
	if (rc >= 0 && (rc = callus_buf_status(&lone)) >= 0 && lone.len &&
	    diags->count + diags->dropped == before)
		rc = callus_pu_diag(NULL, diags, files, in->pc, NULL, 0, 0, 0, NULL, 0, lone.ptr,
				  lone.len, "error");
	callus_buf_release(&lone);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	callus_pu_loc loc;
	const char *sev;
	size_t at;

	return javac_line(s, len, &loc, &sev, &at);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "javac", NULL };

const callus_parser callus_parser_javac = { "javac", tools, sniff, parse, sniff_line };
