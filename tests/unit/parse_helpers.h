/*
 * parse_helpers.h - what the parsers' sample tests share (test_parse_native.c,
 * test_parse_ecosystems.c): a sample read from the tree, captured and
 * analysed as `callus run` does it, and its diagnostics compared field by
 * field with what they must hold.  Every check fails the running cmocka test.
 */
#ifndef CALLUS_TEST_PARSE_HELPERS_H
#define CALLUS_TEST_PARSE_HELPERS_H

#include <stddef.h>

#include "callus/analysis.h"
#include "callus/buf.h"
#include "callus/capture.h"

/* What one diagnostic must hold; NULL: the field must be unset. */
typedef struct parse_want {
	int index; /* which diagnostic; -1 ends the list */
	const char *file;
	long line, column;
	const char *code, *severity, *test, *message;
	const char *frames; /* "fn@file|fn@file", innermost first */
} parse_want;

#define PARSE_WANT_END { -1, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL }

/* The bytes of path (relative to $CALLUS_SRCDIR, else to the current
 * directory: the repository root); fails when it cannot be read or is
 * empty.  The caller frees the result. */
char *parse_read(const char *path, size_t *len);

/* data captured in pipe-sized pieces, as a pipe delivers them. */
void parse_capture(callus_capture *c, const char *data, size_t len);

/* The analysis of data as a run of tool exiting with exit_code in the
 * workspace root + project (root ends with '/'; no trailing slash is left
 * when project is empty), in its directory cwd.  The caller releases f. */
void parse_analyse(callus_failure *f, const char *tool, int exit_code, const char *data,
		   size_t len, const char *root, const char *project, const char *cwd);
/* The same with data captured whole, as a hook's payload is: its kept
 * lines lent from data where they lie in it. */
void parse_analyse_whole(callus_failure *f, const char *tool, int exit_code, const char *data,
			 size_t len, const char *root, const char *project, const char *cwd);

/* Fails with what differs unless both are NULL or equal. */
void parse_assert_str(const char *what, const char *got, const char *expected);

/* The files '|'-separated; the frames as "fn@file|fn@file". */
void parse_files_of(callus_buf *out, const callus_strlist *files);
void parse_frames_of(callus_buf *out, const callus_diag *d);

/* Every field of d as w says (sample names it in the test's messages). */
void parse_check_diag(const char *sample, const callus_diag *d, const parse_want *w);

/* Two analyses are the same: parser, files, every field of every error
 * (a names the sample in the test's messages). */
void parse_assert_same(const char *a, const callus_failure *x, const callus_failure *y);

#endif
