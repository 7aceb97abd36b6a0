/*
 * pieces_helpers.h - the lines the property tests ask a function and its
 * definition of (test_capture.c, test_parse_js.c, test_parse_native.c):
 * pieces of the text it reads, chosen one after another by a
 * reproducible stream of numbers.  Header only.
 */
#ifndef CALLUS_TEST_PIECES_HELPERS_H
#define CALLUS_TEST_PIECES_HELPERS_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The next number of the stream x (xorshift64; x never 0). */
static inline uint64_t pieces_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Into line (cap bytes, not terminated), n pieces of pieces[0..count),
 * each chosen by the stream x, up to the last that fits: the line's
 * length. */
static inline size_t pieces_line(char *line, size_t cap, const char *const *pieces, size_t count,
				 size_t n, uint64_t *x)
{
	size_t len = 0;

	for (size_t k = 0; k < n; k++) {
		const char *pc = pieces[pieces_next(x) % count];
		size_t pl = strlen(pc);

		if (pl > cap - len)
			break;
		memcpy(line + len, pc, pl);
		len += pl;
	}
	return len;
}

#endif
