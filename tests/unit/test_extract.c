#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "callus/analysis.h"
#include "callus/capture.h"
#include "callus/extract.h"
#include "callus/paths.h"
#include "callus/record.h"
#include "callus/redact.h"

static const callus_pathctx ws = { "/work/proj", NULL, "", NULL };

static void relativize(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;
	callus_pathctx sub = { "/work/proj", NULL, "web", NULL };

	(void)state;
	assert_int_equal(callus_path_relativize(&b, &ws, "/work/proj/src/a.js", 19), 1);
	assert_string_equal(b.ptr, "src/a.js");
	assert_int_equal(callus_path_relativize(&b, &ws, "./src/../lib/b.ts", 17), 1);
	assert_string_equal(b.ptr, "lib/b.ts");
	assert_int_equal(callus_path_relativize(&b, &sub, "src/c.py", 8), 1);
	assert_string_equal(b.ptr, "web/src/c.py");
	assert_int_equal(callus_path_relativize(&b, &sub, "../api/d.go", 11), 1);
	assert_string_equal(b.ptr, "api/d.go");
	/* outside, third-party, traversal */
	assert_int_equal(callus_path_relativize(&b, &ws, "/usr/include/stdio.h", 20), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "/work/project/a.c", 17), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "node_modules/x/index.js", 23), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "/work/proj/.venv/lib/site-packages/x.py", 39), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "../../etc/passwd.c", 18), 0);
	/* each third party's folder, at each place; a name one byte longer
	 * or shorter is the project's */
	{
		static const char *const dirs[] = {
			"node_modules", "site-packages", "dist-packages", ".venv", "venv", ".git",
			"__pycache__", ".cargo", ".rustup", ".pnpm-store", ".yarn",
		};
		char p[64];

		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			int n = snprintf(p, sizeof(p), "src/%s/x.py", dirs[i]);

			assert_int_equal(callus_path_relativize(&b, &ws, p, (size_t)n), 0);
			n = snprintf(p, sizeof(p), "%s/x.py", dirs[i]);
			assert_int_equal(callus_path_relativize(&b, &ws, p, (size_t)n), 0);
			n = snprintf(p, sizeof(p), "src/%sx/x.py", dirs[i]);
			assert_int_equal(callus_path_relativize(&b, &ws, p, (size_t)n), 1);
			n = snprintf(p, sizeof(p), "src/%.*s/x.py", (int)strlen(dirs[i]) - 1, dirs[i]);
			assert_int_equal(callus_path_relativize(&b, &ws, p, (size_t)n), 1);
		}
	}
	/* a component as long as the lengths' bits go, and longer */
	for (size_t n = 62; n <= 130; n++) {
		char p[160];

		memcpy(p, "src/", 4);
		memset(p + 4, 'a', n);
		memcpy(p + 4 + n, "/x.c", 5);
		assert_int_equal(callus_path_relativize(&b, &ws, p, n + 8), 1);
		assert_string_equal(b.ptr, p);
	}
	assert_int_equal(callus_path_relativize(&b, &sub, "../../x.c", 9), 0);
	/* a name in UTF-8 is one; a byte that is not UTF-8, the character
	 * that replaced one, a control byte and DEL make none */
	assert_int_equal(callus_path_relativize(&b, &ws, "src/gr\xc3\xb6\xc3\x9f" "e.c", 13), 1);
	assert_string_equal(b.ptr, "src/gr\xc3\xb6\xc3\x9f" "e.c");
	assert_int_equal(callus_path_relativize(&b, &ws, "src/\xff.c", 7), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "src/\xc3.c", 7), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "src/\xef\xbf\xbd.c", 9), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "src/a\tb.c", 9), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "src/a\x7f.c", 8), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "src/a\x1f.c", 8), 0);
	/* a colon or a backslash names no file relative to the folder (a
	 * drive, a URL, Windows' separator); under the workspace, a name */
	assert_int_equal(callus_path_relativize(&b, &ws, "src/a:b.c", 9), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "src\\a.c", 7), 0);
	assert_int_equal(callus_path_relativize(&b, &ws, "/work/proj/src/a:b\\c.c", 22), 1);
	assert_string_equal(b.ptr, "src/a:b\\c.c");
	/* every byte past ASCII but UTF-8's own is refused, one at a time */
	for (int c = 0x80; c < 0x100; c++) {
		char p[8] = "src/x.c";

		p[4] = (char)c;
		assert_int_equal(callus_path_relativize(&b, &ws, p, 7), 0);
	}
	callus_buf_release(&b);
}

/* A relative path taken as it is (no component empty, "." or "..")
 * resolves as one whose components are each resolved: every path of up
 * to four components from a set, against the root and a subfolder, as
 * the same path after "./" (which is never taken as it is). */
static void relativize_plain_as_by_components(void **state)
{
	static const char *const comps[] = { "a", "bc", ".", "..", "", ".x", "..y", "x.", "...",
					     "node_modules", "-" };
	enum { NCOMPS = sizeof(comps) / sizeof(comps[0]) };
	callus_pathctx ctxs[] = { { "/work/proj", NULL, "", NULL },
				  { "/work/proj", NULL, "web/app", NULL },
				  { "/work/proj", NULL, "web/node_modules/x", NULL } };
	callus_buf plain = CALLUS_BUF_INIT, dotted = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	size_t tried = 0, resolved = 0;

	(void)state;
	for (size_t k = 1; k <= 4; k++) {
		size_t total = 1;

		for (size_t j = 0; j < k; j++)
			total *= NCOMPS;
		for (size_t n = 0; n < total; n++) {
			size_t m = n;

			callus_buf_clear(&path);
			callus_buf_puts(&path, "./");
			for (size_t j = 0; j < k; j++, m /= NCOMPS) {
				if (j)
					callus_buf_putc(&path, '/');
				callus_buf_puts(&path, comps[m % NCOMPS]);
			}
			/* a leading slash makes an absolute path of it */
			if (path.len < 3 || path.ptr[2] == '/')
				continue;
			for (size_t c = 0; c < sizeof(ctxs) / sizeof(ctxs[0]); c++) {
				int a = callus_path_relativize(&plain, &ctxs[c], path.ptr + 2,
							       path.len - 2);
				int b = callus_path_relativize(&dotted, &ctxs[c], path.ptr, path.len);

				assert_int_equal(a, b);
				if (a) {
					assert_string_equal(plain.ptr, dotted.ptr);
					resolved++;
				}
				tried++;
			}
		}
	}
	assert_true(tried > 20000);
	assert_true(resolved > tried / 4);
	callus_buf_release(&plain);
	callus_buf_release(&dotted);
	callus_buf_release(&path);
}

/* A memo answers as the resolution would: every path against every
 * context, with and without one, in two orders (a path asked of each
 * context in turn, a context's paths in turn, some repeated); and a
 * context whose cwd_rel is rewritten in place (make's directories, the
 * same address) resolves anew. */
static void relativize_memo(void **state)
{
	static const char *const paths[] = {
		"src/a.c", "src/a.c", "/work/proj/src/a.c", "../b.c", "../b.c", "", "src/a.c",
		"node_modules/x.js", "node_modules/x.js", "src/a.c\0x", "src/a.c", "/srv/proj/c.c",
	};
	static const size_t lens[] = { 7, 7, 18, 6, 6, 0, 7, 17, 17, 9, 7, 13 };
	char dir[8] = "web";
	/* each next to one that differs in one string only */
	callus_pathctx ctxs[] = {
		{ "/work/proj", NULL, "", NULL },
		{ "/work/other", NULL, "", NULL },
		{ "/work/other", "", NULL, NULL },
		{ "/work/proj", "/srv/proj", "", NULL },
		{ "/work/proj", "/srv/other", "", NULL },
		{ "/work/proj", "/srv/other", dir, NULL },
	};
	callus_pathmemo memo = CALLUS_PATHMEMO_INIT, own = CALLUS_PATHMEMO_INIT;
	callus_buf plain = CALLUS_BUF_INIT, memoed = CALLUS_BUF_INIT;
	enum { NCTX = sizeof(ctxs) / sizeof(ctxs[0]), NPATHS = sizeof(paths) / sizeof(paths[0]) };
	(void)state;

	/* contexts in turn for each path, then each context's paths in turn */
	for (size_t k = 0; k < 2 * NCTX * NPATHS; k++) {
		size_t c = k < NCTX * NPATHS ? k % NCTX : (k / NPATHS) % NCTX;
		size_t i = k < NCTX * NPATHS ? k / NCTX : k % NPATHS;
		callus_pathctx with = ctxs[c];
		const char *got = NULL;
		size_t got_len = 0;
		int a, b;

		with.memo = &memo;
		a = callus_path_relativize(&plain, &ctxs[c], paths[i], lens[i]);
		b = callus_path_relativize(&memoed, &with, paths[i], lens[i]);
		assert_int_equal(a, b);
		assert_int_equal(plain.len, memoed.len);
		assert_memory_equal(plain.ptr, memoed.ptr, plain.len);
		/* resolved in a memo of its own, as asked in the same order */
		with.memo = &own;
		b = callus_path_memo_resolve(&with, paths[i], lens[i], &got, &got_len);
		assert_int_equal(a, b);
		assert_int_equal(plain.len, got_len);
		assert_memory_equal(plain.ptr, got, got_len);
	}
	/* the same address, another directory: resolved anew */
	ctxs[5].memo = &memo;
	assert_int_equal(callus_path_relativize(&memoed, &ctxs[5], "src/a.c", 7), 1);
	assert_string_equal(memoed.ptr, "web/src/a.c");
	memcpy(dir, "api", 4);
	assert_int_equal(callus_path_relativize(&memoed, &ctxs[5], "src/a.c", 7), 1);
	assert_string_equal(memoed.ptr, "api/src/a.c");
	/* and it was used: a hit answers from the memo, not the context */
	ctxs[0].memo = &memo;
	assert_int_equal(callus_path_relativize(&memoed, &ctxs[0], "src/q.c", 7), 1);
	memcpy(memo.out.ptr, "src/Q.c", 7);
	assert_int_equal(callus_path_relativize(&memoed, &ctxs[0], "src/q.c", 7), 1);
	assert_string_equal(memoed.ptr, "src/Q.c");
	/* what a hit would answer, read without a copy */
	{
		const char *got = NULL;
		size_t n = 0;

		assert_int_equal(callus_path_memo_resolve(&ctxs[0], "src/q.c", 7, &got, &n), 1);
		assert_int_equal(n, 7);
		assert_memory_equal(got, "src/Q.c", 7);
		/* another path, or context: resolved, and kept */
		assert_int_equal(callus_path_memo_resolve(&ctxs[0], "src/q.h", 7, &got, &n), 1);
		assert_int_equal(n, 7);
		assert_memory_equal(got, "src/q.h", 7);
		assert_memory_equal(memo.out.ptr, "src/q.h", 7);
		ctxs[5].memo = &memo;
		assert_int_equal(callus_path_memo_resolve(&ctxs[5], "src/q.c", 7, &got, &n), 1);
		assert_int_equal(n, 11);
		assert_memory_equal(got, "api/src/q.c", 11);
		assert_int_equal(callus_path_memo_resolve(&ctxs[5], "/tmp/q.c", 8, &got, &n), 0);
		ctxs[0].memo = NULL;
		assert_int_equal(callus_path_memo_resolve(&ctxs[0], "src/q.c", 7, &got, &n), -1);
	}
	callus_pathmemo_release(&memo);
	callus_pathmemo_release(&own);
	callus_buf_release(&plain);
	callus_buf_release(&memoed);
}

static void path_within(void **state)
{
	(void)state;
	assert_true(callus_path_within("/w/shop", "/w/shop"));
	assert_true(callus_path_within("/w/shop", "/w/shop/src/a.js"));
	assert_true(callus_path_within("/w/shop/", "/w/shop/src"));
	assert_true(callus_path_within("/", "/w"));
	assert_false(callus_path_within("/w/shop", "/w/shopping"));
	assert_false(callus_path_within("/w/shop", "/w"));
	assert_false(callus_path_within("/w/shop/src", "/w/shop"));
}

static void source_extensions(void **state)
{
	(void)state;
	assert_true(callus_path_has_source_ext("a.ts", 4));
	assert_true(callus_path_has_source_ext("src/x.test.tsx", 14));
	assert_false(callus_path_has_source_ext("v1.2", 4));
	assert_false(callus_path_has_source_ext(".eslintrc", 9));
	assert_false(callus_path_has_source_ext("Makefile", 8));
	assert_false(callus_path_has_source_ext("e.g", 3));
}

/* Run the whole analysis of an output as a failed check of a tool no
 * parser knows, so that the generic extractor reads it: the per-tool
 * parsers have their own tests. */
static void analyse(callus_failure *f, const char *tool, const char *out)
{
	callus_capture c;
	callus_check chk = { "cmd", 1, 1, "some-checker", CALLUS_LESSON_LINT };

	(void)tool;

	callus_capture_init(&c);
	callus_capture_feed(&c, out, strlen(out));
	callus_capture_finish(&c);
	assert_int_equal(callus_failure_build(f, &chk, &c, &ws, NULL), 0);
	/* a parser recognised the content: read it again the generic way */
	if (strcmp(f->parser, "generic")) {
		callus_buf text = CALLUS_BUF_INIT;

		callus_diags_release(&f->diags);
		callus_strlist_release(&f->files);
		callus_capture_text(&c, &text);
		assert_int_equal(callus_extract_generic(&f->diags, &f->files, text.ptr, text.len, &ws), 0);
		callus_buf_release(&text);
	}
	callus_capture_release(&c);
}

static void eslint_stylish(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "eslint",
		"\n/work/proj/src/app.js\n"
		"  4:9  error  'currency' is assigned a value but never used  no-unused-vars\n"
		"\n/work/proj/src/util.js\n"
		"  2:25  error  'decimals' is not defined  no-undef\n"
		"  7:1   warning  Unexpected console statement  no-console\n\n"
		"\xe2\x9c\x96 3 problems (2 errors, 1 warning)\n");
	assert_int_equal(f.diags.count, 3);
	assert_string_equal(f.diags.items[0].file, "src/app.js");
	assert_int_equal(f.diags.items[0].line, 4);
	assert_int_equal(f.diags.items[0].column, 9);
	assert_string_equal(f.diags.items[0].code, "no-unused-vars");
	assert_string_equal(f.diags.items[0].message,
			    "'currency' is assigned a value but never used");
	assert_string_equal(f.diags.items[1].file, "src/util.js");
	assert_string_equal(f.diags.items[1].code, "no-undef");
	assert_string_equal(f.diags.items[2].code, "no-console");
	assert_int_equal(f.files.count, 2);
	/* the summary names files relative to the workspace */
	assert_non_null(strstr(f.summary, "src/app.js"));
	assert_null(strstr(f.summary, "/work/proj"));
	assert_true(strlen(f.summary) <= CALLUS_SUMMARY_MAX);
	assert_string_equal(callus_failure_primary_file(&f), "src/app.js");
	callus_failure_release(&f);
}

static void gcc_and_tsc(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "gcc",
		"main.c: In function 'main':\n"
		"main.c:5:9: error: 'y' undeclared (first use in this function)\n"
		"    5 |     x = y;\n"
		"      |         ^\n"
		"main.c:3:6: warning: unused variable 'z' [-Wunused-variable]\n"
		"/usr/include/stdio.h:12:1: note: declared here\n"
		"src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"
		"src/b.ts:10:3 - error TS2304: Cannot find name 'foo'.\n");
	assert_int_equal(f.diags.count, 4);
	assert_string_equal(f.diags.items[0].file, "main.c");
	assert_string_equal(f.diags.items[0].message, "'y' undeclared (first use in this function)");
	assert_null(f.diags.items[0].code);
	assert_string_equal(f.diags.items[1].code, "-Wunused-variable");
	assert_string_equal(f.diags.items[2].file, "src/a.ts");
	assert_int_equal(f.diags.items[2].line, 3);
	assert_int_equal(f.diags.items[2].column, 7);
	assert_string_equal(f.diags.items[2].code, "TS2322");
	assert_string_equal(f.diags.items[3].code, "TS2304");
	assert_false(callus_strlist_contains(&f.files, "/usr/include/stdio.h", 20));
	callus_failure_release(&f);
}

static void jest_failure(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "jest",
		"FAIL ./sum.test.js\n"
		"  sum\n"
		"    \xe2\x9c\x95 adds 1 + 2 to equal 3 (3 ms)\n\n"
		"  \xe2\x97\x8f sum \xe2\x80\xba adds 1 + 2 to equal 3\n\n"
		"    expect(received).toBe(expected) // Object.is equality\n\n"
		"    Expected: 4\n"
		"    Received: 3\n\n"
		"    > 3 |   expect(sum(1, 2)).toBe(4);\n"
		"        |                     ^\n\n"
		"      at Object.toBe (sum.test.js:3:21)\n"
		"      at Object.<anonymous> (node_modules/jest-circus/build/x.js:1:1)\n\n"
		"Tests:       1 failed, 1 total\n");
	assert_int_equal(f.diags.count, 1);
	assert_string_equal(f.diags.items[0].file, "sum.test.js");
	assert_int_equal(f.diags.items[0].line, 3);
	assert_non_null(strstr(f.diags.items[0].message, "adds 1 + 2 to equal 3"));
	assert_int_equal(f.files.count, 1);
	assert_non_null(strstr(f.summary, "Expected: 4"));
	assert_non_null(strstr(f.summary, "Received: 3"));
	assert_non_null(strstr(f.summary, "adds 1 + 2 to equal 3"));
	assert_null(strstr(f.summary, "> 3 |"));
	callus_failure_release(&f);
}

static void pytest_and_traceback(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "pytest",
		"Traceback (most recent call last):\n"
		"  File \"/work/proj/app/core.py\", line 12, in run\n"
		"  File \"/usr/lib/python3.11/json/__init__.py\", line 3, in loads\n"
		"tests/test_core.py:8: AssertionError\n"
		"FAILED tests/test_core.py::test_total - assert 3 == 4\n");
	assert_true(callus_strlist_contains(&f.files, "app/core.py", 11));
	assert_true(callus_strlist_contains(&f.files, "tests/test_core.py", 18));
	assert_int_equal(f.files.count, 2);
	assert_string_equal(f.diags.items[f.diags.count - 1].message, "test_total - assert 3 == 4");
	callus_failure_release(&f);
}

static void passing_run_has_nothing(void **state)
{
	callus_failure f;
	callus_capture c;
	callus_check chk = { "eslint .", 0, 1, "eslint", CALLUS_LESSON_LINT };
	callus_buf json = CALLUS_BUF_INIT;

	(void)state;
	callus_capture_init(&c);
	callus_capture_feed(&c, "src/a.js:1:1: error x\n", 22);
	callus_capture_finish(&c);
	assert_int_equal(callus_failure_build(&f, &chk, &c, &ws, NULL), 0);
	assert_false(f.failed);
	assert_int_equal(f.diags.count, 0);
	assert_int_equal(callus_failure_to_json(&json, &f), 0);
	assert_non_null(strstr(json.ptr, "\"failed\":false"));
	assert_non_null(strstr(json.ptr, "\"affected_files\":[]"));
	callus_buf_release(&json);
	callus_failure_release(&f);
	callus_capture_release(&c);
}

static void summary_is_bounded(void **state)
{
	callus_failure f;
	callus_buf in = CALLUS_BUF_INIT;

	(void)state;
	for (int i = 0; i < 300; i++)
		callus_buf_printf(&in, "src/f%d.c:%d:1: error: \xc3\xa9l\xc3\xa9ment %d\n", i, i, i);
	analyse(&f, "gcc", in.ptr);
	assert_true(strlen(f.summary) <= CALLUS_SUMMARY_MAX);
	assert_int_equal(f.files.count, 300);
	assert_int_equal(f.diags.count, 300);
	callus_failure_release(&f);
	callus_buf_release(&in);
}

/* A failure's files are redacted into a list made anew (its own are the
 * blocks of a pooled list, which no item of may be replaced): a folder
 * named with a token is kept redacted, the other files as they were, in
 * their order, the list still searched by its index. */
static void files_redacted_into_a_new_list(void **state)
{
	callus_failure f;
	callus_redactor *r = NULL;

	(void)state;
	analyse(&f, "gcc",
		"src/a.c:1:2: error x\n"
		"src/ghp_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a/b.c:3:4: error y\n"
		"src/c.c:5:6: error z\n");
	assert_int_equal(f.files.count, 3);
	assert_true(f.files.pooled);
	assert_int_equal(callus_redactor_new(&r, NULL), 0);
	assert_int_equal(callus_record_redact_failure(&f, r, NULL), 0);
	assert_int_equal(f.files.count, 3);
	assert_string_equal(f.files.items[0], "src/a.c");
	assert_null(strstr(f.files.items[1], "ghp_"));
	assert_non_null(strstr(f.files.items[1], "[REDACTED:"));
	assert_string_equal(f.files.items[2], "src/c.c");
	assert_true(callus_strlist_contains(&f.files, "src/c.c", 7));
	assert_true(callus_strlist_contains(&f.files, f.files.items[1], strlen(f.files.items[1])));
	callus_redactor_free(r);
	callus_failure_release(&f);
}

/* Past the thousand diagnostics kept, each is counted and its file is
 * still an affected file, once: a file a context line resolved before it
 * (gcc's "required from", which lists no file), a run of one file, a file
 * outside the workspace (not listed). */
static void files_past_the_cap(void **state)
{
	callus_failure f;
	callus_capture c;
	callus_check chk = { "gcc -c", 1, 1, "gcc", CALLUS_LESSON_ANALYSIS };
	callus_buf in = CALLUS_BUF_INIT;
	size_t late = 0;

	(void)state;
	for (int i = 0; i < CALLUS_DIAGS_MAX; i++)
		callus_buf_printf(&in, "src/a.c:%d:1: error: missing %d\n", i + 1, i);
	for (int i = 0; i < 20; i++) {
		callus_buf_printf(&in, "src/late/g%d.c:3:4:   required from here\n", i);
		callus_buf_printf(&in, "src/late/g%d.c:5:1: error: late %d\n", i, i);
		callus_buf_printf(&in, "src/late/g%d.c:6:1: error: again %d\n", i, i);
		callus_buf_printf(&in, "/usr/include/h%d.h:1:1: error: outside %d\n", i, i);
	}
	callus_capture_init(&c);
	callus_capture_feed(&c, in.ptr, in.len);
	callus_capture_finish(&c);
	assert_int_equal(callus_failure_build(&f, &chk, &c, &ws, NULL), 0);
	assert_int_equal(f.diags.count, CALLUS_DIAGS_MAX);
	assert_int_equal(f.diags.dropped, 60);
	assert_int_equal(f.files.count, 21);
	assert_string_equal(f.files.items[0], "src/a.c");
	for (size_t i = 1; i < f.files.count; i++) {
		char want[48];

		snprintf(want, sizeof(want), "src/late/g%zu.c", i - 1);
		late += !strcmp(f.files.items[i], want);
	}
	assert_int_equal(late, 20);
	callus_failure_release(&f);
	callus_capture_release(&c);
	callus_buf_release(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(relativize),
		cmocka_unit_test(relativize_plain_as_by_components),
		cmocka_unit_test(relativize_memo),
		cmocka_unit_test(path_within),
		cmocka_unit_test(source_extensions),
		cmocka_unit_test(eslint_stylish),
		cmocka_unit_test(gcc_and_tsc),
		cmocka_unit_test(jest_failure),
		cmocka_unit_test(pytest_and_traceback),
		cmocka_unit_test(passing_run_has_nothing),
		cmocka_unit_test(summary_is_bounded),
		cmocka_unit_test(files_past_the_cap),
		cmocka_unit_test(files_redacted_into_a_new_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
