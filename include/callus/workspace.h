/*
 * workspace.h - where callus may write: finding a workspace's root, and
 * checking that what callus writes there stays there.
 *
 * A workspace is a place callus was asked to use: a git repository (its top
 * level), or a directory that already holds `.callus/` (made by `callus init`
 * or an earlier recording there).  A hook payload names its directory, and a
 * model chooses it: a directory that is neither is not a workspace, so that
 * `/`, `/etc` or a home directory never grow a store because a command ran
 * there.
 *
 * A repository may carry symlinks of its own (`AGENTS.md -> ~/.bashrc`,
 * `.callus -> /somewhere`): what callus writes goes through a link only when
 * the link's target is inside the workspace too.
 */
#ifndef CALLUS_WORKSPACE_H
#define CALLUS_WORKSPACE_H

#include "callus/buf.h"
#include "callus/common.h"

/* How callus_workspace_find() found the root. */
typedef enum callus_ws_kind {
	CALLUS_WS_GIT,    /* a directory holding .git */
	CALLUS_WS_MARKED, /* a directory holding .callus/ (or the former name's) */
	CALLUS_WS_NONE    /* neither above dir: dir itself */
} callus_ws_kind;

/*
 * The workspace root for dir: the nearest directory at or above it holding
 * .git or .callus/ (the former name's directory counts too, so that it can
 * be carried over), else dir itself.  An absolute, resolved path; caller
 * frees.  *kind (may be NULL) says which.  NULL only for lack of memory or
 * when dir does not exist.
 */
char *callus_workspace_find(const char *dir, callus_ws_kind *kind);

/* callus_workspace_guard() flags */
enum {
	/* name is a directory only callus's user should reach (.callus/):
	 * group and world permissions are taken away */
	CALLUS_WS_PRIVATE = 1 << 0
};

/*
 * Whether callus may write name (a path relative to root, e.g. ".callus",
 * ".lessons", "AGENTS.md"): it does not exist yet, or it is (or a symlink
 * chain leads to) a file or directory inside root.  When out is not NULL it
 * receives the path to write: root/name when every component of name
 * exists and none is a link (root as given: the directory it names is the
 * workspace, whatever links its own path goes through), else the link's
 * final target, resolved.  With
 * CALLUS_WS_PRIVATE an existing directory open to others is tightened to
 * its owner.  0 when allowed; CALLUS_EUNSAFE, with a message naming
 * the link and its target, when writing would leave root or go into a
 * directory owned by someone else; CALLUS_EIO or CALLUS_ENOMEM otherwise.
 */
int callus_workspace_guard(callus_buf *out, const char *root, const char *name, unsigned flags,
			   callus_error *err);

/* callus_workspace_guard() for a directory callus writes into, named by
 * its full path (".../ws/.callus"): its parent is taken as the workspace.
 * 0 or a negative code, as callus_workspace_guard(). */
int callus_workspace_guard_dir(const char *dir, callus_error *err);

#endif
