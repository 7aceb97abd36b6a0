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
 */
#include <git2.h>
#include <git2/sys/repository.h>

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

/* The list of files that did not fit in MAX_BYTES stops growing past this
 * many bytes of names. */
#define MORE_LIST_MAX 512

/* Names inside a "files" snapshot's tree. */
#define FILES_PATHS "paths"
#define FILES_TREE "files"

/* The private repository of a workspace without git. */
#define PRIVATE_DIR ".callus"
#define PRIVATE_REPO ".callus/snapshots.git"

static int usage_error; /* set when the failure is the caller's: exit 2 */

/* The --exclude paths, as given (workspace-relative).  Set once by main()
 * before any work: this program runs one command and exits. */
static char **excludes;
static int nexcludes;

/* Print "callus-git: <what>[: <libgit2's message>]" and return -1.  Used for
 * libgit2 failures; pass with_git 0 for our own. */
static int fail(int with_git, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(int with_git, const char *fmt, ...)
{
	const git_error *e = with_git ? git_error_last() : NULL;
	va_list ap;

	fputs("callus-git: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (e && e->message)
		fprintf(stderr, ": %s", e->message);
	fputc('\n', stderr);
	return -1;
}

/* ---- paths ------------------------------------------------------------ */

/*
 * A FILE as a path the index accepts: "." components and repeated slashes
 * dropped; absolute paths, "..", ".git" and empty paths refused (usage
 * error).  *out is malloc'd.
 */
static int normalize_path(char **out, const char *in)
{
	size_t n = strlen(in), len = 0;
	const char *p = in;
	char *res = NULL;

	*out = NULL;
	if (in[0] == '/')
		goto bad;
	res = malloc(n + 1);
	if (!res)
		return fail(0, "out of memory");
	while (*p) {
		const char *end = strchr(p, '/');
		size_t clen = end ? (size_t)(end - p) : strlen(p);

		if (clen == 0 || (clen == 1 && p[0] == '.')) {
			/* nothing: "a//b", "./a" */
		} else if ((clen == 2 && !memcmp(p, "..", 2)) ||
			   (clen == 4 && !strncasecmp(p, ".git", 4))) {
			goto bad;
		} else {
			if (len)
				res[len++] = '/';
			memcpy(res + len, p, clen);
			len += clen;
		}
		p += clen;
		if (*p == '/')
			p++;
	}
	if (!len)
		goto bad;
	res[len] = '\0';
	*out = res;
	return 0;
bad:
	free(res);
	usage_error = 1;
	return fail(0, "refusing path '%s': not inside the workspace", in);
}

/* The workspace's path relative to the repository's working directory, with
 * a trailing slash ("" when they are the same); NULL when the workspace is
 * not inside it.  Caller frees. */
static char *workspace_prefix(const char *workdir, const char *workspace)
{
	char *wd = realpath(workdir, NULL);
	char *ws = realpath(workspace, NULL);
	char *res = NULL;
	size_t n;

	if (!wd || !ws)
		goto out;
	n = strlen(wd);
	while (n > 1 && wd[n - 1] == '/')
		n--;
	if (strncmp(ws, wd, n) != 0 || (ws[n] != '\0' && ws[n] != '/'))
		goto out;
	if (ws[n] == '\0') {
		res = strdup("");
	} else {
		size_t rlen = strlen(ws + n + 1);

		res = malloc(rlen + 2);
		if (res) {
			memcpy(res, ws + n + 1, rlen);
			res[rlen] = '/';
			res[rlen + 1] = '\0';
		}
	}
out:
	free(wd);
	free(ws);
	return res;
}

/* ---- opening ----------------------------------------------------------- */

/* The repository with a working directory that holds workspace, or NULL
 * in *out when there is none (then the workspace is "files"). */
static int open_git(git_repository **out, const char *workspace)
{
	git_repository *repo = NULL;
	int rc = git_repository_open_ext(&repo, workspace, 0, NULL);

	*out = NULL;
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0)
		return fail(1, "cannot open the repository of '%s'", workspace);
	if (git_repository_is_bare(repo) || !git_repository_workdir(repo)) {
		git_repository_free(repo);
		return 0;
	}
	*out = repo;
	return 0;
}

/* HEAD's commit as hex, or "-" when the branch is unborn. */
static int head_hex(char out[GIT_OID_HEXSZ + 1], git_repository *repo)
{
	git_oid oid;
	int rc = git_reference_name_to_id(&oid, repo, "HEAD");

	if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) {
		git_error_clear();
		out[0] = '-';
		out[1] = '\0';
		return 0;
	}
	if (rc < 0)
		return fail(1, "cannot resolve HEAD");
	git_oid_tostr(out, GIT_OID_HEXSZ + 1, &oid);
	return 0;
}

/* ---- git workspaces ----------------------------------------------------- */

/* Is path a regular file or a symbolic link that may go into a snapshot as
 * an untracked file? */
/* Is path (repository-relative) one of the --exclude paths, under the
 * workspace's prefix in the repository? */
static int excluded(const char *path, const char *ws_prefix)
{
	size_t pl = ws_prefix ? strlen(ws_prefix) : 0;

	if (pl && strncmp(path, ws_prefix, pl))
		return 0;
	path += pl;
	for (int i = 0; i < nexcludes; i++) {
		size_t el = strlen(excludes[i]);

		if (el && excludes[i][el - 1] == '/' ? !strncmp(path, excludes[i], el)
						      : !strcmp(path, excludes[i]))
			return 1;
	}
	return 0;
}

static int untracked_wanted(const char *workdir, const char *path)
{
	char full[PATH_MAX];
	struct stat st;
	int n = snprintf(full, sizeof full, "%s%s", workdir, path);
	if (n < 0 || (size_t)n >= sizeof full)
		return 0;
	if (lstat(full, &st) < 0)
		return 0;
	if (S_ISLNK(st.st_mode))
		return 1;
	return S_ISREG(st.st_mode) && (unsigned long long)st.st_size <= CALLUS_SNAPSHOT_FILE_MAX;
}

/* Does the working directory hold path as a file or a symbolic link now? */
static int in_workdir(const char *workdir, const char *path)
{
	char full[PATH_MAX];
	struct stat st;
	int n = snprintf(full, sizeof full, "%s%s", workdir, path);

	if (n < 0 || (size_t)n >= sizeof full)
		return 0;
	return lstat(full, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
}

/*
 * Put the working directory's version of path into the index, or take path
 * out when the working directory no longer has it.  A file that cannot be
 * read (it vanished between the diff and now, or is unreadable) keeps what
 * the index had: a snapshot is best effort, not a reason to fail.
 */
static int take_path(git_index *index, const char *workdir, const char *path)
{
	if (!in_workdir(workdir, path)) {
		if (git_index_remove_bypath(index, path) < 0)
			return fail(1, "cannot drop '%s' from the snapshot", path);
		return 0;
	}
	if (git_index_add_bypath(index, path) < 0)
		git_error_clear();
	return 0;
}

/* Conflicted paths (a merge in progress) become the working directory's
 * version: a tree cannot hold conflict stages. */
static int resolve_conflicts(git_index *index, const char *workdir)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *anc, *ours, *theirs;
	char **paths = NULL;
	size_t n = 0, cap = 0, i;
	int rc = -1, r;

	if (!git_index_has_conflicts(index))
		return 0;
	if (git_index_conflict_iterator_new(&it, index) < 0) {
		fail(1, "cannot read the index's conflicts");
		goto out;
	}
	/* Collected first: changing the index under the iterator is not
	 * allowed. */
	while ((r = git_index_conflict_next(&anc, &ours, &theirs, it)) == 0) {
		const git_index_entry *e = ours ? ours : theirs ? theirs : anc;

		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 16;
			char **np = realloc(paths, ncap * sizeof *np);

			if (!np) {
				fail(0, "out of memory");
				goto out;
			}
			paths = np;
			cap = ncap;
		}
		if (!(paths[n] = strdup(e->path))) {
			fail(0, "out of memory");
			goto out;
		}
		n++;
	}
	if (r != GIT_ITEROVER) {
		fail(1, "cannot read the index's conflicts");
		goto out;
	}
	for (i = 0; i < n; i++)
		if (take_path(index, workdir, paths[i]) < 0)
			goto out;
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
	git_index_conflict_iterator_free(it);
	return rc;
}

/* The changes to make to the index's tree, for git_tree_create_updated. */
struct updates {
	git_tree_update *v;
	size_t n, cap;
	int give_up; /* a change it does not support (a file became a
		      * directory or the reverse): write the whole index */
};

static int updates_add(struct updates *u, const git_index *index, const char *path)
{
	const git_index_entry *e = git_index_get_bypath((git_index *)index, path, 0);
	git_tree_update *t;

	if (u->n == u->cap) {
		size_t ncap = u->cap ? u->cap * 2 : 16;
		git_tree_update *nv = realloc(u->v, ncap * sizeof *nv);

		if (!nv)
			return fail(0, "out of memory");
		u->v = nv;
		u->cap = ncap;
	}
	t = &u->v[u->n++];
	memset(t, 0, sizeof *t);
	t->path = path;
	if (e) {
		t->action = GIT_TREE_UPDATE_UPSERT;
		git_oid_cpy(&t->id, &e->id);
		t->filemode = (git_filemode_t)e->mode;
	} else {
		t->action = GIT_TREE_UPDATE_REMOVE;
	}
	return 0;
}

/* Take one change of the working tree into the index, and note it in u. */
static int apply_delta(git_index *index, const char *workdir, const git_diff_delta *d,
		       const char *ws_prefix, struct updates *u)
{
	const char *path = d->new_file.path ? d->new_file.path : d->old_file.path;

	if (excluded(path, ws_prefix))
		return 0;

	switch (d->status) {
	case GIT_DELTA_UNTRACKED:
		/* Directories here are nested repositories (gitlinks to be)
		 * and unreadable directories: left out, as the index has them. */
		if (!untracked_wanted(workdir, path))
			return 0;
		if (take_path(index, workdir, path) < 0)
			return -1;
		/* Gone meanwhile: nothing to remove from the tree either. */
		if (!git_index_get_bypath(index, path, 0))
			return 0;
		return updates_add(u, index, path);
	case GIT_DELTA_TYPECHANGE:
		u->give_up = 1;
		/* fall through */
	case GIT_DELTA_MODIFIED:
	case GIT_DELTA_DELETED:
	case GIT_DELTA_CONFLICTED:
		if (d->old_file.mode == GIT_FILEMODE_COMMIT)
			return 0;
		if (take_path(index, workdir, path) < 0)
			return -1;
		return updates_add(u, index, path);
	default:
		return 0;
	}
}

/* Can git_tree_create_updated apply u to base?  Not when a path changes
 * between file and directory, which it does not support. */
static int updates_supported(git_tree *base, const struct updates *u)
{
	size_t i;

	if (u->give_up)
		return 0;
	for (i = 0; i < u->n; i++) {
		const char *path = u->v[i].path, *slash;
		git_tree_entry *e = NULL;

		if (u->v[i].action != GIT_TREE_UPDATE_UPSERT)
			continue;
		if (git_tree_entry_bypath(&e, base, path) == 0) {
			int is_tree = git_tree_entry_type(e) == GIT_OBJECT_TREE;

			git_tree_entry_free(e);
			if (is_tree)
				return 0;
			continue;
		}
		git_error_clear();
		/* New here: no parent directory may be a file in base. */
		for (slash = strchr(path, '/'); slash; slash = strchr(slash + 1, '/')) {
			char *parent = strndup(path, (size_t)(slash - path));
			int r;

			if (!parent)
				return 0;
			r = git_tree_entry_bypath(&e, base, parent);
			free(parent);
			if (r < 0) {
				git_error_clear();
				break; /* a new directory: so are those below */
			}
			r = git_tree_entry_type(e) == GIT_OBJECT_TREE;
			git_tree_entry_free(e);
			if (!r)
				return 0;
		}
	}
	return 1;
}

/*
 * The tree of the working directory as it is now.  The index file is read
 * into a git_index that is never written (see the top of this file) and
 * made the repository's index so that add_bypath uses it; the diff from it
 * to the working directory uses its stat data, so only files whose stat
 * data changed are read and hashed, as `git status` does.
 *
 * The tree is the index's tree (from the index's tree cache, nothing to
 * write when the index matches a commit) with the working tree's changes
 * applied by git_tree_create_updated, which rewrites only the directories
 * on the changed paths: writing the modified index instead costs a read
 * of every tree of the repository to refill its cache (20 ms on 50,000
 * files).
 */
static int worktree_tree(git_oid *out, git_repository *repo, const char *workspace)
{
	git_buf index_path = GIT_BUF_INIT;
	git_index *index = NULL;
	git_diff *diff = NULL;
	git_tree *base = NULL;
	git_diff_options opts;
	struct updates u = { NULL, 0, 0, 0 };
	const char *workdir = git_repository_workdir(repo);
	char *prefix = NULL;
	git_oid base_id;
	size_t i, n;
	int rc = -1;

	if (git_repository_item_path(&index_path, repo, GIT_REPOSITORY_ITEM_INDEX) < 0) {
		fail(1, "cannot find the index");
		goto out;
	}
	if (git_index_open(&index, index_path.ptr) < 0) {
		fail(1, "cannot read the index '%s'", index_path.ptr);
		goto out;
	}
	if (git_repository_set_index(repo, index) < 0) {
		fail(1, "cannot use the index");
		goto out;
	}
	/* the --exclude paths are workspace-relative */
	prefix = workspace_prefix(workdir, workspace);
	if (resolve_conflicts(index, workdir) < 0)
		goto out;
	if (git_index_write_tree_to(&base_id, index, repo) < 0) {
		fail(1, "cannot write the index's tree");
		goto out;
	}

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		     GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_IGNORE_SUBMODULES |
		     GIT_DIFF_SKIP_BINARY_CHECK;
	opts.ignore_submodules = GIT_SUBMODULE_IGNORE_ALL;
	if (git_diff_index_to_workdir(&diff, repo, index, &opts) < 0) {
		fail(1, "cannot compare the index with the working tree");
		goto out;
	}
	n = git_diff_num_deltas(diff);
	for (i = 0; i < n; i++)
		if (apply_delta(index, workdir, git_diff_get_delta(diff, i), prefix, &u) < 0)
			goto out;
	if (u.n == 0) {
		git_oid_cpy(out, &base_id);
		rc = 0;
		goto out;
	}
	if (git_tree_lookup(&base, repo, &base_id) < 0) {
		fail(1, "cannot read the index's tree");
		goto out;
	}
	if (updates_supported(base, &u) &&
	    git_tree_create_updated(out, repo, base, u.n, u.v) == 0) {
		rc = 0;
		goto out;
	}
	git_error_clear();
	if (git_index_write_tree_to(out, index, repo) < 0) {
		fail(1, "cannot write the snapshot's tree");
		goto out;
	}
	rc = 0;
out:
	free(u.v);
	free(prefix);
	git_tree_free(base);
	git_diff_free(diff);
	git_index_free(index);
	git_buf_dispose(&index_path);
	return rc;
}

/* ---- workspaces without git ------------------------------------------- */

/* WORKSPACE/.callus/snapshots.git, created (bare, private) when missing and
 * create is set. */
static int open_private(git_repository **out, const char *workspace, int create)
{
	git_repository_init_options init;
	char dir[PATH_MAX], repo_dir[PATH_MAX];
	int rc;

	*out = NULL;
	if ((size_t)snprintf(dir, sizeof dir, "%s/%s", workspace, PRIVATE_DIR) >= sizeof dir ||
	    (size_t)snprintf(repo_dir, sizeof repo_dir, "%s/%s", workspace, PRIVATE_REPO) >=
		    sizeof repo_dir)
		return fail(0, "workspace path too long");
	rc = git_repository_open_bare(out, repo_dir);
	if (rc == 0)
		return 0;
	if (rc != GIT_ENOTFOUND || !create)
		return fail(1, "cannot open '%s'", repo_dir);
	git_error_clear();
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return fail(0, "cannot create '%s': %s", dir, strerror(errno));
	/* Made here rather than by libgit2 so it is 0700 from the start: the
	 * copies may hold anything the workspace holds. */
	if (mkdir(repo_dir, 0700) < 0 && errno != EEXIST)
		return fail(0, "cannot create '%s': %s", repo_dir, strerror(errno));
	git_repository_init_options_init(&init, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	init.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_NO_REINIT;
	rc = git_repository_init_ext(out, repo_dir, &init);
	if (rc == GIT_EEXISTS) {
		/* Another callus made it meanwhile. */
		git_error_clear();
		rc = git_repository_open_bare(out, repo_dir);
	}
	if (rc < 0)
		return fail(1, "cannot create '%s'", repo_dir);
	return 0;
}

/* The contents of a regular file of at most CALLUS_SNAPSHOT_FILE_MAX bytes;
 * 1 when it is not such a file now (it will be absent from the tree). */
static int read_small_file(char **data, size_t *len, const char *full)
{
	struct stat st;
	char *buf = NULL;
	size_t got = 0;
	int fd, rc = 1;

	*data = NULL;
	*len = 0;
	/* O_NONBLOCK: a FIFO swapped in after lstat must not hang us. */
	fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (unsigned long long)st.st_size > CALLUS_SNAPSHOT_FILE_MAX)
		goto out;
	/* One byte more than the limit tells a file that grew past it. */
	buf = malloc(CALLUS_SNAPSHOT_FILE_MAX + 1);
	if (!buf) {
		rc = fail(0, "out of memory");
		goto out;
	}
	for (;;) {
		ssize_t r = read(fd, buf + got, CALLUS_SNAPSHOT_FILE_MAX + 1 - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			goto out;
		if (r == 0)
			break;
		got += (size_t)r;
		if (got > CALLUS_SNAPSHOT_FILE_MAX)
			goto out;
	}
	*data = buf;
	*len = got;
	buf = NULL;
	rc = 0;
out:
	free(buf);
	close(fd);
	return rc;
}

/* Add workspace/path to index as a blob, if it is a regular file (within
 * the limit) or a symbolic link; otherwise leave it out. */
static int add_copy(git_index *index, git_repository *repo, const char *workspace,
		    const char *path)
{
	git_index_entry entry;
	struct stat st;
	char full[PATH_MAX];
	char *data = NULL;
	size_t len = 0;
	int rc = -1, r;

	if ((size_t)snprintf(full, sizeof full, "%s/%s", workspace, path) >= sizeof full)
		return 0;
	if (lstat(full, &st) < 0)
		return 0;
	memset(&entry, 0, sizeof entry);
	if (S_ISLNK(st.st_mode)) {
		ssize_t n;

		data = malloc(PATH_MAX);
		if (!data)
			return fail(0, "out of memory");
		n = readlink(full, data, PATH_MAX);
		if (n < 0 || n >= PATH_MAX) {
			rc = 0;
			goto out;
		}
		len = (size_t)n;
		entry.mode = GIT_FILEMODE_LINK;
	} else if (S_ISREG(st.st_mode)) {
		r = read_small_file(&data, &len, full);
		if (r != 0) {
			rc = r > 0 ? 0 : -1;
			goto out;
		}
		entry.mode = (st.st_mode & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	} else {
		return 0;
	}
	if (git_blob_create_from_buffer(&entry.id, repo, data, len) < 0) {
		fail(1, "cannot store '%s'", path);
		goto out;
	}
	entry.path = path;
	entry.file_size = (uint32_t)len;
	if (git_index_add(index, &entry) < 0) {
		fail(1, "cannot add '%s'", path);
		goto out;
	}
	rc = 0;
out:
	free(data);
	return rc;
}

/* The tree of the files among paths (NUL-separated, plen bytes) as they are
 * in the workspace now. */
static int copies_tree(git_oid *out, git_repository *repo, const char *workspace,
		       const char *paths, size_t plen)
{
	git_index *index = NULL;
	size_t off = 0;
	int rc = -1;

	if (git_index_new(&index) < 0) {
		fail(1, "cannot make an index");
		goto out;
	}
	while (off < plen) {
		const char *p = paths + off;

		off += strlen(p) + 1;
		if (add_copy(index, repo, workspace, p) < 0)
			goto out;
	}
	if (git_index_write_tree_to(out, index, repo) < 0) {
		fail(1, "cannot write the snapshot's tree");
		goto out;
	}
	rc = 0;
out:
	git_index_free(index);
	return rc;
}

/* The FILE arguments, normalized, duplicates dropped, at most
 * CALLUS_SNAPSHOT_FILES_MAX, as one NUL-separated string. */
static int path_list(char **out, size_t *out_len, char **files, int nfiles)
{
	char *list = NULL, *norm = NULL;
	size_t len = 0, cap = 0, kept = 0;
	int i, rc = -1;

	for (i = 0; i < nfiles; i++) {
		size_t off = 0, n;
		int dup = 0;

		if (normalize_path(&norm, files[i]) < 0)
			goto out;
		n = strlen(norm) + 1;
		while (off < len && !dup) {
			dup = !strcmp(list + off, norm);
			off += strlen(list + off) + 1;
		}
		if (!dup && kept < CALLUS_SNAPSHOT_FILES_MAX) {
			if (len + n > cap) {
				size_t ncap = (len + n) * 2;
				char *nl = realloc(list, ncap);

				if (!nl) {
					fail(0, "out of memory");
					goto out;
				}
				list = nl;
				cap = ncap;
			}
			memcpy(list + len, norm, n);
			len += n;
			kept++;
		}
		free(norm);
		norm = NULL;
	}
	*out = list;
	*out_len = len;
	list = NULL;
	rc = 0;
out:
	free(norm);
	free(list);
	return rc;
}

/* { paths: <blob>, files: <tree> }: the snapshot of a workspace without
 * git. */
static int wrap_files(git_oid *out, git_repository *repo, const char *paths, size_t plen,
		      const git_oid *files)
{
	git_treebuilder *tb = NULL;
	git_oid blob;
	int rc = -1;

	if (git_blob_create_from_buffer(&blob, repo, paths, plen) < 0 ||
	    git_treebuilder_new(&tb, repo, NULL) < 0 ||
	    git_treebuilder_insert(NULL, tb, FILES_PATHS, &blob, GIT_FILEMODE_BLOB) < 0 ||
	    git_treebuilder_insert(NULL, tb, FILES_TREE, files, GIT_FILEMODE_TREE) < 0 ||
	    git_treebuilder_write(out, tb) < 0) {
		fail(1, "cannot write the snapshot's tree");
		goto out;
	}
	rc = 0;
out:
	git_treebuilder_free(tb);
	return rc;
}

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

	if (open_git(&repo, workspace) < 0)
		goto out;
	if (repo) {
		if (head_hex(head, repo) < 0 || worktree_tree(&tree, repo, workspace) < 0)
			goto out;
		rc = print_line("git", &tree, head);
		goto out;
	}
	/* Refused paths are found before anything is created. */
	if (path_list(&paths, &plen, files, nfiles) < 0 ||
	    open_private(&repo, workspace, 1) < 0 ||
	    copies_tree(&copies, repo, workspace, paths, plen) < 0 ||
	    wrap_files(&tree, repo, paths, plen, &copies) < 0)
		goto out;
	rc = print_line("files", &tree, "-");
out:
	free(paths);
	git_repository_free(repo);
	return rc;
}

static int parse_oid(git_oid *out, const char *hex)
{
	if (strlen(hex) != GIT_OID_HEXSZ || strspn(hex, "0123456789abcdef") != GIT_OID_HEXSZ ||
	    git_oid_fromstr(out, hex) < 0) {
		usage_error = 1;
		return fail(0, "not an object id: '%s'", hex);
	}
	return 0;
}

/* For a "files" snapshot: the old tree of copies, the list of paths, and
 * the tree of the same paths now. */
static int files_trees(git_tree **old_tree, git_tree **new_tree, git_repository *repo,
		       const char *workspace, const git_oid *snap)
{
	git_tree *wrap = NULL;
	git_blob *paths = NULL;
	const git_tree_entry *pe, *fe;
	git_oid now;
	int rc = -1;

	if (git_tree_lookup(&wrap, repo, snap) < 0) {
		fail(1, "no such snapshot");
		goto out;
	}
	pe = git_tree_entry_byname(wrap, FILES_PATHS);
	fe = git_tree_entry_byname(wrap, FILES_TREE);
	if (!pe || !fe || git_tree_entry_type(pe) != GIT_OBJECT_BLOB ||
	    git_tree_entry_type(fe) != GIT_OBJECT_TREE) {
		fail(0, "not a snapshot of files");
		goto out;
	}
	if (git_blob_lookup(&paths, repo, git_tree_entry_id(pe)) < 0 ||
	    git_tree_lookup(old_tree, repo, git_tree_entry_id(fe)) < 0) {
		fail(1, "cannot read the snapshot");
		goto out;
	}
	if (copies_tree(&now, repo, workspace, git_blob_rawcontent(paths),
			(size_t)git_blob_rawsize(paths)) < 0)
		goto out;
	if (git_tree_lookup(new_tree, repo, &now) < 0) {
		fail(1, "cannot read the tree of now");
		goto out;
	}
	rc = 0;
out:
	git_blob_free(paths);
	git_tree_free(wrap);
	return rc;
}

/* Paths, for a diff's pathspec. */
struct paths {
	char **v;
	size_t n, cap;
};

static void paths_release(struct paths *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
}

static int paths_add(struct paths *p, const char *prefix, const char *name)
{
	size_t plen = strlen(prefix), nlen = strlen(name);
	char *s;

	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 16;
		char **nv = realloc(p->v, ncap * sizeof *nv);

		if (!nv)
			return fail(0, "out of memory");
		p->v = nv;
		p->cap = ncap;
	}
	if (!(s = malloc(plen + nlen + 1)))
		return fail(0, "out of memory");
	memcpy(s, prefix, plen);
	memcpy(s + plen, name, nlen + 1);
	p->v[p->n++] = s;
	return 0;
}

static int same_entry(const git_tree_entry *a, const git_tree_entry *b)
{
	return git_tree_entry_filemode_raw(a) == git_tree_entry_filemode_raw(b) &&
	       git_oid_equal(git_tree_entry_id(a), git_tree_entry_id(b));
}

static int changed_paths(struct paths *out, git_repository *repo, git_tree *a, git_tree *b,
			 const char *prefix);

/* Two entries of the same name that differ: recurse into two trees, else
 * name the path (a directory path covers all below it). */
static int changed_entry(struct paths *out, git_repository *repo, const git_tree_entry *ea,
			 const git_tree_entry *eb, const char *prefix)
{
	git_tree *ta = NULL, *tb = NULL;
	char *sub = NULL;
	size_t len;
	int rc = -1;

	if (git_tree_entry_type(ea) != GIT_OBJECT_TREE || git_tree_entry_type(eb) != GIT_OBJECT_TREE)
		return paths_add(out, prefix, git_tree_entry_name(ea));
	len = strlen(prefix) + strlen(git_tree_entry_name(ea)) + 2;
	if (!(sub = malloc(len)))
		return fail(0, "out of memory");
	snprintf(sub, len, "%s%s/", prefix, git_tree_entry_name(ea));
	if (git_tree_lookup(&ta, repo, git_tree_entry_id(ea)) < 0 ||
	    git_tree_lookup(&tb, repo, git_tree_entry_id(eb)) < 0) {
		fail(1, "cannot read the tree '%s'", sub);
		goto out;
	}
	rc = changed_paths(out, repo, ta, tb, sub);
out:
	git_tree_free(ta);
	git_tree_free(tb);
	free(sub);
	return rc;
}

/*
 * The paths where trees a and b differ, subtrees with the same id skipped
 * without being read.  libgit2's tree-to-tree diff reads every tree of both
 * sides (25 ms on 50,000 files); given these paths as a literal pathspec it
 * reads only those on the way to them.
 */
static int changed_paths(struct paths *out, git_repository *repo, git_tree *a, git_tree *b,
			 const char *prefix)
{
	size_t i, na = git_tree_entrycount(a), nb = git_tree_entrycount(b);

	for (i = 0; i < na; i++) {
		const git_tree_entry *ea = git_tree_entry_byindex(a, i);
		const git_tree_entry *eb = git_tree_entry_byname(b, git_tree_entry_name(ea));

		if (!eb) {
			if (paths_add(out, prefix, git_tree_entry_name(ea)) < 0)
				return -1;
		} else if (!same_entry(ea, eb) && changed_entry(out, repo, ea, eb, prefix) < 0) {
			return -1;
		}
	}
	for (i = 0; i < nb; i++) {
		const git_tree_entry *eb = git_tree_entry_byindex(b, i);

		if (!git_tree_entry_byname(a, git_tree_entry_name(eb)) &&
		    paths_add(out, prefix, git_tree_entry_name(eb)) < 0)
			return -1;
	}
	return 0;
}

/* Append name to the bounded list of files left out. */
static void more_add(char *list, size_t *len, int *truncated, const char *name)
{
	size_t n = strlen(name) + (*len ? 2 : 0);

	if (*truncated)
		return;
	if (*len + n > MORE_LIST_MAX) {
		*truncated = 1;
		return;
	}
	*len += (size_t)snprintf(list + *len, MORE_LIST_MAX + 1 - *len, "%s%s",
				 *len ? ", " : "", name);
}

/* Every file's patch that fits in max_bytes, then the names of the others. */
static int print_patches(git_diff *diff, size_t max_bytes)
{
	char more[MORE_LIST_MAX + 1] = "";
	size_t i, n = git_diff_num_deltas(diff), used = 0, more_len = 0, skipped = 0;
	int truncated = 0;

	for (i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		git_patch *patch = NULL;
		git_buf text = GIT_BUF_INIT;

		if (git_patch_from_diff(&patch, diff, i) < 0 || (patch && git_patch_to_buf(&text, patch) < 0)) {
			git_patch_free(patch);
			return fail(1, "cannot make the patch of '%s'", d->new_file.path);
		}
		if (text.size && text.size <= max_bytes - used) {
			fwrite(text.ptr, 1, text.size, stdout);
			used += text.size;
		} else if (text.size) {
			more_add(more, &more_len, &truncated, d->new_file.path);
			skipped++;
		}
		git_buf_dispose(&text);
		git_patch_free(patch);
	}
	if (skipped)
		printf("[callus: %zu more file%s changed: %s%s]\n", skipped, skipped == 1 ? "" : "s",
		       more, truncated ? (more_len ? ", ..." : "...") : "");
	return 0;
}

static int cmd_diff(const char *workspace, const char *kind, const char *tree_hex,
		    const char *max_arg)
{
	git_repository *repo = NULL;
	git_tree *old_tree = NULL, *new_tree = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	struct paths changed = { NULL, 0, 0 };
	git_oid snap, now;
	char *end = NULL;
	unsigned long long max;
	int rc = -1;

	errno = 0;
	max = strtoull(max_arg, &end, 10);
	if (errno || end == max_arg || *end || max_arg[0] == '-' || max > SIZE_MAX) {
		usage_error = 1;
		return fail(0, "bad MAX_BYTES '%s'", max_arg);
	}
	if (parse_oid(&snap, tree_hex) < 0)
		return -1;
	if (!strcmp(kind, "git")) {
		if (open_git(&repo, workspace) < 0)
			goto out;
		if (!repo) {
			fail(0, "'%s' is not in a git working tree", workspace);
			goto out;
		}
		if (git_tree_lookup(&old_tree, repo, &snap) < 0) {
			fail(1, "no such snapshot");
			goto out;
		}
		if (worktree_tree(&now, repo, workspace) < 0)
			goto out;
		if (git_tree_lookup(&new_tree, repo, &now) < 0) {
			fail(1, "cannot read the tree of now");
			goto out;
		}
	} else if (!strcmp(kind, "files")) {
		if (open_private(&repo, workspace, 0) < 0 ||
		    files_trees(&old_tree, &new_tree, repo, workspace, &snap) < 0)
			goto out;
	} else {
		usage_error = 1;
		fail(0, "bad KIND '%s'", kind);
		goto out;
	}
	if (changed_paths(&changed, repo, old_tree, new_tree, "") < 0)
		goto out;
	if (!changed.n) {
		rc = 0;
		goto out;
	}
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_NORMAL | GIT_DIFF_DISABLE_PATHSPEC_MATCH;
	opts.pathspec.strings = changed.v;
	opts.pathspec.count = changed.n;
	if (git_diff_tree_to_tree(&diff, repo, old_tree, new_tree, &opts) < 0) {
		fail(1, "cannot compare the snapshot with now");
		goto out;
	}
	rc = print_patches(diff, (size_t)max);
out:
	paths_release(&changed);
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_repository_free(repo);
	return rc;
}

static int cmd_head(const char *workspace)
{
	git_repository *repo = NULL;
	char head[GIT_OID_HEXSZ + 1] = "-";
	int rc = -1;

	if (open_git(&repo, workspace) < 0)
		goto out;
	if (repo && head_hex(head, repo) < 0)
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
	      "       callus-git diff [--exclude PATH]... WORKSPACE git|files TREE MAX_BYTES\n"
	      "       callus-git head WORKSPACE\n",
	      stderr);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	int rc = -1;

	int first = 2;

	if (argc < 3)
		return usage();
	/* snapshot and diff: the --exclude options come first; their paths
	 * are packed in place over them (index 2 + n never passes the one
	 * being read) */
	if (!strcmp(argv[1], "snapshot") || !strcmp(argv[1], "diff")) {
		while (first + 1 < argc && !strcmp(argv[first], "--exclude")) {
			argv[2 + nexcludes++] = argv[first + 1];
			first += 2;
		}
		excludes = argv + 2;
		if (first >= argc)
			return usage();
	}
	if (git_libgit2_init() < 0)
		return fail(1, "cannot initialise libgit2"), 1;
	if (!strcmp(argv[1], "snapshot"))
		rc = cmd_snapshot(argv[first], argv + first + 1, argc - first - 1);
	else if (!strcmp(argv[1], "diff") && argc - first == 4)
		rc = cmd_diff(argv[first], argv[first + 1], argv[first + 2], argv[first + 3]);
	else if (!strcmp(argv[1], "head") && argc == 3)
		rc = cmd_head(argv[2]);
	else {
		git_libgit2_shutdown();
		return usage();
	}
	git_libgit2_shutdown();
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fail(0, "cannot write the output: %s", strerror(errno));
		return 1;
	}
	if (rc < 0)
		return usage_error ? EXIT_USAGE : 1;
	return 0;
}
