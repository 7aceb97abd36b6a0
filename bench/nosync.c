/*
 * nosync - an LD_PRELOAD shim for bench/scale.sh's growth only: fsync and
 * fdatasync return at once.  The files written are the same, byte for
 * byte; what is skipped is waiting for the disk, which made growing a
 * store to 100,000 recordings take hours on a shared machine.  Never
 * preloaded for the runs that are measured.
 */
#define _GNU_SOURCE
#include <unistd.h>

int fsync(int fd)
{
	(void)fd;
	return 0;
}

int fdatasync(int fd)
{
	(void)fd;
	return 0;
}
