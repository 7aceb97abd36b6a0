/*
 * extract.h - structured errors and affected files from filtered output.
 *
 * The generic extractor works on any tool's output: file:line:col forms,
 * tsc's file(line,col), eslint's stylish blocks, stack frames (JavaScript
 * "at ...", Python "File ..."), pytest/vitest failure lines and bare paths
 * with a source extension.  Per-tool parsers refine it later; this is the
 * fallback that always runs.
 */
#ifndef DEJA_EXTRACT_H
#define DEJA_EXTRACT_H

#include <stddef.h>

#include "deja/paths.h"
#include "deja/strlist.h"

/* One diagnostic.  Strings are owned by the list that holds it; file and
 * code may be NULL, line and column 0 when unknown. */
typedef struct deja_diag {
	char *file;
	long line, column;
	char *code;
	char *message;
} deja_diag;

typedef struct deja_diags {
	deja_diag *items;
	size_t count, alloc;
} deja_diags;

#define DEJA_DIAGS_INIT { NULL, 0, 0 }
#define DEJA_DIAGS_MAX 1000 /* further diagnostics are counted, not kept */

void deja_diags_release(deja_diags *d);

/*
 * Scan text (filtered lines, '\n'-terminated) and append what it finds:
 * diagnostics to diags, affected files (workspace-relative, de-duplicated,
 * in order of appearance) to files.
 */
int deja_extract_generic(deja_diags *diags, deja_strlist *files, const char *text,
			 size_t len, const deja_pathctx *pc);

#endif
