/*
 * record_common.h - the recording step shared by `callus run` and, later,
 * `callus hook`: analysis, lesson, store, Markdown, with the fail-safe
 * reporting (one line on stderr, one in the log) when anything fails.
 */
#ifndef CALLUS_CLI_RECORD_COMMON_H
#define CALLUS_CLI_RECORD_COMMON_H

#include "cli.h"
#include "hook_spool.h"

#include "callus/analysis.h"
#include "callus/capture.h"
#include "callus/metrics.h"
#include "callus/buf.h"
#include "callus/learn.h"
#include "callus/gc.h"
#include "callus/record.h"

typedef struct cli_recorded {
	int64_t id;
	int64_t occurrences;
	int is_new;
	char *file;      /* owned */
	char *signature; /* owned */
	callus_lesson *related; /* owned: earlier lessons about the same file */
	size_t nrelated;
	callus_learn_result learnt; /* owned: pending errors, fixes, suggestions */
	callus_note *notes;     /* owned: what to show of each suggestion */
	size_t nnotes;
	long line;              /* the first error's line in file; 0: unknown */
	int learn_owed;         /* stored (or found stored: CALLUS_EEXIST), and
				 * not learnt for a busy store: its queue
				 * entry is to go to a drainer, which learns
				 * it (callus_record_result.learn_owed) */
	int committed;          /* failed (< 0) after its lesson committed:
				 * said so, nothing to queue or drop */
} cli_recorded;

/* How to learn from a run of a check: learn.c's options, the snapshot's,
 * and the files of callus's own that snapshots leave out. */
typedef struct cli_learn {
	callus_learn_opts opts;
	callus_snapshot_opts snapshot;
	const char *exclude[4];
	char *agents_target; /* owned: the file the instructions file links to
			      * in the workspace, excluded too, or NULL */
	char *tool, *args, *dir; /* owned: the check's tool, arguments and directory, redacted */
	char *now;          /* owned: a queued run's time (cli_learn_queued) */
} cli_learn;

/* The check a detection names, with the workspace's [learn] settings.
 * Borrows from ws and det; the check's tool, arguments and directory are
 * stored, so they are redacted copies (an argument can be -pSECRET, and a
 * tool the words a pattern's * took: npm run test:SECRET).  Release with
 * cli_learn_release(). */
void cli_learn_init(cli_learn *out, const cli_workspace *ws, const callus_detection *det,
		    const char *dir);
void cli_learn_release(cli_learn *lc);

/* A check's run queued before it is recorded (the hook's spool).  origin
 * names it: a failure's second delivery stores nothing (CALLUS_EEXIST).
 * at_ns, when set, says it is delivered late (a drainer): it is recorded
 * as of then (learn.h's redelivered), and a pass's second delivery finds
 * nothing left to fix.  stored(ctx) is called once the run is committed,
 * or found committed already (callus_record_opts.origin and .stored). */
typedef struct cli_queued {
	const char *origin;
	void (*stored)(void *ctx, int again); /* cli_spool_run's */
	void *ctx;
	long long at_ns;        /* delivered late: when it ran (CLOCK_REALTIME
				 * ns); 0: now */
	const cli_spool_kept *kept; /* delivered late: what its hook kept of
				 * the working tree then (a failure's
				 * snapshot, a pass's fixes); NULL: none */
	cli_spool_kept *left;   /* a live run's: where a busy store leaves
				 * what it found of the working tree, for
				 * its entry (cli_spool_leave); NULL */
	char **why;             /* a live run's, one not queued yet (see
				 * below): where why the store could not
				 * take it is put (the caller frees it);
				 * NULL for a queued run */
} cli_queued;
/* A live run not queued yet (`callus run`, which has no deadline to beat
 * and does not redact a whole output into the queue at every failure): a
 * busy store is returned as CALLUS_EBUSY without a word, and a failure's
 * capture is kept for the caller, who then queues the run
 * (cli_spool_queue_run) and says so; so is a failure the store cannot take
 * now for another cause the queue keeps (a full disk, a store that is no
 * database), a failure's or a pass's: nothing is said, the cause is put in
 * *why, and the caller queues the run with it (cli_run_queued.why).  Its
 * origin, when set, is the name
 * that entry would have (cli_spool_run_origin), stored with the failure:
 * when the failure commits and its learning then finds the store busy
 * (cli_recorded.learn_owed, said by no one), the caller queues it under
 * that name, and its drainer learns it. */

/* Whether a queued run whose recording or learning returned rc stays in
 * the queue for a drainer (a busy store, one that cannot be opened or
 * written now: a full disk), rather than go: 1 or 0.  The hook keeps its
 * entry then, and a drainer stops at it and keeps it. */
int cli_queue_keeps(int rc);

/* lc learns q's run as of when it ran, when q is one delivered late: 0, or
 * -1 without memory. */
int cli_learn_queued(cli_learn *lc, const cli_queued *q);

/* Told of a policy value that cannot be read: message names the file, the
 * line and the value; arg is the caller's. */
typedef void (*cli_unread_fn)(const char *message, void *arg);

/* [retention] (gc.h) and [learn] prune_hours: the policy of `callus gc`
 * and of the background pass of recordings.  A value that is no whole
 * number from 0 up is the default's, and unread (when not NULL) is told
 * of it, once per value. */
void cli_gc_policy(const cli_workspace *ws, callus_gc_policy *p, cli_unread_fn unread,
		   void *arg);

/* [match] half_life_days: how fast a fix's recency fades (match.h). */
double cli_match_half_life(const cli_workspace *ws);

/* A passing check: fix its pending errors.  Returns 0, or <0 after
 * reporting the trouble once (stderr and log).  out is released by the
 * caller (callus_learn_result_release).  Without a store nothing is
 * created.  What learning measures is added to m (may be NULL).  With
 * keep, the store stays open for the caller (*keep, NULL when there is
 * none), which closes it and writes m; without, m is written here.
 * started_ns: when the passing command started (CLOCK_REALTIME), 0 when
 * unknown: what it wrote is no fix.  q is NULL, or the queued pass this is
 * (a busy store, CALLUS_EBUSY, is then reported as queued, not lost), or
 * the live one (q->why set: the caller queues it when the store turns it
 * away, CALLUS_EBUSY or a cause put in *q->why). */
int cli_record_pass(const cli_workspace *ws, const callus_detection *det, const char *command,
		    const char *session, long long started_ns, callus_metrics *m,
		    callus_learn_result *out, callus_store **keep, const cli_queued *q);

/* The working tree as a pass left to a drainer found it (a busy store, or
 * failures queued before it), into *out unless it holds one already: its
 * drainer diffs the fixes to it (learn.h's taken), not to the tree found
 * then, which may hold the agent's next work.  Only a git tree is kept;
 * without one (snapshots off, no git, the helper failed) *out stays
 * empty and the drainer diffs to the tree it finds, as before. */
void cli_keep_tree(const cli_workspace *ws, const callus_detection *det, callus_snapshot *out);

/* The same for a failure queued before it is recorded (`callus run`
 * behind a queued run of its command): the working tree it failed in,
 * which its drainer takes for the errors' snapshot.  Without git, the
 * files its errors name are copied (as a recording's own snapshot does,
 * learn.h), read from cap, its finished capture, as command (its status
 * code) prints them. */
void cli_keep_failure_tree(const cli_workspace *ws, const callus_detection *det,
			   const char *command, int code, const callus_capture *cap,
			   callus_snapshot *out);

/* Whether a pass of det's check has anything to learn, as far as the list
 * of checks beside the store tells (checkindex.h) without opening it: 0
 * when cli_record_pass() would leave the store closed. */
int cli_pass_counts(const cli_workspace *ws, const callus_detection *det);

/* A run replayed from an agent's transcript (callus import): when it ran,
 * and the fix the transcript's own edits make since the failure (a unified
 * diff, "" for none; NULL: unknown).  No snapshot is taken: the working
 * tree of then is gone. */
typedef struct cli_replay {
	const char *now;        /* ISO 8601 UTC; NULL or "": the clock */
	const char *fix_patch;
	const char *origin;     /* names the run (a failure's): replayed again
				 * (an import cut short, its watermarks
				 * lost), it stores nothing and the replay
				 * returns CALLUS_EEXIST.  NULL: none */
	int late;               /* now is in the store's own format: the run
				 * is learnt as one delivered late (learn.h's
				 * redelivered and replayed), so that history
				 * fixes no error that failed after it, and a
				 * pass replayed again finds nothing to fix;
				 * a failure is learnt even when its check
				 * passed later (its own pass may follow) */
} cli_replay;

/* cli_record_pass() for a replayed run: no metrics, nothing kept open.
 * Replays leave the instructions file's block alone: the caller rebuilds
 * it once (cli_replay_views). */
int cli_replay_pass(const cli_workspace *ws, const callus_detection *det, const char *command,
		    const char *session, const cli_replay *rp, callus_learn_result *out);

/* cli_record_failure() for a replayed run: the lesson's times are the
 * run's, no related lessons are read. */
int cli_replay_failure(const cli_workspace *ws, const callus_detection *det, const char *command,
		       int exit_code, callus_capture *cap, const char *session,
		       const cli_replay *rp, callus_metrics *m, cli_recorded *out);

/* The instructions file's block of ws rebuilt from its store, after
 * replays; 0, or <0 after saying why. */
int cli_replay_views(const cli_workspace *ws);

/* The notes folder of ws taken into store s (callus_notes_sync), and
 * the instructions file's block written again when that changed a note:
 * a note whose file a person deleted was still listed there.  0, or <0
 * with err set when the folder could not be read (a block that cannot be
 * written is logged). */
int cli_notes_sync(callus_store *s, const cli_workspace *ws, callus_error *err);

/* The same, bounded as a recording's (callus_notes_sync_bounded): for a
 * hook, which an agent waits for, where the whole folder was a stat a
 * note (a session's start at 9,998 notes: 10,033 of its 10,417 system
 * calls, strace -c; bench/scale.sh's "session start").  A new, removed or
 * renamed file is taken in at once, an edit in place within a few hooks. */
int cli_notes_sync_bounded(callus_store *s, const cli_workspace *ws, callus_error *err);

/* The files of the notes ns[0..n) a reply shows taken in
 * (callus_notes_sync_shown), and the block written again when that
 * changed one; *changed counts them.  0, or <0 when one could not be
 * read. */
int cli_notes_sync_shown(callus_store *s, const cli_workspace *ws, const callus_note *ns,
			 size_t n, size_t *changed);

/* [hook] context_chars: the characters of context an agent is given. */
#define CLI_CONTEXT_CHARS 1500

/* The budget for what an agent is told, in bytes: n (a --context-chars),
 * or [hook] context_chars when n < 0; 0 means no limit (SIZE_MAX). */
size_t cli_context_budget(const cli_workspace *ws, long n);

/*
 * What an agent (or the person at `callus run`) is told of a failure, into
 * b, within budget bytes: for each error with a past fix, its note in
 * compact form (the pattern, the rule, the fix's lines that matter); then
 * what else is new (it failed this way before; errors now permanent).
 * Nothing at all when there is nothing new to say: the agent knows it
 * failed.  Lines end with "\n".
 */
void cli_describe_failure(callus_buf *b, const char *tool, const cli_recorded *rec,
			  size_t budget);

/* What a passing run changed, into b: each fix kept (as its note, with how
 * to add a rule to it), failures that went away unchanged, errors now
 * permanent.  store (may be NULL) is where the notes are read. */
void cli_describe_pass(callus_buf *b, callus_store *store, const char *tool,
		       const callus_learn_result *r);

/* The check's directory relative to the workspace: the current directory,
 * moved by a `cd DIR` the command line ran first.  Caller frees. */
char *cli_check_dir(const cli_workspace *ws, const char *cd);

/* How long to wait for the store's lock: [store] timeout_ms, at most
 * ws->store_wait_ms when that is set. */
int cli_store_timeout(const cli_workspace *ws);

/* Record the failure a finished capture shows; out->related gets up to
 * related_max earlier lessons about the same file (for the hook's reply).
 * The capture is released once the failure is read from it: its lines
 * (and a hook's output it owns) are a megabyte of a large output that the
 * recording's own memory then reuses; releasing it again does nothing.
 * Returns 0, or <0 after reporting the trouble (the caller carries on
 * regardless).  q is NULL, or the queued failure this is (then a busy
 * store, CALLUS_EBUSY, is reported as queued, not dropped, and one already
 * recorded, CALLUS_EEXIST, is not reported; a q of no origin, a live run
 * not queued yet, keeps the capture and leaves a busy store to its
 * caller).  m (may be NULL) is written
 * with the lesson; when recording fails, m is left holding
 * callus.failsafe.dropped_total{reason} instead, for the caller to add to
 * and give to cli_flush_metrics(ws, m, NULL, 1). */
int cli_record_failure(const cli_workspace *ws, const callus_detection *det, const char *command,
		       int exit_code, callus_capture *cap, const char *intent_id,
		       callus_metrics *m, int related_max, const cli_queued *q,
		       cli_recorded *out);

/* A run of `callus run` to queue for a drainer (cli_spool_queue_run). */
typedef struct cli_run_queued {
	const char *command;        /* as stored: redacted */
	int code;                   /* its status; 0: a pass */
	const callus_capture *cap;  /* a failure's capture; NULL for a pass */
	const char *session;        /* may be NULL */
	const cli_spool_kept *kept; /* what it found of the working tree (a
				     * failure's snapshot, a pass's fixes or
				     * tree); may be NULL */
	long long newest;           /* as cli_spool_queue_run's */
	long long ended_ns;         /* when the command ended; 0: now */
	int behind;                 /* queued behind a run of its command, the
				     * store not tried; else turned away by a
				     * busy store (CALLUS_EBUSY from
				     * cli_record_failure or cli_record_pass,
				     * given a live q) */
	const char *owed;           /* a failure stored under this origin
				     * (the live q's) whose learning found the
				     * store busy; NULL: none */
	const char *why;            /* turned away for this, not a busy store
				     * (cli_queued.why: a full disk, a store
				     * that is no database); NULL: busy */
	int cause;                  /* why's code (CALLUS_EIO, CALLUS_ENOMEM) */
} cli_run_queued;

/* Queue r for a drainer.  Said on stderr unless quiet; a failure queued is
 * counted in m (may be NULL) as a run recorded (not one owed: counted when
 * it was stored).  When it cannot be queued: one behind is the caller's to
 * record now (nothing said or counted); one the store turned away is lost,
 * said (always) and logged, a failure's counted in m as a recording
 * dropped; an owed learning is lost, said and logged.  0 queued, -1 not;
 * m is the caller's to write to the metrics' spool (cli_flush_metrics). */
int cli_queue_run(const cli_workspace *ws, const callus_detection *det, const cli_run_queued *r,
		  callus_metrics *m, int quiet);

/* Write the metrics a command has left at its end (callus_record_metrics):
 * through store when the command has it open, else to the store when there
 * is one, or with spool_only straight to the spool.  Best-effort and
 * quiet. */
void cli_flush_metrics(const cli_workspace *ws, callus_metrics *m, callus_store *store,
		       int spool_only);

void cli_recorded_release(cli_recorded *r);

/*
 * The analysis of a command's output read from standard input, as if it
 * had run in ws's current directory with this exit status: *det and *f
 * are filled (the caller releases both, also on failure), and *dir_out
 * (may be NULL) gets the check's directory, as cli_check_dir() says, for
 * the caller to free; with sign, f's errors are signed (callus_failure_sign).
 * Returns 0, or -1 after saying why.
 */
int cli_analyze_stdin(const cli_workspace *ws, const char *command, int exit_code, int sign,
		      callus_detection *det, callus_failure *f, char **dir_out);

/*
 * With an external embedder configured, have `callus reindex --new` embed the
 * signatures just recorded, in a process of its own that outlives this one
 * (its output to /dev/null, its own session): the hook and callus run never
 * wait on the network.  Nothing happens without an embedder.
 */
void cli_embed_later(const cli_workspace *ws);

/*
 * The retention policy's background pass, due after a recording
 * (callus_record_result.gc_keep: the lesson it told of, which the pass
 * keeps), as `callus gc --background --keep ID` in a process of its own
 * that outlives this one: the pass reads whole tables, and the agent
 * waiting for a hook does not wait for it.
 */
void cli_gc_later(const cli_workspace *ws, int64_t keep);

/* That pass, here: [retention] read from ws's config, batches of each kind,
 * no sweep or VACUUM, lesson keep (0: none) kept; what it removed, or why it
 * removed nothing, said in the log (gc_removed, gc_failed).  0, or -1 when
 * it failed.  What cli_gc_later() starts, and runs itself when it cannot
 * start it. */
int cli_gc_pass(const cli_workspace *ws, int64_t keep);

/* dir relative to ws's root ("" at the root, and for a directory outside
 * it or one that cannot be resolved); owned by the caller, NULL without
 * memory. */
char *cli_workspace_rel(const cli_workspace *ws, const char *dir);

/* With an explicit --workspace: the command ran in the current directory
 * when that is inside the workspace, else at its root. */
void cli_workspace_cwd_inside(cli_workspace *ws);

/* Log an error of callus's own in .callus/log.jsonl (redacted, best-effort). */
void cli_log_failure(const cli_workspace *ws, const char *event, const char *message);

#endif
