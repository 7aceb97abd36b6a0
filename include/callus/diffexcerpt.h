/*
 * diffexcerpt.h - the few lines of a fix an agent should see: the removed
 * and added lines of a unified diff, for one file, bounded.  What reaches
 * an agent goes into its prompt, so it is short: the lines that changed,
 * not the context around them, not the headers.
 *
 * Input is git's patch format as callus_snapshot_diff() prints it (see
 * patchdesc.h); anything else gives no lines, never an error.
 */
#ifndef CALLUS_DIFFEXCERPT_H
#define CALLUS_DIFFEXCERPT_H

#include <stddef.h>

#include "callus/buf.h"

/*
 * Append to out the '-' and '+' lines of diff's hunks in file (the
 * new-side path, workspace-relative; when it has none, or file is NULL,
 * the hunks of the first file that has changed lines), at most max_lines,
 * each as indent, the line cut to width bytes at a character boundary
 * ("..." marks a cut), and "\n".  Binary files and callus's "[callus: N
 * more files changed]" line give nothing.  Returns the number of lines
 * appended (0: none), or CALLUS_ENOMEM.
 */
int callus_diff_excerpt(callus_buf *out, const char *diff, const char *file, size_t max_lines,
			size_t width, const char *indent);

/* What callus_diff_excerpt_best() shows.  Borrowed strings. */
typedef struct callus_excerpt_opts {
	const char *file;   /* the error's file now: its hunks come first; may be NULL */
	long line;          /* the error's line in it: the nearest hunk first; 0: unknown */
	size_t max_lines;   /* changed lines at most */
	size_t max_bytes;   /* bytes appended at most, headers included */
	size_t width;       /* a longer line is cut ("..."); 0: no cut */
	const char *indent; /* before each line; NULL: "" */
} callus_excerpt_opts;

/*
 * The lines of a fix that matter for one error: the hunks of o->file
 * first, the one at or nearest o->line leading, then the other files'
 * hunks, smallest first (a small hunk is a fix's core more often than a
 * large one).  Each file's lines follow a line "<indent>in FILE:"; whole
 * hunks are taken while they fit, and of the first one as many lines as
 * fit.  Returns the number of changed lines appended, or CALLUS_ENOMEM.
 */
int callus_diff_excerpt_best(callus_buf *out, const char *diff, const callus_excerpt_opts *o);

#endif
