/*
 * fsutil.h - small file-system helpers shared by the modules that write
 * files a user or an agent reads: atomic replacement, mkdir -p, bounded
 * whole-file reads, symlink resolution and an advisory lock file.
 *
 * Paths are borrowed for the duration of the call.  Messages name the path
 * as given, git style: "cannot write 'AGENTS.md': Permission denied".
 */
#ifndef CALLUS_FSUTIL_H
#define CALLUS_FSUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <time.h>

#include "callus/buf.h"
#include "callus/common.h"

/* callus_fs_write_atomic() flags */
enum {
	/* Filter mode through the process umask as open(2) would, for new
	 * files the user expects to look like any other file they create.
	 * Without it the file gets exactly `mode` (private files, or an
	 * existing file's mode being preserved). */
	CALLUS_FS_UMASK = 1 << 0,
	/* A view of the store that nothing reads back into it (the block in
	 * AGENTS.md; a lesson's file is CALLUS_FS_REBUILT; not a note's file,
	 * whose edits the store takes by the hash it keeps of what it
	 * wrote): the rename is not made durable by an fsync of the
	 * directory.  The store's own commits are not synced either (`PRAGMA
	 * synchronous = NORMAL`: a power loss may take back the last ones),
	 * and a view written after its commit need not outlast it; the
	 * file's contents are still synced before the rename, so that a
	 * power loss leaves the old file or the new one, never an empty
	 * one.  Two fsyncs of the four a failing hook made. */
	CALLUS_FS_VIEW = 1 << 1,
	/* A view that holds nothing but what the store makes again whole (a
	 * lesson's file, .callus/files.idx; not AGENTS.md, whose text around
	 * the block is the user's): not synced at all.  A power loss may leave it empty, as
	 * it may take back the store's last commits; `callus doctor` counts
	 * an empty lesson file as missing and `--fix` writes it again.  One
	 * fsync of a failing hook's three.  Implies CALLUS_FS_VIEW. */
	CALLUS_FS_REBUILT = 1 << 2
};

/*
 * Replace path with data[0..len) so that readers see either the old or the
 * new contents, never a mix: a temporary file in the same directory is
 * written, fsync'd (not with CALLUS_FS_REBUILT), given its mode and
 * renamed over path, then the directory is fsync'd (not with
 * CALLUS_FS_VIEW or CALLUS_FS_REBUILT).  A symlink at path is
 * replaced, not followed (resolve it first with callus_fs_resolve_link()
 * to write through it).  On failure path is untouched and the temporary
 * file is removed.
 */
int callus_fs_write_atomic(const char *path, const void *data, size_t len,
			 mode_t mode, unsigned flags, callus_error *err);

/*
 * As callus_fs_write_atomic(), over a file a person may be editing: path
 * is replaced only while it is the file callus last saw, its mtime
 * mtime_ns (nanoseconds since the epoch; CALLUS_FS_ANY_MTIME: whatever is
 * there), looked at just before the rename, after the temporary file's
 * fsync.  A file changed or removed since is left as it is (none is
 * made), and CALLUS_ECHANGED returned, so that its change can be read and
 * taken in rather than written over.  What is left is the time between
 * that look and the rename (microseconds), where it was the whole write's.
 * *written (may be NULL) is the new file's fstat(2), taken before the
 * rename: what callus wrote, where a stat of path after it may already be
 * a person's edit, which would then pass for callus's own.  Set only when
 * 0 is returned.
 */
#define CALLUS_FS_ANY_MTIME INT64_MIN
int callus_fs_write_atomic_unless_changed(const char *path, const void *data, size_t len,
					  mode_t mode, unsigned flags, int64_t mtime_ns,
					  struct stat *written, callus_error *err);

/*
 * Replace a person's file at path (was: its lstat) with data[0..len) as
 * callus_fs_write_atomic() does, keeping what the person had: its mode,
 * and its owner and group when callus runs as root (a file renamed in is
 * root's otherwise).  A file callus should not replace is refused with
 * CALLUS_EUNSAFE and left as it is: one not writable by its owner (made
 * read-only on purpose), one of another user when callus is not root, one
 * with a second name (a hard link, which the rename would part).
 */
int callus_fs_replace_kept(const char *path, const void *data, size_t len, const struct stat *was,
			   callus_error *err);

/* Create dir and its missing parents with mode (subject to the umask);
 * existing directories are left as they are. */
int callus_fs_mkdir_p(const char *dir, mode_t mode, callus_error *err);

/*
 * Write data[0..len) to path, a file the user named for output (`callus
 * report -o FILE`), as a shell's `>` would reach it: symlinks followed.
 * What is there and is not a regular file (a terminal, a pipe, /dev/null,
 * /dev/stdout) is written through, never replaced: renaming over it would
 * have put a file where a device was.  A regular file, or none, is
 * replaced as callus_fs_write_atomic() does, keeping the file's mode (0666
 * less the umask for a new one); a directory is refused (CALLUS_EINVAL).
 */
int callus_fs_write_output(const char *path, const void *data, size_t len, callus_error *err);

/*
 * A file mapped read-only (callus_fs_map), for the indexes beside the store
 * that a hook asks one line of: a mapping touches only the pages a lookup
 * reads, where reading the file copied all of it into memory the process
 * touched for the first time.  Their writers replace them by a rename or
 * append to them, never cut them, so the mapped length stays readable.
 */
typedef struct callus_fs_mapped {
	const char *ptr;
	size_t len;
} callus_fs_mapped;

/*
 * Map the regular file at path (not through a symlink) when its size is
 * within [min, max]: 0, or -1 with m empty when there is no such file or
 * it cannot be mapped.  Release with callus_fs_unmap().
 */
int callus_fs_map(callus_fs_mapped *m, const char *path, size_t min, size_t max);
void callus_fs_unmap(callus_fs_mapped *m);

/*
 * Read the whole regular file at path into out (cleared first).  A file
 * longer than max bytes (0 = no ceiling) fails with CALLUS_ETOOBIG, one that
 * is not a regular file (a FIFO is never waited on) with CALLUS_EINVAL.  A
 * missing file (or a path through a file that is no folder) returns
 * CALLUS_ENOTFOUND *without* setting err, since for most
 * callers it is an expected answer rather than a failure; a caller for whom
 * it is a failure sets its own message.
 */
int callus_fs_read_file(callus_buf *out, const char *path, size_t max, callus_error *err);

/*
 * Follow path while it is a symlink and write the final target to out
 * (cleared first); a relative link target is taken relative to the link's
 * directory.  The target need not exist (a dangling link resolves to the
 * file it would create).  A path that is not a link comes back unchanged.
 * Only the last component is resolved: directories are left to the kernel.
 */
int callus_fs_resolve_link(callus_buf *out, const char *path, callus_error *err);

/*
 * A file of callus's in the user's directories: "$<var>/callus/<name>"
 * when $<var> is absolute (XDG_DATA_HOME, XDG_CONFIG_HOME), else
 * "$HOME/<fallback>/callus/<name>" (".local/share", ".config"), into out
 * (cleared first).  CALLUS_ENOTFOUND with neither, CALLUS_ENOMEM.
 */
int callus_fs_user_path(callus_buf *out, const char *var, const char *fallback, const char *name);

/*
 * Take an exclusive flock(2) on lock_path, creating it 0600 if needed, and
 * store the open descriptor in *out_fd; waits up to timeout_ms (polling),
 * then fails with CALLUS_EBUSY.  Release with callus_fs_unlock().  The lock is
 * advisory: it only orders processes that also take it.
 */
int callus_fs_lock(int *out_fd, const char *lock_path, unsigned timeout_ms, callus_error *err);

/* Release a lock taken with callus_fs_lock(); fd < 0 is a no-op. */
void callus_fs_unlock(int fd);

/* Whether the process that made the file st describes (its pid in the
 * file's name, 0 or less when unknown; one past any pid is no process's)
 * is gone: dead, or the file is older
 * than stale_s seconds at now (pids are reused).  Its age is from the later
 * of its mtime and ctime: a file made from a spare by a rename
 * (callus_fs_write_spare) keeps the spare's old mtime until written, and
 * the rename sets its ctime. */
int callus_fs_maker_gone(long pid, const struct stat *st, time_t now, long stale_s);

/* The pid of the process that made a file called name, when name is one a
 * process makes to rename or remove itself (0 or less: unknown), or -1
 * when it is no such name. */
typedef long (*callus_fs_maker_fn)(const char *name, void *ctx);

/* What callus_fs_each_gone() does with a file whose maker is gone: path
 * (dir/name) is borrowed for the call; anything but 0 stops the walk. */
typedef int (*callus_fs_gone_fn)(const char *path, const char *name, void *ctx);

/* Each regular file in dir, not followed through a link, that maker (with
 * maker_ctx) gives a pid for and callus_fs_maker_gone() (at stale_s) says
 * is gone, given to gone (with gone_ctx).  0 (also when dir cannot be
 * read), what gone returned to stop, or CALLUS_ENOMEM. */
int callus_fs_each_gone(const char *dir, long stale_s, callus_fs_maker_fn maker, void *maker_ctx,
			callus_fs_gone_fn gone, void *gone_ctx);

/* The files in dir that processes now gone left under maker's names
 * (callus_fs_each_gone).  Their number; with fix each is removed, and
 * *removed (may be NULL) counts those that were.  Whether dir may be
 * written in is the caller's to check. */
size_t callus_fs_sweep_gone(const char *dir, callus_fs_maker_fn maker, void *ctx, long stale_s,
			    int fix, size_t *removed);

/* Write all of buf to fd, across short writes and EINTR: 0, or -1 with
 * errno set. */
int callus_fs_write_all(int fd, const void *buf, size_t len);

/* Append s and a newline to fd in one write(2), so that concurrent
 * appenders (O_APPEND) never interleave inside a line; a last line cut
 * short (no room for all of its write) is ended first, when fd is open for
 * reading too (O_RDWR).  0 or CALLUS_EIO. */
int callus_fs_append_line(int fd, const char *s);

/*
 * Files made and removed at every hook (a recording's spool entry, its
 * views' debt) are inodes allocated and freed each time, and on ext4
 * without a journal every file made in the next half minute skips the
 * recently freed inodes one by one (docs/scale-history.md, the thirty-sixth
 * pass).  So such a file, once done with, is kept as a spare (a dot name
 * its readers skip) and the next one is made from it.
 *
 * callus_fs_write_spare: path made to hold data[0..len): written under
 * tmp (a name its readers skip; never over a file there) and then named.
 * tmp is spare renamed (so that no other process takes it too) when spare
 * is a regular file of one link that the process owns, made private, and
 * written over and cut; else a new file (O_EXCL, mode 0600; anything else
 * at spare is never followed, written through or waited on).  Named once
 * whole, so that no reader sees a mix or the spare's old time.  0, or -1
 * with errno set (tmp removed).
 * callus_fs_keep_spare: done with path: emptied (callus_fs_blank) and
 * renamed to spare (over one kept meanwhile), or removed when either
 * cannot be.  Async-signal-safe.
 */
int callus_fs_write_spare(const char *spare, const char *tmp, const char *path, const void *data,
			size_t len);

/* Empty the regular file open for writing at fd to one newline, never to
 * nothing: ext4 (auto_da_alloc) and xfs write a file cut to nothing out at
 * its next writer's close, and ext4 frees its block at the cut (without a
 * journal, on a disk mounted with discard, discarding it there and then);
 * a byte keeps the block for the next text to be written over
 * (docs/scale-history.md, the sixty-fifth pass).  Leaves fd's offset at 1.
 * 0, or -1 with errno set.  Async-signal-safe. */
int callus_fs_blank(int fd);
void callus_fs_keep_spare(const char *path, const char *spare);

/*
 * open(2) of one of callus's own files written in place (appended to, or
 * locked and read): never through a link (O_NOFOLLOW), never waiting on a
 * FIFO put there (O_NONBLOCK, which a regular file ignores), and only a
 * regular file with no other name: one hard-linked from elsewhere would
 * be written there.  The fd, or -1 with errno set (EINVAL for a file of
 * another kind, EMLINK for one of several names).
 */
int callus_fs_open_own(const char *path, int flags, mode_t mode);

/* Append data[0..len) to the existing regular file at path (not through a
 * symlink) and fdatasync it, or with CALLUS_FS_REBUILT not: the indexes
 * beside the store, whose writers add lines under the store's write lock
 * (checks.idx syncs, a check missing from it would lose a fix; files.idx,
 * a hint the store writes again whole, does not).  0, or -1 with errno
 * set. */
int callus_fs_append(const char *path, const void *data, size_t len, unsigned flags);

#endif
