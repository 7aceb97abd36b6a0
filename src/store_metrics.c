/*
 * store_metrics.c - the metrics table of the store: adding a process's
 * counters, histograms and gauges to it (inside a lesson's transaction,
 * or flushed on their own) and reading them back with the gauges computed
 * from the store.  Apart from the lessons (store_lessons.c) because
 * metrics are written by every command, lessons by few.
 */
#include "callus/store.h"
#include "callus/notes.h"
#include "callus/buf.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

struct metric_writer {
	sqlite3_stmt *st;
	int rc;
};

static int write_metric_row(void *ctx, const callus_metric_row *r)
{
	struct metric_writer *w = ctx;

	sqlite3_reset(w->st);
	callus_sql_bind_text(w->st, 1, r->name);
	callus_sql_bind_text(w->st, 2, r->labels);
	callus_sql_bind_text(w->st, 3, r->part);
	sqlite3_bind_double(w->st, 4, r->value);
	sqlite3_bind_int(w->st, 5, r->replace);
	w->rc = sqlite3_step(w->st);
	if (w->rc == SQLITE_DONE)
		w->rc = SQLITE_OK;
	return w->rc != SQLITE_OK; /* stops the walk at the first failure */
}

int callus_store_write_metrics(callus_store *s, const callus_metrics *m)
{
	struct metric_writer w = { NULL, SQLITE_OK };

	if (callus_metrics_is_empty(m))
		return SQLITE_OK;
	/* a recording writes twice: what earlier processes left pending, then
	 * its own */
	w.rc = callus_store_stmt_again(s,
				       "INSERT INTO metrics (name, labels, part, value) VALUES (?1,?2,?3,?4)"
				       " ON CONFLICT (name, labels, part) DO UPDATE SET value ="
				       "  CASE WHEN ?5 THEN excluded.value ELSE value + excluded.value END",
				       &w.st);
	if (w.rc == SQLITE_OK && callus_metrics_each_row(m, write_metric_row, &w) < 0)
		w.rc = SQLITE_NOMEM;
	callus_store_stmt_done(s, w.st);
	return w.rc;
}

int callus_store_take_spool(callus_store *s, const char *spool_dir, callus_metrics **taken)
{
	*taken = NULL;
	/* without memory, or a spool that cannot be read, it stays where it
	 * is for the next writer */
	if (!spool_dir || callus_metrics_new(taken) < 0)
		return SQLITE_OK;
	if (callus_metrics_spool_read(*taken, spool_dir, 1) < 0) {
		callus_metrics_free(*taken);
		*taken = NULL;
		return SQLITE_OK;
	}
	return callus_store_write_metrics(s, *taken);
}

void callus_store_spool_returned(callus_metrics *taken, const char *spool_dir, int committed)
{
	if (taken && !committed)
		callus_metrics_spool_put(taken, spool_dir);
	callus_metrics_free(taken);
}

int callus_store_flush_metrics_spool(callus_store *s, callus_metrics *m, const char *spool_dir,
				   callus_error *err)
{
	callus_metrics *taken = NULL;
	int rc, sq;

	if (callus_metrics_is_empty(m) && !spool_dir)
		return 0;
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	if ((sq = callus_store_take_spool(s, spool_dir, &taken)) != SQLITE_OK ||
	    (sq = callus_store_write_metrics(s, m)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot record metrics in");
		goto rollback;
	}
	if ((rc = callus_store_exec(s, "COMMIT", err)) < 0)
		goto rollback;
	callus_store_spool_returned(taken, spool_dir, 1);
	callus_metrics_clear(m);
	return 0;
rollback:
	sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	callus_store_spool_returned(taken, spool_dir, 0);
	return rc;
}

int callus_store_flush_metrics(callus_store *s, callus_metrics *m, callus_error *err)
{
	return callus_store_flush_metrics_spool(s, m, NULL, err);
}

int callus_store_read_metrics(callus_store *s, callus_metrics *m, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_store_totals t;
	int rc = 0, sq;

	/* a read transaction: the counters and the gauges of one moment */
	if ((rc = callus_store_exec(s, "BEGIN", err)) < 0)
		return rc;
	sq = sqlite3_prepare_v2(callus_store_db(s), "SELECT name, labels, part, value FROM metrics",
				-1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_metric_row r = { (const char *)sqlite3_column_text(st, 0),
				      (const char *)sqlite3_column_text(st, 1),
				      (const char *)sqlite3_column_text(st, 2),
				      sqlite3_column_double(st, 3), 0 };

		if (r.name && r.labels && r.part && callus_metrics_add_row(m, &r) < 0) {
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
			goto out;
		}
		sq = SQLITE_OK;
	}
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot read metrics from");
		goto out;
	}
	/* spec 004 and DESIGN §7: the knowledge kept per layer is its notes */
	if ((rc = callus_store_totals_get(s, &t, err)) < 0)
		goto out;
	for (int i = 0; i < CALLUS_LAYER_COUNT && rc == 0; i++) {
		const char *const layer[] = { callus_layer_name((callus_layer)i) };

		if (callus_metrics_set(m, CALLUS_METRIC_STORAGE_COUNT, layer, (double)t.notes[i]) < 0)
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
out:
	sqlite3_finalize(st);
	sqlite3_exec(callus_store_db(s), "COMMIT", NULL, NULL, NULL);
	return rc;
}

