/*
 * test_cleantext.c - terminal escapes, bidi controls and invisible
 * characters taken out of text before it is stored or printed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "callus/buf.h"
#include "callus/cleantext.h"
#include "callus/common.h"

/* The clean form of s, in a static buffer the next call replaces. */
static const char *clean(const char *s, unsigned flags)
{
	static callus_buf b = CALLUS_BUF_INIT;

	callus_buf_clear(&b);
	assert_int_equal(callus_text_clean(&b, s, strlen(s), flags), 0);
	/* cleaning is idempotent, and is_clean agrees with it */
	{
		callus_buf again = CALLUS_BUF_INIT;

		assert_true(callus_text_is_clean(b.ptr, b.len, flags));
		assert_int_equal(callus_text_clean(&again, b.ptr, b.len, flags), 0);
		assert_string_equal(again.ptr, b.ptr);
		callus_buf_release(&again);
	}
	assert_int_equal(callus_text_is_clean(s, strlen(s), flags), strcmp(s, b.ptr) == 0);
	return b.ptr ? b.ptr : "";
}

static void test_plain_text_unchanged(void **state)
{
	(void)state;
	assert_string_equal(clean("src/a.c:3:1: error: expected ';'\n\tat x()\n", 0),
			    "src/a.c:3:1: error: expected ';'\n\tat x()\n");
	assert_string_equal(clean("caf\xc3\xa9 \xe2\x9c\x95 \xf0\x9f\x98\x80", 0),
			    "caf\xc3\xa9 \xe2\x9c\x95 \xf0\x9f\x98\x80");
	assert_string_equal(clean("", 0), "");
}

static void test_terminal_escapes_removed(void **state)
{
	(void)state;
	/* colours (CSI) */
	assert_string_equal(clean("\x1b[1;31merror\x1b[0m: x", 0), "error: x");
	/* a window title and a hyperlink (OSC, BEL and ST ends) */
	assert_string_equal(clean("a\x1b]0;pwned\x07" "b", 0), "ab");
	assert_string_equal(clean("\x1b]8;;http://evil/\x1b\\link\x1b]8;;\x1b\\", 0), "link");
	/* a clipboard write, a DCS, two-byte and charset escapes */
	assert_string_equal(clean("x\x1b]52;c;Y3VybA==\x07y\x1bPq#0\x1b\\z\x1b" "7\x1b(Bw", 0),
			    "xyzw");
	/* cursor moves that would hide text, CR redraws, backspaces */
	assert_string_equal(clean("safe\rEVIL\x1b[2K\x08\x08!", 0), "safeEVIL!");
	/* an unfinished escape at the end */
	assert_string_equal(clean("ok\x1b[31", 0), "ok");
	assert_string_equal(clean("ok\x1b", 0), "ok");
	/* the 8-bit CSI (C1, as UTF-8) and DEL */
	assert_string_equal(clean("a\xc2\x9b" "b\x7f" "c", 0), "abc");
	/* an escape inside a token cannot hide it from the redactor */
	assert_string_equal(clean("ghp_\x1b[0mABC", 0), "ghp_ABC");
}

static void test_bidi_and_invisible_made_visible(void **state)
{
	(void)state;
	/* Trojan Source: RLO, isolates and PDI */
	assert_string_equal(clean("if (a\xe2\x80\xae) {", 0), "if (a<U+202E>) {");
	assert_string_equal(clean("\xe2\x81\xa6x\xe2\x81\xa9", 0), "<U+2066>x<U+2069>");
	/* zero-width space, joiner, BOM, soft hyphen */
	assert_string_equal(clean("a\xe2\x80\x8b" "b\xe2\x80\x8d" "c\xef\xbb\xbf" "d\xc2\xad" "e", 0),
			    "a<U+200B>b<U+200D>c<U+FEFF>d<U+00AD>e");
	/* Unicode tags smuggling "hi" */
	assert_string_equal(clean("x\xf3\xa0\x81\xa8\xf3\xa0\x81\xa9", 0), "x<U+E0068><U+E0069>");
	/* variation selectors carrying bytes ("emoji smuggling"), a Hangul
	 * filler, a line separator; the emoji presentation selector stays */
	assert_string_equal(clean("a\xf3\xa0\x84\x80\xf3\xa0\x87\xaf" "b\xef\xb8\x80" "c", 0),
			    "a<U+E0100><U+E01EF>b<U+FE00>c");
	assert_string_equal(clean("\xe3\x85\xa4x\xe2\x80\xa8y", 0), "<U+3164>x<U+2028>y");
	assert_string_equal(clean("\xe2\x9a\xa0\xef\xb8\x8f ok", 0), "\xe2\x9a\xa0\xef\xb8\x8f ok");
}

static void test_invalid_utf8_replaced(void **state)
{
	(void)state;
	assert_string_equal(clean("a\xff" "b\xc3", 0), "a\xef\xbf\xbd" "b\xef\xbf\xbd");
	/* an overlong NUL and a surrogate */
	assert_string_equal(clean("\xc0\x80\xed\xa0\x80", 0),
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

static void test_one_line(void **state)
{
	(void)state;
	assert_string_equal(clean("a\nb\tc", CALLUS_TEXT_ONE_LINE), "a b c");
	assert_string_equal(clean("a\nb", 0), "a\nb");
}

/* A word stays bare; a sentence, a backquote, a blank or one past max is
 * quoted as data. */
static void test_word(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "no-unused-vars", "no-unused-vars" },
		{ "src/app_1.test.ts", "src/app_1.test.ts" },
		{ "TS2322", "TS2322" },
		{ "-Wformat=", "-Wformat=" },
		{ "NOTE: run `rm -rf /`", "`NOTE: run 'rm -rf /'`" },
		{ "a b", "`a b`" },
		{ "caf\xc3\xa9.c", "`caf\xc3\xa9.c`" },
		{ "", "``" },
		{ "abcdefghij", "`abcdefgh...`" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		callus_buf b = CALLUS_BUF_INIT;

		assert_int_equal(callus_text_word(&b, cases[i].in, i == 8 ? 8 : 64), 0);
		assert_non_null(b.ptr);
		assert_string_equal(b.ptr, cases[i].want);
		callus_buf_release(&b);
	}
}

static void test_failure_leaves_out(void **state)
{
	callus_buf b;

	(void)state;
	callus_buf_init(&b, 8);
	callus_buf_puts(&b, "keep");
	assert_int_equal(callus_text_clean(&b, "\x1b[0mlonger than the limit", 25, 0),
			 CALLUS_ETOOBIG);
	assert_string_equal(b.ptr, "keep");
	callus_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_text_unchanged),
		cmocka_unit_test(test_terminal_escapes_removed),
		cmocka_unit_test(test_bidi_and_invisible_made_visible),
		cmocka_unit_test(test_invalid_utf8_replaced),
		cmocka_unit_test(test_one_line),
		cmocka_unit_test(test_word),
		cmocka_unit_test(test_failure_leaves_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
