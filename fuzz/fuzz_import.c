/*
 * fuzz_import.c - arbitrary bytes as every agent's transcript.
 *
 * Besides memory errors, checks what `callus import` relies on: every
 * event has its strings (never NULL), a known kind and a status of -1 or
 * more; the mark never passes the end of the file and resumes no later
 * than what was seen; and a second read from the mark gives no event
 * again (importing twice adds nothing).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callus/import.h"
#include "callus/utf8.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check(void *ctx, const callus_import_event *ev)
{
	size_t *n = ctx;

	if (!ev->time || !ev->session || !ev->cwd || !ev->command || !ev->output || !ev->path ||
	    !ev->hunks || ev->exit_code < -1 ||
	    (ev->kind != CALLUS_IMPORT_COMMAND && ev->kind != CALLUS_IMPORT_EDIT) ||
	    strlen(ev->output) != ev->output_len)
		abort();
	if (!callus_utf8_valid(ev->command, strlen(ev->command)) ||
	    !callus_utf8_valid(ev->output, ev->output_len))
		abort();
	(*n)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/callus-fuzz-import-XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	for (size_t i = 0; callus_transcript_nth(i); i++) {
		const callus_transcript_ops *ops = callus_transcript_nth(i);
		callus_import_counts c;
		callus_import_mark m = { 0, 0 };
		size_t n = 0;

		memset(&c, 0, sizeof(c));
		/* a small ceiling: the long-line path is exercised too */
		if (callus_import_read(ops, path, &m, 4096, check, &n, &c, NULL) < 0)
			continue;
		if (m.seen > size || m.resume > m.seen || c.commands + c.edits != n)
			abort();
		n = 0;
		if (callus_import_read(ops, path, &m, 4096, check, &n, &c, NULL) < 0 || n)
			abort();
	}
	unlink(path);
	return 0;
}
