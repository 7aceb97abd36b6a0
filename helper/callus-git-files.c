/*
 * callus-git-files.c - the snapshot of a workspace without git: the FILEs
 * given, copied into a private bare repository (WORKSPACE/.callus/
 * snapshots.git, mode 0700) as a tree of "paths" (the list asked for) and
 * "files" (those that existed, within the size limits).  Apart from the git
 * workspaces (callus-git-worktree.c) because it writes its own repository,
 * never the user's.
 */
#include <git2.h>

#include "callus-git.h"
#include "callus/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* The private repository of a workspace without git. */
#define PRIVATE_DIR ".callus"
#define PRIVATE_REPO ".callus/snapshots.git"

/* WORKSPACE/.callus/snapshots.git, created (bare, private) when missing and
 * create is set. */
int callus_git_open_private(git_repository **out, const char *workspace, int create)
{
	git_repository_init_options init;
	char dir[PATH_MAX], repo_dir[PATH_MAX];
	int rc;

	*out = NULL;
	if ((size_t)snprintf(dir, sizeof dir, "%s/%s", workspace, PRIVATE_DIR) >= sizeof dir ||
	    (size_t)snprintf(repo_dir, sizeof repo_dir, "%s/%s", workspace, PRIVATE_REPO) >=
		    sizeof repo_dir)
		return callus_git_fail(0, "workspace path too long");
	rc = git_repository_open_bare(out, repo_dir);
	if (rc == 0)
		return 0;
	if (rc != GIT_ENOTFOUND || !create)
		return callus_git_fail(1, "cannot open '%s'", repo_dir);
	git_error_clear();
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return callus_git_fail(0, "cannot create '%s': %s", dir, strerror(errno));
	/* Made here rather than by libgit2 so it is 0700 from the start: the
	 * copies may hold anything the workspace holds. */
	if (mkdir(repo_dir, 0700) < 0 && errno != EEXIST)
		return callus_git_fail(0, "cannot create '%s': %s", repo_dir, strerror(errno));
	git_repository_init_options_init(&init, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	init.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_NO_REINIT;
	rc = git_repository_init_ext(out, repo_dir, &init);
	if (rc == GIT_EEXISTS) {
		/* Another callus made it meanwhile. */
		git_error_clear();
		rc = git_repository_open_bare(out, repo_dir);
	}
	if (rc < 0)
		return callus_git_fail(1, "cannot create '%s'", repo_dir);
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
		rc = callus_git_fail(0, "out of memory");
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

	if (callus_git_secret_file(path) ||
	    (size_t)snprintf(full, sizeof full, "%s/%s", workspace, path) >= sizeof full)
		return 0;
	if (lstat(full, &st) < 0)
		return 0;
	memset(&entry, 0, sizeof entry);
	if (S_ISLNK(st.st_mode)) {
		ssize_t n;

		data = malloc(PATH_MAX);
		if (!data)
			return callus_git_fail(0, "out of memory");
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
		callus_git_fail(1, "cannot store '%s'", path);
		goto out;
	}
	entry.path = path;
	entry.file_size = (uint32_t)len;
	if (git_index_add(index, &entry) < 0) {
		callus_git_fail(1, "cannot add '%s'", path);
		goto out;
	}
	rc = 0;
out:
	free(data);
	return rc;
}

/* The tree of the files among paths (NUL-separated, plen bytes) as they are
 * in the workspace now. */
int callus_git_copies_tree(git_oid *out, git_repository *repo, const char *workspace,
			   const char *paths, size_t plen)
{
	git_index *index = NULL;
	size_t off = 0;
	int rc = -1;

	if (git_index_new(&index) < 0) {
		callus_git_fail(1, "cannot make an index");
		goto out;
	}
	while (off < plen) {
		const char *p = paths + off;

		off += strlen(p) + 1;
		if (add_copy(index, repo, workspace, p) < 0)
			goto out;
	}
	if (git_index_write_tree_to(out, index, repo) < 0) {
		callus_git_fail(1, "cannot write the snapshot's tree");
		goto out;
	}
	rc = 0;
out:
	git_index_free(index);
	return rc;
}

/* The FILE arguments, normalized, duplicates dropped, at most
 * CALLUS_SNAPSHOT_FILES_MAX, as one NUL-separated string. */
int callus_git_path_list(char **out, size_t *out_len, char **files, int nfiles)
{
	char *list = NULL, *norm = NULL;
	size_t len = 0, cap = 0, kept = 0;
	int i, rc = -1;

	for (i = 0; i < nfiles; i++) {
		size_t off = 0, n;
		int dup = 0;

		if (callus_git_normalize_path(&norm, files[i]) < 0)
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
					callus_git_fail(0, "out of memory");
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
int callus_git_wrap_files(git_oid *out, git_repository *repo, const char *paths, size_t plen,
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
		callus_git_fail(1, "cannot write the snapshot's tree");
		goto out;
	}
	rc = 0;
out:
	git_treebuilder_free(tb);
	return rc;
}

