/*
 * test_workspace.c - which directory is a workspace, and what callus may
 * write in one: never through a link that leaves it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/workspace.h"
#include "tmpdir_helpers.h"

struct fixture {
	char dir[64];
	callus_buf p, q;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *real;

	if (!f)
		return -1;
	if (test_tmpdir_make(f->dir, sizeof(f->dir), "ws") < 0 || !(real = realpath(f->dir, NULL))) {
		free(f);
		return -1;
	}
	snprintf(f->dir, sizeof(f->dir), "%s", real);
	free(real);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	test_tmpdir_remove(f->dir);
	callus_buf_release(&f->p);
	callus_buf_release(&f->q);
	free(f);
	return 0;
}

/* f->dir/rel, in a buffer the next call replaces (of at(), or of to()). */
static const char *at(struct fixture *f, const char *rel)
{
	callus_buf_clear(&f->p);
	callus_buf_printf(&f->p, "%s/%s", f->dir, rel);
	return f->p.ptr;
}

static const char *to(struct fixture *f, const char *rel)
{
	callus_buf_clear(&f->q);
	callus_buf_printf(&f->q, "%s/%s", f->dir, rel);
	return f->q.ptr;
}

static void test_find(void **state)
{
	struct fixture *f = *state;
	callus_ws_kind kind;
	char *root, *want;

	assert_int_equal(mkdir(at(f, "plain"), 0700), 0);
	assert_int_equal(mkdir(at(f, "plain/sub"), 0700), 0);
	assert_int_equal(mkdir(at(f, "repo"), 0700), 0);
	assert_int_equal(mkdir(at(f, "repo/.git"), 0700), 0);
	assert_int_equal(mkdir(at(f, "repo/src"), 0700), 0);
	assert_int_equal(mkdir(at(f, "inited"), 0700), 0);
	assert_int_equal(mkdir(at(f, "inited/.callus"), 0700), 0);
	assert_int_equal(mkdir(at(f, "inited/a"), 0700), 0);

	/* no marker: the directory itself, and it says so */
	root = callus_workspace_find(at(f, "plain/sub"), &kind);
	assert_string_equal(root, at(f, "plain/sub"));
	assert_int_equal(kind, CALLUS_WS_NONE);
	free(root);

	root = callus_workspace_find(at(f, "repo/src"), &kind);
	assert_string_equal(root, at(f, "repo"));
	assert_int_equal(kind, CALLUS_WS_GIT);
	free(root);

	root = callus_workspace_find(at(f, "inited/a"), &kind);
	want = strdup(at(f, "inited"));
	assert_string_equal(root, want);
	assert_int_equal(kind, CALLUS_WS_MARKED);
	free(root);
	free(want);

	/* a .callus that is a file marks nothing */
	assert_non_null(fopen(at(f, "plain/.callus"), "w"));
	root = callus_workspace_find(at(f, "plain/sub"), &kind);
	assert_int_equal(kind, CALLUS_WS_NONE);
	free(root);

	assert_null(callus_workspace_find(at(f, "missing"), &kind));
}

static void test_guard_links(void **state)
{
	struct fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf out = CALLUS_BUF_INIT;
	char *ws;

	assert_int_equal(mkdir(at(f, "ws"), 0700), 0);
	assert_int_equal(mkdir(at(f, "elsewhere"), 0700), 0);
	ws = strdup(at(f, "ws"));

	/* nothing there yet: allowed, the path is the file itself */
	assert_int_equal(callus_workspace_guard(&out, ws, "AGENTS.md", 0, &err), 0);
	assert_string_equal(out.ptr, at(f, "ws/AGENTS.md"));

	/* an existing directory, and a root named through a link: the path
	 * under the root as given (the same directory), resolved when the
	 * name is yet to be made */
	assert_int_equal(mkdir(at(f, "ws/.lessons"), 0700), 0);
	assert_int_equal(symlink(to(f, "ws"), at(f, "via")), 0);
	assert_int_equal(callus_workspace_guard(&out, at(f, "via"), ".lessons", 0, &err), 0);
	assert_string_equal(out.ptr, at(f, "via/.lessons"));
	assert_int_equal(callus_workspace_guard(&out, at(f, "via"), ".callus", 0, &err), 0);
	assert_string_equal(out.ptr, at(f, "ws/.callus"));
	assert_int_equal(rmdir(at(f, "ws/.lessons")), 0);

	/* names of several components, each there and none a link */
	assert_int_equal(mkdir(at(f, "ws/.callus"), 0700), 0);
	assert_int_equal(mkdir(at(f, "ws/.callus/spool"), 0700), 0);
	assert_int_equal(callus_workspace_guard(&out, ws, ".callus/spool", 0, &err), 0);
	assert_string_equal(out.ptr, at(f, "ws/.callus/spool"));
	/* ... and one of them a link leaving: the file under it is not
	 * written through it, whether it exists there or not */
	assert_int_equal(mkdir(at(f, "elsewhere/spool"), 0700), 0);
	assert_int_equal(rmdir(at(f, "ws/.callus/spool")), 0);
	assert_int_equal(rmdir(at(f, "ws/.callus")), 0);
	assert_int_equal(symlink(to(f, "elsewhere"), at(f, "ws/.callus")), 0);
	assert_int_equal(callus_workspace_guard(NULL, ws, ".callus/spool", 0, &err), CALLUS_EUNSAFE);
	callus_error_release(&err);
	assert_int_equal(callus_workspace_guard(NULL, ws, ".callus/owed", 0, &err), CALLUS_EUNSAFE);
	callus_error_release(&err);
	assert_int_equal(unlink(at(f, "ws/.callus")), 0);
	assert_int_equal(rmdir(at(f, "elsewhere/spool")), 0);
	/* a root that names a level by "..", or ends in "/": the same checks */
	assert_int_equal(symlink(to(f, "elsewhere"), at(f, "ws/.lessons")), 0);
	assert_int_equal(callus_workspace_guard(NULL, at(f, "ws/../ws"), ".lessons", 0, &err),
			 CALLUS_EUNSAFE);
	callus_error_release(&err);
	assert_int_equal(callus_workspace_guard(NULL, at(f, "ws/"), ".lessons", 0, &err),
			 CALLUS_EUNSAFE);
	callus_error_release(&err);
	assert_int_equal(unlink(at(f, "ws/.lessons")), 0);

	/* a link to a file elsewhere (a shell's startup file) */
	assert_int_equal(symlink(to(f, "elsewhere/.bashrc"), at(f, "ws/AGENTS.md")), 0);
	assert_int_equal(callus_workspace_guard(&out, ws, "AGENTS.md", 0, &err), CALLUS_EUNSAFE);
	assert_non_null(strstr(callus_error_message(&err), "outside the workspace"));
	callus_error_release(&err);

	/* a link inside the workspace is followed */
	assert_int_equal(unlink(at(f, "ws/AGENTS.md")), 0);
	assert_int_equal(symlink("docs/AI.md", at(f, "ws/AGENTS.md")), 0);
	assert_int_equal(callus_workspace_guard(&out, ws, "AGENTS.md", 0, &err), 0);
	assert_string_equal(out.ptr, at(f, "ws/docs/AI.md"));

	/* a relative link that climbs out */
	assert_int_equal(symlink("../elsewhere", at(f, "ws/.lessons")), 0);
	assert_int_equal(callus_workspace_guard(NULL, ws, ".lessons", 0, &err), CALLUS_EUNSAFE);
	callus_error_release(&err);

	/* through a linked directory, to a file that does not exist yet */
	assert_int_equal(symlink(to(f, "elsewhere"), at(f, "ws/docs")), 0);
	assert_int_equal(callus_workspace_guard(NULL, ws, "docs/AGENTS.md", 0, &err), CALLUS_EUNSAFE);
	callus_error_release(&err);

	/* a link to the workspace itself is no place for a store */
	assert_int_equal(symlink(".", at(f, "ws/.callus")), 0);
	assert_int_equal(callus_workspace_guard(NULL, ws, ".callus", 0, &err), CALLUS_EUNSAFE);
	callus_error_release(&err);

	/* a dangling link that would create a file elsewhere */
	assert_int_equal(unlink(at(f, "ws/.callus")), 0);
	assert_int_equal(symlink(to(f, "elsewhere/new/.callus"), at(f, "ws/.callus")), 0);
	assert_int_equal(callus_workspace_guard(NULL, ws, ".callus", 0, &err), CALLUS_EUNSAFE);
	callus_error_release(&err);

	free(ws);
	callus_buf_release(&out);
}

static void test_guard_private(void **state)
{
	struct fixture *f = *state;
	struct stat st;
	char *ws;

	assert_int_equal(mkdir(at(f, "ws"), 0700), 0);
	assert_int_equal(mkdir(at(f, "ws/.callus"), 0700), 0);
	assert_int_equal(chmod(at(f, "ws/.callus"), 0777), 0);
	ws = strdup(at(f, "ws"));
	assert_int_equal(callus_workspace_guard(NULL, ws, ".callus", CALLUS_WS_PRIVATE, NULL), 0);
	assert_int_equal(stat(at(f, "ws/.callus"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	/* without the flag, modes are the user's */
	assert_int_equal(mkdir(at(f, "ws/.lessons"), 0755), 0);
	assert_int_equal(callus_workspace_guard(NULL, ws, ".lessons", 0, NULL), 0);
	assert_int_equal(stat(at(f, "ws/.lessons"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0755 & ~0u);
	free(ws);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_find, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guard_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guard_private, setup, teardown),
	};

	umask(022);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
