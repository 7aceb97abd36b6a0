#include "detach.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int cli_detached_prepare(cli_detached *d, const char *dir, const char *const argv[])
{
	size_t n = 0;
	ssize_t len;

	memset(d, 0, sizeof(*d));
	if (!dir || strlen(dir) >= sizeof(d->dir))
		return -1;
	if ((len = readlink("/proc/self/exe", d->exe, sizeof(d->exe) - 1)) <= 0)
		return -1;
	d->exe[len] = '\0';
	memcpy(d->dir, dir, strlen(dir) + 1);
	for (; argv[n]; n++) {
		if (n == CLI_DETACHED_ARGS)
			return -1;
		d->argv[n] = argv[n];
	}
	d->argv[n] = NULL;
	d->ready = 1;
	return 0;
}

int cli_detached_start(const cli_detached *d)
{
	pid_t pid;
	int st = 1;

	if (!d->ready)
		return -1;
	/* _Fork: no atfork handlers, which a signal handler may not run; the
	 * children only exec */
	pid = _Fork();
	if (pid == 0) {
		int fd;

		pid_t again = _Fork();

		if (again != 0)
			_exit(again < 0);
		setsid();
		if ((fd = open("/dev/null", O_RDWR)) >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			if (fd > 2)
				close(fd);
		}
		if (chdir(d->dir) == 0)
			execve(d->exe, (char *const *)d->argv, environ);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
	return pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

int cli_run_detached(const char *dir, const char *const argv[])
{
	cli_detached d;

	return cli_detached_prepare(&d, dir, argv) == 0 ? cli_detached_start(&d) : -1;
}
