/*
 * snapshot.h - the working tree as it was when a check failed, and the
 * diff from it to the working tree now (DESIGN §4).
 *
 * The git work is done by a helper program, callus-git (helper/callus-git.c),
 * run as a child process: libgit2 and the libraries it loads (TLS, SSH,
 * Kerberos) would otherwise be mapped and relocated at every start of
 * callus, and the hook runs after every shell command an agent executes.
 * The helper is only started when a snapshot or a diff is needed.
 *
 * In a git workspace a snapshot is a tree object of the working tree as it
 * is: tracked files with their changes, and untracked files that are not
 * ignored (untracked files larger than CALLUS_SNAPSHOT_FILE_MAX are left
 * out).  It is built from an in-memory copy of the index; the user's
 * index, HEAD, branches, stash and files are never written.  The blobs and
 * trees go to the repository's object database, like `git stash create`.
 *
 * Elsewhere a snapshot is a tree of copies of the named files (at most
 * CALLUS_SNAPSHOT_FILES_MAX files of at most CALLUS_SNAPSHOT_FILE_MAX bytes),
 * kept in a private repository, <workspace>/.callus/snapshots.git.
 */
#ifndef CALLUS_SNAPSHOT_H
#define CALLUS_SNAPSHOT_H

#include <stddef.h>

#include "callus/common.h"
#include "callus/strlist.h"

#define CALLUS_SNAPSHOT_FILE_MAX (1u << 20)
#define CALLUS_SNAPSHOT_FILES_MAX 64

typedef enum callus_snapshot_kind {
	CALLUS_SNAPSHOT_GIT,   /* a tree in the workspace's own repository */
	CALLUS_SNAPSHOT_FILES  /* copies of files in .callus/snapshots.git */
} callus_snapshot_kind;

typedef struct callus_snapshot {
	callus_snapshot_kind kind;
	char *tree;   /* 40 hex digits; owned */
	char *commit; /* HEAD's commit then, 40 hex digits, or "" (unborn
		       * branch, not git); owned */
} callus_snapshot;

#define CALLUS_SNAPSHOT_INIT { CALLUS_SNAPSHOT_GIT, NULL, NULL }

/* How to reach the helper.  Borrowed strings. */
typedef struct callus_snapshot_opts {
	const char *helper;  /* path of callus-git; NULL: callus_snapshot_helper() */
	int timeout_ms;      /* the helper is killed past this (times the
			      * requests of a callus_snapshot_run()); <= 0:
			      * 10000 */
	const char *const *exclude; /* NULL-terminated workspace-relative paths
				     * (a trailing '/' for a directory) whose
				     * changes snapshots and diffs leave out,
				     * besides .callus/, always left out; may be
				     * NULL */
	long long since_ns;  /* when the passing check started (ns since the
			      * epoch): files written since are its products,
			      * not the fix, and diffs leave them out; 0:
			      * unknown (new binary files are left out always) */
	long long deadline_ms; /* > 0: the helper is killed by this time of
				* callus_child_now_ms() whatever timeout_ms
				* leaves (a hook's deadline, less the time
				* learning needs after it) */
} callus_snapshot_opts;

/*
 * The helper's path: $CALLUS_GIT_HELPER when set, else callus-git in the
 * directory of the running executable.  Caller frees; NULL when out of
 * memory or the executable's path is unknown.
 */
char *callus_snapshot_helper(void);

/*
 * Snapshot the workspace (absolute path).  files (workspace-relative, may
 * be NULL) are what a workspace without git copies.  CALLUS_ENOTFOUND when
 * the helper is missing; CALLUS_EIO when it fails or times out (err says
 * what it printed).  The caller releases *out.
 */
int callus_snapshot_take(callus_snapshot *out, const char *workspace, const callus_strlist *files,
		       const callus_snapshot_opts *opts, callus_error *err);

/*
 * The unified diff (git's format, a/ and b/ prefixes, binary files as
 * "Binary files a/X and b/X differ") from snap to the working tree now:
 * in a git workspace every change, including new untracked files; without
 * git, the changes to the snapshot's files.  At most max_bytes: whole
 * files' patches while they fit, then a last line
 * "[callus: N more files changed: A, B, ...]".  "" when nothing changed.
 * The caller frees *patch.
 */
int callus_snapshot_diff(char **patch, const char *workspace, const callus_snapshot *snap,
		       size_t max_bytes, const callus_snapshot_opts *opts, callus_error *err);

/* The workspace's HEAD commit now (40 hex digits), or "" when there is
 * none.  The caller frees *commit. */
int callus_snapshot_head(char **commit, const char *workspace, const callus_snapshot_opts *opts,
		       callus_error *err);

/*
 * In a workspace without git, the copies in its private repository that
 * none of the keep trees (the "files" snapshots still needed, 40 hex
 * digits each) reaches and that are older than a day, removed: nothing
 * else refers to them.  *removed says how many objects went (0 when the
 * workspace has no such repository); with dry_run, how many would go,
 * none removed.
 */
int callus_snapshot_prune(size_t *removed, const char *workspace, const callus_strlist *keep,
			int dry_run, const callus_snapshot_opts *opts, callus_error *err);

/*
 * Several of the calls above in one run of the helper: a recording that
 * snapshots a failure, diffs the fixes of older errors and reads HEAD
 * starts the helper once instead of once each (a start costs about as much
 * as the work of a small workspace: libgit2 loads the system's TLS
 * certificates as it initialises).
 */
typedef enum callus_snapshot_req_kind {
	CALLUS_SNAPSHOT_REQ_TAKE, /* callus_snapshot_take() */
	CALLUS_SNAPSHOT_REQ_DIFF, /* callus_snapshot_diff() */
	CALLUS_SNAPSHOT_REQ_HEAD, /* callus_snapshot_head() */
	CALLUS_SNAPSHOT_REQ_PRUNE,   /* callus_snapshot_prune() */
	CALLUS_SNAPSHOT_REQ_PRUNABLE /* callus_snapshot_prune(), dry_run */
} callus_snapshot_req_kind;

typedef struct callus_snapshot_req {
	callus_snapshot_req_kind kind;
	const callus_strlist *files; /* TAKE: borrowed; may be NULL.  PRUNE,
				      * PRUNABLE: the trees kept */
	const callus_snapshot *snap; /* DIFF: borrowed */
	const callus_snapshot *to;   /* DIFF: borrowed; the working tree as
				      * kept then (both git snapshots), to diff
				      * to instead of the working tree now, for
				      * a run delivered late.  NULL: now */
	size_t max_bytes;            /* DIFF */
	/* what it gave, as the single call would (with to, as it would
	 * without, to the kept tree): released by
	 * callus_snapshot_req_release() */
	int rc;                 /* 0, or the single call's error code */
	callus_error err;       /* why, when rc < 0 */
	int to_gone;            /* DIFF with to, rc < 0: the helper has no
				 * such tree (its objects pruned) */
	callus_snapshot taken;  /* TAKE */
	char *text;             /* DIFF: the patch; HEAD: the commit or "";
				 * PRUNE, PRUNABLE: the count and a
				 * newline */
} callus_snapshot_req;

#define CALLUS_SNAPSHOT_REQ_INIT(k)                                                       \
	{ (k), NULL, NULL, NULL, 0, 0, CALLUS_ERROR_INIT, 0, CALLUS_SNAPSHOT_INIT, NULL }

/*
 * Run the n requests (each made with CALLUS_SNAPSHOT_REQ_INIT, its inputs
 * set) in one helper process, in order.  0 when the helper answered:
 * each request's rc says how it went.  Otherwise the reason it did not
 * (CALLUS_ENOTFOUND, CALLUS_EIO, ...), which is also every request's.
 */
int callus_snapshot_run(callus_snapshot_req *reqs, size_t n, const char *workspace,
			const callus_snapshot_opts *opts, callus_error *err);
void callus_snapshot_req_release(callus_snapshot_req *r); /* accepts NULL */

/*
 * callus_snapshot_run() in two steps, so that the caller works while the
 * helper does (a failure's snapshot is about as long as the rest of its
 * recording).  callus_snapshot_start() starts the helper: 0 with *b set,
 * or with *b NULL when no request could be sent (each says why); < 0 as
 * callus_snapshot_run() would fail, every request saying so too.  reqs
 * and what they borrow stay the caller's, untouched until
 * callus_snapshot_finish(b), which waits for the helper, answers them as
 * callus_snapshot_run() does, returns what it would, and frees b (NULL:
 * 0).  The helper's time counts from the finish (child.h).  A batch not
 * finished is ended by callus_snapshot_abandon() (NULL accepted), its
 * requests then unanswered: it waits for the helper to end, within its
 * time, because one killed while writing objects leaves temporary files
 * in the repository.
 */
typedef struct callus_snapshot_batch callus_snapshot_batch;

int callus_snapshot_start(callus_snapshot_batch **b, callus_snapshot_req *reqs, size_t n,
			  const char *workspace, const callus_snapshot_opts *opts, callus_error *err);
int callus_snapshot_finish(callus_snapshot_batch *b, callus_error *err);
void callus_snapshot_abandon(callus_snapshot_batch *b);

/* "git" / "files", and back (CALLUS_EINVAL for anything else). */
const char *callus_snapshot_kind_name(callus_snapshot_kind k);
int callus_snapshot_kind_parse(callus_snapshot_kind *out, const char *name);

/* A snapshot written down outside the store (a queued failure's entry,
 * hook_spool.h): "<kind> <tree> <commit|->", the helper's own answer
 * without its newline.  The caller frees; NULL without memory or for a
 * snapshot with no tree. */
char *callus_snapshot_to_text(const callus_snapshot *s);

/* And read back into *out (released by the caller): CALLUS_EINVAL for
 * anything that is not such a line, CALLUS_ENOMEM. */
int callus_snapshot_from_text(callus_snapshot *out, const char *text);

/* Whether s is an object id as the helper writes one (a tree, a commit):
 * 40 lower-case hex digits.  0 for NULL. */
int callus_snapshot_is_oid(const char *s);

/* What the helper answers a diffto whose kept tree the repository no
 * longer has (its objects pruned), at the start of its message after
 * "callus-git: ": the request is then to_gone. */
#define CALLUS_SNAPSHOT_KEPT_TREE_GONE "no such kept tree"

/* *dst a copy of src (released by the caller): 0 or CALLUS_ENOMEM. */
int callus_snapshot_copy(callus_snapshot *dst, const callus_snapshot *src);

void callus_snapshot_release(callus_snapshot *s); /* accepts NULL */

#endif
