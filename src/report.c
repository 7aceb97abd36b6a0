/*
 * report.c - the report's page: its head and style, the period it covers,
 * the overview against the previous period, and the charts over time.
 * The lists are in report_sections.c, the SVG in report_svg.c.
 *
 * Every figure is one bounded SQL statement over the store (an aggregate,
 * or the first rows of an ordered query), so the page costs the same
 * whatever the store holds apart from a scan of the period's errors.
 */
#include "callus/report.h"
#include "callus/lesson.h"
#include "callus/notes.h"
#include "report_internal.h"
#include "store_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOLS_MAX 5 /* a chart's tools; the rest are "other" */

/* Light and dark: the same names, two sets of colours.  Text wraps
 * anywhere rather than widening the page; a chart takes the width it is
 * given. */
static const char style[] =
    ":root{--bg:#fbfbf8;--fg:#1d2125;--mute:#5b6570;--card:#fff;--line:#dfe2e6;"
    "--good:#1a7f37;--bad:#c0392b;--add:#e6f6ea;--del:#fbe9e7;--addf:#125c2a;--delf:#"
    "8a1c12;"
    "--c0:#3b6fd8;--c1:#e0812b;--c2:#2e9e6b;--c3:#b04fc4;--c4:#c9a227;--c5:#7b8794;--c6:#"
    "d6455d;--c7:#2ab0c5}"
    "@media (prefers-color-scheme:dark){:root{--bg:#15181c;--fg:#e4e7eb;--mute:#9aa4ae;"
    "--card:#1e2227;--line:#333a42;--good:#56d37e;--bad:#ff7b6b;--add:#16321f;--del:#"
    "3a1d1a;"
    "--addf:#a5e8b7;--delf:#ffb3a8;--c0:#79a0ff;--c1:#ffa657;--c2:#56d3a0;--c3:#d2a8ff;"
    "--c4:#e3c35a;--c5:#a3adb8;--c6:#ff7b90;--c7:#6fd8e8}}"
    "*{box-sizing:border-box}"
    "html{-webkit-text-size-adjust:100%}"
    "body{margin:0;background:var(--bg);color:var(--fg);"
    "font:15px/1.5 system-ui,-apple-system,'Segoe "
    "UI',Roboto,sans-serif;overflow-wrap:anywhere}"
    "header,main,footer{max-width:1120px;margin:0 auto;padding:0 16px}"
    "header{padding-top:20px}"
    "h1{font-size:1.6em;margin:0 0 4px}h2{font-size:1.25em;margin:32px 0 12px;"
    "border-bottom:1px solid var(--line);padding-bottom:4px}h3{font-size:1em;margin:0 0 "
    "6px}"
    "a{color:var(--c0)}nav a{margin-right:12px;white-space:nowrap}nav{line-height:2}"
    ".mute,.meta{color:var(--mute)}.meta{font-size:.9em}"
    ".cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:"
    "10px}"
    ".card{background:var(--card);border:1px solid "
    "var(--line);border-radius:8px;padding:10px 12px;min-width:0}"
    ".card .v{font-size:1.6em;font-weight:600}.card .d{font-size:.85em;color:var(--mute)}"
    ".good{color:var(--good)}.bad{color:var(--bad)}"
    ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,460px),"
    "1fr));gap:10px}"
    "figure{margin:0;background:var(--card);border:1px solid "
    "var(--line);border-radius:8px;padding:8px;min-width:0}"
    "figure h3{margin:2px 4px 6px;font-size:.95em}"
    "svg{display:block;width:100%;height:auto}"
    "svg text{fill:var(--mute);font-size:15px}"
    "svg .grid{stroke:var(--line);stroke-width:1}"
    "svg polyline{fill:none;stroke-width:2.5}"
    "figcaption{font-size:.85em;color:var(--mute);padding:4px}"
    ".key{white-space:nowrap;margin-right:10px}.key "
    "i{display:inline-block;width:10px;height:10px;"
    "border-radius:2px;margin-right:4px;vertical-align:-1px}"
    ".c0,.k0{fill:var(--c0);background:var(--c0)}.c1,.k1{fill:var(--c1);background:var(--"
    "c1)}"
    ".c2,.k2{fill:var(--c2);background:var(--c2)}.c3,.k3{fill:var(--c3);background:var(--"
    "c3)}"
    ".c4,.k4{fill:var(--c4);background:var(--c4)}.c5,.k5{fill:var(--c5);background:var(--"
    "c5)}"
    ".c6,.k6{fill:var(--c6);background:var(--c6)}.c7,.k7{fill:var(--c7);background:var(--"
    "c7)}"
    ".l0{stroke:var(--c0)}.l1{stroke:var(--c1)}.l2{stroke:var(--c2)}.l3{stroke:var(--c3)}"
    ".l4{stroke:var(--c4)}.l5{stroke:var(--c5)}.l6{stroke:var(--c6)}.l7{stroke:var(--c7)}"
    ".errs{display:grid;gap:10px}"
    "code,pre{font:13px/1.45 ui-monospace,'SFMono-Regular',Menlo,Consolas,monospace}"
    "pre{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0;padding:6px 8px;"
    "background:var(--bg);border:1px solid var(--line);border-radius:6px}"
    "pre .add{display:block;background:var(--add);color:var(--addf)}"
    "pre .del{display:block;background:var(--del);color:var(--delf)}"
    ".hot{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,300px),1fr))"
    ";gap:10px}"
    "ol.bars{list-style:none;margin:0;padding:0}"
    "ol.bars li{position:relative;display:flex;gap:8px;padding:3px 6px;margin:2px 0}"
    "ol.bars "
    ".bar{position:absolute;left:0;top:0;bottom:0;background:var(--c0);opacity:.16;"
    "border-radius:4px}"
    "ol.bars .lbl{flex:1;min-width:0;position:relative}ol.bars "
    ".n{position:relative;font-variant-numeric:tabular-nums}"
    "ul.plain{margin:4px 0;padding-left:20px}"
    "details summary{cursor:pointer;color:var(--mute)}"
    "footer{padding:24px 16px 32px;color:var(--mute);font-size:.85em}";

/* ---- statements ---- */

static void day_text(char *b, size_t n, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	if (!strftime(b, n, "%Y-%m-%d", &tm))
		*b = 0;
}

static void bind(sqlite3_stmt *st, const char *name, const char *v)
{
	int i = sqlite3_bind_parameter_index(st, name);

	if (i > 0)
		sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

sqlite3_stmt *callus_report_prepare(report_ctx *c, const char *sql)
{
	sqlite3_stmt *st = NULL;
	char day0[32];
	int sq;

	if (!c->db || c->sq != SQLITE_OK)
		return NULL;
	if ((sq = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL)) != SQLITE_OK) {
		c->sq = sq;
		return NULL;
	}
	day_text(day0, sizeof(day0), c->from_day);
	bind(st, ":from", c->from);
	bind(st, ":to", c->to);
	bind(st, ":prev", c->prev_from);
	bind(st, ":lo", c->prev_from ? c->prev_from : c->from);
	bind(st, ":layer", c->layer);
	bind(st, ":day0", day0);
	if ((sq = sqlite3_bind_parameter_index(st, ":bucket")) > 0)
		sqlite3_bind_int(st, sq, c->bucket_days);
	return st;
}

int callus_report_step(report_ctx *c, sqlite3_stmt *st)
{
	int sq;

	if (!st)
		return SQLITE_DONE;
	sq = sqlite3_step(st);
	if (sq == SQLITE_ROW || sq == SQLITE_DONE)
		return sq;
	if (c->sq == SQLITE_OK)
		c->sq = sq;
	return SQLITE_DONE;
}

int64_t callus_report_int(report_ctx *c, const char *sql)
{
	sqlite3_stmt *st = callus_report_prepare(c, sql);
	int64_t v = 0;

	if (callus_report_step(c, st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

void callus_report_col(report_ctx *c, sqlite3_stmt *st, int i, size_t max)
{
	const char *t = (const char *)sqlite3_column_text(st, i);

	callus_report_escape_cut(c->out, t ? t : "", max);
}

const callus_note *callus_report_listed_note(const report_ctx *c, const char *id)
{
	for (size_t i = 0; i < c->nnotes; i++)
		if (!strcmp(c->notes[i].id, id))
			return &c->notes[i];
	return NULL;
}

/* ---- the overview ---- */

typedef struct figures {
	int64_t runs, errors, suggested, fixed, permanent, notes, sug_ok, sug_all;
	double fix_secs, attempts; /* medians; < 0: none */
} figures;

/* The lower median of expr over the errors fixed in [lo, hi). */
static double median(report_ctx *c, const char *expr, int64_t n, const char *lo,
		     const char *hi)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st;
	double v = -1;

	if (n <= 0)
		return -1;
	callus_buf_printf(
	    &sql,
	    "SELECT %s AS v FROM temp.report_errors WHERE state = 'fixed'"
	    " AND closed_at >= %s AND closed_at < %s ORDER BY v LIMIT 1 OFFSET %lld",
	    expr, lo, hi, (long long)((n - 1) / 2));
	if (callus_buf_status(&sql) == 0 && (st = callus_report_prepare(c, sql.ptr))) {
		if (callus_report_step(c, st) == SQLITE_ROW)
			v = sqlite3_column_double(st, 0);
		sqlite3_finalize(st);
	}
	callus_buf_release(&sql);
	return v;
}

/* The figures of [lo, hi): lo and hi name parameters (":from", ":to"). */
static void figures_get(report_ctx *c, figures *f, const char *lo, const char *hi)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st;

	memset(f, 0, sizeof(*f));
	f->fix_secs = f->attempts = -1;
	callus_buf_printf(
	    &sql,
	    "SELECT (SELECT count(*) FROM temp.report_errors WHERE first_failure_at >= "
	    "%1$s"
	    "   AND first_failure_at < %2$s),"
	    " (SELECT count(*) FROM temp.report_errors WHERE first_failure_at >= %1$s"
	    "   AND first_failure_at < %2$s AND suggested),"
	    " (SELECT count(*) FROM temp.report_errors WHERE state = 'fixed'"
	    "   AND closed_at >= %1$s AND closed_at < %2$s),"
	    " (SELECT count(*) FROM temp.report_errors WHERE state = 'permanent'"
	    "   AND closed_at >= %1$s AND closed_at < %2$s),"
	    " (SELECT count(*) FROM notes WHERE status = 'active' AND created_at >= %1$s"
	    "   AND created_at < %2$s AND (:layer = '' OR layer = :layer)),"
	    " (SELECT count(*) FROM suggestions WHERE outcome = 'success'"
	    "   AND outcome_at >= %1$s AND outcome_at < %2$s),"
	    " (SELECT count(*) FROM suggestions WHERE outcome IS NOT NULL"
	    "   AND outcome_at >= %1$s AND outcome_at < %2$s)",
	    lo, hi);
	if (callus_buf_status(&sql) == 0 && (st = callus_report_prepare(c, sql.ptr))) {
		if (callus_report_step(c, st) == SQLITE_ROW) {
			/* runs: overview(), both periods in one scan */
			f->errors = sqlite3_column_int64(st, 0);
			f->suggested = sqlite3_column_int64(st, 1);
			f->fixed = sqlite3_column_int64(st, 2);
			f->permanent = sqlite3_column_int64(st, 3);
			f->notes = sqlite3_column_int64(st, 4);
			f->sug_ok = sqlite3_column_int64(st, 5);
			f->sug_all = sqlite3_column_int64(st, 6);
		}
		sqlite3_finalize(st);
	}
	callus_buf_release(&sql);
	f->fix_secs =
	    median(c, "(julianday(closed_at) - julianday(first_failure_at)) * 86400.0",
		   f->fixed, lo, hi);
	f->attempts = median(c, "attempts", f->fixed, lo, hi);
}

static void duration(callus_buf *b, double s)
{
	if (s < 0)
		callus_buf_puts(b, "&#8211;");
	else if (s < 90)
		callus_buf_printf(b, "%.0f s", s);
	else if (s < 90 * 60)
		callus_buf_printf(b, "%.0f min", s / 60);
	else if (s < 36 * 3600)
		callus_buf_printf(b, "%.1f h", s / 3600);
	else
		callus_buf_printf(b, "%.1f days", s / 86400);
}

static double rate(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : -1;
}

enum { LOWER_IS_BETTER = -1, NEUTRAL = 0, HIGHER_IS_BETTER = 1 };
enum { COUNT, PERCENT, SECONDS, NUMBER };

/* One card: its figure, and how it moved since the previous period. */
static void card(report_ctx *c, const char *label, int kind, double v, double prev,
		 int better, const char *note)
{
	callus_buf *o = c->out;

	callus_buf_printf(
	    o, "<div class=\"card\"><div class=\"meta\">%s</div><div class=\"v\">",
	    label);
	if (kind == SECONDS)
		duration(o, v);
	else if (v < 0)
		callus_buf_puts(o, "&#8211;");
	else if (kind == PERCENT)
		callus_buf_printf(o, "%.0f%%", v);
	else if (kind == NUMBER)
		callus_buf_printf(o, "%.1f", v);
	else
		callus_buf_printf(o, "%.0f", v);
	callus_buf_puts(o, "</div>");
	if (c->prev_from && v >= 0 && prev >= 0 && better != NEUTRAL) {
		double d = v - prev;
		/* a change that rounds away on the card is none */
		double least = kind == NUMBER	 ? 0.05
			       : kind == SECONDS ? 0.05 * prev
						 : 0.5;
		int same = fabs(d) < least || fabs(d) < 1e-9;
		const char *cls = same ? "" : (d > 0) == (better > 0) ? "good" : "bad";

		callus_buf_printf(o, "<div class=\"d %s\">", cls);
		if (same)
			callus_buf_puts(o, "same as before");
		else if (kind == PERCENT)
			callus_buf_printf(o, "%s%.0f pts (was %.0f%%)",
					  d > 0 ? "+" : "&#8722;", fabs(d), prev);
		else if (kind == SECONDS) {
			callus_buf_puts(o, d > 0 ? "slower (was " : "faster (was ");
			duration(o, prev);
			callus_buf_puts(o, ")");
		} else if (kind == NUMBER)
			callus_buf_printf(o, "%s%.1f (was %.1f)", d > 0 ? "+" : "&#8722;",
					  fabs(d), prev);
		else
			callus_buf_printf(o, "%s%.0f (was %.0f)", d > 0 ? "+" : "&#8722;",
					  fabs(d), prev);
		callus_buf_puts(o, "</div>");
	} else if (c->prev_from && better != NEUTRAL) {
		callus_buf_puts(o, "<div class=\"d\">none before</div>");
	}
	if (note)
		callus_buf_printf(o, "<div class=\"d\">%s</div>", note);
	callus_buf_puts(o, "</div>\n");
}

static void overview(report_ctx *c)
{
	figures f, p;
	int64_t pending, permanent_all, notes_all;
	callus_buf t = CALLUS_BUF_INIT;

	figures_get(c, &f, ":from", ":to");
	if (c->prev_from)
		figures_get(c, &p, ":prev", ":from");
	else
		memset(&p, 0, sizeof(p));
	/* runs has no index on its time: both periods in one scan */
	{
		sqlite3_stmt *st =
		    callus_report_prepare(c, "SELECT sum(at >= :from AND at < :to), "
					     "sum(at >= :prev AND at < :from)"
					     " FROM runs WHERE at >= :lo");

		if (callus_report_step(c, st) == SQLITE_ROW) {
			f.runs = sqlite3_column_int64(st, 0);
			p.runs = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	pending = callus_report_int(
	    c, "SELECT count(*) FROM pending_errors WHERE state = 'pending'");
	permanent_all = callus_report_int(
	    c, "SELECT count(*) FROM pending_errors WHERE state = 'permanent'");
	notes_all =
	    callus_report_int(c, "SELECT count(*) FROM notes WHERE status = 'active'"
				 " AND (:layer = '' OR layer = :layer)");
	callus_buf_puts(c->out, "<div class=\"cards\">\n");
	callus_buf_printf(&t, "in %lld failed run%s", (long long)f.runs,
			  f.runs == 1 ? "" : "s");
	card(c, "errors recorded", COUNT, (double)f.errors, (double)p.errors,
	     LOWER_IS_BETTER, t.ptr);
	card(c, "errors fixed", COUNT, (double)f.fixed, (double)p.fixed, HIGHER_IS_BETTER,
	     NULL);
	callus_buf_clear(&t);
	callus_buf_printf(&t, "of %lld errors closed",
			  (long long)(f.fixed + f.permanent));
	card(c, "fix rate", PERCENT, rate(f.fixed, f.fixed + f.permanent),
	     rate(p.fixed, p.fixed + p.permanent), HIGHER_IS_BETTER, t.ptr);
	card(c, "median time to fix", SECONDS, f.fix_secs, p.fix_secs, LOWER_IS_BETTER,
	     NULL);
	card(c, "median attempts to fix", COUNT, f.attempts, p.attempts, LOWER_IS_BETTER,
	     NULL);
	callus_buf_clear(&t);
	callus_buf_printf(&t, "%lld in all", (long long)permanent_all);
	card(c, "permanent failures", COUNT, (double)f.permanent, (double)p.permanent,
	     LOWER_IS_BETTER, t.ptr);
	card(c, "pending now", COUNT, (double)pending, -1, NEUTRAL, "waiting for a fix");
	callus_buf_clear(&t);
	callus_buf_printf(&t, "%lld active%s%s", (long long)notes_all,
			  *c->layer ? " in layer " : "", c->layer);
	card(c, "notes made", COUNT, (double)f.notes, (double)p.notes, HIGHER_IS_BETTER,
	     t.ptr);
	callus_buf_clear(&t);
	callus_buf_printf(&t, "%lld of %lld errors", (long long)f.suggested,
			  (long long)f.errors);
	card(c, "had a suggestion", PERCENT, rate(f.suggested, f.errors),
	     rate(p.suggested, p.errors), HIGHER_IS_BETTER, t.ptr);
	callus_buf_clear(&t);
	callus_buf_printf(&t, "%lld of %lld suggestions", (long long)f.sug_ok,
			  (long long)f.sug_all);
	card(c, "suggestions that worked", PERCENT, rate(f.sug_ok, f.sug_all),
	     rate(p.sug_ok, p.sug_all), HIGHER_IS_BETTER, t.ptr);
	callus_buf_puts(c->out, "</div>\n");
	callus_buf_release(&t);
}

/* ---- over time ---- */

typedef struct series_set {
	char *names[TOOLS_MAX + 1];
	double *v[TOOLS_MAX + 1];
	size_t n;
} series_set;

static void series_release(series_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->names[i]);
		free(s->v[i]);
	}
	s->n = 0;
}

static int series_add(series_set *s, const char *name, size_t nbuckets, double fill)
{
	if (s->n > TOOLS_MAX)
		return -1;
	s->names[s->n] = strdup(name);
	s->v[s->n] = malloc(nbuckets * sizeof(double));
	if (!s->names[s->n] || !s->v[s->n]) {
		free(s->names[s->n]);
		free(s->v[s->n]);
		return -1;
	}
	for (size_t i = 0; i < nbuckets; i++)
		s->v[s->n][i] = fill;
	return (int)s->n++;
}

#define BUCKET(col)                                                                      \
	"CAST((julianday(substr(" col                                                    \
	", 1, 10)) - julianday(:day0)) AS INTEGER) / :bucket"
/* The same on the temporary table's day numbers (errors_table()). */
#define DAY_BUCKET(col) "(" col " - CAST(julianday(:day0) AS INTEGER)) / :bucket"

static void chart(report_ctx *c, const char *title, callus_chart_kind kind, int percent,
		  char **labels, series_set *s)
{
	callus_chart_series cs[TOOLS_MAX + 1];
	callus_chart ch = {kind, title,	 (const char *const *)labels, c->nbuckets, cs,
			   s->n, percent};

	for (size_t i = 0; i < s->n; i++) {
		cs[i].name = s->names[i];
		cs[i].values = s->v[i];
	}
	callus_report_chart(c->out, &ch);
}

static void over_time(report_ctx *c)
{
	series_set fails = {{0}, {0}, 0}, fixes = {{0}, {0}, 0}, learn = {{0}, {0}, 0};
	char **labels = calloc(c->nbuckets, sizeof(char *));
	double *errs = calloc(c->nbuckets, sizeof(double)),
	       *sug = calloc(c->nbuckets, sizeof(double));
	double *ok = calloc(c->nbuckets, sizeof(double)),
	       *all = calloc(c->nbuckets, sizeof(double));
	const char *unit = c->bucket_days == 1 ? "day" : "week";
	sqlite3_stmt *st = NULL;
	callus_buf title = CALLUS_BUF_INIT;
	int other = -1;

	if (!labels || !errs || !sug || !ok || !all)
		goto out;
	for (size_t i = 0; i < c->nbuckets; i++) {
		time_t t = c->from_day + (time_t)i * c->bucket_days * 86400;
		struct tm tm;
		char l[16];

		gmtime_r(&t, &tm);
		if (!strftime(l, sizeof(l), "%m-%d", &tm))
			*l = 0;
		if (!(labels[i] = strdup(l)))
			goto out;
	}
	/* Failures by tool: the period's busiest tools, the rest together. */
	st = callus_report_prepare(
	    c, "SELECT p.tool FROM temp.report_errors p"
	       " WHERE p.first_failure_at >= :from AND p.first_failure_at < :to"
	       " GROUP BY p.tool ORDER BY count(*) DESC, p.tool LIMIT 5");
	while (callus_report_step(c, st) == SQLITE_ROW)
		if (series_add(&fails, (const char *)sqlite3_column_text(st, 0),
			       c->nbuckets, 0) < 0)
			goto out;
	sqlite3_finalize(st);
	/* errors per bucket and tool, and how many had a suggestion: one scan */
	st = callus_report_prepare(
	    c, "SELECT " DAY_BUCKET("first_day") ", tool, count(*), sum(suggested)"
						 " FROM temp.report_errors"
						 " WHERE first_failure_at >= :from AND "
						 "first_failure_at < :to GROUP BY 1, 2");
	while (callus_report_step(c, st) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0);
		const char *tool = (const char *)sqlite3_column_text(st, 1);
		size_t k;

		if (b < 0 || (size_t)b >= c->nbuckets)
			continue;
		errs[b] += (double)sqlite3_column_int64(st, 2);
		sug[b] += (double)sqlite3_column_int64(st, 3);
		for (k = 0; k < fails.n && k < TOOLS_MAX; k++)
			if (!strcmp(fails.names[k], tool ? tool : ""))
				break;
		if (k == fails.n || k == TOOLS_MAX) {
			if (other < 0 &&
			    (other = series_add(&fails, "other", c->nbuckets, 0)) < 0)
				goto out;
			k = (size_t)other;
		}
		fails.v[k][b] += (double)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	/* Fixes by tool, in the failures' colours: the same series in the
	 * same order. */
	for (size_t k = 0; k < fails.n; k++)
		if (series_add(&fixes, fails.names[k], c->nbuckets, 0) < 0)
			goto out;
	st = callus_report_prepare(
	    c,
	    "SELECT " DAY_BUCKET("closed_day") ", tool, count(*) FROM temp.report_errors"
					       " WHERE state = 'fixed' AND closed_at >= "
					       ":from AND closed_at < :to GROUP BY 1, 2");
	while (callus_report_step(c, st) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0);
		const char *tool = (const char *)sqlite3_column_text(st, 1);
		size_t k;

		if (b < 0 || (size_t)b >= c->nbuckets)
			continue;
		for (k = 0; k < fixes.n; k++)
			if (!strcmp(fixes.names[k], tool ? tool : ""))
				break;
		if (k == fixes.n) {
			for (k = 0; k < fixes.n; k++)
				if (!strcmp(fixes.names[k], "other"))
					break;
			if (k == fixes.n &&
			    series_add(&fixes, "other", c->nbuckets, 0) < 0)
				goto out;
		}
		fixes.v[k][b] += (double)sqlite3_column_int64(st, 2);
	}
	sqlite3_finalize(st);
	st = callus_report_prepare(
	    c, "SELECT " BUCKET(
		   "outcome_at") ", sum(outcome = 'success'), count(*) FROM suggestions"
				 " WHERE outcome IS NOT NULL AND outcome_at >= :from AND "
				 "outcome_at < :to GROUP BY 1");
	while (callus_report_step(c, st) == SQLITE_ROW) {
		int64_t b = sqlite3_column_int64(st, 0);

		if (b >= 0 && (size_t)b < c->nbuckets) {
			ok[b] = (double)sqlite3_column_int64(st, 1);
			all[b] = (double)sqlite3_column_int64(st, 2);
		}
	}
	sqlite3_finalize(st);
	st = NULL;
	if (series_add(&learn, "errors that had a suggestion", c->nbuckets, -1) < 0 ||
	    series_add(&learn, "suggestions that worked", c->nbuckets, -1) < 0)
		goto out;
	for (size_t i = 0; i < c->nbuckets; i++) {
		if (errs[i] > 0)
			learn.v[0][i] = 100.0 * sug[i] / errs[i];
		if (all[i] > 0)
			learn.v[1][i] = 100.0 * ok[i] / all[i];
	}
	if ((!fails.n && series_add(&fails, "errors", c->nbuckets, 0) < 0) ||
	    (!fixes.n && series_add(&fixes, "errors", c->nbuckets, 0) < 0))
		goto out;
	callus_buf_puts(c->out, "<div class=\"charts\">\n");
	callus_buf_printf(&title, "Errors recorded per %s, by tool", unit);
	chart(c, title.ptr, CALLUS_CHART_BARS, 0, labels, &fails);
	callus_buf_clear(&title);
	callus_buf_printf(&title, "Errors fixed per %s, by tool", unit);
	chart(c, title.ptr, CALLUS_CHART_BARS, 0, labels, &fixes);
	callus_buf_clear(&title);
	callus_buf_printf(&title,
			  "Is the agent learning? Per %s, the errors that had a past fix"
			  " to suggest, and the suggestions that worked",
			  unit);
	chart(c, title.ptr, CALLUS_CHART_LINES, 1, labels, &learn);
	callus_buf_puts(c->out, "</div>\n");
out:
	sqlite3_finalize(st);
	series_release(&fails);
	series_release(&fixes);
	series_release(&learn);
	for (size_t i = 0; labels && i < c->nbuckets; i++)
		free(labels[i]);
	free(labels);
	free(errs);
	free(sug);
	free(ok);
	free(all);
	callus_buf_release(&title);
}

/* ---- the page ---- */

typedef struct section {
	const char *id, *title;
	void (*write)(report_ctx *c);
} section;

/* The page's sections, in order; the heading's links follow this table. */
static const section sections[] = {
    {"overview", "Overview", overview},
    {"time", "Over time", over_time},
    {"recurring", "Recurring errors", callus_report_recurring},
    {"hotspots", "Hot spots", callus_report_hotspots},
    {"permanent", "Permanent failures", callus_report_permanent},
    {"proposals", "Proposals", callus_report_proposals},
    {"notes", "Notes", callus_report_notes},
};

#define NSECTIONS (sizeof(sections) / sizeof(sections[0]))

/* A chart's bars for a period of days: one a day, or a week, or more. */
static void buckets(report_ctx *c, time_t days)
{
	c->bucket_days = 1;
	if (days > CALLUS_REPORT_BUCKETS)
		c->bucket_days = 7 * (int)((days + 7 * CALLUS_REPORT_BUCKETS - 1) /
					   (7 * CALLUS_REPORT_BUCKETS));
	c->nbuckets = (size_t)((days + c->bucket_days - 1) / c->bucket_days);
}

/* The period's first day, the previous period, the charts' buckets. */
static int period(report_ctx *c, const callus_report_opts *o, char *from, size_t nfrom,
		  callus_error *err)
{
	time_t to_day = callus_time_day(c->to), days;

	if (to_day < 0)
		return callus_error_set(err, CALLUS_EINVAL, "'%s' is not a time", c->to);
	if (o->since && !strcmp(o->since, "all")) {
		/* the first day is the first error's: errors_first_day() */
		c->from = "";
		c->from_day = to_day;
	} else {
		if (o->since) {
			if ((c->from_day = callus_time_day(o->since)) < 0 ||
			    strlen(o->since) != 10)
				return callus_error_set(
				    err, CALLUS_EINVAL,
				    "'%s' is not a date (YYYY-MM-DD, or 'all')",
				    o->since);
			if (c->from_day > to_day)
				return callus_error_set(err, CALLUS_EINVAL,
							"'%s' is in the future",
							o->since);
		} else {
			c->from_day = to_day - (time_t)(CALLUS_REPORT_DAYS - 1) * 86400;
		}
		day_text(from, nfrom, c->from_day);
		c->from = from;
	}
	days = (to_day - c->from_day) / 86400 + 1;
	if (*c->from) {
		char prev[32];

		day_text(prev, sizeof(prev), c->from_day - days * 86400);
		if (!(c->prev_from = strdup(prev)))
			return CALLUS_ENOMEM;
	}
	buckets(c, days);
	return 0;
}

static void head(report_ctx *c, const callus_report_opts *o, int empty)
{
	callus_buf *out = c->out;
	char to[32];

	day_text(to, sizeof(to), callus_time_day(c->to));
	callus_buf_puts(
	    out,
	    "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	    "<meta name=\"color-scheme\" content=\"light dark\">\n"
	    /* Nothing but the page's own style: no script runs, nothing
	     * is fetched, whatever a tool's output managed to put in. */
	    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"
	    " style-src 'unsafe-inline'\">\n"
	    "<meta name=\"generator\" content=\"callus report\">\n<title>callus report");
	if (o->workspace && *o->workspace) {
		callus_buf_puts(out, ": ");
		callus_report_escape_cut(out, o->workspace, 200);
	}
	callus_buf_printf(out,
			  "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n"
			  "<h1>What callus learnt</h1>\n<p class=\"meta\">",
			  style);
	if (o->workspace && *o->workspace) {
		callus_buf_puts(out, "<code>");
		callus_report_escape_cut(out, o->workspace, 200);
		callus_buf_puts(out, "</code> &#183; ");
	}
	if (!*c->from)
		callus_buf_printf(out, "everything recorded, up to %s", to);
	else
		callus_buf_printf(out, "%s to %s, compared with %s to the day before",
				  c->from, to, c->prev_from);
	if (*c->layer)
		callus_buf_printf(out, " &#183; notes of the %s layer", c->layer);
	callus_buf_puts(out, "</p>\n");
	if (!empty) {
		callus_buf_puts(out, "<nav>");
		for (size_t i = 0; i < NSECTIONS; i++)
			callus_buf_printf(out, "<a href=\"#%s\">%s</a> ", sections[i].id,
					  sections[i].title);
		callus_buf_puts(out, "</nav>\n");
	}
	callus_buf_puts(out, "</header>\n<main>\n");
}

/*
 * The errors of the two periods with what the sections read of them, in a
 * temporary table: a store's errors are wide rows (files, snapshots) and
 * have no index on their times, so each section scanning them costs a
 * full read of the table; this reads it once (a tenth of the time at
 * 100,000 errors).
 */
static void errors_table(report_ctx *c)
{
	sqlite3_stmt *st;

	/* In memory: a few MB at most, never worth a file. */
	if (sqlite3_exec(c->db,
			 "PRAGMA temp_store = MEMORY;"
			 "DROP TABLE IF EXISTS temp.report_errors",
			 NULL, NULL, NULL) != SQLITE_OK)
		return;
	st = callus_report_prepare(
	    c,
	    "CREATE TEMP TABLE report_errors AS SELECT p.id, c.tool, g.id AS signature_id,"
	    " g.tool AS sig_tool, g.error_type, p.state,"
	    " p.attempts, p.first_failure_at, p.last_failure_at, p.closed_at, p.files,"
	    " EXISTS (SELECT 1 FROM suggestions s WHERE s.pending_id = p.id) AS "
	    "suggested,"
	    " CAST(julianday(substr(p.first_failure_at, 1, 10)) AS INTEGER) AS first_day,"
	    " CAST(julianday(substr(p.closed_at, 1, 10)) AS INTEGER) AS closed_day"
	    " FROM pending_errors p JOIN checks c ON c.id = p.check_id"
	    " JOIN signatures g ON g.rowid = p.sig"
	    " WHERE p.first_failure_at >= :lo OR (p.state <> 'pending' AND p.closed_at "
	    ">= :lo)");
	callus_report_step(c, st);
	sqlite3_finalize(st);
	st = callus_report_prepare(c, "CREATE INDEX temp.report_errors_signature"
				      " ON report_errors(signature_id)");
	callus_report_step(c, st);
	sqlite3_finalize(st);
}

/* --since all: the period starts on the day of the first error. */
static void errors_first_day(report_ctx *c)
{
	sqlite3_stmt *st = callus_report_prepare(
	    c, "SELECT min(first_failure_at) FROM temp.report_errors");
	time_t t, to_day = callus_time_day(c->to);

	if (callus_report_step(c, st) == SQLITE_ROW &&
	    (t = callus_time_day((const char *)sqlite3_column_text(st, 0))) >= 0 &&
	    t < to_day) {
		c->from_day = t;
		buckets(c, (to_day - t) / 86400 + 1);
	}
	sqlite3_finalize(st);
}

int callus_report_write(callus_store *s, const callus_report_opts *o, callus_buf *out,
			callus_error *err)
{
	report_ctx c;
	callus_note_filter nf = { .layer = -1, .limit = CALLUS_REPORT_TOP * 2 };
	char from[32] = "", *now = NULL;
	int rc = 0, empty = 1;

	memset(&c, 0, sizeof(c));
	c.store = s;
	c.db = s ? callus_store_db(s) : NULL;
	c.out = out;
	c.layer = "";
	c.layer_value = o->layer;
	c.sq = SQLITE_OK;
	if (o->layer >= 0) {
		c.layer = callus_layer_name((callus_layer)o->layer);
		nf.layer = o->layer;
	}
	if (!o->now && !(now = callus_now_iso8601()))
		return CALLUS_ENOMEM;
	c.to = o->now ? o->now : now;
	if ((rc = period(&c, o, from, sizeof(from), err)) < 0)
		goto out;
	if (c.db) {
		empty = !callus_report_int(
		    &c,
		    "SELECT EXISTS (SELECT 1 FROM pending_errors)"
		    " OR EXISTS (SELECT 1 FROM runs) OR EXISTS (SELECT 1 FROM notes)");
		if (!empty &&
		    (rc = callus_notes_list(s, &nf, &c.notes, &c.nnotes, err)) < 0)
			goto out;
		if (!empty)
			errors_table(&c);
		if (!empty && !*c.from)
			errors_first_day(&c);
	}
	head(&c, o, empty);
	if (empty) {
		callus_buf_puts(
		    out, "<section id=\"empty\"><h2>Nothing recorded yet</h2>\n"
			 "<p>No check has failed here under callus, so there is nothing "
			 "to report."
			 " Failures are recorded when an agent's hook sees a linter, "
			 "type checker, test"
			 " runner or compiler fail, or when you run one with "
			 "<code>callus run --"
			 " CMD</code>; fixes when it passes again.</p></section>\n");
	} else {
		for (size_t i = 0; i < NSECTIONS && c.sq == SQLITE_OK; i++) {
			callus_buf_printf(out, "<section id=\"%s\">\n<h2>%s</h2>\n",
					  sections[i].id, sections[i].title);
			sections[i].write(&c);
			callus_buf_puts(out, "</section>\n");
		}
	}
	callus_buf_puts(
	    out,
	    "</main>\n<footer>Written by <code>callus report</code>. One file:"
	    " no script, nothing fetched. Text from tools is shown as they printed it,"
	    " after callus redacted the secrets it knows.</footer>\n</body>\n</html>\n");
	if (c.sq != SQLITE_OK)
		rc = callus_store_db_error(s, err, c.sq, "cannot read");
	else
		rc = callus_buf_status(out);
out:
	if (c.db)
		sqlite3_exec(c.db, "DROP TABLE IF EXISTS temp.report_errors", NULL, NULL,
			     NULL);
	callus_notes_free(c.notes, c.nnotes);
	free(c.prev_from);
	free(now);
	return rc;
}
