/*
 * fileindex.c - the list of files callus knows something about, beside the
 * store (fileindex.h says why it exists and what it promises).
 */
#include "callus/fileindex.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/strlist.h"

#include "store_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER "callus-files 1\n"
/* a list that large would be a store of millions of errors: read no more */
#define INDEX_MAX (16u << 20)

void callus_fileindex_remove(callus_store *s)
{
	callus_buf path = CALLUS_BUF_INIT;

	if (callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME) == 0)
		unlink(path.ptr);
	callus_buf_release(&path);
}

int callus_fileindex_write(callus_store *s, callus_error *err)
{
	/* json_each's values, distinct and sorted by SQLite: the files of every
	 * error fixed by a resolution or failing for good */
	static const char sql[] =
		"SELECT DISTINCT j.value FROM pending_errors p, json_each(p.files) j"
		" WHERE (p.state = 'permanent' OR p.resolution_id IS NOT NULL)"
		" AND j.type = 'text' ORDER BY 1";
	callus_buf text = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	callus_buf_puts(&text, HEADER);
	sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *f = (const char *)sqlite3_column_text(st, 0);

		if (f && *f && !strchr(f, '\n'))
			callus_buf_printf(&text, "%s\n", f);
		sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot list the files known in");
		goto out;
	}
	if (callus_buf_status(&text) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME) < 0)
		goto out; /* no file, no index */
	rc = callus_fs_write_atomic(path.ptr, text.ptr, text.len, 0600, 0, err);
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
 * than INDEX_MAX, no header). */
static int map_open(callus_fs_mapped *m, const char *path)
{
	if (callus_fs_map(m, path, sizeof(HEADER) - 1, INDEX_MAX) < 0)
		return -1;
	if (memcmp(m->ptr, HEADER, sizeof(HEADER) - 1) != 0) {
		callus_fs_unmap(m);
		return -1;
	}
	return 0;
}

/* Whether line (NUL-terminated, no newline) is one of the lines of text
 * (an index, header first): the header's newline starts the first entry's
 * "\n...\n"; a last line cut short (no newline) is not found.  1, 0, or
 * -1 without memory. */
static int listed(const callus_fs_mapped *text, const char *line, callus_buf *needle)
{
	callus_buf_clear(needle);
	callus_buf_printf(needle, "\n%s\n", line);
	if (callus_buf_status(needle) < 0)
		return -1;
	return memmem(text->ptr + sizeof(HEADER) - 2, text->len - (sizeof(HEADER) - 2), needle->ptr,
		      needle->len) != NULL;
}

/* seen[i] set for each item of add that text lists, each looked for with
 * listed().  0, or -1 without memory. */
static int mark_each(unsigned char *seen, const callus_fs_mapped *text, const callus_strlist *add)
{
	callus_buf needle = CALLUS_BUF_INIT;
	int rc = 0;

	for (size_t i = 0; i < add->count && rc >= 0; i++)
		if ((rc = listed(text, add->items[i], &needle)) > 0)
			seen[i] = 1;
	callus_buf_release(&needle);
	return rc < 0 ? -1 : 0;
}

/* The same in one pass over text's lines, each looked up among the items
 * of add (sorted).  The index ends with a newline (checked by the caller). */
static void mark_by_line(unsigned char *seen, const callus_fs_mapped *text, const callus_strlist *add)
{
	const char *p = text->ptr + sizeof(HEADER) - 1, *end = text->ptr + text->len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t lo = 0, hi = add->count, len = (size_t)(nl - p);

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = strncmp(add->items[mid], p, len);

			if (c == 0 && add->items[mid][len] != '\0')
				c = 1;
			if (c == 0) {
				seen[mid] = 1;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		p = nl + 1;
	}
}

/* Up to this many files to add (a fix's files: a few), each is looked for
 * in the index with memmem, at memory speed (43 thousand instructions a
 * file for an index of 10,000 files); more, and one pass over the index's
 * lines (two million for that index, whatever their number). */
#define FEW_ADDED 32

/* The items of add (sorted, each once) that text (the index, header
 * first) does not list, a line each, into out. */
static int unlisted(callus_buf *out, const callus_fs_mapped *text, const callus_strlist *add)
{
	unsigned char *seen = calloc(add->count ? add->count : 1, 1);
	int rc = 0;

	if (!seen)
		return CALLUS_ENOMEM;
	if (add->count <= FEW_ADDED)
		rc = mark_each(seen, text, add);
	else
		mark_by_line(seen, text, add);
	for (size_t i = 0; rc == 0 && i < add->count; i++)
		if (!seen[i])
			callus_buf_printf(out, "%s\n", add->items[i]);
	free(seen);
	return rc < 0 ? CALLUS_ENOMEM : callus_buf_status(out);
}

/* Append data[0..len) to the index at path, synced.  0 or -1. */
static int append_lines(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	int rc = fd < 0 ? -1 : callus_fs_write_all(fd, data, len);

	if (!rc && fdatasync(fd) < 0)
		rc = -1;
	if (fd >= 0)
		close(fd);
	return rc;
}

int callus_fileindex_add(callus_store *s, const int64_t *pending, size_t n, callus_error *err)
{
	static const char sql[] =
		"SELECT j.value FROM pending_errors p, json_each(p.files) j"
		" WHERE p.id = ?1 AND j.type = 'text'";
	callus_buf path = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	callus_strlist add = CALLUS_STRLIST_INIT;
	callus_fs_mapped text = { NULL, 0 };
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	if (callus_store_sibling_path(&path, s, CALLUS_FILEINDEX_NAME) < 0)
		goto out;
	/* no index, not one this reads, or a crash's partial line: the
	 * whole list from the store */
	if (map_open(&text, path.ptr) < 0 || text.ptr[text.len - 1] != '\n') {
		rc = callus_fileindex_write(s, err);
		goto out;
	}
	sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL);
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
	if (add.count > 1)
		qsort(add.items, add.count, sizeof(*add.items), by_string);
	if (unlisted(&out, &text, &add) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* most fixes are in files listed already: nothing to write; the
	 * others are appended (the store's write lock, which the caller
	 * holds, keeps other writers out): rewriting the whole list made a
	 * fix cost what the index weighs */
	if (out.len && append_lines(path.ptr, out.ptr, out.len) < 0) {
		/* an index missing what it should list is wrong: rebuilt */
		callus_fileindex_remove(s);
	}
out:
	sqlite3_finalize(st);
	callus_strlist_release(&add);
	callus_buf_release(&path);
	callus_fs_unmap(&text);
	callus_buf_release(&out);
	return rc;
}

int callus_fileindex_lookup(const char *store_dir, const char *rel)
{
	callus_buf path = CALLUS_BUF_INIT, needle = CALLUS_BUF_INIT;
	callus_fs_mapped text = { NULL, 0 };
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
	callus_fs_unmap(&text);
	callus_buf_release(&needle);
	return rc;
}
