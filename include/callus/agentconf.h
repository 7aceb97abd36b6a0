/*
 * agentconf.h - what `callus init <agent>` changes in a coding agent's
 * project settings: callus's hook entries merged into, or taken out of, the
 * text of the agent's settings file.
 *
 * Pure: every function takes the file's current text and gives back the
 * new text (or says to leave or delete the file).  Reading, writing,
 * backups and the choice of the program that runs the hook are the
 * caller's (cli/cmd_init.c); docs/agents.md shows what is written where.
 *
 * The rules, for every JSON format:
 *   - everything that is not callus's is kept: other settings, other hooks
 *     in the same event, other matchers, key order (as jansson keeps it);
 *   - callus's entries are recognised by their command: a first word that is
 *     `callus` or a path ending in `/callus` (or exactly the program given),
 *     followed by the word `hook`;
 *   - merging is idempotent: when callus's entries are already exactly as
 *     they would be written, the answer is CALLUS_AGENTCONF_KEEP;
 *   - removing drops the containers (matcher groups, event arrays, the
 *     hooks object, the file) that became empty because callus's entries
 *     left them, and nothing else;
 *   - a text that is not JSON (comments included), has duplicate keys, or
 *     has an unexpected shape where callus would write (a "hooks" that is
 *     not an object, an event that is not an array, ...) is refused with
 *     CALLUS_EINVAL and a message, so that the caller leaves the file as it
 *     is.  An empty or all-blank file counts as an empty object.
 * Output JSON is indented by 2 spaces and ends with a newline.
 */
#ifndef CALLUS_AGENTCONF_H
#define CALLUS_AGENTCONF_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"

/* The largest settings file callus will edit. */
#define CALLUS_AGENTCONF_FILE_MAX (16u << 20)

/* The comment line that marks an executable hook script as callus's own
 * (Cline's .clinerules/hooks/PostToolUse). */
#define CALLUS_AGENTCONF_MARKER "# callus:hook"

typedef enum callus_agentconf_format {
	/* {"hooks": {"<Event>": [{"matcher": M, "hooks": [{"type": "command",
	 * "command": C, ...}]}]}}: Claude Code, Codex, Gemini CLI */
	CALLUS_AGENTCONF_NESTED,
	/* {"version": 1, "hooks": {"<event>": [{..., "<key>": C, ...}]}}:
	 * Copilot ("bash"), Cursor ("command") */
	CALLUS_AGENTCONF_FLAT,
	/* an executable file named after the event: Cline */
	CALLUS_AGENTCONF_SCRIPT
} callus_agentconf_format;

/* One event callus hooks in an agent's settings. */
typedef struct callus_agentconf_event {
	const char *name;    /* "PostToolUse" */
	const char *matcher; /* NESTED only; NULL: the group has no matcher */
	long long timeout;   /* in the agent's unit; 0: no timeout field */
} callus_agentconf_event;

#define CALLUS_AGENTCONF_EVENTS_MAX 4

/*
 * Where and how `callus init` installs one agent's hook: each agent's file
 * in src/agents/ defines its own (the install member of callus_agent_ops),
 * checked against the agent's documentation and real CLI (docs/agents.md).
 * Static: never freed.
 */
typedef struct callus_agentconf_agent {
	const char *name;   /* canonical, as `callus hook` takes it: "claude-code" */
	const char *alias;  /* another accepted name ("claude"), or NULL */
	const char *title;  /* "Claude Code" */
	const char *path;   /* the settings file, relative to the workspace root */
	const char *events; /* the events callus hooks, for messages:
			     * "PostToolUse, PostToolUseFailure, SessionStart" */
	const char *note;   /* one line the user should know after
			     * configuring (how the agent activates the hook),
			     * or NULL */
	callus_agentconf_format format;

	/* the handler's fields (NESTED and FLAT) */
	const char *cmd_key;     /* the field holding the command line */
	const char *timeout_key; /* the timeout's field, or NULL */
	const char *hook_name;   /* a "name" for the handler (Gemini), or NULL */
	int typed;               /* the handler carries "type": "command" */
	callus_agentconf_event hooked[CALLUS_AGENTCONF_EVENTS_MAX];
	size_t nhooked;

	/* After `callus init` wrote the hook in root: what else the agent
	 * needs for the lessons to reach it (Claude Code: CLAUDE.md importing
	 * AGENTS.md).  lessons_file is the workspace's [lessons] file (NULL:
	 * AGENTS.md); with dry_run nothing is written.  Appends a line per
	 * thing done (or that would be) to msg.  NULL: nothing to do.  0, or
	 * a negative CALLUS_E* code with err set. */
	int (*after_init)(const char *root, const char *lessons_file, int dry_run, callus_buf *msg,
			  callus_error *err);
	/* Whether the installed agent will run the hook in root, from its own
	 * trust settings (read, never written): appends one line per finding
	 * to out, each starting "ok " or "problem ".  NULL: nothing to check. */
	void (*check_trust)(const char *root, callus_buf *out);
} callus_agentconf_agent;

/* The agent called name (canonical or alias), or NULL. */
const callus_agentconf_agent *callus_agentconf_find(const char *name);

/* The i-th agent callus can configure, in a fixed order; NULL past the
 * last. */
const callus_agentconf_agent *callus_agentconf_nth(size_t i);

typedef enum callus_agentconf_action {
	CALLUS_AGENTCONF_KEEP = 0, /* nothing to change */
	CALLUS_AGENTCONF_WRITE,    /* replace (or create) the file with `out` */
	CALLUS_AGENTCONF_DELETE    /* delete the file: only callus's was in it */
} callus_agentconf_action;

/*
 * Append to out (cleared first) the hook command line for agent a run by
 * program: "<program> hook <a->name>", program shell-quoted when it needs
 * it.  program NULL means "callus".
 */
int callus_agentconf_command(callus_buf *out, const callus_agentconf_agent *a, const char *program);

/*
 * Merge callus's hook into text[0..len), the current content of a's settings
 * file (text NULL: the file does not exist).  program is what runs callus
 * ("callus", or an absolute path; NULL means "callus").  On success *action is
 * KEEP (already configured; out is left empty) or WRITE (out, cleared
 * first, holds the whole new file).  An existing callus entry that differs
 * (another program path, edited fields) is replaced in place; duplicates of
 * it are removed.  CALLUS_EINVAL with a message for a text callus refuses to
 * edit (see above; for Cline, a script that exists and is not callus's),
 * CALLUS_ENOMEM.
 */
int callus_agentconf_merge(callus_buf *out, callus_agentconf_action *action,
			 const callus_agentconf_agent *a, const char *text, size_t len,
			 const char *program, callus_error *err);

/*
 * Take every callus entry out of text[0..len) (text NULL: no file).  program
 * as for callus_agentconf_merge(), for recognising an entry written by a
 * callus whose file is not called `callus`; NULL is fine.  *action is KEEP
 * when there was none (a Cline script that is not callus's is kept too),
 * WRITE with out holding the new file, or DELETE when nothing but callus's
 * entries was left.  *removed (may be NULL) receives how many entries went.
 * Errors as for callus_agentconf_merge().
 */
int callus_agentconf_unmerge(callus_buf *out, callus_agentconf_action *action, size_t *removed,
			   const callus_agentconf_agent *a, const char *text, size_t len,
			   const char *program, callus_error *err);

/*
 * 1 when cmd is a callus hook command: its first shell word is `callus`, a path
 * ending in `/callus`, or exactly program (when not NULL), or callus's
 * former name (which merging thus replaces), and its second word is
 * `hook`.  Single and double quotes and backslashes in the first
 * word are understood as sh(1) would.
 */
int callus_agentconf_is_callus_command(const char *cmd, const char *program);

/* 1 when cmd is a callus hook command with nothing a person added after
 * it: past `hook`, only words of names (no redirection, no `;` and a
 * second command).  Merging replaces such an entry and removing takes it
 * out; an entry that runs the hook with more is the person's, left as it
 * is (and callus adds none beside it). */
int callus_agentconf_is_plain_callus_command(const char *cmd, const char *program);

/* How many entries of an agent's settings text run callus's hook, in any
 * form (callus's own, or a person's that runs it with more; a script of
 * callus's, or one of a person's that runs it): whether the agent runs
 * callus, as callus doctor and init --check ask.  0 for a text that
 * cannot be read. */
size_t callus_agentconf_count_hooks(const callus_agentconf_agent *a, const char *text, size_t len);

/* How many hook entries of text[0..len) (or 1 for a script) run callus
 * under its former name (callus/migrate.h): the ones merging replaces. */
size_t callus_agentconf_count_old(const callus_agentconf_agent *a, const char *text, size_t len);

#endif
