/*
 * playwright.c - Playwright test's reporters (list, the default; line,
 * dot: all print the same failure blocks).
 *
 *     1) tests/money.spec.ts:5:3 › money › parses a price ───────────
 *
 *       Error: expect(received).toBe(expected) // Object.is equality
 *
 *       Expected: 150
 *       Received: 105
 *
 *       > 6 |     expect(cents("1.5")).toBe(150);     (code frame)
 *           at /abs/tests/money.spec.ts:6:26
 *
 *       Error Context: test-results/.../error-context.md
 *
 *     3 failed                                     (the recap: not read)
 *       tests/money.spec.ts:5:3 › money › parses a price ────
 *
 * One diagnostic per "N) FILE:L:C › title" block: the title path (without
 * the file) is the test's name, the error line (a matcher's as jest prints
 * it: without "Error: " and the "// Object.is equality" aside) with its
 * Expected/Received lines the message,
 * located at the innermost in-project frame, else at the test.  Playwright
 * also prints "at ../src/x.ts:12" relative to the test's directory above
 * the code frame: the absolute frames below say the same.  "Error
 * Context" names a file Playwright wrote, not a source.  The JSON report
 * (--reporter=json) says the same in its failed specs.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "parsers/util.h"
#include "callus/cleantext.h"
#include "callus/common.h"

#include <string.h>

#define SEP " \xe2\x80\xba "   /* " › " */
#define BOX "\xe2\x94\x80"     /* "─" */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "  1) tests/a.spec.ts:5:3 › money › adds ────": the location's span and
 * the title's */
static int failure_header(const char *s, size_t len, const char **loc, size_t *loc_len,
			  const char **title, size_t *title_len)
{
	size_t i = callus_js_indent(s, len), d = i;
	const char *sep, *end = s + len;

	while (i < len && is_digit(s[i]))
		i++;
	if (i == d || i + 2 > len || s[i] != ')' || s[i + 1] != ' ')
		return 0;
	i += 2;
	if (!(sep = memmem(s + i, len - i, SEP, 5)))
		return 0;
	*loc = s + i;
	*loc_len = (size_t)(sep - *loc);
	*title = sep + 5;
	/* the rule of box characters after the title */
	while (end - *title >= 3 && !memcmp(end - 3, BOX, 3))
		end -= 3;
	while (end > *title && end[-1] == ' ')
		end--;
	*title_len = (size_t)(end - *title);
	return *loc_len && *title_len;
}

/* "  > 6 |     code", "    |   ^" */
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

/* "3 failed", "2 passed (3.5s)", "1 flaky": the recap */
static int recap(const char *t, size_t tl)
{
	size_t i = 0;

	while (i < tl && is_digit(t[i]))
		i++;
	return i && (callus_pu_starts(t + i, tl - i, " failed") ||
		     callus_pu_starts(t + i, tl - i, " passed") ||
		     callus_pu_starts(t + i, tl - i, " flaky"));
}

static int expected_received(const char *s, size_t len)
{
	return (callus_pu_starts(s, len, "Expected") || callus_pu_starts(s, len, "Received")) &&
	       memchr(s, ':', len) && !callus_pu_starts(s, len, "Expected  -") &&
	       !callus_pu_starts(s, len, "Received  +");
}

/* One failed spec of the JSON report: the first error of its first
 * failed result, its message's first line and Expected/Received lines
 * (colours taken off), placed by the error's stack, else by its location,
 * else by the spec (its file relative to the test directory, rootDir). */
static int json_spec(json_t *spec, const char *title, const char *root, const callus_parse_input *in,
		     callus_diags *diags, callus_strlist *files)
{
	callus_js_failure f;
	callus_buf text = CALLUS_BUF_INIT;
	json_t *test, *res, *err = NULL;
	size_t i, j;
	int rc = 0;

	json_array_foreach(json_object_get(spec, "tests"), i, test) {
		json_array_foreach(json_object_get(test, "results"), j, res) {
			if (!err && json_object_get(res, "error"))
				err = json_object_get(res, "error");
		}
	}
	callus_js_failure_init(&f);
	callus_js_failure_start(&f);
	if ((rc = callus_js_failure_test(&f, title, strlen(title))) < 0)
		goto out;
	if (json_string_value(json_object_get(spec, "file"))) {
		callus_buf_printf(&f.file, "%s%s%s", root, *root ? "/" : "",
				  json_string_value(json_object_get(spec, "file")));
		f.line = (long)json_integer_value(json_object_get(spec, "line"));
	}
	for (int part = 0; err && part < 2 && rc >= 0; part++) {
		const char *v = json_string_value(json_object_get(err, part ? "stack" : "message"));
		const char *p, *end, *line;
		size_t n;

		if (!v)
			continue;
		callus_buf_clear(&text);
		if ((rc = callus_text_clean(&text, v, strlen(v), 0)) < 0)
			break;
		p = text.ptr ? text.ptr : "";
		end = p + text.len;
		while (rc >= 0 && callus_next_line(&p, end, &line, &n)) {
			callus_js_frame fr;

			if (part) {
				if (callus_js_parse_frame(line, n, 1, &fr))
					rc = callus_js_failure_frame(&f, in->pc, &fr);
				continue;
			}
			if (!f.has_header && n) {
				f.has_header = 1;
				if (callus_pu_starts(line, n, "Error: expect(")) {
					const char *aside;

					line += 7;
					n -= 7;
					if ((aside = memmem(line, n, " // ", 4)))
						n = (size_t)(aside - line);
				}
				rc = callus_js_message_add(&f.message, line, n);
			} else if (expected_received(line, n)) {
				rc = callus_js_message_add(&f.message, line, n);
			}
		}
	}
	if (rc >= 0 && !f.frames.count && err) {
		json_t *loc = json_object_get(err, "location");
		const char *file = json_string_value(json_object_get(loc, "file"));

		if (file) {
			callus_buf_clear(&f.file);
			callus_buf_puts(&f.file, file);
			f.line = (long)json_integer_value(json_object_get(loc, "line"));
			f.column = (long)json_integer_value(json_object_get(loc, "column"));
		}
	}
	if (rc >= 0 && (rc = callus_buf_status(&f.file)) >= 0)
		rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL);
out:
	callus_js_failure_release(&f);
	callus_buf_release(&text);
	return rc;
}

/* The suites of the JSON report, nested by describe(): the titles below
 * the file's join the spec's with " › ". */
static int json_suites(json_t *suites, const char *prefix, int top, const char *root,
		       const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_buf title = CALLUS_BUF_INIT;
	json_t *suite, *spec;
	size_t i, j;
	int rc = 0;

	json_array_foreach(suites, i, suite) {
		const char *st = json_string_value(json_object_get(suite, "title"));
		callus_buf sub = CALLUS_BUF_INIT;

		/* the top suites are the files */
		callus_buf_printf(&sub, "%s%s%s", prefix, *prefix && !top && st ? SEP : "",
				  top || !st ? "" : st);
		json_array_foreach(json_object_get(suite, "specs"), j, spec) {
			const char *t = json_string_value(json_object_get(spec, "title"));

			if (json_is_false(json_object_get(spec, "ok")) && t && rc >= 0) {
				callus_buf_clear(&title);
				callus_buf_printf(&title, "%s%s%s", sub.ptr ? sub.ptr : "",
						  sub.len ? SEP : "", t);
				if ((rc = callus_buf_status(&title)) >= 0)
					rc = json_spec(spec, title.ptr, root, in, diags, files);
			}
		}
		if (rc >= 0 && (rc = callus_buf_status(&sub)) >= 0)
			rc = json_suites(json_object_get(suite, "suites"), sub.ptr ? sub.ptr : "", 0,
					 root, in, diags, files);
		callus_buf_release(&sub);
		if (rc < 0)
			break;
	}
	callus_buf_release(&title);
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	callus_js_failure f;
	const char *s;
	size_t len;
	int rc;
	json_t *doc = callus_pu_json_document(in);

	/* --reporter=json */
	if (doc && json_is_array(json_object_get(doc, "suites")) && json_object_get(doc, "config")) {
		const char *root = json_string_value(
			json_object_get(json_object_get(doc, "config"), "rootDir"));

		rc = json_suites(json_object_get(doc, "suites"), "", 1, root ? root : "", in, diags,
				 files);
		json_decref(doc);
		return rc < 0 ? rc : 0;
	}
	json_decref(doc);
	callus_js_lines_init(&it, in);
	callus_js_failure_init(&f);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len), loc_len, title_len, fl;
		const char *t = s + i, *loc, *title, *aside;
		size_t tl = len - i;
		callus_js_frame fr;

		if (!len || callus_js_wrapper_noise(s, len))
			continue;
		if (failure_header(s, len, &loc, &loc_len, &title, &title_len)) {
			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) < 0)
				break;
			callus_js_failure_start(&f);
			if ((rc = callus_js_failure_test(&f, title, title_len)) < 0)
				break;
			if (callus_js_split_location(loc, loc_len, &fl, &f.line, &f.column))
				loc_len = fl;
			if ((rc = callus_js_path(&f.file, loc, loc_len)) < 0)
				break;
			continue;
		}
		if (recap(t, tl))
			break;
		if (!f.open)
			continue;
		if (callus_js_parse_frame(s, len, 1, &fr)) {
			if ((rc = callus_js_failure_frame(&f, in->pc, &fr)) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(t, tl, "at ") || code_frame(s, len) || f.frames.count ||
		    callus_pu_starts(t, tl, "Error Context:"))
			continue;
		if (!f.has_header) {
			f.has_header = 1;
			if (callus_pu_starts(t, tl, "Error: expect(")) {
				t += 7;
				tl -= 7;
				if ((aside = memmem(t, tl, " // ", 4)))
					tl = (size_t)(aside - t);
			}
			rc = callus_js_message_add(&f.message, t, tl);
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
	return rc < 0 ? rc : 0;
}

/* "Running 5 tests using 1 worker", or a failure's header */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s, *a, *b;
	size_t n, al, bl;

	while (callus_next_line(&p, end, &s, &n)) {
		if (callus_pu_starts(s, n, "Running ") && memmem(s, n, " using ", 7) &&
		    memmem(s, n, " worker", 7))
			return 1;
		if (failure_header(s, n, &a, &al, &b, &bl) && memmem(s, n, BOX, 3))
			return 1;
	}
	return 0;
}

static const char *const tools[] = {"playwright test", NULL};

const callus_parser callus_parser_playwright = { "playwright", tools, sniff, parse, NULL };
