/*
 * hookio.c - agents' hook payloads in, agents' replies out: the public side
 * of the agents family (src/agents/, one file per agent behind one
 * callus_agent_ops, see agent.h).  This file holds the table, the loading and
 * the checks every agent shares; what differs lives in the members.
 */
#include "callus/hookio.h"
#include "callus/utf8.h"

#include "agents/agent.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* In the order of the callus_agent enum. */
static const callus_agent_ops *const agents[] = {
	&callus_agent_claude_code, &callus_agent_codex, &callus_agent_gemini, &callus_agent_copilot,
	&callus_agent_cursor,      &callus_agent_cline, &callus_agent_generic,
};

#define NAGENTS (sizeof(agents) / sizeof(agents[0]))

static const callus_agent_ops *ops_of(callus_agent a)
{
	return (unsigned)a < NAGENTS ? agents[a] : NULL;
}

const callus_agent_ops *callus_agent_ops_nth(size_t i)
{
	return i < NAGENTS ? agents[i] : NULL;
}

int callus_agent_parse(callus_agent *out, const char *name)
{
	if (!name)
		return CALLUS_EINVAL;
	for (size_t i = 0; i < NAGENTS; i++) {
		const callus_agentconf_agent *in = agents[i]->install;

		/* the alias is the name people type: "claude" */
		if (!strcmp(name, agents[i]->name) || (in && in->alias && !strcmp(name, in->alias))) {
			*out = agents[i]->id;
			return 0;
		}
	}
	return CALLUS_EINVAL;
}

const char *callus_agent_name(callus_agent a)
{
	const callus_agent_ops *ops = ops_of(a);

	return ops ? ops->name : "unknown";
}

void callus_hook_event_release(callus_hook_event *e)
{
	callus_hook_event *next;

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
	free(e->edit_path);
	*e = (callus_hook_event)CALLUS_HOOK_EVENT_INIT;
	while (next) {
		callus_hook_event *n = next->next;

		next->next = NULL;
		callus_hook_event_release(next);
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

/* callus_hook_event_parse(), of owner's text when owner is not NULL
 * (released on return). */
static int event_parse(callus_hook_event *out, callus_agent agent, const char *json, size_t len,
		       callus_buf *owner, callus_error *err)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	const callus_agent_ops *ops = ops_of(agent);
	json_t *root = NULL;
	json_error_t jerr;
	size_t i = 0;
	int rc = 0, oom;

	*out = (callus_hook_event)CALLUS_HOOK_EVENT_INIT;
	if (!ops) {
		rc = callus_error_set(err, CALLUS_EINVAL, "unknown agent %d", (int)agent);
		goto out;
	}
	while (json && i < len && strchr(" \t\r\n", json[i]) && json[i])
		i++;
	if (!json || i == len) {
		rc = callus_error_set(err, CALLUS_EINVAL, "the %s hook payload is empty", ops->name);
		goto out;
	}
	root = owner ? callus_payload_load_buf(owner, JSON_DECODE_ANY, &jerr, &oom)
		     : callus_payload_load(json, len, JSON_DECODE_ANY, &jerr, &oom);
	if (!root) {
		if (oom)
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory reading the %s hook payload",
					    ops->name);
		else
			rc = callus_error_set(err, CALLUS_EINVAL,
					    "the %s hook payload is not valid JSON: %s (line %d, column %d)",
					    ops->name, jerr.text, jerr.line, jerr.column);
		goto out;
	}
	if (!json_is_object(root)) {
		rc = callus_error_set(err, CALLUS_EINVAL, "the %s hook payload is %s, not a JSON object",
				    ops->name, json_type_name(root));
		goto out;
	}
	e.agent = agent;
	rc = ops->fill(&e, root);
	for (callus_hook_event *x = &e; rc == 0 && x; x = x->next) {
		if (!x->event)
			rc = callus_payload_set_text(&x->event, NULL, "", 0);
		if (rc == 0 && !x->output)
			rc = callus_payload_set_output(x, "", 0);
	}
	if (rc < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory reading the %s hook payload",
				    ops->name);
		goto out;
	}
	*out = e;
	e = (callus_hook_event)CALLUS_HOOK_EVENT_INIT;
out:
	callus_hook_event_release(&e);
	json_decref(root);
	if (owner)
		callus_buf_release(owner);
	return rc;
}

int callus_hook_event_parse(callus_hook_event *out, callus_agent agent, const char *json, size_t len,
			  callus_error *err)
{
	return event_parse(out, agent, json, len, NULL, err);
}

int callus_hook_event_parse_buf(callus_hook_event *out, callus_agent agent, callus_buf *json,
				callus_error *err)
{
	return event_parse(out, agent, json->ptr, json->len, json, err);
}

int callus_hook_peek_command(char **out, callus_agent agent, const char *json, size_t len)
{
	const callus_agent_ops *ops = ops_of(agent);
	const char *end = json + len, *root = json;

	*out = NULL;
	if (!ops || !json)
		return CALLUS_EINVAL;
	/* NUL counts as a blank, as the loader's repair makes it one */
	while (root < end && (*root == ' ' || *root == '\t' || *root == '\n' || *root == '\r' || !*root))
		root++;
	if (root >= end || *root != '{')
		return CALLUS_EINVAL;
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

int callus_hook_reply(callus_buf *out, callus_agent agent, const char *event, const char *context,
		    size_t max_chars)
{
	const callus_agent_ops *ops = ops_of(agent);
	callus_buf ctx = CALLUS_BUF_INIT;
	json_t *root = NULL;
	char *text = NULL;
	size_t n;
	int rc = CALLUS_ENOMEM;

	if (!ops)
		return CALLUS_EINVAL;
	if (!context || !*context)
		return callus_buf_puts(out, ops->empty_reply);
	if (callus_utf8_sanitize(&ctx, context, strlen(context)) < 0)
		goto out;
	n = max_chars ? cut_chars(ctx.ptr, ctx.len, max_chars) : ctx.len;
	if (ops->context_max)
		n = callus_utf8_cut(ctx.ptr, n, ops->context_max);
	if (!(root = json_object()) || ops->reply(root, event ? event : "", ctx.ptr, n) < 0)
		goto out;
	if (!json_object_size(root)) {
		rc = callus_buf_puts(out, ops->empty_reply);
		goto out;
	}
	if ((text = json_dumps(root, JSON_COMPACT)))
		rc = callus_buf_puts(out, text);
out:
	free(text);
	json_decref(root);
	callus_buf_release(&ctx);
	return rc;
}

/* ---- what the payload leaves to files ------------------------------------- */

static int id_matches(const json_t *obj, const char *id)
{
	static const char *const keys[] = { "call_id", "callId", "id", "tool_use_id", "item_id" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (callus_payload_streq(callus_payload_jstr(obj, keys[i], NULL), id))
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
		if (id_matches(v, id) && callus_payload_jcode_any(v, code))
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
	callus_buf b = CALLUS_BUF_INIT;
	off_t from;
	int fd, found = 0, rc = 0;
	const char *p, *end;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		goto out;
	from = st.st_size > (off_t)CALLUS_TRANSCRIPT_TAIL ? st.st_size - (off_t)CALLUS_TRANSCRIPT_TAIL : 0;
	for (;;) {
		char chunk[65536];
		ssize_t n = pread(fd, chunk, sizeof(chunk), from);

		if (n <= 0)
			break;
		if (callus_buf_put(&b, chunk, (size_t)n) < 0) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
		from += n;
		if (b.len >= CALLUS_TRANSCRIPT_TAIL)
			break;
	}
	p = b.ptr;
	end = b.ptr + b.len;
	while (p && p < end) {
		const char *le = callus_payload_eol(p, end);
		size_t idl = strlen(id);

		if (memmem(p, (size_t)(le - p), id, idl)) {
			json_error_t jerr;
			int oom, c;
			json_t *line = callus_payload_load(p, (size_t)(le - p), 0, &jerr, &oom);

			if (oom) {
				rc = CALLUS_ENOMEM;
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
	callus_buf_release(&b);
	return rc < 0 ? rc : found;
}

int callus_hook_event_complete(callus_hook_event *e)
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
