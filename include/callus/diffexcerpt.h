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

#endif
