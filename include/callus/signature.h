/*
 * signature.h - error signatures (spec 004): what identifies an error
 * across runs, files, lines and identifiers.
 *
 *   error_type        the code or rule (TS2322, no-unused-vars, E0308), else
 *                     the exception class (AssertionError), else a kind
 *                     derived from the tool ("jest:toBe", "go:panic")
 *   message_pattern   the message with its variable parts replaced by typed
 *                     placeholders; itself a PCRE2 regular expression that
 *                     matches the original message.  Placeholders are marked
 *                     with comments: (?#path), (?#num), (?#str), (?#hex),
 *                     (?#uuid), (?#date), (?#duration), (?#tmp), (?#url)
 *   stack_patterns    in-project frames: "function@file-basename", no lines
 *   context_patterns  file types, framework, dependencies (context.h)
 *   original          the message as printed (metadata)
 *   id                SHA-256 over error_type, message_pattern and
 *                     stack_patterns: the same error after lines moved keeps
 *                     its id; another error gets another
 */
#ifndef CALLUS_SIGNATURE_H
#define CALLUS_SIGNATURE_H

#include <stddef.h>
#include <stdint.h>

#include "callus/buf.h"
#include "callus/extract.h"
#include "callus/hash.h"
#include "callus/strlist.h"

typedef struct callus_signature {
	char id[CALLUS_SHA256_HEX_LEN + 1];
	char *error_type;
	char *message_pattern;
	callus_strlist stack_patterns;
	callus_strlist context_patterns;
	char *original;
	char *tool;
	/* message_pattern is callus_message_pattern(original), as
	 * callus_signature_build makes them: the store keeps no pattern of
	 * it (callus_signature_pattern_stored), asked without making it
	 * again.  0 wherever else a signature comes from. */
	int pattern_of_original;
} callus_signature;

/*
 * Append to out the pattern of msg[0..len): literal text regex-escaped,
 * variable parts replaced by placeholders, scanned left to right with a
 * fixed precedence (quoted value, URL, temp dir, UUID, date, hex, duration,
 * path, number).  Whitespace runs become \s+.
 */
int callus_message_pattern(callus_buf *out, const char *msg, size_t len);

/* The pattern schema 41 and older made: ld's `name' was no quoted value
 * (two literal quotes around a word), and a hint was part of the message.
 * For the migration to version 42, which writes such patterns out
 * (below); nothing else. */
int callus_message_pattern_v41(callus_buf *out, const char *msg, size_t len);

/*
 * msg[0..len) without the hints a compiler or an interpreter adds by what
 * is near in the code, not by the error: "; did you mean ‘count’?" (gcc,
 * clang), ". Did you mean: 'count'?" (Python) at its end, " {aka ‘long
 * int’}" after a type (g++).  The pattern is made of the message without
 * them, and the regex fallback matches it so.  1 with it in out
 * (cleared first), 0 when it has none (out cleared), or CALLUS_ENOMEM.
 */
int callus_message_unhinted(callus_buf *out, const char *msg, size_t len);

/* The length of the duration s[0..len) starts with ("12ms", "1.5 s",
 * "300 ms", "2.01sec": digits, a fraction, at most one space, a unit, no
 * word character after it), 0 when none.  The one callus_message_pattern
 * reads, so its units are as fixed as the ids. */
size_t callus_duration_len(const char *s, size_t len);

/*
 * A store row keeps its message_pattern empty when it is the one
 * callus_message_pattern makes of the row's original (every signature
 * callus_signature_build makes): the message is not held twice, and a
 * reader makes the pattern again.  The pattern is as fixed as the ids it
 * goes into (above); a change of callus_message_pattern needs a migration
 * that writes the old patterns out first.
 *
 * callus_signature_pattern_stored: what the row of g keeps in *out, ""
 * or g->message_pattern (not owned).  0, or CALLUS_ENOMEM.
 * callus_signature_pattern_load: appends to out the pattern of a row that
 * keeps stored (NULL: none) and original.  0, or CALLUS_ENOMEM.
 */
int callus_signature_pattern_stored(const callus_signature *g, const char **out);
int callus_signature_pattern_load(callus_buf *out, const char *stored, const char *original);

/* 0 when pattern (one callus_message_pattern made) cannot match msg as a
 * whole: a literal run of it is missing from msg; else 1.  A cheap test
 * before compiling it. */
int callus_pattern_may_match(const char *pattern, const char *msg);

/* The same test for the pattern of message, without making it: what
 * callus_pattern_may_match says of callus_message_pattern(message), and it
 * stops at the first run msg lacks (a row keeps no pattern its original
 * makes, above). */
int callus_message_may_match(const char *message, const char *msg);

/* The same in two halves, for a message tried against many messages:
 * callus_message_runs puts the literal runs the test looks for into out,
 * each ended by a NUL and the last by an empty one (0, or CALLUS_ENOMEM);
 * callus_runs_may_match answers for msg as callus_message_may_match
 * answers for the message they were made of. */
int callus_message_runs(callus_buf *out, const char *message);
int callus_runs_may_match(const char *runs, const char *msg);

/*
 * A sketch of a stored signature, kept beside it in the store's index of
 * each error type's newest (signatures.sketch), so that the regex fallback
 * passes over unread the rows a message cannot match:
 *   bits 0 to CALLUS_SKETCH_LITERAL_BITS - 1: a bit for each 3 bytes of
 *     each literal run the tests above look for; none set for a pattern
 *     made by another version, which any message may match;
 *   the sign: the row has stack patterns, which match by a shared frame.
 * The value fits the 6 bytes SQLite keeps an integer below 2^47 in.  The
 * bits are stored: a change of the hash or of the layout needs a
 * migration.
 *
 * callus_signature_sketch: the sketch of the row that keeps stored (NULL
 * or "": none) and original, has_stack when it has stack patterns.
 * callus_message_mask: the bits of every 3 bytes of msg.
 * callus_sketch_may_match: 0 when the row of sketch cannot match a message
 * of mask msg_mask (and has_stack: with stack patterns of its own): no
 * literal run of it can be in the message, nor a frame shared; else 1.
 */
#define CALLUS_SKETCH_LITERAL_BITS 47
int64_t callus_signature_sketch(const char *stored, const char *original, int has_stack);
uint64_t callus_message_mask(const char *msg);
int callus_sketch_may_match(int64_t sketch, uint64_t msg_mask, int has_stack);

/* The error type of a diagnostic printed by tool (see above); caller frees. */
char *callus_error_type(const callus_diag *d, const char *tool);

/*
 * Does error type t name one rule of its tool (TS2339, W0611, uninitvar,
 * no-unused-vars, -Wint-conversion, clippy::ptr_arg, jest's matcher
 * expect.toBe), rather than a kind many different errors share (error,
 * warning, panic, test-failure, an exception class such as
 * AssertionError)?  Two errors of one rule with close messages are that
 * rule hit twice; two of one kind need not be (match.c weighs them so).
 */
int callus_error_type_is_rule(const char *t);

/*
 * The id of an error (above) of error_type, pattern (what
 * callus_message_pattern made of its message) and stack patterns (NULL:
 * none) into id.  0, or CALLUS_ENOMEM.
 */
int callus_signature_id(char id[CALLUS_SHA256_HEX_LEN + 1], const char *error_type,
			const char *pattern, const callus_strlist *stack);

/*
 * Build the signature of a diagnostic.  context (may be NULL) is copied in
 * as context_patterns; it does not enter the id.  Release with
 * callus_signature_release().
 */
int callus_signature_build(callus_signature *out, const callus_diag *d, const char *tool,
			 const callus_strlist *context);

void callus_signature_release(callus_signature *s);

/*
 * Sign every diagnostic (setting its `signature` to the id) and return the
 * distinct signatures in order of first appearance: *out is an array of
 * *count, freed with callus_signatures_free().  The context patterns come
 * from the affected files, the framework and the manifests of the check's
 * directory (pc->workspace + pc->cwd_rel) and of the workspace.
 */
int callus_signatures_for(callus_signature **out, size_t *count, callus_diags *diags,
			const callus_strlist *files, const char *framework, const callus_pathctx *pc);

void callus_signatures_free(callus_signature *sigs, size_t count);

#endif
