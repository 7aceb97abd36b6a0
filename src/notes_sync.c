/*
 * notes_sync.c - notes as files (notes.h): each active note is
 * .callus/notes/ID.md, written when the store changes it and read back
 * when the file changes.  The file wins: an edit is taken in, a deletion
 * retires the note, an unknown file (a teammate's, through git) is
 * imported with a signature and a resolution of its own.
 *
 * Whether a file changed is told by its size and mtime against those
 * recorded when callus last wrote or read it, and then by its hash: the
 * common case, nothing changed, costs one stat per note and no read.
 */
#include "callus/notes.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/hash.h"
#include "callus/lesson.h"
#include "callus/log.h"
#include "callus/match.h"
#include "callus/notemd.h"
#include "callus/signature.h"

#include "notes_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The notes folder, made when missing, never through a symlink.  *dir is
 * empty when it cannot be had. */
static int notes_dir(callus_buf *dir, const char *workspace, int create)
{
	struct stat st;

	callus_buf_clear(dir);
	if (callus_buf_printf(dir, "%s/.callus", workspace) < 0)
		return CALLUS_ENOMEM;
	if (lstat(dir->ptr, &st) < 0 || !S_ISDIR(st.st_mode))
		goto none;
	if (callus_buf_puts(dir, "/notes") < 0)
		return CALLUS_ENOMEM;
	if (lstat(dir->ptr, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : (callus_buf_clear(dir), 0);
	/* notes are meant to be committed: an ordinary directory */
	if (create && errno == ENOENT && mkdir(dir->ptr, 0777) == 0)
		return 0;
none:
	callus_buf_clear(dir);
	return 0;
}

static int64_t mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* A file's content told from the form callus last knew: the first 128 bits
 * of its SHA-256 (schema 23; told apart from an edit, not from an
 * adversary), 32 hex digits in the note's row and in notes_files. */
#define FILE_HASH_LEN 32

static int hash_of(char hex[CALLUS_SHA256_HEX_LEN + 1], const char *data, size_t len)
{
	callus_sha256 *h = NULL;
	int rc;

	if ((rc = callus_sha256_new(&h)) < 0)
		return rc;
	if ((rc = callus_sha256_update(h, data, len)) < 0) {
		callus_sha256_free(h);
		return rc;
	}
	if ((rc = callus_sha256_finish(h, hex)) == 0) /* frees h */
		hex[FILE_HASH_LEN] = '\0';
	return rc;
}

static int64_t folder_mtime(const char *workspace);
static void cursor_follow(const char *workspace, int64_t before);

/* The hash of a file callus could not read (notes_sync's "left alone"):
 * no SHA-256 prefix, so that the file read again is never taken as the
 * one callus last wrote. */
#define UNREAD_HASH "-"

/* Record the state of a note's file: hash "" and size -1 say "write it". */
static int record_file(callus_store *s, const char *id, const char *hash, int64_t mtime,
		       int64_t size)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "UPDATE notes SET file_hash = ?2, file_mtime = ?3, file_size = ?4"
				    " WHERE id = ?1",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, id);
	callus_sql_bind_text(st, 2, hash);
	sqlite3_bind_int64(st, 3, mtime);
	sqlite3_bind_int64(st, 4, size);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	sqlite3_finalize(st);
	return sq;
}

int callus_notes_owe_file(callus_store *s, const char *id)
{
	const char *v[] = { id };

	/* the hash and mtime of the file as callus last wrote it are kept:
	 * a person's edit of it before it is written again is told from it
	 * (sync_file) and taken in, not written over */
	return callus_sql_exec_texts(callus_store_db(s),
				     "UPDATE notes SET file_size = -1 WHERE id = ?1", v, 1);
}

/* A problem with the files is logged, never fatal: the store has it all. */
static void log_trouble(const char *workspace, const char *what, const char *id,
			const callus_error *e)
{
	callus_buf dir = CALLUS_BUF_INIT;
	const char *const extra[] = { "note", id, NULL };

	if (callus_buf_printf(&dir, "%s/.callus", workspace) == 0)
		callus_log_event(dir.ptr, "warn", what, callus_error_message(e), id ? extra : NULL);
	callus_buf_release(&dir);
}

int callus_notes_remove_file(const char *workspace, const char *id, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	int rc = 0;

	int64_t before = folder_mtime(workspace);

	if (notes_dir(&path, workspace, 0) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if (path.len && callus_buf_printf(&path, "/%s.md", id) == 0 && unlink(path.ptr) < 0 &&
	    errno != ENOENT)
		rc = callus_error_set(err, CALLUS_EIO, "cannot remove '%s': %s", path.ptr,
				      strerror(errno));
	else
		cursor_follow(workspace, before);
	callus_buf_release(&path);
	return rc;
}

/* The mtime of note id's file when callus last wrote or read it, which
 * its next write expects to find (a person's change is taken in, not
 * written over); -1 for a file callus never had (a new note's, one whose
 * write failed), which is written whatever is there. */
static int seen_mtime(callus_store *s, const char *id, int64_t *mtime)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT file_mtime FROM notes WHERE id = ?1 AND file_hash <> ''",
				    -1, &st, NULL);

	*mtime = -1;
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW)
		*mtime = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
}

int callus_notes_write_file(callus_store *s, const char *workspace, const char *id,
			    callus_error *err)
{
	callus_error fe = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT, old = CALLUS_BUF_INIT;
	char hex[CALLUS_SHA256_HEX_LEN + 1];
	callus_note n;
	struct stat st;
	int64_t before, seen;
	int rc, sq;

	memset(&n, 0, sizeof(n));
	if ((rc = callus_notes_note_get(s, id, &n, err)) < 0)
		goto out;
	if (n.retired) {
		if (callus_notes_remove_file(workspace, id, &fe) < 0)
			log_trouble(workspace, "note_file", id, &fe);
		goto out;
	}
	if ((rc = notes_dir(&path, workspace, 1)) < 0 ||
	    (rc = callus_note_md_render(&text, &n)) < 0 || (rc = hash_of(hex, text.ptr, text.len)) < 0)
		goto oom;
	before = folder_mtime(workspace);
	if (path.len && callus_buf_printf(&path, "/%s.md", id) == 0 &&
	    callus_fs_read_file(&old, path.ptr, CALLUS_NOTE_FILE_MAX, NULL) == 0 &&
	    callus_note_md_conflicted(old.ptr ? old.ptr : "", old.len)) {
		/* a person's merge under way: theirs to end; the file as seen,
		 * so that the store, though ahead, reads it when it changes */
		callus_error_set(&fe, CALLUS_EINVAL,
				 "its file has git's conflict markers: not written until they are "
				 "resolved");
		log_trouble(workspace, "note_conflicted", id, &fe);
		if (hash_of(hex, old.ptr, old.len) < 0)
			goto oom;
		if (lstat(path.ptr, &st) == 0 &&
		    (sq = record_file(s, id, hex, mtime_ns(&st), (int64_t)st.st_size)) != SQLITE_OK)
			rc = callus_store_db_error(s, err, sq, "cannot record a note's file in");
		goto out;
	}
	if ((sq = seen_mtime(s, id, &seen)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read a note's file in");
		goto out;
	}
	if (!path.len) {
		callus_error_set(&fe, CALLUS_EIO, "%s/.callus/notes is not a directory callus can use",
				 workspace);
	} else if (callus_buf_status(&path) < 0) {
		goto oom;
	} else if (callus_fs_write_atomic_unless_changed(path.ptr, text.ptr, text.len, 0666,
							 CALLUS_FS_UMASK,
							 seen < 0 ? CALLUS_FS_ANY_MTIME : seen, &st,
							 &fe) == 0) {
		cursor_follow(workspace, before);
		if ((sq = record_file(s, id, hex, mtime_ns(&st), (int64_t)st.st_size)) != SQLITE_OK)
			rc = callus_store_db_error(s, err, sq, "cannot record a note's file in");
		goto out;
	} else if (fe.code == CALLUS_ECHANGED) {
		/* a person changed or removed it while it was written: the
		 * next sync takes that in, the file owed until then */
		if ((sq = callus_notes_owe_file(s, id)) != SQLITE_OK)
			rc = callus_store_db_error(s, err, sq, "cannot record a note's file in");
		goto out;
	}
	/* written at the next sync; a file callus wrote before keeps what
	 * tells a person's edit of it meanwhile */
	log_trouble(workspace, "note_file", id, &fe);
	if ((sq = seen >= 0 ? callus_notes_owe_file(s, id) : record_file(s, id, "", 0, -1)) !=
	    SQLITE_OK)
		rc = callus_store_db_error(s, err, sq, "cannot record a note's file in");
	goto out;
oom:
	rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
out:
	callus_error_release(&fe);
	callus_note_release(&n);
	callus_buf_release(&path);
	callus_buf_release(&text);
	callus_buf_release(&old);
	return rc;
}

/* A write transaction is milliseconds; one longer (a gc's, an import's)
 * is not waited for. */
#define OWED_WAIT_MS 100

void callus_notes_write_owed(callus_store *s, const char *workspace, const callus_strlist *owed)
{
	callus_error err = CALLUS_ERROR_INIT;
	int rc;

	if (!owed->count)
		return;
	/* the pass is committed: a writer in the way leaves the files owed
	 * for the next sync, rather than hold a hook up for the timeout */
	if ((rc = callus_store_begin_within(s, OWED_WAIT_MS, &err)) < 0)
		goto out;
	/* a person's edit since the pass began is taken in first (the files
	 * wait for this lock); a removal is left to the next whole sync,
	 * which retires the note */
	for (size_t i = 0; i < owed->count && rc == 0; i++)
		if ((rc = callus_notes_sync_one(s, workspace, owed->items[i], NULL, &err)) == 0)
			rc = callus_notes_write_file(s, workspace, owed->items[i], &err);
	if (rc < 0)
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	else
		rc = callus_store_exec(s, "COMMIT", &err);
out:
	if (rc < 0)
		log_trouble(workspace, "notes_owed", NULL, &err);
	callus_error_release(&err);
}

/* ------------------------------------------------------------------ */
/* Reading the folder                                                   */

/* A note as the store knows it, and as the folder has it. */
typedef struct known {
	char id[CALLUS_NOTE_ID_LEN + 1];
	int active;
	char hash[FILE_HASH_LEN + 1];
	int64_t mtime, size;
	int seen;              /* its file is in the folder */
} known;

typedef struct sync_run {
	callus_store *s;
	const char *workspace;
	callus_buf dir;
	int dirfd;             /* dir open (open_dir), -1 when there is none */
	known *notes;
	size_t nnotes;
	int began;             /* this sync opened the transaction */
	int in_tx;             /* a write transaction is open */
	size_t changed, imported;
	char *now;
	int partial;           /* a slice of the known notes was looked at,
				* not the folder (callus_notes_sync_bounded) */
	callus_redactor *red;  /* built for the first file taken in */
} sync_run;

/*
 * A note file is a person's or a teammate's words (edited, or pulled with
 * git): what the store, the instructions file and the team store take from
 * it is redacted, as everything callus learns itself is.  The file stays
 * as it was: it is not callus's to rewrite.
 */
static int redact_note(sync_run *r, callus_note *n)
{
	char **fields[] = { &n->tool,  &n->error_type, &n->framework, &n->title, &n->example,
			    &n->rule,  &n->steps,      &n->code,      &n->extra, &n->session };
	int rc;

	if (!r->red && (rc = callus_redactor_new(&r->red, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if ((rc = callus_redact_in_place(r->red, fields[i])) < 0)
			return rc;
	/* the files its fixes changed: a folder's name is words too */
	for (size_t i = 0; i < n->files.count; i++)
		if ((rc = callus_redact_in_place(r->red, &n->files.items[i])) < 0)
			return rc;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	return strcmp(((const known *)a)->id, ((const known *)b)->id);
}

#define KNOWN_COLUMNS "id, status = 'active', file_hash, file_mtime, file_size"

/* The rows of st appended to r->notes; *got counts them. */
static int read_rows(sync_run *r, sqlite3_stmt *st, size_t *cap, size_t *got)
{
	int sq;

	*got = 0;
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		known *k = callus_array_grow(r->notes, cap, r->nnotes + 1, sizeof(*k));

		if (!k)
			return SQLITE_NOMEM;
		r->notes = k;
		k = &r->notes[r->nnotes++];
		memset(k, 0, sizeof(*k));
		/* a slice reads SYNC_SLICE rows: snprintf was 1.7 % of a failing
		 * hook when they were 256 */
		callus_sql_column_copy(st, 0, k->id, sizeof(k->id));
		k->active = sqlite3_column_int(st, 1);
		callus_sql_column_copy(st, 2, k->hash, sizeof(k->hash));
		k->mtime = sqlite3_column_int64(st, 3);
		k->size = sqlite3_column_int64(st, 4);
		(*got)++;
	}
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/* One query's rows appended: ?1 a text (or none), ?2 a limit. */
static int read_query(sync_run *r, const char *sql, const char *text, int64_t limit,
		      size_t *cap, size_t *got)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(r->s), sql, -1, &st, NULL);

	*got = 0;
	if (sq != SQLITE_OK)
		return sq;
	if (text)
		callus_sql_bind_text(st, 1, text);
	if (limit >= 0)
		sqlite3_bind_int64(st, 2, limit);
	sq = read_rows(r, st, cap, got);
	sqlite3_finalize(st);
	return sq;
}

/* Every note the store knows, by id. */
static int read_known(sync_run *r)
{
	size_t cap = 0, got;

	return read_query(r, "SELECT " KNOWN_COLUMNS " FROM notes ORDER BY id", NULL, -1, &cap,
			  &got);
}

/*
 * What a slice needs of the store, in the order of the notes' ids (the
 * primary key and the partial index notes_unwritten: a few pages however
 * many notes there are): the SYNC_SLICE notes after the cursor's id,
 * wrapping, their ids put in order into slice[]; and the active notes
 * whose file the store is ahead of, wherever they are (written by
 * sync_missing).  Reading every note was the cost that grew.  *whole is
 * set when the store has no more than SYNC_SLICE notes: the folder is
 * then read whole.
 */
#define SYNC_SLICE CALLUS_NOTES_SYNC_SLICE

static int read_slice(sync_run *r, const char *after, char (*slice)[CALLUS_NOTE_ID_LEN + 1],
		      size_t *nslice, int *whole)
{
	size_t cap = 0, n1 = 0, n2 = 0, nunwritten = 0;
	int sq;

	*whole = 0;
	*nslice = 0;
	/* one more than a slice: whether there are more notes than that */
	if ((sq = read_query(r, "SELECT " KNOWN_COLUMNS " FROM notes WHERE id > ?1"
				" ORDER BY id LIMIT ?2",
			     after, SYNC_SLICE + 1, &cap, &n1)) != SQLITE_OK)
		return sq;
	if (n1 <= SYNC_SLICE &&
	    (sq = read_query(r, "SELECT " KNOWN_COLUMNS " FROM notes WHERE id <= ?1"
				" ORDER BY id LIMIT ?2",
			     after, (int64_t)(SYNC_SLICE - n1 + 1), &cap, &n2)) != SQLITE_OK)
		return sq;
	if (n1 + n2 <= SYNC_SLICE) {
		*whole = 1;
		return SQLITE_OK;
	}
	r->nnotes = SYNC_SLICE; /* the one more dropped */
	for (size_t i = 0; i < SYNC_SLICE; i++)
		memcpy(slice[i], r->notes[i].id, sizeof(slice[i]));
	*nslice = SYNC_SLICE;
	/* named: the planner would rather read every active note (notes_rank) */
	if ((sq = read_query(r, "SELECT " KNOWN_COLUMNS " FROM notes INDEXED BY notes_unwritten"
				" WHERE file_size < 0 AND status = 'active' ORDER BY id",
			     NULL, -1, &cap, &nunwritten)) != SQLITE_OK)
		return sq;
	qsort(r->notes, r->nnotes, sizeof(*r->notes), by_id);
	/* an unwritten note of the slice was read twice: kept once */
	{
		size_t w = 0;

		for (size_t i = 0; i < r->nnotes; i++)
			if (!w || strcmp(r->notes[w - 1].id, r->notes[i].id) != 0)
				r->notes[w++] = r->notes[i];
		r->nnotes = w;
	}
	return SQLITE_OK;
}

/* The write transaction, opened at the first change. */
static int need_tx(sync_run *r, callus_error *err)
{
	int rc;

	if (r->in_tx)
		return 0;
	if ((rc = callus_store_exec(r->s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	r->began = r->in_tx = 1;
	return 0;
}

/* Whether a file hashed hex is note id's file as the store would write it
 * now: 1, 0, or < 0 with err set when it cannot be told. */
static int own_rendering(callus_store *s, const char *id, const char *hex, callus_error *err)
{
	callus_buf text = CALLUS_BUF_INIT;
	char mine[CALLUS_SHA256_HEX_LEN + 1];
	callus_note n;
	int rc;

	memset(&n, 0, sizeof(n));
	if ((rc = callus_notes_note_get(s, id, &n, err)) < 0)
		goto out;
	if ((rc = callus_note_md_render(&text, &n)) < 0 || (rc = hash_of(mine, text.ptr, text.len)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	rc = !strcmp(mine, hex);
out:
	callus_note_release(&n);
	callus_buf_release(&text);
	return rc;
}

/* A note file's name: ID.md. */
static int note_name(const char *name, char id[CALLUS_NOTE_ID_LEN + 1])
{
	size_t n = strlen(name);

	if (n != CALLUS_NOTE_ID_LEN + 3 || strcmp(name + CALLUS_NOTE_ID_LEN, ".md") != 0 ||
	    strspn(name, "0123456789abcdef") != CALLUS_NOTE_ID_LEN)
		return 0;
	memcpy(id, name, CALLUS_NOTE_ID_LEN);
	id[CALLUS_NOTE_ID_LEN] = '\0';
	return 1;
}

/* A known note's file changed: what a person may change is taken in.  A
 * changed body makes the note theirs (edited: no longer regenerated), and
 * a note a person kept is the project's, not one session's. */
static int take_edit(sync_run *r, const callus_note *n, const char *hash, int64_t mtime,
		     int64_t size, int64_t *kept_size)
{
	sqlite3_stmt *st = NULL;
	const char *title = NULL;
	int sq;

	/* the title as the row keeps it, against the row's own tool and
	 * example (an edit does not change them): "" while it is theirs */
	sq = sqlite3_prepare_v2(callus_store_db(r->s), "SELECT tool, example FROM notes WHERE id = ?1",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, n->id);
	/* title ends as n->title or a literal: alive past the statement */
	if ((sq = sqlite3_step(st)) == SQLITE_ROW)
		sq = callus_notes_title_kept(n->title, (const char *)sqlite3_column_text(st, 0),
					     (const char *)sqlite3_column_text(st, 1), &title) < 0
			     ? SQLITE_NOMEM
			     : SQLITE_OK;
	else if (sq == SQLITE_DONE)
		title = n->title, sq = SQLITE_OK;
	sqlite3_finalize(st);
	st = NULL;
	if (sq != SQLITE_OK)
		return sq;
	sq = sqlite3_prepare_v2(
		callus_store_db(r->s),
		"UPDATE notes SET edited = edited OR title <> ?2 OR steps <> ?3 OR code <> ?4"
		"  OR extra <> ?5,"
		" title = ?2, steps = ?3, code = ?4, extra = ?5, rule = ?6,"
		" status = ?7, layer = ?8,"
		" updated_at = ?9, file_hash = ?10, file_mtime = ?11,"
		/* counts or a layer the store does not have: the file is
		 * written again with the store's (they are never read back,
		 * and a clone would take in the file's) */
		" file_size = CASE WHEN ?7 = 'active' AND (applications <> ?13"
		"  OR successes <> ?14 OR ?15) THEN -1 ELSE ?12 END"
		" WHERE id = ?1",
		-1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, n->id);
	callus_sql_bind_text(st, 2, title);
	callus_sql_bind_text(st, 3, n->steps);
	callus_sql_bind_text(st, 4, n->code);
	callus_sql_bind_text(st, 5, n->extra);
	callus_sql_bind_text(st, 6, n->rule);
	callus_sql_bind_text(st, 7, n->retired ? "retired" : "active");
	/* a file is a project's note whatever layer it names: the team's and
	 * the org's come from their stores, approved (callus sync), never
	 * from a file a person or a clone can write */
	callus_sql_bind_text(st, 8, callus_layer_name(CALLUS_LAYER_PROJECT));
	callus_sql_bind_text(st, 9, r->now);
	callus_sql_bind_text(st, 10, hash);
	sqlite3_bind_int64(st, 11, mtime);
	sqlite3_bind_int64(st, 12, size);
	sqlite3_bind_int64(st, 13, n->applications);
	sqlite3_bind_int64(st, 14, n->successes);
	sqlite3_bind_int(st, 15, n->layer != CALLUS_LAYER_PROJECT);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(r->s));
	sqlite3_finalize(st);
	st = NULL;
	/* behind the store: written by this sync (sync_missing) */
	if (sq == SQLITE_OK &&
	    (sq = sqlite3_prepare_v2(callus_store_db(r->s),
				     "SELECT file_size FROM notes WHERE id = ?1", -1, &st,
				     NULL)) == SQLITE_OK) {
		callus_sql_bind_text(st, 1, n->id);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			*kept_size = sqlite3_column_int64(st, 0);
		sq = sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
		sqlite3_finalize(st);
	}
	return sq;
}

/*
 * A note this store never knew (a teammate's, pulled): its signature, so
 * that matching finds it, and one resolution made of its steps and code
 * with the metrics it arrived with, so that suggestions and their
 * outcomes count as for any fix.
 */
static int import_note(sync_run *r, callus_note *n, const char *hash, int64_t mtime,
		       int64_t size)
{
	const char *title;
	callus_buf desc = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	const char *sig = n->signature_id;
	const char *example = n->example && *n->example ? n->example : n->title;
	char *files = callus_sql_strlist_json(&n->files);
	char apps[32], succ[32], rs[32];
	int64_t rid;
	int sq;

	if (!files || !*sig) {
		sq = *sig || !files ? SQLITE_NOMEM : SQLITE_OK;
		goto out;
	}
	for (const char *p = n->steps; p && *p; p++)
		if (*p == '\n')
			callus_buf_puts(&desc, "; ");
		else
			callus_buf_putc(&desc, *p);
	if (callus_buf_puts(&desc, "") < 0) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	{
		char sketch[CALLUS_STORE_SKETCH_DIGITS];
		const char *v[] = { sig, n->error_type, example, n->tool, r->now, sketch };

		callus_store_noted_sketch(sketch, example);
		sq = callus_sql_exec_texts(callus_store_db(r->s),
					   CALLUS_STORE_INSERT_NOTED_SIGNATURE, v, 6);
		if (sq != SQLITE_OK)
			goto out;
	}
	/* the metrics it arrived with: at least one success, the fix worked.
	 * They are its author's, and kept as its base: what this workspace
	 * reports to a team is what it saw beyond them (team_sync.c). */
	snprintf(apps, sizeof(apps), "%lld", (long long)(n->applications > 0 ? n->applications : 1));
	snprintf(succ, sizeof(succ), "%lld",
		 (long long)(n->successes > 0 && n->successes <= n->applications ? n->successes : 1));
	{
		const char *v[] = { sig, desc.ptr ? desc.ptr : "", n->code, files, n->id, apps, succ,
				    r->now };

		sq = callus_sql_exec_texts(callus_store_db(r->s),
					   "INSERT INTO resolutions (signature_id, description,"
					   " code_changes, files, context, application_count,"
					   " success_count, created_at, last_success_at)"
					   " VALUES (?1, ?2, ?3, ?4, json_object('note', ?5, 'imported', 1, 'base',"
					   "  json_array(CAST(?6 AS INTEGER), min(CAST(?7 AS INTEGER),"
					   "  CAST(?6 AS INTEGER)))),"
					   " CAST(?6 AS INTEGER),"
					   " min(CAST(?7 AS INTEGER), CAST(?6 AS INTEGER)), ?8, ?8)",
					   v, 8);
		if (sq != SQLITE_OK)
			goto out;
	}
	rid = sqlite3_last_insert_rowid(callus_store_db(r->s));
	if (callus_notes_title_kept(n->title, n->tool, n->example, &title) < 0) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	sq = sqlite3_prepare_v2(callus_store_db(r->s),
				"INSERT INTO notes (id, signature_id, layer, status, tool, error_type,"
				" framework, title, example, rule, steps, code, extra, files,"
				" created_at, updated_at, file_hash, file_mtime, file_size)"
				" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14,"
				" ?15, ?16, ?17, ?18, ?19)",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		goto out;
	callus_sql_bind_text(st, 1, n->id);
	callus_sql_bind_text(st, 2, sig);
	/* it came through git: a project's note, whatever layer it names
	 * (the team's and the org's come from their stores, approved) */
	callus_sql_bind_text(st, 3, callus_layer_name(CALLUS_LAYER_PROJECT));
	callus_sql_bind_text(st, 4, n->retired ? "retired" : "active");
	callus_sql_bind_text(st, 5, n->tool);
	callus_sql_bind_text(st, 6, n->error_type);
	callus_sql_bind_text(st, 7, n->framework);
	callus_sql_bind_text(st, 8, title);
	callus_sql_bind_text(st, 9, n->example);
	callus_sql_bind_text(st, 10, n->rule);
	callus_sql_bind_text(st, 11, n->steps);
	callus_sql_bind_text(st, 12, n->code);
	callus_sql_bind_text(st, 13, n->extra);
	callus_sql_bind_text(st, 14, files);
	callus_sql_bind_text(st, 15, n->created_at && *n->created_at ? n->created_at : r->now);
	callus_sql_bind_text(st, 16, r->now);
	callus_sql_bind_text(st, 17, hash);
	sqlite3_bind_int64(st, 18, mtime);
	sqlite3_bind_int64(st, 19, size);
	if ((sq = sqlite3_step(st)) != SQLITE_DONE)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	sq = SQLITE_OK;
	snprintf(rs, sizeof(rs), "%lld", (long long)rid);
	/* its fix attached: the metrics it arrived with are its sums (a
	 * trigger, schema 37) */
	if (!n->signatures.count)
		sq = callus_notes_attach(r->s, n->id, rs, sig);
	for (size_t i = 0; i < n->signatures.count && sq == SQLITE_OK; i++)
		sq = callus_notes_attach(r->s, n->id, i ? NULL : rs, n->signatures.items[i]);
	if (sq == SQLITE_OK)
		r->imported++;
out:
	sqlite3_finalize(st);
	callus_buf_release(&desc);
	free(files);
	return sq;
}

/* Whether note id is in the store, asked under the write lock:
 * SQLITE_ROW, SQLITE_DONE, or an error. */
static int stored_since(sync_run *r, const char *id)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(r->s), "SELECT 1 FROM notes WHERE id = ?1", -1,
				    &st, NULL);

	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, id);
		sq = sqlite3_step(st);
	}
	sqlite3_finalize(st);
	return sq;
}

/* The folder could not be read: errno said. */
static int dir_error(sync_run *r, callus_error *err)
{
	return callus_error_set(err, CALLUS_EIO, "cannot read the notes folder '%s': %s", r->dir.ptr,
				strerror(errno));
}

/* The folder, when there is one, opened for its files to be looked at by
 * name.  One that is there but cannot be read is an error, not an empty
 * folder: every note missing from it would be retired. */
static int open_dir(sync_run *r, callus_error *err)
{
	if (r->dir.len &&
	    (r->dirfd = open(r->dir.ptr, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return dir_error(r, err);
	return 0;
}

/* One file of the folder, against what the store knows of it. */
static int sync_file(sync_run *r, const char *name, callus_error *err)
{
	callus_error fe = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	char id[CALLUS_NOTE_ID_LEN + 1], hex[CALLUS_SHA256_HEX_LEN + 1];
	known key, *k;
	callus_note n;
	struct stat st;
	int rc = 0, sq = SQLITE_OK;

	memset(&n, 0, sizeof(n));
	if (!note_name(name, id))
		return 0;
	/* through the folder's descriptor: the path is made only for a file
	 * that is read (a slice looks at SYNC_SLICE notes a recording, and
	 * most are as the store saw them) */
	if (fstatat(r->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		goto out;
	memset(&key, 0, sizeof(key));
	memcpy(key.id, id, sizeof(key.id));
	k = r->nnotes ? bsearch(&key, r->notes, r->nnotes, sizeof(*k), by_id) : NULL;
	if (k)
		k->seen = 1;
	if (k && k->size == (int64_t)st.st_size && k->mtime == mtime_ns(&st))
		goto out;
	/* the store is ahead of an active note's file (owed): written below,
	 * unless a person changed it since callus last wrote it (its mtime
	 * moved, and then its hash): their words are taken in first.  A
	 * retired note's file that is back (git checkout) is read: it wins */
	if (k && k->active && k->size < 0 && (!*k->hash || k->mtime == mtime_ns(&st)))
		goto out;
	if (callus_buf_printf(&path, "%s/%s", r->dir.ptr, name) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (callus_fs_read_file(&text, path.ptr, CALLUS_NOTE_FILE_MAX, &fe) < 0 ||
	    hash_of(hex, text.ptr ? text.ptr : "", text.len) < 0) {
		log_trouble(r->workspace, "note_file", id, &fe);
		/* a known note's file grown too large for callus to read: left
		 * alone and said once, as an unreadable note is, and no longer
		 * owed, so that no sync writes it over or tries it again until
		 * it changes (its hash one no file has: a file put back as
		 * callus wrote it is read again) */
		if (fe.code == CALLUS_ETOOBIG && k && need_tx(r, NULL) == 0 &&
		    record_file(r->s, id, UNREAD_HASH, mtime_ns(&st), (int64_t)st.st_size) ==
			    SQLITE_OK)
			k->size = (int64_t)st.st_size;
		goto out;
	}
	if ((rc = need_tx(r, err)) < 0)
		goto out;
	if (k && !strcmp(k->hash, hex)) {
		/* touched, not changed; an owed file stays owed, its mtime the
		 * one its write expects (callus_notes_write_file) */
		sq = record_file(r->s, id, hex, mtime_ns(&st),
				 k->active && k->size < 0 ? -1 : (int64_t)st.st_size);
		goto out;
	}
	/* an owed file that is what the store holds: callus's own write whose
	 * record was rolled back (a refused commit, a crash before it), not a
	 * person's edit, which would make the note theirs and the project's */
	if (k && k->active && k->size < 0) {
		int own = own_rendering(r->s, id, hex, err);

		if (own < 0) {
			rc = own;
			goto out;
		}
		if (own) {
			if ((sq = record_file(r->s, id, hex, mtime_ns(&st), (int64_t)st.st_size)) ==
			    SQLITE_OK)
				k->size = (int64_t)st.st_size;
			goto out;
		}
	}
	if (callus_note_md_parse(&n, text.ptr ? text.ptr : "", text.len, &fe) < 0 ||
	    strcmp(n.id, id) != 0) {
		/* not a note callus can read: left alone, and said once */
		if (!fe.code)
			callus_error_set(&fe, CALLUS_EINVAL, "its id is not its file's name");
		log_trouble(r->workspace, "note_unreadable", id, &fe);
		sq = k ? record_file(r->s, id, hex, mtime_ns(&st), (int64_t)st.st_size) : SQLITE_OK;
		goto out;
	}
	if (redact_note(r, &n) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if (k) {
		sq = take_edit(r, &n, hex, mtime_ns(&st), (int64_t)st.st_size, &k->size);
	} else if ((sq = stored_since(r, id)) == SQLITE_ROW) {
		/* taken in by another process since the notes were read (two
		 * recordings after a pull brought the file): there already,
		 * where inserting it again failed the whole sync */
		sq = SQLITE_OK;
		goto out;
	} else if (sq == SQLITE_DONE) {
		sq = import_note(r, &n, hex, mtime_ns(&st), (int64_t)st.st_size);
	}
	if (sq == SQLITE_OK)
		r->changed++;
out:
	if (sq != SQLITE_OK)
		rc = callus_store_db_error(r->s, err, sq, "cannot take a note file into");
	callus_note_release(&n);
	callus_error_release(&fe);
	callus_buf_release(&path);
	callus_buf_release(&text);
	return rc;
}

/* Known notes whose file is missing: a person deleted it (retired), or
 * it was never written (written now); and files the store is ahead of. */
static int sync_missing(sync_run *r, callus_error *err)
{
	int rc = 0;

	for (size_t i = 0; i < r->nnotes && rc == 0; i++) {
		known *k = &r->notes[i];

		if (!k->active || (k->seen && k->size >= 0))
			continue;
		/* a slice saw only its files: a deletion changes the folder,
		 * which makes the next sync a whole one */
		if (r->partial && k->size >= 0)
			continue;
		/* an owed file the slice did not look at: looked at before it
		 * is written over */
		if (r->partial && !k->seen && *k->hash) {
			char name[CALLUS_NOTE_ID_LEN + 4];

			snprintf(name, sizeof(name), "%s.md", k->id);
			if ((rc = sync_file(r, name, err)) < 0)
				break;
			if (k->seen && k->size >= 0)
				continue;
		}
		if ((rc = need_tx(r, err)) < 0)
			break;
		/* a file callus wrote that is gone: a person removed it, also
		 * while the store was ahead of it */
		if (!k->seen && *k->hash) {
			int sq = callus_notes_mark_retired(r->s, k->id, r->now);

			if (sq != SQLITE_OK)
				rc = callus_store_db_error(r->s, err, sq, "cannot retire a note in");
			r->changed++;
			continue;
		}
		rc = callus_notes_write_file(r->s, r->workspace, k->id, err);
	}
	return rc;
}

/*
 * The bounded sync of a recording: .callus/notes.cursor keeps the
 * folder's mtime when it was last read whole, and the id the last slice
 * stopped at.  While the folder's mtime is the same, no file was added,
 * removed or renamed there (git, callus and most editors replace a file
 * by renaming): SYNC_SLICE known notes after the cursor are checked
 * instead of all, so that an edit in place is taken in within
 * notes / SYNC_SLICE recordings (at once up to SYNC_SLICE notes, and by
 * every other sync: `callus notes`, a session's start; a note a reply
 * shows is taken in before it is shown: record.c).  A slice of 256 was a
 * quarter of a millisecond more of every failing hook (docs/scale-history.md, the
 * twentieth pass).  A stat of each
 * note at each recording was the cost that grew with the notes, and then
 * the store's list of every note: the slice reads its notes by id
 * (read_slice).  callus's own writes move the cursor with the folder
 * (cursor_follow).
 */
#define SYNC_CURSOR "notes.cursor"

static int read_cursor(const char *workspace, int64_t *mtime, char id[CALLUS_NOTE_ID_LEN + 1])
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	long long m = 0;
	int ok = 0;

	*id = '\0';
	if (callus_buf_printf(&path, "%s/.callus/" SYNC_CURSOR, workspace) == 0 &&
	    callus_fs_read_file(&text, path.ptr, 256, NULL) == 0 && text.len &&
	    sscanf(text.ptr, "%lld %12[0-9a-f]", &m, id) >= 1) {
		*mtime = (int64_t)m;
		ok = 1;
	}
	callus_buf_release(&path);
	callus_buf_release(&text);
	return ok;
}

static void write_cursor(const char *workspace, int64_t mtime, const char *id)
{
	callus_buf path = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;

	/* a hint, written in place with no fsync: a torn or lost one only
	 * makes the next sync a whole one.  Over what is there, not after a
	 * truncation: every recording writes it, and emptying a file and
	 * filling it again frees its block and takes a new one, which ext4
	 * then writes back when it is closed.  The mtime's width is fixed so
	 * that the record is (a longer one left by an older callus is cut). */
	if (callus_buf_printf(&path, "%s/.callus/" SYNC_CURSOR, workspace) == 0 &&
	    callus_buf_printf(&text, "%020lld %-12s\n", (long long)mtime, id) == 0) {
		int fd = open(path.ptr, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
		struct stat st;

		if (fd >= 0) {
			if (pwrite(fd, text.ptr, text.len, 0) != (ssize_t)text.len ||
			    (fstat(fd, &st) == 0 && st.st_size > (off_t)text.len &&
			     ftruncate(fd, (off_t)text.len) < 0))
				unlink(path.ptr);
			close(fd);
		}
	}
	callus_buf_release(&path);
	callus_buf_release(&text);
}

/* The notes folder's mtime; -1 when it has none. */
static int64_t folder_mtime(const char *workspace)
{
	callus_buf dir = CALLUS_BUF_INIT;
	struct stat st;
	int64_t m = -1;

	if (callus_buf_printf(&dir, "%s/.callus/notes", workspace) == 0 && stat(dir.ptr, &st) == 0)
		m = mtime_ns(&st);
	callus_buf_release(&dir);
	return m;
}

/*
 * callus wrote or removed a note's file, which moves the folder's mtime:
 * when the cursor had seen the folder as it was just before, it sees it
 * now, so that callus's own writes (a fix's note) do not make the next
 * recording read the whole folder.  What someone else added or removed
 * in the instant between the two looks is seen by the next whole sync
 * (`callus notes`, a session's start, the next change of the folder), as
 * for a change within the clock tick of a whole sync.
 */
static void cursor_follow(const char *workspace, int64_t before)
{
	char id[CALLUS_NOTE_ID_LEN + 1];
	int64_t seen = -1, now;

	if (before < 0 || !read_cursor(workspace, &seen, id) || seen != before)
		return;
	if ((now = folder_mtime(workspace)) >= 0 && now != before)
		write_cursor(workspace, now, id);
}

/* The slice's notes looked at, in its order; *last gets the id it ended
 * at. */
static int sync_slice(sync_run *r, char (*slice)[CALLUS_NOTE_ID_LEN + 1], size_t n,
		      char last[CALLUS_NOTE_ID_LEN + 1], callus_error *err)
{
	char name[CALLUS_NOTE_ID_LEN + 4];
	size_t i;
	int rc = 0;

	/* slice[] holds ids read back from the store: CALLUS_NOTE_ID_LEN hex
	 * digits, which sync_file checks again */
	memcpy(name + CALLUS_NOTE_ID_LEN, ".md", 4);
	for (i = 0; i < n && rc == 0; i++) {
		memcpy(name, slice[i], CALLUS_NOTE_ID_LEN);
		rc = sync_file(r, name, err);
	}
	if (i)
		memcpy(last, slice[i - 1], CALLUS_NOTE_ID_LEN + 1);
	return rc;
}

/* What a sync looks at: the whole folder; a recording's slice while the
 * folder is as the cursor saw it; nothing while it is, the whole folder
 * once it moved (learning, which then syncs the notes it changes one by
 * one: callus_notes_sync_one). */
enum { SYNC_WHOLE, SYNC_BOUNDED, SYNC_MOVED };

static int sync_notes(callus_store *s, const char *workspace, size_t *changed, int mode,
		      callus_error *err)
{
	sync_run r;
	DIR *d = NULL;
	struct dirent *e;
	struct stat dst;
	int64_t dir_mtime = -1, seen_mtime = -1;
	char cursor[CALLUS_NOTE_ID_LEN + 1] = "", last[CALLUS_NOTE_ID_LEN + 1] = "";
	char slice[SYNC_SLICE][CALLUS_NOTE_ID_LEN + 1];
	size_t nslice = 0;
	int rc = 0, sq, whole = 0, in_caller_tx;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.workspace = workspace;
	r.dirfd = -1;
	r.in_tx = in_caller_tx = !sqlite3_get_autocommit(callus_store_db(s));
	callus_buf_init(&r.dir, 0);
	if (changed)
		*changed = 0;
	if (!(r.now = callus_now_iso8601()) || notes_dir(&r.dir, workspace, 0) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* the folder's mtime before it is read: a change while it is read
	 * makes the next sync a whole one */
	if (r.dir.len && stat(r.dir.ptr, &dst) == 0)
		dir_mtime = mtime_ns(&dst);
	if (mode != SYNC_WHOLE && dir_mtime >= 0 && read_cursor(workspace, &seen_mtime, cursor) &&
	    seen_mtime == dir_mtime) {
		if (mode == SYNC_MOVED)
			goto out;
		if ((sq = read_slice(&r, cursor, slice, &nslice, &whole)) != SQLITE_OK) {
			rc = callus_store_db_error(s, err, sq, "cannot read notes in");
			goto out;
		}
		r.partial = !whole;
		if (whole) {
			free(r.notes);
			r.notes = NULL;
			r.nnotes = 0;
		}
	}
	if (!r.partial && (sq = read_known(&r)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read notes in");
		goto out;
	}
	if (!r.nnotes && !r.dir.len)
		goto out; /* no notes, no folder: the common case of a new store */
	if ((rc = open_dir(&r, err)) < 0)
		goto out;
	if (r.partial) {
		rc = sync_slice(&r, slice, nslice, last, err);
	} else if (r.dirfd >= 0) {
		if (!(d = fdopendir(r.dirfd))) {
			rc = dir_error(&r, err);
			goto out;
		}
		while (rc == 0) {
			errno = 0;
			if (!(e = readdir(d))) {
				if (errno)
					rc = dir_error(&r, err);
				break;
			}
			rc = sync_file(&r, e->d_name, err);
		}
	}
	if (rc == 0)
		rc = sync_missing(&r, err);
	if (r.began) {
		if (rc < 0)
			sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		else
			rc = callus_store_exec(s, "COMMIT", err);
	}
	/* imported signatures get their vectors once the transaction is over;
	 * inside the caller's, at the next recording */
	if (rc == 0 && r.imported && r.began)
		callus_match_index(s, workspace, NULL, NULL);
	if (changed)
		*changed = r.changed;
	/* not inside the caller's transaction, which may yet roll back what
	 * the cursor would say was seen */
	if (rc == 0 && mode != SYNC_WHOLE && !in_caller_tx && dir_mtime >= 0 &&
	    (r.partial || dir_mtime != seen_mtime))
		write_cursor(workspace, dir_mtime, last);
out:
	if (d)
		closedir(d); /* and r.dirfd with it */
	else if (r.dirfd >= 0)
		close(r.dirfd);
	callus_buf_release(&r.dir);
	callus_redactor_free(r.red);
	free(r.notes);
	free(r.now);
	return rc;
}

int callus_notes_sync(callus_store *s, const char *workspace, size_t *changed,
		      callus_error *err)
{
	return sync_notes(s, workspace, changed, SYNC_WHOLE, err);
}

int callus_notes_sync_bounded(callus_store *s, const char *workspace, size_t *changed,
			      callus_error *err)
{
	return sync_notes(s, workspace, changed, SYNC_BOUNDED, err);
}

int callus_notes_sync_moved(callus_store *s, const char *workspace, size_t *changed,
			    callus_error *err)
{
	return sync_notes(s, workspace, changed, SYNC_MOVED, err);
}

int callus_notes_sync_shown(callus_store *s, const char *workspace, const callus_note *ns,
			    size_t n, size_t *changed, callus_error *err)
{
	size_t one, sum = 0;
	int rc = 0, r;

	for (size_t i = 0; i < n; i++) {
		if (!*ns[i].id)
			continue;
		if ((r = callus_notes_sync_one(s, workspace, ns[i].id, &one, rc ? NULL : err)) < 0) {
			if (!rc)
				rc = r;
			continue;
		}
		sum += one;
	}
	if (changed)
		*changed = sum;
	return rc;
}

int callus_notes_sync_one(callus_store *s, const char *workspace, const char *id,
			  size_t *changed, callus_error *err)
{
	sync_run r;
	size_t cap = 0, got = 0;
	char name[CALLUS_NOTE_ID_LEN + 4];
	int rc = 0, sq;

	memset(&r, 0, sizeof(r));
	r.s = s;
	r.workspace = workspace;
	r.dirfd = -1;
	r.in_tx = !sqlite3_get_autocommit(callus_store_db(s));
	callus_buf_init(&r.dir, 0);
	if (changed)
		*changed = 0;
	if (!(r.now = callus_now_iso8601()) || notes_dir(&r.dir, workspace, 0) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = read_query(&r, "SELECT " KNOWN_COLUMNS " FROM notes WHERE id = ?1", id, -1, &cap,
			     &got)) != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read notes in");
		goto out;
	}
	/* a file removed or added moves the folder: a whole sync's */
	if (!got || !r.dir.len || (rc = open_dir(&r, err)) < 0)
		goto out;
	snprintf(name, sizeof(name), "%.12s.md", id);
	rc = sync_file(&r, name, err);
	if (r.began) {
		if (rc < 0)
			sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		else
			rc = callus_store_exec(s, "COMMIT", err);
	}
	if (changed)
		*changed = r.changed;
out:
	if (r.dirfd >= 0)
		close(r.dirfd);
	callus_buf_release(&r.dir);
	callus_redactor_free(r.red);
	free(r.notes);
	free(r.now);
	return rc;
}
