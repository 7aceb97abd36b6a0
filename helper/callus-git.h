/*
 * callus-git.h - what the pieces of the snapshot helper (helper/callus-git.c
 * and the helper/callus-git-*.c files it is linked from) share: reporting a
 * failure, paths and repositories, the tree of a git working tree
 * (callus-git-worktree.c), the snapshot of files of a workspace without git
 * (callus-git-files.c) and the diff command (callus-git-diff.c).  Private
 * to the helper: nothing in src/ includes it, and it alone links libgit2.
 */
#ifndef CALLUS_GIT_H
#define CALLUS_GIT_H

#include <git2.h>
#include <stddef.h>
#include <stdio.h>

/* Names inside a "files" snapshot's tree. */
#define FILES_PATHS "paths"
#define FILES_TREE "files"

/* ---- failures (callus-git-common.c) ------------------------------------ */

/* Print "callus-git: <what>[: <libgit2's message>]" and return -1.  Used for
 * libgit2 failures; pass with_git 0 for our own. */
int callus_git_fail(int with_git, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The same for a failure that is the caller's (a refused path, a bad
 * argument): the program then exits 2. */
int callus_git_fail_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Whether a failure so far was the caller's. */
int callus_git_usage_error(void);

/* Failures are told to f from now on (NULL: stderr), and the usage flag
 * starts again: a batch gives each request its own. */
void callus_git_report_to(FILE *f);

/* ---- no network (callus-git-offline.c) -------------------------------- */

/* After git_libgit2_init(): any TLS stream libgit2 asks for is refused with
 * an error.  0, or -1 (libgit2's error set). */
int callus_git_offline(void);

/* ---- paths and repositories (callus-git-common.c) ---------------------- */

/*
 * A FILE as a path the index accepts: "." components and repeated slashes
 * dropped; absolute paths, "..", ".git" and empty paths refused (usage
 * error).  *out is malloc'd.
 */
int callus_git_normalize_path(char **out, const char *in);

/*
 * Is path (any prefix of directories) named as a file that holds secrets:
 * .env, .env.NAME (not .env.example, .sample, .template, .dist) and
 * direnv's .envrc, keys
 * and keystores (*.pem, *.key, *.p12, *.pfx, *.jks, *.keystore, id_rsa and
 * its kin without .pub), credential files (.netrc, .npmrc, .pypirc,
 * .pgpass, .git-credentials, .htpasswd, credentials, credentials.json),
 * Terraform's *.tfvars?  Such a file is never copied into a snapshot unless
 * git already tracks it: its blob would stay in the object database, with
 * the secret unredacted, long after the run (docs/redaction.md).
 */
int callus_git_secret_file(const char *path);

/* The workspace's path relative to the repository's working directory, with
 * a trailing slash ("" when they are the same); NULL when the workspace is
 * not inside it.  Caller frees. */
char *callus_git_workspace_prefix(const char *workdir, const char *workspace);


/* HEAD's commit as hex, or "-" when the branch is unborn. */
int callus_git_head_hex(char out[GIT_OID_HEXSZ + 1], git_repository *repo);

/*
 * The workspace of a run, as its requests share it (a run is one moment):
 * its repository opened once, and the tree of its working tree made once
 * (callus-git-worktree.c).  callus_git_ws_repo: *repo NULL outside a git
 * working tree; -1 after reporting a failure, which the next request tries
 * again.  The handle owns what it opened.
 */
typedef struct callus_git_ws {
	const char *path;      /* absolute; borrowed */
	git_repository *repo;
	int opened;
	git_oid now;
	int have_now;
} callus_git_ws;

int callus_git_ws_repo(callus_git_ws *w, git_repository **repo);
void callus_git_ws_release(callus_git_ws *w);

/* ---- git workspaces (callus-git-worktree.c) ---------------------------- */

/* The --exclude paths, as given (workspace-relative).  Set once by main()
 * before any work: this program runs one command and exits. */
void callus_git_set_excludes(char **paths, int n);

/* Whether path (relative to the repository, whose workspace is at
 * ws_prefix in it: NULL or "" for its root, or relative to the workspace)
 * is one of the --exclude paths, or a temporary file callus writes beside
 * an excluded file to rename over it (src/fsutil.c's
 * ".NAME.callus-PID-NS-N.tmp"). */
int callus_git_excluded(const char *path, const char *ws_prefix);

/* The tree of the working tree of w's repository: the index as it is on
 * disk plus every change in the working directory, the excluded paths as
 * the index has them.  The index is never written.  Made once a run:
 * later calls give the same tree. */
int callus_git_worktree_tree(git_oid *out, callus_git_ws *w);

/* ---- diffs (callus-git-diff.c) ------------------------------------------ */

/* --since: files modified at or after this time (ns since the epoch) were
 * written by the passing check itself (build products), not by its fix:
 * diffs leave them out.  0 (the default): unknown.  Set once by main(). */
void callus_git_set_since(long long ns);

/* ---- workspaces without git (callus-git-files.c) ----------------------- */

/* The private repository's loose objects that none of the ntrees trees
 * (40 hex digits each) reaches and that are older than a day, removed
 * (only counted when remove is 0: a dry run's); prints how many ("N\n";
 * "0\n" when there is no such repository).
 * callus-git-prune.c. */
int callus_git_cmd_prune(FILE *out, callus_git_ws *w, char **trees, int ntrees, int remove);

/* WORKSPACE/.callus/snapshots.git, created (bare, private) when missing and
 * create is set. */
int callus_git_open_private(git_repository **out, const char *workspace, int create);

/* The tree of the files among paths (NUL-separated, plen bytes) as they are
 * in the workspace now. */
int callus_git_copies_tree(git_oid *out, git_repository *repo, const char *workspace,
			   const char *paths, size_t plen);

/* The FILE arguments, normalized, duplicates dropped, at most
 * CALLUS_SNAPSHOT_FILES_MAX, as one NUL-separated string. */
int callus_git_path_list(char **out, size_t *out_len, char **files, int nfiles);

/* { paths: <blob>, files: <tree> }: the snapshot of a workspace without
 * git. */
int callus_git_wrap_files(git_oid *out, git_repository *repo, const char *paths, size_t plen,
			  const git_oid *files);

/* ---- commands ---------------------------------------------------------- */

/* A batch's diff request (callus-git-diff.c): the patch to out, from the
 * snapshot tree_hex to the working tree now, or to the kept git snapshot
 * to_hex when not NULL (kind is then "git"). */
int callus_git_cmd_diff(FILE *out, callus_git_ws *w, const char *kind, const char *tree_hex,
			const char *to_hex, const char *max_arg);

#endif
