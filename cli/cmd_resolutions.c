/*
 * callus resolutions [--signature ID] [--limit N] [--json]
 * callus resolutions show ID [--json]
 * callus feedback ID success|failure [--note TEXT]
 *
 * Resolutions are the fixes learn.c kept: the diff from a failure to the
 * passing check, with how often it worked when it was suggested again.
 */
#include "cli.h"

#include "callus/record.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/knowledge.h"
#include "callus/learn.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *signature, *note;
static long limit = CLI_LIMIT_UNSET;
static int json;

static const cli_option resolutions_options[] = {
	{ CLI_OPT_STRING, 0, "signature", &signature, "ID",
	  "only the resolutions of this error signature (64 hex digits)" },
	{ CLI_OPT_INT, 'n', "limit", &limit, "N", 
	  "at most N resolutions (0: all; without it 50, or all with --json)" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print JSON (an array, or one object for show)" },
	CLI_END
};

const cli_spec cmd_resolutions_spec = {
	"callus resolutions [--signature ID] [--limit N] [--json]\n"
	"callus resolutions show ID [--json]",
	"List the fixes learnt from checks that passed again, best first, or show one with its diff.",
	"A resolution is made when a check that failed passes again (or fails without\n"
	"that error): its diff is the change to the working tree since the failure\n"
	"(bounded by [learn] diff_max_bytes, secrets redacted), its description says\n"
	"which files and functions changed.  success_rate = successes / applications:\n"
	"each time it was suggested for an error that was then fixed counts as a\n"
	"success; an error that came back or became permanent, as a failure; 'callus\n"
	"feedback' adds reports of your own.",
	resolutions_options, 0
};

static const cli_option feedback_options[] = {
	{ CLI_OPT_STRING, 0, "note", &note, "TEXT", "a note kept with the report" },
	CLI_END
};

const cli_spec cmd_feedback_spec = {
	"callus feedback ID success|failure [--note TEXT]",
	"Report whether a suggested resolution worked; it updates its success rate.",
	"ID is the resolution's number ('callus resolutions').",
	feedback_options, 0
};

static json_t *resolution_json(const callus_resolution *r)
{
	json_t *o = json_object(), *files = cli_strlist_json(&r->files);
	json_t *ctx = json_loads(r->context, 0, NULL);

	json_object_set_new(o, "id", json_integer(r->id));
	json_object_set_new(o, "signature_id", json_string(r->signature_id));
	json_object_set_new(o, "error_type", json_string(r->error_type));
	json_object_set_new(o, "message", json_string(r->message));
	json_object_set_new(o, "tool", json_string(r->tool));
	json_object_set_new(o, "description", json_string(r->description));
	json_object_set_new(o, "files", files);
	json_object_set_new(o, "context", ctx ? ctx : json_object());
	json_object_set_new(o, "application_count", json_integer(r->application_count));
	json_object_set_new(o, "success_count", json_integer(r->success_count));
	json_object_set_new(o, "success_rate", json_real(r->success_rate));
	json_object_set_new(o, "created_at", json_string(r->created_at));
	json_object_set_new(o, "last_success_at", json_string(r->last_success_at));
	if (r->code_changes)
		json_object_set_new(o, "code_changes", json_string(r->code_changes));
	return o;
}

/* resolution_json for cli_print_json_items. */
static json_t *resolution_item(const void *item, const void *arg)
{
	(void)arg;
	return resolution_json(item);
}

static int list(callus_knowledge *k)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_resolution *rs = NULL;
	size_t n = 0;
	int rc = 0;

	if (callus_knowledge_resolutions(k, signature, (int)cli_list_limit(limit, json), &rs, &n,
				       &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	if (json) {
		rc = cli_print_json_items(rs, sizeof(*rs), n, resolution_item, NULL);
		goto out;
	}
	for (size_t i = 0, shown = cli_list_shown(limit, json, n); i < shown; i++) {
		const callus_resolution *r = &rs[i];

		printf("#%-4lld %3.0f%% (%lld/%lld)  %s  %s\n      for %s: %.*s\n", (long long)r->id,
		       r->success_rate * 100.0, (long long)r->success_count,
		       (long long)r->application_count, r->tool, r->description, r->error_type,
		       cli_first_line_width(r->message, 100), r->message);
	}
	cli_list_more(limit, json, n, "resolutions");
out:
	callus_resolutions_free(rs, n);
	callus_error_release(&err);
	return rc;
}

static int parse_id(int64_t *out, const char *s)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v <= 0)
		return -1;
	*out = v;
	return 0;
}

static int show(callus_knowledge *k, int64_t id)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_resolution r;
	int rc = 0;

	if (callus_knowledge_resolution(k, id, &r, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		callus_error_release(&err);
		return 1;
	}
	if (json) {
		rc = cli_print_json(resolution_json(&r));
	} else {
		json_t *ctx = json_loads(r.context, 0, NULL);
		const char *cmd = json_string_value(json_object_get(ctx, "command"));
		const char *commit = json_string_value(json_object_get(ctx, "commit"));

		printf("resolution #%lld  %s\n", (long long)r.id, r.description);
		printf("error:     %s (%s) %.*s\n", r.error_type, r.tool, cli_first_line_width(r.message, 300),
		       r.message);
		printf("signature: %s\n", r.signature_id);
		printf("success:   %.0f%% (%lld of %lld applications), last %s\n",
		       r.success_rate * 100.0, (long long)r.success_count,
		       (long long)r.application_count,
		       *r.last_success_at ? r.last_success_at : "never");
		printf("learnt:    %s%s%s\n", r.created_at, cmd && *cmd ? " from " : "",
		       cmd ? cmd : "");
		if (commit && *commit)
			printf("commit:    %s\n", commit);
		printf("\n%s", *r.code_changes ? r.code_changes : "(no diff was kept)\n");
		json_decref(ctx);
	}
	callus_resolution_release(&r);
	return rc;
}

int cmd_resolutions(int argc, char **argv)
{
	callus_store *store = NULL;
	cli_workspace ws;
	int64_t id = 0;
	int first, rc;

	first = cli_parse(argc, argv, &cmd_resolutions_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (cli_list_limit(limit, json) < 0)
		return 2;
	if (signature && (strlen(signature) != 64 || strspn(signature, "0123456789abcdef") != 64)) {
		cli_error("--signature wants a signature id: 64 hex digits ('callus pending --json' shows them)");
		return 2;
	}
	if (first < argc && (strcmp(argv[first], "show") || first + 2 != argc)) {
		cli_error(strcmp(argv[first], "show") ? "unknown argument '%s'; see 'callus help resolutions'"
						      : "usage: callus resolutions show ID",
			  argv[first]);
		return 2;
	}
	if (first < argc && parse_id(&id, argv[first + 1]) < 0) {
		cli_error("'%s' is not a resolution number", argv[first + 1]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	rc = cli_open_store(&store, &ws, 0);
	if (rc < 0) {
		rc = 1;
	} else if (rc == 1) {
		if (first < argc) {
			cli_error("no resolution %s: nothing recorded in this workspace", argv[first + 1]);
			rc = 1;
		} else {
			if (json)
				printf("[]\n");
			rc = 0;
		}
	} else {
		callus_knowledge *k = NULL;

		if (callus_knowledge_over_store(&k, store, NULL) < 0) {
			cli_error("out of memory");
			rc = 1;
		} else {
			rc = first < argc ? show(k, id) : list(k);
		}
		callus_knowledge_close(k);
	}
	callus_store_close(store);
	cli_workspace_release(&ws);
	return rc;
}

int cmd_feedback(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_knowledge *k = NULL;
	callus_metrics *m = NULL;
	cli_workspace ws;
	int64_t id;
	int first, rc, success;

	first = cli_parse(argc, argv, &cmd_feedback_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first + 2 != argc) {
		cli_error("usage: callus feedback ID success|failure [--note TEXT]");
		return 2;
	}
	if (parse_id(&id, argv[first]) < 0) {
		cli_error("'%s' is not a resolution number", argv[first]);
		return 2;
	}
	if (!strcmp(argv[first + 1], "success")) {
		success = 1;
	} else if (!strcmp(argv[first + 1], "failure")) {
		success = 0;
	} else {
		cli_error("say 'success' or 'failure', not '%s'", argv[first + 1]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 1) < 0)
		return 1;
	rc = cli_open_store(&store, &ws, 0);
	if (rc == 1) {
		cli_error("no resolution %lld: nothing recorded in this workspace", (long long)id);
		rc = 1;
	} else if (rc == 0) {
		char *red = NULL;

		/* a note is stored: redacted like everything else */
		if (note && callus_redact_str(ws.redactor, &red, note) < 0) {
			cli_error("out of memory");
			rc = 1;
		} else if (callus_metrics_new(&m) < 0 ||
			   callus_knowledge_over_store(&k, store, &err) < 0 ||
			   callus_knowledge_feedback(k, id, success, red, m, &err) < 0) {
			cli_error("%s", err.code ? callus_error_message(&err) : "out of memory");
			rc = 1;
		} else {
			printf("recorded %s for resolution #%lld\n", success ? "a success" : "a failure",
			       (long long)id);
			cli_flush_metrics(&ws, m, store, 0);
			/* the block of the instructions file shows the notes'
			 * metrics, which this changed */
			if (callus_record_views(store, ws.root,
						callus_config_get(ws.config, "lessons", "file"),
						(int)cli_config_long(&ws, "lessons", "max", 20),
						&err) < 0) {
				cli_error("AGENTS.md not updated: %s", callus_error_message(&err));
				callus_error_release(&err);
			}
		}
		callus_knowledge_close(k);
		callus_metrics_free(m);
		free(red);
	} else {
		rc = 1;
	}
	callus_store_close(store);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	return rc;
}
