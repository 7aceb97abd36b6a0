/*
 * store.h - the workspace store: SQLite at .callus/callus.db.
 *
 * WAL journal, a busy timeout so concurrent callus processes queue instead of
 * failing, every write in one IMMEDIATE transaction (a crash leaves the
 * store as it was before or after, never between), and a schema version
 * (PRAGMA user_version) with forward-only migrations applied at open.
 * The file is created private to the user (0600).
 */
#ifndef CALLUS_STORE_H
#define CALLUS_STORE_H

#include <stdint.h>

#include "callus/common.h"
#include "callus/extract.h"
#include "callus/lesson.h"
#include "callus/metrics.h"
#include "callus/signature.h"

typedef struct callus_store callus_store;

#define CALLUS_STORE_SCHEMA_VERSION 47

/*
 * For a program that uses stores from one thread only (the callus CLI):
 * SQLite's mutexes and its memory statistics off for the whole process.
 * Call it first, before anything else of SQLite or of this library;
 * afterwards it does nothing.  A library has no business setting this for
 * its caller, hence a call of its own.
 */
void callus_store_single_threaded(void);

/*
 * Open (creating if needed, with create_dirs permission for the parent
 * directory) the store at path, waiting at most timeout_ms for locks.
 */
int callus_store_open(callus_store **out, const char *path, int timeout_ms, callus_error *err);
void callus_store_close(callus_store *s); /* accepts NULL */
/* Whether s was opened to be read only: a store that cannot be written
 * where it is (a read-only file system, a folder this user may not
 * write), whose schema is current, is opened so, and every write to it
 * fails. */
int callus_store_read_only(const callus_store *s);

/* The schema version of an open store. */
int callus_store_schema_version(callus_store *s);

/* A value of the store's sync_state, the marks its passes keep (the team
 * sync's "last_sync", "instance", "watermark.team"; store_redact.h's):
 * *out NULL when unset, else the caller's.  Set one; a NULL value removes
 * it.  0, or a negative CALLUS_E* code with err set. */
int callus_store_state_get(callus_store *s, const char *key, char **out, callus_error *err);
int callus_store_state_set(callus_store *s, const char *key, const char *value,
			   callus_error *err);
/* value stored under key unless one is there already, and *out (the
 * caller's) the one that stands: of two processes making the same mark at
 * once, both read the first one's. */
int callus_store_state_claim(callus_store *s, const char *key, const char *value, char **out,
			     callus_error *err);

/* One execution of a check, recorded with the lesson it produced. */
typedef struct callus_run_info {
	const char *cwd;          /* workspace-relative directory it ran in */
	const char *intent_id;
	uint64_t output_bytes;
	const callus_diags *diags;  /* may be NULL; each names its signature */
	const callus_signature *sigs; /* the distinct signatures diags name
				     * (callus_signatures_for); may be NULL.
				     * A run is linked to a signature only
				     * through the diags' rows (run_errors) */
	size_t nsigs;
	callus_metrics *metrics;    /* may be NULL: written in the same transaction,
				   * and emptied once committed */
	const char *origin;         /* names the event this run records (a
				   * queued hook's entry), or NULL: a run
				   * whose origin is stored already records
				   * nothing (CALLUS_EEXIST), so an event
				   * delivered twice counts once */
	int learn_owed;             /* with origin: what the run fails is
				   * learnt after the commit, in a transaction
				   * of its own (callus_learn_opts.origin),
				   * and owed until then: a delivery again
				   * finds it so (callus_store_learn_owed) */
	const char *metrics_spool;  /* a .callus directory whose metrics spool
				   * (metrics.h) is taken once the write lock
				   * is held, written in the same transaction
				   * and put back when it does not commit;
				   * NULL: none */
	long long metrics_spool_by_ms; /* > 0: taken only before this time
				   * (callus_child_now_ms()): a hook cut
				   * between the take and its commit lost
				   * what the spool held (its deadline, less
				   * what a commit may need, leaves it for
				   * the next process) */
} callus_run_info;

/*
 * Record a lesson occurrence.  A lesson with the same signature gains an
 * occurrence (its first timestamp, analysis fields and intent stay); a new
 * one is inserted.  On return l->id, l->occurrences, l->timestamp and
 * l->last_seen hold the stored values, and *is_new (if not NULL) says
 * which case it was.  l->signature must be set (callus_lesson_sign).  The
 * run's error signatures are stored (or gain an occurrence) in the same
 * transaction, with the run they came from.  A run whose origin is stored
 * already changes nothing and fails with CALLUS_EEXIST.
 */
int callus_store_record_lesson(callus_store *s, callus_lesson *l, const callus_run_info *run,
			     int *is_new, callus_error *err);

/* 1 when the run of origin is stored and what it fails not yet learnt
 * (callus_run_info.learn_owed), 0 when not (or origin is NULL), or a
 * negative CALLUS_E* code with err set.  One read by the origin's index. */
int callus_store_learn_owed(callus_store *s, const char *origin, callus_error *err);

/* A stored run as an import compares a transcript's with it: its session
 * and command as stored (redacted), and when it ran, in seconds since the
 * epoch. */
typedef struct callus_run_seen {
	char *session, *command;
	int64_t at;
} callus_run_seen;

/*
 * Every stored run that names a session and whose origin does not begin
 * with skip (NULL: every such run) into *out, sorted by session, command
 * (bytewise, as strcmp) and time; *n of them.  Release with
 * callus_runs_seen_free().  In *gone_before (when given; the caller's,
 * NULL when none), the time before which runs may be gone (the store's
 * text format): each `callus gc` that removes runs moves it up to the age
 * it removed them from (gc.h), in the same transaction; a run older than
 * that is no longer there to say whether a hook or an import stored its
 * failure.  Both of one moment (a read transaction of its own, unless the
 * caller is in one): a gc between two reads left the runs of one and the
 * time of the other.  0, or a negative CALLUS_E* code with err set.
 * Reads every run: what callus import asks once a workspace, to tell the
 * failures a hook recorded when they ran from those it missed.
 */
int callus_store_runs_seen(callus_store *s, const char *skip, callus_run_seen **out, size_t *n,
			   char **gone_before, callus_error *err);
void callus_runs_seen_free(callus_run_seen *r, size_t n); /* accepts NULL */

/*
 * When no lesson is stored under l->signature and one is under former (the
 * signature an earlier callus gave it: callus_lesson_sign_former), l takes
 * former, so that the lesson stored then gains the occurrence.  A read,
 * before the recording's views are owed (views.h): two recordings of one
 * failure racing past it store one lesson each, nothing lost.  0, or a
 * negative CALLUS_E* code with err set.
 */
int callus_store_lesson_known_as(callus_store *s, callus_lesson *l, const char *former,
				 callus_error *err);

typedef struct callus_lesson_filter {
	const char *type;  /* "LINT", ... or NULL */
	const char *file;  /* exact workspace-relative file or NULL */
	const char *tool;  /* or NULL */
	int limit;         /* 0: no limit */
	int64_t except;    /* a lesson left out, by its id; 0: none */
	int brief;         /* 1: the affected files not read (none listed):
			    * what a view or a reply shows */
} callus_lesson_filter;

/* Lessons, newest (last seen) first.  *out is an array the caller frees
 * with callus_lessons_free(*out, *count). */
int callus_store_list_lessons(callus_store *s, const callus_lesson_filter *f, callus_lesson **out,
			    size_t *count, callus_error *err);

/* One lesson by id, or by signature prefix (at least 6 hex digits) when
 * key is not a number.  CALLUS_ENOTFOUND when none matches, CALLUS_EINVAL when
 * the prefix is ambiguous.  out is released by the caller. */
int callus_store_get_lesson(callus_store *s, const char *key, callus_lesson *out, callus_error *err);

void callus_lessons_free(callus_lesson *ls, size_t count);

/* As callus_store_list_lessons(), lowest value first: one without a
 * person's words (a cause, resolution or rule) before one with them, then
 * fewest occurrences, then oldest last seen: the candidates for a
 * cleanup, in the order
 * retention ([retention] lessons, gc.h) removes them.  The newest lesson,
 * which retention keeps (its number is never given to another), is not
 * one of them. */
int callus_store_list_lowest_value(callus_store *s, const callus_lesson_filter *f, callus_lesson **out,
				 size_t *count, callus_error *err);

/*
 * Add m to the store's metrics (counters and histograms add, gauges
 * replace) in one transaction, and empty m once committed.  The store
 * keeps m's rows as they are (see callus_metrics_each_row).
 */
int callus_store_flush_metrics(callus_store *s, callus_metrics *m, callus_error *err);

/* The same, and the metrics spool of spool_dir (a .callus directory) with
 * them, taken once the write lock is held: a process killed while it
 * waits for a busy store (a hook's deadline) has taken nothing yet.  The
 * spool's rows go back when the transaction does not commit; m's are the
 * caller's, as above. */
int callus_store_flush_metrics_spool(callus_store *s, callus_metrics *m, const char *spool_dir,
				   callus_error *err);

/* Add the stored metrics to m, with the gauges computed from the store's
 * contents (hindsight.storage.count). */
int callus_store_read_metrics(callus_store *s, callus_metrics *m, callus_error *err);

/*
 * For callus doctor: open an existing store as it is: nothing is created,
 * no migration runs, a newer schema is not refused, and a file that is not
 * a database opens (the first query says so).  Only the functions below
 * and callus_store_schema_version() apply to it, and list_lessons when the
 * schema is between 1 and CALLUS_STORE_SCHEMA_VERSION.
 */
int callus_store_open_existing(callus_store **out, const char *path, int timeout_ms,
			     callus_error *err);

/* What callus doctor reports of a store. */
typedef struct callus_store_stats {
	int schema_version;
	int64_t lessons;
	int64_t runs;
	uint64_t db_bytes;   /* pages in use and free, as SQLite counts them */
	uint64_t free_bytes; /* free pages (VACUUM would give them back) */
} callus_store_stats;

/* Schema version, counts and sizes.  The counts are -1 when the schema is
 * not one this callus knows. */
int callus_store_stats_get(callus_store *s, callus_store_stats *out, callus_error *err);

/* What `callus status` shows, kept by the store's triggers (schema 13) so
 * that reading it is one row, whatever the store holds. */
typedef struct callus_store_totals {
	int64_t lessons, runs, checks, signatures;
	int64_t pending, fixed, permanent;            /* errors by state */
	int64_t resolutions, applications, successes; /* applications summed */
	int64_t notes[4]; /* active, per callus_layer (notes.h), the cached included */
} callus_store_totals;

/* Read them; a store of an older schema (doctor's, not migrated) counts its
 * rows instead. */
int callus_store_totals_get(callus_store *s, callus_store_totals *out, callus_error *err);

/*
 * Whether the totals `callus status` shows, kept by the store's triggers,
 * are what counting the rows gives (*drifted = 0), and with fix, count them
 * again when not: the totals row, and each model's vectors and those of
 * linked signatures (schema 41).  Nothing callus does makes them drift; an
 * edit by hand can.  A store of an older schema has none: *drifted = 0.
 */
int callus_store_totals_check(callus_store *s, int fix, int *drifted, callus_error *err);

/*
 * PRAGMA integrity_check (quick: quick_check, which skips the index
 * contents).  *problems is NULL when the store is sound, else the first
 * problems SQLite found, one a line (caller frees).  An error (the file is
 * not a database at all) comes back as CALLUS_EIO with the message.
 */
int callus_store_integrity(callus_store *s, int quick, char **problems, callus_error *err);

#endif
