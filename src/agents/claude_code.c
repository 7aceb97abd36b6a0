/*
 * claude_code.c - Claude Code: PostToolUse / PostToolUseFailure /
 * SessionStart, the Bash tool; PreToolUse of the tools that edit a file,
 * whose reply adds context before the edit.
 *
 * PostToolUse fires for Bash only when the command exited 0; a non-zero
 * exit is a PostToolUseFailure whose "error" starts "Exit code N".  Two
 * exceptions make a PostToolUse prove nothing: a command run in the
 * background (run_in_background, a backgroundTaskId in the response: the
 * shell returned at once), and one the tool killed for its timeout ("Exit
 * code 143" with "Command timed out").
 */
#include "agents/agent.h"
#include "callus/fsutil.h"

#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

static const char *const shells[] = { "Bash", "PowerShell", NULL };
/* the tools that write a file, and the input member naming it */
static const char *const editors[] = { "Edit", "Write", "MultiEdit", "NotebookEdit", NULL };

/* A first line "Exit code N", then the output. */
static int status_text(callus_hook_event *e, const char *s, size_t n, int *found)
{
	const char *end = s + n, *le;

	*found = 0;
	if (callus_payload_has_prefix(s, end, "Exit code ") &&
	    callus_payload_code_line(s + 10, end, &e->exit_code)) {
		le = callus_payload_eol(s, end);
		*found = 1;
		s = le < end ? le + 1 : end;
	}
	return callus_payload_set_output(e, s, (size_t)(end - s));
}

static int timed_out(const char *s, size_t n)
{
	return memmem(s, n, "Command timed out", 17) != NULL;
}

static int fill(callus_hook_event *e, const json_t *root)
{
	json_t *resp = json_object_get(root, "tool_response");
	json_t *in = json_object_get(root, "tool_input");
	size_t errn = 0, on = 0, en = 0;
	const char *err = callus_payload_jstr(root, "error", &errn), *out, *er;
	int rc, found;

	if ((rc = callus_payload_set_event(e, root, "hook_event_name", NULL)) < 0 ||
	    (rc = callus_payload_set_jstr(&e->session_id, root, "session_id")) < 0 ||
	    (rc = callus_payload_set_jstr(&e->call_id, root, "tool_use_id")) < 0 ||
	    (rc = callus_payload_set_cwd(e, callus_payload_jstr(root, "cwd", NULL), NULL)) < 0)
		return rc;
	e->session_start = callus_payload_streq(e->event, "SessionStart");
	if (callus_payload_streq(e->event, "PreToolUse") &&
	    callus_payload_in_list(callus_payload_jstr(root, "tool_name", NULL), editors)) {
		const char *key = callus_payload_jstr(in, "file_path", NULL) ? "file_path"
									       : "notebook_path";

		return callus_payload_set_jstr(&e->edit_path, in, key);
	}
	e->is_shell = callus_payload_in_list(callus_payload_jstr(root, "tool_name", NULL), shells);
	if (!e->is_shell)
		return 0;
	if ((rc = callus_payload_command(&e->command, in)) < 0)
		return rc;
	e->interrupted = callus_payload_jtrue(root, "is_interrupt") ||
			 callus_payload_jtrue(resp, "interrupted");

	if (callus_payload_streq(e->event, "PostToolUseFailure") || (err && !resp)) {
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
		out = callus_payload_jstr(resp, "stdout", &on);
		er = callus_payload_jstr(resp, "stderr", &en);
		rc = callus_payload_set_output2(e, out, on, er, en);
		found = callus_payload_jcode_any(resp, &e->exit_code);
	}
	if (rc < 0)
		return rc;
	if (callus_payload_jtrue(in, "run_in_background") ||
	    json_object_get(resp, "backgroundTaskId")) {
		e->exit_code = -1; /* the shell returned at once: no verdict yet */
		return 0;
	}
	if (!found && !e->interrupted && callus_payload_streq(e->event, "PostToolUse"))
		e->exit_code = 0;
	return 0;
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
 * Claude Code reads CLAUDE.md, and AGENTS.md only in some releases: an
 * "@AGENTS.md" import line in CLAUDE.md makes the lessons block reach it in
 * all of them.  The rest of CLAUDE.md is left as it is; a CLAUDE.md that is
 * a link is not written through.  Only when the lessons go to AGENTS.md.
 */
static int after_init(const char *root, const char *lessons_file, int dry_run, callus_buf *msg,
		      callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	struct stat st;
	int rc = 0, exists;

	if (lessons_file && *lessons_file && strcmp(lessons_file, "AGENTS.md") != 0)
		return 0;
	callus_buf_printf(&path, "%s/CLAUDE.md", root);
	if (callus_buf_status(&path) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	exists = lstat(path.ptr, &st) == 0;
	if (exists && !S_ISREG(st.st_mode)) {
		callus_buf_puts(msg, "CLAUDE.md is not a plain file: add a line '@AGENTS.md' to it "
				     "yourself so that Claude Code reads the lessons\n");
		goto out;
	}
	rc = callus_fs_read_file(&text, path.ptr, CALLUS_AGENTCONF_FILE_MAX, err);
	if (rc < 0 && rc != CALLUS_ENOTFOUND)
		goto out;
	rc = 0;
	for (const char *p = text.ptr; p && (p = strstr(p, "@AGENTS.md")); p++)
		if ((p == text.ptr || p[-1] == '\n') && (p[10] == '\n' || p[10] == '\0' || p[10] == '\r'))
			goto out;
	if (dry_run) {
		callus_buf_puts(msg, "would add '@AGENTS.md' to CLAUDE.md (Claude Code then reads "
				     "the lessons)\n");
		goto out;
	}
	{
		/* the file's own line ends */
		const char *eol = text.ptr && strstr(text.ptr, "\r\n") ? "\r\n" : "\n";

		if (text.len && text.ptr[text.len - 1] != '\n')
			callus_buf_puts(&text, eol);
		callus_buf_printf(&text, "@AGENTS.md%s", eol);
	}
	if (callus_buf_status(&text) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* a person's file keeps its mode and owner; one callus should not
	 * replace (read-only, another user's, hard-linked) is said, not
	 * changed */
	if (exists)
		rc = callus_fs_replace_kept(path.ptr, text.ptr, text.len, &st, err);
	else
		rc = callus_fs_write_atomic(path.ptr, text.ptr, text.len, 0644, CALLUS_FS_UMASK, err);
	if (rc == CALLUS_EUNSAFE) {
		callus_buf_printf(msg, "%s: add a line '@AGENTS.md' to it yourself so that Claude "
				       "Code reads the lessons\n",
				  callus_error_message(err));
		callus_error_release(err);
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	callus_buf_puts(msg, "CLAUDE.md imports AGENTS.md ('@AGENTS.md'), where callus keeps its "
			     "lessons\n");
out:
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}

/* Claude Code runs no hook at all when a settings file it reads says
 * "disableAllHooks": true: the user's (~/.claude/settings.json, or
 * $CLAUDE_CONFIG_DIR's), the project's, or the project's local one. */
static void check_trust(const char *root, callus_buf *out)
{
	static const char *const project[] = { ".claude/settings.json",
					       ".claude/settings.local.json" };
	callus_buf where = CALLUS_BUF_INIT;
	json_t *doc;
	int off = 0;

	doc = callus_agent_load_settings(&where, "CLAUDE_CONFIG_DIR", "settings.json",
					 ".claude/settings.json");
	if (json_is_true(json_object_get(doc, "disableAllHooks"))) {
		callus_buf_printf(out, "problem \"disableAllHooks\" is true in %s: Claude Code runs "
				       "no hook, callus's neither\n",
				  where.ptr);
		off = 1;
	}
	json_decref(doc);
	for (size_t i = 0; i < sizeof(project) / sizeof(project[0]); i++) {
		callus_buf text = CALLUS_BUF_INIT;

		callus_buf_clear(&where);
		callus_buf_printf(&where, "%s/%s", root, project[i]);
		doc = callus_buf_status(&where) == 0 &&
			      callus_fs_read_file(&text, where.ptr, CALLUS_AGENTCONF_FILE_MAX, NULL) == 0
			  ? json_loadb(text.ptr, text.len, 0, NULL)
			  : NULL;
		if (json_is_true(json_object_get(doc, "disableAllHooks"))) {
			callus_buf_printf(out, "problem \"disableAllHooks\" is true in %s: Claude Code "
					       "runs no hook here, callus's neither\n",
					  project[i]);
			off = 1;
		}
		json_decref(doc);
		callus_buf_release(&text);
	}
	if (!off)
		callus_buf_puts(out, "ok no settings file turns Claude Code's hooks off "
				     "(disableAllHooks)\n");
	callus_buf_release(&where);
}

/* The settings Claude Code reads; the lessons reach it through CLAUDE.md,
 * which importing AGENTS.md makes them part of (after_init below). */
static const callus_agentconf_agent install = {
	"claude-code", "claude", "Claude Code", ".claude/settings.json",
	"PostToolUse, PostToolUseFailure, SessionStart, PreToolUse", NULL, CALLUS_AGENTCONF_NESTED,
	"command", "timeout", NULL, 1,
	{ { "PostToolUse", "Bash", 10 }, { "PostToolUseFailure", "Bash", 10 },
	  { "SessionStart", NULL, 0 }, { "PreToolUse", "Edit|Write|MultiEdit|NotebookEdit", 5 } }, 4,
	after_init, check_trust,
};

const callus_agent_ops callus_agent_claude_code = {
	"claude-code", CALLUS_AGENT_CLAUDE, fill, peek, reply, "{}", 0, &install,
};
