/*
 * vecindex.c - the signature vectors as one mapped file of int8 records,
 * scanned brute force (see include/callus/vecindex.h).
 *
 * Layout, native byte order (the file is derived, local data: a machine of
 * the other endianness reads a version it does not know, calls the file
 * stale and the next rewrite replaces it):
 *
 *   header  char magic[8] "CALLUSVEC\0"; uint32 version; uint32 dim;
 *           char model[64] NUL-padded                       (80 bytes)
 *   record  int64 id; float scale; int8 v[dim]; zero padding to a
 *           multiple of 8 bytes
 *
 * The header is a multiple of 8 bytes and so is every record, so a
 * record's id is 8-byte aligned in the mapping.
 *
 * Concurrency.  Writers serialise on flock(2) of the index file itself.
 * Readers take no lock: they map only the whole records present when they
 * open, and nothing ever shrinks a file below a whole record, so a mapping
 * never reaches past the end of its file (which would be SIGBUS).  That is
 * also why a stale file is replaced by rename and not truncated in place: a
 * hook may still be scanning the old one.  An appender that waited for the
 * lock checks, once it has it, that path still names the file it opened,
 * since a rewrite may have renamed a new file over it meanwhile.
 */
#include "callus/vecindex.h"
#include "callus/buf.h"
#include "callus/fsutil.h"

#include "vecindex_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define VI_MAGIC "CALLUSVEC"          /* with its NUL: 8 bytes */
#define VI_VERSION 1u
/* The dot product accumulates in int32: dim * 127 * 127 must not wrap. */
#define VI_DIM_MAX 65536u
/* Records written per write(2): bounds the staging buffer, not the file. */
#define VI_CHUNK_RECORDS 256u
/* Records a reader finds without their sketches before it makes them (a
 * copied store: the sketch names another inode; a sketch file removed).
 * One pass over the file, about a search's cost without them, once. */
#define VI_SKETCH_REPAIR 256u
/* Query dimensions quantized on the stack; larger ones are allocated. */
#define VI_QUERY_STACK 4096u

struct callus_vecindex {
	const unsigned char *map;  /* NULL when empty */
	size_t maplen;
	size_t count;              /* whole records in the mapping */
	size_t dim;
	size_t recsize;
	uint64_t dev, ino;         /* the file mapped; 0 when none */
	vi_sketch sk;              /* of its first sk.count records */
	vi_postings po;            /* of its first po.blocks blocks of them */
};

/* The model name as it sits in the header: at most MODEL_MAX bytes,
 * NUL-padded (no terminating NUL when it fills the field). */
static int check_args(const char *path, const char *model, size_t dim, callus_error *err)
{
	if (!path || !*path)
		return callus_error_set(err, CALLUS_EINVAL, "vector index: no path");
	if (!model || !*model || strlen(model) > CALLUS_VECINDEX_MODEL_MAX)
		return callus_error_set(err, CALLUS_EINVAL, "vector index: bad model name");
	if (dim == 0 || dim > VI_DIM_MAX)
		return callus_error_set(err, CALLUS_EINVAL, "vector index: bad dimension %zu", dim);
	return 0;
}

static void header_make(unsigned char hdr[VI_HEADER_SIZE], const char *model, size_t dim)
{
	uint32_t version = VI_VERSION, d = (uint32_t)dim;

	memset(hdr, 0, VI_HEADER_SIZE);
	memcpy(hdr, VI_MAGIC, sizeof(VI_MAGIC));
	memcpy(hdr + 8, &version, 4);
	memcpy(hdr + 12, &d, 4);
	memcpy(hdr + 16, model, strlen(model));
}

/* Compared byte for byte with the header this model would get, padding
 * included, so that a damaged header never passes for a valid one. */
static int header_matches(const unsigned char hdr[VI_HEADER_SIZE], const char *model, size_t dim)
{
	unsigned char want[VI_HEADER_SIZE];

	header_make(want, model, dim);
	return memcmp(hdr, want, VI_HEADER_SIZE) == 0;
}

/*
 * Quantize v (n floats) to int8 with one scale: scale = max|x| / 127 and
 * q = x / scale rounded to nearest, so x ~ q * scale.  A non-finite component
 * becomes 0 (callers reject them where they can).  Returns the scale, 0
 * for a zero vector.
 */
static float quantize(int8_t *q, const float *v, size_t n)
{
	float maxabs = 0, inv;

	for (size_t i = 0; i < n; i++) {
		float a = v[i] < 0 ? -v[i] : v[i];
		if (a > maxabs && a <= 3.4e38f)
			maxabs = a;
	}
	if (maxabs == 0) {
		memset(q, 0, n);
		return 0;
	}
	inv = 127.0f / maxabs;
	for (size_t i = 0; i < n; i++) {
		float r = v[i] * inv;
		long x = 0; /* a NaN stays 0: it fails every comparison */

		if (r >= 127.0f)
			x = 127;
		else if (r <= -127.0f)
			x = -127;
		else if (r == r)
			x = lrintf(r);
		q[i] = (int8_t)x;
	}
	return maxabs / 127.0f;
}

size_t callus_vecindex_pack(uint8_t *out, const float *v, size_t dim)
{
	float scale = quantize((int8_t *)(out + sizeof(float)), v, dim);

	memcpy(out, &scale, sizeof(scale));
	return sizeof(float) + dim;
}

/* The mask form's length for k non-zero components of dim (even, at most
 * CALLUS_VECINDEX_SPARSE_DIM_MAX): the scale, a bit a dimension, the values,
 * and a zero byte when that is even, so that its length is odd where the
 * others' are even. */
static size_t mask_len(size_t dim, size_t k)
{
	size_t n = sizeof(float) + (dim + 7) / 8 + k;

	return n % 2 ? n : n + 1;
}

size_t callus_vecindex_pack_sparse(uint8_t *out, const uint8_t *packed, size_t dim)
{
	uint8_t form[CALLUS_VECINDEX_PACKED(CALLUS_VECINDEX_SPARSE_DIM_MAX)];
	const uint8_t *q = packed + sizeof(float);
	size_t k = 0, best = CALLUS_VECINDEX_PACKED(dim), n = sizeof(float);

	if (dim > CALLUS_VECINDEX_SPARSE_DIM_MAX)
		goto dense;
	for (size_t i = 0; i < dim; i++)
		k += q[i] != 0;
	memcpy(form, packed, sizeof(float));
	if (dim % 2 == 0 && mask_len(dim, k) < best && mask_len(dim, k) < sizeof(float) + 2 * k) {
		uint8_t *bits = form + sizeof(float);

		memset(bits, 0, (dim + 7) / 8);
		n += (dim + 7) / 8;
		for (size_t i = 0; i < dim; i++) {
			if (q[i]) {
				bits[i / 8] |= (uint8_t)(1u << (i % 8));
				form[n++] = q[i];
			}
		}
		if (n % 2 == 0)
			form[n++] = 0;
	} else if (2 * k < dim) {
		for (size_t i = 0; i < dim; i++) {
			if (q[i]) {
				form[n++] = (uint8_t)i;
				form[n++] = q[i];
			}
		}
	} else {
		goto dense;
	}
	memcpy(out, form, n);
	return n;
dense:
	if (out != packed)
		memmove(out, packed, CALLUS_VECINDEX_PACKED(dim));
	return CALLUS_VECINDEX_PACKED(dim);
}

size_t callus_vecindex_pack_store(uint8_t *out, const float *v, size_t dim)
{
	callus_vecindex_pack(out, v, dim);
	return callus_vecindex_pack_sparse(out, out, dim);
}

/* The mask form (odd length): every bit past dim clear, as many values as
 * bits set, each non-zero, and a zero pad byte where mask_len puts one. */
static int unpack_mask(int8_t *q, size_t dim, const uint8_t *b, size_t len)
{
	const uint8_t *bits = b + sizeof(float), *val = bits + (dim + 7) / 8;
	size_t k = 0, nbytes = (dim + 7) / 8;

	if (dim % 2 || dim > CALLUS_VECINDEX_SPARSE_DIM_MAX || len < sizeof(float) + nbytes)
		return CALLUS_EINVAL;
	/* a byte of the mask at a time, its bits counted, not walked: a
	 * search checks hundreds of records against the store's vectors */
	if (dim % 8 && bits[nbytes - 1] >> (dim % 8))
		return CALLUS_EINVAL;
	for (size_t i = 0; i < nbytes; i++)
		k += (size_t)__builtin_popcount(bits[i]);
	if (len != mask_len(dim, k) || (len > (size_t)(val - b) + k && val[k] != 0))
		return CALLUS_EINVAL;
	if (memchr(val, 0, k))
		return CALLUS_EINVAL;
	memset(q, 0, dim);
	for (size_t i = 0, j = 0; i < nbytes; i++)
		for (unsigned m = bits[i]; m; m &= m - 1)
			q[i * 8 + (size_t)__builtin_ctz(m)] = (int8_t)val[j++];
	return 0;
}

/* A packed vector of dim (any of its forms) as its integers, q[0..dim),
 * and their scale: 0, or CALLUS_EINVAL when blob is none. */
static int unpack_ints(int8_t *q, float *scale, size_t dim, const void *blob, size_t len)
{
	const uint8_t *b = blob;
	size_t last = 0;

	if (!b || len < sizeof(float))
		return CALLUS_EINVAL;
	memcpy(scale, b, sizeof(*scale));
	if (len == CALLUS_VECINDEX_PACKED(dim)) {
		memcpy(q, b + sizeof(float), dim);
		return 0;
	}
	if (len % 2)
		return unpack_mask(q, dim, b, len);
	/* sparse: (index, value) pairs, indexes rising, fewer than dim / 2
	 * of them (so never the dense form's length) */
	len -= sizeof(float);
	if (dim > CALLUS_VECINDEX_SPARSE_DIM_MAX || len >= dim)
		return CALLUS_EINVAL;
	b += sizeof(float);
	for (size_t i = 0; i < len; i += 2) {
		if (b[i] >= dim || (i && b[i] <= last))
			return CALLUS_EINVAL;
		last = b[i];
	}
	memset(q, 0, dim);
	for (size_t i = 0; i < len; i += 2)
		q[b[i]] = (int8_t)b[i + 1];
	return 0;
}

/* Up to this many dimensions, a vector's integers are held on the stack. */
#define VI_STACK_DIM 256

int callus_vecindex_unpack(float *v, size_t dim, const void *blob, size_t len)
{
	int8_t stack[VI_STACK_DIM], *q = dim <= VI_STACK_DIM ? stack : malloc(dim);
	float scale;
	int rc;

	if (!q)
		return CALLUS_ENOMEM;
	if ((rc = unpack_ints(q, &scale, dim, blob, len)) == 0)
		for (size_t i = 0; i < dim; i++)
			v[i] = (float)q[i] * scale;
	if (q != stack)
		free(q);
	return rc;
}

static void record_make(unsigned char *rec, size_t recsize, int64_t id, const float *v,
			size_t dim)
{
	float scale;

	memset(rec, 0, recsize);
	memcpy(rec, &id, 8);
	scale = quantize((int8_t *)(rec + 12), v, dim);
	memcpy(rec + 8, &scale, 4);
}

static int check_vectors(const float *vecs, size_t n, size_t dim, callus_error *err)
{
	size_t total = n * dim; /* the caller checked the product */

	for (size_t i = 0; i < total; i++) {
		float x = vecs[i];
		/* finite and within what a normalized vector can hold, with
		 * room for rounding: a NaN fails both comparisons */
		if (!(x >= -2.0f && x <= 2.0f))
			return callus_error_set(err, CALLUS_EINVAL,
					      "vector index: vector %zu is not normalized",
					      i / dim);
	}
	return 0;
}

int vi_replace(const char *path, int (*fill)(int fd, void *arg), void *arg)
{
	callus_buf tmp = CALLUS_BUF_INIT;
	int fd = -1, rc = -1, saved;

	if (callus_buf_printf(&tmp, "%s.tmp.XXXXXX", path) < 0) {
		errno = ENOMEM;
		goto out;
	}
	/* mkostemp creates the file 0600: as private as the store it
	 * comes from */
	if ((fd = mkostemp(tmp.ptr, O_CLOEXEC)) < 0) {
		callus_buf_clear(&tmp); /* nothing to unlink */
		goto out;
	}
	if (fill(fd, arg) < 0)
		goto out;
	rc = close(fd);
	fd = -1;
	if (rc < 0 || (rc = rename(tmp.ptr, path)) < 0)
		goto out;
	callus_buf_clear(&tmp); /* renamed: nothing left to remove */
out:
	saved = errno;
	if (fd >= 0)
		close(fd);
	if (tmp.len)
		unlink(tmp.ptr);
	callus_buf_release(&tmp);
	errno = saved;
	return rc;
}

/*
 * Write the header (when with_header) and the n records to fd, staging
 * VI_CHUNK_RECORDS records per write so that a million vectors need no
 * buffer of their size.
 */
static int write_records(int fd, const char *path, int with_header, const char *model,
			 size_t dim, const int64_t *ids, const float *vecs, size_t n,
			 callus_error *err)
{
	size_t recsize = vi_record_size(dim), per = n < VI_CHUNK_RECORDS ? n : VI_CHUNK_RECORDS;
	size_t cap, done = 0;
	unsigned char *chunk = NULL;
	int rc = 0;

	/* recsize <= 65548 and per <= 256: no overflow */
	cap = VI_HEADER_SIZE + per * recsize;
	chunk = malloc(cap);
	if (!chunk) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	do {
		size_t len = 0, m = n - done < per ? n - done : per;

		if (with_header && done == 0) {
			header_make(chunk, model, dim);
			len = VI_HEADER_SIZE;
		}
		for (size_t i = 0; i < m; i++, len += recsize)
			record_make(chunk + len, recsize, ids[done + i], vecs + (done + i) * dim,
				    dim);
		if (callus_fs_write_all(fd, chunk, len) < 0) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot write '%s': %s", path,
					      strerror(errno));
			goto out;
		}
		done += m;
	} while (done < n);
out:
	free(chunk);
	return rc;
}

static int lock_fd(int fd, const char *path, callus_error *err)
{
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR)
			return callus_error_set(err, CALLUS_EIO, "cannot lock '%s': %s", path,
					      strerror(errno));
	}
	return 0;
}

/* The vectors a rewrite takes one at a time (callus_vecindex_rewrite_each). */
typedef struct each {
	const char *path, *model;
	size_t dim;
	callus_vecindex_next next;
	void *arg;
	callus_error *err;
	int rc;
} each;

/* Write the header and the records next gives to fd, a chunk of
 * VI_CHUNK_RECORDS records at a time: all a rewrite holds. */
static int write_each(int fd, each *e)
{
	size_t recsize = vi_record_size(e->dim), len = VI_HEADER_SIZE, m;
	unsigned char *chunk = malloc(VI_HEADER_SIZE + VI_CHUNK_RECORDS * recsize);
	float *v = malloc(e->dim * sizeof(*v));
	int64_t id;
	int rc = 0, more = 1;

	if (!chunk || !v) {
		rc = callus_error_set(e->err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	header_make(chunk, e->model, e->dim);
	while (more > 0) {
		for (m = 0; m < VI_CHUNK_RECORDS && (more = e->next(e->arg, &id, v, e->err)) > 0;
		     m++, len += recsize) {
			if ((rc = check_vectors(v, 1, e->dim, e->err)) < 0)
				goto out;
			record_make(chunk + len, recsize, id, v, e->dim);
		}
		if (more < 0) {
			rc = more;
			goto out;
		}
		if (len && callus_fs_write_all(fd, chunk, len) < 0) {
			rc = callus_error_set(e->err, CALLUS_EIO, "cannot write '%s': %s", e->path,
					      strerror(errno));
			goto out;
		}
		len = 0;
	}
out:
	free(chunk);
	free(v);
	return rc;
}

static int fill_each(int fd, void *arg)
{
	each *e = arg;

	if ((e->rc = write_each(fd, e)) < 0)
		return -1;
	/* its sketches first: a reader between the two renames sees a
	 * sketch file of another vector file, and uses none */
	vi_sketch_sync(e->path, fd, e->dim);
	return 0;
}

/* The array callus_vecindex_rewrite is given, as a rewrite takes it. */
typedef struct array_src {
	const int64_t *ids;
	const float *vecs;
	size_t n, dim, i;
} array_src;

static int array_next(void *arg, int64_t *id, float *v, callus_error *err)
{
	array_src *a = arg;

	(void)err;
	if (a->i == a->n)
		return 0;
	*id = a->ids[a->i];
	memcpy(v, a->vecs + a->i * a->dim, a->dim * sizeof(*v));
	a->i++;
	return 1;
}

/*
 * Replace path with a new file of the records e gives: a temporary file
 * in the same directory, renamed over it.  No fsync: the store holds the
 * truth and a file lost in a crash is rebuilt from it (an empty or damaged
 * one reads as empty).  Takes no lock: callers hold the one they need.
 */
static int replace_file(each *e)
{
	if (vi_replace(e->path, fill_each, e) == 0)
		return 0;
	return e->rc < 0 ? e->rc
			 : callus_error_set(e->err, CALLUS_EIO, "cannot replace '%s': %s", e->path,
					  strerror(errno));
}

static int check_count(size_t n, size_t dim, const int64_t *ids, const float *vecs,
		       callus_error *err)
{
	size_t total;

	if (n && (!ids || !vecs))
		return callus_error_set(err, CALLUS_EINVAL, "vector index: no vectors");
	if (callus_size_mul(&total, n, dim) || callus_size_mul(&total, total, sizeof(float)))
		return callus_error_set(err, CALLUS_ENOMEM, "vector index: too many vectors");
	return 0;
}

/* Replace the file at path with e's records, holding the current file's
 * lock across the rename, so that an append is either finished before it
 * (and replaced, as the caller asked) or sees the new file when it gets
 * the lock.  No file: nothing to order against (an appender that creates
 * one meanwhile sees the rename when it checks its inode). */
static int rewrite_locked(each *e)
{
	int fd, rc = 0;

	fd = open(e->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT)
		return callus_error_set(e->err, CALLUS_EIO, "cannot open '%s': %s", e->path,
				      strerror(errno));
	if (fd >= 0)
		rc = lock_fd(fd, e->path, e->err);
	if (!rc)
		rc = replace_file(e);
	if (fd >= 0)
		close(fd); /* releases the lock */
	return rc;
}

int callus_vecindex_rewrite(const char *path, const char *model, size_t dim, const int64_t *ids,
			  const float *vecs, size_t n, callus_error *err)
{
	array_src a = { ids, vecs, n, dim, 0 };
	each e = { path, model, dim, array_next, &a, err, 0 };
	int rc;

	rc = check_args(path, model, dim, err);
	if (!rc)
		rc = check_count(n, dim, ids, vecs, err);
	if (!rc)
		rc = check_vectors(vecs, n, dim, err);
	return rc ? rc : rewrite_locked(&e);
}

int callus_vecindex_rewrite_each(const char *path, const char *model, size_t dim,
			       callus_vecindex_next next, void *arg, callus_error *err)
{
	each e = { path, model, dim, next, arg, err, 0 };
	int rc = check_args(path, model, dim, err);

	return rc ? rc : rewrite_locked(&e);
}

/* Open path for appending and lock it, retrying while a rewrite renames
 * another file over the one we opened.  *out_fd is locked on success. */
static int open_locked(int *out_fd, const char *path, callus_error *err)
{
	int fd = -1, rc = 0;

	*out_fd = -1;
	for (int tries = 0;; tries++) {
		struct stat fst, pst;

		/* not through a symlink (docs/safety.md): a link is refused
		 * here, and the rewrite that follows the failure renames a file
		 * over the link itself */
		fd = callus_fs_open_own(path, O_RDWR | O_APPEND | O_CREAT, 0600);
		if (fd < 0) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot open '%s': %s", path,
					    strerror(errno));
			goto out;
		}
		rc = lock_fd(fd, path, err);
		if (rc)
			goto out;
		if (fstat(fd, &fst) < 0) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot stat '%s': %s", path,
					    strerror(errno));
			goto out;
		}
		if (!S_ISREG(fst.st_mode)) {
			rc = callus_error_set(err, CALLUS_EIO, "'%s' is not a regular file", path);
			goto out;
		}
		if (stat(path, &pst) == 0 && pst.st_dev == fst.st_dev && pst.st_ino == fst.st_ino)
			break;
		/* Replaced (or removed) while we waited: the lock we hold is
		 * on a file nobody will read. */
		if (tries == 100) {
			rc = callus_error_set(err, CALLUS_EBUSY, "'%s' keeps being replaced", path);
			goto out;
		}
		close(fd);
		fd = -1;
	}
	*out_fd = fd;
	fd = -1;
out:
	if (fd >= 0)
		close(fd);
	return rc;
}

int callus_vecindex_append(const char *path, const char *model, size_t dim, const int64_t *ids,
			 const float *vecs, size_t n, callus_error *err)
{
	unsigned char hdr[VI_HEADER_SIZE];
	size_t recsize = vi_record_size(dim);
	struct stat st;
	off_t size;
	int fd = -1, rc;

	rc = check_args(path, model, dim, err);
	if (!rc)
		rc = check_count(n, dim, ids, vecs, err);
	if (!rc)
		rc = check_vectors(vecs, n, dim, err);
	if (rc || n == 0)
		return rc;
	rc = open_locked(&fd, path, err);
	if (rc)
		goto out;
	if (fstat(fd, &st) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot stat '%s': %s", path, strerror(errno));
		goto out;
	}
	size = st.st_size;
	if (size > 0) {
		ssize_t r = size >= (off_t)VI_HEADER_SIZE ? pread(fd, hdr, VI_HEADER_SIZE, 0) : 0;

		if (r != (ssize_t)VI_HEADER_SIZE || !header_matches(hdr, model, dim)) {
			/* Stale or damaged: start a new file, by rename so
			 * that a reader still mapping this one is not cut
			 * short.  Our lock keeps other appenders off until
			 * the new file is in place; they then reopen. */
			array_src a = { ids, vecs, n, dim, 0 };
			each e = { path, model, dim, array_next, &a, err, 0 };

			rc = replace_file(&e);
			goto out;
		}
		/* A crashed writer may have left part of a record: cut it,
		 * or every record after it would be misaligned. */
		if ((size = vi_cut_partial(fd, size, VI_HEADER_SIZE, recsize)) < 0) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot truncate '%s': %s", path,
					    strerror(errno));
			goto out;
		}
	}
	rc = write_records(fd, path, size == 0, model, dim, ids, vecs, n, err);
	/* A failed write keeps the records it wrote whole (a reader that
	 * opened meanwhile may have mapped them): they are the caller's own
	 * signatures', which its store, rolled back, indexes again, and a
	 * search names an id once.  A cut that fails leaves the partial
	 * record to the next append. */
	if (rc)
		(void)vi_cut_partial(fd, -1, VI_HEADER_SIZE, recsize);
	if (!rc)
		vi_sketch_sync(path, fd, dim);
out:
	if (fd >= 0)
		close(fd); /* releases the lock */
	return rc;
}

/* Whether a reader found enough of vi's derived files missing to make
 * them: VI_SKETCH_REPAIR records without a sketch, or a whole block of
 * sketches without its postings (writers keep both; a copied store, a
 * file removed, has neither). */
static int derived_missing(const callus_vecindex *vi)
{
	return vi->sk.count + VI_SKETCH_REPAIR <= vi->count ||
	       vi->po.blocks < vi_postings_wanted(vi->sk.count, vi->dim);
}

/* Make the derived files a reader of fd (path, as st says, mapped in vi)
 * found missing, when no writer holds the file's lock (it keeps them
 * itself) and path still names it, and open them again. */
static void derived_repair(callus_vecindex *vi, const char *path, int fd, const struct stat *st)
{
	struct stat pst;

	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return;
	if (stat(path, &pst) == 0 && pst.st_dev == st->st_dev && pst.st_ino == st->st_ino) {
		vi_sketch_sync(path, fd, vi->dim);
		vi_sketch_close(&vi->sk);
		vi_postings_close(&vi->po);
		vi_sketch_open(&vi->sk, path, st, fd, vi->count, vi->dim);
		vi_postings_open(&vi->po, path, st, fd, vi->sk.count, vi->dim);
	}
	(void)flock(fd, LOCK_UN);
}

/* The whole records of the regular file fd (st its stat, of at most
 * SIZE_MAX bytes) when its header is of model and dim; 0 when it has
 * none, or a partial header or another's (*stale set for those; stale may
 * be NULL).  A partial last record is a write in progress or a crash, and
 * the next append cuts it. */
static size_t whole_records(int fd, const struct stat *st, const char *model, size_t dim,
			    int *stale)
{
	unsigned char hdr[VI_HEADER_SIZE];

	if (st->st_size == 0)
		return 0; /* created, header not written yet */
	if (st->st_size < (off_t)VI_HEADER_SIZE ||
	    pread(fd, hdr, VI_HEADER_SIZE, 0) != (ssize_t)VI_HEADER_SIZE ||
	    !header_matches(hdr, model, dim)) {
		if (stale)
			*stale = 1;
		return 0;
	}
	return ((size_t)st->st_size - VI_HEADER_SIZE) / vi_record_size(dim);
}

/* callus_vecindex_open, its missing derived files made when repair. */
static int open_file(callus_vecindex **out, const char *path, const char *model, size_t dim,
		     int *stale, int repair, callus_error *err)
{
	callus_vecindex *vi = NULL;
	struct stat st;
	size_t count = 0, len = 0;
	int fd = -1, rc;

	*out = NULL;
	if (stale)
		*stale = 0;
	rc = check_args(path, model, dim, err);
	if (rc)
		return rc;
	vi = calloc(1, sizeof(*vi));
	if (!vi) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	vi->dim = dim;
	vi->recsize = vi_record_size(dim);
	vi->sk.fd = -1;
	vi->po.map = NULL;
	/* O_NONBLOCK: a FIFO at path opens at once, and is refused below */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			goto done;
		rc = callus_error_set(err, CALLUS_EIO, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	if (fstat(fd, &st) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot stat '%s': %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = callus_error_set(err, CALLUS_EIO, "'%s' is not a regular file", path);
		goto out;
	}
	if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
		rc = callus_error_set(err, CALLUS_ETOOBIG, "'%s' is too large", path);
		goto out;
	}
	if ((count = whole_records(fd, &st, model, dim, stale)) == 0)
		goto done;
	len = VI_HEADER_SIZE + count * vi->recsize;
	{
		void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot map '%s': %s", path,
					    strerror(errno));
			goto out;
		}
		/* One pass front to back is all a search does. */
		(void)madvise(m, len, MADV_SEQUENTIAL);
		vi->map = m;
		vi->maplen = len;
		vi->count = count;
		vi->dev = (uint64_t)st.st_dev;
		vi->ino = (uint64_t)st.st_ino;
		vi_sketch_open(&vi->sk, path, &st, fd, count, dim);
		vi_postings_open(&vi->po, path, &st, fd, vi->sk.count, dim);
		if (repair && derived_missing(vi))
			derived_repair(vi, path, fd, &st);
	}
done:
	*out = vi;
	vi = NULL;
out:
	if (fd >= 0)
		close(fd); /* the mapping outlives the descriptor */
	callus_vecindex_close(vi);
	return rc;
}

int callus_vecindex_open(callus_vecindex **out, const char *path, const char *model, size_t dim,
		       int *stale, callus_error *err)
{
	return open_file(out, path, model, dim, stale, 1, err);
}

int callus_vecindex_open_as_is(callus_vecindex **out, const char *path, const char *model,
			       size_t dim, int *stale, callus_error *err)
{
	return open_file(out, path, model, dim, stale, 0, err);
}

int callus_vecindex_derived_absent(const callus_vecindex *vi)
{
	return vi && vi->map && derived_missing(vi);
}

void callus_vecindex_close(callus_vecindex *vi)
{
	if (!vi)
		return;
	if (vi->map)
		munmap((void *)vi->map, vi->maplen);
	vi_sketch_close(&vi->sk);
	vi_postings_close(&vi->po);
	free(vi);
}

int callus_vecindex_remove(const char *path)
{
	/* the derived files first: a crash after them leaves a vector file
	 * without them, which its next reader makes them for; the other way
	 * it left them naming the file's freed inode, which the next file
	 * made may be given, and a derived file that names its file's inode
	 * is trusted (bounds made from other vectors: searches missing their
	 * matches) */
	if (vi_postings_remove(path) < 0 || vi_sketch_remove(path) < 0)
		return -1;
	if (unlink(path) < 0 && errno != ENOENT)
		return -1;
	return 0;
}

void callus_vecindex_file_id(const callus_vecindex *vi, uint64_t id[2])
{
	id[0] = vi ? vi->dev : 0;
	id[1] = vi ? vi->ino : 0;
}

int callus_vecindex_unchanged(const callus_vecindex *vi, const char *path)
{
	struct stat st;

	if (!vi)
		return 0;
	if (stat(path, &st) < 0)
		return errno == ENOENT && !vi->map;
	/* a part of a record past the mapping (a crash's) counts as a change:
	 * opened again, the file is read as an opening reads it */
	return vi->map && (uint64_t)st.st_dev == vi->dev && (uint64_t)st.st_ino == vi->ino &&
	       (uint64_t)st.st_size == (uint64_t)vi->maplen;
}

size_t callus_vecindex_count(const callus_vecindex *vi)
{
	return vi ? vi->count : 0;
}

int64_t callus_vecindex_record(const callus_vecindex *vi, size_t i, float *scale, int8_t *v)
{
	const unsigned char *rec = vi->map + VI_HEADER_SIZE + i * vi->recsize;
	int64_t id;

	memcpy(&id, rec, 8);
	memcpy(scale, rec + 8, 4);
	memcpy(v, rec + 12, vi->dim);
	return id;
}

size_t callus_vecindex_derived_damaged(const callus_vecindex *vi)
{
	size_t n, bad;
	vi_sketch_rec *want;

	if (!vi || !vi->map)
		return 0;
	/* each record's sketch made once, for both files (the postings'
	 * blocks are of sketched records: vi_postings_open) */
	n = vi->sk.count;
	if (!n)
		return 0;
	/* without memory both are counted whole: the file is written again */
	if (!(want = malloc(n * sizeof(*want))))
		return vi->sk.count + vi->po.blocks;
	for (size_t i = 0; i < n; i++)
		vi_sketch_of(&want[i], vi->map + VI_HEADER_SIZE + i * vi->recsize, vi->dim);
	bad = vi_sketch_damaged(&vi->sk, want) + vi_postings_damaged(&vi->po, want);
	free(want);
	return bad;
}

size_t callus_vecindex_file_count(const char *path, const char *model, size_t dim)
{
	struct stat st;
	size_t count = 0;
	int fd;

	if (check_args(path, model, dim, NULL) != 0 || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size <= (uint64_t)SIZE_MAX)
		count = whole_records(fd, &st, model, dim, NULL);
	close(fd);
	return count;
}

size_t callus_vecindex_newest(const callus_vecindex *vi, size_t n)
{
	size_t count = callus_vecindex_count(vi);

	return count > n ? count - n : 0;
}

/*
 * The integer dot product of two int8 vectors.
 *
 * With SSE2 (every x86-64), 16 bytes a step: each half sign-extended to
 * int16 and multiplied by pmaddwd, which adds adjacent products into int32
 * lanes (no pair of int8 products reaches its one overflow, -32768 * -32768
 * twice): 17 instructions a step where gcc 12's vectorization of
 * vi_dot_i8_lanes takes 33.  This is the cost of every record a search
 * reads whole.  Without SSE2, vi_dot_i8_lanes (vecindex_internal.h).
 */
#ifdef __SSE2__
int32_t vi_dot_i8(const int8_t *a, const int8_t *b, size_t n)
{
	__m128i acc = _mm_setzero_si128();
	int32_t lane[4], sum;
	size_t i = 0;

	for (; i + 16 <= n; i += 16) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
		/* a byte beside itself, shifted right arithmetically: int16 */
		__m128i xl = _mm_srai_epi16(_mm_unpacklo_epi8(x, x), 8);
		__m128i xh = _mm_srai_epi16(_mm_unpackhi_epi8(x, x), 8);
		__m128i yl = _mm_srai_epi16(_mm_unpacklo_epi8(y, y), 8);
		__m128i yh = _mm_srai_epi16(_mm_unpackhi_epi8(y, y), 8);

		acc = _mm_add_epi32(acc, _mm_madd_epi16(xl, yl));
		acc = _mm_add_epi32(acc, _mm_madd_epi16(xh, yh));
	}
	_mm_storeu_si128((__m128i *)(void *)lane, acc);
	sum = lane[0] + lane[1] + lane[2] + lane[3];
	for (; i < n; i++)
		sum += (int32_t)a[i] * (int32_t)b[i];
	return sum;
}
#else
int32_t vi_dot_i8(const int8_t *a, const int8_t *b, size_t n)
{
	return vi_dot_i8_lanes(a, b, n);
}
#endif

/* Put m into out[0..*n) (sorted best first, each id once, at most k). */
static void topk_insert(callus_vecmatch *out, size_t *n, size_t k, callus_vecmatch m)
{
	size_t i, len = *n;

	for (i = 0; i < len; i++) {
		if (out[i].id != m.id)
			continue;
		if (out[i].score >= m.score)
			return; /* a duplicate record, no better */
		memmove(out + i, out + i + 1, (len - i - 1) * sizeof(*out));
		len--;
		break;
	}
	if (len == k)
		len--; /* the caller checked m beats the last */
	for (i = len; i > 0 && out[i - 1].score < m.score; i--)
		out[i] = out[i - 1];
	out[i] = m;
	*n = len + 1;
}

/* The entries of a query's table for vectors of dim: a power of two. */
static size_t query_entries(size_t dim)
{
	size_t entries = 1;

	while (entries < dim)
		entries <<= 1;
	return entries;
}

/*
 * A query quantized as the records are, in the table the sketch's bound
 * reads (vecindex_internal.h: a power of two entries, zero past dim); its
 * scale (*qscale) 0 when it is similar to nothing (a zero query, or no
 * memory for a table).  The table is stack (stackq, VI_QUERY_STACK entries) or
 * allocated (freed by query_free).
 */
static void query_make(vi_query *vq, float *qscale, const callus_vecindex *vi, const float *q,
		       int8_t *stackq)
{
	size_t entries = query_entries(vi->dim), dim = vi->dim;
	int8_t *t = stackq;
	int32_t n2 = 0;
	float scale;

	memset(vq, 0, sizeof(*vq));
	*qscale = 0;
	if ((!t || entries > VI_QUERY_STACK) && !(t = malloc(entries)))
		return;
	scale = quantize(t, q, dim);
	memset(t + dim, 0, entries - dim);
	/* |q|^2 as an integer: at most VI_DIM_MAX * 127^2, under 2^31 */
	for (size_t i = 0; i < dim; i++)
		n2 += (int32_t)t[i] * t[i];
	vq->table = t;
	vq->mask = (unsigned)(entries - 1);
	vq->n2 = n2;
	vq->norm = sqrt((double)n2);
	*qscale = scale;
}

static void query_free(vi_query *vq, int8_t *stackq)
{
	if (vq->table != stackq)
		free((void *)vq->table);
}

static float score_of(const callus_vecindex *vi, size_t r, const vi_query *q, float qscale)
{
	const unsigned char *rec = vi->map + VI_HEADER_SIZE + r * vi->recsize;
	float rscale;

	memcpy(&rscale, rec + 8, 4);
	return (float)vi_dot_i8((const int8_t *)(rec + 12), q->table, vi->dim) * rscale * qscale;
}

/* Record r, scored m, into the k best of out[0..*n). */
static void offer(const callus_vecindex *vi, size_t r, float score, float min,
		  callus_vecmatch *out, size_t *n, size_t k)
{
	callus_vecmatch m;

	/* min, then the k-th best so far once there are k */
	if (!(score >= min) || (*n == k && score <= out[k - 1].score))
		return;
	m.score = score;
	memcpy(&m.id, vi->map + VI_HEADER_SIZE + r * vi->recsize, 8);
	topk_insert(out, n, k, m);
}

/* What a record's bound must reach to be read: min, or the k-th best once
 * there are k; and keep_min when it keeps those that reach it. */
static double read_from(float min, const callus_vecmatch *out, size_t n, size_t k, int keeping,
			float keep_min, float qscale)
{
	double lo = min;

	if (n == k && out[k - 1].score > lo)
		lo = out[k - 1].score;
	if (keeping && keep_min < lo)
		lo = keep_min;
	return vi_bound_floor(lo, qscale);
}

size_t callus_vecindex_search(const callus_vecindex *vi, const float *q, float min,
			    callus_vecmatch *out, size_t k)
{
	return callus_vecindex_search_from(vi, q, min, out, k, 0, 0);
}

size_t callus_vecindex_search_from(const callus_vecindex *vi, const float *q, float min,
				 callus_vecmatch *out, size_t k, size_t n, size_t from)
{
	return callus_vecindex_search_keep(vi, q, min, out, k, n, from, 0, NULL, 0, NULL);
}

/* One query's search, as scan() runs it beside others. */
typedef struct vi_scan {
	vi_query vq;
	float qscale;                  /* 0: the query is similar to nothing */
	float min, keep_min;
	callus_vecmatch *out;          /* its k best, n of them so far */
	size_t n, k;
	size_t *keep, keep_cap, *nkeep; /* nkeep NULL: nothing kept */
	double lo;                     /* what a record's bound must reach */
} vi_scan;

/* Record r scored in full: offered to the k best, noted among the kept
 * when it reaches keep_min, and what the next record's bound must reach
 * made again. */
static void scan_consider(const callus_vecindex *vi, vi_scan *sc, size_t r)
{
	float score = score_of(vi, r, &sc->vq, sc->qscale);

	if (sc->nkeep && score >= sc->keep_min) {
		if (*sc->nkeep < sc->keep_cap)
			sc->keep[*sc->nkeep] = r;
		(*sc->nkeep)++;
	}
	offer(vi, r, score, sc->min, sc->out, &sc->n, sc->k);
	sc->lo = read_from(sc->min, sc->out, sc->n, sc->k, sc->nkeep != NULL, sc->keep_min,
			   sc->qscale);
}

/* One search over a chunk of sketches, records r.. of the file. */
static void scan_chunk(const callus_vecindex *vi, vi_scan *sc, const vi_sketch_rec *chunk,
		       size_t got, size_t r)
{
	for (size_t i = 0; sc->qscale != 0 && i < got; i++) {
		double b = vi_sketch_bound(&chunk[i], &sc->vq);

		if (b < sc->lo || vi_sketch_bound_tight(&chunk[i], &sc->vq, b) < sc->lo)
			continue;
		scan_consider(vi, sc, r + i);
	}
}

/* The searches scans[0..ng) (ng <= VI_GROUP) over a chunk, their queries
 * side by side in rows (vecindex_internal.h): each record's products with
 * all of them at once, then each search's bound as vi_sketch_bound makes
 * it (vi_sketch_bound_of: the same records read). */
static void scan_chunk_group(const callus_vecindex *vi, vi_scan *scans, size_t ng,
			     const int8_t *rows, const vi_sketch_rec *chunk, size_t got, size_t r)
{
	unsigned mask = (unsigned)(query_entries(vi->dim) - 1);

	for (size_t i = 0; i < got; i++) {
		const vi_sketch_rec *s = &chunk[i];
		int32_t part[VI_GROUP];
		int whole = vi_sketch_parts(s, rows, mask, part) < 0;

		for (size_t j = 0; j < ng; j++) {
			vi_scan *sc = &scans[j];
			double b;

			if (sc->qscale == 0)
				continue;
			/* a damaged sketch bounds nothing: read whole */
			if (!whole) {
				b = vi_sketch_bound_of(s, &sc->vq, part[j]);
				if (b < sc->lo || vi_sketch_bound_tight(s, &sc->vq, b) < sc->lo)
					continue;
			}
			scan_consider(vi, sc, r + i);
		}
	}
}

/* What scan_block works with, for the length of a scan(): the block's
 * sketches, read once a search of it has a record to bound tighter (block
 * + 1 in sketched: 0 for none; its postings are read where the mapping
 * holds them), and for each search a row of dim + 1 entries, the count of
 * the components its query weighs then those (vi_query_weighed): made
 * once, where every block asked each component again. */
typedef struct vi_blockbuf {
	vi_sketch_rec *sk;
	size_t sketched;
	uint16_t *weighed;
} vi_blockbuf;

/* bb for scans[0..ns) over vi's postings: 0, or -1 without memory (the
 * records are then bounded from their sketches). */
static int blockbuf_make(vi_blockbuf *bb, const callus_vecindex *vi, const vi_scan *scans,
			 size_t ns)
{
	bb->sketched = 0;
	bb->sk = malloc(VI_POST_BLOCK * sizeof(*bb->sk));
	bb->weighed = malloc(ns * (vi->dim + 1) * sizeof(*bb->weighed));
	if (!bb->sk || !bb->weighed)
		return -1;
	for (size_t j = 0; j < ns; j++) {
		uint16_t *row = bb->weighed + j * (vi->dim + 1);

		/* a query similar to nothing is not searched (nor has it a
		 * table, without memory); postings are kept for a dim of at
		 * most VI_POST_DIM_MAX, so a count fits */
		row[0] = scans[j].qscale != 0
				 ? (uint16_t)vi_query_weighed(scans[j].vq.table, vi->dim, row + 1)
				 : 0;
	}
	return 0;
}

static void blockbuf_release(vi_blockbuf *bb)
{
	free(bb->sk);
	free(bb->weighed);
	memset(bb, 0, sizeof(*bb));
}

/* The sketches of the block whose first record is r, read whole once (a
 * search that takes many of its records reads them together): NULL when
 * they cannot be read. */
static const vi_sketch_rec *block_sketches(const callus_vecindex *vi, vi_blockbuf *bb, size_t r)
{
	size_t b = r / VI_POST_BLOCK + 1;

	if (bb->sketched != b) {
		bb->sketched = 0;
		if (vi_sketch_read(&vi->sk, r, bb->sk, VI_POST_BLOCK) != VI_POST_BLOCK)
			return NULL;
		bb->sketched = b;
	}
	return bb->sk;
}

/*
 * The searches scans[0..ns) over the records of postings block r /
 * VI_POST_BLOCK (r its first): each search's sums over every record's top
 * at once (vi_post_parts), then the records whose bound reaches what the
 * search needs are taken as scan_chunk takes them, their sketches read for
 * the tighter bound.  -1 when the block cannot be read or bounds nothing
 * (VI_POST_WHOLE): its records are then bounded from their sketches.
 */
static int scan_block(const callus_vecindex *vi, vi_scan *scans, size_t ns, size_t r,
		      vi_blockbuf *bb)
{
	int32_t part[VI_POST_BLOCK];
	uint16_t reach[VI_POST_BLOCK];
	size_t nreach;
	vi_post_block b;

	if (!bb->sk || vi_postings_read(&vi->po, r / VI_POST_BLOCK, &b) < 0 ||
	    (b.flags & VI_POST_WHOLE))
		return -1;
	for (size_t j = 0; j < ns; j++) {
		vi_scan *sc = &scans[j];
		const uint16_t *row = bb->weighed + j * (vi->dim + 1);

		if (sc->qscale == 0)
			continue;
		vi_post_parts(&b, sc->vq.table, row + 1, row[0], part);
		nreach = vi_post_reach(part, &b, &sc->vq, sc->lo, reach);
		for (size_t i = 0; i < nreach; i++) {
			size_t u = reach[i];
			double bound = vi_bound_of(part[u], b.rest[u], b.scale[u], &sc->vq);
			const vi_sketch_rec *sk;

			/* what it must reach rises as the k best fill */
			if (bound < sc->lo)
				continue;
			/* unread, the record is scored in full */
			sk = block_sketches(vi, bb, r);
			if (sk && vi_sketch_bound_tight(&sk[u], &sc->vq, bound) < sc->lo)
				continue;
			scan_consider(vi, sc, r + u);
		}
	}
	return 0;
}

/*
 * The records from `from` on, for each of the searches scans[0..ns) (but
 * those of a zero query), in the file's order: a chunk of sketches is read
 * once and taken by every search while it is in the processor's cache
 * (with rows, the searches' tables side by side, VI_GROUP searches at a
 * time: scan_chunk_group); a record whose sketch's bounds are under what
 * a search needs is not read for it.  The records past the sketch, or
 * left unread, are scored in full.
 */
static void scan(const callus_vecindex *vi, vi_scan *scans, size_t ns, size_t from,
		 const int8_t *rows)
{
	size_t r = from, table = query_entries(vi->dim);
	size_t posted = vi->po.blocks * VI_POST_BLOCK, unposted = 0;
	vi_blockbuf bb = { NULL, 0, NULL };

	if (posted && blockbuf_make(&bb, vi, scans, ns) < 0)
		blockbuf_release(&bb);
	while (r < vi->sk.count) {
		vi_sketch_rec chunk[VI_SKETCH_READ];
		size_t want = VI_SKETCH_READ, got;

		if (r < posted && r % VI_POST_BLOCK == 0 && r >= unposted) {
			if (scan_block(vi, scans, ns, r, &bb) == 0) {
				r += VI_POST_BLOCK;
				continue;
			}
			unposted = r + VI_POST_BLOCK;
		}
		/* up to the next block the postings bound */
		if (r < posted && want > VI_POST_BLOCK - r % VI_POST_BLOCK)
			want = VI_POST_BLOCK - r % VI_POST_BLOCK;
		got = vi_sketch_read(&vi->sk, r, chunk, want);

		if (!got)
			break;
		for (size_t j = 0; j < ns; j += rows ? VI_GROUP : 1) {
			if (rows)
				scan_chunk_group(vi, scans + j, ns - j < VI_GROUP ? ns - j : VI_GROUP,
						 rows + (j / VI_GROUP) * table * VI_GROUP, chunk, got,
						 r);
			else
				scan_chunk(vi, &scans[j], chunk, got, r);
		}
		r += got;
	}
	blockbuf_release(&bb);
	for (; r < vi->count; r++)
		for (size_t j = 0; j < ns; j++)
			if (scans[j].qscale != 0)
				scan_consider(vi, &scans[j], r);
}

/* The tables of scans[0..ns) side by side, VI_GROUP to a table of
 * query_entries rows (zero where a search has no table, or past the last):
 * NULL without memory (the searches then run one at a time). */
static int8_t *rows_make(const callus_vecindex *vi, const vi_scan *scans, size_t ns)
{
	size_t table = query_entries(vi->dim), groups = (ns + VI_GROUP - 1) / VI_GROUP;
	int8_t *rows = calloc(groups * table, VI_GROUP);

	for (size_t j = 0; rows && j < ns; j++) {
		int8_t *g = rows + (j / VI_GROUP) * table * VI_GROUP;

		for (size_t d = 0; scans[j].vq.table && d < table; d++)
			g[d * VI_GROUP + j % VI_GROUP] = scans[j].vq.table[d];
	}
	return rows;
}

/* A search's state for q, out[0..n) found before; the query's table on
 * stackq when it fits (query_make).  0 in qscale: similar to nothing. */
static void scan_init(vi_scan *sc, const callus_vecindex *vi, const float *q, float min,
		      callus_vecmatch *out, size_t k, size_t n, float keep_min, size_t *keep,
		      size_t keep_cap, size_t *nkeep, int8_t *stackq)
{
	memset(sc, 0, sizeof(*sc));
	if (nkeep)
		*nkeep = 0;
	sc->min = min;
	sc->keep_min = keep_min;
	sc->out = out;
	sc->n = n > k ? k : n;
	sc->k = k;
	sc->keep = keep;
	sc->keep_cap = keep_cap;
	sc->nkeep = nkeep;
	query_make(&sc->vq, &sc->qscale, vi, q, stackq);
	if (sc->qscale != 0)
		sc->lo = read_from(min, out, sc->n, k, nkeep != NULL, keep_min, sc->qscale);
}

size_t callus_vecindex_search_keep(const callus_vecindex *vi, const float *q, float min,
				 callus_vecmatch *out, size_t k, size_t n, size_t from,
				 float keep_min, size_t *keep, size_t keep_cap, size_t *nkeep)
{
	int8_t stackq[VI_QUERY_STACK];
	vi_scan sc;

	if (nkeep)
		*nkeep = 0;
	if (n > k)
		n = k;
	if (!vi || from >= vi->count || !q || !out || k == 0)
		return n;
	scan_init(&sc, vi, q, min, out, k, n, keep_min, keep, keep_cap, nkeep, stackq);
	scan(vi, &sc, 1, from, NULL);
	query_free(&sc.vq, stackq);
	return sc.n;
}

int callus_vecindex_search_many(const callus_vecindex *vi, const float *qs, size_t nq, float min,
			       callus_vecmatch *out, size_t *nout, size_t k, size_t from,
			       float keep_min, size_t *keep, size_t keep_cap, size_t *nkeep)
{
	vi_scan *scans;
	int8_t *rows;

	for (size_t i = 0; i < nq; i++) {
		nout[i] = 0;
		if (nkeep)
			nkeep[i] = 0;
	}
	if (!vi || from >= vi->count || !qs || !out || k == 0 || nq == 0)
		return 0;
	if (!(scans = calloc(nq, sizeof(*scans))))
		return CALLUS_ENOMEM;
	for (size_t i = 0; i < nq; i++)
		scan_init(&scans[i], vi, qs + i * vi->dim, min, out + i * k, k, 0, keep_min,
			  nkeep ? keep + i * keep_cap : NULL, keep_cap, nkeep ? &nkeep[i] : NULL,
			  NULL);
	/* one search alone gathers its components itself */
	rows = nq > 1 ? rows_make(vi, scans, nq) : NULL;
	scan(vi, scans, nq, from, rows);
	free(rows);
	for (size_t i = 0; i < nq; i++) {
		nout[i] = scans[i].n;
		query_free(&scans[i].vq, NULL);
	}
	free(scans);
	return 0;
}

size_t callus_vecindex_search_records(const callus_vecindex *vi, const float *q, float min,
				    callus_vecmatch *out, size_t k, size_t n, const size_t *recs,
				    size_t nrecs)
{
	int8_t stackq[VI_QUERY_STACK];
	vi_query vq;
	float qscale;

	if (n > k)
		n = k;
	if (!vi || !q || !out || k == 0)
		return n;
	query_make(&vq, &qscale, vi, q, stackq);
	for (size_t i = 0; qscale != 0 && i < nrecs; i++)
		if (recs[i] < vi->count)
			offer(vi, recs[i], score_of(vi, recs[i], &vq, qscale), min, out, &n, k);
	query_free(&vq, stackq);
	return n;
}

/* A rewrite's temporary name: "vectors-" ... ".tmp." and mkostemp's six. */
static int is_rewrite_temp(const char *name)
{
	const char *t = strstr(name, ".tmp.");

	return !strncmp(name, "vectors-", 8) && t && strlen(t + 5) == 6 && !strchr(t + 5, '.');
}

size_t callus_vecindex_remove_stale_temps(const char *dir, long stale_s, int dry_run)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	time_t now = time(NULL);
	size_t removed = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct stat st;

		if (!is_rewrite_temp(e->d_name) ||
		    fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(st.st_mode) || now - st.st_mtime < stale_s)
			continue;
		if (dry_run || unlinkat(dirfd(d), e->d_name, 0) == 0)
			removed++;
	}
	closedir(d);
	return removed;
}

float callus_vecindex_score(const float *q, const float *v, size_t dim)
{
	int8_t *qq = malloc(dim ? dim : 1), *qv = malloc(dim ? dim : 1);
	float sq, sv, score = -2;
	int64_t dot = 0;

	if (!qq || !qv)
		goto out;
	sq = quantize(qq, q, dim);
	sv = quantize(qv, v, dim);
	for (size_t i = 0; i < dim; i++)
		dot += (int32_t)qq[i] * qv[i];
	/* in score_of's order: the record's scale, then the query's */
	score = (float)dot * sv * sq;
out:
	free(qq);
	free(qv);
	return score;
}

float callus_vecindex_quantize(int8_t *q, const float *v, size_t dim)
{
	return quantize(q, v, dim);
}

float callus_vecindex_score_packed(const float *q, const int8_t *qq, float qscale,
				   const void *blob, size_t len, size_t dim)
{
	int8_t stack[VI_STACK_DIM], *qv = dim <= VI_STACK_DIM ? stack : malloc(dim ? dim : 1);
	float scale, score = -2, *v = NULL;
	int64_t dot = 0;
	int top127;

	if (!qv)
		return -2;
	if (unpack_ints(qv, &scale, dim, blob, len) < 0) {
		score = -3;
		goto out;
	}
	/* the largest magnitude 127: a 127 or a -127, and no -128 (three
	 * searches of the bytes, where a loop over them took 5,400
	 * instructions a record a search checked) */
	top127 = !memchr(qv, 0x80, dim) && (memchr(qv, 0x7f, dim) || memchr(qv, 0x81, dim));
	/* int32 lanes: no sum of fewer than 2^17 products of int8 passes them */
	if (dim < ((size_t)1 << 17)) {
		dot = vi_dot_i8(qq, qv, dim);
	} else {
		for (size_t i = 0; i < dim; i++)
			dot += (int32_t)qq[i] * qv[i];
	}
	/* Quantizing the unpacked floats again gives back these integers when
	 * the largest is 127, as the packing makes it, and as its scale the
	 * largest float over 127: the same score to the bit.  Another (a
	 * scale out of range, a vector of another writer) is unpacked and
	 * quantized as callus_vecindex_score() would. */
	if (top127 && scale > 0 && 127.0f * scale <= 3.4e38f) {
		float largest = 127.0f * scale;

		score = (float)dot * (largest / 127.0f) * qscale;
		goto out;
	}
	if ((v = malloc((dim ? dim : 1) * sizeof(*v))) && callus_vecindex_unpack(v, dim, blob, len) == 0)
		score = callus_vecindex_score(q, v, dim);
out:
	free(v);
	if (qv != stack)
		free(qv);
	return score;
}

double callus_vecindex_score_gap(const float *a, const float *b, size_t dim)
{
	int8_t *qa, *qb;
	double sa, sb, d2 = 0, gap = -1;

	/* the same vector, most often (a search continuing its check's scan
	 * with the check's own): no distance, without two quantizations */
	if (dim && !memcmp(a, b, dim * sizeof(*a)))
		return 1e-4;
	qa = malloc(dim ? dim : 1);
	qb = malloc(dim ? dim : 1);
	if (!qa || !qb)
		goto out;
	sa = quantize(qa, a, dim);
	sb = quantize(qb, b, dim);
	for (size_t i = 0; i < dim; i++) {
		double x = sa * qa[i] - sb * qb[i];

		d2 += x * x;
	}
	/* a record is an L2-normalized vector quantized to a scale of at
	 * most 1/127: its length is at most 1 + sqrt(dim) / 254 (Cauchy-
	 * Schwarz bounds the scores' difference by the product of the
	 * lengths); 1e-4 covers the float products of a score */
	gap = sqrt(d2) * (1.0 + sqrt((double)dim) / 254.0) + 1e-4;
out:
	free(qa);
	free(qb);
	return gap;
}
