/*
 * failtext.h - whether a check's output reads like a failure.
 *
 * callus learns from exit statuses; this is for when there is none to trust:
 * an agent that does not report it (Cursor's afterShellExecution, Codex
 * without its transcript) or a command line that hides the tool's behind
 * another command's (`eslint . | tail`, `|| true`).  An unknown status
 * never fixes anything; with this, a failure can still be recorded.
 */
#ifndef CALLUS_FAILTEXT_H
#define CALLUS_FAILTEXT_H

#include <stddef.h>

/*
 * 1 when output[0..len) reads like a failed check, 0 otherwise.  Looks for
 * the lines failing tools print: "npm ERR!", eslint's "✖ N problems (N
 * errors", jest's "Tests: N failed" and "FAIL ", pytest's "FAILED" and "= N
 * failed", "error TS1234", "error:"/"Error:" at the start of a line or after
 * "file:line:col: ", "error[E0308]", "make: *** ", "Traceback (most recent
 * call last)", "command not found", "Found N errors", "exit code N" /
 * "exited with code N" (N != 0).  ANSI colour sequences are skipped.  A
 * heuristic: a guess, never a fact.  NULL output gives 0.
 */
int callus_output_looks_failed(const char *output, size_t len);

#endif
