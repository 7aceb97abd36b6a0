/*
 * fileindex.c - the list of files callus knows something about, beside the
 * store (fileindex.h says why it exists and what it promises).
 */
#include "callus/fileindex.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/strlist.h"

#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "callus-files 2 NNNNNNNNNN\n": the digits are where the sorted part ends */
#define HEADER_PREFIX "callus-files 2 "
#define HEADER_DIGITS 10
#define HEADER_LEN (sizeof(HEADER_PREFIX) - 1 + HEADER_DIGITS + 1)
/* a list that large would be a store of millions of errors: read no more */
#define INDEX_MAX (16u << 20)
/* Appended bytes past which a fix merges them into the sorted part: what a
 * lookup searches whole (a few hundred paths; memmem reads it in a few
 * microseconds), and what a merge, which reads the whole list, waits for. */
#define TAIL_MAX 8192u

/* An index as read: its text (header first) and where its sorted part
 * ends (HEADER_LEN when it has none). */
typedef struct index_text {
	callus_fs_mapped m;
	size_t sorted_end;
} index_text;

/* Over the first HEADER_LEN bytes of text (a whole list, sorted, written
 * after HEADER_LEN bytes left for this), its header. */
static void header_fill(callus_buf *text)
{
	char hdr[HEADER_LEN + 1];

	snprintf(hdr, sizeof(hdr), HEADER_PREFIX "%0*zu\n", HEADER_DIGITS, text->len);
	memcpy(text->ptr, hdr, HEADER_LEN);
}

void callus_fileindex_remove(callus_store *s)
{
	callus_buf path = CALLUS_BUF_INIT;

	if (callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME) == 0)
		unlink(path.ptr);
	callus_buf_release(&path);
}

/* The files of every error fixed by a resolution or failing for good,
 * sorted and each once (json_each's values, by SQLite), each given to
 * fn(f, ctx) until it returns less than 0.  0, or a negative CALLUS_E*
 * code with err set (ENOMEM for fn's own failure). */
static int known_files(callus_store *s, int (*fn)(const char *f, void *ctx), void *ctx,
		       callus_error *err)
{
	static const char sql[] =
		"SELECT DISTINCT j.value FROM pending_errors p, json_each(p.files) j"
		" WHERE (p.state = 'permanent' OR p.resolution_id IS NOT NULL)"
		" AND j.type = 'text' ORDER BY 1";
	sqlite3_stmt *st = NULL;
	int sq;

	sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 0);

		sq = SQLITE_OK;
		if (f && *f && !strchr(f, '\n') && fn(f, ctx) < 0) {
			sqlite3_finalize(st);
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		}
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE)
		return callus_store_db_error(s, err, sq, "cannot list the files known in");
	return 0;
}

static int put_line(const char *f, void *text)
{
	return callus_buf_printf(text, "%s\n", f);
}

int callus_fileindex_write(callus_store *s, callus_error *err)
{
	callus_buf text = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	int rc;

	/* the header, its offset filled in once the list is whole */
	callus_buf_printf(&text, "%*s", (int)HEADER_LEN, "");
	if ((rc = known_files(s, put_line, &text, err)) < 0)
		goto out;
	if (callus_buf_status(&text) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	header_fill(&text);
	if (callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME) < 0)
		goto out; /* no file, no index */
	rc = callus_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, CALLUS_FS_REBUILT, err);
out:
	callus_buf_release(&text);
	callus_buf_release(&path);
	return rc;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Map the index at path (callus_fs_map: the hook before an edit asks it
 * for one file): 0, or -1 when there is none this reads (no file, larger
 * than INDEX_MAX, not of format 2, or a sorted part that does not end a
 * line inside the file). */
static int map_open(index_text *t, const char *path)
{
	const char *p;
	size_t end = 0;

	if (callus_fs_map(&t->m, path, HEADER_LEN, INDEX_MAX) < 0)
		return -1;
	p = t->m.ptr;
	if (memcmp(p, HEADER_PREFIX, sizeof(HEADER_PREFIX) - 1) != 0 || p[HEADER_LEN - 1] != '\n')
		goto bad;
	for (size_t i = sizeof(HEADER_PREFIX) - 1; i < HEADER_LEN - 1; i++) {
		if (p[i] < '0' || p[i] > '9')
			goto bad;
		end = end * 10 + (size_t)(p[i] - '0');
	}
	if (end < HEADER_LEN || end > t->m.len || p[end - 1] != '\n')
		goto bad;
	t->sorted_end = end;
	return 0;
bad:
	callus_fs_unmap(&t->m);
	return -1;
}

/* A line of the list (len bytes, no newline) against a path: the order
 * the list was sorted in (strcmp's, SQLite's BINARY). */
static int line_cmp(const char *line, size_t len, const char *key, size_t klen)
{
	int c = memcmp(line, key, len < klen ? len : klen);

	return c ? c : (len > klen) - (len < klen);
}

/* Whether key (klen bytes, no newline) is a line of the sorted part: a
 * bisection over its bytes, each probe taken back to its line's start.
 * lo and hi stay at starts of lines, and the byte before hi is a newline,
 * so the probed line ends before hi. */
static int sorted_has(const index_text *t, const char *key, size_t klen)
{
	const char *p = t->m.ptr;
	size_t lo = HEADER_LEN, hi = t->sorted_end;

	while (lo < hi) {
		size_t s = lo + (hi - lo) / 2, e;
		int c;

		while (s > lo && p[s - 1] != '\n')
			s--;
		e = (size_t)((const char *)memchr(p + s, '\n', hi - s) - p);
		c = line_cmp(p + s, e - s, key, klen);
		if (c == 0)
			return 1;
		if (c < 0)
			lo = e + 1;
		else
			hi = s;
	}
	return 0;
}

/* Whether line (NUL-terminated) is one of the lines of the index: the
 * sorted part by bisection, then the appended part with memmem (from the
 * newline that ends the sorted part; a last line cut short, with no
 * newline, is not found).  1, 0, or -1 without memory. */
static int listed(const index_text *t, const char *line, callus_buf *needle)
{
	size_t len = strlen(line);

	/* no line holds a newline, and "\na\nb\n" must not find "a\nb" */
	if (!len || memchr(line, '\n', len))
		return 0;
	if (sorted_has(t, line, len))
		return 1;
	callus_buf_clear(needle);
	callus_buf_printf(needle, "\n%s\n", line);
	if (callus_buf_status(needle) < 0)
		return -1;
	return memmem(t->m.ptr + t->sorted_end - 1, t->m.len - (t->sorted_end - 1), needle->ptr,
		      needle->len) != NULL;
}

/* The items of add (sorted, each once) that the index does not list, a
 * line each, into out. */
static int unlisted(callus_buf *out, const index_text *t, const callus_strlist *add)
{
	callus_buf needle = CALLUS_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < add->count && rc >= 0; i++)
		if ((rc = listed(t, add->items[i], &needle)) == 0)
			rc = callus_buf_printf(out, "%s\n", add->items[i]);
	callus_buf_release(&needle);
	return rc < 0 ? CALLUS_ENOMEM : callus_buf_status(out);
}

/* A line of a list, without its newline. */
typedef struct span {
	const char *p;
	size_t len;
} span;

static int by_span(const void *a, const void *b)
{
	const span *x = a, *y = b;

	return line_cmp(x->p, x->len, y->p, y->len);
}

/* The lines of text[0..len) (each ending with a newline) added to *v. */
static int spans_add(span **v, size_t *n, size_t *cap, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		span *grown = callus_array_grow(*v, cap, *n + 1, sizeof(**v));

		if (!grown)
			return -1;
		*v = grown;
		(*v)[(*n)++] = (span){ p, (size_t)(nl - p) };
	}
	return 0;
}

/*
 * Write the index at path again with its appended lines and the lines of
 * more merged into its sorted part: those few sorted, then one pass over
 * both, each line once.  The list stays what it was plus more: no store
 * read.  0 or -1.
 */
static int merge_lines(const char *path, const index_text *t, const callus_buf *more)
{
	const char *p = t->m.ptr + HEADER_LEN, *end = t->m.ptr + t->sorted_end;
	callus_buf text = CALLUS_BUF_INIT;
	span *v = NULL, last = { NULL, 0 };
	size_t n = 0, cap = 0, i = 0;
	int rc = -1;

	if (spans_add(&v, &n, &cap, t->m.ptr + t->sorted_end, t->m.len - t->sorted_end) < 0 ||
	    spans_add(&v, &n, &cap, more->ptr, more->len) < 0)
		goto out;
	if (n > 1)
		qsort(v, n, sizeof(*v), by_span);
	callus_buf_printf(&text, "%*s", (int)HEADER_LEN, "");
	while (p < end || i < n) {
		const char *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
		span next;

		if (nl && (i == n || line_cmp(p, (size_t)(nl - p), v[i].p, v[i].len) <= 0)) {
			next = (span){ p, (size_t)(nl - p) };
			p = nl + 1;
		} else {
			next = v[i++];
		}
		if (last.p && line_cmp(last.p, last.len, next.p, next.len) == 0)
			continue;
		callus_buf_put(&text, next.p, next.len);
		callus_buf_putc(&text, '\n');
		last = next;
	}
	if (callus_buf_status(&text) < 0)
		goto out;
	header_fill(&text);
	rc = callus_fs_write_atomic(path, text.ptr, text.len, 0600, CALLUS_FS_REBUILT, NULL) < 0 ? -1 : 0;
out:
	free(v);
	callus_buf_release(&text);
	return rc;
}

int callus_fileindex_add(callus_store *s, const int64_t *pending, size_t n, callus_error *err)
{
	static const char sql[] =
		"SELECT j.value FROM pending_errors p, json_each(p.files) j"
		" WHERE p.id = ?1 AND j.type = 'text'";
	callus_buf path = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	callus_strlist add = CALLUS_STRLIST_INIT;
	index_text text = { { NULL, 0 }, 0 };
	sqlite3_stmt *st = NULL;
	int rc = 0, sq, wrote;

	if (callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME) < 0)
		goto out;
	/* no index, not one this reads, or a crash's partial line: the
	 * whole list from the store */
	if (map_open(&text, path.ptr) < 0 || text.m.ptr[text.m.len - 1] != '\n') {
		rc = callus_fileindex_write(s, err);
		goto out;
	}
	/* a build's thousand errors name as many files: each looked for */
	sq = callus_strlist_index(&add) < 0
		     ? SQLITE_NOMEM
		     : sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL);
	for (size_t i = 0; sq == SQLITE_OK && i < n; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, pending[i]);
		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			const char *f = (const char *)sqlite3_column_text(st, 0);

			/* several errors of one file: each once (a fix's few) */
			if (f && *f && !strchr(f, '\n') &&
			    callus_strlist_add_unique(&add, f, strlen(f), NULL) < 0) {
				sq = SQLITE_NOMEM;
				break;
			}
		}
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot list the files known in");
		goto out;
	}
	/* looked up no more: sorted in place, past its index */
	if (add.count > 1)
		qsort(add.items, add.count, sizeof(*add.items), by_string);
	if (unlisted(&out, &text, &add) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* most fixes are in files listed already: nothing to write; the
	 * others are appended (the store's write lock, which the caller
	 * holds, keeps other writers out), and past TAIL_MAX merged into the
	 * sorted part: rewriting the whole list at each fix made a fix cost
	 * what the list weighs */
	if (!out.len)
		goto out;
	if (text.m.len - text.sorted_end + out.len > TAIL_MAX)
		wrote = merge_lines(path.ptr, &text, &out);
	else
		wrote = callus_fs_append(path.ptr, out.ptr, out.len, CALLUS_FS_REBUILT);
	/* an index missing what it should list is wrong: rebuilt */
	if (wrote < 0)
		callus_fileindex_remove(s);
out:
	sqlite3_finalize(st);
	callus_strlist_release(&add);
	callus_buf_release(&path);
	callus_fs_unmap(&text.m);
	callus_buf_release(&out);
	return rc;
}

/* what callus_fileindex_check() counts, file by file */
struct check_ctx {
	const char *path;
	index_text text;
	int mapped; /* 0 not yet, 1 mapped, -1 none this reads */
	callus_buf needle;
	size_t known, unlisted;
};

/* The index is mapped at the first file, once the statement's first step
 * has fixed the store's snapshot: a fix appends before it commits, so a
 * mapping made after the snapshot holds every fix the snapshot holds (made
 * before it, a fix committing in between would read as a lost line). */
static int check_one(const char *f, void *ctx)
{
	struct check_ctx *c = ctx;
	int r;

	if (!c->mapped)
		c->mapped = map_open(&c->text, c->path) < 0 ? -1 : 1;
	c->known++;
	if (c->mapped < 0) {
		c->unlisted++;
		return 0;
	}
	if ((r = listed(&c->text, f, &c->needle)) < 0)
		return -1;
	c->unlisted += !r;
	return 0;
}

int callus_fileindex_check(callus_store *s, int fix, size_t *known, size_t *unlisted,
			   callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	struct check_ctx c = { NULL, { { NULL, 0 }, 0 }, 0, CALLUS_BUF_INIT, 0, 0 };
	int rc, in_tx = 0;

	*known = *unlisted = 0;
	if ((rc = callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME)) < 0) {
		rc = callus_error_set(err, rc,
				      rc == CALLUS_ENOMEM ? "out of memory" : "a store in memory has no index");
		goto out;
	}
	c.path = path.ptr;
	/* the list is changed under the store's write lock (the top of
	 * fileindex.h): a fix committing meanwhile cannot append to the file
	 * this renames over */
	if (fix) {
		if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
			goto out;
		in_tx = 1;
	}
	if ((rc = known_files(s, check_one, &c, err)) < 0)
		goto out;
	if (!c.mapped) /* nothing known: only whether there is an index */
		c.mapped = map_open(&c.text, c.path) < 0 ? -1 : 1;
	*known = c.known;
	*unlisted = c.unlisted;
	if (fix && (c.unlisted || c.mapped < 0))
		rc = callus_fileindex_write(s, err);
	else if (c.mapped < 0)
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "no index at '%s' that callus reads",
				      path.ptr);
out:
	if (in_tx)
		(void)callus_store_exec(s, "COMMIT", NULL);
	callus_buf_release(&c.needle);
	callus_fs_unmap(&c.text.m);
	callus_buf_release(&path);
	return rc;
}

int callus_fileindex_ensure(callus_store *s, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	index_text text = { { NULL, 0 }, 0 };
	int rc;

	if ((rc = callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME)) < 0) {
		callus_buf_release(&path);
		return rc == CALLUS_EINVAL ? 0 : callus_error_set(err, rc, "out of memory");
	}
	/* under the write lock, as learning appends (the top of fileindex.h) */
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) == 0) {
		if (map_open(&text, path.ptr) < 0)
			rc = callus_fileindex_write(s, err);
		(void)callus_store_exec(s, "COMMIT", NULL);
	}
	callus_fs_unmap(&text.m);
	callus_buf_release(&path);
	return rc;
}

int callus_fileindex_lookup(const char *store_dir, const char *rel)
{
	callus_buf path = CALLUS_BUF_INIT, needle = CALLUS_BUF_INIT;
	index_text text = { { NULL, 0 }, 0 };
	int rc;

	if (callus_buf_printf(&path, "%s/" CALLUS_FILEINDEX_NAME, store_dir) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (map_open(&text, path.ptr) < 0) {
		rc = CALLUS_ENOTFOUND;
		goto out;
	}
	rc = listed(&text, rel, &needle);
	if (rc < 0)
		rc = CALLUS_ENOMEM;
out:
	callus_buf_release(&path);
	callus_fs_unmap(&text.m);
	callus_buf_release(&needle);
	return rc;
}
