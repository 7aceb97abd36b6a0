/*
 * child.h - run one of callus's helper programs (callus-git, callus-embed) with a
 * deadline and collect what it prints.
 *
 * The helpers exist so that callus never maps the libraries they link
 * (libgit2, libcurl and the TLS, SSH and Kerberos libraries behind them):
 * the hook runs after every shell command an agent executes, and loading
 * those costs more than its whole budget.  A helper is started only when
 * its work is needed.
 *
 * The program runs with posix_spawn, no shell and no PATH search, with the
 * signals a caller may have changed back at their defaults.  Its stdin is
 * the given input or /dev/null; stdout and stderr are pipes read with
 * poll() until both close or the deadline passes, after which it is
 * killed.  It is always reaped before callus_child_run() returns.
 */
#ifndef CALLUS_CHILD_H
#define CALLUS_CHILD_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"

/* What is kept of the child's stderr: its first line becomes the message. */
#define CALLUS_CHILD_STDERR_MAX 4096

/* Everything borrowed for the duration of the call. */
typedef struct callus_child_opts {
	const char *what;    /* names the program in messages: "snapshot helper" */
	char *const *argv;   /* NULL-terminated; argv[0] is the program's path */
	char *const *envp;   /* its environment; NULL: the caller's */
	const void *input;   /* written to its stdin; NULL: stdin is /dev/null */
	size_t input_len;
	size_t out_max;      /* most stdout bytes accepted; 0: no limit */
	int timeout_ms;      /* > 0: killed past this */
	long long deadline_ms; /* > 0: killed past this time of
				* callus_child_now_ms() too, whichever comes
				* first (a hook's own deadline) */
} callus_child_opts;

/* Now, in the milliseconds of a deadline_ms (the monotonic clock);
 * async-signal-safe (clock_gettime(2)): a deadline handler may call it. */
long long callus_child_now_ms(void);

/*
 * Run the program and collect its stdout in *out (initialised here; the
 * caller releases it, which is harmless after an error).
 *
 *   0               it exited 0 and printed at most out_max bytes
 *   CALLUS_ENOTFOUND  argv[0] is not an executable regular file
 *   CALLUS_EINVAL     it exited 2: it refused its arguments (a usage error)
 *   CALLUS_EIO        any other exit status or a signal, the deadline
 *                   passed, more than out_max bytes, a pipe failed
 *   CALLUS_ENOMEM     out of memory
 *
 * When the child failed and printed something on stderr, err is its first
 * line; otherwise err says what happened, naming the program by `what`:
 * "snapshot helper timed out after 300 ms", "snapshot helper exited with
 * status 3", "snapshot helper killed by signal 9".
 */
int callus_child_run(callus_buf *out, const callus_child_opts *opts, callus_error *err);

/*
 * The same in two steps, so that the caller works while the child does:
 * callus_child_start() spawns it (what callus_child_run() reports before
 * the child runs, it reports); callus_child_wait() feeds it, collects its
 * stdout in *out, reaps it and reports as callus_child_run(), then frees
 * c.  Its stdout pipe is made room for out_max bytes (up to 1 MB) so that
 * it can finish unread.  timeout_ms counts from the wait: until then the
 * child runs free (one that printed more than its pipes hold is waiting
 * for the caller).  opts->what and opts->input are borrowed until the
 * wait, the rest of opts only for the start.  Every child started is
 * waited for.
 */
typedef struct callus_child callus_child;

int callus_child_start(callus_child **c, const callus_child_opts *opts, callus_error *err);
int callus_child_wait(callus_child *c, callus_buf *out, callus_error *err);

/*
 * A helper's path: $env when it is set and not empty, else `name` in the
 * directory of the running executable (/proc/self/exe), so that an
 * installed or a freshly built callus finds the helper installed or built
 * with it.  Caller frees; NULL when out of memory or the executable's path
 * is unknown.
 */
char *callus_child_sibling(const char *env, const char *name);

#endif
