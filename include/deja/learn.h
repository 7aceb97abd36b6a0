/*
 * learn.h - the three states of an error (DESIGN §2 and §4, spec 003) and
 * the resolutions learnt from fixes, with their metrics (spec 004).
 *
 * A check is a tool with its normalized arguments in a directory (what
 * deja_detect() reports).  Each signature in a failed run of a check is a
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
 * a failure.  `deja feedback` adds explicit reports.  success_rate =
 * successes / applications.
 *
 * Slow work (the snapshot, the diffs) runs between two short store
 * transactions, never while the store is locked: the second one checks
 * again what the first one saw, so concurrent sessions lose nothing and
 * never fix an error twice.
 */
#ifndef DEJA_LEARN_H
#define DEJA_LEARN_H

#include <stdint.h>

#include "deja/common.h"
#include "deja/metrics.h"
#include "deja/signature.h"
#include "deja/snapshot.h"
#include "deja/store.h"
#include "deja/strlist.h"

typedef struct deja_redactor deja_redactor;

typedef enum deja_error_state {
	DEJA_STATE_PENDING,
	DEJA_STATE_FIXED,
	DEJA_STATE_PERMANENT
} deja_error_state;

const char *deja_error_state_name(deja_error_state s);

/* A check, as deja_detect() names it.  Borrowed strings; NULL = "". */
typedef struct deja_check_key {
	const char *tool;
	const char *args;
	const char *dir;  /* workspace-relative directory */
} deja_check_key;

#define DEJA_LEARN_MAX_RETRIES 3
#define DEJA_LEARN_PRUNE_HOURS (7 * 24)
#define DEJA_LEARN_DIFF_MAX (64u << 10)
#define DEJA_LEARN_SUGGEST_MAX 3

/* How to learn from one run.  Borrowed pointers. */
typedef struct deja_learn_opts {
	const char *workspace;        /* absolute */
	deja_check_key check;
	const char *command;          /* as run, redacted by the caller */
	const char *session;          /* agent session or intent id; "" = none */
	int max_retries;              /* <= 0: DEJA_LEARN_MAX_RETRIES */
	int prune_hours;              /* pending errors idle this long are
				       * dropped; <= 0: DEJA_LEARN_PRUNE_HOURS */
	size_t diff_max;              /* 0: DEJA_LEARN_DIFF_MAX */
	const deja_redactor *redactor; /* diffs are redacted before storing; required */
	const deja_snapshot_opts *snapshot; /* NULL: defaults */
	int no_snapshot;              /* learn states without snapshots or diffs */
	double half_life_days;        /* suggestions' recency (match.h); <= 0:
				       * the default */
	const char *remote_model;     /* an external embedder's model id: its
				       * stored vectors are searched too
				       * (match.h); NULL: none */
	deja_metrics *metrics;        /* may be NULL: the matching's and the
				       * resolutions' metrics are added to it
				       * (hindsight.match.*,
				       * hindsight.resolution.*) */
} deja_learn_opts;

/* A failed run's errors: each signature with the files its errors name. */
typedef struct deja_learn_error {
	const deja_signature *sig;
	const deja_strlist *files;   /* may be NULL */
} deja_learn_error;

/* A resolution offered for a pending error. */
typedef struct deja_suggestion {
	int64_t resolution_id;
	int64_t pending_id;
	char *signature_id;
	char *description;
	double success_rate;
	int64_t application_count;
	double confidence;
} deja_suggestion;

/* What one run changed.  Release with deja_learn_result_release(). */
typedef struct deja_learn_result {
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
	deja_suggestion *suggestions; /* for this run's pending errors, best first */
	size_t nsuggestions;
	size_t pruned;               /* abandoned pending errors dropped */
	char *snapshot_error;        /* set when a snapshot or diff could not be
				      * made (the states were still learnt) */
} deja_learn_result;

void deja_learn_result_release(deja_learn_result *r);

/*
 * A failed run of opts->check with these errors (may be none: a failure
 * deja could not parse leaves the check's pending errors as they are).
 * Pending errors of the check that this run does not show are fixed.
 */
int deja_learn_failure(deja_store *s, const deja_learn_opts *opts, const deja_learn_error *errs,
		       size_t nerrs, deja_learn_result *res, deja_error *err);

/* A passing run: every pending error of the check is fixed. */
int deja_learn_pass(deja_store *s, const deja_learn_opts *opts, deja_learn_result *res,
		    deja_error *err);

/* Drop pending errors idle for more than hours; *count says how many. */
int deja_learn_prune(deja_store *s, int hours, size_t *count, deja_error *err);

/* One pending, fixed or permanent error, for the commands that list them. */
typedef struct deja_pending {
	int64_t id;
	deja_error_state state;
	char *tool, *args, *dir;
	char *signature_id;
	char *error_type;
	char *message;          /* the signature's original message */
	int64_t attempts;
	char *first_failure_at, *last_failure_at;
	char *closed_at;        /* "" while pending */
	char *session;
	deja_strlist files;
	int64_t resolution_id;  /* fixed: the resolution it made, else 0 */
	char *snapshot;         /* "git <tree>" / "files <tree>" / "" */
} deja_pending;

typedef struct deja_pending_filter {
	int state;              /* a deja_error_state, or -1 for all */
	const deja_strlist *files; /* only errors naming one of them; NULL: all */
	int limit;              /* 0: no limit */
} deja_pending_filter;

/* Newest (last failure) first.  Free with deja_pendings_free(). */
int deja_learn_list(deja_store *s, const deja_pending_filter *f, deja_pending **out,
		    size_t *count, deja_error *err);
void deja_pendings_free(deja_pending *p, size_t count);

typedef struct deja_resolution {
	int64_t id;
	char *signature_id;
	char *error_type;
	char *message;          /* the signature's original message */
	char *tool;
	char *description;
	char *code_changes;     /* only from deja_learn_get_resolution() */
	char *context;          /* JSON: command, dir, files, commit, session */
	deja_strlist files;
	int64_t application_count, success_count;
	double success_rate;
	char *created_at;
	char *last_success_at;  /* "" when never */
} deja_resolution;

/* Best first: success rate, then the latest success.  signature_id NULL
 * for all.  Free with deja_resolutions_free(). */
int deja_learn_resolutions(deja_store *s, const char *signature_id, int limit,
			   deja_resolution **out, size_t *count, deja_error *err);
/* One, with its diff.  DEJA_ENOTFOUND when there is none. */
int deja_learn_get_resolution(deja_store *s, int64_t id, deja_resolution *out, deja_error *err);
void deja_resolution_release(deja_resolution *r);
void deja_resolutions_free(deja_resolution *r, size_t count);

/* An explicit report that resolution id worked (or not); note (may be
 * NULL) is logged with it, and hindsight.resolution.* added to m (may be
 * NULL).  DEJA_ENOTFOUND for an unknown id. */
int deja_learn_feedback(deja_store *s, int64_t id, int success, const char *note,
			deja_metrics *m, deja_error *err);

/* Counts for `deja status`. */
typedef struct deja_learn_stats {
	int64_t pending, fixed, permanent;
	int64_t resolutions, applications, successes;
	int64_t checks;
} deja_learn_stats;

int deja_learn_stats_get(deja_store *s, deja_learn_stats *out, deja_error *err);

#endif
