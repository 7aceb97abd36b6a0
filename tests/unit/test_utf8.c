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

/* Valid UTF-8 said the long way (RFC 3629): a lead byte, as many
 * continuation bytes as it says, no overlong form, no surrogate, nothing
 * past U+10FFFF. */
static int valid_as_said(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len;) {
		unsigned c = s[i], cp;
		size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
				: c >= 0xf0 && c <= 0xf4 ? 4 : 0;

		if (!n || i + n > len)
			return 0;
		cp = n == 1 ? c : n == 2 ? c & 0x1f : n == 3 ? c & 0x0f : c & 0x07;
		for (size_t k = 1; k < n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return 0;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		i += n;
	}
	return 1;
}

/* callus_utf8_valid() on 100,000 strings of 0 to 24 bytes (ASCII runs
 * that take a word of eight and leave a tail, characters of two to four
 * bytes, stray continuation and lead bytes, surrogates, overlongs)
 * answers as said. */
static void valid_as_defined(void **state)
{
	static const char *const pieces[] = {
		"a", "abc", "abcdefgh", "\xc3\xa9", "\xe2\x9c\x95", "\xf0\x9f\x98\x80", "\x80",
		"\xbf", "\xc3", "\xe2\x9c", "\xed\xa0\x80", "\xc0\xaf", "\xe0\x80\xaf",
		"\xf4\x90\x80\x80", "\xf8", "\xff", "\x7f", "\t",
	};
	uint64_t x = 0x853c49e6748fea9bu;
	unsigned char s[64];
	int seen[2] = { 0, 0 };

	(void)state;
	for (int round = 0; round < 100000; round++) {
		size_t len = 0;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		for (unsigned k = 0, np = (unsigned)(x % 6); k < np; k++) {
			const char *p = pieces[(x >> (8 + 5 * k)) % (sizeof(pieces) / sizeof(*pieces))];
			size_t n = strlen(p);

			if (len + n > 24)
				break;
			memcpy(s + len, p, n);
			len += n;
		}
		if (callus_utf8_valid((const char *)s, len) != valid_as_said(s, len))
			fail_msg("round %d, %zu bytes: %d, as said %d", round, len,
				 callus_utf8_valid((const char *)s, len), valid_as_said(s, len));
		seen[valid_as_said(s, len)]++;
	}
	assert_true(seen[0] > 10000 && seen[1] > 10000);
}

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
		cmocka_unit_test(valid_as_defined),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
