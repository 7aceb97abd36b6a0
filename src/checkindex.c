/*
 * checkindex.c - the list of checks whose next pass the store has to see,
 * beside the store (checkindex.h says why it exists and what it promises).
 */
#include "callus/checkindex.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/hash.h"

#include "store_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER "callus-checks 1\n"
#define LINE_LEN (CALLUS_CHECKINDEX_KEY_LEN + 1)
/* a list that large would be millions of checks failing at once: read no
 * more, and the store answers */
#define INDEX_MAX (16u << 20)

/* A check's next pass matters: an error of it is pending, or its last run
 * (runs is the run count the check row keeps) closed one. */
#define NEEDS_PASS                                                                      \
	"EXISTS (SELECT 1 FROM pending_errors p WHERE p.check_id = c.id"               \
	" AND (p.state = 'pending' OR p.closed_run = c.runs))"

int callus_checkindex_key(char out[CALLUS_CHECKINDEX_KEY_LEN + 1], const callus_check_key *c)
{
	char hex[CALLUS_SHA256_HEX_LEN + 1];
	callus_sha256 *h = NULL;
	const char *parts[3] = { c->tool ? c->tool : "", c->args ? c->args : "",
				 c->dir ? c->dir : "" };

	if (callus_sha256_new(&h) < 0)
		return CALLUS_ENOMEM;
	for (size_t i = 0; i < 3; i++)
		callus_sha256_part(h, parts[i], strlen(parts[i]));
	if (callus_sha256_finish(h, hex) < 0)
		return CALLUS_ENOMEM;
	memcpy(out, hex, CALLUS_CHECKINDEX_KEY_LEN);
	out[CALLUS_CHECKINDEX_KEY_LEN] = '\0';
	return 0;
}

/* -1 for a store that is no file (SQLite's ":memory:") or for lack of
 * memory */
static int index_path(callus_buf *out, callus_store *s)
{
	return callus_store_sibling_path(out, s, CALLUS_CHECKINDEX_NAME) < 0 ? -1 : 0;
}

void callus_checkindex_remove(callus_store *s)
{
	callus_buf path = CALLUS_BUF_INIT;

	if (index_path(&path, s) == 0)
		unlink(path.ptr);
	callus_buf_release(&path);
}

/* A list this reads: its header, then whole lines.  A crash between an
 * append's write and its end (a line cut short) makes it one to rebuild. */
static int well_formed(const callus_buf *text)
{
	return text->len >= sizeof(HEADER) - 1 &&
	       memcmp(text->ptr, HEADER, sizeof(HEADER) - 1) == 0 &&
	       (text->len - (sizeof(HEADER) - 1)) % LINE_LEN == 0;
}

/* Where key's line starts in text (well formed), or NULL. */
static const char *find(const callus_buf *text, const char *key)
{
	for (size_t at = sizeof(HEADER) - 1; at + LINE_LEN <= text->len; at += LINE_LEN)
		if (memcmp(text->ptr + at, key, CALLUS_CHECKINDEX_KEY_LEN) == 0)
			return text->ptr + at;
	return NULL;
}

int callus_checkindex_lookup(const char *store_dir, const callus_check_key *c)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	char key[CALLUS_CHECKINDEX_KEY_LEN + 1];
	int rc;

	if ((rc = callus_checkindex_key(key, c)) < 0)
		return rc;
	if (callus_buf_printf(&path, "%s/" CALLUS_CHECKINDEX_NAME, store_dir) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (callus_fs_read_file(&text, path.ptr, INDEX_MAX, NULL) < 0 || !well_formed(&text)) {
		rc = CALLUS_ENOTFOUND;
		goto out;
	}
	rc = find(&text, key) != NULL;
out:
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}

/* The whole list from what s holds, written to path (atomically). */
static int write_from(callus_store *s, const char *path, callus_error *err)
{
	static const char sql[] = "SELECT tool, args, dir FROM checks c WHERE " NEEDS_PASS;
	callus_buf text = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	callus_buf_puts(&text, HEADER);
	sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_check_key c = { (const char *)sqlite3_column_text(st, 0),
				       (const char *)sqlite3_column_text(st, 1),
				       (const char *)sqlite3_column_text(st, 2) };
		char key[CALLUS_CHECKINDEX_KEY_LEN + 1];

		if (callus_checkindex_key(key, &c) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
		callus_buf_printf(&text, "%s\n", key);
		sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot list the checks in");
		goto out;
	}
	if (callus_buf_status(&text) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	rc = callus_fs_write_atomic(path, text.ptr, text.len, 0600, 0, err);
out:
	callus_buf_release(&text);
	return rc;
}

int callus_checkindex_write(callus_store *s, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	int rc;

	if (index_path(&path, s) < 0) {
		callus_buf_release(&path);
		return 0; /* no file, no list */
	}
	/* the write lock: no writer adds a check between the read and the
	 * rename, which would leave it off the list */
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) == 0) {
		if ((rc = write_from(s, path.ptr, err)) < 0)
			unlink(path.ptr);
		sqlite3_exec(callus_store_db(s), "COMMIT", NULL, NULL, NULL);
	}
	callus_buf_release(&path);
	return rc;
}

/* key appended to the list at path, synced: 0 or -1. */
static int append_key(const char *path, const char *key)
{
	char line[LINE_LEN];
	int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
	int rc;

	memcpy(line, key, CALLUS_CHECKINDEX_KEY_LEN);
	line[CALLUS_CHECKINDEX_KEY_LEN] = '\n';
	rc = fd < 0 ? -1 : callus_fs_write_all(fd, line, sizeof(line));
	if (!rc && fdatasync(fd) < 0)
		rc = -1;
	if (fd >= 0)
		close(fd);
	return rc;
}

/* The list at path (text, well formed) written again without the line at
 * at. */
static int drop_line(const char *path, const callus_buf *text, const char *at)
{
	callus_buf out = CALLUS_BUF_INIT;
	size_t before = (size_t)(at - text->ptr);
	int rc;

	callus_buf_put(&out, text->ptr, before);
	callus_buf_put(&out, at + LINE_LEN, text->len - before - LINE_LEN);
	rc = callus_buf_status(&out) < 0 ? -1
					  : callus_fs_write_atomic(path, out.ptr, out.len, 0600, 0, NULL);
	callus_buf_release(&out);
	return rc;
}

int callus_checkindex_update(callus_store *s, int64_t check_id, const callus_check_key *c,
			     callus_error *err)
{
	static const char sql[] = "SELECT " NEEDS_PASS " FROM checks c WHERE c.id = ?1";
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	char key[CALLUS_CHECKINDEX_KEY_LEN + 1];
	sqlite3_stmt *st = NULL;
	const char *at;
	int rc = 0, sq, need = 0;

	if (index_path(&path, s) < 0)
		goto out; /* no file, no list */
	if (callus_fs_read_file(&text, path.ptr, INDEX_MAX, NULL) < 0 || !well_formed(&text)) {
		if ((rc = write_from(s, path.ptr, err)) < 0)
			unlink(path.ptr);
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL)) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, check_id);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			need = sqlite3_column_int(st, 0);
			sq = SQLITE_OK;
		} else if (sq == SQLITE_DONE) {
			sq = SQLITE_OK; /* no such check: nothing to see */
		}
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read the checks in");
		unlink(path.ptr);
		goto out;
	}
	if ((rc = callus_checkindex_key(key, c)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		unlink(path.ptr);
		goto out;
	}
	at = find(&text, key);
	/* a list missing a check would lose its fix: one that cannot take it
	 * is removed, and rebuilt by the next pass; a check left on it by
	 * mistake costs one pass the store's opening */
	if (need && !at && append_key(path.ptr, key) < 0)
		unlink(path.ptr);
	else if (!need && at)
		drop_line(path.ptr, &text, at);
out:
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}
