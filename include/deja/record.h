/*
 * record.h - turning a failure into a lesson everywhere it belongs: the
 * store, .lessons/<id>.md and the lessons block of the agent instructions
 * file.  Everything is redacted before it is written.
 *
 * This is the one recording path: `deja run`, `deja hook` and
 * `deja record` all go through deja_record_lesson().
 */
#ifndef DEJA_RECORD_H
#define DEJA_RECORD_H

#include "deja/analysis.h"
#include "deja/common.h"
#include "deja/learn.h"
#include "deja/lesson.h"

typedef struct deja_redactor deja_redactor;
typedef struct deja_metrics deja_metrics;

/* Where and how to record.  Borrowed pointers. */
typedef struct deja_record_opts {
	const char *workspace;       /* absolute workspace root */
	const char *cwd_rel;         /* where the command ran, relative to it */
	const char *intent_id;       /* agent session/task id; "" when none */
	const char *agents_file;     /* relative to workspace; NULL = AGENTS.md */
	int agents_max;              /* lessons listed in the block; <= 0 = 20 */
	int timeout_ms;              /* store lock wait; <= 0 = 10000 */
	const deja_redactor *redactor; /* required */
	const char *framework;       /* what reported the errors (signatures'
				      * context); NULL = the lesson's tool */
	deja_metrics *metrics;       /* the command's metrics, written with the
				      * lesson (and emptied then); may be NULL */
	int related_max;             /* earlier lessons about the same file to
				      * return (deja_record_result); 0 = none */
	const deja_learn_opts *learn; /* the check, for pending errors and
				       * resolutions (learn.h); NULL: none */
} deja_record_opts;

/* What a recording tells its caller.  Release with
 * deja_record_result_release(). */
typedef struct deja_record_result {
	int is_new;              /* a new lesson, not one more occurrence */
	deja_lesson *related;    /* other lessons about the lesson's file, newest
				  * first, read in the recording's own store
				  * session; at most opts->related_max */
	size_t nrelated;
	deja_learn_result learnt;  /* what the run changed (opts->learn) */
	char *learn_error;         /* why learning failed, when it did (the
				    * lesson is stored all the same) */
} deja_record_result;

void deja_record_result_release(deja_record_result *r);

#define DEJA_AGENTS_BLOCK_MAX_BYTES 8192

/*
 * Fill a lesson from a failure (type, primary file, summary, command, tool,
 * exit code, affected files, intent) and sign it; deja_record_lesson()
 * redacts it before anything is written.  The caller
 * releases *out.
 */
int deja_lesson_from_failure(deja_lesson *out, const deja_failure *f,
			     const deja_record_opts *opts, deja_error *err);

/*
 * Store the lesson (a new lesson or one more occurrence of an existing
 * one), then write its Markdown file and refresh the instructions block.
 * The lesson's text fields are redacted here, whatever the caller did.
 * diags (may be NULL) are stored with the run, redacted.  On success
 * l->id and l->occurrences are set and *res (may be NULL) says whether
 * it was new and what else was learnt about the same file.
 * The capture metrics (hindsight.capture.*), opts->metrics and the spool
 * of metrics earlier commands could not store are written in the
 * lesson's transaction.  When the store fails, nothing of opts->metrics
 * was written (the caller decides what to keep) and the spool is as it
 * was.
 */
int deja_record_lesson(deja_lesson *l, const deja_diags *diags, uint64_t output_bytes,
		       const deja_record_opts *opts, deja_record_result *res, deja_error *err);

/*
 * Write m, with the spool, to the workspace's store in one transaction,
 * for metrics that come with no lesson (the hook's latency).  No store, no
 * metrics: nothing is created.  When the store cannot be written, or with
 * spool_only (the caller just saw it fail: no second wait for its lock),
 * m goes to the spool for the next command that writes the store.  m is
 * emptied in every case.
 */
int deja_record_metrics(const char *workspace, deja_metrics *m, int timeout_ms, int spool_only,
			deja_error *err);

/*
 * The signatures a recording of f would store, made the same way: from
 * its diagnostics redacted by r, with the context of pc's directory.  For
 * looking up a failure without recording it (deja suggest).  *out is
 * freed with deja_signatures_free().
 */
int deja_record_signatures(deja_signature **out, size_t *count, const deja_failure *f,
			   const deja_redactor *r, const deja_pathctx *pc, deja_error *err);

/* The workspace's .deja directory, created (0700) if missing; caller frees. */
int deja_record_dir(char **out, const char *workspace, deja_error *err);

#endif
