/*
 * sqlmem.c - SQLite's memory in the callus process: small blocks from
 * size classes carved out of large chunks, larger ones from malloc.
 *
 * Debian's SQLite is built without its lookaside allocator
 * (SQLITE_OMIT_LOOKASIDE), so every object of the schema a process parses
 * at its first statement, and of every statement it prepares, is a
 * malloc and a free: about 9,600 pairs in a failing hook, most of them
 * glibc's slow path (blocks that live until the store closes, so its
 * per-thread cache is empty).  Here blocks of up to 8 KB (a page of the
 * store with SQLite's header for it fits) are a pop or a bump, and a push:
 * a failing hook 16.2 -> 13.9 million instructions (docs/scale-history.md, the twelfth pass).  A callus
 * process is short-lived and uses SQLite from one thread
 * (callus_store_single_threaded), which is what this relies on: no lock,
 * and chunks given back only when the process ends, while freed blocks are
 * reused by the next allocation of their class.
 *
 * Not installed under AddressSanitizer: its checks of SQLite's use of
 * memory are worth more there than the speed.
 */
#include "sqlmem.h"
#include "callus/store.h"

#include <malloc.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SM_ALIGN 16u                        /* sizes rounded to it */
#define SM_SMALL_MAX 8192u                  /* larger blocks: malloc */
#define SM_CLASSES (SM_SMALL_MAX / SM_ALIGN)
/* Chunks of 256 KB, from the C library's heap, page-aligned: where a large
 * output's copies were freed (its capture, once read: cli_record_failure),
 * the store's memory takes their pages, already faulted in, where chunks
 * of their own took fresh ones: a megabyte of distinct errors recorded,
 * 1,134 -> 995 page faults, the repeated one 890 -> 824 (the hook's minor
 * faults, bench/proctime.c in bench/record1m.sh's workspaces, 11 runs;
 * docs/scale-history.md, the eightieth pass).  Chunks were mappings of 2 MB
 * of their own until then: one for a huge page first (MADV_HUGEPAGE), which
 * saved faults where each cost 10 microseconds, but a huge page is backed
 * whole, and on virtual machines that hand free memory back to their host
 * (a Firecracker microVM's free page reporting) a process met one the host
 * had to back again, 4 KB at a time, in one hook of two or more, 5 ms each
 * time (bench/spaced.sh, the nineteenth pass). */
#define SM_CHUNK (256u * 1024u)
/* Where the blocks reach, the chunk's pages are faulted in ahead, this many
 * bytes at a time, by one madvise(MADV_POPULATE_WRITE) (Linux 5.14):
 * about 300 page faults of a failing hook, most of them SQLite's page
 * cache taking a fresh slot for each page it reads, were 300 traps into
 * the kernel, each dearer in a virtual machine; in runs of 64 they cost a
 * hook 447 -> 154 faults and 0.2 to 0.3 ms (docs/scale-history.md, the twentieth
 * pass).  What the last run faults in and no block uses is at most this
 * much zeroed memory, once. */
#define SM_FILL (256u * 1024u)

/* AddressSanitizer sees SQLite's use of memory only through malloc */
#if defined(__SANITIZE_ADDRESS__)
#define SM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SM_ASAN 1
#endif
#endif

/* Before every block: the payload's usable size, and whether it came
 * from malloc.  Two words: the payload stays as aligned as the chunk (16
 * bytes on 64-bit machines; SQLite needs 8). */
typedef struct sm_header {
	size_t size;
	size_t big;
} sm_header;
_Static_assert(sizeof(sm_header) % 8 == 0, "a header keeps the payload aligned");

typedef struct sm_chunk {
	struct sm_chunk *next;
} sm_chunk;

/* A freed block of a class, on its class's list. */
typedef struct sm_free {
	struct sm_free *next;
} sm_free;

static struct {
	unsigned char *cur, *end;       /* the current chunk's unused part */
	sm_free *free[SM_CLASSES];      /* freed blocks by class */
	sm_chunk *chunks;               /* every chunk, reachable to the end */
	unsigned char *filled;          /* the current chunk faulted in up to */
	int no_fill;                    /* the kernel cannot: pages fault singly */
} sm;

/* A new chunk of SM_CHUNK bytes, or NULL. */
static void *chunk_new(void)
{
	long page = sysconf(_SC_PAGESIZE);

	/* page-aligned, for fill_to()'s madvise; the heap's memory is never
	 * handed back (cli_sqlmem_process) */
	return aligned_alloc(page > 0 && SM_CHUNK % (size_t)page == 0 ? (size_t)page : 4096, SM_CHUNK);
}

/* Fault in the pages of the current chunk up to past `to`, SM_FILL bytes
 * at a time; a kernel without MADV_POPULATE_WRITE is asked once. */
static void fill_to(unsigned char *to)
{
#ifdef MADV_POPULATE_WRITE
	size_t len = SM_FILL;

	if (sm.no_fill || to <= sm.filled)
		return;
	while (sm.filled + len < to)
		len += SM_FILL;
	if (len > (size_t)(sm.end - sm.filled))
		len = (size_t)(sm.end - sm.filled);
	if (madvise(sm.filled, len, MADV_POPULATE_WRITE) == 0)
		sm.filled += len;
	else
		sm.no_fill = 1;
#else
	(void)to;
#endif
}

static size_t round_up(size_t n)
{
	return n ? (n + SM_ALIGN - 1) & ~(size_t)(SM_ALIGN - 1) : SM_ALIGN;
}

static void *sm_malloc(int n)
{
	size_t size;
	sm_header *b;

	if (n < 0)
		return NULL;
	size = round_up((size_t)n);
	if (size > SM_SMALL_MAX) {
		if (!(b = malloc(sizeof(*b) + size)))
			return NULL;
		b->big = 1;
	} else if (sm.free[size / SM_ALIGN - 1]) {
		sm_free *f = sm.free[size / SM_ALIGN - 1];

		sm.free[size / SM_ALIGN - 1] = f->next;
		return f;
	} else {
		if ((size_t)(sm.end - sm.cur) < sizeof(*b) + size) {
			sm_chunk *c = chunk_new();

			if (!c)
				return NULL;
			c->next = sm.chunks;
			sm.chunks = c;
			/* what the old chunk had left, less than this block, stays
			 * unused; the new one's link takes a header's room, so
			 * that its blocks are as aligned as the chunk */
			sm.cur = (unsigned char *)c + sizeof(sm_header);
			sm.end = (unsigned char *)c + SM_CHUNK;
			sm.filled = (unsigned char *)c;
		}
		b = (sm_header *)(void *)sm.cur;
		sm.cur += sizeof(*b) + size;
		fill_to(sm.cur);
		b->big = 0;
	}
	b->size = size;
	return b + 1;
}

static sm_header *header_of(void *p)
{
	return (sm_header *)p - 1;
}

static void sm_free_block(void *p)
{
	sm_header *b;
	sm_free *f = p;

	if (!p)
		return;
	b = header_of(p);
	if (b->big) {
		free(b);
		return;
	}
	f->next = sm.free[b->size / SM_ALIGN - 1];
	sm.free[b->size / SM_ALIGN - 1] = f;
}

static int sm_size(void *p)
{
	return p ? (int)header_of(p)->size : 0;
}

static void *sm_realloc(void *p, int n)
{
	sm_header *b;
	void *q;
	size_t have, size;

	if (!p)
		return sm_malloc(n);
	if (n < 0)
		return NULL;
	b = header_of(p);
	have = b->size;
	size = round_up((size_t)n);
	/* a small block keeps its class (shrunk in place, it would go back
	 * to the wrong list); a large one stays malloc's, which may grow it
	 * in place */
	if (size == have)
		return p;
	if (b->big && size > SM_SMALL_MAX) {
		if (!(b = realloc(b, sizeof(*b) + size)))
			return NULL;
		b->size = size;
		return b + 1;
	}
	if (!(q = sm_malloc(n)))
		return NULL;
	memcpy(q, p, have < size ? have : size);
	sm_free_block(p);
	return q;
}

static int sm_roundup(int n)
{
	return n < 0 ? n : (int)round_up((size_t)n);
}

static int sm_init(void *arg)
{
	(void)arg;
	return SQLITE_OK;
}

static void sm_shutdown(void *arg)
{
	(void)arg;
}

static const sqlite3_mem_methods methods = {
	sm_malloc, sm_free_block, sm_realloc, sm_size, sm_roundup, sm_init, sm_shutdown, NULL,
};

int cli_sqlmem_install(void)
{
#ifdef SM_ASAN
	(void)methods;
	return 0;
#else
	/* and no bulk allocation of pages at a connection's start (20 pages
	 * in one malloc too large for the classes): every page of the cache
	 * from the chunks */
	if (sqlite3_config(SQLITE_CONFIG_MALLOC, &methods) != SQLITE_OK)
		return 0;
	(void)sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
	return 1;
#endif
}

/*
 * A large output is copied from stage to stage (read, decoded, cleaned,
 * captured, its build steps cut out), each copy a block of its size.  By
 * default glibc gives a block past 128 KB a mapping of its own, whose
 * pages are faulted in at its first use and handed back at its free; from
 * the heap instead, a block freed is reused by the next copy.  A megabyte
 * recorded: 2,827 -> 2,462 page faults, 18.6 -> 18.0 ms of CPU (three
 * rounds of bench/proctime; docs/scale-history.md, the twenty-first pass).  A
 * callus process is short-lived: what the heap keeps is the process's
 * until it ends.
 */
void cli_sqlmem_process(void)
{
	/* no command uses a store from two threads; SQLite's allocations,
	 * then, from size classes without a lock */
	callus_store_single_threaded();
	(void)cli_sqlmem_install();
#ifdef M_MMAP_THRESHOLD
	(void)mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
#endif
#ifdef M_TRIM_THRESHOLD
	/* nor is the heap's top handed back when a block there is freed (at
	 * 128 KB, glibc's default, it was, and the next copy faulted the same
	 * pages in again): a megabyte recorded, with the spool's text freed
	 * once written (cli_spool_write), 1,822 -> 1,465 page faults */
	(void)mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
#endif
}
