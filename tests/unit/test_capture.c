#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "deja/capture.h"

static void text_of(const char *in, deja_buf *out, size_t chunk)
{
	deja_capture c;
	size_t len = strlen(in);

	deja_capture_init(&c);
	for (size_t i = 0; i < len; i += chunk)
		deja_capture_feed(&c, in + i, len - i < chunk ? len - i : chunk);
	deja_capture_finish(&c);
	deja_capture_text(&c, out);
	deja_capture_release(&c);
}

static void strips_ansi_and_redraws(void **state)
{
	deja_buf b = DEJA_BUF_INIT;

	(void)state;
	deja_ansi_strip_line(&b, "\x1b[31merror\x1b[0m: x", 18);
	assert_string_equal(b.ptr, "error: x");
	deja_buf_clear(&b);
	/* curses' sgr0 as mypy prints it: ESC ( B is three bytes */
	deja_ansi_strip_line(&b, "\x1b(Bmain.py\x1b[m\x1b(B:3", 18);
	assert_string_equal(b.ptr, "main.py:3");
	deja_buf_clear(&b);
	deja_ansi_strip_line(&b, "10%\r50%\r100% done", 17);
	assert_string_equal(b.ptr, "100% done");
	deja_buf_clear(&b);
	{
		const char *osc = "\x1b]8;;file:///a\x07link\x1b]8;;\x07 ok\r";
		deja_ansi_strip_line(&b, osc, strlen(osc));
	}
	assert_string_equal(b.ptr, "link ok");
	deja_buf_release(&b);
}

static void keeps_interesting_lines_and_the_tail(void **state)
{
	deja_buf b = DEJA_BUF_INIT;
	deja_buf in = DEJA_BUF_INIT;

	(void)state;
	deja_buf_puts(&in, "Error: first\n");
	for (int i = 0; i < 100; i++)
		deja_buf_printf(&in, "boring %d\n", i);
	deja_buf_puts(&in, "src/a.js:3:4 something\n");
	for (int i = 100; i < 200; i++)
		deja_buf_printf(&in, "boring %d\n", i);
	/* any chunking gives the same result */
	for (size_t chunk = 1; chunk < 20; chunk += 6) {
		deja_buf_clear(&b);
		text_of(in.ptr, &b, chunk);
		assert_non_null(strstr(b.ptr, "Error: first\n"));
		assert_non_null(strstr(b.ptr, "src/a.js:3:4 something\n"));
		assert_null(strstr(b.ptr, "boring 5\n"));
		assert_non_null(strstr(b.ptr, "boring 199\n"));
		assert_non_null(strstr(b.ptr, "boring 190\n"));
		assert_null(strstr(b.ptr, "boring 189\n"));
		/* output order */
		assert_true(strstr(b.ptr, "Error: first") < strstr(b.ptr, "src/a.js"));
	}
	deja_buf_release(&b);
	deja_buf_release(&in);
}

static void bounded_memory_on_huge_output(void **state)
{
	deja_capture c;
	char line[64];

	(void)state;
	deja_capture_init(&c);
	for (int i = 0; i < 200000; i++) {
		int n = snprintf(line, sizeof(line), "error number %d in x.c:%d\n", i, i);
		deja_capture_feed(&c, line, (size_t)n);
	}
	deja_capture_finish(&c);
	assert_true(c.kept.len <= DEJA_CAPTURE_KEPT_MAX);
	assert_true(c.dropped_lines > 0);
	assert_int_equal(c.total_lines, 200000);
	deja_capture_release(&c);
}

static void long_lines_are_cut(void **state)
{
	deja_capture c;
	static char big[100000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "error ", 6);
	deja_capture_init(&c);
	deja_capture_feed(&c, big, sizeof(big) - 1);
	deja_capture_feed(&c, "\n", 1);
	deja_capture_finish(&c);
	assert_int_equal(c.nlines, 1);
	assert_true(c.lines[0].len <= DEJA_CAPTURE_LINE_MAX);
	deja_capture_release(&c);
}

static void invalid_utf8_is_repaired(void **state)
{
	deja_buf b = DEJA_BUF_INIT;

	(void)state;
	text_of("error \xff\xfe here\n", &b, 4);
	assert_string_equal(b.ptr, "error \xef\xbf\xbd\xef\xbf\xbd here\n");
	deja_buf_release(&b);
}

static void classification(void **state)
{
	(void)state;
	assert_true(deja_line_is_interesting("FAIL src/a.test.js", 18));
	assert_true(deja_line_is_interesting("main.c:12:5: warning: x", 23));
	assert_true(deja_line_is_interesting("/home/u/p/src/app.js", 20));
	assert_true(deja_line_is_interesting("  File \"a.py\", line 3, in f", 28));
	assert_false(deja_line_is_interesting("Time: 12:30", 11));
	assert_false(deja_line_is_interesting("Ran all test suites.", 20));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(strips_ansi_and_redraws),
		cmocka_unit_test(keeps_interesting_lines_and_the_tail),
		cmocka_unit_test(bounded_memory_on_huge_output),
		cmocka_unit_test(long_lines_are_cut),
		cmocka_unit_test(invalid_utf8_is_repaired),
		cmocka_unit_test(classification),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
