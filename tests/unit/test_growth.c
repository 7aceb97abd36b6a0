/*
 * test_growth.c - lookups that read what they need, whatever the store
 * holds (issue 14): each is run on two stores, one ten times the other,
 * and SQLite's VM steps are counted (steps_helpers.h: a measure a shared
 * machine does not move).  Each of these read a whole table before the
 * ninety-second pass: its steps grew tenfold with the store.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callus/learn.h"
#include "callus/notes.h"
#include "callus/store.h"
#include "callus/strlist.h"

#include "steps_helpers.h"
#include "store_internal.h"

/* The sizes: the second ten times the first. */
#define SMALL 200
#define LARGE 2000

typedef struct fixture {
	char dir[64];
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-growth.XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* A workspace under f's folder named name, its store open in *s, filled by
 * sql (printf'd with n for every %d, at most four). */
static void grown(const fixture *f, const char *name, int n, const char *sql, char *ws,
		  size_t wslen, callus_store **s)
{
	char path[256], *q;

	snprintf(ws, wslen, "%s/%s", f->dir, name);
	assert_int_equal(mkdir(ws, 0700), 0);
	snprintf(path, sizeof(path), "%s/.callus", ws);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/.callus/callus.db", ws);
	assert_int_equal(callus_store_open(s, path, 5000, NULL), 0);
	q = sqlite3_mprintf(sql, n, n, n, n);
	assert_non_null(q);
	assert_int_equal(sqlite3_exec(callus_store_db(*s), q, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_free(q);
}

/* Counting starts; steps_done stops it and returns the count. */
static void steps_start(callus_store *s, long long *steps)
{
	*steps = 0;
	steps_trace(callus_store_db(s), steps);
}

static long long steps_done(callus_store *s, const long long *steps)
{
	sqlite3_trace_v2(callus_store_db(s), 0, NULL, NULL);
	return *steps;
}

/* Flat: the large store's steps no more than the small one's and a few
 * more (a deeper b-tree); a scan takes ten times as many. */
static void assert_flat(const char *what, long long small, long long large)
{
	print_message("%s: %lld VM steps at %d rows, %lld at %d\n", what, small, SMALL, large,
		      LARGE);
	assert_true(small > 0);
	assert_true(large < small + small / 2 + 20);
}

/* The stores' parts: n signatures (the first %d), sig 1 to n; one check,
 * id 1. */
#define SIGNATURES_N                                                                         \
	"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)"         \
	" INSERT INTO signatures (id, error_type, message_pattern, original, tool,"            \
	" first_seen, last_seen) SELECT printf('%%064x', i), 'E', 'word' || i, 'word' || i,"   \
	" 'gcc', 1, 1 FROM k;"
#define ONE_CHECK "INSERT INTO checks (id, tool, args, dir) VALUES (1, 'gcc', '-c x.c', '');"

/* n signatures, n/2 of them with a note (ids '%06x%06x' of the rowid
 * twice: its first six digits name it). */
#define NOTED_STORE                                                                          \
	SIGNATURES_N                                                                        \
	"INSERT INTO notes (id, signature_id, title, created_at, updated_at)"                   \
	" SELECT printf('%%06x%%06x', rowid, rowid), id, 't', '2001', '2001' FROM signatures"   \
	" WHERE rowid %% 2 = 0;"

static long long note_steps(const fixture *f, const char *name, int n)
{
	char ws[128], id[16];
	callus_store *s = NULL;
	callus_note note;
	long long steps;

	grown(f, name, n, NOTED_STORE, ws, sizeof(ws), &s);
	/* the note of the middle signature, by the first 8 digits of its id */
	snprintf(id, sizeof(id), "%06x%06x", n / 2, n / 2);
	id[8] = '\0';
	steps_start(s, &steps);
	assert_int_equal(callus_notes_get(s, id, &note, NULL), 0);
	steps_done(s, &steps);
	snprintf(id, sizeof(id), "%06x%06x", n / 2, n / 2);
	assert_string_equal(note.id, id);
	callus_note_release(&note);
	/* a prefix two notes share is refused, one no note has is not found */
	assert_int_equal(callus_notes_get(s, "0000", &note, NULL), CALLUS_EINVAL);
	assert_int_equal(callus_notes_get(s, "ffff", &note, NULL), CALLUS_ENOTFOUND);
	/* an id callus did not make, more than hex past the prefix */
	assert_int_equal(sqlite3_exec(callus_store_db(s),
				      "INSERT INTO notes (id, signature_id, title, created_at,"
				      " updated_at) VALUES ('feedzz000000', 'x', 't', '2001', '2001')",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(callus_notes_get(s, "feed", &note, NULL), 0);
	assert_string_equal(note.id, "feedzz000000");
	callus_note_release(&note);
	callus_store_close(s);
	return steps;
}

/* A fixing pass's reply names its fix's note, looked up by its id: by the
 * primary key's range, not a substr() of every note's. */
static void a_note_is_found_by_its_prefix_alone(void **state)
{
	const fixture *f = *state;

	assert_flat("a note by its prefix", note_steps(f, "small", SMALL),
		    note_steps(f, "large", LARGE));
}

/* n runs, each with one error of its own signature and a lesson of its
 * own; the first signature has the note 'a1b2c3d4e5f6', every other one a
 * note of its own. */
#define RUNS_STORE                                                                           \
	SIGNATURES_N                                                                        \
	"INSERT INTO runs (id, at, tool, command, exit_code) SELECT sig, '2001', 'gcc', 'gcc',"  \
	" 1 FROM signatures;"                                                                   \
	"INSERT INTO run_errors (run_id, message, sig) SELECT sig, '', sig FROM signatures;"    \
	"INSERT INTO lessons (id, signature, timestamp, type, file, error_summary, tool,"       \
	" command, exit_code, last_seen) SELECT sig, id, '2001', 'OTHER', '', 'e', 'gcc',"      \
	" 'gcc', 1, '2001' FROM signatures;"                                                    \
	"INSERT INTO lesson_runs SELECT sig, sig FROM signatures;"                              \
	"INSERT INTO notes (id, signature_id, title, created_at, updated_at)"                   \
	" SELECT 'a1b2c3d4e5f6', id, 't', '2001', '2001' FROM signatures WHERE sig = 1;"        \
	"INSERT INTO note_signatures SELECT id, 'a1b2c3d4e5f6' FROM signatures WHERE sig = 1;"  \
	"INSERT INTO notes (id, signature_id, title, created_at, updated_at)"                   \
	" SELECT printf('%%012x', sig), id, 't' || sig, '2001', '2001' FROM signatures"        \
	" WHERE sig > 1;"

static long long rule_steps(const fixture *f, const char *name, int n)
{
	char ws[128], path[192], text[4096];
	FILE *fp;
	size_t len;
	callus_store *s = NULL;
	sqlite3_stmt *st = NULL;
	long long steps;

	grown(f, name, n, RUNS_STORE, ws, sizeof(ws), &s);
	/* the notes' files first, and a recording's bounded sync (which
	 * leaves its cursor), so that only the rule's work is counted */
	assert_int_equal(callus_notes_sync(s, ws, NULL, NULL), 0);
	assert_int_equal(callus_notes_sync_bounded(s, ws, NULL, NULL), 0);
	/* a person's words added to the note's file since, in place */
	snprintf(path, sizeof(path), "%s/.callus/notes/a1b2c3d4e5f6.md", ws);
	assert_non_null(fp = fopen(path, "a"));
	fputs("\n## Why\n\nThe header was never included.\n", fp);
	assert_int_equal(fclose(fp), 0);
	steps_start(s, &steps);
	assert_int_equal(callus_notes_set_rule(s, ws, "a1b2c3d4e5f6", "check it first", NULL), 0);
	steps_done(s, &steps);
	/* the rule reached the note's lesson, and no other */
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(s),
					    "SELECT group_concat(id) FROM lessons"
					    " WHERE corrective_rule = 'check it first'",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "1");
	sqlite3_finalize(st);
	/* the file has the rule and kept the person's words */
	assert_non_null(fp = fopen(path, "r"));
	len = fread(text, 1, sizeof(text) - 1, fp);
	text[len] = '\0';
	fclose(fp);
	assert_non_null(strstr(text, "check it first"));
	assert_non_null(strstr(text, "The header was never included."));
	callus_store_close(s);
	return steps;
}

/* `callus note ID --rule`, which every fix's reply offers, reaches the
 * note's lessons through its signatures' run errors: looked up by the
 * signature, not read all; and takes in a person's edit of that note's
 * file first, not every note's file. */
static void a_notes_rule_reads_its_own_errors(void **state)
{
	const fixture *f = *state;

	assert_flat("a note's rule", rule_steps(f, "small", SMALL),
		    rule_steps(f, "large", LARGE));
}

/* n pending errors in one check, a third each pending, fixed and
 * permanent, each failing last a second after the one before. */
#define PENDING_STORE                                                                        \
	SIGNATURES_N                                                                        \
	ONE_CHECK                                                                           \
	"INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at)"         \
	" SELECT 1, sig, '2001', strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 978307200 + sig,"         \
	" 'unixepoch') FROM signatures;"                                                        \
	"UPDATE pending_errors SET state = iif(id %% 3 = 1, 'fixed', 'permanent'),"             \
	" closed_at = '2001' WHERE id %% 3 <> 0;"

static long long list_steps(const fixture *f, const char *name, int n)
{
	char ws[128];
	callus_store *s = NULL;
	callus_pending *ps = NULL;
	callus_pending_filter all = { -1, NULL, 5, 0 };
	size_t count = 0;
	long long steps;

	grown(f, name, n, PENDING_STORE, ws, sizeof(ws), &s);
	steps_start(s, &steps);
	assert_int_equal(callus_learn_list(s, &all, &ps, &count, NULL), 0);
	steps_done(s, &steps);
	/* the five newest, whatever their state, newest first */
	assert_int_equal(count, 5);
	for (size_t i = 0; i < count; i++)
		assert_int_equal(ps[i].id, n - (int64_t)i);
	assert_int_equal(ps[0].state, n % 3 == 0 ? CALLUS_STATE_PENDING
					     : n % 3 == 1 ? CALLUS_STATE_FIXED
							  : CALLUS_STATE_PERMANENT);
	callus_pendings_free(ps, count);
	callus_store_close(s);
	return steps;
}

/* `callus pending --state all` prints its first 50: the three states'
 * newest, merged, not every error sorted. */
static void every_states_list_reads_its_first_rows(void **state)
{
	const fixture *f = *state;

	assert_flat("every state's first rows", list_steps(f, "small", SMALL),
		    list_steps(f, "large", LARGE));
}

/* n pending errors, each of a file of its own (f<id>.c), closed by an
 * UPDATE as learning closes them: a third failing for good, a third fixed
 * by a resolution of their own, a third left pending. */
#define KNOWN_STORE                                                                          \
	SIGNATURES_N                                                                        \
	ONE_CHECK                                                                           \
	"INSERT INTO resolutions (id, signature_id, description, code_changes, created_at)"    \
	" SELECT sig, id, 'd', '+x', '2001' FROM signatures;"                                   \
	"INSERT INTO pending_errors (id, check_id, sig, first_failure_at, last_failure_at,"    \
	" files) SELECT sig, 1, sig, '2001', '2001', json_array('f' || sig || '.c', 'common.h')" \
	" FROM signatures;"                                                                     \
	"UPDATE pending_errors SET state = 'permanent' WHERE id %% 3 = 1;"                      \
	"UPDATE pending_errors SET state = 'fixed', resolution_id = id WHERE id %% 3 = 2;"

/* The errors of file told to the hook before its edit, their ids in ids
 * (at most 8, 0-ended). */
static void known_of(callus_store *s, const char *file, int64_t *ids)
{
	callus_strlist files = { 0 };
	callus_pending_filter known = { -1, &files, 0, 1 };
	callus_pending *ps = NULL;
	size_t count = 0, i;

	assert_int_equal(callus_strlist_add(&files, file, strlen(file)), 0);
	assert_int_equal(callus_learn_list(s, &known, &ps, &count, NULL), 0);
	assert_true(count < 8);
	for (i = 0; i < count; i++)
		ids[i] = ps[i].id;
	ids[i] = 0;
	callus_pendings_free(ps, count);
	callus_strlist_release(&files);
}

static long long known_steps(const fixture *f, const char *name, int n)
{
	char ws[128];
	callus_store *s = NULL;
	int64_t ids[8];
	long long steps;

	grown(f, name, n, KNOWN_STORE, ws, sizeof(ws), &s);
	steps_start(s, &steps);
	known_of(s, "f7.c", ids);
	steps_done(s, &steps);
	/* error 7 failed for good, 8 was fixed by a resolution; 9 is pending */
	assert_int_equal(ids[0], 7);
	assert_int_equal(ids[1], 0);
	known_of(s, "f8.c", ids);
	assert_int_equal(ids[0], 8);
	known_of(s, "f9.c", ids);
	assert_int_equal(ids[0], 0);
	/* a redaction pass rewrites an error's files, and lists them again:
	 * found by the new name */
	assert_int_equal(sqlite3_exec(callus_store_db(s),
				      "UPDATE pending_errors SET files = '[\"g7.c\"]' WHERE id = 7",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(callus_store_pending_files_again(s, 7), SQLITE_OK);
	known_of(s, "f7.c", ids);
	assert_int_equal(ids[0], 0);
	known_of(s, "g7.c", ids);
	assert_int_equal(ids[0], 7);
	/* an error removed takes its files' entries with it */
	assert_int_equal(sqlite3_exec(callus_store_db(s), "DELETE FROM pending_errors WHERE id = 7",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(callus_store_query_int(s, "SELECT count(*) FROM pending_files"
						   " WHERE pending_id = 7"),
			 0);
	callus_store_close(s);
	return steps;
}

/* The hook before an edit of a file callus knows tells of its errors that
 * failed for good or were fixed: found through their files (schema 47's
 * pending_files), not by reading every error's. */
static void a_files_known_errors_are_found_by_the_file(void **state)
{
	const fixture *f = *state;

	assert_flat("a file's known errors", known_steps(f, "small", SMALL),
		    known_steps(f, "large", LARGE));
}

/* n snapshots, each its own pending error's, failing now; and two errors
 * abandoned years ago sharing one snapshot more. */
#define SNAPSHOT_STORE                                                                       \
	"WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d + 2)"     \
	" INSERT INTO signatures (id, error_type, message_pattern, original, tool,"            \
	" first_seen, last_seen) SELECT printf('%%064x', i), 'E', 'word' || i, 'word' || i,"   \
	" 'gcc', 1, 1 FROM k;"                                                                  \
	ONE_CHECK                                                                           \
	"INSERT INTO snapshots (id, kind, tree, taken_at) SELECT sig, 'git', 't' || sig, '2001'" \
	" FROM signatures WHERE sig <= %d + 1;"                                                 \
	"INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at,"        \
	" snapshot_id) SELECT 1, sig, '2001', iif(sig > %d, '2001-01-01T00:00:00.000Z',"        \
	" strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now')), min(sig, %d + 1) FROM signatures;"

static long long prune_steps(const fixture *f, const char *name, int n)
{
	char ws[128];
	callus_store *s = NULL;
	size_t count = 0, snapshots = 0;
	long long steps;

	grown(f, name, n, SNAPSHOT_STORE, ws, sizeof(ws), &s);
	steps_start(s, &steps);
	assert_int_equal(callus_learn_prune(s, 24, NULL, 0, &count, &snapshots, NULL), 0);
	steps_done(s, &steps);
	/* the two abandoned errors and the snapshot only they had */
	assert_int_equal(count, 2);
	assert_int_equal(snapshots, 1);
	callus_store_close(s);
	return steps;
}

/* A prune removes the snapshots its errors were the last to refer to:
 * looked up by those errors' snapshots, not by reading every snapshot for
 * one no error refers to (to the table's end, when fewer such were left
 * than errors went: a failure's errors share one). */
static void a_prune_looks_at_its_own_errors_snapshots(void **state)
{
	const fixture *f = *state;

	assert_flat("a prune's snapshots", prune_steps(f, "small", SMALL),
		    prune_steps(f, "large", LARGE));
}

/* n pending errors, each with a fix of its own, a suggestion of it and an
 * application of that suggestion; then the first fix and the first
 * pending error removed, counted. */
#define REFERENCES_STORE                                                                     \
	SIGNATURES_N                                                                        \
	ONE_CHECK                                                                           \
	"INSERT INTO resolutions (id, signature_id, description, code_changes, created_at)"    \
	" SELECT sig, id, 'd', '+x', '2001' FROM signatures;"                                   \
	"INSERT INTO pending_errors (id, check_id, sig, first_failure_at, last_failure_at,"    \
	" resolution_id) SELECT sig, 1, sig, '2001', '2001', sig FROM signatures;"              \
	"INSERT INTO suggestions (id, pending_id, resolution_id, confidence, made_at)"         \
	" SELECT sig, sig, sig, 0.9, '2001' FROM signatures;"                                   \
	"INSERT INTO applications (resolution_id, suggestion_id, success, source, at)"         \
	" SELECT sig, sig, 1, 'fix', '2001' FROM signatures;"

static long long removal_steps(const fixture *f, const char *name, int n, const char *removal)
{
	char ws[128];
	callus_store *s = NULL;
	long long steps;

	grown(f, name, n, REFERENCES_STORE, ws, sizeof(ws), &s);
	steps_start(s, &steps);
	assert_int_equal(sqlite3_exec(callus_store_db(s), removal, NULL, NULL, NULL), SQLITE_OK);
	steps_done(s, &steps);
	assert_int_equal(sqlite3_changes(callus_store_db(s)), 1);
	callus_store_close(s);
	return steps;
}

/* A fix removed (a team's pull replacing it, gc's cascade) sets the
 * pending errors it fixed apart, and a suggestion removed with its error
 * its applications: each found through an index of its own. */
static void removals_follow_indexed_references(void **state)
{
	const fixture *f = *state;
	static const char fix[] = "DELETE FROM resolutions WHERE id = 1",
			  error[] = "DELETE FROM pending_errors WHERE id = 2";

	assert_flat("a fix removed", removal_steps(f, "fix-small", SMALL, fix),
		    removal_steps(f, "fix-large", LARGE, fix));
	assert_flat("an error with a suggestion removed",
		    removal_steps(f, "error-small", SMALL, error),
		    removal_steps(f, "error-large", LARGE, error));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_note_is_found_by_its_prefix_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_notes_rule_reads_its_own_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(every_states_list_reads_its_first_rows, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_prune_looks_at_its_own_errors_snapshots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(removals_follow_indexed_references, setup, teardown),
		cmocka_unit_test_setup_teardown(a_files_known_errors_are_found_by_the_file, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
