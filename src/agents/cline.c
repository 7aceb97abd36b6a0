/*
 * cline.c - Cline, two protocols behind one name.
 *
 * The VS Code extension (documented): hookName "PostToolUse" / "TaskStart",
 * postToolUse.toolName "execute_command", parameters.command, and a result
 * "Command executed.\nOutput:\n..." (some builds add "Exit Code: N").
 *
 * The CLI (3.x, measured): hookName "tool_result" / "agent_start",
 * toolName "run_commands" whose parameters.commands is a JSON array (sent as
 * the text of one) of command lines, and a result that is the JSON text of
 * [{query, result, error, success}], one entry per command; a command that
 * exited non-zero has a result starting "[Command exited with code N]",
 * and the entry's success is true all the same, as it is for a command
 * detached while running ("[Command is still running. ...]").  Each
 * command becomes one event of the chain.
 *
 * Both take {"cancel": false, "contextModification": C}, C at most 50,000
 * bytes (the extension's documented ceiling).
 */
#include "agents/agent.h"

#include <string.h>

#define CONTEXT_MAX 50000

static const char *const shells[] = { "execute_command", "run_commands", NULL };

static const json_t *tool_of(const json_t *root)
{
	json_t *t = json_object_get(root, "postToolUse");

	return json_is_object(t) ? t : json_object_get(root, "preToolUse");
}

/* The extension's "Command executed.\nOutput:\n..." */
static int extension_text(callus_hook_event *e, const char *s, size_t n)
{
	const char *end = s + n, *p, *le;

	if (callus_payload_has_prefix(s, end, "Command is still running")) {
		static const char so_far[] = "Here's the output so far:\n";
		const char *m = memmem(s, n, so_far, sizeof(so_far) - 1);
		const char *stop;

		p = m ? m + sizeof(so_far) - 1 : end;
		stop = memmem(p, (size_t)(end - p), "\n\nYou will be updated", 21);
		if (!stop)
			stop = memmem(p, (size_t)(end - p), "\n\nThe user provided", 19);
		return callus_payload_set_output(e, p, (size_t)((stop ? stop : end) - p));
	}
	if (!callus_payload_has_prefix(s, end, "Command executed."))
		return callus_payload_set_output(e, s, n);
	le = callus_payload_eol(s, end);
	p = le < end ? le + 1 : end;
	while (p < end) {
		le = callus_payload_eol(p, end);
		if (callus_payload_has_prefix(p, le, "Exit Code: ")) {
			callus_payload_uint(p + 11, le, &e->exit_code, NULL);
			p = le < end ? le + 1 : end;
			continue;
		}
		if (callus_payload_has_prefix(p, le, "Output:"))
			p = le < end ? le + 1 : end;
		break;
	}
	return callus_payload_set_output(e, p, (size_t)(end - p));
}

/* The CLI's per-command result: "[Command exited with code N]\n..." for a
 * failure, "[Command is still running. Output will continue in F]\n..."
 * for one the user sent to the background (no status yet), the bare output
 * otherwise (then 0, when the entry ran). */
static int cli_entry(callus_hook_event *e, const json_t *entry)
{
	static const char mark[] = "[Command exited with code ";
	static const char detached[] = "[Command is still running. ";
	size_t rn = 0, en = 0;
	const char *r = callus_payload_jstr(entry, "result", &rn);
	const char *err = callus_payload_jstr(entry, "error", &en), *end, *q;
	int rc;

	if ((rc = callus_payload_command_value(&e->command, json_object_get(entry, "query"))) < 0)
		return rc;
	if (!r) {
		r = "";
		rn = 0;
	}
	end = r + rn;
	if (callus_payload_has_prefix(r, end, mark) &&
	    callus_payload_uint(r + sizeof(mark) - 1, end, &e->exit_code, &q) && q < end && *q == ']') {
		q = callus_payload_eol(q, end);
		q = q < end ? q + 1 : end;
		return callus_payload_set_output2(e, q, (size_t)(end - q), err, en);
	}
	if (callus_payload_has_prefix(r, end, detached)) {
		/* moved to the background: success says only that it started */
		q = callus_payload_eol(r, end);
		q = q < end ? q + 1 : end;
		return callus_payload_set_output2(e, q, (size_t)(end - q), err, en);
	}
	if (!en && callus_payload_jtrue(entry, "success"))
		e->exit_code = 0;
	return callus_payload_set_output2(e, r, rn, err, en);
}

/* parameters.commands: an array of strings, or the JSON text of one. */
static json_t *commands_of(const json_t *params, int *oom)
{
	json_t *v = json_object_get(params, "commands");
	json_error_t jerr;

	*oom = 0;
	if (json_is_string(v))
		return callus_payload_load(json_string_value(v), json_string_length(v), JSON_DECODE_ANY,
					 &jerr, oom);
	return json_incref(v);
}

static int fill_cli(callus_hook_event *e, const json_t *t)
{
	json_t *cmds, *entries = NULL, *entry;
	json_error_t jerr;
	size_t rn = 0, i;
	const char *res = callus_payload_jstr(t, "result", &rn);
	callus_hook_event *cur = e;
	int rc = 0, oom = 0;

	if (!(cmds = commands_of(json_object_get(t, "parameters"), &oom)) && oom)
		return CALLUS_ENOMEM;
	if (res && !(entries = callus_payload_load(res, rn, JSON_DECODE_ANY, &jerr, &oom)) && oom) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (!json_is_array(entries)) {
		/* no per-command results (a pre-tool event): the commands alone */
		json_t *c;

		json_array_foreach(cmds, i, c) {
			if (i && !(cur = callus_payload_chain(e))) {
				rc = CALLUS_ENOMEM;
				goto out;
			}
			if ((rc = callus_payload_command_value(&cur->command, c)) < 0)
				goto out;
		}
		goto out;
	}
	json_array_foreach(entries, i, entry) {
		if (i && !(cur = callus_payload_chain(e))) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
		if ((rc = cli_entry(cur, entry)) < 0)
			goto out;
		if (!cur->command &&
		    (rc = callus_payload_command_value(&cur->command, json_array_get(cmds, i))) < 0)
			goto out;
	}
out:
	json_decref(cmds);
	json_decref(entries);
	return rc;
}

static int fill(callus_hook_event *e, const json_t *root)
{
	json_t *roots = json_object_get(root, "workspaceRoots");
	const json_t *t = tool_of(root);
	const char *tool, *result, *cwd = callus_payload_jstr(root, "cwd", NULL);
	size_t rn = 0;
	int rc;

	if ((rc = callus_payload_set_event(e, root, "hookName", NULL)) < 0 ||
	    (rc = callus_payload_set_jstr(&e->session_id, root, "taskId")) < 0)
		return rc;
	if (json_is_string(json_array_get(roots, 0)))
		cwd = json_string_value(json_array_get(roots, 0));
	if (cwd && (rc = callus_payload_set_cwd(e, cwd, NULL)) < 0)
		return rc;
	e->session_start = callus_payload_streq(e->event, "TaskStart") ||
			   callus_payload_streq(e->event, "TaskResume") ||
			   callus_payload_streq(e->event, "agent_start");
	tool = callus_payload_jstr(t, "toolName", NULL);
	e->is_shell = callus_payload_in_list(tool, shells);
	if (!e->is_shell)
		return 0;
	if (callus_payload_streq(tool, "run_commands"))
		return fill_cli(e, t);
	if ((rc = callus_payload_command(&e->command, json_object_get(t, "parameters"))) < 0)
		return rc;
	result = callus_payload_jstr(t, "result", &rn);
	return extension_text(e, result ? result : "", result ? rn : 0);
}

/* The command, or for run_commands every command a line: what fill gives. */
static int peek(char **out, const char *json, const char *end)
{
	const char *obj;
	json_t *tool = NULL, *params = NULL, *cmds = NULL, *c;
	callus_buf b = CALLUS_BUF_INIT;
	size_t i;
	int rc, oom;

	*out = NULL;
	if ((rc = callus_payload_member_object(&obj, json, end, "postToolUse")) < 0 ||
	    (!obj && (rc = callus_payload_member_object(&obj, json, end, "preToolUse")) < 0) || !obj)
		return rc;
	if ((rc = callus_payload_member(&tool, obj, end, "toolName")) < 0 ||
	    !callus_payload_in_list(json_string_value(tool), shells))
		goto out;
	if ((rc = callus_payload_member(&params, obj, end, "parameters")) < 0)
		goto out;
	if (strcmp(json_string_value(tool), "run_commands") != 0) {
		rc = callus_payload_command(out, params);
		goto out;
	}
	if (!(cmds = commands_of(params, &oom)) && oom) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	json_array_foreach(cmds, i, c) {
		char *one = NULL;

		if ((rc = callus_payload_command_value(&one, c)) < 0)
			goto out;
		if (one) {
			if (b.len)
				callus_buf_putc(&b, '\n');
			callus_buf_puts(&b, one);
			free(one);
		}
	}
	if (callus_buf_status(&b) < 0)
		rc = CALLUS_ENOMEM;
	else if (b.len)
		rc = callus_payload_set_text(out, NULL, b.ptr, b.len);
out:
	callus_buf_release(&b);
	json_decref(tool);
	json_decref(params);
	json_decref(cmds);
	return rc;
}

static int reply(json_t *root, const char *event, const char *ctx, size_t n)
{
	(void)event;
	if (json_object_set_new(root, "cancel", json_false()) < 0 ||
	    json_object_set_new(root, "contextModification", json_stringn(ctx, n)) < 0)
		return CALLUS_ENOMEM;
	return 0;
}

/* An executable script named after the event (install.c writes it). */
static const callus_agentconf_agent install = {
	"cline", NULL, "Cline", ".clinerules/hooks/PostToolUse", "PostToolUse",
	"the Cline CLI runs it as it is, the VS Code extension once \"Enable Hooks\" is "
	"checked; Cline gets no session-start digest (its TaskStart output is discarded): the "
	"lessons reach it through AGENTS.md",
	CALLUS_AGENTCONF_SCRIPT,
	NULL, NULL, NULL, 0, { { "PostToolUse", NULL, 0 } }, 1,
	NULL, NULL,
};

const callus_agent_ops callus_agent_cline = {
	"cline", CALLUS_AGENT_CLINE, fill, peek, reply, "{\"cancel\":false}", CONTEXT_MAX,
	&install,
};
