/*
 * callus-git.c - the git side of snapshots (include/callus/snapshot.h), as a
 * program of its own so that callus never maps libgit2 and the TLS, SSH and
 * Kerberos libraries it pulls in: src/snapshot.c runs it when a snapshot or
 * a diff is needed, and nothing else does.
 *
 * Protocol (private between src/snapshot.c and this program; both change
 * together): one command, which runs requests in one process, so that a
 * recording that needs a snapshot, a diff and HEAD starts libgit2 once
 * (its start, loading the system's certificates with it, is most of what
 * a request costs):
 *
 *   callus-git batch [--exclude PATH]... [--since NS] WORKSPACE REQUEST...
 *
 * Changes to an excluded PATH (workspace-relative; a trailing '/' names a
 * directory) are left out of snapshots and diffs: the tree has the index's
 * version (callus's own files: src/snapshot.c always excludes .callus/, and
 * the CLI .lessons/ and AGENTS.md, which it rewrites at every failure).
 * --since NS: files modified since (ns since the epoch) are the passing
 * check's products, which diffs leave out.  Each REQUEST is one of:
 *
 *   snapshot COUNT FILE...   (COUNT FILEs follow)
 *	In a git workspace (WORKSPACE inside a repository with a working
 *	directory) the FILEs are ignored and the whole working tree is
 *	written as a tree: the index as it is on disk, plus every change in
 *	the working directory (modified, deleted, type-changed tracked files;
 *	untracked files that are not ignored, at most CALLUS_SNAPSHOT_FILE_MAX
 *	bytes each, and not named as holding secrets: callus_git_secret_file).  Prints
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
 *   diff KIND TREE MAX_BYTES
 *	KIND is git or files, TREE what a snapshot printed.  Builds the tree
 *	of now the way snapshot does (for files: the paths listed in TREE)
 *	and prints the patch from TREE to it, git's format with a/ and b/
 *	prefixes, binary files as "Binary files a/X and b/X differ".  Whole
 *	files' patches, in path order, as long as their total stays within
 *	MAX_BYTES; a file that does not fit is skipped and the ones skipped
 *	are named on a last line "[callus: N more files changed: A, B, ...]".
 *	Prints nothing when nothing changed.
 *
 *   diffto TREE TO MAX_BYTES
 *	As diff git, to TO, the tree of another git snapshot, instead of the
 *	working tree now: for a run delivered late, whose hook kept the tree
 *	it found (src/learn.c).  --since does not apply: a file's time now
 *	says nothing of TO.  When TO is not in the repository (its objects
 *	pruned) the answer is an error whose message begins
 *	"callus-git: no such kept tree" (src/snapshot.c reads it).
 *
 *   head
 *	Prints HEAD's commit, or "-" (unborn branch, not git), and a newline.
 *
 *   prune COUNT TREE...      (COUNT TREEs follow)
 *	The loose objects of WORKSPACE/.callus/snapshots.git (a workspace
 *	without git) that none of the TREEs (what snapshots printed, the ones
 *	still needed) reaches, older than a day, removed; prints how many,
 *	and a newline ("0" without such a repository; none is made).
 *
 *   prunable COUNT TREE...
 *	As prune, counting the objects it would remove and removing none
 *	(callus gc --dry-run).
 *
 * For each request, in order, a header line and what it printed:
 *	ok LEN\n<LEN bytes>       its output
 *	error LEN\n<LEN bytes>    "callus-git: <message>\n": it failed
 *	usage LEN\n<LEN bytes>    the same, the failure being the caller's (a
 *				  refused FILE, a bad MAX_BYTES or TREE)
 * A request's failure does not stop the next ones.
 *
 * Exit status 0 when every request was answered (failed ones included); 1
 * after printing "callus-git: <message>" on stderr (the output could not be
 * written); 2 on a malformed command line, before any request runs.
 *
 * What it never does to the user's repository: write the index (the index
 * file is read into a git_index object that is never written: there is no
 * call to git_index_write in this program, and no diff is asked for
 * GIT_DIFF_UPDATE_INDEX, the one option that would write it), move HEAD,
 * touch refs, the stash, reflogs or the configuration.  Only new objects
 * appear, in .git/objects, as with `git stash create`.
 *
 * This file reads the command line and runs the requests; the tree of a
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

static int print_line(FILE *out, const char *kind, const git_oid *tree, const char *head)
{
	char hex[GIT_OID_HEXSZ + 1];

	git_oid_tostr(hex, sizeof hex, tree);
	fprintf(out, "%s %s %s\n", kind, hex, head);
	return 0;
}

static int cmd_snapshot(FILE *out, callus_git_ws *w, char **files, int nfiles)
{
	git_repository *repo = NULL;
	char head[GIT_OID_HEXSZ + 1];
	char *paths = NULL;
	size_t plen = 0;
	git_oid tree, copies;
	int rc = -1;

	if (callus_git_ws_repo(w, &repo) < 0)
		return -1;
	if (repo) {
		if (callus_git_head_hex(head, repo) < 0 || callus_git_worktree_tree(&tree, w) < 0)
			return -1;
		return print_line(out, "git", &tree, head);
	}
	/* elsewhere the files, copied into the private repository; refused
	 * paths are found before anything is created */
	if (callus_git_path_list(&paths, &plen, files, nfiles) < 0 ||
	    callus_git_open_private(&repo, w->path, 1) < 0 ||
	    callus_git_copies_tree(&copies, repo, w->path, paths, plen) < 0 ||
	    callus_git_wrap_files(&tree, repo, paths, plen, &copies) < 0)
		goto out;
	rc = print_line(out, "files", &tree, "-");
out:
	free(paths);
	git_repository_free(repo);
	return rc;
}

static int cmd_head(FILE *out, callus_git_ws *w)
{
	git_repository *repo = NULL;
	char head[GIT_OID_HEXSZ + 1] = "-";

	if (callus_git_ws_repo(w, &repo) < 0 || (repo && callus_git_head_hex(head, repo) < 0))
		return -1;
	fprintf(out, "%s\n", head);
	return 0;
}

static int usage(void)
{
	fputs("usage: callus-git batch [--exclude PATH]... [--since NS] WORKSPACE REQUEST...\n"
	      "  REQUEST: snapshot COUNT FILE... | diff git|files TREE MAX_BYTES |\n"
	      "           diffto TREE TO MAX_BYTES | head | prune COUNT TREE... |\n"
	      "           prunable COUNT TREE...\n",
	      stderr);
	return EXIT_USAGE;
}

/* How many arguments the request at argv[0] takes, itself included; 0
 * when it is not one. */
static int request_size(char **argv, int left)
{
	char *end = NULL;
	long n;

	if (!strcmp(argv[0], "head"))
		return 1;
	if (!strcmp(argv[0], "diff") || !strcmp(argv[0], "diffto"))
		return left >= 4 ? 4 : 0;
	if ((strcmp(argv[0], "snapshot") && strcmp(argv[0], "prune") &&
	     strcmp(argv[0], "prunable")) ||
	    left < 2)
		return 0;
	errno = 0;
	n = strtol(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n < 0 || n > left - 2)
		return 0;
	return (int)n + 2;
}

/* Run one request, its output (or its failure) framed on stdout. */
static int run_request(callus_git_ws *w, char **argv, int size)
{
	char *text = NULL, *msg = NULL;
	size_t tlen = 0, mlen = 0;
	FILE *out = open_memstream(&text, &tlen);
	FILE *rep = out ? open_memstream(&msg, &mlen) : NULL;
	int rc = -1, usage_err;

	if (!rep) {
		if (out)
			fclose(out);
		free(text);
		return callus_git_fail(0, "out of memory");
	}
	callus_git_report_to(rep);
	if (!strcmp(argv[0], "snapshot"))
		rc = cmd_snapshot(out, w, argv + 2, size - 2);
	else if (!strcmp(argv[0], "prune") || !strcmp(argv[0], "prunable"))
		rc = callus_git_cmd_prune(out, w, argv + 2, size - 2, !strcmp(argv[0], "prune"));
	else if (!strcmp(argv[0], "diff"))
		rc = callus_git_cmd_diff(out, w, argv[1], argv[2], NULL, argv[3]);
	else if (!strcmp(argv[0], "diffto"))
		rc = callus_git_cmd_diff(out, w, "git", argv[1], argv[2], argv[3]);
	else
		rc = cmd_head(out, w);
	usage_err = callus_git_usage_error();
	callus_git_report_to(NULL);
	if (fclose(out) != 0 || fclose(rep) != 0) {
		free(text);
		free(msg);
		return callus_git_fail(0, "out of memory");
	}
	if (rc == 0) {
		printf("ok %zu\n", tlen);
		fwrite(text, 1, tlen, stdout);
	} else {
		printf("%s %zu\n", usage_err ? "usage" : "error", mlen);
		fwrite(msg, 1, mlen, stdout);
	}
	free(text);
	free(msg);
	return 0;
}

int main(int argc, char **argv)
{
	callus_git_ws w = { NULL, NULL, 0, { { 0 } }, 0 };
	int first = 2, nexcludes = 0, i;

	if (argc < 3 || strcmp(argv[1], "batch"))
		return usage();
	/* the --exclude options come first; their paths are packed in place
	 * over them (index 2 + n never passes the one being read) */
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
	/* the whole command line is read before any request runs */
	if (first + 1 >= argc)
		return usage();
	for (i = first + 1; i < argc;) {
		int n = request_size(argv + i, argc - i);

		if (!n)
			return usage();
		i += n;
	}
	/* macOS's sandbox variable makes libgit2 ask NSS for the home
	 * directory (getpwuid_r), which a static glibc cannot promise to
	 * answer (the Makefile): meaningless here, so dropped */
	unsetenv("APP_SANDBOX_CONTAINER_ID");
	if (git_libgit2_init() < 0 || callus_git_offline() < 0)
		return callus_git_fail(1, "cannot initialise libgit2"), 1;
	w.path = argv[first];
	for (i = first + 1; i < argc;) {
		int n = request_size(argv + i, argc - i);

		if (run_request(&w, argv + i, n) < 0)
			break;
		i += n;
	}
	callus_git_ws_release(&w);
	git_libgit2_shutdown();
	if (i < argc)
		return 1;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		callus_git_fail(0, "cannot write the output: %s", strerror(errno));
		return 1;
	}
	return 0;
}
