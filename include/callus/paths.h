/*
 * paths.h - turning paths found in tool output into workspace-relative ones.
 */
#ifndef CALLUS_PATHS_H
#define CALLUS_PATHS_H

#include <stddef.h>

#include "callus/buf.h"

/* Where the command ran, for resolving the paths it printed.  Borrowed
 * strings; the caller keeps them alive while the context is used. */
typedef struct callus_pathctx {
	const char *workspace;      /* absolute, no trailing slash */
	const char *workspace_real; /* realpath of workspace, or NULL */
	const char *cwd_rel;        /* command's directory relative to it; "" for the root */
} callus_pathctx;

/*
 * Resolve path[0..len) against the context and write the normalized,
 * workspace-relative form to out (cleared first).  Returns 1 when the path
 * is an affected file: inside the workspace and not third-party
 * (node_modules, site-packages, vendor trees, the toolchain); 0 otherwise,
 * including every path that climbs out of the workspace with "..".
 */
int callus_path_relativize(callus_buf *out, const callus_pathctx *pc, const char *path, size_t len);

/* 1 when path is dir or below it: both absolute and normalized, compared
 * component by component as text ("/a/b" holds "/a/b/c", not "/a/bc");
 * trailing slashes of dir do not count. */
int callus_path_within(const char *dir, const char *path);

/* 1 when name[0..len) ends in an extension of a source or config file. */
int callus_path_has_source_ext(const char *name, size_t len);

#endif
