/*
 * capture_view.h - the one check of a whole capture's view that the fuzz
 * targets of the capture (fuzz_capture.c) and of the parsers
 * (parser_invariants.h) share: what callus_capture_text_view may give for
 * a capture whose text is text[0..tlen).
 */
#ifndef CALLUS_FUZZ_CAPTURE_VIEW_H
#define CALLUS_FUZZ_CAPTURE_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Whether view[0..vlen) is the text text[0..tlen) of a capture of the
 * output out[0..len) known whole: those bytes, or, lent from the output to
 * its end, all of them but the newline the output's last line lacks.
 */
static inline int fuzz_view_is_text(const char *view, size_t vlen, const char *text, size_t tlen,
				    const char *out, size_t len)
{
	if (vlen > tlen || (vlen && memcmp(view, text, vlen)))
		return 0;
	if (vlen == tlen)
		return 1;
	/* compared as addresses: a view lent from the output lies in it */
	return vlen + 1 == tlen && len && out[len - 1] != '\n' &&
	       (uintptr_t)view >= (uintptr_t)out && (uintptr_t)view + vlen == (uintptr_t)out + len;
}

#endif
