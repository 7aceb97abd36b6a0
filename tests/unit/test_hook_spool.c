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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../cli/hook_spool.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "tmpdir_helpers.h"

struct fixture {
	char dir[256];
	char spool[300];
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
	assert_int_equal(cli_spool_pending(&f->ws), 0);
	snprintf(name, sizeof(name), "0000000000000000001-%ld.json", (long)getpid());
	put(f->spool, name);
	put(f->spool, ".spare");
	assert_int_equal(cli_spool_pending(&f->ws), 0);
	snprintf(name, sizeof(name), "0000000000000000002-%ld.json", (long)dead);
	put(f->spool, name);
	assert_int_equal(cli_spool_pending(&f->ws), 1);
	put(f->spool, "0000000000000000003-7.left.json");
	assert_int_equal(cli_spool_pending(&f->ws), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(an_entry_is_written_once, setup, teardown),
		cmocka_unit_test_setup_teardown(the_spool_holds_a_failure_when_one_is_left, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
