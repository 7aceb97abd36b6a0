#include "callus/log.h"
#include "callus/workspace.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/lesson.h"

#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int callus_log_event_with(const callus_redactor *r, const char *callus_dir, const char *level,
			  const char *event, const char *message, const char *const *extra)
{
	callus_buf path = CALLUS_BUF_INIT, old = CALLUS_BUF_INIT;
	callus_redactor *own = NULL;
	json_t *o = json_object();
	char *line = NULL, *now = callus_now_iso8601();
	struct stat st;
	int fd = -1, rc = -1;

	/* the log is written in the workspace or nowhere: asked before the
	 * line is made */
	if (!o || !now || callus_workspace_guard_dir(callus_dir, NULL) < 0)
		goto out;
	if (!r && callus_redactor_new(&own, NULL) == 0)
		r = own;
	json_object_set_new(o, "at", json_string(now));
	json_object_set_new(o, "level", json_string(level));
	json_object_set_new(o, "event", json_string(event));
	set_redacted(o, "message", r, message);
	for (size_t i = 0; extra && extra[i] && extra[i + 1]; i += 2)
		set_redacted(o, extra[i], r, extra[i + 1]);
	line = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);
	callus_buf_printf(&path, "%s/log.jsonl", callus_dir);
	callus_buf_printf(&old, "%s/log.jsonl.1", callus_dir);
	if (!line || callus_buf_status(&path) < 0 || callus_buf_status(&old) < 0)
		goto out;
	/* Two processes may both see the file too big and both rename: the
	 * second rename moves a fresh, short log over the first one's .1,
	 * which loses at most a few lines of an already rotated log. */
	if (stat(path.ptr, &st) == 0 && st.st_size > CALLUS_LOG_MAX_BYTES)
		rename(path.ptr, old.ptr);
	fd = open(path.ptr, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		goto out;
	rc = callus_fs_append_line(fd, line) == 0 ? 0 : -1;
out:
	if (fd >= 0)
		close(fd);
	callus_redactor_free(own);
	free(line);
	free(now);
	json_decref(o);
	callus_buf_release(&path);
	callus_buf_release(&old);
	return rc;
}
