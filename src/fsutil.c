#include "callus/fsutil.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

/* Symlink chains longer than this are loops for all practical purposes
 * (the kernel's own limit is 40). */
#define LINK_HOPS_MAX 40

/* The directory part of path ("." when it has none), for placing a
 * temporary file next to it and fsyncing the directory after a rename. */
static int dir_of(callus_buf *out, const char *path)
{
	const char *slash = strrchr(path, '/');

	callus_buf_clear(out);
	if (!slash)
		return callus_buf_putc(out, '.');
	if (slash == path)
		return callus_buf_putc(out, '/');
	return callus_buf_put(out, path, (size_t)(slash - path));
}

int callus_fs_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO; /* no progress */
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Create a fresh temporary file next to path.  mkstemp() would force 0600,
 * which defeats CALLUS_FS_UMASK, so the name is made unique by hand and
 * O_EXCL guarantees that no existing file (or planted symlink) is opened.
 */
static int open_temp(callus_buf *tmp, const char *path, mode_t mode, callus_error *err)
{
	const char *slash = strrchr(path, '/');
	size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	for (unsigned attempt = 0; attempt < 100; attempt++) {
		int fd;

		callus_buf_clear(tmp);
		callus_buf_put(tmp, path, dirlen);
		callus_buf_printf(tmp, ".%s.callus-%ld-%lx-%u.tmp", path + dirlen,
				(long)getpid(), (unsigned long)ts.tv_nsec, attempt);
		if (callus_buf_status(tmp) < 0)
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		fd = open(tmp->ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
			  mode & 07777);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return callus_error_set(err, CALLUS_EIO, "cannot create a temporary file for '%s': %s",
					      path, strerror(errno));
	}
	return callus_error_set(err, CALLUS_EIO, "cannot create a temporary file for '%s': %s",
			      path, strerror(EEXIST));
}

int callus_fs_map(callus_fs_mapped *m, const char *path, size_t min, size_t max)
{
	struct stat st;
	void *p = MAP_FAILED;
	/* O_NONBLOCK: a FIFO at path opens at once, and is no file to map */
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	m->ptr = NULL;
	m->len = 0;
	if (fd < 0)
		return -1;
	/* an empty file cannot be mapped; min keeps callers' headers whole */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    (uint64_t)st.st_size >= min && (uint64_t)st.st_size <= max)
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	m->ptr = p;
	m->len = (size_t)st.st_size;
	return 0;
}

void callus_fs_unmap(callus_fs_mapped *m)
{
	if (m->ptr)
		munmap((void *)m->ptr, m->len);
	m->ptr = NULL;
	m->len = 0;
}

int callus_fs_write_output(const char *path, const void *data, size_t len, callus_error *err)
{
	callus_buf target = CALLUS_BUF_INIT;
	struct stat st;
	int fd = -1, rc, there = stat(path, &st) == 0;

	if (there && S_ISDIR(st.st_mode))
		return callus_error_set(err, CALLUS_EINVAL, "'%s' is a directory", path);
	if (there && !S_ISREG(st.st_mode)) {
		if ((fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC)) < 0)
			return callus_error_set(err, CALLUS_EIO, "cannot open '%s': %s", path,
					      strerror(errno));
		/* a file put there since the stat is replaced, not written over */
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0) {
		rc = callus_fs_write_all(fd, data, len);
		if (close(fd) < 0)
			rc = -1;
		return rc < 0 ? callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", path,
					       strerror(errno))
			      : 0;
	}
	/* a file there keeps its mode, as > leaves it; a new one is 0666
	 * less the umask (st is the target's: stat follows links) */
	if ((rc = callus_fs_resolve_link(&target, path, err)) == 0)
		rc = there && S_ISREG(st.st_mode)
			     ? callus_fs_write_atomic(target.ptr, data, len, st.st_mode & 07777, 0, err)
			     : callus_fs_write_atomic(target.ptr, data, len, 0666, CALLUS_FS_UMASK, err);
	callus_buf_release(&target);
	return rc;
}

/* Whether path is still the file callus saw, its mtime mtime_ns (gone
 * is changed: a person's removal). */
static int unchanged(const char *path, int64_t mtime_ns)
{
	struct stat st;

	return lstat(path, &st) == 0 &&
	       (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec == mtime_ns;
}

static int write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			unsigned flags, int64_t mtime_ns, struct stat *written, callus_error *err)
{
	callus_buf tmp = CALLUS_BUF_INIT, dir = CALLUS_BUF_INIT;
	int fd = -1, dfd, rc;
	int created = 0;

	if ((fd = open_temp(&tmp, path, mode, err)) < 0) {
		rc = fd;
		goto out;
	}
	created = 1;
	if (callus_fs_write_all(fd, data, len) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	/* open() already applied the umask; fchmod sets the exact mode. */
	if (!(flags & CALLUS_FS_UMASK) && fchmod(fd, mode & 07777) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot set the mode of '%s': %s",
				    path, strerror(errno));
		goto out;
	}
	/* Without this a crash after rename can leave an empty file where the
	 * old contents used to be: for a rebuilt view, an empty file is what
	 * callus doctor writes again. */
	if (!(flags & CALLUS_FS_REBUILT) && fsync(fd) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	/* what was written, from the file itself: the path after the rename
	 * may already be another's edit */
	if (written && fstat(fd, written) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	if (close(fd) < 0) {
		fd = -1;
		rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	fd = -1;
	if (mtime_ns != CALLUS_FS_ANY_MTIME && !unchanged(path, mtime_ns)) {
		rc = callus_error_set(err, CALLUS_ECHANGED, "'%s' changed since callus read it",
				      path);
		goto out;
	}
	if (rename(tmp.ptr, path) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto out;
	}
	created = 0;
	/* Best effort: the rename has happened, and some file systems refuse
	 * to fsync a directory; failing now would tell the caller the write
	 * did not happen when it did. */
	if (!(flags & (CALLUS_FS_VIEW | CALLUS_FS_REBUILT)) && dir_of(&dir, path) == 0 &&
	    (dfd = open(dir.ptr, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (created)
		unlink(tmp.ptr);
	callus_buf_release(&tmp);
	callus_buf_release(&dir);
	return rc;
}

int callus_fs_write_atomic(const char *path, const void *data, size_t len, mode_t mode,
			   unsigned flags, callus_error *err)
{
	return write_atomic(path, data, len, mode, flags, CALLUS_FS_ANY_MTIME, NULL, err);
}

int callus_fs_write_atomic_unless_changed(const char *path, const void *data, size_t len,
					  mode_t mode, unsigned flags, int64_t mtime_ns,
					  struct stat *written, callus_error *err)
{
	/* not looked at before the write too: the caller has just read it */
	return write_atomic(path, data, len, mode, flags, mtime_ns, written, err);
}

/* After mkdir(dir) failed with errno: 0 when dir is a directory already. */
static int mkdir_failed(const char *dir, callus_error *err)
{
	struct stat st;

	if (errno == EEXIST) {
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			return 0;
		errno = ENOTDIR;
	}
	return callus_error_set(err, CALLUS_EIO, "cannot create directory '%s': %s",
			      dir, strerror(errno));
}

static int mkdir_one(const char *dir, mode_t mode, callus_error *err)
{
	return mkdir(dir, mode) == 0 ? 0 : mkdir_failed(dir, err);
}

int callus_fs_mkdir_p(const char *dir, mode_t mode, callus_error *err)
{
	callus_buf b = CALLUS_BUF_INIT;
	size_t len = strlen(dir);
	int rc;

	if (!len)
		return callus_error_set(err, CALLUS_EINVAL, "cannot create a directory with an empty name");
	/* Nearly always the directory is there already (a hook's .callus/ and
	 * .lessons/): a mkdir and a stat say so, where making each parent
	 * first took the two a level of the path.  Otherwise the walk below makes the
	 * missing parents, or names the one in the way. */
	if (mkdir(dir, mode) == 0)
		return 0;
	if (errno == EEXIST)
		return mkdir_failed(dir, err);
	if ((rc = callus_buf_put(&b, dir, len)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	/* Each prefix ending before a '/' is a parent; a leading '/' and
	 * repeated slashes produce prefixes that already exist. */
	for (size_t i = 1; i < len; i++) {
		if (b.ptr[i] != '/' || b.ptr[i - 1] == '/')
			continue;
		b.ptr[i] = '\0';
		rc = mkdir_one(b.ptr, mode, err);
		b.ptr[i] = '/';
		if (rc < 0)
			goto out;
	}
	rc = mkdir_one(b.ptr, mode, err);
out:
	callus_buf_release(&b);
	return rc;
}

int callus_fs_read_file(callus_buf *out, const char *path, size_t max, callus_error *err)
{
	struct stat st;
	int fd, rc;

	callus_buf_clear(out);
	/* O_NONBLOCK so that a FIFO at path cannot hang us before fstat
	 * tells us it is not a regular file. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		/* a path through a file that is no folder names nothing */
		if (errno == ENOENT || errno == ENOTDIR)
			return CALLUS_ENOTFOUND;
		return callus_error_set(err, CALLUS_EIO, "cannot read '%s': %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = callus_error_set(err, CALLUS_EINVAL, "cannot read '%s': not a regular file", path);
		goto out;
	}
	if (max && (uintmax_t)st.st_size > (uintmax_t)max)
		goto toobig;
	/* The size is a hint only: the file may change while we read. */
	for (;;) {
		size_t n;

		if ((rc = callus_buf_read(out, fd, 65536, &n)) == CALLUS_ETOOBIG)
			goto toobig;
		if (rc == CALLUS_EIO && errno == EINTR)
			continue;
		if (rc == CALLUS_EIO) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (rc < 0) {
			rc = callus_error_set(err, rc, "out of memory reading '%s'", path);
			goto out;
		}
		if (n == 0)
			break;
		if (max && out->len > max)
			goto toobig;
	}
	rc = 0;
	goto out;
toobig:
	rc = callus_error_set(err, CALLUS_ETOOBIG, "cannot read '%s': larger than %zu bytes", path, max);
out:
	close(fd);
	return rc;
}

int callus_fs_resolve_link(callus_buf *out, const char *path, callus_error *err)
{
	callus_buf target = CALLUS_BUF_INIT, next = CALLUS_BUF_INIT;
	struct stat st;
	int rc;

	callus_buf_clear(out);
	if ((rc = callus_buf_puts(out, path)) < 0)
		goto oom;
	for (int hops = 0;; hops++) {
		ssize_t n;

		if (lstat(out->ptr, &st) < 0) {
			if (errno == ENOENT)
				break;
			rc = callus_error_set(err, CALLUS_EIO, "cannot stat '%s': %s",
					    out->ptr, strerror(errno));
			goto out;
		}
		if (!S_ISLNK(st.st_mode))
			break;
		if (hops == LINK_HOPS_MAX) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot resolve '%s': %s",
					    path, strerror(ELOOP));
			goto out;
		}
		/* st_size is only a hint (0 on some file systems): grow until
		 * readlink leaves room to spare. */
		for (size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 256;; cap *= 2) {
			callus_buf_clear(&target);
			if ((rc = callus_buf_grow(&target, cap)) < 0)
				goto oom;
			n = readlink(out->ptr, target.ptr, cap);
			if (n < 0) {
				rc = callus_error_set(err, CALLUS_EIO, "cannot read link '%s': %s",
						    out->ptr, strerror(errno));
				goto out;
			}
			if ((size_t)n < cap)
				break;
		}
		target.len = (size_t)n;
		target.ptr[n] = '\0';
		callus_buf_clear(&next);
		if (target.ptr[0] != '/') {
			const char *slash = strrchr(out->ptr, '/');

			if (slash)
				callus_buf_put(&next, out->ptr, (size_t)(slash - out->ptr) + 1);
		}
		callus_buf_put(&next, target.ptr, target.len);
		if (callus_buf_status(&next) < 0)
			goto oom;
		callus_buf_clear(out);
		if ((rc = callus_buf_put(out, next.ptr, next.len)) < 0)
			goto oom;
	}
	rc = 0;
	goto out;
oom:
	rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
out:
	callus_buf_release(&target);
	callus_buf_release(&next);
	return rc;
}

int callus_fs_user_path(callus_buf *out, const char *var, const char *fallback, const char *name)
{
	const char *x = getenv(var), *home = getenv("HOME");

	callus_buf_clear(out);
	if (x && *x == '/')
		callus_buf_printf(out, "%s/callus/%s", x, name);
	else if (home && *home)
		callus_buf_printf(out, "%s/%s/callus/%s", home, fallback, name);
	else
		return CALLUS_ENOTFOUND;
	return callus_buf_status(out);
}

int callus_fs_lock(int *out_fd, const char *lock_path, unsigned timeout_ms, callus_error *err)
{
	struct timespec nap = { 0, 1000000 }; /* 1 ms, doubling to 64 ms */
	uint64_t waited_ns = 0;
	int fd;

	*out_fd = -1;
	/* a link put there (a clone may carry one) is not followed: its
	 * target, anywhere, was made or opened for writing.  The lock's
	 * name is callus's: what is not a file of its own there is replaced */
	fd = callus_fs_open_own(lock_path, O_RDWR | O_CREAT | O_NOCTTY, 0600);
	if (fd < 0 && (errno == ELOOP || errno == EMLINK || errno == EINVAL || errno == ENXIO) &&
	    (unlink(lock_path) == 0 || errno == ENOENT))
		fd = callus_fs_open_own(lock_path, O_RDWR | O_CREAT | O_NOCTTY, 0600);
	if (fd < 0)
		return callus_error_set(err, CALLUS_EIO, "cannot open lock file '%s': %s",
				      lock_path, strerror(errno));
	/* Polling instead of a blocking flock: a stuck holder must cost the
	 * caller a bounded wait, never hang an agent's hook. */
	for (;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno != EWOULDBLOCK) {
			int e = errno;

			close(fd);
			return callus_error_set(err, CALLUS_EIO, "cannot lock '%s': %s",
					      lock_path, strerror(e));
		}
		if (waited_ns >= (uint64_t)timeout_ms * 1000000u) {
			close(fd);
			return callus_error_set(err, CALLUS_EBUSY, "'%s' stayed locked for %u ms",
					      lock_path, timeout_ms);
		}
		nanosleep(&nap, NULL);
		waited_ns += (uint64_t)nap.tv_nsec;
		if (nap.tv_nsec < 64000000L)
			nap.tv_nsec *= 2;
	}
	*out_fd = fd;
	return 0;
}

void callus_fs_unlock(int fd)
{
	if (fd < 0)
		return;
	/* Closing drops the flock; the explicit unlock documents intent and
	 * releases promptly even if the descriptor was duplicated. */
	(void)flock(fd, LOCK_UN);
	close(fd);
}

int callus_fs_append_line(int fd, const char *s)
{
	struct iovec iov[3] = { { (void *)"\n", 0 }, { (void *)s, strlen(s) }, { (void *)"\n", 1 } };
	struct stat st;
	char last;
	ssize_t want;

	/* A line a full disk cut short (a write(2) that landed in part) is
	 * ended first, or this one would be read as the rest of it and lost
	 * with it.  Another appender's line between the look and the write
	 * leaves an empty line, which readers pass over. */
	if (fstat(fd, &st) == 0 && st.st_size > 0 && pread(fd, &last, 1, st.st_size - 1) == 1 &&
	    last != '\n')
		iov[0].iov_len = 1;
	want = (ssize_t)(iov[0].iov_len + iov[1].iov_len + 1);
	return writev(fd, iov, 3) == want ? 0 : CALLUS_EIO;
}

/* Whether st is a file callus can make its own: a regular file, one link
 * (a hard link to a file elsewhere would be written through), its
 * owner's. */
static int spare_ok(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink == 1 && st->st_uid == geteuid();
}

static int open_spare(const char *spare, const char *path)
{
	struct stat st;

	/* never over a file at path (a file system without RENAME_NOREPLACE
	 * makes a new file, as when there is no spare); anything but a
	 * file of callus's is left where it is */
	if (lstat(spare, &st) == 0 && spare_ok(&st) &&
	    renameat2(AT_FDCWD, spare, AT_FDCWD, path, RENAME_NOREPLACE) == 0) {
		/* O_NONBLOCK: a FIFO swapped in meanwhile is refused, not
		 * waited on */
		int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		if (fd >= 0 && fstat(fd, &st) == 0 && spare_ok(&st) && fchmod(fd, 0600) == 0 &&
		    fcntl(fd, F_SETFL, 0) == 0)
			return fd;
		if (fd >= 0)
			close(fd);
		if (unlink(path) < 0)
			(void)rmdir(path);
	}
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int callus_fs_write_spare(const char *spare, const char *tmp, const char *path, const void *data,
			size_t len)
{
	int fd = open_spare(spare, tmp), rc;

	if (fd < 0)
		return -1;
	/* written over what a taken spare held, then cut there */
	rc = callus_fs_write_all(fd, data, len) < 0 || ftruncate(fd, (off_t)len) < 0;
	if (close(fd) < 0 || rc || rename(tmp, path) < 0) {
		int saved = errno;

		unlink(tmp);
		errno = saved;
		return -1;
	}
	return 0;
}

int callus_fs_blank(int fd)
{
	/* cut first: a process killed between the two leaves one byte of
	 * the text, not all but one */
	return ftruncate(fd, 1) == 0 && lseek(fd, 0, SEEK_SET) == 0 && write(fd, "\n", 1) == 1
		       ? 0
		       : -1;
}

void callus_fs_keep_spare(const char *path, const char *spare)
{
	/* its text goes first: a spool entry holds the folder its run ran
	 * in as it is, which may hold a secret (docs/redaction.md), and a
	 * spare is kept for as long as no entry is made */
	int fd = callus_fs_open_own(path, O_WRONLY, 0), kept;

	kept = fd >= 0 && callus_fs_blank(fd) == 0;
	if (fd >= 0 && close(fd) < 0)
		kept = 0;
	if (!kept || rename(path, spare) < 0)
		unlink(path);
}

int callus_fs_open_own(const char *path, int flags, mode_t mode)
{
	struct stat st;
	int saved, fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, mode);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (!S_ISREG(st.st_mode) || st.st_nlink > 1) {
		errno = S_ISREG(st.st_mode) ? EMLINK : EINVAL;
		goto fail;
	}
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int callus_fs_append(const char *path, const void *data, size_t len, unsigned flags)
{
	int fd = callus_fs_open_own(path, O_WRONLY | O_APPEND, 0);
	int rc = fd < 0 ? -1 : callus_fs_write_all(fd, data, len);

	if (!rc && !(flags & CALLUS_FS_REBUILT) && fdatasync(fd) < 0)
		rc = -1;
	if (fd >= 0) {
		int saved = errno;

		close(fd);
		errno = saved;
	}
	return rc;
}

int callus_fs_maker_gone(long pid, const struct stat *st, time_t now, long stale_s)
{
	time_t made = st->st_ctime > st->st_mtime ? st->st_ctime : st->st_mtime;

	/* past any pid: (pid_t)4294967295 would be kill(-1, 0), which succeeds */
	if (now - made > stale_s || pid <= 0 || pid > INT_MAX)
		return 1;
	return kill((pid_t)pid, 0) < 0 && errno == ESRCH;
}

int callus_fs_each_gone(const char *dir, long stale_s, callus_fs_maker_fn maker, void *maker_ctx,
			callus_fs_gone_fn gone, void *gone_ctx)
{
	callus_buf path = CALLUS_BUF_INIT;
	time_t now = time(NULL);
	struct dirent *e;
	DIR *dh;
	int rc = 0;

	if (!(dh = opendir(dir)))
		return 0;
	while (rc == 0 && (e = readdir(dh))) {
		long pid = maker(e->d_name, maker_ctx);
		struct stat st;

		if (pid < 0)
			continue;
		callus_buf_clear(&path);
		if (callus_buf_printf(&path, "%s/%s", dir, e->d_name) < 0) {
			rc = CALLUS_ENOMEM;
			break;
		}
		if (lstat(path.ptr, &st) == 0 && S_ISREG(st.st_mode) &&
		    callus_fs_maker_gone(pid, &st, now, stale_s))
			rc = gone(path.ptr, e->d_name, gone_ctx);
	}
	closedir(dh);
	callus_buf_release(&path);
	return rc;
}

/* callus_fs_sweep_gone()'s count. */
struct sweep {
	int fix;
	size_t n, removed;
};

static int sweep_gone(const char *path, const char *name, void *ctx)
{
	struct sweep *w = ctx;

	(void)name;
	w->n++;
	if (w->fix && unlink(path) == 0)
		w->removed++;
	return 0;
}

size_t callus_fs_sweep_gone(const char *dir, callus_fs_maker_fn maker, void *ctx, long stale_s,
			    int fix, size_t *removed)
{
	struct sweep w = { fix, 0, 0 };

	(void)callus_fs_each_gone(dir, stale_s, maker, ctx, sweep_gone, &w);
	if (removed)
		*removed = w.removed;
	return w.n;
}

int callus_fs_replace_kept(const char *path, const void *data, size_t len, const struct stat *was,
			   callus_error *err)
{
	int rc;

	if (!(was->st_mode & S_IWUSR))
		return callus_error_set(err, CALLUS_EUNSAFE,
					"'%s' is read-only: callus leaves it (make it writable to "
					"let callus change it)",
					path);
	if (geteuid() != 0 && was->st_uid != geteuid())
		return callus_error_set(err, CALLUS_EUNSAFE,
					"'%s' belongs to another user: callus leaves it", path);
	if (was->st_nlink > 1)
		return callus_error_set(err, CALLUS_EUNSAFE,
					"'%s' has %ju names (a hard link), which a new file would "
					"part: callus leaves it",
					path, (uintmax_t)was->st_nlink);
	if ((rc = callus_fs_write_atomic(path, data, len, was->st_mode & 07777, 0, err)) < 0)
		return rc;
	/* best effort: the file is written, with its mode */
	if (geteuid() == 0 && (was->st_uid != 0 || was->st_gid != 0) &&
	    lchown(path, was->st_uid, was->st_gid) < 0) {
		/* nothing more to do: root's file, readable as before */
	}
	return 0;
}
