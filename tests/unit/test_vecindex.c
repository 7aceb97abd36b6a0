/*
 * test_vecindex.c - the mapped int8 vector index: round trips, top-k,
 * duplicates, torn and stale files, rewrites, concurrent appenders and the
 * quantization error, and the sketch file that lets a search skip records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/vecindex.h"

#include "vecindex_internal.h"
#include "tmpdir_helpers.h"

#define DIM 256
#define MODEL "test-model-1"
/* The sketch file: a header, then a vi_sketch_rec a record. */
#define SKETCH_HEADER 40

struct fixture {
	char dir[64];
	callus_buf path;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (test_tmpdir_make(f->dir, sizeof(f->dir), "vecindex") < 0) {
		free(f);
		return -1;
	}
	callus_buf_init(&f->path, 0);
	if (callus_buf_printf(&f->path, "%s/vectors-" MODEL ".bin", f->dir)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	test_tmpdir_remove(f->dir);
	callus_buf_release(&f->path);
	free(f);
	return 0;
}

/* The unit tests link without libm: Newton's method is plenty here. */
static double root(double x)
{
	double r = x > 1 ? x : 1;

	if (x <= 0)
		return 0;
	for (int i = 0; i < 60; i++)
		r = 0.5 * (r + x / r);
	return r;
}

static void normalize(float *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += (double)v[i] * v[i];
	s = root(s);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)(v[i] / s);
}

/* The next state of a xorshift64 generator (the tests' deterministic
 * randomness). */
static uint64_t xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* A deterministic pseudo-random normalized vector for seed: roughly
 * Gaussian components (a sum of uniforms); every third one sparse, as
 * feature hashing of a short message makes them. */
static void random_vec(float *v, uint64_t seed)
{
	uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;

	for (size_t i = 0; i < DIM; i++) {
		double s = 0;
		for (int j = 0; j < 4; j++) {
			xorshift(&x);
			s += (double)(x >> 11) / 9007199254740992.0;
		}
		v[i] = (float)(s - 2.0);
		if (seed % 3 == 0 && (x & 7) != 0)
			v[i] = 0; /* about one component in eight kept */
	}
	v[seed % DIM] += 0.5f; /* never all zero */
	normalize(v, DIM);
}

static double dotd(const float *a, const float *b)
{
	double s = 0;

	for (size_t i = 0; i < DIM; i++)
		s += (double)a[i] * b[i];
	return s;
}

/* Append the vectors of these seeds, each with its seed as id. */
static void append_seeds(const char *path, const int64_t *ids, size_t n)
{
	float *vecs = calloc(n, DIM * sizeof(float));
	callus_error err = CALLUS_ERROR_INIT;

	assert_non_null(vecs);
	for (size_t i = 0; i < n; i++)
		random_vec(vecs + i * DIM, (uint64_t)ids[i]);
	assert_int_equal(callus_vecindex_append(path, MODEL, DIM, ids, vecs, n, &err), 0);
	callus_error_release(&err);
	free(vecs);
}

static void append_range(const char *path, int64_t from, int64_t to)
{
	int64_t ids[64];
	size_t n = 0;

	for (int64_t id = from; id <= to; id++) {
		ids[n++] = id;
		if (n == 64 || id == to) {
			append_seeds(path, ids, n);
			n = 0;
		}
	}
}

/* An index opened, and what callus_vecindex_file_count says of the same
 * file checked against it at every opening of every test (missing,
 * partial, stale, rewritten). */
static callus_vecindex *open_ok(const char *path, const char *model, size_t dim, int *stale)
{
	callus_vecindex *vi = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	size_t counted = callus_vecindex_file_count(path, model, dim);

	assert_int_equal(callus_vecindex_open(&vi, path, model, dim, stale, &err), 0);
	assert_non_null(vi);
	assert_int_equal(counted, callus_vecindex_count(vi));
	callus_error_release(&err);
	return vi;
}

/* The vector of seed is found first, as itself, with a score near 1. */
static void assert_finds(const callus_vecindex *vi, int64_t seed)
{
	float q[DIM];
	callus_vecmatch m[4];

	random_vec(q, (uint64_t)seed);
	assert_true(callus_vecindex_search(vi, q, 0.5f, m, 4) >= 1);
	assert_true(m[0].id == seed);
	assert_true(m[0].score > 0.99f && m[0].score < 1.01f);
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

/* n bytes of the file at path, at offset at: written from b, or read
 * into b (all of them, or the test fails) */
static void write_at(const char *path, off_t at, const void *b, size_t n)
{
	int fd = open(path, O_WRONLY);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, b, n, at), (ssize_t)n);
	close(fd);
}

static void read_at(const char *path, off_t at, void *b, size_t n)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, b, n, at), (ssize_t)n);
	close(fd);
}

static void missing_is_empty(void **state)
{
	struct fixture *f = *state;
	callus_vecindex *vi;
	callus_vecmatch m[2];
	float q[DIM];
	int stale = -1;

	vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
	assert_int_equal(stale, 0);
	assert_int_equal(callus_vecindex_count(vi), 0);
	random_vec(q, 1);
	assert_int_equal(callus_vecindex_search(vi, q, -1.0f, m, 2), 0);
	callus_vecindex_close(vi);
	callus_vecindex_close(NULL);
	assert_int_equal(callus_vecindex_count(NULL), 0);

	/* stale may be NULL */
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);

	/* an index of no file closes no descriptor of the process's (its
	 * sketch's and postings' were 0 once: standard input closed) */
	{
		int null = open("/dev/null", O_RDONLY), saved = dup(0);

		assert_true(null >= 0 && saved >= 0);
		assert_int_equal(dup2(null, 0), 0);
		vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
		callus_vecindex_close(vi);
		assert_true(fcntl(0, F_GETFD) >= 0);
		assert_int_equal(dup2(saved, 0), 0);
		close(saved);
		close(null);
	}
}

static void round_trip(void **state)
{
	struct fixture *f = *state;
	callus_vecindex *vi;
	struct stat st;
	int stale = -1;

	append_range(f->path.ptr, 1, 50);
	append_range(f->path.ptr, 51, 100);
	assert_int_equal(stat(f->path.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
	assert_int_equal(stale, 0);
	assert_int_equal(callus_vecindex_count(vi), 100);
	for (int64_t id = 1; id <= 100; id++)
		assert_finds(vi, id);
	callus_vecindex_close(vi);
}

/* The bytes of the file at path (malloc'd), their number in *n. */
static char *slurp(const char *path, size_t *n)
{
	struct stat st;
	char *b;

	assert_int_equal(stat(path, &st), 0);
	*n = (size_t)st.st_size;
	b = malloc(*n ? *n : 1);
	assert_non_null(b);
	read_at(path, 0, b, *n);
	return b;
}

/* The seeds a rewrite takes one at a time, from 1 to n. */
struct seeds {
	int64_t next, n;
};

static int seed_next(void *arg, int64_t *id, float *v, callus_error *err)
{
	struct seeds *sd = arg;

	(void)err;
	if (sd->next > sd->n)
		return 0;
	*id = sd->next;
	random_vec(v, (uint64_t)sd->next++);
	return 1;
}

static int failing_next(void *arg, int64_t *id, float *v, callus_error *err)
{
	struct seeds *sd = arg;

	if (sd->next > sd->n)
		return callus_error_set(err, CALLUS_EIO, "the rows stopped");
	return seed_next(arg, id, v, err);
}

/* A rewrite given its vectors one at a time writes the file a rewrite
 * of them all at once writes, over several chunks of records (a store's
 * rows, never all held); one whose source fails leaves the file as it
 * was. */
static void a_rewrite_one_vector_at_a_time(void **state)
{
	struct fixture *f = *state;
	callus_buf other = CALLUS_BUF_INIT;
	struct seeds sd = { 1, 1000 };
	int64_t *ids = malloc(1000 * sizeof(*ids));
	float *vecs = malloc(1000 * DIM * sizeof(*vecs));
	char *a, *b;
	size_t na, nb;
	callus_vecindex *vi;
	callus_error err = CALLUS_ERROR_INIT;

	assert_non_null(ids);
	assert_non_null(vecs);
	for (int64_t i = 0; i < 1000; i++) {
		ids[i] = i + 1;
		random_vec(vecs + i * DIM, (uint64_t)(i + 1));
	}
	assert_int_equal(callus_buf_printf(&other, "%s/other.bin", f->dir), 0);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, 1000, NULL), 0);
	assert_int_equal(callus_vecindex_rewrite_each(other.ptr, MODEL, DIM, seed_next, &sd, NULL), 0);
	a = slurp(f->path.ptr, &na);
	b = slurp(other.ptr, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
	vi = open_ok(other.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 1000);
	assert_finds(vi, 777);
	callus_vecindex_close(vi);
	/* the source failing after 300: the file of 1,000 stays */
	sd.next = 1;
	sd.n = 300;
	assert_int_equal(callus_vecindex_rewrite_each(other.ptr, MODEL, DIM, failing_next, &sd,
						    &err),
			 CALLUS_EIO);
	assert_string_equal(callus_error_message(&err), "the rows stopped");
	callus_error_release(&err);
	assert_int_equal(callus_vecindex_file_count(other.ptr, MODEL, DIM), 1000);
	/* none at all: a header, no record */
	sd.next = 1;
	sd.n = 0;
	assert_int_equal(callus_vecindex_rewrite_each(other.ptr, MODEL, DIM, seed_next, &sd, NULL), 0);
	assert_int_equal(callus_vecindex_file_count(other.ptr, MODEL, DIM), 0);
	free(ids);
	free(vecs);
	callus_buf_release(&other);
}

/* A record read back is the vector as the store packs it (what callus
 * doctor compares, match.h's callus_match_file_check): appended from the
 * floats, the same components and scale; rewritten from the store's form
 * unpacked (what a rewrite does), the same components, and the scale within
 * the rounding of its second quantization. */
static void records_read_as_the_store_packs_them(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	enum { N = 60 };
	float *vecs = calloc(N, DIM * sizeof(float)), *back = calloc(N, DIM * sizeof(float));
	int64_t ids[N];
	uint8_t packed[CALLUS_VECINDEX_PACKED(DIM)];

	assert_non_null(vecs);
	assert_non_null(back);
	for (size_t i = 0; i < N; i++) {
		ids[i] = (int64_t)(1000 + 7 * i);
		random_vec(vecs + i * DIM, (uint64_t)ids[i]);
	}
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids, vecs, N, &err), 0);
	for (int pass = 0; pass < 2; pass++) {
		callus_vecindex *vi = open_ok(f->path.ptr, MODEL, DIM, NULL);

		assert_int_equal(callus_vecindex_count(vi), N);
		for (size_t i = 0; i < N; i++) {
			float scale, want;
			int8_t q[DIM];
			size_t len = callus_vecindex_pack_store(packed, vecs + i * DIM, DIM);

			assert_int_equal(callus_vecindex_record(vi, i, &scale, q), ids[i]);
			assert_int_equal(callus_vecindex_unpack(back + i * DIM, DIM, packed, len), 0);
			callus_vecindex_pack(packed, vecs + i * DIM, DIM);
			memcpy(&want, packed, sizeof(want));
			assert_memory_equal(q, packed + sizeof(float), DIM);
			if (pass == 0)
				assert_memory_equal(&scale, &want, sizeof(scale));
			else
				assert_true(fabsf(scale - want) <= 1e-5f * fabsf(want));
		}
		callus_vecindex_close(vi);
		/* the second pass reads the file a rewrite from the store made */
		assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, back, N, &err),
				 0);
	}
	callus_error_release(&err);
	free(vecs);
	free(back);
}

/* A vector file that is a symlink is not appended through (it may lead
 * out of the workspace, or to a file not yet made there): the append
 * fails, the target is left as it was, and a rewrite puts a file in the
 * link's place. */
static void not_appended_through_a_symlink(void **state)
{
	struct fixture *f = *state;
	callus_buf target = CALLUS_BUF_INIT, absent = CALLUS_BUF_INIT;
	float v[DIM];
	int64_t id = 7;
	struct stat st, lst;
	callus_vecindex *vi;
	int stale = -1;

	assert_int_equal(callus_buf_printf(&target, "%s/elsewhere.bin", f->dir), 0);
	assert_int_equal(callus_buf_printf(&absent, "%s/not-yet.bin", f->dir), 0);
	append_range(target.ptr, 1, 3);
	assert_int_equal(stat(target.ptr, &st), 0);
	assert_int_equal(symlink(target.ptr, f->path.ptr), 0);
	random_vec(v, 7);
	assert_true(callus_vecindex_append(f->path.ptr, MODEL, DIM, &id, v, 1, NULL) < 0);
	assert_int_equal(stat(target.ptr, &lst), 0);
	assert_int_equal(lst.st_size, st.st_size);
	/* a dangling link makes nothing either */
	assert_int_equal(unlink(f->path.ptr), 0);
	assert_int_equal(symlink(absent.ptr, f->path.ptr), 0);
	assert_true(callus_vecindex_append(f->path.ptr, MODEL, DIM, &id, v, 1, NULL) < 0);
	assert_int_equal(access(absent.ptr, F_OK), -1);
	/* rewritten: a file of its own where the link was */
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, &id, v, 1, NULL), 0);
	assert_int_equal(lstat(f->path.ptr, &lst), 0);
	assert_true(S_ISREG(lst.st_mode));
	assert_int_equal(access(absent.ptr, F_OK), -1);
	vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
	assert_int_equal(callus_vecindex_count(vi), 1);
	callus_vecindex_close(vi);
	callus_buf_release(&target);
	callus_buf_release(&absent);
}

/* A removal that stops part way (here, a sketch that cannot be unlinked:
 * a folder in its place) leaves the vector file: the derived files go
 * first, so that none is left naming the inode of a file gone, which the
 * next file made may be given (and its sketches, of other vectors, would
 * be trusted). */
static void a_removal_stopped_part_way_keeps_the_file(void **state)
{
	struct fixture *f = *state;
	callus_buf sketch = CALLUS_BUF_INIT, inside = CALLUS_BUF_INIT;

	append_range(f->path.ptr, 1, 3);
	assert_int_equal(callus_buf_printf(&sketch, "%s.sketch", f->path.ptr), 0);
	assert_int_equal(callus_buf_printf(&inside, "%s/x", sketch.ptr), 0);
	(void)unlink(sketch.ptr);
	assert_int_equal(mkdir(sketch.ptr, 0700), 0);
	assert_int_equal(mkdir(inside.ptr, 0700), 0);
	assert_true(callus_vecindex_remove(f->path.ptr) < 0);
	assert_int_equal(access(f->path.ptr, F_OK), 0);
	assert_int_equal(rmdir(inside.ptr), 0);
	assert_int_equal(rmdir(sketch.ptr), 0);
	assert_int_equal(callus_vecindex_remove(f->path.ptr), 0);
	assert_int_equal(access(f->path.ptr, F_OK), -1);
	callus_buf_release(&sketch);
	callus_buf_release(&inside);
}

static void topk_order_and_min(void **state)
{
	struct fixture *f = *state;
	/* cosines with the query e0, in file order */
	static const double cosines[] = { 0.95, 0.5, 0.9, 0.99, 0.3, 0.85, 0.7, -0.9, 0.6 };
	enum { N = sizeof(cosines) / sizeof(cosines[0]) };
	float vecs[N * DIM], q[DIM];
	int64_t ids[N];
	callus_vecmatch m[16];
	callus_error err = CALLUS_ERROR_INIT;
	callus_vecindex *vi;
	size_t got;

	memset(vecs, 0, sizeof(vecs));
	for (size_t i = 0; i < N; i++) {
		ids[i] = (int64_t)(100 + i);
		vecs[i * DIM] = (float)cosines[i];
		vecs[i * DIM + 1 + i] = (float)root(1 - cosines[i] * cosines[i]);
	}
	memset(q, 0, sizeof(q));
	q[0] = 1;
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids, vecs, N, &err), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);

	/* k smaller than what passes: the best k, best first */
	got = callus_vecindex_search(vi, q, 0.8f, m, 3);
	assert_int_equal(got, 3);
	assert_true(m[0].id == 103 && m[1].id == 100 && m[2].id == 102);
	assert_true(m[0].score > 0.985f && m[0].score < 0.995f);
	assert_true(m[1].score > 0.945f && m[1].score < 0.955f);

	/* the threshold: 0.85 passes 0.8, 0.7 does not */
	got = callus_vecindex_search(vi, q, 0.8f, m, 16);
	assert_int_equal(got, 4);
	assert_true(m[3].id == 105);

	/* everything, in decreasing order */
	got = callus_vecindex_search(vi, q, -1.0f, m, 16);
	assert_int_equal(got, N);
	for (size_t i = 1; i < got; i++)
		assert_true(m[i - 1].score >= m[i].score);
	assert_true(m[N - 1].id == 107);

	/* nothing above 0.999; k == 0 writes nothing */
	assert_int_equal(callus_vecindex_search(vi, q, 0.999f, m, 16), 0);
	assert_int_equal(callus_vecindex_search(vi, q, -1.0f, m, 0), 0);

	/* a zero query is similar to nothing */
	memset(q, 0, sizeof(q));
	assert_int_equal(callus_vecindex_search(vi, q, -1.0f, m, 16), 0);
	callus_vecindex_close(vi);
	callus_error_release(&err);
}

static void duplicates_once(void **state)
{
	struct fixture *f = *state;
	float a[DIM], b[DIM], q[DIM];
	int64_t seven = 7, eight = 8;
	callus_vecmatch m[8];
	callus_vecindex *vi;
	size_t got;

	/* id 7 twice with the same vector (two writers raced), id 8 once */
	random_vec(a, 7);
	random_vec(b, 8);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, &seven, a, 1, NULL), 0);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, &eight, b, 1, NULL), 0);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, &seven, a, 1, NULL), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 3);
	got = callus_vecindex_search(vi, a, -1.0f, m, 8);
	assert_int_equal(got, 2);
	assert_true(m[0].id == 7 && m[1].id == 8);
	/* k = 1 with the duplicate filling it twice over */
	assert_int_equal(callus_vecindex_search(vi, a, -1.0f, m, 1), 1);
	assert_true(m[0].id == 7);
	callus_vecindex_close(vi);

	/* id 8 again with another vector: reported once, with its best */
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, &eight, a, 1, NULL), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	for (size_t i = 0; i < DIM; i++)
		q[i] = a[i] + b[i];
	normalize(q, DIM);
	got = callus_vecindex_search(vi, a, -1.0f, m, 8);
	assert_int_equal(got, 2);
	assert_true(m[0].score > 0.99f && m[1].score > 0.99f);
	assert_true((m[0].id == 7 && m[1].id == 8) || (m[0].id == 8 && m[1].id == 7));
	got = callus_vecindex_search(vi, b, -1.0f, m, 8);
	assert_int_equal(got, 2);
	assert_true(m[0].id == 8 && m[0].score > 0.99f);
	got = callus_vecindex_search(vi, q, -1.0f, m, 8);
	assert_int_equal(got, 2);
	callus_vecindex_close(vi);
}

static void partial_record_ignored_then_repaired(void **state)
{
	struct fixture *f = *state;
	callus_vecindex *vi;
	struct stat st;
	float q[DIM];
	callus_vecmatch m[4];

	append_range(f->path.ptr, 1, 10);
	assert_int_equal(stat(f->path.ptr, &st), 0);
	/* a writer died a few bytes short of the end of record 10 */
	assert_int_equal(truncate(f->path.ptr, st.st_size - 5), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 9);
	for (int64_t id = 1; id <= 9; id++)
		assert_finds(vi, id);
	random_vec(q, 10);
	assert_true(callus_vecindex_search(vi, q, 0.9f, m, 4) == 0);
	callus_vecindex_close(vi);

	/* the next append cuts the torn record and lands aligned */
	append_range(f->path.ptr, 11, 12);
	assert_int_equal(stat(f->path.ptr, &st), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 11);
	for (int64_t id = 1; id <= 12; id++)
		if (id != 10)
			assert_finds(vi, id);
	callus_vecindex_close(vi);
	/* nothing trails the last whole record */
	assert_int_equal((st.st_size - 80) % 272, 0);

	/* a file cut inside its header reads as stale and is replaced */
	assert_int_equal(truncate(f->path.ptr, 40), 0);
	{
		int stale = 0;
		vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
		assert_int_equal(stale, 1);
		assert_int_equal(callus_vecindex_count(vi), 0);
		callus_vecindex_close(vi);
	}
	append_range(f->path.ptr, 20, 21);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 2);
	assert_finds(vi, 21);
	callus_vecindex_close(vi);
}

static void stale_then_rewritten(void **state)
{
	struct fixture *f = *state;
	callus_vecindex *vi, *old;
	float v[128];
	int64_t id = 99;
	int stale = 0;

	append_range(f->path.ptr, 1, 5);
	/* another model, another dimension */
	vi = open_ok(f->path.ptr, "other-model", DIM, &stale);
	assert_int_equal(stale, 1);
	assert_int_equal(callus_vecindex_count(vi), 0);
	callus_vecindex_close(vi);
	stale = 0;
	vi = open_ok(f->path.ptr, MODEL, 128, &stale);
	assert_int_equal(stale, 1);
	assert_int_equal(callus_vecindex_count(vi), 0);
	callus_vecindex_close(vi);

	/* a reader still holds the old file while a writer for 128
	 * dimensions replaces it: the reader keeps its records */
	old = open_ok(f->path.ptr, MODEL, DIM, NULL);
	memset(v, 0, sizeof(v));
	v[3] = 1;
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, 128, &id, v, 1, NULL), 0);
	vi = open_ok(f->path.ptr, MODEL, 128, &stale);
	assert_int_equal(stale, 0);
	assert_int_equal(callus_vecindex_count(vi), 1);
	{
		callus_vecmatch m[2];
		assert_int_equal(callus_vecindex_search(vi, v, 0.99f, m, 2), 1);
		assert_true(m[0].id == 99);
	}
	callus_vecindex_close(vi);
	assert_int_equal(callus_vecindex_count(old), 5);
	assert_finds(old, 5);
	callus_vecindex_close(old);
	/* and now the 256-dimension reader sees a stale file */
	vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
	assert_int_equal(stale, 1);
	callus_vecindex_close(vi);

	/* a damaged header */
	write_at(f->path.ptr, 0, "XX", 2);
	vi = open_ok(f->path.ptr, MODEL, 128, &stale);
	assert_int_equal(stale, 1);
	callus_vecindex_close(vi);
	append_range(f->path.ptr, 1, 3);
	vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
	assert_int_equal(stale, 0);
	assert_int_equal(callus_vecindex_count(vi), 3);
	callus_vecindex_close(vi);
	/* no temporary left: the file and its sketch */
	assert_int_equal(count_entries(f->dir), 2);
}

static void rewrite_replaces(void **state)
{
	struct fixture *f = *state;
	float vecs[3 * DIM];
	int64_t ids[3] = { 201, 202, 203 };
	callus_error err = CALLUS_ERROR_INIT;
	callus_vecindex *vi;
	struct stat st;
	int stale = -1;

	append_range(f->path.ptr, 1, 10);
	for (size_t i = 0; i < 3; i++)
		random_vec(vecs + i * DIM, (uint64_t)ids[i]);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, 3, &err), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
	assert_int_equal(stale, 0);
	assert_int_equal(callus_vecindex_count(vi), 3);
	for (size_t i = 0; i < 3; i++)
		assert_finds(vi, ids[i]);
	callus_vecindex_close(vi);
	assert_int_equal(stat(f->path.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(count_entries(f->dir), 2);

	/* rewriting with nothing leaves a valid, empty index */
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, NULL, NULL, 0, &err), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, &stale);
	assert_int_equal(stale, 0);
	assert_int_equal(callus_vecindex_count(vi), 0);
	callus_vecindex_close(vi);
	/* and appends go on from there */
	append_range(f->path.ptr, 1, 2);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 2);
	callus_vecindex_close(vi);
	callus_error_release(&err);
}

/* Whether a file kept open is still what it maps: not after an append or
 * a rewrite; a missing file while it stays missing. */
static void unchanged_until_appended_or_rewritten(void **state)
{
	struct fixture *f = *state;
	callus_vecindex *vi, *again;

	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 0);
	assert_int_equal(callus_vecindex_unchanged(vi, f->path.ptr), 1);
	append_range(f->path.ptr, 1, 3);
	assert_int_equal(callus_vecindex_unchanged(vi, f->path.ptr), 0);
	callus_vecindex_close(vi);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_unchanged(vi, f->path.ptr), 1);
	/* one more record: the same file, grown */
	append_range(f->path.ptr, 4, 4);
	assert_int_equal(callus_vecindex_unchanged(vi, f->path.ptr), 0);
	callus_vecindex_close(vi);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 4);
	/* another file of the same size renamed in: changed for what mapped
	 * the old one, not for what maps the new one */
	{
		float four[4 * DIM];
		int64_t ids[4] = { 11, 12, 13, 14 };

		for (size_t i = 0; i < 4; i++)
			random_vec(four + i * DIM, (uint64_t)ids[i]);
		assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, four, 4, NULL),
				 0);
	}
	assert_int_equal(callus_vecindex_unchanged(vi, f->path.ptr), 0);
	again = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_unchanged(again, f->path.ptr), 1);
	/* and a file removed is a change */
	assert_int_equal(unlink(f->path.ptr), 0);
	assert_int_equal(callus_vecindex_unchanged(again, f->path.ptr), 0);
	callus_vecindex_close(vi);
	callus_vecindex_close(again);
	assert_int_equal(callus_vecindex_unchanged(NULL, f->path.ptr), 0);
}

static void bad_arguments(void **state)
{
	struct fixture *f = *state;
	char longmodel[CALLUS_VECINDEX_MODEL_MAX + 2];
	float v[DIM];
	int64_t id = 1;
	callus_vecindex *vi = NULL;
	callus_error err = CALLUS_ERROR_INIT;

	random_vec(v, 1);
	memset(longmodel, 'm', sizeof(longmodel) - 1);
	longmodel[sizeof(longmodel) - 1] = 0;
	assert_int_equal(callus_vecindex_append(f->path.ptr, longmodel, DIM, &id, v, 1, &err),
			 CALLUS_EINVAL);
	assert_non_null(err.msg);
	callus_error_release(&err);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, 0, &id, v, 1, NULL), CALLUS_EINVAL);
	assert_int_equal(callus_vecindex_open(&vi, f->path.ptr, MODEL, 0, NULL, NULL), CALLUS_EINVAL);
	assert_null(vi);
	v[5] = NAN;
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, &id, v, 1, NULL),
			 CALLUS_EINVAL);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, &id, v, 1, NULL),
			 CALLUS_EINVAL);
	/* nothing was created by the refusals */
	assert_int_equal(count_entries(f->dir), 0);
	/* a model name filling the whole field is fine */
	longmodel[CALLUS_VECINDEX_MODEL_MAX] = 0;
	random_vec(v, 1);
	assert_int_equal(callus_vecindex_append(f->path.ptr, longmodel, DIM, &id, v, 1, NULL), 0);
	vi = open_ok(f->path.ptr, longmodel, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), 1);
	callus_vecindex_close(vi);
	/* a directory is not an index */
	assert_int_equal(callus_vecindex_open(&vi, f->dir, MODEL, DIM, NULL, &err), CALLUS_EIO);
	callus_error_release(&err);
}

static void concurrent_appends(void **state)
{
	struct fixture *f = *state;
	enum { PROCS = 8, ROUNDS = 25, PER = 4 };
	pid_t pids[PROCS];
	callus_vecindex *vi;

	for (int p = 0; p < PROCS; p++) {
		pids[p] = fork();
		assert_true(pids[p] >= 0);
		if (pids[p] == 0) {
			int bad = 0;
			for (int r = 0; r < ROUNDS; r++) {
				int64_t ids[PER];
				float vecs[PER * DIM];
				for (int i = 0; i < PER; i++) {
					ids[i] = (int64_t)(p * 10000 + r * PER + i + 1);
					random_vec(vecs + i * DIM, (uint64_t)ids[i]);
				}
				if (callus_vecindex_append(f->path.ptr, MODEL, DIM, ids, vecs, PER,
							 NULL))
					bad = 1;
			}
			_exit(bad);
		}
	}
	for (int p = 0; p < PROCS; p++) {
		int status = 0;
		assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(vi), PROCS * ROUNDS * PER);
	for (int p = 0; p < PROCS; p++)
		for (int i = 1; i <= ROUNDS * PER; i++)
			assert_finds(vi, (int64_t)(p * 10000 + i));
	callus_vecindex_close(vi);
}

/* The scores come from int8 vectors: within 0.02 of the float cosine. */
static void quantization_error_bound(void **state)
{
	struct fixture *f = *state;
	enum { N = 300 };
	static float vecs[N * DIM];
	static callus_vecmatch m[N];
	int64_t ids[N];
	callus_vecindex *vi;
	double worst = 0;

	for (size_t i = 0; i < N; i++) {
		ids[i] = (int64_t)i;
		random_vec(vecs + i * DIM, 1000 + i);
	}
	/* related pairs too, so that high cosines are tested and not only
	 * the near-zero ones of unrelated random vectors */
	for (size_t i = 1; i < N; i += 2)
		for (size_t d = 0; d < DIM; d++)
			vecs[i * DIM + d] = vecs[(i - 1) * DIM + d] + 0.3f * vecs[i * DIM + d];
	for (size_t i = 1; i < N; i += 2)
		normalize(vecs + i * DIM, DIM);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	for (size_t qi = 0; qi < N; qi += 7) {
		const float *q = vecs + qi * DIM;
		size_t got = callus_vecindex_search(vi, q, -2.0f, m, N);

		assert_int_equal(got, N);
		for (size_t j = 0; j < got; j++) {
			double want = dotd(q, vecs + (size_t)m[j].id * DIM);
			double e = m[j].score - want;
			if (e < 0)
				e = -e;
			if (e > worst)
				worst = e;
		}
	}
	callus_vecindex_close(vi);
	assert_true(worst < 0.02);
}

/*
 * Every score is the exact integer dot product of the two quantized
 * vectors (as callus_vecindex_pack quantizes them) times their scales, at
 * lengths with and without whole 16-byte steps and bytes after them, each
 * vector with a component at full scale (127 or -127).
 */
static void scores_are_exact_dots(void **state)
{
	struct fixture *f = *state;
	static const size_t dims[] = { 1, 7, 15, 16, 17, 33, 255, 256, 300 };
	enum { N = 24, MAXD = 300 };
	static float vecs[N * MAXD];
	static uint8_t packed[N][sizeof(float) + MAXD];
	static callus_vecmatch m[N];
	uint8_t qp[sizeof(float) + MAXD];
	int64_t ids[N];

	for (size_t di = 0; di < sizeof(dims) / sizeof(dims[0]); di++) {
		size_t dim = dims[di];
		uint64_t x = 88172645463325252ull + dim;
		callus_buf path = CALLUS_BUF_INIT;
		callus_vecindex *vi;

		for (size_t i = 0; i < N * dim; i++) {
			xorshift(&x);
			/* uniform in [-1, 1), a third of them 0 */
			vecs[i] = x % 3 == 0 ? 0.0f : (float)((double)(x >> 11) / 4503599627370496.0 - 1.0);
		}
		for (size_t i = 0; i < N; i++) {
			ids[i] = (int64_t)i;
			/* full scale, positive or negative, somewhere in each */
			vecs[i * dim + (i * 5) % dim] = i % 2 ? -1.5f : 1.5f;
			callus_vecindex_pack(packed[i], vecs + i * dim, dim);
		}
		assert_int_equal(callus_buf_printf(&path, "%s/exact-%zu.bin", f->dir, dim), 0);
		assert_int_equal(callus_vecindex_rewrite(path.ptr, MODEL, dim, ids, vecs, N, NULL), 0);
		vi = open_ok(path.ptr, MODEL, dim, NULL);
		for (size_t qi = 0; qi < N; qi++) {
			const float *q = vecs + ((qi * 7) % N) * dim;
			size_t got = callus_vecindex_search(vi, q, -1e9f, m, N);
			float qs;

			callus_vecindex_pack(qp, q, dim);
			memcpy(&qs, qp, sizeof(qs));
			assert_int_equal(got, N);
			for (size_t j = 0; j < got; j++) {
				const uint8_t *r = packed[m[j].id];
				int32_t dot = 0;
				float rs, want;

				for (size_t d = 0; d < dim; d++)
					dot += (int32_t)(int8_t)r[sizeof(float) + d] *
					       (int32_t)(int8_t)qp[sizeof(float) + d];
				memcpy(&rs, r, sizeof(rs));
				want = (float)dot * rs * qs;
				if (m[j].score != want)
					fail_msg("dim %zu, query %zu, record %lld: score %.9g, want %.9g",
						 dim, qi, (long long)m[j].id, (double)m[j].score,
						 (double)want);
			}
		}
		callus_vecindex_close(vi);
		callus_buf_release(&path);
	}
}

/* The length of the store's form of nnz non-zero components of dim: the
 * smallest of pairs (fewer than dim / 2), mask (dim even, an odd length)
 * and dense, the first two for at most 256 dimensions (vecindex.h). */
static size_t smallest_form(size_t dim, size_t nnz)
{
	size_t best = CALLUS_VECINDEX_PACKED(dim), mask = sizeof(float) + (dim + 7) / 8 + nnz;

	if (dim > CALLUS_VECINDEX_SPARSE_DIM_MAX)
		return best;
	mask += mask % 2 == 0;
	if (2 * nnz < dim && sizeof(float) + 2 * nnz < best)
		best = sizeof(float) + 2 * nnz;
	if (dim % 2 == 0 && mask < best)
		best = mask;
	return best;
}

/*
 * The store's forms (schemas 18 and 21): the smallest of pairs, mask and
 * dense for the count of quantized components that are non-zero; read
 * back, each gives what the dense form gives, and the form made from a
 * dense one is the same bytes.  What is no form is refused.
 */
static void store_form_round_trips(void **state)
{
	static const size_t dims[] = { 1, 2, 7, 255, 256, 257, 300 };
	enum { MAXD = 300 };
	float v[MAXD], a[MAXD], b[MAXD];
	uint8_t dense[sizeof(float) + MAXD], store[sizeof(float) + MAXD],
		conv[sizeof(float) + MAXD];
	uint64_t x = 2463534242ull;
	size_t n;

	(void)state;
	for (size_t di = 0; di < sizeof(dims) / sizeof(dims[0]); di++) {
		size_t dim = dims[di];
		/* from none to every component set, through half of them */
		size_t counts[] = { 0, 1, dim / 2 - (dim > 1), dim / 2, dim / 2 + 1, dim };

		for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
			size_t want = counts[ci] > dim ? dim : counts[ci], nnz = 0;

			memset(v, 0, sizeof(v));
			for (size_t k = 0; k < want; k++) {
				xorshift(&x);
				/* spread over the dimensions, never 0 after quantizing */
				v[(k * 7919) % dim] = (x & 1 ? -1.0f : 1.0f) * (0.5f + (float)(x % 100) / 100.0f);
			}
			callus_vecindex_pack(dense, v, dim);
			for (size_t d = 0; d < dim; d++)
				nnz += dense[sizeof(float) + d] != 0;
			n = callus_vecindex_pack_store(store, v, dim);
			assert_int_equal(n, smallest_form(dim, nnz));
			assert_int_equal(callus_vecindex_pack_sparse(conv, dense, dim), n);
			assert_memory_equal(conv, store, n);
			assert_int_equal(callus_vecindex_unpack(a, dim, dense, CALLUS_VECINDEX_PACKED(dim)), 0);
			assert_int_equal(callus_vecindex_unpack(b, dim, store, n), 0);
			assert_memory_equal(a, b, dim * sizeof(float));
		}
	}

	/* 256 dimensions, three components: the forms refused around it */
	memset(v, 0, sizeof(v));
	v[3] = 1.0f, v[40] = -0.5f, v[200] = 0.25f;
	assert_int_equal(callus_vecindex_pack_store(store, v, 256), sizeof(float) + 6);
	assert_int_equal(callus_vecindex_unpack(a, 256, store, sizeof(float) + 5), CALLUS_EINVAL);
	assert_int_equal(callus_vecindex_unpack(a, 256, store, 3), CALLUS_EINVAL);
	assert_int_equal(callus_vecindex_unpack(a, 300, store, sizeof(float) + 6), CALLUS_EINVAL);
	memcpy(conv, store, sizeof(float) + 6);
	conv[sizeof(float) + 2] = 3; /* the second index not rising */
	assert_int_equal(callus_vecindex_unpack(a, 256, conv, sizeof(float) + 6), CALLUS_EINVAL);
	memcpy(conv, store, sizeof(float) + 6);
	conv[sizeof(float) + 4] = 200; /* within 256, past 100 */
	assert_int_equal(callus_vecindex_unpack(a, 100, conv, sizeof(float) + 6), CALLUS_EINVAL);
	/* 128 pairs would be 256 bytes: half of 256, never sparse */
	memset(conv, 0, sizeof(conv));
	memcpy(conv, &(float){ 1.0f }, sizeof(float));
	for (size_t k = 0; k < 128; k++)
		conv[sizeof(float) + 2 * k] = (uint8_t)(2 * k), conv[sizeof(float) + 2 * k + 1] = 1;
	assert_int_equal(callus_vecindex_unpack(a, 256, conv, sizeof(float) + 256), 0);
	assert_int_equal(callus_vecindex_unpack(a, 300, conv, sizeof(float) + 256), CALLUS_EINVAL);
	assert_int_equal(callus_vecindex_unpack(a, 256, conv, sizeof(float) + 254), 0);
	assert_true(a[252] != 0 && a[253] == 0);

	/* the mask form: 40 components of 250 (an even dim with bits past it
	 * in its last byte), and what is refused around it */
	memset(v, 0, sizeof(v));
	for (size_t k = 0; k < 40; k++)
		v[k * 6] = (k % 3 ? 1.0f : -0.75f);
	n = callus_vecindex_pack_store(store, v, 250);
	assert_int_equal(n, sizeof(float) + 32 + 40 + 1);
	assert_int_equal(callus_vecindex_unpack(b, 250, store, n), 0);
	callus_vecindex_pack(dense, v, 250);
	assert_int_equal(callus_vecindex_unpack(a, 250, dense, CALLUS_VECINDEX_PACKED(250)), 0);
	assert_memory_equal(a, b, 250 * sizeof(float));
	assert_int_equal(callus_vecindex_unpack(a, 251, store, n), CALLUS_EINVAL); /* odd dim */
	assert_int_equal(callus_vecindex_unpack(a, 250, store, n - 2), CALLUS_EINVAL);
	memcpy(conv, store, n);
	conv[n - 1] = 7; /* the pad byte */
	assert_int_equal(callus_vecindex_unpack(a, 250, conv, n), CALLUS_EINVAL);
	memcpy(conv, store, n);
	conv[sizeof(float) + 36] = 0; /* a value of a bit set */
	assert_int_equal(callus_vecindex_unpack(a, 250, conv, n), CALLUS_EINVAL);
	memcpy(conv, store, n);
	conv[sizeof(float) + 31] |= 0x80; /* bit 255, past 250: 41 bits, 41 values */
	conv[n - 1] = 5;
	assert_int_equal(callus_vecindex_unpack(a, 250, conv, n), CALLUS_EINVAL);
	/* odd lengths too short for the bitmap, and a mask form of more
	 * dimensions than the sparse forms take */
	assert_int_equal(callus_vecindex_unpack(a, 250, store, 5), CALLUS_EINVAL);
	assert_int_equal(callus_vecindex_unpack(a, 250, store, sizeof(float) + 31), CALLUS_EINVAL);
	assert_int_equal(callus_vecindex_unpack(a, 300, store, n), CALLUS_EINVAL);
}

/* The portable dot product (the search's where there is no SSE2) against a
 * plain sum, at every length to 300, with -128 and 127 among the bytes. */
static void dot_lanes_exact(void **state)
{
	int8_t a[300], b[300];
	uint64_t x = 2463534242ull;

	(void)state;
	for (size_t i = 0; i < sizeof(a); i++) {
		xorshift(&x);
		a[i] = (int8_t)(x & 0xff);
		b[i] = (int8_t)((x >> 8) & 0xff);
	}
	a[5] = b[5] = -128;
	a[40] = b[40] = 127;
	a[299] = -128;
	b[299] = 127;
	for (size_t n = 0; n <= sizeof(a); n++) {
		int32_t want = 0;

		for (size_t i = 0; i < n; i++)
			want += (int32_t)a[i] * (int32_t)b[i];
		if (vi_dot_i8_lanes(a, b, n) != want)
			fail_msg("n %zu: %d, want %d", n, (int)vi_dot_i8_lanes(a, b, n), (int)want);
	}
}

/* The bound's part, as every search computes it (with SSE2 where there is),
 * is the scalar reference's, damaged sketches and all: random sketches and
 * queries over tables of 1 to 65536 entries, the extremes of both
 * components, and components just inside and just past each table.  A lane
 * gathered from the wrong component, a record's -128 read as 128, or a
 * component past the table let through fails here. */
/* A random sketch for round of a table of mask + 1 entries: its components
 * mostly inside the table, one round in `past` some up to twice past it;
 * one round in five a component of -128, which no quantization makes. */
static void random_sketch(vi_sketch_rec *r, uint64_t *x, unsigned mask, int round, int past)
{
	memset(r, 0, sizeof(*r));
	for (int t = 0; t < VI_SKETCH_TOP; t++) {
		xorshift(x);
		r->dim[t] = (uint16_t)(round % past ? (*x >> 16) & mask
						    : (*x >> 16) % (2u * mask + 2));
		r->v[t] = (int8_t)((*x >> 40) & 0xff);
	}
	if (round % 5 == 0)
		r->v[round % VI_SKETCH_TOP] = -128;
}

static void sketch_part_matches_scalar(void **state)
{
	static int8_t table[65536];
	const unsigned masks[] = { 0, 1, 255, 1023, 65535 };
	uint64_t x = 88172645463325252ull;
	size_t damaged = 0, whole = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(table); i++) {
		xorshift(&x);
		table[i] = (int8_t)(x & 0xff);
	}
	table[0] = -128; /* never in a query, but the lanes must not care */
	table[1] = 127;
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++) {
		vi_query q = { table, masks[m], 0, 1.0 };

		for (int round = 0; round < 4000; round++) {
			vi_sketch_rec r;
			int32_t got = 7, want = 11;
			int rg, rw;

			random_sketch(&r, &x, masks[m], round, 8);
			if (round % 7 == 0)
				r.dim[round % VI_SKETCH_TOP] = (uint16_t)masks[m];
			if (round % 11 == 0 && masks[m] < 65535)
				r.dim[round % VI_SKETCH_TOP] = (uint16_t)(masks[m] + 1);
			rg = vi_sketch_part(&r, &q, &got);
			rw = vi_sketch_part_scalar(&r, &q, &want);
			if (rg != rw || (rw == 0 && got != want))
				fail_msg("mask %u, round %d: %d (%d), want %d (%d)", masks[m], round,
					 rg, (int)got, rw, (int)want);
			if (rw < 0)
				damaged++;
			else
				whole++;
		}
	}
	/* both sides taken, many times over */
	assert_true(damaged > 1000);
	assert_true(whole > 10000);
}

/*
 * VI_GROUP queries side by side: vi_sketch_parts gives, in lane j, what
 * vi_sketch_part_scalar gives query j alone (its own table), and refuses
 * a sketch past the tables as it does; the scalar form the same.
 */
static void sketch_parts_match_each_part(void **state)
{
	enum { ROWS = 1024 };
	static int8_t tables[VI_GROUP][ROWS], rows[ROWS * VI_GROUP];
	const unsigned masks[] = { 255, 1023 };
	uint64_t x = 0x9e3779b97f4a7c15ull;
	size_t damaged = 0, whole = 0;

	(void)state;
	for (size_t j = 0; j < VI_GROUP; j++)
		for (size_t d = 0; d < ROWS; d++) {
			xorshift(&x);
			tables[j][d] = (int8_t)((x & 0xff) == 0x80 ? 0x7f : x & 0xff);
			rows[d * VI_GROUP + j] = tables[j][d];
		}
	for (size_t m = 0; m < sizeof(masks) / sizeof(masks[0]); m++)
		for (int round = 0; round < 3000; round++) {
			vi_sketch_rec r;
			int32_t got[VI_GROUP], ref[VI_GROUP];
			int rg, rs;

			random_sketch(&r, &x, masks[m], round, 9);
			rg = vi_sketch_parts(&r, rows, masks[m], got);
			rs = vi_sketch_parts_scalar(&r, rows, masks[m], ref);
			assert_int_equal(rg, rs);
			for (size_t j = 0; j < VI_GROUP; j++) {
				vi_query q = { tables[j], masks[m], 0, 1.0 };
				int32_t one = 0;
				int r1 = vi_sketch_part_scalar(&r, &q, &one);

				assert_int_equal(rg, r1);
				if (rg == 0 && (got[j] != one || ref[j] != one))
					fail_msg("mask %u, round %d, lane %zu: %d and %d, want %d", masks[m],
						 round, j, (int)got[j], (int)ref[j], (int)one);
			}
			if (rg < 0)
				damaged++;
			else
				whole++;
		}
	assert_true(damaged > 300);
	assert_true(whole > 4000);
}

/* A search continued over the records appended since finds what a search
 * of the whole file finds, ties and all; appends keep the file's identity
 * and a rewrite changes it. */
static void search_continued(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	const int64_t seeds[] = { 3, 17, 250, 499 };

	append_range(f->path.ptr, 1, 500);
	for (size_t s = 0; s < sizeof(seeds) / sizeof(seeds[0]); s++) {
		callus_vecindex *before = open_ok(f->path.ptr, MODEL, DIM, NULL), *after;
		callus_vecmatch head[11], whole[11], cont[11];
		float q[DIM], copy[DIM];
		int64_t twin = 100000 + seeds[s];
		uint64_t id0[2], id1[2];
		size_t n0, nw, nc, from = callus_vecindex_count(before);

		random_vec(q, (uint64_t)seeds[s]);
		n0 = callus_vecindex_search(before, q, 0.0f, head, 11);
		assert_true(n0 > 0);
		callus_vecindex_file_id(before, id0);
		/* more records, one of them the query's twin: it ties the
		 * query's own record and must come after it */
		memcpy(copy, q, sizeof(copy));
		append_range(f->path.ptr, 501 + (int64_t)s * 100, 600 + (int64_t)s * 100);
		assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, &twin, copy, 1, &err),
				 0);
		after = open_ok(f->path.ptr, MODEL, DIM, NULL);
		callus_vecindex_file_id(after, id1);
		assert_memory_equal(id0, id1, sizeof(id0));
		nw = callus_vecindex_search(after, q, 0.0f, whole, 11);
		memcpy(cont, head, sizeof(head));
		nc = callus_vecindex_search_from(after, q, 0.0f, cont, 11, n0, from);
		assert_int_equal(nc, nw);
		for (size_t i = 0; i < nw; i++) {
			assert_true(cont[i].id == whole[i].id);
			assert_true(cont[i].score == whole[i].score);
		}
		assert_true(whole[0].id == seeds[s] && whole[1].id == twin);
		callus_vecindex_close(before);
		callus_vecindex_close(after);
	}
	{
		callus_vecindex *a = open_ok(f->path.ptr, MODEL, DIM, NULL), *b;
		int64_t id = 1;
		float v[DIM];
		uint64_t ida[2], idb[2];

		random_vec(v, 1);
		assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, &id, v, 1, &err), 0);
		b = open_ok(f->path.ptr, MODEL, DIM, NULL);
		callus_vecindex_file_id(a, ida);
		callus_vecindex_file_id(b, idb);
		assert_true(ida[0] != idb[0] || ida[1] != idb[1]);
		callus_vecindex_close(a);
		callus_vecindex_close(b);
	}
	callus_error_release(&err);
}


/* n vectors in clusters: each a perturbation of one of a few centres, at
 * every distance from it, so that scores near any threshold occur. */
static void clustered(float *vecs, int64_t *ids, size_t n)
{
	float noise[DIM];

	for (size_t i = 0; i < n; i++) {
		const float *c = vecs + (i % 7) * DIM;

		ids[i] = (int64_t)i + 1;
		random_vec(vecs + i * DIM, 5000 + i);
		if (i < 7)
			continue;
		random_vec(noise, 9000 + i);
		for (size_t d = 0; d < DIM; d++)
			vecs[i * DIM + d] = c[d] + (float)(i % 13) * 0.05f * noise[d];
		normalize(vecs + i * DIM, DIM);
	}
}

/*
 * The sketch's two bounds, as a search computes them, against every
 * record's score with every query: never under what a search for that
 * score needs, the tight one never above the other; both equal to the
 * score (within rounding) for a record of at most VI_SKETCH_TOP
 * components, whose rest is nothing, and the tight one for the query's own
 * record; so that a bound tightened by a few percent, or a threshold
 * without its margin for rounding, fails here.  Every third record is
 * that sparse.
 */
static void sketch_bound_holds_and_is_tight(void **state)
{
	struct fixture *f = *state;
	enum { N = 120 };
	static float vecs[N * DIM];
	static callus_vecmatch m[N];
	static vi_sketch_rec sk[N];
	uint8_t qp[sizeof(float) + DIM];
	int64_t ids[N];
	callus_buf skpath = CALLUS_BUF_INIT;
	double worst_sparse = 0, worst_self = 0;
	size_t sparse_seen = 0;

	clustered(vecs, ids, N);
	for (size_t i = 0; i < N; i += 3) {
		float *v = vecs + i * DIM;

		memset(v, 0, DIM * sizeof(*v));
		for (size_t t = 0; t < VI_SKETCH_TOP; t++)
			v[(i * 7 + t * 41) % DIM] = (float)((t % 2 ? -1.0 : 1.0) * (1.0 + (double)t));
		normalize(v, DIM);
	}
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	assert_int_equal(callus_buf_printf(&skpath, "%s.sketch", f->path.ptr), 0);
	read_at(skpath.ptr, SKETCH_HEADER, sk, sizeof(sk));
	for (size_t qi = 0; qi < N; qi++) {
		callus_vecindex *vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
		size_t got = callus_vecindex_search(vi, vecs + qi * DIM, -2.0f, m, N);
		int32_t qn2 = 0;
		vi_query q;
		float qs;

		callus_vecindex_close(vi);
		assert_int_equal(got, N);
		callus_vecindex_pack(qp, vecs + qi * DIM, DIM);
		memcpy(&qs, qp, sizeof(qs));
		for (size_t d = 0; d < DIM; d++)
			qn2 += (int32_t)(int8_t)qp[sizeof(float) + d] * (int8_t)qp[sizeof(float) + d];
		q.table = (const int8_t *)(qp + sizeof(float));
		q.mask = DIM - 1;
		q.n2 = qn2;
		q.norm = root((double)qn2);
		for (size_t j = 0; j < got; j++) {
			const vi_sketch_rec *r = &sk[m[j].id - 1];
			double b = vi_sketch_bound(r, &q), bt = vi_sketch_bound_tight(r, &q, b);
			double floor = vi_bound_floor(m[j].score, qs);

			assert_true(r->id == m[j].id);
			/* a search for what this record scores reads it */
			if (!(b >= floor) || !(bt >= floor))
				fail_msg("query %zu, record %lld: bounds %.9g and %.9g, under %.9g for"
					 " the score %.9g",
					 qi, (long long)m[j].id, b, bt, floor, (double)m[j].score);
			if (!(bt <= b + 1e-9))
				fail_msg("query %zu, record %lld: the tight bound %.9g above %.9g", qi,
					 (long long)m[j].id, bt, b);
			if (m[j].id == ids[qi] && fabs(bt * qs - m[j].score) > worst_self)
				worst_self = fabs(bt * qs - m[j].score);
			if ((m[j].id - 1) % 3 == 0) {
				assert_true(r->rest == 0);
				sparse_seen++;
				if (fabs(b * qs - m[j].score) > worst_sparse)
					worst_sparse = fabs(b * qs - m[j].score);
			}
		}
	}
	callus_buf_release(&skpath);
	assert_int_equal(sparse_seen, N * (N / 3));
	assert_true(worst_sparse < 1e-4);
	/* a query's own record: the tight bound is its score (Cauchy-Schwarz
	 * is an equality, the query outside the top being the record's rest) */
	assert_true(worst_self < 1e-4);
}

/* An open descriptor of path holding its exclusive lock, as a writer
 * holds it (closing it lets go). */
static int lock_ex(const char *path)
{
	int fd = open(path, O_RDONLY);

	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	return fd;
}

/* The header of the sketch file sk: its version and the inode it names. */
static void sketch_header(const char *sk, uint32_t *version, int64_t *ino)
{
	unsigned char hdr[SKETCH_HEADER];

	read_at(sk, 0, hdr, sizeof(hdr));
	memcpy(version, hdr + 8, sizeof(*version));
	memcpy(ino, hdr + 32, sizeof(*ino));
}

/* Every search of the file at path equals the same search without its
 * sketch file, or its postings file (path + suffix, moved away, then
 * back): the bounds skip only records that could not be found. */
static void assert_same_without(const char *path, const char *suffix, const float *vecs,
				size_t n)
{
	static const float mins[] = { -1.0f, 0.0f, 0.5f, 0.8f, 0.9f, 0.98f };
	static const size_t ks[] = { 1, 4, 10, 50 };
	callus_vecindex *with = open_ok(path, MODEL, DIM, NULL), *without;
	callus_buf sk = CALLUS_BUF_INIT, moved = CALLUS_BUF_INIT;
	int lockfd;

	assert_int_equal(callus_buf_printf(&sk, "%s%s", path, suffix), 0);
	assert_int_equal(callus_buf_printf(&moved, "%s.away", path), 0);
	assert_int_equal(rename(sk.ptr, moved.ptr), 0);
	/* under the file's lock, as a writer holds it: a reader that found no
	 * sketch would make one */
	lockfd = lock_ex(path);
	without = open_ok(path, MODEL, DIM, NULL);
	close(lockfd);
	assert_int_equal(access(sk.ptr, F_OK), -1);
	assert_int_equal(rename(moved.ptr, sk.ptr), 0);
	for (size_t qi = 0; qi < n; qi += 5)
		for (size_t a = 0; a < sizeof(mins) / sizeof(mins[0]); a++)
			for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++) {
				callus_vecmatch m1[50], m2[50];
				size_t keep1[64], keep2[64], nk1 = 0, nk2 = 0;
				/* from the start, or inside the file (a chunk's
				 * edges among them when it has several) */
				size_t from = (qi / 5) % 4 == 0 ? 0
					      : (qi / 5) % 4 == 1 ? n / 3
					      : (qi / 5) % 4 == 2 ? VI_SKETCH_READ % n
								  : n - 1;
				size_t n1 = callus_vecindex_search_keep(with, vecs + qi * DIM, mins[a],
								      m1, ks[b], 0, from, 0.8f,
								      keep1, 64, &nk1);
				size_t n2 = callus_vecindex_search_keep(without, vecs + qi * DIM,
								      mins[a], m2, ks[b], 0, from, 0.8f,
								      keep2, 64, &nk2);

				assert_int_equal(n1, n2);
				assert_int_equal(nk1, nk2);
				for (size_t i = 0; i < n1; i++) {
					assert_true(m1[i].id == m2[i].id);
					assert_true(m1[i].score == m2[i].score);
				}
				for (size_t i = 0; i < nk1 && i < 64; i++)
					assert_int_equal(keep1[i], keep2[i]);
			}
	callus_vecindex_close(with);
	callus_vecindex_close(without);
	callus_buf_release(&sk);
	callus_buf_release(&moved);
}

static void assert_same_as_unsketched(const char *path, const float *vecs, size_t n)
{
	assert_same_without(path, ".sketch", vecs, n);
}

static off_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

/* A reader makes a file's missing sketch and postings; one opened as it
 * is (callus doctor without --fix) writes nothing and says they are
 * missing, and finds what the others find. */
static void an_open_as_is_writes_nothing(void **state)
{
	struct fixture *f = *state;
	enum { N = 400 };
	static float vecs[N * DIM];
	int64_t ids[N];
	callus_buf sk = CALLUS_BUF_INIT, po = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;

	assert_int_equal(callus_buf_printf(&sk, "%s.sketch", f->path.ptr), 0);
	assert_int_equal(callus_buf_printf(&po, "%s.post", f->path.ptr), 0);
	clustered(vecs, ids, N);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	assert_true(file_size(sk.ptr) > 0);
	assert_int_equal(unlink(sk.ptr), 0);
	(void)unlink(po.ptr);

	assert_int_equal(callus_vecindex_open_as_is(&vi, f->path.ptr, MODEL, DIM, NULL, NULL), 0);
	assert_int_equal(callus_vecindex_count(vi), N);
	assert_true(callus_vecindex_derived_absent(vi));
	callus_vecindex_close(vi);
	assert_int_equal(file_size(sk.ptr), -1);
	assert_int_equal(file_size(po.ptr), -1);
	/* what reading every record finds, with the sketches made after */
	assert_same_as_unsketched(f->path.ptr, vecs, N);

	assert_int_equal(callus_vecindex_open(&vi, f->path.ptr, MODEL, DIM, NULL, NULL), 0);
	assert_false(callus_vecindex_derived_absent(vi));
	callus_vecindex_close(vi);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + N * sizeof(vi_sketch_rec));
	assert_int_equal(callus_vecindex_open_as_is(&vi, f->path.ptr, MODEL, DIM, NULL, NULL), 0);
	assert_false(callus_vecindex_derived_absent(vi));
	callus_vecindex_close(vi);
	assert_false(callus_vecindex_derived_absent(NULL));
	callus_buf_release(&sk);
	callus_buf_release(&po);
}

/* A sketch file is kept beside the vector file by every writer, and a
 * search that uses it finds exactly what reading every record finds. */
static void sketch_skips_exactly(void **state)
{
	struct fixture *f = *state;
	enum { N = 400, SKETCH_REC = sizeof(vi_sketch_rec) };
	static float vecs[N * DIM];
	int64_t ids[N];
	callus_buf sk = CALLUS_BUF_INIT;

	assert_int_equal(callus_buf_printf(&sk, "%s.sketch", f->path.ptr), 0);
	clustered(vecs, ids, N);
	/* appended in batches, then rewritten: both keep it */
	for (size_t i = 0; i < N; i += 50)
		assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids + i,
						      vecs + i * DIM, 50, NULL), 0);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + N * SKETCH_REC);
	assert_same_as_unsketched(f->path.ptr, vecs, N);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N - 100, NULL),
			 0);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + (N - 100) * SKETCH_REC);
	assert_same_as_unsketched(f->path.ptr, vecs, N - 100);
	/* removed, it is made again by the next append */
	assert_int_equal(unlink(sk.ptr), 0);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids + N - 100,
					      vecs + (N - 100) * DIM, 50, NULL), 0);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + (N - 50) * SKETCH_REC);
	/* cut short (a crash), the sketches it lacks are added */
	assert_int_equal(truncate(sk.ptr, SKETCH_HEADER + 120 * SKETCH_REC + 7), 0);
	assert_same_as_unsketched(f->path.ptr, vecs, N - 50);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids + N - 50,
					      vecs + (N - 50) * DIM, 50, NULL), 0);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + N * SKETCH_REC);
	assert_same_as_unsketched(f->path.ptr, vecs, N);
	assert_int_equal(callus_vecindex_remove(f->path.ptr), 0);
	assert_int_equal(count_entries(f->dir), 0);
	callus_buf_release(&sk);
}

/* The sketch is used (a sketch saying every record is zero hides them
 * all), and only for the file it names. */
/*
 * Searches over a file of several chunks of sketches (VI_SKETCH_READ a
 * read), with records past its sketch: callus_vecindex_search_many gives
 * what each query's own search gives (best, scores, kept, counts), with
 * and without keeping, for a zero query too; and a search started inside
 * a chunk, at its edges or past the sketch finds what one reading every
 * record finds.
 */
static void search_many_is_each_search(void **state)
{
	struct fixture *f = *state;
	/* more queries than a group searched side by side (VI_GROUP) */
	enum { N = 2 * VI_SKETCH_READ + 345, NQ = VI_GROUP + 5, K = 4, CAP = 64 };
	static float vecs[N * DIM], qs[NQ * DIM];
	static callus_vecmatch many[NQ * K], one[K], brute[K];
	static size_t recs[N];
	static size_t keep_many[NQ * CAP], keep_one[CAP];
	size_t nout[NQ], nkeep[NQ], nk1;
	int64_t ids[N];
	callus_buf sk = CALLUS_BUF_INIT;
	size_t kept_total = 0, found_total = 0;
	/* the whole file; from a block of the postings; from inside one, and
	 * inside a chunk of sketches (a window's start may be anywhere:
	 * callus_vecindex_newest) */
	const size_t froms[] = { 0, VI_POST_BLOCK, VI_SKETCH_READ + 100 };

	assert_int_equal(callus_buf_printf(&sk, "%s.sketch", f->path.ptr), 0);
	for (size_t i = 0; i < N; i++)
		recs[i] = i;
	clustered(vecs, ids, N);
	/* every third record of eight components, in a few patterns: its
	 * sketch bounds it exactly, so that a bound made from another query's
	 * components leaves out a record that reaches the threshold */
	for (size_t i = 0; i < N; i += 3) {
		float *v = vecs + i * DIM;

		memset(v, 0, DIM * sizeof(*v));
		for (size_t t = 0; t < VI_SKETCH_TOP; t++)
			v[((i / 3) % 11 * 7 + t * 41) % DIM] =
				(float)((t % 2 ? -1.0 : 1.0) * (1.0 + (double)t + (double)(i % 5)));
		normalize(v, DIM);
	}
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	for (size_t q = 0; q < NQ; q++) {
		if (q == 3) {
			memset(qs + q * DIM, 0, DIM * sizeof(*qs)); /* similar to nothing */
			continue;
		}
		/* records of the file, sparse and dense (the last query among
		 * them: the second group's), and vectors of none */
		if (q % 2 == 0)
			memcpy(qs + q * DIM, vecs + ((q * 337) % N) * DIM, DIM * sizeof(*qs));
		else if (q % 4 == 1)
			memcpy(qs + q * DIM, vecs + ((q * 3 * 61) % N) / 3 * 3 * DIM,
			       DIM * sizeof(*qs));
		else
			random_vec(qs + q * DIM, 777 + q);
	}
	for (int cut = 0; cut < 2; cut++) {
		callus_vecindex *vi;
		int lockfd = -1;

		if (cut) {
			/* the sketch ends inside the second chunk; under the
			 * file's lock, a reader does not make the rest */
			assert_int_equal(truncate(sk.ptr, SKETCH_HEADER +
								  (VI_SKETCH_READ + 17) *
									  sizeof(vi_sketch_rec)),
					 0);
			lockfd = lock_ex(f->path.ptr);
		}
		vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
		if (cut)
			close(lockfd);
		for (int run = 0; run < 2 * (int)(sizeof(froms) / sizeof(*froms)); run++) {
			int keeping = run % 2;
			size_t from = froms[run / 2];

			assert_int_equal(callus_vecindex_search_many(vi, qs, NQ, 0.5f, many, nout, K,
								   from, 0.3f, keep_many, CAP,
								   keeping ? nkeep : NULL),
					 0);
			for (size_t q = 0; q < NQ; q++) {
				size_t n1 = callus_vecindex_search_keep(vi, qs + q * DIM, 0.5f, one, K,
								      0, from, 0.3f, keep_one, CAP,
								      keeping ? &nk1 : NULL);

				assert_int_equal(nout[q], n1);
				for (size_t i = 0; i < n1; i++) {
					assert_true(many[q * K + i].id == one[i].id);
					assert_true(many[q * K + i].score == one[i].score);
				}
				/* and what scoring every record from `from` on gives,
				 * no bound taken */
				{
					size_t nb = callus_vecindex_search_records(
						vi, qs + q * DIM, 0.5f, brute, K, 0, recs + from,
						N - from);

					assert_int_equal(nb, n1);
					for (size_t i = 0; i < nb; i++)
						assert_true(brute[i].id == one[i].id &&
							    brute[i].score == one[i].score);
				}
				if (q == 3)
					assert_int_equal(n1, 0);
				found_total += n1;
				if (!keeping)
					continue;
				assert_int_equal(nkeep[q], nk1);
				for (size_t i = 0; i < nk1 && i < CAP; i++)
					assert_int_equal(keep_many[q * CAP + i], keep_one[i]);
				kept_total += nk1;
			}
		}
		callus_vecindex_close(vi);
		assert_same_as_unsketched(f->path.ptr, vecs, N);
	}
	/* a sketch cut short under an open reader (its reads come up short):
	 * the records it no longer holds are scored in full, the same found */
	{
		callus_vecindex *vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
		size_t n1, n2;

		n1 = callus_vecindex_search(vi, qs, 0.5f, one, K);
		assert_int_equal(truncate(sk.ptr, SKETCH_HEADER + 10 * sizeof(vi_sketch_rec)), 0);
		assert_int_equal(callus_vecindex_search_many(vi, qs, 1, 0.5f, many, nout, K, 0, 0.3f,
							   NULL, 0, NULL),
				 0);
		n2 = nout[0];
		assert_int_equal(n1, n2);
		for (size_t i = 0; i < n1; i++)
			assert_true(many[i].id == one[i].id);
		/* nothing asked, or nothing to search: nothing found */
		nout[0] = 9;
		assert_int_equal(callus_vecindex_search_many(vi, qs, 1, 0.5f, many, nout, 0, 0, 0.3f,
							   NULL, 0, NULL),
				 0);
		assert_int_equal(nout[0], 0);
		nout[0] = 9;
		assert_int_equal(callus_vecindex_search_many(NULL, qs, 1, 0.5f, many, nout, K, 0, 0.3f,
							   NULL, 0, NULL),
				 0);
		assert_int_equal(nout[0], 0);
		nout[0] = 9;
		assert_int_equal(callus_vecindex_search_many(vi, qs, 1, 0.5f, many, nout, K,
							   callus_vecindex_count(vi), 0.3f, NULL, 0,
							   NULL),
				 0);
		assert_int_equal(nout[0], 0);
		/* a window's start: its first record */
		assert_int_equal(callus_vecindex_newest(vi, N), 0);
		assert_int_equal(callus_vecindex_newest(vi, N + 1), 0);
		assert_int_equal(callus_vecindex_newest(vi, N - 1), 1);
		assert_int_equal(callus_vecindex_newest(vi, 1), N - 1);
		assert_int_equal(callus_vecindex_newest(vi, 0), N);
		assert_int_equal(callus_vecindex_newest(NULL, 1), 0);
		callus_vecindex_close(vi);
	}
	/* both sides were taken: records found and kept, more than one a query */
	assert_true(found_total > 2 * NQ);
	assert_true(kept_total > 2 * NQ);
	callus_buf_release(&sk);
}

static void sketch_of_another_file_unused(void **state)
{
	struct fixture *f = *state;
	enum { N = 60, SKETCH_REC = sizeof(vi_sketch_rec) };
	static float vecs[N * DIM];
	unsigned char zero[SKETCH_REC - 16] = { 0 };
	int64_t ids[N];
	callus_vecmatch m[4];
	callus_buf sk = CALLUS_BUF_INIT, other = CALLUS_BUF_INIT;
	callus_vecindex *vi;
	int fd;

	assert_int_equal(callus_buf_printf(&sk, "%s.sketch", f->path.ptr), 0);
	assert_int_equal(callus_buf_printf(&other, "%s/other.bin", f->dir), 0);
	clustered(vecs, ids, N);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	/* every record's sketch zeroed past its id and scale: rest 0 and
	 * weights 0, a bound of 0 for every query */
	fd = open(sk.ptr, O_WRONLY);
	assert_true(fd >= 0);
	for (size_t i = 0; i < N; i++)
		assert_int_equal(pwrite(fd, zero, sizeof(zero),
					(off_t)(SKETCH_HEADER + i * SKETCH_REC + 12)),
				 (ssize_t)sizeof(zero));
	close(fd);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_search(vi, vecs, 0.5f, m, 4), 0);
	callus_vecindex_close(vi);
	/* its middle record naming another id than the file's: not used */
	{
		int64_t stranger = 999999;

		fd = open(sk.ptr, O_WRONLY);
		assert_true(fd >= 0);
		assert_int_equal(pwrite(fd, &stranger, sizeof(stranger),
					(off_t)(SKETCH_HEADER + (N / 2) * SKETCH_REC)),
				 (ssize_t)sizeof(stranger));
		close(fd);
		vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
		assert_int_equal(callus_vecindex_search(vi, vecs, 0.5f, m, 4), 4);
		callus_vecindex_close(vi);
	}
	/* a sketch naming a component past the vector's (damaged) bounds
	 * nothing: its record is scored in full, nothing is read out of
	 * the query */
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	{
		uint16_t far = 0xffff;

		fd = open(sk.ptr, O_WRONLY);
		assert_true(fd >= 0);
		for (size_t i = 0; i < N; i++)
			assert_int_equal(pwrite(fd, &far, sizeof(far),
						(off_t)(SKETCH_HEADER + i * SKETCH_REC + 16)),
					 (ssize_t)sizeof(far));
		close(fd);
		vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
		assert_int_equal(callus_vecindex_search(vi, vecs, 0.5f, m, 4), 4);
		assert_true(m[0].id == 1);
		callus_vecindex_close(vi);
	}
	/* the same sketch naming another file (the same records rewritten
	 * to another file, renamed in): not used */
	assert_int_equal(callus_vecindex_rewrite(other.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	assert_int_equal(rename(other.ptr, f->path.ptr), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_search(vi, vecs, 0.5f, m, 4), 4);
	assert_true(m[0].id == 1);
	callus_vecindex_close(vi);
	callus_buf_release(&sk);
	callus_buf_release(&other);
}

/* path's bytes copied to a new file renamed over it: the same records
 * under another inode, as a copied or restored store has them. */
static void copy_in_place(const char *path)
{
	callus_buf tmp = CALLUS_BUF_INIT;
	char buf[8192];
	ssize_t r;
	int in, out;

	assert_int_equal(callus_buf_printf(&tmp, "%s.copy", path), 0);
	in = open(path, O_RDONLY);
	out = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(in >= 0 && out >= 0);
	while ((r = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)r), r);
	assert_int_equal(r, 0);
	close(in);
	close(out);
	assert_int_equal(rename(tmp.ptr, path), 0);
	callus_buf_release(&tmp);
}

/* A reader that finds VI_SKETCH_REPAIR (256) or more records of a file
 * without their sketches (a copied store: the sketch names the inode it
 * was made for; a sketch of another version) makes them, unless a writer
 * holds the file's lock; fewer missing (a crash before an append's sync)
 * it leaves to the next append. */
static void reader_makes_missing_sketches(void **state)
{
	struct fixture *f = *state;
	enum { N = 400, SKETCH_REC = sizeof(vi_sketch_rec) };
	static float vecs[N * DIM];
	int64_t ids[N], ino;
	uint32_t version, old = 1;
	callus_buf sk = CALLUS_BUF_INIT;
	callus_vecindex *vi;
	struct stat st;
	int fd;

	assert_int_equal(callus_buf_printf(&sk, "%s.sketch", f->path.ptr), 0);
	clustered(vecs, ids, N);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	copy_in_place(f->path.ptr);
	assert_int_equal(stat(f->path.ptr, &st), 0);
	/* a writer holds the lock: left to it */
	fd = lock_ex(f->path.ptr);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);
	close(fd);
	sketch_header(sk.ptr, &version, &ino);
	assert_true(ino != (int64_t)st.st_ino);
	/* none: the reader makes them, for this file */
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + N * SKETCH_REC);
	sketch_header(sk.ptr, &version, &ino);
	assert_true(ino == (int64_t)st.st_ino);
	assert_same_as_unsketched(f->path.ptr, vecs, N);
	/* a sketch of version 1 (its rest a square, not a length): made again */
	write_at(sk.ptr, 8, &old, sizeof(old));
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);
	sketch_header(sk.ptr, &version, &ino);
	assert_true(version == 2);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + N * SKETCH_REC);
	assert_same_as_unsketched(f->path.ptr, vecs, N);
	/* 255 missing: left; 256: made */
	assert_int_equal(truncate(sk.ptr, SKETCH_HEADER + (N - 255) * SKETCH_REC), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + (N - 255) * SKETCH_REC);
	assert_int_equal(truncate(sk.ptr, SKETCH_HEADER + (N - 256) * SKETCH_REC), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);
	assert_int_equal(file_size(sk.ptr), SKETCH_HEADER + N * SKETCH_REC);
	callus_buf_release(&sk);
}

/* The postings file: its header, and block b's offset in it. */
#define POST_HEADER VI_DERIVED_HEADER

static off_t post_block_at(size_t b)
{
	return (off_t)(POST_HEADER + b * vi_post_block_size(DIM));
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void append_clustered(const char *path, const float *vecs, const int64_t *ids, size_t n,
			     size_t batch)
{
	for (size_t i = 0; i < n; i += batch)
		assert_int_equal(callus_vecindex_append(path, MODEL, DIM, ids + i, vecs + i * DIM,
						      n - i < batch ? n - i : batch, NULL),
				 0);
}

/* What fill_some writes: `whole` units of UNIT_TEST bytes, then `part`
 * bytes of one more, and whether it fails then. */
#define UNIT_TEST 100
typedef struct fill_plan {
	size_t whole, part;
	int fail;
} fill_plan;

static int fill_some(int fd, size_t from, size_t to, void *arg)
{
	const fill_plan *p = arg;
	unsigned char unit[UNIT_TEST];

	(void)from;
	(void)to;
	memset(unit, 'u', sizeof(unit));
	for (size_t i = 0; i < p->whole; i++)
		if (write(fd, unit, sizeof(unit)) != (ssize_t)sizeof(unit))
			return -1;
	if (p->part && write(fd, unit, p->part) != (ssize_t)p->part)
		return -1;
	return p->fail ? -1 : 0;
}

/*
 * A derived file's append that fails (a full disk, a sketch that cannot be
 * read) keeps the units it wrote whole and cuts only the partial one: a
 * reader that opened meanwhile may have mapped them (the postings), and a
 * cut below them would be its SIGBUS.  Cutting back to what the file held
 * before the append fails here.
 */
static void a_failed_fill_keeps_whole_units(void **state)
{
	struct fixture *f = *state;
	const char magic[8] = { 'C', 'A', 'L', 'L', 'U', 'S', 'T', 'T' };
	callus_buf path = CALLUS_BUF_INIT;
	fill_plan first = { 2, 0, 0 }, failing = { 1, 30, 1 };
	struct stat vst;
	vi_derived d;
	size_t units = 0;
	int fd;

	assert_int_equal(callus_buf_printf(&path, "%s.test", f->path.ptr), 0);
	fd = open(f->path.ptr, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &vst), 0);
	close(fd);
	vi_derived_init(&d, ".test", magic, 1, DIM, 0, &vst, UNIT_TEST);
	fd = vi_derived_sync(&d, f->path.ptr, 2, fill_some, &first, &units);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(units, 2);
	assert_int_equal(file_size(path.ptr), VI_DERIVED_HEADER + 2 * UNIT_TEST);
	/* five wanted: one more written whole, thirty bytes of the next */
	fd = vi_derived_sync(&d, f->path.ptr, 5, fill_some, &failing, &units);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(units, 3);
	assert_int_equal(file_size(path.ptr), VI_DERIVED_HEADER + 3 * UNIT_TEST);
	unlink(path.ptr);
	callus_buf_release(&path);
}

/*
 * Every block of a file appended to in batches that end inside blocks:
 * the sum a search adds for each record from the postings is what its
 * sketch gives (vi_sketch_part_scalar), for random queries, and the
 * records whose bound reaches a threshold are those the scalar form
 * picks, at thresholds that take none, some and all.
 */
/* A byte changed in place in a sketch or in a postings block is found
 * (callus doctor's check), one count a unit; none in the files writers
 * made, nor once a rewrite made them again. */
static void damaged_sketches_and_blocks_found(void **state)
{
	struct fixture *f = *state;
	enum { N = 2 * VI_POST_BLOCK + 30 };
	static float vecs[N * DIM];
	int64_t ids[N];
	callus_buf sk = CALLUS_BUF_INIT, post = CALLUS_BUF_INIT;
	callus_vecindex *vi;
	unsigned char b;

	assert_int_equal(callus_buf_printf(&sk, "%s.sketch", f->path.ptr), 0);
	assert_int_equal(callus_buf_printf(&post, "%s.post", f->path.ptr), 0);
	clustered(vecs, ids, N);
	append_clustered(f->path.ptr, vecs, ids, N, 100);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_derived_damaged(vi), 0);
	callus_vecindex_close(vi);
	/* record 700's sketch: its heaviest component's value */
	read_at(sk.ptr, SKETCH_HEADER + 700 * 40 + 32, &b, 1);
	b ^= 0x10;
	write_at(sk.ptr, SKETCH_HEADER + 700 * 40 + 32, &b, 1);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_derived_damaged(vi), 1);
	callus_vecindex_close(vi);
	/* the second block, past its ids */
	read_at(post.ptr, post_block_at(1) + 100, &b, 1);
	b ^= 0x01;
	write_at(post.ptr, post_block_at(1) + 100, &b, 1);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_derived_damaged(vi), 2);
	callus_vecindex_close(vi);
	assert_int_equal(callus_vecindex_rewrite(f->path.ptr, MODEL, DIM, ids, vecs, N, NULL), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_derived_damaged(vi), 0);
	callus_vecindex_close(vi);
	callus_buf_release(&sk);
	callus_buf_release(&post);
}

static void postings_sum_as_sketches(void **state)
{
	struct fixture *f = *state;
	enum { N = 3 * VI_POST_BLOCK + 100 };
	static float vecs[N * DIM];
	int64_t ids[N];
	uint64_t x = 88172645463325252ull;
	vi_sketch sk;
	vi_postings po;
	struct stat st;
	callus_buf post = CALLUS_BUF_INIT;
	int vfd, pfd;

	assert_int_equal(callus_buf_printf(&post, "%s.post", f->path.ptr), 0);
	clustered(vecs, ids, N);
	append_clustered(f->path.ptr, vecs, ids, N, 100);
	assert_int_equal(file_size(post.ptr), post_block_at(3));
	vfd = open(f->path.ptr, O_RDONLY);
	assert_true(vfd >= 0);
	assert_int_equal(fstat(vfd, &st), 0);
	vi_sketch_open(&sk, f->path.ptr, &st, vfd, N, DIM);
	assert_int_equal(sk.count, N);
	vi_postings_open(&po, f->path.ptr, &st, vfd, sk.count, DIM);
	assert_int_equal(po.blocks, 3);
	/* mapped: whole blocks only, so a writer cutting a crash's partial
	 * block (to the whole blocks, never less) leaves every mapped page in
	 * the file; the blocks are read after the cut below */
	assert_int_equal(po.maplen, post_block_at(3));
	pfd = open(post.ptr, O_WRONLY | O_APPEND);
	assert_true(pfd >= 0);
	assert_int_equal(write(pfd, "partial", 7), 7);
	assert_int_equal(ftruncate(pfd, (off_t)post_block_at(3)), 0);
	close(pfd);
	{
		vi_post_block past;

		assert_int_equal(vi_postings_read(&po, po.blocks, &past), -1);
	}
	for (size_t b = 0; b < po.blocks; b++) {
		vi_post_block blk;
		vi_sketch_rec s[VI_POST_BLOCK];

		assert_int_equal(vi_postings_read(&po, b, &blk), 0);
		assert_int_equal(blk.flags, 0);
		assert_true(blk.first_id == ids[b * VI_POST_BLOCK]);
		assert_true(blk.last_id == ids[(b + 1) * VI_POST_BLOCK - 1]);
		assert_int_equal(vi_sketch_read(&sk, b * VI_POST_BLOCK, s, VI_POST_BLOCK),
				 VI_POST_BLOCK);
		for (int round = 0; round < 20; round++) {
			int8_t table[DIM];
			int32_t part[VI_POST_BLOCK];
			uint16_t a[VI_POST_BLOCK], c[VI_POST_BLOCK];
			vi_query q = { table, DIM - 1, 0, 0 };
			double bounds[VI_POST_BLOCK], los[4];
			uint16_t weighed[DIM];
			size_t na, nc, nweighed;

			/* a query weighing a quarter of the components, as the
			 * built-in ones do, or every one */
			for (size_t d = 0; d < DIM; d++) {
				xorshift(&x);
				table[d] = round % 2 && (x & 3) ? 0 : (int8_t)((x >> 24) & 0xff);
				q.n2 += table[d] * table[d];
			}
			q.norm = root((double)q.n2);
			nweighed = vi_query_weighed(table, DIM, weighed);
			for (size_t w = 0; w < nweighed; w++)
				assert_true(table[weighed[w]] != 0 &&
					    (w == 0 || weighed[w] > weighed[w - 1]));
			vi_post_parts(&blk, table, weighed, nweighed, part);
			for (size_t u = 0; u < VI_POST_BLOCK; u++) {
				int32_t want;

				assert_int_equal(vi_sketch_part_scalar(&s[u], &q, &want), 0);
				assert_int_equal(part[u], want);
				assert_true(blk.scale[u] == s[u].scale && blk.rest[u] == s[u].rest);
				bounds[u] = vi_bound_of(part[u], blk.rest[u], blk.scale[u], &q);
			}
			los[0] = -HUGE_VAL;
			los[1] = HUGE_VAL;
			/* the highest bound, and the median */
			qsort(bounds, VI_POST_BLOCK, sizeof(*bounds), by_value);
			los[2] = bounds[VI_POST_BLOCK - 1];
			los[3] = bounds[VI_POST_BLOCK / 2];
			for (int l = 0; l < 4; l++) {
				na = vi_post_reach(part, &blk, &q, los[l], a);
				nc = vi_post_reach_scalar(part, &blk, &q, los[l], c);
				assert_int_equal(na, nc);
				assert_memory_equal(a, c, na * sizeof(*a));
				if (l == 0)
					assert_int_equal(na, VI_POST_BLOCK);
				if (l == 1)
					assert_int_equal(na, 0);
				if (l >= 2)
					assert_true(na >= 1 && na < VI_POST_BLOCK);
			}
		}
	}
	vi_postings_close(&po);
	assert_null(po.map);
	assert_int_equal(po.blocks, 0);
	vi_sketch_close(&sk);
	close(vfd);
	callus_buf_release(&post);
}

/* Overwrite n bytes at `at` of path with byte c. */
static void smear(const char *path, off_t at, size_t n, int c)
{
	unsigned char *b = malloc(n);

	assert_non_null(b);
	memset(b, c, n);
	write_at(path, at, b, n);
	free(b);
}

/*
 * Searches with the postings find exactly what they find without them
 * (and without the sketches); the postings are used (blocks whose weights
 * and rests say zero hide their records) but not a block that says it
 * bounds nothing, nor a file of another inode; a torn last block is
 * cut and the missing blocks made again by a reader; a block of garbage
 * reads nothing outside it (under the sanitizers); and the file goes with
 * its vector file.
 */
static void postings_skip_exactly(void **state)
{
	struct fixture *f = *state;
	enum { N = 3 * VI_POST_BLOCK + 100 };
	static float vecs[N * DIM];
	int64_t ids[N], ino;
	callus_buf post = CALLUS_BUF_INIT;
	callus_vecmatch m[4];
	callus_vecindex *vi;
	struct stat st;
	off_t full;
	size_t n;
	uint32_t whole = VI_POST_WHOLE;
	int fd;

	assert_int_equal(callus_buf_printf(&post, "%s.post", f->path.ptr), 0);
	clustered(vecs, ids, N);
	append_clustered(f->path.ptr, vecs, ids, N, 333);
	full = file_size(post.ptr);
	assert_int_equal(full, post_block_at(3));
	assert_same_without(f->path.ptr, ".post", vecs, N);
	assert_same_as_unsketched(f->path.ptr, vecs, N);

	/* every block's rests and weights zero: its records bound 0, and
	 * only the records past the blocks are found */
	for (size_t b = 0; b < 3; b++) {
		smear(post.ptr, post_block_at(b) + 24 + VI_POST_BLOCK * 4, VI_POST_BLOCK * 4, 0);
		smear(post.ptr, post_block_at(b + 1) - VI_SKETCH_TOP * VI_POST_BLOCK,
		      VI_SKETCH_TOP * VI_POST_BLOCK, 0);
	}
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	n = callus_vecindex_search(vi, vecs, 0.5f, m, 4);
	assert_true(n >= 1);
	for (size_t i = 0; i < n; i++)
		assert_true(m[i].id > 3 * VI_POST_BLOCK);
	callus_vecindex_close(vi);
	/* the first block saying it bounds nothing: its records bounded
	 * from their sketches, the query's own among them */
	write_at(post.ptr, post_block_at(0) + 16, &whole, 4);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_true(callus_vecindex_search(vi, vecs, 0.5f, m, 4) >= 1);
	assert_true(m[0].id == ids[0]);
	callus_vecindex_close(vi);

	/* garbage in a block (starts past the postings, records past the
	 * block, a count past the block): read inside it only */
	smear(post.ptr, post_block_at(1) + 16, 8, 0x7f);
	smear(post.ptr, post_block_at(1) + 24 + VI_POST_BLOCK * 8,
	      (size_t)(post_block_at(2) - post_block_at(1)) - 24 - VI_POST_BLOCK * 8, 0xff);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_true(callus_vecindex_search(vi, vecs + 600 * DIM, 0.5f, m, 4) <= 4);
	callus_vecindex_close(vi);

	/* made again for a copy of the file (another inode): the reader
	 * makes the sketches, then the postings, for it */
	copy_in_place(f->path.ptr);
	assert_int_equal(stat(f->path.ptr, &st), 0);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);
	read_at(post.ptr, 32, &ino, 8);
	assert_true(ino == (int64_t)st.st_ino);
	assert_int_equal(file_size(post.ptr), full);
	assert_same_without(f->path.ptr, ".post", vecs, N);
	/* of another block size (its header's spare field): not used, and
	 * made again */
	{
		uint32_t block = 2 * VI_POST_BLOCK;

		write_at(post.ptr, 20, &block, 4);
		vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
		callus_vecindex_close(vi);
		read_at(post.ptr, 20, &block, 4);
		assert_int_equal(block, VI_POST_BLOCK);
		assert_int_equal(file_size(post.ptr), full);
	}

	/* torn inside its second block (a crash): one block used, the
	 * others made again by the next reader, or left to the writer */
	assert_int_equal(truncate(post.ptr, post_block_at(1) + 1000), 0);
	fd = lock_ex(f->path.ptr);
	vi = open_ok(f->path.ptr, MODEL, DIM, NULL);
	callus_vecindex_close(vi);
	close(fd);
	assert_int_equal(file_size(post.ptr), post_block_at(1) + 1000);
	assert_same_without(f->path.ptr, ".post", vecs, N);
	assert_int_equal(file_size(post.ptr), full);
	assert_int_equal(truncate(post.ptr, post_block_at(1) + 1000), 0);
	assert_int_equal(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids, vecs, 1, NULL), 0);
	assert_int_equal(file_size(post.ptr), full);

	assert_int_equal(callus_vecindex_remove(f->path.ptr), 0);
	assert_int_equal(count_entries(f->dir), 0);
	callus_buf_release(&post);
}

/*
 * An append that fails part way (a full disk; here the file size limit)
 * keeps the records it wrote whole and cuts only the partial one: a reader
 * that opened meanwhile may have mapped them, and a cut below them would
 * be its SIGBUS.  A reader mapped before reads its records still.  Cutting
 * back to the file's size before the append fails here.
 */
static void a_failed_append_keeps_whole_records(void **state)
{
	struct fixture *f = *state;
	size_t recsize = vi_record_size(DIM);
	float vecs[5 * DIM], q[DIM];
	int64_t ids[5] = { 11, 12, 13, 14, 15 }, first[3] = { 1, 2, 3 };
	struct rlimit was, cap;
	struct sigaction ign, old;
	callus_vecmatch m[8];
	callus_vecindex *before, *after;
	off_t size;

	append_seeds(f->path.ptr, first, 3);
	size = file_size(f->path.ptr);
	assert_int_equal(size, (off_t)(VI_HEADER_SIZE + 3 * recsize));
	before = open_ok(f->path.ptr, MODEL, DIM, NULL);
	for (int i = 0; i < 5; i++)
		random_vec(vecs + i * DIM, (uint64_t)ids[i]);
	/* room for two records and half of a third */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	assert_int_equal(sigaction(SIGXFSZ, &ign, &old), 0);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
	cap = was;
	cap.rlim_cur = (rlim_t)(size + (off_t)(2 * recsize + recsize / 2));
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &cap), 0);
	assert_true(callus_vecindex_append(f->path.ptr, MODEL, DIM, ids, vecs, 5, NULL) < 0);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
	assert_int_equal(sigaction(SIGXFSZ, &old, NULL), 0);
	assert_int_equal(file_size(f->path.ptr), size + (off_t)(2 * recsize));
	/* the earlier mapping whole; a new one sees the two kept */
	random_vec(q, 2);
	assert_int_equal(callus_vecindex_search(before, q, 0.99f, m, 8), 1);
	assert_true(m[0].id == 2);
	after = open_ok(f->path.ptr, MODEL, DIM, NULL);
	assert_int_equal(callus_vecindex_count(after), 5);
	assert_int_equal(callus_vecindex_search(after, vecs + DIM, 0.99f, m, 8), 1);
	assert_true(m[0].id == 12);
	callus_vecindex_close(before);
	callus_vecindex_close(after);
}

/* callus_vecindex_score_packed() gives what scoring the unpacked vector
 * gives, to the bit: each packed form, of dimensions odd and even (one
 * past the stack's 256), from no component set to all; and the blobs no packing makes (a largest integer
 * under 127, a scale negative, zero, NaN or huge), which it scores as
 * unpacked too; a blob of no form is -3. */
static void packed_scores_as_unpacked(void **state)
{
	/* past 256, the integers are held in memory of their own */
	static const size_t dims[] = { 3, 64, 250, 256, 300 };
	float q[300], v[300], u[300], qscale, want, got;
	int8_t qq[300];
	uint8_t store[sizeof(float) + 300];
	uint64_t x = 88172645463325252ull;
	size_t n;

	(void)state;
	for (size_t di = 0; di < sizeof(dims) / sizeof(dims[0]); di++) {
		size_t dim = dims[di];

		for (size_t round = 0; round < 40; round++) {
			size_t set = round * dim / 39;

			for (size_t d = 0; d < dim; d++) {
				xorshift(&x);
				q[d] = (float)((int64_t)(x % 2001) - 1000) / 997.0f;
				v[d] = 0;
			}
			for (size_t k = 0; k < set; k++) {
				xorshift(&x);
				v[(k * 7919) % dim] = (float)((int64_t)(x % 2001) - 1000) / 313.0f;
			}
			qscale = callus_vecindex_quantize(qq, q, dim);
			n = callus_vecindex_pack_store(store, v, dim);
			assert_int_equal(callus_vecindex_unpack(u, dim, store, n), 0);
			want = callus_vecindex_score(q, u, dim);
			got = callus_vecindex_score_packed(q, qq, qscale, store, n, dim);
			assert_memory_equal(&got, &want, sizeof(got));
		}
	}
	/* dense blobs of 8 dimensions no packing makes */
	for (size_t d = 0; d < 8; d++)
		q[d] = (float)d - 3.5f;
	qscale = callus_vecindex_quantize(qq, q, 8);
	{
		static const float scales[] = { 0.01f, -0.01f, 0.0f, 3.0e37f };
		static const int8_t ints[] = { 100, -3, 0, 7, 55, -100, 1, 2 };

		for (size_t k = 0; k < 5; k++) {
			float sc = k < 4 ? scales[k] : NAN;

			memcpy(store, &sc, sizeof(sc));
			memcpy(store + sizeof(float), ints, 8);
			if (k == 0)
				store[sizeof(float) + 3] = 127; /* 127 and -100: a packing's */
			assert_int_equal(callus_vecindex_unpack(u, 8, store, CALLUS_VECINDEX_PACKED(8)), 0);
			want = callus_vecindex_score(q, u, 8);
			got = callus_vecindex_score_packed(q, qq, qscale, store, CALLUS_VECINDEX_PACKED(8), 8);
			assert_memory_equal(&got, &want, sizeof(got));
			store[sizeof(float) + 3] = 7;
			assert_int_equal(callus_vecindex_unpack(u, 8, store, CALLUS_VECINDEX_PACKED(8)), 0);
			want = callus_vecindex_score(q, u, 8);
			got = callus_vecindex_score_packed(q, qq, qscale, store, CALLUS_VECINDEX_PACKED(8), 8);
			assert_memory_equal(&got, &want, sizeof(got));
		}
	}
	/* a 127 beside a -128, whose magnitude is the largest (no packing
	 * makes it), and a -127 as the largest (a packing of a vector whose
	 * largest component is negative) */
	{
		static const int8_t pairs[][8] = {
			{ 127, -128, 3, 0, -5, 9, 1, 2 },
			{ -128, 17, 3, 0, 127, 9, -1, 2 },
			{ 12, -127, 3, 0, -5, 9, 1, 2 },
			{ 12, 100, 3, 0, -127, 127, 1, 2 },
		};
		float sc = 0.01f;

		for (size_t k = 0; k < sizeof(pairs) / sizeof(pairs[0]); k++) {
			memcpy(store, &sc, sizeof(sc));
			memcpy(store + sizeof(float), pairs[k], 8);
			assert_int_equal(callus_vecindex_unpack(u, 8, store, CALLUS_VECINDEX_PACKED(8)), 0);
			want = callus_vecindex_score(q, u, 8);
			got = callus_vecindex_score_packed(q, qq, qscale, store, CALLUS_VECINDEX_PACKED(8), 8);
			assert_memory_equal(&got, &want, sizeof(got));
		}
	}
	assert_true(callus_vecindex_score_packed(q, qq, qscale, store, 3, 8) == -3);
	assert_true(callus_vecindex_score_packed(q, qq, qscale, store, sizeof(float) + 5, 8) == -3);
}

/* The bound on how far a search with b can score a record from a search
 * with a: what it gives for no distance with the same vector (found
 * without quantizing), the same both ways, and larger the farther apart. */
static void score_gap_grows_with_the_distance(void **state)
{
	float a[64], near[64], far[64], copy[64];
	double self, n, f;

	(void)state;
	for (size_t i = 0; i < 64; i++) {
		a[i] = (float)((i % 7) + 1) / 8.0f;
		near[i] = a[i] + (i == 3 ? 0.05f : 0.0f);
		far[i] = (float)(((i * 5) % 11) + 1) / 12.0f;
	}
	memcpy(copy, a, sizeof(a));
	self = callus_vecindex_score_gap(a, copy, 64);
	n = callus_vecindex_score_gap(a, near, 64);
	f = callus_vecindex_score_gap(a, far, 64);
	assert_true(self > 0 && self < 1e-3);
	assert_true(n > self);
	assert_true(f > n);
	assert_true(fabs(callus_vecindex_score_gap(far, a, 64) - f) < 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(missing_is_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(a_rewrite_one_vector_at_a_time, setup, teardown),
		cmocka_unit_test_setup_teardown(records_read_as_the_store_packs_them, setup, teardown),
		cmocka_unit_test_setup_teardown(damaged_sketches_and_blocks_found, setup, teardown),
		cmocka_unit_test_setup_teardown(topk_order_and_min, setup, teardown),
		cmocka_unit_test_setup_teardown(not_appended_through_a_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(a_removal_stopped_part_way_keeps_the_file, setup,
						teardown),
		cmocka_unit_test_setup_teardown(duplicates_once, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failed_append_keeps_whole_records, setup, teardown),
		cmocka_unit_test_setup_teardown(an_open_as_is_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(partial_record_ignored_then_repaired, setup,
						teardown),
		cmocka_unit_test_setup_teardown(stale_then_rewritten, setup, teardown),
		cmocka_unit_test_setup_teardown(rewrite_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(unchanged_until_appended_or_rewritten, setup, teardown),
		cmocka_unit_test_setup_teardown(bad_arguments, setup, teardown),
		cmocka_unit_test_setup_teardown(concurrent_appends, setup, teardown),
		cmocka_unit_test_setup_teardown(quantization_error_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(scores_are_exact_dots, setup, teardown),
		cmocka_unit_test(store_form_round_trips),
		cmocka_unit_test(dot_lanes_exact),
		cmocka_unit_test(sketch_part_matches_scalar),
		cmocka_unit_test(sketch_parts_match_each_part),
		cmocka_unit_test_setup_teardown(search_continued, setup, teardown),
		cmocka_unit_test_setup_teardown(sketch_skips_exactly, setup, teardown),
		cmocka_unit_test_setup_teardown(sketch_bound_holds_and_is_tight, setup, teardown),
		cmocka_unit_test_setup_teardown(sketch_of_another_file_unused, setup, teardown),
		cmocka_unit_test_setup_teardown(search_many_is_each_search, setup, teardown),
		cmocka_unit_test_setup_teardown(reader_makes_missing_sketches, setup, teardown),
		cmocka_unit_test_setup_teardown(postings_sum_as_sketches, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failed_fill_keeps_whole_units, setup, teardown),
		cmocka_unit_test_setup_teardown(postings_skip_exactly, setup, teardown),
		cmocka_unit_test(packed_scores_as_unpacked),
		cmocka_unit_test(score_gap_grows_with_the_distance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
