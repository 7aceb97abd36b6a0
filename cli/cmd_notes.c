/*
 * callus notes [--layer L] [--all] [--limit N] [--json]
 * callus notes show ID [--json]
 * callus note ID --rule TEXT
 * callus note retire ID...
 *
 * Hindsight notes (notes.h): one per error a fix was proven for, each a
 * Markdown file in .callus/notes/ meant to be committed.
 */
#include "cli.h"
#include "lessons_common.h"
#include "record_common.h"
#include "team_common.h"

#include "callus/notemd.h"
#include "callus/notes.h"
#include "callus/redact.h"
#include "callus/team.h"

#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *layer, *rule;
/* unset until given: 'show' refuses a limit it would ignore */
static long limit = CLI_LIMIT_UNSET;
static int json, all;

static const cli_option notes_options[] = {
	{ CLI_OPT_STRING, 0, "layer", &layer, "L", "only this layer's: session, project, team, org" },
	{ CLI_OPT_FLAG, 'a', "all", &all, NULL, "also retired notes" },
	{ CLI_OPT_INT, 'n', "limit", &limit, "N", 
	  "at most N notes (0: all; without it 50, or all with --json)" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print JSON (an array, or one object for show)" },
	CLI_END
};

const cli_spec cmd_notes_spec = {
	"callus notes [--layer L] [--all] [--limit N] [--json]\n"
	"callus notes show ID [--json]",
	"List the hindsight notes, best first, or show one as its Markdown file.",
	"A note is made when a fix of an error works (its success rate is above 0.5):\n"
	"the error's pattern, the steps and the diff lines of the fix, its tags, and a\n"
	"rule in words when the fixer gave one ('callus note ID --rule').  One note per\n"
	"error: later fixes of the same error, or of one more than 0.9 similar, are\n"
	"merged into it.  Each active note is .callus/notes/ID.md, meant to be\n"
	"committed; a note file edited, deleted or pulled with git is taken back at the\n"
	"next run (the file wins).  ID is the note's 12 hex digits, or 4 or more of\n"
	"them; 'show' also shows a team or org note as this workspace cached it.",
	notes_options, 0
};

static const char *note_layer, *why;

static const cli_option note_options[] = {
	{ CLI_OPT_STRING, 0, "rule", &rule, "TEXT",
	  "the general rule the fix follows, in one line; it heads the note" },
	{ CLI_OPT_STRING, 0, "layer", &note_layer, "L",
	  "retire: a note of the team or org layer, in its store (a maintainer's)" },
	{ CLI_OPT_STRING, 0, "why", &why, "TEXT", "retire --layer: why, kept with it" },
	CLI_END
};

const cli_spec cmd_note_spec = {
	"callus note ID --rule TEXT\n"
	"callus note retire ID... [--layer team|org [--why TEXT]]",
	"Give a note its rule in words, or retire it.",
	"--rule sets the one line that heads the note from then on, and the\n"
	"corrective_rule of the lessons of its errors (\"format specifiers must match\n"
	"the argument type: %d for int, %ld for long\").  The agent that made a fix is\n"
	"told it can.  A retired note's rule is kept, and said to be shown no more (its\n"
	"lessons still carry it).  'retire' removes a note that no longer helps: it is\n"
	"not shown again, its file is removed, and the same error fixed again makes no\n"
	"new one; several at once ('callus doctor' lists a crowded layer's lowest), each\n"
	"on its own: one that cannot be is said, and the status is then not 0.\n"
	"With --layer team (or org), a maintainer of that layer retires one of its\n"
	"approved notes in the layer's store: every workspace drops it from its cache\n"
	"at its next 'callus sync' (docs/teams.md).",
	note_options, 0
};

static json_t *note_json(const callus_note *n, int full)
{
	json_t *o = json_object();

	json_object_set_new(o, "id", json_string(n->id));
	json_object_set_new(o, "layer", json_string(callus_layer_name(n->layer)));
	json_object_set_new(o, "status", json_string(n->retired ? "retired" : "active"));
	json_object_set_new(o, "tool", json_string(n->tool));
	json_object_set_new(o, "error_type", json_string(n->error_type));
	json_object_set_new(o, "title", json_string(n->title));
	json_object_set_new(o, "rule", json_string(n->rule));
	json_object_set_new(o, "signatures", cli_strlist_json(&n->signatures));
	json_object_set_new(o, "files", cli_strlist_json(&n->files));
	json_object_set_new(o, "resolutions", json_integer(n->resolutions));
	json_object_set_new(o, "application_count", json_integer(n->applications));
	json_object_set_new(o, "success_count", json_integer(n->successes));
	json_object_set_new(o, "success_rate", json_real(n->success_rate));
	json_object_set_new(o, "edited", json_boolean(n->edited));
	json_object_set_new(o, "created_at", json_string(n->created_at));
	json_object_set_new(o, "updated_at", json_string(n->updated_at));
	if (full) {
		json_object_set_new(o, "example", json_string(n->example));
		json_object_set_new(o, "steps", json_string(n->steps));
		json_object_set_new(o, "code", json_string(n->code));
		json_object_set_new(o, "extra", json_string(n->extra ? n->extra : ""));
	}
	return o;
}

/* note_json, the list's form, for cli_print_json_items. */
static json_t *note_item(const void *item, const void *arg)
{
	(void)arg;
	return note_json(item, 0);
}

static int list(callus_store *s)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_note_filter f = { .layer = -1, .retired = all,
				 .limit = (int)cli_list_limit(limit, json) };
	callus_note *ns = NULL;
	size_t n = 0;
	int rc = 0;

	if (layer) {
		callus_layer l;

		if (callus_layer_parse(&l, layer) < 0) {
			cli_error("unknown layer '%s': session, project, team or org", layer);
			return 2;
		}
		f.layer = (int)l;
	}
	if (callus_notes_list(s, &f, &ns, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	if (json) {
		rc = cli_print_json_items(ns, sizeof(*ns), n, note_item, NULL);
		goto out;
	}
	for (size_t i = 0, shown = cli_list_shown(limit, json, n); i < shown; i++) {
		const callus_note *x = &ns[i];

		printf("%s %3.0f%% (%lld/%lld) %-7s %s%s\n", x->id, x->success_rate * 100.0,
		       (long long)x->successes, (long long)x->applications,
		       callus_layer_name(x->layer), x->retired ? "[retired] " : "", x->title);
		if (*x->rule)
			printf("             rule: %s\n", x->rule);
	}
	if (!n && !json)
		printf("no notes yet: a note is made when a check that failed passes again\n");
	cli_list_more(limit, json, n, "notes");
out:
	callus_notes_free(ns, n);
	callus_error_release(&err);
	return rc;
}

/* The cached team or org note whose id is id or starts with it (one
 * only): a layer's note has no row in notes.  CALLUS_ENOTFOUND, or
 * CALLUS_EINVAL when the prefix is more than one note's. */
static int cached_note(callus_store *s, const char *id, callus_note *out, callus_error *err)
{
	static const callus_layer layers[] = { CALLUS_LAYER_TEAM, CALLUS_LAYER_ORG };
	size_t len = strlen(id), found = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	for (size_t l = 0; l < 2 && rc == 0; l++) {
		callus_note *ns = NULL;
		size_t n = 0;

		if ((rc = callus_team_cached_list(s, layers[l], &ns, &n, err)) < 0)
			break;
		for (size_t i = 0; i < n; i++) {
			if (strncmp(ns[i].id, id, len))
				continue;
			if (found++)
				callus_note_release(out);
			*out = ns[i];
			memset(&ns[i], 0, sizeof(ns[i]));
		}
		callus_notes_free(ns, n);
	}
	if (rc == 0 && found != 1) {
		if (found)
			callus_note_release(out);
		rc = callus_error_set(err, found ? CALLUS_EINVAL : CALLUS_ENOTFOUND,
				      found ? "'%s' is the start of more than one note's id"
					    : "no note %s", id);
	}
	return rc;
}

static int show(callus_store *s, const char *id)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf text = CALLUS_BUF_INIT;
	callus_note n;
	int rc = 0;

	rc = callus_notes_get(s, id, &n, &err);
	if (rc == CALLUS_ENOTFOUND) {
		/* a note of the team or org layer, as this workspace cached it */
		callus_error_release(&err);
		rc = cached_note(s, id, &n, &err);
	}
	if (rc < 0) {
		cli_error("%s", callus_error_message(&err));
		callus_error_release(&err);
		return rc == CALLUS_EINVAL ? 2 : 1; /* not an id, or more than one note's */
	}
	if (json) {
		rc = cli_print_json(note_json(&n, 1));
	} else if (callus_note_md_render(&text, &n) < 0) {
		cli_error("out of memory");
		rc = 1;
	} else {
		fwrite(text.ptr, 1, text.len, stdout);
	}
	callus_buf_release(&text);
	callus_note_release(&n);
	return rc;
}

/* The workspace's store with its note files taken in; rc 1 when there is
 * no store (nothing recorded), -1 on trouble (said). */
/* Whether .callus/notes/ holds a note file: a clone's notes, committed,
 * with no store yet to have taken them in. */
static int notes_waiting(const cli_workspace *ws)
{
	callus_buf path = CALLUS_BUF_INIT;
	struct dirent *e;
	DIR *d;
	int found = 0;

	callus_buf_printf(&path, "%s/.callus/notes", ws->root);
	if (callus_buf_status(&path) == 0 && (d = opendir(path.ptr))) {
		while (!found && (e = readdir(d))) {
			size_t n = strlen(e->d_name);

			found = n > 3 && !strcmp(e->d_name + n - 3, ".md");
		}
		closedir(d);
	}
	callus_buf_release(&path);
	return found;
}

/* Whether note id (a prefix of it) is retired: a rule given to one is
 * kept, and said to be shown no more. */
static int retired_note(callus_store *store, const char *id)
{
	callus_note n;
	int retired;

	memset(&n, 0, sizeof(n));
	retired = callus_notes_get(store, id, &n, NULL) == 0 && n.retired;
	callus_note_release(&n);
	return retired;
}

/* The store, the note files taken in by sync (cli_notes_sync; NULL: none,
 * when what follows takes in each note it names: notes.c's rule and
 * retirement do). */
static int open_synced(callus_store **store, cli_workspace *ws, int need_redactor,
		       int (*sync)(callus_store *, const cli_workspace *, callus_error *))
{
	callus_error err = CALLUS_ERROR_INIT;
	int rc;

	*store = NULL;
	if (cli_workspace_setup(ws, NULL, need_redactor) < 0)
		return -2;
	/* a fresh clone's committed notes are listed as any: the store that
	 * takes them in is made */
	if ((rc = cli_open_store(store, ws, 0)) == 1 && notes_waiting(ws))
		rc = cli_open_store(store, ws, 1);
	if (rc != 0)
		return rc;
	if (sync && sync(*store, ws, &err) < 0) {
		/* the store still answers: say it, go on */
		cli_error("note files not read: %s", callus_error_message(&err));
		callus_error_release(&err);
	}
	return 0;
}

int cmd_notes(int argc, char **argv)
{
	callus_store *store = NULL;
	cli_workspace ws;
	int first, rc, limited;

	first = cli_parse(argc, argv, &cmd_notes_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	limited = limit != CLI_LIMIT_UNSET;
	if (cli_list_limit(limit, json) < 0)
		return 2;
	if (first < argc && (strcmp(argv[first], "show") || first + 2 != argc)) {
		cli_error(strcmp(argv[first], "show") ? "unknown argument '%s'; see 'callus help notes'"
						      : "usage: callus notes show ID",
			  argv[first]);
		return 2;
	}
	if (first < argc && (layer || all || limited)) {
		/* a filter of the list: said, not dropped */
		cli_error("%s goes with the list, not 'callus notes show ID'",
			  layer ? "--layer" : all ? "--all" : "--limit");
		return 2;
	}
	rc = open_synced(&store, &ws, 0, cli_notes_sync);
	if (rc == -2)
		return 1;
	if (rc < 0) {
		rc = 1;
	} else if (rc == 1) {
		if (first < argc) {
			cli_error("no note %s: nothing recorded in this workspace", argv[first + 1]);
			rc = 1;
		} else {
			printf(json ? "[]\n" : "no notes yet: nothing recorded in this workspace\n");
			rc = 0;
		}
	} else {
		rc = first < argc ? show(store, argv[first + 1]) : list(store);
	}
	callus_store_close(store);
	cli_workspace_release(&ws);
	return rc;
}

int cmd_note(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	cli_workspace ws;
	const char *id;
	char *red = NULL;
	int first, retire, rc, changed = 0;

	first = cli_parse(argc, argv, &cmd_note_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	retire = first < argc && !strcmp(argv[first], "retire");
	/* several notes retired at once: doctor lists a layer's lowest */
	if ((retire ? first + 2 > argc : first + 1 != argc) || (retire && rule) ||
	    (!retire && !rule)) {
		cli_error("usage: callus note ID --rule TEXT, or callus note retire ID...");
		return 2;
	}
	id = argv[first + retire];
	if (retire && note_layer && first + 2 != argc) {
		cli_error("--layer retires one note at a time: callus note retire ID --layer team|org");
		return 2;
	}
	if (why && !note_layer) {
		/* kept only with a layer's note: said, not dropped */
		cli_error("--why goes with 'callus note retire ID --layer team|org'");
		return 2;
	}
	if (note_layer) {
		callus_layer l;

		if (!retire) {
			cli_error("--layer team or org goes with 'callus note retire ID'");
			return 2;
		}
		if (callus_layer_parse(&l, note_layer) < 0 ||
		    (l != CALLUS_LAYER_TEAM && l != CALLUS_LAYER_ORG)) {
			cli_error("--layer is team or org, not '%s'", note_layer);
			return 2;
		}
		return cli_team_retire(l, id, why);
	}
	if (rule && (!*rule || strchr(rule, '\n'))) {
		cli_error("--rule wants one line of text");
		return 2;
	}
	/* a rule or a retirement takes in the folder's changes and the
	 * note's own file itself (notes.c): a sync here was done twice */
	rc = open_synced(&store, &ws, 1, NULL);
	if (rc == -2)
		return 1;
	if (rc != 0) {
		if (rc == 1)
			cli_error("no note %s: nothing recorded in this workspace", id);
		rc = 1;
		goto out;
	}
	/* the rule goes into the agent's prompt and into git: redacted */
	if (rule && callus_redact_str(ws.redactor, &red, rule) < 0) {
		cli_error("out of memory");
		rc = 1;
		goto out;
	}
	/* each note on its own: one that cannot be is said, the rest go on,
	 * and the status says the worst */
	rc = 0;
	for (int i = first + retire; i < argc && (retire || i == first); i++) {
		int one = retire ? callus_notes_retire(store, ws.root, argv[i], &err)
				 : callus_notes_set_rule(store, ws.root, argv[i], red, &err);

		if (one < 0) {
			cli_error("%s", callus_error_message(&err));
			callus_error_release(&err);
			if (rc != 2)
				rc = one == CALLUS_EINVAL ? 2 : 1;
			continue;
		}
		printf(retire ? "note %s retired\n" : "note %s: rule recorded\n", argv[i]);
		if (!retire && retired_note(store, argv[i]))
			printf("  the note is retired: its lessons carry the rule, the note is shown no "
			       "more\n");
		changed = 1;
	}
	if (changed &&
	    callus_record_views(store, ws.root, callus_config_get(ws.config, "lessons", "file"),
				(int)cli_config_long(&ws, "lessons", "max", 20), &err) < 0)
		cli_error("AGENTS.md not updated: %s", callus_error_message(&err));
out:
	free(red);
	callus_error_release(&err);
	callus_store_close(store);
	cli_workspace_release(&ws);
	return rc;
}
