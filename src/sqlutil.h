/*
 * sqlutil.h - small helpers shared by the modules that keep tables in the
 * store (store*.c, match*.c, learn*.c).  Internal to the library.
 */
#ifndef CALLUS_SQLUTIL_H
#define CALLUS_SQLUTIL_H

#include <sqlite3.h>
#include <stdint.h>

#include "callus/strlist.h"

/* Bind v (NULL binds ""), copied by SQLite. */
int callus_sql_bind_text(sqlite3_stmt *st, int i, const char *v);

/* Bind v, or SQL NULL for NULL; copied by SQLite. */
int callus_sql_bind_text_or_null(sqlite3_stmt *st, int i, const char *v);

/* The same, v not copied (SQLITE_STATIC): for a statement bound at every
 * error of a run, where each copy was an allocation.  v must stay as it
 * is until the statement is finalized, reset with its bindings cleared
 * (callus_store_stmt_done), or the parameter bound again. */
int callus_sql_bind_text_kept(sqlite3_stmt *st, int i, const char *v);
int callus_sql_bind_text_or_null_kept(sqlite3_stmt *st, int i, const char *v);

/* Run one statement that returns no row, with v[0..n) bound as texts
 * (?1 .. ?n; NULL as ""; CAST in the SQL where a number is meant).  An
 * SQLite result code: SQLITE_OK when it ran to its end. */
int callus_sql_exec_texts(sqlite3 *db, const char *sql, const char *const *v, size_t n);

/* The same with v[0..n) bound as integers. */
int callus_sql_exec_ints(sqlite3 *db, const char *sql, const int64_t *v, size_t n);

/* A copy of column i as a string ("" for NULL); NULL when out of memory. */
char *callus_sql_column_dup(sqlite3_stmt *st, int i);

/* Column i's text into out[outsz] (outsz > 0), cut to fit and terminated;
 * "" for NULL.  For the fixed-size ids of rows read by the hundred. */
void callus_sql_column_copy(sqlite3_stmt *st, int i, char *out, size_t outsz);

/* A JSON array of the list's strings, compact; caller frees; NULL when out
 * of memory. */
char *callus_sql_strlist_json(const callus_strlist *l);

/* Append the strings of a JSON array (anything else adds nothing) to out. */
int callus_sql_json_strlist(callus_strlist *out, const char *json);

/*
 * Step st to its end, reading each row into a growing array of elem-sized
 * items: read(st, item, ctx) fills item and returns 0 to keep it, 1 to
 * skip the row (it released what it filled), or < 0 when out of memory.
 * At most limit items (0: no limit).  *items and *count hold what was read
 * even on failure (the caller releases them).  Returns SQLITE_OK, or the
 * failing SQLite code (SQLITE_NOMEM for read's failures).
 */
int callus_sql_collect(sqlite3_stmt *st, size_t elem, int (*read)(sqlite3_stmt *, void *, void *),
		     void *ctx, size_t limit, void **items, size_t *count);

/* The UTC time `seconds_ago` before now, in callus_now_iso8601()'s format,
 * so that it compares with stored times as text.  Caller frees. */
char *callus_sql_time_ago(int64_t seconds_ago);

/* The same, `seconds` before the time now (that format; NULL or not in it:
 * the clock), for a history replayed at its own times.  Never before
 * 1970-01-01T00:00:00.000Z: a rule of more days than that keeps all. */
char *callus_sql_time_before(const char *now, int64_t seconds);

/* SQL for a time of callus_now_iso8601()'s format, held by the parameter
 * named p, in the seconds since 1970 a signature's times are stored in
 * (schema 20); a text not in a format SQLite reads is the clock's. */
#define CALLUS_SQL_EPOCH(p) "coalesce(unixepoch(" p "), unixepoch('now'))"

/* The same, the seconds given in the parameter named k when they are
 * known (callus_sql_bind_epoch): SQLite reads no date a row. */
#define CALLUS_SQL_EPOCH_KNOWN(k, p) "coalesce(" k ", unixepoch(" p "), unixepoch('now'))"

/* At i, the seconds since 1970 of now when it is in callus_now_iso8601()'s
 * own format, as SQLite's unixepoch() reads it; NULL for any other text,
 * which CALLUS_SQL_EPOCH_KNOWN leaves to SQLite (a date of an import,
 * with an offset, SQLite reads as callus_time_parse() does not).  An
 * SQLite result code. */
int callus_sql_bind_epoch(sqlite3_stmt *st, int i, const char *now);

#endif
