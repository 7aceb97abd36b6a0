/*
 * proctime - the CPU time (user + system) and wall time of a command, over
 * N runs, with stdin from a file.  Per-process figures from wait4(2), so
 * nothing of the harness itself is counted.
 *
 * usage: proctime N INPUT CMD [ARGS...]
 *   an INPUT with a %d in it names one file per run: %d is the run's
 *   number, from 0 (a different payload each time)
 * prints, on one line: min/median/max of CPU ms, of wall ms, and of the
 *   minor page faults (first touches of memory: ru_minflt).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 3 ? atoi(argv[1]) : 0;
	double *cpu, *wall, *faults;

	if (n <= 0) {
		fprintf(stderr, "usage: proctime N INPUT CMD [ARGS...]\n");
		return 2;
	}
	cpu = calloc((size_t)n, sizeof(double));
	wall = calloc((size_t)n, sizeof(double));
	faults = calloc((size_t)n, sizeof(double));
	if (!cpu || !wall || !faults) {
		perror("proctime");
		return 1;
	}
	for (int i = 0; i < n; i++) {
		struct timespec t0, t1;
		struct rusage ru;
		int status;
		pid_t pid;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		pid = fork();
		if (pid == 0) {
			char path[4096];
			int in, out;

			if (strstr(argv[2], "%d"))
				snprintf(path, sizeof(path), argv[2], i);
			else
				snprintf(path, sizeof(path), "%s", argv[2]);
			in = open(path, O_RDONLY);
			out = open("/dev/null", O_WRONLY);
			if (in < 0 || out < 0)
				_exit(126);
			dup2(in, 0);
			dup2(out, 1);
			dup2(out, 2);
			execvp(argv[3], argv + 3);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0) {
			perror("proctime");
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!WIFEXITED(status) || WEXITSTATUS(status) >= 126) {
			fprintf(stderr, "proctime: '%s' failed to run\n", argv[3]);
			return 1;
		}
		cpu[i] = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
			 (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
		wall[i] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
		faults[i] = (double)ru.ru_minflt;
	}
	qsort(cpu, (size_t)n, sizeof(double), cmp);
	qsort(wall, (size_t)n, sizeof(double), cmp);
	qsort(faults, (size_t)n, sizeof(double), cmp);
	printf("%.3f %.3f %.3f %.3f %.3f %.3f %.0f %.0f %.0f\n", cpu[0], cpu[n / 2], cpu[n - 1],
	       wall[0], wall[n / 2], wall[n - 1], faults[0], faults[n / 2], faults[n - 1]);
	free(cpu);
	free(wall);
	free(faults);
	return 0;
}
