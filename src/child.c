/*
 * child.c - helper programs run with a deadline (include/callus/child.h).
 */
#include "callus/child.h"
#include "callus/buf.h"
#include "callus/common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Signals whose disposition a caller may have changed (SIGPIPE ignored,
 * SIGINT/SIGTERM handled by callus's runner) and which the helper must see
 * with their defaults: an ignored SIGPIPE survives exec. */
static const int default_signals[] = {
	SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2,
	SIGTSTP, SIGTTIN, SIGTTOU, SIGXFSZ
};

char *callus_child_sibling(const char *env, const char *name)
{
	const char *val = env ? getenv(env) : NULL;
	callus_buf b = CALLUS_BUF_INIT;
	size_t cap = 256;
	char *exe = NULL, *slash;

	if (val && *val)
		return strdup(val);
	/* readlink does not say how long the target is: grow until it fits. */
	for (;;) {
		char *p = realloc(exe, cap);
		ssize_t n;

		if (!p)
			goto fail;
		exe = p;
		n = readlink("/proc/self/exe", exe, cap);
		if (n < 0)
			goto fail;
		if ((size_t)n < cap) {
			exe[n] = '\0';
			break;
		}
		if (cap > (1u << 16))
			goto fail;
		cap *= 2;
	}
	slash = strrchr(exe, '/');
	if (!slash)
		goto fail;
	callus_buf_put(&b, exe, (size_t)(slash - exe + 1));
	callus_buf_puts(&b, name);
	free(exe);
	if (callus_buf_status(&b) < 0) {
		callus_buf_release(&b);
		return NULL;
	}
	return callus_buf_detach(&b);
fail:
	free(exe);
	return NULL;
}

/* Keep our ends off fds 0-2: when the caller runs with a standard stream
 * closed, a pipe can land there and the child's dup2s would clobber it. */
static int lift_fd(int fd)
{
	int nfd;

	if (fd > 2)
		return fd;
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return nfd;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

long long callus_child_now_ms(void)
{
	return now_ms();
}

/* fds[0] is ours (non-blocking), fds[1] the child's. */
static int lift_pair(int fds[2], int ours)
{
	fds[0] = lift_fd(fds[0]);
	fds[1] = lift_fd(fds[1]);
	if (fds[0] < 0 || fds[1] < 0)
		return -1;
	return fcntl(fds[ours], F_SETFL, O_NONBLOCK);
}

static int make_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	return lift_pair(fds, 0);
}

/*
 * The child's stdin is one end of a socket pair rather than a pipe: a
 * child that exits without reading all of it would make a write to a pipe
 * raise SIGPIPE in callus, and a library must not change the caller's signal
 * handling to avoid that; send() with MSG_NOSIGNAL reports EPIPE instead.
 * fds[0] is ours, fds[1] the child's.
 */
static int make_input(int fds[2])
{
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) < 0)
		return -1;
	return lift_pair(fds, 0);
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* Read what is there into b; past its limit the bytes are dropped and
 * *overflow set, so the child is never blocked on a full pipe.  1 at EOF. */
static int drain(int fd, callus_buf *b, int *overflow)
{
	char chunk[16384];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);

		if (n > 0) {
			int rc = callus_buf_put(b, chunk, (size_t)n);

			if (rc == CALLUS_ETOOBIG)
				*overflow = 1;
			else if (rc < 0)
				return CALLUS_ENOMEM;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return CALLUS_EIO;
	}
}

/* Send what the socket takes of input[*done..len).  1 when the child will
 * read no more: all sent, or it closed its stdin (its exit status says
 * whether that was a failure). */
static int feed(int fd, const char *input, size_t len, size_t *done)
{
	while (*done < len) {
		ssize_t n = send(fd, input + *done, len - *done, MSG_NOSIGNAL);

		if (n >= 0) {
			*done += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return 1;
	}
	return 1;
}

/* -1 when the status is lost (SIGCHLD ignored by the caller: the kernel
 * reaped the child already). */
static int reap(pid_t pid, int *status)
{
	pid_t r;

	while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return r == pid ? 0 : -1;
}

static int spawn(pid_t *pid, const callus_child_opts *opts, int in_r, int out_w, int err_w,
		 callus_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t defaults, none;
	size_t i;
	int rc, stdin_rc;

	sigemptyset(&defaults);
	for (i = 0; i < sizeof default_signals / sizeof default_signals[0]; i++)
		sigaddset(&defaults, default_signals[i]);
	sigemptyset(&none);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if (posix_spawnattr_init(&attr) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	if (in_r >= 0)
		stdin_rc = posix_spawn_file_actions_adddup2(&fa, in_r, 0);
	else
		stdin_rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (stdin_rc != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, out_w, 1) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, err_w, 2) != 0 ||
	    posix_spawnattr_setsigdefault(&attr, &defaults) != 0 ||
	    posix_spawnattr_setsigmask(&attr, &none) != 0 ||
	    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) != 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	rc = posix_spawn(pid, opts->argv[0], &fa, &attr, opts->argv,
			 opts->envp ? opts->envp : environ);
	if (rc == ENOENT || rc == EACCES || rc == ENOEXEC)
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "cannot run the %s '%s': %s", opts->what,
				    opts->argv[0], strerror(rc));
	else if (rc != 0)
		rc = callus_error_set(err, CALLUS_EIO, "cannot run the %s '%s': %s", opts->what,
				    opts->argv[0], strerror(rc));
out:
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* Where pump() is: our ends of the three streams (-1 once closed). */
struct streams {
	int in, out, err;
	const char *input;
	size_t input_len, input_done;
};

/* Feed stdin and drain stdout and stderr until the output pipes close or
 * the deadline passes.  1 on timeout. */
static int pump(struct streams *s, callus_buf *out, callus_buf *errb, int *overflow, int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	int junk = 0;

	if (s->in >= 0 && feed(s->in, s->input, s->input_len, &s->input_done) == 1)
		close_fd(&s->in);
	while (s->out >= 0 || s->err >= 0) {
		struct pollfd p[3] = {
			{ s->out, POLLIN, 0 }, { s->err, POLLIN, 0 }, { s->in, POLLOUT, 0 }
		};
		long long left = deadline - now_ms();
		int i, r;

		if (left <= 0)
			return 1;
		r = poll(p, 3, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return CALLUS_EIO;
		for (i = 0; i < 2; i++) {
			int *fd = i == 0 ? &s->out : &s->err;

			if (*fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = drain(*fd, i == 0 ? out : errb, i == 0 ? overflow : &junk);
			if (r < 0)
				return r;
			if (r == 1)
				close_fd(fd);
		}
		/* Closing our end once everything is sent is the child's EOF. */
		if (s->in >= 0 && (p[2].revents & (POLLOUT | POLLHUP | POLLERR)) &&
		    feed(s->in, s->input, s->input_len, &s->input_done) == 1)
			close_fd(&s->in);
	}
	return 0;
}

/* The first line of what the child printed on stderr, for the message. */
static int child_failed(callus_error *err, int code, const callus_buf *errb, const char *fallback)
{
	size_t n = strcspn(errb->ptr, "\n");

	if (n)
		return callus_error_set(err, code, "%.*s", (int)n, errb->ptr);
	return callus_error_set(err, code, "%s", fallback);
}

/* A pipe's size unless told otherwise, and what a process may raise it to
 * without privileges (/proc/sys/fs/pipe-max-size, by default). */
#define CHILD_PIPE_DEFAULT (64u << 10)
#define CHILD_PIPE_MAX (1u << 20)

/* A child started and not yet collected (child.h). */
struct callus_child {
	pid_t pid;
	struct streams s;
	const char *what;
	size_t out_max;
	int timeout_ms;
	long long deadline_ms;
};

/* Kill (unless it is gone), reap and free c; accepts NULL. */
static void child_free(callus_child *c)
{
	int status;

	if (!c)
		return;
	/* not reaped yet: a child already gone (and reaped by the kernel when
	 * the caller ignores SIGCHLD) may have left its pid to another */
	if (c->pid > 0 && waitpid(c->pid, &status, WNOHANG) == 0) {
		kill(c->pid, SIGKILL);
		(void)reap(c->pid, &status);
	}
	close_fd(&c->s.in);
	close_fd(&c->s.out);
	close_fd(&c->s.err);
	free(c);
}

int callus_child_start(callus_child **out, const callus_child_opts *opts, callus_error *err)
{
	int inp[2] = { -1, -1 }, outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	const char *what = opts->what ? opts->what : "helper";
	callus_child *c = NULL;
	struct stat st;
	int rc = 0;

	*out = NULL;
	if (stat(opts->argv[0], &st) < 0 || !S_ISREG(st.st_mode) || access(opts->argv[0], X_OK) < 0)
		return callus_error_set(err, CALLUS_ENOTFOUND, "no %s at '%s'", what, opts->argv[0]);
	if (!(c = calloc(1, sizeof(*c))))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	c->pid = -1;
	c->s = (struct streams){ -1, -1, -1, opts->input, opts->input_len, 0 };
	c->what = what;
	c->out_max = opts->out_max;
	c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 1;
	c->deadline_ms = opts->deadline_ms;
	if ((opts->input && make_input(inp) < 0) || make_pipe(outp) < 0 || make_pipe(errp) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	/* room for all the child may print, so that it can finish while the
	 * caller works instead of waiting for it to read (a pipe holds 64 KB;
	 * a diff may be larger); best effort, up to the system's limit */
	if (c->out_max == 0 || c->out_max > CHILD_PIPE_DEFAULT)
		(void)fcntl(outp[0], F_SETPIPE_SZ,
			    (int)(c->out_max && c->out_max < CHILD_PIPE_MAX ? c->out_max : CHILD_PIPE_MAX));
	if ((rc = spawn(&c->pid, opts, inp[1], outp[1], errp[1], err)) < 0) {
		c->pid = -1;
		goto out;
	}
	c->s.in = inp[0];
	c->s.out = outp[0];
	c->s.err = errp[0];
	inp[0] = outp[0] = errp[0] = -1;
	*out = c;
	c = NULL;
out:
	close_fd(&inp[0]);
	close_fd(&inp[1]);
	close_fd(&outp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	child_free(c);
	return rc;
}

int callus_child_wait(callus_child *c, callus_buf *out, callus_error *err)
{
	callus_buf errb = CALLUS_BUF_INIT;
	int overflow = 0, status = 0, rc = 0, timed_out, reaped;
	char fallback[128];

	callus_buf_init(out, c->out_max);
	callus_buf_init(&errb, CALLUS_CHILD_STDERR_MAX);
	/* its time counts from now: until the caller came, a child that
	 * printed more than its pipes hold was waiting for it; and it ends
	 * by the caller's deadline */
	if (c->deadline_ms > 0) {
		long long left = c->deadline_ms - now_ms();

		if (left < c->timeout_ms)
			c->timeout_ms = left > 0 ? (int)left : 1;
	}
	timed_out = pump(&c->s, out, &errb, &overflow, c->timeout_ms);
	if (timed_out != 0)
		kill(c->pid, SIGKILL);
	reaped = reap(c->pid, &status);
	c->pid = -1;
	if (timed_out == 1) {
		rc = callus_error_set(err, CALLUS_EIO, "%s timed out after %d ms", c->what,
				    c->timeout_ms);
		goto out;
	}
	if (timed_out < 0) {
		rc = callus_error_set(err, timed_out, "cannot read the %s's output", c->what);
		goto out;
	}
	if (reaped < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot wait for the %s: %s", c->what,
				    strerror(errno));
		goto out;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = overflow ? callus_error_set(err, CALLUS_EIO, "%s printed more than %zu bytes",
					       c->what, c->out_max)
			      : 0;
		goto out;
	}
	if (WIFEXITED(status))
		snprintf(fallback, sizeof fallback, "%s exited with status %d", c->what,
			 WEXITSTATUS(status));
	else
		snprintf(fallback, sizeof fallback, "%s killed by signal %d", c->what,
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	rc = child_failed(err, WIFEXITED(status) && WEXITSTATUS(status) == 2 ? CALLUS_EINVAL : CALLUS_EIO,
			  &errb, fallback);
out:
	child_free(c);
	callus_buf_release(&errb);
	if (rc < 0)
		callus_buf_release(out);
	return rc;
}

int callus_child_run(callus_buf *out, const callus_child_opts *opts, callus_error *err)
{
	callus_child *c = NULL;
	int rc = callus_child_start(&c, opts, err);

	if (rc < 0) {
		callus_buf_init(out, opts->out_max);
		return rc;
	}
	return callus_child_wait(c, out, err);
}
