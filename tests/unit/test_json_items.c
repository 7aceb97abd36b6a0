/*
 * test_json_items.c - cli_json_items_dump prints what jansson prints for
 * the whole array, byte for byte.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cli/json_items.h"

/* make for the tests: item is a JSON text; NULL for "" (out of memory) */
static json_t *parse(const void *item, const void *arg)
{
	const char *const *text = item;

	(void)arg;
	return **text ? json_loads(*text, JSON_DECODE_ANY, NULL) : NULL;
}

/* What f holds from its start, NUL-terminated (the caller frees). */
static char *contents(FILE *f)
{
	long n;
	char *s;

	assert_int_equal(fflush(f), 0);
	n = ftell(f);
	assert_true(n >= 0);
	assert_non_null(s = calloc(1, (size_t)n + 1));
	rewind(f);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	return s;
}

/* texts[0..n) printed an element at a time, against the whole array. */
static void same_as_the_array(const char *const *texts, size_t n)
{
	FILE *a = tmpfile(), *b = tmpfile();
	json_t *all = json_array();
	char *got, *want;

	assert_non_null(a);
	assert_non_null(b);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(json_array_append_new(all, parse(&texts[i], NULL)), 0);
	assert_int_equal(cli_json_items_dump(a, texts, sizeof(*texts), n, parse, NULL), 0);
	assert_int_equal(json_dumpf(all, b, CLI_JSON_FLAGS), 0);
	fputc('\n', b);
	got = contents(a);
	want = contents(b);
	assert_string_equal(got, want);
	free(got);
	free(want);
	json_decref(all);
	fclose(a);
	fclose(b);
}

static void an_empty_list(void **state)
{
	(void)state;
	same_as_the_array(NULL, 0);
}

static void objects_as_the_listings_print_them(void **state)
{
	static const char *const texts[] = {
		"{\"id\": 1, \"message\": \"\\u2018x\\u2019 undeclared\\nnext line\", \"files\": [],"
		" \"context\": {}, \"rate\": 0.75, \"cause\": null, \"ok\": true}",
		"{\"id\": 2, \"files\": [\"a.c\", \"b/\\\"c\\\".c\"], \"nested\": {\"a\": [1, {\"b\": []}]}}",
		"{}",
	};

	(void)state;
	same_as_the_array(texts, 1);
	same_as_the_array(texts, 3);
}

static void arrays_too(void **state)
{
	static const char *const texts[] = { "[]", "[1, [2, []], {\"k\": \"v\"}]", "{\"a\": 1}" };

	(void)state;
	same_as_the_array(texts, 3);
}

static void an_element_not_made_is_an_error(void **state)
{
	static const char *const texts[] = { "{\"id\": 1}", "" };
	FILE *f = tmpfile();

	(void)state;
	assert_non_null(f);
	assert_int_equal(cli_json_items_dump(f, texts, sizeof(*texts), 2, parse, NULL), -1);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(an_empty_list),
		cmocka_unit_test(objects_as_the_listings_print_them),
		cmocka_unit_test(arrays_too),
		cmocka_unit_test(an_element_not_made_is_an_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
