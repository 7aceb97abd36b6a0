/*
 * generic.c - callus's own payload, for any agent or script that can run a
 * command after a shell call: {"command", "exit_code", "output" (or
 * "stdout"/"stderr"), "cwd", "intent_id" or "session_id", "event"}.
 */
#include "agents/agent.h"

static int fill(callus_hook_event *e, const json_t *root)
{
	size_t on = 0, en = 0;
	const char *out, *er;
	int rc;

	if ((rc = callus_payload_set_event(e, root, "hook_event_name", "event")) < 0 ||
	    (rc = callus_payload_set_jstr(&e->session_id, root, "intent_id")) < 0 ||
	    (!e->session_id && (rc = callus_payload_set_jstr(&e->session_id, root, "session_id")) < 0) ||
	    (rc = callus_payload_set_cwd(e, callus_payload_jstr(root, "cwd", NULL), NULL)) < 0)
		return rc;
	e->session_start = callus_payload_streq(e->event, "SessionStart");
	if ((rc = callus_payload_command_value(&e->command, json_object_get(root, "command"))) < 0)
		return rc;
	if (!(e->is_shell = e->command != NULL))
		return 0;
	callus_payload_jcode(json_object_get(root, "exit_code"), &e->exit_code);
	out = callus_payload_jstr(root, "output", &on);
	if (out)
		return callus_payload_set_output(e, out, on);
	out = callus_payload_jstr(root, "stdout", &on);
	er = callus_payload_jstr(root, "stderr", &en);
	return callus_payload_set_output2(e, out, on, er, en);
}

static int peek(char **out, const char *json, const char *end)
{
	json_t *cmd = NULL;
	int rc;

	*out = NULL;
	if ((rc = callus_payload_member(&cmd, json, end, "command")) == 0)
		rc = callus_payload_command_value(out, cmd);
	json_decref(cmd);
	return rc;
}

const callus_agent_ops callus_agent_generic = {
	"generic", CALLUS_AGENT_GENERIC, fill, peek, callus_payload_reply_context, "{}", 0,
	NULL,
};
