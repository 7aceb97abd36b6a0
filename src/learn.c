/*
 * learn.c - learning from a run of a check (include/callus/learn.h): the
 * three steps of a run, pruning, `callus feedback`.  The transitions of
 * one pending error are learn_transition.c, the suggestions and the
 * applications of resolutions learn_apply.c (shared in learn_internal.h).
 *
 * A run is learnt in three steps: a look at the store without locking it
 * (which errors are new, which pending errors this run fixes), the slow
 * work with no lock held (the snapshot, the diffs), then one IMMEDIATE
 * transaction that reads the states again and writes.  What changed
 * between the first and the last step (another session fixed the error)
 * is decided by the last one.  A failure's recording asks for the first
 * step and the start of the second before it writes its lesson
 * (callus_learn_failure_start), and for the rest after: the snapshot
 * helper works while the lesson and its vectors are written.
 */
#include "callus/learn.h"
#include "callus/checkindex.h"
#include "callus/fileindex.h"
#include "callus/buf.h"
#include "callus/lesson.h"
#include "callus/notes.h"
#include "callus/patchdesc.h"
#include "callus/redact.h"

#include "learn_internal.h"
#include "notes_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define DESCRIPTION_MAX 400

const char *callus_error_state_name(callus_error_state s)
{
	switch (s) {
	case CALLUS_STATE_FIXED: return "fixed";
	case CALLUS_STATE_PERMANENT: return "permanent";
	default: return "pending";
	}
}

int callus_learn_prepare(learn_run *r, sqlite3_stmt **st, const char *sql)
{
	return callus_store_stmt(r->s, sql, st);
}

void callus_learn_done(learn_run *r, sqlite3_stmt *st)
{
	callus_store_stmt_done(r->s, st);
}

/* [learn] prune_hours, or its default. */
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

int callus_learn_in_run(const learn_run *r, const char *sig)
{
	return callus_strlist_contains(&r->sigs, sig, strlen(sig));
}

fix_diff *callus_learn_find_diff(learn_run *r, int64_t snapshot_id)
{
	if (r->o->fix_patch)
		return r->given.patch ? &r->given : NULL;
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
	sq = callus_learn_prepare(r, &st, "SELECT 1 FROM checks WHERE tool = ?1 AND args = ?2 AND dir = ?3");
	if (sq != SQLITE_OK)
		return sq;
	bind_check(st, &r->o->check);
	sq = sqlite3_step(st);
	callus_learn_done(r, st);
	st = NULL;
	if (sq != SQLITE_ROW && sq != SQLITE_DONE)
		return sq;
	*known = sq == SQLITE_ROW;
	if (!*known && r->passed)
		return SQLITE_OK;
/* A late run's time (the unary +) keeps pending_last out of every plan
 * here: by state and time, the open errors of every check were read, by
 * check only its own (pending_check). */
#define LOOK_PENDING(late)                                                               \
	"SELECT g.id, sn.id, sn.kind, sn.tree, sn.taken_at FROM pending_errors p"        \
	" JOIN checks c ON c.id = p.check_id JOIN signatures g ON g.rowid = p.sig"       \
	" LEFT JOIN snapshots sn ON sn.id = p.snapshot_id"                               \
	" WHERE c.tool = ?1 AND c.args = ?2 AND c.dir = ?3 AND p.state = 'pending'" late
	sq = callus_learn_prepare(r, &st,
				  CALLUS_LEARN_LATE(r, LOOK_PENDING(" AND +p.last_failure_at <= ?4"),
						    LOOK_PENDING("")));
#undef LOOK_PENDING
	if (sq != SQLITE_OK)
		return sq;
	bind_check(st, &r->o->check);
	callus_learn_bind_late(r, st, 4);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *sig = (const char *)sqlite3_column_text(st, 0);
		callus_snapshot_kind kind;
		fix_diff *d, *grown;

		if (!sig || (!r->passed && (callus_learn_in_run(r, sig) || !r->nerrs)))
			continue;
		r->npending++;
		if (sqlite3_column_type(st, 1) == SQLITE_NULL ||
		    callus_snapshot_kind_parse(&kind, (const char *)sqlite3_column_text(st, 2)) < 0 ||
		    callus_learn_find_diff(r, sqlite3_column_int64(st, 1)))
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
		/* ISO 8601 times of one format: compared as text */
		d->newer = sqlite3_column_type(st, 4) == SQLITE_TEXT &&
			   strcmp((const char *)sqlite3_column_text(st, 4), r->now) > 0;
		if (!(d->snap.tree = callus_sql_column_dup(st, 3)) || !(d->snap.commit = strdup(""))) {
			callus_snapshot_release(&d->snap);
			sq = SQLITE_NOMEM;
			break;
		}
		r->ndiffs++;
	}
	callus_learn_done(r, st);
	if (sq != SQLITE_DONE)
		return sq;
	if (r->passed || !r->nerrs || r->o->no_snapshot || r->o->fix_patch)
		return SQLITE_OK;
	/* Is any of this run's errors new to the check?  Each state looked
	 * up by the check and the error (pending_open; pending_permanent,
	 * schema 38), the time only checked (the unary +): by state and
	 * time, every open error of the week, of every check, was read for
	 * each error (656 -> 6,506 rows from 1,000 to 10,000 recordings), and
	 * by the error alone all its past fixes.  No row: the check is new. */
	sq = callus_learn_prepare(r, &st,
				  "SELECT EXISTS (SELECT 1 FROM pending_errors p WHERE p.check_id = c.id"
				  "  AND p.sig = (SELECT rowid FROM signatures WHERE id = ?4)"
				  "  AND p.state = 'pending' AND +p.last_failure_at >= ?6)"
				  " OR EXISTS (SELECT 1 FROM pending_errors p WHERE p.check_id = c.id"
				  "  AND p.sig = (SELECT rowid FROM signatures WHERE id = ?4)"
				  "  AND p.state = 'permanent' AND p.session = ?5"
				  "  AND +p.last_failure_at >= ?6)"
				  " FROM checks c WHERE c.tool = ?1 AND c.args = ?2 AND c.dir = ?3");
	if (sq != SQLITE_OK)
		return sq;
	for (size_t i = 0; i < r->nerrs && !*need_snapshot; i++) {
		sqlite3_reset(st);
		bind_check(st, &r->o->check);
		callus_sql_bind_text(st, 4, r->errs[i].sig->id);
		callus_sql_bind_text(st, 5, r->o->session);
		callus_sql_bind_text(st, 6, r->idle_since);
		if ((sq = sqlite3_step(st)) == SQLITE_DONE ||
		    (sq == SQLITE_ROW && !sqlite3_column_int(st, 0)))
			*need_snapshot = 1;
		else if (sq != SQLITE_ROW)
			break;
		sq = SQLITE_OK;
	}
	callus_learn_done(r, st);
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

/* Make d's patch from raw (the fix as given, or the diff of d's snapshot
 * with now; NULL when it could not be made), redacted, and describe it. */
static int make_diff(learn_run *r, fix_diff *d, const char *raw)
{
	callus_patch_summary sum = CALLUS_PATCH_SUMMARY_INIT;
	int rc;

	if (!raw) {
		d->patch = strdup("");
		d->description = strdup("The working tree could not be compared with the failure");
		return d->patch && d->description ? 0 : CALLUS_ENOMEM;
	}
	d->made = 1;
	d->unchanged = !*raw;
	/* a diff is the user's code: secrets in it are redacted like output */
	if ((rc = callus_redact_str(r->o->redactor, &d->patch, raw)) < 0 ||
	    (strcmp(d->patch, raw) && (rc = callus_patch_recount(&d->patch)) < 0) ||
	    (rc = callus_patch_summarize(&sum, d->patch, strlen(d->patch))) < 0 ||
	    (rc = callus_patch_describe(&d->description, &sum, DESCRIPTION_MAX)) < 0 ||
	    (rc = callus_patch_files(&d->files, &sum)) < 0)
		rc = CALLUS_ENOMEM;
	callus_patch_summary_release(&sum);
	return rc;
}

int callus_learn_fixes_add(callus_learn_fixes *f, const char *tree, const char *patch)
{
	callus_learn_fix *grown = realloc(f->items, (f->count + 1) * sizeof(*grown));
	callus_learn_fix *x;

	if (!grown)
		return CALLUS_ENOMEM;
	f->items = grown;
	x = &f->items[f->count];
	x->tree = strdup(tree);
	x->patch = strdup(patch);
	if (!x->tree || !x->patch) {
		free(x->tree);
		free(x->patch);
		return CALLUS_ENOMEM;
	}
	f->count++;
	return 0;
}

void callus_learn_fixes_release(callus_learn_fixes *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->count; i++) {
		free(f->items[i].tree);
		free(f->items[i].patch);
	}
	free(f->items);
	free(f->head);
	f->items = NULL;
	f->count = 0;
	f->head = NULL;
}

/* The fix of d's snapshot that a run delivered late found when it ran,
 * or NULL. */
static const char *fix_given(const learn_run *r, const fix_diff *d)
{
	const callus_learn_fixes *f = r->o->fixes;

	for (size_t i = 0; f && d->snap.tree && i < f->count; i++)
		if (!strcmp(f->items[i].tree, d->snap.tree))
			return f->items[i].patch;
	return NULL;
}

/* The fixes a run found, kept for its queued delivery: those that were
 * made, and HEAD then.  Without memory, fewer (the rest from the tree
 * then). */
static void keep_fixes(const learn_run *r, callus_learn_fixes *out)
{
	for (size_t i = 0; i < r->ndiffs; i++) {
		const fix_diff *d = &r->diffs[i];

		if (d->made && d->snap.tree && callus_learn_fixes_add(out, d->snap.tree, d->patch) < 0)
			break;
	}
	if (out->count && r->head && !out->head)
		out->head = strdup(r->head);
}

/* A run between its look at the store and its writes (learn.h's
 * callus_learn_failure_start), the helper working meanwhile. */
struct callus_learn_started {
	learn_run r;
	int skip;                   /* a pass of a check never failed here:
				     * nothing to write */
	int need_snapshot;
	size_t ndiffs;              /* of r.diffs, asked of the helper */
	callus_snapshot_req *reqs;  /* need_snapshot + ndiffs + HEAD; NULL:
				     * nothing asked */
	callus_strlist files;       /* the snapshot's, borrowed by reqs */
	callus_snapshot_batch *batch;
	int ask_head;               /* HEAD asked of the helper: with diffs,
				     * or for fixes given without it */
	int answered;               /* the answers taken (slow_finish) */
};

/* The git tree a run delivered late was found with, that its fixes from
 * git snapshots are diffed to; NULL: the working tree now. */
static const callus_snapshot *late_tree(const learn_run *r)
{
	const callus_snapshot *t = r->o->taken;

	return t && t->kind == CALLUS_SNAPSHOT_GIT && t->tree && t->commit ? t : NULL;
}

/* Where d's fix ends: the run's kept tree, or NULL for the tree now, as
 * for an error whose snapshot is newer than the run (taken by its
 * drainer: from it to the run's tree would undo the work between). */
static const callus_snapshot *diff_to(const learn_run *r, const fix_diff *d)
{
	return d->snap.kind == CALLUS_SNAPSHOT_GIT && !d->newer ? late_tree(r) : NULL;
}

/*
 * Step two, begun: the snapshot and the diffs asked of the helper in one
 * run (the failure's snapshot, each fixed error's diff, HEAD now), with no
 * lock held; slow_finish() reads the answers.  Their failure is noted,
 * never fatal: the states are learnt without them.
 */
static int slow_start(struct callus_learn_started *st)
{
	learn_run *r = &st->r;
	size_t max = r->o->diff_max ? r->o->diff_max : CALLUS_LEARN_DIFF_MAX;
	callus_error e = CALLUS_ERROR_INIT;
	size_t n = 0, given_n = 0, nto = 0;
	int rc = 0, any;

	st->ndiffs = r->o->fix_patch || r->o->no_snapshot ? 0 : r->ndiffs;
	/* A run delivered late: the fixes it found when it ran are made now
	 * and moved past those the helper is asked for, diffs[0..ndiffs). */
	for (size_t i = 0; i < st->ndiffs;) {
		const char *given = fix_given(r, &r->diffs[i]);
		fix_diff t;

		if (!given) {
			i++;
			continue;
		}
		if ((rc = make_diff(r, &r->diffs[i], given)) < 0)
			return rc;
		given_n++;
		t = r->diffs[i];
		r->diffs[i] = r->diffs[--st->ndiffs];
		r->diffs[st->ndiffs] = t;
	}
	/* A run delivered late whose hook kept the tree it found: its fixes
	 * end there (diff_to), not in the tree found now, which may hold the
	 * agent's next work or a later run's fix.  HEAD as the run found it
	 * too: with every fix given, the one kept with them, else the kept
	 * tree's when every fix ends there; asked now when one ends now. */
	for (size_t i = 0; i < st->ndiffs; i++)
		nto += diff_to(r, &r->diffs[i]) != NULL;
	any = given_n || st->ndiffs;
	if (given_n && !st->ndiffs && r->o->fixes && r->o->fixes->head) {
		if (!(r->head = strdup(r->o->fixes->head)))
			return CALLUS_ENOMEM;
	} else if (any && nto == st->ndiffs && late_tree(r)) {
		if (!(r->head = strdup(r->o->taken->commit)))
			return CALLUS_ENOMEM;
	} else {
		st->ask_head = any;
	}
	if (r->o->fix_patch) {
		size_t len = strlen(r->o->fix_patch);
		/* the diff a snapshot gives is cut at the same size */
		char *raw = strndup(r->o->fix_patch, len > max ? max : len);

		rc = raw ? make_diff(r, &r->given, raw) : CALLUS_ENOMEM;
		free(raw);
		if (rc < 0)
			return rc;
	}
	/* a failure delivered late: the working tree as its hook found it,
	 * not the one found now, which may hold its fix already */
	if (st->need_snapshot && r->o->taken) {
		if (callus_snapshot_copy(&r->snap, r->o->taken) < 0)
			return CALLUS_ENOMEM;
		r->have_snap = 1;
		st->need_snapshot = 0;
	}
	if (!st->need_snapshot && !st->ndiffs && !st->ask_head)
		return 0;
	if (!(st->reqs = calloc(st->ndiffs + 2, sizeof(*st->reqs))) ||
	    (st->need_snapshot && snapshot_files(r, &st->files) < 0))
		return CALLUS_ENOMEM;
	if (st->need_snapshot) {
		st->reqs[n] = (callus_snapshot_req)CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_TAKE);
		st->reqs[n++].files = &st->files;
	}
	for (size_t i = 0; i < st->ndiffs; i++) {
		st->reqs[n] = (callus_snapshot_req)CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF);
		st->reqs[n].snap = &r->diffs[i].snap;
		st->reqs[n].to = diff_to(r, &r->diffs[i]);
		st->reqs[n++].max_bytes = max;
	}
	if (st->ask_head)
		st->reqs[n++] = (callus_snapshot_req)CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_HEAD);
	/* a helper that did not start has set every request's error */
	(void)callus_snapshot_start(&st->batch, st->reqs, n, r->o->workspace, r->o->snapshot, &e);
	callus_error_release(&e);
	return 0;
}

/*
 * The diffs to the run's kept tree, reqs[first..first + ndiffs), that the
 * helper answered it does not have, asked again in one run as diffs to the
 * tree now: the fix as without a kept tree, rather than none.  HEAD is
 * then now's: asked with them, unless the batch asked it already (some
 * diff went to the tree now).  Not a diff the helper did not answer (a
 * timeout, the deadline): the tree now may hold the agent's next work.
 */
static void ask_again_to_now(struct callus_learn_started *st, size_t first)
{
	learn_run *r = &st->r;
	callus_snapshot_req *again = NULL;
	callus_error e = CALLUS_ERROR_INIT;
	size_t *which = NULL, n = 0, made = 0;

	for (size_t i = first; i < first + st->ndiffs; i++) {
		if (!st->reqs[i].to_gone)
			continue;
		if (!again && (!(again = calloc(st->ndiffs + 1, sizeof(*again))) ||
			       !(which = calloc(st->ndiffs, sizeof(*which)))))
			goto out;
		again[n] = (callus_snapshot_req)CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF);
		again[n].snap = st->reqs[i].snap;
		again[n].max_bytes = st->reqs[i].max_bytes;
		which[n++] = i;
	}
	if (!n)
		goto out;
	again[n] = (callus_snapshot_req)CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_HEAD);
	if (callus_snapshot_run(again, st->ask_head ? n : n + 1, r->o->workspace, r->o->snapshot,
				&e) < 0)
		goto out;
	for (size_t k = 0; k < n; k++)
		made += again[k].rc == 0;
	if (made)
		note_trouble(r, "the fixes were compared with the working tree now, not the one "
				"their run kept", &st->reqs[which[0]].err);
	for (size_t k = 0; k < n; k++) {
		callus_snapshot_req_release(&st->reqs[which[k]]);
		st->reqs[which[k]] = again[k];
		again[k] = (callus_snapshot_req)CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF);
	}
	/* the kept tree's commit names no diff that ends now: unknown
	 * rather than that, when HEAD could not be read */
	if (made && !st->ask_head) {
		free(r->head);
		r->head = again[n].rc == 0 ? again[n].text : NULL;
		again[n].text = NULL;
	}
out:
	for (size_t k = 0; again && k <= n; k++)
		callus_snapshot_req_release(&again[k]);
	free(again);
	free(which);
	callus_error_release(&e);
}

/* Step two, ended: the helper's answers taken into the run. */
static int slow_finish(struct callus_learn_started *st)
{
	learn_run *r = &st->r;
	callus_error e = CALLUS_ERROR_INIT;
	size_t n = 0;
	int rc = 0, helper_rc;

	if (!st->reqs || st->answered)
		return 0;
	st->answered = 1;
	helper_rc = callus_snapshot_finish(st->batch, &e);
	st->batch = NULL;
	callus_error_release(&e);
	if (st->need_snapshot) {
		if (st->reqs[n].rc == 0) {
			r->snap = st->reqs[n].taken;
			st->reqs[n].taken = (callus_snapshot)CALLUS_SNAPSHOT_INIT;
			r->have_snap = 1;
			r->snap_late = r->o->redelivered;
		} else {
			note_trouble(r, "cannot snapshot the working tree", &st->reqs[n].err);
		}
		n++;
	}
	if (helper_rc == 0)
		ask_again_to_now(st, n);
	for (size_t i = 0; i < st->ndiffs && rc == 0; i++, n++) {
		callus_snapshot_req *q = &st->reqs[n];

		if (q->rc < 0)
			note_trouble(r, "cannot diff the working tree", &q->err);
		rc = make_diff(r, &r->diffs[i], q->rc == 0 ? q->text : NULL);
	}
	if (rc == 0 && st->ask_head && st->reqs[n].rc == 0) {
		free(r->head);
		r->head = st->reqs[n].text;
		st->reqs[n].text = NULL;
	}
	return rc;
}

/* The check's row, created if missing, with one more run. */
static int touch_check(learn_run *r, int64_t *id, int64_t *runs)
{
	sqlite3_stmt *st = NULL;
	int sq;

	/* a run of another time than the clock's (delivered late, or
	 * imported) leaves the check's newest times as they are; a live one's
	 * time is the newest */
#define TOUCH(run, pass)                                                                  \
	"INSERT INTO checks (tool, args, dir, runs, last_run_at, last_pass_at)"             \
	" VALUES (?1, ?2, ?3, 1, ?4, CASE WHEN ?5 THEN ?4 END)"                             \
	" ON CONFLICT (tool, args, dir) DO UPDATE SET runs = runs + 1,"                     \
	"  last_run_at = " run ", last_pass_at = CASE WHEN ?5 THEN " pass                   \
	"   ELSE last_pass_at END RETURNING id, runs"
	sq = callus_learn_prepare(r, &st,
				  r->o->now ? TOUCH("max(coalesce(last_run_at, ''), ?4)",
						    "max(coalesce(last_pass_at, ''), ?4)")
					    : TOUCH("?4", "?4"));
#undef TOUCH
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
	callus_learn_done(r, st);
	return sq;
}

void callus_learn_bind_late(learn_run *r, sqlite3_stmt *st, int i)
{
	if (r->o->redelivered)
		callus_sql_bind_text(st, i, r->now);
}

/* Pending errors whose last failure is before `before` go, the oldest
 * first, at most limit (0: all) of them; but all of check_id's (0: none),
 * whatever the limit: an abandoned error its check still held would take
 * the next failure's attempt, or the next pass's fix.  *count gets the
 * errors, *snapshots (may be NULL) the snapshots they left unused. */
static int prune(learn_run *r, const char *before, size_t limit, int64_t check_id, size_t *count,
		 size_t *snapshots)
{
	sqlite3_stmt *st = NULL;
	int64_t *snaps = NULL;
	size_t nsnaps = 0, i;
	int sq;

	*count = 0;
	if (snapshots)
		*snapshots = 0;
	/* nearly always none: asked first of the index, the DELETE (which
	 * compiles the cascades and the totals' triggers: 0.11 million
	 * instructions of a failing hook's 13.1, bench/hookinstr.sh) only
	 * when there is one */
	sq = callus_learn_prepare(r, &st, "SELECT 1 FROM pending_errors WHERE state = 'pending'"
					  " AND last_failure_at < ?1 LIMIT 1");
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, before);
		sq = sqlite3_step(st);
	}
	callus_learn_done(r, st);
	st = NULL;
	if (sq != SQLITE_ROW)
		return sq == SQLITE_DONE ? SQLITE_OK : sq;
	/* each error's snapshot said, so that only those are looked at
	 * after: the snapshots nothing refers to, asked of the whole table,
	 * read it to its end whenever fewer were left than errors went (a
	 * failure's errors share one) */
	sq = callus_learn_prepare(r, &st, "DELETE FROM pending_errors WHERE id IN (SELECT id FROM"
					  " pending_errors WHERE state = 'pending' AND"
					  " last_failure_at < ?1 ORDER BY last_failure_at LIMIT ?2)"
					  " OR id IN (SELECT id FROM pending_errors WHERE"
					  " check_id = ?3 AND state = 'pending' AND"
					  " last_failure_at < ?1) RETURNING snapshot_id");
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, before);
		sqlite3_bind_int64(st, 2, limit ? (sqlite3_int64)limit : -1);
		sqlite3_bind_int64(st, 3, check_id);
		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t snap = sqlite3_column_int64(st, 0);

			++*count;
			/* a failure's errors come together: said once (one said
			 * twice is looked up twice, no more) */
			if (sqlite3_column_type(st, 0) == SQLITE_NULL ||
			    (nsnaps && snaps[nsnaps - 1] == snap))
				continue;
			if ((sq = callus_learn_push_id(&snaps, &nsnaps, snap)) != SQLITE_OK)
				break;
		}
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	callus_learn_done(r, st);
	st = NULL;
	/* those of them nothing refers to any more */
	if (sq == SQLITE_OK && nsnaps &&
	    (sq = callus_learn_prepare(r, &st, "DELETE FROM snapshots WHERE id = ?1 AND NOT EXISTS"
					       " (SELECT 1 FROM pending_errors p"
					       " WHERE p.snapshot_id = ?1)")) == SQLITE_OK) {
		for (i = 0; i < nsnaps && sq == SQLITE_OK; i++) {
			sqlite3_reset(st);
			sqlite3_bind_int64(st, 1, snaps[i]);
			if ((sq = sqlite3_step(st)) == SQLITE_DONE) {
				if (snapshots)
					*snapshots += (size_t)sqlite3_changes(callus_store_db(r->s));
				sq = SQLITE_OK;
			}
		}
		callus_learn_done(r, st);
	}
	free(snaps);
	return sq;
}

/* The notes of the resolutions this run made or moved (notes.h), in its
 * transaction; their files are written once it commits (write_run). */
static int learn_notes(learn_run *r, callus_error *err)
{
	int64_t *ids = NULL;
	size_t n = 0;
	int rc = 0;

	if (!r->res->nfixed && !r->ntouched)
		return 0;
	for (size_t i = 0; i < r->res->nfixed && rc == 0; i++)
		if (callus_learn_push_id(&ids, &n, r->res->fixed_resolutions[i]) != SQLITE_OK)
			rc = CALLUS_ENOMEM;
	for (size_t i = 0; i < r->ntouched && rc == 0; i++)
		if (callus_learn_push_id(&ids, &n, r->touched[i]) != SQLITE_OK)
			rc = CALLUS_ENOMEM;
	/* a person's edits are the store's before a fix merges into them (a
	 * failure's suggestions read what callus_record_lesson() synced): the
	 * files added or removed since the recording's sync, then each note
	 * the fix changes (callus_notes_learn) */
	if (rc < 0)
		rc = callus_error_set(err, rc, "out of memory");
	else if ((rc = callus_notes_sync_moved(r->s, r->o->workspace, NULL, err)) == 0)
		/* a note taken in brings its signature: the kept rows see the
		 * store's count of them move, and are read again */
		rc = callus_notes_learn(r->s, r->o->workspace, ids, n, r->candidates,
					&r->res->nnotes, &r->notes_owed, err);
	free(ids);
	return rc;
}

/*
 * The caller's metrics and what the run measured, written in the run's
 * transaction (a transaction of their own after it was one more commit a
 * hook): both or neither, in a savepoint, since a write stops at its first
 * failing row and the rows before it would be stored and then flushed again
 * by the caller.  1 when written.  Metrics never stop learning: not
 * written, they stay the caller's to store, as before (an error that rolls
 * the whole transaction back, a full disk, would have failed its commit).
 */
static int store_metrics(learn_run *r)
{
	int ok;

	if (!r->o->metrics || callus_store_exec(r->s, "SAVEPOINT metrics", NULL) < 0)
		return 0;
	ok = callus_store_write_metrics(r->s, r->o->metrics) == SQLITE_OK &&
	     (!r->metrics || callus_store_write_metrics(r->s, r->metrics) == SQLITE_OK);
	if (!ok)
		(void)callus_store_exec(r->s, "ROLLBACK TO metrics", NULL);
	(void)callus_store_exec(r->s, "RELEASE metrics", NULL);
	return ok;
}

/* Whether sql (?1 to ?3 the run's check, ?4 its time) finds a row: 1, 0,
 * or an SQLite error < 0 (as -sq).  The bounds of a run delivered late. */
static int check_has(learn_run *r, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int sq = callus_learn_prepare(r, &st, sql);

	if (sq != SQLITE_OK)
		return -sq;
	bind_check(st, &r->o->check);
	callus_sql_bind_text(st, 4, r->now);
	sq = sqlite3_step(st);
	callus_learn_done(r, st);
	return sq == SQLITE_ROW ? 1 : sq == SQLITE_DONE ? 0 : -sq;
}

/* A pass delivered late, under the write lock: the check still has errors
 * pending from before it ran (look() read them without the lock: another
 * pass may have fixed them since). */
#define STILL_PENDING                                                                     \
	"SELECT 1 FROM checks c JOIN pending_errors p ON p.check_id = c.id"                 \
	" WHERE c.tool = ?1 AND c.args = ?2 AND c.dir = ?3"                                 \
	" AND p.state = 'pending' AND +p.last_failure_at <= ?4 LIMIT 1"
/* A failure delivered late: its check passed after it ran. */
#define PASSED_SINCE                                                                      \
	"SELECT 1 FROM checks WHERE tool = ?1 AND args = ?2 AND dir = ?3 AND last_pass_at > ?4"

/* The run's learning is written with this transaction: a delivery again
 * finds nothing owed (store.h). */
static int settle_owed(learn_run *r)
{
	sqlite3_stmt *st = NULL;
	int sq;

	sq = sqlite3_prepare_v2(callus_store_db(r->s),
				"UPDATE runs SET learn_owed = NULL WHERE origin = ?"
				" AND learn_owed IS NOT NULL",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, r->o->origin);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* Step three: every write of the run, in one transaction. */
static int write_run(learn_run *r, callus_error *err)
{
	int64_t check_id = 0, runs = 0;
	int rc, sq, stored;

	if ((rc = callus_store_exec(r->s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	/* a pass delivered again, or whose errors another pass fixed since:
	 * nothing to write, not even the check's run */
	if (r->passed && r->o->redelivered && (sq = check_has(r, STILL_PENDING)) <= 0) {
		if (sq < 0) {
			sq = -sq;
			goto fail;
		}
		return callus_store_exec(r->s, "COMMIT", err);
	}
	if ((sq = touch_check(r, &check_id, &runs)) != SQLITE_OK ||
	    (sq = prune(r, r->idle_since, CALLUS_LEARN_PRUNE_BATCH, check_id, &r->res->pruned,
			NULL)) != SQLITE_OK ||
	    (sq = callus_learn_fix_absent(r, check_id, runs)) != SQLITE_OK)
		goto fail;
	for (size_t i = 0; !r->passed && i < r->nerrs; i++)
		if ((sq = callus_learn_fail_one(r, check_id, runs, &r->errs[i])) != SQLITE_OK)
			goto fail;
	if (!r->passed && (sq = callus_learn_suggest(r, check_id)) != SQLITE_OK)
		goto fail;
	if (!r->passed && r->o->origin && (sq = settle_owed(r)) != SQLITE_OK)
		goto fail;
	if ((rc = learn_notes(r, err)) < 0)
		goto rollback;
	/* Under the write lock, so that no other writer's older list can land
	 * after this one.  The index is a hint: one that cannot be written is
	 * removed, and the next hook before an edit rebuilds it. */
	if (r->nknown && callus_fileindex_add(r->s, r->known, r->nknown, NULL) < 0)
		callus_fileindex_remove(r->s);
	/* whether the check's next pass must open the store (checkindex.h):
	 * last before the commit, so that a rollback can only have added a
	 * check; a list that cannot say so is removed, never the recording */
	callus_checkindex_update(r->s, check_id, &r->o->check, NULL);
	stored = store_metrics(r);
	if ((rc = callus_store_exec(r->s, "COMMIT", err)) < 0)
		return rc;
	if (r->o->metrics) {
		if (stored)
			callus_metrics_clear(r->o->metrics);
		else if (r->metrics)
			callus_metrics_merge(r->o->metrics, r->metrics);
	}
	/* what is learnt is committed: files not written now stay owed, and
	 * the next sync writes them (said in the log) */
	callus_notes_write_owed(r->s, r->o->workspace, &r->notes_owed);
	return 0;
fail:
	rc = callus_store_db_error(r->s, err, sq, "cannot record what was learnt in");
rollback:
	sqlite3_exec(callus_store_db(r->s), "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

void callus_learn_started_free(callus_learn_started *st)
{
	learn_run *r;

	if (!st)
		return;
	r = &st->r;
	callus_snapshot_abandon(st->batch);
	for (size_t i = 0; st->reqs && i < st->ndiffs + 2; i++)
		callus_snapshot_req_release(&st->reqs[i]);
	free(st->reqs);
	callus_strlist_release(&st->files);
	for (size_t i = 0; i < r->ndiffs; i++) {
		callus_snapshot_release(&r->diffs[i].snap);
		free(r->diffs[i].patch);
		free(r->diffs[i].description);
		callus_strlist_release(&r->diffs[i].files);
	}
	free(r->diffs);
	free(r->given.patch);
	free(r->given.description);
	callus_strlist_release(&r->given.files);
	free(r->touched);
	callus_strlist_release(&r->notes_owed);
	free(r->known);
	callus_strlist_release(&r->sigs);
	callus_snapshot_release(&r->snap);
	callus_buf_release(&r->trouble);
	callus_metrics_free(r->metrics);
	callus_match_candidates_free(r->candidates);
	free(r->head);
	free(r->now);
	free(r->idle_since);
	free(st);
}

/* Steps one and two begun: the look, and the helper started. */
static int learn_start(callus_learn_started **out, callus_store *s, const callus_learn_opts *o,
		       const callus_learn_error *errs, size_t nerrs, int passed, callus_error *err)
{
	callus_learn_started *st;
	learn_run *r;
	int known = 0, rc = 0, sq;

	*out = NULL;
	if (!o->redactor)
		return callus_error_set(err, CALLUS_EINVAL, "learning needs a redactor");
	if (!(st = calloc(1, sizeof(*st))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	r = &st->r;
	r->s = s;
	r->o = o;
	r->errs = errs;
	r->nerrs = nerrs;
	r->passed = passed;
	(void)callus_strlist_index(&r->sigs);
	for (size_t i = 0; i < nerrs; i++)
		if (callus_strlist_add(&r->sigs, errs[i].sig->id, strlen(errs[i].sig->id)) < 0) {
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
			goto out;
		}
	callus_buf_init(&r->trouble, 1024);
	/* metrics never stop learning: without memory for them, none */
	if (o->metrics && callus_metrics_new(&r->metrics) < 0)
		r->metrics = NULL;
	/* nor do the regex fallback's kept rows: without them, each search
	 * reads its own */
	(void)callus_match_candidates_new(&r->candidates);
	if (!(r->now = o->now ? strdup(o->now) : callus_now_iso8601()) ||
	    !(r->idle_since = callus_sql_time_before(r->now,
						     (int64_t)prune_hours(o) * 3600))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = look(r, &st->need_snapshot, &known)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	/* a pass of a check never failed here writes nothing, but a list of
	 * checks (checkindex.h) lets the next such pass leave the store closed */
	if (passed && !known) {
		callus_checkindex_ensure(s, NULL);
		st->skip = 1;
	} else if (passed && o->redelivered && !r->npending) {
		/* learnt at its first delivery, or every error failed again since */
		st->skip = 1;
	} else if (!passed && o->redelivered && !o->replayed &&
		   (sq = check_has(r, PASSED_SINCE)) != 0) {
		if (sq < 0) {
			rc = callus_store_db_error(s, err, -sq, "cannot read");
			goto out;
		}
		/* the check passed after this failure: its errors are not
		 * pending (the failure itself is stored, as its lesson) */
		st->skip = 1;
	} else if ((rc = slow_start(st)) < 0) {
		rc = callus_error_set(err, rc, "out of memory while comparing the working tree");
		goto out;
	}
	*out = st;
	st = NULL;
out:
	callus_learn_started_free(st);
	return rc;
}

/* Step two ended and step three: the answers read, the writes made. */
static int learn_finish(callus_learn_started *st, callus_learn_result *res, callus_error *err)
{
	learn_run *r = &st->r;
	int rc = 0;

	memset(res, 0, sizeof(*res));
	r->res = res;
	if (st->skip) {
		/* a failure its check passed after learns nothing, and owes
		 * nothing either: a delivery again would find it owed */
		if (!r->passed && r->o->origin)
			(void)settle_owed(r);
		goto out;
	}
	if ((rc = slow_finish(st)) < 0) {
		rc = callus_error_set(err, rc, "out of memory while comparing the working tree");
		goto out;
	}
	if ((rc = write_run(r, err)) < 0) {
		if (rc == CALLUS_EBUSY && r->passed && r->o->busy_fixes)
			keep_fixes(r, r->o->busy_fixes);
		goto out;
	}
	if (r->trouble.len && callus_buf_status(&r->trouble) == 0)
		res->snapshot_error = callus_buf_detach(&r->trouble);
out:
	if (rc < 0)
		callus_learn_result_release(res);
	callus_learn_started_free(st);
	return rc;
}

static int learn(callus_store *s, const callus_learn_opts *o, const callus_learn_error *errs,
		 size_t nerrs, int passed, callus_learn_result *res, callus_error *err)
{
	callus_learn_started *st = NULL;
	int rc = learn_start(&st, s, o, errs, nerrs, passed, err);

	if (rc < 0) {
		memset(res, 0, sizeof(*res));
		return rc;
	}
	return learn_finish(st, res, err);
}

int callus_learn_failure_start(callus_learn_started **st, callus_store *s,
			       const callus_learn_opts *opts, const callus_learn_error *errs,
			       size_t nerrs, callus_error *err)
{
	return learn_start(st, s, opts, errs, nerrs, 0, err);
}

int callus_learn_failure_finish(callus_learn_started *st, callus_learn_result *res,
				callus_error *err)
{
	return learn_finish(st, res, err);
}

int callus_learn_started_kept(callus_learn_started *st, callus_snapshot *out,
			      callus_learn_fixes *fixes)
{
	learn_run *r;
	int rc;

	*out = (callus_snapshot)CALLUS_SNAPSHOT_INIT;
	if (!st || st->skip)
		return CALLUS_ENOTFOUND;
	r = &st->r;
	if ((rc = slow_finish(st)) < 0)
		return rc;
	if (fixes)
		keep_fixes(r, fixes);
	/* Its errors were all known when it looked, so none was asked for;
	 * by its late delivery one may be new (a pass queued before it
	 * closed it): taken now, as the run found the tree. */
	if (!r->have_snap && !st->need_snapshot && !r->passed && r->nerrs && !r->o->no_snapshot &&
	    !r->o->fix_patch) {
		callus_strlist files = CALLUS_STRLIST_INIT;
		callus_error e = CALLUS_ERROR_INIT;

		if ((rc = snapshot_files(r, &files)) == 0 &&
		    callus_snapshot_take(&r->snap, r->o->workspace, &files, r->o->snapshot, &e) == 0)
			r->have_snap = 1;
		callus_strlist_release(&files);
		callus_error_release(&e);
		if (rc < 0)
			return rc;
	}
	return r->have_snap ? callus_snapshot_copy(out, &r->snap) : CALLUS_ENOTFOUND;
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

int callus_learn_prune(callus_store *s, int hours, const char *now, size_t limit, size_t *count,
		       size_t *snapshots, callus_error *err)
{
	learn_run r;
	char *before = callus_sql_time_before(
	    now, (int64_t)(hours > 0 ? hours : CALLUS_LEARN_PRUNE_HOURS) * 3600);
	int rc = 0, sq, nested;

	memset(&r, 0, sizeof(r));
	r.s = s;
	if (!before)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* a savepoint inside a transaction the caller holds (gc.h's dry run) */
	if ((sq = callus_store_tx_begin(s, &nested)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot update the store");
		goto out;
	}
	if ((sq = prune(&r, before, limit, 0, count, snapshots)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot prune");
		callus_store_tx_end(s, nested, 0);
		goto out;
	}
	if ((sq = callus_store_tx_end(s, nested, 1)) != SQLITE_OK)
		rc = callus_store_db_error(s, err, sq, "cannot update the store");
out:
	free(before);
	return rc;
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
	sq = callus_learn_record_application(s, now, id, 0, 1, !!success, "feedback", cj, &found,
					     measured);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot record feedback in");
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	} else if (!found) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "no resolution %lld", (long long)id);
	} else if ((rc = callus_notes_metrics_moved(s, id, err)) < 0) {
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
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
