/*
 * cursor.c - Cursor: afterShellExecution / sessionStart of
 * .cursor/hooks.json.
 *
 * The payload names no tool: its shell events are named.  afterShellExecution
 * carries the output but no exit status, so a failure is only ever read from
 * the output (by the hook, as for every unknown status) and a pass is never
 * known; and its reply cannot reach the model (the empty reply).
 */
#include "agents/agent.h"

#include <string.h>

static int shell_event(const char *event)
{
	return !event || !*event || !strcmp(event, "afterShellExecution") ||
	       !strcmp(event, "beforeShellExecution");
}

static int fill(callus_hook_event *e, const json_t *root)
{
	json_t *roots = json_object_get(root, "workspace_roots");
	const char *cwd = callus_payload_jstr(root, "cwd", NULL), *out;
	size_t on = 0;
	int rc;

	if ((rc = callus_payload_set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = callus_payload_set_jstr(&e->session_id, root, "conversation_id")) < 0 ||
	    (!e->session_id && (rc = callus_payload_set_jstr(&e->session_id, root, "session_id")) < 0))
		return rc;
	if (!cwd && json_is_string(json_array_get(roots, 0)))
		cwd = json_string_value(json_array_get(roots, 0));
	if ((rc = callus_payload_set_cwd(e, cwd, NULL)) < 0)
		return rc;
	e->session_start = callus_payload_streq(e->event, "sessionStart");
	/* the raw value, as the peek sees it */
	if (!shell_event(callus_payload_jstr(root, "hook_event_name", NULL)))
		return 0;
	if ((rc = callus_payload_command_value(&e->command, json_object_get(root, "command"))) < 0)
		return rc;
	if (!(e->is_shell = e->command != NULL))
		return 0;
	out = callus_payload_jstr(root, "output", &on);
	if ((rc = callus_payload_set_output(e, out ? out : "", out ? on : 0)) < 0)
		return rc;
	callus_payload_jcode_any(root, &e->exit_code);
	return 0;
}

static int peek(char **out, const char *json, const char *end)
{
	json_t *ev = NULL, *cmd = NULL;
	int rc;

	*out = NULL;
	if ((rc = callus_payload_member(&ev, json, end, "hook_event_name")) < 0 ||
	    !shell_event(json_string_value(ev)))
		goto out;
	if ((rc = callus_payload_member(&cmd, json, end, "command")) == 0)
		rc = callus_payload_command_value(out, cmd);
out:
	json_decref(ev);
	json_decref(cmd);
	return rc;
}

/* Its shell hooks cannot pass text to the model. */
static int reply(json_t *root, const char *event, const char *ctx, size_t n)
{
	(void)root, (void)event, (void)ctx, (void)n;
	return 0;
}

static const callus_agentconf_agent install = {
	"cursor", NULL, "Cursor", ".cursor/hooks.json", "afterShellExecution", NULL,
	CALLUS_AGENTCONF_FLAT,
	"command", NULL, NULL, 0, { { "afterShellExecution", NULL, 0 } }, 1,
	NULL, NULL,
};

const callus_agent_ops callus_agent_cursor = {
	"cursor", CALLUS_AGENT_CURSOR, fill, peek, reply, "{}", 0, &install,
};
