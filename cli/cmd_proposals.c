/*
 * callus proposals [--layer L] [--all] [--json]
 * callus proposals show ID [--layer L] [--json]
 * callus approve ID [--layer L]
 * callus reject ID --why TEXT [--layer L]
 *
 * The maintainers' side of promotion (callus/team.h): the notes proposed
 * to a layer, and the decision on one.  Only a maintainer of the layer
 * decides ([layer.L] maintainers; in the embedded store, its own user
 * when none are named; a server store checks again).
 */
#include "cli.h"
#include "lessons_common.h"
#include "team_common.h"

#include "callus/cleantext.h"
#include "callus/metrics.h"
#include "callus/team.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer_opt, *why;
static int all, json;

static const cli_option proposals_options[] = {
	{ CLI_OPT_STRING, 0, "layer", &layer_opt, "L", "the team (default) or org layer" },
	{ CLI_OPT_FLAG, 'a', "all", &all, NULL, "every note of the layer, decided or not" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print a JSON array" },
	CLI_END
};

const cli_spec cmd_proposals_spec = {
	"callus proposals [--layer L] [--all] [--json]\n"
	"       callus proposals show ID [--layer L] [--json]",
	"List the notes proposed to the team (or org) layer, for its maintainers.",
	"'callus sync' proposes a note applied at least [promote] min_applications\n"
	"times (default 5) with a success rate of at least 0.8.  A proposal reaches\n"
	"no agent until a maintainer approves it ('callus approve ID'); 'callus\n"
	"reject ID --why TEXT' turns it down.  The metrics shown are the sums over\n"
	"every workspace that reported them; 'path' is the note's promotion chain.\n"
	"'by' is who the proposing callus said it was (git's user.email, which anyone\n"
	"can set) and, in a PostgreSQL store, the server's role that proposed it.\n"
	"'proposals show ID' prints all that an approval sends to every agent: the\n"
	"rule, the steps, the example error, the files, the code of the fix and the\n"
	"sections a person added to the note.",
	proposals_options, 0
};

static const cli_option decide_options[] = {
	{ CLI_OPT_STRING, 0, "layer", &layer_opt, "L", "the team (default) or org layer" },
	CLI_END
};

static const cli_option reject_options[] = {
	{ CLI_OPT_STRING, 0, "why", &why, "TEXT", "why it is turned down (kept with it)" },
	{ CLI_OPT_STRING, 0, "layer", &layer_opt, "L", "the team (default) or org layer" },
	CLI_END
};

const cli_spec cmd_approve_spec = {
	"callus approve ID [--layer L]",
	"Approve a note proposed to the team (or org) layer: 'callus sync' brings it everywhere.",
	"Only a maintainer of the layer may: one of [layer.team] maintainers (in\n"
	".callus/config or ~/.config/callus/config), identified by $CALLUS_USER or\n"
	"git's user.email.  With no maintainers named, the embedded store's own user\n"
	"maintains it.  A PostgreSQL store enforces its roles as well.",
	decide_options, 0
};

const cli_spec cmd_reject_spec = {
	"callus reject ID --why TEXT [--layer L]",
	"Turn down a note proposed to the team (or org) layer, saying why.",
	"Only a maintainer of the layer may (see 'callus help approve').  A rejected\n"
	"note never reaches another workspace, and is not proposed again.",
	reject_options, 0
};

static int parse_layer(callus_layer *l)
{
	*l = CALLUS_LAYER_TEAM;
	if (layer_opt && (callus_layer_parse(l, layer_opt) < 0 ||
			  (*l != CALLUS_LAYER_TEAM && *l != CALLUS_LAYER_ORG))) {
		cli_error("--layer is team or org, not '%s'", layer_opt);
		return -1;
	}
	return 0;
}

static json_t *shared_json(const callus_shared_note *n)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_string(n->id));
	json_object_set_new(o, "layer", json_string(callus_layer_name(n->layer)));
	json_object_set_new(o, "status", json_string(callus_shared_status_name(n->status)));
	json_object_set_new(o, "title", json_string(n->title));
	json_object_set_new(o, "rule", json_string(n->rule));
	json_object_set_new(o, "origin", json_string(n->origin));
	json_object_set_new(o, "path", json_string(n->path));
	json_object_set_new(o, "proposed_by", json_string(n->proposed_by));
	json_object_set_new(o, "proposed_at", json_string(n->proposed_at));
	json_object_set_new(o, "decided_by", json_string(n->decided_by));
	json_object_set_new(o, "why", json_string(n->why));
	json_object_set_new(o, "application_count", json_integer(n->applications));
	json_object_set_new(o, "success_count", json_integer(n->successes));
	json_object_set_new(o, "success_rate",
			    json_real(n->applications ? (double)n->successes / (double)n->applications
						      : 0));
	json_object_set_new(o, "revision", json_integer(n->revision));
	return o;
}

/* All of a note an approval sends to every agent, not only its title. */
static json_t *shared_json_whole(const callus_shared_note *n)
{
	json_t *o = shared_json(n), *files = json_loads(n->files ? n->files : "[]", 0, NULL);

	json_object_set_new(o, "signature_id", json_string(n->signature_id ? n->signature_id : ""));
	json_object_set_new(o, "tool", json_string(n->tool ? n->tool : ""));
	json_object_set_new(o, "error_type", json_string(n->error_type ? n->error_type : ""));
	json_object_set_new(o, "example", json_string(n->example ? n->example : ""));
	json_object_set_new(o, "steps", json_string(n->steps ? n->steps : ""));
	json_object_set_new(o, "code", json_string(n->code ? n->code : ""));
	json_object_set_new(o, "extra", json_string(n->extra ? n->extra : ""));
	json_object_set_new(o, "files", files ? files : json_string(n->files ? n->files : ""));
	return o;
}

/* One field of a note shown to a person on a terminal: cleaned (the
 * layer's store holds what a member sent), each line indented. */
static void print_field(const char *label, const char *text)
{
	callus_buf b = CALLUS_BUF_INIT;
	const char *p;

	if (!text || !*text)
		return;
	if (callus_text_clean(&b, text, strlen(text), 0) < 0 || !b.ptr)
		goto out;
	printf("%s:\n", label);
	for (p = b.ptr; *p;) {
		size_t len = strcspn(p, "\n");

		printf("    %.*s\n", (int)len, p);
		p += len + (p[len] == '\n');
	}
out:
	callus_buf_release(&b);
}

static void print_whole(const callus_shared_note *n)
{
	callus_buf by = CALLUS_BUF_INIT;

	callus_text_clean(&by, n->proposed_by ? n->proposed_by : "",
			  strlen(n->proposed_by ? n->proposed_by : ""), CALLUS_TEXT_ONE_LINE);
	printf("note %s (%s layer, %s), path %s\n", n->id, callus_layer_name(n->layer),
	       callus_shared_status_name(n->status), n->path ? n->path : "");
	printf("proposed by %s at %s\n", by.ptr && *by.ptr ? by.ptr : "?",
	       n->proposed_at ? n->proposed_at : "?");
	printf("worked %lld of %lld times (the sums every workspace reported)\n",
	       (long long)n->successes, (long long)n->applications);
	print_field("title", n->title);
	print_field("rule", n->rule);
	print_field("example error", n->example);
	print_field("steps", n->steps);
	print_field("files", n->files);
	print_field("code (the fix every agent is shown)", n->code);
	print_field("sections a person added", n->extra);
	callus_buf_release(&by);
}

static int show_one(callus_knowledge *k, callus_layer l, const char *id)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_shared_note n;
	int rc = 0;

	if ((rc = callus_knowledge_shared_get(k, l, id, &n, &err)) < 0) {
		cli_error("%s", callus_error_message(&err));
		callus_error_release(&err);
		return rc == CALLUS_EINVAL ? 2 : 1; /* not an id, or more than one note's */
	}
	if (json)
		rc = cli_print_json(shared_json_whole(&n));
	else
		print_whole(&n);
	callus_shared_note_release(&n);
	return rc;
}

/* The layer's store, with the workspace and user configs (and a redactor
 * with need_redactor: for what is written to the layer's store). */
static int open_layer(cli_workspace *ws, callus_config **user, callus_layer l,
		      callus_knowledge **k, int need_redactor)
{
	callus_error err = CALLUS_ERROR_INIT;

	if (cli_workspace_setup(ws, NULL, need_redactor) < 0)
		return -1;
	if (!(*user = cli_team_user_config())) {
		cli_error("out of memory");
		return -1;
	}
	if (callus_team_open(k, ws->config, *user, l, &err) < 0) {
		cli_error("%s layer: %s", callus_layer_name(l), callus_error_message(&err));
		callus_error_release(&err);
		return -1;
	}
	return 0;
}

int cmd_proposals(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_knowledge *k = NULL;
	callus_config *user = NULL;
	callus_shared_note *v = NULL;
	callus_layer l;
	cli_workspace ws;
	size_t n = 0;
	int first, rc = 0, show;

	memset(&ws, 0, sizeof(ws));
	if ((first = cli_parse(argc, argv, &cmd_proposals_spec)) < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	show = first < argc && !strcmp(argv[first], "show");
	if (show && first + 2 != argc) {
		cli_error("'callus proposals show' takes one note's id; see 'callus help proposals'");
		return 2;
	}
	if (!show && first < argc) {
		cli_error("unknown argument '%s'; see 'callus help proposals'", argv[first]);
		return 2;
	}
	if (parse_layer(&l) < 0)
		return 2;
	if (open_layer(&ws, &user, l, &k, 0) < 0) {
		rc = 1;
		goto out;
	}
	if (show) {
		rc = show_one(k, l, argv[first + 1]);
		goto out;
	}
	if (callus_knowledge_shared_list(k, l, all, &v, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	if (json) {
		json_t *a = json_array();

		for (size_t i = 0; i < n; i++)
			json_array_append_new(a, shared_json(&v[i]));
		rc = cli_print_json(a);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		/* what a member sent, on a maintainer's terminal: cleaned */
		callus_buf by = CALLUS_BUF_INIT, title = CALLUS_BUF_INIT;

		callus_text_clean(&by, v[i].proposed_by, strlen(v[i].proposed_by),
				  CALLUS_TEXT_ONE_LINE);
		callus_text_clean(&title, v[i].title, strlen(v[i].title), CALLUS_TEXT_ONE_LINE);
		printf("%s %-8s %3.0f%% (%lld/%lld) %-15s by %s  %s\n", v[i].id,
		       callus_shared_status_name(v[i].status),
		       v[i].applications ? 100.0 * (double)v[i].successes / (double)v[i].applications
					 : 0.0,
		       (long long)v[i].successes, (long long)v[i].applications, v[i].path,
		       by.ptr && *by.ptr ? by.ptr : "?", title.ptr ? title.ptr : "");
		callus_buf_release(&by);
		callus_buf_release(&title);
	}
	if (!n)
		printf("no %s in the %s layer\n", all ? "notes" : "proposals", callus_layer_name(l));
out:
	callus_shared_notes_free(v, n);
	callus_knowledge_close(k);
	callus_config_free(user);
	cli_workspace_release(&ws);
	callus_error_release(&err);
	return rc;
}

/* A decision counted in the workspace's metrics, when it has a store. */
static void count_decision(const cli_workspace *ws, const callus_shared_note *n)
{
	callus_store *store = NULL;
	callus_metrics *m = NULL;
	const char *gt = strrchr(n->path, '>');
	char from[16] = "project";
	const char *labels[] = { from, callus_layer_name(n->layer),
				 callus_shared_status_name(n->status) };

	if (gt) {
		const char *start = gt;

		while (start > n->path && start[-1] != '>')
			start--;
		snprintf(from, sizeof(from), "%.*s", (int)(gt - start), start);
	}
	if (cli_open_store(&store, ws, 0) != 0 || callus_metrics_new(&m) < 0)
		goto out;
	callus_metrics_add(m, CALLUS_METRIC_PROMOTION_TOTAL, labels, 1);
	callus_store_flush_metrics(store, m, NULL);
out:
	callus_metrics_free(m);
	callus_store_close(store);
}

/* A team note retired: an org note made from it is the org maintainers'
 * to retire, and stays in use until they do; said, when the org layer's
 * store has it approved (one that cannot be opened says nothing). */
static void org_copy_hint(const cli_workspace *ws, const callus_config *user, const char *id)
{
	callus_knowledge *k = NULL;
	callus_shared_note n;

	memset(&n, 0, sizeof(n));
	if (callus_team_open(&k, ws->config, user, CALLUS_LAYER_ORG, NULL) < 0)
		return;
	if (callus_knowledge_shared_get(k, CALLUS_LAYER_ORG, id, &n, NULL) == 0 &&
	    !strcmp(n.id, id) && n.status == CALLUS_SHARED_APPROVED)
		printf("%s is still approved in the org layer, made from this one: an org "
		       "maintainer retires it there ('callus note retire %s --layer org --why ...')\n",
		       id, id);
	callus_shared_note_release(&n);
	callus_knowledge_close(k);
}

/* A decision that found note n no longer proposed (approved for a
 * retirement): said as the note stands now, decided by someone else
 * meanwhile (two maintainers at once) or before; err's words when it
 * cannot be read again. */
static void decided_already(callus_knowledge *k, callus_layer l, const callus_shared_note *n,
			    callus_shared_status to, const callus_error *err)
{
	callus_shared_note now;

	memset(&now, 0, sizeof(now));
	if (callus_knowledge_shared_get(k, l, n->id, &now, NULL) == 0 && !strcmp(now.id, n->id))
		cli_error("%s is %s in the %s layer%s%s%s: only %s note is %s", n->id,
			  callus_shared_status_name(now.status), callus_layer_name(l),
			  now.decided_by && *now.decided_by ? " (by " : "",
			  now.decided_by && *now.decided_by ? now.decided_by : "",
			  now.decided_by && *now.decided_by ? ")" : "",
			  to == CALLUS_SHARED_RETIRED ? "an approved" : "a proposed",
			  callus_shared_status_name(to));
	else
		cli_error("%s", callus_error_message(err));
	callus_shared_note_release(&now);
}

/* A maintainer's decision on note id of layer l; the exit status. */
static int decide_one(callus_layer l, const char *id, callus_shared_status to, const char *reason)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_knowledge *k = NULL;
	callus_config *user = NULL;
	callus_shared_note n;
	cli_workspace ws;
	char *who = NULL, *why_red = NULL;
	int rc = 0;

	memset(&n, 0, sizeof(n));
	memset(&ws, 0, sizeof(ws));
	if (open_layer(&ws, &user, l, &k, 1) < 0) {
		rc = 1;
		goto out;
	}
	/* the proposer and every maintainer read it, from a shared store */
	if (callus_redact_str(ws.redactor, &why_red, reason) < 0 ||
	    !(who = cli_team_identity(&ws))) {
		cli_error("out of memory");
		rc = 1;
		goto out;
	}
	if (!callus_team_may_decide(ws.config, user, l,
				    !strcmp(callus_knowledge_backend(k), "sqlite"), who)) {
		cli_error("%s is not a maintainer of the %s layer ([layer.%s] maintainers)",
			  *who ? who : "an unknown user (set CALLUS_USER or git's user.email)",
			  callus_layer_name(l), callus_layer_name(l));
		rc = 1;
		goto out;
	}
	if ((rc = callus_knowledge_shared_get(k, l, id, &n, &err)) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = rc == CALLUS_EINVAL ? 2 : 1; /* not an id, or more than one note's */
		goto out;
	}
	if ((rc = callus_knowledge_decide(k, l, n.id, to, who, why_red, &err)) < 0) {
		if (rc == CALLUS_ENOTFOUND)
			decided_already(k, l, &n, to, &err);
		else
			cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	n.status = to;
	count_decision(&ws, &n);
	printf("%s %s in the %s layer%s\n", n.id, callus_shared_status_name(to),
	       callus_layer_name(l),
	       to == CALLUS_SHARED_APPROVED   ? ": 'callus sync' brings it to every workspace"
	       : to == CALLUS_SHARED_RETIRED ? ": every workspace drops it at its next sync"
					     : "");
	if (to == CALLUS_SHARED_RETIRED && l == CALLUS_LAYER_TEAM)
		org_copy_hint(&ws, user, n.id);
out:
	callus_shared_note_release(&n);
	free(why_red);
	free(who);
	callus_knowledge_close(k);
	callus_config_free(user);
	cli_workspace_release(&ws);
	callus_error_release(&err);
	return rc;
}

static int decide(int argc, char **argv, const cli_spec *spec, callus_shared_status to)
{
	callus_layer l;
	int first;

	if ((first = cli_parse(argc, argv, spec)) < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first + 1 != argc) {
		cli_error("usage: %s", spec->usage);
		return 2;
	}
	if (to == CALLUS_SHARED_REJECTED && (!why || !*why)) {
		cli_error("say why with --why TEXT: the proposer reads it");
		return 2;
	}
	if (parse_layer(&l) < 0)
		return 2;
	return decide_one(l, argv[first], to, why);
}

int cli_team_retire(callus_layer l, const char *id, const char *reason)
{
	return decide_one(l, id, CALLUS_SHARED_RETIRED, reason ? reason : "");
}

int cmd_approve(int argc, char **argv)
{
	return decide(argc, argv, &cmd_approve_spec, CALLUS_SHARED_APPROVED);
}

int cmd_reject(int argc, char **argv)
{
	return decide(argc, argv, &cmd_reject_spec, CALLUS_SHARED_REJECTED);
}
