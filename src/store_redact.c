/*
 * store_redact.c - a store's texts redacted again by today's redactor
 * (include/callus/store_redact.h).
 *
 * One table of the stored texts, gone over in rowid order a batch at a
 * time: each batch reads its rows, redacts them and writes back the ones
 * that changed in one write transaction, with the place it stopped kept
 * in sync_state.  Reading inside that transaction matters: a recording
 * that updated a lesson between a read and its write would be undone.
 */
#include "callus/store_redact.h"
#include "callus/buf.h"
#include "callus/checkindex.h"
#include "callus/fileindex.h"
#include "callus/lesson.h"
#include "callus/lessonmd.h"
#include "callus/log.h"
#include "callus/notes.h"
#include "callus/signature.h"
#include "callus/views.h"
#include "callus/workspace.h"

#include "sqlutil.h"
#include "store_internal.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK_KEY CALLUS_STORE_REDACT_MARK
#define CURSOR_KEY "redaction.cursor"
#define VACUUM_KEY "redaction.vacuum"
/* rows a write transaction holds: a few milliseconds of the write lock */
#define BATCH 256
#define MAX_COLUMNS 12

enum after {
	AFTER_NONE,
	AFTER_LESSON,	 /* its page written again */
	AFTER_SIGNATURE, /* its pattern and sketch made again */
	AFTER_NOTE,	 /* its file written again at the next sync */
	AFTER_CHECK,	 /* may collide with another check's identity */
	AFTER_FILES,	 /* names files .callus/files.idx lists */
	AFTER_CONTEXT	 /* may become another context's list */
};

typedef struct text_table {
	const char *name;
	const char *columns[MAX_COLUMNS]; /* NULL-terminated */
	unsigned json;			  /* bit i: columns[i] holds JSON */
	enum after after;
	const char *also; /* an integer read with each row, or NULL */
} text_table;

/* Every table a text callus was given is stored in, with the columns that
 * hold it (docs/redaction.md lists what is redacted on the way in).  Never
 * reorder: the cursor names a table by its index here, so a new table
 * goes last. */
static const text_table tables[] = {
    {"lessons",
     {"error_summary", "cause", "resolution", "corrective_rule", "command", "file",
      "tool", "intent_id", "affected_files", NULL},
     1u << 8,
     AFTER_LESSON,
     NULL},
    {"runs", {"tool", "command", "cwd", "intent_id", NULL}, 0, AFTER_NONE, NULL},
    {"run_errors", {"file", "code", "message", NULL}, 0, AFTER_NONE, NULL},
    {"checks", {"tool", "args", "dir", NULL}, 0, AFTER_CHECK, NULL},
    {"signatures",
     {"original", "tool", "error_type", NULL},
     0,
     AFTER_SIGNATURE,
     "stack_patterns <> '[]'"},
    {"pending_errors", {"message", "session", "files", NULL}, 1u << 2, AFTER_FILES, NULL},
    {"resolutions",
     {"description", "code_changes", "files", "context", NULL},
     (1u << 2) | (1u << 3),
     AFTER_FILES,
     NULL},
    {"applications", {"context", NULL}, 1u << 0, AFTER_NONE, NULL},
    {"notes",
     {"files", "title", "example", "rule", "steps", "code", "extra", "session", "tool",
      "framework", "error_type", NULL},
     1u << 0,
     AFTER_NOTE,
     NULL},
    {"note_cache",
     {"title", "example", "rule", "steps", "code", "files", "origin", "path", "tool",
      "error_type", NULL},
     1u << 5,
     AFTER_NONE,
     NULL},
    {"shared_notes",
     {"title", "example", "rule", "steps", "code", "files", "origin", "path", "why",
      "tool", "error_type", NULL},
     1u << 5,
     AFTER_NONE,
     NULL},
    {"contexts", {"patterns", NULL}, 1u << 0, AFTER_CONTEXT, NULL},
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static size_t ncolumns(const text_table *t)
{
	size_t n = 0;

	while (n < MAX_COLUMNS && t->columns[n])
		n++;
	return n;
}

/* ------------------------------------------------------------------ */
/* The mark and the cursor                                              */

static int state_get(callus_store *s, const char *key, char **out)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT value FROM sync_state WHERE key = ?1", -1,
				    &st, NULL);

	*out = NULL;
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, key);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			sq = (*out = callus_sql_column_dup(st, 0)) ? SQLITE_OK
								   : SQLITE_NOMEM;
		else if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return sq;
}

static int state_set(callus_store *s, const char *key, const char *value)
{
	const char *v[] = {key, value};

	return callus_sql_exec_texts(
	    callus_store_db(s),
	    value ? "INSERT INTO sync_state (key, value) VALUES (?1, ?2)"
		    " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
		  : "DELETE FROM sync_state WHERE key = ?1",
	    v, value ? 2 : 1);
}

int callus_store_redact_vacuum_owed(callus_store *s)
{
	char *v = NULL;
	int owed = state_get(s, VACUUM_KEY, &v) == SQLITE_OK && v;

	free(v);
	return owed;
}

void callus_store_redact_vacuum_paid(callus_store *s)
{
	(void)state_set(s, VACUUM_KEY, NULL);
}

int callus_store_redact_due(callus_store *s, callus_error *err)
{
	char *mark = NULL;
	int sq = state_get(s, MARK_KEY, &mark), due;

	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq,
					     "cannot read the redaction mark of");
	due = !mark || atol(mark) < CALLUS_REDACT_VERSION;
	free(mark);
	return due;
}

/* ------------------------------------------------------------------ */
/* One text                                                             */

static int redact_json_value(const callus_redactor *r, json_t *v, int *changed);

/* Every string of a JSON value redacted in place; *changed set when one
 * changed. */
static int redact_json_string(const callus_redactor *r, json_t *v, int *changed)
{
	char *red = NULL;
	int rc;

	if ((rc = callus_redact_str(r, &red, json_string_value(v))) < 0)
		return rc;
	if (strcmp(red, json_string_value(v)) != 0) {
		if (json_string_set(v, red) < 0) {
			free(red);
			return CALLUS_ENOMEM;
		}
		*changed = 1;
	}
	free(red);
	return 0;
}

static int redact_json_value(const callus_redactor *r, json_t *v, int *changed)
{
	const char *key;
	json_t *item;
	size_t i;
	int rc = 0;

	if (json_is_string(v))
		return redact_json_string(r, v, changed);
	if (json_is_array(v))
		json_array_foreach(v, i, item) if ((rc = redact_json_value(
							r, item, changed)) < 0) return rc;
	if (json_is_object(v))
		json_object_foreach(v, key,
				    item) if ((rc = redact_json_value(r, item, changed)) <
					      0) return rc;
	return rc;
}

/* *out: text redacted when it changed (the caller frees), else NULL.  A
 * JSON column that does not parse is redacted as text: it is not callus's
 * JSON, and nothing reads it as such. */
static int redact_text(const callus_redactor *r, const char *text, int json, size_t max,
		       char **out)
{
	json_t *v;
	int rc = 0, changed = 0;

	*out = NULL;
	if (json && (v = json_loads(text, JSON_DECODE_ANY, NULL))) {
		if ((rc = redact_json_value(r, v, &changed)) == 0 && changed &&
		    !(*out = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY)))
			rc = CALLUS_ENOMEM;
		json_decref(v);
		return rc;
	}
	if ((rc = callus_redact_str(r, out, text)) < 0)
		return rc;
	if (!strcmp(*out, text)) {
		free(*out);
		*out = NULL;
		return 0;
	}
	/* a text that grew past its column's bound is cut back to it on a
	 * UTF-8 boundary, as a recording does */
	if (max && strlen(*out) > max) {
		size_t n = max;

		while (n > 0 && ((unsigned char)(*out)[n] & 0xc0) == 0x80)
			n--;
		(*out)[n] = '\0';
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* One batch of a table                                                 */

typedef struct changed_row {
	int64_t rowid;
	int64_t also;		   /* the table's also, else 0 */
	char *values[MAX_COLUMNS]; /* NULL: unchanged */
	callus_views_debt *debt;   /* a lesson's page owed, until written */
} changed_row;

typedef struct batch {
	changed_row *rows;
	size_t n, cap;
	int64_t last; /* the last rowid read */
	size_t read;
} batch;

static void batch_clear(batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		for (size_t c = 0; c < MAX_COLUMNS; c++)
			free(b->rows[i].values[c]);
		/* not written: left for the views' repair */
		callus_views_settle(b->rows[i].debt, 0);
		b->rows[i].debt = NULL;
	}
	b->n = 0;
	b->read = 0;
}

static int read_batch(callus_store *s, const text_table *t, const callus_redactor *r,
		      int64_t after, size_t limit, batch *b)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	size_t nc = ncolumns(t);
	int sq, rc = 0;

	callus_buf_printf(&sql, "SELECT rowid");
	for (size_t c = 0; c < nc; c++)
		callus_buf_printf(&sql, ", %s", t->columns[c]);
	callus_buf_printf(&sql, ", %s FROM %s WHERE rowid > ?1 ORDER BY rowid LIMIT ?2",
			  t->also ? t->also : "0", t->name);
	if (callus_buf_status(&sql) < 0) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql.ptr, -1, &st, NULL)) !=
	    SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)limit);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		changed_row row;
		int any = 0;

		memset(&row, 0, sizeof(row));
		row.rowid = sqlite3_column_int64(st, 0);
		row.also = sqlite3_column_int64(st, (int)nc + 1);
		b->last = row.rowid;
		b->read++;
		for (size_t c = 0; c < nc && rc == 0; c++) {
			const char *text =
			    (const char *)sqlite3_column_text(st, (int)c + 1);
			size_t max =
			    t->after == AFTER_LESSON && c == 0 ? CALLUS_SUMMARY_MAX : 0;

			if (!text)
				continue;
			rc =
			    redact_text(r, text, (t->json >> c) & 1, max, &row.values[c]);
			any |= row.values[c] != NULL;
		}
		if (rc == 0 && any) {
			changed_row *grown =
			    callus_array_grow(b->rows, &b->cap, b->n + 1, sizeof(*grown));

			if (!grown)
				rc = CALLUS_ENOMEM;
			else
				(b->rows = grown)[b->n++] = row;
		}
		if (rc < 0 || !any)
			for (size_t c = 0; c < nc; c++)
				free(row.values[c]);
		if (rc < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
	}
	if (sq == SQLITE_DONE)
		sq = SQLITE_OK;
out:
	sqlite3_finalize(st);
	callus_buf_release(&sql);
	return sq;
}

/* A check under another name is hashed anew in the list of checks whose
 * pass the store must see (checkindex.h): its new name listed before the
 * commit, as a recording lists a check, or its next pass finds it
 * unlisted and skips the store. */
static int relist_check(callus_store *s, int64_t id)
{
	sqlite3_stmt *st = NULL;
	callus_error e = CALLUS_ERROR_INIT;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT tool, args, dir FROM checks WHERE id = ?1",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_check_key key = {(const char *)sqlite3_column_text(st, 0),
					(const char *)sqlite3_column_text(st, 1),
					(const char *)sqlite3_column_text(st, 2)};

		/* a list that cannot be changed is removed by it: the next
		 * pass then opens the store, which lists again */
		sq = callus_checkindex_update(s, id, &key, &e) < 0 ? SQLITE_IOERR
								   : SQLITE_OK;
	} else if (sq == SQLITE_DONE) {
		sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	callus_error_release(&e);
	return sq;
}

/* sql run once with ?1 and ?2 bound to a and b: SQLITE_DONE or the error. */
static int exec_ids(sqlite3 *db, const char *sql, int64_t a, int64_t b)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	return sq;
}

/*
 * A check whose redacted name is another's: the two differed only by a
 * secret, and after an upgrade its next run made the other under the
 * redacted name.  The old one can never be run under its own name again:
 * its errors go to the other, and it goes.  An error the other has a row
 * of is newer there (made after the upgrade): the old row goes with its
 * check.  The moved rows forget their closing run: it counted the old
 * check's runs, and the other's next run is not the one after it
 * (learn.h); the other's runs stay its own count.  *merged set when it
 * did; not, when no check has that name (the constraint was another's).
 */
static int merge_check(callus_store *s, const changed_row *row, int *merged)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *st = NULL;
	int64_t into = 0;
	int sq;

	*merged = 0;
	sq = sqlite3_prepare_v2(db,
				"SELECT n.id FROM checks o, checks n WHERE o.id = ?4 AND n.id <> o.id"
				" AND n.tool = coalesce(?1, o.tool) AND n.args = coalesce(?2, o.args)"
				" AND n.dir = coalesce(?3, o.dir)",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	for (int c = 0; c < 3; c++)
		callus_sql_bind_text_or_null(st, c + 1, row->values[c]);
	sqlite3_bind_int64(st, 4, row->rowid);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW)
		into = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (sq != SQLITE_ROW)
		return sq == SQLITE_DONE ? SQLITE_OK : sq;
	if ((sq = exec_ids(db,
			   "DELETE FROM pending_errors WHERE check_id = ?2 AND sig IN"
			   " (SELECT sig FROM pending_errors WHERE check_id = ?1)",
			   into, row->rowid)) != SQLITE_DONE ||
	    (sq = exec_ids(db,
			   "UPDATE pending_errors SET check_id = ?1, closed_run = 0"
			   " WHERE check_id = ?2",
			   into, row->rowid)) != SQLITE_DONE ||
	    (sq = exec_ids(db,
			   "UPDATE checks SET last_run_at = nullif(max(coalesce(last_run_at, ''),"
			   " (SELECT coalesce(last_run_at, '') FROM checks WHERE id = ?2)), ''),"
			   " last_pass_at = nullif(max(coalesce(last_pass_at, ''),"
			   " (SELECT coalesce(last_pass_at, '') FROM checks WHERE id = ?2)), '')"
			   " WHERE id = ?1",
			   into, row->rowid)) != SQLITE_DONE ||
	    (sq = exec_ids(db, "DELETE FROM checks WHERE id = ?2 AND ?1 = ?1", into,
			   row->rowid)) != SQLITE_DONE)
		return sq;
	*merged = 1;
	return relist_check(s, into);
}

/* A signatures' context list redacted into one the store holds already
 * (unique: kept once, schema 28): its signatures are pointed at that one,
 * and it goes. */
static int merge_context(callus_store *s, const changed_row *row)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "UPDATE signatures SET ctx = (SELECT ctx FROM contexts WHERE"
				    " patterns = ?1) WHERE ctx = ?2",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, row->values[0]);
	sqlite3_bind_int64(st, 2, row->rowid);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE ||
	    (sq = sqlite3_prepare_v2(callus_store_db(s), "DELETE FROM contexts WHERE ctx = ?1",
				     -1, &st, NULL)) != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, row->rowid);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* The changed rows written back.  *kept counts the rows a constraint
 * turned away (a check redacted into another's identity). */
static int write_batch(callus_store *s, const text_table *t, const batch *b, size_t *kept)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	size_t nc = ncolumns(t);
	int sq = SQLITE_OK;

	for (size_t i = 0; i < b->n && sq == SQLITE_OK; i++) {
		const changed_row *row = &b->rows[i];
		int k = 1;

		callus_buf_clear(&sql);
		callus_buf_printf(&sql, "UPDATE %s SET ", t->name);
		for (size_t c = 0; c < nc; c++)
			if (row->values[c]) {
				callus_buf_printf(&sql, "%s%s = ?%d", k > 1 ? ", " : "",
						  t->columns[c], k);
				k++;
			}
		/* the pattern is made again from the redacted message: an
		 * empty one is the pattern of the row's original (signature.h) */
		if (t->after == AFTER_SIGNATURE && row->values[0])
			callus_buf_printf(&sql, ", message_pattern = '', sketch = ?%d",
					  k++);
		if (t->after == AFTER_NOTE)
			callus_buf_printf(&sql, ", file_size = -1");
		callus_buf_printf(&sql, " WHERE rowid = ?%d", k);
		if (callus_buf_status(&sql) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
		if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql.ptr, -1, &st,
					     NULL)) != SQLITE_OK)
			break;
		k = 1;
		for (size_t c = 0; c < nc; c++)
			if (row->values[c])
				callus_sql_bind_text(st, k++, row->values[c]);
		if (t->after == AFTER_SIGNATURE && row->values[0])
			sqlite3_bind_int64(
			    st, k++,
			    callus_signature_sketch("", row->values[0], row->also != 0));
		sqlite3_bind_int64(st, k, row->rowid);
		sq = sqlite3_step(st);
		sqlite3_finalize(st);
		st = NULL;
		if (sq == SQLITE_CONSTRAINT && t->after == AFTER_CONTEXT) {
			if ((sq = merge_context(s, row)) != SQLITE_OK)
				break;
			sq = SQLITE_DONE;
		} else if (sq == SQLITE_CONSTRAINT && t->after == AFTER_CHECK) {
			int merged;

			if ((sq = merge_check(s, row, &merged)) != SQLITE_OK)
				break;
			*kept += !merged;
			sq = SQLITE_DONE;
		} else if (sq == SQLITE_DONE && t->after == AFTER_CHECK) {
			sq = relist_check(s, row->rowid);
			sq = sq == SQLITE_OK ? SQLITE_DONE : sq;
		}
		sq = sq == SQLITE_DONE ? SQLITE_OK : sq;
	}
	callus_buf_release(&sql);
	return sq;
}

/* Each changed lesson's page owed before the commit, as a recording owes
 * its own: a process cut between the commit and the page, or a page that
 * cannot be written, leaves a debt the views' repair pays from the store
 * (views.h), where the next pass would find nothing left to change. */
static int owe_pages(callus_store *s, const char *workspace, batch *b)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT signature FROM lessons WHERE rowid = ?1", -1, &st,
				    NULL);

	for (size_t i = 0; i < b->n && sq == SQLITE_OK; i++) {
		sqlite3_bind_int64(st, 1, b->rows[i].rowid);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			callus_views_owe(&b->rows[i].debt, workspace,
					 (const char *)sqlite3_column_text(st, 0));
		sq = sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return sq;
}

/* Whether a changed row of b has its "files" column changed. */
static int files_changed(const text_table *t, const batch *b)
{
	for (size_t c = 0; c < ncolumns(t); c++)
		if (!strcmp(t->columns[c], "files"))
			for (size_t i = 0; i < b->n; i++)
				if (b->rows[i].values[c])
					return 1;
	return 0;
}

/* The pages of the batch's lessons written again, after its commit, each
 * debt paid once its page is. */
static void rewrite_pages(callus_store *s, const char *workspace, batch *b)
{
	callus_buf dir = CALLUS_BUF_INIT, key = CALLUS_BUF_INIT;
	callus_error e = CALLUS_ERROR_INIT;

	if (callus_buf_printf(&dir, "%s/.lessons", workspace) < 0 ||
	    callus_workspace_guard(NULL, workspace, ".lessons", 0, &e) < 0)
		goto out;
	for (size_t i = 0; i < b->n; i++) {
		callus_lesson l;

		memset(&l, 0, sizeof(l));
		callus_buf_clear(&key);
		if (callus_buf_printf(&key, "%lld", (long long)b->rows[i].rowid) < 0)
			break;
		if (callus_store_get_lesson(s, key.ptr, &l, &e) == 0 &&
		    callus_lesson_md_write(dir.ptr, &l, &e) == 0) {
			callus_views_settle(b->rows[i].debt, 1);
			b->rows[i].debt = NULL;
		}
		callus_lesson_release(&l);
		callus_error_release(&e);
	}
out:
	callus_error_release(&e);
	callus_buf_release(&key);
	callus_buf_release(&dir);
}

static int save_cursor(callus_store *s, size_t table, int64_t rowid)
{
	char text[48];

	snprintf(text, sizeof(text), "%d:%zu:%lld", CALLUS_REDACT_VERSION, table,
		 (long long)rowid);
	return state_set(s, CURSOR_KEY, text);
}

static void read_cursor(callus_store *s, size_t *table, int64_t *rowid)
{
	char *text = NULL;
	unsigned long t;
	long long id;
	int version;

	/* a place another redactor stopped at is not this one's: the tables
	 * before it were not gone over by it */
	*table = 0;
	*rowid = 0;
	if (state_get(s, CURSOR_KEY, &text) == SQLITE_OK && text &&
	    sscanf(text, "%d:%lu:%lld", &version, &t, &id) == 3 &&
	    version == CALLUS_REDACT_VERSION && t < NTABLES && id >= 0) {
		*table = t;
		*rowid = id;
	}
	free(text);
}

int callus_store_redact(callus_store *s, const char *workspace, const callus_redactor *r,
			size_t budget, callus_store_redact_result *res, callus_error *err)
{
	callus_store_redact_result own;
	batch b = {0};
	size_t table;
	int64_t after;
	int sq = SQLITE_OK, rc = 0, in_tx = 0, notes_changed = 0;
	int64_t secure = callus_store_query_int(s, "PRAGMA secure_delete");
	int checks_changed = 0;

	if (!res)
		res = &own;
	memset(res, 0, sizeof(*res));
	/* the old text is not left in the pages it leaves: the file is what
	 * a secret must not be found in */
	if ((sq = sqlite3_exec(callus_store_db(s), "PRAGMA secure_delete = ON", NULL,
			       NULL, NULL)) != SQLITE_OK)
		goto fail;
	read_cursor(s, &table, &after);
	while (table < NTABLES) {
		const text_table *t = &tables[table];
		size_t limit = BATCH, kept = 0;

		if (budget) {
			if (res->rows >= budget)
				break;
			if (budget - res->rows < limit)
				limit = budget - res->rows;
		}
		/* a person's edit not taken in yet is taken in first: a note
		 * the pass changes has its file written from the store */
		if (t->after == AFTER_NOTE && after == 0 &&
		    (rc = callus_notes_sync(s, workspace, NULL, err)) < 0)
			goto out;
		if ((sq = sqlite3_exec(callus_store_db(s), "BEGIN IMMEDIATE", NULL, NULL,
				       NULL)) != SQLITE_OK)
			goto fail;
		in_tx = 1;
		b.last = after;
		if ((sq = read_batch(s, t, r, after, limit, &b)) != SQLITE_OK ||
		    (sq = write_batch(s, t, &b, &kept)) != SQLITE_OK ||
		    (t->after == AFTER_LESSON && (sq = owe_pages(s, workspace, &b)) != SQLITE_OK))
			goto fail;
		/* the list of files with a fix named the old paths: removed
		 * under the write lock, as learning removes one it cannot
		 * change, and made again from the store by its next reader
		 * (fileindex.h); written here, it was written again whole for
		 * every batch */
		if (t->after == AFTER_FILES && files_changed(t, &b))
			callus_fileindex_remove(s);
		/* a short batch ends its table */
		if (b.read < limit) {
			table++;
			after = 0;
		} else {
			after = b.last;
		}
		if (table == NTABLES) {
			char version[24];

			snprintf(version, sizeof(version), "%d", CALLUS_REDACT_VERSION);
			if ((sq = state_set(s, MARK_KEY, version)) != SQLITE_OK ||
			    (sq = state_set(s, CURSOR_KEY, NULL)) != SQLITE_OK ||
			    (sq = state_set(s, VACUUM_KEY, "owed")) != SQLITE_OK)
				goto fail;
		} else if ((sq = save_cursor(s, table, after)) != SQLITE_OK) {
			goto fail;
		}
		if ((sq = sqlite3_exec(callus_store_db(s), "COMMIT", NULL, NULL, NULL)) !=
		    SQLITE_OK)
			goto fail;
		in_tx = 0;
		res->rows += b.read;
		res->changed += b.n - kept;
		res->kept += kept;
		if (kept) {
			callus_buf dir = CALLUS_BUF_INIT;

			if (callus_buf_printf(&dir, "%s/.callus", workspace) == 0)
				callus_log_event_with(
				    r, dir.ptr, "warn", "redact_kept",
				    "a check redacted would be another check's"
				    " name: kept as it was",
				    NULL);
			callus_buf_release(&dir);
		}
		if (t->after == AFTER_LESSON && b.n) {
			res->lessons += b.n;
			rewrite_pages(s, workspace, &b);
		}
		notes_changed |= t->after == AFTER_NOTE && b.n;
		checks_changed |= t->after == AFTER_CHECK && b.n;
		batch_clear(&b);
	}
	res->done = table == NTABLES;
	/* a renamed check was listed under its new hash before its commit;
	 * its old hash, of a name that held the secret, goes with the list
	 * written again (best-effort: a list that cannot be is removed) */
	if (checks_changed)
		(void)callus_checkindex_rewrite(s, NULL);
	/* the changed notes' files, now rather than at the next sync */
	if (notes_changed)
		rc = callus_notes_sync(s, workspace, NULL, err);
	goto out;
fail:
	if (in_tx)
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	/* nothing committed: the pages are the store's still */
	for (size_t i = 0; i < b.n; i++) {
		callus_views_settle(b.rows[i].debt, 1);
		b.rows[i].debt = NULL;
	}
	rc = sq == SQLITE_NOMEM
		 ? callus_error_set(err, CALLUS_ENOMEM, "out of memory")
		 : callus_store_db_error(s, err, sq, "cannot redact the texts of");
out:
	if (secure >= 0 && secure != 1) {
		char pragma[40];

		snprintf(pragma, sizeof(pragma), "PRAGMA secure_delete = %d", (int)secure);
		sqlite3_exec(callus_store_db(s), pragma, NULL, NULL, NULL);
	}
	batch_clear(&b);
	free(b.rows);
	return rc;
}
