/*
 * gc.c - retention (include/callus/gc.h): each kind of record past the
 * policy removed in a short transaction of its own, oldest first, at most
 * p->batch at a time, so that the background pass a recording runs stays
 * short and a hook waiting for the store waits little.
 */
#include "callus/gc.h"
#include "callus/buf.h"
#include "callus/checkindex.h"
#include "callus/embed.h"
#include "callus/learn.h"
#include "callus/lessonmd.h"
#include "callus/log.h"
#include "callus/signature.h"
#include "callus/snapshot.h"
#include "callus/store_redact.h"
#include "callus/vecindex.h"
#include "callus/views.h"
#include "callus/workspace.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void callus_gc_policy_default(callus_gc_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->lesson_days = CALLUS_GC_LESSON_DAYS;
	p->lessons_max = CALLUS_GC_LESSONS_MAX;
	p->run_days = CALLUS_GC_RUN_DAYS;
	p->signature_days = CALLUS_GC_SIGNATURE_DAYS;
	p->model_days = CALLUS_GC_MODEL_DAYS;
	p->prune_hours = CALLUS_LEARN_PRUNE_HOURS;
	p->interval_hours = CALLUS_GC_INTERVAL_HOURS;
	p->sweep = 1;
}

int callus_gc_due(const char *workspace, const callus_gc_policy *p)
{
	callus_buf path = CALLUS_BUF_INIT;
	struct stat st;
	time_t now = time(NULL);
	int due = 0, fresh = 0, fd;

	if (callus_buf_printf(&path, "%s/.callus/gc.stamp", workspace) < 0)
		goto out;
	/* a stamp dated ahead of the clock (a clock set back since) is due:
	 * read as fresh, it would stop the pass until the clock caught up.
	 * A minute's slack: the file's time comes from the kernel's clock,
	 * which may be a tick ahead of time(2)'s, a second ahead at a
	 * second's turn (a stamp just touched was once read as ahead) */
	if (stat(path.ptr, &st) < 0) {
		/* none yet, a new workspace's: nothing in it is old.  Made,
		 * its first pass is an interval away (a pass at every
		 * workspace's first recording was a process for nothing) */
		fresh = errno == ENOENT;
	} else if (st.st_mtime <= now + 60 &&
		   now - st.st_mtime <
			   (time_t)(p->interval_hours > 0 ? p->interval_hours : 1) * 3600) {
		goto out;
	}
	/* touched first: the recordings that see it due at the same time
	 * mostly find it fresh */
	fd = open(path.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		goto out;
	close(fd);
	due = !fresh;
out:
	callus_buf_release(&path);
	return due;
}

/* In a workspace without git, the copies in .callus/snapshots.git that no
 * snapshot kept reaches (snapshot.h); a sweep's work only, as it starts
 * the helper.  First the trees of the snapshots kept, into keep: 1 when
 * there are copies and the list is whole (a list cut short would leave
 * the rest of the copies to go).  A dry run's list is read in its
 * transaction (the snapshots its rules took are not in it, and their
 * copies are counted), and the helper's walk waits for the rollback:
 * the store's write lock is not held while it reads every object. */
static int kept_trees(callus_store *s, const char *workspace, callus_strlist *keep)
{
	callus_buf repo = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	struct stat sb;
	int sq = SQLITE_ERROR;

	if (callus_buf_printf(&repo, "%s/.callus/snapshots.git", workspace) < 0 ||
	    lstat(repo.ptr, &sb) < 0 || !S_ISDIR(sb.st_mode))
		goto out;
	if (sqlite3_prepare_v2(callus_store_db(s), "SELECT tree FROM snapshots WHERE kind = 'files'",
			       -1, &st, NULL) != SQLITE_OK)
		goto out;
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *tree = (const char *)sqlite3_column_text(st, 0);

		if (tree && callus_strlist_add(keep, tree, strlen(tree)) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
	}
out:
	sqlite3_finalize(st);
	callus_buf_release(&repo);
	return sq == SQLITE_DONE;
}

/* Best-effort: the copies stay until a sweep can. */
static void prune_copies(const char *workspace, const callus_strlist *keep, int dry_run,
			 callus_gc_result *res)
{
	callus_error err = CALLUS_ERROR_INIT;

	(void)callus_snapshot_prune(&res->snapshot_objects, workspace, keep, dry_run, NULL, &err);
	callus_error_release(&err);
}

static int limit_of(const callus_gc_policy *p)
{
	return p->batch ? (int)p->batch : -1;
}

/* Run sql (one statement, ?1 bound to text a when not NULL, ?2 to the
 * batch limit) in its own transaction; *count gets the rows changed. */
static int delete_in_tx(callus_store *s, const char *sql, const char *a, int limit, size_t *count)
{
	sqlite3_stmt *st = NULL;
	int sq, nested;

	if ((sq = callus_store_tx_begin(s, &nested)) != SQLITE_OK)
		return sq;
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL)) == SQLITE_OK) {
		if (a)
			callus_sql_bind_text(st, 1, a);
		sqlite3_bind_int(st, 2, limit);
		if ((sq = sqlite3_step(st)) == SQLITE_DONE) {
			*count += (size_t)sqlite3_changes(callus_store_db(s));
			sq = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	if (sq == SQLITE_OK)
		return callus_store_tx_end(s, nested, 1);
	callus_store_tx_end(s, nested, 0);
	return sq;
}

/* The runs older than before, p's batch of them, and the mark that says
 * so (callus_store_runs_seen's gone_before) in the same transaction: a crash leaves
 * both or neither.  Runs are numbered in time order: the old ones come
 * first.  A lesson kept whose error has a note keeps its newest run: its
 * errors are the only way from the lesson to their signatures, by which a
 * note's rule is its lessons' too (callus_notes_set_rule). */
static int delete_runs(callus_store *s, const char *before, const callus_gc_policy *p,
		       callus_gc_result *res)
{
	size_t n = 0;
	int sq, nested;

	if ((sq = callus_store_tx_begin(s, &nested)) != SQLITE_OK)
		return sq;
	sq = delete_in_tx(s,
			  "DELETE FROM runs WHERE id IN (SELECT r.id FROM runs r"
			  " WHERE r.at < ?1 AND NOT EXISTS (SELECT 1 FROM lesson_runs l"
			  "  WHERE l.run_id = r.id AND NOT EXISTS (SELECT 1 FROM"
			  "  lesson_runs n WHERE n.lesson_id = l.lesson_id"
			  "  AND n.run_id > l.run_id) AND EXISTS (SELECT 1 FROM run_errors e"
			  "  JOIN signatures g ON g.rowid = e.sig JOIN note_signatures x"
			  "  ON x.signature_id = g.id WHERE e.run_id = r.id))"
			  " ORDER BY r.id LIMIT ?2)",
			  before, limit_of(p), &n);
	/* only ever moved up: a pass replaying an older history (p->now)
	 * does not make runs it removed before look kept */
	if (sq == SQLITE_OK && n)
		sq = callus_store_state_raise(s, CALLUS_STORE_RUNS_GONE_KEY, before, 0);
	if (sq == SQLITE_OK)
		sq = callus_store_tx_end(s, nested, 1);
	else
		callus_store_tx_end(s, nested, 0);
	if (sq == SQLITE_OK)
		res->runs += n;
	return sq;
}

/* Whether .lessons/ is the workspace's own: not there, or (a symlink
 * chain leading to) a directory inside it.  A link out of it is followed
 * by no removal, as no recording writes through it (record.c): its
 * files, named as lessons' are, may be another workspace's.  Said in
 * the log (callus_gc asks once a pass) but by a dry run. */
static int lessons_dir_ours(const char *workspace, int dry_run)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf dir = CALLUS_BUF_INIT;
	int ours = callus_workspace_guard(NULL, workspace, ".lessons", 0, &err) == 0;

	/* a dry run writes nothing, the log included */
	if (!ours && !dry_run && callus_buf_printf(&dir, "%s/.callus", workspace) == 0)
		callus_log_event(dir.ptr, "warn", "gc_files_left", callus_error_message(&err),
				 NULL);
	callus_buf_release(&dir);
	callus_error_release(&err);
	return ours;
}

/* Remove a file of .lessons/ (a dry run counts it: there, it would go).
 * A folder of a page's name is no page, and unlink(2) leaves it: a dry
 * run that counted it said of every pass a removal none made. */
static void remove_file(const char *path, const callus_gc_policy *p, size_t *count)
{
	struct stat st;

	if (p->dry_run ? lstat(path, &st) == 0 && !S_ISDIR(st.st_mode) : unlink(path) == 0)
		(*count)++;
}

/* Remove the .lessons/ file of a lesson's signature. */
static void unlink_lesson_file(const char *workspace, const char *signature,
			       const callus_gc_policy *p, size_t *count)
{
	callus_buf path = CALLUS_BUF_INIT;

	if (signature && strlen(signature) >= CALLUS_LESSON_ID_LEN &&
	    callus_buf_printf(&path, "%s/.lessons/%.*s.md", workspace, CALLUS_LESSON_ID_LEN,
			      signature) == 0)
		remove_file(path.ptr, p, count);
	callus_buf_release(&path);
}

/*
 * Delete the lessons sql selects (id, signature; ?1 text a, ?2 the limit)
 * and their files, the files under the write lock, before the commit: a
 * recording writes its lesson's file after its own commit, so one that
 * makes a lesson again commits after this one and writes its file after
 * the removal (removed after this commit, by name, the file it wrote would
 * go).  A lesson a recording owes its file (a views debt names it: owed
 * before that recording's commit, paid once its file is written) is left
 * for a later pass, or its file, written after this removal, would stay
 * without its lesson.  A commit that fails puts the files back from the
 * store.  With
 * keep > 0 the limit is how many lessons are over keep, counted in the
 * transaction (a count taken before it would let two passes at once each
 * remove what is over, and leave fewer than keep), at most `limit` when
 * that is positive; and none while that count is not past lessons_max
 * (keep is under it by a recording's margin: hooks at once that each
 * found the count past it would each remove, down to the margin, what
 * came since the first one did).
 */
static int drop_lessons(callus_store *s, const char *workspace, int files_ours, const char *sql,
			const char *a, int limit, const callus_gc_policy *p, int64_t keep,
			callus_gc_result *res)
{
	sqlite3_stmt *st = NULL, *del = NULL;
	callus_strlist sigs = CALLUS_STRLIST_INIT, owed = CALLUS_STRLIST_INIT,
		       gone = CALLUS_STRLIST_INIT;
	size_t removed = 0, files = 0, want = (size_t)-1;
	int sq, nested;

	if ((sq = callus_store_tx_begin(s, &nested)) != SQLITE_OK)
		return sq;
	/* under the lock: every recording that committed a lesson and has
	 * not written its file yet owes it (a dead one's debt too: another
	 * process's repair may be writing the page, under the views' lock
	 * only) */
	if (callus_views_owed_signatures(workspace, &owed) < 0 ||
	    (p->dry_run && owed.count && callus_views_owed_gone(workspace, &gone) < 0)) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	/* a dry run, as callus gc's pass: the pages dead recordings owed
	 * are written (and their debts paid) before it (cmd_gc.c), so
	 * their lessons go by the policy, each with a page */
	for (size_t i = 0; i < gone.count; i++)
		for (size_t j = 0; j < owed.count; j++)
			if (owed.items[j][0] && !strcmp(owed.items[j], gone.items[i])) {
				owed.items[j][0] = '\0';
				break;
			}
	if (keep > 0) {
		callus_store_totals t;
		int64_t over;

		if (callus_store_totals_get(s, &t, NULL) < 0) {
			sq = SQLITE_ERROR;
			goto out;
		}
		over = t.lessons - keep;
		if (over <= 0 || t.lessons <= p->lessons_max)
			goto out; /* nothing over: committed empty */
		if (limit > 0 && over > limit)
			over = limit;
		want = (size_t)over;
		/* as many more as may be passed over for their debts */
		over += (int64_t)owed.count;
		limit = over > 0x7fffffff ? 0x7fffffff : (int)over;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), sql, -1, &st, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(callus_store_db(s), "DELETE FROM lessons WHERE id = ?1", -1,
				     &del, NULL)) != SQLITE_OK)
		goto out;
	if (a)
		callus_sql_bind_text(st, 1, a);
	sqlite3_bind_int(st, 2, limit);
	if (p->keep_lesson > 0)
		sqlite3_bind_int64(st, 3, p->keep_lesson);
	while (removed < want && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *sig = (const char *)sqlite3_column_text(st, 1);

		if (sig && callus_strlist_contains(&owed, sig, strlen(sig)))
			continue;
		if (sig && callus_strlist_add(&sigs, sig, strlen(sig)) < 0) {
			sq = SQLITE_NOMEM;
			goto out;
		}
		sqlite3_reset(del);
		sqlite3_bind_int64(del, 1, sqlite3_column_int64(st, 0));
		if ((sq = sqlite3_step(del)) != SQLITE_DONE)
			goto out;
		removed++;
	}
	if (sq == SQLITE_DONE || sq == SQLITE_ROW)
		sq = SQLITE_OK;
out:
	sqlite3_finalize(st);
	sqlite3_finalize(del);
	if (sq == SQLITE_OK) {
		if (files_ours)
			for (size_t i = 0; i < sigs.count; i++) {
				size_t before = files;

				unlink_lesson_file(workspace, sigs.items[i], p, &files);
				/* its page, written first by the real pass */
				if (files == before &&
				    callus_strlist_contains(&gone, sigs.items[i],
							    strlen(sigs.items[i])))
					files++;
			}
		if ((sq = callus_store_tx_end(s, nested, 1)) != SQLITE_OK && !p->dry_run)
			/* the files back from the store (best effort: callus
			 * doctor --fix writes any still missing) */
			for (size_t i = 0; i < sigs.count; i++)
				(void)callus_views_lesson_file(s, workspace, sigs.items[i], NULL);
	} else {
		callus_store_tx_end(s, nested, 0);
	}
	if (sq == SQLITE_OK) {
		res->lessons += removed;
		res->lesson_files += files;
	}
	callus_strlist_release(&sigs);
	callus_strlist_release(&owed);
	callus_strlist_release(&gone);
	return sq;
}

/* What no lesson rule removes: the lesson the recording that runs the pass
 * has just told of (?3: its reply names it by number), and the newest
 * lesson (the highest id), whatever its age: SQLite numbers a new row one
 * past the highest, so a removed highest number would be given to the
 * next new lesson, and a reply or a transcript that named the old one
 * would name another.  Both count within `lessons`: the least valuable of
 * the others go. */
#define LESSON_REMOVABLE " AND id < (SELECT max(id) FROM lessons) AND id IS NOT ?3"

/* The count's rule: the least valuable first (store_internal.h). */
#define LESSONS_BY_VALUE                                                                     \
	"SELECT id, signature FROM lessons WHERE 1" LESSON_REMOVABLE                         \
	CALLUS_STORE_LESSONS_BY_VALUE " LIMIT ?2"

static int gc_lessons(callus_store *s, const char *workspace, int files_ours,
		      const callus_gc_policy *p, callus_gc_result *res)
{
	int sq = SQLITE_OK;

	/* age removes what a machine wrote, which the next failure writes
	 * again; a person's words are no recording's to make again, so such a
	 * lesson goes only by the count, and after every other */
	if (p->lesson_days > 0) {
		char *before = callus_sql_time_before(p->now, (int64_t)p->lesson_days * 86400);

		if (!before)
			return SQLITE_NOMEM;
		sq = drop_lessons(s, workspace, files_ours,
				  "SELECT id, signature FROM lessons WHERE last_seen < ?1"
				  " AND NOT " CALLUS_STORE_LESSON_HAS_WORDS
				  LESSON_REMOVABLE " ORDER BY last_seen LIMIT ?2",
				  before, limit_of(p), p, 0, res);
		free(before);
	}
	/* the two rules share one batch: a background pass in a hook removes
	 * at most that many lessons (and their files), not twice as many */
	if (sq == SQLITE_OK && p->lessons_max > 0 && (!p->batch || res->lessons < p->batch)) {
		size_t left = p->batch ? p->batch - res->lessons : 0;

		sq = drop_lessons(s, workspace, files_ours, LESSONS_BY_VALUE, NULL,
				  left > 0x7fffffff ? 0x7fffffff : (int)left, p, p->lessons_max, res);
	}
	return sq;
}

int callus_gc_lessons_past(callus_store *s, const callus_gc_policy *p)
{
	/* one integer the triggers keep (a store that cannot say: not past) */
	return p->lessons_max > 0 &&
	       callus_store_query_int(s, "SELECT lessons FROM totals") > p->lessons_max;
}

int callus_gc_lessons_over(callus_store *s, const char *workspace, const callus_gc_policy *p,
			   int margin, callus_gc_result *res, callus_error *err)
{
	callus_gc_result own;
	int sq;

	if (!res)
		res = &own;
	memset(res, 0, sizeof(*res));
	/* what is over is counted again in the removal's transaction */
	if (p->lessons_max <= 0 || p->dry_run)
		return 0;
	/* at least one lesson kept: a keep of 0 would be no count at all */
	if (margin < 0 || margin >= p->lessons_max)
		margin = 0;
	sq = drop_lessons(s, workspace, lessons_dir_ours(workspace, 0), LESSONS_BY_VALUE, NULL,
			  p->batch > 0x7fffffff ? 0x7fffffff : (int)p->batch, p,
			  p->lessons_max - margin, res);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot remove lessons from");
}

/* What a signature may be removed for: unseen since ?1, and needed by
 * nothing that stays (gc.h).  Each test is a lookup in an index: notes
 * have none by signature, so theirs are read once into the statement's
 * own (NOT IN a list, not a correlated scan for each signature; the
 * column is NOT NULL, so NOT IN is exact), and the links' OR is two
 * lookups.  The newest signature (the
 * highest rowid) stays whatever its age: SQLite numbers a new row one past
 * the highest, so a removed highest number would be given to the next new
 * signature, and what still names the old one by number (a vector file's
 * record until the file is written again, a kept run's errors) would name
 * the new one: its suggestions, its links, its lessons' rules. */
#define SIGNATURE_UNNEEDED                                                                   \
	" FROM signatures g WHERE g.last_seen < unixepoch(?1)"                                \
	" AND g.rowid < (SELECT max(rowid) FROM signatures)"                                  \
	" AND NOT EXISTS (SELECT 1 FROM resolutions r WHERE r.signature_id = g.id)"           \
	" AND g.id NOT IN (SELECT n.signature_id FROM notes n)"                               \
	" AND NOT EXISTS (SELECT 1 FROM note_cache c WHERE c.signature_id = g.id)"            \
	" AND NOT EXISTS (SELECT 1 FROM note_signatures ns WHERE ns.signature_id = g.id)"     \
	" AND NOT EXISTS (SELECT 1 FROM pending_errors pe WHERE pe.sig = g.rowid)"            \
	" AND NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id)"           \
	" AND NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.canonical_id = g.id)"

static int gc_signatures(callus_store *s, const callus_gc_policy *p, callus_gc_result *res)
{
	sqlite3_stmt *st = NULL, *del = NULL;
	char *before;
	int sq, nested;

	if (p->signature_days <= 0)
		return SQLITE_OK;
	if (!(before = callus_sql_time_before(p->now, (int64_t)p->signature_days * 86400)))
		return SQLITE_NOMEM;
	if ((sq = callus_store_tx_begin(s, &nested)) != SQLITE_OK) {
		free(before);
		return sq;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s),
				     "SELECT " CALLUS_MATCH_SIGNATURE_COLUMNS_G ", EXISTS (SELECT 1"
				     " FROM signature_vectors v WHERE v.sig = g.rowid AND"
				     " v.model = " CALLUS_MATCH_BUILTIN_ID ")" SIGNATURE_UNNEEDED
				     " LIMIT ?2",
				     -1, &st, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(callus_store_db(s), "DELETE FROM signatures WHERE id = ?1", -1,
				     &del, NULL)) != SQLITE_OK)
		goto out;
	callus_sql_bind_text(st, 1, before);
	sqlite3_bind_int(st, 2, limit_of(p));
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		callus_signature g;

		if ((sq = callus_match_read_signature(st, 0, &g)) != SQLITE_OK)
			goto out;
		/* its features' document frequencies go down with it, so
		 * that the IDF weighs what the store holds */
		if (sqlite3_column_int(st, 7))
			sq = callus_match_df_count(s, &g, -1);
		if (sq == SQLITE_OK) {
			sqlite3_reset(del);
			callus_sql_bind_text(del, 1, g.id);
			sq = sqlite3_step(del) == SQLITE_DONE ? SQLITE_OK
							      : sqlite3_errcode(callus_store_db(s));
		}
		callus_signature_release(&g);
		if (sq != SQLITE_OK)
			goto out;
		res->signatures++;
	}
	/* the counts taken off, with what recordings added, into the
	 * buckets */
	if (sq == SQLITE_DONE)
		sq = callus_match_fold_df(s);
	/* the contexts no signature names any more (a few rows; one pass
	 * over the signatures) */
	if (sq == SQLITE_OK && res->signatures)
		sq = sqlite3_exec(callus_store_db(s),
				  "DELETE FROM contexts WHERE ctx NOT IN (SELECT ctx FROM signatures)",
				  NULL, NULL, NULL);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(del);
	free(before);
	if (sq == SQLITE_OK)
		return callus_store_tx_end(s, nested, 1);
	callus_store_tx_end(s, nested, 0);
	return sq;
}

/* callus_match_other_models's callback: the models' ids into a list. */
static int add_model(void *arg, const char *model, int64_t n)
{
	(void)n;
	return callus_strlist_add(arg, model, strlen(model)) < 0 ? CALLUS_ENOMEM : 0;
}

/* The sync_state key of when a callus process last had model set up. */
static int named_key(callus_buf *key, const char *model)
{
	callus_buf_clear(key);
	return callus_buf_printf(key, "embed.named_at %s", model);
}

int callus_gc_model_named_at(callus_store *s, const char *model, char **out, callus_error *err)
{
	callus_buf key = CALLUS_BUF_INIT;
	int rc;

	*out = NULL;
	rc = named_key(&key, model) < 0 ? callus_error_set(err, CALLUS_ENOMEM, "out of memory")
					: callus_store_state_get(s, key.ptr, out, err);

	callus_buf_release(&key);
	return rc;
}

/* The time kept is now's, unless it is of the last day: a write a day at
 * most. */
int callus_gc_model_named(callus_store *s, const char *model, const char *now, callus_error *err)
{
	callus_buf key = CALLUS_BUF_INIT;
	char *t = callus_sql_time_before(now, 0), *day = callus_sql_time_before(now, 86400);
	char *was = NULL;
	int rc;

	if (!t || !day || named_key(&key, model) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = callus_store_state_get(s, key.ptr, &was, err)) == 0 &&
	    (!was || strcmp(was, day) < 0))
		rc = callus_store_state_set(s, key.ptr, t, err);
out:
	free(was);
	free(t);
	free(day);
	callus_buf_release(&key);
	return rc;
}

/*
 * The vectors of the external models the workspace is no longer set up
 * with (p->embed_model names the one it is; none when the caller does not
 * know: p->embed_known), once no callus process has had the model set up
 * for model_days: each pass (and each callus reindex) that has it set up
 * says so in the store (callus_gc_model_named), and a model set up only in
 * some processes' environment (CALLUS_EMBED_URL) stays while those run.  A
 * model no pass has seen named yet (a store an older callus made) gets its
 * days from this pass on.  Its file goes first, since no search reads it
 * and a batch at a time would rewrite it for each; a crash after it leaves
 * rows the next pass takes.  A model whose vectors all went leaves
 * vector_models, and its time the store.
 */
static int gc_models(callus_store *s, const char *workspace, const callus_gc_policy *p,
		     callus_gc_result *res)
{
	sqlite3_stmt *del = NULL, *drop = NULL;
	callus_strlist names = CALLUS_STRLIST_INIT;
	callus_buf key = CALLUS_BUF_INIT;
	char *before = NULL;
	int sq, nested;

	if (!p->embed_known || p->model_days <= 0)
		return SQLITE_OK;
	if (!(before = callus_sql_time_before(p->now, (int64_t)p->model_days * 86400)))
		return SQLITE_NOMEM;
	if ((sq = callus_store_tx_begin(s, &nested)) != SQLITE_OK) {
		free(before);
		return sq;
	}
	/* the models read first: the rows below change their counts */
	if ((p->embed_model && callus_gc_model_named(s, p->embed_model, p->now, NULL) < 0) ||
	    callus_match_other_models(s, p->embed_model, add_model, &names, NULL) < 0) {
		sq = SQLITE_IOERR;
		goto out;
	}
	if (!names.count)
		goto out;
	if ((sq = sqlite3_prepare_v2(callus_store_db(s),
				     "DELETE FROM signature_vectors WHERE (model, sig) IN"
				     " (SELECT v.model, v.sig FROM vector_models m JOIN"
				     " signature_vectors v ON v.model = m.id WHERE m.name = ?1 LIMIT ?2)",
				     -1, &del, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(callus_store_db(s),
				     "DELETE FROM vector_models WHERE name = ?1 AND n = 0", -1, &drop,
				     NULL)) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < names.count && (!p->batch || res->model_vectors < p->batch); i++) {
		char *named = NULL;
		int seen, stale, dropped;

		if (callus_gc_model_named_at(s, names.items[i], &named, NULL) < 0) {
			sq = SQLITE_IOERR;
			goto out;
		}
		seen = named != NULL;
		stale = seen && strcmp(named, before) < 0;
		free(named);
		/* never seen named: its days start now */
		if (!seen && callus_gc_model_named(s, names.items[i], p->now, NULL) < 0) {
			sq = SQLITE_IOERR;
			goto out;
		}
		if (!stale)
			continue;
		if (!p->dry_run) {
			char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
			callus_buf path = CALLUS_BUF_INIT;

			if (callus_match_vector_name(name, names.items[i]) == 0 &&
			    callus_match_vector_path(&path, workspace, name) == 0)
				(void)callus_vecindex_remove(path.ptr);
			callus_buf_release(&path);
		}
		sqlite3_reset(del);
		callus_sql_bind_text(del, 1, names.items[i]);
		sqlite3_bind_int(del, 2, p->batch ? (int)(p->batch - res->model_vectors) : -1);
		if ((sq = sqlite3_step(del)) != SQLITE_DONE)
			goto out;
		res->model_vectors += (size_t)sqlite3_changes(callus_store_db(s));
		sqlite3_reset(drop);
		callus_sql_bind_text(drop, 1, names.items[i]);
		if ((sq = sqlite3_step(drop)) != SQLITE_DONE)
			goto out;
		dropped = sqlite3_changes(callus_store_db(s)) > 0;
		res->models += (size_t)dropped;
		if (dropped && (named_key(&key, names.items[i]) < 0 ||
				callus_store_state_set(s, key.ptr, NULL, NULL) < 0)) {
			sq = SQLITE_IOERR;
			goto out;
		}
	}
	sq = SQLITE_OK;
out:
	if (sq == SQLITE_DONE)
		sq = SQLITE_OK;
	sqlite3_finalize(del);
	sqlite3_finalize(drop);
	callus_strlist_release(&names);
	callus_buf_release(&key);
	free(before);
	if (sq == SQLITE_OK)
		return callus_store_tx_end(s, nested, 1);
	callus_store_tx_end(s, nested, 0);
	return sq;
}

/*
 * The same for the external models' files that are there (a model no
 * longer set up keeps its vectors in the store, and gets no file made
 * for it): a removed signature's vectors go with it, its records stay.
 */
static int rewrite_external(callus_store *s, const char *workspace, const callus_gc_policy *p,
			    callus_error *err)
{
	callus_strlist models = CALLUS_STRLIST_INIT;
	int rc = callus_match_other_models(s, NULL, add_model, &models, err);

	for (size_t i = 0; rc >= 0 && i < models.count; i++) {
		char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
		callus_buf path = CALLUS_BUF_INIT, sql = CALLUS_BUF_INIT;
		callus_match_vfile f;
		int64_t stored;

		rc = callus_match_external_vfile(s, workspace, models.items[i], &f, &path, &sql, name,
						 &stored, err);
		if (rc == 0 && access(f.path, F_OK) == 0)
			rc = callus_match_vfile_sync(s, &f,
						     callus_vecindex_file_count(f.path, f.name, f.dim),
						     stored, p->sweep ? 0 : (size_t)stored / 10, err);
		callus_buf_release(&path);
		callus_buf_release(&sql);
	}
	callus_strlist_release(&models);
	return rc < 0 ? rc : 0;
}

/*
 * The vector file again from the stored vectors, when it is behind the
 * store (removed, damaged) or when the removed signatures are more than a
 * tenth of it (or always, sweeping): a removed signature's record finds
 * nothing, but could take the place of a live one among the best k.
 */
static int rewrite_vectors(callus_store *s, const char *workspace, const callus_gc_policy *p,
			   callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;
	int64_t stored = callus_match_builtin_count(s);
	size_t infile;
	int rc;

	if (stored < 0)
		return 0; /* nothing to compare with: the next gc */
	if (callus_match_builtin_vector_path(&path, workspace) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* a cut reindex's file is written again whatever its count */
	(void)callus_match_reindex_mend(s, path.ptr, 0, NULL);
	callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, NULL);
	infile = callus_vecindex_count(vi);
	callus_vecindex_close(vi);
	rc = callus_match_file_sync(s, path.ptr, infile, stored, p->sweep ? 0 : (size_t)stored / 10,
				    CALLUS_MATCH_BUILTIN_VECTORS, err);
	callus_buf_release(&path);
	if (rc >= 0)
		rc = rewrite_external(s, workspace, p, err);
	return rc < 0 ? rc : 0;
}

/* The vector files' rewrites a process cut left in .callus (vecindex.h). */
static void sweep_temp_files(const char *workspace, int dry_run, callus_gc_result *res)
{
	callus_buf dir = CALLUS_BUF_INIT;

	if (callus_buf_printf(&dir, "%s/.callus", workspace) == 0)
		res->temp_files +=
			callus_vecindex_remove_stale_temps(dir.ptr, CALLUS_VECINDEX_TEMP_STALE_S,
							   dry_run);
	callus_buf_release(&dir);
}

/* The log held to its two files' worth (log.h). */
static void trim_log(const char *workspace)
{
	callus_buf dir = CALLUS_BUF_INIT;

	if (callus_buf_printf(&dir, "%s/.callus", workspace) == 0)
		callus_log_trim(dir.ptr);
	callus_buf_release(&dir);
}

/* .lessons/ files of no lesson (a removal cut short, a store replaced). */
static int sweep_lesson_files(callus_store *s, const char *workspace, int files_ours,
			      const callus_gc_policy *p, callus_gc_result *res)
{
	callus_buf dir = CALLUS_BUF_INIT, id = CALLUS_BUF_INIT;
	callus_strlist owed = CALLUS_STRLIST_INIT;
	sqlite3_stmt *st = NULL;
	struct dirent *e;
	DIR *d = NULL;
	int sq = SQLITE_OK, began = 0, nested = 0;

	if (callus_buf_printf(&dir, "%s/.lessons", workspace) < 0)
		return SQLITE_NOMEM;
	if (!files_ours)
		goto out;
	/* Under the write lock, as drop_lessons: a recording commits its
	 * lesson, then writes its file, owing it in between.  Looked up
	 * and removed outside the lock, a file a recording had just made
	 * (its lesson committed between the look and the removal) went. */
	if ((sq = callus_store_tx_begin(s, &nested)) != SQLITE_OK)
		goto out;
	began = 1;
	if (callus_views_owed_signatures(workspace, &owed) < 0) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	/* lesson files are named by the first hex digits of the signature:
	 * a range of the unique index */
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT 1 FROM lessons WHERE signature >= ?1 AND signature < ?1 || 'g'"
				" LIMIT 1",
				-1, &st, NULL);
	if (sq != SQLITE_OK || !(d = opendir(dir.ptr)))
		goto out;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len != CALLUS_LESSON_ID_LEN + 3 || strcmp(e->d_name + CALLUS_LESSON_ID_LEN, ".md") ||
		    strspn(e->d_name, "0123456789abcdef") != CALLUS_LESSON_ID_LEN ||
		    callus_views_owes_file(&owed, e->d_name))
			continue;
		callus_buf_clear(&id);
		callus_buf_put(&id, e->d_name, CALLUS_LESSON_ID_LEN);
		if (callus_buf_status(&id) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
		sqlite3_reset(st);
		callus_sql_bind_text(st, 1, id.ptr);
		if ((sq = sqlite3_step(st)) == SQLITE_DONE) {
			callus_buf path = CALLUS_BUF_INIT;

			if (callus_buf_printf(&path, "%s/%s", dir.ptr, e->d_name) == 0)
				remove_file(path.ptr, p, &res->lesson_files);
			callus_buf_release(&path);
		} else if (sq != SQLITE_ROW) {
			break;
		}
		sq = SQLITE_OK;
	}
out:
	if (d)
		closedir(d);
	sqlite3_finalize(st);
	/* nothing written: let go whichever way */
	if (began)
		callus_store_tx_end(s, nested, 1);
	callus_strlist_release(&owed);
	callus_buf_release(&dir);
	callus_buf_release(&id);
	return sq;
}

/* VACUUM (not in a transaction) when a quarter of the pages are free, or
 * when the pass that redacted a store whole owes one (store_redact.h). */
static int maybe_vacuum(callus_store *s, callus_gc_result *res, int force)
{
	int64_t pages = callus_store_query_int(s, "PRAGMA page_count");
	int64_t free_pages = callus_store_query_int(s, "PRAGMA freelist_count");
	int sq;

	if (!force && (pages <= 0 || free_pages < 0 || free_pages * 4 < pages))
		return SQLITE_OK;
	if ((sq = sqlite3_exec(callus_store_db(s), "VACUUM", NULL, NULL, NULL)) == SQLITE_OK)
		res->vacuumed = 1;
	return sq;
}

/* One mark read when the store is redacted whole already, as it is but
 * for a pass or a few after an upgrade. */
static int redact_again(callus_store *s, const char *workspace, const callus_gc_policy *p,
			callus_gc_result *res, size_t *merged, callus_error *err)
{
	callus_store_redact_result rr;
	int rc;

	*merged = 0;
	if ((rc = callus_store_redact_due(s, err)) <= 0)
		return rc;
	rc = callus_store_redact(s, workspace, p->redactor, p->batch ? CALLUS_GC_REDACT_BUDGET : 0,
				 &rr, err);
	res->redacted = rr.changed;
	res->redacted_lessons = rr.lessons;
	res->redacted_log = rr.log;
	*merged = rr.merged;
	res->redaction_due = !rr.done;
	return rc;
}

/* dry_keep: a dry run's (NULL else), the trees its pass keeps, for the
 * copies' count after the rollback; *dry_prune set when it is owed */
static int gc_pass(callus_store *s, const char *workspace, const callus_gc_policy *p,
		   callus_gc_result *res, callus_strlist *dry_keep, int *dry_prune,
		   callus_error *err)
{
	callus_strlist keep = CALLUS_STRLIST_INIT;
	char *before = NULL;
	size_t merged = 0;
	int rc = 0, sq = SQLITE_OK, vacuum_owed = 0, files_ours;
	const char *what = "cannot remove old lessons from";

	if (p->prune_hours > 0 &&
	    (rc = callus_learn_prune(s, p->prune_hours, p->now, p->batch, &res->pending,
				     &res->snapshots, err)) < 0)
		return rc;
	/* asked once a pass, and said once in the log */
	files_ours = lessons_dir_ours(workspace, p->dry_run);
	/* The files of no lesson first, then the lessons the rules take with
	 * theirs: each file counted once, by a dry run too (swept after the
	 * removals, a dry run's would count the taken lessons' files again) */
	if (p->sweep) {
		what = "cannot sweep the lesson files of";
		if ((sq = sweep_lesson_files(s, workspace, files_ours, p, res)) != SQLITE_OK)
			goto fail;
		what = "cannot remove old lessons from";
	}
	if ((sq = gc_lessons(s, workspace, files_ours, p, res)) != SQLITE_OK)
		goto fail;
	if (p->run_days > 0) {
		what = "cannot remove old runs from";
		if (!(before = callus_sql_time_before(p->now, (int64_t)p->run_days * 86400))) {
			sq = SQLITE_NOMEM;
			goto fail;
		}
		if ((sq = delete_runs(s, before, p, res)) != SQLITE_OK ||
		    (sq = delete_in_tx(s,
				       "DELETE FROM pending_errors WHERE id IN (SELECT id FROM"
				       " pending_errors WHERE state = 'fixed' AND last_failure_at < ?1"
				       " AND resolution_id IS NULL LIMIT ?2)",
				       before, limit_of(p), &res->unresolved)) != SQLITE_OK)
			goto fail;
		/* a check is its runs' counter and its errors' anchor: with
		 * neither left it is a row a failure makes again.  Its pass
		 * then writes nothing, as a pass of a check never seen */
		what = "cannot remove idle checks from";
		if ((sq = delete_in_tx(s,
				       "DELETE FROM checks WHERE id IN (SELECT id FROM checks c"
				       " WHERE c.last_run_at < ?1 AND NOT EXISTS (SELECT 1 FROM"
				       " pending_errors p WHERE p.check_id = c.id) ORDER BY id LIMIT ?2)",
				       before, limit_of(p), &res->checks)) != SQLITE_OK)
			goto fail;
	}
	what = "cannot remove old signatures from";
	if ((sq = gc_signatures(s, p, res)) != SQLITE_OK)
		goto fail;
	what = "cannot remove the vectors of models no longer set up from";
	if ((sq = gc_models(s, workspace, p, res)) != SQLITE_OK)
		goto fail;
	/* the batch counts those the prune took with its errors */
	if ((!p->batch || res->snapshots < p->batch) &&
	    (sq = delete_in_tx(s, CALLUS_LEARN_ORPHAN_SNAPSHOTS_SQL, NULL,
			       p->batch ? (int)(p->batch - res->snapshots) : -1, &res->snapshots)) !=
		    SQLITE_OK)
		goto fail;
	/* a dry run rewrites nothing: what the rules remove, and the files a
	 * sweep would, are all it says */
	if (p->dry_run) {
		res->redaction_due = p->redactor && callus_store_redact_due(s, NULL) > 0;
		if (p->sweep) {
			*dry_prune = kept_trees(s, workspace, dry_keep);
			sweep_temp_files(workspace, 1, res);
		}
		goto out;
	}
	/* after what went: nothing is redacted that is removed */
	if (p->redactor)
		rc = redact_again(s, workspace, p, res, &merged, err);
	/* a signature merged into another left its record too; the records
	 * of those removed are rewritten whatever became of the pass */
	if ((res->signatures || merged || p->sweep) &&
	    rewrite_vectors(s, workspace, p, rc < 0 ? NULL : err) < 0 && rc == 0)
		rc = err && err->code ? err->code : CALLUS_EIO;
	if (rc < 0)
		goto out;
	if (p->sweep) {
		if (kept_trees(s, workspace, &keep))
			prune_copies(workspace, &keep, 0, res);
		sweep_temp_files(workspace, 0, res);
		trim_log(workspace);
		what = "cannot vacuum";
		vacuum_owed = callus_store_redact_vacuum_owed(s);
		if ((sq = maybe_vacuum(s, res, vacuum_owed)) != SQLITE_OK)
			goto fail;
		if (vacuum_owed)
			callus_store_redact_vacuum_paid(s);
	}
	goto out;
fail:
	rc = callus_store_db_error(s, err, sq, what);
out:
	/* checks whose errors went are still listed as needing their next
	 * pass: the list written again, or each such pass opens the store to
	 * find nothing (checkindex.h).  Best-effort: a list this cannot
	 * write is removed, and a stale one only costs those passes */
	if (rc == 0 && !p->dry_run && (res->pending || res->unresolved || res->checks))
		(void)callus_checkindex_rewrite(s, NULL);
	/* what was removed went through the WAL: emptied now, or every later
	 * process reads it whole at open (busy: the next pass) */
	if (!p->dry_run &&
	    (res->lessons || res->runs || res->checks || res->signatures || res->unresolved ||
	     res->pending || res->snapshots || res->redacted || res->vacuumed ||
	     res->model_vectors) &&
	    sqlite3_wal_checkpoint_v2(callus_store_db(s), NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL,
				      NULL) != SQLITE_OK)
		res->wal_left = 1;
	callus_strlist_release(&keep);
	free(before);
	return rc;
}

int callus_gc(callus_store *s, const char *workspace, const callus_gc_policy *p,
	      callus_gc_result *res, callus_error *err)
{
	callus_strlist keep = CALLUS_STRLIST_INIT;
	callus_gc_result own;
	int rc, prune = 0;

	if (!res)
		res = &own;
	memset(res, 0, sizeof(*res));
	if (!p->dry_run)
		return gc_pass(s, workspace, p, res, NULL, NULL, err);
	/* the whole pass in one transaction, each step a savepoint of it
	 * (callus_store_tx_begin), rolled back: the counts are what the
	 * removals would be, each rule seeing what the ones before took */
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		return rc;
	rc = gc_pass(s, workspace, p, res, &keep, &prune, err);
	sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
	if (rc == 0 && prune)
		prune_copies(workspace, &keep, 1, res);
	callus_strlist_release(&keep);
	return rc;
}
