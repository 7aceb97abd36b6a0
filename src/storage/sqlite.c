/*
 * sqlite.c - the embedded backend: the knowledge in a SQLite file, the
 * workspace store's own schema (store_schema.c, learn.c, learn_list.c), and
 * the team and org layers' notes in its shared_notes tables.  The handle
 * is a callus_store.
 */
#include "storage/backend.h"
#include "callus/lesson.h"

#include "sqlutil.h"
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sq_open(void **handle, const char *location, int timeout_ms, callus_error *err)
{
	callus_store *s = NULL;
	int rc = callus_store_open(&s, location, timeout_ms, err);

	*handle = rc < 0 ? NULL : s;
	return rc < 0 ? rc : 0;
}

static void sq_close(void *handle)
{
	callus_store_close(handle);
}

static int sq_resolutions(void *handle, const char *signature_id, int limit,
			  callus_resolution **out, size_t *count, callus_error *err)
{
	return callus_learn_resolutions(handle, signature_id, limit, out, count, err);
}

static int sq_resolution(void *handle, int64_t id, callus_resolution *out, callus_error *err)
{
	return callus_learn_get_resolution(handle, id, out, err);
}

static int sq_feedback(void *handle, int64_t id, int success, const char *note, callus_metrics *m,
		       callus_error *err)
{
	return callus_learn_feedback(handle, id, success, note, m, err);
}

static int sq_flush_metrics(void *handle, callus_metrics *m, callus_error *err)
{
	return callus_store_flush_metrics(handle, m, err);
}

static int sq_read_metrics(void *handle, callus_metrics *m, callus_error *err)
{
	return callus_store_read_metrics(handle, m, err);
}


/* ------------------------------------------------------------------ */
/* The team and org layers' notes (the shared_notes and shared_outcomes
 * tables of store_schema.c).  The embedded store has no roles: who may
 * decide is the caller's check (team.h). */

#define SHARED_COLUMNS                                                                         \
	"n.id, n.layer, n.status, n.signature_id, n.tool, n.error_type, n.title, n.example,"  \
	" n.rule, n.steps, n.code, n.files, n.origin, n.path, n.proposed_by, n.proposed_at,"  \
	" n.decided_by, n.decided_at, n.why, n.revision,"                                     \
	" (SELECT coalesce(sum(o.applications), 0) FROM shared_outcomes o"                    \
	"  WHERE o.layer = n.layer AND o.note_id = n.id),"                                    \
	" (SELECT coalesce(sum(o.successes), 0) FROM shared_outcomes o"                       \
	"  WHERE o.layer = n.layer AND o.note_id = n.id), n.extra"

static int shared_row(sqlite3_stmt *st, void *item, void *ctx)
{
	callus_shared_note *n = item;
	char **text[] = { &n->signature_id, &n->tool, &n->error_type, &n->title, &n->example,
			  &n->rule, &n->steps, &n->code, &n->files, &n->origin, &n->path,
			  &n->proposed_by, &n->proposed_at, &n->decided_by, &n->decided_at,
			  &n->why };
	const char *id = (const char *)sqlite3_column_text(st, 0);

	(void)ctx;
	memset(n, 0, sizeof(*n));
	snprintf(n->id, sizeof(n->id), "%s", id ? id : "");
	if (callus_layer_parse(&n->layer, (const char *)sqlite3_column_text(st, 1)) < 0)
		n->layer = CALLUS_LAYER_TEAM;
	callus_shared_status_parse(&n->status, (const char *)sqlite3_column_text(st, 2));
	for (int i = 0; i < (int)(sizeof(text) / sizeof(text[0])); i++)
		if (!(*text[i] = callus_sql_column_dup(st, i + 3))) {
			callus_shared_note_release(n);
			return CALLUS_ENOMEM;
		}
	n->revision = sqlite3_column_int64(st, 19);
	n->applications = sqlite3_column_int64(st, 20);
	n->successes = sqlite3_column_int64(st, 21);
	if (!(n->extra = callus_sql_column_dup(st, 22))) {
		callus_shared_note_release(n);
		return CALLUS_ENOMEM;
	}
	return 0;
}

static int shared_collect(callus_store *s, sqlite3_stmt *st, callus_shared_note **out,
			  size_t *count, callus_error *err)
{
	void *items = NULL;
	size_t n = 0;
	int sq = callus_sql_collect(st, sizeof(callus_shared_note), shared_row, NULL, 0, &items,
				    &n);

	if (sq != SQLITE_OK) {
		callus_shared_notes_free(items, n);
		return callus_store_db_error(s, err, sq, "cannot read the layer's notes in");
	}
	*out = items;
	*count = n;
	return 0;
}

/* The next revision of the store: one counter for both layers, read in
 * the caller's write transaction. */
#define NEXT_REVISION "(SELECT coalesce(max(revision), 0) + 1 FROM shared_notes)"

static int sq_propose(void *handle, const callus_shared_note *n, int *created, callus_error *err)
{
	callus_store *s = handle;
	char *now = callus_now_iso8601();
	const char *v[] = { callus_layer_name(n->layer), n->id, n->signature_id, n->tool,
			    n->error_type, n->title, n->example, n->rule, n->steps, n->code,
			    n->files && *n->files ? n->files : "[]", n->origin, n->path,
			    n->proposed_by, now, n->extra };
	int sq;

	*created = 0;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		if (!v[i])
			v[i] = "";
	if (!now)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	sq = callus_sql_exec_texts(callus_store_db(s),
				   "INSERT INTO shared_notes (layer, id, signature_id, tool,"
				   " error_type, title, example, rule, steps, code, files, origin, path,"
				   " proposed_by, proposed_at, extra, revision) VALUES (?1, ?2, ?3, ?4,"
				   " ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
				   NEXT_REVISION ")"
				   " ON CONFLICT (layer, id) DO NOTHING",
				   v, sizeof(v) / sizeof(v[0]));
	free(now);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot record the proposal in");
	*created = sqlite3_changes(callus_store_db(s)) > 0;
	return 0;
}

static int sq_shared_list(void *handle, callus_layer l, int all, callus_shared_note **out,
			  size_t *count, callus_error *err)
{
	callus_store *s = handle;
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT " SHARED_COLUMNS " FROM shared_notes n WHERE n.layer = ?1"
				    " AND (?2 OR n.status = 'proposed') ORDER BY n.revision DESC",
				    -1, &st, NULL);
	int rc;

	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the layer's notes in");
	callus_sql_bind_text(st, 1, callus_layer_name(l));
	sqlite3_bind_int(st, 2, all);
	rc = shared_collect(s, st, out, count, err);
	sqlite3_finalize(st);
	return rc;
}

/* The note whose id starts with id: a range of the layer's primary key,
 * bounded by a byte no UTF-8 text holds (a substr() of each read the
 * layer's every note). */
static int sq_shared_get(void *handle, callus_layer l, const char *id, callus_shared_note *out,
			 callus_error *err)
{
	callus_store *s = handle;
	sqlite3_stmt *st = NULL;
	callus_shared_note *v = NULL;
	size_t n = 0;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT " SHARED_COLUMNS " FROM shared_notes n WHERE n.layer = ?1"
				    " AND n.id >= ?2 AND n.id < ?2 || x'ff' LIMIT 2",
				    -1, &st, NULL);
	int rc;

	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the layer's notes in");
	callus_sql_bind_text(st, 1, callus_layer_name(l));
	callus_sql_bind_text(st, 2, id);
	rc = shared_collect(s, st, &v, &n, err);
	sqlite3_finalize(st);
	if (rc < 0)
		return rc;
	if (n == 1) {
		*out = v[0];
		memset(&v[0], 0, sizeof(v[0]));
	} else {
		rc = n ? callus_error_set(err, CALLUS_EINVAL, "'%s' names more than one note", id)
		       : callus_error_set(err, CALLUS_ENOTFOUND, "no note %s in the %s layer", id,
					  callus_layer_name(l));
	}
	callus_shared_notes_free(v, n);
	return rc;
}

static int sq_decide(void *handle, callus_layer l, const char *id, callus_shared_status to,
		     const char *who, const char *why, callus_error *err)
{
	callus_store *s = handle;
	char *now = callus_now_iso8601();
	const char *v[] = { callus_layer_name(l), id, callus_shared_status_name(to), who, why, now,
			    to == CALLUS_SHARED_RETIRED ? "approved" : "proposed" };
	int sq;

	if (!now)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	sq = callus_sql_exec_texts(callus_store_db(s),
				   "UPDATE shared_notes SET status = ?3, decided_by = ?4, why = ?5,"
				   " decided_at = ?6, revision = " NEXT_REVISION
				   " WHERE layer = ?1 AND id = ?2 AND status = ?7",
				   v, sizeof(v) / sizeof(v[0]));
	free(now);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot record the decision in");
	if (!sqlite3_changes(callus_store_db(s)))
		return callus_error_set(err, CALLUS_ENOTFOUND, "no %s note %s in the %s layer",
					to == CALLUS_SHARED_RETIRED ? "approved" : "proposed", id,
					callus_layer_name(l));
	return 0;
}

static int sq_withdraw(void *handle, callus_layer l, const char *id, const char *origin,
		       const char *who, const char *why, callus_error *err)
{
	callus_store *s = handle;
	char *now = callus_now_iso8601();
	const char *v[] = { callus_layer_name(l), id, origin, who, why, now };
	int sq;

	if (!now)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	sq = callus_sql_exec_texts(callus_store_db(s),
				   "UPDATE shared_notes SET status = 'rejected', decided_by = ?4,"
				   " why = ?5, decided_at = ?6, revision = " NEXT_REVISION
				   " WHERE layer = ?1 AND id = ?2 AND status = 'proposed'"
				   " AND origin = ?3",
				   v, sizeof(v) / sizeof(v[0]));
	free(now);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot record the withdrawal in");
	if (!sqlite3_changes(callus_store_db(s)))
		return callus_error_set(err, CALLUS_ENOTFOUND,
					"no proposal %s of this workspace's in the %s layer", id,
					callus_layer_name(l));
	return 0;
}

static int sq_pull(void *handle, callus_layer l, int64_t since, int limit,
		   callus_shared_note **out, size_t *count, callus_error *err)
{
	callus_store *s = handle;
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT " SHARED_COLUMNS " FROM shared_notes n WHERE n.layer = ?1"
				    " AND n.revision > ?2 ORDER BY n.revision LIMIT ?3",
				    -1, &st, NULL);
	int rc;

	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read the layer's notes in");
	callus_sql_bind_text(st, 1, callus_layer_name(l));
	sqlite3_bind_int64(st, 2, since);
	sqlite3_bind_int(st, 3, limit > 0 ? limit : -1);
	rc = shared_collect(s, st, out, count, err);
	sqlite3_finalize(st);
	return rc;
}

static int sq_report(void *handle, callus_layer l, const char *id, const char *instance,
		     int64_t applications, int64_t successes, callus_error *err)
{
	callus_store *s = handle;
	sqlite3 *db = callus_store_db(s);
	char *now = callus_now_iso8601();
	char a[32], k[32];
	const char *v[] = { callus_layer_name(l), id, instance, a, k, now };
	int sq, rc = 0;

	if (!now)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	snprintf(a, sizeof(a), "%lld", (long long)applications);
	snprintf(k, sizeof(k), "%lld", (long long)successes);
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	sq = callus_sql_exec_texts(db,
				   "INSERT INTO shared_outcomes (layer, note_id, instance, applications,"
				   " successes, at) SELECT ?1, ?2, ?3, CAST(?4 AS INTEGER),"
				   " CAST(?5 AS INTEGER), ?6 WHERE EXISTS (SELECT 1 FROM shared_notes"
				   "  WHERE layer = ?1 AND id = ?2)"
				   " ON CONFLICT (layer, note_id, instance) DO UPDATE SET"
				   " applications = excluded.applications, successes = excluded.successes,"
				   " at = excluded.at WHERE applications <> excluded.applications"
				   " OR successes <> excluded.successes",
				   v, sizeof(v) / sizeof(v[0]));
	/* a new aggregate is a change every workspace pulls */
	if (sq == SQLITE_OK && sqlite3_changes(db) > 0)
		sq = callus_sql_exec_texts(db,
					   "UPDATE shared_notes SET revision = " NEXT_REVISION
					   " WHERE layer = ?1 AND id = ?2",
					   v, 2);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot record the outcomes in");
		sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	rc = callus_store_exec(s, "COMMIT", err);
out:
	free(now);
	return rc;
}

const callus_storage_ops callus_storage_sqlite = {
	"sqlite", "sqlite:", sq_open, sq_close, sq_resolutions, sq_resolution, sq_feedback,
	sq_flush_metrics, sq_read_metrics, sq_propose, sq_shared_list, sq_shared_get, sq_decide,
	sq_withdraw, sq_pull, sq_report,
};
