/*
 * tmpdir_helpers.h - a unit test's scratch folder: made under /tmp for a
 * fixture's setup, removed whole at its teardown, and what its file system
 * can do.
 */
#ifndef CALLUS_TEST_TMPDIR_HELPERS_H
#define CALLUS_TEST_TMPDIR_HELPERS_H

#include <stddef.h>

/* A new private folder /tmp/callus-NAME-XXXXXX, its path into dir (n
 * bytes).  0, or -1. */
int test_tmpdir_make(char *dir, size_t n, const char *name);

/* dir and everything under it removed, links not followed. */
void test_tmpdir_remove(const char *dir);

/* Whether dir's file system renames with RENAME_NOREPLACE (the spares of
 * fsutil.h are reused only where it does; NFS, say, does not). */
int test_tmpdir_noreplace(const char *dir);

#endif
