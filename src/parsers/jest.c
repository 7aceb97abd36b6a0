/*
 * jest.c - jest's default reporter.
 *
 *   FAIL test/sum.test.js                      (" FAIL " badge in colour)
 *     ● sum › adds 2 + 2 to equal 4
 *
 *       expect(received).toBe(expected) // Object.is equality
 *
 *       Expected: 4
 *       Received: 3
 *
 *       >  9 |     expect(sum(2, 2)).toBe(4);       (code frame)
 *
 *       at Object.toBe (test/sum.test.js:9:23)
 *
 * One diagnostic per "●" block: the test's name, the matcher line with its
 * Expected/Received lines (a diff is left out: the summary has room for
 * it, a message does not), located at the innermost in-project frame.
 * "● Test suite failed to run" is an error of the file, without a test;
 * "● Console" blocks are console output, not failures.  With more than 20
 * suites jest repeats every failure under "Summary of all failing tests":
 * reading stops there.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <string.h>

#define BULLET "\xe2\x97\x8f " /* "● " */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "  > 9 | code", "    | ^": a code frame line */
static int code_frame(const char *s, size_t len)
{
	size_t i = callus_js_indent(s, len);

	if (i < len && s[i] == '>')
		i++;
	i += callus_js_indent(s + i, len - i);
	while (i < len && is_digit(s[i]))
		i++;
	i += callus_js_indent(s + i, len - i);
	return i < len && s[i] == '|';
}

/* The suite file of "FAIL test/a.test.js (5.1 s)": the last token with a
 * source extension (a project's display name may stand before it). */
static int suite_file(const char *s, size_t len, const char **file, size_t *file_len)
{
	size_t i = 0;
	int found = 0;

	while (i < len) {
		size_t j;

		while (i < len && s[i] == ' ')
			i++;
		for (j = i; j < len && s[j] != ' '; j++)
			;
		if (j > i && callus_path_has_source_ext(s + i, j - i)) {
			*file = s + i;
			*file_len = j - i;
			found = 1;
		}
		i = j;
	}
	return found;
}

/* "Expected: 4", "Received array: [...]", "Expected substring: ..." */
static int expected_received(const char *s, size_t len)
{
	return (callus_pu_starts(s, len, "Expected") ||
		callus_pu_starts(s, len, "Received")) &&
	       memchr(s, ':', len);
}

/* The matcher line without jest's "// Object.is equality" aside. */
static size_t drop_aside(const char *s, size_t len)
{
	const char *c;

	if (!callus_pu_starts(s, len, "expect(") || !(c = memmem(s, len, " // ", 4)))
		return len;
	return (size_t)(c - s);
}

/* "SyntaxError: /abs/test/x.test.js: Unexpected token (4:26)": babel's
 * location of a suite that does not parse. */
static void trailing_location(const char *s, size_t len, long *line, long *col)
{
	size_t i = len, n = 0;
	long c = 0, l = 0, scale = 1;

	if (len < 6 || s[len - 1] != ')')
		return;
	for (i = len - 1; i > 0 && is_digit(s[i - 1]) && n < 9; i--, n++, scale *= 10)
		c += (s[i - 1] - '0') * scale;
	if (!n || i < 2 || s[i - 1] != ':')
		return;
	i--;
	for (n = 0, scale = 1; i > 0 && is_digit(s[i - 1]) && n < 9;
	     i--, n++, scale *= 10)
		l += (s[i - 1] - '0') * scale;
	if (!n || i < 1 || s[i - 1] != '(')
		return;
	*line = l;
	*col = c;
}

enum { NONE, SUITE, FAILURE, CONSOLE };

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	callus_js_failure f;
	callus_buf suite = CALLUS_BUF_INIT;
	const char *s;
	size_t len;
	int rc, state = NONE, suite_error = 0;

	callus_js_lines_init(&it, in);
	callus_js_failure_init(&f);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len);
		const char *t = s + i, *file;
		size_t tl = len - i, file_len;
		callus_js_frame fr;

		if (!len || callus_js_wrapper_noise(s, len))
			continue;
		if (callus_pu_starts(t, tl, "FAIL ") || callus_pu_starts(t, tl, "PASS ")) {
			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) <
			    0)
				break;
			callus_buf_clear(&suite);
			state = NONE;
			if (t[0] == 'F' && suite_file(t + 5, tl - 5, &file, &file_len)) {
				/* affected even if every frame is elsewhere */
				if ((rc = callus_js_path(&suite, file, file_len)) < 0 ||
				    (rc = callus_parse_file(files, NULL, in->pc, suite.ptr,
							  suite.len)) < 0)
					break;
				state = SUITE;
			}
			continue;
		}
		if (callus_pu_starts(t, tl, "Summary of all failing tests") ||
		    callus_pu_starts(t, tl, "Test Suites:"))
			break;
		if (callus_pu_starts(t, tl, BULLET)) {
			const char *name = t + 4;
			size_t name_len = tl - 4;

			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) <
			    0)
				break;
			if (callus_pu_starts(name, name_len, "Console") && name_len == 7) {
				state = CONSOLE;
				continue;
			}
			callus_js_failure_start(&f);
			state = FAILURE;
			suite_error = name_len == 24 &&
				      !memcmp(name, "Test suite failed to run", 24);
			if (!suite_error &&
			    (rc = callus_js_failure_test(&f, name, name_len)) < 0)
				break;
			callus_buf_put(&f.file, suite.ptr, suite.len);
			continue;
		}
		if (state != FAILURE)
			continue;
		if (callus_js_parse_frame(s, len, 1, &fr)) {
			if ((rc = callus_js_failure_frame(&f, in->pc, &fr)) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(t, tl, "at ") || code_frame(s, len) || f.frames.count)
			continue;
		if (!f.has_header) {
			f.has_header = 1;
			rc = callus_js_message_add(&f.message, t, drop_aside(t, tl));
			if (suite_error)
				trailing_location(t, tl, &f.line, &f.column);
		} else if (expected_received(t, tl)) {
			rc = callus_js_message_add(&f.message, t, tl);
		}
		if (rc < 0)
			break;
	}
	if (rc >= 0)
		rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL);
	callus_js_failure_release(&f);
	callus_js_lines_release(&it);
	callus_buf_release(&suite);
	return rc < 0 ? rc : 0;
}

/* "Tests:       4 failed, 3 passed, 7 total", or a "● test" line */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;

	while (callus_next_line(&p, end, &s, &n)) {
		size_t i = callus_js_indent(s, n);

		if (callus_pu_starts(s, n, "Tests:") && memmem(s, n, " failed", 7))
			return 1;
		if (i && callus_pu_starts(s + i, n - i, BULLET) && n - i > 4)
			return 1;
	}
	return 0;
}

static const char *const tools[] = {"jest", NULL};

const callus_parser callus_parser_jest = { "jest", tools, sniff, parse, NULL };
