/*
 * lessons_common.h - store access and lesson JSON shared by the commands
 * that read or write lessons.
 */
#ifndef CALLUS_CLI_LESSONS_COMMON_H
#define CALLUS_CLI_LESSONS_COMMON_H

#include <jansson.h>

#include "cli.h"
#include "listing.h"
#include "callus/lesson.h"
#include "callus/store.h"
#include "callus/strlist.h"

/* Open the workspace store.  Returns 0, 1 when !create and there is no
 * store yet (*out NULL), or after printing why CALLUS_EBUSY (a store
 * another process holds past [store] timeout_ms) or -1. */
int cli_open_store(callus_store **out, const cli_workspace *ws, int create);

/* cli_open_store() that says nothing: 0, 1 (no store, !create), or a
 * negative CALLUS_E* code with err set, for a caller whose words depend on
 * why (a queued pass that stays queued). */
int cli_open_store_quiet(callus_store **out, const cli_workspace *ws, int create,
			 callus_error *err);

/* The JSON object of a lesson (every spec-000 field plus id, tool,
 * command, exit_code, affected_files, occurrences, last_seen); new
 * reference. */
json_t *cli_lesson_json(const callus_lesson *l);

/* l as a new JSON array of strings (a new reference). */
json_t *cli_strlist_json(const callus_strlist *l);

/* Print v indented on stdout and drop the reference (v may be NULL: out
 * of memory).  Returns the command's exit status: 0, or 1 after saying
 * why. */
int cli_print_json(json_t *v);

/* The elements make(items + i * size, arg) for i in [0, n) printed as
 * cli_print_json prints their array, byte for byte, one made and dropped
 * at a time: a listing's whole tree, then its whole text, were held at
 * once (`callus pending --json` of 65,006 errors: 344 MB, bench/listings.sh).  make returns a
 * new reference, NULL when out of memory.  The command's exit status: 0,
 * or 1 after saying why. */
int cli_print_json_items(const void *items, size_t size, size_t n,
			 json_t *(*make)(const void *item, const void *arg), const void *arg);

/* How many bytes of s to print as its first line: up to the newline, at
 * most width bytes, never ending inside a UTF-8 character. */
int cli_first_line_width(const char *s, int width);

#endif
