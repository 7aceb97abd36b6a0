/*
 * hook_cut.h - what a hook cut by its deadline leaves when nothing of it
 * was queued.
 *
 * A cut hook hands what it was doing to a drainer through its spool entry,
 * and the drainer logs the cut and counts it (callus.hook.cut_total).  When
 * the entry could not be written (a full disk, a .callus/spool that is not
 * a directory), the hook goes on without one; cut then, what it had not
 * stored is lost, and the cut was said nowhere.  This is the trace such a
 * cut leaves: a hook_cut line in .callus/log.jsonl and the count in the
 * metrics' spool (metrics.h), stage "unqueued".  Rendered beforehand, in the
 * hook's own flow; written by its signal handler with async-signal-safe
 * calls only, into the fixed arrays below (no allocation is safe there).
 */
#ifndef CALLUS_CLI_HOOK_CUT_H
#define CALLUS_CLI_HOOK_CUT_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "cli.h"

#define CLI_CUT_LINE_MAX 512

typedef struct cli_cut_trace {
	int dir;                        /* .callus/, open while the trace may be
					 * written (-1: none): the files are
					 * opened in it, so that a .callus
					 * replaced by a link since it was
					 * checked leads nowhere else */
	char log[CLI_CUT_LINE_MAX];     /* the log line, with its newline */
	char metric[CLI_CUT_LINE_MAX];  /* the spool's line, with its newline */
	off_t log_max;                  /* the most a rotated log holds
					 * (callus_log_limit, twice): read
					 * now, the handler can read no
					 * config */
} cli_cut_trace;

#define CLI_CUT_TRACE_INIT { -1, { 0 }, { 0 }, 0 }

/* Render t (CLI_CUT_TRACE_INIT, or released) for a cut of ws's hook.  0,
 * or -1 (t unusable: a line too long, no memory, a .callus/ that leads out
 * of the workspace or cannot be opened). */
int cli_cut_trace_prepare(cli_cut_trace *t, const cli_workspace *ws);

/* Close what prepare opened; t is unusable until prepared again. */
void cli_cut_trace_release(cli_cut_trace *t);

/* Append t's log line, dated now, and its count to the spool (taken by
 * the next command that writes the store).  Async-signal-safe; best
 * effort (a spool another process holds, or past its size, is left). */
void cli_cut_trace_write(const cli_cut_trace *t);

#endif
