/*
 * callus run [--] CMD [ARGS...]
 *
 * Runs CMD with its output passed through untouched and live, and returns
 * its exact exit status.  Whatever happens inside callus afterwards (store
 * locked, disk full, a bug caught by a guard), the status stays CMD's.
 */
#include "cli.h"
#include "record_common.h"

#include "callus/buf.h"
#include "callus/runner.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int quiet, no_record;
static const char *intent_id;

static const cli_option run_options[] = {
	{ CLI_OPT_FLAG, 'q', "quiet", &quiet, NULL, "print nothing of callus's own on stderr" },
	{ CLI_OPT_FLAG, 0, "no-record", &no_record, NULL, "run and pass through, record nothing" },
	{ CLI_OPT_STRING, 0, "intent", &intent_id, "ID",
	  "the task or session id stored as the lesson's intent_id (default: $CALLUS_INTENT_ID)" },
	CLI_END
};

const cli_spec cmd_run_spec = {
	"callus run [options] [--] CMD [ARGS...]",
	"Run a command, pass its output and exit status through, record a lesson if a check fails.",
	"CMD runs with stdin, stdout and stderr passed through byte for byte (through a\n"
	"pseudo-terminal when stdout, or stderr alone, is a terminal, so colours and\n"
	"progress bars survive; it stays in the terminal's session, so /dev/tty, Ctrl-C\n"
	"and Ctrl-Z are the terminal's).  SIGINT, SIGTERM, SIGHUP and SIGQUIT are\n"
	"forwarded to it; SIGPIPE and SIGXFSZ are its defaults, and a descriptor closed\n"
	"for callus is closed for it.  callus exits with CMD's status, or 128+N when\n"
	"CMD was killed by signal N (by the same signal when it dumps no core: a shell\n"
	"loop stops at Ctrl-C), 127 when CMD cannot be found and 126 when it cannot\n"
	"be executed; output that cannot be written where it was sent (a full disk)\n"
	"fails the run.\n\n"
	"When CMD is a verification command (see 'callus help analyze' and docs/config.md)\n"
	"and fails, a lesson is recorded in .callus/callus.db, .lessons/ and AGENTS.md of the\n"
	"workspace (the git top level of the current directory), each of its errors\n"
	"becomes pending with a snapshot of the working tree, and the fixes that worked\n"
	"for the same errors before are printed.  When the check later passes (or fails\n"
	"without that error), it is fixed and the diff since its failure is kept\n"
	"as a resolution ('callus help resolutions').  A store busy past [store]\n"
	"timeout_ms (other recordings, a reindex), or one that cannot take the run now\n"
	"(a full disk, a store that is no database), queues the run in .callus/spool\n"
	"(or, its lesson stored, the learning of its errors), as a hook does, for a\n"
	"drainer in the background; a run whose check has a run still queued waits\n"
	"there behind it.  If recording fails, callus says so once on stderr and in\n"
	".callus/log.jsonl; CMD's result is unchanged.",
	run_options, 1
};

/* What the run taught: on stderr, each line callus's. */
/* b's lines on stderr, each as callus's own. */
static void print_lines(const callus_buf *b)
{
	const char *line, *nl;

	for (line = b->ptr; line && *line; line = nl + 1) {
		if (!(nl = strchr(line, '\n')))
			break;
		/* cli_error says "callus: " itself */
		if (!strncmp(line, "callus: ", 8))
			line += 8;
		cli_error("%.*s", (int)(nl - line), line);
	}
}

/* What the command printed, as far as callus needs it. */
struct watched {
	callus_capture *cap; /* NULL when the command is not a check */
	char last;           /* its last byte, '\n' before any */
};

static int on_output(void *ctx, int stream, const char *data, size_t len)
{
	struct watched *w = ctx;

	if (len)
		w->last = data[len - 1];
	return w->cap ? callus_capture_feed_stream(w->cap, stream, data, len) : 0;
}

/* The command's status, for a signal that comes while its run is being
 * recorded: the recording is given up, and callus leaves with the
 * command's status, not the signal's (the store is left as a crash leaves
 * it: consistent, its views repaired by the next recording). */
static volatile sig_atomic_t command_status;

static void leave_with_status(int sig)
{
	(void)sig;
	_exit(command_status);
}

static void hold_status(int status)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa;

	command_status = status;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = leave_with_status;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;

		/* one ignored from the start stays ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

/*
 * The command was killed by sig: callus leaves the same way when sig ends a
 * process without a core, so that a shell tells it as it would the bare
 * command (bash stops a loop at Ctrl-C only when its child died of SIGINT,
 * not when it exited with 130).  A signal that dumps a core is told as
 * 128+N only: callus has no core to dump.  Returns when sig did not end
 * callus (then the caller exits with 128+N).
 */
static void leave_as_killed(int sig)
{
	static const int no_core[] = { SIGHUP, SIGINT, SIGKILL, SIGPIPE, SIGALRM, SIGTERM,
				     SIGUSR1, SIGUSR2 };
	sigset_t one;

	for (size_t i = 0; i < sizeof(no_core) / sizeof(no_core[0]); i++) {
		if (no_core[i] != sig)
			continue;
		fflush(stdout);
		fflush(stderr);
		signal(sig, SIG_DFL);
		sigemptyset(&one);
		sigaddset(&one, sig);
		sigprocmask(SIG_UNBLOCK, &one, NULL);
		raise(sig);
	}
}

/* callus's lines start on a line of their own, not after the command's
 * last words when they had no newline (and nothing is added when callus
 * has nothing to say). */
static void own_line(const struct watched *w)
{
	cli_error_own_line(w->last != '\n');
}

/* Runs queued behind a store that was busy (a drainer that gave up on
 * it, or none started): once a run of callus has got through, a drainer
 * takes them, as a hook's start would, for a workspace with no hooks.
 * Not looked for when queue_behind's walk found the queue empty (seen 0:
 * most runs). */
static void drain_later(const cli_workspace *ws, long long seen)
{
	if (seen != 0 && cli_spool_pending(ws, NULL))
		cli_spool_drain_later(ws);
}

/* A run of its command a drainer has yet to record: this one goes behind
 * it, with the tree it ran in (a pass would fix nothing of a failure there,
 * and take a pass's fix; a failure recorded first would have that run,
 * drained after it, reopen the errors it no longer shows).  1 queued; 0
 * none queued, or its entry could not be written: it is recorded now.
 * *seen: the newest name the walk of the queue saw (0: none), for
 * drain_later.  rq is left for a queue of the busy store's. */
static int queue_behind(const cli_workspace *ws, const callus_detection *det,
			cli_run_queued *rq, cli_spool_kept *left, callus_metrics *m,
			long long *seen)
{
	int queued = 0, holds = cli_spool_holds(ws, rq->command, CLI_SPOOL_ANY_RUN, &rq->newest);

	*seen = rq->newest;
	if (holds) {
		rq->behind = 1;
		if (rq->cap)
			cli_keep_failure_tree(ws, det, rq->command, rq->code, rq->cap,
					      &left->snapshot);
		else
			cli_keep_tree(ws, det, &left->snapshot);
		queued = cli_queue_run(ws, det, rq, m, quiet) == 0;
		rq->behind = 0;
		cli_spool_kept_release(left);
	}
	/* for a busy store's queue: named as of its end, past an entry only
	 * when that one is named ahead of the clock (hook_spool.h) */
	rq->newest = CLI_SPOOL_UNSEEN;
	return queued;
}

int cmd_run(int argc, char **argv)
{
	callus_runner_opts ropts = CALLUS_RUNNER_OPTS_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_detection det;
	callus_capture cap;
	cli_workspace ws;
	cli_recorded rec;
	callus_metrics *metrics = NULL;
	char *command = NULL, *stored = NULL;
	int first, status = 0, exit_status, have_ws = 0, watch = 0, write_errno = 0;
	int term_signal = 0;
	unsigned closed = cli_started_closed();
	struct timespec started, ended;
	long long ended_ns;
	struct watched out = { NULL, '\n' };

	memset(&det, 0, sizeof(det));
	callus_capture_init(&cap);
	first = cli_parse(argc, argv, &cmd_run_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first >= argc) {
		cli_error("no command to run; usage: callus run [--] CMD [ARGS...]");
		return 2;
	}
	if (!intent_id)
		intent_id = getenv("CALLUS_INTENT_ID");
	if (getenv("CALLUS_QUIET") && *getenv("CALLUS_QUIET"))
		quiet = 1;

	/* Everything before the run is optional: without a workspace, a
	 * config or memory, the command still runs, unrecorded. */
	command = cli_join_argv(argc - first, argv + first);
	/* -q: a workspace callus cannot use is not said either */
	cli_error_hush(quiet);
	if (!no_record && command && cli_workspace_setup(&ws, NULL, 1) == 0) {
		have_ws = 1;
		/* what is stored: the words redacted before they are quoted */
		stored = cli_join_argv_redacted(ws.redactor, argc - first, argv + first);
		if (ws.config_error && !quiet)
			cli_error("ignoring .callus/config: %s", ws.config_error);
		if (callus_detect(&det, ws.whitelist, command, &err) == 0 && det.verification)
			watch = 1;
		callus_error_release(&err);
	}
	cli_error_hush(0);

	/* what the command writes is after this (file times may lag it by a
	 * clock tick: a product written in its first milliseconds can pass
	 * for an edit; an edit made just before never passes for a product) */
	clock_gettime(CLOCK_REALTIME, &started);
	ropts.argv = argv + first;
	out.cap = watch ? &cap : NULL;
	ropts.on_output = on_output;
	ropts.ctx = &out;
	ropts.started_ignored = cli_started_ignored();
	ropts.write_errno = &write_errno;
	ropts.term_signal = &term_signal;
	/* a descriptor closed when callus started is closed for the command */
	if (closed & 1u)
		ropts.in_fd = CALLUS_RUNNER_CLOSED;
	if (closed & 2u)
		ropts.out_fd = CALLUS_RUNNER_CLOSED;
	if (closed & 4u)
		ropts.err_fd = CALLUS_RUNNER_CLOSED;
	if (callus_runner_run(&status, &ropts, &err) < 0) {
		own_line(&out);
		cli_error("%s", callus_error_message(&err));
		status = 127;
		watch = 0;
	} else if (err.msg) {
		/* not found / not executable: the shell's message, the shell's status */
		cli_error("%s", err.msg);
		watch = 0;
	}
	callus_error_release(&err);
	/* What the command wrote was not all written where it was sent (a
	 * full disk, a file size limit): without callus the command would
	 * have met the error and failed; it cannot, having written into
	 * callus's pipe, so its run fails here.  A reader gone (EPIPE) is
	 * the command's to meet: its pipe was closed under it. */
	/* Interrupted (Ctrl-C), or its reader gone (`| head`): the check
	 * did not fail, it was stopped; what it printed so far is no lesson */
	if (term_signal == SIGINT || term_signal == SIGPIPE)
		watch = 0;
	exit_status = status;
	if (write_errno && write_errno != EPIPE) {
		own_line(&out);
		cli_error("the command's output could not all be written: %s",
			  strerror(write_errno));
		if (exit_status == 0)
			exit_status = 1;
	}
	hold_status(exit_status);
	clock_gettime(CLOCK_REALTIME, &ended);
	ended_ns = (long long)ended.tv_sec * 1000000000LL + ended.tv_nsec;

	/* 126/127 from a shell or wrapper: the tool is missing, nothing failed */
	if (watch && status != 0 && status != 126 && status != 127) {
		static const char *const recorded[] = { "true" }, *const dropped[] = { "false" };
		cli_spool_kept left = CLI_SPOOL_KEPT_INIT;
		/* not queued first (the output redacted into the queue at
		 * every failure): queued when the store turns it away, or
		 * when it stores it and then has no time to learn it (under
		 * the name its run is stored with) */
		char *origin = cli_spool_run_origin(ended_ns);
		char *why = NULL;
		cli_queued q = { origin, NULL, NULL, 0, NULL, &left, &why };
		cli_run_queued rq = { stored ? stored : command, status, &cap, intent_id, &left,
				      CLI_SPOOL_UNSEEN, ended_ns, 0, NULL, NULL, 0 };
		long long seen;
		int rc = 1;

		callus_metrics_new(&metrics);
		callus_capture_finish(&cap);
		own_line(&out);
		if (!queue_behind(&ws, &det, &rq, &left, metrics, &seen)) {
			/* counted as recorded in the lesson's own transaction;
			 * when that fails, the drop is counted instead, in the
			 * spool */
			callus_metrics_add(metrics, CALLUS_METRIC_RUN_TOTAL, recorded, 1);
			rc = cli_record_failure(&ws, &det, rq.command, status, &cap, intent_id,
						metrics, 0, &q, &rec);
			/* turned away for now (busy, a full disk): queued */
			if (rc == CALLUS_EBUSY || why) {
				rq.why = why;
				rq.cause = rc;
				rc = cli_queue_run(&ws, &det, &rq, metrics, quiet) < 0 ? -1 : 1;
				cli_recorded_release(&rec);
			}
		}
		free(why);
		cli_spool_kept_release(&left);
		if (rc < 0 && rec.committed) {
			/* its lesson is stored, counted in its transaction */
			cli_flush_metrics(&ws, metrics, NULL, 1);
		} else if (rc < 0) {
			callus_metrics_add(metrics, CALLUS_METRIC_RUN_TOTAL, dropped, 1);
			cli_flush_metrics(&ws, metrics, NULL, 1);
		} else if (rc > 0) {
			cli_flush_metrics(&ws, metrics, NULL, 1);
		} else {
			if (!quiet) {
				callus_buf b = CALLUS_BUF_INIT;

				cli_error("%s lesson %lld (%s%s%s, seen %lld time%s): callus lessons show %lld",
					  rec.is_new ? "recorded" : "updated", (long long)rec.id,
					  det.tool, rec.file && *rec.file ? " in " : "",
					  rec.file ? rec.file : "", (long long)rec.occurrences,
					  rec.occurrences == 1 ? "" : "s", (long long)rec.id);
				cli_describe_failure(&b, det.tool, &rec,
						     cli_context_budget(&ws, -1));
				print_lines(&b);
				callus_buf_release(&b);
			}
			if (rec.learnt.nnew)
				cli_embed_later(&ws);
			/* an entry written starts a drainer */
			if (rec.learn_owed)
				rq.owed = origin;
			if (!rq.owed || cli_queue_run(&ws, &det, &rq, metrics, quiet) < 0)
				drain_later(&ws, seen);
			cli_recorded_release(&rec);
		}
		free(origin);
	} else if (watch && status == 0) {
		callus_learn_result learnt;

		callus_store *store = NULL;

		cli_spool_kept left = CLI_SPOOL_KEPT_INIT;
		char *why = NULL;
		cli_queued q = { NULL, NULL, NULL, 0, NULL, &left, &why };
		cli_run_queued rq = { stored ? stored : command, 0, NULL, intent_id, &left,
				      CLI_SPOOL_UNSEEN, ended_ns, 0, NULL, NULL, 0 };
		long long seen;
		int rc = 1;

		callus_metrics_new(&metrics);
		own_line(&out);
		memset(&learnt, 0, sizeof(learnt));
		if (!queue_behind(&ws, &det, &rq, &left, metrics, &seen))
			rc = cli_record_pass(&ws, &det, rq.command, intent_id,
					     (long long)started.tv_sec * 1000000000LL +
						     started.tv_nsec,
					     metrics, &learnt, &store, &q);
		if (rc == 0 && !quiet) {
			callus_buf b = CALLUS_BUF_INIT;

			cli_describe_pass(&b, store, det.tool, &learnt);
			print_lines(&b);
			callus_buf_release(&b);
		}
		if (rc == 0)
			drain_later(&ws, seen);
		else if (rc == CALLUS_EBUSY || why) {
			/* the tree it passed with, for the fixes it could not
			 * make yet (one that found them keeps those) */
			if (!left.fixes.count)
				cli_keep_tree(&ws, &det, &left.snapshot);
			rq.why = why;
			rq.cause = rc;
			(void)cli_queue_run(&ws, &det, &rq, metrics, quiet);
		}
		free(why);
		cli_spool_kept_release(&left);
		if (store) {
			if (metrics && !callus_metrics_is_empty(metrics))
				cli_flush_metrics(&ws, metrics, store, 0);
			callus_store_close(store);
		} else if (metrics && !callus_metrics_is_empty(metrics)) {
			/* a pass the store had nothing to learn from
			 * (checkindex.h): its metrics wait in the spool */
			cli_flush_metrics(&ws, metrics, NULL, 1);
		}
		callus_learn_result_release(&learnt);
	}
	callus_metrics_free(metrics);
	callus_detection_release(&det);
	callus_capture_release(&cap);
	if (have_ws)
		cli_workspace_release(&ws);
	free(command);
	free(stored);
	if (term_signal && exit_status == status)
		leave_as_killed(term_signal);
	return exit_status;
}
