/*
 * The three states of an error in the store (learn.h), without snapshots:
 * the transitions, their one-way rule, resolutions and their metrics,
 * suggestions, feedback and pruning.  tests/e2e/t0009 runs the same loop
 * through the callus binary with real tools and real snapshots.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/checkindex.h"
#include "callus/fileindex.h"
#include "callus/fsutil.h"
#include "callus/learn.h"
#include "callus/lesson.h"
#include "callus/notes.h"
#include "callus/redact.h"
#include "callus/signature.h"
#include "callus/store.h"

#include "schema_helpers.h"
#include "steps_helpers.h"
#include "store_internal.h"

typedef struct fixture {
	char dir[64];
	char path[96];
	callus_store *s;
	callus_redactor *red;
	callus_signature sig[3];
	callus_strlist files[3];
	callus_metrics *m;        /* what learning measured */
} fixture;

/* A note's file a person edits while callus syncs the file that is to
 * replace it (count_sync), or just after callus renamed it into place
 * (__wrap_rename), once; "" for none. */
static char note_edited_at_sync[512], note_edited_at_rename[512];

/* The person's edit: a section of their own appended to path. */
static void persons_edit(char *path)
{
	FILE *fp = fopen(path, "a");

	if (fp) {
		fputs("\n## Person\n\nkeep me\n", fp);
		fclose(fp);
	}
	path[0] = '\0';
}

int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);

int __wrap_rename(const char *from, const char *to)
{
	int rc = __real_rename(from, to);

	if (rc == 0 && *note_edited_at_rename && !strcmp(to, note_edited_at_rename))
		persons_edit(note_edited_at_rename);
	return rc;
}

static const char *const messages[] = {
	"'foo' is not defined.",
	"'bar' is assigned a value but never used.",
	"Unexpected console statement.",
};
static const char *const codes[] = { "no-undef", "no-unused-vars", "no-console" };
static const char *const paths[] = { "src/a.js", "src/b.js", "src/c.js" };

/* An eslint lesson of file and summary recorded with sigs[0..n) as its
 * run's signatures, so that they exist in the store before errors refer
 * to them.  0, or -1. */
static int store_lesson(callus_store *s, const char *file, const char *summary,
			const callus_signature *sigs, size_t n)
{
	callus_lesson l;
	callus_run_info run;
	int rc;

	memset(&l, 0, sizeof(l));
	memset(&run, 0, sizeof(run));
	l.type = CALLUS_LESSON_LINT;
	l.file = strdup(file);
	l.error_summary = strdup(summary);
	l.tool = strdup("eslint");
	l.command = strdup("npx eslint .");
	run.sigs = sigs;
	run.nsigs = n;
	rc = callus_lesson_sign(&l) < 0 || callus_store_record_lesson(s, &l, &run, NULL, NULL) < 0
		     ? -1
		     : 0;
	callus_lesson_release(&l);
	return rc;
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-learn-XXXXXX");
	if (!f || !mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/callus.db", f->dir);
	if (callus_store_open(&f->s, f->path, 5000, NULL) < 0 || callus_redactor_new(&f->red, NULL) < 0 ||
	    callus_metrics_new(&f->m) < 0)
		return -1;
	for (int i = 0; i < 3; i++) {
		callus_diag d;

		memset(&d, 0, sizeof(d));
		d.file = (char *)paths[i];
		d.line = 3;
		d.code = (char *)codes[i];
		d.message = (char *)messages[i];
		if (callus_signature_build(&f->sig[i], &d, "eslint", NULL) < 0 ||
		    callus_strlist_add(&f->files[i], paths[i], strlen(paths[i])) < 0)
			return -1;
		if (store_lesson(f->s, paths[i], messages[i], &f->sig[i], 1) < 0)
			return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	for (int i = 0; i < 3; i++) {
		callus_signature_release(&f->sig[i]);
		callus_strlist_release(&f->files[i]);
	}
	callus_store_close(f->s);
	callus_redactor_free(f->red);
	callus_metrics_free(f->m);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static callus_learn_opts opts_for(fixture *f, const char *args, const char *session)
{
	callus_learn_opts o;

	memset(&o, 0, sizeof(o));
	o.workspace = f->dir;
	o.check.tool = "eslint";
	o.check.args = args;
	o.check.dir = "";
	o.command = "npx eslint .";
	o.session = session;
	o.redactor = f->red;
	o.no_snapshot = 1;
	o.metrics = f->m;
	return o;
}

/* A failed run of check `args` showing the errors whose bits are in mask. */
/* The first column of the first row of sql, read with a connection of
 * the test's own (the store's is the library's). */
static int64_t query_int(const fixture *f, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void exec_sql(const fixture *f, const char *sql)
{
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void fail_run(fixture *f, const char *args, unsigned mask, callus_learn_result *res)
{
	callus_learn_opts o = opts_for(f, args, "s1");
	callus_learn_error errs[3];
	callus_error err = CALLUS_ERROR_INIT;
	size_t n = 0;

	for (int i = 0; i < 3; i++)
		if (mask & (1u << i)) {
			errs[n].sig = &f->sig[i];
			errs[n].files = &f->files[i];
			errs[n].message = NULL;
			n++;
		}
	if (callus_learn_failure(f->s, &o, errs, n, res, &err) < 0)
		fail_msg("%s", callus_error_message(&err));
	callus_error_release(&err);
}

static void pass_run(fixture *f, const char *args, callus_learn_result *res)
{
	callus_learn_opts o = opts_for(f, args, "s1");

	assert_int_equal(callus_learn_pass(f->s, &o, res, NULL), 0);
}

static size_t count_state(fixture *f, int state)
{
	callus_pending_filter flt = { state, NULL, 0, 0 };
	callus_pending *ps = NULL;
	size_t n = 0;

	assert_int_equal(callus_learn_list(f->s, &flt, &ps, &n, NULL), 0);
	callus_pendings_free(ps, n);
	return n;
}

/* A fake snapshot helper in the fixture's directory: body after the #!. */
static void fake_helper(fixture *f, const char *body, char *path, size_t size)
{
	FILE *fp;

	snprintf(path, size, "%s/fake-callus-git", f->dir);
	assert_non_null(fp = fopen(path, "w"));
	fprintf(fp, "#!/bin/sh\n%s\n", body);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(chmod(path, 0755), 0);
}

/*
 * A failure learnt in two steps (callus_learn_failure_start/finish), as a
 * recording does to write its lesson while the snapshot helper works: the
 * store is written in between on the same connection, the snapshot taken
 * is the new pending error's; a run started and freed leaves no helper
 * and writes nothing.
 */
static void failure_learnt_in_two_steps(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--two-steps", "s1");
	callus_snapshot_opts so = { NULL, 10000, NULL, 0, 0 };
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_learn_started *st = NULL;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char helper[PATH_MAX + 32], mark[PATH_MAX + 16];
	struct stat sb;

	snprintf(mark, sizeof(mark), "%s/asked", f->dir);
	{
		char body[2 * PATH_MAX];

		snprintf(body, sizeof(body),
			 "echo \"$@\" >'%s'\n"
			 "printf 'ok 47\\ngit 4b825dc642cb6eb9a060e54bf8d69288fbee4904 -\\n'", mark);
		fake_helper(f, body, helper, sizeof(helper));
	}
	so.helper = helper;
	o.no_snapshot = 0;
	o.snapshot = &so;
	assert_int_equal(callus_learn_failure_start(&st, f->s, &o, &e, 1, &err), 0);
	assert_non_null(st);
	/* the caller's own writes meanwhile: no transaction is held */
	assert_int_equal(store_lesson(f->s, "src/other.js", "meanwhile", &f->sig[1], 1), 0);
	assert_int_equal(callus_learn_failure_finish(st, &r, &err), 0);
	assert_int_equal(stat(mark, &sb), 0);
	assert_int_equal(r.npending, 1);
	assert_null(r.snapshot_error);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors p JOIN snapshots s"
				      " ON s.id = p.snapshot_id WHERE s.tree ="
				      " '4b825dc642cb6eb9a060e54bf8d69288fbee4904'"),
			 1);
	callus_learn_result_release(&r);

	/* started, then given up: the helper is let finish, nothing is
	 * written */
	so.timeout_ms = 300;
	fake_helper(f, "exec sleep 30", helper, sizeof(helper));
	o = opts_for(f, "--given-up", "s1");
	o.no_snapshot = 0;
	o.snapshot = &so;
	assert_int_equal(callus_learn_failure_start(&st, f->s, &o, &e, 1, &err), 0);
	assert_non_null(st);
	callus_learn_started_free(st);
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors"), 1);
	callus_learn_started_free(NULL);

	/* what the whole call refuses before writing, the start refuses */
	o.redactor = NULL;
	st = (callus_learn_started *)&o; /* overwritten */
	assert_int_equal(callus_learn_failure_start(&st, f->s, &o, &e, 1, &err), CALLUS_EINVAL);
	assert_null(st);
	callus_error_release(&err);
}

/* Snapshots on in a run's options, through a fake helper (fake_helper)
 * at helper, which may note its requests in mark. */
typedef struct helped {
	callus_snapshot_opts so;
	char helper[PATH_MAX + 32];
	char mark[PATH_MAX + 16];
} helped;

static void helped_init(fixture *f, helped *h, callus_learn_opts *o)
{
	memset(h, 0, sizeof(*h));
	h->so.timeout_ms = 10000;
	h->so.helper = h->helper;
	snprintf(h->mark, sizeof(h->mark), "%s/asked", f->dir);
	o->no_snapshot = 0;
	o->snapshot = &h->so;
}

/* The helper answering a snapshot request with tree. */
static void helper_snapshots(fixture *f, helped *h, const char *tree)
{
	char body[128];

	snprintf(body, sizeof(body), "printf 'ok 47\\ngit %s -\\n'", tree);
	fake_helper(f, body, h->helper, sizeof(h->helper));
}

/*
 * A failure delivered late whose check passed after it ran leaves nothing
 * pending, and owes nothing once looked at (its run's learn_owed cleared:
 * a delivery again would learn it); an import's replay of it
 * (o.replayed) is learnt all the same, its transcript's pass may follow,
 * and a pass of its own time fixes it.
 */
static void a_failure_after_a_pass_late_or_replayed(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--after", "s1");
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;

	/* the check failed and passed today */
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, &err), 0);
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed + r.nunchanged, 1);
	callus_learn_result_release(&r);
	exec_sql(f, "INSERT INTO runs (at, tool, command, exit_code, origin, learn_owed)"
		    " VALUES ('2026-01-01T00:00:00.000Z', 'eslint', 'npx eslint .', 1, 'q-1', 1)");
	o.origin = "q-1";
	o.redelivered = 1;
	o.now = "2026-01-01T00:00:00.000Z";
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, &err), 0);
	assert_int_equal(r.npending, 0);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL"), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors WHERE state = 'pending'"),
			 0);
	/* replayed from a transcript: pending as of then, fixed by its pass */
	o.origin = NULL;
	o.replayed = 1;
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, &err), 0);
	assert_int_equal(r.npending, 1);
	callus_learn_result_release(&r);
	o.now = "2026-01-01T00:00:05.000Z";
	o.fix_patch = "diff --git a/src/app.js b/src/app.js\n--- a/src/app.js\n+++ b/src/app.js\n"
		      "@@ -1 +1 @@\n-a\n+b\n";
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors WHERE state = 'pending'"),
			 0);
	callus_error_release(&err);
}

/* Snapshots on (a fake helper at h), and one failure of e learnt with the
 * empty tree for its snapshot: the pending error a late run fixes. */
static void failed_with_snapshot(fixture *f, helped *h, callus_learn_opts *o,
				 const callus_learn_error *e)
{
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;

	helped_init(f, h, o);
	helper_snapshots(f, h, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	assert_int_equal(callus_learn_failure(f->s, o, e, 1, &r, &err), 0);
	callus_learn_result_release(&r);
	callus_error_release(&err);
}

/* o delivered late, as of now, with fixes (may be NULL); the time is
 * returned for the caller to free. */
static char *late(callus_learn_opts *o, const callus_learn_fixes *fixes)
{
	char *now = callus_now_iso8601();

	assert_non_null(now);
	o->fixes = fixes;
	o->redelivered = 1;
	o->now = now;
	return now;
}

/* The git tree a late run's hook kept: tree, with commit ("" for none). */
static void kept_tree(callus_snapshot *kept, const char *tree, const char *commit)
{
	kept->kind = CALLUS_SNAPSHOT_GIT;
	assert_non_null(kept->tree = strdup(tree));
	assert_non_null(kept->commit = strdup(commit));
}

/*
 * A failure its store is too busy for is queued with the snapshot its
 * start asked for (callus_learn_started_kept), and its late recording
 * takes that one (opts.taken) without asking the helper for the tree it
 * finds then, which may hold the fix already.
 */
static void a_queued_failure_keeps_its_snapshot(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--queued", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_learn_started *st = NULL;
	callus_learn_result r;
	callus_snapshot kept = CALLUS_SNAPSHOT_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	const char *then = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";

	helped_init(f, &h, &o);
	{
		char body[2 * PATH_MAX];

		snprintf(body, sizeof(body),
			 "echo \"$@\" >>'%s'\n"
			 "printf 'ok 47\\ngit %s -\\n'", h.mark, then);
		fake_helper(f, body, h.helper, sizeof(h.helper));
	}
	assert_int_equal(callus_learn_failure_start(&st, f->s, &o, &e, 1, &err), 0);
	assert_int_equal(callus_learn_started_kept(st, &kept, NULL), 0);
	assert_int_equal(kept.kind, CALLUS_SNAPSHOT_GIT);
	assert_string_equal(kept.tree, then);
	assert_string_equal(kept.commit, "");
	/* asked twice, answered once: the helper ran once */
	callus_snapshot_release(&kept);
	assert_int_equal(callus_learn_started_kept(st, &kept, NULL), 0);
	callus_learn_started_free(st);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors"), 0);
	{
		FILE *fp = fopen(h.mark, "r");
		int c, lines = 0;

		assert_non_null(fp);
		while ((c = fgetc(fp)) != EOF)
			lines += c == '\n';
		fclose(fp);
		assert_int_equal(lines, 1);
	}
	assert_int_equal(unlink(h.mark), 0);

	/* drained later: the helper would answer with today's tree */
	fake_helper(f, "printf 'ok 47\\ngit 1111111111111111111111111111111111111111 -\\n'",
		    h.helper, sizeof(h.helper));
	o.taken = &kept;
	o.now = "2026-01-02T03:04:05.000Z";
	o.redelivered = 1;
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, &err), 0);
	assert_int_equal(r.npending, 1);
	assert_null(r.snapshot_error);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors p JOIN snapshots s"
				      " ON s.id = p.snapshot_id WHERE s.tree ="
				      " '4b825dc642cb6eb9a060e54bf8d69288fbee4904'"
				      " AND s.taken_at = '2026-01-02T03:04:05.000Z'"),
			 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM snapshots WHERE tree LIKE '1111%'"), 0);
	callus_snapshot_release(&kept);

	/* its error known, a failure asks for no snapshot; queued, it has
	 * one taken then (a pass queued before it may close that error) */
	o.taken = NULL;
	o.now = NULL;
	o.redelivered = 0;
	assert_int_equal(callus_learn_failure_start(&st, f->s, &o, &e, 1, &err), 0);
	assert_int_equal(callus_learn_started_kept(st, &kept, NULL), 0);
	assert_string_equal(kept.tree, "1111111111111111111111111111111111111111");
	callus_learn_started_free(st);
	callus_snapshot_release(&kept);

	/* a run that needs no snapshot (turned off) has none to keep */
	o = opts_for(f, "--none", "s1");
	assert_int_equal(callus_learn_failure_start(&st, f->s, &o, &e, 1, &err), 0);
	assert_int_equal(callus_learn_started_kept(st, &kept, NULL), CALLUS_ENOTFOUND);
	assert_null(kept.tree);
	callus_learn_started_free(st);
	assert_int_equal(callus_learn_started_kept(NULL, &kept, NULL), CALLUS_ENOTFOUND);
	callus_error_release(&err);
}

/*
 * A pass its store is too busy for keeps the fixes it found (busy_fixes),
 * and its late delivery learns them (opts.fixes) rather than a diff with
 * the working tree found then, which may hold the agent's next work: the
 * helper is not asked for a diff it was given.
 */
static void a_busy_pass_keeps_its_fixes(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--busy-pass", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_learn_fixes kept = CALLUS_LEARN_FIXES_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char body[2 * PATH_MAX];
	const char *tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
	const char *commit = "0123456789abcdef0123456789abcdef01234567";
	sqlite3 *other = NULL;
	char *now = NULL;

	/* the failure's snapshot */
	helped_init(f, &h, &o);
	helper_snapshots(f, &h, tree);
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, &err), 0);
	assert_int_equal(r.npending, 1);
	callus_learn_result_release(&r);

	/* the pass, its store held by another writer: the fix then kept */
	snprintf(body, sizeof(body),
		 "P='--- a/src/app.js\n+++ b/src/app.js\n@@ -1 +1 @@\n-then\n+fixed\n'\n"
		 "printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"; printf 'ok 41\\n%s\\n'", commit);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_busy_timeout(callus_store_db(f->s), 50);
	o.busy_fixes = &kept;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), CALLUS_EBUSY);
	assert_int_equal(sqlite3_exec(other, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	sqlite3_busy_timeout(callus_store_db(f->s), 5000);
	assert_int_equal(kept.count, 1);
	assert_string_equal(kept.head, commit);
	assert_string_equal(kept.items[0].tree, tree);
	assert_non_null(strstr(kept.items[0].patch, "+fixed"));
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions"), 0);

	/* delivered later: the tree found then holds more, which the helper
	 * would give, and is never asked for */
	snprintf(body, sizeof(body),
		 "echo \"$@\" >>'%s'\n"
		 "P='--- a/src/next.js\n+++ b/src/next.js\n@@ -1 +1 @@\n-a\n+b\n'\n"
		 "printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"; printf 'ok 2\\n-\\n'",
		 h.mark);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	o.busy_fixes = NULL;
	now = late(&o, &kept);
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE code_changes LIKE"
				      " '%+fixed%' AND code_changes NOT LIKE '%next.js%'"
				      " AND context LIKE '%0123456789abcdef0123456789abcdef01234567%'"),
			 1);
	assert_int_equal(access(h.mark, F_OK), -1);
	callus_learn_fixes_release(&kept);
	callus_learn_fixes_release(&kept);
	callus_learn_fixes_release(NULL);
	callus_error_release(&err);
	free(now);
}

/*
 * A failure that no longer shows an error closes it with a fix; queued by
 * a busy store, it keeps that fix (callus_learn_started_kept), and its
 * late delivery learns it rather than the tree found then.
 */
static void a_queued_failure_keeps_the_fixes_it_found(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--closes", "s1");
	helped h;
	callus_learn_error both[2] = { { &f->sig[0], &f->files[0], NULL },
				       { &f->sig[1], &f->files[1], NULL } };
	callus_learn_fixes fixes = CALLUS_LEARN_FIXES_INIT;
	callus_snapshot snap = CALLUS_SNAPSHOT_INIT;
	callus_learn_started *st = NULL;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char body[2 * PATH_MAX];
	const char *tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
	char *now = NULL;

	helped_init(f, &h, &o);
	helper_snapshots(f, &h, tree);
	assert_int_equal(callus_learn_failure(f->s, &o, both, 2, &r, &err), 0);
	assert_int_equal(r.npending, 2);
	callus_learn_result_release(&r);

	/* the second error alone: the first was fixed, as the diff says (and
	 * the second known, a snapshot is taken for the queue) */
	snprintf(body, sizeof(body),
		 "case \"$*\" in *snapshot*) printf 'ok 47\\ngit %s -\\n'; exit;; esac\n"
		 "P='--- a/src/a.js\n+++ b/src/a.js\n@@ -1 +1 @@\n-a\n+fixed\n'\n"
		 "printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"; printf 'ok 2\\n-\\n'", tree);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	assert_int_equal(callus_learn_failure_start(&st, f->s, &o, &both[1], 1, &err), 0);
	assert_int_equal(callus_learn_started_kept(st, &snap, &fixes), 0);
	assert_string_equal(snap.tree, tree);
	callus_learn_started_free(st);
	assert_int_equal(fixes.count, 1);
	assert_string_equal(fixes.items[0].tree, tree);
	assert_non_null(strstr(fixes.items[0].patch, "+fixed"));
	callus_snapshot_release(&snap);

	/* delivered later: the helper would give the agent's next work */
	snprintf(body, sizeof(body),
		 "echo \"$@\" >>'%s'\n"
		 "P='--- a/src/next.js\n+++ b/src/next.js\n@@ -1 +1 @@\n-a\n+b\n'\n"
		 "printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"; printf 'ok 2\\n-\\n'",
		 h.mark);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	now = late(&o, &fixes);
	assert_int_equal(callus_learn_failure(f->s, &o, &both[1], 1, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE code_changes LIKE"
				      " '%+fixed%' AND code_changes NOT LIKE '%next.js%'"),
			 1);
	assert_int_equal(access(h.mark, F_OK), -1);
	callus_learn_fixes_release(&fixes);
	callus_error_release(&err);
	free(now);
}

/* A late run's fixes all given without the HEAD they were made at: the
 * helper is asked for HEAD alone, and the resolution keeps a commit. */
static void given_fixes_without_head_ask_for_it(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--no-head", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_learn_fixes fixes = CALLUS_LEARN_FIXES_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char body[2 * PATH_MAX];
	const char *tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
	const char *commit = "89abcdef0123456789abcdef0123456789abcdef";
	char *now = NULL;
	FILE *fp;
	char line[256] = "";

	failed_with_snapshot(f, &h, &o, &e);

	snprintf(body, sizeof(body), "shift; echo \"$@\" >'%s'; printf 'ok 41\\n%s\\n'", h.mark,
		 commit);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	assert_int_equal(callus_learn_fixes_add(&fixes, tree, "--- a/src/app.js\n+++ b/src/app.js\n"
							      "@@ -1 +1 @@\n-a\n+fixed\n"),
			 0);
	now = late(&o, &fixes);
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_non_null(fp = fopen(h.mark, "r"));
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	assert_non_null(strstr(line, "head"));
	assert_null(strstr(line, "diff"));
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE context LIKE"
				      " '%89abcdef0123456789abcdef0123456789abcdef%'"),
			 1);
	callus_learn_fixes_release(&fixes);
	callus_error_release(&err);
	free(now);
}

/*
 * A late pass whose hook kept the tree it found (opts.taken): its fix is
 * diffed from the failure's snapshot to that tree ("diffto"), not to the
 * working tree found now, and its HEAD is that tree's, not asked.
 */
static void a_late_pass_diffs_to_the_tree_it_found(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--kept-tree", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_snapshot kept = CALLUS_SNAPSHOT_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char body[2 * PATH_MAX];
	const char *then = "1111111111111111111111111111111111111111";
	const char *commit = "89abcdef0123456789abcdef0123456789abcdef";
	char *now = NULL;
	FILE *fp;
	char line[256] = "";

	failed_with_snapshot(f, &h, &o, &e);

	/* the helper notes what it is asked; a "diff" (to now) would give the
	 * next work, a "diffto" the fix */
	snprintf(body, sizeof(body),
		 "shift; echo \"$@\" >'%s'\n"
		 "case \"$*\" in *diffto*) F=fixed;; *) F=next_work;; esac\n"
		 "P=\"--- a/src/app.js\n+++ b/src/app.js\n@@ -1 +1 @@\n-a\n+$F\n\"\n"
		 "printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"",
		 h.mark);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	kept_tree(&kept, then, commit);
	now = late(&o, NULL);
	o.taken = &kept;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_non_null(fp = fopen(h.mark, "r"));
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	assert_non_null(strstr(line, "diffto"));
	assert_non_null(strstr(line, then));
	assert_null(strstr(line, "head"));
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE code_changes LIKE"
				      " '%+fixed%' AND code_changes NOT LIKE '%next_work%'"),
			 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE context LIKE"
				      " '%89abcdef0123456789abcdef0123456789abcdef%'"),
			 1);
	callus_snapshot_release(&kept);
	callus_error_release(&err);
	free(now);
}

/*
 * A late failure whose snapshot its drainer took (none kept) has a tree
 * newer than a pass that ran after it: the pass's kept tree is not its
 * fix's end (from the newer tree to it would undo the work between), the
 * tree now is, as without a kept tree.  The snapshot's row says when it
 * was taken, not when the run ran.
 */
static void a_snapshot_newer_than_the_late_pass_is_diffed_to_now(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--newer", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_snapshot kept = CALLUS_SNAPSHOT_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char body[2 * PATH_MAX];
	const char *tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
	FILE *fp;
	char line[256] = "";

	helped_init(f, &h, &o);
	helper_snapshots(f, &h, tree);
	/* delivered late: ran at the start of the year, its snapshot taken now */
	o.redelivered = 1;
	o.now = "2026-01-01T00:00:00.000Z";
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, &err), 0);
	assert_int_equal(r.npending, 1);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM snapshots WHERE taken_at > "
				      "'2026-01-02'"),
			 1);

	snprintf(body, sizeof(body),
		 "shift; echo \"$@\" >>'%s'\n"
		 "case \"$*\" in *head*) printf 'ok 2\\n-\\n'; exit;; esac\n"
		 "P=\"--- a/src/app.js\n+++ b/src/app.js\n@@ -1 +1 @@\n-a\n+b\n\"\n"
		 "printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"",
		 h.mark);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	kept_tree(&kept, "1111111111111111111111111111111111111111", "");
	o.now = "2026-01-01T00:00:01.000Z";
	o.taken = &kept;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_non_null(fp = fopen(h.mark, "r"));
	assert_non_null(fgets(line, sizeof(line), fp));
	fclose(fp);
	assert_non_null(strstr(line, "diff git"));
	assert_null(strstr(line, "diffto"));
	callus_snapshot_release(&kept);
	callus_error_release(&err);
}

/* A helper that answers each request of its batch in turn, its arguments
 * noted a line a run in h->mark: a diffto as of a kept tree gone, a diff
 * with "+now", head with head_answer (a whole "ok ..."/"error ..." line
 * and text, printf's format). */
static void batch_helper(fixture *f, helped *h, const char *head_answer)
{
	char body[4 * PATH_MAX];

	snprintf(body, sizeof(body),
		 "echo \"$@\" >>'%s'\n"
		 "shift; while [ \"$1\" = --exclude ] || [ \"$1\" = --since ]; do shift 2; done\n"
		 "shift\n"
		 "while [ $# -gt 0 ]; do case \"$1\" in\n"
		 " diffto) M='callus-git: no such kept tree: object not found'\n"
		 "  printf 'error %%d\\n%%s' \"${#M}\" \"$M\"; shift 4;;\n"
		 " diff) P=\"--- a/src/app.js\n+++ b/src/app.js\n@@ -1 +1 @@\n-a\n+now\n\"\n"
		 "  printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"; shift 4;;\n"
		 " head) printf '%s'; shift;;\n"
		 " *) exit 3;; esac; done",
		 h->mark, head_answer);
	fake_helper(f, body, h->helper, sizeof(h->helper));
}

/*
 * A kept tree the helper cannot read any more (its objects pruned): the
 * fix is diffed to the tree now, as without one, not lost.
 */
static void a_kept_tree_gone_is_diffed_to_now(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--gone", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_snapshot kept = CALLUS_SNAPSHOT_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char *now = NULL;

	failed_with_snapshot(f, &h, &o, &e);

	batch_helper(f, &h, "ok 41\\nfedcba9876543210fedcba9876543210fedcba98\\n");
	kept_tree(&kept, "1111111111111111111111111111111111111111", "");
	now = late(&o, NULL);
	o.taken = &kept;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	assert_non_null(r.snapshot_error);
	assert_non_null(strstr(r.snapshot_error, "not the one their run kept"));
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE code_changes LIKE"
				      " '%+now%'"),
			 1);
	/* the diff ends now: so does its commit */
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE context LIKE"
				      " '%fedcba9876543210fedcba9876543210fedcba98%'"),
			 1);
	callus_snapshot_release(&kept);
	callus_error_release(&err);
	free(now);
}

/*
 * A late pass's fixes, one to its kept tree (gone) and one to the tree now
 * (its error's snapshot newer than the run): HEAD, asked with the batch,
 * is not asked again with the diff asked again, and the resolutions name
 * it, not the kept tree's commit.
 */
static void a_kept_tree_gone_beside_a_diff_to_now_asks_head_once(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--mixed", "s1");
	helped h;
	callus_learn_error both[2] = { { &f->sig[0], &f->files[0], NULL },
				       { &f->sig[1], &f->files[1], NULL } };
	callus_snapshot kept = CALLUS_SNAPSHOT_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf asked = CALLUS_BUF_INIT;
	const char *nl;

	helped_init(f, &h, &o);
	helper_snapshots(f, &h, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	o.now = "2026-01-01T00:00:00.000Z";
	assert_int_equal(callus_learn_failure(f->s, &o, &both[0], 1, &r, &err), 0);
	callus_learn_result_release(&r);
	/* the second error's snapshot taken by its drainer: newer than the pass */
	o.redelivered = 1;
	o.now = "2026-01-01T00:00:00.500Z";
	assert_int_equal(callus_learn_failure(f->s, &o, both, 2, &r, &err), 0);
	callus_learn_result_release(&r);

	batch_helper(f, &h, "ok 41\\nfedcba9876543210fedcba9876543210fedcba98\\n");
	kept_tree(&kept, "1111111111111111111111111111111111111111",
		  "2222222222222222222222222222222222222222");
	o.now = "2026-01-01T00:00:01.000Z";
	o.taken = &kept;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 2);
	callus_learn_result_release(&r);
	assert_int_equal(callus_fs_read_file(&asked, h.mark, 1 << 16, NULL), 0);
	assert_non_null(nl = strchr(asked.ptr, '\n'));
	assert_non_null(strstr(asked.ptr, "diffto"));
	assert_null(strstr(nl, "head"));
	assert_non_null(strstr(nl, "diff git"));
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE context LIKE"
				      " '%2222222222222222222222222222222222222222%'"),
			 0);
	callus_buf_release(&asked);
	callus_snapshot_release(&kept);
	callus_error_release(&err);
}

/* A kept tree gone, its diff asked again of the tree now, and HEAD now
 * unread: the resolution names no commit, not the kept tree's. */
static void a_kept_tree_gone_and_head_unread_names_no_commit(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--headfail", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_snapshot kept = CALLUS_SNAPSHOT_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char *now = NULL;

	failed_with_snapshot(f, &h, &o, &e);
	batch_helper(f, &h, "error 31\\ncallus-git: cannot resolve HEAD");
	kept_tree(&kept, "1111111111111111111111111111111111111111",
		  "2222222222222222222222222222222222222222");
	now = late(&o, NULL);
	o.taken = &kept;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE code_changes LIKE"
				      " '%+now%'"),
			 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE context LIKE"
				      " '%2222222222222222222222222222222222222222%'"),
			 0);
	callus_snapshot_release(&kept);
	callus_error_release(&err);
	free(now);
}

/*
 * A diff to a kept tree the helper did not answer (its time ran out) is
 * not asked again of the tree now, which may hold the agent's next work:
 * the fix is learnt without a diff, as for any diff that failed.
 */
static void a_kept_tree_unanswered_is_not_diffed_to_now(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--unanswered", "s1");
	helped h;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_snapshot kept = CALLUS_SNAPSHOT_INIT;
	callus_learn_result r;
	callus_error err = CALLUS_ERROR_INIT;
	char body[2 * PATH_MAX];
	char *now = NULL;

	failed_with_snapshot(f, &h, &o, &e);

	snprintf(body, sizeof(body),
		 "shift; echo \"$@\" >>'%s'\n"
		 "case \"$*\" in *diffto*) exec sleep 5;; esac\n"
		 "P=\"--- a/src/app.js\n+++ b/src/app.js\n@@ -1 +1 @@\n-a\n+next_work\n\"\n"
		 "printf 'ok %%d\\n%%s' \"${#P}\" \"$P\"",
		 h.mark);
	fake_helper(f, body, h.helper, sizeof(h.helper));
	h.so.timeout_ms = 300;
	kept_tree(&kept, "1111111111111111111111111111111111111111", "");
	now = late(&o, NULL);
	o.taken = &kept;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, &err), 0);
	assert_int_equal(r.nfixed, 1);
	assert_non_null(r.snapshot_error);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM resolutions WHERE code_changes LIKE"
				      " '%next_work%'"),
			 0);
	{
		callus_buf asked = CALLUS_BUF_INIT;

		assert_int_equal(callus_fs_read_file(&asked, h.mark, 1 << 16, NULL), 0);
		assert_null(strstr(asked.ptr, "diff git"));
		callus_buf_release(&asked);
	}
	callus_snapshot_release(&kept);
	callus_error_release(&err);
	free(now);
}

static void fail_then_pass_makes_one_resolution(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	callus_resolution *rs = NULL;
	size_t n = 0;

	fail_run(f, ".", 1, &r);
	assert_int_equal(r.npending, 1);
	assert_int_equal(r.nnew, 1);
	assert_int_equal(r.nfixed, 0);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 1);

	pass_run(f, ".", &r);
	assert_int_equal(r.nfixed, 1);
	assert_non_null(strstr(r.fixed_descriptions[0], "snapshots are turned off"));
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 0);
	assert_int_equal(count_state(f, CALLUS_STATE_FIXED), 1);

	assert_int_equal(callus_learn_resolutions(f->s, NULL, 0, &rs, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rs[0].signature_id, f->sig[0].id);
	assert_int_equal(rs[0].application_count, 1);
	assert_int_equal(rs[0].success_count, 1);
	assert_true(rs[0].success_rate == 1.0);
	assert_string_equal(rs[0].files.items[0], "src/a.js");
	callus_resolutions_free(rs, n);

	/* a second pass has nothing left to fix */
	pass_run(f, ".", &r);
	assert_int_equal(r.nfixed, 0);
	callus_learn_result_release(&r);
}

static int refuse_commit(void *arg)
{
	(*(int *)arg)++;
	return 1;
}

/* The text of the only note file in the workspace's .callus/notes into
 * out, and its path into path[0..size) (may be NULL); 0 when there is
 * none, the number of files otherwise. */
static int note_path_file(fixture *f, callus_buf *out, char *path, size_t size)
{
	char cmd[256], name[256], at[512];
	FILE *p;
	int n = 0;

	snprintf(cmd, sizeof(cmd), "ls '%s/.callus/notes' 2>/dev/null", f->dir);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(name, sizeof(name), p)) {
		name[strcspn(name, "\n")] = '\0';
		snprintf(at, sizeof(at), "%s/.callus/notes/%s", f->dir, name);
		callus_buf_clear(out);
		assert_int_equal(callus_fs_read_file(out, at, 1 << 20, NULL), 0);
		if (path)
			snprintf(path, size, "%s", at);
		n++;
	}
	pclose(p);
	return n;
}

static int note_file(fixture *f, callus_buf *out)
{
	return note_path_file(f, out, NULL, 0);
}

/* A workspace with a notes folder and error 0 failing: the options of a
 * pass whose fix (a diff of its own) makes a note. */
static callus_learn_opts note_ready(fixture *f)
{
	callus_learn_opts o = opts_for(f, ".", "s1");
	callus_learn_result r;
	char dir[128];

	snprintf(dir, sizeof(dir), "%s/.callus", f->dir);
	assert_int_equal(mkdir(dir, 0777), 0);
	o.fix_patch = "diff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n"
		      "@@ -1 +1 @@\n-foo();\n+window.foo();\n";
	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	return o;
}

/*
 * A pass whose commit fails (a full disk) writes no note file: a file
 * ahead of its store was taken in by the next sync as a teammate's note,
 * and the same pass learnt again (queued) counted its fix twice.
 */
static void a_refused_pass_writes_no_note_file(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = note_ready(f);
	callus_learn_result r;
	callus_buf text = CALLUS_BUF_INIT;
	int refused = 0;

	sqlite3_commit_hook(callus_store_db(f->s), refuse_commit, &refused);
	assert_true(callus_learn_pass(f->s, &o, &r, NULL) < 0);
	sqlite3_commit_hook(callus_store_db(f->s), NULL, NULL);
	assert_int_equal(refused, 1);
	assert_int_equal(note_file(f, &text), 0);
	assert_int_equal(query_int(f, "SELECT count(*) FROM notes"), 0);

	/* learnt again, once: one note, its fix worked once */
	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	assert_int_equal(r.nfixed, 1);
	assert_int_equal(r.nnotes, 1);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM notes"), 1);
	assert_int_equal(query_int(f, "SELECT applications FROM notes"), 1);
	assert_int_equal(note_file(f, &text), 1);
	assert_non_null(strstr(text.ptr, "\napplications: 1\nsuccesses: 1\n"));
	/* and the store knows the file as written */
	assert_int_equal(query_int(f, "SELECT file_size FROM notes"), (int64_t)text.len);
	callus_buf_release(&text);
}

/* A rule whose commit is refused is in neither the store nor the note's
 * file: written in the transaction, the file held it, and the next sync
 * took it for a person's edit.  Committed, it is in both, the file known
 * as written.  It fails with the file written before the commit. */
static void a_refused_rule_is_not_in_the_note_file(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = note_ready(f);
	callus_learn_result r;
	callus_buf text = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	char id[128] = "";
	int refused = 0;

	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	callus_learn_result_release(&r);
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s), "SELECT id FROM notes", -1, &st,
					    NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	snprintf(id, sizeof(id), "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);

	sqlite3_commit_hook(callus_store_db(f->s), refuse_commit, &refused);
	assert_true(callus_notes_set_rule(f->s, f->dir, id, "call foo on window", NULL) < 0);
	sqlite3_commit_hook(callus_store_db(f->s), NULL, NULL);
	assert_int_equal(refused, 1);
	assert_int_equal(note_file(f, &text), 1);
	assert_null(strstr(text.ptr, "call foo on window"));
	assert_int_equal(callus_notes_sync(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(query_int(f, "SELECT rule = '' AND edited = 0 FROM notes"), 1);

	assert_int_equal(callus_notes_set_rule(f->s, f->dir, id, "call foo on window", NULL), 0);
	assert_int_equal(note_file(f, &text), 1);
	assert_non_null(strstr(text.ptr, "call foo on window"));
	assert_int_equal(query_int(f, "SELECT file_size FROM notes"), (int64_t)text.len);
	assert_int_equal(query_int(f, "SELECT rule = 'call foo on window' FROM notes"), 1);
	callus_buf_release(&text);
}

/*
 * A person's edit of a note's file made while a second pass writes it
 * again, at the moment armed (note_edited_at_sync, note_edited_at_rename)
 * is set for: kept, and the next sync takes it in with the store's counts.
 */
static void edit_during_second_pass(fixture *f, char *armed, size_t size)
{
	callus_learn_opts o = note_ready(f);
	callus_learn_result r;
	callus_buf text = CALLUS_BUF_INIT;
	char cmd[256];
	int64_t apps;

	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	callus_learn_result_release(&r);
	assert_int_equal(note_path_file(f, &text, armed, size), 1);

	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	callus_learn_result_release(&r);
	assert_int_equal(armed[0], '\0'); /* the edit was made */
	assert_int_equal(note_file(f, &text), 1);
	assert_non_null(strstr(text.ptr, "keep me"));
	/* the fix and the suggestion of the first that worked again */
	apps = query_int(f, "SELECT applications FROM notes");
	assert_true(apps >= 2);
	assert_int_equal(callus_notes_sync(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(query_int(f, "SELECT edited FROM notes"), 1);
	assert_int_equal(query_int(f, "SELECT extra LIKE '%keep me%' FROM notes"), 1);
	assert_int_equal(query_int(f, "SELECT applications FROM notes"), apps);
	assert_int_equal(query_int(f, "SELECT file_size >= 0 FROM notes"), 1);
	assert_int_equal(note_file(f, &text), 1);
	assert_non_null(strstr(text.ptr, "keep me"));
	snprintf(cmd, sizeof(cmd), "\napplications: %lld\n", (long long)apps);
	assert_non_null(strstr(text.ptr, cmd));
	callus_buf_release(&text);
}

/* Made while the new text was synced, before its rename: it was written
 * over, and lost. */
static void a_persons_edit_while_a_note_is_written_is_kept(void **state)
{
	edit_during_second_pass(*state, note_edited_at_sync, sizeof(note_edited_at_sync));
}

/* Made just after the rename, before callus looked at what it wrote: it
 * was taken for callus's own file, never read, and written over by the
 * next change. */
static void a_persons_edit_just_after_a_note_is_written_is_taken_in(void **state)
{
	edit_during_second_pass(*state, note_edited_at_rename, sizeof(note_edited_at_rename));
}

/* Most passes are of checks that never failed: they must not write. */
static void pass_of_unknown_check_writes_nothing(void **state)
{
	fixture *f = *state;
	callus_learn_result r;

	pass_run(f, "never-failed", &r);
	assert_int_equal(r.nfixed, 0);
	callus_learn_result_release(&r);
	assert_int_equal(query_int(f, "SELECT count(*) FROM checks"), 0);
	/* once it failed, its passes count (a recurrence needs the count) */
	fail_run(f, "never-failed", 1, &r);
	callus_learn_result_release(&r);
	pass_run(f, "never-failed", &r);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
}

/* e failed once more in check o; the message its listed error (of
 * signature 0) then shows is want.  The failure's count of new errors. */
static size_t fail_shows(fixture *f, const callus_learn_opts *o, const callus_learn_error *e,
			 const char *want)
{
	callus_learn_result r;
	callus_pending *ps = NULL;
	size_t n = 0, nnew, found = 0;

	assert_int_equal(callus_learn_failure(f->s, o, e, 1, &r, NULL), 0);
	nnew = r.nnew;
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_list(f->s, NULL, &ps, &n, NULL), 0);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ps[i].args, o->check.args) && !strcmp(ps[i].signature_id, f->sig[0].id)) {
			assert_string_equal(ps[i].message, want);
			found++;
		}
	callus_pendings_free(ps, n);
	assert_int_equal(found, 1);
	return nnew;
}

/* The pending errors that keep no message of their own. */
#define NO_OWN_MESSAGE "SELECT count(*) FROM pending_errors WHERE message IS NULL"

/*
 * Errors of one signature differ in what its pattern leaves out: an error
 * is listed (and shown in AGENTS.md) with the message of its own last
 * failure, next to that failure's files, not with the first message the
 * signature was stored with.  Kept only when it differs (schema 34).
 */
static void an_error_keeps_its_own_message(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "--own", "s1");
	callus_strlist other = CALLUS_STRLIST_INIT;
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_diag d;
	callus_signature zip;

	/* no message of its own, then the original's own words: none kept */
	assert_int_equal(fail_shows(f, &o, &e, messages[0]), 1);
	e.message = messages[0];
	fail_shows(f, &o, &e, messages[0]);
	assert_int_equal(query_int(f, NO_OWN_MESSAGE), 1);

	/* another file's error of the signature: its message with its file */
	assert_int_equal(callus_strlist_add(&other, "src/z.js", 8), 0);
	e.files = &other;
	e.message = "'zap' is not defined.";
	fail_shows(f, &o, &e, "'zap' is not defined.");

	/* and back: the original's message again, kept as none */
	e.message = messages[0];
	fail_shows(f, &o, &e, messages[0]);
	assert_int_equal(query_int(f, NO_OWN_MESSAGE), 1);

	/* a new error of another check, first seen with another message */
	o = opts_for(f, "--own-too", "s1");
	e.message = "'zap' is not defined.";
	assert_int_equal(fail_shows(f, &o, &e, "'zap' is not defined."), 1);
	assert_int_equal(query_int(f, NO_OWN_MESSAGE), 1);
	callus_strlist_release(&other);

	/* an error naming no file: the run's own message of the signature */
	memset(&d, 0, sizeof(d));
	d.file = (char *)paths[0];
	d.code = (char *)codes[0];
	d.message = "'zip' is not defined.";
	assert_int_equal(callus_signature_build(&zip, &d, "eslint", NULL), 0);
	assert_string_equal(zip.id, f->sig[0].id);
	e.sig = &zip;
	e.files = NULL;
	e.message = NULL;
	fail_shows(f, &o, &e, "'zip' is not defined.");
	callus_signature_release(&zip);
}

static void third_failure_is_permanent_and_warned(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	callus_strlist want = CALLUS_STRLIST_INIT, other = CALLUS_STRLIST_INIT;
	callus_pending_filter flt = { CALLUS_STATE_PERMANENT, &want, 0, 0 };
	callus_pending *ps = NULL;
	size_t n = 0;

	for (int i = 1; i <= 3; i++) {
		fail_run(f, ".", 2, &r);
		assert_int_equal(r.npermanent, i == 3);
		assert_int_equal(r.npending, i == 3 ? 0 : 1);
		callus_learn_result_release(&r);
	}
	assert_int_equal(count_state(f, CALLUS_STATE_PERMANENT), 1);
	/* the same session failing again does not open a new episode */
	fail_run(f, ".", 2, &r);
	assert_int_equal(r.nnew, 0);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 0);

	callus_strlist_add(&want, "src/b.js", 8);
	assert_int_equal(callus_learn_list(f->s, &flt, &ps, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ps[0].attempts, 4);
	assert_string_equal(ps[0].files.items[0], "src/b.js");
	callus_pendings_free(ps, n);
	callus_strlist_add(&other, "src/zzz.js", 10);
	flt.files = &other;
	assert_int_equal(callus_learn_list(f->s, &flt, &ps, &n, NULL), 0);
	assert_int_equal(n, 0);
	callus_pendings_free(ps, n);
	/* a pass does not undo a permanent failure */
	pass_run(f, ".", &r);
	assert_int_equal(r.nfixed, 0);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PERMANENT), 1);
	callus_strlist_release(&want);
	callus_strlist_release(&other);
}

/* The files filter keeps the errors naming one of its files, newest first,
 * and a limit counts only those. */
static void list_by_files(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	callus_strlist want = { 0 };
	callus_pending_filter flt = { -1, &want, 1, 0 };
	callus_pending *ps = NULL;
	size_t n = 0;

	fail_run(f, "a", 1, &r);
	callus_learn_result_release(&r);
	fail_run(f, "bc", 6, &r);
	callus_learn_result_release(&r);
	callus_strlist_add(&want, "src/a.js", 8);
	callus_strlist_add(&want, "nowhere.js", 10);
	assert_int_equal(callus_learn_list(f->s, &flt, &ps, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ps[0].files.items[0], "src/a.js");
	callus_pendings_free(ps, n);
	callus_strlist_add(&want, "src/c.js", 8);
	flt.limit = 0;
	assert_int_equal(callus_learn_list(f->s, &flt, &ps, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ps[0].files.items[0], "src/c.js"); /* the newer run */
	assert_string_equal(ps[1].files.items[0], "src/a.js");
	callus_pendings_free(ps, n);
	callus_strlist_release(&want);
}

static void two_errors_one_fixed(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	callus_pending_filter flt = { CALLUS_STATE_PENDING, NULL, 0, 0 };
	callus_pending *ps = NULL;
	size_t n = 0;

	fail_run(f, "src", 1 | 4, &r);
	assert_int_equal(r.nnew, 2);
	callus_learn_result_release(&r);
	fail_run(f, "src", 4, &r);
	assert_int_equal(r.nfixed, 1);
	assert_int_equal(r.npending, 1);
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_list(f->s, &flt, &ps, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(ps[0].signature_id, f->sig[2].id);
	assert_int_equal(ps[0].attempts, 2);
	callus_pendings_free(ps, n);
	/* another check's errors are its own */
	fail_run(f, "other", 1, &r);
	assert_int_equal(r.nnew, 1);
	assert_int_equal(r.nfixed, 0);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 2);
	/* a failure callus could not parse fixes nothing */
	fail_run(f, "src", 0, &r);
	assert_int_equal(r.nfixed, 0);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 2);
}

static void transitions_are_one_way(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	sqlite3 *db = NULL;
	int drifted = -1;

	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_not_equal(sqlite3_exec(db, "UPDATE pending_errors SET state = 'pending'", NULL,
					  NULL, NULL),
			     SQLITE_OK);
	assert_non_null(strstr(sqlite3_errmsg(db), "stays so"));
	assert_int_not_equal(sqlite3_exec(db, "UPDATE pending_errors SET state = 'permanent'", NULL,
					  NULL, NULL),
			     SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(db,
					  "INSERT INTO pending_errors (check_id, sig, state,"
					  " first_failure_at, last_failure_at) SELECT check_id,"
					  " sig, 'fixed', 'x', 'x' FROM pending_errors",
					  NULL, NULL, NULL),
			     SQLITE_OK);
	assert_non_null(strstr(sqlite3_errmsg(db), "starts pending"));
	sqlite3_close(db);
	assert_int_equal(count_state(f, CALLUS_STATE_FIXED), 1);
	/* a refused change leaves no count behind (schema 46 keeps the states
	 * one-way after the row is written, the totals with them) */
	assert_int_equal(callus_store_totals_check(f->s, 0, &drifted, NULL), 0);
	assert_false(drifted);
}

static int64_t resolution_of(fixture *f, int which, callus_resolution *out)
{
	callus_resolution *rs = NULL;
	size_t n = 0;
	int64_t id;

	assert_int_equal(callus_learn_resolutions(f->s, f->sig[which].id, 1, &rs, &n, NULL), 0);
	assert_int_equal(n, 1);
	id = rs[0].id;
	assert_int_equal(callus_learn_get_resolution(f->s, id, out, NULL), 0);
	callus_resolutions_free(rs, n);
	return id;
}

/* Error `which` failing check `args` and then fixed: its resolution's id. */
static int64_t fix_learnt(fixture *f, const char *args, int which)
{
	callus_learn_result r;
	callus_resolution res;
	int64_t id;

	fail_run(f, args, 1u << which, &r);
	callus_learn_result_release(&r);
	pass_run(f, args, &r);
	callus_learn_result_release(&r);
	id = resolution_of(f, which, &res);
	callus_resolution_release(&res);
	return id;
}

/* How many lines of the file hold needle. */
static int count_lines_with(const char *path, const char *needle)
{
	FILE *fp = fopen(path, "r");
	char line[4096];
	int n = 0;

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		n += strstr(line, needle) != NULL;
	fclose(fp);
	return n;
}

/* Every metric row as "name labels part=value\n". */
static int row_text(void *ctx, const callus_metric_row *row)
{
	return callus_buf_printf(ctx, "%s %s %s=%g\n", row->name, row->labels, row->part,
			       row->value) < 0;
}

/* A failure's first CALLUS_LEARN_SUGGEST_SEARCH pending errors are
 * searched for suggestions, in the output's order, and no more: error 0's
 * fix is suggested when it is the last of them, not when it comes after. */
static void suggestions_searched_for_the_first_errors(void **state)
{
	enum { N = CALLUS_LEARN_SUGGEST_SEARCH };
	fixture *f = *state;
	callus_signature *more = calloc(N, sizeof(*more));
	callus_learn_error *errs = calloc(N + 1, sizeof(*errs));
	callus_strlist file = CALLUS_STRLIST_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	callus_learn_result r;
	callus_learn_opts o;
	int64_t id;

	assert_non_null(more);
	assert_non_null(errs);
	id = fix_learnt(f, "one", 0);
	/* other errors, each its own rule, nothing like error 0's */
	assert_int_equal(callus_strlist_add(&file, "src/other.js", 12), 0);
	for (int i = 0; i < N; i++) {
		char code[32], msg[64];
		callus_diag d;

		snprintf(code, sizeof(code), "plugin/rule-%c%c", 'a' + i / 26, 'a' + i % 26);
		snprintf(msg, sizeof(msg), "Expected indentation of %c%c tabs.", 'a' + i / 26,
			 'a' + i % 26);
		memset(&d, 0, sizeof(d));
		d.file = "src/other.js";
		d.line = 1;
		d.code = code;
		d.message = msg;
		assert_int_equal(callus_signature_build(&more[i], &d, "eslint", NULL), 0);
		errs[i].sig = &more[i];
		errs[i].files = &file;
	}
	assert_int_equal(store_lesson(f->s, "src/other.js", "indentation", more, N), 0);

	/* the last one searched */
	o = opts_for(f, "two", "s1");
	errs[N - 1].sig = &f->sig[0];
	errs[N - 1].files = &f->files[0];
	if (callus_learn_failure(f->s, &o, errs, N, &r, &err) < 0)
		fail_msg("%s", callus_error_message(&err));
	assert_int_equal(r.nsuggestions, 1);
	assert_int_equal(r.suggestions[0].resolution_id, id);
	callus_learn_result_release(&r);

	/* one past them */
	o = opts_for(f, "three", "s1");
	errs[N - 1].sig = &more[N - 1];
	errs[N - 1].files = &file;
	errs[N].sig = &f->sig[0];
	errs[N].files = &f->files[0];
	if (callus_learn_failure(f->s, &o, errs, N + 1, &r, &err) < 0)
		fail_msg("%s", callus_error_message(&err));
	assert_int_equal(r.nsuggestions, 0);
	callus_learn_result_release(&r);

	for (int i = 0; i < N; i++)
		callus_signature_release(&more[i]);
	free(more);
	free(errs);
	callus_strlist_release(&file);
	callus_error_release(&err);
}

static void suggestions_settle_into_metrics(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	callus_resolution res;
	callus_buf rows = CALLUS_BUF_INIT;
	callus_metrics *stored = NULL;
	char log[128];
	int64_t id;

	/* learn a fix for error 0 on one check; nothing matched it: the
	 * miss is logged once */
	snprintf(log, sizeof(log), "%s/.callus", f->dir);
	assert_int_equal(mkdir(log, 0700), 0);
	fail_run(f, "one", 1, &r);
	assert_int_equal(r.nsuggestions, 0);
	callus_learn_result_release(&r);
	fail_run(f, "one", 1, &r);
	callus_learn_result_release(&r);
	snprintf(log, sizeof(log), "%s/.callus/log.jsonl", f->dir);
	assert_int_equal(count_lines_with(log, "\"event\":\"match_miss\""), 1);
	assert_int_equal(count_lines_with(log, f->sig[0].id), 1);
	pass_run(f, "one", &r);
	callus_learn_result_release(&r);
	id = resolution_of(f, 0, &res);
	callus_resolution_release(&res);

	/* the same error elsewhere: the fix is suggested, then it works */
	fail_run(f, "two", 1, &r);
	assert_int_equal(r.nsuggestions, 1);
	assert_int_equal(r.suggestions[0].resolution_id, id);
	assert_string_equal(r.suggestions[0].signature_id, f->sig[0].id);
	callus_learn_result_release(&r);
	pass_run(f, "two", &r);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_get_resolution(f->s, id, &res, NULL), 0);
	assert_int_equal(res.application_count, 2);
	assert_int_equal(res.success_count, 2);
	callus_resolution_release(&res);

	/* it comes back on the very next run of "two": that success is undone */
	fail_run(f, "two", 1, &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_get_resolution(f->s, id, &res, NULL), 0);
	assert_int_equal(res.application_count, 2);
	assert_int_equal(res.success_count, 1);
	assert_true(res.success_rate == 0.5);
	callus_resolution_release(&res);

	/* suggested again, and the error becomes permanent: a failure */
	fail_run(f, "two", 1, &r);
	callus_learn_result_release(&r);
	fail_run(f, "two", 1, &r);
	assert_int_equal(r.npermanent, 1);
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_get_resolution(f->s, id, &res, NULL), 0);
	assert_int_equal(res.application_count, 3);
	assert_int_equal(res.success_count, 1);
	callus_resolution_release(&res);

	/* hindsight.resolution.*: the application that worked, and the two
	 * that did not when the error became permanent (the fix of "two" is
	 * a resolution too, suggested with the first); the undone success
	 * moves the counts but is no application.  Stored with each run's
	 * writes, the caller's metrics emptied then. */
	assert_true(callus_metrics_is_empty(f->m));
	assert_int_equal(callus_metrics_new(&stored), 0);
	assert_int_equal(callus_store_read_metrics(f->s, stored, NULL), 0);
	assert_int_equal(callus_metrics_each_row(stored, row_text, &rows), 0);
	callus_metrics_free(stored);
	assert_non_null(strstr(rows.ptr, "hindsight.resolution.applications"
					 " {\"success\":\"true\",\"layer\":\"project\"} =1\n"));
	assert_non_null(strstr(rows.ptr, "hindsight.resolution.applications"
					 " {\"success\":\"false\",\"layer\":\"project\"} =2\n"));
	assert_non_null(strstr(rows.ptr, "hindsight.resolution.success_rate {} count=3\n"));
	assert_non_null(strstr(rows.ptr, "hindsight.match.total"));
	callus_buf_release(&rows);
}

/* The caller's metrics go in with learning's writes, both sets or
 * neither: a write that fails part way (here a trigger refusing the
 * fifth of eight series) leaves none of them stored and all of them the
 * caller's, so that its later flush counts each once, not the first four
 * twice. */
static void metrics_stored_whole_or_not_at_all(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char label[16];
	const char *labels[] = { label };
	sqlite3 *db = callus_store_db(f->s);

	for (int i = 0; i < 8; i++) {
		snprintf(label, sizeof(label), "r%d", i);
		assert_int_equal(callus_metrics_add(f->m, CALLUS_METRIC_FAILSAFE_DROPPED, labels, 1), 0);
	}
	assert_int_equal(sqlite3_exec(db,
				      "CREATE TEMP TRIGGER refuse_r4 BEFORE INSERT ON main.metrics"
				      " WHEN NEW.labels LIKE '%r4%' BEGIN SELECT RAISE(ABORT, 'no'); END",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	/* the run is stored, its metrics are not, and they are still the
	 * caller's with what the run measured */
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM metrics"
				      " WHERE name = 'callus.failsafe.dropped_total'"),
			 0);
	assert_false(callus_metrics_is_empty(f->m));
	assert_int_equal(sqlite3_exec(db, "DROP TRIGGER refuse_r4", NULL, NULL, NULL), SQLITE_OK);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_true(callus_metrics_is_empty(f->m));
	assert_int_equal(query_int(f, "SELECT count(*) FROM metrics"
				      " WHERE name = 'callus.failsafe.dropped_total'"),
			 8);
	assert_int_equal(query_int(f, "SELECT count(*) FROM metrics"
				      " WHERE name = 'callus.failsafe.dropped_total' AND value = 1"),
			 8);
	assert_true(query_int(f, "SELECT count(*) FROM metrics WHERE name LIKE 'hindsight.%'") > 0);
}

static void feedback_updates_the_rate(void **state)
{
	fixture *f = *state;
	callus_resolution res;
	callus_error err = CALLUS_ERROR_INIT;
	int64_t id;

	id = fix_learnt(f, ".", 2);
	assert_int_equal(callus_learn_feedback(f->s, id, 0, "did not help", NULL, NULL), 0);
	assert_int_equal(callus_learn_feedback(f->s, id, 0, NULL, NULL, NULL), 0);
	assert_int_equal(callus_learn_feedback(f->s, id, 1, NULL, NULL, NULL), 0);
	assert_int_equal(callus_learn_get_resolution(f->s, id, &res, NULL), 0);
	assert_int_equal(res.application_count, 4);
	assert_int_equal(res.success_count, 2);
	assert_true(res.success_rate == 0.5);
	assert_string_not_equal(res.last_success_at, "");
	callus_resolution_release(&res);
	assert_int_equal(callus_learn_feedback(f->s, 999, 1, NULL, NULL, &err), CALLUS_ENOTFOUND);
	assert_non_null(strstr(callus_error_message(&err), "999"));
	callus_error_release(&err);
}

static void prune_drops_only_idle_pending(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	size_t dropped = 99;

	fail_run(f, "a", 1, &r);
	callus_learn_result_release(&r);
	pass_run(f, "a", &r);
	callus_learn_result_release(&r);
	fail_run(f, "b", 2, &r);
	callus_learn_result_release(&r);
	fail_run(f, "c", 4, &r);
	callus_learn_result_release(&r);
	/* b was abandoned a month ago */
	exec_sql(f, "UPDATE pending_errors SET last_failure_at = '2020-01-01T00:00:00.000Z'"
		    " WHERE check_id = (SELECT id FROM checks WHERE args = 'b')");
	assert_int_equal(callus_learn_prune(f->s, 24, NULL, 0, &dropped, NULL, NULL), 0);
	assert_int_equal(dropped, 1);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 1);
	assert_int_equal(count_state(f, CALLUS_STATE_FIXED), 1);
	assert_int_equal(callus_learn_prune(f->s, 24, NULL, 0, &dropped, NULL, NULL), 0);
	assert_int_equal(dropped, 0);
}

/* A recording drops its own check's abandoned errors, all of them (held,
 * one would be fixed by this run), and a batch of the others': a
 * workspace back after weeks away paid for thousands in one hook. */
static void a_recording_prunes_its_check_and_a_batch(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char args[16];
	int n = CALLUS_LEARN_PRUNE_BATCH + 5;

	fail_run(f, "own", 1, &r);
	callus_learn_result_release(&r);
	for (int i = 0; i < n; i++) {
		snprintf(args, sizeof(args), "o%d", i);
		fail_run(f, args, 1, &r);
		callus_learn_result_release(&r);
	}
	/* the own check's the newest of the abandoned: the batch, oldest
	 * first, leaves it out */
	exec_sql(f, "UPDATE pending_errors SET last_failure_at = '2020-01-01T00:00:00.000Z';"
		    "UPDATE pending_errors SET last_failure_at = '2020-06-01T00:00:00.000Z'"
		    " WHERE check_id = (SELECT id FROM checks WHERE args = 'own')");
	/* its error 0 absent now: abandoned, it goes, not fixed */
	fail_run(f, "own", 2, &r);
	assert_int_equal(r.pruned, CALLUS_LEARN_PRUNE_BATCH + 1);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_FIXED), 0);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 5 + 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors p JOIN checks c ON"
				      " c.id = p.check_id WHERE c.args = 'own'"),
			 1);
	pass_run(f, "own", &r);
	assert_int_equal(r.pruned, 5);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 0);
	assert_int_equal(count_state(f, CALLUS_STATE_FIXED), 1);
}

/* A run replayed from a transcript (callus import): its own time, and the
 * fix its caller knows (a secret in it redacted like a snapshot's diff). */
static void replayed_runs_take_their_time_and_fix(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "r", "s1");
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_learn_result r;
	callus_resolution res;
	const char *patch = "diff --git a/src/a.js b/src/a.js\n--- a/src/a.js\n+++ b/src/a.js\n"
			    "@@ -3,1 +3,2 @@\n-x = foo;\n+const foo = 1;\n"
			    "+const key = \"ghp_0123456789abcdefghijABCDEFGHIJ012345\";\n";

	(void)state;
	/* years ago: pruning counts from the run, not the clock */
	o.now = "2020-01-01T00:00:00.000Z";
	o.fix_patch = "";
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, NULL), 0);
	assert_int_equal(r.nnew, 1);
	callus_learn_result_release(&r);
	o.now = "2020-01-01T00:05:00.000Z";
	o.fix_patch = patch;
	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	assert_int_equal(r.nfixed, 1);
	assert_int_equal(callus_learn_get_resolution(f->s, r.fixed_resolutions[0], &res, NULL), 0);
	assert_string_equal(res.created_at, "2020-01-01T00:05:00.000Z");
	assert_non_null(strstr(res.code_changes, "+const foo = 1;"));
	assert_null(strstr(res.code_changes, "ghp_0123456789"));
	assert_non_null(strstr(res.description, "src/a.js"));
	callus_resolution_release(&res);
	callus_learn_result_release(&r);
	/* no edit between a failure and the pass: closed, nothing learnt */
	o.now = "2020-01-02T00:00:00.000Z";
	o.fix_patch = "";
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, NULL), 0);
	callus_learn_result_release(&r);
	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	assert_int_equal(r.nfixed, 0);
	assert_int_equal(r.nunchanged, 1);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 0);
}

/* One run of o's check at now, delivered late or not: a failure of e[0..n),
 * or a pass when e is NULL.  What it moved: a pass's fixed and unchanged
 * errors, a failure's new and pending ones. */
static size_t run_at(fixture *f, callus_learn_opts *o, const char *now, int late,
		     const callus_learn_error *e, size_t n)
{
	callus_learn_result r;
	size_t moved;

	o->now = now;
	o->redelivered = late;
	if (e)
		assert_int_equal(callus_learn_failure(f->s, o, e, n, &r, NULL), 0);
	else
		assert_int_equal(callus_learn_pass(f->s, o, &r, NULL), 0);
	moved = e ? r.nnew + r.npending : r.nfixed + r.nunchanged;
	callus_learn_result_release(&r);
	return moved;
}

/* Whether check q's last run (and, when given, last pass) is at these. */
static int q_times(fixture *f, const char *run, const char *pass)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM checks WHERE args = 'q' AND last_run_at = '%s'%s%s%s", run,
		 pass ? " AND last_pass_at = '" : "", pass ? pass : "", pass ? "'" : "");
	return (int)query_int(f, sql);
}

/* A pass delivered late (a queued one, drained): it fixes only what failed
 * before it ran; delivered again, or with nothing of before pending, it
 * writes nothing, not even the check's run; the check's last run stays the
 * newest.  A failure delivered late after its check passed opens nothing.
 * An imported run (a time, not late) leaves the check's newest times. */
static void a_redelivered_pass_fixes_only_what_failed_before_it(void **state)
{
	fixture *f = *state;
	callus_learn_opts o = opts_for(f, "q", "s1");
	callus_learn_error e[2] = { { &f->sig[0], &f->files[0], NULL },
				    { &f->sig[1], &f->files[1], NULL } };
	const char *runs = "SELECT runs FROM checks WHERE args = 'q'";

	o.fix_patch = "";
	run_at(f, &o, "2020-01-01T00:00:00.000Z", 0, &e[0], 1);
	run_at(f, &o, "2020-01-01T00:10:00.000Z", 0, &e[1], 1);
	/* the second failure closed the first's error: failed again */
	run_at(f, &o, "2020-01-01T00:20:00.000Z", 0, e, 2);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 2);
	assert_int_equal(query_int(f, runs), 3);
	/* a pass of before every failure: nothing fixed, nothing written */
	assert_int_equal(run_at(f, &o, "2019-12-31T23:00:00.000Z", 1, NULL, 0), 0);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 2);
	assert_int_equal(query_int(f, runs), 3);
	/* one of after the last failure: both closed, one run more */
	assert_int_equal(run_at(f, &o, "2020-01-01T00:25:00.000Z", 1, NULL, 0), 2);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 0);
	assert_int_equal(query_int(f, runs), 4);
	/* delivered again: nothing */
	assert_int_equal(run_at(f, &o, "2020-01-01T00:25:00.000Z", 1, NULL, 0), 0);
	assert_int_equal(query_int(f, runs), 4);
	/* both failed last at :50: a pass of :45 closes neither, and leaves
	 * the check's last run at :50 */
	run_at(f, &o, "2020-01-01T00:40:00.000Z", 0, &e[0], 1);
	run_at(f, &o, "2020-01-01T00:50:00.000Z", 0, e, 2);
	assert_int_equal(run_at(f, &o, "2020-01-01T00:45:00.000Z", 1, NULL, 0), 0);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 2);
	assert_int_equal(q_times(f, "2020-01-01T00:50:00.000Z", NULL), 1);
	/* a live pass at :55, then a failure of :52 delivered late: its
	 * errors are not pending again, and the check's times stay */
	run_at(f, &o, "2020-01-01T00:55:00.000Z", 0, NULL, 0);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 0);
	assert_int_equal(run_at(f, &o, "2020-01-01T00:52:00.000Z", 1, e, 2), 0);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 0);
	assert_int_equal(q_times(f, "2020-01-01T00:55:00.000Z", NULL), 1);
	/* one of after the pass opens them as a live one would */
	run_at(f, &o, "2020-01-01T00:58:00.000Z", 1, e, 2);
	assert_int_equal(count_state(f, CALLUS_STATE_PENDING), 2);
	/* an imported pass of long before leaves the check's newest times */
	run_at(f, &o, "2019-06-01T00:00:00.000Z", 0, NULL, 0);
	assert_int_equal(q_times(f, "2020-01-01T00:58:00.000Z", "2020-01-01T00:55:00.000Z"), 1);
}

/* Sessions fail and pass the same checks at once: every error is learnt
 * once, none is fixed twice, nothing is lost to a lock. */
static void concurrent_sessions(void **state)
{
	fixture *f = *state;
	enum { PROCS = 6, ROUNDS = 10 };
	callus_resolution *rs = NULL;
	size_t n = 0;
	pid_t pids[PROCS];

	for (int p = 0; p < PROCS; p++) {
		pids[p] = fork();
		assert_true(pids[p] >= 0);
		if (pids[p] == 0) {
			callus_store *s = NULL;
			int bad = callus_store_open(&s, f->path, 20000, NULL) < 0;

			callus_store_close(f->s);
			f->s = s;
			for (int i = 0; i < ROUNDS && !bad; i++) {
				char args[16];
				callus_learn_opts o;
				callus_learn_error e = { &f->sig[i % 3], &f->files[i % 3], NULL };
				callus_learn_result r;

				snprintf(args, sizeof(args), "c%d", i % 2);
				o = opts_for(f, args, p % 2 ? "s1" : "s2");
				if ((p + i) % 2)
					bad |= callus_learn_failure(s, &o, &e, 1, &r, NULL) < 0;
				else
					bad |= callus_learn_pass(s, &o, &r, NULL) < 0;
				callus_learn_result_release(&r);
			}
			callus_store_close(s);
			_exit(bad);
		}
	}
	for (int p = 0; p < PROCS; p++) {
		int st = -1;

		assert_int_equal(waitpid(pids[p], &st, 0), pids[p]);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	/* one resolution per fixed error, never two for the same pending one */
	assert_int_equal(callus_learn_resolutions(f->s, NULL, 0, &rs, &n, NULL), 0);
	assert_int_equal(n, count_state(f, CALLUS_STATE_FIXED));
	callus_resolutions_free(rs, n);
	assert_int_equal(query_int(f, "SELECT count(*) FROM (SELECT check_id, sig FROM"
				      " pending_errors WHERE state = 'pending' GROUP BY 1, 2"
				      " HAVING count(*) > 1)"),
			 0);
}

/* The first bytes of path, NUL-terminated: how many were read. */
static ssize_t read_text(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, cap - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* What the hook before an edit reads first: the files of fixed and
 * permanent errors, listed beside the store by the learning transaction. */
static void file_index_follows_what_was_learnt(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char idx[128], text[256];
	struct stat before, after;

	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), CALLUS_ENOTFOUND);
	fail_run(f, ".", 3, &r);
	callus_learn_result_release(&r);
	/* pending errors are no knowledge yet */
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), CALLUS_ENOTFOUND);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/b.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 0);
	/* whole paths only */
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a"), 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "a.js"), 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src"), 0);

	snprintf(idx, sizeof(idx), "%s/" CALLUS_FILEINDEX_NAME, f->dir);
	assert_int_equal(stat(idx, &before), 0);
	for (int i = 0; i < CALLUS_LEARN_MAX_RETRIES; i++) {
		fail_run(f, "other", 4, &r);
		callus_learn_result_release(&r);
	}
	assert_int_equal(count_state(f, CALLUS_STATE_PERMANENT), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 1);
	/* appended to, not written again: the same file, the new entry last */
	assert_int_equal(stat(idx, &after), 0);
	assert_true(after.st_ino == before.st_ino);
	assert_int_equal(after.st_size, before.st_size + (off_t)strlen("src/c.js\n"));
	assert_int_equal(read_text(idx, text, sizeof(text)), after.st_size);
	assert_string_equal(text + after.st_size - strlen("\nsrc/c.js\n"), "\nsrc/c.js\n");

	/* a last line cut short (a crash while appending) is not appended
	 * to: the list is written again, whole */
	{
		int64_t id = query_int(f, "SELECT id FROM pending_errors WHERE state = 'permanent'");

		assert_true(id > 0);
		assert_int_equal(truncate(idx, after.st_size - 3), 0);
		assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 0);
		assert_int_equal(callus_fileindex_add(f->s, &id, 1, NULL), 0);
		assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 1);
		assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
		assert_int_equal(read_text(idx, text, sizeof(text)), after.st_size);
		assert_int_equal(text[after.st_size - 1], '\n');
	}

	/* a lost or damaged index is no answer, and is rebuilt from the store */
	assert_int_equal(truncate(idx, 5), 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), CALLUS_ENOTFOUND);
	assert_int_equal(callus_fileindex_write(f->s, NULL), 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 1);
}

/* fsync and fdatasync, wrapped (the Makefile links this test with --wrap
 * for both): the calls on the indexes beside the store (or their
 * temporary files) counted by index. */
int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);
static int files_syncs, checks_syncs;

static void count_sync(int fd)
{
	char link[64], target[PATH_MAX];
	ssize_t n;
	const char *base;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, target, sizeof(target) - 1)) < 0)
		return;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	files_syncs += strstr(base, CALLUS_FILEINDEX_NAME) != NULL;
	checks_syncs += strstr(base, CALLUS_CHECKINDEX_NAME) != NULL;
	if (*note_edited_at_sync) {
		const char *name = strrchr(note_edited_at_sync, '/') + 1;

		/* the temporary file: ".NAME.callus-PID-..." */
		if (base[0] == '.' && !strncmp(base + 1, name, strlen(name)))
			persons_edit(note_edited_at_sync);
	}
}

int __wrap_fsync(int fd)
{
	count_sync(fd);
	return __real_fsync(fd);
}

int __wrap_fdatasync(int fd)
{
	count_sync(fd);
	return __real_fdatasync(fd);
}

/* files.idx is a hint the store writes again whole: none of its writes
 * waits for the disk, where checks.idx's do (a check missing from it
 * would lose a fix).  A power loss may then take back its last lines:
 * callus_fileindex_check() finds them missing and, with fix, writes the
 * list again under the store's write lock. */
static void file_index_is_a_hint_checked_against_the_store(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char idx[128];
	struct stat st;
	size_t known, unlisted;

	snprintf(idx, sizeof(idx), "%s/" CALLUS_FILEINDEX_NAME, f->dir);
	files_syncs = checks_syncs = 0;
	/* nothing known and no index: the hook before an edit makes an empty
	 * one (callus_fileindex_ensure), so that the next answers without
	 * the store */
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), CALLUS_ENOTFOUND);
	assert_int_equal(callus_fileindex_check(f->s, 0, &known, &unlisted, NULL), CALLUS_ENOTFOUND);
	assert_int_equal(known, 0);
	assert_int_equal(callus_fileindex_ensure(f->s, NULL), 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 0);
	/* and doctor's fix makes it as well */
	assert_int_equal(unlink(idx), 0);
	assert_int_equal(callus_fileindex_check(f->s, 1, &known, &unlisted, NULL), 0);
	assert_int_equal(known, 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 0);
	fail_run(f, ".", 3, &r);
	callus_learn_result_release(&r);
	pass_run(f, ".", &r); /* appended to */
	callus_learn_result_release(&r);
	for (int i = 0; i < CALLUS_LEARN_MAX_RETRIES; i++) {
		fail_run(f, "other", 4, &r); /* appended to again */
		callus_learn_result_release(&r);
	}
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 1);
	assert_int_equal(files_syncs, 0);
	assert_true(checks_syncs > 0);

	assert_int_equal(callus_fileindex_check(f->s, 0, &known, &unlisted, NULL), 0);
	assert_int_equal(known, 3);
	assert_int_equal(unlisted, 0);
	/* the last append taken back by a power loss: a whole line gone */
	assert_int_equal(stat(idx, &st), 0);
	assert_int_equal(truncate(idx, st.st_size - (off_t)strlen("src/c.js\n")), 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 0);
	assert_int_equal(callus_fileindex_check(f->s, 0, &known, &unlisted, NULL), 0);
	assert_int_equal(known, 3);
	assert_int_equal(unlisted, 1);
	/* the check only counted it, and ensure makes a missing index only:
	 * this one is left to doctor */
	assert_int_equal(callus_fileindex_ensure(f->s, NULL), 0);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 0);
	assert_int_equal(callus_fileindex_check(f->s, 1, &known, &unlisted, NULL), 0);
	assert_int_equal(unlisted, 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/b.js"), 1);
	assert_int_equal(callus_fileindex_check(f->s, 0, &known, &unlisted, NULL), 0);
	assert_int_equal(unlisted, 0);
	assert_int_equal(files_syncs, 0);

	/* none: no answer without fix, written whole with it */
	assert_int_equal(unlink(idx), 0);
	assert_int_equal(callus_fileindex_check(f->s, 0, &known, &unlisted, NULL), CALLUS_ENOTFOUND);
	assert_int_equal(known, 3);
	assert_int_equal(unlisted, 3);
	assert_int_equal(access(idx, F_OK), -1);
	assert_int_equal(callus_fileindex_check(f->s, 1, &known, &unlisted, NULL), 0);
	assert_int_equal(known, 3);
	assert_int_equal(unlisted, 3);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 1);
	assert_int_equal(files_syncs, 0);
}

/* The header of a list written by hand whose lines are all appended ones
 * (its sorted part, empty, ends where the header does). */
#define IDX_HEAD "callus-files 2 0000000026\n"

/* Write an index by hand: the header, then these lines. */
static void put_index(const char *idx, const char *lines)
{
	FILE *fp = fopen(idx, "w");

	assert_non_null(fp);
	fprintf(fp, IDX_HEAD "%s", lines);
	assert_int_equal(fclose(fp), 0);
}

/* A fix adds to the index the files it does not list as whole lines (a
 * listed path that holds the file's, or is held in it, is another file),
 * sorted, each once: for a fix of many files and of one. */
static void file_index_adds_only_the_unlisted(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char idx[128], text[2048], name[32];

	snprintf(idx, sizeof(idx), "%s/" CALLUS_FILEINDEX_NAME, f->dir);
	/* src/a.js and 40 more, src/m0.js .. src/m39.js */
	for (int i = 0; i < 40; i++) {
		snprintf(name, sizeof(name), "src/m%d.js", i);
		assert_int_equal(callus_strlist_add(&f->files[0], name, strlen(name)), 0);
	}
	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	put_index(idx, "xsrc/a.js\nsrc/a.jsx\nsrc/m3.js\nsrc/m1.js.bak\nsrc/m1\n");
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	/* what was there, then the others sorted (strcmp's order) */
	assert_true(read_text(idx, text, sizeof(text)) > 0);
	assert_string_equal(text, IDX_HEAD "xsrc/a.js\nsrc/a.jsx\nsrc/m3.js\nsrc/m1.js.bak\n"
				  "src/m1\nsrc/a.js\nsrc/m0.js\nsrc/m1.js\nsrc/m10.js\nsrc/m11.js\n"
				  "src/m12.js\nsrc/m13.js\nsrc/m14.js\nsrc/m15.js\nsrc/m16.js\n"
				  "src/m17.js\nsrc/m18.js\nsrc/m19.js\nsrc/m2.js\nsrc/m20.js\n"
				  "src/m21.js\nsrc/m22.js\nsrc/m23.js\nsrc/m24.js\nsrc/m25.js\n"
				  "src/m26.js\nsrc/m27.js\nsrc/m28.js\nsrc/m29.js\nsrc/m30.js\n"
				  "src/m31.js\nsrc/m32.js\nsrc/m33.js\nsrc/m34.js\nsrc/m35.js\n"
				  "src/m36.js\nsrc/m37.js\nsrc/m38.js\nsrc/m39.js\nsrc/m4.js\n"
				  "src/m5.js\nsrc/m6.js\nsrc/m7.js\nsrc/m8.js\nsrc/m9.js\n");

	/* one file: src/b.js, failing for good in another check */
	put_index(idx, "src/b.jsx\nxsrc/b.js\nsrc/b\n");
	for (int i = 0; i < CALLUS_LEARN_MAX_RETRIES; i++) {
		fail_run(f, "other", 2, &r);
		callus_learn_result_release(&r);
	}
	assert_int_equal(count_state(f, CALLUS_STATE_PERMANENT), 1);
	assert_true(read_text(idx, text, sizeof(text)) > 0);
	assert_string_equal(text, IDX_HEAD "src/b.jsx\nxsrc/b.js\nsrc/b\nsrc/b.js\n");
	/* listed already (first, last): nothing added */
	{
		int64_t id = query_int(f, "SELECT id FROM pending_errors WHERE state = 'permanent'");

		put_index(idx, "src/b.js\nsrc/z.js\n");
		assert_int_equal(callus_fileindex_add(f->s, &id, 1, NULL), 0);
		assert_true(read_text(idx, text, sizeof(text)) > 0);
		assert_string_equal(text, IDX_HEAD "src/b.js\nsrc/z.js\n");
		put_index(idx, "src/z.js\nsrc/b.js\n");
		assert_int_equal(callus_fileindex_add(f->s, &id, 1, NULL), 0);
		assert_true(read_text(idx, text, sizeof(text)) > 0);
		assert_string_equal(text, IDX_HEAD "src/z.js\nsrc/b.js\n");
	}
}

/* A fix adds the files of the errors it closed, not those of every error
 * its check ever closed: those are listed already (by their own fix, or a
 * rewrite), and reading them again made each fix of a long-lived check
 * cost its history.  Two errors of one file are one line. */
static void file_index_adds_what_this_fix_closed(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char idx[128], text[256];
	int64_t ids[2];

	snprintf(idx, sizeof(idx), "%s/" CALLUS_FILEINDEX_NAME, f->dir);
	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
	/* an index that no longer lists the first fix's file (as if written
	 * before it): the check's next fix does not look for it */
	put_index(idx, "src/z.js\n");
	fail_run(f, ".", 2, &r);
	callus_learn_result_release(&r);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_true(read_text(idx, text, sizeof(text)) > 0);
	assert_string_equal(text, IDX_HEAD "src/z.js\nsrc/b.js\n");

	/* two closed errors of one file, and one id with no files: one line */
	put_index(idx, "src/z.js\n");
	ids[0] = query_int(f, "SELECT id FROM pending_errors WHERE resolution_id IS NOT NULL"
			      " ORDER BY id LIMIT 1");
	ids[1] = ids[0];
	assert_int_equal(callus_fileindex_add(f->s, ids, 2, NULL), 0);
	ids[0] = -1;
	assert_int_equal(callus_fileindex_add(f->s, ids, 1, NULL), 0);
	assert_true(read_text(idx, text, sizeof(text)) > 0);
	assert_string_equal(text, IDX_HEAD "src/z.js\nsrc/a.js\n");
}

static int by_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Write an index by hand: lines[0..n) as its sorted part, then tail. */
static void put_sorted_index(const char *idx, char *const *lines, size_t n, const char *tail)
{
	callus_buf b = CALLUS_BUF_INIT;
	FILE *fp = fopen(idx, "w");

	assert_non_null(fp);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(callus_buf_printf(&b, "%s\n", lines[i]), 0);
	fprintf(fp, "callus-files 2 %010zu\n%s%s", strlen(IDX_HEAD) + b.len, b.len ? b.ptr : "",
		tail);
	assert_int_equal(fclose(fp), 0);
	callus_buf_release(&b);
}

static int among(char *const *lines, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(lines[i], s) == 0)
			return 1;
	return 0;
}

/* The sorted part is looked up by bisection: every line found wherever it
 * falls, in lists of every shape, and no path that is not a whole line (a
 * line's prefix, a line and more); a header that does not say where a
 * sorted part ending a line ends is no index. */
static void file_index_bisects_its_sorted_part(void **state)
{
	static const size_t sizes[] = { 1, 2, 3, 4, 5, 8, 13, 64 };
	fixture *f = *state;
	char idx[128], path[64], *lines[400];
	size_t n = 0;

	snprintf(idx, sizeof(idx), "%s/" CALLUS_FILEINDEX_NAME, f->dir);
	/* lengths that differ, and lines that begin other lines */
	for (int i = 0; i < 300; i++) {
		snprintf(path, sizeof(path), "src/%c/f%d.js", 'a' + i % 7, i);
		assert_non_null(lines[n++] = strdup(path));
		if (i % 5 == 0) {
			snprintf(path, sizeof(path), "src/%c/f%d.js.orig", 'a' + i % 7, i);
			assert_non_null(lines[n++] = strdup(path));
		}
	}
	qsort(lines, n, sizeof(*lines), by_strcmp);
	for (size_t z = 0; z <= sizeof(sizes) / sizeof(sizes[0]); z++) {
		size_t k = z < sizeof(sizes) / sizeof(sizes[0]) ? sizes[z] : n;

		put_sorted_index(idx, lines, k, "src/tail.js\n");
		assert_int_equal(callus_fileindex_lookup(f->dir, "src/tail.js"), 1);
		for (size_t j = 0; j < n; j++) {
			size_t len = strlen(lines[j]);

			assert_int_equal(callus_fileindex_lookup(f->dir, lines[j]), j < k);
			snprintf(path, sizeof(path), "%.*s", (int)(len - 1), lines[j]);
			assert_int_equal(callus_fileindex_lookup(f->dir, path), among(lines, k, path));
			snprintf(path, sizeof(path), "%sx", lines[j]);
			assert_int_equal(callus_fileindex_lookup(f->dir, path), 0);
		}
		assert_int_equal(callus_fileindex_lookup(f->dir, "a"), 0);
		assert_int_equal(callus_fileindex_lookup(f->dir, "zzz"), 0);
		assert_int_equal(callus_fileindex_lookup(f->dir, ""), 0);
	}
	/* two lines are not one path that holds a newline */
	put_sorted_index(idx, lines, 2, "x\ny\n");
	assert_int_equal(callus_fileindex_lookup(f->dir, "x"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "x\ny"), 0);
	{
		char both[128];

		snprintf(both, sizeof(both), "%s\n%s", lines[0], lines[1]);
		assert_int_equal(callus_fileindex_lookup(f->dir, both), 0);
	}
	/* headers that are no index of this format */
	{
		static const char *const bad[] = {
			"callus-files 1\nsrc/a.js\n",
			"callus-files 2 000000002x\nsrc/a.js\n",
			"callus-files 2 0000000025\nsrc/a.js\n",  /* before the header's end */
			"callus-files 2 0000000030\nsrc/a.js\n",  /* inside a line */
			"callus-files 2 0000000036\nsrc/a.js\n",  /* past the end */
			"callus-files 2 0000000026 src/a.js\n",
			"callus-files 2 00000026\nsrc/a.js\n",
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			FILE *fp = fopen(idx, "w");

			assert_non_null(fp);
			fputs(bad[i], fp);
			assert_int_equal(fclose(fp), 0);
			assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), CALLUS_ENOTFOUND);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
}

/* The lines a list's header says are sorted, and that they are, each once
 * (a file index as callus writes it whole). */
static size_t check_sorted_whole(const char *idx, const char *text)
{
	size_t len = strlen(text), end, count = 0;
	const char *p, *prev = NULL;

	assert_int_equal(strncmp(text, "callus-files 2 ", 15), 0);
	end = (size_t)strtoul(text + 15, NULL, 10);
	assert_int_equal(end, len);
	(void)idx;
	for (p = text + strlen(IDX_HEAD); p < text + len;) {
		const char *nl = strchr(p, '\n');

		assert_non_null(nl);
		if (prev) {
			size_t a = (size_t)(p - 1 - prev), b = (size_t)(nl - p);
			int c = memcmp(prev, p, a < b ? a : b);

			assert_true(c < 0 || (c == 0 && a < b));
		}
		prev = p;
		p = nl + 1;
		count++;
	}
	return count;
}

/* Appended lines are merged into the sorted part by the fix that would
 * take them past 8 KB: the list written again, sorted, each line once, its
 * header's offset its length, nothing lost; the fixes after it append
 * again. */
static void file_index_merges_its_appended_part(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char idx[128], path[64], *sorted[50], text[32768];
	callus_buf tail = CALLUS_BUF_INIT;
	struct stat before, after;
	size_t lines;

	snprintf(idx, sizeof(idx), "%s/" CALLUS_FILEINDEX_NAME, f->dir);
	for (int i = 0; i < 50; i++) {
		snprintf(path, sizeof(path), "lib/s%03d.js", i);
		assert_non_null(sorted[i] = strdup(path));
	}
	/* 8,188 bytes appended, the last first, one of them listed above too */
	assert_int_equal(callus_buf_puts(&tail, "lib/s007.js\n"), 0);
	for (int i = 583; i >= 0; i--)
		assert_int_equal(callus_buf_printf(&tail, "tail/t%04d.js\n", i), 0);
	assert_true(tail.len <= 8192 && tail.len + strlen("src/a.js\n") > 8192);
	put_sorted_index(idx, sorted, 50, tail.ptr);

	/* src/a.js fixed: its line would take the appended part past 8 KB */
	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	assert_int_equal(stat(idx, &before), 0);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(stat(idx, &after), 0);
	assert_true(after.st_ino != before.st_ino);
	assert_true(read_text(idx, text, sizeof(text)) > 0);
	lines = check_sorted_whole(idx, text);
	assert_int_equal(lines, 50 + 584 + 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "lib/s007.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "lib/s049.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "tail/t0000.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "tail/t0583.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "tail/t0584.js"), 0);

	/* the next fix's file is appended after the sorted part */
	fail_run(f, ".", 2, &r);
	callus_learn_result_release(&r);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(stat(idx, &before), 0);
	assert_true(before.st_ino == after.st_ino);
	assert_int_equal(before.st_size, after.st_size + (off_t)strlen("src/b.js\n"));
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/b.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/a.js"), 1);
	for (int i = 0; i < 50; i++)
		free(sorted[i]);
	callus_buf_release(&tail);
}

/* Errors the check "." closed long ago, n more of them: as a check that
 * has run for months (the signatures need not exist: rowids only). */
static void grow_history(fixture *f, int64_t check, int n)
{
	sqlite3 *db = NULL;
	char sql[512];

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	snprintf(sql, sizeof(sql),
		 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < %d)"
		 " INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at)"
		 " SELECT %lld, 1000000 + (SELECT count(*) FROM pending_errors) + i,"
		 " '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z' FROM n;"
		 "UPDATE pending_errors SET state = 'fixed', closed_run = 1"
		 " WHERE check_id = %lld AND state = 'pending' AND sig >= 1000000;",
		 n, (long long)check, (long long)check);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}


/* The VM steps of the check index's question about check "." (is an
 * error of it pending, did its last run close one?), as a recording asks
 * it: in the transaction, before the commit. */
static long long check_index_steps(fixture *f, int64_t check)
{
	callus_check_key dot = { "eslint", ".", "" };
	sqlite3 *db = callus_store_db(f->s);
	long long steps = 0;

	assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	steps_trace(db, &steps);
	assert_int_equal(callus_checkindex_update(f->s, check, &dot, NULL), 0);
	sqlite3_trace_v2(db, 0, NULL, NULL);
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	return steps;
}

/* A recording reads a check's open errors, not every error the check ever
 * closed (schema 26: the errors indexed by check, state and closing run): the same steps with 50 and with 1,000 closed errors behind
 * an open one, and with none open.  Scanning the history took a step or
 * more an error. */
static void a_checks_history_is_not_read(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	long long open_small, open_large, shut_small, shut_large;
	int64_t check;

	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	check = query_int(f, "SELECT id FROM checks WHERE args = '.'");
	grow_history(f, check, 50);
	open_small = check_index_steps(f, check);
	pass_run(f, ".", &r); /* closes the open one */
	callus_learn_result_release(&r);
	pass_run(f, ".", &r); /* a run that closed nothing */
	callus_learn_result_release(&r);
	shut_small = check_index_steps(f, check);
	grow_history(f, check, 950);
	shut_large = check_index_steps(f, check);
	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	open_large = check_index_steps(f, check);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors WHERE check_id ="
				      " (SELECT id FROM checks WHERE args = '.')"), 1002);
	print_message("check index: %lld / %lld steps with an error open, %lld / %lld with none,"
		      " 50 / 1,000 closed behind\n", open_small, open_large, shut_small, shut_large);
	/* a few steps of the two states' own (the list appended to or not),
	 * not a step or more an error behind, as the whole history read gave */
	assert_true(open_large <= open_small + 16);
	assert_true(shut_large <= shut_small + 16);
	/* and the answers are still right: listed while open, not after a
	 * pass that closed nothing */
	assert_int_equal(callus_checkindex_lookup(f->dir, &(callus_check_key){ "eslint", ".", "" }), 1);
}

/* n fixes of signature i in check ".", closed by runs long past (a flaky
 * error), each its own row: as a check that has run for months. */
static void grow_fixes(fixture *f, int i, int n)
{
	sqlite3 *db = NULL;
	char sql[512];

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	for (int k = 0; k < n; k++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at)"
			 " SELECT c.id, g.sig, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'"
			 " FROM checks c, signatures g WHERE c.args = '.' AND g.id = '%s';"
			 "UPDATE pending_errors SET state = 'fixed', closed_run = 0"
			 " WHERE id = last_insert_rowid();",
			 f->sig[i].id);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* The VM steps of a failing run of check "." showing error 0. */
static long long fail_steps(fixture *f)
{
	sqlite3 *db = callus_store_db(f->s);
	callus_learn_result r;
	long long steps = 0;

	steps_trace(db, &steps);
	fail_run(f, ".", 1, &r);
	sqlite3_trace_v2(db, 0, NULL, NULL);
	callus_learn_result_release(&r);
	return steps;
}

/* An error that keeps coming back (fixed, failing again) is asked whether
 * the check's last run fixed it: one row, not each of its past fixes. */
static void an_errors_past_fixes_are_not_read(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	long long small, large;

	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	grow_fixes(f, 0, 50);
	small = fail_steps(f);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	pass_run(f, ".", &r); /* a run between: the fix is not the last run's */
	callus_learn_result_release(&r);
	grow_fixes(f, 0, 950);
	large = fail_steps(f);
	print_message("a failing run: %lld VM steps with 50 past fixes of its error, %lld with"
		      " 1,000\n", small, large);
	assert_true(large <= small + small / 10);
}

/* Open errors of other checks, error 1's, from index from to to, failing
 * now, every other one permanent: a workspace of many checks failing this
 * week. */
static void grow_others(fixture *f, int from, int to)
{
	sqlite3 *db = NULL;
	char sql[768];

	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	sqlite3_busy_timeout(db, 5000);
	assert_int_equal(sqlite3_exec(db, "BEGIN", NULL, NULL, NULL), SQLITE_OK);
	for (int k = from; k < to; k++) {
		snprintf(sql, sizeof(sql),
			 "INSERT INTO checks (tool, args, dir) VALUES ('eslint', 'other-%d', '');"
			 "INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at,"
			 " session) SELECT last_insert_rowid(), g.sig,"
			 " strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now'),"
			 " strftime('%%Y-%%m-%%dT%%H:%%M:%%fZ', 'now'), 's1'"
			 " FROM signatures g WHERE g.id = '%s';"
			 "UPDATE pending_errors SET state = 'permanent'"
			 " WHERE id = last_insert_rowid() AND %d;",
			 k, f->sig[1].id, k % 2);
		assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

/* The VM steps of check "." failing with error 0 delivered late (a
 * drainer's, an import's), failing again with a snapshot wanted (is the
 * error new to the check?), and passing late. */
static long long others_steps(fixture *f)
{
	callus_learn_error e = { &f->sig[0], &f->files[0], NULL };
	callus_learn_opts o = opts_for(f, ".", "s1");
	callus_learn_result r;
	long long steps = 0;
	helped h;
	char *now;

	steps_trace(callus_store_db(f->s), &steps);
	now = late(&o, NULL);
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, NULL), 0);
	callus_learn_result_release(&r);
	free(now);
	o = opts_for(f, ".", "s1");
	helped_init(f, &h, &o);
	helper_snapshots(f, &h, "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	assert_int_equal(callus_learn_failure(f->s, &o, &e, 1, &r, NULL), 0);
	callus_learn_result_release(&r);
	o = opts_for(f, ".", "s1");
	now = late(&o, NULL);
	assert_int_equal(callus_learn_pass(f->s, &o, &r, NULL), 0);
	assert_int_equal(r.nfixed, 1);
	callus_learn_result_release(&r);
	free(now);
	sqlite3_trace_v2(callus_store_db(f->s), 0, NULL, NULL);
	return steps;
}

/* A check's failure and its late runs read the errors of the check and of
 * the error, never every open error of the week: with the time first in
 * their plans (pending_last), each read them all, of every check, once
 * an error (656 -> 6,506 rows from 1,000 to 10,000 recordings). */
static void other_checks_errors_are_not_read(void **state)
{
	long long steps[2];

	(void)state;
	/* two stores of the same history but the others' errors */
	for (int big = 0; big < 2; big++) {
		void *g = NULL;
		fixture *f;
		callus_learn_result r;

		assert_int_equal(setup(&g), 0);
		f = g;
		fail_run(f, "other", 2, &r); /* error 1's signature */
		callus_learn_result_release(&r);
		grow_others(f, 0, big ? 2000 : 50);
		(void)others_steps(f);
		steps[big] = others_steps(f);
		assert_int_equal(teardown(&g), 0);
	}
	print_message("a failure and its late runs: %lld VM steps beside 50 open errors of other"
		      " checks, %lld beside 2,000\n", steps[0], steps[1]);
	assert_true(steps[1] <= steps[0] + steps[0] / 10);
}

/* A permanent error that absorbs a failure takes the failure's files, and
 * the file index lists them. */
static void file_index_takes_an_absorbed_failures_files(void **state)
{
	fixture *f = *state;
	callus_learn_result r;

	for (int i = 0; i < CALLUS_LEARN_MAX_RETRIES; i++) {
		fail_run(f, "other", 4, &r);
		callus_learn_result_release(&r);
	}
	assert_int_equal(count_state(f, CALLUS_STATE_PERMANENT), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/c.js"), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/d.js"), 0);
	callus_strlist_release(&f->files[2]);
	assert_int_equal(callus_strlist_add(&f->files[2], "src/d.js", 8), 0);
	fail_run(f, "other", 4, &r);
	callus_learn_result_release(&r);
	assert_int_equal(count_state(f, CALLUS_STATE_PERMANENT), 1);
	assert_int_equal(callus_fileindex_lookup(f->dir, "src/d.js"), 1);
}

/* A store of schema 25 gets the check's errors indexed by check, state and
 * closing run (what a_checks_history_is_not_read relies on), its errors
 * and their answers unchanged. */
static void schema_26_indexes_by_state_and_run(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	callus_check_key dot = { "eslint", ".", "" };
	sqlite3 *db = NULL;

	fail_run(f, ".", 3, &r);
	callus_learn_result_release(&r);
	fail_run(f, ".", 1, &r); /* b fixed by run 2 */
	callus_learn_result_release(&r);
	callus_store_close(f->s);
	f->s = NULL;
	assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "DROP INDEX pending_check;"
				      "CREATE INDEX pending_check ON pending_errors(check_id, sig, state);"
				      TEST_AS_BEFORE_27 "PRAGMA user_version = 25",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	sqlite3_close(db);
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(callus_store_schema_version(f->s), CALLUS_STORE_SCHEMA_VERSION);
	assert_int_equal(query_int(f, "SELECT group_concat(name, ',') = 'check_id,state,closed_run,sig'"
				      " FROM (SELECT name FROM pragma_index_info('pending_check')"
				      " ORDER BY seqno)"),
			 1);
	assert_int_equal(query_int(f, "SELECT count(*) FROM pending_errors"), 2);
	/* the pass closes a: the next pass matters, and the one after not */
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 0);
}

/* checkindex.h: a check is listed while an error of it is pending and for
 * the run after one closed, then taken off; additions are appended, a
 * damaged list is no answer and is written again whole */
static void check_index_follows_the_next_pass(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	callus_check_key other = { "eslint", "other", "" }, dot = { "eslint", ".", "" };
	char idx[128], key[CALLUS_CHECKINDEX_KEY_LEN + 1];
	struct stat before, after;

	snprintf(idx, sizeof(idx), "%s/" CALLUS_CHECKINDEX_NAME, f->dir);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), CALLUS_ENOTFOUND);
	fail_run(f, ".", 3, &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), 0);
	/* the key names the whole check: another directory is another check */
	{
		callus_check_key elsewhere = { "eslint", ".", "web" };

		assert_int_equal(callus_checkindex_lookup(f->dir, &elsewhere), 0);
		assert_int_equal(callus_checkindex_key(key, &dot), 0);
		assert_int_equal(strlen(key), CALLUS_CHECKINDEX_KEY_LEN);
	}

	/* the fixing pass closes both errors: its next run still counts */
	pass_run(f, ".", &r);
	assert_int_equal(r.nfixed, 2);
	callus_learn_result_release(&r);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
	pass_run(f, ".", &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 0);
	/* taken off by a line appended: the list is not written again */
	assert_int_equal(stat(idx, &before), 0);
	assert_int_equal(before.st_size, (off_t)(strlen("callus-checks 2 0000000001\n") +
						 CALLUS_CHECKINDEX_KEY_LEN + 1 +
						 CALLUS_CHECKINDEX_KEY_LEN + 2));

	/* a failure appends, synced, and the list stays well formed */
	fail_run(f, "other", 4, &r);
	callus_learn_result_release(&r);
	assert_int_equal(stat(idx, &after), 0);
	assert_true(after.st_ino == before.st_ino);
	assert_int_equal(after.st_size, before.st_size + CALLUS_CHECKINDEX_KEY_LEN + 2);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), 1);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 0);
	/* three failures in a row close it as permanent: the next run counts */
	for (int i = 1; i < CALLUS_LEARN_MAX_RETRIES; i++) {
		fail_run(f, "other", 4, &r);
		callus_learn_result_release(&r);
	}
	assert_int_equal(count_state(f, CALLUS_STATE_PERMANENT), 1);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), 1);

	/* a line cut short (a crash while appending) is no answer; the next
	 * change writes the list whole from the store */
	assert_int_equal(truncate(idx, after.st_size - 3), 0);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), CALLUS_ENOTFOUND);
	fail_run(f, ".", 1, &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), 1);

	/* lost, and written again by whoever finds it missing */
	assert_int_equal(unlink(idx), 0);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), CALLUS_ENOTFOUND);
	assert_int_equal(callus_checkindex_ensure(f->s, NULL), 0);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), 1);
	/* what the store says, whoever wrote it: the pass of "other" takes
	 * it off once its permanent error's next run is counted */
	pass_run(f, "other", &r);
	callus_learn_result_release(&r);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), 0);
	assert_int_equal(callus_checkindex_ensure(f->s, NULL), 0);
	assert_int_equal(callus_checkindex_lookup(f->dir, &other), 0);
	assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);

	/* a pass of a check never failed writes nothing but the list, when
	 * there is none: the next such pass can do without the store */
	assert_int_equal(unlink(idx), 0);
	{
		callus_check_key never = { "eslint", "never", "" };

		pass_run(f, "never", &r);
		callus_learn_result_release(&r);
		assert_int_equal(callus_checkindex_lookup(f->dir, &never), 0);
		assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
	}

	/* what it does not read: a header counting more sorted lines than it
	 * has, a count that is no number, a link (never followed: replaced) */
	{
		static const char *const bad[] = { "callus-checks 2 0000000009\n",
						   "callus-checks 2 00000000x1\n",
						   "callus-checks 1 0000000000\n",
						   "callus-checks 3 0000000000\n",
						   "callus-checks 2 0000000000\n*" };
		char target[128];
		struct stat st;
		int fd;

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			assert_true((fd = open(idx, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
			assert_int_equal(write(fd, bad[i], strlen(bad[i])), (ssize_t)strlen(bad[i]));
			assert_int_equal(write(fd, "0123456789abcdef\n", 17), 17);
			close(fd);
			assert_int_equal(callus_checkindex_lookup(f->dir, &dot), CALLUS_ENOTFOUND);
		}
		snprintf(target, sizeof(target), "%s/elsewhere", f->dir);
		assert_int_equal(rename(idx, target), 0);
		assert_int_equal(symlink(target, idx), 0);
		assert_int_equal(callus_checkindex_lookup(f->dir, &dot), CALLUS_ENOTFOUND);
		assert_int_equal(callus_checkindex_ensure(f->s, NULL), 0);
		assert_int_equal(lstat(idx, &st), 0);
		assert_true(S_ISREG(st.st_mode));
		assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
		assert_int_equal(stat(target, &st), 0);
		assert_int_equal(st.st_size, (off_t)strlen(bad[sizeof(bad) / sizeof(bad[0]) - 1]) + 17);
	}

	/* many checks: appended, then sorted again past the tail's bound;
	 * every one found either way */
	{
		char args[32], text[64];
		int fd;

		for (int i = 0; i < 300; i++) {
			snprintf(args, sizeof(args), "c%d", i);
			fail_run(f, args, 2, &r);
			callus_learn_result_release(&r);
		}
		for (int i = 0; i < 300; i++) {
			callus_check_key k = { "eslint", args, "" };

			snprintf(args, sizeof(args), "c%d", i);
			assert_int_equal(callus_checkindex_lookup(f->dir, &k), 1);
		}
		assert_int_equal(callus_checkindex_lookup(f->dir, &dot), 1);
		assert_int_equal(callus_checkindex_lookup(f->dir, &other), 0);
		/* the header counts the sorted lines: more than the first
		 * appended ones, fewer than all (the last are appended) */
		assert_true((fd = open(idx, O_RDONLY)) >= 0);
		assert_int_equal(read(fd, text, 27), 27);
		close(fd);
		text[26] = '\0';
		assert_true(strtol(text + 16, NULL, 10) > 250);
		assert_true(strtol(text + 16, NULL, 10) < 301);
	}
}

/* Whether the check of args is listed. */
static int listed(fixture *f, const char *args)
{
	callus_check_key k = { "eslint", args, "" };

	return callus_checkindex_lookup(f->dir, &k);
}

/* checkindex.h: checks taken off and put back are lines appended, the last
 * one of a hash deciding; past the appended part's bound the list is
 * written again sorted, and says what the lines said */
static void check_index_takes_off_by_appending(void **state)
{
	fixture *f = *state;
	callus_learn_result r;
	char idx[128], args[32], head[32];
	struct stat before, after;
	int fd;

	snprintf(idx, sizeof(idx), "%s/" CALLUS_CHECKINDEX_NAME, f->dir);
	for (int i = 0; i < 10; i++) {
		snprintf(args, sizeof(args), "c%d", i);
		fail_run(f, args, 1, &r);
		callus_learn_result_release(&r);
	}
	assert_int_equal(stat(idx, &before), 0);
	/* each fixed, then its next run counted: ten lines taken off */
	for (int i = 0; i < 10; i++) {
		snprintf(args, sizeof(args), "c%d", i);
		for (int k = 0; k < 2; k++) {
			pass_run(f, args, &r);
			callus_learn_result_release(&r);
		}
		assert_int_equal(listed(f, args), 0);
	}
	/* c3 fails again: put back after it was taken off */
	fail_run(f, "c3", 1, &r);
	callus_learn_result_release(&r);
	assert_int_equal(stat(idx, &after), 0);
	assert_true(after.st_ino == before.st_ino);
	assert_int_equal(after.st_size, before.st_size + 11 * (CALLUS_CHECKINDEX_KEY_LEN + 2));
	for (int i = 0; i < 10; i++) {
		snprintf(args, sizeof(args), "c%d", i);
		assert_int_equal(listed(f, args), i == 3);
	}

	/* enough new checks to pass the bound: written again, sorted */
	for (int i = 0; i < 250; i++) {
		snprintf(args, sizeof(args), "d%d", i);
		fail_run(f, args, 1, &r);
		callus_learn_result_release(&r);
	}
	assert_int_equal(stat(idx, &after), 0);
	assert_true(after.st_ino != before.st_ino);
	assert_true((fd = open(idx, O_RDONLY)) >= 0);
	assert_int_equal(read(fd, head, 27), 27);
	close(fd);
	head[26] = '\0';
	/* c0 written sorted, 9 + 11 lines appended, then 236 of the d: the
	 * 237th wrote c3 and d0..d236 sorted (the nine taken off are not in
	 * it), and the last 13 were appended since */
	assert_int_equal(strtol(head + 16, NULL, 10), 238);
	assert_int_equal(after.st_size, 27 + 238 * (CALLUS_CHECKINDEX_KEY_LEN + 1) +
						 13 * (CALLUS_CHECKINDEX_KEY_LEN + 2));
	for (int i = 0; i < 10; i++) {
		snprintf(args, sizeof(args), "c%d", i);
		assert_int_equal(listed(f, args), i == 3);
	}
	for (int i = 0; i < 250; i++) {
		snprintf(args, sizeof(args), "d%d", i);
		assert_int_equal(listed(f, args), 1);
	}
	/* and what the store says: the list written from it agrees */
	assert_int_equal(unlink(idx), 0);
	assert_int_equal(callus_checkindex_ensure(f->s, NULL), 0);
	assert_int_equal(listed(f, "c3"), 1);
	assert_int_equal(listed(f, "c4"), 0);
	assert_int_equal(listed(f, "d249"), 1);
}


/* The VM steps of the second failed run of check `args` showing n errors
 * never seen, each its own kind (no candidate of the regex fallback). */
static long long steps_of_recurring_run(fixture *f, const char *args, size_t n)
{
	callus_signature *sigs = calloc(n, sizeof(*sigs));
	callus_strlist *files = calloc(n, sizeof(*files));
	callus_learn_error *errs = calloc(n, sizeof(*errs));
	callus_learn_opts o = opts_for(f, args, "s1");
	callus_learn_result r;
	long long steps = 0;

	assert_non_null(sigs);
	assert_non_null(files);
	assert_non_null(errs);
	for (size_t i = 0; i < n; i++) {
		char code[32], msg[64], path[32];
		callus_diag d;

		memset(&d, 0, sizeof(d));
		snprintf(code, sizeof(code), "%s-rule-%zu", args, i);
		snprintf(msg, sizeof(msg), "%s broke rule number %zu", args, i);
		snprintf(path, sizeof(path), "src/%s%zu.js", args, i);
		d.file = path;
		d.code = code;
		d.message = msg;
		assert_int_equal(callus_signature_build(&sigs[i], &d, "eslint", NULL), 0);
		assert_int_equal(callus_strlist_add(&files[i], path, strlen(path)), 0);
		errs[i].sig = &sigs[i];
		errs[i].files = &files[i];
	}
	assert_int_equal(store_lesson(f->s, "src/a.js", args, sigs, n), 0);
	assert_int_equal(callus_learn_failure(f->s, &o, errs, n, &r, NULL), 0);
	assert_int_equal(r.nnew, n);
	callus_learn_result_release(&r);
	steps_trace(callus_store_db(f->s), &steps);
	assert_int_equal(callus_learn_failure(f->s, &o, errs, n, &r, NULL), 0);
	sqlite3_trace_v2(callus_store_db(f->s), 0, NULL, NULL);
	assert_int_equal(r.nnew, 0);
	assert_int_equal(r.npending, n);
	callus_learn_result_release(&r);
	for (size_t i = 0; i < n; i++) {
		callus_signature_release(&sigs[i]);
		callus_strlist_release(&files[i]);
	}
	free(sigs);
	free(files);
	free(errs);
	return steps;
}

/* A run's errors each cost the same, however many the run has: finding an
 * error's open episode once read every open error of its check (a build
 * with a thousand errors: a million rows).  Counted in SQLite's VM steps,
 * not time: four times the errors, about four times the steps. */
static void a_run_of_many_errors_costs_each_the_same(void **state)
{
	fixture *f = *state;
	long long few = steps_of_recurring_run(f, "few", 100);
	long long many = steps_of_recurring_run(f, "many", 400);

	print_message("VM steps: 100 errors %lld, 400 errors %lld\n", few, many);
	assert_true(few > 0);
	assert_true(many < 6 * few);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(fail_then_pass_makes_one_resolution, setup, teardown),
		cmocka_unit_test_setup_teardown(a_refused_pass_writes_no_note_file, setup, teardown),
		cmocka_unit_test_setup_teardown(a_refused_rule_is_not_in_the_note_file, setup, teardown),
		cmocka_unit_test_setup_teardown(a_persons_edit_while_a_note_is_written_is_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(a_persons_edit_just_after_a_note_is_written_is_taken_in, setup, teardown),
		cmocka_unit_test_setup_teardown(failure_learnt_in_two_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(a_failure_after_a_pass_late_or_replayed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_queued_failure_keeps_its_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(a_busy_pass_keeps_its_fixes, setup, teardown),
		cmocka_unit_test_setup_teardown(a_queued_failure_keeps_the_fixes_it_found, setup,
						teardown),
		cmocka_unit_test_setup_teardown(given_fixes_without_head_ask_for_it, setup, teardown),
		cmocka_unit_test_setup_teardown(a_late_pass_diffs_to_the_tree_it_found, setup, teardown),
		cmocka_unit_test_setup_teardown(a_snapshot_newer_than_the_late_pass_is_diffed_to_now,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_kept_tree_gone_is_diffed_to_now, setup, teardown),
		cmocka_unit_test_setup_teardown(a_kept_tree_unanswered_is_not_diffed_to_now, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_kept_tree_gone_beside_a_diff_to_now_asks_head_once,
						setup, teardown),
		cmocka_unit_test_setup_teardown(a_kept_tree_gone_and_head_unread_names_no_commit,
						setup, teardown),
		cmocka_unit_test_setup_teardown(pass_of_unknown_check_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(third_failure_is_permanent_and_warned, setup, teardown),
		cmocka_unit_test_setup_teardown(an_error_keeps_its_own_message, setup, teardown),
		cmocka_unit_test_setup_teardown(a_run_of_many_errors_costs_each_the_same, setup, teardown),
		cmocka_unit_test_setup_teardown(list_by_files, setup, teardown),
		cmocka_unit_test_setup_teardown(two_errors_one_fixed, setup, teardown),
		cmocka_unit_test_setup_teardown(transitions_are_one_way, setup, teardown),
		cmocka_unit_test_setup_teardown(suggestions_settle_into_metrics, setup, teardown),
		cmocka_unit_test_setup_teardown(suggestions_searched_for_the_first_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(metrics_stored_whole_or_not_at_all, setup, teardown),
		cmocka_unit_test_setup_teardown(feedback_updates_the_rate, setup, teardown),
		cmocka_unit_test_setup_teardown(prune_drops_only_idle_pending, setup, teardown),
		cmocka_unit_test_setup_teardown(a_recording_prunes_its_check_and_a_batch, setup,
						teardown),
		cmocka_unit_test_setup_teardown(replayed_runs_take_their_time_and_fix, setup, teardown),
		cmocka_unit_test_setup_teardown(a_redelivered_pass_fixes_only_what_failed_before_it,
						setup, teardown),
		cmocka_unit_test_setup_teardown(concurrent_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(file_index_follows_what_was_learnt, setup, teardown),
		cmocka_unit_test_setup_teardown(file_index_is_a_hint_checked_against_the_store, setup,
						teardown),
		cmocka_unit_test_setup_teardown(file_index_adds_only_the_unlisted, setup, teardown),
		cmocka_unit_test_setup_teardown(file_index_adds_what_this_fix_closed, setup, teardown),
		cmocka_unit_test_setup_teardown(file_index_bisects_its_sorted_part, setup, teardown),
		cmocka_unit_test_setup_teardown(file_index_merges_its_appended_part, setup, teardown),
		cmocka_unit_test_setup_teardown(check_index_follows_the_next_pass, setup, teardown),
		cmocka_unit_test_setup_teardown(check_index_takes_off_by_appending, setup, teardown),
		cmocka_unit_test_setup_teardown(a_checks_history_is_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_26_indexes_by_state_and_run, setup, teardown),
		cmocka_unit_test_setup_teardown(an_errors_past_fixes_are_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(other_checks_errors_are_not_read, setup, teardown),
		cmocka_unit_test_setup_teardown(file_index_takes_an_absorbed_failures_files, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
