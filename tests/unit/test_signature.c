#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/context.h"
#include "callus/extract.h"
#include "callus/signature.h"

/* The pattern of msg, anchored, must match msg itself (without its
 * hints, as the regex fallback matches it). */
static void assert_self_match(const char *msg)
{
	callus_buf pat = CALLUS_BUF_INIT, anchored = CALLUS_BUF_INIT, plain = CALLUS_BUF_INIT;
	pcre2_code *re;
	pcre2_match_data *md;
	int errcode, rc, hinted;
	PCRE2_SIZE erroff;

	assert_int_equal(callus_message_pattern(&pat, msg, strlen(msg)), 0);
	callus_buf_printf(&anchored, "^(?:%s)$", pat.ptr);
	re = pcre2_compile((PCRE2_SPTR)anchored.ptr, anchored.len, 0, &errcode, &erroff, NULL);
	if (!re) {
		fprintf(stderr, "pattern does not compile: %s\n", anchored.ptr);
		fail();
	}
	md = pcre2_match_data_create_from_pattern(re, NULL);
	/* the message without its hints, as the pattern is made and matched */
	hinted = callus_message_unhinted(&plain, msg, strlen(msg));
	assert_true(hinted >= 0);
	if (hinted > 0)
		msg = plain.ptr;
	rc = pcre2_match(re, (PCRE2_SPTR)msg, strlen(msg), 0, 0, md, NULL);
	if (rc < 0)
		fprintf(stderr, "no match:\n  %s\n  %s\n", msg, pat.ptr);
	assert_true(rc >= 0);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	callus_buf_release(&pat);
	callus_buf_release(&anchored);
	callus_buf_release(&plain);
}

static const char *const messages[] = {
	"'currency' is assigned a value but never used",
	"Type 'string' is not assignable to type 'number'.",
	"Cannot find module './util' or its corresponding type declarations.",
	"expected 'Hello, world!' to be 'Hello, World!' // Object.is equality",
	"assert 3 == 4\n +  where 3 = add(1, 2)",
	"mismatched types: expected `u32`, found `&str`",
	"undefined reference to `compute_total'",
	"\xe2\x80\x98y\xe2\x80\x99 undeclared (first use in this function)",
	"open /tmp/go-build123456/b001/main.go: no such file or directory",
	"request to https://registry.example.com/x failed, reason: ETIMEDOUT after 30000ms",
	"panic: runtime error: index out of range [5] with length 3",
	"segfault at 0x7ffd5e8c1a40 in worker 2024-01-31T10:20:30.123Z",
	"id 123e4567-e89b-12d3-a456-426614174000 not found (took 1.5 s)",
	"regex chars ^$.|?*+()[]{}\\ and # and / stay literal",
	"tests/test_core.py:12: in test_total",
	"",
	"   leading and trailing spaces   ",
	"sha 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 differs",
	"unterminated 'quote and \"another",
	"\xe2\x80\x98struct T\xe2\x80\x99 has no member named \xe2\x80\x98" "cont\xe2\x80\x99;"
	" did you mean \xe2\x80\x98" "count\xe2\x80\x99?",
	"name 'cont' is not defined. Did you mean: 'count'?",
	"cannot convert \xe2\x80\x98std::string\xe2\x80\x99 {aka"
	" \xe2\x80\x98std::__cxx11::basic_string<char>\xe2\x80\x99} to \xe2\x80\x98int\xe2\x80\x99",
};

static void patterns_match_their_originals(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
		assert_self_match(messages[i]);
}

/* Property test: random messages built from the pieces that get replaced
 * and from literal text always match their own pattern. */
static void random_messages_match(void **state)
{
	static const char *const pieces[] = {
		"error", " ", "  ", "'x'", "\"a b\"", "`T`", "42", "3.14", "0xdeadBEEF", "src/a.ts",
		"/tmp/x/y.c", "12ms", "2.5 s", "http://h/p?q=1", "(", ")", "[", "]", "*", "+", "?",
		"\\", "#", "/", "$", "^", "|", ".", ":", "9f86d081884c", "2024-01-02", "\xc3\xa9",
		"\xe2\x80\x98q\xe2\x80\x99", "{", "}", "'", "\"", "\t", "a1b2c3d4e5",
	};
	unsigned seed = 12345;

	(void)state;
	for (int n = 0; n < 3000; n++) {
		callus_buf msg = CALLUS_BUF_INIT;
		int parts = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 8;

		for (int p = 0; p < parts; p++) {
			seed = seed * 1103515245u + 12345u;
			callus_buf_puts(&msg, pieces[(seed >> 16) % (sizeof(pieces) / sizeof(pieces[0]))]);
		}
		assert_self_match(msg.ptr);
		callus_buf_release(&msg);
	}
}

static void sign(callus_signature *s, const char *code, const char *msg, const char *frame)
{
	callus_diag d;

	memset(&d, 0, sizeof(d));
	d.code = (char *)code;
	d.message = (char *)msg;
	if (frame)
		callus_strlist_add(&d.frames, frame, strlen(frame));
	assert_int_equal(callus_signature_build(s, &d, "jest", NULL), 0);
	callus_strlist_release(&d.frames);
}

/* A signature callus_signature_build made keeps no pattern in its row,
 * told so without making its pattern again; asked again as one from
 * elsewhere (the mark cleared), the same answer.  One whose pattern is not
 * its original's (a row of an older version read back) keeps its own. */
static void built_signatures_keep_no_pattern(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++) {
		callus_signature s;
		const char *stored = NULL;
		char *own;

		sign(&s, NULL, messages[i], NULL);
		assert_true(s.pattern_of_original);
		assert_int_equal(callus_signature_pattern_stored(&s, &stored), 0);
		assert_string_equal(stored, "");
		s.pattern_of_original = 0;
		assert_int_equal(callus_signature_pattern_stored(&s, &stored), 0);
		assert_string_equal(stored, "");
		own = s.message_pattern;
		s.message_pattern = strdup("an older pattern\\s+of it");
		assert_non_null(s.message_pattern);
		assert_int_equal(callus_signature_pattern_stored(&s, &stored), 0);
		assert_string_equal(stored, "an older pattern\\s+of it");
		free(s.message_pattern);
		s.message_pattern = own;
		callus_signature_release(&s);
	}
}

/* What callus_error_type() gives, sorted into rules and kinds. */
/* A failure's errors of a few kinds, interleaved (each kind's identifier
 * another at each place, so no two neighbours are the same): each kind is
 * hashed once, yet every diagnostic's id is the one callus_signature_build()
 * gives it alone, the signatures are listed once each in the order they
 * first appear, each with its first diagnostic's message; frames that
 * split the same letters otherwise ("a" "bc", "ab" "c") are two kinds. */
static void kinds_interleaved_listed_once(void **state)
{
	static const char *const frames[][2] = {
		{ NULL, NULL }, { "a\tx.c", "bc\ty.c" }, { "ab\tx.c", "c\ty.c" },
	};
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_signature *sigs = NULL;
	size_t n = 0, listed = 0;
	char msg[96];
	(void)state;

	for (int i = 0; i < 300; i++) {
		const char *code = i % 4 == 3 ? "TS2339" : i % 4 == 2 ? "TS2304" : NULL;
		callus_diag *x;
		int len;

		if (i % 3 == 0)
			len = snprintf(msg, sizeof(msg), "'var_%d' undeclared (first use in this function)",
				       i * 7);
		else if (i % 3 == 1)
			len = snprintf(msg, sizeof(msg), "Property 'p%d' does not exist on type 'T%d'.", i,
				       i % 13);
		else
			len = snprintf(msg, sizeof(msg), "expected ';' before '}' token");
		assert_int_equal(callus_diags_add(&d, "a.c", i + 1, 1, code, code ? strlen(code) : 0,
						  msg, (size_t)len, "error"),
				 0);
		assert_non_null(x = callus_diags_last(&d));
		for (int f = 0; f < 2 && frames[i / 12 % 3][f]; f++)
			assert_int_equal(callus_strlist_add(&x->frames, frames[i / 12 % 3][f],
							  strlen(frames[i / 12 % 3][f])),
					 0);
	}
	assert_int_equal(callus_signatures_for(&sigs, &n, &d, NULL, "tsc", NULL), 0);
	for (size_t i = 0; i < d.count; i++) {
		callus_signature alone;
		size_t first = 0;

		assert_int_equal(callus_signature_build(&alone, &d.items[i], "tsc", NULL), 0);
		assert_string_equal(d.items[i].signature, alone.id);
		callus_signature_release(&alone);
		while (strcmp(d.items[first].signature, d.items[i].signature))
			first++;
		if (first < i)
			continue;
		/* a kind first seen here: the next listed, with this message */
		assert_true(listed < n);
		assert_string_equal(sigs[listed].id, d.items[i].signature);
		assert_string_equal(sigs[listed].original, d.items[i].message);
		listed++;
	}
	assert_int_equal(listed, n);
	assert_true(n >= 20 && n <= 36);
	callus_signatures_free(sigs, n);
	callus_diags_release(&d);
}

static void rules_and_kinds(void **state)
{
	static const struct { const char *code, *msg; int rule; } cases[] = {
		{ "TS2339", "Property 'x' does not exist on type 'Y'.", 1 },
		{ "no-unused-vars", "'a' is assigned a value but never used.", 1 },
		{ "-Werror=int-conversion", "initialization of 'int *' from 'int'", 1 },
		{ NULL, "expect(received).toBe(expected)", 1 },
		{ NULL, "TypeError: Cannot read properties of undefined", 0 },
		{ NULL, "AssertionError: expected 1 to equal 2", 0 },
		{ NULL, "thread 'main' panicked at src/main.rs", 0 },
		{ NULL, "expected ';' before 'return'", 0 },
		{ "panic", "called `Option::unwrap()` on a `None` value", 0 },
		{ "Failed", "test_sum", 0 },
		{ "Subprocess aborted", "test_sum", 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		callus_signature g;

		sign(&g, cases[i].code, cases[i].msg, NULL);
		if (callus_error_type_is_rule(g.error_type) != cases[i].rule)
			fail_msg("%s (from %s): rule %d, expected %d", g.error_type, cases[i].msg,
				 !cases[i].rule, cases[i].rule);
		callus_signature_release(&g);
	}
	assert_false(callus_error_type_is_rule(NULL));
	assert_false(callus_error_type_is_rule(""));
	assert_false(callus_error_type_is_rule("MyException"));
}

/* callus_signatures_for() signs a run of the same diagnostic once: each
 * diagnostic's id is still the one callus_signature_build() gives it alone,
 * neighbours differing in one input at a time (the code, the severity
 * that names a codeless error's kind, being a test's, a frame) included. */
static void a_run_of_one_diagnostic_signed_once(void **state)
{
	static const struct {
		const char *code, *msg, *sev, *test, *frame;
	} in[] = {
		{ NULL, "expected ';' before '}' token", "error", NULL, NULL },
		{ NULL, "expected ';' before '}' token", "error", NULL, NULL },
		{ NULL, "expected ';' before '}' token", "warning", NULL, NULL },
		{ NULL, "expected ';' before '}' token", NULL, NULL, NULL },
		{ NULL, "expected ';' before '}' token", NULL, "t0", NULL },
		{ "E1", "expected ';' before '}' token", NULL, NULL, NULL },
		{ "E1", "expected ';' before '}' token", NULL, NULL, NULL },
		{ "E1", "expected ';' before '}' token", NULL, "t1", NULL },
		{ NULL, "expected ';' before '}' token", NULL, "t1", NULL },
		{ NULL, "expected ';' before '}' token", NULL, "t1", "f\ta.c" },
		{ NULL, "expected ';' before '}' token", NULL, "t1", "g\ta.c" },
		{ NULL, "expected ';' before '}' token", NULL, "t1", "g\ta.c" },
		{ NULL, "'x' undeclared", "error", NULL, NULL },
		{ NULL, "'x' undeclared", "error", NULL, NULL },
	};
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_signature *sigs = NULL;
	size_t n = 0, distinct = 0;
	(void)state;

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		callus_diag *x;

		assert_int_equal(callus_diags_add(&d, "a.c", (long)i + 1, 1, in[i].code,
						  in[i].code ? strlen(in[i].code) : 0, in[i].msg,
						  strlen(in[i].msg), in[i].sev),
				 0);
		assert_non_null(x = callus_diags_last(&d));
		if (in[i].test)
			assert_non_null(x->test = strdup(in[i].test));
		if (in[i].frame)
			assert_int_equal(callus_strlist_add(&x->frames, in[i].frame, strlen(in[i].frame)), 0);
	}
	assert_int_equal(callus_signatures_for(&sigs, &n, &d, NULL, "gcc", NULL), 0);
	for (size_t i = 0; i < d.count; i++) {
		callus_signature alone;

		assert_int_equal(callus_signature_build(&alone, &d.items[i], "gcc", NULL), 0);
		assert_non_null(d.items[i].signature);
		assert_string_equal(d.items[i].signature, alone.id);
		callus_signature_release(&alone);
		distinct++;
		for (size_t k = 0; k < i; k++)
			if (!strcmp(d.items[k].signature, d.items[i].signature)) {
				distinct--;
				break;
			}
	}
	/* each distinct signature listed once */
	assert_int_equal(n, distinct);
	assert_true(distinct > 5);
	callus_signatures_free(sigs, n);
	callus_diags_release(&d);
}

static void same_error_same_id_other_error_other_id(void **state)
{
	callus_signature a, b, c, e, f, g;

	(void)state;
	/* another identifier, file, line, duration: the same error */
	sign(&a, "no-unused-vars", "'total' is assigned a value but never used", NULL);
	sign(&b, "no-unused-vars", "'count' is assigned a value but never used", NULL);
	assert_string_equal(a.id, b.id);
	assert_string_equal(a.error_type, "no-unused-vars");
	/* another rule, or another message: another error */
	sign(&c, "no-undef", "'total' is not defined", NULL);
	assert_string_not_equal(a.id, c.id);
	/* quoting styles and signs do not make another error */
	sign(&e, NULL, "\xe2\x80\x98y\xe2\x80\x99 undeclared at offset -1", NULL);
	sign(&f, NULL, "'count' undeclared at offset +12", NULL);
	assert_string_equal(e.id, f.id);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
	callus_signature_release(&e);
	callus_signature_release(&f);

	/* ld's `name' quoting: another symbol is the same error (found by an
	 * outside review: each undefined reference was an error of its own) */
	sign(&a, NULL, "undefined reference to `helper'", NULL);
	sign(&b, NULL, "undefined reference to `do_stuff'", NULL);
	sign(&c, NULL, "multiple definition of `helper'", NULL);
	assert_string_equal(a.id, b.id);
	assert_string_not_equal(a.id, c.id);
	/* a compiler's hint is no part of the error (found by an outside
	 * review: with and without one, two errors) */
	sign(&f, NULL, "\xe2\x80\x98struct S\xe2\x80\x99 has no member named \xe2\x80\x98" "b\xe2\x80\x99", NULL);
	sign(&g, NULL,
	     "\xe2\x80\x98struct T\xe2\x80\x99 has no member named \xe2\x80\x98" "cont\xe2\x80\x99;"
	     " did you mean \xe2\x80\x98" "count\xe2\x80\x99?",
	     NULL);
	assert_string_equal(f.id, g.id);
	callus_signature_release(&f);
	callus_signature_release(&g);
	sign(&f, "NameError", "name 'x' is not defined", NULL);
	sign(&g, "NameError", "name 'cont' is not defined. Did you mean: 'count'?", NULL);
	assert_string_equal(f.id, g.id);
	callus_signature_release(&f);
	callus_signature_release(&g);
	sign(&f, NULL, "cannot convert \xe2\x80\x98" "const char*\xe2\x80\x99 to \xe2\x80\x98" "double\xe2\x80\x99", NULL);
	sign(&g, NULL,
	     "cannot convert \xe2\x80\x98std::string\xe2\x80\x99 {aka"
	     " \xe2\x80\x98std::__cxx11::basic_string<char>\xe2\x80\x99} to \xe2\x80\x98int\xe2\x80\x99",
	     NULL);
	assert_string_equal(f.id, g.id);
	callus_signature_release(&f);
	callus_signature_release(&g);
	/* a question of the message itself stays */
	sign(&f, NULL, "did you mean to call it?", NULL);
	assert_non_null(strstr(f.message_pattern, "mean"));
	callus_signature_release(&f);
	/* a backquoted name keeps the pattern, and the id, it had */
	sign(&e, NULL, "unknown option `--fast` given", NULL);
	assert_non_null(strstr(e.message_pattern, "`[^`]*`"));
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
	callus_signature_release(&e);

	/* stack frames count, without their directories or lines */
	sign(&a, NULL, "expect(received).toBe(expected)", "Object.add\tsrc/sum.test.js");
	sign(&b, NULL, "expect(received).toBe(expected)", "Object.add\tlib/sum.test.js");
	sign(&c, NULL, "expect(received).toBe(expected)", "Object.sub\tsrc/sum.test.js");
	assert_string_equal(a.id, b.id);
	assert_string_not_equal(a.id, c.id);
	assert_string_equal(a.error_type, "expect.toBe");
	assert_string_equal(a.stack_patterns.items[0], "Object.add@sum.test.js");
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

static void error_types(void **state)
{
	callus_diag d;
	char *t;

	(void)state;
	memset(&d, 0, sizeof(d));
	d.message = "TypeError: Cannot read properties of undefined (reading 'x')";
	assert_string_equal(t = callus_error_type(&d, "jest"), "TypeError");
	free(t);
	d.message = "test_total - AssertionError: assert 3 == 4";
	assert_string_equal(t = callus_error_type(&d, "pytest"), "AssertionError");
	free(t);
	d.message = "something odd";
	d.test = "suite > case";
	assert_string_equal(t = callus_error_type(&d, "vitest"), "test-failure");
	free(t);
}

/* The literal pre-test never turns a match away: for every pair of
 * messages (each also varied in its quoted names and numbers), when a
 * message's pattern matches another message as the regex fallback does
 * (anchored), callus_pattern_may_match says it may; and it does say no
 * to a message missing one of the pattern's words, those after a
 * placeholder or a space included. */
static void literal_pretest_never_misses_a_match(void **state)
{
	static const char *const more[] = {
		"'price' is assigned a value but never used",
		"Type 'boolean' is not assignable to type 'number'.",
		"\xe2\x80\x98z\xe2\x80\x99 undeclared (first use in this function)",
		"panic: runtime error: index out of range [7] with length 2",
		"tests/test_other.py:40: in test_total",
		"implicit declaration of function go_ka in to",
		"implicit declaration of function be_ka in to",
		/* a run longer than the pre-test keeps (255 bytes), twice */
		"unresolved_name_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"_end used here",
		"unresolved_name_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		"_other used here",
	};
	const char *all[sizeof(messages) / sizeof(messages[0]) + sizeof(more) / sizeof(more[0])];
	size_t n = 0, matches = 0, refused = 0, placed = 0, placed_refused = 0, sketched = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(messages) / sizeof(messages[0]); i++)
		all[n++] = messages[i];
	for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
		all[n++] = more[i];
	for (size_t i = 0; i < n; i++) {
		callus_buf pat = CALLUS_BUF_INIT, runs = CALLUS_BUF_INIT;
		pcre2_code *re;
		pcre2_match_data *md;
		int errcode;
		PCRE2_SIZE erroff;

		assert_int_equal(callus_message_pattern(&pat, all[i], strlen(all[i])), 0);
		assert_int_equal(callus_message_runs(&runs, all[i]), 0);
		re = pcre2_compile((PCRE2_SPTR)pat.ptr, PCRE2_ZERO_TERMINATED,
				   PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_UTF |
					   PCRE2_MATCH_INVALID_UTF,
				   &errcode, &erroff, NULL);
		assert_non_null(re);
		md = pcre2_match_data_create(1, NULL);
		for (size_t j = 0; j < n; j++) {
			int hit = pcre2_match(re, (PCRE2_SPTR)all[j], strlen(all[j]), 0, 0, md,
					      NULL) >= 0;
			int may = callus_pattern_may_match(pat.ptr, all[j]);

			int64_t sketch = callus_signature_sketch(NULL, all[i], 0);
			int sk = callus_sketch_may_match(sketch, callus_message_mask(all[j]), 0);

			/* the same answer from the message, no pattern made,
			 * and from its runs made once */
			assert_int_equal(callus_message_may_match(all[i], all[j]), may);
			assert_int_equal(callus_runs_may_match(runs.ptr, all[j]), may);
			/* the sketch of the row, from either, passes every
			 * message the pre-test lets through */
			assert_int_equal(callus_signature_sketch(pat.ptr, "", 0), sketch);
			assert_true(!may || sk);
			sketched += !sk;

			if (hit && !may)
				fprintf(stderr, "turned away:\n  %s\n  %s\n", pat.ptr, all[j]);
			assert_true(!hit || may);
			matches += hit;
			refused += !may;
			/* a pattern with placeholders is read past them, not
			 * given up on at the first */
			if (strstr(pat.ptr, "(?#") && strstr(pat.ptr, "\\s+")) {
				placed++;
				placed_refused += !may;
			}
		}
		pcre2_match_data_free(md);
		pcre2_code_free(re);
		callus_buf_release(&pat);
		callus_buf_release(&runs);
	}
	/* the pairs of variants matched, and most others were refused */
	assert_true(matches > n);
	assert_true(refused > n * n / 2);
	/* with placeholders and spaces as often (94% here; 60% when either
	 * kind ends the reading) */
	assert_true(placed > n && placed_refused * 10 > placed * 9);
	/* and the sketch alone refuses most of what the pre-test does */
	assert_true(sketched * 10 > refused * 9);
}

/* A row with stack patterns is read for a message with some (a frame may
 * be shared), whatever its literal runs; a row of another version's
 * pattern for any message; the sketch fits 48 bits. */
static void sketch_passes_stacks_and_other_patterns(void **state)
{
	const char *row = "implicit declaration of function go_ka in to";
	const char *other = "unrelated words entirely";
	uint64_t mask = callus_message_mask(other);
	int64_t plain = callus_signature_sketch(NULL, row, 0);
	int64_t stacked = callus_signature_sketch(NULL, row, 1);

	(void)state;
	assert_true(plain > 0 && plain < (int64_t)1 << 47);
	assert_true(stacked < 0 && stacked >= -((int64_t)1 << 47));
	assert_false(callus_sketch_may_match(plain, mask, 0));
	assert_false(callus_sketch_may_match(plain, mask, 1));
	assert_false(callus_sketch_may_match(stacked, mask, 0));
	assert_true(callus_sketch_may_match(stacked, mask, 1));
	assert_true(callus_sketch_may_match(plain, callus_message_mask(row), 0));
	assert_true(callus_sketch_may_match(stacked, callus_message_mask(row), 0));
	/* a pattern this version does not make: no bit, anything passes */
	assert_int_equal(callus_signature_sketch("foo(bar|baz)+ went wrong", row, 0), 0);
	assert_true(callus_sketch_may_match(0, mask, 0));
	/* no run of 3 bytes: nothing to look for */
	assert_int_equal(callus_signature_sketch(NULL, "'x' 'y'", 0), 0);
}

/* The files' extensions, each once in the order first met (most files of
 * a build share the one before), after the tool's framework; a dot in a
 * folder's name or at a name's end is none. */
static void context_from_files(void **state)
{
	static const char *const files[] = { "a.c", "b.c", "x/y.h", "c.c", "noext", "dir.d/file",
					     ".hidden", "z.", "a.tar.gz", "d.c", "e.h", "f.gz", "g.gzip" };
	static const char *const want[] = { "framework:gcc", "ext:c", "ext:h", "ext:hidden",
					    "ext:gz", "ext:gzip" };
	callus_strlist in = CALLUS_STRLIST_INIT, out = CALLUS_STRLIST_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_int_equal(callus_strlist_add(&in, files[i], strlen(files[i])), 0);
	assert_int_equal(callus_context_patterns(&out, NULL, NULL, "gcc -c", &in), 0);
	assert_int_equal(out.count, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < out.count; i++)
		assert_string_equal(out.items[i], want[i]);
	callus_strlist_release(&in);
	callus_strlist_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(built_signatures_keep_no_pattern),
		cmocka_unit_test(context_from_files),
		cmocka_unit_test(patterns_match_their_originals),
		cmocka_unit_test(literal_pretest_never_misses_a_match),
		cmocka_unit_test(sketch_passes_stacks_and_other_patterns),
		cmocka_unit_test(random_messages_match),
		cmocka_unit_test(same_error_same_id_other_error_other_id),
		cmocka_unit_test(a_run_of_one_diagnostic_signed_once),
		cmocka_unit_test(kinds_interleaved_listed_once),
		cmocka_unit_test(rules_and_kinds),
		cmocka_unit_test(error_types),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
