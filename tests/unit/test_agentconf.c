/*
 * test_agentconf.c - callus's hook entries merged into and taken out of the
 * agents' settings files (src/agents/install.c, docs/agents.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/agentconf.h"
#include "callus/buf.h"

static const callus_agentconf_agent *agent(const char *name)
{
	const callus_agentconf_agent *a = callus_agentconf_find(name);

	if (!a)
		fail_msg("no agent %s", name);
	return a;
}

/* Merge that must succeed; returns the new text (malloc'ed, NULL for
 * KEEP) and the action. */
static char *merge(const char *name, const char *text, const char *program,
		   callus_agentconf_action *action)
{
	callus_buf out = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	int rc = callus_agentconf_merge(&out, action, agent(name), text, text ? strlen(text) : 0,
				      program, &err);

	if (rc != 0)
		fail_msg("merge %s failed: %s", name, callus_error_message(&err));
	callus_error_release(&err);
	if (*action == CALLUS_AGENTCONF_KEEP) {
		assert_int_equal(out.len, 0);
		callus_buf_release(&out);
		return NULL;
	}
	assert_int_equal(*action, CALLUS_AGENTCONF_WRITE);
	assert_true(out.len > 0 && out.ptr[out.len - 1] == '\n');
	return callus_buf_detach(&out);
}

/* Merge into text, which must give a new text; merging that again must
 * change nothing (idempotence). */
static char *merge_once(const char *name, const char *text, const char *program)
{
	callus_agentconf_action action;
	char *once = merge(name, text, program, &action), *twice;

	assert_non_null(once);
	twice = merge(name, once, program, &action);
	assert_int_equal(action, CALLUS_AGENTCONF_KEEP);
	assert_null(twice);
	return once;
}

static char *unmerge(const char *name, const char *text, callus_agentconf_action *action,
		     size_t *removed)
{
	callus_buf out = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	int rc = callus_agentconf_unmerge(&out, action, removed, agent(name), text,
					text ? strlen(text) : 0, NULL, &err);

	if (rc != 0)
		fail_msg("unmerge %s failed: %s", name, callus_error_message(&err));
	callus_error_release(&err);
	if (*action != CALLUS_AGENTCONF_WRITE) {
		assert_int_equal(out.len, 0);
		callus_buf_release(&out);
		return NULL;
	}
	return callus_buf_detach(&out);
}

static json_t *load(const char *text)
{
	json_error_t jerr;
	json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);

	if (!j)
		fail_msg("not JSON (%s): %s", jerr.text, text);
	return j;
}

/* a and b are the same JSON value (key order aside). */
static void assert_json_equal(const char *a, const char *b)
{
	json_t *ja = load(a), *jb = load(b);

	if (!json_equal(ja, jb))
		fail_msg("JSON differs:\n%s\n---\n%s", a, b);
	json_decref(ja);
	json_decref(jb);
}

/* The value at a path like "hooks.PostToolUse.2.hooks.0.command". */
static json_t *at(json_t *j, const char *path)
{
	char buf[256], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = strtok_r(buf, ".", &save); p && j; p = strtok_r(NULL, ".", &save))
		j = json_is_array(j) ? json_array_get(j, strtoul(p, NULL, 10)) : json_object_get(j, p);
	return j;
}

static const char *str_at(json_t *j, const char *path)
{
	return json_string_value(at(j, path));
}

static void refuse(const char *name, const char *text, const char *msg_part)
{
	callus_buf out = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_agentconf_action action = CALLUS_AGENTCONF_WRITE;
	size_t removed = 7;

	assert_int_equal(callus_agentconf_merge(&out, &action, agent(name), text, strlen(text), NULL, &err),
			 CALLUS_EINVAL);
	assert_int_equal(action, CALLUS_AGENTCONF_KEEP);
	assert_int_equal(out.len, 0);
	if (!strstr(callus_error_message(&err), msg_part))
		fail_msg("message '%s' lacks '%s'", callus_error_message(&err), msg_part);
	callus_error_release(&err);
	if (callus_agentconf_find(name)->format != CALLUS_AGENTCONF_SCRIPT) {
		action = CALLUS_AGENTCONF_WRITE;
		assert_int_equal(callus_agentconf_unmerge(&out, &action, &removed, agent(name), text,
							strlen(text), NULL, &err),
				 CALLUS_EINVAL);
		assert_int_equal(action, CALLUS_AGENTCONF_KEEP);
		assert_int_equal(removed, 0);
		callus_error_release(&err);
	}
	callus_buf_release(&out);
}

/* A project's Claude Code settings as people write them: permissions, an
 * env, other hooks in the events callus uses (one of them on the same
 * matcher), another event, numbers. */
static const char claude_settings[] =
	"{\n"
	"  \"model\": \"opus\",\n"
	"  \"permissions\": {\"allow\": [\"Bash(npm test:*)\"], \"deny\": [\"Read(./.env)\"]},\n"
	"  \"hooks\": {\n"
	"    \"PostToolUse\": [\n"
	"      {\"matcher\": \"Edit|Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"npx prettier --write \\\"$CLAUDE_PROJECT_DIR\\\"\"}]},\n"
	"      {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./scripts/log-bash.sh\", \"timeout\": 5}]}\n"
	"    ],\n"
	"    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}],\n"
	"    \"Notification\": []\n"
	"  },\n"
	"  \"env\": {\"NODE_ENV\": \"test\"},\n"
	"  \"cleanupPeriodDays\": 30,\n"
	"  \"ratio\": 0.1\n"
	"}\n";

static void test_find_and_list(void **state)
{
	const callus_agentconf_agent *all;
	size_t n;

	(void)state;
	for (n = 0; callus_agentconf_nth(n); n++)
		;
	assert_int_equal(n, 6);
	all = callus_agentconf_nth(0);
	assert_ptr_equal(callus_agentconf_find("claude"), callus_agentconf_find("claude-code"));
	assert_ptr_equal(callus_agentconf_find("claude-code"), all);
	assert_string_equal(callus_agentconf_find("copilot")->path, ".github/hooks/callus.json");
	assert_int_equal(callus_agentconf_find("cline")->format, CALLUS_AGENTCONF_SCRIPT);
	assert_null(callus_agentconf_find("aider"));
	assert_null(callus_agentconf_find("Claude"));
	assert_null(callus_agentconf_find(NULL));
}

static void test_command_line(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(callus_agentconf_command(&b, agent("claude"), NULL), 0);
	assert_string_equal(b.ptr, "callus hook claude-code");
	assert_int_equal(callus_agentconf_command(&b, agent("gemini"), "/usr/local/bin/callus"), 0);
	assert_string_equal(b.ptr, "/usr/local/bin/callus hook gemini");
	assert_int_equal(callus_agentconf_command(&b, agent("cline"), "/home/me/my tools/it's/callus"), 0);
	assert_string_equal(b.ptr, "'/home/me/my tools/it'\\''s/callus' hook cline");
	assert_true(callus_agentconf_is_callus_command(b.ptr, NULL));
	callus_buf_release(&b);
}

static void test_recognise_callus_commands(void **state)
{
	(void)state;
	assert_true(callus_agentconf_is_callus_command("callus hook claude-code", NULL));
	assert_true(callus_agentconf_is_callus_command("  /opt/callus/bin/callus  hook codex", NULL));
	assert_true(callus_agentconf_is_callus_command("\"/a b/callus\" hook cursor", NULL));
	assert_true(callus_agentconf_is_callus_command("/a\\ b/callus hook cursor", NULL));
	assert_true(callus_agentconf_is_callus_command("callus hook", NULL));
	assert_true(callus_agentconf_is_callus_command("./callus-dev hook cline", "./callus-dev"));
	assert_false(callus_agentconf_is_callus_command("./callus-dev hook cline", NULL));
	assert_false(callus_agentconf_is_callus_command("callus run -- npx eslint", NULL));
	assert_false(callus_agentconf_is_callus_command("callus hooks", NULL));
	assert_false(callus_agentconf_is_callus_command("callusvu hook x", NULL));
	assert_false(callus_agentconf_is_callus_command("/bin/mycallus hook x", NULL));
	assert_false(callus_agentconf_is_callus_command("echo callus hook x", NULL));
	assert_false(callus_agentconf_is_callus_command("'callus hook x", NULL));
	assert_false(callus_agentconf_is_callus_command("", NULL));
	assert_false(callus_agentconf_is_callus_command(NULL, NULL));
}

static void test_claude_merge_keeps_everything(void **state)
{
	char *out = merge_once("claude-code", claude_settings, "/opt/callus/bin/callus");
	json_t *j = load(out), *orig = load(claude_settings);
	const char *cmd = "/opt/callus/bin/callus hook claude-code";

	(void)state;
	/* everything that was there is still there, unchanged */
	assert_true(json_equal(at(j, "permissions"), at(orig, "permissions")));
	assert_true(json_equal(at(j, "env"), at(orig, "env")));
	assert_true(json_equal(at(j, "hooks.Stop"), at(orig, "hooks.Stop")));
	assert_true(json_equal(at(j, "hooks.Notification"), at(orig, "hooks.Notification")));
	assert_true(json_equal(at(j, "hooks.PostToolUse.0"), at(orig, "hooks.PostToolUse.0")));
	assert_true(json_equal(at(j, "hooks.PostToolUse.1"), at(orig, "hooks.PostToolUse.1")));
	assert_true(json_equal(at(j, "cleanupPeriodDays"), at(orig, "cleanupPeriodDays")));
	/* callus's own entries, in groups of their own */
	assert_string_equal(str_at(j, "hooks.PostToolUse.2.matcher"), "Bash");
	assert_string_equal(str_at(j, "hooks.PostToolUse.2.hooks.0.type"), "command");
	assert_string_equal(str_at(j, "hooks.PostToolUse.2.hooks.0.command"), cmd);
	assert_int_equal(json_integer_value(at(j, "hooks.PostToolUse.2.hooks.0.timeout")), 10);
	assert_string_equal(str_at(j, "hooks.PostToolUseFailure.0.matcher"), "Bash");
	assert_string_equal(str_at(j, "hooks.PostToolUseFailure.0.hooks.0.command"), cmd);
	assert_null(at(j, "hooks.SessionStart.0.matcher"));
	assert_string_equal(str_at(j, "hooks.SessionStart.0.hooks.0.command"), cmd);
	assert_null(at(j, "hooks.SessionStart.0.hooks.0.timeout"));
	/* before an edit: the tools that write a file */
	assert_string_equal(str_at(j, "hooks.PreToolUse.0.matcher"), "Edit|Write|MultiEdit|NotebookEdit");
	assert_string_equal(str_at(j, "hooks.PreToolUse.0.hooks.0.command"), cmd);
	assert_int_equal(json_integer_value(at(j, "hooks.PreToolUse.0.hooks.0.timeout")), 5);
	/* key order as written, numbers as written */
	assert_true(strstr(out, "\"model\"") < strstr(out, "\"permissions\""));
	assert_true(strstr(out, "\"permissions\"") < strstr(out, "\"hooks\""));
	assert_true(strstr(out, "\"hooks\"") < strstr(out, "\"env\""));
	assert_true(strstr(out, "\"Stop\"") < strstr(out, "\"PostToolUseFailure\""));
	assert_non_null(strstr(out, "\"ratio\": 0.1\n"));
	assert_non_null(strstr(out, "\n  \"model\": \"opus\",\n"));
	json_decref(j);
	json_decref(orig);
	free(out);
}

static void test_claude_remove_gives_back_the_original(void **state)
{
	callus_agentconf_action action;
	size_t removed;
	char *out = merge_once("claude", claude_settings, NULL);
	char *back = unmerge("claude", out, &action, &removed);

	(void)state;
	assert_int_equal(action, CALLUS_AGENTCONF_WRITE);
	assert_int_equal(removed, 4);
	/* even the empty Notification array the user had stays */
	assert_json_equal(back, claude_settings);
	/* nothing left to remove */
	assert_null(unmerge("claude", back, &action, &removed));
	assert_int_equal(action, CALLUS_AGENTCONF_KEEP);
	assert_int_equal(removed, 0);
	free(out);
	free(back);
}

static void test_existing_entry_updated_in_place(void **state)
{
	/* an older callus (another path) in a group shared with the user's
	 * hook, a duplicate under the same matcher, and one under another
	 * matcher */
	const char *text =
		"{\"hooks\": {\"PostToolUse\": [\n"
		"  {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"},\n"
		"     {\"type\": \"command\", \"command\": \"/old/bin/callus hook claude-code\", \"timeout\": 10}]},\n"
		"  {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"callus hook claude-code\"}]},\n"
		"  {\"matcher\": \"Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"fmt\"}]}\n"
		"], \"PostToolUseFailure\": [\n"
		"  {\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"callus hook claude-code\"}]}\n"
		"]}}";
	char *out = merge_once("claude-code", text, NULL);
	json_t *j = load(out);

	(void)state;
	assert_int_equal(json_array_size(at(j, "hooks.PostToolUse")), 2);
	assert_string_equal(str_at(j, "hooks.PostToolUse.0.hooks.0.command"), "./mine.sh");
	assert_string_equal(str_at(j, "hooks.PostToolUse.0.hooks.1.command"), "callus hook claude-code");
	assert_int_equal(json_integer_value(at(j, "hooks.PostToolUse.0.hooks.1.timeout")), 10);
	assert_string_equal(str_at(j, "hooks.PostToolUse.1.matcher"), "Edit");
	/* the entry under "*" went, with its group; callus's is under Bash */
	assert_int_equal(json_array_size(at(j, "hooks.PostToolUseFailure")), 1);
	assert_string_equal(str_at(j, "hooks.PostToolUseFailure.0.matcher"), "Bash");
	json_decref(j);
	free(out);
}

static void test_new_files(void **state)
{
	const callus_agentconf_agent *all;

	(void)state;
	for (size_t i = 0; (all = callus_agentconf_nth(i)); i++) {
		callus_agentconf_action action;
		size_t removed;
		char *out = merge_once(all->name, NULL, NULL);
		/* an empty settings file is an empty object (an empty script
		 * is not callus's: see test_refusals) */
		char *blank = all->format == CALLUS_AGENTCONF_SCRIPT ? strdup(out)
								     : merge_once(all->name, " \n", NULL);

		assert_string_equal(out, blank);
		assert_null(unmerge(all->name, out, &action, &removed));
		assert_int_equal(action, CALLUS_AGENTCONF_DELETE);
		assert_true(removed >= 1);
		assert_null(unmerge(all->name, NULL, &action, &removed));
		assert_int_equal(action, CALLUS_AGENTCONF_KEEP);
		free(out);
		free(blank);
	}
}

static void test_exact_shapes(void **state)
{
	char *out;

	(void)state;
	out = merge_once("codex", NULL, NULL);
	assert_json_equal(out,
		"{\"hooks\": {"
		"\"PostToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"callus hook codex\", \"timeout\": 10}]}],"
		"\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"callus hook codex\"}]}]}}");
	free(out);
	out = merge_once("gemini", NULL, NULL);
	assert_json_equal(out,
		"{\"hooks\": {"
		"\"AfterTool\": [{\"matcher\": \"run_shell_command\", \"hooks\": [{\"name\": \"callus\", \"type\": \"command\", \"command\": \"callus hook gemini\", \"timeout\": 10000}]}],"
		"\"SessionStart\": [{\"hooks\": [{\"name\": \"callus\", \"type\": \"command\", \"command\": \"callus hook gemini\"}]}]}}");
	free(out);
	out = merge_once("copilot", NULL, NULL);
	assert_json_equal(out,
		"{\"version\": 1, \"hooks\": {"
		"\"postToolUse\": [{\"type\": \"command\", \"bash\": \"callus hook copilot\", \"timeoutSec\": 10}],"
		"\"postToolUseFailure\": [{\"type\": \"command\", \"bash\": \"callus hook copilot\", \"timeoutSec\": 10}],"
		"\"sessionStart\": [{\"type\": \"command\", \"bash\": \"callus hook copilot\", \"timeoutSec\": 10}]}}");
	assert_true(strstr(out, "\"version\"") < strstr(out, "\"hooks\""));
	free(out);
	out = merge_once("cursor", NULL, NULL);
	assert_json_equal(out, "{\"version\": 1, \"hooks\": {\"afterShellExecution\": [{\"command\": \"callus hook cursor\"}]}}");
	free(out);
}

static void test_gemini_settings(void **state)
{
	/* a Gemini CLI settings file with unrelated settings and the older
	 * hooks switches kept inside "hooks" */
	const char *text =
		"{\"theme\": \"GitHub\", \"general\": {\"vimMode\": true},\n"
		" \"hooks\": {\"enabled\": true, \"disabled\": [\"callus hook gemini\"],\n"
		"  \"AfterTool\": [{\"matcher\": \"write_file|replace\", \"hooks\": [{\"name\": \"lint\", \"type\": \"command\", \"command\": \"npm run lint\", \"timeout\": 30000}]}]},\n"
		" \"hooksConfig\": {\"enabled\": true}}";
	callus_agentconf_action action;
	size_t removed;
	char *out = merge_once("gemini", text, NULL), *back;
	json_t *j = load(out);

	(void)state;
	assert_string_equal(str_at(j, "hooks.AfterTool.0.hooks.0.name"), "lint");
	assert_string_equal(str_at(j, "hooks.AfterTool.1.matcher"), "run_shell_command");
	assert_string_equal(str_at(j, "hooks.disabled.0"), "callus hook gemini");
	back = unmerge("gemini", out, &action, &removed);
	assert_int_equal(removed, 2);
	assert_json_equal(back, text);
	json_decref(j);
	free(out);
	free(back);
}

static void test_copilot_and_cursor_keep_other_hooks(void **state)
{
	const char *copilot =
		"{\"version\": 1, \"hooks\": {\"postToolUse\": [{\"type\": \"command\", \"bash\": \"./audit.sh\", \"powershell\": \"./audit.ps1\"}],"
		" \"preToolUse\": [{\"type\": \"command\", \"bash\": \"./guard.sh\"}]}}";
	const char *cursor =
		"{\"hooks\": {\"beforeShellExecution\": [{\"command\": \"./guard.sh\"}],"
		" \"afterShellExecution\": [{\"command\": \"./log.sh\"}]}}";
	callus_agentconf_action action;
	size_t removed;
	char *out, *back;
	json_t *j;

	(void)state;
	out = merge_once("copilot", copilot, NULL);
	j = load(out);
	assert_string_equal(str_at(j, "hooks.postToolUse.0.bash"), "./audit.sh");
	assert_string_equal(str_at(j, "hooks.postToolUse.1.bash"), "callus hook copilot");
	back = unmerge("copilot", out, &action, &removed);
	assert_int_equal(removed, 3);
	assert_json_equal(back, copilot);
	json_decref(j);
	free(out);
	free(back);

	/* no "version": Cursor wants one, and it goes first */
	out = merge_once("cursor", cursor, NULL);
	j = load(out);
	assert_true(strstr(out, "\"version\": 1") < strstr(out, "\"hooks\""));
	assert_string_equal(str_at(j, "hooks.afterShellExecution.0.command"), "./log.sh");
	assert_string_equal(str_at(j, "hooks.afterShellExecution.1.command"), "callus hook cursor");
	back = unmerge("cursor", out, &action, &removed);
	assert_int_equal(removed, 1);
	/* the version callus added stays: Cursor needs it anyway */
	assert_json_equal(back,
		"{\"version\": 1, \"hooks\": {\"beforeShellExecution\": [{\"command\": \"./guard.sh\"}],"
		" \"afterShellExecution\": [{\"command\": \"./log.sh\"}]}}");
	json_decref(j);
	free(out);
	free(back);
}

static void test_remove_hand_added_entries_and_emptied_containers(void **state)
{
	const char *text =
		"{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"callus hook claude-code\"}]}],"
		" \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"'/x y/callus' hook claude-code\"},"
		"   {\"type\": \"command\", \"command\": \"guard\"}]}],"
		" \"SubagentStop\": []},"
		" \"model\": \"sonnet\"}";
	callus_agentconf_action action;
	size_t removed;
	char *back = unmerge("claude-code", text, &action, &removed);

	(void)state;
	assert_int_equal(action, CALLUS_AGENTCONF_WRITE);
	assert_int_equal(removed, 2);
	assert_json_equal(back,
		"{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]}],"
		" \"SubagentStop\": []}, \"model\": \"sonnet\"}");
	free(back);

	/* only callus's hooks: the hooks object goes, the rest stays */
	back = unmerge("claude-code", "{\"model\": \"sonnet\", \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"callus hook x\"}]}]}}",
		       &action, &removed);
	assert_json_equal(back, "{\"model\": \"sonnet\"}");
	free(back);
}

static void test_refusals(void **state)
{
	(void)state;
	refuse("claude-code", "{\n  // mine\n  \"hooks\": {}\n}\n", "comments are not JSON");
	refuse("gemini", "{\"hooks\": {} /* c */}", "comments are not JSON");
	refuse("claude-code", "{\"hooks\": {},}", "not valid JSON");
	refuse("claude-code", "{\"model\": \"a\", \"model\": \"b\"}", "duplicate");
	refuse("claude-code", "[1, 2]", "not a JSON object");
	refuse("claude-code", "{\"hooks\": []}", "\"hooks\" is an array, not an object");
	refuse("codex", "{\"hooks\": {\"PostToolUse\": {\"matcher\": \"Bash\"}}}",
	       "hooks.PostToolUse is an object, not an array");
	refuse("claude-code", "{\"hooks\": {\"SessionStart\": [\"callus hook claude-code\"]}}",
	       "hooks.SessionStart[0] is a string, not an object");
	refuse("gemini", "{\"hooks\": {\"AfterTool\": [{\"hooks\": {\"command\": \"x\"}}]}}",
	       "hooks.AfterTool[0].hooks is an object, not an array");
	refuse("claude-code", "{\"hooks\": {\"PostToolUse\": [{\"hooks\": [\"x\"]}]}}",
	       "hooks.PostToolUse[0].hooks[0] is a string, not an object");
	refuse("cursor", "{\"version\": 2, \"hooks\": {}}", "\"version\" other than 1");
	refuse("copilot", "{\"version\": \"1\"}", "\"version\" other than 1");
	refuse("claude-code", "{\"n\": 123456789012345678901234567890}", "not valid JSON");
	refuse("cline", "#!/bin/sh\n./my-hook.sh\n", "is not callus's");
	refuse("cline", "", "is not callus's");
}

static void test_cline_script(void **state)
{
	callus_agentconf_action action;
	size_t removed;
	char *s = merge_once("cline", NULL, "/opt/my callus/callus"), *again;

	(void)state;
	assert_true(!strncmp(s, "#!/bin/sh\n" CALLUS_AGENTCONF_MARKER, 10 + strlen(CALLUS_AGENTCONF_MARKER)));
	assert_non_null(strstr(s, "\nexec '/opt/my callus/callus' hook cline\n"));
	/* another program: rewritten */
	again = merge("cline", s, NULL, &action);
	assert_int_equal(action, CALLUS_AGENTCONF_WRITE);
	assert_non_null(strstr(again, "\nexec callus hook cline\n"));
	assert_null(unmerge("cline", again, &action, &removed));
	assert_int_equal(action, CALLUS_AGENTCONF_DELETE);
	assert_int_equal(removed, 1);
	assert_null(unmerge("cline", "#!/bin/sh\nexec callus hook cline\n", &action, &removed));
	assert_int_equal(action, CALLUS_AGENTCONF_KEEP);
	assert_int_equal(removed, 0);
	free(s);
	free(again);
}

static void test_numbers_and_text_survive(void **state)
{
	const char *text = "{\"a\": 0.1, \"b\": 1e-7, \"c\": 0.30000000000000004, \"d\": -0,"
			   " \"e\": 9007199254740993, \"f\": \"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\/\"}";
	char *out = merge_once("claude-code", text, NULL);
	json_t *j = load(out), *orig = load(text);

	(void)state;
	json_object_del(j, "hooks");
	assert_true(json_equal(j, orig));
	json_decref(j);
	json_decref(orig);
	free(out);

	/* numbers that need few digits keep them (jansson alone would print
	 * 0.10000000000000001) */
	out = merge_once("claude-code", "{\"a\": 0.1, \"b\": 2.5, \"c\": 3}", NULL);
	assert_non_null(strstr(out, "\"a\": 0.1,\n  \"b\": 2.5,\n  \"c\": 3,"));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find_and_list),
		cmocka_unit_test(test_command_line),
		cmocka_unit_test(test_recognise_callus_commands),
		cmocka_unit_test(test_claude_merge_keeps_everything),
		cmocka_unit_test(test_claude_remove_gives_back_the_original),
		cmocka_unit_test(test_existing_entry_updated_in_place),
		cmocka_unit_test(test_new_files),
		cmocka_unit_test(test_exact_shapes),
		cmocka_unit_test(test_gemini_settings),
		cmocka_unit_test(test_copilot_and_cursor_keep_other_hooks),
		cmocka_unit_test(test_remove_hand_added_entries_and_emptied_containers),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_cline_script),
		cmocka_unit_test(test_numbers_and_text_survive),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
