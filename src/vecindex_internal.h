/*
 * vecindex_internal.h - what the vector file (vecindex.c) shares with its
 * sketch file (vecindex_sketch.c): the record layout, and the sketch that
 * lets a search skip the records that cannot reach its threshold.
 *
 * A vector file's record is { int64 id; float scale; int8 v[dim] }, padded
 * to a multiple of 8 bytes, after a header of VI_HEADER_SIZE bytes.
 *
 * The sketch file (the vector file's path + ".sketch") holds, for each
 * record in the same order, its VI_SKETCH_TOP heaviest components and the
 * squared length of the rest, so that Cauchy-Schwarz bounds the record's
 * score with any query from 40 bytes instead of dim + 12:
 *
 *   q.v = sum over the top of q_i v_i + sum over the rest of q_i v_i
 *      <= sum over the top of q_i v_i + |q outside the top| |v outside the top|
 *
 * in the integers of the quantized vectors, where the search computes its
 * scores.  The error vectors hash about seventy features into 256 signed
 * buckets and their eight heaviest hold most of their squared length, so
 * a query leaves most records under its threshold by this bound alone
 * (bench/match.sh: a search of 100,000 signatures three times faster).
 *
 * The sketch file is derived from the vector file and never trusted beyond
 * it: its header names the vector file it describes (device and inode),
 * a reader checks that and the ids of its first and last records against
 * the vector file, and uses only as many sketches as both files hold
 * whole; the records past them are scored in full.  Writers keep it in
 * step under the vector file's lock (and its own), so a crash costs the
 * pruning of the records it missed until the next append fills them in.
 */
#ifndef CALLUS_VECINDEX_INTERNAL_H
#define CALLUS_VECINDEX_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define VI_HEADER_SIZE 80u
#define VI_SKETCH_TOP 8

static inline size_t vi_record_size(size_t dim)
{
	return (8 + 4 + dim + 7) & ~(size_t)7;
}

/* One record's sketch, as the sketch file holds it (40 bytes, 8-aligned). */
typedef struct vi_sketch_rec {
	int64_t id;
	float scale;
	int32_t rest;                  /* sum of v_i^2 outside the top */
	uint16_t dim[VI_SKETCH_TOP];   /* the top's components */
	int8_t v[VI_SKETCH_TOP];
} vi_sketch_rec;

/* A sketch file mapped beside a vector file's mapping (count 0: none). */
typedef struct vi_sketch {
	const vi_sketch_rec *recs;
	size_t count;
	void *map;
	size_t maplen;
} vi_sketch;

/*
 * Map the sketch file of the vector file at path, mapped at vmap with
 * vcount records of dim (vst its stat): sk->count is how many of its
 * first records it describes, 0 when it is missing or does not describe
 * this file.  Never fails: without it, searches score every record.
 */
void vi_sketch_map(vi_sketch *sk, const char *path, const struct stat *vst,
		   const unsigned char *vmap, size_t vcount, size_t dim);
void vi_sketch_unmap(vi_sketch *sk);

/*
 * Make the sketch file of path describe every record of vfd, the vector
 * file open (and locked, or not yet renamed in) at path: the records it
 * lacks appended, or a new file when it describes another file.  Best
 * effort: a failure leaves searches scoring the records it lacks in full.
 */
void vi_sketch_sync(const char *path, int vfd, size_t dim);

/*
 * Replace path with a new file that fill(fd, arg) writes: a temporary file
 * beside it (0600), renamed over it; nothing left behind on failure.  0,
 * or -1 with errno set (fill's failure: -1, errno as it left it).
 */
int vi_replace(const char *path, int (*fill)(int fd, void *arg), void *arg);

/* Remove path's sketch file: 0, or -1 with errno set (ENOENT is 0). */
int vi_sketch_remove(const char *path);

/*
 * The integer dot product of two int8 vectors of n components, over 16
 * int32 lanes: that form is what gcc vectorizes at -O2 (its very-cheap
 * cost model leaves a one-accumulator loop scalar).  |a[i] * b[i]| <= 128
 * * 128 and n <= VI_DIM_MAX (65536), so no sum wraps.  The search's
 * dot product where there is no SSE2 (vecindex.c); here so that the unit
 * tests check it on machines that have it.
 */
static inline int32_t vi_dot_i8_lanes(const int8_t *a, const int8_t *b, size_t n)
{
	int32_t lane[16] = { 0 }, acc = 0;
	size_t i = 0;

	for (; i + 16 <= n; i += 16)
		for (size_t j = 0; j < 16; j++)
			lane[j] += (int32_t)a[i + j] * (int32_t)b[i + j];
	for (size_t j = 0; j < 16; j++)
		acc += lane[j];
	for (; i < n; i++)
		acc += (int32_t)a[i] * (int32_t)b[i];
	return acc;
}

/*
 * An upper bound of the score of the record sketched by s with the query
 * q8 (dim components, quantized with scale qscale, qn2 the sum of their
 * squares), as the search computes scores: a record whose bound is under
 * a threshold scores under it.
 */
static inline double vi_sketch_bound(const vi_sketch_rec *s, const int8_t *q8, size_t dim,
				     int32_t qn2, float qscale)
{
	int32_t part = 0, qtop = 0;
	double b;

	/* every record of a search comes here: unrolled (gcc does not
	 * expand a macro in the pragma, hence the assertion) */
	_Static_assert(VI_SKETCH_TOP == 8, "the unroll pragma names VI_SKETCH_TOP");
#pragma GCC unroll 8
	for (int t = 0; t < VI_SKETCH_TOP; t++) {
		unsigned d = s->dim[t];
		int32_t q;

		if (d >= dim)
			return 1e30; /* damaged: no bound */
		q = q8[d];
		part += q * s->v[t];
		qtop += q * q;
	}
	if (s->rest < 0 || qn2 < qtop)
		return 1e30;
	b = ((double)part + sqrt((double)(qn2 - qtop) * (double)s->rest)) * (double)s->scale *
	    (double)qscale;
	/* the search multiplies the exact integer dot product by the two
	 * scales in float, each product rounded by at most 2^-24 of it; the
	 * bound's own rounding (a few 2^-53 of the terms, which may cancel)
	 * is under the 1e-9 */
	return b + fabs(b) * 1e-6 + 1e-9;
}

#endif
