/*
 * codex.c - Codex CLI: PostToolUse / SessionStart of its hooks.json.
 *
 * Codex 0.169 sends a shell call's tool_response as the bare output, with
 * no exit status: the status is in the session transcript the payload
 * names (transcript_path), against the payload's tool_use_id, which
 * callus_hook_event_complete() reads.  Older releases folded the status into
 * a header ("Exit code: N\nWall time: ...\nOutput:\n...") or sent JSON
 * ({"output": ..., "metadata": {"exit_code": N}}); both are still read.
 */
#include "agents/agent.h"
#include "callus/fsutil.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const char *const shells[] = { "Bash", "shell", "shell_command", "exec_command",
				      "local_shell", "container.exec", "unified_exec", NULL };

static int header_text(callus_hook_event *e, const char *s, size_t n)
{
	const char *end = s + n, *p = s, *body = NULL;
	int code = -1, running = 0;

	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	if (p < end && *p == '{') {
		json_error_t jerr;
		int oom, rc;
		json_t *o = callus_payload_load(p, (size_t)(end - p), 0, &jerr, &oom);
		size_t on;
		const char *out = callus_payload_jstr(o, "output", &on);

		if (oom)
			return CALLUS_ENOMEM;
		/* the command's own output may be JSON: only this shape counts */
		if (out && json_is_object(json_object_get(o, "metadata"))) {
			if (!callus_payload_jcode_any(json_object_get(o, "metadata"), &e->exit_code))
				callus_payload_jcode_any(o, &e->exit_code);
			rc = callus_payload_set_output(e, out, on);
			json_decref(o);
			return rc;
		}
		json_decref(o);
	}
	/* a header is a few lines at most: do not walk a large output */
	p = s;
	for (int lines = 0; p < end && lines < 16; lines++) {
		const char *le = callus_payload_eol(p, end), *colon = memchr(p, ':', (size_t)(le - p));

		if (callus_payload_has_prefix(p, le, "Output:") &&
		    (le - p == 7 || (le - p == 8 && p[7] == '\r'))) {
			body = le < end ? le + 1 : end;
			break;
		}
		if (callus_payload_has_prefix(p, le, "Exit code: "))
			callus_payload_code_line(p + 11, le, &code);
		else if (callus_payload_has_prefix(p, le, "Process exited with code "))
			callus_payload_code_line(p + 25, le, &code);
		else if (callus_payload_has_prefix(p, le, "Process running with session ID"))
			running = 1;
		else if (!colon || colon - p > 32)
			break; /* not a header line: there is no header */
		p = le < end ? le + 1 : end;
	}
	if (code >= 0 || running)
		e->exit_code = running ? -1 : code;
	if (!body)
		body = code >= 0 || running ? p : s;
	return callus_payload_set_output(e, body, (size_t)(end - body));
}

static int fill(callus_hook_event *e, const json_t *root)
{
	json_t *in = json_object_get(root, "tool_input");
	json_t *resp = json_object_get(root, "tool_response");
	size_t on = 0, en = 0;
	const char *out, *er;
	int rc;

	if ((rc = callus_payload_set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = callus_payload_set_jstr(&e->session_id, root, "session_id")) < 0 ||
	    (rc = callus_payload_set_jstr(&e->transcript, root, "transcript_path")) < 0 ||
	    (rc = callus_payload_set_jstr(&e->call_id, root, "tool_use_id")) < 0)
		return rc;
	e->session_start = callus_payload_streq(e->event, "SessionStart");
	e->is_shell = callus_payload_in_list(callus_payload_jstr(root, "tool_name", NULL), shells);
	if ((rc = callus_payload_set_cwd(e, callus_payload_jstr(root, "cwd", NULL),
				       e->is_shell ? callus_payload_jstr(in, "workdir", NULL) : NULL)) < 0)
		return rc;
	if (!e->is_shell)
		return 0;
	if ((rc = callus_payload_command(&e->command, in)) < 0)
		return rc;
	if (json_is_string(resp))
		return header_text(e, json_string_value(resp), json_string_length(resp));
	if (!callus_payload_jcode_any(resp, &e->exit_code))
		callus_payload_jcode_any(json_object_get(resp, "metadata"), &e->exit_code);
	out = callus_payload_jstr(resp, "output", &on);
	if (!out)
		out = callus_payload_jstr(resp, "aggregated_output", &on);
	if (out)
		return header_text(e, out, on); /* keeps the code unless a header says otherwise */
	out = callus_payload_jstr(resp, "stdout", &on);
	er = callus_payload_jstr(resp, "stderr", &en);
	return callus_payload_set_output2(e, out, on, er, en);
}

static int peek(char **out, const char *json, const char *end)
{
	return callus_payload_peek_tool(out, json, end, "tool_name", "tool_input", shells);
}

static int reply(json_t *root, const char *event, const char *ctx, size_t n)
{
	return callus_payload_reply_specific(root, event, "PostToolUse", ctx, n);
}

/*
 * Codex runs a project's hooks only when the project is trusted and each
 * hook was reviewed, both recorded in the user's config.toml
 * ($CODEX_HOME, else ~/.codex): [projects."DIR"] trust_level = "trusted",
 * and [hooks.state."DIR/.codex/hooks.json:EVENT:I:J"] trusted_hash = ...
 * (a hash of the hook's definition, which Codex checks itself: a changed
 * hook is no longer trusted).  Read, never written; a plain text scan of
 * the few lines that matter, not a TOML parser.
 */
/* Whether config.toml's text records a review (trusted_hash) under
 * [hooks.state."KEY"]. */
static int has_review(const char *text, size_t len, const char *key)
{
	callus_buf head = CALLUS_BUF_INIT;
	const char *p, *end, *q;
	int yes = 0;

	if (callus_buf_printf(&head, "[hooks.state.\"%s\"]", key) == 0 &&
	    (p = memmem(text, len, head.ptr, head.len))) {
		end = strstr(p + head.len, "\n[");
		end = end ? end : text + len;
		q = strstr(p + head.len, "trusted_hash");
		yes = q && q < end;
	}
	callus_buf_release(&head);
	return yes;
}

/* How many of callus's hooks in root/.codex/hooks.json were reviewed: each
 * is named by its event and place ("DIR/.codex/hooks.json:EVENT:I:J"),
 * and only callus's places count (a person's own hook reviewed says
 * nothing of callus's). */
static int reviewed_hooks(const char *root, const char *text, size_t len)
{
	callus_buf path = CALLUS_BUF_INIT, hooks = CALLUS_BUF_INIT, key = CALLUS_BUF_INIT;
	json_t *doc = NULL, *arr, *g, *h;
	const char *event;
	size_t i, j;
	int n = 0;

	if (callus_buf_printf(&path, "%s/.codex/hooks.json", root) < 0 ||
	    callus_fs_read_file(&hooks, path.ptr, CALLUS_AGENTCONF_FILE_MAX, NULL) < 0 ||
	    !(doc = json_loadb(hooks.ptr, hooks.len, 0, NULL)))
		goto out;
	json_object_foreach(json_object_get(doc, "hooks"), event, arr) {
		json_array_foreach(arr, i, g) {
			json_array_foreach(json_object_get(g, "hooks"), j, h) {
				if (!callus_agentconf_is_callus_command(
					    json_string_value(json_object_get(h, "command")), NULL))
					continue;
				/* the event as Codex names it there: PostToolUse is
				 * post_tool_use */
				callus_buf_clear(&key);
				callus_buf_printf(&key, "%s:", path.ptr);
				for (const char *e = event; *e; e++) {
					if (*e >= 'A' && *e <= 'Z' && e != event)
						callus_buf_putc(&key, '_');
					callus_buf_putc(&key, (char)(*e >= 'A' && *e <= 'Z' ? *e - 'A' + 'a'
												: *e));
				}
				if (callus_buf_printf(&key, ":%zu:%zu", i, j) == 0)
					n += has_review(text, len, key.ptr);
			}
		}
	}
out:
	json_decref(doc);
	callus_buf_release(&path);
	callus_buf_release(&hooks);
	callus_buf_release(&key);
	return n;
}

static void check_trust(const char *root, callus_buf *out)
{
	const char *p, *end;
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT, key = CALLUS_BUF_INIT;
	int trusted = 0, reviewed = 0;

	if (callus_agent_settings_path(&path, "CODEX_HOME", "config.toml", ".codex/config.toml") < 0)
		goto out;
	if (callus_fs_read_file(&text, path.ptr, 4u << 20, NULL) < 0) {
		callus_buf_printf(out,
				  "problem no %s, so this project is not trusted: Codex runs no "
				  "hook here (see 'callus init codex')\n",
				  path.ptr);
		goto out;
	}
	callus_buf_printf(&key, "[projects.\"%s\"]", root);
	if (callus_buf_status(&key) == 0 && (p = strstr(text.ptr, key.ptr))) {
		end = strstr(p + key.len, "\n[");
		end = end ? end : text.ptr + text.len;
		for (const char *q = p; (q = strstr(q, "trust_level")) && q < end; q++) {
			const char *v = strchr(q, '"');

			if (v && v < end && !strncmp(v, "\"trusted\"", 9))
				trusted = 1;
		}
	}
	reviewed = reviewed_hooks(root, text.ptr, text.len);
	if (!trusted)
		callus_buf_printf(out,
				  "problem this project is not trusted in %s: Codex runs no hook "
				  "here (trust it when Codex asks, or trust_level = \"trusted\" under "
				  "[projects.\"%s\"])\n",
				  path.ptr, root);
	if (!reviewed)
		callus_buf_printf(out,
				  "problem callus's hooks were never reviewed in Codex's /hooks (%s "
				  "has no trusted_hash for them): Codex runs none of them\n",
				  path.ptr);
	else if (trusted)
		callus_buf_printf(out,
				  "ok the project is trusted and %d of callus's hooks were reviewed "
				  "(Codex checks each one's hash: review again after changing them)\n",
				  reviewed);
out:
	callus_buf_release(&path);
	callus_buf_release(&text);
	callus_buf_release(&key);
}

/* Timeouts in seconds. */
static const callus_agentconf_agent install = {
	"codex", NULL, "Codex", ".codex/hooks.json", "PostToolUse, SessionStart",
	"Codex runs hooks only in a trusted project, and only hooks you reviewed: trust this "
	"project (trust_level = \"trusted\" under [projects.\"DIR\"] in ~/.codex/config.toml, "
	"or answer its trust prompt), then review callus's hooks once in /hooks (again after "
	"any change to them); 'callus doctor' checks both",
	CALLUS_AGENTCONF_NESTED,
	"command", "timeout", NULL, 1,
	{ { "PostToolUse", "Bash", 10 }, { "SessionStart", NULL, 0 } }, 2,
	NULL, check_trust,
};

const callus_agent_ops callus_agent_codex = {
	"codex", CALLUS_AGENT_CODEX, fill, peek, reply, "{}", 0, &install,
};
