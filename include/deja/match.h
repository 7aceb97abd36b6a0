/*
 * match.h - finding the stored signatures like a new error, and the
 * resolutions that fixed them (DESIGN §5, spec 004 "Error Pattern
 * Matching", "Resolution Suggestion", "Error Deduplication").
 *
 * Matching: the built-in embedder's vector of the new signature against
 * every stored vector (include/deja/vecindex.h: one mapped file, a brute
 * force scan), keeping those with a cosine of at least the threshold
 * (DEJA_MATCH_THRESHOLD, calibrated in docs/matching.md).  When fewer than
 * k match, the stored signatures of the same error type are tried as
 * regular expressions (their message_pattern, PCRE2 with JIT) on the new
 * message, and their stack patterns against its frames.  Candidates from
 * another framework (context_patterns "framework:...") are dropped: the
 * calibration's false matches were across tools.  Each match carries a
 * context score: 0.5 + 0.5 x the overlap of the two signatures' context
 * patterns.
 *
 * Suggestions: the resolutions of the matched signatures (and of the
 * signatures linked to them), with at least one success, ranked by
 * success_rate x context_score x recency_score x similarity, where
 * recency_score halves every half_life_days since the last success.  The
 * product is the suggestion's confidence.  No match, no suggestion: an
 * unrelated resolution is never offered.
 */
#ifndef DEJA_MATCH_H
#define DEJA_MATCH_H

#include <stddef.h>

#include "deja/buf.h"
#include "deja/common.h"
#include "deja/embed_remote.h"
#include "deja/learn.h"
#include "deja/metrics.h"
#include "deja/signature.h"
#include "deja/store.h"

#define DEJA_MATCH_THRESHOLD 0.935      /* built-in embedder, docs/matching.md */
#define DEJA_MATCH_THRESHOLD_RULE 0.85  /* the same, between two errors of
					 * one rule of the tool (TS2339) */
#define DEJA_MATCH_THRESHOLD_EXTERNAL 0.85 /* an external model (spec 004) */
#define DEJA_MATCH_DUPLICATE 0.98   /* linked to the existing one */
#define DEJA_MATCH_MERGE 0.90       /* offered as a merge (deja merges) */
#define DEJA_MATCH_MERGE_SUCCESS 0.7
#define DEJA_MATCH_K 10
#define DEJA_MATCH_HALF_LIFE_DAYS 30.0

typedef struct deja_match_opts {
	const char *workspace;   /* absolute: where .deja/vectors-*.bin lives */
	double threshold;        /* <= 0: DEJA_MATCH_THRESHOLD */
	size_t k;                /* 0: DEJA_MATCH_K */
	double half_life_days;   /* <= 0: DEJA_MATCH_HALF_LIFE_DAYS */
	deja_metrics *metrics;   /* may be NULL: hindsight.match.* are added
				  * to it (latency, total{match_type,found},
				  * results_count) */
	/* An external embedder's vectors, searched too when set: */
	const char *remote_model; /* its model id (deja_embed_remote_model_id) */
	const float *remote_query; /* sig's vector from it, when the caller has
				   * one (deja suggest asks the endpoint); NULL:
				   * the stored one, when sig was embedded
				   * before (the hook never waits on a network) */
	size_t remote_dim;
} deja_match_opts;

typedef enum deja_match_how {
	DEJA_MATCH_SAME,     /* the same signature id */
	DEJA_MATCH_VECTOR,   /* cosine >= threshold */
	DEJA_MATCH_REGEX     /* the stored pattern matches the new message */
} deja_match_how;

typedef struct deja_match {
	char *signature_id;      /* owned */
	double similarity;       /* 1 for the same signature */
	double context_score;    /* 0.5 .. 1 */
	deja_match_how how;
} deja_match;

/*
 * Give every stored signature without a built-in vector one: its features
 * counted into the document frequencies, its vector stored and appended to
 * the vector file.  A new signature more than DEJA_MATCH_DUPLICATE similar
 * to one of the same tool is linked to it (its occurrences counted there)
 * instead of being indexed.  *added (may be NULL) counts the new vectors.
 * Cheap when nothing is new: one query.
 */
int deja_match_index(deja_store *s, const char *workspace, size_t *added, deja_error *err);

/* Every vector again, with the document frequencies as they are now, and
 * the vector file rewritten (deja reindex). */
int deja_match_reindex(deja_store *s, const char *workspace, size_t *count, deja_error *err);

/* The text an external embedder is given for sig: "tool error_type:
 * message" (appended to out). */
int deja_match_remote_text(deja_buf *out, const deja_signature *sig);

/*
 * Embed the stored signatures that have no vector from the external
 * embedder ro describes (with all, every one again: its vectors are
 * dropped first), in batches: each batch is sent with no store lock held,
 * then stored in one short transaction and appended to its vector file.
 * Linked duplicates are left out, as for the built-in embedder.  *added
 * (may be NULL) counts the vectors stored.  On a failure of the endpoint
 * the batches already stored stay.
 */
int deja_match_index_remote(deja_store *s, const char *workspace,
			    const deja_embed_remote_opts *ro, int all, size_t *added,
			    deja_error *err);

/*
 * The stored signatures like sig, best first, at most opts->k; sig itself
 * (by id) comes first when it is stored.  Free with deja_matches_free().
 */
int deja_match_find(deja_store *s, const deja_match_opts *opts, const deja_signature *sig,
		    deja_match **out, size_t *count, deja_error *err);
void deja_matches_free(deja_match *m, size_t count);

/*
 * The best resolutions for sig, at most max (0: DEJA_LEARN_SUGGEST_MAX),
 * as suggestions (pending_id 0; the caller sets it).  Free each with the
 * caller's release or deja_suggestions_free().
 */
int deja_match_suggest(deja_store *s, const deja_match_opts *opts, const deja_signature *sig,
		       size_t max, deja_suggestion **out, size_t *count, deja_error *err);
void deja_suggestions_free(deja_suggestion *g, size_t count);

/* A pair of signatures a maintainer may merge (deja merges). */
typedef struct deja_merge_pair {
	char *a, *b;             /* signature ids; owned */
	char *a_message, *b_message;
	double similarity;
	double a_success, b_success;
} deja_merge_pair;

/* Pairs above DEJA_MATCH_MERGE whose best resolutions both exceed
 * DEJA_MATCH_MERGE_SUCCESS, not yet linked.  Free with
 * deja_merge_pairs_free(). */
int deja_match_merges(deja_store *s, const char *workspace, deja_merge_pair **out,
		      size_t *count, deja_error *err);
void deja_merge_pairs_free(deja_merge_pair *p, size_t count);

/* How many signatures have a vector from model (DEJA_EMBED_BUILTIN_MODEL,
 * or an external model's id), and how many could (those not linked to
 * another). */
int deja_match_count_vectors(deja_store *s, const char *model, int64_t *with, int64_t *all,
			     deja_error *err);

/* The stored signature key names: its id or a unique prefix of at least
 * 6 hex digits.  DEJA_ENOTFOUND / DEJA_EINVAL as for deja_match_merge().
 * Release *out with deja_signature_release(). */
int deja_match_get_signature(deja_store *s, const char *key, deja_signature *out,
			     deja_error *err);

/* Merge b into a (a maintainer's approval): b is linked to a and its
 * resolutions become a's.  Ids may be unique prefixes (at least 6 hex
 * digits).  DEJA_ENOTFOUND / DEJA_EINVAL for unknown or ambiguous ids. */
int deja_match_merge(deja_store *s, const char *a, const char *b, deja_error *err);

#endif
