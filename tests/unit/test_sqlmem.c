/*
 * test_sqlmem.c - SQLite's allocator in the callus process (cli/sqlmem.c):
 * through SQLite's own API once installed, so that what SQLite relies on
 * is what is checked: alignment, a size at least what was asked,
 * blocks that never overlap, contents kept by a realloc in every
 * direction, freed blocks reused, and a real database working on it.
 * Under AddressSanitizer it is not installed (SQLite keeps malloc) and
 * the same checks hold of SQLite's own.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdint.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../cli/sqlmem.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

static int installed;

static int setup_group(void **state)
{
	(void)state;
	installed = cli_sqlmem_install();
#ifndef ASAN
	/* this process has not used SQLite yet: it must take it */
	if (!installed)
		return -1;
#endif
	return sqlite3_initialize() == SQLITE_OK ? 0 : -1;
}

/* Sizes on each side of the classes' limit (8 KB) and a page, and blocks
 * well past the limit (malloc's). */
static const int sizes[] = { 1,    7,    8,    15,    16,    17,    31,    32,    100,
			     255,  1024, 1025, 4096,  4400,  8176,  8177,  8192,  8193,
			     8208, 65000, 65536, 70000, 200000 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void blocks_are_aligned_sized_and_apart(void **state)
{
	enum { ROUNDS = 40 };
	void *p[ROUNDS][NSIZES];

	(void)state;
	for (int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < NSIZES; i++) {
			p[r][i] = sqlite3_malloc(sizes[i]);
			assert_non_null(p[r][i]);
			assert_int_equal((uintptr_t)p[r][i] % 8, 0);
			assert_true(sqlite3_msize(p[r][i]) >= (sqlite3_uint64)sizes[i]);
			/* the whole usable size is SQLite's to write */
			memset(p[r][i], (r * 31 + (int)i) & 0xff, (size_t)sqlite3_msize(p[r][i]));
		}
	for (int r = 0; r < ROUNDS; r++)
		for (size_t i = 0; i < NSIZES; i++) {
			const unsigned char *b = p[r][i];
			size_t n = (size_t)sqlite3_msize(p[r][i]);

			for (size_t k = 0; k < n; k++)
				assert_int_equal(b[k], (r * 31 + (int)i) & 0xff);
			sqlite3_free(p[r][i]);
		}
}

/* Blocks of the largest class over 6 MB of chunks, each keeping what was
 * written to it: a block carved past its chunk's end would write into
 * another block or out of the chunk. */
static void blocks_fill_several_chunks(void **state)
{
	enum { SIZE = 8176, N = 3 * (2 << 20) / 8192 };
	static unsigned char *p[N];

	(void)state;
	for (size_t i = 0; i < N; i++) {
		p[i] = sqlite3_malloc(SIZE);
		assert_non_null(p[i]);
		memset(p[i], (int)(i % 251), SIZE);
	}
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(p[i][0], i % 251);
		assert_int_equal(p[i][SIZE - 1], i % 251);
	}
	for (size_t i = 0; i < N; i++)
		sqlite3_free(p[i]);
}

/*
 * The kernel is not asked for huge pages (MADV_HUGEPAGE) for the chunks: on
 * virtual machines that hand free memory back to their host, a huge page
 * costs a hook 5 ms one time in two (cli/sqlmem.c).  Read from the VmFlags
 * of the mapping that holds a block ("hg": asked for huge pages).
 */
static void chunks_ask_for_no_huge_page(void **state)
{
	uintptr_t at;
	void *p;
	FILE *f;
	char line[512];
	int in = 0, seen = 0;

	(void)state;
	if (!installed)
		skip();
	p = sqlite3_malloc(64);
	assert_non_null(p);
	at = (uintptr_t)p;
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		skip();
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in = at >= lo && at < hi;
			continue;
		}
		if (in && !strncmp(line, "VmFlags:", 8)) {
			seen = 1;
			assert_null(strstr(line, " hg"));
		}
	}
	fclose(f);
	sqlite3_free(p);
	assert_true(seen);
}

/* A chunk is carved from the C library's heap: memory a large block
 * freed (a hook's output, once its capture is read) is what the store's
 * blocks take next, its pages faulted in already. */
static void chunks_take_freed_heap_memory(void **state)
{
	enum { BIG = 1 << 20 };
	unsigned char *big, *prev = NULL;
	uintptr_t from, to;
	int inside = 0;

	(void)state;
	if (!installed)
		skip();
	/* from the heap, as a callus process has it (cli_sqlmem_process) */
	assert_int_equal(mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024), 1);
	big = malloc(BIG);
	assert_non_null(big);
	memset(big, 1, BIG);
	/* its place, as numbers: the block is freed */
	from = (uintptr_t)big;
	to = from + BIG;
	free(big);
	/* the current chunk used up, the next one is where big was */
	for (int tries = 0; tries < 200 && !inside; tries++) {
		/* a class no other test frees blocks of: each new */
		unsigned char *p = sqlite3_malloc(7984);

		assert_non_null(p);
		if (prev && p != prev + 8000)
			inside = (uintptr_t)p >= from && (uintptr_t)p + 7984 <= to;
		prev = p;
	}
	assert_true(inside);
}

/* The mapping of /proc/self/smaps that holds at; 0 when none does. */
static int mapping_of(uintptr_t at, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long a, b;

		if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && at >= a && at < b) {
			*lo = a;
			*hi = b;
			found = 1;
		}
	}
	fclose(f);
	return found;
}

/*
 * The pages past the last block are in memory before any block reaches
 * them (faulted in ahead by madvise(MADV_POPULATE_WRITE), 256 KB at a
 * time): 16 KB past a new block, where nothing was ever written, the page
 * is resident (mincore).  Skipped where the kernel cannot populate.
 */
static void pages_are_faulted_in_ahead(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo = 0, hi = 0, ahead;
	unsigned char vec = 0, *probe;
	void *p;

	(void)state;
	if (!installed)
		skip();
	probe = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(probe != MAP_FAILED);
	if (madvise(probe, (size_t)page, MADV_POPULATE_WRITE) != 0) {
		munmap(probe, (size_t)page);
		skip();
	}
	munmap(probe, (size_t)page);
	/* the first block of a chunk (blocks of the largest class, each
	 * right after the one before in a chunk), far enough from its end
	 * for the page probed to be the chunk's */
	for (int tries = 0;; tries++) {
		static unsigned char *prev;

		assert_true(tries < 1000);
		p = sqlite3_malloc(8176);
		assert_non_null(p);
		assert_true(mapping_of((uintptr_t)p, &lo, &hi));
		if (prev && (unsigned char *)p != prev + 8192 &&
		    (uintptr_t)p + 8176 + 16384 + (uintptr_t)page <= hi)
			break;
		prev = p;
	}
	ahead = ((uintptr_t)p + 8176 + 16384) & ~((uintptr_t)page - 1);
	assert_int_equal(mincore((void *)ahead, (size_t)page, &vec), 0);
	assert_true(vec & 1);
}

static void freed_blocks_are_reused(void **state)
{
	void *a, *b, *c;

	(void)state;
	if (!installed)
		skip();
	a = sqlite3_malloc(48);
	b = sqlite3_malloc(48);
	sqlite3_free(a);
	/* the same class gets the block back; another class does not */
	c = sqlite3_malloc(64);
	assert_ptr_not_equal(c, a);
	sqlite3_free(c);
	assert_ptr_equal(sqlite3_malloc(40), a);
	sqlite3_free(a);
	sqlite3_free(b);
}

/* realloc from each size to each other keeps the bytes both can hold. */
static void realloc_keeps_contents(void **state)
{
	(void)state;
	for (size_t i = 0; i < NSIZES; i++)
		for (size_t j = 0; j < NSIZES; j++) {
			unsigned char *p = sqlite3_malloc(sizes[i]), *q;
			int keep = sizes[i] < sizes[j] ? sizes[i] : sizes[j];

			assert_non_null(p);
			for (int k = 0; k < sizes[i]; k++)
				p[k] = (unsigned char)(k * 7 + (int)i);
			q = sqlite3_realloc(p, sizes[j]);
			assert_non_null(q);
			assert_true(sqlite3_msize(q) >= (sqlite3_uint64)sizes[j]);
			for (int k = 0; k < keep; k++)
				assert_int_equal(q[k], (unsigned char)(k * 7 + (int)i));
			sqlite3_free(q);
		}
	assert_null(sqlite3_realloc(NULL, 0));
	sqlite3_free(NULL);
}

static void a_database_works_on_it(void **state)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	static unsigned char blob[300000];

	(void)state;
	for (size_t i = 0; i < sizeof(blob); i++)
		blob[i] = (unsigned char)(i * 13);
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "CREATE TABLE t (k INTEGER PRIMARY KEY, s TEXT, b BLOB);"
				      "CREATE INDEX t_s ON t(s);"
				      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n"
				      " WHERE i < 20000) INSERT INTO t (s) SELECT printf('row %d %s', i,"
				      " hex(randomblob(i % 90))) FROM n;"
				      "DELETE FROM t WHERE k % 3 = 0;",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "INSERT INTO t (k, s, b) VALUES (1000000, 'big', ?1)",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_blob(st, 1, blob, (int)sizeof(blob), SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT count(*), sum(length(s)), (SELECT b FROM t"
					    " WHERE k = 1000000) FROM t WHERE s LIKE 'row %'",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 20000 - 20000 / 3);
	assert_int_equal(sqlite3_column_bytes(st, 2), (int)sizeof(blob));
	assert_memory_equal(sqlite3_column_blob(st, 2), blob, sizeof(blob));
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(blocks_are_aligned_sized_and_apart),
		cmocka_unit_test(blocks_fill_several_chunks),
		cmocka_unit_test(chunks_ask_for_no_huge_page),
		cmocka_unit_test(chunks_take_freed_heap_memory),
		cmocka_unit_test(pages_are_faulted_in_ahead),
		cmocka_unit_test(freed_blocks_are_reused),
		cmocka_unit_test(realloc_keeps_contents),
		cmocka_unit_test(a_database_works_on_it),
	};

	return cmocka_run_group_tests(tests, setup_group, NULL);
}
