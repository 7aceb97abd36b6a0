/*
 * hook_cut.c - the trace of a hook cut with nothing queued (hook_cut.h).
 */
#include "hook_cut.h"
#include "callus/lesson.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/log.h"
#include "callus/metrics.h"
#include "callus/workspace.h"

#define CUT_STAGE "unqueued"
#define CUT_MESSAGE                                                                          \
	"a hook was cut by its deadline with nothing queued (its queue could not be "         \
	"written): what it had not stored is lost"

/* The log line as callus_log_event writes it, dated by a placeholder of
 * the date's length that the handler overwrites (at CUT_AT_OFFSET: the
 * line's first field), and a newline. */
#define CUT_AT_PLACEHOLDER "0000-00-00T00:00:00.000Z"
_Static_assert(sizeof(CUT_AT_PLACEHOLDER) - 1 == CALLUS_TIME_ISO8601_LEN,
	       "the placeholder is as long as the date written over it");
#define CUT_AT_OFFSET 7 /* {"at":" */

static int render_log(char *out, size_t cap, const callus_redactor *r)
{
	const char *const extra[] = { "stage", CUT_STAGE, NULL };
	char *line = callus_log_line(r, CUT_AT_PLACEHOLDER, "warn", "hook_cut", CUT_MESSAGE, extra);
	int rc = -1;

	if (line && strlen(line) + 2 <= cap &&
	    !strncmp(line + CUT_AT_OFFSET, CUT_AT_PLACEHOLDER, strlen(CUT_AT_PLACEHOLDER))) {
		snprintf(out, cap, "%s\n", line);
		rc = 0;
	}
	free(line);
	return rc;
}

static int render_metric(char *out, size_t cap)
{
	const char *const labels[] = { CUT_STAGE };
	callus_metrics *m = NULL;
	char *line = NULL;
	int rc = -1;

	if (callus_metrics_new(&m) < 0 ||
	    callus_metrics_add(m, CALLUS_METRIC_HOOK_CUT, labels, 1) < 0 ||
	    !(line = callus_metrics_spool_line(m)) || strlen(line) + 2 > cap)
		goto out;
	snprintf(out, cap, "%s\n", line);
	rc = 0;
out:
	free(line);
	callus_metrics_free(m);
	return rc;
}

int cli_cut_trace_prepare(cli_cut_trace *t, const cli_workspace *ws)
{
	callus_buf dir = CALLUS_BUF_INIT;
	int rc = -1;

	t->dir = -1;
	if (!ws || !ws->root || callus_buf_printf(&dir, "%s/.callus", ws->root) < 0)
		goto out;
	/* written in the workspace or nowhere, as the log and the spool are:
	 * asked now, since the handler can ask nothing, and the folder kept
	 * open from here, so that the answer stays true */
	if (callus_workspace_guard_dir(dir.ptr, NULL) < 0 ||
	    render_log(t->log, sizeof(t->log), ws->redactor) < 0 ||
	    render_metric(t->metric, sizeof(t->metric)) < 0 ||
	    (t->dir = open(dir.ptr, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		goto out;
	t->log_max = 2 * (off_t)callus_log_limit_config(ws->config, NULL);
	rc = 0;
out:
	if (rc < 0)
		cli_cut_trace_release(t);
	callus_buf_release(&dir);
	return rc;
}

void cli_cut_trace_release(cli_cut_trace *t)
{
	if (t->dir >= 0)
		close(t->dir);
	t->dir = -1;
	t->log[0] = t->metric[0] = '\0';
}

/* len bytes of buf appended whole to dir's file name, or not at all when the file
 * will not take them (O_APPEND: one write, one place) or holds max bytes
 * already */
static void append(int dir, const char *name, const char *buf, size_t len, int lock, off_t max)
{
	int fd = openat(dir, name, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	struct stat st;

	if (fd < 0)
		return;
	/* the spool's takers empty it under its lock: a line written between
	 * their read and their emptying would be lost.  A lock held now is
	 * not waited for: the handler has the hook's reply to write */
	if (lock && flock(fd, LOCK_EX | LOCK_NB) < 0)
		goto out;
	if (fstat(fd, &st) < 0 || st.st_size > max)
		goto out;
	if (write(fd, buf, len) < 0) {
		/* best effort: nothing more to do in a handler */
	}
out:
	close(fd);
}

void cli_cut_trace_write(const cli_cut_trace *t)
{
	char line[CLI_CUT_LINE_MAX];
	struct timespec now;
	size_t n;
	int saved = errno;

	if (t->dir < 0)
		return;
	n = strlen(t->log);
	memcpy(line, t->log, n);
	if (clock_gettime(CLOCK_REALTIME, &now) == 0 && now.tv_sec >= 0)
		callus_time_iso8601_put(line + CUT_AT_OFFSET, now.tv_sec, now.tv_nsec);
	/* a handler cannot rotate the log (callus_log_event does, at its
	 * next line): hooks cut one after another with nothing else logged
	 * stop at the most a rotated log holds, their count still spooled */
	append(t->dir, "log.jsonl", line, n, 0, t->log_max);
	append(t->dir, CALLUS_METRICS_SPOOL, t->metric, strlen(t->metric), 1,
	       CALLUS_METRICS_SPOOL_MAX);
	errno = saved;
}
