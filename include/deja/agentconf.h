/*
 * agentconf.h - what `deja init <agent>` changes in a coding agent's
 * project settings: deja's hook entries merged into, or taken out of, the
 * text of the agent's settings file.
 *
 * Pure: every function takes the file's current text and gives back the
 * new text (or says to leave or delete the file).  Reading, writing,
 * backups and the choice of the program that runs the hook are the
 * caller's (cli/cmd_init.c); docs/agents.md shows what is written where.
 *
 * The rules, for every JSON format:
 *   - everything that is not deja's is kept: other settings, other hooks
 *     in the same event, other matchers, key order (as jansson keeps it);
 *   - deja's entries are recognised by their command: a first word that is
 *     `deja` or a path ending in `/deja` (or exactly the program given),
 *     followed by the word `hook`;
 *   - merging is idempotent: when deja's entries are already exactly as
 *     they would be written, the answer is DEJA_AGENTCONF_KEEP;
 *   - removing drops the containers (matcher groups, event arrays, the
 *     hooks object, the file) that became empty because deja's entries
 *     left them, and nothing else;
 *   - a text that is not JSON (comments included), has duplicate keys, or
 *     has an unexpected shape where deja would write (a "hooks" that is
 *     not an object, an event that is not an array, ...) is refused with
 *     DEJA_EINVAL and a message, so that the caller leaves the file as it
 *     is.  An empty or all-blank file counts as an empty object.
 * Output JSON is indented by 2 spaces and ends with a newline.
 */
#ifndef DEJA_AGENTCONF_H
#define DEJA_AGENTCONF_H

#include <stddef.h>

#include "deja/buf.h"
#include "deja/common.h"

/* The largest settings file deja will edit. */
#define DEJA_AGENTCONF_FILE_MAX (16u << 20)

/* The comment line that marks an executable hook script as deja's own
 * (Cline's .clinerules/hooks/PostToolUse). */
#define DEJA_AGENTCONF_MARKER "# deja:hook"

typedef enum deja_agentconf_format {
	/* {"hooks": {"<Event>": [{"matcher": M, "hooks": [{"type": "command",
	 * "command": C, ...}]}]}}: Claude Code, Codex, Gemini CLI */
	DEJA_AGENTCONF_NESTED,
	/* {"version": 1, "hooks": {"<event>": [{..., "<key>": C, ...}]}}:
	 * Copilot ("bash"), Cursor ("command") */
	DEJA_AGENTCONF_FLAT,
	/* an executable file named after the event: Cline */
	DEJA_AGENTCONF_SCRIPT
} deja_agentconf_format;

/* One agent deja can configure.  Static: never freed. */
typedef struct deja_agentconf_agent {
	const char *name;   /* canonical, as `deja hook` takes it: "claude-code" */
	const char *alias;  /* another accepted name ("claude"), or NULL */
	const char *title;  /* "Claude Code" */
	const char *path;   /* the settings file, relative to the workspace root */
	const char *events; /* the events deja hooks, for messages:
			     * "PostToolUse, PostToolUseFailure, SessionStart" */
	const char *note;   /* one line the user should know after
			     * configuring (how the agent activates the hook),
			     * or NULL */
	deja_agentconf_format format;
} deja_agentconf_agent;

/* The agent called name (canonical or alias), or NULL. */
const deja_agentconf_agent *deja_agentconf_find(const char *name);

/* Every agent, in a fixed order; *count receives how many. */
const deja_agentconf_agent *deja_agentconf_agents(size_t *count);

typedef enum deja_agentconf_action {
	DEJA_AGENTCONF_KEEP = 0, /* nothing to change */
	DEJA_AGENTCONF_WRITE,    /* replace (or create) the file with `out` */
	DEJA_AGENTCONF_DELETE    /* delete the file: only deja's was in it */
} deja_agentconf_action;

/*
 * Append to out (cleared first) the hook command line for agent a run by
 * program: "<program> hook <a->name>", program shell-quoted when it needs
 * it.  program NULL means "deja".
 */
int deja_agentconf_command(deja_buf *out, const deja_agentconf_agent *a, const char *program);

/*
 * Merge deja's hook into text[0..len), the current content of a's settings
 * file (text NULL: the file does not exist).  program is what runs deja
 * ("deja", or an absolute path; NULL means "deja").  On success *action is
 * KEEP (already configured; out is left empty) or WRITE (out, cleared
 * first, holds the whole new file).  An existing deja entry that differs
 * (another program path, edited fields) is replaced in place; duplicates of
 * it are removed.  DEJA_EINVAL with a message for a text deja refuses to
 * edit (see above; for Cline, a script that exists and is not deja's),
 * DEJA_ENOMEM.
 */
int deja_agentconf_merge(deja_buf *out, deja_agentconf_action *action,
			 const deja_agentconf_agent *a, const char *text, size_t len,
			 const char *program, deja_error *err);

/*
 * Take every deja entry out of text[0..len) (text NULL: no file).  program
 * as for deja_agentconf_merge(), for recognising an entry written by a
 * deja whose file is not called `deja`; NULL is fine.  *action is KEEP
 * when there was none (a Cline script that is not deja's is kept too),
 * WRITE with out holding the new file, or DELETE when nothing but deja's
 * entries was left.  *removed (may be NULL) receives how many entries went.
 * Errors as for deja_agentconf_merge().
 */
int deja_agentconf_unmerge(deja_buf *out, deja_agentconf_action *action, size_t *removed,
			   const deja_agentconf_agent *a, const char *text, size_t len,
			   const char *program, deja_error *err);

/*
 * 1 when cmd is a deja hook command: its first shell word is `deja`, a path
 * ending in `/deja`, or exactly program (when not NULL), and its second
 * word is `hook`.  Single and double quotes and backslashes in the first
 * word are understood as sh(1) would.
 */
int deja_agentconf_is_deja_command(const char *cmd, const char *program);

#endif
