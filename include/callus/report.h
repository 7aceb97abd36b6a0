/*
 * report.h - `callus report`: one self-contained HTML page of what a
 * workspace has learnt (DESIGN §1): the overview of a period against the
 * period before it, failures and fixes over time, the recurring errors
 * with the notes and fixes that resolved them, hot spots, permanent
 * failures and notes.
 *
 * The page carries its own CSS and its charts as inline SVG drawn here: no
 * script, no font, no image, nothing fetched, so that it opens from disk,
 * can be attached to a CI run, and cannot leak what it shows.  Everything
 * that came from a tool's output is escaped (callus_report_escape), in
 * the HTML and in the SVG alike.  Every list is cut at a few rows and
 * every text at a few hundred bytes, so the page stays small whatever the
 * store holds; it reads only what the store keeps, which was redacted
 * before it was stored.
 *
 * Ownership: the functions append to the caller's buffer; nothing else is
 * returned.
 */
#ifndef CALLUS_REPORT_H
#define CALLUS_REPORT_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/store.h"

#define CALLUS_REPORT_DAYS 30	 /* the period when none is given */
#define CALLUS_REPORT_TOP 10	 /* rows of each list */
#define CALLUS_REPORT_BUCKETS 62 /* bars of a chart at most */

/* What to report.  Borrowed strings. */
typedef struct callus_report_opts {
	const char *since;     /* "YYYY-MM-DD" (UTC): the period starts that day;
				* "all": everything, with no previous period;
				* NULL: the last CALLUS_REPORT_DAYS days */
	const char *now;       /* the period's end, callus_now_iso8601()'s
				* format; NULL: now (tests pin it) */
	int layer;	       /* notes of this callus_layer only; -1: all */
	const char *workspace; /* shown in the heading; NULL: none */
} callus_report_opts;

/*
 * Append the page to out.  s may be NULL (no store yet): the page says
 * nothing was recorded.  CALLUS_EINVAL for a since that is not a date
 * (err says so), a store error's code, or CALLUS_ENOMEM.
 */
int callus_report_write(callus_store *s, const callus_report_opts *o, callus_buf *out,
			callus_error *err);

/*
 * Append s[0..len) as text for HTML or SVG: & < > " ' as references,
 * invalid UTF-8 as U+FFFD, control characters other than tab and newline
 * as U+FFFD too (XML has no way to write them).  0 or CALLUS_ENOMEM.
 */
int callus_report_escape(callus_buf *out, const char *s, size_t len);

/* The same, cut to at most max bytes of s at a character boundary, with
 * "..." when cut. */
int callus_report_escape_cut(callus_buf *out, const char *s, size_t max);

/* One series of a chart: values[i] for labels[i]; a negative value is no
 * data (a gap in a line). */
typedef struct callus_chart_series {
	const char *name;
	const double *values;
} callus_chart_series;

typedef enum callus_chart_kind {
	CALLUS_CHART_BARS, /* the series stacked */
	CALLUS_CHART_LINES
} callus_chart_kind;

typedef struct callus_chart {
	callus_chart_kind kind;
	const char *title;	   /* the figure's accessible name */
	const char *const *labels; /* n labels along x */
	size_t n;
	const callus_chart_series *series;
	size_t nseries; /* at most 8 are drawn (8 colours) */
	int percent;	/* the y axis is 0..100 % */
} callus_chart;

/*
 * Append a <figure> holding the title, the chart as inline SVG (scaled to
 * the width it is given, colours from the page's CSS classes c0..c7) and
 * its legend.
 * 0 or CALLUS_ENOMEM.
 */
int callus_report_chart(callus_buf *out, const callus_chart *c);

#endif
