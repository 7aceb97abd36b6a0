/*
 * payload - what reading a hook's payload costs callus (the generic agent's
 * callus_hook_event_parse: the long output decoded by callus, the rest by
 * jansson) against jansson alone reading the same text (json_loadb, which
 * callus used for all of it before: the baseline, in the same run).
 *
 * usage: payload FILE N
 * prints: the best and the median of N reads of each, in ms.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/hookio.h"

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	callus_buf text = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	int n = argc == 3 ? (int)strtol(argv[2], NULL, 10) : 0;
	double *t[2];

	if (n < 1 || callus_fs_read_file(&text, argv[1], 1u << 30, &err) < 0) {
		fprintf(stderr, "usage: payload FILE N (%s)\n", callus_error_message(&err));
		return 2;
	}
	t[0] = calloc((size_t)n, sizeof(double));
	t[1] = calloc((size_t)n, sizeof(double));
	for (int i = 0; i < n && t[0] && t[1]; i++) {
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		double a = now_ms();
		json_t *v;

		if (callus_hook_event_parse(&e, CALLUS_AGENT_GENERIC, text.ptr, text.len, &err) < 0) {
			fprintf(stderr, "payload: %s\n", callus_error_message(&err));
			return 1;
		}
		t[0][i] = now_ms() - a;
		callus_hook_event_release(&e);
		a = now_ms();
		if (!(v = json_loadb(text.ptr, text.len, 0, NULL))) {
			fprintf(stderr, "payload: jansson refuses %s\n", argv[1]);
			return 1;
		}
		t[1][i] = now_ms() - a;
		json_decref(v);
	}
	for (int k = 0; k < 2; k++) {
		qsort(t[k], (size_t)n, sizeof(double), cmp);
		printf("%s %.2f %.2f\n", k ? "jansson" : "callus", t[k][0], t[k][n / 2]);
	}
	free(t[0]);
	free(t[1]);
	callus_buf_release(&text);
	return 0;
}
