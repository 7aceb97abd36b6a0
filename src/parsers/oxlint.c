/*
 * oxlint.c - oxlint's report, graphical (the default) and unix:
 *
 *     ! eslint(no-debugger): `debugger` statement is not allowed
 *      ,-[src/cart.js:7:5]
 *    6 |   if (sum == null) {
 *   src/cart.js:7:5: `debugger` statement is not allowed [Warning/eslint(no-debugger)]
 *
 * One diagnostic per finding, located by the line under its header ("╭─["
 * in a terminal's charset).  The code is the rule: bare for the eslint
 * plugin's, as eslint names them (oxlint and eslint finding the same
 * mistake make one error), "plugin/rule" for the others.  "x" (×) marks an
 * error, "!" (⚠) a warning; warnings fail the run with --deny-warnings.
 * `-f junit` is read by the JUnit parser, its codes made the same.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "plugin(rule)" -> the code, into out. */
static int rule_code(callus_buf *out, const char *s, size_t len)
{
	const char *open = memchr(s, '(', len);

	callus_buf_clear(out);
	if (!open || s[len - 1] != ')' || open == s)
		return 0;
	if ((size_t)(open - s) == 6 && !memcmp(s, "eslint", 6)) {
		callus_buf_put(out, open + 1, len - (size_t)(open - s) - 2);
	} else if ((size_t)(open - s) == 10 && !memcmp(s, "typescript", 10)) {
		callus_buf_puts(out, "@typescript-eslint/");
		callus_buf_put(out, open + 1, len - (size_t)(open - s) - 2);
	} else {
		callus_buf_put(out, s, (size_t)(open - s));
		callus_buf_putc(out, '/');
		callus_buf_put(out, open + 1, len - (size_t)(open - s) - 2);
	}
	return 1;
}

/* "  ! plugin(rule): message" -> severity, rule and message. */
static const char *header_line(const char *s, size_t len, const char **rule, size_t *rl,
			       const char **msg, size_t *ml)
{
	size_t i = callus_pu_indent(s, len), n;
	const char *sev;
	long colon;

	if (callus_pu_starts(s + i, len - i, "x ")) {
		sev = "error";
		n = 2;
	} else if (callus_pu_starts(s + i, len - i, "\xc3\x97 ")) {
		sev = "error";
		n = 3;
	} else if (callus_pu_starts(s + i, len - i, "! ")) {
		sev = "warning";
		n = 2;
	} else if (callus_pu_starts(s + i, len - i, "\xe2\x9a\xa0 ")) {
		sev = "warning";
		n = 4;
	} else {
		return NULL;
	}
	i += n;
	colon = callus_pu_find(s + i, len - i, "): ");
	if (colon <= 0 || !memchr(s + i, '(', (size_t)colon) || memchr(s + i, ' ', (size_t)colon))
		return NULL;
	*rule = s + i;
	*rl = (size_t)colon + 1;
	*msg = s + i + colon + 3;
	*ml = len - i - (size_t)colon - 3;
	return sev;
}

/* ",-[src/cart.js:7:5]" or "╭─[src/cart.js:7:5]" */
static int location_line(const char *s, size_t len, callus_pu_loc *loc)
{
	long open = callus_pu_find(s, len, "-[");

	if (open < 0 && (open = callus_pu_find(s, len, "\xe2\x94\x80[")) >= 0)
		open += 2;
	if (open < 0 || s[len - 1] != ']')
		return 0;
	return callus_pu_location(s + open + 2, len - (size_t)open - 3, loc) &&
	       loc->end == len - (size_t)open - 3;
}

/* unix: "PATH:L:C: msg [Warning/eslint(no-debugger)]" */
static int unix_line(const char *s, size_t len, callus_pu_loc *loc, const char **msg, size_t *ml,
		     const char **sev, const char **rule, size_t *rl)
{
	long open;
	const char *slash;

	if (!callus_pu_location(s, len, loc) || !loc->has_col || len < 4 || s[len - 1] != ']')
		return 0;
	for (open = (long)len - 2; open > 0 && s[open] != '['; open--)
		;
	if (open <= (long)loc->end || !(slash = memchr(s + open, '/', len - (size_t)open)))
		return 0;
	if (callus_pu_starts(s + open + 1, len - (size_t)open - 1, "Error/"))
		*sev = "error";
	else if (callus_pu_starts(s + open + 1, len - (size_t)open - 1, "Warning/"))
		*sev = "warning";
	else
		return 0;
	*rule = slash + 1;
	*rl = (size_t)(s + len - 1 - *rule);
	/* "plugin(rule)": eslint's unix format says "[Error/no-undef]" */
	if (*rl < 3 || (*rule)[*rl - 1] != ')' || !memchr(*rule, '(', *rl))
		return 0;
	*msg = s + loc->end;
	*ml = (size_t)open - loc->end;
	callus_pu_trim(msg, ml);
	return 1;
}

/* `-f junit`: JUnit XML, its cases named by "plugin(rule)"; the codes made
 * the same as the other formats'. */
static int parse_junit(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_buf code = CALLUS_BUF_INIT;
	size_t before = diags->count;
	int rc = callus_parser_junit.parse(in, diags, files);

	for (size_t i = before; rc >= 0 && i < diags->count; i++) {
		callus_diag *d = &diags->items[i];

		if (d->code && rule_code(&code, d->code, strlen(d->code)) &&
		    (rc = callus_buf_status(&code)) >= 0)
			rc = callus_diag_set(&d->code, code.ptr, code.len);
	}
	callus_buf_release(&code);
	return rc < 0 ? rc : 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_buf code = CALLUS_BUF_INIT, msg = CALLUS_BUF_INIT;
	callus_pu_lines it;
	const char *s, *sev, *pending = NULL, *rule, *m;
	size_t len, rl, ml;
	callus_pu_loc loc;
	int rc;

	if (callus_parser_sniff(&callus_parser_junit, in->text, in->text_len) ||
	    (in->raw && callus_parser_sniff(&callus_parser_junit, in->raw, in->raw_len)))
		return parse_junit(in, diags, files);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if ((sev = header_line(s, len, &rule, &rl, &m, &ml))) {
			pending = sev;
			rule_code(&code, rule, rl);
			callus_buf_clear(&msg);
			callus_buf_put(&msg, m, ml);
			continue;
		}
		if (pending && location_line(s, len, &loc)) {
			if ((rc = callus_buf_status(&code)) < 0 || (rc = callus_buf_status(&msg)) < 0 ||
			    (rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, loc.col, code.len ? code.ptr : NULL, code.len,
					       msg.ptr, msg.len, pending)) < 0)
				break;
			pending = NULL;
			continue;
		}
		if (unix_line(s, len, &loc, &m, &ml, &sev, &rule, &rl)) {
			rule_code(&code, rule, rl);
			if ((rc = callus_buf_status(&code)) < 0 ||
			    (rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, loc.col, code.len ? code.ptr : NULL, code.len,
					       m, ml, sev)) < 0)
				break;
		}
	}
	callus_buf_release(&code);
	callus_buf_release(&msg);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	const char *rule, *msg, *sev;
	size_t rl, ml;
	callus_pu_loc loc;

	return (header_line(s, len, &rule, &rl, &msg, &ml) != NULL) ||
	       unix_line(s, len, &loc, &msg, &ml, &sev, &rule, &rl) ||
	       (callus_pu_starts(s, len, "Finished in ") && callus_pu_find(s, len, " rules using ") > 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "oxlint", NULL };

const callus_parser callus_parser_oxlint = { "oxlint", tools, sniff, parse, sniff_line };
