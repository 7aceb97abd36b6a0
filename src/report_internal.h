/*
 * report_internal.h - what the pieces of the report share: the period it
 * covers, the store it reads, and small helpers for statements and HTML.
 * report.c writes the page and its first sections, report_sections.c the
 * lists, report_svg.c the escaping and the charts.  The sections read the
 * periods' errors from temp.report_errors (report.c: errors_table()),
 * pending_errors' columns with the check's tool, whether the error had a
 * suggestion, and its first and closing days as day numbers.
 */
#ifndef CALLUS_REPORT_INTERNAL_H
#define CALLUS_REPORT_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <time.h>

#include "callus/notes.h"
#include "callus/report.h"

typedef struct report_ctx {
	callus_store *store; /* NULL: no store yet */
	sqlite3 *db;
	callus_buf *out;
	const char *from, *to; /* the period, as stored times compare: from
				* "YYYY-MM-DD" (or "" for everything), to an
				* instant */
	char *prev_from;       /* the previous period, [prev_from, from);
				* NULL when there is none */
	const char *layer;     /* the notes' layer, "" for all */
	int layer_value;       /* a callus_layer, or -1 */
	time_t from_day;       /* the period's first day, midnight UTC */
	int bucket_days;       /* a chart's bar spans this many days */
	size_t nbuckets;
	callus_note *notes; /* the notes listed (best first) */
	size_t nnotes;
	int sq; /* the first SQLite failure, SQLITE_OK if none */
} report_ctx;

/* Prepare sql with the named parameters it uses bound: :from, :to,
 * :prev (the previous period's start), :lo (the earlier of the two
 * starts), :layer, :day0 (the first day, YYYY-MM-DD), :bucket (days a bar
 * spans).  NULL after recording the failure in ctx->sq. */
sqlite3_stmt *callus_report_prepare(report_ctx *c, const char *sql);

/* Step st; SQLITE_ROW, or SQLITE_DONE (a failure is recorded). */
int callus_report_step(report_ctx *c, sqlite3_stmt *st);

/* One integer a statement selects (0 on failure or no row). */
int64_t callus_report_int(report_ctx *c, const char *sql);

/* Escaped column i of st (text), cut at max bytes. */
void callus_report_col(report_ctx *c, sqlite3_stmt *st, int i, size_t max);

/* The note with this id among those listed, or NULL. */
const callus_note *callus_report_listed_note(const report_ctx *c, const char *id);

/* Up to max lines of a diff, each a <span> coloured as added or removed. */
void callus_report_diff(report_ctx *c, const char *diff, size_t max_lines);

/* The sections after the charts. */
void callus_report_recurring(report_ctx *c);
void callus_report_hotspots(report_ctx *c);
void callus_report_permanent(report_ctx *c);
void callus_report_proposals(report_ctx *c);
void callus_report_notes(report_ctx *c);

#endif
