/*
 * learn.h - the three states of an error (DESIGN §2 and §4, spec 003) and
 * the resolutions learnt from fixes, with their metrics (spec 004).
 *
 * A check is a tool with its normalized arguments in a directory (what
 * callus_detect() reports).  Each signature in a failed run of a check is a
 * *pending error* of that check, with a snapshot of the working tree taken
 * when it first failed.  When the check later passes, or fails without
 * that signature, the pending error is *fixed* and a *resolution* is made
 * from the diff between the snapshot and the working tree.  After
 * max_retries failures with no fix it is *permanent*.  Transitions are
 * one-way (pending -> fixed, pending -> permanent); triggers in the store
 * refuse anything else, whoever writes.
 *
 * Resolutions suggested for a pending error (match.h finds them: the same
 * signature, or a similar one) are kept with it.  When that
 * error is fixed, each such application counts as a success; when it
 * becomes permanent, or the very next run of the check shows it again, as
 * a failure.  `callus feedback` adds explicit reports.  success_rate =
 * successes / applications.
 *
 * Slow work (the snapshot, the diffs) runs between two short store
 * transactions, never while the store is locked: the second one checks
 * again what the first one saw, so concurrent sessions lose nothing and
 * never fix an error twice.
 */
#ifndef CALLUS_LEARN_H
#define CALLUS_LEARN_H

#include <stdint.h>

#include "callus/common.h"
#include "callus/metrics.h"
#include "callus/signature.h"
#include "callus/snapshot.h"
#include "callus/store.h"
#include "callus/strlist.h"

typedef struct callus_redactor callus_redactor;

typedef enum callus_error_state {
	CALLUS_STATE_PENDING,
	CALLUS_STATE_FIXED,
	CALLUS_STATE_PERMANENT
} callus_error_state;

const char *callus_error_state_name(callus_error_state s);

/* A check, as callus_detect() names it.  Borrowed strings; NULL = "". */
typedef struct callus_check_key {
	const char *tool;
	const char *args;
	const char *dir;  /* workspace-relative directory */
} callus_check_key;

#define CALLUS_LEARN_MAX_RETRIES 3
#define CALLUS_LEARN_PRUNE_HOURS (7 * 24)
/* abandoned pending errors of other checks one recording drops at most
 * (its own check's all go): a workspace back after weeks away held
 * thousands, whose cascades one hook paid for (6,505: 15 -> 70 ms) */
#define CALLUS_LEARN_PRUNE_BATCH 100
#define CALLUS_LEARN_DIFF_MAX (64u << 10)
#define CALLUS_LEARN_SUGGEST_MAX 3
/* a run's pending errors searched for suggestions at most, in the order
 * the output gave them (a build's first errors are its causes): a failure
 * of a thousand errors searched each, one a third of recording it again */
#define CALLUS_LEARN_SUGGEST_SEARCH 64

/* How to learn from one run.  Borrowed pointers. */
/* The fix a pass found for the failures of one snapshot: the diff from
 * that snapshot's tree to the working tree as the pass found it.  What a
 * pass its store was too busy for keeps for its late delivery (the hook's
 * queue), so that it is learnt as it was when the pass ran, not from the
 * working tree the drainer finds (the agent's next work, perhaps). */
typedef struct callus_learn_fix {
	char *tree;   /* the snapshot's tree, 40 hex digits */
	char *patch;  /* redacted, cut as learning cuts it; "" for none */
} callus_learn_fix;

/* A list of them, owned: release with callus_learn_fixes_release(). */
typedef struct callus_learn_fixes {
	callus_learn_fix *items;
	size_t count;
	char *head;   /* HEAD's commit when they were made, "" for none;
		       * NULL: not known */
} callus_learn_fixes;

#define CALLUS_LEARN_FIXES_INIT { NULL, 0, NULL }

/* Add a copy of one (tree and patch must be set): 0 or CALLUS_ENOMEM. */
int callus_learn_fixes_add(callus_learn_fixes *f, const char *tree, const char *patch);
void callus_learn_fixes_release(callus_learn_fixes *f); /* accepts NULL */

typedef struct callus_learn_opts {
	const char *workspace;        /* absolute */
	callus_check_key check;
	const char *command;          /* as run, redacted by the caller */
	const char *session;          /* agent session or intent id; "" = none */
	const char *origin;           /* a failure's run stored with learning
				       * owed (store.h's learn_owed): no longer
				       * owed once what it fails is written;
				       * NULL: none */
	int max_retries;              /* <= 0: CALLUS_LEARN_MAX_RETRIES */
	int prune_hours;              /* pending errors idle this long are
				       * dropped; <= 0: CALLUS_LEARN_PRUNE_HOURS */
	size_t diff_max;              /* 0: CALLUS_LEARN_DIFF_MAX */
	const callus_redactor *redactor; /* diffs are redacted before storing; required */
	size_t log_limit;             /* the log's size ([retention] log_kb in
				       * bytes, callus_log_limit) for the
				       * errors it logs; 0: read when first
				       * logged */
	const callus_snapshot_opts *snapshot; /* NULL: defaults */
	int no_snapshot;              /* learn states without snapshots or diffs */
	double half_life_days;        /* suggestions' recency (match.h); <= 0:
				       * the default */
	const char *remote_model;     /* an external embedder's model id: its
				       * stored vectors are searched too
				       * (match.h); NULL: none */
	callus_metrics *metrics;        /* may be NULL: the matching's and the
				       * resolutions' metrics are added to it
				       * (hindsight.match.*,
				       * hindsight.resolution.*), and what it
				       * holds then is stored with the run's
				       * writes (emptied when they commit) */
	const char *now;              /* when the run happened, in
				       * callus_now_iso8601()'s format (an import
				       * replays old runs: the pruning and the
				       * permanence windows count from it); NULL:
				       * the clock */
	const char *fix_patch;        /* the fix as the caller knows it (an
				       * import: the transcript's own edits as a
				       * unified diff; "" when it shows none):
				       * every error the run fixes gets it, and no
				       * snapshot is taken or read.  NULL: the
				       * snapshots */
	int redelivered;              /* a run delivered late, perhaps again
				       * (callus hook --drain), now its time:
				       * it fixes no error that failed after
				       * now, makes no error's last failure
				       * older, and a pass with none pending
				       * from before writes nothing, not even
				       * the check's run */
	int replayed;                 /* with redelivered: a run an import
				      * replays from a transcript, whose own
				      * pass may follow with the fix: a failure
				      * is learnt even when its check passed
				      * after it (the store may hold a later
				      * pass, live or of a transcript read
				      * first); the time bounds stay */
	const callus_learn_fixes *fixes; /* a run delivered late: the fixes it
				       * found when it ran (busy_fixes, or
				       * callus_learn_started_kept); a
				       * pending error whose snapshot has one
				       * takes it instead of a diff made now.
				       * NULL: none */
	callus_learn_fixes *busy_fixes; /* a pass the store is too busy for
				       * (CALLUS_EBUSY): the fixes it found
				       * are added here, for its queued
				       * delivery.  NULL: not kept */
	const callus_snapshot *taken; /* a run delivered late: the working
				       * tree as it was when it ran, taken by
				       * its hook (a failure's,
				       * callus_learn_started_kept; a pass's),
				       * used where the run needs a snapshot,
				       * and, a git one, as the end of the
				       * diffs of the fixes it makes from git
				       * snapshots no newer than the run (the
				       * tree now when it is gone), and their
				       * HEAD when all end there; NULL: the
				       * tree found now */
	struct callus_match_scans *scans; /* the recording's kept scans of the
				       * vector file, continued by the
				       * suggestions' search (match.h); may be
				       * NULL */
} callus_learn_opts;

/* A failed run's errors: each signature with the files its errors name. */
typedef struct callus_learn_error {
	const callus_signature *sig;
	const callus_strlist *files;   /* may be NULL */
	const char *message;           /* the message of the error that named
					* files' first, which may differ from
					* sig's original (another identifier,
					* another file); NULL: sig's original,
					* this run's first of the signature */
} callus_learn_error;

/* A resolution offered for a pending error. */
typedef struct callus_suggestion {
	int64_t resolution_id;
	int64_t pending_id;
	char *signature_id;
	char *description;
	double success_rate;
	int64_t application_count;
	double confidence;
} callus_suggestion;

/* What one run changed.  Release with callus_learn_result_release(). */
typedef struct callus_learn_result {
	int64_t *fixed_resolutions;  /* the resolutions made by this run's fixes */
	size_t nfixed;
	char **fixed_descriptions;   /* nfixed of them */
	size_t nunchanged;           /* pending errors closed by a pass with no
				      * change since their failure: no
				      * resolution (a flaky or hidden failure
				      * teaches nothing) */
	size_t npending;             /* this run's errors now pending */
	size_t nnew;                 /* of which first seen now */
	int64_t *permanent;          /* pending ids that became permanent now */
	size_t npermanent;
	callus_suggestion *suggestions; /* for this run's pending errors, best first */
	size_t nsuggestions;
	size_t pruned;               /* abandoned pending errors dropped: the
				      * check's, and CALLUS_LEARN_PRUNE_BATCH
				      * of the others at most */
	size_t nnotes;               /* hindsight notes made by this run's fixes */
	char *snapshot_error;        /* set when a snapshot or diff could not be
				      * made (the states were still learnt), or
				      * a late run's diff was made to the tree
				      * now, its kept tree being gone */
} callus_learn_result;

void callus_learn_result_release(callus_learn_result *r);

/*
 * A failed run of opts->check with these errors (may be none: a failure
 * callus could not parse leaves the check's pending errors as they are).
 * Pending errors of the check that this run does not show are fixed.
 */
int callus_learn_failure(callus_store *s, const callus_learn_opts *opts, const callus_learn_error *errs,
		       size_t nerrs, callus_learn_result *res, callus_error *err);

/*
 * callus_learn_failure() in two steps, so that the caller records the
 * failure while the snapshot helper works: callus_learn_failure_start()
 * reads what the run needs (without a transaction, as the whole call
 * does first) and starts the helper; callus_learn_failure_finish() waits
 * for it, writes, fills *res and returns as callus_learn_failure() would
 * have, then frees st.  The start reports what the call would before any
 * write (no redactor, a read that failed, no memory), *st then NULL.
 * opts, errs and what they point to are borrowed until the finish;
 * opts->scans may be set in between (the caller's scans, made meanwhile).
 * A run started and not finished is ended by callus_learn_started_free()
 * (NULL accepted), which lets the helper finish (snapshot.h's abandon).
 */
typedef struct callus_learn_started callus_learn_started;

int callus_learn_failure_start(callus_learn_started **st, callus_store *s,
			       const callus_learn_opts *opts, const callus_learn_error *errs,
			       size_t nerrs, callus_error *err);
int callus_learn_failure_finish(callus_learn_started *st, callus_learn_result *res,
				callus_error *err);
void callus_learn_started_free(callus_learn_started *st);

/* What st found of the working tree, for a failure its store is too busy
 * to take now (CALLUS_EBUSY) and that is queued, whose later recording
 * would find a tree that may hold its fix, or the agent's next work:
 * - its snapshot, the one st asked the helper for, waited for and copied
 *   to *snap (its later recording takes it as opts->taken); a run that
 *   asked for none (its errors all known) has one taken now, since by its
 *   delivery one may be new;
 * - the fixes of the errors it closes (those it no longer shows), added to
 *   *fixes when not NULL (opts->fixes).
 * The caller releases both.  0; CALLUS_ENOTFOUND when there is no
 * snapshot (snapshots off, or the helper failed; *fixes may hold some),
 * CALLUS_ENOMEM.  st is then finished or freed as before. */
int callus_learn_started_kept(callus_learn_started *st, callus_snapshot *snap,
			      callus_learn_fixes *fixes);

/* A passing run: every pending error of the check is fixed. */
int callus_learn_pass(callus_store *s, const callus_learn_opts *opts, callus_learn_result *res,
		    callus_error *err);

/* Drop pending errors idle for more than hours before now (the format of
 * callus_now_iso8601(); NULL: the clock), the oldest first, at most limit
 * of them (0: all: the background retention pass takes a batch); *count
 * says how many, *snapshots (may be NULL) how many snapshots they were
 * the last to refer to, removed with them. */
int callus_learn_prune(callus_store *s, int hours, const char *now, size_t limit, size_t *count,
		       size_t *snapshots, callus_error *err);

/* The snapshots no pending error refers to any more, at most ?2 of them
 * (-1: all): callus gc's own pass, which reads them all (a prune looks
 * only at its errors' snapshots). */
#define CALLUS_LEARN_ORPHAN_SNAPSHOTS_SQL                                                    \
	"DELETE FROM snapshots WHERE id IN (SELECT id FROM snapshots s WHERE NOT EXISTS"     \
	" (SELECT 1 FROM pending_errors p WHERE p.snapshot_id = s.id) LIMIT ?2)"

/* One pending, fixed or permanent error, for the commands that list them. */
typedef struct callus_pending {
	int64_t id;
	callus_error_state state;
	char *tool, *args, *dir;
	char *signature_id;
	char *error_type;
	char *message;          /* as printed at its last failure, with files'
				 * first: the signature's original unless that
				 * failure printed it otherwise */
	int64_t attempts;
	char *first_failure_at, *last_failure_at;
	char *closed_at;        /* "" while pending */
	char *session;
	callus_strlist files;
	int64_t resolution_id;  /* fixed: the resolution it made, else 0 */
	char *snapshot;         /* "git <tree>" / "files <tree>" / "" */
} callus_pending;

typedef struct callus_pending_filter {
	int state;              /* a callus_error_state, or -1 for all */
	const callus_strlist *files; /* only errors naming one of them; NULL: all */
	int limit;              /* 0: no limit */
	int known;              /* with files: only those failing for good or
				 * fixed by a resolution, found through their
				 * files (pending_files), where any other
				 * filter reads every error's; state is not
				 * read then */
} callus_pending_filter;

/* Newest (last failure) first.  Free with callus_pendings_free(). */
int callus_learn_list(callus_store *s, const callus_pending_filter *f, callus_pending **out,
		    size_t *count, callus_error *err);

/* How many pending errors failed last before `before` (callus_now_iso8601()'s
 * format): abandoned, which recordings and gc drop a batch at a time
 * (callus_learn_prune), in *count. */
int callus_learn_count_abandoned(callus_store *s, const char *before, int64_t *count,
			       callus_error *err);
void callus_pendings_free(callus_pending *p, size_t count);

typedef struct callus_resolution {
	int64_t id;
	char *signature_id;
	char *error_type;
	char *message;          /* the signature's original message */
	char *tool;
	char *description;
	char *code_changes;     /* only from callus_learn_get_resolution() */
	char *context;          /* JSON: command, dir, files, commit, session */
	callus_strlist files;
	int64_t application_count, success_count;
	double success_rate;
	char *created_at;
	char *last_success_at;  /* "" when never */
} callus_resolution;

/* Best first: success rate, then the latest success.  signature_id NULL
 * for all.  Free with callus_resolutions_free(). */
int callus_learn_resolutions(callus_store *s, const char *signature_id, int limit,
			   callus_resolution **out, size_t *count, callus_error *err);
/* One, with its diff.  CALLUS_ENOTFOUND when there is none. */
int callus_learn_get_resolution(callus_store *s, int64_t id, callus_resolution *out, callus_error *err);
void callus_resolution_release(callus_resolution *r);
void callus_resolutions_free(callus_resolution *r, size_t count);

/* An explicit report that resolution id worked (or not); note (may be
 * NULL) is logged with it, and hindsight.resolution.* added to m (may be
 * NULL).  CALLUS_ENOTFOUND for an unknown id. */
int callus_learn_feedback(callus_store *s, int64_t id, int success, const char *note,
			callus_metrics *m, callus_error *err);

#endif
