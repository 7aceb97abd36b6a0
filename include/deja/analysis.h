/*
 * analysis.h - the capture pipeline's result: a VerificationFailure (spec
 * 000) built from what ran and what it printed, and its JSON form, which
 * is the stable interface of `deja analyze` (docs/analyze.md).
 */
#ifndef DEJA_ANALYSIS_H
#define DEJA_ANALYSIS_H

#include <stdint.h>

#include "deja/buf.h"
#include "deja/capture.h"
#include "deja/common.h"
#include "deja/extract.h"
#include "deja/lesson.h"
#include "deja/paths.h"
#include "deja/signature.h"
#include "deja/strlist.h"

/* What ran.  Borrowed strings. */
typedef struct deja_check {
	const char *command;
	int exit_code;
	int verification;         /* the command is a whitelisted tool */
	const char *tool;         /* canonical tool name, or NULL */
	deja_lesson_type category;
} deja_check;

/* The analysis of one run; every pointer is owned by the struct. */
typedef struct deja_failure {
	int verification;
	int failed;               /* a verification command exited non-zero */
	char *tool;
	deja_lesson_type category;
	char *command;
	int exit_code;
	deja_strlist files;       /* affected files, workspace-relative */
	char *summary;            /* at most DEJA_SUMMARY_MAX bytes, never NULL */
	deja_signature *sigs;     /* the distinct signatures of diags, in order of
				   * first appearance; each diag names its id */
	size_t nsigs;
	const char *parser;       /* the parser that read the output ("generic" when
				   * none knew it); static, NULL when nothing was parsed */
	deja_diags diags;
	uint64_t output_bytes, output_lines, dropped_lines;
} deja_failure;

/*
 * Build the analysis of a finished run.  Errors, files and summary are
 * extracted only for a failed verification command; otherwise they are
 * empty.  The capture must have been finished (deja_capture_finish).
 */
int deja_failure_build(deja_failure *out, const deja_check *chk, const deja_capture *cap,
		       const deja_pathctx *pc, deja_error *err);

/* Append the JSON object of `deja analyze` (one line, no newline). */
int deja_failure_to_json(deja_buf *out, const deja_failure *f);

/* The primary affected file: the first diagnostic's file, else the first
 * affected file, else "".  Borrowed from f. */
const char *deja_failure_primary_file(const deja_failure *f);

/* What reported the errors: the parser's name, else the tool.  Borrowed. */
const char *deja_failure_framework(const deja_failure *f);

void deja_failure_release(deja_failure *f);

#endif
