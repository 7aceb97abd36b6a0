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

/* A span and its stops (below): the stops are given to the span by
 * pointer, a table of them a span, and a compiler inlines such a call
 * only when told to (else each block of sixteen bytes was a call). */
#define CALLUS_SPAN_INLINE static inline __attribute__((always_inline))

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
 * with each of them: the JSON strings' two and the capture's plain test
 * took its distinct errors 233.4 -> 227.0 million instructions
 * (docs/scale-history.md, the seventy-eighth pass).
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

/* The bytes of v in ASCII's range [lo, hi]. */
static inline __m128i callus_sse_in_range(__m128i v, char lo, char hi)
{
	return _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8((char)(lo - 1))),
			     _mm_cmplt_epi8(v, _mm_set1_epi8((char)(hi + 1))));
}

/* Whether a byte of s[0..len)'s whole blocks of sixteen is one stops (a
 * mask of a block's bytes) marks: *at the first such, else where those
 * blocks end. */
CALLUS_SPAN_INLINE int callus_sse_span(const char *s, size_t len, __m128i (*stops)(__m128i),
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

/*
 * The bytes a span stops at, asked three ways: of sixteen bytes at once
 * (a mask of them, SSE2), of a word of eight (whether it may hold one),
 * of one byte.
 */
typedef struct callus_span_stops {
#ifdef __SSE2__
	__m128i (*sixteen)(__m128i v);
#endif
	int (*eight)(uint64_t w);
	int (*one)(unsigned char c);
} callus_span_stops;

/* How many of s[0..len)'s first bytes are none that st stops at: sixteen
 * bytes at a time, then eight, then one. */
CALLUS_SPAN_INLINE size_t callus_span(const char *s, size_t len, const callus_span_stops *st)
{
	size_t i = 0;

#ifdef __SSE2__
	if (callus_sse_span(s, len, st->sixteen, &i))
		return i;
#endif
	while (i + 8 <= len && !st->eight(callus_swar_load(s + i)))
		i += 8;
	while (i < len && !st->one((unsigned char)s[i]))
		i++;
	return i;
}

/* Printable ASCII (0x20 to 0x7e) runs to the first byte that is not. */
#ifdef __SSE2__
CALLUS_SPAN_INLINE __m128i callus_sse_unprintable(__m128i v)
{
	return _mm_or_si128(callus_sse_below_or_high(v), callus_sse_is(v, 0x7f));
}
#endif

CALLUS_SPAN_INLINE int callus_swar_unprintable(uint64_t w)
{
	return !callus_swar_all_printable(w);
}

CALLUS_SPAN_INLINE int callus_byte_unprintable(unsigned char c)
{
	return c < 0x20 || c >= 0x7f;
}

static const callus_span_stops callus_printable_stops = {
#ifdef __SSE2__
	callus_sse_unprintable,
#endif
	callus_swar_unprintable, callus_byte_unprintable,
};

/* A JSON string holds as they are all bytes but those below 0x20, '"'
 * and '\\' (bytes past ASCII are kept). */
#ifdef __SSE2__
CALLUS_SPAN_INLINE __m128i callus_sse_json_escaped(__m128i v)
{
	return _mm_or_si128(callus_sse_control(v),
			    _mm_or_si128(callus_sse_is(v, '"'), callus_sse_is(v, '\\')));
}
#endif

CALLUS_SPAN_INLINE int callus_swar_json_escaped(uint64_t w)
{
	return callus_swar_any_below(w, 0x20) || callus_swar_any_is(w, '"') ||
	       callus_swar_any_is(w, '\\');
}

CALLUS_SPAN_INLINE int callus_byte_json_escaped(unsigned char c)
{
	return c < 0x20 || c == '"' || c == '\\';
}

static const callus_span_stops callus_json_plain_stops = {
#ifdef __SSE2__
	callus_sse_json_escaped,
#endif
	callus_swar_json_escaped, callus_byte_json_escaped,
};

/* A JSON string's text reads as it is written where it is ASCII from 0x20
 * up and holds no '\\' (its '"' are escaped already). */
#ifdef __SSE2__
CALLUS_SPAN_INLINE __m128i callus_sse_json_unplain(__m128i v)
{
	return _mm_or_si128(callus_sse_below_or_high(v), callus_sse_is(v, '\\'));
}
#endif

CALLUS_SPAN_INLINE int callus_swar_json_unplain(uint64_t w)
{
	return callus_swar_any_high(w) || callus_swar_any_below(w, 0x20) ||
	       callus_swar_any_is(w, '\\');
}

CALLUS_SPAN_INLINE int callus_byte_json_unplain(unsigned char c)
{
	return c < 0x20 || c >= 0x80 || c == '\\';
}

static const callus_span_stops callus_json_ascii_stops = {
#ifdef __SSE2__
	callus_sse_json_unplain,
#endif
	callus_swar_json_unplain, callus_byte_json_unplain,
};

/* How many of s[0..len)'s first bytes are printable ASCII (0x20 to 0x7e). */
static inline size_t callus_swar_printable_len(const char *s, size_t len)
{
	return callus_span(s, len, &callus_printable_stops);
}

/* How many of s[0..len)'s first bytes a JSON string holds as they are. */
static inline size_t callus_json_plain_len(const char *s, size_t len)
{
	return callus_span(s, len, &callus_json_plain_stops);
}

/* How many of s[0..len)'s first bytes are a JSON string's text that reads
 * as it is written. */
static inline size_t callus_json_ascii_len(const char *s, size_t len)
{
	return callus_span(s, len, &callus_json_ascii_stops);
}

#endif
