#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callus/knowledge.h"

typedef struct fixture {
	char dir[64];
	char path[96];
	char url[128];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-knowledge-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/team.db", f->dir);
	snprintf(f->url, sizeof(f->url), "sqlite:%s", f->path);
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

/* A location with the embedded backend's scheme, or a plain path, opens
 * (and creates) a SQLite store that answers through the interface. */
static void opens_sqlite_by_scheme_and_by_path(void **state)
{
	fixture *f = *state;
	callus_knowledge *k = NULL;
	callus_resolution *rs = NULL;
	callus_resolution r;
	callus_error err = CALLUS_ERROR_INIT;
	size_t n = 99;

	assert_int_equal(callus_knowledge_open(&k, f->url, 1000, &err), 0);
	assert_string_equal(callus_knowledge_backend(k), "sqlite");
	assert_int_equal(access(f->path, F_OK), 0);
	assert_int_equal(callus_knowledge_resolutions(k, NULL, 10, &rs, &n, &err), 0);
	assert_int_equal(n, 0);
	callus_resolutions_free(rs, n);
	assert_int_equal(callus_knowledge_resolution(k, 1, &r, &err), CALLUS_ENOTFOUND);
	callus_error_release(&err);
	callus_knowledge_close(k);

	assert_int_equal(callus_knowledge_open(&k, f->path, 1000, &err), 0);
	assert_string_equal(callus_knowledge_backend(k), "sqlite");
	callus_knowledge_close(k);
}

/* Metrics written through one handle are read back through another. */
static void metrics_round_trip(void **state)
{
	fixture *f = *state;
	callus_knowledge *k = NULL;
	callus_metrics *m = NULL, *back = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf json = CALLUS_BUF_INIT;
	static const char *const labels[] = { "LINT", "workspace", NULL };

	assert_int_equal(callus_metrics_new(&m), 0);
	assert_int_equal(callus_metrics_add(m, CALLUS_METRIC_CAPTURE_TOTAL, labels, 3), 0);
	assert_int_equal(callus_knowledge_open(&k, f->url, 1000, &err), 0);
	assert_int_equal(callus_knowledge_flush_metrics(k, m, &err), 0);
	callus_knowledge_close(k);

	assert_int_equal(callus_metrics_new(&back), 0);
	assert_int_equal(callus_knowledge_open(&k, f->path, 1000, &err), 0);
	assert_int_equal(callus_knowledge_read_metrics(k, back, &err), 0);
	assert_int_equal(callus_metrics_render_json(&json, back), 0);
	assert_non_null(strstr(json.ptr, "LINT"));
	callus_knowledge_close(k);
	callus_buf_release(&json);
	callus_metrics_free(m);
	callus_metrics_free(back);
}

/* A scheme no backend takes is refused by name, and nothing is created. */
static void refuses_unknown_schemes(void **state)
{
	fixture *f = *state;
	callus_knowledge *k = (callus_knowledge *)f;
	callus_error err = CALLUS_ERROR_INIT;

	assert_int_equal(callus_knowledge_open(&k, "mysql://team@db/callus", 1000, &err),
			 CALLUS_EINVAL);
	assert_null(k);
	assert_non_null(strstr(callus_error_message(&err), "'mysql:'"));
	callus_error_release(&err);
	assert_int_equal(callus_knowledge_open(&k, "", 1000, &err), CALLUS_EINVAL);
	callus_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(opens_sqlite_by_scheme_and_by_path, setup, teardown),
		cmocka_unit_test_setup_teardown(metrics_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_unknown_schemes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
