/*
 * Matching and suggestions (match.h) against a real store: indexing, the
 * same and similar signatures, unrelated ones never suggested, the
 * framework filter, near-duplicates linked, merge suggestions and merges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/learn.h"
#include "callus/lesson.h"
#include "callus/match.h"
#include "callus/notes.h"
#include "callus/redact.h"
#include "callus/signature.h"
#include "callus/store.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "notes_internal.h"
#include "store_internal.h"
#include "schema_helpers.h"

typedef struct fixture {
	char dir[64];
	char path[96];
	callus_store *s;
	callus_redactor *red;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-match-XXXXXX");
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

/* A signature of tool/framework fw, with one in-project frame. */
static void make_sig(callus_signature *g, const char *fw, const char *code, const char *msg,
		     const char *frame)
{
	callus_strlist ctx = CALLUS_STRLIST_INIT;
	char fwctx[64];
	callus_diag d;

	memset(&d, 0, sizeof(d));
	d.file = (char *)"src/a.test.js";
	d.line = 4;
	d.code = (char *)code;
	d.message = (char *)msg;
	if (frame)
		assert_int_equal(callus_strlist_add(&d.frames, frame, strlen(frame)), 0);
	snprintf(fwctx, sizeof(fwctx), "framework:%s", fw);
	assert_int_equal(callus_strlist_add(&ctx, fwctx, strlen(fwctx)), 0);
	assert_int_equal(callus_strlist_add(&ctx, "ext:js", 6), 0);
	assert_int_equal(callus_signature_build(g, &d, fw, &ctx), 0);
	callus_strlist_release(&d.frames);
	callus_strlist_release(&ctx);
}

/* g[0..n) stored as one run's errors (as the recording path does) at when
 * (NULL: now), not indexed yet: queued for the next index (a recording
 * whose index waited for a busy store leaves its signatures so). */
static void store_unindexed(fixture *f, const callus_signature *g, size_t n, const char *when)
{
	callus_lesson l;
	callus_run_info run;

	memset(&l, 0, sizeof(l));
	memset(&run, 0, sizeof(run));
	l.type = CALLUS_LESSON_TEST;
	l.file = strdup("src/a.test.js");
	l.error_summary = strdup(g[0].original);
	l.tool = strdup(g[0].tool);
	l.command = strdup("npx jest");
	if (when)
		l.last_seen = strdup(when);
	assert_int_equal(callus_lesson_sign(&l), 0);
	run.sigs = g;
	run.nsigs = n;
	assert_int_equal(callus_store_record_lesson(f->s, &l, &run, NULL, NULL), 0);
	callus_lesson_release(&l);
}

/* The same, then indexed: how many vectors the indexing added. */
static size_t record_sigs(fixture *f, const callus_signature *g, size_t n,
			  callus_match_scans *scans, const char *when)
{
	size_t added = 0;

	store_unindexed(f, g, n, when);
	assert_int_equal(callus_match_index_scanned(f->s, f->dir, scans, &added, NULL), 0);
	return added;
}

/* g stored (as the recording path does) at when (NULL: now) and indexed,
 * the indexing's scans kept in scans (may be NULL). */
static void store_sig_at(fixture *f, const callus_signature *g, callus_match_scans *scans,
			 const char *when)
{
	record_sigs(f, g, 1, scans, when);
}

/* Store g (as the recording path does) and index it. */
static void store_sig(fixture *f, const callus_signature *g)
{
	store_sig_at(f, g, NULL, NULL);
}

/* The same, the indexing's scans kept in scans (may be NULL). */
static void store_sig_scanned(fixture *f, const callus_signature *g, callus_match_scans *scans)
{
	store_sig_at(f, g, scans, NULL);
}

/* Resolutions for g[0..n) (n at most 2): one failure of check `args` with
 * all of them, and its pass, which changed patch (NULL: a change unknown,
 * which makes no note).  How many notes the fixes made. */
static size_t resolve_errors(fixture *f, const callus_signature *g, size_t n, const char *args,
			     const char *patch)
{
	callus_learn_opts o;
	callus_learn_error e[2] = { { &g[0], NULL, NULL }, { n > 1 ? &g[1] : NULL, NULL, NULL } };
	callus_learn_result r;
	size_t notes;

	assert_true(n >= 1 && n <= 2);
	memset(&o, 0, sizeof(o));
	o.workspace = f->dir;
	o.check.tool = g->tool;
	o.check.args = args;
	o.check.dir = "";
	o.session = "s";
	o.redactor = f->red;
	o.no_snapshot = 1;
	o.fix_patch = patch ? "" : NULL;
	assert_int_equal(callus_learn_failure(f->s, &o, e, n, &r, NULL), 0);
	callus_learn_result_release(&r);
	o.fix_patch = patch;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	assert_int_equal(r.nfixed, n);
	notes = r.nnotes;
	callus_learn_result_release(&r);
	return notes;
}

/* A resolution for g. */
static void resolve_with(fixture *f, const callus_signature *g, const char *args,
			 const char *patch)
{
	resolve_errors(f, g, 1, args, patch);
}

static void resolve(fixture *f, const callus_signature *g, const char *args)
{
	resolve_with(f, g, args, NULL);
}

static size_t suggest_counted(fixture *f, const callus_signature *g, callus_suggestion **out,
			      callus_metrics *m)
{
	callus_match_opts mo = { .workspace = f->dir, .metrics = m };
	size_t n = 0;

	assert_int_equal(callus_match_suggest(f->s, &mo, g, 0, out, &n, NULL), 0);
	return n;
}

static size_t suggest(fixture *f, const callus_signature *g, callus_suggestion **out)
{
	return suggest_counted(f, g, out, NULL);
}

/* Every metric row as "name labels part=value\n". */
static int row_text(void *ctx, const callus_metric_row *row)
{
	return callus_buf_printf(ctx, "%s %s %s=%g\n", row->name, row->labels, row->part,
			       row->value) < 0;
}

static double similarity(const callus_signature *a, const callus_signature *b)
{
	callus_features fa = CALLUS_FEATURES_INIT, fb = CALLUS_FEATURES_INIT;
	float va[CALLUS_EMBED_DIM], vb[CALLUS_EMBED_DIM];

	assert_int_equal(callus_embed_features(&fa, a), 0);
	assert_int_equal(callus_embed_features(&fb, b), 0);
	callus_embed_vector(va, &fa, NULL);
	callus_embed_vector(vb, &fb, NULL);
	callus_features_release(&fa);
	callus_features_release(&fb);
	return callus_dot(va, vb, CALLUS_EMBED_DIM);
}

static void indexing_is_once(void **state)
{
	fixture *f = *state;
	callus_signature a;
	size_t added = 99;
	struct stat st;
	char vec[128];

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	store_sig(f, &a);
	snprintf(vec, sizeof(vec), "%s/.callus/vectors-%s.bin", f->dir, CALLUS_EMBED_BUILTIN_MODEL);
	assert_int_equal(stat(vec, &st), 0);
	assert_int_equal(callus_match_index(f->s, f->dir, &added, NULL), 0);
	assert_int_equal(added, 0);
	/* a reindex gives every signature its vector again */
	{
		callus_error err = CALLUS_ERROR_INIT;

		if (callus_match_reindex(f->s, f->dir, &added, &err) < 0)
			fail_msg("%s", callus_error_message(&err));
		callus_error_release(&err);
	}
	assert_int_equal(added, 1);
	callus_signature_release(&a);
}

/* The features of g[0..n) counted into idf, as a document each. */
static void idf_count(callus_idf *idf, const callus_signature *g, size_t n)
{
	callus_features ft = CALLUS_FEATURES_INIT;

	for (size_t i = 0; i < n; i++) {
		assert_int_equal(callus_embed_features(&ft, &g[i]), 0);
		assert_int_equal(callus_idf_add(idf, &ft), 0);
		callus_features_release(&ft);
	}
}

/* A statement that reads a signature's stored vector (?1 its id). */
static sqlite3_stmt *vector_of(fixture *f)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "SELECT v.vector FROM signatures g JOIN signature_vectors v"
					    " ON v.sig = g.rowid WHERE g.id = ?1",
					    -1, &st, NULL),
			 SQLITE_OK);
	return st;
}

/* Whether g has a stored vector (read by st, vector_of's); when it has,
 * it must be the one g's features make weighed by idf, packed as stored. */
static int stored_as(sqlite3_stmt *st, const callus_signature *g, callus_idf *idf)
{
	callus_features ft = CALLUS_FEATURES_INIT;
	float want[CALLUS_EMBED_DIM];
	uint8_t packed[CALLUS_VECINDEX_PACKED(CALLUS_EMBED_DIM)];
	size_t len;

	assert_int_equal(callus_embed_features(&ft, g), 0);
	callus_embed_vector(want, &ft, idf);
	callus_features_release(&ft);
	len = callus_vecindex_pack_store(packed, want, CALLUS_EMBED_DIM);
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, g->id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) != SQLITE_ROW)
		return 0;
	assert_int_equal(sqlite3_column_bytes(st, 0), (int)len);
	assert_memory_equal(sqlite3_column_blob(st, 0), packed, len);
	return 1;
}

/*
 * before[0..nb) stored one at a time, then g[0..n) as one run's new errors:
 * each vector the run stored is the one its signature makes alone, weighed
 * by the documents of the whole run and of those before (the run's counts
 * all in first, none of its vectors yet).  With fold, the counts of before
 * folded first (callus_match_fold_df).  A signature linked to a near
 * duplicate stores none.  How many the run stored.
 */
static size_t stored_as_each_alone(fixture *f, const callus_signature *before, size_t nb,
				   const callus_signature *g, size_t n, int fold)
{
	callus_idf *idf = NULL;
	sqlite3_stmt *st;
	size_t added, stored = 0;

	for (size_t i = 0; i < nb; i++)
		store_sig(f, &before[i]);
	if (fold)
		assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	added = record_sigs(f, g, n, NULL, NULL);
	assert_int_equal(callus_idf_new(&idf), 0);
	idf_count(idf, before, nb);
	idf_count(idf, g, n);
	callus_idf_set_docs(idf, (uint32_t)nb);
	st = vector_of(f);
	for (size_t i = 0; i < n; i++)
		stored += (size_t)stored_as(st, &g[i], idf);
	sqlite3_finalize(st);
	callus_idf_free(idf);
	assert_int_equal(stored, added);
	return stored;
}

/*
 * A reindex weighs each signature's vector, in the store's order, with
 * the counts of every signature and the documents stored before it.  Its
 * counts are read once for all the signatures (a memo): the document
 * count must still be read again for each, or every vector is weighed as
 * the first was.
 */
static void a_reindex_weighs_each_with_those_before(void **state)
{
	fixture *f = *state;
	callus_signature g[5];
	callus_idf *idf = NULL;
	sqlite3_stmt *st;
	callus_error err = CALLUS_ERROR_INIT;
	size_t added = 0;

	make_sig(&g[0], "jest", NULL,
		 "Expected an assignment or function call and instead saw an expression", NULL);
	make_sig(&g[1], "jest", NULL, "Module not found: Can't resolve 'lodash' in 'src'", NULL);
	make_sig(&g[2], "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&g[3], "jest", "TS2322", "Type 'string' is not assignable to type 'number'.",
		 NULL);
	make_sig(&g[4], "jest", NULL, "Cannot find module './sum' from 'src/sum.test.js'", NULL);
	for (int i = 0; i < 5; i++)
		store_sig(f, &g[i]);
	if (callus_match_reindex(f->s, f->dir, &added, &err) < 0)
		fail_msg("%s", callus_error_message(&err));
	callus_error_release(&err);
	assert_int_equal(added, 5);
	assert_int_equal(callus_idf_new(&idf), 0);
	idf_count(idf, g, 5);
	st = vector_of(f);
	for (int i = 0; i < 5; i++) {
		callus_idf_set_docs(idf, (uint32_t)i);
		assert_true(stored_as(st, &g[i], idf));
	}
	sqlite3_finalize(st);
	callus_idf_free(idf);
	for (int i = 0; i < 5; i++)
		callus_signature_release(&g[i]);
}

/* A recording of several new errors, after two documents that share words
 * with them (with none stored every weight is the same). */
static void a_batch_is_weighed_as_each_alone(void **state)
{
	fixture *f = *state;
	callus_signature g[3], before[2];

	make_sig(&before[0], "jest", NULL,
		 "Expected an assignment or function call and instead saw an expression", NULL);
	make_sig(&before[1], "jest", NULL, "Module not found: Can't resolve 'lodash' in 'src'",
		 NULL);
	make_sig(&g[0], "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&g[1], "jest", "TS2322", "Type 'string' is not assignable to type 'number'.",
		 NULL);
	make_sig(&g[2], "jest", NULL, "Cannot find module './sum' from 'src/sum.test.js'", NULL);
	assert_int_equal(stored_as_each_alone(f, before, 2, g, 3, 0), 3);
	for (int i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
	for (int i = 0; i < 2; i++)
		callus_signature_release(&before[i]);
}

/* More new errors in one recording than a feature batch holds (300, the
 * batch 256): counted and weighed in batches, the same. */
static void a_large_batch_is_weighed_as_each_alone(void **state)
{
	enum { N = 300 };
	fixture *f = *state;
	callus_signature before[2], *g = calloc(N, sizeof(*g));
	char msg[160];

	assert_non_null(g);
	make_sig(&before[0], "jest", NULL, "cannot resolve kqzx1 from module mmq2", NULL);
	make_sig(&before[1], "jest", NULL, "unexpected token wq in expression from parser", NULL);
	for (int i = 0; i < N; i++) {
		/* words of their own: few alike enough to be linked */
		snprintf(msg, sizeof(msg), "cannot resolve %c%c%c%cx%d from %c%c%cz%d",
			 'a' + i % 26, 'a' + i / 26 % 26, 'k' + i % 7, 'b' + i % 11, i * 7919,
			 'q' + i % 5, 'c' + i % 13, 'e' + i % 3, i * 104729);
		make_sig(&g[i], "jest", NULL, msg, NULL);
	}
	assert_true(stored_as_each_alone(f, before, 2, g, N, 0) > 256);
	for (int i = 0; i < N; i++)
		callus_signature_release(&g[i]);
	for (int i = 0; i < 2; i++)
		callus_signature_release(&before[i]);
	free(g);
}

static void similar_gets_the_fix_unrelated_gets_nothing(void **state)
{
	fixture *f = *state;
	callus_signature a, b, unrelated, other_fw;
	callus_suggestion *g = NULL;
	size_t n;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	/* the same assertion, failing in another function */
	make_sig(&b, "jest", NULL, "expect(received).toBe(expected) Expected: 10 Received: 7",
		 "multiply\tsrc/mul.js");
	make_sig(&unrelated, "jest", "TS2322", "Type 'string' is not assignable to type 'number'.",
		 NULL);
	/* another frame: another id (the id does not name the framework) */
	make_sig(&other_fw, "mocha", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\ttest/sum.spec.js");
	assert_string_not_equal(a.id, b.id);
	assert_true(similarity(&a, &b) >= CALLUS_MATCH_THRESHOLD);
	store_sig(f, &a);
	resolve(f, &a, "a");

	/* nothing stored like it: nothing suggested */
	n = suggest(f, &unrelated, &g);
	assert_int_equal(n, 0);
	callus_suggestions_free(g, n);

	/* the same signature */
	n = suggest(f, &a, &g);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].signature_id, a.id);
	assert_true(g[0].confidence > 0.9 && g[0].confidence <= 1.0);
	callus_suggestions_free(g, n);

	/* a similar one, never stored */
	n = suggest(f, &b, &g);
	assert_int_equal(n, 1);
	assert_string_equal(g[0].signature_id, a.id);
	assert_true(g[0].confidence < 1.0);
	callus_suggestions_free(g, n);

	/* the same words from another framework are another error */
	n = suggest(f, &other_fw, &g);
	assert_int_equal(n, 0);
	callus_suggestions_free(g, n);

	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&unrelated);
	callus_signature_release(&other_fw);
}

/* hindsight.match.*: each search counted by how its best candidate was
 * found, with its latency and number of results. */
static void searches_are_measured(void **state)
{
	fixture *f = *state;
	callus_signature a, b, unrelated;
	callus_suggestion *g = NULL;
	callus_metrics *m = NULL;
	callus_buf rows = CALLUS_BUF_INIT;
	size_t n;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "jest", NULL, "expect(received).toBe(expected) Expected: 10 Received: 7",
		 "multiply\tsrc/mul.js");
	make_sig(&unrelated, "jest", "TS2322", "Type 'string' is not assignable to type 'number'.",
		 NULL);
	store_sig(f, &a);
	resolve(f, &a, "a");
	assert_int_equal(callus_metrics_new(&m), 0);
	n = suggest_counted(f, &a, &g, m);
	callus_suggestions_free(g, n);
	n = suggest_counted(f, &b, &g, m);
	callus_suggestions_free(g, n);
	n = suggest_counted(f, &unrelated, &g, m);
	callus_suggestions_free(g, n);
	assert_int_equal(callus_metrics_each_row(m, row_text, &rows), 0);
	assert_non_null(strstr(rows.ptr, "hindsight.match.total {\"match_type\":\"same\","
					 "\"found\":\"true\"} =1\n"));
	assert_non_null(strstr(rows.ptr, "hindsight.match.total {\"match_type\":\"vector\","
					 "\"found\":\"true\"} =1\n"));
	assert_non_null(strstr(rows.ptr, "hindsight.match.total {\"match_type\":\"none\","
					 "\"found\":\"false\"} =1\n"));
	assert_non_null(strstr(rows.ptr, "hindsight.match.latency_ms {} count=3\n"));
	assert_non_null(strstr(rows.ptr, "hindsight.match.results_count {} count=3\n"));
	/* one candidate each for a and b, none for the unrelated error */
	assert_non_null(strstr(rows.ptr, "hindsight.match.results_count {} sum=2\n"));
	callus_buf_release(&rows);
	callus_metrics_free(m);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&unrelated);
}

/* The integer q gives with ?1 bound to id, or runs q (no row: -1). */
static int64_t int_of(fixture *f, const char *q, const char *id)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(callus_match_df_sql_register(db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, q, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

/* Two alike errors fixed by one run: the first fix makes the note, the
 * second joins it, found by the search of the noted vectors, which must see
 * the vector the first appended (the noted file kept open between the
 * searches is opened again when it changed). */
static void one_run_two_alike_fixes_one_note(void **state)
{
	fixture *f = *state;
	callus_signature ab[2];

	make_sig(&ab[0], "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	/* alike by their vectors, but neither's pattern matches the other's
	 * message and they share no frame: only the vector search joins them */
	make_sig(&ab[1], "jest", NULL,
		 "expect(received).toBe(expected) Expected: 4 Received: undefined",
		 "plus\tsrc/plus.js");
	assert_true(similarity(&ab[0], &ab[1]) > CALLUS_NOTE_MERGE);
	assert_true(similarity(&ab[0], &ab[1]) <= CALLUS_MATCH_DUPLICATE);
	store_sig(f, &ab[0]);
	store_sig(f, &ab[1]);
	/* apart: b is no duplicate linked to a (found by the link, not the search) */
	assert_int_equal(int_of(f, "SELECT count(*) FROM signature_links WHERE ?1 IS NOT NULL", ""),
			 0);
	assert_int_equal(resolve_errors(f, ab, 2, "ab",
					"diff --git a/src/sum.js b/src/sum.js\n--- a/src/sum.js\n"
					"+++ b/src/sum.js\n@@ -1,1 +1,1 @@\n-  return;\n"
					"+  return a + b;\n"),
			 1);
	assert_int_equal(int_of(f, "SELECT count(*) FROM notes WHERE ?1 IS NOT NULL", ""), 1);
	assert_int_equal(int_of(f, "SELECT count(*) FROM note_signatures"
				   " WHERE signature_id IN (?1, (SELECT id FROM signatures WHERE id <> ?1))",
				ab[0].id),
			 2);
	assert_int_equal(int_of(f, "SELECT count(DISTINCT note_id) FROM note_signatures"
				   " WHERE signature_id IN (?1, (SELECT id FROM signatures WHERE id <> ?1))",
				ab[0].id),
			 1);
	callus_signature_release(&ab[0]);
	callus_signature_release(&ab[1]);
}

#define DF_RECENT_ROWS "SELECT count(*) FROM embed_df_recent"
/* the features embed_df's buckets count (match_df.c) */
#define DF_FOLDED_ROWS "SELECT coalesce(sum(callus_df_features(counts)), 0) FROM embed_df"
#define DF_TOTAL                                                                    \
	"SELECT coalesce((SELECT sum(callus_df_sum(counts)) FROM embed_df), 0)"         \
	" + coalesce((SELECT sum(df) FROM embed_df_hot), 0)"                            \
	" + coalesce((SELECT sum(df) FROM embed_df_recent), 0)"
#define DF_HOT_ROWS "SELECT count(*) FROM embed_df_hot"
/* the features of embed_df_hot its buckets also count: none may be */
#define DF_HOT_IN_BUCKETS                                                           \
	"SELECT count(*) FROM embed_df_hot h WHERE callus_df_of((SELECT counts"         \
	" FROM embed_df WHERE bucket = h.feature >> 16), h.feature) > 0"

/*
 * A recording's document frequencies go to embed_df_recent, and a fold
 * moves them into embed_df adding up keys both hold: the totals, and the
 * vector every frequency weighs, are the same before and after.  Once the
 * recent table holds CALLUS_MATCH_DF_FOLD_ROWS features, the indexing of
 * the next signature folds it.  A vector weighed by one table alone, a
 * fold that replaced instead of adding, or a recent table never folded
 * fails here.
 */
static void document_frequencies_fold(void **state)
{
	fixture *f = *state;
	callus_signature a, b, q;
	float before[CALLUS_EMBED_DIM], after[CALLUS_EMBED_DIM];
	char sql[256];
	int total, shared;

	make_sig(&a, "jest", NULL, "expected value to equal received value in sum test", NULL);
	make_sig(&b, "jest", NULL, "expected value to be truthy in the parser test", NULL);
	make_sig(&q, "jest", NULL, "expected value to equal received value in the parser", NULL);
	store_sig(f, &a);
	assert_true(int_of(f, DF_RECENT_ROWS, "") > 5);
	assert_int_equal(int_of(f, DF_FOLDED_ROWS, ""), 0);
	assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	store_sig(f, &b);
	/* a's in embed_df, b's recent: q weighs words of both */
	total = int_of(f, DF_TOTAL, "");
	shared = int_of(f,
			"SELECT count(*) FROM embed_df_recent r WHERE callus_df_of((SELECT counts"
			" FROM embed_df WHERE bucket = r.feature >> 16), r.feature) > 0",
			"");
	assert_true(shared > 0);
	assert_int_equal(callus_match_embed(f->s, &q, before), SQLITE_OK);
	assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	assert_int_equal(int_of(f, DF_RECENT_ROWS, ""), 0);
	assert_int_equal(int_of(f, DF_TOTAL, ""), total);
	/* the shared features counted twice, in one entry each */
	assert_int_equal(int_of(f, "SELECT sum(callus_df_features(counts, 2)) FROM embed_df", ""),
			 shared);
	assert_int_equal(callus_match_embed(f->s, &q, after), SQLITE_OK);
	assert_memory_equal(before, after, sizeof(before));

	/* one feature short of the threshold (keys no signature has), then
	 * a signature's indexing folds them all */
	snprintf(sql, sizeof(sql),
		 "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM k WHERE n < %d)"
		 " INSERT INTO embed_df_recent SELECT 4294967296 + n, 1 FROM k",
		 CALLUS_MATCH_DF_FOLD_ROWS - 1);
	assert_int_equal(sqlite3_exec(callus_store_db(f->s), sql, NULL, NULL, NULL), SQLITE_OK);
	total = int_of(f, DF_TOTAL, "");
	store_sig(f, &q);
	assert_int_equal(int_of(f, DF_RECENT_ROWS, ""), 0);
	assert_true(int_of(f, DF_TOTAL, "") > total);
	assert_int_equal(int_of(f,
				"SELECT sum(callus_df_features(counts)) FROM embed_df"
				" WHERE bucket > 65535",
				""),
			 CALLUS_MATCH_DF_FOLD_ROWS - 1);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&q);
}

/*
 * The features many signatures share go to embed_df_hot (schema 33) at a
 * fold, out of their buckets, and back once their counts fall under half
 * the mark: what every frequency comes to, and the vector a query weighs
 * by them, are the same before and after each fold, and a new run's
 * errors are weighed with them as each alone.  A lookup that skipped
 * embed_df_hot, a fold that left a moved feature in its bucket too, one
 * that lost a count moving it back, or one that never moved back a row
 * under the mark that it did not change (the sweep), fails here.
 */
static void common_features_kept_apart(void **state)
{
	enum { N = 24 };
	fixture *f = *state;
	callus_signature before[N], g[2], q;
	float v0[CALLUS_EMBED_DIM], v1[CALLUS_EMBED_DIM];
	char msg[160];
	int64_t total;

	/* one sentence of their own words each: a feature of the shared
	 * words counted N times, past CALLUS_MATCH_DF_HOT_MIN */
	assert_true(N >= CALLUS_MATCH_DF_HOT_MIN);
	assert_int_equal(callus_match_df_hot_min(N), CALLUS_MATCH_DF_HOT_MIN);
	assert_int_equal(callus_match_df_hot_min(64 * 1000), 1000);
	for (int i = 0; i < N; i++) {
		snprintf(msg, sizeof(msg), "cannot resolve module %c%c%cq%d imported from %c%cz%d",
			 'a' + i % 26, 'b' + i % 7, 'k' + i % 11, i * 7919, 'c' + i % 13,
			 'e' + i % 5, i * 104729);
		make_sig(&before[i], "jest", NULL, msg, NULL);
	}
	make_sig(&g[0], "jest", NULL, "cannot resolve module lodash imported from src/app", NULL);
	make_sig(&g[1], "jest", NULL, "module qq77 not found where src/b imported it", NULL);
	/* stored, folded (the shared words move), then a run of two */
	assert_int_equal(stored_as_each_alone(f, before, N, g, 2, 1), 2);
	assert_true(int_of(f, DF_HOT_ROWS, "") > 3);
	assert_int_equal(int_of(f, DF_HOT_IN_BUCKETS, ""), 0);
	assert_true(int_of(f, "SELECT min(df) FROM embed_df_hot", "") >= CALLUS_MATCH_DF_HOT_MIN);
	assert_int_equal(int_of(f, "SELECT coalesce(sum(callus_df_features(counts, 16)), 0)"
				   " FROM embed_df",
				""),
			 0);

	/* the run's counts folded in: the same vector for q, the same total */
	make_sig(&q, "jest", NULL, "cannot resolve module react imported from src/index", NULL);
	total = int_of(f, DF_TOTAL, "");
	assert_int_equal(callus_match_embed(f->s, &q, v0), SQLITE_OK);
	assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	assert_int_equal(int_of(f, DF_TOTAL, ""), total);
	assert_int_equal(int_of(f, DF_HOT_IN_BUCKETS, ""), 0);
	assert_int_equal(callus_match_embed(f->s, &q, v1), SQLITE_OK);
	assert_memory_equal(v0, v1, sizeof(v0));

	/* most taken off (as gc does): under half the mark, back to their
	 * buckets with what is left of their counts */
	for (int i = 0; i < N - 4; i++)
		assert_int_equal(callus_match_df_count(f->s, &before[i], -1), SQLITE_OK);
	total = int_of(f, DF_TOTAL, "");
	assert_int_equal(callus_match_embed(f->s, &q, v0), SQLITE_OK);
	assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	assert_int_equal(int_of(f, DF_HOT_ROWS, ""), 0);
	assert_int_equal(int_of(f, DF_TOTAL, ""), total);
	assert_int_equal(callus_match_embed(f->s, &q, v1), SQLITE_OK);
	assert_memory_equal(v0, v1, sizeof(v0));

	/* a row under the mark that no recent count names (a mark risen
	 * with the documents) goes back too, at the next fold */
	assert_int_equal(int_of(f, DF_RECENT_ROWS, ""), 0);
	assert_int_equal(sqlite3_exec(callus_store_db(f->s),
				      "INSERT INTO embed_df_hot VALUES (4294901763, 3)", NULL, NULL,
				      NULL),
			 SQLITE_OK);
	total = int_of(f, DF_TOTAL, "");
	assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
	assert_int_equal(int_of(f, DF_HOT_ROWS, ""), 0);
	assert_int_equal(int_of(f, DF_TOTAL, ""), total);
	assert_int_equal(int_of(f, "SELECT callus_df_of(counts, 4294901763) FROM embed_df"
				   " WHERE bucket = 65535",
				""),
			 3);
	for (int i = 0; i < N; i++)
		callus_signature_release(&before[i]);
	callus_signature_release(&g[0]);
	callus_signature_release(&g[1]);
	callus_signature_release(&q);
}

static void xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
}

/* One integer the store's connection answers for q with ?1 = a (-1 for a
 * NULL, -2 for no row). */
static int64_t store_int(sqlite3_stmt *st, int64_t a)
{
	int64_t n = -2;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, a);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_type(st, 0) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	return n;
}

/*
 * The document frequencies against a model, through random counts added
 * and taken off (more than a feature has, as gc's may be), documents that
 * move the mark between 16 and 93, and folds: after each fold every key's
 * count is the model's, in one table only, and what callus_match_df_load
 * weighs it by is the model's too.  Keys fall in a few buckets (the first,
 * the last, two between), commons and rares sharing them.
 */
static void frequencies_match_a_model(void **state)
{
	enum { NK = 240, STEPS = 400 };
	fixture *f = *state;
	sqlite3 *db = callus_store_db(f->s);
	sqlite3_stmt *hot = NULL, *bucket = NULL, *recent = NULL, *add = NULL;
	static const int64_t buckets[] = { 0, 1, 7, 65535 };
	int64_t key[NK], folded[NK] = { 0 }, pending[NK] = { 0 };
	int was_hot[NK] = { 0 }, moved_in = 0, moved_out = 0;
	uint64_t x = 0x9e3779b97f4a7c15ull;
	callus_features ft = CALLUS_FEATURES_INIT;

	assert_int_equal(callus_match_df_sql_register(db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT df FROM embed_df_hot WHERE feature = ?1",
					    -1, &hot, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT callus_df_of(counts, ?1) FROM embed_df"
						" WHERE bucket = ?1 >> 16",
					    -1, &bucket, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, "SELECT df FROM embed_df_recent WHERE feature = ?1",
					    -1, &recent, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db,
					    "INSERT INTO embed_df_recent VALUES (?1, ?2) ON CONFLICT"
					    " (feature) DO UPDATE SET df = df + excluded.df",
					    -1, &add, NULL),
			 SQLITE_OK);
	assert_non_null(ft.items = calloc(NK, sizeof(*ft.items)));
	ft.count = ft.alloc = NK;
	for (int i = 0; i < NK; i++) {
		key[i] = buckets[i % 4] << 16 | (int64_t)(i * 271 % 65536);
		ft.items[i].id = (uint64_t)key[i] | (uint64_t)(i + 1) << 40;
	}
	for (int step = 0; step < STEPS; step++) {
		callus_idf *got = NULL, *want = NULL;

		xorshift(&x);
		if (x % 8 == 0) {
			char q[96];

			/* the documents, and with them the mark */
			snprintf(q, sizeof(q), "UPDATE vector_models SET n = %d WHERE id = 1",
				 (int)((x >> 20) % 6000));
			assert_int_equal(sqlite3_exec(db, q, NULL, NULL, NULL), SQLITE_OK);
		} else if (x % 8 < 6) {
			/* a count added to a key, or taken off, one in four past
			 * what it has */
			int i = (int)((x >> 8) % NK);
			int64_t d = (int64_t)((x >> 24) % 60) - ((x >> 40) % 4 == 0 ? 80 : 10);

			sqlite3_reset(add);
			sqlite3_bind_int64(add, 1, key[i]);
			sqlite3_bind_int64(add, 2, d);
			assert_int_equal(sqlite3_step(add), SQLITE_DONE);
			sqlite3_reset(add);
			pending[i] += d;
		} else {
			assert_int_equal(callus_match_fold_df(f->s), SQLITE_OK);
			for (int i = 0; i < NK; i++) {
				int64_t h = store_int(hot, key[i]), b = store_int(bucket, key[i]);

				folded[i] = folded[i] + pending[i] > 0 ? folded[i] + pending[i] : 0;
				pending[i] = 0;
				assert_int_equal(store_int(recent, key[i]), -2);
				/* in one table at most, a row of embed_df_hot never 0 */
				assert_false(h >= 0 && b > 0);
				assert_true(h != 0);
				assert_int_equal(h > 0 ? h : b > 0 ? b : 0, folded[i]);
				moved_in += h > 0 && !was_hot[i];
				moved_out += b > 0 && was_hot[i];
				was_hot[i] = h > 0;
			}
		}
		/* what a lookup weighs every key by, folded or not */
		assert_int_equal(callus_match_df_load(f->s, &ft, NULL, &got), SQLITE_OK);
		assert_int_equal(callus_idf_new(&want), 0);
		callus_idf_set_docs(want, callus_idf_docs(got));
		for (int i = 0; i < NK; i++) {
			if (folded[i] + pending[i] > 0)
				assert_int_equal(callus_idf_set(want, ft.items[i].id,
								(uint32_t)(folded[i] + pending[i])),
						 0);
			assert_true(callus_idf_weight(got, ft.items[i].id) ==
				    callus_idf_weight(want, ft.items[i].id));
		}
		callus_idf_free(got);
		callus_idf_free(want);
	}
	/* the mark was reached and left: rows moved both ways */
	assert_true(moved_in > 10);
	assert_true(moved_out > 10);
	sqlite3_finalize(hot);
	sqlite3_finalize(bucket);
	sqlite3_finalize(recent);
	sqlite3_finalize(add);
	callus_features_release(&ft);
}

/* Schema 33: a store of schema 32 (every count in its bucket) opened: the
 * migration moves the common features to embed_df_hot, every count kept,
 * the vector of a query weighed the same.  A migration that moved nothing,
 * kept a moved feature in its bucket, or lost a bucket all of whose
 * features moved, fails here. */
static void schema_33_moves_common_features(void **state)
{
	enum { N = 20 };
	fixture *f = *state;
	callus_signature g[N], q;
	float v0[CALLUS_EMBED_DIM], v1[CALLUS_EMBED_DIM];
	sqlite3 *db = NULL;
	char msg[160];
	int64_t total;

	for (int i = 0; i < N; i++) {
		snprintf(msg, sizeof(msg), "undefined reference to %c%c%cw%d in object %c%cy%d",
			 'a' + i % 26, 'b' + i % 7, 'k' + i % 11, i * 7919, 'c' + i % 13,
			 'e' + i % 5, i * 104729);
		make_sig(&g[i], "gcc", NULL, msg, NULL);
		store_sig(f, &g[i]);
	}
	make_sig(&q, "gcc", NULL, "undefined reference to main in object crt1", NULL);
	assert_int_equal(callus_match_embed(f->s, &q, v0), SQLITE_OK);
	total = int_of(f, DF_TOTAL, "");
	callus_store_close(f->s);
	f->s = NULL;
	/* as schema 32 folded them: all in the buckets, most of them a
	 * feature alone, and one of a common and a rare one; and a row of
	 * embed_df_hot left there before (the table is made only if it is
	 * missing), which the feature moved in adds to */
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(callus_match_df_sql_register(db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      "INSERT INTO embed_df_recent VALUES (4294901760, 19),"
				      " (4294901761, 1);"
				      "INSERT INTO embed_df SELECT feature >> 16,"
				      " callus_df_pack(feature, df) FROM embed_df_recent"
				      " GROUP BY 1 ORDER BY 1;"
				      "DELETE FROM embed_df_recent; DELETE FROM embed_df_hot;"
				      "INSERT INTO embed_df_hot VALUES (4294901760, 1);"
				      TEST_AS_BEFORE_34 "PRAGMA user_version = 32",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_true(int_of(f, DF_HOT_ROWS, "") > 3);
	assert_int_equal(int_of(f, DF_HOT_IN_BUCKETS, ""), 0);
	assert_int_equal(int_of(f, DF_TOTAL, ""), total + 21);
	assert_int_equal(int_of(f, "SELECT df FROM embed_df_hot WHERE feature = 4294901760", ""),
			 20);
	assert_int_equal(int_of(f, "SELECT callus_df_features(counts) FROM embed_df"
				   " WHERE bucket = 65535",
				""),
			 1);
	assert_int_equal(int_of(f, "SELECT callus_df_of(counts, 4294901761) FROM embed_df"
				   " WHERE bucket = 65535",
				""),
			 1);
	assert_int_equal(callus_match_embed(f->s, &q, v1), SQLITE_OK);
	assert_memory_equal(v0, v1, sizeof(v0));
	for (int i = 0; i < N; i++)
		callus_signature_release(&g[i]);
	callus_signature_release(&q);
}

/*
 * A bucket's blob (match_df.c): changes merged in key order, counts that
 * come to nothing left out, a key that repeats among the changes added up,
 * the blob read back the same; a blob cut in the middle of an entry read
 * up to the cut, never past its end (under ASan in the suite).  A merge
 * that kept a count of 0, dropped the last entry or read an entry's count
 * past the blob's end fails here.
 */
static void df_buckets_merge_and_read(void **state)
{
	const callus_df_delta first[] = { { 3, 1 }, { 7, 2 }, { 7, 1 }, { 300, 200 }, { 65535, 1 } };
	const callus_df_delta second[] = { { 0, 5 }, { 3, -1 }, { 8, -4 }, { 300, 1 }, { 65535, 1 } };
	callus_buf a = CALLUS_BUF_INIT, b = CALLUS_BUF_INIT;
	uint8_t *cut;

	(void)state;
	assert_int_equal(callus_match_df_merge(&a, NULL, 0, first, 5), 0);
	/* 2 bytes of key and one of count each, 200's count takes two */
	assert_int_equal(a.len, 4 * 3 + 1);
	assert_int_equal(callus_match_df_find((uint8_t *)a.ptr, a.len, 3), 1);
	assert_int_equal(callus_match_df_find((uint8_t *)a.ptr, a.len, 7), 3);
	assert_int_equal(callus_match_df_find((uint8_t *)a.ptr, a.len, 300), 200);
	assert_int_equal(callus_match_df_find((uint8_t *)a.ptr, a.len, 65535), 1);
	assert_int_equal(callus_match_df_find((uint8_t *)a.ptr, a.len, 4), 0);
	assert_int_equal(callus_match_df_merge(&b, (uint8_t *)a.ptr, a.len, second, 5), 0);
	assert_int_equal(callus_match_df_find((uint8_t *)b.ptr, b.len, 0), 5);
	/* 3 taken to 0 and 8 taken off nothing: no entries */
	assert_int_equal(callus_match_df_find((uint8_t *)b.ptr, b.len, 3), 0);
	assert_int_equal(callus_match_df_find((uint8_t *)b.ptr, b.len, 8), 0);
	assert_int_equal(callus_match_df_find((uint8_t *)b.ptr, b.len, 7), 3);
	assert_int_equal(callus_match_df_find((uint8_t *)b.ptr, b.len, 300), 201);
	assert_int_equal(callus_match_df_find((uint8_t *)b.ptr, b.len, 65535), 2);
	assert_int_equal(b.len, 4 * 3 + 1);
	/* every count taken off: an empty blob */
	{
		const callus_df_delta gone[] = { { 0, -5 }, { 7, -3 }, { 300, -201 }, { 65535, -2 } };

		assert_int_equal(callus_match_df_merge(&a, (uint8_t *)b.ptr, b.len, gone, 4), 0);
		assert_int_equal(a.len, 0);
	}
	/* cut inside 300's count (its first byte says more follow), in a
	 * buffer of exactly that size */
	assert_non_null(cut = malloc(9));
	memcpy(cut, b.ptr, 9);
	assert_int_equal(callus_match_df_find(cut, 9, 7), 3);
	assert_int_equal(callus_match_df_find(cut, 9, 300), 0);
	assert_int_equal(callus_match_df_find(cut, 9, 65535), 0);
	assert_int_equal(callus_match_df_merge(&a, cut, 9, NULL, 0), 0);
	assert_int_equal(a.len, 6);
	free(cut);
	callus_buf_release(&a);
	callus_buf_release(&b);
}

static int link_count(fixture *f, const char *alias)
{
	return int_of(f, "SELECT count(*) FROM signature_links WHERE alias_id = ?1", alias);
}

static void near_duplicates_are_linked(void **state)
{
	fixture *f = *state;
	callus_signature a, dup, apart;
	callus_suggestion *g = NULL;
	size_t n;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	/* one more frame in a helper: another id, the same error */
	make_sig(&dup, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	assert_int_equal(callus_strlist_add(&dup.stack_patterns, "helper@util.js", 14), 0);
	memcpy(dup.id, "ffffffffffff", 12); /* a distinct id, as a stack change gives */
	make_sig(&apart, "jest", "TS2322", "Type 'string' is not assignable to type 'number'.",
		 NULL);
	store_sig(f, &a);
	resolve(f, &a, "a");
	/* seen long ago: the duplicate's occurrence, recorded at its run's
	 * time, moves it there (not to the clock's: a replayed history) */
	int_of(f, "UPDATE signatures SET last_seen = unixepoch('2001-01-01') WHERE id = ?1", a.id);
	store_sig_at(f, &dup, NULL, "2020-06-01T00:00:00.000Z");
	store_sig(f, &apart);
	assert_true(similarity(&a, &dup) > CALLUS_MATCH_DUPLICATE);
	assert_int_equal(link_count(f, dup.id), 1);
	assert_int_equal(int_of(f, "SELECT g.occurrence_count FROM signatures g, signatures d"
				   " WHERE d.id = ?1 AND g.id = (SELECT canonical_id FROM"
				   " signature_links WHERE alias_id = d.id)", dup.id), 2);
	assert_int_equal(int_of(f, "SELECT g.last_seen = unixepoch('2020-06-01') FROM signatures g"
				   " WHERE g.id = (SELECT canonical_id FROM signature_links"
				   " WHERE alias_id = ?1)", dup.id), 1);
	assert_int_equal(link_count(f, apart.id), 0);
	/* through the link, the duplicate finds the fix of the one it joined */
	n = suggest(f, &dup, &g);
	assert_int_equal(n, 1);
	callus_suggestions_free(g, n);
	callus_signature_release(&a);
	callus_signature_release(&dup);
	callus_signature_release(&apart);
}

/*
 * A record of a signature the store lost (a store restored from an older
 * copy, a recording cut after its append), whose number SQLite gave the
 * next new signature: a search finds the old record, which must not lend
 * the new signature its similarity (the new one's fixes suggested for an
 * error it has nothing to do with), nor link a near duplicate of the old
 * error to it.  The records of signatures the store has are taken as
 * before.
 */
static void a_number_given_again_lends_no_similarity(void **state)
{
	fixture *f = *state;
	callus_signature a, b, dup, unrelated;
	callus_match_opts mo = { .workspace = f->dir };
	callus_match *m = NULL;
	size_t n = 0;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "jest", NULL, "expect(received).toBe(expected) Expected: 10 Received: 7",
		 "multiply\tsrc/mul.js");
	make_sig(&dup, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	assert_int_equal(callus_strlist_add(&dup.stack_patterns, "helper@util.js", 14), 0);
	memcpy(dup.id, "ffffffffffff", 12);
	make_sig(&unrelated, "jest", "TS2322", "Type 'string' is not assignable to type 'number'.",
		 NULL);
	store_sig(f, &a);
	/* a's record found while a is stored */
	assert_int_equal(callus_match_find(f->s, &mo, &b, &m, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].signature_id, a.id);
	callus_matches_free(m, n);
	/* the store without a, the file with its record; the next new
	 * signature takes a's number */
	int_of(f, "DELETE FROM signatures WHERE id = ?1", a.id);
	store_sig(f, &unrelated);
	assert_int_equal(int_of(f, "SELECT sig FROM signatures WHERE id = ?1", unrelated.id), 1);
	{
		callus_buf path = CALLUS_BUF_INIT;

		assert_int_equal(callus_match_builtin_vector_path(&path, f->dir), 0);
		assert_int_equal(callus_vecindex_file_count(path.ptr, CALLUS_EMBED_BUILTIN_MODEL,
							    CALLUS_EMBED_DIM),
				 2);
		callus_buf_release(&path);
	}
	assert_int_equal(callus_match_find(f->s, &mo, &b, &m, &n, NULL), 0);
	assert_int_equal(n, 0);
	callus_matches_free(m, n);
	/* nor is a near duplicate of a linked to it */
	store_sig(f, &dup);
	assert_int_equal(link_count(f, dup.id), 0);
	/* the new signature's own record still finds it */
	assert_int_equal(callus_match_find(f->s, &mo, &unrelated, &m, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].signature_id, unrelated.id);
	callus_matches_free(m, n);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&dup);
	callus_signature_release(&unrelated);
}

/* The built-in vector file's path in f's workspace, owned by the caller. */
static char *vectors_path(fixture *f)
{
	callus_buf path = CALLUS_BUF_INIT;

	assert_int_equal(callus_match_builtin_vector_path(&path, f->dir), 0);
	return callus_buf_detach(&path);
}

/*
 * The vector file is made of the store.  Removed or cut short, it is
 * written again by the next search (callus suggest, a recurring error's
 * recording), not only by the next new signature's recording; one that
 * cannot be read or written (a folder in its place) is searched as empty:
 * the same signature still answers, and a recording still stores its
 * vectors, for the file to be made of once it can be.
 */
static void a_vector_file_lost_is_made_again_or_done_without(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	callus_match_opts mo = { .workspace = f->dir };
	callus_match *m = NULL;
	char *path = vectors_path(f);
	size_t n = 0;
	int fd;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "jest", NULL, "expect(received).toBe(expected) Expected: 10 Received: 7",
		 "multiply\tsrc/mul.js");
	make_sig(&c, "jest", "TS2322", "Type 'string' is not assignable to type 'number'.", NULL);
	store_sig(f, &a);
	/* removed */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(callus_match_find(f->s, &mo, &b, &m, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].signature_id, a.id);
	callus_matches_free(m, n);
	assert_int_equal(callus_vecindex_file_count(path, CALLUS_EMBED_BUILTIN_MODEL,
						    CALLUS_EMBED_DIM),
			 1);
	/* cut inside its only record */
	fd = open(path, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, lseek(fd, 0, SEEK_END) - 100), 0);
	close(fd);
	assert_int_equal(callus_match_find(f->s, &mo, &b, &m, &n, NULL), 0);
	assert_int_equal(n, 1);
	callus_matches_free(m, n);
	/* a folder where the file goes: nothing read, nothing written */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(callus_match_find(f->s, &mo, &a, &m, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(m[0].how, CALLUS_MATCH_SAME);
	callus_matches_free(m, n);
	assert_int_equal(record_sigs(f, &c, 1, NULL, NULL), 1);
	assert_int_equal(int_of(f, "SELECT count(*) FROM signatures_unindexed", ""), 0);
	assert_int_equal(int_of(f, "SELECT count(*) FROM signature_vectors v JOIN signatures g"
				   " ON g.rowid = v.sig WHERE g.id = ?1",
				c.id),
			 1);
	/* and once it can be, the file holds both */
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(callus_match_find(f->s, &mo, &b, &m, &n, NULL), 0);
	assert_int_equal(n, 1);
	callus_matches_free(m, n);
	assert_int_equal(callus_vecindex_file_count(path, CALLUS_EMBED_BUILTIN_MODEL,
						    CALLUS_EMBED_DIM),
			 2);
	free(path);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

static void merges_need_approval(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_merge_pair *p = NULL;
	callus_resolution *rs = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	size_t n = 0;
	char prefix[8];

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: undefined",
		 "add\tsrc/sum.js");
	assert_true(similarity(&a, &b) > CALLUS_MATCH_MERGE);
	assert_true(similarity(&a, &b) <= CALLUS_MATCH_DUPLICATE);
	store_sig(f, &a);
	store_sig(f, &b);
	resolve(f, &a, "a");
	/* b's fix has a note; a's fix (its change unknown) joins it, the two
	 * alike: taken out of it here, a signature with no note of its own */
	resolve_with(f, &b, "b",
		     "diff --git a/src/sum.js b/src/sum.js\n--- a/src/sum.js\n+++ b/src/sum.js\n"
		     "@@ -1,1 +1,1 @@\n-  return;\n+  return a + b;\n");
	assert_int_equal(int_of(f, "SELECT count(*) FROM note_signatures WHERE signature_id = ?1",
				b.id),
			 1);
	int_of(f, "DELETE FROM note_signatures WHERE signature_id = ?1", a.id);
	assert_int_equal(int_of(f, "SELECT count(*) FROM note_signatures WHERE signature_id = ?1",
				a.id),
			 0);
	assert_int_equal(callus_match_merges(f->s, f->dir, &p, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_true(p[0].similarity > CALLUS_MATCH_MERGE);
	assert_true(p[0].a_success > CALLUS_MATCH_MERGE_SUCCESS);
	callus_merge_pairs_free(p, n);

	/* nothing merged until asked */
	assert_int_equal(callus_learn_resolutions(f->s, a.id, 0, &rs, &n, NULL), 0);
	assert_int_equal(n, 1);
	callus_resolutions_free(rs, n);

	/* bad ids are refused */
	assert_int_equal(callus_match_merge(f->s, "xyz", b.id, NULL, &err), CALLUS_EINVAL);
	callus_error_release(&err);
	assert_int_equal(callus_match_merge(f->s, "abcdef0123", b.id, NULL, &err), CALLUS_ENOTFOUND);
	callus_error_release(&err);
	assert_int_equal(callus_match_merge(f->s, a.id, a.id, NULL, &err), CALLUS_EINVAL);
	callus_error_release(&err);

	snprintf(prefix, sizeof(prefix), "%.7s", b.id);
	assert_int_equal(callus_match_merge(f->s, a.id, prefix, NULL, NULL), 0);
	assert_int_equal(link_count(f, b.id), 1);
	assert_int_equal(callus_learn_resolutions(f->s, a.id, 0, &rs, &n, NULL), 0);
	assert_int_equal(n, 2);
	callus_resolutions_free(rs, n);
	/* b's note is a's too: a, not b, is what a search of the noted
	 * signatures can find (b is linked) */
	assert_int_equal(int_of(f, "SELECT count(*) FROM note_signatures x WHERE x.signature_id = ?1"
				   " AND x.note_id = (SELECT y.note_id FROM note_signatures y JOIN"
				   " signature_links l ON l.alias_id = y.signature_id"
				   " WHERE l.canonical_id = ?1)",
				a.id),
			 1);
	assert_int_equal(callus_match_merges(f->s, f->dir, &p, &n, NULL), 0);
	assert_int_equal(n, 0);
	callus_merge_pairs_free(p, n);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/*
 * Merges keep links one step deep (every lookup follows one): c merged
 * into b, itself merged into a, joins a, and its fix answers for a; b,
 * merged already, is not moved to another (its fixes stay with a) nor a
 * merged back into b: each is refused, and says so.
 */
static void merges_never_chain(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c, d;
	callus_resolution *rs = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	char into[CALLUS_SHA256_HEX_LEN + 1];
	size_t n = 0;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "jest", "TS2322", "Type 'string' is not assignable to type 'number'.", NULL);
	make_sig(&c, "jest", "TS2304", "Cannot find name 'process'.", NULL);
	make_sig(&d, "jest", "TS2339", "Property 'total' does not exist on type 'Order'.", NULL);
	store_sig(f, &a);
	store_sig(f, &b);
	store_sig(f, &c);
	store_sig(f, &d);
	resolve(f, &a, "a");
	resolve(f, &b, "b");
	resolve(f, &c, "c");
	assert_int_equal(callus_match_merge(f->s, a.id, b.id, into, NULL), 0);
	assert_string_equal(into, a.id);
	assert_int_equal(callus_match_merge(f->s, b.id, c.id, into, NULL), 0);
	assert_string_equal(into, a.id);
	assert_int_equal(int_of(f, "SELECT count(*) FROM signature_links WHERE alias_id = ?1"
				   " AND canonical_id IN (SELECT alias_id FROM signature_links)",
				c.id),
			 0);
	assert_int_equal(callus_learn_resolutions(f->s, a.id, 0, &rs, &n, NULL), 0);
	assert_int_equal(n, 3);
	callus_resolutions_free(rs, n);
	/* b again, into a: done already; into d: refused, its link kept */
	assert_int_equal(callus_match_merge(f->s, a.id, b.id, NULL, &err), CALLUS_EEXIST);
	assert_non_null(strstr(callus_error_message(&err), "already"));
	callus_error_release(&err);
	assert_int_equal(callus_match_merge(f->s, d.id, b.id, NULL, &err), CALLUS_EEXIST);
	assert_non_null(strstr(callus_error_message(&err), "instead"));
	callus_error_release(&err);
	assert_int_equal(int_of(f, "SELECT count(*) FROM signature_links WHERE alias_id = ?1"
				   " AND canonical_id = (SELECT id FROM signatures WHERE id <> ?1"
				   " AND rowid = (SELECT min(rowid) FROM signatures))",
				b.id),
			 1);
	/* a back into b: refused with words, not SQLite's */
	assert_int_equal(callus_match_merge(f->s, b.id, a.id, NULL, &err), CALLUS_EEXIST);
	assert_non_null(strstr(callus_error_message(&err), "already"));
	callus_error_release(&err);
	/* an id copied in capitals is the same id */
	{
		char upper[16];
		callus_signature got;

		for (size_t i = 0; i < 10; i++)
			upper[i] = (char)toupper((unsigned char)d.id[i]);
		upper[10] = '\0';
		assert_memory_not_equal(upper, d.id, 10);
		assert_int_equal(callus_match_get_signature(f->s, upper, &got, NULL), 0);
		assert_string_equal(got.id, d.id);
		callus_signature_release(&got);
	}
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
	callus_signature_release(&d);
}

/*
 * A recurring error's fixes are ranked from the index of their counts and
 * the best kept as they come (schema 36): the same fixes, in the same
 * order, as all of them ranked, with their texts; a fix with no success
 * is never offered; and --limit's count of them.
 */
static void the_best_of_many_fixes_as_all_ranked(void **state)
{
	fixture *f = *state;
	callus_signature a;
	callus_match_opts mo = { .workspace = f->dir };
	callus_suggestion *g = NULL;
	size_t n = 0;
	char *want, *got;
	callus_buf ids = CALLUS_BUF_INIT;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	store_sig(f, &a);
	/* 40 fixes: rates 0/7 to 6/7, in an order of their own; one time */
	for (int i = 0; i < 40; i++) {
		char *q = sqlite3_mprintf(
			"INSERT INTO resolutions (signature_id, description, code_changes,"
			" application_count, success_count, created_at, last_success_at)"
			" VALUES (%Q, 'fix %d', 'diff %d', 7, %d, '2026-01-01T00:00:00.000Z',"
			" '2026-01-01T00:00:00.000Z')",
			a.id, i, i, (i * 5) % 7);

		assert_non_null(q);
		assert_int_equal(sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(q);
	}
	want = NULL;
	{
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
						    "SELECT group_concat(id, ',') FROM (SELECT id FROM"
						    " resolutions WHERE success_count > 0 ORDER BY"
						    " success_count DESC, id DESC LIMIT 5)",
						    -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		want = strdup((const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	assert_int_equal(callus_match_suggest(f->s, &mo, &a, 5, &g, &n, NULL), 0);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		callus_buf_printf(&ids, "%s%lld", i ? "," : "", (long long)g[i].resolution_id);
		assert_non_null(g[i].description);
		assert_string_equal(g[i].signature_id, a.id);
		assert_true(g[i].success_rate > 0);
		assert_true(i == 0 || g[i].confidence <= g[i - 1].confidence);
	}
	got = ids.ptr;
	assert_string_equal(got, want);
	callus_suggestions_free(g, n);
	/* the default, and more than there are with a success */
	assert_int_equal(callus_match_suggest(f->s, &mo, &a, 0, &g, &n, NULL), 0);
	assert_int_equal(n, CALLUS_LEARN_SUGGEST_MAX);
	callus_suggestions_free(g, n);
	assert_int_equal(callus_match_suggest(f->s, &mo, &a, 100, &g, &n, NULL), 0);
	assert_int_equal(n, (size_t)int_of(f, "SELECT count(*) FROM resolutions WHERE success_count > 0",
					   ""));
	callus_suggestions_free(g, n);
	free(want);
	callus_buf_release(&ids);
	callus_signature_release(&a);
}

/* The rows a statement whose text has ctx's prefix returned
 * (SQLITE_TRACE_ROW). */
typedef struct rows_traced {
	const char *prefix;
	int rows;
} rows_traced;

static int trace_rows(unsigned type, void *ctx, void *p, void *x)
{
	rows_traced *t = ctx;
	const char *sql = sqlite3_sql(p);

	(void)x;
	if (type == SQLITE_TRACE_ROW && sql && !strncmp(sql, t->prefix, strlen(t->prefix)))
		t->rows++;
	return 0;
}

/* A fix's confidence for an exact match, as the ranking's documentation
 * states it (docs/matching.md): rate x recency, recency halving every
 * CALLUS_MATCH_HALF_LIFE_DAYS; 0 for a time that is not one (the test's
 * are "never" and hour 24, which sorts among the times). */
static double fix_score(double rate, const char *when, time_t now)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	if (!(end = strptime(when, "%Y-%m-%dT%H:%M:%S", &tm)) || end != when + 19)
		return 0;
	return rate * pow(0.5, difftime(now, timegm(&tm)) / 86400.0 / CALLUS_MATCH_HALF_LIFE_DAYS);
}

/* Many fixes of one error, and of an error merged into it, each with its
 * own rate and time (some not a time at all): the best max are those of
 * every fix scored one by one, and the ranking reads a few more than max
 * of them, not all, when the newest work every time.  Fails when the
 * ranking stops too early (a bound that leaves out the rate, the context,
 * the fixes of the merged error, or reads a time that is not one) and
 * when it reads them all. */
static void the_best_of_fixes_over_time_without_reading_them_all(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_match_opts mo = { .workspace = f->dir };
	callus_suggestion *g = NULL;
	size_t n = 0;
	unsigned seed = 11;
	time_t now = time(NULL);
	const size_t maxes[] = { 1, 3, 5, 40 };
	rows_traced t = { "SELECT r.id, CAST(r.success_count", 0 };
	sqlite3_stmt *st = NULL;
	struct {
		int64_t id;
		double score;
	} all[400];
	size_t nall = 0;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "pytest", "E0001", "ModuleNotFoundError: No module named 'yaml_loader_x'",
		 "load\tsrc/conf.py");
	store_sig(f, &a);
	store_sig(f, &b);
	{
		char *q = sqlite3_mprintf("INSERT INTO signature_links (alias_id, canonical_id,"
					  " similarity, reason, linked_at) VALUES (%Q, %Q, 0.97,"
					  " 'merge', '2026-01-01T00:00:00.000Z')",
					  b.id, a.id);

		assert_int_equal(sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(q);
	}
	for (int i = 0; i < 300; i++) {
		char when[64];
		int apps = 1 + (int)((seed >> 16) % 9), ok;
		time_t then;
		struct tm tm;
		char *q;

		seed = seed * 1103515245u + 12345u;
		ok = (int)((seed >> 16) % (unsigned)(apps + 1));
		seed = seed * 1103515245u + 12345u;
		then = now - (time_t)((seed >> 8) % (200u * 86400u));
		gmtime_r(&then, &tm);
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
		if (i % 37 == 5) /* a time that is not one, above the rest or among them */
			strftime(when, sizeof(when), i % 2 ? "never" : "%Y-%m-%dT24:%M:%S.000Z", &tm);
		q = sqlite3_mprintf("INSERT INTO resolutions (signature_id, description, code_changes,"
				    " application_count, success_count, created_at, last_success_at)"
				    " VALUES (%Q, 'fix %d', 'diff', %d, %d, %Q, %Q)",
				    i % 4 ? a.id : b.id, i, apps, ok, when, when);
		assert_int_equal(sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(q);
	}
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "SELECT id, CAST(success_count AS REAL) / application_count,"
					    " last_success_at FROM resolutions WHERE success_count > 0",
					    -1, &st, NULL),
			 SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		assert_true(nall < sizeof(all) / sizeof(all[0]));
		all[nall].id = sqlite3_column_int64(st, 0);
		all[nall++].score = fix_score(sqlite3_column_double(st, 1),
					      (const char *)sqlite3_column_text(st, 2), now);
	}
	sqlite3_finalize(st);
	assert_true(nall > 100);
	for (size_t k = 0; k < sizeof(maxes) / sizeof(maxes[0]); k++) {
		assert_int_equal(callus_match_suggest(f->s, &mo, &a, maxes[k], &g, &n, NULL), 0);
		assert_int_equal(n, maxes[k]);
		for (size_t i = 0; i < n; i++) {
			size_t above = 0, j;

			for (j = 0; j < nall && all[j].id != g[i].resolution_id; j++)
				;
			assert_true(j < nall);
			/* i fixes score above it, none of those left out
			 * (a margin for the clock read twice) */
			for (size_t o = 0; o < nall; o++)
				above += all[o].score > all[j].score * (1 + 1e-9);
			assert_true(above <= i);
			assert_true(i == 0 || g[i].confidence <= g[i - 1].confidence);
		}
		callus_suggestions_free(g, n);
	}
	/* the newest fixes worked every time: the three best of 400, read
	 * from a few more than three */
	for (int i = 0; i < 100; i++) {
		char *q = sqlite3_mprintf("INSERT INTO resolutions (signature_id, description,"
					  " code_changes, application_count, success_count, created_at,"
					  " last_success_at) VALUES (%Q, 'new fix %d', 'diff', 4, 4,"
					  " strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now', '-%d minutes'),"
					  " strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now', '-%d minutes'))",
					  a.id, i, i + 1, i + 1);

		assert_int_equal(sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, NULL), SQLITE_OK);
		sqlite3_free(q);
	}
	assert_int_equal(sqlite3_trace_v2(callus_store_db(f->s), SQLITE_TRACE_ROW, trace_rows, &t),
			 SQLITE_OK);
	assert_int_equal(callus_match_suggest(f->s, &mo, &a, 3, &g, &n, NULL), 0);
	assert_int_equal(sqlite3_trace_v2(callus_store_db(f->s), 0, NULL, NULL), SQLITE_OK);
	assert_int_equal(n, 3);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(g[i].resolution_id,
				 int_of(f, "SELECT max(id) FROM resolutions", "") - 99 + (int64_t)i);
	callus_suggestions_free(g, n);
	assert_true(t.rows >= 4);
	assert_true(t.rows < 40);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* The statements traced, their texts (sqlite3_trace_v2's SQLITE_TRACE_STMT). */
static int trace_texts(unsigned type, void *ctx, void *p, void *x)
{
	const char *sql = sqlite3_sql(p);

	(void)x;
	/* a trigger's program comes as a comment: its statement was traced */
	if (type == SQLITE_TRACE_STMT && sql && strncmp(sql, "--", 2))
		(void)callus_strlist_add_unique(ctx, sql, strlen(sql), NULL);
	return 0;
}

/* A recurring error's fixes are summed, ranked and suggested from the
 * covering indexes of their counts (schema 36), never from their rows,
 * which hold the diff before the counts: a regression to reading the rows
 * passes every other test, and makes each fix of an import cost what the
 * fixes before it number.  The statements checked are those the code
 * runs, traced; each must be seen. */
static void a_notes_fixes_are_read_from_the_indexes_alone(void **state)
{
	fixture *f = *state;
	callus_strlist sql = CALLUS_STRLIST_INIT;
	const char *patch = "diff --git a/src/sum.js b/src/sum.js\n--- a/src/sum.js\n"
			    "+++ b/src/sum.js\n@@ -1,1 +1,1 @@\n-  return a - b;\n+  return a + b;\n";
	/* a note's best fix (ranked once, when not known: its sums are
	 * triggers', schema 37), a suggestion's ranking */
	const char *const kinds[] = { "ORDER BY CAST(r.success_count AS REAL)",
				      "INDEXED BY resolutions_recent" };
	int seen[2] = { 0 };
	callus_suggestion *g = NULL;
	callus_signature a;
	size_t n;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	store_sig(f, &a);
	assert_int_equal(sqlite3_trace_v2(callus_store_db(f->s), SQLITE_TRACE_STMT, trace_texts, &sql),
			 SQLITE_OK);
	for (int i = 0; i < 3; i++)
		resolve_with(f, &a, "a", patch);
	n = suggest(f, &a, &g);
	assert_true(n > 0);
	callus_suggestions_free(g, n);
	assert_int_equal(callus_notes_metrics_moved(f->s, 1, NULL), 0);
	assert_int_equal(sqlite3_trace_v2(callus_store_db(f->s), 0, NULL, NULL), SQLITE_OK);
	assert_int_equal(int_of(f, "SELECT count(*) FROM notes", ""), 1);
	for (size_t i = 0; i < sql.count; i++) {
		sqlite3_stmt *st = NULL;
		char *q;
		int k, rows = 0;

		for (k = 0; k < 2 && !strstr(sql.items[i], kinds[k]); k++)
			;
		if (k == 2)
			continue;
		seen[k] = 1;
		assert_non_null(q = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql.items[i]));
		assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s), q, -1, &st, NULL),
				 SQLITE_OK);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *d = (const char *)sqlite3_column_text(st, 3);

			/* the ranking stops early only when its fixes come in
			 * the index's order */
			if (strstr(d, "TEMP B-TREE") && strstr(sql.items[i], kinds[1]))
				fail_msg("%s\n sorts its fixes: %s", sql.items[i], d);
			/* the fixes are r: searched or scanned by a covering index */
			if (!strncmp(d, "SEARCH r ", 9) || !strncmp(d, "SCAN r", 6)) {
				if (!strstr(d, "USING COVERING INDEX resolutions_"))
					fail_msg("%s\n reads the rows: %s", sql.items[i], d);
				rows++;
			}
		}
		assert_true(rows > 0);
		sqlite3_finalize(st);
		sqlite3_free(q);
	}
	for (int k = 0; k < 2; k++)
		if (!seen[k])
			fail_msg("no statement with \"%s\" was run", kinds[k]);
	callus_strlist_release(&sql);
	callus_signature_release(&a);
}

/* One integer of q on the store's own connection (id bound as ?1); -2
 * for NULL, -1 for no row. */
static int64_t note_int(fixture *f, const char *q, const char *id)
{
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s), q, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_type(st, 0) == SQLITE_NULL ? -2 : sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* The note's sums and best fix, kept by triggers (schema 37), are what
 * its fixes say at every step, whoever writes them: counts moved, a diff
 * emptied or given back, a fix detached, deleted, or deleted by its
 * signature's cascade, a fix attached.  Its best is the one a ranking of
 * them all gives, or NULL (ranked again at the next refresh), never
 * another fix. */
static void a_notes_sums_and_best_follow_its_fixes(void **state)
{
	fixture *f = *state;
	const char *patch = "diff --git a/src/sum.js b/src/sum.js\n--- a/src/sum.js\n"
			    "+++ b/src/sum.js\n@@ -1,1 +1,1 @@\n-  return a - b;\n+  return a + b;\n";
	const char *sums = "SELECT n.applications = (SELECT coalesce(sum(r.application_count), 0)"
			   " FROM note_resolutions x JOIN resolutions r ON r.id = x.resolution_id"
			   " WHERE x.note_id = n.id) AND n.successes = (SELECT coalesce(sum("
			   "r.success_count), 0) FROM note_resolutions x JOIN resolutions r"
			   " ON r.id = x.resolution_id WHERE x.note_id = n.id) FROM notes n"
			   " WHERE n.id = ?1";
	const char *ranked = "SELECT coalesce((SELECT r.id FROM note_resolutions x JOIN resolutions r"
			     " ON r.id = x.resolution_id WHERE x.note_id = ?1 AND r.code_changes <> ''"
			     " ORDER BY CAST(r.success_count AS REAL) / max(r.application_count, 1) DESC,"
			     " r.success_count DESC, r.last_success_at DESC, r.id DESC LIMIT 1), 0)";
	const char *kept = "SELECT best_resolution FROM notes WHERE id = ?1";
	callus_signature a, other;
	char note[64];
	unsigned seed = 7;
	int known = 0, cascades = 0, ops[7] = { 0 };

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&other, "mocha", NULL, "TypeError: cannot read properties of undefined",
		 "render\tsrc/view.js");
	store_sig(f, &a);
	for (int i = 0; i < 3; i++)
		resolve_with(f, &a, "a", patch);
	{
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s), "SELECT id FROM notes", -1,
						    &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		snprintf(note, sizeof(note), "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	/* learnt: known, and right */
	assert_true(note_int(f, ranked, note) > 0);
	assert_int_equal(note_int(f, kept, note), note_int(f, ranked, note));
	assert_int_equal(note_int(f, sums, note), 1);
	for (int step = 0; step < 400; step++) {
		int64_t rid, best;
		char *q = NULL, *msg = NULL;
		int op;

		seed = seed * 1103515245u + 12345u;
		op = (int)((seed >> 16) % 7);
		rid = note_int(f, "SELECT resolution_id FROM note_resolutions WHERE note_id = ?1"
				   " ORDER BY random() LIMIT 1", note);
		if (rid < 0 && op < 5)
			op = 5;
		if (op == 4 && note_int(f, "SELECT count(*) FROM signatures WHERE id = ?1",
					 other.id) == 0) {
			store_sig(f, &other);
			cascades++;
		}
		switch (op) {
		case 0: /* a success, later */
			q = sqlite3_mprintf("UPDATE resolutions SET application_count ="
					    " application_count + 1, success_count = success_count + 1,"
					    " last_success_at = '2026-03-%02dT00:00:00.000Z' WHERE id = %lld",
					    1 + step % 28, (long long)rid);
			break;
		case 1: /* a failure */
			q = sqlite3_mprintf("UPDATE resolutions SET application_count ="
					    " application_count + 2 WHERE id = %lld",
					    (long long)rid);
			break;
		case 2: /* a diff emptied, or given back */
			q = sqlite3_mprintf("UPDATE resolutions SET code_changes = CASE WHEN"
					    " code_changes = '' THEN 'diff' ELSE '' END WHERE id = %lld",
					    (long long)rid);
			break;
		case 3: /* detached */
			q = sqlite3_mprintf("DELETE FROM note_resolutions WHERE resolution_id = %lld",
					    (long long)rid);
			break;
		case 4: /* deleted with a signature that goes */
			q = sqlite3_mprintf("UPDATE resolutions SET signature_id = %Q WHERE id = %lld;"
					    " DELETE FROM signatures WHERE id = %Q",
					    other.id, (long long)rid, other.id);
			break;
		case 5: /* a new fix attached, with a diff or without */
			q = sqlite3_mprintf("INSERT INTO resolutions (signature_id, description,"
					    " code_changes, application_count, success_count, created_at,"
					    " last_success_at) VALUES (%Q, 'fix', %Q, 3, %d,"
					    " '2026-01-01T00:00:00.000Z', '2026-02-%02dT00:00:00.000Z');"
					    " INSERT INTO note_resolutions (resolution_id, note_id)"
					    " VALUES (last_insert_rowid(), %Q)",
					    a.id, step % 3 ? "diff" : "", (int)(seed % 4), 1 + step % 28,
					    note);
			break;
		default: /* deleted, or a refresh: ranked again when not known */
			if (rid >= 0 && step % 2) {
				q = sqlite3_mprintf("DELETE FROM resolutions WHERE id = %lld",
						    (long long)rid);
			} else if (note_int(f, kept, note) == -2) {
				q = sqlite3_mprintf("UPDATE notes SET best_resolution = %lld"
						    " WHERE id = %Q",
						    (long long)note_int(f, ranked, note), note);
			}
			break;
		}
		if (q && sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, &msg) != SQLITE_OK)
			fail_msg("%s: %s", q, msg);
		sqlite3_free(q);
		ops[op]++;
		if (note_int(f, sums, note) != 1)
			fail_msg("step %d (%d): the sums are not the fixes'", step, op);
		best = note_int(f, kept, note);
		if (best != -2) {
			known++;
			if (best != note_int(f, ranked, note))
				fail_msg("step %d (%d): best %lld, ranked %lld", step, op,
					 (long long)best, (long long)note_int(f, ranked, note));
		} else if (step % 2) {
			/* the next refresh, as a fix learnt makes one */
			q = sqlite3_mprintf("UPDATE notes SET best_resolution = %lld WHERE id = %Q",
					    (long long)note_int(f, ranked, note), note);
			assert_int_equal(sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, NULL),
					 SQLITE_OK);
			sqlite3_free(q);
		}
	}
	/* every kind of step taken, the best mostly known */
	for (int i = 0; i < 7; i++)
		assert_true(ops[i] > 10);
	assert_true(cascades > 5);
	assert_true(known > 200);
	callus_signature_release(&a);
	callus_signature_release(&other);
}

/* Schema 37 makes every note's sums again from its fixes (a retired
 * note's stopped at its retirement; a store's own writes could have left
 * them behind), its best not known until the next refresh, which ranks
 * them once and keeps it. */
static void schema_37_sums_every_note_once(void **state)
{
	fixture *f = *state;
	const char *patch = "diff --git a/src/sum.js b/src/sum.js\n--- a/src/sum.js\n"
			    "+++ b/src/sum.js\n@@ -1,1 +1,1 @@\n-  return a - b;\n+  return a + b;\n";
	callus_signature a;
	sqlite3 *db = NULL;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	store_sig(f, &a);
	resolve_with(f, &a, "a", patch);
	resolve_with(f, &a, "a", patch);
	assert_int_equal(int_of(f, "SELECT count(*) FROM resolutions", ""), 2);
	callus_store_close(f->s);
	f->s = NULL;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db,
				      TEST_AS_BEFORE_37
				      "UPDATE resolutions SET application_count = 5, success_count = 4;"
				      "UPDATE notes SET applications = 1, successes = 1;"
				      "PRAGMA user_version = 36",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(int_of(f, "SELECT applications FROM notes", ""), 10);
	assert_int_equal(int_of(f, "SELECT successes FROM notes", ""), 8);
	assert_int_equal(int_of(f, "SELECT best_resolution IS NULL FROM notes", ""), 1);
	resolve_with(f, &a, "a", patch);
	assert_int_equal(int_of(f, "SELECT applications = (SELECT sum(application_count) FROM"
				   " resolutions) FROM notes", ""),
			 1);
	/* the newest fix, 1 of 1, outranks the two of 4 in 5 */
	assert_int_equal(int_of(f, "SELECT best_resolution FROM notes", ""),
			 int_of(f, "SELECT max(id) FROM resolutions", ""));
	callus_signature_release(&a);
}

/* A word made of n < 1000, one for each (which of two buffers: two words
 * at a time). */
static const char *word(int n, int which)
{
	static const char *const syl[] = { "ka", "lo", "mi", "nu", "pe", "ra", "si", "to", "vu", "xe" };
	static char buf[2][32];

	snprintf(buf[which], sizeof(buf[which]), "get%s%s%s", syl[n % 10], syl[(n / 10) % 10],
		 syl[(n / 100) % 10]);
	return buf[which];
}

/* The same matches, found the same way, scored within 1e-3: two searches
 * of one signature whose vectors differ by the document count. */
static void assert_same_matches(const callus_match *a, size_t na, const callus_match *b, size_t nb)
{
	assert_int_equal(na, nb);
	for (size_t j = 0; j < na; j++) {
		assert_string_equal(a[j].signature_id, b[j].signature_id);
		assert_true(fabs(a[j].similarity - b[j].similarity) < 1e-3);
		assert_int_equal(a[j].how, b[j].how);
	}
}

/* Searches of g with a, then with b, find the same (assert_same_matches),
 * at least min of them. */
static void assert_searches_alike(fixture *f, const callus_match_opts *a,
				  const callus_match_opts *b, const callus_signature *g, size_t min)
{
	callus_match *m1 = NULL, *m2 = NULL;
	size_t n1 = 0, n2 = 0;

	assert_int_equal(callus_match_find(f->s, a, g, &m1, &n1, NULL), 0);
	assert_int_equal(callus_match_find(f->s, b, g, &m2, &n2, NULL), 0);
	assert_true(n1 >= min);
	assert_same_matches(m1, n1, m2, n2);
	callus_matches_free(m1, n1);
	callus_matches_free(m2, n2);
}

/* make_sig's signature, with one more stack pattern (unless NULL) and an
 * id of its own (its first 12 digits all `digit`): a near duplicate of
 * make_sig's, or its error as a signature not stored. */
static void make_variant(callus_signature *g, const char *fw, const char *msg, const char *frame,
			 const char *more, char digit)
{
	make_sig(g, fw, NULL, msg, frame);
	if (more)
		assert_int_equal(callus_strlist_add(&g->stack_patterns, more, strlen(more)), 0);
	memset(g->id, digit, 12);
}

/* Records appended to the built-in vector file for no signature (a search
 * skips an id the store has no row for): random directions, like nothing
 * stored, that push the stored ones out of a window of the newest. */
static void pad_vector_file(fixture *f, size_t n)
{
	callus_buf path = CALLUS_BUF_INIT;
	float *vecs = malloc(n * CALLUS_EMBED_DIM * sizeof(*vecs));
	int64_t *ids = malloc(n * sizeof(*ids));
	uint32_t x = 12345;

	assert_non_null(vecs);
	assert_non_null(ids);
	for (size_t i = 0; i < n; i++) {
		float *v = vecs + i * CALLUS_EMBED_DIM;
		double len = 0;

		for (size_t d = 0; d < CALLUS_EMBED_DIM; d++) {
			x = x * 1103515245u + 12345u;
			v[d] = (float)((double)(x >> 8) / (double)(1u << 24) - 0.5);
			len += (double)v[d] * v[d];
		}
		for (size_t d = 0; d < CALLUS_EMBED_DIM; d++)
			v[d] = (float)(v[d] / sqrt(len));
		ids[i] = 1000000000 + (int64_t)i;
	}
	assert_int_equal(callus_match_builtin_vector_path(&path, f->dir), 0);
	assert_int_equal(callus_vecindex_append(path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
					      ids, vecs, n, NULL),
			 0);
	callus_buf_release(&path);
	free(vecs);
	free(ids);
}

/* Does a search of g with mo find the signature named id by its vector?
 * (The regex fallback reads the newest of an error type, whatever the
 * window.) */
static int finds(fixture *f, const callus_match_opts *mo, const callus_signature *g,
		 const char *id)
{
	callus_match *m = NULL;
	size_t n = 0;
	int found = 0;

	assert_int_equal(callus_match_find(f->s, mo, g, &m, &n, NULL), 0);
	for (size_t i = 0; i < n; i++)
		found |= !strcmp(m[i].signature_id, id) && m[i].how == CALLUS_MATCH_VECTOR;
	callus_matches_free(m, n);
	return found;
}

/*
 * A near duplicate whose index waited (a busy store leaves it to the next
 * recording), fixed meanwhile: the note its fix made before it was linked
 * is its canonical's too once it is, as it would have been linked first
 * (callus_notes_attach), so that the noted signatures' search, which finds
 * the canonical's vector (the duplicate, linked, has none), finds it.
 */
static void duplicate_linked_after_its_note(void **state)
{
	fixture *f = *state;
	callus_signature c, cdup;
	callus_buf noted = CALLUS_BUF_INIT;
	static const char page[] = "ReferenceError: window is not defined in the test environment";
	static const char count[] = "SELECT count(*) FROM note_signatures WHERE signature_id = ?1";

	make_sig(&c, "jest", NULL, page, "render\tsrc/page.js");
	make_variant(&cdup, "jest", page, "render\tsrc/page.js", "mount@page.js", 'c');
	store_sig(f, &c);
	store_unindexed(f, &cdup, 1, NULL);
	resolve_with(f, &cdup, "c",
		     "diff --git a/src/page.js b/src/page.js\n--- a/src/page.js\n+++ b/src/page.js\n"
		     "@@ -1,1 +1,1 @@\n-  render(window);\n+  render(globalThis);\n");
	assert_int_equal(int_of(f, count, cdup.id), 1);
	assert_int_equal(int_of(f, count, c.id), 0);
	assert_int_equal(callus_match_index_scanned(f->s, f->dir, NULL, NULL, NULL), 0);
	assert_int_equal(link_count(f, cdup.id), 1);
	assert_int_equal(int_of(f, count, c.id), 1);
	assert_int_equal(int_of(f, "SELECT count(*) FROM note_signatures a JOIN note_signatures b"
				   " ON a.note_id = b.note_id WHERE a.signature_id = ?1",
				c.id),
			 2);
	/* the noted file, behind the store by the canonical's record, is
	 * written again with it */
	assert_int_equal(callus_notes_vectors_fresh(f->s, &noted, NULL), 0);
	assert_int_equal(callus_vecindex_file_count(noted.ptr, CALLUS_EMBED_BUILTIN_MODEL,
						    CALLUS_EMBED_DIM),
			 1);
	callus_buf_release(&noted);
	callus_signature_release(&c);
	callus_signature_release(&cdup);
}

/*
 * A store grown past CALLUS_MATCH_WINDOW new signatures: a near duplicate
 * of an older one is no longer linked to it, an older signature without a
 * note is no longer a match, and an older fix is still suggested, through
 * the noted signatures' vector file.  With no such file given, the whole
 * file is searched as before.
 */
static void a_window_of_the_newest_and_every_noted(void **state)
{
	fixture *f = *state;
	callus_signature a, dup1, dup2, u, u2, c, cdup, c2;
	callus_match_scans *scans = NULL;
	callus_buf noted = CALLUS_BUF_INIT;
	callus_match_opts whole, windowed, nofile;

	static const char sum[] = "expect(received).toBe(expected) Expected: 4 Received: 3",
			  view[] = "TypeError: Cannot read properties of undefined (reading 'name')",
			  page[] = "ReferenceError: window is not defined in the test environment";

	make_sig(&a, "jest", NULL, sum, "add\tsrc/sum.js");
	/* a's near duplicates: one more frame each, and another id */
	make_variant(&dup1, "jest", sum, "add\tsrc/sum.js", "helper@util.js", 'f');
	make_variant(&dup2, "jest", sum, "add\tsrc/sum.js", "other@util.js", 'e');
	make_sig(&u, "mocha", NULL, view, "render\tsrc/view.js");
	make_variant(&u2, "mocha", view, "render\tsrc/view.js", NULL, 'd'); /* not stored */
	make_sig(&c, "jest", NULL, page, "render\tsrc/page.js");
	make_variant(&cdup, "jest", page, "render\tsrc/page.js", "mount@page.js", 'c');
	make_variant(&c2, "jest", page, "render\tsrc/page.js", NULL, 'b'); /* not stored */
	store_sig(f, &a);
	resolve_with(f, &a, "a",
		     "diff --git a/src/sum.js b/src/sum.js\n--- a/src/sum.js\n+++ b/src/sum.js\n"
		     "@@ -1,1 +1,1 @@\n-  return a - b;\n+  return a + b;\n");
	store_sig(f, &u);
	/* a duplicate's fix: its note is its canonical's too, which has the
	 * vector (the duplicate, linked, has none) */
	store_sig(f, &c);
	store_sig(f, &cdup);
	assert_int_equal(link_count(f, cdup.id), 1);
	resolve_with(f, &cdup, "c",
		     "diff --git a/src/page.js b/src/page.js\n--- a/src/page.js\n+++ b/src/page.js\n"
		     "@@ -1,1 +1,1 @@\n-  render(window);\n+  render(globalThis);\n");
	assert_int_equal(int_of(f, "SELECT count(*) FROM note_signatures WHERE signature_id = ?1",
				c.id),
			 1);
	/* a fix makes a note, and the note's signature is in its file */
	assert_int_equal(int_of(f, "SELECT count(*) FROM note_signatures WHERE signature_id = ?1",
				a.id),
			 1);
	assert_int_equal(callus_notes_vectors_fresh(f->s, &noted, NULL), 0);

	memset(&whole, 0, sizeof(whole));
	whole.workspace = f->dir;
	windowed = whole;
	windowed.window = CALLUS_MATCH_WINDOW;
	windowed.noted = noted.ptr;
	nofile = windowed;
	nofile.noted = "/nonexistent/vectors.noted.bin";

	/* inside the window: linked, found, suggested */
	store_sig(f, &dup1);
	assert_int_equal(link_count(f, dup1.id), 1);
	assert_true(finds(f, &windowed, &u2, u.id));

	pad_vector_file(f, CALLUS_MATCH_WINDOW);
	/* past it: the near-duplicate check does not reach a */
	assert_int_equal(callus_match_scans_new(&scans), 0);
	store_sig_scanned(f, &dup2, scans);
	assert_int_equal(link_count(f, dup2.id), 0);
	/* u has no note: a match of the whole file only */
	assert_true(finds(f, &whole, &u2, u.id));
	assert_false(finds(f, &windowed, &u2, u.id));
	/* c, whose duplicate's note is its own, through the noted file */
	assert_true(finds(f, &windowed, &c2, c.id));
	/* a's fix, found through the noted file (by its vector: the regex
	 * fallback finds it too, a's message being dup2's), with the
	 * check's scans kept or not; not without the file */
	for (int kept = 0; kept < 2; kept++) {
		whole.scans = windowed.scans = nofile.scans = kept ? scans : NULL;
		assert_true(finds(f, &whole, &dup2, a.id));
		assert_true(finds(f, &windowed, &dup2, a.id));
		assert_false(finds(f, &nofile, &dup2, a.id));
	}
	/* the check's kept records and the noted file give what the window
	 * and the noted file give without them */
	{
		callus_match_opts kept = windowed;

		windowed.scans = NULL;
		kept.scans = scans;
		assert_searches_alike(f, &windowed, &kept, &dup2, 2);
	}
	/* the noted file open once for a run's searches: that opening is
	 * searched, whatever path is named */
	{
		callus_vecindex *nvi = NULL;

		callus_match_noted_open(&nvi, noted.ptr);
		assert_non_null(nvi);
		nofile.noted_index = nvi;
		assert_true(finds(f, &nofile, &dup2, a.id));
		callus_vecindex_close(nvi);
		callus_match_noted_open(&nvi, "/nonexistent/vectors.noted.bin");
		windowed.noted_index = nvi;
		assert_false(finds(f, &windowed, &dup2, a.id));
		callus_vecindex_close(nvi);
	}
	/* what a recording sets: nothing in a store of no more vectors than
	 * the window (this one's vector file is padded, its store is not);
	 * past it, the window and the noted file made fresh */
	{
		callus_match_opts mo = { .workspace = f->dir };
		callus_buf p = CALLUS_BUF_INIT;

		assert_int_equal(callus_notes_window(f->s, CALLUS_MATCH_WINDOW, &mo, &p, NULL), 0);
		assert_int_equal(mo.window, 0);
		assert_null(mo.noted);
		assert_int_equal(callus_notes_window(f->s, 1, &mo, &p, NULL), 0);
		assert_int_equal(mo.window, 1);
		assert_string_equal(mo.noted, noted.ptr);
		callus_buf_release(&p);
	}

	callus_match_scans_free(scans);
	callus_buf_release(&noted);
	callus_signature_release(&a);
	callus_signature_release(&dup1);
	callus_signature_release(&dup2);
	callus_signature_release(&u);
	callus_signature_release(&u2);
	callus_signature_release(&c);
	callus_signature_release(&cdup);
	callus_signature_release(&c2);
}

/* Searches sharing a memo of the document frequencies (a learning's
 * suggestions) make the same vectors and find the same matches, to the
 * bit, as searches that read every frequency from the store; and a
 * feature read once is not read again.  Fails when the memo keeps a count
 * other than the store's, or is not read. */
static void a_memo_of_frequencies_finds_exactly_alike(void **state)
{
	fixture *f = *state;
	callus_match_df_memo *memo = NULL;
	callus_signature g;
	char msg[256], frame[64];
	rows_traced t = { "SELECT (SELECT df FROM embed_df_hot", 0 };
	size_t found = 0;

	for (int i = 0; i < 40; i++) {
		snprintf(msg, sizeof(msg), "TypeError: %s is not a function in %s of %s",
			 word(i % 5, 0), word(i % 7, 1), word(i, 1));
		snprintf(frame, sizeof(frame), "f%d\tsrc/m%d.js", i % 3, i % 4);
		make_sig(&g, i % 2 ? "jest" : "mocha", NULL, msg, frame);
		store_sig(f, &g);
		callus_signature_release(&g);
	}
	assert_int_equal(callus_match_df_memo_new(&memo), 0);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 12; i++) {
			float plain[CALLUS_EMBED_DIM], kept[CALLUS_EMBED_DIM];
			callus_match_opts mo, memoed;
			callus_match *m1 = NULL, *m2 = NULL;
			size_t n1 = 0, n2 = 0;

			/* stored errors' words, and words no signature has */
			snprintf(msg, sizeof(msg), "TypeError: %s is not a function in %s of %s",
				 word(i % 5, 0), word(i % 7 + 3 * (i % 2), 1), word(100 + i, 1));
			snprintf(frame, sizeof(frame), "g%d\tsrc/n%d.js", i, i % 5);
			make_sig(&g, i % 3 ? "jest" : "mocha", NULL, msg, frame);
			assert_int_equal(callus_match_embed(f->s, &g, plain), SQLITE_OK);
			t.rows = 0;
			sqlite3_trace_v2(callus_store_db(f->s), SQLITE_TRACE_ROW, trace_rows, &t);
			assert_int_equal(callus_match_embed_memo(f->s, &g, memo, kept), SQLITE_OK);
			sqlite3_trace_v2(callus_store_db(f->s), 0, NULL, NULL);
			assert_memory_equal(plain, kept, sizeof(plain));
			/* every word read in the first round, and kept */
			if (round == 1)
				assert_int_equal(t.rows, 0);
			else if (i == 0)
				assert_true(t.rows > 0);
			memset(&mo, 0, sizeof(mo));
			mo.workspace = f->dir;
			memoed = mo;
			memoed.df_memo = memo;
			assert_int_equal(callus_match_find(f->s, &mo, &g, &m1, &n1, NULL), 0);
			assert_int_equal(callus_match_find(f->s, &memoed, &g, &m2, &n2, NULL), 0);
			assert_int_equal(n1, n2);
			for (size_t j = 0; j < n1; j++) {
				assert_string_equal(m1[j].signature_id, m2[j].signature_id);
				assert_memory_equal(&m1[j].similarity, &m2[j].similarity,
						    sizeof(m1[j].similarity));
			}
			found += n1;
			callus_matches_free(m1, n1);
			callus_matches_free(m2, n2);
			callus_signature_release(&g);
		}
	/* matches to compare: half the queries' (twelve at this writing) */
	assert_true(found >= 6);
	callus_match_df_memo_free(memo);
	callus_match_df_memo_free(NULL);
}

/* The suggestions' search of a signature just indexed continues the
 * indexing's scan over the vectors appended since: what it finds is what
 * a whole scan finds. */
static void kept_scans_find_alike(void **state)
{
	fixture *f = *state;
	callus_match_scans *scans = NULL;
	callus_signature g;
	char msg[256], frame[64];
	size_t noted = 0;

	for (int i = 0; i < 40; i++) {
		snprintf(msg, sizeof(msg),
			 "TypeError: %s is not a function while rendering the settings page of %s",
			 word(i % 3, 0), word(i, 1));
		snprintf(frame, sizeof(frame), "f%d\tsrc/m%d.js", i % 3, i % 4);
		make_sig(&g, i % 2 ? "jest" : "mocha", NULL, msg, frame);
		store_sig(f, &g);
		callus_signature_release(&g);
	}
	for (int i = 0; i < 3; i++) {
		size_t start = 1, from = 0;
		callus_match_opts mo, scanned;
		const size_t *recs = NULL;
		size_t nrecs = 0;
		callus_vecindex *vi = NULL;
		callus_buf path = CALLUS_BUF_INIT;
		float vec[CALLUS_EMBED_DIM];

		assert_int_equal(callus_match_scans_new(&scans), 0);
		/* a stored error's message, failing elsewhere */
		snprintf(msg, sizeof(msg),
			 "TypeError: %s is not a function while rendering the settings page of %s",
			 word(i % 3, 0), word(2 * i + 1, 1));
		snprintf(frame, sizeof(frame), "other%d\tsrc/other%d.js", i, i);
		make_sig(&g, "jest", NULL, msg, frame);
		store_sig_scanned(f, &g, scans);
		/* its vector moved with the document count, and what was kept
		 * still answers for it: a few records, the rest appended since */
		assert_int_equal(callus_match_embed(f->s, &g, vec), SQLITE_OK);
		assert_int_equal(callus_match_builtin_vector_path(&path, f->dir), 0);
		assert_int_equal(callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL,
						    CALLUS_EMBED_DIM, NULL, NULL),
				 0);
		assert_int_equal(callus_match_scans_get(scans, g.id, vec,
						      (float)CALLUS_MATCH_THRESHOLD_RULE, vi, &recs,
						      &nrecs, &start, &from),
				 1);
		/* a small store: its check saw every record */
		assert_int_equal(start, 0);
		assert_true(from < callus_vecindex_count(vi));
		assert_true(nrecs < from);
		noted += nrecs;
		/* a search needing lower scores than were noted: not answered */
		assert_int_equal(callus_match_scans_get(scans, g.id, vec, 0.5f, vi, &recs, &nrecs,
						      &start, &from),
				 0);
		callus_vecindex_close(vi);
		callus_buf_release(&path);
		memset(&mo, 0, sizeof(mo));
		mo.workspace = f->dir;
		scanned = mo;
		scanned.scans = scans;
		/* itself, and what the noted records brought; with the kept
		 * scans, the search is of the vector the check searched with
		 * (the file's), made again without them: the same matches,
		 * scored within what one more document in the count moves */
		assert_searches_alike(f, &mo, &scanned, &g, 1);
		{
			float kept[CALLUS_EMBED_DIM];
			double dot = 0;

			assert_int_equal(callus_match_scans_vector(scans, g.id, kept), 1);
			assert_int_equal(callus_match_scans_vector(scans, "0123", kept), 0);
			for (size_t d = 0; d < CALLUS_EMBED_DIM; d++)
				dot += (double)kept[d] * vec[d];
			assert_true(dot > 0.999 && dot < 1.001);
		}
		callus_signature_release(&g);
		callus_match_scans_free(scans);
	}
	/* the noted records were searched, not only the appended ones */
	assert_true(noted >= 1);
}


/* A run's searches with one opening of the vector file
 * (callus_match_opts.index) find what each search opening it finds; and
 * it is that opening which is searched: a signature stored after it was
 * made is found by a search opening the file, not through it. */
static void an_open_index_finds_alike(void **state)
{
	fixture *f = *state;
	callus_vecindex *index = NULL;
	callus_signature g, late;
	callus_match_opts mo, opened;
	callus_match *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	char msg[256], frame[64];

	/* no vector file yet: an empty index */
	callus_match_index_open(f->s, &index, f->dir);
	assert_non_null(index);
	assert_int_equal(callus_vecindex_count(index), 0);
	callus_vecindex_close(index);
	for (int i = 0; i < 30; i++) {
		snprintf(msg, sizeof(msg), "TypeError: %s is not a function in the list of %s",
			 word(i % 3, 0), word(i, 1));
		snprintf(frame, sizeof(frame), "f%d\tsrc/m%d.js", i % 3, i % 4);
		make_sig(&g, "jest", NULL, msg, frame);
		store_sig(f, &g);
		callus_signature_release(&g);
	}
	callus_match_index_open(f->s, &index, f->dir);
	assert_non_null(index);
	memset(&mo, 0, sizeof(mo));
	mo.workspace = f->dir;
	opened = mo;
	opened.index = index;
	for (int i = 0; i < 3; i++) {
		/* a stored error's message, failing elsewhere */
		snprintf(msg, sizeof(msg), "TypeError: %s is not a function in the list of %s",
			 word(i % 3, 0), word(7 * i, 1));
		make_sig(&g, "jest", NULL, msg, "other\tsrc/other.js");
		assert_searches_alike(f, &mo, &opened, &g, 1);
		callus_signature_release(&g);
	}
	/* stored after the opening: not in it */
	make_sig(&late, "jest", "E-late", "ReferenceError: zzyzx_quux_late is not defined anywhere",
		 "late\tsrc/late.js");
	store_sig(f, &late);
	make_sig(&g, "jest", "E-late", "ReferenceError: zzyzx_quux_late is not defined anywhere",
		 "later\tsrc/later.js");
	mo.index = NULL;
	assert_int_equal(callus_match_find(f->s, &mo, &g, &a, &na, NULL), 0);
	mo.index = index;
	assert_int_equal(callus_match_find(f->s, &mo, &g, &b, &nb, NULL), 0);
	assert_true(na >= 1);
	assert_string_equal(a[0].signature_id, late.id);
	assert_int_equal(a[0].how, CALLUS_MATCH_VECTOR);
	for (size_t j = 0; j < nb; j++)
		assert_true(strcmp(b[j].signature_id, late.id) || b[j].how != CALLUS_MATCH_VECTOR);
	callus_matches_free(a, na);
	callus_matches_free(b, nb);
	callus_signature_release(&g);
	callus_signature_release(&late);
	callus_vecindex_close(index);
}

/*
 * With opts.stored, a signature indexed before is searched with the vector
 * the store holds for it: the same matches as one made again; and it is
 * that row which is read (given another signature's vector, the search
 * finds that one first, scored 1); a signature without one is made.
 */
static void stored_vector_searched(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c;
	callus_match *m2 = NULL;
	size_t n2 = 0;
	callus_match_opts mo, stored;
	sqlite3_stmt *st = NULL;

	make_sig(&a, "jest", NULL, "TypeError: getkaloma is not a function in the settings page",
		 "render\tsrc/settings.js");
	make_sig(&b, "jest", NULL, "expected 200 to equal 404 when the cart is empty at checkout",
		 "checkout\tsrc/cart.js");
	make_sig(&c, "jest", NULL, "TypeError: getkaloma is not a function in the settings pages",
		 "render\tsrc/settings.js");
	store_sig(f, &a);
	store_sig(f, &b);
	memset(&mo, 0, sizeof(mo));
	mo.workspace = f->dir;
	mo.threshold = 0.5;
	stored = mo;
	stored.stored = 1;
	assert_searches_alike(f, &mo, &stored, &a, 1);
	mo.stored = 1;
	/* a's row given b's vector: the search is b's */
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "UPDATE signature_vectors SET vector = (SELECT v.vector"
					    " FROM signature_vectors v JOIN signatures g ON"
					    " g.rowid = v.sig WHERE g.id = ?2) WHERE sig = (SELECT"
					    " rowid FROM signatures WHERE id = ?1)",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, a.id, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, b.id, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(callus_match_find(f->s, &mo, &a, &m2, &n2, NULL), 0);
	{
		int found_b = 0;

		for (size_t i = 0; i < n2; i++)
			if (!strcmp(m2[i].signature_id, b.id) && m2[i].similarity > 0.99)
				found_b = 1;
		assert_true(found_b);
	}
	callus_matches_free(m2, n2);
	/* a row that is no vector (damaged): made, and near a again */
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "UPDATE signature_vectors SET vector = x'010203' WHERE sig ="
					    " (SELECT rowid FROM signatures WHERE id = ?1)",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, a.id, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	assert_int_equal(callus_match_find(f->s, &mo, &a, &m2, &n2, NULL), 0);
	for (size_t i = 0; i < n2; i++)
		assert_false(!strcmp(m2[i].signature_id, b.id) && m2[i].similarity > 0.99);
	assert_true(n2 >= 1);
	callus_matches_free(m2, n2);
	/* c was never stored: made, and near a */
	assert_int_equal(callus_match_find(f->s, &mo, &c, &m2, &n2, NULL), 0);
	assert_true(n2 >= 1);
	callus_matches_free(m2, n2);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
}

/* Three jest errors of nothing alike. */
static const char *const three_errors[] = {
	"Cannot read properties of undefined (reading 'map')",
	"expect(received).toEqual(expected) deep equality",
	"Type 'string' is not assignable to type 'number'.",
};

/* A vector file removed (or damaged, or copied from elsewhere) is made
 * again from the store by the next recording that indexes a signature:
 * the vectors before it are found again. */
static void vector_file_behind_is_rebuilt(void **state)
{
	fixture *f = *state;
	callus_signature g[3];
	callus_vecindex *vi = NULL;
	char vec[128];
	size_t n;

	snprintf(vec, sizeof(vec), "%s/.callus/vectors-%s.bin", f->dir, CALLUS_EMBED_BUILTIN_MODEL);
	for (size_t i = 0; i < 3; i++)
		make_sig(&g[i], "jest", NULL, three_errors[i], NULL);
	store_sig(f, &g[0]);
	store_sig(f, &g[1]);
	assert_int_equal(callus_vecindex_remove(vec), 0);
	store_sig(f, &g[2]);
	assert_int_equal(callus_vecindex_open(&vi, vec, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
					    NULL, NULL),
			 0);
	assert_int_equal(callus_vecindex_count(vi), 3);
	callus_vecindex_close(vi);
	{
		callus_match_opts o = { .workspace = f->dir };
		callus_match *m = NULL;

		/* g[0] found by its vector, as another error would be */
		memset(g[0].id, '0', CALLUS_SHA256_HEX_LEN);
		assert_int_equal(callus_match_find(f->s, &o, &g[0], &m, &n, NULL), 0);
		assert_true(n >= 1);
		assert_int_equal(m[0].how, CALLUS_MATCH_VECTOR);
		assert_true(m[0].similarity > 0.99);
		callus_matches_free(m, n);
	}
	for (size_t i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
}

/* What the store matches for q: want alone, found by the regex fallback.
 * The one match is the caller's (callus_matches_free(m, 1)). */
static callus_match *the_regex_match(fixture *f, const callus_signature *q,
				     const callus_signature *want)
{
	callus_match *m = NULL;
	callus_match_opts mo;
	size_t n = 0;

	memset(&mo, 0, sizeof(mo));
	mo.workspace = f->dir;
	assert_int_equal(callus_match_find(f->s, &mo, q, &m, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(m[0].signature_id, want->id);
	assert_int_equal(m[0].how, CALLUS_MATCH_REGEX);
	return m;
}

/* The regex fallback reads a stored pattern the row does not keep (its
 * original makes it, schema 19): a message of another shape (a number
 * where the stored one had a path) that the pattern matches finds it so.
 * It fails when the pattern is not made again. */
static void regex_fallback_makes_the_pattern_a_row_omits(void **state)
{
	fixture *f = *state;
	callus_signature a, q;

	make_sig(&a, "node", NULL, "ENOENT: no such file or directory, open fixtures/data.json",
		 NULL);
	make_sig(&q, "node", NULL, "ENOENT: no such file or directory, open 404", NULL);
	assert_string_equal(a.error_type, q.error_type);
	assert_string_not_equal(a.id, q.id);
	store_sig(f, &a);
	assert_int_equal(int_of(f, "SELECT count(*) FROM signatures WHERE id = ?1"
				   " AND message_pattern = ''", a.id),
			 1);
	callus_matches_free(the_regex_match(f, &q, &a), 1);
	callus_signature_release(&a);
	callus_signature_release(&q);
}

/* The jest error the regex fallback's tests search with: a long message
 * (far from the stored ones for the vectors), a frame in src/boot.js. */
static void resolver_query(callus_signature *q)
{
	make_sig(q, "jest", NULL,
		 "Cannot find module 'x' from 'y' after trying every resolver listed in"
		 " moduleDirectories, roots, modulePaths and the haste map of this project",
		 "boot\tsrc/boot.js");
}

/* The regex fallback: a stored signature whose stack shares a named frame
 * with the new error's, too far from it for the vectors, is found and read
 * whole (its context scored); one of the same type without it is not.  a's
 * literal runs are not all in q's message: its sketch's sign (stack
 * patterns) has it read; it fails when a recording leaves the sign out or
 * the fallback ignores it. */
static void regex_fallback_finds_what_vectors_miss(void **state)
{
	fixture *f = *state;
	callus_signature a, other, q;
	callus_match *m;

	make_sig(&a, "jest", NULL, "Cannot find module 'x' from 'y' while booting the loader",
		 "boot\tsrc/boot.js");
	make_sig(&other, "jest", NULL, "Cannot find module 'x' from 'y' (checked 2 paths)",
		 "start\tsrc/start.js");
	resolver_query(&q);
	assert_string_equal(a.error_type, q.error_type);
	assert_string_equal(other.error_type, q.error_type);
	assert_true(similarity(&a, &q) < CALLUS_MATCH_THRESHOLD);
	assert_true(similarity(&other, &q) < CALLUS_MATCH_THRESHOLD);
	store_sig(f, &other);
	store_sig(f, &a);
	assert_true(int_of(f, "SELECT sketch < 0 FROM signatures WHERE id = ?1", a.id));
	assert_false(callus_sketch_may_match(
		int_of(f, "SELECT sketch FROM signatures WHERE id = ?1", a.id),
		callus_message_mask(q.original), 0));
	m = the_regex_match(f, &q, &a);
	assert_true(m[0].context_score ==
		    callus_match_context_score(&q.context_patterns, &a.context_patterns));
	callus_matches_free(m, 1);
	callus_signature_release(&a);
	callus_signature_release(&other);
	callus_signature_release(&q);
}

/* A shared frame alone is no evidence across kinds of message: parse()
 * raising ValueError for an int() literal and for a math domain is two
 * errors (found by an outside review: the one fix was shown for the
 * other); the same first word still is. */
static void regex_fallback_frame_needs_the_same_kind(void **state)
{
	fixture *f = *state;
	callus_signature a, q, same;
	callus_match *m = NULL;
	callus_match_opts mo;
	size_t n = 0;

	make_sig(&a, "unittest", "ValueError", "invalid literal for int() with base 10: '4.0'",
		 "parse\tv.py");
	make_sig(&q, "unittest", "ValueError", "math domain error", "parse\tv.py");
	assert_string_equal(a.error_type, q.error_type);
	assert_true(similarity(&a, &q) < CALLUS_MATCH_THRESHOLD);
	store_sig(f, &a);
	memset(&mo, 0, sizeof(mo));
	mo.workspace = f->dir;
	assert_int_equal(callus_match_find(f->s, &mo, &q, &m, &n, NULL), 0);
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(m[i].signature_id, a.id);
	callus_matches_free(m, n);
	/* the same kind of sentence, its value beyond the normalization */
	make_sig(&same, "unittest", "ValueError", "invalid literal for Decimal: 'x' in column 3",
		 "parse\tv.py");
	m = the_regex_match(f, &same, &a);
	callus_matches_free(m, 1);
	callus_signature_release(&a);
	callus_signature_release(&q);
	callus_signature_release(&same);
}

/* Whether a search of q (with cands, may be NULL) finds want by the regex
 * fallback. */
static int regex_finds(fixture *f, callus_match_candidates *cands, const callus_signature *q,
		       const callus_signature *want)
{
	callus_match *m = NULL;
	callus_match_opts mo;
	size_t n = 0;
	int found = 0;

	memset(&mo, 0, sizeof(mo));
	mo.workspace = f->dir;
	mo.candidates = cands;
	assert_int_equal(callus_match_find(f->s, &mo, q, &m, &n, NULL), 0);
	for (size_t i = 0; i < n; i++)
		found |= !strcmp(m[i].signature_id, want->id) && m[i].how == CALLUS_MATCH_REGEX;
	callus_matches_free(m, n);
	return found;
}

/* A filler of q's error type, recorded at minute i of a day: no word of
 * it in q's message, no frame of q's. */
static void store_filler(fixture *f, int i)
{
	callus_signature g;
	char msg[128], frame[96], when[32];

	snprintf(msg, sizeof(msg), "Cannot find module 'x' from 'y' (filler %s)", word(i, 0));
	snprintf(frame, sizeof(frame), "%s\tsrc/%s.js", word(i, 0), word(i, 1));
	snprintf(when, sizeof(when), "2026-01-01T%02d:%02d:00Z", 1 + i / 60, i % 60);
	make_sig(&g, "jest", NULL, msg, frame);
	store_sig_at(f, &g, NULL, when);
	callus_signature_release(&g);
}

/* Run q on f's store, failing the test when it fails. */
static void exec_sql(fixture *f, const char *q)
{
	char *msg = NULL;

	if (sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", q, msg);
}

/* The same for one statement whose ?1 is blob[0..len). */
static void exec_blob(fixture *f, const char *q, const void *blob, size_t len)
{
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s), q, -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_blob(st, 1, blob, (int)len, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* What a recording in another process does while doctor reads: stores
 * and indexes its signature through a connection of its own, once, as
 * the check's read of the store's vectors begins. */
typedef struct racer {
	fixture *f;
	const callus_signature *g;
	int done;
} racer;

static int race_at_the_read(unsigned type, void *ctx, void *stmt, void *x)
{
	racer *r = ctx;
	const char *sql = sqlite3_sql(stmt);

	(void)x;
	if (type == SQLITE_TRACE_STMT && !r->done && sql &&
	    !strcmp(sql, CALLUS_MATCH_BUILTIN_VECTORS)) {
		fixture other = *r->f;

		r->done = 1;
		other.s = NULL;
		assert_int_equal(callus_store_open(&other.s, r->f->path, 5000, NULL), 0);
		store_sig(&other, r->g);
		callus_store_close(other.s);
	}
	return 0;
}

/*
 * A recording that commits while doctor reads the vector file is no
 * vector missing: the check takes the store's snapshot before it opens
 * the file (a writer appends to the file before it commits), where it
 * opened the file and then read the store, which then held a vector the
 * file it had opened did not.
 */
static void a_recording_while_doctor_reads(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_match_file_state st;
	racer r = { f, &b, 0 };

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "mocha", NULL, "TypeError: Cannot read properties of undefined (reading 'x')",
		 "render\tsrc/view.js");
	store_sig(f, &a);
	sqlite3_trace_v2(callus_store_db(f->s), SQLITE_TRACE_STMT, race_at_the_read, &r);
	assert_int_equal(callus_match_file_check(f->s, f->dir, CALLUS_MATCH_FILE_BUILTIN, NULL, 0,
						 &st, NULL),
			 0);
	sqlite3_trace_v2(callus_store_db(f->s), 0, NULL, NULL);
	assert_int_equal(r.done, 1);
	assert_int_equal(st.missing, 0);
	assert_int_equal(st.stored, 1);
	/* the recording is there for the next check */
	assert_int_equal(callus_match_file_check(f->s, f->dir, CALLUS_MATCH_FILE_BUILTIN, NULL, 0,
						 &st, NULL),
			 0);
	assert_int_equal(st.stored, 2);
	assert_int_equal(st.have, 2);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* callus_match_file_check of one kind: its return, its state in *st. */
static int file_check(fixture *f, callus_match_file_kind kind, const char *model, int fix,
		      callus_match_file_state *st)
{
	return callus_match_file_check(f->s, f->dir, kind, model, fix, st, NULL);
}

/* One byte of the first record's components in the file at path changed
 * in place (a header of 80 bytes, a record's id and scale 12). */
static void damage_first_record(const char *path)
{
	int fd = open(path, O_RDWR);
	unsigned char b;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &b, 1, 80 + 12 + 3), 1);
	b = (unsigned char)(b + 3);
	assert_int_equal(pwrite(fd, &b, 1, 80 + 12 + 3), 1);
	close(fd);
}

/* a's fix (src/sum.js's sign) made a note: the noted signatures' file made
 * (its path in noted), and checked in step (st). */
static void fix_noted(fixture *f, const callus_signature *a, callus_buf *noted,
		      callus_match_file_state *st)
{
	resolve_with(f, a, "a",
		     "diff --git a/src/sum.js b/src/sum.js\n--- a/src/sum.js\n+++ b/src/sum.js\n"
		     "@@ -1,1 +1,1 @@\n-  return a - b;\n+  return a + b;\n");
	assert_int_equal(callus_notes_vectors_fresh(f->s, noted, NULL), 0);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, st), 0);
}

/*
 * The noted signatures' file and an external model's are read record by
 * record as the built-in one is (callus doctor): a signature that two
 * notes hold has a record for each, judged once; a damaged record found,
 * and written again with fix; an external model's floats compared as an
 * append quantizes them.
 */
static void every_vector_file_checked(void **state)
{
	fixture *f = *state;
	callus_signature a;
	callus_match_file_state st;
	callus_buf noted = CALLUS_BUF_INIT, ext = CALLUS_BUF_INIT;
	char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
	float v[8];

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	store_sig(f, &a);
	/* no note yet: no noted file, nothing to check */
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, &st), 0);
	assert_int_equal(st.present, 0);
	fix_noted(f, &a, &noted, &st);
	assert_int_equal(st.present, 1);
	assert_int_equal(st.stored, 1);
	assert_int_equal(st.have, 1);
	assert_string_equal(st.file, "vectors-callus-builtin-1.noted.bin");
	/* the team's cached note of the same signature: a second record */
	exec_sql(f, "INSERT INTO note_cache (layer, id, revision, signature_id, title, pulled_at)"
		    " SELECT 'team', 'n1', 1, id, 't', '2026-12-01T00:00:00Z' FROM signatures");
	callus_notes_vectors_add(f->s, a.id);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, &st), 0);
	assert_int_equal(st.stored, 2);
	assert_int_equal(st.have, 2);
	assert_int_equal(st.missing, 0);
	/* one damaged beside a good one: the vector is there (only the
	 * sketch made of the record before it changed says so) */
	damage_first_record(noted.ptr);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, &st), 1);
	assert_int_equal(st.missing, 0);
	assert_int_equal(st.damaged, 0);
	assert_int_equal(st.derived, 1);
	/* a signature with a single record, damaged: found, and fixed */
	exec_sql(f, "DELETE FROM note_cache");
	assert_int_equal(callus_vecindex_remove(noted.ptr), 0);
	assert_int_equal(callus_notes_vectors_fresh(f->s, &noted, NULL), 0);
	damage_first_record(noted.ptr);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, &st), 1);
	assert_int_equal(st.missing, 1);
	assert_int_equal(st.damaged, 1);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 1, &st), 1);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, &st), 0);
	assert_int_equal(st.have, 1);

	/* an external model: none stored, nothing to check */
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_EXTERNAL, "ext:m", 0, &st), 0);
	assert_int_equal(st.stored, 0);
	for (size_t i = 0; i < 8; i++)
		v[i] = (float)(i + 1) / 10.0f;
	exec_sql(f, "INSERT INTO vector_models (name) VALUES ('ext:m')");
	exec_blob(f,
		  "INSERT INTO signature_vectors (sig, model, vector)"
		  " SELECT (SELECT max(rowid) FROM signatures), id, ?1 FROM vector_models"
		  " WHERE name = 'ext:m'",
		  v, sizeof(v));
	/* stored, with no file: missing */
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_EXTERNAL, "ext:m", 0, &st), 1);
	assert_int_equal(st.stored, 1);
	assert_int_equal(st.missing, 1);
	assert_int_equal(st.present, 0);
	/* as an append writes it: in step */
	assert_int_equal(callus_match_vector_name(name, "ext:m"), 0);
	assert_int_equal(callus_match_vector_path(&ext, f->dir, name), 0);
	{
		int64_t id = callus_store_query_int(f->s, "SELECT max(rowid) FROM signatures");

		assert_int_equal(callus_vecindex_append(ext.ptr, name, 8, &id, v, 1, NULL), 0);
	}
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_EXTERNAL, "ext:m", 0, &st), 0);
	assert_int_equal(st.have, 1);
	assert_int_equal(strncmp(st.file, "vectors-ext-", 12), 0);
	damage_first_record(ext.ptr);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_EXTERNAL, "ext:m", 1, &st), 1);
	assert_int_equal(st.damaged, 1);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_EXTERNAL, "ext:m", 0, &st), 0);
	assert_int_equal(st.have, 1);
	/* a stored vector no file holds (not normalized: a damaged blob) is
	 * said as such, not as a record missing that --fix would put back:
	 * the rewrite leaves it out and the check agrees after it */
	v[0] = 5.0f;
	exec_blob(f,
		  "UPDATE signature_vectors SET vector = ?1"
		  " WHERE model = (SELECT id FROM vector_models WHERE name = 'ext:m')",
		  v, sizeof(v));
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_EXTERNAL, "ext:m", 1, &st), 1);
	assert_int_equal(st.unreadable, 1);
	assert_int_equal(st.missing, 0);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_EXTERNAL, "ext:m", 0, &st), 1);
	assert_int_equal(st.unreadable, 1);
	assert_int_equal(st.missing, 0);

	callus_buf_release(&noted);
	callus_buf_release(&ext);
	callus_signature_release(&a);
}

/* A vector file's missing sketch and postings: said by doctor's check,
 * which makes them only with fix, and says so. */
static void missing_sketches_are_made_by_fix_alone(void **state)
{
	fixture *f = *state;
	callus_match_file_state st;
	char *vec = NULL, sk[256], po[256];
	struct stat sb;

	pad_vector_file(f, 300);
	vec = vectors_path(f);
	snprintf(sk, sizeof(sk), "%s.sketch", vec);
	snprintf(po, sizeof(po), "%s.post", vec);
	assert_int_equal(stat(sk, &sb), 0);
	assert_int_equal(unlink(sk), 0);
	(void)unlink(po);
	(void)file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st);
	assert_int_equal(st.have, 300);
	assert_int_equal(st.derived_absent, 1);
	assert_int_not_equal(stat(sk, &sb), 0);
	(void)file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 1, &st);
	assert_int_equal(st.derived_absent, 1);
	assert_int_equal(stat(sk, &sb), 0);
	(void)file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st);
	assert_int_equal(st.derived_absent, 0);
	free(vec);
}

static int refuse_commit(void *arg)
{
	(*(int *)arg)++;
	return 1;
}

/* A reindex whose commit is refused, after it renamed its file in. */
static void reindex_refused(fixture *f)
{
	int refused = 0;

	sqlite3_commit_hook(callus_store_db(f->s), refuse_commit, &refused);
	assert_true(callus_match_reindex(f->s, f->dir, NULL, NULL) < 0);
	sqlite3_commit_hook(callus_store_db(f->s), NULL, NULL);
	assert_int_equal(refused, 1);
}

static int mark_there(fixture *f)
{
	char *vec = vectors_path(f), mark[256];
	struct stat st;

	snprintf(mark, sizeof(mark), "%s.reindex", vec);
	free(vec);
	return lstat(mark, &st) == 0;
}

/*
 * A reindex renames its file in before its commit: cut between the two,
 * the file holds vectors the store rolled back, as many as the store's.
 * Its mark says so: the next search that may write (and doctor --fix)
 * writes the file again from the store.  One signature's stored vector is
 * another's here, so that the reindex's differs from it.
 */
static void a_cut_reindex_is_written_again(void **state)
{
	fixture *f = *state;
	callus_signature g[3];
	callus_match_file_state st;
	callus_match_opts o = { .workspace = f->dir };
	callus_match *m = NULL;
	size_t n = 0;

	for (size_t i = 0; i < 3; i++) {
		make_sig(&g[i], "jest", NULL, three_errors[i], NULL);
		store_sig(f, &g[i]);
	}
	exec_sql(f, "UPDATE signature_vectors SET vector = (SELECT vector FROM signature_vectors"
		    " WHERE sig = (SELECT max(sig) FROM signature_vectors))"
		    " WHERE sig = (SELECT min(sig) FROM signature_vectors)");
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 1, &st), 1);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st), 0);

	/* cut: the file is the reindex's, the store as before */
	reindex_refused(f);
	assert_true(mark_there(f));
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st), 1);
	assert_int_equal(st.reindex_cut, 1);
	assert_int_equal(st.have, 3);
	assert_true(st.damaged >= 1);
	/* a search of the store's own file (callus suggest) mends it */
	assert_int_equal(callus_match_find(f->s, &o, &g[1], &m, &n, NULL), 0);
	callus_matches_free(m, n);
	assert_false(mark_there(f));
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st), 0);
	assert_int_equal(st.reindex_cut, 0);
	assert_int_equal(st.damaged, 0);

	/* cut again: doctor --fix mends it, and takes the mark off */
	reindex_refused(f);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 1, &st), 1);
	assert_int_equal(st.reindex_cut, 1);
	assert_false(mark_there(f));
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st), 0);

	/* cut again, then a reindex whose rewrite fails (a folder where its
	 * file is renamed to): the cut one's mark stays; a run's opening of
	 * the file for its searches mends it */
	reindex_refused(f);
	{
		char *vec = vectors_path(f), moved[256];
		callus_vecindex *vi = NULL;

		snprintf(moved, sizeof(moved), "%s.kept", vec);
		assert_int_equal(rename(vec, moved), 0);
		assert_int_equal(mkdir(vec, 0700), 0);
		assert_true(callus_match_reindex(f->s, f->dir, NULL, NULL) < 0);
		assert_int_equal(rmdir(vec), 0);
		assert_int_equal(rename(moved, vec), 0);
		assert_true(mark_there(f));
		callus_match_index_open(f->s, &vi, f->dir);
		assert_non_null(vi);
		assert_int_equal(callus_vecindex_count(vi), 3);
		callus_vecindex_close(vi);
		free(vec);
	}
	assert_false(mark_there(f));
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st), 0);

	/* a reindex that commits leaves no mark, and a file in step */
	assert_int_equal(callus_match_reindex(f->s, f->dir, NULL, NULL), 0);
	assert_false(mark_there(f));
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st), 0);

	/* a folder at the mark's name is no mark: no unlink takes it off,
	 * and every search would write the file again; a reindex cannot
	 * mark the file, and fails */
	{
		char *vec = vectors_path(f), mark[256];
		struct stat before, after;

		snprintf(mark, sizeof(mark), "%s.reindex", vec);
		assert_int_equal(mkdir(mark, 0700), 0);
		assert_int_equal(stat(vec, &before), 0);
		assert_int_equal(callus_match_find(f->s, &o, &g[1], &m, &n, NULL), 0);
		callus_matches_free(m, n);
		assert_int_equal(stat(vec, &after), 0);
		assert_true(before.st_ino == after.st_ino);
		assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 0, &st), 0);
		assert_int_equal(st.reindex_cut, 0);
		assert_true(callus_match_reindex(f->s, f->dir, NULL, NULL) < 0);
		assert_int_equal(stat(vec, &after), 0);
		assert_true(before.st_ino == after.st_ino);
		assert_int_equal(rmdir(mark), 0);
		free(vec);
	}
	for (size_t i = 0; i < 3; i++)
		callus_signature_release(&g[i]);
}

/*
 * A reindex killed after its commit, before it removed the noted
 * signatures' file, left that file holding the vectors from before (the
 * store's vector of the noted signature is another's here) and its mark:
 * the file's next reader removes it first, and makes it again from the
 * store.
 */
static void a_reindex_killed_after_its_commit_leaves_no_stale_noted_file(void **state)
{
	fixture *f = *state;
	callus_signature a, b;
	callus_match_file_state st;
	callus_buf noted = CALLUS_BUF_INIT;
	char *vec, mark[256];
	FILE *m;

	make_sig(&a, "jest", NULL, "expect(received).toBe(expected) Expected: 4 Received: 3",
		 "add\tsrc/sum.js");
	make_sig(&b, "jest", NULL, "Cannot find module './sum' from 'src/sum.test.js'", NULL);
	store_sig(f, &a);
	store_sig(f, &b);
	fix_noted(f, &a, &noted, &st);
	assert_int_equal(st.have, 1);
	/* what the commit left: the store's vectors new, the file old */
	exec_sql(f, "UPDATE signature_vectors SET vector = (SELECT v.vector FROM signature_vectors v"
		    " JOIN signatures g ON g.rowid = v.sig WHERE g.original LIKE 'Cannot find%')"
		    " WHERE sig IN (SELECT g.rowid FROM signatures g JOIN note_signatures x"
		    " ON x.signature_id = g.id)");
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_BUILTIN, NULL, 1, &st), 1);
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, &st), 1);
	assert_int_equal(st.damaged, 1);
	vec = vectors_path(f);
	snprintf(mark, sizeof(mark), "%s.reindex", vec);
	free(vec);
	assert_non_null(m = fopen(mark, "w"));
	fclose(m);
	/* the noted file's next reader */
	assert_int_equal(callus_notes_vectors_fresh(f->s, &noted, NULL), 0);
	assert_false(mark_there(f));
	assert_int_equal(file_check(f, CALLUS_MATCH_FILE_NOTED, NULL, 0, &st), 0);
	assert_int_equal(st.have, 1);
	assert_int_equal(st.damaged, 0);
	callus_buf_release(&noted);
	callus_signature_release(&a);
	callus_signature_release(&b);
}

/* How many models' count of their aliases' vectors is not what the rows
 * say (the join the triggers keep it for), after each step. */
static int64_t aliased_drift(fixture *f)
{
	return int_of(f,
		      "SELECT count(*) FROM vector_models m WHERE m.aliased <> (SELECT count(*)"
		      " FROM signature_links l JOIN signatures g ON g.id = l.alias_id"
		      " JOIN signature_vectors v ON v.sig = g.rowid WHERE v.model = m.id)"
		      " OR ?1 IS NULL",
		      "");
}

/* The built-in vectors callus_match_count_vectors() counts, and of how
 * many signatures, against the join it no longer reads. */
static void assert_vectors_counted(fixture *f, const char *model)
{
	int64_t with = -1, all = -1;
	int drifted = -1;
	char *q = sqlite3_mprintf("SELECT (SELECT count(*) FROM signature_vectors v"
				  " JOIN vector_models m ON m.id = v.model WHERE m.name = %Q"
				  " AND NOT EXISTS (SELECT 1 FROM signatures g JOIN signature_links l"
				  " ON l.alias_id = g.id WHERE g.rowid = v.sig)) * 1000000"
				  " + (SELECT count(*) FROM signatures g WHERE NOT EXISTS (SELECT 1"
				  " FROM signature_links l WHERE l.alias_id = g.id)) + 0 * length(?1)",
				  model);

	assert_int_equal(aliased_drift(f), 0);
	/* as callus doctor finds them: its count from the rows agrees */
	assert_int_equal(callus_store_totals_check(f->s, 0, &drifted, NULL), 0);
	assert_false(drifted);
	assert_int_equal(callus_match_count_vectors(f->s, model, &with, &all, NULL), 0);
	assert_int_equal(with * 1000000 + all, int_of(f, q, ""));
	sqlite3_free(q);
}

/*
 * `callus status` counts the signatures with a vector less the linked
 * ones from vector_models (schema 41), kept by triggers as links and
 * vectors come and go: a merge, a near-duplicate's link, a vector of
 * another model, a link removed, an alias renamed then its links moved
 * (store_resign.c's order), a store of schema 40 migrated, an alias
 * removed with its vectors, each checked against the rows.
 */
static void the_aliases_vectors_are_counted_as_they_change(void **state)
{
	fixture *f = *state;
	callus_signature a, b, c, d;
	char *q;

	make_sig(&a, "tsc", "TS2322", "Type 'string' is not assignable to type 'number'.", NULL);
	make_sig(&b, "tsc", "TS2304", "Cannot find name 'process'.", NULL);
	make_sig(&c, "tsc", "TS2339", "Property 'total' does not exist on type 'Order'.", NULL);
	make_sig(&d, "tsc", "TS2554", "Expected 2 arguments, but got 1.", NULL);
	store_sig(f, &a);
	store_sig(f, &b);
	store_sig(f, &c);
	store_sig(f, &d);
	assert_int_equal(int_of(f, "SELECT count(*) FROM signature_vectors WHERE ?1 IS NOT NULL",
				""),
			 4);
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	/* b merged into a, d a near-duplicate of c */
	assert_int_equal(callus_match_merge(f->s, a.id, b.id, NULL, NULL), 0);
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	assert_int_equal(int_of(f, "SELECT aliased FROM vector_models WHERE name = ?1",
				CALLUS_EMBED_BUILTIN_MODEL),
			 1);
	q = sqlite3_mprintf("INSERT INTO signature_links (alias_id, canonical_id, similarity,"
			    " reason, linked_at) VALUES (%Q, %Q, 0.95, 'duplicate', '2026-01-01')",
			    d.id, c.id);
	exec_sql(f, q);
	sqlite3_free(q);
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	/* another model's vector of an alias, then of a signature of no link */
	exec_sql(f, "INSERT INTO vector_models (name) VALUES ('remote-model')");
	q = sqlite3_mprintf("INSERT INTO signature_vectors (sig, model, vector) SELECT g.rowid,"
			    " m.id, x'00' FROM signatures g, vector_models m"
			    " WHERE g.id IN (%Q, %Q) AND m.name = 'remote-model'",
			    d.id, c.id);
	exec_sql(f, q);
	sqlite3_free(q);
	assert_vectors_counted(f, "remote-model");
	assert_int_equal(int_of(f, "SELECT aliased FROM vector_models WHERE name = ?1",
				"remote-model"),
			 1);
	/* the link of d removed, then d's vector of that model */
	q = sqlite3_mprintf("DELETE FROM signature_links WHERE alias_id = %Q", d.id);
	exec_sql(f, q);
	sqlite3_free(q);
	assert_vectors_counted(f, "remote-model");
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	q = sqlite3_mprintf("INSERT INTO signature_links (alias_id, canonical_id, similarity,"
			    " reason, linked_at) VALUES (%Q, %Q, 0.95, 'duplicate', '2026-01-01');"
			    "DELETE FROM signature_vectors WHERE sig = (SELECT rowid FROM signatures"
			    " WHERE id = %Q) AND model = (SELECT id FROM vector_models"
			    " WHERE name = 'remote-model')",
			    d.id, c.id, d.id);
	exec_sql(f, q);
	sqlite3_free(q);
	assert_vectors_counted(f, "remote-model");
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	/* an alias renamed, then its link moved to the new name, in one
	 * transaction checked at its commit (store_resign.c) */
	q = sqlite3_mprintf("BEGIN; PRAGMA defer_foreign_keys = ON;"
			    "UPDATE signatures SET id = 'renamed-b' WHERE id = %Q;", b.id);
	exec_sql(f, q);
	sqlite3_free(q);
	assert_int_equal(aliased_drift(f), 0);
	q = sqlite3_mprintf("UPDATE signature_links SET alias_id = 'renamed-b' WHERE alias_id = %Q;"
			    "COMMIT;",
			    b.id);
	exec_sql(f, q);
	sqlite3_free(q);
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	/* a store of schema 40 has them counted from its rows */
	exec_sql(f, TEST_AS_BEFORE_41 "PRAGMA user_version = 40");
	callus_store_close(f->s);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(int_of(f, "SELECT aliased FROM vector_models WHERE name = ?1",
				CALLUS_EMBED_BUILTIN_MODEL),
			 2);
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	assert_vectors_counted(f, "remote-model");
	/* an alias removed: its vectors before it, its links after */
	exec_sql(f, "DELETE FROM signatures WHERE id = 'renamed-b'");
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	assert_int_equal(int_of(f, "SELECT aliased FROM vector_models WHERE name = ?1",
				CALLUS_EMBED_BUILTIN_MODEL),
			 1);
	q = sqlite3_mprintf("DELETE FROM signatures WHERE id = %Q", c.id);
	exec_sql(f, q);
	sqlite3_free(q);
	assert_vectors_counted(f, CALLUS_EMBED_BUILTIN_MODEL);
	assert_vectors_counted(f, "remote-model");
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_signature_release(&c);
	callus_signature_release(&d);
}

/* Schema 42: ld's `name' is a quoted value, and a row of schema 41
 * whose original makes another pattern now keeps the one its id was made
 * of (signature.h): loaded, it is what it was; another row is left as it
 * is.  Fails when the migration writes nothing out. */
static void schema_42_keeps_the_patterns_ids_were_made_of(void **state)
{
	static const char *const olds[] = {
		"undefined reference to `helper'",
		"\xe2\x80\x98struct T\xe2\x80\x99 has no member named \xe2\x80\x98" "cont\xe2\x80\x99;"
		" did you mean \xe2\x80\x98" "count\xe2\x80\x99?",
	};
	fixture *f = *state;
	callus_signature ld[2], plain;
	callus_buf old[2] = { CALLUS_BUF_INIT, CALLUS_BUF_INIT }, loaded = CALLUS_BUF_INIT;
	char old_id[2][CALLUS_SHA256_HEX_LEN + 1];
	sqlite3_stmt *st = NULL;
	char *q;

	make_sig(&plain, "gcc", NULL, "unknown option 'fast'", NULL);
	store_sig(f, &plain);
	for (int k = 0; k < 2; k++) {
		make_sig(&ld[k], "gcc", NULL, olds[k], NULL);
		assert_int_equal(callus_message_pattern_v41(&old[k], ld[k].original,
							  strlen(ld[k].original)),
				 0);
		assert_string_not_equal(old[k].ptr, ld[k].message_pattern);
		assert_int_equal(callus_signature_id(old_id[k], ld[k].error_type, old[k].ptr,
						   &ld[k].stack_patterns),
				 0);
		store_sig(f, &ld[k]);
		/* as schema 41 stored it: its id of the old pattern, no pattern
		 * kept */
		q = sqlite3_mprintf("UPDATE signatures SET id = %Q, message_pattern = ''"
				    " WHERE id = %Q",
				    old_id[k], ld[k].id);
		exec_sql(f, q);
		sqlite3_free(q);
	}
	exec_sql(f, TEST_AS_BEFORE_45 "PRAGMA user_version = 41");
	callus_store_close(f->s);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "SELECT message_pattern, original FROM signatures"
					    " WHERE id = ?1",
					    -1, &st, NULL),
			 SQLITE_OK);
	for (int k = 0; k < 2; k++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, old_id[k], -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0), old[k].ptr);
		callus_buf_clear(&loaded);
		assert_int_equal(callus_signature_pattern_load(
					 &loaded, (const char *)sqlite3_column_text(st, 0),
					 (const char *)sqlite3_column_text(st, 1)),
				 0);
		assert_string_equal(loaded.ptr, old[k].ptr);
		callus_buf_release(&old[k]);
		callus_signature_release(&ld[k]);
	}
	sqlite3_finalize(st);
	assert_int_equal(int_of(f, "SELECT count(*) FROM signatures WHERE id = ?1"
				   " AND message_pattern = ''",
				plain.id),
			 1);
	callus_buf_release(&loaded);
	callus_signature_release(&plain);
}

/* The rowid of f's signature id. */
static sqlite3_int64 rowid_of(fixture *f, const char *id)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 r;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "SELECT rowid FROM signatures WHERE id = ?1", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	r = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return r;
}

/* c's rows of type, max asked: n of them, the first first (NULL: any). */
static void assert_rows(fixture *f, callus_match_candidates *c, const char *type, size_t max,
			size_t n, const char *first)
{
	callus_match_candidate *rows;
	size_t got;

	assert_int_equal(callus_match_candidates_get(c, f->s, type, max, &rows, &got), SQLITE_OK);
	assert_int_equal(got, n);
	if (first)
		assert_int_equal(rows[0].rowid, rowid_of(f, first));
}

/* A row's literal runs made at its first search and kept for the next,
 * answering as callus_message_may_match does of its original. */
static void candidate_runs_kept(void **state)
{
	static const char *const originals[] = {
		"'price' is assigned a value but never used",
		"Type 'boolean' is not assignable to type 'number'.",
		"",
	};
	static const char *const msgs[] = {
		"'cost' is assigned a value but never used",
		"Type 'string' is not assignable to type 'never'.",
		"'cost' is declared but never read",
		"",
	};
	size_t yes = 0, no = 0;

	(void)state;
	for (size_t o = 0; o < sizeof(originals) / sizeof(*originals); o++) {
		callus_match_candidate row = { .rowid = 1, .sketch = 0, .runs = NULL };
		char *kept = NULL;

		for (size_t m = 0; m < sizeof(msgs) / sizeof(*msgs); m++) {
			int said = callus_message_may_match(originals[o], msgs[m]);

			assert_int_equal(callus_match_candidate_may_match(&row, originals[o], msgs[m]),
					 said);
			yes += said == 1;
			no += said == 0;
			assert_non_null(row.runs);
			if (kept)
				assert_ptr_equal(row.runs, kept);
			kept = row.runs;
		}
		/* kept, not made again: runs put in their place are the ones
		 * asked */
		free(row.runs);
		assert_non_null(row.runs = calloc(1, 5));
		memcpy(row.runs, "zqx", 3);
		assert_int_equal(callus_match_candidate_may_match(&row, originals[o], msgs[0]), 0);
		free(row.runs);
	}
	assert_true(yes >= 2 && no >= 2);
}

/* A type's rows kept for fewer than asked are read again, unless the type
 * held fewer than were asked then; rows changed in place (the store's
 * count of signatures the same) are seen once the rows are cleared: what
 * callus_match_candidates_get gives of q's type (q the newest, then a made
 * newer) and of e1's (e1 alone, then a row of q's type moved to it). */
static void rows_read_again_only_when_short(fixture *f, const callus_signature *q,
					    const callus_signature *a, const callus_signature *e1)
{
	callus_match_candidates *c = NULL;
	callus_match_candidate *rows;
	char sql[512];
	size_t n;

	assert_int_equal(callus_match_candidates_new(&c), 0);
	assert_rows(f, c, q->error_type, 5, 5, q->id);
	assert_rows(f, c, e1->error_type, 5, 1, NULL);
	snprintf(sql, sizeof(sql),
		 "UPDATE signatures SET last_seen = (SELECT max(last_seen) + 1 FROM signatures)"
		 " WHERE id = '%s'; UPDATE signatures SET error_type = '%s' WHERE rowid ="
		 " (SELECT min(rowid) FROM signatures WHERE error_type = '%s' AND id NOT IN"
		 " ('%s', '%s'))",
		 a->id, e1->error_type, q->error_type, q->id, a->id);
	exec_sql(f, sql);
	/* fewer asked: the rows kept */
	assert_rows(f, c, q->error_type, 3, 3, q->id);
	/* more asked: read again, a first */
	assert_int_equal(callus_match_candidates_get(c, f->s, q->error_type, 10, &rows, &n),
			 SQLITE_OK);
	assert_int_equal(n, 10);
	assert_int_equal(rows[0].rowid, rowid_of(f, a->id));
	assert_int_equal(rows[1].rowid, rowid_of(f, q->id));
	/* more asked of a type that had fewer: kept as read, until cleared */
	assert_rows(f, c, e1->error_type, 10, 1, e1->id);
	callus_match_candidates_clear(c);
	assert_rows(f, c, e1->error_type, 10, 2, NULL);
	callus_match_candidates_free(c);
}

/*
 * The regex fallback's rows kept across searches (callus_match_candidates):
 * the newest 200 of the type besides the query's own, as each search read
 * them; read again once a signature is stored after; kept by type.  a, the
 * one q's stack finds, is the 201st row of its type with q's own among
 * them, then the 201st without: found, then not, with the rows kept or
 * not.
 */
static void regex_rows_kept_across_searches(void **state)
{
	fixture *f = *state;
	callus_match_candidates *cands = NULL;
	callus_signature a, q, e1, e2;

	make_sig(&a, "jest", NULL, "Cannot find module 'x' from 'y'", "boot\tsrc/boot.js");
	resolver_query(&q);
	make_sig(&e1, "jest", NULL, "RangeError: Invalid array length", "calc\tsrc/calc.js");
	make_sig(&e2, "jest", NULL,
		 "RangeError: Maximum call stack size exceeded while rendering the tree of"
		 " components, hooks, providers and the contexts of this project",
		 "calc\tsrc/calc.js");
	assert_string_not_equal(a.error_type, e1.error_type);
	assert_string_equal(e1.error_type, e2.error_type);
	store_sig_at(f, &a, NULL, "2026-01-01T00:00:00Z");
	store_sig_at(f, &e1, NULL, "2026-01-01T00:00:00Z");
	for (int i = 0; i < 199; i++)
		store_filler(f, i);
	store_sig_at(f, &q, NULL, "2026-01-02T00:00:00Z");
	assert_true(regex_finds(f, NULL, &q, &a));
	assert_int_equal(callus_match_candidates_new(&cands), 0);
	assert_true(regex_finds(f, cands, &q, &a));
	/* another type, kept beside the first */
	assert_true(regex_finds(f, cands, &e2, &e1));
	assert_true(regex_finds(f, cands, &q, &a));
	/* one filler more: a is past the 200 tried, for the rows kept too
	 * (the store's count of signatures moved: read again) */
	store_filler(f, 199);
	assert_false(regex_finds(f, NULL, &q, &a));
	assert_false(regex_finds(f, cands, &q, &a));
	assert_true(regex_finds(f, cands, &e2, &e1));
	callus_match_candidates_free(cands);
	rows_read_again_only_when_short(f, &q, &a, &e1);
	callus_signature_release(&a);
	callus_signature_release(&q);
	callus_signature_release(&e1);
	callus_signature_release(&e2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(candidate_runs_kept),
		cmocka_unit_test_setup_teardown(indexing_is_once, setup, teardown),
		cmocka_unit_test_setup_teardown(a_reindex_weighs_each_with_those_before, setup,
						teardown),
		cmocka_unit_test_setup_teardown(the_aliases_vectors_are_counted_as_they_change, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_batch_is_weighed_as_each_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(a_large_batch_is_weighed_as_each_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(one_run_two_alike_fixes_one_note, setup, teardown),
		cmocka_unit_test_setup_teardown(similar_gets_the_fix_unrelated_gets_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(searches_are_measured, setup, teardown),
		cmocka_unit_test_setup_teardown(near_duplicates_are_linked, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicate_linked_after_its_note, setup, teardown),
		cmocka_unit_test_setup_teardown(a_number_given_again_lends_no_similarity, setup,
						teardown),
		cmocka_unit_test_setup_teardown(merges_never_chain, setup, teardown),
		cmocka_unit_test_setup_teardown(the_best_of_many_fixes_as_all_ranked, setup, teardown),
		cmocka_unit_test_setup_teardown(the_best_of_fixes_over_time_without_reading_them_all,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_notes_fixes_are_read_from_the_indexes_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_notes_sums_and_best_follow_its_fixes, setup,
						teardown),
		cmocka_unit_test_setup_teardown(schema_37_sums_every_note_once, setup, teardown),
		cmocka_unit_test_setup_teardown(a_vector_file_lost_is_made_again_or_done_without,
						setup, teardown),
		cmocka_unit_test_setup_teardown(merges_need_approval, setup, teardown),
		cmocka_unit_test_setup_teardown(kept_scans_find_alike, setup, teardown),
		cmocka_unit_test_setup_teardown(a_memo_of_frequencies_finds_exactly_alike, setup,
						teardown),
		cmocka_unit_test_setup_teardown(every_vector_file_checked, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_sketches_are_made_by_fix_alone, setup, teardown),
		cmocka_unit_test_setup_teardown(a_cut_reindex_is_written_again, setup, teardown),
		cmocka_unit_test_setup_teardown(a_reindex_killed_after_its_commit_leaves_no_stale_noted_file,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_recording_while_doctor_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(a_window_of_the_newest_and_every_noted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(an_open_index_finds_alike, setup, teardown),
		cmocka_unit_test_setup_teardown(stored_vector_searched, setup, teardown),
		cmocka_unit_test_setup_teardown(vector_file_behind_is_rebuilt, setup, teardown),
		cmocka_unit_test_setup_teardown(regex_fallback_makes_the_pattern_a_row_omits, setup,
						teardown),
		cmocka_unit_test_setup_teardown(schema_42_keeps_the_patterns_ids_were_made_of, setup,
						teardown),
		cmocka_unit_test_setup_teardown(regex_fallback_frame_needs_the_same_kind, setup,
						teardown),
		cmocka_unit_test_setup_teardown(regex_fallback_finds_what_vectors_miss, setup,
						teardown),
		cmocka_unit_test_setup_teardown(regex_rows_kept_across_searches, setup, teardown),
		cmocka_unit_test_setup_teardown(document_frequencies_fold, setup, teardown),
		cmocka_unit_test_setup_teardown(common_features_kept_apart, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_33_moves_common_features, setup, teardown),
		cmocka_unit_test_setup_teardown(frequencies_match_a_model, setup, teardown),
		cmocka_unit_test(df_buckets_merge_and_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
