/*
 * vecindex_sketch.c - the sketch file beside a vector file: each record's
 * heaviest components, which bound its score with a query
 * (vecindex_internal.h).
 *
 * Layout, native byte order like the vector file: the header of a derived
 * file (vecindex_internal.h: magic "CALLUSSK", version 2, extra 0), then a
 * vi_sketch_rec (40 bytes) a record.
 */
#include "callus/buf.h"
#include "callus/fsutil.h"

#include "vecindex_internal.h"

#include <errno.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#define SK_MAGIC "CALLUSSK"   /* 8 bytes, no NUL */
#define SK_VERSION 2u
/* Records read from the vector file per pread when sketching it. */
#define SK_CHUNK 256u

_Static_assert(sizeof(vi_sketch_rec) == 40, "a sketch record is 40 bytes");

/* The sketch file's header and unit, for vectors of dim of the file vst. */
static void sketch_derived(vi_derived *d, size_t dim, const struct stat *vst)
{
	vi_derived_init(d, ".sketch", SK_MAGIC, SK_VERSION, dim, 0, vst, sizeof(vi_sketch_rec));
}

/*
 * Whether any of the 16 components at v weighs more than floor (-1 to 127):
 * with SSE2, 16 at once.  A -128, which no quantization makes, reads as
 * no weight here: left out of the top, its square stays in the rest, and
 * the bound holds.
 */
#ifdef __SSE2__
static int any_above(const int8_t *v, int floor)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)v);
	__m128i neg = _mm_cmpgt_epi8(_mm_setzero_si128(), x);
	__m128i a = _mm_sub_epi8(_mm_xor_si128(x, neg), neg);

	return _mm_movemask_epi8(_mm_cmpgt_epi8(a, _mm_set1_epi8((char)floor))) != 0;
}
#else
static int any_above(const int8_t *v, int floor)
{
	(void)v;
	(void)floor;
	return 1;
}
#endif

void vi_sketch_of(vi_sketch_rec *s, const unsigned char *rec, size_t dim)
{
	const int8_t *v = (const int8_t *)(rec + 12);
	int32_t total = vi_dot_i8(v, v, dim), top = 0;
	double rest;
	int n = 0, floor = -1;

	memset(s, 0, sizeof(*s));
	memcpy(&s->id, rec, 8);
	memcpy(&s->scale, rec + 8, 4);
	/* insertion into the top, heaviest first, the lower component first
	 * among equals: deterministic.  Most components are no heavier than
	 * the top's lightest (floor, once it is full): a look at 16 at once. */
	for (size_t i = 0; i < dim; i += 16) {
		size_t end = i + 16 < dim ? i + 16 : dim;

		if (end - i == 16 && !any_above(v + i, floor))
			continue;
		for (size_t c = i; c < end; c++) {
			int a = abs(v[c]);
			int j;

			if (a <= floor)
				continue;
			if (n < VI_SKETCH_TOP)
				n++;
			for (j = n - 1; j > 0 && abs(s->v[j - 1]) < a; j--) {
				s->v[j] = s->v[j - 1];
				s->dim[j] = s->dim[j - 1];
			}
			s->v[j] = v[c];
			s->dim[j] = (uint16_t)c;
			if (n == VI_SKETCH_TOP)
				floor = abs(s->v[n - 1]);
		}
	}
	for (int t = 0; t < n; t++)
		top += (int32_t)s->v[t] * s->v[t];
	/* fewer components than the top (dim under VI_SKETCH_TOP): the rest
	 * name component 0 with zero weight, which adds nothing */
	for (int t = n; t < VI_SKETCH_TOP; t++)
		s->dim[t] = 0;
	/* rounded up: the bound must not fall under a score */
	rest = sqrt((double)(total - top));
	s->rest = (float)rest;
	if ((double)s->rest < rest)
		s->rest = nextafterf(s->rest, INFINITY);
}

void vi_sketch_open(vi_sketch *sk, const char *path, const struct stat *vst, int vfd,
		    size_t vcount, size_t dim)
{
	size_t count, recsize = vi_record_size(dim);
	vi_derived d;
	int fd = -1;

	sk->fd = -1;
	sk->count = 0;
	if (!vcount)
		goto out;
	sketch_derived(&d, dim, vst);
	if ((fd = vi_derived_open(&d, path, &count)) < 0)
		goto out;
	/* appended to since the vector file was mapped: what the mapping has */
	if (count > vcount)
		count = vcount;
	if (count == 0)
		goto out;
	sk->fd = fd;
	sk->count = count;
	fd = -1;
	/* the first, middle and last records it describes are the vector
	 * file's (a file that reused the inode of the one it was made for
	 * would have to agree on all three); their ids read, not touched in
	 * the vector file's mapping: three records of a large file are three
	 * page tables to make and tear down (20 MB at 68,000 signatures:
	 * 0.15 ms an open of the file here, which a recording opens a few
	 * times) */
	for (size_t k = 0; k < 3 && sk->count; k++) {
		size_t r = k == 0 ? 0 : k == 1 ? count / 2 : count - 1;
		vi_sketch_rec one;
		int64_t id;

		if (vi_sketch_read(sk, r, &one, 1) != 1 ||
		    pread(vfd, &id, sizeof(id), (off_t)(VI_HEADER_SIZE + r * recsize)) !=
			    (ssize_t)sizeof(id) ||
		    one.id != id)
			vi_sketch_close(sk);
	}
out:
	if (fd >= 0)
		close(fd);
}

size_t vi_sketch_read(const vi_sketch *sk, size_t from, vi_sketch_rec *out, size_t n)
{
	ssize_t got;

	if (from >= sk->count)
		return 0;
	if (n > sk->count - from)
		n = sk->count - from;
	do
		got = pread(sk->fd, out, n * sizeof(*out),
			    (off_t)VI_DERIVED_HEADER + (off_t)(from * sizeof(*out)));
	while (got < 0 && errno == EINTR);
	/* the records below count are never rewritten (a crash's partial
	 * last one is cut only past them): short is a failure */
	return got == (ssize_t)(n * sizeof(*out)) ? n : 0;
}

size_t vi_sketch_damaged(const vi_sketch *sk, const vi_sketch_rec *want)
{
	vi_sketch_rec got[64];
	size_t bad = 0;

	for (size_t i = 0; i < sk->count; i += 64) {
		size_t n = sk->count - i < 64 ? sk->count - i : 64, have = vi_sketch_read(sk, i, got, n);

		for (size_t j = 0; j < n; j++)
			bad += j >= have || memcmp(&want[i + j], &got[j], sizeof(got[j]));
	}
	return bad;
}

void vi_sketch_close(vi_sketch *sk)
{
	if (sk->fd >= 0)
		close(sk->fd);
	sk->fd = -1;
	sk->count = 0;
}

/* What append_sketches reads: the vector file. */
typedef struct sketch_src {
	int vfd;
	size_t dim;
} sketch_src;

/* Append to fd the sketches of the vector file's records [from, to). */
static int append_sketches(int fd, size_t from, size_t to, void *arg)
{
	const sketch_src *src = arg;
	size_t recsize = vi_record_size(src->dim);
	unsigned char *chunk = malloc(SK_CHUNK * recsize);
	vi_sketch_rec out[SK_CHUNK];
	int rc = 0;

	if (!chunk)
		return -1;
	while (from < to) {
		size_t m = to - from < SK_CHUNK ? to - from : SK_CHUNK;
		off_t at = (off_t)VI_HEADER_SIZE + (off_t)from * (off_t)recsize;

		if (pread(src->vfd, chunk, m * recsize, at) != (ssize_t)(m * recsize)) {
			rc = -1;
			break;
		}
		for (size_t i = 0; i < m; i++)
			vi_sketch_of(&out[i], chunk + i * recsize, src->dim);
		if ((rc = callus_fs_write_all(fd, out, m * sizeof(*out))) < 0)
			break;
		from += m;
	}
	free(chunk);
	return rc;
}

void vi_sketch_sync(const char *path, int vfd, size_t dim)
{
	sketch_src src = { vfd, dim };
	vi_sketch sk = { -1, 0 };
	struct stat vst;
	vi_derived d;

	if (fstat(vfd, &vst) < 0 || vst.st_size < (off_t)VI_HEADER_SIZE)
		return;
	sketch_derived(&d, dim, &vst);
	sk.fd = vi_derived_sync(&d, path,
				((size_t)vst.st_size - VI_HEADER_SIZE) / vi_record_size(dim),
				append_sketches, &src, &sk.count);
	/* and the blocks of them the postings lack, read from the file just
	 * written */
	vi_postings_sync(path, &vst, &sk, dim);
	vi_sketch_close(&sk);
}

int vi_sketch_remove(const char *path)
{
	return vi_derived_remove(path, ".sketch");
}
