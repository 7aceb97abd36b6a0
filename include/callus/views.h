/*
 * views.h - the files derived from the store, kept whole across crashes.
 *
 * The store is the truth; `.lessons/ID.md`, `.callus/notes/ID.md` and the
 * managed block of AGENTS.md are views of it, written after each recording
 * commits.  A process killed between the commit and the last view leaves
 * them missing or stale, and a temporary file behind (fsutil.h's
 * `.NAME.callus-PID-...tmp`).  So a recording first leaves a debt in
 * `.callus/owed/` naming what it will write, and pays it once the views
 * are written (its file kept as `.callus/owed/.spare`, which the next debt
 * takes: no inode made and freed a recording).  A debt whose process is gone is a crash: the next
 * recording, or `callus doctor --fix`, rewrites what it names from the store
 * and removes the dead processes' temporary files.  When there is no stale
 * debt, which is always but after a crash, the check costs one opendir(3).
 */
#ifndef CALLUS_VIEWS_H
#define CALLUS_VIEWS_H

#include <stddef.h>

#include "callus/common.h"
#include "callus/store.h"
#include "callus/strlist.h"

typedef struct callus_views_debt callus_views_debt;

/*
 * Promise to write the views of a recording in workspace: the lesson file
 * of signature (NULL: a fix, which writes notes and the block only).  Best
 * effort: *out is NULL when the debt could not be written (a recording is
 * never stopped by its bookkeeping).  Settle it with callus_views_settle().
 */
void callus_views_owe(callus_views_debt **out, const char *workspace, const char *signature);

/* Free d (accepts NULL), and when the views are written, pay the debt (its
 * file becomes the spare);
 * a debt left (the views failed) is for the next run to repair. */
void callus_views_settle(callus_views_debt *d, int written);

/*
 * The lesson signatures every debt in workspace names, stale or not, into
 * sigs (appended; the caller releases it): the lessons whose files a
 * recording is about to write, or a crashed one left to write.  Read under
 * the store's write lock, it names every recording that has committed a
 * lesson and not yet written its file, since a debt is owed before the
 * commit (callus gc keeps those lessons); a debt of no lesson adds
 * "views".  0, or CALLUS_ENOMEM; a folder
 * that cannot be read names none.
 */
int callus_views_owed_signatures(const char *workspace, callus_strlist *sigs);

/* The lesson signatures the debts of processes now gone name, into sigs
 * (appended): the pages `callus gc` writes before its pass
 * (CALLUS_VIEWS_NAMED), which its dry run, paying none, counts as paid.
 * 0, or CALLUS_ENOMEM. */
int callus_views_owed_gone(const char *workspace, callus_strlist *sigs);

/* Whether name, a .lessons/ file's (its lesson's first hex digits), is
 * that of a signature of owed (callus_views_owed_signatures()). */
int callus_views_owes_file(const callus_strlist *owed, const char *name);

/*
 * Take the lock the views of workspace are written under
 * (.callus/agents.lock: the lesson files and the block of AGENTS.md),
 * waiting up to CALLUS_AGENTS_LOCK_TIMEOUT_MS (lessonmd.h): the store is read under it,
 * so that of two writers the last writes what the store holds last (read
 * before it, a writer another passed would write an older lesson).  0 with
 * *fd held (release with callus_fs_unlock), or a negative CALLUS_E* code
 * with err set (CALLUS_EBUSY past the wait).
 */
int callus_views_lock(const char *workspace, int *fd, callus_error *err);

/* Write the .lessons/ file of the lesson with signature sig as the store
 * has it now, under the views' lock (callus_views_lock; _held: the caller
 * holds it) (guarded: never through a .lessons/ leading out of
 * workspace): 1 when written, 0 when the store has no such lesson, or a
 * negative CALLUS_E* code with err set. */
int callus_views_lesson_file_held(callus_store *store, const char *workspace, const char *sig,
				  callus_error *err);
int callus_views_lesson_file(callus_store *store, const char *workspace, const char *sig,
			     callus_error *err);

/* The file of the workspace the instructions file (agents_file, relative;
 * NULL: AGENTS.md) links to, relative to the workspace, or NULL (not a
 * link, one leading out, to nothing yet, or no memory): callus writes the
 * block there, by rename from a temporary file beside it.  real is the
 * workspace's realpath (NULL: made here).  Caller frees. */
char *callus_views_agents_target(const char *workspace, const char *real, const char *agents_file);

/* Whether a process that is gone left views to repair in workspace (a
 * stale debt, which callus_views_repair() pays): 1 or 0 (1 also when it
 * cannot tell).  One opendir(3) when there is none. */
int callus_views_owed(const char *workspace);

/* What callus_views_repair() found and did. */
typedef struct callus_views_report {
	size_t debts;         /* debts of processes that are gone */
	size_t lessons;       /* lessons checked (CALLUS_VIEWS_FULL: all) */
	size_t missing;       /* of them, without their .lessons/ file */
	size_t stale;         /* of them, with a file that is not what the
			       * store makes of the lesson now (a recording
			       * that crashed after its commit left its
			       * lesson's former self) */
	size_t written;       /* lesson files rewritten (missing or stale) */
	size_t orphans;       /* CALLUS_VIEWS_FULL: .lessons/ files no lesson
			       * has nor a recording owes (callus gc removes
			       * them) */
	size_t temp_files;    /* temporary files of processes that are gone */
	size_t removed;       /* of them, removed */
	int block_stale;      /* the instructions block is not what the store says */
	int block_written;    /* ... and was rewritten */
	int lessons_elsewhere; /* .lessons leads out of the workspace: no
			       * lesson's file is checked, counted or
			       * written (none is written through it: the
			       * user's setting, no crash's), and the debts
			       * naming lessons are paid */
	int agents_elsewhere; /* the instructions file leads out of the
			       * workspace: its block is not checked nor
			       * written, for the same reason */
} callus_views_report;

/* callus_views_repair() flags */
enum {
	/* check every lesson's file and the instructions block, not only
	 * what stale debts name (callus doctor) */
	CALLUS_VIEWS_FULL = 1 << 0,
	/* repair what is found (without it: count only; debts stay) */
	CALLUS_VIEWS_FIX = 1 << 1,
	/* only the lessons' files stale debts name, those debts alone
	 * paid: callus gc's first step, before a pass that keeps every
	 * lesson a debt names; a debt of no lesson (a gc's: every lesson
	 * looked at), the block and the temporary files are left to a
	 * call without it, after the pass */
	CALLUS_VIEWS_NAMED = 1 << 2
};

/*
 * Find (and with CALLUS_VIEWS_FIX repair) views that crashed processes left
 * missing, stale or half-written.  agents_file and agents_max are the
 * workspace's [lessons] file and max (callus_record_views()).  rep may be
 * NULL.  0, or a negative code with err set when the store cannot be read
 * or a view cannot be written.
 */
int callus_views_repair(callus_store *store, const char *workspace, const char *agents_file,
			int agents_max, unsigned flags, callus_views_report *rep,
			callus_error *err);

#endif
