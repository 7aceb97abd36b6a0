/*
 * copilot.c - GitHub Copilot CLI's transcripts (docs/import.md): one
 * directory per session, ~/.copilot/session-state/<session id>/events.jsonl.
 * Checked against Copilot CLI 1.0.102.
 *
 * Each line is {type, data, id, timestamp, parentId}.  session.start names
 * the directory (data.context.cwd); tool.execution_start {toolCallId,
 * toolName, arguments} opens a tool call and tool.execution_complete
 * {toolCallId, success, shellExecution: {exitCode}, result: {content,
 * detailedContent}} closes it.  A shell call's result ends with "<shellId: N
 * completed with exit code N>", followed by what hooks added (callus's own
 * reply among them): cut there.
 */
#include "reader.h"

#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

typedef struct cp_call {
	char *id, *tool, *command, *path, *old_text, *new_text, *content;
} cp_call;

typedef struct cp_state {
	char *cwd, *session;
	cp_call *calls;  /* started, not complete */
	size_t n;
} cp_state;

static void call_free(cp_call *c)
{
	free(c->id);
	free(c->tool);
	free(c->command);
	free(c->path);
	free(c->old_text);
	free(c->new_text);
	free(c->content);
}

static void *cp_begin(const char *path)
{
	cp_state *s = calloc(1, sizeof(*s));

	(void)path;
	if (s && (!(s->cwd = strdup("")) || !(s->session = strdup("")))) {
		free(s->cwd);
		free(s);
		return NULL;
	}
	return s;
}

static void cp_end(void *p)
{
	cp_state *s = p;

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		call_free(&s->calls[i]);
	free(s->calls);
	free(s->cwd);
	free(s->session);
	free(s);
}

static int cp_idle(const void *p)
{
	return ((const cp_state *)p)->n == 0;
}

static int is_shell(const char *tool)
{
	return !strcmp(tool, "bash") || !strcmp(tool, "shell") || !strcmp(tool, "powershell");
}

static int is_edit(const char *tool)
{
	return !strcmp(tool, "edit") || !strcmp(tool, "str_replace") || !strcmp(tool, "create") ||
	       !strcmp(tool, "write");
}

static int start(cp_state *s, const json_t *d)
{
	const char *tool = callus_import_str(d, "toolName");
	const json_t *a = json_object_get(d, "arguments");
	cp_call c, *g;

	if (!is_shell(tool) && !is_edit(tool))
		return 0;
	if (s->n >= 256) {
		call_free(&s->calls[0]);
		memmove(s->calls, s->calls + 1, --s->n * sizeof(*s->calls));
	}
	memset(&c, 0, sizeof(c));
	if (!(c.id = strdup(callus_import_str(d, "toolCallId"))) || !(c.tool = strdup(tool)) ||
	    !(c.command = strdup(callus_import_str(a, "command"))) ||
	    !(c.path = strdup(callus_import_str(a, "path"))) ||
	    !(c.old_text = strdup(callus_import_str(a, "old_str"))) ||
	    !(c.new_text = strdup(callus_import_str(a, "new_str"))) ||
	    !(c.content = strdup(callus_import_str(a, "file_text"))) ||
	    !(g = realloc(s->calls, (s->n + 1) * sizeof(*g)))) {
		call_free(&c);
		return CALLUS_ENOMEM;
	}
	s->calls = g;
	s->calls[s->n++] = c;
	return 0;
}

static int complete(cp_state *s, const json_t *d, callus_import_event *ev,
		    callus_import_emit emit, void *ctx)
{
	const char *id = callus_import_str(d, "toolCallId");
	const json_t *res = json_object_get(d, "result");
	const json_t *code = json_object_get(json_object_get(d, "shellExecution"), "exitCode");
	callus_buf b = CALLUS_BUF_INIT;
	cp_call *c;
	size_t k;
	int rc = 0;

	for (k = 0; k < s->n && strcmp(s->calls[k].id, id); k++)
		;
	if (k == s->n)
		return 0;
	c = &s->calls[k];
	if (is_shell(c->tool)) {
		const char *out = callus_import_str(res, "content"), *end;

		end = strstr(out, "<shellId: ");
		/* the output itself, without the tool's status line and what
		 * hooks appended after it */
		callus_buf_put(&b, out, end ? (size_t)(end - out) : strlen(out));
		callus_buf_rtrim(&b);
		ev->kind = CALLUS_IMPORT_COMMAND;
		ev->command = c->command;
		ev->output = b.ptr;
		ev->output_len = b.len;
		ev->exit_code = json_is_integer(code) ? (int)json_integer_value(code) : -1;
		ev->interrupted = !json_is_integer(code) && !json_is_true(json_object_get(d, "success"));
	} else if (json_is_true(json_object_get(d, "success"))) {
		const char *dc = callus_import_str(res, "detailedContent"), *h = strstr(dc, "\n@@");

		if (!strncmp(dc, "@@", 2))
			callus_buf_puts(&b, dc);
		else if (h)
			callus_buf_puts(&b, h + 1);
		else if (!strcmp(c->tool, "create"))
			callus_import_hunk_from_texts(&b, "", c->content, 0);
		else
			callus_import_hunk_from_texts(&b, c->old_text, c->new_text, 1);
		if (b.len && b.ptr[b.len - 1] != '\n')
			callus_buf_putc(&b, '\n');
		ev->kind = CALLUS_IMPORT_EDIT;
		ev->path = c->path;
		ev->hunks = b.ptr;
		ev->created = !strcmp(c->tool, "create");
	}
	if (callus_buf_status(&b) < 0)
		rc = CALLUS_ENOMEM;
	else if (ev->kind && (ev->kind == CALLUS_IMPORT_COMMAND || b.len))
		rc = emit(ctx, ev);
	callus_buf_release(&b);
	call_free(c);
	memmove(s->calls + k, s->calls + k + 1, (s->n - k - 1) * sizeof(*s->calls));
	s->n--;
	return rc;
}

static int cp_record(void *p, const json_t *rec, callus_import_emit emit, void *ctx)
{
	cp_state *s = p;
	const char *type = callus_import_str(rec, "type");
	const json_t *d = json_object_get(rec, "data");
	callus_import_event ev;

	if (!strcmp(type, "session.start")) {
		const char *cwd = callus_import_str(json_object_get(d, "context"), "cwd");

		if (callus_import_set(&s->session, callus_import_str(d, "sessionId")) < 0 ||
		    (*cwd && callus_import_set(&s->cwd, cwd) < 0))
			return CALLUS_ENOMEM;
		return 0;
	}
	if (!strcmp(type, "tool.execution_start"))
		return start(s, d);
	if (strcmp(type, "tool.execution_complete"))
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.time = callus_import_str(rec, "timestamp");
	ev.session = s->session;
	ev.cwd = s->cwd;
	ev.command = ev.output = ev.path = ev.hunks = "";
	ev.exit_code = -1;
	return complete(s, d, &ev, emit, ctx);
}

static int cp_locate(const char *home, callus_strlist *out)
{
	char *base = callus_import_dir(NULL, home, ".copilot/session-state");
	callus_strlist all = CALLUS_STRLIST_INIT;
	int rc;

	if (!base)
		return CALLUS_ENOMEM;
	rc = callus_import_find_files(base, ".jsonl", 1, &all);
	for (size_t i = 0; i < all.count && rc == 0; i++) {
		size_t l = strlen(all.items[i]);

		if (l > 13 && !strcmp(all.items[i] + l - 13, "/events.jsonl") &&
		    callus_strlist_add(out, all.items[i], l) < 0)
			rc = CALLUS_ENOMEM;
	}
	callus_strlist_release(&all);
	free(base);
	return rc;
}

static const char *const cp_needles[] = {
	"\"session.start\"", "\"tool.execution_start\"", "\"tool.execution_complete\"", NULL,
};

const callus_transcript_ops callus_transcript_copilot = {
	"copilot", "~/.copilot/session-state", cp_locate, cp_begin, cp_end, cp_record, cp_idle,
	cp_needles, NULL,
};
