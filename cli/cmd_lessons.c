/*
 * callus lessons [--type T] [--file F] [--tool T] [--limit N] [--json]
 * callus lessons show ID [--json]
 */
#include "cli.h"
#include "json_items.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/buf.h"
#include "callus/lessonmd.h"
#include "callus/store.h"
#include "callus/utf8.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *type, *file, *tool;
static long limit = CLI_LIMIT_UNSET;
static int json;

static const cli_option lessons_options[] = {
	{ CLI_OPT_STRING, 't', "type", &type, "TYPE", "only LINT, TEST, ANALYSIS or OTHER lessons" },
	{ CLI_OPT_STRING, 'f', "file", &file, "FILE",
	  "only lessons about FILE (workspace-relative; primary or affected)" },
	{ CLI_OPT_STRING, 0, "tool", &tool, "TOOL", "only lessons from TOOL (e.g. eslint)" },
	{ CLI_OPT_INT, 'n', "limit", &limit, "N", 
	  "at most N lessons (0: all; without it 50, or all with --json)" },
	{ CLI_OPT_FLAG, 0, "json", &json, NULL, "print JSON (an array, or one object for show)" },
	CLI_END
};

const cli_spec cmd_lessons_spec = {
	"callus lessons [--type TYPE] [--file FILE] [--tool TOOL] [--limit N] [--json]\n"
	"callus lessons show ID [--json]",
	"List the lessons of this workspace, newest first, or show one.",
	"ID is the number in the first column of the list, or 6 or more hex digits of\n"
	"the lesson's signature (the name of its .lessons/ file).",
	lessons_options, 0
};

int cli_open_store_quiet(callus_store **out, const cli_workspace *ws, int create,
			 callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (callus_buf_printf(&path, "%s/.callus/callus.db", ws->root) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (!create && stat(path.ptr, &st) < 0) {
		rc = 1; /* nothing recorded yet */
		goto out;
	}
	/* SQLite writes its journal beside the store: never through a link
	 * out of the workspace */
	if ((rc = callus_workspace_guard(NULL, ws->root, ".callus", CALLUS_WS_PRIVATE, err)) < 0)
		goto out;
	rc = callus_store_open(out, path.ptr, cli_store_timeout(ws), err);
out:
	callus_buf_release(&path);
	return rc < 0 ? (err->code ? err->code : rc) : rc;
}

int cli_open_store(callus_store **out, const cli_workspace *ws, int create)
{
	callus_error err = CALLUS_ERROR_INIT;
	int rc = cli_open_store_quiet(out, ws, create, &err);

	if (rc < 0) {
		cli_error("%s", callus_error_message(&err));
		/* a queued recording waits for a busy store (the hook's spool) */
		rc = rc == CALLUS_EBUSY ? CALLUS_EBUSY : -1;
	}
	callus_error_release(&err);
	return rc;
}

json_t *cli_lesson_json(const callus_lesson *l)
{
	json_t *o = json_object(), *files = json_array();

	for (size_t i = 0; i < l->affected_count; i++)
		json_array_append_new(files, json_string(l->affected_files[i]));
	json_object_set_new(o, "id", json_integer(l->id));
	json_object_set_new(o, "timestamp", json_string(l->timestamp ? l->timestamp : ""));
	json_object_set_new(o, "type", json_string(callus_lesson_type_name(l->type)));
	json_object_set_new(o, "file", json_string(l->file ? l->file : ""));
	json_object_set_new(o, "error_summary", json_string(l->error_summary ? l->error_summary : ""));
	json_object_set_new(o, "cause", json_string(l->cause ? l->cause : ""));
	json_object_set_new(o, "resolution", json_string(l->resolution ? l->resolution : ""));
	json_object_set_new(o, "corrective_rule",
			    json_string(l->corrective_rule ? l->corrective_rule : ""));
	json_object_set_new(o, "intent_id", json_string(l->intent_id ? l->intent_id : ""));
	json_object_set_new(o, "signature", json_string(l->signature ? l->signature : ""));
	json_object_set_new(o, "tool", json_string(l->tool ? l->tool : ""));
	json_object_set_new(o, "command", json_string(l->command ? l->command : ""));
	json_object_set_new(o, "exit_code", json_integer(l->exit_code));
	json_object_set_new(o, "affected_files", files);
	json_object_set_new(o, "occurrences", json_integer(l->occurrences));
	json_object_set_new(o, "last_seen", json_string(l->last_seen ? l->last_seen : ""));
	return o;
}

json_t *cli_strlist_json(const callus_strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; l && i < l->count; i++)
		json_array_append_new(a, json_string(l->items[i]));
	return a;
}

int cli_print_json(json_t *v)
{
	char *s = v ? json_dumps(v, CLI_JSON_FLAGS) : NULL;

	json_decref(v);
	if (!s) {
		cli_error("out of memory");
		return 1;
	}
	printf("%s\n", s);
	free(s);
	return 0;
}

int cli_print_json_items(const void *items, size_t size, size_t n,
			 json_t *(*make)(const void *item, const void *arg), const void *arg)
{
	if (cli_json_items_dump(stdout, items, size, n, make, arg) < 0) {
		cli_error("out of memory");
		return 1;
	}
	return 0;
}

/* cli_lesson_json for cli_print_json_items. */
static json_t *lesson_item(const void *item, const void *arg)
{
	(void)arg;
	return cli_lesson_json(item);
}

int cli_first_line_width(const char *s, int width)
{
	size_t max = width < 0 ? 0 : (size_t)width, len = strnlen(s, max + 1);
	const char *nl = memchr(s, '\n', len);

	return (int)callus_utf8_cut(s, nl ? (size_t)(nl - s) : len, max);
}

static int show(callus_store *store, const char *key)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_lesson l;
	callus_buf md = CALLUS_BUF_INIT;
	int rc = 0;

	if ((rc = callus_store_get_lesson(store, key, &l, &err)) < 0) {
		cli_error("%s", callus_error_message(&err));
		callus_error_release(&err);
		return rc == CALLUS_EINVAL ? 2 : 1; /* no id at all: a usage error */
	}
	if (json) {
		rc = cli_print_json(cli_lesson_json(&l));
	} else if (callus_lesson_md_render(&md, &l) < 0) {
		cli_error("out of memory");
		rc = 1;
	} else {
		fwrite(md.ptr, 1, md.len, stdout);
	}
	callus_buf_release(&md);
	callus_lesson_release(&l);
	return rc;
}

int cmd_lessons(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_lesson_filter filter = { .limit = 0 };
	callus_lesson *ls = NULL;
	callus_store *store = NULL;
	callus_lesson_type t;
	size_t n = 0;
	cli_workspace ws;
	long want;
	int first, rc = 1, opened;

	first = cli_parse(argc, argv, &cmd_lessons_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (type && callus_lesson_type_parse(&t, type) < 0) {
		cli_error("unknown lesson type '%s' (LINT, TEST, ANALYSIS or OTHER)", type);
		return 2;
	}
	if (first < argc && (strcmp(argv[first], "show") || first + 2 != argc)) {
		if (!strcmp(argv[first], "show"))
			cli_error("usage: callus lessons show ID");
		else
			cli_error("unknown subcommand '%s'; see 'callus help lessons'", argv[first]);
		return 2;
	}
	if ((want = cli_list_limit(limit, json)) < 0)
		return 2;
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	if ((opened = cli_open_store(&store, &ws, 0)) < 0)
		goto out;
	if (opened == 1) {
		/* nothing recorded yet */
		if (first < argc) {
			cli_error("no lesson '%s'", argv[first + 1]);
			goto out;
		}
		if (json)
			printf("[]\n");
		rc = 0;
		goto out;
	}
	if (first < argc) {
		rc = show(store, argv[first + 1]);
		goto out;
	}
	filter.type = type;
	filter.file = file;
	filter.tool = tool;
	filter.limit = (int)want;
	if (callus_store_list_lessons(store, &filter, &ls, &n, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		goto out;
	}
	if (json) {
		rc = cli_print_json_items(ls, sizeof(*ls), n, lesson_item, NULL);
		goto out;
	}
	for (size_t i = 0, shown = cli_list_shown(limit, json, n); i < shown; i++) {
		const callus_lesson *l = &ls[i];
		const char *sum = l->error_summary ? l->error_summary : "";

		printf("%-4lld %-8s %-14s %-30s x%-3lld %.19s\n     %.*s\n", (long long)l->id,
		       callus_lesson_type_name(l->type), l->tool, l->file && *l->file ? l->file : "-",
		       (long long)l->occurrences, l->last_seen, cli_first_line_width(sum, 100), sum);
	}
	cli_list_more(limit, json, n, "lessons");
	rc = 0;
out:
	callus_lessons_free(ls, n);
	callus_store_close(store);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	return rc;
}
