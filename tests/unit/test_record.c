/*
 * test_record.c - the one recording path (src/record.c) in a store it
 * opens itself, or in one its caller keeps open and lends it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "callus/child.h"
#include "callus/gc.h"
#include "callus/metrics.h"
#include "callus/lessonmd.h"
#include "callus/record.h"
#include "callus/redact.h"
#include "callus/store.h"
#include "callus/strlist.h"
#include "store_internal.h"
#include "tmpdir_helpers.h"

struct fixture {
	char ws[64];
	char db[96];
	callus_redactor *red;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (test_tmpdir_make(f->ws, sizeof(f->ws), "record") < 0 ||
	    callus_redactor_new(&f->red, NULL) < 0) {
		free(f);
		return -1;
	}
	snprintf(f->db, sizeof(f->db), "%s/.callus/callus.db", f->ws);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	callus_redactor_free(f->red);
	test_tmpdir_remove(f->ws);
	free(f);
	return 0;
}

/* How the fixture's recordings learn: no snapshot. */
static void learn_opts(const struct fixture *f, callus_learn_opts *lo, const char *tool,
		       const char *args, const char *command)
{
	memset(lo, 0, sizeof(*lo));
	lo->workspace = f->ws;
	lo->check.tool = tool;
	lo->check.args = args;
	lo->check.dir = "";
	lo->command = command;
	lo->session = "";
	lo->redactor = f->red;
	lo->no_snapshot = 1;
}

/* The failure of `gcc -c FILE` printing one error, summary, at line 3:
 * its lesson into l (released by the caller), its error into d (borrowing
 * file and summary), its learning into lo (no snapshot).  command gets
 * the command line (80 bytes, which lo and l borrow or copy). */
static void gcc_failure(const struct fixture *f, const char *file, const char *summary,
			callus_lesson *l, callus_diag *d, callus_learn_opts *lo, char *command)
{
	snprintf(command, 80, "gcc -c %s", file);
	memset(d, 0, sizeof(*d));
	d->file = (char *)file;
	d->line = 3;
	d->message = (char *)summary;
	d->severity = (char *)"error";
	learn_opts(f, lo, "gcc", command + 4, command);
	memset(l, 0, sizeof(*l));
	l->type = CALLUS_LESSON_ANALYSIS;
	l->exit_code = 1;
	l->file = strdup(file);
	l->error_summary = strdup(summary);
	l->tool = strdup("gcc");
	l->command = strdup(command);
	l->intent_id = strdup("");
	assert_non_null(l->file);
	assert_non_null(l->error_summary);
}

/* The options a test's recording starts from: f's workspace and
 * redactor, learning by lo, a store of its own. */
static callus_record_opts base_opts(const struct fixture *f, callus_learn_opts *lo)
{
	callus_record_opts o = {
		.workspace = f->ws,
		.cwd_rel = "",
		.intent_id = "",
		.timeout_ms = 5000,
		.redactor = f->red,
		.learn = lo,
	};

	return o;
}

/* The lesson of a failing `gcc -c FILE` printing one error, recorded in
 * store (NULL: the recording's own) and learnt from (its pending error,
 * its signature's vector; no snapshot); its id into id (65 bytes), the
 * summaries of the other lessons about FILE it was given (at most
 * related_max) into related when not NULL.  Whether the lesson was new. */
static int record_shown(const struct fixture *f, callus_store *store, const char *file,
			const char *summary, char *id, const callus_gc_policy *retention,
			int related_max, callus_strlist *related)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_record_result res;
	callus_lesson l;
	callus_learn_opts lo;
	callus_diag d;
	callus_diags ds = { &d, 1, 1, 0 };
	char command[80];
	callus_record_opts opts = base_opts(f, &lo);
	int rc, is_new;

	opts.store = store;
	opts.retention = retention;
	opts.related_max = related_max;

	gcc_failure(f, file, summary, &l, &d, &lo, command);
	rc = callus_record_lesson(&l, &ds, strlen(summary), &opts, &res, &err);
	if (rc < 0)
		fail_msg("record: %s", callus_error_message(&err));
	assert_null(res.views_error);
	snprintf(id, 65, "%s", l.signature);
	assert_true(res.nrelated <= (size_t)(related_max > 0 ? related_max : 0));
	for (size_t i = 0; related && i < res.nrelated; i++) {
		assert_int_not_equal(res.related[i].id, l.id);
		assert_int_equal(callus_strlist_add(related, res.related[i].error_summary,
						    strlen(res.related[i].error_summary)),
				 0);
	}
	is_new = res.is_new;
	callus_record_result_release(&res);
	callus_lesson_release(&l);
	callus_error_release(&err);
	return is_new;
}

static void record_kept(const struct fixture *f, callus_store *store, const char *file,
			const char *summary, char *id, const callus_gc_policy *retention)
{
	assert_int_equal(record_shown(f, store, file, summary, id, retention, 0, NULL), 1);
}

static void record(const struct fixture *f, callus_store *store, const char *file,
		   const char *summary, char *id)
{
	record_kept(f, store, file, summary, id, NULL);
}

static int exists(const char *ws, const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", ws, rel);
	return stat(path, &st) == 0;
}

/* What other processes left in the metrics spool is taken with a
 * recording's own, but not past opts.spool_by_ms (a hook near its
 * deadline: a cut before the commit lost it).  It fails when the bound
 * is not kept (the spool emptied). */
static void the_spool_is_left_near_the_deadline(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_record_result res;
	callus_metrics *m = NULL, *left = NULL, *got = NULL;
	callus_lesson l;
	callus_learn_opts lo;
	callus_diag d;
	callus_diags ds = { &d, 1, 1, 0 };
	char command[80], dir[512];
	const char *recording[] = { "recording" }, *reading[] = { "reading" };
	callus_record_opts opts = base_opts(f, &lo);

	snprintf(dir, sizeof(dir), "%s/.callus", f->ws);
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(callus_metrics_new(&left), 0);
	assert_int_equal(callus_metrics_add(left, CALLUS_METRIC_HOOK_CUT, recording, 1), 0);
	assert_int_equal(callus_metrics_spool_put(left, dir), 0);
	for (int round = 0; round < 2; round++) {
		assert_int_equal(callus_metrics_new(&m), 0);
		assert_int_equal(callus_metrics_add(m, CALLUS_METRIC_HOOK_CUT, reading, 1), 0);
		opts.metrics = m;
		/* the first a moment past its bound, the second with none */
		opts.spool_by_ms = round == 0 ? callus_child_now_ms() - 1 : 0;
		gcc_failure(f, round ? "b.c" : "a.c", round ? "'y' undeclared" : "'x' undeclared", &l,
			    &d, &lo, command);
		assert_int_equal(callus_record_lesson(&l, &ds, 10, &opts, &res, &err), 0);
		callus_record_result_release(&res);
		callus_lesson_release(&l);
		callus_metrics_free(m);
		assert_int_equal(callus_metrics_new(&got), 0);
		assert_int_equal(callus_metrics_spool_read(got, dir, 0), 0);
		/* left, then taken */
		assert_int_equal(callus_metrics_is_empty(got), round == 1);
		callus_metrics_free(got);
	}
	callus_metrics_free(left);
	callus_error_release(&err);
}

/* A lent store is the one recorded in (its own connection made the
 * changes), given back open and out of any transaction, its cache as it
 * was; what a recording writes beside it (the lesson's file, AGENTS.md)
 * is written all the same. */
/* What a failure is shown of the other lessons about its file: the newest
 * first, at most related_max, never its own lesson, new or seen before. */
static void related_lessons_are_the_others(void **state)
{
	static const char *const said[] = { "unknown type name foo_t",
					    "implicit declaration of function bar",
					    "storage size of baz is not known",
					    "expected ';' before '}' token" };
	struct fixture *f = *state;
	callus_strlist shown = CALLUS_STRLIST_INIT;
	char id[65];

	for (int i = 0; i < 3; i++)
		record_kept(f, NULL, "src/x.c", said[i], id, NULL);
	record_kept(f, NULL, "src/y.c", said[3], id, NULL);
	/* a new one about x.c: the two newest of the three before it */
	assert_int_equal(record_shown(f, NULL, "src/x.c", said[3], id, NULL, 2, &shown), 1);
	assert_int_equal(shown.count, 2);
	assert_string_equal(shown.items[0], said[2]);
	assert_string_equal(shown.items[1], said[1]);
	callus_strlist_release(&shown);
	/* the second again, the newest now: the others, itself left out */
	assert_int_equal(record_shown(f, NULL, "src/x.c", said[1], id, NULL, 3, &shown), 0);
	assert_int_equal(shown.count, 3);
	assert_string_equal(shown.items[0], said[3]);
	assert_string_equal(shown.items[1], said[2]);
	assert_string_equal(shown.items[2], said[0]);
	callus_strlist_release(&shown);
}

static void lent_store_stays_open(void **state)
{
	struct fixture *f = *state;
	callus_store *s = NULL;
	char *dir = NULL, id1[65], id2[65], rel[256];
	int changes;

	assert_int_equal(callus_record_dir(&dir, f->ws, NULL), 0);
	assert_int_equal(callus_store_open(&s, f->db, 5000, NULL), 0);
	callus_store_cache_pages(s, 300);
	assert_int_equal(callus_store_query_int(s, "PRAGMA cache_size"), 300);
	changes = sqlite3_total_changes(callus_store_db(s));

	record(f, s, "src/a.c", "unknown type name foo_t", id1);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 1);
	assert_true(sqlite3_total_changes(callus_store_db(s)) > changes);
	assert_int_not_equal(sqlite3_get_autocommit(callus_store_db(s)), 0);
	record(f, s, "src/b.c", "implicit declaration of function bar", id2);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 2);
	assert_int_not_equal(sqlite3_get_autocommit(callus_store_db(s)), 0);
	/* learnt in it too: two checks' pending errors, and the signatures'
	 * vectors */
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM pending_errors"), 2);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM signature_vectors"), 2);
	assert_string_not_equal(id1, id2);
	/* the recording's own cache (64 pages) is for a store it opens */
	assert_int_equal(callus_store_query_int(s, "PRAGMA cache_size"), 300);
	/* nor does a vector file written again whole from the store (gone
	 * here), which reads with the connection's first cache, keep that */
	{
		const char *const names[] = { "vectors-callus-builtin-1.bin",
					      "vectors-callus-builtin-1.noted.bin" };

		for (size_t i = 0; i < 2; i++) {
			snprintf(rel, sizeof(rel), "%s/%s", dir, names[i]);
			(void)unlink(rel);
		}
	}
	record(f, s, "src/c.c", "storage size of baz is not known", id2);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM signature_vectors"), 3);
	assert_int_equal(callus_store_query_int(s, "PRAGMA cache_size"), 300);

	snprintf(rel, sizeof(rel), ".lessons/%.*s.md", CALLUS_LESSON_ID_LEN, id2);
	assert_true(exists(f->ws, rel));
	assert_true(exists(f->ws, "AGENTS.md"));
	callus_store_close(s);
	free(dir);
}

/* Each error of a failure is learnt with the files its diagnostics name,
 * in their order, each once: three errors, one of them in twelve files
 * (one named twice), their diagnostics interleaved. */
static void errors_learnt_with_their_files(void **state)
{
	static const struct {
		const char *file, *message;
	} in[] = {
		{ "src/f0.c", "'count' undeclared (first use in this function)" },
		{ "src/g.c", "expected ';' before '}' token" },
		{ "src/f1.c", "'count' undeclared (first use in this function)" },
		{ "src/f2.c", "'count' undeclared (first use in this function)" },
		{ "src/h.c", "implicit declaration of function 'frob'" },
		{ "src/f3.c", "'count' undeclared (first use in this function)" },
		{ "src/f4.c", "'count' undeclared (first use in this function)" },
		{ "src/f1.c", "'count' undeclared (first use in this function)" },
		{ "src/f5.c", "'count' undeclared (first use in this function)" },
		{ "src/f6.c", "'count' undeclared (first use in this function)" },
		{ "src/f7.c", "'count' undeclared (first use in this function)" },
		{ "src/f8.c", "'count' undeclared (first use in this function)" },
		{ "src/g2.c", "expected ';' before '}' token" },
		{ "src/f9.c", "'count' undeclared (first use in this function)" },
		{ "src/f10.c", "'count' undeclared (first use in this function)" },
		{ "src/f11.c", "'count' undeclared (first use in this function)" },
	};
	static const char *const want[] = {
		"[\"src/f0.c\",\"src/f1.c\",\"src/f2.c\",\"src/f3.c\",\"src/f4.c\",\"src/f5.c\","
		"\"src/f6.c\",\"src/f7.c\",\"src/f8.c\",\"src/f9.c\",\"src/f10.c\",\"src/f11.c\"]",
		"[\"src/g.c\",\"src/g2.c\"]",
		"[\"src/h.c\"]",
	};
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_record_result res;
	callus_lesson l;
	callus_learn_opts lo;
	callus_diag d[sizeof(in) / sizeof(in[0])];
	callus_diags ds = { d, sizeof(in) / sizeof(in[0]), sizeof(in) / sizeof(in[0]), 0 };
	callus_record_opts opts = {
		.workspace = f->ws, .cwd_rel = "", .intent_id = "", .timeout_ms = 5000,
		.redactor = f->red, .learn = &lo,
	};
	callus_store *s = NULL;
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	memset(d, 0, sizeof(d));
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		d[i].file = (char *)in[i].file;
		d[i].line = 3;
		d[i].message = (char *)in[i].message;
		d[i].severity = (char *)"error";
	}
	learn_opts(f, &lo, "make", "", "make");
	memset(&l, 0, sizeof(l));
	l.type = CALLUS_LESSON_ANALYSIS;
	l.exit_code = 2;
	l.file = strdup("src/f0.c");
	l.error_summary = strdup("src/f0.c:3: 'count' undeclared");
	l.tool = strdup("make");
	l.command = strdup("make");
	l.intent_id = strdup("");
	if (callus_record_lesson(&l, &ds, 0, &opts, &res, &err) < 0)
		fail_msg("record: %s", callus_error_message(&err));
	callus_record_result_release(&res);
	callus_lesson_release(&l);
	callus_error_release(&err);

	assert_int_equal(callus_store_open(&s, f->db, 5000, NULL), 0);
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(s),
					    "SELECT files FROM pending_errors ORDER BY id", -1, &st,
					    NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(n < sizeof(want) / sizeof(want[0]));
		assert_string_equal((const char *)sqlite3_column_text(st, 0), want[n]);
		n++;
	}
	assert_int_equal(n, sizeof(want) / sizeof(want[0]));
	sqlite3_finalize(st);
	callus_store_close(s);
}

/* A recording whose retention pass is due runs it in the lent store, and
 * gives the store back as lent: open, out of any transaction, its cache
 * as it was, ready for the next recording. */
static void lent_store_under_retention(void **state)
{
	struct fixture *f = *state;
	callus_store *s = NULL;
	callus_gc_policy p;
	char *dir = NULL, id[65], stamp[512];

	callus_gc_policy_default(&p);
	p.lessons_max = 1;
	p.batch = CALLUS_GC_BACKGROUND_BATCH;
	assert_int_equal(callus_record_dir(&dir, f->ws, NULL), 0);
	free(dir);
	assert_int_equal(callus_store_open(&s, f->db, 5000, NULL), 0);
	callus_store_cache_pages(s, 300);
	record_kept(f, s, "src/a.c", "unknown type name foo_t", id, &p);
	record_kept(f, s, "src/b.c", "implicit declaration of function bar", id, &p);
	/* due once: the first recording's pass found one lesson, the second
	 * is not due (the stamp is fresh), but its new lesson took the count
	 * past lessons_max: the least valuable went then, in the lent store,
	 * which it gave back as lent */
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 1);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons WHERE file = 'src/b.c'"), 1);
	assert_int_not_equal(sqlite3_get_autocommit(callus_store_db(s)), 0);
	assert_int_equal(callus_store_query_int(s, "PRAGMA cache_size"), 300);
	snprintf(stamp, sizeof(stamp), "%s/.callus/gc.stamp", f->ws);
	assert_int_equal(unlink(stamp), 0);
	record_kept(f, s, "src/c.c", "storage size of baz is not known", id, &p);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 1);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons WHERE file = 'src/c.c'"), 1);
	assert_int_not_equal(sqlite3_get_autocommit(callus_store_db(s)), 0);
	assert_int_equal(callus_store_query_int(s, "PRAGMA cache_size"), 300);
	record(f, s, "src/d.c", "too few arguments to function qux", id);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 2);
	callus_store_close(s);
}

/* A due pass left to the caller (retention_later: callus gc --background,
 * in a process of its own) is not run by the recording: what it would
 * remove stays, the stamp is touched all the same (the next recordings
 * start none), and the result names the lesson the pass keeps.  Run by
 * the recording, the same pass removes it. */
static void a_due_pass_is_left_to_the_caller(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_record_result res;
	callus_learn_opts lo;
	callus_gc_policy p;
	callus_lesson l;
	callus_diag d;
	callus_diags ds = { &d, 1, 1, 0 };
	callus_store *s = NULL;
	char *dir = NULL, id[65], command[80], stamp[512], touch[600];
	callus_record_opts opts = base_opts(f, &lo);

	callus_gc_policy_default(&p);
	p.lesson_days = 30;
	p.batch = CALLUS_GC_BACKGROUND_BATCH;
	assert_int_equal(callus_record_dir(&dir, f->ws, NULL), 0);
	free(dir);
	assert_int_equal(callus_store_open(&s, f->db, 5000, NULL), 0);
	record(f, s, "src/a.c", "unknown type name foo_t", id);
	assert_int_equal(sqlite3_exec(callus_store_db(s),
				      "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z'",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	snprintf(stamp, sizeof(stamp), "%s/.callus/gc.stamp", f->ws);
	snprintf(touch, sizeof(touch), "touch -d '2 days ago' '%s'", stamp);
	assert_int_equal(system(touch), 0);

	opts.store = s;
	opts.retention = &p;
	opts.retention_later = 1;
	gcc_failure(f, "src/b.c", "implicit declaration of function bar", &l, &d, &lo, command);
	if (callus_record_lesson(&l, &ds, 36, &opts, &res, &err) < 0)
		fail_msg("record: %s", callus_error_message(&err));
	assert_int_equal(res.gc_keep, l.id);
	callus_record_result_release(&res);
	callus_lesson_release(&l);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 2);
	/* not due again until the interval has passed */
	gcc_failure(f, "src/c.c", "too few arguments to function qux", &l, &d, &lo, command);
	assert_int_equal(callus_record_lesson(&l, &ds, 33, &opts, &res, &err), 0);
	assert_int_equal(res.gc_keep, 0);
	callus_record_result_release(&res);
	callus_lesson_release(&l);

	/* the recording's own pass, due again, removes the old lesson */
	assert_int_equal(system(touch), 0);
	opts.retention_later = 0;
	gcc_failure(f, "src/d.c", "storage size of baz is not known", &l, &d, &lo, command);
	assert_int_equal(callus_record_lesson(&l, &ds, 32, &opts, &res, &err), 0);
	assert_int_equal(res.gc_keep, 0);
	callus_record_result_release(&res);
	callus_lesson_release(&l);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 3);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons WHERE file = 'src/a.c'"),
			 0);
	callus_error_release(&err);
	callus_store_close(s);
}

/* The descriptors this process has open on path. */
static int open_on(const char *path)
{
	char fd[300], target[4096];
	struct dirent *e;
	DIR *dh = opendir("/proc/self/fd");
	int n = 0;

	assert_non_null(dh);
	while ((e = readdir(dh))) {
		ssize_t len;

		snprintf(fd, sizeof(fd), "/proc/self/fd/%s", e->d_name);
		len = readlink(fd, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		n += !strcmp(target, path);
	}
	closedir(dh);
	return n;
}

/* Without one, the recording opens the workspace's store and closes it:
 * nothing of it stays open, and another connection sees what it wrote. */
static void own_store_opened_and_closed(void **state)
{
	struct fixture *f = *state;
	callus_store *s = NULL;
	char id[65], real[4096];

	record(f, NULL, "src/a.c", "unknown type name foo_t", id);
	record(f, NULL, "src/b.c", "implicit declaration of function bar", id);
	assert_non_null(realpath(f->db, real));
	assert_int_equal(open_on(real), 0);
	assert_int_equal(callus_store_open(&s, f->db, 5000, NULL), 0);
	assert_int_equal(open_on(real), 1);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM lessons"), 2);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM signature_vectors"), 2);
	callus_store_close(s);
}

/* Another writer that takes the store's write lock the moment a lesson
 * is committed (callus_record_opts.stored) and holds it for 800 ms: the
 * sqlite3 shell, a process of its own (a connection made in a forked copy
 * of this one would share its locks' bookkeeping). */
struct holder {
	const char *db;
	pid_t pid;
};

static void hold_store(void *ctx, int again)
{
	struct holder *h = ctx;
	char said[8] = "";
	int p[2];

	(void)again;
	assert_int_equal(pipe(p), 0);
	h->pid = fork();
	assert_true(h->pid >= 0);
	if (h->pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execlp("sqlite3", "sqlite3", h->db, ".timeout 5000", "BEGIN IMMEDIATE;",
		       ".system echo held", ".system sleep 0.8", "COMMIT;", (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	/* held once it says so: the recording goes on from here */
	assert_int_equal(read(p[0], said, 5), 5);
	assert_memory_equal(said, "held\n", 5);
	close(p[0]);
}

/*
 * The new signature's vector waits for a store another writer holds past
 * the recording's timeout, and learning, after the snapshot helper's
 * wait, finds it free: the recording says the vector is left to the next
 * one (index_error, index_busy) and learning did not fail (no
 * learn_error: the error is pending); the next recording indexes both.
 */
static void busy_index_is_no_learning_failure(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_record_result res;
	callus_snapshot_opts so = { NULL, 2500, NULL, 0, 0 };
	struct holder h = { f->db, -1 };
	callus_learn_opts lo;
	callus_lesson l;
	callus_diag d;
	callus_diags ds = { &d, 1, 1, 0 };
	callus_record_opts opts = base_opts(f, &lo);
	callus_store *s = NULL;
	char helper[128], id[65], command[80];
	FILE *fp;

	opts.timeout_ms = 100;
	opts.stored = hold_store;
	opts.stored_ctx = &h;
	int st;

	/* the store made, so that the other writer has one to lock */
	record(f, NULL, "src/a.c", "unknown type name foo_t", id);
	/* a snapshot helper that never answers: learning waits 2.5 s for it */
	snprintf(helper, sizeof(helper), "%s/slow-callus-git", f->ws);
	assert_non_null(fp = fopen(helper, "w"));
	fputs("#!/bin/sh\nexec sleep 30\n", fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(helper, 0755), 0);
	so.helper = helper;
	gcc_failure(f, "src/b.c", "implicit declaration of function bar", &l, &d, &lo, command);
	lo.no_snapshot = 0;
	lo.snapshot = &so;
	if (callus_record_lesson(&l, &ds, 0, &opts, &res, &err) < 0)
		fail_msg("record: %s", callus_error_message(&err));
	assert_int_equal(waitpid(h.pid, &st, 0), h.pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_null(res.learn_error);
	assert_non_null(res.index_error);
	assert_int_equal(res.index_busy, 1);
	assert_int_equal(res.learnt.npending, 1);
	callus_record_result_release(&res);
	callus_lesson_release(&l);
	callus_error_release(&err);

	assert_int_equal(callus_store_open(&s, f->db, 5000, NULL), 0);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM pending_errors"), 2);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM signature_vectors"), 1);
	callus_store_close(s);
	record(f, NULL, "src/c.c", "storage size of baz is not known", id);
	assert_int_equal(callus_store_open(&s, f->db, 5000, NULL), 0);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM signature_vectors"), 3);
	callus_store_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(related_lessons_are_the_others, setup, teardown),
		cmocka_unit_test_setup_teardown(the_spool_is_left_near_the_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(lent_store_stays_open, setup, teardown),
		cmocka_unit_test_setup_teardown(lent_store_under_retention, setup, teardown),
		cmocka_unit_test_setup_teardown(a_due_pass_is_left_to_the_caller, setup, teardown),
		cmocka_unit_test_setup_teardown(own_store_opened_and_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(errors_learnt_with_their_files, setup, teardown),
		cmocka_unit_test_setup_teardown(busy_index_is_no_learning_failure, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
