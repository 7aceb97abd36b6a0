/*
 * common.h - error codes and the error record shared by every libcallus module.
 *
 * Convention (after libgit2): a function that can fail returns 0 on success
 * or a negative CALLUS_E* code; outputs come first and are named `out`.  When a
 * `callus_error *err` is passed (it may be NULL), the message is set once, at
 * the place the failure is detected, and callers pass it up unchanged.  The
 * library never prints and never exits: only the CLI does.
 */
#ifndef CALLUS_COMMON_H
#define CALLUS_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum {
	CALLUS_OK = 0,
	CALLUS_ERROR = -1,    /* generic failure */
	CALLUS_ENOMEM = -2,   /* out of memory, or a size computation overflowed */
	CALLUS_EINVAL = -3,   /* bad input from the caller or the user */
	CALLUS_EIO = -4,      /* the file system or the store refused */
	CALLUS_EBUSY = -5,    /* the store stayed locked past the timeout */
	CALLUS_ENOTFOUND = -6,
	CALLUS_ETOOBIG = -7,  /* a buffer would grow past its ceiling */
	CALLUS_EUNSAFE = -8,  /* writing would leave the workspace (callus/workspace.h) */
	CALLUS_EEXIST = -9,   /* already recorded: the run's origin is in the store */
	CALLUS_ECHANGED = -10 /* a file changed since it was read: left as it is */
};

/*
 * An error record.  Zero-initialise it (CALLUS_ERROR_INIT); release it with
 * callus_error_release().  `msg` is empty until callus_error_set() is called.
 */
typedef struct callus_error {
	int code;
	char *msg; /* owned; NULL when no error has been set */
} callus_error;

#define CALLUS_ERROR_INIT { 0, NULL }

/* Record code and message in err (if err is not NULL) and return code.  The
 * first message wins: a later set on the same record is ignored, so the
 * message that reaches the user names the root cause. */
int callus_error_set(callus_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The message, or a generic text for the code when none was set.  Borrowed:
 * valid until the record is released or set again. */
const char *callus_error_message(const callus_error *err);

void callus_error_release(callus_error *err);

/* Overflow-checked size arithmetic: return 0 and store the result, or
 * CALLUS_ENOMEM when it would wrap. */
static inline int callus_size_add(size_t *out, size_t a, size_t b)
{
	if (a > (size_t)-1 - b)
		return CALLUS_ENOMEM;
	*out = a + b;
	return 0;
}

static inline int callus_size_mul(size_t *out, size_t a, size_t b)
{
	if (a && b > (size_t)-1 / a)
		return CALLUS_ENOMEM;
	*out = a * b;
	return 0;
}

/* A hash of s[0..len) for an in-memory table: eight bytes a step, each
 * step's product folded back.  For strings of a few dozen to a few
 * hundred bytes (paths, lines of output, SQL); no adversary worse than a
 * slow lookup; never stored. */
static inline uint64_t callus_text_hash(const char *s, size_t len)
{
	const uint64_t k = 0x9e3779b97f4a7c15u;
	uint64_t h = len * k, w;
	size_t i = 0;

	for (; i + 8 <= len; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * k;
		h ^= h >> 32;
	}
	if (i < len) {
		w = 0;
		memcpy(&w, s + i, len - i);
		h = (h ^ w) * k;
		h ^= h >> 32;
	}
	return h;
}

/* Whether a and b are the same text, or both NULL (a field a diagnostic
 * may leave unset). */
static inline int callus_str_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

#endif
