/*
 * runner.c - fork/exec one command and pump its output through a poll loop.
 *
 * Shape: a self-pipe turns signals into bytes the poll loop reads, so every
 * decision (forward, reap, resize) is taken outside the handler; the child
 * inherits in_fd as its stdin, so nothing is ever copied towards it and
 * callus cannot deadlock on input; output flows through one fixed buffer.
 */
#include "callus/runner.h"
#include "callus/buf.h"
#include "callus/common.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* One read's worth: large enough that a gigabyte of output costs a few
 * thousand syscalls, small enough to keep the footprint negligible. */
#define READ_CHUNK (64 * 1024)

/*
 * Once the child is reaped, its output may still sit in the pipe, or a
 * grandchild it left in the background may hold the pipe open for ever
 * (`make` starting a server, `cmd &`).  Data already written is read at
 * once, so we stop after DRAIN_IDLE_MS without any new byte; DRAIN_MAX_MS
 * bounds a chatty background process that never goes quiet.  After that
 * the read ends are closed and such a writer gets EPIPE/EIO, as it would if
 * its terminal went away.
 */
#define DRAIN_IDLE_MS 100
#define DRAIN_MAX_MS 2000

/* Used when neither out_fd nor err_fd is a terminal: a 0x0 window makes some
 * progress bars divide by zero or draw nothing. */
#define DEFAULT_ROWS 24
#define DEFAULT_COLS 80

/* The self-pipe byte carries the signal number and whether a process sent
 * it; signal numbers on Linux stay below 0x80. */
#define WAKE_FROM_PROCESS 0x80

static const int managed_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGWINCH, SIGPIPE
};
#define N_MANAGED (sizeof managed_signals / sizeof managed_signals[0])

/*
 * The only global state: the self-pipe's write end, which a signal handler
 * has no other way to reach.  -1 when no run is in progress, which also
 * lets a second concurrent run be refused instead of stealing the signals.
 */
static volatile sig_atomic_t runner_wake_fd = -1;

/* What the child reports through the CLOEXEC pipe when it fails before or
 * at exec; the pipe closing empty means exec succeeded. */
struct child_failure {
	int stage; /* STAGE_SETUP or STAGE_EXEC */
	int err;   /* errno */
};

enum { STAGE_SETUP = 1, STAGE_EXEC = 2 };

/* Everything the child needs between fork and exec, prepared beforehand so
 * the child only makes async-signal-safe calls. */
struct child_setup {
	char *const *argv;
	int pty;
	int in_fd;       /* may be < 0: /dev/null */
	int out_w, err_w; /* pipe write ends, or the pty slave (both, or
			   * out_w only when stderr is not a terminal) */
	int report_fd;
	const struct sigaction *old_act; /* N_MANAGED, as found before the run */
	const sigset_t *old_mask;
	const sigset_t *started_ignored; /* may be NULL */
	unsigned closed;                 /* bit n: the child's fd n closed */
};

struct run {
	pid_t pid;
	int reaped;
	int status;
	int term_signal; /* what killed the child, 0 when it exited */
	int pty;
	int master;    /* pty master (a src until its EOF) or -1 */
	int winsz_fd;  /* the terminal the window size follows, or -1 */
	int wake_rd;
	int src[2];    /* stdout's, stderr's: a pipe or the pty master; -1 at EOF */
	int dst[2];    /* out_fd, err_fd; -1 when discarded or broken */
	int write_errno; /* the first failed write's, 0 when none */
	callus_output_fn on_output;
	void *ctx;
	char *buf;
};

static void on_signal(int sig, siginfo_t *si, void *uctx)
{
	int saved_errno = errno;
	int fd = runner_wake_fd;
	unsigned char b = (unsigned char)sig;

	(void)uctx;
	if (si && (si->si_code == SI_USER || si->si_code == SI_QUEUE ||
		   si->si_code == SI_TKILL))
		b |= WAKE_FROM_PROCESS;
	/* Non-blocking: if the pipe is full, the loop has wake-ups pending
	 * already and a repeated signal is all that is lost. */
	if (fd >= 0 && write(fd, &b, 1) < 0) {
		/* nothing better to do inside a handler */
	}
	errno = saved_errno;
}

static int decode_status(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return 255;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void reap(struct run *r)
{
	pid_t p;
	int st;

	if (r->reaped)
		return;
	do
		p = waitpid(r->pid, &st, WNOHANG);
	while (p < 0 && errno == EINTR);
	if (p == r->pid) {
		r->reaped = 1;
		r->status = decode_status(st);
		r->term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	} else if (p < 0) {
		/* ECHILD: someone else in the process waited for it; its
		 * status is lost, so report a plain failure. */
		r->reaped = 1;
		r->status = 255;
	}
}

static void forward(struct run *r, int sig)
{
	/* After reaping, the pid may belong to another process.  The group
	 * is callus's own: only the child itself is targeted. */
	if (!r->reaped)
		kill(r->pid, sig);
}

static void resize(struct run *r)
{
	struct winsize ws;

	if (r->master < 0 || r->winsz_fd < 0)
		return;
	if (ioctl(r->winsz_fd, TIOCGWINSZ, &ws) == 0)
		ioctl(r->master, TIOCSWINSZ, &ws);
}

/*
 * Act on the signals the handler queued.  The child is in our process
 * group (in pty mode too: the pty is only its output), so a keyboard signal
 * (si_code SI_KERNEL) has reached it from the tty driver already; only
 * signals a process sent to callus alone are forwarded, else Ctrl-C would
 * arrive twice.  A process signalling the whole group still gets through
 * twice: siginfo cannot tell that apart.  A window resized reaches the
 * child from the terminal too, maybe before the pty has the new size: it
 * is told again once the pty has it.
 */
static void handle_wake(struct run *r)
{
	unsigned char b[64];
	ssize_t n, i;

	while ((n = read(r->wake_rd, b, sizeof b)) > 0) {
		for (i = 0; i < n; i++) {
			int sig = b[i] & ~WAKE_FROM_PROCESS;

			if (sig == SIGCHLD) {
				reap(r);
			} else if (sig == SIGWINCH) {
				resize(r);
				forward(r, SIGWINCH);
			} else if (b[i] & WAKE_FROM_PROCESS) {
				forward(r, sig);
			}
		}
	}
}

static void drop_dst(struct run *r, int fd)
{
	/* out_fd and err_fd may be the same file (2>&1). */
	if (r->dst[0] == fd)
		r->dst[0] = -1;
	if (r->dst[1] == fd)
		r->dst[1] = -1;
}

/* Wait until fd takes more bytes, staying responsive to signals so a
 * stalled reader does not stop us forwarding a SIGTERM. */
static void wait_writable(struct run *r, int fd)
{
	struct pollfd p[2] = {
		{ .fd = fd, .events = POLLOUT },
		{ .fd = r->wake_rd, .events = POLLIN },
	};

	if (poll(p, 2, -1) > 0 && (p[1].revents & POLLIN))
		handle_wake(r);
}

static void put_all(struct run *r, int which, const char *p, size_t len)
{
	while (len && r->dst[which] >= 0) {
		int fd = r->dst[which];
		ssize_t w = write(fd, p, len);

		if (w > 0) {
			p += w;
			len -= (size_t)w;
		} else if (w < 0 && errno == EINTR) {
			handle_wake(r);
		} else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			wait_writable(r, fd);
		} else {
			/* ENOSPC, EIO...: nobody can see this stream any
			 * more, but the child must still be drained and
			 * on_output still fed; the caller is told.  EPIPE: the
			 * reader is gone, and the child meets the closed pipe
			 * as it would have without callus (SIGPIPE, or EPIPE):
			 * its pipes to that reader are closed.  A pty master is
			 * kept: closing it hangs the child up. */
			int e = w < 0 ? errno : EIO;

			if (!r->write_errno)
				r->write_errno = e;
			if (e == EPIPE)
				for (int i = 0; i < 2; i++)
					if (r->dst[i] == fd && r->src[i] != r->master)
						close_fd(&r->src[i]);
			drop_dst(r, fd);
		}
	}
}

static void read_src(struct run *r, int which)
{
	ssize_t n = read(r->src[which], r->buf, READ_CHUNK);

	if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		/* EOF, or EIO from a pty master once no slave fd is open.
		 * The master itself stays open until the child is reaped:
		 * closing it hangs the terminal up, and a child that closed
		 * stdout/stderr itself but is still exiting (coreutils do
		 * this at exit) would die of the resulting SIGHUP. */
		if (r->src[which] == r->master)
			r->src[which] = -1;
		else
			close_fd(&r->src[which]);
		return;
	}
	/* The terminal first, so the user sees output as soon as possible
	 * whatever the callback costs. */
	put_all(r, which, r->buf, (size_t)n);
	if (r->on_output && r->on_output(r->ctx, which + 1, r->buf, (size_t)n) < 0)
		r->on_output = NULL;
}

static void pump(struct run *r, int chld_blocked)
{
	long long reaped_at = -1;

	for (;;) {
		struct pollfd p[3];
		int src_of[3] = { -1, -1, -1 };
		int np = 1, timeout, pr, i;

		reap(r);
		if (r->reaped && reaped_at < 0)
			reaped_at = now_ms();
		if (r->reaped && r->src[0] < 0 && r->src[1] < 0)
			break;
		if (r->reaped) {
			long long left = reaped_at + DRAIN_MAX_MS - now_ms();

			if (left <= 0)
				break;
			timeout = left < DRAIN_IDLE_MS ? (int)left : DRAIN_IDLE_MS;
		} else {
			/* With SIGCHLD blocked by the caller, no byte will
			 * announce the exit: poll for it instead. */
			timeout = chld_blocked ? 100 : -1;
		}

		p[0].fd = r->wake_rd;
		p[0].events = POLLIN;
		p[0].revents = 0;
		for (i = 0; i < 2; i++) {
			if (r->src[i] < 0)
				continue;
			p[np].fd = r->src[i];
			p[np].events = POLLIN;
			p[np].revents = 0;
			src_of[np++] = i;
		}
		pr = poll(p, (nfds_t)np, timeout);
		if (pr < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			break;
		}
		if (pr == 0) {
			if (r->reaped)
				break;
			continue;
		}
		if (p[0].revents & POLLIN)
			handle_wake(r);
		for (i = 1; i < np; i++)
			if (p[i].revents & (POLLIN | POLLHUP | POLLERR))
				read_src(r, src_of[i]);
	}
}

/*
 * Open a pty whose slave looks like the user's terminal: same settings and
 * window size.  OPOST is cleared on the slave so the child's bytes reach
 * out_fd and on_output unchanged ("\n" stays "\n"); a real terminal behind
 * out_fd still applies its own output processing, so the screen looks the
 * same as with no pty at all.
 */
static int open_pty(int *out_master, int *out_slave, int term_fd, callus_error *err)
{
	callus_buf name = CALLUS_BUF_INIT;
	struct termios tio;
	struct winsize ws;
	int m = -1, s = -1, rc = 0, e;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		goto fail;
	if (callus_buf_grow(&name, 64) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	while ((e = ptsname_r(m, name.ptr, name.cap)) == ERANGE) {
		if (callus_buf_grow(&name, name.cap * 2) < 0) {
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
			goto out;
		}
	}
	if (e) {
		errno = e;
		goto fail;
	}
	s = open(name.ptr, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0)
		goto fail;

	if (term_fd < 0 || tcgetattr(term_fd, &tio) < 0) {
		if (tcgetattr(s, &tio) < 0)
			goto fail;
	}
	tio.c_oflag &= ~(tcflag_t)OPOST;
	if (tcsetattr(s, TCSANOW, &tio) < 0)
		goto fail;
	if (term_fd < 0 || ioctl(term_fd, TIOCGWINSZ, &ws) < 0 ||
	    ws.ws_row == 0 || ws.ws_col == 0) {
		memset(&ws, 0, sizeof ws);
		ws.ws_row = DEFAULT_ROWS;
		ws.ws_col = DEFAULT_COLS;
	}
	if (ioctl(s, TIOCSWINSZ, &ws) < 0)
		goto fail;

	*out_master = m;
	*out_slave = s;
	m = s = -1;
	goto out;
fail:
	rc = callus_error_set(err, CALLUS_ERROR, "cannot open a pseudo-terminal: %s",
			    strerror(errno));
out:
	close_fd(&m);
	close_fd(&s);
	callus_buf_release(&name);
	return rc;
}

/* fd moved above 2 when it is one of 0..2 other than target, so that
 * dup2() onto 0..2 never overwrites a source still needed, nor becomes a
 * no-op that would leave FD_CLOEXEC set (an fd already at its target
 * never has it: it is the caller's own stdin).  An fd above 2 stays: a
 * command must run with the few descriptors a low limit leaves. */
static int lift_fd(int fd, int target)
{
	return fd > 2 || fd == target ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 3);
}

static void run_child(const struct child_setup *cs) __attribute__((noreturn));
static void run_child(const struct child_setup *cs)
{
	struct child_failure f;
	struct sigaction sa;
	int in, out, errw;
	size_t i;
	ssize_t w;

	f.stage = STAGE_SETUP;
	/* No session of its own, even with a pty: the pty is the child's
	 * output only, and /dev/tty, the keyboard's signals and job control
	 * stay those of the user's terminal (a pager's keys, a password
	 * prompt, Ctrl-Z, a `callus run ... &` reading the terminal). */
	in = cs->in_fd >= 0 ? cs->in_fd : open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || (in = lift_fd(in, 0)) < 0 || (out = lift_fd(cs->out_w, 1)) < 0 ||
	    (errw = lift_fd(cs->err_w, 2)) < 0)
		goto fail;
	if ((in != 0 && dup2(in, 0) < 0) || dup2(out, 1) < 0 || dup2(errw, 2) < 0)
		goto fail;
	for (i = 0; i < 3; i++)
		if (cs->closed & (1u << i))
			close((int)i);

	/* Our handlers and the ignored SIGPIPE are callus's business: give the
	 * command the dispositions callus itself started with (exec resets
	 * handlers to default but keeps SIG_IGN).  SIGPIPE and SIGXFSZ the
	 * caller ignores for itself: the defaults, unless ignored from the
	 * start (a command that writes to a closed pipe or past a file size
	 * limit dies of it, as without callus). */
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < N_MANAGED; i++) {
		sa.sa_handler = cs->old_act[i].sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
		if (managed_signals[i] == SIGPIPE)
			sa.sa_handler = cs->started_ignored &&
						sigismember(cs->started_ignored, SIGPIPE) == 1
					? SIG_IGN
					: SIG_DFL;
		sigaction(managed_signals[i], &sa, NULL);
	}
	sa.sa_handler = cs->started_ignored && sigismember(cs->started_ignored, SIGXFSZ) == 1
				? SIG_IGN
				: SIG_DFL;
	sigaction(SIGXFSZ, &sa, NULL);
	if (sigprocmask(SIG_SETMASK, cs->old_mask, NULL) < 0)
		goto fail;

	execvp(cs->argv[0], cs->argv);
	f.stage = STAGE_EXEC;
fail:
	f.err = errno;
	w = write(cs->report_fd, &f, sizeof f);
	(void)w;
	_exit(127);
}

/* Whether a and b are one file (2>&1, or both the same log): then one
 * pipe carries both streams. */
static int same_file(int a, int b)
{
	struct stat sa, sb;

	return a >= 0 && b >= 0 && fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* For the paths where nothing else will ever wait for the child. */
static int reap_blocking(pid_t pid)
{
	pid_t p;
	int st;

	do
		p = waitpid(pid, &st, 0);
	while (p < 0 && errno == EINTR);
	return p == pid ? decode_status(st) : 255;
}

int callus_runner_run(int *out_status, const callus_runner_opts *opts, callus_error *err)
{
	struct run r;
	struct child_setup cs;
	struct child_failure f;
	struct sigaction old_act[N_MANAGED], sa;
	int installed[N_MANAGED] = { 0 };
	sigset_t block, old_mask;
	int wake[2] = { -1, -1 }, report[2] = { -1, -1 };
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
	int slave = -1, masked = 0, rc = 0, use_pty, out_tty, err_tty, slot;
	size_t i;
	ssize_t n;

	memset(&r, 0, sizeof r);
	r.pid = -1;
	r.master = r.winsz_fd = r.wake_rd = -1;
	r.src[0] = r.src[1] = -1;

	if (!out_status || !opts || !opts->argv || !opts->argv[0] || !opts->argv[0][0])
		return callus_error_set(err, CALLUS_EINVAL, "no command to run");
	if (runner_wake_fd != -1)
		return callus_error_set(err, CALLUS_EBUSY, "a command is already running");

	out_tty = opts->out_fd >= 0 && isatty(opts->out_fd);
	err_tty = opts->err_fd >= 0 && isatty(opts->err_fd);
	use_pty = opts->pty < 0 ? out_tty || err_tty : opts->pty != 0;
	/* the stream the pty stands for: stdout, or stderr alone when only
	 * it is the terminal (`callus run make >build.log` keeps make's
	 * colours on the screen, as without callus) */
	slot = opts->pty < 0 && !out_tty && err_tty;
	r.pty = use_pty;
	r.dst[0] = opts->out_fd;
	r.dst[1] = opts->err_fd;
	r.on_output = opts->on_output;
	r.ctx = opts->ctx;

	r.buf = malloc(READ_CHUNK);
	if (!r.buf) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) < 0 || pipe2(report, O_CLOEXEC) < 0)
		goto sys_fail;
	r.wake_rd = wake[0];

	if (use_pty) {
		if (out_tty)
			r.winsz_fd = opts->out_fd;
		else if (err_tty)
			r.winsz_fd = opts->err_fd;
		rc = open_pty(&r.master, &slave, r.winsz_fd, err);
		/* none to be had (no /dev/ptmx, no descriptor left): the
		 * command runs all the same, through pipes, unless a pty
		 * was asked for */
		if (rc < 0 && opts->pty < 0 && rc != CALLUS_ENOMEM) {
			callus_error_release(err);
			rc = 0;
			use_pty = r.pty = 0;
			r.winsz_fd = -1;
		} else if (rc < 0) {
			goto out;
		}
	}
	if (use_pty) {
		r.src[slot] = r.master;
		if (set_nonblock(r.master) < 0)
			goto sys_fail;
		/*
		 * The pty stands for the user's terminal, so stderr belongs on
		 * it only when callus's own stderr is that terminal.  When it was
		 * redirected (`callus run make 2>err.log`), the child's stderr
		 * must end up there, not on the screen through out_fd: give it
		 * a pipe, as pipe mode does, and let it see a non-terminal
		 * stderr exactly as it would without callus.
		 */
		if (slot) {
			if (pipe2(outp, O_CLOEXEC) < 0 || set_nonblock(outp[0]) < 0)
				goto sys_fail;
			r.src[0] = outp[0];
			outp[0] = -1;
		} else if (!err_tty) {
			if (pipe2(errp, O_CLOEXEC) < 0 || set_nonblock(errp[0]) < 0)
				goto sys_fail;
			r.src[1] = errp[0];
			errp[0] = -1;
		}
	} else if (same_file(opts->out_fd, opts->err_fd)) {
		/* 2>&1: one pipe for both, so that what the child writes to
		 * either comes out in the order it wrote it (two pipes read
		 * in turn would reorder it); on_output sees it as stdout */
		if (pipe2(outp, O_CLOEXEC) < 0 || set_nonblock(outp[0]) < 0 ||
		    (errp[1] = fcntl(outp[1], F_DUPFD_CLOEXEC, 0)) < 0)
			goto sys_fail;
		r.src[0] = outp[0];
		outp[0] = -1;
	} else {
		if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0)
			goto sys_fail;
		/* Only our read ends: the child's stdout must stay blocking. */
		if (set_nonblock(outp[0]) < 0 || set_nonblock(errp[0]) < 0)
			goto sys_fail;
		r.src[0] = outp[0];
		r.src[1] = errp[0];
		outp[0] = errp[0] = -1;
	}

	/*
	 * Block our signals across fork() so the child cannot run our handler
	 * (and write into our self-pipe) before it has reset them.
	 */
	sigemptyset(&block);
	for (i = 0; i < N_MANAGED; i++)
		sigaddset(&block, managed_signals[i]);
	if (pthread_sigmask(SIG_BLOCK, &block, &old_mask) != 0)
		goto sys_fail;
	masked = 1;

	runner_wake_fd = wake[1];
	memset(&sa, 0, sizeof sa);
	sa.sa_mask = block;
	for (i = 0; i < N_MANAGED; i++) {
		int sig = managed_signals[i];

		if (sig == SIGWINCH && !use_pty)
			continue; /* the child shares our terminal and gets it */
		if (sig == SIGPIPE) {
			sa.sa_handler = SIG_IGN;
			sa.sa_flags = 0;
		} else {
			sa.sa_sigaction = on_signal;
			/* No SA_RESTART: a write blocked on a stalled out_fd
			 * returns EINTR, so forwarding still happens. */
			sa.sa_flags = SA_SIGINFO | (sig == SIGCHLD ? SA_NOCLDSTOP : 0);
		}
		if (sigaction(sig, &sa, &old_act[i]) < 0)
			goto sys_fail;
		installed[i] = 1;
	}
	/* The child resets from this; keep the caller's view of the ones we
	 * left alone. */
	for (i = 0; i < N_MANAGED; i++)
		if (!installed[i])
			sigaction(managed_signals[i], NULL, &old_act[i]);

	cs.argv = opts->argv;
	cs.pty = use_pty;
	cs.in_fd = opts->in_fd;
	cs.out_w = outp[1] >= 0 ? outp[1] : slave;
	cs.err_w = errp[1] >= 0 ? errp[1] : slave;
	cs.report_fd = report[1];
	cs.old_act = old_act;
	cs.old_mask = &old_mask;
	cs.started_ignored = opts->started_ignored;
	cs.closed = (opts->in_fd == CALLUS_RUNNER_CLOSED ? 1u : 0) |
		    (opts->out_fd == CALLUS_RUNNER_CLOSED ? 2u : 0) |
		    (opts->err_fd == CALLUS_RUNNER_CLOSED ? 4u : 0);

	r.pid = fork();
	if (r.pid < 0)
		goto sys_fail;
	if (r.pid == 0)
		run_child(&cs);

	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	masked = 0;
	/* Our copies of the child's ends must go, or EOF never comes. */
	close_fd(&report[1]);
	close_fd(&outp[1]);
	close_fd(&errp[1]);
	close_fd(&slave);

	do
		n = read(report[0], &f, sizeof f);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof f) {
		(void)reap_blocking(r.pid);
		r.reaped = 1;
		if (f.stage == STAGE_EXEC) {
			/* As shells do: 127 when there is nothing by that
			 * name, 126 when it is there but cannot run. */
			int missing = f.err == ENOENT || f.err == ENOTDIR ||
				      f.err == ENAMETOOLONG;

			*out_status = missing ? 127 : 126;
			callus_error_set(err, missing ? CALLUS_ENOTFOUND : CALLUS_EINVAL,
				       "cannot run '%s': %s", opts->argv[0],
				       strerror(f.err));
		} else {
			rc = callus_error_set(err, CALLUS_ERROR,
					    "cannot set up '%s': %s", opts->argv[0],
					    strerror(f.err));
		}
		goto out;
	}

	pump(&r, sigismember(&old_mask, SIGCHLD) == 1);
	if (!r.reaped) {
		/* pump() gave up on a poll error: still wait, as promised. */
		r.status = reap_blocking(r.pid);
		r.reaped = 1;
	}
	*out_status = r.status;
	if (opts->write_errno)
		*opts->write_errno = r.write_errno;
	if (opts->term_signal)
		*opts->term_signal = r.term_signal;
	goto out;

sys_fail:
	rc = callus_error_set(err, CALLUS_ERROR, "cannot start '%s': %s",
			    opts->argv[0], strerror(errno));
	if (r.pid > 0 && !r.reaped)
		(void)reap_blocking(r.pid);
out:
	/* Dispositions first: once they are back, no handler can write to
	 * the self-pipe we are about to close. */
	for (i = 0; i < N_MANAGED; i++)
		if (installed[i])
			sigaction(managed_signals[i], &old_act[i], NULL);
	if (masked)
		pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	runner_wake_fd = -1;
	close_fd(&wake[0]);
	close_fd(&wake[1]);
	close_fd(&report[0]);
	close_fd(&report[1]);
	close_fd(&outp[0]);
	close_fd(&outp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&slave);
	for (i = 0; i < 2; i++)
		if (r.src[i] == r.master)
			r.src[i] = -1;
	close_fd(&r.master);
	close_fd(&r.src[0]);
	close_fd(&r.src[1]);
	free(r.buf);
	return rc;
}
