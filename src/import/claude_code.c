/*
 * claude_code.c - Claude Code's transcripts (docs/import.md): one JSONL file
 * per session, ~/.claude/projects/<the directory, '/' as '-'>/<session>.jsonl
 * ($CLAUDE_CONFIG_DIR/projects when set).  Checked against Claude Code
 * 2.1.331.
 *
 * An "assistant" record's message carries tool_use blocks (id, name,
 * input); a later "user" record carries the tool_result block with the
 * same tool_use_id and, beside the message, toolUseResult: for Bash
 * {stdout, stderr, interrupted, bashEditDiff: {files: [{filePath, hunks}]}},
 * for Edit, MultiEdit and Write {filePath, structuredPatch: [hunks],
 * type: "create" for a new file, content}.  A failed Bash command's result
 * is is_error with "Exit code N" first.  Every record has timestamp, cwd
 * and sessionId.
 */
#include "reader.h"

#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

typedef struct call {
	char *id, *name, *command, *old_text, *new_text, *path;
} call;

typedef struct cc_state {
	call *calls;   /* tool calls waiting for their result */
	size_t n, cap;
} cc_state;

static void call_free(call *c)
{
	free(c->id);
	free(c->name);
	free(c->command);
	free(c->old_text);
	free(c->new_text);
	free(c->path);
}

static void *cc_begin(const char *path)
{
	(void)path;
	return calloc(1, sizeof(cc_state));
}

static void cc_end(void *p)
{
	cc_state *s = p;

	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		call_free(&s->calls[i]);
	free(s->calls);
	free(s);
}

static int cc_idle(const void *p)
{
	return ((const cc_state *)p)->n == 0;
}

static int is_edit_tool(const char *name)
{
	return !strcmp(name, "Edit") || !strcmp(name, "MultiEdit") || !strcmp(name, "Write");
}

static int add_call(cc_state *s, const json_t *block)
{
	const char *name = callus_import_str(block, "name");
	const json_t *in = json_object_get(block, "input");
	call c;

	if (strcmp(name, "Bash") && !is_edit_tool(name))
		return 0;
	/* a transcript that never answers its calls must not grow this */
	if (s->n >= 256) {
		call_free(&s->calls[0]);
		memmove(s->calls, s->calls + 1, --s->n * sizeof(*s->calls));
	}
	memset(&c, 0, sizeof(c));
	if (!(c.id = strdup(callus_import_str(block, "id"))) || !(c.name = strdup(name)) ||
	    !(c.command = strdup(callus_import_str(in, "command"))) ||
	    !(c.old_text = strdup(callus_import_str(in, "old_string"))) ||
	    !(c.new_text = strdup(callus_import_str(in, "new_string"))) ||
	    !(c.path = strdup(callus_import_str(in, "file_path"))))
		goto nomem;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		call *g = realloc(s->calls, cap * sizeof(*g));

		if (!g)
			goto nomem;
		s->calls = g;
		s->cap = cap;
	}
	s->calls[s->n++] = c;
	return 0;
nomem:
	call_free(&c);
	return CALLUS_ENOMEM;
}

/* "Exit code N" at the start of a failed command's result: N, and where
 * the output starts. */
static int exit_of(const char *text, const char **rest)
{
	char *end;
	long v;

	*rest = text;
	if (strncmp(text, "Exit code ", 10))
		return -1;
	v = strtol(text + 10, &end, 10);
	if (end == text + 10 || v < 0 || v > 255)
		return -1;
	while (*end == '\n')
		end++;
	*rest = end;
	return (int)v;
}

static int emit_file_edits(const json_t *files, callus_import_event *ev, callus_import_emit emit,
			   void *ctx)
{
	callus_buf h = CALLUS_BUF_INIT;
	size_t i;
	json_t *f;
	int rc = 0;

	json_array_foreach(files, i, f) {
		callus_buf_truncate(&h, 0);
		if (!callus_import_structured_hunks(&h, json_object_get(f, "hunks")))
			continue;
		if (callus_buf_status(&h) < 0) {
			rc = CALLUS_ENOMEM;
			break;
		}
		ev->kind = CALLUS_IMPORT_EDIT;
		ev->path = callus_import_str(f, "filePath");
		ev->hunks = h.ptr;
		ev->created = json_is_true(json_object_get(f, "created"));
		ev->deleted = json_is_true(json_object_get(f, "deleted"));
		if ((rc = emit(ctx, ev)) < 0)
			break;
	}
	callus_buf_release(&h);
	return rc;
}

static int bash_result(const call *c, const json_t *block, const json_t *tur,
		       callus_import_event *ev, callus_import_emit emit, void *ctx)
{
	callus_buf out = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	int is_error = json_is_true(json_object_get(block, "is_error")), rc;
	const char *rest;

	if (json_is_object(tur) &&
	    (rc = emit_file_edits(json_object_get(json_object_get(tur, "bashEditDiff"), "files"), ev,
				  emit, ctx)) < 0)
		return rc;
	callus_import_content_text(&text, json_object_get(block, "content"));
	ev->kind = CALLUS_IMPORT_COMMAND;
	ev->command = c->command;
	ev->exit_code = is_error ? exit_of(text.ptr, &rest) : 0;
	ev->interrupted = json_is_true(json_object_get(tur, "interrupted"));
	if (json_is_object(tur) && !is_error) {
		const char *so = callus_import_str(tur, "stdout"), *se = callus_import_str(tur, "stderr");

		callus_buf_puts(&out, so);
		if (*so && *se)
			callus_buf_putc(&out, '\n');
		callus_buf_puts(&out, se);
	} else {
		/* a failure's result is "Exit code N", then the output */
		callus_buf_puts(&out, is_error ? rest : text.ptr);
	}
	if (callus_buf_status(&out) < 0 || callus_buf_status(&text) < 0) {
		rc = CALLUS_ENOMEM;
	} else {
		ev->output = out.ptr;
		ev->output_len = out.len;
		rc = emit(ctx, ev);
	}
	callus_buf_release(&out);
	callus_buf_release(&text);
	return rc;
}

static int edit_result(const call *c, const json_t *block, const json_t *tur,
		       callus_import_event *ev, callus_import_emit emit, void *ctx)
{
	callus_buf h = CALLUS_BUF_INIT;
	const json_t *sp = json_object_get(tur, "structuredPatch");
	int rc = 0;

	if (json_is_true(json_object_get(block, "is_error")))
		return 0;
	ev->created = !strcmp(callus_import_str(tur, "type"), "create");
	if (json_is_array(sp) && json_array_size(sp)) {
		callus_import_structured_hunks(&h, sp);
	} else if (ev->created) {
		callus_import_hunk_from_texts(&h, "", callus_import_str(tur, "content"), 0);
	} else if (*c->old_text || *c->new_text) {
		callus_import_hunk_from_texts(&h, c->old_text, c->new_text, 1);
	}
	if (callus_buf_status(&h) < 0) {
		rc = CALLUS_ENOMEM;
	} else if (h.len) {
		const char *p = callus_import_str(tur, "filePath");

		ev->kind = CALLUS_IMPORT_EDIT;
		ev->path = *p ? p : c->path;
		ev->hunks = h.ptr;
		rc = emit(ctx, ev);
	}
	callus_buf_release(&h);
	return rc;
}

static int cc_record(void *p, const json_t *rec, callus_import_emit emit, void *ctx)
{
	cc_state *s = p;
	const char *type = callus_import_str(rec, "type");
	const json_t *content = json_object_get(json_object_get(rec, "message"), "content");
	callus_import_event ev;
	size_t i;
	json_t *b;
	int rc = 0;

	if (!json_is_array(content))
		return 0;
	if (!strcmp(type, "assistant")) {
		json_array_foreach(content, i, b)
			if (!strcmp(callus_import_str(b, "type"), "tool_use") &&
			    (rc = add_call(s, b)) < 0)
				return rc;
		return 0;
	}
	if (strcmp(type, "user"))
		return 0;
	json_array_foreach(content, i, b) {
		const char *id = callus_import_str(b, "tool_use_id");
		const json_t *tur = json_object_get(rec, "toolUseResult");
		size_t k;

		if (strcmp(callus_import_str(b, "type"), "tool_result"))
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.time = callus_import_str(rec, "timestamp");
		ev.session = callus_import_str(rec, "sessionId");
		ev.cwd = callus_import_str(rec, "cwd");
		ev.command = ev.output = ev.path = ev.hunks = "";
		ev.exit_code = -1;
		for (k = 0; k < s->n && strcmp(s->calls[k].id, id); k++)
			;
		if (k == s->n)
			continue;
		if (!strcmp(s->calls[k].name, "Bash"))
			rc = bash_result(&s->calls[k], b, tur, &ev, emit, ctx);
		else
			rc = edit_result(&s->calls[k], b, tur, &ev, emit, ctx);
		call_free(&s->calls[k]);
		memmove(s->calls + k, s->calls + k + 1, (s->n - k - 1) * sizeof(*s->calls));
		s->n--;
		if (rc < 0)
			break;
	}
	return rc;
}

static int cc_locate(const char *home, callus_strlist *out)
{
	char *base = callus_import_dir("CLAUDE_CONFIG_DIR", home, ".claude");
	callus_buf dir = CALLUS_BUF_INIT;
	int rc;

	if (!base)
		return CALLUS_ENOMEM;
	callus_buf_printf(&dir, "%s/projects", base);
	rc = callus_buf_status(&dir) < 0 ? CALLUS_ENOMEM
					 : callus_import_find_files(dir.ptr, ".jsonl", 2, out);
	callus_buf_release(&dir);
	free(base);
	return rc;
}

static const char *const cc_needles[] = { "\"tool_use\"", "\"tool_result\"", NULL };

/* A user record of results only matters when a call it answers is waiting
 * (Bash, the edit tools): Read's, Grep's... are most of a transcript's
 * bytes and are not parsed.  The ids are found in the raw text: in doubt
 * (no id, an escape in it), parse. */
static int cc_want(const void *p, const char *line, size_t len)
{
	static const char key[] = "\"tool_use_id\":\"";
	const cc_state *s = p;
	const char *at = line, *end = line + len;
	int found = 0;

	if (memmem(line, len, "\"tool_use\"", 10)) {
		/* a call: only the tools read here (compact JSON, as Claude
		 * Code writes it; anything else is parsed) */
		static const char *const tools[] = { "\"name\":\"Bash\"", "\"name\":\"Edit\"",
						     "\"name\":\"MultiEdit\"", "\"name\":\"Write\"" };

		if (!memmem(line, len, "\"name\":\"", 8))
			return 1;
		for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]); i++)
			if (memmem(line, len, tools[i], strlen(tools[i])))
				return 1;
		return 0;
	}
	while ((at = memmem(at, (size_t)(end - at), key, sizeof(key) - 1))) {
		const char *id = at + sizeof(key) - 1, *q = memchr(id, '"', (size_t)(end - id));

		if (!q || memchr(id, '\\', (size_t)(q - id)))
			return 1;
		found = 1;
		for (size_t i = 0; i < s->n; i++)
			if (strlen(s->calls[i].id) == (size_t)(q - id) &&
			    !memcmp(s->calls[i].id, id, (size_t)(q - id)))
				return 1;
		at = q;
	}
	return !found;
}

const callus_transcript_ops callus_transcript_claude_code = {
	"claude-code", "~/.claude/projects", cc_locate, cc_begin, cc_end, cc_record, cc_idle,
	cc_needles, cc_want,
};
