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

/* 1 for a success now, halving every half-life since. */
static double recency(const char *last_success, double half_life_days)
{
	struct tm tm;
	time_t then;
	double days;

	memset(&tm, 0, sizeof(tm));
	if (!last_success || !*last_success || !strptime(last_success, "%Y-%m-%dT%H:%M:%S", &tm))
		return 0.5;
	then = timegm(&tm);
	days = difftime(time(NULL), then) / 86400.0;
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

int callus_match_suggest(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
		       size_t max, callus_suggestion **out, size_t *count, callus_error *err)
{
	callus_match *m = NULL;
	size_t nm = 0, n = 0;
	callus_suggestion *g = NULL;
	sqlite3_stmt *st = NULL;
	double half = opts->half_life_days > 0 ? opts->half_life_days : CALLUS_MATCH_HALF_LIFE_DAYS;
	int rc, sq = SQLITE_OK;

	*out = NULL;
	*count = 0;
	if ((rc = callus_match_find(s, opts, sig, &m, &nm, err)) < 0)
		return rc;
	if (!nm)
		goto out;
	if (!max)
		max = CALLUS_LEARN_SUGGEST_MAX;
	/* ranked from the index of their counts alone (a recurring error
	 * has thousands of fixes, each row with its diff), the best max kept
	 * as they come; the texts read for those only */
	sq = callus_store_stmt(
		s,
		"SELECT r.id, CAST(r.success_count AS REAL) / max(r.application_count, 1),"
		" r.application_count, r.last_success_at FROM resolutions r"
		" INDEXED BY resolutions_ranked"
		" WHERE r.success_count > 0 AND (r.signature_id = ?1 OR r.signature_id IN"
		"  (SELECT alias_id FROM signature_links WHERE canonical_id = ?1))",
		&st);
	if (sq == SQLITE_OK && !(g = calloc(max + 1, sizeof(*g))))
		sq = SQLITE_NOMEM;
	for (size_t i = 0; sq == SQLITE_OK && i < nm; i++) {
		sqlite3_reset(st);
		callus_sql_bind_text(st, 1, m[i].signature_id);
		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			callus_suggestion c;
			size_t j;

			memset(&c, 0, sizeof(c));
			c.resolution_id = sqlite3_column_int64(st, 0);
			c.success_rate = sqlite3_column_double(st, 1);
			c.application_count = sqlite3_column_int64(st, 2);
			c.confidence = c.success_rate * m[i].context_score *
				       recency((const char *)sqlite3_column_text(st, 3), half) *
				       m[i].similarity;
			/* reached through a better match (the matches come best
			 * first: a later one ranks a fix no higher) */
			for (j = 0; j < n && g[j].resolution_id != c.resolution_id; j++)
				;
			if (j < n)
				continue;
			/* into its place among the best, the last dropped once
			 * there are max */
			for (j = n; j > 0 && by_confidence(&c, &g[j - 1]) < 0; j--)
				g[j] = g[j - 1];
			g[j] = c;
			if (n < max)
				n++;
		}
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
	callus_suggestions_free(g, n);
	callus_matches_free(m, nm);
	return rc;
}
