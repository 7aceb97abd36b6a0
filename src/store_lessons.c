/*
 * store_lessons.c - lessons in the store: recording one with the run it
 * came from and its error signatures, in one transaction
 * (callus_store_record_lesson), and reading them back (list, lowest value,
 * get by id prefix).  Apart from opening the store (store.c) and its
 * schema (store_schema.c): these are the queries, and they change with
 * what a lesson holds.
 */
#include "callus/store.h"
#include "callus/child.h"
#include "callus/buf.h"
#include "callus/signature.h"
#include "callus/strlist.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *files_json(const callus_lesson *l)
{
	/* a view of the lesson's array: no index, nothing of its own to free */
	callus_strlist files = { .items = l->affected_files,
				 .count = l->affected_count,
				 .alloc = l->affected_count };

	return callus_sql_strlist_json(&files);
}

static int insert_run(callus_store *s, const callus_lesson *l, const callus_run_info *run,
		      sqlite3_int64 *run_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(callus_store_db(s),
				"INSERT INTO runs (at, tool, command, cwd, exit_code, intent_id,"
				" output_bytes, origin, learn_owed) VALUES (?,?,?,?,?,?,?,?,?)", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return rc;
	callus_sql_bind_text(st, 1, l->last_seen);
	callus_sql_bind_text(st, 2, l->tool);
	callus_sql_bind_text(st, 3, l->command);
	callus_sql_bind_text(st, 4, run ? run->cwd : "");
	sqlite3_bind_int(st, 5, l->exit_code);
	callus_sql_bind_text(st, 6, run && run->intent_id ? run->intent_id : l->intent_id);
	sqlite3_bind_int64(st, 7, run ? (sqlite3_int64)run->output_bytes : 0);
	if (run && run->origin) {
		callus_sql_bind_text(st, 8, run->origin);
		if (run->learn_owed)
			sqlite3_bind_int(st, 9, 1);
	}
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc;
	*run_id = sqlite3_last_insert_rowid(callus_store_db(s));
	return SQLITE_OK;
}

/* The statement *st, prepared from sql when it is not yet, else reset
 * (whose result is the last step's, told to its caller then). */
static int prepared(callus_store *s, sqlite3_stmt **st, const char *sql)
{
	if (!*st)
		return sqlite3_prepare_v2(callus_store_db(s), sql, -1, st, NULL);
	sqlite3_reset(*st);
	return SQLITE_OK;
}

/* The contexts row of a run's signatures (schema 28): the last list
 * looked up and its ctx, and the two statements, prepared at the first
 * list that needs them. */
typedef struct context_ids {
	sqlite3_stmt *get, *put;
	char *json;
	int64_t ctx;
} context_ids;

static void context_ids_release(context_ids *c)
{
	sqlite3_finalize(c->get);
	sqlite3_finalize(c->put);
	free(c->json);
}

/* *ctx := the ctx naming the list json (JSON) in contexts, put there when
 * new; none ("[]") is 0 and has no row.  json becomes c's.  An SQLite
 * result code. */
static int context_id(callus_store *s, context_ids *c, char *json, int64_t *ctx)
{
	sqlite3 *db = callus_store_db(s);
	int sq = SQLITE_OK;

	/* a run's errors mostly share their list: looked up once */
	if (c->json && !strcmp(c->json, json)) {
		free(json);
		*ctx = c->ctx;
		return SQLITE_OK;
	}
	free(c->json);
	c->json = json;
	c->ctx = 0;
	if (!strcmp(json, "[]"))
		goto out;
	if ((sq = prepared(s, &c->get, "SELECT ctx FROM contexts WHERE patterns = ?1")) != SQLITE_OK)
		goto out;
	callus_sql_bind_text(c->get, 1, json);
	sq = sqlite3_step(c->get);
	if (sq == SQLITE_ROW)
		c->ctx = sqlite3_column_int64(c->get, 0);
	sqlite3_reset(c->get);
	if (sq != SQLITE_DONE) {
		sq = sq == SQLITE_ROW ? SQLITE_OK : sq;
		goto out;
	}
	if ((sq = prepared(s, &c->put, "INSERT INTO contexts (patterns) VALUES (?1)")) != SQLITE_OK)
		goto out;
	callus_sql_bind_text(c->put, 1, json);
	if ((sq = sqlite3_step(c->put)) == SQLITE_DONE) {
		sq = SQLITE_OK;
		c->ctx = sqlite3_last_insert_rowid(db);
	} else {
		sq = sqlite3_errcode(db);
	}
out:
	/* a list not looked up is not remembered */
	if (sq != SQLITE_OK) {
		free(c->json);
		c->json = NULL;
	}
	*ctx = c->ctx;
	return sq;
}

void callus_store_noted_sketch(char out[CALLUS_STORE_SKETCH_DIGITS], const char *original)
{
	snprintf(out, CALLUS_STORE_SKETCH_DIGITS, "%lld",
		 (long long)callus_signature_sketch(NULL, original, 0));
}

/* The run's signatures as stored: each one's rowid and original message,
 * which its errors' rows name (run_errors), by the signature's id. */
typedef struct stored_sig_row {
	int64_t rowid;
	char *original;
} stored_sig_row;

typedef struct stored_sigs {
	callus_strlist ids;    /* indexed */
	stored_sig_row *rows;  /* ids.count of them, room for cap */
	size_t cap;
	sqlite3_stmt *get;     /* looks up a signature the run does not list */
} stored_sigs;

static void stored_sigs_release(stored_sigs *k)
{
	for (size_t i = 0; k->rows && i < k->ids.count; i++)
		free(k->rows[i].original);
	free(k->rows);
	callus_strlist_release(&k->ids);
	sqlite3_finalize(k->get);
	memset(k, 0, sizeof(*k));
}

/* id's row (rowid, original: k's, freed on failure) appended to k.  An
 * SQLite result code. */
static int stored_sig_add(stored_sigs *k, const char *id, int64_t rowid, char *original)
{
	stored_sig_row *rows = callus_array_grow(k->rows, &k->cap, k->ids.count + 1, sizeof(*rows));

	if (!rows || callus_strlist_add(&k->ids, id, strlen(id)) < 0) {
		k->rows = rows ? rows : k->rows;
		free(original);
		return SQLITE_NOMEM;
	}
	k->rows = rows;
	k->rows[k->ids.count - 1].rowid = rowid;
	k->rows[k->ids.count - 1].original = original;
	return SQLITE_OK;
}

/* Signature id's row in the store, its rowid and a copy of its original
 * (the caller's): SQLITE_ROW; SQLITE_DONE when there is none; or an SQLite
 * result code (SQLITE_NOMEM when the original cannot be copied). */
static int lookup_sig(callus_store *s, stored_sigs *k, const char *id, int64_t *rowid,
		      char **original)
{
	int sq;

	*original = NULL;
	if ((sq = prepared(s, &k->get, "SELECT sig, original FROM signatures WHERE id = ?")) !=
	    SQLITE_OK)
		return sq;
	callus_sql_bind_text(k->get, 1, id);
	if ((sq = sqlite3_step(k->get)) == SQLITE_ROW) {
		*rowid = sqlite3_column_int64(k->get, 0);
		if (!(*original = callus_sql_column_dup(k->get, 1)))
			sq = SQLITE_NOMEM;
	}
	sqlite3_reset(k->get);
	return sq;
}

/* Signature id's row as stored, its place in k in *at: SQLITE_OK, with *at
 * k->ids.count when the store has no such signature; or an SQLite result
 * code. */
static int stored_sig(callus_store *s, stored_sigs *k, const char *id, size_t *at)
{
	int64_t rowid = 0;
	char *original;
	int sq;

	if (callus_strlist_find(&k->ids, id, strlen(id), at))
		return SQLITE_OK;
	*at = k->ids.count;
	if ((sq = lookup_sig(s, k, id, &rowid, &original)) != SQLITE_ROW)
		return sq == SQLITE_DONE ? SQLITE_OK : sq;
	sq = stored_sig_add(k, id, rowid, original);
	*at = k->ids.count - 1;
	return sq;
}

/* Of a run's error rows, how many one statement inserts: a statement's
 * every execution opens and closes its cursors and seeks the table's and
 * its indexes' ends, for one row or eight (a megabyte of distinct errors,
 * its thousand rows: 236.8 -> 233.6 million instructions through the
 * hook, bench/record1m.sh).  The rows past the last eight go in one by
 * one, and all of a run of fewer than RUN_ERRORS_BATCHED: the eight rows'
 * statement, compiled, costs more than it saves them (ten errors: +0.06
 * million, bench/hookinstr.sh). */
#define RUN_ERRORS_BATCH 8
#define RUN_ERRORS_BATCHED 64
#define RUN_ERROR_COLUMNS "INSERT INTO run_errors (run_id, file, line, col, code, message, sig) VALUES"
#define RUN_ERROR_ROW(a, b, c, d, e, f) "(?1,?" #a ",?" #b ",?" #c ",?" #d ",?" #e ",?" #f ")"

/* d's row into parameters from+0 .. from+5 of st (?1 is the run's): its
 * message kept only where it is not its signature's original ('' then),
 * its signature by rowid (NULL for one the store has not).  The texts are
 * the run's diagnostics', which outlive the statement: not copied. */
static void bind_error_row(sqlite3_stmt *st, int from, const callus_diag *d, const stored_sigs *k,
			   size_t at, int known)
{
	callus_sql_bind_text_or_null_kept(st, from, d->file);
	sqlite3_bind_int64(st, from + 1, d->line);
	sqlite3_bind_int64(st, from + 2, d->column);
	callus_sql_bind_text_or_null_kept(st, from + 3, d->code);
	callus_sql_bind_text_kept(st, from + 4,
				  known && d->message && !strcmp(k->rows[at].original, d->message)
					  ? ""
					  : d->message);
	if (known)
		sqlite3_bind_int64(st, from + 5, k->rows[at].rowid);
	else
		sqlite3_bind_null(st, from + 5);
}

/*
 * A row for each of the run's errors (bind_error_row), in their order.
 * The signatures' rows are k's (insert_signatures kept them): one row's
 * insert, where an INSERT ... SELECT joining signatures by id sought the
 * signature again at every error and wrote a statement journal for each
 * (20 million instructions of a thousand errors' recording); eight rows a
 * statement in a run of RUN_ERRORS_BATCHED errors or more.  An SQLite
 * result code.
 */
static int insert_run_errors(callus_store *s, const callus_run_info *run, int64_t run_id,
			     stored_sigs *k)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *one = NULL, *eight = NULL;
	const char *last = NULL;
	size_t at = 0, n;
	int rc = SQLITE_OK, filled = 0;

	if (!run || !run->diags || !run->diags->count)
		return SQLITE_OK;
	n = run->diags->count;
	if (n >= RUN_ERRORS_BATCHED)
		rc = sqlite3_prepare_v2(db,
					RUN_ERROR_COLUMNS " " RUN_ERROR_ROW(2, 3, 4, 5, 6, 7) ","
					RUN_ERROR_ROW(8, 9, 10, 11, 12, 13) ","
					RUN_ERROR_ROW(14, 15, 16, 17, 18, 19) ","
					RUN_ERROR_ROW(20, 21, 22, 23, 24, 25) ","
					RUN_ERROR_ROW(26, 27, 28, 29, 30, 31) ","
					RUN_ERROR_ROW(32, 33, 34, 35, 36, 37) ","
					RUN_ERROR_ROW(38, 39, 40, 41, 42, 43) ","
					RUN_ERROR_ROW(44, 45, 46, 47, 48, 49),
					-1, &eight, NULL);
	if (rc == SQLITE_OK && (!eight || n % RUN_ERRORS_BATCH))
		rc = sqlite3_prepare_v2(db, RUN_ERROR_COLUMNS " " RUN_ERROR_ROW(2, 3, 4, 5, 6, 7), -1,
					&one, NULL);
	if (eight)
		sqlite3_bind_int64(eight, 1, run_id);
	if (one)
		sqlite3_bind_int64(one, 1, run_id);
	for (size_t i = 0; rc == SQLITE_OK && i < n; i++) {
		const callus_diag *d = &run->diags->items[i];
		/* the last rows, fewer than a batch: one by one */
		int batched = eight && i < n - n % RUN_ERRORS_BATCH;
		sqlite3_stmt *st = batched ? eight : one;
		int known;

		/* a build's errors come in runs of one signature */
		if (d->signature && !(last && !strcmp(last, d->signature))) {
			if ((rc = stored_sig(s, k, d->signature, &at)) != SQLITE_OK)
				break;
			last = d->signature;
		}
		known = d->signature && at < k->ids.count;
		bind_error_row(st, 2 + 6 * (batched ? filled : 0), d, k, at, known);
		if (batched && ++filled < RUN_ERRORS_BATCH)
			continue;
		filled = 0;
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
		sqlite3_reset(st);
	}
	sqlite3_finalize(eight);
	sqlite3_finalize(one);
	return rc;
}

/* The signature stored as rowid: one more occurrence, seen at now, in
 * context ctx (an SQLite result code). */
static int count_signature(callus_store *s, sqlite3_stmt **st, int64_t rowid, const char *now,
			   int64_t ctx)
{
	int rc = prepared(s, st,
			  "UPDATE signatures SET occurrence_count = occurrence_count + 1,"
			  " first_seen = min(first_seen, " CALLUS_SQL_EPOCH_KNOWN("?4", "?2") "),"
			  " last_seen = max(last_seen, " CALLUS_SQL_EPOCH_KNOWN("?4", "?2") "), ctx = ?3"
			  " WHERE sig = ?1");

	if (rc != SQLITE_OK)
		return rc;
	sqlite3_bind_int64(*st, 1, rowid);
	callus_sql_bind_text(*st, 2, now);
	sqlite3_bind_int64(*st, 3, ctx);
	/* SQLite read the time twice a row: 256 KB of go's errors (a
	 * thousand signatures counted again) 182.93 -> 182.15 million
	 * instructions, bench/tool_outputs.sh */
	callus_sql_bind_epoch(*st, 4, now);
	return sqlite3_step(*st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
}

/* Signature g, new to the store, stored with pattern (its stored form) and
 * context ctx, seen at now; its rowid in *rowid (an SQLite result code). */
static int add_signature(callus_store *s, sqlite3_stmt **st, const callus_signature *g,
			 const char *pattern, const char *stack, int64_t ctx, const char *now,
			 int64_t *rowid)
{
	int rc = prepared(s, st,
			  "INSERT INTO signatures (id, error_type, message_pattern, stack_patterns,"
			  " ctx, original, tool, sketch, first_seen, last_seen)"
			  " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?9, " CALLUS_SQL_EPOCH_KNOWN("?10", "?8") ", "
			  CALLUS_SQL_EPOCH_KNOWN("?10", "?8") ")");

	if (rc != SQLITE_OK)
		return rc;
	callus_sql_bind_text(*st, 1, g->id);
	callus_sql_bind_text(*st, 2, g->error_type);
	callus_sql_bind_text(*st, 3, pattern);
	callus_sql_bind_text(*st, 4, stack);
	sqlite3_bind_int64(*st, 5, ctx);
	callus_sql_bind_text(*st, 6, g->original);
	callus_sql_bind_text(*st, 7, g->tool);
	callus_sql_bind_text(*st, 8, now);
	callus_sql_bind_epoch(*st, 10, now);
	/* from the pattern the signature holds: its walk is cheaper than a
	 * second scan of the original */
	sqlite3_bind_int64(*st, 9,
			   callus_signature_sketch(g->message_pattern, g->original,
						   g->stack_patterns.count > 0));
	if (sqlite3_step(*st) != SQLITE_DONE)
		return sqlite3_errcode(callus_store_db(s));
	*rowid = sqlite3_last_insert_rowid(callus_store_db(s));
	return SQLITE_OK;
}

/*
 * Each signature of the run: stored once, one more occurrence per run,
 * its row as stored kept in k.  *fresh: how many were stored for the first
 * time.  Looked up, then counted or added, in the recording's transaction:
 * an upsert returning the row (ON CONFLICT ... RETURNING) made SQLite open
 * a table for the returned row and keep a statement journal at every
 * signature, and compiled both its paths.
 */
static int insert_signatures(callus_store *s, const callus_run_info *run, const char *now,
			     stored_sigs *k, size_t *fresh)
{
	sqlite3_stmt *ins = NULL, *upd = NULL;
	context_ids ctxs = { NULL, NULL, NULL, 0 };
	int rc = SQLITE_OK;

	*fresh = 0;
	if (!run || !run->nsigs)
		return SQLITE_OK;
	if (callus_strlist_index(&k->ids) < 0)
		return SQLITE_NOMEM;
	for (size_t i = 0; rc == SQLITE_OK && i < run->nsigs; i++) {
		const callus_signature *g = &run->sigs[i];
		char *stack = callus_sql_strlist_json(&g->stack_patterns);
		char *json = callus_sql_strlist_json(&g->context_patterns);
		char *original = NULL;
		const char *pattern;
		int64_t ctx, rowid = 0;

		if (!stack || !json || callus_signature_pattern_stored(g, &pattern) < 0) {
			free(stack);
			free(json);
			rc = SQLITE_NOMEM;
			break;
		}
		if ((rc = context_id(s, &ctxs, json, &ctx)) == SQLITE_OK) {
			rc = lookup_sig(s, k, g->id, &rowid, &original);
			if (rc == SQLITE_ROW)
				rc = count_signature(s, &upd, rowid, now, ctx);
			else if (rc == SQLITE_DONE &&
				 (rc = add_signature(s, &ins, g, pattern, stack, ctx, now, &rowid)) ==
					 SQLITE_OK) {
				(*fresh)++;
				if (!(original = strdup(g->original ? g->original : "")))
					rc = SQLITE_NOMEM;
			}
		}
		if (rc == SQLITE_OK)
			rc = stored_sig_add(k, g->id, rowid, original);
		else
			free(original);
		free(stack);
	}
	context_ids_release(&ctxs);
	sqlite3_finalize(ins);
	sqlite3_finalize(upd);
	return rc;
}

/* 1 when sql (?1 the origin) has a row, 0 when not, -1 with *sq set. */
static int origin_has(callus_store *s, const char *sql, const char *origin, int *sq)
{
	sqlite3_stmt *st = NULL;
	int seen = 0;

	if ((*sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL)) != SQLITE_OK)
		return -1;
	callus_sql_bind_text(st, 1, origin);
	if ((*sq = sqlite3_step(st)) == SQLITE_ROW)
		seen = 1;
	else if (*sq != SQLITE_DONE)
		seen = -1;
	sqlite3_finalize(st);
	return seen;
}

/* 1 when a run of this origin is stored already, 0 when not: the origin's
 * index alone, at every queued recording. */
static int seen_origin(callus_store *s, const char *origin, int *sq)
{
	return origin_has(s, "SELECT 1 FROM runs WHERE origin = ?", origin, sq);
}

int callus_store_learn_owed(callus_store *s, const char *origin, callus_error *err)
{
	int sq, owed;

	if (!origin)
		return 0;
	owed = origin_has(s, "SELECT 1 FROM runs WHERE origin = ? AND learn_owed IS NOT NULL",
			  origin, &sq);
	return owed < 0 ? callus_store_db_error(s, err, sq, "cannot read") : owed;
}

int callus_store_runs_seen(callus_store *s, const char *skip, callus_run_seen **out, size_t *n,
			   char **gone_before, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	callus_run_seen *r = NULL;
	size_t count = 0, cap = 0;
	int sq, rc, snap;

	*out = NULL;
	*n = 0;
	if (gone_before)
		*gone_before = NULL;
	if ((rc = callus_store_read_begin(s, &snap, err)) < 0)
		return rc;
	if (gone_before &&
	    (rc = callus_store_state_get(s, CALLUS_STORE_RUNS_GONE_KEY, gone_before, err)) < 0)
		goto out;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT intent_id, command, unixepoch(at) FROM runs"
				" WHERE intent_id <> '' AND (?1 IS NULL OR origin IS NULL"
				"  OR substr(origin, 1, length(?1)) <> ?1)"
				" ORDER BY intent_id, command, at",
				-1, &st, NULL);
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read the runs");
		goto out;
	}
	if (skip)
		callus_sql_bind_text(st, 1, skip);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *a = sqlite3_column_text(st, 0), *c = sqlite3_column_text(st, 1);

		callus_run_seen *g = callus_array_grow(r, &cap, count + 1, sizeof(*r));

		if (!g) {
			sq = SQLITE_NOMEM;
			break;
		}
		r = g;
		r[count].session = strdup(a ? (const char *)a : "");
		r[count].command = strdup(c ? (const char *)c : "");
		r[count].at = sqlite3_column_int64(st, 2);
		count++;
		if (!r[count - 1].session || !r[count - 1].command) {
			sq = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE) {
		callus_runs_seen_free(r, count);
		rc = sq == SQLITE_NOMEM ? callus_error_set(err, CALLUS_ENOMEM, "out of memory")
					: callus_store_db_error(s, err, sq, "cannot read the runs");
		goto out;
	}
	*out = r;
	*n = count;
	rc = 0;
out:
	callus_store_read_end(s, snap);
	if (rc < 0 && gone_before) {
		free(*gone_before);
		*gone_before = NULL;
	}
	return rc;
}

void callus_runs_seen_free(callus_run_seen *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].session);
		free(r[i].command);
	}
	free(r);
}

static int replace_str(char **dst, const unsigned char *src)
{
	char *c = strdup(src ? (const char *)src : "");

	if (!c)
		return CALLUS_ENOMEM;
	free(*dst);
	*dst = c;
	return 0;
}


int callus_store_lesson_known_as(callus_store *s, callus_lesson *l, const char *former,
				 callus_error *err)
{
	sqlite3_stmt *st = NULL;
	char *sig;
	int sq;

	if (!former || !l->signature || !strcmp(former, l->signature))
		return 0;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT signature = ?2 FROM lessons WHERE signature IN (?1, ?2)"
				" ORDER BY signature = ?2 LIMIT 1",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read");
	callus_sql_bind_text(st, 1, l->signature);
	callus_sql_bind_text(st, 2, former);
	sq = sqlite3_step(st);
	if (sq == SQLITE_ROW && sqlite3_column_int(st, 0)) {
		if (!(sig = strdup(former))) {
			sqlite3_finalize(st);
			return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		}
		free(l->signature);
		l->signature = sig;
	}
	sqlite3_finalize(st);
	if (sq != SQLITE_ROW && sq != SQLITE_DONE)
		return callus_store_db_error(s, err, sq, "cannot read");
	return 0;
}

/* What a lesson's recording sets when its signature is stored already:
 * the words a person gave kept unless new ones are given.  The upsert's
 * SET and the recurrence's UPDATE share it, so both write the same. */
#define LESSON_AGAIN                                                                        \
	" occurrences = occurrences + 1, last_seen = max(last_seen, ?14),"                   \
	" exit_code = ?12,"                                                                  \
	" cause = CASE WHEN ?6 <> '' THEN ?6 ELSE cause END,"                                \
	" resolution = CASE WHEN ?7 <> '' THEN ?7 ELSE resolution END,"                      \
	" corrective_rule = CASE WHEN ?8 <> '' THEN ?8 ELSE corrective_rule END"
#define LESSON_RETURNING                                                                    \
	" RETURNING id, occurrences, timestamp, cause, resolution, corrective_rule, intent_id"

/* The lesson's row updated when its signature is stored (no row: *found
 * 0), or inserted (no row when the signature is stored), or either; the
 * three take the same parameters. */
#define LESSON_RECURS "UPDATE lessons SET" LESSON_AGAIN " WHERE signature = ?1" LESSON_RETURNING
#define LESSON_INSERT                                                                       \
	"INSERT INTO lessons (signature, timestamp, type, file, error_summary, cause,"        \
	" resolution, corrective_rule, intent_id, tool, command, exit_code,"                 \
	" affected_files, occurrences, last_seen)"                                           \
	" VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,1,?14)"
#define LESSON_UPSERT LESSON_INSERT " ON CONFLICT (signature) DO UPDATE SET" LESSON_AGAIN LESSON_RETURNING

/* How write_lesson() writes a lesson: as a recurrence, as a new one, or
 * as either. */
enum lesson_write { WRITE_RECURS, WRITE_NEW, WRITE_EITHER };

/* Write l as how says, its affected files as JSON in files: l's id,
 * occurrences and kept words read back from the row (a new row holds
 * l's), *found 1; *found 0 when no row was written.  An SQLite code
 * (SQLITE_NOMEM when a word cannot be copied). */
static int write_lesson(callus_store *s, callus_lesson *l, const char *files,
			 enum lesson_write how, int *found)
{
	static const char *const sql[] = {
		[WRITE_RECURS] = LESSON_RECURS,
		[WRITE_NEW] = LESSON_INSERT,
		[WRITE_EITHER] = LESSON_UPSERT,
	};
	sqlite3_stmt *st = NULL;
	int sq;

	*found = 0;
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql[how], -1, &st, NULL)) != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, l->signature);
	callus_sql_bind_text(st, 2, l->timestamp);
	callus_sql_bind_text(st, 3, callus_lesson_type_name(l->type));
	callus_sql_bind_text(st, 4, l->file);
	callus_sql_bind_text(st, 5, l->error_summary);
	callus_sql_bind_text(st, 6, l->cause);
	callus_sql_bind_text(st, 7, l->resolution);
	callus_sql_bind_text(st, 8, l->corrective_rule);
	callus_sql_bind_text(st, 9, l->intent_id);
	callus_sql_bind_text(st, 10, l->tool);
	callus_sql_bind_text(st, 11, l->command);
	sqlite3_bind_int(st, 12, l->exit_code);
	callus_sql_bind_text(st, 13, files);
	callus_sql_bind_text(st, 14, l->last_seen);
	sq = sqlite3_step(st);
	if (how == WRITE_NEW) {
		if (sq == SQLITE_DONE) {
			*found = 1;
			l->id = sqlite3_last_insert_rowid(callus_store_db(s));
			l->occurrences = 1;
			sq = SQLITE_OK;
		} else if (sqlite3_extended_errcode(callus_store_db(s)) ==
			   SQLITE_CONSTRAINT_UNIQUE) {
			/* stored: only its signature is unique */
			sq = SQLITE_OK;
		}
		goto out;
	}
	if (sq == SQLITE_DONE) {
		sq = SQLITE_OK;
		goto out;
	}
	if (sq != SQLITE_ROW)
		goto out;
	*found = 1;
	l->id = sqlite3_column_int64(st, 0);
	l->occurrences = sqlite3_column_int64(st, 1);
	if (replace_str(&l->timestamp, sqlite3_column_text(st, 2)) < 0 ||
	    replace_str(&l->cause, sqlite3_column_text(st, 3)) < 0 ||
	    replace_str(&l->resolution, sqlite3_column_text(st, 4)) < 0 ||
	    replace_str(&l->corrective_rule, sqlite3_column_text(st, 5)) < 0 ||
	    replace_str(&l->intent_id, sqlite3_column_text(st, 6)) < 0) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	/* RETURNING rows are produced before the statement finishes */
	while ((sq = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (sq == SQLITE_DONE)
		sq = SQLITE_OK;
out:
	sqlite3_finalize(st);
	return sq;
}

int callus_store_record_lesson(callus_store *s, callus_lesson *l, const callus_run_info *run,
			     int *is_new, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 run_id = 0;
	callus_metrics *taken = NULL;
	stored_sigs sigs = { CALLUS_STRLIST_INIT, NULL, 0, NULL };
	char *files = NULL;
	size_t fresh = 0;
	int rc, sq, committed = 0, found = 0;

	if (!l->signature)
		return callus_error_set(err, CALLUS_EINVAL, "lesson has no signature");
	if (!l->last_seen && !(l->last_seen = callus_now_iso8601()))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if (!l->timestamp && !(l->timestamp = strdup(l->last_seen)))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if (!(files = files_json(l)))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	if (run && run->origin) {
		int seen = seen_origin(s, run->origin, &sq);

		if (seen < 0)
			goto db_fail;
		if (seen) {
			rc = callus_error_set(err, CALLUS_EEXIST, "already recorded: %s",
					    run->origin);
			goto rollback;
		}
	}
	/* the signatures first: the run's errors name them by rowid */
	if ((sq = insert_signatures(s, run, l->last_seen, &sigs, &fresh)) != SQLITE_OK ||
	    (sq = insert_run(s, l, run, &run_id)) != SQLITE_OK ||
	    (sq = insert_run_errors(s, run, run_id, &sigs)) != SQLITE_OK)
		goto db_fail;
	/* A failure whose errors were all stored before is likely a lesson
	 * seen before (its signature hashes theirs): tried as an UPDATE
	 * first, which a recurring error's hook compiles for 0.2 million
	 * instructions less than the INSERT and its triggers (the lesson's
	 * files from JSON, the totals).  One with a new error is likely a new
	 * lesson: inserted, then updated if its signature is stored after
	 * all (an upsert compiled both, and filled a table with the row it
	 * returned).  Without a run's signatures, the upsert decides. */
	if (run && run->nsigs &&
	    ((sq = write_lesson(s, l, files, fresh ? WRITE_NEW : WRITE_RECURS, &found)) != SQLITE_OK ||
	     (!found && fresh && (sq = write_lesson(s, l, files, WRITE_RECURS, &found)) != SQLITE_OK)))
		goto db_fail;
	/* the upsert writes a row either way (its DO UPDATE has no WHERE) */
	if (!found && (sq = write_lesson(s, l, files, WRITE_EITHER, &found)) != SQLITE_OK)
		goto db_fail;
	if (is_new)
		*is_new = l->occurrences == 1;
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), "INSERT INTO lesson_runs VALUES (?, ?)", -1, &st,
				     NULL)) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_int64(st, 1, l->id);
	sqlite3_bind_int64(st, 2, run_id);
	if ((sq = sqlite3_step(st)) != SQLITE_DONE)
		goto db_fail;
	sqlite3_finalize(st);
	st = NULL;
	if (run && run->metrics && (sq = callus_store_write_metrics(s, run->metrics)) != SQLITE_OK)
		goto db_fail;
	/* what earlier processes left pending, taken only now that the lock
	 * is held: a hook cut while it waited for it had taken nothing */
	if (run && run->metrics_spool &&
	    !(run->metrics_spool_by_ms > 0 && callus_child_now_ms() >= run->metrics_spool_by_ms) &&
	    (sq = callus_store_take_spool(s, run->metrics_spool, &taken)) != SQLITE_OK)
		goto db_fail;
	rc = callus_store_exec(s, "COMMIT", err);
	if (rc < 0)
		goto rollback;
	committed = 1;
	if (run && run->metrics)
		callus_metrics_clear(run->metrics);
	goto out;
db_fail:
	/* SQLITE_NOMEM is also what this file's own copies report: SQLite's
	 * message would be another statement's, or "not an error" */
	rc = sq == SQLITE_NOMEM ? callus_error_set(err, CALLUS_ENOMEM, "out of memory")
				: callus_store_db_error(s, err, sq, "cannot record in");
rollback:
	sqlite3_finalize(st);
	st = NULL;
	sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
out:
	callus_store_spool_returned(taken, run ? run->metrics_spool : NULL, committed);
	sqlite3_finalize(st);
	stored_sigs_release(&sigs);
	free(files);
	return rc;
}

#define LESSON_COLUMNS(affected)                                                           \
	"SELECT id, signature, timestamp, type, file, error_summary, cause, resolution,"    \
	" corrective_rule, intent_id, tool, command, exit_code, " affected ", occurrences," \
	" last_seen FROM lessons"
static const char lesson_columns[] = LESSON_COLUMNS("affected_files");

static int col_str(char **dst, sqlite3_stmt *st, int i)
{
	*dst = callus_sql_column_dup(st, i);
	return *dst ? 0 : CALLUS_ENOMEM;
}

static int read_lesson(sqlite3_stmt *st, callus_lesson *l)
{
	callus_strlist files = CALLUS_STRLIST_INIT;
	int rc = 0;

	memset(l, 0, sizeof(*l));
	l->id = sqlite3_column_int64(st, 0);
	if (col_str(&l->signature, st, 1) < 0 || col_str(&l->timestamp, st, 2) < 0 ||
	    col_str(&l->file, st, 4) < 0 || col_str(&l->error_summary, st, 5) < 0 ||
	    col_str(&l->cause, st, 6) < 0 || col_str(&l->resolution, st, 7) < 0 ||
	    col_str(&l->corrective_rule, st, 8) < 0 || col_str(&l->intent_id, st, 9) < 0 ||
	    col_str(&l->tool, st, 10) < 0 || col_str(&l->command, st, 11) < 0 ||
	    col_str(&l->last_seen, st, 15) < 0)
		rc = CALLUS_ENOMEM;
	if (callus_lesson_type_parse(&l->type, (const char *)sqlite3_column_text(st, 3)) < 0)
		l->type = CALLUS_LESSON_OTHER;
	l->exit_code = sqlite3_column_int(st, 12);
	l->occurrences = sqlite3_column_int64(st, 14);
	if (callus_sql_json_strlist(&files, (const char *)sqlite3_column_text(st, 13)) < 0)
		rc = CALLUS_ENOMEM;
	l->affected_files = callus_strlist_detach(&files, &l->affected_count);
	if (rc < 0)
		callus_lesson_release(l);
	return rc;
}

void callus_lessons_free(callus_lesson *ls, size_t count)
{
	for (size_t i = 0; ls && i < count; i++)
		callus_lesson_release(&ls[i]);
	free(ls);
}

static int read_lesson_row(sqlite3_stmt *st, void *item, void *ctx)
{
	(void)ctx;
	return read_lesson(st, item);
}

static int list_lessons(callus_store *s, const callus_lesson_filter *f, int lowest_value,
			callus_lesson **out, size_t *count, callus_error *err)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	callus_lesson *ls = NULL;
	size_t n = 0;
	int rc = 0, sq;

	*out = NULL;
	*count = 0;
	/* a build's lesson can name thousands of files, read for nothing by
	 * a view */
	callus_buf_puts(&sql, f && f->brief ? LESSON_COLUMNS("'[]'") : lesson_columns);
	/* a lesson matches a file when it is its primary or any affected
	 * file: lesson_files has both (store_schema.c).  Only the filters
	 * given are written, so that the planner can use their indexes. */
	callus_buf_puts(&sql, " WHERE 1");
	if (f && f->type)
		callus_buf_puts(&sql, " AND type = upper(:type)");
	if (f && f->file)
		callus_buf_puts(&sql, " AND id IN (SELECT lesson_id FROM lesson_files"
				      " WHERE file = :file)");
	if (f && f->tool)
		callus_buf_puts(&sql, " AND tool = :tool");
	if (f && f->except)
		callus_buf_puts(&sql, " AND id <> :except");
	/* what retention removes first, which is never the newest (gc.c) */
	if (lowest_value)
		callus_buf_puts(&sql, " AND id < (SELECT max(id) FROM lessons)");
	callus_buf_puts(&sql, lowest_value
				    ? CALLUS_STORE_LESSONS_BY_VALUE " LIMIT :limit"
				    : " ORDER BY last_seen DESC, id DESC LIMIT :limit");
	if (callus_buf_status(&sql) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql.ptr, -1, &st, NULL)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (f && f->type)
		callus_sql_bind_text(st, sqlite3_bind_parameter_index(st, ":type"), f->type);
	if (f && f->file)
		callus_sql_bind_text(st, sqlite3_bind_parameter_index(st, ":file"), f->file);
	if (f && f->tool)
		callus_sql_bind_text(st, sqlite3_bind_parameter_index(st, ":tool"), f->tool);
	if (f && f->except)
		sqlite3_bind_int64(st, sqlite3_bind_parameter_index(st, ":except"), f->except);
	sqlite3_bind_int(st, sqlite3_bind_parameter_index(st, ":limit"),
			 f && f->limit > 0 ? f->limit : -1);
	if ((sq = callus_sql_collect(st, sizeof(*ls), read_lesson_row, NULL, 0, (void **)&ls, &n)) !=
	    SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	*out = ls;
	*count = n;
	ls = NULL;
	n = 0;
out:
	sqlite3_finalize(st);
	callus_buf_release(&sql);
	callus_lessons_free(ls, n);
	return rc;
}

int callus_store_list_lessons(callus_store *s, const callus_lesson_filter *f, callus_lesson **out,
			    size_t *count, callus_error *err)
{
	return list_lessons(s, f, 0, out, count, err);
}

int callus_store_list_lowest_value(callus_store *s, const callus_lesson_filter *f, callus_lesson **out,
				 size_t *count, callus_error *err)
{
	return list_lessons(s, f, 1, out, count, err);
}

static int get_lesson(callus_store *s, const char *key, int is_num, callus_lesson *out,
		      callus_error *err);

int callus_store_get_lesson(callus_store *s, const char *key, callus_lesson *out, callus_error *err)
{
	size_t klen = strlen(key);
	int is_num = klen > 0 && strspn(key, "0123456789") == klen && klen < 18;
	int is_prefix = klen >= 6 && strspn(key, "0123456789abcdef") == klen;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!is_num && !is_prefix)
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' is neither a lesson id nor a signature prefix "
				      "(6 or more hex digits)", key);
	rc = get_lesson(s, key, is_num, out, err);
	/* six digits or more that number no lesson: a signature's prefix
	 * (one in sixteen starts with six decimal digits) */
	if (rc == CALLUS_ENOTFOUND && is_num && is_prefix) {
		callus_error_release(err);
		rc = get_lesson(s, key, 0, out, err);
	}
	return rc;
}

static int get_lesson(callus_store *s, const char *key, int is_num, callus_lesson *out,
		      callus_error *err)
{
	/* a prefix as a range of the signatures' index: LIKE, which ignores
	 * case, cannot use it, and read every lesson (a recording's page is
	 * written from this read).  Signatures are lowercase hex, all below
	 * the prefix followed by a 'g'.  Kept by the store from a second use
	 * on: callus doctor reads every lesson so. */
	static const char by_id[] = LESSON_COLUMNS("affected_files") " WHERE id = ?1",
			  by_prefix[] = LESSON_COLUMNS("affected_files")
		" WHERE signature >= ?1 AND signature < ?2 LIMIT 2";
	callus_buf upper = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	memset(out, 0, sizeof(*out));
	if ((sq = callus_store_stmt(s, is_num ? by_id : by_prefix, &st)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (is_num) {
		sqlite3_bind_int64(st, 1, strtoll(key, NULL, 10));
	} else if (callus_buf_printf(&upper, "%sg", key) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	} else {
		callus_sql_bind_text(st, 1, key);
		callus_sql_bind_text(st, 2, upper.ptr);
	}
	if ((sq = sqlite3_step(st)) != SQLITE_ROW) {
		rc = sq == SQLITE_DONE
			     ? callus_error_set(err, CALLUS_ENOTFOUND, "no lesson '%s'", key)
			     : callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (read_lesson(st, out) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (sqlite3_step(st) == SQLITE_ROW) {
		callus_lesson_release(out);
		rc = callus_error_set(err, CALLUS_EINVAL, "'%s' matches more than one lesson", key);
	}
out:
	callus_store_stmt_done(s, st);
	callus_buf_release(&upper);
	return rc;
}

