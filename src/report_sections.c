/*
 * report_sections.c - the report's lists: the recurring errors with the
 * note and the fix that resolved them, the hot spots, the permanent
 * failures and the notes.  Each is the first rows of one ordered query
 * (CALLUS_REPORT_TOP), each text cut, so the page stays small.
 */
#include "callus/diffexcerpt.h"
#include "callus/learn.h"
#include "callus/notes.h"
#include "callus/report.h"
#include "callus/signature.h"
#include "report_internal.h"
#include "sqlutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAX 400  /* bytes of an error message or a title */
#define NAME_MAX_ 160 /* bytes of a file name, a tool, a rule */
#define TOP_SQL "10"  /* CALLUS_REPORT_TOP, in a statement */
_Static_assert(CALLUS_REPORT_TOP == 10, "TOP_SQL is CALLUS_REPORT_TOP");
#define FILES_MAX 6   /* files named per error */
#define DIFF_LINES 12 /* lines of a fix shown */

void callus_report_diff(report_ctx *c, const char *diff, size_t max_lines)
{
	callus_excerpt_opts eo = {NULL, 0, 0, 1, max_lines, 0, 160, NULL};
	callus_buf lines = CALLUS_BUF_INIT;
	const char *p, *nl;

	if (!diff || !*diff || callus_diff_excerpt(&lines, diff, &eo) <= 0)
		goto out;
	callus_buf_puts(c->out, "<pre class=\"diff\">");
	for (p = lines.ptr; *p; p = nl + 1) {
		size_t len;

		if (!(nl = strchr(p, '\n')))
			nl = p + strlen(p);
		len = (size_t)(nl - p);
		if (*p == '+' || *p == '-')
			callus_buf_printf(c->out, "<span class=\"%s\">",
					  *p == '+' ? "add" : "del");
		else
			callus_buf_puts(c->out, "<span class=\"meta\">");
		callus_report_escape(c->out, p, len);
		callus_buf_puts(c->out, "</span>");
		if (!*nl)
			break;
	}
	callus_buf_puts(c->out, "</pre>\n");
out:
	callus_buf_release(&lines);
}

/* The day of a stored time. */
static void day(report_ctx *c, const char *t)
{
	size_t len = t ? strlen(t) : 0;

	callus_report_escape(c->out, t ? t : "", len < 10 ? len : 10);
}

static void files_list(report_ctx *c, const callus_strlist *files, size_t max)
{
	for (size_t i = 0; i < files->count && i < max; i++) {
		callus_buf_puts(c->out, i ? ", <code>" : "<code>");
		callus_report_escape_cut(c->out, files->items[i], NAME_MAX_);
		callus_buf_puts(c->out, "</code>");
	}
	if (files->count > max)
		callus_buf_printf(c->out, " and %zu more", files->count - max);
}

static void pct(callus_buf *b, int64_t part, int64_t whole)
{
	if (whole > 0)
		callus_buf_printf(b, "%.0f%% (%lld of %lld)",
				  100.0 * (double)part / (double)whole, (long long)part,
				  (long long)whole);
	else
		callus_buf_puts(b, "not applied yet");
}

/* The files one signature's errors named in the period. */
static void error_files(report_ctx *c, const char *sig)
{
	callus_strlist files = CALLUS_STRLIST_INIT;
	sqlite3_stmt *st = callus_report_prepare(
	    c,
	    "SELECT j.value, count(*) FROM temp.report_errors p, json_each(p.files) j"
	    " WHERE p.signature_id = :sig AND p.first_failure_at >= :from"
	    " AND p.first_failure_at < :to GROUP BY j.value ORDER BY 2 DESC, 1 LIMIT 7");

	if (!st)
		return;
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":sig"), sig, -1,
			  SQLITE_STATIC);
	while (callus_report_step(c, st) == SQLITE_ROW)
		callus_strlist_add(&files, (const char *)sqlite3_column_text(st, 0),
				   (size_t)sqlite3_column_bytes(st, 0));
	sqlite3_finalize(st);
	if (files.count) {
		callus_buf_puts(c->out, "<p>in ");
		files_list(c, &files, FILES_MAX);
		callus_buf_puts(c->out, "</p>\n");
	}
	callus_strlist_release(&files);
}

/* The note that answers sig, when it is one the page lists. */
static void error_note(report_ctx *c, const char *sig)
{
	sqlite3_stmt *st = callus_report_prepare(
	    c, "SELECT n.id FROM note_signatures ns JOIN notes n ON n.id = ns.note_id"
	       " WHERE ns.signature_id = :sig AND n.status = 'active'"
	       " AND (:layer = '' OR n.layer = :layer)");
	const callus_note *n = NULL;

	if (!st)
		return;
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":sig"), sig, -1,
			  SQLITE_STATIC);
	if (callus_report_step(c, st) == SQLITE_ROW)
		n = callus_report_listed_note(c,
					      (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (!n)
		return;
	callus_buf_printf(
	    c->out, "<p>Note <a href=\"#n-%s\"><code>%s</code></a>: ", n->id, n->id);
	callus_report_escape_cut(c->out, *n->rule ? n->rule : n->title, TEXT_MAX);
	callus_buf_puts(c->out, " &#183; worked ");
	pct(c->out, n->successes, n->applications);
	callus_buf_puts(c->out, "</p>\n");
}

/* The best fix of sig, with its lines. */
static void error_fix(report_ctx *c, const char *sig)
{
	sqlite3_stmt *st = callus_report_prepare(
	    c, "SELECT id, description, code_changes, success_count, application_count"
	       " FROM resolutions WHERE signature_id = :sig"
	       " ORDER BY CAST(success_count AS REAL) / max(application_count, 1) DESC,"
	       " last_success_at DESC, id DESC LIMIT 1");

	if (!st)
		return;
	sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":sig"), sig, -1,
			  SQLITE_STATIC);
	if (callus_report_step(c, st) == SQLITE_ROW) {
		callus_buf_printf(c->out, "<p>Fixed by resolution #%lld: ",
				  (long long)sqlite3_column_int64(st, 0));
		callus_report_col(c, st, 1, TEXT_MAX);
		callus_buf_puts(c->out, " &#183; worked ");
		pct(c->out, sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
		callus_buf_puts(c->out, "</p>\n");
		callus_report_diff(c, (const char *)sqlite3_column_text(st, 2),
				   DIFF_LINES);
	}
	sqlite3_finalize(st);
}

void callus_report_recurring(report_ctx *c)
{
	/* The top rows first, then their signatures: joining every error of
	 * the period to its signature's wide row costs more than the rest. */
	sqlite3_stmt *st = callus_report_prepare(
	    c, "SELECT g.signature_id, g.n, g.attempts, g.fixed, g.permanent, g.last, "
	       "s.tool,"
	       " s.error_type, s.message_pattern, s.original FROM"
	       " (SELECT signature_id, count(*) AS n, sum(attempts) AS attempts,"
	       "  sum(state = 'fixed') AS fixed, sum(state = 'permanent') AS permanent,"
	       "  max(last_failure_at) AS last FROM temp.report_errors"
	       "  WHERE first_failure_at >= :from AND first_failure_at < :to"
	       "  GROUP BY signature_id ORDER BY attempts DESC, n DESC, last DESC LIMIT "
	       "10) g"
	       " JOIN signatures s ON s.id = g.signature_id"
	       " ORDER BY g.attempts DESC, g.n DESC, g.last DESC");
	int k = 0;

	callus_buf_puts(
	    c->out,
	    "<p class=\"meta\">The errors seen most often in the period (each"
	    " failing run of a check counts), with the fix that resolved them.</p>\n"
	    "<div class=\"errs\">\n");
	while (callus_report_step(c, st) == SQLITE_ROW) {
		char *sig = callus_sql_column_dup(st, 0);
		int64_t errors = sqlite3_column_int64(st, 1),
			fixed = sqlite3_column_int64(st, 3);
		int64_t permanent = sqlite3_column_int64(st, 4);

		if (!sig)
			break;
		callus_buf_printf(c->out, "<article class=\"card\" id=\"e%d\"><h3>", ++k);
		callus_report_col(c, st, 9, TEXT_MAX);
		callus_buf_puts(c->out, "</h3>\n<p class=\"meta\">");
		callus_report_col(c, st, 6, NAME_MAX_);
		if (sqlite3_column_bytes(st, 7)) {
			callus_buf_puts(c->out, " &#183; ");
			callus_report_col(c, st, 7, NAME_MAX_);
		}
		callus_buf_printf(
		    c->out, " &#183; seen %lld time%s as %lld error%s &#183; fixed ",
		    (long long)sqlite3_column_int64(st, 2),
		    sqlite3_column_int64(st, 2) == 1 ? "" : "s", (long long)errors,
		    errors == 1 ? "" : "s");
		pct(c->out, fixed, fixed + permanent);
		callus_buf_puts(c->out, " &#183; last ");
		day(c, (const char *)sqlite3_column_text(st, 5));
		callus_buf_puts(c->out, "</p>\n<p class=\"meta\">pattern <code>");
		{
			callus_buf pattern = CALLUS_BUF_INIT;

			/* a row keeps none when its original makes it */
			callus_signature_pattern_load(&pattern,
						      (const char *)sqlite3_column_text(st, 8),
						      (const char *)sqlite3_column_text(st, 9));
			callus_report_escape_cut(c->out, pattern.ptr, TEXT_MAX);
			callus_buf_release(&pattern);
		}
		callus_buf_puts(c->out, "</code></p>\n");
		error_files(c, sig);
		error_note(c, sig);
		error_fix(c, sig);
		callus_buf_puts(c->out, "</article>\n");
		free(sig);
	}
	sqlite3_finalize(st);
	if (!k)
		callus_buf_puts(c->out, "<p>No error was recorded in this period.</p>\n");
	callus_buf_puts(c->out, "</div>\n");
}

/* One ranked list: rows of (name, count[, fixed, permanent]). */
static void bars(report_ctx *c, const char *title, const char *sql, int outcomes)
{
	sqlite3_stmt *st = callus_report_prepare(c, sql);
	int64_t top = 0;
	int k = 0;

	callus_buf_printf(c->out, "<figure><h3>%s</h3><ol class=\"bars\">\n", title);
	while (callus_report_step(c, st) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(st, 1);

		if (!k++)
			top = n > 0 ? n : 1;
		callus_buf_printf(c->out,
				  "<li><span class=\"bar\" style=\"width:%.0f%%\"></span>"
				  "<span class=\"lbl\"><code>",
				  100.0 * (double)n / (double)top);
		callus_report_col(c, st, 0, NAME_MAX_);
		callus_buf_puts(c->out, "</code>");
		if (outcomes)
			callus_buf_printf(
			    c->out,
			    " <span class=\"meta\">%lld fixed, %lld permanent</span>",
			    (long long)sqlite3_column_int64(st, 2),
			    (long long)sqlite3_column_int64(st, 3));
		callus_buf_printf(c->out, "</span><span class=\"n\">%lld</span></li>\n",
				  (long long)n);
	}
	sqlite3_finalize(st);
	if (!k)
		callus_buf_puts(c->out, "<li class=\"meta\">none in this period</li>\n");
	callus_buf_puts(c->out, "</ol></figure>\n");
}

#define PERIOD " p.first_failure_at >= :from AND p.first_failure_at < :to"

void callus_report_hotspots(report_ctx *c)
{
	callus_buf_puts(
	    c->out,
	    "<p class=\"meta\">Where errors were recorded in the period: each"
	    " error counts once for each file it names.</p>\n<div class=\"hot\">\n");
	bars(c, "Files",
	     "SELECT j.value, count(*) FROM temp.report_errors p, json_each(p.files) j "
	     "WHERE" PERIOD " GROUP BY j.value ORDER BY 2 DESC, 1 LIMIT 10",
	     0);
	/* A file's directory: rtrim() strips its name, the characters that
	 * are not '/' at its end; from the files' counts, a few hundred rows
	 * rather than every error again. */
	bars(c, "Directories",
	     "SELECT CASE WHEN instr(f, '/') THEN rtrim(f, replace(f, '/', '')) ELSE "
	     "'./' END AS d,"
	     " sum(n) FROM (SELECT j.value AS f, count(*) AS n FROM temp.report_errors p,"
	     " json_each(p.files) j WHERE" PERIOD " GROUP BY j.value)"
	     " GROUP BY d ORDER BY 2 DESC, 1 LIMIT 10",
	     0);
	bars(c, "Tools",
	     "SELECT p.tool, count(*), sum(p.state = 'fixed'), sum(p.state = 'permanent')"
	     " FROM temp.report_errors p WHERE" PERIOD
	     " GROUP BY p.tool ORDER BY 2 DESC, 1 LIMIT 10",
	     1);
	/* the signature's tool and type taken with each error: joined here
	 * by its 64-hex id, the period's errors' signatures were half of the
	 * page's time at 100,000 recordings */
	bars(c, "Rules and error types",
	     "SELECT p.sig_tool || ': ' || p.error_type, count(*), sum(p.state = 'fixed'),"
	     " sum(p.state = 'permanent') FROM temp.report_errors p WHERE" PERIOD
	     " GROUP BY p.sig_tool, p.error_type ORDER BY 2 DESC, 1 LIMIT 10",
	     1);
	callus_buf_puts(c->out, "</div>\n");
}

void callus_report_permanent(report_ctx *c)
{
	callus_pending_filter f = { CALLUS_STATE_PERMANENT, NULL, CALLUS_REPORT_TOP, 0 };
	callus_pending *ps = NULL;
	size_t n = 0;
	int64_t all = callus_report_int(
	    c, "SELECT count(*) FROM pending_errors WHERE state = 'permanent'");

	if (callus_learn_list(c->store, &f, &ps, &n, NULL) < 0)
		n = 0;
	if (!n) {
		callus_buf_puts(c->out,
				"<p>None: every error that kept failing was fixed in the"
				" end.</p>\n");
		goto out;
	}
	callus_buf_printf(
	    c->out,
	    "<p class=\"meta\">Errors that kept failing until callus gave up"
	    " on them (%lld in all, the latest first). Agents are warned about them"
	    " when they touch these files.</p>\n<div class=\"errs\">\n",
	    (long long)all);
	for (size_t i = 0; i < n; i++) {
		callus_buf_puts(c->out, "<article class=\"card\"><h3>");
		callus_report_escape_cut(c->out, ps[i].message, TEXT_MAX);
		callus_buf_puts(c->out, "</h3><p class=\"meta\">");
		callus_report_escape_cut(c->out, ps[i].tool, NAME_MAX_);
		callus_buf_printf(c->out, " &#183; %lld attempts &#183; since ",
				  (long long)ps[i].attempts);
		day(c, ps[i].first_failure_at);
		if (ps[i].files.count) {
			callus_buf_puts(c->out, " &#183; in ");
			files_list(c, &ps[i].files, FILES_MAX);
		}
		callus_buf_puts(c->out, "</p></article>\n");
	}
	callus_buf_puts(c->out, "</div>\n");
out:
	callus_pendings_free(ps, n);
}

void callus_report_proposals(report_ctx *c)
{
	sqlite3_stmt *st;
	int64_t waiting = callus_report_int(
	    c, "SELECT count(*) FROM note_promotions WHERE status = 'proposed'");
	int rows = 0;

	st = callus_report_prepare(
	    c, "SELECT p.note_id, p.from_layer, p.to_layer, p.status, p.at, n.title, n.tool,"
	       " n.example FROM note_promotions p LEFT JOIN notes n ON n.id = p.note_id"
	       " ORDER BY p.status = 'proposed' DESC, p.at DESC LIMIT " TOP_SQL);
	while (st && callus_report_step(c, st) == SQLITE_ROW) {
		if (!rows++)
			callus_buf_printf(
			    c->out,
			    "<p class=\"meta\">Notes of this workspace that worked often enough to be"
			    " proposed to a layer above (%lld waiting for a maintainer:"
			    " <code>callus proposals</code>, <code>callus approve ID</code>).</p>\n"
			    "<div class=\"errs\">\n",
			    (long long)waiting);
		callus_buf_puts(c->out, "<article class=\"card\"><h3>");
		if (sqlite3_column_type(st, 6) != SQLITE_NULL) { /* the note is still there */
			char *title = callus_note_title((const char *)sqlite3_column_text(st, 5),
							(const char *)sqlite3_column_text(st, 6),
							(const char *)sqlite3_column_text(st, 7));

			callus_report_escape_cut(c->out, title ? title : "", TEXT_MAX);
			free(title);
		}
		callus_buf_puts(c->out, "</h3><p class=\"meta\">note ");
		callus_report_col(c, st, 0, NAME_MAX_);
		callus_buf_puts(c->out, " &#183; ");
		callus_report_col(c, st, 1, NAME_MAX_);
		callus_buf_puts(c->out, " &#8594; ");
		callus_report_col(c, st, 2, NAME_MAX_);
		callus_buf_puts(c->out, " &#183; ");
		callus_report_col(c, st, 3, NAME_MAX_);
		callus_buf_puts(c->out, " &#183; ");
		day(c, (const char *)sqlite3_column_text(st, 4));
		callus_buf_puts(c->out, "</p></article>\n");
	}
	sqlite3_finalize(st);
	if (rows)
		callus_buf_puts(c->out, "</div>\n");
	else
		callus_buf_puts(c->out, "<p>None: no note of this workspace has been proposed to the"
					" team or org layer yet (<code>callus sync</code> proposes the"
					" ones that worked 5 times at 80%).</p>\n");
}

void callus_report_notes(report_ctx *c)
{
	if (!c->nnotes) {
		callus_buf_printf(c->out,
				  "<p>No notes%s%s yet: a note is made when a fix of an"
				  " error works.</p>\n",
				  *c->layer ? " in the layer " : "", c->layer);
		return;
	}
	callus_buf_printf(c->out,
			  "<p class=\"meta\">What callus teaches, best first (the first"
			  " %zu); each is <code>.callus/notes/ID.md</code>.</p>\n<div "
			  "class=\"errs\">\n",
			  c->nnotes);
	for (size_t i = 0; i < c->nnotes; i++) {
		const callus_note *n = &c->notes[i];

		callus_buf_printf(c->out, "<article class=\"card\" id=\"n-%s\"><h3>",
				  n->id);
		callus_report_escape_cut(c->out, n->title, TEXT_MAX);
		callus_buf_printf(
		    c->out, "</h3><p class=\"meta\"><code>%s</code> &#183; %s &#183; ",
		    n->id, callus_layer_name(n->layer));
		callus_report_escape_cut(c->out, n->tool, NAME_MAX_);
		callus_buf_puts(c->out, " &#183; worked ");
		pct(c->out, n->successes, n->applications);
		callus_buf_printf(c->out, " &#183; %lld fix%s", (long long)n->resolutions,
				  n->resolutions == 1 ? "" : "es");
		if (n->files.count) {
			callus_buf_puts(c->out, " &#183; ");
			files_list(c, &n->files, 3);
		}
		callus_buf_puts(c->out, "</p>\n");
		if (*n->rule) {
			callus_buf_puts(c->out, "<p><strong>Rule:</strong> ");
			callus_report_escape_cut(c->out, n->rule, TEXT_MAX);
			callus_buf_puts(c->out, "</p>\n");
		}
		if (*n->code) {
			callus_buf_puts(c->out,
					"<details><summary>the fix's lines</summary>");
			callus_report_diff(c, n->code, DIFF_LINES);
			callus_buf_puts(c->out, "</details>\n");
		}
		callus_buf_puts(c->out, "</article>\n");
	}
	callus_buf_puts(c->out, "</div>\n");
}
