/*
 * hook_health.c - the hook's note of whether it understood its payloads
 * (see hook_health.h).  One line, "UNIXTIME VERDICT DETAIL", replaced by
 * rename so that a reader never sees half of one; not fsync'd: a note lost
 * in a crash is only a note.
 */
#include "hook_health.h"

#include "callus/utf8.h"
#include "callus/cleantext.h"
#include "callus/buf.h"
#include "callus/fsutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int note_path(callus_buf *b, const char *root, const char *agent)
{
	callus_buf_printf(b, "%s/.callus/hook-%s.last", root, agent);
	return callus_buf_status(b);
}

/*
 * Whether the note already says this, written less than REFRESH_S ago.  A
 * burst of checks would otherwise make and rename a file apiece, and a new
 * file is a new inode: the one file a passing check made.  `callus doctor`
 * shows the note's time to the minute, which this keeps true.
 */
#define REFRESH_S 60

static int unchanged(const char *root, const char *agent, const char *verdict, const char *detail,
		     size_t n, time_t now)
{
	cli_hook_health h;

	return cli_hook_health_read(root, agent, &h) && h.at <= now && now - h.at < REFRESH_S &&
	       !strcmp(h.verdict, verdict) && strlen(h.detail) == n && !memcmp(h.detail, detail, n);
}

void cli_hook_health_note(const char *root, const char *agent, const char *verdict,
			  const char *detail)
{
	callus_buf path = CALLUS_BUF_INIT, tmp = CALLUS_BUF_INIT, line = CALLUS_BUF_INIT;
	struct stat st;
	time_t now = time(NULL);
	size_t n = 0;
	int fd = -1, git;

	if (!root || !agent)
		return;
	callus_buf_printf(&path, "%s/.git", root);
	git = callus_buf_status(&path) == 0 && lstat(path.ptr, &st) == 0;
	callus_buf_clear(&path);
	callus_buf_printf(&path, "%s/.callus", root);
	if (callus_buf_status(&path) < 0)
		goto out;
	/* A payload not understood is worth a .callus/ of its own (nothing else
	 * would make one: nothing is recorded), but only at the top of a git
	 * repository, never in whatever directory an agent happened to be. */
	if (git && strcmp(verdict, CLI_HEALTH_OK) != 0 && strcmp(verdict, CLI_HEALTH_GUESSED) != 0)
		mkdir(path.ptr, 0755);
	/* never follow a link out of the workspace for a note */
	if (lstat(path.ptr, &st) < 0 || !S_ISDIR(st.st_mode))
		goto out;
	callus_buf_clear(&path);
	if (note_path(&path, root, agent) < 0)
		goto out;
	while (detail && detail[n] && detail[n] != '\n' && n < 200)
		n++;
	if (unchanged(root, agent, verdict, detail ? detail : "", n, now))
		goto out;
	callus_buf_printf(&tmp, "%s.%ld.tmp", path.ptr, (long)getpid());
	callus_buf_printf(&line, "%lld %s %.*s\n", (long long)now, verdict, (int)n,
			detail ? detail : "");
	if (callus_buf_status(&tmp) < 0 || callus_buf_status(&line) < 0)
		goto out;
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		goto out;
	if (write(fd, line.ptr, line.len) != (ssize_t)line.len || close(fd) < 0 ||
	    rename(tmp.ptr, path.ptr) < 0)
		unlink(tmp.ptr);
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	callus_buf_release(&path);
	callus_buf_release(&tmp);
	callus_buf_release(&line);
}

int cli_hook_health_read(const char *root, const char *agent, cli_hook_health *out)
{
	static const char space[] = " \t\n\v\f\r";
	callus_buf path = CALLUS_BUF_INIT;
	char line[512], *end;
	const char *v;
	long long at;
	ssize_t got;
	size_t len;
	int fd = -1, n = 0, found = 0;

	memset(out, 0, sizeof(*out));
	/* one of callus's own files (fsutil.h: a FIFO put there is refused at
	 * once, not waited on), read with read(2): the hook that opens no
	 * store maps no stdio stream and no scanf for it (the code it runs lies
	 * in few pages: cli/text-order.ld) */
	if (note_path(&path, root, agent) < 0 ||
	    (fd = callus_fs_open_own(path.ptr, O_RDONLY, 0)) < 0 ||
	    (got = read(fd, line, sizeof(line) - 1)) <= 0)
		goto out;
	line[got] = '\0';
	line[strcspn(line, "\n")] = '\0';
	/* UNIXTIME VERDICT DETAIL, the verdict cut at 15 bytes, as sscanf's
	 * "%lld %15s %n" read it; a time past long long's range, which no
	 * note of ours holds, is no note (sscanf took it as LLONG_MAX) */
	errno = 0;
	at = strtoll(line, &end, 10);
	if (end == line || errno)
		goto out;
	v = end + strspn(end, space);
	if (!(len = strcspn(v, space)))
		goto out;
	if (len >= sizeof(out->verdict))
		len = sizeof(out->verdict) - 1;
	memcpy(out->verdict, v, len);
	n = (int)(v + len - line);
	n += (int)strspn(line + n, space);
	out->at = (time_t)at;
	/* the detail quotes a payload (a parse error's "near '...'"), and
	 * callus doctor prints it on a terminal: cleaned of escapes */
	{
		const char *d = n > 0 ? line + n : "";
		callus_buf clean = CALLUS_BUF_INIT;

		if (callus_text_clean(&clean, d, strlen(d), CALLUS_TEXT_ONE_LINE) == 0 && clean.ptr)
			d = clean.ptr;
		else if (!callus_text_is_clean(d, strlen(d), CALLUS_TEXT_ONE_LINE))
			d = "?";
		snprintf(out->detail, sizeof(out->detail), "%.*s",
			 (int)callus_utf8_cut(d, strlen(d), sizeof(out->detail) - 1), d);
		callus_buf_release(&clean);
	}
	found = 1;
out:
	if (fd >= 0)
		close(fd);
	callus_buf_release(&path);
	return found;
}
