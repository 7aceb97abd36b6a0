/*
 * callus record: the lesson-recording tool itself, for agents and people.
 */
#include "cli.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/buf.h"
#include "callus/gc.h"
#include "callus/paths.h"
#include "callus/notes.h"
#include "callus/record.h"
#include "callus/utf8.h"
#include "callus/redact.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *type, *file, *summary, *cause, *resolution, *rule, *intent, *tool, *note;
static int from_json;

static const cli_option record_options[] = {
	{ CLI_OPT_STRING, 't', "type", &type, "TYPE", "LINT, TEST, ANALYSIS or OTHER (default OTHER)" },
	{ CLI_OPT_STRING, 'f', "file", &file, "FILE", "the file the lesson is about" },
	{ CLI_OPT_STRING, 's', "summary", &summary, "TEXT", "the error (required; cut at 500 bytes)" },
	{ CLI_OPT_STRING, 0, "cause", &cause, "TEXT", "the root cause" },
	{ CLI_OPT_STRING, 0, "resolution", &resolution, "TEXT", "the fix that was applied" },
	{ CLI_OPT_STRING, 0, "rule", &rule, "TEXT", "the corrective rule to follow from now on" },
	{ CLI_OPT_STRING, 0, "intent", &intent, "ID",
	  "the task or session id (default: $CALLUS_INTENT_ID)" },
	{ CLI_OPT_STRING, 0, "tool", &tool, "NAME", "the tool that failed (default: manual)" },
	{ CLI_OPT_STRING, 0, "note", &note, "ID",
	  "also give hindsight note ID the --rule (as 'callus note ID --rule')" },
	{ CLI_OPT_FLAG, 0, "json", &from_json, NULL,
	  "read the fields from a JSON object on stdin (same names, corrective_rule for --rule,\n"
	  "                                 error_summary for --summary) and print the lesson as JSON" },
	CLI_END
};

const cli_spec cmd_record_spec = {
	"callus record --summary TEXT [--type TYPE] [--file FILE] [--cause TEXT]\n"
	"            [--resolution TEXT] [--rule TEXT [--note ID]] [--intent ID] [--tool NAME]\n"
	"callus record --json < LESSON.json",
	"Record a lesson by hand, with its cause, resolution and corrective rule.",
	"The lesson is stored like an automatic one (redacted, de-duplicated by its\n"
	"signature: recording the same file and summary again adds an occurrence, and\n"
	"a cause, resolution or rule given replaces the one stored; one not given\n"
	"leaves it as it was). A cause, resolution or rule makes\n"
	"it worth more than a lesson without them: retention by age passes it over,\n"
	"and the count ([retention] lessons) removes it last. Like a failure's\n"
	"recording, it keeps the lessons within [retention] lessons and runs the\n"
	"retention policy's background pass when it is due ('callus help gc').",
	record_options, 0
};

/* Take a string field from the JSON object when the flag did not set it. */
static int json_field(json_t *o, const char *name, const char **dst)
{
	json_t *v = json_object_get(o, name);

	if (!v || json_is_null(v) || *dst)
		return 0;
	if (!json_is_string(v)) {
		cli_error("field '%s' must be a string", name);
		return -1;
	}
	*dst = json_string_value(v);
	return 0;
}

static int dup_or_empty(char **dst, const char *s)
{
	return (*dst = strdup(s ? s : "")) ? 0 : -1;
}

/* Whether --note names a note of this workspace, asked before anything is
 * recorded: a lesson recorded and then refused would be recorded all the
 * same, with the command exiting 1. */
static int note_known(cli_workspace *ws)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_note n;
	int ok = 0;

	if (cli_open_store(&store, ws, 0) != 0) {
		cli_error("no note %s: nothing recorded in this workspace", note);
		goto out;
	}
	memset(&n, 0, sizeof(n));
	if (cli_notes_sync(store, ws, &err) < 0 ||
	    callus_notes_get(store, note, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		goto out;
	}
	callus_note_release(&n);
	ok = 1;
out:
	callus_error_release(&err);
	callus_store_close(store);
	return ok;
}

/* --note ID with --rule: the note's rule too (redacted, as the lesson's). */
static int note_rule(cli_workspace *ws)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	char *red = NULL;
	int rc = -1;

	if (cli_open_store(&store, ws, 0) != 0) {
		cli_error("no note %s: nothing recorded in this workspace", note);
		goto out;
	}
	if (callus_redact_str(ws->redactor, &red, rule) < 0) {
		cli_error("out of memory");
		goto out;
	}
	if (cli_notes_sync(store, ws, &err) < 0 ||
	    callus_notes_set_rule(store, ws->root, note, red, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		goto out;
	}
	if (callus_record_views(store, ws->root, callus_config_get(ws->config, "lessons", "file"),
				(int)cli_config_long(ws, "lessons", "max", 20), &err) < 0)
		cli_error("AGENTS.md not updated: %s", callus_error_message(&err));
	rc = 0;
out:
	free(red);
	callus_error_release(&err);
	callus_store_close(store);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	json_error_t jerr;
	json_t *in = NULL;
	callus_lesson l;
	callus_buf rel = CALLUS_BUF_INIT;
	cli_workspace ws;
	int first, rc = 1, is_new = 0, have_ws = 0;

	memset(&l, 0, sizeof(l));
	first = cli_parse(argc, argv, &cmd_record_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'", argv[first]);
		return 2;
	}
	if (from_json) {
		if (!(in = json_loadf(stdin, JSON_REJECT_DUPLICATES, &jerr)) || !json_is_object(in)) {
			cli_error("stdin is not a JSON object: %s (line %d)",
				  in ? "not an object" : jerr.text, jerr.line);
			goto out;
		}
		if (json_field(in, "type", &type) || json_field(in, "file", &file) ||
		    json_field(in, "error_summary", &summary) || json_field(in, "summary", &summary) ||
		    json_field(in, "cause", &cause) || json_field(in, "resolution", &resolution) ||
		    json_field(in, "corrective_rule", &rule) || json_field(in, "intent_id", &intent) ||
		    json_field(in, "tool", &tool))
			goto out;
	}
	if (note && (!rule || !*rule)) {
		cli_error("--note ID needs the --rule to give it");
		rc = 2;
		goto out;
	}
	if (!summary || !*summary) {
		cli_error("a lesson needs a summary (--summary TEXT)");
		rc = 2;
		goto out;
	}
	l.type = CALLUS_LESSON_OTHER;
	if (type && callus_lesson_type_parse(&l.type, type) < 0) {
		cli_error("unknown lesson type '%s' (LINT, TEST, ANALYSIS or OTHER)", type);
		rc = 2;
		goto out;
	}
	if (cli_workspace_setup(&ws, NULL, 1) < 0)
		goto out;
	have_ws = 1;
	if (file && *file) {
		callus_pathctx pc = { ws.root, ws.root_real, ws.cwd_rel, NULL };

		if (!callus_path_relativize(&rel, &pc, file, strlen(file))) {
			cli_error("'%s' is not a file inside the workspace '%s'", file, ws.root);
			rc = 2;
			goto out;
		}
	}
	if (!intent)
		intent = getenv("CALLUS_INTENT_ID");
	{
		/* at most 500 bytes, before no word: cut before it is redacted,
		 * half a token was no longer what the redactor finds, and kept */
		size_t n = callus_utf8_cut_word(summary, strlen(summary), CALLUS_SUMMARY_MAX);

		if (!(l.error_summary = strndup(summary, n)))
			goto oom;
	}
	if (dup_or_empty(&l.file, rel.ptr) || dup_or_empty(&l.cause, cause) ||
	    dup_or_empty(&l.resolution, resolution) || dup_or_empty(&l.corrective_rule, rule) ||
	    dup_or_empty(&l.intent_id, intent) || dup_or_empty(&l.tool, tool ? tool : "manual") ||
	    dup_or_empty(&l.command, "callus record"))
		goto oom;
	if (rel.len) {
		if (!(l.affected_files = calloc(1, sizeof(char *))) ||
		    !(l.affected_files[0] = strdup(rel.ptr)))
			goto oom;
		l.affected_count = 1;
	}
	{
		callus_record_opts opts = {
			.workspace = ws.root,
			.cwd_rel = ws.cwd_rel,
			.intent_id = l.intent_id,
			.agents_file = callus_config_get(ws.config, "lessons", "file"),
			.agents_max = (int)cli_config_long(&ws, "lessons", "max", 20),
			.timeout_ms = (int)cli_store_timeout_ms(&ws),
			.redactor = ws.redactor,
		};
		callus_record_result res = { 0 };
		callus_gc_policy gp;

		/* a lesson recorded by hand counts within [retention] lessons
		 * as a failure's does (and may run the background pass) */
		cli_gc_policy(&ws, &gp, NULL, NULL);
		if (gp.interval_hours > 0) {
			opts.retention = &gp;
			opts.retention_later = 1;
		}
		if (note && !note_known(&ws))
			goto out;
		if (callus_record_lesson(&l, NULL, 0, &opts, &res, &err) < 0) {
			cli_error("cannot record the lesson: %s", callus_error_message(&err));
			cli_log_failure(&ws, "record_failed", callus_error_message(&err));
			goto out;
		}
		is_new = res.is_new;
		if (res.gc_keep)
			cli_gc_later(&ws, res.gc_keep);
		callus_record_result_release(&res);
		if (note && note_rule(&ws) < 0)
			goto out;
	}
	if (from_json) {
		json_t *o = cli_lesson_json(&l);
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_ENSURE_ASCII);
		if (s)
			printf("%s\n", s);
		free(s);
		json_decref(o);
	} else {
		printf("%s lesson %lld (%.12s)\n", is_new ? "recorded" : "updated",
		       (long long)l.id, l.signature);
	}
	rc = 0;
	goto out;
oom:
	cli_error("out of memory");
out:
	callus_lesson_release(&l);
	callus_buf_release(&rel);
	callus_error_release(&err);
	json_decref(in);
	if (have_ws)
		cli_workspace_release(&ws);
	return rc;
}
