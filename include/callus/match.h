/*
 * match.h - finding the stored signatures like a new error, and the
 * resolutions that fixed them (DESIGN §5, spec 004 "Error Pattern
 * Matching", "Resolution Suggestion", "Error Deduplication").
 *
 * Matching: the built-in embedder's vector of the new signature against
 * every stored vector (include/callus/vecindex.h: one mapped file, a brute
 * force scan; or, for a recording in a store of more than
 * CALLUS_MATCH_WINDOW, the newest CALLUS_MATCH_WINDOW and every signature
 * with a note), keeping those with a cosine of at least the threshold
 * (CALLUS_MATCH_THRESHOLD, calibrated in docs/matching.md).  When fewer than
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
#ifndef CALLUS_MATCH_H
#define CALLUS_MATCH_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/embed_remote.h"
#include "callus/learn.h"
#include "callus/metrics.h"
#include "callus/signature.h"
#include "callus/store.h"

#define CALLUS_MATCH_THRESHOLD 0.935      /* built-in embedder, docs/matching.md */
#define CALLUS_MATCH_THRESHOLD_RULE 0.85  /* the same, between two errors of
					 * one rule of the tool (TS2339) */
#define CALLUS_MATCH_THRESHOLD_EXTERNAL 0.85 /* an external model (spec 004) */
#define CALLUS_MATCH_DUPLICATE 0.98   /* linked to the existing one */
#define CALLUS_MATCH_MERGE 0.90       /* offered as a merge (callus merges) */
#define CALLUS_MATCH_MERGE_SUCCESS 0.7
#define CALLUS_MATCH_K 10

/*
 * The signatures a recording searches whole: the newest this many of the
 * vector file (callus_vecindex_newest).  A search of every signature cost
 * a recording time in proportion to the store (docs/scale.md).  Past
 * them, a new signature's near-duplicate check looks no further (an
 * error like one seen more than this many new signatures ago is kept as
 * a signature of its own), and its suggestions search only the
 * signatures that have a note or a layer's cached note (a linked
 * duplicate's note is its canonical's too): a fix whose change is known
 * makes or joins one, so it is found at any age.  Not found past them: a
 * fix whose change is unknown (snapshots off), and one recorded before
 * notes existed (a store of schema 6 or older) and not applied since
 * (docs/matching.md).
 */
#define CALLUS_MATCH_WINDOW 4096
#define CALLUS_MATCH_HALF_LIFE_DAYS 30.0

/*
 * The scans of the built-in vector file kept for one recording: indexing a
 * new signature scans the file for its near-duplicates, and the search for
 * the same signature that follows (its suggestions) reads only the vectors
 * appended since, with the same result as a whole scan (vecindex.h:
 * callus_vecindex_search_from).  Owned by the caller, who frees it once
 * the recording is done; NULL wherever it is taken: no scan kept.
 */
typedef struct callus_match_scans callus_match_scans;
int callus_match_scans_new(callus_match_scans **out);  /* 0 or CALLUS_ENOMEM */
void callus_match_scans_free(callus_match_scans *sc);  /* accepts NULL */

/*
 * The rows the regular-expression fallback tries, kept across the searches
 * of one learning: the newest signatures of each error type read once,
 * not once per error searched.  They are read again when the store's
 * count of signatures has moved (one added, as a note the learning's sync
 * takes in brings, or one removed); a caller that changes rows in place
 * (a recurrence's last_seen: never within a learning) clears them
 * (callus_match_candidates_clear).  Owned by the caller; NULL wherever it
 * is taken: each search reads its rows.
 */
typedef struct callus_match_candidates callus_match_candidates;
int callus_match_candidates_new(callus_match_candidates **out); /* 0 or CALLUS_ENOMEM */
void callus_match_candidates_clear(callus_match_candidates *c); /* accepts NULL */
void callus_match_candidates_free(callus_match_candidates *c);  /* accepts NULL */

/*
 * The document frequencies the built-in embedder read for one search, kept
 * for the next: a failure's sixty-four suggestions looked up some three
 * thousand features, most of them the same words of one compiler.  Exact
 * only while no count can move: the caller holds the store's write lock
 * and writes no signature and no count while it keeps the memo (a
 * learning's suggestions, after its run's signatures are counted).  Owned
 * by the caller; NULL wherever it is taken: each search reads the store.
 */
typedef struct callus_match_df_memo callus_match_df_memo;
int callus_match_df_memo_new(callus_match_df_memo **out); /* 0 or CALLUS_ENOMEM */
void callus_match_df_memo_free(callus_match_df_memo *m);   /* accepts NULL */

typedef struct callus_match_opts {
	const char *workspace;   /* absolute: where .callus/vectors-*.bin lives */
	double threshold;        /* <= 0: CALLUS_MATCH_THRESHOLD */
	size_t k;                /* 0: CALLUS_MATCH_K */
	double half_life_days;   /* <= 0: CALLUS_MATCH_HALF_LIFE_DAYS */
	callus_metrics *metrics;   /* may be NULL: hindsight.match.* are added
				  * to it (latency, total{match_type,found},
				  * results_count) */
	/* An external embedder's vectors, searched too when set: */
	const char *remote_model; /* its model id (callus_embed_remote_model_id) */
	const float *remote_query; /* sig's vector from it, when the caller has
				   * one (callus suggest asks the endpoint); NULL:
				   * the stored one, when sig was embedded
				   * before (the hook never waits on a network) */
	size_t remote_dim;
	callus_match_scans *scans; /* may be NULL: a scan of the same query
				   * kept by callus_match_index_scanned() is
				   * continued instead of repeated */
	const char *vectors;     /* NULL: the built-in model's vector file of
				  * the workspace; else a file of some of those
				  * vectors, the only ones searched (the noted
				  * signatures', notes.c) */
	int stored;              /* sig indexed before: search with the vector
				  * the store holds for it (one row read, where
				  * making it again reads some seventy document
				  * frequencies); made when it has none */
	const callus_signature *counted; /* may be NULL: the signatures a
				  * recording of the same output would count
				  * in the document frequencies before its
				  * search (the output's errors not stored
				  * yet, sig among them): a vector made for sig
				  * is weighed as that recording's would be,
				  * so callus suggest shows what it would */
	size_t ncounted;
	const struct callus_vecindex *index; /* may be NULL: the file the
				  * search reads (vectors, else the built-in
				  * one) opened for it; else that file open
				  * (callus_match_index_open,
				  * callus_match_noted_open), borrowed: a run's
				  * errors searched with one opening */
	size_t window;           /* 0: every vector searched; else only the
				  * newest window of the built-in file
				  * (CALLUS_MATCH_WINDOW for a recording;
				  * with scans kept, the window of the check
				  * that kept them) and every one of noted */
	const char *noted;       /* with window: the vector file of the
				  * signatures that have a note, in step with
				  * the store (callus_notes_vectors_fresh);
				  * NULL: window ignored, the whole file
				  * searched */
	const struct callus_vecindex *noted_index; /* may be NULL: noted
				  * opened for the search; else that file
				  * open, borrowed (a run's errors searched
				  * with one opening, as index) */
	callus_match_candidates *candidates; /* may be NULL: the regex
				  * fallback's rows read for this search alone;
				  * else kept there for the next, borrowed */
	callus_match_df_memo *df_memo; /* may be NULL: the document
				  * frequencies a vector made for sig reads
				  * from the store; else taken from there when
				  * an earlier search read them, borrowed */
} callus_match_opts;

/* The built-in vector file of workspace open for a run's searches
 * (callus_match_opts.index): an empty index when there is no file yet (as
 * callus_vecindex_open), *out NULL only when it cannot be opened (each
 * search then opens it itself, and says why).  Written again from s first
 * when a callus reindex was cut, as a search's opening does.  Closed by the
 * caller (callus_vecindex_close). */
void callus_match_index_open(callus_store *s, struct callus_vecindex **out, const char *workspace);

/* The same for the noted signatures' file at path (callus_match_opts.noted,
 * .noted_index). */
void callus_match_noted_open(struct callus_vecindex **out, const char *path);

/* Whether a search with window leaves some of the store's built-in
 * vectors out (it holds more than window of them): only then does it need
 * the noted signatures' file (callus_match_opts.noted).  0 when the count
 * cannot be read. */
int callus_match_window_cuts(callus_store *s, size_t window);

typedef enum callus_match_how {
	CALLUS_MATCH_SAME,     /* the same signature id */
	CALLUS_MATCH_VECTOR,   /* cosine >= threshold */
	CALLUS_MATCH_REGEX     /* the stored pattern matches the new message */
} callus_match_how;

typedef struct callus_match {
	char *signature_id;      /* owned */
	double similarity;       /* 1 for the same signature */
	double context_score;    /* 0.5 .. 1 */
	callus_match_how how;
} callus_match;

/*
 * Give every stored signature without a built-in vector one: its features
 * counted into the document frequencies, its vector stored and appended to
 * the vector file.  A new signature more than CALLUS_MATCH_DUPLICATE similar
 * to one of the same tool is linked to it (its occurrences counted there)
 * instead of being indexed.  *added (may be NULL) counts the new vectors.
 * Cheap when nothing is new: one query.
 */
int callus_match_index(callus_store *s, const char *workspace, size_t *added, callus_error *err);
/* The same, the scans of the new signatures kept in scans (may be NULL)
 * for their suggestions' search (callus_match_opts.scans). */
int callus_match_index_scanned(callus_store *s, const char *workspace, callus_match_scans *scans,
			       size_t *added, callus_error *err);

/* Every vector again, with the document frequencies as they are now, and
 * the vector file rewritten (callus reindex), marked until the commit (a
 * reindex cut before it leaves the mark, and the next search that may
 * write writes the file again).  One at a time for a workspace: callus
 * reindex holds .callus/embed.lock, since one's end takes off the mark. */
int callus_match_reindex(callus_store *s, const char *workspace, size_t *count, callus_error *err);

/* The text an external embedder is given for sig: "tool error_type:
 * message" (appended to out). */
int callus_match_remote_text(callus_buf *out, const callus_signature *sig);

/*
 * Embed the stored signatures that have no vector from the external
 * embedder ro describes (with all, every one again: its vectors are
 * dropped first), in batches: each batch is sent with no store lock held,
 * then stored in one short transaction and appended to its vector file.
 * Linked duplicates are left out, as for the built-in embedder.  *added
 * (may be NULL) counts the vectors stored.  On a failure of the endpoint
 * the batches already stored stay.
 */
int callus_match_index_remote(callus_store *s, const char *workspace,
			    const callus_embed_remote_opts *ro, int all, size_t *added,
			    callus_error *err);

/*
 * The stored signatures like sig, best first, at most opts->k; sig itself
 * (by id) comes first when it is stored.  Free with callus_matches_free().
 */
int callus_match_find(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
		    callus_match **out, size_t *count, callus_error *err);
void callus_matches_free(callus_match *m, size_t count);

/*
 * The best resolutions for sig, at most max (0: CALLUS_LEARN_SUGGEST_MAX),
 * as suggestions (pending_id 0; the caller sets it).  Free each with the
 * caller's release or callus_suggestions_free().
 */
int callus_match_suggest(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
		       size_t max, callus_suggestion **out, size_t *count, callus_error *err);
void callus_suggestions_free(callus_suggestion *g, size_t count);

/* A pair of signatures a maintainer may merge (callus merges). */
typedef struct callus_merge_pair {
	char *a, *b;             /* signature ids; owned */
	char *a_message, *b_message;
	double similarity;
	double a_success, b_success;
} callus_merge_pair;

/* Pairs above CALLUS_MATCH_MERGE whose best resolutions both exceed
 * CALLUS_MATCH_MERGE_SUCCESS, not yet linked.  Free with
 * callus_merge_pairs_free(). */
int callus_match_merges(callus_store *s, const char *workspace, callus_merge_pair **out,
		      size_t *count, callus_error *err);
void callus_merge_pairs_free(callus_merge_pair *p, size_t count);

/* How many signatures have a vector from model (CALLUS_EMBED_BUILTIN_MODEL,
 * or an external model's id), and how many could (those not linked to
 * another), both of one moment of the store (a read transaction of its
 * own, unless the caller is in one). */
int callus_match_count_vectors(callus_store *s, const char *model, int64_t *with, int64_t *all,
			     callus_error *err);

/* The external models other than named (NULL: every one) the store holds
 * vectors of: fn(arg, model, how many) for each, the model's id borrowed
 * for the call, in one read (fn must not write the store: collect, then
 * change).  A negative CALLUS_E* code from fn stops the walk and is
 * returned (err says out of memory).  0, or a negative CALLUS_E* code with
 * err set. */
int callus_match_other_models(callus_store *s, const char *named,
			      int (*fn)(void *arg, const char *model, int64_t n), void *arg,
			      callus_error *err);

/* The vector files callus_match_file_check() reads. */
typedef enum callus_match_file_kind {
	CALLUS_MATCH_FILE_BUILTIN,  /* the built-in model's */
	CALLUS_MATCH_FILE_NOTED,    /* the noted signatures' (notes_vectors.c):
				     * a note's first append or the first search
				     * that needs it makes it, so none yet is in
				     * step */
	CALLUS_MATCH_FILE_EXTERNAL  /* an external model's ([embed]) */
} callus_match_file_kind;

/* What callus_match_file_check() found of a vector file. */
typedef struct callus_match_file_state {
	char file[48];     /* its name in .callus/ */
	int present;       /* the file exists */
	size_t have;       /* records in the file (a removed signature's, and
			    * an id written twice by racing writers, too) */
	int64_t stored;    /* vectors in the store it should hold (the noted
			    * file's: one for each note of a signature) */
	size_t missing;    /* of those, how many no record holds as the
			    * store has it */
	size_t damaged;    /* records whose vector is not the store's of
			    * their id, of ids no record holds as the store
			    * has it (a stale one beside a good one is
			    * harmless: searches pass it over) */
	size_t derived;    /* sketches and postings' blocks beside it that
			    * are not what its records make
			    * (callus_vecindex_derived_damaged) */
	size_t unreadable; /* of the store's vectors, how many no file can
			    * hold (another dimension than the model's
			    * newest vector, a damaged blob): callus
			    * reindex makes them again */
	int derived_absent; /* enough of the sketches and postings beside it
			    * are missing that its next reader makes them
			    * (with fix: they were, and are made) */
	int reindex_cut;   /* the built-in file's: a callus reindex was cut
			    * after renaming it in and before its commit,
			    * so its records may be vectors the store
			    * rolled back (the next recording, or a
			    * search that may write, writes it again) */
	int behind;        /* the noted file holds fewer records than the
			    * store counts, or another model's: its next
			    * reader writes it again first, so nothing else
			    * was compared (a note, not a problem) */
} callus_match_file_state;

/*
 * Whether the vector file of kind (model: the external model's id, for
 * CALLUS_MATCH_FILE_EXTERNAL; else unused) holds every vector the store
 * has for it, each as the store has it: every record is read and compared
 * with the store's vector of its id (its int8 components exactly; its
 * scale, which a rewrite quantizes again, to a few units in the last
 * place), in one snapshot of the store taken before the file is read.
 * 0 when it does (or the store holds no vector of model, or the noted
 * file is behind: behind); 1 when vectors are missing (removed, cut) or
 * records damaged, or vectors of the store are unreadable: a
 * search finds nothing similar to their errors until the file is written
 * again (a damaged record it finds is not the store's, and is passed
 * over: callus_match_record_current), and a damaged one leaves the file's
 * count right, which is all a search looks at; also 1 when the sketches
 * or postings beside it are damaged (a search skips records they bound
 * too low).  With fix the file is written again from the store, and they
 * with it.  Or a negative CALLUS_E* code.  Reads the whole file and every
 * vector: for callus doctor, never a recording.
 */
int callus_match_file_check(callus_store *s, const char *workspace, callus_match_file_kind kind,
			    const char *model, int fix, callus_match_file_state *out,
			    callus_error *err);

/* The stored signature key names: its id or a unique prefix of at least
 * 6 hex digits.  CALLUS_ENOTFOUND / CALLUS_EINVAL as for callus_match_merge().
 * Release *out with callus_signature_release(). */
int callus_match_get_signature(callus_store *s, const char *key, callus_signature *out,
			     callus_error *err);

/* Merge b into a (a maintainer's approval): b is linked to a and its
 * resolutions become a's.  Ids may be unique prefixes (at least 6 hex
 * digits).  When a is merged into another itself, b joins that one (a
 * lookup follows one link): its id into into (may be NULL).
 * CALLUS_ENOTFOUND / CALLUS_EINVAL for unknown or ambiguous ids;
 * CALLUS_EEXIST when b is merged already (into a, or into another: its link
 * is not moved), or a into b. */
int callus_match_merge(callus_store *s, const char *a, const char *b,
		       char into[CALLUS_SHA256_HEX_LEN + 1], callus_error *err);

#endif
