/*
 * bun.c - `bun test`'s reporter.
 *
 *   test/cart.test.ts:                       (a test file)
 *   14 |   test("takes ten percent off", () => {   (code frame)
 *   15 |     expect(discount(700, 10)).toBe(630);
 *                                      ^
 *   error: expect(received).toBe(expected)
 *
 *   Expected: 630
 *   Received: -6300
 *
 *         at <anonymous> (/abs/test/cart.test.ts:15:31)
 *   (fail) cart > takes ten percent off [0.18ms]
 *
 * Unlike jest, the failure comes first and the test's name last: what is
 * read since the previous "(pass)"/"(fail)" line is the failure the
 * "(fail)" line closes.  One diagnostic per failing test: its name, the
 * error line ("error: " dropped: bun's word for a thrown value, not part of
 * the message) with the Expected/Received lines, located at the innermost
 * in-project frame.  An error outside any test ("# Unhandled error between
 * tests", between lines of dashes) is an error of its file.  Reading stops
 * at the totals (" 3 fail") and at the recap of failing tests.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "15 |     code", "   | ^", or a caret line alone */
static int code_frame(const char *s, size_t len)
{
	size_t i = callus_js_indent(s, len);

	if (i == len)
		return 0;
	if (s[i] == '^') {
		while (i < len && (s[i] == '^' || s[i] == ' '))
			i++;
		return i == len;
	}
	while (i < len && is_digit(s[i]))
		i++;
	while (i < len && s[i] == ' ')
		i++;
	return i < len && s[i] == '|';
}

/* "test/cart.test.ts:", flush left: the file the next tests are in */
static int suite_header(const char *s, size_t len)
{
	return len > 1 && s[0] != ' ' && s[len - 1] == ':' && !memchr(s, ' ', len) &&
	       callus_path_has_source_ext(s, len - 1);
}

/* "TypeError: ...", "AssertionError [ERR_X]: ...": a thrown error's line */
static int error_line(const char *s, size_t len)
{
	size_t i = 0;

	if (callus_pu_starts(s, len, "error: "))
		return 1;
	if (!len || s[0] < 'A' || s[0] > 'Z')
		return 0;
	while (i < len && s[i] != ':' && s[i] != ' ' && s[i] != '[')
		i++;
	return i >= 5 && (!memcmp(s + i - 5, "Error", 5) || (i >= 9 &&
								    !memcmp(s + i - 9, "Exception", 9)));
}

/* "Expected: 4", "Received: 3", "Expected length: 2" */
static int expected_received(const char *s, size_t len)
{
	return (callus_pu_starts(s, len, "Expected") || callus_pu_starts(s, len, "Received")) &&
	       memchr(s, ':', len) && !callus_pu_starts(s, len, "Expected  -") &&
	       !callus_pu_starts(s, len, "Received  +");
}

/* The name of "(fail) cart > lists the labels [1.45ms]", without the time. */
static size_t test_name(const char *s, size_t len)
{
	if (len && s[len - 1] == ']') {
		const char *o = memrchr(s, '[', len);

		if (o && o > s && o[-1] == ' ' && memmem(o, (size_t)(s + len - o), "s]", 2))
			return (size_t)(o - s - 1);
	}
	return len;
}

/* " 3 fail", "5 tests failed:": bun's totals and recap */
static int totals(const char *s, size_t len)
{
	size_t i = callus_js_indent(s, len), d = i;

	while (i < len && is_digit(s[i]))
		i++;
	if (i == d || i >= len || s[i] != ' ')
		return 0;
	i++;
	return (len - i == 4 && !memcmp(s + i, "fail", 4)) ||
	       (len - i == 4 && !memcmp(s + i, "pass", 4)) ||
	       callus_pu_starts(s + i, len - i, "tests failed:") ||
	       callus_pu_starts(s + i, len - i, "test failed:");
}

static int dashes(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && s[i] == '-')
		i++;
	return len >= 10 && i == len;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	callus_js_failure f;
	callus_buf suite = CALLUS_BUF_INIT;
	const char *s;
	size_t len;
	int rc;

	callus_js_lines_init(&it, in);
	callus_js_failure_init(&f);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len);
		const char *t = s + i;
		size_t tl = len - i;
		callus_js_frame fr;

		if (!len || callus_js_wrapper_noise(s, len))
			continue;
		if (callus_pu_starts(s, len, "(fail) ")) {
			if (!f.open)
				callus_js_failure_start(&f);
			if (!f.file.len)
				callus_buf_put(&f.file, suite.ptr, suite.len);
			if ((rc = callus_js_failure_test(&f, s + 7, test_name(s + 7, len - 7))) < 0 ||
			    (rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(s, len, "(pass) ") || callus_pu_starts(s, len, "(skip) ") ||
		    callus_pu_starts(s, len, "(todo) ")) {
			/* whatever was read was the passing test's console output */
			callus_js_failure_release(&f);
			callus_js_failure_init(&f);
			continue;
		}
		if (suite_header(s, len)) {
			if ((f.open && f.has_header &&
			     (rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) < 0) ||
			    (rc = callus_js_path(&suite, s, len - 1)) < 0)
				break;
			callus_js_failure_release(&f);
			callus_js_failure_init(&f);
			continue;
		}
		if (totals(s, len))
			break;
		if (dashes(s, len)) {
			/* the end of an error between tests: an error of the file */
			if (f.open && f.has_header) {
				if (!f.file.len)
					callus_buf_put(&f.file, suite.ptr, suite.len);
				if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) < 0)
					break;
			}
			continue;
		}
		if (callus_js_parse_frame(s, len, 1, &fr)) {
			if (!f.open)
				callus_js_failure_start(&f);
			if ((rc = callus_js_failure_frame(&f, in->pc, &fr)) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(t, tl, "at ") || code_frame(s, len))
			continue;
		if (!f.has_header && error_line(t, tl)) {
			if (!f.open)
				callus_js_failure_start(&f);
			f.has_header = 1;
			if (callus_pu_starts(t, tl, "error: ")) {
				t += 7;
				tl -= 7;
			}
			rc = callus_js_message_add(&f.message, t, tl);
		} else if (f.has_header && !f.frames.count && expected_received(t, tl)) {
			rc = callus_js_message_add(&f.message, t, tl);
		}
		if (rc < 0)
			break;
	}
	if (rc >= 0 && f.open && f.has_header) {
		if (!f.file.len)
			callus_buf_put(&f.file, suite.ptr, suite.len);
		rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL);
	}
	callus_js_failure_release(&f);
	callus_js_lines_release(&it);
	callus_buf_release(&suite);
	return rc < 0 ? rc : 0;
}

/* "bun test v1.4.5 (a7733435c)", or a "(fail) " line */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;

	while (callus_next_line(&p, end, &s, &n)) {
		if (callus_pu_starts(s, n, "bun test v") || (n > 7 && callus_pu_starts(s, n, "(fail) ")))
			return 1;
	}
	return 0;
}

static const char *const tools[] = {"bun test", NULL};

const callus_parser callus_parser_bun = { "bun", tools, sniff, parse, NULL };
