/*
 * bench/redact.c - throughput of callus_redact() on a few MB of output,
 * against copying the same bytes into a callus_buf (what the redactor must
 * do anyway), in the same run.  Driven by bench/redact.sh.
 *
 *   redact NAME MB RUNS FILE...
 *	concatenate FILE... and repeat them up to MB mebibytes, then redact
 *	that text RUNS times (and copy it RUNS times); prints one row
 *	"NAME|MiB|copy MB/s|redact MB/s|ms per MiB|replacements" with the
 *	median of the runs.  A FILE "-" stands for the built-in command
 *	lines (below): compiler, package manager and test runner lines dense
 *	in options, assignments, URLs, hashes and base64, and no secret.
 *
 * Wall-clock times, CLOCK_MONOTONIC; the redactor is created once, as the
 * CLI does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callus/buf.h"
#include "callus/redact.h"

/* Lines where every trigger of the redactor fires and nothing is a secret. */
static const char dense[] =
	"gcc -Wall -Wextra -O2 -g -pthread -pedantic -I/usr/include/x86_64-linux-gnu -DNDEBUG=1 -DVERSION=\\\"1.4.2\\\" -o build/src/redact.o -c src/redact.c\n"
	"cc -std=c11 -D_GNU_SOURCE -MMD -MP -c -o build/cli/main.o cli/main.c -lsqlite3 -ljansson -lpcre2-8 -lm\n"
	"docker run --rm -p 8080:80 -u 1000:1000 -e NODE_ENV=test -v $(pwd):/app -w /app node:20-alpine npm test\n"
	"mkdir -p build/tests && cp -p src/a.c build/ && tar -xzf pkg-1.2.3.tgz -C /tmp/x\n"
	"npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory.\n"
	"    \"integrity\": \"sha512-Q8Fz2Lr+Tn5Vb/Xk3Wm7Yc1Hd9Gs4Jp6Ae0Ru2IoZx0kQ3rP4sT5uV6wX7yZ8aB9cD0eF1gH2iJ3kL4mN5oP6q==\",\n"
	"    \"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\",\n"
	"commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main, origin/main)\n"
	"request 123e4567-e89b-12d3-a456-426614174000 failed: status=503 retry=3 timeout=30s\n"
	"sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/app.tar.gz\n"
	"  at Object.<anonymous> (/home/ci/work/app/src/auth/token.test.ts:42:19)\n"
	"src/auth/session.ts(12,5): error TS2322: Type '{ token: string; }' is not assignable to type 'Session'.\n"
	"FAILED tests/test_auth.py::test_password_reset[case-3] - AssertionError: assert 401 == 200\n"
	"cargo test -p my-crate --features=serde,json -- --nocapture --test-threads=1\n"
	"python -m pytest -p no:cacheprovider -k \"not slow\" --maxfail=1 tests/ --cov=app\n"
	"  expected: {\"key\": \"value\", \"id\": 42, \"url\": \"http://localhost:3000/api/v1/items?page=2&per_page=50\"}\n"
	"snapshot: eyJmb28iOiJiYXIiLCJiYXoiOlsxLDIsM119 data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ\n"
	"- item one: ok\n- item two: ok -- see https://example.com/docs/a-b-c#section-2\n";

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int read_file(callus_buf *b, const char *path)
{
	FILE *f;
	char chunk[65536];
	size_t n;

	if (strcmp(path, "-") == 0)
		return callus_buf_puts(b, dense);
	if (!(f = fopen(path, "rb")))
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		callus_buf_put(b, chunk, n);
	fclose(f);
	return callus_buf_status(b);
}

int main(int argc, char **argv)
{
	callus_buf one = CALLUS_BUF_INIT, in = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	callus_redactor *r = NULL;
	double *tc, *tr, mib;
	size_t want, count = 0;
	int runs, rc = 1;

	if (argc < 5) {
		fprintf(stderr, "usage: redact NAME MB RUNS FILE...\n");
		return 2;
	}
	want = (size_t)strtoul(argv[2], NULL, 10) << 20;
	runs = (int)strtol(argv[3], NULL, 10);
	if (runs < 1 || want == 0)
		return 2;
	for (int i = 4; i < argc; i++)
		if (read_file(&one, argv[i]) < 0) {
			fprintf(stderr, "redact: cannot read %s\n", argv[i]);
			return 1;
		}
	if (one.len == 0)
		return 1;
	while (in.len < want)
		callus_buf_put(&in, one.ptr, one.len);
	tc = calloc((size_t)runs, sizeof(double));
	tr = calloc((size_t)runs, sizeof(double));
	if (!tc || !tr || callus_buf_status(&in) < 0 || callus_redactor_new(&r, NULL) < 0)
		goto out;
	for (int k = 0; k < runs; k++) {
		double t0;

		callus_buf_clear(&out);
		t0 = now_ms();
		callus_buf_put(&out, in.ptr, in.len);
		tc[k] = now_ms() - t0;
		callus_buf_release(&out);
		t0 = now_ms();
		if (callus_redact(r, &out, in.ptr, in.len, &count) < 0)
			goto out;
		tr[k] = now_ms() - t0;
		callus_buf_release(&out);
	}
	qsort(tc, (size_t)runs, sizeof(double), cmp_double);
	qsort(tr, (size_t)runs, sizeof(double), cmp_double);
	mib = (double)in.len / (1 << 20);
	printf("%s|%.1f|%.0f|%.0f|%.2f|%zu\n", argv[1], mib, mib / (tc[runs / 2] / 1e3),
	       mib / (tr[runs / 2] / 1e3), tr[runs / 2] / mib, count);
	rc = 0;
out:
	free(tc);
	free(tr);
	callus_redactor_free(r);
	callus_buf_release(&one);
	callus_buf_release(&in);
	callus_buf_release(&out);
	return rc;
}
