/*
 * vecindex_postings.c - the postings file beside a vector file: its
 * sketches by component, a block of records at a time
 * (vecindex_internal.h).
 *
 * Layout, native byte order like the vector and sketch files: the header of
 * a derived file (vecindex_internal.h: magic "CALLUSPO", version 1, extra
 * VI_POST_BLOCK), then blocks of vi_post_block_size(dim) bytes.  A reader
 * checks the first and last records of the blocks it takes against the
 * vector file, as the sketch's reader does.  A crash's partial last block
 * is cut by the next writer.
 */
#include "callus/buf.h"
#include "callus/fsutil.h"

#include "vecindex_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#define PO_MAGIC "CALLUSPO"   /* 8 bytes, no NUL */
#define PO_VERSION 1u
#define PO_HEAD 24u           /* first_id, last_id, flags, npost */
#define PO_NPOST (VI_SKETCH_TOP * VI_POST_BLOCK)

static size_t start_bytes(size_t dim)
{
	return ((dim + 1) * sizeof(uint16_t) + 7) & ~(size_t)7;
}

/* a block's floats and 16-bit arrays aligned where the mapping holds
 * them: the file's header, a block and each of its parts 8-byte multiples
 * (start_bytes() rounds up) */
_Static_assert(VI_DERIVED_HEADER % 8 == 0 && PO_HEAD % 8 == 0 &&
		       (2 * VI_POST_BLOCK * sizeof(float)) % 8 == 0 &&
		       (PO_NPOST * (sizeof(uint16_t) + sizeof(int8_t))) % 8 == 0,
	       "a mapped block's parts are aligned");

size_t vi_post_block_size(size_t dim)
{
	return PO_HEAD + 2 * VI_POST_BLOCK * sizeof(float) + start_bytes(dim) +
	       PO_NPOST * (sizeof(uint16_t) + sizeof(int8_t));
}

/* The postings file's header and unit, for vectors of dim of the file vst. */
static void postings_derived(vi_derived *d, size_t dim, const struct stat *vst)
{
	vi_derived_init(d, ".post", PO_MAGIC, PO_VERSION, dim, VI_POST_BLOCK, vst,
			vi_post_block_size(dim));
}

/* The parts of a block in buf (of vi_post_block_size(dim) bytes). */
static void block_view(const unsigned char *buf, size_t dim, vi_post_block *b)
{
	const unsigned char *p = buf + PO_HEAD;
	uint32_t npost;

	memcpy(&b->first_id, buf, 8);
	memcpy(&b->last_id, buf + 8, 8);
	memcpy(&b->flags, buf + 16, 4);
	memcpy(&npost, buf + 20, 4);
	/* a damaged count reads no posting past the block */
	b->npost = npost < PO_NPOST ? npost : PO_NPOST;
	b->scale = (const float *)(const void *)p;
	p += VI_POST_BLOCK * sizeof(float);
	b->rest = (const float *)(const void *)p;
	p += VI_POST_BLOCK * sizeof(float);
	b->start = (const uint16_t *)(const void *)p;
	p += start_bytes(dim);
	b->rec = (const uint16_t *)(const void *)p;
	p += PO_NPOST * sizeof(uint16_t);
	b->val = (const int8_t *)(const void *)p;
}

void vi_postings_open(vi_postings *po, const char *path, const struct stat *vst, int vfd,
		      size_t sketched, size_t dim)
{
	size_t bsize = vi_post_block_size(dim), recsize = vi_record_size(dim), blocks;
	vi_derived d;
	void *m;
	int fd = -1;

	po->map = NULL;
	po->maplen = 0;
	po->blocks = 0;
	po->dim = dim;
	if (!vi_postings_wanted(sketched, dim))
		goto out;
	postings_derived(&d, dim, vst);
	if ((fd = vi_derived_open(&d, path, &blocks)) < 0 || !blocks)
		goto out;
	if (blocks > sketched / VI_POST_BLOCK)
		blocks = sketched / VI_POST_BLOCK;
	/* the first record of the first block and the last of the last are
	 * the vector file's (a file on a reused inode would have to agree on
	 * both, and the sketch file on three) */
	for (int k = 0; k < 2; k++) {
		size_t b = k == 0 ? 0 : blocks - 1;
		size_t r = k == 0 ? 0 : blocks * VI_POST_BLOCK - 1;
		int64_t mine, theirs;

		if (pread(fd, &mine, 8, (off_t)(VI_DERIVED_HEADER + b * bsize + (k ? 8u : 0u))) != 8 ||
		    pread(vfd, &theirs, 8, (off_t)(VI_HEADER_SIZE + r * recsize)) != 8 ||
		    mine != theirs)
			goto out;
	}
	po->maplen = VI_DERIVED_HEADER + blocks * bsize;
	m = mmap(NULL, po->maplen, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		po->maplen = 0;
		goto out;
	}
	po->map = m;
	po->blocks = blocks;
out:
	if (fd >= 0)
		close(fd);
}

void vi_postings_close(vi_postings *po)
{
	if (po->map)
		munmap((void *)po->map, po->maplen);
	po->map = NULL;
	po->maplen = 0;
	po->blocks = 0;
}

int vi_postings_read(const vi_postings *po, size_t b, vi_post_block *out)
{
	if (b >= po->blocks || !po->map)
		return -1;
	block_view(po->map + VI_DERIVED_HEADER + b * vi_post_block_size(po->dim), po->dim, out);
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

/* What append_blocks reads: the sketches, of vectors of dim. */
typedef struct blocks_src {
	const vi_sketch *sk;
	size_t dim;
} blocks_src;

/* Append to fd the blocks [from, to) of the sketches. */
static int append_blocks(int fd, size_t from, size_t to, void *arg)
{
	const blocks_src *src = arg;
	size_t bsize = vi_post_block_size(src->dim);
	vi_sketch_rec *s = malloc(VI_POST_BLOCK * sizeof(*s));
	unsigned char *buf = malloc(bsize);
	int rc = s && buf ? 0 : -1;

	for (size_t b = from; !rc && b < to; b++) {
		if (vi_sketch_read(src->sk, b * VI_POST_BLOCK, s, VI_POST_BLOCK) != VI_POST_BLOCK) {
			rc = -1;
			break;
		}
		memset(buf, 0, bsize);
		block_make(buf, s, src->dim);
		rc = callus_fs_write_all(fd, buf, bsize);
	}
	free(s);
	free(buf);
	return rc;
}

size_t vi_postings_damaged(const vi_postings *po, const vi_sketch_rec *want)
{
	size_t bsize = vi_post_block_size(po->dim), bad = 0;
	unsigned char *buf = malloc(bsize);

	/* without memory every block is counted: the file is written again */
	if (!buf)
		return po->blocks;
	for (size_t b = 0; b < po->blocks; b++) {
		memset(buf, 0, bsize);
		block_make(buf, want + b * VI_POST_BLOCK, po->dim);
		bad += memcmp(buf, po->map + VI_DERIVED_HEADER + b * bsize, bsize) != 0;
	}
	free(buf);
	return bad;
}

void vi_postings_sync(const char *path, const struct stat *vst, const vi_sketch *sk, size_t dim)
{
	size_t blocks = vi_postings_wanted(sk->count, dim), units;
	blocks_src src = { sk, dim };
	vi_derived d;
	int fd;

	if (!blocks)
		return;
	postings_derived(&d, dim, vst);
	if ((fd = vi_derived_sync(&d, path, blocks, append_blocks, &src, &units)) >= 0)
		close(fd);
}

int vi_postings_remove(const char *path)
{
	return vi_derived_remove(path, ".post");
}
