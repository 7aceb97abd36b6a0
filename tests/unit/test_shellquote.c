#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "deja/shellquote.h"

static void quotes_only_what_needs_it(void **state)
{
	deja_buf b = DEJA_BUF_INIT;

	(void)state;
	deja_shell_quote(&b, "./node_modules/.bin/eslint");
	assert_string_equal(b.ptr, "./node_modules/.bin/eslint");
	deja_buf_clear(&b);
	deja_shell_quote(&b, "");
	assert_string_equal(b.ptr, "''");
	deja_buf_clear(&b);
	deja_shell_quote(&b, "it's a test");
	assert_string_equal(b.ptr, "'it'\\''s a test'");
	deja_buf_release(&b);
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
		deja_buf cmd = DEJA_BUF_INIT;
		char got[256] = "";
		size_t n;
		FILE *p;

		deja_buf_puts(&cmd, "printf '%s' ");
		deja_shell_quote(&cmd, words[i]);
		p = popen(cmd.ptr, "r");
		assert_non_null(p);
		n = fread(got, 1, sizeof(got) - 1, p);
		got[n] = '\0';
		assert_int_equal(pclose(p), 0);
		assert_string_equal(got, words[i]);
		deja_buf_release(&cmd);
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
