/*
 * test_fsutil.c - atomic writes, mkdir -p, bounded reads, links, locks.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/fsutil.h"
#include "tmpdir_helpers.h"

struct fixture {
	char dir[64];
	callus_buf a, b; /* two scratch paths */
};

/* fsync, wrapped (the Makefile links this test with --wrap=fsync): the
 * calls counted by what they synced, a directory or a file. */
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);
static int synced_dirs, synced_files, datasynced;
/* when set, a person's edit of this file made while a file is synced (a
 * write's temporary file, before its rename) */
static const char *edit_while_synced;

int __wrap_fdatasync(int fd)
{
	datasynced++;
	return __real_fdatasync(fd);
}

int __wrap_fsync(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		synced_dirs++;
	} else {
		synced_files++;
		if (edit_while_synced) {
			FILE *fp = fopen(edit_while_synced, "a");

			if (fp) {
				fputs("a person's line\n", fp);
				fclose(fp);
			}
		}
	}
	return __real_fsync(fd);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (test_tmpdir_make(f->dir, sizeof(f->dir), "fsutil") < 0) {
		free(f);
		return -1;
	}
	callus_buf_init(&f->a, 0);
	callus_buf_init(&f->b, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	test_tmpdir_remove(f->dir);
	callus_buf_release(&f->a);
	callus_buf_release(&f->b);
	free(f);
	return 0;
}

static const char *path_in(callus_buf *b, struct fixture *f, const char *name)
{
	callus_buf_clear(b);
	callus_buf_printf(b, "%s/%s", f->dir, name);
	return b->ptr;
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_write_atomic_modes_and_replace(void **state)
{
	struct fixture *f = *state;
	const char *p = path_in(&f->a, f, "file");
	callus_buf got = CALLUS_BUF_INIT;
	struct stat st;
	mode_t old_umask;

	assert_int_equal(callus_fs_write_atomic(p, "one\0two", 7, 0600, 0, NULL), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(callus_fs_read_file(&got, p, 0, NULL), 0);
	assert_int_equal(got.len, 7);
	assert_memory_equal(got.ptr, "one\0two", 7);

	/* Exact mode even when the umask would take bits away. */
	old_umask = umask(077);
	assert_int_equal(callus_fs_write_atomic(p, "x", 1, 0644, 0, NULL), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* ...and filtered through it when asked. */
	assert_int_equal(callus_fs_write_atomic(p, "", 0, 0666, CALLUS_FS_UMASK, NULL), 0);
	umask(old_umask);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 0);
	assert_int_equal(count_entries(f->dir), 1); /* no temporary left */
	callus_buf_release(&got);
}

/* The file is synced before its rename, except for a view the store makes
 * again whole (CALLUS_FS_REBUILT); the directory after it, but not for a
 * view of the store (CALLUS_FS_VIEW, CALLUS_FS_REBUILT). */
static void test_write_atomic_syncs(void **state)
{
	static const struct {
		unsigned flags;
		int files, dirs;
		const char *text;
	} cases[] = {
		{ 0, 1, 1, "one" },
		{ CALLUS_FS_VIEW, 1, 0, "two" },
		{ CALLUS_FS_REBUILT, 0, 0, "three" },
	};
	struct fixture *f = *state;
	const char *p = path_in(&f->a, f, "file");
	callus_buf got = CALLUS_BUF_INIT;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t len = strlen(cases[i].text);

		synced_dirs = synced_files = 0;
		assert_int_equal(callus_fs_write_atomic(p, cases[i].text, len, 0600, cases[i].flags,
							NULL),
				 0);
		assert_int_equal(synced_files, cases[i].files);
		assert_int_equal(synced_dirs, cases[i].dirs);
		assert_int_equal(callus_fs_read_file(&got, p, 0, NULL), 0);
		assert_int_equal(got.len, len);
		assert_memory_equal(got.ptr, cases[i].text, len);
		assert_int_equal(count_entries(f->dir), 1); /* no temporary left */
	}
	callus_buf_release(&got);
}

static int64_t mtime_of(const char *p)
{
	struct stat st;

	assert_int_equal(lstat(p, &st), 0);
	return (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* A file a person may edit is replaced only while it is as callus saw it:
 * changed before the write or while it is written (during the temporary
 * file's fsync), or removed, it is left as it is, and no temporary file
 * or new file stays. */
static void test_write_atomic_unless_changed(void **state)
{
	struct fixture *f = *state;
	const char *p = path_in(&f->a, f, "note.md");
	callus_buf got = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	struct timespec t[2] = { { 0, UTIME_OMIT }, { 1000000000, 5 } };
	int64_t seen;

	assert_int_equal(callus_fs_write_atomic(p, "callus's\n", 9, 0644, 0, NULL), 0);
	seen = mtime_of(p);
	assert_int_equal(callus_fs_write_atomic_unless_changed(p, "again\n", 6, 0644, 0, seen, NULL, NULL),
			 0);
	assert_int_equal(callus_fs_read_file(&got, p, 0, NULL), 0);
	assert_string_equal(got.ptr, "again\n");
	seen = mtime_of(p);

	/* changed before (its mtime moved) */
	assert_int_equal(utimensat(AT_FDCWD, p, t, 0), 0);
	assert_int_equal(callus_fs_write_atomic_unless_changed(p, "over\n", 5, 0644, 0, seen, NULL, &err),
			 CALLUS_ECHANGED);
	assert_non_null(strstr(callus_error_message(&err), "changed since callus read it"));
	callus_error_release(&err);
	assert_int_equal(callus_fs_read_file(&got, p, 0, NULL), 0);
	assert_string_equal(got.ptr, "again\n");
	seen = mtime_of(p);

	/* changed while the new text was synced */
	edit_while_synced = p;
	assert_int_equal(callus_fs_write_atomic_unless_changed(p, "over\n", 5, 0644, 0, seen, NULL, NULL),
			 CALLUS_ECHANGED);
	edit_while_synced = NULL;
	assert_int_equal(callus_fs_read_file(&got, p, 0, NULL), 0);
	assert_string_equal(got.ptr, "again\na person's line\n");
	assert_int_equal(count_entries(f->dir), 1);

	/* removed: not made again */
	seen = mtime_of(p);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(callus_fs_write_atomic_unless_changed(p, "over\n", 5, 0644, 0, seen, NULL, NULL),
			 CALLUS_ECHANGED);
	assert_int_equal(count_entries(f->dir), 0);
	callus_buf_release(&got);
}

static void test_write_atomic_replaces_symlink(void **state)
{
	struct fixture *f = *state;
	const char *target = path_in(&f->b, f, "target");
	const char *link = path_in(&f->a, f, "link");
	callus_buf got = CALLUS_BUF_INIT;
	struct stat st;

	assert_int_equal(callus_fs_write_atomic(target, "keep", 4, 0600, 0, NULL), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(callus_fs_write_atomic(link, "new", 3, 0600, 0, NULL), 0);
	assert_int_equal(lstat(link, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(callus_fs_read_file(&got, target, 0, NULL), 0);
	assert_string_equal(got.ptr, "keep");
	callus_buf_release(&got);
}

/*
 * A file the user named for output is reached as a shell's > would: a
 * FIFO (as /dev/null or a terminal: not a regular file) is written
 * through and stays a FIFO, a symlink leads to the file it names and stays
 * a link, a regular file is replaced, a directory refused.
 */
static void test_write_output(void **state)
{
	struct fixture *f = *state;
	const char *fifo = path_in(&f->a, f, "fifo");
	char got[16] = "";
	callus_buf text = CALLUS_BUF_INIT, link = CALLUS_BUF_INIT, dir = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	struct stat st;
	mode_t old_umask;
	pid_t pid;
	int fd, status;

	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* a reader on the other end, or the write would wait */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		ssize_t n;

		alarm(10); /* a FIFO replaced by a file has no writer: fail, not hang */
		fd = open(fifo, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, got, sizeof(got) - 1);
		_exit(n == 5 && !memcmp(got, "page\n", 5) ? 0 : 1);
	}
	assert_int_equal(callus_fs_write_output(fifo, "page\n", 5, NULL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));

	path_in(&f->b, f, "file");
	callus_buf_printf(&link, "%s/link", f->dir);
	assert_int_equal(symlink("file", link.ptr), 0);
	assert_int_equal(callus_fs_write_output(link.ptr, "one", 3, NULL), 0);
	assert_int_equal(lstat(link.ptr, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(callus_fs_read_file(&text, f->b.ptr, 0, NULL), 0);
	assert_string_equal(text.ptr, "one");
	/* a file there keeps its mode, as > leaves it (the umask would make
	 * it 0644) */
	assert_int_equal(chmod(f->b.ptr, 0640), 0);
	old_umask = umask(022);
	assert_int_equal(callus_fs_write_output(f->b.ptr, "two", 3, NULL), 0);
	umask(old_umask);
	assert_int_equal(callus_fs_read_file(&text, f->b.ptr, 0, NULL), 0);
	assert_string_equal(text.ptr, "two");
	assert_int_equal(stat(f->b.ptr, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);

	callus_buf_printf(&dir, "%s/dir", f->dir);
	assert_int_equal(mkdir(dir.ptr, 0700), 0);
	assert_int_equal(callus_fs_write_output(dir.ptr, "x", 1, &err), CALLUS_EINVAL);
	assert_non_null(strstr(callus_error_message(&err), "is a directory"));
	assert_int_equal(stat(dir.ptr, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	callus_error_release(&err);
	callus_buf_release(&text);
	callus_buf_release(&link);
	callus_buf_release(&dir);
}

/* A mapping is of a regular file reached without a symlink, its size
 * within the caller's bounds; anything else is none. */
static void test_map(void **state)
{
	struct fixture *f = *state;
	const char *file = path_in(&f->a, f, "index");
	callus_buf other = CALLUS_BUF_INIT;
	callus_fs_mapped m = { NULL, 0 };

	assert_int_equal(callus_fs_map(&m, file, 0, 100), -1); /* none */
	assert_int_equal(callus_fs_write_atomic(file, "", 0, 0600, 0, NULL), 0);
	assert_int_equal(callus_fs_map(&m, file, 0, 100), -1); /* empty */
	assert_int_equal(callus_fs_write_atomic(file, "0123456789", 10, 0600, 0, NULL), 0);
	assert_int_equal(callus_fs_map(&m, file, 10, 10), 0);
	assert_int_equal(m.len, 10);
	assert_memory_equal(m.ptr, "0123456789", 10);
	callus_fs_unmap(&m);
	assert_null(m.ptr);
	assert_int_equal(m.len, 0);
	callus_fs_unmap(&m); /* twice: nothing */
	assert_int_equal(callus_fs_map(&m, file, 11, 100), -1); /* under min */
	assert_int_equal(callus_fs_map(&m, file, 0, 9), -1);    /* over max */
	assert_null(m.ptr);
	callus_buf_printf(&other, "%s/link", f->dir);
	assert_int_equal(symlink(file, other.ptr), 0);
	assert_int_equal(callus_fs_map(&m, other.ptr, 0, 100), -1);
	assert_int_equal(callus_fs_map(&m, f->dir, 0, 1u << 30), -1); /* a directory */
	callus_buf_release(&other);
}

static void test_write_atomic_error(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	const char *p = path_in(&f->a, f, "no/such/dir/file");

	assert_int_equal(callus_fs_write_atomic(p, "x", 1, 0600, 0, &err), CALLUS_EIO);
	assert_non_null(strstr(err.msg, "no/such/dir/file'"));
	assert_non_null(strstr(err.msg, "No such file or directory"));
	callus_error_release(&err);
}

static void test_mkdir_p(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	struct stat st;

	assert_int_equal(callus_fs_mkdir_p(path_in(&f->a, f, "a//b/c/"), 0700, &err), 0);
	assert_int_equal(stat(path_in(&f->a, f, "a/b/c"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	/* Existing directories are fine. */
	assert_int_equal(callus_fs_mkdir_p(path_in(&f->a, f, "a/b"), 0700, &err), 0);
	assert_null(err.msg);

	/* A file in the way is an error naming it. */
	assert_int_equal(callus_fs_write_atomic(path_in(&f->a, f, "a/file"), "", 0, 0600, 0, NULL), 0);
	assert_int_equal(callus_fs_mkdir_p(path_in(&f->a, f, "a/file/x"), 0700, &err), CALLUS_EIO);
	assert_non_null(strstr(err.msg, "cannot create directory '"));
	assert_non_null(strstr(err.msg, "a/file'"));
	callus_error_release(&err);
	/* ... and so is a file where the directory would be */
	assert_int_equal(callus_fs_mkdir_p(path_in(&f->a, f, "a/file"), 0700, &err), CALLUS_EIO);
	assert_non_null(strstr(err.msg, "a/file': Not a directory"));
	callus_error_release(&err);
	assert_int_equal(callus_fs_mkdir_p("", 0700, &err), CALLUS_EINVAL);
	callus_error_release(&err);
}

static void test_read_file(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf got = CALLUS_BUF_INIT, big = CALLUS_BUF_INIT;
	const char *p = path_in(&f->a, f, "big");

	for (int i = 0; i < 100000; i++)
		callus_buf_putc(&big, (char)('a' + i % 26));
	assert_int_equal(callus_fs_write_atomic(p, big.ptr, big.len, 0600, 0, NULL), 0);

	callus_buf_puts(&got, "old contents are cleared");
	assert_int_equal(callus_fs_read_file(&got, p, big.len, &err), 0);
	assert_int_equal(got.len, big.len);
	assert_memory_equal(got.ptr, big.ptr, big.len);
	assert_int_equal(got.ptr[got.len], '\0');

	assert_int_equal(callus_fs_read_file(&got, p, big.len - 1, &err), CALLUS_ETOOBIG);
	assert_non_null(strstr(err.msg, "big'"));
	callus_error_release(&err);

	/* Missing: its own code, and no message to clobber the caller's. */
	assert_int_equal(callus_fs_read_file(&got, path_in(&f->a, f, "nope"), 0, &err),
			 CALLUS_ENOTFOUND);
	assert_null(err.msg);

	assert_int_equal(callus_fs_read_file(&got, f->dir, 0, &err), CALLUS_EINVAL);
	assert_non_null(strstr(err.msg, "not a regular file"));
	callus_error_release(&err);

	/* A FIFO must not hang the reader. */
	assert_int_equal(mkfifo(path_in(&f->a, f, "fifo"), 0600), 0);
	assert_int_equal(callus_fs_read_file(&got, f->a.ptr, 0, &err), CALLUS_EINVAL);
	callus_error_release(&err);
	callus_buf_release(&got);
	callus_buf_release(&big);
}

static void test_resolve_link(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf out = CALLUS_BUF_INIT, want = CALLUS_BUF_INIT;

	/* Not a link (or missing): unchanged. */
	assert_int_equal(callus_fs_resolve_link(&out, "relative/none", &err), 0);
	assert_string_equal(out.ptr, "relative/none");

	/* l1 -> sub/l2 (relative) -> <abs>/real (absolute, dangling) */
	assert_int_equal(mkdir(path_in(&f->a, f, "sub"), 0700), 0);
	path_in(&want, f, "real");
	assert_int_equal(symlink(want.ptr, path_in(&f->a, f, "sub/l2")), 0);
	assert_int_equal(symlink("sub/l2", path_in(&f->a, f, "l1")), 0);
	assert_int_equal(callus_fs_resolve_link(&out, f->a.ptr, &err), 0);
	assert_string_equal(out.ptr, want.ptr);

	/* ../ relative to the link's own directory */
	assert_int_equal(symlink("../real", path_in(&f->a, f, "sub/up")), 0);
	assert_int_equal(callus_fs_resolve_link(&out, f->a.ptr, &err), 0);
	assert_string_equal(out.ptr, path_in(&f->b, f, "sub/../real"));

	/* A loop is an error, not a hang. */
	assert_int_equal(symlink("loop2", path_in(&f->a, f, "loop1")), 0);
	assert_int_equal(symlink("loop1", path_in(&f->a, f, "loop2")), 0);
	assert_int_equal(callus_fs_resolve_link(&out, f->a.ptr, &err), CALLUS_EIO);
	assert_non_null(strstr(err.msg, "loop2'"));
	callus_error_release(&err);
	callus_buf_release(&out);
	callus_buf_release(&want);
}

static void test_lock(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	const char *p = path_in(&f->a, f, "x.lock");
	struct stat st;
	int fd = -1, fd2 = -1, status;
	pid_t pid;

	assert_int_equal(callus_fs_lock(&fd, p, 0, &err), 0);
	assert_true(fd >= 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	/* flock is per open file description: a second open in this same
	 * process conflicts just as another process would. */
	assert_int_equal(callus_fs_lock(&fd2, p, 30, &err), CALLUS_EBUSY);
	assert_int_equal(fd2, -1);
	assert_non_null(strstr(err.msg, "x.lock' stayed locked"));
	callus_error_release(&err);

	/* Another process waits until we let go. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int cfd = -1;

		_exit(callus_fs_lock(&cfd, p, 5000, NULL) == 0 ? 0 : 1);
	}
	usleep(50000);
	callus_fs_unlock(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	assert_int_equal(callus_fs_lock(&fd, p, 0, &err), 0);
	callus_fs_unlock(fd);
	callus_fs_unlock(-1);
	assert_int_equal(callus_fs_lock(&fd, path_in(&f->a, f, "no/dir/x.lock"), 0, &err), CALLUS_EIO);
	callus_error_release(&err);
}

/* A file made and done with at every hook is kept as a spare and the next
 * one made from it: the same inode, written over and cut, named once
 * whole; anything at the spare but a private file of one link is left
 * where it is, never followed, written through or waited on. */
static void test_spare(void **state)
{
	struct fixture *f = *state;
	char a[128], b[128], t[128], spare[128], target[128];
	callus_buf got = CALLUS_BUF_INIT;
	struct stat st1, st2;

	snprintf(a, sizeof(a), "%s/a", f->dir);
	snprintf(b, sizeof(b), "%s/b", f->dir);
	snprintf(t, sizeof(t), "%s/.tmp", f->dir);
	snprintf(spare, sizeof(spare), "%s/.spare", f->dir);
	snprintf(target, sizeof(target), "%s/target", f->dir);
	/* no spare: made anew, private */
	assert_int_equal(callus_fs_write_spare(spare, t, a, "a longer first text\n", 20), 0);
	assert_int_equal(stat(a, &st1), 0);
	assert_int_equal(st1.st_mode & 0777, 0600);
	callus_fs_keep_spare(a, spare);
	assert_int_equal(access(a, F_OK), -1);
	/* kept without its text, but not cut to nothing: a file cut to
	 * nothing is written out at its next close by ext4 and xfs, and
	 * ext4 frees (and may discard) its block at once */
	assert_int_equal(callus_fs_read_file(&got, spare, 0, NULL), 0);
	assert_int_equal(got.len, 1);
	assert_string_equal(got.ptr, "\n");
	/* blanking is what kept it so: a longer text, the same inode, the
	 * offset past the newline */
	{
		int fd = open(b, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		struct stat before, after;

		assert_true(fd >= 0);
		assert_int_equal(write(fd, "a secret of some length\n", 24), 24);
		assert_int_equal(fstat(fd, &before), 0);
		assert_int_equal(callus_fs_blank(fd), 0);
		assert_int_equal(lseek(fd, 0, SEEK_CUR), 1);
		assert_int_equal(fstat(fd, &after), 0);
		assert_true(before.st_ino == after.st_ino);
		close(fd);
		assert_int_equal(callus_fs_read_file(&got, b, 0, NULL), 0);
		assert_string_equal(got.ptr, "\n");
		assert_int_equal(unlink(b), 0);
	}
	/* the spare taken: the same inode, only the new text */
	assert_int_equal(callus_fs_write_spare(spare, t, b, "second\n", 7), 0);
	assert_int_equal(access(spare, F_OK), -1);
	assert_int_equal(access(t, F_OK), -1); /* named once whole */
	assert_int_equal(stat(b, &st2), 0);
	/* (a file system without RENAME_NOREPLACE, NFS: a new file each time) */
	if (test_tmpdir_noreplace(f->dir))
		assert_true(st1.st_ino == st2.st_ino);
	assert_int_equal(callus_fs_read_file(&got, b, 0, NULL), 0);
	assert_string_equal(got.ptr, "second\n");
	/* a temporary name taken already is not taken over, spare or not */
	assert_int_equal(callus_fs_write_atomic(t, "mine\n", 5, 0600, 0, NULL), 0);
	assert_int_equal(callus_fs_write_spare(spare, t, a, "x\n", 2), -1);
	assert_int_equal(errno, EEXIST);
	callus_fs_keep_spare(b, spare);
	assert_int_equal(callus_fs_write_spare(spare, t, a, "x\n", 2), -1);
	assert_int_equal(errno, EEXIST);
	assert_int_equal(callus_fs_read_file(&got, t, 0, NULL), 0);
	assert_string_equal(got.ptr, "mine\n");
	assert_int_equal(access(a, F_OK), -1);
	assert_int_equal(access(spare, F_OK), 0);
	assert_int_equal(unlink(spare), 0);
	assert_int_equal(unlink(t), 0);
	/* a link: left where it is, its target untouched */
	assert_int_equal(callus_fs_write_atomic(target, "keep\n", 5, 0600, 0, NULL), 0);
	assert_int_equal(symlink(target, spare), 0);
	assert_int_equal(callus_fs_write_spare(spare, t, a, "x\n", 2), 0);
	assert_int_equal(lstat(a, &st1), 0);
	assert_true(S_ISREG(st1.st_mode));
	assert_int_equal(lstat(spare, &st1), 0);
	assert_true(S_ISLNK(st1.st_mode));
	assert_int_equal(callus_fs_read_file(&got, target, 0, NULL), 0);
	assert_string_equal(got.ptr, "keep\n");
	assert_int_equal(unlink(a), 0);
	assert_int_equal(unlink(spare), 0);
	/* a hard link to a file elsewhere: never written through */
	assert_int_equal(link(target, spare), 0);
	assert_int_equal(callus_fs_write_spare(spare, t, a, "x\n", 2), 0);
	assert_int_equal(callus_fs_read_file(&got, target, 0, NULL), 0);
	assert_string_equal(got.ptr, "keep\n");
	assert_int_equal(unlink(a), 0);
	assert_int_equal(unlink(spare), 0);
	/* a FIFO: not waited on */
	assert_int_equal(mkfifo(spare, 0600), 0);
	assert_int_equal(callus_fs_write_spare(spare, t, a, "x\n", 2), 0);
	assert_int_equal(lstat(a, &st1), 0);
	assert_true(S_ISREG(st1.st_mode));
	assert_int_equal(unlink(a), 0);
	assert_int_equal(unlink(spare), 0);
	/* a spare open to others is taken back private */
	assert_int_equal(callus_fs_write_atomic(spare, "old\n", 4, 0644, 0, NULL), 0);
	assert_int_equal(callus_fs_write_spare(spare, t, a, "x\n", 2), 0);
	assert_int_equal(stat(a, &st1), 0);
	assert_int_equal(st1.st_mode & 0777, 0600);
	callus_buf_release(&got);
}

/* A file's maker is gone when its pid is dead or unknown, or the file is
 * older than the staleness bound (pids are reused); its age from the later
 * of its mtime and ctime (a file renamed from an old spare is new). */
static void test_maker_gone(void **state)
{
	struct stat st = { 0 };
	pid_t child;
	int status;

	(void)state;
	st.st_mtime = st.st_ctime = 1000;
	assert_false(callus_fs_maker_gone(getpid(), &st, 1010, 60));
	assert_true(callus_fs_maker_gone(getpid(), &st, 1061, 60));
	assert_true(callus_fs_maker_gone(0, &st, 1000, 60));
	st.st_ctime = 1050; /* renamed into place at 1050 from a file of 1000 */
	assert_false(callus_fs_maker_gone(getpid(), &st, 1061, 60));
	st.st_mtime = 1050;
	st.st_ctime = 1000;
	assert_false(callus_fs_maker_gone(getpid(), &st, 1061, 60));
	child = fork();
	if (child == 0)
		_exit(0);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(callus_fs_maker_gone(child, &st, 1000, 60));
}

static void write_file(const char *path, const char *text)
{
	assert_int_equal(callus_fs_write_atomic(path, text, strlen(text), 0600, 0, NULL), 0);
}

/* For the sweep: "left-PID" names a maker, anything else none. */
static long left_by(const char *name, void *ctx)
{
	(void)ctx;
	return strncmp(name, "left-", 5) ? -1 : strtol(name + 5, NULL, 10);
}

/* callus_fs_sweep_gone: only regular files of makers that are gone, by
 * name; counted without fix, removed with it. */
static void test_sweep_gone(void **state)
{
	struct fixture *f = *state;
	char path[256], missing[256];
	size_t removed = 99;
	pid_t dead = fork();
	int status;

	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, &status, 0), dead);
	snprintf(path, sizeof(path), "%s/left-%ld", f->dir, (long)dead);
	write_file(path, "x");
	snprintf(path, sizeof(path), "%s/left-%ld", f->dir, (long)getpid());
	write_file(path, "x");            /* its maker lives */
	snprintf(path, sizeof(path), "%s/kept-%ld", f->dir, (long)dead);
	write_file(path, "x");            /* not such a name */
	snprintf(path, sizeof(path), "%s/left-0", f->dir);
	assert_int_equal(mkdir(path, 0700), 0); /* not a regular file */
	snprintf(path, sizeof(path), "%s/left-%ld.link", f->dir, (long)dead);
	assert_int_equal(symlink("/etc/hostname", path), 0); /* never followed */

	assert_int_equal(callus_fs_sweep_gone(f->dir, left_by, NULL, 600, 0, &removed), 1);
	assert_int_equal(removed, 0);
	snprintf(path, sizeof(path), "%s/left-%ld", f->dir, (long)dead);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(callus_fs_sweep_gone(f->dir, left_by, NULL, 600, 1, &removed), 1);
	assert_int_equal(removed, 1);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(callus_fs_sweep_gone(f->dir, left_by, NULL, 600, 1, NULL), 0);
	snprintf(path, sizeof(path), "%s/left-%ld", f->dir, (long)getpid());
	assert_int_equal(access(path, F_OK), 0);
	snprintf(missing, sizeof(missing), "%s/none", f->dir);
	assert_int_equal(callus_fs_sweep_gone(missing, left_by, NULL, 600, 1, &removed), 0);
	assert_int_equal(removed, 0);
}

struct visits {
	int n, stop_at;
	char name[64], path[256];
};

static int visit(const char *path, const char *name, void *ctx)
{
	struct visits *v = ctx;

	v->n++;
	snprintf(v->name, sizeof(v->name), "%s", name);
	snprintf(v->path, sizeof(v->path), "%s", path);
	return v->n == v->stop_at ? -7 : 0;
}

/* The pid in a name that starts with the prefix ctx names. */
static long prefixed_by(const char *name, void *ctx)
{
	size_t n = strlen(ctx);

	return strncmp(name, ctx, n) ? -1 : strtol(name + n, NULL, 10);
}

/* callus_fs_each_gone: the visitor gets each gone maker's file, its path
 * and its name, each callback its own context; a visitor's < 0 stops the
 * walk and is its result; a live
 * maker's file, a name of no maker and a folder it cannot read are
 * nobody's visit. */
static void test_each_gone(void **state)
{
	struct fixture *f = *state;
	char path[256], want[256];
	struct visits v = { 0, 0, "", "" };
	pid_t dead[2];
	int status;

	for (int i = 0; i < 2; i++) {
		if ((dead[i] = fork()) == 0)
			_exit(0);
		assert_int_equal(waitpid(dead[i], &status, 0), dead[i]);
		snprintf(path, sizeof(path), "%s/left-%ld", f->dir, (long)dead[i]);
		write_file(path, "x");
	}
	snprintf(path, sizeof(path), "%s/left-%ld", f->dir, (long)getpid());
	write_file(path, "x");
	snprintf(path, sizeof(path), "%s/other-%ld", f->dir, (long)dead[0]);
	write_file(path, "x");
	/* past any pid: as a pid_t, -1, which kill() takes for every process */
	snprintf(path, sizeof(path), "%s/left-4294967295", f->dir);
	write_file(path, "x");

	assert_int_equal(callus_fs_each_gone(f->dir, 600, left_by, NULL, visit, &v), 0);
	assert_int_equal(v.n, 3);
	assert_int_equal(unlink(path), 0);
	v.n = 0;
	assert_int_equal(callus_fs_each_gone(f->dir, 600, left_by, NULL, visit, &v), 0);
	assert_int_equal(v.n, 2);
	assert_int_equal(strncmp(v.name, "left-", 5), 0);
	assert_int_not_equal(strtol(v.name + 5, NULL, 10), (long)getpid());
	snprintf(want, sizeof(want), "%s/%s", f->dir, v.name);
	assert_string_equal(v.path, want);
	/* stopped at the first: its result */
	v.n = 0;
	v.stop_at = 1;
	assert_int_equal(callus_fs_each_gone(f->dir, 600, left_by, NULL, visit, &v), -7);
	assert_int_equal(v.n, 1);
	/* the maker's context is the maker's, the visitor's the visitor's */
	v.n = 0;
	v.stop_at = 0;
	assert_int_equal(callus_fs_each_gone(f->dir, 600, prefixed_by, "other-", visit, &v), 0);
	assert_int_equal(v.n, 1);
	assert_int_equal(strncmp(v.name, "other-", 6), 0);
	v.n = 0;
	snprintf(path, sizeof(path), "%s/none", f->dir);
	assert_int_equal(callus_fs_each_gone(path, 600, left_by, NULL, visit, &v), 0);
	assert_int_equal(v.n, 0);
}

/* Eight processes appending 1 KB lines at once: every line arrives whole. */
static void test_append_line_concurrent(void **state)
{
	struct fixture *f = *state;
	char path[128], line[1001], buf[1100];
	FILE *in;
	int fd, lines = 0;

	snprintf(path, sizeof(path), "%s/log", f->dir);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	assert_true(fd >= 0);
	for (int w = 0; w < 8; w++) {
		if (fork() == 0) {
			memset(line, 'a' + w, 1000);
			line[1000] = '\0';
			for (int i = 0; i < 200; i++)
				if (callus_fs_append_line(fd, line) < 0)
					_exit(1);
			_exit(0);
		}
	}
	for (int w = 0; w < 8; w++) {
		int status;

		wait(&status);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	close(fd);
	in = fopen(path, "r");
	while (fgets(buf, sizeof(buf), in)) {
		assert_int_equal(strlen(buf), 1001);
		for (int k = 1; k < 1000; k++)
			assert_int_equal(buf[k], buf[0]);
		lines++;
	}
	fclose(in);
	assert_int_equal(lines, 1600);
}

/* A line a full disk cut short is ended before the next is appended (the
 * log, the metrics' spool): the next is read whole.  An empty file, or one
 * whose last line is whole, gets the line alone; a descriptor that cannot
 * read appends as before. */
static void test_append_line_after_torn(void **state)
{
	struct fixture *f = *state;
	char path[128];
	callus_buf got = CALLUS_BUF_INIT;
	int fd;

	snprintf(path, sizeof(path), "%s/log", f->dir);
	fd = open(path, O_RDWR | O_APPEND | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(callus_fs_append_line(fd, "{\"a\":1}"), 0);
	assert_int_equal(callus_fs_append_line(fd, "{\"b\":2}"), 0);
	assert_int_equal(write(fd, "{\"cu", 4), 4);
	assert_int_equal(callus_fs_append_line(fd, "{\"c\":3}"), 0);
	assert_int_equal(callus_fs_append_line(fd, "{\"d\":4}"), 0);
	close(fd);
	assert_int_equal(callus_fs_read_file(&got, path, 0, NULL), 0);
	assert_string_equal(got.ptr, "{\"a\":1}\n{\"b\":2}\n{\"cu\n{\"c\":3}\n{\"d\":4}\n");
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"e", 3), 3);
	assert_int_equal(callus_fs_append_line(fd, "}"), 0);
	close(fd);
	assert_int_equal(callus_fs_read_file(&got, path, 0, NULL), 0);
	assert_string_equal(got.ptr + got.len - 5, "{\"e}\n");
	callus_buf_release(&got);
}

/* What the indexes beside the store append with: to an existing file, not
 * through a symlink (the file it names untouched), never creating one;
 * synced (checks.idx) or, with CALLUS_FS_REBUILT, not (files.idx). */
static void test_append(void **state)
{
	struct fixture *f = *state;
	char path[128], link[128], other[128];
	callus_buf got = CALLUS_BUF_INIT;

	snprintf(path, sizeof(path), "%s/idx", f->dir);
	snprintf(link, sizeof(link), "%s/link", f->dir);
	snprintf(other, sizeof(other), "%s/other", f->dir);
	assert_int_equal(callus_fs_append(path, "a\n", 2, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(callus_fs_write_atomic(path, "h\n", 2, 0600, 0, NULL), 0);
	datasynced = 0;
	assert_int_equal(callus_fs_append(path, "a\n", 2, 0), 0);
	assert_int_equal(datasynced, 1);
	assert_int_equal(callus_fs_append(path, "bc\n", 3, CALLUS_FS_REBUILT), 0);
	assert_int_equal(datasynced, 1);
	assert_int_equal(callus_fs_write_atomic(other, "o\n", 2, 0600, 0, NULL), 0);
	assert_int_equal(symlink(other, link), 0);
	assert_int_equal(callus_fs_append(link, "x\n", 2, 0), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(callus_fs_append(link, "x\n", 2, CALLUS_FS_REBUILT), -1);
	assert_int_equal(errno, ELOOP);
	assert_int_equal(callus_fs_read_file(&got, path, 0, NULL), 0);
	assert_string_equal(got.ptr, "h\na\nbc\n");
	/* the link's target untouched */
	assert_int_equal(callus_fs_read_file(&got, other, 0, NULL), 0);
	assert_string_equal(got.ptr, "o\n");
	callus_buf_release(&got);
}

/* One of callus's own files written in place: a regular file of one name
 * opens; a FIFO opens at once and is refused (EINVAL), a file with a
 * second name (a hard link from elsewhere) is refused (EMLINK), a link is
 * not followed. */
static void test_open_own(void **state)
{
	struct fixture *f = *state;
	char path[256], other[256], fifo[256], lnk[256];
	int fd;

	snprintf(path, sizeof(path), "%s/own", f->dir);
	snprintf(other, sizeof(other), "%s/elsewhere", f->dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", f->dir);
	snprintf(lnk, sizeof(lnk), "%s/link", f->dir);
	fd = callus_fs_open_own(path, O_WRONLY | O_APPEND | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(callus_fs_open_own(fifo, O_RDWR, 0), -1);
	assert_int_equal(errno, EINVAL);
	/* no reader: without O_NONBLOCK this open would wait for one */
	assert_int_equal(callus_fs_open_own(fifo, O_WRONLY | O_APPEND, 0), -1);
	assert_int_equal(link(path, other), 0);
	assert_int_equal(callus_fs_open_own(path, O_WRONLY | O_APPEND, 0), -1);
	assert_int_equal(errno, EMLINK);
	assert_int_equal(unlink(other), 0);
	assert_int_equal(symlink(path, lnk), 0);
	assert_int_equal(callus_fs_open_own(lnk, O_WRONLY | O_APPEND, 0), -1);
	fd = callus_fs_open_own(path, O_RDONLY, 0);
	assert_true(fd >= 0);
	close(fd);
}

/* $XDG_<var> when absolute, else $HOME/<fallback>; neither: not found.
 * The environment is the process's: put back as it was. */
static void test_user_path(void **state)
{
	char *xdg = getenv("XDG_DATA_HOME") ? strdup(getenv("XDG_DATA_HOME")) : NULL;
	char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	setenv("XDG_DATA_HOME", "/data", 1);
	setenv("HOME", "/home/u", 1);
	assert_int_equal(callus_fs_user_path(&b, "XDG_DATA_HOME", ".local/share", "x.tsv"), 0);
	assert_string_equal(b.ptr, "/data/callus/x.tsv");
	/* a relative one is not the specification's: the home's */
	setenv("XDG_DATA_HOME", "data", 1);
	assert_int_equal(callus_fs_user_path(&b, "XDG_DATA_HOME", ".local/share", "x.tsv"), 0);
	assert_string_equal(b.ptr, "/home/u/.local/share/callus/x.tsv");
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "", 1);
	assert_int_equal(callus_fs_user_path(&b, "XDG_DATA_HOME", ".local/share", "x.tsv"),
			 CALLUS_ENOTFOUND);
	unsetenv("HOME");
	assert_int_equal(callus_fs_user_path(&b, "XDG_DATA_HOME", ".local/share", "x.tsv"),
			 CALLUS_ENOTFOUND);
	if (xdg)
		setenv("XDG_DATA_HOME", xdg, 1);
	if (home)
		setenv("HOME", home, 1);
	free(xdg);
	free(home);
	callus_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_atomic_modes_and_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_syncs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_unless_changed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_replaces_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_atomic_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_map, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_line_concurrent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_line_after_torn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spare, setup, teardown),
		cmocka_unit_test(test_maker_gone),
		cmocka_unit_test_setup_teardown(test_sweep_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_own, setup, teardown),
		cmocka_unit_test(test_user_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
