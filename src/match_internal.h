/*
 * match_internal.h - what the pieces of matching share: the search
 * (match.c), the external model's scan (match_remote.c), the indexing
 * (match_index.c), the suggestions (match_suggest.c) and the merges
 * (match_merge.c): how a signature row is read, where a model's vector
 * file lives, how a signature is embedded and how context is weighed.
 */
#ifndef CALLUS_MATCH_INTERNAL_H
#define CALLUS_MATCH_INTERNAL_H

#include <sqlite3.h>

#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/signature.h"
#include "callus/store.h"
#include "callus/strlist.h"
#include "callus/match.h"
#include "callus/vecindex.h"

#include "store_internal.h"

/* What callus_match_read_signature reads, of the table signatures in a
 * query that names it so */
#define CALLUS_MATCH_SIGNATURE_COLUMNS                                                    \
	"id, error_type, message_pattern, stack_patterns,"                                \
	" " CALLUS_STORE_CONTEXT_OF("signatures.ctx") ", original, tool"
/* the same, of a table named g in a join */
#define CALLUS_MATCH_SIGNATURE_COLUMNS_G                                                  \
	"g.id, g.error_type, g.message_pattern, g.stack_patterns,"                        \
	" " CALLUS_STORE_CONTEXT_OF("g.ctx") ", g.original, g.tool"

/* A signature as stored, from the CALLUS_MATCH_SIGNATURE_COLUMNS starting at
 * col.  An SQLite result code; *g is released on failure. */
int callus_match_read_signature(sqlite3_stmt *st, int col, callus_signature *g);



/* A model's vector file is named by the built-in model's name, or for
 * another model "ext-" and the first 16 hex digits of its id's SHA-256
 * (ids hold ':', '/' and '@', and may be longer than a file header
 * keeps); the name is also the model the file's header names.  0, or
 * CALLUS_ENOMEM (out untouched). */
#define CALLUS_MATCH_VECTOR_NAME_MAX 24
int callus_match_vector_name(char out[CALLUS_MATCH_VECTOR_NAME_MAX + 1], const char *model);

/* out = workspace/.callus/vectors-<name>.bin.  0 or CALLUS_ENOMEM. */
int callus_match_vector_path(callus_buf *out, const char *workspace, const char *name);

/* The same for the built-in model. */
int callus_match_builtin_vector_path(callus_buf *out, const char *workspace);

/* The built-in model's id in vector_models, which signature_vectors
 * names a vector's model by (schema 32): an integer 1 takes no byte in a
 * row, where the model's name took 17 in every vector's key.  A built-in
 * model of another name (CALLUS_EMBED_BUILTIN_MODEL) takes this id over
 * in a migration that drops the old one's vectors. */
#define CALLUS_MATCH_BUILTIN_ID "1"

/* Every built-in vector of the store, as callus_match_file_sync() reads
 * them. */
#define CALLUS_MATCH_BUILTIN_VECTORS                                                          \
	"SELECT sig, vector FROM signature_vectors"                                            \
	" WHERE model = " CALLUS_MATCH_BUILTIN_ID " ORDER BY sig"

/* The store's count of built-in vectors (kept by triggers); -1 when it
 * cannot be read. */
int64_t callus_match_builtin_count(callus_store *s);

/* A vector file and the store's rows it is made of.  Borrowed strings. */
typedef struct callus_match_vfile {
	const char *path;
	const char *name;  /* the model its header names (callus_match_vector_name) */
	size_t dim;
	int floats;        /* the store keeps the vectors as dim floats (an
			    * external model's), not packed (vecindex.h, the
			    * built-in model's) */
	const char *sql;   /* every vector: (signature rowid, vector) by rowid;
			    * a rowid may come twice (the noted file's: a
			    * record for each) */
} callus_match_vfile;

/*
 * Keep the vector file f (holding have records) in step with the store,
 * which has stored vectors for it: written again from the rows of f->sql
 * (a vector of no form f reads is left out) when the file is behind
 * (removed, damaged, restored from a copy, written by an older callus) or
 * more than ahead records past it (removed signatures; SIZE_MAX: never).
 * 1 when it was written again, 0 when in step, or a negative CALLUS_E*
 * code with err set (stored < 0: the count could not be read).  A rewrite
 * holds the store's write lock: taken here (and let go) when s is in no
 * transaction; a caller in one must hold it (a write transaction).
 */
int callus_match_vfile_sync(callus_store *s, const callus_match_vfile *f, size_t have,
			    int64_t stored, size_t ahead, callus_error *err);

/*
 * The built-in model's file at path written again from the store when a
 * callus reindex left its mark there (cut after renaming its file in and
 * before its commit: the file holds vectors the store rolled back; or
 * killed after its commit, before it removed the noted signatures' file),
 * the noted signatures' file removed (its next reader makes it again), and
 * the mark taken off.  Under the store's write lock, which tells a cut
 * reindex from one under way: the caller's when s is in a write
 * transaction, else taken waiting at most wait_ms.  1 when mended; 0 when
 * there is no mark, or the lock was not had (left to the next writer); a
 * negative CALLUS_E* code with err set when the files could not be
 * written.  Costs an lstat when there is no mark.
 */
int callus_match_reindex_mend(callus_store *s, const char *path, int wait_ms, callus_error *err);

/* The same for the built-in model's file at path, from the rows of sql. */
int callus_match_file_sync(callus_store *s, const char *path, size_t have, int64_t stored,
			   size_t ahead, const char *sql, callus_error *err);

/* The vectors of the noted signatures' file (notes_vectors.c): those of
 * notes and those of the layers' cached notes (schema 30), a record for
 * each, as noted_count counts them.  The notes lead (CROSS JOIN): ordered
 * by rowid, SQLite's planner walked every signature, twice, to skip the
 * sort, where the notes are a tenth of them or fewer (the hook that writes
 * the file again after a reindex at 100,000 recordings: 166.8 ms of CPU,
 * 126.4 this way; bench/commands.sh). */
#define CALLUS_MATCH_NOTED_VECTORS                                                                 \
	"SELECT g.rowid, v.vector FROM (SELECT signature_id FROM note_signatures UNION ALL"          \
	" SELECT signature_id FROM note_cache) x CROSS JOIN signatures g"                            \
	" ON g.id = x.signature_id"                                                                  \
	" JOIN signature_vectors v ON v.sig = g.rowid AND v.model = " CALLUS_MATCH_BUILTIN_ID

/*
 * An external model's vector file, and the store's rows of it: f's
 * strings point into path, sql and name.  *stored is how
 * many vectors of model the store holds.  0, 1 when it holds none (f is
 * not set), or a negative CALLUS_E* code with err set.
 */
int callus_match_external_vfile(callus_store *s, const char *workspace, const char *model,
				callus_match_vfile *f, callus_buf *path, callus_buf *sql,
				char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1], int64_t *stored,
				callus_error *err);

/* Beside s's database, the built-in vectors of the signatures that have a
 * note (notes_vectors.c keeps it; removed here when every vector is
 * remade).  0 or a CALLUS_E* code. */
int callus_match_noted_vector_path(callus_buf *out, callus_store *s);

/* The vector of sig as the store weighs features now (the document
 * frequencies of the indexed signatures).  An SQLite result code. */
int callus_match_embed(callus_store *s, const callus_signature *sig, float vec[CALLUS_EMBED_DIM]);
/* The same, the frequencies read through memo (may be NULL; match.h). */
int callus_match_embed_memo(callus_store *s, const callus_signature *sig,
			    callus_match_df_memo *memo, float vec[CALLUS_EMBED_DIM]);

/* memo's document count read again at its next use, its features' counts
 * kept: for a caller that stores vectors (each a document more) between
 * two embeddings and moves no feature's count (a reindex).  Accepts NULL. */
void callus_match_df_memo_forget_docs(callus_match_df_memo *m);

/* The same, with counted[0..n)'s features counted in the document
 * frequencies as a recording counts its new signatures' before it embeds
 * them (the document count is the vectors', which they have not yet). */
int callus_match_embed_counted(callus_store *s, const callus_signature *sig,
			       const callus_signature *counted, size_t n,
			       float vec[CALLUS_EMBED_DIM]);

/*
 * The document frequencies (match_df.c): embed_df a row a bucket of
 * features, their counts packed; embed_df_hot a row a feature, the common
 * ones; embed_df_recent a row a feature, what recordings added since the
 * last fold.
 *
 * The document frequencies a recording adds go to embed_df_recent, a small
 * table, and are folded into embed_df once it holds this many features: a
 * new signature's ~70 features fell on as many pages of embed_df, most of
 * the pages a recording wrote, each written to the WAL and again by its
 * checkpoint (bench/hookio.sh: 427 pwrite calls a failing hook at 100,000
 * recordings, 169 with this), where the small table's few pages take them
 * all; a fold writes embed_df's pages once for thousands of features.  A
 * feature's frequency is what embed_df or embed_df_hot holds of it plus
 * what embed_df_recent does.
 */
#define CALLUS_MATCH_DF_FOLD_ROWS 4096

/*
 * The features counted by many signatures, kept a row a feature in
 * embed_df_hot and out of their buckets (schema 33).  A new error's
 * features are looked up one by one, and nearly all of them are common
 * words (126 looked up at 100,000 recordings, 117 counted more than 1,000
 * times, six once): each fell on a bucket of its own, one page of embed_df
 * each, 21 pages read at 1,000 recordings, 66 at 10,000, 100 at 100,000.
 * The common ones now share the few pages of embed_df_hot.
 *
 * A fold moves an entry of a bucket it rewrites to embed_df_hot once its
 * count reaches callus_match_df_hot_min(documents), and one of
 * embed_df_hot back to its bucket when its count falls under half that:
 * the share of the documents bounds the table (the counts of all features
 * add up to the features of all signatures, so at most
 * 2 x CALLUS_MATCH_DF_HOT_SHARE times a signature's features reach half
 * of it), whatever the store's size.  A feature is in one of the two, never both;
 * its frequency is what that one holds plus embed_df_recent's.
 */
#define CALLUS_MATCH_DF_HOT_MIN 16
#define CALLUS_MATCH_DF_HOT_SHARE 64

/* The count from which a fold keeps a feature in embed_df_hot, with docs
 * signatures indexed: CALLUS_MATCH_DF_HOT_MIN, or a
 * CALLUS_MATCH_DF_HOT_SHARE-th of docs when that is more. */
int64_t callus_match_df_hot_min(int64_t docs);

/* The key of a feature in the store: the low 32 bits of its id (schema
 * 22; its bucket the key's high 16 bits, schema 27).  The ids are mixed
 * hashes: 16 pairs of the 433,748 features of docs/scale-history.md's
 * 100,000-recording store share a key, and a shared key only counts both. */
int64_t callus_match_feature_key(uint64_t id);

/* A change to the count of a bucket's feature, by its key's low bits. */
typedef struct callus_df_delta {
	uint16_t low;
	int64_t delta;
} callus_df_delta;

/* The count of the feature of low bits low in a bucket's blob b[0..n);
 * 0 if it has none.  A damaged blob is read up to the damage. */
int64_t callus_match_df_find(const uint8_t *b, size_t n, uint16_t low);

/* *out (cleared first) := the blob b[0..n) (NULL when 0) with the changes
 * d[0..nd) (sorted by low; a key may repeat) added; a count that comes to
 * 0 or less is left out.  0 or CALLUS_ENOMEM. */
int callus_match_df_merge(callus_buf *out, const uint8_t *b, size_t n, const callus_df_delta *d,
			  size_t nd);

/* The frequencies of f's features and the number of documents, as the
 * store holds them now: *out the caller's.  With memo (may be NULL), each
 * read once for the memo's life (match.h).  An SQLite result code. */
int callus_match_df_load(callus_store *s, const callus_features *f, callus_match_df_memo *memo,
			 callus_idf **out);

/* Add delta (1 for a signature indexed, -1 for one removed) to the count
 * of each of sig's features, in embed_df_recent.  An SQLite result code. */
int callus_match_df_count(callus_store *s, const callus_signature *sig, int delta);
/* The same for features f, each counted times[i] times (NULL: once): a
 * batch's features, each once with how many of its signatures hold it. */
int callus_match_df_count_features(callus_store *s, const callus_features *f,
				   const uint32_t *times, int delta);

/* Fold embed_df_recent into embed_df and embed_df_hot and empty it, in
 * the caller's transaction, moving entries between the two as their
 * counts say (CALLUS_MATCH_DF_HOT_MIN).  SQLITE_OK or SQLite's error. */
int callus_match_fold_df(callus_store *s);

/* callus_match_fold_df once embed_df_recent holds
 * CALLUS_MATCH_DF_FOLD_ROWS features. */
int callus_match_df_fold_when_full(callus_store *s);

/* On db: callus_df_pack(KEY, DF), the aggregate that makes a bucket's
 * blob (the migration to schema 27), and to read the blobs
 * callus_df_features(COUNTS [, MIN]) (how many features, or how many
 * counted at least MIN times), callus_df_sum(COUNTS), callus_df_of(COUNTS, KEY)
 * and callus_df_split(COUNTS, MIN, COMMON) (the migration to schema 33).
 * An SQLite result code. */
int callus_match_df_sql_register(sqlite3 *db);

/* 0.5 + 0.5 x |a & b| / |a | b|: shared context raises a match, none
 * halves it. */
double callus_match_context_score(const callus_strlist *a, const callus_strlist *b);

/* The records a new signature's near-duplicate check notes for the
 * search of its suggestions that follows (match_scans.c): those scoring
 * at least this, at most CALLUS_MATCH_KEEP_MAX of them.  A suggestion's
 * search needs those scoring at least CALLUS_MATCH_THRESHOLD_RULE with
 * its own vector, which differs from the check's by the document
 * frequencies the new vector added: far less than the 0.05 between. */
#define CALLUS_MATCH_KEEP_MIN 0.80f
#define CALLUS_MATCH_KEEP_MAX 1024

/* Keep what the check of sig_id (vector q) found in the records of the
 * file vi maps from record start on: keep[0..n) scored at least
 * CALLUS_MATCH_KEEP_MIN, and no other did (n > CALLUS_MATCH_KEEP_MAX: too
 * many, nothing kept).  0 or CALLUS_ENOMEM. */
int callus_match_scans_put(callus_match_scans *sc, const char *sig_id, const float *q,
			   const callus_vecindex *vi, size_t start, const size_t *keep, size_t n);

/* A row the regular-expression fallback may try (match_candidates.c):
 * what the index of each error type's newest holds of it, its sketch
 * (signature.h), which tells most rows a message cannot match from the
 * few read whole; and once a search has asked it of its original, the
 * literal runs the original's pattern holds (kept for the next search:
 * a failure's sixty-four suggestions tried the same rows of gcc's type
 * "error" and made each one's runs again, a thousand times). */
typedef struct callus_match_candidate {
	sqlite3_int64 rowid;
	int64_t sketch;
	char *runs; /* its original's runs (callus_message_runs); NULL */
} callus_match_candidate;

/* callus_message_may_match(original, msg) of row's original, its runs
 * made at the first search and kept in row: as the row's sketch, they hold
 * while its rows are (match.h: callus_match_candidates). */
int callus_match_candidate_may_match(callus_match_candidate *row, const char *original,
				     const char *msg);

/* The newest max signatures of error_type, newest first (as the index
 * signatures_type_seen gives them), from c, read into it the first time:
 * read again when the store's count of signatures moved since (match.h):
 * *rows[0..*n) are c's, valid until the next call on c, or until it is
 * cleared or freed.  An SQLite
 * result code. */
int callus_match_candidates_get(callus_match_candidates *c, callus_store *s,
				const char *error_type, size_t max,
				callus_match_candidate **rows, size_t *n);

/* The statement callus_match_stored_vector reads with: the built-in
 * model's vector of the signature named ?1. */
#define CALLUS_MATCH_STORED_VECTOR_SQL                                          \
	"SELECT v.vector FROM signatures g JOIN signature_vectors v"           \
	" ON v.sig = g.rowid WHERE g.id = ?1 AND v.model = " CALLUS_MATCH_BUILTIN_ID

/* The built-in model's vector the store holds for signature id into v,
 * read with st (prepared from CALLUS_MATCH_STORED_VECTOR_SQL, reset here):
 * 1, or 0 when it has none or it cannot be read. */
int callus_match_stored_vector(sqlite3_stmt *st, const char *id, float v[CALLUS_EMBED_DIM]);

/*
 * A vector file's record checked against the store.  SQLite numbers a new
 * signature one past the highest row it holds, so a number the file holds
 * for a row the store no longer has (a recording cut after its append, a
 * store restored from an older copy or that lost its last commits) is
 * given to the next new signature: the old record would then lend that
 * signature a stranger's similarity, and a search would suggest its fixes
 * for an error it has nothing to do with.  A record is taken only while
 * the store's vector of its signature scores as the record did.
 */
typedef struct callus_match_record_check {
	sqlite3_stmt *st;   /* of CALLUS_MATCH_RECORD_VECTOR_SQL, the caller's */
	const char *model;  /* the file's model (vector_models.name) */
	const float *q;     /* the query searched with */
	size_t dim;
	/* q quantized, for the built-in model's packed vectors: by the first
	 * record checked (quantized set), kept for the next */
	int8_t qq[CALLUS_EMBED_DIM];
	float qscale;
	int quantized;
} callus_match_record_check;

/* A signature's vector of one model: ?1 the signature's rowid, ?2 the
 * model's name. */
#define CALLUS_MATCH_RECORD_VECTOR_SQL                                          \
	"SELECT vector FROM signature_vectors WHERE sig = ?1 AND model ="      \
	" (SELECT id FROM vector_models WHERE name = ?2)"

/* Whether the record scored score for signature rowid holds the vector the
 * store keeps for it: into *current, 0 when the store has none (or one
 * that cannot be read) or another.  An SQLite result code. */
int callus_match_record_current(callus_match_record_check *c, int64_t rowid, float score,
				int *current);

/* The vector the check of sig_id searched with (the one the vector file
 * holds for it) into q: 1, or 0 when no check of this recording kept it. */
int callus_match_scans_vector(const callus_match_scans *sc, const char *sig_id,
			      float q[CALLUS_EMBED_DIM]);

/* For a search of sig_id with vector q needing the records scoring at
 * least min, in the file vi maps: the records that may (*recs[0..*n), in
 * the file's order) among records *start to *from, those from *from on to
 * be read whole, those before *start not seen by the check; 1.  0 when
 * nothing kept answers it (another file, too different a vector). */
int callus_match_scans_get(const callus_match_scans *sc, const char *sig_id, const float *q,
			   float min, const callus_vecindex *vi, const size_t **recs, size_t *n,
			   size_t *start, size_t *from);

#endif
