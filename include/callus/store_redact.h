/*
 * store_redact.h - what a store already holds, redacted again by today's
 * redactor (docs/redaction.md, "A store redacted by an earlier callus").
 *
 * Text is redacted before it is stored (redact.h), by the redactor of the
 * callus that stored it.  A store kept from an earlier callus, or from
 * deja before the rename, holds what that redactor did not know: a token
 * format added since stays in its lessons, runs, errors, checks, fixes
 * and notes until they age out.  The store keeps the version of the
 * redactor that last went over all of it (CALLUS_REDACT_VERSION); while
 * it is older, `callus gc` and the background pass of a recording
 * (gc.h) go over every stored text again, a bounded batch at a time,
 * where the last batch stopped.
 *
 * A row changes only when today's redactor finds more in one of its texts
 * (cleaned and redacted as callus_redact_str() makes a stored text; a JSON
 * column's strings one by one).  What follows a changed row:
 *   lessons     their .lessons/ page is written again, owed to the views'
 *               repair before the commit (the instructions block is the
 *               caller's: result.changed)
 *   signatures  the pattern is made again from the redacted message, and
 *               its sketch with it (signature.h); and the id, which a
 *               recording of the error gives it now: the row renamed, or
 *               merged into the one a recording since the upgrade made
 *               (store_resign.h)
 *   notes       synced before the pass reaches them (a person's edit
 *               taken in first), their files written from the store after
 *   checks      listed under their new name in .callus/checks.idx; one
 *               whose redacted name is another's (the check its first run
 *               after the upgrade made) is merged into it
 *   contexts    one redacted into another's list is merged into it
 *   fixes' and errors' files: .callus/files.idx removed, for its next
 *               reader to make again
 * The log beside the store is gone over as a pass starts (log.h): its
 * lines quote the same texts.
 */
#ifndef CALLUS_STORE_REDACT_H
#define CALLUS_STORE_REDACT_H

#include <stddef.h>

#include "callus/common.h"
#include "callus/hash.h"
#include "callus/redact.h"
#include "callus/store.h"

/* The key of the mark in sync_state; a store made by this callus is
 * marked as it is made (store_schema.c): it holds nothing yet. */
#define CALLUS_STORE_REDACT_MARK "redaction.version"

typedef struct callus_store_redact_result {
	size_t rows;    /* rows read */
	size_t changed; /* rows that held what today's redactor finds */
	size_t lessons; /* of those, lessons (their pages written again) */
	size_t log;     /* lines of the log (log.h), redacted as a pass starts */
	size_t merged;  /* signatures merged into another (store_resign.h) */
	int done;       /* the store is marked redacted by this redactor */
} callus_store_redact_result;

/*
 * Whether s was last gone over whole by a redactor older than this one's
 * (never, for a store made before the mark was kept): 1, 0, or a negative
 * CALLUS_E* code with err set.
 */
int callus_store_redact_due(callus_store *s, callus_error *err);

/*
 * Go on redacting the store of workspace (absolute, borrowed) with r, from
 * where the last call stopped, until every table is done (then marked) or
 * budget rows were read (0: no bound).  Each batch of rows is its own
 * short write transaction, with where it stopped.  res may be NULL.
 * Returns 0 or a negative CALLUS_E* code; what was redacted before a
 * failure stays redacted.
 */
int callus_store_redact(callus_store *s, const char *workspace, const callus_redactor *r,
			size_t budget, callus_store_redact_result *res, callus_error *err);

/*
 * Inside the caller's write transaction: the signature row sig (its
 * message, tool, error type and frames) redacted by r as the pass does,
 * and signed again when that changed its id (store_resign.h), into id:
 * the id the row has now, "" when there is no such row.  For the learning
 * step while a store is due: an open error its run does not name may be
 * one the run names under the id it has today.  An SQLite result code.
 */
int callus_store_redact_signature(callus_store *s, const callus_redactor *r, int64_t sig,
				  char id[CALLUS_SHA256_HEX_LEN + 1]);

/*
 * What was deleted before the pass (a lesson retention removed) is still
 * in the store's free pages and cells, which only VACUUM writes over: the
 * pass that finishes owes one, which the next `callus gc` runs (the
 * background pass never does: seconds).  Owed: 1 or 0.
 */
int callus_store_redact_vacuum_owed(callus_store *s);
void callus_store_redact_vacuum_paid(callus_store *s);

#endif
