/*
 * checkindex.c - the list of checks whose next pass the store has to see,
 * beside the store (checkindex.h says why it exists and what it promises).
 *
 * The list is read at every pass, and at 100,000 recordings it can name
 * 75,000 checks (1.3 MB): read whole, it cost a pass 0.8 ms.  So it is
 * mapped, and most of it is sorted: a binary search touches a few pages.
 * A change, a check added or taken off, is a line appended (one write, one
 * fdatasync) after the sorted part, which the header counts; past TAIL_MAX
 * appended the whole list is written again, sorted.
 */
#include "callus/checkindex.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/hash.h"

#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* "callus-checks 2 " and the sorted lines' count in ten digits */
#define MAGIC "callus-checks 2 "
#define HEADER_LEN (sizeof(MAGIC) - 1 + 10 + 1)
#define KEY_LEN CALLUS_CHECKINDEX_KEY_LEN
#define LINE_LEN (KEY_LEN + 1)          /* a sorted line: the hash, a newline */
#define OP_LEN (1 + KEY_LEN + 1)        /* an appended one: '+' or '-' first */
/* appended lines a lookup scans before the list is sorted again */
#define TAIL_MAX 256
/* a list that large would be millions of checks failing at once: read no
 * more, and the store answers */
#define INDEX_MAX (64u << 20)

/* A check's next pass matters: an error of it is pending, or its last run
 * (runs is the run count the check row keeps) closed one.  Two questions,
 * each a range of pending_check (check_id, state, closed_run: schema 26);
 * asked as one with OR, SQLite read every error the check ever had. */
#define NEEDS_PASS                                                                      \
	"(EXISTS (SELECT 1 FROM pending_errors p WHERE p.check_id = c.id"              \
	" AND p.state = 'pending') OR EXISTS (SELECT 1 FROM pending_errors p"          \
	" WHERE p.check_id = c.id AND p.state IN ('fixed', 'permanent')"               \
	" AND p.closed_run = c.runs))"

int callus_checkindex_key(char out[KEY_LEN + 1], const callus_check_key *c)
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
	memcpy(out, hex, KEY_LEN);
	out[KEY_LEN] = '\0';
	return 0;
}

/* A list as mapped: lines[0..sorted) sorted, then ops[0..nops) appended,
 * each a '+' or a '-' and a hash. */
typedef struct list {
	callus_fs_mapped m;
	const char *lines, *ops;
	size_t sorted, nops;
} list;

/*
 * Map the list at path: 0, or -1 when there is none this reads: its header,
 * a sorted count it holds, whole sorted lines, then whole appended ones.  A
 * crash between an append's write and its end (a line cut short) makes it
 * one to rebuild.
 */
static int list_open(list *l, const char *path)
{
	char digits[11];
	char *end;
	size_t rest;

	memset(l, 0, sizeof(*l));
	if (callus_fs_map(&l->m, path, HEADER_LEN, INDEX_MAX) < 0)
		return -1;
	memcpy(digits, l->m.ptr + sizeof(MAGIC) - 1, 10);
	digits[10] = '\0';
	l->sorted = (size_t)strtoull(digits, &end, 10);
	rest = l->m.len - HEADER_LEN;
	if (memcmp(l->m.ptr, MAGIC, sizeof(MAGIC) - 1) != 0 || *end ||
	    l->m.ptr[HEADER_LEN - 1] != '\n' || l->sorted > rest / LINE_LEN ||
	    (rest - l->sorted * LINE_LEN) % OP_LEN != 0)
		goto bad;
	l->lines = l->m.ptr + HEADER_LEN;
	l->ops = l->lines + l->sorted * LINE_LEN;
	l->nops = (rest - l->sorted * LINE_LEN) / OP_LEN;
	for (size_t i = 0; i < l->nops; i++) {
		const char *op = l->ops + i * OP_LEN;

		if ((op[0] != '+' && op[0] != '-') || op[OP_LEN - 1] != '\n')
			goto bad;
	}
	return 0;
bad:
	callus_fs_unmap(&l->m);
	memset(l, 0, sizeof(*l));
	return -1;
}

static void list_close(list *l)
{
	callus_fs_unmap(&l->m);
	memset(l, 0, sizeof(*l));
}

/* Where key's line is in l's sorted part, or NULL. */
static const char *sorted_find(const list *l, const char *key)
{
	size_t lo = 0, hi = l->sorted;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = memcmp(l->lines + mid * LINE_LEN, key, KEY_LEN);

		if (c == 0)
			return l->lines + mid * LINE_LEN;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Whether l lists key: the last line appended for it says, else the
 * sorted part. */
static int list_has(const list *l, const char *key)
{
	for (size_t i = l->nops; i-- > 0;)
		if (memcmp(l->ops + i * OP_LEN + 1, key, KEY_LEN) == 0)
			return l->ops[i * OP_LEN] == '+';
	return sorted_find(l, key) != NULL;
}

int callus_checkindex_lookup(const char *store_dir, const callus_check_key *c)
{
	callus_buf path = CALLUS_BUF_INIT;
	char key[KEY_LEN + 1];
	list l;
	int rc;

	if ((rc = callus_checkindex_key(key, c)) < 0)
		return rc;
	if (callus_buf_printf(&path, "%s/" CALLUS_CHECKINDEX_NAME, store_dir) < 0) {
		rc = CALLUS_ENOMEM;
	} else if (list_open(&l, path.ptr) < 0) {
		rc = CALLUS_ENOTFOUND;
	} else {
		rc = list_has(&l, key);
		list_close(&l);
	}
	callus_buf_release(&path);
	return rc;
}

static int by_key(const void *a, const void *b)
{
	return memcmp(a, b, KEY_LEN);
}

/* keys (n of them, KEY_LEN bytes each, sorted) written to path as a whole
 * list, atomically. */
static int write_list(const char *path, const char *keys, size_t n, callus_error *err)
{
	callus_buf text = CALLUS_BUF_INIT;
	int rc;

	callus_buf_printf(&text, MAGIC "%010zu\n", n);
	if (callus_buf_grow(&text, n * LINE_LEN) == 0)
		for (size_t i = 0; i < n; i++) {
			callus_buf_put(&text, keys + i * KEY_LEN, KEY_LEN);
			callus_buf_putc(&text, '\n');
		}
	if (callus_buf_status(&text) < 0)
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	else
		rc = callus_fs_write_atomic(path, text.ptr, text.len, 0600, 0, err);
	callus_buf_release(&text);
	return rc;
}

/* The whole list from what s holds, written to path. */
static int write_from(callus_store *s, const char *path, callus_error *err)
{
	static const char sql[] = "SELECT tool, args, dir FROM checks c WHERE " NEEDS_PASS;
	callus_buf keys = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_check_key c = { (const char *)sqlite3_column_text(st, 0),
				       (const char *)sqlite3_column_text(st, 1),
				       (const char *)sqlite3_column_text(st, 2) };
		char key[KEY_LEN + 1];

		if (callus_checkindex_key(key, &c) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
		callus_buf_put(&keys, key, KEY_LEN);
		sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot list the checks in");
	} else if (callus_buf_status(&keys) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	} else {
		if (keys.len > KEY_LEN)
			qsort(keys.ptr, keys.len / KEY_LEN, KEY_LEN, by_key);
		rc = write_list(path, keys.ptr, keys.len / KEY_LEN, err);
	}
	callus_buf_release(&keys);
	return rc;
}

/* The list beside s written from what s holds under s's write lock (taken
 * here): always when force, else only when there is none it reads. */
static int list_from_store(callus_store *s, int force, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	list l;
	int rc = 0;

	/* closed at the end whether or not it was opened: forced, it never
	 * is, and a list of garbage would unmap whatever it pointed at */
	memset(&l, 0, sizeof(l));
	if (callus_store_sibling_path(&path, s, CALLUS_CHECKINDEX_NAME) < 0)
		goto out; /* no file, no list */
	if (!force && list_open(&l, path.ptr) == 0)
		goto done;
	/* the write lock: no writer adds a check between the read and the
	 * rename, which would leave it off the list; one may have written
	 * the list while this waited for it */
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	if ((force || list_open(&l, path.ptr) < 0) && (rc = write_from(s, path.ptr, err)) < 0)
		unlink(path.ptr);
	sqlite3_exec(callus_store_db(s), "COMMIT", NULL, NULL, NULL);
done:
	list_close(&l);
out:
	callus_buf_release(&path);
	return rc;
}

int callus_checkindex_ensure(callus_store *s, callus_error *err)
{
	return list_from_store(s, 0, err);
}

int callus_checkindex_rewrite(callus_store *s, callus_error *err)
{
	return list_from_store(s, 1, err);
}

/* op ('+' or '-') and key appended to the list at path, synced: 0 or -1. */
static int append_op(const char *path, char op, const char *key)
{
	char line[OP_LEN];

	line[0] = op;
	memcpy(line + 1, key, KEY_LEN);
	line[OP_LEN - 1] = '\n';
	return callus_fs_append(path, line, sizeof(line), 0);
}

/*
 * The list l says, with key listed or not as the last word, written to path
 * as a whole sorted list: the sorted part merged with what was appended.
 * Only the last line appended for a hash counts; the appended part is
 * small (TAIL_MAX), so finding a hash's last line is a scan of it.
 */
static int compact(const char *path, const list *l, const char *key, int listed)
{
	callus_buf adds = CALLUS_BUF_INIT, drops = CALLUS_BUF_INIT, seen = CALLUS_BUF_INIT;
	callus_buf keys = CALLUS_BUF_INIT;
	size_t nadd, ndrop, a = 0, d = 0;
	int rc = -1;

	/* each hash's last word, newest first: key's, then the appended */
	for (size_t i = l->nops + 1; i-- > 0;) {
		const char *k = i == l->nops ? key : l->ops + i * OP_LEN + 1;
		int on = i == l->nops ? listed : l->ops[i * OP_LEN] == '+', was = 0;

		for (size_t j = 0; j < seen.len && !was; j += KEY_LEN)
			was = memcmp(seen.ptr + j, k, KEY_LEN) == 0;
		if (was)
			continue;
		callus_buf_put(&seen, k, KEY_LEN);
		if (on != (sorted_find(l, k) != NULL))
			callus_buf_put(on ? &adds : &drops, k, KEY_LEN);
	}
	if (callus_buf_status(&seen) < 0 || callus_buf_status(&adds) < 0 ||
	    callus_buf_status(&drops) < 0)
		goto out;
	nadd = adds.len / KEY_LEN;
	ndrop = drops.len / KEY_LEN;
	if (nadd > 1)
		qsort(adds.ptr, nadd, KEY_LEN, by_key);
	if (ndrop > 1)
		qsort(drops.ptr, ndrop, KEY_LEN, by_key);
	if (callus_buf_grow(&keys, (l->sorted + nadd) * KEY_LEN) < 0)
		goto out;
	/* both in order: one pass over the sorted part */
	for (size_t i = 0; i <= l->sorted; i++) {
		const char *k = i < l->sorted ? l->lines + i * LINE_LEN : NULL;

		while (a < nadd && (!k || memcmp(adds.ptr + a * KEY_LEN, k, KEY_LEN) < 0))
			callus_buf_put(&keys, adds.ptr + a++ * KEY_LEN, KEY_LEN);
		if (!k)
			break;
		if (d < ndrop && memcmp(drops.ptr + d * KEY_LEN, k, KEY_LEN) == 0) {
			d++;
			continue;
		}
		callus_buf_put(&keys, k, KEY_LEN);
	}
	if (callus_buf_status(&keys) == 0)
		rc = write_list(path, keys.ptr, keys.len / KEY_LEN, NULL);
out:
	callus_buf_release(&adds);
	callus_buf_release(&drops);
	callus_buf_release(&seen);
	callus_buf_release(&keys);
	return rc;
}

int callus_checkindex_update(callus_store *s, int64_t check_id, const callus_check_key *c,
			     callus_error *err)
{
	static const char sql[] = "SELECT " NEEDS_PASS " FROM checks c WHERE c.id = ?1";
	callus_buf path = CALLUS_BUF_INIT;
	char key[KEY_LEN + 1];
	sqlite3_stmt *st = NULL;
	list l = { 0 };
	int rc = 0, sq, need = 0;

	if (callus_store_sibling_path(&path, s, CALLUS_CHECKINDEX_NAME) < 0)
		goto out; /* no file, no list */
	if (list_open(&l, path.ptr) < 0) {
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
	/* a list missing a check would lose its fix: one that cannot take it
	 * is removed, and rebuilt by the next pass; a check left on it by
	 * mistake costs one pass the store's opening.  A change is a line
	 * appended, a check taken off as one added: rewriting the whole list
	 * to take one off cost the pass after every fix a write of all of it
	 * (1.3 MB and two fsyncs at 75,000 checks). */
	if (need != list_has(&l, key) &&
	    (l.nops < TAIL_MAX ? append_op(path.ptr, need ? '+' : '-', key)
			       : compact(path.ptr, &l, key, need)) < 0 &&
	    need)
		unlink(path.ptr);
out:
	list_close(&l);
	callus_buf_release(&path);
	return rc;
}
