/*
 * detect.h - does a shell command line run a verification tool (linter,
 * test runner, type checker, compiler), and which one (DESIGN §3.1)?
 *
 * The command line is split like a POSIX shell would split it (quotes,
 * escapes, `&&` `||` `;` `|` `&` newlines, parentheses, redirections, here
 * documents, comments) into simple commands.  `$(...)`, backticks and
 * process substitutions are kept as opaque words: what runs inside them is
 * never detected.  In each simple command, leading NAME=value assignments,
 * shell keywords (`!`, `if`, `then`, `do`, ...) and wrappers (env, time,
 * nice, nohup, timeout, sudo, xvfb-run, command, exec, stdbuf, xargs, npx,
 * pnpx, bunx, uvx, `npm exec`, `pnpm exec|dlx`, `yarn dlx|exec`, `bun x`,
 * `uv run`, `poetry run`, `pipenv run`) are skipped; `sh|bash|... -c STRING`
 * is looked into, one level deep.  The program is then named by its base
 * name with a version suffix dropped (/usr/bin/python3.11 -> python,
 * gcc-12 -> gcc), a few tools have their options put aside so that their
 * subcommand or target can be matched (python -m, make, npm/pnpm/yarn/bun,
 * go, cargo, node --test), and the result is matched against the whitelist
 * patterns.  docs/config.md lists the patterns and these rules.
 *
 * The first simple command that matches is reported.  Every call is pure
 * computation: no I/O, no regular expressions, no global state, so the hook
 * can afford it on every command.
 */
#ifndef CALLUS_DETECT_H
#define CALLUS_DETECT_H

#include <stddef.h>

#include "callus/common.h"
#include "callus/config.h"
#include "callus/lesson.h"

/*
 * A whitelist pattern: words matched against the first words of a simple
 * command after the normalization above.  A word ending in '*' matches any
 * word that starts with what precedes the '*' ("test:*" matches "test:unit").
 */
typedef struct callus_pattern {
	const char *pattern;       /* the text `remove =` names, e.g. "npm run lint" */
	const char *tool;          /* canonical tool name; NULL: the matched words
				    * joined by spaces; a '*' in it stands for the
				    * word the pattern's '*' word matched */
	callus_lesson_type category;
	unsigned name_words;       /* how many of the matched words the tool name
				    * stands for, 0 for all; the others stay in the
				    * arguments ("make check": tool "make", args
				    * "check") */
} callus_pattern;

/* The i-th built-in pattern, in matching order, or NULL past the end. */
const callus_pattern *callus_whitelist_builtin(size_t i);

typedef struct callus_whitelist callus_whitelist;

/*
 * Build the whitelist: the built-ins, minus every `[verify] remove`, plus
 * every `[verify] add` (cfg may be NULL for the built-ins alone).  A pattern
 * that is empty, not a single simple command, or a remove that names no
 * built-in pattern gives CALLUS_EINVAL with the config's file and line
 * ("'.callus/config' line 4: 'remove = mak' names no built-in pattern").
 * The whitelist copies what it needs: cfg may be freed afterwards.  The
 * caller frees *out with callus_whitelist_free(); it is read-only and may be
 * shared by threads.
 */
int callus_whitelist_new(callus_whitelist **out, const callus_config *cfg, callus_error *err);

/* Accepts NULL. */
void callus_whitelist_free(callus_whitelist *wl);

/*
 * The result of callus_detect().  When verification is 0 the strings are
 * NULL.  Otherwise, all owned by the struct (callus_detection_release):
 *
 *   tool  canonical name: "eslint", "pytest" (also for python3 -m pytest),
 *         "unittest", "go test", "cargo clippy", "make" (every target),
 *         "npm test" (for npm test, npm t, npm run test), "npm run lint",
 *         "pnpm run lint" (also for the shorthand pnpm lint), "bun test"
 *         (bun's own runner) vs "bun run test" (the package script), and for
 *         an added pattern its words ("just test", "check.sh").
 *   dir   the directory the tool runs in, relative to where the command line
 *         started: the `cd`/`pushd` targets before it in the same chain and
 *         its wrappers' directory options (env -C, make -C, npm --prefix,
 *         pnpm -C, yarn --cwd, ...) joined with '/', with "." components and
 *         doubled or trailing slashes dropped; NULL when it is the start
 *         directory.  Absolute when a component was; never expanded (~, $X).
 *   args  the tool's arguments: the words after the program that are not part
 *         of the tool name and were not a directory option, one space apart;
 *         a word with characters outside [A-Za-z0-9_@%+=:,./-] is put in
 *         single quotes, so word boundaries survive ("" when none).
 *
 * (tool, args, dir) identifies a check across runs.
 */
typedef struct callus_detection {
	int verification;          /* 1 when a whitelisted tool runs */
	char *tool;
	callus_lesson_type category;
	char *dir;
	char *args;
	int status_masked;         /* the line's exit status need not be the
				    * tool's: a pipe after it (no pipefail),
				    * `|| X`, `; X`, `&`, a leading `!`; a 0 then
				    * proves nothing */
} callus_detection;

#define CALLUS_DETECTION_INIT { 0, NULL, CALLUS_LESSON_OTHER, NULL, NULL, 0 }

/*
 * Classify `command`.  wl NULL means the built-in whitelist.  A command line
 * a shell would reject (unterminated quote, unbalanced parenthesis) runs
 * nothing, so it is not a verification: 0 is returned with verification 0.
 * Tool runs that only print information (sole argument --version, --help,
 * -h or -V) are not verifications either.  Errors: CALLUS_EINVAL for a NULL
 * argument, CALLUS_ENOMEM.  *out is overwritten (release it first if reused).
 */
int callus_detect(callus_detection *out, const callus_whitelist *wl, const char *command,
		callus_error *err);

/*
 * args (a detection's, quoted word by word) written again as callus_detect()
 * writes the words it holds.  A check's args are redacted once detected: a
 * secret that needed quotes leaves them around its [REDACTED:...] marker,
 * which needs none, and the args detected from the redacted command line (a
 * queued run, drained) have none; both must name one check.  Args that are
 * not a list of words are copied as they are.  0, or CALLUS_ENOMEM,
 * CALLUS_EINVAL; the caller frees *out.
 */
int callus_detect_requote(char **out, const char *args);

/*
 * command, redacted, with the quote its redaction took closed again, or
 * NULL (nothing to close: no redaction, or a shell reads it whole; no
 * quote makes it read; no memory).  A secret whose value runs into a
 * script's closing quote (sh -c '... --password=X') is redacted with the
 * quote and the rest of the line, since the quote may as well be the
 * password's own; the command then reads as no command, and a queued run
 * of it would name no check.  Closed at the end, it names the check the
 * live command named.  The caller frees the result.
 */
char *callus_detect_close_quote(const char *command);

/* Free the strings and reset *d to CALLUS_DETECTION_INIT; accepts NULL. */
void callus_detection_release(callus_detection *d);

#endif
