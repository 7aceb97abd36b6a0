/*
 * match_candidates.c - the rows the regular-expression fallback tries
 * (match.h: callus_match_candidates): the newest signatures of an error
 * type, read once per type for all the searches of one learning.  A
 * failure of ten new gcc errors searched ten times for its suggestions
 * and ten times more for the notes of the errors it closed, and each
 * search read the same 200 rows of the type "error" again.
 */
#include "callus/buf.h"
#include "callus/match.h"

#include "match_internal.h"
#include "sqlutil.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The text columns of a row, in the order the query reads them. */
enum { COL_ID, COL_STORED, COL_STACK, COL_ORIGINAL, COLS };
#define NO_TEXT SIZE_MAX

typedef struct cand_type {
	char *error_type;
	size_t max;                   /* the rows asked for when it was read */
	callus_buf text;              /* every column's text, NUL-terminated */
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

/* The store's count of signatures (kept by its triggers); -1 when it
 * cannot be read. */
static int64_t signatures_now(callus_store *s)
{
	sqlite3_stmt *st = NULL;
	int64_t n = -1;

	if (callus_store_stmt(s, "SELECT signatures FROM totals", &st) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	callus_store_stmt_done(s, st);
	return n;
}

static void type_release(cand_type *t)
{
	free(t->error_type);
	callus_buf_release(&t->text);
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

/* A row as it is read: its columns as offsets into its type's text, which
 * moves as it grows. */
typedef struct read_row {
	sqlite3_int64 rowid;
	size_t off[COLS];
} read_row;

/* The text columns of st's row (1 to COLS) appended to text, each with
 * its NUL, at one growth of it (a row costs its reads and copies, not
 * four appends): their offsets in r, NO_TEXT for a NULL.  0 or -1. */
static int put_row(callus_buf *text, sqlite3_stmt *st, read_row *r)
{
	const unsigned char *v[COLS];
	size_t len[COLS], total = 0;

	for (int c = 0; c < COLS; c++) {
		v[c] = sqlite3_column_text(st, c + 1);
		len[c] = v[c] ? strlen((const char *)v[c]) + 1 : 0;
		total += len[c];
	}
	/* room for the row and the buffer's NUL; grown (doubling) rarely */
	if (total && text->cap - text->len <= total && callus_buf_grow(text, total) < 0)
		return -1;
	for (int c = 0; c < COLS; c++) {
		r->off[c] = v[c] ? text->len : NO_TEXT;
		if (!v[c])
			continue;
		memcpy(text->ptr + text->len, v[c], len[c]);
		text->len += len[c];
	}
	if (total)
		text->ptr[text->len] = '\0';
	return 0;
}

/* The newest max signatures of t->error_type read into t.  An SQLite
 * result code; t holds no rows on failure. */
static int type_read(cand_type *t, callus_store *s, size_t max)
{
	sqlite3_stmt *st = NULL;
	read_row *rr = NULL;
	size_t cap = 0, n = 0;
	int sq;

	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT rowid, id, message_pattern, stack_patterns, original"
				" FROM signatures WHERE error_type = ?1 ORDER BY last_seen DESC"
				" LIMIT ?2",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, t->error_type);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		void *grown = callus_array_grow(rr, &cap, n + 1, sizeof(*rr));

		if (!grown) {
			sq = SQLITE_NOMEM;
			break;
		}
		rr = grown;
		rr[n].rowid = sqlite3_column_int64(st, 0);
		if (put_row(&t->text, st, &rr[n]) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
		n++;
	}
	sqlite3_finalize(st);
	if (sq == SQLITE_DONE && n && !(t->rows = malloc(n * sizeof(*t->rows))))
		sq = SQLITE_NOMEM;
	if (sq == SQLITE_DONE) {
		for (size_t i = 0; i < n; i++) {
			const char **col[COLS] = { &t->rows[i].id, &t->rows[i].stored,
						   &t->rows[i].stack, &t->rows[i].original };

			t->rows[i].rowid = rr[i].rowid;
			for (int c = 0; c < COLS; c++)
				*col[c] = rr[i].off[c] == NO_TEXT ? NULL : t->text.ptr + rr[i].off[c];
		}
		t->n = n;
		t->max = max;
		sq = SQLITE_OK;
	}
	free(rr);
	return sq;
}

int callus_match_candidates_get(callus_match_candidates *c, callus_store *s,
				const char *error_type, size_t max,
				const callus_match_candidate **rows, size_t *n)
{
	cand_type *t = NULL;
	int sq;

	*rows = NULL;
	*n = 0;
	/* a signature added or removed since (a note's, taken in by the
	 * learning's sync) may be one of the newest: all read again */
	{
		int64_t now = signatures_now(s);

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
