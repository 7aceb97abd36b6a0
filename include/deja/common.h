/*
 * common.h - error codes and the error record shared by every libdeja module.
 *
 * Convention (after libgit2): a function that can fail returns 0 on success
 * or a negative DEJA_E* code; outputs come first and are named `out`.  When a
 * `deja_error *err` is passed (it may be NULL), the message is set once, at
 * the place the failure is detected, and callers pass it up unchanged.  The
 * library never prints and never exits: only the CLI does.
 */
#ifndef DEJA_COMMON_H
#define DEJA_COMMON_H

#include <stddef.h>

enum {
	DEJA_OK = 0,
	DEJA_ERROR = -1,    /* generic failure */
	DEJA_ENOMEM = -2,   /* out of memory, or a size computation overflowed */
	DEJA_EINVAL = -3,   /* bad input from the caller or the user */
	DEJA_EIO = -4,      /* the file system or the store refused */
	DEJA_EBUSY = -5,    /* the store stayed locked past the timeout */
	DEJA_ENOTFOUND = -6,
	DEJA_ETOOBIG = -7   /* a buffer would grow past its ceiling */
};

/*
 * An error record.  Zero-initialise it (DEJA_ERROR_INIT); release it with
 * deja_error_release().  `msg` is empty until deja_error_set() is called.
 */
typedef struct deja_error {
	int code;
	char *msg; /* owned; NULL when no error has been set */
} deja_error;

#define DEJA_ERROR_INIT { 0, NULL }

/* Record code and message in err (if err is not NULL) and return code.  The
 * first message wins: a later set on the same record is ignored, so the
 * message that reaches the user names the root cause. */
int deja_error_set(deja_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The message, or a generic text for the code when none was set.  Borrowed:
 * valid until the record is released or set again. */
const char *deja_error_message(const deja_error *err);

void deja_error_release(deja_error *err);

/* Overflow-checked size arithmetic: return 0 and store the result, or
 * DEJA_ENOMEM when it would wrap. */
static inline int deja_size_add(size_t *out, size_t a, size_t b)
{
	if (a > (size_t)-1 - b)
		return DEJA_ENOMEM;
	*out = a + b;
	return 0;
}

static inline int deja_size_mul(size_t *out, size_t a, size_t b)
{
	if (a && b > (size_t)-1 / a)
		return DEJA_ENOMEM;
	*out = a * b;
	return 0;
}

#endif
