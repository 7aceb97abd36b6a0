/*
 * hook_spool.h - failures (and passes) the hook could not record in time,
 * kept until a later run records them.
 *
 * A hook has a deadline (the agent waits for it) and shares one store with
 * every other hook of the workspace.  So a failing check is first written
 * to .callus/spool/ (redacted, as a generic hook payload), then recorded,
 * and its entry removed once the lesson is committed.  A hook that finds
 * the store busy past a short wait leaves the entry (renamed
 * NAME.left.json), one cut by its deadline too (NAME.cut.json: the drainer
 * logs and counts the cut); either starts a drainer and replies: nothing is
 * lost.  One drainer at a time (a lock file) records the entries left, and
 * those of processes that are gone, in the order they were made; a drainer
 * looks again after letting the lock go, so an entry left while it held
 * the lock is not stranded.  A passing check drains first, so that a fix
 * is learnt against its failure (a pass left behind a drainer waits behind
 * it); so does a failing check when a run of its command is queued, so
 * that the two are recorded in the order they ran.
 *
 * An entry can be recorded twice (a hook cut between its commit and the
 * entry's removal): its name (NS-PID, its origin) goes into the store with
 * the run, and the second delivery finds it there (CALLUS_EEXIST).
 *
 * A passing check with errors to fix is queued too (status 0, no output).
 * A drainer records each entry as of its time, NS: a failure's errors
 * failed then, a pass fixes nothing that failed after it, and delivered
 * again finds nothing left to fix.
 */
#ifndef CALLUS_CLI_HOOK_SPOOL_H
#define CALLUS_CLI_HOOK_SPOOL_H

#include "cli.h"

#include "callus/capture.h"
#include "callus/hookio.h"
#include "callus/learn.h"
#include "callus/snapshot.h"
#include "callus/store.h"

/* One queued failure.  Release with cli_spool_entry_release(). */
typedef struct cli_spool_entry {
	char *path;    /* .../.callus/spool/NS-PID.json */
	char *left;    /* its name once left to a drainer: NS-PID.left.json */
	char *cut;     /* its name once its hook is cut: NS-PID.cut.json */
	char *owed;    /* its name once stored, while its hook learns from it:
			* NS-PID.owed.json, its hook's until that is gone */
	char *origin;  /* NS-PID: the failure's name in the store */
	char *text;    /* the redacted payload; NULL once written
			* (cli_spool_write) */
	char *spare;   /* .../.callus/spool/.spare: a stored entry's file, kept
			* for the next (callus_fs_write_spare), never an entry */
} cli_spool_entry;

#define CLI_SPOOL_ENTRY_INIT { NULL, NULL, NULL, NULL, NULL, NULL, NULL }

/* The newest time an entry of the queue is named by, as a walk of it
 * gives it (cli_spool_pending, cli_spool_holds): this when the walk did
 * not see every name. */
#define CLI_SPOOL_UNSEEN (-1LL)

/* Make the entry for the failure e with status code (0: a pass, its
 * output left out) of the check of tool (what the hook detected; may be
 * NULL), writing nothing (the slow part: redaction).  newest: the newest
 * name's time a walk of the queue just gave, or CLI_SPOOL_UNSEEN (the
 * queue is read here, a second time): the entry is named after it.  0,
 * or -1 when it cannot be made (the recording goes on without it). */
int cli_spool_prepare(cli_spool_entry *out, const cli_workspace *ws, const callus_hook_event *e,
		      int code, const char *tool, long long newest);

void cli_spool_entry_release(cli_spool_entry *e);

/* Write it to e->path, whole or not at all; its text is then freed:
 * nothing reads it again, and a large output's copy goes back to the heap
 * before the recording makes its own, which take its pages (with the
 * heap's top kept, cli_sqlmem_process: a megabyte recorded, 1,855 ->
 * 1,465 page faults for the two).  0, or -1 (the text kept; and for an
 * entry written already, never an empty file). */
int cli_spool_write(cli_spool_entry *e, const cli_workspace *ws);

/* What a hook kept of a run a busy store queued, for its drainer, which
 * will find a working tree that may have changed since: the tree as the
 * run found it (learn.h's taken: a failure's snapshot, or a pass's tree,
 * cli_keep_tree), the fixes of the errors a run closes and HEAD then
 * (learn.h's fixes).  Release with cli_spool_kept_release(). */
typedef struct cli_spool_kept {
	callus_snapshot snapshot;   /* no tree: none */
	callus_learn_fixes fixes;
} cli_spool_kept;

#define CLI_SPOOL_KEPT_INIT { CALLUS_SNAPSHOT_INIT, CALLUS_LEARN_FIXES_INIT }

void cli_spool_kept_release(cli_spool_kept *k);

/* Leave the entry written at e->path to a drainer, as e->left: renamed,
 * or with what kept holds written in (may be NULL).  Not async-signal-safe:
 * called with SIGALRM blocked.  0, or -1 when it is left as it was at
 * e->path (a drainer takes it all the same once its process is gone). */
int cli_spool_leave(const cli_spool_entry *e, const cli_spool_kept *kept);

/* A queued run as the drainer hands it to its recorder. */
typedef struct cli_spool_run {
	const char *origin;    /* NS-PID: its name in the store */
	long long at_ns;       /* when it was made: its name's time, now for a
				* name of none */
	int cut;               /* its hook was cut by the deadline while
				* recording it */
	const cli_spool_kept *kept; /* what its hook kept of it
				* (cli_spool_leave); NULL: nothing */
	char *tool;            /* the check's tool as its hook detected it;
				* NULL: not said (an older entry) */
	const char *path;      /* the entry's file: it goes once the run is
				* recorded and learnt, whatever the recorder
				* does (a drainer killed before then leaves
				* it to the next) */
} cli_spool_run;

/* The cut of run's hook is counted: a delivery again (its drainer killed
 * while learning) takes it for an entry left, not cut, and counts nothing
 * twice.  0, or -1 when it stays as it was. */
int cli_spool_uncut(const cli_spool_run *run);

/* How an entry is recorded (the hook's own path).  1 recorded, 0 nothing
 * to record (no longer a check, recorded already, or it will never do
 * better), -1 not now (a busy store), -2 not until something changes (a
 * full disk, a store that cannot be read): either way it stays queued
 * unless stored was called, and after -2 the drainer stops (the next
 * hook starts another). */
typedef int (*cli_spool_record_fn)(const cli_workspace *ws, const callus_hook_event *e,
				   const cli_spool_run *run);

/* Record with fn the entries left and those of processes that are gone,
 * oldest first, for at most budget_ms (0: no limit), unless another
 * drainer holds the lock past lock_wait_ms (within the budget; none
 * without one).  The number recorded, or -1 when another drainer held the
 * lock (it looks again once it lets go). */
int cli_spool_drain(const cli_workspace *ws, long budget_ms, long lock_wait_ms,
		    cli_spool_record_fn fn);

/* In a signal handler that ends the process (async-signal-safe): the
 * drain lock a cli_spool_drain() of this process holds, let go now, so
 * that a drainer the handler starts is not turned away by it (a hook cut
 * while draining; its exit would let go too late). */
void cli_spool_drain_let_go(void);

/* The entries not yet named ("NS-PID.json.tmp") of processes killed
 * between writing and naming them: nothing of them was recorded, and
 * their hooks never answered.  Their number; with fix removed (how many
 * in *removed, when given); none when the spool leads out of the
 * workspace (callus doctor names the link).  The drainer removes them;
 * callus doctor counts them. */
size_t cli_spool_leftovers(const cli_workspace *ws, int fix, size_t *removed);

/* Whether .callus/spool leads out of the workspace (a link to a folder
 * outside it): then no hook writes there and no drainer reads or removes
 * anything there; err says where it leads. */
int cli_spool_leads_out(const cli_workspace *ws, callus_error *err);

/* Whether a drainer can open the queue's drain lock (none yet is fine):
 * 0, with err saying why, when it is a link, a folder, or a file this user
 * cannot open, and every run queued would wait for ever; with fix, such a
 * lock is removed first (1 then). */
int cli_spool_lock_usable(const cli_workspace *ws, int fix, callus_error *err);

/* Whether the spool holds entries left or of processes that are gone;
 * *newest (when given) the newest time an entry is named by
 * (cli_spool_prepare's). */
int cli_spool_pending(const cli_workspace *ws, long long *newest);

/* Whether the queue holds a run of command (as run: redacted here as
 * cli_spool_prepare redacts it) that a drainer will record, a failure
 * (CLI_SPOOL_FAILURE) or any (CLI_SPOOL_ANY_RUN): its entry begins as that
 * function writes it, so its first bytes say so without reading the output
 * after them (an entry made by hand may not: no). */
typedef enum cli_spool_run_kind { CLI_SPOOL_ANY_RUN, CLI_SPOOL_FAILURE } cli_spool_run_kind;
int cli_spool_holds(const cli_workspace *ws, const char *command, cli_spool_run_kind kind,
		    long long *newest);

/* The failures the queue holds that are not stored yet: those for a
 * drainer (cli_spool_drain's entries) and those hooks are recording now
 * (not a pass, not an entry stored whose learning is owed), each as its
 * run will be stored: its session and command as the entry has them
 * (redacted as the store has them), its time the entry's name's, in
 * seconds; sorted as callus_store_runs_seen sorts.
 * Release with callus_runs_seen_free().  0, or -1 without memory (*out
 * NULL).  An entry that cannot be read is not one: a drainer drops it. */
int cli_spool_failures(const cli_workspace *ws, callus_run_seen **out, size_t *n);

/* A run `callus run` could not record (the store busy past its wait, or a
 * run of its command queued before it), queued as a hook's is, its output
 * redacted into the entry, then left to a drainer at once with what kept
 * holds (may be NULL) and a drainer started.  cap: the failure's finished
 * capture (its output as printed when the capture holds it whole, else the
 * lines it kept), NULL for a pass; session and tool may be NULL.  Named
 * as of ended_ns, when the command ended (CLOCK_REALTIME; 0: now), not of
 * the wait for the store after it: a hook's pass queued meanwhile drains
 * after it (a later failure drained meanwhile is before it, and the two
 * failures are learnt in that order).  newest: the newest name of a run
 * it follows (cli_spool_holds), or CLI_SPOOL_UNSEEN: the queue is read,
 * and the entry goes after one only when that one is named ahead of the
 * clock.  origin, when not NULL, is the entry's name instead: a failure
 * stored under it whose learning found the store busy, which the entry
 * takes to a drainer as a delivery again (store.h's learn_owed).  0, or -1
 * when no entry could be written (nothing is queued). */
int cli_spool_queue_run(const cli_workspace *ws, const char *command, int code,
			const callus_capture *cap, const char *session, const char *tool,
			const cli_spool_kept *kept, long long newest, long long ended_ns,
			const char *origin);

/* The name an entry this process made as of at_ns (CLOCK_REALTIME; 0:
 * now) would have, and its run's origin in the store: a run recorded at
 * once stores it, so that if its learning finds the store busy, the entry
 * written under it then is that run delivered again.  Caller frees; NULL
 * without memory. */
char *cli_spool_run_origin(long long at_ns);

/* Start `callus hook --drain generic` detached in the workspace. */
void cli_spool_drain_later(const cli_workspace *ws);

/* What cli_spool_drain_later() starts, for cli_detached_prepare(). */
extern const char *const cli_spool_drainer_argv[];

#endif
