/*
 * hook_spool.h - failures the hook could not record in time, kept until a
 * later run records them.
 *
 * A hook has a deadline (the agent waits for it) and shares one store with
 * every other hook of the workspace.  So a failing check is first written
 * to .callus/spool/ (redacted, as a generic hook payload), then recorded,
 * and its spool entry removed once the lesson is committed.  A hook that
 * finds the store busy past a short wait, or is cut by its deadline, leaves
 * the entry and replies: nothing is lost.  One drainer at a time (a lock
 * file) records the entries left by processes that are gone, in the order
 * they were made: the hook starts it in the background after replying
 * (`callus hook --drain`), and a passing check drains first, so that a fix
 * is learnt against its failure.  Concurrency is bounded by the one writer,
 * not by the deadline.
 */
#ifndef CALLUS_CLI_HOOK_SPOOL_H
#define CALLUS_CLI_HOOK_SPOOL_H

#include "cli.h"

#include "callus/hookio.h"

/* Spool the failure e of the check detected as its tool, with status code;
 * *path (caller frees) names the entry, NULL when it could not be written
 * (the recording goes on without it). */
void cli_spool_put(char **path, const cli_workspace *ws, const callus_hook_event *e, int code);

/* The failure is recorded: forget its entry (accepts NULL). */
void cli_spool_done(char *path);

/* How an entry is recorded (the hook's own failure path), calling
 * stored(ctx) once the occurrence is committed: 0, or -1 when it could not
 * be (it stays spooled unless stored was called). */
typedef int (*cli_spool_record_fn)(const cli_workspace *ws, const callus_hook_event *e, int code,
				   void (*stored)(void *), void *ctx);

/* Record with fn the entries of processes that are gone, oldest first, for
 * at most budget_ms (0: no limit), unless another drainer holds the lock.
 * The number recorded, or -1 when the lock is taken. */
int cli_spool_drain(const cli_workspace *ws, long budget_ms, cli_spool_record_fn fn);

/* Whether the spool holds entries of processes that are gone. */
int cli_spool_pending(const cli_workspace *ws);

/* Start `callus hook --drain` detached in the workspace. */
void cli_spool_drain_later(const cli_workspace *ws);

#endif
