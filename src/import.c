/*
 * import.c - reading agents' transcripts (include/callus/import.h): the
 * table of readers (src/import/), the incremental line reader every
 * member goes through, and the edits of a fix made into a unified diff.
 */
#include "callus/import.h"

#include "import/reader.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const callus_transcript_ops *const readers[] = {
	&callus_transcript_claude_code,
	&callus_transcript_codex,
	&callus_transcript_gemini,
	&callus_transcript_copilot,
};

#define NREADERS (sizeof(readers) / sizeof(readers[0]))
#define LINE_MAX_DEFAULT (64u << 20)
#define CHUNK (256u << 10)

const callus_transcript_ops *callus_transcript_nth(size_t i)
{
	return i < NREADERS ? readers[i] : NULL;
}

const callus_transcript_ops *callus_transcript_find(const char *name)
{
	for (size_t i = 0; i < NREADERS; i++)
		if (!strcmp(readers[i]->name, name))
			return readers[i];
	return NULL;
}

const char *callus_transcript_name(const callus_transcript_ops *ops)
{
	return ops->name;
}

const char *callus_transcript_where(const callus_transcript_ops *ops)
{
	return ops->where;
}

typedef struct dated {
	char *path;
	struct timespec mtime;
} dated;

static int by_mtime(const void *a, const void *b)
{
	const dated *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->path, y->path);
}

int callus_transcript_locate(const callus_transcript_ops *ops, const char *home,
			     callus_strlist *out)
{
	callus_strlist found = CALLUS_STRLIST_INIT;
	dated *d = NULL;
	size_t n = 0;
	int rc;

	if ((rc = ops->locate(home, &found)) < 0)
		goto out;
	if (found.count && !(d = calloc(found.count, sizeof(*d)))) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	/* sessions in the order they were written: a fix can span two */
	for (size_t i = 0; i < found.count; i++) {
		struct stat st;

		if (stat(found.items[i], &st) < 0 || access(found.items[i], R_OK) < 0)
			continue;
		d[n].path = found.items[i];
		d[n].mtime = st.st_mtim;
		n++;
	}
	if (n)
		qsort(d, n, sizeof(*d), by_mtime);
	for (size_t i = 0; i < n && rc == 0; i++)
		if (callus_strlist_add(out, d[i].path, strlen(d[i].path)) < 0)
			rc = CALLUS_ENOMEM;
out:
	free(d);
	callus_strlist_release(&found);
	return rc;
}

/* Counts events on their way to the caller; those of lines an earlier
 * read gave (quiet) only rebuild the reader's state. */
typedef struct counting {
	callus_import_emit emit;
	void *ctx;
	callus_import_counts *counts;
	int quiet;
} counting;

static int count_emit(void *p, const callus_import_event *ev)
{
	counting *c = p;

	if (c->quiet)
		return 0;
	if (ev->kind == CALLUS_IMPORT_COMMAND)
		c->counts->commands++;
	else
		c->counts->edits++;
	return c->emit(c->ctx, ev);
}

/* Whether a record can matter to the reader: it holds one of its needles. */
static int wanted(const callus_transcript_ops *ops, const void *st, const char *s, size_t n)
{
	if (!ops->needles)
		return 1;
	for (const char *const *nd = ops->needles; *nd; nd++)
		if (memmem(s, n, *nd, strlen(*nd)))
			return !ops->want || ops->want(st, s, n);
	return 0;
}

/* '{' first and '}' last, blanks aside: what a record not parsed must
 * look like (a truncated one does not). */
static int looks_like_object(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n >= 2 && s[0] == '{' && s[n - 1] == '}';
}

int callus_import_read(const callus_transcript_ops *ops, const char *path,
		       callus_import_mark *mark, size_t line_max, callus_import_emit emit,
		       void *ctx, callus_import_counts *counts, callus_error *err)
{
	callus_buf line = CALLUS_BUF_INIT;
	callus_import_counts quiet_counts;
	counting cnt = { emit, ctx, counts, 0 };
	char *chunk = NULL;
	uint64_t pos, line_start, offset = mark->resume, seen = mark->seen;
	int fd = -1, rc = 0, skipping = 0;
	void *st = NULL;
	struct stat sb;

	memset(&quiet_counts, 0, sizeof(quiet_counts));
	if (!line_max)
		line_max = LINE_MAX_DEFAULT;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &sb) < 0) {
		rc = callus_error_set(err, CALLUS_EIO, "cannot read '%s': %s", path, strerror(errno));
		goto out;
	}
	/* shorter than what was read: the file was replaced, read it anew */
	if ((uint64_t)sb.st_size < seen || offset > seen)
		offset = seen = 0;
	mark->resume = offset;
	mark->seen = seen;
	if (lseek(fd, (off_t)offset, SEEK_SET) < 0 || !(chunk = malloc(CHUNK)) ||
	    !(st = ops->begin(path))) {
		rc = callus_error_set(err, chunk ? CALLUS_EIO : CALLUS_ENOMEM, "cannot read '%s'",
				      path);
		goto out;
	}
	/* A read resumed past the first line: the session's header (Codex's
	 * session_meta, Copilot's session.start: the directory) is read again,
	 * quietly, so that what follows knows where it ran. */
	if (offset > 0) {
		ssize_t n = pread(fd, chunk, CHUNK, 0);
		const char *nl = n > 0 ? memchr(chunk, '\n', (size_t)n) : NULL;

		if (nl && (uint64_t)(nl - chunk) + 1 <= offset &&
		    wanted(ops, st, chunk, (size_t)(nl - chunk))) {
			json_t *rec = json_loadb(chunk, (size_t)(nl - chunk), 0, NULL);

			cnt.quiet = 1;
			if (json_is_object(rec) && (rc = ops->record(st, rec, count_emit, &cnt)) < 0) {
				json_decref(rec);
				callus_error_set(err, rc, "cannot import '%s'", path);
				goto out;
			}
			json_decref(rec);
			cnt.quiet = 0;
		}
	}
	pos = line_start = offset;
	for (;;) {
		ssize_t n = read(fd, chunk, CHUNK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rc = callus_error_set(err, CALLUS_EIO, "cannot read '%s': %s", path,
					      strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		counts->bytes += (uint64_t)n;
		for (const char *p = chunk, *end = chunk + n; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t take = (size_t)((nl ? nl : end) - p);
			callus_import_counts *c;

			if (!skipping) {
				if (line.len + take > line_max) {
					/* too long to hold: skipped, read past in chunks */
					skipping = 1;
					callus_buf_truncate(&line, 0);
				} else if (callus_buf_put(&line, p, take) < 0) {
					rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
					goto out;
				}
			}
			pos += take;
			p += take;
			if (!nl)
				break;
			p++;
			pos++;
			/* a line an earlier read gave: read again only to rebuild
			 * the reader's state; its events and counts are not given
			 * twice */
			cnt.quiet = pos <= seen;
			c = cnt.counts = cnt.quiet ? &quiet_counts : counts;
			if (skipping) {
				c->malformed++;
				skipping = 0;
			} else if (line.len && !wanted(ops, st, line.ptr, line.len)) {
				/* read past unparsed, but a cut record still counts */
				if (looks_like_object(line.ptr, line.len))
					c->records++;
				else
					c->malformed++;
			} else if (line.len) {
				json_t *rec = json_loadb(line.ptr, line.len, 0, NULL);

				if (!json_is_object(rec)) {
					c->malformed++;
				} else {
					c->records++;
					rc = ops->record(st, rec, count_emit, &cnt);
				}
				json_decref(rec);
				if (rc < 0) {
					callus_error_set(err, rc, "cannot import '%s'", path);
					goto out;
				}
			}
			callus_buf_truncate(&line, 0);
			line_start = pos;
			if (pos > mark->seen)
				mark->seen = pos;
			if (ops->idle(st))
				mark->resume = line_start;
		}
	}
	/* a last line with no newline: still being written, read next time */
	if (line.len || skipping || pos > line_start)
		counts->unfinished++;
out:
	if (st)
		ops->end(st);
	if (fd >= 0)
		close(fd);
	free(chunk);
	callus_buf_release(&line);
	return rc;
}

void callus_import_diff_file(callus_buf *out, const char *path, const char *hunks, int created,
			     int deleted)
{
	callus_buf_printf(out, "diff --git a/%s b/%s\n", path, path);
	if (created)
		callus_buf_printf(out, "new file mode 100644\n--- /dev/null\n+++ b/%s\n", path);
	else if (deleted)
		callus_buf_printf(out, "deleted file mode 100644\n--- a/%s\n+++ /dev/null\n", path);
	else
		callus_buf_printf(out, "--- a/%s\n+++ b/%s\n", path, path);
	callus_buf_puts(out, hunks);
}

/* The lines of s: starts and lengths (without the newline). */
typedef struct lines {
	const char **s;
	size_t *len, n;
} lines;

static int split(lines *l, const char *s)
{
	size_t cap = 0;

	memset(l, 0, sizeof(*l));
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);

		if (l->n == cap) {
			size_t c = cap ? cap * 2 : 16;
			const char **gs = realloc(l->s, c * sizeof(*gs));
			size_t *gl;

			if (!gs)
				return CALLUS_ENOMEM;
			l->s = gs;
			if (!(gl = realloc(l->len, c * sizeof(*gl))))
				return CALLUS_ENOMEM;
			l->len = gl;
			cap = c;
		}
		l->s[l->n] = s;
		l->len[l->n++] = len;
		s += len + (nl ? 1 : 0);
	}
	return 0;
}

static int same(const lines *a, size_t i, const lines *b, size_t j)
{
	return a->len[i] == b->len[j] && !memcmp(a->s[i], b->s[j], a->len[i]);
}

#define CONTEXT 3

void callus_import_hunk_from_texts(callus_buf *out, const char *old_text, const char *new_text,
				   long line)
{
	lines o, n;
	size_t pre = 0, suf = 0, cpre, csuf;

	if (split(&o, old_text) < 0 || split(&n, new_text) < 0) {
		out->failed = 1;
		goto out;
	}
	while (pre < o.n && pre < n.n && same(&o, pre, &n, pre))
		pre++;
	while (suf < o.n - pre && suf < n.n - pre && same(&o, o.n - 1 - suf, &n, n.n - 1 - suf))
		suf++;
	if (pre == o.n && pre == n.n)
		goto out; /* no change */
	cpre = pre < CONTEXT ? pre : CONTEXT;
	csuf = suf < CONTEXT ? suf : CONTEXT;
	{
		size_t ol = o.n - pre - suf + cpre + csuf, nl = n.n - pre - suf + cpre + csuf;
		long start = (line > 0 ? line : 1) + (long)(pre - cpre);

		callus_buf_printf(out, "@@ -%ld,%zu +%ld,%zu @@\n", ol ? start : start - 1, ol,
				  nl ? start : start - 1, nl);
	}
	for (size_t i = pre - cpre; i < pre; i++)
		callus_buf_printf(out, " %.*s\n", (int)o.len[i], o.s[i]);
	for (size_t i = pre; i < o.n - suf; i++)
		callus_buf_printf(out, "-%.*s\n", (int)o.len[i], o.s[i]);
	for (size_t i = pre; i < n.n - suf; i++)
		callus_buf_printf(out, "+%.*s\n", (int)n.len[i], n.s[i]);
	for (size_t i = o.n - suf; i < o.n - suf + csuf; i++)
		callus_buf_printf(out, " %.*s\n", (int)o.len[i], o.s[i]);
out:
	free(o.s);
	free(o.len);
	free(n.s);
	free(n.len);
}
