/*
 * codex.c - Codex CLI: PostToolUse / SessionStart of its hooks.json.
 *
 * Codex 0.169 sends a shell call's tool_response as the bare output, with
 * no exit status: the status is in the session transcript the payload
 * names (transcript_path), against the payload's tool_use_id, which
 * deja_hook_event_complete() reads.  Older releases folded the status into
 * a header ("Exit code: N\nWall time: ...\nOutput:\n...") or sent JSON
 * ({"output": ..., "metadata": {"exit_code": N}}); both are still read.
 */
#include "agents/agent.h"

#include <string.h>

static const char *const shells[] = { "Bash", "shell", "shell_command", "exec_command",
				      "local_shell", "container.exec", "unified_exec", NULL };

static int header_text(deja_hook_event *e, const char *s, size_t n)
{
	const char *end = s + n, *p = s, *body = NULL;
	int code = -1, running = 0;

	while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
		p++;
	if (p < end && *p == '{') {
		json_error_t jerr;
		int oom, rc;
		json_t *o = deja_payload_load(p, (size_t)(end - p), 0, &jerr, &oom);
		size_t on;
		const char *out = deja_payload_jstr(o, "output", &on);

		if (oom)
			return DEJA_ENOMEM;
		/* the command's own output may be JSON: only this shape counts */
		if (out && json_is_object(json_object_get(o, "metadata"))) {
			if (!deja_payload_jcode_any(json_object_get(o, "metadata"), &e->exit_code))
				deja_payload_jcode_any(o, &e->exit_code);
			rc = deja_payload_set_output(e, out, on);
			json_decref(o);
			return rc;
		}
		json_decref(o);
	}
	/* a header is a few lines at most: do not walk a large output */
	p = s;
	for (int lines = 0; p < end && lines < 16; lines++) {
		const char *le = deja_payload_eol(p, end), *colon = memchr(p, ':', (size_t)(le - p));

		if (deja_payload_has_prefix(p, le, "Output:") &&
		    (le - p == 7 || (le - p == 8 && p[7] == '\r'))) {
			body = le < end ? le + 1 : end;
			break;
		}
		if (deja_payload_has_prefix(p, le, "Exit code: "))
			deja_payload_code_line(p + 11, le, &code);
		else if (deja_payload_has_prefix(p, le, "Process exited with code "))
			deja_payload_code_line(p + 25, le, &code);
		else if (deja_payload_has_prefix(p, le, "Process running with session ID"))
			running = 1;
		else if (!colon || colon - p > 32)
			break; /* not a header line: there is no header */
		p = le < end ? le + 1 : end;
	}
	if (code >= 0 || running)
		e->exit_code = running ? -1 : code;
	if (!body)
		body = code >= 0 || running ? p : s;
	return deja_payload_set_output(e, body, (size_t)(end - body));
}

static int fill(deja_hook_event *e, const json_t *root)
{
	json_t *in = json_object_get(root, "tool_input");
	json_t *resp = json_object_get(root, "tool_response");
	size_t on = 0, en = 0;
	const char *out, *er;
	int rc;

	if ((rc = deja_payload_set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = deja_payload_set_jstr(&e->session_id, root, "session_id")) < 0 ||
	    (rc = deja_payload_set_jstr(&e->transcript, root, "transcript_path")) < 0 ||
	    (rc = deja_payload_set_jstr(&e->call_id, root, "tool_use_id")) < 0)
		return rc;
	e->session_start = deja_payload_streq(e->event, "SessionStart");
	e->is_shell = deja_payload_in_list(deja_payload_jstr(root, "tool_name", NULL), shells);
	if ((rc = deja_payload_set_cwd(e, deja_payload_jstr(root, "cwd", NULL),
				       e->is_shell ? deja_payload_jstr(in, "workdir", NULL) : NULL)) < 0)
		return rc;
	if (!e->is_shell)
		return 0;
	if ((rc = deja_payload_command(&e->command, in)) < 0)
		return rc;
	if (json_is_string(resp))
		return header_text(e, json_string_value(resp), json_string_length(resp));
	if (!deja_payload_jcode_any(resp, &e->exit_code))
		deja_payload_jcode_any(json_object_get(resp, "metadata"), &e->exit_code);
	out = deja_payload_jstr(resp, "output", &on);
	if (!out)
		out = deja_payload_jstr(resp, "aggregated_output", &on);
	if (out)
		return header_text(e, out, on); /* keeps the code unless a header says otherwise */
	out = deja_payload_jstr(resp, "stdout", &on);
	er = deja_payload_jstr(resp, "stderr", &en);
	return deja_payload_set_output2(e, out, on, er, en);
}

static int peek(char **out, const char *json, const char *end)
{
	return deja_payload_peek_tool(out, json, end, "tool_name", "tool_input", shells);
}

static int reply(json_t *root, const char *event, const char *ctx, size_t n)
{
	return deja_payload_reply_specific(root, event, "PostToolUse", ctx, n);
}

const deja_agent_ops deja_agent_codex = {
	"codex", DEJA_AGENT_CODEX, fill, peek, reply, "{}", 0,
};
