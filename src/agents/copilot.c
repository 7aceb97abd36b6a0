/*
 * copilot.c - GitHub Copilot CLI: postToolUse / postToolUseFailure /
 * sessionStart of a JSON file in .github/hooks/, the bash tool.
 *
 * The CLI's payloads name no event: it is told from the members present.
 * The exit status is only in the text of the tool result, whose last line
 * is a trailer: "<shellId: N completed with exit code N>" (1.0.x), or the
 * older "<exited with exit code N>"; a command left running detached
 * (async, or past its initial wait) gets a trailer with no code.
 * resultType "success" says only that the tool ran: a failing check
 * arrives with it too, so it is never read as a status.
 */
#include "agents/agent.h"

#include <stdlib.h>
#include <string.h>

static const char *const shells[] = { "bash", "shell", "powershell", NULL };

/*
 * The trailer: the last line, "<...>", when it names a shell or an exit.
 * Sets *code when it states one.  Returns where the output ends (before
 * the trailer), or NULL when there is no trailer.
 */
static const char *trailer(const char *s, const char *end, int *code)
{
	const char *t = end, *lt, *q;

	*code = -1;
	while (t > s && (t[-1] == '\n' || t[-1] == '\r' || t[-1] == ' '))
		t--;
	if (t == s || t[-1] != '>')
		return NULL;
	for (lt = t - 1; lt > s && lt[-1] != '\n'; lt--)
		;
	if (*lt != '<' || !(memmem(lt, (size_t)(t - lt), "shellId", 7) ||
			    memmem(lt, (size_t)(t - lt), "exit code", 9)))
		return NULL;
	if ((q = memmem(lt, (size_t)(t - lt), "exit code ", 10)))
		callus_payload_uint(q + 10, t, code, NULL);
	while (lt > s && (lt[-1] == '\n' || lt[-1] == '\r'))
		lt--;
	return lt;
}

/* toolArgs: an object, or (in the CLI's hooks) a JSON text of one. */
static json_t *args_of(const json_t *v, int *oom)
{
	json_error_t jerr;

	*oom = 0;
	if (json_is_string(v))
		return callus_payload_load(json_string_value(v), json_string_length(v), JSON_DECODE_ANY,
					 &jerr, oom);
	return json_incref((json_t *)v);
}

static int fill(callus_hook_event *e, const json_t *root)
{
	json_t *res = json_object_get(root, "toolResult"), *jerr = json_object_get(root, "error");
	json_t *args = NULL;
	const char *text, *cwd, *tool = callus_payload_jstr(root, "toolName", NULL), *cut;
	size_t tn = 0;
	int rc, oom, code;

	if (!tool)
		tool = callus_payload_jstr(root, "tool_name", NULL);
	if ((rc = callus_payload_set_event(e, root, "hook_event_name", "hookEventName")) < 0 ||
	    (rc = callus_payload_set_jstr(&e->session_id, root, "sessionId")) < 0 ||
	    (!e->session_id && (rc = callus_payload_set_jstr(&e->session_id, root, "session_id")) < 0))
		return rc;
	if (!e->event) {
		const char *ev = jerr && tool ? "postToolUseFailure" :
				 res ? "postToolUse" :
				 tool ? "preToolUse" :
				 json_object_get(root, "source") ? "sessionStart" : NULL;

		if (ev && (rc = callus_payload_set_text(&e->event, NULL, ev, strlen(ev))) < 0)
			return rc;
	}
	e->session_start = callus_payload_streq(e->event, "sessionStart") ||
			   callus_payload_streq(e->event, "SessionStart");
	cwd = callus_payload_jstr(root, "cwd", NULL);
	if ((rc = callus_payload_set_cwd(e, cwd ? cwd : callus_payload_jstr(root, "workingDirectory", NULL),
				       NULL)) < 0)
		return rc;
	e->is_shell = callus_payload_in_list(tool, shells);
	if (!e->is_shell)
		return 0;
	args = args_of(json_object_get(root, "toolArgs"), &oom);
	if (oom || (rc = callus_payload_command(&e->command, args)) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	text = callus_payload_jstr(res, "textResultForLlm", &tn);
	if (!text)
		text = callus_payload_jstr(res, "content", &tn);
	if (!text && jerr) {
		text = json_is_string(jerr) ? json_string_value(jerr) : callus_payload_jstr(jerr, "message", &tn);
		if (json_is_string(jerr))
			tn = json_string_length(jerr);
	}
	if (!text) {
		text = "";
		tn = 0;
	}
	if ((cut = trailer(text, text + tn, &code))) {
		e->exit_code = code;
		rc = callus_payload_set_output(e, text, (size_t)(cut - text));
	} else {
		rc = callus_payload_set_output(e, text, tn);
	}
out:
	json_decref(args);
	return rc;
}

static int peek(char **out, const char *json, const char *end)
{
	json_t *tool = NULL, *in = NULL, *args = NULL;
	int rc, oom;

	*out = NULL;
	if ((rc = callus_payload_member(&tool, json, end, "toolName")) == 0 && !tool)
		rc = callus_payload_member(&tool, json, end, "tool_name");
	if (rc < 0 || !callus_payload_in_list(json_string_value(tool), shells))
		goto out;
	if ((rc = callus_payload_member(&in, json, end, "toolArgs")) < 0)
		goto out;
	args = args_of(in, &oom);
	rc = oom ? CALLUS_ENOMEM : callus_payload_command(out, args);
out:
	json_decref(tool);
	json_decref(in);
	json_decref(args);
	return rc;
}

/* A file of callus's own in .github/hooks/ (the CLI and the cloud agent
 * read every file there); timeouts in seconds. */
/*
 * Copilot CLI runs a project's hooks only in a trusted folder: one trusted
 * for this session (--trust-folder), COPILOT_ALLOW_ALL=true, or one listed
 * with the folders below it in the trusted_folders array of its config.json
 * ($COPILOT_HOME, else ~/.copilot).  Read, never written; a trust given for
 * one session only leaves no trace callus could read.
 */
static void check_trust(const char *root, callus_buf *out)
{
	const char *env = getenv("COPILOT_ALLOW_ALL");
	callus_buf where = CALLUS_BUF_INIT;
	json_t *config, *folder;
	size_t i;
	int trusted = 0;

	if (env && !strcmp(env, "true")) {
		callus_buf_puts(out, "ok COPILOT_ALLOW_ALL=true here: Copilot CLI run with it runs "
				     "project hooks\n");
		return;
	}
	config = callus_agent_load_settings(&where, "COPILOT_HOME", "config.json",
					    ".copilot/config.json");
	json_array_foreach(json_object_get(config, "trusted_folders"), i, folder)
		if (json_is_string(folder) && callus_agent_folder_holds(json_string_value(folder), root))
			trusted = 1;
	if (trusted)
		callus_buf_printf(out, "ok this folder is trusted in %s\n", where.ptr);
	else
		callus_buf_printf(out,
				  "problem this folder is not in trusted_folders of %s: Copilot CLI "
				  "runs the hooks only when it is trusted for the session "
				  "(--trust-folder, or when Copilot asks) or COPILOT_ALLOW_ALL=true\n",
				  where.len ? where.ptr : "~/.copilot/config.json");
	json_decref(config);
	callus_buf_release(&where);
}

static const callus_agentconf_agent install = {
	"copilot", NULL, "GitHub Copilot", ".github/hooks/callus.json",
	"postToolUse, postToolUseFailure, sessionStart",
	"the Copilot CLI runs hooks only in a trusted folder (trust it when asked, or "
	"--trust-folder / COPILOT_ALLOW_ALL=true; 'callus doctor' checks it); the cloud agent "
	"reads .github/hooks/ from "
	"the default branch: commit it",
	CALLUS_AGENTCONF_FLAT,
	"bash", "timeoutSec", NULL, 1,
	{ { "postToolUse", NULL, 10 }, { "postToolUseFailure", NULL, 10 },
	  { "sessionStart", NULL, 10 } }, 3,
	NULL, check_trust,
};

const callus_agent_ops callus_agent_copilot = {
	"copilot", CALLUS_AGENT_COPILOT, fill, peek, callus_payload_reply_context, "{}", 0,
	&install,
};
