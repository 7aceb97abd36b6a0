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
 * length of the rest, so that Cauchy-Schwarz bounds the record's score
 * with any query from 40 bytes instead of dim + 12:
 *
 *   q.v = sum over the top of q_i v_i + sum over the rest of q_i v_i
 *      <= sum over the top of q_i v_i + |q outside the top| |v outside the top|
 *      <= sum over the top of q_i v_i + |q| |v outside the top|
 *
 * in the integers of the quantized vectors, where the search computes its
 * scores.  The error vectors hash about seventy features into 256 signed
 * buckets and their eight heaviest hold most of their squared length, so
 * a query leaves nearly every record under its threshold by the last,
 * cheap bound alone (eight products and a few float operations a record,
 * even at 0.80, the lowest threshold a recording searches with), and the
 * records it lets
 * through by the tighter one (a square root each), before any is read
 * whole: a record read whole is a page of the vector file touched, which
 * costs more than the sketches of a thousand records.
 *
 * The sketch file is derived from the vector file and never trusted beyond
 * it: its header names the vector file it describes (device and inode),
 * a reader checks that and the ids of its first, middle and last records
 * against the vector file, and uses only as many sketches as both files
 * hold whole; the records past them are scored in full.  Writers keep it
 * in step under the vector file's lock (and its own), so a crash costs the
 * pruning of the records it missed until the next append fills them in;
 * a reader that finds the file without a sketch (a copied store: another
 * inode) makes it when no writer holds the lock.
 */
#ifndef CALLUS_VECINDEX_INTERNAL_H
#define CALLUS_VECINDEX_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define VI_HEADER_SIZE 80u
#define VI_SKETCH_TOP 8
/* Sketches a search reads per pread (vi_sketch_read), into a buffer on its
 * stack: 16 KB, which stays in the processor's cache between reads. */
#define VI_SKETCH_READ 400u

static inline size_t vi_record_size(size_t dim)
{
	return (8 + 4 + dim + 7) & ~(size_t)7;
}

/*
 * A file derived from a vector file (its sketches, its postings): the
 * vector file's path + suffix, a header of VI_DERIVED_HEADER bytes, then
 * units of a fixed size.  The header (vi_derived_init):
 *
 *   char magic[8]; uint32 version; uint32 dim; uint32 top; uint32 extra;
 *   uint64 dev; uint64 ino
 *
 * dev and ino are the vector file's: a rewrite renames a new vector file
 * in, whose derived files are renamed in first, so a reader between the
 * renames finds them naming another file and uses none.  Units are only
 * appended (a reader counts whole ones), and a file that names another
 * vector file, or holds more units than it should, is replaced by rename,
 * never cut below what a reader may be reading.
 */
#define VI_DERIVED_HEADER 40u

typedef struct vi_derived {
	const char *suffix;            /* ".sketch", ".post" */
	unsigned char header[VI_DERIVED_HEADER];
	size_t unit;                   /* bytes a unit */
} vi_derived;

/* Write units [from, to) to fd (at its end); 0 or -1 (the units written
 * whole before the failure are kept). */
typedef int (*vi_derived_fill)(int fd, size_t from, size_t to, void *arg);

void vi_derived_init(vi_derived *d, const char *suffix, const char magic[8], uint32_t version,
		     size_t dim, uint32_t extra, const struct stat *vst, size_t unit);

/* The derived file of path open for reading, its whole units in *units:
 * -1 when it is missing, not a regular file, or its header is not d's. */
int vi_derived_open(const vi_derived *d, const char *path, size_t *units);

/*
 * Make the derived file of path hold `want` units: those it lacks
 * appended by fill, or a new file (the header, then all of them) when it
 * is missing, names another file or holds more.  Takes the file's own
 * lock; the caller holds the vector file's.  Best effort: the file open
 * (readable) on what it holds, *units of them, or -1.
 */
int vi_derived_sync(const vi_derived *d, const char *path, size_t want, vi_derived_fill fill,
		    void *arg, size_t *units);

/*
 * Cut fd, a file of a header of `header` bytes then units of `unit` bytes
 * (the vector file's records, a derived file's units), of size bytes (-1:
 * unknown, asked of fstat), to its whole units: a partial last one (a
 * crash's, a failed write's) goes, never a whole one, which a reader may
 * have mapped; a file shorter than its header, no file a reader maps, is
 * emptied.  The size it has then, or -1 with errno set.
 */
off_t vi_cut_partial(int fd, off_t size, size_t header, size_t unit);

/* Remove path + suffix: 0, or -1 with errno set (ENOENT is 0). */
int vi_derived_remove(const char *path, const char *suffix);

/* One record's sketch, as the sketch file holds it (40 bytes, 8-aligned). */
typedef struct vi_sketch_rec {
	int64_t id;
	float scale;
	float rest;                    /* |v outside the top|, rounded up */
	uint16_t dim[VI_SKETCH_TOP];   /* the top's components */
	int8_t v[VI_SKETCH_TOP];
} vi_sketch_rec;

/* A sketch file open beside a vector file's mapping (count 0: none). */
typedef struct vi_sketch {
	int fd;                        /* -1 when none */
	size_t count;
} vi_sketch;

/*
 * Open the sketch file of the vector file at path, open as vfd with
 * vcount records of dim (vst its stat): sk->count is how many of its
 * first records it describes, 0 when it is missing or does not describe
 * this file.  Never fails: without it, searches score every record.
 *
 * Read, not mapped: a search reads every sketch once, and a mapping made
 * for one search costs a page-table entry a 4 KB of them, which on the
 * virtual machines agents run in (shadow page tables) cost more than the
 * copy: at 68,000 signatures (2.7 MB of sketches) a process's first
 * search took 1.4 to 3.5 ms mapped in, 1.0 read 16 KB at a time.
 */
void vi_sketch_open(vi_sketch *sk, const char *path, const struct stat *vst, int vfd,
		    size_t vcount, size_t dim);
void vi_sketch_close(vi_sketch *sk);

/*
 * Up to n sketches from record from on (not past sk->count) into out:
 * how many were read whole, 0 at the end or on a failure to read (the
 * search then scores the records left in full).
 */
size_t vi_sketch_read(const vi_sketch *sk, size_t from, vi_sketch_rec *out, size_t n);

/* The sketch of one record (its bytes as the vector file holds them), as
 * the sketch file's writers make it. */
void vi_sketch_of(vi_sketch_rec *s, const unsigned char *rec, size_t dim);

/* Of sk's sketches, how many differ from want[0..sk->count) (what the
 * vector file's records make: vi_sketch_of); one that cannot be read
 * counts as differing.  What callus doctor asks: a sketch damaged in
 * place can bound its record under a score it reaches, and a search then
 * skips it. */
size_t vi_sketch_damaged(const vi_sketch *sk, const vi_sketch_rec *want);

/*
 * Make the sketch file of path describe every record of vfd, the vector
 * file open (and locked, or not yet renamed in) at path: the records it
 * lacks appended, or a new file when it describes another file; then the
 * postings file its whole blocks (vi_postings_sync).  Best effort: a
 * failure leaves searches scoring the records it lacks in full.
 */
void vi_sketch_sync(const char *path, int vfd, size_t dim);

/*
 * The postings file (the vector file's path + ".post", vecindex_postings.c):
 * the same sketches turned around, VI_POST_BLOCK records to a block, so
 * that a search adds each of its components into the records that weigh
 * it instead of fetching, record by record, its components at the
 * record's top (the query's zeros, about three quarters of them, then
 * cost nothing).  A block, for vectors of dim:
 *
 *   int64 first_id, last_id     its first and last records' ids
 *   uint32 flags                VI_POST_WHOLE: a sketch of the block names a
 *                               component past dim (damaged); its records
 *                               are bounded from the sketch file instead
 *   uint32 npost                VI_SKETCH_TOP * VI_POST_BLOCK
 *   float scale[B], rest[B]     each record's, as its sketch has them
 *   uint16 start[dim + 1]       where component d's postings begin, padded
 *                               to 8 bytes
 *   uint16 rec[npost]           the record (in the block) of each posting
 *   int8 val[npost]             and its weight there
 *
 * A record's postings are its sketch's components, fillers of weight zero
 * included (so every block has the same size), so the sum a search adds
 * for a record is exactly what vi_sketch_part makes of its sketch, and a
 * block bounds its records as their sketches do.  Only whole blocks of
 * sketches the sketch file holds are written; the records past them are
 * bounded from their sketches.  Derived from the sketch file and kept in
 * step by the same writers, under the same lock.
 */
#define VI_POST_BLOCK 512u
#define VI_POST_WHOLE 1u
/* Wider vectors (an external model's) keep no postings: a block's start
 * table would outweigh its postings. */
#define VI_POST_DIM_MAX 4096u

typedef struct vi_postings {
	/* the file's header and its first `blocks` blocks, mapped (NULL:
	 * none): a search reads a block where it lies, where a pread copied
	 * its 16 KB, twenty blocks a search of the noted file at 100,000
	 * recordings.  Whole blocks only: a writer cuts a crash's partial
	 * block, or a failed append's, and never a whole one
	 * (vi_derived_sync), and replaces a file by rename, so the mapping
	 * never reaches past the file's end (vecindex.c). */
	const unsigned char *map;
	size_t maplen;
	size_t blocks;                 /* whole blocks a search may use */
	size_t dim;
} vi_postings;

/* One block, as read into a buffer of vi_post_block_size(dim) bytes. */
typedef struct vi_post_block {
	int64_t first_id, last_id;
	uint32_t flags;
	size_t npost;
	const float *scale, *rest;
	const uint16_t *start, *rec;
	const int8_t *val;
} vi_post_block;

size_t vi_post_block_size(size_t dim);

/* The whole blocks the postings of `sketched` sketches of dim should hold. */
static inline size_t vi_postings_wanted(size_t sketched, size_t dim)
{
	return dim <= VI_POST_DIM_MAX ? sketched / VI_POST_BLOCK : 0;
}

/*
 * Open the postings of the vector file at path (vst its stat, vfd open on
 * it), for its first `sketched` records (those the sketch file describes):
 * po->blocks is how many whole blocks a search may take, 0 when the file
 * is missing, describes another file or another dimension.  Never fails.
 */
void vi_postings_open(vi_postings *po, const char *path, const struct stat *vst, int vfd,
		      size_t sketched, size_t dim);
void vi_postings_close(vi_postings *po);

/*
 * Block b's parts pointed at in *out (in po's mapping): 0, or -1 when
 * there is no such block (the search then bounds its records from their
 * sketches).
 */
int vi_postings_read(const vi_postings *po, size_t b, vi_post_block *out);

/* Of po's blocks, how many differ from what the sketches want (of the
 * vector file's records, po->blocks * VI_POST_BLOCK of them) make: as
 * vi_sketch_damaged. */
size_t vi_postings_damaged(const vi_postings *po, const vi_sketch_rec *want);

/*
 * Make the postings file of path describe every whole block of the
 * sketches sk (those of the vector file, vst its stat, locked by the
 * caller, of dim): the blocks it lacks appended, or a new file.  Best
 * effort, as the sketch's.
 */
void vi_postings_sync(const char *path, const struct stat *vst, const vi_sketch *sk, size_t dim);

/* Remove path's postings file: 0, or -1 with errno set (ENOENT is 0). */
int vi_postings_remove(const char *path);

/*
 * The components the query table[0..dim) weighs (not zero), ascending,
 * into weighed[0..dim): how many.  A built-in query weighs about 76 of
 * its 256 (bench/noted_clusters), and a search visits a block's postings
 * only for those: listed once a search, where each of its blocks (twenty
 * of the noted signatures' file at 100,000 recordings) asked every
 * component again (docs/scale-history.md, the eighty-first pass).
 */
static inline size_t vi_query_weighed(const int8_t *table, size_t dim, uint16_t *weighed)
{
	size_t n = 0;

	for (size_t d = 0; d < dim; d++)
		if (table[d])
			weighed[n++] = (uint16_t)d;
	return n;
}

/*
 * Each record's sum over its sketch's top of the query's component times
 * its own, into part[0..VI_POST_BLOCK): what vi_sketch_part gives for the
 * record's sketch.  Only the postings of the components the query weighs
 * are visited, weighed[0..nweighed) as vi_query_weighed lists them (each
 * under the block's dimension); a posting's record is masked into the
 * block, and a start past the postings clipped, so that a damaged block
 * reads and writes nothing outside it.
 */
static inline void vi_post_parts(const vi_post_block *b, const int8_t *table,
				 const uint16_t *weighed, size_t nweighed,
				 int32_t part[VI_POST_BLOCK])
{
	_Static_assert((VI_POST_BLOCK & (VI_POST_BLOCK - 1)) == 0,
		       "a posting's record is masked into the block");
	memset(part, 0, VI_POST_BLOCK * sizeof(*part));
	for (size_t w = 0; w < nweighed; w++) {
		size_t d = weighed[w];
		int32_t q = table[d];
		size_t i = b->start[d], end = b->start[d + 1];

		if (end > b->npost)
			end = b->npost;
		/* four at a time: a list is sixteen postings on average */
		for (; i + 4 <= end; i += 4) {
			part[b->rec[i] & (VI_POST_BLOCK - 1)] += q * b->val[i];
			part[b->rec[i + 1] & (VI_POST_BLOCK - 1)] += q * b->val[i + 1];
			part[b->rec[i + 2] & (VI_POST_BLOCK - 1)] += q * b->val[i + 2];
			part[b->rec[i + 3] & (VI_POST_BLOCK - 1)] += q * b->val[i + 3];
		}
		for (; i < end; i++)
			part[b->rec[i] & (VI_POST_BLOCK - 1)] += q * b->val[i];
	}
}

/*
 * Replace path with a new file that fill(fd, arg) writes: a temporary file
 * beside it (0600), renamed over it; nothing left behind on failure.  0,
 * or -1 with errno set (fill's failure: -1, errno as it left it).
 */
int vi_replace(const char *path, int (*fill)(int fd, void *arg), void *arg);

/* Remove path's sketch file: 0, or -1 with errno set (ENOENT is 0). */
int vi_sketch_remove(const char *path);

/* The integer dot product of two int8 vectors of n components: with SSE2
 * where there is (vecindex.c), else vi_dot_i8_lanes. */
int32_t vi_dot_i8(const int8_t *a, const int8_t *b, size_t n);

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
 * A query as the sketch's bounds read it: its int8 components in a table
 * of a power of two entries (zero past dim), mask + 1 of them, so that
 * one test of the components a sketch names keeps its reads inside; the
 * sum of their squares, and its root (|q|).
 */
typedef struct vi_query {
	const int8_t *table;
	unsigned mask;
	int32_t n2;
	double norm;
} vi_query;

/*
 * The sum over the record's top of the query's component times the
 * record's, into *part: 0, or -1 when the sketch names a component past
 * the query's table (damaged).  One element at a time: the form for
 * machines without SSE2, and the reference the unit tests hold
 * vi_sketch_part to.
 */
static inline int vi_sketch_part_scalar(const vi_sketch_rec *s, const vi_query *q, int32_t *part)
{
	int32_t sum = 0;
	unsigned any = 0;

	/* unrolled (gcc does not expand a macro in the pragma, hence the
	 * assertion) */
	_Static_assert(VI_SKETCH_TOP == 8, "the unroll pragma names VI_SKETCH_TOP");
#pragma GCC unroll 8
	for (int t = 0; t < VI_SKETCH_TOP; t++)
		any |= s->dim[t];
	if (any > q->mask)
		return -1;
#pragma GCC unroll 8
	for (int t = 0; t < VI_SKETCH_TOP; t++)
		sum += q->table[s->dim[t]] * s->v[t];
	*part = sum;
	return 0;
}

#ifdef __SSE2__
/*
 * The same with SSE2, for every record of every search: the eight
 * components tested against the table in one comparison, the query's
 * eight gathered into 16-bit lanes and multiplied with the record's in
 * one pmaddwd (|q_i v_i| <= 127 * 128: a pair's sum fits its 32-bit
 * lane).  gcc -O2 leaves the scalar form scalar; at 100,000 recordings a
 * failing hook's searches run this 78,000 times, in 3.6 million
 * instructions where the scalar form took 4.2 (callgrind).
 */
static inline int vi_sketch_part(const vi_sketch_rec *s, const vi_query *q, int32_t *part)
{
	const __m128i zero = _mm_setzero_si128();
	__m128i d = _mm_loadu_si128((const __m128i *)(const void *)s->dim);
	__m128i past = _mm_and_si128(d, _mm_set1_epi16((short)(uint16_t)~q->mask));
	__m128i v = _mm_loadl_epi64((const __m128i *)(const void *)s->v);
	__m128i qv = zero, sum;

	if (_mm_movemask_epi8(_mm_cmpeq_epi16(past, zero)) != 0xffff)
		return -1;
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 0)], 0);
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 1)], 1);
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 2)], 2);
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 3)], 3);
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 4)], 4);
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 5)], 5);
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 6)], 6);
	qv = _mm_insert_epi16(qv, q->table[_mm_extract_epi16(d, 7)], 7);
	/* each byte twice, shifted back: the record's components
	 * sign-extended to 16 bits */
	v = _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8);
	sum = _mm_madd_epi16(qv, v);
	sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(1, 0, 3, 2)));
	sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, _MM_SHUFFLE(2, 3, 0, 1)));
	*part = _mm_cvtsi128_si32(sum);
	return 0;
}
#else
static inline int vi_sketch_part(const vi_sketch_rec *s, const vi_query *q, int32_t *part)
{
	return vi_sketch_part_scalar(s, q, part);
}
#endif

/*
 * Up to VI_GROUP queries searched side by side (callus_vecindex_search_many):
 * row d of the group's table (16 bytes) holds each query's component d, zero
 * in the lanes past the group, so that a record's top is eight rows read,
 * each multiplied with every query of the group at once, where one query at
 * a time gathers eight components a query.
 */
#define VI_GROUP 16

/*
 * The sum over the record's top of each group query's component times the
 * record's, into part[0..VI_GROUP): what vi_sketch_part gives each query
 * alone.  0, or -1 when the sketch names a component past the tables of
 * mask + 1 rows (damaged).  The form for machines without SSE2, and the
 * reference of vi_sketch_parts.
 */
static inline int vi_sketch_parts_scalar(const vi_sketch_rec *s, const int8_t *rows,
					 unsigned mask, int32_t part[VI_GROUP])
{
	unsigned any = 0;

	for (int t = 0; t < VI_SKETCH_TOP; t++)
		any |= s->dim[t];
	if (any > mask)
		return -1;
	for (int j = 0; j < VI_GROUP; j++)
		part[j] = 0;
	for (int t = 0; t < VI_SKETCH_TOP; t++)
		for (int j = 0; j < VI_GROUP; j++)
			part[j] += rows[(size_t)s->dim[t] * VI_GROUP + (size_t)j] * s->v[t];
	return 0;
}

#ifdef __SSE2__
/*
 * The same with SSE2: two components of the top at a time, their rows
 * sign-extended to 16 bits and interleaved, so that one pmaddwd adds both
 * products of four queries into 32-bit lanes (exact: |q v| <= 127 * 128).
 */
static inline int vi_sketch_parts(const vi_sketch_rec *s, const int8_t *rows, unsigned mask,
				  int32_t part[VI_GROUP])
{
	const __m128i zero = _mm_setzero_si128();
	__m128i d = _mm_loadu_si128((const __m128i *)(const void *)s->dim);
	__m128i past = _mm_and_si128(d, _mm_set1_epi16((short)(uint16_t)~mask));
	__m128i acc[4] = { zero, zero, zero, zero };

	_Static_assert(VI_SKETCH_TOP % 2 == 0, "the top is taken two components at a time");
	if (_mm_movemask_epi8(_mm_cmpeq_epi16(past, zero)) != 0xffff)
		return -1;
	for (int t = 0; t < VI_SKETCH_TOP; t += 2) {
		__m128i a = _mm_loadu_si128(
			(const __m128i *)(const void *)(rows + (size_t)s->dim[t] * VI_GROUP));
		__m128i b = _mm_loadu_si128(
			(const __m128i *)(const void *)(rows + (size_t)s->dim[t + 1] * VI_GROUP));
		/* each byte twice, shifted back: sign-extended to 16 bits */
		__m128i alo = _mm_srai_epi16(_mm_unpacklo_epi8(a, a), 8);
		__m128i ahi = _mm_srai_epi16(_mm_unpackhi_epi8(a, a), 8);
		__m128i blo = _mm_srai_epi16(_mm_unpacklo_epi8(b, b), 8);
		__m128i bhi = _mm_srai_epi16(_mm_unpackhi_epi8(b, b), 8);
		/* (v_t, v_t+1) in every pair of 16-bit lanes */
		__m128i vv = _mm_set1_epi32((int)(((uint32_t)(uint16_t)(int16_t)s->v[t + 1] << 16) |
						  (uint16_t)(int16_t)s->v[t]));

		acc[0] = _mm_add_epi32(acc[0], _mm_madd_epi16(_mm_unpacklo_epi16(alo, blo), vv));
		acc[1] = _mm_add_epi32(acc[1], _mm_madd_epi16(_mm_unpackhi_epi16(alo, blo), vv));
		acc[2] = _mm_add_epi32(acc[2], _mm_madd_epi16(_mm_unpacklo_epi16(ahi, bhi), vv));
		acc[3] = _mm_add_epi32(acc[3], _mm_madd_epi16(_mm_unpackhi_epi16(ahi, bhi), vv));
	}
	for (int g = 0; g < 4; g++)
		_mm_storeu_si128((__m128i *)(void *)(part + 4 * g), acc[g]);
	return 0;
}
#else
static inline int vi_sketch_parts(const vi_sketch_rec *s, const int8_t *rows, unsigned mask,
				  int32_t part[VI_GROUP])
{
	return vi_sketch_parts_scalar(s, rows, mask, part);
}
#endif

/*
 * An upper bound of the integer dot product of the record sketched by s
 * with the query q, times the record's scale: the score the search
 * computes, but for the query's scale (vi_bound_floor makes the
 * threshold it is compared with).  Cheap, for every record: |q| where
 * vi_sketch_bound_tight has |q outside the record's top|.  A sketch
 * naming a component past the table (damaged) bounds nothing.
 * vi_sketch_bound_of is the same from the sum over the top (part), for
 * the queries searched side by side.
 */
static inline double vi_bound_of(int32_t part, float rest, float scale, const vi_query *q)
{
	return ((double)part + q->norm * fabs((double)rest)) * (double)scale;
}

static inline double vi_sketch_bound_of(const vi_sketch_rec *s, const vi_query *q, int32_t part)
{
	return vi_bound_of(part, s->rest, s->scale, q);
}

static inline double vi_sketch_bound(const vi_sketch_rec *s, const vi_query *q)
{
	int32_t part;

	if (vi_sketch_part(s, q, &part) < 0)
		return HUGE_VAL;
	return vi_sketch_bound_of(s, q, part);
}

/*
 * The same bound, tighter, for the records vi_sketch_bound (which gave
 * bound) lets through: a record read whole costs a page of the vector
 * file where its sketch costs 40 bytes.  It takes off what |q| exceeds
 * the query outside the top by: what the query's components there leave
 * of |q| (those the record weighs nothing at, filler included, are left
 * outside: the bound is then looser, never wrong).
 */
static inline double vi_sketch_bound_tight(const vi_sketch_rec *s, const vi_query *q,
					   double bound)
{
	int32_t top = 0;

	if (bound == HUGE_VAL)
		return bound; /* damaged: its components are not to be read */
	for (int t = 0; t < VI_SKETCH_TOP; t++) {
		int32_t x = q->table[s->dim[t]];

		top += s->v[t] ? x * x : 0;
	}
	return bound - (q->norm - sqrt((double)(q->n2 > top ? q->n2 - top : 0))) *
			       fabs((double)s->rest) * (double)s->scale;
}

/*
 * What vi_sketch_bound must reach for the record to score at least lo
 * with a query of scale qscale (> 0).  The search multiplies the exact
 * integer dot product by the two scales in float, each product rounded
 * by at most 2^-24 of it, and the bound's own rounding is a few 2^-53 of
 * its terms: the margin, 4e-6 of |lo| + 1 and 1e-8, is above both for
 * any bound near lo, and a bound far under it is under it anyway.
 */
static inline double vi_bound_floor(double lo, double qscale)
{
	return (lo - 4e-6 * (fabs(lo) + 1) - 1e-8) / qscale;
}

/*
 * The records of block b whose bound (vi_bound_of, from part as
 * vi_post_parts made it) is not under lo, into out (ascending): how many.
 * A bound that is not a number is not under lo, as a search reads it.
 * One record at a time: the form for machines without SSE2, and the
 * reference of vi_post_reach.
 */
static inline size_t vi_post_reach_scalar(const int32_t part[VI_POST_BLOCK],
					  const vi_post_block *b, const vi_query *q, double lo,
					  uint16_t out[VI_POST_BLOCK])
{
	size_t n = 0;

	for (size_t u = 0; u < VI_POST_BLOCK; u++)
		if (!(vi_bound_of(part[u], b->rest[u], b->scale[u], q) < lo))
			out[n++] = (uint16_t)u;
	return n;
}

#ifdef __SSE2__
/*
 * The same with SSE2, two records at a time, in the same double operations
 * in the same order (the same bounds to the bit); most records of a
 * search are under lo, and a pair is let go in one test.
 */
static inline size_t vi_post_reach(const int32_t part[VI_POST_BLOCK], const vi_post_block *b,
				   const vi_query *q, double lo, uint16_t out[VI_POST_BLOCK])
{
	const __m128d norm = _mm_set1_pd(q->norm), floor = _mm_set1_pd(lo);
	const __m128d magnitude = _mm_castsi128_pd(_mm_set1_epi64x(INT64_MAX));
	size_t n = 0;

	_Static_assert(VI_POST_BLOCK % 2 == 0, "the records go by pairs");
	for (size_t u = 0; u < VI_POST_BLOCK; u += 2) {
		__m128d p = _mm_cvtepi32_pd(_mm_loadl_epi64((const __m128i *)(const void *)(part + u)));
		__m128d rest = _mm_and_pd(
			_mm_cvtps_pd(_mm_castsi128_ps(
				_mm_loadl_epi64((const __m128i *)(const void *)(b->rest + u)))),
			magnitude);
		__m128d scale = _mm_cvtps_pd(_mm_castsi128_ps(
			_mm_loadl_epi64((const __m128i *)(const void *)(b->scale + u))));
		__m128d bound = _mm_mul_pd(_mm_add_pd(p, _mm_mul_pd(norm, rest)), scale);
		int m = _mm_movemask_pd(_mm_cmpnlt_pd(bound, floor));

		if (!m)
			continue;
		if (m & 1)
			out[n++] = (uint16_t)u;
		if (m & 2)
			out[n++] = (uint16_t)(u + 1);
	}
	return n;
}
#else
static inline size_t vi_post_reach(const int32_t part[VI_POST_BLOCK], const vi_post_block *b,
				   const vi_query *q, double lo, uint16_t out[VI_POST_BLOCK])
{
	return vi_post_reach_scalar(part, b, q, lo, out);
}
#endif

#endif
