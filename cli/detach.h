/*
 * detach.h - another callus started in the background, nobody's child.
 *
 * The hook starts work it must not wait for: the embedder's reindex, the
 * queue's drainer, the team sync.  Each is this same program, started
 * twice forked (no zombie, no wait) in its own session, with /dev/null for
 * its standard streams (an agent that waits for the hook's pipes to close
 * must not wait for it) and the workspace as its directory.
 *
 * Starting one uses only async-signal-safe calls, so the hook's deadline
 * handler may start a drainer for the entry it leaves: the program's path
 * and the workspace are resolved beforehand, into fixed buffers for that
 * reason (a signal handler may not allocate).
 */
#ifndef CALLUS_CLI_DETACH_H
#define CALLUS_CLI_DETACH_H

#include <limits.h>

#define CLI_DETACHED_ARGS 6

typedef struct cli_detached {
	char exe[PATH_MAX];  /* this program, from /proc/self/exe */
	char dir[PATH_MAX];  /* where it runs */
	const char *argv[CLI_DETACHED_ARGS + 1]; /* static strings, NULL-ended */
	int ready;
} cli_detached;

/* Resolve what cli_detached_start() needs: this program run in dir with
 * argv (string literals; at most CLI_DETACHED_ARGS, NULL-ended).  0, or -1
 * when it cannot be (d->ready stays 0). */
int cli_detached_prepare(cli_detached *d, const char *dir, const char *const argv[]);

/* Start d (async-signal-safe; nothing when d is not ready).  Returns once
 * the intermediate child is reaped, the program itself running on: 0, or
 * -1 when no process could be started (d not ready, a fork refused).  An
 * exec that fails after (the binary replaced meanwhile) is not seen. */
int cli_detached_start(const cli_detached *d);

/* Prepare and start at once: `callus ARGV...` in dir, detached; 0 or -1
 * as cli_detached_start(). */
int cli_run_detached(const char *dir, const char *const argv[]);

#endif
