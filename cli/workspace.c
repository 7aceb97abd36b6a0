#include "cli.h"

#include "callus/buf.h"
#include "callus/learn.h"
#include "callus/lesson.h"
#include "callus/log.h"
#include "callus/migrate.h"
#include "callus/paths.h"
#include "callus/redact.h"
#include "callus/workspace.h"
#include "callus/shellquote.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void cli_workspace_migrate(const char *root)
{
	callus_error err = CALLUS_ERROR_INIT;

	/* a store that cannot be moved stays where it is: callus starts a new
	 * one, and 'callus doctor' says why */
	if (root && callus_migrate_workspace(root, &err) == CALLUS_MIGRATE_MOVED)
		fprintf(stderr, "callus: moved the store of %s (callus's former name) from .%s/ to "
				".callus/\n", CALLUS_MIGRATE_OLD_NAME, CALLUS_MIGRATE_OLD_NAME);
	callus_error_release(&err);
}

int cli_workspace_setup(cli_workspace *ws, const char *dir, int need_redactor)
{
	callus_error err = CALLUS_ERROR_INIT;
	char *cwd = NULL;
	struct stat st;
	size_t rl;

	memset(ws, 0, sizeof(*ws));
	if (!(cwd = realpath(dir ? dir : ".", NULL))) {
		cli_error("cannot use '%s' as the workspace: %s", dir ? dir : ".", strerror(errno));
		return -1;
	}
	/* a file named as the directory (-w FILE) is no workspace */
	if (dir && (stat(cwd, &st) < 0 || !S_ISDIR(st.st_mode))) {
		cli_error("cannot use '%s' as the workspace: %s", dir, strerror(ENOTDIR));
		free(cwd);
		return -1;
	}
	/* a folder above that may not be searched (another user's) is no
	 * lack of memory; the root found is resolved already (a prefix of
	 * the resolved cwd) */
	if (!(ws->root = callus_workspace_find(cwd, &ws->kind)) ||
	    !(ws->root_real = strdup(ws->root))) {
		if (errno == ENOMEM)
			goto oom;
		cli_error("cannot use '%s' as the workspace: %s", cwd, strerror(errno));
		goto fail;
	}
	cli_workspace_migrate(ws->root);
	rl = strlen(ws->root_real);
	/* the directory relative to the root, "" at the root */
	if (!strncmp(cwd, ws->root_real, rl) && (cwd[rl] == '/' || !cwd[rl]))
		ws->cwd_rel = strdup(cwd[rl] ? cwd + rl + 1 : "");
	else
		ws->cwd_rel = strdup("");
	if (!ws->cwd_rel)
		goto oom;
	if (callus_config_load(&ws->config, ws->root, &err) < 0) {
		ws->config_error = strdup(callus_error_message(&err));
		ws->config_unread = 1;
		callus_error_release(&err);
		if (callus_config_parse(&ws->config, "", 0, "defaults", &err) < 0)
			goto oom;
	}
	if (callus_whitelist_new(&ws->whitelist, ws->config, &err) < 0) {
		/* a bad pattern in the config: fall back to the built-ins */
		if (!ws->config_error)
			ws->config_error = strdup(callus_error_message(&err));
		callus_error_release(&err);
		if (callus_whitelist_new(&ws->whitelist, NULL, &err) < 0)
			goto oom;
	}
	switch (callus_embed_remote_config(&ws->embed, ws->config, &err)) {
	case 1:
		if (callus_embed_remote_model_id(&ws->embed_model, ws->embed.url, ws->embed.model,
					       &err) == 0)
			break;
		/* fall through */
	default:
		if (!(ws->embed_error = strdup(callus_error_message(&err))))
			goto oom;
		callus_error_release(&err);
		break;
	case 0:
		break;
	}
	if (need_redactor && callus_redactor_new(&ws->redactor, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		goto fail;
	}
	free(cwd);
	return 0;
oom:
	cli_error("out of memory");
fail:
	callus_error_release(&err);
	free(cwd);
	cli_workspace_release(ws);
	return -1;
}

void cli_workspace_release(cli_workspace *ws)
{
	free(ws->root);
	free(ws->root_real);
	free(ws->cwd_rel);
	free(ws->config_error);
	free(ws->embed_model);
	free(ws->embed_error);
	callus_config_free(ws->config);
	callus_whitelist_free(ws->whitelist);
	callus_redactor_free(ws->redactor);
	memset(ws, 0, sizeof(*ws));
}

size_t cli_log_limit(const cli_workspace *ws)
{
	/* what the log would read again: the same file, already parsed */
	return ws && ws->config ? callus_log_limit_config(ws->config, NULL) : 0;
}

void cli_log_event(const cli_workspace *ws, const char *level, const char *event,
		   const char *message, const char *const *extra)
{
	callus_buf dir = CALLUS_BUF_INIT;

	if (!ws || !ws->root)
		return;
	/* a workspace set up without a redactor (gc, doctor, reindex) logs
	 * through one built for the line */
	if (callus_buf_printf(&dir, "%s/.callus", ws->root) == 0)
		callus_log_event_limit(ws->redactor, dir.ptr, cli_log_limit(ws), level, event,
				       message, extra);
	callus_buf_release(&dir);
}

long cli_config_long(const cli_workspace *ws, const char *section, const char *key, long def)
{
	long n = def;

	/* out of range or not a number: the default ('callus doctor' says why) */
	if (ws->config)
		callus_config_get_long(&n, ws->config, section, key, def, 0, INT_MAX, NULL);
	return n;
}

long cli_store_timeout_ms(const cli_workspace *ws)
{
	long n = cli_config_long(ws, "store", "timeout_ms", CLI_STORE_TIMEOUT_MS);

	/* 0 would give up on a store any other process is writing at once,
	 * which 'callus doctor' reports as the default being used */
	return n >= 1 ? n : CLI_STORE_TIMEOUT_MS;
}

uint64_t cli_file_size(const cli_workspace *ws, const char *rel)
{
	callus_buf p = CALLUS_BUF_INIT;
	struct stat st;
	uint64_t n = 0;

	if (callus_buf_printf(&p, "%s/%s", ws->root, rel) == 0 && stat(p.ptr, &st) == 0)
		n = (uint64_t)st.st_size;
	callus_buf_release(&p);
	return n;
}

char *cli_abandoned_before(const cli_workspace *ws)
{
	long hours = cli_config_long(ws, "learn", "prune_hours", CALLUS_LEARN_PRUNE_HOURS);
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return callus_time_iso8601(
		((long long)ts.tv_sec - (hours > 0 ? hours : CALLUS_LEARN_PRUNE_HOURS) * 3600LL) *
			1000000000LL +
		ts.tv_nsec);
}

char *cli_join_argv(int argc, char **argv)
{
	callus_buf b = CALLUS_BUF_INIT;

	for (int i = 0; i < argc; i++) {
		if (i)
			callus_buf_putc(&b, ' ');
		callus_shell_quote(&b, argv[i]);
	}
	if (callus_buf_status(&b) < 0)
		return NULL;
	return callus_buf_detach(&b);
}

char *cli_join_argv_redacted(const callus_redactor *r, int argc, char **argv)
{
	callus_buf b = CALLUS_BUF_INIT;

	if (callus_redact_argv(r, &b, (size_t)argc, (const char *const *)argv, NULL) < 0) {
		callus_buf_release(&b);
		return NULL;
	}
	return callus_buf_detach(&b);
}
