/*
 * summary.h - the error summary an agent is shown: at most
 * CALLUS_SUMMARY_MAX bytes cut from a failed check's output and what its
 * parser understood, by one rule for every tool (docs/analyze.md):
 *
 *  1. every distinct failure its essentials: one line ("FAIL test at
 *     file:line:col: code: message") and the first "-" and "+" lines of
 *     its diff, the budget shared so that the first one cannot crowd out
 *     the others (each gets its location and the start of its message
 *     before any gets more);
 *  2. the totals line ("3 failed, 4 passed");
 *  3. what is left to the output's own lines, those saying what failed
 *     first, none that only repeats a failure already listed.
 *
 * The summary is for reading: nothing identifies a failure by it except
 * the lesson's signature (callus_lesson_sign).
 */
#ifndef CALLUS_SUMMARY_H
#define CALLUS_SUMMARY_H

#include <stddef.h>

#include "callus/extract.h"
#include "callus/paths.h"

/*
 * Build the summary of text[0..len) (the filtered output, '\n'-separated)
 * and diags (may be NULL); output[0..output_len) is the output as printed
 * (may be NULL), where each failure's first diff lines are looked for.
 * Workspace prefixes of absolute paths are dropped.  *out is malloc'd,
 * owned by the caller, never longer than CALLUS_SUMMARY_MAX, "" when there
 * is nothing to say.  Returns 0 or CALLUS_ENOMEM.
 */
int callus_summary_build(char **out, const char *text, size_t len, const char *output,
			 size_t output_len, const callus_pathctx *pc, const callus_diags *diags);

/* 1 when line says how many failed or ran ("3 fail", "Tests: 2 failed,
 * 5 passed", "FAILED (failures=2)", "Found 4 errors"). */
int callus_summary_is_totals(const char *line, size_t len);

/* 1 when every word of line, but the status words (fail, error ...) and
 * durations (0.18ms), appears in parsed, in the same order: the line
 * repeats what parsed already says ("(fail) a > b [0.1ms]" after "FAIL a >
 * b at t.ts:3: ..."). */
int callus_summary_repeats(const char *line, size_t len, const char *parsed, size_t parsed_len);

#endif
