/*
 * test_views.c - a recording's debt for its views (src/views.c): made
 * before the commit, paid after the views, its file kept as the next
 * debt's (.callus/owed/.spare), never a debt itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/views.h"
#include "tmpdir_helpers.h"

#define SIG "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

struct fixture {
	char dir[64];
	char owed[96];
	char spare[112];
	int noreplace; /* the file system renames with RENAME_NOREPLACE: spares are reused */
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	if (test_tmpdir_make(f->dir, sizeof(f->dir), "views") < 0) {
		free(f);
		return -1;
	}
	snprintf(f->owed, sizeof(f->owed), "%s/.callus/owed", f->dir);
	snprintf(f->spare, sizeof(f->spare), "%s/.spare", f->owed);
	if (callus_fs_mkdir_p(f->owed, 0700, NULL) < 0) {
		test_tmpdir_remove(f->dir);
		free(f);
		return -1;
	}
	f->noreplace = test_tmpdir_noreplace(f->dir);
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

/* How many names owed/ holds besides the spare; the last one's path into
 * name (when given). */
static int debts(const struct fixture *f, callus_buf *name)
{
	struct dirent *e;
	DIR *dh;
	int n = 0;

	assert_non_null(dh = opendir(f->owed));
	while ((e = readdir(dh))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, ".spare"))
			continue;
		if (name) {
			callus_buf_clear(name);
			assert_int_equal(callus_buf_printf(name, "%s/%s", f->owed, e->d_name), 0);
		}
		n++;
	}
	closedir(dh);
	return n;
}

static void text_of(const char *path, callus_buf *out)
{
	callus_buf_clear(out);
	assert_int_equal(callus_fs_read_file(out, path, 4096, NULL), 0);
}

/* Owed, paid, owed again: the second debt is the first's file (no inode
 * made and freed a recording), holding only its own line. */
static void a_paid_debt_is_the_next_ones_file(void **state)
{
	struct fixture *f = *state;
	callus_views_debt *d = NULL;
	callus_buf text = CALLUS_BUF_INIT;
	callus_buf path = CALLUS_BUF_INIT;
	struct stat a, b;

	callus_views_owe(&d, f->dir, SIG);
	assert_non_null(d);
	assert_int_equal(debts(f, &path), 1);
	text_of(path.ptr, &text);
	assert_string_equal(text.ptr, SIG "\n");
	assert_int_equal(stat(path.ptr, &a), 0);
	callus_views_settle(d, 1);
	assert_int_equal(debts(f, NULL), 0);
	assert_int_equal(stat(f->spare, &b), 0);
	assert_true(a.st_ino == b.st_ino);
	/* a spare is no debt: nothing owed */
	assert_int_equal(callus_views_owed(f->dir), 0);
	/* a spare an hour old: the debt made from it is not taken for a
	 * crash's, even for an instant (written before it is named) */
	{
		struct timespec old[2] = { { time(NULL) - 3600, 0 }, { time(NULL) - 3600, 0 } };

		assert_int_equal(utimensat(AT_FDCWD, f->spare, old, 0), 0);
	}

	callus_views_owe(&d, f->dir, NULL); /* a fix's: "views", shorter */
	assert_non_null(d);
	assert_int_equal(debts(f, &path), 1);
	assert_int_equal(access(f->spare, F_OK), -1);
	assert_int_equal(stat(path.ptr, &b), 0);
	if (f->noreplace)
		assert_true(a.st_ino == b.st_ino);
	text_of(path.ptr, &text);
	assert_string_equal(text.ptr, "views\n");
	assert_int_equal(b.st_mode & 0777, 0600);
	assert_true(b.st_mtime >= time(NULL) - 60);
	assert_int_equal(debts(f, NULL), 1); /* no dot name left behind */
	/* not written: the debt stays for the next run to repair */
	callus_views_settle(d, 0);
	assert_int_equal(debts(f, NULL), 1);
	assert_int_equal(access(f->spare, F_OK), -1);
	callus_buf_release(&text);
	callus_buf_release(&path);
}

/* A named debt whose maker is gone is owed; a live maker's is not (its
 * recording is still at work), nor a name that is no debt's. */
static void a_dead_makers_debt_is_owed(void **state)
{
	struct fixture *f = *state;
	char path[256];
	pid_t dead = fork();
	int status;

	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, &status, 0), dead);
	snprintf(path, sizeof(path), "%s/%ld-1", f->owed, (long)getpid());
	assert_int_equal(callus_fs_write_atomic(path, "views\n", 6, 0600, 0, NULL), 0);
	snprintf(path, sizeof(path), "%s/x%ld-1", f->owed, (long)dead);
	assert_int_equal(callus_fs_write_atomic(path, "views\n", 6, 0600, 0, NULL), 0);
	/* no digits before the dash: a sign or a space is no pid's */
	for (size_t i = 0; i < 4; i++) {
		static const char *const sign[] = { "-", "-5-", "+", " " };

		snprintf(path, sizeof(path), "%s/%s%ld-1", f->owed, sign[i], (long)dead);
		assert_int_equal(callus_fs_write_atomic(path, "views\n", 6, 0600, 0, NULL), 0);
	}
	assert_int_equal(callus_views_owed(f->dir), 0);

	snprintf(path, sizeof(path), "%s/%ld-2", f->owed, (long)dead);
	assert_int_equal(callus_fs_write_atomic(path, "views\n", 6, 0600, 0, NULL), 0);
	assert_int_equal(callus_views_owed(f->dir), 1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(callus_views_owed(f->dir), 0);
}

/* Two debts at once: one takes the spare, the other makes a file; paid,
 * one of the two files stays as the spare. */
static void two_debts_at_once(void **state)
{
	struct fixture *f = *state;
	callus_views_debt *d1 = NULL, *d2 = NULL, *d0 = NULL;

	callus_views_owe(&d0, f->dir, SIG);
	callus_views_settle(d0, 1);
	callus_views_owe(&d1, f->dir, SIG);
	callus_views_owe(&d2, f->dir, SIG);
	assert_non_null(d1);
	assert_non_null(d2);
	assert_int_equal(debts(f, NULL), 2);
	callus_views_settle(d2, 1);
	callus_views_settle(d1, 1);
	assert_int_equal(debts(f, NULL), 0);
	assert_int_equal(access(f->spare, F_OK), 0);
}

/* A spare that is not a regular file is never written through: a link's
 * target is untouched, a FIFO is not waited on; the debt is a new file. */
static void a_strange_spare_is_not_followed(void **state)
{
	struct fixture *f = *state;
	callus_views_debt *d = NULL;
	callus_buf text = CALLUS_BUF_INIT;
	char target[128];
	callus_buf path = CALLUS_BUF_INIT;
	FILE *t;

	snprintf(target, sizeof(target), "%s/target", f->dir);
	assert_non_null(t = fopen(target, "w"));
	fputs("keep\n", t);
	fclose(t);
	assert_int_equal(symlink(target, f->spare), 0);
	callus_views_owe(&d, f->dir, SIG);
	assert_non_null(d);
	text_of(target, &text);
	assert_string_equal(text.ptr, "keep\n");
	assert_int_equal(debts(f, &path), 1);
	text_of(path.ptr, &text);
	assert_string_equal(text.ptr, SIG "\n");
	callus_views_settle(d, 1);

	assert_int_equal(unlink(f->spare), 0);
	assert_int_equal(mkfifo(f->spare, 0600), 0);
	callus_views_owe(&d, f->dir, SIG);
	assert_non_null(d);
	assert_int_equal(debts(f, &path), 1);
	text_of(path.ptr, &text);
	assert_string_equal(text.ptr, SIG "\n");
	callus_views_settle(d, 1);
	callus_buf_release(&text);
	callus_buf_release(&path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(a_paid_debt_is_the_next_ones_file, setup, teardown),
		cmocka_unit_test_setup_teardown(two_debts_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(a_dead_makers_debt_is_owed, setup, teardown),
		cmocka_unit_test_setup_teardown(a_strange_spare_is_not_followed, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
