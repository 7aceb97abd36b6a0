/*
 * callus-git.c - the git side of snapshots (include/callus/snapshot.h), as a
 * program of its own so that callus never maps libgit2 and the TLS, SSH and
 * Kerberos libraries it pulls in: src/snapshot.c runs it when a snapshot or
 * a diff is needed, and nothing else does.
 *
 * Protocol (private between src/snapshot.c and this program; both change
 * together):
 *
 *   callus-git snapshot [--exclude PATH]... WORKSPACE [FILE...]
 *	In a git workspace (WORKSPACE inside a repository with a working
 *	directory) the FILEs are ignored and the whole working tree is
 *	written as a tree: the index as it is on disk, plus every change in
 *	the working directory (modified, deleted, type-changed tracked files;
 *	untracked files that are not ignored, at most CALLUS_SNAPSHOT_FILE_MAX
 *	bytes each).  Changes to an excluded
 *	PATH (workspace-relative; a trailing '/' names a directory) are left
 *	out: the tree has the index's version (callus's own files: src/snapshot.c
 *	always excludes .callus/, and the CLI .lessons/ and AGENTS.md, which it
 *	rewrites at every failure).  Prints
 *	    git <tree> <HEAD commit or ->
 *	Elsewhere the FILEs (workspace-relative; absolute paths, ".." and
 *	".git" are refused) are copied into WORKSPACE/.callus/snapshots.git, a
 *	private bare repository created on first use (mode 0700).  Prints
 *	    files <tree> -
 *	where <tree> holds "paths", the requested paths separated by NULs,
 *	and "files", the tree of those that existed (missing files, other
 *	than regular files and symbolic links, files over the size limit and
 *	paths past CALLUS_SNAPSHOT_FILES_MAX are absent), so that a diff can
 *	see a file that was missing then and exists now.
 *
 *   callus-git diff [--exclude PATH]... WORKSPACE KIND TREE MAX_BYTES
 *	KIND is git or files, TREE what snapshot printed.  Builds the tree of
 *	now the way snapshot did (for files: the paths listed in TREE) and
 *	prints the patch from TREE to it, git's format with a/ and b/
 *	prefixes, binary files as "Binary files a/X and b/X differ".  Whole
 *	files' patches, in path order, as long as their total stays within
 *	MAX_BYTES; a file that does not fit is skipped and the ones skipped
 *	are named on a last line "[callus: N more files changed: A, B, ...]".
 *	Prints nothing when nothing changed.
 *
 *   callus-git head WORKSPACE
 *	Prints HEAD's commit, or "-" (unborn branch, not git).
 *
 * Exit status 0 on success; 1 after printing "callus-git: <message>" on
 * stderr; 2 on a usage error (which includes a refused FILE).
 *
 * What it never does to the user's repository: write the index (the index
 * file is read into a git_index object that is never written: there is no
 * call to git_index_write in this program, and no diff is asked for
 * GIT_DIFF_UPDATE_INDEX, the one option that would write it), move HEAD,
 * touch refs, the stash, reflogs or the configuration.  Only new objects
 * appear, in .git/objects, as with `git stash create`.
 *
 * This file reads the command line and runs the commands; the tree of a
 * git working tree is callus-git-worktree.c, the snapshot of files of a
 * workspace without git callus-git-files.c, the diff callus-git-diff.c,
 * failures, paths and opening callus-git-common.c (all in callus-git.h).
 */
#include <git2.h>

#include "callus-git.h"
#include "callus/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define EXIT_USAGE 2

/* ---- commands ------------------------------------------------------------ */

static int print_line(const char *kind, const git_oid *tree, const char *head)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof hex, tree);
	printf("%s %s %s\n", kind, hex, head);
	return 0;
}

static int cmd_snapshot(const char *workspace, char **files, int nfiles)
{
	git_repository *repo = NULL;
	char head[GIT_OID_HEXSZ + 1];
	char *paths = NULL;
	size_t plen = 0;
	git_oid tree, copies;
	int rc = -1;

	if (callus_git_open(&repo, workspace) < 0)
		goto out;
	if (repo) {
		if (callus_git_head_hex(head, repo) < 0 || callus_git_worktree_tree(&tree, repo, workspace) < 0)
			goto out;
		rc = print_line("git", &tree, head);
		goto out;
	}
	/* Refused paths are found before anything is created. */
	if (callus_git_path_list(&paths, &plen, files, nfiles) < 0 ||
	    callus_git_open_private(&repo, workspace, 1) < 0 ||
	    callus_git_copies_tree(&copies, repo, workspace, paths, plen) < 0 ||
	    callus_git_wrap_files(&tree, repo, paths, plen, &copies) < 0)
		goto out;
	rc = print_line("files", &tree, "-");
out:
	free(paths);
	git_repository_free(repo);
	return rc;
}

static int cmd_head(const char *workspace)
{
	git_repository *repo = NULL;
	char head[GIT_OID_HEXSZ + 1] = "-";
	int rc = -1;

	if (callus_git_open(&repo, workspace) < 0)
		goto out;
	if (repo && callus_git_head_hex(head, repo) < 0)
		goto out;
	printf("%s\n", head);
	rc = 0;
out:
	git_repository_free(repo);
	return rc;
}

static int usage(void)
{
	fputs("usage: callus-git snapshot [--exclude PATH]... WORKSPACE [FILE...]\n"
	      "       callus-git diff [--exclude PATH]... [--since NS] WORKSPACE git|files TREE MAX_BYTES\n"
	      "       callus-git head WORKSPACE\n",
	      stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int rc = -1;

	int first = 2, nexcludes = 0;

	if (argc < 3)
		return usage();
	/* snapshot and diff: the --exclude options come first; their paths
	 * are packed in place over them (index 2 + n never passes the one
	 * being read) */
	if (!strcmp(argv[1], "snapshot") || !strcmp(argv[1], "diff")) {
		while (first + 1 < argc) {
			if (!strcmp(argv[first], "--exclude")) {
				argv[2 + nexcludes++] = argv[first + 1];
			} else if (!strcmp(argv[first], "--since")) {
				char *end = NULL;
				long long ns = strtoll(argv[first + 1], &end, 10);

				if (!end || *end || ns < 0)
					return usage();
				callus_git_set_since(ns);
			} else {
				break;
			}
			first += 2;
		}
		callus_git_set_excludes(argv + 2, nexcludes);
		if (first >= argc)
			return usage();
	}
	if (git_libgit2_init() < 0)
		return callus_git_fail(1, "cannot initialise libgit2"), 1;
	if (!strcmp(argv[1], "snapshot"))
		rc = cmd_snapshot(argv[first], argv + first + 1, argc - first - 1);
	else if (!strcmp(argv[1], "diff") && argc - first == 4)
		rc = callus_git_cmd_diff(argv[first], argv[first + 1], argv[first + 2], argv[first + 3]);
	else if (!strcmp(argv[1], "head") && argc == 3)
		rc = cmd_head(argv[2]);
	else {
		git_libgit2_shutdown();
		return usage();
	}
	git_libgit2_shutdown();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		callus_git_fail(0, "cannot write the output: %s", strerror(errno));
		return 1;
	}
	if (rc < 0)
		return callus_git_usage_error() ? EXIT_USAGE : 1;
	return 0;
}
