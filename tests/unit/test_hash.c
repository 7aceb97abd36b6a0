#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "callus/hash.h"

static void digest(const char *msg, size_t len, size_t chunk, char hex[65])
{
	callus_sha256 *h = NULL;

	assert_int_equal(callus_sha256_new(&h), 0);
	for (size_t i = 0; i < len; i += chunk)
		callus_sha256_update(h, msg + i, len - i < chunk ? len - i : chunk);
	assert_int_equal(callus_sha256_finish(h, hex), 0);
}

/* The examples of FIPS 180-4 (NIST CSRC), and edges of the padding. */
static void known_vectors(void **state)
{
	char hex[65];
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";

	(void)state;
	digest("", 0, 1, hex);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	digest("abc", 3, 1, hex);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	for (size_t chunk = 1; chunk < 70; chunk += 13) {
		digest(two_blocks, strlen(two_blocks), chunk, hex);
		assert_string_equal(hex,
				    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	}
}

static void million_a(void **state)
{
	char hex[65], *a = malloc(1000000);

	(void)state;
	memset(a, 'a', 1000000);
	digest(a, 1000000, 4096, hex);
	assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(a);
}

static void parts_are_separated(void **state)
{
	callus_sha256 *h = NULL;
	char x[65], y[65];

	(void)state;
	callus_sha256_new(&h);
	callus_sha256_part(h, "ab", 2);
	callus_sha256_part(h, "c", 1);
	callus_sha256_finish(h, x);
	callus_sha256_new(&h);
	callus_sha256_part(h, "a", 1);
	callus_sha256_part(h, "bc", 2);
	callus_sha256_finish(h, y);
	assert_string_not_equal(x, y);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(known_vectors),
		cmocka_unit_test(million_a),
		cmocka_unit_test(parts_are_separated),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
