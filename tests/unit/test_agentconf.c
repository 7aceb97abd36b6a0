/*
 * test_agentconf.c - deja's hook entries merged into and taken out of the
 * agents' settings files (src/agentconf.c, docs/agents.md).
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

#include "deja/agentconf.h"
#include "deja/buf.h"

static const deja_agentconf_agent *agent(const char *name)
{
	const deja_agentconf_agent *a = deja_agentconf_find(name);

	if (!a)
		fail_msg("no agent %s", name);
	return a;
}

/* Merge that must succeed; returns the new text (malloc'ed, NULL for
 * KEEP) and the action. */
static char *merge(const char *name, const char *text, const char *program,
		   deja_agentconf_action *action)
{
	deja_buf out = DEJA_BUF_INIT;
	deja_error err = DEJA_ERROR_INIT;
	int rc = deja_agentconf_merge(&out, action, agent(name), text, text ? strlen(text) : 0,
				      program, &err);

	if (rc != 0)
		fail_msg("merge %s failed: %s", name, deja_error_message(&err));
	deja_error_release(&err);
	if (*action == DEJA_AGENTCONF_KEEP) {
		assert_int_equal(out.len, 0);
		deja_buf_release(&out);
		return NULL;
	}
	assert_int_equal(*action, DEJA_AGENTCONF_WRITE);
	assert_true(out.len > 0 && out.ptr[out.len - 1] == '\n');
	return deja_buf_detach(&out);
}

/* Merge into text, which must give a new text; merging that again must
 * change nothing (idempotence). */
static char *merge_once(const char *name, const char *text, const char *program)
{
	deja_agentconf_action action;
	char *once = merge(name, text, program, &action), *twice;

	assert_non_null(once);
	twice = merge(name, once, program, &action);
	assert_int_equal(action, DEJA_AGENTCONF_KEEP);
	assert_null(twice);
	return once;
}

static char *unmerge(const char *name, const char *text, deja_agentconf_action *action,
		     size_t *removed)
{
	deja_buf out = DEJA_BUF_INIT;
	deja_error err = DEJA_ERROR_INIT;
	int rc = deja_agentconf_unmerge(&out, action, removed, agent(name), text,
					text ? strlen(text) : 0, NULL, &err);

	if (rc != 0)
		fail_msg("unmerge %s failed: %s", name, deja_error_message(&err));
	deja_error_release(&err);
	if (*action != DEJA_AGENTCONF_WRITE) {
		assert_int_equal(out.len, 0);
		deja_buf_release(&out);
		return NULL;
	}
	return deja_buf_detach(&out);
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
	deja_buf out = DEJA_BUF_INIT;
	deja_error err = DEJA_ERROR_INIT;
	deja_agentconf_action action = DEJA_AGENTCONF_WRITE;
	size_t removed = 7;

	assert_int_equal(deja_agentconf_merge(&out, &action, agent(name), text, strlen(text), NULL, &err),
			 DEJA_EINVAL);
	assert_int_equal(action, DEJA_AGENTCONF_KEEP);
	assert_int_equal(out.len, 0);
	if (!strstr(deja_error_message(&err), msg_part))
		fail_msg("message '%s' lacks '%s'", deja_error_message(&err), msg_part);
	deja_error_release(&err);
	if (deja_agentconf_find(name)->format != DEJA_AGENTCONF_SCRIPT) {
		action = DEJA_AGENTCONF_WRITE;
		assert_int_equal(deja_agentconf_unmerge(&out, &action, &removed, agent(name), text,
							strlen(text), NULL, &err),
				 DEJA_EINVAL);
		assert_int_equal(action, DEJA_AGENTCONF_KEEP);
		assert_int_equal(removed, 0);
		deja_error_release(&err);
	}
	deja_buf_release(&out);
}

/* A project's Claude Code settings as people write them: permissions, an
 * env, other hooks in the events deja uses (one of them on the same
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
	const deja_agentconf_agent *all;
	size_t n;

	(void)state;
	all = deja_agentconf_agents(&n);
	assert_int_equal(n, 6);
	assert_ptr_equal(deja_agentconf_find("claude"), deja_agentconf_find("claude-code"));
	assert_ptr_equal(deja_agentconf_find("claude-code"), &all[0]);
	assert_string_equal(deja_agentconf_find("copilot")->path, ".github/hooks/deja.json");
	assert_int_equal(deja_agentconf_find("cline")->format, DEJA_AGENTCONF_SCRIPT);
	assert_null(deja_agentconf_find("aider"));
	assert_null(deja_agentconf_find("Claude"));
	assert_null(deja_agentconf_find(NULL));
}

static void test_command_line(void **state)
{
	deja_buf b = DEJA_BUF_INIT;

	(void)state;
	assert_int_equal(deja_agentconf_command(&b, agent("claude"), NULL), 0);
	assert_string_equal(b.ptr, "deja hook claude-code");
	assert_int_equal(deja_agentconf_command(&b, agent("gemini"), "/usr/local/bin/deja"), 0);
	assert_string_equal(b.ptr, "/usr/local/bin/deja hook gemini");
	assert_int_equal(deja_agentconf_command(&b, agent("cline"), "/home/me/my tools/it's/deja"), 0);
	assert_string_equal(b.ptr, "'/home/me/my tools/it'\\''s/deja' hook cline");
	assert_true(deja_agentconf_is_deja_command(b.ptr, NULL));
	deja_buf_release(&b);
}

static void test_recognise_deja_commands(void **state)
{
	(void)state;
	assert_true(deja_agentconf_is_deja_command("deja hook claude-code", NULL));
	assert_true(deja_agentconf_is_deja_command("  /opt/deja/bin/deja  hook codex", NULL));
	assert_true(deja_agentconf_is_deja_command("\"/a b/deja\" hook cursor", NULL));
	assert_true(deja_agentconf_is_deja_command("/a\\ b/deja hook cursor", NULL));
	assert_true(deja_agentconf_is_deja_command("deja hook", NULL));
	assert_true(deja_agentconf_is_deja_command("./deja-dev hook cline", "./deja-dev"));
	assert_false(deja_agentconf_is_deja_command("./deja-dev hook cline", NULL));
	assert_false(deja_agentconf_is_deja_command("deja run -- npx eslint", NULL));
	assert_false(deja_agentconf_is_deja_command("deja hooks", NULL));
	assert_false(deja_agentconf_is_deja_command("dejavu hook x", NULL));
	assert_false(deja_agentconf_is_deja_command("/bin/mydeja hook x", NULL));
	assert_false(deja_agentconf_is_deja_command("echo deja hook x", NULL));
	assert_false(deja_agentconf_is_deja_command("'deja hook x", NULL));
	assert_false(deja_agentconf_is_deja_command("", NULL));
	assert_false(deja_agentconf_is_deja_command(NULL, NULL));
}

static void test_claude_merge_keeps_everything(void **state)
{
	char *out = merge_once("claude-code", claude_settings, "/opt/deja/bin/deja");
	json_t *j = load(out), *orig = load(claude_settings);
	const char *cmd = "/opt/deja/bin/deja hook claude-code";

	(void)state;
	/* everything that was there is still there, unchanged */
	assert_true(json_equal(at(j, "permissions"), at(orig, "permissions")));
	assert_true(json_equal(at(j, "env"), at(orig, "env")));
	assert_true(json_equal(at(j, "hooks.Stop"), at(orig, "hooks.Stop")));
	assert_true(json_equal(at(j, "hooks.Notification"), at(orig, "hooks.Notification")));
	assert_true(json_equal(at(j, "hooks.PostToolUse.0"), at(orig, "hooks.PostToolUse.0")));
	assert_true(json_equal(at(j, "hooks.PostToolUse.1"), at(orig, "hooks.PostToolUse.1")));
	assert_true(json_equal(at(j, "cleanupPeriodDays"), at(orig, "cleanupPeriodDays")));
	/* deja's own entries, in groups of their own */
	assert_string_equal(str_at(j, "hooks.PostToolUse.2.matcher"), "Bash");
	assert_string_equal(str_at(j, "hooks.PostToolUse.2.hooks.0.type"), "command");
	assert_string_equal(str_at(j, "hooks.PostToolUse.2.hooks.0.command"), cmd);
	assert_int_equal(json_integer_value(at(j, "hooks.PostToolUse.2.hooks.0.timeout")), 10);
	assert_string_equal(str_at(j, "hooks.PostToolUseFailure.0.matcher"), "Bash");
	assert_string_equal(str_at(j, "hooks.PostToolUseFailure.0.hooks.0.command"), cmd);
	assert_null(at(j, "hooks.SessionStart.0.matcher"));
	assert_string_equal(str_at(j, "hooks.SessionStart.0.hooks.0.command"), cmd);
	assert_null(at(j, "hooks.SessionStart.0.hooks.0.timeout"));
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
	deja_agentconf_action action;
	size_t removed;
	char *out = merge_once("claude", claude_settings, NULL);
	char *back = unmerge("claude", out, &action, &removed);

	(void)state;
	assert_int_equal(action, DEJA_AGENTCONF_WRITE);
	assert_int_equal(removed, 3);
	/* even the empty Notification array the user had stays */
	assert_json_equal(back, claude_settings);
	/* nothing left to remove */
	assert_null(unmerge("claude", back, &action, &removed));
	assert_int_equal(action, DEJA_AGENTCONF_KEEP);
	assert_int_equal(removed, 0);
	free(out);
	free(back);
}

static void test_existing_entry_updated_in_place(void **state)
{
	/* an older deja (another path) in a group shared with the user's
	 * hook, a duplicate under the same matcher, and one under another
	 * matcher */
	const char *text =
		"{\"hooks\": {\"PostToolUse\": [\n"
		"  {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"./mine.sh\"},\n"
		"     {\"type\": \"command\", \"command\": \"/old/bin/deja hook claude-code\", \"timeout\": 10}]},\n"
		"  {\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"deja hook claude-code\"}]},\n"
		"  {\"matcher\": \"Edit\", \"hooks\": [{\"type\": \"command\", \"command\": \"fmt\"}]}\n"
		"], \"PostToolUseFailure\": [\n"
		"  {\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\", \"command\": \"deja hook claude-code\"}]}\n"
		"]}}";
	char *out = merge_once("claude-code", text, NULL);
	json_t *j = load(out);

	(void)state;
	assert_int_equal(json_array_size(at(j, "hooks.PostToolUse")), 2);
	assert_string_equal(str_at(j, "hooks.PostToolUse.0.hooks.0.command"), "./mine.sh");
	assert_string_equal(str_at(j, "hooks.PostToolUse.0.hooks.1.command"), "deja hook claude-code");
	assert_int_equal(json_integer_value(at(j, "hooks.PostToolUse.0.hooks.1.timeout")), 10);
	assert_string_equal(str_at(j, "hooks.PostToolUse.1.matcher"), "Edit");
	/* the entry under "*" went, with its group; deja's is under Bash */
	assert_int_equal(json_array_size(at(j, "hooks.PostToolUseFailure")), 1);
	assert_string_equal(str_at(j, "hooks.PostToolUseFailure.0.matcher"), "Bash");
	json_decref(j);
	free(out);
}

static void test_new_files(void **state)
{
	const deja_agentconf_agent *all;
	size_t n;

	(void)state;
	all = deja_agentconf_agents(&n);
	for (size_t i = 0; i < n; i++) {
		deja_agentconf_action action;
		size_t removed;
		char *out = merge_once(all[i].name, NULL, NULL);
		/* an empty settings file is an empty object (an empty script
		 * is not deja's: see test_refusals) */
		char *blank = all[i].format == DEJA_AGENTCONF_SCRIPT ? strdup(out)
								     : merge_once(all[i].name, " \n", NULL);

		assert_string_equal(out, blank);
		assert_null(unmerge(all[i].name, out, &action, &removed));
		assert_int_equal(action, DEJA_AGENTCONF_DELETE);
		assert_true(removed >= 1);
		assert_null(unmerge(all[i].name, NULL, &action, &removed));
		assert_int_equal(action, DEJA_AGENTCONF_KEEP);
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
		"\"PostToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"deja hook codex\", \"timeout\": 10}]}],"
		"\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"deja hook codex\"}]}]}}");
	free(out);
	out = merge_once("gemini", NULL, NULL);
	assert_json_equal(out,
		"{\"hooks\": {"
		"\"AfterTool\": [{\"matcher\": \"run_shell_command\", \"hooks\": [{\"name\": \"deja\", \"type\": \"command\", \"command\": \"deja hook gemini\", \"timeout\": 10000}]}],"
		"\"SessionStart\": [{\"hooks\": [{\"name\": \"deja\", \"type\": \"command\", \"command\": \"deja hook gemini\"}]}]}}");
	free(out);
	out = merge_once("copilot", NULL, NULL);
	assert_json_equal(out,
		"{\"version\": 1, \"hooks\": {"
		"\"postToolUse\": [{\"type\": \"command\", \"bash\": \"deja hook copilot\", \"timeoutSec\": 10}],"
		"\"postToolUseFailure\": [{\"type\": \"command\", \"bash\": \"deja hook copilot\", \"timeoutSec\": 10}],"
		"\"sessionStart\": [{\"type\": \"command\", \"bash\": \"deja hook copilot\", \"timeoutSec\": 10}]}}");
	assert_true(strstr(out, "\"version\"") < strstr(out, "\"hooks\""));
	free(out);
	out = merge_once("cursor", NULL, NULL);
	assert_json_equal(out, "{\"version\": 1, \"hooks\": {\"afterShellExecution\": [{\"command\": \"deja hook cursor\"}]}}");
	free(out);
}

static void test_gemini_settings(void **state)
{
	/* a Gemini CLI settings file with unrelated settings and the older
	 * hooks switches kept inside "hooks" */
	const char *text =
		"{\"theme\": \"GitHub\", \"general\": {\"vimMode\": true},\n"
		" \"hooks\": {\"enabled\": true, \"disabled\": [\"deja hook gemini\"],\n"
		"  \"AfterTool\": [{\"matcher\": \"write_file|replace\", \"hooks\": [{\"name\": \"lint\", \"type\": \"command\", \"command\": \"npm run lint\", \"timeout\": 30000}]}]},\n"
		" \"hooksConfig\": {\"enabled\": true}}";
	deja_agentconf_action action;
	size_t removed;
	char *out = merge_once("gemini", text, NULL), *back;
	json_t *j = load(out);

	(void)state;
	assert_string_equal(str_at(j, "hooks.AfterTool.0.hooks.0.name"), "lint");
	assert_string_equal(str_at(j, "hooks.AfterTool.1.matcher"), "run_shell_command");
	assert_string_equal(str_at(j, "hooks.disabled.0"), "deja hook gemini");
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
	deja_agentconf_action action;
	size_t removed;
	char *out, *back;
	json_t *j;

	(void)state;
	out = merge_once("copilot", copilot, NULL);
	j = load(out);
	assert_string_equal(str_at(j, "hooks.postToolUse.0.bash"), "./audit.sh");
	assert_string_equal(str_at(j, "hooks.postToolUse.1.bash"), "deja hook copilot");
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
	assert_string_equal(str_at(j, "hooks.afterShellExecution.1.command"), "deja hook cursor");
	back = unmerge("cursor", out, &action, &removed);
	assert_int_equal(removed, 1);
	/* the version deja added stays: Cursor needs it anyway */
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
		"{\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"deja hook claude-code\"}]}],"
		" \"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"'/x y/deja' hook claude-code\"},"
		"   {\"type\": \"command\", \"command\": \"guard\"}]}],"
		" \"SubagentStop\": []},"
		" \"model\": \"sonnet\"}";
	deja_agentconf_action action;
	size_t removed;
	char *back = unmerge("claude-code", text, &action, &removed);

	(void)state;
	assert_int_equal(action, DEJA_AGENTCONF_WRITE);
	assert_int_equal(removed, 2);
	assert_json_equal(back,
		"{\"hooks\": {\"PreToolUse\": [{\"matcher\": \"Bash\", \"hooks\": [{\"type\": \"command\", \"command\": \"guard\"}]}],"
		" \"SubagentStop\": []}, \"model\": \"sonnet\"}");
	free(back);

	/* only deja's hooks: the hooks object goes, the rest stays */
	back = unmerge("claude-code", "{\"model\": \"sonnet\", \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"deja hook x\"}]}]}}",
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
	refuse("claude-code", "{\"hooks\": {\"SessionStart\": [\"deja hook claude-code\"]}}",
	       "hooks.SessionStart[0] is a string, not an object");
	refuse("gemini", "{\"hooks\": {\"AfterTool\": [{\"hooks\": {\"command\": \"x\"}}]}}",
	       "hooks.AfterTool[0].hooks is an object, not an array");
	refuse("claude-code", "{\"hooks\": {\"PostToolUse\": [{\"hooks\": [\"x\"]}]}}",
	       "hooks.PostToolUse[0].hooks[0] is a string, not an object");
	refuse("cursor", "{\"version\": 2, \"hooks\": {}}", "\"version\" other than 1");
	refuse("copilot", "{\"version\": \"1\"}", "\"version\" other than 1");
	refuse("claude-code", "{\"n\": 123456789012345678901234567890}", "not valid JSON");
	refuse("cline", "#!/bin/sh\n./my-hook.sh\n", "is not deja's");
	refuse("cline", "", "is not deja's");
}

static void test_cline_script(void **state)
{
	deja_agentconf_action action;
	size_t removed;
	char *s = merge_once("cline", NULL, "/opt/my deja/deja"), *again;

	(void)state;
	assert_true(!strncmp(s, "#!/bin/sh\n" DEJA_AGENTCONF_MARKER, 10 + strlen(DEJA_AGENTCONF_MARKER)));
	assert_non_null(strstr(s, "\nexec '/opt/my deja/deja' hook cline\n"));
	/* another program: rewritten */
	again = merge("cline", s, NULL, &action);
	assert_int_equal(action, DEJA_AGENTCONF_WRITE);
	assert_non_null(strstr(again, "\nexec deja hook cline\n"));
	assert_null(unmerge("cline", again, &action, &removed));
	assert_int_equal(action, DEJA_AGENTCONF_DELETE);
	assert_int_equal(removed, 1);
	assert_null(unmerge("cline", "#!/bin/sh\nexec deja hook cline\n", &action, &removed));
	assert_int_equal(action, DEJA_AGENTCONF_KEEP);
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
		cmocka_unit_test(test_recognise_deja_commands),
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
