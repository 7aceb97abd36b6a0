#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/strlist.h"
#include "callus/utf8.h"

static void empty_buffer_is_a_string(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_non_null(b.ptr);
	assert_string_equal(b.ptr, "");
	callus_buf_release(&b);
	assert_string_equal(b.ptr, "");
}

static void grows_and_formats(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(callus_buf_printf(&b, "%d,", i), 0);
	assert_int_equal(strncmp(b.ptr, "0,1,2,", 6), 0);
	assert_int_equal(b.ptr[b.len], '\0');
	assert_int_equal(b.len, strlen(b.ptr));
	callus_buf_truncate(&b, 2);
	assert_string_equal(b.ptr, "0,");
	callus_buf_puts(&b, "  \n");
	callus_buf_rtrim(&b);
	assert_string_equal(b.ptr, "0,");
	callus_buf_release(&b);
}

static void ceiling_refuses_growth(void **state)
{
	callus_buf b;

	(void)state;
	callus_buf_init(&b, 8);
	assert_int_equal(callus_buf_puts(&b, "12345678"), 0);
	assert_int_equal(callus_buf_putc(&b, '9'), CALLUS_ETOOBIG);
	assert_string_equal(b.ptr, "12345678");
	callus_buf_release(&b);
}

static void detach_hands_over(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;
	char *s;

	(void)state;
	s = callus_buf_detach(&b);
	assert_string_equal(s, "");
	free(s);
	callus_buf_puts(&b, "abc");
	s = callus_buf_detach(&b);
	assert_string_equal(s, "abc");
	assert_int_equal(b.len, 0);
	free(s);
}

static void size_helpers_detect_overflow(void **state)
{
	size_t r;

	(void)state;
	assert_int_equal(callus_size_add(&r, (size_t)-1, 1), CALLUS_ENOMEM);
	assert_int_equal(callus_size_mul(&r, (size_t)-1 / 2 + 1, 2), CALLUS_ENOMEM);
	assert_int_equal(callus_size_mul(&r, 3, 4), 0);
	assert_int_equal(r, 12);
}

static void strlist_unique(void **state)
{
	callus_strlist l = CALLUS_STRLIST_INIT;
	int added;

	(void)state;
	assert_int_equal(callus_strlist_add_unique(&l, "a.js", 4, &added), 0);
	assert_true(added);
	assert_int_equal(callus_strlist_add_unique(&l, "a.js", 4, &added), 0);
	assert_false(added);
	assert_int_equal(callus_strlist_add_unique(&l, "b.js", 4, &added), 0);
	assert_int_equal(l.count, 2);
	assert_string_equal(l.items[1], "b.js");
	callus_strlist_release(&l);
}

static void utf8_repair(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_true(callus_utf8_valid("h\xc3\xa9", 3));
	assert_false(callus_utf8_valid("\xc3", 1));
	assert_false(callus_utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	assert_false(callus_utf8_valid("\xc0\xaf", 2));     /* overlong */
	/* every position of an eight-byte word: the ASCII fast path must not
	 * skip a bad byte, nor split a good sequence */
	for (size_t at = 0; at < 24; at++) {
		char line[40];

		memset(line, 'x', sizeof(line));
		line[at] = (char)0xff;
		assert_false(callus_utf8_valid(line, sizeof(line)));
		memcpy(line + at, "\xe2\x97\x8f", 3);
		assert_true(callus_utf8_valid(line, sizeof(line)));
		assert_false(callus_utf8_valid(line, at + 2)); /* cut inside it */
	}
	callus_utf8_sanitize(&b, "a\xff" "b", 3);
	assert_string_equal(b.ptr, "a\xef\xbf\xbd" "b");
	assert_true(callus_utf8_valid(b.ptr, b.len));
	callus_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(empty_buffer_is_a_string),
		cmocka_unit_test(grows_and_formats),
		cmocka_unit_test(ceiling_refuses_growth),
		cmocka_unit_test(detach_hands_over),
		cmocka_unit_test(size_helpers_detect_overflow),
		cmocka_unit_test(strlist_unique),
		cmocka_unit_test(utf8_repair),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
