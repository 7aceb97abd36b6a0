/*
 * vitest.c - vitest's default reporter.
 *
 * The progress lines ("❯ test/a.test.js (4 tests | 2 failed)", "× name")
 * repeat what the report at the end says in full, so only the report is
 * read:
 *
 *   ⎯⎯⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯⎯⎯
 *
 *    FAIL  test/sum.test.js > sum > adds 2 + 2 to equal 4
 *   AssertionError: expected 3 to be 4 // Object.is equality
 *   (diff)
 *    ❯ parsePrice src/sum.js:7:11
 *    ❯ test/sum.test.js:10:23
 *        10|     expect(sum(2, 2)).toBe(4);          (code frame)
 *
 * Several FAIL lines above one message are tests that failed with the same
 * error: one diagnostic each.  "FAIL  file [ file ]" (Failed Suites) is an
 * error of the file.  The Unhandled Errors section names the file and the
 * test that was running in prose; each of its errors is a diagnostic too.
 * Console output ("stdout | test > name") is not.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <string.h>

#define RULE "\xe2\x8e\xaf" /* ⎯ */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "     10|  code", "       |  ^" */
static int code_frame(const char *s, size_t len)
{
	size_t i = callus_js_indent(s, len);

	while (i < len && is_digit(s[i]))
		i++;
	i += callus_js_indent(s + i, len - i);
	return i < len && s[i] == '|';
}

/* " Test Files  3 failed | 1 passed (4)", "      Tests  6 failed (8)",
 * "   Start at  19:12:01", "   Duration  1.83s (...)": a key, two spaces. */
static int totals_line(const char *t, size_t tl)
{
	static const char *const keys[] = { "Test Files  ", "Tests  ", "Type Errors  ", "Errors  ",
					     "Snapshots  ", "Start at  ", "Duration  ", NULL };

	for (size_t i = 0; keys[i]; i++)
		if (callus_pu_starts(t, tl, keys[i]))
			return 1;
	return 0;
}

/* A diff or a detail under the message: never its first line. */
static int detail(const char *s, size_t len)
{
	return callus_pu_starts(s, len, "- Expected") ||
	       callus_pu_starts(s, len, "+ Received") ||
	       callus_pu_starts(s, len, "Plugin: ") || callus_pu_starts(s, len, "File: ") ||
	       callus_pu_starts(s, len, "Serialized Error:");
}

/* The text between the first pair of double quotes after w. */
static int quoted_after(const char *s, size_t len, const char *w, const char **q,
			size_t *qlen)
{
	const char *p = memmem(s, len, w, strlen(w)), *close;

	if (!p)
		return 0;
	p += strlen(w);
	if (!(close = memchr(p, '"', (size_t)(s + len - p))))
		return 0;
	*q = p;
	*qlen = (size_t)(close - p);
	return 1;
}

/* " FAIL  [|project| ]file > a > b" or " FAIL  file [ file ]" */
static int fail_line(const char *t, size_t tl, callus_js_failure *f, int *grouped)
{
	size_t i = 4, j, k;
	int rc = 0;

	i += callus_js_indent(t + i, tl - i);
	if (i < tl && t[i] == '|') { /* the project's name */
		const char *bar = memchr(t + i + 1, '|', tl - i - 1);
		if (bar)
			i = (size_t)(bar + 1 - t) +
			    callus_js_indent(bar + 1, (size_t)(t + tl - bar - 1));
	}
	for (j = i; j < tl && t[j] != ' '; j++)
		;
	/* a file's path; watch mode's last words are not one ("FAIL  Tests
	 * failed. Watching for file changes...") */
	if (j == i || (!memchr(t + i, '.', j - i) && !memchr(t + i, '/', j - i)))
		return 0;
	/* consecutive FAIL lines share the message that follows them */
	if (!(*grouped = f->open && !f->has_header)) {
		callus_js_failure_start(f);
		callus_js_path(&f->file, t + i, j - i);
	}
	k = j;
	if (k + 3 <= tl && !memcmp(t + k, " > ", 3))
		rc = callus_js_failure_test(f, t + k + 3, tl - k - 3);
	return rc < 0 ? rc : 1;
}

/* The words of "⎯⎯⎯ Failed Tests 2 ⎯⎯⎯"; empty for a plain rule. */
static void banner_title(const char *t, size_t tl, const char **title, size_t *len)
{
	const char *b = t, *e = t + tl;

	while (e - b >= 3 && (!memcmp(b, RULE, 3) || *b == ' '))
		b += *b == ' ' ? 1 : 3;
	while (b < e && *b == ' ')
		b++;
	while (e - b >= 3 && (!memcmp(e - 3, RULE, 3) || e[-1] == ' '))
		e -= e[-1] == ' ' ? 1 : 3;
	while (e > b && e[-1] == ' ')
		e--;
	*title = b;
	*len = (size_t)(e - b);
}

enum { NONE, FAILURE, UNHANDLED };

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	callus_js_failure f;
	const char *s;
	size_t len;
	int rc, state = NONE, unhandled = 0;

	callus_js_lines_init(&it, in);
	callus_js_failure_init(&f);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len), ql;
		const char *t = s + i, *q;
		size_t tl = len - i;
		callus_js_frame fr;
		int grouped;

		if (!len || callus_js_wrapper_noise(s, len))
			continue;
		if (callus_pu_starts(t, tl, "FAIL ")) {
			if (!(f.open && !f.has_header) &&
			    (rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) <
				0)
				break;
			if ((rc = fail_line(t, tl, &f, &grouped)) < 0)
				break;
			state = rc ? FAILURE : NONE;
			rc = 0;
			continue;
		}
		if (callus_pu_starts(t, tl, RULE)) {
			const char *title;
			size_t title_len;

			/* "⎯⎯ Unhandled Errors ⎯⎯" opens the section, where
			 * "⎯⎯ Uncaught Exception ⎯⎯" and the like
			 * head each error; "⎯⎯⎯[1/5]⎯" ends a failure */
			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) <
			    0)
				break;
			state = NONE;
			banner_title(t, tl, &title, &title_len);
			if (title_len == 16 && !memcmp(title, "Unhandled Errors", 16))
				unhandled = 1;
			else if (callus_pu_starts(title, title_len, "Failed "))
				unhandled = 0;
			else if (unhandled && title_len && title[0] != '[') {
				callus_js_failure_start(&f);
				state = UNHANDLED;
			}
			continue;
		}
		/* vitest prints its totals on stdout and its report on stderr:
		 * a capture reading the two pipes may have them anywhere in the
		 * report, even inside a failure */
		if (totals_line(t, tl))
			continue;
		if (callus_pu_starts(s, len, "stdout | ") || callus_pu_starts(s, len, "stderr | ")) {
			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) <
			    0)
				break;
			state = NONE;
			continue;
		}
		if (state == NONE)
			continue;
		if (state == UNHANDLED) {
			if (quoted_after(t, tl, "This error originated in \"", &q, &ql)) {
				if ((rc = callus_js_path(&f.file, q, ql)) < 0)
					break;
				continue;
			}
			if (quoted_after(
				t, tl,
				"The latest test that might've caused the error is \"",
				&q, &ql)) {
				if (!f.tests.count &&
				    (rc = callus_js_failure_test(&f, q, ql)) < 0)
					break;
				continue;
			}
		}
		if (callus_js_parse_frame(s, len, 1, &fr)) {
			if ((rc = callus_js_failure_frame(&f, in->pc, &fr)) < 0)
				break;
			continue;
		}
		if (code_frame(s, len) || f.has_header || detail(t, tl)) {
			/* vite's plugin errors say where, when no frame does */
			if (callus_pu_starts(t, tl, "File: ") && !f.line) {
				size_t fl;
				long l, c;

				if (callus_js_split_location(t + 6, tl - 6, &fl, &l, &c) &&
				    (rc = callus_js_path(&f.file, t + 6, fl)) >= 0) {
					f.line = l;
					f.column = c;
				}
				if (rc < 0)
					break;
			}
			continue;
		}
		if (state == UNHANDLED && (callus_pu_starts(t, tl, "Vitest caught ") ||
					   callus_pu_starts(t, tl, "This might cause")))
			continue;
		f.has_header = 1;
		{
			/* "expected 3 to be 4 // Object.is equality": the aside
			 * names the comparison, the message says it already */
			const char *c = memmem(t, tl, " // ", 4);
			size_t n =
			    c && memmem(t, tl, "expected", 8) ? (size_t)(c - t) : tl;

			if ((rc = callus_js_message_add(&f.message, t, n)) < 0)
				break;
		}
	}
	if (rc >= 0)
		rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL);
	callus_js_failure_release(&f);
	callus_js_lines_release(&it);
	return rc < 0 ? rc : 0;
}

/* " FAIL  test/a.test.js > name", " Test Files  1 failed (3)",
 * "⎯⎯ Failed Tests 2 ⎯⎯" */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;

	while (callus_next_line(&p, end, &s, &n)) {
		size_t i = callus_js_indent(s, n);
		const char *t = s + i;
		size_t tl = n - i;

		if (callus_pu_starts(t, tl, "FAIL ") &&
		    (memmem(t, tl, " > ", 3) || memmem(t, tl, " [ ", 3)))
			return 1;
		if (callus_pu_starts(t, tl, "Test Files ") && memmem(t, tl, " failed", 7))
			return 1;
		if (callus_pu_starts(t, tl, RULE RULE) && memmem(t, tl, " Failed ", 8))
			return 1;
	}
	return 0;
}

static const char *const tools[] = {"vitest", NULL};

const callus_parser callus_parser_vitest = { "vitest", tools, sniff, parse, NULL };
