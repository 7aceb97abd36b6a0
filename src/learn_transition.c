/*
 * learn_transition.c - the transitions of one pending error, in the write
 * step of a run (include/callus/learn.h): a failure makes a new pending
 * error, adds an attempt or makes it permanent; a run without it fixes it,
 * with the resolution its snapshot's diff describes.
 *
 * Apart from learn.c, which takes the run through its three steps, because
 * these are the states themselves: what each row becomes, read again
 * under the write lock of the transaction learn.c opened.
 */
#include "callus/learn.h"
#include "callus/snapshot.h"
#include "callus/store_redact.h"

#include "learn_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

static int max_retries(const callus_learn_opts *o)
{
	return o->max_retries > 0 ? o->max_retries : CALLUS_LEARN_MAX_RETRIES;
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
	if ((sq = callus_learn_prepare(r, &st, "INSERT INTO snapshots (kind, tree, head, taken_at)"
					       " VALUES (?, ?, ?, ?)")) != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, callus_snapshot_kind_name(r->snap.kind));
	callus_sql_bind_text(st, 2, r->snap.tree);
	callus_sql_bind_text(st, 3, r->snap.commit);
	if (r->snap_late) {
		char *clock = callus_now_iso8601();

		if (!clock) {
			callus_learn_done(r, st);
			return SQLITE_NOMEM;
		}
		sqlite3_bind_text(st, 4, clock, -1, free);
	} else {
		callus_sql_bind_text(st, 4, r->now);
	}
	sq = sqlite3_step(st);
	callus_learn_done(r, st);
	if (sq != SQLITE_DONE)
		return sq;
	*id = r->snap_id = sqlite3_last_insert_rowid(callus_store_db(r->s));
	return SQLITE_OK;
}

/* What e printed: its files' message, else the run's first of its
 * signature (an error naming no file, as make's and ld's). */
static const char *message_of(const callus_learn_error *e)
{
	return e->message ? e->message : e->sig->original;
}

/* One more attempt of pending error ?1 (its last failure set to last),
 * the run's session, files and message (none when it is the signature's
 * original). */
#define FAIL_AGAIN(last)                                                                  \
	"UPDATE pending_errors SET attempts = attempts + 1, last_failure_at = " last ","    \
	" session = ?3, files = ?4, message = nullif(?5,"                                   \
	"  (SELECT original FROM signatures WHERE rowid = pending_errors.sig))"             \
	" WHERE id = ?1"

/* One of this run's errors: a new pending error, one more attempt (and
 * permanent past max_retries), or one more failure of a permanent one. */
int callus_learn_fail_one(learn_run *r, int64_t check_id, int64_t runs,
			  const callus_learn_error *e)
{
	sqlite3_stmt *st = NULL;
	char *files = callus_sql_strlist_json(e->files);
	int64_t id = 0, attempts = 0, snap_id = 0, sig = 0;
	int sq;

	/* Texts are bound as they are, not copied (callus_sql_bind_text_kept):
	 * files, e's and the run's outlive each statement, which is done
	 * (reset, its bindings cleared) before out frees files. */
	if (!files) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	/* an error no pending row names (every new error's first failure) has
	 * no attempt to gain and cannot have recurred: asked of pending_sig
	 * first (the signature's rowid, for the statements after it), the
	 * statements below (compiled, 0.37 million instructions of a failing
	 * hook's 13.0, bench/hookinstr.sh) only for one that has */
	sq = callus_learn_prepare(r, &st, "SELECT sig FROM pending_errors"
					  " WHERE sig = (SELECT rowid FROM signatures WHERE id = ?1) LIMIT 1");
	if (sq != SQLITE_OK)
		goto out;
	callus_sql_bind_text_kept(st, 1, e->sig->id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW)
		sig = sqlite3_column_int64(st, 0);
	callus_learn_done(r, st);
	st = NULL;
	if (sq == SQLITE_DONE)
		goto fresh;
	if (sq != SQLITE_ROW)
		goto out;
	/* an open one gains an attempt; a permanent one of this session (or
	 * recent, without sessions) absorbs the failure.  The open one first,
	 * on its own: found by pending_open (check, signature), where the two
	 * states in one OR were read from every open error of the check, each
	 * error of a run (a build with a thousand of them recorded again:
	 * 283 -> 197 ms, bench/manyerrors.sh; test_learn counts the steps).
	 * The permanent one by the check and the error too (pending_permanent,
	 * schema 38; the unary + keeps the time out of the plan), not by state
	 * and time: every permanent error of every check, sorted. */
	sq = callus_learn_prepare(r, &st, "SELECT id, attempts, state = 'pending' FROM pending_errors"
					  " WHERE id = coalesce("
					  "  (SELECT id FROM pending_errors WHERE check_id = ?1 AND sig = ?2"
					  "   AND state = 'pending'),"
					  "  (SELECT id FROM pending_errors WHERE check_id = ?1 AND sig = ?2"
					  "   AND state = 'permanent' AND session = ?3"
					  "   AND +last_failure_at >= ?4 ORDER BY id DESC LIMIT 1))");
	if (sq != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, check_id);
	sqlite3_bind_int64(st, 2, sig);
	callus_sql_bind_text_kept(st, 3, r->o->session);
	callus_sql_bind_text_kept(st, 4, r->idle_since);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		int open = sqlite3_column_int(st, 2);

		id = sqlite3_column_int64(st, 0);
		attempts = sqlite3_column_int64(st, 1) + 1;
		callus_learn_done(r, st);
		st = NULL;
		/* Counted by its id, apart from the search: an UPDATE that
		 * returned the row (RETURNING) made SQLite fill a table for it
		 * at every error of the run.  A run of its own time (late, or
		 * an import's older history) makes no error's last failure
		 * older: gc would take a live one for abandoned. */
		if ((sq = callus_learn_prepare(
			     r, &st,
			     r->o->redelivered || r->o->now
				     ? FAIL_AGAIN("max(last_failure_at, ?2)")
				     : FAIL_AGAIN("?2"))) != SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, id);
		callus_sql_bind_text_kept(st, 2, r->now);
		callus_sql_bind_text_kept(st, 3, r->o->session);
		callus_sql_bind_text_kept(st, 4, files);
		callus_sql_bind_text_or_null_kept(st, 5, message_of(e));
		if ((sq = sqlite3_step(st)) != SQLITE_DONE)
			goto out;
		callus_learn_done(r, st);
		st = NULL;
		sq = SQLITE_OK;
		/* a permanent one absorbing the failure took this run's files:
		 * they go into the file index like a closed error's */
		if (!open) {
			sq = callus_learn_push_id(&r->known, &r->nknown, id);
			goto out;
		}
		r->res->npending++;
		if (attempts < max_retries(r->o))
			goto out;
		if ((sq = callus_learn_prepare(r, &st, "UPDATE pending_errors SET state = 'permanent',"
						       " closed_at = ?2, closed_run = ?3 WHERE id = ?1")) !=
		    SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, id);
		callus_sql_bind_text_kept(st, 2, r->now);
		sqlite3_bind_int64(st, 3, runs);
		if ((sq = sqlite3_step(st)) != SQLITE_DONE)
			goto out;
		sq = SQLITE_OK;
		r->res->npending--;
		if ((sq = callus_learn_push_id(&r->res->permanent, &r->res->npermanent, id)) != SQLITE_OK ||
		    (sq = callus_learn_push_id(&r->known, &r->nknown, id)) != SQLITE_OK)
			goto out;
		sq = callus_learn_settle_suggestions(r, id, 0, "permanent");
		goto out;
	}
	if (sq != SQLITE_DONE)
		goto out;
	callus_learn_done(r, st);
	st = NULL;
	if ((sq = callus_learn_recurred(r, check_id, runs, e->sig->id)) != SQLITE_OK)
		goto out;
fresh: /* a new pending error: no row named this one, or none is open */
	if ((sq = snapshot_row(r, &snap_id)) != SQLITE_OK)
		goto out;
	/* a signature's row missing (written before its errors) fails on
	 * NOT NULL, as a store gone wrong should */
	if ((sq = callus_learn_prepare(r, &st, "INSERT INTO pending_errors (check_id, sig,"
					       " first_failure_at, last_failure_at, session, files, snapshot_id,"
					       " message) VALUES (?1, (SELECT rowid FROM signatures WHERE id = ?2),"
					       " ?3, ?3, ?4, ?5, ?6,"
					       " nullif(?7, (SELECT original FROM signatures WHERE id = ?2)))")) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, check_id);
	callus_sql_bind_text_kept(st, 2, e->sig->id);
	callus_sql_bind_text_kept(st, 3, r->now);
	callus_sql_bind_text_kept(st, 4, r->o->session);
	callus_sql_bind_text_kept(st, 5, files);
	if (snap_id)
		sqlite3_bind_int64(st, 6, snap_id);
	else
		sqlite3_bind_null(st, 6);
	callus_sql_bind_text_or_null_kept(st, 7, message_of(e));
	if ((sq = sqlite3_step(st)) == SQLITE_DONE) {
		sq = SQLITE_OK;
		r->res->npending++;
		r->res->nnew++;
	}
out:
	callus_learn_done(r, st);
	free(files);
	return sq;
}
#undef FAIL_AGAIN

/* A pending error this run fixed: its resolution, from its snapshot's
 * diff, and its suggestions' success. */
static int fix_one(learn_run *r, int64_t runs, int64_t pending_id, const char *sig,
		   int64_t snapshot_id, const char *pending_files)
{
	sqlite3_stmt *st = NULL;
	fix_diff *d = snapshot_id || r->o->fix_patch ? callus_learn_find_diff(r, snapshot_id) : NULL;
	callus_strlist files = CALLUS_STRLIST_INIT;
	char *fj = NULL, *ctx = NULL, *desc = NULL;
	int64_t res_id = 0;
	int sq;

	/* A pass with nothing changed since the failure is no fix (the error
	 * was flaky, or the failing run's status was hidden): the error is
	 * closed, and nothing is learnt from it. */
	if (d && d->unchanged) {
		if ((sq = callus_learn_prepare(r, &st, "UPDATE pending_errors SET state = 'fixed', closed_at = ?2,"
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
	if (!(fj = callus_sql_strlist_json(&files)) || !(ctx = callus_learn_context_json(r, "commit", r->head)))
		goto nomem;
	if (d && d->description)
		desc = strdup(d->description);
	else if (r->o->no_snapshot)
		desc = strdup("Fixed; snapshots are turned off, so the change is unknown");
	else
		desc = strdup("Fixed; no snapshot of the failure was taken, so the change is unknown");
	if (!desc)
		goto nomem;
	if ((sq = callus_learn_prepare(r, &st, "INSERT INTO resolutions (signature_id, description,"
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
	callus_learn_done(r, st);
	st = NULL;
	if ((sq = callus_learn_prepare(r, &st, "UPDATE pending_errors SET state = 'fixed', closed_at = ?2,"
					       " closed_run = ?3, resolution_id = ?4 WHERE id = ?1")) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, pending_id);
	callus_sql_bind_text(st, 2, r->now);
	sqlite3_bind_int64(st, 3, runs);
	sqlite3_bind_int64(st, 4, res_id);
	if ((sq = sqlite3_step(st)) != SQLITE_DONE ||
	    (sq = callus_learn_push_id(&r->known, &r->nknown, pending_id)) != SQLITE_OK)
		goto out;
	{
		size_t n = r->res->nfixed;
		char **descs = realloc(r->res->fixed_descriptions, (n + 1) * sizeof(char *));

		if (!descs)
			goto nomem;
		r->res->fixed_descriptions = descs;
		if ((sq = callus_learn_push_id(&r->res->fixed_resolutions, &r->res->nfixed, res_id)) != SQLITE_OK)
			goto out;
		descs[n] = desc;
		desc = NULL;
	}
	sq = callus_learn_settle_suggestions(r, pending_id, 1, "fix");
	goto out;
nomem:
	sq = SQLITE_NOMEM;
out:
	callus_learn_done(r, st);
	callus_strlist_release(&files);
	free(fj);
	free(ctx);
	free(desc);
	return sq;
}

typedef struct open_error {
	int64_t id, snap, sig;
	char *sigid, *files;
} open_error;

static void open_errors_free(open_error *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].sigid);
		free(rows[i].files);
	}
	free(rows);
}

/* The open pending errors of the check that this run fixes: all when it
 * passed, else those it does not name; read to the end before any is
 * fixed, as fixing writes to the rows being scanned. */
static int open_absent(learn_run *r, int64_t check_id, open_error **out, size_t *count)
{
	sqlite3_stmt *st = NULL;
	open_error *rows = NULL;
	size_t n = 0, cap = 0;
	int sq;

	*out = NULL;
	*count = 0;
#define OPEN_ERRORS(late)                                                                 \
	"SELECT p.id, g.id, p.snapshot_id, p.files, p.sig FROM pending_errors p"            \
	" JOIN signatures g ON g.rowid = p.sig"                                             \
	" WHERE p.check_id = ?1 AND p.state = 'pending'" late " ORDER BY p.id"
	sq = callus_learn_prepare(r, &st,
				  CALLUS_LEARN_LATE(r, OPEN_ERRORS(" AND +p.last_failure_at <= ?2"),
						    OPEN_ERRORS("")));
#undef OPEN_ERRORS
	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, check_id);
	callus_learn_bind_late(r, st, 2);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *sig = (const char *)sqlite3_column_text(st, 1);
		open_error *g;

		if (!sig || (!r->passed && callus_learn_in_run(r, sig)))
			continue;
		if (!(g = callus_array_grow(rows, &cap, n + 1, sizeof(*g)))) {
			sq = SQLITE_NOMEM;
			break;
		}
		rows = g;
		g = &rows[n++];
		g->id = sqlite3_column_int64(st, 0);
		g->snap = sqlite3_column_int64(st, 2);
		g->sig = sqlite3_column_int64(st, 4);
		g->sigid = callus_sql_column_dup(st, 1);
		g->files = callus_sql_column_dup(st, 3);
		if (!g->sigid || !g->files) {
			sq = SQLITE_NOMEM;
			break;
		}
	}
	callus_learn_done(r, st);
	*out = rows;
	*count = n;
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* The distinct messages a run looks for among its check's errors while
 * the store is due (resign_named): each a scan of the check's errors.  A
 * run of more errors holding a secret leaves the rest to the pass. */
#define RESIGN_PATTERNS 16

/* pattern, for LIKE ... ESCAPE '\': text with every redaction a run of
 * anything, and LIKE's own characters escaped. */
static int redacted_like(callus_buf *pattern, const char *text)
{
	callus_buf_clear(pattern);
	for (const char *p = text; *p; p++) {
		const char *end;

		if (!strncmp(p, "[REDACTED:", 10) && (end = strchr(p + 10, ']'))) {
			callus_buf_putc(pattern, '%');
			p = end;
		} else {
			if (*p == '%' || *p == '_' || *p == '\\')
				callus_buf_putc(pattern, '\\');
			callus_buf_putc(pattern, *p);
		}
	}
	return callus_buf_status(pattern) < 0 ? SQLITE_NOMEM : SQLITE_OK;
}

/*
 * While the store is not yet redacted whole by today's redactor
 * (store_redact.h), an error this check stored through an older one may
 * be one of this run's under another id: its message held what the run's
 * copy has redacted, and its id was made of it.  Named again by its old
 * id nowhere, it would be taken for fixed (absent from a failing run), a
 * failure of a permanent or fixed one would start a new error, and the
 * run's would be another.  So, before the run's errors are read against
 * the check's, each of the check's rows whose message is a run error's
 * but for its redactions (LIKE, each redaction any text) is redacted and
 * signed again (callus_store_redact_signature).  Only for a run error
 * that holds a redaction, in a store that is due: one row read (the
 * mark), and a scan of the check's own errors a distinct message, for at
 * most RESIGN_PATTERNS of them.
 */
static int resign_named(learn_run *r, int64_t check_id)
{
	callus_buf pattern = CALLUS_BUF_INIT;
	callus_strlist seen = CALLUS_STRLIST_INIT;
	char id[CALLUS_SHA256_HEX_LEN + 1];
	int64_t *sigs = NULL;
	size_t n = 0, cap = 0;
	int sq = SQLITE_OK, due = -1, added;

	for (size_t i = 0; i < r->nerrs && sq == SQLITE_OK && seen.count < RESIGN_PATTERNS; i++) {
		const char *text = r->errs[i].sig->original;
		sqlite3_stmt *st = NULL;

		if (!text || !strstr(text, "[REDACTED:"))
			continue;
		/* a mark that cannot be read: as before the mark */
		if (due < 0 && (due = callus_store_redact_due(r->s, NULL)) < 0)
			due = 0;
		if (!due)
			break;
		if ((sq = redacted_like(&pattern, text)) != SQLITE_OK)
			break;
		/* one scan a pattern: errors that differ by their secrets alone */
		if (callus_strlist_add_unique(&seen, pattern.ptr, pattern.len, &added) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
		if (!added)
			continue;
		sq = callus_learn_prepare(r, &st,
					  "SELECT DISTINCT p.sig FROM pending_errors p"
					  " JOIN signatures g ON g.rowid = p.sig"
					  " WHERE p.check_id = ?1 AND g.id <> ?2"
					  " AND g.original LIKE ?3 ESCAPE '\\'");
		if (sq != SQLITE_OK)
			break;
		sqlite3_bind_int64(st, 1, check_id);
		callus_sql_bind_text(st, 2, r->errs[i].sig->id);
		callus_sql_bind_text(st, 3, pattern.ptr);
		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t *grown = callus_array_grow(sigs, &cap, n + 1, sizeof(*grown));

			if (!grown) {
				sq = SQLITE_NOMEM;
				break;
			}
			(sigs = grown)[n++] = sqlite3_column_int64(st, 0);
		}
		callus_learn_done(r, st);
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	/* read whole first: signing again merges and moves rows */
	for (size_t i = 0; i < n && sq == SQLITE_OK; i++)
		sq = callus_store_redact_signature(r->s, r->o->redactor, sigs[i], id);
	free(sigs);
	callus_strlist_release(&seen);
	callus_buf_release(&pattern);
	return sq;
}

/* Every open pending error of the check this run fixes. */
int callus_learn_fix_absent(learn_run *r, int64_t check_id, int64_t runs)
{
	open_error *rows = NULL;
	size_t n = 0;
	int sq;

	if (!r->passed && !r->nerrs)
		return SQLITE_OK;
	if (!r->passed && (sq = resign_named(r, check_id)) != SQLITE_OK)
		return sq;
	sq = open_absent(r, check_id, &rows, &n);
	for (size_t i = 0; i < n && sq == SQLITE_OK; i++)
		sq = fix_one(r, runs, rows[i].id, rows[i].sigid, rows[i].snap, rows[i].files);
	open_errors_free(rows, n);
	return sq;
}
