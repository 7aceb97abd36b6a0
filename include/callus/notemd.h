/*
 * notemd.h - a hindsight note (notes.h) as text: its Markdown file, read
 * back, and the compact form an agent is shown on a failure.
 *
 * The file is front matter (id, type, layer, status, tool, signatures,
 * metrics, dates), then "# TITLE", an optional "Rule: ..." paragraph, and
 * the sections of spec 004: "## Error Pattern", "## Resolution" (numbered
 * steps), "## Code Examples" (one ```diff block) and "## Tags".  Sections
 * a person adds are kept as they are (note->extra).  Reading takes what a
 * person may change (title, rule, steps, code, extra, layer, status) and
 * the identity (id, signatures); metrics are the store's and are only
 * read to seed a note the store did not know.
 */
#ifndef CALLUS_NOTEMD_H
#define CALLUS_NOTEMD_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/notes.h"

/* The note's file. */
int callus_note_md_render(callus_buf *out, const callus_note *n);

/* Read a note's file into *out (released first by the caller's
 * callus_note_release(); zeroed here).  CALLUS_EINVAL, with err saying
 * why, when it is not a note (no front matter, no id, no title). */
int callus_note_md_parse(callus_note *out, const char *text, size_t len, callus_error *err);
/* Whether text holds a merge git left unresolved (a line opening
 * "<<<<<<<", then one opening ">>>>>>>"): not a note, and not to be
 * written over. */
int callus_note_md_conflicted(const char *text, size_t len);

/*
 * The note for an agent that has just hit a matching error in file at
 * line (either may be unknown: NULL, 0): one line of pattern with its
 * success and layer, its rule, and the fix's diff lines that matter
 * (diffexcerpt.h), each line indented by indent.  At most max_bytes are
 * appended, whatever the diff's size.  Returns CALLUS_ENOMEM or 0.
 */
int callus_note_compact(callus_buf *out, const callus_note *n, const char *file, long line,
			const char *indent, size_t max_bytes);

/*
 * Several notes compact, in their order, sharing max_bytes: each gets an
 * even share of what is left, and what one does not use passes on to the
 * next.  Returns CALLUS_ENOMEM or 0.
 */
int callus_notes_compact(callus_buf *out, const callus_note *n, size_t count, const char *file,
			 long line, const char *indent, size_t max_bytes);

#endif
