/*
 * test_runner.c - the process runner against real commands (sh, cat, sleep).
 *
 * Output goes to unlinked temporary files so it can be compared byte for
 * byte afterwards; nothing here measures time, only outcomes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/runner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static int tmp_fd(void)
{
	char path[] = "/tmp/callus-runner-test-XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

static void slurp(callus_buf *b, int fd)
{
	char chunk[65536];
	ssize_t n;

	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		assert_int_equal(callus_buf_put(b, chunk, (size_t)n), 0);
	assert_true(n == 0);
}

static void write_file(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len) {
		ssize_t w = write(fd, p, len);

		assert_true(w > 0);
		p += w;
		len -= (size_t)w;
	}
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
}

static int collect(void *ctx, int stream, const char *data, size_t len)
{
	(void)stream;
	return callus_buf_put(ctx, data, len) < 0 ? -1 : 0;
}

/* Run argv with stdout into a temporary file; fills out/seen, and err when
 * run_full() owns err_fd. */
struct result {
	int rc, status;
	callus_buf out, err, seen;
	callus_error e;
};

static void run_into(struct result *res, char *const *argv, int pty, int in_fd, int efd)
{
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	int ofd = tmp_fd();

	memset(res, 0, sizeof *res);
	callus_buf_init(&res->out, 0);
	callus_buf_init(&res->err, 0);
	callus_buf_init(&res->seen, 0);
	res->status = -1;
	o.argv = argv;
	o.pty = pty;
	o.in_fd = in_fd;
	o.out_fd = ofd;
	o.err_fd = efd;
	o.on_output = collect;
	o.ctx = &res->seen;
	res->rc = callus_runner_run(&res->status, &o, &res->e);
	slurp(&res->out, ofd);
	close(ofd);
}

static void run_full(struct result *res, char *const *argv, int pty, int in_fd)
{
	int efd = tmp_fd();

	run_into(res, argv, pty, in_fd, efd);
	slurp(&res->err, efd);
	close(efd);
}

/* A terminal of our own to stand for the user's, e.g. as err_fd. */
struct test_tty {
	int master, slave;
};

static void test_tty_open(struct test_tty *t)
{
	const char *name;

	t->master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(t->master >= 0);
	assert_int_equal(grantpt(t->master), 0);
	assert_int_equal(unlockpt(t->master), 0);
	name = ptsname(t->master);
	assert_non_null(name);
	t->slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	assert_true(t->slave >= 0);
	assert_true(isatty(t->slave));
	assert_int_equal(fcntl(t->master, F_SETFL, O_NONBLOCK), 0);
}

/* How many bytes were written to the slave so far. */
static size_t test_tty_pending(const struct test_tty *t)
{
	char chunk[4096];
	size_t total = 0;
	ssize_t n;

	while ((n = read(t->master, chunk, sizeof chunk)) > 0)
		total += (size_t)n;
	assert_true(n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
	return total;
}

static void test_tty_close(struct test_tty *t)
{
	close(t->slave);
	close(t->master);
}

static void result_release(struct result *res)
{
	callus_buf_release(&res->out);
	callus_buf_release(&res->err);
	callus_buf_release(&res->seen);
	callus_error_release(&res->e);
}

static int run_status(char *const *argv, int pty)
{
	struct result res;
	int status;

	run_full(&res, argv, pty, -1);
	assert_int_equal(res.rc, 0);
	status = res.status;
	result_release(&res);
	return status;
}

static void test_exit_codes(void **state)
{
	char *ok[] = { "true", NULL };
	char *three[] = { "sh", "-c", "exit 3", NULL };

	(void)state;
	assert_int_equal(run_status(ok, 0), 0);
	assert_int_equal(run_status(three, 0), 3);
	assert_int_equal(run_status(three, 1), 3);
}

static void test_killed_by_signal(void **state)
{
	char *argv[] = { "sh", "-c", "kill -9 $$", NULL };

	(void)state;
	assert_int_equal(run_status(argv, 0), 137);
	assert_int_equal(run_status(argv, 1), 137);
}

/* Deterministic bytes: every value 0..255 first, then an LCG. */
static void fill_pattern(unsigned char *p, size_t len)
{
	uint32_t x = 12345;
	size_t i;

	for (i = 0; i < len; i++) {
		if (i < 256) {
			p[i] = (unsigned char)i;
		} else {
			x = x * 1103515245u + 12345u;
			p[i] = (unsigned char)(x >> 16);
		}
	}
}

static void check_binary(size_t len, int pty)
{
	unsigned char *data = malloc(len);
	char *argv[] = { "cat", NULL };
	struct result res;
	int in = tmp_fd();

	assert_non_null(data);
	fill_pattern(data, len);
	write_file(in, data, len);
	run_full(&res, argv, pty, in);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.status, 0);
	assert_int_equal(res.out.len, len);
	assert_memory_equal(res.out.ptr, data, len);
	assert_int_equal(res.seen.len, len);
	assert_memory_equal(res.seen.ptr, data, len);
	assert_int_equal(res.err.len, 0);
	result_release(&res);
	close(in);
	free(data);
}

static void test_binary_output(void **state)
{
	(void)state;
	check_binary(256, 0);
	check_binary(4 * 1024 * 1024 + 7, 0);
}

static void test_binary_output_pty(void **state)
{
	(void)state;
	check_binary(256, 1);
	check_binary(512 * 1024, 1);
}

static void test_stderr_separate(void **state)
{
	char *argv[] = { "sh", "-c", "echo out; echo err >&2", NULL };
	struct test_tty tty;
	struct result res;

	(void)state;
	run_full(&res, argv, 0, -1);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "out\n");
	assert_string_equal(res.err.ptr, "err\n");
	assert_int_equal(res.seen.len, 8);
	assert_non_null(strstr(res.seen.ptr, "out\n"));
	assert_non_null(strstr(res.seen.ptr, "err\n"));
	result_release(&res);

	/* In a pty, with err_fd a terminal too, both streams are the
	 * terminal, as on screen: stderr reaches out_fd, nothing err_fd. */
	test_tty_open(&tty);
	run_into(&res, argv, 1, -1, tty.slave);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "out\nerr\n");
	assert_string_equal(res.seen.ptr, "out\nerr\n");
	assert_int_equal(test_tty_pending(&tty), 0);
	result_release(&res);
	test_tty_close(&tty);
}

/* `callus run make 2>err.log` from a terminal: the child's stderr goes to the
 * file, not through the pty onto the screen, and is no terminal. */
static void test_pty_stderr_redirected(void **state)
{
	char *argv[] = { "sh", "-c",
			 "printf out; printf err >&2; test -t 1 || exit 3; test -t 2 && exit 4; exit 0",
			 NULL };
	callus_buf err = CALLUS_BUF_INIT;
	struct result res;
	char chunk[256];
	ssize_t n;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	run_into(&res, argv, 1, -1, p[1]);
	close(p[1]);
	while ((n = read(p[0], chunk, sizeof chunk)) > 0)
		assert_int_equal(callus_buf_put(&err, chunk, (size_t)n), 0);
	assert_true(n == 0);
	close(p[0]);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "out");
	assert_int_equal(err.len, 3);
	assert_memory_equal(err.ptr, "err", 3);
	/* on_output still sees both */
	assert_int_equal(res.seen.len, 6);
	assert_non_null(strstr(res.seen.ptr, "out"));
	assert_non_null(strstr(res.seen.ptr, "err"));
	result_release(&res);
	callus_buf_release(&err);

	/* err_fd < 0 discards stderr, pty or not */
	run_into(&res, argv, 1, -1, -1);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "out");
	assert_int_equal(res.seen.len, 6);
	result_release(&res);
}

/* Auto, stdout a file and stderr the terminal: the pty is stderr alone,
 * so a compiler keeps its colours on the screen and the file gets
 * exactly stdout. */
static void test_pty_stderr_only(void **state)
{
	char *argv[] = { "sh", "-c",
			 "printf out; printf err >&2; test -t 1 && exit 3; test -t 2 || exit 4; exit 0",
			 NULL };
	struct test_tty term;
	struct result res;

	(void)state;
	test_tty_open(&term);
	run_into(&res, argv, -1, -1, term.slave);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "out");
	assert_int_equal(test_tty_pending(&term), 3);
	assert_int_equal(res.seen.len, 6);
	result_release(&res);
	test_tty_close(&term);
}

static void test_pty_is_a_tty(void **state)
{
	char *tty[] = { "sh", "-c", "test -t 1 && test -t 2", NULL };
	char *size[] = { "sh", "-c", "stty size <&1", NULL };
	struct test_tty term;
	struct result res;

	(void)state;
	/* stderr is the pty only when err_fd is a terminal: see
	 * test_pty_stderr_redirected for the other case */
	test_tty_open(&term);
	run_into(&res, tty, 1, -1, term.slave);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.status, 0);
	result_release(&res);
	test_tty_close(&term);
	assert_int_not_equal(run_status(tty, 0), 0);
	/* auto: out_fd is a file here, so pipes */
	assert_int_not_equal(run_status(tty, -1), 0);

	/* The pty, the child's stdout, has a usable size even though out_fd
	 * is no terminal.  It is not the child's controlling terminal: that
	 * stays the caller's (/dev/tty, job control). */
	run_full(&res, size, 1, -1);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "24 80\n");
	result_release(&res);
}

static void test_stdin_passthrough(void **state)
{
	char *argv[] = { "cat", NULL };
	struct result res;
	int in = tmp_fd();

	(void)state;
	write_file(in, "hello\n", 6);
	run_full(&res, argv, 0, in);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "hello\n");
	result_release(&res);

	assert_int_equal(lseek(in, 0, SEEK_SET), 0);
	run_full(&res, argv, 1, in);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out.ptr, "hello\n");
	result_release(&res);
	close(in);

	/* in_fd < 0: /dev/null, so cat ends at once */
	run_full(&res, argv, 0, -1);
	assert_int_equal(res.status, 0);
	assert_int_equal(res.out.len, 0);
	result_release(&res);
}

static void test_not_found(void **state)
{
	char *argv[] = { "callus-no-such-command-7f3a", "x", NULL };
	struct result res;

	(void)state;
	run_full(&res, argv, 0, -1);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.status, 127);
	assert_int_equal(res.e.code, CALLUS_ENOTFOUND);
	assert_string_equal(callus_error_message(&res.e),
			    "cannot run 'callus-no-such-command-7f3a': No such file or directory");
	result_release(&res);
}

static void test_not_executable(void **state)
{
	char dir[] = "/tmp/callus-runner-test-XXXXXX";
	callus_buf path = CALLUS_BUF_INIT;
	struct result res;
	char *argv[2];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(callus_buf_printf(&path, "%s/script", dir), 0);
	fd = open(path.ptr, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	write_file(fd, "#!/bin/sh\nexit 0\n", 17);
	close(fd);
	argv[0] = path.ptr;
	argv[1] = NULL;

	run_full(&res, argv, 0, -1);
	assert_int_equal(res.rc, 0);
	assert_int_equal(res.status, 126);
	assert_non_null(strstr(callus_error_message(&res.e), "Permission denied"));
	result_release(&res);

	unlink(path.ptr);
	rmdir(dir);
	callus_buf_release(&path);
}

static void test_bad_opts(void **state)
{
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	callus_error e = CALLUS_ERROR_INIT;
	char *empty[] = { NULL };
	int status = -1;

	(void)state;
	assert_int_equal(callus_runner_run(&status, &o, &e), CALLUS_EINVAL);
	o.argv = empty;
	assert_int_equal(callus_runner_run(&status, &o, NULL), CALLUS_EINVAL);
	assert_int_equal(status, -1);
	callus_error_release(&e);
}

/* Send `sig` to ourselves once the child has proved it is running. */
struct self_kill {
	int sig;
	int sent;
};

static int kill_self_on_output(void *ctx, int stream, const char *data, size_t len)
{
	(void)stream;
	struct self_kill *k = ctx;

	(void)data;
	(void)len;
	if (!k->sent) {
		k->sent = 1;
		kill(getpid(), k->sig);
	}
	return 0;
}

static int run_and_signal(int sig, int pty)
{
	char *argv[] = { "sh", "-c", "echo ready; exec sleep 30", NULL };
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	struct self_kill k = { sig, 0 };
	struct sigaction before, after;
	int status = -1;

	assert_int_equal(sigaction(sig, NULL, &before), 0);
	o.argv = argv;
	o.pty = pty;
	o.in_fd = -1;
	o.out_fd = -1;
	o.err_fd = -1;
	o.on_output = kill_self_on_output;
	o.ctx = &k;
	assert_int_equal(callus_runner_run(&status, &o, NULL), 0);
	assert_true(k.sent);
	/* and the caller's disposition is back */
	assert_int_equal(sigaction(sig, NULL, &after), 0);
	assert_ptr_equal(before.sa_handler, after.sa_handler);
	return status;
}

static void test_signal_forwarded(void **state)
{
	(void)state;
	/* A test started in the background by a non-interactive shell has
	 * SIGINT ignored, and the child rightly inherits that: start from the
	 * default dispositions a terminal would give. */
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	assert_int_equal(run_and_signal(SIGTERM, 0), 143);
	assert_int_equal(run_and_signal(SIGTERM, 1), 143);
	assert_int_equal(run_and_signal(SIGINT, 0), 130);
	assert_int_equal(run_and_signal(SIGHUP, 1), 129);
}

static int stop_at_once(void *ctx, int stream, const char *data, size_t len)
{
	(void)stream;
	(void)data;
	(void)len;
	++*(int *)ctx;
	return -1;
}

static void test_callback_stop_keeps_output(void **state)
{
	char *argv[] = { "head", "-c", "1000000", "/dev/zero", NULL };
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	callus_buf out = CALLUS_BUF_INIT;
	int calls = 0, status = -1, ofd = tmp_fd();

	(void)state;
	o.argv = argv;
	o.pty = 0;
	o.out_fd = ofd;
	o.on_output = stop_at_once;
	o.ctx = &calls;
	assert_int_equal(callus_runner_run(&status, &o, NULL), 0);
	assert_int_equal(status, 0);
	assert_int_equal(calls, 1);
	slurp(&out, ofd);
	assert_int_equal(out.len, 1000000);
	callus_buf_release(&out);
	close(ofd);
}

static int count_bytes(void *ctx, int stream, const char *data, size_t len)
{
	(void)stream;
	(void)data;
	*(size_t *)ctx += len;
	return 0;
}

static void test_broken_out_fd(void **state)
{
	char *argv[] = { "head", "-c", "3000000", "/dev/zero", NULL };
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	struct sigaction before, after;
	size_t seen = 0;
	int p[2], status = -1, werr = 0, sig = -1, full;

	(void)state;
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	assert_int_equal(sigaction(SIGPIPE, NULL, &before), 0);
	o.argv = argv;
	o.pty = 0;
	o.out_fd = p[1];
	o.on_output = count_bytes;
	o.ctx = &seen;
	o.write_errno = &werr;
	o.term_signal = &sig;
	assert_int_equal(callus_runner_run(&status, &o, NULL), 0);
	/* the reader gone, the child met the closed pipe as it would have
	 * bare: killed by SIGPIPE (not ignored for it), its output cut */
	assert_int_equal(status, 128 + SIGPIPE);
	assert_int_equal(sig, SIGPIPE);
	assert_int_equal(werr, EPIPE);
	assert_true(seen < 3000000);
	assert_int_equal(sigaction(SIGPIPE, NULL, &after), 0);
	assert_ptr_equal(before.sa_handler, after.sa_handler);
	close(p[1]);

	/* a destination that fails otherwise (a full disk): the child is
	 * drained whole, and the caller told */
	seen = 0;
	werr = 0;
	assert_true((full = open("/dev/full", O_WRONLY)) >= 0);
	o.out_fd = full;
	assert_int_equal(callus_runner_run(&status, &o, NULL), 0);
	assert_int_equal(status, 0);
	assert_int_equal(sig, 0);
	assert_int_equal(werr, ENOSPC);
	assert_int_equal(seen, 3000000);
	close(full);
}

/* Whether the SigIgn line of a /proc/PID/status text ignores sig (the
 * suite may run with other signals ignored, SIGINT under nohup's `&`). */
static int ignores(const char *status, int sig)
{
	const char *line = strstr(status, "SigIgn:");

	assert_non_null(line);
	return (int)((strtoull(line + 7, NULL, 16) >> (sig - 1)) & 1);
}

/* What the child starts with: SIGPIPE at its default unless ignored from
 * the start; a descriptor marked closed, closed; one file for stdout and
 * stderr, one pipe, so the order written is the order read. */
/* Run o again with stdout the file fd, emptied first; what it holds
 * then in *got. */
static void run_again(const callus_runner_opts *o, int fd, callus_buf *got)
{
	int status = -1;

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	callus_buf_clear(got);
	assert_int_equal(callus_runner_run(&status, o, NULL), 0);
	slurp(got, fd);
}

static void test_child_starts_as_bare(void **state)
{
	char *ign[] = { "sh", "-c", "grep ^SigIgn: /proc/self/status", NULL };
	char *closed[] = { "sh", "-c", "cat <&0 2>/dev/null; echo $?", NULL };
	char *mixed[] = { "sh", "-c", "for i in 1 2 3 4 5 6; do echo o$i; echo e$i >&2; done", NULL };
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	callus_buf got = CALLUS_BUF_INIT, seen = CALLUS_BUF_INIT;
	sigset_t started;
	int fd = tmp_fd();

	(void)state;
	o.argv = ign;
	o.pty = 0;
	o.out_fd = fd;
	run_again(&o, fd, &got);
	assert_false(ignores(got.ptr, SIGPIPE));
	/* ignored from the start: ignored for the command too */
	sigemptyset(&started);
	sigaddset(&started, SIGPIPE);
	o.started_ignored = &started;
	run_again(&o, fd, &got);
	assert_true(ignores(got.ptr, SIGPIPE));
	o.started_ignored = NULL;

	o.argv = closed;
	o.in_fd = CALLUS_RUNNER_CLOSED;
	run_again(&o, fd, &got);
	assert_string_equal(got.ptr, "1\n");
	o.in_fd = 0;

	/* 2>&1: one file, whose two descriptors are read as one stream */
	o.argv = mixed;
	o.err_fd = fd;
	o.on_output = collect;
	o.ctx = &seen;
	run_again(&o, fd, &got);
	assert_string_equal(got.ptr, "o1\ne1\no2\ne2\no3\ne3\no4\ne4\no5\ne5\no6\ne6\n");
	assert_string_equal(seen.ptr, got.ptr);
	callus_buf_release(&got);
	callus_buf_release(&seen);
	close(fd);
}

static void test_memory_bounded(void **state)
{
	char *argv[] = { "head", "-c", "64000000", "/dev/zero", NULL };
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	struct rusage before, after;
	size_t seen = 0;
	int status = -1;

	(void)state;
	assert_int_equal(getrusage(RUSAGE_SELF, &before), 0);
	o.argv = argv;
	o.pty = 0;
	o.out_fd = -1;
	o.on_output = count_bytes;
	o.ctx = &seen;
	assert_int_equal(callus_runner_run(&status, &o, NULL), 0);
	assert_int_equal(status, 0);
	assert_int_equal(seen, 64000000);
	assert_int_equal(getrusage(RUSAGE_SELF, &after), 0);
	/* 64 MB went through; the peak may not grow by half of that */
	assert_true(after.ru_maxrss - before.ru_maxrss < 32 * 1024);
}

/* A background grandchild keeps the pipe open: the run still ends. */
static void test_background_grandchild(void **state)
{
	char *argv[] = { "sh", "-c", "sleep 30 & echo $!", NULL };
	struct result res;
	long pid;

	(void)state;
	run_full(&res, argv, 0, -1);
	assert_int_equal(res.status, 0);
	pid = strtol(res.out.ptr, NULL, 10);
	assert_true(pid > 0);
	kill((pid_t)pid, SIGKILL);
	result_release(&res);
}

static int fd_is_in(const callus_buf *list, int fd)
{
	char needle[32];

	snprintf(needle, sizeof needle, " %d ", fd);
	return strstr(list->ptr, needle) != NULL;
}

/* The child sees its three standard fds and whatever the caller had open
 * without FD_CLOEXEC, never one of the runner's own. */
static void test_no_fd_leak(void **state)
{
	char *argv[] = { "sh", "-c", "cd /proc/$$/fd && echo *", NULL };
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	callus_buf mine = CALLUS_BUF_INIT, seen = CALLUS_BUF_INIT;
	struct dirent *de;
	DIR *d;
	char *p, *end;
	int pty, status;

	(void)state;
	for (pty = 0; pty <= 1; pty++) {
		callus_buf_clear(&mine);
		callus_buf_clear(&seen);
		assert_int_equal(callus_buf_puts(&mine, " 0 1 2 "), 0);
		d = opendir("/proc/self/fd");
		assert_non_null(d);
		while ((de = readdir(d)))
			assert_int_equal(callus_buf_printf(&mine, "%s ", de->d_name), 0);
		closedir(d);

		o.argv = argv;
		o.pty = pty;
		o.in_fd = -1;
		o.out_fd = -1;
		o.err_fd = -1;
		o.on_output = collect;
		o.ctx = &seen;
		status = -1;
		assert_int_equal(callus_runner_run(&status, &o, NULL), 0);
		assert_int_equal(status, 0);
		p = seen.ptr;
		for (;;) {
			long fd = strtol(p, &end, 10);

			if (end == p)
				break;
			if (!fd_is_in(&mine, (int)fd))
				fail_msg("child inherited fd %ld (pty=%d): %s", fd, pty, seen.ptr);
			p = end;
		}
	}
	callus_buf_release(&mine);
	callus_buf_release(&seen);
}

static int by_stream(void *ctx, int stream, const char *data, size_t len)
{
	callus_buf *b = ctx;

	assert_true(stream == 1 || stream == 2);
	return callus_buf_put(&b[stream - 1], data, len) < 0 ? -1 : 0;
}

/* on_output says which pipe a chunk came from: the capture holds each
 * one's unfinished line apart (capture.h). */
static void test_output_names_its_stream(void **state)
{
	static char *const argv[] = { "sh", "-c", "printf 'dots'; printf 'FAIL\\n' >&2; echo .",
				      NULL };
	callus_runner_opts o = CALLUS_RUNNER_OPTS_INIT;
	callus_buf seen[2] = { CALLUS_BUF_INIT, CALLUS_BUF_INIT };
	callus_error e = CALLUS_ERROR_INIT;
	int status = -1;

	(void)state;
	o.argv = argv;
	o.pty = 0;
	o.out_fd = -1;
	o.err_fd = -1;
	o.on_output = by_stream;
	o.ctx = seen;
	assert_int_equal(callus_runner_run(&status, &o, &e), 0);
	assert_int_equal(status, 0);
	assert_int_equal(seen[0].len, 6);
	assert_memory_equal(seen[0].ptr, "dots.\n", 6);
	assert_int_equal(seen[1].len, 5);
	assert_memory_equal(seen[1].ptr, "FAIL\n", 5);
	callus_buf_release(&seen[0]);
	callus_buf_release(&seen[1]);
	callus_error_release(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_killed_by_signal),
		cmocka_unit_test(test_binary_output),
		cmocka_unit_test(test_binary_output_pty),
		cmocka_unit_test(test_stderr_separate),
		cmocka_unit_test(test_output_names_its_stream),
		cmocka_unit_test(test_pty_is_a_tty),
		cmocka_unit_test(test_pty_stderr_redirected),
		cmocka_unit_test(test_pty_stderr_only),
		cmocka_unit_test(test_stdin_passthrough),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_not_executable),
		cmocka_unit_test(test_bad_opts),
		cmocka_unit_test(test_signal_forwarded),
		cmocka_unit_test(test_callback_stop_keeps_output),
		cmocka_unit_test(test_broken_out_fd),
		cmocka_unit_test(test_memory_bounded),
		cmocka_unit_test(test_background_grandchild),
		cmocka_unit_test(test_no_fd_leak),
		cmocka_unit_test(test_child_starts_as_bare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
