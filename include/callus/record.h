/*
 * record.h - turning a failure into a lesson everywhere it belongs: the
 * store, .lessons/<id>.md and the lessons block of the agent instructions
 * file.  Everything is redacted before it is written.
 *
 * This is the one recording path: `callus run`, `callus hook` and
 * `callus record` all go through callus_record_lesson().
 */
#ifndef CALLUS_RECORD_H
#define CALLUS_RECORD_H

#include "callus/analysis.h"
#include "callus/common.h"
#include "callus/gc.h"
#include "callus/learn.h"
#include "callus/notes.h"
#include "callus/lesson.h"

typedef struct callus_redactor callus_redactor;
typedef struct callus_metrics callus_metrics;

/* Where and how to record.  Borrowed pointers. */
typedef struct callus_record_opts {
	const char *workspace;       /* absolute workspace root */
	const char *cwd_rel;         /* where the command ran, relative to it */
	const char *intent_id;       /* agent session/task id; "" when none */
	const char *agents_file;     /* relative to workspace; NULL = AGENTS.md */
	int agents_max;              /* lessons listed in the block; <= 0 = 20 */
	int timeout_ms;              /* store lock wait; <= 0 = 10000 */
	const callus_redactor *redactor; /* required */
	const char *framework;       /* what reported the errors (signatures'
				      * context); NULL = the lesson's tool */
	callus_metrics *metrics;       /* the command's metrics, written with the
				      * lesson (and emptied then); may be NULL */
	long long spool_by_ms;       /* > 0: the metrics other processes left
				      * in the spool are taken with them only
				      * before this time (store.h's
				      * metrics_spool_by_ms); 0: always */
	int related_max;             /* earlier lessons about the same file to
				      * return (callus_record_result); 0 = none */
	const callus_learn_opts *learn; /* the check, for pending errors and
				       * resolutions (learn.h); NULL: none */
	/* called once the lesson's occurrence is committed, before what
	 * follows it (learning, the views): a caller that queued the failure
	 * forgets it there, so that a cut after it does not record it twice.
	 * again: found committed by an earlier delivery (CALLUS_EEXIST), not
	 * by this call.  May be NULL. */
	void (*stored)(void *ctx, int again);
	void *stored_ctx;
	int defer_views;             /* leave the instructions file's block to
				      * the caller (callus import rebuilds it
				      * once, at its end, with
				      * callus_record_views()) */
	const struct callus_gc_policy *retention; /* when due, a bounded pass of
				       * callus_gc (gc.h) after the recording;
				       * NULL: none */
	int retention_later;         /* the due pass left to the caller, to run
				      * in a process of its own (callus gc
				      * --background): it reads whole tables
				      * (runs, checks, signatures, snapshots),
				      * 170 million instructions at 100,000
				      * recordings, which a hook's agent would
				      * wait for.  res->gc_keep says it is due */
	const char *origin;          /* names the event recorded (a queued
				      * failure), so that recording it twice
				      * stores it once: the second recording
				      * fails with CALLUS_EEXIST and calls
				      * stored.  NULL: none */
	callus_snapshot *queued_snapshot; /* NULL, or where a recording the
				      * store is too busy for (CALLUS_EBUSY,
				      * the failure queued by its caller)
				      * puts the snapshot its learning took
				      * of the working tree, for the queued
				      * failure's later recording (learn.h's
				      * taken); left CALLUS_SNAPSHOT_INIT when
				      * it took none.  The caller releases it */
	callus_learn_fixes *queued_fixes; /* NULL, or where the same recording
				      * adds the fixes of the errors it
				      * closes (learn.h's fixes); the caller
				      * releases them */
	callus_store *store;         /* the workspace's store from
				      * callus_store_open(), borrowed: a
				      * caller recording many failures in one
				      * process (bench/scale_gen.c) opens it
				      * once.  Its lock wait (timeout_ms is
				      * not used) and its cache are the
				      * caller's.  NULL: the recording opens
				      * its own, with a cache of 64 pages,
				      * and closes it */
} callus_record_opts;

/* What a recording tells its caller.  Release with
 * callus_record_result_release(). */
typedef struct callus_record_result {
	int is_new;              /* a new lesson, not one more occurrence */
	callus_lesson *related;    /* other lessons about the lesson's file, newest
				  * first, read in the recording's own store
				  * session; at most opts->related_max */
	size_t nrelated;
	callus_learn_result learnt;  /* what the run changed (opts->learn) */
	char *learn_error;         /* why learning failed, when it did (the
				    * lesson is stored all the same) */
	char *index_error;         /* why the notes folder or the new
				    * signatures' vectors could not be taken
				    * in (the lesson is stored and learnt all
				    * the same, and the next recording takes
				    * them in); NULL: they were */
	int index_busy;            /* index_error was a busy store: no fault,
				    * a wait */
	int learn_owed;            /* learning failed for a busy store: with
				    * opts->origin, a delivery again of it
				    * learns it (store.h's learn_owed) */
	callus_note *notes;        /* what to show of each of learnt.suggestions
				    * (callus_notes_for_resolution), in order;
				    * nnotes may be fewer when one could not
				    * be read */
	size_t nnotes;
	long line;                 /* the first error's line in the lesson's
				    * file, 0 when unknown */
	char *views_error;         /* why the lesson's file or the instructions
				    * block could not be written (the lesson
				    * is stored; the next recording repairs
				    * them) */
	char *views_refused;       /* why one of them is never written: it
				    * leads out of the workspace (the user's
				    * setting, which no recording repairs;
				    * the other is written) */
	int64_t gc_keep;           /* with opts->retention_later, the pass was
				    * due and is the caller's: the lesson it
				    * keeps (the one told of); 0: not due */
} callus_record_result;

void callus_record_result_release(callus_record_result *r);

/*
 * Rebuild the managed block of the workspace's instructions file
 * (agents_file, workspace-relative; NULL: AGENTS.md) from the store: the
 * proven notes, the permanent failures, the agents_max latest lessons
 * (lessonmd.h).  Called after each recording and after a fix that made
 * or changed a note.
 */
int callus_record_views(callus_store *store, const char *workspace, const char *agents_file,
			int agents_max, callus_error *err);

/*
 * A pass of retention said in workspace's .callus/log.jsonl: a "gc_removed"
 * line with message and what res counts, when it removed anything; a
 * "gc_failed" warning with err's message when rc < 0.  What the background
 * pass has no one else to tell, and what callus gc keeps a trace of.
 */
void callus_record_gc_log(const char *workspace, int rc, const callus_error *err,
			  const callus_gc_result *res, const char *message);

/* What the background pass says in the log, in whichever process it runs. */
#define CALLUS_RECORD_GC_BACKGROUND_SAID                                                     \
	"the retention policy's background pass removed what it no longer keeps "            \
	"('callus help gc')"

/*
 * callus_gc() with policy p, then, when it removed lessons (what went
 * before a failure stays gone: res says), the instructions file's block
 * written again, since it names their files; both under a views debt, so
 * that a crash between them leaves the block to repair (a dry run,
 * p->dry_run, writes neither).  Returns
 * callus_gc()'s result (err); *views_rc, when not NULL, gets
 * callus_record_views()'s (0 when not needed), with verr set.
 */
int callus_record_gc(callus_store *store, const char *workspace, const callus_gc_policy *p,
		     const char *agents_file, int agents_max, callus_gc_result *res,
		     callus_error *err, int *views_rc, callus_error *verr);

/*
 * [retention] lessons applied now (gc.h: callus_gc_lessons_over, with
 * margin): nothing unless the store holds more than p->lessons_max; else
 * the least valuable go, the instructions file's block is written again
 * under a views debt (it may name them), and the log says what went, or
 * why nothing could.  A recording that adds a lesson runs it (margin
 * CALLUS_GC_LESSONS_MARGIN, p->keep_lesson its lesson), and callus import
 * once at its end (margin 0).  Never a reason to fail: the count is the
 * policy's, not the caller's work.  The number of lessons removed.
 */
size_t callus_record_lessons_over(callus_store *store, const char *workspace,
				  const callus_gc_policy *p, int margin, const char *agents_file,
				  int agents_max);

/* 1 when callus_record_views() would change the instructions file, 0 when
 * it is what the store says; writes nothing. */
int callus_record_views_stale(callus_store *store, const char *workspace, const char *agents_file,
			      int agents_max, callus_error *err);

#define CALLUS_AGENTS_BLOCK_MAX_BYTES 8192

/*
 * Fill a lesson from a failure (type, primary file, summary, command, tool,
 * exit code, affected files, intent) and sign it; callus_record_lesson()
 * redacts it before anything is written.  The caller
 * releases *out.
 */
int callus_lesson_from_failure(callus_lesson *out, const callus_failure *f,
			     const callus_record_opts *opts, callus_error *err);

/*
 * Store the lesson (a new lesson or one more occurrence of an existing
 * one), then write its Markdown file and refresh the instructions block.
 * The lesson's text fields are redacted here, whatever the caller did.
 * diags (may be NULL) are stored with the run, redacted.  On success
 * l->id and l->occurrences are set and *res (may be NULL) says whether
 * it was new and what else was learnt about the same file; on failure it
 * holds nothing to release, but for learn_owed after CALLUS_EEXIST (an
 * earlier delivery of opts->origin stored it, and its learning, done
 * now, found the store busy again).
 * The capture metrics (hindsight.capture.*), opts->metrics and the spool
 * of metrics earlier commands could not store are written in the
 * lesson's transaction.  When the store fails, nothing of opts->metrics
 * was written (the caller decides what to keep) and the spool is as it
 * was.
 */
int callus_record_lesson(callus_lesson *l, const callus_diags *diags, uint64_t output_bytes,
		       const callus_record_opts *opts, callus_record_result *res, callus_error *err);

/*
 * Write m, with the spool, to the workspace's store in one transaction,
 * for metrics that come with no lesson (the hook's latency).  No store, no
 * metrics: nothing is created.  When the store cannot be written, or with
 * spool_only (the caller just saw it fail: no second wait for its lock),
 * m goes to the spool for the next command that writes the store.  m is
 * emptied in every case.
 */
int callus_record_metrics(const char *workspace, callus_metrics *m, int timeout_ms, int spool_only,
			callus_error *err);

/*
 * The signatures a recording of f would store, made the same way: from
 * its diagnostics redacted by r, with the context of pc's directory.  For
 * looking up a failure without recording it (callus suggest).  *out is
 * freed with callus_signatures_free().
 */
int callus_record_signatures(callus_signature **out, size_t *count, const callus_failure *f,
			   const callus_redactor *r, const callus_pathctx *pc, callus_error *err);

/*
 * Redact f in place as a recording redacts what it stores: its
 * diagnostics, summary, command, tool and files.  Signatures made after it
 * (callus_failure_sign) are those a recording would store (callus analyze
 * prints them).  f's previous signatures are not touched: sign after.
 */
int callus_record_redact_failure(callus_failure *f, const callus_redactor *r, callus_error *err);

/* The workspace's .callus directory, created (0700) if missing; caller frees. */
int callus_record_dir(char **out, const char *workspace, callus_error *err);

/* Whether p may name the file of the lessons block ([lessons] file): a
 * relative path inside the workspace (no "..") that is in none of the
 * folders of git and callus (.git/, .callus/, .lessons/, the former
 * name's): the block written there would break a repository's config or
 * replace the store. */
int callus_record_lessons_file_ok(const char *p);

#endif
