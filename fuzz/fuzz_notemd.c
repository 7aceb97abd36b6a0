/*
 * fuzz_notemd.c - a note file read from arbitrary bytes (a note pulled with
 * git is anyone's text), written back, and shown compact.
 *
 * Besides memory errors, checks what callers rely on: a note that reads is
 * written as a file that reads back to the same note (so that syncing does
 * not churn), and its compact form stays within every budget.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callus/notemd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	callus_buf once = CALLUS_BUF_INIT, twice = CALLUS_BUF_INIT, compact = CALLUS_BUF_INIT;
	callus_note a, b;
	const size_t budgets[] = { 0, 17, 200, 1500 };

	memset(&b, 0, sizeof(b));
	if (callus_note_md_parse(&a, (const char *)data, size, NULL) < 0)
		return 0;
	if (callus_note_md_render(&once, &a) < 0)
		goto out;
	if (callus_note_md_parse(&b, once.ptr, once.len, NULL) < 0)
		abort();
	if (callus_note_md_render(&twice, &b) < 0)
		goto out;
	if (twice.len != once.len || memcmp(twice.ptr, once.ptr, once.len) != 0)
		abort();
	for (size_t i = 0; i < sizeof(budgets) / sizeof(budgets[0]); i++) {
		callus_buf_clear(&compact);
		if (callus_note_compact(&compact, &a, "f.c", 3, "  ", budgets[i]) == 0 &&
		    compact.len > budgets[i])
			abort();
	}
out:
	callus_note_release(&a);
	callus_note_release(&b);
	callus_buf_release(&once);
	callus_buf_release(&twice);
	callus_buf_release(&compact);
	return 0;
}
