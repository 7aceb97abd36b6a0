#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callus/lesson.h"
#include "callus/redact.h"
#include "callus/signature.h"
#include "callus/strlist.h"
#include "callus/store.h"
#include "callus/store_redact.h"

#include "schema_helpers.h"
#include "sqlutil.h"
#include "store_internal.h"

typedef struct fixture {
	char dir[64];
	char path[96];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-store-XXXXXX");
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

static void make_lesson(callus_lesson *l, const char *file, const char *summary, const char *tool)
{
	memset(l, 0, sizeof(*l));
	l->type = CALLUS_LESSON_LINT;
	l->file = strdup(file);
	l->error_summary = strdup(summary);
	l->tool = strdup(tool);
	l->command = strdup("npx eslint .");
	l->intent_id = strdup("session-1");
	l->exit_code = 1;
	l->affected_files = calloc(2, sizeof(char *));
	l->affected_files[0] = strdup(file);
	l->affected_files[1] = strdup("src/other.js");
	l->affected_count = 2;
	assert_int_equal(callus_lesson_sign(l), 0);
}

static void records_and_deduplicates(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson a, b, got;
	callus_error err = CALLUS_ERROR_INIT;
	int is_new = -1;
	struct stat st;

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	assert_int_equal(callus_store_schema_version(s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(stat(f->path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	make_lesson(&a, "src/app.js", "src/app.js:4:9 'x' is unused", "eslint");
	assert_int_equal(callus_store_record_lesson(s, &a, NULL, &is_new, &err), 0);
	assert_true(is_new);
	assert_int_equal(a.id, 1);
	assert_int_equal(a.occurrences, 1);

	/* the same failure after lines moved: same signature, one more occurrence */
	make_lesson(&b, "src/app.js", "src/app.js:14:9 'x' is unused", "eslint");
	assert_string_equal(a.signature, b.signature);
	free(b.cause);
	b.cause = strdup("forgot to remove it");
	assert_int_equal(callus_store_record_lesson(s, &b, NULL, &is_new, &err), 0);
	assert_false(is_new);
	assert_int_equal(b.id, 1);
	assert_int_equal(b.occurrences, 2);

	assert_int_equal(callus_store_get_lesson(s, "1", &got, &err), 0);
	assert_string_equal(got.cause, "forgot to remove it");
	assert_string_equal(got.intent_id, "session-1");
	assert_int_equal(got.affected_count, 2);
	assert_string_equal(got.affected_files[1], "src/other.js");
	callus_lesson_release(&got);

	callus_lesson_release(&a);
	callus_lesson_release(&b);
	callus_store_close(s);
	callus_error_release(&err);
}

/* lesson l recorded with one error signature, g, as a failure's run
 * names it: 0 or the store's error */
static int record_with_sig(callus_store *s, callus_lesson *l, callus_signature *g)
{
	callus_run_info run = { .cwd = "", .intent_id = "session-1", .output_bytes = 10 };

	run.sigs = g;
	run.nsigs = 1;
	return callus_store_record_lesson(s, l, &run, NULL, NULL);
}

static long long query_int(callus_store *s, const char *sql)
{
	sqlite3_stmt *st = NULL;
	long long v = -1;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The statements a recording runs on lessons, as SQLite traces them:
 * bit 0 an UPDATE of lessons, bit 1 an INSERT into them. */
static int lesson_writes(unsigned type, void *ctx, void *p, void *x)
{
	const char *sql = sqlite3_sql(p);
	int *seen = ctx;

	(void)type;
	(void)x;
	if (sql && !strncmp(sql, "UPDATE lessons SET", 18))
		*seen |= 1;
	if (sql && !strncmp(sql, "INSERT INTO lessons", 19))
		*seen |= 2;
	return 0;
}

/* A failure whose errors were all stored before is tried as a recurrence
 * (an UPDATE of its lesson) and one with a new error as a new lesson (an
 * INSERT): each guess that proves wrong still records it once, with its
 * files (the INSERT's trigger) and the totals. */
static void a_recurrence_guessed_wrong_is_still_recorded(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson l;
	callus_signature g;
	callus_diag d;
	callus_strlist ctx = CALLUS_STRLIST_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	char sql[160];
	int seen = 0;

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	memset(&d, 0, sizeof(d));
	d.file = (char *)"src/app.js";
	d.line = 4;
	d.message = (char *)"'x' is assigned a value but never used";
	assert_int_equal(callus_signature_build(&g, &d, "eslint", &ctx), 0);
	make_lesson(&l, "src/app.js", "src/app.js:4:9 'x' is unused", "eslint");
	assert_int_equal(sqlite3_trace_v2(callus_store_db(s), SQLITE_TRACE_STMT, lesson_writes,
					  &seen),
			 SQLITE_OK);
	/* new error, new lesson: the INSERT alone */
	assert_int_equal(record_with_sig(s, &l, &g), 0);
	assert_int_equal(l.occurrences, 1);
	assert_int_equal(seen, 2);
	/* stored error, stored lesson: the UPDATE alone, a person's cause kept */
	free(l.cause);
	l.cause = strdup("left over from a refactoring");
	seen = 0;
	assert_int_equal(record_with_sig(s, &l, &g), 0);
	assert_int_equal(l.occurrences, 2);
	assert_int_equal(seen, 1);
	free(l.cause);
	l.cause = strdup("");
	assert_int_equal(record_with_sig(s, &l, &g), 0);
	assert_int_equal(l.occurrences, 3);
	assert_string_equal(l.cause, "left over from a refactoring");
	/* stored error, the lesson gone (retention took it): the UPDATE
	 * finds none, the upsert inserts it, its files and count with it */
	assert_int_equal(callus_store_exec(s, "DELETE FROM lessons", &err), 0);
	assert_int_equal(query_int(s, "SELECT lessons FROM totals"), 0);
	free(l.cause);
	l.cause = strdup("");
	seen = 0;
	assert_int_equal(record_with_sig(s, &l, &g), 0);
	assert_int_equal(seen, 3);
	assert_int_equal(l.occurrences, 1);
	assert_string_equal(l.cause, "");
	assert_int_equal(query_int(s, "SELECT count(*) FROM lessons"), 1);
	assert_int_equal(query_int(s, "SELECT lessons FROM totals"), 1);
	snprintf(sql, sizeof(sql), "SELECT count(*) FROM lesson_files WHERE lesson_id = %lld",
		 (long long)l.id);
	assert_int_equal(query_int(s, sql), 2);
	/* the error gone (retention took its signature), the lesson kept:
	 * the INSERT finds the lesson stored, undone whole, and the UPDATE
	 * counts it */
	assert_int_equal(callus_store_exec(s, "DELETE FROM run_errors; DELETE FROM signatures",
					   &err), 0);
	seen = 0;
	assert_int_equal(record_with_sig(s, &l, &g), 0);
	assert_int_equal(seen, 3);
	assert_int_equal(l.occurrences, 2);
	assert_string_equal(l.cause, "");
	assert_int_equal(query_int(s, "SELECT count(*) FROM lessons"), 1);
	assert_int_equal(query_int(s, "SELECT lessons FROM totals"), 1);
	assert_int_equal(query_int(s, sql), 2);
	assert_int_equal(query_int(s, "SELECT count(*) FROM signatures"), 1);
	sqlite3_trace_v2(callus_store_db(s), 0, NULL, NULL);
	callus_signature_release(&g);
	callus_lesson_release(&l);
	callus_store_close(s);
	callus_error_release(&err);
}

/* The error of run diags d, message msg, naming signature sig (may be
 * NULL). */
static void add_run_error(callus_diags *d, const char *sig, const char *msg)
{
	assert_int_equal(callus_diags_add(d, "src/a.c", 3, 1, NULL, 0, msg, strlen(msg), NULL), 0);
	if (sig)
		assert_non_null(callus_diags_last(d)->signature = strdup(sig));
}

/* g: the signature of gcc's error message in src/a.c, no context. */
static void gcc_signature(callus_signature *g, const char *message)
{
	callus_strlist ctx = CALLUS_STRLIST_INIT;
	callus_diag d;

	memset(&d, 0, sizeof(d));
	d.file = (char *)"src/a.c";
	d.message = (char *)message;
	assert_int_equal(callus_signature_build(g, &d, "gcc", &ctx), 0);
}

/* A run's error rows name their signature by rowid (NULL for one the store
 * has not) and keep their message only where it is not the signature's
 * original as stored: the run's own signatures as their upserts left them
 * (an original stored before is kept), and a stored one the run does not
 * list.  Its seven errors over and over, runs of 7, 56 and 63 (each row a
 * statement), 64 (eight statements of eight rows) and 70 (eight and six
 * alone), the rows in their order.  Fails when the message is compared
 * with the run's original, a signature outside the run's is not looked
 * up, or a batch's row is bound in another's place. */
static void run_errors_name_their_signatures(void **state)
{
	static const char *const first[] = { "'a' undeclared here", "'b' is never used" };
	static const char *const want[] = { "", "'b' is never used, again", "",
					    "'a' undeclared there", "'c' undeclared",
					    "make: *** [all] Error 1", "" };
	static const int named[] = { 2, 2, 1, 1, 0, 0, 2 };
	static const size_t sizes[] = { 7, 56, 63, 64, 70 };
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson l;
	callus_signature g[2];
	callus_diags errs = CALLUS_DIAGS_INIT;
	callus_run_info run = { .cwd = "", .intent_id = "session-1", .output_bytes = 10 };
	callus_error err = CALLUS_ERROR_INIT;
	sqlite3_stmt *st = NULL;
	char sql[512];

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	for (int i = 0; i < 2; i++)
		gcc_signature(&g[i], first[i]);
	/* both stored by a first run */
	make_lesson(&l, "src/a.c", "two errors", "gcc");
	run.sigs = g;
	run.nsigs = 2;
	assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, &err), 0);
	callus_lesson_release(&l);
	/* the second run lists the second signature only, its original now
	 * another message; its errors name both, one no signature stored,
	 * one none */
	free(g[1].original);
	assert_non_null(g[1].original = strdup("'b' is never used, again"));
	for (size_t z = 0; z < sizeof(sizes) / sizeof(*sizes); z++) {
		size_t n = 0;

		for (size_t e = 0; e < sizes[z]; e++) {
			static const char *const other =
				"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
			static const char *const msg[] = {
				"'b' is never used", "'b' is never used, again", "'a' undeclared here",
				"'a' undeclared there", "'c' undeclared", "make: *** [all] Error 1",
				"'b' is never used",
			};
			const char *sig[] = { g[1].id, g[1].id, g[0].id, g[0].id, other, NULL, g[1].id };

			add_run_error(&errs, sig[e % 7], msg[e % 7]);
			/* each its own line: the rows' order */
			errs.items[errs.count - 1].line = (long)e + 1;
		}
		make_lesson(&l, "src/a.c", "the errors again", "gcc");
		run.sigs = &g[1];
		run.nsigs = 1;
		run.diags = &errs;
		assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, &err), 0);
		/* the run's rows: their message, and which signature (0: none) */
		snprintf(sql, sizeof(sql),
			 "SELECT e.message, coalesce((SELECT CASE g.id WHEN '%s' THEN 1 WHEN '%s'"
			 " THEN 2 END FROM signatures g WHERE g.sig = e.sig), 0), e.sig IS NULL,"
			 " e.line, e.file, e.col FROM run_errors e"
			 " WHERE e.run_id = (SELECT max(id) FROM runs) ORDER BY e.rowid",
			 g[0].id, g[1].id);
		assert_int_equal(sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL),
				 SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			assert_true(n < sizes[z]);
			assert_string_equal((const char *)sqlite3_column_text(st, 0), want[n % 7]);
			assert_int_equal(sqlite3_column_int(st, 1), named[n % 7]);
			assert_int_equal(sqlite3_column_int(st, 2), !named[n % 7]);
			assert_int_equal(sqlite3_column_int(st, 3), (int)n + 1);
			assert_string_equal((const char *)sqlite3_column_text(st, 4), "src/a.c");
			assert_int_equal(sqlite3_column_int(st, 5), 1);
			n++;
		}
		sqlite3_finalize(st);
		assert_int_equal(n, sizes[z]);
		callus_diags_release(&errs);
		callus_lesson_release(&l);
	}
	/* the stored original is still the first one */
	assert_int_equal(query_int(s, "SELECT count(*) FROM signatures"
				      " WHERE original = char(39) || 'b' || char(39) || ' is never used'"),
			 1);
	for (int i = 0; i < 2; i++)
		callus_signature_release(&g[i]);
	callus_store_close(s);
	callus_error_release(&err);
}

/* A signature stored again counts one more occurrence, keeps its first
 * original, moves its first and last sightings out to the run's time (a
 * late run's too) and takes the run's context; one new to the store is
 * added, and one the run lists twice is counted twice. */
static void signatures_counted_run_by_run(void **state)
{
	static const char *const at[] = { "2026-03-02T10:00:00Z", "2026-03-01T09:00:00Z",
					  "2026-03-05T12:00:00Z", "2026-03-03T08:00:00Z" };
	static const char *const ctx_of[] = { "framework:jest", "framework:vitest", NULL, NULL };
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson l;
	callus_signature g[2];
	callus_run_info run = { .cwd = "", .intent_id = "session-1", .output_bytes = 10 };
	callus_error err = CALLUS_ERROR_INIT;
	char sql[512];

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	gcc_signature(&g[0], "'a' undeclared here");
	gcc_signature(&g[1], "'b' is never used");
	for (int r = 0; r < 4; r++) {
		callus_signature listed[3];

		callus_strlist_release(&g[0].context_patterns);
		if (ctx_of[r])
			assert_int_equal(callus_strlist_add(&g[0].context_patterns, ctx_of[r],
							    strlen(ctx_of[r])), 0);
		/* the first three runs list the first; the last lists it
		 * twice, the second (new then) between */
		listed[0] = listed[2] = g[0];
		listed[1] = g[1];
		run.sigs = listed;
		run.nsigs = r < 3 ? 1 : 3;
		make_lesson(&l, "src/a.c", "errors", "gcc");
		assert_non_null(l.last_seen = strdup(at[r]));
		assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, &err), 0);
		callus_lesson_release(&l);
		/* the second's original moves; the stored one stays */
		free(g[0].original);
		assert_non_null(g[0].original = strdup("'a' undeclared there"));
	}
	snprintf(sql, sizeof(sql),
		 "SELECT occurrence_count = 5 AND first_seen = unixepoch('%s')"
		 " AND last_seen = unixepoch('%s') AND ctx = 0"
		 " AND original = char(39) || 'a' || char(39) || ' undeclared here'"
		 " FROM signatures WHERE id = '%s'",
		 at[1], at[2], g[0].id);
	assert_int_equal(query_int(s, sql), 1);
	snprintf(sql, sizeof(sql),
		 "SELECT occurrence_count = 1 AND first_seen = unixepoch('%s')"
		 " AND last_seen = first_seen FROM signatures WHERE id = '%s'",
		 at[3], g[1].id);
	assert_int_equal(query_int(s, sql), 1);
	/* a context once given to a run is stored, and named by the run of it */
	assert_int_equal(query_int(s, "SELECT count(*) FROM contexts"), 2);
	assert_int_equal(query_int(s, "SELECT signatures FROM totals"), 2);
	assert_int_equal(query_int(s, "SELECT count(*) FROM signatures_unindexed"), 2);
	for (int i = 0; i < 2; i++)
		callus_signature_release(&g[i]);
	callus_store_close(s);
	callus_error_release(&err);
}

/* A run delivered twice under one origin (a hook's queued failure replayed
 * after its commit) is stored once; another origin, or none, is another
 * run. */
/* Marks that only move up, whoever writes last: a watermark compared as a
 * number ("9" is below "10"), a time as text; and a claim keeps the first
 * value written. */
static void marks_only_move_up(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	char *v = NULL;

	assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
	assert_int_equal(callus_store_state_raise(s, "watermark.team", "10", 1), SQLITE_OK);
	assert_int_equal(callus_store_state_raise(s, "watermark.team", "9", 1), SQLITE_OK);
	assert_int_equal(callus_store_state_get(s, "watermark.team", &v, NULL), 0);
	assert_string_equal(v, "10");
	free(v);
	assert_int_equal(callus_store_state_raise(s, "watermark.team", "11", 1), SQLITE_OK);
	assert_int_equal(callus_store_state_get(s, "watermark.team", &v, NULL), 0);
	assert_string_equal(v, "11");
	free(v);
	assert_int_equal(callus_store_state_raise(s, "gone", "2026-03-01T00:00:00.000Z", 0),
			 SQLITE_OK);
	assert_int_equal(callus_store_state_raise(s, "gone", "2026-02-01T00:00:00.000Z", 0),
			 SQLITE_OK);
	assert_int_equal(callus_store_state_get(s, "gone", &v, NULL), 0);
	assert_string_equal(v, "2026-03-01T00:00:00.000Z");
	free(v);
	assert_int_equal(callus_store_state_claim(s, "instance", "a", &v, NULL), 0);
	assert_string_equal(v, "a");
	free(v);
	assert_int_equal(callus_store_state_claim(s, "instance", "b", &v, NULL), 0);
	assert_string_equal(v, "a");
	free(v);
	callus_store_close(s);
}

static void origin_is_recorded_once(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson l;
	callus_error err = CALLUS_ERROR_INIT;
	callus_run_info run = { .cwd = "", .intent_id = "session-1", .output_bytes = 10,
				.origin = "0000000000000000042-7" };
	callus_run_info other = run;

	other.origin = "0000000000000000043-7";
	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	make_lesson(&l, "src/app.js", "src/app.js:4:9 'x' is unused", "eslint");
	assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, &err), 0);
	assert_int_equal(l.occurrences, 1);
	assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, &err), CALLUS_EEXIST);
	assert_non_null(strstr(callus_error_message(&err), "already recorded"));
	callus_error_release(&err);
	/* the first owes no learning, the second does, until it is learnt */
	other.learn_owed = 1;
	assert_int_equal(callus_store_record_lesson(s, &l, &other, NULL, &err), 0);
	assert_int_equal(l.occurrences, 2);
	assert_int_equal(callus_store_learn_owed(s, run.origin, &err), 0);
	assert_int_equal(callus_store_learn_owed(s, other.origin, &err), 1);
	assert_int_equal(callus_store_learn_owed(s, "0000000000000000044-7", &err), 0);
	assert_int_equal(callus_store_learn_owed(s, NULL, &err), 0);
	assert_int_equal(callus_store_record_lesson(s, &l, &other, NULL, &err), CALLUS_EEXIST);
	callus_error_release(&err);
	assert_int_equal(callus_store_record_lesson(s, &l, NULL, NULL, &err), 0);
	assert_int_equal(l.occurrences, 3);
	callus_lesson_release(&l);
	callus_store_close(s);
	callus_error_release(&err);
}

/* What callus import reads to tell the failures a hook recorded: every run
 * with a session, less those of an origin it skips (its own), by session,
 * command and time. */
static void runs_seen_leave_out_an_imports_own(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson l;
	callus_error err = CALLUS_ERROR_INIT;
	callus_run_seen *r = NULL;
	size_t n = 99;
	const struct {
		const char *session, *origin, *at;
	} runs[] = {
		{ "s-b", NULL, "2026-03-01T10:00:05.250Z" },  /* a hook's */
		{ "s-a", "import:00ff", "2026-03-01T10:00:06.000Z" }, /* an import's */
		{ "", NULL, "2026-03-01T10:00:07.000Z" },     /* no session */
		{ "s-a", "0000000000000000042-7", "2026-03-01T10:00:04.000Z" }, /* queued */
	};

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	assert_int_equal(callus_store_runs_seen(s, "import:", &r, &n, NULL, &err), 0);
	assert_int_equal(n, 0);
	callus_runs_seen_free(r, n);
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		callus_run_info run = { .cwd = "", .intent_id = runs[i].session,
					.origin = runs[i].origin };

		make_lesson(&l, "src/app.js", "src/app.js:4:9 'x' is unused", "eslint");
		l.last_seen = strdup(runs[i].at);
		assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, &err), 0);
		callus_lesson_release(&l);
	}
	assert_int_equal(callus_store_runs_seen(s, "import:", &r, &n, NULL, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(r[0].session, "s-a");
	assert_string_equal(r[0].command, "npx eslint .");
	assert_int_equal(r[0].at, 1772359204); /* 2026-03-01T10:00:04Z */
	assert_string_equal(r[1].session, "s-b");
	assert_int_equal(r[1].at, 1772359205);
	callus_runs_seen_free(r, n);
	assert_int_equal(callus_store_runs_seen(s, NULL, &r, &n, NULL, &err), 0);
	assert_int_equal(n, 3);
	assert_int_equal(r[0].at, 1772359204);
	assert_int_equal(r[1].at, 1772359206);
	callus_runs_seen_free(r, n);
	callus_store_close(s);
	callus_error_release(&err);
}

static void lists_and_filters(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson l, *ls = NULL, got;
	size_t n = 0;
	callus_error err = CALLUS_ERROR_INIT;
	callus_lesson_filter by_file = { .file = "src/other.js" };
	callus_lesson_filter by_tool = { .tool = "jest" };
	callus_lesson_filter by_type = { .type = "test" };
	callus_lesson_filter limit = { .limit = 1 };
	callus_lesson_filter by_primary = { .file = "src/b.test.js" };
	sqlite3_stmt *st = NULL;

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	make_lesson(&l, "src/a.js", "first", "eslint");
	assert_int_equal(callus_store_record_lesson(s, &l, NULL, NULL, &err), 0);
	callus_lesson_release(&l);
	make_lesson(&l, "src/b.test.js", "second", "jest");
	l.type = CALLUS_LESSON_TEST;
	free(l.last_seen);
	l.last_seen = strdup("2999-01-01T00:00:00.000Z");
	assert_int_equal(callus_store_record_lesson(s, &l, NULL, NULL, &err), 0);
	callus_lesson_release(&l);

	assert_int_equal(callus_store_list_lessons(s, NULL, &ls, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ls[0].tool, "jest"); /* newest first */
	callus_lessons_free(ls, n);
	assert_int_equal(callus_store_list_lessons(s, &by_file, &ls, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ls[0].affected_count, 2);
	assert_string_equal(ls[0].affected_files[1], "src/other.js");
	/* one left out by its id; a brief list reads no affected files */
	by_file.except = ls[0].id;
	by_file.brief = 1;
	callus_lessons_free(ls, n);
	assert_int_equal(callus_store_list_lessons(s, &by_file, &ls, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ls[0].tool, "eslint");
	assert_string_equal(ls[0].file, "src/a.js");
	assert_string_equal(ls[0].error_summary, "first");
	assert_int_equal(ls[0].affected_count, 0);
	callus_lessons_free(ls, n);
	assert_int_equal(callus_store_list_lessons(s, &by_tool, &ls, &n, &err), 0);
	assert_int_equal(n, 1);
	callus_lessons_free(ls, n);
	assert_int_equal(callus_store_list_lessons(s, &by_type, &ls, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ls[0].type, CALLUS_LESSON_TEST);
	callus_lessons_free(ls, n);
	assert_int_equal(callus_store_list_lessons(s, &limit, &ls, &n, &err), 0);
	assert_int_equal(n, 1);
	callus_lessons_free(ls, n);
	/* by a primary file as by an affected one, through lesson_files: the
	 * store keeps no index of lessons by their file (schema 29) */
	assert_int_equal(callus_store_list_lessons(s, &by_primary, &ls, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ls[0].tool, "jest");
	callus_lessons_free(ls, n);
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(s),
					    "SELECT count(*) FROM sqlite_schema WHERE name = 'lessons_file'",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), 0);
	sqlite3_finalize(st);

	assert_int_equal(callus_store_get_lesson(s, "99", &got, &err), CALLUS_ENOTFOUND);
	callus_error_release(&err);
	assert_int_equal(callus_store_get_lesson(s, "zz", &got, &err), CALLUS_EINVAL);
	callus_error_release(&err);
	callus_store_close(s);
}

/* A lesson by id, or by a prefix of its signature (6 hex digits or more,
 * read as a range of the signatures' index): one lesson, none, more than
 * one, a prefix too short or not lowercase hex. */
static void lessons_by_signature_prefix(void **state)
{
	fixture *f = *state;
	static const char *const sigs[] = { "abcdef", "abcdef1", "abcdf0" };
	callus_store *s = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_lesson l, got;
	char full[3][65], summary[32];
	int is_new;

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	for (int i = 0; i < 3; i++) {
		char sql[160];

		snprintf(summary, sizeof(summary), "error number %d", i);
		make_lesson(&l, "src/app.js", summary, "eslint");
		assert_int_equal(callus_store_record_lesson(s, &l, NULL, &is_new, &err), 0);
		/* the prefixes the cases need, padded with zeros */
		snprintf(full[i], sizeof(full[i]), "%s%0*d", sigs[i], (int)(64 - strlen(sigs[i])), 0);
		snprintf(sql, sizeof(sql), "UPDATE lessons SET signature = '%s' WHERE id = %lld",
			 full[i], (long long)l.id);
		assert_int_equal(sqlite3_exec(callus_store_db(s), sql, NULL, NULL, NULL), SQLITE_OK);
		callus_lesson_release(&l);
	}
	assert_int_equal(callus_store_get_lesson(s, "abcdef0", &got, &err), 0);
	assert_string_equal(got.signature, full[0]);
	callus_lesson_release(&got);
	assert_int_equal(callus_store_get_lesson(s, "abcdef1", &got, &err), 0);
	assert_string_equal(got.signature, full[1]);
	callus_lesson_release(&got);
	assert_int_equal(callus_store_get_lesson(s, full[2], &got, &err), 0);
	assert_string_equal(got.error_summary, "error number 2");
	callus_lesson_release(&got);
	assert_int_equal(callus_store_get_lesson(s, "abcdf0", &got, &err), 0);
	assert_string_equal(got.signature, full[2]);
	callus_lesson_release(&got);
	/* two lessons, none (the last digit f), too short, not lowercase */
	assert_int_equal(callus_store_get_lesson(s, "abcdef", &got, &err), CALLUS_EINVAL);
	callus_error_release(&err);
	assert_int_equal(callus_store_get_lesson(s, "abcdeff", &got, &err), CALLUS_ENOTFOUND);
	callus_error_release(&err);
	assert_int_equal(callus_store_get_lesson(s, "abcdf", &got, &err), CALLUS_EINVAL);
	callus_error_release(&err);
	assert_int_equal(callus_store_get_lesson(s, "ABCDF0", &got, &err), CALLUS_EINVAL);
	callus_error_release(&err);
	callus_store_close(s);
}

/* A new store is made from src/store_fresh.inc, not by the migrations one
 * by one: that script must be what they make.  A store begun at schema 1
 * (by the first migration) takes the others one at a time; dumped
 * (callus_store_schema_dump: every object's SQL in order, every row), it is
 * the script, and with the new store's redaction mark added it is the new
 * store.  Fails when a migration is added and scripts/store_fresh.sh is not
 * run again. */
static void a_new_store_is_the_migrations_store(void **state)
{
	fixture *f = *state;
	callus_store *fresh = NULL, *steps = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf a = CALLUS_BUF_INIT, b = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	const char *script;
	sqlite3 *db;
	int version = -1;

	script = callus_store_fresh_sql(&version);
	if (version != CALLUS_STORE_SCHEMA_VERSION)
		fail_msg("src/store_fresh.inc makes schema %d, the migrations %d: run "
			 "scripts/store_fresh.sh", version, CALLUS_STORE_SCHEMA_VERSION);
	callus_buf_printf(&path, "%s/steps.db", f->dir);
	assert_int_equal(sqlite3_open(path.ptr, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, callus_store_migration_sql(0), NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(callus_store_open(&steps, path.ptr, 1000, &err), 0);
	assert_int_equal(callus_store_schema_dump(steps, &b), 0);
	if (strcmp(script, b.ptr))
		fail_msg("src/store_fresh.inc is not what the migrations make: run "
			 "scripts/store_fresh.sh");
	callus_buf_clear(&b);
	callus_buf_printf(&b, "INSERT INTO sync_state (key, value) VALUES ('" CALLUS_STORE_REDACT_MARK
			      "', '%d')", CALLUS_REDACT_VERSION);
	assert_int_equal(callus_store_exec(steps, b.ptr, &err), 0);
	callus_buf_clear(&b);
	assert_int_equal(callus_store_schema_dump(steps, &b), 0);

	assert_int_equal(callus_store_open(&fresh, f->path, 1000, &err), 0);
	assert_int_equal(callus_store_schema_version(fresh), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(callus_store_schema_version(steps), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(callus_store_schema_dump(fresh, &a), 0);
	assert_true(a.len > 20000);
	assert_non_null(strstr(a.ptr, "INSERT INTO \"totals\""));
	assert_string_equal(a.ptr, b.ptr);
	assert_int_equal(callus_store_query_int(fresh, "SELECT count(*) FROM pragma_foreign_key_check"),
			 0);
	callus_store_close(fresh);
	callus_store_close(steps);
	callus_buf_release(&a);
	callus_buf_release(&b);
	callus_buf_release(&path);
	callus_error_release(&err);
}

static void refuses_newer_and_corrupt_stores(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	sqlite3 *db;
	FILE *fp;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(callus_store_open(&s, f->path, 100, &err), CALLUS_EINVAL);
	assert_non_null(strstr(callus_error_message(&err), "newer"));
	assert_null(s);
	callus_error_release(&err);

	unlink(f->path);
	fp = fopen(f->path, "wb");
	for (int i = 0; i < 4096; i++)
		fputc((i * 7919) & 0xff, fp);
	fclose(fp);
	assert_true(callus_store_open(&s, f->path, 100, &err) < 0);
	assert_non_null(strstr(callus_error_message(&err), "not a database"));
	callus_error_release(&err);
}

static void signature_ignores_numbers_not_words(void **state)
{
	callus_lesson a, b, c;

	(void)state;
	make_lesson(&a, "src/app.js", "app.js:4:9  error 'x' unused (3 ms)", "eslint");
	make_lesson(&b, "src/app.js", "app.js:40:19  error  'x' unused (12 ms)", "eslint");
	make_lesson(&c, "src/app.js", "app.js:4:9  error 'y' unused (3 ms)", "eslint");
	assert_string_equal(a.signature, b.signature);
	assert_string_not_equal(a.signature, c.signature);
	free(c.file);
	c.file = strdup("src/other.js");
	free(c.error_summary);
	c.error_summary = strdup(a.error_summary);
	assert_int_equal(callus_lesson_sign(&c), 0);
	assert_string_not_equal(a.signature, c.signature);
	callus_lesson_release(&a);
	callus_lesson_release(&b);
	callus_lesson_release(&c);
}

static void expect_signatures(const char *summary_a, const char *summary_b, int same)
{
	callus_lesson a, b;

	make_lesson(&a, "sum.test.js", summary_a, "jest");
	make_lesson(&b, "sum.test.js", summary_b, "jest");
	if (same)
		assert_string_equal(a.signature, b.signature);
	else
		assert_string_not_equal(a.signature, b.signature);
	callus_lesson_release(&a);
	callus_lesson_release(&b);
}

/* Durations come and go with the clock: jest prints a test's "(4 ms)"
 * only above a millisecond, and an estimate once it has timed a run. */
static void signature_ignores_durations(void **state)
{
	static const char first[] = "FAIL sum \xe2\x80\xba adds at sum.test.js:5:23\n"
				    "\xe2\x9c\x95 adds 1 + 2 (4 ms)\n"
				    "Time:        0.421 s\nRan all test suites.";

	(void)state;
	expect_signatures(first,
			  "FAIL sum \xe2\x80\xba adds at sum.test.js:5:23\n"
			  "\xe2\x9c\x95 adds 1 + 2\n"
			  "Time:        0.283 s, estimated 1 s\nRan all test suites.",
			  1);
	expect_signatures(first,
			  "FAIL sum \xe2\x80\xba adds at sum.test.js:5:23\n"
			  "\xe2\x9c\x95 adds 1 + 2 [1.2s]\nDone in 3s\nRan all test suites.",
			  1);
	/* what the line says besides its duration still counts */
	expect_signatures(first,
			  "FAIL sum \xe2\x80\xba adds at sum.test.js:5:23\n"
			  "\xe2\x9c\x95 subtracts 1 + 2 (4 ms)\n"
			  "Time:        0.421 s\nRan all test suites.",
			  0);
	expect_signatures("--- FAIL: TestAdd (0.00s)", "--- FAIL: TestSub (0.01s)", 0);
	expect_signatures("timed out after 5 seconds", "timed out after 30s", 1);
	/* go's minutes and hours glued before the seconds */
	expect_signatures("ok  \texample.com/pkg\t1m30.5s", "ok  \texample.com/pkg\t45.2s", 1);
	expect_signatures("panic: test timed out after 10m0s", "panic: test timed out after 2h0m0s",
			  1);
	/* a word of another script is no timing word: the line stays */
	expect_signatures("\xe9\x94\x99\xe8\xaf\xaf 5s", "\xe5\xa4\xb1\xe8\xb4\xa5 5s", 0);
	/* a number is not a duration for the letter after it */
	expect_signatures("3 sessions left open", "sessions left open", 0);
	expect_signatures("build v1.2s failed", "build v failed", 0);
	expect_signatures("Expected: 4\nReceived: 3", "Expected: 4\nReceived: 3 ms", 0);
	/* two pipes' lines in either order */
	expect_signatures("database connection refused\nmake: *** [Makefile:2: check] Error 1",
			  "make: *** [Makefile:2: check] Error 1\ndatabase connection refused", 1);
}

static void add_error(callus_diags *d, const char *file, const char *test, const char *sig)
{
	callus_diag *e;

	assert_int_equal(callus_diags_add(d, file, 4, 2, NULL, 0, "boom", 4, NULL), 0);
	e = callus_diags_last(d);
	if (test)
		e->test = strdup(test);
	e->signature = strdup(sig);
}

static char *errors_signature(const char *const *errs, size_t n, int vague_last, size_t dropped)
{
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_lesson l;
	char *sig;

	make_lesson(&l, "first.js", "whatever the summary kept", "jest");
	for (size_t i = 0; i < n; i += 3)
		add_error(&d, errs[i], errs[i + 1], errs[i + 2]);
	if (vague_last)
		d.items[d.count - 1].vague = vague_last;
	d.dropped = dropped;
	assert_int_equal(callus_lesson_sign_errors(&l, &d), 0);
	sig = strdup(l.signature);
	callus_lesson_release(&l);
	callus_diags_release(&d);
	return sig;
}

/* What failed, whatever the order a runner's workers printed it in. */
static void errors_sign_the_lesson_in_any_order(void **state)
{
	static const char *const ab[] = { "a.test.js", "adds", "s1", "b.test.js", "parses", "s2" };
	static const char *const ba[] = { "b.test.js", "parses", "s2", "a.test.js", "adds", "s1",
					  "a.test.js", "adds", "s1" };
	static const char *const other_test[] = { "a.test.js", "adds", "s1", "b.test.js", "splits",
						  "s2" };
	static const char *const fewer[] = { "a.test.js", "adds", "s1" };
	/* make's "target 'check' failed": no file, no test */
	static const char *const recipe[] = { NULL, NULL, "s3" };
	char *sab, *sba, *sother, *sfewer, *sgeneric, *scatchall, *srecipe, *sfewer_recipe, *summary;
	callus_lesson l;

	(void)state;
	sab = errors_signature(ab, 6, 0, 0);
	sba = errors_signature(ba, 9, 0, 0);
	sother = errors_signature(other_test, 6, 0, 0);
	sfewer = errors_signature(fewer, 3, 0, 0);
	sgeneric = errors_signature(ab, 6, CALLUS_DIAG_GENERIC, 0);
	scatchall = errors_signature(fewer, 3, CALLUS_DIAG_CATCHALL, 0);
	srecipe = errors_signature(recipe, 3, 0, 0);
	{
		static const char *const with_recipe[] = { "a.test.js", "adds", "s1", NULL, NULL, "s3" };

		sfewer_recipe = errors_signature(with_recipe, 6, 0, 0);
	}
	make_lesson(&l, "first.js", "whatever the summary kept", "jest");
	summary = strdup(l.signature);
	assert_string_equal(sab, sba);
	assert_string_not_equal(sab, sother);
	assert_string_not_equal(sab, sfewer);
	assert_string_not_equal(sab, summary);
	/* one error the generic extractor found: the summary says more */
	assert_string_equal(sgeneric, summary);
	/* what only says the command failed leaves it to the summary, and
	 * beside what failed counts for nothing */
	assert_string_equal(scatchall, summary);
	assert_string_equal(srecipe, summary);
	assert_string_equal(sfewer_recipe, sfewer);
	/* past CALLUS_DIAGS_MAX, which were kept hangs on their order */
	{
		char *sdropped = errors_signature(ab, 6, 0, 1);

		assert_string_equal(sdropped, summary);
		free(sdropped);
	}
	callus_lesson_release(&l);
	free(sab);
	free(sba);
	free(sother);
	free(sfewer);
	free(sgeneric);
	free(scatchall);
	free(srecipe);
	free(sfewer_recipe);
	free(summary);
}

/* The signature callus gave before durations were left out, as callus
 * fe92d98 gave it (`callus record --file sum.test.js --summary ...`, then
 * `callus lessons --json`): stores recorded then are keyed by it. */
static void former_signature_is_the_earlier_one(void **state)
{
	callus_lesson l;
	char former[CALLUS_SHA256_HEX_LEN + 1];

	(void)state;
	make_lesson(&l, "sum.test.js",
		    "FAIL sum \xe2\x80\xba adds 1 + 2 to equal 3 at sum.test.js:5:23\n"
		    "Time:        0.283 s, estimated 1 s",
		    "jest");
	assert_int_equal(callus_lesson_sign_former(&l, former), 0);
	assert_string_equal(former, "ce3ee607f50c8715040460006654e745c2c3ce101ed7c0f74ef32057aec6a5ca");
	assert_string_not_equal(l.signature, former);
	callus_lesson_release(&l);
}

/* A lesson an earlier callus stored under its former signature gains the
 * recurrence; one stored under its own signature is preferred. */
static void former_signature_finds_the_stored_lesson(void **state)
{
	static const char summary[] = "FAIL adds at sum.test.js:5:23\nTime: 0.3 s, estimated 1 s";
	fixture *f = *state;
	callus_store *s = NULL;
	callus_lesson old, l, own, again;
	callus_error err = CALLUS_ERROR_INIT;
	char former[CALLUS_SHA256_HEX_LEN + 1];
	int is_new = -1;

	assert_int_equal(callus_store_open(&s, f->path, 1000, &err), 0);
	make_lesson(&old, "sum.test.js", summary, "jest");
	assert_int_equal(callus_lesson_sign_former(&old, former), 0);
	free(old.signature);
	old.signature = strdup(former);
	assert_int_equal(callus_store_record_lesson(s, &old, NULL, &is_new, &err), 0);
	assert_true(is_new);

	make_lesson(&l, "sum.test.js", summary, "jest");
	assert_string_not_equal(l.signature, former);
	assert_int_equal(callus_store_lesson_known_as(s, &l, former, &err), 0);
	assert_string_equal(l.signature, former);
	assert_int_equal(callus_store_record_lesson(s, &l, NULL, &is_new, &err), 0);
	assert_false(is_new);
	assert_int_equal(l.id, old.id);
	assert_int_equal(l.occurrences, 2);

	/* once a lesson has the signature of today, it is the one */
	make_lesson(&own, "sum.test.js", summary, "jest");
	assert_int_equal(callus_store_record_lesson(s, &own, NULL, &is_new, &err), 0);
	assert_true(is_new);
	make_lesson(&again, "sum.test.js", summary, "jest");
	assert_int_equal(callus_store_lesson_known_as(s, &again, former, &err), 0);
	assert_string_equal(again.signature, own.signature);
	assert_int_equal(callus_store_record_lesson(s, &again, NULL, &is_new, &err), 0);
	assert_false(is_new);
	assert_int_equal(again.id, own.id);

	callus_lesson_release(&old);
	callus_lesson_release(&l);
	callus_lesson_release(&own);
	callus_lesson_release(&again);
	callus_store_close(s);
	callus_error_release(&err);
}

/* The -wal file's size, 0 when there is none. */
static off_t wal_size(const fixture *f)
{
	char wal[160];
	struct stat st;

	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	return stat(wal, &st) == 0 ? st.st_size : 0;
}

/* The seconds callus_sql_bind_epoch() binds are SQLite's unixepoch() of
 * the same text, for times of callus's own format from 1970 to 9999 (each
 * month's last days, leap years); other texts are bound as NULL, which
 * CALLUS_SQL_EPOCH_KNOWN leaves to SQLite: the two give one value for
 * every text. */
static void epoch_bound_as_sqlite_reads_it(void **state)
{
	static const char *const others[] = {
		"2026-12-04T14:35:10Z", "2026-12-04T14:35:10.123+02:00", "2026-12-04 14:35:10.123Z",
		"2026-12-04T14:35:10.1234Z", "2026-02-30T00:00:00.000Z", "2026-13-01T00:00:00.000Z",
		"2026-12-04T24:00:00.000Z", "x026-12-04T14:35:10.123Z", "", "now",
		/* before 1970, where a count of seconds is negative */
		"1969-12-31T23:59:59.999Z", "0000-01-01T00:00:00.000Z",
	};
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	uint64_t x = 0x9e3779b97f4a7c15u;
	char now[CALLUS_TIME_ISO8601_LEN + 1];

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "SELECT ?1, unixepoch(?2), " CALLUS_SQL_EPOCH_KNOWN("?1", "?2")
					    ", " CALLUS_SQL_EPOCH("?2"),
					    -1, &st, NULL),
			 SQLITE_OK);
	for (int round = 0; round < 20000; round++) {
		long long sec;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* days' ends and beginnings often, any second of 1970 - 9999 */
		sec = (long long)(x % 253402300800ULL);
		if (round % 3 == 0)
			sec -= sec % 86400 + (round % 2);
		if (sec < 0)
			sec = 0;
		callus_time_iso8601_put(now, sec, (long)(x % 1000000000u));
		now[CALLUS_TIME_ISO8601_LEN] = '\0';
		callus_sql_bind_epoch(st, 1, now);
		callus_sql_bind_text(st, 2, now);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		if (sqlite3_column_type(st, 0) != SQLITE_INTEGER ||
		    sqlite3_column_int64(st, 0) != sqlite3_column_int64(st, 1) ||
		    sqlite3_column_int64(st, 0) != sec)
			fail_msg("%s: bound %lld, SQLite reads %lld", now,
				 (long long)sqlite3_column_int64(st, 0),
				 (long long)sqlite3_column_int64(st, 1));
		sqlite3_reset(st);
	}
	for (size_t k = 0; k < sizeof(others) / sizeof(*others); k++) {
		callus_sql_bind_epoch(st, 1, others[k]);
		callus_sql_bind_text(st, 2, others[k]);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_type(st, 0), SQLITE_NULL);
		/* either way the same second */
		assert_true(sqlite3_column_int64(st, 2) - sqlite3_column_int64(st, 3) <= 1);
		sqlite3_reset(st);
	}
	callus_sql_bind_epoch(st, 1, NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(st, 0), SQLITE_NULL);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* A column copied into a fixed buffer: cut to fit, always terminated, ""
 * for NULL (snprintf's "%s" gave "(null)"). */
static void column_copy_cuts_and_terminates(void **state)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char small[4], exact[7], roomy[16];

	(void)state;
	assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT 'abcdef', NULL, '', 42", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	memset(small, 'x', sizeof(small));
	callus_sql_column_copy(st, 0, small, sizeof(small));
	assert_string_equal(small, "abc");
	callus_sql_column_copy(st, 0, exact, sizeof(exact));
	assert_string_equal(exact, "abcdef");
	callus_sql_column_copy(st, 0, roomy, sizeof(roomy));
	assert_string_equal(roomy, "abcdef");
	callus_sql_column_copy(st, 1, roomy, sizeof(roomy));
	assert_string_equal(roomy, "");
	memset(roomy, 'x', sizeof(roomy));
	callus_sql_column_copy(st, 2, roomy, sizeof(roomy));
	assert_string_equal(roomy, "");
	callus_sql_column_copy(st, 3, roomy, sizeof(roomy));
	assert_string_equal(roomy, "42");
	callus_sql_column_copy(st, 0, small, 1);
	assert_string_equal(small, "");
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* n rows of sync_state of a page each (3,000 bytes of c), keys
 * "<c>0000"...: the store's pages filled a row at a time. */
static void put_page_rows(callus_store *s, char c, int n)
{
	for (int i = 0; i < n; i++) {
		char sql[160];

		snprintf(sql, sizeof(sql),
			 "INSERT INTO sync_state VALUES ('%c%04d', printf('%%.3000c', '%c'))", c, i, c);
		assert_int_equal(callus_store_exec(s, sql, NULL), 0);
	}
}

/* Processes that each open the store, commit once and close (a passing
 * check) keep the WAL small: the commit that finds it at
 * CALLUS_STORE_WAL_PAGES frames copies it into the store and empties it.
 * A WAL only copied was read whole by every later process and copied
 * again by each of them, and grew. */
static void wal_stays_small(void **state)
{
	fixture *f = *state;
	enum { FRAME = 4096 + 24, ROUNDS = 3 * CALLUS_STORE_WAL_PAGES };
	off_t most = 0;

	for (int i = 0; i < ROUNDS; i++) {
		callus_store *s = NULL;
		char sql[160];
		off_t now;

		assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
		/* a few pages a commit: one row of sync_state, a key of its own */
		snprintf(sql, sizeof(sql),
			 "INSERT INTO sync_state VALUES ('k%04d', printf('%%.3000c', 'x'))", i);
		assert_int_equal(callus_store_exec(s, sql, NULL), 0);
		callus_store_close(s);
		now = wal_size(f);
		if (now > most)
			most = now;
	}
	/* at most the frames before emptying, and the commit's own; and
	 * not emptied before */
	assert_true(most <= (CALLUS_STORE_WAL_PAGES + 8) * FRAME);
	assert_true(most > CALLUS_STORE_WAL_PAGES / 2 * FRAME);
	{
		callus_store *s = NULL;

		assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
		assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM sync_state"
							      " WHERE key <> '" CALLUS_STORE_REDACT_MARK "'"),
			 ROUNDS);
		/* a batch may let it grow further; its close empties it */
		callus_store_wal_pages(s, 100000);
		assert_int_equal(callus_store_exec(s, "BEGIN", NULL), 0);
		put_page_rows(s, 'b', 200);
		assert_int_equal(callus_store_exec(s, "COMMIT", NULL), 0);
		assert_true(wal_size(f) > 100 * FRAME);
		callus_store_close(s);
		assert_int_equal(wal_size(f), 0);
	}
}

/* The pages a connection keeps read (callus_store_cache_pages, what a
 * recording asks for): a read of 300 pages kept whole as opened (the
 * store's bulk commands reread theirs), under 100 of them when 64 are
 * asked, whole again when asked back to what it opened with (0); a
 * transaction of more pages than 64 spills to the WAL and commits whole. */
static size_t cache_after_reading(const char *path, const int *asks, size_t nasks)
{
	callus_store *s = NULL;
	int used = 0, high = 0;

	assert_int_equal(callus_store_open(&s, path, 1000, NULL), 0);
	for (size_t i = 0; i < nasks; i++)
		callus_store_cache_pages(s, asks[i]);
	assert_int_equal(callus_store_query_int(s, "SELECT sum(length(value)) FROM sync_state"
							   " WHERE key <> '" CALLUS_STORE_REDACT_MARK "'"),
			 300 * 3000);
	assert_int_equal(sqlite3_db_status(callus_store_db(s), SQLITE_DBSTATUS_CACHE_USED, &used,
					   &high, 0),
			 SQLITE_OK);
	callus_store_close(s);
	return (size_t)used;
}

static void page_cache_as_asked(void **state)
{
	static const int small[] = { 64 }, back[] = { 64, 0 }, opened[] = { 0 };
	fixture *f = *state;
	enum { PAGE = 4096 };
	callus_store *s = NULL;

	assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
	callus_store_cache_pages(s, 64);
	assert_int_equal(callus_store_exec(s, "BEGIN", NULL), 0);
	put_page_rows(s, 'p', 300);
	assert_int_equal(callus_store_exec(s, "COMMIT", NULL), 0);
	callus_store_close(s);

	assert_true(cache_after_reading(f->path, NULL, 0) > 250 * PAGE);
	assert_true(cache_after_reading(f->path, opened, 1) > 250 * PAGE);
	assert_true(cache_after_reading(f->path, small, 1) < 100 * (PAGE + 512));
	assert_true(cache_after_reading(f->path, back, 2) > 250 * PAGE);
}

/* sql run on db, the test failed with SQLite's message when it fails. */
static void exec_or_fail(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(db));
}

/* The counts the triggers keep that no total holds: the noted count (the
 * built-in vectors of signatures with a note or a cached note, once per
 * note) and each model's vectors and aliases' vectors. */
#define COUNTS_TRUE                                                                        \
	"SELECT (SELECT n FROM noted_count) = (SELECT count(*) FROM signatures g"           \
	"  JOIN note_signatures x ON x.signature_id = g.id JOIN signature_vectors v"       \
	"  ON v.sig = g.rowid AND v.model = 1) + (SELECT count(*) FROM signatures g"        \
	"  JOIN note_cache c ON c.signature_id = g.id JOIN signature_vectors v"            \
	"  ON v.sig = g.rowid AND v.model = 1)"                                             \
	" AND (SELECT n FROM vector_models WHERE id = 1) ="                                 \
	"  (SELECT count(*) FROM signature_vectors WHERE model = 1)"                        \
	" AND (SELECT aliased FROM vector_models WHERE id = 1) = (SELECT count(*)"          \
	"  FROM signature_links l JOIN signatures g ON g.id = l.alias_id"                   \
	"  JOIN signature_vectors v ON v.sig = g.rowid AND v.model = 1)"                     \
	" AND (SELECT applications FROM notes WHERE id = 'n1') = (SELECT"                   \
	"  coalesce(sum(r.application_count), 0) FROM note_resolutions x"                  \
	"  JOIN resolutions r ON r.id = x.resolution_id WHERE x.note_id = 'n1')"

/* Schema 46 joins the triggers of one table and one event: a store
 * migrated from 45, counts in every kept count, keeps them true through
 * every change the joined triggers see (a vector of a noted, cached and
 * aliased signature added and removed, a cached note, a fix counted and
 * removed, a signature removed with its vectors). */
static void joined_triggers_keep_the_counts(void **state)
{
	static const char *const before[] = {
		"INSERT INTO signatures (id, error_type, message_pattern, original, tool, first_seen,"
		" last_seen) VALUES ('g1', 'E', 'p', 'o', 'gcc', 1, 1),"
		" ('g2', 'E', 'q', 'o', 'gcc', 1, 1), ('g3', 'E', 'r', 'o', 'gcc', 1, 1),"
		" ('g4', 'E', 's', 'o', 'gcc', 1, 1)",
		"INSERT INTO notes (id, signature_id, layer, title, created_at, updated_at) VALUES"
		" ('n1', 'g1', 'session', 't', 't', 't')",
		"INSERT INTO note_signatures VALUES ('g1', 'n1')",
		"INSERT INTO signature_vectors VALUES (1, 1, x'00'), (3, 1, x'00')",
		"INSERT INTO signature_links VALUES ('g4', 'g3', 0.9, 'duplicate', 't')",
	};
	static const char *const steps[] = {
		"INSERT INTO signature_vectors VALUES (4, 1, x'00')",
		"INSERT INTO note_cache (layer, id, revision, signature_id, title, pulled_at)"
		" VALUES ('team', 'c1', 1, 'g2', 't', 't'), ('org', 'c2', 1, 'g1', 't', 't')",
		"INSERT INTO signature_vectors VALUES (2, 1, x'00')",
		"DELETE FROM signature_vectors WHERE sig = 1",
		"INSERT INTO signature_vectors VALUES (1, 1, x'00')",
		"DELETE FROM note_cache WHERE id = 'c1'",
		"INSERT INTO resolutions (signature_id, description, code_changes, application_count,"
		" success_count, created_at) VALUES ('g1', 'd', '+x', 3, 2, 't')",
		"INSERT INTO note_resolutions VALUES (1, 'n1')",
		"UPDATE resolutions SET application_count = 5, success_count = 4 WHERE id = 1",
		"UPDATE resolutions SET last_success_at = 't2' WHERE id = 1",
		"DELETE FROM resolutions WHERE id = 1",
		"DELETE FROM signatures WHERE id = 'g4'",
		"DELETE FROM signature_vectors WHERE sig = 3",
		"DELETE FROM signatures WHERE id = 'g1'",
	};
	fixture *f = *state;
	callus_store *s = NULL;
	sqlite3 *db = NULL;
	int drifted = -1;

	/* a store of schema 45, with rows in every count */
	assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
	callus_store_close(s);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, TEST_AS_BEFORE_46 "PRAGMA user_version = 45", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++)
		exec_or_fail(db, before[i]);
	sqlite3_close(db);

	assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
	assert_int_equal(callus_store_schema_version(s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM sqlite_schema"
						   " WHERE type = 'trigger'"),
			 31);
	assert_int_equal(callus_store_query_int(s, COUNTS_TRUE), 1);
	assert_int_equal(callus_store_query_int(s, "SELECT n FROM noted_count"), 1);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		exec_or_fail(callus_store_db(s), steps[i]);
		assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
		if (drifted || callus_store_query_int(s, COUNTS_TRUE) != 1)
			fail_msg("the counts drifted after %s", steps[i]);
		/* the steps moved each count on the way */
		if (i == 2)
			assert_int_equal(callus_store_query_int(s, "SELECT n FROM noted_count"), 3);
		if (i == 0)
			assert_int_equal(callus_store_query_int(s, "SELECT aliased FROM vector_models"),
					 1);
	}
	/* g2's vector is what is left */
	assert_int_equal(callus_store_query_int(s, "SELECT n FROM vector_models WHERE id = 1"), 1);
	assert_int_equal(callus_store_query_int(s, "SELECT aliased FROM vector_models WHERE id = 1"),
			 0);
	assert_int_equal(callus_store_query_int(s, "SELECT n FROM noted_count"), 0);
	assert_int_equal(callus_store_query_int(s, "SELECT signatures FROM totals"), 2);
	callus_store_close(s);
}

/* The totals `callus status` shows follow every change the store can see,
 * cascades included, and equal the rows counted after each; a hand edit
 * is found and counted again (doctor --fix), a deleted row read counted. */
static void totals_follow_every_change(void **state)
{
	static const char *const steps[] = {
		"INSERT INTO runs (at, tool, command, exit_code) VALUES ('t', 'gcc', 'gcc -c a.c', 1),"
		" ('t', 'gcc', 'gcc -c b.c', 1)",
		"INSERT INTO lessons (signature, timestamp, type, file, error_summary, tool, command,"
		" exit_code, last_seen) VALUES ('s1', 't', 'LINT', 'a.c', 'x', 'gcc', 'c', 1, 't'),"
		" ('s2', 't', 'LINT', 'b.c', 'y', 'gcc', 'c', 1, 't')",
		"INSERT INTO lesson_runs VALUES (1, 1), (2, 2)",
		"INSERT INTO checks (tool, args, dir) VALUES ('gcc', 'a.c', ''), ('gcc', 'b.c', '')",
		"INSERT INTO signatures (id, error_type, message_pattern, original, tool, first_seen,"
		" last_seen) VALUES ('g1', 'E', 'p', 'o', 'gcc', 1, 1),"
		" ('g2', 'E', 'q', 'o', 'gcc', 1, 1), ('g3', 'E', 'r', 'o', 'gcc', 1, 1)",
		/* g1, g2, g3: rowids 1, 2, 3 */
		"INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at)"
		" VALUES (1, 1, 't', 't'), (2, 2, 't', 't'), (1, 3, 't', 't')",
		"UPDATE pending_errors SET state = 'fixed' WHERE sig = 1",
		"UPDATE pending_errors SET state = 'permanent' WHERE sig = 2",
		"UPDATE pending_errors SET attempts = attempts + 1",
		"INSERT INTO resolutions (signature_id, description, code_changes, application_count,"
		" success_count, created_at) VALUES ('g1', 'd', '', 3, 2, 't'), ('g2', 'e', '', 1, 1, 't')",
		"UPDATE resolutions SET application_count = application_count + 2,"
		" success_count = success_count + 1 WHERE signature_id = 'g1'",
		"INSERT INTO notes (id, signature_id, layer, title, created_at, updated_at) VALUES"
		" ('n1', 'g1', 'session', 't', 't', 't'), ('n2', 'g2', 'project', 't', 't', 't'),"
		" ('n3', 'g3', 'team', 't', 't', 't')",
		"INSERT INTO notes (id, signature_id, layer, status, title, created_at, updated_at)"
		" VALUES ('n4', 'g3', 'org', 'retired', 't', 't', 't')",
		"UPDATE notes SET layer = 'project' WHERE id = 'n1'",
		"UPDATE notes SET status = 'retired' WHERE id = 'n2'",
		"UPDATE notes SET status = 'active', layer = 'team' WHERE id = 'n4'",
		"INSERT INTO note_cache (layer, id, revision, signature_id, title, pulled_at, resolution_id)"
		" VALUES ('team', 'c1', 1, 'g1', 't', 't', 1), ('org', 'c2', 1, 'g2', 't', 't', NULL)",
		"DELETE FROM note_cache WHERE id = 'c2'",
		"DELETE FROM notes WHERE id = 'n3'",
		/* cascades: the signature's errors and resolutions go with it */
		"DELETE FROM signatures WHERE id = 'g1'",
		"DELETE FROM runs WHERE id = 1",
		"DELETE FROM lessons WHERE id = 1",
		"DELETE FROM checks WHERE id = 2",
	};
	fixture *f = *state;
	callus_store *s = NULL;
	callus_store_totals kept, read;
	int drifted = -1;

	assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		exec_or_fail(callus_store_db(s), steps[i]);
		assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
		if (drifted)
			fail_msg("the totals drifted after %s", steps[i]);
	}
	assert_int_equal(callus_store_totals_get(s, &kept, NULL), 0);
	/* what is left: each counted once */
	assert_int_equal(kept.runs, 1);
	assert_int_equal(kept.lessons, 1);
	assert_int_equal(kept.checks, 1);
	assert_int_equal(kept.signatures, 2);
	assert_int_equal(kept.pending, 1);
	assert_int_equal(kept.fixed, 0);
	assert_int_equal(kept.permanent, 0); /* went with its check */
	assert_int_equal(kept.resolutions, 1);
	assert_int_equal(kept.applications, 1);
	assert_int_equal(kept.successes, 1);
	assert_int_equal(kept.notes[0], 0);
	assert_int_equal(kept.notes[1], 1); /* a note outlives its signature */
	assert_int_equal(kept.notes[2], 2); /* with the cached one */
	assert_int_equal(kept.notes[3], 0);

	/* an edit by hand */
	assert_int_equal(sqlite3_exec(callus_store_db(s), "UPDATE totals SET lessons = 99", NULL,
				      NULL, NULL), SQLITE_OK);
	assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
	assert_true(drifted);
	assert_int_equal(callus_store_totals_check(s, 1, &drifted, NULL), 0);
	assert_true(drifted);
	assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
	assert_false(drifted);
	/* a model's counts of vectors, each edited by hand: found, counted
	 * again by the fix */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(sqlite3_exec(callus_store_db(s),
					      i ? "UPDATE vector_models SET aliased = 3 WHERE id = 1"
						: "UPDATE vector_models SET n = 7 WHERE id = 1",
					      NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
		assert_true(drifted);
		assert_int_equal(callus_store_totals_check(s, 1, &drifted, NULL), 0);
		assert_true(drifted);
		assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
		assert_false(drifted);
		assert_int_equal(callus_store_query_int(s, "SELECT n + aliased FROM vector_models"
							   " WHERE id = 1"),
				 0);
	}
	/* the row deleted: read counted, put back by the fix; a second row
	 * (which the first hides from a read): found, one left */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(sqlite3_exec(callus_store_db(s),
					      i ? "INSERT INTO totals SELECT * FROM totals"
						: "DELETE FROM totals",
					      NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(callus_store_totals_get(s, &read, NULL), 0);
		assert_memory_equal(&read, &kept, sizeof(kept));
		assert_int_equal(callus_store_totals_check(s, 1, &drifted, NULL), 0);
		assert_true(drifted);
		assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
		assert_false(drifted);
		assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM totals"), 1);
	}
	callus_store_close(s);
}

/* The statements the connection holds now (kept, given out, or neither). */
static int statements_open(callus_store *s)
{
	int n = 0;

	for (sqlite3_stmt *st = sqlite3_next_stmt(callus_store_db(s), NULL); st;
	     st = sqlite3_next_stmt(callus_store_db(s), st))
		n++;
	return n;
}

/*
 * Statements kept by the store (callus_store_stmt): a text's first
 * statement finalized when done, from its second on kept; one kept given
 * again once it is back, reset (a read begun is over: VACUUM, which
 * refuses to run beside a statement still reading, runs) and its bindings
 * cleared; a second one while the first is out; no more than the store
 * keeps, the rest finalized when done.
 */
static void statements_kept_for_the_next_use(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	sqlite3_stmt *a = NULL, *b = NULL, *c = NULL;
	const char *sql = "SELECT value FROM json_each('[1,2,3]') WHERE ?1 IS NULL OR value = ?1";
	char other[96];
	int before;

	assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
	before = statements_open(s);
	/* used once: finalized */
	assert_int_equal(callus_store_stmt(s, sql, &a), SQLITE_OK);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	callus_store_stmt_done(s, a);
	assert_int_equal(statements_open(s), before);
	/* again: kept, and another for the same text while it is out */
	assert_int_equal(callus_store_stmt(s, sql, &a), SQLITE_OK);
	sqlite3_bind_int(a, 1, 2);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(a, 0), 2);
	assert_int_equal(callus_store_stmt(s, sql, &b), SQLITE_OK);
	assert_ptr_not_equal(a, b);
	/* both bound: whichever comes back next must come unbound */
	sqlite3_bind_int(b, 1, 3);
	callus_store_stmt_done(s, b);
	callus_store_stmt_done(s, a);
	assert_int_equal(statements_open(s), before + 2);
	assert_int_equal(callus_store_exec(s, "VACUUM", NULL), 0);
	/* back: one of them, from its first row, unbound */
	assert_int_equal(callus_store_stmt(s, sql, &c), SQLITE_OK);
	assert_true(c == a || c == b);
	assert_int_equal(sqlite3_step(c), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(c, 0), 1);
	callus_store_stmt_done(s, c);
	callus_store_stmt_done(s, NULL);
	assert_int_equal(statements_open(s), before + 2);
	/* past what the store keeps, finalized when done */
	for (int i = 0; i < 600; i++) {
		snprintf(other, sizeof(other), "SELECT %d", i / 2);
		assert_int_equal(callus_store_stmt(s, other, &a), SQLITE_OK);
		assert_int_equal(sqlite3_step(a), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(a, 0), i / 2);
		callus_store_stmt_done(s, a);
	}
	assert_true(statements_open(s) < before + 2 + 300);
	assert_true(statements_open(s) >= before + 2 + 100);
	/* a text that does not prepare: its error, nothing given */
	a = (sqlite3_stmt *)1;
	assert_int_not_equal(callus_store_stmt(s, "SELECT FROM", &a), SQLITE_OK);
	assert_null(a);
	callus_store_close(s);
}

/* A statement the caller says comes back (callus_store_stmt_again) is kept
 * from its first use, and given again: compiled once. */
static void statement_said_to_come_back_kept_at_once(void **state)
{
	fixture *f = *state;
	callus_store *s = NULL;
	sqlite3_stmt *a = NULL, *b = NULL;
	const char *sql = "SELECT ?1 + 1";
	int before;

	assert_int_equal(callus_store_open(&s, f->path, 1000, NULL), 0);
	before = statements_open(s);
	assert_int_equal(callus_store_stmt_again(s, sql, &a), SQLITE_OK);
	sqlite3_bind_int(a, 1, 41);
	assert_int_equal(sqlite3_step(a), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(a, 0), 42);
	callus_store_stmt_done(s, a);
	assert_int_equal(statements_open(s), before + 1);
	/* the same one, by either call, reset and unbound */
	assert_int_equal(callus_store_stmt(s, sql, &b), SQLITE_OK);
	assert_ptr_equal(a, b);
	assert_int_equal(sqlite3_step(b), SQLITE_ROW);
	assert_int_equal(sqlite3_column_type(b, 0), SQLITE_NULL);
	callus_store_stmt_done(s, b);
	assert_int_equal(statements_open(s), before + 1);
	/* and one integer asked twice is compiled once */
	assert_int_equal(callus_store_query_int(s, "SELECT 7"), 7);
	assert_int_equal(statements_open(s), before + 2);
	assert_int_equal(callus_store_query_int(s, "SELECT 7"), 7);
	assert_int_equal(statements_open(s), before + 2);
	/* a PRAGMA is compiled again at each run whatever is kept: not kept */
	assert_true(callus_store_query_int(s, "PRAGMA user_version") >= 0);
	assert_true(callus_store_query_int(s, "PRAGMA user_version") >= 0);
	assert_int_equal(statements_open(s), before + 2);
	callus_store_close(s);
}

/*
 * callus_sql_json_strlist reads the lists callus writes without jansson
 * (plain ASCII strings, no escape) and hands jansson the rest: every input
 * here gives what jansson's own reading gives, strings and order, whether
 * the fast path or jansson read it.  A fast path that took an escape
 * as is, a list with something after it, a cut list, a control character
 * or a number, or kept half a list it gave up on, fails here.
 */
static void json_lists_read_as_jansson_reads_them(void **state)
{
	static const char *const in[] = {
		"[]", " [ ] \n", "[\"a\"]", "[\"src/a.c\",\"b\"]", "[ \"a\" , \"b\" ]",
		"[\"a\",\"a\"]", "[\"\"]", "[\"a\\\"b\"]", "[\"\\u00e9t\\u00e9\"]",
		"[\"\xc3\xa9t\xc3\xa9\"]", "[\"\xff\"]", "[1]", "[\"a\",1]", "[\"a\",]",
		"[\"a\"] x", "[\"a\"", "[\"a", "\"a\"", "{}", "", "[\"a\tb\"]", "[null]",
		"[\"x\", \"y\"]\n", "[[\"a\"]]", "[\"a\"][\"b\"]", "[\"a\"\"b\"]", "[,]",
		"[\"~\x7f\"]", "  [\"a\"]",
	};

	(void)state;
	{
		/* no text (a NULL column): nothing added, no failure */
		callus_strlist none = CALLUS_STRLIST_INIT;

		assert_int_equal(callus_sql_json_strlist(&none, NULL), 0);
		assert_int_equal(none.count, 0);
	}
	for (size_t k = 0; k < sizeof(in) / sizeof(in[0]); k++) {
		callus_strlist got = CALLUS_STRLIST_INIT, want = CALLUS_STRLIST_INIT;
		json_t *a = json_loads(in[k], 0, NULL), *v;
		size_t i;

		/* a list read before keeps its strings */
		assert_int_equal(callus_strlist_add(&got, "before", 6), 0);
		assert_int_equal(callus_strlist_add(&want, "before", 6), 0);
		if (json_is_array(a))
			json_array_foreach(a, i, v)
				if (json_is_string(v))
					assert_int_equal(callus_strlist_add(&want, json_string_value(v),
									 json_string_length(v)),
							 0);
		json_decref(a);
		assert_int_equal(callus_sql_json_strlist(&got, in[k]), 0);
		if (got.count != want.count)
			fail_msg("'%s': %zu strings, jansson %zu", in[k], got.count, want.count);
		for (i = 0; i < got.count; i++)
			assert_string_equal(got.items[i], want.items[i]);
		callus_strlist_release(&got);
		callus_strlist_release(&want);
	}
}

/* callus_sql_strlist_json writes a list as jansson's compact dump does, to
 * the byte (a stored list is also looked up by its text), and refuses
 * what json_string() refuses (a string that is not UTF-8). */
static void lists_written_as_jansson_writes_them(void **state)
{
	static const char *const items[] = {
		"", "src/a.c", "a\"b", "back\\slash", "\b\f\n\r\t", "\x01\x1f\x7f~",
		"\xc3\xa9t\xc3\xa9 \xf0\x9f\x98\x80", "framework:make", "/ slash", "\x0b\x0e",
	};
	enum { N = sizeof(items) / sizeof(items[0]) };
	(void)state;

	for (size_t from = 0; from <= N; from++) {
		callus_strlist l = CALLUS_STRLIST_INIT;
		json_t *a = json_array();
		char *mine, *theirs;

		/* the lists items[from..N), and the empty one */
		for (size_t i = from; i < N; i++) {
			assert_int_equal(callus_strlist_add(&l, items[i], strlen(items[i])), 0);
			assert_int_equal(json_array_append_new(a, json_string(items[i])), 0);
		}
		mine = callus_sql_strlist_json(&l);
		theirs = json_dumps(a, JSON_COMPACT);
		assert_non_null(mine);
		assert_string_equal(mine, theirs);
		free(mine);
		free(theirs);
		json_decref(a);
		/* a string that is not UTF-8 after them: refused */
		assert_int_equal(callus_strlist_add(&l, "\xff", 1), 0);
		assert_null(json_string("\xff"));
		assert_null(callus_sql_strlist_json(&l));
		callus_strlist_release(&l);
	}
	{
		char *none = callus_sql_strlist_json(NULL);

		assert_string_equal(none, "[]");
		free(none);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(lists_written_as_jansson_writes_them),
		cmocka_unit_test_setup_teardown(records_and_deduplicates, setup, teardown),
		cmocka_unit_test_setup_teardown(lessons_by_signature_prefix, setup, teardown),
		cmocka_unit_test_setup_teardown(a_recurrence_guessed_wrong_is_still_recorded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(run_errors_name_their_signatures, setup, teardown),
		cmocka_unit_test_setup_teardown(signatures_counted_run_by_run, setup, teardown),
		cmocka_unit_test_setup_teardown(origin_is_recorded_once, setup, teardown),
		cmocka_unit_test_setup_teardown(marks_only_move_up, setup, teardown),
		cmocka_unit_test_setup_teardown(runs_seen_leave_out_an_imports_own, setup, teardown),
		cmocka_unit_test_setup_teardown(lists_and_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(a_new_store_is_the_migrations_store, setup, teardown),
		cmocka_unit_test_setup_teardown(refuses_newer_and_corrupt_stores, setup, teardown),
		cmocka_unit_test(signature_ignores_numbers_not_words),
		cmocka_unit_test(signature_ignores_durations),
		cmocka_unit_test(former_signature_is_the_earlier_one),
		cmocka_unit_test(errors_sign_the_lesson_in_any_order),
		cmocka_unit_test_setup_teardown(former_signature_finds_the_stored_lesson, setup,
						teardown),
		cmocka_unit_test(column_copy_cuts_and_terminates),
		cmocka_unit_test_setup_teardown(wal_stays_small, setup, teardown),
		cmocka_unit_test_setup_teardown(page_cache_as_asked, setup, teardown),
		cmocka_unit_test_setup_teardown(totals_follow_every_change, setup, teardown),
		cmocka_unit_test_setup_teardown(joined_triggers_keep_the_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(statement_said_to_come_back_kept_at_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(statements_kept_for_the_next_use, setup, teardown),
		cmocka_unit_test(json_lists_read_as_jansson_reads_them),
		cmocka_unit_test(epoch_bound_as_sqlite_reads_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
