/*
 * callus-git-diff.c - callus-git diff: the patch from a snapshot's tree to
 * the tree of now (built as the snapshot was), whole files' patches in path
 * order within MAX_BYTES, the files left out named on a last line.  Apart
 * from the tree writing (callus-git-worktree.c, callus-git-files.c) because
 * it only reads: it compares trees and prints.
 */
#include <git2.h>

#include "callus-git.h"
#include "callus/snapshot.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The list of files that did not fit in MAX_BYTES stops growing past this
 * many bytes of names. */
#define MORE_LIST_MAX 512

static long long since_ns;

void callus_git_set_since(long long ns)
{
	since_ns = ns;
}

/*
 * Not part of a fix: a new binary file (an object file, an archive, a
 * bundle: what a build writes and .gitignore forgot; an agent's fix is
 * text), and any file written after the passing check started, when that
 * time is known and the diff is to the working tree as it is now (by_time:
 * a file's time now says nothing of a tree kept from before).
 */
static int build_product(const git_diff_delta *d, const char *root, int by_time)
{
	struct stat st;
	char *path;
	int after;

	if (d->status == GIT_DELTA_ADDED && (d->flags & GIT_DIFF_FLAG_BINARY))
		return 1;
	if (!since_ns || !by_time || d->status == GIT_DELTA_DELETED ||
	    asprintf(&path, "%s/%s", root, d->new_file.path) < 0)
		return 0;
	after = lstat(path, &st) == 0 &&
		(long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec > since_ns;
	free(path);
	return after;
}

static int parse_oid(git_oid *out, const char *hex)
{
	if (strlen(hex) != GIT_OID_HEXSZ || strspn(hex, "0123456789abcdef") != GIT_OID_HEXSZ ||
	    git_oid_fromstr(out, hex) < 0) {
		return callus_git_fail_usage("not an object id: '%s'", hex);
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
		callus_git_fail(1, "no such snapshot");
		goto out;
	}
	pe = git_tree_entry_byname(wrap, FILES_PATHS);
	fe = git_tree_entry_byname(wrap, FILES_TREE);
	if (!pe || !fe || git_tree_entry_type(pe) != GIT_OBJECT_BLOB ||
	    git_tree_entry_type(fe) != GIT_OBJECT_TREE) {
		callus_git_fail(0, "not a snapshot of files");
		goto out;
	}
	if (git_blob_lookup(&paths, repo, git_tree_entry_id(pe)) < 0 ||
	    git_tree_lookup(old_tree, repo, git_tree_entry_id(fe)) < 0) {
		callus_git_fail(1, "cannot read the snapshot");
		goto out;
	}
	if (callus_git_copies_tree(&now, repo, workspace, git_blob_rawcontent(paths),
			(size_t)git_blob_rawsize(paths)) < 0)
		goto out;
	if (git_tree_lookup(new_tree, repo, &now) < 0) {
		callus_git_fail(1, "cannot read the tree of now");
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
			return callus_git_fail(0, "out of memory");
		p->v = nv;
		p->cap = ncap;
	}
	if (!(s = malloc(plen + nlen + 1)))
		return callus_git_fail(0, "out of memory");
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
		return callus_git_fail(0, "out of memory");
	snprintf(sub, len, "%s%s/", prefix, git_tree_entry_name(ea));
	if (git_tree_lookup(&ta, repo, git_tree_entry_id(ea)) < 0 ||
	    git_tree_lookup(&tb, repo, git_tree_entry_id(eb)) < 0) {
		callus_git_fail(1, "cannot read the tree '%s'", sub);
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

/* Every file's patch that fits in max_bytes, then the names of the others.
 * root: the folder the diff's paths are relative to (the repository's
 * working directory, which a workspace may lie inside, at ws_prefix);
 * leave_out: the excluded paths are left out; by_time: the diff is to the
 * files there now, whose times say what a check wrote. */
static int print_patches(FILE *out, git_diff *diff, size_t max_bytes, const char *root,
			 int leave_out, const char *ws_prefix, int by_time)
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
			return callus_git_fail(1, "cannot make the patch of '%s'", d->new_file.path);
		}
		/* a snapshot an older helper took holds what is excluded now
		 * (a temporary file beside the instructions file): not
		 * diffed as gone */
		if (build_product(d, root, by_time) ||
		    (leave_out && (callus_git_excluded(d->old_file.path, ws_prefix) ||
				   callus_git_excluded(d->new_file.path, ws_prefix)))) {
			git_buf_dispose(&text);
			git_patch_free(patch);
			continue;
		}
		if (text.size && text.size <= max_bytes - used) {
			fwrite(text.ptr, 1, text.size, out);
			used += text.size;
		} else if (text.size) {
			more_add(more, &more_len, &truncated, d->new_file.path);
			skipped++;
		}
		git_buf_dispose(&text);
		git_patch_free(patch);
	}
	if (skipped)
		fprintf(out, "[callus: %zu more file%s changed: %s%s]\n", skipped,
			skipped == 1 ? "" : "s", more, truncated ? (more_len ? ", ..." : "...") : "");
	return 0;
}

int callus_git_cmd_diff(FILE *out, callus_git_ws *w, const char *kind, const char *tree_hex,
			const char *to_hex, const char *max_arg)
{
	const char *workspace = w->path, *root;
	git_repository *repo = NULL, *own = NULL;
	git_tree *old_tree = NULL, *new_tree = NULL;
	git_diff *diff = NULL;
	git_diff_options opts;
	struct paths changed = { NULL, 0, 0 };
	char *prefix = NULL;
	git_oid snap, now;
	char *end = NULL;
	unsigned long long max;
	int rc = -1;

	errno = 0;
	max = strtoull(max_arg, &end, 10);
	if (errno || end == max_arg || *end || max_arg[0] == '-' || max > SIZE_MAX) {
		return callus_git_fail_usage("bad MAX_BYTES '%s'", max_arg);
	}
	if (parse_oid(&snap, tree_hex) < 0 || (to_hex && parse_oid(&now, to_hex) < 0))
		return -1;
	if (!strcmp(kind, "git")) {
		if (to_hex) {
			if (callus_git_ws_repo(w, &repo) < 0)
				goto out;
			if (!repo) {
				callus_git_fail(0, "'%s' is not in a git working tree", w->path);
				goto out;
			}
		} else if (callus_git_worktree_tree(&now, w) < 0 ||
			   callus_git_ws_repo(w, &repo) < 0) {
			goto out;
		}
		if (git_tree_lookup(&old_tree, repo, &snap) < 0) {
			callus_git_fail(1, "no such snapshot");
			goto out;
		}
		if (git_tree_lookup(&new_tree, repo, &now) < 0) {
			/* src/snapshot.c reads it at the start of the message:
			 * the diff is then asked again of the tree now */
			callus_git_fail(1, to_hex ? CALLUS_SNAPSHOT_KEPT_TREE_GONE
						  : "cannot read the tree of now");
			goto out;
		}
	} else if (!strcmp(kind, "files")) {
		if (callus_git_open_private(&own, workspace, 0) < 0 ||
		    files_trees(&old_tree, &new_tree, own, workspace, &snap) < 0)
			goto out;
		repo = own;
	} else {
		callus_git_fail_usage("bad KIND '%s'", kind);
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
		callus_git_fail(1, "cannot compare the snapshot with now");
		goto out;
	}
	/* a git snapshot's paths are the repository's, a files one's the
	 * workspace's */
	root = own ? NULL : git_repository_workdir(repo);
	/* a git snapshot's excluded paths are under the workspace's folder
	 * in the repository (none found: nothing left out) */
	prefix = root ? callus_git_workspace_prefix(root, workspace) : NULL;
	rc = print_patches(out, diff, (size_t)max, root ? root : workspace, !root || prefix,
			   prefix, !to_hex);
out:
	free(prefix);
	paths_release(&changed);
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_repository_free(own);
	return rc;
}

