/*
 * callus pending [--state STATE] [--limit N] [--json] [--prune]
 * callus warnings [--files FILE...] [--json]
 *
 * Both list the errors learn.c tracks: pending ones, and the permanent
 * failures a task touching the same files should be warned about (spec
 * 003 getFailureWarningsForTask).
 */
#include "cli.h"
#include "lessons_common.h"

#include "callus/buf.h"
#include "callus/learn.h"
#include "callus/paths.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *state_arg;
static long limit = CLI_LIMIT_UNSET;
static int json, prune;
static cli_list files_arg;

static const cli_option pending_options[] = {
	{ CLI_OPT_STRING, 's', "state", &state_arg, "STATE",
	  "pending (the default), fixed, permanent or all" },
	{ CLI_OPT_INT, 'n', "limit", &limit, "N", 
	  "at most N errors (0: all; without it 50, or all with --json)" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print a JSON array" },
	{ CLI_OPT_FLAG, 0, "prune", &prune, NULL,
	  "drop pending errors idle longer than [learn] prune_hours (168) first" },
	CLI_END
};

const cli_spec cmd_pending_spec = {
	"callus pending [--state STATE] [--limit N] [--json] [--prune]",
	"List the errors waiting for a fix (or fixed, or permanent), newest first.",
	"Each error of a failed check is pending until the same check passes or fails\n"
	"without it (fixed: 'callus resolutions' has the diff) or has failed [learn]\n"
	"max_retries times (3) with no fix (permanent: 'callus warnings').  Pending errors\n"
	"nobody touched for [learn] prune_hours (168) are dropped when callus learns\n"
	"from a run (all of that run's check's, the oldest 100 of the others), by 'callus\n"
	"gc' (500 a pass in the background, once every [retention] gc_hours), or all\n"
	"now with --prune; until then they are listed as abandoned (in --json,\n"
	"\"abandoned\": true).  One back after that is a new error.",
	pending_options, 0
};

static const cli_option warnings_options[] = {
	{ CLI_OPT_LIST, 0, "files", &files_arg, "FILE",
	  "only failures about these files (more may follow as operands)" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print a JSON array" },
	CLI_END
};

const cli_spec cmd_warnings_spec = {
	"callus warnings [--files FILE...] [--json]",
	"List the permanent failures: errors that earlier attempts could not fix.",
	"With --files, only those that name one of the files (paths relative to the\n"
	"current directory or the workspace).  The agent hooks show them at session\n"
	"start.",
	warnings_options, 0
};

/* Pending, but idle past [learn] prune_hours: recordings and gc drop
 * them a batch at a time, --prune all at once. */
static int abandoned(const callus_pending *p, const char *before)
{
	return before && p->state == CALLUS_STATE_PENDING && strcmp(p->last_failure_at, before) < 0;
}

static json_t *pending_json(const callus_pending *p, const char *before)
{
	json_t *o = json_object(), *files = cli_strlist_json(&p->files);

	json_object_set_new(o, "id", json_integer(p->id));
	json_object_set_new(o, "state", json_string(callus_error_state_name(p->state)));
	json_object_set_new(o, "tool", json_string(p->tool));
	json_object_set_new(o, "args", json_string(p->args));
	json_object_set_new(o, "dir", json_string(p->dir));
	json_object_set_new(o, "signature_id", json_string(p->signature_id));
	json_object_set_new(o, "error_type", json_string(p->error_type));
	json_object_set_new(o, "message", json_string(p->message));
	json_object_set_new(o, "attempts", json_integer(p->attempts));
	json_object_set_new(o, "first_failure_at", json_string(p->first_failure_at));
	json_object_set_new(o, "last_failure_at", json_string(p->last_failure_at));
	json_object_set_new(o, "closed_at", json_string(p->closed_at));
	json_object_set_new(o, "session", json_string(p->session));
	json_object_set_new(o, "files", files);
	json_object_set_new(o, "snapshot", json_string(p->snapshot));
	if (p->resolution_id)
		json_object_set_new(o, "resolution_id", json_integer(p->resolution_id));
	if (abandoned(p, before))
		json_object_set_new(o, "abandoned", json_true());
	return o;
}

/* pending_json for cli_print_json_items: arg the time before which an
 * error is abandoned. */
static json_t *pending_item(const void *item, const void *arg)
{
	return pending_json(item, arg);
}

static int print_list(const callus_pending *ps, size_t n, const char *before)
{
	if (json)
		return cli_print_json_items(ps, sizeof(*ps), n, pending_item, before);
	for (size_t i = 0, shown = cli_list_shown(limit, json, n); i < shown; i++) {
		const callus_pending *p = &ps[i];
		int w = cli_first_line_width(p->message, 100);

		printf("#%-4lld %-9s %s%s%s%s%s  x%lld  %.16s  %.*s", (long long)p->id,
		       abandoned(p, before) ? "abandoned" : callus_error_state_name(p->state), p->tool, *p->args ? " " : "", p->args,
		       *p->dir ? " in " : "", p->dir, (long long)p->attempts, p->last_failure_at, w,
		       p->message);
		if (p->files.count)
			printf("  [%s%s]", p->files.items[0], p->files.count > 1 ? ", ..." : "");
		if (p->resolution_id)
			printf("  -> resolution #%lld", (long long)p->resolution_id);
		putchar('\n');
	}
	cli_list_more(limit, json, n, "errors");
	return 0;
}

static int parse_state(int *out, const char *s)
{
	if (!s || !strcmp(s, "pending"))
		*out = CALLUS_STATE_PENDING;
	else if (!strcmp(s, "fixed"))
		*out = CALLUS_STATE_FIXED;
	else if (!strcmp(s, "permanent"))
		*out = CALLUS_STATE_PERMANENT;
	else if (!strcmp(s, "all"))
		*out = -1;
	else
		return -1;
	return 0;
}

int cmd_pending(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_pending_filter f = { CALLUS_STATE_PENDING, NULL, 0, 0 };
	callus_pending *ps = NULL;
	callus_store *store = NULL;
	cli_workspace ws;
	char *before = NULL;
	size_t n = 0;
	long want;
	int first, rc = 0;

	first = cli_parse(argc, argv, &cmd_pending_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help pending'", argv[first]);
		return 2;
	}
	if (parse_state(&f.state, state_arg) < 0) {
		cli_error("unknown state '%s' (pending, fixed, permanent or all)", state_arg);
		return 2;
	}
	if ((want = cli_list_limit(limit, json)) < 0)
		return 2;
	f.limit = (int)want;
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	if ((rc = cli_open_store(&store, &ws, 0)) < 0) {
		rc = 1;
		goto out;
	}
	if (rc == 1) { /* nothing recorded: nothing pending */
		rc = print_list(NULL, 0, NULL);
		goto out;
	}
	if (prune) {
		size_t dropped = 0;

		if (callus_learn_prune(store, (int)cli_config_long(&ws, "learn", "prune_hours",
								  CALLUS_LEARN_PRUNE_HOURS),
				     NULL, 0, &dropped, NULL, &err) < 0) {
			cli_error("%s", callus_error_message(&err));
			rc = 1;
			goto out;
		}
		fprintf(stderr, "pruned %zu pending error%s\n", dropped, dropped == 1 ? "" : "s");
	}
	if (callus_learn_list(store, &f, &ps, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	before = cli_abandoned_before(&ws);
	rc = print_list(ps, n, before);
out:
	free(before);
	callus_pendings_free(ps, n);
	callus_store_close(store);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	return rc;
}

/* A file named on the command line, as the store names files. */
static int add_file(callus_strlist *out, const cli_workspace *ws, const char *arg)
{
	callus_buf rel = CALLUS_BUF_INIT;
	callus_pathctx pc = { ws->root, ws->root_real, ws->cwd_rel, NULL };
	int rc;

	if (callus_path_relativize(&rel, &pc, arg, strlen(arg)))
		rc = callus_strlist_add(out, rel.ptr, rel.len);
	else
		rc = callus_strlist_add(out, arg, strlen(arg));
	callus_buf_release(&rel);
	return rc;
}

int cmd_warnings(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT;
	callus_pending_filter f = { CALLUS_STATE_PERMANENT, NULL, 0, 0 };
	callus_pending *ps = NULL;
	callus_store *store = NULL;
	cli_workspace ws;
	size_t n = 0;
	int first, rc = 0;

	first = cli_parse(argc, argv, &cmd_warnings_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc && !files_arg.count) {
		cli_error("unexpected argument '%s'; files go after --files", argv[first]);
		cli_list_release(&files_arg);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0) {
		cli_list_release(&files_arg);
		return 1;
	}
	for (int i = 0; i < files_arg.count; i++)
		if (add_file(&files, &ws, files_arg.items[i]) < 0)
			goto nomem;
	for (int i = first; i < argc; i++)
		if (add_file(&files, &ws, argv[i]) < 0)
			goto nomem;
	f.files = files.count ? &files : NULL;
	if ((rc = cli_open_store(&store, &ws, 0)) < 0) {
		rc = 1;
		goto out;
	}
	if (rc == 1) {
		rc = print_list(NULL, 0, NULL);
		goto out;
	}
	if (callus_learn_list(store, &f, &ps, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	rc = print_list(ps, n, NULL);
	goto out;
nomem:
	cli_error("out of memory");
	rc = 1;
out:
	callus_pendings_free(ps, n);
	callus_store_close(store);
	callus_strlist_release(&files);
	cli_list_release(&files_arg);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	return rc;
}
