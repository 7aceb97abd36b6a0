/*
 * vecindex_derived.c - the files derived from a vector file (its sketches,
 * its postings: vecindex_internal.h): how each is named, checked, opened,
 * kept in step and removed, once for both.
 */
#include "callus/buf.h"
#include "callus/fsutil.h"

#include "vecindex_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

void vi_derived_init(vi_derived *d, const char *suffix, const char magic[8], uint32_t version,
		     size_t dim, uint32_t extra, const struct stat *vst, size_t unit)
{
	uint32_t dm = (uint32_t)dim, top = VI_SKETCH_TOP;
	uint64_t dev = (uint64_t)vst->st_dev, ino = (uint64_t)vst->st_ino;
	unsigned char *h = d->header;

	d->suffix = suffix;
	d->unit = unit;
	memcpy(h, magic, 8);
	memcpy(h + 8, &version, 4);
	memcpy(h + 12, &dm, 4);
	memcpy(h + 16, &top, 4);
	memcpy(h + 20, &extra, 4);
	memcpy(h + 24, &dev, 8);
	memcpy(h + 32, &ino, 8);
}

static int derived_path(callus_buf *out, const char *path, const char *suffix)
{
	return callus_buf_printf(out, "%s%s", path, suffix);
}

/* Whether fd (st its stat) is a regular file that starts with d's header:
 * its whole units into *units. */
static int derived_matches(const vi_derived *d, int fd, const struct stat *st, size_t *units)
{
	unsigned char hdr[VI_DERIVED_HEADER];

	if (!S_ISREG(st->st_mode) || st->st_size < (off_t)VI_DERIVED_HEADER ||
	    pread(fd, hdr, VI_DERIVED_HEADER, 0) != (ssize_t)VI_DERIVED_HEADER ||
	    memcmp(hdr, d->header, VI_DERIVED_HEADER) != 0)
		return 0;
	*units = ((size_t)st->st_size - VI_DERIVED_HEADER) / d->unit;
	return 1;
}

int vi_derived_open(const vi_derived *d, const char *path, size_t *units)
{
	callus_buf p = CALLUS_BUF_INIT;
	struct stat st;
	int fd = -1;

	*units = 0;
	if (derived_path(&p, path, d->suffix) < 0)
		goto out;
	/* O_NONBLOCK: a FIFO there opens at once, and is no derived file */
	if ((fd = open(p.ptr, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) >= 0 &&
	    (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !derived_matches(d, fd, &st, units))) {
		close(fd);
		fd = -1;
	}
out:
	callus_buf_release(&p);
	return fd;
}

typedef struct fresh {
	const vi_derived *d;
	size_t want;
	vi_derived_fill fill;
	void *arg;
} fresh;

static int fill_fresh(int fd, void *arg)
{
	const fresh *f = arg;

	if (callus_fs_write_all(fd, f->d->header, VI_DERIVED_HEADER) < 0)
		return -1;
	return f->fill(fd, 0, f->want, f->arg);
}

off_t vi_cut_partial(int fd, off_t size, size_t header, size_t unit)
{
	struct stat st;
	off_t whole = 0;

	if (size < 0) {
		if (fstat(fd, &st) < 0)
			return -1;
		size = st.st_size;
	}
	if (size >= (off_t)header)
		whole = (off_t)header + (size - (off_t)header) / (off_t)unit * (off_t)unit;
	if (whole != size && ftruncate(fd, whole) < 0)
		return -1;
	return whole;
}

int vi_derived_sync(const vi_derived *d, const char *path, size_t want, vi_derived_fill fill,
		    void *arg, size_t *units)
{
	callus_buf p = CALLUS_BUF_INIT;
	struct stat st;
	size_t have = 0;
	off_t whole;
	int fd = -1;

	*units = 0;
	if (derived_path(&p, path, d->suffix) < 0)
		goto out;
	/* not a FIFO, nor a file of another name (fsutil.h): written anew */
	fd = callus_fs_open_own(p.ptr, O_RDWR, 0);
	/* its own lock too: a rewrite of a vector file that did not exist
	 * takes none of the vector file's */
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !derived_matches(d, fd, &st, &have) || have > want) {
		/* missing, of another file, or longer than it: a new one */
		fresh f = { d, want, fill, arg };

		if (fd >= 0)
			close(fd);
		fd = -1;
		if (vi_replace(p.ptr, fill_fresh, &f) == 0)
			fd = vi_derived_open(d, path, units);
		goto out;
	}
	/* a partial last unit (a crash) is cut, as the vector file's are */
	if (vi_cut_partial(fd, st.st_size, VI_DERIVED_HEADER, d->unit) < 0)
		goto fail;
	if (lseek(fd, 0, SEEK_END) < 0 || fill(fd, have, want, arg) < 0) {
		/* what the fill wrote whole is kept: a reader may have mapped
		 * it (the postings) */
		whole = vi_cut_partial(fd, -1, VI_DERIVED_HEADER, d->unit);
		*units = whole < 0 ? have : ((size_t)whole - VI_DERIVED_HEADER) / d->unit;
		goto out;
	}
	*units = want;
	goto out;
fail:
	close(fd);
	fd = -1;
out:
	callus_buf_release(&p);
	return fd;
}

int vi_derived_remove(const char *path, const char *suffix)
{
	callus_buf p = CALLUS_BUF_INIT;
	int rc = -1;

	if (derived_path(&p, path, suffix) < 0) {
		errno = ENOMEM;
		goto out;
	}
	rc = unlink(p.ptr) < 0 && errno != ENOENT ? -1 : 0;
out:
	callus_buf_release(&p);
	return rc;
}
