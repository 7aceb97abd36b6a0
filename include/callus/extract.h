/*
 * extract.h - diagnostics, and the generic extractor of errors and affected
 * files from filtered output.
 *
 * The generic extractor works on any tool's output: file:line:col forms,
 * tsc's file(line,col), eslint's stylish blocks, stack frames (JavaScript
 * "at ...", Python "File ..."), pytest/vitest failure lines and bare paths
 * with a source extension.  The per-tool parsers (parse.h) come first; this
 * is the fallback when none knows the tool or none finds anything.
 */
#ifndef CALLUS_EXTRACT_H
#define CALLUS_EXTRACT_H

#include <stddef.h>

#include "callus/paths.h"
#include "callus/strlist.h"

/* One diagnostic.  Strings are owned by the list that holds it; file,
 * code, severity and test may be NULL, line and column 0 when unknown. */
typedef struct callus_diag {
	char *file;
	long line, column;
	char *code;          /* rule or error code: no-unused-vars, TS2322, E0308 */
	char *message;
	char *severity;      /* "error", "warning", "note"; NULL when unknown */
	char *test;          /* the failing test's full name, for test runners */
	callus_strlist frames; /* stack frames, innermost first, "function\tfile" with
			      * file workspace-relative; third-party frames are not
			      * kept; function may be empty */
	char *signature;     /* id of its error signature, once signed */
	int vague;           /* 0, or why it may not say what failed: */
} callus_diag;

/* Found by the generic extractor (a "file:line", a frame), not read by a
 * parser made for what printed it: what failed may be a line it left. */
#define CALLUS_DIAG_GENERIC 1
/* Its parser's word that the command failed, not what failed: ctest's
 * status of a test whose output said nothing it could read. */
#define CALLUS_DIAG_CATCHALL 2

typedef struct callus_diags {
	callus_diag *items;
	size_t count, alloc;
	size_t dropped;      /* diagnostics beyond CALLUS_DIAGS_MAX */
} callus_diags;

#define CALLUS_DIAGS_INIT { NULL, 0, 0, 0 }
#define CALLUS_DIAGS_MAX 1000 /* further diagnostics are counted, not kept */
/* A code is a rule's or an error's name: what a parser took for one past
 * this many bytes is cut (on a UTF-8 boundary), whichever parser read it. */
#define CALLUS_DIAG_CODE_MAX 128

void callus_diags_release(callus_diags *d);

/*
 * Append a diagnostic (copies every string, the code cut to
 * CALLUS_DIAG_CODE_MAX; a NULL pointer or a zero length means absent).
 * Returns 0, CALLUS_ENOMEM, or 1 when the list is full (CALLUS_DIAGS_MAX):
 * the caller goes on, the diagnostic is only counted.
 */
int callus_diags_add(callus_diags *d, const char *file, long line, long column, const char *code,
		   size_t code_len, const char *message, size_t message_len, const char *severity);

/* The last diagnostic added (to attach a test name or frames), or NULL. */
callus_diag *callus_diags_last(callus_diags *d);

/* Replace a string field of a diagnostic (e.g. &d->test) by a copy of
 * s[0..len). */
int callus_diag_set(char **field, const char *s, size_t len);

/* Add a stack frame: function (may be empty) and the frame's file as
 * printed.  Only frames inside the workspace and outside third-party trees
 * are kept.  Returns 1 when kept, 0 when not, <0 on error. */
int callus_diag_add_frame(callus_diag *d, const callus_pathctx *pc, const char *function,
			size_t function_len, const char *file, size_t file_len);

/*
 * Scan text (filtered lines, '\n'-terminated) and append what it finds:
 * diagnostics to diags, affected files (workspace-relative, de-duplicated,
 * in order of appearance) to files.
 */
int callus_extract_generic(callus_diags *diags, callus_strlist *files, const char *text,
			 size_t len, const callus_pathctx *pc);

#endif
