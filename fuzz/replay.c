/*
 * replay.c - run a fuzz target over files, so that every corpus is replayed
 * by the ordinary test suite on machines without libFuzzer (after libgit2's
 * fuzzers/standalone_driver.c idea).  Usage: fuzz_X FILE|DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "callus/buf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
	callus_buf b = CALLUS_BUF_INIT;
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		callus_buf_put(&b, chunk, n);
	fclose(f);
	if (callus_buf_status(&b) < 0)
		return -1;
	LLVMFuzzerTestOneInput((const uint8_t *)b.ptr, b.len);
	callus_buf_release(&b);
	return 0;
}

static int replay(const char *path, int *count)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int rc = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		(*count)++;
		return replay_file(path);
	}
	if (!(d = opendir(path)))
		return -1;
	while ((e = readdir(d))) {
		callus_buf p = CALLUS_BUF_INIT;

		if (e->d_name[0] == '.')
			continue;
		callus_buf_printf(&p, "%s/%s", path, e->d_name);
		if (replay(p.ptr, count) < 0)
			rc = -1;
		callus_buf_release(&p);
	}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++)
		if (replay(argv[i], &count) < 0)
			rc = 1;
	printf("%s: replayed %d inputs\n", argv[0], count);
	return rc;
}
