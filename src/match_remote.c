/*
 * match_remote.c - the stored signatures embedded by an external model
 * (include/callus/match.h, include/callus/embed_remote.h).
 *
 * The endpoint may take seconds, or not answer: nothing here holds the
 * store's lock while it is asked.  Each batch is read, sent, then written
 * in its own short transaction, so that agents recording failures
 * meanwhile never wait on the network, and a failure loses only the batch
 * it happened in.
 */
#include "callus/match.h"
#include "callus/buf.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REMOTE_BATCH 64  /* signatures per request */

int callus_match_remote_text(callus_buf *out, const callus_signature *sig)
{
	return callus_buf_printf(out, "%s %s: %s", sig->tool ? sig->tool : "",
			       sig->error_type ? sig->error_type : "",
			       sig->original ? sig->original : "");
}

typedef struct remote_batch {
	int64_t *rowids;
	char **texts;
	size_t n;
} remote_batch;

static void batch_release(remote_batch *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->texts[i]);
	free(b->rowids);
	free(b->texts);
	memset(b, 0, sizeof(*b));
}

/* Up to REMOTE_BATCH signatures after rowid `after` with no vector from
 * model, and not linked to another. */
static int read_batch(callus_store *s, const char *model, int64_t after, remote_batch *b)
{
	sqlite3_stmt *st = NULL;
	int sq;

	memset(b, 0, sizeof(*b));
	if (!(b->rowids = calloc(REMOTE_BATCH, sizeof(*b->rowids))) ||
	    !(b->texts = calloc(REMOTE_BATCH, sizeof(*b->texts))))
		return SQLITE_NOMEM;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT g.rowid, " CALLUS_MATCH_SIGNATURE_COLUMNS_G " FROM signatures g"
				" WHERE g.rowid > ?2 AND NOT EXISTS (SELECT 1 FROM signature_vectors v"
				"  WHERE v.sig = g.rowid AND v.model ="
				"   (SELECT id FROM vector_models WHERE name = ?1))"
				" AND NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id)"
				" ORDER BY g.rowid LIMIT ?3",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, model);
	sqlite3_bind_int64(st, 2, after);
	sqlite3_bind_int(st, 3, REMOTE_BATCH);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_buf text = CALLUS_BUF_INIT;
		callus_signature g;

		if ((sq = callus_match_read_signature(st, 1, &g)) != SQLITE_OK)
			break;
		if (callus_match_remote_text(&text, &g) < 0) {
			callus_buf_release(&text);
			callus_signature_release(&g);
			sq = SQLITE_NOMEM;
			break;
		}
		b->rowids[b->n] = sqlite3_column_int64(st, 0);
		b->texts[b->n++] = callus_buf_detach(&text);
		callus_signature_release(&g);
	}
	sqlite3_finalize(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* One batch's vectors into the store, then its vector file. */
static int store_batch(callus_store *s, const char *workspace, const char *model,
		       const remote_batch *b, const float *vecs, size_t dim, size_t *stored,
		       callus_error *err)
{
	char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
	callus_buf path = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t *kept = NULL;
	float *kept_vecs = NULL;
	size_t nkept = 0;
	int rc, sq;

	if (callus_match_vector_name(name, model) < 0 ||
	    callus_match_vector_path(&path, workspace, name) < 0 ||
	    !(kept = calloc(b->n, sizeof(*kept))) ||
	    !(kept_vecs = calloc(b->n * dim, sizeof(*kept_vecs)))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	/* the model's id (schema 32), given at its first vector */
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"INSERT OR IGNORE INTO vector_models (name) VALUES (?1)", -1, &st,
				NULL);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, model);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	}
	sqlite3_finalize(st);
	st = NULL;
	/* a concurrent indexer may have stored some meanwhile: those stay;
	 * one removed meanwhile (callus gc) gets none */
	if (sq == SQLITE_OK)
		sq = sqlite3_prepare_v2(callus_store_db(s),
					"INSERT INTO signature_vectors (sig, model, vector)"
					" SELECT ?1, m.id, ?3 FROM vector_models m WHERE m.name = ?2"
					"  AND EXISTS (SELECT 1 FROM signatures WHERE rowid = ?1)"
					" ON CONFLICT DO NOTHING",
					-1, &st, NULL);
	for (size_t i = 0; sq == SQLITE_OK && i < b->n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, b->rowids[i]);
		callus_sql_bind_text(st, 2, model);
		sqlite3_bind_blob(st, 3, vecs + i * dim, (int)(dim * sizeof(float)), SQLITE_STATIC);
		if ((sq = sqlite3_step(st)) != SQLITE_DONE)
			break;
		sq = SQLITE_OK;
		if (sqlite3_changes(callus_store_db(s)) > 0) {
			kept[nkept] = b->rowids[i];
			memcpy(kept_vecs + nkept * dim, vecs + i * dim, dim * sizeof(float));
			nkept++;
		}
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot store the vectors in");
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	/* appended before the commit, as the built-in index does: a file
	 * ahead of the store is harmless (an id without a row is skipped) */
	if (nkept && (rc = callus_vecindex_append(path.ptr, name, dim, kept, kept_vecs, nkept,
						err)) < 0) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	if ((rc = callus_store_exec(s, "COMMIT", err)) == 0)
		*stored += nkept;
out:
	free(kept);
	free(kept_vecs);
	callus_buf_release(&path);
	return rc;
}

/* Forget every vector of model: the rows and the file. */
static int drop_model(callus_store *s, const char *workspace, const char *model, callus_error *err)
{
	char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
	callus_buf path = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc, sq;

	if (callus_match_vector_name(name, model) < 0 ||
	    callus_match_vector_path(&path, workspace, name) < 0) {
		callus_buf_release(&path);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	sq = sqlite3_prepare_v2(callus_store_db(s), "DELETE FROM signature_vectors WHERE model ="
				" (SELECT id FROM vector_models WHERE name = ?1)",
				-1, &st, NULL);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, model);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_OK)
		rc = callus_store_db_error(s, err, sq, "cannot drop the vectors in");
	else if (callus_vecindex_remove(path.ptr) < 0)
		rc = callus_error_set(err, CALLUS_EIO, "cannot remove '%s': %s", path.ptr,
				    strerror(errno));
	else
		rc = 0;
	callus_buf_release(&path);
	return rc;
}

/*
 * The model's file in step with the store: made again from the stored
 * vectors when it fell behind them (removed, cut short, restored from a
 * copy: the batches send only signatures without a vector, so its
 * records would never come back, and the model's search found nothing
 * similar to their errors), or when the records of removed signatures
 * are more than a tenth of it (and 64).  Counted, not read: one header.
 * Behind, the model's vectors of another dimension than its newest (an
 * endpoint that changed models under one name) are dropped first: no
 * file of the newest dimension holds them, no query of it can use them,
 * and they kept the file behind, made again at every reindex; *dropped
 * says how many, for the caller to send again.
 */
static int sync_file(callus_store *s, const char *workspace, const char *model,
		     int64_t *dropped, callus_error *err)
{
	char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
	callus_buf path = CALLUS_BUF_INIT, sql = CALLUS_BUF_INIT;
	callus_match_vfile f;
	sqlite3_stmt *st = NULL;
	int64_t stored;
	size_t have;
	int rc = callus_match_external_vfile(s, workspace, model, &f, &path, &sql, name, &stored,
					     err);

	*dropped = 0;
	if (rc)
		goto out;
	have = callus_vecindex_file_count(f.path, f.name, f.dim);
	if (have < (size_t)stored) {
		int sq = sqlite3_prepare_v2(callus_store_db(s),
					    "DELETE FROM signature_vectors WHERE model ="
					    " (SELECT id FROM vector_models WHERE name = ?1)"
					    " AND length(vector) != ?2",
					    -1, &st, NULL);

		if (sq == SQLITE_OK) {
			callus_sql_bind_text(st, 1, model);
			sqlite3_bind_int64(st, 2, (sqlite3_int64)(f.dim * sizeof(float)));
			sq = sqlite3_step(st);
		}
		if (sq != SQLITE_DONE) {
			rc = callus_store_db_error(s, err, sq, "cannot drop the vectors in");
			goto out;
		}
		/* counted again: the newest vector, and so the dimension, stay */
		if ((*dropped = sqlite3_changes64(callus_store_db(s))) > 0 &&
		    (rc = callus_match_external_vfile(s, workspace, model, &f, &path, &sql, name,
						      &stored, err)) != 0)
			goto out;
	}
	rc = callus_match_vfile_sync(s, &f, have, stored, (size_t)stored / 10 + 64, err);
out:
	sqlite3_finalize(st);
	callus_buf_release(&path);
	callus_buf_release(&sql);
	return rc < 0 ? rc : 0;
}

/* The signatures of the store after rowid `after` with no vector from
 * model sent to the endpoint in batches, each stored as it comes
 * (*stored counts them). */
static int send_from(callus_store *s, const char *workspace, const char *model,
		     const callus_embed_remote_opts *ro, int64_t after, size_t *stored,
		     callus_error *err)
{
	int rc = 0;

	for (;;) {
		remote_batch b;
		float *vecs = NULL;
		size_t dim = 0;
		int sq = read_batch(s, model, after, &b);

		if (sq != SQLITE_OK) {
			batch_release(&b);
			return callus_store_db_error(s, err, sq, "cannot read");
		}
		if (!b.n) {
			batch_release(&b);
			return 0;
		}
		after = b.rowids[b.n - 1];
		rc = callus_embed_remote(&vecs, &dim, (const char *const *)b.texts, b.n, ro, err);
		if (rc == 0)
			rc = store_batch(s, workspace, model, &b, vecs, dim, stored, err);
		free(vecs);
		batch_release(&b);
		if (rc < 0)
			return rc;
	}
}

/* How many signatures (not linked to another) have no vector from model:
 * what send_from(0) would send, from the counts the store keeps.  -1 when
 * they cannot be read. */
static int64_t unembedded(callus_store *s, const char *model)
{
	int64_t with, all;

	if (callus_match_count_vectors(s, model, &with, &all, NULL) < 0)
		return -1;
	return all - with;
}

/* The newest signature with a vector from model (0: none): the rows are
 * by signature, walked from the newest. */
static int64_t newest_embedded(callus_store *s, const char *model)
{
	sqlite3_stmt *st = NULL;
	int64_t sig = 0;

	if (sqlite3_prepare_v2(callus_store_db(s),
			       "SELECT sig FROM signature_vectors WHERE model ="
			       " (SELECT id FROM vector_models WHERE name = ?1) ORDER BY sig DESC"
			       " LIMIT 1",
			       -1, &st, NULL) == SQLITE_OK) {
		callus_sql_bind_text(st, 1, model);
		if (sqlite3_step(st) == SQLITE_ROW)
			sig = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return sig;
}

int callus_match_index_remote(callus_store *s, const char *workspace,
			    const callus_embed_remote_opts *ro, int all, size_t *added,
			    callus_error *err)
{
	char *model = NULL;
	size_t stored = 0;
	int64_t left, dropped;
	int rc, synced;

	if (added)
		*added = 0;
	if ((rc = callus_embed_remote_model_id(&model, ro->url, ro->model, err)) < 0)
		return rc;
	/* every vector again: the old ones dropped only once the endpoint
	 * answers (one that is down, or moved, would leave none) */
	if (all) {
		const char *probe[] = { "callus" };
		float *v = NULL;
		size_t d = 0;

		rc = callus_embed_remote(&v, &d, probe, 1, ro, err);
		free(v);
		if (rc < 0 || (rc = drop_model(s, workspace, model, err)) < 0)
			goto out;
		rc = send_from(s, workspace, model, ro, 0, &stored, err);
	} else if ((left = unembedded(s, model)) != 0) {
		/* Only what has no vector, which a failure's new errors start
		 * (in the background, at each one): the walk of every signature
		 * for them cost 29 ms of CPU at 10,000 recordings, with nothing
		 * to send (bench/reindex.sh).  The counts say whether any is
		 * left; the newest signatures are the new ones, so the walk
		 * starts at the newest one embedded, and goes over the older
		 * ones only when some are still left (a batch the endpoint
		 * failed, a vector removed) */
		rc = send_from(s, workspace, model, ro, left > 0 ? newest_embedded(s, model) : 0,
			       &stored, err);
		if (rc == 0 && left > 0 && unembedded(s, model) != 0)
			rc = send_from(s, workspace, model, ro, 0, &stored, err);
	}
	/* the file needs no endpoint: made again whatever the sends gave
	 * (the first error is the one said) */
	synced = sync_file(s, workspace, model, &dropped, err);
	if (rc == 0 && synced == 0 && dropped > 0) {
		/* vectors of the model's older dimension: sent again */
		rc = send_from(s, workspace, model, ro, 0, &stored, err);
		synced = sync_file(s, workspace, model, &dropped, err);
	}
	if (rc == 0)
		rc = synced;
out:
	if (added)
		*added = stored;
	free(model);
	return rc;
}
