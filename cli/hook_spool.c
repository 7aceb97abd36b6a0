#include "hook_spool.h"

#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/log.h"
#include "callus/redact.h"
#include "callus/strlist.h"
#include "callus/workspace.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SPOOL_DIR ".callus/spool"
#define SPOOL_ENTRY_MAX (64u << 20)
/* An entry older than this is an orphan whatever its pid says (pids are
 * reused); a hook lives 5 s at most. */
#define SPOOL_ORPHAN_S 60
/* The background drainer waits this long for recording hooks to finish or
 * leave their entries. */
#define SPOOL_IDLE_MS 15000

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Entries are named NS-PID.json: sorted by name, oldest first. */
void cli_spool_put(char **path, const cli_workspace *ws, const callus_hook_event *e, int code)
{
	callus_buf dir = CALLUS_BUF_INIT, tmp = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	char *cmd = NULL, *output = NULL, *text = NULL;
	json_t *o = NULL;
	int fd = -1;

	*path = NULL;
	if (!ws->redactor || callus_redact_str(ws->redactor, &cmd, e->command) < 0 ||
	    callus_redact_str(ws->redactor, &output, e->output ? e->output : "") < 0)
		goto out;
	o = json_pack("{s:s, s:i, s:s, s:s?, s:s?}", "command", cmd ? cmd : "", "exit_code", code,
		      "output", output ? output : "", "cwd", e->cwd, "session_id", e->session_id);
	if (!o || !(text = json_dumps(o, JSON_COMPACT)))
		goto out;
	callus_buf_printf(&dir, "%s/" SPOOL_DIR, ws->root);
	callus_buf_printf(&out, "%s/%019lld-%ld.json", dir.ptr, now_ns(), (long)getpid());
	callus_buf_printf(&tmp, "%s.tmp", out.ptr);
	if (callus_buf_status(&dir) < 0 || callus_buf_status(&out) < 0 ||
	    callus_buf_status(&tmp) < 0 ||
	    callus_workspace_guard(NULL, ws->root, SPOOL_DIR, 0, NULL) < 0 ||
	    (mkdir(dir.ptr, 0700) < 0 && errno != EEXIST))
		goto out;
	/* no fsync: the spool is for processes cut short, not for power
	 * failures, and a thousand hooks must not queue on the disk */
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto out;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0) {
		fd = -1;
		unlink(tmp.ptr);
		goto out;
	}
	fd = -1;
	if (rename(tmp.ptr, out.ptr) < 0) {
		unlink(tmp.ptr);
		goto out;
	}
	*path = callus_buf_detach(&out);
out:
	if (fd >= 0) {
		close(fd);
		unlink(tmp.ptr);
	}
	json_decref(o);
	free(text);
	free(cmd);
	free(output);
	callus_buf_release(&dir);
	callus_buf_release(&tmp);
	callus_buf_release(&out);
}

void cli_spool_done(char *path)
{
	if (path)
		unlink(path);
	free(path);
}

/* Whether the entry called name, made at mtime, belongs to a process gone. */
static int orphan(const char *name, time_t mtime, time_t now)
{
	const char *dash = strchr(name, '-');
	long pid = dash ? strtol(dash + 1, NULL, 10) : 0;

	if (now - mtime > SPOOL_ORPHAN_S || pid <= 0)
		return 1;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The orphan entries, full paths, oldest first; *live (may be NULL)
 * counts the entries of processes still recording. */
static int orphans(const cli_workspace *ws, callus_strlist *out, size_t *live)
{
	callus_buf dir = CALLUS_BUF_INIT, p = CALLUS_BUF_INIT;
	time_t now = time(NULL);
	struct dirent *d;
	DIR *dh;
	int rc = 0;

	if (live)
		*live = 0;
	if (callus_buf_printf(&dir, "%s/" SPOOL_DIR, ws->root) < 0 || !(dh = opendir(dir.ptr))) {
		callus_buf_release(&dir);
		return 0;
	}
	while ((d = readdir(dh))) {
		size_t len = strlen(d->d_name);
		struct stat st;

		if (d->d_name[0] == '.' || len < 6 || strcmp(d->d_name + len - 5, ".json"))
			continue;
		callus_buf_clear(&p);
		if ((rc = callus_buf_printf(&p, "%s/%s", dir.ptr, d->d_name)) < 0)
			break;
		if (lstat(p.ptr, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (!orphan(d->d_name, st.st_mtime, now)) {
			if (live)
				++*live;
		} else if ((rc = callus_strlist_add(out, p.ptr, p.len)) < 0) {
			break;
		}
	}
	closedir(dh);
	if (out->count > 1)
		qsort(out->items, out->count, sizeof(*out->items), by_name);
	callus_buf_release(&dir);
	callus_buf_release(&p);
	return rc;
}

int cli_spool_pending(const cli_workspace *ws)
{
	callus_strlist l = CALLUS_STRLIST_INIT;
	int yes = orphans(ws, &l, NULL) == 0 && l.count > 0;

	callus_strlist_release(&l);
	return yes;
}

static void forget(void *path)
{
	unlink(path);
}

/* Record the entry at path with fn; 1 recorded (or unreadable: dropped,
 * logged), 0 left for later. */
static int replay(const cli_workspace *ws, const char *path, cli_spool_record_fn fn)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_hook_event ev = CALLUS_HOOK_EVENT_INIT;
	callus_buf text = CALLUS_BUF_INIT, dir = CALLUS_BUF_INIT;
	json_t *o = NULL;
	int done = 0, code = 1;

	callus_buf_printf(&dir, "%s/.callus", ws->root);
	if (callus_fs_read_file(&text, path, SPOOL_ENTRY_MAX, &err) < 0 ||
	    callus_hook_event_parse(&ev, CALLUS_AGENT_GENERIC, text.ptr, text.len, &err) < 0 ||
	    !ev.command) {
		const char *const extra[] = { "entry", path, NULL };

		/* a torn entry (a full disk) is not worth a retry forever */
		callus_log_event(dir.ptr, "warn", "spool_unreadable", callus_error_message(&err),
				 extra);
		unlink(path);
		done = 1;
		goto out;
	}
	if ((o = json_loadb(text.ptr, text.len, 0, NULL)))
		code = (int)json_integer_value(json_object_get(o, "exit_code"));
	if (fn(ws, &ev, code > 0 ? code : 1, forget, (void *)path) == 0) {
		unlink(path);
		done = 1;
	}
out:
	json_decref(o);
	callus_hook_event_release(&ev);
	callus_buf_release(&text);
	callus_buf_release(&dir);
	callus_error_release(&err);
	return done;
}

int cli_spool_drain(const cli_workspace *ws, long budget_ms, cli_spool_record_fn fn)
{
	callus_strlist l = CALLUS_STRLIST_INIT;
	callus_buf lock = CALLUS_BUF_INIT, dir = CALLUS_BUF_INIT;
	long long start = now_ns(), idle_since = start;
	size_t live = 0;
	int fd = -1, n = 0;

	if (orphans(ws, &l, &live) < 0 || (!l.count && !(budget_ms == 0 && live)))
		goto out;
	callus_buf_printf(&lock, "%s/" SPOOL_DIR "/.drain.lock", ws->root);
	if (callus_buf_status(&lock) < 0 ||
	    (fd = open(lock.ptr, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) < 0)
		goto out;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		n = -1;
		goto out;
	}
	for (;;) {
		int before = n;

		for (size_t i = 0; i < l.count; i++) {
			if (budget_ms > 0 && (now_ns() - start) / 1000000 > budget_ms)
				goto done;
			/* another drainer that came before may have done it */
			if (access(l.items[i], F_OK) == 0 && replay(ws, l.items[i], fn))
				n++;
		}
		if (budget_ms > 0)
			break;
		/* the background drainer stays while hooks still record: what
		 * they leave behind is its to do, and nobody else may come */
		if (n > before)
			idle_since = now_ns();
		else if (!live || (now_ns() - idle_since) / 1000000 > SPOOL_IDLE_MS)
			break;
		else
			usleep(100 * 1000);
		callus_strlist_release(&l);
		if (orphans(ws, &l, &live) < 0)
			break;
	}
done:
	if (n > 0) {
		char count[32];
		const char *const extra[] = { "count", count, NULL };

		snprintf(count, sizeof(count), "%d", n);
		callus_buf_printf(&dir, "%s/.callus", ws->root);
		if (callus_buf_status(&dir) == 0)
			callus_log_event(dir.ptr, "info", "spool_drained",
					 "recorded failures that hooks had queued (deadline or "
					 "busy store)",
					 extra);
	}
out:
	if (fd >= 0)
		close(fd);
	callus_strlist_release(&l);
	callus_buf_release(&lock);
	callus_buf_release(&dir);
	return n;
}

void cli_spool_drain_later(const cli_workspace *ws)
{
	char *self;
	pid_t pid;

	if (!(self = realpath("/proc/self/exe", NULL)))
		return;
	/* twice forked: the drainer is nobody's child to wait for */
	pid = fork();
	if (pid == 0) {
		int fd;

		if (fork() != 0)
			_exit(0);
		setsid();
		if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (chdir(ws->root) == 0)
			execl(self, "callus", "hook", "--drain", "generic", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(self);
}
