/*
 * runner.h - run a verification command to completion, passing its output
 * through live while handing a copy of every byte to the caller.
 *
 * This is what sits behind `callus run [--] CMD [ARGS...]`: the user (or the
 * agent) must see exactly what the command prints, as it prints it, and callus
 * must not change how the command behaves: its exit status, its signals, its
 * view of the terminal.  Memory stays bounded by one fixed read buffer
 * whatever the size of the output; keeping what matters is on_output's job.
 *
 * While it runs, callus_runner_run() owns the process's dispositions of SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE (ignored, so a closed out_fd
 * shows up as EPIPE) and, in pty mode, SIGWINCH; it restores them, and the
 * signal mask, before returning.  Hence it is not reentrant: one run per
 * process at a time (a second concurrent call fails with CALLUS_EBUSY).
 * The child gets the dispositions the process started with: SIGPIPE and
 * SIGXFSZ, which a caller ignores for itself, are the defaults again
 * unless started_ignored says they were ignored from the start.
 */
#ifndef CALLUS_RUNNER_H
#define CALLUS_RUNNER_H

#include <signal.h>
#include <stddef.h>

#include "callus/common.h"

/*
 * Receives a copy of output: stream 1 is what came through the child's
 * stdout (the pseudo-terminal, which carries its stderr too when that is a
 * terminal), 2 its stderr pipe.  The two are read in turn, in chunks that
 * may end inside a line.  `data` is borrowed for the duration of the call.
 * Return 0 to keep receiving, <0 to stop (output keeps passing through to
 * out_fd/err_fd; the callback is just not called again).
 */
typedef int (*callus_output_fn)(void *ctx, int stream, const char *data, size_t len);

typedef struct callus_runner_opts {
	/* NULL-terminated, not empty; argv[0] is searched in PATH (execvp).
	 * Borrowed for the duration of the call. */
	char *const *argv;
	/* -1 auto: a pseudo-terminal when out_fd is a terminal, or only
	 * err_fd (then the pty is the child's stderr alone, copied to
	 * err_fd, and stdout a pipe); pipes when none can be opened.  0
	 * pipes; 1 pty: the child's stdout is the pty,
	 * copied to out_fd.  Its stderr is the pty too (copied to out_fd, as
	 * a terminal would show it) only when err_fd is a terminal;
	 * otherwise it is a pipe copied to err_fd as in pipe mode, so a
	 * redirected stderr (`2>err.log`, err_fd < 0) still gets, or
	 * discards, exactly the child's stderr.  The pty is only the child's
	 * output: it stays in callus's session and process group, so
	 * /dev/tty, the keyboard's signals and job control are the user's
	 * terminal's, as without callus.  In pipe mode, an out_fd and an
	 * err_fd that are one file (2>&1) share one pipe, so that what the
	 * child writes to either keeps its order. */
	int pty;
	/* Usually 0, 1, 2.  The child inherits in_fd as its stdin directly
	 * (nothing is copied); in_fd < 0 gives it /dev/null.  out_fd/err_fd
	 * < 0 discard that stream (on_output still sees it).  A destination
	 * that fails is dropped and the child keeps being drained, but for
	 * EPIPE in pipe mode: the pipe feeding it is closed, so that the
	 * child meets the closed pipe as it would without callus.  None of
	 * them is closed.  CALLUS_RUNNER_CLOSED: the child gets that
	 * descriptor closed (the caller's was closed when it started). */
	int in_fd, out_fd, err_fd;
	/* Every byte the child writes, stdout and stderr, in the order read;
	 * may be NULL. */
	callus_output_fn on_output;
	void *ctx;
	/* The signals ignored when the process started (SIGPIPE and SIGXFSZ
	 * are looked at); NULL: none. */
	const sigset_t *started_ignored;
	/* Set to the errno of the first write to out_fd or err_fd that
	 * failed (0: none): what the child wrote was not all seen.  May be
	 * NULL. */
	int *write_errno;
	/* Set to the signal that killed the child (0: it exited): 128+N in
	 * the status cannot tell it from an exit with that number.  May be
	 * NULL. */
	int *term_signal;
} callus_runner_opts;

#define CALLUS_RUNNER_CLOSED (-2)
#define CALLUS_RUNNER_OPTS_INIT { NULL, -1, 0, 1, 2, NULL, NULL, NULL, NULL, NULL }

/*
 * Run the command to completion.  *out_status is its exit code, 128+n when
 * it was killed by signal n, 127 when it could not be found and 126 when it
 * was found but could not be executed (as shells do); in those two cases err
 * is also set (CALLUS_ENOTFOUND / CALLUS_EINVAL) to say why, e.g. "cannot run
 * 'foo': No such file or directory", yet the return is 0: the caller reports
 * it like any failing command.
 *
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to callus are forwarded to the
 * child, and callus keeps waiting for it.  The child shares callus's
 * process group, so keyboard signals already reach it from the tty driver
 * and only signals sent by a process (kill, sigqueue) are forwarded; a
 * process signalling the whole group reaches the child twice.
 *
 * Returns 0, or <0 only when nothing could be started (bad opts, no
 * memory, pipe/pty/fork failure, or the child failed before exec); then
 * *out_status is left alone.
 */
int callus_runner_run(int *out_status, const callus_runner_opts *opts, callus_error *err);

#endif
