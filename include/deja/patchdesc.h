/*
 * patchdesc.h - what a unified diff changed, in a sentence: which files
 * were edited, added, deleted or renamed, in which functions, by how many
 * lines.  It describes a resolution (DESIGN §4) to the agent reading it.
 *
 * Input is git's patch format as deja_snapshot_diff() prints it
 * ("diff --git a/X b/Y" headers, "new file mode", "deleted file mode",
 * "rename from/to", "Binary files ... differ", hunks "@@ -a,b +c,d @@ ctx"
 * whose trailing context names the enclosing function, and deja's own
 * "[deja: N more files changed: ...]" line).  Anything else is skipped:
 * any text gives a description, never an error but DEJA_ENOMEM.
 */
#ifndef DEJA_PATCHDESC_H
#define DEJA_PATCHDESC_H

#include <stddef.h>

#include "deja/common.h"
#include "deja/strlist.h"

typedef enum deja_patch_change {
	DEJA_PATCH_MODIFIED,
	DEJA_PATCH_ADDED,
	DEJA_PATCH_DELETED,
	DEJA_PATCH_RENAMED
} deja_patch_change;

typedef struct deja_patch_file {
	char *path;          /* the new path (the old one when deleted); owned */
	char *old_path;      /* for renames, else NULL; owned */
	deja_patch_change change;
	int binary;
	size_t added, removed;   /* lines */
	deja_strlist functions;  /* enclosing functions named by the hunks,
				  * each once, in order (e.g. "add", "Foo::bar") */
} deja_patch_file;

typedef struct deja_patch_summary {
	deja_patch_file *files;
	size_t count;
	size_t more_files;   /* from deja's truncation line */
	size_t added, removed;
} deja_patch_summary;

#define DEJA_PATCH_SUMMARY_INIT { NULL, 0, 0, 0, 0 }

/* Parse patch[0..len).  The caller releases *out. */
int deja_patch_summarize(deja_patch_summary *out, const char *patch, size_t len);
void deja_patch_summary_release(deja_patch_summary *s);

/*
 * A one-line description of at most max_bytes (cut on a UTF-8 boundary),
 * e.g. "Edited add() in src/sum.js (+1 -1); added src/util.js (+12)" or
 * "No changes in the working tree" for an empty summary.  Caller frees.
 */
int deja_patch_describe(char **out, const deja_patch_summary *s, size_t max_bytes);

/* The files the summary names (new paths), a copy the caller releases. */
int deja_patch_files(deja_strlist *out, const deja_patch_summary *s);

#endif
