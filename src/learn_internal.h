/*
 * learn_internal.h - what the pieces of learning share: the three steps of
 * a run and the public entry points (learn.c), the transitions of one
 * pending error (learn_transition.c) and the suggestions, their outcomes
 * and the applications of resolutions they make (learn_apply.c).  Not
 * part of the public API: callers go through callus/learn.h.
 */
#ifndef CALLUS_LEARN_INTERNAL_H
#define CALLUS_LEARN_INTERNAL_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "callus/buf.h"
#include "callus/learn.h"
#include "callus/match.h"
#include "callus/metrics.h"
#include "callus/snapshot.h"
#include "callus/store.h"
#include "callus/strlist.h"

/* A snapshot a fix needs the diff of, and what the diff says. */
typedef struct fix_diff {
	int64_t snapshot_id;
	callus_snapshot snap;
	char *patch;        /* redacted; "" when it could not be made */
	char *description;
	callus_strlist files;
	int unchanged;      /* the diff was made and is empty */
	int made;           /* the diff was made (given, or the helper's) */
	int newer;          /* the snapshot was taken after the run (a late
			     * failure's, by its drainer): no kept tree of
			     * the run's is its fix's end */
} fix_diff;

/* Everything one run's learning carries between its steps. */
typedef struct learn_run {
	callus_store *s;
	const callus_learn_opts *o;
	const callus_learn_error *errs;
	size_t nerrs;
	callus_strlist sigs;    /* errs' signature ids, indexed: each pending
				 * error of the check is looked for there (a
				 * thousand errors were a million strcmp) */
	int passed;
	char *now;
	char *idle_since;       /* now less prune_hours: a pending error
				 * failing last before it is abandoned */
	callus_snapshot snap;     /* taken for this run's new errors */
	int have_snap;
	int snap_late;          /* snap is of the tree found at a late
				 * delivery, not as the run found it: its
				 * row says when it was taken, not the run */
	int64_t snap_id;        /* its row, once inserted */
	fix_diff *diffs;
	size_t ndiffs;
	size_t npending;        /* a pass: the check's errors pending since
				 * before now (look()) */
	char *head;             /* HEAD when the fixes were seen */
	callus_learn_result *res;
	callus_buf trouble;       /* what went wrong with snapshots and diffs */
	callus_metrics *metrics;  /* measured in the transaction: reach the
				 * caller's (o->metrics) only when it commits */
	int64_t *touched;       /* resolutions whose metrics this run moved */
	size_t ntouched;
	callus_strlist notes_owed; /* notes it changed: their files are
				 * written once it commits (notes.h) */
	int64_t *known;         /* pending errors this run fixed with a
				 * resolution or found permanent: their files
				 * go into the file index (fileindex.h) */
	size_t nknown;
	fix_diff given;         /* o->fix_patch, redacted and described */
	callus_match_candidates *candidates; /* the regex fallback's rows, read
				 * once for the run's suggestions and its
				 * notes' searches (NULL: read by each) */
} learn_run;

/* ------------------------------------------------------------------ */
/* learn.c                                                              */

/* Prepare sql on the run's store, or take the statement the store kept
 * from its last use (callus_store_stmt: a run's statements are prepared
 * again for each of its errors).  An SQLite result code.  Given back
 * with callus_learn_done(), never sqlite3_finalize(). */
int callus_learn_prepare(learn_run *r, sqlite3_stmt **st, const char *sql);
void callus_learn_done(learn_run *r, sqlite3_stmt *st); /* accepts NULL */

/* A run delivered late (o->redelivered: a queued one, or an import's
 * replay whose time is in the store's form) fixes no pending error that
 * failed after it ran, and makes neither an error's last failure nor the
 * check's last run or pass older: its statements carry a clause more (the
 * bound ones bound to r->now by callus_learn_bind_late(), which binds
 * nothing for any other run).  Two texts, not one clause with a NULL:
 * SQLite compiles a statement's every word at every hook, and most runs
 * are live. */
#define CALLUS_LEARN_LATE(r, late, live) ((r)->o->redelivered ? (late) : (live))
void callus_learn_bind_late(learn_run *r, sqlite3_stmt *st, int i);

/* Whether the signature sig is one of the run's errors. */
int callus_learn_in_run(const learn_run *r, const char *sig);

/* The diff the run made from the snapshot snapshot_id; NULL if none.
 * With o->fix_patch, that one whatever the snapshot. */
fix_diff *callus_learn_find_diff(learn_run *r, int64_t snapshot_id);

/* ------------------------------------------------------------------ */
/* learn_transition.c: inside the run's transaction; SQLite result codes. */

/* One of this run's errors: a new pending error, one more attempt (and
 * permanent past max_retries), or one more failure of a permanent one. */
int callus_learn_fail_one(learn_run *r, int64_t check_id, int64_t runs,
			  const callus_learn_error *e);

/* Every open pending error of the check this run fixes. */
int callus_learn_fix_absent(learn_run *r, int64_t check_id, int64_t runs);

/* ------------------------------------------------------------------ */
/* learn_apply.c: inside the caller's transaction; SQLite result codes. */

/* The run's context as a JSON object, with extra_key (if not NULL) set to
 * extra; NULL without memory. */
char *callus_learn_context_json(learn_run *r, const char *extra_key, const char *extra);

/* Append id to *arr of *n.  SQLITE_OK or SQLITE_NOMEM. */
int callus_learn_push_id(int64_t **arr, size_t *n, int64_t id);

/* One application of a resolution, or the revision of one: its counts
 * move by applied and succeeded (a negative succeeded takes a success
 * back), and the outcome is logged with its context.  *found (may be
 * NULL) says whether the resolution exists. */
int callus_learn_record_application(callus_store *s, const char *now, int64_t resolution_id,
				    int64_t suggestion_id, int applied, int succeeded,
				    const char *source, const char *ctx, int *found, callus_metrics *m);

/* Settle the open suggestions of a pending error: success when it was
 * fixed, failure when it became permanent. */
int callus_learn_settle_suggestions(learn_run *r, int64_t pending_id, int success,
				    const char *source);

/* The error sig came back on the very next run of its check after it was
 * fixed: the suggestions credited with that fix become failures. */
int callus_learn_recurred(learn_run *r, int64_t check_id, int64_t runs, const char *sig);

/* What fixed errors like this run's before, offered and recorded. */
int callus_learn_suggest(learn_run *r, int64_t check_id);

#endif
