#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/embed.h"
#include "callus/extract.h"
#include "callus/signature.h"

/* The signature callus would build for a diagnostic with this code and
 * message, printed by tool. */
static void sig_of(callus_signature *out, const char *tool, const char *code, const char *msg,
		   const char *test, const char *frame)
{
	callus_diags diags = CALLUS_DIAGS_INIT;
	callus_diag *d;

	assert_int_equal(callus_diags_add(&diags, "src/a.js", 3, 7, code, code ? strlen(code) : 0, msg,
				       strlen(msg), "error"),
			 0);
	d = callus_diags_last(&diags);
	if (test)
		assert_int_equal(callus_diag_set(&d->test, test, strlen(test)), 0);
	if (frame)
		assert_int_equal(callus_strlist_add(&d->frames, frame, strlen(frame)), 0);
	assert_int_equal(callus_signature_build(out, d, tool, NULL), 0);
	callus_diags_release(&diags);
}

static void vec_of(float v[CALLUS_EMBED_DIM], const callus_signature *s, const callus_idf *idf)
{
	callus_features f = CALLUS_FEATURES_INIT;

	assert_int_equal(callus_embed_features(&f, s), 0);
	callus_embed_vector(v, &f, idf);
	callus_features_release(&f);
}

/* Same ids, same weights (not memcmp: the struct has padding). */
static void assert_features_equal(const callus_features *a, const callus_features *b)
{
	assert_int_equal(a->count, b->count);
	for (size_t i = 0; i < a->count; i++) {
		assert_true(a->items[i].id == b->items[i].id);
		assert_true(a->items[i].weight == b->items[i].weight);
	}
}

/* Cosine of the signatures of two diagnostics (no document frequencies). */
static float sim(const char *tool1, const char *code1, const char *msg1, const char *tool2,
		 const char *code2, const char *msg2)
{
	callus_signature a, b;
	float va[CALLUS_EMBED_DIM], vb[CALLUS_EMBED_DIM], s;

	sig_of(&a, tool1, code1, msg1, NULL, NULL);
	sig_of(&b, tool2, code2, msg2, NULL, NULL);
	vec_of(va, &a, NULL);
	vec_of(vb, &b, NULL);
	s = callus_dot(va, vb, CALLUS_EMBED_DIM);
	callus_signature_release(&a);
	callus_signature_release(&b);
	return s;
}

/* A signature made by hand: message_pattern taken as is. */
static void sig_raw(callus_signature *s, const char *type, const char *tool, const char *pattern,
		    const char *original)
{
	memset(s, 0, sizeof(*s));
	s->error_type = strdup(type);
	s->tool = strdup(tool);
	s->message_pattern = strdup(pattern);
	s->original = strdup(original);
	assert_non_null(s->error_type);
	assert_non_null(s->tool);
	assert_non_null(s->message_pattern);
	assert_non_null(s->original);
}

static void deterministic(void **state)
{
	callus_signature s;
	callus_features f1 = CALLUS_FEATURES_INIT, f2 = CALLUS_FEATURES_INIT;
	float v1[CALLUS_EMBED_DIM], v2[CALLUS_EMBED_DIM];

	(void)state;
	sig_of(&s, "jest", NULL,
	       "expect(received).toBe(expected) // Object.is equality\n\nExpected: 4\nReceived: 3",
	       "sum adds", "Object.toBe\tsrc/sum.test.js");
	assert_int_equal(callus_embed_features(&f1, &s), 0);
	assert_int_equal(callus_embed_features(&f2, &s), 0);
	assert_true(f1.count > 10);
	assert_features_equal(&f1, &f2);
	for (size_t i = 1; i < f1.count; i++)
		assert_true(f1.items[i - 1].id < f1.items[i].id); /* sorted, merged */
	callus_embed_vector(v1, &f1, NULL);
	callus_embed_vector(v2, &f2, NULL);
	assert_memory_equal(v1, v2, sizeof(v1));

	/* features can be computed again into the same struct */
	assert_int_equal(callus_embed_features(&f1, &s), 0);
	assert_int_equal(f1.count, f2.count);
	callus_features_release(&f1);
	callus_features_release(&f2);
	callus_features_release(NULL);
	callus_signature_release(&s);
}

static void normalized(void **state)
{
	callus_signature s;
	float v[CALLUS_EMBED_DIM];

	(void)state;
	sig_of(&s, "tsc", "TS2322", "Type 'string' is not assignable to type 'number'.", NULL, NULL);
	vec_of(v, &s, NULL);
	assert_float_equal(callus_dot(v, v, CALLUS_EMBED_DIM), 1.0f, 1e-5f);
	callus_signature_release(&s);
}

static void identical_is_one(void **state)
{
	(void)state;
	assert_float_equal(sim("eslint", "no-undef", "'foo' is not defined.", "eslint", "no-undef",
			       "'foo' is not defined."),
			   1.0f, 1e-5f);
}

static void same_error_other_details(void **state)
{
	float s;

	(void)state;
	/* identifiers, types, paths and numbers are placeholders */
	s = sim("eslint", "no-undef", "'foo' is not defined.", "eslint", "no-undef",
		"'barBaz' is not defined.");
	assert_true(s > 0.99f);
	s = sim("tsc", "TS2322", "Type 'string' is not assignable to type 'number'.", "tsc", "TS2322",
		"Type 'Promise<User[]>' is not assignable to type 'Record<string, Order>'.");
	assert_true(s > 0.99f);
	s = sim("gcc", NULL, "cannot open src/x/y.c at line 12", "gcc", NULL,
		"cannot open lib/other.c at line 340");
	assert_true(s > 0.99f);
	/* an identifier the normalization left: still close */
	s = sim("pylint", "W0611", "Unused import json", "pylint", "W0611", "Unused import os");
	assert_true(s > 0.75f);
	s = sim("cppcheck", "nullPointer", "Null pointer dereference: p", "cppcheck", "nullPointer",
		"Null pointer dereference: userRecord");
	assert_true(s > 0.75f);
	/* one error through two runners of one tool */
	s = sim("make", NULL, "'x' undeclared (first use in this function)", "gcc", NULL,
		"'y' undeclared (first use in this function)");
	assert_true(s > 0.9f);
}

static void other_error_lower(void **state)
{
	float same, other;

	(void)state;
	same = sim("eslint", "no-undef", "'foo' is not defined.", "eslint", "no-undef",
		   "'bar' is not defined.");
	other = sim("eslint", "no-undef", "'foo' is not defined.", "eslint", "no-unused-vars",
		    "'foo' is defined but never used.");
	assert_true(other < 0.7f);
	assert_true(same - other > 0.3f);

	other = sim("tsc", "TS2322", "Type 'string' is not assignable to type 'number'.", "tsc",
		    "TS2304", "Cannot find name 'foo'.");
	assert_true(other < 0.4f);

	other = sim("jest", NULL, "expect(received).toBe(expected)\n\nExpected: 4\nReceived: 3",
		    "pytest", NULL, "AssertionError: assert 3 == 4");
	assert_true(other < 0.3f);

	/* same words, other kinds of value: other assertions */
	other = sim("vitest", NULL, "AssertionError: expected 5 to be 4", "vitest", NULL,
		    "AssertionError: expected 'a' to be 'b'");
	assert_true(other < 0.97f);
}

static void camel_and_snake_parts(void **state)
{
	float split, whole;

	(void)state;
	/* "getUserName" shares "user" and "name" with "user_name"; the same
	 * letters written as one word share only n-grams */
	split = sim("x", "E1", "getUserName broke", "x", "E1", "user_name broke");
	whole = sim("x", "E1", "getusername broke", "x", "E1", "user_name broke");
	assert_true(split > whole);
	split = sim("x", "E1", "HTTPServer stopped", "x", "E1", "server stopped");
	whole = sim("x", "E1", "httpserver stopped", "x", "E1", "server stopped");
	assert_true(split > whole);
}

/* Regex escapes are undone: a pattern and its original words agree. */
static void pattern_and_original_agree(void **state)
{
	callus_signature a, b;
	callus_features fa = CALLUS_FEATURES_INIT, fb = CALLUS_FEATURES_INIT;

	(void)state;
	sig_raw(&a, "AssertionError", "mocha",
		"AssertionError\\s+\\[ERR_ASSERTION\\]:\\s+Expected\\s+values\\s+to\\s+be\\s+"
		"strictly\\s+equal\\.",
		"");
	sig_raw(&b, "AssertionError", "mocha", "",
		"AssertionError [ERR_ASSERTION]: Expected values to be strictly equal.");
	assert_int_equal(callus_embed_features(&fa, &a), 0);
	assert_int_equal(callus_embed_features(&fb, &b), 0);
	assert_features_equal(&fa, &fb);
	callus_features_release(&fa);
	callus_features_release(&fb);
	callus_signature_release(&a);
	callus_signature_release(&b);

	/* a placeholder's regex makes no words: only its type counts */
	sig_raw(&a, "E", "t", "failed\\s+(?#path)[^\\s:'\"(),;]+\\s+twice", "");
	sig_raw(&b, "E", "t", "failed\\s+(?#path)\\s+twice", "");
	assert_int_equal(callus_embed_features(&fa, &a), 0);
	assert_int_equal(callus_embed_features(&fb, &b), 0);
	assert_features_equal(&fa, &fb);
	callus_features_release(&fa);
	callus_features_release(&fb);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

static void idf_weights(void **state)
{
	callus_idf *idf = NULL;
	callus_features f = CALLUS_FEATURES_INIT, rare = CALLUS_FEATURES_INIT;
	callus_signature s;
	static const char *const words[] = { "xqzv", "wkjh", "pmnb", "tdfg", "hjkl", "yxcv",
					      "qwrt", "zupf", "mbvc", "lkjg" };
	float va[CALLUS_EMBED_DIM], vb[CALLUS_EMBED_DIM], common_sim, rare_sim, w_common, w_rare;
	callus_signature a, b;

	(void)state;
	assert_int_equal(callus_idf_new(&idf), 0);
	assert_float_equal(callus_idf_weight(idf, 42), 1.0f, 1e-6f); /* no documents yet */
	assert_float_equal(callus_idf_weight(NULL, 42), 1.0f, 1e-6f);
	/* ten documents, all with "lorem"; one also with "ipsum" */
	for (size_t i = 0; i < 10; i++) {
		char msg[64];
		snprintf(msg, sizeof(msg), "lorem %s%s", words[i], i == 0 ? " ipsum" : "");
		sig_raw(&s, "", "", msg, "");
		assert_int_equal(callus_embed_features(&f, &s), 0);
		assert_int_equal(callus_idf_add(idf, &f), 0);
		callus_signature_release(&s);
	}
	assert_int_equal(callus_idf_docs(idf), 10);
	sig_raw(&s, "", "", "lorem", "");
	assert_int_equal(callus_embed_features(&f, &s), 0);
	callus_signature_release(&s);
	sig_raw(&s, "", "", "ipsum", "");
	assert_int_equal(callus_embed_features(&rare, &s), 0);
	callus_signature_release(&s);
	/* the word itself is the first feature of kind word; compare the
	 * largest-weight feature of each (the word, 1.0; n-grams weigh less) */
	w_common = w_rare = 100;
	for (size_t i = 0; i < f.count; i++)
		if (f.items[i].weight >= 1.0f)
			w_common = callus_idf_weight(idf, f.items[i].id);
	for (size_t i = 0; i < rare.count; i++)
		if (rare.items[i].weight >= 1.0f)
			w_rare = callus_idf_weight(idf, rare.items[i].id);
	/* ln(11/11) + 1 and ln(11/2) + 1 */
	assert_float_equal(w_common, 1.0f, 1e-5f);
	assert_float_equal(w_rare, 2.704748f, 1e-5f);
	assert_true(w_common < w_rare);
	/* unseen weighs most: ln(11) + 1 */
	assert_float_equal(callus_idf_weight(idf, 0x1234567ULL), 3.397895f, 1e-5f);

	/* through the vectors: sharing the rare word counts more than sharing
	 * the common one */
	sig_raw(&a, "", "", "lorem abcd", "");
	sig_raw(&b, "", "", "lorem efgh", "");
	vec_of(va, &a, idf);
	vec_of(vb, &b, idf);
	common_sim = callus_dot(va, vb, CALLUS_EMBED_DIM);
	callus_signature_release(&a);
	callus_signature_release(&b);
	sig_raw(&a, "", "", "ipsum abcd", "");
	sig_raw(&b, "", "", "ipsum efgh", "");
	vec_of(va, &a, idf);
	vec_of(vb, &b, idf);
	rare_sim = callus_dot(va, vb, CALLUS_EMBED_DIM);
	callus_signature_release(&a);
	callus_signature_release(&b);
	assert_true(rare_sim > common_sim + 0.1f);

	/* counts set directly, as loaded from a store */
	callus_idf_set_docs(idf, 10);
	assert_int_equal(callus_idf_set(idf, 77, 5), 0);
	assert_float_equal(callus_idf_weight(idf, 77), 1.606136f, 1e-5f); /* ln(11/6) + 1 */
	assert_int_equal(callus_idf_set(idf, 0, 10), 0); /* id 0 is a feature too */
	assert_float_equal(callus_idf_weight(idf, 0), 1.0f, 1e-6f);
	assert_int_equal(callus_idf_set(idf, 78, 50), 0); /* more than the documents */
	assert_true(callus_idf_weight(idf, 78) >= 1.0f);

	callus_features_release(&f);
	callus_features_release(&rare);
	callus_idf_free(idf);
	callus_idf_free(NULL);
}

/* The table grows and keeps every count. */
static void idf_many(void **state)
{
	callus_idf *idf = NULL;

	(void)state;
	assert_int_equal(callus_idf_new(&idf), 0);
	callus_idf_set_docs(idf, 100000);
	for (uint64_t i = 1; i <= 20000; i++)
		assert_int_equal(callus_idf_set(idf, i * 0x9e3779b97f4a7c15ULL, (uint32_t)(i % 1000)), 0);
	for (uint64_t i = 1; i <= 20000; i++) {
		float w = callus_idf_weight(idf, i * 0x9e3779b97f4a7c15ULL);

		if (i % 1000 == 0) /* df 0 weighs as unseen */
			assert_float_equal(w, callus_idf_weight(idf, 0xabcdefULL), 1e-6f);
		else
			assert_true(w < callus_idf_weight(idf, 0xabcdefULL));
	}
	/* every id set is found with its count, a count of 0 too; an id
	 * never set is not, nor id 0 (set or not) */
	for (uint64_t i = 1; i <= 20000; i++) {
		uint32_t df = 12345;

		assert_int_equal(callus_idf_lookup(idf, i * 0x9e3779b97f4a7c15ULL, &df), 1);
		assert_int_equal(df, i % 1000);
		assert_int_equal(callus_idf_lookup(idf, i * 0x9e3779b97f4a7c15ULL + 1, &df), 0);
	}
	assert_int_equal(callus_idf_set(idf, 0, 3), 0);
	{
		uint32_t df = 0;

		assert_int_equal(callus_idf_lookup(idf, 0, &df), 0);
	}
	callus_idf_free(idf);
	/* an empty table finds nothing */
	assert_int_equal(callus_idf_new(&idf), 0);
	{
		uint32_t df = 0;

		assert_int_equal(callus_idf_lookup(idf, 77, &df), 0);
	}
	callus_idf_free(idf);
}

static void empty_is_zero(void **state)
{
	callus_signature s;
	callus_features f = CALLUS_FEATURES_INIT;
	float v[CALLUS_EMBED_DIM], w[CALLUS_EMBED_DIM];

	(void)state;
	sig_raw(&s, "", "", "", "");
	assert_int_equal(callus_embed_features(&f, &s), 0);
	assert_int_equal(f.count, 0);
	callus_embed_vector(v, &f, NULL);
	for (size_t i = 0; i < CALLUS_EMBED_DIM; i++)
		assert_true(v[i] == 0.0f);
	assert_true(callus_dot(v, v, CALLUS_EMBED_DIM) == 0.0f);
	callus_signature_release(&s);

	sig_raw(&s, "TS2304", "tsc", "Cannot\\s+find\\s+name", "");
	vec_of(w, &s, NULL);
	assert_true(callus_dot(v, w, CALLUS_EMBED_DIM) == 0.0f);
	callus_signature_release(&s);
	callus_features_release(&f);
}

static void huge_message_bounded(void **state)
{
	size_t n = 1 << 20;
	char *big = malloc(n + 1);
	callus_signature s;
	callus_features f = CALLUS_FEATURES_INIT;
	float v[CALLUS_EMBED_DIM];

	(void)state;
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = "abcdefghij klmnoPqrst_uvwxyz01 "[i % 31];
	big[n] = '\0';
	/* as a pattern, as an original, and as one enormous word */
	for (int round = 0; round < 3; round++) {
		if (round == 2)
			memset(big, 'q', n);
		sig_raw(&s, "E1", "tool", round == 1 ? "" : big, big);
		assert_int_equal(callus_embed_features(&f, &s), 0);
		assert_true(f.count > 0);
		assert_true(f.count <= 2048);
		vec_of(v, &s, NULL);
		assert_float_equal(callus_dot(v, v, CALLUS_EMBED_DIM), 1.0f, 1e-5f);
		callus_signature_release(&s);
	}
	callus_features_release(&f);
	free(big);
}

/* Truncated and malformed patterns (cut at 4 KB, hand-made) are read
 * without running past their end. */
static void malformed_patterns(void **state)
{
	static const char *const pats[] = {
		"(?#str)(?:'[^']*", "(?#", "(?#num", "\\", "abc\\", "(?#path)[", "(?#path)[^]",
		"(?#x)((((", "x (?#str)(?:'[^']*'|\"[^\"]*\")", "\x01\x01 \x01", "[]]()\\s",
	};
	callus_signature s;
	callus_features f = CALLUS_FEATURES_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		sig_raw(&s, "", "", pats[i], "");
		assert_int_equal(callus_embed_features(&f, &s), 0);
		callus_signature_release(&s);
	}
	callus_features_release(&f);
}

static void dot_any_length(void **state)
{
	float a[37], b[37];

	(void)state;
	for (size_t n = 0; n <= 37; n++) {
		double want = 0;
		for (size_t i = 0; i < n; i++) {
			a[i] = (float)i * 0.5f - 3.0f;
			b[i] = 1.0f / (float)(i + 1);
			want += (double)a[i] * b[i];
		}
		assert_float_equal(callus_dot(a, b, n), (float)want, 1e-4f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(deterministic),
		cmocka_unit_test(normalized),
		cmocka_unit_test(identical_is_one),
		cmocka_unit_test(same_error_other_details),
		cmocka_unit_test(other_error_lower),
		cmocka_unit_test(camel_and_snake_parts),
		cmocka_unit_test(pattern_and_original_agree),
		cmocka_unit_test(idf_weights),
		cmocka_unit_test(idf_many),
		cmocka_unit_test(empty_is_zero),
		cmocka_unit_test(huge_message_bounded),
		cmocka_unit_test(malformed_patterns),
		cmocka_unit_test(dot_any_length),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
