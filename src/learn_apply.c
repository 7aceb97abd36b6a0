/*
 * learn_apply.c - what learning does with resolutions once a pending error
 * has a fate (include/callus/learn.h): the suggestions offered for a run's
 * errors (match.h), their outcomes when the error is fixed, becomes
 * permanent or comes back, and each application of a resolution with its
 * counts, its metrics and its log row (also for `callus feedback`).
 *
 * Apart from learn.c's steps because they are a concern of their own: the
 * scoring of resolutions, not the states of errors.  Every function here
 * writes inside a transaction its caller opened.
 */
#include "callus/buf.h"
#include "callus/learn.h"
#include "callus/log.h"
#include "callus/match.h"
#include "callus/notes.h"
#include "callus/vecindex.h"

#include "learn_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

char *callus_learn_context_json(learn_run *r, const char *extra_key, const char *extra)
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

int callus_learn_push_id(int64_t **arr, size_t *n, int64_t id)
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
int callus_learn_record_application(callus_store *s, const char *now, int64_t resolution_id,
				    int64_t suggestion_id, int applied, int succeeded,
				    const char *source, const char *ctx, int *found, callus_metrics *m)
{
	sqlite3_stmt *st = NULL;
	double rate = 0;
	const char *layer = "project";
	int sq, hit;

	sq = sqlite3_prepare_v2(callus_store_db(s),
				"UPDATE resolutions SET application_count = application_count + ?2,"
				" success_count = max(success_count + ?3, 0),"
				" last_success_at = CASE WHEN ?3 > 0 THEN ?4 ELSE last_success_at END"
				" WHERE id = ?1"
				" RETURNING CAST(success_count AS REAL) / max(application_count, 1),"
				" json_extract(context, '$.layer')",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, resolution_id);
	sqlite3_bind_int(st, 2, applied);
	sqlite3_bind_int(st, 3, succeeded);
	callus_sql_bind_text(st, 4, now);
	if ((hit = (sq = sqlite3_step(st)) == SQLITE_ROW)) {
		const char *l = (const char *)sqlite3_column_text(st, 1);

		rate = sqlite3_column_double(st, 0);
		/* the workspace's own fixes are the project's; a resolution made
		 * for a cached team or org note (team.h) says its layer */
		if (l && (!strcmp(l, "team") || !strcmp(l, "org")))
			layer = !strcmp(l, "team") ? "team" : "org";
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
		const char *labels[] = { succeeded > 0 ? "true" : "false", layer };

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
	char *ctx = callus_learn_context_json(r, "outcome", source);
	int64_t *ids = NULL;
	size_t n = 0;
	int sq;

	if (!ctx)
		return SQLITE_NOMEM;
	while ((sq = sqlite3_step(sel)) == SQLITE_ROW)
		if (callus_learn_push_id(&ids, &n, sqlite3_column_int64(sel, 0)) != SQLITE_OK ||
		    callus_learn_push_id(&ids, &n, sqlite3_column_int64(sel, 1)) != SQLITE_OK) {
			sq = SQLITE_NOMEM;
			goto out;
		}
	if (sq != SQLITE_DONE)
		goto out;
	sq = SQLITE_OK;
	for (size_t i = 0; i < n && sq == SQLITE_OK; i += 2) {
		sq = callus_learn_record_application(r->s, r->now, ids[i + 1], ids[i], applied,
						     succeeded, source, ctx, NULL, r->metrics);
		/* its note's metrics moved with it */
		if (sq == SQLITE_OK)
			sq = callus_learn_push_id(&r->touched, &r->ntouched, ids[i + 1]);
	}
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
int callus_learn_settle_suggestions(learn_run *r, int64_t pending_id, int success,
				    const char *source)
{
	sqlite3_stmt *sel = NULL;
	int sq = callus_learn_prepare(r, &sel, "UPDATE suggestions SET outcome = ?2, outcome_at = ?3"
					       " WHERE pending_id = ?1 AND outcome IS NULL"
					       " RETURNING id, resolution_id");

	if (sq == SQLITE_OK) {
		sqlite3_bind_int64(sel, 1, pending_id);
		callus_sql_bind_text(sel, 2, success ? "success" : "failure");
		callus_sql_bind_text(sel, 3, r->now);
		sq = settle(r, sel, 1, success, source);
	}
	callus_learn_done(r, sel);
	return sq;
}

/*
 * The error came back on the very next run of its check after it was
 * fixed: the suggestions credited with that fix did not hold.  Their
 * success becomes a failure (the application count stays).
 */
int callus_learn_recurred(learn_run *r, int64_t check_id, int64_t runs, const char *sig)
{
	sqlite3_stmt *sel = NULL;
	int sq = callus_learn_prepare(r, &sel,
				      "UPDATE suggestions SET outcome = 'failure', outcome_at = ?4"
				      " WHERE outcome = 'success' AND pending_id = (SELECT id FROM pending_errors"
				      "  WHERE check_id = ?1 AND state = 'fixed'"
				      "  AND sig = (SELECT rowid FROM signatures WHERE id = ?2)"
				      "  AND closed_run = ?3 - 1 ORDER BY id DESC LIMIT 1)"
				      " RETURNING id, resolution_id");

	if (sq == SQLITE_OK) {
		sqlite3_bind_int64(sel, 1, check_id);
		callus_sql_bind_text(sel, 2, sig);
		sqlite3_bind_int64(sel, 3, runs);
		callus_sql_bind_text(sel, 4, r->now);
		sq = settle(r, sel, 0, -1, "recurred");
	}
	callus_learn_done(r, sel);
	return sq;
}

/*
 * A new error nothing stored resembles: logged once, when it first fails,
 * so that what callus cannot answer yet can be found (spec 004, "log miss
 * for future learning").  The message comes from the redacted diagnostics.
 */
static void log_miss(const learn_run *r, const callus_signature *sig, size_t *limit)
{
	callus_buf dir = CALLUS_BUF_INIT;
	const char *const extra[] = { "signature", sig->id,
				      "tool", sig->tool ? sig->tool : "",
				      "error_type", sig->error_type ? sig->error_type : "",
				      "original", sig->original ? sig->original : "", NULL };

	/* read once for the run's errors: ten new ones read the
	 * configuration ten times */
	if (callus_buf_printf(&dir, "%s/.callus", r->o->workspace) == 0) {
		if (!*limit)
			*limit = callus_log_limit(dir.ptr);
		callus_log_event_limit(r->o->redactor, dir.ptr, *limit, "info", "match_miss",
				       "no stored fix matches this error", extra);
	}
	callus_buf_release(&dir);
}

/*
 * What fixed errors like this run's before (match.h): the best
 * resolutions, kept with the pending error they were made for so that its
 * fate settles them.  The run's own errors come first; each resolution is
 * offered once.
 */
int callus_learn_suggest(learn_run *r, int64_t check_id)
{
	sqlite3_stmt *pend = NULL, *ins = NULL;
	callus_vecindex *index = NULL, *noted_index = NULL;
	callus_match_df_memo *memo = NULL;
	callus_buf noted = CALLUS_BUF_INIT;
	callus_match_opts mo;
	size_t log_limit = r->o->log_limit;
	int sq;

	memset(&mo, 0, sizeof(mo));
	mo.workspace = r->o->workspace;
	mo.half_life_days = r->o->half_life_days;
	mo.metrics = r->metrics;
	mo.remote_model = r->o->remote_model;
	mo.scans = r->o->scans;
	mo.candidates = r->candidates;
	/* a large store: the newest signatures, and every one with a note
	 * (match.h); without the notes' file, every signature */
	if (r->nerrs)
		(void)callus_notes_window(r->s, CALLUS_MATCH_WINDOW, &mo, &noted, NULL);
	if ((sq = callus_learn_prepare(r, &pend, "SELECT id, attempts FROM pending_errors WHERE check_id = ?1"
						 " AND sig = (SELECT rowid FROM signatures WHERE id = ?2)"
						 " AND state = 'pending'")) != SQLITE_OK ||
	    (sq = callus_learn_prepare(r, &ins, "INSERT INTO suggestions (pending_id, resolution_id,"
						" confidence, made_at) VALUES (?1, ?2, ?3, ?4)"
						" ON CONFLICT (pending_id, resolution_id) DO NOTHING")) != SQLITE_OK)
		goto out;
	/* one opening of the vector file for the run's errors: a build with a
	 * thousand of them mapped and unmapped it a thousand times (13 % of
	 * recording them again, bench/manyerrors.sh) */
	if (r->nerrs > 1) {
		callus_match_index_open(r->s, &index, r->o->workspace);
		mo.index = index;
		if (mo.noted) {
			callus_match_noted_open(&noted_index, mo.noted);
			mo.noted_index = noted_index;
		}
		/* the run's signatures are counted, and the write lock is held
		 * (write_run): no count moves until the suggestions are made,
		 * whose errors share most of their words (without memory, each
		 * search reads them) */
		if (callus_match_df_memo_new(&memo) == 0)
			mo.df_memo = memo;
	}
	for (size_t i = 0, searched = 0; i < r->nerrs && sq == SQLITE_OK; i++) {
		callus_suggestion *g = NULL;
		size_t n = 0;
		int64_t pending_id;
		int first;

		if (r->res->nsuggestions >= CALLUS_LEARN_SUGGEST_MAX ||
		    searched >= CALLUS_LEARN_SUGGEST_SEARCH)
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
		searched++;
		/* a matching failure is no reason to lose the run's states */
		if (callus_match_suggest(r->s, &mo, r->errs[i].sig, CALLUS_LEARN_SUGGEST_MAX, &g, &n,
				       NULL) < 0) {
			n = 0;
		}
		if (!n && first)
			log_miss(r, r->errs[i].sig, &log_limit);
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
	callus_vecindex_close(index);
	callus_vecindex_close(noted_index);
	callus_match_df_memo_free(memo);
	callus_buf_release(&noted);
	callus_learn_done(r, pend);
	callus_learn_done(r, ins);
	return sq;
}
