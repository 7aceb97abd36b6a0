/*
 * import.h - reading the transcripts coding agents keep of their sessions
 * (docs/import.md): each shell command with its output and exit status,
 * each file edit, in order, for `callus import` to replay through the same
 * learning as the hook.
 *
 * The readers are a family (src/import/, one file per agent behind
 * callus_transcript_ops, chosen from the table in src/import.c).  A
 * transcript is read incrementally: from a byte offset to the end, one
 * JSON record per line (only those a reader can use are parsed, the
 * others checked to look like an object); a line that is not a JSON
 * object is skipped and counted, never fatal; a last line with no newline yet (the agent is
 * still writing it) is left for the next read.  The watermark a read gives
 * back is the end of the last line after which no tool call was waiting
 * for its result, so that a read resumed there loses no pairing; the
 * events of lines read before are not given twice.
 */
#ifndef CALLUS_IMPORT_H
#define CALLUS_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/strlist.h"

typedef enum callus_import_kind {
	CALLUS_IMPORT_COMMAND = 1, /* a shell command that ran */
	CALLUS_IMPORT_EDIT         /* a file the agent changed */
} callus_import_kind;

/* One thing a transcript shows.  Every pointer is borrowed, valid during
 * the callback that receives it; strings are never NULL ("" when
 * unknown). */
typedef struct callus_import_event {
	callus_import_kind kind;
	const char *time;       /* ISO 8601 UTC, "" when unknown */
	const char *session;    /* the agent's session id */
	const char *cwd;        /* absolute: where it ran (the session's
				 * directory when the record does not say) */
	/* CALLUS_IMPORT_COMMAND */
	const char *command;
	const char *output;     /* what the agent saw, stdout and stderr */
	size_t output_len;
	int exit_code;          /* -1 when the transcript does not say */
	int interrupted;        /* killed, timed out, cancelled */
	/* CALLUS_IMPORT_EDIT */
	const char *path;       /* absolute, or relative to cwd */
	const char *hunks;      /* the change as unified-diff hunks ("@@ -a,b
				 * +c,d @@" and their lines, each ending in
				 * "\n") */
	int created, deleted;   /* the file was created / deleted */
} callus_import_event;

/* Receives each event in order; a negative return stops the read with
 * that code. */
typedef int (*callus_import_emit)(void *ctx, const callus_import_event *ev);

/* What reads counted (added to, never reset, by callus_import_read). */
typedef struct callus_import_counts {
	uint64_t records;       /* lines read as JSON records */
	uint64_t malformed;     /* lines skipped: not a JSON object, too long */
	uint64_t unfinished;    /* last lines with no newline, left for later */
	uint64_t commands, edits; /* events given */
	uint64_t bytes;         /* bytes read */
} callus_import_counts;

/* An agent's transcript reader (a member of src/import/). */
typedef struct callus_transcript_ops callus_transcript_ops;

/* The i-th reader of the table, NULL past the last. */
const callus_transcript_ops *callus_transcript_nth(size_t i);
/* The reader of agent name (claude-code, codex...), NULL when none. */
const callus_transcript_ops *callus_transcript_find(const char *name);
const char *callus_transcript_name(const callus_transcript_ops *ops);
/* The agent's transcript files under home (its own environment variables
 * first: CODEX_HOME, CLAUDE_CONFIG_DIR), appended to out, sorted by the
 * time they were last written, oldest first.  Files that cannot be read
 * are left out.  0 or CALLUS_ENOMEM. */
int callus_transcript_locate(const callus_transcript_ops *ops, const char *home,
			     callus_strlist *out);
/* Where the agent keeps them, for messages ("~/.claude/projects"). */
const char *callus_transcript_where(const callus_transcript_ops *ops);

/* How far a transcript was read, kept between imports (0, 0 before the
 * first). */
typedef struct callus_import_mark {
	uint64_t resume;  /* where the next read starts: the end of the last
			   * line after which no tool call waited for its
			   * result */
	uint64_t seen;    /* the end of the last complete line read: the
			   * events of the lines before it were given and are
			   * not given again (a call that never got its
			   * result keeps resume behind them) */
} callus_import_mark;

/*
 * Read path from mark->resume to its end, giving each event of the lines
 * past mark->seen to emit, and move *mark on.  A file shorter than
 * mark->seen was replaced: read from the start.  Lines longer than
 * line_max (0: 64 MiB) are skipped as malformed, read past in bounded
 * memory.  0, a negative code from emit, or CALLUS_EIO / CALLUS_ENOMEM.
 */
int callus_import_read(const callus_transcript_ops *ops, const char *path,
		       callus_import_mark *mark, size_t line_max, callus_import_emit emit,
		       void *ctx, callus_import_counts *counts, callus_error *err);

/*
 * The edits of a fix as one unified diff, what `git diff` would show of
 * them: for each file, in the order first edited, a "diff --git" header and
 * the hunks of its edits, in order.  path is relative to the workspace.
 * Appends to out.
 */
void callus_import_diff_file(callus_buf *out, const char *path, const char *hunks, int created,
			     int deleted);

/*
 * Hunks for an edit known by its old and new text (an edit tool's
 * old_string/new_string): the changed lines with up to three lines of
 * context from the text itself, starting at line (1 when unknown).
 * Appends to out.
 */
void callus_import_hunk_from_texts(callus_buf *out, const char *old_text, const char *new_text,
				   long line);

#endif
