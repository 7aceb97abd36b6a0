/*
 * cli.h - what the subcommands share: the command table entry, the
 * workspace context main() prepares, and message helpers in git's style
 * ("callus: cannot open 'x': reason", lowercase, no full stop).
 */
#ifndef CALLUS_CLI_H
#define CALLUS_CLI_H

#include "options.h"

#include <signal.h>

#include "callus/config.h"
#include "callus/workspace.h"
#include "callus/detect.h"
#include "callus/embed_remote.h"
#include "callus/redact.h"

/* What a command needs main() to set up before it runs. */
enum {
	CLI_NEEDS_NOTHING = 0,
};

/*
 * The workspace a command works in.  Commands that need one call
 * cli_workspace_setup(); everything here is owned by the context and freed
 * by cli_workspace_release().
 */
typedef struct cli_workspace {
	char *root;           /* absolute */
	char *root_real;      /* realpath of root */
	char *cwd_rel;        /* the current directory relative to root ("" at root) */
	callus_ws_kind kind;  /* how root was found: a directory of no kind is no workspace yet */
	long store_wait_ms;   /* > 0: wait no longer for the store's lock ([store] timeout_ms) */
	long long deadline_ms; /* > 0: the snapshot helper's answers are waited
				* for until this time of callus_child_now_ms()
				* at most (a hook's deadline, less what learning
				* needs after them), and the metrics spool
				* taken only before it */
	callus_config *config;  /* never NULL after setup */
	callus_whitelist *whitelist;
	callus_redactor *redactor;
	char *config_error;   /* set when .callus/config was invalid (built-ins used) */
	int config_unread;    /* the file itself could not be read or parsed
			       * (config_error says why): its values, the
			       * retention's among them, are unknown */
	/* The external embedder ([embed], CALLUS_EMBED_*), when one is set up:
	 * embed_model is its model id, NULL when there is none or its
	 * configuration is wrong (embed_error says why; the built-in
	 * embedder is used alone).  embed's strings are borrowed from the
	 * config and the environment. */
	callus_embed_remote_opts embed;
	char *embed_model;
	char *embed_error;
} cli_workspace;

/* Find the workspace of dir (NULL: the current directory) and load its
 * configuration.  A broken config file is not fatal: the built-in defaults
 * are used and config_error says why.  Returns 0 or prints and returns -1. */
int cli_workspace_setup(cli_workspace *ws, const char *dir, int need_redactor);
void cli_workspace_release(cli_workspace *ws);

/* Carry a workspace of callus's former name over (callus/migrate.h),
 * saying so on stderr; quiet when there is nothing to do. */
void cli_workspace_migrate(const char *root);

/* `callus doctor`'s checks of the agents' hooks (settings, program, trust,
 * the last payload), agent's alone when not NULL; printed on stdout as
 * doctor prints them.  Returns the number of problems found. */
int cli_doctor_hooks(const cli_workspace *ws, const char *agent);

/* An integer from the config, 0 to INT_MAX, or def when unset, not a number
 * or out of range (so it always fits an int). */
long cli_config_long(const cli_workspace *ws, const char *section, const char *key, long def);

/* [store] timeout_ms: how long a command waits for a store another
 * process writes; a value under 1 (or none) is the default. */
#define CLI_STORE_TIMEOUT_MS 10000
long cli_store_timeout_ms(const cli_workspace *ws);

/* The size of the workspace's file rel, 0 when there is none. */
uint64_t cli_file_size(const cli_workspace *ws, const char *rel);

/* When a pending error failing last before is abandoned: now less [learn]
 * prune_hours, in callus_now_iso8601()'s format; NULL without memory.
 * Caller frees. */
char *cli_abandoned_before(const cli_workspace *ws);

/* An event of callus's own in ws's .callus/log.jsonl (callus_log_event) at
 * level "info", "warn" or "error", its message redacted; best-effort, and
 * nothing without a workspace. */
/* The size past which ws's log rotates ([retention] log_kb) from its
 * configuration as read (callus_log_limit() reads the file again); 0 when
 * none was read. */
size_t cli_log_limit(const cli_workspace *ws);

void cli_log_event(const cli_workspace *ws, const char *level, const char *event,
		   const char *message, const char *const *extra);

typedef struct cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const cli_spec *spec;
} cli_command;

extern const cli_spec cmd_run_spec, cmd_analyze_spec, cmd_lessons_spec, cmd_record_spec,
	cmd_hook_spec, cmd_init_spec, cmd_metrics_spec, cmd_doctor_spec, cmd_pending_spec,
	cmd_warnings_spec, cmd_resolutions_spec, cmd_feedback_spec, cmd_status_spec,
	cmd_suggest_spec, cmd_reindex_spec, cmd_merges_spec, cmd_merge_spec, cmd_notes_spec,
	cmd_note_spec, cmd_report_spec, cmd_import_spec, cmd_sync_spec, cmd_proposals_spec,
	cmd_approve_spec, cmd_reject_spec, cmd_gc_spec;
int cmd_run(int argc, char **argv);
int cmd_hook(int argc, char **argv);

/* Record what hooks queued in ws's spool (hook_spool.h) as their hooks
 * would have, within wait_ms, waiting that long at most for another
 * drainer: what `callus import` does before it looks for the failures
 * hooks recorded.  The number recorded, or -1 when another drainer kept
 * the queue. */
int cli_hook_drain(const cli_workspace *ws, long wait_ms);
int cmd_init(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_lessons(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_pending(int argc, char **argv);
int cmd_warnings(int argc, char **argv);
int cmd_resolutions(int argc, char **argv);
int cmd_feedback(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_suggest(int argc, char **argv);
int cmd_reindex(int argc, char **argv);
int cmd_merges(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_notes(int argc, char **argv);
int cmd_note(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_import(int argc, char **argv);

/* What `callus import` does (cmd_import.c), for `callus init AGENT`: agent,
 * since and project NULL for all. */
typedef struct cli_import_opts {
	const char *agent, *since, *project;
	int dry_run, quiet;
} cli_import_opts;

/* Import the transcripts (docs/import.md), printing progress and the
 * summary; 0, or 1 after saying what failed. */
int cli_import(const cli_import_opts *o);
int cmd_sync(int argc, char **argv);
int cmd_proposals(int argc, char **argv);
int cmd_approve(int argc, char **argv);
int cmd_reject(int argc, char **argv);
int cmd_gc(int argc, char **argv);

/* What the process started with, as `callus run` gives it to its command
 * (main.c): the signals it found ignored (SIGPIPE, SIGXFSZ: callus ignores
 * them for itself), and which of fds 0, 1 and 2 were closed (bit n; main
 * opens /dev/null there, so that no pipe of callus's lands on them). */
const sigset_t *cli_started_ignored(void);
unsigned cli_started_closed(void);

/* Print "callus: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* cli_error() for a message carrying text callus did not write (a payload's
 * directory, a tool's output): the line is cleaned (callus/cleantext.h) so
 * that it cannot drive the terminal it is printed on. */
void cli_error_untrusted(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* After a command's output that did not end its line (yes != 0), the next
 * message of cli_error() starts with a newline, so that it is not glued to
 * the command's last words; nothing is printed when no message follows. */
void cli_error_own_line(int yes);
/* With yes, cli_error() prints nothing until called again with 0: what
 * `callus run -q` says of its own setup (a workspace it cannot use). */
void cli_error_hush(int yes);

/* Shell-quote argv into one command line (for detection). */
char *cli_join_argv(int argc, char **argv);

/* The same line with every secret redacted word by word before quoting (for
 * the lesson: quoting first would hide a password's quotes in '\''). */
char *cli_join_argv_redacted(const callus_redactor *r, int argc, char **argv);

#endif
