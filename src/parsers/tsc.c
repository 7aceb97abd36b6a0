/*
 * tsc.c - the TypeScript compiler, plain and --pretty.
 *
 *   plain    src/a.ts(3,7): error TS2322: Type 'string' is not assignable ...
 *   pretty   src/a.ts:3:7 - error TS2322: Type 'string' is not assignable ...
 *   global   error TS5058: The specified path does not exist: 'nothere'.
 *
 * A chained message goes on over indented lines; the first line is kept
 * (it names the types; the chain's details need the code frame anyway).
 * --pretty also prints related locations ("  src/b.ts:1:68" and a note
 * under the code frame) and a table of files with their first error
 * ("     6  src/index.ts:3"): neither is an error of its own.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "error TS2322: message" at s: severity, code and message. */
static int sev_code(const char *s, size_t len, const char **sev, const char **code,
		    size_t *code_len, size_t *msg)
{
	static const struct {
		const char *word, *sev;
	} words[] = {
	    {"error TS", "error"}, {"warning TS", "warning"}, {"message TS", "note"}};
	size_t i = 0, w;

	for (w = 0; w < sizeof(words) / sizeof(words[0]); w++)
		if (callus_pu_starts(s, len, words[w].word))
			break;
	if (w == sizeof(words) / sizeof(words[0]))
		return 0;
	i = strlen(words[w].word);
	if (i >= len || !is_digit(s[i]))
		return 0;
	*code = s + i - 2;
	while (i < len && is_digit(s[i]))
		i++;
	if (i >= len || s[i] != ':')
		return 0;
	*code_len = (size_t)(s + i - *code);
	*sev = words[w].sev;
	i++;
	while (i < len && s[i] == ' ')
		i++;
	*msg = i;
	return 1;
}

static long num(const char *s, size_t len, size_t *used)
{
	long v = 0;
	size_t i = 0;

	while (i < len && is_digit(s[i]) && i < 9)
		v = v * 10 + (s[i++] - '0');
	*used = i;
	return v;
}

/*
 * One line: 1 when it is an error (added), 0 when not.  The file ends
 * where the location starts: "(L,C): " for plain, ":L:C - " for pretty;
 * the last such place, so that a path may hold parentheses or colons.
 */
static int error_line(const char *s, size_t len, callus_diags *diags, callus_strlist *files,
		      const callus_pathctx *pc)
{
	const char *sev, *code;
	size_t code_len, msg, i, n, file_len = 0;
	long line = 0, col = 0;
	callus_buf m = CALLUS_BUF_INIT;
	int rc;

	if (s[0] == ' ' || s[0] == '\t')
		return 0;
	if (sev_code(s, len, &sev, &code, &code_len, &msg))
		goto found;
	for (i = len; i-- > 1;) {
		size_t j = i, mm, fl = i;

		if (s[i] == '(' && i + 1 < len && is_digit(s[i + 1])) {
			/* plain: FILE(L,C): */
			line = num(s + j + 1, len - j - 1, &n);
			j += 1 + n;
			if (j >= len || s[j] != ',')
				continue;
			col = num(s + j + 1, len - j - 1, &n);
			j += 1 + n;
			if (!n || !callus_pu_starts(s + j, len - j, "): "))
				continue;
			j += 3;
		} else if (s[i] == ' ' && callus_pu_starts(s + i, len - i, " - ")) {
			/* pretty: FILE:L:C - */
			if (!callus_js_split_location(s, i, &fl, &line, &col) || !col)
				continue;
			j = i + 3;
		} else {
			continue;
		}
		if (!sev_code(s + j, len - j, &sev, &code, &code_len, &mm))
			continue;
		file_len = fl;
		msg = j + mm;
		goto found;
	}
	return 0;
found:
	callus_js_message_add(&m, s + msg, len - msg);
	if ((rc = callus_buf_status(&m)) == 0)
		rc = callus_parse_diag(diags, files, pc, file_len ? s : NULL, file_len,
				     line, col, code, code_len, m.ptr, m.len, sev);
	callus_buf_release(&m);
	return rc < 0 ? rc : 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	const char *s;
	size_t len;
	int rc;

	callus_js_lines_init(&it, in);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		if (!len || callus_js_wrapper_noise(s, len))
			continue;
		if ((rc = error_line(s, len, diags, files, in->pc)) < 0)
			break;
	}
	callus_js_lines_release(&it);
	return rc < 0 ? rc : 0;
}

/* "error TS2322:" after "(L,C): ", " - " or at the start of a line:
 * "file(1,2): error TS2304:", "file:1:2 - error TS2304:", "error TS5023:" */
static int sniff_line(const char *s, size_t n)
{
	/* each "TS" found by its capital T, rare in other tools' lines (every
	 * line of a build is asked), then "error " looked for before it */
	for (size_t i = 6; i + 2 <= n; i++) {
		const char *t = memchr(s + i, 'T', n - i - 1);
		size_t at;

		if (!t)
			break;
		i = (size_t)(t - s);
		if (s[i + 1] != 'S' || memcmp(s + i - 6, "error ", 6))
			continue;
		at = i - 6;
		if (at + 8 < n && is_digit(s[at + 8]) &&
		    (at == 0 || (at >= 3 && (!memcmp(s + at - 3, "): ", 3) ||
					     !memcmp(s + at - 3, " - ", 3))))) {
			size_t k = at + 8;
			while (k < n && is_digit(s[k]))
				k++;
			if (k < n && s[k] == ':')
				return 1;
		}
	}
	return 0;
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = {"tsc", NULL};

const callus_parser callus_parser_tsc = { "tsc", tools, sniff, parse, sniff_line };
