/*
 * store.h - the workspace store: SQLite at .deja/deja.db.
 *
 * WAL journal, a busy timeout so concurrent deja processes queue instead of
 * failing, every write in one IMMEDIATE transaction (a crash leaves the
 * store as it was before or after, never between), and a schema version
 * (PRAGMA user_version) with forward-only migrations applied at open.
 * The file is created private to the user (0600).
 */
#ifndef DEJA_STORE_H
#define DEJA_STORE_H

#include <stdint.h>

#include "deja/common.h"
#include "deja/extract.h"
#include "deja/lesson.h"
#include "deja/metrics.h"
#include "deja/signature.h"

typedef struct deja_store deja_store;

#define DEJA_STORE_SCHEMA_VERSION 5

/*
 * Open (creating if needed, with create_dirs permission for the parent
 * directory) the store at path, waiting at most timeout_ms for locks.
 */
int deja_store_open(deja_store **out, const char *path, int timeout_ms, deja_error *err);
void deja_store_close(deja_store *s); /* accepts NULL */

/* The schema version of an open store. */
int deja_store_schema_version(deja_store *s);

/* One execution of a check, recorded with the lesson it produced. */
typedef struct deja_run_info {
	const char *cwd;          /* workspace-relative directory it ran in */
	const char *intent_id;
	uint64_t output_bytes;
	const deja_diags *diags;  /* may be NULL; each names its signature */
	const deja_signature *sigs; /* the run's distinct signatures; may be NULL */
	size_t nsigs;
	deja_metrics *metrics;    /* may be NULL: written in the same transaction,
				   * and emptied once committed */
} deja_run_info;

/*
 * Record a lesson occurrence.  A lesson with the same signature gains an
 * occurrence (its first timestamp, analysis fields and intent stay); a new
 * one is inserted.  On return l->id, l->occurrences, l->timestamp and
 * l->last_seen hold the stored values, and *is_new (if not NULL) says
 * which case it was.  l->signature must be set (deja_lesson_sign).  The
 * run's error signatures are stored (or gain an occurrence) in the same
 * transaction, with the run they came from.
 */
int deja_store_record_lesson(deja_store *s, deja_lesson *l, const deja_run_info *run,
			     int *is_new, deja_error *err);

typedef struct deja_lesson_filter {
	const char *type;  /* "LINT", ... or NULL */
	const char *file;  /* exact workspace-relative file or NULL */
	const char *tool;  /* or NULL */
	int limit;         /* 0: no limit */
} deja_lesson_filter;

/* Lessons, newest (last seen) first.  *out is an array the caller frees
 * with deja_lessons_free(*out, *count). */
int deja_store_list_lessons(deja_store *s, const deja_lesson_filter *f, deja_lesson **out,
			    size_t *count, deja_error *err);

/* One lesson by id, or by signature prefix (at least 6 hex digits) when
 * key is not a number.  DEJA_ENOTFOUND when none matches, DEJA_EINVAL when
 * the prefix is ambiguous.  out is released by the caller. */
int deja_store_get_lesson(deja_store *s, const char *key, deja_lesson *out, deja_error *err);

void deja_lessons_free(deja_lesson *ls, size_t count);

/* As deja_store_list_lessons(), lowest value first: fewest occurrences,
 * then oldest last seen (the candidates for a cleanup). */
int deja_store_list_lowest_value(deja_store *s, const deja_lesson_filter *f, deja_lesson **out,
				 size_t *count, deja_error *err);

/* Every lesson of a workspace store is in the project layer; the other
 * layers of spec 004 (user, global) are not built. */
#define DEJA_LAYER_PROJECT "project"

/*
 * Add m to the store's metrics (counters and histograms add, gauges
 * replace) in one transaction, and empty m once committed.  The store
 * keeps m's rows as they are (see deja_metrics_each_row).
 */
int deja_store_flush_metrics(deja_store *s, deja_metrics *m, deja_error *err);

/* Add the stored metrics to m, with the gauges computed from the store's
 * contents (hindsight.storage.count). */
int deja_store_read_metrics(deja_store *s, deja_metrics *m, deja_error *err);

/*
 * For deja doctor: open an existing store as it is: nothing is created,
 * no migration runs, a newer schema is not refused, and a file that is not
 * a database opens (the first query says so).  Only the functions below
 * and deja_store_schema_version() apply to it, and list_lessons when the
 * schema is between 1 and DEJA_STORE_SCHEMA_VERSION.
 */
int deja_store_open_existing(deja_store **out, const char *path, int timeout_ms,
			     deja_error *err);

/* What deja doctor reports of a store. */
typedef struct deja_store_stats {
	int schema_version;
	int64_t lessons;
	int64_t runs;
	uint64_t db_bytes;   /* pages in use and free, as SQLite counts them */
	uint64_t free_bytes; /* free pages (VACUUM would give them back) */
} deja_store_stats;

/* Schema version, counts and sizes.  The counts are -1 when the schema is
 * not one this deja knows. */
int deja_store_stats_get(deja_store *s, deja_store_stats *out, deja_error *err);

/*
 * PRAGMA integrity_check (quick: quick_check, which skips the index
 * contents).  *problems is NULL when the store is sound, else the first
 * problems SQLite found, one a line (caller frees).  An error (the file is
 * not a database at all) comes back as DEJA_EIO with the message.
 */
int deja_store_integrity(deja_store *s, int quick, char **problems, deja_error *err);

#endif
