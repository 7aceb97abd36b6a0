/*
 * hook_edit.h - what `callus hook` says before an agent edits a file
 * (Claude Code's PreToolUse of Edit, Write, MultiEdit, NotebookEdit): the
 * errors that failed for good in that file, and how the ones fixed there
 * were fixed, in a few lines (spec 003's failure warnings for a task).
 *
 * It runs before every edit, so it is cheap when there is nothing to say:
 * the workspace's file index (callus/fileindex.h) answers without the store.
 */
#ifndef CALLUS_CLI_HOOK_EDIT_H
#define CALLUS_CLI_HOOK_EDIT_H

#include "cli.h"
#include "callus/buf.h"
#include "callus/hookio.h"
#include "callus/store.h"

/* Where the file ev->edit_path is: *root its workspace (caller frees) and
 * *rel its workspace-relative path (caller frees).  Returns 1 when the
 * index lists it, 2 when there is a store but no index yet (made by
 * cli_edit_context()), 0 when callus knows nothing about it or it is
 * outside the workspace (*root and *rel NULL then).  Reads the index
 * only. */
int cli_edit_known(const callus_hook_event *ev, char **root, char **rel);

/* Append to ctx what the store knows about rel: its permanent failures,
 * then its errors fixed by a resolution that works more often than not,
 * with the lines each fix changed; nothing when there is nothing.  With
 * build_index, the workspace's index is made first (it had none). */
void cli_edit_context(callus_buf *ctx, callus_store *store, const char *rel, int build_index);

#endif
