/*
 * match_suggest.c - the resolutions worth suggesting for an error
 * (callus_match_suggest): the fixes of the signatures match.c finds,
 * scored by similarity, shared context, success rate and how recently
 * they worked, and ranked by that confidence.  Apart from the search
 * because the scoring is tuned on its own (docs/match-quality.md).
 */
#include "callus/match.h"
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/hash.h"
#include "callus/lesson.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void callus_suggestions_free(callus_suggestion *g, size_t count)
{
	for (size_t i = 0; g && i < count; i++) {
		free(g[i].signature_id);
		free(g[i].description);
	}
	free(g);
}

/*
 * The time of a last success, when it is one in the store's form
 * (callus_now_iso8601(): "YYYY-MM-DDTHH:MM:SS" and any tail) naming a real
 * second.  Only such times are ranked by their age: the ranking reads the
 * fixes the most recent first, by their text, and stops once the rest
 * cannot rank, which holds only where text order is time order.  A day
 * past its month's end or a leap second would sort apart from the time it
 * stands for, so it is not one.
 */
static int success_time(const char *s, time_t *t)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd";
	int f[6] = { 0 }, k = 0;
	long long secs;

	if (!s)
		return -1;
	for (size_t i = 0; i < sizeof(form) - 1; i++) {
		if (form[i] != 'd') {
			if (s[i] != form[i])
				return -1;
			k++;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			return -1;
		f[k] = f[k] * 10 + (s[i] - '0');
	}
	/* counted, not timegm'd: glibc's reads the time zone file first */
	if (callus_time_civil(f[0], f[1], f[2], f[3], f[4], f[5], &secs) < 0)
		return -1;
	*t = (time_t)secs;
	return 0;
}

/* 1 for a success now, halving every half-life since; 0 for a last
 * success that is not a time (success_time), which ranks such a fix last
 * and keeps the ranking's bound true. */
static double recency(const char *last_success, time_t now, double half_life_days, int *known)
{
	time_t then;
	double days;

	*known = success_time(last_success, &then) == 0;
	if (!*known)
		return 0;
	days = difftime(now, then) / 86400.0;
	if (days < 0)
		days = 0;
	return pow(0.5, days / half_life_days);
}

static int by_confidence(const void *a, const void *b)
{
	const callus_suggestion *x = a, *y = b;

	if (x->confidence != y->confidence)
		return (x->confidence < y->confidence) - (x->confidence > y->confidence);
	return (x->resolution_id < y->resolution_id) - (x->resolution_id > y->resolution_id);
}

/*
 * The fixes of signature sig that worked, reached through match m, into
 * g's n best of max (g holds max + 1).  They come the most recent success
 * first, and a fix's confidence is at most what its recency allows (its
 * rate is at most 1): once that bound is below the last kept, no later fix
 * can be kept, and a recurring error's thousands of fixes are not all
 * read.  The bound is taken only from a time that is one: a fix whose last
 * success is not one ranks 0 and bounds nothing.
 */
static int rank_fixes(sqlite3_stmt *st, const char *sig, const callus_match *m, time_t now,
		      double half, callus_suggestion *g, size_t *n, size_t max)
{
	int sq;

	sqlite3_reset(st);
	callus_sql_bind_text(st, 1, sig);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_suggestion c;
		double rec;
		int known;
		size_t j;

		rec = recency((const char *)sqlite3_column_text(st, 3), now, half, &known);
		/* the same products in the same order as the confidence, with
		 * a rate of 1: rounding keeps the bound above every later fix */
		if (known && *n == max && 1.0 * m->context_score * rec * m->similarity <
						  g[*n - 1].confidence)
			break;
		memset(&c, 0, sizeof(c));
		c.resolution_id = sqlite3_column_int64(st, 0);
		c.success_rate = sqlite3_column_double(st, 1);
		c.application_count = sqlite3_column_int64(st, 2);
		c.confidence = c.success_rate * m->context_score * rec * m->similarity;
		/* reached through a better match (the matches come best
		 * first: a later one ranks a fix no higher) */
		for (j = 0; j < *n && g[j].resolution_id != c.resolution_id; j++)
			;
		if (j < *n)
			continue;
		/* into its place among the best, the last dropped once there
		 * are max */
		for (j = *n; j > 0 && by_confidence(&c, &g[j - 1]) < 0; j--)
			g[j] = g[j - 1];
		g[j] = c;
		if (*n < max)
			(*n)++;
	}
	return sq == SQLITE_DONE || sq == SQLITE_ROW ? SQLITE_OK : sq;
}

int callus_match_suggest(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
		       size_t max, callus_suggestion **out, size_t *count, callus_error *err)
{
	callus_match *m = NULL;
	size_t nm = 0, n = 0;
	callus_suggestion *g = NULL;
	sqlite3_stmt *st = NULL, *alias = NULL;
	double half = opts->half_life_days > 0 ? opts->half_life_days : CALLUS_MATCH_HALF_LIFE_DAYS;
	time_t now = time(NULL);
	int rc, sq = SQLITE_OK;

	*out = NULL;
	*count = 0;
	if ((rc = callus_match_find(s, opts, sig, &m, &nm, err)) < 0)
		return rc;
	if (!nm)
		goto out;
	if (!max)
		max = CALLUS_LEARN_SUGGEST_MAX;
	/* from the index alone (a fix's row carries its diff), the most
	 * recent success first (rank_fixes); the texts read for the best
	 * only.  A retired note's fixes are not offered: retiring (or
	 * deleting its file) says it does not help. */
	sq = callus_store_stmt(s,
			       "SELECT r.id, CAST(r.success_count AS REAL) / max(r.application_count, 1),"
			       " r.application_count, r.last_success_at FROM resolutions r"
			       " INDEXED BY resolutions_recent"
			       " WHERE r.signature_id = ?1 AND r.success_count > 0"
			       " AND NOT EXISTS (SELECT 1 FROM note_resolutions x JOIN notes n"
			       "  ON n.id = x.note_id WHERE x.resolution_id = r.id"
			       "  AND n.status = 'retired')"
			       " ORDER BY r.last_success_at DESC",
			       &st);
	if (sq == SQLITE_OK)
		sq = callus_store_stmt(s, "SELECT alias_id FROM signature_links WHERE canonical_id = ?1",
				       &alias);
	if (sq == SQLITE_OK && !(g = calloc(max + 1, sizeof(*g))))
		sq = SQLITE_NOMEM;
	for (size_t i = 0; sq == SQLITE_OK && i < nm; i++) {
		sq = rank_fixes(st, m[i].signature_id, &m[i], now, half, g, &n, max);
		/* the fixes of the errors merged into it, as its own */
		sqlite3_reset(alias);
		callus_sql_bind_text(alias, 1, m[i].signature_id);
		while (sq == SQLITE_OK && (sq = sqlite3_step(alias)) == SQLITE_ROW)
			sq = rank_fixes(st, (const char *)sqlite3_column_text(alias, 0), &m[i], now,
					half, g, &n, max);
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	if (sq == SQLITE_OK) {
		sqlite3_stmt *text = NULL;

		sq = callus_store_stmt(s, "SELECT signature_id, description FROM resolutions"
					  " WHERE id = ?1", &text);
		for (size_t i = 0; sq == SQLITE_OK && i < n; i++) {
			sqlite3_reset(text);
			sqlite3_bind_int64(text, 1, g[i].resolution_id);
			if ((sq = sqlite3_step(text)) != SQLITE_ROW)
				break;
			sq = (g[i].signature_id = callus_sql_column_dup(text, 0)) &&
					     (g[i].description = callus_sql_column_dup(text, 1))
				     ? SQLITE_OK
				     : SQLITE_NOMEM;
		}
		callus_store_stmt_done(s, text);
	}
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read resolutions in");
		goto out;
	}
	if (!n)
		goto out;
	*out = g;
	*count = n;
	g = NULL;
	n = 0;
out:
	callus_store_stmt_done(s, st);
	callus_store_stmt_done(s, alias);
	callus_suggestions_free(g, n);
	callus_matches_free(m, nm);
	return rc;
}
