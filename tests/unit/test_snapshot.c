/*
 * test_snapshot.c - snapshots and diffs through the real callus-git helper,
 * on real repositories made with the git command line in temporary
 * directories.
 *
 * The helper is the one built next to this test (build/callus-git for
 * build/tests/test_snapshot), passed through CALLUS_GIT_HELPER.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/child.h"
#include "callus/snapshot.h"
#include "callus/strlist.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GIT "git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main " \
	    "-c core.autocrlf=false -c advice.detachedHead=false"

static char helper_path[PATH_MAX];

/* ---- helpers -------------------------------------------------------------- */

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	callus_buf cmd = CALLUS_BUF_INIT;
	va_list ap;
	int st;

	va_start(ap, fmt);
	assert_int_equal(callus_buf_vprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	st = system(cmd.ptr);
	if (st != 0)
		fail_msg("command failed (%d): %s", st, cmd.ptr);
	callus_buf_release(&cmd);
}

/* stdout of a shell command, whole. */
static char *run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *run(const char *fmt, ...)
{
	callus_buf cmd = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	char chunk[4096];
	size_t n;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	assert_int_equal(callus_buf_vprintf(&cmd, fmt, ap), 0);
	va_end(ap);
	f = popen(cmd.ptr, "r");
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		assert_int_equal(callus_buf_put(&out, chunk, n), 0);
	if (pclose(f) != 0)
		fail_msg("command failed: %s", cmd.ptr);
	callus_buf_release(&cmd);
	return callus_buf_detach(&out);
}

/* A file's bytes (NULs kept, length in *len), or NULL when it is missing. */
static char *slurp(const char *dir, const char *name, size_t *len)
{
	callus_buf path = CALLUS_BUF_INIT, data = CALLUS_BUF_INIT;
	char chunk[4096];
	ssize_t n;
	int fd;

	callus_buf_printf(&path, "%s/%s", dir, name);
	fd = open(path.ptr, O_RDONLY);
	callus_buf_release(&path);
	if (fd < 0)
		return NULL;
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		assert_int_equal(callus_buf_put(&data, chunk, (size_t)n), 0);
	close(fd);
	if (len)
		*len = data.len;
	return callus_buf_detach(&data);
}

static void write_at(const char *dir, const char *name, const void *data, size_t len)
{
	callus_buf path = CALLUS_BUF_INIT;
	FILE *f;

	callus_buf_printf(&path, "%s/%s", dir, name);
	f = fopen(path.ptr, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	callus_buf_release(&path);
}

static void write_str(const char *dir, const char *name, const char *s)
{
	write_at(dir, name, s, strlen(s));
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/callus-snapshot-test-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return strdup(tmpl);
}

static void rmdir_all(char *dir)
{
	sh("rm -rf '%s'", dir);
	free(dir);
}

/* A repository with one commit of a.txt (three lines) and b.txt. */
static char *make_repo(void)
{
	char *dir = tmpdir();

	sh("cd '%s' && " GIT " init -q . && printf 'one\\ntwo\\nthree\\n' >a.txt && "
	   "echo b >b.txt && " GIT " add . && " GIT " commit -q -m init", dir);
	return dir;
}

static void take(callus_snapshot *s, const char *ws, const callus_strlist *files)
{
	callus_error e = CALLUS_ERROR_INIT;
	int rc = callus_snapshot_take(s, ws, files, NULL, &e);

	if (rc != 0)
		fail_msg("snapshot: %d %s", rc, callus_error_message(&e));
	callus_error_release(&e);
}

static char *diff(const char *ws, const callus_snapshot *s, size_t max)
{
	callus_error e = CALLUS_ERROR_INIT;
	char *patch = NULL;
	int rc = callus_snapshot_diff(&patch, ws, s, max, NULL, &e);

	if (rc != 0)
		fail_msg("diff: %d %s", rc, callus_error_message(&e));
	callus_error_release(&e);
	assert_non_null(patch);
	return patch;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		s[--n] = '\0';
}

/* ---- git workspaces -------------------------------------------------------- */

static void test_edit_tracked(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = make_repo(), *patch, *want, *head;

	(void)state;
	take(&s, dir, NULL);
	assert_int_equal(s.kind, CALLUS_SNAPSHOT_GIT);
	assert_int_equal(strlen(s.tree), 40);
	head = run("cd '%s' && git rev-parse HEAD", dir);
	chomp(head);
	assert_string_equal(s.commit, head);

	patch = diff(dir, &s, 100000);
	assert_string_equal(patch, "");
	free(patch);

	write_str(dir, "a.txt", "one\nTWO\nthree\n");
	patch = diff(dir, &s, 100000);
	/* The snapshot was HEAD, so git's own diff of the working tree is the
	 * reference, byte for byte. */
	want = run("cd '%s' && git --no-optional-locks diff", dir);
	assert_string_equal(patch, want);
	assert_non_null(strstr(patch, "-two\n+TWO\n"));
	free(patch);
	free(want);
	free(head);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

static void test_new_untracked_file(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = make_repo(), *patch;

	(void)state;
	/* Already there when the check failed: not part of the fix. */
	write_str(dir, "old-untracked.txt", "was here\n");
	take(&s, dir, NULL);
	sh("mkdir '%s/src'", dir);
	write_str(dir, "src/fix.c", "int fixed;\n");
	patch = diff(dir, &s, 100000);
	assert_string_equal(patch, "diff --git a/src/fix.c b/src/fix.c\n"
				   "new file mode 100644\n"
				   "index 0000000..17f4522\n"
				   "--- /dev/null\n"
				   "+++ b/src/fix.c\n"
				   "@@ -0,0 +1 @@\n"
				   "+int fixed;\n");
	free(patch);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

/* callus's own files (the lessons it writes at each failure) are never part
 * of a fix: excluded paths keep the index's version on both sides. */
static void test_excluded_paths(void **state)
{
	static const char *const excl[] = { ".lessons/", "AGENTS.md", NULL };
	callus_snapshot_opts o = { NULL, 10000, excl, 0, 0 };
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	callus_error e = CALLUS_ERROR_INIT;
	char *dir = make_repo(), *patch = NULL;

	(void)state;
	sh("cd '%s' && echo '# mine' >AGENTS.md && " GIT " add AGENTS.md && " GIT
	   " commit -q -m agents && mkdir .lessons && echo one >.lessons/a.md", dir);
	/* a writer of AGENTS.md killed before its rename left its temporary
	 * file; another is writing one (fsutil.c's names): neither is a fix,
	 * made or undone (one was learnt as "Deleted .AGENTS.md.callus-...") */
	write_str(dir, ".AGENTS.md.callus-3645-2c72ff9a-0.tmp", "left\n");
	assert_int_equal(callus_snapshot_take(&s, dir, NULL, &o, &e), 0);
	write_str(dir, ".lessons/a.md", "two\n");
	write_str(dir, ".lessons/b.md", "new\n");
	write_str(dir, "AGENTS.md", "# mine\n<!-- callus -->\n");
	write_str(dir, "AGENTS.md.bak", "not excluded\n");
	write_str(dir, ".AGENTS.md.callus-4242-deadbeef-0.tmp", "x\n");
	write_str(dir, ".AGENTS.md.callus-notes.txt", "not callus's\n");
	sh("rm '%s/.AGENTS.md.callus-3645-2c72ff9a-0.tmp'", dir);
	write_str(dir, "a.txt", "one\nTWO\nthree\n");
	assert_int_equal(callus_snapshot_diff(&patch, dir, &s, 100000, &o, &e), 0);
	assert_non_null(strstr(patch, "diff --git a/a.txt b/a.txt"));
	assert_non_null(strstr(patch, "diff --git a/AGENTS.md.bak b/AGENTS.md.bak"));
	assert_non_null(strstr(patch, "diff --git a/.AGENTS.md.callus-notes.txt"));
	assert_null(strstr(patch, ".lessons/"));
	assert_null(strstr(patch, "a/AGENTS.md b/AGENTS.md\n"));
	assert_null(strstr(patch, ".tmp"));
	free(patch);
	/* without the exclusions, the same change shows them */
	assert_int_equal(callus_snapshot_diff(&patch, dir, &s, 100000, NULL, &e), 0);
	assert_non_null(strstr(patch, ".lessons/b.md"));
	free(patch);
	/* a snapshot taken without them (an older helper's) holds the
	 * temporary file: gone since, it is no change of a fix */
	callus_snapshot_release(&s);
	assert_int_equal(callus_snapshot_take(&s, dir, NULL, NULL, &e), 0);
	sh("rm '%s/.AGENTS.md.callus-4242-deadbeef-0.tmp'", dir);
	assert_int_equal(callus_snapshot_diff(&patch, dir, &s, 100000, &o, &e), 0);
	assert_null(strstr(patch, ".tmp"));
	free(patch);
	callus_error_release(&e);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

static void test_deleted_ignored_binary(void **state)
{
	static const char bin1[] = "\x7f" "ELF\0\1\2\3secret-bytes-one";
	static const char bin2[] = "\x7f" "ELF\0\1\2\3secret-bytes-two";
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = make_repo(), *patch;

	(void)state;
	write_str(dir, ".gitignore", "*.log\nbuild/\n");
	write_at(dir, "prog.bin", bin1, sizeof bin1);
	sh("cd '%s' && " GIT " add . && " GIT " commit -q -m more", dir);
	take(&s, dir, NULL);

	sh("rm '%s/b.txt' && mkdir '%s/build'", dir, dir);
	write_str(dir, "debug.log", "ignored\n");
	write_str(dir, "build/out.o", "ignored\n");
	write_at(dir, "prog.bin", bin2, sizeof bin2);
	patch = diff(dir, &s, 100000);
	assert_non_null(strstr(patch, "diff --git a/b.txt b/b.txt\ndeleted file mode 100644\n"));
	assert_non_null(strstr(patch, "-b\n"));
	assert_non_null(strstr(patch, "Binary files a/prog.bin and b/prog.bin differ\n"));
	assert_null(strstr(patch, "secret-bytes"));
	assert_null(strstr(patch, ".log"));
	assert_null(strstr(patch, "build/"));
	free(patch);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

/* Everything git shows of a repository's state, and the bytes of the
 * files that hold it. */
static char *repo_state(const char *dir)
{
	static const char *const files[] = {
		".git/index", ".git/HEAD", ".git/config", ".git/packed-refs", ".git/logs/HEAD",
		".git/logs/refs/stash", ".git/refs/stash", ".git/refs/heads/main",
		"untracked.txt", "staged.txt", "a.txt"
	};
	callus_buf st = CALLUS_BUF_INIT;
	char *out;
	size_t i, len = 0;

	/* --no-optional-locks: git status must not refresh the index itself. */
	out = run("cd '%s' && git --no-optional-locks status --porcelain=v2 --untracked-files=all "
		  "--branch && git for-each-ref && git stash list && git reflog",
		  dir);
	callus_buf_puts(&st, out);
	free(out);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *data = slurp(dir, files[i], &len);
		struct stat sb;
		callus_buf p = CALLUS_BUF_INIT;

		callus_buf_printf(&st, "== %s %zu\n", files[i], data ? len : 0);
		if (data)
			callus_buf_put(&st, data, len);
		free(data);
		callus_buf_printf(&p, "%s/%s", dir, files[i]);
		if (stat(p.ptr, &sb) == 0)
			callus_buf_printf(&st, "\nmtime %lld.%09ld\n", (long long)sb.st_mtim.tv_sec,
					sb.st_mtim.tv_nsec);
		callus_buf_release(&p);
	}
	assert_int_equal(callus_buf_status(&st), 0);
	return callus_buf_detach(&st);
}

static void test_repository_untouched(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = make_repo(), *before, *after, *patch, *refs_before, *refs_after;

	(void)state;
	/* A stash, a tag, a branch, a staged change, an unstaged one and an
	 * untracked file: every piece of state a snapshot could disturb. */
	write_str(dir, "a.txt", "stashed\n");
	sh("cd '%s' && " GIT " stash -q && " GIT " tag v1 && " GIT " branch feature", dir);
	write_str(dir, "staged.txt", "staged\n");
	sh("cd '%s' && " GIT " add staged.txt", dir);
	write_str(dir, "a.txt", "unstaged\n");
	write_str(dir, "untracked.txt", "untracked\n");
	sh("cd '%s' && " GIT " --no-optional-locks status >/dev/null", dir);
	/* Stat data older than the index: nothing racy for git to fix later. */
	sleep(1);
	sh("cd '%s' && " GIT " update-index --refresh -q >/dev/null; true", dir);

	before = repo_state(dir);
	refs_before = run("cd '%s' && find .git -path .git/objects -prune -o -type f -print | sort",
			  dir);
	take(&s, dir, NULL);
	patch = diff(dir, &s, 100000);
	assert_string_equal(patch, "");
	free(patch);
	write_str(dir, "more.txt", "x\n");
	patch = diff(dir, &s, 100000);
	assert_non_null(strstr(patch, "b/more.txt"));
	free(patch);
	sh("rm '%s/more.txt'", dir);
	after = repo_state(dir);
	refs_after = run("cd '%s' && find .git -path .git/objects -prune -o -type f -print | sort",
			 dir);
	assert_string_equal(before, after);
	assert_string_equal(refs_before, refs_after);

	/* And the snapshot holds the working tree, not the index or HEAD. */
	patch = run("cd '%s' && git cat-file -p %s:a.txt && git cat-file -p %s:staged.txt && "
		    "git cat-file -p %s:untracked.txt",
		    dir, s.tree, s.tree, s.tree);
	assert_string_equal(patch, "unstaged\nstaged\nuntracked\n");
	free(patch);
	free(before);
	free(after);
	free(refs_before);
	free(refs_after);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

/* The tree git itself writes for the working tree: `git add -A` into a
 * copy of the index, then write-tree. */
static char *git_worktree_tree(const char *dir)
{
	char *t = run("cd '%s' && cp .git/index .git/callus-test-index && "
		      "GIT_INDEX_FILE=.git/callus-test-index git add -A && "
		      "GIT_INDEX_FILE=.git/callus-test-index git write-tree && "
		      "rm .git/callus-test-index",
		      dir);

	chomp(t);
	return t;
}

static void assert_tree_as_git(const char *dir)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *want;

	take(&s, dir, NULL);
	want = git_worktree_tree(dir);
	assert_string_equal(s.tree, want);
	free(want);
	callus_snapshot_release(&s);
}

static void test_tree_as_git_writes_it(void **state)
{
	char *dir = make_repo();

	(void)state;
	sh("cd '%s' && mkdir -p x/y z w && echo 1 >x/y/f && echo 2 >x/g && echo 3 >z/h && "
	   "echo 4 >w/i && echo 5 >file-to-dir && ln -s a.txt link && " GIT " add . && " GIT
	   " commit -q -m tree",
	   dir);
	assert_tree_as_git(dir);
	/* Nested changes, a new directory, a removed one, an executable bit. */
	sh("cd '%s' && echo changed >x/y/f && mkdir -p n/m && echo new >n/m/k && rm -r z && "
	   "chmod +x x/g",
	   dir);
	assert_tree_as_git(dir);
	/* A file becomes a directory, a directory becomes a file, a link
	 * changes target, a staged change and a conflict-free rename. */
	sh("cd '%s' && rm file-to-dir && mkdir file-to-dir && echo in >file-to-dir/f && "
	   "rm -r w && echo now-a-file >w && ln -sf b.txt link && echo staged >>b.txt && "
	   GIT " add b.txt && git mv a.txt moved.txt",
	   dir);
	assert_tree_as_git(dir);
	/* A file becomes a symbolic link and the reverse. */
	sh("cd '%s' && rm moved.txt && ln -s b.txt moved.txt && rm link && echo plain >link",
	   dir);
	assert_tree_as_git(dir);
	/* Everything deleted. */
	sh("cd '%s' && git ls-files -z | xargs -0 rm -rf && rm -rf n file-to-dir w", dir);
	assert_tree_as_git(dir);
	rmdir_all(dir);
}

/* From a clean tree, the diff is what git shows for `git add -A` (into a
 * copy of the index) against HEAD. */
static void test_diff_as_git_shows_it(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = make_repo(), *patch, *want;

	(void)state;
	sh("cd '%s' && mkdir -p x/y w && echo 1 >x/y/f && echo 2 >x/g && echo 4 >w/i && "
	   "echo 5 >file-to-dir && " GIT " add . && " GIT " commit -q -m tree",
	   dir);
	take(&s, dir, NULL);
	sh("cd '%s' && rm file-to-dir && mkdir file-to-dir && echo in >file-to-dir/f && "
	   "rm -r w && echo now-a-file >w && echo changed >x/y/f && chmod +x x/g && "
	   "printf 'one\\ntwo\\nthree\\nfour\\n' >a.txt && mkdir -p n/m && echo k >n/m/k",
	   dir);
	patch = diff(dir, &s, 100000);
	want = run("cd '%s' && cp .git/index .git/callus-test-index && "
		   "GIT_INDEX_FILE=.git/callus-test-index git add -A && "
		   "GIT_INDEX_FILE=.git/callus-test-index git diff --cached && "
		   "rm .git/callus-test-index",
		   dir);
	assert_string_equal(patch, want);
	free(patch);
	free(want);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

static void test_unborn_head(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	callus_error e = CALLUS_ERROR_INIT;
	char *dir = tmpdir(), *patch, *head = NULL;

	(void)state;
	sh("cd '%s' && " GIT " init -q .", dir);
	assert_int_equal(callus_snapshot_head(&head, dir, NULL, &e), 0);
	assert_string_equal(head, "");
	free(head);

	/* Empty repository, empty working tree. */
	take(&s, dir, NULL);
	assert_string_equal(s.commit, "");
	assert_string_equal(s.tree, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	write_str(dir, "first.txt", "first\n");
	patch = diff(dir, &s, 100000);
	assert_non_null(strstr(patch, "diff --git a/first.txt b/first.txt\nnew file mode"));
	free(patch);
	callus_snapshot_release(&s);

	/* Staged but never committed. */
	sh("cd '%s' && " GIT " add first.txt", dir);
	take(&s, dir, NULL);
	assert_string_equal(s.commit, "");
	write_str(dir, "first.txt", "second\n");
	patch = diff(dir, &s, 100000);
	assert_non_null(strstr(patch, "-first\n+second\n"));
	free(patch);
	callus_snapshot_release(&s);

	sh("cd '%s' && " GIT " commit -q -m c", dir);
	assert_int_equal(callus_snapshot_head(&head, dir, NULL, &e), 0);
	patch = run("cd '%s' && git rev-parse HEAD", dir);
	chomp(patch);
	assert_string_equal(head, patch);
	free(patch);
	free(head);
	callus_error_release(&e);
	rmdir_all(dir);
}

static void test_subdirectory_and_private_files(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	callus_buf sub = CALLUS_BUF_INIT;
	char *dir = make_repo(), *patch;

	(void)state;
	sh("mkdir -p '%s/pkg/.callus' '%s/.callus'", dir, dir);
	callus_buf_printf(&sub, "%s/pkg", dir);
	take(&s, sub.ptr, NULL);
	write_str(dir, "a.txt", "changed at the top\n");
	/* callus's own state in the workspace is not the user's work. */
	write_str(dir, "pkg/.callus/callus.db", "store\n");
	write_str(dir, ".callus/other", "outside the workspace's .callus\n");
	patch = diff(sub.ptr, &s, 100000);
	assert_non_null(strstr(patch, "diff --git a/a.txt b/a.txt\n"));
	assert_null(strstr(patch, "callus.db"));
	assert_non_null(strstr(patch, "b/.callus/other"));
	free(patch);
	callus_snapshot_release(&s);
	callus_buf_release(&sub);
	rmdir_all(dir);
}

/* A passing check's products (files written since it started) are left out
 * of the fix in a workspace inside the repository too: the diff's paths
 * are the repository's, not the workspace's. */
static void test_since_in_a_subfolder_workspace(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	callus_snapshot_opts since = { NULL, 10000, NULL, 0, 0 };
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf sub = CALLUS_BUF_INIT;
	char *dir = make_repo(), *patch = NULL;
	struct timespec ts;

	(void)state;
	sh("mkdir -p '%s/pkg/.callus'", dir);
	callus_buf_printf(&sub, "%s/pkg", dir);
	take(&s, sub.ptr, NULL);
	write_str(dir, "pkg/fix.c", "int fixed;\n");
	sh("touch -d '2020-01-01' '%s/pkg/fix.c'", dir);
	clock_gettime(CLOCK_REALTIME, &ts);
	since.since_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec - 1000000000LL;
	write_str(dir, "pkg/product.o.txt", "written by the check\n");
	assert_int_equal(callus_snapshot_diff(&patch, sub.ptr, &s, 100000, &since, &e), 0);
	assert_non_null(strstr(patch, "b/pkg/fix.c"));
	assert_null(strstr(patch, "product.o.txt"));
	free(patch);
	callus_error_release(&e);
	callus_snapshot_release(&s);
	callus_buf_release(&sub);
	rmdir_all(dir);
}

static void test_submodule_left_alone(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = make_repo(), *patch, *before, *after;

	(void)state;
	/* A gitlink whose checkout is another repository at another commit. */
	sh("cd '%s' && " GIT " init -q mod && cd mod && echo m >m && " GIT " add m && " GIT
	   " commit -q -m m && cd .. && " GIT " update-index --add --cacheinfo "
	   "160000,$(git -C mod rev-parse HEAD),mod && " GIT " commit -q -m sub && cd mod && "
	   "echo n >m && " GIT " commit -q -a -m n",
	   dir);
	before = run("cd '%s' && git ls-files -s mod", dir);
	take(&s, dir, NULL);
	patch = run("cd '%s' && git ls-tree %s mod", dir, s.tree);
	/* ls-files -s: "160000 <oid> 0\tmod"; ls-tree: "160000 commit <oid>\tmod" */
	assert_memory_equal(patch + 14, before + 7, 40);
	free(patch);
	write_str(dir, "b.txt", "changed\n");
	patch = diff(dir, &s, 100000);
	assert_non_null(strstr(patch, "a/b.txt"));
	assert_null(strstr(patch, "mod"));
	free(patch);
	after = run("cd '%s' && git ls-files -s mod", dir);
	assert_string_equal(before, after);
	free(before);
	free(after);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

static void count_patches(const char *patch, size_t *files, size_t *bytes_before_trailer)
{
	const char *p = patch, *trailer = strstr(patch, "[callus: ");

	*files = 0;
	while ((p = strstr(p, "diff --git ")) && (!trailer || p < trailer)) {
		(*files)++;
		p++;
	}
	*bytes_before_trailer = trailer ? (size_t)(trailer - patch) : strlen(patch);
}

static void test_max_bytes(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = make_repo(), *patch, *trailer, want[128];
	size_t files, bytes, i;

	(void)state;
	sh("cd '%s' && for i in $(seq 10 29); do printf 'line %%s\\n' $i >f$i.txt; done && " GIT
	   " add . && " GIT " commit -q -m many",
	   dir);
	take(&s, dir, NULL);
	sh("cd '%s' && for i in $(seq 10 29); do printf 'changed %%s\\n' $i >f$i.txt; done", dir);

	patch = diff(dir, &s, 100000);
	count_patches(patch, &files, &bytes);
	assert_int_equal(files, 20);
	assert_null(strstr(patch, "[callus:"));
	free(patch);

	patch = diff(dir, &s, 500);
	count_patches(patch, &files, &bytes);
	assert_true(files >= 1 && files < 20);
	assert_true(bytes <= 500);
	trailer = strstr(patch, "[callus: ");
	assert_non_null(trailer);
	snprintf(want, sizeof want, "[callus: %zu more files changed: f", 20 - files);
	assert_memory_equal(trailer, want, strlen(want));
	assert_string_equal(trailer + strlen(trailer) - 6, ".txt]\n");
	free(patch);

	/* Nothing fits: only the list. */
	patch = diff(dir, &s, 10);
	assert_string_equal(patch, "[callus: 20 more files changed: f10.txt, f11.txt, f12.txt, f13.txt, "
				   "f14.txt, f15.txt, f16.txt, f17.txt, f18.txt, f19.txt, f20.txt, "
				   "f21.txt, f22.txt, f23.txt, f24.txt, f25.txt, f26.txt, f27.txt, "
				   "f28.txt, f29.txt]\n");
	free(patch);
	callus_snapshot_release(&s);

	/* Long names: the list stops at about 512 bytes. */
	sh("cd '%s' && for i in $(seq 100 160); do echo x >a-rather-long-file-name-$i.txt; done",
	   dir);
	take(&s, dir, NULL);
	sh("cd '%s' && for i in $(seq 100 160); do echo y >a-rather-long-file-name-$i.txt; done",
	   dir);
	patch = diff(dir, &s, 0);
	assert_true(strlen(patch) < 600);
	assert_memory_equal(patch, "[callus: 61 more files changed: a-rather-long-file-name-100.txt, ",
			    strlen("[callus: 61 more files changed: a-rather-long-file-name-100.txt, "));
	assert_string_equal(patch + strlen(patch) - 7, ", ...]\n");
	(void)i;
	free(patch);
	callus_snapshot_release(&s);
	rmdir_all(dir);
}

/* ---- workspaces without git ------------------------------------------------- */

static void test_files_workspace(void **state)
{
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT;
	callus_buf repo = CALLUS_BUF_INIT;
	char *dir = tmpdir(), *patch;
	struct stat st;

	(void)state;
	write_str(dir, "a.txt", "alpha\nbeta\n");
	write_str(dir, "other.txt", "not listed\n");
	assert_int_equal(callus_strlist_add(&files, "a.txt", 5), 0);
	assert_int_equal(callus_strlist_add(&files, "./sub//b.txt", 12), 0);
	assert_int_equal(callus_strlist_add(&files, "a.txt", 5), 0);
	take(&s, dir, &files);
	assert_int_equal(s.kind, CALLUS_SNAPSHOT_FILES);
	assert_string_equal(s.commit, "");
	callus_buf_printf(&repo, "%s/.callus/snapshots.git", dir);
	assert_int_equal(stat(repo.ptr, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);

	patch = diff(dir, &s, 100000);
	assert_string_equal(patch, "");
	free(patch);

	write_str(dir, "a.txt", "alpha\nBETA\n");
	write_str(dir, "other.txt", "changed, but not listed\n");
	sh("mkdir '%s/sub'", dir);
	write_str(dir, "sub/b.txt", "born\n");
	patch = diff(dir, &s, 100000);
	assert_non_null(strstr(patch, "diff --git a/a.txt b/a.txt\n"));
	assert_non_null(strstr(patch, "-beta\n+BETA\n"));
	assert_non_null(strstr(patch, "diff --git a/sub/b.txt b/sub/b.txt\nnew file mode 100644\n"));
	assert_non_null(strstr(patch, "+born\n"));
	assert_null(strstr(patch, "other.txt"));
	free(patch);

	/* Gone now: deleted. */
	sh("rm '%s/a.txt'", dir);
	patch = diff(dir, &s, 100000);
	assert_non_null(strstr(patch, "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n"));
	free(patch);
	callus_snapshot_release(&s);
	callus_strlist_release(&files);
	callus_buf_release(&repo);
	rmdir_all(dir);
}

static void test_files_refused(void **state)
{
	static const char *const bad[] = { "../escape", "/etc/passwd", "a/../../b", ".git/config",
					   "" };
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	char *dir = tmpdir();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		callus_strlist files = CALLUS_STRLIST_INIT;
		callus_error e = CALLUS_ERROR_INIT;

		assert_int_equal(callus_strlist_add(&files, bad[i], strlen(bad[i])), 0);
		assert_int_equal(callus_snapshot_take(&s, dir, &files, NULL, &e), CALLUS_EINVAL);
		assert_non_null(strstr(callus_error_message(&e), "refusing path"));
		assert_null(s.tree);
		callus_error_release(&e);
		callus_strlist_release(&files);
	}
	rmdir_all(dir);
}

/* ---- the helper process ------------------------------------------------------- */

static void test_helper_missing(void **state)
{
	callus_snapshot_opts o = { "/nonexistent/callus-git", 0, NULL, 0, 0 };
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	callus_error e = CALLUS_ERROR_INIT;
	char *dir = tmpdir(), *commit = NULL;

	(void)state;
	assert_int_equal(callus_snapshot_take(&s, dir, NULL, &o, &e), CALLUS_ENOTFOUND);
	callus_error_release(&e);
	assert_int_equal(callus_snapshot_head(&commit, dir, &o, &e), CALLUS_ENOTFOUND);
	assert_null(commit);
	callus_error_release(&e);
	/* Not executable. */
	write_str(dir, "callus-git", "#!/bin/sh\necho git\n");
	o.helper = NULL;
	{
		callus_buf p = CALLUS_BUF_INIT;

		callus_buf_printf(&p, "%s/callus-git", dir);
		o.helper = p.ptr;
		assert_int_equal(callus_snapshot_take(&s, dir, NULL, &o, &e), CALLUS_ENOTFOUND);
		callus_error_release(&e);
		callus_buf_release(&p);
	}
	assert_int_equal(callus_snapshot_take(&s, "relative", NULL, NULL, &e), CALLUS_EINVAL);
	callus_error_release(&e);
	rmdir_all(dir);
}

/* A fake helper: a shell script named callus-git in dir. */
static void fake_helper(const char *dir, const char *body, callus_buf *path)
{
	callus_buf_clear(path);
	callus_buf_printf(path, "%s/callus-git", dir);
	write_str(dir, "callus-git", body);
	assert_int_equal(chmod(path->ptr, 0755), 0);
}

static void test_helper_timeout(void **state)
{
	callus_snapshot_opts o = { NULL, 300, NULL, 0, 0 };
	callus_snapshot s = CALLUS_SNAPSHOT_INIT;
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT;
	char *dir = tmpdir();
	struct timespec t0, t1;
	long ms;

	(void)state;
	fake_helper(dir, "#!/bin/sh\necho started >&2\nexec sleep 30\n", &path);
	assert_int_equal(setenv("CALLUS_GIT_HELPER", path.ptr, 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(callus_snapshot_take(&s, dir, NULL, &o, &e), CALLUS_EIO);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(setenv("CALLUS_GIT_HELPER", helper_path, 1), 0);
	assert_string_equal(callus_error_message(&e), "snapshot helper timed out after 300 ms");
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	assert_true(ms >= 290 && ms < 5000);
	/* Reaped: no child of ours is left, not even a zombie. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_null(s.tree);
	callus_error_release(&e);
	callus_buf_release(&path);
	rmdir_all(dir);
}

/* The copies of a workspace without git that no kept snapshot reaches go
 * once a day old; a kept one still diffs; bad input is refused. */
static void test_files_prune(void **state)
{
	callus_snapshot old = CALLUS_SNAPSHOT_INIT, kept = CALLUS_SNAPSHOT_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT, keep = CALLUS_STRLIST_INIT;
	callus_buf path = CALLUS_BUF_INIT;
	callus_error e = CALLUS_ERROR_INIT;
	callus_snapshot_opts o = { NULL, 5000, NULL, 0, 0 };
	char *dir = tmpdir(), *none = tmpdir(), *patch = NULL;
	size_t removed = 99, counted = 99, again = 98;

	(void)state;
	/* no private repository: nothing, and none made */
	assert_int_equal(callus_snapshot_prune(&removed, none, &keep, 0, NULL, &e), 0);
	assert_int_equal(removed, 0);
	callus_buf_printf(&path, "%s/.callus", none);
	assert_int_not_equal(access(path.ptr, F_OK), 0);
	write_str(dir, "a.txt", "one\n");
	assert_int_equal(callus_strlist_add(&files, "a.txt", 5), 0);
	take(&old, dir, &files);
	write_str(dir, "a.txt", "two\n");
	take(&kept, dir, &files);
	assert_int_equal(callus_strlist_add(&keep, kept.tree, strlen(kept.tree)), 0);
	/* younger than a day: a snapshot being taken has no row yet */
	assert_int_equal(callus_snapshot_prune(&removed, dir, &keep, 0, NULL, &e), 0);
	assert_int_equal(removed, 0);
	sh("find '%s/.callus/snapshots.git/objects' -type f -exec touch -d '2 days ago' {} +", dir);
	/* each object packed too, its loose copy left (a user's git gc or
	 * repack might): listed twice, removed once, and counted once */
	sh("g='%s/.callus/snapshots.git' && git --git-dir=\"$g\" cat-file --batch-all-objects"
	   " --batch-check='%%(objectname)' | git --git-dir=\"$g\" pack-objects -q \"$g/objects/pack/pack\""
	   " >/dev/null",
	   dir);
	/* a dry run counts what the pass removes, and removes none of it */
	assert_int_equal(callus_snapshot_prune(&counted, dir, &keep, 1, NULL, &e), 0);
	assert_int_equal(callus_snapshot_prune(&again, dir, &keep, 1, NULL, &e), 0);
	assert_int_equal(again, counted);
	assert_int_equal(callus_snapshot_prune(&removed, dir, &keep, 0, NULL, &e), 0);
	assert_true(removed >= 2); /* the old tree and its blob at least */
	assert_int_equal(removed, counted);
	assert_int_equal(callus_snapshot_prune(&counted, dir, &keep, 1, NULL, &e), 0);
	assert_int_equal(counted, 0);
	sh("rm -f '%s'/.callus/snapshots.git/objects/pack/pack-*", dir);
	/* the old copies are gone: no diff from them */
	assert_int_not_equal(callus_snapshot_diff(&patch, dir, &old, 100000, NULL, &e), 0);
	callus_error_release(&e);
	write_str(dir, "a.txt", "three\n");
	patch = diff(dir, &kept, 100000);
	assert_non_null(strstr(patch, "-two\n+three\n"));
	free(patch);
	/* the keep list is the caller's: a tree id that is none is refused */
	callus_strlist_release(&keep);
	assert_int_equal(callus_strlist_add(&keep, "not-a-tree", 10), 0);
	assert_int_equal(callus_snapshot_prune(&removed, dir, &keep, 0, NULL, &e), CALLUS_EINVAL);
	callus_error_release(&e);
	/* an answer that is no count */
	fake_helper(none, "#!/bin/sh\nprintf 'ok 4\\nabc\\n'\n", &path);
	o.helper = path.ptr;
	assert_int_equal(callus_snapshot_prune(&removed, dir, &keep, 0, &o, &e), CALLUS_EIO);
	callus_error_release(&e);
	callus_snapshot_release(&old);
	callus_snapshot_release(&kept);
	callus_strlist_release(&files);
	callus_strlist_release(&keep);
	callus_buf_release(&path);
	rmdir_all(dir);
	rmdir_all(none);
}

static void test_helper_bad_output(void **state)
{
	static const struct {
		const char *script;
		int rc;
		const char *msg;
	} cases[] = {
		{ "echo 'callus-git: boom' >&2; exit 1", CALLUS_EIO, "callus-git: boom" },
		{ "exit 3", CALLUS_EIO, "snapshot helper exited with status 3" },
		{ "echo 'callus-git: bad' >&2; exit 2", CALLUS_EINVAL, "callus-git: bad" },
		{ "kill -9 $$", CALLUS_EIO, "snapshot helper killed by signal 9" },
		{ "echo git 123 -", CALLUS_EIO, NULL },
		{ "echo 'git 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -'; echo more", CALLUS_EIO, NULL },
		{ "echo 'svn 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -'", CALLUS_EIO, NULL },
		{ "echo 'files 4b825dc642cb6eb9a060e54bf8d69288fbee4904 "
		  "4b825dc642cb6eb9a060e54bf8d69288fbee4904'", CALLUS_EIO, NULL },
		{ "printf 'git 4B825DC642CB6EB9A060E54BF8D69288FBEE4904 -\\n'", CALLUS_EIO, NULL },
		{ "printf 'git 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -'", CALLUS_EIO, NULL },
		{ "head -c 100000 /dev/zero", CALLUS_EIO, NULL },
		/* the answer's frame: "ok|error|usage LEN", LEN bytes, nothing after */
		{ "echo 'git 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -'", CALLUS_EIO, NULL },
		{ "printf 'ok 47\\ngit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -\\nmore'", CALLUS_EIO,
		  NULL },
		{ "printf 'ok 48\\ngit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -\\n'", CALLUS_EIO, NULL },
		{ "printf 'ok 47\\nsvn 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -\\n'", CALLUS_EIO, NULL },
		{ "printf 'ok\\ngit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -\\n'", CALLUS_EIO, NULL },
		{ "printf 'ok -1\\n'", CALLUS_EIO, NULL },
		{ "printf 'ok 47\\ngit 4b825dc642cb6eb9a060e54bf8d6928\\0fbee4904 -\\n'", CALLUS_EIO, NULL },
		{ "printf 'error 17\\ncallus-git: nope\\n'", CALLUS_EIO, "callus-git: nope" },
		{ "printf 'usage 18\\ncallus-git: yours\\n'", CALLUS_EINVAL, "callus-git: yours" },
		{ "printf 'fine 0\\n'", CALLUS_EIO, NULL },
		{ "true", CALLUS_EIO, NULL },
		{ "printf 'ok 47\\ngit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -\\n'", 0, NULL },
	};
	callus_buf path = CALLUS_BUF_INIT, body = CALLUS_BUF_INIT;
	char *dir = tmpdir();
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		callus_snapshot s = CALLUS_SNAPSHOT_INIT;
		callus_error e = CALLUS_ERROR_INIT;
		callus_snapshot_opts o = { NULL, 5000, NULL, 0, 0 };

		callus_buf_clear(&body);
		callus_buf_printf(&body, "#!/bin/sh\n%s\n", cases[i].script);
		fake_helper(dir, body.ptr, &path);
		o.helper = path.ptr;
		if (callus_snapshot_take(&s, dir, NULL, &o, &e) != cases[i].rc)
			fail_msg("case %zu (%s): %s", i, cases[i].script, callus_error_message(&e));
		if (cases[i].msg)
			assert_string_equal(callus_error_message(&e), cases[i].msg);
		if (cases[i].rc == 0)
			assert_string_equal(s.commit, "");
		callus_snapshot_release(&s);
		callus_error_release(&e);
	}
	callus_buf_release(&path);
	callus_buf_release(&body);
	rmdir_all(dir);
}

/*
 * A snapshot, a diff and HEAD in one run of the helper (a recording's
 * needs): the same answers as the single calls, one process started, and
 * a request that fails leaves the others answered.
 */
static void test_batch_one_process(void **state)
{
	callus_snapshot_req reqs[4] = {
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_TAKE),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_HEAD),
	};
	callus_snapshot before = CALLUS_SNAPSHOT_INIT, bogus = CALLUS_SNAPSHOT_INIT;
	callus_snapshot_opts o = { NULL, 0, NULL, 0, 0 };
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf wrap = CALLUS_BUF_INIT, body = CALLUS_BUF_INIT;
	char *dir = make_repo(), *bin = tmpdir(), *head, *want, *count;

	(void)state;
	take(&before, dir, NULL);
	write_str(dir, "a.txt", "one\nTWO\nthree\n");
	/* a wrapper that counts its starts */
	callus_buf_printf(&body, "#!/bin/sh\necho >>'%s/starts'\nexec '%s' \"$@\"\n", bin, helper_path);
	fake_helper(bin, body.ptr, &wrap);
	o.helper = wrap.ptr;
	bogus.kind = CALLUS_SNAPSHOT_GIT;
	bogus.tree = strdup("0123456789012345678901234567890123456789");
	reqs[1].snap = &before;
	reqs[1].max_bytes = 100000;
	reqs[2].snap = &bogus;
	reqs[2].max_bytes = 100000;
	assert_int_equal(callus_snapshot_run(reqs, 4, dir, &o, &e), 0);
	count = slurp(bin, "starts", NULL);
	assert_string_equal(count, "\n");
	free(count);

	head = run("cd '%s' && git rev-parse HEAD", dir);
	chomp(head);
	assert_int_equal(reqs[0].rc, 0);
	assert_int_equal(reqs[0].taken.kind, CALLUS_SNAPSHOT_GIT);
	assert_string_equal(reqs[0].taken.commit, head);
	assert_string_not_equal(reqs[0].taken.tree, before.tree);
	assert_int_equal(reqs[1].rc, 0);
	want = run("cd '%s' && git --no-optional-locks diff", dir);
	assert_string_equal(reqs[1].text, want);
	assert_int_equal(reqs[2].rc, CALLUS_EIO);
	assert_non_null(strstr(callus_error_message(&reqs[2].err), "no such snapshot"));
	assert_null(reqs[2].text);
	assert_int_equal(reqs[3].rc, 0);
	assert_string_equal(reqs[3].text, head);
	/* a snapshot of now is what the diff compared with: nothing since */
	{
		char *none = diff(dir, &reqs[0].taken, 100000);

		assert_string_equal(none, "");
		free(none);
	}
	for (size_t i = 0; i < 4; i++)
		callus_snapshot_req_release(&reqs[i]);

	/* no helper: every request says why */
	o.helper = "/nonexistent/callus-git";
	reqs[1].snap = &before;
	assert_int_equal(callus_snapshot_run(reqs, 4, dir, &o, &e), CALLUS_ENOTFOUND);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(reqs[i].rc, CALLUS_ENOTFOUND);
		assert_string_equal(callus_error_message(&reqs[i].err), callus_error_message(&e));
		callus_snapshot_req_release(&reqs[i]);
	}
	callus_error_release(&e);
	free(head);
	free(want);
	callus_snapshot_release(&before);
	callus_snapshot_release(&bogus);
	callus_buf_release(&wrap);
	callus_buf_release(&body);
	rmdir_all(bin);
	rmdir_all(dir);
}

/* A kept tree of kind named tree, with no commit. */
static void kept_as(callus_snapshot *out, callus_snapshot_kind kind, const char *tree)
{
	out->kind = kind;
	assert_non_null(out->tree = strdup(tree));
	assert_non_null(out->commit = strdup(""));
}

/*
 * A diff to a kept tree ("diffto", req.to): from one snapshot to another,
 * whatever the working tree holds since, and --since leaves it alone (a
 * file's time now says nothing of the kept tree).  Only git snapshots of
 * object ids: a files one, or a malformed id, is refused before the
 * helper runs; a tree the repository lacks is one gone (req.to_gone).
 */
static void test_diff_to_a_kept_tree(void **state)
{
	callus_snapshot_req reqs[4] = {
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_DIFF),
	};
	callus_snapshot before = CALLUS_SNAPSHOT_INIT, fixed = CALLUS_SNAPSHOT_INIT;
	callus_snapshot files = CALLUS_SNAPSHOT_INIT, bad = CALLUS_SNAPSHOT_INIT;
	callus_snapshot gone = CALLUS_SNAPSHOT_INIT;
	callus_snapshot_opts o = { NULL, 0, NULL, 0, 0 };
	callus_error e = CALLUS_ERROR_INIT;
	char *dir = make_repo(), *want;

	(void)state;
	take(&before, dir, NULL);
	write_str(dir, "a.txt", "one\nTWO\nthree\n");
	want = run("cd '%s' && git --no-optional-locks diff", dir);
	take(&fixed, dir, NULL);
	/* the next work, which a diff to now would show */
	write_str(dir, "a.txt", "one\nTWO\nthree\nfour\n");
	write_str(dir, "next.txt", "more\n");
	o.since_ns = 1;
	kept_as(&files, CALLUS_SNAPSHOT_FILES, fixed.tree);
	/* not an object id: refused before the helper runs */
	kept_as(&bad, CALLUS_SNAPSHOT_GIT, "not-a-tree");
	/* an id the repository does not hold (a kept tree pruned): the
	 * helper says so, and the request says it is gone */
	kept_as(&gone, CALLUS_SNAPSHOT_GIT, "1111111111111111111111111111111111111111");
	{
		callus_snapshot *to[4] = { &fixed, &files, &bad, &gone };

		for (size_t i = 0; i < 4; i++) {
			reqs[i].snap = &before;
			reqs[i].to = to[i];
			reqs[i].max_bytes = 100000;
		}
	}
	assert_int_equal(callus_snapshot_run(reqs, 4, dir, &o, &e), 0);
	assert_int_equal(reqs[0].rc, 0);
	assert_string_equal(reqs[0].text, want);
	assert_int_equal(reqs[0].to_gone, 0);
	assert_int_equal(reqs[1].rc, CALLUS_EINVAL);
	assert_int_equal(reqs[2].rc, CALLUS_EINVAL);
	assert_int_equal(reqs[2].to_gone, 0);
	assert_int_equal(reqs[3].rc, CALLUS_EIO);
	assert_int_equal(reqs[3].to_gone, 1);
	for (size_t i = 0; i < 4; i++)
		callus_snapshot_req_release(&reqs[i]);
	callus_error_release(&e);
	free(want);
	callus_snapshot_release(&before);
	callus_snapshot_release(&fixed);
	callus_snapshot_release(&files);
	callus_snapshot_release(&bad);
	callus_snapshot_release(&gone);
	rmdir_all(dir);
}

/*
 * The two steps (callus_snapshot_start/finish): the helper works while
 * the caller does, a helper that finished before the caller came to
 * collect it is read whole however late (its time counts from the
 * finish), one still running is killed its time after the finish began,
 * and an abandoned one is let finish (never killed midway through its
 * objects) and reaped.
 */
static void test_started_then_finished(void **state)
{
	callus_snapshot_req reqs[2] = {
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_TAKE),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_HEAD),
	};
	callus_snapshot_opts o = { NULL, 200, NULL, 0, 0 };
	callus_snapshot_batch *b = NULL;
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf wrap = CALLUS_BUF_INIT, body = CALLUS_BUF_INIT;
	struct timespec nap = { 0, 600 * 1000000L };
	char *dir = make_repo(), *bin = tmpdir(), *head, *mark;

	(void)state;
	write_str(dir, "a.txt", "one\nTWO\nthree\n");
	/* the helper leaves a mark once done, so the test knows it ran
	 * before the finish was asked */
	callus_buf_printf(&body, "#!/bin/sh\n'%s' \"$@\"; rc=$?; echo done >'%s/done'; exit $rc\n",
			  helper_path, bin);
	fake_helper(bin, body.ptr, &wrap);
	o.helper = wrap.ptr;
	assert_int_equal(callus_snapshot_start(&b, reqs, 2, dir, &o, &e), 0);
	assert_non_null(b);
	/* three times its 200 ms a request: the answers wait in the pipe */
	nanosleep(&nap, NULL);
	mark = slurp(bin, "done", NULL);
	assert_string_equal(mark, "done\n");
	free(mark);
	assert_int_equal(callus_snapshot_finish(b, &e), 0);
	head = run("cd '%s' && git rev-parse HEAD", dir);
	chomp(head);
	assert_int_equal(reqs[0].rc, 0);
	assert_non_null(reqs[0].taken.tree);
	assert_int_equal(reqs[1].rc, 0);
	assert_string_equal(reqs[1].text, head);
	for (size_t i = 0; i < 2; i++)
		callus_snapshot_req_release(&reqs[i]);

	/* still running its time after the finish began: killed, every
	 * request says so */
	callus_buf_clear(&body);
	callus_buf_printf(&body, "#!/bin/sh\nexec sleep 30\n");
	fake_helper(bin, body.ptr, &wrap);
	assert_int_equal(callus_snapshot_start(&b, reqs, 2, dir, &o, &e), 0);
	nanosleep(&nap, NULL);
	assert_int_equal(callus_snapshot_finish(b, &e), CALLUS_EIO);
	assert_string_equal(callus_error_message(&e), "snapshot helper timed out after 400 ms");
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(reqs[i].rc, CALLUS_EIO);
		callus_snapshot_req_release(&reqs[i]);
	}
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);

	/* abandoned: let finish, then reaped */
	callus_buf_clear(&body);
	callus_buf_printf(&body, "#!/bin/sh\nsleep 0.3; echo done >'%s/finished'\n", bin);
	fake_helper(bin, body.ptr, &wrap);
	o.timeout_ms = 30000;
	assert_int_equal(callus_snapshot_start(&b, reqs, 2, dir, &o, &e), 0);
	assert_non_null(b);
	callus_snapshot_abandon(b);
	mark = slurp(bin, "finished", NULL);
	assert_string_equal(mark, "done\n");
	free(mark);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	callus_snapshot_abandon(NULL);
	assert_int_equal(callus_snapshot_finish(NULL, &e), 0);

	/* no helper: the start fails, every request saying why, no batch */
	o.helper = "/nonexistent/callus-git";
	b = (callus_snapshot_batch *)&o; /* overwritten */
	assert_int_equal(callus_snapshot_start(&b, reqs, 2, dir, &o, &e), CALLUS_ENOTFOUND);
	assert_null(b);
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(reqs[i].rc, CALLUS_ENOTFOUND);
		callus_snapshot_req_release(&reqs[i]);
	}
	callus_error_release(&e);
	free(head);
	callus_buf_release(&wrap);
	callus_buf_release(&body);
	rmdir_all(bin);
	rmdir_all(dir);
}

/* A child that prints more than a pipe holds (stdout given room, stderr
 * not) while its caller works longer than the child's time: its time
 * counts from the wait, so it is not killed for the time it waited to be
 * read. */
static void test_child_output_past_a_pipe(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "head -c 200000 /dev/zero; head -c 70000 /dev/zero >&2", NULL };
	callus_child_opts co = { "test child", argv, NULL, NULL, 0, 300000, 300, 0 };
	struct timespec nap = { 0, 700 * 1000000L };
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf out = CALLUS_BUF_INIT;
	callus_child *c = NULL;

	(void)state;
	for (int round = 0; round < 2; round++) {
		co.out_max = round ? 0 : 300000;
		assert_int_equal(callus_child_start(&c, &co, &e), 0);
		nanosleep(&nap, NULL);
		assert_int_equal(callus_child_wait(c, &out, &e), 0);
		assert_int_equal(out.len, 200000);
		callus_buf_release(&out);
	}
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	callus_error_release(&e);
}

/* The helper refuses a malformed command line with status 2, before any
 * request runs (a snapshot would write objects). */
static void test_helper_usage(void **state)
{
	static const char *const lines[] = {
		"",                                   /* no command */
		"snapshot @",                      /* the old single commands */
		"head @",
		"batch @",                         /* no request */
		"batch @ bogus",                   /* not a request */
		"batch @ snapshot",                /* no count */
		"batch @ snapshot 2 a.txt",        /* fewer files than counted */
		"batch @ snapshot -1",
		"batch @ snapshot x",
		"batch @ diff git 4b825dc642cb6eb9a060e54bf8d69288fbee4904",  /* no MAX_BYTES */
		"batch @ diffto 4b825dc642cb6eb9a060e54bf8d69288fbee4904 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"batch @ head snapshot 0 diff",    /* the last one short */
		"batch --since x @ head",
		"batch --since -5 @ head",
	};
	char *dir = make_repo(), *objects_before, *objects_after;

	(void)state;
	objects_before = run("cd '%s' && find .git/objects -type f | sort", dir);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		callus_buf cmd = CALLUS_BUF_INIT;
		int st;

		callus_buf_printf(&cmd, "'%s' ", helper_path);
		/* @ is the workspace */
		for (const char *c = lines[i]; *c; c++)
			if (*c == '@')
				callus_buf_printf(&cmd, "'%s'", dir);
			else
				callus_buf_putc(&cmd, *c);
		callus_buf_puts(&cmd, " >/dev/null 2>&1");
		st = system(cmd.ptr);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 2)
			fail_msg("%s: status %d, not 2", cmd.ptr, st);
		callus_buf_release(&cmd);
	}
	objects_after = run("cd '%s' && find .git/objects -type f | sort", dir);
	assert_string_equal(objects_before, objects_after);
	free(objects_before);
	free(objects_after);
	rmdir_all(dir);
}

/* A run's timeout is the per-request timeout times its requests: two
 * requests answered after 1.5 times it are not killed; one is. */
static void test_batch_timeout_per_request(void **state)
{
	callus_snapshot_req reqs[2] = {
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_HEAD),
		CALLUS_SNAPSHOT_REQ_INIT(CALLUS_SNAPSHOT_REQ_HEAD),
	};
	callus_snapshot_opts o = { NULL, 300, NULL, 0, 0 };
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT;
	char *dir = tmpdir();

	(void)state;
	fake_helper(dir, "#!/bin/sh\nsleep 0.45\nprintf 'ok 2\\n-\\nok 2\\n-\\n'\n", &path);
	o.helper = path.ptr;
	assert_int_equal(callus_snapshot_run(reqs, 2, dir, &o, &e), 0);
	assert_int_equal(reqs[0].rc, 0);
	assert_int_equal(reqs[1].rc, 0);
	assert_string_equal(reqs[0].text, "");
	for (size_t i = 0; i < 2; i++)
		callus_snapshot_req_release(&reqs[i]);
	assert_int_equal(callus_snapshot_run(reqs, 1, dir, &o, &e), CALLUS_EIO);
	assert_string_equal(callus_error_message(&e), "snapshot helper timed out after 300 ms");
	assert_int_equal(reqs[0].rc, CALLUS_EIO);
	callus_snapshot_req_release(&reqs[0]);
	callus_error_release(&e);
	callus_buf_release(&path);
	rmdir_all(dir);
}

static void test_kind_names(void **state)
{
	callus_snapshot_kind k = CALLUS_SNAPSHOT_GIT;

	(void)state;
	assert_string_equal(callus_snapshot_kind_name(CALLUS_SNAPSHOT_GIT), "git");
	assert_string_equal(callus_snapshot_kind_name(CALLUS_SNAPSHOT_FILES), "files");
	assert_int_equal(callus_snapshot_kind_parse(&k, "files"), 0);
	assert_int_equal(k, CALLUS_SNAPSHOT_FILES);
	assert_int_equal(callus_snapshot_kind_parse(&k, "git"), 0);
	assert_int_equal(k, CALLUS_SNAPSHOT_GIT);
	assert_int_equal(callus_snapshot_kind_parse(&k, "svn"), CALLUS_EINVAL);
	assert_int_equal(callus_snapshot_kind_parse(&k, NULL), CALLUS_EINVAL);
	callus_snapshot_release(NULL);
}

/* build/tests/test_snapshot -> build/callus-git */
static void find_helper(const char *argv0)
{
	char *self = realpath(argv0, NULL);
	char *slash;

	if (!self) {
		fprintf(stderr, "test_snapshot: cannot resolve %s\n", argv0);
		exit(1);
	}
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(helper_path, sizeof helper_path, "%s/../callus-git", self);
	free(self);
	if (access(helper_path, X_OK) != 0) {
		fprintf(stderr, "test_snapshot: no helper at %s (make builds it)\n", helper_path);
		exit(1);
	}
	setenv("CALLUS_GIT_HELPER", helper_path, 1);
}

/* A snapshot written down outside the store and read back: the helper's
 * own line; nothing else reads as one. */
static void test_text_round_trip(void **state)
{
	const char *tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
	const char *commit = "0123456789abcdef0123456789abcdef01234567";
	callus_snapshot s = { CALLUS_SNAPSHOT_GIT, (char *)tree, (char *)commit }, back;
	char *text;
	const char *const bad[] = {
		"", "git", "git 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"svn 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -",
		"git 4b825dc642cb6eb9a060e54bf8d69288fbee490 -",
		"git 4b825dc642cb6eb9a060e54bf8d69288fbee4904 - extra",
		"git 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -\n",
		"files 4b825dc642cb6eb9a060e54bf8d69288fbee4904 0123456789abcdef0123456789abcdef01234567",
	};

	(void)state;
	assert_non_null(text = callus_snapshot_to_text(&s));
	assert_int_equal(callus_snapshot_from_text(&back, text), 0);
	assert_int_equal(back.kind, CALLUS_SNAPSHOT_GIT);
	assert_string_equal(back.tree, tree);
	assert_string_equal(back.commit, commit);
	callus_snapshot_release(&back);
	free(text);
	s.kind = CALLUS_SNAPSHOT_FILES;
	s.commit = (char *)"";
	assert_non_null(text = callus_snapshot_to_text(&s));
	assert_int_equal(callus_snapshot_from_text(&back, text), 0);
	assert_int_equal(back.kind, CALLUS_SNAPSHOT_FILES);
	assert_string_equal(back.commit, "");
	assert_int_equal(callus_snapshot_copy(&s, &back), 0);
	assert_ptr_not_equal(s.tree, back.tree);
	assert_string_equal(s.tree, tree);
	callus_snapshot_release(&s);
	callus_snapshot_release(&back);
	free(text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(callus_snapshot_from_text(&back, bad[i]), CALLUS_EINVAL);
		assert_null(back.tree);
	}
	assert_int_equal(callus_snapshot_from_text(&back, NULL), CALLUS_EINVAL);
	s.tree = NULL;
	assert_null(callus_snapshot_to_text(&s));
	assert_true(callus_snapshot_is_oid(tree));
	assert_false(callus_snapshot_is_oid("4B825DC642CB6EB9A060E54BF8D69288FBEE4904"));
	assert_false(callus_snapshot_is_oid("4b825dc642cb6eb9a060e54bf8d69288fbee490"));
	assert_false(callus_snapshot_is_oid("4b825dc642cb6eb9a060e54bf8d69288fbee49045"));
	assert_false(callus_snapshot_is_oid(""));
	assert_false(callus_snapshot_is_oid(NULL));
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_round_trip),
		cmocka_unit_test(test_edit_tracked),
		cmocka_unit_test(test_new_untracked_file),
		cmocka_unit_test(test_excluded_paths),
		cmocka_unit_test(test_deleted_ignored_binary),
		cmocka_unit_test(test_repository_untouched),
		cmocka_unit_test(test_tree_as_git_writes_it),
		cmocka_unit_test(test_diff_as_git_shows_it),
		cmocka_unit_test(test_unborn_head),
		cmocka_unit_test(test_subdirectory_and_private_files),
		cmocka_unit_test(test_since_in_a_subfolder_workspace),
		cmocka_unit_test(test_submodule_left_alone),
		cmocka_unit_test(test_max_bytes),
		cmocka_unit_test(test_files_workspace),
		cmocka_unit_test(test_files_refused),
		cmocka_unit_test(test_files_prune),
		cmocka_unit_test(test_helper_missing),
		cmocka_unit_test(test_helper_timeout),
		cmocka_unit_test(test_helper_bad_output),
		cmocka_unit_test(test_batch_one_process),
		cmocka_unit_test(test_diff_to_a_kept_tree),
		cmocka_unit_test(test_started_then_finished),
		cmocka_unit_test(test_child_output_past_a_pipe),
		cmocka_unit_test(test_helper_usage),
		cmocka_unit_test(test_batch_timeout_per_request),
		cmocka_unit_test(test_kind_names),
	};

	(void)argc;
	find_helper(argv[0]);
	/* The repositories here are the tests', whatever the caller's
	 * environment points git at. */
	unsetenv("GIT_DIR");
	unsetenv("GIT_WORK_TREE");
	unsetenv("GIT_INDEX_FILE");
	unsetenv("GIT_OBJECT_DIRECTORY");
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
