#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/lesson.h"
#include "callus/metrics.h"
#include "callus/store.h"

typedef struct fixture {
	char dir[64];
	char path[96];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-metrics-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/callus.db", f->dir);
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
	callus_buf name = CALLUS_BUF_INIT, other = CALLUS_BUF_INIT;
	double f;

	(void)state;
	for (int i = 0; i < CALLUS_METRIC__COUNT; i++) {
		const callus_metric_def *d = callus_metric_def_get((callus_metric_id)i);

		assert_non_null(d);
		assert_int_equal(d->id, i);
		assert_ptr_equal(callus_metric_def_find(d->name), d);
		assert_true(d->help && *d->help);
		assert_int_equal(callus_metric_prom_name(&name, &f, d), 0);
		assert_int_equal(strspn(name.ptr, "abcdefghijklmnopqrstuvwxyz0123456789_"),
				 name.len);
		assert_false(strstr(name.ptr, "_ms"));
		if (d->type == CALLUS_METRIC_TYPE_COUNTER)
			assert_true(ends_with(name.ptr, "_total"));
		if (d->type != CALLUS_METRIC_TYPE_HISTOGRAM) {
			assert_false(ends_with(name.ptr, "_count") || ends_with(name.ptr, "_sum") ||
				     ends_with(name.ptr, "_bucket"));
			assert_int_equal(d->nbuckets, 0);
		} else {
			assert_true(d->nbuckets > 0);
			for (size_t b = 1; b < d->nbuckets; b++)
				assert_true(d->buckets[b - 1] < d->buckets[b]);
		}
		for (int j = 0; j < i; j++) {
			assert_int_equal(callus_metric_prom_name(
					     &other, &f, callus_metric_def_get((callus_metric_id)j)),
					 0);
			assert_string_not_equal(other.ptr, name.ptr);
		}
	}
	assert_null(callus_metric_def_find("no.such.metric"));
	assert_int_equal(
	    callus_metric_prom_name(&name, &f, callus_metric_def_get(CALLUS_METRIC_HOOK_LATENCY)), 0);
	assert_string_equal(name.ptr, "callus_hook_latency_seconds");
	assert_true(f == 0.001);
	assert_int_equal(callus_metric_prom_name(
			     &name, &f, callus_metric_def_get(CALLUS_METRIC_RESOLUTION_APPLICATIONS)),
			 0);
	assert_string_equal(name.ptr, "hindsight_resolution_applications_total");
	callus_buf_release(&name);
	callus_buf_release(&other);
}

/* One series of every declared metric, label values that need escaping. */
static callus_metrics *every_metric(void)
{
	static const char *const values[] = { "a\"b", "c\\d", "e\nf", "plain" };
	callus_metrics *m = NULL;

	assert_int_equal(callus_metrics_new(&m), 0);
	for (int i = 0; i < CALLUS_METRIC__COUNT; i++) {
		const callus_metric_def *d = callus_metric_def_get((callus_metric_id)i);
		const char *const *labels = callus_metric_nlabels(d) ? values : NULL;

		switch (d->type) {
		case CALLUS_METRIC_TYPE_COUNTER:
			assert_int_equal(callus_metrics_add(m, d->id, labels, 3), 0);
			break;
		case CALLUS_METRIC_TYPE_GAUGE:
			assert_int_equal(callus_metrics_set(m, d->id, labels, 7), 0);
			break;
		case CALLUS_METRIC_TYPE_HISTOGRAM:
			assert_int_equal(callus_metrics_observe(m, d->id, labels, d->buckets[0]), 0);
			assert_int_equal(callus_metrics_observe(m, d->id, labels, 1e9), 0);
			break;
		}
	}
	return m;
}

static void records_and_renders(void **state)
{
	static const char *const lint[] = { "LINT", "project" };
	static const char *const hook[] = { "claude-code", "record" };
	callus_metrics *m = NULL;
	callus_buf out = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(callus_metrics_new(&m), 0);
	assert_true(callus_metrics_is_empty(m));
	assert_int_equal(callus_metrics_add(m, CALLUS_METRIC_CAPTURE_TOTAL, lint, 1), 0);
	assert_int_equal(callus_metrics_add(m, CALLUS_METRIC_CAPTURE_TOTAL, lint, 2), 0);
	/* the wrong kind of call for the metric is refused */
	assert_int_equal(callus_metrics_observe(m, CALLUS_METRIC_CAPTURE_TOTAL, lint, 1), CALLUS_EINVAL);
	assert_int_equal(callus_metrics_observe(m, CALLUS_METRIC_HOOK_LATENCY, hook, 0.5), 0);
	assert_int_equal(callus_metrics_observe(m, CALLUS_METRIC_HOOK_LATENCY, hook, 30), 0);
	assert_int_equal(callus_metrics_observe(m, CALLUS_METRIC_HOOK_LATENCY, hook, 99999), 0);
	assert_int_equal(callus_metrics_render_prometheus(&out, m), 0);
	assert_non_null(
	    strstr(out.ptr, "# TYPE hindsight_capture_total counter\n"
			    "hindsight_capture_total{error_type=\"LINT\",layer=\"project\"} 3\n"));
	assert_non_null(strstr(out.ptr, "# TYPE callus_hook_latency_seconds histogram\n"));
	assert_non_null(strstr(out.ptr, "callus_hook_latency_seconds_bucket{agent=\"claude-code\","
					"path=\"record\",le=\"0.001\"} 1\n"));
	assert_non_null(strstr(out.ptr, "le=\"0.05\"} 2\n"));
	assert_non_null(strstr(out.ptr, "le=\"5\"} 2\n"));
	assert_non_null(strstr(out.ptr, "le=\"+Inf\"} 3\n"));
	assert_non_null(strstr(out.ptr, "callus_hook_latency_seconds_sum{agent=\"claude-code\","
					"path=\"record\"} 100.0295\n"));
	assert_non_null(strstr(out.ptr, "callus_hook_latency_seconds_count{agent=\"claude-code\","
					"path=\"record\"} 3\n"));
	/* nothing emitted, nothing printed */
	assert_null(strstr(out.ptr, "hindsight_match"));
	callus_buf_release(&out);
	callus_metrics_free(m);
}

static int copy_row(void *ctx, const callus_metric_row *r)
{
	return callus_metrics_add_row(ctx, r);
}

static void rows_round_trip(void **state)
{
	callus_metrics *m = every_metric(), *back = NULL;
	callus_buf a = CALLUS_BUF_INIT, b = CALLUS_BUF_INIT;
	callus_metric_row unknown = { "from.a.newer.callus", "{}", "", 1, 0 };
	/* a counter's row that would take it down: none callus writes */
	callus_metric_row down = { "callus.run.total", "{\"recorded\":\"true\"}", "", -100, 0 };
	callus_metric_row nan = { "callus.run.total", "{\"recorded\":\"true\"}", "", NAN, 0 };

	(void)state;
	assert_int_equal(callus_metrics_new(&back), 0);
	assert_int_equal(callus_metrics_each_row(m, copy_row, back), 0);
	assert_int_equal(callus_metrics_add_row(back, &unknown), 0);
	assert_int_equal(callus_metrics_add_row(back, &down), 0);
	assert_int_equal(callus_metrics_add_row(back, &nan), 0);
	assert_int_equal(callus_metrics_render_prometheus(&a, m), 0);
	assert_int_equal(callus_metrics_render_prometheus(&b, back), 0);
	assert_string_equal(a.ptr, b.ptr);
	/* merged twice: counters and histograms double, gauges stay */
	assert_int_equal(callus_metrics_merge(back, m), 0);
	callus_buf_clear(&b);
	assert_int_equal(callus_metrics_render_prometheus(&b, back), 0);
	assert_non_null(strstr(b.ptr, "hindsight_capture_total{error_type=\"a\\\"b\","
				      "layer=\"c\\\\d\"} 6\n"));
	assert_non_null(strstr(b.ptr, "hindsight_storage_notes{layer=\"a\\\"b\"} 7\n"));
	callus_metrics_free(back);
	callus_metrics_free(m);
	callus_buf_release(&a);
	callus_buf_release(&b);
}

/* Every declared metric through promtool's parser and linter, when it is
 * installed (scripts/install-deps.sh installs it). */
static void promtool_accepts_every_metric(void **state)
{
	callus_metrics *m = every_metric();
	callus_buf out = CALLUS_BUF_INIT;
	json_t *j;
	FILE *p;

	(void)state;
	assert_int_equal(callus_metrics_render_prometheus(&out, m), 0);
	if (system("command -v promtool >/dev/null 2>&1") == 0) {
		assert_non_null(p = popen("promtool check metrics", "w"));
		assert_int_equal(fwrite(out.ptr, 1, out.len, p), out.len);
		assert_int_equal(pclose(p), 0);
	} else {
		fprintf(stderr, "# promtool not found: its check skipped\n");
	}
	callus_buf_clear(&out);
	assert_int_equal(callus_metrics_render_json(&out, m), 0);
	assert_non_null(j = json_loads(out.ptr, 0, NULL));
	assert_int_equal(json_array_size(json_object_get(j, "metrics")), CALLUS_METRIC__COUNT);
	json_decref(j);
	callus_buf_release(&out);
	callus_metrics_free(m);
}

static void spool_keeps_and_gives_back(void **state)
{
	static const char *const locked[] = { "store_locked" };
	fixture *f = *state;
	callus_metrics *m = NULL, *got = NULL;
	callus_buf out = CALLUS_BUF_INIT, spool = CALLUS_BUF_INIT;
	struct stat st;
	ino_t ino;

	assert_int_equal(callus_metrics_new(&m), 0);
	assert_int_equal(callus_metrics_new(&got), 0);
	callus_buf_printf(&spool, "%s/%s", f->dir, CALLUS_METRICS_SPOOL);
	assert_int_equal(callus_metrics_spool_read(got, f->dir, 1), 0); /* none yet */
	assert_true(callus_metrics_is_empty(got));
	assert_int_equal(callus_metrics_add(m, CALLUS_METRIC_FAILSAFE_DROPPED, locked, 1), 0);
	assert_int_equal(callus_metrics_spool_put(m, f->dir), 0);
	assert_int_equal(callus_metrics_spool_put(m, f->dir), 0);
	assert_int_equal(stat(spool.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a peek leaves it, a take empties it in place (no inode made and
	 * freed a hook) to one blank line (a file cut to nothing is written
	 * out at its next writer's close), and the next put appends to the
	 * same file */
	assert_int_equal(callus_metrics_spool_read(got, f->dir, 0), 0);
	assert_int_equal(stat(spool.ptr, &st), 0);
	assert_true(st.st_size > 0);
	ino = st.st_ino;
	callus_metrics_clear(got);
	assert_int_equal(callus_metrics_spool_read(got, f->dir, 1), 0);
	assert_int_equal(stat(spool.ptr, &st), 0);
	assert_int_equal(st.st_size, 1);
	assert_true(st.st_ino == ino);
	assert_int_equal(callus_metrics_render_prometheus(&out, got), 0);
	assert_non_null(
	    strstr(out.ptr, "callus_failsafe_dropped_total{reason=\"store_locked\"} 2\n"));
	callus_metrics_clear(got);
	assert_int_equal(callus_metrics_spool_read(got, f->dir, 1), 0); /* taken: nothing */
	assert_true(callus_metrics_is_empty(got));
	assert_int_equal(stat(spool.ptr, &st), 0);
	assert_int_equal(st.st_size, 1);
	assert_int_equal(callus_metrics_spool_put(m, f->dir), 0);
	assert_int_equal(stat(spool.ptr, &st), 0);
	assert_true(st.st_ino == ino && st.st_size > 0);
	assert_int_equal(callus_metrics_spool_read(got, f->dir, 1), 0);
	assert_false(callus_metrics_is_empty(got));
	/* a directory that cannot take it: best effort, no crash */
	assert_int_equal(callus_metrics_spool_put(m, "/nonexistent/callus"), -1);
	callus_metrics_free(m);
	callus_metrics_free(got);
	callus_buf_release(&out);
	callus_buf_release(&spool);
}

static void store_adds_up_in_the_data_transaction(void **state)
{
	static const char *const yes[] = { "true" };
	fixture *f = *state;
	callus_store *s = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_metrics *m = NULL, *got = NULL;
	callus_run_info run;
	callus_buf out = CALLUS_BUF_INIT;
	callus_lesson l;

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	assert_int_equal(callus_metrics_new(&m), 0);
	assert_int_equal(callus_metrics_new(&got), 0);
	memset(&l, 0, sizeof(l));
	l.file = strdup("src/a.c");
	l.error_summary = strdup("src/a.c:1:1: error: x");
	l.tool = strdup("make");
	l.command = strdup("make");
	assert_int_equal(callus_lesson_sign(&l), 0);
	memset(&run, 0, sizeof(run));
	run.cwd = "";
	run.metrics = m;
	assert_int_equal(callus_metrics_add(m, CALLUS_METRIC_RUN_TOTAL, yes, 1), 0);
	assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, &err), 0);
	assert_true(callus_metrics_is_empty(m)); /* written: emptied */
	assert_int_equal(callus_metrics_add(m, CALLUS_METRIC_RUN_TOTAL, yes, 2), 0);
	assert_int_equal(callus_store_flush_metrics(s, m, &err), 0);
	assert_true(callus_metrics_is_empty(m));
	assert_int_equal(callus_store_read_metrics(s, got, &err), 0);
	assert_int_equal(callus_metrics_render_prometheus(&out, got), 0);
	assert_non_null(strstr(out.ptr, "callus_run_total{recorded=\"true\"} 3\n"));
	/* the storage count is the notes', per layer: none yet */
	assert_non_null(strstr(out.ptr, "hindsight_storage_notes{layer=\"project\"} 0\n"));
	assert_non_null(strstr(out.ptr, "hindsight_storage_notes{layer=\"session\"} 0\n"));
	callus_lesson_release(&l);
	callus_metrics_free(m);
	callus_metrics_free(got);
	callus_buf_release(&out);
	callus_store_close(s);
	callus_error_release(&err);
}

/* Processes that flush at the same time lose nothing: upserts add. */
static void concurrent_processes_add_up(void **state)
{
	static const char *const yes[] = { "true" };
	enum { PROCS = 8, FLUSHES = 25 };
	fixture *f = *state;
	callus_store *s = NULL;
	callus_metrics *got = NULL;
	callus_buf out = CALLUS_BUF_INIT;
	char want[64];

	/* created (and migrated) once, as callus does before its writers */
	assert_int_equal(callus_store_open(&s, f->path, 10000, NULL), 0);
	callus_store_close(s);
	for (int p = 0; p < PROCS; p++) {
		pid_t pid = fork();

		assert_true(pid >= 0);
		if (pid == 0) {
			callus_metrics *m = NULL;
			int bad = callus_store_open(&s, f->path, 10000, NULL) < 0 ||
				  callus_metrics_new(&m) < 0;

			for (int i = 0; !bad && i < FLUSHES; i++)
				bad = callus_metrics_add(m, CALLUS_METRIC_RUN_TOTAL, yes, 1) < 0 ||
				      callus_metrics_observe(m, CALLUS_METRIC_CAPTURE_SIGNATURE_SIZE,
							   NULL, 100) < 0 ||
				      callus_store_flush_metrics(s, m, NULL) < 0;
			callus_metrics_free(m);
			callus_store_close(s);
			_exit(bad);
		}
	}
	for (int p = 0; p < PROCS; p++) {
		int status;

		assert_true(wait(&status) > 0);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	assert_int_equal(callus_store_open(&s, f->path, 10000, NULL), 0);
	assert_int_equal(callus_metrics_new(&got), 0);
	assert_int_equal(callus_store_read_metrics(s, got, NULL), 0);
	assert_int_equal(callus_metrics_render_prometheus(&out, got), 0);
	snprintf(want, sizeof(want), "callus_run_total{recorded=\"true\"} %d\n", PROCS * FLUSHES);
	assert_non_null(strstr(out.ptr, want));
	snprintf(want, sizeof(want), "signature_size_bytes_bucket{le=\"128\"} %d\n",
		 PROCS * FLUSHES);
	assert_non_null(strstr(out.ptr, want));
	callus_metrics_free(got);
	callus_buf_release(&out);
	callus_store_close(s);
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
