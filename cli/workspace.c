#include "cli.h"

#include "deja/buf.h"
#include "deja/paths.h"
#include "deja/shellquote.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_workspace_setup(cli_workspace *ws, const char *dir, int need_redactor)
{
	deja_error err = DEJA_ERROR_INIT;
	char *cwd = NULL;
	size_t rl;

	memset(ws, 0, sizeof(*ws));
	if (!(cwd = realpath(dir ? dir : ".", NULL))) {
		cli_error("cannot use '%s' as the workspace: %s", dir ? dir : ".", strerror(errno));
		return -1;
	}
	if (!(ws->root = deja_workspace_find(cwd)) || !(ws->root_real = realpath(ws->root, NULL)))
		goto oom;
	rl = strlen(ws->root_real);
	/* the directory relative to the root, "" at the root */
	if (!strncmp(cwd, ws->root_real, rl) && (cwd[rl] == '/' || !cwd[rl]))
		ws->cwd_rel = strdup(cwd[rl] ? cwd + rl + 1 : "");
	else
		ws->cwd_rel = strdup("");
	if (!ws->cwd_rel)
		goto oom;
	if (deja_config_load(&ws->config, ws->root, &err) < 0) {
		ws->config_error = strdup(deja_error_message(&err));
		deja_error_release(&err);
		if (deja_config_parse(&ws->config, "", 0, "defaults", &err) < 0)
			goto oom;
	}
	if (deja_whitelist_new(&ws->whitelist, ws->config, &err) < 0) {
		/* a bad pattern in the config: fall back to the built-ins */
		if (!ws->config_error)
			ws->config_error = strdup(deja_error_message(&err));
		deja_error_release(&err);
		if (deja_whitelist_new(&ws->whitelist, NULL, &err) < 0)
			goto oom;
	}
	switch (deja_embed_remote_config(&ws->embed, ws->config, &err)) {
	case 1:
		if (deja_embed_remote_model_id(&ws->embed_model, ws->embed.url, ws->embed.model,
					       &err) == 0)
			break;
		/* fall through */
	default:
		if (!(ws->embed_error = strdup(deja_error_message(&err))))
			goto oom;
		deja_error_release(&err);
		break;
	case 0:
		break;
	}
	if (need_redactor && deja_redactor_new(&ws->redactor, &err) < 0) {
		cli_error("%s", deja_error_message(&err));
		goto fail;
	}
	free(cwd);
	return 0;
oom:
	cli_error("out of memory");
fail:
	deja_error_release(&err);
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
	deja_config_free(ws->config);
	deja_whitelist_free(ws->whitelist);
	deja_redactor_free(ws->redactor);
	memset(ws, 0, sizeof(*ws));
}

long cli_config_long(const cli_workspace *ws, const char *section, const char *key, long def)
{
	long n = def;

	/* out of range or not a number: the default ('deja doctor' says why) */
	if (ws->config)
		deja_config_get_long(&n, ws->config, section, key, def, 0, INT_MAX, NULL);
	return n;
}

char *cli_join_argv(int argc, char **argv)
{
	deja_buf b = DEJA_BUF_INIT;

	for (int i = 0; i < argc; i++) {
		if (i)
			deja_buf_putc(&b, ' ');
		deja_shell_quote(&b, argv[i]);
	}
	if (deja_buf_status(&b) < 0)
		return NULL;
	return deja_buf_detach(&b);
}
