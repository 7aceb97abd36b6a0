/*
 * reader.h - the transcript readers family: one file per agent in
 * src/import/, each filling one callus_transcript_ops, chosen from the
 * table in src/import.c (include/callus/import.h is the interface).
 *
 * A member says where its agent keeps transcripts (locate) and how one
 * JSON record of a transcript becomes events (record), with the state a
 * file needs between records (a tool call waiting for its result).  What
 * they share (finding files, JSON helpers, hunks from structured patches)
 * is src/import/util.c, declared below.
 *
 * Adding an agent: src/import/NAME.c defining `const callus_transcript_ops
 * callus_transcript_NAME`, one row in import.c's table, a captured real
 * transcript under tests/import/fixtures/ read in tests/unit/test_import.c,
 * its location and format in docs/import.md.
 */
#ifndef CALLUS_IMPORT_READER_H
#define CALLUS_IMPORT_READER_H

#include <jansson.h>

#include "callus/buf.h"
#include "callus/import.h"
#include "callus/strlist.h"

struct callus_transcript_ops {
	const char *name;   /* the agent, as `callus init NAME` takes it */
	const char *where;  /* where the transcripts are, for messages */
	/* Append the transcript files under home to out (any order).  0 or
	 * CALLUS_ENOMEM; a missing directory is no error. */
	int (*locate)(const char *home, callus_strlist *out);
	/* The state of one file's read, NULL without memory; path is the
	 * transcript (some agents name the session in it). */
	void *(*begin)(const char *path);
	void (*end)(void *st);
	/* One record (a JSON object): emit its events.  0, or what emit
	 * returned (negative), or CALLUS_ENOMEM. */
	int (*record)(void *st, const json_t *rec, callus_import_emit emit, void *ctx);
	/* Whether no tool call is waiting for its result: a read can resume
	 * after this record. */
	int (*idle)(const void *st);
	/* A record with none of these strings is not parsed (most of a
	 * transcript is conversation): only checked to look like an object.
	 * NULL-terminated; NULL: every record is parsed. */
	const char *const *needles;
	/* Then, when not NULL, whether a record with a needle is worth
	 * parsing, from its raw text and the state (a tool's result no call
	 * waits for is not); 1 when in doubt. */
	int (*want)(const void *st, const char *line, size_t len);
};

extern const callus_transcript_ops callus_transcript_claude_code, callus_transcript_codex,
	callus_transcript_gemini, callus_transcript_copilot;

/* ---- src/import/util.c ------------------------------------------------- */

/* Files under dir whose names end in suffix, down to depth levels, appended
 * to out.  0 or CALLUS_ENOMEM. */
int callus_import_find_files(const char *dir, const char *suffix, int depth, callus_strlist *out);

/* $var when set and not empty, else home/rel; caller frees, NULL without
 * memory. */
char *callus_import_dir(const char *var, const char *home, const char *rel);

/* The string member key of o, "" when absent or not a string. */
const char *callus_import_str(const json_t *o, const char *key);

/* Replace *dst by a copy of s (NULL: ""); CALLUS_ENOMEM or 0. */
int callus_import_set(char **dst, const char *s);

/* Hunks in unified-diff form from a jsdiff-style array of {oldStart,
 * oldLines, newStart, newLines, lines: [" x", "-y", "+z"]}, appended to
 * out.  Returns how many hunks. */
size_t callus_import_structured_hunks(callus_buf *out, const json_t *hunks);

/* The text of a tool result's content: a string, or the text blocks of an
 * array joined with newlines.  Appended to out. */
void callus_import_content_text(callus_buf *out, const json_t *content);

/* An ISO 8601 time from milliseconds since the epoch, into buf[32]. */
void callus_import_time_ms(char buf[32], int64_t ms);

#endif
