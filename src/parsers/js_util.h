/*
 * js_util.h - what the JavaScript parsers (eslint, tsc, jest, vitest,
 * mocha, node --test) share: the lines they read, the package managers'
 * lines they skip, V8 stack frames, and a failing test being assembled
 * until its last frame is seen.  Library-internal.
 */
#ifndef CALLUS_PARSE_JS_UTIL_H
#define CALLUS_PARSE_JS_UTIL_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/parse.h"
#include "callus/strlist.h"
#include "parsers/util.h" /* callus_pu_starts, for the JavaScript parsers too */

/* Messages are for a lesson, not a log: longer ones are cut. */
#define CALLUS_JS_MESSAGE_MAX 300
/* A test's name longer than this is cut. */
#define CALLUS_JS_TEST_MAX 300
/* In-project frames kept per failure, innermost first. */
#define CALLUS_JS_FRAMES_MAX 8

/*
 * The lines of a parser's input.  The raw output when it is whole: test
 * runners print test names and message details on lines without any error
 * keyword, which the filtered text does not keep.  Each raw line is made
 * like a filtered one (ANSI escapes and redraws removed, invalid UTF-8
 * replaced, trailing blanks cut).  Else (an output beyond the raw head) the
 * filtered text, which covers all of it: parsers cope with missing lines.
 */
typedef struct callus_js_lines {
	const char *p, *end;
	int raw;
	callus_buf stripped, line;
} callus_js_lines;

void callus_js_lines_init(callus_js_lines *it, const callus_parse_input *in);
/* 1 with the next line in *s, *len (valid until the next call); 0 at the
 * end; CALLUS_ENOMEM. */
int callus_js_lines_next(callus_js_lines *it, const char **s, size_t *len);
void callus_js_lines_release(callus_js_lines *it);

/* 1 for what npm, pnpm, yarn and bun print around a script's output. */
int callus_js_wrapper_noise(const char *s, size_t len);

/* Leading blanks of a line. */
size_t callus_js_indent(const char *s, size_t len);

/*
 * A location at the end of s[0..len): "FILE:LINE:COL" or "FILE:LINE".
 * Returns 1 with the file's length in *file_len.
 */
int callus_js_split_location(const char *s, size_t len, size_t *file_len, long *line,
			   long *col);

/* One stack frame as printed; spans point into the line. */
typedef struct callus_js_frame {
	const char *fn, *file;
	size_t fn_len, file_len;
	long line, column;
} callus_js_frame;

/*
 * A V8 stack frame: "at fn (FILE:L:C)", "at FILE:L:C", "at async fn (...)";
 * with need_at 0 the "at " may be missing (node --test's TAP stacks).
 * vitest's "❯ fn FILE:L:C" and "❯ FILE:L:C" too.  Only frames in a source
 * file are frames: "node:internal/...", "<anonymous>" are not.
 */
int callus_js_parse_frame(const char *s, size_t len, int need_at, callus_js_frame *f);

/* A path as printed, file:// URLs decoded, into out (cleared first). */
int callus_js_path(callus_buf *out, const char *p, size_t len);

/* A YAML scalar without its quotes, into out (cleared first): '' is a
 * quote inside '...', a backslash escapes the next byte inside "...". */
void callus_js_yaml_unquote(callus_buf *out, const char *v, size_t len);

/* Append a part of a message: blanks collapsed, parts joined by a space,
 * at most CALLUS_JS_MESSAGE_MAX bytes (cut on a UTF-8 boundary). */
int callus_js_message_add(callus_buf *m, const char *s, size_t len);

/*
 * A failing test being read: its names (vitest prints several tests that
 * failed with the same error above one message), the test's file and
 * location as the runner named them, the message and the in-project frames.
 */
typedef struct callus_js_failure {
	int open;
	callus_strlist tests;
	callus_buf file;	   /* as printed; may be empty */
	long line, column; /* of file, 0 when unknown */
	callus_buf message;
	int has_header;	     /* the message's first line was seen */
	callus_strlist frames; /* "fn\tfile\tline\tcol", file as printed */
	callus_buf scratch;
} callus_js_failure;

void callus_js_failure_init(callus_js_failure *f);
void callus_js_failure_release(callus_js_failure *f);

/* The length of s[0..len) cut to at most max bytes, not inside a UTF-8
 * sequence. */
size_t callus_js_cut(const char *s, size_t len, size_t max);

/* Add a test's name (cut to CALLUS_JS_TEST_MAX). */
int callus_js_failure_test(callus_js_failure *f, const char *s, size_t len);

/* Start a failure (the previous one must have been flushed). */
void callus_js_failure_start(callus_js_failure *f);

/* Add a frame when it is in the project; 1 when added. */
int callus_js_failure_frame(callus_js_failure *f, const callus_pathctx *pc,
			  const callus_js_frame *fr);

/*
 * Emit the open failure: one diagnostic per test name (one without a name
 * when there is none), located at the innermost in-project frame, else at
 * the test's file; the frames attached; the test's file noted as affected.
 * *first_diag (may be NULL) gets the index of the first diagnostic added,
 * or (size_t)-1.  The failure is closed and cleared.  0 or CALLUS_ENOMEM.
 */
int callus_js_failure_flush(callus_js_failure *f, const callus_pathctx *pc, callus_diags *diags,
			  callus_strlist *files, size_t *first_diag);

#endif
