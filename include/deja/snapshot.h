/*
 * snapshot.h - the working tree as it was when a check failed, and the
 * diff from it to the working tree now (DESIGN §4).
 *
 * The git work is done by a helper program, deja-git (helper/deja-git.c),
 * run as a child process: libgit2 and the libraries it loads (TLS, SSH,
 * Kerberos) would otherwise be mapped and relocated at every start of
 * deja, and the hook runs after every shell command an agent executes.
 * The helper is only started when a snapshot or a diff is needed.
 *
 * In a git workspace a snapshot is a tree object of the working tree as it
 * is: tracked files with their changes, and untracked files that are not
 * ignored (untracked files larger than DEJA_SNAPSHOT_FILE_MAX are left
 * out).  It is built from an in-memory copy of the index; the user's
 * index, HEAD, branches, stash and files are never written.  The blobs and
 * trees go to the repository's object database, like `git stash create`.
 *
 * Elsewhere a snapshot is a tree of copies of the named files (at most
 * DEJA_SNAPSHOT_FILES_MAX files of at most DEJA_SNAPSHOT_FILE_MAX bytes),
 * kept in a private repository, <workspace>/.deja/snapshots.git.
 */
#ifndef DEJA_SNAPSHOT_H
#define DEJA_SNAPSHOT_H

#include <stddef.h>

#include "deja/common.h"
#include "deja/strlist.h"

#define DEJA_SNAPSHOT_FILE_MAX (1u << 20)
#define DEJA_SNAPSHOT_FILES_MAX 64

typedef enum deja_snapshot_kind {
	DEJA_SNAPSHOT_GIT,   /* a tree in the workspace's own repository */
	DEJA_SNAPSHOT_FILES  /* copies of files in .deja/snapshots.git */
} deja_snapshot_kind;

typedef struct deja_snapshot {
	deja_snapshot_kind kind;
	char *tree;   /* 40 hex digits; owned */
	char *commit; /* HEAD's commit then, 40 hex digits, or "" (unborn
		       * branch, not git); owned */
} deja_snapshot;

#define DEJA_SNAPSHOT_INIT { DEJA_SNAPSHOT_GIT, NULL, NULL }

/* How to reach the helper.  Borrowed strings. */
typedef struct deja_snapshot_opts {
	const char *helper;  /* path of deja-git; NULL: deja_snapshot_helper() */
	int timeout_ms;      /* the helper is killed past this; <= 0: 10000 */
	const char *const *exclude; /* NULL-terminated workspace-relative paths
				     * (a trailing '/' for a directory) whose
				     * changes snapshots and diffs leave out,
				     * besides .deja/, always left out; may be
				     * NULL */
} deja_snapshot_opts;

/*
 * The helper's path: $DEJA_GIT_HELPER when set, else deja-git in the
 * directory of the running executable.  Caller frees; NULL when out of
 * memory or the executable's path is unknown.
 */
char *deja_snapshot_helper(void);

/*
 * Snapshot the workspace (absolute path).  files (workspace-relative, may
 * be NULL) are what a workspace without git copies.  DEJA_ENOTFOUND when
 * the helper is missing; DEJA_EIO when it fails or times out (err says
 * what it printed).  The caller releases *out.
 */
int deja_snapshot_take(deja_snapshot *out, const char *workspace, const deja_strlist *files,
		       const deja_snapshot_opts *opts, deja_error *err);

/*
 * The unified diff (git's format, a/ and b/ prefixes, binary files as
 * "Binary files a/X and b/X differ") from snap to the working tree now:
 * in a git workspace every change, including new untracked files; without
 * git, the changes to the snapshot's files.  At most max_bytes: whole
 * files' patches while they fit, then a last line
 * "[deja: N more files changed: A, B, ...]".  "" when nothing changed.
 * The caller frees *patch.
 */
int deja_snapshot_diff(char **patch, const char *workspace, const deja_snapshot *snap,
		       size_t max_bytes, const deja_snapshot_opts *opts, deja_error *err);

/* The workspace's HEAD commit now (40 hex digits), or "" when there is
 * none.  The caller frees *commit. */
int deja_snapshot_head(char **commit, const char *workspace, const deja_snapshot_opts *opts,
		       deja_error *err);

/* "git" / "files", and back (DEJA_EINVAL for anything else). */
const char *deja_snapshot_kind_name(deja_snapshot_kind k);
int deja_snapshot_kind_parse(deja_snapshot_kind *out, const char *name);

void deja_snapshot_release(deja_snapshot *s); /* accepts NULL */

#endif
