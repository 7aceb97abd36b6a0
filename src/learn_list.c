/*
 * learn_list.c - reading what learn.c wrote: pending, fixed and permanent
 * errors, resolutions, and the counts `callus status` shows.
 */
#include "callus/learn.h"
#include "callus/buf.h"

#include "sqlutil.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

static int state_parse(const unsigned char *t)
{
	if (t && !strcmp((const char *)t, "fixed"))
		return CALLUS_STATE_FIXED;
	if (t && !strcmp((const char *)t, "permanent"))
		return CALLUS_STATE_PERMANENT;
	return CALLUS_STATE_PENDING;
}

static void pending_release(callus_pending *p)
{
	free(p->tool);
	free(p->args);
	free(p->dir);
	free(p->signature_id);
	free(p->error_type);
	free(p->message);
	free(p->first_failure_at);
	free(p->last_failure_at);
	free(p->closed_at);
	free(p->session);
	free(p->snapshot);
	callus_strlist_release(&p->files);
}

void callus_pendings_free(callus_pending *p, size_t count)
{
	for (size_t i = 0; p && i < count; i++)
		pending_release(&p[i]);
	free(p);
}

static int read_pending(sqlite3_stmt *st, callus_pending *p)
{
	memset(p, 0, sizeof(*p));
	p->id = sqlite3_column_int64(st, 0);
	p->state = (callus_error_state)state_parse(sqlite3_column_text(st, 1));
	p->attempts = sqlite3_column_int64(st, 8);
	p->resolution_id = sqlite3_column_int64(st, 13);
	if (!(p->tool = callus_sql_column_dup(st, 2)) || !(p->args = callus_sql_column_dup(st, 3)) ||
	    !(p->dir = callus_sql_column_dup(st, 4)) ||
	    !(p->signature_id = callus_sql_column_dup(st, 5)) ||
	    !(p->error_type = callus_sql_column_dup(st, 6)) ||
	    !(p->message = callus_sql_column_dup(st, 7)) ||
	    !(p->first_failure_at = callus_sql_column_dup(st, 9)) ||
	    !(p->last_failure_at = callus_sql_column_dup(st, 10)) ||
	    !(p->closed_at = callus_sql_column_dup(st, 11)) ||
	    !(p->session = callus_sql_column_dup(st, 12)) ||
	    !(p->snapshot = callus_sql_column_dup(st, 15)) ||
	    callus_sql_json_strlist(&p->files, (const char *)sqlite3_column_text(st, 14)) < 0) {
		pending_release(p);
		return CALLUS_ENOMEM;
	}
	return 0;
}

static int read_pending_row(sqlite3_stmt *st, void *item, void *ctx)
{
	(void)ctx;
	return read_pending(st, item) < 0 ? CALLUS_ENOMEM : 0;
}

/* The pending errors' list with the state condition COND. */
#define LIST_SQL(cond, files)                                                                 \
	"SELECT p.id, p.state, c.tool, c.args, c.dir, g.id, g.error_type,"                    \
	" coalesce(p.message, g.original), p.attempts, p.first_failure_at,"                   \
	" p.last_failure_at, p.closed_at,"                                                     \
	" p.session, coalesce(p.resolution_id, 0), p.files,"                                   \
	" coalesce(sn.kind || ' ' || sn.tree, '')"                                             \
	" FROM pending_errors p JOIN checks c ON c.id = p.check_id"                            \
	" JOIN signatures g ON g.rowid = p.sig"                                                \
	" LEFT JOIN snapshots sn ON sn.id = p.snapshot_id"                                     \
	" WHERE " cond files " ORDER BY p.last_failure_at DESC, p.id DESC"

/* The files filter (?1, a JSON array), written only when one is given:
 * compiled, its two json_each tables were a fifth of the statement's
 * compiling (210,000 of its instructions) in every failing hook, whose
 * AGENTS.md block lists without one. */
#define LIST_FILES                                                                            \
	" AND EXISTS (SELECT 1 FROM json_each(p.files) j"                                      \
	"  WHERE j.value IN (SELECT value FROM json_each(?1)))"

#define LIST_SQL_BOTH(cond) { LIST_SQL(cond, ""), LIST_SQL(cond, LIST_FILES) }

/* Every state: the three states' lists, each the first ?2 rows of the
 * index, merged.  Ordered in one, the list sorted every pending error
 * (641 million instructions at 100,000 recordings) to print the first 50:
 * pending_last leads with the state.  Columns 11 and 1 are the list's
 * order, last_failure_at and id. */
#define LIST_ONE_STATE(state, files) "SELECT * FROM (" LIST_SQL("p.state = '" state "'", files) " LIMIT ?2)"
#define LIST_ANY(files)                                                                       \
	LIST_ONE_STATE("pending", files) " UNION ALL " LIST_ONE_STATE("fixed", files)         \
	" UNION ALL " LIST_ONE_STATE("permanent", files) " ORDER BY 11 DESC, 1 DESC LIMIT ?2"

/* With a state, the newest of that state are the first rows of an index
 * (pending_last); "?1 < 0 OR" made the planner sort them all.  The state
 * is written in the statement, not bound: a parameter compared with the
 * column of a partial index (pending_open's state = 'pending') makes SQLite
 * plan the statement again at its first step once it is bound. */
static const char *list_sql(int state, int files, int known)
{
	/* the few errors a file's edit is told of, by the file (schema 47);
	 * their files read again (LIST_FILES), which a redaction pass may
	 * have rewritten since.  The states' unary + keeps the planner from
	 * reading every such error by pending_last instead. */
	static const char known_sql[] = LIST_SQL(
	    "(+p.state = 'permanent' OR (+p.state = 'fixed' AND p.resolution_id IS NOT NULL))"
	    " AND p.id IN (SELECT pending_id FROM pending_files"
	    "  WHERE file IN (SELECT value FROM json_each(?1)))",
	    LIST_FILES);
	static const char *const sql[][2] = {
		[CALLUS_STATE_PENDING] = LIST_SQL_BOTH("p.state = 'pending'"),
		[CALLUS_STATE_FIXED] = LIST_SQL_BOTH("p.state = 'fixed'"),
		[CALLUS_STATE_PERMANENT] = LIST_SQL_BOTH("p.state = 'permanent'"),
	};
	static const char *const any[2] = { LIST_ANY(""), LIST_ANY(LIST_FILES) };
	if (files && known)
		return known_sql;
	return state >= CALLUS_STATE_PENDING && state <= CALLUS_STATE_PERMANENT
		       ? sql[state][files != 0]
		       : any[files != 0];
}

int callus_learn_list(callus_store *s, const callus_pending_filter *f, callus_pending **out,
		    size_t *count, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_pending *ps = NULL;
	char *files = NULL;
	size_t n = 0;
	int rc = 0, sq;

	*out = NULL;
	*count = 0;
	/* the files filter in SQL, so that the limit counts what is kept */
	if (f && f->files && f->files->count && !(files = callus_sql_strlist_json(f->files))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	sq = sqlite3_prepare_v2(callus_store_db(s), list_sql(f ? f->state : -1, files != NULL, f && f->known), -1,
				&st, NULL);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (files)
		sqlite3_bind_text(st, 1, files, -1, SQLITE_STATIC);
	/* every state's list takes a limit of its own (none: -1) */
	if (sqlite3_bind_parameter_count(st) >= 2)
		sqlite3_bind_int64(st, 2, f && f->limit > 0 ? (sqlite3_int64)f->limit : -1);
	sq = callus_sql_collect(st, sizeof(*ps), read_pending_row, NULL,
			      f && f->limit > 0 ? (size_t)f->limit : 0, (void **)&ps, &n);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	*out = ps;
	*count = n;
	ps = NULL;
	n = 0;
out:
	sqlite3_finalize(st);
	callus_pendings_free(ps, n);
	free(files);
	return rc;
}

void callus_resolution_release(callus_resolution *r)
{
	if (!r)
		return;
	free(r->signature_id);
	free(r->error_type);
	free(r->message);
	free(r->tool);
	free(r->description);
	free(r->code_changes);
	free(r->context);
	free(r->created_at);
	free(r->last_success_at);
	callus_strlist_release(&r->files);
	memset(r, 0, sizeof(*r));
}

void callus_resolutions_free(callus_resolution *r, size_t count)
{
	for (size_t i = 0; r && i < count; i++)
		callus_resolution_release(&r[i]);
	free(r);
}

#define RESOLUTION_COLUMNS                                                                    \
	"SELECT r.id, r.signature_id, g.error_type, g.original, g.tool, r.description,"      \
	" r.context, r.files, r.application_count, r.success_count, r.created_at,"           \
	" r.last_success_at, %s FROM resolutions r JOIN signatures g ON g.id = r.signature_id"

static int read_resolution(sqlite3_stmt *st, callus_resolution *r, int with_diff)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->application_count = sqlite3_column_int64(st, 8);
	r->success_count = sqlite3_column_int64(st, 9);
	r->success_rate = r->application_count
				  ? (double)r->success_count / (double)r->application_count
				  : 0.0;
	if (!(r->signature_id = callus_sql_column_dup(st, 1)) ||
	    !(r->error_type = callus_sql_column_dup(st, 2)) ||
	    !(r->message = callus_sql_column_dup(st, 3)) || !(r->tool = callus_sql_column_dup(st, 4)) ||
	    !(r->description = callus_sql_column_dup(st, 5)) ||
	    !(r->context = callus_sql_column_dup(st, 6)) ||
	    !(r->created_at = callus_sql_column_dup(st, 10)) ||
	    !(r->last_success_at = callus_sql_column_dup(st, 11)) ||
	    (with_diff && !(r->code_changes = callus_sql_column_dup(st, 12))) ||
	    callus_sql_json_strlist(&r->files, (const char *)sqlite3_column_text(st, 7)) < 0) {
		callus_resolution_release(r);
		return CALLUS_ENOMEM;
	}
	return 0;
}

static int read_resolution_row(sqlite3_stmt *st, void *item, void *ctx)
{
	(void)ctx;
	return read_resolution(st, item, 0);
}

int callus_learn_resolutions(callus_store *s, const char *signature_id, int limit,
			   callus_resolution **out, size_t *count, callus_error *err)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	callus_resolution *rs = NULL;
	size_t n = 0;
	int rc = 0, sq;

	*out = NULL;
	*count = 0;
	callus_buf_printf(&sql, RESOLUTION_COLUMNS, "''");
	/* all of them: the first rows of an index (resolutions_rank); "?1 IS
	 * NULL OR" would sort them all */
	if (signature_id)
		callus_buf_puts(&sql, " WHERE r.signature_id = ?1");
	callus_buf_puts(&sql, " ORDER BY CAST(r.success_count AS REAL) / max(r.application_count, 1) DESC,"
			      " r.last_success_at DESC, r.id DESC LIMIT ?2");
	if (callus_buf_status(&sql) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql.ptr, -1, &st, NULL)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (signature_id)
		callus_sql_bind_text(st, 1, signature_id);
	sqlite3_bind_int(st, 2, limit > 0 ? limit : -1);
	if ((sq = callus_sql_collect(st, sizeof(*rs), read_resolution_row, NULL, 0, (void **)&rs,
				   &n)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	*out = rs;
	*count = n;
	rs = NULL;
	n = 0;
out:
	sqlite3_finalize(st);
	callus_buf_release(&sql);
	callus_resolutions_free(rs, n);
	return rc;
}

int callus_learn_get_resolution(callus_store *s, int64_t id, callus_resolution *out, callus_error *err)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	memset(out, 0, sizeof(*out));
	callus_buf_printf(&sql, RESOLUTION_COLUMNS, "r.code_changes");
	callus_buf_puts(&sql, " WHERE r.id = ?1");
	if (callus_buf_status(&sql) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql.ptr, -1, &st, NULL)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	sqlite3_bind_int64(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		if (read_resolution(st, out, 1) < 0)
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	} else if (sq == SQLITE_DONE) {
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "no resolution %lld", (long long)id);
	} else {
		rc = callus_store_db_error(s, err, sq, "cannot read");
	}
out:
	sqlite3_finalize(st);
	callus_buf_release(&sql);
	return rc;
}

int callus_learn_count_abandoned(callus_store *s, const char *before, int64_t *count,
			       callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int sq;

	*count = 0;
	/* pending_last: the index's range, not the table */
	if ((sq = sqlite3_prepare_v2(callus_store_db(s),
				     "SELECT count(*) FROM pending_errors WHERE state = 'pending'"
				     " AND last_failure_at < ?1",
				     -1, &st, NULL)) == SQLITE_OK) {
		callus_sql_bind_text(st, 1, before);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			*count = sqlite3_column_int64(st, 0);
			sq = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot read");
}
