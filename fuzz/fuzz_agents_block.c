/*
 * fuzz_agents_block.c - arbitrary bytes as an existing AGENTS.md: updating
 * the lessons block must never change a byte outside the markers, must
 * refuse malformed markers without touching the file, and must leave
 * exactly one well-formed block behind.  The first bytes of the input also
 * become a lesson summary, so untrusted text is fuzzed in the same run.
 *
 * Marker lines are recognised here by a separate, deliberately simple
 * reading of the rule in lessonmd.h, so that the library's parser is
 * checked against it rather than against itself.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/lesson.h"
#include "callus/lessonmd.h"

#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,   \
				__LINE__, #cond);                                \
			abort();                                                 \
		}                                                                \
	} while (0)

enum { NONE, PAIR, MALFORMED };

struct scan {
	int kind;
	size_t begin_at;  /* first byte of the begin marker text */
	size_t end_after; /* first byte after the end marker text */
};

static int marker_line(const char *p, size_t len, const char *marker, size_t *s_out)
{
	size_t s = 0, e = len, m = strlen(marker);

	while (s < e && (p[s] == ' ' || p[s] == '\t'))
		s++;
	while (e > s && (p[e - 1] == ' ' || p[e - 1] == '\t' || p[e - 1] == '\r'))
		e--;
	*s_out = s;
	return e - s == m && !memcmp(p + s, marker, m);
}

static struct scan scan(const char *d, size_t len)
{
	struct scan r = { NONE, 0, 0 };
	size_t begins = 0, ends = 0, pos = 0, s;

	while (pos <= len) {
		const char *nl = memchr(d + pos, '\n', len - pos);
		size_t le = nl ? (size_t)(nl - d) : len;

		if (marker_line(d + pos, le - pos, CALLUS_AGENTS_BEGIN, &s)) {
			if (!begins++)
				r.begin_at = pos + s;
		} else if (marker_line(d + pos, le - pos, CALLUS_AGENTS_END, &s)) {
			if (!ends++)
				r.end_after = pos + s + strlen(CALLUS_AGENTS_END);
		}
		if (!nl)
			break;
		pos = le + 1;
	}
	if (!begins && !ends)
		r.kind = NONE;
	else if (begins == 1 && ends == 1 && r.begin_at < r.end_after)
		r.kind = PAIR;
	else
		r.kind = MALFORMED;
	return r;
}

static size_t count(const char *p, size_t len, const char *needle)
{
	size_t n = 0, m = strlen(needle);

	for (size_t i = 0; i + m <= len; i++)
		n += !memcmp(p + i, needle, m);
	return n;
}

static void write_raw(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	CHECK(f);
	CHECK(fwrite(data, 1, size, f) == size);
	CHECK(fclose(f) == 0);
}

static void read_raw(callus_buf *out, const char *path)
{
	CHECK(callus_fs_read_file(out, path, 0, NULL) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* tmpfs when there is one: every update fsyncs. */
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	const char *d = (const char *)data;
	callus_buf dir = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT, summary = CALLUS_BUF_INIT;
	callus_buf got = CALLUS_BUF_INIT, again = CALLUS_BUF_INIT;
	callus_lesson ls[3];
	callus_error err = CALLUS_ERROR_INIT;
	size_t max_bytes = size % 2 ? 0 : 400 + size % 1000;
	struct scan before, after;
	int rc;

	if (size > CALLUS_AGENTS_FILE_MAX)
		return 0;
	callus_buf_printf(&dir, "%s/callus-fuzz-XXXXXX", base);
	CHECK(callus_buf_status(&dir) == 0 && mkdtemp(dir.ptr));
	callus_buf_printf(&path, "%s/AGENTS.md", dir.ptr);
	callus_buf_put(&summary, data, size < 300 ? size : 300);
	CHECK(callus_buf_status(&path) == 0 && callus_buf_status(&summary) == 0);
	write_raw(path.ptr, data, size);

	memset(ls, 0, sizeof(ls));
	for (int i = 0; i < 3; i++) {
		ls[i].type = (callus_lesson_type)i;
		ls[i].tool = (char *)"eslint";
		ls[i].file = i == 1 ? summary.ptr : (char *)"src/app.js";
		ls[i].error_summary = i == 2 ? (char *)"plain" : summary.ptr;
		ls[i].signature = (char *)"0123456789abcdef0123456789abcdef"
					  "0123456789abcdef0123456789abcdef";
		ls[i].occurrences = i + 1;
	}

	before = scan(d, size);
	rc = callus_agents_block_update(path.ptr, &(callus_agents_content){ .lessons = ls, .nlessons = 3 }, max_bytes, NULL, &err);
	read_raw(&got, path.ptr);

	if (before.kind == MALFORMED) {
		CHECK(rc == CALLUS_EINVAL);
		CHECK(got.len == size && !memcmp(got.ptr, d, size));
		goto out;
	}
	CHECK(rc == 0);
	if (before.kind == NONE) {
		CHECK(got.len > size && !memcmp(got.ptr, d, size));
	} else {
		size_t tail = size - before.end_after;

		CHECK(got.len >= before.begin_at + tail);
		CHECK(!memcmp(got.ptr, d, before.begin_at));
		CHECK(!memcmp(got.ptr + got.len - tail, d + before.end_after, tail));
	}

	/* Exactly one block, within its limit, whatever the summary said. */
	after = scan(got.ptr, got.len);
	CHECK(after.kind == PAIR);
	CHECK(!max_bytes || after.end_after - after.begin_at <= max_bytes);
	/* No comment delimiters inside but the markers' own: lesson text can
	 * neither fake a marker nor hide part of the block. */
	CHECK(count(got.ptr + after.begin_at, after.end_after - after.begin_at, "<!--") == 2);
	CHECK(count(got.ptr + after.begin_at, after.end_after - after.begin_at, "-->") == 2);

	/* Updating again with the same lessons changes nothing. */
	CHECK(callus_agents_block_update(path.ptr, &(callus_agents_content){ .lessons = ls, .nlessons = 3 }, max_bytes, NULL, &err) == 0);
	read_raw(&again, path.ptr);
	CHECK(again.len == got.len && !memcmp(again.ptr, got.ptr, got.len));
out:
	unlink(path.ptr);
	rmdir(dir.ptr);
	callus_error_release(&err);
	callus_buf_release(&dir);
	callus_buf_release(&path);
	callus_buf_release(&summary);
	callus_buf_release(&got);
	callus_buf_release(&again);
	return 0;
}
