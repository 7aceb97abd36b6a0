/*
 * swar.h - eight bytes of text tested at once in a 64-bit word, and
 * sixteen in an SSE2 register where there is one, for the loops that look
 * at every byte of a tool's output (whether a line needs cleaning, where a
 * JSON string needs an escape): a megabyte of output is walked several
 * times by a recording, and a byte at a time those walks were a tenth of
 * recording it (docs/scale-history.md, the twenty-first pass).  Each test
 * says whether any of the bytes matches: the caller looks at them one by
 * one when it does.  Library-internal, header only.
 */
#ifndef CALLUS_SWAR_H
#define CALLUS_SWAR_H

#include <stdint.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/* Whether every byte of w is printable ASCII (0x20 to 0x7e). */
static inline int callus_swar_all_printable(uint64_t w)
{
	return !callus_swar_any_high(w) && !callus_swar_any_below(w, 0x20) &&
	       !callus_swar_any_is(w, 0x7f);
}

/*
 * Sixteen bytes at a time where there is SSE2 (every x86-64): the spans
 * below first find the 16 bytes holding the byte that ends them, by a
 * mask of the bytes that would (one bit a byte, in memory's order), then
 * go on eight and one at a time.  A megabyte's recording walks its output
 * with each of them, where a word of eight took a dozen instructions and
 * sixteen take a handful (docs/scale-history.md, the seventy-eighth pass).
 */
#ifdef __SSE2__
static inline __m128i callus_sse_load(const void *p)
{
	return _mm_loadu_si128((const __m128i *)p);
}

/* The bytes of v below 0x20 or at or above 0x80 (signed, below 0x20). */
static inline __m128i callus_sse_below_or_high(__m128i v)
{
	return _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
}

/* The bytes of v below 0x20, unsigned. */
static inline __m128i callus_sse_control(__m128i v)
{
	return _mm_cmpeq_epi8(_mm_subs_epu8(v, _mm_set1_epi8(0x1f)), _mm_setzero_si128());
}

static inline __m128i callus_sse_is(__m128i v, char c)
{
	return _mm_cmpeq_epi8(v, _mm_set1_epi8(c));
}

/* Of the bytes a mask of 16 marks (not 0), the first: its index. */
static inline size_t callus_sse_first(__m128i m)
{
	return (size_t)__builtin_ctz((unsigned)_mm_movemask_epi8(m));
}

/* Whether a byte of s[0..len)'s whole blocks of sixteen is one stops (a
 * mask of a block's bytes) marks: *at the first such, else where those
 * blocks end, for the walk eight bytes and then one at a time that
 * follows. */
static inline int callus_sse_span(const char *s, size_t len, __m128i (*stops)(__m128i),
				  size_t *at)
{
	size_t i = 0;

	for (; i + 16 <= len; i += 16) {
		__m128i m = stops(callus_sse_load(s + i));

		if (_mm_movemask_epi8(m)) {
			*at = i + callus_sse_first(m);
			return 1;
		}
	}
	*at = i;
	return 0;
}

/* The bytes each span below stops at. */
static inline __m128i callus_sse_unprintable(__m128i v)
{
	return _mm_or_si128(callus_sse_below_or_high(v), callus_sse_is(v, 0x7f));
}

static inline __m128i callus_sse_json_escaped(__m128i v)
{
	return _mm_or_si128(callus_sse_control(v),
			    _mm_or_si128(callus_sse_is(v, '"'), callus_sse_is(v, '\\')));
}

static inline __m128i callus_sse_json_unplain(__m128i v)
{
	return _mm_or_si128(callus_sse_below_or_high(v), callus_sse_is(v, '\\'));
}
#endif

/* How many of s[0..len)'s first bytes are none of a, b and c: where a
 * line's first word ends (a path at ':', a program's name at ' '), read
 * sixteen bytes at a time where there is SSE2. */
static inline size_t callus_span_none3(const char *s, size_t len, char a, char b, char c)
{
	size_t i = 0;

#ifdef __SSE2__
	for (; i + 16 <= len; i += 16) {
		__m128i v = callus_sse_load(s + i);
		__m128i m = _mm_or_si128(_mm_or_si128(callus_sse_is(v, a), callus_sse_is(v, b)),
					 callus_sse_is(v, c));

		if (_mm_movemask_epi8(m))
			return i + callus_sse_first(m);
	}
#endif
	while (i < len && s[i] != a && s[i] != b && s[i] != c)
		i++;
	return i;
}

/* How many of s[0..len)'s first bytes are printable ASCII (0x20 to 0x7e). */
static inline size_t callus_swar_printable_len(const char *s, size_t len)
{
	size_t i = 0;

#ifdef __SSE2__
	if (callus_sse_span(s, len, callus_sse_unprintable, &i))
		return i;
#endif
	while (i + 8 <= len && callus_swar_all_printable(callus_swar_load(s + i)))
		i += 8;
	while (i < len && (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f)
		i++;
	return i;
}

/* How many of s[0..len)'s first bytes a JSON string holds as they are:
 * none below 0x20, no '"', no '\\' (bytes past ASCII are kept). */
static inline size_t callus_json_plain_len(const char *s, size_t len)
{
	size_t i = 0;
	unsigned char c;

#ifdef __SSE2__
	if (callus_sse_span(s, len, callus_sse_json_escaped, &i))
		return i;
#endif
	for (uint64_t w; i + 8 <= len; i += 8)
		if (w = callus_swar_load(s + i), callus_swar_any_below(w, 0x20) ||
		    callus_swar_any_is(w, '"') || callus_swar_any_is(w, '\\'))
			break;
	while (i < len && (c = (unsigned char)s[i]) >= 0x20 && c != '"' && c != '\\')
		i++;
	return i;
}

/* How many of s[0..len)'s first bytes are ASCII from 0x20 up, none a
 * '\\': a JSON string's text that reads as it is written. */
static inline size_t callus_json_ascii_len(const char *s, size_t len)
{
	size_t i = 0;
	unsigned char c;

#ifdef __SSE2__
	if (callus_sse_span(s, len, callus_sse_json_unplain, &i))
		return i;
#endif
	for (uint64_t w; i + 8 <= len; i += 8)
		if (w = callus_swar_load(s + i), callus_swar_any_high(w) ||
		    callus_swar_any_below(w, 0x20) || callus_swar_any_is(w, '\\'))
			break;
	while (i < len && (c = (unsigned char)s[i]) >= 0x20 && c < 0x80 && c != '\\')
		i++;
	return i;
}

#endif
