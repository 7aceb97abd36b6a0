/*
 * store.c - the SQLite store (include/callus/store.h): opening it private
 * and in WAL mode, within a lock timeout, or only if it exists; closing it;
 * its errors, statistics and integrity check.  The schema and its
 * migrations are store_schema.c, the lessons store_lessons.c, the metrics
 * store_metrics.c; what they share is store_internal.h.
 */
#include "callus/store.h"
#include "callus/buf.h"
#include "callus/common.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/* A statement the store keeps (callus_store_stmt), by its SQL text. */
typedef struct kept_stmt {
	uint32_t hash;
	char *sql;
	sqlite3_stmt *st;
	int out;          /* given out, not back yet */
} kept_stmt;

/* Statements kept at most: a recording uses some eighty distinct ones,
 * the few it repeats among them; and texts remembered as used once. */
#define STORE_KEPT_MAX 128
#define STORE_SEEN_MAX 512

struct callus_store {
	sqlite3 *db;
	kept_stmt *kept;
	size_t nkept, kept_cap;
	uint32_t *seen;   /* the hashes of texts prepared once, not kept */
	size_t nseen, seen_cap;
	char *path;
	int timeout_ms;
	int wal_pages;    /* frames the WAL may hold before a commit empties it */
	int wal_frames;   /* frames in it after this connection's last commit */
	int cache_changed; /* callus_store_cache_pages() changed the cache ... */
	int cache_opened;  /* ... from this PRAGMA cache_size */
	int cache_pages;   /* ... to these pages (0: back to cache_opened) */
};

int callus_store_db_error(callus_store *s, callus_error *err, int rc, const char *what)
{
	int code = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ? CALLUS_EBUSY : CALLUS_EIO;

	int sys = s->db ? sqlite3_system_errno(s->db) : 0;

	if (rc == SQLITE_NOMEM)
		code = CALLUS_ENOMEM;
	/* SQLite says "disk I/O error" for both: the user needs to know which */
	if ((rc & 0xff) == SQLITE_FULL || ((rc & 0xff) == SQLITE_IOERR && sys == ENOSPC))
		return callus_error_set(err, code, "%s '%s': the disk is full", what, s->path);
	if ((rc & 0xff) == SQLITE_IOERR && sys == EFBIG)
		return callus_error_set(err, code, "%s '%s': the file size limit (ulimit -f) "
				      "is reached", what, s->path);
	return callus_error_set(err, code, "%s '%s': %s", what, s->path,
			      s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
}

int callus_store_exec(callus_store *s, const char *sql, callus_error *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : callus_store_db_error(s, err, rc, "cannot update the store");
}

int callus_store_begin_within(callus_store *s, int wait_ms, callus_error *err)
{
	int rc;

	sqlite3_busy_timeout(s->db, wait_ms < s->timeout_ms ? wait_ms : s->timeout_ms);
	rc = callus_store_exec(s, "BEGIN IMMEDIATE", err);
	sqlite3_busy_timeout(s->db, s->timeout_ms);
	return rc;
}

int callus_store_tx_begin(callus_store *s, int *nested)
{
	*nested = !sqlite3_get_autocommit(s->db);
	return sqlite3_exec(s->db, *nested ? "SAVEPOINT callus_tx" : "BEGIN IMMEDIATE", NULL, NULL,
			    NULL);
}

int callus_store_tx_end(callus_store *s, int nested, int ok)
{
	int sq;

	if (ok) {
		sq = sqlite3_exec(s->db, nested ? "RELEASE callus_tx" : "COMMIT", NULL, NULL, NULL);
		if (sq == SQLITE_OK)
			return SQLITE_OK;
	} else {
		sq = SQLITE_OK;
	}
	if (nested) {
		sqlite3_exec(s->db, "ROLLBACK TO callus_tx", NULL, NULL, NULL);
		sqlite3_exec(s->db, "RELEASE callus_tx", NULL, NULL, NULL);
	} else {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	}
	return sq;
}

int callus_store_read_begin(callus_store *s, int *own, callus_error *err)
{
	*own = sqlite3_get_autocommit(s->db);
	return *own ? callus_store_exec(s, "BEGIN", err) : 0;
}

void callus_store_read_end(callus_store *s, int own)
{
	if (own)
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

sqlite3 *callus_store_db(callus_store *s)
{
	return s->db;
}

const char *callus_store_path(const callus_store *s)
{
	return s->path;
}

int callus_store_sibling_path(callus_buf *out, callus_store *s, const char *name)
{
	const char *slash = s->path ? strrchr(s->path, '/') : NULL;

	callus_buf_clear(out);
	if (!slash)
		return CALLUS_EINVAL;
	return callus_buf_printf(out, "%.*s/%s", (int)(slash - s->path), s->path, name);
}

/*
 * Copy the WAL into the store and empty it, without waiting: a reader or
 * writer of another process in the way leaves it for a later commit (what
 * could be copied without waiting is copied).  Emptied, not only copied:
 * every callus process is the first to open the store, and SQLite then
 * rebuilds the WAL's index from the WAL itself, which forgets what was
 * copied already; a WAL copied but kept was read whole by every later
 * process and copied again at each of their commits, and a process that
 * commits once (a passing check) never restarted it, so it grew.
 */
static void wal_empty(callus_store *s)
{
	sqlite3_busy_handler(s->db, NULL, NULL);
	if (sqlite3_wal_checkpoint_v2(s->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) ==
	    SQLITE_OK)
		s->wal_frames = 0;
	sqlite3_busy_timeout(s->db, s->timeout_ms);
}

/* After each commit (sqlite3_wal_hook): SQLite's automatic checkpoint,
 * which only copies, replaced by one that empties the WAL. */
static int wal_committed(void *arg, sqlite3 *db, const char *name, int frames)
{
	callus_store *s = arg;

	(void)db;
	(void)name;
	s->wal_frames = frames;
	if (frames >= s->wal_pages)
		wal_empty(s);
	return SQLITE_OK;
}

void callus_store_wal_pages(callus_store *s, int pages)
{
	s->wal_pages = pages > 0 ? pages : CALLUS_STORE_WAL_PAGES;
}

int callus_store_cache_pages(callus_store *s, int pages)
{
	int before = s->cache_pages;
	char sql[64];

	if (pages < 0)
		pages = 0;
	if (pages == before)
		return before;
	if (!s->cache_changed) {
		/* SQLite's default is its build's: read, not assumed */
		s->cache_opened = (int)callus_store_query_int(s, "PRAGMA cache_size");
		s->cache_changed = 1;
	}
	snprintf(sql, sizeof(sql), "PRAGMA cache_size = %d", pages > 0 ? pages : s->cache_opened);
	(void)sqlite3_exec(s->db, sql, NULL, NULL, NULL);
	s->cache_pages = pages;
	return before;
}

/*
 * Switch a new store to WAL.  Until the first process has done so the file
 * is in rollback mode, where SQLite answers a connection that holds a read
 * lock and needs the exclusive one with an immediate SQLITE_BUSY (waiting
 * could deadlock) instead of calling the busy handler: processes creating
 * the store together retry here, within the same timeout.
 */
static int set_wal(callus_store *s, int timeout_ms, callus_error *err)
{
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	int waited = 0, rc;

	while ((rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL)) ==
		       SQLITE_BUSY &&
	       waited < timeout_ms) {
		nanosleep(&pause, NULL);
		waited += 2;
	}
	return rc == SQLITE_OK ? 0 : callus_store_db_error(s, err, rc, "cannot open the store");
}

void callus_store_single_threaded(void)
{
	/* A mutex around every sqlite3_malloc and sqlite3_free (for the memory
	 * statistics) and one in most calls on a connection: about 25,000
	 * lock and unlock pairs in a failing hook, 8 % of its instructions,
	 * in a process with one thread.  Both fail (SQLITE_MISUSE) once SQLite
	 * is initialized: nothing changes then. */
	(void)sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* The schema version read through s->db opened as path says (flags),
 * or -1. */
static int version_as(callus_store *s, const char *path, int flags, int timeout_ms)
{
	sqlite3_stmt *st = NULL;
	int version = -1;

	if (s->db) {
		sqlite3_close_v2(s->db);
		s->db = NULL;
	}
	if (sqlite3_open_v2(path, &s->db, flags | SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW,
			    NULL) != SQLITE_OK)
		return -1;
	sqlite3_busy_timeout(s->db, timeout_ms);
	sqlite3_extended_result_codes(s->db, 0);
	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return version;
}

/*
 * A store that cannot be written where it is (a read-only file system, a
 * folder this user may not write, for the WAL's files): opened to be
 * read, when its schema is current, so that what only reads it answers
 * (a write fails then, as the open did).  0, or -1 (the caller's error
 * stands).
 */
static int open_read_only(callus_store *s, const char *path, int timeout_ms)
{
	int version = version_as(s, path, 0, timeout_ms);

	/* on a read-only file system, a WAL store whose -shm is gone cannot
	 * be opened to be read but as immutable, which nothing can make
	 * false there (a folder others may write is no such case) */
	if (version < 0) {
		callus_buf dir = CALLUS_BUF_INIT, uri = CALLUS_BUF_INIT;
		const char *slash = strrchr(path, '/');
		struct statvfs fs;

		callus_buf_put(&dir, path, slash ? (size_t)(slash - path) + 1 : 0);
		callus_buf_puts(&dir, slash ? "" : ".");
		callus_buf_puts(&uri, "file:");
		for (const unsigned char *p = (const unsigned char *)path; *p; p++)
			if (isalnum(*p) || strchr("/-._~", *p))
				callus_buf_putc(&uri, (char)*p);
			else
				callus_buf_printf(&uri, "%%%02X", *p);
		callus_buf_puts(&uri, "?immutable=1");
		if (callus_buf_status(&dir) == 0 && callus_buf_status(&uri) == 0 &&
		    statvfs(dir.ptr, &fs) == 0 && (fs.f_flag & ST_RDONLY))
			version = version_as(s, uri.ptr, SQLITE_OPEN_URI, timeout_ms);
		callus_buf_release(&dir);
		callus_buf_release(&uri);
	}
	if (version != CALLUS_STORE_SCHEMA_VERSION ||
	    sqlite3_exec(s->db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	s->timeout_ms = timeout_ms;
	s->wal_pages = CALLUS_STORE_WAL_PAGES;
	return 0;
}

/* Whether an open that failed with SQLite's rc (0: the file's own open,
 * errno e) failed for want of writing: the case for open_read_only. */
static int cannot_write(int rc, int e)
{
	rc &= 0xff;
	return rc ? rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN || rc == SQLITE_PERM
		  : e == EROFS || e == EACCES || e == EPERM;
}

int callus_store_open(callus_store **out, const char *path, int timeout_ms, callus_error *err)
{
	callus_store *s = calloc(1, sizeof(*s));
	int rc, fd, sq = SQLITE_OK;
	struct stat st;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	/* Create the file ourselves so that it is private from the start;
	 * SQLite gives its -wal and -shm files the same mode. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		int e = errno;

		rc = callus_error_set(err, CALLUS_EIO, "cannot open the store '%s': %s", path,
				      strerror(e));
		if (cannot_write(0, e))
			goto read_only;
		goto fail;
	}
	close(fd);
	sq = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot open the store");
		goto read_only;
	}
	sqlite3_busy_timeout(s->db, timeout_ms);
	/* Every callus process is short-lived: checkpointing the WAL at each
	 * close would copy it back on every recording.  But every process is
	 * also the first to open the store, so it rebuilds the WAL index by
	 * reading and checksumming the whole WAL: a small automatic
	 * checkpoint keeps that read short (SQLite's default, 1000 pages,
	 * made every open read up to 4 MB). */
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_extended_result_codes(s->db, 0);
	s->timeout_ms = timeout_ms;
	s->wal_pages = CALLUS_STORE_WAL_PAGES;
	if ((rc = set_wal(s, timeout_ms, err)) < 0) {
		sq = sqlite3_errcode(s->db);
		goto read_only;
	}
	sqlite3_wal_hook(s->db, wal_committed, s);
	/* the migrations before the foreign keys: a table they rebuild is
	 * dropped, and with the keys on its rows' cascades would run */
	if ((rc = callus_store_exec(s, "PRAGMA synchronous = NORMAL", err)) < 0 ||
	    (rc = callus_store_migrate(s, err)) < 0 ||
	    (rc = callus_store_exec(s, "PRAGMA foreign_keys = ON", err)) < 0) {
		sq = sqlite3_errcode(s->db);
		goto read_only;
	}
	*out = s;
	return 0;
read_only:
	/* only a store that is there, and only for want of writing */
	if (sq != SQLITE_OK && !cannot_write(sq, 0))
		goto fail;
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    open_read_only(s, path, timeout_ms) == 0) {
		callus_error_release(err);
		*out = s;
		return 0;
	}
fail:
	callus_store_close(s);
	return rc;
}

int callus_store_read_only(const callus_store *s)
{
	return sqlite3_db_readonly(s->db, "main") == 1;
}

/* Eight bytes a step (callus_text_hash): a recording looks up thousands
 * of statements of a few hundred bytes, which a byte a step made 1,500
 * instructions each. */
static uint32_t sql_hash(const char *sql)
{
	uint64_t h = callus_text_hash(sql, strlen(sql));

	return (uint32_t)(h ^ h >> 32);
}

/* Whether a text of hash h was prepared before; remembered if not (as far
 * as there is room: past it, a text is never kept). */
static int seen_before(callus_store *s, uint32_t h)
{
	uint32_t *grown;

	for (size_t i = 0; i < s->nseen; i++)
		if (s->seen[i] == h)
			return 1;
	if (s->nseen < STORE_SEEN_MAX &&
	    (grown = callus_array_grow(s->seen, &s->seen_cap, s->nseen + 1, sizeof(*s->seen)))) {
		s->seen = grown;
		s->seen[s->nseen++] = h;
	}
	return 0;
}

/* callus_store_stmt(), the statement kept from its first use when `again`
 * (the caller knows it comes back), else from its second. */
static int stmt_get(callus_store *s, const char *sql, sqlite3_stmt **st, int again)
{
	uint32_t h = sql_hash(sql);
	kept_stmt *k;
	int rc;

	*st = NULL;
	for (size_t i = 0; i < s->nkept; i++) {
		k = &s->kept[i];
		if (!k->out && k->hash == h && !strcmp(k->sql, sql)) {
			k->out = 1;
			*st = k->st;
			return SQLITE_OK;
		}
	}
	if ((rc = sqlite3_prepare_v2(s->db, sql, -1, st, NULL)) != SQLITE_OK || !*st)
		return rc;
	/* kept from its second use on, or its first when the caller says it
	 * comes back: a statement used once (most of a recording's) is
	 * finalized as before, its memory used again by the next (kept at
	 * once, a recording's seventy statements held some 260 KB more: 66
	 * more page faults a hook, bench/hookio.sh).  A PRAGMA is never kept:
	 * SQLite compiles it again at each run after a reset.  Without room or
	 * memory to keep it, it is finalized when done. */
	if (strncasecmp(sql, "PRAGMA", 6) != 0 && (again || seen_before(s, h)) &&
	    s->nkept < STORE_KEPT_MAX &&
	    (k = callus_array_grow(s->kept, &s->kept_cap, s->nkept + 1, sizeof(*s->kept)))) {
		s->kept = k;
		k = &s->kept[s->nkept];
		if ((k->sql = strdup(sql))) {
			k->hash = h;
			k->st = *st;
			k->out = 1;
			s->nkept++;
		}
	}
	return SQLITE_OK;
}

int callus_store_stmt(callus_store *s, const char *sql, sqlite3_stmt **st)
{
	return stmt_get(s, sql, st, 0);
}

int callus_store_stmt_again(callus_store *s, const char *sql, sqlite3_stmt **st)
{
	return stmt_get(s, sql, st, 1);
}

void callus_store_stmt_done(callus_store *s, sqlite3_stmt *st)
{
	if (!st)
		return;
	for (size_t i = 0; i < s->nkept; i++) {
		if (s->kept[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			s->kept[i].out = 0;
			return;
		}
	}
	sqlite3_finalize(st);
}

/* What the store kept, finalized: before its connection closes. */
static void kept_release(callus_store *s)
{
	for (size_t i = 0; i < s->nkept; i++) {
		sqlite3_finalize(s->kept[i].st);
		free(s->kept[i].sql);
	}
	free(s->kept);
	free(s->seen);
	s->kept = NULL;
	s->seen = NULL;
	s->nkept = s->kept_cap = s->nseen = s->seen_cap = 0;
}

void callus_store_close(callus_store *s)
{
	if (!s)
		return;
	kept_release(s);
	/* what a batch left past the usual size (a pull raises it) is not
	 * left to every later process to read */
	if (s->db && s->wal_frames > CALLUS_STORE_WAL_PAGES)
		wal_empty(s);
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

/* One integer from a query of one row; -1 when it fails. */
int callus_store_state_get(callus_store *s, const char *key, char **out, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(s->db, "SELECT value FROM sync_state WHERE key = ?1", -1, &st,
				    NULL);

	*out = NULL;
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, key);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			sq = (*out = callus_sql_column_dup(st, 0)) ? SQLITE_OK : SQLITE_NOMEM;
		else if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot read the state of");
}

int callus_store_state_set(callus_store *s, const char *key, const char *value,
			   callus_error *err)
{
	const char *v[] = { key, value };
	int sq = callus_sql_exec_texts(s->db,
				       value ? "INSERT INTO sync_state (key, value) VALUES (?1, ?2)"
					       " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
					     : "DELETE FROM sync_state WHERE key = ?1",
				       v, value ? 2 : 1);

	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot write the state of");
}

int callus_store_state_raise(callus_store *s, const char *key, const char *value, int numeric)
{
	const char *v[] = { key, value };

	return callus_sql_exec_texts(s->db,
				     numeric ? "INSERT INTO sync_state (key, value) VALUES (?1, ?2)"
					       " ON CONFLICT (key) DO UPDATE SET value ="
					       " max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))"
					     : "INSERT INTO sync_state (key, value) VALUES (?1, ?2)"
					       " ON CONFLICT (key) DO UPDATE SET value ="
					       " max(value, excluded.value)",
				     v, 2);
}

int callus_store_state_claim(callus_store *s, const char *key, const char *value, char **out,
			     callus_error *err)
{
	sqlite3_stmt *st = NULL;
	/* one statement: the value that stands is the one it returns */
	int sq = sqlite3_prepare_v2(s->db,
				    "INSERT INTO sync_state (key, value) VALUES (?1, ?2)"
				    " ON CONFLICT (key) DO UPDATE SET value = value RETURNING value",
				    -1, &st, NULL);

	*out = NULL;
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, key);
		callus_sql_bind_text(st, 2, value);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			sq = (*out = callus_sql_column_dup(st, 0)) ? SQLITE_OK : SQLITE_NOMEM;
		else if (sq == SQLITE_DONE)
			sq = SQLITE_INTERNAL; /* an upsert returns its row */
	}
	sqlite3_finalize(st);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot write the state of");
}

int64_t callus_store_query_int(callus_store *s, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (callus_store_stmt_again(s, sql, &st) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	callus_store_stmt_done(s, st);
	return v;
}

int callus_store_open_existing(callus_store **out, const char *path, int timeout_ms,
			     callus_error *err)
{
	callus_store *s = calloc(1, sizeof(*s));
	struct stat st;
	int rc;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	if (lstat(path, &st) < 0) {
		rc = callus_error_set(err, errno == ENOENT ? CALLUS_ENOTFOUND : CALLUS_EIO,
				    "cannot open the store '%s': %s", path, strerror(errno));
		goto fail;
	}
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(s->db, "PRAGMA user_version", NULL, NULL, NULL);
	/* a store on a read-only file system, or in a folder this user may
	 * not write, is still read (callus_store_open) */
	if (rc != SQLITE_OK && cannot_write(rc, 0) && S_ISREG(st.st_mode) &&
	    open_read_only(s, path, timeout_ms) == 0)
		rc = SQLITE_OK;
	if (rc != SQLITE_OK) {
		rc = callus_store_db_error(s, err, rc, "cannot open the store");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, timeout_ms);
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_extended_result_codes(s->db, 0);
	*out = s;
	return 0;
fail:
	callus_store_close(s);
	return rc;
}

int callus_store_stats_get(callus_store *s, callus_store_stats *out, callus_error *err)
{
	int64_t pages, free_pages, page_size;

	memset(out, 0, sizeof(*out));
	out->lessons = out->runs = -1;
	if ((out->schema_version = callus_store_schema_version(s)) < 0)
		return callus_store_db_error(s, err, sqlite3_errcode(s->db), "cannot read");
	pages = callus_store_query_int(s, "PRAGMA page_count");
	free_pages = callus_store_query_int(s, "PRAGMA freelist_count");
	page_size = callus_store_query_int(s, "PRAGMA page_size");
	if (pages >= 0 && free_pages >= 0 && page_size > 0) {
		out->db_bytes = (uint64_t)pages * (uint64_t)page_size;
		out->free_bytes = (uint64_t)free_pages * (uint64_t)page_size;
	}
	if (out->schema_version >= 1 && out->schema_version < CALLUS_STORE_TOTALS_SCHEMA) {
		out->lessons = callus_store_query_int(s, "SELECT count(*) FROM lessons");
		out->runs = callus_store_query_int(s, "SELECT count(*) FROM runs");
	} else if (out->schema_version <= CALLUS_STORE_SCHEMA_VERSION) {
		callus_store_totals t;

		if (callus_store_totals_get(s, &t, NULL) == 0) {
			out->lessons = t.lessons;
			out->runs = t.runs;
		}
	}
	return 0;
}

/* The totals as kept, or with counted, as counted. */
static int totals_read(callus_store *s, int counted, callus_store_totals *out, callus_error *err)
{
	int64_t *const col[] = { &out->lessons,      &out->runs,         &out->checks,
				 &out->signatures,   &out->pending,      &out->fixed,
				 &out->permanent,    &out->resolutions,  &out->applications,
				 &out->successes,    &out->notes[0],     &out->notes[1],
				 &out->notes[2],     &out->notes[3] };
	sqlite3_stmt *st = NULL;
	int sq;

	memset(out, 0, sizeof(*out));
	/* a store older than the totals (doctor opens it as it is) counts */
	if (!counted && callus_store_schema_version(s) < CALLUS_STORE_TOTALS_SCHEMA)
		counted = 1;
again:
	sq = sqlite3_prepare_v2(s->db, counted ? CALLUS_STORE_TOTALS_COUNTED : "SELECT * FROM totals",
				-1, &st, NULL);
	if (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW &&
	    sqlite3_column_count(st) == (int)(sizeof(col) / sizeof(col[0]))) {
		for (size_t i = 0; i < sizeof(col) / sizeof(col[0]); i++)
			*col[i] = sqlite3_column_int64(st, (int)i);
		sq = SQLITE_OK;
	} else if (!counted && sq == SQLITE_DONE) {
		/* the row deleted by hand: counted, until doctor --fix puts it back */
		sqlite3_finalize(st);
		counted = 1;
		goto again;
	} else if (sq == SQLITE_ROW || sq == SQLITE_DONE) {
		sq = SQLITE_CORRUPT;
	}
	sqlite3_finalize(st);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot read the totals of");
}

int callus_store_totals_get(callus_store *s, callus_store_totals *out, callus_error *err)
{
	return totals_read(s, 0, out, err);
}

/* Each model's vectors, and those of them that are a linked signature's
 * (store_schema.c: VECTOR_MODELS, ALIASED_COUNTS), counted from the rows:
 * `callus status`'s signatures with a vector are the one less the other. */
#define VECTORS_OF_MODEL "(SELECT count(*) FROM signature_vectors v WHERE v.model = vector_models.id)"
#define ALIASED_OF_MODEL                                                                    \
	"(SELECT count(*) FROM signature_links l JOIN signatures g ON g.id = l.alias_id"    \
	" JOIN signature_vectors v ON v.sig = g.rowid WHERE v.model = vector_models.id)"
#define CALLUS_STORE_ALIASED_SCHEMA 41

int callus_store_totals_check(callus_store *s, int fix, int *drifted, callus_error *err)
{
	callus_store_totals kept, counted;
	int rc, vectors = callus_store_schema_version(s) >= CALLUS_STORE_ALIASED_SCHEMA;

	*drifted = 0;
	if (callus_store_schema_version(s) < CALLUS_STORE_TOTALS_SCHEMA)
		return 0;
	if ((rc = callus_store_exec(s, fix ? "BEGIN IMMEDIATE" : "BEGIN", err)) < 0)
		return rc;
	if ((rc = totals_read(s, 0, &kept, err)) < 0 || (rc = totals_read(s, 1, &counted, err)) < 0)
		goto out;
	*drifted = memcmp(&kept, &counted, sizeof(kept)) != 0 ||
		   callus_store_query_int(s, "SELECT count(*) FROM totals") != 1 ||
		   (vectors && callus_store_query_int(s, "SELECT count(*) FROM vector_models"
						      " WHERE n IS NOT " VECTORS_OF_MODEL
						      " OR aliased IS NOT " ALIASED_OF_MODEL) != 0);
	if (*drifted && fix)
		rc = callus_store_exec(s, "DELETE FROM totals;"
					  "INSERT INTO totals " CALLUS_STORE_TOTALS_COUNTED,
				       err);
	if (*drifted && fix && rc == 0 && vectors)
		rc = callus_store_exec(s, "UPDATE vector_models SET n = " VECTORS_OF_MODEL
					  ", aliased = " ALIASED_OF_MODEL,
				       err);
out:
	if (rc < 0) {
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	return callus_store_exec(s, "COMMIT", err);
}

int callus_store_integrity(callus_store *s, int quick, char **problems, callus_error *err)
{
	callus_buf b = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	*problems = NULL;
	/* 20 problems are enough to see that the file needs replacing */
	sq = sqlite3_prepare_v2(s->db, quick ? "PRAGMA quick_check(20)" : "PRAGMA integrity_check(20)",
				-1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		if (t && strcmp(t, "ok"))
			callus_buf_printf(&b, "%s%s", b.len ? "\n" : "", t);
		sq = SQLITE_OK;
	}
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot check");
		goto out;
	}
	if (callus_buf_status(&b) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (b.len)
		*problems = callus_buf_detach(&b);
out:
	sqlite3_finalize(st);
	callus_buf_release(&b);
	return rc;
}
