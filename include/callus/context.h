/*
 * context.h - the context of an error (spec 004 context_patterns): the file
 * types it touched, the framework that reported it, and the project's
 * dependencies read from its manifests (package.json, pyproject.toml,
 * requirements.txt, go.mod, Cargo.toml).
 *
 * Patterns are short strings: "ext:ts", "framework:jest", "npm:react",
 * "py:requests", "go:github.com/x/y", "cargo:serde".
 */
#ifndef CALLUS_CONTEXT_H
#define CALLUS_CONTEXT_H

#include "callus/strlist.h"

#define CALLUS_CONTEXT_DEPS_MAX 64      /* dependencies kept per manifest */
#define CALLUS_CONTEXT_FILE_MAX (256 * 1024)

/*
 * Append the context patterns to out.  dir is the check's directory and
 * workspace its root (absolute); manifests are read from dir, then from the
 * workspace root if it differs.  Unreadable or malformed manifests are
 * skipped: context is a hint, never a reason to fail.
 */
int callus_context_patterns(callus_strlist *out, const char *workspace, const char *dir,
			  const char *tool, const callus_strlist *files);

#endif
