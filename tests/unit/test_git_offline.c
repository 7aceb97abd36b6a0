/*
 * test_git_offline.c - the snapshot helper never reaches the network
 * (helper/callus-git-offline.c), linked as the helper is: in the static
 * link libgit2's start of TLS does nothing, so a TLS stream made anyway
 * would use a configuration that was never made.  Every transport's
 * connection must fail with the helper's refusal, before any socket:
 * without it, http and ssh would fail with "connection refused" from
 * port 1, and https would reach an mbedTLS that was never configured.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "../../helper/callus-git.h"

static int setup(void **state)
{
	(void)state;
	return git_libgit2_init() > 0 && callus_git_offline() == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	git_libgit2_shutdown();
	return 0;
}

static void every_transport_is_refused(void **state)
{
	/* not git://, which takes the same plain stream as http and ssh:
	 * libgit2 1.5 leaks its stream's allocation when the stream cannot be
	 * made (the sanitizer run's leak check) */
	static const char *const urls[] = {
		"https://127.0.0.1:1/r.git",
		"http://127.0.0.1:1/r.git",
		"ssh://git@127.0.0.1:1/r.git",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		git_remote *remote = NULL;
		const git_error *e;

		assert_int_equal(git_remote_create_detached(&remote, urls[i]), 0);
		assert_true(git_remote_connect(remote, GIT_DIRECTION_FETCH, NULL, NULL, NULL) < 0);
		e = git_error_last();
		assert_non_null(e);
		if (!strstr(e->message, "callus-git does not reach the network"))
			fail_msg("%s: %s", urls[i], e->message);
		git_remote_free(remote);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(every_transport_is_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
