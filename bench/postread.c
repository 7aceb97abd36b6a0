/*
 * postread - what reading a vector file's postings costs, the way a
 * search reads them (src/vecindex_postings.c: a block of
 * vi_post_block_size(256) bytes a pread into one buffer) against mapping
 * the file and touching every cache line of it, without and with
 * MAP_POPULATE.  The file is read once first (the page cache warm), then
 * each way N times in turn; CPU time of the process (getrusage).
 *
 * usage: postread FILE N
 * prints: one line a way, min / median / max microseconds of CPU.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vecindex_internal.h"

static double cpu_us(void)
{
	struct rusage r;

	getrusage(RUSAGE_SELF, &r);
	return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e6 + r.ru_utime.tv_usec +
	       r.ru_stime.tv_usec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* What the ways read, summed and printed: a sum no one uses is a loop the
 * compiler removes. */
static unsigned long sink;

/* One way over the file: 0 pread, 1 mapped, 2 mapped with MAP_POPULATE:
 * a byte of each cache line added to sink.  0, or -1 when it cannot. */
static int once(int fd, size_t len, unsigned char *buf, size_t bsize, int way)
{
	unsigned long sum = 0;

	if (way == 0) {
		for (size_t off = 0; off + bsize <= len; off += bsize) {
			if (pread(fd, buf, bsize, (off_t)off) != (ssize_t)bsize)
				return -1;
			for (size_t i = 0; i < bsize; i += 64)
				sum += buf[i];
		}
	} else {
		unsigned char *m = mmap(NULL, len, PROT_READ,
					MAP_SHARED | (way == 2 ? MAP_POPULATE : 0), fd, 0);

		if (m == MAP_FAILED)
			return -1;
		for (size_t i = 0; i < len; i += 64)
			sum += m[i];
		munmap(m, len);
	}
	sink += sum;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "pread, a block at a time", "mapped",
					     "mapped, MAP_POPULATE" };
	size_t bsize = vi_post_block_size(256), len;
	int n = argc > 2 ? atoi(argv[2]) : 0, fd;
	unsigned char *buf = malloc(bsize);
	double *t[3];
	struct stat st;

	if (argc != 3 || n < 1 || !buf) {
		fprintf(stderr, "usage: postread FILE N\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	len = (size_t)st.st_size;
	for (int w = 0; w < 3; w++)
		if (!(t[w] = malloc((size_t)n * sizeof(double))))
			return 1;
	if (once(fd, len, buf, bsize, 0) < 0)
		return 1;
	for (int i = 0; i < n; i++)
		for (int w = 0; w < 3; w++) {
			double a = cpu_us();

			if (once(fd, len, buf, bsize, w) < 0)
				return 1;
			t[w][i] = cpu_us() - a;
		}
	printf("%zu bytes, %d rounds (sum %lu)\n", len, n, sink);
	for (int w = 0; w < 3; w++) {
		qsort(t[w], (size_t)n, sizeof(double), cmp);
		printf("%-26s %.0f / %.0f / %.0f us\n", names[w], t[w][0], t[w][n / 2], t[w][n - 1]);
	}
	return 0;
}
