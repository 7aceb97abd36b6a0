/*
 * fuzz_redact.c - callus_redact() on arbitrary bytes.
 *
 * Besides memory errors, checks the properties callers rely on: the output
 * is bounded by the input, every replacement is counted, and redaction is
 * idempotent (text stored redacted is redacted again when it is written out,
 * and must not change or grow).  The input split at NUL bytes is also a
 * command line given as words (callus_redact_argv), for memory errors and
 * for its count.  The string forms (plain, escaped for JSON, in place)
 * must agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callus/cleantext.h"
#include "callus/redact.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "[REDACTED:secret-assignment]" is the longest replacement. */
#define MAX_GROWTH 28

static size_t occurrences(const callus_buf *b, const char *needle)
{
	size_t k = 0, n = 0, l = strlen(needle);
	const char *p;

	while (k < b->len && (p = memmem(b->ptr + k, b->len - k, needle, l))) {
		n++;
		k = (size_t)(p - b->ptr) + l;
	}
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	callus_redactor *r = NULL;
	callus_buf once = CALLUS_BUF_INIT, twice = CALLUS_BUF_INIT;
	size_t n1 = 0, n2 = 0;
	char *str = NULL, *copy = NULL;

	if (callus_redactor_new(&r, NULL) < 0)
		return 0;
	if (callus_redact(r, &once, (const char *)data, size, &n1) < 0)
		goto out;
	if (once.len > size * MAX_GROWTH + 1)
		abort();
	if (n1 > occurrences(&once, "[REDACTED:"))
		abort();
	if (n1 == 0 && (once.len != size || memcmp(once.ptr, data, size) != 0))
		abort();
	if (callus_redact(r, &twice, once.ptr, once.len, &n2) < 0)
		goto out;
	if (n2 != 0 || twice.len != once.len ||
	    memcmp(twice.ptr, once.ptr, once.len) != 0)
		abort();

	/* The string form stops at the first NUL, cleans (cleantext.h), and
	 * must agree with redacting the clean text. */
	if (!(copy = malloc(size + 1)))
		goto out;
	memcpy(copy, data, size);
	copy[size] = '\0';
	if (callus_redact_str(r, &str, copy) < 0)
		goto out;
	callus_buf_clear(&once);
	callus_buf_clear(&twice);
	if (callus_text_clean(&once, copy, strlen(copy), 0) < 0 ||
	    callus_redact(r, &twice, once.ptr, once.len, NULL) < 0)
		goto out;
	if (strcmp(str, twice.ptr) != 0 || !callus_text_is_clean(str, strlen(str), 0))
		abort();
	/* and escaped for JSON as it is redacted: the same text, escaped */
	callus_buf_clear(&once);
	callus_buf_clear(&twice);
	if (callus_redact_str_json(r, &once, copy) < 0 ||
	    callus_buf_put_json_chars(&twice, str, strlen(str)) < 0)
		goto out;
	if (once.len != twice.len || memcmp(once.ptr, twice.ptr, once.len) != 0)
		abort();
	/* and in place: the same text, the string itself kept when it is */
	{
		char *kept = strdup(copy), *before = kept;

		if (!kept || callus_redact_in_place(r, &kept) < 0) {
			free(kept);
			goto out;
		}
		if (strcmp(kept, str) != 0 ||
		    (!strcmp(str, copy) && callus_text_is_clean(copy, strlen(copy), 0) &&
		     kept != before))
			abort();
		free(kept);
	}

	/* The same bytes as argv words, one per NUL-terminated piece. */
	{
		const char *words[64];
		size_t nw = 0, k = 0, n3 = 0;

		while (k < size && nw < 64) {
			words[nw++] = (const char *)data + k;
			k += strnlen((const char *)data + k, size - k) + 1;
		}
		if (k > size)   /* the last piece has no NUL: not a word */
			nw--;
		callus_buf_clear(&twice);
		if (callus_redact_argv(r, &twice, nw, words, &n3) == 0 &&
		    n3 > occurrences(&twice, "[REDACTED:"))
			abort();
	}
out:
	free(str);
	free(copy);
	callus_buf_release(&once);
	callus_buf_release(&twice);
	callus_redactor_free(r);
	return 0;
}
