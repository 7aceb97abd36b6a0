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
 * and the entry's success is true all the same.  Each command becomes one
 * event of the chain.
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
static int extension_text(deja_hook_event *e, const char *s, size_t n)
{
	const char *end = s + n, *p, *le;

	if (deja_payload_has_prefix(s, end, "Command is still running")) {
		static const char so_far[] = "Here's the output so far:\n";
		const char *m = memmem(s, n, so_far, sizeof(so_far) - 1);
		const char *stop;

		p = m ? m + sizeof(so_far) - 1 : end;
		stop = memmem(p, (size_t)(end - p), "\n\nYou will be updated", 21);
		if (!stop)
			stop = memmem(p, (size_t)(end - p), "\n\nThe user provided", 19);
		return deja_payload_set_output(e, p, (size_t)((stop ? stop : end) - p));
	}
	if (!deja_payload_has_prefix(s, end, "Command executed."))
		return deja_payload_set_output(e, s, n);
	le = deja_payload_eol(s, end);
	p = le < end ? le + 1 : end;
	while (p < end) {
		le = deja_payload_eol(p, end);
		if (deja_payload_has_prefix(p, le, "Exit Code: ")) {
			deja_payload_uint(p + 11, le, &e->exit_code, NULL);
			p = le < end ? le + 1 : end;
			continue;
		}
		if (deja_payload_has_prefix(p, le, "Output:"))
			p = le < end ? le + 1 : end;
		break;
	}
	return deja_payload_set_output(e, p, (size_t)(end - p));
}

/* The CLI's per-command result: "[Command exited with code N]\n..." for a
 * failure, the bare output otherwise (then 0, when the entry ran). */
static int cli_entry(deja_hook_event *e, const json_t *entry)
{
	static const char mark[] = "[Command exited with code ";
	size_t rn = 0, en = 0;
	const char *r = deja_payload_jstr(entry, "result", &rn);
	const char *err = deja_payload_jstr(entry, "error", &en), *end, *q;
	int rc;

	if ((rc = deja_payload_command_value(&e->command, json_object_get(entry, "query"))) < 0)
		return rc;
	if (!r) {
		r = "";
		rn = 0;
	}
	end = r + rn;
	if (deja_payload_has_prefix(r, end, mark) &&
	    deja_payload_uint(r + sizeof(mark) - 1, end, &e->exit_code, &q) && q < end && *q == ']') {
		q = deja_payload_eol(q, end);
		q = q < end ? q + 1 : end;
		return deja_payload_set_output2(e, q, (size_t)(end - q), err, en);
	}
	if (!en && deja_payload_jtrue(entry, "success"))
		e->exit_code = 0;
	return deja_payload_set_output2(e, r, rn, err, en);
}

/* parameters.commands: an array of strings, or the JSON text of one. */
static json_t *commands_of(const json_t *params, int *oom)
{
	json_t *v = json_object_get(params, "commands");
	json_error_t jerr;

	*oom = 0;
	if (json_is_string(v))
		return deja_payload_load(json_string_value(v), json_string_length(v), JSON_DECODE_ANY,
					 &jerr, oom);
	return json_incref(v);
}

static int fill_cli(deja_hook_event *e, const json_t *t)
{
	json_t *cmds, *entries = NULL, *entry;
	json_error_t jerr;
	size_t rn = 0, i;
	const char *res = deja_payload_jstr(t, "result", &rn);
	deja_hook_event *cur = e;
	int rc = 0, oom = 0;

	if (!(cmds = commands_of(json_object_get(t, "parameters"), &oom)) && oom)
		return DEJA_ENOMEM;
	if (res && !(entries = deja_payload_load(res, rn, JSON_DECODE_ANY, &jerr, &oom)) && oom) {
		rc = DEJA_ENOMEM;
		goto out;
	}
	if (!json_is_array(entries)) {
		/* no per-command results (a pre-tool event): the commands alone */
		json_t *c;

		json_array_foreach(cmds, i, c) {
			if (i && !(cur = deja_payload_chain(e))) {
				rc = DEJA_ENOMEM;
				goto out;
			}
			if ((rc = deja_payload_command_value(&cur->command, c)) < 0)
				goto out;
		}
		goto out;
	}
	json_array_foreach(entries, i, entry) {
		if (i && !(cur = deja_payload_chain(e))) {
			rc = DEJA_ENOMEM;
			goto out;
		}
		if ((rc = cli_entry(cur, entry)) < 0)
			goto out;
		if (!cur->command &&
		    (rc = deja_payload_command_value(&cur->command, json_array_get(cmds, i))) < 0)
			goto out;
	}
out:
	json_decref(cmds);
	json_decref(entries);
	return rc;
}

static int fill(deja_hook_event *e, const json_t *root)
{
	json_t *roots = json_object_get(root, "workspaceRoots");
	const json_t *t = tool_of(root);
	const char *tool, *result, *cwd = deja_payload_jstr(root, "cwd", NULL);
	size_t rn = 0;
	int rc;

	if ((rc = deja_payload_set_event(e, root, "hookName", NULL)) < 0 ||
	    (rc = deja_payload_set_jstr(&e->session_id, root, "taskId")) < 0)
		return rc;
	if (json_is_string(json_array_get(roots, 0)))
		cwd = json_string_value(json_array_get(roots, 0));
	if (cwd && (rc = deja_payload_set_cwd(e, cwd, NULL)) < 0)
		return rc;
	e->session_start = deja_payload_streq(e->event, "TaskStart") ||
			   deja_payload_streq(e->event, "TaskResume") ||
			   deja_payload_streq(e->event, "agent_start");
	tool = deja_payload_jstr(t, "toolName", NULL);
	e->is_shell = deja_payload_in_list(tool, shells);
	if (!e->is_shell)
		return 0;
	if (deja_payload_streq(tool, "run_commands"))
		return fill_cli(e, t);
	if ((rc = deja_payload_command(&e->command, json_object_get(t, "parameters"))) < 0)
		return rc;
	result = deja_payload_jstr(t, "result", &rn);
	return extension_text(e, result ? result : "", result ? rn : 0);
}

/* The command, or for run_commands every command a line: what fill gives. */
static int peek(char **out, const char *json, const char *end)
{
	const char *obj;
	json_t *tool = NULL, *params = NULL, *cmds = NULL, *c;
	deja_buf b = DEJA_BUF_INIT;
	size_t i;
	int rc, oom;

	*out = NULL;
	if ((rc = deja_payload_member_object(&obj, json, end, "postToolUse")) < 0 ||
	    (!obj && (rc = deja_payload_member_object(&obj, json, end, "preToolUse")) < 0) || !obj)
		return rc;
	if ((rc = deja_payload_member(&tool, obj, end, "toolName")) < 0 ||
	    !deja_payload_in_list(json_string_value(tool), shells))
		goto out;
	if ((rc = deja_payload_member(&params, obj, end, "parameters")) < 0)
		goto out;
	if (strcmp(json_string_value(tool), "run_commands") != 0) {
		rc = deja_payload_command(out, params);
		goto out;
	}
	if (!(cmds = commands_of(params, &oom)) && oom) {
		rc = DEJA_ENOMEM;
		goto out;
	}
	json_array_foreach(cmds, i, c) {
		char *one = NULL;

		if ((rc = deja_payload_command_value(&one, c)) < 0)
			goto out;
		if (one) {
			if (b.len)
				deja_buf_putc(&b, '\n');
			deja_buf_puts(&b, one);
			free(one);
		}
	}
	if (deja_buf_status(&b) < 0)
		rc = DEJA_ENOMEM;
	else if (b.len)
		rc = deja_payload_set_text(out, NULL, b.ptr, b.len);
out:
	deja_buf_release(&b);
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
		return DEJA_ENOMEM;
	return 0;
}

const deja_agent_ops deja_agent_cline = {
	"cline", DEJA_AGENT_CLINE, fill, peek, reply, "{\"cancel\":false}", CONTEXT_MAX,
};
