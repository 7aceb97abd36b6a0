/*
 * test_utf8.c - cutting text to a size: never inside a character, and
 * for a text redacted after its cut, never inside a word (a token cut in
 * half is no longer what the redactor finds).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "callus/utf8.h"

static size_t cut(const char *s, size_t max)
{
	return callus_utf8_cut_word(s, strlen(s), max);
}

static void cut_word(void **state)
{
	const char *t = "failed ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8 now";

	(void)state;
	/* fits: whole */
	assert_int_equal(cut(t, 100), strlen(t));
	/* inside the token: before it, the blank too */
	assert_int_equal(cut(t, 20), 6);
	assert_int_equal(cut(t, 8), 6);
	/* at a word's end, or at a blank: as the bytes say */
	assert_int_equal(cut(t, 6), 6);
	assert_int_equal(cut(t, 7), 7);
	assert_int_equal(cut(t, 47), 47);
	/* one word longer than the cut: cut inside it (nothing else to keep) */
	assert_int_equal(cut("ghp_sMehGAkWvj7FAc9QeWJKY40uvS", 10), 10);
	/* never inside a character: "é" is two bytes */
	assert_int_equal(callus_utf8_cut_word("\xc3\xa9\xc3\xa9", 4, 3), 2);
	assert_int_equal(cut("ab \xc3\xa9\xc3\xa9", 6), 2);
	/* tabs and line breaks are blanks too */
	assert_int_equal(cut("ab\tcdef", 5), 2);
	assert_int_equal(cut("ab\ncdef", 5), 2);
	assert_int_equal(cut("", 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cut_word),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
