/*
 * snapshot.c - snapshots through the deja-git helper (include/deja/snapshot.h;
 * the helper's protocol is described at the top of helper/deja-git.c).
 *
 * The helper runs with posix_spawn, no shell: stdin from /dev/null, stdout
 * and stderr on pipes read with poll() until both close or the timeout
 * passes; then it is killed and always reaped.  Its output is parsed
 * strictly: a helper from another version of deja must fail loudly, not
 * hand back a half-understood snapshot.
 */
#include "deja/snapshot.h"
#include "deja/buf.h"
#include "deja/common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define DEFAULT_TIMEOUT_MS 10000
#define OID_HEX 40

/* What snapshot and head print is one short line; stderr is only kept for
 * the error message. */
#define SMALL_OUTPUT_MAX 4096
#define STDERR_MAX 4096
/* Room for the diff's last line ("[deja: N more files changed: ...]", whose
 * list of names the helper bounds to about 512 bytes). */
#define DIFF_TRAILER_MAX 1024

/* Signals whose disposition a caller may have changed (SIGPIPE ignored,
 * SIGINT/SIGTERM handled by deja's runner) and which the helper must see
 * with their defaults: an ignored SIGPIPE survives exec. */
static const int default_signals[] = {
	SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2,
	SIGTSTP, SIGTTIN, SIGTTOU, SIGXFSZ
};

static int is_oid_hex(const char *s, size_t len)
{
	size_t i;

	if (len != OID_HEX)
		return 0;
	for (i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

char *deja_snapshot_helper(void)
{
	const char *env = getenv("DEJA_GIT_HELPER");
	deja_buf b = DEJA_BUF_INIT;
	size_t cap = 256;
	char *exe = NULL, *slash;

	if (env && *env)
		return strdup(env);
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
	deja_buf_put(&b, exe, (size_t)(slash - exe));
	deja_buf_puts(&b, "/deja-git");
	free(exe);
	if (deja_buf_status(&b) < 0) {
		deja_buf_release(&b);
		return NULL;
	}
	return deja_buf_detach(&b);
fail:
	free(exe);
	return NULL;
}

/* ---- running the helper ------------------------------------------------ */

/* Keep pipe ends off fds 0-2: when the caller runs with a standard stream
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

static int make_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	fds[0] = lift_fd(fds[0]);
	fds[1] = lift_fd(fds[1]);
	if (fds[0] < 0 || fds[1] < 0)
		return -1;
	return fcntl(fds[0], F_SETFL, O_NONBLOCK);
}

/* Read what is there into b; past its limit the bytes are dropped and
 * *overflow set, so the child is never blocked on a full pipe.  1 at EOF. */
static int drain(int fd, deja_buf *b, int *overflow)
{
	char chunk[16384];

	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);

		if (n > 0) {
			int rc = deja_buf_put(b, chunk, (size_t)n);

			if (rc == DEJA_ETOOBIG)
				*overflow = 1;
			else if (rc < 0)
				return DEJA_ENOMEM;
			continue;
		}
		if (n == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return DEJA_EIO;
	}
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

static int spawn_helper(pid_t *pid, char *const *argv, int out_w, int err_w, deja_error *err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t defaults, none;
	size_t i;
	int rc;

	sigemptyset(&defaults);
	for (i = 0; i < sizeof default_signals / sizeof default_signals[0]; i++)
		sigaddset(&defaults, default_signals[i]);
	sigemptyset(&none);
	if (posix_spawn_file_actions_init(&fa) != 0)
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	if (posix_spawnattr_init(&attr) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	}
	if (posix_spawn_file_actions_adddup2(&fa, out_w, 1) != 0 ||
	    posix_spawn_file_actions_adddup2(&fa, err_w, 2) != 0 ||
	    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) != 0 ||
	    posix_spawnattr_setsigdefault(&attr, &defaults) != 0 ||
	    posix_spawnattr_setsigmask(&attr, &none) != 0 ||
	    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK) != 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
		goto out;
	}
	rc = posix_spawn(pid, argv[0], &fa, &attr, argv, environ);
	if (rc == ENOENT || rc == EACCES || rc == ENOEXEC)
		rc = deja_error_set(err, DEJA_ENOTFOUND, "cannot run the snapshot helper '%s': %s",
				    argv[0], strerror(rc));
	else if (rc != 0)
		rc = deja_error_set(err, DEJA_EIO, "cannot run the snapshot helper '%s': %s",
				    argv[0], strerror(rc));
out:
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* Pump both pipes until they close or the deadline passes.  1 on timeout. */
static int pump(int out_r, int err_r, deja_buf *out, deja_buf *errb, int *overflow,
		int timeout_ms)
{
	long long deadline = now_ms() + timeout_ms;
	int fds[2] = { out_r, err_r };
	int junk = 0;

	while (fds[0] >= 0 || fds[1] >= 0) {
		struct pollfd p[2];
		long long left = deadline - now_ms();
		int i, r;

		if (left <= 0)
			return 1;
		for (i = 0; i < 2; i++) {
			p[i].fd = fds[i];
			p[i].events = POLLIN;
			p[i].revents = 0;
		}
		r = poll(p, 2, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return DEJA_EIO;
		for (i = 0; i < 2; i++) {
			if (fds[i] < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = drain(fds[i], i == 0 ? out : errb, i == 0 ? overflow : &junk);
			if (r < 0)
				return r;
			if (r == 1)
				fds[i] = -1;
		}
	}
	return 0;
}

/* The first line of what the helper printed on stderr, for the message. */
static int helper_failed(deja_error *err, int code, const deja_buf *errb, const char *fallback)
{
	size_t n = strcspn(errb->ptr, "\n");

	if (n)
		return deja_error_set(err, code, "%.*s", (int)n, errb->ptr);
	return deja_error_set(err, code, "%s", fallback);
}

/*
 * Run the helper (argv[0] filled in here) and collect its stdout into out
 * (at most out_max bytes).  DEJA_ENOTFOUND: no helper; DEJA_EINVAL: it
 * refused its arguments (exit 2); DEJA_EIO: it failed or timed out.
 */
static int run_helper(deja_buf *out, char **argv, size_t out_max, const deja_snapshot_opts *opts,
		      deja_error *err)
{
	deja_buf errb = DEJA_BUF_INIT;
	char *own = NULL, fallback[64];
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int timeout_ms = opts && opts->timeout_ms > 0 ? opts->timeout_ms : DEFAULT_TIMEOUT_MS;
	int overflow = 0, status = 0, rc = 0, timed_out = 0, reaped = 0;
	pid_t pid = -1;
	struct stat st;

	deja_buf_init(out, out_max);
	deja_buf_init(&errb, STDERR_MAX);
	argv[0] = opts && opts->helper ? (char *)opts->helper : (own = deja_snapshot_helper());
	if (!argv[0]) {
		rc = deja_error_set(err, DEJA_ENOTFOUND, "cannot find the snapshot helper deja-git");
		goto out;
	}
	if (stat(argv[0], &st) < 0 || !S_ISREG(st.st_mode) || access(argv[0], X_OK) < 0) {
		rc = deja_error_set(err, DEJA_ENOTFOUND, "no snapshot helper at '%s'", argv[0]);
		goto out;
	}
	if (make_pipe(outp) < 0 || make_pipe(errp) < 0) {
		rc = deja_error_set(err, DEJA_EIO, "cannot make a pipe: %s", strerror(errno));
		goto out;
	}
	rc = spawn_helper(&pid, argv, outp[1], errp[1], err);
	if (rc < 0) {
		pid = -1;
		goto out;
	}
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;

	timed_out = pump(outp[0], errp[0], out, &errb, &overflow, timeout_ms);
	if (timed_out != 0)
		kill(pid, SIGKILL);
	reaped = reap(pid, &status);
	pid = -1;
	if (timed_out == 1) {
		rc = deja_error_set(err, DEJA_EIO, "snapshot helper timed out after %d ms",
				    timeout_ms);
		goto out;
	}
	if (timed_out < 0) {
		rc = deja_error_set(err, timed_out, "cannot read the snapshot helper's output");
		goto out;
	}
	if (reaped < 0) {
		rc = deja_error_set(err, DEJA_EIO, "cannot wait for the snapshot helper: %s",
				    strerror(errno));
		goto out;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rc = overflow ? deja_error_set(err, DEJA_EIO,
					       "snapshot helper printed more than %zu bytes", out_max)
			      : 0;
		goto out;
	}
	if (WIFEXITED(status))
		snprintf(fallback, sizeof fallback, "snapshot helper exited with status %d",
			 WEXITSTATUS(status));
	else
		snprintf(fallback, sizeof fallback, "snapshot helper killed by signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	rc = helper_failed(err,
			   WIFEXITED(status) && WEXITSTATUS(status) == 2 ? DEJA_EINVAL : DEJA_EIO,
			   &errb, fallback);
out:
	if (pid > 0) {
		kill(pid, SIGKILL);
		(void)reap(pid, &status);
	}
	if (outp[0] >= 0)
		close(outp[0]);
	if (outp[1] >= 0)
		close(outp[1]);
	if (errp[0] >= 0)
		close(errp[0]);
	if (errp[1] >= 0)
		close(errp[1]);
	deja_buf_release(&errb);
	free(own);
	if (rc < 0)
		deja_buf_release(out);
	return rc;
}

/* ---- the API ----------------------------------------------------------- */

static char *dup_n(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

/* "<kind> <tree> <commit|->\n", nothing more, nothing less. */
static int parse_snapshot(deja_snapshot *out, const char *line, deja_error *err)
{
	const char *sp1 = strchr(line, ' ');
	const char *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	const char *nl = sp2 ? strchr(sp2 + 1, '\n') : NULL;
	deja_snapshot s = DEJA_SNAPSHOT_INIT;
	size_t clen;
	char kind[8];

	if (!nl || nl[1] != '\0' || (size_t)(sp1 - line) >= sizeof kind)
		goto bad;
	memcpy(kind, line, (size_t)(sp1 - line));
	kind[sp1 - line] = '\0';
	if (deja_snapshot_kind_parse(&s.kind, kind) < 0 ||
	    !is_oid_hex(sp1 + 1, (size_t)(sp2 - sp1 - 1)))
		goto bad;
	clen = (size_t)(nl - sp2 - 1);
	if (clen == 1 && sp2[1] == '-')
		clen = 0;
	else if (!is_oid_hex(sp2 + 1, clen) || s.kind != DEJA_SNAPSHOT_GIT)
		goto bad;
	s.tree = dup_n(sp1 + 1, OID_HEX);
	s.commit = dup_n(sp2 + 1, clen);
	if (!s.tree || !s.commit) {
		deja_snapshot_release(&s);
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	}
	*out = s;
	return 0;
bad:
	return deja_error_set(err, DEJA_EIO, "snapshot helper printed something unexpected: '%.*s'",
			      (int)strcspn(line, "\n"), line);
}

static int check_workspace(const char *workspace, deja_error *err)
{
	if (!workspace || workspace[0] != '/')
		return deja_error_set(err, DEJA_EINVAL, "workspace '%s' is not an absolute path",
				      workspace ? workspace : "");
	return 0;
}

static size_t count_excludes(const deja_snapshot_opts *opts)
{
	size_t n = 0;

	while (opts && opts->exclude && opts->exclude[n])
		n++;
	return n;
}

/* "--exclude P" for each of opts->exclude from argv[i]; the next index. */
static size_t add_excludes(char **argv, size_t i, const deja_snapshot_opts *opts)
{
	for (size_t j = 0; j < count_excludes(opts); j++) {
		argv[i++] = "--exclude";
		argv[i++] = (char *)opts->exclude[j];
	}
	return i;
}

int deja_snapshot_take(deja_snapshot *out, const char *workspace, const deja_strlist *files,
		       const deja_snapshot_opts *opts, deja_error *err)
{
	deja_buf res = DEJA_BUF_INIT;
	size_t nfiles = files ? files->count : 0, i;
	char **argv = NULL;
	int rc;

	*out = (deja_snapshot)DEJA_SNAPSHOT_INIT;
	if ((rc = check_workspace(workspace, err)) < 0)
		return rc;
	argv = calloc(nfiles + 2 * count_excludes(opts) + 4, sizeof *argv);
	if (!argv)
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	argv[1] = "snapshot";
	i = add_excludes(argv, 2, opts);
	argv[i++] = (char *)workspace;
	for (size_t j = 0; j < nfiles; j++)
		argv[i++] = files->items[j];
	rc = run_helper(&res, argv, SMALL_OUTPUT_MAX, opts, err);
	if (rc == 0)
		rc = parse_snapshot(out, res.ptr, err);
	deja_buf_release(&res);
	free(argv);
	return rc;
}

int deja_snapshot_diff(char **patch, const char *workspace, const deja_snapshot *snap,
		       size_t max_bytes, const deja_snapshot_opts *opts, deja_error *err)
{
	deja_buf res = DEJA_BUF_INIT;
	char max[32];
	char **argv = NULL;
	size_t limit, i;
	int rc;

	*patch = NULL;
	if ((rc = check_workspace(workspace, err)) < 0)
		return rc;
	if (!snap || !snap->tree || !is_oid_hex(snap->tree, strlen(snap->tree)) ||
	    !deja_snapshot_kind_name(snap->kind))
		return deja_error_set(err, DEJA_EINVAL, "not a snapshot");
	snprintf(max, sizeof max, "%zu", max_bytes);
	if (!(argv = calloc(2 * count_excludes(opts) + 7, sizeof *argv)))
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	argv[1] = "diff";
	i = add_excludes(argv, 2, opts);
	argv[i++] = (char *)workspace;
	argv[i++] = (char *)deja_snapshot_kind_name(snap->kind);
	argv[i++] = snap->tree;
	argv[i++] = max;
	/* 0 = no limit for deja_buf, which is what an overflow would need. */
	if (deja_size_add(&limit, max_bytes, DIFF_TRAILER_MAX) < 0)
		limit = 0;
	rc = run_helper(&res, argv, limit, opts, err);
	if (rc == 0 && !(*patch = deja_buf_detach(&res)))
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
	deja_buf_release(&res);
	free(argv);
	return rc;
}

int deja_snapshot_head(char **commit, const char *workspace, const deja_snapshot_opts *opts,
		       deja_error *err)
{
	deja_buf res = DEJA_BUF_INIT;
	char *argv[4] = { NULL };
	size_t n;
	int rc;

	*commit = NULL;
	if ((rc = check_workspace(workspace, err)) < 0)
		return rc;
	argv[1] = "head";
	argv[2] = (char *)workspace;
	rc = run_helper(&res, argv, SMALL_OUTPUT_MAX, opts, err);
	if (rc < 0)
		goto out;
	n = res.len;
	if (n < 2 || res.ptr[n - 1] != '\n' || memchr(res.ptr, '\n', n - 1) ||
	    (!is_oid_hex(res.ptr, n - 1) && strcmp(res.ptr, "-\n") != 0)) {
		rc = deja_error_set(err, DEJA_EIO,
				    "snapshot helper printed something unexpected: '%.*s'",
				    (int)strcspn(res.ptr, "\n"), res.ptr);
		goto out;
	}
	*commit = dup_n(res.ptr, res.ptr[0] == '-' ? 0 : OID_HEX);
	if (!*commit)
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
out:
	deja_buf_release(&res);
	return rc;
}

const char *deja_snapshot_kind_name(deja_snapshot_kind k)
{
	switch (k) {
	case DEJA_SNAPSHOT_GIT:
		return "git";
	case DEJA_SNAPSHOT_FILES:
		return "files";
	}
	return NULL;
}

int deja_snapshot_kind_parse(deja_snapshot_kind *out, const char *name)
{
	if (name && !strcmp(name, "git"))
		*out = DEJA_SNAPSHOT_GIT;
	else if (name && !strcmp(name, "files"))
		*out = DEJA_SNAPSHOT_FILES;
	else
		return DEJA_EINVAL;
	return 0;
}

void deja_snapshot_release(deja_snapshot *s)
{
	if (!s)
		return;
	free(s->tree);
	free(s->commit);
	s->tree = NULL;
	s->commit = NULL;
}
