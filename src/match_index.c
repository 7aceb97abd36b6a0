/*
 * match_index.c - the vectors matching reads: each signature's vector as
 * the store weighs features now, kept in the store and in the workspace's
 * vector file (.callus/vectors-<model>.bin), near-duplicates linked as
 * they are indexed (callus_match_index, callus_match_reindex,
 * callus_match_count_vectors).  Apart from the search (match.c) because
 * it writes: the search only reads what this leaves.
 */
#include "callus/match.h"
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/hash.h"
#include "callus/lesson.h"
#include "callus/signature.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int callus_match_vector_name(char out[CALLUS_MATCH_VECTOR_NAME_MAX + 1], const char *model)
{
	char hex[CALLUS_SHA256_HEX_LEN + 1];
	callus_sha256 *h = NULL;

	if (!strcmp(model, CALLUS_EMBED_BUILTIN_MODEL)) {
		snprintf(out, CALLUS_MATCH_VECTOR_NAME_MAX + 1, "%s", CALLUS_EMBED_BUILTIN_MODEL);
		return 0;
	}
	/* never a fallback name: another model's file would be taken for
	 * stale and rewritten */
	if (callus_sha256_new(&h) < 0)
		return CALLUS_ENOMEM;
	/* update and finish cannot fail; finish frees h */
	callus_sha256_update(h, model, strlen(model));
	callus_sha256_finish(h, hex);
	snprintf(out, CALLUS_MATCH_VECTOR_NAME_MAX + 1, "ext-%.16s", hex);
	return 0;
}

int callus_match_vector_path(callus_buf *out, const char *workspace, const char *name)
{
	callus_buf_clear(out);
	return callus_buf_printf(out, "%s/.callus/vectors-%s.bin", workspace, name);
}

int callus_match_builtin_vector_path(callus_buf *out, const char *workspace)
{
	return callus_match_vector_path(out, workspace, CALLUS_EMBED_BUILTIN_MODEL);
}

int callus_match_noted_vector_path(callus_buf *out, callus_store *s)
{
	return callus_store_sibling_path(out, s, "vectors-" CALLUS_EMBED_BUILTIN_MODEL ".noted.bin");
}

/* A signature as stored, from columns id, error_type, message_pattern,
 * stack_patterns, context_patterns, original, tool starting at col; its
 * pattern made again when the row keeps none (signature.h). */
int callus_match_read_signature(sqlite3_stmt *st, int col, callus_signature *g)
{
	const unsigned char *id = sqlite3_column_text(st, col);
	callus_buf pattern = CALLUS_BUF_INIT;

	memset(g, 0, sizeof(*g));
	snprintf(g->id, sizeof(g->id), "%s", id ? (const char *)id : "");
	if (!(g->error_type = callus_sql_column_dup(st, col + 1)) ||
	    callus_signature_pattern_load(&pattern, (const char *)sqlite3_column_text(st, col + 2),
					  (const char *)sqlite3_column_text(st, col + 5)) < 0 ||
	    !(g->message_pattern = callus_buf_detach(&pattern)) ||
	    callus_sql_json_strlist(&g->stack_patterns,
				  (const char *)sqlite3_column_text(st, col + 3)) < 0 ||
	    callus_sql_json_strlist(&g->context_patterns,
				  (const char *)sqlite3_column_text(st, col + 4)) < 0 ||
	    !(g->original = callus_sql_column_dup(st, col + 5)) ||
	    !(g->tool = callus_sql_column_dup(st, col + 6))) {
		callus_buf_release(&pattern);
		callus_signature_release(g);
		return SQLITE_NOMEM;
	}
	return SQLITE_OK;
}

/* The vector of sig as the store weighs features now. */
int callus_match_embed(callus_store *s, const callus_signature *sig, float vec[CALLUS_EMBED_DIM])
{
	return callus_match_embed_memo(s, sig, NULL, vec);
}

int callus_match_embed_memo(callus_store *s, const callus_signature *sig,
			    callus_match_df_memo *memo, float vec[CALLUS_EMBED_DIM])
{
	callus_features f = CALLUS_FEATURES_INIT;
	callus_idf *idf = NULL;
	int sq;

	if (callus_embed_features(&f, sig) < 0)
		return SQLITE_NOMEM;
	if ((sq = callus_match_df_load(s, &f, memo, &idf)) == SQLITE_OK)
		callus_embed_vector(vec, &f, idf);
	callus_idf_free(idf);
	callus_features_release(&f);
	return sq;
}

int callus_match_embed_counted(callus_store *s, const callus_signature *sig,
			       const callus_signature *counted, size_t n,
			       float vec[CALLUS_EMBED_DIM])
{
	callus_features f = CALLUS_FEATURES_INIT, g = CALLUS_FEATURES_INIT;
	callus_idf *idf = NULL;
	uint32_t docs;
	int sq;

	if (callus_embed_features(&f, sig) < 0)
		return SQLITE_NOMEM;
	if ((sq = callus_match_df_load(s, &f, NULL, &idf)) != SQLITE_OK)
		goto out;
	docs = callus_idf_docs(idf);
	for (size_t i = 0; i < n; i++) {
		callus_features_release(&g);
		if (callus_embed_features(&g, &counted[i]) < 0 || callus_idf_add(idf, &g) < 0) {
			sq = SQLITE_NOMEM;
			goto out;
		}
	}
	callus_idf_set_docs(idf, docs);
	callus_embed_vector(vec, &f, idf);
out:
	callus_idf_free(idf);
	callus_features_release(&f);
	callus_features_release(&g);
	return sq;
}

static int by_feature_id(const void *a, const void *b)
{
	uint64_t x = ((const callus_feature *)a)->id, y = ((const callus_feature *)b)->id;

	return (x > y) - (x < y);
}

/*
 * The features of a recording's new signatures, made once for their counts
 * and their vectors: each signature's, and the union of them with how many
 * of the signatures hold each.  A build's errors share most of their
 * words, which each signature counted and looked up again (a failure of
 * ten errors, seven hundred upserts and as many lookups for some four
 * hundred features).
 */
typedef struct feature_batch {
	callus_features *each;   /* n: sigs[i]'s */
	size_t n;
	callus_features all;     /* sorted, each id once */
	uint32_t *times;         /* all.count: the signatures holding each */
} feature_batch;

static void feature_batch_release(feature_batch *b)
{
	for (size_t i = 0; b->each && i < b->n; i++)
		callus_features_release(&b->each[i]);
	free(b->each);
	callus_features_release(&b->all);
	free(b->times);
	memset(b, 0, sizeof(*b));
}

/* 0, or -1 without memory (b released). */
static int feature_batch_make(feature_batch *b, const callus_signature *sigs, size_t n)
{
	size_t total = 0, kept = 0;

	memset(b, 0, sizeof(*b));
	if (!(b->each = calloc(n, sizeof(*b->each))))
		goto oom;
	b->n = n;
	for (size_t i = 0; i < n; i++) {
		if (callus_embed_features(&b->each[i], &sigs[i]) < 0)
			goto oom;
		total += b->each[i].count;
	}
	if (!total)
		return 0;
	if (!(b->all.items = malloc(total * sizeof(*b->all.items))) ||
	    !(b->times = malloc(total * sizeof(*b->times))))
		goto oom;
	b->all.alloc = total;
	for (size_t i = 0; i < n; i++) {
		memcpy(b->all.items + b->all.count, b->each[i].items,
		       b->each[i].count * sizeof(*b->all.items));
		b->all.count += b->each[i].count;
	}
	/* a signature holds a feature once: a run of one id is how many hold it */
	qsort(b->all.items, b->all.count, sizeof(*b->all.items), by_feature_id);
	for (size_t i = 0; i < b->all.count; i++) {
		if (kept && b->all.items[i].id == b->all.items[kept - 1].id) {
			b->times[kept - 1]++;
			continue;
		}
		b->all.items[kept] = b->all.items[i];
		b->times[kept++] = 1;
	}
	b->all.count = kept;
	return 0;
oom:
	feature_batch_release(b);
	return -1;
}

/* The vectors of the batch's signatures into vecs, the document
 * frequencies of all their features read once: every count of the batch
 * is in the store before and the document count is the same for all, so
 * each vector is the one callus_match_embed makes. */
static int embed_batch(callus_store *s, const feature_batch *b, float *vecs)
{
	callus_idf *idf = NULL;
	int sq = callus_match_df_load(s, &b->all, NULL, &idf);

	for (size_t i = 0; sq == SQLITE_OK && i < b->n; i++)
		callus_embed_vector(vecs + i * CALLUS_EMBED_DIM, &b->each[i], idf);
	callus_idf_free(idf);
	return sq;
}

/* Signatures a feature batch holds at most: a reindex, or the first
 * indexing after a migration queued them all, takes every signature of the
 * store, whose features at once took 3.4 KB each (a reindex at 68,499
 * signatures peaked at 419 MB, 181 MB counting one at a time). */
#define FEATURE_BATCH_MAX 256u

/*
 * Count the features of sigs[0..n) (every count before any vector, so
 * that the vectors of a batch are weighed alike), a FEATURE_BATCH_MAX of
 * signatures at a time: the sums are the same.  With vecs, then the
 * vectors, batch by batch; a recording's few new signatures make one
 * batch, its features made once for both.
 */
static int count_and_embed(callus_store *s, const callus_signature *sigs, size_t n, float *vecs)
{
	feature_batch fb = { NULL, 0, CALLUS_FEATURES_INIT, NULL };
	int sq = SQLITE_OK;

	for (size_t c = 0; sq == SQLITE_OK && c < n; c += FEATURE_BATCH_MAX) {
		size_t m = n - c < FEATURE_BATCH_MAX ? n - c : FEATURE_BATCH_MAX;

		feature_batch_release(&fb);
		sq = feature_batch_make(&fb, sigs + c, m) < 0
			     ? SQLITE_NOMEM
			     : callus_match_df_count_features(s, &fb.all, fb.times, 1);
	}
	for (size_t c = 0; sq == SQLITE_OK && vecs && c < n; c += FEATURE_BATCH_MAX) {
		size_t m = n - c < FEATURE_BATCH_MAX ? n - c : FEATURE_BATCH_MAX;

		/* the last batch counted is the only one when there is one */
		if (n > FEATURE_BATCH_MAX) {
			feature_batch_release(&fb);
			if (feature_batch_make(&fb, sigs + c, m) < 0) {
				sq = SQLITE_NOMEM;
				break;
			}
		}
		sq = embed_batch(s, &fb, vecs + c * CALLUS_EMBED_DIM);
	}
	feature_batch_release(&fb);
	return sq;
}

/* Packed to int8 (vecindex.h), as in the vector file (a float32 vector
 * took an overflow page of its own), in the sparse form when it is the
 * smaller.  An upsert, not INSERT OR REPLACE, whose delete would not reach
 * the trigger that counts the vectors; kept by the store for the next
 * signature of the batch (ten new errors prepared it ten times). */
static int store_vector(callus_store *s, int64_t sig_rowid, const float *vec)
{
	uint8_t packed[CALLUS_VECINDEX_PACKED(CALLUS_EMBED_DIM)];
	size_t len = callus_vecindex_pack_store(packed, vec, CALLUS_EMBED_DIM);
	sqlite3_stmt *st = NULL;
	int sq = callus_store_stmt(s,
				   "INSERT INTO signature_vectors (sig, model, vector)"
				   " VALUES (?1, " CALLUS_MATCH_BUILTIN_ID ", ?2) ON CONFLICT (sig, model)"
				   " DO UPDATE SET vector = excluded.vector",
				   &st);

	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, sig_rowid);
	sqlite3_bind_blob(st, 2, packed, (int)len, SQLITE_TRANSIENT);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	callus_store_stmt_done(s, st);
	return sq;
}

/*
 * The near duplicates of the batch's vectors vecs[0..n) among the newest
 * CALLUS_MATCH_WINDOW records of the file (match.h), one search for all (a
 * failure's new errors are searched together): for each,
 * the 4 best at least CALLUS_MATCH_DUPLICATE similar (m + 4 * i, nm[i] of
 * them); with scans, the same search notes the records near each for its
 * suggestions' search (callus_match_scans_put).
 */
typedef struct near_batch {
	callus_vecmatch *m;
	size_t *nm, *keep, *nkeep;
} near_batch;

static int near_duplicates(near_batch *nb, const callus_vecindex *vi, const float *vecs,
			   const callus_signature *sigs, size_t n, callus_match_scans *scans)
{
	size_t start;

	if (!n)
		return SQLITE_OK;
	nb->m = calloc(4 * n, sizeof(*nb->m));
	nb->nm = calloc(n, sizeof(*nb->nm));
	if (scans) {
		nb->nkeep = calloc(n, sizeof(*nb->nkeep));
		nb->keep = calloc(n * CALLUS_MATCH_KEEP_MAX, sizeof(*nb->keep));
	}
	if (!nb->m || !nb->nm || (scans && (!nb->nkeep || !nb->keep)))
		return SQLITE_NOMEM;
	if (!vi)
		return SQLITE_OK;
	start = callus_vecindex_newest(vi, CALLUS_MATCH_WINDOW);
	if (callus_vecindex_search_many(vi, vecs, n, (float)CALLUS_MATCH_DUPLICATE, nb->m, nb->nm, 4,
				       start, CALLUS_MATCH_KEEP_MIN, nb->keep,
				       CALLUS_MATCH_KEEP_MAX, nb->nkeep) < 0)
		return SQLITE_NOMEM;
	/* kept or not, the check's result is the same */
	for (size_t i = 0; scans && i < n; i++)
		(void)callus_match_scans_put(scans, sigs[i].id, vecs + i * CALLUS_EMBED_DIM, vi,
					     start, nb->keep + i * CALLUS_MATCH_KEEP_MAX,
					     nb->nkeep[i]);
	return SQLITE_OK;
}

static void near_batch_release(near_batch *nb)
{
	free(nb->m);
	free(nb->nm);
	free(nb->keep);
	free(nb->nkeep);
}

/* The closest indexed signature of the same tool among vec's near
 * duplicates m[0..n), for de-duplication: a record whose number the store
 * gave again (callus_match_record_check) links to nothing. */
static int nearest_same_tool(callus_store *s, const float *vec, const callus_vecmatch *m, size_t n,
			     const char *tool, const char *self, char *out, size_t outsz, double *sim)
{
	sqlite3_stmt *st = NULL;
	callus_match_record_check check = { .model = CALLUS_EMBED_BUILTIN_MODEL,
					     .q = vec,
					     .dim = CALLUS_EMBED_DIM };
	int sq = SQLITE_OK;

	*out = '\0';
	if (!n)
		return SQLITE_OK;
	/* the signature a merged one joined: links never chain (a lookup
	 * follows one) */
	sq = callus_store_stmt(s,
			       "SELECT coalesce((SELECT canonical_id FROM signature_links"
			       " WHERE alias_id = id), id) FROM signatures"
			       " WHERE rowid = ?1 AND tool = ?2 AND id <> ?3",
			       &st);
	if (sq == SQLITE_OK)
		sq = callus_store_stmt(s, CALLUS_MATCH_RECORD_VECTOR_SQL, &check.st);
	for (size_t i = 0; sq == SQLITE_OK && i < n && !*out; i++) {
		int current = 0;

		if ((sq = callus_match_record_current(&check, m[i].id, m[i].score, &current)) !=
			    SQLITE_OK ||
		    !current)
			continue;
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, m[i].id);
		callus_sql_bind_text(st, 2, tool);
		callus_sql_bind_text(st, 3, self);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			snprintf(out, outsz, "%s", (const char *)sqlite3_column_text(st, 0));
			*sim = m[i].score;
		}
		if (sq == SQLITE_ROW || sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	callus_store_stmt_done(s, st);
	callus_store_stmt_done(s, check.st);
	return sq;
}

/* The store's cached statement sql run once, ?1 the alias and ?2 the
 * signature it joins: an SQLite result code. */
static int step_link(callus_store *s, const char *sql, const char *alias, const char *canonical)
{
	sqlite3_stmt *st = NULL;
	int sq = callus_store_stmt(s, sql, &st);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, alias);
	callus_sql_bind_text(st, 2, canonical);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	callus_store_stmt_done(s, st);
	return sq;
}

static int link_duplicate(callus_store *s, const char *alias, const char *canonical, double sim)
{
	sqlite3_stmt *st = NULL;
	char *now = callus_now_iso8601();
	int sq;

	if (!now)
		return SQLITE_NOMEM;
	sq = callus_store_stmt(s,
			       "INSERT OR IGNORE INTO signature_links (alias_id, canonical_id,"
			       " similarity, reason, linked_at) VALUES (?1, ?2, ?3, 'duplicate', ?4)",
			       &st);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, alias);
		callus_sql_bind_text(st, 2, canonical);
		sqlite3_bind_double(st, 3, sim);
		callus_sql_bind_text(st, 4, now);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
		callus_store_stmt_done(s, st);
	}
	free(now);
	/* its notes are the canonical's too, which has the vector a search of
	 * the noted signatures finds: a note its fix made before this link (its
	 * index waited for a busy store) is attached so now, as one made after
	 * is (callus_notes_attach); the noted file, one record behind the
	 * store's count, is written again by the next search */
	if (sq == SQLITE_OK)
		sq = step_link(s,
			       "INSERT OR IGNORE INTO note_signatures (signature_id, note_id)"
			       " SELECT ?2, note_id FROM note_signatures WHERE signature_id = ?1",
			       alias, canonical);
	/* the duplicate's occurrences count for the signature it joins, and
	 * its last one (the run's time, which a replayed history sets) */
	if (sq == SQLITE_OK)
		sq = step_link(s,
			       "UPDATE signatures SET occurrence_count = signatures.occurrence_count +"
			       " d.occurrence_count, last_seen = max(signatures.last_seen,"
			       " d.last_seen) FROM (SELECT occurrence_count, last_seen FROM"
			       " signatures WHERE id = ?1) d WHERE id = ?2",
			       alias, canonical);
	return sq;
}

typedef struct pending_vecs {
	int64_t *ids;
	float *vecs;
	size_t n;
} pending_vecs;

static int pending_add(pending_vecs *p, int64_t id, const float *vec)
{
	int64_t *ids = realloc(p->ids, (p->n + 1) * sizeof(*ids));
	float *vecs;

	if (!ids)
		return SQLITE_NOMEM;
	p->ids = ids;
	if (!(vecs = realloc(p->vecs, (p->n + 1) * CALLUS_EMBED_DIM * sizeof(float))))
		return SQLITE_NOMEM;
	p->vecs = vecs;
	memcpy(p->vecs + p->n * CALLUS_EMBED_DIM, vec, CALLUS_EMBED_DIM * sizeof(float));
	p->ids[p->n++] = id;
	return SQLITE_OK;
}

#define UNINDEXED_WHERE                                                                       \
	" WHERE NOT EXISTS (SELECT 1 FROM signature_vectors v"                                 \
	"  WHERE v.sig = g.rowid AND v.model = " CALLUS_MATCH_BUILTIN_ID ")"                  \
	" AND NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id)"
#define UNINDEXED " FROM signatures g" UNINDEXED_WHERE
/* Only those a trigger queued since the last indexing (store_schema.c),
 * the queue read first (CROSS JOIN keeps that order):
 * looking for them among all the signatures read the whole table at each
 * recording. */
#define UNINDEXED_QUEUED                                                                      \
	" FROM signatures_unindexed u CROSS JOIN signatures g ON g.rowid = u.sig_rowid"    \
	UNINDEXED_WHERE

static int any_unindexed(callus_store *s, int *any)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s), "SELECT 1 FROM signatures_unindexed LIMIT 1",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	sq = sqlite3_step(st);
	*any = sq == SQLITE_ROW;
	sqlite3_finalize(st);
	return sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/*
 * The vector file at path mapped into *vi, made again from the store
 * first when it holds fewer records than the store has vectors: removed,
 * damaged, from another version, restored from a copy.  A recording
 * appends its vectors to the file before committing them, under the
 * store's write lock the caller holds, so a file behind the store is
 * never one a writer is filling.  One that cannot be read or made again
 * is searched as it is (NULL: as empty).
 */
static void open_whole(callus_store *s, callus_vecindex **vi, const char *path)
{
	(void)callus_match_reindex_mend(s, path, 0, NULL);
	if (callus_vecindex_open(vi, path, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, NULL) < 0)
		*vi = NULL;
	if (callus_match_file_sync(s, path, callus_vecindex_count(*vi), callus_match_builtin_count(s),
				   SIZE_MAX, CALLUS_MATCH_BUILTIN_VECTORS, NULL) <= 0)
		return;
	callus_vecindex_close(*vi);
	if (callus_vecindex_open(vi, path, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, NULL) < 0)
		*vi = NULL;
}

/*
 * A reindex renames its new file in before it commits, so that no append
 * lands between its rewrite and the rename.  Cut between the two (killed,
 * its commit refused), it leaves a file of the vectors the store rolled
 * back, as many as the store's: no count tells it.  So the file is marked
 * before the rename, and the mark taken off after the commit.  Beside the
 * file, in the workspace's .callus, where the noted file's reader finds it
 * as the store's sibling.
 */
#define REINDEX_MARK ".reindex"

static int mark_path(callus_buf *out, const char *path)
{
	callus_buf_clear(out);
	return callus_buf_printf(out, "%s" REINDEX_MARK, path);
}

/* Whether path's mark is there (a reindex under way, or cut).  Only a
 * file of its own is one: anything else at its name (a folder, a link),
 * which no unlink takes off, would have every search write the file
 * again; a reindex cannot make its mark there, and fails. */
static int marked(const char *path)
{
	callus_buf mark = CALLUS_BUF_INIT;
	struct stat st;
	int there = mark_path(&mark, path) == 0 && lstat(mark.ptr, &st) == 0 && S_ISREG(st.st_mode);

	callus_buf_release(&mark);
	return there;
}

static int mark_make(const char *path, callus_error *err)
{
	callus_buf mark = CALLUS_BUF_INIT;
	int fd = -1, rc = 0;

	if (mark_path(&mark, path) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* O_NONBLOCK: a FIFO there is refused at once, not waited on */
	fd = open(mark.ptr, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	if (fd < 0)
		rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", mark.ptr,
				      strerror(errno));
out:
	if (fd >= 0)
		close(fd);
	callus_buf_release(&mark);
	return rc;
}

static void mark_take_off(const char *path)
{
	callus_buf mark = CALLUS_BUF_INIT;

	if (mark_path(&mark, path) == 0)
		(void)unlink(mark.ptr);
	callus_buf_release(&mark);
}

int callus_match_reindex_mend(callus_store *s, const char *path, int wait_ms, callus_error *err)
{
	sqlite3 *db = callus_store_db(s);
	callus_match_vfile f = { path, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, 0,
				 CALLUS_MATCH_BUILTIN_VECTORS };
	callus_buf noted = CALLUS_BUF_INIT;
	int begun = 0, rc;
	int64_t stored;

	/* one lstat: what every recording pays */
	if (!marked(path))
		return 0;
	if (sqlite3_get_autocommit(db)) {
		/* the reindex holds the lock until its commit: not waited for */
		if (callus_store_begin_within(s, wait_ms, NULL) < 0)
			return 0;
		begun = 1;
	} else if (sqlite3_txn_state(db, "main") != SQLITE_TXN_WRITE) {
		return 0;
	}
	/* under the write lock: no reindex is under way, this one was cut */
	if ((stored = callus_match_builtin_count(s)) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot count the vectors in '%s'",
				      callus_store_path(s));
		goto out;
	}
	/* one record more than the store's and none allowed ahead: written
	 * again whatever the counts say; the noted signatures' file, which
	 * the reindex removes after its commit, with it */
	if ((rc = callus_match_vfile_sync(s, &f, (size_t)stored + 1, stored, 0, err)) < 0)
		goto out;
	if (callus_match_noted_vector_path(&noted, s) < 0 || callus_vecindex_remove(noted.ptr) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot remove the noted signatures' vector file"
				      " beside '%s'", callus_store_path(s));
		goto out;
	}
	mark_take_off(path);
	rc = 1;
out:
	if (begun)
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
	callus_buf_release(&noted);
	return rc;
}

/* The pages a reindex keeps (64 MB): a store of 100,000 recordings holds
 * some 24,000, a fifth of them the signatures and their vectors. */
#define REINDEX_CACHE_PAGES 16384

static int index_signatures(callus_store *s, const char *workspace, int all,
			    callus_match_scans *scans, size_t *added, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	callus_vecindex *vi = NULL;
	pending_vecs pv = { NULL, NULL, 0 };
	int rc = 0, sq, cache = -1;

	if (added)
		*added = 0;
	/* most recordings bring no new signature: find out without taking
	 * the write lock (the transaction below looks again) */
	if (!all) {
		int any = 0;

		if ((sq = any_unindexed(s, &any)) != SQLITE_OK)
			return callus_store_db_error(s, err, sq, "cannot read");
		if (!any)
			return 0;
	}
	if (callus_match_builtin_vector_path(&path, workspace) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* a reindex rewrites every vector and count in one transaction:
	 * with the connection's 2 MB its pages were read again and again and
	 * spilled to the WAL before the commit wrote them again */
	if (all)
		cache = callus_store_cache_pages(s, REINDEX_CACHE_PAGES);
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out_nodb;
	if (all && (sq = sqlite3_exec(callus_store_db(s),
				      "DELETE FROM embed_df; DELETE FROM embed_df_hot;"
				      " DELETE FROM embed_df_recent;"
				      " DELETE FROM signature_vectors WHERE model = "
				      CALLUS_MATCH_BUILTIN_ID,
				      NULL, NULL, NULL)) != SQLITE_OK)
		goto fail;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				all ? "SELECT g.rowid, " CALLUS_MATCH_SIGNATURE_COLUMNS_G UNINDEXED
				      " ORDER BY g.rowid"
				    : "SELECT g.rowid, " CALLUS_MATCH_SIGNATURE_COLUMNS_G UNINDEXED_QUEUED
				      " ORDER BY g.rowid",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		goto fail;
	/* the new signatures are few: read them first, then write */
	{
		callus_signature *sigs = NULL;
		int64_t *rowids = NULL;
		float *vecs = NULL;
		near_batch nb = { NULL, NULL, NULL, NULL };
		callus_match_df_memo *memo = NULL;
		size_t n = 0;

		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			callus_signature *g = realloc(sigs, (n + 1) * sizeof(*g));
			int64_t *r = g ? realloc(rowids, (n + 1) * sizeof(*r)) : NULL;

			if (g)
				sigs = g;
			if (!g || !r) {
				sq = SQLITE_NOMEM;
				break;
			}
			rowids = r;
			rowids[n] = sqlite3_column_int64(st, 0);
			if ((sq = callus_match_read_signature(st, 1, &sigs[n])) != SQLITE_OK)
				break;
			n++;
		}
		sqlite3_finalize(st);
		st = NULL;
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
		/* a file that cannot be made whole is searched as it is: the
		 * store's vectors are what count, the file is made of them */
		if (sq == SQLITE_OK && n && !all)
			open_whole(s, &vi, path.ptr);
		/* a recording's new signatures: every count, every vector,
		 * then one search of the file for the near duplicates of all
		 * (each search read every sketch of it); a reindex: every
		 * count, then each vector with the documents stored before it */
		if (sq == SQLITE_OK && !all && n &&
		    !(vecs = malloc(n * CALLUS_EMBED_DIM * sizeof(*vecs))))
			sq = SQLITE_NOMEM;
		if (sq == SQLITE_OK && n)
			sq = count_and_embed(s, sigs, n, vecs);
		if (sq == SQLITE_OK && !all)
			sq = near_duplicates(&nb, vi, vecs, sigs, n, scans);
		/* a reindex's features are all counted now, and nothing moves
		 * their counts until the fold after the loop: each is read
		 * once, not once a signature that has it (75,005 signatures
		 * read some 120 each: 70 % of a reindex's 22 s).  Without
		 * memory, each is read as before. */
		if (sq == SQLITE_OK && all && n && callus_match_df_memo_new(&memo) < 0)
			memo = NULL;
		for (size_t i = 0; sq == SQLITE_OK && i < n; i++) {
			float one[CALLUS_EMBED_DIM];
			const float *vec = vecs ? vecs + i * CALLUS_EMBED_DIM : one;
			char near[CALLUS_SHA256_HEX_LEN + 1] = "";
			double sim = 0;

			/* a reindex weighs each vector with the documents
			 * stored before it: their count read again, each
			 * vector stored counting one more */
			callus_match_df_memo_forget_docs(memo);
			if (all && (sq = callus_match_embed_memo(s, &sigs[i], memo, one)) != SQLITE_OK)
				break;
			if (!all && (sq = nearest_same_tool(s, vec, nb.m + 4 * i, nb.nm[i], sigs[i].tool,
							    sigs[i].id, near, sizeof(near), &sim)) !=
					    SQLITE_OK)
				break;
			if (*near) {
				sq = link_duplicate(s, sigs[i].id, near, sim);
				continue;
			}
			if ((sq = store_vector(s, rowids[i], vec)) == SQLITE_OK)
				sq = pending_add(&pv, rowids[i], vec);
		}
		callus_match_df_memo_free(memo);
		free(vecs);
		near_batch_release(&nb);
		callus_signatures_free(sigs, n);
		free(rowids);
	}
	if (sq == SQLITE_OK)
		sq = callus_match_df_fold_when_full(s);
	/* every queued signature was read in this transaction: indexed,
	 * linked, or indexed before */
	if (sq == SQLITE_OK)
		sq = sqlite3_exec(callus_store_db(s), "DELETE FROM signatures_unindexed", NULL, NULL,
				  NULL);
	if (sq != SQLITE_OK)
		goto fail;
	if (all) {
		/* a mark there before is a cut reindex's: kept whatever this
		 * one's fate (its file may be the one still standing) */
		int was_marked = marked(path.ptr);

		if (!was_marked && (rc = mark_make(path.ptr, err)) < 0)
			goto rollback;
		/* every stored vector, with the ones kept from before; not
		 * renamed in, the file stands as it was */
		if ((rc = callus_vecindex_rewrite(path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
						pv.ids, pv.vecs, pv.n, err)) < 0) {
			if (!was_marked)
				mark_take_off(path.ptr);
			goto rollback;
		}
	} else if (pv.n) {
		/* not appended (a file this user cannot write, a full disk):
		 * the vectors are stored all the same, and the file, behind
		 * the store now, is written again from it by the next search
		 * that can (open_searched, match.c) */
		(void)callus_vecindex_append(path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
					     pv.ids, pv.vecs, pv.n, NULL);
	}
	if (added)
		*added = pv.n;
	rc = callus_store_exec(s, "COMMIT", err);
	/* the noted signatures' file holds the old vectors: made again from
	 * the store at its next search, which sees this commit; then the
	 * mark off (killed before, the mend does both).  A commit refused
	 * leaves the mark: the next writer to search writes the file again
	 * from the store. */
	if (rc == 0 && all) {
		callus_buf noted = CALLUS_BUF_INIT;

		if (callus_match_noted_vector_path(&noted, s) == 0 &&
		    callus_vecindex_remove(noted.ptr) == 0)
			mark_take_off(path.ptr);
		callus_buf_release(&noted);
	}
	goto out_nodb;
fail:
	rc = callus_store_db_error(s, err, sq, "cannot index the signatures of");
rollback:
	sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
out_nodb:
	sqlite3_finalize(st);
	if (cache >= 0)
		callus_store_cache_pages(s, cache);
	callus_vecindex_close(vi);
	free(pv.ids);
	free(pv.vecs);
	callus_buf_release(&path);
	return rc;
}

/* A stored vector of f as floats (dim of them) in v: 0, or -1 for a
 * blob of no form f reads. */
static int row_vector(const callus_match_vfile *f, sqlite3_stmt *st, float *v)
{
	const void *blob = sqlite3_column_blob(st, 1);
	size_t len = (size_t)sqlite3_column_bytes(st, 1);

	if (!f->floats ? callus_vecindex_unpack(v, f->dim, blob, len) < 0
		       : !blob || len != f->dim * sizeof(float))
		return -1;
	if (f->floats)
		memcpy(v, blob, len);
	/* what a file holds is normalized (vecindex.h): a damaged scale
	 * unpacks past it, and a rewrite refused every vector for it */
	for (size_t i = 0; i < f->dim; i++)
		if (!(v[i] >= -2.0f && v[i] <= 2.0f))
			return -1;
	return 0;
}

/* The rows a rewrite reads, one vector at a time. */
typedef struct row_src {
	callus_store *s;
	sqlite3_stmt *st;
	const callus_match_vfile *f;
} row_src;

/* callus_vecindex_next over st's rows: a vector of no form f reads, or
 * none a file can hold, is left out (callus reindex makes it again). */
static int row_next(void *arg, int64_t *id, float *v, callus_error *err)
{
	row_src *r = arg;
	int sq;

	while ((sq = sqlite3_step(r->st)) == SQLITE_ROW)
		if (row_vector(r->f, r->st, v) == 0) {
			*id = sqlite3_column_int64(r->st, 0);
			return 1;
		}
	return sq == SQLITE_DONE ? 0
				 : callus_store_db_error(r->s, err, sq, "cannot read the vectors of");
}

/* The file f replaced by the rows st yields, stepped to the end, a
 * vector at a time: an external model's 3,072 floats a vector, every one
 * held at once, took 294 MB for 20,001 of them. */
static int rewrite_file(callus_store *s, sqlite3_stmt *st, const callus_match_vfile *f,
			callus_error *err)
{
	row_src r = { s, st, f };
	int cache, rc;

	/* every vector, by a join: the cache the connection opened with,
	 * whatever a recording asked for (with 64 pages, the hook that
	 * rewrote the notes' file after a reindex took 101.7 ms where it
	 * takes 71.7 at 100,000 recordings: bench/commands.sh); the
	 * caller's again after */
	cache = callus_store_cache_pages(s, 0);
	rc = callus_vecindex_rewrite_each(f->path, f->name, f->dim, row_next, &r, err);
	callus_store_cache_pages(s, cache);
	return rc;
}

int64_t callus_match_builtin_count(callus_store *s)
{
	return callus_store_query_int(s, "SELECT coalesce((SELECT n FROM vector_models WHERE id = "
				      CALLUS_MATCH_BUILTIN_ID "), 0)");
}

int callus_match_window_cuts(callus_store *s, size_t window)
{
	int64_t n = callus_match_builtin_count(s);

	return n > 0 && (uint64_t)n > (uint64_t)window;
}

/* Whether the folder of path may be written in (a file made and renamed). */
static int folder_writable(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
	int ok;

	if (!dir) {
		errno = ENOMEM;
		return 0;
	}
	ok = access(*dir ? dir : "/", W_OK | X_OK) == 0;
	free(dir);
	return ok;
}

int callus_match_vfile_sync(callus_store *s, const callus_match_vfile *f, size_t have,
			    int64_t stored, size_t ahead, callus_error *err)
{
	const char *path = f->path;
	sqlite3_stmt *st = NULL;
	int rc, sq, own = sqlite3_get_autocommit(callus_store_db(s));

	if (stored < 0)
		return callus_error_set(err, CALLUS_EIO, "cannot count the vectors in '%s'",
				      callus_store_path(s));
	if (have >= (size_t)stored && have - (size_t)stored <= ahead)
		return 0;
	/* a folder no file can be renamed into: every vector read for
	 * nothing, at each search that found the file behind */
	if (!folder_writable(path))
		return callus_error_set(err, CALLUS_EIO, "cannot write the vector file '%s': %s", path,
					strerror(errno));
	/* The rewrite under the store's write lock (the caller's, when it
	 * is in a transaction: a recording's, callus reindex's): appends
	 * commit under it, so none lands between the read of the vectors and
	 * the rename, which would replace it; and a file is judged by its
	 * count, so once removals evened the counts again the record would
	 * never come back. */
	if (own && (rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	/* a vector of no form it reads is left out: reindex makes it again */
	sq = sqlite3_prepare_v2(callus_store_db(s), f->sql, -1, &st, NULL);
	rc = sq != SQLITE_OK ? callus_store_db_error(s, err, sq, "cannot read the vectors of")
			     : rewrite_file(s, st, f, err);
	sqlite3_finalize(st);
	/* nothing written: the transaction only held the lock */
	if (own)
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	return rc < 0 ? rc : 1;
}

int callus_match_file_sync(callus_store *s, const char *path, size_t have, int64_t stored,
			   size_t ahead, const char *sql, callus_error *err)
{
	callus_match_vfile f = { path, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, 0, sql };

	return callus_match_vfile_sync(s, &f, have, stored, ahead, err);
}

int callus_match_external_vfile(callus_store *s, const char *workspace, const char *model,
				callus_match_vfile *f, callus_buf *path, callus_buf *sql,
				char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1], int64_t *stored,
				callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int64_t id = 0, len = 0;
	int sq;

	*stored = 0;
	sq = sqlite3_prepare_v2(callus_store_db(s), "SELECT id, n FROM vector_models WHERE name = ?1",
				-1, &st, NULL);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, model);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			*stored = sqlite3_column_int64(st, 1);
		}
		sq = sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
	}
	sqlite3_finalize(st);
	st = NULL;
	/* the model's dimension is its vectors' (a model's vectors all have
	 * it: store_batch stores what the endpoint gave).  The newest first:
	 * the rows are by signature, and the newest signatures are the ones
	 * the model embedded last, where the oldest may be the built-in
	 * model's alone (an embedder set up after a year of them) */
	if (sq == SQLITE_OK && *stored > 0 &&
	    (sq = sqlite3_prepare_v2(callus_store_db(s),
				     "SELECT length(vector) FROM signature_vectors WHERE model = ?1"
				     " ORDER BY sig DESC LIMIT 1",
				     -1, &st, NULL)) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, id);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			len = sqlite3_column_int64(st, 0);
		sq = sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the vectors of");
	if (*stored <= 0 || len <= 0)
		return 1;
	if (len % (int64_t)sizeof(float))
		return callus_error_set(err, CALLUS_EINVAL,
				      "the vectors of %s in '%s' are %lld bytes long: not floats",
				      model, callus_store_path(s), (long long)len);
	callus_buf_clear(sql);
	if (callus_match_vector_name(name, model) < 0 ||
	    callus_match_vector_path(path, workspace, name) < 0 ||
	    callus_buf_printf(sql,
			      "SELECT sig, vector FROM signature_vectors WHERE model = %lld"
			      " ORDER BY sig",
			      (long long)id) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	f->path = path->ptr;
	f->name = name;
	f->dim = (size_t)len / sizeof(float);
	f->floats = 1;
	f->sql = sql->ptr;
	return 0;
}

/* A record of the file, by id: the check's merge with the store's rows. */
typedef struct file_rec {
	int64_t id;
	size_t at;
} file_rec;

static int rec_cmp(const void *a, const void *b)
{
	const file_rec *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id ? 1 : x->at < y->at ? -1 : x->at > y->at;
}

/* The int8 components (f->dim of them) and scale of the vector of the
 * row st is on, as the file quantizes it: a packed one's own bytes, an
 * external model's floats quantized as an append does.  -1 for a blob of
 * no form f reads. */
static int row_quantized(const callus_match_vfile *f, sqlite3_stmt *st, float *v, uint8_t *packed,
			 float *scale, int8_t **q)
{
	if (row_vector(f, st, v) < 0)
		return -1;
	if (f->floats) {
		callus_vecindex_pack(packed, v, f->dim);
		memcpy(scale, packed, sizeof(*scale));
		*q = (int8_t *)(packed + sizeof(float));
		return 0;
	}
	memcpy(scale, sqlite3_column_blob(st, 1), sizeof(*scale));
	*q = (int8_t *)(packed + sizeof(float));
	/* each v[i] is q * scale: divided back, q to within rounding */
	for (size_t i = 0; i < f->dim; i++)
		(*q)[i] = (int8_t)(*scale != 0 ? lrintf(v[i] / *scale) : 0);
	return 0;
}

/* Whether the file's record at `at` holds that vector: the same
 * components, and the same scale but for the rounding a rewrite's second
 * quantization of the unpacked floats may add.  fq: dim bytes to read
 * the record into. */
static int rec_is(const callus_vecindex *vi, size_t at, size_t dim, float scale, const int8_t *q,
		  int8_t *fq)
{
	float fscale;

	(void)callus_vecindex_record(vi, at, &fscale, fq);
	return !memcmp(q, fq, dim) && fabsf(fscale - scale) <= 1e-5f * fabsf(scale);
}

/* The store's vectors against the file's records, both by id. */
static int file_compare(callus_store *s, const callus_match_vfile *f, const callus_vecindex *vi,
			callus_match_file_state *out, callus_error *err)
{
	size_t n = callus_vecindex_count(vi), k = 0;
	file_rec *recs = n ? malloc(n * sizeof(*recs)) : NULL;
	float *v = malloc(f->dim * sizeof(*v));
	uint8_t *packed = malloc(CALLUS_VECINDEX_PACKED(f->dim));
	int8_t *fq = malloc(f->dim);
	sqlite3_stmt *st = NULL;
	int64_t last = 0;
	int sq = SQLITE_OK, cache, rc = 0, any = 0, last_missing = 0;

	if ((n && !recs) || !v || !packed || !fq) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out_mem;
	}
	for (size_t i = 0; i < n; i++) {
		float scale;

		recs[i].id = callus_vecindex_record(vi, i, &scale, fq);
		recs[i].at = i;
	}
	if (n)
		qsort(recs, n, sizeof(*recs), rec_cmp);
	cache = callus_store_cache_pages(s, 0);
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), f->sql, -1, &st, NULL)) != SQLITE_OK)
		goto out;
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		float scale = 0;
		int8_t *q = NULL;
		size_t good = 0, bad = 0;
		int readable;

		/* a signature twice (two notes of it): its records judged once,
		 * a record wanted for each */
		if (any && id == last) {
			out->missing += last_missing;
			continue;
		}
		any = 1;
		last = id;
		last_missing = 0;
		readable = row_quantized(f, st, v, packed, &scale, &q) == 0;
		/* one no file can hold (another dimension than the model's
		 * newest, a damaged blob): reindex makes it again */
		if (!readable) {
			out->unreadable++;
			continue;
		}
		/* a removed signature's records stay until the file is written
		 * again (gc, at a tenth of it): no damage */
		while (k < n && recs[k].id < id)
			k++;
		for (; k < n && recs[k].id == id; k++) {
			if (rec_is(vi, recs[k].at, f->dim, scale, q, fq))
				good++;
			else
				bad++;
		}
		/* a stale record beside a good one (a hook cut between its
		 * append and its commit, the signature embedded again later)
		 * is passed over by the search that finds it, which finds the
		 * good one too: no damage */
		if (!good) {
			out->missing++;
			out->damaged += bad;
			last_missing = 1;
		}
	}
	sq = sq == SQLITE_DONE ? SQLITE_OK : sq;
out:
	if (sq != SQLITE_OK)
		rc = callus_store_db_error(s, err, sq, "cannot read the vectors of");
	sqlite3_finalize(st);
	callus_store_cache_pages(s, cache);
out_mem:
	free(recs);
	free(v);
	free(packed);
	free(fq);
	return rc;
}

int callus_match_file_check(callus_store *s, const char *workspace, callus_match_file_kind kind,
			    const char *model, int fix, callus_match_file_state *out,
			    callus_error *err)
{
	char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
	callus_buf path = CALLUS_BUF_INIT, sql = CALLUS_BUF_INIT;
	callus_match_vfile f = { NULL, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, 0,
				 CALLUS_MATCH_BUILTIN_VECTORS };
	callus_vecindex *vi = NULL;
	const char *base;
	int rc = 0, stale = 0, snap = 0, mend;

	memset(out, 0, sizeof(*out));
	/* a mark with no reindex holding the lock: cut (one under way holds
	 * it until its commit) */
	if (kind == CALLUS_MATCH_FILE_BUILTIN && callus_match_builtin_vector_path(&path, workspace) == 0 &&
	    marked(path.ptr) && callus_store_begin_within(s, 0, NULL) == 0) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		out->reindex_cut = 1;
	}
	/* The store's snapshot first, the file after: a writer appends to
	 * the file before it commits, so the file holds every vector of the
	 * snapshot (what it holds past it is ahead, and harmless).  Read the
	 * other way round, a hook committing in between was a vector
	 * missing. */
	if ((rc = callus_store_read_begin(s, &snap, err)) < 0)
		return rc;
	switch (kind) {
	case CALLUS_MATCH_FILE_BUILTIN:
		out->stored = callus_match_builtin_count(s);
		rc = callus_match_builtin_vector_path(&path, workspace);
		break;
	case CALLUS_MATCH_FILE_NOTED:
		out->stored = callus_store_query_int(s, "SELECT n FROM noted_count");
		f.sql = CALLUS_MATCH_NOTED_VECTORS " ORDER BY g.rowid";
		rc = callus_match_noted_vector_path(&path, s);
		break;
	case CALLUS_MATCH_FILE_EXTERNAL:
		rc = callus_match_external_vfile(s, workspace, model, &f, &path, &sql, name,
						 &out->stored, err);
		if (rc > 0) {
			/* none stored: no file to check */
			out->stored = 0;
			rc = 0;
			goto out;
		}
		if (rc < 0)
			goto out;
		break;
	}
	if (!path.ptr) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	f.path = path.ptr;
	base = strrchr(path.ptr, '/');
	snprintf(out->file, sizeof(out->file), "%s", base ? base + 1 : path.ptr);
	if (out->stored < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot count the vectors in '%s'",
				      callus_store_path(s));
		goto out;
	}
	/* without fix nothing is written: not even the sketch and postings
	 * that any other reader makes when missing; with it they are made,
	 * and said */
	if (callus_vecindex_open_as_is(&vi, path.ptr, f.name, f.dim, &stale, NULL) == 0)
		out->have = callus_vecindex_count(vi);
	out->derived_absent = callus_vecindex_derived_absent(vi);
	if (fix && out->derived_absent) {
		callus_vecindex_close(vi);
		if (callus_vecindex_open(&vi, path.ptr, f.name, f.dim, &stale, NULL) < 0)
			vi = NULL;
	}
	out->present = out->have > 0 || stale || access(path.ptr, F_OK) == 0;
	/* the noted file is made by a note's first append or the first
	 * search that needs it: none yet is in step; and every reader makes
	 * it again from the store first when it holds fewer records than the
	 * store counts (callus_notes_vectors_fresh): behind is no problem */
	if (kind == CALLUS_MATCH_FILE_NOTED &&
	    (!out->present || stale || out->have < (size_t)out->stored)) {
		out->behind = out->present;
		goto out;
	}
	if ((rc = file_compare(s, &f, vi, out, err)) < 0)
		goto out;
	out->derived = callus_vecindex_derived_damaged(vi);
out:
	callus_store_read_end(s, snap);
	/* what writing the file again mends (a noted file behind: only when
	 * asked, its next reader does it otherwise); unreadable vectors it
	 * cannot */
	mend = out->missing || out->damaged || out->derived || out->reindex_cut ||
	       (fix && out->behind);
	/* a cut reindex's mark is taken off under the lock, with the file
	 * written again (0: a reindex took the lock since, or a writer held
	 * it a whole second) */
	if (rc == 0 && fix && out->reindex_cut) {
		if ((rc = callus_match_reindex_mend(s, f.path, 1000, err)) == 0)
			rc = callus_error_set(err, CALLUS_EBUSY, "cannot take the store's write lock");
		else if (rc > 0)
			rc = 0;
	}
	/* one record more than the store's and none allowed ahead: written
	 * again whatever the counts say (an empty store's too), from the
	 * store as it is now */
	else if (rc == 0 && mend && fix)
		rc = callus_match_vfile_sync(s, &f, (size_t)out->stored + 1, out->stored, 0, err);
	if (rc >= 0 && (mend || out->unreadable))
		rc = 1;
	callus_vecindex_close(vi);
	callus_buf_release(&path);
	callus_buf_release(&sql);
	return rc;
}

int callus_match_index(callus_store *s, const char *workspace, size_t *added, callus_error *err)
{
	return index_signatures(s, workspace, 0, NULL, added, err);
}

int callus_match_index_scanned(callus_store *s, const char *workspace, callus_match_scans *scans,
			       size_t *added, callus_error *err)
{
	return index_signatures(s, workspace, 0, scans, added, err);
}

int callus_match_reindex(callus_store *s, const char *workspace, size_t *count, callus_error *err)
{
	return index_signatures(s, workspace, 1, NULL, count, err);
}


int callus_match_other_models(callus_store *s, const char *named,
			      int (*fn)(void *arg, const char *model, int64_t n), void *arg,
			      callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc = 0, sq = sqlite3_prepare_v2(callus_store_db(s),
					    "SELECT name, n FROM vector_models WHERE id != "
					    CALLUS_MATCH_BUILTIN_ID " AND name IS NOT ?1 AND n > 0"
					    " ORDER BY id",
					    -1, &st, NULL);

	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, named);
		while (rc == 0 && (sq = sqlite3_step(st)) == SQLITE_ROW)
			rc = fn(arg, (const char *)sqlite3_column_text(st, 0),
				sqlite3_column_int64(st, 1));
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return callus_error_set(err, rc, "out of memory");
	return sq == SQLITE_DONE ? 0 : callus_store_db_error(s, err, sq, "cannot read the models of");
}

int callus_match_count_vectors(callus_store *s, const char *model, int64_t *with, int64_t *all,
			     callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_store_totals t;
	int sq, rc, snap;

	/* the totals and the links of one moment: a recording committing a
	 * signature and its link between the two reads made the count of
	 * those without a vector one short (the background reindex then
	 * sent nothing) */
	if ((rc = callus_store_read_begin(s, &snap, err)) < 0)
		return rc;
	if ((rc = callus_store_totals_get(s, &t, err)) < 0)
		goto out;
	/* from the counts the triggers keep, less the linked signatures (every
	 * alias is a stored signature; their vectors counted too, schema 41):
	 * `callus status` read every vector and every signature, then each
	 * link's alias and its vectors.  The links' own count walks their
	 * index's pages, not a row at a time */
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT coalesce((SELECT n - aliased FROM vector_models WHERE name = ?1),"
				" 0), ?2 - (SELECT count(*) FROM signature_links)",
				-1, &st, NULL);
	if (sq == SQLITE_OK) {
		sqlite3_bind_int64(st, 2, t.signatures);
		callus_sql_bind_text(st, 1, model);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			*with = sqlite3_column_int64(st, 0);
			*all = sqlite3_column_int64(st, 1);
			sq = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	rc = sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot read");
out:
	callus_store_read_end(s, snap);
	return rc;
}
