#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
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

/* ------------------------------------------------------------------ */
/* The team and org layers' notes: the same cases against the embedded
 * store and against a PostgreSQL server started here on loopback (as
 * nobody when the test runs as root), when its binaries are installed. */

static char pg_dir[] = "/tmp/callus-knowledge-pg-XXXXXX";
static int pg_port, pg_up, pg_db;

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static int pg_start(void **state)
{
	char exe[PATH_MAX], helper[PATH_MAX + 16], line[64];
	const char *as = getuid() == 0 ? "runuser -u nobody --" : "";
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f;

	(void)state;
	if (n > 0) {
		exe[n] = '\0';
		*strrchr(exe, '/') = '\0';
		snprintf(helper, sizeof(helper), "%s/../callus-pg", exe);
		setenv("CALLUS_PG_HELPER", helper, 1);
	}
	if (sh("ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1") != 0 || !mkdtemp(pg_dir))
		return 0;
	if (!(f = popen("python3 -c 'import socket; s = socket.socket();"
			" s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])'", "r")))
		return 0;
	if (fgets(line, sizeof(line), f))
		pg_port = (int)strtol(line, NULL, 10);
	pclose(f);
	sh("chmod 755 %s; [ \"$(id -u)\" != 0 ] || chown nobody %s", pg_dir, pg_dir);
	pg_up = pg_port > 0 &&
		sh("cd / && bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1) &&"
		   " %s \"$bin/initdb\" -D %s/data -U admin --auth=trust -E UTF8 --no-locale"
		   " >/dev/null 2>&1 && %s \"$bin/pg_ctl\" -D %s/data -l %s/log -w -o"
		   " \"-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off\" start >/dev/null",
		   as, pg_dir, as, pg_dir, pg_dir, pg_port, pg_dir) == 0;
	return 0;
}

static int pg_stop(void **state)
{
	const char *as = getuid() == 0 ? "runuser -u nobody --" : "";

	(void)state;
	if (pg_up)
		sh("cd / && bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1) &&"
		   " %s \"$bin/pg_ctl\" -D %s/data -m immediate -w stop >/dev/null", as, pg_dir);
	sh("rm -rf %s", pg_dir);
	return 0;
}

/* A fresh database of the server for one test: its URL in f->url. */
static int setup_pg(void **state)
{
	fixture *f;

	if (setup(state) < 0)
		return -1;
	f = *state;
	if (!pg_up) {
		f->url[0] = '\0';
		return 0;
	}
	pg_db++;
	if (sh("psql -X -q -h 127.0.0.1 -p %d -U admin -d postgres -c 'CREATE DATABASE t%d'",
	       pg_port, pg_db) != 0)
		return -1;
	snprintf(f->url, sizeof(f->url), "postgresql://admin@127.0.0.1:%d/t%d", pg_port, pg_db);
	return 0;
}

static callus_shared_note proposal(const char *id, const char *title)
{
	callus_shared_note n;

	memset(&n, 0, sizeof(n));
	snprintf(n.id, sizeof(n.id), "%s", id);
	n.layer = CALLUS_LAYER_TEAM;
	n.signature_id = (char *)"0123456789abcdef0123456789abcdef";
	n.tool = (char *)"gcc";
	n.title = (char *)title;
	n.steps = (char *)"Edited f() in f.c";
	n.code = (char *)"-a\n+b\n";
	n.files = (char *)"[\"f.c\"]";
	n.origin = (char *)"ws1:0123456789ab";
	n.path = (char *)"project>team";
	n.proposed_by = (char *)"dev@example.com";
	return n;
}

/* Proposed once, listed for the maintainers, decided once, pulled by
 * revision; outcomes as totals per instance, summed over instances. */
static void shared_notes_lifecycle(void **state)
{
	fixture *f = *state;
	callus_knowledge *k = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_shared_note a = proposal("0123456789ab", "gcc: format"), b = proposal("abcdef012345", "gcc: unused");
	callus_shared_note *v = NULL, one;
	size_t n = 0;
	int64_t mark;
	int created = -1;

	if (!*f->url)
		skip();
	assert_int_equal(callus_knowledge_open(&k, f->url, 1000, &err), 0);
	assert_int_equal(callus_knowledge_propose(k, &a, &created, &err), 0);
	assert_int_equal(created, 1);
	assert_int_equal(callus_knowledge_propose(k, &a, &created, &err), 0);
	assert_int_equal(created, 0);
	assert_int_equal(callus_knowledge_propose(k, &b, &created, &err), 0);
	assert_int_equal(created, 1);
	/* the session and project layers have no store of their own */
	a.layer = CALLUS_LAYER_PROJECT;
	assert_int_equal(callus_knowledge_propose(k, &a, &created, &err), CALLUS_EINVAL);
	callus_error_release(&err);

	assert_int_equal(callus_knowledge_shared_list(k, CALLUS_LAYER_TEAM, 0, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].status, CALLUS_SHARED_PROPOSED);
	assert_string_equal(v[1].path, "project>team");
	/* a server adds its own record of who: the session's role */
	assert_string_equal(v[1].proposed_by, strncmp(f->url, "postgresql:", 11)
						      ? "dev@example.com"
						      : "dev@example.com (role admin)");
	callus_shared_notes_free(v, n);

	/* a prefix names one note; a decision only from the right status */
	assert_int_equal(callus_knowledge_shared_get(k, CALLUS_LAYER_TEAM, "0123", &one, &err), 0);
	assert_string_equal(one.id, "0123456789ab");
	callus_shared_note_release(&one);
	assert_int_equal(callus_knowledge_shared_get(k, CALLUS_LAYER_ORG, "0123", &one, &err),
			 CALLUS_ENOTFOUND);
	callus_error_release(&err);
	assert_int_equal(callus_knowledge_decide(k, CALLUS_LAYER_TEAM, "0123456789ab",
						 CALLUS_SHARED_RETIRED, "lead", "", &err),
			 CALLUS_ENOTFOUND);
	callus_error_release(&err);
	assert_int_equal(callus_knowledge_decide(k, CALLUS_LAYER_TEAM, "0123456789ab",
						 CALLUS_SHARED_APPROVED, "lead", "", &err), 0);
	assert_int_equal(callus_knowledge_decide(k, CALLUS_LAYER_TEAM, "0123456789ab",
						 CALLUS_SHARED_REJECTED, "lead", "no", &err),
			 CALLUS_ENOTFOUND);
	callus_error_release(&err);
	assert_int_equal(callus_knowledge_decide(k, CALLUS_LAYER_TEAM, "abcdef012345",
						 CALLUS_SHARED_REJECTED, "lead", "too narrow", &err), 0);

	/* the pull: oldest change first, then only what changed since */
	assert_int_equal(callus_knowledge_pull(k, CALLUS_LAYER_TEAM, 0, 0, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_true(v[0].revision < v[1].revision);
	assert_string_equal(v[0].id, "0123456789ab");
	assert_int_equal(v[0].status, CALLUS_SHARED_APPROVED);
	assert_int_equal(v[1].status, CALLUS_SHARED_REJECTED);
	assert_string_equal(v[1].why, "too narrow");
	mark = v[1].revision;
	callus_shared_notes_free(v, n);
	assert_int_equal(callus_knowledge_pull(k, CALLUS_LAYER_TEAM, mark, 0, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);

	/* outcomes: totals per instance; the same report twice moves nothing */
	assert_int_equal(callus_knowledge_report(k, CALLUS_LAYER_TEAM, "0123456789ab", "ws1", 5, 5,
						 &err), 0);
	assert_int_equal(callus_knowledge_report(k, CALLUS_LAYER_TEAM, "0123456789ab", "ws2", 2, 1,
						 &err), 0);
	assert_int_equal(callus_knowledge_pull(k, CALLUS_LAYER_TEAM, mark, 0, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].applications, 7);
	assert_int_equal(v[0].successes, 6);
	mark = v[0].revision;
	callus_shared_notes_free(v, n);
	assert_int_equal(callus_knowledge_report(k, CALLUS_LAYER_TEAM, "0123456789ab", "ws2", 2, 1,
						 &err), 0);
	assert_int_equal(callus_knowledge_pull(k, CALLUS_LAYER_TEAM, mark, 0, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);
	/* a report of a note the layer does not have is dropped */
	assert_int_equal(callus_knowledge_report(k, CALLUS_LAYER_TEAM, "ffffffffffff", "ws2", 2, 1,
						 &err), 0);
	assert_int_equal(callus_knowledge_pull(k, CALLUS_LAYER_TEAM, mark, 0, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);

	/* retired from approved; the pull says so */
	assert_int_equal(callus_knowledge_decide(k, CALLUS_LAYER_TEAM, "0123456789ab",
						 CALLUS_SHARED_RETIRED, "lead", "obsolete", &err), 0);
	assert_int_equal(callus_knowledge_pull(k, CALLUS_LAYER_TEAM, mark, 1, &v, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].status, CALLUS_SHARED_RETIRED);
	callus_shared_notes_free(v, n);
	assert_int_equal(callus_knowledge_shared_list(k, CALLUS_LAYER_TEAM, 0, &v, &n, &err), 0);
	assert_int_equal(n, 0);
	free(v);
	assert_int_equal(callus_knowledge_shared_list(k, CALLUS_LAYER_TEAM, 1, &v, &n, &err), 0);
	assert_int_equal(n, 2);
	callus_shared_notes_free(v, n);
	callus_knowledge_close(k);
	callus_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(opens_sqlite_by_scheme_and_by_path, setup, teardown),
		cmocka_unit_test_setup_teardown(metrics_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_unknown_schemes, setup, teardown),
		cmocka_unit_test_setup_teardown(shared_notes_lifecycle, setup, teardown),
		cmocka_unit_test_setup_teardown(shared_notes_lifecycle, setup_pg, teardown),
	};

	return cmocka_run_group_tests(tests, pg_start, pg_stop);
}
