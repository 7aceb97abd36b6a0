/*
 * callus-git-worktree.c - the snapshot of a git workspace: the tree of its
 * working tree, written from the index as it is on disk plus every change
 * in the working directory (modified, deleted, type-changed tracked files;
 * untracked files that are not ignored), the --exclude paths left as the
 * index has them.  The user's index is read, never written.  Apart from the
 * workspaces without git (callus-git-files.c) and from the diff
 * (callus-git-diff.c): this is the part that must never touch the user's
 * repository beyond adding objects.
 */
#include <git2.h>
#include <git2/sys/repository.h>

#include "callus-git.h"
#include "callus/snapshot.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The --exclude paths, as given (workspace-relative).  Set once by main()
 * before any work: this program runs one command and exits. */
static char **excludes;
static int nexcludes;

void callus_git_set_excludes(char **paths, int n)
{
	excludes = paths;
	nexcludes = n;
}

/* s[0..] begins with digits (hex: hex digits) then end: past end, or NULL. */
static const char *digits_then(const char *s, int hex, char end)
{
	size_t n = strspn(s, hex ? "0123456789abcdef" : "0123456789");

	return n && s[n] == end ? s + n + 1 : NULL;
}

/* Whether name is a temporary file callus writes beside the file called
 * base[0..blen), to rename over it (src/fsutil.c's
 * ".BASE.callus-PID-NS-N.tmp"): one being written, or one a writer killed
 * before its rename left. */
static int temp_of(const char *name, const char *base, size_t blen)
{
	static const char mark[] = ".callus-";
	const char *p = name + 1 + blen + sizeof(mark) - 1;

	if (name[0] != '.' || strncmp(name + 1, base, blen) ||
	    strncmp(name + 1 + blen, mark, sizeof(mark) - 1))
		return 0;
	return (p = digits_then(p, 0, '-')) && (p = digits_then(p, 1, '-')) &&
	       (p = digits_then(p, 0, '.')) && !strcmp(p, "tmp");
}

/* AGENTS.md is written by rename from a temporary file beside it, which a
 * diff took for a fix: made by a writer at work, deleted by a repair of a
 * killed one's (callus-git.h). */
int callus_git_excluded(const char *path, const char *ws_prefix)
{
	size_t pl = ws_prefix ? strlen(ws_prefix) : 0;

	if (pl && strncmp(path, ws_prefix, pl))
		return 0;
	path += pl;
	for (int i = 0; i < nexcludes; i++) {
		const char *e = excludes[i], *slash = strrchr(e, '/');
		size_t el = strlen(e), dl = slash ? (size_t)(slash - e) + 1 : 0;

		if (el && e[el - 1] == '/' ? !strncmp(path, e, el) : !strcmp(path, e))
			return 1;
		if (el && e[el - 1] != '/' && !strncmp(path, e, dl) && !strchr(path + dl, '/') &&
		    temp_of(path + dl, e + dl, el - dl))
			return 1;
	}
	return 0;
}

/*
 * The excluded directories ignored for this process's walks, in memory
 * (git_ignore_add_rule writes no file): libgit2 then does not descend into
 * them, where .lessons/ and .callus/notes/ gain a file per lesson and note
 * (a snapshot stat()ed every one of them).  Tracked files there still show
 * as changes, which callus_git_excluded() drops as before.  A path with a glob or
 * ignore-syntax character keeps being walked: no rule could name it alone.
 */
static void ignore_excluded_dirs(git_repository *repo, const char *ws_prefix)
{
	const char *prefix = ws_prefix ? ws_prefix : "";
	char *rules = NULL;
	size_t len = 0;

	if (strpbrk(prefix, "*?[]\\!#\n"))
		return;
	for (int i = 0; i < nexcludes; i++) {
		size_t el = strlen(excludes[i]), pl = strlen(prefix);
		char *grown;

		if (!el || excludes[i][el - 1] != '/' || strpbrk(excludes[i], "*?[]\\!#\n"))
			continue;
		if (!(grown = realloc(rules, len + pl + el + 3)))
			break;
		rules = grown;
		len += (size_t)snprintf(rules + len, pl + el + 3, "/%s%s\n", prefix, excludes[i]);
	}
	if (rules && git_ignore_add_rule(repo, rules) < 0)
		git_error_clear();
	free(rules);
}

/* Is path a regular file or a symbolic link that may go into a snapshot as
 * an untracked file? */
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
			return callus_git_fail(1, "cannot drop '%s' from the snapshot", path);
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
		callus_git_fail(1, "cannot read the index's conflicts");
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
				callus_git_fail(0, "out of memory");
				goto out;
			}
			paths = np;
			cap = ncap;
		}
		if (!(paths[n] = strdup(e->path))) {
			callus_git_fail(0, "out of memory");
			goto out;
		}
		n++;
	}
	if (r != GIT_ITEROVER) {
		callus_git_fail(1, "cannot read the index's conflicts");
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
			return callus_git_fail(0, "out of memory");
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

	if (callus_git_excluded(path, ws_prefix))
		return 0;

	switch (d->status) {
	case GIT_DELTA_UNTRACKED:
		/* Directories here are nested repositories (gitlinks to be)
		 * and unreadable directories: left out, as the index has them. */
		if (!untracked_wanted(workdir, path) || callus_git_secret_file(path))
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
		callus_git_fail(1, "cannot find the index");
		goto out;
	}
	if (git_index_open(&index, index_path.ptr) < 0) {
		callus_git_fail(1, "cannot read the index '%s'", index_path.ptr);
		goto out;
	}
	if (git_repository_set_index(repo, index) < 0) {
		callus_git_fail(1, "cannot use the index");
		goto out;
	}
	/* the --exclude paths are workspace-relative */
	prefix = callus_git_workspace_prefix(workdir, workspace);
	ignore_excluded_dirs(repo, prefix);
	if (resolve_conflicts(index, workdir) < 0)
		goto out;
	if (git_index_write_tree_to(&base_id, index, repo) < 0) {
		callus_git_fail(1, "cannot write the index's tree");
		goto out;
	}

	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.flags = GIT_DIFF_INCLUDE_UNTRACKED | GIT_DIFF_RECURSE_UNTRACKED_DIRS |
		     GIT_DIFF_INCLUDE_TYPECHANGE | GIT_DIFF_IGNORE_SUBMODULES |
		     GIT_DIFF_SKIP_BINARY_CHECK;
	opts.ignore_submodules = GIT_SUBMODULE_IGNORE_ALL;
	if (git_diff_index_to_workdir(&diff, repo, index, &opts) < 0) {
		callus_git_fail(1, "cannot compare the index with the working tree");
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
		callus_git_fail(1, "cannot read the index's tree");
		goto out;
	}
	if (updates_supported(base, &u) &&
	    git_tree_create_updated(out, repo, base, u.n, u.v) == 0) {
		rc = 0;
		goto out;
	}
	git_error_clear();
	if (git_index_write_tree_to(out, index, repo) < 0) {
		callus_git_fail(1, "cannot write the snapshot's tree");
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


int callus_git_worktree_tree(git_oid *out, callus_git_ws *w)
{
	git_repository *repo;

	if (!w->have_now) {
		if (callus_git_ws_repo(w, &repo) < 0)
			return -1;
		if (!repo)
			return callus_git_fail(0, "'%s' is not in a git working tree", w->path);
		if (worktree_tree(&w->now, repo, w->path) < 0)
			return -1;
		w->have_now = 1;
	}
	git_oid_cpy(out, &w->now);
	return 0;
}
