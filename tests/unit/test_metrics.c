#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "deja/buf.h"
#include "deja/lesson.h"
#include "deja/metrics.h"
#include "deja/store.h"

typedef struct fixture {
	char dir[64];
	char path[96];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/deja-metrics-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/deja.db", f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* What promtool's linter insists on, checked here for every declared
 * metric, emitted or not yet. */
static void declarations_make_valid_prometheus_names(void **state)
{
	deja_buf name = DEJA_BUF_INIT, other = DEJA_BUF_INIT;
	double f;

	(void)state;
	for (int i = 0; i < DEJA_METRIC__COUNT; i++) {
		const deja_metric_def *d = deja_metric_def_get((deja_metric_id)i);

		assert_non_null(d);
		assert_int_equal(d->id, i);
		assert_ptr_equal(deja_metric_def_find(d->name), d);
		assert_true(d->help && *d->help);
		assert_int_equal(deja_metric_prom_name(&name, &f, d), 0);
		assert_int_equal(strspn(name.ptr, "abcdefghijklmnopqrstuvwxyz0123456789_"),
				 name.len);
		assert_false(strstr(name.ptr, "_ms"));
		if (d->type == DEJA_METRIC_TYPE_COUNTER)
			assert_true(ends_with(name.ptr, "_total"));
		if (d->type != DEJA_METRIC_TYPE_HISTOGRAM) {
			assert_false(ends_with(name.ptr, "_count") || ends_with(name.ptr, "_sum") ||
				     ends_with(name.ptr, "_bucket"));
			assert_int_equal(d->nbuckets, 0);
		} else {
			assert_true(d->nbuckets > 0);
			for (size_t b = 1; b < d->nbuckets; b++)
				assert_true(d->buckets[b - 1] < d->buckets[b]);
		}
		for (int j = 0; j < i; j++) {
			assert_int_equal(deja_metric_prom_name(
					     &other, &f, deja_metric_def_get((deja_metric_id)j)),
					 0);
			assert_string_not_equal(other.ptr, name.ptr);
		}
	}
	assert_null(deja_metric_def_find("no.such.metric"));
	assert_int_equal(
	    deja_metric_prom_name(&name, &f, deja_metric_def_get(DEJA_METRIC_HOOK_LATENCY)), 0);
	assert_string_equal(name.ptr, "deja_hook_latency_seconds");
	assert_true(f == 0.001);
	assert_int_equal(deja_metric_prom_name(
			     &name, &f, deja_metric_def_get(DEJA_METRIC_RESOLUTION_APPLICATIONS)),
			 0);
	assert_string_equal(name.ptr, "hindsight_resolution_applications_total");
	deja_buf_release(&name);
	deja_buf_release(&other);
}

/* One series of every declared metric, label values that need escaping. */
static deja_metrics *every_metric(void)
{
	static const char *const values[] = { "a\"b", "c\\d", "e\nf", "plain" };
	deja_metrics *m = NULL;

	assert_int_equal(deja_metrics_new(&m), 0);
	for (int i = 0; i < DEJA_METRIC__COUNT; i++) {
		const deja_metric_def *d = deja_metric_def_get((deja_metric_id)i);
		const char *const *labels = deja_metric_nlabels(d) ? values : NULL;

		switch (d->type) {
		case DEJA_METRIC_TYPE_COUNTER:
			assert_int_equal(deja_metrics_add(m, d->id, labels, 3), 0);
			break;
		case DEJA_METRIC_TYPE_GAUGE:
			assert_int_equal(deja_metrics_set(m, d->id, labels, 7), 0);
			break;
		case DEJA_METRIC_TYPE_HISTOGRAM:
			assert_int_equal(deja_metrics_observe(m, d->id, labels, d->buckets[0]), 0);
			assert_int_equal(deja_metrics_observe(m, d->id, labels, 1e9), 0);
			break;
		}
	}
	return m;
}

static void records_and_renders(void **state)
{
	static const char *const lint[] = { "LINT", "project" };
	static const char *const hook[] = { "claude-code", "record" };
	deja_metrics *m = NULL;
	deja_buf out = DEJA_BUF_INIT;

	(void)state;
	assert_int_equal(deja_metrics_new(&m), 0);
	assert_true(deja_metrics_is_empty(m));
	assert_int_equal(deja_metrics_add(m, DEJA_METRIC_CAPTURE_TOTAL, lint, 1), 0);
	assert_int_equal(deja_metrics_add(m, DEJA_METRIC_CAPTURE_TOTAL, lint, 2), 0);
	/* the wrong kind of call for the metric is refused */
	assert_int_equal(deja_metrics_observe(m, DEJA_METRIC_CAPTURE_TOTAL, lint, 1), DEJA_EINVAL);
	assert_int_equal(deja_metrics_observe(m, DEJA_METRIC_HOOK_LATENCY, hook, 0.5), 0);
	assert_int_equal(deja_metrics_observe(m, DEJA_METRIC_HOOK_LATENCY, hook, 30), 0);
	assert_int_equal(deja_metrics_observe(m, DEJA_METRIC_HOOK_LATENCY, hook, 99999), 0);
	assert_int_equal(deja_metrics_render_prometheus(&out, m), 0);
	assert_non_null(
	    strstr(out.ptr, "# TYPE hindsight_capture_total counter\n"
			    "hindsight_capture_total{error_type=\"LINT\",layer=\"project\"} 3\n"));
	assert_non_null(strstr(out.ptr, "# TYPE deja_hook_latency_seconds histogram\n"));
	assert_non_null(strstr(out.ptr, "deja_hook_latency_seconds_bucket{agent=\"claude-code\","
					"path=\"record\",le=\"0.001\"} 1\n"));
	assert_non_null(strstr(out.ptr, "le=\"0.05\"} 2\n"));
	assert_non_null(strstr(out.ptr, "le=\"5\"} 2\n"));
	assert_non_null(strstr(out.ptr, "le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(out.ptr, "deja_hook_latency_seconds_sum{agent=\"claude-code\","
					"path=\"record\"} 100.0295\n"));
	assert_non_null(strstr(out.ptr, "deja_hook_latency_seconds_count{agent=\"claude-code\","
					"path=\"record\"} 3\n"));
	/* nothing emitted, nothing printed */
	assert_null(strstr(out.ptr, "hindsight_match"));
	deja_buf_release(&out);
	deja_metrics_free(m);
}

static int copy_row(void *ctx, const deja_metric_row *r)
{
	return deja_metrics_add_row(ctx, r);
}

static void rows_round_trip(void **state)
{
	deja_metrics *m = every_metric(), *back = NULL;
	deja_buf a = DEJA_BUF_INIT, b = DEJA_BUF_INIT;
	deja_metric_row unknown = { "from.a.newer.deja", "{}", "", 1, 0 };

	(void)state;
	assert_int_equal(deja_metrics_new(&back), 0);
	assert_int_equal(deja_metrics_each_row(m, copy_row, back), 0);
	assert_int_equal(deja_metrics_add_row(back, &unknown), 0);
	assert_int_equal(deja_metrics_render_prometheus(&a, m), 0);
	assert_int_equal(deja_metrics_render_prometheus(&b, back), 0);
	assert_string_equal(a.ptr, b.ptr);
	/* merged twice: counters and histograms double, gauges stay */
	assert_int_equal(deja_metrics_merge(back, m), 0);
	deja_buf_clear(&b);
	assert_int_equal(deja_metrics_render_prometheus(&b, back), 0);
	assert_non_null(strstr(b.ptr, "hindsight_capture_total{error_type=\"a\\\"b\","
				      "layer=\"c\\\\d\"} 6\n"));
	assert_non_null(strstr(b.ptr, "hindsight_storage_notes{layer=\"a\\\"b\"} 7\n"));
	deja_metrics_free(back);
	deja_metrics_free(m);
	deja_buf_release(&a);
	deja_buf_release(&b);
}

/* Every declared metric through promtool's parser and linter, when it is
 * installed (scripts/install-deps.sh installs it). */
static void promtool_accepts_every_metric(void **state)
{
	deja_metrics *m = every_metric();
	deja_buf out = DEJA_BUF_INIT;
	json_t *j;
	FILE *p;

	(void)state;
	assert_int_equal(deja_metrics_render_prometheus(&out, m), 0);
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		assert_non_null(p = popen("promtool check metrics", "w"));
		assert_int_equal(fwrite(out.ptr, 1, out.len, p), out.len);
		assert_int_equal(pclose(p), 0);
	} else {
		fprintf(stderr, "# promtool not found: its check skipped\n");
	}
	deja_buf_clear(&out);
	assert_int_equal(deja_metrics_render_json(&out, m), 0);
	assert_non_null(j = json_loads(out.ptr, 0, NULL));
	assert_int_equal(json_array_size(json_object_get(j, "metrics")), DEJA_METRIC__COUNT);
	json_decref(j);
	deja_buf_release(&out);
	deja_metrics_free(m);
}

static void spool_keeps_and_gives_back(void **state)
{
	static const char *const locked[] = { "store_locked" };
	fixture *f = *state;
	deja_metrics *m = NULL, *got = NULL;
	deja_buf out = DEJA_BUF_INIT, spool = DEJA_BUF_INIT;
	struct stat st;

	assert_int_equal(deja_metrics_new(&m), 0);
	assert_int_equal(deja_metrics_new(&got), 0);
	deja_buf_printf(&spool, "%s/%s", f->dir, DEJA_METRICS_SPOOL);
	assert_int_equal(deja_metrics_spool_read(got, f->dir, 1), 0); /* none yet */
	assert_true(deja_metrics_is_empty(got));
	assert_int_equal(deja_metrics_add(m, DEJA_METRIC_FAILSAFE_DROPPED, locked, 1), 0);
	assert_int_equal(deja_metrics_spool_put(m, f->dir), 0);
	assert_int_equal(deja_metrics_spool_put(m, f->dir), 0);
	assert_int_equal(stat(spool.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a peek leaves it, a take removes it */
	assert_int_equal(deja_metrics_spool_read(got, f->dir, 0), 0);
	assert_int_equal(stat(spool.ptr, &st), 0);
	deja_metrics_clear(got);
	assert_int_equal(deja_metrics_spool_read(got, f->dir, 1), 0);
	assert_int_equal(stat(spool.ptr, &st), -1);
	assert_int_equal(deja_metrics_render_prometheus(&out, got), 0);
	assert_non_null(
	    strstr(out.ptr, "deja_failsafe_dropped_total{reason=\"store_locked\"} 2\n"));
	/* a directory that cannot take it: best effort, no crash */
	assert_int_equal(deja_metrics_spool_put(m, "/nonexistent/deja"), -1);
	deja_metrics_free(m);
	deja_metrics_free(got);
	deja_buf_release(&out);
	deja_buf_release(&spool);
}

static void store_adds_up_in_the_data_transaction(void **state)
{
	static const char *const yes[] = { "true" };
	fixture *f = *state;
	deja_store *s = NULL;
	deja_error err = DEJA_ERROR_INIT;
	deja_metrics *m = NULL, *got = NULL;
	deja_run_info run;
	deja_buf out = DEJA_BUF_INIT;
	deja_lesson l;

	assert_int_equal(deja_store_open(&s, f->path, 1000, &err), 0);
	assert_int_equal(deja_metrics_new(&m), 0);
	assert_int_equal(deja_metrics_new(&got), 0);
	memset(&l, 0, sizeof(l));
	l.file = strdup("src/a.c");
	l.error_summary = strdup("src/a.c:1:1: error: x");
	l.tool = strdup("make");
	l.command = strdup("make");
	assert_int_equal(deja_lesson_sign(&l), 0);
	memset(&run, 0, sizeof(run));
	run.cwd = "";
	run.metrics = m;
	assert_int_equal(deja_metrics_add(m, DEJA_METRIC_RUN_TOTAL, yes, 1), 0);
	assert_int_equal(deja_store_record_lesson(s, &l, &run, NULL, &err), 0);
	assert_true(deja_metrics_is_empty(m)); /* written: emptied */
	assert_int_equal(deja_metrics_add(m, DEJA_METRIC_RUN_TOTAL, yes, 2), 0);
	assert_int_equal(deja_store_flush_metrics(s, m, &err), 0);
	assert_true(deja_metrics_is_empty(m));
	assert_int_equal(deja_store_read_metrics(s, got, &err), 0);
	assert_int_equal(deja_metrics_render_prometheus(&out, got), 0);
	assert_non_null(strstr(out.ptr, "deja_run_total{recorded=\"true\"} 3\n"));
	assert_non_null(strstr(out.ptr, "hindsight_storage_notes{layer=\"project\"} 1\n"));
	deja_lesson_release(&l);
	deja_metrics_free(m);
	deja_metrics_free(got);
	deja_buf_release(&out);
	deja_store_close(s);
	deja_error_release(&err);
}

/* Processes that flush at the same time lose nothing: upserts add. */
static void concurrent_processes_add_up(void **state)
{
	static const char *const yes[] = { "true" };
	enum { PROCS = 8, FLUSHES = 25 };
	fixture *f = *state;
	deja_store *s = NULL;
	deja_metrics *got = NULL;
	deja_buf out = DEJA_BUF_INIT;
	char want[64];

	/* created (and migrated) once, as deja does before its writers */
	assert_int_equal(deja_store_open(&s, f->path, 10000, NULL), 0);
	deja_store_close(s);
	for (int p = 0; p < PROCS; p++) {
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			deja_metrics *m = NULL;
			int bad = deja_store_open(&s, f->path, 10000, NULL) < 0 ||
				  deja_metrics_new(&m) < 0;

			for (int i = 0; !bad && i < FLUSHES; i++)
				bad = deja_metrics_add(m, DEJA_METRIC_RUN_TOTAL, yes, 1) < 0 ||
				      deja_metrics_observe(m, DEJA_METRIC_CAPTURE_SIGNATURE_SIZE,
							   NULL, 100) < 0 ||
				      deja_store_flush_metrics(s, m, NULL) < 0;
			deja_metrics_free(m);
			deja_store_close(s);
			_exit(bad);
		}
	}
	for (int p = 0; p < PROCS; p++) {
		int status;

		assert_true(wait(&status) > 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(deja_store_open(&s, f->path, 10000, NULL), 0);
	assert_int_equal(deja_metrics_new(&got), 0);
	assert_int_equal(deja_store_read_metrics(s, got, NULL), 0);
	assert_int_equal(deja_metrics_render_prometheus(&out, got), 0);
	snprintf(want, sizeof(want), "deja_run_total{recorded=\"true\"} %d\n", PROCS * FLUSHES);
	assert_non_null(strstr(out.ptr, want));
	snprintf(want, sizeof(want), "signature_size_bytes_bucket{le=\"128\"} %d\n",
		 PROCS * FLUSHES);
	assert_non_null(strstr(out.ptr, want));
	deja_metrics_free(got);
	deja_buf_release(&out);
	deja_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(declarations_make_valid_prometheus_names),
		cmocka_unit_test(records_and_renders),
		cmocka_unit_test(rows_round_trip),
		cmocka_unit_test(promtool_accepts_every_metric),
		cmocka_unit_test_setup_teardown(spool_keeps_and_gives_back, setup, teardown),
		cmocka_unit_test_setup_teardown(store_adds_up_in_the_data_transaction, setup,
						teardown),
		cmocka_unit_test_setup_teardown(concurrent_processes_add_up, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
