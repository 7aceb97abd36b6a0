/*
 * match_remote.c - the stored signatures embedded by an external model
 * (include/deja/match.h, include/deja/embed_remote.h).
 *
 * The endpoint may take seconds, or not answer: nothing here holds the
 * store's lock while it is asked.  Each batch is read, sent, then written
 * in its own short transaction, so that agents recording failures
 * meanwhile never wait on the network, and a failure loses only the batch
 * it happened in.
 */
#include "deja/match.h"
#include "deja/buf.h"
#include "deja/vecindex.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REMOTE_BATCH 64  /* signatures per request */

int deja_match_remote_text(deja_buf *out, const deja_signature *sig)
{
	return deja_buf_printf(out, "%s %s: %s", sig->tool ? sig->tool : "",
			       sig->error_type ? sig->error_type : "",
			       sig->original ? sig->original : "");
}

typedef struct remote_batch {
	int64_t *rowids;
	char **ids;
	char **texts;
	size_t n;
} remote_batch;

static void batch_release(remote_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->ids[i]);
		free(b->texts[i]);
	}
	free(b->rowids);
	free(b->ids);
	free(b->texts);
	memset(b, 0, sizeof(*b));
}

/* Up to REMOTE_BATCH signatures after rowid `after` with no vector from
 * model, and not linked to another. */
static int read_batch(deja_store *s, const char *model, int64_t after, remote_batch *b)
{
	sqlite3_stmt *st = NULL;
	int sq;

	memset(b, 0, sizeof(*b));
	if (!(b->rowids = calloc(REMOTE_BATCH, sizeof(*b->rowids))) ||
	    !(b->ids = calloc(REMOTE_BATCH, sizeof(*b->ids))) ||
	    !(b->texts = calloc(REMOTE_BATCH, sizeof(*b->texts))))
		return SQLITE_NOMEM;
	sq = sqlite3_prepare_v2(deja_store_db(s),
				"SELECT g.rowid, " DEJA_MATCH_SIGNATURE_COLUMNS " FROM signatures g"
				" WHERE g.rowid > ?2 AND NOT EXISTS (SELECT 1 FROM signature_vectors v"
				"  WHERE v.signature_id = g.id AND v.model = ?1)"
				" AND NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id)"
				" ORDER BY g.rowid LIMIT ?3",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	deja_sql_bind_text(st, 1, model);
	sqlite3_bind_int64(st, 2, after);
	sqlite3_bind_int(st, 3, REMOTE_BATCH);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		deja_buf text = DEJA_BUF_INIT;
		deja_signature g;

		if ((sq = deja_match_read_signature(st, 1, &g)) != SQLITE_OK)
			break;
		if (deja_match_remote_text(&text, &g) < 0 || !(b->ids[b->n] = strdup(g.id))) {
			deja_buf_release(&text);
			deja_signature_release(&g);
			sq = SQLITE_NOMEM;
			break;
		}
		b->rowids[b->n] = sqlite3_column_int64(st, 0);
		b->texts[b->n++] = deja_buf_detach(&text);
		deja_signature_release(&g);
	}
	sqlite3_finalize(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* One batch's vectors into the store, then its vector file. */
static int store_batch(deja_store *s, const char *workspace, const char *model,
		       const remote_batch *b, const float *vecs, size_t dim, size_t *stored,
		       deja_error *err)
{
	char name[DEJA_MATCH_VECTOR_NAME_MAX + 1];
	deja_buf path = DEJA_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int64_t *kept = NULL;
	float *kept_vecs = NULL;
	size_t nkept = 0;
	int rc, sq;

	if (deja_match_vector_name(name, model) < 0 ||
	    deja_match_vector_path(&path, workspace, name) < 0 ||
	    !(kept = calloc(b->n, sizeof(*kept))) ||
	    !(kept_vecs = calloc(b->n * dim, sizeof(*kept_vecs)))) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = deja_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	/* a concurrent indexer may have stored some meanwhile: those stay */
	sq = sqlite3_prepare_v2(deja_store_db(s),
				"INSERT INTO signature_vectors (signature_id, model, vector)"
				" VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
				-1, &st, NULL);
	for (size_t i = 0; sq == SQLITE_OK && i < b->n; i++) {
		sqlite3_reset(st);
		deja_sql_bind_text(st, 1, b->ids[i]);
		deja_sql_bind_text(st, 2, model);
		sqlite3_bind_blob(st, 3, vecs + i * dim, (int)(dim * sizeof(float)), SQLITE_STATIC);
		if ((sq = sqlite3_step(st)) != SQLITE_DONE)
			break;
		sq = SQLITE_OK;
		if (sqlite3_changes(deja_store_db(s)) > 0) {
			kept[nkept] = b->rowids[i];
			memcpy(kept_vecs + nkept * dim, vecs + i * dim, dim * sizeof(float));
			nkept++;
		}
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_OK) {
		rc = deja_store_db_error(s, err, sq, "cannot store the vectors in");
		sqlite3_exec(deja_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	/* appended before the commit, as the built-in index does: a file
	 * ahead of the store is harmless (an id without a row is skipped) */
	if (nkept && (rc = deja_vecindex_append(path.ptr, name, dim, kept, kept_vecs, nkept,
						err)) < 0) {
		sqlite3_exec(deja_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	if ((rc = deja_store_exec(s, "COMMIT", err)) == 0)
		*stored += nkept;
out:
	free(kept);
	free(kept_vecs);
	deja_buf_release(&path);
	return rc;
}

/* Forget every vector of model: the rows and the file. */
static int drop_model(deja_store *s, const char *workspace, const char *model, deja_error *err)
{
	char name[DEJA_MATCH_VECTOR_NAME_MAX + 1];
	deja_buf path = DEJA_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc, sq;

	if (deja_match_vector_name(name, model) < 0 ||
	    deja_match_vector_path(&path, workspace, name) < 0) {
		deja_buf_release(&path);
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	}
	sq = sqlite3_prepare_v2(deja_store_db(s), "DELETE FROM signature_vectors WHERE model = ?1",
				-1, &st, NULL);
	if (sq == SQLITE_OK) {
		deja_sql_bind_text(st, 1, model);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(deja_store_db(s));
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_OK)
		rc = deja_store_db_error(s, err, sq, "cannot drop the vectors in");
	else if (unlink(path.ptr) < 0 && errno != ENOENT)
		rc = deja_error_set(err, DEJA_EIO, "cannot remove '%s': %s", path.ptr,
				    strerror(errno));
	else
		rc = 0;
	deja_buf_release(&path);
	return rc;
}

int deja_match_index_remote(deja_store *s, const char *workspace,
			    const deja_embed_remote_opts *ro, int all, size_t *added,
			    deja_error *err)
{
	char *model = NULL;
	int64_t after = 0;
	size_t stored = 0;
	int rc;

	if (added)
		*added = 0;
	if ((rc = deja_embed_remote_model_id(&model, ro->url, ro->model, err)) < 0)
		return rc;
	if (all && (rc = drop_model(s, workspace, model, err)) < 0)
		goto out;
	for (;;) {
		remote_batch b;
		float *vecs = NULL;
		size_t dim = 0;
		int sq = read_batch(s, model, after, &b);

		if (sq != SQLITE_OK) {
			batch_release(&b);
			rc = deja_store_db_error(s, err, sq, "cannot read");
			break;
		}
		if (!b.n) {
			batch_release(&b);
			break;
		}
		after = b.rowids[b.n - 1];
		rc = deja_embed_remote(&vecs, &dim, (const char *const *)b.texts, b.n, ro, err);
		if (rc == 0)
			rc = store_batch(s, workspace, model, &b, vecs, dim, &stored, err);
		free(vecs);
		batch_release(&b);
		if (rc < 0)
			break;
	}
out:
	if (added)
		*added = stored;
	free(model);
	return rc;
}
