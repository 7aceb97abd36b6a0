/*
 * vecindex_postings.c - the postings file beside a vector file: its
 * sketches by component, a block of records at a time
 * (vecindex_internal.h).
 *
 * Layout, native byte order like the vector and sketch files:
 *
 *   header  char magic[8] "CALLUSPO"; uint32 version; uint32 dim;
 *           uint32 block; uint32 top; uint64 dev; uint64 ino;
 *           uint64 zero                                     (48 bytes)
 *   block   vi_post_block_size(dim) bytes each
 *
 * dev and ino are the vector file's, as in the sketch file's header, and
 * a reader checks the first and last records of the blocks it takes
 * against the vector file, as the sketch's reader does.  Blocks are only
 * appended, whole ones counted: a reader never sees one half written, and
 * a crash's partial last block is cut by the next writer.
 */
#include "callus/buf.h"
#include "callus/fsutil.h"

#include "vecindex_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define PO_MAGIC "CALLUSPO"   /* 8 bytes, no NUL */
#define PO_VERSION 1u
#define PO_HEADER_SIZE 48u
#define PO_HEAD 24u           /* first_id, last_id, flags, npost */
#define PO_NPOST (VI_SKETCH_TOP * VI_POST_BLOCK)

static size_t start_bytes(size_t dim)
{
	return ((dim + 1) * sizeof(uint16_t) + 7) & ~(size_t)7;
}

size_t vi_post_block_size(size_t dim)
{
	return PO_HEAD + 2 * VI_POST_BLOCK * sizeof(float) + start_bytes(dim) +
	       PO_NPOST * (sizeof(uint16_t) + sizeof(int8_t));
}

static void header_make(unsigned char h[PO_HEADER_SIZE], size_t dim, const struct stat *vst)
{
	uint32_t version = PO_VERSION, d = (uint32_t)dim, block = VI_POST_BLOCK,
		 top = VI_SKETCH_TOP;
	uint64_t dev = (uint64_t)vst->st_dev, ino = (uint64_t)vst->st_ino, zero = 0;

	memcpy(h, PO_MAGIC, 8);
	memcpy(h + 8, &version, 4);
	memcpy(h + 12, &d, 4);
	memcpy(h + 16, &block, 4);
	memcpy(h + 20, &top, 4);
	memcpy(h + 24, &dev, 8);
	memcpy(h + 32, &ino, 8);
	memcpy(h + 40, &zero, 8);
}

static int postings_path(callus_buf *out, const char *path)
{
	return callus_buf_printf(out, "%s.post", path);
}

/* The parts of a block in buf (of vi_post_block_size(dim) bytes). */
static void block_view(unsigned char *buf, size_t dim, vi_post_block *b)
{
	unsigned char *p = buf + PO_HEAD;
	uint32_t npost;

	memcpy(&b->first_id, buf, 8);
	memcpy(&b->last_id, buf + 8, 8);
	memcpy(&b->flags, buf + 16, 4);
	memcpy(&npost, buf + 20, 4);
	/* a damaged count reads no posting past the block */
	b->npost = npost < PO_NPOST ? npost : PO_NPOST;
	b->scale = (const float *)(void *)p;
	p += VI_POST_BLOCK * sizeof(float);
	b->rest = (const float *)(void *)p;
	p += VI_POST_BLOCK * sizeof(float);
	b->start = (const uint16_t *)(void *)p;
	p += start_bytes(dim);
	b->rec = (const uint16_t *)(void *)p;
	p += PO_NPOST * sizeof(uint16_t);
	b->val = (const int8_t *)(void *)p;
}

void vi_postings_open(vi_postings *po, const char *path, const struct stat *vst, int vfd,
		      size_t sketched, size_t dim)
{
	unsigned char want[PO_HEADER_SIZE], hdr[PO_HEADER_SIZE];
	callus_buf p = CALLUS_BUF_INIT;
	size_t bsize = vi_post_block_size(dim), recsize = vi_record_size(dim), blocks;
	struct stat st;
	int fd = -1;

	po->fd = -1;
	po->blocks = 0;
	po->dim = dim;
	if (dim > VI_POST_DIM_MAX || sketched < VI_POST_BLOCK || postings_path(&p, path) < 0)
		goto out;
	if ((fd = open(p.ptr, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_size < (off_t)(PO_HEADER_SIZE + bsize) ||
	    pread(fd, hdr, PO_HEADER_SIZE, 0) != (ssize_t)PO_HEADER_SIZE)
		goto out;
	header_make(want, dim, vst);
	if (memcmp(hdr, want, PO_HEADER_SIZE) != 0)
		goto out;
	blocks = ((size_t)st.st_size - PO_HEADER_SIZE) / bsize;
	if (blocks > sketched / VI_POST_BLOCK)
		blocks = sketched / VI_POST_BLOCK;
	/* the first record of the first block and the last of the last are
	 * the vector file's (a file on a reused inode would have to agree on
	 * both, and the sketch file on three) */
	for (int k = 0; k < 2; k++) {
		size_t b = k == 0 ? 0 : blocks - 1;
		size_t r = k == 0 ? 0 : blocks * VI_POST_BLOCK - 1;
		int64_t mine, theirs;

		if (pread(fd, &mine, 8, (off_t)(PO_HEADER_SIZE + b * bsize + (k ? 8u : 0u))) != 8 ||
		    pread(vfd, &theirs, 8, (off_t)(VI_HEADER_SIZE + r * recsize)) != 8 ||
		    mine != theirs)
			goto out;
	}
	po->fd = fd;
	po->blocks = blocks;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	callus_buf_release(&p);
}

void vi_postings_close(vi_postings *po)
{
	if (po->fd >= 0)
		close(po->fd);
	po->fd = -1;
	po->blocks = 0;
}

int vi_postings_read(const vi_postings *po, size_t b, unsigned char *buf, vi_post_block *out)
{
	size_t bsize = vi_post_block_size(po->dim);
	ssize_t got;

	if (b >= po->blocks)
		return -1;
	do
		got = pread(po->fd, buf, bsize, (off_t)(PO_HEADER_SIZE + b * bsize));
	while (got < 0 && errno == EINTR);
	if (got != (ssize_t)bsize)
		return -1;
	block_view(buf, po->dim, out);
	return 0;
}

/* The block of the VI_POST_BLOCK sketches s into buf (zeroed, of
 * vi_post_block_size(dim) bytes): each component's postings in the
 * records' order. */
static void block_make(unsigned char *buf, const vi_sketch_rec *s, size_t dim)
{
	unsigned char *p = buf + PO_HEAD;
	float *scale = (float *)(void *)p, *rest = scale + VI_POST_BLOCK;
	uint16_t *start = (uint16_t *)(void *)(rest + VI_POST_BLOCK);
	uint16_t *rec = (uint16_t *)(void *)((unsigned char *)start + start_bytes(dim));
	int8_t *val = (int8_t *)(rec + PO_NPOST);
	uint32_t flags = 0, npost = PO_NPOST;

	memcpy(buf, &s[0].id, 8);
	memcpy(buf + 8, &s[VI_POST_BLOCK - 1].id, 8);
	for (size_t u = 0; u < VI_POST_BLOCK; u++) {
		scale[u] = s[u].scale;
		rest[u] = s[u].rest;
		for (int t = 0; t < VI_SKETCH_TOP; t++)
			if (s[u].dim[t] >= dim)
				flags = VI_POST_WHOLE;
	}
	if (flags) {
		npost = 0; /* every start 0: no postings */
		goto out;
	}
	/* counted into start[d + 1], summed, then each posting placed at its
	 * component's next slot (start[d], advanced, and shifted back) */
	for (size_t u = 0; u < VI_POST_BLOCK; u++)
		for (int t = 0; t < VI_SKETCH_TOP; t++)
			start[s[u].dim[t] + 1]++;
	for (size_t d = 0; d < dim; d++)
		start[d + 1] = (uint16_t)(start[d + 1] + start[d]);
	for (size_t u = 0; u < VI_POST_BLOCK; u++)
		for (int t = 0; t < VI_SKETCH_TOP; t++) {
			uint16_t i = start[s[u].dim[t]]++;

			rec[i] = (uint16_t)u;
			val[i] = s[u].v[t];
		}
	for (size_t d = dim; d > 0; d--)
		start[d] = start[d - 1];
	start[0] = 0;
out:
	memcpy(buf + 16, &flags, 4);
	memcpy(buf + 20, &npost, 4);
}

/* Append to fd the blocks [from, to) of the sketches in sk. */
static int append_blocks(int fd, const vi_sketch *sk, size_t dim, size_t from, size_t to)
{
	size_t bsize = vi_post_block_size(dim);
	vi_sketch_rec *s = malloc(VI_POST_BLOCK * sizeof(*s));
	unsigned char *buf = malloc(bsize);
	int rc = 0;

	if (!s || !buf)
		rc = -1;
	for (size_t b = from; !rc && b < to; b++) {
		if (vi_sketch_read(sk, b * VI_POST_BLOCK, s, VI_POST_BLOCK) != VI_POST_BLOCK) {
			rc = -1;
			break;
		}
		memset(buf, 0, bsize);
		block_make(buf, s, dim);
		rc = callus_fs_write_all(fd, buf, bsize);
	}
	free(s);
	free(buf);
	return rc;
}

typedef struct fresh {
	const vi_sketch *sk;
	const struct stat *vst;
	size_t dim, blocks;
} fresh;

static int fill_fresh(int fd, void *arg)
{
	const fresh *f = arg;
	unsigned char hdr[PO_HEADER_SIZE];

	header_make(hdr, f->dim, f->vst);
	if (callus_fs_write_all(fd, hdr, sizeof(hdr)) < 0)
		return -1;
	return append_blocks(fd, f->sk, f->dim, 0, f->blocks);
}

void vi_postings_sync(const char *path, int vfd, size_t dim)
{
	unsigned char want[PO_HEADER_SIZE], hdr[PO_HEADER_SIZE];
	callus_buf p = CALLUS_BUF_INIT;
	size_t bsize = vi_post_block_size(dim), blocks, have;
	vi_sketch sk = { -1, 0 };
	struct stat vst, st;
	off_t whole;
	int fd = -1;

	if (dim > VI_POST_DIM_MAX || fstat(vfd, &vst) < 0 ||
	    vst.st_size < (off_t)VI_HEADER_SIZE || postings_path(&p, path) < 0)
		goto out;
	vi_sketch_open(&sk, path, &vst, vfd,
		       ((size_t)vst.st_size - VI_HEADER_SIZE) / vi_record_size(dim), dim);
	blocks = sk.count / VI_POST_BLOCK;
	if (!blocks)
		goto out;
	header_make(want, dim, &vst);
	fd = open(p.ptr, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && flock(fd, LOCK_EX) < 0) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)PO_HEADER_SIZE ||
	    pread(fd, hdr, PO_HEADER_SIZE, 0) != (ssize_t)PO_HEADER_SIZE ||
	    memcmp(hdr, want, PO_HEADER_SIZE) != 0 ||
	    (have = ((size_t)st.st_size - PO_HEADER_SIZE) / bsize) > blocks) {
		fresh f = { &sk, &vst, dim, blocks };

		(void)vi_replace(p.ptr, fill_fresh, &f);
		goto out;
	}
	/* a partial last block (a crash) is cut */
	whole = (off_t)PO_HEADER_SIZE + (off_t)(have * bsize);
	if (whole != st.st_size && ftruncate(fd, whole) < 0)
		goto out;
	if ((lseek(fd, 0, SEEK_END) < 0 || append_blocks(fd, &sk, dim, have, blocks) < 0) &&
	    ftruncate(fd, whole) < 0) {
		/* the next sync cuts it */
	}
out:
	if (fd >= 0)
		close(fd);
	vi_sketch_close(&sk);
	callus_buf_release(&p);
}

int vi_postings_remove(const char *path)
{
	callus_buf p = CALLUS_BUF_INIT;
	int rc = -1;

	if (postings_path(&p, path) < 0) {
		errno = ENOMEM;
		goto out;
	}
	rc = unlink(p.ptr) < 0 && errno != ENOENT ? -1 : 0;
out:
	callus_buf_release(&p);
	return rc;
}
