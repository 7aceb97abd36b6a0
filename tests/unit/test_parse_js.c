/*
 * test_parse_js.c - the JavaScript parsers (eslint, tsc, jest, vitest,
 * mocha, node --test) on real outputs: tests/parsers/js/NAME.txt, printed by
 * the real tools on the projects of tests/parsers/js/generate.sh, run
 * through the whole pipeline (capture, parser selection, analysis) as
 * `callus run` does.  Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/analysis.h"
#include "callus/capture.h"
#include "callus/utf8.h"
#include "callus/parse.h"

#include "parsers/js_util.h"
#include "pieces_helpers.h"

#define SAMPLES "tests/parsers/js/"
/* where generate.sh ran the tools: eslint, mocha and node print it */
#define ROOT "/tmp/callus-js/"

static char *read_sample(const char *name, size_t *len)
{
	callus_buf path = CALLUS_BUF_INIT, data = CALLUS_BUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f;

	callus_buf_printf(&path, SAMPLES "%s.txt", name);
	f = fopen(path.ptr, "rb");
	if (!f)
		fprintf(stderr, "cannot open %s (run from the repository root)\n", path.ptr);
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		callus_buf_put(&data, chunk, n);
	fclose(f);
	callus_buf_release(&path);
	assert_int_equal(callus_buf_status(&data), 0);
	assert_true(data.len > 0);
	*len = data.len;
	return callus_buf_detach(&data);
}

static void capture(callus_capture *c, const char *data, size_t len)
{
	callus_capture_init(c);
	/* in pieces, as a pipe delivers it */
	for (size_t off = 0; off < len; off += 4093)
		callus_capture_feed(c, data + off, len - off < 4093 ? len - off : 4093);
	callus_capture_finish(c);
}

/* The analysis of data[0..len) as a failed run of `tool` in ROOT/project. */
static void analyse_data(callus_failure *f, const char *tool, const char *data, size_t len,
			 const char *project, const char *cwd_rel)
{
	callus_buf ws = CALLUS_BUF_INIT;
	callus_pathctx pc;
	callus_capture c;
	callus_check chk = { tool, 1, 1, tool, CALLUS_LESSON_TEST };

	callus_buf_printf(&ws, ROOT "%s", project);
	pc.workspace = ws.ptr;
	pc.workspace_real = NULL;
	pc.cwd_rel = cwd_rel;
	pc.memo = NULL;
	capture(&c, data, len);
	assert_int_equal(callus_failure_build(f, &chk, &c, &pc, NULL), 0);
	assert_true(strlen(f->summary) <= CALLUS_SUMMARY_MAX);
	callus_capture_release(&c);
	callus_buf_release(&ws);
}

/* The analysis of a sample as a failed run of `tool` in ROOT/project. */
static void analyse_in(callus_failure *f, const char *tool, const char *sample,
		       const char *project, const char *cwd_rel)
{
	size_t len;
	char *data = read_sample(sample, &len);

	analyse_data(f, tool, data, len, project, cwd_rel);
	free(data);
}

static void analyse(callus_failure *f, const char *tool, const char *sample, const char *project)
{
	analyse_in(f, tool, sample, project, "");
}

typedef struct want {
	const char *file;
	long line, column;
	const char *code, *severity, *test, *message;
	const char *frames; /* "fn@file|fn@file", innermost first */
} want;

static void assert_str(const char *got, const char *expected)
{
	if (!expected)
		assert_null(got);
	else
		assert_string_equal(got ? got : "(null)", expected);
}

static void check_diag(const callus_diag *d, const want *w)
{
	callus_buf frames = CALLUS_BUF_INIT;

	assert_str(d->file, w->file);
	assert_int_equal(d->line, w->line);
	assert_int_equal(d->column, w->column);
	assert_str(d->code, w->code);
	assert_str(d->severity, w->severity);
	assert_str(d->test, w->test);
	assert_str(d->message, w->message);
	for (size_t k = 0; k < d->frames.count; k++) {
		const char *tab = strchr(d->frames.items[k], '\t');

		assert_non_null(tab);
		if (k)
			callus_buf_putc(&frames, '|');
		callus_buf_put(&frames, d->frames.items[k], (size_t)(tab - d->frames.items[k]));
		callus_buf_printf(&frames, "@%s", tab + 1);
	}
	assert_string_equal(frames.ptr, w->frames ? w->frames : "");
	callus_buf_release(&frames);
}

static void check_diags(const callus_failure *f, const want *w, size_t n)
{
	assert_int_equal(f->diags.count, n);
	for (size_t i = 0; i < n; i++)
		check_diag(&f->diags.items[i], &w[i]);
}

static void check_files(const callus_failure *f, const char *const *files)
{
	size_t n = 0;

	while (files[n])
		n++;
	assert_int_equal(f->files.count, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(f->files.items[i], files[i]);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const callus_diag *find_test(const callus_failure *f, const char *test)
{
	for (size_t i = 0; i < f->diags.count; i++)
		if (f->diags.items[i].test && !strcmp(f->diags.items[i].test, test))
			return &f->diags.items[i];
	fail_msg("no failure of test '%s'", test);
	return NULL;
}

/* ------------------------------------------------------------ eslint */

static const want eslint7[] = {
	{ "src/app.js", 4, 9, "no-unused-vars", "error", NULL,
	  "'currency' is assigned a value but never used", NULL },
	{ "src/app.js", 7, 20, "eqeqeq", "error", NULL, "Expected '===' and instead saw '=='", NULL },
	{ "src/app.js", 10, 3, "no-console", "warning", NULL, "Unexpected console statement", NULL },
	{ "src/broken.js", 2, 3, NULL, "error", NULL, "Parsing error: Unexpected keyword 'return'",
	  NULL },
	{ "src/lib/format.js", 2, 7, "prefer-const", "error", NULL,
	  "'s' is never reassigned. Use 'const' instead", NULL },
	{ "src/lib/format.js", 2, 21, "no-undef", "error", NULL, "'decimals' is not defined", NULL },
	{ "src/lib/format.js", 3, 20, "no-undef", "error", NULL, "'unit' is not defined", NULL },
};

static const char *const eslint7_files[] = { "src/app.js", "src/broken.js", "src/lib/format.js",
					     NULL };

/* stylish (colour on), unix, compact, json and `npm run lint` read alike */
static void eslint_formats(void **state)
{
	static const struct {
		const char *sample, *tool;
	} cases[] = {
		{ "eslint-stylish-color", "eslint" }, { "eslint-unix", "eslint" },
		{ "eslint-compact", "eslint" },       { "eslint-json", "eslint" },
		{ "npm-run-lint", "npm run lint" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		callus_failure f;

		analyse(&f, cases[i].tool, cases[i].sample, "eslint");
		assert_string_equal(f.parser, "eslint");
		check_diags(&f, eslint7, N(eslint7));
		check_files(&f, eslint7_files);
		/* npm's lines are not in the summary; the first error's file,
		 * rule and message are, whatever the format */
		assert_null(strstr(f.summary, "npm warn"));
		assert_non_null(strstr(f.summary, f.diags.items[0].file));
		assert_non_null(strstr(f.summary, f.diags.items[0].code));
		callus_failure_release(&f);
	}
}

/* 161 problems in 25 files, absolute paths, colour off */
static void eslint_many(void **state)
{
	callus_failure f;
	size_t unused = 0, undef = 0, nocode = 0, warnings = 0;

	(void)state;
	analyse(&f, "eslint", "eslint-stylish", "eslint");
	assert_string_equal(f.parser, "eslint");
	assert_int_equal(f.diags.count, 161);
	for (size_t i = 0; i < f.diags.count; i++) {
		const callus_diag *d = &f.diags.items[i];

		assert_non_null(d->file);
		assert_null(strstr(d->file, "/tmp"));
		unused += d->code && !strcmp(d->code, "no-unused-vars");
		undef += d->code && !strcmp(d->code, "no-undef");
		nocode += !d->code;
		warnings += !strcmp(d->severity, "warning");
	}
	assert_int_equal(unused, 133);
	assert_int_equal(undef, 24);
	assert_int_equal(nocode, 1);
	assert_int_equal(warnings, 1);
	check_diag(&f.diags.items[4], &(want){ "src/gen/mod01.js", 2, 7, "no-unused-vars", "error",
					       NULL, "'unused_01_1' is assigned a value but never used",
					       NULL });
	check_diag(&f.diags.items[10], &(want){ "src/gen/mod01.js", 8, 18, "no-undef", "error", NULL,
						"'x01' is not defined", NULL });
	check_diag(&f.diags.items[160], &eslint7[6]);
	assert_int_equal(f.files.count, 25);
	assert_string_equal(f.files.items[2], "src/gen/mod01.js");
	assert_string_equal(f.files.items[24], "src/lib/format.js");
	callus_failure_release(&f);
}

/* More problems than CALLUS_DIAGS_MAX: the rest is counted */
static void eslint_overflow(void **state)
{
	callus_buf big = CALLUS_BUF_INIT;
	callus_pathctx pc = { ROOT "eslint", NULL, "", NULL };
	callus_capture c;
	callus_failure f;
	callus_check chk = { "eslint", 1, 1, "eslint", CALLUS_LESSON_LINT };
	size_t len;
	char *one = read_sample("eslint-stylish", &len);

	(void)state;
	for (int i = 0; i < 7; i++)
		callus_buf_put(&big, one, len);
	capture(&c, big.ptr, big.len);
	assert_int_equal(callus_failure_build(&f, &chk, &c, &pc, NULL), 0);
	assert_int_equal(f.diags.count, CALLUS_DIAGS_MAX);
	assert_int_equal(f.diags.dropped, 7 * 161 - CALLUS_DIAGS_MAX);
	assert_int_equal(f.files.count, 25);
	callus_failure_release(&f);
	callus_capture_release(&c);
	callus_buf_release(&big);
	free(one);
}

/* -f json cut short (an output beyond the raw head): the files before the
 * cut still count */
static void eslint_json_cut(void **state)
{
	callus_pathctx pc = { ROOT "eslint", NULL, "", NULL };
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT;
	const callus_parser *p = callus_parser_find("eslint");
	size_t len;
	char *data = read_sample("eslint-json", &len);
	const char *cut = strstr(data, "src/lib/format.js");
	callus_parse_input in = { "", 0, data, (size_t)(cut - data), 0, "eslint", "", &pc, 0 };

	(void)state;
	assert_non_null(p);
	assert_non_null(cut);
	assert_int_equal(p->parse(&in, &d, &files), 0);
	assert_int_equal(d.count, 4);
	for (size_t i = 0; i < 4; i++) {
		callus_diag *x = &d.items[i];

		assert_string_equal(x->file, eslint7[i].file);
		assert_int_equal(x->line, eslint7[i].line);
		assert_str(x->code, eslint7[i].code);
	}
	assert_int_equal(files.count, 2);
	callus_diags_release(&d);
	callus_strlist_release(&files);
	free(data);
}

/* ------------------------------------------------------------ tsc */

static const want tsc10[] = {
	{ "src/config.ts", 6, 25, "TS2322", "error", NULL,
	  "Type 'number' is not assignable to type 'string'.", NULL },
	{ "src/index.ts", 3, 7, "TS2322", "error", NULL,
	  "Type 'string' is not assignable to type 'number'.", NULL },
	{ "src/index.ts", 6, 27, "TS2551", "error", NULL,
	  "Property 'nam' does not exist on type 'User'. Did you mean 'name'?", NULL },
	{ "src/index.ts", 9, 20, "TS2345", "error", NULL,
	  "Argument of type 'string' is not assignable to parameter of type 'number'.", NULL },
	{ "src/index.ts", 10, 29, "TS2353", "error", NULL,
	  "Object literal may only specify known properties, and 'age' does not exist in type "
	  "'User'.", NULL },
	{ "src/index.ts", 11, 13, "TS2304", "error", NULL, "Cannot find name 'missing'.", NULL },
	{ "src/index.ts", 13, 22, "TS7006", "error", NULL,
	  "Parameter 'r' implicitly has an 'any' type.", NULL },
	{ "src/store.ts", 4, 26, "TS2322", "error", NULL,
	  "Type 'string' is not assignable to type 'number'.", NULL },
	{ "src/store.ts", 8, 3, "TS2322", "error", NULL,
	  "Type 'number' is not assignable to type 'Promise<number>'.", NULL },
	/* a chained message: its first line */
	{ "src/store.ts", 11, 14, "TS2322", "error", NULL,
	  "Type '(sku: number) => void' is not assignable to type '(sku: string) => void'.", NULL },
};

static void tsc_plain_pretty(void **state)
{
	static const char *const files[] = { "src/config.ts", "src/index.ts", "src/store.ts", NULL };
	static const struct {
		const char *sample, *tool;
	} cases[] = {
		{ "tsc-plain", "tsc" },
		{ "tsc-pretty", "tsc" },
		{ "npm-run-typecheck", "npm run typecheck" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		callus_failure f;

		analyse(&f, cases[i].tool, cases[i].sample, "tsc");
		assert_string_equal(f.parser, "tsc");
		check_diags(&f, tsc10, N(tsc10));
		/* --pretty's related location (src/models/user.ts) is no error */
		check_files(&f, files);
		callus_failure_release(&f);
	}
}

static void tsc_config(void **state)
{
	static const want w[] = {
		{ "bad/tsconfig.json", 1, 38, "TS5025", "error", NULL,
		  "Unknown compiler option 'noEmitt'. Did you mean 'noEmit'?", NULL },
		{ NULL, 0, 0, "TS5058", "error", NULL,
		  "The specified path does not exist: 'nothere'.", NULL },
	};
	callus_failure f;

	(void)state;
	analyse(&f, "tsc", "tsc-config", "tsc");
	assert_string_equal(f.parser, "tsc");
	check_diags(&f, w, N(w));
	callus_failure_release(&f);
}

/* ------------------------------------------------------------ jest */

static const want jest6[] = {
	{ "test/sum.test.js", 9, 23, NULL, "error", "sum \xe2\x80\xba adds 2 + 2 to equal 4",
	  "expect(received).toBe(expected) Expected: 4 Received: 3", "Object.toBe@test/sum.test.js" },
	{ "src/sum.js", 7, 11, NULL, "error",
	  "sum \xe2\x80\xba parsePrice \xe2\x80\xba accepts a currency sign",
	  "TypeError: invalid price: $3", "parsePrice@src/sum.js|Object.parsePrice@test/sum.test.js" },
	/* the diff stays in the summary */
	{ "test/cart.test.js", 11, 25, NULL, "error", "summary of a cart",
	  "expect(received).toEqual(expected)", "Object.toEqual@test/cart.test.js" },
	{ "src/cart.js", 6, 24, NULL, "error", "summary of a missing cart",
	  "TypeError: Cannot read properties of undefined (reading 'items')",
	  "items@src/cart.js|Object.summary@test/cart.test.js" },
	{ "test/cart.test.js", 18, 1, NULL, "error", "slow checkout",
	  "thrown: \"Exceeded timeout of 50 ms for a test.", "Object.test@test/cart.test.js" },
	/* a suite that does not parse: no test, babel's location */
	{ "test/broken.test.js", 4, 26, NULL, "error", NULL,
	  "SyntaxError: /tmp/callus-js/jest/test/broken.test.js: Unexpected token, expected \",\" "
	  "(4:26)", NULL },
};

static const char *const jest_files[] = { "test/sum.test.js", "src/sum.js", "test/cart.test.js",
					  "src/cart.js", "test/broken.test.js", NULL };

static void jest_default(void **state)
{
	static const struct {
		const char *sample, *tool;
	} cases[] = {
		{ "jest", "jest" }, { "jest-color", "jest" }, { "npm-test-jest", "npm test" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		callus_failure f;

		analyse(&f, cases[i].tool, cases[i].sample, "jest");
		assert_string_equal(f.parser, "jest");
		/* the console.log block's frame is no failure */
		check_diags(&f, jest6, N(jest6));
		check_files(&f, jest_files);
		callus_failure_release(&f);
	}
}

/* 125 failures in 25 suites, each once although jest repeats them all
 * under "Summary of all failing tests" */
static void jest_many(void **state)
{
	callus_failure f;
	callus_strlist seen = CALLUS_STRLIST_INIT;

	(void)state;
	analyse(&f, "jest", "jest-many", "jest-many");
	assert_string_equal(f.parser, "jest");
	assert_int_equal(f.diags.count, 125);
	assert_int_equal(f.files.count, 25);
	for (size_t i = 0; i < f.diags.count; i++) {
		const callus_diag *d = &f.diags.items[i];
		callus_buf key = CALLUS_BUF_INIT;
		int added;

		assert_non_null(d->test);
		assert_non_null(d->file);
		assert_int_equal(strncmp(d->file, "test/s", 6), 0);
		callus_buf_printf(&key, "%s %s", d->file, d->test);
		assert_int_equal(callus_strlist_add_unique(&seen, key.ptr, key.len, &added), 0);
		assert_true(added);
		callus_buf_release(&key);
	}
	/* jest runs suites in parallel: the order is not fixed */
	check_diag(find_test(&f, "suite 25 \xe2\x80\xba case 1"),
		   &(want){ "test/s25.test.js", 5, 23, NULL, "error", "suite 25 \xe2\x80\xba case 1",
			    "expect(received).toBe(expected) Expected: 4 Received: 3",
			    "Object.toBe@test/s25.test.js" });
	callus_strlist_release(&seen);
	callus_failure_release(&f);
}

/* npm test in packages/api of a monorepo: paths relative to it */
static void jest_monorepo(void **state)
{
	static const want w[] = {
		{ "packages/api/src/cart.js", 6, 24, NULL, "error", "summary of a missing cart",
		  "TypeError: Cannot read properties of undefined (reading 'items')",
		  "items@packages/api/src/cart.js|Object.summary@packages/api/test/cart.test.js" },
	};
	static const char *const files[] = { "packages/api/test/cart.test.js",
					     "packages/api/src/cart.js", NULL };
	callus_failure f;

	(void)state;
	analyse_in(&f, "npm test", "npm-test-jest-mono", "mono", "packages/api");
	assert_string_equal(f.parser, "jest");
	check_diags(&f, w, N(w));
	check_files(&f, files);
	callus_failure_release(&f);
}

/* ------------------------------------------------------------ vitest */

static const want vitest8[] = {
	/* Failed Suites: vite's "File:" line locates it */
	{ "test/broken.test.js", 1, 1, NULL, "error", NULL,
	  "Error: Failed to parse source for import analysis because the content contains invalid "
	  "JS syntax. If you are using JSX, make sure to name the file with the .jsx or .tsx "
	  "extension.", NULL },
	{ "test/cart.test.js", 12, 25, NULL, "error", "summary of a cart",
	  "AssertionError: expected { Object (count, total, ...) } to deeply equal { Object (count, "
	  "total, ...) }", "@test/cart.test.js" },
	{ "test/cart.test.js", 16, 17, NULL, "error", "summary of a missing cart",
	  "TypeError: Cannot read properties of undefined (reading 'items')", "@test/cart.test.js" },
	{ "test/extra.test.js", 6, 33, NULL, "error", "prices > rejects 1$",
	  "AssertionError: expected [Function] to throw error matching /currency/ but got 'invalid "
	  "price: 1$'", "@test/extra.test.js" },
	{ "test/extra.test.js", 6, 33, NULL, "error", "prices > rejects 2\xe2\x82\xac",
	  "AssertionError: expected [Function] to throw error matching /currency/ but got 'invalid "
	  "price: 2\xe2\x82\xac'", "@test/extra.test.js" },
	{ "test/sum.test.js", 10, 23, NULL, "error", "sum > adds 2 + 2 to equal 4",
	  "AssertionError: expected 3 to be 4", "@test/sum.test.js" },
	{ "test/sum.test.js", 19, 24, NULL, "error", "sum > parsePrice > accepts a currency sign",
	  "TypeError: invalid price: $3", "@test/sum.test.js" },
	/* Unhandled Errors: the test vitest names in prose */
	{ "test/extra.test.js", 10, 30, NULL, "error", "leaks an exception",
	  "RangeError: late failure in timer", "Timeout._onTimeout@test/extra.test.js" },
};

static void vitest_default(void **state)
{
	static const char *const files[] = { "test/broken.test.js", "test/cart.test.js",
					     "test/extra.test.js", "test/sum.test.js", NULL };
	static const struct {
		const char *sample, *tool;
	} cases[] = {
		{ "vitest", "vitest" }, { "vitest-color", "vitest" }, { "pnpm-test-vitest", "pnpm test" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		callus_failure f;

		analyse(&f, cases[i].tool, cases[i].sample, "vitest");
		assert_string_equal(f.parser, "vitest");
		check_diags(&f, vitest8, N(vitest8));
		check_files(&f, files);
		callus_failure_release(&f);
	}
}

/* The vitest sample, changed (b holds it, released here), reads as the
 * sample does: its eight errors. */
static void expect_vitest8(callus_buf *b)
{
	callus_failure f;

	assert_int_equal(callus_buf_status(b), 0);
	analyse_data(&f, "vitest", b->ptr, b->len, "vitest", "");
	assert_string_equal(f.parser, "vitest");
	check_diags(&f, vitest8, N(vitest8));
	callus_failure_release(&f);
	callus_buf_release(b);
}

/* vitest prints its totals on stdout and its report on stderr: a capture
 * reading the two pipes may have the totals anywhere in the report, first
 * or inside a failure (between its FAIL line and its message). */
static void vitest_totals_anywhere(void **state)
{
	size_t len;
	char *data = read_sample("vitest", &len);
	const char *report = strstr(data, "\n\xe2\x8e\xaf"), *totals = strstr(data, "\n Test Files ");
	const char *fail = report ? strstr(report, "\n FAIL  test/cart.test.js") : NULL;
	const char *at[2] = { report, fail ? strchr(fail + 1, '\n') : NULL };

	(void)state;
	assert_non_null(totals);
	for (int k = 0; k < 2; k++) {
		callus_buf moved = CALLUS_BUF_INIT;

		assert_non_null(at[k]);
		assert_true(at[k] < totals);
		callus_buf_put(&moved, data, (size_t)(at[k] - data));
		callus_buf_put(&moved, totals, len - (size_t)(totals - data));
		callus_buf_put(&moved, at[k], (size_t)(totals - at[k]));
		expect_vitest8(&moved);
	}
	free(data);
}

/* Watch mode, vitest's default in a terminal, ends with its own FAIL line:
 * no test of a file. */
static void vitest_watch_mode_ends(void **state)
{
	callus_buf out = CALLUS_BUF_INIT;
	size_t len;
	char *data = read_sample("vitest", &len);

	(void)state;
	callus_buf_put(&out, data, len);
	callus_buf_puts(&out, " FAIL  Tests failed. Watching for file changes...\n"
			      "       press h to show help, press q to quit\n");
	expect_vitest8(&out);
	free(data);
}

static void vitest_many(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "vitest", "vitest-many", "vitest-many");
	assert_string_equal(f.parser, "vitest");
	assert_int_equal(f.diags.count, 120);
	assert_int_equal(f.files.count, 12);
	check_diag(find_test(&f, "suite 12 > case 10"),
		   &(want){ "test/s12.test.js", 33, 24, NULL, "error", "suite 12 > case 10",
			    "AssertionError: expected 11 to be 13", "@test/s12.test.js" });
	callus_failure_release(&f);
}

/* ------------------------------------------------------------ mocha */

#define CTX "Context.<anonymous>@"

static const want mocha8[] = {
	{ "test/cart.spec.js", 12, 12, NULL, "error", "cart \xe2\x80\xba summarises a cart",
	  "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:",
	  CTX "test/cart.spec.js" },
	{ "src/cart.js", 6, 24, NULL, "error", "cart \xe2\x80\xba summarises a missing cart",
	  "TypeError: Cannot read properties of undefined (reading 'items')",
	  "summary@src/cart.js|" CTX "test/cart.spec.js" },
	{ "test/cart.spec.js", 21, 12, NULL, "error", "cart \xe2\x80\xba loads prices asynchronously",
	  "AssertionError [ERR_ASSERTION]: price should be a number", CTX "test/cart.spec.js" },
	/* a hook */
	{ "test/cart.spec.js", 27, 11, NULL, "error",
	  "db \xe2\x80\xba \"before each\" hook for \"connects\"", "Error: connection refused",
	  CTX "test/cart.spec.js" },
	/* a timeout: no frame in the project, the file from the message */
	{ "test/cart.spec.js", 0, 0, NULL, "error", "slow \xe2\x80\xba calls back in time",
	  "Error: Timeout of 20ms exceeded. For async tests and hooks, ensure \"done()\" is called; "
	  "if returning a Promise, ensure it resolves. (/tmp/callus-js/mocha/test/cart.spec.js)",
	  NULL },
	/* an ES module: file:// frames */
	{ "test/esm.spec.mjs", 5, 12, NULL, "error", "esm module \xe2\x80\xba compares strings",
	  "AssertionError [ERR_ASSERTION]: 'left' == 'right'", CTX "test/esm.spec.mjs" },
	{ "test/sum.spec.js", 10, 12, NULL, "error", "sum \xe2\x80\xba adds 2 + 2 to equal 4",
	  "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 3 !== 4",
	  CTX "test/sum.spec.js" },
	{ "src/sum.js", 7, 11, NULL, "error",
	  "sum \xe2\x80\xba parsePrice \xe2\x80\xba accepts a currency sign",
	  "TypeError: invalid price: $3", "parsePrice@src/sum.js|" CTX "test/sum.spec.js" },
};

static void mocha_spec(void **state)
{
	static const char *const files[] = { "test/cart.spec.js", "src/cart.js", "test/esm.spec.mjs",
					     "test/sum.spec.js", "src/sum.js", NULL };
	static const struct {
		const char *sample, *tool;
	} cases[] = {
		{ "mocha", "mocha" }, { "mocha-color", "mocha" }, { "yarn-test-mocha", "yarn test" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		callus_failure f;

		analyse(&f, cases[i].tool, cases[i].sample, "mocha");
		assert_string_equal(f.parser, "mocha");
		check_diags(&f, mocha8, N(mocha8));
		check_files(&f, files);
		callus_failure_release(&f);
	}
}

/* --reporter tap: read as node's TAP, fullTitle names */
static void mocha_tap(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "mocha", "mocha-tap", "mocha");
	assert_string_equal(f.parser, "mocha");
	assert_int_equal(f.diags.count, N(mocha8));
	for (size_t i = 0; i < f.diags.count; i++) {
		const callus_diag *d = &f.diags.items[i];
		/* the timeout names its file in prose only */
		const char *file = i == 4 ? NULL : mocha8[i].file;

		assert_str(d->file, file);
		assert_int_equal(d->line, mocha8[i].line);
		assert_str(d->message, mocha8[i].message);
	}
	assert_string_equal(f.diags.items[7].test, "sum parsePrice accepts a currency sign");
	assert_string_equal(f.diags.items[3].test, "db \"before each\" hook for \"connects\"");
	callus_failure_release(&f);
}

static void mocha_many(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "mocha", "mocha-many", "mocha-many");
	assert_string_equal(f.parser, "mocha");
	assert_int_equal(f.diags.count, 110);
	assert_int_equal(f.files.count, 11);
	check_diag(&f.diags.items[109],
		   &(want){ "test/s11.spec.js", 33, 12, NULL, "error",
			    "suite 11 \xe2\x80\xba case 10",
			    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: "
			    "11 !== 13", CTX "test/s11.spec.js" });
	callus_failure_release(&f);
}

/* ------------------------------------------------------------ node --test */

#define TCX "TestContext.<anonymous>@"

static const want node5[] = {
	{ "src/cart.js", 6, 24, NULL, "error", "summary of a missing cart",
	  "TypeError: Cannot read properties of undefined (reading 'items')",
	  "summary@src/cart.js|" TCX "test/cart.test.js" },
	/* a subtest: its parent test names it */
	{ "test/cart.test.js", 11, 12, NULL, "error", "cart with subtests \xe2\x80\xba counts items",
	  "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 0 !== 1",
	  TCX "test/cart.test.js|" TCX "test/cart.test.js" },
	{ "test/sum.test.js", 12, 12, NULL, "error", "sum \xe2\x80\xba adds 2 + 2 to equal 4",
	  "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 3 !== 4",
	  TCX "test/sum.test.js" },
	{ "src/sum.js", 7, 11, NULL, "error",
	  "sum \xe2\x80\xba parsePrice \xe2\x80\xba accepts a currency sign",
	  "TypeError: invalid price: $3", "parsePrice@src/sum.js|" TCX "test/sum.test.js" },
	{ "test/sum.test.js", 23, 10, NULL, "error", "top-level deep equal",
	  "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:",
	  TCX "test/sum.test.js" },
};

/* TAP (the default off a terminal), spec with and without colour, and
 * bun run test: absolute paths all */
static void node_test_reporters(void **state)
{
	static const char *const files[] = { "src/cart.js", "test/cart.test.js", "test/sum.test.js",
					     "src/sum.js", NULL };
	static const struct {
		const char *sample, *tool;
	} cases[] = {
		{ "node-test-tap", "node --test" },
		{ "node-test-spec", "node --test" },
		{ "node-test-spec-color", "node --test" },
		{ "bun-run-test-node", "bun run test" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		callus_failure f;

		analyse(&f, cases[i].tool, cases[i].sample, "nodetest");
		assert_string_equal(f.parser, "node_test");
		check_diags(&f, node5, N(node5));
		check_files(&f, files);
		callus_failure_release(&f);
	}
}

static void node_test_many(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "node --test", "node-test-many", "nodetest-many");
	assert_string_equal(f.parser, "node_test");
	assert_int_equal(f.diags.count, 110);
	assert_int_equal(f.files.count, 1);
	check_diag(&f.diags.items[0],
		   &(want){ "test/many.test.js", 7, 12, NULL, "error", "suite 1 \xe2\x80\xba case 1",
			    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: "
			    "3 !== 4", TCX "test/many.test.js" });
	check_diag(&f.diags.items[109],
		   &(want){ "test/many.test.js", 364, 12, NULL, "error",
			    "suite 11 \xe2\x80\xba case 10",
			    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: "
			    "11 !== 13", TCX "test/many.test.js" });
	callus_failure_release(&f);
}

/* ------------------------------------------------------------ selection */

/* Each sample's filtered text names its tool, as for `npm test` */
static void sniffing(void **state)
{
	static const struct {
		const char *sample, *parser;
	} cases[] = {
		{ "eslint-stylish", "eslint" },     { "eslint-unix", "eslint" },
		{ "eslint-compact", "eslint" },     { "eslint-json", "eslint" },
		{ "npm-run-lint", "eslint" },       { "tsc-plain", "tsc" },
		{ "tsc-pretty", "tsc" },            { "tsc-config", "tsc" },
		{ "jest", "jest" },                 { "jest-many", "jest" },
		{ "vitest", "vitest" },             { "vitest-color", "vitest" },
		{ "vitest-many", "vitest" },        { "mocha", "mocha" },
		{ "mocha-many", "mocha" },          { "node-test-tap", "node_test" },
		{ "node-test-spec", "node_test" },  { "node-test-many", "node_test" },
		{ "bun-run-test-node", "node_test" }, { "yarn-test-mocha", "mocha" },
		{ "mocha-tap", "node_test" },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++) {
		callus_capture c;
		callus_buf text = CALLUS_BUF_INIT;
		const callus_parser *p;
		size_t len;
		char *data = read_sample(cases[i].sample, &len);

		capture(&c, data, len);
		assert_int_equal(callus_capture_text(&c, &text), 0);
		p = callus_parser_select("npm test", text.ptr, text.len);
		assert_non_null(p);
		assert_string_equal(p->name, cases[i].parser);
		callus_buf_release(&text);
		callus_capture_release(&c);
		free(data);
	}
}

/* Other tools' outputs are not taken for JavaScript ones */
static void sniffing_others(void **state)
{
	static const char *const outputs[] = {
		"============================= test session starts ==============================\n"
		"tests/test_calc.py F                                                     [100%]\n"
		"FAILED tests/test_calc.py::test_add - assert 3 == 4\n"
		"============================== 1 failed in 0.02s ===============================\n",
		"main.c: In function 'main':\n"
		"main.c:5:9: error: 'y' undeclared (first use in this function)\n"
		"    5 |     x = y;\n"
		"      |         ^\n",
		"--- FAIL: TestAdd (0.00s)\n"
		"    calc_test.go:9: got 3, want 4\n"
		"FAIL\n"
		"FAIL\texample.com/calc\t0.002s\n",
		"error[E0308]: mismatched types\n"
		" --> src/main.rs:2:18\n"
		"error: could not compile `calc` (bin \"calc\") due to 1 previous error\n",
		"src/app.py:3:1: F401 'os' imported but unused\n"
		"Found 1 error.\n",
	};
	static const char *const js[] = { "eslint", "tsc", "jest", "vitest", "mocha", "node_test" };

	(void)state;
	for (size_t i = 0; i < N(outputs); i++)
		for (size_t k = 0; k < N(js); k++) {
			const callus_parser *p = callus_parser_find(js[k]);

			assert_non_null(p);
			assert_non_null(p->sniff);
			assert_false(p->sniff(outputs[i], strlen(outputs[i])));
		}
}

/* ------------------------------------------------------------ filtered text */

/* The parser on the filtered lines only, as for an output larger than the
 * raw head. */
static void parse_text(const char *parser, const char *sample, const char *project,
		       callus_diags *d, callus_strlist *files)
{
	callus_buf ws = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	callus_pathctx pc;
	callus_capture c;
	const callus_parser *p = callus_parser_find(parser);
	size_t len;
	char *data = read_sample(sample, &len);
	callus_parse_input in;

	assert_non_null(p);
	callus_buf_printf(&ws, ROOT "%s", project);
	pc.workspace = ws.ptr;
	pc.workspace_real = NULL;
	pc.cwd_rel = "";
	pc.memo = NULL;
	capture(&c, data, len);
	assert_int_equal(callus_capture_text(&c, &text), 0);
	in = (callus_parse_input){ text.ptr, text.len, NULL, 0, 0, parser, "", &pc, 0 };
	assert_int_equal(p->parse(&in, d, files), 0);
	callus_capture_release(&c);
	callus_buf_release(&text);
	callus_buf_release(&ws);
	free(data);
}

static void filtered_text(void **state)
{
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT;

	(void)state;
	/* jest and vitest keep every line they need */
	parse_text("jest", "jest", "jest", &d, &files);
	assert_int_equal(d.count, N(jest6));
	for (size_t i = 0; i < d.count; i++) {
		assert_str(d.items[i].file, jest6[i].file);
		assert_int_equal(d.items[i].line, jest6[i].line);
		assert_str(d.items[i].test, jest6[i].test);
	}
	callus_diags_release(&d);
	callus_strlist_release(&files);

	parse_text("vitest", "vitest-many", "vitest-many", &d, &files);
	assert_int_equal(d.count, 120);
	check_diag(&d.items[0], &(want){ "test/s01.test.js", 6, 23, NULL, "error", "suite 01 > case 1",
					 "AssertionError: expected 3 to be 4", "@test/s01.test.js" });
	callus_diags_release(&d);
	callus_strlist_release(&files);

	/* mocha's titles are gone: located failures without names */
	parse_text("mocha", "mocha", "mocha", &d, &files);
	assert_int_equal(d.count, N(mocha8));
	for (size_t i = 0; i < d.count; i++) {
		assert_str(d.items[i].file, mocha8[i].file);
		assert_int_equal(d.items[i].line, mocha8[i].line);
		assert_int_equal(d.items[i].column, mocha8[i].column);
	}
	assert_null(d.items[0].test);
	callus_diags_release(&d);
	callus_strlist_release(&files);

	/* TAP without "# Subtest:" and "...": names from the parents still */
	parse_text("node_test", "node-test-tap", "nodetest", &d, &files);
	assert_int_equal(d.count, N(node5));
	for (size_t i = 0; i < d.count; i++) {
		assert_str(d.items[i].file, node5[i].file);
		assert_int_equal(d.items[i].line, node5[i].line);
		assert_str(d.items[i].test, node5[i].test);
	}
	callus_diags_release(&d);
	callus_strlist_release(&files);

	parse_text("node_test", "node-test-spec", "nodetest", &d, &files);
	assert_int_equal(d.count, N(node5));
	for (size_t i = 0; i < d.count; i++) {
		assert_str(d.items[i].file, node5[i].file);
		assert_int_equal(d.items[i].line, node5[i].line);
	}
	callus_diags_release(&d);
	callus_strlist_release(&files);

	parse_text("eslint", "eslint-stylish", "eslint", &d, &files);
	assert_int_equal(d.count, 161);
	assert_int_equal(files.count, 25);
	callus_diags_release(&d);
	callus_strlist_release(&files);

	parse_text("tsc", "tsc-pretty", "tsc", &d, &files);
	assert_int_equal(d.count, N(tsc10));
	callus_diags_release(&d);
	callus_strlist_release(&files);
}

/* A package manager's lines around a JavaScript tool's: each prefix at
 * the start of a line, and only there; a tool's own lines are not. */
static void wrapper_noise(void **state)
{
	static const char *const noise[] = {
		"npm warn config", "npm WARN deprecated x", "npm error code 1", "npm ERR! code ELIFECYCLE",
		"npm notice New minor version", "npm verb exit 1", "> app@1.0.0 test", "$ tsc -p .",
		"yarn run v1.22.19", "error Command failed with exit code 2.",
		"info Visit https://yarnpkg.com/en/docs/cli/run", "Done in 3.21s.",
		"error: script \"test\" exited with code 1", "[ELIFECYCLE] Command failed.",
		" ELIFECYCLE  Test failed.", "ELIFECYCLE  Command failed with exit code 1.",
		"ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL", " ERR_PNPM_RECURSIVE_EXEC_FIRST_FAIL x",
	};
	static const char *const tool[] = {
		"src/a.ts(3,5): error TS2304: Cannot find name 'x'.", "error TS18003: No inputs",
		"Error: expected 1 to be 2", "  > 12 |   expect(x).toBe(2)", "done in 3s", "npm",
		"yarn run", "ERR_PNPM", "",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(noise) / sizeof(noise[0]); i++)
		if (!callus_js_wrapper_noise(noise[i], strlen(noise[i])))
			fail_msg("not taken for noise: '%s'", noise[i]);
	for (size_t i = 0; i < sizeof(tool) / sizeof(tool[0]); i++)
		if (callus_js_wrapper_noise(tool[i], strlen(tool[i])))
			fail_msg("taken for noise: '%s'", tool[i]);
}

/* node --test's strictEqual of a negative value: "-1 !== 3" is the
 * comparison, no diff line ("- 3"); the same signature as "4 !== 3"
 * (found by an outside review: two). */
static void node_test_negative_values(void **state)
{
	static const char *const values[] = { "-1 !== 3", "4 !== 3" };
	char ids[2][CALLUS_SHA256_HEX_LEN + 1];

	(void)state;
	for (int k = 0; k < 2; k++) {
		callus_buf out = CALLUS_BUF_INIT;
		callus_signature *sigs = NULL;
		size_t n = 0;
		callus_failure f;

		callus_buf_printf(&out,
				  "TAP version 13\n"
				  "# Subtest: sums\n"
				  "not ok 1 - sums\n"
				  "  ---\n"
				  "  duration_ms: 2.2\n"
				  "  location: '/tmp/callus-corpus/node-test-app/test/sum.test.js:2:1'\n"
				  "  failureType: 'testCodeFailure'\n"
				  "  error: |-\n"
				  "    Expected values to be strictly equal:\n"
				  "    \n"
				  "    %s\n"
				  "    \n"
				  "  code: 'ERR_ASSERTION'\n"
				  "  name: 'AssertionError'\n"
				  "  operator: 'strictEqual'\n"
				  "  stack: |-\n"
				  "    TestContext.<anonymous> (/tmp/callus-corpus/node-test-app/test/sum.test.js:2:25)\n"
				  "  ...\n"
				  "1..1\n"
				  "# fail 1\n",
				  values[k]);
		analyse_data(&f, "node --test", out.ptr, out.len, "node-test-app", "");
		assert_int_equal(f.diags.count, 1);
		assert_non_null(strstr(f.diags.items[0].message, values[k]));
		assert_int_equal(callus_signatures_for(&sigs, &n, &f.diags, NULL, "node_test", NULL), 0);
		assert_int_equal(n, 1);
		memcpy(ids[k], sigs[0].id, sizeof(ids[k]));
		callus_signatures_free(sigs, n);
		callus_failure_release(&f);
		callus_buf_release(&out);
	}
	assert_string_equal(ids[0], ids[1]);
}

/* A message part added said the long way, for message_parts_as_said: byte
 * by byte, blanks collapsed into one space between words, one byte past
 * the limit at most (a space and a byte past it when both came at once),
 * then cut on a UTF-8 boundary. */
static void message_add_as_said(callus_buf *m, const char *s, size_t len)
{
	int space = m->len > 0;

	for (size_t i = 0; i < len && m->len <= CALLUS_JS_MESSAGE_MAX; i++) {
		if (s[i] == ' ' || s[i] == '\t') {
			space = m->len > 0;
			continue;
		}
		if (space)
			callus_buf_putc(m, ' ');
		space = 0;
		callus_buf_putc(m, s[i]);
	}
	if (m->len > CALLUS_JS_MESSAGE_MAX) {
		callus_buf_truncate(m, callus_utf8_cut(m->ptr, m->len, CALLUS_JS_MESSAGE_MAX));
		callus_buf_rtrim(m);
	}
}

/* callus_js_message_add() copies a word at a time: on parts of words,
 * blanks and UTF-8 added one after the other across the limit, the
 * message is the one added byte by byte. */
/* tsc's line sniffer as it was written first: every "error TS" found by
 * memmem, then what must stand before and after it. */
static int tsc_line_as_said(const char *s, size_t n)
{
	for (const char *hit = s; (hit = memmem(hit, (size_t)(s + n - hit), "error TS", 8));
	     hit += 8) {
		size_t at = (size_t)(hit - s), k = at + 8;

		if (k >= n || s[k] < '0' || s[k] > '9')
			continue;
		if (at != 0 && (at < 3 || (memcmp(s + at - 3, "): ", 3) &&
					    memcmp(s + at - 3, " - ", 3))))
			continue;
		while (k < n && s[k] >= '0' && s[k] <= '9')
			k++;
		if (k < n && s[k] == ':')
			return 1;
	}
	return 0;
}

/* tsc's sniffer finds "TS" by its capital T, then "error " before it: on
 * 200,000 lines of pieces of its lines, and of lines like them, it answers
 * as the search for the whole phrase does (every place in a line, the
 * line's ends and a T with no room for the S after it among them). */
static void tsc_sniffed_as_said(void **state)
{
	static const char *const pieces[] = {
		"error TS", "error TS2304", "error TS1:", "error ", "TS", "T", "S", "2304", "1",
		":", "): ", " - ", "): error TS", " - error TS", "src/a.ts", "(1,2)", ":1:2", "x",
		" ", "error", "rror TS", "TTS", "error TTS",
	};
	const callus_parser *tsc = callus_parser_find("tsc");
	uint64_t x = 0x2545f4914f6cdd1du;
	size_t yes = 0;
	char line[256];

	(void)state;
	assert_non_null(tsc);
	assert_non_null(tsc->sniff_line);
	for (int round = 0; round < 200000; round++) {
		size_t n = (size_t)(pieces_next(&x) % 9), len;

		len = pieces_line(line, sizeof(line), pieces, sizeof(pieces) / sizeof(*pieces), n, &x);
		/* not terminated where the line ends: nothing past it is read */
		memset(line + len, 'T', sizeof(line) - len);
		if (tsc->sniff_line(line, len) != tsc_line_as_said(line, len))
			fail_msg("\"%.*s\": %d, as said %d", (int)len, line, tsc->sniff_line(line, len),
				 tsc_line_as_said(line, len));
		yes += (size_t)tsc_line_as_said(line, len);
	}
	assert_true(yes > 1000);
	assert_true(yes < 150000);
}

static void message_parts_as_said(void **state)
{
	static const char *const pieces[] = {
		"expect", "(received)", ".toBe", " ", "  ", "\t", " \t ", "g\xc3\xb6\xc3\x9f",
		"\xe2\x97\x8f", "x", "Expected: 3", "", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	};
	uint64_t x = 0x9e3779b97f4a7c15u;
	char part[512]; /* nine pieces of 41 bytes at most */

	(void)state;
	for (int round = 0; round < 20000; round++) {
		callus_buf got = CALLUS_BUF_INIT, said = CALLUS_BUF_INIT;
		int parts;

		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		parts = 1 + (int)(x % 12);
		for (int p = 0; p < parts; p++) {
			size_t len = 0, n;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			n = 1 + (size_t)(x % 9);
			for (size_t k = 0; k < n; k++) {
				const char *pc;

				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				pc = pieces[x % (sizeof(pieces) / sizeof(*pieces))];
				memcpy(part + len, pc, strlen(pc));
				len += strlen(pc);
			}
			assert_int_equal(callus_js_message_add(&got, part, len), 0);
			message_add_as_said(&said, part, len);
			if (got.len != said.len || memcmp(got.ptr, said.ptr, got.len))
				fail_msg("round %d: \"%.*s\", as said \"%.*s\"", round, (int)got.len,
					 got.ptr, (int)said.len, said.ptr);
		}
		callus_buf_release(&got);
		callus_buf_release(&said);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(eslint_formats),  cmocka_unit_test(eslint_many),
		cmocka_unit_test(eslint_overflow), cmocka_unit_test(eslint_json_cut),
		cmocka_unit_test(tsc_plain_pretty), cmocka_unit_test(tsc_config),
		cmocka_unit_test(jest_default),    cmocka_unit_test(jest_many),
		cmocka_unit_test(jest_monorepo),   cmocka_unit_test(vitest_default),
		cmocka_unit_test(vitest_totals_anywhere),
		cmocka_unit_test(vitest_watch_mode_ends),
		cmocka_unit_test(vitest_many),     cmocka_unit_test(mocha_spec),
		cmocka_unit_test(mocha_tap),       cmocka_unit_test(mocha_many),      cmocka_unit_test(node_test_reporters),
		cmocka_unit_test(node_test_many),  cmocka_unit_test(sniffing),
		cmocka_unit_test(sniffing_others), cmocka_unit_test(filtered_text),
		cmocka_unit_test(wrapper_noise),
		cmocka_unit_test(message_parts_as_said),
		cmocka_unit_test(tsc_sniffed_as_said),
		cmocka_unit_test(node_test_negative_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
