#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "callus/shellquote.h"

static void quotes_only_what_needs_it(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	callus_shell_quote(&b, "./node_modules/.bin/eslint");
	assert_string_equal(b.ptr, "./node_modules/.bin/eslint");
	callus_buf_clear(&b);
	callus_shell_quote(&b, "");
	assert_string_equal(b.ptr, "''");
	callus_buf_clear(&b);
	callus_shell_quote(&b, "it's a test");
	assert_string_equal(b.ptr, "'it'\\''s a test'");
	callus_buf_release(&b);
}

/* What sh reads back from the quoted word is the word. */
static void round_trips_through_sh(void **state)
{
	static const char *const words[] = {
		"plain", "two words", "it's", "$HOME", "`id`", "a\"b", "back\\slash", "*?[x]",
		"semi;colon && pipe | x", "new\nline", "\xc3\xa9t\xc3\xa9", "''", "-n",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		callus_buf cmd = CALLUS_BUF_INIT;
		char got[256] = "";
		size_t n;
		FILE *p;

		callus_buf_puts(&cmd, "printf '%s' ");
		callus_shell_quote(&cmd, words[i]);
		p = popen(cmd.ptr, "r");
		assert_non_null(p);
		n = fread(got, 1, sizeof(got) - 1, p);
		got[n] = '\0';
		assert_int_equal(pclose(p), 0);
		assert_string_equal(got, words[i]);
		callus_buf_release(&cmd);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(quotes_only_what_needs_it),
		cmocka_unit_test(round_trips_through_sh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
