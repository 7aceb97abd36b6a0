/*
 * gemini.c - Gemini CLI's transcripts (docs/import.md): one JSONL file per
 * session, ~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl, where
 * <project> is the short name ~/.gemini/projects.json gives the directory
 * ({"projects": {DIR: NAME}}).  Checked against Gemini CLI 0.61.0.
 *
 * The first line is {sessionId, projectHash, startTime}; a message is
 * {id, timestamp, type: "user" | "gemini", content, toolCalls}; lines
 * {"$set": {...}} update the session's metadata.  A tool call is {id, name,
 * args, status, timestamp, result: [{functionResponse: {response: {output}}}],
 * resultDisplay}: for run_shell_command the output ends with "Exit Code: N"
 * when the command failed and resultDisplay is the command's output; for
 * the edit tools (replace, write_file) resultDisplay is {fileDiff, filePath,
 * originalContent, newContent}.  No record names the directory: the
 * transcript's place does.
 */
#include "reader.h"

#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

#define SEEN_MAX 64

typedef struct gm_state {
	char *cwd, *session;
	char *seen[SEEN_MAX];  /* tool calls given, a ring: a message written twice */
	size_t nseen;
} gm_state;

/* The directory projects.json gives the project NAME of a transcript at
 * GEMINI/tmp/NAME/chats/FILE; "" when none. */
static char *project_dir(const char *path)
{
	callus_buf gem = CALLUS_BUF_INIT, name = CALLUS_BUF_INIT;
	const char *p[4] = { NULL, NULL, NULL, NULL }, *s;
	json_t *root = NULL, *projects;
	const char *key;
	json_t *v;
	char *out = NULL;
	int n = 0;

	/* the last four slashes: GEMINI / tmp / NAME / chats / FILE */
	for (s = path + strlen(path); s > path && n < 4; s--)
		if (s[-1] == '/')
			p[n++] = s - 1;
	if (n < 4 || strncmp(p[3] + 1, "tmp/", 4) || strncmp(p[1], "/chats/", 7))
		goto out;
	callus_buf_put(&gem, path, (size_t)(p[3] - path));
	callus_buf_put(&name, p[2] + 1, (size_t)(p[1] - p[2] - 1));
	callus_buf_puts(&gem, "/projects.json");
	if (callus_buf_status(&gem) < 0 || callus_buf_status(&name) < 0 ||
	    !(root = json_load_file(gem.ptr, 0, NULL)))
		goto out;
	projects = json_object_get(root, "projects");
	json_object_foreach(projects, key, v)
		if (json_is_string(v) && !strcmp(json_string_value(v), name.ptr)) {
			out = strdup(key);
			break;
		}
out:
	json_decref(root);
	callus_buf_release(&gem);
	callus_buf_release(&name);
	return out ? out : strdup("");
}

static void *gm_begin(const char *path)
{
	gm_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cwd = project_dir(path);
	s->session = strdup("");
	if (!s->cwd || !s->session) {
		free(s->cwd);
		free(s->session);
		free(s);
		return NULL;
	}
	return s;
}

static void gm_end(void *p)
{
	gm_state *s = p;

	if (!s)
		return;
	for (size_t i = 0; i < SEEN_MAX; i++)
		free(s->seen[i]);
	free(s->cwd);
	free(s->session);
	free(s);
}

static int gm_idle(const void *p)
{
	(void)p;
	return 1; /* a tool call is written with its result */
}

static int seen_before(gm_state *s, const char *id)
{
	char **slot;

	if (!*id)
		return 0;
	for (size_t i = 0; i < SEEN_MAX; i++)
		if (s->seen[i] && !strcmp(s->seen[i], id))
			return 1;
	slot = &s->seen[s->nseen++ % SEEN_MAX];
	free(*slot);
	*slot = strdup(id);
	return 0;
}

/* The tool's own text of a shell call's response: "Exit Code: N" in it. */
static int exit_of(const char *response)
{
	const char *e = strstr(response, "\nExit Code: ");

	return e ? (int)strtol(e + 12, NULL, 10) : 0;
}

static int shell_call(gm_state *s, const json_t *tc, callus_import_event *ev,
		      callus_import_emit emit, void *ctx)
{
	const json_t *args = json_object_get(tc, "args");
	const json_t *fr = json_object_get(json_array_get(json_object_get(tc, "result"), 0),
					   "functionResponse");
	const char *response = callus_import_str(json_object_get(fr, "response"), "output");
	const char *dir = callus_import_str(args, "dir_path");
	callus_buf cwd = CALLUS_BUF_INIT;
	int rc;

	if (!*dir)
		dir = callus_import_str(args, "directory");
	if (*dir == '/')
		callus_buf_puts(&cwd, dir);
	else if (*dir)
		callus_buf_printf(&cwd, "%s/%s", s->cwd, dir);
	else
		callus_buf_puts(&cwd, s->cwd);
	if (callus_buf_status(&cwd) < 0)
		return CALLUS_ENOMEM;
	ev->kind = CALLUS_IMPORT_COMMAND;
	ev->command = callus_import_str(args, "command");
	ev->cwd = cwd.ptr;
	ev->output = callus_import_str(tc, "resultDisplay");
	ev->output_len = strlen(ev->output);
	ev->exit_code = exit_of(response);
	/* an error (not the command's status) or a cancel: nothing known */
	ev->interrupted = strcmp(callus_import_str(tc, "status"), "success") != 0 ||
			  strstr(response, "\nSignal: ") != NULL;
	rc = emit(ctx, ev);
	callus_buf_release(&cwd);
	return rc;
}

static int edit_call(gm_state *s, const json_t *tc, callus_import_event *ev,
		     callus_import_emit emit, void *ctx)
{
	const json_t *rd = json_object_get(tc, "resultDisplay");
	const char *diff = callus_import_str(rd, "fileDiff"), *h;
	const char *path = callus_import_str(rd, "filePath");

	(void)s;
	if (strcmp(callus_import_str(tc, "status"), "success"))
		return 0;
	h = !strncmp(diff, "@@", 2) ? diff : strstr(diff, "\n@@");
	if (!h)
		return 0;
	if (*h == '\n')
		h++;
	ev->kind = CALLUS_IMPORT_EDIT;
	ev->path = *path ? path : callus_import_str(json_object_get(tc, "args"), "file_path");
	ev->hunks = h;
	ev->created = !json_is_string(json_object_get(rd, "originalContent")) ||
		      !*callus_import_str(rd, "originalContent");
	return emit(ctx, ev);
}

static int gm_record(void *p, const json_t *rec, callus_import_emit emit, void *ctx)
{
	gm_state *s = p;
	const json_t *calls = json_object_get(rec, "toolCalls");
	size_t i;
	json_t *tc;
	int rc = 0;

	if (json_is_string(json_object_get(rec, "sessionId")) &&
	    callus_import_set(&s->session, callus_import_str(rec, "sessionId")) < 0)
		return CALLUS_ENOMEM;
	json_array_foreach(calls, i, tc) {
		const char *name = callus_import_str(tc, "name");
		callus_import_event ev;

		if (seen_before(s, callus_import_str(tc, "id")))
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.time = *callus_import_str(tc, "timestamp") ? callus_import_str(tc, "timestamp")
							       : callus_import_str(rec, "timestamp");
		ev.session = s->session;
		ev.cwd = s->cwd;
		ev.command = ev.output = ev.path = ev.hunks = "";
		ev.exit_code = -1;
		if (!strcmp(name, "run_shell_command"))
			rc = shell_call(s, tc, &ev, emit, ctx);
		else if (!strcmp(name, "replace") || !strcmp(name, "write_file") ||
			 !strcmp(name, "edit"))
			rc = edit_call(s, tc, &ev, emit, ctx);
		if (rc < 0)
			break;
	}
	return rc;
}

static int gm_locate(const char *home, callus_strlist *out)
{
	char *base = callus_import_dir(NULL, home, ".gemini/tmp");
	callus_strlist all = CALLUS_STRLIST_INIT;
	int rc;

	if (!base)
		return CALLUS_ENOMEM;
	rc = callus_import_find_files(base, ".jsonl", 2, &all);
	for (size_t i = 0; i < all.count && rc == 0; i++)
		if (strstr(all.items[i], "/chats/session-") &&
		    callus_strlist_add(out, all.items[i], strlen(all.items[i])) < 0)
			rc = CALLUS_ENOMEM;
	callus_strlist_release(&all);
	free(base);
	return rc;
}

static const char *const gm_needles[] = { "\"toolCalls\"", "\"sessionId\"", NULL };

const callus_transcript_ops callus_transcript_gemini = {
	"gemini", "~/.gemini/tmp/*/chats", gm_locate, gm_begin, gm_end, gm_record, gm_idle,
	gm_needles, NULL,
};
