/*
 * store_internal.h - the store's SQLite handle, for the library modules
 * that keep their own tables in it (learn*.c), and what the pieces of the
 * store share: opening (store.c), the schema (store_schema.c), the lessons
 * (store_lessons.c) and the metrics (store_metrics.c).  Not part of the
 * public API: the CLI goes through store.h and learn.h.
 */
#ifndef CALLUS_STORE_INTERNAL_H
#define CALLUS_STORE_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "callus/buf.h"
#include "callus/metrics.h"
#include "callus/store.h"

/* Borrowed: valid until callus_store_close(). */
sqlite3 *callus_store_db(callus_store *s);
const char *callus_store_path(const callus_store *s);
/* The path of the file name beside s's database file (the views and
 * indexes kept with the store), into out, cleared first: 0, CALLUS_EINVAL
 * for a store that is no file (SQLite's ":memory:"), or CALLUS_ENOMEM. */
int callus_store_sibling_path(callus_buf *out, callus_store *s, const char *name);

/* Set err from SQLite's result code rc (CALLUS_EBUSY for a lock, CALLUS_ENOMEM,
 * else CALLUS_EIO), naming the store and what was being done. */
int callus_store_db_error(callus_store *s, callus_error *err, int rc, const char *what);

/* The sync_state key of the time before which runs may be gone: each
 * callus gc that removes runs moves it up to the age it removed them from
 * (gc.c), callus_store_runs_seen reads it. */
#define CALLUS_STORE_RUNS_GONE_KEY "gc.runs_gone_before"

/* Run SQL with no results; err as above. */
int callus_store_exec(callus_store *s, const char *sql, callus_error *err);

/* Pending error id's files listed again in pending_files (schema 47), as
 * its triggers list them when it closes: after its files were rewritten
 * (a redaction pass).  An SQLite code. */
int callus_store_pending_files_again(callus_store *s, int64_t id);

/* A write transaction (BEGIN IMMEDIATE) waiting at most wait_ms for the
 * lock, not the store's timeout: work that can be left for later (a
 * note's file after its pass's commit) need not hold a hook up.  0, or
 * CALLUS_EBUSY and the rest as callus_store_exec(). */
int callus_store_begin_within(callus_store *s, int wait_ms, callus_error *err);

/*
 * A write transaction of its own (BEGIN IMMEDIATE), or, when the caller
 * already holds one (a dry run of `callus gc` holds the pass's, and rolls
 * it back: gc.h), a savepoint inside it.  *nested says which, for
 * callus_store_tx_end(), which commits or releases it when ok, and rolls
 * it back when not.  Both return an SQLite result code.
 */
int callus_store_tx_begin(callus_store *s, int *nested);
int callus_store_tx_end(callus_store *s, int nested, int ok);

/* A mark of sync_state set to value unless it is past it already: one
 * that only moves up (the time runs may be gone before, a pull's
 * watermark), whoever writes it last.  Compared as numbers when numeric,
 * else as text (ISO 8601 times).  An SQLite result code. */
int callus_store_state_raise(callus_store *s, const char *key, const char *value, int numeric);

/*
 * Several reads of one moment: a read transaction of its own (BEGIN; the
 * snapshot is taken at the first read), unless the caller is in one
 * already, which is that moment.  *own says which, for
 * callus_store_read_end(), which ends only one begun here.  0, or a
 * negative CALLUS_E* code with err set.
 */
int callus_store_read_begin(callus_store *s, int *own, callus_error *err);
void callus_store_read_end(callus_store *s, int own);

/*
 * A statement of sql kept by the store for its next use, where one
 * process prepares the same statement again and again (a recording of ten
 * errors compiled each learning statement ten times: 20 of its 68 million
 * instructions were SQLite compiling SQL): given back with
 * callus_store_stmt_done() instead of sqlite3_finalize(), which finalizes
 * a statement the first time its text is used and from the second on
 * keeps it, reset and unbound, for the next.  A statement given out is
 * not given again until it is back: a nested use of the same sql prepares
 * another.  Past 128 statements (STORE_KEPT_MAX, store.c) the store keeps
 * no more, and done finalizes them.  The store finalizes what it keeps
 * when it closes.  sql is the key, by its text.  An SQLite result code;
 * *st is NULL unless SQLITE_OK.
 */
int callus_store_stmt(callus_store *s, const char *sql, sqlite3_stmt **st);
/* The same, for a statement the caller knows this process runs again (in
 * each of a recording's two searches, say): kept from its first use, so
 * compiled once where callus_store_stmt() compiles it twice. */
int callus_store_stmt_again(callus_store *s, const char *sql, sqlite3_stmt **st);
void callus_store_stmt_done(callus_store *s, sqlite3_stmt *st); /* accepts NULL */

/*
 * How many frames the WAL may hold before a commit copies it into the
 * store and empties it: CALLUS_STORE_WAL_PAGES unless a connection asks
 * otherwise.  Two costs pull apart: every process reads and checksums the
 * whole WAL at its open (about 3 us a frame here), and each emptying syncs
 * the WAL and the store and starts a WAL whose header is synced again.  A
 * failing hook writes some 35 frames: at 64 the WAL was emptied every
 * other hook, at 128 every fourth.  Measured against 64: one new error no
 * different past the noise (bench/spaced.sh), ten at once 4 to 13 % less
 * (bench/scale.sh), what only reads up to 0.16 ms more for the longer WAL
 * at its open (docs/scale-history.md, the thirty-seventh pass).
 */
#define CALLUS_STORE_WAL_PAGES 128
/* The connection's own bound (0: CALLUS_STORE_WAL_PAGES); a batch of many
 * writes (a pull) raises it, and its close empties what it left. */
void callus_store_wal_pages(callus_store *s, int pages);
/* The pages of the store s's connection keeps read from now on: pages, or
 * for 0 what it kept when opened (SQLite's default, 2 MB of them; nothing
 * to do when never changed).  Best effort.  What was asked before (0 for
 * the cache it opened with), to give back: a cache set by a PRAGMA of the
 * caller's own is not known here. */
int callus_store_cache_pages(callus_store *s, int pages);

/* One integer from a query of one row; -1 when it fails.  Its statement is
 * kept from the first use (callus_store_stmt_again): the one-integer
 * questions a recording asks come back. */
int64_t callus_store_query_int(callus_store *s, const char *sql);

/* The schema that keeps the totals (callus_store_totals, store.h). */
#define CALLUS_STORE_TOTALS_SCHEMA 13

/* The totals counted: the totals table's first row (the migration to
 * schema 13 fills it with this: a change to it is a new migration), what
 * a store of an older schema answers with, and what doctor checks the kept
 * ones against.  Its columns in the table's order. */
#define CALLUS_STORE_TOTALS_COUNTED                                                        \
	"SELECT (SELECT count(*) FROM lessons), (SELECT count(*) FROM runs),"             \
	" (SELECT count(*) FROM checks), (SELECT count(*) FROM signatures),"              \
	" (SELECT count(*) FROM pending_errors WHERE state = 'pending'),"                  \
	" (SELECT count(*) FROM pending_errors WHERE state = 'fixed'),"                    \
	" (SELECT count(*) FROM pending_errors WHERE state = 'permanent'),"                \
	" (SELECT count(*) FROM resolutions),"                                             \
	" (SELECT coalesce(sum(application_count), 0) FROM resolutions),"                  \
	" (SELECT coalesce(sum(success_count), 0) FROM resolutions),"                      \
	" (SELECT count(*) FROM notes WHERE status = 'active' AND layer = 'session'),"     \
	" (SELECT count(*) FROM notes WHERE status = 'active' AND layer = 'project'),"     \
	" (SELECT count(*) FROM notes WHERE status = 'active' AND layer = 'team')"         \
	"  + (SELECT count(*) FROM note_cache WHERE layer = 'team'),"                      \
	" (SELECT count(*) FROM notes WHERE status = 'active' AND layer = 'org')"          \
	"  + (SELECT count(*) FROM note_cache WHERE layer = 'org')"

/* Bring a newly opened store's schema to CALLUS_STORE_SCHEMA_VERSION, in
 * one write transaction (store_schema.c); err as above, CALLUS_EINVAL for a
 * store newer than this callus.  Before foreign keys are turned on: a
 * migration may drop a table to rebuild it (SQLite's way to change a
 * column), which with the keys on would cascade to the rows naming it. */
int callus_store_migrate(callus_store *s, callus_error *err);

/* The migration from schema v to v + 1, NULL past the last (for
 * scripts/store_fresh.c and test_store). */
const char *callus_store_migration_sql(int v);
/* The script a new store is made with, and the schema version it makes
 * (src/store_fresh.inc); static. */
const char *callus_store_fresh_sql(int *version);
/* The store's schema as a script that makes it again: each object's SQL in
 * the order it was made, then every table's rows as INSERT statements,
 * appended to out.  0, CALLUS_ENOMEM or CALLUS_EIO. */
int callus_store_schema_dump(callus_store *s, callus_buf *out);

/* A signature's context patterns, of its row's ctx (schema 28; 0 for
 * none), as the JSON list the row once held: an SQL expression, ctx the
 * column as the query names it */
#define CALLUS_STORE_CONTEXT_OF(ctx)                                                      \
	"coalesce((SELECT c.patterns FROM contexts c WHERE c.ctx = " ctx "), '[]')"

/* The signature a note names, from a notes folder or a team store, when
 * the store has none: ?1 its id, ?2 error type, ?3 original (the note's
 * example), ?4 tool, ?5 the time, ?6 its sketch in decimal
 * (callus_store_noted_sketch); no pattern kept, its original makes it
 * (signature.h).  Needs sqlutil.h. */
#define CALLUS_STORE_INSERT_NOTED_SIGNATURE                                                 \
	"INSERT INTO signatures (id, error_type, message_pattern, original, tool, sketch,"    \
	" first_seen, last_seen) VALUES (?1, ?2, '', ?3, ?4, CAST(?6 AS INTEGER), "            \
	CALLUS_SQL_EPOCH("?5") ", " CALLUS_SQL_EPOCH("?5") ") ON CONFLICT DO NOTHING"

/* The sketch of a noted signature of original (no stack patterns) in
 * decimal, for CALLUS_STORE_INSERT_NOTED_SIGNATURE's ?6. */
#define CALLUS_STORE_SKETCH_DIGITS 24
void callus_store_noted_sketch(char out[CALLUS_STORE_SKETCH_DIGITS], const char *original);

/* A lesson holding a person's words: a cause, resolution or rule, which
 * only callus record and a note's rule write.  What no recording can make
 * again, so retention by age passes it over (gc.c). */
#define CALLUS_STORE_LESSON_HAS_WORDS "(cause <> '' OR resolution <> '' OR corrective_rule <> '')"

/* The lessons, least valuable first, as retention removes them and
 * callus doctor lists them (gc.c, store_lessons.c): one without a
 * person's words before one with them, then the fewest occurrences, then
 * the oldest last seen. */
#define CALLUS_STORE_LESSONS_BY_VALUE                                                       \
	" ORDER BY " CALLUS_STORE_LESSON_HAS_WORDS " ASC, occurrences ASC, last_seen ASC, id ASC"

/* Add m's rows to the metrics table, inside the caller's transaction
 * (store_metrics.c).  An SQLite result code. */
int callus_store_write_metrics(callus_store *s, const callus_metrics *m);

/* In a write transaction: the rows of spool_dir's metrics spool, taken
 * and written; *taken (NULL when none) is for spool_returned() once the
 * transaction is over.  SQLite's result. */
int callus_store_take_spool(callus_store *s, const char *spool_dir, callus_metrics **taken);

/* After it: with committed 0, taken goes back to the spool; freed. */
void callus_store_spool_returned(callus_metrics *taken, const char *spool_dir, int committed);


#endif
