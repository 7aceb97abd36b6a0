/*
 * hookio.h - the wire side of `callus hook <agent>`: reading each coding
 * agent's post-tool event (JSON on stdin) into one neutral record, and
 * writing the reply each agent expects on stdout.
 *
 * The field-by-field mapping per agent, and what is inferred when an agent
 * leaves something out, is in docs/hooks.md.  This module decides nothing
 * about lessons: it only says what ran, where, and how it ended.
 *
 * Robustness: the hook runs after every shell command, on payloads we do
 * not control (up to tens of MB of tool output).  Invalid UTF-8, raw control
 * bytes inside strings and unpaired \uD800-style escapes are repaired (to
 * U+FFFD) and the payload parsed again, so that bad bytes in a tool's output
 * never lose the event; only JSON that is structurally broken (truncated,
 * empty, not an object) is refused.
 */
#ifndef CALLUS_HOOKIO_H
#define CALLUS_HOOKIO_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/failtext.h"

typedef enum callus_agent {
	CALLUS_AGENT_CLAUDE,
	CALLUS_AGENT_CODEX,
	CALLUS_AGENT_GEMINI,
	CALLUS_AGENT_COPILOT,
	CALLUS_AGENT_CURSOR,
	CALLUS_AGENT_CLINE,
	CALLUS_AGENT_GENERIC
} callus_agent;

/* "claude-code" (alias "claude"), "codex", "gemini", "copilot", "cursor",
 * "cline", "generic".  CALLUS_EINVAL for anything else (name may be NULL). */
int callus_agent_parse(callus_agent *out, const char *name);

/* The canonical name ("claude-code", ...); static, never NULL ("unknown"
 * for a value outside the enum). */
const char *callus_agent_name(callus_agent a);

/*
 * One hook event: after a tool (mostly), or before an edit.  Every string is owned by the record, valid UTF-8
 * (bad bytes and embedded NULs become U+FFFD) and NUL-terminated; release
 * with callus_hook_event_release().
 */
typedef struct callus_hook_event {
	callus_agent agent;
	char *event;        /* hook event name as sent ("PostToolUse",
			     * "AfterTool", "postToolUseFailure", ...), or as
			     * inferred when the agent sends none (copilot);
			     * "" if unknown */
	int is_shell;       /* the tool was a shell command (Bash,
			     * run_shell_command, execute_command, ...) */
	int session_start;  /* a session/task start event: no command */
	char *command;      /* the command line; NULL if none.  An argv array
			     * (codex) is joined, `sh -c X` giving X */
	int exit_code;      /* -1 when unknown (still running, cancelled,
			     * in the background, or the agent does not say;
			     * never guessed from a tool-level "success") */
	int exit_inferred;  /* 1 when exit_code was guessed from a failure
			     * event that carries no code */
	int interrupted;    /* cancelled by the user or timed out */
	char *output;       /* stdout+stderr as the agent gave them, with the
			     * agent's own framing ("Exit code 1", "Output:",
			     * ...) removed; "" if none, never NULL after a
			     * successful parse */
	size_t output_len;  /* strlen(output) */
	char *cwd;          /* the directory the command ran in; NULL if not
			     * sent */
	char *session_id;   /* session/conversation/task id; NULL if none
			     * (becomes the lesson's intent_id) */
	char *transcript;   /* the agent's session transcript the payload
			     * names (codex), NULL if none: where
			     * callus_hook_event_complete() looks */
	char *call_id;      /* the tool call's id, NULL if none */
	struct callus_hook_event *next; /* the next command of the same tool
			     * call (cline's run_commands carries several),
			     * owned by this one; NULL for the last */
	char *edit_path;    /* before a tool that edits a file (Claude Code's
			     * PreToolUse of Edit, Write, MultiEdit,
			     * NotebookEdit): that file, as the tool was
			     * given it (absolute, or relative to cwd); NULL
			     * for every other event */
} callus_hook_event;

#define CALLUS_HOOK_EVENT_INIT                                                             \
	{ CALLUS_AGENT_GENERIC, NULL, 0, 0, NULL, -1, 0, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, \
	  NULL }

/*
 * Parse json[0..len) as `agent`'s payload into *out (which is overwritten:
 * release it first if it held an event).  CALLUS_EINVAL, with a message naming
 * the agent and the position, for empty, truncated or otherwise invalid JSON
 * and for a top level that is not an object; unknown and missing fields are
 * not errors (a record with is_shell 0 comes back).  CALLUS_ENOMEM.  On error
 * *out is left released (all NULL).
 */
int callus_hook_event_parse(callus_hook_event *out, callus_agent agent,
			  const char *json, size_t len, callus_error *err);
/* The same of json's text, json released on return, and sooner: as soon
 * as what it holds is decoded, so that a megabyte's output is not held
 * three times at once (the payload, its decoded copy, jansson's). */
int callus_hook_event_parse_buf(callus_hook_event *out, callus_agent agent, callus_buf *json,
				callus_error *err);

/* Free what the record owns (the chain of further commands included) and
 * reset it to CALLUS_HOOK_EVENT_INIT.  NULL is fine. */
void callus_hook_event_release(callus_hook_event *e);

/*
 * Fill in, from the files the payload names, what the payload itself left
 * unknown.  Today: Codex sends a shell command's output without its exit
 * status, which its session transcript (transcript_path) records against
 * the call id; the last CALLUS_TRANSCRIPT_TAIL bytes of that file are read,
 * never written.  0 whether or not something was found (exit_code stays
 * -1 then), CALLUS_ENOMEM.
 */
#define CALLUS_TRANSCRIPT_TAIL (1u << 20)
int callus_hook_event_complete(callus_hook_event *e);

/*
 * The cheap path for the common case (a command that is not a verification
 * tool): find the shell command in the payload without building a tree of
 * the whole payload, skipping over the (possibly huge) output strings with
 * memchr.  *out receives a malloc'ed copy of exactly what
 * callus_hook_event_parse() would put in `command` when the event is a shell
 * event, or NULL when it is not one (or has no command: session starts and
 * other tools also give NULL, so a caller that handles those parses in full
 * when it gets NULL).  CALLUS_EINVAL when the parts of the payload it had to
 * walk are malformed (call callus_hook_event_parse() for the message),
 * CALLUS_ENOMEM.  Object keys written with escapes are not recognised here.
 */
int callus_hook_peek_command(char **out, callus_agent agent, const char *json, size_t len);

/*
 * Append to `out` the reply `agent` expects on stdout, always one valid
 * JSON object:
 *   claude-code, codex, gemini: {"hookSpecificOutput":{"hookEventName":E,
 *       "additionalContext":C}}   (E = event, or "PostToolUse" / "AfterTool"
 *       when event is NULL or "")
 *   copilot, generic: {"additionalContext":C}
 *   cline:  {"cancel":false,"contextModification":C}  (C at most 50,000
 *       bytes, Cline's documented ceiling)
 *   cursor: {}  (its shell hooks cannot pass text to the model)
 * A NULL or empty context gives the empty reply: {} ({"cancel":false} for
 * cline).  The context is made valid UTF-8 and cut to max_chars characters
 * (0: no limit), never inside a character.  CALLUS_EINVAL for an unknown
 * agent, CALLUS_ENOMEM.
 */
int callus_hook_reply(callus_buf *out, callus_agent agent, const char *event,
		    const char *context, size_t max_chars);


#endif
