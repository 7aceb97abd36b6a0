/*
 * paths.h - turning paths found in tool output into workspace-relative ones.
 */
#ifndef DEJA_PATHS_H
#define DEJA_PATHS_H

#include <stddef.h>

#include "deja/buf.h"

/* Where the command ran, for resolving the paths it printed.  Borrowed
 * strings; the caller keeps them alive while the context is used. */
typedef struct deja_pathctx {
	const char *workspace;      /* absolute, no trailing slash */
	const char *workspace_real; /* realpath of workspace, or NULL */
	const char *cwd_rel;        /* command's directory relative to it; "" for the root */
} deja_pathctx;

/*
 * Resolve path[0..len) against the context and write the normalized,
 * workspace-relative form to out (cleared first).  Returns 1 when the path
 * is an affected file: inside the workspace and not third-party
 * (node_modules, site-packages, vendor trees, the toolchain); 0 otherwise,
 * including every path that climbs out of the workspace with "..".
 */
int deja_path_relativize(deja_buf *out, const deja_pathctx *pc, const char *path, size_t len);

/* 1 when name[0..len) ends in an extension of a source or config file. */
int deja_path_has_source_ext(const char *name, size_t len);

/* The git top level above dir (a directory holding .git), or dir itself;
 * an absolute path, caller frees.  NULL only for lack of memory or when
 * dir does not exist. */
char *deja_workspace_find(const char *dir);

#endif
