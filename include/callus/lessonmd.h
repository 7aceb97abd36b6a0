/*
 * lessonmd.h - the two Markdown renderings of lessons: one file per lesson
 * under .lessons/, and a bounded summary block in the workspace's agent
 * instructions file (AGENTS.md by default).
 *
 * Lesson fields are treated as untrusted text even though the caller has
 * already redacted them: they are flattened or fenced so that they cannot
 * break the Markdown structure, HTML comment delimiters in them are broken
 * up ("<!--" becomes "<! --", "-->" becomes "-- >") so that they can never
 * fake or hide the block markers, and no file name is derived from them
 * except the validated hex signature.  Output is deterministic: nothing
 * depends on the current time.  Lessons are borrowed for the call.
 */
#ifndef CALLUS_LESSONMD_H
#define CALLUS_LESSONMD_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/learn.h"
#include "callus/lesson.h"
#include "callus/notes.h"

#define CALLUS_AGENTS_BEGIN "<!-- callus:lessons:begin -->"
#define CALLUS_AGENTS_END "<!-- callus:lessons:end -->"

/* Hex digits of the signature in a lesson's file name (.lessons/<id>.md). */
#define CALLUS_LESSON_ID_LEN 12

/* How long callus_agents_block_update() waits for lock_path. */
#define CALLUS_AGENTS_LOCK_TIMEOUT_MS 5000

/* The largest instructions file callus_agents_block_update() will edit. */
#define CALLUS_AGENTS_FILE_MAX (8u << 20)

/*
 * Append the Markdown page of l to out: a title, every spec-000 field,
 * then "Error summary" (fenced), "Cause", "Resolution" and "Corrective
 * rule".  Returns 0, or CALLUS_ENOMEM / CALLUS_ETOOBIG from the buffer.
 */
int callus_lesson_md_render(callus_buf *out, const callus_lesson *l);

/*
 * Write l's page to <lessons_dir>/<first 12 hex of l->signature>.md, so
 * that a recurrence rewrites the same file.  Creates lessons_dir (0700)
 * and the file (0600) as needed; the file is replaced atomically, and a
 * symlink in its place is replaced rather than followed.  CALLUS_EINVAL when
 * l->signature is not 64 lowercase hex digits.
 */
int callus_lesson_md_write(const char *lessons_dir, const callus_lesson *l, callus_error *err);

/* What the block shows, each part best first (for the failures and the
 * lessons: the last to fail first); borrowed. */
typedef struct callus_agents_content {
	const callus_note *notes;       /* proven fixes (notes.h) */
	size_t nnotes;
	const callus_pending *warnings; /* permanent failures (learn.h) */
	size_t nwarnings;
	const callus_lesson *lessons;   /* recently failed checks */
	size_t nlessons;
} callus_agents_content;

/*
 * Append to out the block: begin marker, a line saying what it is, then
 * the notes (what fixed each recurring error), the failures to avoid, and
 * the recent lessons, each part under its own line, then the end marker;
 * each line ended by eol ("\n" or "\r\n") except the end marker's.
 * Bullets are taken in the order given while the block stays within
 * max_bytes (0 = no limit); a last line says how many lessons were left
 * out.  The notes are shown in that order; the failures and the lessons
 * taken are shown newest first by id (when each was stored), so that one
 * of them failing again does not reorder the block.
 * Counts (a lesson's occurrences, a failure's attempts) are exact below
 * three, then given by the band they reached ("3+", "10+", "100+", ...),
 * so that a failure recurring changes the block only when it crosses one.
 * CALLUS_EINVAL when not even the header fits.
 */
int callus_agents_block_render(callus_buf *out, const callus_agents_content *c, size_t max_bytes,
			       const char *eol, callus_error *err);

/*
 * Rewrite the lessons block of the instructions file at path, holding an
 * exclusive lock on lock_path (created 0600; NULL = no locking) across the
 * read-modify-write so that concurrent callus processes do not lose updates.
 *
 * - Bytes outside the markers are never changed.  A marker is a line whose
 *   only non-blank content is CALLUS_AGENTS_BEGIN or CALLUS_AGENTS_END.
 * - A missing file is created (mode 0666 less the umask) holding only the
 *   block; a file without markers gets the block appended after a blank
 *   line.  Malformed markers (begin without end, end before begin,
 *   duplicates) fail with CALLUS_EINVAL and leave the file untouched.
 * - The file is replaced atomically with its mode preserved; a symlink is
 *   written through to its target.  Nothing is written when the contents
 *   would not change.  The block uses CRLF when the file does.
 */
int callus_agents_block_update(const char *path, const callus_agents_content *c,
			       size_t max_bytes, const char *lock_path, callus_error *err);

/* 1 when callus_agents_block_update() would change the file at path (it is
 * missing, or its block is not c's), 0 when not; a negative code with err
 * set when it cannot be read.  Writes nothing. */
int callus_agents_block_stale(const char *path, const callus_agents_content *c,
			      size_t max_bytes, callus_error *err);

#endif
