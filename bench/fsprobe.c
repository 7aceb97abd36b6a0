/*
 * fsprobe - what creating a file costs in a directory right now: the
 * median microseconds of an open(O_CREAT | O_EXCL) there, over N files
 * (each written a byte, closed and removed).
 *
 * Why a benchmark needs it: on ext4 without a journal (this project's
 * test machines), the allocator skips any inode freed in the last minute
 * (six while its inode table is unwritten), reading the inode table for
 * each one; a harness that has just removed a copied workspace of
 * thousands of files, or grown a store whose retention removed
 * thousands of lesson files, makes every file the next minutes create
 * cost a hundred or more microseconds instead of ten, and a failing hook
 * creates five.  The benchmarks print this probe beside their timings and
 * wait for it to settle (bench/tools.sh: bench_settle).
 *
 * usage: fsprobe DIR [N]   (N: 20)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 20;
	double *us;
	char path[4096];

	if (argc < 2 || n <= 0) {
		fprintf(stderr, "usage: fsprobe DIR [N]\n");
		return 2;
	}
	if (!(us = calloc((size_t)n, sizeof(*us)))) {
		perror("fsprobe");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		double t0;
		int fd;

		snprintf(path, sizeof(path), "%s/.fsprobe-%ld-%d", argv[1], (long)getpid(), i);
		t0 = now_us();
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		us[i] = now_us() - t0;
		if (fd < 0) {
			perror(path);
			return 1;
		}
		if (write(fd, "x", 1) != 1)
			perror(path);
		close(fd);
		unlink(path);
	}
	qsort(us, (size_t)n, sizeof(*us), cmp);
	printf("%.1f\n", n % 2 ? us[n / 2] : (us[n / 2 - 1] + us[n / 2]) / 2);
	free(us);
	return 0;
}
