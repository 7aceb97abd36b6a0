#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agents/agent.h"
#include "callus/buf.h"
#include "callus/common.h"
#include "callus/hookio.h"
#include "callus/utf8.h"

#define W "/home/dev/shop"

/* Fixtures live in the source tree; CALLUS_SRCDIR points there when the test
 * does not run from the repository root. */
static char *read_fixture(const char *name, size_t *len)
{
	callus_buf path = CALLUS_BUF_INIT, b = CALLUS_BUF_INIT;
	const char *dir = getenv("CALLUS_SRCDIR");
	char chunk[8192];
	size_t n;
	FILE *f;

	callus_buf_printf(&path, "%s/tests/hooks/fixtures/%s.json", dir ? dir : ".", name);
	f = fopen(path.ptr, "rb");
	if (!f)
		fail_msg("cannot open fixture %s", path.ptr);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		callus_buf_put(&b, chunk, n);
	fclose(f);
	callus_buf_release(&path);
	*len = b.len;
	return callus_buf_detach(&b);
}

static void parse_ok(callus_hook_event *e, callus_agent agent, const char *json, size_t len)
{
	callus_error err = CALLUS_ERROR_INIT;
	int rc = callus_hook_event_parse(e, agent, json, len, &err);

	if (rc != 0)
		fail_msg("parse failed (%d): %s", rc, callus_error_message(&err));
	callus_error_release(&err);
	assert_non_null(e->event);
	assert_non_null(e->output);
	assert_int_equal(strlen(e->output), e->output_len);
	assert_true(callus_utf8_valid(e->output, e->output_len));
}

static void parse_str(callus_hook_event *e, callus_agent agent, const char *json)
{
	parse_ok(e, agent, json, strlen(json));
}

static void assert_str_or_null(const char *got, const char *want)
{
	if (!want)
		assert_null(got);
	else
		assert_string_equal(got, want);
}

/* ---- every fixture -------------------------------------------------------- */

struct fixture {
	const char *file;
	callus_agent agent;
	const char *event;
	int is_shell, session_start;
	const char *command;
	int exit_code, exit_inferred, interrupted;
	const char *output_starts; /* NULL: output is "" */
	const char *output_has;    /* NULL: no check */
	const char *output_lacks;  /* the agent's framing, which must be gone */
	const char *cwd, *session_id;
};

#define CSID "3f9c2b1e-7a44-4d1f-9b0e-52c1d7e8a6f1"
#define XSID "0199a213-81c0-7800-8aa1-bbab2a035a53"
#define GSID "c2b7e0e4-5a0f-4f0a-9a52-6f3d0f7c9a11"
#define PSID "a1f3c9d2-1b7e-4c55-9e0b-3d2f6a8b7c10"
#define USID "b5e2f0a7-9c3d-4e61-8f2a-0d9c7e4b1a23"
#define ESLINT_HEAD "\n" W "/src/app.js\n  4:9  error  'currency'"
#define NPM_HEAD "\n> shop@1.0.0 test\n> jest\n"

static const struct fixture fixtures[] = {
	{ "claude-code-eslint-fail", CALLUS_AGENT_CLAUDE, "PostToolUseFailure", 1, 0, "npx eslint .",
	  1, 0, 0, ESLINT_HEAD, "\xe2\x9c\x96 2 problems (2 errors, 0 warnings)", "Exit code", W, CSID },
	{ "claude-code-jest-pass", CALLUS_AGENT_CLAUDE, "PostToolUse", 1, 0, "npm test", 0, 0, 0,
	  NPM_HEAD, "\nPASS ./sum.test.js", NULL, W, CSID },
	{ "claude-code-ls", CALLUS_AGENT_CLAUDE, "PostToolUse", 1, 0, "ls -la", 0, 0, 0, "total 24\n",
	  "eslint.config.js", NULL, W, CSID },
	{ "claude-code-string-response", CALLUS_AGENT_CLAUDE, "PostToolUse", 1, 0, "npm run lint", 0,
	  0, 0, "\n> shop@1.0.0 lint\n", NULL, NULL, W, CSID },
	{ "claude-code-interrupted", CALLUS_AGENT_CLAUDE, "PostToolUseFailure", 1, 0,
	  "npm test -- --watch", -1, 0, 1, "Request interrupted by user", NULL, NULL, W, CSID },
	{ "claude-code-session-start", CALLUS_AGENT_CLAUDE, "SessionStart", 0, 1, NULL, -1, 0, 0, NULL,
	  NULL, NULL, W, CSID },
	{ "codex-jest-fail", CALLUS_AGENT_CODEX, "PostToolUse", 1, 0, "npm test", 1, 0, 0, NPM_HEAD,
	  "Tests:       1 failed, 1 passed, 2 total", "Wall time", W, XSID },
	{ "codex-argv-eslint", CALLUS_AGENT_CODEX, "PostToolUse", 1, 0, "npx eslint src", 1, 0, 0,
	  ESLINT_HEAD, NULL, "Chunk ID", W "/web", XSID },
	{ "codex-no-status", CALLUS_AGENT_CODEX, "PostToolUse", 1, 0, "ls -la", -1, 0, 0, "total 24\n",
	  NULL, NULL, W, XSID },
	{ "codex-jest-pass", CALLUS_AGENT_CODEX, "PostToolUse", 1, 0, "npm test", 0, 0, 0, NPM_HEAD,
	  "Tests:       2 passed, 2 total", "Process exited", W, XSID },
	{ "gemini-tsc-fail", CALLUS_AGENT_GEMINI, "AfterTool", 1, 0, "npx tsc --noEmit", 2, 0, 0,
	  "src/cart.ts(12,7): error TS2322", "Found 1 error", "PGID", W "/web", GSID },
	{ "gemini-jest-pass", CALLUS_AGENT_GEMINI, "AfterTool", 1, 0, "npm test", 0, 0, 0, NPM_HEAD,
	  "Ran all test suites.", "PGID", W, GSID },
	{ "gemini-not-found", CALLUS_AGENT_GEMINI, "AfterTool", 1, 0, "pytest -q", 127, 0, 0,
	  "bash: line 1: pytest: command not found", NULL, "Exit Code", W, GSID },
	{ "gemini-ls", CALLUS_AGENT_GEMINI, "AfterTool", 1, 0, "ls -la", 0, 0, 0, "total 24\n", NULL,
	  "Output:", W, GSID },
	{ "gemini-cancelled", CALLUS_AGENT_GEMINI, "AfterTool", 1, 0, "npx jest --watch", -1, 0, 1,
	  "Determining test suites to run...", NULL, "cancelled", W, GSID },
	{ "gemini-session-start", CALLUS_AGENT_GEMINI, "SessionStart", 0, 1, NULL, -1, 0, 0, NULL, NULL,
	  NULL, W, GSID },
	{ "copilot-jest-fail", CALLUS_AGENT_COPILOT, "postToolUse", 1, 0, "npm test", 1, 0, 0, NPM_HEAD,
	  "Tests:       1 failed", "<exited", W, PSID },
	{ "copilot-failure", CALLUS_AGENT_COPILOT, "postToolUseFailure", 1, 0, "npx eslint .", 1, 0, 0,
	  ESLINT_HEAD, NULL, "<exited", W, PSID },
	{ "copilot-ls", CALLUS_AGENT_COPILOT, "postToolUse", 1, 0, "ls -la", 0, 0, 0, "total 24\n", NULL,
	  "<exited", W, NULL },
	{ "copilot-view", CALLUS_AGENT_COPILOT, "postToolUse", 0, 0, NULL, -1, 0, 0, NULL, NULL, NULL, W,
	  NULL },
	{ "cursor-eslint-fail", CALLUS_AGENT_CURSOR, "afterShellExecution", 1, 0, "npx eslint .", -1, 0,
	  0, ESLINT_HEAD, NULL, NULL, W, USID },
	{ "cursor-jest-pass", CALLUS_AGENT_CURSOR, "afterShellExecution", 1, 0, "npm test", -1, 0, 0,
	  NPM_HEAD, NULL, NULL, W "/api", USID },
	{ "cursor-ls", CALLUS_AGENT_CURSOR, "afterShellExecution", 1, 0, "ls -la", -1, 0, 0, "total 24\n",
	  NULL, NULL, W, USID },
	{ "cline-jest-fail", CALLUS_AGENT_CLINE, "PostToolUse", 1, 0, "npm test", -1, 0, 0, NPM_HEAD,
	  "FAIL ./sum.test.js", "Command executed", W, "1759396401822" },
	{ "cline-jest-pass", CALLUS_AGENT_CLINE, "PostToolUse", 1, 0, "npm test", -1, 0, 0, NPM_HEAD,
	  "PASS ./sum.test.js", "Command executed", W, "1759396401822" },
	{ "cline-read-file", CALLUS_AGENT_CLINE, "PostToolUse", 0, 0, NULL, -1, 0, 0, NULL, NULL, NULL, W,
	  "1759396401822" },
	{ "cline-task-start", CALLUS_AGENT_CLINE, "TaskStart", 0, 1, NULL, -1, 0, 0, NULL, NULL, NULL, W,
	  "1759396401822" },
	{ "generic-eslint-fail", CALLUS_AGENT_GENERIC, "", 1, 0, "npx eslint .", 1, 0, 0, ESLINT_HEAD,
	  NULL, NULL, W, "task-7" },
	{ "generic-jest-pass", CALLUS_AGENT_GENERIC, "", 1, 0, "npm test", 0, 0, 0, NPM_HEAD, NULL, NULL,
	  W, "sess-42" },
};

static void every_fixture_gives_its_fields(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		const struct fixture *f = &fixtures[i];
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		char *peeked = (char *)1;
		size_t len;
		char *json = read_fixture(f->file, &len);

		print_message("fixture %s\n", f->file);
		parse_ok(&e, f->agent, json, len);
		assert_int_equal(e.agent, f->agent);
		assert_string_equal(e.event, f->event);
		assert_int_equal(e.is_shell, f->is_shell);
		assert_int_equal(e.session_start, f->session_start);
		assert_str_or_null(e.command, f->command);
		assert_int_equal(e.exit_code, f->exit_code);
		assert_int_equal(e.exit_inferred, f->exit_inferred);
		assert_int_equal(e.interrupted, f->interrupted);
		if (!f->output_starts)
			assert_string_equal(e.output, "");
		else if (strncmp(e.output, f->output_starts, strlen(f->output_starts)) != 0)
			fail_msg("%s: output starts \"%.60s\"", f->file, e.output);
		if (f->output_has && !strstr(e.output, f->output_has))
			fail_msg("%s: output lacks \"%s\"", f->file, f->output_has);
		if (f->output_lacks && strstr(e.output, f->output_lacks))
			fail_msg("%s: output keeps \"%s\"", f->file, f->output_lacks);
		assert_str_or_null(e.cwd, f->cwd);
		assert_str_or_null(e.session_id, f->session_id);

		/* the cheap path agrees with the full one */
		assert_int_equal(callus_hook_peek_command(&peeked, f->agent, json, len), 0);
		assert_str_or_null(peeked, f->command);
		free(peeked);
		callus_hook_event_release(&e);
		free(json);
	}
}

/* ---- real payloads (tests/hooks/fixtures/real: captured from the CLIs) -- */

/* Codex 0.169: the bare output, the status only in the transcript. */
/* Payloads the real Gemini CLI 0.61.0, Copilot CLI 1.0.102 and Claude Code
 * 2.1.331 sent (tests/e2e/t0015, t0016, t0017): Gemini's and Copilot's status
 * only inside the output's framing, Claude Code's as the first line of a
 * failure's "error". */
static void real_payloads(void **state)
{
	static const struct {
		const char *fixture;
		callus_agent agent;
		int exit_code, session_start;
		const char *command;
	} cases[] = {
		{ "real/gemini-eslint-fail", CALLUS_AGENT_GEMINI, 1, 0, "npx eslint src" },
		{ "real/gemini-eslint-pass", CALLUS_AGENT_GEMINI, 0, 0, "npx eslint src" },
		{ "real/gemini-session-start", CALLUS_AGENT_GEMINI, -1, 1, NULL },
		{ "real/copilot-eslint-fail", CALLUS_AGENT_COPILOT, 1, 0, "npx eslint src" },
		{ "real/copilot-eslint-pass", CALLUS_AGENT_COPILOT, 0, 0, "npx eslint src" },
		{ "real/copilot-session-start", CALLUS_AGENT_COPILOT, -1, 1, NULL },
		{ "real/claude-code-eslint-fail", CALLUS_AGENT_CLAUDE, 1, 0, "npx eslint src" },
		{ "real/claude-code-eslint-pass", CALLUS_AGENT_CLAUDE, 0, 0, "npx eslint src" },
		{ "real/claude-code-session-start", CALLUS_AGENT_CLAUDE, -1, 1, NULL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		size_t len;
		char *json = read_fixture(cases[i].fixture, &len);

		parse_ok(&e, cases[i].agent, json, len);
		assert_string_equal(e.cwd, "/home/dev/shop");
		assert_int_equal(e.session_start, cases[i].session_start);
		if (cases[i].command) {
			assert_int_equal(e.is_shell, 1);
			assert_string_equal(e.command, cases[i].command);
			assert_int_equal(e.exit_code, cases[i].exit_code);
		}
		if (cases[i].exit_code == 1) {
			/* the framing is gone from the output the parsers read */
			assert_non_null(strstr(e.output, "'currency' is assigned a value but never used"));
			assert_null(strstr(e.output, "untrusted_context"));
			assert_null(strstr(e.output, "<shellId:"));
			assert_null(strstr(e.output, "Exit code"));
		}
		callus_hook_event_release(&e);
		free(json);
	}
}

/* Claude Code 2.1.331's PreToolUse of Edit (tests/e2e/t0017): the file it
 * is about to change, and no command; other tools before they run give no
 * file. */
static void claude_code_before_an_edit(void **state)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	size_t len;
	char *json = read_fixture("real/claude-code-edit", &len);
	char *peek = NULL;

	(void)state;
	parse_ok(&e, CALLUS_AGENT_CLAUDE, json, len);
	assert_string_equal(e.event, "PreToolUse");
	assert_string_equal(e.edit_path, "/home/dev/shop/src/app.js");
	assert_int_equal(e.is_shell, 0);
	assert_null(e.command);
	assert_int_equal(callus_hook_peek_command(&peek, CALLUS_AGENT_CLAUDE, json, len), 0);
	assert_null(peek);
	callus_hook_event_release(&e);
	free(json);

	/* a notebook names its file another way; a Read or a Bash before it
	 * runs is no edit */
	static const char *const others[] = {
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"NotebookEdit\","
		"\"tool_input\":{\"notebook_path\":\"/w/a.ipynb\"}}",
		"{\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Read\","
		"\"tool_input\":{\"file_path\":\"/w/a.js\"}}",
		"{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Edit\","
		"\"tool_input\":{\"file_path\":\"/w/a.js\"}}",
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++) {
		parse_ok(&e, CALLUS_AGENT_CLAUDE, others[i], strlen(others[i]));
		if (i == 0)
			assert_string_equal(e.edit_path, "/w/a.ipynb");
		else
			assert_null(e.edit_path);
		callus_hook_event_release(&e);
	}
}

static void codex_status_from_its_transcript(void **state)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	const char *dir = getenv("CALLUS_SRCDIR");
	callus_buf tpath = CALLUS_BUF_INIT;
	size_t len;
	char *json = read_fixture("real/codex-eslint-fail", &len);

	(void)state;
	parse_ok(&e, CALLUS_AGENT_CODEX, json, len);
	assert_string_equal(e.event, "PostToolUse");
	assert_int_equal(e.is_shell, 1);
	assert_string_equal(e.command, "npx eslint src");
	assert_int_equal(e.exit_code, -1); /* nothing in the payload says */
	assert_non_null(strstr(e.output, "'currency' is assigned a value but never used"));
	assert_string_equal(e.call_id, "call_resp_0");
	assert_string_equal(e.cwd, "/home/dev/shop");

	/* a transcript that is not there leaves the status unknown */
	assert_int_equal(callus_hook_event_complete(&e), 0);
	assert_int_equal(e.exit_code, -1);

	callus_buf_printf(&tpath, "%s/tests/hooks/fixtures/real/codex-transcript.jsonl", dir ? dir : ".");
	free(e.transcript);
	e.transcript = callus_buf_detach(&tpath);
	assert_int_equal(callus_hook_event_complete(&e), 0);
	assert_int_equal(e.exit_code, 1);

	/* another call's id finds its own status (the cp that exited 0) */
	free(e.call_id);
	e.call_id = strdup("call_resp_1");
	e.exit_code = -1;
	assert_int_equal(callus_hook_event_complete(&e), 0);
	assert_int_equal(e.exit_code, 0);
	callus_hook_event_release(&e);
	free(json);

	json = read_fixture("real/codex-session-start", &len);
	parse_ok(&e, CALLUS_AGENT_CODEX, json, len);
	assert_int_equal(e.session_start, 1);
	callus_hook_event_release(&e);
	free(json);
}

/* Cline CLI 3.0.65: run_commands, one event per command. */
static void cline_cli_commands(void **state)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	char *peeked = NULL;
	size_t len;
	char *json = read_fixture("real/cline-cli-eslint-fail", &len);

	(void)state;
	parse_ok(&e, CALLUS_AGENT_CLINE, json, len);
	assert_string_equal(e.event, "tool_result");
	assert_int_equal(e.is_shell, 1);
	assert_string_equal(e.command, "npx eslint src");
	assert_int_equal(e.exit_code, 1);
	assert_int_equal(strncmp(e.output, "\n/home/dev/shop/src/app.js", 26), 0);
	assert_string_equal(e.cwd, "/home/dev/shop");
	assert_null(e.next);
	callus_hook_event_release(&e);
	free(json);

	json = read_fixture("real/cline-cli-two-commands", &len);
	parse_ok(&e, CALLUS_AGENT_CLINE, json, len);
	assert_non_null(strstr(e.command, "cp "));
	assert_int_equal(e.exit_code, 0);
	assert_non_null(e.next);
	assert_string_equal(e.next->command, "npx eslint src");
	assert_int_equal(e.next->exit_code, 0);
	assert_string_equal(e.next->cwd, "/home/dev/shop");
	assert_null(e.next->next);
	/* the peek gives every command, a line each */
	assert_int_equal(callus_hook_peek_command(&peeked, CALLUS_AGENT_CLINE, json, len), 0);
	assert_non_null(strstr(peeked, "src/\nnpx eslint src"));
	free(peeked);
	callus_hook_event_release(&e);
	assert_null(e.next);
	free(json);

	/* detached while running: success true, but no status yet */
	parse_str(&e, CALLUS_AGENT_CLINE,
		  "{\"hookName\":\"tool_result\",\"postToolUse\":{\"toolName\":\"run_commands\","
		  "\"parameters\":{\"commands\":\"[\\\"npx jest\\\"]\"},\"result\":"
		  "\"[{\\\"query\\\":\\\"npx jest\\\",\\\"result\\\":\\\"[Command is still running. "
		  "Output will continue in /tmp/cline-x/output.log]\\\\nFAIL src/a.test.js\\\","
		  "\\\"success\\\":true}]\"}}");
	assert_string_equal(e.command, "npx jest");
	assert_int_equal(e.exit_code, -1);
	assert_string_equal(e.output, "FAIL src/a.test.js");
	callus_hook_event_release(&e);

	json = read_fixture("real/cline-cli-submit", &len);
	parse_ok(&e, CALLUS_AGENT_CLINE, json, len);
	assert_int_equal(e.is_shell, 0);
	callus_hook_event_release(&e);
	free(json);
}

/*
 * The formats the issue measured under Gemini CLI 0.61.0, Copilot CLI
 * 1.0.102 and Claude Code 2.1.197 (written from those measurements, not
 * captured: the suite does not drive those CLIs yet).
 */
static void status_formats_of_newer_releases(void **state)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;

	(void)state;
	/* Gemini: the untrusted_context wrapper, the closing tag escaped inside */
	parse_str(&e, CALLUS_AGENT_GEMINI,
		  "{\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		  "\"tool_input\":{\"command\":\"npx eslint src\"},\"tool_response\":{\"llmContent\":"
		  "\"<untrusted_context>\\nOutput: src/a.js\\n  1:7  error  x &lt;/untrusted_context&gt; y\\n"
		  "Exit Code: 1\\nProcess Group PGID: 4242\\n</untrusted_context>\"}}");
	assert_int_equal(e.exit_code, 1);
	assert_string_equal(e.output, "src/a.js\n  1:7  error  x </untrusted_context> y");
	callus_hook_event_release(&e);
	/* ... and a pass: no Exit Code line */
	parse_str(&e, CALLUS_AGENT_GEMINI,
		  "{\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		  "\"tool_input\":{\"command\":\"npx eslint src\"},\"tool_response\":{\"llmContent\":"
		  "\"<untrusted_context>\\nOutput: (empty)\\nProcess Group PGID: 4243\\n</untrusted_context>\"}}");
	assert_int_equal(e.exit_code, 0);
	assert_string_equal(e.output, "");
	callus_hook_event_release(&e);
	/* ... but no status line at all, or a process-level error, says
	 * nothing of a pass */
	parse_str(&e, CALLUS_AGENT_GEMINI,
		  "{\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		  "\"tool_input\":{\"command\":\"npx eslint src\"},\"tool_response\":{\"llmContent\":"
		  "\"Output: src/a.js\\n  1:7  error  x\\n[truncated]\"}}");
	assert_int_equal(e.exit_code, -1);
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_GEMINI,
		  "{\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		  "\"tool_input\":{\"command\":\"npx eslint src\"},\"tool_response\":{\"llmContent\":"
		  "\"Output: (empty)\\nError: write EPIPE\\nProcess Group PGID: 4244\"}}");
	assert_int_equal(e.exit_code, -1);
	assert_string_equal(e.output, "");
	callus_hook_event_release(&e);

	/* Copilot: the shellId trailer; resultType success is no status */
	parse_str(&e, CALLUS_AGENT_COPILOT,
		  "{\"toolName\":\"bash\",\"toolArgs\":\"{\\\"command\\\":\\\"npx eslint src\\\"}\","
		  "\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":"
		  "\"src/a.js\\n  1:7  error  x\\n<shellId: 0 completed with exit code 1>\"}}");
	assert_int_equal(e.exit_code, 1);
	assert_string_equal(e.output, "src/a.js\n  1:7  error  x");
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_COPILOT,
		  "{\"toolName\":\"bash\",\"toolArgs\":{\"command\":\"npx eslint src\"},"
		  "\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":\"still going\"}}");
	assert_int_equal(e.exit_code, -1);
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_COPILOT,
		  "{\"toolName\":\"bash\",\"toolArgs\":{\"command\":\"npx jest --watch\"},"
		  "\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":"
		  "\"Determining test suites\\n<shellId: 3 detached>\"}}");
	assert_int_equal(e.exit_code, -1);
	assert_string_equal(e.output, "Determining test suites");
	callus_hook_event_release(&e);

	/* Claude Code: a background run and a timeout prove nothing */
	parse_str(&e, CALLUS_AGENT_CLAUDE,
		  "{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
		  "{\"command\":\"npx eslint src\",\"run_in_background\":true},\"tool_response\":"
		  "{\"stdout\":\"\",\"stderr\":\"\",\"backgroundTaskId\":\"b1\"}}");
	assert_int_equal(e.exit_code, -1);
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_CLAUDE,
		  "{\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"Bash\",\"tool_input\":"
		  "{\"command\":\"npx eslint src && sleep 5\"},\"error\":\"Exit code 143\\n"
		  "Command timed out after 1s\",\"is_interrupt\":false}");
	assert_int_equal(e.interrupted, 1);
	callus_hook_event_release(&e);
}

/* ---- exit codes from text ---------------------------------------------- */

static void exit_code_from_text(void **state)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;

	(void)state;
	parse_str(&e, CALLUS_AGENT_CLAUDE,
		  "{\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"Bash\","
		  "\"tool_input\":{\"command\":\"make\"},"
		  "\"error\":\"Exit code 1\\nmake: *** [all] Error 1\"}");
	assert_int_equal(e.exit_code, 1);
	assert_int_equal(e.exit_inferred, 0);
	assert_string_equal(e.output, "make: *** [all] Error 1");
	callus_hook_event_release(&e);

	/* a failure that names no code is still a failure */
	parse_str(&e, CALLUS_AGENT_CLAUDE,
		  "{\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"Bash\","
		  "\"tool_input\":{\"command\":\"jest\"},\"error\":\"spawn /bin/sh ENOENT\"}");
	assert_int_equal(e.exit_code, 1);
	assert_int_equal(e.exit_inferred, 1);
	assert_string_equal(e.output, "spawn /bin/sh ENOENT");
	callus_hook_event_release(&e);

	parse_str(&e, CALLUS_AGENT_CODEX,
		  "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"cargo test\"},"
		  "\"tool_response\":\"Wall time: 3 seconds\\nProcess exited with code 2\\nOutput:\\n"
		  "test result: FAILED\"}");
	assert_int_equal(e.exit_code, 2);
	assert_string_equal(e.output, "test result: FAILED");
	callus_hook_event_release(&e);

	parse_str(&e, CALLUS_AGENT_CODEX,
		  "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"go vet\"},"
		  "\"tool_response\":\"Exit code: 3\\nWall time: 0.2 seconds\\nOutput:\\nvet: x\"}");
	assert_int_equal(e.exit_code, 3);
	assert_string_equal(e.output, "vet: x");
	callus_hook_event_release(&e);

	/* codex's older JSON-in-a-string result */
	parse_str(&e, CALLUS_AGENT_CODEX,
		  "{\"tool_name\":\"shell\",\"tool_input\":{\"command\":[\"pytest\"]},"
		  "\"tool_response\":\"{\\\"output\\\":\\\"1 failed\\\",\\\"metadata\\\":"
		  "{\\\"exit_code\\\":1,\\\"duration_seconds\\\":0.4}}\"}");
	assert_string_equal(e.command, "pytest");
	assert_int_equal(e.exit_code, 1);
	assert_string_equal(e.output, "1 failed");
	callus_hook_event_release(&e);

	parse_str(&e, CALLUS_AGENT_GEMINI,
		  "{\"hook_event_name\":\"AfterTool\",\"tool_name\":\"run_shell_command\","
		  "\"tool_input\":{\"command\":\"mypy .\"},\"tool_response\":{\"llmContent\":"
		  "\"Output: sh: mypy: not found\\nExit Code: 127\\nProcess Group PGID: 9\"}}");
	assert_int_equal(e.exit_code, 127);
	assert_string_equal(e.output, "sh: mypy: not found");
	callus_hook_event_release(&e);

	/* gemini's older layout always has the code, stdout and stderr apart */
	parse_str(&e, CALLUS_AGENT_GEMINI,
		  "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"npm test\"},"
		  "\"tool_response\":{\"llmContent\":\"Command: npm test\\nDirectory: (root)\\n"
		  "Stdout: out line\\nStderr: err line\\nError: (none)\\nExit Code: 1\\n"
		  "Signal: (none)\\nBackground PIDs: (none)\\nProcess Group PGID: 77\"}}");
	assert_int_equal(e.exit_code, 1);
	assert_string_equal(e.output, "out line\nerr line");
	callus_hook_event_release(&e);

	/* gemini: the shell could not run it at all */
	parse_str(&e, CALLUS_AGENT_GEMINI,
		  "{\"tool_name\":\"run_shell_command\",\"tool_input\":{\"command\":\"x\"},"
		  "\"tool_response\":{\"llmContent\":\"Output: (empty)\\nError: spawn EACCES\","
		  "\"error\":{\"message\":\"spawn EACCES\",\"type\":\"shell_execute_error\"}}}");
	assert_int_equal(e.exit_code, 1);
	assert_int_equal(e.exit_inferred, 1);
	callus_hook_event_release(&e);

	parse_str(&e, CALLUS_AGENT_COPILOT,
		  "{\"toolName\":\"bash\",\"toolArgs\":\"{\\\"command\\\":\\\"ruff check\\\"}\","
		  "\"toolResult\":{\"resultType\":\"success\",\"textResultForLlm\":"
		  "\"Found 2 errors.\\n<exited with exit code 5>\\n\"}}");
	assert_int_equal(e.exit_code, 5);
	assert_int_equal(e.exit_inferred, 0);
	assert_string_equal(e.output, "Found 2 errors.");
	callus_hook_event_release(&e);

	parse_str(&e, CALLUS_AGENT_CLINE,
		  "{\"hookName\":\"PostToolUse\",\"postToolUse\":{\"toolName\":\"execute_command\","
		  "\"parameters\":{\"command\":\"npm test\"},\"result\":\"Command executed.\\n"
		  "Exit Code: 4 (Error - command failed)\\nOutput:\\nok\",\"success\":true}}");
	assert_int_equal(e.exit_code, 4);
	assert_int_equal(e.exit_inferred, 0);
	assert_string_equal(e.output, "ok");
	callus_hook_event_release(&e);

	/* cline: still running, so no status */
	parse_str(&e, CALLUS_AGENT_CLINE,
		  "{\"hookName\":\"PostToolUse\",\"postToolUse\":{\"toolName\":\"execute_command\","
		  "\"parameters\":{\"command\":\"npm run dev\"},\"result\":\"Command is still running in "
		  "the user's terminal.\\nHere's the output so far:\\nready on :3000\\n\\nYou will be "
		  "updated on the terminal status and new output in the future.\",\"success\":true}}");
	assert_int_equal(e.exit_code, -1);
	assert_string_equal(e.output, "ready on :3000");
	callus_hook_event_release(&e);

	/* generic: numbers, numeric strings; negatives mean unknown */
	parse_str(&e, CALLUS_AGENT_GENERIC, "{\"command\":\"tsc\",\"exit_code\":\"2\"}");
	assert_int_equal(e.exit_code, 2);
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_GENERIC, "{\"command\":\"tsc\",\"exit_code\":2.0,\"stdout\":\"a\",\"stderr\":\"b\"}");
	assert_int_equal(e.exit_code, 2);
	assert_string_equal(e.output, "a\nb");
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_GENERIC, "{\"command\":\"tsc\",\"exit_code\":\"12abc\"}");
	assert_int_equal(e.exit_code, -1);
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_GENERIC, "{\"command\":\"tsc\",\"exit_code\":1e300}");
	assert_int_equal(e.exit_code, 2147483647);
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_GENERIC, "{\"command\":\"tsc\",\"exit_code\":1.5}");
	assert_int_equal(e.exit_code, -1);
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_GENERIC, "{\"command\":\"tsc\",\"exit_code\":-5}");
	assert_int_equal(e.exit_code, -1);
	callus_hook_event_release(&e);
}

static void argv_commands_are_joined(void **state)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;

	(void)state;
	parse_str(&e, CALLUS_AGENT_CODEX,
		  "{\"tool_name\":\"shell\",\"tool_input\":{\"command\":"
		  "[\"npm\",\"test\",\"--\",\"--grep\",\"a b\",\"it's\"]}}");
	assert_string_equal(e.command, "npm test -- --grep 'a b' 'it'\\''s'");
	callus_hook_event_release(&e);
	parse_str(&e, CALLUS_AGENT_CODEX,
		  "{\"tool_name\":\"shell\",\"tool_input\":{\"command\":[\"/bin/zsh\",\"-lc\","
		  "\"cd web && npm test\"]}}");
	assert_string_equal(e.command, "cd web && npm test");
	callus_hook_event_release(&e);
	/* not all strings: no command rather than a wrong one */
	parse_str(&e, CALLUS_AGENT_CODEX,
		  "{\"tool_name\":\"shell\",\"tool_input\":{\"command\":[\"ls\",3]}}");
	assert_null(e.command);
	callus_hook_event_release(&e);
}

/* ---- missing and broken input ---------------------------------------------- */

static void missing_fields_are_fine(void **state)
{
	(void)state;
	for (callus_agent a = CALLUS_AGENT_CLAUDE; a <= CALLUS_AGENT_GENERIC; a++) {
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		char *peeked = (char *)1;

		parse_str(&e, a, "{}");
		assert_string_equal(e.event, "");
		assert_int_equal(e.is_shell, 0);
		assert_int_equal(e.session_start, 0);
		assert_null(e.command);
		assert_int_equal(e.exit_code, -1);
		assert_string_equal(e.output, "");
		assert_null(e.cwd);
		assert_null(e.session_id);
		callus_hook_event_release(&e);
		assert_int_equal(callus_hook_peek_command(&peeked, a, "{}", 2), 0);
		assert_null(peeked);
	}
	{
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;

		/* a shell tool with nothing else: no command, status unknown */
		parse_str(&e, CALLUS_AGENT_CLAUDE, "{\"tool_name\":\"Bash\",\"tool_input\":7}");
		assert_int_equal(e.is_shell, 1);
		assert_null(e.command);
		assert_int_equal(e.exit_code, -1);
		callus_hook_event_release(&e);
	}
}

static void broken_json_is_einval(void **state)
{
	static const char *const bad[] = {
		"", "   \n", "{", "{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"ls\"",
		"{\"a\":1,}", "{\"a\":1} trailing", "[1,2]", "42", "\"str\"", "null", "true",
		"{'a':1}", "{\"a\":\"unterminated}", "\xff\xfe", NULL
	};

	(void)state;
	for (size_t i = 0; bad[i]; i++) {
		for (callus_agent a = CALLUS_AGENT_CLAUDE; a <= CALLUS_AGENT_GENERIC; a++) {
			callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
			callus_error err = CALLUS_ERROR_INIT;

			e.exit_code = 99;
			assert_int_equal(callus_hook_event_parse(&e, a, bad[i], strlen(bad[i]), &err),
					 CALLUS_EINVAL);
			assert_int_equal(err.code, CALLUS_EINVAL);
			assert_non_null(err.msg);
			assert_non_null(strstr(err.msg, callus_agent_name(a)));
			assert_null(e.event);
			assert_null(e.output);
			assert_int_equal(e.exit_code, -1);
			callus_error_release(&err);
		}
	}
	{
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		callus_error err = CALLUS_ERROR_INIT;

		assert_int_equal(callus_hook_event_parse(&e, CALLUS_AGENT_CLAUDE, NULL, 0, &err), CALLUS_EINVAL);
		callus_error_release(&err);
		assert_int_equal(callus_hook_event_parse(&e, CALLUS_AGENT_CLAUDE, "[]", 2, &err), CALLUS_EINVAL);
		assert_non_null(strstr(err.msg, "not a JSON object"));
		callus_error_release(&err);
		assert_int_equal(callus_hook_event_parse(&e, (callus_agent)42, "{}", 2, NULL), CALLUS_EINVAL);
	}
}

/* ---- bad bytes inside strings ------------------------------------------------ */

static void invalid_utf8_is_repaired_not_fatal(void **state)
{
	/* Latin-1 é, a stray 0xff 0xfe, a lone surrogate escape, an escaped
	 * NUL, a raw ESC, and a valid surrogate pair (U+1F600) that stays. */
	static const char payload[] =
		"{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\","
		"\"tool_input\":{\"command\":\"npm t\xe9st\"},"
		"\"tool_response\":{\"stdout\":\"caf\xe9 \xff\xfe ok \\ud800 x\\u0000y \x1b[31m"
		" \\ud83d\\ude00 \\udc00\",\"stderr\":\"\"}}";
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	char *peeked = NULL;

	(void)state;
	parse_ok(&e, CALLUS_AGENT_CLAUDE, payload, sizeof(payload) - 1);
	assert_string_equal(e.command, "npm t\xef\xbf\xbdst");
	assert_int_equal(e.exit_code, 0);
	assert_string_equal(e.output, "caf\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd ok \xef\xbf\xbd "
				      "x\xef\xbf\xbdy \x1b[31m \xf0\x9f\x98\x80 \xef\xbf\xbd");
	callus_hook_event_release(&e);
	assert_int_equal(callus_hook_peek_command(&peeked, CALLUS_AGENT_CLAUDE, payload, sizeof(payload) - 1), 0);
	assert_string_equal(peeked, "npm t\xef\xbf\xbdst");
	free(peeked);

	/* and for an agent whose output is a top-level string */
	{
		static const char cur[] = "{\"hook_event_name\":\"afterShellExecution\","
					  "\"command\":\"eslint .\",\"output\":\"\xc3(\\n\xe2\x9c\x96 1 problem (1 error, 0 warnings)\"}";

		parse_ok(&e, CALLUS_AGENT_CURSOR, cur, sizeof(cur) - 1);
		assert_int_equal(e.exit_code, -1); /* no status: only the hook reads the text */
		assert_int_equal(callus_output_looks_failed(e.output, e.output_len), 1);
		assert_int_equal(strncmp(e.output, "\xef\xbf\xbd(", 4), 0);
		callus_hook_event_release(&e);
	}
}

/* 50 MB of output, with one bad byte near the end so that the repair path
 * runs over all of it too. */
static void fifty_megabytes(void **state)
{
	static const char head[] =
		"{\"session_id\":\"s\",\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"Bash\","
		"\"tool_input\":{\"command\":\"npx jest\"},\"error\":\"Exit code 1\\n";
	static const char tail[] = "last \xef\xbf\xbd line";
	const size_t lines = 50u * 1024 * 1024 / 64;
	callus_buf b = CALLUS_BUF_INIT;
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	char line[64];
	char *peeked = NULL;

	(void)state;
	memset(line, 'a', sizeof(line));
	memcpy(line, "  at Object.<anonymous> (src/x.test.js:1:1) ", 44);
	callus_buf_puts(&b, head);
	for (size_t i = 0; i < lines; i++) {
		callus_buf_put(&b, line, 63);
		callus_buf_puts(&b, "\\n");
	}
	callus_buf_puts(&b, "last \xff line\"}");
	assert_int_equal(callus_buf_status(&b), 0);
	assert_true(b.len > 50u * 1024 * 1024);

	assert_int_equal(callus_hook_peek_command(&peeked, CALLUS_AGENT_CLAUDE, b.ptr, b.len), 0);
	assert_string_equal(peeked, "npx jest");
	free(peeked);

	parse_ok(&e, CALLUS_AGENT_CLAUDE, b.ptr, b.len);
	assert_string_equal(e.command, "npx jest");
	assert_int_equal(e.exit_code, 1);
	assert_int_equal(e.output_len, lines * 64 + strlen(tail));
	assert_string_equal(e.output + e.output_len - strlen(tail), tail);
	assert_memory_equal(e.output, line, 63);
	callus_hook_event_release(&e);
	callus_buf_release(&b);
}

/* ---- the peek ---------------------------------------------------------------- */

static int peek(char **out, callus_agent a, const char *json)
{
	return callus_hook_peek_command(out, a, json, strlen(json));
}

static void peek_reads_only_what_it_needs(void **state)
{
	char *c = (char *)1;

	(void)state;
	/* another tool: no command, even though tool_input has one */
	assert_int_equal(peek(&c, CALLUS_AGENT_CLAUDE,
		"{\"tool_name\":\"Task\",\"tool_input\":{\"command\":\"x\"}}"), 0);
	assert_null(c);
	/* escaped keys and duplicates read as jansson reads them */
	{
		static const char j[] = "{\"tool_input\":{\"command\":\"a\"},\"tool\\u005fname\":\"Bash\","
					"\"tool_input\":{\"command\":\"b\"}}";
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;

		assert_int_equal(callus_hook_peek_command(&c, CALLUS_AGENT_CLAUDE, j, sizeof(j) - 1), 0);
		assert_string_equal(c, "b");
		free(c);
		parse_ok(&e, CALLUS_AGENT_CLAUDE, j, sizeof(j) - 1);
		assert_string_equal(e.command, "b");
		callus_hook_event_release(&e);
	}
	/* a raw NUL outside strings reads as a blank in both readers (jansson
	 * alone would swallow it after a literal but refuse it elsewhere) */
	{
		static const char j[] = "{\"x\":true\0,\"tool_name\":\"Bash\" \0,"
					"\"tool_input\":{\"command\":\"ls\"}}";
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;

		assert_int_equal(callus_hook_peek_command(&c, CALLUS_AGENT_CLAUDE, j, sizeof(j) - 1), 0);
		assert_string_equal(c, "ls");
		free(c);
		parse_ok(&e, CALLUS_AGENT_CLAUDE, j, sizeof(j) - 1);
		assert_string_equal(e.command, "ls");
		callus_hook_event_release(&e);
	}
	/* cursor's other events are not shell commands */
	assert_int_equal(peek(&c, CALLUS_AGENT_CURSOR,
		"{\"hook_event_name\":\"afterFileEdit\",\"command\":\"x\"}"), 0);
	assert_null(c);
	/* malformed where it had to look */
	assert_int_equal(peek(&c, CALLUS_AGENT_CLAUDE, "{\"tool_name\":"), CALLUS_EINVAL);
	assert_null(c);
	assert_int_equal(callus_hook_peek_command(&c, CALLUS_AGENT_GENERIC, "[]", 2), CALLUS_EINVAL);
	assert_int_equal(callus_hook_peek_command(&c, CALLUS_AGENT_GENERIC, "", 0), CALLUS_EINVAL);
	assert_int_equal(callus_hook_peek_command(&c, (callus_agent)-1, "{}", 2), CALLUS_EINVAL);
}

/* ---- replies ------------------------------------------------------------------ */

static json_t *reply_json(callus_agent a, const char *event, const char *ctx, size_t max)
{
	callus_buf b = CALLUS_BUF_INIT;
	json_error_t jerr;
	json_t *v;

	assert_int_equal(callus_hook_reply(&b, a, event, ctx, max), 0);
	v = json_loadb(b.ptr, b.len, 0, &jerr);
	if (!v)
		fail_msg("reply is not JSON: %s (%s)", jerr.text, b.ptr);
	assert_true(json_is_object(v));
	callus_buf_release(&b);
	return v;
}

static const char *context_of(const json_t *v, callus_agent a)
{
	const json_t *h;

	switch (a) {
	case CALLUS_AGENT_CLAUDE:
	case CALLUS_AGENT_CODEX:
	case CALLUS_AGENT_GEMINI:
		assert_int_equal(json_object_size(v), 1);
		h = json_object_get(v, "hookSpecificOutput");
		assert_int_equal(json_object_size(h), 2);
		return json_string_value(json_object_get(h, "additionalContext"));
	case CALLUS_AGENT_CLINE:
		assert_int_equal(json_object_size(v), 2);
		assert_true(json_is_false(json_object_get(v, "cancel")));
		return json_string_value(json_object_get(v, "contextModification"));
	default:
		assert_int_equal(json_object_size(v), 1);
		return json_string_value(json_object_get(v, "additionalContext"));
	}
}

static void replies_put_the_context_where_each_agent_reads_it(void **state)
{
	static const char ctx[] = "callus: 2 past fixes for no-unused-vars:\n 1. \"remove it\" \\ \t\x01 \xe2\x9c\x93";

	(void)state;
	for (callus_agent a = CALLUS_AGENT_CLAUDE; a <= CALLUS_AGENT_GENERIC; a++) {
		json_t *v = reply_json(a, NULL, ctx, 0);

		if (a == CALLUS_AGENT_CURSOR)
			assert_int_equal(json_object_size(v), 0);
		else
			assert_string_equal(context_of(v, a), ctx);
		json_decref(v);
	}
	{
		json_t *v = reply_json(CALLUS_AGENT_CLAUDE, "PostToolUseFailure", "x", 0);

		assert_string_equal(json_string_value(json_object_get(json_object_get(v,
			"hookSpecificOutput"), "hookEventName")), "PostToolUseFailure");
		json_decref(v);
		v = reply_json(CALLUS_AGENT_CLAUDE, "", "x", 0);
		assert_string_equal(json_string_value(json_object_get(json_object_get(v,
			"hookSpecificOutput"), "hookEventName")), "PostToolUse");
		json_decref(v);
		v = reply_json(CALLUS_AGENT_GEMINI, NULL, "x", 0);
		assert_string_equal(json_string_value(json_object_get(json_object_get(v,
			"hookSpecificOutput"), "hookEventName")), "AfterTool");
		json_decref(v);
	}
}

static void empty_context_gives_the_empty_reply(void **state)
{
	(void)state;
	for (callus_agent a = CALLUS_AGENT_CLAUDE; a <= CALLUS_AGENT_GENERIC; a++) {
		callus_buf b = CALLUS_BUF_INIT;

		assert_int_equal(callus_hook_reply(&b, a, "PostToolUse", NULL, 10), 0);
		assert_string_equal(b.ptr, a == CALLUS_AGENT_CLINE ? "{\"cancel\":false}" : "{}");
		callus_buf_clear(&b);
		assert_int_equal(callus_hook_reply(&b, a, NULL, "", 10), 0);
		assert_string_equal(b.ptr, a == CALLUS_AGENT_CLINE ? "{\"cancel\":false}" : "{}");
		callus_buf_release(&b);
	}
	{
		callus_buf b = CALLUS_BUF_INIT;

		callus_buf_puts(&b, "X");
		assert_int_equal(callus_hook_reply(&b, CALLUS_AGENT_COPILOT, NULL, "y", 0), 0);
		assert_string_equal(b.ptr, "X{\"additionalContext\":\"y\"}");
		assert_int_equal(callus_hook_reply(&b, (callus_agent)9, NULL, "y", 0), CALLUS_EINVAL);
		callus_buf_release(&b);
	}
}

static void reply_context_is_cut_between_characters(void **state)
{
	callus_buf big = CALLUS_BUF_INIT;
	json_t *v;
	const char *s;

	(void)state;
	v = reply_json(CALLUS_AGENT_CLAUDE, NULL, "h\xc3\xa9llo w\xc3\xb6rld", 7);
	assert_string_equal(context_of(v, CALLUS_AGENT_CLAUDE), "h\xc3\xa9llo w");
	json_decref(v);
	v = reply_json(CALLUS_AGENT_COPILOT, NULL, "\xe2\x9c\x93\xe2\x9c\x93\xe2\x9c\x93", 2);
	assert_string_equal(context_of(v, CALLUS_AGENT_COPILOT), "\xe2\x9c\x93\xe2\x9c\x93");
	json_decref(v);
	v = reply_json(CALLUS_AGENT_GENERIC, NULL, "\xf0\x9f\x98\x80z", 1);
	assert_string_equal(context_of(v, CALLUS_AGENT_GENERIC), "\xf0\x9f\x98\x80");
	json_decref(v);
	/* invalid UTF-8 in the context is replaced, not passed on */
	v = reply_json(CALLUS_AGENT_CODEX, NULL, "ab\xff\xc3", 0);
	assert_string_equal(context_of(v, CALLUS_AGENT_CODEX), "ab\xef\xbf\xbd\xef\xbf\xbd");
	json_decref(v);

	/* cline: at most 50,000 bytes, still between characters */
	for (int i = 0; i < 20000; i++)
		callus_buf_puts(&big, "\xe2\x9c\x93");
	v = reply_json(CALLUS_AGENT_CLINE, NULL, big.ptr, 0);
	s = context_of(v, CALLUS_AGENT_CLINE);
	assert_int_equal(strlen(s), 49998);
	assert_true(callus_utf8_valid(s, strlen(s)));
	json_decref(v);
	v = reply_json(CALLUS_AGENT_CLINE, NULL, big.ptr, 10);
	assert_int_equal(strlen(context_of(v, CALLUS_AGENT_CLINE)), 30);
	json_decref(v);
	v = reply_json(CALLUS_AGENT_CLAUDE, NULL, big.ptr, 0);
	assert_int_equal(strlen(context_of(v, CALLUS_AGENT_CLAUDE)), 60000);
	json_decref(v);
	callus_buf_release(&big);
}

/* ---- failure from text ----------------------------------------------------- */

static void output_failure_heuristic(void **state)
{
	static const char *const failed[] = {
		"npm ERR! code ELIFECYCLE\n",
		"npm error Lifecycle script `test` failed with error:\n",
		"\n/a/b.js\n  1:1  error  x  no-undef\n\n\xe2\x9c\x96 1 problem (1 error, 0 warnings)\n",
		"\x1b[31m\x1b[1m\xe2\x9c\x96 3 problems (1 error, 2 warnings)\x1b[22m\x1b[39m\n",
		"Tests:       1 failed, 4 passed, 5 total\n",
		"\x1b[1mTests:\x1b[22m       \x1b[1m\x1b[31m2 failed\x1b[39m\x1b[22m, 5 total\n",
		" Test Files  1 failed | 3 passed (4)\n",
		"\x1b[0m\x1b[7m\x1b[1m\x1b[31m FAIL \x1b[39m\x1b[22m\x1b[27m\x1b[0m src/a.test.js\n",
		"FAIL src/sum.test.js\n",
		"FAILED tests/test_cart.py::test_total - AssertionError\n",
		"========= 1 failed, 12 passed in 0.31s =========\n",
		"==== 1 error in 0.10s ====\n",
		"src/cart.ts(12,7): error TS2322: Type 'string' is not assignable\n",
		"main.c:3:5: error: expected ';' before 'return'\n",
		"main.c:1:10: fatal error: foo.h: No such file or directory\n",
		"error[E0308]: mismatched types\n",
		"error: could not compile `shop` due to 2 previous errors\n",
		"Error: Cannot find module 'express'\n",
		"make: *** [Makefile:12: all] Error 2\n",
		"make[1]: *** [sub] Error 1\n",
		"Traceback (most recent call last):\n  File \"x.py\", line 1\n",
		"bash: line 1: pytest: command not found\n",
		"Found 3 errors in 1 file (checked 4 source files)\n",
		"--- FAIL: TestTotal (0.00s)\nFAIL\n",
		"test result: FAILED. 3 passed; 1 failed\n",
		"  2 failing\n",
		"error Command failed with exit code 1.\n",
		"exit status 2\n",
		"Process exited with code 1\r\n",
		NULL
	};
	static const char *const passed[] = {
		"", "total 24\n-rw-r--r-- 1 dev dev 301 package.json\n",
		"PASS ./sum.test.js\nTests:       2 passed, 2 total\nTest Suites: 1 passed, 1 total\n",
		"\xe2\x9c\x96 2 problems (0 errors, 2 warnings)\n",
		"========= 12 passed in 0.31s =========\n", "Found 0 errors in 3 files\n",
		"Success: no issues found in 3 source files\n", "exit code 0\n",
		"Tests: 0 failed, 3 passed\n", "  \xe2\x9c\x93 handles error: bad input (3 ms)\n",
		"All checks passed!\n", "ok  \tshop/cart\t0.012s\n", "  0 failing\n",
		"compiled with 0 errors\n", "ErrorBoundary.tsx\n", NULL
	};

	(void)state;
	for (size_t i = 0; failed[i]; i++)
		if (!callus_output_looks_failed(failed[i], strlen(failed[i])))
			fail_msg("not seen as failed: %s", failed[i]);
	for (size_t i = 0; passed[i]; i++)
		if (callus_output_looks_failed(passed[i], strlen(passed[i])))
			fail_msg("seen as failed: %s", passed[i]);
	assert_int_equal(callus_output_looks_failed(NULL, 0), 0);
}

/* ---- names and release -------------------------------------------------- */

static void agent_names(void **state)
{
	static const char *const names[] = { "claude-code", "codex", "gemini", "copilot",
					     "cursor", "cline", "generic" };
	callus_agent a;

	(void)state;
	for (size_t i = 0; i < 7; i++) {
		assert_int_equal(callus_agent_parse(&a, names[i]), 0);
		assert_int_equal(a, (callus_agent)i);
		assert_string_equal(callus_agent_name(a), names[i]);
	}
	assert_int_equal(callus_agent_parse(&a, "claude"), 0);
	assert_int_equal(a, CALLUS_AGENT_CLAUDE);
	assert_int_equal(callus_agent_parse(&a, "Claude"), CALLUS_EINVAL);
	assert_int_equal(callus_agent_parse(&a, ""), CALLUS_EINVAL);
	assert_int_equal(callus_agent_parse(&a, NULL), CALLUS_EINVAL);
	assert_string_equal(callus_agent_name((callus_agent)77), "unknown");
}

static void release_is_idempotent(void **state)
{
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;

	(void)state;
	callus_hook_event_release(NULL);
	parse_str(&e, CALLUS_AGENT_GENERIC, "{\"command\":\"ls\",\"cwd\":\"/x\"}");
	callus_hook_event_release(&e);
	callus_hook_event_release(&e);
	assert_null(e.command);
	assert_int_equal(e.exit_code, -1);
}

/* big as each shape's long string (each %s), read by callus's decoder and
 * by jansson alike; with a bad escape after it, refused by both alike. */
static void decoded_alike(const callus_buf *big)
{
	const char *const shapes[] = {
		"{\"tool_input\":{\"command\":\"gcc -c a.c\"},\"tool_response\":{\"stdout\":\"%s\","
		"\"list\":[\"%s\",1,{\"deep\":\"%s\"}]}}",
		"\"%s\"",
		"{\"%s\":\"%s\"}",
		"{\"a\":\"%s\",\"a\":\"%s short\"}",
		"{\"o\":\"%s\\u0000 nul\"}",
	};

	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		callus_buf doc = CALLUS_BUF_INIT;
		json_error_t e1, e2;
		json_t *a, *b;
		int oom;

		for (const char *p = shapes[i], *q; *p; p = q + 2) {
			if (!(q = strstr(p, "%s"))) {
				callus_buf_puts(&doc, p);
				break;
			}
			callus_buf_put(&doc, p, (size_t)(q - p));
			callus_buf_put(&doc, big->ptr, big->len);
		}
		a = callus_payload_load_with(doc.ptr, doc.len, JSON_DECODE_ANY, &e1, &oom, 4096);
		assert_false(oom);
		b = callus_payload_load_with(doc.ptr, doc.len, JSON_DECODE_ANY, &e2, &oom, SIZE_MAX);
		if (!a || !b)
			fail_msg("shape %zu: %s (%s), jansson's %s (%s)", i, a ? "read" : "refused",
				 e1.text, b ? "read" : "refused", e2.text);
		assert_non_null(b);
		assert_true(json_equal(a, b));
		json_decref(a);
		json_decref(b);
		/* an escape jansson refuses, at the end of the long string */
		callus_buf_clear(&doc);
		callus_buf_printf(&doc, "{\"o\":\"%s\\q\"}", big->ptr);
		assert_null(callus_payload_load_with(doc.ptr, doc.len, 0, &e1, &oom, 4096));
		assert_null(callus_payload_load_with(doc.ptr, doc.len, 0, &e2, &oom, SIZE_MAX));
		assert_string_equal(e1.text, e2.text);
		callus_buf_release(&doc);
	}
}

/* A long output, decoded by callus rather than jansson: the same strings,
 * each of repair()'s cases included (invalid UTF-8, an unpaired surrogate,
 * raw control bytes, a NUL escaped), in objects, arrays, as the whole
 * document and beside a long key; a bad escape in it refuses the payload
 * as jansson does.  Each case at each place of an eight-byte word: the
 * decoder takes plain runs a word at a time. */
static void long_strings_decoded_alike(void **state)
{
	static const char piece[] =
		"src/a.c:1:2: error: \\\"x\\\" \\u00e9 \\ud83d\\ude00 \\ud800 lone \\udc00 low \xff\xc3 \t raw\x01 "
		"\\/ \\b\\f\\n\\r\\t caf\xc3\xa9\\n";
	callus_buf big = CALLUS_BUF_INIT;
	(void)state;

	for (size_t shift = 0; shift < 8; shift++) {
		callus_buf_clear(&big);
		for (size_t k = 0; k < shift; k++)
			callus_buf_putc(&big, 'x');
		while (big.len < 3 * 4096)
			callus_buf_puts(&big, piece);
		decoded_alike(&big);
	}
	callus_buf_release(&big);
}

/* Each of a and b parsed from the other's text: the same result, the same
 * message, and the buffer released either way. */
static void parse_buf_alike(callus_agent agent, const char *json, size_t len)
{
	callus_hook_event a = CALLUS_HOOK_EVENT_INIT, b = CALLUS_HOOK_EVENT_INIT;
	callus_error ea = CALLUS_ERROR_INIT, eb = CALLUS_ERROR_INIT;
	callus_buf buf = CALLUS_BUF_INIT;
	int ra, rb;

	callus_buf_put(&buf, json, len);
	assert_int_equal(callus_buf_status(&buf), 0);
	ra = callus_hook_event_parse(&a, agent, json, len, &ea);
	rb = callus_hook_event_parse_buf(&b, agent, &buf, &eb);
	assert_int_equal(ra, rb);
	assert_int_equal(buf.cap, 0);
	assert_int_equal(buf.len, 0);
	if (ra < 0) {
		assert_string_equal(callus_error_message(&ea), callus_error_message(&eb));
	} else {
		assert_str_or_null(b.event, a.event);
		assert_str_or_null(b.command, a.command);
		assert_str_or_null(b.cwd, a.cwd);
		assert_str_or_null(b.session_id, a.session_id);
		assert_int_equal(b.is_shell, a.is_shell);
		assert_int_equal(b.exit_code, a.exit_code);
		assert_int_equal(b.output_len, a.output_len);
		assert_memory_equal(b.output, a.output, a.output_len);
	}
	callus_hook_event_release(&a);
	callus_hook_event_release(&b);
	callus_error_release(&ea);
	callus_error_release(&eb);
	/* and the loader under it */
	{
		json_error_t ja, jb;
		json_t *va, *vb;
		int oa, ob;

		callus_buf_put(&buf, json, len);
		va = callus_payload_load(json, len, JSON_DECODE_ANY, &ja, &oa);
		vb = callus_payload_load_buf(&buf, JSON_DECODE_ANY, &jb, &ob);
		assert_int_equal(buf.cap, 0);
		assert_int_equal(oa, ob);
		assert_int_equal(va == NULL, vb == NULL);
		if (va)
			assert_true(json_equal(va, vb));
		else
			assert_string_equal(ja.text, jb.text);
		json_decref(va);
		json_decref(vb);
	}
}

/* callus_hook_event_parse_buf(), which lets go of the payload's text as
 * soon as it is decoded, reads every payload as callus_hook_event_parse():
 * each fixture, long outputs in each agent's place for them, and the
 * payloads refused (whose message is made from the whole text, after a
 * long string was decoded). */
static void parse_buf_as_parse(void **state)
{
	static const char *const big_shapes[] = {
		"{\"command\":\"make\",\"exit_code\":2,\"output\":\"%s\",\"cwd\":\"/w\"}",
		"{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":"
		"{\"command\":\"make\"},\"tool_response\":{\"stdout\":\"%s\",\"stderr\":\"%s\"}}",
		"{\"command\":\"make\",\"output\":\"%s\\q\"}",
		"{\"command\":\"make\",\"output\":\"%s\", oops}",
		"{\"command\":\"make\",\"output\":\"%s",
	};
	callus_buf big = CALLUS_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		size_t len;
		char *json = read_fixture(fixtures[i].file, &len);

		parse_buf_alike(fixtures[i].agent, json, len);
		free(json);
	}
	while (big.len < 40000)
		callus_buf_puts(&big, "src/a.c:1:2: error: \\\"x\\\" caf\xc3\xa9 \\u00e9\\n");
	for (size_t i = 0; i < sizeof(big_shapes) / sizeof(big_shapes[0]); i++) {
		callus_buf doc = CALLUS_BUF_INIT;

		for (const char *p = big_shapes[i], *q; *p; p = q + 2) {
			if (!(q = strstr(p, "%s"))) {
				callus_buf_puts(&doc, p);
				break;
			}
			callus_buf_put(&doc, p, (size_t)(q - p));
			callus_buf_put(&doc, big.ptr, big.len);
		}
		for (callus_agent a = CALLUS_AGENT_CLAUDE; a <= CALLUS_AGENT_GENERIC; a++)
			parse_buf_alike(a, doc.ptr, doc.len);
		callus_buf_release(&doc);
	}
	parse_buf_alike(CALLUS_AGENT_GENERIC, "  \n", 3);
	callus_buf_release(&big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_fixture_gives_its_fields),
		cmocka_unit_test(codex_status_from_its_transcript),
		cmocka_unit_test(real_payloads),
		cmocka_unit_test(claude_code_before_an_edit),
		cmocka_unit_test(cline_cli_commands),
		cmocka_unit_test(status_formats_of_newer_releases),
		cmocka_unit_test(exit_code_from_text),
		cmocka_unit_test(argv_commands_are_joined),
		cmocka_unit_test(missing_fields_are_fine),
		cmocka_unit_test(broken_json_is_einval),
		cmocka_unit_test(invalid_utf8_is_repaired_not_fatal),
		cmocka_unit_test(fifty_megabytes),
		cmocka_unit_test(peek_reads_only_what_it_needs),
		cmocka_unit_test(replies_put_the_context_where_each_agent_reads_it),
		cmocka_unit_test(empty_context_gives_the_empty_reply),
		cmocka_unit_test(reply_context_is_cut_between_characters),
		cmocka_unit_test(output_failure_heuristic),
		cmocka_unit_test(agent_names),
		cmocka_unit_test(release_is_idempotent),
		cmocka_unit_test(long_strings_decoded_alike),
		cmocka_unit_test(parse_buf_as_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
