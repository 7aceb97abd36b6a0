/*
 * test_hook_spool.c - the hook's spool (cli/hook_spool.c): an entry
 * written once, its text then freed, and never written again empty; the
 * question whether the spool holds a failure, answered at its first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../cli/hook_spool.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/redact.h"
#include "tmpdir_helpers.h"

struct fixture {
	char dir[256];
	char spool[300];
	char real[PATH_MAX]; /* the root, resolved: entries_made() */
	cli_workspace ws;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char callus[280];

	if (!f || test_tmpdir_make(f->dir, sizeof(f->dir), "spool") < 0)
		return -1;
	snprintf(callus, sizeof(callus), "%s/.callus", f->dir);
	snprintf(f->spool, sizeof(f->spool), "%s/spool", callus);
	if (mkdir(callus, 0700) < 0 || mkdir(f->spool, 0700) < 0)
		return -1;
	f->ws.root = f->dir;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	test_tmpdir_remove(f->dir);
	free(f);
	return 0;
}

/* What cli_spool_prepare() needs of the workspace: a redactor, the real
 * root; entries_made_no_more() frees it. */
static void entries_made(struct fixture *f)
{
	callus_redactor *red = NULL;

	assert_int_equal(callus_redactor_new(&red, NULL), 0);
	assert_non_null(realpath(f->dir, f->real));
	f->ws.redactor = red;
	f->ws.root_real = f->real;
	f->ws.cwd_rel = "";
}

static void entries_made_no_more(struct fixture *f)
{
	callus_redactor_free((callus_redactor *)f->ws.redactor);
	f->ws.redactor = NULL;
	f->ws.root_real = NULL;
	f->ws.cwd_rel = NULL;
}

/* dir/name, a copy. */
static char *path_of(const char *dir, const char *name)
{
	callus_buf b = CALLUS_BUF_INIT;

	callus_buf_printf(&b, "%s/%s", dir, name);
	assert_int_equal(callus_buf_status(&b), 0);
	return callus_buf_detach(&b);
}

/* Written whole, its text freed; a second write refuses, and leaves the
 * entry as it was, not an empty file. */
static void an_entry_is_written_once(void **state)
{
	struct fixture *f = *state;
	cli_spool_entry e = CLI_SPOOL_ENTRY_INIT;
	callus_buf got = CALLUS_BUF_INIT;
	const char *text = "{\"command\":\"gcc -c a.c\",\"exit_code\":1,\"output\":\"x\"}";

	char name[64];

	snprintf(name, sizeof(name), "0000000000000000001-%ld.json", (long)getpid());
	e.path = path_of(f->spool, name);
	e.spare = path_of(f->spool, ".spare");
	assert_non_null(e.text = strdup(text));
	assert_int_equal(cli_spool_write(&e, &f->ws), 0);
	assert_null(e.text);
	assert_int_equal(callus_fs_read_file(&got, e.path, 1 << 20, NULL), 0);
	assert_string_equal(got.ptr, text);
	assert_int_equal(cli_spool_write(&e, &f->ws), -1);
	callus_buf_clear(&got);
	assert_int_equal(callus_fs_read_file(&got, e.path, 1 << 20, NULL), 0);
	assert_string_equal(got.ptr, text);
	callus_buf_release(&got);
	cli_spool_entry_release(&e);
}

static void put(const char *dir, const char *name)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs("{}", fp);
	assert_int_equal(fclose(fp), 0);
}

/* An entry of a live hook is its own; one left, or of a hook gone, is the
 * spool's to record: one is enough to say so, and more say the same. */
static void the_spool_holds_a_failure_when_one_is_left(void **state)
{
	struct fixture *f = *state;
	char name[64];
	pid_t dead = fork();
	int status;

	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, &status, 0), dead);
	assert_int_equal(cli_spool_pending(&f->ws, NULL), 0);
	snprintf(name, sizeof(name), "0000000000000000001-%ld.json", (long)getpid());
	put(f->spool, name);
	put(f->spool, ".spare");
	assert_int_equal(cli_spool_pending(&f->ws, NULL), 0);
	snprintf(name, sizeof(name), "0000000000000000002-%ld.json", (long)dead);
	put(f->spool, name);
	assert_int_equal(cli_spool_pending(&f->ws, NULL), 1);
	put(f->spool, "0000000000000000003-7.left.json");
	assert_int_equal(cli_spool_pending(&f->ws, NULL), 1);
}

/* What the recorder below was handed: each entry's command, and what its
 * hook kept: the snapshot's tree, the fixes' trees and patches. */
static char seen[8][200];
static int nseen;

static int record_seen(const cli_workspace *ws, const callus_hook_event *e,
		       const cli_spool_run *run)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)ws;
	callus_buf_printf(&b, "%s %s", e->command,
			  run->kept && run->kept->snapshot.tree ? run->kept->snapshot.tree : "-");
	for (size_t i = 0; run->kept && i < run->kept->fixes.count; i++)
		callus_buf_printf(&b, " %.4s:%s", run->kept->fixes.items[i].tree,
				  run->kept->fixes.items[i].patch);
	if (run->kept && run->kept->fixes.head)
		callus_buf_printf(&b, " head %.4s", run->kept->fixes.head);
	if (run->tool)
		callus_buf_printf(&b, " tool %s", run->tool);
	if (nseen < 8)
		snprintf(seen[nseen++], sizeof(seen[0]), "%s", b.ptr ? b.ptr : "");
	callus_buf_release(&b);
	return 1;
}

/* A spool that links out of the workspace is not the queue: nothing there
 * is pending, recorded by a drainer, or removed (a payload planted there
 * was once recorded, and every file named like an entry removed). */
static void a_spool_leading_out_is_not_walked(void **state)
{
	struct fixture *f = *state;
	char out[300], *gone = NULL, *mine = NULL, *cut = NULL, *tmp = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	struct stat st;

	snprintf(out, sizeof(out), "%s-out", f->dir);
	assert_int_equal(mkdir(out, 0700), 0);
	put(out, "settings.json");
	put(out, "0000000000000000002-2.cut.json");
	put(out, "0000000000000000003-999999.json.tmp");
	assert_int_equal(rmdir(f->spool), 0);
	assert_int_equal(symlink(out, f->spool), 0);
	assert_int_equal(cli_spool_leads_out(&f->ws, &err), 1);
	assert_non_null(strstr(callus_error_message(&err), "outside the workspace"));
	assert_int_equal(cli_spool_pending(&f->ws, NULL), 0);
	nseen = 0;
	assert_int_equal(cli_spool_drain(&f->ws, 0, 0, record_seen), 0);
	assert_int_equal(nseen, 0);
	assert_int_equal(cli_spool_leftovers(&f->ws, 1, NULL), 0);
	gone = path_of(out, "settings.json");
	cut = path_of(out, "0000000000000000002-2.cut.json");
	tmp = path_of(out, "0000000000000000003-999999.json.tmp");
	assert_int_equal(stat(gone, &st), 0);
	assert_int_equal(stat(cut, &st), 0);
	assert_int_equal(stat(tmp, &st), 0);
	/* no lock made there either */
	mine = path_of(out, ".drain.lock");
	assert_int_not_equal(stat(mine, &st), 0);
	/* a link that stays inside is followed: the queue as before */
	free(mine);
	mine = path_of(f->dir, "queue");
	assert_int_equal(mkdir(mine, 0700), 0);
	put(mine, "0000000000000000003-7.left.json");
	assert_int_equal(unlink(f->spool), 0);
	assert_int_equal(symlink("../queue", f->spool), 0);
	assert_int_equal(cli_spool_leads_out(&f->ws, NULL), 0);
	assert_int_equal(cli_spool_pending(&f->ws, NULL), 1);
	free(gone);
	free(cut);
	free(tmp);
	free(mine);
	callus_error_release(&err);
	test_tmpdir_remove(out);
}

/* An entry left with what its hook kept holds it, and the drainer hands it
 * back: a run's tree (a failure's snapshot, a pass's), its fixes and HEAD
 * then.  Left without,
 * and anything not as a hook writes it, give none; the latter is logged. */
static void a_run_is_left_with_what_its_hook_kept(void **state)
{
	struct fixture *f = *state;
	const char *tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
	const char *const commands[] = { "gcc -c a.c", "gcc -c b.c", "gcc -c c.c", "gcc -c e.c" };
	callus_buf got = CALLUS_BUF_INIT;
	cli_spool_kept kept = CLI_SPOOL_KEPT_INIT;

	cli_spool_kept fixes = CLI_SPOOL_KEPT_INIT;

	kept.snapshot.tree = strdup(tree);
	kept.snapshot.commit = strdup("");
	assert_non_null(kept.snapshot.tree);
	assert_int_equal(callus_learn_fixes_add(&fixes.fixes, tree, "--- a/c.c\n+++ b/c.c\n"), 0);
	/* a failure closes the errors it no longer shows: fixes too */
	assert_int_equal(callus_learn_fixes_add(&kept.fixes, tree, "p0"), 0);
	assert_non_null(kept.fixes.head = strdup("0123456789abcdef0123456789abcdef01234567"));
	for (int i = 0; i < 4; i++) {
		cli_spool_entry e = CLI_SPOOL_ENTRY_INIT;
		char name[64], left[64];

		snprintf(name, sizeof(name), "000000000000000000%d-%ld.json", i + 1, (long)getpid());
		snprintf(left, sizeof(left), "000000000000000000%d-%ld.left.json", i + 1,
			 (long)getpid());
		e.path = path_of(f->spool, name);
		e.left = path_of(f->spool, left);
		e.spare = path_of(f->spool, ".spare");
		/* c.c and e.c passed */
		callus_buf_printf(&got, "{\"command\":\"%s\",\"exit_code\":%d,\"output\":\"x\"%s}",
				  commands[i], i >= 2 ? 0 : 1, i == 1 ? ",\"tool\":\"gcc\"" : "");
		assert_non_null(e.text = callus_buf_detach(&got));
		assert_int_equal(cli_spool_write(&e, &f->ws), 0);
		assert_int_equal(cli_spool_leave(&e, i == 1 ? NULL : i >= 2 ? &fixes : &kept), 0);
		assert_int_equal(access(e.path, F_OK), -1);
		assert_int_equal(callus_fs_read_file(&got, e.left, 1 << 20, NULL), 0);
		assert_int_equal(strstr(got.ptr, tree) != NULL, i != 1);
		callus_buf_clear(&got);
		cli_spool_entry_release(&e);
	}
	cli_spool_kept_release(&kept);
	cli_spool_kept_release(&fixes);
	{
		char path[512];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/0000000000000000005-7.left.json", f->spool);
		assert_non_null(fp = fopen(path, "w"));
		fprintf(fp, "{\"command\":\"gcc -c d.c\",\"exit_code\":1,\"snapshot\":\"git %.39s -\"}",
			tree);
		assert_int_equal(fclose(fp), 0);
		snprintf(path, sizeof(path), "%s/0000000000000000006-7.left.json", f->spool);
		assert_non_null(fp = fopen(path, "w"));
		fprintf(fp, "{\"command\":\"gcc -c g.c\",\"exit_code\":0,\"fixes\":[[\"zz\",\"p\"],"
			    "[\"%s\"],\"x\",[\"%s\",7],[\"%s\",\"p\",\"q\"],[\"%s\",\"p1\"]],"
			    "\"head\":\"HEAD\"}",
			tree, tree, tree, tree);
		assert_int_equal(fclose(fp), 0);
		/* a pass's tree (cli_keep_tree), kept as a failure's snapshot is */
		snprintf(path, sizeof(path), "%s/0000000000000000007-7.left.json", f->spool);
		assert_non_null(fp = fopen(path, "w"));
		fprintf(fp, "{\"command\":\"gcc -c h.c\",\"exit_code\":0,\"snapshot\":\"git %s -\"}",
			tree);
		assert_int_equal(fclose(fp), 0);
	}
	nseen = 0;
	assert_int_equal(cli_spool_drain(&f->ws, 0, 0, record_seen), 7);
	assert_int_equal(nseen, 7);
	assert_string_equal(seen[0],
			    "gcc -c a.c 4b825dc642cb6eb9a060e54bf8d69288fbee4904 4b82:p0 head 0123");
	assert_string_equal(seen[1], "gcc -c b.c - tool gcc");
	assert_string_equal(seen[2], "gcc -c c.c - 4b82:--- a/c.c\n+++ b/c.c\n");
	assert_string_equal(seen[3], "gcc -c e.c - 4b82:--- a/c.c\n+++ b/c.c\n");
	assert_string_equal(seen[4], "gcc -c d.c -");
	assert_string_equal(seen[5], "gcc -c g.c - 4b82:p1");
	assert_string_equal(seen[6], "gcc -c h.c 4b825dc642cb6eb9a060e54bf8d69288fbee4904");
	/* the two hand-made entries' fields, said once each */
	{
		char log[512];
		size_t lines = 0;

		snprintf(log, sizeof(log), "%s/.callus/log.jsonl", f->dir);
		assert_int_equal(callus_fs_read_file(&got, log, 1 << 20, NULL), 0);
		for (const char *p = got.ptr; (p = strstr(p, "spool_kept_ignored")); p++)
			lines++;
		assert_int_equal(lines, 2);
	}
	callus_buf_release(&got);
}

/* Whether the queue holds a run, or a failure, of a command: a run's entry
 * as a hook writes it says so (its secret redacted the same way), a pass's
 * is a run and no failure, another command's is neither, nor a live
 * hook's entry or one made by hand in another layout. */
static void the_queue_says_whether_it_holds_a_run_of_a_command(void **state)
{
	struct fixture *f = *state;
	const char *cmds[] = { "make test PASSWORD=hunter2hunter2", "make lint", "make docs" };
	const int codes[] = { 2, 0, 1 };

	entries_made(f);
	for (int i = 0; i < 3; i++) {
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		cli_spool_entry ent = CLI_SPOOL_ENTRY_INIT;

		e.command = (char *)cmds[i];
		e.output = "boom";
		e.output_len = 4;
		assert_int_equal(cli_spool_prepare(&ent, &f->ws, &e, codes[i], "make", CLI_SPOOL_UNSEEN), 0);
		assert_int_equal(cli_spool_write(&ent, &f->ws), 0);
		/* the third stays a live hook's (this process's) */
		if (i < 2)
			assert_int_equal(cli_spool_leave(&ent, NULL), 0);
		cli_spool_entry_release(&ent);
	}
	for (int k = 0; k < 2; k++) {
		cli_spool_run_kind kind = k ? CLI_SPOOL_ANY_RUN : CLI_SPOOL_FAILURE;

		assert_int_equal(cli_spool_holds(&f->ws, cmds[0], kind, NULL), 1);
		assert_int_equal(cli_spool_holds(&f->ws, "make test", kind, NULL), 0);
		/* a pass's run, not a failure */
		assert_int_equal(cli_spool_holds(&f->ws, "make lint", kind, NULL), kind == CLI_SPOOL_ANY_RUN);
		assert_int_equal(cli_spool_holds(&f->ws, "make docs", kind, NULL), 0);
		assert_int_equal(cli_spool_holds(&f->ws, NULL, kind, NULL), 0);
	}
	{
		char path[512];
		FILE *fp;

		snprintf(path, sizeof(path), "%s/0000000000000000009-7.left.json", f->spool);
		assert_non_null(fp = fopen(path, "w"));
		fprintf(fp, "{ \"command\": \"make lint\", \"exit_code\": 1 }");
		assert_int_equal(fclose(fp), 0);
	}
	assert_int_equal(cli_spool_holds(&f->ws, "make lint", CLI_SPOOL_FAILURE, NULL), 0);
	entries_made_no_more(f);
}

/* The hook names its entry after the newest the queue holds when that one
 * is named ahead of the clock: from the walk it made just before (the
 * queue read once), or, when that walk stopped short, read again. */
static void an_entry_is_named_after_the_newest_a_walk_saw(void **state)
{
	struct fixture *f = *state;
	callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
	const long long ahead = 4000000000000000000LL;
	char name[64];
	long long newest = 7;

	entries_made(f);
	e.command = "make";
	/* an empty queue, seen whole */
	assert_int_equal(cli_spool_pending(&f->ws, &newest), 0);
	assert_int_equal(newest, 0);
	/* a live hook's entry named ahead of the clock: seen by both walks */
	snprintf(name, sizeof(name), "%019lld-%ld.json", ahead, (long)getpid());
	put(f->spool, name);
	put(f->spool, "0000000000000000005-7.left.json");
	newest = 7;
	assert_int_equal(cli_spool_pending(&f->ws, &newest), 1);
	/* stopped at the left entry: not every name seen, unless it came last */
	assert_true(newest == CLI_SPOOL_UNSEEN || newest == ahead);
	newest = 7;
	assert_int_equal(cli_spool_holds(&f->ws, "make", CLI_SPOOL_ANY_RUN, &newest), 0);
	assert_int_equal(newest, ahead);
	for (int i = 0; i < 3; i++) {
		cli_spool_entry ent = CLI_SPOOL_ENTRY_INIT;
		/* given by a walk; given one the queue does not hold (it is
		 * taken as given, not read again); not given: read */
		const long long given[] = { ahead, ahead + 10, CLI_SPOOL_UNSEEN };
		const long long want[] = { ahead + 1, ahead + 11, ahead + 1 };
		char expect[32];

		assert_int_equal(cli_spool_prepare(&ent, &f->ws, &e, 1, "make", given[i]), 0);
		snprintf(expect, sizeof(expect), "%019lld-", want[i]);
		assert_memory_equal(ent.origin, expect, strlen(expect));
		cli_spool_entry_release(&ent);
	}
	entries_made_no_more(f);
}

/* An output that escaped would make an entry no drainer reads (a byte
 * that is no UTF-8 becomes U+FFFD, three bytes) keeps its head and tail,
 * and says so; one of the same size that escapes as it is stays whole. */
static void a_large_output_fits_its_entry(void **state)
{
	struct fixture *f = *state;
	const size_t n = 24u << 20;
	char *out = malloc(n + 1);

	assert_non_null(out);
	entries_made(f);
	for (int control = 1; control >= 0; control--) {
		callus_hook_event e = CALLUS_HOOK_EVENT_INIT;
		cli_spool_entry ent = CLI_SPOOL_ENTRY_INIT;
		size_t len;

		/* lines of 99 bytes, the first "HEAD", the last "TAIL" */
		for (size_t i = 0; i < n; i++)
			out[i] = (i + 1) % 100 == 0 ? '\n' : control ? '\377' : 'x';
		memcpy(out, "HEAD", 4);
		memcpy(out + n - 5, "TAIL", 4);
		out[n] = '\0';
		e.command = "make";
		e.output = out;
		e.output_len = n;
		assert_int_equal(cli_spool_prepare(&ent, &f->ws, &e, 2, "make", CLI_SPOOL_UNSEEN), 0);
		len = strlen(ent.text);
		assert_true(len <= (64u << 20) - (1u << 20));
		assert_non_null(strstr(ent.text, "\"output\":\"HEAD"));
		assert_non_null(strstr(ent.text + len - 64, "TAIL"));
		if (control) {
			assert_non_null(strstr(ent.text, "bytes of this output left out of its queue entry"));
		} else {
			assert_null(strstr(ent.text, "left out of its queue entry"));
			assert_true(len > n);
			assert_true(len < 2 * n);
		}
		cli_spool_entry_release(&ent);
	}
	free(out);
	entries_made_no_more(f);
}

/* Whether another open of the drain lock could take it while the
 * recorder below ran, before and after cli_spool_drain_let_go(). */
static char lock_path[320];
static int taken_before, taken_after;

static int try_lock(void)
{
	int fd = open(lock_path, O_RDWR | O_CLOEXEC), ok;

	assert_true(fd >= 0);
	ok = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return ok;
}

static int record_let_go(const cli_workspace *ws, const callus_hook_event *e,
			 const cli_spool_run *run)
{
	(void)ws;
	(void)e;
	(void)run;
	taken_before = try_lock();
	/* as the guard's handler does, cut while draining */
	cli_spool_drain_let_go();
	taken_after = try_lock();
	return 1;
}

/* A hook cut while it drains lets the drain lock go before it starts the
 * drainer that records what it left: held to its exit, the lock turned
 * that drainer away, and the queue waited for the next hook. */
static void a_drain_cut_lets_its_lock_go(void **state)
{
	struct fixture *f = *state;

	char path[512];
	FILE *fp;

	snprintf(lock_path, sizeof(lock_path), "%s/.drain.lock", f->spool);
	snprintf(path, sizeof(path), "%s/0000000000000000001-1.left.json", f->spool);
	assert_non_null(fp = fopen(path, "w"));
	fputs("{\"command\":\"gcc -c a.c\",\"exit_code\":1}", fp);
	assert_int_equal(fclose(fp), 0);
	taken_before = taken_after = -1;
	assert_int_equal(cli_spool_drain(&f->ws, 0, 0, record_let_go), 1);
	assert_int_equal(taken_before, 0);
	assert_int_equal(taken_after, 1);
	/* let go once: the drain's own close is not a second one */
	cli_spool_drain_let_go();
	assert_true(try_lock());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(an_entry_is_written_once, setup, teardown),
		cmocka_unit_test_setup_teardown(the_spool_holds_a_failure_when_one_is_left, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_spool_leading_out_is_not_walked, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_run_is_left_with_what_its_hook_kept, setup,
						teardown),
		cmocka_unit_test_setup_teardown(an_entry_is_named_after_the_newest_a_walk_saw, setup,
						teardown),
		cmocka_unit_test_setup_teardown(a_large_output_fits_its_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(a_drain_cut_lets_its_lock_go, setup, teardown),
		cmocka_unit_test_setup_teardown(the_queue_says_whether_it_holds_a_run_of_a_command,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
