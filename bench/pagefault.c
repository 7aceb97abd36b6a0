/*
 * pagefault - what touching fresh memory costs on this machine: 2 MB of
 * anonymous memory written one byte a 4 KB page, (a) as it comes (a fault
 * a page), (b) mapped with MAP_POPULATE (the pages made in one call), (c)
 * in a 2 MB region aligned to it with madvise(MADV_HUGEPAGE) (one huge
 * page where the kernel has them), the way cli/sqlmem.c takes SQLite's
 * memory; and with FILE, (d) 2 MB of FILE mapped read-only and read one byte
 * a 4 KB page, as a program's code is first run: a fault maps the pages
 * around it that the page cache holds (the kernel's fault-around), so the
 * faults are fewer than the pages, and what one costs is what a 64 KB
 * stretch of code first run costs (cli/text-order.ld).  Each way N times, a
 * fresh mapping each, unmapped after.
 *
 * usage: pagefault N [FILE]   (FILE: at least 2 MB)
 * prints: one line a way, min / median / max ms (and for FILE the faults a
 *         touch took, and the median ms a fault).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define SIZE (2u * 1024u * 1024u)

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One touch of SIZE bytes the given way; its ms, or -1. */
static double touch(int way)
{
	unsigned char *p, *a;
	size_t len = way == 2 ? 2 * (size_t)SIZE : SIZE;
	double t = now_ms();

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | (way == 1 ? MAP_POPULATE : 0), -1, 0);
	if (p == MAP_FAILED)
		return -1;
	a = p;
	if (way == 2) {
		a = (unsigned char *)(((uintptr_t)p + SIZE - 1) & ~(uintptr_t)(SIZE - 1));
		(void)madvise(a, SIZE, MADV_HUGEPAGE);
	}
	for (size_t i = 0; i < SIZE; i += 4096)
		a[i] = 1;
	t = now_ms() - t;
	munmap(p, len);
	return t;
}

/* 2 MB of fd read a byte a 4 KB page from a fresh mapping; its ms, or -1;
 * *faults, the minor faults it took. */
static double touch_file(int fd, long *faults)
{
	struct rusage a, b;
	volatile unsigned char sum = 0;
	const unsigned char *p;
	double t;

	getrusage(RUSAGE_SELF, &a);
	t = now_ms();
	p = mmap(NULL, SIZE, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	for (size_t i = 0; i < SIZE; i += 4096)
		sum += p[i];
	t = now_ms() - t;
	getrusage(RUSAGE_SELF, &b);
	munmap((void *)p, SIZE);
	*faults = b.ru_minflt - a.ru_minflt;
	return t;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "4 KB pages, a fault each", "MAP_POPULATE",
				       "one huge page (MADV_HUGEPAGE)" };
	int n = argc > 1 ? atoi(argv[1]) : 0;
	double *ms;

	if (n <= 0) {
		fprintf(stderr, "usage: pagefault N [FILE]\n");
		return 2;
	}
	if (!(ms = calloc((size_t)n, sizeof(*ms))))
		return 1;
	for (int way = 0; way < 3; way++) {
		for (int i = 0; i < n; i++)
			if ((ms[i] = touch(way)) < 0) {
				perror("pagefault");
				return 1;
			}
		qsort(ms, (size_t)n, sizeof(*ms), cmp);
		printf("| 2 MB touched | %s | %.3f | %.3f | %.3f |\n", names[way], ms[0], ms[n / 2],
		       ms[n - 1]);
	}
	if (argc > 2) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);
		long faults = 0;

		if (fd < 0 || lseek(fd, 0, SEEK_END) < (off_t)SIZE) {
			fprintf(stderr, "pagefault: %s: not a file of 2 MB or more\n", argv[2]);
			return 1;
		}
		for (int i = 0; i < n; i++)
			if ((ms[i] = touch_file(fd, &faults)) < 0) {
				perror("pagefault");
				return 1;
			}
		close(fd);
		qsort(ms, (size_t)n, sizeof(*ms), cmp);
		printf("| 2 MB of a file read | a byte a 4 KB page: %ld faults | %.3f | %.3f | %.3f |\n",
		       faults, ms[0], ms[n / 2], ms[n - 1]);
		if (faults > 0)
			printf("\na fault of the file's mapping: %.1f us (median)\n",
			       ms[n / 2] * 1e3 / (double)faults);
	}
	free(ms);
	return 0;
}
