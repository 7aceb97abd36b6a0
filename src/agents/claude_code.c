/*
 * claude_code.c - Claude Code: PostToolUse / PostToolUseFailure /
 * SessionStart, the Bash tool.
 *
 * PostToolUse fires for Bash only when the command exited 0; a non-zero
 * exit is a PostToolUseFailure whose "error" starts "Exit code N".  Two
 * exceptions make a PostToolUse prove nothing: a command run in the
 * background (run_in_background, a backgroundTaskId in the response: the
 * shell returned at once), and one the tool killed for its timeout ("Exit
 * code 143" with "Command timed out").
 */
#include "agents/agent.h"

#include <string.h>

static const char *const shells[] = { "Bash", "PowerShell", NULL };

/* A first line "Exit code N", then the output. */
static int status_text(deja_hook_event *e, const char *s, size_t n, int *found)
{
	const char *end = s + n, *le;

	*found = 0;
	if (deja_payload_has_prefix(s, end, "Exit code ") &&
	    deja_payload_code_line(s + 10, end, &e->exit_code)) {
		le = deja_payload_eol(s, end);
		*found = 1;
		s = le < end ? le + 1 : end;
	}
	return deja_payload_set_output(e, s, (size_t)(end - s));
}

static int timed_out(const char *s, size_t n)
{
	return memmem(s, n, "Command timed out", 17) != NULL;
}

static int fill(deja_hook_event *e, const json_t *root)
{
	json_t *resp = json_object_get(root, "tool_response");
	json_t *in = json_object_get(root, "tool_input");
	size_t errn = 0, on = 0, en = 0;
	const char *err = deja_payload_jstr(root, "error", &errn), *out, *er;
	int rc, found;

	if ((rc = deja_payload_set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = deja_payload_set_jstr(&e->session_id, root, "session_id")) < 0 ||
	    (rc = deja_payload_set_jstr(&e->call_id, root, "tool_use_id")) < 0 ||
	    (rc = deja_payload_set_cwd(e, deja_payload_jstr(root, "cwd", NULL), NULL)) < 0)
		return rc;
	e->session_start = deja_payload_streq(e->event, "SessionStart");
	e->is_shell = deja_payload_in_list(deja_payload_jstr(root, "tool_name", NULL), shells);
	if (!e->is_shell)
		return 0;
	if ((rc = deja_payload_command(&e->command, in)) < 0)
		return rc;
	e->interrupted = deja_payload_jtrue(root, "is_interrupt") ||
			 deja_payload_jtrue(resp, "interrupted");

	if (deja_payload_streq(e->event, "PostToolUseFailure") || (err && !resp)) {
		if ((rc = status_text(e, err ? err : "", err ? errn : 0, &found)) < 0)
			return rc;
		if (e->output_len && timed_out(e->output, e->output_len))
			e->interrupted = 1;
		if (!found && !e->interrupted) {
			e->exit_code = 1; /* a failure event that names no code */
			e->exit_inferred = 1;
		}
		return 0;
	}
	if (json_is_string(resp)) {
		rc = status_text(e, json_string_value(resp), json_string_length(resp), &found);
	} else {
		out = deja_payload_jstr(resp, "stdout", &on);
		er = deja_payload_jstr(resp, "stderr", &en);
		rc = deja_payload_set_output2(e, out, on, er, en);
		found = deja_payload_jcode_any(resp, &e->exit_code);
	}
	if (rc < 0)
		return rc;
	if (deja_payload_jtrue(in, "run_in_background") ||
	    json_object_get(resp, "backgroundTaskId")) {
		e->exit_code = -1; /* the shell returned at once: no verdict yet */
		return 0;
	}
	if (!found && !e->interrupted && deja_payload_streq(e->event, "PostToolUse"))
		e->exit_code = 0;
	return 0;
}

static int peek(char **out, const char *json, const char *end)
{
	return deja_payload_peek_tool(out, json, end, "tool_name", "tool_input", shells);
}

static int reply(json_t *root, const char *event, const char *ctx, size_t n)
{
	return deja_payload_reply_specific(root, event, "PostToolUse", ctx, n);
}

const deja_agent_ops deja_agent_claude_code = {
	"claude-code", DEJA_AGENT_CLAUDE, fill, peek, reply, "{}", 0,
};
