/*
 * test_hook_cut.c - the trace a hook cut with nothing queued leaves
 * (cli/hook_cut.c): its log line, dated (callus_time_iso8601_put, tested
 * in test_import.c), and its count in the metrics' spool, which a spool
 * held by another process does not wait for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../cli/hook_cut.h"
#include "callus/config.h"
#include "callus/log.h"
#include "callus/metrics.h"
#include "tmpdir_helpers.h"

#define LOG_BYTES ((long)CALLUS_LOG_DEFAULT_KB * 1024)

struct fixture {
	char dir[256];
	char callus[300];
	cli_workspace ws;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || test_tmpdir_make(f->dir, sizeof(f->dir), "cut") < 0)
		return -1;
	snprintf(f->callus, sizeof(f->callus), "%s/.callus", f->dir);
	if (mkdir(f->callus, 0700) < 0)
		return -1;
	f->ws.root = f->dir;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	test_tmpdir_remove(f->dir);
	callus_config_free(f->ws.config);
	free(f);
	return 0;
}

static double cuts_spooled(const struct fixture *f)
{
	callus_metrics *m = NULL;
	callus_buf out = CALLUS_BUF_INIT;
	json_t *doc, *metric, *series;
	double v = 0;
	size_t i, j;

	assert_int_equal(callus_metrics_new(&m), 0);
	assert_int_equal(callus_metrics_spool_read(m, f->callus, 0), 0);
	assert_int_equal(callus_metrics_render_json(&out, m), 0);
	assert_non_null(doc = json_loads(out.ptr, 0, NULL));
	json_array_foreach(json_object_get(doc, "metrics"), i, metric)
	{
		if (strcmp(json_string_value(json_object_get(metric, "name")),
			   "callus.hook.cut_total"))
			continue;
		json_array_foreach(json_object_get(metric, "series"), j, series)
		{
			assert_string_equal(json_string_value(json_object_get(
						    json_object_get(series, "labels"), "stage")),
					    "unqueued");
			v += json_number_value(json_object_get(series, "value"));
		}
	}
	json_decref(doc);
	callus_buf_release(&out);
	callus_metrics_free(m);
	return v;
}

/* The lines of callus_dir's log. */
static int log_lines(const struct fixture *f)
{
	char path[400], line[1024];
	FILE *fp;
	int n = 0;

	snprintf(path, sizeof(path), "%s/log.jsonl", f->callus);
	if (!(fp = fopen(path, "r")))
		return 0;
	while (fgets(line, sizeof(line), fp))
		n++;
	fclose(fp);
	return n;
}

/* The clock the trace dates by (time(2) may lag it by a tick). */
static time_t realtime(void)
{
	struct timespec now;

	assert_int_equal(clock_gettime(CLOCK_REALTIME, &now), 0);
	return now.tv_sec;
}

static void the_trace_is_a_log_line_and_a_count(void **state)
{
	struct fixture *f = *state;
	cli_cut_trace t = CLI_CUT_TRACE_INIT;
	char path[400], line[1024];
	json_t *o;
	FILE *fp;
	time_t before = realtime();
	int fd;

	assert_int_equal(cli_cut_trace_prepare(&t, &f->ws), 0);
	cli_cut_trace_write(&t);
	snprintf(path, sizeof(path), "%s/log.jsonl", f->callus);
	assert_non_null(fp = fopen(path, "r"));
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_null(fgets(line + strlen(line), (int)(sizeof(line) - strlen(line)), fp));
	fclose(fp);
	assert_non_null(o = json_loads(line, 0, NULL));
	assert_string_equal(json_string_value(json_object_get(o, "event")), "hook_cut");
	assert_string_equal(json_string_value(json_object_get(o, "level")), "warn");
	assert_string_equal(json_string_value(json_object_get(o, "stage")), "unqueued");
	assert_non_null(strstr(json_string_value(json_object_get(o, "message")), "nothing queued"));
	{
		struct tm tm;
		const char *at = json_string_value(json_object_get(o, "at"));

		memset(&tm, 0, sizeof(tm));
		assert_non_null(at);
		assert_non_null(strptime(at, "%Y-%m-%dT%H:%M:%S", &tm));
		assert_true(timegm(&tm) >= before && timegm(&tm) <= realtime());
	}
	json_decref(o);
	assert_true(cuts_spooled(f) == 1.0);
	/* a spool another process holds is not waited for: the log says it */
	snprintf(path, sizeof(path), "%s/%s", f->callus, CALLUS_METRICS_SPOOL);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(flock(fd, LOCK_EX), 0);
	if (fork() == 0) {
		cli_cut_trace_write(&t);
		_exit(0);
	}
	assert_int_not_equal(wait(NULL), -1);
	close(fd);
	assert_true(cuts_spooled(f) == 1.0);
	assert_int_equal(log_lines(f), 2);
	cli_cut_trace_write(&t);
	assert_true(cuts_spooled(f) == 2.0);
	assert_int_equal(log_lines(f), 3);
	cli_cut_trace_release(&t);
	/* released, it writes nothing */
	cli_cut_trace_write(&t);
	assert_int_equal(log_lines(f), 3);
}

/* Hooks cut one after another, nothing else logged: the log stops at the
 * most a rotated log holds (a handler cannot rotate it), the count does
 * not.  The most is the workspace's ([retention] log_kb, read when the
 * trace is made): it fails when the trace appends whatever the log's
 * size, or stops at the default's. */
static void a_full_log_takes_no_more_traces(void **state)
{
	struct fixture *f = *state;
	cli_cut_trace t = CLI_CUT_TRACE_INIT;
	char path[400];
	struct stat st;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/config", f->callus);
	assert_non_null(fp = fopen(path, "w"));
	fprintf(fp, "[retention]\nlog_kb = %d\n", CALLUS_LOG_MIN_KB);
	fclose(fp);
	/* as a hook's setup reads it */
	assert_int_equal(callus_config_load(&f->ws.config, f->dir, NULL), 0);
	snprintf(path, sizeof(path), "%s/log.jsonl", f->callus);
	assert_non_null(fp = fopen(path, "w"));
	for (long i = 0; i < 2 * CALLUS_LOG_MIN_KB * 1024 / 64 + 1; i++)
		fprintf(fp, "{\"event\":\"filler\",\"n\":%040ld}\n", i);
	fclose(fp);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > 2 * CALLUS_LOG_MIN_KB * 1024);
	assert_true(st.st_size < 2 * LOG_BYTES);
	assert_int_equal(cli_cut_trace_prepare(&t, &f->ws), 0);
	cli_cut_trace_write(&t);
	cli_cut_trace_write(&t);
	assert_true(cuts_spooled(f) == 2.0);
	{
		struct stat after;

		assert_int_equal(stat(path, &after), 0);
		assert_int_equal(after.st_size, st.st_size);
	}
	cli_cut_trace_release(&t);
}

/* A .callus/ replaced by a link after the trace was made: the trace still
 * goes to the folder it checked, not through the link. */
static void a_callus_swapped_for_a_link_is_not_followed(void **state)
{
	struct fixture *f = *state;
	cli_cut_trace t = CLI_CUT_TRACE_INIT;
	char moved[300], outside[300], path[400];

	assert_int_equal(cli_cut_trace_prepare(&t, &f->ws), 0);
	snprintf(moved, sizeof(moved), "%s/moved", f->dir);
	snprintf(outside, sizeof(outside), "%s/outside", f->dir);
	assert_int_equal(mkdir(outside, 0700), 0);
	assert_int_equal(rename(f->callus, moved), 0);
	assert_int_equal(symlink(outside, f->callus), 0);
	cli_cut_trace_write(&t);
	cli_cut_trace_release(&t);
	snprintf(path, sizeof(path), "%s/log.jsonl", outside);
	assert_int_not_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/log.jsonl", moved);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/%s", moved, CALLUS_METRICS_SPOOL);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(unlink(f->callus), 0);
}

/* A .callus/ linking out of the workspace is written nowhere: the trace
 * is not made. */
static void no_trace_out_of_the_workspace(void **state)
{
	struct fixture *f = *state;
	cli_cut_trace t = CLI_CUT_TRACE_INIT;
	char elsewhere[300];

	snprintf(elsewhere, sizeof(elsewhere), "%s/elsewhere", f->dir);
	assert_int_equal(rename(f->callus, elsewhere), 0);
	assert_int_equal(symlink("/tmp", f->callus), 0);
	assert_int_equal(cli_cut_trace_prepare(&t, &f->ws), -1);
	/* an unmade trace writes nothing */
	cli_cut_trace_write(&t);
	assert_int_equal(unlink(f->callus), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(the_trace_is_a_log_line_and_a_count, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_callus_swapped_for_a_link_is_not_followed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(no_trace_out_of_the_workspace, setup, teardown),
		cmocka_unit_test_setup_teardown(a_full_log_takes_no_more_traces, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
