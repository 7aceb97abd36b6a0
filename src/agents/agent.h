/*
 * agent.h - the agents family: one file per coding agent in src/agents/,
 * each filling one deja_agent_ops, chosen from the table in src/hookio.c.
 *
 * A member says how its agent's hook payload is read (fill, and the cheap
 * peek at the command), and how the reply is written.  What they share
 * (JSON helpers, the repairing loader, the raw-text walker of the peek, the
 * parsing of status lines) is src/agents/payload.c, declared below.
 *
 * Adding an agent: a new src/agents/NAME.c defining `const deja_agent_ops
 * deja_agent_NAME`, one enum value in include/deja/hookio.h and one row in
 * hookio.c's table (docs/HACKING.md has the checklist).
 */
#ifndef DEJA_AGENTS_AGENT_H
#define DEJA_AGENTS_AGENT_H

#include <stddef.h>

#include <jansson.h>

#include "deja/buf.h"
#include "deja/hookio.h"

typedef struct deja_agent_ops {
	const char *name;   /* canonical name, as `deja hook NAME` takes it */
	deja_agent id;
	/* Map the payload (a JSON object) onto e, whose agent is set and
	 * whose other fields are empty.  Fields the payload does not give
	 * stay unknown (exit_code -1).  A payload carrying several commands
	 * (Cline's run_commands) chains the others through e->next.  0, or
	 * DEJA_ENOMEM. */
	int (*fill)(deja_hook_event *e, const json_t *root);
	/* The command of a shell event, or *out NULL, reading only the members
	 * it needs of json[0..end) (an object: '{' at json), through the
	 * helpers below.  Must give what fill would give (several commands:
	 * one per line).  0, DEJA_EINVAL (malformed), DEJA_ENOMEM. */
	int (*peek)(char **out, const char *json, const char *end);
	/* Set the reply's members on root for a non-empty context ctx[0..n)
	 * (valid UTF-8, already cut).  event is the event's name, "" if none.
	 * 0, or DEJA_ENOMEM. */
	int (*reply)(json_t *root, const char *event, const char *ctx, size_t n);
	const char *empty_reply;  /* the reply with nothing to say */
	size_t context_max;       /* bytes the agent accepts, 0: no ceiling */
} deja_agent_ops;

extern const deja_agent_ops deja_agent_claude_code, deja_agent_codex, deja_agent_gemini,
	deja_agent_copilot, deja_agent_cursor, deja_agent_cline, deja_agent_generic;

/* ---- src/agents/payload.c: text ------------------------------------------- */

int deja_payload_streq(const char *a, const char *b);   /* NULLs never equal */
int deja_payload_has_prefix(const char *p, const char *end, const char *pre);
const char *deja_payload_eol(const char *p, const char *end);  /* '\n' or end */
/* A non-negative decimal at p (clamped to INT_MAX); *after past it (may be
 * NULL).  0 when p does not start with a digit. */
int deja_payload_uint(const char *p, const char *end, int *out, const char **after);
/* The rest of the line at p is "N", maybe followed by blanks, '.', or a
 * parenthesised note: the status lines agents write.  *code set only then. */
int deja_payload_code_line(const char *p, const char *end, int *code);
/* *dst = a new copy of s[0..n), NULs as U+FFFD (the old *dst freed);
 * *dlen its length when dlen is not NULL.  0 or DEJA_ENOMEM. */
int deja_payload_set_text(char **dst, size_t *dlen, const char *s, size_t n);

/* ---- JSON ----------------------------------------------------------------- */

/* jansson's parse, and again after repairing bad UTF-8, raw control bytes
 * and unpaired surrogate escapes inside strings.  NULL when not JSON
 * (*oom set when for lack of memory). */
json_t *deja_payload_load(const char *s, size_t n, size_t flags, json_error_t *jerr, int *oom);
const char *deja_payload_jstr(const json_t *obj, const char *key, size_t *len);
int deja_payload_jtrue(const json_t *obj, const char *key);
/* An exit status as a number or numeric string; 1 when found. */
int deja_payload_jcode(const json_t *v, int *out);
/* obj's exit_code, exitCode, exit_status or returncode. */
int deja_payload_jcode_any(const json_t *obj, int *out);
/* The command of a tool's arguments ("command", or codex's "cmd"): a string,
 * or an argv joined with shell quoting (`bash -lc X` giving X). */
int deja_payload_command(char **out, const json_t *input);
int deja_payload_command_value(char **out, const json_t *v);
int deja_payload_in_list(const char *name, const char *const *list);

/* ---- the event ------------------------------------------------------------ */

int deja_payload_set_jstr(char **dst, const json_t *obj, const char *key);
int deja_payload_set_event(deja_hook_event *e, const json_t *root, const char *key,
			   const char *alt);
int deja_payload_set_output(deja_hook_event *e, const char *s, size_t n);
/* stdout, then stderr on a line of its own */
int deja_payload_set_output2(deja_hook_event *e, const char *out, size_t on, const char *err,
			     size_t en);
/* base joined with a relative working directory the tool was given */
int deja_payload_set_cwd(deja_hook_event *e, const char *base, const char *sub);
/* A new event for a further command of the same payload, appended to e's
 * chain and sharing its agent, event, cwd and session; NULL on ENOMEM. */
deja_hook_event *deja_payload_chain(deja_hook_event *e);

/* ---- the peek's raw-text walker -------------------------------------------- */

/* The decoded value of the last member named key of the object at obj, or
 * *out NULL when absent.  DEJA_EINVAL when what it walked is malformed. */
int deja_payload_member(json_t **out, const char *obj, const char *end, const char *key);
/* The span of that member's value when it is an object, else *tobj NULL. */
int deja_payload_member_object(const char **tobj, const char *obj, const char *end,
			       const char *key);
/* The peek of the agents whose payload names the tool and its input as
 * members of one object: the command when tool_key names a shell (list). */
int deja_payload_peek_tool(char **out, const char *obj, const char *end, const char *tool_key,
			   const char *input_key, const char *const *shells);

/* ---- replies -------------------------------------------------------------- */

/* {"hookSpecificOutput":{"hookEventName":E,"additionalContext":C}}, E the
 * event or dflt when none: Claude Code's shape, which Codex and Gemini took. */
int deja_payload_reply_specific(json_t *root, const char *event, const char *dflt,
				const char *ctx, size_t n);
/* {"additionalContext":C} */
int deja_payload_reply_context(json_t *root, const char *event, const char *ctx, size_t n);

#endif
