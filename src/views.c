#include "callus/views.h"
#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/lesson.h"
#include "callus/lessonmd.h"
#include "callus/notes.h"
#include "callus/record.h"
#include "callus/strlist.h"
#include "callus/workspace.h"
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OWED_DIR ".callus/owed"
/* Past this age a debt or a temporary file is a crash's whatever its pid
 * says (pids are reused): a recording lasts seconds (the hook's deadline
 * is 5 s). */
#define STALE_AFTER_S (10 * 60)

/* A paid debt's file, kept for the next debt (callus_fs_write_spare: no
 * inode made and freed a recording); a dot name, never a debt itself
 * (stale_debts() skips it). */
#define SPARE ".spare"

struct callus_views_debt {
	char *path;
	char *spare;
};

void callus_views_owe(callus_views_debt **out, const char *workspace, const char *signature)
{
	callus_buf dir = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT, spare = CALLUS_BUF_INIT,
		   line = CALLUS_BUF_INIT, tmp = CALLUS_BUF_INIT;
	struct timespec ts;
	callus_views_debt *d = NULL;

	*out = NULL;
	clock_gettime(CLOCK_REALTIME, &ts);
	callus_buf_printf(&dir, "%s/" OWED_DIR, workspace);
	callus_buf_printf(&path, "%s/%ld-%lx", dir.ptr, (long)getpid(), (unsigned long)ts.tv_nsec);
	callus_buf_printf(&tmp, "%s/.%ld-%lx", dir.ptr, (long)getpid(), (unsigned long)ts.tv_nsec);
	callus_buf_printf(&spare, "%s/" SPARE, dir.ptr);
	callus_buf_printf(&line, "%s\n", signature && *signature ? signature : "views");
	if (callus_buf_status(&dir) < 0 || callus_buf_status(&path) < 0 ||
	    callus_buf_status(&tmp) < 0 || callus_buf_status(&spare) < 0 ||
	    callus_buf_status(&line) < 0)
		goto out;
	/* written in the workspace or nowhere, as the spool */
	if (callus_workspace_guard(NULL, workspace, OWED_DIR, 0, NULL) < 0 ||
	    (mkdir(dir.ptr, 0700) < 0 && errno != EEXIST))
		goto out;
	/* under a dot name (stale_debts() skips it) until whole: a spare
	 * keeps its old time until written, and a debt that looks ten
	 * minutes old is a crash's to any repair */
	if (!(d = calloc(1, sizeof(*d))) || !(d->path = callus_buf_detach(&path)) ||
	    !(d->spare = callus_buf_detach(&spare)) ||
	    callus_fs_write_spare(d->spare, tmp.ptr, d->path, line.ptr, line.len) < 0) {
		if (d) {
			free(d->path);
			free(d->spare);
		}
		free(d);
		goto out;
	}
	*out = d;
out:
	callus_buf_release(&dir);
	callus_buf_release(&path);
	callus_buf_release(&spare);
	callus_buf_release(&line);
	callus_buf_release(&tmp);
}

void callus_views_settle(callus_views_debt *d, int written)
{
	if (!d)
		return;
	/* paid: kept as the spare */
	if (written)
		callus_fs_keep_spare(d->path, d->spare);
	free(d->spare);
	free(d->path);
	free(d);
}

/* The pid of a debt called name, "PID-NS" (a named one: callus_views_owe),
 * or -1 for any other name: strtol alone would take "-5-1", "+5-1" and
 * " 5-1" for debts, the first of a pid of none, so gone at once. */
static long debt_maker(const char *name, void *ctx)
{
	size_t digits = strspn(name, "0123456789");

	(void)ctx;
	return digits && name[digits] == '-' ? strtol(name, NULL, 10) : -1;
}

struct stale {
	callus_strlist *paths, *sigs;
	callus_buf text;
};

/* A stale debt: its path, and the signature it names ("views" for none). */
static int stale_debt(const char *path, const char *name, void *ctx)
{
	struct stale *w = ctx;
	callus_buf *text = &w->text;
	int rc;

	(void)name;
	callus_buf_clear(text);
	if (callus_fs_read_file(text, path, 4096, NULL) < 0)
		callus_buf_clear(text);
	while (text->len && text->ptr[text->len - 1] == '\n')
		text->ptr[--text->len] = '\0';
	if ((rc = callus_strlist_add(w->paths, path, strlen(path))) == 0)
		rc = callus_strlist_add(w->sigs, text->len ? text->ptr : "views",
				      text->len ? text->len : 5);
	return rc;
}

/* The stale debts in OWED_DIR: their paths in paths, the signatures they
 * name in sigs. */
static int stale_debts(const char *workspace, callus_strlist *paths, callus_strlist *sigs)
{
	callus_buf dir = CALLUS_BUF_INIT;
	struct stale w = { paths, sigs, CALLUS_BUF_INIT };
	int rc = CALLUS_ENOMEM;

	if (callus_buf_printf(&dir, "%s/" OWED_DIR, workspace) == 0)
		rc = callus_fs_each_gone(dir.ptr, STALE_AFTER_S, debt_maker, NULL, stale_debt, &w);
	callus_buf_release(&w.text);
	callus_buf_release(&dir);
	return rc;
}

/* Every debt, its maker gone or not: a pid of none (callus_fs_maker_gone
 * takes its maker for gone) for each name debt_maker knows. */
static long any_debt(const char *name, void *ctx)
{
	return debt_maker(name, ctx) < 0 ? -1 : 0;
}

int callus_views_owed_signatures(const char *workspace, callus_strlist *sigs)
{
	callus_buf dir = CALLUS_BUF_INIT;
	callus_strlist paths = CALLUS_STRLIST_INIT;
	/* a debt of no lesson is named "views": no lesson's signature */
	struct stale w = { &paths, sigs, CALLUS_BUF_INIT };
	int rc = CALLUS_ENOMEM;

	if (callus_buf_printf(&dir, "%s/" OWED_DIR, workspace) == 0)
		rc = callus_fs_each_gone(dir.ptr, STALE_AFTER_S, any_debt, NULL, stale_debt, &w);
	callus_buf_release(&w.text);
	callus_buf_release(&dir);
	callus_strlist_release(&paths);
	return rc;
}

int callus_views_owed(const char *workspace)
{
	callus_strlist paths = CALLUS_STRLIST_INIT, sigs = CALLUS_STRLIST_INIT;
	int rc = stale_debts(workspace, &paths, &sigs);
	int owed = rc < 0 || paths.count > 0;

	callus_strlist_release(&paths);
	callus_strlist_release(&sigs);
	return owed;
}

/* The kinds of file made under one name to be named (or removed) by the
 * process that made it, which a process killed in between leaves. */
enum temp_kind {
	TEMP_WRITE, /* fsutil.h's, in any folder: ".NAME.callus-PID-...tmp" */
	TEMP_DEBT   /* in .callus/owed only, a debt not yet named: ".PID-NS" */
};

/* Whether s is one or more decimal digits (hex with hex) and then end. */
static int digits_then(const char *s, int hex, const char *end)
{
	size_t n = strspn(s, hex ? "0123456789abcdef" : "0123456789");

	return n > 0 && !strcmp(s + n, end);
}

/* The pid in name when it is a file of the kind *ctx (enum temp_kind),
 * else -1 (0 for a write's file whose name has no pid: its maker is taken
 * for gone).  A debt's name is matched whole, and only in its own folder:
 * the instructions file's folder is the user's.  (The spool's are the
 * spool's: cli/hook_spool.c.) */
static long temp_maker(const char *name, void *ctx)
{
	const char *mark, *dash = strchr(name, '-');
	size_t len = strlen(name);

	if (name[0] == '.' && (mark = strstr(name, ".callus-")) && len >= 4 &&
	    !strcmp(name + len - 4, ".tmp"))
		return strtol(mark + 8, NULL, 10);
	if (*(const enum temp_kind *)ctx == TEMP_DEBT && name[0] == '.' && dash &&
	    digits_then(name + 1, 0, dash) && digits_then(dash + 1, 1, ""))
		return strtol(name + 1, NULL, 10);
	return -1;
}

/* Count (and with fix remove) the files of kind that processes now gone
 * left in workspace/rel. */
static void temp_files(const char *workspace, const char *rel, enum temp_kind kind, int fix,
		       callus_views_report *rep)
{
	callus_buf dir = CALLUS_BUF_INIT;
	size_t removed;

	if (callus_buf_printf(&dir, "%s%s%s", workspace, *rel ? "/" : "", rel) < 0)
		goto out;
	/* a folder leading out of the workspace is not callus's: its files
	 * neither counted (a --fix could never remove them) nor removed */
	if (*rel && callus_workspace_guard(NULL, workspace, rel, 0, NULL) < 0)
		goto out;
	rep->temp_files += callus_fs_sweep_gone(dir.ptr, temp_maker, &kind, STALE_AFTER_S, fix,
						&removed);
	rep->removed += removed;
out:
	callus_buf_release(&dir);
}

/* Whether .lessons/ holds the file of signature sig, not empty. */
static int has_lesson_file(const char *workspace, const char *sig)
{
	callus_buf p = CALLUS_BUF_INIT;
	struct stat st;
	/* an empty one is a power loss's: its contents are not synced
	 * (CALLUS_FS_REBUILT), and no rendered lesson is empty */
	int yes = callus_buf_printf(&p, "%s/.lessons/%.*s.md", workspace, CALLUS_LESSON_ID_LEN,
				    sig) == 0 &&
		  lstat(p.ptr, &st) == 0 && !(S_ISREG(st.st_mode) && st.st_size == 0);

	callus_buf_release(&p);
	return yes;
}

int callus_views_lock(const char *workspace, int *fd, callus_error *err)
{
	callus_buf lock = CALLUS_BUF_INIT;
	int rc;

	*fd = -1;
	if (callus_buf_printf(&lock, "%s/.callus/agents.lock", workspace) < 0)
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	else
		rc = callus_fs_lock(fd, lock.ptr, CALLUS_AGENTS_LOCK_TIMEOUT_MS, err);
	callus_buf_release(&lock);
	return rc;
}

int callus_views_lesson_file(callus_store *store, const char *workspace, const char *sig,
			     callus_error *err)
{
	int fd, rc;

	if ((rc = callus_views_lock(workspace, &fd, err)) < 0)
		return rc;
	rc = callus_views_lesson_file_held(store, workspace, sig, err);
	callus_fs_unlock(fd);
	return rc;
}

int callus_views_lesson_file_held(callus_store *store, const char *workspace, const char *sig,
				  callus_error *err)
{
	callus_buf dir = CALLUS_BUF_INIT;
	callus_lesson l;
	int rc;

	memset(&l, 0, sizeof(l));
	if ((rc = callus_store_get_lesson(store, sig, &l, err)) == CALLUS_ENOTFOUND) {
		rc = 0;
		goto out;
	}
	if (rc < 0)
		goto out;
	if (callus_buf_printf(&dir, "%s/.lessons", workspace) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = callus_workspace_guard(NULL, workspace, ".lessons", 0, err)) < 0 ||
	    (rc = callus_lesson_md_write(dir.ptr, &l, err)) < 0)
		goto out;
	rc = 1;
out:
	callus_lesson_release(&l);
	callus_buf_release(&dir);
	return rc;
}

enum { PAGE_CURRENT, PAGE_MISSING, PAGE_STALE };

/* What the .lessons/ file of l is against what the store makes of l:
 * PAGE_CURRENT (or something that is no file is there, a folder, a FIFO:
 * left to the person who put it there), PAGE_MISSING (none, or empty: a
 * power loss's), PAGE_STALE (another text; a file over twice the page is
 * no page), or CALLUS_ENOMEM. */
static int page_state(const char *workspace, const callus_lesson *l)
{
	callus_buf want = CALLUS_BUF_INIT, have = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	int rc;

	if (callus_lesson_md_render(&want, l) < 0 ||
	    callus_buf_printf(&path, "%s/.lessons/%.*s.md", workspace, CALLUS_LESSON_ID_LEN,
			      l->signature) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	rc = callus_fs_read_file(&have, path.ptr, 2 * want.len + 1, NULL);
	if (rc == CALLUS_ENOMEM)
		goto out;
	if (rc == CALLUS_EINVAL || (rc == 0 && have.len == want.len &&
				    !memcmp(have.ptr, want.ptr, want.len)))
		rc = PAGE_CURRENT;
	else if (rc == CALLUS_ENOTFOUND || (rc == 0 && !have.len))
		rc = PAGE_MISSING;
	else
		rc = PAGE_STALE;
out:
	callus_buf_release(&want);
	callus_buf_release(&have);
	callus_buf_release(&path);
	return rc;
}

/* Check (and with fix write) the file of the lesson with signature sig:
 * missing, or not what the store makes of it now.  No lesson: the crash
 * came before the commit, nothing to show. */
static int lesson_file(callus_store *store, const char *workspace, const char *sig, int fix,
		       callus_views_report *rep, callus_error *err)
{
	callus_error ge = CALLUS_ERROR_INIT;
	callus_lesson l;
	size_t *count;
	int rc, state;

	rep->lessons++;
	memset(&l, 0, sizeof(l));
	rc = callus_store_get_lesson(store, sig, &l, &ge);
	if (rc == CALLUS_ENOTFOUND) {
		rc = 0;
		goto out;
	}
	if (rc < 0 && !fix) {
		/* a store that cannot say: a file that is there is taken */
		if (!has_lesson_file(workspace, sig))
			rep->missing++;
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		rc = callus_error_set(err, rc, "%s", callus_error_message(&ge));
		goto out;
	}
	if ((state = page_state(workspace, &l)) < 0) {
		rc = callus_error_set(err, state, "out of memory");
		goto out;
	}
	rc = 0;
	if (state == PAGE_CURRENT)
		goto out;
	count = state == PAGE_STALE ? &rep->stale : &rep->missing;
	(*count)++;
	/* written under the views' lock, as the store has it then */
	if (fix && (rc = callus_views_lesson_file(store, workspace, sig, err)) < 0)
		goto out;
	if (fix && rc == 0)
		(*count)--; /* gone meanwhile (callus gc) */
	else if (fix)
		rep->written++;
	rc = 0;
out:
	callus_lesson_release(&l);
	callus_error_release(&ge);
	return rc;
}

int callus_views_owes_file(const callus_strlist *owed, const char *name)
{
	for (size_t i = 0; i < owed->count; i++)
		if (!strncmp(owed->items[i], name, CALLUS_LESSON_ID_LEN))
			return 1;
	return 0;
}

static int by_id(const void *a, const void *b)
{
	return strncmp(*(char *const *)a, *(char *const *)b, CALLUS_LESSON_ID_LEN);
}

int callus_views_owed_gone(const char *workspace, callus_strlist *sigs)
{
	callus_strlist paths = CALLUS_STRLIST_INIT, all = CALLUS_STRLIST_INIT;
	int rc = stale_debts(workspace, &paths, &all);

	for (size_t i = 0; rc == 0 && i < all.count; i++)
		if (strcmp(all.items[i], "views"))
			rc = callus_strlist_add(sigs, all.items[i], strlen(all.items[i]));
	callus_strlist_release(&paths);
	callus_strlist_release(&all);
	return rc < 0 ? CALLUS_ENOMEM : 0;
}

/* Whether the entry e of d is a folder (not followed: a link is a file). */
static int is_folder(DIR *d, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/* The .lessons/ files no lesson of sigs (sorted here) has, nor a
 * recording owes, into rep->orphans: a removal cut short, a store
 * replaced, a file written back for a lesson a gc removed.  Counted, not
 * removed: callus gc's sweep removes them, under the store's lock. */
static int orphan_files(const char *workspace, callus_strlist *sigs, callus_views_report *rep)
{
	callus_strlist owed = CALLUS_STRLIST_INIT;
	callus_buf dir = CALLUS_BUF_INIT;
	struct dirent *e;
	DIR *d = NULL;
	int rc = 0;

	if (callus_buf_printf(&dir, "%s/.lessons", workspace) < 0 ||
	    callus_views_owed_signatures(workspace, &owed) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (!(d = opendir(dir.ptr)))
		goto out;
	if (sigs->count > 1)
		qsort(sigs->items, sigs->count, sizeof(*sigs->items), by_id);
	while ((e = readdir(d))) {
		const char *name = e->d_name;

		if (strlen(name) != CALLUS_LESSON_ID_LEN + 3 ||
		    strcmp(name + CALLUS_LESSON_ID_LEN, ".md") ||
		    strspn(name, "0123456789abcdef") != CALLUS_LESSON_ID_LEN ||
		    bsearch(&name, sigs->items, sigs->count, sizeof(*sigs->items), by_id))
			continue;
		/* a folder of a page's name is no page: gc's sweep leaves it,
		 * and the report said gc would remove it */
		if (!callus_views_owes_file(&owed, name) && !is_folder(d, e))
			rep->orphans++;
	}
out:
	if (d)
		closedir(d);
	callus_strlist_release(&owed);
	callus_buf_release(&dir);
	return rc;
}

/* Every lesson of the store against .lessons/ (callus doctor, and a stale
 * debt that names no lesson).  Their signatures are read first, then each
 * lesson again as its file is written: read through one statement, a
 * lesson a gc removed meanwhile was still seen (the statement's snapshot)
 * and its file written again, with no lesson.  With orphans, the files
 * no lesson has are counted too (callus doctor). */
static int all_lessons(callus_store *store, const char *workspace, int fix, int orphans,
		       callus_views_report *rep, callus_error *err)
{
	callus_strlist sigs = CALLUS_STRLIST_INIT;
	sqlite3_stmt *st = NULL;
	int rc;

	rc = sqlite3_prepare_v2(callus_store_db(store), "SELECT signature FROM lessons", -1, &st,
				NULL);
	if (rc != SQLITE_OK)
		return callus_store_db_error(store, err, rc, "cannot read the lessons of");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *sig = (const char *)sqlite3_column_text(st, 0);

		if (sig && callus_strlist_add(&sigs, sig, strlen(sig)) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		callus_strlist_release(&sigs);
		return callus_store_db_error(store, err, rc, "cannot read the lessons of");
	}
	rc = 0;
	for (size_t i = 0; rc == 0 && i < sigs.count; i++)
		rc = lesson_file(store, workspace, sigs.items[i], fix, rep, err);
	if (rc == 0 && orphans)
		rc = orphan_files(workspace, &sigs, rep);
	callus_strlist_release(&sigs);
	return rc;
}

/* CALLUS_VIEWS_NAMED: the files the debts paths[i] name (sigs[i]),
 * written, and with fix those debts paid; one of no lesson ("views") is
 * left, uncounted. */
static int named_debts(callus_store *store, const char *workspace, const callus_strlist *paths,
		       const callus_strlist *sigs, int fix, callus_views_report *rep,
		       callus_error *err)
{
	int elsewhere = callus_workspace_guard(NULL, workspace, ".lessons", 0, NULL) ==
			CALLUS_EUNSAFE;
	int rc = 0;

	rep->lessons_elsewhere = elsewhere;
	for (size_t i = 0; i < sigs->count && rc == 0; i++) {
		if (!strcmp(sigs->items[i], "views"))
			continue;
		rep->debts++;
		if (!elsewhere && (rc = lesson_file(store, workspace, sigs->items[i], fix, rep,
						    err)) < 0)
			break;
		if (fix)
			unlink(paths->items[i]);
	}
	return rc;
}

/* The directory of a file, relative to the workspace (f relative too). */
static char *dir_of(const char *f)
{
	const char *slash = strrchr(f, '/');

	return strndup(f, slash ? (size_t)(slash - f) : 0);
}

char *callus_views_agents_target(const char *workspace, const char *real, const char *agents_file)
{
	const char *agents = agents_file && *agents_file ? agents_file : "AGENTS.md";
	callus_buf path = CALLUS_BUF_INIT;
	char *own = NULL, *target = NULL, *out = NULL;
	struct stat st;
	size_t n;

	if (!real && !(real = own = realpath(workspace, NULL)))
		goto out;
	if (callus_buf_printf(&path, "%s/%s", workspace, agents) < 0 ||
	    lstat(path.ptr, &st) < 0 || !S_ISLNK(st.st_mode) || !(target = realpath(path.ptr, NULL)))
		goto out;
	n = strlen(real);
	if (!strncmp(target, real, n) && target[n] == '/' && strcmp(target + n + 1, agents))
		out = strdup(target + n + 1);
out:
	free(own);
	free(target);
	callus_buf_release(&path);
	return out;
}

int callus_views_repair(callus_store *store, const char *workspace, const char *agents_file,
			int agents_max, unsigned flags, callus_views_report *rep_out,
			callus_error *err)
{
	callus_strlist paths = CALLUS_STRLIST_INIT, sigs = CALLUS_STRLIST_INIT;
	callus_views_report rep;
	int fix = (flags & CALLUS_VIEWS_FIX) != 0, full = (flags & CALLUS_VIEWS_FULL) != 0, rc;
	int named = (flags & CALLUS_VIEWS_NAMED) != 0;
	char *adir = NULL, *target = NULL, *tdir = NULL;

	memset(&rep, 0, sizeof(rep));
	if ((rc = stale_debts(workspace, &paths, &sigs)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	if (named) {
		rc = named_debts(store, workspace, &paths, &sigs, fix, &rep, err);
		goto out;
	}
	rep.debts = paths.count;
	if (!rep.debts && !full)
		goto out; /* the common case */
	rep.lessons_elsewhere =
		callus_workspace_guard(NULL, workspace, ".lessons", 0, NULL) == CALLUS_EUNSAFE;
	/* A debt that names no lesson is a gc's (or a pass's): a gc killed
	 * between removing lesson files and its commit left lessons whose
	 * files are gone, which no debt names.  After such a crash, every
	 * lesson is looked at (a stat each). */
	for (size_t i = 0; i < sigs.count; i++)
		if (!strcmp(sigs.items[i], "views"))
			full = 1;
	/* the full check goes through every lesson anyway */
	for (size_t i = 0; !full && !rep.lessons_elsewhere && i < sigs.count; i++)
		if ((rc = lesson_file(store, workspace, sigs.items[i], fix, &rep, err)) < 0)
			goto out;
	/* the files no lesson has: callus doctor's question only */
	if (full && !rep.lessons_elsewhere &&
	    (rc = all_lessons(store, workspace, fix, (flags & CALLUS_VIEWS_FULL) != 0, &rep,
			      err)) < 0)
		goto out;
	/* notes: the store knows which files it has not written yet */
	if (fix && (rc = callus_notes_sync(store, workspace, NULL, err)) < 0)
		goto out;
	rc = callus_record_views_stale(store, workspace, agents_file, agents_max, err);
	/* an instructions file leading out is never written: no debt's to
	 * repair, said as such (rep.agents_elsewhere) */
	if (rc == CALLUS_EUNSAFE) {
		callus_error_release(err);
		rep.agents_elsewhere = 1;
		rc = 0;
	}
	if (rc < 0)
		goto out;
	rep.block_stale = rc;
	if (rep.block_stale && fix) {
		if ((rc = callus_record_views(store, workspace, agents_file, agents_max, err)) < 0)
			goto out;
		rep.block_written = 1;
	}
	if (!(adir = dir_of(agents_file && *agents_file ? agents_file : "AGENTS.md"))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* a link's writes land beside the file it leads to */
	if ((target = callus_views_agents_target(workspace, NULL, agents_file)) &&
	    !(tdir = dir_of(target))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	temp_files(workspace, ".lessons", TEMP_WRITE, fix, &rep);
	temp_files(workspace, ".callus", TEMP_WRITE, fix, &rep);
	temp_files(workspace, ".callus/notes", TEMP_WRITE, fix, &rep);
	temp_files(workspace, OWED_DIR, TEMP_DEBT, fix, &rep);
	temp_files(workspace, adir, TEMP_WRITE, fix, &rep);
	if (tdir && strcmp(tdir, adir))
		temp_files(workspace, tdir, TEMP_WRITE, fix, &rep);
	if (fix)
		for (size_t i = 0; i < paths.count; i++)
			unlink(paths.items[i]);
	rc = 0;
out:
	if (rep_out)
		*rep_out = rep;
	free(adir);
	free(target);
	free(tdir);
	callus_strlist_release(&paths);
	callus_strlist_release(&sigs);
	return rc;
}
