#include "callus/store.h"
#include "callus/embed.h"
#include "callus/migrate.h"
#include "callus/buf.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct callus_store {
	sqlite3 *db;
	char *path;
};

/* Forward-only migrations; migrations[i] takes the schema from version i
 * to version i + 1.  Never edit one that has shipped: add another. */
static const char *const migrations[] = {
	/* 0 -> 1: lessons, the runs they came from, and their errors */
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  at TEXT NOT NULL,"
	"  tool TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  cwd TEXT NOT NULL DEFAULT '',"
	"  exit_code INTEGER NOT NULL,"
	"  intent_id TEXT NOT NULL DEFAULT '',"
	"  output_bytes INTEGER NOT NULL DEFAULT 0);"
	"CREATE TABLE lessons ("
	"  id INTEGER PRIMARY KEY,"
	"  signature TEXT NOT NULL UNIQUE,"
	"  timestamp TEXT NOT NULL,"
	"  type TEXT NOT NULL CHECK (type IN ('LINT','TEST','ANALYSIS','OTHER')),"
	"  file TEXT NOT NULL,"
	"  error_summary TEXT NOT NULL,"
	"  cause TEXT NOT NULL DEFAULT '',"
	"  resolution TEXT NOT NULL DEFAULT '',"
	"  corrective_rule TEXT NOT NULL DEFAULT '',"
	"  intent_id TEXT NOT NULL DEFAULT '',"
	"  tool TEXT NOT NULL,"
	"  command TEXT NOT NULL,"
	"  exit_code INTEGER NOT NULL,"
	"  affected_files TEXT NOT NULL DEFAULT '[]',"
	"  occurrences INTEGER NOT NULL DEFAULT 1 CHECK (occurrences >= 1),"
	"  last_seen TEXT NOT NULL);"
	"CREATE INDEX lessons_last_seen ON lessons(last_seen);"
	"CREATE INDEX lessons_file ON lessons(file);"
	"CREATE TABLE lesson_runs ("
	"  lesson_id INTEGER NOT NULL REFERENCES lessons(id) ON DELETE CASCADE,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  PRIMARY KEY (lesson_id, run_id));"
	"CREATE TABLE run_errors ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  file TEXT, line INTEGER, col INTEGER, code TEXT, message TEXT NOT NULL);"
	"CREATE INDEX run_errors_run ON run_errors(run_id);",
	/* 1 -> 2: error signatures (spec 004) and where they occurred */
	"CREATE TABLE signatures ("
	"  id TEXT PRIMARY KEY,"
	"  error_type TEXT NOT NULL,"
	"  message_pattern TEXT NOT NULL,"
	"  stack_patterns TEXT NOT NULL DEFAULT '[]',"
	"  context_patterns TEXT NOT NULL DEFAULT '[]',"
	"  original TEXT NOT NULL,"
	"  tool TEXT NOT NULL,"
	"  first_seen TEXT NOT NULL,"
	"  last_seen TEXT NOT NULL,"
	"  occurrence_count INTEGER NOT NULL DEFAULT 1 CHECK (occurrence_count >= 1));"
	"CREATE TABLE signature_runs ("
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
	"  errors INTEGER NOT NULL DEFAULT 1,"
	"  PRIMARY KEY (signature_id, run_id));"
	"CREATE INDEX signature_runs_run ON signature_runs(run_id);"
	"ALTER TABLE run_errors ADD COLUMN signature_id TEXT;",
	/* 2 -> 3: metrics (include/callus/metrics.h): one row per series part,
	 * values added by upsert so concurrent writers add up */
	"CREATE TABLE metrics ("
	"  name TEXT NOT NULL,"
	"  labels TEXT NOT NULL,"
	"  part TEXT NOT NULL,"
	"  value REAL NOT NULL,"
	"  PRIMARY KEY (name, labels, part)) WITHOUT ROWID;",
	/* 3 -> 4: the three states of an error, resolutions and their
	 * applications (include/callus/learn.h).  The triggers make the state
	 * transitions one-way whoever writes the store. */
	"CREATE TABLE checks ("
	"  id INTEGER PRIMARY KEY,"
	"  tool TEXT NOT NULL,"
	"  args TEXT NOT NULL,"
	"  dir TEXT NOT NULL,"
	"  runs INTEGER NOT NULL DEFAULT 0,"
	"  last_run_at TEXT,"
	"  last_pass_at TEXT,"
	"  UNIQUE (tool, args, dir));"
	"CREATE TABLE snapshots ("
	"  id INTEGER PRIMARY KEY,"
	"  kind TEXT NOT NULL CHECK (kind IN ('git','files')),"
	"  tree TEXT NOT NULL,"
	"  head TEXT NOT NULL DEFAULT '',"
	"  taken_at TEXT NOT NULL);"
	"CREATE TABLE resolutions ("
	"  id INTEGER PRIMARY KEY,"
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  description TEXT NOT NULL,"
	"  code_changes TEXT NOT NULL,"
	"  files TEXT NOT NULL DEFAULT '[]',"
	"  context TEXT NOT NULL DEFAULT '{}',"
	"  application_count INTEGER NOT NULL DEFAULT 1,"
	"  success_count INTEGER NOT NULL DEFAULT 1,"
	"  created_at TEXT NOT NULL,"
	"  last_success_at TEXT NOT NULL DEFAULT '',"
	"  CHECK (success_count >= 0 AND success_count <= application_count));"
	"CREATE INDEX resolutions_signature ON resolutions(signature_id);"
	"CREATE TABLE pending_errors ("
	"  id INTEGER PRIMARY KEY,"
	"  check_id INTEGER NOT NULL REFERENCES checks(id) ON DELETE CASCADE,"
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  state TEXT NOT NULL DEFAULT 'pending'"
	"   CHECK (state IN ('pending','fixed','permanent')),"
	"  attempts INTEGER NOT NULL DEFAULT 1 CHECK (attempts >= 1),"
	"  first_failure_at TEXT NOT NULL,"
	"  last_failure_at TEXT NOT NULL,"
	"  session TEXT NOT NULL DEFAULT '',"
	"  files TEXT NOT NULL DEFAULT '[]',"
	"  snapshot_id INTEGER REFERENCES snapshots(id) ON DELETE SET NULL,"
	"  closed_at TEXT NOT NULL DEFAULT '',"
	"  closed_run INTEGER NOT NULL DEFAULT 0,"
	"  resolution_id INTEGER REFERENCES resolutions(id) ON DELETE SET NULL);"
	"CREATE UNIQUE INDEX pending_open ON pending_errors(check_id, signature_id)"
	"  WHERE state = 'pending';"
	"CREATE INDEX pending_check ON pending_errors(check_id, signature_id, state);"
	"CREATE INDEX pending_last ON pending_errors(state, last_failure_at);"
	"CREATE TRIGGER pending_starts_pending BEFORE INSERT ON pending_errors"
	"  WHEN NEW.state <> 'pending'"
	"  BEGIN SELECT RAISE(ABORT, 'an error starts pending'); END;"
	"CREATE TRIGGER pending_one_way BEFORE UPDATE OF state ON pending_errors"
	"  WHEN OLD.state <> 'pending' AND NEW.state <> OLD.state"
	"  BEGIN SELECT RAISE(ABORT, 'a fixed or permanent error stays so'); END;"
	"CREATE TABLE suggestions ("
	"  id INTEGER PRIMARY KEY,"
	"  pending_id INTEGER NOT NULL REFERENCES pending_errors(id) ON DELETE CASCADE,"
	"  resolution_id INTEGER NOT NULL REFERENCES resolutions(id) ON DELETE CASCADE,"
	"  confidence REAL NOT NULL,"
	"  made_at TEXT NOT NULL,"
	"  outcome TEXT CHECK (outcome IN ('success','failure')),"
	"  outcome_at TEXT NOT NULL DEFAULT '',"
	"  UNIQUE (pending_id, resolution_id));"
	"CREATE INDEX suggestions_resolution ON suggestions(resolution_id);"
	"CREATE TABLE applications ("
	"  id INTEGER PRIMARY KEY,"
	"  resolution_id INTEGER NOT NULL REFERENCES resolutions(id) ON DELETE CASCADE,"
	"  suggestion_id INTEGER REFERENCES suggestions(id) ON DELETE SET NULL,"
	"  success INTEGER NOT NULL CHECK (success IN (0,1)),"
	"  source TEXT NOT NULL CHECK (source IN ('fix','recurred','permanent','feedback')),"
	"  context TEXT NOT NULL DEFAULT '{}',"
	"  at TEXT NOT NULL);"
	"CREATE INDEX applications_resolution ON applications(resolution_id);",
	/* 4 -> 5: matching (include/callus/match.h): each signature's vector
	 * per embedding model, the built-in embedder's document frequencies,
	 * and signatures linked to another (a near-duplicate, or a merge a
	 * maintainer approved) */
	"CREATE TABLE signature_vectors ("
	"  signature_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  model TEXT NOT NULL,"
	"  vector BLOB NOT NULL,"
	"  PRIMARY KEY (signature_id, model)) WITHOUT ROWID;"
	"CREATE TABLE embed_df ("
	"  feature INTEGER PRIMARY KEY,"
	"  df INTEGER NOT NULL);"
	"CREATE TABLE signature_links ("
	"  alias_id TEXT PRIMARY KEY REFERENCES signatures(id) ON DELETE CASCADE,"
	"  canonical_id TEXT NOT NULL REFERENCES signatures(id) ON DELETE CASCADE,"
	"  similarity REAL NOT NULL,"
	"  reason TEXT NOT NULL CHECK (reason IN ('duplicate','merge')),"
	"  linked_at TEXT NOT NULL,"
	"  CHECK (alias_id <> canonical_id));"
	"CREATE INDEX signatures_error_type ON signatures(error_type);",
	/* 5 -> 6: the built-in embedder's vectors carry the product's name,
	 * which changed (callus/migrate.h) */
	"UPDATE signature_vectors SET model = '" CALLUS_EMBED_BUILTIN_MODEL "'"
	"  WHERE model = '" CALLUS_MIGRATE_OLD_BUILTIN_MODEL "';",
};

_Static_assert(sizeof(migrations) / sizeof(migrations[0]) == CALLUS_STORE_SCHEMA_VERSION,
	       "one migration per schema version");

int callus_store_db_error(callus_store *s, callus_error *err, int rc, const char *what)
{
	int code = (rc == SQLITE_BUSY || rc == SQLITE_LOCKED) ? CALLUS_EBUSY : CALLUS_EIO;

	if (rc == SQLITE_NOMEM)
		code = CALLUS_ENOMEM;
	return callus_error_set(err, code, "%s '%s': %s", what, s->path,
			      s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc));
}

int callus_store_exec(callus_store *s, const char *sql, callus_error *err)
{
	int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : callus_store_db_error(s, err, rc, "cannot update the store");
}

sqlite3 *callus_store_db(callus_store *s)
{
	return s->db;
}

const char *callus_store_path(const callus_store *s)
{
	return s->path;
}

int callus_store_schema_version(callus_store *s)
{
	sqlite3_stmt *st = NULL;
	int v = -1;

	if (sqlite3_prepare_v2(s->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return v;
}

static int migrate(callus_store *s, callus_error *err)
{
	const int latest = (int)(sizeof(migrations) / sizeof(migrations[0]));
	callus_buf sql = CALLUS_BUF_INIT;
	int rc, v;

	/* Cheap check first: most opens find the schema current. */
	if ((v = callus_store_schema_version(s)) == latest)
		return 0;
	if (v < 0)
		return callus_store_db_error(s, err, sqlite3_errcode(s->db), "cannot read");
	/* IMMEDIATE takes the write lock now, so two processes creating the
	 * store at once apply the migrations exactly once. */
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	v = callus_store_schema_version(s);
	if (v > latest) {
		rc = callus_error_set(err, CALLUS_EINVAL,
				    "'%s' has schema version %d, newer than this callus (%d)",
				    s->path, v, latest);
		goto rollback;
	}
	for (; v < latest; v++) {
		if ((rc = callus_store_exec(s, migrations[v], err)) < 0)
			goto rollback;
		callus_buf_clear(&sql);
		callus_buf_printf(&sql, "PRAGMA user_version = %d", v + 1);
		if ((rc = callus_store_exec(s, sql.ptr, err)) < 0)
			goto rollback;
	}
	callus_buf_release(&sql);
	return callus_store_exec(s, "COMMIT", err);
rollback:
	callus_buf_release(&sql);
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* Pages the WAL may hold before a commit copies them into the store. */
#define STORE_WAL_PAGES "64"

/*
 * Switch a new store to WAL.  Until the first process has done so the file
 * is in rollback mode, where SQLite answers a connection that holds a read
 * lock and needs the exclusive one with an immediate SQLITE_BUSY (waiting
 * could deadlock) instead of calling the busy handler: processes creating
 * the store together retry here, within the same timeout.
 */
static int set_wal(callus_store *s, int timeout_ms, callus_error *err)
{
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	int waited = 0, rc;

	while ((rc = sqlite3_exec(s->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL)) ==
		       SQLITE_BUSY &&
	       waited < timeout_ms) {
		nanosleep(&pause, NULL);
		waited += 2;
	}
	return rc == SQLITE_OK ? 0 : callus_store_db_error(s, err, rc, "cannot open the store");
}

int callus_store_open(callus_store **out, const char *path, int timeout_ms, callus_error *err)
{
	callus_store *s = calloc(1, sizeof(*s));
	int rc, fd;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	/* Create the file ourselves so that it is private from the start;
	 * SQLite gives its -wal and -shm files the same mode. */
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		rc = callus_error_set(err, errno == ENOSPC ? CALLUS_EIO : CALLUS_EIO,
				    "cannot open the store '%s': %s", path, strerror(errno));
		goto fail;
	}
	close(fd);
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		rc = callus_store_db_error(s, err, rc, "cannot open the store");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, timeout_ms);
	/* Every callus process is short-lived: checkpointing the WAL at each
	 * close would copy it back on every recording.  But every process is
	 * also the first to open the store, so it rebuilds the WAL index by
	 * reading and checksumming the whole WAL: a small automatic
	 * checkpoint keeps that read short (SQLite's default, 1000 pages,
	 * made every open read up to 4 MB). */
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_extended_result_codes(s->db, 0);
	if ((rc = set_wal(s, timeout_ms, err)) < 0 ||
	    (rc = callus_store_exec(s, "PRAGMA wal_autocheckpoint = " STORE_WAL_PAGES, err)) < 0 ||
	    (rc = callus_store_exec(s, "PRAGMA synchronous = NORMAL", err)) < 0 ||
	    (rc = callus_store_exec(s, "PRAGMA foreign_keys = ON", err)) < 0 ||
	    (rc = migrate(s, err)) < 0)
		goto fail;
	*out = s;
	return 0;
fail:
	callus_store_close(s);
	return rc;
}

void callus_store_close(callus_store *s)
{
	if (!s)
		return;
	sqlite3_close_v2(s->db);
	free(s->path);
	free(s);
}

static char *files_json(const callus_lesson *l)
{
	callus_strlist files = { l->affected_files, l->affected_count, l->affected_count };

	return callus_sql_strlist_json(&files);
}

static int insert_run(callus_store *s, const callus_lesson *l, const callus_run_info *run,
		      sqlite3_int64 *run_id)
{
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(s->db,
				"INSERT INTO runs (at, tool, command, cwd, exit_code, intent_id,"
				" output_bytes) VALUES (?,?,?,?,?,?,?)", -1, &st, NULL);
	if (rc != SQLITE_OK)
		return rc;
	callus_sql_bind_text(st, 1, l->last_seen);
	callus_sql_bind_text(st, 2, l->tool);
	callus_sql_bind_text(st, 3, l->command);
	callus_sql_bind_text(st, 4, run ? run->cwd : "");
	sqlite3_bind_int(st, 5, l->exit_code);
	callus_sql_bind_text(st, 6, run && run->intent_id ? run->intent_id : l->intent_id);
	sqlite3_bind_int64(st, 7, run ? (sqlite3_int64)run->output_bytes : 0);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return rc;
	*run_id = sqlite3_last_insert_rowid(s->db);
	if (!run || !run->diags || !run->diags->count)
		return SQLITE_OK;
	rc = sqlite3_prepare_v2(s->db,
				"INSERT INTO run_errors (run_id, file, line, col, code, message,"
				" signature_id) VALUES (?,?,?,?,?,?,?)", -1, &st, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < run->diags->count; i++) {
		const callus_diag *d = &run->diags->items[i];

		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, *run_id);
		if (d->file)
			callus_sql_bind_text(st, 2, d->file);
		else
			sqlite3_bind_null(st, 2);
		sqlite3_bind_int64(st, 3, d->line);
		sqlite3_bind_int64(st, 4, d->column);
		if (d->code)
			callus_sql_bind_text(st, 5, d->code);
		else
			sqlite3_bind_null(st, 5);
		callus_sql_bind_text(st, 6, d->message);
		if (d->signature)
			callus_sql_bind_text(st, 7, d->signature);
		else
			sqlite3_bind_null(st, 7);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(s->db);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Each signature of the run: stored once, one more occurrence per run. */
static int insert_signatures(callus_store *s, const callus_run_info *run, sqlite3_int64 run_id,
			     const char *now)
{
	sqlite3_stmt *sig = NULL, *link = NULL;
	int rc;

	if (!run || !run->nsigs)
		return SQLITE_OK;
	rc = sqlite3_prepare_v2(s->db,
				"INSERT INTO signatures (id, error_type, message_pattern, stack_patterns,"
				" context_patterns, original, tool, first_seen, last_seen)"
				" VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT (id) DO UPDATE SET"
				" occurrence_count = occurrence_count + 1, last_seen = excluded.last_seen,"
				" context_patterns = excluded.context_patterns",
				-1, &sig, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(s->db,
					"INSERT INTO signature_runs (signature_id, run_id, errors)"
					" SELECT ?1, ?2, count(*) FROM run_errors"
					" WHERE run_id = ?2 AND signature_id = ?1",
					-1, &link, NULL);
	for (size_t i = 0; rc == SQLITE_OK && i < run->nsigs; i++) {
		const callus_signature *g = &run->sigs[i];
		char *stack = callus_sql_strlist_json(&g->stack_patterns);
		char *ctx = callus_sql_strlist_json(&g->context_patterns);

		if (!stack || !ctx) {
			free(stack);
			free(ctx);
			rc = SQLITE_NOMEM;
			break;
		}
		sqlite3_reset(sig);
		callus_sql_bind_text(sig, 1, g->id);
		callus_sql_bind_text(sig, 2, g->error_type);
		callus_sql_bind_text(sig, 3, g->message_pattern);
		callus_sql_bind_text(sig, 4, stack);
		callus_sql_bind_text(sig, 5, ctx);
		callus_sql_bind_text(sig, 6, g->original);
		callus_sql_bind_text(sig, 7, g->tool);
		callus_sql_bind_text(sig, 8, now);
		callus_sql_bind_text(sig, 9, now);
		rc = sqlite3_step(sig) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(s->db);
		free(stack);
		free(ctx);
		if (rc != SQLITE_OK)
			break;
		sqlite3_reset(link);
		callus_sql_bind_text(link, 1, g->id);
		sqlite3_bind_int64(link, 2, run_id);
		rc = sqlite3_step(link) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(s->db);
	}
	sqlite3_finalize(sig);
	sqlite3_finalize(link);
	return rc;
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

struct metric_writer {
	sqlite3_stmt *st;
	int rc;
};

static int write_metric_row(void *ctx, const callus_metric_row *r)
{
	struct metric_writer *w = ctx;

	sqlite3_reset(w->st);
	callus_sql_bind_text(w->st, 1, r->name);
	callus_sql_bind_text(w->st, 2, r->labels);
	callus_sql_bind_text(w->st, 3, r->part);
	sqlite3_bind_double(w->st, 4, r->value);
	sqlite3_bind_int(w->st, 5, r->replace);
	w->rc = sqlite3_step(w->st);
	if (w->rc == SQLITE_DONE)
		w->rc = SQLITE_OK;
	return w->rc != SQLITE_OK; /* stops the walk at the first failure */
}

/* Add m's rows to the metrics table; inside the caller's transaction. */
static int write_metrics(callus_store *s, const callus_metrics *m)
{
	struct metric_writer w = { NULL, SQLITE_OK };

	if (callus_metrics_is_empty(m))
		return SQLITE_OK;
	w.rc = sqlite3_prepare_v2(s->db,
				  "INSERT INTO metrics (name, labels, part, value) VALUES (?1,?2,?3,?4)"
				  " ON CONFLICT (name, labels, part) DO UPDATE SET value ="
				  "  CASE WHEN ?5 THEN excluded.value ELSE value + excluded.value END",
				  -1, &w.st, NULL);
	if (w.rc == SQLITE_OK && callus_metrics_each_row(m, write_metric_row, &w) < 0)
		w.rc = SQLITE_NOMEM;
	sqlite3_finalize(w.st);
	return w.rc;
}

int callus_store_record_lesson(callus_store *s, callus_lesson *l, const callus_run_info *run,
			     int *is_new, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	sqlite3_int64 run_id = 0;
	char *files = NULL;
	int rc, sq;

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
	if ((sq = insert_run(s, l, run, &run_id)) != SQLITE_OK ||
	    (sq = insert_signatures(s, run, run_id, l->last_seen)) != SQLITE_OK)
		goto db_fail;
	sq = sqlite3_prepare_v2(
		s->db,
		"INSERT INTO lessons (signature, timestamp, type, file, error_summary, cause,"
		" resolution, corrective_rule, intent_id, tool, command, exit_code,"
		" affected_files, occurrences, last_seen)"
		" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,1,?)"
		" ON CONFLICT (signature) DO UPDATE SET occurrences = occurrences + 1,"
		"  last_seen = excluded.last_seen, exit_code = excluded.exit_code,"
		"  cause = CASE WHEN excluded.cause <> '' THEN excluded.cause ELSE cause END,"
		"  resolution = CASE WHEN excluded.resolution <> '' THEN excluded.resolution"
		"   ELSE resolution END,"
		"  corrective_rule = CASE WHEN excluded.corrective_rule <> ''"
		"   THEN excluded.corrective_rule ELSE corrective_rule END"
		" RETURNING id, occurrences, timestamp, cause, resolution, corrective_rule,"
		"  intent_id",
		-1, &st, NULL);
	if (sq != SQLITE_OK)
		goto db_fail;
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
	if ((sq = sqlite3_step(st)) != SQLITE_ROW)
		goto db_fail;
	l->id = sqlite3_column_int64(st, 0);
	l->occurrences = sqlite3_column_int64(st, 1);
	if (replace_str(&l->timestamp, sqlite3_column_text(st, 2)) < 0 ||
	    replace_str(&l->cause, sqlite3_column_text(st, 3)) < 0 ||
	    replace_str(&l->resolution, sqlite3_column_text(st, 4)) < 0 ||
	    replace_str(&l->corrective_rule, sqlite3_column_text(st, 5)) < 0 ||
	    replace_str(&l->intent_id, sqlite3_column_text(st, 6)) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto rollback;
	}
	/* RETURNING rows are produced before the statement finishes */
	while ((sq = sqlite3_step(st)) == SQLITE_ROW)
		;
	if (sq != SQLITE_DONE)
		goto db_fail;
	sqlite3_finalize(st);
	st = NULL;
	if (is_new)
		*is_new = l->occurrences == 1;
	if ((sq = sqlite3_prepare_v2(s->db, "INSERT INTO lesson_runs VALUES (?, ?)", -1, &st,
				     NULL)) != SQLITE_OK)
		goto db_fail;
	sqlite3_bind_int64(st, 1, l->id);
	sqlite3_bind_int64(st, 2, run_id);
	if ((sq = sqlite3_step(st)) != SQLITE_DONE)
		goto db_fail;
	sqlite3_finalize(st);
	st = NULL;
	if (run && run->metrics && (sq = write_metrics(s, run->metrics)) != SQLITE_OK)
		goto db_fail;
	rc = callus_store_exec(s, "COMMIT", err);
	if (rc < 0)
		goto rollback;
	if (run && run->metrics)
		callus_metrics_clear(run->metrics);
	goto out;
db_fail:
	rc = callus_store_db_error(s, err, sq, "cannot record in");
rollback:
	sqlite3_finalize(st);
	st = NULL;
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_finalize(st);
	free(files);
	return rc;
}

static const char lesson_columns[] =
	"SELECT id, signature, timestamp, type, file, error_summary, cause, resolution,"
	" corrective_rule, intent_id, tool, command, exit_code, affected_files, occurrences,"
	" last_seen FROM lessons";

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
	callus_buf_puts(&sql, lesson_columns);
	/* a lesson matches a file when it is its primary or any affected file */
	callus_buf_puts(&sql, " WHERE (:type IS NULL OR type = upper(:type))"
			    " AND (:file IS NULL OR file = :file OR EXISTS (SELECT 1 FROM"
			    " json_each(affected_files) WHERE value = :file))"
			    " AND (:tool IS NULL OR tool = :tool)");
	callus_buf_puts(&sql, lowest_value
				    ? " ORDER BY occurrences ASC, last_seen ASC, id ASC LIMIT :limit"
				    : " ORDER BY last_seen DESC, id DESC LIMIT :limit");
	if (callus_buf_status(&sql) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(s->db, sql.ptr, -1, &st, NULL)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (f && f->type)
		callus_sql_bind_text(st, sqlite3_bind_parameter_index(st, ":type"), f->type);
	if (f && f->file)
		callus_sql_bind_text(st, sqlite3_bind_parameter_index(st, ":file"), f->file);
	if (f && f->tool)
		callus_sql_bind_text(st, sqlite3_bind_parameter_index(st, ":tool"), f->tool);
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

int callus_store_get_lesson(callus_store *s, const char *key, callus_lesson *out, callus_error *err)
{
	callus_buf sql = CALLUS_BUF_INIT, pat = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	size_t klen = strlen(key);
	int is_num = klen > 0 && strspn(key, "0123456789") == klen && klen < 18;
	int rc = 0, sq;

	memset(out, 0, sizeof(*out));
	if (!is_num && (klen < 6 || strspn(key, "0123456789abcdef") != klen))
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' is neither a lesson id nor a signature prefix "
				      "(6 or more hex digits)", key);
	callus_buf_puts(&sql, lesson_columns);
	callus_buf_puts(&sql, is_num ? " WHERE id = ?" : " WHERE signature LIKE ? LIMIT 2");
	callus_buf_printf(&pat, "%s%%", key);
	if ((sq = sqlite3_prepare_v2(s->db, sql.ptr, -1, &st, NULL)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read");
		goto out;
	}
	if (is_num)
		sqlite3_bind_int64(st, 1, strtoll(key, NULL, 10));
	else
		callus_sql_bind_text(st, 1, pat.ptr);
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
	sqlite3_finalize(st);
	callus_buf_release(&sql);
	callus_buf_release(&pat);
	return rc;
}

int callus_store_flush_metrics(callus_store *s, callus_metrics *m, callus_error *err)
{
	int rc, sq;

	if (callus_metrics_is_empty(m))
		return 0;
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	if ((sq = write_metrics(s, m)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot record metrics in");
		goto rollback;
	}
	if ((rc = callus_store_exec(s, "COMMIT", err)) < 0)
		goto rollback;
	callus_metrics_clear(m);
	return 0;
rollback:
	sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
	return rc;
}

/* One integer from a query of one row; -1 when it fails. */
static int64_t query_int(callus_store *s, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int callus_store_read_metrics(callus_store *s, callus_metrics *m, callus_error *err)
{
	const char *const project[] = { CALLUS_LAYER_PROJECT };
	sqlite3_stmt *st = NULL;
	int64_t lessons;
	int rc = 0, sq;

	/* a read transaction: the counters and the gauges of one moment */
	if ((rc = callus_store_exec(s, "BEGIN", err)) < 0)
		return rc;
	sq = sqlite3_prepare_v2(s->db, "SELECT name, labels, part, value FROM metrics", -1, &st,
				NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_metric_row r = { (const char *)sqlite3_column_text(st, 0),
				      (const char *)sqlite3_column_text(st, 1),
				      (const char *)sqlite3_column_text(st, 2),
				      sqlite3_column_double(st, 3), 0 };

		if (r.name && r.labels && r.part && callus_metrics_add_row(m, &r) < 0) {
			rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
			goto out;
		}
		sq = SQLITE_OK;
	}
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot read metrics from");
		goto out;
	}
	if ((lessons = query_int(s, "SELECT count(*) FROM lessons")) < 0) {
		rc = callus_store_db_error(s, err, sqlite3_errcode(s->db), "cannot read");
		goto out;
	}
	if (callus_metrics_set(m, CALLUS_METRIC_STORAGE_COUNT, project, (double)lessons) < 0)
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
out:
	sqlite3_finalize(st);
	sqlite3_exec(s->db, "COMMIT", NULL, NULL, NULL);
	return rc;
}

int callus_store_open_existing(callus_store **out, const char *path, int timeout_ms,
			     callus_error *err)
{
	callus_store *s = calloc(1, sizeof(*s));
	struct stat st;
	int rc;

	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	if (lstat(path, &st) < 0) {
		rc = callus_error_set(err, errno == ENOENT ? CALLUS_ENOTFOUND : CALLUS_EIO,
				    "cannot open the store '%s': %s", path, strerror(errno));
		goto fail;
	}
	rc = sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL);
	if (rc != SQLITE_OK) {
		rc = callus_store_db_error(s, err, rc, "cannot open the store");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, timeout_ms);
	sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
	sqlite3_extended_result_codes(s->db, 0);
	*out = s;
	return 0;
fail:
	callus_store_close(s);
	return rc;
}

int callus_store_stats_get(callus_store *s, callus_store_stats *out, callus_error *err)
{
	int64_t pages, free_pages, page_size;

	memset(out, 0, sizeof(*out));
	out->lessons = out->runs = -1;
	if ((out->schema_version = callus_store_schema_version(s)) < 0)
		return callus_store_db_error(s, err, sqlite3_errcode(s->db), "cannot read");
	pages = query_int(s, "PRAGMA page_count");
	free_pages = query_int(s, "PRAGMA freelist_count");
	page_size = query_int(s, "PRAGMA page_size");
	if (pages >= 0 && free_pages >= 0 && page_size > 0) {
		out->db_bytes = (uint64_t)pages * (uint64_t)page_size;
		out->free_bytes = (uint64_t)free_pages * (uint64_t)page_size;
	}
	if (out->schema_version >= 1 && out->schema_version <= CALLUS_STORE_SCHEMA_VERSION) {
		out->lessons = query_int(s, "SELECT count(*) FROM lessons");
		out->runs = query_int(s, "SELECT count(*) FROM runs");
	}
	return 0;
}

int callus_store_integrity(callus_store *s, int quick, char **problems, callus_error *err)
{
	callus_buf b = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	int rc = 0, sq;

	*problems = NULL;
	/* 20 problems are enough to see that the file needs replacing */
	sq = sqlite3_prepare_v2(s->db, quick ? "PRAGMA quick_check(20)" : "PRAGMA integrity_check(20)",
				-1, &st, NULL);
	while (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		if (t && strcmp(t, "ok"))
			callus_buf_printf(&b, "%s%s", b.len ? "\n" : "", t);
		sq = SQLITE_OK;
	}
	if (sq != SQLITE_DONE) {
		rc = callus_store_db_error(s, err, sq, "cannot check");
		goto out;
	}
	if (callus_buf_status(&b) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (b.len)
		*problems = callus_buf_detach(&b);
out:
	sqlite3_finalize(st);
	callus_buf_release(&b);
	return rc;
}
