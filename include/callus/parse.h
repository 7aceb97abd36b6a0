/*
 * parse.h - per-tool output parsers, behind one interface.
 *
 * A parser turns a tool's output into diagnostics (file, line, column,
 * code, severity, message, failing test, stack frames) and affected files.
 * callus_parser_select() picks one by the detected tool name, else by the
 * output's content (`npm test` running jest); the generic extractor
 * (extract.h) is the fallback, and also runs when a parser finds nothing.
 *
 * Every parser is in src/parsers/<name>.c and registered in the table of
 * src/parse.c; every parser has a fuzz target (fuzz/fuzz_parsers.c runs
 * them all).  Parsers are pure: no I/O, no global state.
 */
#ifndef CALLUS_PARSE_H
#define CALLUS_PARSE_H

#include <stddef.h>
#include <string.h>

#include "callus/buf.h"
#include "callus/extract.h"
#include "callus/paths.h"
#include "callus/strlist.h"

/* What a parser reads.  Borrowed; valid during the call. */
typedef struct callus_parse_input {
	const char *text;    /* the filtered lines: ANSI-free, valid UTF-8, each
			      * '\n'-terminated but perhaps the last (a
			      * build step taken where it lies: make.c) */
	size_t text_len;
	const char *raw;     /* the output as printed (first CALLUS_CAPTURE_HEAD_MAX bytes):
			      * for structured formats (eslint -f json, cargo JSON) */
	size_t raw_len;
	int raw_complete;    /* raw is the whole output */
	const char *tool;    /* detected tool name, e.g. "npm test"; may be "" */
	const char *command; /* the command line; may be "" */
	const callus_pathctx *pc;
	int clean;           /* text's and raw's lines were read and cleaned
			      * already (a build step's, cut out by its
			      * wrapper): read as they are */
} callus_parse_input;

/* Append diagnostics and affected files; 0 or a negative CALLUS_E* code. */
typedef int (*callus_parse_fn)(const callus_parse_input *in, callus_diags *diags, callus_strlist *files);

typedef struct callus_parser {
	const char *name;         /* "eslint", "tsc", "jest", "gcc", ... */
	const char *const *tools; /* detected tool names it handles, NULL-terminated */
	/* 1 when text (filtered lines) looks like this tool's output; for
	 * wrappers such as npm test.  May be NULL (never chosen by content). */
	int (*sniff)(const char *text, size_t len);
	callus_parse_fn parse;
	/* May be NULL.  Set when sniff is "sniff_line takes one of the
	 * text's lines" (callus_pu_any_line): then the table's search asks it
	 * of each line as the lines are read once for every such parser
	 * (callus_parser_sniff_first), not after each parser read them
	 * again. */
	int (*sniff_line)(const char *line, size_t len);
} callus_parser;

/* The parser for a tool, by name, else by content; NULL when none fits.
 * The result points into a constant table. */
const callus_parser *callus_parser_select(const char *tool, const char *text, size_t len);

/*
 * Whether text looks like p's output.  A tool names itself at the start of
 * its output or in its closing summary, so only the first and the last
 * CALLUS_SNIFF_WINDOW bytes (in whole lines) are shown to p->sniff: sniffing
 * every parser over a 4 MB output would cost more than parsing it.
 */
#define CALLUS_SNIFF_WINDOW (64 * 1024)
int callus_parser_sniff(const callus_parser *p, const char *text, size_t len);

/*
 * The first parser of the table that callus_parser_sniff() takes text
 * for, but those skip(p, arg) refuses (skip may be NULL); NULL when none:
 * what asking each in the table's order gives.  The parsers that sniff a
 * line at a time (sniff_line) are asked as each line of the windows is
 * read once: 46 parsers each read a build step's 128 KB of lines again.
 */
const callus_parser *callus_parser_sniff_first(const char *text, size_t len,
					       int (*skip)(const callus_parser *, const void *),
					       const void *arg);

/* By parser name; NULL if unknown. */
const callus_parser *callus_parser_find(const char *name);

/* The registered parsers, for tests and fuzzing. */
const callus_parser *callus_parser_at(size_t i); /* NULL past the end */

/* --- helpers for parsers ------------------------------------------------ */

/* Iterate lines of [p, end): returns 1 with *line, *len (no '\n'), 0 at end.
 * Inline: the table's sniffs walk the lines of a build step's two windows
 * with it, 128 KB. */
static inline int callus_next_line(const char **cursor, const char *end, const char **line,
				   size_t *len)
{
	const char *p = *cursor, *nl;

	if (p >= end)
		return 0;
	nl = (const char *)memchr(p, '\n', (size_t)(end - p));
	*line = p;
	*len = (size_t)((nl ? nl : end) - p);
	*cursor = nl ? nl + 1 : end;
	return 1;
}

/* The next line of [p, end) that is not the line before it again (*prev,
 * *prev_len: the last line returned, NULL before the first): a build
 * prints one diagnostic for each of its steps, thousands of times, and a
 * sniff reads each line alone. */
static inline int callus_next_new_line(const char **cursor, const char *end, const char **line,
				       size_t *len, const char **prev, size_t *prev_len)
{
	while (callus_next_line(cursor, end, line, len))
		if (!*prev || *len != *prev_len || memcmp(*line, *prev, *len)) {
			*prev = *line;
			*prev_len = *len;
			return 1;
		}
	return 0;
}

/*
 * Note an affected file printed as p[0..len): relativized against in->pc
 * and added to files (once).  Returns 1 and leaves the relative path in rel
 * (cleared first; may be NULL) when it is an affected file, else 0.
 */
int callus_parse_file(callus_strlist *files, callus_buf *rel, const callus_pathctx *pc, const char *p,
		    size_t len);

/*
 * Add a diagnostic at a printed location: the file is relativized (NULL
 * when outside the workspace, and then not an affected file), noted, and
 * the diagnostic appended.  Lengths: 0 means absent (code) or empty.
 * Returns 0, 1 when the list was full, or CALLUS_ENOMEM.
 */
int callus_parse_diag(callus_diags *diags, callus_strlist *files, const callus_pathctx *pc,
		    const char *file, size_t file_len, long line, long column, const char *code,
		    size_t code_len, const char *message, size_t message_len, const char *severity);

/* The fallback as a parser: JUnit XML or TAP when the output is one (for
 * any tool), else the generic extractor. */
int callus_parse_generic(const callus_parse_input *in, callus_diags *diags, callus_strlist *files);

#endif
