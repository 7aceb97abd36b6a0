/*
 * fileindex.h - which files of a workspace callus knows something about:
 * an error that was fixed there (with a resolution) or that failed
 * permanently.  A hook before an edit (Claude Code's PreToolUse) runs for
 * every file an agent writes; this small sorted text file beside the store,
 * .callus/files.idx, lets it answer "nothing known" without opening the
 * store.
 *
 * The index is a hint kept by the learning transaction (learn.c writes it
 * while it holds the store's write lock, so that two writers cannot leave an
 * older list behind): a file listed by mistake costs one store query that
 * finds nothing, and a missing index is rebuilt from the store.
 *
 * Format: a first line "callus-files 1", then one workspace-relative path a
 * line, each once: sorted when the whole list is written, then in the
 * order fixes added them.  Paths holding a newline are left out.
 */
#ifndef CALLUS_FILEINDEX_H
#define CALLUS_FILEINDEX_H

#include "callus/common.h"
#include "callus/store.h"

#include <stdint.h>

#define CALLUS_FILEINDEX_NAME "files.idx"

/* Rewrite the index beside s's database file from what s holds now
 * (atomically: readers see the old or the new list).  0, or a negative
 * CALLUS_E* code with err set. */
int callus_fileindex_write(callus_store *s, callus_error *err);

/* The files of check check_id's fixed and permanent errors added to the
 * index: those not listed yet appended (nothing written when all of it
 * is; an index that cannot be appended to is removed, and rebuilt by its
 * next reader), or the whole index rewritten when there is none to add to
 * (or its last line is cut short).  What a learning transaction calls,
 * holding the store's write lock: rewriting the whole list read every
 * fixed error of the store at each fix, and writing it whole cost what the
 * list weighs.  0, or a negative CALLUS_E* code with err set. */
int callus_fileindex_add_check(callus_store *s, int64_t check_id, callus_error *err);

/* Remove the index beside s's database file (one that could not be
 * rewritten is wrong): the next lookup rebuilds it. */
void callus_fileindex_remove(callus_store *s);

/* Whether rel (workspace-relative) is listed in store_dir's index: 1 or 0;
 * CALLUS_ENOTFOUND when there is no readable index (build one with
 * callus_fileindex_write()).  Reads one small file, nothing else. */
int callus_fileindex_lookup(const char *store_dir, const char *rel);

#endif
