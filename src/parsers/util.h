/*
 * util.h - helpers shared by the native-tool parsers (pytest,
 * unittest, mypy, ruff, flake8, pylint, gcc, make, go, cargo, shellcheck,
 * cppcheck, ctest).  Library-internal: the callus_pu_ prefix keeps them apart
 * from the public API.
 */
#ifndef CALLUS_PARSE_UTIL_H
#define CALLUS_PARSE_UTIL_H

#include <stddef.h>
#include <string.h>

#include <jansson.h>

#include "callus/buf.h"
#include "callus/parse.h"

/*
 * The lines a parser reads.  The filtered text drops the lines without an
 * error keyword or a location, and the tools' context lines are among them
 * (pytest's section headers, shellcheck's "In x.sh line 3:", make's
 * "Entering directory", mypy --pretty's wrapped messages), so the raw output
 * is read instead when the capture kept all of it; each raw line is cleaned
 * as the capture cleans it (ANSI escapes and redraws removed, invalid UTF-8
 * replaced, trailing blanks dropped).  Otherwise, the filtered text.
 */
typedef struct callus_pu_lines {
	const char *p, *end;
	int from_raw;
	int checked;          /* the lines are clean already (in->clean) */
	const char *raw_line; /* the current line as printed (raw lines only) */
	size_t raw_len;
	callus_buf strip, clean; /* scratch for cleaned lines */
} callus_pu_lines;

void callus_pu_lines_init(callus_pu_lines *it, const callus_parse_input *in);
/* 1 with the next line (no '\n', borrowed until the next call), 0 at the
 * end, CALLUS_ENOMEM. */
int callus_pu_lines_next(callus_pu_lines *it, const char **line, size_t *len);
void callus_pu_lines_release(callus_pu_lines *it);
/* line_of(st, line, len) on each line, until it returns a negative code:
 * 0 at the end, or that code (CALLUS_ENOMEM reading a line). */
int callus_pu_each_line(const callus_parse_input *in,
		      int (*line_of)(void *st, const char *line, size_t len), void *st);

/* Messages and test names are cut to this many bytes (at a character
 * boundary): a 4 MB line is no message. */
#define CALLUS_PU_TEXT_MAX 1024

/* len cut to at most max bytes without splitting a UTF-8 sequence. */
size_t callus_pu_cut(const char *s, size_t len, size_t max);
/* callus_diag_set(&d->test, ...), cut to CALLUS_PU_TEXT_MAX. */
int callus_pu_set_test(callus_diag *d, const char *s, size_t len);

/* --- small string helpers ------------------------------------------------ */

/* Whether s[0..len) starts (ends) with the string.  Inline: asked of
 * every line by every parser, almost always with a literal, whose length
 * the compiler then knows (a megabyte of gcc errors: 3 % of recording it
 * went to counting those lengths and calling memcmp on them). */
static inline int callus_pu_starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && !memcmp(s, prefix, n);
}

static inline int callus_pu_ends(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* Offset of needle[0..n) in s[0..len), or -1. */
long callus_pu_findn(const char *s, size_t len, const char *needle, size_t n);

/* Offset of needle in s[0..len), or -1: inline, so that a literal's
 * length is known where it is compiled (a build's every line asks for
 * two, each measured again by strlen). */
static inline long callus_pu_find(const char *s, size_t len, const char *needle)
{
	return callus_pu_findn(s, len, needle, strlen(needle));
}
/* Leading/trailing spaces and tabs removed, in place. */
static inline void callus_pu_trim(const char **s, size_t *len)
{
	const char *p = *s;
	size_t n = *len;

	/* in locals, inline: a parser trims each line's message or two */
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	*s = p;
	*len = n;
}
/* Count of leading spaces and tabs. */
size_t callus_pu_indent(const char *s, size_t len);
/* A decimal number of at most 9 digits at s; *used digits read (0: none). */
long callus_pu_num(const char *s, size_t len, size_t *used);
int callus_pu_is_digit(char c);

/* "path:LINE[:COL]" at the start of s: the path has no blanks, does not
 * start with '<' (<command-line>) and is followed by ':' and a number. */
typedef struct callus_pu_loc {
	const char *path;
	size_t path_len;
	long line, col;
	int has_col; /* a column was printed (pylint's are 0-based) */
	size_t end;  /* offset just past the location and one ':' if any */
} callus_pu_loc;

int callus_pu_location(const char *s, size_t len, callus_pu_loc *loc);
/* The first "path:LINE" anywhere in s whose path has a source extension. */
int callus_pu_find_location(const char *s, size_t len, callus_pu_loc *loc);
/* 1 for C, C++, Objective-C, assembly and header file names. */
int callus_pu_is_c_family(const char *path, size_t len);

/*
 * callus_parse_diag() that tells what became of the diagnostic: *out is the
 * new diagnostic, or NULL when the list was full (it is only counted then,
 * and nothing may be attached to it).  Returns 0 or CALLUS_ENOMEM.
 */
int callus_pu_diag(callus_diag **out, callus_diags *diags, callus_strlist *files,
		 const callus_pathctx *pc, const char *file, size_t file_len, long line, long col,
		 const char *code, size_t code_len, const char *msg, size_t msg_len,
		 const char *severity);

/*
 * A path context for a directory printed by a tool ("Entering directory",
 * "Test project DIR", a cargo package): absolute, or relative to base's
 * directory.  Relative paths then resolve there; when the directory is
 * outside the workspace they resolve nowhere (never to a workspace file of
 * the same name).
 */
typedef struct callus_pu_dir {
	callus_pathctx pc;
	callus_buf rel;
} callus_pu_dir;

void callus_pu_dir_init(callus_pu_dir *d, const callus_pathctx *base);
int callus_pu_dir_set(callus_pu_dir *d, const callus_pathctx *base, const char *dir, size_t len);
void callus_pu_dir_release(callus_pu_dir *d);

/*
 * A linter's "path:LINE[:COL]: CODE message" (flake8, ruff) or
 * "path:LINE: [CODE] message" (their pylint format): the code is letters
 * then digits (E501, F401, SIM102).  Returns 1 and the parts.
 */
int callus_pu_lint_line(const char *s, size_t len, callus_pu_loc *loc, const char **code,
		      size_t *code_len, const char **msg, size_t *msg_len);
/* Letters then 1 to 6 digits: "E501", "ANN001", "PLR0913". */
size_t callus_pu_lint_code(const char *s, size_t len);

/* --- a build's steps ---------------------------------------------------- */

/*
 * What one step of a build printed (make's recipes between two directory
 * changes, a failed ninja edge), read in the directory the build was in
 * (pc): by the first parser of the table whose sniff recognises it (the
 * build tools in skip, NULL-terminated, and gcc aside), then by gcc
 * (compilers are what builds run most, also next to a test runner under
 * `make check`; cppcheck's findings look like gcc's: read once), and by
 * the fallback when neither found anything.  Messages and test names are
 * cut to CALLUS_PU_TEXT_MAX whoever read them.  in gives the command.
 * out's lines are ones callus_pu_lines_next() gave (clean), and are read
 * again as they are.  Returns 0 or CALLUS_ENOMEM.
 */
int callus_pu_build_step(const callus_parse_input *in, const callus_pathctx *pc, const char *out,
		       size_t len, const callus_parser *const *skip, callus_diags *diags,
		       callus_strlist *files);

/* --- stack frames -------------------------------------------------------- */

/* Frames as printed, outermost or innermost first as the tool prints them. */
typedef struct callus_pu_frames {
	callus_strlist fn, file;
	long *line;
	size_t alloc;
} callus_pu_frames;

#define CALLUS_PU_FRAMES_INIT { CALLUS_STRLIST_INIT, CALLUS_STRLIST_INIT, NULL, 0 }
#define CALLUS_PU_FRAMES_MAX 200 /* deeper frames (recursion) are not kept */

int callus_pu_frames_add(callus_pu_frames *f, const char *fn, size_t fn_len, const char *file,
		       size_t file_len, long line);
void callus_pu_frames_clear(callus_pu_frames *f);

/* Index of the first frame inside the workspace, walking from the innermost
 * end (innermost_last: the last frame is the innermost, as in Python); -1
 * when none is. */
long callus_pu_frames_locate(const callus_pu_frames *f, const callus_pathctx *pc, int innermost_last);
/* Attach the in-workspace frames to d, innermost first. */
int callus_pu_frames_attach(callus_diag *d, const callus_pu_frames *f, const callus_pathctx *pc,
			  int innermost_last);

/* --- Python -------------------------------------------------------------- */

/* `File "x.py", line 12, in fn` (leading blanks allowed). */
int callus_pu_py_frame(const char *s, size_t len, const char **file, size_t *file_len,
		     long *line, const char **fn, size_t *fn_len);
/* An exception line, "ValueError: msg" or "pkg.Error": returns the length
 * of the type name (0 when the line is not one); *msg is what follows. */
size_t callus_pu_py_exception(const char *s, size_t len, const char **msg, size_t *msg_len);
/* The same without the naming rules (socket.gaierror, module-level
 * exceptions named in lowercase): for the line right after a traceback's
 * frames, where nothing else can stand. */
size_t callus_pu_py_exception_any(const char *s, size_t len, const char **msg, size_t *msg_len);

/*
 * One diagnostic for a Python failure: located at the innermost frame
 * inside the workspace (frames outermost first, as Python prints them),
 * else at fallback_file:fallback_line; code is the exception type; the
 * test's own file (may be NULL) is an affected file too.
 */
typedef struct callus_pu_py_failure {
	const callus_pu_frames *frames;
	const char *fallback_file;
	long fallback_line;
	const char *type, *msg, *test, *test_file; /* NUL-terminated; may be NULL */
} callus_pu_py_failure;

int callus_pu_py_emit(callus_diags *diags, callus_strlist *files, const callus_pathctx *pc,
		    const callus_pu_py_failure *f);

/* --- a failing test being read ------------------------------------------- */

/* Messages of failing tests are cut to this many bytes: a lesson, not a log. */
#define CALLUS_PU_MESSAGE_MAX 300

/*
 * A failing test (or a crash) as a runner prints it, assembled line by line
 * (rspec, minitest, phpunit, ExUnit, prove): its name, its exception's
 * class, its message (lines joined by one space), the location the runner
 * names (fallback_*: the test's own line) and the frames of its stack.
 * Emitted as one diagnostic at the innermost frame inside the workspace,
 * else at the fallback location; the fallback's file and the frames' files
 * inside the workspace are affected files.  Frames without a function are
 * not attached.
 */
typedef struct callus_pu_fail {
	int open;
	int innermost_last; /* the frames' order: Python's, or Ruby's and PHP's */
	callus_buf test, type, msg, file;
	long line;
	callus_pu_frames frames;
} callus_pu_fail;

void callus_pu_fail_init(callus_pu_fail *f, int innermost_last);
/* Start a new failure (the previous one must have been flushed). */
void callus_pu_fail_start(callus_pu_fail *f);
/* Append a part of the message: blanks collapsed, cut at CALLUS_PU_MESSAGE_MAX. */
int callus_pu_fail_msg(callus_pu_fail *f, const char *s, size_t len);
/* Emit the open failure (nothing when none is open) and close it. */
int callus_pu_fail_flush(callus_pu_fail *f, callus_diags *diags, callus_strlist *files,
		       const callus_pathctx *pc);
void callus_pu_fail_release(callus_pu_fail *f);

/* --- Ruby ---------------------------------------------------------------- */

/* A backtrace line, "PATH:LINE:in `fn'" (Ruby 3.4: 'Class#fn'), after
 * blanks and rspec's "# ".  fn is empty for a block or a file's top level
 * ("block (2 levels) in <top (required)>"): no method is named there. */
int callus_pu_ruby_frame(const char *s, size_t len, const char **file, size_t *file_len,
		       long *line, const char **fn, size_t *fn_len);

/* --- sniffing ------------------------------------------------------------ */

/* Call fn on each line of text; 1 as soon as it returns 1.  fn reads the
 * line alone: a line equal to the one before it is not asked again. */
int callus_pu_any_line(const char *text, size_t len, int (*fn)(const char *, size_t));

/* The raw output as one JSON document (an array or an object, as
 * `pylint --output-format=json` or `shellcheck -f json1` print), when the
 * capture kept all of it; NULL otherwise.  A new reference. */
json_t *callus_pu_json_document(const callus_parse_input *in);

#endif
