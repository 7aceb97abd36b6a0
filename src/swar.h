/*
 * swar.h - eight bytes of text tested at once in a 64-bit word, for the
 * loops that look at every byte of a tool's output (whether a line needs
 * cleaning, where a JSON string needs an escape): a megabyte of output is
 * walked several times by a recording, and a byte at a time those walks
 * were a tenth of recording it (docs/scale-history.md, the twenty-first pass).
 * Each test says whether any of the eight bytes matches: the caller looks
 * at the word's bytes one by one when it does.  Library-internal, header
 * only.
 */
#ifndef CALLUS_SWAR_H
#define CALLUS_SWAR_H

#include <stdint.h>
#include <string.h>

#define CALLUS_SWAR_ONES UINT64_C(0x0101010101010101)
#define CALLUS_SWAR_HIGH UINT64_C(0x8080808080808080)

/* Eight bytes from p, in any alignment. */
static inline uint64_t callus_swar_load(const void *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w;
}

/* Whether a byte of w has its high bit set (not ASCII). */
static inline int callus_swar_any_high(uint64_t w)
{
	return (w & CALLUS_SWAR_HIGH) != 0;
}

/* Whether a byte of w is below n (n <= 128): only a byte below n borrows
 * in the subtraction, and its high bit is unset in w; the borrow it passes
 * up can flag the wrong byte, never a word without one. */
static inline int callus_swar_any_below(uint64_t w, unsigned n)
{
	return ((w - CALLUS_SWAR_ONES * n) & ~w & CALLUS_SWAR_HIGH) != 0;
}

/* Whether a byte of w is c. */
static inline int callus_swar_any_is(uint64_t w, unsigned char c)
{
	uint64_t x = w ^ (CALLUS_SWAR_ONES * c);

	return ((x - CALLUS_SWAR_ONES) & ~x & CALLUS_SWAR_HIGH) != 0;
}

/* The high bit of each byte of w that is an ASCII digit, every other bit
 * 0.  Each byte's low seven bits plus 0x50 reach the high bit from '0'
 * up, plus 0x46 from ':' up; no sum passes 0xff, so no byte carries into
 * the next, and each bit is its own byte's.  A byte with its own high bit
 * set is none. */
static inline uint64_t callus_swar_digits(uint64_t w)
{
	uint64_t x = w & ~CALLUS_SWAR_HIGH;

	return (x + CALLUS_SWAR_ONES * 0x50) & ~(x + CALLUS_SWAR_ONES * 0x46) & ~w &
	       CALLUS_SWAR_HIGH;
}

/* Whether a byte of w is an ASCII digit. */
static inline int callus_swar_any_digit(uint64_t w)
{
	return callus_swar_digits(w) != 0;
}

/* Of the bytes whose high bit is set in m (a mask as callus_swar_digits
 * makes, not 0), the first in memory's order: its index in the word. */
static inline size_t callus_swar_first(uint64_t m)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (size_t)__builtin_clzll(m) / 8;
#else
	return (size_t)__builtin_ctzll(m) / 8;
#endif
}

/* Whether every byte of w is printable ASCII (0x20 to 0x7e). */
static inline int callus_swar_all_printable(uint64_t w)
{
	return !callus_swar_any_high(w) && !callus_swar_any_below(w, 0x20) &&
	       !callus_swar_any_is(w, 0x7f);
}

/* How many of s[0..len)'s first bytes are printable ASCII (0x20 to 0x7e). */
static inline size_t callus_swar_printable_len(const char *s, size_t len)
{
	size_t i = 0;

	while (i + 8 <= len && callus_swar_all_printable(callus_swar_load(s + i)))
		i += 8;
	while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
		i++;
	return i;
}

#endif
