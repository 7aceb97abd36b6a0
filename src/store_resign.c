/*
 * store_resign.c - a stored signature given the id a recording gives its
 * error today (store_resign.h): renamed in place, or merged into the row
 * holding that id.
 */
#include "store_resign.h"
#include "callus/buf.h"
#include "callus/signature.h"
#include "callus/strlist.h"

#include "match_internal.h"
#include "notes_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

/* The id row sig has (*had; "" when there is no such row) and the one its
 * error is given today (*now). */
static int ids_of(sqlite3 *db, int64_t sig, char *had, char *now)
{
	sqlite3_stmt *st = NULL;
	callus_buf pattern = CALLUS_BUF_INIT;
	callus_strlist stack = CALLUS_STRLIST_INIT;
	int sq;

	*had = *now = '\0';
	if ((sq = sqlite3_prepare_v2(db,
				     "SELECT id, error_type, message_pattern, original, stack_patterns"
				     " FROM signatures WHERE sig = ?1",
				     -1, &st, NULL)) != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, sig);
	if ((sq = sqlite3_step(st)) != SQLITE_ROW) {
		sq = sq == SQLITE_DONE ? SQLITE_OK : sq;
		goto out;
	}
	sq = SQLITE_OK;
	/* an id callus did not make (not 64 hex digits: a note's, written by
	 * hand) is no hash of its text: left as it is */
	if (sqlite3_column_bytes(st, 0) != CALLUS_SHA256_HEX_LEN)
		goto out;
	if (callus_signature_pattern_load(&pattern, (const char *)sqlite3_column_text(st, 2),
					  (const char *)sqlite3_column_text(st, 3)) < 0 ||
	    callus_sql_json_strlist(&stack, (const char *)sqlite3_column_text(st, 4)) < 0 ||
	    callus_signature_id(now, (const char *)sqlite3_column_text(st, 1), pattern.ptr,
				&stack) < 0)
		sq = SQLITE_NOMEM;
	else
		callus_sql_column_copy(st, 0, had, CALLUS_SHA256_HEX_LEN + 1);
out:
	sqlite3_finalize(st);
	callus_buf_release(&pattern);
	callus_strlist_release(&stack);
	return sq;
}

/*
 * What names the signature by its id (?1) named by ?2 instead.  A note's
 * list of signatures is moved by an insert and a delete, not an update:
 * its triggers keep the count of noted signatures (store_schema.c), which
 * has no update trigger.  A signature names one note: when both have one,
 * ?2's stays its note, and the other keeps its fixes (note_resolutions),
 * by which it is still shown.  A link of the two to each other goes: they
 * are one now.
 */
static const char *const by_id[] = {
	"INSERT OR IGNORE INTO note_signatures (signature_id, note_id)"
	" SELECT ?2, note_id FROM note_signatures WHERE signature_id = ?1",
	"DELETE FROM note_signatures WHERE signature_id = ?1",
	"UPDATE notes SET signature_id = ?2 WHERE signature_id = ?1",
	"UPDATE note_cache SET signature_id = ?2 WHERE signature_id = ?1",
	"UPDATE shared_notes SET signature_id = ?2 WHERE signature_id = ?1",
	"UPDATE resolutions SET signature_id = ?2 WHERE signature_id = ?1",
	"DELETE FROM signature_links WHERE (alias_id = ?1 AND canonical_id = ?2)"
	" OR (alias_id = ?2 AND canonical_id = ?1)",
	"UPDATE OR IGNORE signature_links SET alias_id = ?2 WHERE alias_id = ?1",
	"DELETE FROM signature_links WHERE alias_id = ?1",
	"UPDATE signature_links SET canonical_id = ?2 WHERE canonical_id = ?1",
	/* one level, as readers follow them: what named ?2 as its canonical
	 * names ?2's own, and a link that would name itself goes */
	"DELETE FROM signature_links WHERE canonical_id = ?2"
	" AND alias_id = (SELECT canonical_id FROM signature_links WHERE alias_id = ?2)",
	"UPDATE signature_links SET canonical_id = (SELECT l.canonical_id FROM signature_links l"
	" WHERE l.alias_id = ?2) WHERE canonical_id = ?2"
	" AND EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = ?2)",
};

static int move_names(sqlite3 *db, const char *from, const char *to)
{
	const char *const ids[] = { from, to };
	int sq = SQLITE_OK;

	for (size_t i = 0; i < sizeof(by_id) / sizeof(by_id[0]) && sq == SQLITE_OK; i++)
		sq = callus_sql_exec_texts(db, by_id[i], ids, 2);
	return sq;
}

/* An open error of one check under each row, ?1 the earlier (kept) and
 * ?2 the later: one error, with the attempts of both when one's failures
 * all came after the other's (the upgrade split them: the runs after it
 * failed under the new id only), else the larger (two old errors that
 * differ by their secrets alone failed in the same runs), the later failure,
 * the files of both and the suggestions made to either (an outcome
 * reported for one kept with the other's copy, and its applications
 * naming that one); the later row goes. */
static const char *const fold_open[] = {
	"UPDATE pending_errors SET attempts = CASE"
	"  WHEN o.first_failure_at > pending_errors.last_failure_at"
	"  OR pending_errors.first_failure_at > o.last_failure_at"
	"  THEN pending_errors.attempts + o.attempts"
	"  ELSE max(pending_errors.attempts, o.attempts) END,"
	" last_failure_at = max(pending_errors.last_failure_at, o.last_failure_at),"
	" files = (SELECT json_group_array(value) FROM (SELECT value FROM"
	"  json_each(pending_errors.files) UNION SELECT value FROM json_each(o.files)))"
	" FROM (SELECT attempts, first_failure_at, last_failure_at, files FROM pending_errors"
	"  WHERE id = ?2) o"
	" WHERE id = ?1",
	"UPDATE suggestions SET outcome = o.outcome, outcome_at = o.outcome_at"
	" FROM (SELECT resolution_id, outcome, outcome_at FROM suggestions"
	"  WHERE pending_id = ?2 AND outcome IS NOT NULL) o"
	" WHERE suggestions.pending_id = ?1 AND suggestions.resolution_id = o.resolution_id"
	" AND suggestions.outcome IS NULL",
	"UPDATE applications SET suggestion_id = (SELECT k.id FROM suggestions k"
	" JOIN suggestions d ON d.resolution_id = k.resolution_id"
	" WHERE d.id = applications.suggestion_id AND k.pending_id = ?1)"
	" WHERE suggestion_id IN (SELECT d.id FROM suggestions d JOIN suggestions k"
	" ON k.resolution_id = d.resolution_id AND k.pending_id = ?1 WHERE d.pending_id = ?2)",
	"UPDATE OR IGNORE suggestions SET pending_id = ?1 WHERE pending_id = ?2",
	"DELETE FROM pending_errors WHERE id = ?2",
};

/* The features of row sig's message counted out of the document
 * frequencies, as gc.c does for a row it removes, when it has a built-in
 * vector (their count went in with it).  Only for a row whose text is the
 * one they were counted from: the row being signed again holds its
 * redacted text, whose features (a redaction's words) it never added; its
 * old features stay counted, some tens, where counting out the new ones
 * took every redaction's words below zero. */
static int df_out(callus_store *s, int64_t sig)
{
	sqlite3_stmt *st = NULL;
	callus_signature g;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT " CALLUS_MATCH_SIGNATURE_COLUMNS " FROM signatures"
				    " WHERE sig = ?1 AND EXISTS (SELECT 1 FROM signature_vectors v"
				    " WHERE v.sig = ?1 AND v.model = " CALLUS_MATCH_BUILTIN_ID ")",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, sig);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW &&
	    (sq = callus_match_read_signature(st, 0, &g)) == SQLITE_OK) {
		sq = callus_match_df_count(s, &g, -1);
		callus_signature_release(&g);
	}
	sqlite3_finalize(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* Row ?1's errors, runs and counts moved to row ?2, and row ?1 gone; its
 * features counted out of the document frequencies when counted says its
 * text is the one they were counted from (not the row just redacted). */
static int move_rows(callus_store *s, int64_t from, int64_t to, int counted)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *st = NULL;
	const int64_t rows[] = { from, to };
	int sq;

	if ((sq = sqlite3_prepare_v2(db,
				     "SELECT min(a.id, b.id), max(a.id, b.id) FROM pending_errors a"
				     " JOIN pending_errors b ON b.check_id = a.check_id AND b.sig = ?2"
				     " AND b.state = 'pending' WHERE a.sig = ?1 AND a.state = 'pending'",
				     -1, &st, NULL)) != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, from);
	sqlite3_bind_int64(st, 2, to);
	/* read whole before writing: at most one pair a check */
	{
		int64_t *pairs = NULL;
		size_t n = 0, cap = 0;

		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t *grown = callus_array_grow(pairs, &cap, n + 2, sizeof(*pairs));

			if (!grown) {
				sq = SQLITE_NOMEM;
				break;
			}
			pairs = grown;
			pairs[n++] = sqlite3_column_int64(st, 0);
			pairs[n++] = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
		sq = sq == SQLITE_DONE ? SQLITE_OK : sq;
		for (size_t i = 0; i + 1 < n && sq == SQLITE_OK; i += 2)
			for (size_t k = 0; k < sizeof(fold_open) / sizeof(fold_open[0]) &&
					   sq == SQLITE_OK;
			     k++)
				sq = callus_sql_exec_ints(db, fold_open[k], &pairs[i], 2);
		free(pairs);
	}
	if (sq == SQLITE_OK)
		sq = callus_sql_exec_ints(db, "UPDATE pending_errors SET sig = ?2 WHERE sig = ?1",
					  rows, 2);
	/* a scan of the runs' errors (indexed by signature only where their
	 * message is the original's, ''), once a row merged; those take the
	 * merged row's original, which goes with it */
	if (sq == SQLITE_OK)
		sq = callus_sql_exec_ints(db,
					  "UPDATE run_errors SET sig = ?2, message = iif(message = '',"
					  " (SELECT original FROM signatures WHERE sig = ?1), message)"
					  " WHERE sig = ?1",
					  rows, 2);
	if (sq == SQLITE_OK)
		sq = callus_sql_exec_ints(db,
					  "UPDATE signatures SET occurrence_count = signatures.occurrence_count"
					  " + o.occurrence_count, first_seen = min(signatures.first_seen,"
					  " o.first_seen), last_seen = max(signatures.last_seen, o.last_seen)"
					  " FROM (SELECT occurrence_count, first_seen, last_seen FROM"
					  " signatures WHERE sig = ?1) o WHERE sig = ?2",
					  rows, 2);
	if (sq == SQLITE_OK && counted)
		sq = df_out(s, from);
	if (sq == SQLITE_OK)
		sq = callus_sql_exec_ints(db, "DELETE FROM signatures_unindexed WHERE sig_rowid = ?1",
					  rows, 1);
	/* its vectors go with it (a trigger), and the noted count with them */
	if (sq == SQLITE_OK)
		sq = callus_sql_exec_ints(db, "DELETE FROM signatures WHERE sig = ?1", rows, 1);
	return sq;
}

/* A row's vectors, kept across its rename. */
typedef struct vector {
	int64_t model;
	void *blob;
	int size;
} vector;

typedef struct vectors {
	vector *v;
	size_t n, cap;
} vectors;

static void vectors_release(vectors *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->v[i].blob);
	free(v->v);
	memset(v, 0, sizeof(*v));
}

/*
 * The row's vectors taken out while it is renamed, and put back after:
 * the noted count's triggers read a note's signature by its id, so the
 * count follows a vector removed under the old id and added under the new
 * one, where a rename under a vector would leave it counting the old.
 */
static int vectors_take(sqlite3 *db, int64_t sig, vectors *v)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(db, "SELECT model, vector FROM signature_vectors WHERE sig = ?1",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, sig);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		int size = sqlite3_column_bytes(st, 1);
		vector *grown = callus_array_grow(v->v, &v->cap, v->n + 1, sizeof(*grown));

		if (!grown || !(grown[v->n].blob = malloc(size ? (size_t)size : 1))) {
			if (grown)
				v->v = grown;
			sq = SQLITE_NOMEM;
			break;
		}
		v->v = grown;
		if (size)
			memcpy(v->v[v->n].blob, sqlite3_column_blob(st, 1), (size_t)size);
		v->v[v->n].size = size;
		v->v[v->n++].model = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE)
		return sq;
	return callus_sql_exec_ints(db, "DELETE FROM signature_vectors WHERE sig = ?1", &sig, 1);
}

static int vectors_put(sqlite3 *db, int64_t sig, const vectors *v)
{
	sqlite3_stmt *st = NULL;
	int sq = SQLITE_OK;

	if (!v->n)
		return SQLITE_OK;
	if ((sq = sqlite3_prepare_v2(db,
				     "INSERT INTO signature_vectors (sig, model, vector) VALUES (?1, ?2, ?3)",
				     -1, &st, NULL)) != SQLITE_OK)
		return sq;
	for (size_t i = 0; i < v->n && sq == SQLITE_OK; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, sig);
		sqlite3_bind_int64(st, 2, v->v[i].model);
		sqlite3_bind_blob(st, 3, v->v[i].blob, v->v[i].size, SQLITE_STATIC);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
	}
	sqlite3_finalize(st);
	return sq;
}

/* Row sig, named had, takes the id now no row has. */
static int rename_row(sqlite3 *db, int64_t sig, const char *had, const char *now)
{
	vectors v = { 0 };
	int sq;

	if ((sq = vectors_take(db, sig, &v)) == SQLITE_OK &&
	    (sq = move_names(db, had, now)) == SQLITE_OK) {
		sqlite3_stmt *st = NULL;

		if ((sq = sqlite3_prepare_v2(db, "UPDATE signatures SET id = ?1 WHERE sig = ?2", -1,
					     &st, NULL)) == SQLITE_OK) {
			callus_sql_bind_text(st, 1, now);
			sqlite3_bind_int64(st, 2, sig);
			sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
			sqlite3_finalize(st);
		}
	}
	if (sq == SQLITE_OK)
		sq = vectors_put(db, sig, &v);
	vectors_release(&v);
	return sq;
}

/* SQLITE_ROW when a layer's note names id, SQLITE_OK when none does. */
static int layer_named(sqlite3 *db, const char *id)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(db,
				    "SELECT 1 WHERE EXISTS (SELECT 1 FROM note_cache WHERE signature_id = ?1)"
				    " OR EXISTS (SELECT 1 FROM shared_notes WHERE signature_id = ?1)",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, id);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

int callus_store_resign(callus_store *s, int64_t sig, char id[CALLUS_SHA256_HEX_LEN + 1],
			int *merged)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *st = NULL;
	char had[CALLUS_SHA256_HEX_LEN + 1], now[CALLUS_SHA256_HEX_LEN + 1];
	int64_t other = 0;
	int sq;

	if (id)
		*id = '\0';
	if (merged)
		*merged = 0;
	if ((sq = ids_of(db, sig, had, now)) != SQLITE_OK || !*had)
		return sq;
	if (!strcmp(had, now))
		goto out;
	/* the id a team or org note names is the layer's, every workspace's
	 * (a cached note's row is made under it, of its example: no id of its
	 * text), which a pull writes back: kept */
	if ((sq = layer_named(db, had)) != SQLITE_OK) {
		if (sq != SQLITE_ROW)
			return sq;
		memcpy(now, had, sizeof(now));
		goto out;
	}
	/* a name and the row it names change in two statements: checked at
	 * the commit (the pragma ends with the transaction) */
	if ((sq = sqlite3_exec(db, "PRAGMA defer_foreign_keys = ON", NULL, NULL, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(db, "SELECT sig FROM signatures WHERE id = ?1", -1, &st,
				     NULL)) != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, now);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW)
		other = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (sq != SQLITE_ROW && sq != SQLITE_DONE)
		return sq;
	if (!other) {
		sq = rename_row(db, sig, had, now);
	} else if (other > sig) {
		/* the newer row stays: it has the id already */
		if ((sq = move_names(db, had, now)) == SQLITE_OK)
			sq = move_rows(s, sig, other, 0);
	} else {
		/* this row is the newer: the other comes into it under the
		 * old id, which it then gives up */
		if ((sq = move_names(db, now, had)) == SQLITE_OK &&
		    (sq = move_rows(s, other, sig, 1)) == SQLITE_OK)
			sq = rename_row(db, sig, had, now);
	}
	if (sq != SQLITE_OK)
		return sq;
	/* a note the gone row had is the one row's now: its vector in the
	 * noted signatures' file (a record the gone row left finds nothing) */
	if (other)
		callus_notes_vectors_add(s, now);
	if (merged)
		*merged = other != 0;
out:
	if (id)
		memcpy(id, now, sizeof(now));
	return SQLITE_OK;
}
