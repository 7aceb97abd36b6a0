/*
 * codex.c - Codex's transcripts (docs/import.md): one "rollout" JSONL file
 * per session, $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl
 * (CODEX_HOME defaults to ~/.codex).  Checked against Codex 0.169.0.
 *
 * Each line is {timestamp, type, payload}.  session_meta and turn_context
 * name the directory (cwd).  A finished command is an event_msg
 * item_completed whose item is a CommandExecution {id, command: argv, cwd
 * (a file:// URL), aggregated_output, exit_code, status}; a patch applied
 * is a FileChange item {changes: [{path, kind, diff}]}.  Older versions
 * write event_msg exec_command_end {call_id, command, cwd, exit_code,
 * aggregated_output} and patch_apply_end {changes: {path: {type or
 * update/add/delete: {unified_diff, content}}}}, and older still only the
 * response_item function_call {name: shell, arguments: {command, workdir},
 * call_id} with its function_call_output, read when no event gave the
 * same call.
 */
#include "reader.h"

#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

#define SEEN_MAX 64

typedef struct fcall {
	char *id, *command, *cwd;
} fcall;

typedef struct cx_state {
	char *session, *cwd;
	fcall *calls;          /* function calls waiting for their output */
	size_t n;
	char *seen[SEEN_MAX];  /* calls an event already gave, a ring */
	size_t nseen;
} cx_state;

static void *cx_begin(const char *path)
{
	cx_state *s = calloc(1, sizeof(*s));

	(void)path;
	if (s && (!(s->session = strdup("")) || !(s->cwd = strdup("")))) {
		free(s->session);
		free(s);
		return NULL;
	}
	return s;
}

static void fcall_free(fcall *c)
{
	free(c->id);
	free(c->command);
	free(c->cwd);
}

static void cx_end(void *p)
{
	cx_state *s = p;

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		fcall_free(&s->calls[i]);
	for (size_t i = 0; i < SEEN_MAX; i++)
		free(s->seen[i]);
	free(s->calls);
	free(s->session);
	free(s->cwd);
	free(s);
}

static int cx_idle(const void *p)
{
	return ((const cx_state *)p)->n == 0;
}

static void mark_seen(cx_state *s, const char *id)
{
	char **slot = &s->seen[s->nseen++ % SEEN_MAX];

	free(*slot);
	*slot = *id ? strdup(id) : NULL;
}

static int was_seen(const cx_state *s, const char *id)
{
	for (size_t i = 0; i < SEEN_MAX; i++)
		if (s->seen[i] && !strcmp(s->seen[i], id))
			return 1;
	return 0;
}

/* The command line of an argv: the script of `bash -lc SCRIPT`, else the
 * words joined. */
static void command_line(callus_buf *out, const json_t *argv)
{
	size_t n = json_array_size(argv), i;
	json_t *w;

	if (json_is_string(argv)) {
		callus_buf_puts(out, json_string_value(argv));
		return;
	}
	if (n == 3) {
		const char *a0 = json_string_value(json_array_get(argv, 0)),
			   *a1 = json_string_value(json_array_get(argv, 1)),
			   *script = json_string_value(json_array_get(argv, 2));
		size_t l0 = a0 ? strlen(a0) : 0;

		/* a script that is no string (a record damaged, or of another
		 * shape) is no command: nothing to replay */
		if (a0 && a1 && l0 >= 2 && !strcmp(a0 + l0 - 2, "sh") &&
		    (!strcmp(a1, "-lc") || !strcmp(a1, "-c"))) {
			if (script)
				callus_buf_puts(out, script);
			return;
		}
	}
	json_array_foreach(argv, i, w) {
		if (i)
			callus_buf_putc(out, ' ');
		callus_buf_puts(out, json_string_value(w) ? json_string_value(w) : "");
	}
}

static const char *strip_file_url(const char *cwd)
{
	return !strncmp(cwd, "file://", 7) ? cwd + 7 : cwd;
}

static int emit_command(cx_state *s, callus_import_event *ev, const json_t *argv, const char *cwd,
			const char *output, const json_t *exit_code, const char *status,
			callus_import_emit emit, void *ctx)
{
	callus_buf cmd = CALLUS_BUF_INIT;
	int rc;

	command_line(&cmd, argv);
	if (callus_buf_status(&cmd) < 0)
		return CALLUS_ENOMEM;
	if (!cmd.len)
		return 0;
	ev->kind = CALLUS_IMPORT_COMMAND;
	ev->command = cmd.ptr;
	ev->cwd = *cwd ? strip_file_url(cwd) : s->cwd;
	ev->output = output;
	ev->output_len = strlen(output);
	ev->exit_code = json_is_integer(exit_code) ? (int)json_integer_value(exit_code) : -1;
	/* declined, interrupted, timed out: the tool's status is not known */
	ev->interrupted = *status && strcmp(status, "completed") && strcmp(status, "failed");
	rc = emit(ctx, ev);
	callus_buf_release(&cmd);
	return rc;
}

/* The hunks of a unified diff: from its first "@@" on. */
static const char *hunks_of(const char *diff)
{
	const char *h = !strncmp(diff, "@@", 2) ? diff : strstr(diff, "\n@@");

	return h ? (h == diff ? h : h + 1) : NULL;
}

static int emit_change(callus_import_event *ev, const char *path, const char *kind,
		       const char *diff, const char *content, callus_import_emit emit, void *ctx)
{
	callus_buf h = CALLUS_BUF_INIT;
	const char *hk = hunks_of(diff);
	int rc = 0;

	ev->created = !strcmp(kind, "add");
	ev->deleted = !strcmp(kind, "delete");
	if (hk)
		callus_buf_puts(&h, hk);
	else if (ev->created)
		callus_import_hunk_from_texts(&h, "", *content ? content : diff, 0);
	else if (ev->deleted)
		callus_import_hunk_from_texts(&h, *content ? content : diff, "", 1);
	if (h.len && h.ptr[h.len - 1] != '\n')
		callus_buf_putc(&h, '\n');
	if (callus_buf_status(&h) < 0) {
		rc = CALLUS_ENOMEM;
	} else if (h.len) {
		ev->kind = CALLUS_IMPORT_EDIT;
		ev->path = path;
		ev->hunks = h.ptr;
		rc = emit(ctx, ev);
	}
	callus_buf_release(&h);
	return rc;
}

/* A change's kind: a string, {"type": kind}, or {kind: {...}}. */
static const char *kind_of(const json_t *k, const json_t **body)
{
	const char *key;
	json_t *v;

	*body = k;
	if (json_is_string(k))
		return json_string_value(k);
	if (json_is_string(json_object_get(k, "type")))
		return json_string_value(json_object_get(k, "type"));
	json_object_foreach((json_t *)k, key, v) {
		*body = v;
		return key;
	}
	return "";
}

static int file_changes(const json_t *changes, callus_import_event *ev, callus_import_emit emit,
			void *ctx)
{
	const json_t *body;
	const char *key;
	json_t *c;
	size_t i;
	int rc = 0;

	if (json_is_array(changes)) {
		json_array_foreach(changes, i, c) {
			const json_t *k = json_object_get(c, "kind");
			const char *kind = k ? kind_of(k, &body) : callus_import_str(c, "type");
			const char *diff = callus_import_str(c, "diff");

			if (!*diff)
				diff = callus_import_str(c, "unified_diff");
			if ((rc = emit_change(ev, callus_import_str(c, "path"), kind, diff,
					      callus_import_str(c, "content"), emit, ctx)) < 0)
				return rc;
		}
		return 0;
	}
	json_object_foreach((json_t *)changes, key, c) {
		const char *kind = kind_of(c, &body);

		if ((rc = emit_change(ev, key, kind, callus_import_str(body, "unified_diff"),
				      callus_import_str(body, "content"), emit, ctx)) < 0)
			return rc;
	}
	return 0;
}

/* A function_call_output's text: the exit status and the output, as JSON
 * {output, metadata: {exit_code}} or as "Exit code: N" / "Process exited
 * with code N" lines before "Output:". */
static int call_output(const json_t *payload, callus_buf *out)
{
	const json_t *o = json_object_get(payload, "output");
	const char *text = json_string_value(o), *p;
	json_t *j;
	int code = -1;

	if (!text)
		text = callus_import_str(o, "content");
	if ((j = json_loads(text, 0, NULL)) && json_is_object(j)) {
		json_t *ec = json_object_get(json_object_get(j, "metadata"), "exit_code");

		callus_buf_puts(out, callus_import_str(j, "output"));
		code = json_is_integer(ec) ? (int)json_integer_value(ec) : -1;
		json_decref(j);
		return code;
	}
	json_decref(j);
	if ((p = strstr(text, "Exit code: ")))
		code = (int)strtol(p + 11, NULL, 10);
	else if ((p = strstr(text, "Process exited with code ")))
		code = (int)strtol(p + 25, NULL, 10);
	p = strstr(text, "Output:\n");
	callus_buf_puts(out, p ? p + 8 : text);
	return code;
}

static int response_item(cx_state *s, const json_t *pl, callus_import_event *ev,
			 callus_import_emit emit, void *ctx)
{
	const char *type = callus_import_str(pl, "type");
	const char *id = callus_import_str(pl, "call_id");

	if (!strcmp(type, "function_call")) {
		const char *name = callus_import_str(pl, "name");
		json_t *args;
		callus_buf cmd = CALLUS_BUF_INIT;
		fcall c, *g;

		if (strcmp(name, "shell") && strcmp(name, "exec_command") &&
		    strcmp(name, "container.exec") && strcmp(name, "local_shell"))
			return 0;
		if (!(args = json_loads(callus_import_str(pl, "arguments"), 0, NULL)))
			return 0;
		command_line(&cmd, json_object_get(args, "command") ? json_object_get(args, "command")
								       : json_object_get(args, "cmd"));
		memset(&c, 0, sizeof(c));
		c.id = strdup(id);
		c.command = callus_buf_status(&cmd) < 0 ? NULL : callus_buf_detach(&cmd);
		c.cwd = strdup(*callus_import_str(args, "workdir") ? callus_import_str(args, "workdir")
								   : s->cwd);
		json_decref(args);
		callus_buf_release(&cmd);
		if (s->n >= 256) {
			fcall_free(&s->calls[0]);
			memmove(s->calls, s->calls + 1, --s->n * sizeof(*s->calls));
		}
		if (!c.id || !c.command || !c.cwd ||
		    !(g = realloc(s->calls, (s->n + 1) * sizeof(*g)))) {
			fcall_free(&c);
			return CALLUS_ENOMEM;
		}
		s->calls = g;
		s->calls[s->n++] = c;
		return 0;
	}
	if (!strcmp(type, "function_call_output")) {
		size_t k;
		int rc = 0;

		for (k = 0; k < s->n && strcmp(s->calls[k].id, id); k++)
			;
		if (k == s->n)
			return 0;
		if (!was_seen(s, id)) {
			callus_buf out = CALLUS_BUF_INIT;
			json_t *cmd = json_string(s->calls[k].command);
			json_t *code;

			code = json_integer(call_output(pl, &out));
			if (!cmd || !code || callus_buf_status(&out) < 0)
				rc = CALLUS_ENOMEM;
			else
				rc = emit_command(s, ev, cmd, s->calls[k].cwd, out.ptr,
						  json_integer_value(code) >= 0 ? code : NULL, "",
						  emit, ctx);
			json_decref(cmd);
			json_decref(code);
			callus_buf_release(&out);
		}
		fcall_free(&s->calls[k]);
		memmove(s->calls + k, s->calls + k + 1, (s->n - k - 1) * sizeof(*s->calls));
		s->n--;
		return rc;
	}
	return 0;
}

static int cx_record(void *p, const json_t *rec, callus_import_emit emit, void *ctx)
{
	cx_state *s = p;
	const char *type = callus_import_str(rec, "type");
	const json_t *pl = json_object_get(rec, "payload");
	const char *pt = callus_import_str(pl, "type");
	callus_import_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.time = callus_import_str(rec, "timestamp");
	ev.session = s->session;
	ev.cwd = s->cwd;
	ev.command = ev.output = ev.path = ev.hunks = "";
	ev.exit_code = -1;
	if (!strcmp(type, "session_meta")) {
		if (callus_import_set(&s->session, callus_import_str(pl, "id")) < 0 ||
		    callus_import_set(&s->cwd, callus_import_str(pl, "cwd")) < 0)
			return CALLUS_ENOMEM;
		return 0;
	}
	if (!strcmp(type, "turn_context")) {
		if (*callus_import_str(pl, "cwd") &&
		    callus_import_set(&s->cwd, callus_import_str(pl, "cwd")) < 0)
			return CALLUS_ENOMEM;
		return 0;
	}
	if (!strcmp(type, "response_item"))
		return response_item(s, pl, &ev, emit, ctx);
	if (strcmp(type, "event_msg"))
		return 0;
	if (!strcmp(pt, "item_completed")) {
		const json_t *item = json_object_get(pl, "item");
		const char *it = callus_import_str(item, "type");
		char when[32];

		if (json_is_integer(json_object_get(pl, "completed_at_ms"))) {
			callus_import_time_ms(when, json_integer_value(json_object_get(pl, "completed_at_ms")));
			ev.time = when;
		}
		if (!strcmp(it, "CommandExecution")) {
			mark_seen(s, callus_import_str(item, "id"));
			return emit_command(s, &ev, json_object_get(item, "command"),
					    callus_import_str(item, "cwd"),
					    callus_import_str(item, "aggregated_output"),
					    json_object_get(item, "exit_code"),
					    callus_import_str(item, "status"), emit, ctx);
		}
		if (!strcmp(it, "FileChange") &&
		    strcmp(callus_import_str(item, "status"), "failed") &&
		    strcmp(callus_import_str(item, "status"), "declined"))
			return file_changes(json_object_get(item, "changes"), &ev, emit, ctx);
		return 0;
	}
	if (!strcmp(pt, "exec_command_end")) {
		const char *out = callus_import_str(pl, "aggregated_output");
		callus_buf both = CALLUS_BUF_INIT;
		int rc;

		mark_seen(s, callus_import_str(pl, "call_id"));
		if (!*out) {
			callus_buf_puts(&both, callus_import_str(pl, "stdout"));
			callus_buf_puts(&both, callus_import_str(pl, "stderr"));
			if (callus_buf_status(&both) < 0)
				return CALLUS_ENOMEM;
			out = both.ptr;
		}
		rc = emit_command(s, &ev, json_object_get(pl, "command"), callus_import_str(pl, "cwd"),
				  out, json_object_get(pl, "exit_code"), "", emit, ctx);
		callus_buf_release(&both);
		return rc;
	}
	if (!strcmp(pt, "patch_apply_end") && !json_is_false(json_object_get(pl, "success")))
		return file_changes(json_object_get(pl, "changes"), &ev, emit, ctx);
	return 0;
}

static int cx_locate(const char *home, callus_strlist *out)
{
	char *base = callus_import_dir("CODEX_HOME", home, ".codex");
	callus_buf dir = CALLUS_BUF_INIT;
	int rc;

	if (!base)
		return CALLUS_ENOMEM;
	callus_buf_printf(&dir, "%s/sessions", base);
	rc = callus_buf_status(&dir) < 0 ? CALLUS_ENOMEM
					 : callus_import_find_files(dir.ptr, ".jsonl", 4, out);
	callus_buf_release(&dir);
	free(base);
	return rc;
}

static const char *const cx_needles[] = {
	"\"session_meta\"", "\"turn_context\"", "\"item_completed\"", "\"exec_command_end\"",
	"\"patch_apply_end\"", "\"function_call", NULL,
};

const callus_transcript_ops callus_transcript_codex = {
	"codex", "~/.codex/sessions", cx_locate, cx_begin, cx_end, cx_record, cx_idle, cx_needles,
	NULL,
};
