/*
 * match_candidates.c - the rows the regular-expression fallback tries
 * (match.h: callus_match_candidates): the newest signatures of an error
 * type, read once per type for all the searches of one learning.  A
 * failure of ten new gcc errors searched ten times for its suggestions
 * and ten times more for the notes of the errors it closed, and each
 * search read the same 200 rows of the type "error" again.
 */
#include "callus/match.h"

#include "match_internal.h"
#include "sqlutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct cand_type {
	char *error_type;
	size_t max;                   /* the rows asked for when it was read */
	callus_match_candidate *rows;
	size_t n;
} cand_type;

struct callus_match_candidates {
	cand_type *types;
	size_t count, cap;
	int64_t signatures; /* the store's count of them when they were read */
};

int callus_match_candidates_new(callus_match_candidates **out)
{
	*out = calloc(1, sizeof(**out));
	if (*out)
		(*out)->signatures = -1;
	return *out ? 0 : CALLUS_ENOMEM;
}

static void type_release(cand_type *t)
{
	free(t->error_type);
	for (size_t i = 0; t->rows && i < t->n; i++)
		free(t->rows[i].runs);
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

void callus_match_candidates_clear(callus_match_candidates *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->count; i++)
		type_release(&c->types[i]);
	c->count = 0;
}

void callus_match_candidates_free(callus_match_candidates *c)
{
	if (!c)
		return;
	callus_match_candidates_clear(c);
	free(c->types);
	free(c);
}

/* callus_sql_collect's reader: a row's rowid and sketch. */
static int read_candidate(sqlite3_stmt *st, void *item, void *ctx)
{
	callus_match_candidate *r = item;

	(void)ctx;
	r->rowid = sqlite3_column_int64(st, 0);
	r->sketch = sqlite3_column_int64(st, 1);
	r->runs = NULL;
	return 0;
}

/* The newest max signatures of t->error_type read into t.  An SQLite
 * result code; what was read before a failure stays for type_release. */
static int type_read(cand_type *t, callus_store *s, size_t max)
{
	sqlite3_stmt *st = NULL;
	void *rows = NULL;
	int sq;

	sq = callus_store_stmt(s,
			       "SELECT rowid, sketch FROM signatures WHERE error_type = ?1"
			       " ORDER BY last_seen DESC LIMIT ?2",
			       &st);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, t->error_type);
		sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
		sq = callus_sql_collect(st, sizeof(*t->rows), read_candidate, NULL, 0, &rows, &t->n);
		t->rows = rows;
	}
	callus_store_stmt_done(s, st);
	if (sq == SQLITE_OK)
		t->max = max;
	return sq;
}

int callus_match_candidates_get(callus_match_candidates *c, callus_store *s,
				const char *error_type, size_t max,
				callus_match_candidate **rows, size_t *n)
{
	cand_type *t = NULL;
	int sq;

	*rows = NULL;
	*n = 0;
	/* a signature added or removed since (a note's, taken in by the
	 * learning's sync) may be one of the newest: all read again */
	{
		int64_t now = callus_store_query_int(s, "SELECT signatures FROM totals");

		if (now < 0 || now != c->signatures)
			callus_match_candidates_clear(c);
		c->signatures = now;
	}
	for (size_t i = 0; i < c->count && !t; i++)
		if (!strcmp(c->types[i].error_type, error_type))
			t = &c->types[i];
	if (t && (t->max >= max || t->n < t->max))
		goto found;
	if (t) {
		/* read with fewer rows than asked, and the type may have more */
		type_release(t);
	} else {
		void *grown = callus_array_grow(c->types, &c->cap, c->count + 1, sizeof(*c->types));

		if (!grown)
			return SQLITE_NOMEM;
		c->types = grown;
		t = &c->types[c->count++];
		memset(t, 0, sizeof(*t));
	}
	sq = (t->error_type = strdup(error_type)) ? type_read(t, s, max) : SQLITE_NOMEM;
	if (sq != SQLITE_OK) {
		/* no slot left empty: the last one takes its place */
		type_release(t);
		*t = c->types[--c->count];
		return sq;
	}
found:
	*rows = t->rows;
	*n = t->n < max ? t->n : max;
	return SQLITE_OK;
}

int callus_match_candidate_may_match(callus_match_candidate *row, const char *original,
				     const char *msg)
{
	callus_buf b = CALLUS_BUF_INIT;

	if (!row->runs) {
		if (callus_message_runs(&b, original) < 0) {
			/* without memory to keep them: asked as they are made */
			callus_buf_release(&b);
			return callus_message_may_match(original, msg);
		}
		row->runs = callus_buf_detach(&b);
	}
	return callus_runs_may_match(row->runs, msg);
}
