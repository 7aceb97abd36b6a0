/*
 * migrate.h - what a workspace and an agent's settings kept from callus's
 * former name, deja, and how it is carried over.  The only module that
 * knows the old name (docs/HACKING.md, "History").
 *
 * A workspace of the old name has its store in .deja/ (deja.db with its
 * WAL), lessons blocks between <!-- deja:lessons:... --> markers, and agent
 * hooks that run `deja hook AGENT` (Cline: a script marked "# deja:hook";
 * Copilot: .github/hooks/deja.json).
 */
#ifndef CALLUS_MIGRATE_H
#define CALLUS_MIGRATE_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"

/* The former name, for messages that say what was carried over. */
#define CALLUS_MIGRATE_OLD_NAME "deja"

/* The built-in embedder's model id under the old name, as stored with
 * its vectors (store.c's schema 6 renames it). */
#define CALLUS_MIGRATE_OLD_BUILTIN_MODEL "deja-builtin-1"

/* What callus_migrate_workspace() did. */
typedef enum callus_migrate_outcome {
	CALLUS_MIGRATE_NONE = 0, /* nothing of the old name, or already moved */
	CALLUS_MIGRATE_MOVED,    /* .deja/ is now .callus/ */
	CALLUS_MIGRATE_KEPT      /* both exist: .deja/ left alone (err says why) */
} callus_migrate_outcome;

/*
 * On the first run in a workspace that has a .deja/ directory and no
 * .callus/, carry the old store over: first the lessons markers of
 * AGENTS.md and of the lessons file .deja/config names are rewritten
 * (regular files inside root only, atomically), then the store's files
 * are renamed inside .deja/, and last .deja/ is renamed to .callus/ in one
 * step, so that any process sees either the old directory or the complete
 * new one, and an interrupted migration is simply done again.  A symlink
 * named .deja is left alone.  Costs one lstat(2) when .callus/ exists.
 * root is borrowed.  Returns the outcome, or a negative CALLUS_E* code
 * with err set (the old store is then left where it was).
 */
int callus_migrate_workspace(const char *root, callus_error *err);

/* The old lessons markers rewritten in text[0..len) into out (cleared
 * first); 1 when something changed, 0 when not, CALLUS_ENOMEM. */
int callus_migrate_markers(callus_buf *out, const char *text, size_t len);

/* Whether word, a command's program (unquoted), names the old binary:
 * "deja" or ".../deja". */
int callus_migrate_is_old_program(const char *word);

/* Whether a hook script's text carries the old name's marker line. */
int callus_migrate_is_old_script(const char *text, size_t len);

/* The settings file the old name wrote for agent (relative to the
 * workspace) where it differs from callus's own, else NULL. */
const char *callus_migrate_old_settings(const char *agent);

#endif
