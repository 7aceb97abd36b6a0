/*
 * agent.h - the agents family: one file per coding agent in src/agents/,
 * each filling one callus_agent_ops, chosen from the table in src/hookio.c.
 *
 * A member says how its agent's hook payload is read (fill, and the cheap
 * peek at the command), and how the reply is written.  What they share
 * (JSON helpers, the repairing loader, the raw-text walker of the peek, the
 * parsing of status lines) is src/agents/payload.c, declared below.
 *
 * A member also says where `callus init` installs the hook (its install
 * description, with what else the agent needs and how to tell whether it
 * trusts the project).
 *
 * Adding an agent: a new src/agents/NAME.c defining `const callus_agent_ops
 * callus_agent_NAME`, one enum value in include/callus/hookio.h and one row in
 * hookio.c's table (docs/HACKING.md has the checklist).
 */
#ifndef CALLUS_AGENTS_AGENT_H
#define CALLUS_AGENTS_AGENT_H

#include <stddef.h>

#include <jansson.h>

#include "callus/agentconf.h"
#include "callus/buf.h"
#include "callus/hookio.h"

typedef struct callus_agent_ops {
	const char *name;   /* canonical name, as `callus hook NAME` takes it */
	callus_agent id;
	/* Map the payload (a JSON object) onto e, whose agent is set and
	 * whose other fields are empty.  Fields the payload does not give
	 * stay unknown (exit_code -1).  A payload carrying several commands
	 * (Cline's run_commands) chains the others through e->next.  0, or
	 * CALLUS_ENOMEM. */
	int (*fill)(callus_hook_event *e, const json_t *root);
	/* The command of a shell event, or *out NULL, reading only the members
	 * it needs of json[0..end) (an object: '{' at json), through the
	 * helpers below.  Must give what fill would give (several commands:
	 * one per line).  0, CALLUS_EINVAL (malformed), CALLUS_ENOMEM. */
	int (*peek)(char **out, const char *json, const char *end);
	/* Set the reply's members on root for a non-empty context ctx[0..n)
	 * (valid UTF-8, already cut).  event is the event's name, "" if none.
	 * 0, or CALLUS_ENOMEM. */
	int (*reply)(json_t *root, const char *event, const char *ctx, size_t n);
	const char *empty_reply;  /* the reply with nothing to say */
	size_t context_max;       /* bytes the agent accepts, 0: no ceiling */
	/* where and how `callus init` installs the hook (callus/agentconf.h);
	 * NULL for an agent with nothing to install (generic) */
	const callus_agentconf_agent *install;
} callus_agent_ops;

/* The i-th member of the table (src/hookio.c), NULL past the last. */
const callus_agent_ops *callus_agent_ops_nth(size_t i);

extern const callus_agent_ops callus_agent_claude_code, callus_agent_codex, callus_agent_gemini,
	callus_agent_copilot, callus_agent_cursor, callus_agent_cline, callus_agent_generic;

/* ---- src/agents/payload.c: text ------------------------------------------- */

int callus_payload_streq(const char *a, const char *b);   /* NULLs never equal */
int callus_payload_has_prefix(const char *p, const char *end, const char *pre);
const char *callus_payload_eol(const char *p, const char *end);  /* '\n' or end */
/* A non-negative decimal at p (clamped to INT_MAX); *after past it (may be
 * NULL).  0 when p does not start with a digit. */
int callus_payload_uint(const char *p, const char *end, int *out, const char **after);
/* The rest of the line at p is "N", maybe followed by blanks, '.', or a
 * parenthesised note: the status lines agents write.  *code set only then. */
int callus_payload_code_line(const char *p, const char *end, int *code);
/* *dst = a new copy of s[0..n), NULs as U+FFFD (the old *dst freed);
 * *dlen its length when dlen is not NULL.  0 or CALLUS_ENOMEM. */
int callus_payload_set_text(char **dst, size_t *dlen, const char *s, size_t n);

/* ---- JSON ----------------------------------------------------------------- */

/* jansson's parse, and again after repairing bad UTF-8, raw control bytes
 * and unpaired surrogate escapes inside strings.  NULL when not JSON
 * (*oom set when for lack of memory). */
json_t *callus_payload_load(const char *s, size_t n, size_t flags, json_error_t *jerr, int *oom);
/* The same of s's text, s released on return, and sooner when it can be:
 * once the long strings are decoded, before jansson copies them, so that
 * its copy of a megabyte's output takes the pages of the payload's text
 * rather than new ones (page faults are a tenth of recording it). */
json_t *callus_payload_load_buf(callus_buf *s, size_t flags, json_error_t *jerr, int *oom);
/* The same, with the strings of at least big bytes decoded by callus
 * (payload.c says why); callus_payload_load's is 4096.  For the fuzz target
 * that checks both ways agree. */
json_t *callus_payload_load_with(const char *s, size_t n, size_t flags, json_error_t *jerr,
				 int *oom, size_t big);
const char *callus_payload_jstr(const json_t *obj, const char *key, size_t *len);
int callus_payload_jtrue(const json_t *obj, const char *key);
/* An exit status as a number or numeric string; 1 when found. */
int callus_payload_jcode(const json_t *v, int *out);
/* obj's exit_code, exitCode, exit_status or returncode. */
int callus_payload_jcode_any(const json_t *obj, int *out);
/* The command of a tool's arguments ("command", or codex's "cmd"): a string,
 * or an argv joined with shell quoting (`bash -lc X` giving X). */
int callus_payload_command(char **out, const json_t *input);
int callus_payload_command_value(char **out, const json_t *v);
int callus_payload_in_list(const char *name, const char *const *list);

/* ---- the event ------------------------------------------------------------ */

int callus_payload_set_jstr(char **dst, const json_t *obj, const char *key);
int callus_payload_set_event(callus_hook_event *e, const json_t *root, const char *key,
			   const char *alt);
int callus_payload_set_output(callus_hook_event *e, const char *s, size_t n);
/* stdout, then stderr on a line of its own */
int callus_payload_set_output2(callus_hook_event *e, const char *out, size_t on, const char *err,
			     size_t en);
/* base joined with a relative working directory the tool was given */
int callus_payload_set_cwd(callus_hook_event *e, const char *base, const char *sub);
/* A new event for a further command of the same payload, appended to e's
 * chain and sharing its agent, event, cwd and session; NULL on ENOMEM. */
callus_hook_event *callus_payload_chain(callus_hook_event *e);

/* ---- the peek's raw-text walker -------------------------------------------- */

/* The decoded value of the last member named key of the object at obj, or
 * *out NULL when absent.  CALLUS_EINVAL when what it walked is malformed. */
int callus_payload_member(json_t **out, const char *obj, const char *end, const char *key);
/* The span of that member's value when it is an object, else *tobj NULL. */
int callus_payload_member_object(const char **tobj, const char *obj, const char *end,
			       const char *key);
/* The peek of the agents whose payload names the tool and its input as
 * members of one object: the command when tool_key names a shell (list). */
int callus_payload_peek_tool(char **out, const char *obj, const char *end, const char *tool_key,
			   const char *input_key, const char *const *shells);

/* ---- the agents' own settings, for check_trust ---------------------------- */

/* Whether root (absolute, resolved) is folder or below it, folder's
 * links resolved first when it exists. */
int callus_agent_folder_holds(const char *folder, const char *root);
/* The path of an agent's settings file into *where: env_dir/name when the
 * variable env_dir (may be NULL) is set, else $HOME/rel.  0, or -1 when
 * neither is set (or out of memory). */
int callus_agent_settings_path(callus_buf *where, const char *env_dir, const char *name,
			       const char *rel);
/* That file parsed as JSON: a new reference, NULL when missing or not JSON
 * (*where names the file looked for; the caller releases it). */
json_t *callus_agent_load_settings(callus_buf *where, const char *env_dir, const char *name,
				   const char *rel);

/* ---- replies -------------------------------------------------------------- */

/* {"hookSpecificOutput":{"hookEventName":E,"additionalContext":C}}, E the
 * event or dflt when none: Claude Code's shape, which Codex and Gemini took. */
int callus_payload_reply_specific(json_t *root, const char *event, const char *dflt,
				const char *ctx, size_t n);
/* {"additionalContext":C} */
int callus_payload_reply_context(json_t *root, const char *event, const char *ctx, size_t n);

#endif
