/*
 * test_notes_sync.c - .callus/notes/ against the store (notes_sync.c) with
 * more notes than a recording's slice: the bounded sync of a recording
 * reads the store's slice, not every note, and still takes in a note file
 * added, changed in place, and removed, writes a note whose file the store
 * is ahead of wherever it is, and changes nothing when nothing changed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/fsutil.h"
#include "callus/notemd.h"
#include "callus/notes.h"
#include "callus/store.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "notes_internal.h"
#include "schema_helpers.h"
#include "store_internal.h"

/* more than the slice a recording looks at (CALLUS_NOTES_SYNC_SLICE) */
#define NOTES 300

typedef struct fixture {
	char dir[64];
	char notes[96];
	char path[96];
	callus_store *s;
} fixture;

/* Note i: its id and signature made of i, its title saying tag, its rule
 * rule, and file among the files its fixes changed (NULL: none). */
static void note_text_filed(callus_buf *out, unsigned i, const char *tag, const char *rule,
			    const char *file)
{
	callus_note n;
	char sig[65];

	memset(&n, 0, sizeof(n));
	snprintf(n.id, sizeof(n.id), "%012x", i * 2654435761u % 0xffffffffu);
	snprintf(sig, sizeof(sig), "%s%052x", n.id, i);
	n.layer = CALLUS_LAYER_PROJECT;
	n.signature_id = sig;
	n.tool = (char *)"gcc";
	n.error_type = (char *)"error";
	n.framework = (char *)"";
	n.title = (char *)tag;
	n.example = (char *)"implicit declaration of function frob";
	n.rule = (char *)rule;
	n.steps = (char *)"Declared frob() in frob.h";
	n.code = (char *)"";
	n.extra = (char *)"";
	n.session = (char *)"";
	n.created_at = (char *)"2026-11-25T09:00:00.000Z";
	n.updated_at = (char *)"2026-11-25T09:00:00.000Z";
	n.applications = 1;
	n.successes = 1;
	assert_int_equal(callus_strlist_add(&n.signatures, sig, strlen(sig)), 0);
	if (file)
		assert_int_equal(callus_strlist_add(&n.files, file, strlen(file)), 0);
	callus_buf_clear(out);
	assert_int_equal(callus_note_md_render(out, &n), 0);
	callus_strlist_release(&n.signatures);
	callus_strlist_release(&n.files);
}

static void note_id(char id[CALLUS_NOTE_ID_LEN + 1], unsigned i)
{
	snprintf(id, CALLUS_NOTE_ID_LEN + 1, "%012x", i * 2654435761u % 0xffffffffu);
}

static void write_note_filed(fixture *f, unsigned i, const char *tag, const char *rule,
			     const char *file)
{
	callus_buf text = CALLUS_BUF_INIT;
	char id[CALLUS_NOTE_ID_LEN + 1], path[160];
	FILE *fp;

	note_text_filed(&text, i, tag, rule, file);
	note_id(id, i);
	snprintf(path, sizeof(path), "%s/%s.md", f->notes, id);
	/* in place, as an editor that does not rename */
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fwrite(text.ptr, 1, text.len, fp), text.len);
	assert_int_equal(fclose(fp), 0);
	callus_buf_release(&text);
}

static void write_note_ruled(fixture *f, unsigned i, const char *tag, const char *rule)
{
	write_note_filed(f, i, tag, rule, NULL);
}

static void write_note(fixture *f, unsigned i, const char *tag)
{
	write_note_ruled(f, i, tag, "");
}

/* The folder's mtime moved on: file times come from a coarse clock, so a
 * file added within the tick of the last whole sync would leave it the
 * same (as it may for a person, who is then seen by the next whole sync). */
static void folder_changed(fixture *f)
{
	struct stat st;
	struct timespec t[2];

	assert_int_equal(stat(f->notes, &st), 0);
	t[0] = st.st_atim;
	t[1] = st.st_mtim;
	t[1].tv_sec += 1;
	assert_int_equal(utimensat(AT_FDCWD, f->notes, t, 0), 0);
}

static int64_t one_int(fixture *f, const char *q);

static void sql(fixture *f, const char *q)
{
	char *msg = NULL;

	(void)f;
	if (sqlite3_exec(callus_store_db(f->s), q, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", q, msg);
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	callus_error err = CALLUS_ERROR_INIT;
	size_t changed = 0;

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-notesync-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/.callus", f->dir);
	snprintf(f->notes, sizeof(f->notes), "%s/.callus/notes", f->dir);
	if (mkdir(f->path, 0700) < 0 || mkdir(f->notes, 0777) < 0)
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/.callus/callus.db", f->dir);
	if (callus_store_open(&f->s, f->path, 5000, NULL) < 0)
		return -1;
	for (unsigned i = 0; i < NOTES; i++)
		write_note(f, i, "as pulled");
	/* a teammate's notes, pulled with git: imported by a whole sync */
	if (callus_notes_sync(f->s, f->dir, &changed, &err) < 0 || changed != NOTES) {
		fprintf(stderr, "setup: %zu imported: %s\n", changed, callus_error_message(&err));
		callus_error_release(&err);
		return -1;
	}
	/* the first bounded sync reads the folder whole and leaves its cursor */
	if (callus_notes_sync_bounded(f->s, f->dir, &changed, &err) < 0 || changed != 0) {
		fprintf(stderr, "setup: %zu changed: %s\n", changed, callus_error_message(&err));
		callus_error_release(&err);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	callus_store_close(f->s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static void get(fixture *f, unsigned i, callus_note *n)
{
	char id[CALLUS_NOTE_ID_LEN + 1];

	note_id(id, i);
	memset(n, 0, sizeof(*n));
	assert_int_equal(callus_notes_get(f->s, id, n, NULL), 0);
}

/* Bounded syncs until every note was in a slice: what they took in. */
static size_t sync_round(fixture *f)
{
	size_t total = 0, changed;

	for (int i = 0; i < (NOTES + CALLUS_NOTES_SYNC_SLICE - 1) / CALLUS_NOTES_SYNC_SLICE; i++) {
		changed = 99;
		assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, &changed, NULL), 0);
		total += changed;
	}
	return total;
}

static void unchanged_changes_nothing(void **state)
{
	fixture *f = *state;
	sqlite3_int64 before = sqlite3_total_changes64(callus_store_db(f->s));

	assert_int_equal(sync_round(f), 0);
	assert_int_equal(sync_round(f), 0);
	/* nothing written to the store either */
	assert_true(sqlite3_total_changes64(callus_store_db(f->s)) == before);
}

static void added_file_is_imported(void **state)
{
	fixture *f = *state;
	size_t changed = 0;
	callus_note n;

	write_note(f, NOTES, "added by a teammate");
	folder_changed(f);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(changed, 1);
	get(f, NOTES, &n);
	assert_string_equal(n.title, "added by a teammate");
	assert_false(n.retired);
	/* its signature came with it, sketched as a recording sketches */
	assert_int_equal(one_int(f, "SELECT count(*) FROM signatures s JOIN notes n"
				    " ON n.signature_id = s.id WHERE n.title = 'added by a teammate'"
				    " AND s.sketch <> 0"),
			 1);
	assert_int_equal(test_wrong_sketches(callus_store_db(f->s)), 0);
	callus_note_release(&n);
	assert_int_equal(sync_round(f), 0);
}

/* Two processes taking in the same new note file (two recordings after a
 * pull brought it): the second read the notes before the first took it
 * in, and inserting it again failed its whole sync ("UNIQUE constraint
 * failed: notes.id").  Here another process holds the write lock while
 * this one reads, takes the note in and commits: this one's sync then
 * finds it there, and changes nothing. */
static void added_by_another_meanwhile(void **state)
{
	fixture *f = *state;
	callus_error err = CALLUS_ERROR_INIT;
	size_t changed = 99;
	int go[2], status = 0, rc;
	char c;
	pid_t pid;

	write_note(f, NOTES, "added by a teammate");
	folder_changed(f);
	assert_int_equal(pipe(go), 0);
	/* no connection crosses the fork: SQLite's locks are a process's */
	callus_store_close(f->s);
	f->s = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		callus_store *s2 = NULL;
		size_t n = 0;
		int ok;

		close(go[0]);
		ok = callus_store_open(&s2, f->path, 5000, NULL) == 0 &&
		     callus_store_exec(s2, "BEGIN IMMEDIATE", NULL) == 0 && write(go[1], "x", 1) == 1;
		/* long enough for the parent to have read the notes, and
		 * waited at its write lock */
		usleep(500000);
		ok = ok && callus_notes_sync(s2, f->dir, &n, NULL) == 0 && n == 1 &&
		     callus_store_exec(s2, "COMMIT", NULL) == 0;
		callus_store_close(s2);
		_exit(ok ? 0 : 1);
	}
	close(go[1]);
	rc = read(go[0], &c, 1) == 1 && callus_store_open(&f->s, f->path, 5000, NULL) == 0
		     ? callus_notes_sync(f->s, f->dir, &changed, &err)
		     : -1;
	close(go[0]);
	/* the child reaped whatever happened here */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (rc < 0)
		fail_msg("%s", callus_error_message(&err));
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(changed, 0);
	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE title = 'added by a teammate'"),
			 1);
	callus_error_release(&err);
}

/* Schema 23 keeps the first 32 hex digits of a file's hash: a store that
 * kept all 64 (schema 22) is migrated so, and a sync that compares the
 * files (their mtimes no longer the recorded ones) finds each unchanged. */
static void hashes_of_schema_22_still_match(void **state)
{
	fixture *f = *state;
	size_t changed = 99;

	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE length(file_hash) = 32"),
			 NOTES);
	sql(f, "UPDATE notes SET file_hash = file_hash || '0123456789abcdef0123456789abcdef',"
	       " file_mtime = 1;" TEST_AS_BEFORE_27 "PRAGMA user_version = 22");
	callus_store_close(f->s);
	f->s = NULL;
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE length(file_hash) = 32"),
			 NOTES);
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(changed, 0);
	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE edited"), 0);
	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE file_mtime = 1"), 0);
}

/*
 * Schema 24: a note's row keeps no title while it is the one its tool and
 * example make; every reader gets it made again.  An edit that keeps it
 * keeps none (and changes no title: not the person's words), one that
 * changes it keeps the person's; the migration empties the first kind.
 */
static void a_notes_own_title_is_kept_once(void **state)
{
	static const char own[] = "gcc: implicit declaration of function frob";
	fixture *f = *state;
	char q[1024], id[CALLUS_NOTE_ID_LEN + 1], *up;
	callus_note n;

	note_id(id, 5);
	snprintf(q, sizeof(q), "SELECT length(title) FROM notes WHERE id = '%s'", id);
	write_note(f, 5, own);
	assert_int_equal(sync_round(f), 1);
	assert_int_equal(one_int(f, q), 0);
	get(f, 5, &n);
	assert_string_equal(n.title, own);
	assert_true(n.edited); /* "as pulled" became its own: a person's change */
	callus_note_release(&n);
	/* the rule changed, the title kept: not edited by its title */
	sql(f, "UPDATE notes SET edited = 0");
	write_note_ruled(f, 5, own, "Declare before use.");
	assert_int_equal(sync_round(f), 1);
	get(f, 5, &n);
	assert_false(n.edited);
	assert_string_equal(n.rule, "Declare before use.");
	callus_note_release(&n);
	/* a title of the person's own is kept as written */
	write_note(f, 5, "frob needs its header");
	assert_int_equal(sync_round(f), 1);
	assert_int_equal(one_int(f, q), (int64_t)strlen("frob needs its header"));
	get(f, 5, &n);
	assert_string_equal(n.title, "frob needs its header");
	assert_true(n.edited);
	callus_note_release(&n);

	/* schema 23 kept every title: the migration empties the own ones */
	up = sqlite3_mprintf("UPDATE notes SET title = %Q;" TEST_AS_BEFORE_27
			     "PRAGMA user_version = 23",
			     own);
	assert_non_null(up);
	sql(f, up);
	sqlite3_free(up);
	callus_store_close(f->s);
	f->s = NULL;
	assert_int_equal(callus_store_open(&f->s, f->path, 5000, NULL), 0);
	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE title = ''"), NOTES);
	get(f, 7, &n);
	assert_string_equal(n.title, own);
	callus_note_release(&n);
}

static void edit_in_place_is_taken_in(void **state)
{
	fixture *f = *state;
	callus_note n;

	for (unsigned i = 0; i < NOTES; i += 97) {
		write_note(f, i, "edited in place");
		/* the folder did not change: only the slices see it, within a round */
		assert_int_equal(sync_round(f), 1);
		get(f, i, &n);
		assert_string_equal(n.title, "edited in place");
		assert_true(n.edited);
		callus_note_release(&n);
	}
	assert_int_equal(sync_round(f), 0);
}

/* A note file is a person's words: what the store takes from one, added or
 * edited, is redacted (the file itself is left as it was written). */
static void secrets_in_a_file_are_redacted(void **state)
{
	fixture *f = *state;
	size_t changed = 0;
	callus_note n;

	write_note_filed(f, NOTES, "added with ghp_000000000000000000000000000000000007",
			 "export GITHUB_TOKEN=ghp_000000000000000000000000000000000007 first",
			 "keys/ghp_000000000000000000000000000000000007/show.c");
	folder_changed(f);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(changed, 1);
	get(f, NOTES, &n);
	assert_string_equal(n.title, "added with [REDACTED:github-token]");
	assert_null(strstr(n.rule, "ghp_"));
	assert_non_null(strstr(n.rule, "REDACTED"));
	assert_int_equal(n.files.count, 1);
	assert_string_equal(n.files.items[0], "keys/[REDACTED:github-token]/show.c");
	callus_note_release(&n);
	/* edited in place */
	write_note_ruled(f, 0, "edited with AKIAQWERTYUIOPASDFGH", "");
	assert_int_equal(sync_round(f), 1);
	get(f, 0, &n);
	assert_string_equal(n.title, "edited with [REDACTED:aws-key]");
	callus_note_release(&n);
	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE title LIKE '%ghp_%'"
				    " OR rule LIKE '%ghp_%' OR title LIKE '%AKIA%' OR files LIKE '%ghp_%'"),
			 0);
	assert_int_equal(one_int(f, "SELECT count(*) FROM resolutions WHERE files LIKE '%ghp_%'"),
			 0);
	/* the redacted rows are as the files say now: nothing taken again */
	assert_int_equal(sync_round(f), 0);
}

static void removed_file_retires(void **state)
{
	fixture *f = *state;
	char id[CALLUS_NOTE_ID_LEN + 1], path[160];
	size_t changed = 0;
	callus_note n;

	note_id(id, 123);
	snprintf(path, sizeof(path), "%s/%s.md", f->notes, id);
	assert_int_equal(unlink(path), 0);
	folder_changed(f);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(changed, 1);
	get(f, 123, &n);
	assert_true(n.retired);
	callus_note_release(&n);
	assert_int_equal(sync_round(f), 0);
}

/* Learning's syncs: nothing while the folder is as the cursor saw it (an
 * edit in place waits for its note's own sync, or a slice), the whole
 * folder once it moved; one note's file taken in on its own. */
static void learning_syncs(void **state)
{
	fixture *f = *state;
	char id[CALLUS_NOTE_ID_LEN + 1];
	size_t changed = 99;
	callus_note n;

	write_note(f, 42, "edited before a fix merges into it");
	assert_int_equal(callus_notes_sync_moved(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(changed, 0);
	note_id(id, 42);
	assert_int_equal(callus_notes_sync_one(f->s, f->dir, id, &changed, NULL), 0);
	assert_int_equal(changed, 1);
	get(f, 42, &n);
	assert_string_equal(n.title, "edited before a fix merges into it");
	callus_note_release(&n);
	assert_int_equal(callus_notes_sync_one(f->s, f->dir, id, &changed, NULL), 0);
	assert_int_equal(changed, 0);
	/* a file added: the folder moved */
	write_note(f, NOTES + 1, "pulled while learning");
	folder_changed(f);
	assert_int_equal(callus_notes_sync_moved(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(changed, 1);
	get(f, NOTES + 1, &n);
	assert_string_equal(n.title, "pulled while learning");
	callus_note_release(&n);
}

/* The cursor's fields: the folder's mtime it saw, and the id the last
 * slice ended at ("" after a whole sync). */
static int cursor_fields(fixture *f, long long *m, char id[CALLUS_NOTE_ID_LEN + 1])
{
	callus_buf text = CALLUS_BUF_INIT;
	char path[160];
	int got;

	*id = '\0';
	snprintf(path, sizeof(path), "%s/.callus/notes.cursor", f->dir);
	assert_int_equal(callus_fs_read_file(&text, path, 256, NULL), 0);
	got = sscanf(text.ptr, "%lld %12[0-9a-f]", m, id);
	callus_buf_release(&text);
	return got;
}

static long long folder_mtime(fixture *f)
{
	struct stat st;

	assert_int_equal(stat(f->notes, &st), 0);
	return (long long)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
}

/* callus writing a note's file (a fix's note) moves the folder: the
 * cursor follows, so the next recording looks at a slice, not the whole
 * folder; a change by someone else still makes it read the whole folder. */
static void own_writes_keep_the_cursor(void **state)
{
	fixture *f = *state;
	char id[CALLUS_NOTE_ID_LEN + 1], first[CALLUS_NOTE_ID_LEN + 1], other[160];
	long long m;
	callus_note n;

	note_id(first, 7);
	folder_changed(f); /* as a change by someone else */
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	/* read whole: the cursor's id is empty */
	assert_int_equal(cursor_fields(f, &m, id), 1);
	assert_true(m == folder_mtime(f));
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(cursor_fields(f, &m, id), 2);
	/* callus writes a note's file: the folder moved, the cursor with it */
	assert_int_equal(callus_notes_write_file(f->s, f->dir, first, NULL), 0);
	assert_int_equal(cursor_fields(f, &m, id), 2);
	assert_true(m == folder_mtime(f));
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(cursor_fields(f, &m, id), 2); /* a slice, not the whole */
	/* and removes one */
	folder_changed(f);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	sql(f, "UPDATE notes SET status = 'retired' WHERE id = (SELECT id FROM notes"
	       " ORDER BY id LIMIT 1 OFFSET 7)");
	{
		sqlite3_stmt *st = NULL;

		assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
						    "SELECT id FROM notes ORDER BY id LIMIT 1 OFFSET 7",
						    -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		snprintf(first, sizeof(first), "%s", (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	assert_int_equal(callus_notes_remove_file(f->dir, first, NULL), 0);
	assert_int_equal(cursor_fields(f, &m, id), 2);
	assert_true(m == folder_mtime(f));
	/* someone else's removal: read whole, the note retired */
	note_id(id, 8);
	snprintf(other, sizeof(other), "%s/%s.md", f->notes, id);
	assert_int_equal(unlink(other), 0);
	folder_changed(f);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(cursor_fields(f, &m, id), 1);
	get(f, 8, &n);
	assert_true(n.retired);
	callus_note_release(&n);
}

/* Every recording writes the cursor, one record of one length, so that it
 * can be written over itself (not emptied first: that the write is in
 * place shows in no file attribute, only in the kernel's work); a longer
 * one an older callus left is cut to it, and read back. */
static void cursor_is_written_in_place(void **state)
{
	fixture *f = *state;
	char path[160], id[CALLUS_NOTE_ID_LEN + 1];
	struct stat a, b;
	long long m;
	int fd;

	snprintf(path, sizeof(path), "%s/.callus/notes.cursor", f->dir);
	folder_changed(f);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(a.st_size, 20 + 1 + CALLUS_NOTE_ID_LEN + 1);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
		assert_int_equal(cursor_fields(f, &m, id), 2);
		assert_true(m == folder_mtime(f));
		assert_int_equal(stat(path, &b), 0);
		assert_true(b.st_ino == a.st_ino);
		assert_int_equal(b.st_size, a.st_size);
	}
	/* an older, longer record with something after it */
	assert_true((fd = open(path, O_WRONLY | O_TRUNC)) >= 0);
	assert_true(dprintf(fd, "%lld %s\n%0100d\n", m, id, 0) > 0);
	close(fd);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(cursor_fields(f, &m, id), 2);
	assert_int_equal(stat(path, &b), 0);
	assert_int_equal(b.st_size, a.st_size);
}

/* The id the last slice ended at (.callus/notes.cursor): the note the
 * next slice reaches last, outside it. */
static void cursor_id(fixture *f, char id[CALLUS_NOTE_ID_LEN + 1])
{
	callus_buf text = CALLUS_BUF_INIT;
	char path[160];
	long long m;
	int got;

	snprintf(path, sizeof(path), "%s/.callus/notes.cursor", f->dir);
	assert_int_equal(callus_fs_read_file(&text, path, 256, NULL), 0);
	got = sscanf(text.ptr, "%lld %12[0-9a-f]", &m, id);
	callus_buf_release(&text);
	if (got == 2)
		return;
	/* a whole sync was the last: the next one is a slice */
	assert_int_equal(got, 1);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, NULL, NULL), 0);
	cursor_id(f, id);
}

/* The store ahead of a note's file (its metrics moved): written by the
 * next bounded sync, wherever the note is, in the next slice or not. */
static void store_ahead_is_written(void **state)
{
	fixture *f = *state;
	callus_buf text = CALLUS_BUF_INIT;
	char id[CALLUS_NOTE_ID_LEN + 1], path[160], q[256];
	size_t changed = 0;

	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, &changed, NULL), 0);
		if (i % 2)
			note_id(id, i * 77);
		else
			cursor_id(f, id);
		snprintf(q, sizeof(q),
			 "UPDATE notes SET title = 'the store''s own %u', file_size = -1 WHERE id = '%s'",
			 i, id);
		sql(f, q);
		assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, &changed, NULL), 0);
		snprintf(path, sizeof(path), "%s/%s.md", f->notes, id);
		callus_buf_clear(&text);
		assert_int_equal(callus_fs_read_file(&text, path, 1 << 20, NULL), 0);
		snprintf(q, sizeof(q), "the store's own %u", i);
		assert_non_null(strstr(text.ptr, q));
	}
	callus_buf_release(&text);
	assert_int_equal(sync_round(f), 0);
}

/* Note i's file, its mtime a second on (an edit within the clock's tick
 * of callus's own write would not move it). */
static void edited_later(fixture *f, unsigned i, const char *rule)
{
	char id[CALLUS_NOTE_ID_LEN + 1], path[160];
	struct stat st;
	struct timespec t[2];

	write_note_ruled(f, i, "as pulled", rule);
	note_id(id, i);
	snprintf(path, sizeof(path), "%s/%s.md", f->notes, id);
	assert_int_equal(stat(path, &st), 0);
	t[0] = st.st_atim;
	t[1] = st.st_mtim;
	t[1].tv_sec += 1;
	assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Note i's file owed (the store ahead of it, as after a pass's commit
 * and before its files are written): *id its id. */
static void owe(fixture *f, unsigned i, char id[CALLUS_NOTE_ID_LEN + 1])
{
	char q[160];

	note_id(id, i);
	snprintf(q, sizeof(q), "UPDATE notes SET title = 'the store''s own' WHERE id = '%s'", id);
	sql(f, q);
	assert_int_equal(callus_notes_owe_file(f->s, id), SQLITE_OK);
}

/*
 * A person's edit of a file the store is ahead of (a pass committed and
 * has not written its notes' files yet: a busy store can hold them back
 * for its timeout, a crash until the next sync) is taken in, by a whole
 * sync, a recording's slices and the pass's own write, not written over;
 * a removal retires the note, and is not written back.
 */
static void an_owed_file_keeps_a_persons_edit(void **state)
{
	fixture *f = *state;
	callus_strlist owed = CALLUS_STRLIST_INIT;
	char id[CALLUS_NOTE_ID_LEN + 1], path[160];
	callus_note n;
	size_t changed = 0;
	const unsigned edited[] = { 5, 150, 250 };

	for (unsigned w = 0; w < 3; w++) {
		char rule[64];

		snprintf(rule, sizeof(rule), "Declare it first (%u)", w);
		owe(f, edited[w], id);
		edited_later(f, edited[w], rule);
		if (w == 0) {
			assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
		} else if (w == 1) {
			/* outside the first slices: looked at before the write */
			(void)sync_round(f);
		} else {
			callus_strlist_release(&owed);
			assert_int_equal(callus_strlist_add(&owed, id, strlen(id)), 0);
			callus_notes_write_owed(f->s, f->dir, &owed);
		}
		get(f, edited[w], &n);
		assert_string_equal(n.rule, rule);
		assert_string_equal(n.title, "as pulled");
		assert_true(n.edited);
		assert_false(n.retired);
		callus_note_release(&n);
	}
	/* removed: not written back, and the next whole sync retires it */
	owe(f, 77, id);
	snprintf(path, sizeof(path), "%s/%s.md", f->notes, id);
	assert_int_equal(unlink(path), 0);
	callus_strlist_release(&owed);
	assert_int_equal(callus_strlist_add(&owed, id, strlen(id)), 0);
	callus_notes_write_owed(f->s, f->dir, &owed);
	assert_int_equal(access(path, F_OK), -1);
	folder_changed(f);
	assert_int_equal(callus_notes_sync_bounded(f->s, f->dir, &changed, NULL), 0);
	get(f, 77, &n);
	assert_true(n.retired);
	callus_note_release(&n);
	assert_int_equal(access(path, F_OK), -1);
	/* an owed file as callus wrote it is written over with the store's */
	owe(f, 42, id);
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	get(f, 42, &n);
	assert_string_equal(n.title, "the store's own");
	assert_false(n.edited);
	callus_note_release(&n);
	snprintf(path, sizeof(path), "%s/%s.md", f->notes, id);
	{
		callus_buf text = CALLUS_BUF_INIT;

		assert_int_equal(callus_fs_read_file(&text, path, 1 << 20, NULL), 0);
		assert_non_null(strstr(text.ptr, "the store's own"));
		callus_buf_release(&text);
	}
	callus_strlist_release(&owed);
	assert_int_equal(sync_round(f), 0);
}

/* Note id's file grown past what callus reads (280 KB pasted in): its
 * path in path[0..size). */
static void pasted_into(fixture *f, const char *id, char *path, size_t size)
{
	FILE *fp;

	snprintf(path, size, "%s/%s.md", f->notes, id);
	assert_non_null(fp = fopen(path, "a"));
	for (int i = 0; i < 40000; i++)
		fputs("pasted\n", fp);
	assert_int_equal(fclose(fp), 0);
}

/*
 * What an owed file may meet besides a person's edit: callus's own write
 * whose record was rolled back (read as what the store holds, not as an
 * edit that makes a session's note the project's); a write that fails (a
 * full disk: the note stays owed with what tells an edit made meanwhile);
 * a file changed into one callus cannot read (too large: left alone and
 * not owed, where every sync wrote a temporary file and was refused).
 */
static void an_owed_file_after_a_rollback_a_failed_write_a_huge_edit(void **state)
{
	fixture *f = *state;
	char id[CALLUS_NOTE_ID_LEN + 1], path[160], q[200];
	struct rlimit old, tiny;
	struct stat st;
	callus_note n;
	size_t changed = 0;

	/* rolled back after its rename */
	owe(f, 11, id);
	snprintf(q, sizeof(q), "UPDATE notes SET layer = 'session' WHERE id = '%s'", id);
	sql(f, q);
	sql(f, "BEGIN IMMEDIATE");
	assert_int_equal(callus_notes_write_file(f->s, f->dir, id, NULL), 0);
	sql(f, "ROLLBACK");
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	get(f, 11, &n);
	assert_int_equal(n.layer, CALLUS_LAYER_SESSION);
	assert_false(n.edited);
	callus_note_release(&n);
	snprintf(q, sizeof(q), "SELECT file_size > 0 FROM notes WHERE id = '%s'", id);
	assert_int_equal(one_int(f, q), 1);

	/* a write that fails, then a person's edit */
	owe(f, 12, id);
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	tiny = old;
	tiny.rlim_cur = 1;
	signal(SIGXFSZ, SIG_IGN);
	/* the file's write refused, the store's in its transaction's pages */
	sql(f, "BEGIN IMMEDIATE");
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &tiny), 0);
	{
		int rc = callus_notes_write_file(f->s, f->dir, id, NULL);

		assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
		assert_int_equal(rc, 0);
	}
	sql(f, "COMMIT");
	signal(SIGXFSZ, SIG_DFL);
	snprintf(q, sizeof(q), "SELECT file_size < 0 AND file_hash <> '' FROM notes WHERE id = '%s'",
		 id);
	assert_int_equal(one_int(f, q), 1);
	edited_later(f, 12, "Keep this rule");
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	get(f, 12, &n);
	assert_string_equal(n.rule, "Keep this rule");
	callus_note_release(&n);

	/* too large to read: left alone, not owed, not tried again */
	owe(f, 13, id);
	pasted_into(f, id, path, sizeof(path));
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > CALLUS_NOTE_FILE_MAX);
	snprintf(q, sizeof(q), "SELECT file_size FROM notes WHERE id = '%s'", id);
	assert_int_equal(one_int(f, q), (int64_t)st.st_size);
	{
		sqlite3_int64 before = sqlite3_total_changes64(callus_store_db(f->s));

		assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
		assert_int_equal(changed, 0);
		assert_true(sqlite3_total_changes64(callus_store_db(f->s)) == before);
	}
	assert_int_equal(sync_round(f), 0);

	/* a note not owed whose file grows too large: said once, not at
	 * every sync */
	note_id(id, 14);
	pasted_into(f, id, path, sizeof(path));
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(sync_round(f), 0);
	{
		callus_buf log = CALLUS_BUF_INIT;
		char key[64];
		const char *p;
		int said = 0;

		snprintf(q, sizeof(q), "%s/.callus/log.jsonl", f->dir);
		assert_int_equal(callus_fs_read_file(&log, q, 1 << 20, NULL), 0);
		snprintf(key, sizeof(key), "\"note\":\"%s\"", id);
		for (p = log.ptr; (p = strstr(p, key)); p++)
			said++;
		assert_int_equal(said, 1);
		callus_buf_release(&log);
	}
}

/* The files after a pass, when another writer holds the store: not
 * waited for past a moment, left owed, and said in the log; written by the
 * next sync. */
static void owed_files_behind_a_writer_are_said(void **state)
{
	fixture *f = *state;
	callus_strlist owed = CALLUS_STRLIST_INIT;
	callus_buf log = CALLUS_BUF_INIT;
	char id[CALLUS_NOTE_ID_LEN + 1], q[160], path[160];
	sqlite3 *other = NULL;

	owe(f, 21, id);
	assert_int_equal(callus_strlist_add(&owed, id, strlen(id)), 0);
	assert_int_equal(sqlite3_open(f->path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
	callus_notes_write_owed(f->s, f->dir, &owed);
	assert_int_equal(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	snprintf(q, sizeof(q), "SELECT file_size < 0 FROM notes WHERE id = '%s'", id);
	assert_int_equal(one_int(f, q), 1);
	snprintf(path, sizeof(path), "%s/.callus/log.jsonl", f->dir);
	assert_int_equal(callus_fs_read_file(&log, path, 1 << 20, NULL), 0);
	assert_non_null(strstr(log.ptr, "\"event\":\"notes_owed\""));
	/* the next sync writes it */
	assert_int_equal(callus_notes_sync(f->s, f->dir, NULL, NULL), 0);
	assert_int_equal(one_int(f, q), 0);
	callus_buf_release(&log);
	callus_strlist_release(&owed);
}

/* Records in the noted signatures' vector file (notes_vectors.c). */
static size_t noted_records(fixture *f)
{
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;
	size_t n;

	assert_int_equal(callus_match_noted_vector_path(&path, f->s), 0);
	assert_int_equal(callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL,
					    CALLUS_EMBED_DIM, NULL, NULL), 0);
	n = callus_vecindex_count(vi);
	callus_vecindex_close(vi);
	callus_buf_release(&path);
	return n;
}

static int64_t one_int(fixture *f, const char *q)
{
	sqlite3_stmt *st = NULL;
	int64_t v;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s), q, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* A stored signature of id (64 hex digits), and its vector v when given. */
static int64_t store_signature(fixture *f, const char *id, const float *v)
{
	uint8_t packed[CALLUS_VECINDEX_PACKED(CALLUS_EMBED_DIM)];
	sqlite3_stmt *st = NULL;

	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "INSERT OR IGNORE INTO signatures (id, error_type,"
					    " message_pattern, original, tool, first_seen, last_seen)"
					    " VALUES (?1, 'error', 'x', 'x', 'gcc', unixepoch('2026-11-25'),"
					    " unixepoch('2026-11-25'))",
					    -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	if (v) {
		callus_vecindex_pack(packed, v, CALLUS_EMBED_DIM);
		assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
						    "INSERT INTO signature_vectors (sig, model, vector)"
						    " SELECT rowid, " CALLUS_MATCH_BUILTIN_ID ", ?2"
						    " FROM signatures WHERE id = ?1",
						    -1, &st, NULL),
				 SQLITE_OK);
		sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 2, packed, (int)sizeof(packed), SQLITE_STATIC);
		assert_int_equal(sqlite3_step(st), SQLITE_DONE);
		sqlite3_finalize(st);
	}
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "SELECT rowid FROM signatures WHERE id = ?1", -1, &st, NULL),
			 SQLITE_OK);
	sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	{
		int64_t rowid = sqlite3_column_int64(st, 0);

		sqlite3_finalize(st);
		return rowid;
	}
}

static void unit(float *v, size_t n)
{
	double n2 = 0;

	for (size_t i = 0; i < n; i++)
		n2 += (double)v[i] * v[i];
	for (size_t i = 0; i < n; i++)
		v[i] = (float)(v[i] / sqrt(n2));
}

/* Is rowid among the records scoring at least 0.99 with v? */
static int found_by(const char *path, const float *v, int64_t rowid)
{
	callus_vecindex *vi = NULL;
	callus_vecmatch all[NOTES + 4];
	size_t n, i;

	assert_int_equal(callus_vecindex_open(&vi, path, CALLUS_EMBED_BUILTIN_MODEL,
					    CALLUS_EMBED_DIM, NULL, NULL), 0);
	n = callus_vecindex_search(vi, v, 0.99f, all, NOTES + 4);
	callus_vecindex_close(vi);
	for (i = 0; i < n && all[i].id != rowid; i++)
		;
	return i < n;
}

/*
 * The noted signatures' vectors follow the store, which counts the
 * signatures that have a note and a vector: the file is made from it
 * when behind (the pulled notes' signatures were indexed after their
 * notes took them; removed), compacted when far ahead (notes gone), and
 * a note that gains a signature with a vector appends it; one whose
 * signature gets its vector later has it at the next search.
 */
static void noted_vectors_follow_the_store(void **state)
{
	static const char a[] = "feedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedfacefeedface";
	static const char b[] = "cafecafecafecafecafecafecafecafecafecafecafecafecafecafecafecafe";
	fixture *f = *state;
	callus_buf path = CALLUS_BUF_INIT;
	float va[CALLUS_EMBED_DIM], vb[CALLUS_EMBED_DIM];
	char id[CALLUS_NOTE_ID_LEN + 1];
	sqlite3_stmt *st = NULL;
	int64_t ra, rb, rp;

	assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES);
	assert_int_equal(one_int(f, "SELECT count(*) FROM note_signatures x JOIN signatures g"
				   " ON g.id = x.signature_id JOIN signature_vectors v ON v.sig = g.rowid"),
			 NOTES);
	assert_int_equal(noted_records(f), 0);
	assert_int_equal(callus_notes_vectors_fresh(f->s, &path, NULL), 0);
	assert_int_equal(noted_records(f), NOTES);
	assert_int_equal(callus_notes_vectors_fresh(f->s, &path, NULL), 0);
	assert_int_equal(noted_records(f), NOTES);
	/* a pulled note's signature is found by its vector */
	assert_int_equal(sqlite3_prepare_v2(callus_store_db(f->s),
					    "SELECT g.rowid, v.vector FROM note_signatures x JOIN"
					    " signatures g ON g.id = x.signature_id JOIN"
					    " signature_vectors v ON v.sig = g.rowid LIMIT 1",
					    -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	rp = sqlite3_column_int64(st, 0);
	assert_int_equal(callus_vecindex_unpack(va, CALLUS_EMBED_DIM, sqlite3_column_blob(st, 1),
					      (size_t)sqlite3_column_bytes(st, 1)), 0);
	sqlite3_finalize(st);
	assert_true(found_by(path.ptr, va, rp));
	/* gone: made again from the store before the next search */
	assert_int_equal(unlink(path.ptr), 0);
	assert_int_equal(callus_notes_vectors_fresh(f->s, &path, NULL), 0);
	assert_int_equal(noted_records(f), NOTES);
	/* two hundred notes' signatures removed: compacted */
	sql(f, "DELETE FROM note_signatures WHERE signature_id IN"
	       " (SELECT signature_id FROM note_signatures ORDER BY signature_id LIMIT 200)");
	assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200);
	assert_int_equal(callus_notes_vectors_fresh(f->s, &path, NULL), 0);
	assert_int_equal(noted_records(f), NOTES - 200);

	for (size_t i = 0; i < CALLUS_EMBED_DIM; i++) {
		va[i] = i % 7 == 0 ? 0.25f : 0.0f;
		vb[i] = i % 5 == 1 ? 0.25f : 0.0f;
	}
	unit(va, CALLUS_EMBED_DIM);
	unit(vb, CALLUS_EMBED_DIM);
	note_id(id, 7);
	/* a signature with a vector given to a note: appended, once */
	ra = store_signature(f, a, va);
	assert_int_equal(callus_notes_attach(f->s, id, NULL, a), SQLITE_OK);
	assert_int_equal(callus_notes_attach(f->s, id, NULL, a), SQLITE_OK);
	assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 1);
	assert_int_equal(noted_records(f), NOTES - 200 + 1);
	assert_true(found_by(path.ptr, va, ra));
	/* one given to a note before its vector: not counted, nothing
	 * appended; counted with its vector, and the next search has it */
	rb = store_signature(f, b, NULL);
	assert_int_equal(callus_notes_attach(f->s, id, NULL, b), SQLITE_OK);
	assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 1);
	assert_int_equal(noted_records(f), NOTES - 200 + 1);
	store_signature(f, b, vb);
	assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 2);
	assert_false(found_by(path.ptr, vb, rb));
	assert_int_equal(callus_notes_vectors_fresh(f->s, &path, NULL), 0);
	assert_int_equal(noted_records(f), NOTES - 200 + 2);
	assert_true(found_by(path.ptr, vb, rb));
	assert_true(found_by(path.ptr, va, ra));
	/* the count follows a vector removed too */
	sql(f, "DELETE FROM signature_vectors WHERE sig = (SELECT rowid FROM signatures WHERE id = '"
	       "cafecafecafecafecafecafecafecafecafecafecafecafecafecafecafecafe')");
	assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 1);

	/* a layer's cached note (schema 30) counts its signature too, and
	 * the file has it: a recording's search of the old fixes finds a
	 * team's (match.h) */
	{
		static const char c[] =
			"beefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeef";
		float vc[CALLUS_EMBED_DIM];
		int64_t rc_;

		for (size_t i = 0; i < CALLUS_EMBED_DIM; i++)
			vc[i] = i % 11 == 3 ? 0.25f : 0.0f;
		unit(vc, CALLUS_EMBED_DIM);
		rc_ = store_signature(f, c, vc);
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 1);
		sql(f, "INSERT INTO note_cache (layer, id, revision, signature_id, title, pulled_at)"
		       " VALUES ('team', 'n1', 1, '"
		       "beefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeef',"
		       " 't', '2026-01-01')");
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 2);
		/* as a pull does (team_sync.c): its vector appended */
		callus_notes_vectors_add(f->s, c);
		assert_int_equal(callus_notes_vectors_fresh(f->s, &path, NULL), 0);
		assert_true(found_by(path.ptr, vc, rc_));
		/* a newer revision naming another signature, one with no vector:
		 * uncounted; back, counted; the vector gone, uncounted; the
		 * cached note gone with its vector back: uncounted */
		sql(f, "UPDATE note_cache SET signature_id = '"
		       "cafecafecafecafecafecafecafecafecafecafecafecafecafecafecafecafe' WHERE id = 'n1'");
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 1);
		sql(f, "UPDATE note_cache SET signature_id = '"
		       "beefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeef' WHERE id = 'n1'");
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 2);
		sql(f, "DELETE FROM signature_vectors WHERE sig = (SELECT rowid FROM signatures"
		       " WHERE id = 'beefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeefbeef')");
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 1);
		store_signature(f, c, vc);
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 2);
		sql(f, "DELETE FROM note_cache WHERE id = 'n1'");
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"), NOTES - 200 + 1);
		/* the count is what the file is made of */
		assert_int_equal(one_int(f, "SELECT n FROM noted_count"),
				 one_int(f, "SELECT count(*) FROM (SELECT signature_id FROM"
					    " note_signatures UNION ALL SELECT signature_id FROM"
					    " note_cache) x JOIN signatures g ON g.id = x.signature_id"
					    " JOIN signature_vectors v ON v.sig = g.rowid"));
	}
	callus_buf_release(&path);
}

/* The folder there but not to be opened (here: no descriptor left) is an
 * error, not an empty folder: no note is retired, whole sync or one note's.
 * Reading nothing took every note for deleted. */
static void unreadable_folder_retires_nothing(void **state)
{
	fixture *f = *state;
	struct rlimit old, low;
	int fds[64], nfds = 0, rc_whole, rc_one;
	size_t changed = 0;
	char id[CALLUS_NOTE_ID_LEN + 1];
	callus_note n;

	note_id(id, 7);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
	/* every descriptor under a low limit taken: the next open fails */
	low = old;
	low.rlim_cur = (rlim_t)dup(0);
	assert_true(low.rlim_cur > 0 && low.rlim_cur + 64 < old.rlim_cur);
	close((int)low.rlim_cur);
	low.rlim_cur += 32;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
	while (nfds < 64 && (fds[nfds] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		nfds++;
	assert_true(nfds < 64);
	rc_whole = callus_notes_sync(f->s, f->dir, &changed, NULL);
	rc_one = callus_notes_sync_one(f->s, f->dir, id, NULL, NULL);
	while (nfds > 0)
		close(fds[--nfds]);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	assert_true(rc_whole < 0);
	assert_true(rc_one < 0);
	assert_int_equal(one_int(f, "SELECT count(*) FROM notes WHERE status = 'active'"), NOTES);
	get(f, 7, &n);
	assert_false(n.retired);
	callus_note_release(&n);
	/* and once it can be read, nothing changed */
	assert_int_equal(callus_notes_sync(f->s, f->dir, &changed, NULL), 0);
	assert_int_equal(changed, 0);
}

/* What a view lists (brief): the notes and the order of the full listing,
 * without what other tables hold (a resolution count, every signature). */
static void brief_listing_leaves_out_other_tables(void **state)
{
	fixture *f = *state;
	callus_note_filter full = { .layer = -1 }, brief = { .layer = -1, .brief = 1 };
	callus_note *a = NULL, *b = NULL;
	size_t na = 0, nb = 0, seven = NOTES;
	char id[CALLUS_NOTE_ID_LEN + 1], q[256];
	const char *other = "b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1";

	note_id(id, 7);
	store_signature(f, other, NULL);
	assert_int_equal(callus_notes_attach(f->s, id, NULL, other), SQLITE_OK);
	sql(f, "INSERT INTO resolutions (signature_id, description, code_changes, created_at)"
	       " VALUES ('b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1b1',"
	       " 'renamed', '', '2026-11-25T00:00:00Z')");
	snprintf(q, sizeof(q), "INSERT INTO note_resolutions (resolution_id, note_id)"
			       " SELECT max(id), '%s' FROM resolutions", id);
	sql(f, q);
	assert_int_equal(callus_notes_list(f->s, &full, &a, &na, NULL), 0);
	assert_int_equal(callus_notes_list(f->s, &brief, &b, &nb, NULL), 0);
	assert_int_equal(na, NOTES);
	assert_int_equal(nb, na);
	for (size_t i = 0; i < na; i++) {
		assert_string_equal(b[i].id, a[i].id);
		assert_string_equal(b[i].title, a[i].title);
		assert_string_equal(b[i].steps, a[i].steps);
		assert_string_equal(b[i].code, a[i].code);
		assert_true(b[i].applications == a[i].applications);
		assert_int_equal(b[i].signatures.count, 1);
		assert_string_equal(b[i].signatures.items[0], a[i].signature_id);
		assert_true(b[i].resolutions == 0);
		if (!strcmp(a[i].id, id))
			seven = i;
	}
	assert_true(seven < na);
	snprintf(q, sizeof(q), "SELECT count(*) FROM note_resolutions WHERE note_id = '%s'", id);
	assert_true(one_int(f, q) >= 1);
	assert_int_equal(a[seven].resolutions, one_int(f, q));
	assert_int_equal(a[seven].signatures.count, 2);
	assert_string_equal(a[seven].signatures.items[0], a[seven].signature_id);
	callus_notes_free(a, na);
	callus_notes_free(b, nb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(unchanged_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(added_file_is_imported, setup, teardown),
		cmocka_unit_test_setup_teardown(added_by_another_meanwhile, setup, teardown),
		cmocka_unit_test_setup_teardown(hashes_of_schema_22_still_match, setup, teardown),
		cmocka_unit_test_setup_teardown(a_notes_own_title_is_kept_once, setup, teardown),
		cmocka_unit_test_setup_teardown(edit_in_place_is_taken_in, setup, teardown),
		cmocka_unit_test_setup_teardown(removed_file_retires, setup, teardown),
		cmocka_unit_test_setup_teardown(secrets_in_a_file_are_redacted, setup, teardown),
		cmocka_unit_test_setup_teardown(unreadable_folder_retires_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(store_ahead_is_written, setup, teardown),
		cmocka_unit_test_setup_teardown(an_owed_file_keeps_a_persons_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(an_owed_file_after_a_rollback_a_failed_write_a_huge_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(owed_files_behind_a_writer_are_said, setup, teardown),
		cmocka_unit_test_setup_teardown(learning_syncs, setup, teardown),
		cmocka_unit_test_setup_teardown(own_writes_keep_the_cursor, setup, teardown),
		cmocka_unit_test_setup_teardown(cursor_is_written_in_place, setup, teardown),
		cmocka_unit_test_setup_teardown(noted_vectors_follow_the_store, setup, teardown),
		cmocka_unit_test_setup_teardown(brief_listing_leaves_out_other_tables, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
