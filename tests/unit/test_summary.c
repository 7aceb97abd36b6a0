/*
 * test_summary.c - the error summary (src/summary.c): every distinct
 * failure's essentials within CALLUS_SUMMARY_MAX bytes, the totals line, no
 * failure said twice; on real outputs of tests/corpus/cases/ and on
 * outputs written here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "callus/analysis.h"
#include "callus/capture.h"
#include "callus/lesson.h"
#include "callus/strlist.h"
#include "callus/summary.h"
#include "callus/utf8.h"
#include "parse_helpers.h"
#include "parsers/js_util.h"
#include "pieces_helpers.h"

#define CASES "tests/corpus/cases/"
#define ROOT "/tmp/callus-corpus/"

/* The summary of a failed run of tool on data, in ROOT/project. */
static char *summary_of(const char *tool, const char *data, size_t len, const char *project)
{
	callus_failure f;
	char *s;

	parse_analyse(&f, tool, 1, data, len, ROOT, project, "");
	s = strdup(f.summary);
	assert_non_null(s);
	callus_failure_release(&f);
	return s;
}

static char *summary_of_case(const char *tool, const char *sample, const char *project)
{
	char path[256], *data, *s;
	size_t len;

	snprintf(path, sizeof(path), CASES "%s/output.txt", sample);
	data = parse_read(path, &len);
	s = summary_of(tool, data, len, project);
	free(data);
	return s;
}

static void assert_has(const char *summary, const char *what)
{
	if (!strstr(summary, what))
		fail_msg("the summary lacks \"%s\":\n%s", what, summary);
}

/* No line of the summary twice, and none starting with prefix (a raw
 * line that only repeats a failure listed above it). */
static void assert_each_once(const char *summary, const char *prefix)
{
	const char *p = summary;

	assert_true(strlen(summary) <= CALLUS_SUMMARY_MAX);
	while (*p) {
		size_t n = strcspn(p, "\n");
		const char *q = p + n;

		if (prefix && !strncmp(p, prefix, strlen(prefix)))
			fail_msg("\"%.*s\" repeats a failure:\n%s", (int)n, p, summary);
		while (*q == '\n' && q[1]) {
			size_t m = strcspn(++q, "\n");

			if (m == n && !memcmp(p, q, n))
				fail_msg("\"%.*s\" twice:\n%s", (int)n, p, summary);
			q += m;
		}
		p += n;
		p += *p == '\n';
	}
}

/* bun test prints a failure's message, then "(fail) name": both say what
 * the parsed line says already. */
static const char bun_two[] =
	"bun test v1.4.5 (a7733435c)\n"
	"\n"
	"test/cart.test.ts:\n"
	"(pass) cart > adds up the items [0.21ms]\n"
	"14 |   test(\"takes ten percent off\", () => {\n"
	"15 |     expect(discount(700, 10)).toBe(630);\n"
	"                                   ^\n"
	"error: expect(received).toBe(expected)\n"
	"\n"
	"Expected: 630\n"
	"Received: -6300\n"
	"\n"
	"      at <anonymous> (/tmp/callus-corpus/bun-app/test/cart.test.ts:15:31)\n"
	"(fail) cart > takes ten percent off [0.18ms]\n"
	"18 |   test(\"lists the labels\", () => {\n"
	"19 |     expect(labels(items)).toEqual([\"INK\", \"PAN\"]);\n"
	"                               ^\n"
	"error: expect(received).toEqual(expected)\n"
	"\n"
	"  [\n"
	"    \"INK\",\n"
	"-   \"PAN\",\n"
	"+   \"PEN\",\n"
	"  ]\n"
	"\n"
	"- Expected  - 1\n"
	"+ Received  + 1\n"
	"\n"
	"      at <anonymous> (/tmp/callus-corpus/bun-app/test/cart.test.ts:19:27)\n"
	"(fail) cart > lists the labels [0.17ms]\n"
	"\n"
	" 1 pass\n"
	" 2 fail\n"
	" 3 expect() calls\n"
	"Ran 3 tests across 1 file. [12.00ms]\n";

static void bun_two_failures_each_once(void **state)
{
	char *s = summary_of("bun test", bun_two, sizeof(bun_two) - 1, "bun-app");

	(void)state;
	assert_has(s, "FAIL cart > takes ten percent off at test/cart.test.ts:15:31: "
		      "expect(received).toBe(expected) Expected: 630 Received: -6300");
	assert_has(s, "FAIL cart > lists the labels at test/cart.test.ts:19:27: "
		      "expect(received).toEqual(expected)");
	/* what differed, under its failure */
	assert_has(s, "expect(received).toEqual(expected)\n-   \"PAN\",\n+   \"PEN\",");
	assert_has(s, "2 fail");
	assert_each_once(s, "(fail) ");
	assert_each_once(s, "error: expect(received)");
	free(s);
}

/* bun's third failure (in src/, after two long ones) keeps its place. */
static void bun_every_failure(void **state)
{
	char *s = summary_of_case("bun test", "bun-test", "bun-app");

	(void)state;
	assert_has(s, "FAIL cart > takes ten percent off at test/cart.test.ts:15:31");
	assert_has(s, "FAIL cart > lists the labels at test/cart.test.ts:19:27");
	assert_has(s, "FAIL cart > describes an empty cart at src/cart.ts:27:13: TypeError");
	assert_has(s, "3 fail");
	assert_each_once(s, "(fail) ");
	assert_each_once(s, "TypeError: undefined is not an object");
	free(s);
}

/* jest: twenty failing files (in the order jest's workers finish them);
 * the first one's failures do not crowd out the second file's. */
static void jest_second_file_kept(void **state)
{
	char *s = summary_of_case("jest", "jest-many", "jest-many");

	(void)state;
	assert_has(s, "FAIL epsilon › doubles 0 at tests/epsilon.test.js:5:23");
	assert_has(s, "FAIL beta › doubles 0 at tests/beta.test.js:5:23");
	assert_has(s, "Tests:       120 failed, 120 total");
	assert_each_once(s, "● epsilon › doubles 0");
	assert_each_once(s, "● beta › doubles 0");
	free(s);
}

/* flake8: the second file's first error is listed with the first file's. */
static void flake8_second_file_kept(void **state)
{
	char *s = summary_of_case("flake8", "flake8", "py-lint");

	(void)state;
	assert_has(s, "lintme/model.py:9");
	assert_each_once(s, NULL);
	free(s);
}

/* A first failure as long as the whole budget leaves room for the next. */
static void long_first_failure_shares(void **state)
{
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_pathctx pc = { "/w", NULL, "", NULL };
	char msg[900], *s = NULL;

	(void)state;
	memset(msg, 'x', sizeof(msg) - 1);
	msg[sizeof(msg) - 1] = '\0';
	assert_int_equal(callus_diags_add(&d, "src/a.c", 3, 1, "E1", 2, msg, strlen(msg), "error"), 0);
	assert_int_equal(callus_diags_add(&d, "src/b.c", 7, 2, "E2", 2, "second", 6, "error"), 0);
	assert_int_equal(callus_diags_add(&d, "src/c.c", 9, 0, NULL, 0, "third", 5, "error"), 0);
	assert_int_equal(callus_summary_build(&s, "", 0, NULL, 0, &pc, &d), 0);
	assert_true(strlen(s) <= CALLUS_SUMMARY_MAX);
	assert_has(s, "src/a.c:3:1: E1: xxxx");
	assert_has(s, "src/b.c:7:2: E2: second");
	assert_has(s, "src/c.c:9: third");
	free(s);
	callus_diags_release(&d);
}

/* A failure repeated (a build's one error for each of its steps) is listed
 * once, and one that differs from the one before it in any field the line
 * shows (line, column, file, code, message, test) is listed too. */
static void a_failure_again_listed_once(void **state)
{
	static const struct {
		const char *file, *code, *msg, *test;
		long line, col;
		const char *shown;
	} f[] = {
		{ "src/a.c", "E1", "boom", NULL, 3, 1, "src/a.c:3:1: E1: boom" },
		{ "src/a.c", "E1", "boom", NULL, 4, 1, "src/a.c:4:1: E1: boom" },
		{ "src/a.c", "E1", "boom", NULL, 4, 2, "src/a.c:4:2: E1: boom" },
		{ "src/b.c", "E1", "boom", NULL, 4, 2, "src/b.c:4:2: E1: boom" },
		{ "src/b.c", "E2", "boom", NULL, 4, 2, "src/b.c:4:2: E2: boom" },
		{ "src/b.c", "E2", "bang", NULL, 4, 2, "src/b.c:4:2: E2: bang" },
		{ "src/b.c", "E2", "bang", "adds", 4, 2, "FAIL adds at src/b.c:4:2: E2: bang" },
	};
	callus_pathctx pc = { "/w", NULL, "", NULL };
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_buf whole = CALLUS_BUF_INIT;
	char *s = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		for (int again = 0; again < 3; again++) {
			assert_int_equal(callus_diags_add(&d, f[i].file, f[i].line, f[i].col, f[i].code,
							 strlen(f[i].code), f[i].msg, strlen(f[i].msg),
							 "error"),
					 0);
			if (f[i].test)
				assert_non_null(callus_diags_last(&d)->test = strdup(f[i].test));
		}
	assert_int_equal(callus_summary_build(&s, "", 0, NULL, 0, &pc, &d), 0);
	callus_buf_printf(&whole, "\n%s\n", s);
	/* each a line of its own */
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		char line[96];

		snprintf(line, sizeof(line), "\n%s\n", f[i].shown);
		if (!strstr(whole.ptr, line))
			fail_msg("no line \"%s\" in:\n%s", f[i].shown, s);
	}
	assert_each_once(s, NULL);
	callus_buf_release(&whole);
	free(s);
	callus_diags_release(&d);
}

static void totals_lines(void **state)
{
	static const char *const yes[] = {
		"3 fail", "Tests:       7 failed, 3 passed, 10 total", "FAILED (failures=2, errors=1)",
		"=== 6 failed, 4 passed in 0.04s ===", "Found 4 errors in 2 files.",
		"7 examples, 4 failures", "# fail 2", "✖ 550 problems (550 errors, 0 warnings)",
	};
	static const char *const no[] = {
		"make: *** [Makefile:3: all] Error 1", "tests/test_calc.py:5: AssertionError",
		"FAIL\tcalc\t0.003s", "error: expect(received).toBe(expected)",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!callus_summary_is_totals(yes[i], strlen(yes[i])))
			fail_msg("\"%s\" is a totals line", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (callus_summary_is_totals(no[i], strlen(no[i])))
			fail_msg("\"%s\" is not a totals line", no[i]);
}

/* A totals line said the long way, for totals_found_as_said: the line cut
 * into its words first (runs of letters, digits, '_', '.' and bytes from
 * 0x80, without their outer dots; dots alone are no word), then each pair
 * of neighbours: a count with only blanks before a word it counts, or a
 * word that counts with only blanks, ':' and '=' before a count. */
static int totals_as_said(const char *s, size_t len)
{
	static const char *const counted[] = {
		"fail", "failed", "failing", "failure", "failures", "error", "errors", "problem",
		"problems", "passed", "passing", "tests", "examples", "warnings", "issues", "runs",
	};
	static const char *const counting[] = {
		"fail", "failed", "failing", "failures", "errors", "tests",
	};
	size_t start[200], end[200], n = 0, i = 0;

	if (len > 120)
		return 0;
	while (i < len) {
		size_t a, b;

		while (i < len && !isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' &&
		       (unsigned char)s[i] < 0x80)
			i++;
		a = i;
		while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '.' ||
				   (unsigned char)s[i] >= 0x80))
			i++;
		b = i;
		while (a < b && s[a] == '.')
			a++;
		while (b > a && s[b - 1] == '.')
			b--;
		if (a < b) {
			start[n] = a;
			end[n++] = b;
		}
	}
	for (size_t k = 1; k < n; k++) {
		size_t pn = end[k - 1] - start[k - 1], wn = end[k] - start[k];
		const char *p = s + start[k - 1], *w = s + start[k];
		int digits_p = strspn(p, "0123456789") >= pn, digits_w = strspn(w, "0123456789") >= wn;
		int blanks = 1, seps = 1;

		for (size_t j = end[k - 1]; j < start[k]; j++) {
			blanks &= s[j] == ' ' || s[j] == '\t';
			seps &= s[j] == ' ' || s[j] == '\t' || s[j] == ':' || s[j] == '=';
		}
		for (size_t j = 0; blanks && digits_p && j < sizeof(counted) / sizeof(*counted); j++)
			if (strlen(counted[j]) == wn && !strncasecmp(w, counted[j], wn))
				return 1;
		for (size_t j = 0; seps && digits_w && j < sizeof(counting) / sizeof(*counting); j++)
			if (strlen(counting[j]) == pn && !strncasecmp(p, counting[j], pn))
				return 1;
	}
	return 0;
}

/* callus_summary_is_totals() finds the counts first and reads only their
 * neighbours: on 300,000 lines of words, counts, dots and separators, up
 * to its longest line and past it, it answers as the words cut first do. */
static void totals_found_as_said(void **state)
{
	static const char *const words[] = {
		"3", "12", "0", "007", "1.5", "3.", ".3", "1_000", "98", "9", "fail", "failed", "FAILED",
		"errors", "Tests", "tests", "passed", "runs", "error", "warnings", "x", "a1", "1a",
		"src/a.c", "\xc3\xa9", "...", "#",
		/* every word counted or counting, in some case */
		"failing", "Failure", "failures", "PROBLEM", "problems", "passing", "Examples",
		"issues", "Runs", "WARNINGS", "Fail", "FAILURES",
	};
	static const char *const between[] = {
		" ", "  ", "\t", ":", "=", ": ", " = ", ", ", "", ".", "(", ") ", " ... ", "-",
	};
	uint64_t x = 0x9e3779b97f4a7c15u;
	size_t yes = 0;
	char line[512];

	(void)state;
	for (int round = 0; round < 300000; round++) {
		size_t len = 0, n;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		n = 1 + (size_t)(x % 32);
		for (size_t k = 0; k < n; k++) {
			const char *pc;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			pc = k % 2 ? between[x % (sizeof(between) / sizeof(*between))]
				   : words[x % (sizeof(words) / sizeof(*words))];
			memcpy(line + len, pc, strlen(pc));
			len += strlen(pc);
		}
		line[len] = '\0';
		if (callus_summary_is_totals(line, len) != totals_as_said(line, len))
			fail_msg("\"%s\": %d, as said %d", line, callus_summary_is_totals(line, len),
				 totals_as_said(line, len));
		yes += totals_as_said(line, len);
	}
	/* both answers were asked for, many times each */
	assert_true(yes > 10000);
	assert_true(yes < 290000);
}

static void repeats(void **state)
{
	const char *parsed = "FAIL cart > lists the labels at test/cart.test.ts:19:27: "
			     "expect(received).toEqual(expected)";
	static const char *const yes[] = {
		"(fail) cart > lists the labels [0.17ms]", "error: expect(received).toEqual(expected)",
		"● cart › lists the labels", "test/cart.test.ts:19:27",
	};
	static const char *const no[] = {
		"(fail) cart > lists the totals [0.17ms]", "3 fail", "labels the lists",
		"at <anonymous> (test/cart.test.ts:19:27)", "19 fail",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!callus_summary_repeats(yes[i], strlen(yes[i]), parsed, strlen(parsed)))
			fail_msg("\"%s\" repeats the parsed line", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (callus_summary_repeats(no[i], strlen(no[i]), parsed, strlen(parsed)))
			fail_msg("\"%s\" says something new", no[i]);
}

/* A code frame's line ("> 12 | x"), the long way. */
static int frame_as_said(const char *s, size_t n)
{
	size_t i = 0;

	if (i < n && s[i] == '>')
		i++;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++;
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
		i++;
	return i < n && s[i] == '|';
}

/* s[0..n) with the workspace's folders cut where a path names them: at a
 * slash, either root and a slash after it. */
static void relative_as_said(callus_buf *out, const char *s, size_t n, const callus_pathctx *pc)
{
	const char *roots[2] = { pc ? pc->workspace : NULL, pc ? pc->workspace_real : NULL };

	callus_buf_clear(out);
	for (size_t i = 0; i < n;) {
		int cut = 0;

		for (int r = 0; r < 2 && !cut && s[i] == '/'; r++) {
			size_t rl = roots[r] ? strlen(roots[r]) : 0;

			if (rl > 1 && i + rl < n && s[i + rl] == '/' && !memcmp(s + i, roots[r], rl)) {
				i += rl + 1;
				cut = 1;
			}
		}
		if (!cut)
			callus_buf_putc(out, s[i++]);
	}
}

/* The summary of text without a parser's failures, the long way: every
 * line read kept once, in the order of its first place (leading blanks,
 * a line as the one before it, empty lines, code frames and a wrapper's
 * noise left out); the last of them that is a totals line taken, then
 * the lines of each rank, highest first, that fit in what is left; all in
 * the list's order, cut to the bound; or the first line, cut. */
static char *summary_as_said(const char *text, const callus_pathctx *pc)
{
	callus_strlist lines = CALLUS_STRLIST_INIT;
	callus_buf sum = CALLUS_BUF_INIT, rel = CALLUS_BUF_INIT;
	const char *p = text, *prev = NULL;
	size_t prev_n = 0, totals = (size_t)-1, used = 0;
	unsigned char chosen[512] = { 0 };

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = p;

		p = nl ? nl + 1 : p + n;
		while (n && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
			s++, n--;
		if (prev && n == prev_n && !memcmp(s, prev, n))
			continue;
		prev = s;
		prev_n = n;
		if (!n || frame_as_said(s, n) || callus_js_wrapper_noise(s, n))
			continue;
		relative_as_said(&rel, s, n, pc);
		assert_int_equal(callus_strlist_add_unique(&lines, rel.ptr, rel.len, NULL), 0);
	}
	callus_buf_release(&rel);
	assert_true(lines.count <= sizeof(chosen));
	for (size_t i = lines.count; i-- > 0 && totals == (size_t)-1;)
		if (callus_summary_is_totals(lines.items[i], strlen(lines.items[i])))
			totals = i;
	if (totals != (size_t)-1) {
		chosen[totals] = 1;
		used = strlen(lines.items[totals]) + 1;
	}
	for (int rank = 2; rank >= 0; rank--)
		for (size_t i = 0; i < lines.count; i++) {
			size_t n = strlen(lines.items[i]);

			if (chosen[i] || used + n + 1 > CALLUS_SUMMARY_MAX + 1 ||
			    callus_line_rank(lines.items[i], n) != rank)
				continue;
			chosen[i] = 1;
			used += n + 1;
		}
	for (size_t i = 0; i < lines.count; i++)
		if (chosen[i]) {
			if (sum.len)
				callus_buf_putc(&sum, '\n');
			callus_buf_puts(&sum, lines.items[i]);
		}
	if (sum.len > CALLUS_SUMMARY_MAX)
		callus_buf_truncate(&sum, callus_utf8_cut_word(sum.ptr, sum.len, CALLUS_SUMMARY_MAX));
	if (!sum.len && lines.count)
		callus_buf_put(&sum, lines.items[0],
			       callus_utf8_cut_word(lines.items[0], strlen(lines.items[0]),
						    CALLUS_SUMMARY_MAX));
	callus_strlist_release(&lines);
	return callus_buf_detach(&sum);
}

/* callus_summary_build() reads the lines once for the totals and keeps
 * only those that can fit, where it kept every line: on 20,000 texts of
 * error lines, totals lines, code frames, noise, blanks, lines of each
 * length about the room left and past the bound, paths in the workspace
 * (one line under the bound only once they are cut), repeated near and
 * far, its summary is the one the whole list makes. */
static void summary_as_from_every_line(void **state)
{
	/* each the room left by a totals line below, the bound, past it */
	static const size_t bigs[] = { 465, 480, 491, 500, 600 };
	static char big[5][700], rooted[700];
	static const char *pieces[] = {
		"/w/src/a.c:1:2: error: expected ';'\n", "see /r/w/lib/b.py:3: error: y\n",
		"x/w/y 2 failed\n", "/w/\n", "/wx/a.c:1: error: z\n", NULL,
		"src/a.c:1:2: error: expected ';'\n", "src/b.c:3:4: warning: unused x\n",
		"3 errors generated.\n", "Tests: 2 failed, 5 passed, 7 total\n",
		"FAIL src/x.test.js\n", "  12 | foo();\n", "> 7 |   bar()\n", "npm warn config\n",
		"   AssertionError: expected 1\n", "building\n", "\n", "  \n", "ok 1 - fine\n",
		"Error: boom\n", "1 failed\n", "    at frame (src/a.c:1:2)\n", "panic: oh\n",
		"note: here\n", "traceback line\n", NULL, NULL, NULL, NULL, NULL,
	};
	size_t count = sizeof(pieces) / sizeof(pieces[0]);
	uint64_t x = 0x243f6a8885a308d3u;
	char text[8192];

	(void)state;
	/* past the bound as the output has it, under it with the
	 * workspace's folder cut from its paths */
	memset(rooted, 'e', 505);
	memcpy(rooted, "/w/src/x.c:1: error: ", 21);
	memcpy(rooted + 300, " /w/lib/y.c ", 12);
	rooted[505] = '\n';
	pieces[5] = rooted;
	for (size_t k = 0; k < 5; k++) {
		size_t n = bigs[k];

		memset(big[k], 'e', n);
		memcpy(big[k], "error: ", 7);
		big[k][n] = '\n';
		big[k][n + 1] = '\0';
		pieces[count - 5 + k] = big[k];
	}
	for (int round = 0; round < 20000; round++) {
		size_t n = pieces_line(text, sizeof(text) - 1, pieces, count,
				       1 + pieces_next(&x) % 40, &x);
		callus_pathctx ws = { "/w", "/r/w", "", NULL };
		const callus_pathctx *pc = round % 2 ? &ws : NULL;
		char *got = NULL, *want;

		text[n] = '\0';
		assert_int_equal(callus_summary_build(&got, text, n, NULL, 0, pc, NULL), 0);
		want = summary_as_said(text, pc);
		if (strcmp(got, want))
			fail_msg("\"%s\":\n\"%s\", as said\n\"%s\"", text, got, want);
		free(got);
		free(want);
	}
}

/* Every real output of tests/corpus/cases/ analysed as a hook captures it
 * (whole: its kept lines lent from the output where they lie in it, the
 * last without its newline when the output has none) and as `callus run`
 * does (fed in a pipe's pieces, each kept line copied with its newline):
 * the same parser, files, errors and summary; as printed, and with its
 * last newlines taken off. */
static void whole_as_fed_on_every_case(void **state)
{
	const char *src = getenv("CALLUS_SRCDIR");
	char dir[512];
	struct dirent *e;
	size_t cases = 0, lent = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/" CASES, src ? src : ".");
	assert_non_null(d = opendir(dir));
	while ((e = readdir(d))) {
		callus_buf path = CALLUS_BUF_INIT;
		struct stat st;
		json_t *c;
		const char *tool, *project, *cwd;
		char *data;
		size_t len;
		int code;

		if (e->d_name[0] == '.')
			continue;
		callus_buf_printf(&path, "%s%s/case.json", dir, e->d_name);
		c = json_load_file(path.ptr, 0, NULL);
		callus_buf_clear(&path);
		if (!c) {
			callus_buf_release(&path);
			continue;
		}
		tool = json_string_value(json_object_get(c, "tool"));
		project = json_string_value(json_object_get(c, "project"));
		cwd = json_string_value(json_object_get(c, "cwd"));
		code = (int)json_integer_value(json_object_get(c, "exit_code"));
		callus_buf_printf(&path, "%s%s/output.txt", dir, e->d_name);
		/* a passing run's output may be empty */
		if (stat(path.ptr, &st) < 0 || !st.st_size) {
			callus_buf_release(&path);
			json_decref(c);
			continue;
		}
		callus_buf_clear(&path);
		callus_buf_printf(&path, CASES "%s/output.txt", e->d_name);
		data = parse_read(path.ptr, &len);
		callus_buf_release(&path);
		for (int cut = 0; cut < 2; cut++) {
			callus_failure fed, whole;
			callus_capture cap;
			callus_buf scratch = CALLUS_BUF_INIT;
			const char *t;
			size_t tl;

			while (cut && len && data[len - 1] == '\n')
				len--;
			parse_analyse(&fed, tool ? tool : "", code ? code : 1, data, len, ROOT,
				      project ? project : "", cwd && strcmp(cwd, ".") ? cwd : "");
			parse_analyse_whole(&whole, tool ? tool : "", code ? code : 1, data, len,
					    ROOT, project ? project : "",
					    cwd && strcmp(cwd, ".") ? cwd : "");
			parse_assert_same(e->d_name, &fed, &whole);
			if (strcmp(fed.summary, whole.summary))
				fail_msg("%s: the summary fed\n%s\nwhole\n%s", e->d_name, fed.summary,
					 whole.summary);
			callus_capture_init(&cap);
			callus_capture_whole(&cap, data, len);
			assert_int_equal(callus_capture_text_view(&cap, &scratch, &t, &tl), 0);
			lent += len && t >= data && t < data + len;
			callus_buf_release(&scratch);
			callus_capture_release(&cap);
			callus_failure_release(&fed);
			callus_failure_release(&whole);
			cases++;
		}
		free(data);
		json_decref(c);
	}
	closedir(d);
	assert_true(cases > 600);
	/* outputs of error lines only, lent whole */
	assert_true(lent > 50);
}

/* A NUL inside a line ends it, as a string of it ends (the output is read
 * as the store keeps text): what follows it on that line is never shown,
 * and the line so cut is taken once with its like. */
static void a_nul_ends_its_line(void **state)
{
	/* nine lines first: the list of lines is then a hashed one */
	static const char text[] = "a1\na2\na3\na4\na5\na6\na7\na8\na9\n"
				   "error: expected ';'\0 hidden after a NUL\n"
				   "error: expected ';'\n"
				   "/w/src/a.c:3: error: x\0/w/hidden\n"
				   "2 failed\n";
	callus_pathctx pc = { "/w", NULL, "", NULL };
	char *s = NULL;

	(void)state;
	assert_int_equal(callus_summary_build(&s, text, sizeof(text) - 1, NULL, 0, &pc, NULL), 0);
	assert_null(strstr(s, "hidden"));
	assert_string_equal(s, "a1\na2\na3\na4\na5\na6\na7\na8\na9\nerror: expected ';'\n"
			       "src/a.c:3: error: x\n2 failed");
	free(s);
}

/* An output whose lines come again, one after the other or later, sums up
 * as the same output with each line once: a line as the one before it is
 * not read again, and one that only begins like it, or is shorter, is
 * its own. */
static void repeated_lines_sum_up_once(void **state)
{
	static const char once[] = "building\n"
				   "src/a.c:1:2: error: expected ';'\n"
				   "src/a.c:1:2: error: expected ';' before '}'\n"
				   "src/a.c:1:2: error: expected\n"
				   "  at frame (src/a.c:1:2)\n"
				   "3 errors generated.\n";
	static const char again[] = "building\n"
				    "src/a.c:1:2: error: expected ';'\n"
				    "src/a.c:1:2: error: expected ';'\n"
				    "   src/a.c:1:2: error: expected ';'\n"
				    "src/a.c:1:2: error: expected ';' before '}'\n"
				    "src/a.c:1:2: error: expected ';' before '}'\n"
				    "src/a.c:1:2: error: expected\n"
				    "  at frame (src/a.c:1:2)\n"
				    "  at frame (src/a.c:1:2)\n"
				    "building\n"
				    "3 errors generated.\n"
				    "3 errors generated.\n";
	callus_pathctx pc = { "/w", NULL, "", NULL };
	char *a = NULL, *b = NULL;

	(void)state;
	assert_int_equal(callus_summary_build(&a, once, strlen(once), NULL, 0, &pc, NULL), 0);
	assert_int_equal(callus_summary_build(&b, again, strlen(again), NULL, 0, &pc, NULL), 0);
	assert_string_equal(a, b);
	assert_has(a, "src/a.c:1:2: error: expected ';'\n");
	assert_has(a, "src/a.c:1:2: error: expected\n");
	assert_has(a, "3 errors generated.");
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(bun_two_failures_each_once),
		cmocka_unit_test(bun_every_failure),
		cmocka_unit_test(jest_second_file_kept),
		cmocka_unit_test(flake8_second_file_kept),
		cmocka_unit_test(long_first_failure_shares),
		cmocka_unit_test(a_failure_again_listed_once),
		cmocka_unit_test(totals_lines),
		cmocka_unit_test(totals_found_as_said),
		cmocka_unit_test(repeats),
		cmocka_unit_test(repeated_lines_sum_up_once),
		cmocka_unit_test(a_nul_ends_its_line),
		cmocka_unit_test(summary_as_from_every_line),
		cmocka_unit_test(whole_as_fed_on_every_case),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
