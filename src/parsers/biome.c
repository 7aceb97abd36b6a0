/*
 * biome.c - Biome's diagnostics (biome lint, check, ci, format):
 *
 *   src/cart.js:7:5 lint/suspicious/noDebugger  FIXABLE  ━━━━━━━━━━━━━━━━
 *
 *     × This is an unexpected use of the debugger statement.
 *
 *       5 │   }
 *     > 7 │     debugger;
 *   src/format.js format ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━
 *     × Formatter would have printed the following content:
 *
 * One diagnostic per header line (informations after the errors and
 * warnings, which fail the run): its category (lint/suspicious/noDebugger,
 * format, parse, assist/source/organizeImports) is the code, the first
 * line under it that starts with a severity mark its message: × error, !
 * warning, i information.  The code frames, notes and suggested fixes
 * under it are context.  GitHub's annotations (--reporter=github) say the
 * same in one line each:
 *
 *   ::error title=lint/suspicious/noDebugger,file=src/cart.js,line=7,...::message
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

#define RULE "\xe2\x94\x81" /* ━ */

typedef struct header {
	const char *path, *cat;
	size_t path_len, cat_len;
	long line, col;
} header;

/* "PATH[:L:C] CATEGORY [FIXABLE] ━━━" */
static int header_line(const char *s, size_t len, header *h)
{
	long bar = callus_pu_find(s, len, " " RULE);
	callus_pu_loc loc;
	size_t i, c;

	if (bar <= 0 || s[0] == ' ')
		return 0;
	if (callus_pu_location(s, (size_t)bar, &loc) && loc.end < (size_t)bar &&
	    s[loc.end] == ' ') {
		h->path = loc.path;
		h->path_len = loc.path_len;
		h->line = loc.line;
		h->col = loc.col;
		i = loc.end + 1;
	} else {
		for (i = 0; i < (size_t)bar && s[i] != ' '; i++)
			;
		if (i == 0 || i >= (size_t)bar)
			return 0;
		h->path = s;
		h->path_len = i;
		h->line = h->col = 0;
		i++;
	}
	for (c = i; c < (size_t)bar && s[c] != ' '; c++)
		;
	if (c == i)
		return 0;
	h->cat = s + i;
	h->cat_len = c - i;
	/* categories are words and slashes: lint/style/useTemplate, format, parse */
	for (size_t k = 0; k < h->cat_len; k++)
		if (!((h->cat[k] >= 'a' && h->cat[k] <= 'z') || (h->cat[k] >= 'A' && h->cat[k] <= 'Z') ||
		      h->cat[k] == '/' || h->cat[k] == '_'))
			return 0;
	return 1;
}

/* "  × message" -> severity and message. */
static const char *mark(const char *s, size_t len, const char **msg, size_t *ml)
{
	size_t i = callus_pu_indent(s, len);
	const char *sev = NULL;
	size_t n = 0;

	if (callus_pu_starts(s + i, len - i, "\xc3\x97 ")) { /* × */
		sev = "error";
		n = 3;
	} else if (callus_pu_starts(s + i, len - i, "! ")) {
		sev = "warning";
		n = 2;
	} else if (callus_pu_starts(s + i, len - i, "i ")) {
		sev = "info";
		n = 2;
	} else if (callus_pu_starts(s + i, len - i, "\xe2\x9c\x96 ")) { /* ✖ */
		sev = "error";
		n = 4;
	}
	if (!sev)
		return NULL;
	*msg = s + i + n;
	*ml = len - i - n;
	callus_pu_trim(msg, ml);
	return sev;
}

/* "::error title=CAT,file=F,line=L,endLine=..,col=C,endColumn=..::msg" */
static int github_line(const callus_parse_input *in, const char *s, size_t len,
		       callus_diags *diags, callus_strlist *files, int *rc)
{
	const char *sev, *p, *end, *msg, *file = NULL, *title = NULL;
	size_t fl = 0, tl = 0, n;
	long line = 0, col = 0, sep;

	if (callus_pu_starts(s, len, "::error "))
		sev = "error";
	else if (callus_pu_starts(s, len, "::warning "))
		sev = "warning";
	else if (callus_pu_starts(s, len, "::notice "))
		sev = "info";
	else
		return 0;
	p = (const char *)memchr(s, ' ', len) + 1;
	if ((sep = callus_pu_find(p, (size_t)(s + len - p), "::")) < 0)
		return 0;
	end = p + sep;
	msg = end + 2;
	while (p < end) {
		const char *comma = memchr(p, ',', (size_t)(end - p)), *eq;
		const char *q = comma ? comma : end;

		if ((eq = memchr(p, '=', (size_t)(q - p)))) {
			size_t kl = (size_t)(eq - p), vl = (size_t)(q - eq - 1);

			if (kl == 4 && !memcmp(p, "file", 4)) {
				file = eq + 1;
				fl = vl;
			} else if (kl == 5 && !memcmp(p, "title", 5)) {
				title = eq + 1;
				tl = vl;
			} else if (kl == 4 && !memcmp(p, "line", 4)) {
				line = callus_pu_num(eq + 1, vl, &n);
			} else if (kl == 3 && !memcmp(p, "col", 3)) {
				col = callus_pu_num(eq + 1, vl, &n);
			}
		}
		p = q + 1;
	}
	*rc = callus_pu_diag(NULL, diags, files, in->pc, file, fl, line, col, title, tl, msg,
			   (size_t)(s + len - msg), sev);
	return 1;
}

/*
 * infos: 0 reads the errors and warnings, 1 the informations.  Biome
 * prints them in any order; the errors, which fail the run, come first.
 */
static int parse_pass(const callus_parse_input *in, callus_diags *diags, callus_strlist *files,
		      int infos)
{
	callus_buf path = CALLUS_BUF_INIT, cat = CALLUS_BUF_INIT;
	callus_pu_lines it;
	const char *s, *msg, *sev;
	size_t len, ml;
	long line = 0, col = 0;
	int rc, open = 0;
	header h;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (!infos && github_line(in, s, len, diags, files, &rc)) {
			if (rc < 0)
				break;
			continue;
		}
		if (header_line(s, len, &h)) {
			callus_buf_clear(&path);
			callus_buf_clear(&cat);
			callus_buf_put(&path, h.path, h.path_len);
			callus_buf_put(&cat, h.cat, h.cat_len);
			line = h.line;
			col = h.col;
			open = 1;
			continue;
		}
		if (!open || !(sev = mark(s, len, &msg, &ml)))
			continue;
		open = 0;
		if ((strcmp(sev, "info") == 0) != infos)
			continue;
		if ((rc = callus_buf_status(&path)) < 0 || (rc = callus_buf_status(&cat)) < 0 ||
		    (rc = callus_pu_diag(NULL, diags, files, in->pc, path.ptr, path.len, line, col,
				       cat.ptr, cat.len, msg, ml, sev)) < 0)
			break;
	}
	callus_buf_release(&path);
	callus_buf_release(&cat);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	int rc = parse_pass(in, diags, files, 0);

	return rc < 0 ? rc : parse_pass(in, diags, files, 1);
}

static int sniff_line(const char *s, size_t len)
{
	header h;

	return header_line(s, len, &h) &&
	       (callus_pu_starts(h.cat, h.cat_len, "lint/") || callus_pu_starts(h.cat, h.cat_len, "assist/") ||
		(h.cat_len == 6 && !memcmp(h.cat, "format", 6)) ||
		(h.cat_len == 5 && !memcmp(h.cat, "parse", 5)));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "biome", NULL };

const callus_parser callus_parser_biome = { "biome", tools, sniff, parse, sniff_line };
