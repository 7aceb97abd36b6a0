/*
 * gemini.c - Gemini CLI: AfterTool / SessionStart, run_shell_command.
 *
 * The status is folded into the tool response's llmContent: "Output: ...",
 * then status lines "Error: ...", "Exit Code: N" (only when not 0),
 * "Signal: ...", "Background PIDs: ...", "Process Group PGID: N".  Since
 * 0.61 the whole text comes wrapped in <untrusted_context>...
 * </untrusted_context>, the closing tag inside the output escaped as
 * &lt;/untrusted_context&gt;.  Older releases wrote "Command: ...\n
 * Directory: ...\nStdout: ...\nStderr: ...\n" and always an Exit Code line.
 */
#include "agents/agent.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const shells[] = { "run_shell_command", NULL };

#define OPEN_TAG "<untrusted_context>"
#define CLOSE_TAG "</untrusted_context>"
#define CLOSE_ESC "&lt;/untrusted_context&gt;"
#define OPEN_ESC "&lt;untrusted_context&gt;"

/* The line before `at` (at == end or just past a '\n'), or NULL. */
static const char *prev_line(const char *start, const char *at)
{
	const char *p;

	if (at <= start)
		return NULL;
	p = at - 1; /* the '\n' ending the previous line, or end-of-text */
	if (*p != '\n')
		p = at;
	while (p > start && p[-1] != '\n')
		p--;
	return p;
}

/*
 * Unwrap <untrusted_context>: the text between the tags, with the tags
 * escaped inside it put back.  Returns 1 with the text in *b when wrapped,
 * 0 when not (b untouched), CALLUS_ENOMEM.
 */
static int unwrap(callus_buf *b, const char *s, size_t n)
{
	const char *end = s + n, *p = s, *q;

	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r'))
		p++;
	if (!callus_payload_has_prefix(p, end, OPEN_TAG))
		return 0;
	p += strlen(OPEN_TAG);
	if (p < end && *p == '\n')
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if ((size_t)(end - p) >= strlen(CLOSE_TAG) &&
	    !memcmp(end - strlen(CLOSE_TAG), CLOSE_TAG, strlen(CLOSE_TAG)))
		end -= strlen(CLOSE_TAG);
	if (end > p && end[-1] == '\n')
		end--;
	while (p < end) {
		const char *c = memmem(p, (size_t)(end - p), "&lt;", 4);

		if (!c) {
			callus_buf_put(b, p, (size_t)(end - p));
			break;
		}
		callus_buf_put(b, p, (size_t)(c - p));
		if (callus_payload_has_prefix(c, end, CLOSE_ESC)) {
			callus_buf_puts(b, CLOSE_TAG);
			q = c + strlen(CLOSE_ESC);
		} else if (callus_payload_has_prefix(c, end, OPEN_ESC)) {
			callus_buf_puts(b, OPEN_TAG);
			q = c + strlen(OPEN_ESC);
		} else {
			callus_buf_put(b, c, 4);
			q = c + 4;
		}
		p = q;
	}
	return callus_buf_status(b) < 0 ? CALLUS_ENOMEM : 1;
}

static int status_text(callus_hook_event *e, const char *s, size_t n)
{
	static const char *const trailer[] = { "Process Group PGID: ", "Background PIDs: ",
					       "Signal: ", "Exit Code: ", "Error: ", NULL };
	const char *end = s + n, *cut = end, *line, *p;
	int code = -1, sig = 0, pgid = 0, error = 0;
	int old = callus_payload_has_prefix(s, end, "Command: ");

	if (callus_payload_has_prefix(s, end, "Command was cancelled") ||
	    callus_payload_has_prefix(s, end, "Command was automatically cancelled")) {
		const char *marker = "output before it was cancelled:\n";
		const char *m = memmem(s, n, marker, strlen(marker));

		e->interrupted = 1;
		p = m ? m + strlen(marker) : end;
		return callus_payload_set_output(e, p, (size_t)(end - p));
	}
	if (callus_payload_has_prefix(s, end, "Command moved to background"))
		return callus_payload_set_output(e, "", 0);
	if (!old && !callus_payload_has_prefix(s, end, "Output: "))
		return callus_payload_set_output(e, s, n);

	/* Walk the status lines back from the end; the output may contain
	 * anything, but these come last and in this order. */
	while ((line = prev_line(s, cut))) {
		const char *le = callus_payload_eol(line, end);
		size_t k;

		for (k = 0; trailer[k]; k++)
			if (callus_payload_has_prefix(line, le, trailer[k]))
				break;
		if (!trailer[k])
			break;
		if (k == 0)
			pgid = 1;
		else if (k == 3)
			callus_payload_code_line(line + strlen(trailer[3]), le, &code);
		else if (k == 2 && !callus_payload_has_prefix(line + 8, le, "(none)"))
			sig = 1;
		else if (k == 4 && !callus_payload_has_prefix(line + 7, le, "(none)"))
			error = 1;
		cut = line > s ? line - 1 : line; /* drop the '\n' before it */
	}
	if (code >= 0)
		e->exit_code = code;
	else if (!sig && !error && pgid && !old)
		/* the code is written only when it is not 0, and the process
		 * group when the command ran: both say it ran and passed.
		 * Without them (a process-level error, no process) it is not
		 * known */
		e->exit_code = 0;
	if (old) {
		const char *so = memmem(s, (size_t)(cut - s), "\nStdout: ", 9);
		const char *se = NULL, *q = so;

		while (q && (q = memmem(q + 1, (size_t)(cut - q - 1), "\nStderr: ", 9)))
			se = q;
		if (so && se) {
			const char *o = so + 9, *r = se + 9;
			size_t on = (size_t)(se - o), rn = (size_t)(cut - r);

			if (on == 7 && !memcmp(o, "(empty)", 7))
				on = 0;
			if (rn == 7 && !memcmp(r, "(empty)", 7))
				rn = 0;
			return callus_payload_set_output2(e, o, on, r, rn);
		}
		return callus_payload_set_output(e, s, (size_t)(cut - s));
	}
	p = s + 8;
	if (cut - p == 7 && !memcmp(p, "(empty)", 7))
		p = cut;
	return callus_payload_set_output(e, p, (size_t)(cut - p));
}

/* llmContent is a string, a Part ({"text": ...}) or an array of them. */
static int content(callus_buf *b, const json_t *v)
{
	size_t i;
	json_t *x;

	if (json_is_string(v))
		return callus_buf_put(b, json_string_value(v), json_string_length(v));
	if (json_is_object(v))
		return content(b, json_object_get(v, "text"));
	json_array_foreach(v, i, x)
		content(b, x);
	return callus_buf_status(b);
}

static int fill(callus_hook_event *e, const json_t *root)
{
	json_t *in = json_object_get(root, "tool_input");
	json_t *resp = json_object_get(root, "tool_response");
	json_t *llm = json_object_get(resp, "llmContent"), *jerr = json_object_get(resp, "error");
	callus_buf text = CALLUS_BUF_INIT, plain = CALLUS_BUF_INIT;
	const char *dir, *disp, *msg;
	size_t dn = 0, mn = 0;
	int rc;

	if ((rc = callus_payload_set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = callus_payload_set_jstr(&e->session_id, root, "session_id")) < 0)
		return rc;
	e->session_start = callus_payload_streq(e->event, "SessionStart");
	e->is_shell = callus_payload_in_list(callus_payload_jstr(root, "tool_name", NULL), shells);
	dir = callus_payload_jstr(in, "dir_path", NULL);
	if (!dir)
		dir = callus_payload_jstr(in, "directory", NULL);
	if ((rc = callus_payload_set_cwd(e, callus_payload_jstr(root, "cwd", NULL),
				       e->is_shell ? dir : NULL)) < 0)
		return rc;
	if (!e->is_shell)
		return 0;
	if ((rc = callus_payload_command(&e->command, in)) < 0)
		return rc;

	if (json_is_string(resp))
		llm = resp;
	if (llm && (rc = content(&text, llm)) < 0)
		goto out;
	disp = callus_payload_jstr(resp, "returnDisplay", &dn);
	if (llm) {
		if ((rc = unwrap(&plain, text.ptr ? text.ptr : "", text.len)) < 0)
			goto out;
		rc = rc ? status_text(e, plain.ptr ? plain.ptr : "", plain.len)
			: status_text(e, text.ptr ? text.ptr : "", text.len);
	} else if (disp) {
		int code;

		if (callus_payload_has_prefix(disp, disp + dn, "Command exited with code: ") &&
		    callus_payload_code_line(disp + 26, disp + dn, &code))
			e->exit_code = code;
		rc = callus_payload_set_output(e, disp, dn);
	}
	if (rc < 0)
		goto out;
	/* `error` is set when the shell could not run the command at all */
	msg = json_is_string(jerr) ? json_string_value(jerr) : callus_payload_jstr(jerr, "message", &mn);
	if (json_is_string(jerr))
		mn = json_string_length(jerr);
	if (jerr && !json_is_null(jerr) && e->exit_code <= 0) {
		e->exit_code = 1;
		e->exit_inferred = 1;
		if ((!e->output || !e->output_len) && msg)
			rc = callus_payload_set_output(e, msg, mn);
	}
out:
	callus_buf_release(&text);
	callus_buf_release(&plain);
	return rc;
}

static int peek(char **out, const char *json, const char *end)
{
	return callus_payload_peek_tool(out, json, end, "tool_name", "tool_input", shells);
}

static int reply(json_t *root, const char *event, const char *ctx, size_t n)
{
	return callus_payload_reply_specific(root, event, "AfterTool", ctx, n);
}

/* Timeouts in milliseconds; the handler is named. */
/*
 * Gemini CLI runs a project's hooks only in a trusted folder (0.61.0:
 * folder trust is on unless ~/.gemini/settings.json turns
 * security.folderTrust.enabled off).  GEMINI_CLI_TRUST_WORKSPACE=true or
 * false decides for it; otherwise ~/.gemini/trustedFolders.json
 * ($GEMINI_CLI_HOME for ~, or $GEMINI_CLI_TRUSTED_FOLDERS_PATH) maps paths
 * to TRUST_FOLDER, TRUST_PARENT (the path's parent) or DO_NOT_TRUST, and the
 * longest rule whose folder holds the project wins.  Read, never written.
 */
static void check_trust(const char *root, callus_buf *out)
{
	const char *env = getenv("GEMINI_CLI_TRUST_WORKSPACE"), *file, *rule, *best = NULL;
	callus_buf where = CALLUS_BUF_INIT;
	json_t *settings = NULL, *folders = NULL, *level;
	size_t best_len = 0;

	if (env && (!strcmp(env, "true") || !strcmp(env, "false"))) {
		callus_buf_printf(out,
				  "%s GEMINI_CLI_TRUST_WORKSPACE=%s here: Gemini CLI run with it %s "
				  "project hooks\n",
				  *env == 't' ? "ok" : "problem", env,
				  *env == 't' ? "runs" : "runs no");
		goto out;
	}
	settings = callus_agent_load_settings(&where, "GEMINI_CLI_HOME", ".gemini/settings.json",
					      ".gemini/settings.json");
	if (json_is_false(json_object_get(
		    json_object_get(json_object_get(settings, "security"), "folderTrust"),
		    "enabled"))) {
		callus_buf_printf(out, "ok folder trust is off in %s: Gemini CLI runs project hooks "
				       "anywhere\n",
				  where.ptr);
		goto out;
	}
	if ((file = getenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH")) && *file) {
		callus_buf_clear(&where);
		callus_buf_puts(&where, file);
		folders = json_load_file(file, 0, NULL);
	} else {
		folders = callus_agent_load_settings(&where, "GEMINI_CLI_HOME",
						     ".gemini/trustedFolders.json",
						     ".gemini/trustedFolders.json");
	}
	json_object_foreach(folders, rule, level) {
		char dir[PATH_MAX];

		if (!json_is_string(level) || strlen(rule) >= sizeof(dir))
			continue;
		snprintf(dir, sizeof(dir), "%s", rule);
		if (!strcmp(json_string_value(level), "TRUST_PARENT")) {
			char *slash = strrchr(dir, '/');

			if (slash)
				*(slash == dir ? slash + 1 : slash) = '\0';
		}
		if (callus_agent_folder_holds(dir, root) && strlen(rule) > best_len) {
			best = json_string_value(level);
			best_len = strlen(rule);
		}
	}
	if (best && !strcmp(best, "DO_NOT_TRUST"))
		callus_buf_printf(out,
				  "problem %s marks this folder DO_NOT_TRUST: Gemini CLI runs no "
				  "project hook here\n",
				  where.ptr);
	else if (best && (!strcmp(best, "TRUST_FOLDER") || !strcmp(best, "TRUST_PARENT")))
		callus_buf_printf(out, "ok this folder is trusted in %s\n", where.ptr);
	else
		callus_buf_printf(out,
				  "problem this folder is not trusted in %s: Gemini CLI runs no "
				  "project hook here (trust it when Gemini asks, or set "
				  "GEMINI_CLI_TRUST_WORKSPACE=true for it)\n",
				  where.len ? where.ptr : "~/.gemini/trustedFolders.json");
out:
	json_decref(settings);
	json_decref(folders);
	callus_buf_release(&where);
}

static const callus_agentconf_agent install = {
	"gemini", NULL, "Gemini CLI", ".gemini/settings.json", "AfterTool, SessionStart",
	"Gemini CLI runs a project's hooks only in a trusted folder: trust it when asked "
	"(or set GEMINI_CLI_TRUST_WORKSPACE=true); 'callus doctor' checks it; versions "
	"before 0.26 also need \"hooksConfig\": {\"enabled\": true}",
	CALLUS_AGENTCONF_NESTED,
	"command", "timeout", "callus", 1,
	{ { "AfterTool", "run_shell_command", 10000 }, { "SessionStart", NULL, 0 } }, 2,
	NULL, check_trust,
};

const callus_agent_ops callus_agent_gemini = {
	"gemini", CALLUS_AGENT_GEMINI, fill, peek, reply, "{}", 0, &install,
};
