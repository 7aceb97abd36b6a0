/*
 * callus-git-prune.c - the copies a workspace without git no longer needs,
 * removed from its private repository (WORKSPACE/.callus/snapshots.git,
 * callus-git-files.c).  No ref points to a snapshot's tree: the store's
 * rows are what keeps one, so callus gc names the trees it still has, and
 * every loose object none of them reaches goes once it is older than a day
 * (a snapshot being taken, or kept in a queued hook's entry, has no row
 * yet).  Without it the copies, secrets in them included, stayed for ever.
 */
#include <git2.h>

#include "callus-git.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Loose objects younger than this stay whatever refers to them. */
#define PRUNE_GRACE_S (24 * 60 * 60)

/* A growable set of object ids, sorted once filled. */
typedef struct oid_set {
	git_oid *ids;
	size_t n, cap;
} oid_set;

static int set_add(oid_set *s, const git_oid *id)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 256;
		git_oid *ids = cap > SIZE_MAX / sizeof(*ids) ? NULL
							      : realloc(s->ids, cap * sizeof(*ids));

		if (!ids)
			return -1;
		s->ids = ids;
		s->cap = cap;
	}
	git_oid_cpy(&s->ids[s->n++], id);
	return 0;
}

static int by_oid(const void *a, const void *b)
{
	return git_oid_cmp(a, b);
}

static int set_has(const oid_set *s, const git_oid *id)
{
	return s->n && bsearch(id, s->ids, s->n, sizeof(*s->ids), by_oid) != NULL;
}

/* Every object of the tree, its own id included: the kept set. */
static int add_entry(const char *root, const git_tree_entry *e, void *ctx)
{
	(void)root;
	return set_add(ctx, git_tree_entry_id(e)) < 0 ? -1 : 0;
}

/* What a kept tree reaches; one the repository lacks keeps nothing. */
static int keep_tree(oid_set *keep, git_repository *repo, const char *hex)
{
	git_oid id;
	git_tree *tree = NULL;
	int rc;

	if (git_oid_fromstrn(&id, hex, strlen(hex)) < 0 || strlen(hex) != GIT_OID_HEXSZ)
		return callus_git_fail_usage("'%s' is no tree id", hex);
	if (git_tree_lookup(&tree, repo, &id) < 0) {
		git_error_clear();
		return 0;
	}
	rc = set_add(keep, &id) < 0 || git_tree_walk(tree, GIT_TREEWALK_PRE, add_entry, keep) < 0
		     ? callus_git_fail(0, "out of memory")
		     : 0;
	git_tree_free(tree);
	return rc;
}

/* The odb's walk gathers; removing while it reads its folders would
 * leave what it sees to chance. */
static int gather(const git_oid *id, void *ctx)
{
	return set_add(ctx, id) < 0 ? -1 : 0;
}

int callus_git_cmd_prune(FILE *out, callus_git_ws *w, char **trees, int ntrees, int remove)
{
	char repo_dir[PATH_MAX], path[PATH_MAX + 64], hex[GIT_OID_HEXSZ + 1];
	git_repository *repo = NULL;
	git_odb *odb = NULL;
	oid_set keep = { NULL, 0, 0 }, all = { NULL, 0, 0 };
	time_t before = time(NULL) - PRUNE_GRACE_S;
	size_t removed = 0;
	struct stat st;
	int rc = -1;

	if ((size_t)snprintf(repo_dir, sizeof repo_dir, "%s/.callus/snapshots.git", w->path) >=
	    sizeof repo_dir)
		return callus_git_fail(0, "workspace path too long");
	/* never made: nothing to prune, and nothing made now */
	if (lstat(repo_dir, &st) < 0 && errno == ENOENT) {
		fprintf(out, "0\n");
		return 0;
	}
	if (callus_git_open_private(&repo, w->path, 0) < 0)
		return -1;
	for (int i = 0; i < ntrees; i++)
		if (keep_tree(&keep, repo, trees[i]) < 0)
			goto out;
	if (keep.n)
		qsort(keep.ids, keep.n, sizeof(*keep.ids), by_oid);
	if (git_repository_odb(&odb, repo) < 0 || git_odb_foreach(odb, gather, &all) < 0) {
		rc = callus_git_fail(1, "cannot list the objects of '%s'", repo_dir);
		goto out;
	}
	/* an object both loose and packed is listed twice: counted once, as
	 * it is removed once (a dry run, remove = 0, counted both) */
	if (all.n)
		qsort(all.ids, all.n, sizeof(*all.ids), by_oid);
	for (size_t i = 0; i < all.n; i++) {
		if ((i && !git_oid_cmp(&all.ids[i], &all.ids[i - 1])) || set_has(&keep, &all.ids[i]))
			continue;
		git_oid_tostr(hex, sizeof hex, &all.ids[i]);
		/* loose only: a snapshot writes no pack */
		if ((size_t)snprintf(path, sizeof path, "%s/objects/%.2s/%s", repo_dir, hex,
				     hex + 2) >= sizeof path ||
		    lstat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_mtime >= before)
			continue;
		if (!remove || unlink(path) == 0)
			removed++;
	}
	fprintf(out, "%zu\n", removed);
	rc = 0;
out:
	free(keep.ids);
	free(all.ids);
	git_odb_free(odb);
	git_repository_free(repo);
	return rc;
}
