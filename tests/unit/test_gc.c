/*
 * Retention (gc.h) against a real store: old lessons and their files go,
 * the least valuable beyond the count go, old runs go with their errors,
 * unused old signatures go with their vectors and document frequencies
 * while those a resolution needs stay, orphan lesson files are swept, and
 * the background pass is due once per interval.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "callus/checkindex.h"
#include "callus/embed.h"
#include "callus/fileindex.h"
#include "callus/gc.h"
#include "callus/learn.h"
#include "callus/lesson.h"
#include "callus/lessonmd.h"
#include "callus/match.h"
#include "callus/redact.h"
#include "callus/signature.h"
#include "callus/store.h"
#include "callus/store_redact.h"
#include "callus/vecindex.h"
#include "callus/views.h"

#include "match_internal.h"
#include "schema_helpers.h"
#include "steps_helpers.h"
#include "store_internal.h"

/* The built-in vectors, as the store counts them (vector_models, schema
 * 32). */
#define BUILTIN_COUNTED "SELECT n FROM vector_models WHERE name = '" CALLUS_EMBED_BUILTIN_MODEL "'"

typedef struct fixture {
	char dir[64];
	char path[96];
	callus_store *s;
	callus_redactor *red;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-gc-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/.callus", f->dir);
	if (mkdir(f->path, 0700) < 0)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/.callus/callus.db", f->dir);
	if (callus_store_open(&f->s, f->path, 5000, NULL) < 0 || callus_redactor_new(&f->red, NULL) < 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	callus_store_close(f->s);
	callus_redactor_free(f->red);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void make_sig(callus_signature *g, const char *msg)
{
	callus_strlist ctx = CALLUS_STRLIST_INIT;
	callus_diag d;

	memset(&d, 0, sizeof(d));
	d.file = (char *)"src/a.c";
	d.line = 3;
	d.message = (char *)msg;
	assert_int_equal(callus_strlist_add(&ctx, "framework:gcc", 13), 0);
	assert_int_equal(callus_signature_build(g, &d, "gcc", &ctx), 0);
	callus_strlist_release(&ctx);
}

/* A failure of file with error message msg, recorded and indexed as the
 * recording path does at when (NULL: now), its lesson file written; the
 * lesson's signature goes to sig_out (65 bytes) when not NULL. */
static void record_at(fixture *f, const char *file, const char *msg, callus_signature *g,
		      char *sig_out, const char *when)
{
	callus_lesson l;
	callus_run_info run;
	callus_diag d;
	callus_diags ds = { &d, 1, 1, 0 };
	char lessons[96];

	memset(&l, 0, sizeof(l));
	memset(&run, 0, sizeof(run));
	memset(&d, 0, sizeof(d));
	make_sig(g, msg);
	/* as a recording does: the run's error row names the signature */
	d.file = (char *)file;
	d.message = (char *)msg;
	d.signature = g->id;
	run.diags = &ds;
	l.type = CALLUS_LESSON_ANALYSIS;
	l.file = strdup(file);
	l.error_summary = strdup(msg);
	l.tool = strdup("gcc");
	l.command = strdup("gcc -c x.c");
	if (when)
		l.last_seen = strdup(when);
	assert_int_equal(callus_lesson_sign(&l), 0);
	run.sigs = g;
	run.nsigs = 1;
	assert_int_equal(callus_store_record_lesson(f->s, &l, &run, NULL, NULL), 0);
	assert_int_equal(callus_match_index(f->s, f->dir, NULL, NULL), 0);
	snprintf(lessons, sizeof(lessons), "%s/.lessons", f->dir);
	assert_int_equal(callus_lesson_md_write(lessons, &l, NULL), 0);
	if (sig_out)
		snprintf(sig_out, 65, "%s", l.signature);
	callus_lesson_release(&l);
}

/* The same, at the clock's time. */
static void record(fixture *f, const char *file, const char *msg, callus_signature *g,
		   char *sig_out)
{
	record_at(f, file, msg, g, sig_out, NULL);
}

/* g failing in check args (a gcc check of session s), learnt: pending. */
static void fail_in(fixture *f, const callus_signature *g, const char *args,
		    callus_learn_opts *o)
{
	callus_learn_error e = { g, NULL, NULL };
	callus_learn_result r;

	memset(o, 0, sizeof(*o));
	o->workspace = f->dir;
	o->check.tool = "gcc";
	o->check.args = args;
	o->check.dir = "";
	o->session = "s";
	o->redactor = f->red;
	o->no_snapshot = 1;
	assert_int_equal(callus_learn_failure(f->s, o, &e, 1, &r, NULL), 0);
	callus_learn_result_release(&r);
}

/* A resolution for g: a failure of check args and its pass. */
static void resolve(fixture *f, const callus_signature *g, const char *args)
{
	callus_learn_opts o;
	callus_learn_result r;

	fail_in(f, g, args, &o);
	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
}

/* Every document frequency the store holds: folded (in the buckets or,
 * the common ones, embed_df_hot) and recent (CALLUS_MATCH_DF_FOLD_ROWS). */
#define DF_TOTAL                                                                    \
	"SELECT coalesce((SELECT sum(callus_df_sum(counts)) FROM embed_df), 0)"         \
	" + coalesce((SELECT sum(df) FROM embed_df_hot), 0)"                            \
	" + coalesce((SELECT sum(df) FROM embed_df_recent), 0)"

static void sql(fixture *f, const char *q)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static long long count(fixture *f, const char *q)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n = -1;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	/* the document frequencies' blobs read in SQL (match_df.c) */
	assert_int_equal(callus_match_df_sql_register(db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* The text of q's first column (owned by the caller). */
static char *text_of(fixture *f, const char *q)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *t = NULL;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		t = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_non_null(t);
	return t;
}

/* How many signatures the store holds under id: 1 or 0. */
static long long signatures_named(fixture *f, const char *id)
{
	char q[160];

	snprintf(q, sizeof(q), "SELECT count(*) FROM signatures WHERE id = '%s'", id);
	return count(f, q);
}

static int lesson_file_exists(fixture *f, const char *sig)
{
	char path[160];
	struct stat st;

	snprintf(path, sizeof(path), "%s/.lessons/%.*s.md", f->dir, CALLUS_LESSON_ID_LEN, sig);
	return stat(path, &st) == 0;
}

/* Three lessons of three files, numbered 1 to 3. */
static void record_three(fixture *f, callus_signature g[3])
{
	record(f, "src/a.c", "implicit declaration of function alpha_one", &g[0], NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &g[1], NULL);
	record(f, "src/c.c", "storage size of gamma_three is not known", &g[2], NULL);
}

/* The time 400 days from now, in the store's format, into out. */
static void days_on(char out[32])
{
	time_t t = time(NULL) + 400 * 86400;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%S.000Z", &tm);
}

/* The first n (at most 4) of four failures, each of its own file and
 * message, recorded as record() does: signatures into g, lessons'
 * signatures into s. */
static void record_some(fixture *f, size_t n, callus_signature *g, char (*s)[65])
{
	static const char *const failures[][2] = {
		{ "src/a.c", "implicit declaration of function alpha_one" },
		{ "src/b.c", "unknown type name beta_two used here" },
		{ "src/c.c", "storage size of gamma_three is not known" },
		{ "src/d.c", "too few arguments to function delta_four" },
	};

	for (size_t i = 0; i < n && i < 4; i++)
		record(f, failures[i][0], failures[i][1], &g[i], s[i]);
}

static void policy(callus_gc_policy *p)
{
	callus_gc_policy_default(p);
	p->sweep = 0;
}

/* callus gc with the pass of today's redactor over the whole store. */
static void redact_whole(fixture *f, callus_gc_result *r)
{
	callus_gc_policy p;

	policy(&p);
	p.batch = 0;
	p.redactor = f->red;
	assert_int_equal(callus_gc(f->s, f->dir, &p, r, NULL), 0);
}

static void old_lessons_go_with_their_files(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char sa[65], sb[65];
	callus_gc_policy p;
	callus_gc_result r;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, sa);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, sb);
	sql(f, "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z' WHERE file = 'src/a.c'");
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_int_equal(r.lesson_files, 1);
	assert_false(lesson_file_exists(f, sa));
	assert_true(lesson_file_exists(f, sb));
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE file = 'src/a.c'"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM lesson_files WHERE file = 'src/a.c'"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 1);
	/* the recent signatures stay, whatever happened to the lessons */
	assert_int_equal(count(f, "SELECT count(*) FROM signatures"), 2);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* The policy's now: ages count back from it (a history replayed at its own
 * times, bench/scale_gen.c), and from the clock without it. */
static void ages_count_from_the_policys_now(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char sa[65], sb[65], later[32];
	callus_learn_opts o;
	callus_gc_policy p;
	callus_gc_result r;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, sa);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, sb);
	/* each error pending in a check of its own */
	fail_in(f, &a, "-c a.c", &o);
	fail_in(f, &b, "-c b.c", &o);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 2);
	/* from long before: nothing is old */
	policy(&p);
	p.now = "2001-01-01T00:00:00.000Z";
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons + r.runs + r.pending + r.signatures, 0);
	/* from the clock, or a time not in the format (the clock): nothing is
	 * old either */
	p.now = NULL;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons + r.runs + r.pending + r.signatures, 0);
	p.now = "in 400 days";
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons + r.runs + r.pending + r.signatures, 0);
	/* 400 days on: the lessons, runs and idle pending errors are, and
	 * then the signatures nothing needs, but the newest lesson and the
	 * newest signature (gc.c says why) */
	days_on(later);
	p.now = later;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_int_equal(r.runs, 2);
	assert_int_equal(r.pending, 2);
	assert_int_equal(r.signatures, 1);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE file = 'src/b.c'"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM runs"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures"), 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

static void the_least_valuable_go_beyond_the_count(void **state)
{
	fixture *f = *state;
	callus_signature g[3];
	char s[3][65];
	callus_gc_policy p;
	callus_gc_result r;

	record_some(f, 3, g, s);
	/* a recurs: its second occurrence makes it the most valuable */
	callus_signature_release(&g[0]);
	record(f, "src/a.c", "implicit declaration of function alpha_one", &g[0], NULL);
	policy(&p);
	p.lessons_max = 2;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_true(lesson_file_exists(f, s[0]));
	assert_false(lesson_file_exists(f, s[1]));
	/* c, as little worth as b, is the newest: it stays */
	assert_true(lesson_file_exists(f, s[2]));
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE file = 'src/a.c'"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 2);
	for (int i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
}

/* A rule of more days than have passed since 1970 keeps everything: its
 * cutoff once went before the epoch (no time could be written: the pass
 * failed "out of memory") or, in nanoseconds, wrapped to a date ahead
 * (every lesson, run and pending error went). */
static void a_rule_longer_than_since_1970_keeps_all(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_learn_opts o;
	callus_gc_policy p;
	callus_gc_result r;
	static const int days[] = { 36500, 200000, 0x7fffffff };

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	fail_in(f, &a, "-c a.c", &o);
	fail_in(f, &b, "-c b.c", &o);
	for (size_t i = 0; i < sizeof(days) / sizeof(days[0]); i++) {
		policy(&p);
		p.lesson_days = p.run_days = p.signature_days = days[i];
		p.prune_hours = days[i];
		assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
		assert_int_equal(r.lessons + r.runs + r.pending + r.signatures + r.checks, 0);
	}
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 2);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* The newest lesson stays whatever its age, so that its number is never
 * given to another (a reply, a transcript named it); so does the one the
 * recording running the pass has just told of, whatever its worth. */
static void the_newest_lesson_and_the_one_told_of_stay(void **state)
{
	fixture *f = *state;
	callus_signature g[4];
	callus_gc_policy p;
	callus_gc_result r;

	record_three(f, g);
	assert_int_equal(count(f, "SELECT max(id) FROM lessons"), 3);
	sql(f, "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z'");
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 2);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE id = 3"), 1);
	/* the next lesson is 4, not a number a removed one had */
	record(f, "src/d.c", "unknown type name delta_four used here", &g[3], NULL);
	assert_int_equal(count(f, "SELECT id FROM lessons WHERE file = 'src/d.c'"), 4);
	/* over the count: the one told of (3, as worth little as 4) stays,
	 * and the newest (4) too, past a count of one */
	policy(&p);
	p.lessons_max = 1;
	p.keep_lesson = 3;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 0);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 2);
	/* told of none: the count holds, the newest kept */
	p.keep_lesson = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_int_equal(count(f, "SELECT id FROM lessons"), 4);
	for (int i = 0; i < 4; i++)
		callus_signature_release(&g[i]);
}

/* A background pass takes a batch of each kind: the abandoned pending
 * errors too, the oldest first (it took them all at once: 5,980 in one
 * pass of a recording). */
static void a_batch_bounds_the_abandoned_errors_too(void **state)
{
	fixture *f = *state;
	callus_signature g[3];
	char later[32];
	callus_learn_opts o;
	callus_gc_policy p;
	callus_gc_result r;
	int64_t snaps;

	record_three(f, g);
	fail_in(f, &g[0], "-c a.c", &o);
	fail_in(f, &g[1], "-c b.c", &o);
	fail_in(f, &g[2], "-c c.c", &o);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 3);
	/* five snapshots no error refers to: the prune's own sweep of them
	 * (as many as its errors) and the pass's take one batch together,
	 * and all it took is counted */
	sql(f, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 5)"
	       " INSERT INTO snapshots (kind, tree, taken_at) SELECT 'files', 'tree' || i,"
	       " '2001-01-01T00:00:00.000Z' FROM c");
	snaps = count(f, "SELECT count(*) FROM snapshots");
	days_on(later);
	policy(&p);
	p.now = later;
	p.batch = 2;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.pending, 2);
	assert_true(r.lessons <= 2 && r.runs <= 2);
	assert_int_equal(r.snapshots, 2);
	assert_int_equal(count(f, "SELECT count(*) FROM snapshots"), snaps - 2);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors p JOIN signatures s"
				  " ON s.sig = p.sig WHERE s.original LIKE '%gamma_three%'"),
			 1);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.pending, 1);
	assert_int_equal(r.snapshots, 2);
	assert_int_equal(count(f, "SELECT count(*) FROM snapshots"), snaps - 4);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 0);
	for (int i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
}

/* A dry run says what the same pass removes, every rule, and changes
 * nothing: not the store's rows, not a file of .lessons/. */
static void a_dry_run_counts_what_the_pass_removes(void **state)
{
	fixture *f = *state;
	callus_signature g[4];
	char later[32], sig[65];
	callus_learn_opts o;
	callus_gc_policy p;
	callus_gc_result dry, real;
	static const char *const tables[] = { "lessons", "runs", "run_errors", "pending_errors",
					      "checks", "signatures", "snapshots" };
	long long before[sizeof(tables) / sizeof(tables[0])];
	char q[96];

	record_three(f, g);
	record(f, "src/d.c", "too few arguments to function delta_four", &g[3], sig);
	fail_in(f, &g[0], "-c a.c", &o);
	fail_in(f, &g[1], "-c b.c", &o);
	sql(f, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 3)"
	       " INSERT INTO snapshots (kind, tree, taken_at) SELECT 'files', 'tree' || i,"
	       " '2001-01-01T00:00:00.000Z' FROM c");
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(q, sizeof(q), "SELECT count(*) FROM %s", tables[i]);
		before[i] = count(f, q);
	}
	days_on(later);
	policy(&p);
	p.now = later;
	p.lessons_max = 1;
	p.sweep = 1;
	p.dry_run = 1;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &dry, NULL), 0);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(q, sizeof(q), "SELECT count(*) FROM %s", tables[i]);
		assert_int_equal(count(f, q), before[i]);
	}
	assert_true(lesson_file_exists(f, sig));
	/* what the real pass then removes, each rule after the one before */
	p.dry_run = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &real, NULL), 0);
	assert_true(real.lessons > 0 && real.runs > 0 && real.pending > 0 && real.snapshots > 0 &&
		    real.signatures > 0);
	assert_int_equal(dry.lessons, real.lessons);
	assert_int_equal(dry.lesson_files, real.lesson_files);
	assert_int_equal(dry.runs, real.runs);
	assert_int_equal(dry.unresolved, real.unresolved);
	assert_int_equal(dry.checks, real.checks);
	assert_int_equal(dry.pending, real.pending);
	assert_int_equal(dry.signatures, real.signatures);
	assert_int_equal(dry.snapshots, real.snapshots);
	assert_false(dry.vacuumed);
	for (int i = 0; i < 4; i++)
		callus_signature_release(&g[i]);
}

/* The age rule and the count rule share the pass's batch: a background
 * pass in a hook took twice as many lessons as it said. */
static void the_two_lesson_rules_share_a_batch(void **state)
{
	fixture *f = *state;
	callus_signature g[5];
	char later[32];
	callus_gc_policy p;
	callus_gc_result r;

	record_three(f, g);
	record(f, "src/d.c", "too few arguments to function delta_four", &g[3], NULL);
	record(f, "src/e.c", "conflicting types for epsilon_five", &g[4], NULL);
	days_on(later);
	policy(&p);
	p.now = later;
	p.lessons_max = 1;
	p.batch = 2;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 2);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 3);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 2);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 1);
	for (int i = 0; i < 5; i++)
		callus_signature_release(&g[i]);
}

/* The count's rule as a recording runs it: with its margin. */
static int over_with_margin(fixture *f, const callus_gc_policy *p, callus_gc_result *r)
{
	return callus_gc_lessons_over(f->s, f->dir, p, CALLUS_GC_LESSONS_MARGIN(p->lessons_max), r,
				      NULL);
}

/* A person's words (a note's rule, callus record's cause or resolution)
 * make a lesson worth more than any count of occurrences: the lesson
 * that has them goes last, by the pass and by the count's rule alike,
 * and callus doctor lists it last. */
static void a_persons_words_outlast_occurrences(void **state)
{
	fixture *f = *state;
	callus_signature g[4];
	char s[4][65];
	callus_gc_policy p;
	callus_gc_result r;
	callus_lesson *ls = NULL;
	callus_lesson_filter lf = { .limit = 10 };
	size_t n = 0;

	record_some(f, 4, g, s);
	/* a recurs; b and c carry a person's words, c the older of them */
	callus_signature_release(&g[0]);
	record(f, "src/a.c", "implicit declaration of function alpha_one", &g[0], NULL);
	sql(f, "UPDATE lessons SET corrective_rule = 'check the header' WHERE file = 'src/b.c'");
	sql(f, "UPDATE lessons SET cause = 'a typo' WHERE file = 'src/c.c'");
	assert_int_equal(callus_store_list_lowest_value(f->s, &lf, &ls, &n, NULL), 0);
	assert_int_equal(n, 3); /* d, the newest, is no candidate */
	assert_string_equal(ls[0].file, "src/a.c");
	assert_string_equal(ls[1].file, "src/b.c");
	assert_string_equal(ls[2].file, "src/c.c");
	callus_lessons_free(ls, n);
	policy(&p);
	p.lessons_max = 3;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_false(lesson_file_exists(f, s[0]));
	p.lessons_max = 2;
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 1);
	assert_false(lesson_file_exists(f, s[1]));
	assert_true(lesson_file_exists(f, s[2]));
	assert_true(lesson_file_exists(f, s[3]));
	for (int i = 0; i < 4; i++)
		callus_signature_release(&g[i]);
}

/* Age takes what a machine wrote, which the next failure writes again; a
 * lesson a person wrote into (a cause, a resolution, a note's rule) is
 * passed over by lesson_days, however old, and goes only by the count,
 * after the others. */
static void a_persons_words_outlast_their_age(void **state)
{
	fixture *f = *state;
	callus_signature g[4];
	char s[4][65];
	callus_gc_policy p;
	callus_gc_result r;

	record_some(f, 4, g, s);
	sql(f, "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z'"
	       " WHERE file IN ('src/a.c', 'src/b.c', 'src/c.c')");
	sql(f, "UPDATE lessons SET resolution = 'include alpha.h' WHERE file = 'src/a.c'");
	sql(f, "UPDATE lessons SET corrective_rule = 'check the header' WHERE file = 'src/b.c'");
	policy(&p);
	p.lessons_max = 0;
	p.dry_run = 1;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	p.dry_run = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_int_equal(r.lesson_files, 1);
	assert_true(lesson_file_exists(f, s[0]));
	assert_true(lesson_file_exists(f, s[1]));
	assert_false(lesson_file_exists(f, s[2]));
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 3);
	/* a second pass finds nothing more to age out */
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 0);
	/* the count still bounds them: the oldest-seen of the two goes first,
	 * and the newest lesson stays though it has no words */
	sql(f, "UPDATE lessons SET last_seen = '2000-01-01T00:00:00.000Z' WHERE file = 'src/b.c'");
	p.lessons_max = 2;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_true(lesson_file_exists(f, s[0]));
	assert_false(lesson_file_exists(f, s[1]));
	assert_true(lesson_file_exists(f, s[3]));
	for (int i = 0; i < 4; i++)
		callus_signature_release(&g[i]);
}

/* The count's rule a recording applies when it adds a lesson
 * (callus_gc_lessons_over): the least valuable past lessons_max go, the
 * one it keeps stays, down to a hundredth under the count from 100 on,
 * at most a batch; nothing in a dry run or with the rule off. */
static void the_count_rule_alone_leaves_a_margin(void **state)
{
	fixture *f = *state;
	callus_signature g[3];
	char s[3][65];
	callus_gc_policy p;
	callus_gc_result r;
	long long first;

	record_some(f, 3, g, s);
	first = count(f, "SELECT min(id) FROM lessons");
	policy(&p);
	p.lessons_max = 3;
	assert_false(callus_gc_lessons_past(f->s, &p));
	p.lessons_max = 0;
	assert_false(callus_gc_lessons_past(f->s, &p));
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 0);
	p.lessons_max = 2;
	assert_true(callus_gc_lessons_past(f->s, &p));
	p.dry_run = 1;
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 0);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 3);
	p.dry_run = 0;
	/* a, the least valuable, is the one the recording told of: b goes */
	p.keep_lesson = first;
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 1);
	assert_int_equal(r.lesson_files, 1);
	assert_true(lesson_file_exists(f, s[0]));
	assert_false(lesson_file_exists(f, s[1]));
	assert_true(lesson_file_exists(f, s[2]));
	assert_false(callus_gc_lessons_past(f->s, &p));
	/* 302 lessons against 250: down to 248, the planted oldest first */
	sql(f, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300)"
	       " INSERT INTO lessons (signature, timestamp, type, file, error_summary, tool,"
	       " command, exit_code, last_seen) SELECT printf('%064d', c.i), l.timestamp, l.type,"
	       " '', l.error_summary || c.i, l.tool, l.command, l.exit_code,"
	       " '2001-01-01T00:00:00.000Z' FROM c, lessons l WHERE l.file = 'src/c.c'");
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 302);
	p.keep_lesson = 0;
	p.lessons_max = 250;
	p.batch = 10;
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 10);
	p.batch = 0;
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 302 - 10 - 248);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 248);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE file LIKE 'src/%'"), 2);
	assert_false(callus_gc_lessons_past(f->s, &p));
	/* under it, nothing goes */
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 0);
	/* over the margin but not past the count: nothing goes either (hooks
	 * at once each found the count past it, and the first removed down
	 * to the margin: the others removed what had come since, again) */
	sql(f, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2)"
	       " INSERT INTO lessons (signature, timestamp, type, file, error_summary, tool,"
	       " command, exit_code, last_seen) SELECT printf('%064d', 1000 + c.i), l.timestamp,"
	       " l.type, '', l.error_summary || c.i, l.tool, l.command, l.exit_code,"
	       " '2001-01-01T00:00:00.000Z' FROM c, lessons l WHERE l.file = 'src/c.c'");
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 250);
	assert_int_equal(over_with_margin(f, &p, &r), 0);
	assert_int_equal(r.lessons, 0);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 250);
	/* a single pass (callus import's) takes no margin: down to the count */
	p.lessons_max = 240;
	assert_int_equal(callus_gc_lessons_over(f->s, f->dir, &p, 0, &r, NULL), 0);
	assert_int_equal(r.lessons, 10);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 240);
	/* a margin that would keep none (or less than none) is no margin */
	p.lessons_max = 230;
	assert_int_equal(callus_gc_lessons_over(f->s, f->dir, &p, 230, &r, NULL), 0);
	assert_int_equal(r.lessons, 10);
	p.lessons_max = 225;
	assert_int_equal(callus_gc_lessons_over(f->s, f->dir, &p, -5, &r, NULL), 0);
	assert_int_equal(r.lessons, 5);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 225);
	for (int i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
}

/* A pass that only dropped abandoned errors and their snapshots empties
 * the write-ahead log too: every later process would read it at open. */
static void a_prune_alone_empties_the_wal(void **state)
{
	fixture *f = *state;
	callus_signature g[3];
	char later[32], wal[128];
	callus_learn_opts o;
	callus_gc_policy p;
	callus_gc_result r;
	struct stat st;

	record_three(f, g);
	fail_in(f, &g[0], "-c a.c", &o);
	sql(f, "INSERT INTO snapshots (kind, tree, taken_at) VALUES ('files', 't',"
	       " '2001-01-01T00:00:00.000Z')");
	days_on(later);
	policy(&p);
	p.now = later;
	p.lesson_days = p.lessons_max = p.run_days = p.signature_days = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.pending, 1);
	assert_int_equal(r.snapshots, 1);
	assert_int_equal(r.lessons + r.runs + r.checks + r.signatures + r.unresolved, 0);
	assert_false(r.wal_left);
	snprintf(wal, sizeof(wal), "%s-wal", f->path);
	assert_int_equal(stat(wal, &st), 0);
	assert_int_equal(st.st_size, 0);
	for (int i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
}

/* A VACUUM that fails (here a statement of the same connection still
 * running; on a full disk, its temporary file) is not said done, and what
 * went before it is counted: those removals were committed. */
static void a_vacuum_that_fails_is_not_said_done(void **state)
{
	fixture *f = *state;
	callus_signature g[3];
	callus_gc_policy p;
	callus_gc_result r;
	callus_error err = CALLUS_ERROR_INIT;
	sqlite3_stmt *st = NULL;
	int rc;

	record_three(f, g);
	sql(f, "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z'");
	/* most of the file free: a VACUUM is due */
	sql(f, "CREATE TABLE pad(x); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1"
	       " FROM c WHERE i < 300) INSERT INTO pad SELECT randomblob(3000) FROM c;"
	       " DROP TABLE pad");
	policy(&p);
	p.batch = 0;
	p.sweep = 1;
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1"
					    " FROM c) SELECT i FROM c",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	rc = callus_gc(f->s, f->dir, &p, &r, &err);
	sqlite3_finalize(st);
	assert_true(rc < 0);
	assert_non_null(strstr(callus_error_message(&err), "vacuum"));
	assert_int_equal(r.lessons, 2);
	assert_false(r.vacuumed);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 1);
	/* the next pass pays it */
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_true(r.vacuumed);
	callus_error_release(&err);
	for (int i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
}

/* A .lessons that links out of the workspace is not swept nor emptied
 * through: no recording writes through it, and the files there, named as
 * lessons' are, may be another workspace's.  The lessons themselves go. */
static void a_lessons_link_out_of_the_workspace_is_left(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char sa[65], outside[96], lessons[96], path[192], cmd[512];
	callus_gc_policy p;
	callus_gc_result r;
	struct stat st;
	FILE *fp;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, sa);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	/* the lessons' files moved out, .lessons a link to them, with a file
	 * of no lesson beside them */
	snprintf(outside, sizeof(outside), "%s-out", f->dir);
	snprintf(lessons, sizeof(lessons), "%s/.lessons", f->dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mv '%s' '%s' && ln -s '%s' '%s'", outside,
		 lessons, outside, outside, lessons);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/0123456789ab.md", outside);
	assert_non_null(fp = fopen(path, "w"));
	fputs("another workspace's\n", fp);
	fclose(fp);
	sql(f, "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z' WHERE file = 'src/a.c'");
	callus_gc_policy_default(&p);
	/* a dry run writes nothing, not even that line */
	p.dry_run = 1;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	snprintf(cmd, sizeof(cmd), "! grep -qs gc_files_left '%s/.callus/log.jsonl'", f->dir);
	assert_int_equal(system(cmd), 0);
	p.dry_run = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_int_equal(r.lesson_files, 0);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/%.*s.md", outside, CALLUS_LESSON_ID_LEN, sa);
	assert_int_equal(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/.callus/log.jsonl", f->dir);
	assert_int_equal(stat(path, &st), 0);
	/* said once a pass, not by each rule and the sweep */
	snprintf(cmd, sizeof(cmd), "test \"$(grep -c gc_files_left '%s')\" = 1", path);
	assert_int_equal(system(cmd), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", outside);
	assert_int_equal(system(cmd), 0);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* A gc killed between removing lesson files and its commit leaves lessons
 * whose files are gone, and a debt that names no lesson ("views"): the
 * repair a recording runs for stale debts writes them again (it rebuilt
 * only the block, which named the missing files). */
static void a_gc_killed_before_its_commit_has_its_files_written_again(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char sa[65], path[192];
	callus_views_report rep;
	pid_t dead = fork();
	int status;
	FILE *fp;

	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, &status, 0), dead);
	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, sa);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	/* what the killed pass left: a's file gone, its debt */
	snprintf(path, sizeof(path), "%s/.lessons/%.*s.md", f->dir, CALLUS_LESSON_ID_LEN, sa);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/.callus/owed", f->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.callus/owed/%ld-1", f->dir, (long)dead);
	assert_non_null(fp = fopen(path, "w"));
	fputs("views\n", fp);
	fclose(fp);
	/* a file no lesson has: doctor's to count, not a recording's */
	snprintf(path, sizeof(path), "%s/.lessons/0123456789ab.md", f->dir);
	assert_non_null(fp = fopen(path, "w"));
	fclose(fp);
	assert_int_equal(callus_views_repair(f->s, f->dir, NULL, 20, CALLUS_VIEWS_FIX, &rep, NULL),
			 0);
	assert_int_equal(rep.debts, 1);
	assert_int_equal(rep.written, 1);
	assert_int_equal(rep.orphans, 0);
	assert_true(lesson_file_exists(f, sa));
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* The sweep of .lessons/ leaves a file a recording owes: its lesson
 * committed (or about to be), its file written after.  Looked up and
 * removed outside the write lock, with no look at the debts, a file a
 * recording had just made could go. */
/* A file named name in .callus, its time set back by age seconds. */
static void make_aged(fixture *f, const char *name, long age)
{
	char path[192];
	struct timespec t[2];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/.callus/%s", f->dir, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs("part of a vector file\n", fp);
	fclose(fp);
	clock_gettime(CLOCK_REALTIME, &t[0]);
	t[0].tv_sec -= age;
	t[1] = t[0];
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

static int exists_in_store_dir(fixture *f, const char *name)
{
	char path[192];
	struct stat st;

	snprintf(path, sizeof(path), "%s/.callus/%s", f->dir, name);
	return stat(path, &st) == 0;
}

/* The temporary files of a vector file's rewrite that a cut process left
 * (each as large as the file) go with a sweep once an hour old; one being
 * written, and any other file, stay. */
static void the_sweep_removes_a_cut_rewrites_files(void **state)
{
	fixture *f = *state;
	callus_signature a;
	callus_gc_policy p;
	callus_gc_result r;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	make_aged(f, "vectors-callus-builtin-1.bin.tmp.Ab3dE5", 7200);
	make_aged(f, "vectors-callus-builtin-1.bin.sketch.tmp.Zz9yX8", 7200);
	make_aged(f, "vectors-callus-builtin-1.bin.tmp.Qw1eR2", 60);
	make_aged(f, "vectors-other.bin.tmp.toolongname", 7200);
	make_aged(f, "checks.idx.tmp.Ab3dE5", 7200);
	callus_gc_policy_default(&p);
	p.sweep = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.temp_files, 0);
	p.sweep = 1;
	/* a dry run counts them, and leaves them */
	p.dry_run = 1;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.temp_files, 2);
	assert_true(exists_in_store_dir(f, "vectors-callus-builtin-1.bin.tmp.Ab3dE5"));
	assert_true(exists_in_store_dir(f, "vectors-callus-builtin-1.bin.sketch.tmp.Zz9yX8"));
	p.dry_run = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.temp_files, 2);
	assert_false(exists_in_store_dir(f, "vectors-callus-builtin-1.bin.tmp.Ab3dE5"));
	assert_false(exists_in_store_dir(f, "vectors-callus-builtin-1.bin.sketch.tmp.Zz9yX8"));
	assert_true(exists_in_store_dir(f, "vectors-callus-builtin-1.bin.tmp.Qw1eR2"));
	assert_true(exists_in_store_dir(f, "vectors-other.bin.tmp.toolongname"));
	assert_true(exists_in_store_dir(f, "checks.idx.tmp.Ab3dE5"));
	assert_true(exists_in_store_dir(f, "vectors-callus-builtin-1.bin"));
	callus_signature_release(&a);
}

static void the_sweep_leaves_an_owed_file(void **state)
{
	fixture *f = *state;
	callus_signature a;
	callus_gc_policy p;
	callus_gc_result r;
	callus_views_debt *debt = NULL;
	const char *sig = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	char path[192];
	struct stat st;
	FILE *fp;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	snprintf(path, sizeof(path), "%s/.lessons/%.*s.md", f->dir, CALLUS_LESSON_ID_LEN, sig);
	assert_non_null(fp = fopen(path, "w"));
	fputs("a lesson being recorded\n", fp);
	fclose(fp);
	callus_views_owe(&debt, f->dir, sig);
	assert_non_null(debt);
	callus_gc_policy_default(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lesson_files, 0);
	assert_int_equal(stat(path, &st), 0);
	/* paid, and still no lesson: an orphan, swept */
	callus_views_settle(debt, 1);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lesson_files, 1);
	assert_int_not_equal(stat(path, &st), 0);
	callus_signature_release(&a);
}

/* callus doctor's full check counts the .lessons/ files no lesson has
 * (they were never said: a file written back for a lesson a gc removed
 * stayed for good), but not one a recording owes. */
static void the_full_check_counts_files_no_lesson_has(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_views_report rep;
	callus_views_debt *debt = NULL;
	const char *owed = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210";
	char path[192];
	FILE *fp;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	assert_int_equal(callus_views_repair(f->s, f->dir, NULL, 20, CALLUS_VIEWS_FULL, &rep, NULL),
			 0);
	assert_int_equal(rep.orphans, 0);
	snprintf(path, sizeof(path), "%s/.lessons/0123456789ab.md", f->dir);
	assert_non_null(fp = fopen(path, "w"));
	fputs("a lesson gone\n", fp);
	fclose(fp);
	snprintf(path, sizeof(path), "%s/.lessons/%.*s.md", f->dir, CALLUS_LESSON_ID_LEN, owed);
	assert_non_null(fp = fopen(path, "w"));
	fputs("a lesson being recorded\n", fp);
	fclose(fp);
	callus_views_owe(&debt, f->dir, owed);
	assert_non_null(debt);
	assert_int_equal(callus_views_repair(f->s, f->dir, NULL, 20, CALLUS_VIEWS_FULL, &rep, NULL),
			 0);
	assert_int_equal(rep.orphans, 1);
	assert_int_equal(rep.missing, 0);
	callus_views_settle(debt, 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

static void old_runs_go_with_their_errors(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_gc_policy p;
	callus_gc_result r;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	assert_int_equal(count(f, "SELECT count(*) FROM runs"), 2);
	sql(f, "UPDATE runs SET at = '2001-01-01T00:00:00.000Z' WHERE id = 1");
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.runs, 1);
	assert_int_equal(count(f, "SELECT count(*) FROM runs"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM run_errors WHERE run_id = 1"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM run_errors WHERE run_id = 2"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM lesson_runs WHERE run_id = 1"), 0);
	/* the lessons stay: they are younger than lesson_days */
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 2);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* The mark of how old the runs gone are, as callus import reads it. */
static int runs_gone_before(fixture *f, char **mark)
{
	callus_run_seen *r = NULL;
	size_t n = 0;
	int rc = callus_store_runs_seen(f->s, NULL, &r, &n, mark, NULL);

	callus_runs_seen_free(r, n);
	return rc;
}

/* The mark of how old the runs gone are (callus import replays nothing
 * older): set by the pass that removes runs, with them, only ever moved
 * up, and left by a pass that removes none and by a dry run. */
static void removed_runs_move_the_mark_up(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	callus_gc_policy p;
	callus_gc_result r;
	char *mark = NULL;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	record(f, "src/c.c", "expected identifier before gamma_three", &c, NULL);
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.runs, 0);
	assert_int_equal(runs_gone_before(f, &mark), 0);
	assert_null(mark);
	sql(f, "UPDATE runs SET at = '2001-01-01T00:00:00.000Z' WHERE id IN (1, 2)");
	/* a dry run removes nothing, and marks nothing */
	p.dry_run = 1;
	p.now = "2030-01-01T00:00:00.000Z";
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(runs_gone_before(f, &mark), 0);
	assert_null(mark);
	p.dry_run = 0;
	p.batch = 1;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.runs, 1);
	assert_int_equal(runs_gone_before(f, &mark), 0);
	assert_non_null(mark);
	assert_string_equal(mark, "2029-12-02T00:00:00.000Z");
	free(mark);
	/* a pass of an earlier time that removes the other leaves it */
	p.now = "2020-01-01T00:00:00.000Z";
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.runs, 1);
	assert_int_equal(runs_gone_before(f, &mark), 0);
	assert_string_equal(mark, "2029-12-02T00:00:00.000Z");
	free(mark);
	assert_int_equal(count(f, "SELECT count(*) FROM runs"), 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

/* A check with an error still kept stays however long it has been idle;
 * one with none goes once idle run_days, and a pass of it then records
 * nothing, as for a check never seen. */
/* Whether the gcc check of args is on the list of checks beside the store
 * (checkindex.h): 1, 0, or CALLUS_ENOTFOUND with no list. */
static int listed(fixture *f, const char *args)
{
	callus_check_key k = { "gcc", args, "" };
	char dir[160];

	snprintf(dir, sizeof(dir), "%s", f->path);
	*strrchr(dir, '/') = '\0';
	return callus_checkindex_lookup(dir, &k);
}

static void idle_checks_go_when_no_error_needs_them(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	callus_learn_opts o;
	callus_learn_result lr;
	callus_gc_policy p;
	callus_gc_result r;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	record(f, "src/c.c", "storage size of gamma_three is not known", &c, NULL);
	resolve(f, &a, "-c src/a.c");         /* fixed, resolved: its row is kept */
	fail_in(f, &b, "-c src/b.c", &o);     /* pending */
	fail_in(f, &c, "-c src/c.c", &o);     /* pending, then pruned below */
	sql(f, "UPDATE pending_errors SET last_failure_at = '2001-01-01T00:00:00.000Z'"
	       " WHERE check_id = (SELECT id FROM checks WHERE args = '-c src/c.c')");
	assert_int_equal(listed(f, "-c src/c.c"), 1);
	/* recently run, the idle check stays */
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.pending, 1);
	assert_int_equal(r.checks, 0);
	assert_int_equal(count(f, "SELECT count(*) FROM checks"), 3);
	/* its error pruned, c's next pass has nothing to see: taken off the
	 * list (checkindex.h), b's pending error and a's fix still on it */
	assert_int_equal(listed(f, "-c src/c.c"), 0);
	assert_int_equal(listed(f, "-c src/b.c"), 1);
	assert_int_equal(listed(f, "-c src/a.c"), 1);
	sql(f, "UPDATE checks SET last_run_at = '2001-01-01T00:00:00.000Z'");
	/* run_days off: no check goes */
	p.run_days = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.checks, 0);
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.checks, 1);
	assert_int_equal(count(f, "SELECT count(*) FROM checks"), 2);
	assert_int_equal(count(f, "SELECT checks FROM totals"), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM checks WHERE args = '-c src/c.c'"), 0);
	/* the checks of the resolved and of the pending error are there */
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors p JOIN checks c"
				  " ON c.id = p.check_id"),
			 2);
	/* a pass of the removed check (o is still its options, fail_in's of
	 * c) writes no check again */
	assert_int_equal(callus_learn_pass(f->s, &o, &lr, NULL), 0);
	callus_learn_result_release(&lr);
	assert_int_equal(count(f, "SELECT count(*) FROM checks"), 2);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

/* An error closed without a fix to learn from (a flaky failure: the pass
 * found nothing changed) goes once older than run_days, and its check,
 * left with no error and idle as long, goes in the same pass; a fixed
 * error with its resolution stays, however old, and so does its check. */
static void old_unresolved_errors_go_with_their_idle_check(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_learn_opts o;
	callus_gc_policy p;
	callus_gc_result r;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	resolve(f, &a, "-c src/a.c");
	fail_in(f, &b, "-c src/b.c", &o);
	/* closed as a flaky pass closes it: fixed, no resolution */
	sql(f, "UPDATE pending_errors SET state = 'fixed', closed_at = last_failure_at"
	       " WHERE check_id = (SELECT id FROM checks WHERE args = '-c src/b.c')");
	assert_int_equal(count(f, "SELECT fixed FROM totals"), 2);
	/* recent: nothing goes */
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.unresolved, 0);
	assert_int_equal(r.checks, 0);
	sql(f, "UPDATE pending_errors SET last_failure_at = '2001-01-01T00:00:00.000Z'");
	sql(f, "UPDATE checks SET last_run_at = '2001-01-01T00:00:00.000Z'");
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.unresolved, 1);
	assert_int_equal(r.checks, 1);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE resolution_id IS NULL"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM checks WHERE args = '-c src/b.c'"), 0);
	/* the resolved error and its check stay */
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors p JOIN checks c"
				  " ON c.id = p.check_id WHERE c.args = '-c src/a.c'"
				  " AND p.resolution_id IS NOT NULL"),
			 1);
	assert_int_equal(count(f, "SELECT fixed FROM totals"), 1);
	assert_int_equal(count(f, "SELECT checks FROM totals"), 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

static void unused_old_signatures_go_needed_ones_stay(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	callus_gc_policy p;
	callus_gc_result r;
	long long df_before;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	/* the newest: kept whatever its age (the next test) */
	record(f, "src/c.c", "storage size of gamma_three is not known", &c, NULL);
	/* a is fixed: its resolution needs it */
	resolve(f, &a, "-c src/a.c");
	sql(f, "UPDATE signatures SET last_seen = unixepoch('2001-01-01')");
	assert_int_equal(count(f, BUILTIN_COUNTED), 3);
	df_before = count(f, DF_TOTAL);
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.signatures, 1);
	assert_int_equal(signatures_named(f, a.id), 1);
	assert_int_equal(signatures_named(f, b.id), 0);
	assert_int_equal(signatures_named(f, c.id), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors"), 2);
	assert_int_equal(count(f, BUILTIN_COUNTED), 2);
	/* b's features no longer weigh in the IDF */
	assert_true(count(f, DF_TOTAL) < df_before);
	/* gc folded the recent frequencies before taking b's off */
	assert_int_equal(count(f, "SELECT count(*) FROM embed_df_recent"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM resolutions"), 1);
	/* the vector file was rewritten without b: a still matches itself */
	{
		callus_match_opts mo = { .workspace = f->dir };
		callus_match *m = NULL;
		size_t n = 0;

		assert_int_equal(callus_match_find(f->s, &mo, &a, &m, &n, NULL), 0);
		assert_true(n >= 1);
		assert_string_equal(m[0].signature_id, a.id);
		callus_matches_free(m, n);
	}
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

/*
 * A removed signature's number is never given to a new one: SQLite numbers
 * a row one past the highest, so the newest signature stays whatever its
 * age, and a new one is numbered past every number ever used.  What names
 * a signature by its number (a vector file's record, a kept run's errors)
 * then names nothing when its signature is gone, never another.
 */
static void a_removed_signatures_number_is_not_given_again(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	callus_gc_policy p;
	callus_gc_result r;
	long long newest;
	char q[256];

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	newest = count(f, "SELECT max(rowid) FROM signatures");
	sql(f, "UPDATE signatures SET last_seen = unixepoch('2001-01-01')");
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.signatures, 1);
	assert_int_equal(signatures_named(f, b.id), 1);
	/* b's run errors still name b's number: a new signature must not
	 * take it */
	record(f, "src/c.c", "storage size of gamma_three is not known", &c, NULL);
	snprintf(q, sizeof(q), "SELECT rowid FROM signatures WHERE id = '%s'", c.id);
	assert_true(count(f, q) > newest);
	snprintf(q, sizeof(q), "SELECT count(*) FROM run_errors WHERE sig = (SELECT rowid FROM"
			       " signatures WHERE id = '%s')", c.id);
	assert_int_equal(count(f, q), 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

/* The messages of the runs' errors, read as the store means them ('' is
 * the signature's original; NULL: none stored), in the runs' order. */
#define RUN_MESSAGES                                                                    \
	"SELECT group_concat(m, '|') FROM (SELECT iif(e.message = '', g.original,"      \
	" e.message) AS m FROM run_errors e LEFT JOIN signatures g ON g.sig = e.sig"    \
	" ORDER BY e.run_id, e.rowid)"
#define UNDECLARED_X "\u2018x\u2019 undeclared (first use in this function)"
#define UNDECLARED_Y "\u2018y\u2019 undeclared (first use in this function)"

/*
 * A run's error keeps its message only where it is not its signature's
 * original (schema 35): the first of a signature's errors stores '', a
 * later one of its own words its own.  A signature gc removes writes its
 * original back into the rows that named it so: read alone, each still
 * says what it said.
 */
static void a_runs_error_keeps_its_message_once(void **state)
{
	fixture *f = *state;
	callus_signature x, y, newest;
	callus_gc_policy p;
	callus_gc_result r;
	char *got;

	record(f, "src/a.c", UNDECLARED_X, &x, NULL);
	record(f, "src/a.c", UNDECLARED_Y, &y, NULL);
	assert_string_equal(x.id, y.id);
	record(f, "src/n.c", "unknown type name beta_two used here", &newest, NULL);
	assert_int_equal(count(f, "SELECT count(*) FROM run_errors WHERE message = ''"), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM run_errors WHERE message = '"
				  UNDECLARED_Y "'"),
			 1);
	got = text_of(f, RUN_MESSAGES);
	assert_string_equal(got, UNDECLARED_X "|" UNDECLARED_Y "|unknown type name beta_two used here");
	free(got);
	/* the newest stays (its number is never given again) */
	sql(f, "UPDATE signatures SET last_seen = unixepoch('2001-01-01')");
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.signatures, 1);
	assert_int_equal(signatures_named(f, x.id), 0);
	got = text_of(f, "SELECT group_concat(message, '|') FROM (SELECT message FROM run_errors"
			 " ORDER BY run_id, rowid LIMIT 2)");
	assert_string_equal(got, UNDECLARED_X "|" UNDECLARED_Y);
	free(got);
	got = text_of(f, RUN_MESSAGES);
	assert_string_equal(got, UNDECLARED_X "|" UNDECLARED_Y "|unknown type name beta_two used here");
	free(got);
	callus_signature_release(&x);
	callus_signature_release(&y);
	callus_signature_release(&newest);
}

/* Another pass's removal, made while this pass waits for the write lock:
 * db is that pass's connection, holding the lock (BEGIN IMMEDIATE). */
static int another_pass_first(void *db, int tries)
{
	if (tries == 0) {
		assert_int_equal(sqlite3_exec(db,
					      "DELETE FROM lessons WHERE id IN (SELECT id FROM lessons"
					      " ORDER BY occurrences, last_seen, id LIMIT 2); COMMIT",
					      NULL, NULL, NULL),
				 SQLITE_OK);
	}
	return tries < 100;
}

/* Two passes at once (the background one of two recordings, or it and
 * `callus gc`) keep the count: each counts what is over inside its
 * transaction, so the second finds nothing over. */
static void two_passes_at_once_keep_the_count(void **state)
{
	fixture *f = *state;
	callus_signature g[6];
	char file[32], msg[64];
	callus_gc_policy p;
	callus_gc_result r;
	sqlite3 *other = NULL;

	for (int i = 0; i < 6; i++) {
		snprintf(file, sizeof(file), "src/f%d.c", i);
		snprintf(msg, sizeof(msg), "unknown type name type_%c_used here", 'a' + i);
		record(f, file, msg, &g[i], NULL);
	}
	assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_busy_handler(callus_store_db(f->s), another_pass_first, other);
	policy(&p);
	p.lesson_days = p.run_days = p.signature_days = p.prune_hours = 0;
	p.lessons_max = 4;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 0);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 4);
	assert_int_equal(count(f, "SELECT lessons FROM totals"), 4);
	sqlite3_close(other);
	for (int i = 0; i < 6; i++)
		callus_signature_release(&g[i]);
}

/* What the recording below records again, in a store of its own. */
typedef struct again {
	fixture *f;
	callus_store *s;
	int done;
} again;

/* The same failure recorded again, as a recording in another process
 * does, in store s: its lesson, then its file, after its commit. */
static int recorded_again(void *arg, sqlite3 *db, const char *name, int frames)
{
	again *a = arg;
	callus_store *keep = a->f->s;
	callus_signature g;

	(void)db;
	(void)name;
	(void)frames;
	if (a->done++)
		return SQLITE_OK;
	a->f->s = a->s;
	record(a->f, "src/a.c", "implicit declaration of function alpha_one", &g, NULL);
	a->f->s = keep;
	callus_signature_release(&g);
	return SQLITE_OK;
}

/* A lesson made again after its removal's commit keeps its file: the file
 * went under the write lock, before the commit, and the recording writes
 * its own after its commit. */
static void a_lesson_made_again_keeps_its_file(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char sa[65];
	callus_gc_policy p;
	callus_gc_result r;
	again ag = { f, NULL, 0 };

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, sa);
	/* the newest lesson, which stays */
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	sql(f, "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z' WHERE file = 'src/a.c'");
	assert_int_equal(callus_store_open(&ag.s, f->path, 5000, NULL), 0);
	/* called after each commit, the write lock released */
	sqlite3_wal_hook(callus_store_db(f->s), recorded_again, &ag);
	policy(&p);
	p.run_days = p.signature_days = p.prune_hours = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	sqlite3_wal_hook(callus_store_db(f->s), NULL, NULL);
	assert_true(ag.done >= 1);
	/* its file went with it, and the recording wrote it again */
	assert_int_equal(r.lessons, 1);
	assert_int_equal(r.lesson_files, 1);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 2);
	assert_true(lesson_file_exists(f, sa));
	callus_store_close(ag.s);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* A lesson a recording owes its file (committed, the file not written yet:
 * the recording's views debt names it) is left for a later pass: removed
 * now, its file, written after the removal, would stay without it. */
static void a_lesson_owed_its_file_is_left_for_later(void **state)
{
	fixture *f = *state;
	callus_signature g[4];
	char s[4][65];
	callus_gc_policy p;
	callus_gc_result r;
	callus_views_debt *debt = NULL;

	record_some(f, 3, g, s);
	/* the newest lesson, which stays */
	record(f, "src/d.c", "unknown type name delta_four used here", &g[3], s[3]);
	callus_signature_release(&g[0]);
	record(f, "src/a.c", "implicit declaration of function alpha_one", &g[0], NULL);
	/* b, the least valuable, is being recorded again elsewhere */
	callus_views_owe(&debt, f->dir, s[1]);
	assert_non_null(debt);
	policy(&p);
	p.lessons_max = 3;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_true(lesson_file_exists(f, s[1]));
	assert_false(lesson_file_exists(f, s[2]));
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE file = 'src/b.c'"), 1);
	/* its file written, the debt paid: an ordinary lesson again */
	callus_views_settle(debt, 1);
	p.lessons_max = 2;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_false(lesson_file_exists(f, s[1]));
	assert_true(lesson_file_exists(f, s[0]));
	assert_true(lesson_file_exists(f, s[3]));
	for (int i = 0; i < 4; i++)
		callus_signature_release(&g[i]);
}

/* A recording in another process, made while a rewrite waits for the
 * write lock that db (a third connection) holds: db lets it go, and the
 * failure is recorded in s, which appends its vector to the file. */
typedef struct waiting {
	fixture *f;
	callus_store *s;
	sqlite3 *db;
	int done;
} waiting;

static int recorded_while_waiting(void *arg, int tries)
{
	waiting *w = arg;
	callus_store *keep = w->f->s;
	callus_signature g;

	if (!w->done++) {
		assert_int_equal(sqlite3_exec(w->db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
		w->f->s = w->s;
		record(w->f, "src/c.c", "storage size of gamma_three is not known", &g, NULL);
		w->f->s = keep;
		callus_signature_release(&g);
	}
	return tries < 100;
}

/* A vector file written again from the store holds the store's write lock
 * from the read of the vectors to the rename: a recording that appends
 * meanwhile (gc's rewrite raced one) commits before the read or after the
 * rename, and its vector is in the file either way. */
static void a_vector_files_rewrite_holds_the_write_lock(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;
	waiting w = { f, NULL, NULL, 0 };

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	assert_int_equal(callus_match_builtin_vector_path(&path, f->dir), 0);
	assert_int_equal(callus_store_open(&w.s, f->path, 5000, NULL), 0);
	assert_int_equal(sqlite3_open(f->path, &w.db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(w.db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_busy_handler(callus_store_db(f->s), recorded_while_waiting, &w);
	/* the file behind the store (have 0): written again */
	assert_int_equal(callus_match_file_sync(f->s, path.ptr, 0, 2, 0,
					       CALLUS_MATCH_BUILTIN_VECTORS, NULL),
			 1);
	assert_int_equal(w.done, 1);
	assert_int_equal(count(f, BUILTIN_COUNTED), 3);
	callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, NULL);
	assert_int_equal(callus_vecindex_count(vi), 3);
	callus_vecindex_close(vi);
	/* out of the transaction it took */
	assert_int_not_equal(sqlite3_get_autocommit(callus_store_db(f->s)), 0);
	sqlite3_close(w.db);
	callus_store_close(w.s);
	callus_buf_release(&path);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* A commit refused: what SQLite does with a commit hook that says no. */
static int refuse_commit(void *arg)
{
	(*(int *)arg)++;
	return 1;
}

/* A removal whose commit fails leaves the lessons, and puts back the files
 * it had removed under the lock. */
static void a_failed_commit_puts_the_files_back(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char sa[65];
	callus_gc_policy p;
	callus_gc_result r;
	int refused = 0;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, sa);
	/* the newest lesson, which stays */
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	sql(f, "UPDATE lessons SET last_seen = '2001-01-01T00:00:00.000Z' WHERE file = 'src/a.c'");
	sqlite3_commit_hook(callus_store_db(f->s), refuse_commit, &refused);
	policy(&p);
	p.run_days = p.signature_days = p.prune_hours = 0;
	assert_true(callus_gc(f->s, f->dir, &p, &r, NULL) < 0);
	sqlite3_commit_hook(callus_store_db(f->s), NULL, NULL);
	assert_int_equal(refused, 1);
	assert_int_equal(r.lessons, 0);
	assert_int_equal(r.lesson_files, 0);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons"), 2);
	assert_true(lesson_file_exists(f, sa));
	/* and the next pass removes both */
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lessons, 1);
	assert_int_equal(r.lesson_files, 1);
	assert_false(lesson_file_exists(f, sa));
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* A signature only a team's or org's cached note names stays: the note
 * is shown for it. */
static void a_cached_notes_signature_stays(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	callus_gc_policy p;
	callus_gc_result r;
	char q[512];

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	record(f, "src/c.c", "storage size of gamma_three is not known", &c, NULL);
	snprintf(q, sizeof(q),
		 "INSERT INTO note_cache (layer, id, revision, signature_id, title, pulled_at)"
		 " VALUES ('team', 'n1', 1, '%s', 'Declare alpha_one', '2001-01-01T00:00:00.000Z')",
		 a.id);
	sql(f, q);
	sql(f, "UPDATE signatures SET last_seen = unixepoch('2001-01-01')");
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	/* b goes; a (the cached note's) and c (the newest) stay */
	assert_int_equal(r.signatures, 1);
	assert_int_equal(signatures_named(f, a.id), 1);
	assert_int_equal(signatures_named(f, b.id), 0);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

static void the_sweep_removes_orphan_lesson_files(void **state)
{
	fixture *f = *state;
	callus_signature a;
	char sa[65], path[160];
	callus_gc_policy p;
	callus_gc_result r;
	FILE *fp;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, sa);
	snprintf(path, sizeof(path), "%s/.lessons/0123456789ab.md", f->dir);
	assert_non_null(fp = fopen(path, "w"));
	fputs("# an orphan\n", fp);
	fclose(fp);
	callus_gc_policy_default(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lesson_files, 1);
	assert_int_equal(access(path, F_OK), -1);
	assert_true(lesson_file_exists(f, sa));
	callus_signature_release(&a);
}

/* A folder of a page's name is no page: the sweep leaves it, and neither
 * a dry run nor the full check counts it (each said, at every pass, of a
 * removal none made). */
static void a_folder_of_a_pages_name_is_left_and_not_counted(void **state)
{
	fixture *f = *state;
	callus_signature a;
	callus_views_report rep;
	callus_gc_policy p;
	callus_gc_result r;
	char path[160];
	struct stat st;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	snprintf(path, sizeof(path), "%s/.lessons/0123456789ab.md", f->dir);
	assert_int_equal(mkdir(path, 0755), 0);
	callus_gc_policy_default(&p);
	p.dry_run = 1;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lesson_files, 0);
	p.dry_run = 0;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.lesson_files, 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(callus_views_repair(f->s, f->dir, NULL, 20, CALLUS_VIEWS_FULL, &rep, NULL),
			 0);
	assert_int_equal(rep.orphans, 0);
	callus_signature_release(&a);
}

static void the_background_pass_is_due_once_per_interval(void **state)
{
	fixture *f = *state;
	callus_gc_policy p;
	char path[160];

	callus_gc_policy_default(&p);
	/* a workspace without a stamp is new: it is made, and the first pass
	 * is an interval away */
	snprintf(path, sizeof(path), "%s/.callus/gc.stamp", f->dir);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_false(callus_gc_due(f->dir, &p));
	assert_int_equal(access(path, F_OK), 0);
	assert_false(callus_gc_due(f->dir, &p));
	snprintf(path, sizeof(path), "touch -d '2 days ago' '%s/.callus/gc.stamp'", f->dir);
	assert_int_equal(system(path), 0);
	assert_true(callus_gc_due(f->dir, &p));
	assert_false(callus_gc_due(f->dir, &p));
	/* a stamp a second or two ahead of time(2) (the file's clock is the
	 * kernel's, which may run a tick ahead) is one just touched: fresh */
	snprintf(path, sizeof(path), "touch -d '2 seconds' '%s/.callus/gc.stamp'", f->dir);
	assert_int_equal(system(path), 0);
	assert_false(callus_gc_due(f->dir, &p));
	/* a stamp ahead of the clock (the clock set back since): due, not
	 * fresh until the clock catches up */
	snprintf(path, sizeof(path), "touch -d '90 days' '%s/.callus/gc.stamp'", f->dir);
	assert_int_equal(system(path), 0);
	assert_true(callus_gc_due(f->dir, &p));
	assert_false(callus_gc_due(f->dir, &p));
}

/* The blob of q's first row (at most max bytes, copied to out); its size. */
static size_t blob_of(fixture *f, const char *q, void *out, size_t max)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t n;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = (size_t)sqlite3_column_bytes(st, 0);
	assert_true(n <= max);
	memcpy(out, sqlite3_column_blob(st, 0), n);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* The dense packed bytes of a stored vector of any form (vecindex.h). */
static void dense_of(const uint8_t *blob, size_t n, uint8_t *dense)
{
	float v[CALLUS_EMBED_DIM], scale;

	assert_int_equal(callus_vecindex_unpack(v, CALLUS_EMBED_DIM, blob, n), 0);
	memcpy(&scale, blob, sizeof(scale));
	memcpy(dense, blob, sizeof(scale));
	for (size_t i = 0; i < CALLUS_EMBED_DIM; i++)
		dense[sizeof(scale) + i] = (uint8_t)(int8_t)(scale ? lrintf(v[i] / scale) : 0);
}

/* Schemas 18 and 21: a vector a schema-17 store kept dense, and one kept
 * as pairs (schema 18), become the smallest form, the same scale and
 * values (no quantizing again), and read back as the same floats. */
static void old_vector_forms_migrate_to_the_smallest(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char sa[65], sb[65], *stored, *after;
	uint8_t dense[CALLUS_VECINDEX_PACKED(CALLUS_EMBED_DIM)], blob[sizeof(dense)],
		second[sizeof(dense)], pairs[sizeof(dense)];
	float va[CALLUS_EMBED_DIM], vb[CALLUS_EMBED_DIM];
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t n, np = sizeof(float);

	record(f, "src/a.c", "implicit declaration of function alpha_one in tool_chain_setup", &a,
	       sa);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, sb);
	callus_store_close(f->s);
	f->s = NULL;
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors"), 2);
	/* the first in the mask form (an odd length), smaller than pairs */
	assert_int_equal(count(f, "SELECT length(vector) % 2 FROM signature_vectors ORDER BY sig"), 1);
	stored = text_of(f, "SELECT group_concat(hex(vector), ' ') FROM"
			    " (SELECT vector FROM signature_vectors ORDER BY sig)");

	/* the first made dense again by hand, the second pairs, the store set
	 * back to schema 17 */
	n = blob_of(f, "SELECT vector FROM signature_vectors ORDER BY sig", blob, sizeof(blob));
	dense_of(blob, n, dense);
	assert_int_equal(callus_vecindex_unpack(va, CALLUS_EMBED_DIM, blob, n), 0);
	assert_int_equal(callus_vecindex_unpack(vb, CALLUS_EMBED_DIM, dense, sizeof(dense)), 0);
	assert_memory_equal(va, vb, sizeof(va));
	n = blob_of(f, "SELECT vector FROM signature_vectors ORDER BY sig DESC", blob, sizeof(blob));
	/* pairs written apart from the dense form they are read from: two
	 * bytes a component would overrun its unread values */
	dense_of(blob, n, second);
	memcpy(pairs, second, sizeof(float));
	for (size_t i = 0; i < CALLUS_EMBED_DIM; i++)
		if (second[sizeof(float) + i])
			pairs[np++] = (uint8_t)i, pairs[np++] = second[sizeof(float) + i];
	assert_int_equal(callus_vecindex_unpack(vb, CALLUS_EMBED_DIM, pairs, np), 0);
	assert_int_equal(callus_vecindex_unpack(va, CALLUS_EMBED_DIM, blob, n), 0);
	assert_memory_equal(va, vb, sizeof(va));
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "UPDATE signature_vectors SET vector = ?1 WHERE sig ="
					    " (SELECT min(sig) FROM signature_vectors)",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_blob(st, 1, dense, (int)sizeof(dense), SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_prepare_v2(db, "UPDATE signature_vectors SET vector = ?1 WHERE sig ="
					    " (SELECT max(sig) FROM signature_vectors)",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_blob(st, 1, pairs, (int)np, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(sqlite3_exec(db, TEST_AS_BEFORE_27 "PRAGMA user_version = 17", NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors WHERE length(vector) = 260"), 1);

	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s), CALLUS_STORE_SCHEMA_VERSION);
	after = text_of(f, "SELECT group_concat(hex(vector), ' ') FROM"
			   " (SELECT vector FROM signature_vectors ORDER BY sig)");
	assert_string_equal(after, stored);
	assert_int_equal(count(f, BUILTIN_COUNTED), 2);
	free(after);
	free(stored);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* The signature id as a reader gets it has the pattern want. */
static void assert_pattern_read(fixture *f, const char *id, const char *want)
{
	callus_signature got;

	assert_int_equal(callus_match_get_signature(f->s, id, &got, NULL), 0);
	assert_string_equal(got.message_pattern, want);
	callus_signature_release(&got);
}

/*
 * Schema 19: a row keeps no pattern its original makes, and reads back the
 * same one; a pattern the original does not make (another version's) is
 * kept.  The migration empties the first kind in an older store and
 * leaves the second.
 */
static void schema_19_keeps_a_pattern_once(void **state)
{
	fixture *f = *state;
	static const char other[] = "unknown\\s+type\\s+name\\s+(?#path)[^\\s:]+";
	callus_signature a, b, got;
	char q[256], *up;

	record(f, "src/a.c", "implicit declaration of function 'alpha_one' at 0x7ffd12", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two used here", &b, NULL);
	assert_non_null(strstr(a.message_pattern, "(?#str)"));
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE message_pattern = ''"), 2);
	assert_int_equal(callus_match_get_signature(f->s, a.id, &got, NULL), 0);
	assert_string_equal(got.message_pattern, a.message_pattern);
	assert_string_equal(got.original, a.original);
	callus_signature_release(&got);

	/* an older store: a's pattern written out, b's another version's */
	callus_store_close(f->s);
	f->s = NULL;
	up = sqlite3_mprintf("UPDATE signatures SET message_pattern = %Q WHERE id = %Q;"
			     "UPDATE signatures SET message_pattern = %Q WHERE id = %Q;"
			     TEST_AS_BEFORE_27 "PRAGMA user_version = 18",
			     a.message_pattern, a.id, other, b.id);
	assert_non_null(up);
	sql(f, up);
	sqlite3_free(up);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	snprintf(q, sizeof(q), "SELECT length(message_pattern) FROM signatures WHERE id = '%s'",
		 a.id);
	assert_int_equal(count(f, q), 0);
	assert_pattern_read(f, a.id, a.message_pattern);
	assert_pattern_read(f, b.id, other);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* Schema 20: a signature's times are integer seconds, of the recording's
 * time; a time SQLite cannot read is the clock's, never text in the row
 * (its CHECK would refuse the recording). */
static void signature_times_are_seconds(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	char q[256];

	record_at(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL,
		  "2026-11-25T09:00:00.000Z");
	record_at(f, "src/b.c", "unknown type name beta_two used here", &b, NULL, "last tuesday");
	snprintf(q, sizeof(q),
		 "SELECT first_seen = 1795597200 AND last_seen = first_seen FROM signatures"
		 " WHERE id = '%s'",
		 a.id);
	assert_int_equal(count(f, q), 1);
	snprintf(q, sizeof(q),
		 "SELECT typeof(last_seen) = 'integer' AND abs(last_seen - unixepoch('now')) < 600"
		 " FROM signatures WHERE id = '%s'",
		 b.id);
	assert_int_equal(count(f, q), 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* The old layout of the document frequencies, a row a feature (schemas 5
 * to 26), made of what a recording left in embed_df_recent, the folded
 * table emptied; the store closed first, user_version set to v.  The
 * number of rows. */
static long long df_rows_as_before(fixture *f, const char *keys, int v)
{
	long long rows = count(f, "SELECT count(*) FROM embed_df_recent");
	char *q;

	callus_store_close(f->s);
	f->s = NULL;
	q = sqlite3_mprintf(TEST_AS_BEFORE_27 "UPDATE embed_df SET feature = %s;"
			    "PRAGMA user_version = %d",
			    keys, v);
	assert_non_null(q);
	sql(f, q);
	sqlite3_free(q);
	return rows;
}

/* Schema 22: embed_df keyed by the low 32 bits of a feature's id; the
 * migration folds the old 64-bit keys so, adding rows that meet. */
static void schema_22_keys_features_by_32_bits(void **state)
{
	fixture *f = *state;
	callus_signature a;
	long long rows, total;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	total = count(f, "SELECT sum(df) FROM embed_df_recent");
	assert_int_equal(count(f, "SELECT count(*) FROM embed_df_recent WHERE feature < 0"
				  " OR feature > 4294967295"), 0);
	/* as schema 21 kept them: high bits set, and one key split in two */
	rows = df_rows_as_before(f, "feature | (feature << 32)", 21);
	assert_true(rows > 5);
	sql(f, "INSERT INTO embed_df SELECT (feature & 4294967295) | (1 << 40), 2 FROM embed_df"
	       " ORDER BY feature LIMIT 1;");
	assert_int_equal(count(f, "SELECT count(*) FROM embed_df WHERE feature > 4294967295"
				  " OR feature < 0"), rows + 1);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(count(f, "SELECT sum(callus_df_features(counts)) FROM embed_df"), rows);
	assert_int_equal(count(f, "SELECT sum(callus_df_sum(counts)) FROM embed_df"), total + 2);
	/* another signature with words of the first counts them in the rows
	 * the migration made: more than the one above reaches 2 */
	assert_int_equal(count(f, "SELECT sum(callus_df_features(counts, 2)) FROM embed_df"), 1);
	callus_signature_release(&a);
	record(f, "src/b.c", "implicit declaration of function beta_two", &a, NULL);
	assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	assert_true(count(f, "SELECT sum(callus_df_features(counts, 2)) FROM embed_df") > 1);
	callus_signature_release(&a);
}

/* Schema 27: the document frequencies a row a bucket of 65,536 keys, the
 * counts packed.  The migration keeps every feature's count: the vector of
 * a signature weighed before it is the one weighed after, and a signature
 * recorded after counts with them. */
static void schema_27_packs_frequencies_by_bucket(void **state)
{
	fixture *f = *state;
	callus_signature a, b, q;
	float before[CALLUS_EMBED_DIM], after[CALLUS_EMBED_DIM];
	long long rows, total, buckets;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "implicit declaration of function beta_two", &b, NULL);
	record(f, "src/c.c", "unknown type name gamma_three", &q, NULL);
	total = count(f, "SELECT sum(df) FROM embed_df_recent");
	buckets = count(f, "SELECT count(DISTINCT feature >> 16) FROM embed_df_recent");
	assert_int_equal(callus_match_embed(f->s, &q, before), SQLITE_OK);
	rows = df_rows_as_before(f, "feature", 26);
	assert_true(rows > 10);
	assert_true(buckets > 1 && buckets <= rows);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(count(f, "PRAGMA user_version"), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(count(f, "SELECT count(*) FROM embed_df"), buckets);
	assert_int_equal(count(f, "SELECT sum(callus_df_features(counts)) FROM embed_df"), rows);
	assert_int_equal(count(f, "SELECT sum(callus_df_sum(counts)) FROM embed_df"), total);
	assert_int_equal(count(f, "SELECT count(*) FROM embed_df_recent"), 0);
	/* the words a and b share, counted twice */
	assert_true(count(f, "SELECT sum(callus_df_features(counts, 2)) FROM embed_df") > 0);
	assert_int_equal(callus_match_embed(f->s, &q, after), SQLITE_OK);
	assert_memory_equal(before, after, sizeof(before));
	callus_signature_release(&q);
	record(f, "src/d.c", "implicit declaration of function delta_four", &q, NULL);
	assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	assert_true(count(f, "SELECT sum(callus_df_sum(counts)) FROM embed_df") > total);
	assert_true(count(f, "SELECT sum(callus_df_features(counts, 3)) FROM embed_df") > 0);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&q);
}

/* A signature's context patterns as the store reads them (one list of
 * the row's ctx), of the signature id */
static void context_of(fixture *f, const char *id, callus_signature *out)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "SELECT " CALLUS_MATCH_SIGNATURE_COLUMNS
					    " FROM signatures WHERE id = ?1",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(callus_match_read_signature(st, 0, out), SQLITE_OK);
	sqlite3_finalize(st);
}

/* Schema 31: each signature's sketch in its row and in the index of each
 * type's newest after its time.  Written by a recording (one with stack
 * patterns negative), and made by the migration for every row a store
 * held; a migration that left the default 0, or an index without it (the
 * fallback would read every row again), fails here. */
static void schema_31_sketches_every_signature(void **state)
{
	fixture *f = *state;
	callus_signature a, b;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two", &b, NULL);
	sql(f, "UPDATE signatures SET stack_patterns = '[\"main\tsrc/b.c\"]',"
	       " sketch = sketch - (1 << 47) WHERE rowid = (SELECT max(rowid) FROM signatures)");
	assert_int_equal(test_wrong_sketches(callus_store_db(f->s)), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE sketch = 0"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE sketch < 0"), 1);
	callus_store_close(f->s);
	f->s = NULL;
	sql(f, TEST_AS_BEFORE_31 "PRAGMA user_version = 30");
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(test_wrong_sketches(callus_store_db(f->s)), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE sketch = 0"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE sketch < 0"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM pragma_index_info('signatures_type_seen')"
				  " WHERE name = 'sketch' AND seqno = 2"),
			 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* A statement of q's with each %Q taken by id in turn, run on f's store. */
static void sql_ids(fixture *f, const char *q, const char *id1, const char *id2)
{
	char *up = sqlite3_mprintf(q, id1, id2);

	assert_non_null(up);
	sql(f, up);
	sqlite3_free(up);
}

#define REMOTE_MODEL "openai:nomic-embed-text@127.0.0.1"
#define REMOTE_COUNTED "SELECT n FROM vector_models WHERE name = '" REMOTE_MODEL "'"
#define NOTED "SELECT n FROM noted_count"

/* Schema 32: a vector names its model by an id in vector_models, the
 * built-in one's 1, and the vectors are counted per model there.  The
 * migration gives each model of an older store its id and count, keeps
 * every vector's bytes, and makes the triggers that count the noted
 * signatures test the id: a migration that left a name in a row, lost a
 * count, or left a trigger testing the name (the noted count would no
 * longer move) fails here. */
static void schema_32_names_a_vectors_model_by_id(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	char *before, *after;
	int64_t with = 0, all = 0;

#define VECTORS_READ                                                                    \
	"SELECT group_concat(v.sig || ' ' || m.name || ' ' || hex(v.vector), ',') FROM"   \
	" (SELECT * FROM signature_vectors ORDER BY sig, model) v JOIN vector_models m"      \
	" ON m.id = v.model"
	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "unknown type name beta_two", &b, NULL);
	/* a's vector from an external model too, and a note on a */
	sql(f, "INSERT INTO vector_models (name) VALUES ('" REMOTE_MODEL "')");
	sql_ids(f,
		"INSERT INTO signature_vectors SELECT rowid, (SELECT id FROM vector_models"
		"  WHERE name = '" REMOTE_MODEL "'), x'0000803f' FROM signatures WHERE id = %Q;"
		"INSERT INTO notes (id, signature_id, title, created_at, updated_at)"
		"  VALUES ('n1', %Q, 't', '', '')",
		a.id, a.id);
	sql_ids(f, "INSERT INTO note_signatures VALUES (%Q, 'n1')", a.id, NULL);
	assert_int_equal(count(f, BUILTIN_COUNTED), 2);
	assert_int_equal(count(f, REMOTE_COUNTED), 1);
	assert_int_equal(count(f, NOTED), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors WHERE model = "
				  CALLUS_MATCH_BUILTIN_ID),
			 2);
	before = text_of(f, VECTORS_READ);

	callus_store_close(f->s);
	f->s = NULL;
	/* a count drifted (a store written by hand): made again from the
	 * rows */
	sql(f, TEST_AS_BEFORE_32 "UPDATE vector_counts SET n = n + 5;"
	       "PRAGMA user_version = 31");
	{
		sqlite3 *db = NULL;

		assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
		assert_int_equal(test_triggers_by_model_name(db), 7);
		sqlite3_close(db);
	}
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors"
				  " WHERE typeof(model) = 'text'"),
			 3);
	assert_int_equal(count(f, "SELECT count(*) FROM sqlite_master"
				  " WHERE sql LIKE '%" CALLUS_EMBED_BUILTIN_MODEL "%'"),
			 7);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors"
				  " WHERE typeof(model) <> 'integer'"),
			 0);
	assert_int_equal(count(f, "SELECT id = " CALLUS_MATCH_BUILTIN_ID " FROM vector_models"
				  " WHERE name = '" CALLUS_EMBED_BUILTIN_MODEL "'"),
			 1);
	assert_int_equal(count(f, BUILTIN_COUNTED), 2);
	assert_int_equal(count(f, REMOTE_COUNTED), 1);
	after = text_of(f, VECTORS_READ);
	assert_string_equal(after, before);
	assert_int_equal(count(f, NOTED), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM sqlite_master"
				  " WHERE sql LIKE '%" CALLUS_EMBED_BUILTIN_MODEL "%'"),
			 0);
	assert_int_equal(callus_match_count_vectors(f->s, CALLUS_EMBED_BUILTIN_MODEL, &with, &all,
						    NULL),
			 0);
	assert_int_equal(with, 2);
	assert_int_equal(all, 2);
	assert_int_equal(callus_match_count_vectors(f->s, REMOTE_MODEL, &with, &all, NULL), 0);
	assert_int_equal(with, 1);

	/* the triggers made again count by the id: a note, a layer's cached
	 * note, a vector and a signature coming and going */
	sql_ids(f, "DELETE FROM note_signatures WHERE signature_id = %Q", a.id, NULL);
	assert_int_equal(count(f, NOTED), 0);
	sql_ids(f, "INSERT INTO note_signatures VALUES (%Q, 'n1')", a.id, NULL);
	assert_int_equal(count(f, NOTED), 1);
	sql_ids(f,
		"INSERT INTO note_cache (layer, id, revision, signature_id, title, pulled_at)"
		"  VALUES ('team', 'c1', 1, %Q, 't', '')",
		b.id, NULL);
	assert_int_equal(count(f, NOTED), 2);
	sql(f, "UPDATE note_cache SET signature_id = 'none'");
	assert_int_equal(count(f, NOTED), 1);
	sql_ids(f, "UPDATE note_cache SET signature_id = %Q", b.id, NULL);
	assert_int_equal(count(f, NOTED), 2);
	sql_ids(f, "DELETE FROM signatures WHERE id = %Q", b.id, NULL);
	assert_int_equal(count(f, BUILTIN_COUNTED), 1);
	assert_int_equal(count(f, NOTED), 1);
	record(f, "src/c.c", "expected ';' before '}' token", &c, NULL);
	assert_int_equal(count(f, BUILTIN_COUNTED), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors WHERE model = "
				  CALLUS_MATCH_BUILTIN_ID),
			 2);
#undef VECTORS_READ
	free(before);
	free(after);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

/* Schema 28: a signature's context patterns kept once in contexts, its
 * row naming them (0: none).  The migration makes one row of each list
 * the rows held and names it in each; a signature reads the list it had;
 * gc takes a list no signature names any more.  A migration that named
 * the wrong list, a reader that took another row's, or a writer that put
 * a list twice fails here. */
static void schema_28_keeps_each_context_once(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c, got;
	callus_gc_policy p;
	callus_gc_result r;
	char *up;

	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	record(f, "src/b.c", "implicit declaration of function beta_two", &b, NULL);
	record(f, "src/c.c", "unknown type name gamma_three", &c, NULL);
	/* the three share their list: one row */
	assert_int_equal(count(f, "SELECT count(*) FROM contexts"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE ctx ="
				  " (SELECT ctx FROM contexts WHERE patterns = '[\"framework:gcc\"]')"),
			 3);
	callus_store_close(f->s);
	f->s = NULL;
	/* as schema 27 kept them, b's another list and c's none */
	up = sqlite3_mprintf(TEST_AS_BEFORE_28
			     "UPDATE signatures SET context_patterns = '[\"framework:jest\",\"ext:ts\"]'"
			     " WHERE id = %Q;"
			     "UPDATE signatures SET context_patterns = '[]' WHERE id = %Q;"
			     "PRAGMA user_version = 27",
			     b.id, c.id);
	assert_non_null(up);
	sql(f, up);
	sqlite3_free(up);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(count(f, "SELECT count(*) FROM contexts"), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE ctx = 0"), 1);
	context_of(f, a.id, &got);
	assert_int_equal(got.context_patterns.count, 1);
	assert_string_equal(got.context_patterns.items[0], "framework:gcc");
	callus_signature_release(&got);
	context_of(f, b.id, &got);
	assert_int_equal(got.context_patterns.count, 2);
	assert_string_equal(got.context_patterns.items[0], "framework:jest");
	assert_string_equal(got.context_patterns.items[1], "ext:ts");
	callus_signature_release(&got);
	context_of(f, c.id, &got);
	assert_int_equal(got.context_patterns.count, 0);
	callus_signature_release(&got);
	/* c seen again: its list named again, not put twice */
	callus_signature_release(&c);
	record(f, "src/c.c", "unknown type name gamma_three", &c, NULL);
	assert_int_equal(count(f, "SELECT count(*) FROM contexts"), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE ctx = 0"), 0);
	/* b goes: so does its list, a's stays */
	up = sqlite3_mprintf("UPDATE signatures SET last_seen = unixepoch('2001-01-01')"
			     " WHERE id = %Q",
			     b.id);
	assert_non_null(up);
	sql(f, up);
	sqlite3_free(up);
	policy(&p);
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(r.signatures, 1);
	assert_int_equal(count(f, "SELECT count(*) FROM contexts"), 1);
	context_of(f, a.id, &got);
	assert_string_equal(got.context_patterns.items[0], "framework:gcc");
	callus_signature_release(&got);
	/* a list that is not JSON, or a row gone (a damaged store): read as
	 * none, and put again by the next recording */
	sql(f, "UPDATE contexts SET patterns = '[\"framework:gcc\"'");
	context_of(f, a.id, &got);
	assert_int_equal(got.context_patterns.count, 0);
	callus_signature_release(&got);
	sql(f, "DELETE FROM contexts");
	context_of(f, a.id, &got);
	assert_int_equal(got.context_patterns.count, 0);
	callus_signature_release(&got);
	callus_signature_release(&a);
	record(f, "src/a.c", "implicit declaration of function alpha_one", &a, NULL);
	context_of(f, a.id, &got);
	assert_int_equal(got.context_patterns.count, 1);
	assert_string_equal(got.context_patterns.items[0], "framework:gcc");
	callus_signature_release(&got);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

/* Schema 9's migration on a store the old binary wrote (schema 5, one
 * float32 vector): the vector packed to 260 bytes, counted, nothing queued
 * for indexing; the lesson's file in lesson_files; schema 13's totals
 * counted; schema 14's lesson_runs rebuilt without a rowid, every row kept;
 * schema 15's signature_runs gone, each of its pairs still in run_errors;
 * schema 16's errors and vectors naming the same signatures by rowid, the
 * suggestions of the rebuilt pending errors still there; schema 35's
 * errors whose message is their signature's original keeping ''. */
static void an_old_store_migrates_packed_and_counted(void **state)
{
	fixture *f = *state;
	const char *src = getenv("CALLUS_SRCDIR");
	char cmd[512];
	callus_store *s = NULL;
	int64_t links, runs, errors, suggestions;
	char *pending, *named, *seen, *after;
	float v[CALLUS_EMBED_DIM];
	uint8_t want[CALLUS_VECINDEX_PACKED(CALLUS_EMBED_DIM)], got[sizeof(want)];
	size_t nwant;
	int drifted = -1;

	callus_store_close(f->s);
	f->s = NULL;
	/* the empty store's WAL goes too: it would be read over the copy */
	snprintf(cmd, sizeof(cmd),
		 "rm -f '%s-wal' '%s-shm' && cp '%s/tests/fixtures/deja-workspace/.deja/deja.db' '%s'",
		 f->path, f->path, src ? src : ".", f->path);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(count(f, "PRAGMA user_version"), 5);
	assert_int_equal(count(f, "SELECT length(vector) FROM signature_vectors"), 1024);
	assert_int_equal(blob_of(f, "SELECT vector FROM signature_vectors", v, sizeof(v)), sizeof(v));
	nwant = callus_vecindex_pack_store(want, v, CALLUS_EMBED_DIM);
	assert_true(nwant < 260);
	links = count(f, "SELECT count(*) FROM signature_runs");
	runs = count(f, "SELECT count(*) FROM lesson_runs");
	errors = count(f, "SELECT count(*) FROM run_errors");
	assert_true(links > 0 && runs > 0 && errors >= links);
	pending = text_of(f, "SELECT group_concat(id || ' ' || signature_id || ' ' || state, ',')"
			     " FROM (SELECT * FROM pending_errors ORDER BY id)");
	named = text_of(f, "SELECT group_concat(run_id || ' ' || message || ' ' || signature_id, ',')"
			   " FROM (SELECT * FROM run_errors WHERE signature_id IS NOT NULL"
			   "  ORDER BY rowid)");
	suggestions = count(f, "SELECT count(*) FROM suggestions");
	/* a time no reader can read becomes 0, the epoch: older than any */
	sql(f, "UPDATE signatures SET last_seen = 'yesterday-ish'"
	       " WHERE rowid = (SELECT min(rowid) FROM signatures)");
	seen = text_of(f, "SELECT group_concat(rowid || ' ' || id || ' ' || unixepoch(first_seen)"
			  " || ' ' || coalesce(unixepoch(last_seen), 0), ',') FROM"
			  " (SELECT rowid, * FROM signatures ORDER BY rowid)");
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 2);
	assert_true(suggestions > 0);
	assert_int_equal(callus_store_open(&s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(callus_store_totals_check(s, 0, &drifted, NULL), 0);
	assert_false(drifted);
	callus_store_close(s);
	assert_int_equal(count(f, "SELECT lessons FROM totals"), 2);
	assert_int_equal(count(f, "SELECT signatures FROM totals"), count(f, "SELECT count(*) FROM signatures"));
	/* schema 18: sparse, the bytes of the float vector quantized */
	assert_int_equal(blob_of(f, "SELECT vector FROM signature_vectors", got, sizeof(got)), nwant);
	assert_memory_equal(got, want, nwant);
	assert_int_equal(count(f, BUILTIN_COUNTED), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures_unindexed"), 0);
	/* schema 14: lesson_runs kept whole, without a rowid; schema 15:
	 * signature_runs gone, its pairs those of the run's error rows */
	assert_int_equal(count(f, "SELECT count(*) FROM lesson_runs"), runs);
	assert_int_equal(count(f, "SELECT count(*) FROM pragma_table_list"
				  " WHERE name = 'lesson_runs' AND wr"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'signature_runs%'"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM run_errors"), errors);
	assert_int_equal(count(f, "SELECT count(*) FROM (SELECT DISTINCT run_id, sig"
				  " FROM run_errors WHERE sig IS NOT NULL)"), links);
	/* schema 16: the same rows, naming the same signatures */
	after = text_of(f, "SELECT group_concat(p.id || ' ' || g.id || ' ' || p.state, ',') FROM"
			   " (SELECT * FROM pending_errors ORDER BY id) p"
			   " JOIN signatures g ON g.rowid = p.sig");
	assert_string_equal(after, pending);
	free(after);
	/* schema 35: a message that is its signature's original is '' */
	after = text_of(f, "SELECT group_concat(e.run_id || ' ' || iif(e.message = '', g.original,"
			   " e.message) || ' ' || g.id, ',')"
			   " FROM (SELECT * FROM run_errors WHERE sig IS NOT NULL ORDER BY rowid) e"
			   " JOIN signatures g ON g.rowid = e.sig");
	assert_string_equal(after, named);
	free(after);
	assert_true(count(f, "SELECT count(*) FROM run_errors WHERE message = ''") > 0);
	assert_int_equal(count(f, "SELECT count(*) FROM run_errors e JOIN signatures g"
				  " ON g.sig = e.sig WHERE e.message = g.original"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors v"
				  " JOIN signatures g ON g.rowid = v.sig"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM suggestions"), suggestions);
	assert_int_equal(count(f, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	/* schema 20: the same rowids, now the sig column; times in seconds */
	after = text_of(f, "SELECT group_concat(sig || ' ' || id || ' ' || first_seen || ' '"
			   " || last_seen, ',') FROM (SELECT * FROM signatures ORDER BY sig)");
	assert_string_equal(after, seen);
	free(after);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE typeof(first_seen) <>"
				  " 'integer' OR typeof(last_seen) <> 'integer' OR sig <> rowid"), 0);
	assert_int_equal(count(f, "SELECT last_seen FROM signatures ORDER BY sig LIMIT 1"), 0);
	/* two (schema 46 joined the four), and schema 41's aliased_renamed */
	assert_int_equal(count(f, "SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'"
				  " AND tbl_name = 'signatures'"), 3);
	free(seen);
	free(pending);
	free(named);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE file <> ''"),
			 count(f, "SELECT count(DISTINCT lesson_id) FROM lesson_files"));
}

/*
 * The VM steps of a gc of a store of n (a multiple of 16) signatures unseen
 * for years under root.  The second half each have an error pending in a
 * check of their own, every fourth a note too.  In the first half, of each
 * eight, one is needed by a note alone, and two by a link alone (its alias
 * and its canonical signature): they stay; the other five go.
 */
static long long gc_steps(const char *root, int n)
{
	char path[160], q[1400];
	fixture at;
	callus_store *s = NULL;
	callus_gc_policy p;
	callus_gc_result r;
	long long steps = 0;

	snprintf(path, sizeof(path), "%s/.callus", root);
	assert_int_equal(mkdir(root, 0700), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.callus/callus.db", root);
	assert_int_equal(callus_store_open(&s, path, 5000, NULL), 0);
	snprintf(q, sizeof(q),
		 "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)"
		 " INSERT INTO signatures (id, error_type, message_pattern, original, tool,"
		 " first_seen, last_seen) SELECT printf('%%064x', i), 'E', 'gone word' || i,"
		 " 'gone word' || i, 'gcc', unixepoch('2001-01-01'), unixepoch('2001-01-01')"
		 " FROM k;"
		 "INSERT INTO checks (tool, args, dir) SELECT 'gcc', rowid, '' FROM signatures"
		 " WHERE rowid > %d;"
		 "INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at)"
		 " SELECT c.id, CAST(c.args AS INTEGER), '2001', '2001' FROM checks c;"
		 "INSERT INTO notes (id, signature_id, title, created_at, updated_at)"
		 " SELECT printf('%%012x', rowid), id, 't', '2001', '2001' FROM signatures"
		 " WHERE (rowid > %d AND rowid %% 4 = 0) OR (rowid <= %d AND rowid %% 8 = 1);"
		 "INSERT INTO signature_links (alias_id, canonical_id, similarity, reason, linked_at)"
		 " SELECT a.id, c.id, 0.99, 'duplicate', '2001' FROM signatures a"
		 " JOIN signatures c ON c.rowid = a.rowid + 1"
		 " WHERE a.rowid <= %d AND a.rowid %% 8 = 2;",
		 n, n / 2, n / 2, n / 2, n / 2);
	assert_int_equal(sqlite3_exec(callus_store_db(s), q, NULL, NULL, NULL), SQLITE_OK);
	callus_gc_policy_default(&p);
	p.sweep = 0;
	p.prune_hours = 0; /* the pending errors are years old: kept */
	steps_trace(callus_store_db(s), &steps);
	assert_int_equal(callus_gc(s, root, &p, &r, NULL), 0);
	sqlite3_trace_v2(callus_store_db(s), 0, NULL, NULL);
	assert_int_equal(r.signatures, (size_t)(n / 2 / 8 * 5));
	callus_store_close(s);
	/* what a note or a link alone needs is what stayed of the first half */
	snprintf(q, sizeof(q),
		 "SELECT count(*) = %d AND sum(rowid %% 8 IN (1, 2, 3)) = count(*)"
		 " FROM signatures WHERE rowid <= %d",
		 n / 2 / 8 * 3, n / 2);
	memset(&at, 0, sizeof(at));
	snprintf(at.path, sizeof(at.path), "%s/.callus/callus.db", root);
	assert_int_equal(count(&at, q), 1);
	return steps;
}

/* Whether a signature is still needed, and the removal of one, are
 * lookups: twice the store, about twice the steps (each was a scan of
 * the pending errors, the notes and the links for every signature: four
 * times the steps). */
static void signature_gc_grows_linearly(void **state)
{
	fixture *f = *state;
	char a[96], b[96];
	long long small, large;

	snprintf(a, sizeof(a), "%s/small", f->dir);
	snprintf(b, sizeof(b), "%s/large", f->dir);
	small = gc_steps(a, 400);
	large = gc_steps(b, 800);
	print_message("gc: %lld VM steps at 400 signatures, %lld at 800\n", small, large);
	assert_true(large < small * 3);
}


/* ------------------------------------------------------------------ */
/* A store redacted by an older redactor (store_redact.h)              */

#define TOKEN "ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z0A"
/* A store from before the mark was kept: none of its marks. */
#define FORGET_REDACTION "DELETE FROM sync_state WHERE key LIKE 'redaction.%';"
#define TOKEN2 "ghp_Zy9xW8vU7tS6rQ5pO4nM3lK2jI1hG0fE9dC8"

/* Every stored text that still holds a token, over the tables callus
 * writes text to. */
static long long tokens_left(fixture *f)
{
	return count(f, "SELECT (SELECT count(*) FROM lessons WHERE error_summary || command"
			"  || affected_files LIKE '%ghp_%')"
			" + (SELECT count(*) FROM runs WHERE command LIKE '%ghp_%')"
			" + (SELECT count(*) FROM run_errors WHERE message LIKE '%ghp_%')"
			" + (SELECT count(*) FROM checks WHERE args LIKE '%ghp_%')"
			" + (SELECT count(*) FROM signatures WHERE original LIKE '%ghp_%')"
			" + (SELECT count(*) FROM pending_errors WHERE message || files LIKE '%ghp_%')"
			" + (SELECT count(*) FROM resolutions WHERE code_changes || files"
			"  LIKE '%ghp_%')");
}

/* Whether the file at path holds the bytes of needle. */
static int file_holds(const char *path, const char *needle)
{
	FILE *fp = fopen(path, "rb");
	char *buf;
	long n;
	int found;

	assert_non_null(fp);
	assert_int_equal(fseek(fp, 0, SEEK_END), 0);
	n = ftell(fp);
	rewind(fp);
	assert_non_null(buf = malloc((size_t)n + 1));
	assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
	fclose(fp);
	found = memmem(buf, (size_t)n, needle, strlen(needle)) != NULL;
	free(buf);
	return found;
}

/* What an older callus left: a token in a text of each kind, and no mark
 * of a redactor having gone over the store. */
static void plant_tokens(fixture *f)
{
	sql(f, "UPDATE lessons SET error_summary = error_summary || ' token " TOKEN "',"
	       " affected_files = json_array('src/a.c', 'key/" TOKEN "');"
	       "UPDATE runs SET command = command || ' --token " TOKEN "';"
	       "UPDATE run_errors SET message = message || ' " TOKEN "';"
	       "UPDATE signatures SET original = original || ' " TOKEN "', message_pattern = ''"
	       " WHERE rowid = (SELECT min(rowid) FROM signatures);"
	       "UPDATE pending_errors SET message = 'auth with " TOKEN " failed',"
	       " files = json_array('src/b.c', 'keys/" TOKEN ".txt');"
	       "UPDATE resolutions SET code_changes = code_changes || '+GITHUB_TOKEN=" TOKEN "\n',"
	       " files = json_array('src/a.c', '" TOKEN ".txt');"
	       FORGET_REDACTION);
}

static void an_older_stores_texts_are_redacted_again(void **state)
{
	fixture *f = *state;
	callus_signature g1, g2;
	callus_gc_result r;
	char sig[65], page[160], logp[160], *text;
	FILE *fp;
	long long before;

	record(f, "src/a.c", "expected ';' before '}' token", &g1, sig);
	record(f, "src/b.c", "unused variable 'y'", &g2, NULL);
	resolve(f, &g2, "-c src/b.c");
	/* a store this callus made holds nothing an older redactor kept */
	assert_int_equal(callus_store_redact_due(f->s, NULL), 0);
	assert_false(callus_store_redact_vacuum_owed(f->s));
	plant_tokens(f);
	/* and a private key in a fix's diff: its hunk's header is counted
	 * again once its lines are one redaction */
	sql(f, "UPDATE resolutions SET code_changes = code_changes || '@@ -7,1 +7,4 @@'"
	       " || char(10) || ' a' || char(10) || '+-----BEGIN RSA PRIVATE KEY-----'"
	       " || char(10) || '+MIIEowIBAAKCAQEAq0' || char(10)"
	       " || '+-----END RSA PRIVATE KEY-----' || char(10)");
	/* the files of its fixed error as schema 47's migration lists them */
	sql(f, "INSERT OR IGNORE INTO pending_files SELECT p.id, j.value FROM pending_errors p,"
	       " json_each(p.files) j WHERE p.state = 'fixed' AND p.resolution_id IS NOT NULL");
	assert_int_equal(count(f, "SELECT count(*) FROM pending_files WHERE file LIKE '%ghp_%'"), 1);
	/* the list of files with a fix, as the old store left it */
	assert_int_equal(callus_fileindex_write(f->s, NULL), 0);
	snprintf(page, sizeof(page), "%s/.callus/" CALLUS_FILEINDEX_NAME, f->dir);
	assert_true(file_holds(page, "ghp_"));
	before = tokens_left(f);
	assert_true(before >= 6);
	assert_int_equal(callus_store_redact_due(f->s, NULL), 1);
	/* and the log it wrote beside the store */
	snprintf(logp, sizeof(logp), "%s/.callus/log.jsonl", f->dir);
	assert_non_null(fp = fopen(logp, "w"));
	fputs("{\"event\":\"e\",\"message\":\"auth " TOKEN "\"}\n{\"event\":\"ok\"}\n", fp);
	assert_int_equal(fclose(fp), 0);

	redact_whole(f, &r);
	assert_int_equal(tokens_left(f), 0);
	/* and listed again under its redacted name, for the hook before an
	 * edit of it */
	assert_int_equal(count(f, "SELECT count(*) FROM pending_files WHERE file LIKE '%ghp_%'"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_files"
				  " WHERE file = 'keys/[REDACTED:github-token].txt'"),
			 1);
	assert_int_equal(r.redacted, before);
	assert_int_equal(r.redacted_log, 1);
	assert_false(file_holds(logp, "ghp_"));
	assert_true(file_holds(logp, "{\"event\":\"ok\"}\n"));
	/* the list went, and its next reader makes it from the store */
	assert_int_not_equal(access(page, F_OK), 0);
	assert_int_equal(callus_fileindex_ensure(f->s, NULL), 0);
	assert_false(file_holds(page, "ghp_"));
	assert_true(file_holds(page, "keys/[REDACTED:github-token].txt"));
	assert_int_equal(r.redacted_lessons, 2);
	assert_false(r.redaction_due);
	assert_int_equal(callus_store_redact_due(f->s, NULL), 0);
	text = text_of(f, "SELECT code_changes FROM resolutions");
	assert_non_null(strstr(text, "@@ -7,1 +7,2 @@\n a\n+[REDACTED:private-key]\n"));
	free(text);
	/* what stays: the rest of each text, and JSON as JSON */
	text = text_of(f, "SELECT error_summary FROM lessons");
	assert_non_null(strstr(text, "expected ';' before '}' token token [REDACTED:github-token]"));
	free(text);
	assert_int_equal(count(f, "SELECT count(*) FROM lessons WHERE json_valid(affected_files)"
				  " AND affected_files LIKE '%src/a.c%REDACTED%'"),
			 2);
	assert_int_equal(count(f, "SELECT count(*) FROM resolutions WHERE json_valid(files)"
				  " AND json_array_length(files) = 2"),
			 1);
	/* the signature's pattern is its redacted message's, and so its
	 * sketch */
	assert_int_equal(count(f, "SELECT count(*) FROM signatures WHERE message_pattern = ''"
				  " AND original LIKE '%[REDACTED:github-token]'"),
			 1);
	{
		char *orig = text_of(f, "SELECT original FROM signatures WHERE original LIKE"
					"  '%REDACTED%'");
		char q[128];

		snprintf(q, sizeof(q),
			 "SELECT sketch = %lld FROM signatures WHERE original LIKE '%%REDACTED%%'",
			 (long long)callus_signature_sketch("", orig, 0));
		assert_int_equal(count(f, q), 1);
		free(orig);
	}
	/* the lesson's page is written again from the store */
	snprintf(page, sizeof(page), "%s/.lessons/%.*s.md", f->dir, CALLUS_LESSON_ID_LEN, sig);
	assert_non_null(fp = fopen(page, "r"));
	{
		char buf[8192];
		size_t n = fread(buf, 1, sizeof(buf) - 1, fp);

		buf[n] = '\0';
		assert_null(strstr(buf, "ghp_"));
		assert_non_null(strstr(buf, "[REDACTED:github-token]"));
	}
	fclose(fp);
	/* nor in the store's file: the pages the old texts left are zeroed
	 * (the WAL emptied into it by the pass) */
	assert_false(file_holds(f->path, "ghp_"));
	/* once: the next pass reads the mark, and nothing else */
	redact_whole(f, &r);
	assert_int_equal(r.redacted, 0);
	callus_signature_release(&g1);
	callus_signature_release(&g2);
}

/* A bounded pass goes on where the last one stopped, however small its
 * budget, and marks the store only at the end. */
static void redaction_goes_on_where_it_stopped(void **state)
{
	fixture *f = *state;
	callus_store_redact_result rr;
	callus_signature g;
	char file[32];
	int calls = 0;

	for (int i = 0; i < 5; i++) {
		char msg[64];

		snprintf(file, sizeof(file), "src/f%d.c", i);
		snprintf(msg, sizeof(msg), "storage size of 'v%d' isn't known", i);
		record(f, file, msg, &g, NULL);
		callus_signature_release(&g);
	}
	plant_tokens(f);
	assert_true(tokens_left(f) > 0);
	{
		char path[160];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/.callus/log.jsonl", f->dir);
		assert_non_null(fp = fopen(path, "w"));
		fputs("{\"message\":\"" TOKEN "\"}\n", fp);
		assert_int_equal(fclose(fp), 0);
	}
	do {
		assert_int_equal(callus_store_redact(f->s, f->dir, f->red, 2, &rr, NULL), 0);
		assert_true(rr.rows <= 2);
		/* the log as the pass starts, once */
		assert_int_equal(rr.log, calls == 0);
		if (!rr.done)
			assert_int_equal(callus_store_redact_due(f->s, NULL), 1);
		calls++;
	} while (!rr.done && calls < 1000);
	assert_true(rr.done);
	/* every lesson, run, error and signature, two rows a call */
	assert_true(calls * 2 >= count(f, "SELECT (SELECT count(*) FROM lessons)"
					  " + (SELECT count(*) FROM runs)"
					  " + (SELECT count(*) FROM run_errors)"
					  " + (SELECT count(*) FROM signatures)"));
	assert_int_equal(tokens_left(f), 0);
	assert_int_equal(callus_store_redact_due(f->s, NULL), 0);
	/* the pass that finished owes the store a VACUUM, which the next
	 * callus gc pays */
	assert_true(callus_store_redact_vacuum_owed(f->s));
	{
		callus_gc_policy p;
		callus_gc_result r;

		policy(&p);
		p.batch = 0;
		p.sweep = 1;
		p.redactor = f->red;
		assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
		assert_true(r.vacuumed);
		assert_false(callus_store_redact_vacuum_owed(f->s));
		assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
		assert_false(r.vacuumed);
	}
}

/* The old check's error, pending when the upgrade came, fixed since under
 * the redacted name: the merge does not bring it back pending, for the
 * next pass to take for a second fix. */
static void a_merged_checks_error_fixed_since_stays_fixed(void **state)
{
	fixture *f = *state;
	callus_store_redact_result rr;
	callus_signature g;
	callus_learn_opts o;

	record(f, "src/a.c", "unused variable 'w'", &g, NULL);
	fail_in(f, &g, "-c src/a.c --token one", &o);
	resolve(f, &g, "-c src/a.c --token two");
	sql(f, "UPDATE checks SET args = '-c src/a.c --token " TOKEN "' WHERE args LIKE '%one';"
	       "UPDATE checks SET args = '-c src/a.c --token [REDACTED:github-token]'"
	       " WHERE args LIKE '%two';"
	       FORGET_REDACTION);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE state = 'pending'"), 1);
	assert_int_equal(callus_store_redact(f->s, f->dir, f->red, 0, &rr, NULL), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM checks"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE state = 'pending'"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE state = 'fixed'"
				  " AND resolution_id IS NOT NULL"),
			 1);
	callus_signature_release(&g);
}

/* A place another redactor's pass stopped at, or one that does not read,
 * is not this one's: the pass starts over, and misses no table before
 * it.  A JSON column that holds no JSON is redacted as text. */
static void a_cursor_not_this_redactors_starts_over(void **state)
{
	static const char *const cursors[] = { "0:5:0", "1:99:0", "garbage", "1:3:-4" };
	callus_store_redact_result rr;
	callus_signature g;

	for (size_t i = 0; i < sizeof(cursors) / sizeof(cursors[0]); i++) {
		fixture *f = *state;
		char q[200];

		if (i == 0) {
			record(f, "src/a.c", "expected ';' before '}' token", &g, NULL);
			resolve(f, &g, "-c src/a.c");
			callus_signature_release(&g);
		}
		plant_tokens(f);
		sql(f, "UPDATE resolutions SET context = 'not json " TOKEN "'");
		snprintf(q, sizeof(q),
			 "INSERT INTO sync_state VALUES ('redaction.cursor', '%s')", cursors[i]);
		sql(f, q);
		assert_int_equal(callus_store_redact(f->s, f->dir, f->red, 0, &rr, NULL), 0);
		assert_true(rr.done);
		assert_int_equal(tokens_left(f), 0);
		assert_int_equal(count(f, "SELECT count(*) FROM resolutions WHERE context ="
					  " 'not json [REDACTED:github-token]'"),
				 1);
	}
}

/* What a recording of an error holding TOKEN gives it today: its message
 * redacted, so its pattern and id. */
#define SECRET_MSG "auth failed for " TOKEN
#define SECRET_MSG_NOW "auth failed for [REDACTED:github-token]"

/* g and h failing at once in check args, learnt. */
static void fail_both(fixture *f, const callus_signature *g, const callus_signature *h,
		      const char *args)
{
	callus_learn_error e[2] = { { g, NULL, NULL }, { h, NULL, NULL } };
	callus_learn_opts o;
	callus_learn_result r;

	memset(&o, 0, sizeof(o));
	o.workspace = f->dir;
	o.check.tool = "gcc";
	o.check.args = args;
	o.check.dir = "";
	o.session = "s";
	o.redactor = f->red;
	o.no_snapshot = 1;
	assert_int_equal(callus_learn_failure(f->s, &o, e, h ? 2 : 1, &r, NULL), 0);
	callus_learn_result_release(&r);
}

/* q's first column, with ?1 bound to id. */
static long long count_id(fixture *f, const char *q, const char *id)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	long long n = -1;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* The noted count the triggers keep, against the count itself. */
#define NOTED_TRUE                                                                        \
	"SELECT (SELECT n FROM noted_count) = (SELECT count(*) FROM signatures g"           \
	" JOIN note_signatures x ON x.signature_id = g.id JOIN signature_vectors v"        \
	" ON v.sig = g.rowid AND v.model = 1)"

/* An error an older redactor kept a token in was signed with it: its id
 * is not the one a recording gives it now.  The pass gives the row
 * today's id in place, and what named the old one names the new one. */
static void a_signature_redacted_takes_todays_id(void **state)
{
	fixture *f = *state;
	callus_signature old, now;
	callus_gc_result r;
	long long sig;

	record(f, "src/a.c", SECRET_MSG, &old, NULL);
	resolve(f, &old, "-c src/a.c");
	make_sig(&now, SECRET_MSG_NOW);
	assert_string_not_equal(old.id, now.id);
	sig = count_id(f, "SELECT sig FROM signatures WHERE id = ?1", old.id);
	assert_true(sig > 0);
	assert_int_equal(count_id(f, "SELECT count(*) FROM resolutions WHERE signature_id = ?1",
				  old.id),
			 1);
	sql(f, FORGET_REDACTION);

	redact_whole(f, &r);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signatures WHERE id = ?1", old.id), 0);
	/* the same row: its errors and vectors name it by rowid */
	assert_int_equal(count_id(f, "SELECT sig FROM signatures WHERE id = ?1", now.id), sig);
	assert_int_equal(count_id(f, "SELECT count(*) FROM resolutions WHERE signature_id = ?1",
				  now.id),
			 1);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signature_vectors v JOIN signatures g"
				     " ON g.rowid = v.sig WHERE g.id = ?1",
				  now.id),
			 1);
	assert_int_equal(count(f, NOTED_TRUE), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	/* the error's next failure in its check is the error seen again */
	fail_both(f, &now, NULL, "-c src/a.c");
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE state = 'pending'"), 1);
	assert_int_equal(count_id(f, "SELECT count(*) FROM pending_errors p JOIN signatures g"
				     " ON g.rowid = p.sig WHERE g.id = ?1",
				  now.id),
			 2);
	callus_signature_release(&old);
	callus_signature_release(&now);
}

/* The error recorded under today's id since the upgrade as well: the two
 * rows are one error, the newer row stays (the newest rowid is never
 * freed: gc.c), and an open error of one check under each is one error
 * with both rows' attempts. */
static void merged_into_the_newer(fixture *f, int old_first)
{
	callus_signature old, now, third, fourth;
	callus_gc_policy p;
	callus_gc_result r;
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;
	long long first, newer, signatures, df;

	if (!old_first)
		record(f, "src/a.c", SECRET_MSG_NOW, &now, NULL);
	record(f, "src/a.c", SECRET_MSG, &old, NULL);
	resolve(f, &old, "-c src/b.c");
	if (old_first)
		record(f, "src/a.c", SECRET_MSG_NOW, &now, NULL);
	fail_both(f, &old, &now, "-c src/a.c");
	fail_both(f, &old, &now, "-c src/a.c");
	/* as the upgrade splits them, the old one's failures all before the
	 * new one's (their attempts add up); the other way round, both
	 * failed in the same runs (the larger is the error's) */
	if (old_first)
		sql(f, "UPDATE pending_errors SET"
		       " first_failure_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-60 minutes'),"
		       " last_failure_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-30 minutes')"
		       " WHERE id = (SELECT min(id) FROM pending_errors WHERE state = 'pending')");
	/* links at both: a third error an alias of the old row, the new row
	 * an alias of a fourth (the merge would chain them) */
	record(f, "src/c.c", "implicit declaration of function gamma", &third, NULL);
	record(f, "src/d.c", "unknown type name delta used here", &fourth, NULL);
	{
		char q[512];

		snprintf(q, sizeof(q),
			 "INSERT INTO signature_links (alias_id, canonical_id, similarity, reason,"
			 " linked_at) VALUES ('%s', '%s', 0.9, 'merge', 't'), ('%s', '%s', 0.9,"
			 " 'merge', 't')",
			 third.id, old.id, now.id, fourth.id);
		sql(f, q);
	}
	df = count(f, DF_TOTAL);
	first = count_id(f, "SELECT p.id FROM pending_errors p JOIN signatures g ON g.rowid = p.sig"
			    " WHERE g.id = ?1 AND p.state = 'pending'",
			 old.id);
	newer = count(f, "SELECT max(sig) FROM signatures WHERE original LIKE 'auth failed for %'");
	signatures = count(f, "SELECT count(*) FROM signatures");
	sql(f, FORGET_REDACTION);

	policy(&p);
	p.batch = 0;
	p.sweep = 1;
	p.redactor = f->red;
	assert_int_equal(callus_gc(f->s, f->dir, &p, &r, NULL), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures"), signatures - 1);
	assert_int_equal(count(f, "SELECT signatures FROM totals"), signatures - 1);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signatures WHERE id = ?1", old.id), 0);
	assert_int_equal(count_id(f, "SELECT sig FROM signatures WHERE id = ?1", now.id), newer);
	/* one open error: the earlier row, with both rows' attempts */
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE state = 'pending'"), 1);
	{
		char q[160];

		snprintf(q, sizeof(q),
			 "SELECT attempts FROM pending_errors WHERE id = %lld AND sig = %lld", first,
			 newer);
		assert_int_equal(count(f, q), old_first ? 4 : 2);
	}
	/* the fix, its error and both rows' runs under the one row */
	assert_int_equal(count_id(f, "SELECT count(*) FROM resolutions WHERE signature_id = ?1",
				  now.id),
			 1);
	{
		char q[160];

		snprintf(q, sizeof(q), "SELECT count(*) FROM pending_errors WHERE sig = %lld", newer);
		assert_int_equal(count(f, q), 2);
		snprintf(q, sizeof(q), "SELECT count(*) FROM run_errors WHERE sig = %lld", newer);
		assert_int_equal(count(f, q), 2);
		snprintf(q, sizeof(q), "SELECT occurrence_count FROM signatures WHERE sig = %lld",
			 newer);
		assert_int_equal(count(f, q), 2);
	}
	assert_int_equal(count(f, "SELECT count(*) FROM signature_vectors WHERE sig NOT IN"
				  " (SELECT sig FROM signatures)"),
			 0);
	assert_int_equal(count(f, NOTED_TRUE), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	/* links one level deep, as their readers follow them */
	assert_int_equal(count(f, "SELECT count(*) FROM signature_links a JOIN signature_links b"
				  " ON b.alias_id = a.canonical_id"),
			 0);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signature_links WHERE alias_id = ?1",
				  third.id),
			 1);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signature_links l JOIN signatures g"
				     " ON g.id = l.canonical_id WHERE l.alias_id = ?1",
				  third.id),
			 1);
	/* the gone row's features out of the document frequencies when they
	 * are its text's, the one a recording made (the row redacted now
	 * added its old text's: left) */
	if (old_first)
		assert_int_equal(count(f, DF_TOTAL), df);
	else
		assert_true(count(f, DF_TOTAL) < df);

	/* and its record out of the vector file */
	assert_int_equal(callus_match_builtin_vector_path(&path, f->dir), 0);
	callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, NULL);
	assert_int_equal((long long)callus_vecindex_count(vi),
			 count(f, "SELECT count(*) FROM signature_vectors WHERE model = 1"));
	callus_vecindex_close(vi);
	callus_buf_release(&path);
	callus_signature_release(&old);
	callus_signature_release(&now);
	callus_signature_release(&third);
	callus_signature_release(&fourth);
}

static void a_signature_redacted_into_one_recorded_since_is_merged(void **state)
{
	merged_into_the_newer(*state, 1);
}

/* The other way round (the redacted form recorded first, by a message
 * that held a token the older redactor knew): the newer row stays all
 * the same, under today's id. */
static void a_signature_redacted_into_an_older_one_keeps_the_newer_row(void **state)
{
	merged_into_the_newer(*state, 0);
}

/* Before any pass went over it: a run of the check that names the error
 * under today's id sees the open one again, where it took it for fixed
 * (absent from a failing run) and made it a second. */
static void an_error_an_older_store_signed_otherwise_is_seen_again(void **state)
{
	fixture *f = *state;
	callus_signature old, now, other;

	record(f, "src/a.c", SECRET_MSG, &old, NULL);
	fail_both(f, &old, NULL, "-c src/a.c");
	sql(f, FORGET_REDACTION);
	/* as a recording stores its errors before it learns */
	record(f, "src/a.c", SECRET_MSG_NOW, &now, NULL);
	record(f, "src/a.c", "expected ';' before '}' token", &other, NULL);
	fail_both(f, &now, &other, "-c src/a.c");
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE state <> 'pending'"),
			 0);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 2);
	assert_int_equal(count_id(f, "SELECT attempts FROM pending_errors p JOIN signatures g"
				     " ON g.rowid = p.sig WHERE g.id = ?1",
				  now.id),
			 2);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signatures WHERE id = ?1", old.id), 0);
	/* only the error the run needed: the rest is the pass's */
	assert_int_equal(callus_store_redact_due(f->s, NULL), 1);
	callus_signature_release(&old);
	callus_signature_release(&now);
	callus_signature_release(&other);
}

/* A row an older redaction pass left under its old id, signed again into
 * the row another of its errors made since: its runs' errors, which named
 * it by '' (its original), keep its words, not the other row's. */
static void a_signature_signed_again_into_another_keeps_its_errors_words(void **state)
{
	fixture *f = *state;
	callus_signature x, y;
	callus_gc_result r;
	char *got;

	record(f, "src/a.c", UNDECLARED_X " [REDACTED:github-token]", &x, NULL);
	sql(f, "UPDATE signatures SET id = '" "0123456789abcdef0123456789abcdef"
	       "0123456789abcdef0123456789abcdef'");
	record(f, "src/a.c", UNDECLARED_Y " [REDACTED:github-token]", &y, NULL);
	assert_string_equal(x.id, y.id);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures"), 2);
	assert_int_equal(count(f, "SELECT count(*) FROM run_errors WHERE message = ''"), 2);
	sql(f, "UPDATE sync_state SET value = '1' WHERE key = 'redaction.version';");
	assert_int_equal(callus_store_redact_due(f->s, NULL), 1);
	redact_whole(f, &r);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures"), 1);
	assert_int_equal(count(f, "SELECT count(DISTINCT sig) FROM run_errors"), 1);
	got = text_of(f, RUN_MESSAGES);
	assert_string_equal(got, UNDECLARED_X " [REDACTED:github-token]|" UNDECLARED_Y
				 " [REDACTED:github-token]");
	free(got);
	callus_signature_release(&x);
	callus_signature_release(&y);
}

/* A store the previous redactor (version 2) went over whole kept what it
 * did not know (the text as it was stored): the version that knows it
 * goes over the store again, once. */
static void a_store_the_previous_redactor_went_over_is_redacted_again(void **state)
{
	fixture *f = *state;
	callus_signature g;
	callus_gc_result r;
	char *got;

	record(f, "src/a.c", "unused variable 'x'", &g, NULL);
	sql(f, "UPDATE lessons SET error_summary = 'mysql> SET PASSWORD FOR ''bob''@''localhost'''"
	       " || ' = ''Hunter2-secret-9q'';';"
	       "UPDATE sync_state SET value = '2' WHERE key = 'redaction.version';");
	assert_int_equal(callus_store_redact_due(f->s, NULL), 1);
	redact_whole(f, &r);
	assert_int_equal(r.redacted, 1);
	got = text_of(f, "SELECT error_summary FROM lessons");
	assert_null(strstr(got, "Hunter2-secret-9q"));
	assert_non_null(strstr(got, "SET PASSWORD FOR 'bob'@'localhost' = '[REDACTED:"));
	free(got);
	assert_int_equal(callus_store_redact_due(f->s, NULL), 0);
	callus_signature_release(&g);
}

/* A store the first pass over it (redactor version 1) redacted whole: its
 * texts redacted, its ids left as the old texts made them.  The next
 * version's pass signs those rows again, and counts no text. */
static void a_store_an_earlier_pass_redacted_is_signed_again(void **state)
{
	fixture *f = *state;
	callus_signature old, now;
	callus_gc_result r;

	record(f, "src/a.c", SECRET_MSG, &old, NULL);
	record(f, "src/b.c", "unused variable 'y'", &now, NULL);
	callus_signature_release(&now);
	make_sig(&now, SECRET_MSG_NOW);
	sql(f, "UPDATE signatures SET original = replace(original, '" TOKEN "',"
	       " '[REDACTED:github-token]');"
	       "UPDATE run_errors SET message = replace(message, '" TOKEN "',"
	       " '[REDACTED:github-token]');"
	       "UPDATE lessons SET error_summary = replace(error_summary, '" TOKEN "',"
	       " '[REDACTED:github-token]');"
	       "UPDATE sync_state SET value = '1' WHERE key = 'redaction.version';");
	assert_int_equal(callus_store_redact_due(f->s, NULL), 1);
	redact_whole(f, &r);
	assert_int_equal(r.redacted, 0);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signatures WHERE id = ?1", old.id), 0);
	assert_int_equal(count_id(f, "SELECT count(*) FROM signatures WHERE id = ?1", now.id), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures"), 2);
	assert_int_equal(callus_store_redact_due(f->s, NULL), 0);
	callus_signature_release(&old);
	callus_signature_release(&now);
}

/* The same for an error that failed for good under the old id: its next
 * failure is absorbed by it (one more attempt), not a new error. */
static void an_error_an_older_store_gave_up_on_stays_given_up(void **state)
{
	fixture *f = *state;
	callus_signature old, now, other;

	record(f, "src/a.c", SECRET_MSG, &old, NULL);
	for (int i = 0; i < CALLUS_LEARN_MAX_RETRIES; i++)
		fail_both(f, &old, NULL, "-c src/a.c");
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors WHERE state = 'permanent'"),
			 1);
	sql(f, FORGET_REDACTION);
	record(f, "src/a.c", SECRET_MSG_NOW, &now, NULL);
	record(f, "src/a.c", "expected ';' before '}' token", &other, NULL);
	fail_both(f, &now, &other, "-c src/a.c");
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors"), 2);
	{
		char *text;
		sqlite3 *db = NULL;
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(db,
						    "SELECT group_concat(p.state || ':' || p.attempts)"
						    " FROM pending_errors p JOIN signatures g"
						    " ON g.rowid = p.sig WHERE g.id = ?1",
						    -1, &st, NULL),
				 SQLITE_OK);
		sqlite3_bind_text(st, 1, now.id, -1, SQLITE_TRANSIENT);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		text = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
		sqlite3_close(db);
		assert_string_equal(text, "permanent:4");
		free(text);
	}
	callus_signature_release(&old);
	callus_signature_release(&now);
	callus_signature_release(&other);
}

/* A context list redacted into one the store holds already is merged:
 * its signatures name that one, and it goes (contexts are kept once). */
static void a_context_redacted_into_another_is_merged(void **state)
{
	fixture *f = *state;
	callus_store_redact_result rr;
	callus_signature g;

	record(f, "src/a.c", "expected ';' before '}' token", &g, NULL);
	callus_signature_release(&g);
	sql(f, "INSERT INTO contexts (patterns) VALUES"
	       " (json_array('framework:gcc', 'dep:" TOKEN "')),"
	       " (json_array('framework:gcc', 'dep:[REDACTED:github-token]'));"
	       "UPDATE signatures SET ctx = (SELECT ctx FROM contexts WHERE patterns LIKE '%ghp_%');"
	       FORGET_REDACTION);
	assert_int_equal(callus_store_redact(f->s, f->dir, f->red, 0, &rr, NULL), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM contexts WHERE patterns LIKE '%ghp_%'"), 0);
	assert_int_equal(count(f, "SELECT count(*) FROM signatures g JOIN contexts c"
				  " ON c.ctx = g.ctx WHERE c.patterns LIKE '%REDACTED%'"),
			 1);
}

/* A page that cannot be written after the commit is owed to the views'
 * repair: the next pass finds nothing left to change in the store. */
/* Whether a debt in workspace's .callus/owed names text. */
static int owed_names(const char *workspace, const char *text)
{
	char dir[160], path[512];
	struct dirent *e;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), "%s/.callus/owed", workspace);
	if (!(d = opendir(dir)))
		return 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		found = file_holds(path, text);
	}
	closedir(d);
	return found;
}

static void a_page_not_written_is_owed(void **state)
{
	fixture *f = *state;
	callus_store_redact_result rr;
	callus_signature g;
	char path[160], target[160], cmd[200], sig[65];

	record(f, "src/a.c", "expected ';' before '}' token", &g, sig);
	callus_signature_release(&g);
	plant_tokens(f);
	assert_false(owed_names(f->dir, sig));
	/* a .lessons/ that leads out of the workspace is not written through */
	snprintf(path, sizeof(path), "%s/.lessons", f->dir);
	snprintf(target, sizeof(target), "%s.elsewhere", f->dir);
	assert_int_equal(rename(path, target), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(callus_store_redact(f->s, f->dir, f->red, 0, &rr, NULL), 0);
	assert_int_equal(rr.lessons, 1);
	assert_true(owed_names(f->dir, sig));
	unlink(path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", target);
	assert_int_equal(system(cmd), 0);
}

/* Two checks that differed only by a secret (after an upgrade: the old
 * one, and the one its next run made under the redacted name) become one,
 * its errors and runs kept, and it is listed under its new name, so that
 * its next pass still sees the store. */
static void a_check_redacted_is_listed_under_its_new_name(void **state)
{
	fixture *f = *state;
	callus_signature g;
	callus_learn_opts o;
	callus_store_redact_result rr;
	callus_check_key key = { "gcc", "-c src/a.c --token [REDACTED:github-token]", "" };
	char dir[96];

	record(f, "src/a.c", "unused variable 'z'", &g, NULL);
	fail_in(f, &g, "-c src/a.c --token one", &o);
	fail_in(f, &g, "-c src/a.c --token two", &o);
	sql(f, "UPDATE checks SET args = '-c src/a.c --token " TOKEN "' WHERE args LIKE '%one';"
	       "UPDATE checks SET args = '-c src/a.c --token " TOKEN2 "' WHERE args LIKE '%two';"
	       FORGET_REDACTION);
	snprintf(dir, sizeof(dir), "%s/.callus", f->dir);
	assert_int_equal(callus_checkindex_lookup(dir, &key), 0);
	assert_int_equal(callus_store_redact(f->s, f->dir, f->red, 0, &rr, NULL), 0);
	assert_true(rr.done);
	assert_int_equal(count(f, "SELECT count(*) FROM checks"), 1);
	/* its own runs: its errors' closing runs are told by them */
	assert_int_equal(count(f, "SELECT runs FROM checks WHERE args LIKE '%REDACTED%'"), 1);
	assert_int_equal(count(f, "SELECT count(*) FROM pending_errors p JOIN checks c"
				  " ON c.id = p.check_id WHERE p.state = 'pending'"),
			 1);
	assert_int_equal(callus_checkindex_lookup(dir, &key), 1);
	callus_signature_release(&g);
}

int main(void)
{
	/* a part of the tests (a glob of their names): scripts/test.sh runs
	 * the halves under valgrind side by side */
	const char *only = getenv("CALLUS_TEST_FILTER"), *skip = getenv("CALLUS_TEST_SKIP");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(old_lessons_go_with_their_files, setup, teardown),
		cmocka_unit_test_setup_teardown(the_least_valuable_go_beyond_the_count, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_rule_longer_than_since_1970_keeps_all, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_prune_alone_empties_the_wal, setup, teardown),
		cmocka_unit_test_setup_teardown(a_dry_run_counts_what_the_pass_removes, setup, teardown),
		cmocka_unit_test_setup_teardown(the_two_lesson_rules_share_a_batch, setup, teardown),
		cmocka_unit_test_setup_teardown(the_count_rule_alone_leaves_a_margin, setup, teardown),
		cmocka_unit_test_setup_teardown(a_persons_words_outlast_occurrences, setup, teardown),
		cmocka_unit_test_setup_teardown(a_persons_words_outlast_their_age, setup, teardown),
		cmocka_unit_test_setup_teardown(a_vacuum_that_fails_is_not_said_done, setup, teardown),
		cmocka_unit_test_setup_teardown(a_batch_bounds_the_abandoned_errors_too, setup,
						teardown),
		cmocka_unit_test_setup_teardown(the_newest_lesson_and_the_one_told_of_stay, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_lessons_link_out_of_the_workspace_is_left, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_gc_killed_before_its_commit_has_its_files_written_again,
						setup, teardown),
		cmocka_unit_test_setup_teardown(the_sweep_leaves_an_owed_file, setup, teardown),
		cmocka_unit_test_setup_teardown(the_sweep_removes_a_cut_rewrites_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(the_full_check_counts_files_no_lesson_has, setup,
						teardown),
		cmocka_unit_test_setup_teardown(removed_runs_move_the_mark_up, setup, teardown),
		cmocka_unit_test_setup_teardown(old_runs_go_with_their_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(idle_checks_go_when_no_error_needs_them, setup,
						teardown),
		cmocka_unit_test_setup_teardown(old_unresolved_errors_go_with_their_idle_check, setup,
						teardown),
		cmocka_unit_test_setup_teardown(unused_old_signatures_go_needed_ones_stay, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_runs_error_keeps_its_message_once, setup, teardown),
		cmocka_unit_test_setup_teardown(a_removed_signatures_number_is_not_given_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(two_passes_at_once_keep_the_count, setup, teardown),
		cmocka_unit_test_setup_teardown(a_lesson_made_again_keeps_its_file, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failed_commit_puts_the_files_back, setup, teardown),
		cmocka_unit_test_setup_teardown(a_vector_files_rewrite_holds_the_write_lock, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_lesson_owed_its_file_is_left_for_later, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_cached_notes_signature_stays, setup, teardown),
		cmocka_unit_test_setup_teardown(the_sweep_removes_orphan_lesson_files, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_folder_of_a_pages_name_is_left_and_not_counted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(the_background_pass_is_due_once_per_interval, setup,
						teardown),
		cmocka_unit_test_setup_teardown(signature_gc_grows_linearly, setup, teardown),
		cmocka_unit_test_setup_teardown(old_vector_forms_migrate_to_the_smallest, setup,
						teardown),
		cmocka_unit_test_setup_teardown(schema_19_keeps_a_pattern_once, setup, teardown),
		cmocka_unit_test_setup_teardown(signature_times_are_seconds, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_22_keys_features_by_32_bits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(schema_27_packs_frequencies_by_bucket, setup,
						teardown),
		cmocka_unit_test_setup_teardown(schema_28_keeps_each_context_once, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_31_sketches_every_signature, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_32_names_a_vectors_model_by_id, setup, teardown),
		cmocka_unit_test_setup_teardown(ages_count_from_the_policys_now, setup, teardown),
		cmocka_unit_test_setup_teardown(an_old_store_migrates_packed_and_counted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(an_older_stores_texts_are_redacted_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(redaction_goes_on_where_it_stopped, setup, teardown),
		cmocka_unit_test_setup_teardown(a_check_redacted_is_listed_under_its_new_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_page_not_written_is_owed, setup, teardown),
		cmocka_unit_test_setup_teardown(a_merged_checks_error_fixed_since_stays_fixed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_signature_redacted_takes_todays_id, setup, teardown),
		cmocka_unit_test_setup_teardown(a_signature_redacted_into_one_recorded_since_is_merged,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			a_signature_redacted_into_an_older_one_keeps_the_newer_row, setup, teardown),
		cmocka_unit_test_setup_teardown(a_signature_signed_again_into_another_keeps_its_errors_words,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_store_the_previous_redactor_went_over_is_redacted_again,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_store_an_earlier_pass_redacted_is_signed_again, setup,
						teardown),
		cmocka_unit_test_setup_teardown(an_error_an_older_store_signed_otherwise_is_seen_again,
						setup, teardown),
		cmocka_unit_test_setup_teardown(an_error_an_older_store_gave_up_on_stays_given_up,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_context_redacted_into_another_is_merged, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_cursor_not_this_redactors_starts_over, setup,
						teardown),
	};

	if (only && *only)
		cmocka_set_test_filter(only);
	if (skip && *skip)
		cmocka_set_skip_filter(skip);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
