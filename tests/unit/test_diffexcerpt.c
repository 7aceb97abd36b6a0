/*
 * test_diffexcerpt.c - the changed lines of a fix that an agent is shown.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "callus/buf.h"
#include "callus/diffexcerpt.h"

/* git's format, two files; a removed line of app.js that starts with "--"
 * and a context line that starts with "+++" must not be taken for headers */
static const char two_files[] =
	"diff --git a/src/app.js b/src/app.js\n"
	"index 1111111..2222222 100644\n"
	"--- a/src/app.js\n"
	"+++ b/src/app.js\n"
	"@@ -1,6 +1,4 @@ function renderCart(items) {\n"
	" function renderCart(items) {\n"
	"-  const currency = 'EUR';\n"
	"---x;\n"
	"   return items.map(formatPrice);\n"
	" +++ not a header\n"
	" }\n"
	"\\ No newline at end of file\n"
	"diff --git a/src/util.js b/src/util.js\n"
	"index 3333333..4444444 100644\n"
	"--- a/src/util.js\n"
	"+++ b/src/util.js\n"
	"@@ -1,3 +1,3 @@\n"
	" function formatPrice(p) {\n"
	"-  return p.toFixed(decimals);\n"
	"+  return p.toFixed(2);\n"
	" }\n";

/* One file's lines in diff order, as the hook shows them before an edit. */
static int excerpt(callus_buf *b, const char *diff, const char *file, size_t max_lines,
		   size_t width, const char *indent)
{
	const callus_excerpt_opts o = { .file = file, .only_file = 1, .max_lines = max_lines,
					.width = width, .indent = indent };

	return callus_diff_excerpt(b, diff, &o);
}

static void lines_of_the_named_file(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(excerpt(&b, two_files, "src/util.js", 10, 0, "  "), 2);
	assert_string_equal(b.ptr, "  -  return p.toFixed(decimals);\n  +  return p.toFixed(2);\n");
	callus_buf_clear(&b);
	assert_int_equal(excerpt(&b, two_files, "src/app.js", 10, 0, ""), 2);
	assert_string_equal(b.ptr, "-  const currency = 'EUR';\n---x;\n");
	callus_buf_release(&b);
}

static void nothing_from_the_other_files(void **state)
{
	const callus_excerpt_opts all = { .file = "src/other.js", .headers = 1, .max_lines = 10 };
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	/* the file the fix did not touch: nothing (the hook says what the fix
	 * did instead) */
	assert_int_equal(excerpt(&b, two_files, "src/other.js", 10, 0, ""), 0);
	assert_int_equal(excerpt(&b, two_files, NULL, 1, 0, ""), 0);
	assert_int_equal(b.len, 0);
	/* without only_file: every file, the smallest hunk first, each named */
	assert_int_equal(callus_diff_excerpt(&b, two_files, &all), 4);
	assert_string_equal(b.ptr, "in src/app.js:\n-  const currency = 'EUR';\n---x;\n"
				   "in src/util.js:\n-  return p.toFixed(decimals);\n"
				   "+  return p.toFixed(2);\n");
	callus_buf_release(&b);
}

static void bounded_and_cut_between_characters(void **state)
{
	static const char wide[] = "diff --git a/a.c b/a.c\n"
				   "--- a/a.c\n"
				   "+++ b/a.c\n"
				   "@@ -1 +1 @@\n"
				   "-\xc3\xa9\xc3\xa9\xc3\xa9\n"
				   "+abc\n"
				   "diff --git a/b.c b/b.c\n"
				   "--- a/b.c\n"
				   "+++ b/b.c\n"
				   "@@ -0,0 +1,2 @@\n"
				   "+one\n"
				   "+two\n";
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	/* 4 bytes would end inside the second é: cut after it */
	assert_int_equal(excerpt(&b, wide, "a.c", 5, 4, ""), 2);
	assert_string_equal(b.ptr, "-\xc3\xa9...\n+abc\n");
	callus_buf_clear(&b);
	assert_int_equal(excerpt(&b, wide, "b.c", 1, 0, ""), 1);
	assert_string_equal(b.ptr, "+one\n");
	callus_buf_release(&b);
}

static void nothing_from_what_is_no_hunk(void **state)
{
	static const char binary[] = "diff --git a/logo.png b/logo.png\n"
				     "Binary files a/logo.png and b/logo.png differ\n"
				     "[callus: 3 more files changed: a, b, c]\n";
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(excerpt(&b, binary, "logo.png", 5, 0, ""), 0);
	assert_int_equal(excerpt(&b, "", "a", 5, 0, ""), 0);
	assert_int_equal(excerpt(&b, NULL, "a", 5, 0, ""), 0);
	assert_int_equal(excerpt(&b, two_files, "src/app.js", 0, 0, ""), 0);
	assert_int_equal(b.len, 0);
	callus_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lines_of_the_named_file),
		cmocka_unit_test(nothing_from_the_other_files),
		cmocka_unit_test(bounded_and_cut_between_characters),
		cmocka_unit_test(nothing_from_what_is_no_hunk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
