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
#include "callus/fsutil.h"
#include "callus/lesson.h"
#include "callus/lessonmd.h"
#include "callus/log.h"
#include "callus/notes.h"
#include "callus/patchdesc.h"
#include "callus/signature.h"
#include "callus/utf8.h"
#include "callus/views.h"
#include "callus/workspace.h"

#include "sqlutil.h"
#include "store_internal.h"
#include "store_resign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CURSOR_KEY "redaction.cursor"
#define VACUUM_KEY "redaction.vacuum"
/* rows a write transaction holds: a few milliseconds of the write lock */
#define BATCH 256
#define MAX_COLUMNS 13

enum after {
	AFTER_NONE,
	AFTER_LESSON,    /* its page written again */
	AFTER_SIGNATURE, /* its pattern, sketch and id made again */
	AFTER_NOTE,      /* its file written again from the store */
	AFTER_CHECK,     /* may take another check's name: merged */
	AFTER_FILES,     /* names files .callus/files.idx lists */
	AFTER_CONTEXT    /* may become another context's list: merged */
};

typedef struct text_table {
	const char *name;
	const char *columns[MAX_COLUMNS]; /* NULL-terminated */
	unsigned json;                    /* bit i: columns[i] holds JSON */
	unsigned patch;                   /* bit i: columns[i] holds a diff, whose hunk
					   * headers are counted again */
	enum after after;
	const char *also;                 /* an integer read with each row, or NULL */
} text_table;

/* Every table a text callus was given is stored in, with the columns that
 * hold it (docs/redaction.md lists what is redacted on the way in).  Never
 * reorder: the cursor names a table by its index here, so a new table
 * goes last. */
static const text_table tables[] = {
	{ "lessons",
	  { "error_summary", "cause", "resolution", "corrective_rule", "command", "file", "tool",
	    "intent_id", "affected_files", NULL },
	  1u << 8, 0, AFTER_LESSON, NULL },
	{ "runs", { "tool", "command", "cwd", "intent_id", NULL }, 0, 0, AFTER_NONE, NULL },
	{ "run_errors", { "file", "code", "message", NULL }, 0, 0, AFTER_NONE, NULL },
	{ "checks", { "tool", "args", "dir", NULL }, 0, 0, AFTER_CHECK, NULL },
	{ "signatures", { "original", "tool", "error_type", "stack_patterns", NULL }, 1u << 3, 0,
	  AFTER_SIGNATURE, "stack_patterns <> '[]'" },
	{ "pending_errors", { "message", "session", "files", NULL }, 1u << 2, 0, AFTER_FILES,
	  NULL },
	{ "resolutions", { "description", "code_changes", "files", "context", NULL },
	  (1u << 2) | (1u << 3), 1u << 1, AFTER_FILES, NULL },
	{ "applications", { "context", NULL }, 1u << 0, 0, AFTER_NONE, NULL },
	{ "notes",
	  { "files", "title", "example", "rule", "steps", "code", "extra", "session", "tool",
	    "framework", "error_type", NULL },
	  1u << 0, 0, AFTER_NOTE, NULL },
	{ "note_cache",
	  { "title", "example", "rule", "steps", "code", "files", "origin", "path", "tool",
	    "error_type", "extra", NULL },
	  1u << 5, 0, AFTER_NONE, NULL },
	{ "shared_notes",
	  { "title", "example", "rule", "steps", "code", "files", "origin", "path", "why", "tool",
	    "error_type", "extra", NULL },
	  1u << 5, 0, AFTER_NONE, NULL },
	{ "contexts", { "patterns", NULL }, 1u << 0, 0, AFTER_CONTEXT, NULL },
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))
#define SIGNATURES 4 /* tables[SIGNATURES] */

static size_t ncolumns(const text_table *t)
{
	size_t n = 0;

	while (n < MAX_COLUMNS && t->columns[n])
		n++;
	return n;
}

/* ------------------------------------------------------------------ */
/* The marks                                                            */

int callus_store_redact_due(callus_store *s, callus_error *err)
{
	char *mark = NULL;
	int rc = callus_store_state_get(s, CALLUS_STORE_REDACT_MARK, &mark, err);

	if (rc == 0)
		rc = !mark || atol(mark) < CALLUS_REDACT_VERSION;
	free(mark);
	return rc;
}

int callus_store_redact_vacuum_owed(callus_store *s)
{
	char *v = NULL;
	int owed = callus_store_state_get(s, VACUUM_KEY, &v, NULL) == 0 && v;

	free(v);
	return owed;
}

void callus_store_redact_vacuum_paid(callus_store *s)
{
	(void)callus_store_state_set(s, VACUUM_KEY, NULL, NULL);
}

/* Where the last pass stopped: a table and the last rowid it did.  A place
 * another redactor stopped at is not this one's: the tables before it were
 * not gone over by it, so the pass starts again. */
static void read_cursor(callus_store *s, size_t *table, int64_t *rowid)
{
	char *text = NULL;
	unsigned long t;
	long long id;
	int version;

	*table = 0;
	*rowid = 0;
	if (callus_store_state_get(s, CURSOR_KEY, &text, NULL) == 0 && text &&
	    sscanf(text, "%d:%lu:%lld", &version, &t, &id) == 3 &&
	    version == CALLUS_REDACT_VERSION && t < NTABLES && id >= 0) {
		*table = t;
		*rowid = id;
	}
	free(text);
}

/* The cursor at (table, rowid), or, past the last table, the store marked
 * redacted whole, owing a VACUUM (store_redact.h). */
static int save_cursor(callus_store *s, size_t table, int64_t rowid)
{
	char text[64];

	if (table < NTABLES) {
		snprintf(text, sizeof(text), "%d:%zu:%lld", CALLUS_REDACT_VERSION, table,
			 (long long)rowid);
		return callus_store_state_set(s, CURSOR_KEY, text, NULL);
	}
	snprintf(text, sizeof(text), "%d", CALLUS_REDACT_VERSION);
	if (callus_store_state_set(s, CALLUS_STORE_REDACT_MARK, text, NULL) < 0 ||
	    callus_store_state_set(s, CURSOR_KEY, NULL, NULL) < 0 ||
	    callus_store_state_set(s, VACUUM_KEY, "owed", NULL) < 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* One text                                                             */

/* *out: text redacted when it changed (the caller frees), else NULL; cut
 * to max bytes (0: no bound) on a character's boundary, as a recording
 * cuts a summary redaction made longer.  A JSON column that does not parse
 * is redacted as text: it is not callus's JSON, and nothing reads it as
 * such. */
static int redact_text(const callus_redactor *r, const char *text, int json, size_t max,
		       char **out)
{
	int rc = callus_redact_again(r, text, json, 0, out);

	if (rc == 0 && *out && max)
		(*out)[callus_utf8_cut(*out, strlen(*out), max)] = '\0';
	return rc;
}

/* ------------------------------------------------------------------ */
/* One batch of a table                                                 */

typedef struct changed_row {
	int64_t rowid;
	int64_t also;              /* the table's also, else 0 */
	int sign_only;             /* a signature to sign again, its texts as they are */
	char *values[MAX_COLUMNS]; /* NULL: unchanged */
	callus_views_debt *debt;   /* a lesson's page owed, until written */
} changed_row;

typedef struct batch {
	changed_row *rows; /* the rows that changed */
	size_t n, cap;
	int64_t last;      /* the last rowid read */
	size_t read;
	size_t sign_only;  /* of the rows, those only signed again */
	size_t merged;     /* signatures merged into another (store_resign.h) */
} batch;

/* The rows let go; their pages' debts paid when written (the batch rolled
 * back: they are the store's still), else left for the views' repair. */
static void batch_clear(batch *b, int written)
{
	for (size_t i = 0; i < b->n; i++) {
		for (size_t c = 0; c < MAX_COLUMNS; c++)
			free(b->rows[i].values[c]);
		callus_views_settle(b->rows[i].debt, written);
		b->rows[i].debt = NULL;
	}
	b->n = 0;
	b->read = 0;
	b->sign_only = 0;
	b->merged = 0;
}

static int read_row(sqlite3_stmt *st, const text_table *t, const callus_redactor *r, batch *b)
{
	size_t nc = ncolumns(t);
	changed_row row;
	int rc = 0, any = 0;

	memset(&row, 0, sizeof(row));
	row.rowid = sqlite3_column_int64(st, 0);
	row.also = sqlite3_column_int64(st, (int)nc + 1);
	b->last = row.rowid;
	b->read++;
	for (size_t c = 0; c < nc && rc == 0; c++) {
		const char *text = (const char *)sqlite3_column_text(st, (int)c + 1);
		size_t max = t->after == AFTER_LESSON && c == 0 ? CALLUS_SUMMARY_MAX : 0;

		if (text)
			rc = redact_text(r, text, (t->json >> c) & 1, max, &row.values[c]);
		/* a patch whose key lines became one keeps honest hunk counts */
		if (rc == 0 && row.values[c] && ((t->patch >> c) & 1))
			rc = callus_patch_recount(&row.values[c]);
		any |= row.values[c] != NULL;
	}
	/* redacted by an earlier pass, which left the id: signed again
	 * (a recording's own rows come out as they are) */
	if (rc == 0 && !any && t->after == AFTER_SIGNATURE) {
		const char *text = (const char *)sqlite3_column_text(st, 1);

		any = row.sign_only = text && strstr(text, "[REDACTED:") != NULL;
	}
	if (rc == 0 && any) {
		changed_row *grown = callus_array_grow(b->rows, &b->cap, b->n + 1, sizeof(*grown));

		if (grown) {
			(b->rows = grown)[b->n++] = row;
			b->sign_only += row.sign_only;
			return 0;
		}
		rc = CALLUS_ENOMEM;
	}
	for (size_t c = 0; c < nc; c++)
		free(row.values[c]);
	return rc;
}

/* The rows of t past rowid after, at most limit; or, with limit 0, the
 * row after itself. */
static int read_batch(callus_store *s, const text_table *t, const callus_redactor *r,
		      int64_t after, size_t limit, batch *b)
{
	callus_buf sql = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int sq;

	callus_buf_puts(&sql, "SELECT rowid");
	for (size_t c = 0; c < ncolumns(t); c++)
		callus_buf_printf(&sql, ", %s", t->columns[c]);
	callus_buf_printf(&sql, ", %s FROM %s WHERE rowid %s ?1 ORDER BY rowid LIMIT ?2",
			  t->also ? t->also : "0", t->name, limit ? ">" : "=");
	if (callus_buf_status(&sql) < 0) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql.ptr, -1, &st, NULL)) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(st, 1, after);
	sqlite3_bind_int64(st, 2, limit ? (sqlite3_int64)limit : 1);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW)
		if (read_row(st, t, r, b) < 0) {
			sq = SQLITE_NOMEM;
			break;
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
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT tool, args, dir FROM checks WHERE id = ?1", -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	sqlite3_bind_int64(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_check_key key = { (const char *)sqlite3_column_text(st, 0),
					 (const char *)sqlite3_column_text(st, 1),
					 (const char *)sqlite3_column_text(st, 2) };

		/* a list that cannot be changed is removed by it: the next
		 * pass then opens the store, which lists again */
		sq = callus_checkindex_update(s, id, &key, NULL) < 0 ? SQLITE_IOERR : SQLITE_OK;
	} else if (sq == SQLITE_DONE) {
		sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return sq;
}

/*
 * A check whose redacted name is another's (checks are unique by tool,
 * arguments and folder): the two differed only by a secret, and after an
 * upgrade its next run made the other under the redacted name.  The old
 * one can never be run under its own name again: its errors go to the
 * other, and it goes.  An error the other has a row of is newer there
 * (made after the upgrade): the old row goes with its check.  The moved
 * rows forget their closing run: it counted the old check's runs, and the
 * other's next run is not the one after it (learn.h); the other's runs
 * stay its own count.
 */
static int merge_check(callus_store *s, const changed_row *row)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *st = NULL;
	int64_t ids[2] = { 0, row->rowid }; /* into, from */
	int sq;

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
		ids[0] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (sq != SQLITE_ROW)
		return sq == SQLITE_DONE ? SQLITE_CONSTRAINT : sq;
	if ((sq = callus_sql_exec_ints(db,
				       "DELETE FROM pending_errors WHERE check_id = ?2 AND sig IN"
				       " (SELECT sig FROM pending_errors WHERE check_id = ?1)",
				       ids, 2)) != SQLITE_OK ||
	    (sq = callus_sql_exec_ints(db,
				       "UPDATE pending_errors SET check_id = ?1, closed_run = 0"
				       " WHERE check_id = ?2",
				       ids, 2)) != SQLITE_OK ||
	    (sq = callus_sql_exec_ints(db,
				       "UPDATE checks SET"
				       " last_run_at = nullif(max(coalesce(last_run_at, ''),"
				       "  (SELECT coalesce(last_run_at, '') FROM checks WHERE id = ?2)), ''),"
				       " last_pass_at = nullif(max(coalesce(last_pass_at, ''),"
				       "  (SELECT coalesce(last_pass_at, '') FROM checks WHERE id = ?2)), '')"
				       " WHERE id = ?1",
				       ids, 2)) != SQLITE_OK ||
	    (sq = callus_sql_exec_ints(db, "DELETE FROM checks WHERE id = ?1", ids + 1, 1)) !=
		    SQLITE_OK)
		return sq;
	return relist_check(s, ids[0]);
}

/* A signatures' context list redacted into one the store holds already
 * (unique: kept once, schema 28): its signatures are pointed at that one,
 * and it goes. */
static int merge_context(callus_store *s, const changed_row *row)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(db,
				    "UPDATE signatures SET ctx = (SELECT ctx FROM contexts WHERE"
				    " patterns = ?1) WHERE ctx = ?2",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, row->values[0]);
	sqlite3_bind_int64(st, 2, row->rowid);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE)
		return sq;
	return callus_sql_exec_ints(db, "DELETE FROM contexts WHERE ctx = ?1", &row->rowid, 1);
}

/* One changed row written back, and what its table needs of it. */
static int write_row(callus_store *s, const text_table *t, const changed_row *row,
		     callus_buf *sql, size_t *merged)
{
	sqlite3_stmt *st = NULL;
	size_t nc = ncolumns(t);
	int sq, k = 1, into = 0, pattern = t->after == AFTER_SIGNATURE && row->values[0];

	if (row->sign_only) {
		sq = callus_store_resign(s, row->rowid, NULL, &into);
		*merged += (size_t)into;
		return sq;
	}
	callus_buf_clear(sql);
	callus_buf_printf(sql, "UPDATE %s SET ", t->name);
	for (size_t c = 0; c < nc; c++)
		if (row->values[c]) {
			callus_buf_printf(sql, "%s%s = ?%d", k > 1 ? ", " : "", t->columns[c], k);
			k++;
		}
	/* the pattern is made again from the redacted message: an empty one
	 * is the pattern of the row's original (signature.h) */
	if (pattern)
		callus_buf_printf(sql, ", message_pattern = '', sketch = ?%d", k++);
	if (t->after == AFTER_NOTE)
		callus_buf_puts(sql, ", file_size = -1");
	callus_buf_printf(sql, " WHERE rowid = ?%d", k);
	if (callus_buf_status(sql) < 0)
		return SQLITE_NOMEM;
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql->ptr, -1, &st, NULL)) != SQLITE_OK)
		return sq;
	k = 1;
	for (size_t c = 0; c < nc; c++)
		if (row->values[c])
			callus_sql_bind_text(st, k++, row->values[c]);
	if (pattern)
		sqlite3_bind_int64(st, k++,
				   callus_signature_sketch("", row->values[0], row->also != 0));
	sqlite3_bind_int64(st, k, row->rowid);
	sq = sqlite3_step(st);
	sqlite3_finalize(st);
	if (sq == SQLITE_CONSTRAINT && t->after == AFTER_CONTEXT)
		return merge_context(s, row);
	if (sq == SQLITE_CONSTRAINT && t->after == AFTER_CHECK)
		return merge_check(s, row);
	if (sq == SQLITE_DONE && t->after == AFTER_CHECK)
		return relist_check(s, row->rowid);
	/* a message, type or frame redacted is another pattern, so another
	 * id: the one a recording of the error gives it now */
	if (sq == SQLITE_DONE && t->after == AFTER_SIGNATURE) {
		sq = callus_store_resign(s, row->rowid, NULL, &into);
		*merged += (size_t)into;
		return sq;
	}
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* Each changed lesson's page owed before the commit, as a recording owes
 * its own: a process cut between the commit and the page, or a page that
 * cannot be written, leaves a debt the views' repair pays from the store
 * (views.h), where the next pass would find nothing left to change. */
static int owe_pages(callus_store *s, const char *workspace, batch *b)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT signature FROM lessons WHERE rowid = ?1", -1, &st, NULL);

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

/* The batch written back, inside its transaction. */
static int write_batch(callus_store *s, const char *workspace, const text_table *t, batch *b)
{
	callus_buf sql = CALLUS_BUF_INIT;
	int sq = SQLITE_OK, files = 0;

	for (size_t i = 0; i < b->n && sq == SQLITE_OK; i++) {
		sq = write_row(s, t, &b->rows[i], &sql, &b->merged);
		for (size_t c = 0; c < ncolumns(t); c++)
			files |= b->rows[i].values[c] && !strcmp(t->columns[c], "files");
	}
	callus_buf_release(&sql);
	if (sq == SQLITE_OK && t->after == AFTER_LESSON)
		sq = owe_pages(s, workspace, b);
	/* the list of files with a fix named the old paths: removed under the
	 * write lock, as learning removes one it cannot change, and made
	 * again from the store by its next reader (fileindex.h) */
	if (sq == SQLITE_OK && t->after == AFTER_FILES && files)
		callus_fileindex_remove(s);
	/* and an error's files as pending_files lists them (schema 47),
	 * which the triggers keep only as errors close and go */
	for (size_t i = 0; sq == SQLITE_OK && files && !strcmp(t->name, "pending_errors") &&
			   i < b->n;
	     i++)
		sq = callus_store_pending_files_again(s, b->rows[i].rowid);
	return sq;
}

/* The pages of the batch's lessons written again, after its commit, each
 * debt paid once its page is; under the views' lock, each read there: read
 * before it, a recording of the lesson that passed meanwhile would have
 * its page overwritten with the older copy. */
static void rewrite_pages(callus_store *s, const char *workspace, batch *b)
{
	callus_buf dir = CALLUS_BUF_INIT, key = CALLUS_BUF_INIT;
	callus_error e = CALLUS_ERROR_INIT;
	int lock = -1;

	if (callus_buf_printf(&dir, "%s/.lessons", workspace) < 0 ||
	    callus_workspace_guard(NULL, workspace, ".lessons", 0, &e) < 0 ||
	    callus_views_lock(workspace, &lock, &e) < 0)
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
	callus_fs_unlock(lock);
	callus_error_release(&e);
	callus_buf_release(&key);
	callus_buf_release(&dir);
}

/* ------------------------------------------------------------------ */
/* One signature                                                        */

int callus_store_redact_signature(callus_store *s, const callus_redactor *r, int64_t sig,
				  char id[CALLUS_SHA256_HEX_LEN + 1])
{
	batch b = { 0 };
	int sq;

	*id = '\0';
	if ((sq = read_batch(s, &tables[SIGNATURES], r, sig, 0, &b)) == SQLITE_OK &&
	    (sq = write_batch(s, NULL, &tables[SIGNATURES], &b)) == SQLITE_OK)
		sq = callus_store_resign(s, sig, id, NULL);
	batch_clear(&b, 0);
	free(b.rows);
	return sq;
}

/* ------------------------------------------------------------------ */
/* The pass                                                             */

static void redact_log(const char *workspace, const callus_redactor *r, size_t *lines)
{
	callus_buf dir = CALLUS_BUF_INIT;

	if (callus_buf_printf(&dir, "%s/.callus", workspace) == 0 &&
	    callus_log_redact(r, dir.ptr, lines) < 0)
		callus_log_event_with(r, dir.ptr, "warn", "log_not_redacted",
				      "the log could not be redacted again; it rotates away at 1 MiB",
				      NULL);
	callus_buf_release(&dir);
}

int callus_store_redact(callus_store *s, const char *workspace, const callus_redactor *r,
			size_t budget, callus_store_redact_result *res, callus_error *err)
{
	callus_store_redact_result own;
	batch b = { 0 };
	size_t table;
	int64_t after, secure = callus_store_query_int(s, "PRAGMA secure_delete");
	int sq = SQLITE_OK, rc = 0, in_tx = 0, notes_changed = 0, checks_changed = 0;

	if (!res)
		res = &own;
	memset(res, 0, sizeof(*res));
	/* the old text is not left in the pages it leaves: the file is what
	 * a secret must not be found in */
	if ((sq = sqlite3_exec(callus_store_db(s), "PRAGMA secure_delete = ON", NULL, NULL,
			       NULL)) != SQLITE_OK)
		goto fail;
	read_cursor(s, &table, &after);
	/* best-effort, as logging is: a log that cannot be rewritten is
	 * left to rotate away, and says so in itself */
	if (table == 0 && after == 0)
		redact_log(workspace, r, &res->log);
	while (table < NTABLES && (!budget || res->rows < budget)) {
		const text_table *t = &tables[table];
		size_t limit = budget && budget - res->rows < BATCH ? budget - res->rows : BATCH;

		/* a person's edit not taken in yet is taken in first: a note
		 * the pass changes has its file written from the store */
		if (t->after == AFTER_NOTE && after == 0 &&
		    (rc = callus_notes_sync(s, workspace, NULL, err)) < 0)
			goto out;
		if ((sq = sqlite3_exec(callus_store_db(s), "BEGIN IMMEDIATE", NULL, NULL, NULL)) !=
		    SQLITE_OK)
			goto fail;
		in_tx = 1;
		b.last = after;
		if ((sq = read_batch(s, t, r, after, limit, &b)) != SQLITE_OK ||
		    (sq = write_batch(s, workspace, t, &b)) != SQLITE_OK)
			goto fail;
		/* a short batch ends its table */
		if (b.read < limit) {
			table++;
			after = 0;
		} else {
			after = b.last;
		}
		if (save_cursor(s, table, after) < 0) {
			sq = sqlite3_errcode(callus_store_db(s));
			goto fail;
		}
		if ((sq = sqlite3_exec(callus_store_db(s), "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
			goto fail;
		in_tx = 0;
		res->rows += b.read;
		res->changed += b.n - b.sign_only;
		res->merged += b.merged;
		if (t->after == AFTER_LESSON && b.n) {
			res->lessons += b.n;
			rewrite_pages(s, workspace, &b);
		}
		notes_changed |= t->after == AFTER_NOTE && b.n;
		checks_changed |= t->after == AFTER_CHECK && b.n;
		batch_clear(&b, 0);
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
	/* the error read before the rollback, which clears it */
	rc = sq == SQLITE_NOMEM ? callus_error_set(err, CALLUS_ENOMEM, "out of memory")
				: callus_store_db_error(s, err, sq, "cannot redact the texts of");
	if (in_tx)
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	/* nothing committed: the pages are the store's still */
	batch_clear(&b, 1);
out:
	if (secure >= 0 && secure != 1) {
		char pragma[40];

		snprintf(pragma, sizeof(pragma), "PRAGMA secure_delete = %d", (int)secure);
		sqlite3_exec(callus_store_db(s), pragma, NULL, NULL, NULL);
	}
	batch_clear(&b, 0);
	free(b.rows);
	return rc;
}
