/*
 * paths.h - turning paths found in tool output into workspace-relative ones.
 */
#ifndef CALLUS_PATHS_H
#define CALLUS_PATHS_H

#include <stddef.h>

#include "callus/buf.h"

struct callus_pathmemo;

/* Where the command ran, for resolving the paths it printed.  Borrowed
 * strings; the caller keeps them alive and unchanged while the context is
 * used. */
typedef struct callus_pathctx {
	const char *workspace;      /* absolute, no trailing slash */
	const char *workspace_real; /* realpath of workspace, or NULL */
	const char *cwd_rel;        /* command's directory relative to it; "" for the root */
	struct callus_pathmemo *memo; /* optional, the caller's: see below */
} callus_pathctx;

/*
 * The last path callus_path_relativize() resolved in a context and what it
 * came to, reused when a context of the same strings asks for the same
 * path again: a tool names one file on line after line (a megabyte of gcc
 * errors, 19,000 times; resolving them was 8 % of recording it).  Owned by
 * whoever puts it in a context (copies of the context share it);
 * CALLUS_PATHMEMO_INIT, then callus_pathmemo_release().
 */
typedef struct callus_pathmemo {
	callus_buf path;                 /* as asked */
	callus_buf workspace, real, cwd; /* the context's strings then (NULL as "") */
	callus_buf out;                  /* as resolved */
	int ok;                          /* -1: nothing yet */
} callus_pathmemo;
#define CALLUS_PATHMEMO_INIT                                                              \
	{ CALLUS_BUF_INIT, CALLUS_BUF_INIT, CALLUS_BUF_INIT, CALLUS_BUF_INIT, CALLUS_BUF_INIT, -1 }
void callus_pathmemo_release(callus_pathmemo *m);

/*
 * Resolve path[0..len) against the context and write the normalized,
 * workspace-relative form to out (cleared first).  Returns 1 when the path
 * is an affected file: inside the workspace and not third-party
 * (node_modules, site-packages, vendor trees, the toolchain); 0 otherwise,
 * including every path that climbs out of the workspace with "..".
 */
int callus_path_relativize(callus_buf *out, const callus_pathctx *pc, const char *path, size_t len);
/* What callus_path_relativize() returns for path[0..len), resolved into
 * pc's memo (or found there: the last path resolved with the same
 * context): *out and *out_len its form, borrowed until the memo's next
 * use.  -1 when there is no memo, or it could not take the result (no
 * memory): callus_path_relativize() then. */
int callus_path_memo_resolve(const callus_pathctx *pc, const char *path, size_t len,
			     const char **out, size_t *out_len);

/* 1 when path is dir or below it: both absolute and normalized, compared
 * component by component as text ("/a/b" holds "/a/b/c", not "/a/bc");
 * trailing slashes of dir do not count. */
int callus_path_within(const char *dir, const char *path);

/* 1 when name[0..len) ends in an extension of a source or config file. */
int callus_path_has_source_ext(const char *name, size_t len);

#endif
