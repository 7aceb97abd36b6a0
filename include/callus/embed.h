/*
 * embed.h - the built-in embedder: an error signature as a vector, with no
 * model file and no network (DESIGN §5).
 *
 * Features are taken from what identifies an error to a person reading
 * it: the error code or type, the tool, the words of the normalized
 * message (placeholders such as (?#path) are dropped, identifiers split on
 * camelCase and snake_case), character n-grams of those words (so that
 * "undefined"/"undefinde" or "toBe"/"toEqual" stay close), and the
 * function names of the stack patterns.  Each feature is hashed to a
 * 64-bit id and carries a base weight by kind; the vector is the feature
 * hashing of those ids into CALLUS_EMBED_DIM signed buckets, each weighted
 * by the feature's inverse document frequency over the signatures the
 * store holds, then L2-normalized, so the cosine of two vectors is their
 * dot product.  Everything is deterministic: same input, same bytes.
 */
#ifndef CALLUS_EMBED_H
#define CALLUS_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "callus/common.h"
#include "callus/signature.h"

#define CALLUS_EMBED_DIM 256
/* Stored with every vector it makes; a change to the features or the
 * hashing must change it, so that `callus reindex` knows what is stale. */
#define CALLUS_EMBED_BUILTIN_MODEL "callus-builtin-1"

typedef struct callus_feature {
	uint64_t id;
	float weight;   /* base weight of its kind, summed when repeated */
} callus_feature;

typedef struct callus_features {
	callus_feature *items; /* sorted by id, each id once; owned */
	size_t count, alloc;
} callus_features;

#define CALLUS_FEATURES_INIT { NULL, 0, 0 }

/* The features of a signature.  The caller releases *out. */
int callus_embed_features(callus_features *out, const callus_signature *sig);
void callus_features_release(callus_features *f);

/*
 * Document frequencies: in how many signatures each feature occurs, and
 * how many signatures there are.  The store keeps the counts; this is the
 * in-memory table the embedder reads.
 */
typedef struct callus_idf callus_idf;

int callus_idf_new(callus_idf **out);
void callus_idf_free(callus_idf *idf); /* accepts NULL */
/* One more document with these features (each id counted once). */
int callus_idf_add(callus_idf *idf, const callus_features *f);
/* Set a feature's count directly (loading from the store). */
int callus_idf_set(callus_idf *idf, uint64_t id, uint32_t df);
/* Whether id was counted or set (a count of 0 set is one), its count in
 * *df when it was.  Id 0 is never reported: a table that must tell of
 * every id keeps them from 1. */
int callus_idf_lookup(const callus_idf *idf, uint64_t id, uint32_t *df);
void callus_idf_set_docs(callus_idf *idf, uint32_t ndocs);
uint32_t callus_idf_docs(const callus_idf *idf);
/* The weight of a feature: smoothed log((1 + N) / (1 + df)) + 1, so an
 * unseen feature weighs most and none weighs zero. */
float callus_idf_weight(const callus_idf *idf, uint64_t id);

/* The vector of f, weighted by idf (NULL: every weight 1), L2-normalized
 * (all zeros when f is empty). */
void callus_embed_vector(float out[CALLUS_EMBED_DIM], const callus_features *f, const callus_idf *idf);

/* a . b over n floats: the cosine of two normalized vectors.  Written as
 * a plain loop the compiler vectorizes. */
float callus_dot(const float *a, const float *b, size_t n);

#endif
