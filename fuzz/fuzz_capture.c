/*
 * fuzz_capture.c - a capture of arbitrary bytes, whole (a hook's payload
 * output: its kept lines lent from it where they lie as printed) and fed
 * in a stream's pieces (`callus run`: each kept line copied).  Besides
 * memory errors (the whole output is an exact copy of the input, so a
 * read past its end is one), checks that the two keep the same lines and
 * make the same text, and that the whole capture's view of the text is
 * that text (lent from the output, it may lack only the newline the
 * output's last line lacks).  The first byte sets the pieces' size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callus/capture.h"

#include "capture_view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	callus_capture whole, fed;
	callus_buf made = CALLUS_BUF_INIT, fed_text = CALLUS_BUF_INIT, scratch = CALLUS_BUF_INIT;
	const char *view;
	size_t piece, len, vlen;
	char *out;

	if (!size)
		return 0;
	piece = 1 + data[0] % 97;
	len = size - 1;
	/* the output alone in its block: a byte read past it is a fault */
	if (!(out = malloc(len ? len : 1)))
		return 0;
	memcpy(out, data + 1, len);
	callus_capture_init(&whole);
	callus_capture_init(&fed);
	callus_capture_whole_owned(&whole, out, len);
	for (size_t i = 0; i < len; i += piece)
		callus_capture_feed(&fed, out + i, len - i < piece ? len - i : piece);
	callus_capture_finish(&fed);
	if (whole.nlines != fed.nlines || whole.total_lines != fed.total_lines ||
	    whole.dropped_lines != fed.dropped_lines)
		abort();
	for (size_t i = 0; i < whole.nlines; i++)
		if (whole.lines[i].lineno != fed.lines[i].lineno ||
		    whole.lines[i].len != fed.lines[i].len)
			abort();
	if (callus_capture_text(&whole, &made) < 0 || callus_capture_text(&fed, &fed_text) < 0)
		goto out;
	if (made.len != fed_text.len || (made.len && memcmp(made.ptr, fed_text.ptr, made.len)))
		abort();
	if (callus_capture_text_view(&whole, &scratch, &view, &vlen) < 0)
		goto out;
	if (!fuzz_view_is_text(view, vlen, made.ptr, made.len, out, len))
		abort();
out:
	callus_buf_release(&made);
	callus_buf_release(&fed_text);
	callus_buf_release(&scratch);
	callus_capture_release(&whole);
	callus_capture_release(&fed);
	return 0;
}
