/*
 * analysis.h - the capture pipeline's result: a VerificationFailure (spec
 * 000) built from what ran and what it printed, and its JSON form, which
 * is the stable interface of `callus analyze` (docs/analyze.md).
 */
#ifndef CALLUS_ANALYSIS_H
#define CALLUS_ANALYSIS_H

#include <stdint.h>

#include "callus/buf.h"
#include "callus/capture.h"
#include "callus/common.h"
#include "callus/extract.h"
#include "callus/lesson.h"
#include "callus/paths.h"
#include "callus/signature.h"
#include "callus/strlist.h"

/* What ran.  Borrowed strings. */
typedef struct callus_check {
	const char *command;
	int exit_code;
	int verification;         /* the command is a whitelisted tool */
	const char *tool;         /* canonical tool name, or NULL */
	callus_lesson_type category;
} callus_check;

/* The analysis of one run; every pointer is owned by the struct. */
typedef struct callus_failure {
	int verification;
	int failed;               /* a verification command exited non-zero */
	char *tool;
	callus_lesson_type category;
	char *command;
	int exit_code;
	callus_strlist files;       /* affected files, workspace-relative */
	char *summary;            /* at most CALLUS_SUMMARY_MAX bytes, never NULL */
	callus_signature *sigs;     /* the distinct signatures of diags, in order of
				   * first appearance; each diag names its id
				   * (after callus_failure_sign) */
	size_t nsigs;
	const char *parser;       /* the parser that read the output ("generic" when
				   * none knew it); static, NULL when nothing was parsed */
	callus_diags diags;
	uint64_t output_bytes, output_lines, dropped_lines;
} callus_failure;

/*
 * Build the analysis of a finished run.  Errors, files and summary are
 * extracted only for a failed verification command; otherwise they are
 * empty.  The capture must have been finished (callus_capture_finish).
 */
int callus_failure_build(callus_failure *out, const callus_check *chk, const callus_capture *cap,
		       const callus_pathctx *pc, callus_error *err);

/*
 * Sign the diagnostics: f->sigs and each diag's signature.  Apart from the
 * build because a recording signs the redacted copies instead
 * (callus_record_signatures), and signing 1,000 errors twice was a tenth
 * of recording them.
 */
int callus_failure_sign(callus_failure *f, const callus_pathctx *pc, callus_error *err);

/* Append the JSON object of `callus analyze` (one line, no newline). */
int callus_failure_to_json(callus_buf *out, const callus_failure *f);

/* The primary affected file: the first diagnostic's file, else the first
 * affected file, else "".  Borrowed from f. */
const char *callus_failure_primary_file(const callus_failure *f);

/* What reported the errors: the parser's name, else the tool.  Borrowed. */
const char *callus_failure_framework(const callus_failure *f);

void callus_failure_release(callus_failure *f);

#endif
