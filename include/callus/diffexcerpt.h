/*
 * diffexcerpt.h - the few lines of a fix an agent should see: the removed
 * and added lines of a unified diff, bounded.  What reaches an agent goes
 * into its prompt, so it is short: the lines that changed, not the
 * context around them, not the headers.
 *
 * Input is git's patch format as callus_snapshot_diff() prints it (see
 * patchdesc.h); anything else gives no lines, never an error.  Binary
 * files and callus's "[callus: N more files changed]" line give nothing.
 */
#ifndef CALLUS_DIFFEXCERPT_H
#define CALLUS_DIFFEXCERPT_H

#include <stddef.h>

#include "callus/buf.h"

/* What callus_diff_excerpt() shows.  Borrowed strings. */
typedef struct callus_excerpt_opts {
	const char *file;   /* the error's (or the edited) file, workspace-relative:
			     * its hunks come first; may be NULL */
	long line;          /* the error's line in it: the nearest hunk first;
			     * 0: the file's hunks in diff order */
	int only_file;      /* nothing from the other files */
	int headers;        /* a line "<indent>in FILE:" before each file's lines */
	size_t max_lines;   /* changed lines at most */
	size_t max_bytes;   /* bytes appended at most, headers included; 0: no limit */
	size_t width;       /* a longer line is cut at a character boundary and
			     * marked "..."; 0: no cut */
	const char *indent; /* before each line; NULL: "" */
} callus_excerpt_opts;

/*
 * Append to out the lines of diff that matter for o->file: its hunks
 * first (the one at or nearest o->line leading), then, unless only_file,
 * the other files' hunks, smallest first (a small hunk is a fix's core
 * more often than a large one).  Each line is indent, the '-' or '+' line
 * cut to width, "\n".  Whole hunks are taken while they fit, and of the
 * first one as many lines as fit.  Returns the number of changed lines
 * appended (0: none), or CALLUS_ENOMEM.
 */
int callus_diff_excerpt(callus_buf *out, const char *diff, const callus_excerpt_opts *o);

#endif
