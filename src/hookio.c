/*
 * hookio.c - agents' hook payloads in, agents' replies out: the public side
 * of the agents family (src/agents/, one file per agent behind one
 * deja_agent_ops, see agent.h).  This file holds the table, the loading and
 * the checks every agent shares; what differs lives in the members.
 */
#include "deja/hookio.h"
#include "deja/utf8.h"

#include "agents/agent.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* In the order of the deja_agent enum. */
static const deja_agent_ops *const agents[] = {
	&deja_agent_claude_code, &deja_agent_codex, &deja_agent_gemini, &deja_agent_copilot,
	&deja_agent_cursor,      &deja_agent_cline, &deja_agent_generic,
};

#define NAGENTS (sizeof(agents) / sizeof(agents[0]))

static const deja_agent_ops *ops_of(deja_agent a)
{
	return (unsigned)a < NAGENTS ? agents[a] : NULL;
}

int deja_agent_parse(deja_agent *out, const char *name)
{
	if (!name)
		return DEJA_EINVAL;
	if (!strcmp(name, "claude")) /* the name people type */
		name = "claude-code";
	for (size_t i = 0; i < NAGENTS; i++) {
		if (strcmp(name, agents[i]->name) == 0) {
			*out = agents[i]->id;
			return 0;
		}
	}
	return DEJA_EINVAL;
}

const char *deja_agent_name(deja_agent a)
{
	const deja_agent_ops *ops = ops_of(a);

	return ops ? ops->name : "unknown";
}

void deja_hook_event_release(deja_hook_event *e)
{
	deja_hook_event *next;

	if (!e)
		return;
	next = e->next;
	free(e->event);
	free(e->command);
	free(e->output);
	free(e->cwd);
	free(e->session_id);
	free(e->transcript);
	free(e->call_id);
	*e = (deja_hook_event)DEJA_HOOK_EVENT_INIT;
	while (next) {
		deja_hook_event *n = next->next;

		next->next = NULL;
		deja_hook_event_release(next);
		free(next);
		next = n;
	}
}

static const char *json_type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER:
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

int deja_hook_event_parse(deja_hook_event *out, deja_agent agent, const char *json, size_t len,
			  deja_error *err)
{
	deja_hook_event e = DEJA_HOOK_EVENT_INIT;
	const deja_agent_ops *ops = ops_of(agent);
	json_t *root = NULL;
	json_error_t jerr;
	size_t i = 0;
	int rc = 0, oom;

	*out = (deja_hook_event)DEJA_HOOK_EVENT_INIT;
	if (!ops)
		return deja_error_set(err, DEJA_EINVAL, "unknown agent %d", (int)agent);
	while (json && i < len && strchr(" \t\r\n", json[i]) && json[i])
		i++;
	if (!json || i == len)
		return deja_error_set(err, DEJA_EINVAL, "the %s hook payload is empty", ops->name);
	if (!(root = deja_payload_load(json, len, JSON_DECODE_ANY, &jerr, &oom))) {
		if (oom)
			rc = deja_error_set(err, DEJA_ENOMEM, "out of memory reading the %s hook payload",
					    ops->name);
		else
			rc = deja_error_set(err, DEJA_EINVAL,
					    "the %s hook payload is not valid JSON: %s (line %d, column %d)",
					    ops->name, jerr.text, jerr.line, jerr.column);
		goto out;
	}
	if (!json_is_object(root)) {
		rc = deja_error_set(err, DEJA_EINVAL, "the %s hook payload is %s, not a JSON object",
				    ops->name, json_type_name(root));
		goto out;
	}
	e.agent = agent;
	rc = ops->fill(&e, root);
	for (deja_hook_event *x = &e; rc == 0 && x; x = x->next) {
		if (!x->event)
			rc = deja_payload_set_text(&x->event, NULL, "", 0);
		if (rc == 0 && !x->output)
			rc = deja_payload_set_output(x, "", 0);
	}
	if (rc < 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory reading the %s hook payload",
				    ops->name);
		goto out;
	}
	*out = e;
	e = (deja_hook_event)DEJA_HOOK_EVENT_INIT;
out:
	deja_hook_event_release(&e);
	json_decref(root);
	return rc;
}

int deja_hook_peek_command(char **out, deja_agent agent, const char *json, size_t len)
{
	const deja_agent_ops *ops = ops_of(agent);
	const char *end = json + len, *root = json;

	*out = NULL;
	if (!ops || !json)
		return DEJA_EINVAL;
	/* NUL counts as a blank, as the loader's repair makes it one */
	while (root < end && (*root == ' ' || *root == '\t' || *root == '\n' || *root == '\r' || !*root))
		root++;
	if (root >= end || *root != '{')
		return DEJA_EINVAL;
	return ops->peek(out, root, end);
}

/* ---- replies ------------------------------------------------------------- */

/* Bytes in the first max characters of valid UTF-8 s[0..n). */
static size_t cut_chars(const char *s, size_t n, size_t max)
{
	size_t chars = 0;

	for (size_t i = 0; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && chars++ == max)
			return i;
	}
	return n;
}

/* At most max bytes of valid UTF-8 s[0..n), ending between characters. */
static size_t cut_bytes(const char *s, size_t n, size_t max)
{
	if (n <= max)
		return n;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

int deja_hook_reply(deja_buf *out, deja_agent agent, const char *event, const char *context,
		    size_t max_chars)
{
	const deja_agent_ops *ops = ops_of(agent);
	deja_buf ctx = DEJA_BUF_INIT;
	json_t *root = NULL;
	char *text = NULL;
	size_t n;
	int rc = DEJA_ENOMEM;

	if (!ops)
		return DEJA_EINVAL;
	if (!context || !*context)
		return deja_buf_puts(out, ops->empty_reply);
	if (deja_utf8_sanitize(&ctx, context, strlen(context)) < 0)
		goto out;
	n = max_chars ? cut_chars(ctx.ptr, ctx.len, max_chars) : ctx.len;
	if (ops->context_max)
		n = cut_bytes(ctx.ptr, n, ops->context_max);
	if (!(root = json_object()) || ops->reply(root, event ? event : "", ctx.ptr, n) < 0)
		goto out;
	if (!json_object_size(root)) {
		rc = deja_buf_puts(out, ops->empty_reply);
		goto out;
	}
	if ((text = json_dumps(root, JSON_COMPACT)))
		rc = deja_buf_puts(out, text);
out:
	free(text);
	json_decref(root);
	deja_buf_release(&ctx);
	return rc;
}

/* ---- what the payload leaves to files ------------------------------------- */

static int id_matches(const json_t *obj, const char *id)
{
	static const char *const keys[] = { "call_id", "callId", "id", "tool_use_id", "item_id" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (deja_payload_streq(deja_payload_jstr(obj, keys[i], NULL), id))
			return 1;
	return 0;
}

/* The exit status recorded against id anywhere in v (depth-bounded). */
static int find_status(const json_t *v, const char *id, int depth, int *code)
{
	const char *key;
	json_t *x;
	size_t i;

	if (depth > 8)
		return 0;
	if (json_is_object(v)) {
		if (id_matches(v, id) && deja_payload_jcode_any(v, code))
			return 1;
		json_object_foreach((json_t *)v, key, x)
			if (find_status(x, id, depth + 1, code))
				return 1;
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			if (find_status(x, id, depth + 1, code))
				return 1;
	}
	return 0;
}

/*
 * A JSON-lines transcript: the last line that records an exit status for
 * the call wins.  Only the tail is read (the call just ended, so its record
 * is near the end), only lines naming the id are parsed.
 */
static int transcript_status(const char *path, const char *id, int *code)
{
	struct stat st;
	deja_buf b = DEJA_BUF_INIT;
	off_t from;
	int fd, found = 0, rc = 0;
	const char *p, *end;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	from = st.st_size > (off_t)DEJA_TRANSCRIPT_TAIL ? st.st_size - (off_t)DEJA_TRANSCRIPT_TAIL : 0;
	for (;;) {
		char chunk[65536];
		ssize_t n = pread(fd, chunk, sizeof(chunk), from);

		if (n <= 0)
			break;
		if (deja_buf_put(&b, chunk, (size_t)n) < 0) {
			rc = DEJA_ENOMEM;
			goto out;
		}
		from += n;
		if (b.len >= DEJA_TRANSCRIPT_TAIL)
			break;
	}
	p = b.ptr;
	end = b.ptr + b.len;
	while (p && p < end) {
		const char *le = deja_payload_eol(p, end);
		size_t idl = strlen(id);

		if (memmem(p, (size_t)(le - p), id, idl)) {
			json_error_t jerr;
			int oom, c;
			json_t *line = deja_payload_load(p, (size_t)(le - p), 0, &jerr, &oom);

			if (oom) {
				rc = DEJA_ENOMEM;
				goto out;
			}
			if (line && find_status(line, id, 0, &c)) {
				*code = c;
				found = 1;
			}
			json_decref(line);
		}
		p = le + 1;
	}
out:
	close(fd);
	deja_buf_release(&b);
	return rc < 0 ? rc : found;
}

int deja_hook_event_complete(deja_hook_event *e)
{
	int code, rc;

	if (!e || e->exit_code >= 0 || !e->transcript || !*e->transcript || !e->call_id ||
	    !*e->call_id || e->interrupted)
		return 0;
	if ((rc = transcript_status(e->transcript, e->call_id, &code)) < 0)
		return rc;
	if (rc > 0)
		e->exit_code = code;
	return 0;
}
