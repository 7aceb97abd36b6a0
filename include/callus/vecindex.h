/*
 * vecindex.h - the vectors of the stored error signatures, in one
 * contiguous file scanned brute force (DESIGN §5, §9: matching against
 * 100,000 signatures under 20 ms).
 *
 * The store (SQLite) keeps every vector as the truth; this file is derived
 * from it, one per embedding model (.callus/vectors-<model>.bin), so that a
 * hook can map it and score every signature in one pass over contiguous
 * memory instead of reading rows.  Vectors are L2-normalized floats
 * quantized to int8 (one scale per vector), so 100,000 signatures of 256
 * dimensions are 26 MB and a scan is a tight integer loop the compiler
 * vectorizes.
 *
 * File: a fixed header (magic, format version, dimension, model name),
 * then records of { int64 id; float scale; int8 v[dim] } padded to a
 * multiple of 8 bytes.  Writers append whole records under an exclusive
 * lock (flock) and readers ignore a partial last record, so a crash or a
 * concurrent writer never shows a reader half a vector.  An id may appear
 * more than once (two writers raced): searches report it once.  A file
 * whose header does not match (other model, other dimension, damaged) is
 * treated as empty and rewritten by the next callus_vecindex_rewrite().
 *
 * Beside it, path + ".sketch" holds each record's heaviest components, so
 * that a search reads in full only the records that can reach its
 * threshold (an exact bound: the same results as reading them all), and
 * path + ".post" the same by component, a block of records at a time, so
 * that a search bounds a block's records from the components it weighs.
 */
#ifndef CALLUS_VECINDEX_H
#define CALLUS_VECINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "callus/common.h"

#define CALLUS_VECINDEX_MODEL_MAX 64  /* bytes of model name kept in the header */

typedef struct callus_vecindex callus_vecindex;

/*
 * Map the index at path read-only.  A missing file, or one for another
 * model or dimension, opens as an empty index (*stale set to 1 when the
 * file exists but does not match; stale may be NULL).  The caller closes
 * *out.
 */
int callus_vecindex_open(callus_vecindex **out, const char *path, const char *model, size_t dim,
		       int *stale, callus_error *err);
void callus_vecindex_close(callus_vecindex *vi); /* accepts NULL */

/* The same, writing nothing: a file's sketch and postings, when enough of
 * them are missing (a copied store, a file removed), are not made, and a
 * search of it reads every record whole.  What callus doctor opens without
 * --fix. */
int callus_vecindex_open_as_is(callus_vecindex **out, const char *path, const char *model,
			       size_t dim, int *stale, callus_error *err);

/* Whether enough of vi's sketch and postings are missing that
 * callus_vecindex_open would make them (0 for a NULL or empty vi). */
int callus_vecindex_derived_absent(const callus_vecindex *vi);

/* Records in the index (duplicates included). */
size_t callus_vecindex_count(const callus_vecindex *vi);

/* Record i of vi (i < callus_vecindex_count(vi)) as the file holds it: its
 * id is returned, its scale written to *scale and its dim int8 components
 * to v.  What a check of the file against the store reads. */
int64_t callus_vecindex_record(const callus_vecindex *vi, size_t i, float *scale, int8_t *v);

/* How many of the sketches and of the postings' blocks beside vi (those a
 * search uses) differ from what vi's records make: a sketch or block
 * damaged in place bounds its records under a score they reach, and a
 * search skips them.  Reads them all: for callus doctor. */
size_t callus_vecindex_derived_damaged(const callus_vecindex *vi);

/* Whether the file at path is still what vi maps: the same file (device,
 * inode) with no byte more, or still missing when vi found none.  One stat,
 * where opening it again maps it and checks its sketch and postings: what
 * a caller keeping vi across searches asks before each (a search must see
 * the records appended since).  0 for a NULL vi. */
int callus_vecindex_unchanged(const callus_vecindex *vi, const char *path);

/* The records callus_vecindex_open would find in the file at path (0 for
 * a missing, unreadable or stale one), without mapping it or opening its
 * sketch and postings: what a caller that only counts needs. */
size_t callus_vecindex_file_count(const char *path, const char *model, size_t dim);

/*
 * Where a search of the newest n records starts (callus_vecindex_search_*
 * from it): the first of them, 0 when vi holds no more than n.  Records
 * are appended, so the newest are the vectors indexed last.  (A search
 * from inside a block of the postings bounds that block's records by their
 * sketches, as it does past the postings.)
 */
size_t callus_vecindex_newest(const callus_vecindex *vi, size_t n);

/*
 * Append n vectors (n * dim floats, each L2-normalized) with their ids,
 * creating the file (0600) with its header when missing or stale.  An
 * append that fails part way keeps the records it wrote whole (a reader
 * may have mapped them), cutting only a partial one: the caller indexing
 * them again later appends them twice, and a search names an id once.
 */
int callus_vecindex_append(const char *path, const char *model, size_t dim, const int64_t *ids,
			 const float *vecs, size_t n, callus_error *err);

/* Replace the file with exactly these vectors (atomic rename). */
int callus_vecindex_rewrite(const char *path, const char *model, size_t dim, const int64_t *ids,
			  const float *vecs, size_t n, callus_error *err);

/* The next vector of a rewrite: its id in *id, its dim floats (each
 * L2-normalized) in v.  1 for a vector, 0 at the end, or a negative
 * CALLUS_E* code with err set. */
typedef int (*callus_vecindex_next)(void *arg, int64_t *id, float *v, callus_error *err);

/* The same with the vectors given one at a time by next: a chunk of
 * records is all it holds, whatever their number and dimension (an
 * external model's 3,072 floats a vector, from the store's rows). */
int callus_vecindex_rewrite_each(const char *path, const char *model, size_t dim,
			       callus_vecindex_next next, void *arg, callus_error *err);

/*
 * Remove the file at path and its sketch file beside it (which lets a
 * search skip the records that cannot reach its threshold, derived from
 * the file and kept by the writers above: src/vecindex_internal.h).  0,
 * or -1 with errno set when path exists and could not be removed.
 */
int callus_vecindex_remove(const char *path);

/*
 * The temporary files a rewrite left in dir when its process was cut
 * before the rename (PATH.tmp.XXXXXX, as large as the file: the hook's
 * deadline exits without cleaning up), removed once older than stale_s
 * seconds: a rewrite still writing one is seconds old.  How many went
 * (with dry_run, how many would go, none removed).
 */
size_t callus_vecindex_remove_stale_temps(const char *dir, long stale_s, int dry_run);

/* The age past which callus gc and callus doctor --fix take such a file
 * for a cut rewrite's: an hour. */
#define CALLUS_VECINDEX_TEMP_STALE_S 3600

/*
 * A vector packed dense: the float scale then dim int8 components,
 * quantized as in the file, CALLUS_VECINDEX_PACKED(dim) bytes (what the
 * store kept from schema 9 to 17: small enough to stay on its b-tree page).
 * pack writes them to out and returns the size.
 */
#define CALLUS_VECINDEX_PACKED(dim) (sizeof(float) + (dim))
size_t callus_vecindex_pack(uint8_t *out, const float *v, size_t dim);

/*
 * The forms the store keeps (schemas 18 and 21), for a vector of at most
 * CALLUS_VECINDEX_SPARSE_DIM_MAX dimensions, the smallest of:
 *   pairs  the float scale, then an (index, int8) byte pair for each
 *          non-zero component, indexes rising (fewer than dim / 2 of them):
 *          4 + 2k bytes, an even length below the dense one;
 *   mask   (dim even) the scale, a bitmap of the non-zero components (bit
 *          i % 8 of byte i / 8), their int8 values in order, and a zero
 *          byte when that length is even: 4 + dim / 8 + k or one more, an
 *          odd length;
 *   dense  callus_vecindex_pack's: 4 + dim bytes, even where the mask
 *          form is used.
 * The built-in vectors hash about 70 features into 256 dimensions: 112.5
 * bytes in the mask form, 156 as pairs, 260 dense (the averages of the
 * 68,447 vectors of bench/scale.sh's 100,000-recording store).  The values
 * are the same bytes in every form: a vector read back from any is the same.
 *
 * pack_store quantizes v into out (CALLUS_VECINDEX_PACKED(dim) bytes) and
 * returns the length used; pack_sparse rewrites a dense packed vector
 * (packed may be out; out as large) in the smallest form, the scale's
 * bytes and the values unchanged.  unpack reads every form (x ~ q * scale,
 * zero where a sparse one has none) and gives CALLUS_EINVAL for anything
 * else: a length of no form, an index out of range or not rising, a bit
 * past dim, a zero value or pad byte out of place.
 */
#define CALLUS_VECINDEX_SPARSE_DIM_MAX 256
size_t callus_vecindex_pack_store(uint8_t *out, const float *v, size_t dim);
size_t callus_vecindex_pack_sparse(uint8_t *out, const uint8_t *packed, size_t dim);
int callus_vecindex_unpack(float *v, size_t dim, const void *blob, size_t len);

typedef struct callus_vecmatch {
	int64_t id;
	float score;   /* cosine with the query, from the quantized vector */
} callus_vecmatch;

/*
 * The k best records with a cosine of at least min with q (dim floats,
 * L2-normalized), best first, each id once.  Returns how many were written
 * to out (at most k).  The file's sketch of each record (which bounds its
 * score) is read in chunks; the records it cannot rule out are read from
 * the mapping.  No allocation beyond what k and dims over 4,096 need.
 */
size_t callus_vecindex_search(const callus_vecindex *vi, const float *q, float min,
			    callus_vecmatch *out, size_t k);

/*
 * The same search continued: out[0..n) is what it found in the records
 * before from (a search of them with the same q, min and k), and the
 * records from `from` on are scanned into it.  A search is one insertion
 * per record in the file's order, so continuing it over records appended
 * since gives what a search of the whole file gives.
 */
size_t callus_vecindex_search_from(const callus_vecindex *vi, const float *q, float min,
				 callus_vecmatch *out, size_t k, size_t n, size_t from);

/*
 * The same search of the records from `from` on, which also notes the
 * records scoring at least keep_min: their indexes (in the file's order)
 * in keep[0..keep_cap), *nkeep how many there were (more than keep_cap:
 * some were not noted).  keep and nkeep may be NULL.
 */
size_t callus_vecindex_search_keep(const callus_vecindex *vi, const float *q, float min,
				 callus_vecmatch *out, size_t k, size_t n, size_t from,
				 float keep_min, size_t *keep, size_t keep_cap, size_t *nkeep);

/*
 * nq searches of the records from `from` on in one pass, query i at qs +
 * i * dim: the k best of each into out[i * k ..] (nout[i] of them), and
 * with nkeep, the records reaching keep_min into keep[i * keep_cap ..]
 * (nkeep[i]: as callus_vecindex_search_keep).  What nq calls of
 * callus_vecindex_search_keep from the same record give, for one read of
 * the file: a failure with several new errors searched once.  0, or
 * CALLUS_ENOMEM (nothing found).
 */
int callus_vecindex_search_many(const callus_vecindex *vi, const float *qs, size_t nq, float min,
			       callus_vecmatch *out, size_t *nout, size_t k, size_t from,
			       float keep_min, size_t *keep, size_t keep_cap, size_t *nkeep);

/* The same search over these records only (indexes in the file's order),
 * continuing out[0..n). */
size_t callus_vecindex_search_records(const callus_vecindex *vi, const float *q, float min,
				    callus_vecmatch *out, size_t k, size_t n, const size_t *recs,
				    size_t nrecs);

/*
 * The score a search gives the record of vector v for query q (dim floats
 * each): both quantized as the file and the search quantize them.  A
 * record read back from its packed form (callus_vecindex_unpack) scores
 * the same as in the file, to the float products' rounding.  -2 without
 * memory.
 */
float callus_vecindex_score(const float *q, const float *v, size_t dim);

/* v quantized into q[0..dim) as the vector file holds it: the scale, each
 * component being q[i] times it. */
float callus_vecindex_quantize(int8_t *q, const float *v, size_t dim);

/*
 * callus_vecindex_score(q, v, dim) for the vector v packed in blob[0..len)
 * (any form callus_vecindex_unpack reads), q quantized once into qq and
 * qscale (callus_vecindex_quantize): the same score, to the bit, without v
 * unpacked and quantized again for each record a search checks.  -2
 * without memory, -3 when blob is no packing of dim.
 */
float callus_vecindex_score_packed(const float *q, const int8_t *qq, float qscale,
				   const void *blob, size_t len, size_t dim);

/*
 * How much a record's score can differ between queries a and b (dim
 * floats, L2-normalized, quantized as a search does): a record scoring
 * under s with a scores under s + gap with b.  -1 without memory.  A
 * search for b that only needs records scoring at least min can then read
 * only those that scored at least min - gap with a.
 */
double callus_vecindex_score_gap(const float *a, const float *b, size_t dim);

/* Which file is mapped (device, inode; zeros when none): appends keep it,
 * a rewrite (callus_vecindex_rewrite renames a new file in) changes it. */
void callus_vecindex_file_id(const callus_vecindex *vi, uint64_t id[2]);

#endif
