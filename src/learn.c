/*
 * learn.c - the transitions of pending errors, and the resolutions and
 * applications they make (include/callus/learn.h).
 *
 * A run is learnt in three steps: a look at the store without locking it
 * (which errors are new, which pending errors this run fixes), the slow
 * work with no lock held (the snapshot, the diffs), then one IMMEDIATE
 * transaction that reads the states again and writes.  What changed
 * between the first and the last step (another session fixed the error)
 * is decided by the last one.
 */
#include "callus/learn.h"
#include "callus/fileindex.h"
#include "callus/buf.h"
#include "callus/lesson.h"
#include "callus/log.h"
#include "callus/match.h"
#include "callus/patchdesc.h"
#include "callus/redact.h"

#include "sqlutil.h"
#include "store_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define DESCRIPTION_MAX 400

const char *callus_error_state_name(callus_error_state s)
{
	switch (s) {
	case CALLUS_STATE_FIXED: return "fixed";
	case CALLUS_STATE_PERMANENT: return "permanent";
	default: return "pending";
	}
}

/* A snapshot a fix needs the diff of, and what the diff says. */
typedef struct fix_diff {
	int64_t snapshot_id;
	callus_snapshot snap;
	char *patch;        /* redacted; "" when it could not be made */
	char *description;
	callus_strlist files;
	int unchanged;      /* the diff was made and is empty */
} fix_diff;

/* Everything one run's learning carries between its steps. */
typedef struct learn_run {
	callus_store *s;
	const callus_learn_opts *o;
	const callus_learn_error *errs;
	size_t nerrs;
	int passed;
	char *now;
	callus_snapshot snap;     /* taken for this run's new errors */
	int have_snap;
	int64_t snap_id;        /* its row, once inserted */
	fix_diff *diffs;
	size_t ndiffs;
	char *head;             /* HEAD when the fixes were seen */
	callus_learn_result *res;
	callus_buf trouble;       /* what went wrong with snapshots and diffs */
	callus_metrics *metrics;  /* measured in the transaction: reach the
				 * caller's (o->metrics) only when it commits */
} learn_run;

static int prepare(learn_run *r, sqlite3_stmt **st, const char *sql)
{
	return sqlite3_prepare_v2(callus_store_db(r->s), sql, -1, st, NULL);
}

static int max_retries(const callus_learn_opts *o)
{
	return o->max_retries > 0 ? o->max_retries : CALLUS_LEARN_MAX_RETRIES;
}

static int prune_hours(const callus_learn_opts *o)
{
	return o->prune_hours > 0 ? o->prune_hours : CALLUS_LEARN_PRUNE_HOURS;
}

static void bind_check(sqlite3_stmt *st, const callus_check_key *k)
{
	callus_sql_bind_text(st, 1, k->tool);
	callus_sql_bind_text(st, 2, k->args);
	callus_sql_bind_text(st, 3, k->dir);
}

static int in_run(const learn_run *r, const char *sig)
{
	for (size_t i = 0; i < r->nerrs; i++)
		if (!strcmp(r->errs[i].sig->id, sig))
			return 1;
	return 0;
}

static fix_diff *find_diff(learn_run *r, int64_t snapshot_id)
{
	for (size_t i = 0; i < r->ndiffs; i++)
		if (r->diffs[i].snapshot_id == snapshot_id)
			return &r->diffs[i];
	return NULL;
}

static void note_trouble(learn_run *r, const char *what, const callus_error *e)
{
	if (r->trouble.len)
		return; /* the first says enough */
	callus_buf_printf(&r->trouble, "%s: %s", what, callus_error_message(e));
}

/*
 * Step one: what this run will need.  The open pending errors of the check
 * that the run fixes need a diff from their snapshot; an error with no
 * open pending error (and not absorbed by a permanent one) needs a
 * snapshot now.  Reads without a transaction: the write step decides.
 */
static int look(learn_run *r, int *need_snapshot, int *known)
{
	sqlite3_stmt *st = NULL;
	int sq;

	*need_snapshot = 0;
	/* a check that never failed here has nothing to fix: a pass of it
	 * writes nothing (most passes are of such checks) */
	sq = prepare(r, &st, "SELECT 1 FROM checks WHERE tool = ?1 AND args = ?2 AND dir = ?3");
	if (sq != SQLITE_OK)
		return sq;
	bind_check(st, &r->o->check);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	st = NULL;
	if (sq != SQLITE_ROW && sq != SQLITE_DONE)
		return sq;
	*known = sq == SQLITE_ROW;
	if (!*known && r->passed)
		return SQLITE_OK;
	sq = prepare(r, &st,
		     "SELECT p.signature_id, sn.id, sn.kind, sn.tree FROM pending_errors p"
		     " JOIN checks c ON c.id = p.check_id"
		     " LEFT JOIN snapshots sn ON sn.id = p.snapshot_id"
		     " WHERE c.tool = ?1 AND c.args = ?2 AND c.dir = ?3 AND p.state = 'pending'");
	if (sq != SQLITE_OK)
		return sq;
	bind_check(st, &r->o->check);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *sig = (const char *)sqlite3_column_text(st, 0);
		callus_snapshot_kind kind;
		fix_diff *d, *grown;

		if (!sig || (!r->passed && (in_run(r, sig) || !r->nerrs)))
			continue;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    callus_snapshot_kind_parse(&kind, (const char *)sqlite3_column_text(st, 2)) < 0 ||
		    find_diff(r, sqlite3_column_int64(st, 1)))
			continue;
		if (!(grown = realloc(r->diffs, (r->ndiffs + 1) * sizeof(*grown)))) {
			sq = SQLITE_NOMEM;
			break;
		}
		r->diffs = grown;
		d = &r->diffs[r->ndiffs];
		memset(d, 0, sizeof(*d));
		d->snapshot_id = sqlite3_column_int64(st, 1);
		d->snap.kind = kind;
		if (!(d->snap.tree = callus_sql_column_dup(st, 3)) || !(d->snap.commit = strdup(""))) {
			callus_snapshot_release(&d->snap);
			sq = SQLITE_NOMEM;
			break;
		}
		r->ndiffs++;
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE)
		return sq;
	if (r->passed || !r->nerrs || r->o->no_snapshot)
		return SQLITE_OK;
	/* Is any of this run's errors new to the check? */
	sq = prepare(r, &st,
		     "SELECT 1 FROM checks c JOIN pending_errors p ON p.check_id = c.id"
		     " WHERE c.tool = ?1 AND c.args = ?2 AND c.dir = ?3 AND p.signature_id = ?4"
		     " AND (p.state = 'pending' OR (p.state = 'permanent' AND p.session = ?5"
		     "  AND p.last_failure_at >= ?6))");
	if (sq != SQLITE_OK)
		return sq;
	{
		char *since = callus_sql_time_ago((int64_t)prune_hours(r->o) * 3600);

		if (!since) {
			sqlite3_finalize(st);
			return SQLITE_NOMEM;
		}
		for (size_t i = 0; i < r->nerrs && !*need_snapshot; i++) {
			sqlite3_reset(st);
			bind_check(st, &r->o->check);
			callus_sql_bind_text(st, 4, r->errs[i].sig->id);
			callus_sql_bind_text(st, 5, r->o->session);
			callus_sql_bind_text(st, 6, since);
			if ((sq = sqlite3_step(st)) == SQLITE_DONE)
				*need_snapshot = 1;
			else if (sq != SQLITE_ROW)
				break;
			sq = SQLITE_OK;
		}
		free(since);
	}
	sqlite3_finalize(st);
	return sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* The files a snapshot copies when the workspace has no git: those the
 * run's errors name. */
static int snapshot_files(learn_run *r, callus_strlist *out)
{
	for (size_t i = 0; i < r->nerrs; i++) {
		const callus_strlist *f = r->errs[i].files;

		for (size_t j = 0; f && j < f->count; j++)
			if (callus_strlist_add_unique(out, f->items[j], strlen(f->items[j]), NULL) < 0)
				return CALLUS_ENOMEM;
	}
	return 0;
}

/* Make d's patch, redacted, and describe it. */
static int make_diff(learn_run *r, fix_diff *d)
{
	callus_error e = CALLUS_ERROR_INIT;
	callus_patch_summary sum = CALLUS_PATCH_SUMMARY_INIT;
	char *raw = NULL;
	int rc;

	if (callus_snapshot_diff(&raw, r->o->workspace, &d->snap,
			       r->o->diff_max ? r->o->diff_max : CALLUS_LEARN_DIFF_MAX, r->o->snapshot,
			       &e) < 0) {
		note_trouble(r, "cannot diff the working tree", &e);
		callus_error_release(&e);
		d->patch = strdup("");
		d->description = strdup("The working tree could not be compared with the failure");
		return d->patch && d->description ? 0 : CALLUS_ENOMEM;
	}
	d->unchanged = !*raw;
	/* a diff is the user's code: secrets in it are redacted like output */
	if ((rc = callus_redact_str(r->o->redactor, &d->patch, raw)) < 0 ||
	    (rc = callus_patch_summarize(&sum, d->patch, strlen(d->patch))) < 0 ||
	    (rc = callus_patch_describe(&d->description, &sum, DESCRIPTION_MAX)) < 0 ||
	    (rc = callus_patch_files(&d->files, &sum)) < 0)
		rc = CALLUS_ENOMEM;
	callus_patch_summary_release(&sum);
	free(raw);
	return rc;
}

/* Step two: the snapshot and the diffs, with no lock held.  Their failure
 * is noted, never fatal: the states are learnt without them. */
static int slow_work(learn_run *r, int need_snapshot)
{
	callus_error e = CALLUS_ERROR_INIT;
	int rc = 0;

	if (need_snapshot) {
		callus_strlist files = CALLUS_STRLIST_INIT;

		if (snapshot_files(r, &files) < 0) {
			callus_strlist_release(&files);
			return CALLUS_ENOMEM;
		}
		if (callus_snapshot_take(&r->snap, r->o->workspace, &files, r->o->snapshot, &e) == 0)
			r->have_snap = 1;
		else
			note_trouble(r, "cannot snapshot the working tree", &e);
		callus_error_release(&e);
		callus_strlist_release(&files);
	}
	if (r->o->no_snapshot)
		return 0;
	for (size_t i = 0; i < r->ndiffs && rc == 0; i++)
		rc = make_diff(r, &r->diffs[i]);
	if (rc == 0 && r->ndiffs) {
		if (callus_snapshot_head(&r->head, r->o->workspace, r->o->snapshot, &e) < 0)
			r->head = NULL;
		callus_error_release(&e);
	}
	return rc;
}

/* The check's row, created if missing, with one more run. */
static int touch_check(learn_run *r, int64_t *id, int64_t *runs)
{
	sqlite3_stmt *st = NULL;
	int sq;

	sq = prepare(r, &st,
		     "INSERT INTO checks (tool, args, dir, runs, last_run_at, last_pass_at)"
		     " VALUES (?1, ?2, ?3, 1, ?4, CASE WHEN ?5 THEN ?4 END)"
		     " ON CONFLICT (tool, args, dir) DO UPDATE SET runs = runs + 1,"
		     "  last_run_at = ?4,"
		     "  last_pass_at = CASE WHEN ?5 THEN ?4 ELSE last_pass_at END"
		     " RETURNING id, runs");
	if (sq != SQLITE_OK)
		return sq;
	bind_check(st, &r->o->check);
	callus_sql_bind_text(st, 4, r->now);
	sqlite3_bind_int(st, 5, r->passed);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		*runs = sqlite3_column_int64(st, 1);
		sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return sq;
}

static char *context_json(learn_run *r, const char *extra_key, const char *extra)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "command",
			      r->o->command ? r->o->command : "", "tool",
			      r->o->check.tool ? r->o->check.tool : "", "args",
			      r->o->check.args ? r->o->check.args : "", "dir",
			      r->o->check.dir ? r->o->check.dir : "", "session",
			      r->o->session ? r->o->session : "", "at", r->now);
	char *s = NULL;

	if (o && extra_key)
		json_object_set_new(o, extra_key, json_string(extra ? extra : ""));
	if (o)
		s = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	return s;
}

static int push_id(int64_t **arr, size_t *n, int64_t id)
{
	int64_t *p = realloc(*arr, (*n + 1) * sizeof(*p));

	if (!p)
		return SQLITE_NOMEM;
	p[(*n)++] = id;
	*arr = p;
	return SQLITE_OK;
}

/*
 * One application of a resolution, or the revision of one: its counts
 * move by applied and succeeded (a negative succeeded takes a success
 * back), and the outcome is logged with its context.  *found (may be
 * NULL) says whether the resolution exists.
 */
static int record_application(callus_store *s, const char *now, int64_t resolution_id,
			      int64_t suggestion_id, int applied, int succeeded, const char *source,
			      const char *ctx, int *found, callus_metrics *m)
{
	sqlite3_stmt *st = NULL;
	double rate = 0;
	int sq, hit;

	sq = sqlite3_prepare_v2(callus_store_db(s),
				"UPDATE resolutions SET application_count = application_count + ?2,"
				" success_count = max(success_count + ?3, 0),"
				" last_success_at = CASE WHEN ?3 > 0 THEN ?4 ELSE last_success_at END"
				" WHERE id = ?1"
				" RETURNING CAST(success_count AS REAL) / max(application_count, 1)",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, resolution_id);
	sqlite3_bind_int(st, 2, applied);
	sqlite3_bind_int(st, 3, succeeded);
	callus_sql_bind_text(st, 4, now);
	if ((hit = (sq = sqlite3_step(st)) == SQLITE_ROW)) {
		rate = sqlite3_column_double(st, 0);
		sq = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	st = NULL;
	if (sq != SQLITE_DONE)
		return sq;
	if (found)
		*found = hit;
	if (!hit)
		return SQLITE_OK;
	if (m && applied > 0) {
		/* one layer today: the workspace's store is the project's */
		const char *labels[] = { succeeded > 0 ? "true" : "false", "project" };

		callus_metrics_add(m, CALLUS_METRIC_RESOLUTION_APPLICATIONS, labels, 1);
		callus_metrics_observe(m, CALLUS_METRIC_RESOLUTION_SUCCESS_RATE, NULL, rate);
	}
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"INSERT INTO applications (resolution_id, suggestion_id, success,"
				" source, context, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, resolution_id);
	if (suggestion_id)
		sqlite3_bind_int64(st, 2, suggestion_id);
	else
		sqlite3_bind_null(st, 2);
	sqlite3_bind_int(st, 3, succeeded > 0);
	callus_sql_bind_text(st, 4, source);
	callus_sql_bind_text(st, 5, ctx);
	callus_sql_bind_text(st, 6, now);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	sqlite3_finalize(st);
	return sq;
}

/* The suggestions an UPDATE ... RETURNING id, resolution_id statement
 * settled, each recorded as an application.  The returned rows are read
 * to the end before anything else writes. */
static int settle(learn_run *r, sqlite3_stmt *sel, int applied, int succeeded,
		  const char *source)
{
	char *ctx = context_json(r, "outcome", source);
	int64_t *ids = NULL;
	size_t n = 0;
	int sq;

	if (!ctx)
		return SQLITE_NOMEM;
	while ((sq = sqlite3_step(sel)) == SQLITE_ROW)
		if (push_id(&ids, &n, sqlite3_column_int64(sel, 0)) != SQLITE_OK ||
		    push_id(&ids, &n, sqlite3_column_int64(sel, 1)) != SQLITE_OK) {
			sq = SQLITE_NOMEM;
			goto out;
		}
	if (sq != SQLITE_DONE)
		goto out;
	sq = SQLITE_OK;
	for (size_t i = 0; i < n && sq == SQLITE_OK; i += 2)
		sq = record_application(r->s, r->now, ids[i + 1], ids[i], applied, succeeded, source,
					ctx, NULL, r->metrics);
out:
	free(ids);
	free(ctx);
	return sq;
}

/*
 * Settle the open suggestions of a pending error: success when it was
 * fixed, failure when it became permanent.  Each counts as one
 * application of its resolution.
 */
static int settle_suggestions(learn_run *r, int64_t pending_id, int success, const char *source)
{
	sqlite3_stmt *sel = NULL;
	int sq = prepare(r, &sel, "UPDATE suggestions SET outcome = ?2, outcome_at = ?3"
				  " WHERE pending_id = ?1 AND outcome IS NULL"
				  " RETURNING id, resolution_id");

	if (sq == SQLITE_OK) {
		sqlite3_bind_int64(sel, 1, pending_id);
		callus_sql_bind_text(sel, 2, success ? "success" : "failure");
		callus_sql_bind_text(sel, 3, r->now);
		sq = settle(r, sel, 1, success, source);
	}
	sqlite3_finalize(sel);
	return sq;
}

/*
 * The error came back on the very next run of its check after it was
 * fixed: the suggestions credited with that fix did not hold.  Their
 * success becomes a failure (the application count stays).
 */
static int recurred(learn_run *r, int64_t check_id, int64_t runs, const char *sig)
{
	sqlite3_stmt *sel = NULL;
	int sq = prepare(r, &sel,
			 "UPDATE suggestions SET outcome = 'failure', outcome_at = ?4"
			 " WHERE outcome = 'success' AND pending_id = (SELECT id FROM pending_errors"
			 "  WHERE check_id = ?1 AND signature_id = ?2 AND state = 'fixed'"
			 "  AND closed_run = ?3 - 1 ORDER BY id DESC LIMIT 1)"
			 " RETURNING id, resolution_id");

	if (sq == SQLITE_OK) {
		sqlite3_bind_int64(sel, 1, check_id);
		callus_sql_bind_text(sel, 2, sig);
		sqlite3_bind_int64(sel, 3, runs);
		callus_sql_bind_text(sel, 4, r->now);
		sq = settle(r, sel, 0, -1, "recurred");
	}
	sqlite3_finalize(sel);
	return sq;
}

/* The snapshot row for this run's new errors, inserted the first time one
 * needs it; 0 when there is no snapshot. */
static int snapshot_row(learn_run *r, int64_t *id)
{
	sqlite3_stmt *st = NULL;
	int sq;

	*id = 0;
	if (!r->have_snap)
		return SQLITE_OK;
	if (r->snap_id) {
		*id = r->snap_id;
		return SQLITE_OK;
	}
	if ((sq = prepare(r, &st, "INSERT INTO snapshots (kind, tree, head, taken_at)"
				  " VALUES (?, ?, ?, ?)")) != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, callus_snapshot_kind_name(r->snap.kind));
	callus_sql_bind_text(st, 2, r->snap.tree);
	callus_sql_bind_text(st, 3, r->snap.commit);
	callus_sql_bind_text(st, 4, r->now);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE)
		return sq;
	*id = r->snap_id = sqlite3_last_insert_rowid(callus_store_db(r->s));
	return SQLITE_OK;
}

/* One of this run's errors: a new pending error, one more attempt (and
 * permanent past max_retries), or one more failure of a permanent one. */
static int fail_one(learn_run *r, int64_t check_id, int64_t runs, const callus_learn_error *e)
{
	sqlite3_stmt *st = NULL;
	char *files = callus_sql_strlist_json(e->files), *since = NULL;
	int64_t id = 0, attempts = 0, snap_id = 0;
	int sq;

	if (!files || !(since = callus_sql_time_ago((int64_t)prune_hours(r->o) * 3600))) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	/* an open one gains an attempt; a permanent one of this session (or
	 * recent, without sessions) absorbs the failure */
	sq = prepare(r, &st,
		     "UPDATE pending_errors SET attempts = attempts + 1, last_failure_at = ?3,"
		     " session = ?4, files = ?5"
		     " WHERE id = (SELECT id FROM pending_errors WHERE check_id = ?1"
		     "  AND signature_id = ?2 AND (state = 'pending' OR (state = 'permanent'"
		     "  AND session = ?4 AND last_failure_at >= ?6))"
		     "  ORDER BY state = 'pending' DESC, id DESC LIMIT 1)"
		     " RETURNING id, attempts, state");
	if (sq != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, check_id);
	callus_sql_bind_text(st, 2, e->sig->id);
	callus_sql_bind_text(st, 3, r->now);
	callus_sql_bind_text(st, 4, r->o->session);
	callus_sql_bind_text(st, 5, files);
	callus_sql_bind_text(st, 6, since);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		int open = !strcmp((const char *)sqlite3_column_text(st, 2), "pending");

		id = sqlite3_column_int64(st, 0);
		attempts = sqlite3_column_int64(st, 1);
		sqlite3_finalize(st);
		st = NULL;
		sq = SQLITE_OK;
		if (!open)
			goto out;
		r->res->npending++;
		if (attempts < max_retries(r->o))
			goto out;
		if ((sq = prepare(r, &st, "UPDATE pending_errors SET state = 'permanent',"
					  " closed_at = ?2, closed_run = ?3 WHERE id = ?1")) !=
		    SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, id);
		callus_sql_bind_text(st, 2, r->now);
		sqlite3_bind_int64(st, 3, runs);
		if ((sq = sqlite3_step(st)) != SQLITE_DONE)
			goto out;
		sq = SQLITE_OK;
		r->res->npending--;
		if ((sq = push_id(&r->res->permanent, &r->res->npermanent, id)) != SQLITE_OK)
			goto out;
		sq = settle_suggestions(r, id, 0, "permanent");
		goto out;
	}
	if (sq != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if ((sq = recurred(r, check_id, runs, e->sig->id)) != SQLITE_OK ||
	    (sq = snapshot_row(r, &snap_id)) != SQLITE_OK)
		goto out;
	if ((sq = prepare(r, &st, "INSERT INTO pending_errors (check_id, signature_id,"
				  " first_failure_at, last_failure_at, session, files, snapshot_id)"
				  " VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6)")) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, check_id);
	callus_sql_bind_text(st, 2, e->sig->id);
	callus_sql_bind_text(st, 3, r->now);
	callus_sql_bind_text(st, 4, r->o->session);
	callus_sql_bind_text(st, 5, files);
	if (snap_id)
		sqlite3_bind_int64(st, 6, snap_id);
	else
		sqlite3_bind_null(st, 6);
	if ((sq = sqlite3_step(st)) == SQLITE_DONE) {
		sq = SQLITE_OK;
		r->res->npending++;
		r->res->nnew++;
	}
out:
	sqlite3_finalize(st);
	free(files);
	free(since);
	return sq;
}

/* A pending error this run fixed: its resolution, from its snapshot's
 * diff, and its suggestions' success. */
static int fix_one(learn_run *r, int64_t runs, int64_t pending_id, const char *sig,
		   int64_t snapshot_id, const char *pending_files)
{
	sqlite3_stmt *st = NULL;
	fix_diff *d = snapshot_id ? find_diff(r, snapshot_id) : NULL;
	callus_strlist files = CALLUS_STRLIST_INIT;
	char *fj = NULL, *ctx = NULL, *desc = NULL;
	int64_t res_id = 0;
	int sq;

	/* A pass with nothing changed since the failure is no fix (the error
	 * was flaky, or the failing run's status was hidden): the error is
	 * closed, and nothing is learnt from it. */
	if (d && d->unchanged) {
		if ((sq = prepare(r, &st, "UPDATE pending_errors SET state = 'fixed', closed_at = ?2,"
					  " closed_run = ?3 WHERE id = ?1")) != SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, pending_id);
		callus_sql_bind_text(st, 2, r->now);
		sqlite3_bind_int64(st, 3, runs);
		if ((sq = sqlite3_step(st)) == SQLITE_DONE) {
			sq = SQLITE_OK;
			r->res->nunchanged++;
		}
		goto out;
	}
	if (d && d->files.count) {
		for (size_t i = 0; i < d->files.count; i++)
			if (callus_strlist_add(&files, d->files.items[i], strlen(d->files.items[i])) < 0)
				goto nomem;
	} else if (callus_sql_json_strlist(&files, pending_files) < 0) {
		goto nomem;
	}
	if (!(fj = callus_sql_strlist_json(&files)) || !(ctx = context_json(r, "commit", r->head)))
		goto nomem;
	if (d && d->description)
		desc = strdup(d->description);
	else if (r->o->no_snapshot)
		desc = strdup("Fixed; snapshots are turned off, so the change is unknown");
	else
		desc = strdup("Fixed; no snapshot of the failure was taken, so the change is unknown");
	if (!desc)
		goto nomem;
	if ((sq = prepare(r, &st, "INSERT INTO resolutions (signature_id, description,"
				  " code_changes, files, context, created_at, last_success_at)"
				  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)")) != SQLITE_OK)
		goto out;
	callus_sql_bind_text(st, 1, sig);
	callus_sql_bind_text(st, 2, desc);
	callus_sql_bind_text(st, 3, d && d->patch ? d->patch : "");
	callus_sql_bind_text(st, 4, fj);
	callus_sql_bind_text(st, 5, ctx);
	callus_sql_bind_text(st, 6, r->now);
	if ((sq = sqlite3_step(st)) != SQLITE_DONE)
		goto out;
	res_id = sqlite3_last_insert_rowid(callus_store_db(r->s));
	sqlite3_finalize(st);
	st = NULL;
	if ((sq = prepare(r, &st, "UPDATE pending_errors SET state = 'fixed', closed_at = ?2,"
				  " closed_run = ?3, resolution_id = ?4 WHERE id = ?1")) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, pending_id);
	callus_sql_bind_text(st, 2, r->now);
	sqlite3_bind_int64(st, 3, runs);
	sqlite3_bind_int64(st, 4, res_id);
	if ((sq = sqlite3_step(st)) != SQLITE_DONE)
		goto out;
	{
		size_t n = r->res->nfixed;
		char **descs = realloc(r->res->fixed_descriptions, (n + 1) * sizeof(char *));

		if (!descs)
			goto nomem;
		r->res->fixed_descriptions = descs;
		if ((sq = push_id(&r->res->fixed_resolutions, &r->res->nfixed, res_id)) != SQLITE_OK)
			goto out;
		descs[n] = desc;
		desc = NULL;
	}
	sq = settle_suggestions(r, pending_id, 1, "fix");
	goto out;
nomem:
	sq = SQLITE_NOMEM;
out:
	sqlite3_finalize(st);
	callus_strlist_release(&files);
	free(fj);
	free(ctx);
	free(desc);
	return sq;
}

/* Every open pending error of the check this run fixes. */
static int fix_absent(learn_run *r, int64_t check_id, int64_t runs)
{
	sqlite3_stmt *st = NULL;
	int sq;

	if (!r->passed && !r->nerrs)
		return SQLITE_OK;
	sq = prepare(r, &st, "SELECT id, signature_id, snapshot_id, files FROM pending_errors"
			     " WHERE check_id = ?1 AND state = 'pending' ORDER BY id");
	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, check_id);
	/* read to the end first: fixing writes to the rows being scanned */
	{
		struct row { int64_t id, snap; char *sig, *files; } *rows = NULL;
		size_t n = 0;

		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			const char *sig = (const char *)sqlite3_column_text(st, 1);
			struct row *g;

			if (!sig || (!r->passed && in_run(r, sig)))
				continue;
			if (!(g = realloc(rows, (n + 1) * sizeof(*g)))) {
				sq = SQLITE_NOMEM;
				break;
			}
			rows = g;
			rows[n].id = sqlite3_column_int64(st, 0);
			rows[n].snap = sqlite3_column_int64(st, 2);
			rows[n].sig = callus_sql_column_dup(st, 1);
			rows[n].files = callus_sql_column_dup(st, 3);
			n++;
			if (!rows[n - 1].sig || !rows[n - 1].files) {
				sq = SQLITE_NOMEM;
				break;
			}
		}
		sqlite3_finalize(st);
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
		for (size_t i = 0; i < n && sq == SQLITE_OK; i++)
			sq = fix_one(r, runs, rows[i].id, rows[i].sig, rows[i].snap, rows[i].files);
		for (size_t i = 0; i < n; i++) {
			free(rows[i].sig);
			free(rows[i].files);
		}
		free(rows);
	}
	return sq;
}

/*
 * What fixed errors like this run's before (match.h): the best
 * resolutions, kept with the pending error they were made for so that its
 * fate settles them.  The run's own errors come first; each resolution is
 * offered once.
 */
/*
 * A new error nothing stored resembles: logged once, when it first fails,
 * so that what callus cannot answer yet can be found (spec 004, "log miss
 * for future learning").  The message comes from the redacted diagnostics.
 */
static void log_miss(const learn_run *r, const callus_signature *sig)
{
	callus_buf dir = CALLUS_BUF_INIT;
	const char *const extra[] = { "signature", sig->id,
				      "tool", sig->tool ? sig->tool : "",
				      "error_type", sig->error_type ? sig->error_type : "",
				      "original", sig->original ? sig->original : "", NULL };

	if (callus_buf_printf(&dir, "%s/.callus", r->o->workspace) == 0)
		callus_log_event(dir.ptr, "info", "match_miss",
			       "no stored fix matches this error", extra);
	callus_buf_release(&dir);
}

static int suggest(learn_run *r, int64_t check_id)
{
	sqlite3_stmt *pend = NULL, *ins = NULL;
	callus_match_opts mo;
	int sq;

	memset(&mo, 0, sizeof(mo));
	mo.workspace = r->o->workspace;
	mo.half_life_days = r->o->half_life_days;
	mo.metrics = r->metrics;
	mo.remote_model = r->o->remote_model;
	if ((sq = prepare(r, &pend, "SELECT id, attempts FROM pending_errors WHERE check_id = ?1"
				    " AND signature_id = ?2 AND state = 'pending'")) != SQLITE_OK ||
	    (sq = prepare(r, &ins, "INSERT INTO suggestions (pending_id, resolution_id,"
				   " confidence, made_at) VALUES (?1, ?2, ?3, ?4)"
				   " ON CONFLICT (pending_id, resolution_id) DO NOTHING")) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < r->nerrs && sq == SQLITE_OK; i++) {
		callus_suggestion *g = NULL;
		size_t n = 0;
		int64_t pending_id;
		int first;

		if (r->res->nsuggestions >= CALLUS_LEARN_SUGGEST_MAX)
			break;
		sqlite3_reset(pend);
		sqlite3_bind_int64(pend, 1, check_id);
		callus_sql_bind_text(pend, 2, r->errs[i].sig->id);
		if ((sq = sqlite3_step(pend)) != SQLITE_ROW) {
			sq = sq == SQLITE_DONE ? SQLITE_OK : sq; /* permanent: no suggestion */
			continue;
		}
		pending_id = sqlite3_column_int64(pend, 0);
		first = sqlite3_column_int64(pend, 1) == 1;
		sq = SQLITE_OK;
		/* a matching failure is no reason to lose the run's states */
		if (callus_match_suggest(r->s, &mo, r->errs[i].sig, CALLUS_LEARN_SUGGEST_MAX, &g, &n,
				       NULL) < 0) {
			n = 0;
		}
		if (!n && first)
			log_miss(r, r->errs[i].sig);
		for (size_t j = 0; j < n && sq == SQLITE_OK; j++) {
			callus_suggestion *p;
			size_t k;

			for (k = 0; k < r->res->nsuggestions; k++)
				if (r->res->suggestions[k].resolution_id == g[j].resolution_id)
					break;
			if (k < r->res->nsuggestions ||
			    r->res->nsuggestions >= CALLUS_LEARN_SUGGEST_MAX)
				continue;
			if (!(p = realloc(r->res->suggestions,
					  (r->res->nsuggestions + 1) * sizeof(*p)))) {
				sq = SQLITE_NOMEM;
				break;
			}
			r->res->suggestions = p;
			p[r->res->nsuggestions] = g[j];
			p[r->res->nsuggestions].pending_id = pending_id;
			memset(&g[j], 0, sizeof(g[j])); /* moved */
			r->res->nsuggestions++;
			sqlite3_reset(ins);
			sqlite3_bind_int64(ins, 1, pending_id);
			sqlite3_bind_int64(ins, 2, p[r->res->nsuggestions - 1].resolution_id);
			sqlite3_bind_double(ins, 3, p[r->res->nsuggestions - 1].confidence);
			callus_sql_bind_text(ins, 4, r->now);
			if ((sq = sqlite3_step(ins)) == SQLITE_DONE)
				sq = SQLITE_OK;
		}
		callus_suggestions_free(g, n);
	}
out:
	sqlite3_finalize(pend);
	sqlite3_finalize(ins);
	return sq;
}

static int prune(learn_run *r, int hours, size_t *count)
{
	sqlite3_stmt *st = NULL;
	char *before = callus_sql_time_ago((int64_t)hours * 3600);
	int sq;

	*count = 0;
	if (!before)
		return SQLITE_NOMEM;
	sq = prepare(r, &st, "DELETE FROM pending_errors WHERE state = 'pending'"
			     " AND last_failure_at < ?1");
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, before);
		if ((sq = sqlite3_step(st)) == SQLITE_DONE) {
			*count = (size_t)sqlite3_changes(callus_store_db(r->s));
			sq = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	free(before);
	/* snapshots nothing refers to any more */
	if (sq == SQLITE_OK && *count)
		sq = sqlite3_exec(callus_store_db(r->s),
				  "DELETE FROM snapshots WHERE id NOT IN (SELECT snapshot_id FROM"
				  " pending_errors WHERE snapshot_id IS NOT NULL)",
				  NULL, NULL, NULL);
	return sq;
}

/* Step three: every write of the run, in one transaction. */
static int write_run(learn_run *r, callus_error *err)
{
	int64_t check_id = 0, runs = 0;
	int rc, sq;

	if ((rc = callus_store_exec(r->s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	if ((sq = touch_check(r, &check_id, &runs)) != SQLITE_OK ||
	    (sq = prune(r, prune_hours(r->o), &r->res->pruned)) != SQLITE_OK ||
	    (sq = fix_absent(r, check_id, runs)) != SQLITE_OK)
		goto fail;
	for (size_t i = 0; !r->passed && i < r->nerrs; i++)
		if ((sq = fail_one(r, check_id, runs, &r->errs[i])) != SQLITE_OK)
			goto fail;
	if (!r->passed && (sq = suggest(r, check_id)) != SQLITE_OK)
		goto fail;
	/* Under the write lock, so that no other writer's older list can land
	 * after this one.  The index is a hint: one that cannot be written is
	 * removed, and the next hook before an edit rebuilds it. */
	if ((r->res->nfixed || r->res->npermanent) && callus_fileindex_write(r->s, NULL) < 0)
		callus_fileindex_remove(r->s);
	if ((rc = callus_store_exec(r->s, "COMMIT", err)) == 0 && r->metrics)
		callus_metrics_merge(r->o->metrics, r->metrics);
	return rc;
fail:
	rc = callus_store_db_error(r->s, err, sq, "cannot record what was learnt in");
	sqlite3_exec(callus_store_db(r->s), "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

static int learn(callus_store *s, const callus_learn_opts *o, const callus_learn_error *errs,
		 size_t nerrs, int passed, callus_learn_result *res, callus_error *err)
{
	learn_run r;
	int need_snapshot = 0, known = 0, rc = 0, sq;

	memset(res, 0, sizeof(*res));
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.o = o;
	r.errs = errs;
	r.nerrs = nerrs;
	r.passed = passed;
	r.res = res;
	callus_buf_init(&r.trouble, 1024);
	/* metrics never stop learning: without memory for them, none */
	if (o->metrics && callus_metrics_new(&r.metrics) < 0)
		r.metrics = NULL;
	if (!o->redactor)
		return callus_error_set(err, CALLUS_EINVAL, "learning needs a redactor");
	if (!(r.now = callus_now_iso8601())) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = look(&r, &need_snapshot, &known)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (passed && !known)
		goto out;
	if ((rc = slow_work(&r, need_snapshot)) < 0) {
		rc = callus_error_set(err, rc, "out of memory while comparing the working tree");
		goto out;
	}
	if ((rc = write_run(&r, err)) < 0)
		goto out;
	if (r.trouble.len && callus_buf_status(&r.trouble) == 0)
		res->snapshot_error = callus_buf_detach(&r.trouble);
out:
	if (rc < 0)
		callus_learn_result_release(res);
	for (size_t i = 0; i < r.ndiffs; i++) {
		callus_snapshot_release(&r.diffs[i].snap);
		free(r.diffs[i].patch);
		free(r.diffs[i].description);
		callus_strlist_release(&r.diffs[i].files);
	}
	free(r.diffs);
	callus_snapshot_release(&r.snap);
	callus_buf_release(&r.trouble);
	callus_metrics_free(r.metrics);
	free(r.head);
	free(r.now);
	return rc;
}

int callus_learn_failure(callus_store *s, const callus_learn_opts *opts, const callus_learn_error *errs,
		       size_t nerrs, callus_learn_result *res, callus_error *err)
{
	return learn(s, opts, errs, nerrs, 0, res, err);
}

int callus_learn_pass(callus_store *s, const callus_learn_opts *opts, callus_learn_result *res,
		    callus_error *err)
{
	return learn(s, opts, NULL, 0, 1, res, err);
}

int callus_learn_prune(callus_store *s, int hours, size_t *count, callus_error *err)
{
	learn_run r;
	int rc, sq;

	memset(&r, 0, sizeof(r));
	r.s = s;
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	if ((sq = prune(&r, hours > 0 ? hours : CALLUS_LEARN_PRUNE_HOURS, count)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot prune");
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return callus_store_exec(s, "COMMIT", err);
}

int callus_learn_feedback(callus_store *s, int64_t id, int success, const char *note,
			callus_metrics *m, callus_error *err)
{
	json_t *ctx = json_pack("{s:s}", "note", note ? note : "");
	char *now = callus_now_iso8601(), *cj = ctx ? json_dumps(ctx, JSON_COMPACT) : NULL;
	callus_metrics *measured = NULL;
	int rc = 0, sq, found = 0;

	json_decref(ctx);
	if (!now || !cj) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (m && callus_metrics_new(&measured) < 0)
		measured = NULL;
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	sq = record_application(s, now, id, 0, 1, !!success, "feedback", cj, &found, measured);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot record feedback in");
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	} else if (!found) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "no resolution %lld", (long long)id);
	} else if ((rc = callus_store_exec(s, "COMMIT", err)) == 0 && measured) {
		callus_metrics_merge(m, measured);
	}
out:
	callus_metrics_free(measured);
	free(now);
	free(cj);
	return rc;
}

void callus_learn_result_release(callus_learn_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nfixed; i++)
		free(r->fixed_descriptions ? r->fixed_descriptions[i] : NULL);
	free(r->fixed_descriptions);
	free(r->fixed_resolutions);
	free(r->permanent);
	for (size_t i = 0; i < r->nsuggestions; i++) {
		free(r->suggestions[i].signature_id);
		free(r->suggestions[i].description);
	}
	free(r->suggestions);
	free(r->snapshot_error);
	memset(r, 0, sizeof(*r));
}
