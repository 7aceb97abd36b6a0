/*
 * test_notes.c - hindsight notes as text (notemd.h) and the diff lines an
 * agent is shown (diffexcerpt.h): the file read back as written, a
 * person's sections kept, the compact form within its budget whatever the
 * diff's size, the hunk nearest the error first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "callus/diffexcerpt.h"
#include "callus/notemd.h"
#include "callus/notes.h"

static const char *const DIFF =
	"diff --git a/show.c b/show.c\n"
	"index 973ba42..b0a1a38 100644\n"
	"--- a/show.c\n"
	"+++ b/show.c\n"
	"@@ -2,5 +2,5 @@\n"
	" \n"
	" void show(int n)\n"
	" {\n"
	"-\tprintf(\"%s\\n\", n);\n"
	"+\tprintf(\"%d\\n\", n);\n"
	" }\n"
	"@@ -40,3 +40,4 @@ void other(void)\n"
	" {\n"
	"+\tint unused_a;\n"
	"+\tint unused_b;\n"
	" }\n";

static void fill(callus_note *n)
{
	memset(n, 0, sizeof(*n));
	snprintf(n->id, sizeof(n->id), "628dcfdca5ae");
	n->layer = CALLUS_LAYER_SESSION;
	n->signature_id = strdup("628dcfdca5ae664695b37acfa4fa72426ce58ffc1f2c20484fad7da4eda8fdb9");
	n->tool = strdup("gcc");
	n->error_type = strdup("-Wformat=");
	n->framework = strdup("");
	n->title = strdup("gcc: format '%s' expects argument of type 'char *'");
	n->example = strdup("format '%s' expects argument of type 'char *', but argument 2 has type 'int'");
	n->rule = strdup("format specifiers must match the argument type");
	n->steps = strdup("Edited show() in show.c (+1 -1)\nEdited other() in show.c (+2)");
	n->code = strdup(DIFF);
	n->extra = strdup("");
	n->session = strdup("");
	n->created_at = strdup("2026-11-25T09:00:00.000Z");
	n->updated_at = strdup("2026-11-25T09:00:00.000Z");
	callus_strlist_add(&n->files, "show.c", 6);
	callus_strlist_add(&n->signatures, n->signature_id, strlen(n->signature_id));
	n->applications = 4;
	n->successes = 3;
	n->success_rate = 0.75;
}

static void file_reads_back_as_written(void **state)
{
	callus_buf text = CALLUS_BUF_INIT, again = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_note n, back;

	(void)state;
	fill(&n);
	assert_int_equal(callus_note_md_render(&text, &n), 0);
	assert_non_null(strstr(text.ptr, "\n## Error Pattern\n"));
	assert_non_null(strstr(text.ptr, "\n## Resolution\n\n1. Edited show() in show.c (+1 -1)\n"));
	assert_non_null(strstr(text.ptr, "\n## Code Examples\n\n```diff\n"));
	assert_non_null(strstr(text.ptr, "\n## Tags\n"));
	assert_non_null(strstr(text.ptr, "\nRule: format specifiers"));
	assert_int_equal(callus_note_md_parse(&back, text.ptr, text.len, &err), 0);
	assert_string_equal(back.id, n.id);
	assert_int_equal(back.layer, CALLUS_LAYER_SESSION);
	assert_string_equal(back.title, n.title);
	assert_string_equal(back.rule, n.rule);
	assert_string_equal(back.steps, n.steps);
	assert_string_equal(back.code, n.code);
	assert_string_equal(back.example, n.example);
	assert_string_equal(back.signature_id, n.signature_id);
	assert_int_equal(back.applications, 4);
	assert_int_equal(back.successes, 3);
	/* read back and written again: the same bytes (no churn in git) */
	assert_int_equal(callus_note_md_render(&again, &back), 0);
	assert_string_equal(again.ptr, text.ptr);
	callus_note_release(&n);
	callus_note_release(&back);
	callus_buf_release(&text);
	callus_buf_release(&again);
}

/* HTML a tool's message carried is text in the file (a renderer shows it,
 * runs nothing), and reads back as it was: "\\<" stays "\\<". */
static void html_is_text_and_reads_back(void **state)
{
	callus_buf text = CALLUS_BUF_INIT, again = CALLUS_BUF_INIT;
	callus_note n, back;

	(void)state;
	fill(&n);
	free(n.title);
	free(n.rule);
	free(n.steps);
	n.title = strdup("gcc: <img src=\"https://x.example/p.png\"> <details open> Vec<T> a < b");
	n.rule = strdup("grep \\<word\\> and <!-- this -->");
	n.steps = strdup("Edited <script>() in a.c");
	callus_strlist_add(&n.files, "<b>.c", 5);
	assert_int_equal(callus_note_md_render(&text, &n), 0);
	assert_non_null(strstr(text.ptr, "\n# gcc: \\<img src="));
	assert_non_null(strstr(text.ptr, "\\<details open> Vec\\<T> a < b\n"));
	assert_non_null(strstr(text.ptr, "\nRule: grep \\\\<word\\> and \\<!-- this -->\n"));
	assert_non_null(strstr(text.ptr, "\n1. Edited \\<script>() in a.c\n"));
	assert_non_null(strstr(text.ptr, ", \\<b>.c"));
	assert_null(strstr(text.ptr, " <img"));
	assert_int_equal(callus_note_md_parse(&back, text.ptr, text.len, NULL), 0);
	assert_string_equal(back.title, n.title);
	assert_string_equal(back.rule, n.rule);
	assert_string_equal(back.steps, n.steps);
	assert_int_equal(callus_note_md_render(&again, &back), 0);
	assert_string_equal(again.ptr, text.ptr);
	callus_note_release(&n);
	callus_note_release(&back);
	callus_buf_release(&text);
	callus_buf_release(&again);
}

static void persons_sections_are_kept(void **state)
{
	callus_buf text = CALLUS_BUF_INIT, again = CALLUS_BUF_INIT;
	callus_note n, back;

	(void)state;
	fill(&n);
	assert_int_equal(callus_note_md_render(&text, &n), 0);
	callus_buf_puts(&text, "\n## Why\n\nOur logger wraps printf; see docs/logging.md.\n");
	assert_int_equal(callus_note_md_parse(&back, text.ptr, text.len, NULL), 0);
	assert_non_null(strstr(back.extra, "## Why"));
	assert_non_null(strstr(back.extra, "docs/logging.md"));
	assert_int_equal(callus_note_md_render(&again, &back), 0);
	assert_non_null(strstr(again.ptr, "## Why\n\nOur logger wraps printf"));
	callus_note_release(&n);
	callus_note_release(&back);
	callus_buf_release(&text);
	callus_buf_release(&again);
}

static void not_a_note_is_refused(void **state)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_note back;
	const char *cases[] = {
		"# just markdown\n",
		"---\nid: 628dcfdca5ae\n",                 /* unterminated front matter */
		"---\nid: nothex\n---\n# t\n",
		"---\nid: 628dcfdca5ae\n---\n\nno title\n",
		/* git left a merge unresolved */
		"---\nid: 628dcfdca5ae\n---\n\n# t\n\n<<<<<<< HEAD\nRule: a\n=======\nRule: b\n"
		">>>>>>> 14526da\n",
	};

	(void)state;
	{
		const char *indented = "    <<<<<<< HEAD\n    >>>>>>> x\n";
		const char *reversed = ">>>>>>> x\n<<<<<<< HEAD\n";
		const char *crlf = "<<<<<<< HEAD\r\n=======\r\n>>>>>>> x\r\n";

		assert_false(callus_note_md_conflicted(indented, strlen(indented)));
		assert_false(callus_note_md_conflicted(reversed, strlen(reversed)));
		assert_true(callus_note_md_conflicted(crlf, strlen(crlf)));
	}
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(callus_note_md_parse(&back, cases[i], strlen(cases[i]), &err),
				 CALLUS_EINVAL);
		assert_non_null(err.msg);
		callus_error_release(&err);
	}
}

static void nearest_hunk_first(void **state)
{
	callus_buf out = CALLUS_BUF_INIT;
	callus_excerpt_opts o = { .file = "show.c", .line = 41, .headers = 1, .max_lines = 10,
				  .max_bytes = 4096 };
	const char *a, *b;

	(void)state;
	assert_int_equal(callus_diff_excerpt(&out, DIFF, &o), 4);
	/* line 41 is in the second hunk: its lines lead */
	a = strstr(out.ptr, "+\tint unused_a;");
	b = strstr(out.ptr, "-\tprintf");
	assert_non_null(a);
	assert_non_null(b);
	assert_true(a < b);
	assert_true(!strncmp(out.ptr, "in show.c:\n", 11));
	/* another file's error: the smallest hunk first (the printf pair) */
	callus_buf_clear(&out);
	o.file = "total.c";
	o.line = 0;
	assert_int_equal(callus_diff_excerpt(&out, DIFF, &o), 4);
	assert_true(strstr(out.ptr, "-\tprintf") < strstr(out.ptr, "+\tint unused_a;"));
	/* only what fits: two lines, then no half hunk after the first */
	callus_buf_clear(&out);
	o.max_lines = 3;
	assert_int_equal(callus_diff_excerpt(&out, DIFF, &o), 2);
	assert_null(strstr(out.ptr, "unused"));
	callus_buf_release(&out);
}

static void compact_keeps_its_budget(void **state)
{
	callus_buf big = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	size_t budgets[] = { 0, 40, 120, 300, 1500 };
	callus_note n;

	(void)state;
	fill(&n);
	/* a 2 MB diff of long lines */
	callus_buf_puts(&big, "diff --git a/big.c b/big.c\n--- a/big.c\n+++ b/big.c\n@@ -1,40000 +1,40000 @@\n");
	for (int i = 0; i < 40000; i++) {
		callus_buf_printf(&big, "-old line %d ", i);
		for (int k = 0; k < 20; k++)
			callus_buf_puts(&big, "xx");
		callus_buf_putc(&big, '\n');
	}
	for (int i = 0; i < 40000; i++)
		callus_buf_printf(&big, "+new line %d\n", i);
	assert_true(big.len > (1u << 20));
	free(n.code);
	n.code = callus_buf_detach(&big);
	for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		callus_buf_clear(&out);
		callus_buf_puts(&out, "prefix ");
		assert_int_equal(callus_note_compact(&out, &n, "big.c", 7, "  ", budgets[i]), 0);
		assert_true(out.len - 7 <= budgets[i]);
		if (budgets[i] >= 300) {
			assert_non_null(strstr(out.ptr, "note 628dcfdca5ae (worked 3 of 4 times"));
			assert_non_null(strstr(out.ptr, "  Rule: format specifiers"));
			assert_non_null(strstr(out.ptr, "  -old line"));
		}
	}
	callus_note_release(&n);
	callus_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(file_reads_back_as_written),
		cmocka_unit_test(html_is_text_and_reads_back),
		cmocka_unit_test(persons_sections_are_kept),
		cmocka_unit_test(not_a_note_is_refused),
		cmocka_unit_test(nearest_hunk_first),
		cmocka_unit_test(compact_keeps_its_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
