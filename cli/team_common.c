/*
 * team_common.c - the layers above a workspace, as the commands see them
 * (team_common.h).
 */
#include "team_common.h"

#include "detach.h"

#include "callus/child.h"
#include "callus/fsutil.h"
#include "callus/team.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <errno.h>
#include <unistd.h>

char *cli_team_identity(const cli_workspace *ws)
{
	const char *u = getenv("CALLUS_USER");
	callus_buf out = CALLUS_BUF_INIT;
	/* posix_spawn does not search PATH: env does */
	char *const argv[] = { "/usr/bin/env", "git", "-C", ws->root, "config", "--get",
			       "user.email", NULL };
	callus_child_opts o;

	if (u && *u)
		return strdup(u);
	memset(&o, 0, sizeof(o));
	o.what = "git";
	o.argv = argv;
	o.out_max = 4096;
	o.timeout_ms = 3000;
	if (callus_child_run(&out, &o, NULL) < 0)
		callus_buf_clear(&out);
	callus_buf_rtrim(&out);
	if (callus_buf_puts(&out, "") < 0)
		return NULL;
	return callus_buf_detach(&out);
}

callus_config *cli_team_user_config(void)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_config *c = NULL;

	if (callus_team_user_config(&c, &err) < 0) {
		cli_error("the user's config is not used: %s", callus_error_message(&err));
		callus_config_parse(&c, "", 0, NULL, NULL);
	}
	callus_error_release(&err);
	return c;
}

long cli_team_max_notes(const cli_workspace *ws, const callus_config *user, callus_layer l)
{
	char section[32];
	const char *v;
	char *end = NULL;
	long max = -1;

	snprintf(section, sizeof(section), "layer.%s", callus_layer_name(l));
	v = callus_team_setting(ws->config, user, section, "max_notes");
	if (!v)
		v = callus_team_setting(ws->config, user, "doctor", "max_notes");
	if (v)
		max = strtol(v, &end, 10);
	/* 0 is a threshold too: a layer meant to stay empty */
	return v && end != v && !*end && max >= 0 ? max : CALLUS_NOTES_BLOAT;
}

int cli_team_staleness(callus_buf *out, callus_store *s, long *age)
{
	char *last = NULL, *e1 = NULL, *e2 = NULL;
	int rc;

	*age = -1;
	if ((rc = callus_store_state_get(s, "last_sync", &last, NULL)) < 0 ||
	    (rc = callus_store_state_get(s, "last_error.team", &e1, NULL)) < 0 ||
	    (rc = callus_store_state_get(s, "last_error.org", &e2, NULL)) < 0)
		goto out;
	if (last) {
		long a = (long)(time(NULL) - strtoll(last, NULL, 10));

		*age = a < 0 ? 0 : a;
		if (*age < 120)
			callus_buf_printf(out, "synced %ld seconds ago", *age);
		else if (*age < 7200)
			callus_buf_printf(out, "synced %ld minutes ago", *age / 60);
		else if (*age < 172800)
			callus_buf_printf(out, "synced %ld hours ago", *age / 3600);
		else
			callus_buf_printf(out, "synced %ld days ago", *age / 86400);
	} else {
		callus_buf_puts(out, "never synced ('callus sync')");
	}
	if (e1 && *e1)
		callus_buf_printf(out, "; team: %s", e1);
	if (e2 && *e2)
		callus_buf_printf(out, "; org: %s", e2);
out:
	free(last);
	free(e1);
	free(e2);
	return rc;
}

static int stamp_path(callus_buf *p, const cli_workspace *ws)
{
	return callus_buf_printf(p, "%s/%s", ws->root, CALLUS_SYNC_STAMP);
}

/* The stamp's time is all it says: moved, never written.  Not through a
 * link, nor into a file of other names (a clone may carry either: a
 * truncating open emptied whatever the link named). */
void cli_team_stamp(const cli_workspace *ws)
{
	callus_buf p = CALLUS_BUF_INIT;
	int fd;

	if (stamp_path(&p, ws) < 0)
		goto out;
	if ((fd = callus_fs_open_own(p.ptr, O_WRONLY | O_CREAT, 0644)) < 0 &&
	    (errno == ELOOP || errno == EMLINK || errno == EINVAL || errno == ENXIO) &&
	    unlink(p.ptr) == 0)
		fd = callus_fs_open_own(p.ptr, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd >= 0) {
		futimens(fd, NULL);
		close(fd);
	}
out:
	callus_buf_release(&p);
}

void cli_team_maybe_sync(const cli_workspace *ws)
{
	static const char *const argv[] = { "callus", "sync", "--quiet", NULL };
	callus_buf p = CALLUS_BUF_INIT;
	struct stat st;
	long interval = cli_config_long(ws, "sync", "interval", CALLUS_SYNC_INTERVAL);

	if (interval <= 0 || stamp_path(&p, ws) < 0 || lstat(p.ptr, &st) < 0 ||
	    time(NULL) - st.st_mtime < interval)
		goto out;
	/* the stamp moves first: one background sync at a time */
	cli_team_stamp(ws);
	cli_run_detached(ws->root, argv);
out:
	callus_buf_release(&p);
}
