/*
 * patchdesc.h - what a unified diff changed, in a sentence: which files
 * were edited, added, deleted or renamed, in which functions, by how many
 * lines.  It describes a resolution (DESIGN §4) to the agent reading it.
 *
 * Input is git's patch format as callus_snapshot_diff() prints it
 * ("diff --git a/X b/Y" headers, "new file mode", "deleted file mode",
 * "rename from/to", "Binary files ... differ", hunks "@@ -a,b +c,d @@ ctx"
 * whose trailing context names the enclosing function, and callus's own
 * "[callus: N more files changed: ...]" line).  Anything else is skipped:
 * any text gives a description, never an error but CALLUS_ENOMEM.
 */
#ifndef CALLUS_PATCHDESC_H
#define CALLUS_PATCHDESC_H

#include <stddef.h>

#include "callus/common.h"
#include "callus/strlist.h"

typedef enum callus_patch_change {
	CALLUS_PATCH_MODIFIED,
	CALLUS_PATCH_ADDED,
	CALLUS_PATCH_DELETED,
	CALLUS_PATCH_RENAMED
} callus_patch_change;

typedef struct callus_patch_file {
	char *path;          /* the new path (the old one when deleted); owned */
	char *old_path;      /* for renames, else NULL; owned */
	callus_patch_change change;
	int binary;
	size_t added, removed;   /* lines */
	callus_strlist functions;  /* enclosing functions named by the hunks,
				  * each once, in order (e.g. "add", "Foo::bar") */
} callus_patch_file;

typedef struct callus_patch_summary {
	callus_patch_file *files;
	size_t count;
	size_t more_files;   /* from callus's truncation line */
	size_t added, removed;
} callus_patch_summary;

#define CALLUS_PATCH_SUMMARY_INIT { NULL, 0, 0, 0, 0 }

/* Parse patch[0..len).  The caller releases *out. */
int callus_patch_summarize(callus_patch_summary *out, const char *patch, size_t len);
void callus_patch_summary_release(callus_patch_summary *s);

/*
 * A one-line description of at most max_bytes (cut on a UTF-8 boundary),
 * e.g. "Edited add() in src/sum.js (+1 -1); added src/util.js (+12)" or
 * "No changes in the working tree" for an empty summary.  Caller frees.
 */
int callus_patch_describe(char **out, const callus_patch_summary *s, size_t max_bytes);

/* The files the summary names (new paths), a copy the caller releases. */
int callus_patch_files(callus_strlist *out, const callus_patch_summary *s);

/*
 * Rewrite *patch's hunk headers whose line counts no longer match the
 * lines that follow them: redaction turns a private key's lines into one
 * "[REDACTED:private-key]", and a patch whose headers lie is one git
 * refuses and readers misread.  Headers that match are left byte for byte.
 * *patch (malloc'd) is replaced only when something changed.  0 or
 * CALLUS_ENOMEM (*patch then as it was).
 */
int callus_patch_recount(char **patch);

#endif
