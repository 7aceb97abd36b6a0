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
 * finds nothing, and a missing index is rebuilt from the store.  Nothing
 * of it is synced (as a lesson's file, CALLUS_FS_REBUILT): a power loss,
 * which may take back the store's last commits too, may leave it empty
 * (rebuilt) or without its last lines (a hint lost, until `callus doctor
 * --fix`); a failing hook no longer waits for the disk for a hint.
 *
 * Format 2: a first line "callus-files 2 NNNNNNNNNN" (ten digits: the byte
 * offset where the sorted part ends), then one workspace-relative path a
 * line, each once: up to that offset sorted (byte order) and looked up by
 * bisection, after it the paths fixes appended since, in their order, a
 * few kilobytes at most before the two parts are merged again: a lookup
 * costs the logarithm of the list, not its length (a monorepo's list is
 * megabytes).  Paths holding a newline are left out.  A list of format 1
 * (all of it searched) is not read: it is written again from the store, as
 * a missing one is.
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

/* The files of the pending errors pending[0..n) (rows of pending_errors
 * that the caller's transaction has just fixed with a resolution or found
 * permanent, or a permanent one that took a new failure's files) added to
 * the index: those not listed yet appended (nothing written when all of
 * them are; an index that cannot be appended to is removed, and rebuilt by
 * its next reader), or the whole index rewritten from the store when there
 * is none to add to (or its last line is cut short).  What a learning
 * transaction calls, holding the store's write lock, with the errors it
 * closed or changed: every such error before is listed already (by its own
 * transaction, or by a rewrite), so a fix costs what it fixed; reading all its check's closed errors made each fix of a long-lived
 * check cost its history, and rewriting the whole list what the list
 * weighs.  The caller keeps pending.  0, or a negative CALLUS_E* code with
 * err set. */
int callus_fileindex_add(callus_store *s, const int64_t *pending, size_t n, callus_error *err);

/* Write the index beside s's database file from s when there is none
 * that callus reads, under the store's write lock (the hook before an
 * edit, which found none).  0, or a negative CALLUS_E* code with err set
 * (the caller removes the index then). */
int callus_fileindex_ensure(callus_store *s, callus_error *err);

/* Remove the index beside s's database file (one that could not be
 * rewritten is wrong): the next lookup rebuilds it. */
void callus_fileindex_remove(callus_store *s);

/* How the index beside s's database file compares with what s holds: of
 * the files of the errors fixed or failing for good (*known), how many it
 * does not list (*unlisted).  Its appends are not synced (a hint the store
 * writes again whole): a power loss may take back its last lines, which
 * `callus doctor` finds with this (the store read first, the index
 * after: a fix appends before it commits).  With fix, under the store's
 * write lock, an index that lacks a file, or none that this reads (every
 * file then unlisted), is written again from s.  0; CALLUS_ENOTFOUND without
 * fix when there is no index this reads (its next reader writes it; the
 * counts as with fix); or another negative CALLUS_E* code; err set on
 * failure. */
int callus_fileindex_check(callus_store *s, int fix, size_t *known, size_t *unlisted,
			   callus_error *err);

/* Whether rel (workspace-relative) is listed in store_dir's index: 1 or 0;
 * CALLUS_ENOTFOUND when there is no readable index (build one with
 * callus_fileindex_write()).  Reads one small file, nothing else. */
int callus_fileindex_lookup(const char *store_dir, const char *rel);

#endif
