#include "callus/log.h"
#include "callus/workspace.h"
#include "callus/buf.h"
#include "callus/config.h"
#include "callus/fsutil.h"
#include "callus/lesson.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A log far past the rotation's size was not written by callus: left. */
#define REDACT_MAX_BYTES (64u * 1024 * 1024)

/* Under this a log is never rotated, whatever its limit: its config is
 * read only past it. */
#define ALWAYS_KEPT ((off_t)CALLUS_LOG_MIN_KB * 1024)

size_t callus_log_limit_config(const callus_config *c, callus_error *err)
{
	long kb = CALLUS_LOG_DEFAULT_KB;

	if (c && callus_config_get_long(&kb, c, "retention", "log_kb", CALLUS_LOG_DEFAULT_KB,
					CALLUS_LOG_MIN_KB, CALLUS_LOG_MAX_KB, err) < 0)
		kb = CALLUS_LOG_DEFAULT_KB;
	return (size_t)kb * 1024;
}

size_t callus_log_limit(const char *callus_dir)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	callus_config *c = NULL;
	size_t limit;

	/* a file or a value that cannot be read keeps the default: the CLI
	 * says why (cli_gc_policy), the log must go on either way */
	if (callus_buf_printf(&path, "%s/config", callus_dir) < 0 ||
	    callus_fs_read_file(&text, path.ptr, CALLUS_CONFIG_MAX_BYTES, NULL) < 0 ||
	    callus_config_parse(&c, text.ptr, text.len, NULL, NULL) < 0)
		c = NULL;
	limit = callus_log_limit_config(c, NULL);
	callus_config_free(c);
	callus_buf_release(&path);
	callus_buf_release(&text);
	return limit;
}

/* The file at path, when larger than what a rotation leaves (twice
 * limit: the log's size and a line, or a few lines more when processes
 * rotated together; past it, the file holds what callus did not write at
 * that size: an older callus's log, another program's lines, a log kept
 * under a larger limit), written anew with its last limit bytes from the
 * start of a line (never through a link).  A line a process appends to it
 * meanwhile is lost: a few lines of an already rotated log, once. */
static void keep_tail(const char *path, size_t limit)
{
	callus_buf tail = CALLUS_BUF_INIT;
	struct stat st;
	const char *nl;
	size_t got = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size <= 2 * (off_t)limit || callus_buf_grow(&tail, limit) < 0)
		goto out;
	while (got < limit &&
	       (n = pread(fd, tail.ptr + got, limit - got,
			  st.st_size - (off_t)limit + (off_t)got)) > 0)
		got += (size_t)n;
	if (got == limit && (nl = memchr(tail.ptr, '\n', got)))
		(void)callus_fs_write_atomic(path, nl + 1, got - (size_t)(nl + 1 - tail.ptr), 0600,
					     0, NULL);
out:
	if (fd >= 0)
		close(fd);
	callus_buf_release(&tail);
}

/* log.jsonl past limit (0: callus_dir's) renamed to log.jsonl.1, which
 * is then cut by keep_tail. */
static void rotate(const char *callus_dir, size_t limit, const char *path, const char *old)
{
	struct stat st;

	if (stat(path, &st) < 0 || st.st_size <= ALWAYS_KEPT)
		return;
	if (!limit)
		limit = callus_log_limit(callus_dir);
	/* Two processes may both see the file too big and both rename: the
	 * second rename moves a fresh, short log over the first one's .1,
	 * which loses at most a few lines of an already rotated log. */
	if (st.st_size > (off_t)limit && rename(path, old) == 0)
		keep_tail(old, limit);
}

void callus_log_trim(const char *callus_dir)
{
	callus_buf path = CALLUS_BUF_INIT, old = CALLUS_BUF_INIT;

	if (callus_workspace_guard_dir(callus_dir, NULL) == 0 &&
	    callus_buf_printf(&path, "%s/log.jsonl", callus_dir) == 0 &&
	    callus_buf_printf(&old, "%s/log.jsonl.1", callus_dir) == 0) {
		size_t limit = callus_log_limit(callus_dir);

		rotate(callus_dir, limit, path.ptr, old.ptr);
		keep_tail(old.ptr, limit);
	}
	callus_buf_release(&path);
	callus_buf_release(&old);
}

#define UNREDACTED "(not logged: it could not be redacted)"

/* value redacted by r into o's key */
static void set_redacted(json_t *o, const char *key, const callus_redactor *r, const char *value)
{
	char *red = NULL;

	if (r && callus_redact_str(r, &red, value ? value : "") == 0 && red)
		json_object_set_new(o, key, json_string(red));
	else
		json_object_set_new(o, key, json_string(UNREDACTED));
	free(red);
}

int callus_log_event(const char *callus_dir, const char *level, const char *event,
		   const char *message, const char *const *extra)
{
	return callus_log_event_with(NULL, callus_dir, level, event, message, extra);
}

char *callus_log_line(const callus_redactor *r, const char *at, const char *level,
		      const char *event, const char *message, const char *const *extra)
{
	callus_redactor *own = NULL;
	json_t *o = json_object();
	char *line = NULL;

	if (!o)
		return NULL;
	if (!r && callus_redactor_new(&own, NULL) == 0)
		r = own;
	json_object_set_new(o, "at", json_string(at));
	json_object_set_new(o, "level", json_string(level));
	json_object_set_new(o, "event", json_string(event));
	set_redacted(o, "message", r, message);
	for (size_t i = 0; extra && extra[i] && extra[i + 1]; i += 2)
		set_redacted(o, extra[i], r, extra[i + 1]);
	line = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	callus_redactor_free(own);
	json_decref(o);
	return line;
}

int callus_log_event_with(const callus_redactor *r, const char *callus_dir, const char *level,
			  const char *event, const char *message, const char *const *extra)
{
	return callus_log_event_limit(r, callus_dir, 0, level, event, message, extra);
}

int callus_log_event_limit(const callus_redactor *r, const char *callus_dir, size_t limit,
			   const char *level, const char *event, const char *message,
			   const char *const *extra)
{
	callus_buf path = CALLUS_BUF_INIT, old = CALLUS_BUF_INIT;
	char *line = NULL, *now = callus_now_iso8601();
	int fd = -1, rc = -1;

	/* the log is written in the workspace or nowhere: asked before the
	 * line is made */
	if (!now || callus_workspace_guard_dir(callus_dir, NULL) < 0)
		goto out;
	line = callus_log_line(r, now, level, event, message, extra);
	callus_buf_printf(&path, "%s/log.jsonl", callus_dir);
	callus_buf_printf(&old, "%s/log.jsonl.1", callus_dir);
	if (!line || callus_buf_status(&path) < 0 || callus_buf_status(&old) < 0)
		goto out;
	rotate(callus_dir, limit, path.ptr, old.ptr);
	/* a FIFO, or a file linked from elsewhere, is not written (fsutil.h) */
	fd = callus_fs_open_own(path.ptr, O_RDWR | O_APPEND | O_CREAT, 0600);
	if (fd < 0)
		goto out;
	rc = callus_fs_append_line(fd, line) == 0 ? 0 : -1;
out:
	if (fd >= 0)
		close(fd);
	free(line);
	free(now);
	callus_buf_release(&path);
	callus_buf_release(&old);
	return rc;
}

/* One line (no newline) appended to out, redacted; *changed counts it
 * when it was not already what r makes of it. */
static int redact_line(const callus_redactor *r, const char *line, size_t len, callus_buf *out,
		       size_t *changed)
{
	char *text = strndup(line, len), *red = NULL;
	int rc = text ? callus_redact_again(r, text, 1, JSON_ENSURE_ASCII, &red) : CALLUS_ENOMEM;

	if (rc == 0)
		rc = red ? callus_buf_puts(out, red) : callus_buf_put(out, line, len);
	if (rc == 0 && red)
		(*changed)++;
	free(text);
	free(red);
	return rc;
}

/* What fd holds from *at on, its lines redacted onto out, and *at moved
 * past them.  A last line with no newline (a crash cut it: a line is one
 * write(2)) is kept as it is, redacted. */
static int redact_from(const callus_redactor *r, int fd, off_t *at, callus_buf *out,
		       size_t *changed)
{
	callus_buf raw = CALLUS_BUF_INIT;
	size_t done = 0, got;
	int rc;

	/* the ceiling is the buffer's: a log past it fails CALLUS_ETOOBIG */
	callus_buf_init(&raw, REDACT_MAX_BYTES);
	if (lseek(fd, *at, SEEK_SET) < 0) {
		rc = CALLUS_EIO;
		goto out;
	}
	while ((rc = callus_buf_read(&raw, fd, 65536, &got)) == 0 && got)
		;
	if (rc < 0)
		goto out;
	while (done < raw.len) {
		const char *nl = memchr(raw.ptr + done, '\n', raw.len - done);
		size_t end = nl ? (size_t)(nl - raw.ptr) : raw.len;

		if ((rc = redact_line(r, raw.ptr + done, end - done, out, changed)) < 0 ||
		    (nl && (rc = callus_buf_putc(out, '\n')) < 0))
			goto out;
		done = nl ? end + 1 : end;
	}
	*at += (off_t)done;
out:
	callus_buf_release(&raw);
	return rc;
}

static int redact_file(const callus_redactor *r, const char *path, size_t *lines)
{
	callus_buf out = CALLUS_BUF_INIT;
	struct stat st, now;
	off_t at = 0;
	size_t changed = 0;
	int fd, rc = 0, tail;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)) < 0)
		return errno == ENOENT || errno == ELOOP ? 0 : -1; /* a link: not callus's */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (rc = redact_from(r, fd, &at, &out, &changed)) < 0)
		goto fail;
	if (!changed)
		goto out;
	/* what came while it was read, then the file rotated away from
	 * under it: the rotated file is the next one done, and a copy put
	 * back here would log its lines twice */
	if ((rc = redact_from(r, fd, &at, &out, &changed)) < 0 || stat(path, &now) < 0)
		goto fail;
	if (now.st_ino != st.st_ino || now.st_dev != st.st_dev)
		goto out;
	if (callus_fs_write_atomic(path, out.ptr, out.len, 0600, 0, NULL) < 0)
		goto fail;
	/* a line its writer had opened the old file for */
	callus_buf_clear(&out);
	if (redact_from(r, fd, &at, &out, &changed) == 0 && out.len &&
	    (tail = callus_fs_open_own(path, O_WRONLY | O_APPEND, 0)) >= 0) {
		(void)callus_fs_write_all(tail, out.ptr, out.len);
		close(tail);
	}
	*lines += changed;
	goto out;
fail:
	rc = -1;
out:
	close(fd);
	callus_buf_release(&out);
	return rc;
}

int callus_log_redact(const callus_redactor *r, const char *callus_dir, size_t *lines)
{
	static const char *const names[] = { "log.jsonl", "log.jsonl.1" };
	callus_buf path = CALLUS_BUF_INIT;
	size_t own = 0;
	int rc = 0;

	if (!lines)
		lines = &own;
	*lines = 0;
	if (!r || callus_workspace_guard_dir(callus_dir, NULL) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		callus_buf_clear(&path);
		if (callus_buf_printf(&path, "%s/%s", callus_dir, names[i]) < 0 ||
		    redact_file(r, path.ptr, lines) < 0)
			rc = -1;
	}
	callus_buf_release(&path);
	return rc;
}
