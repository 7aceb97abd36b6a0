#include "tmpdir_helpers.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <unistd.h>

int test_tmpdir_make(char *dir, size_t n, const char *name)
{
	int len = snprintf(dir, n, "/tmp/callus-%s-XXXXXX", name);

	return len > 0 && (size_t)len < n && mkdtemp(dir) ? 0 : -1;
}

static int remove_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

void test_tmpdir_remove(const char *dir)
{
	nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int test_tmpdir_noreplace(const char *dir)
{
	char x[4096], y[4096];
	int fd, yes;

	snprintf(x, sizeof(x), "%s/.probe-x", dir);
	snprintf(y, sizeof(y), "%s/.probe-y", dir);
	if ((fd = open(x, O_WRONLY | O_CREAT | O_EXCL, 0600)) < 0)
		return 0;
	close(fd);
	yes = renameat2(AT_FDCWD, x, AT_FDCWD, y, RENAME_NOREPLACE) == 0;
	unlink(x);
	unlink(y);
	return yes;
}
