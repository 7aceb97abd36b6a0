/*
 * store_resign.h - a stored signature given the id a recording gives its
 * error today (signature.h): renamed in place, or merged into the row that
 * holds that id already.
 *
 * An id is a hash of the error's type, pattern and stack patterns, and a
 * run of a check sees an error again by its id alone (learn.h): a row
 * whose id no recording can give any more makes the error's next failure
 * a new error, and the old one, absent from that run, fixed by whatever
 * changed.  Texts redacted again (store_redact.h) change the pattern, so
 * the id: the row is signed again as they are written.
 *
 * Not part of the public API: store_redact.c and the learning step that
 * closes errors (learn_transition.c) call it.
 */
#ifndef CALLUS_STORE_RESIGN_H
#define CALLUS_STORE_RESIGN_H

#include <stdint.h>

#include "callus/hash.h"
#include "callus/store.h"

/*
 * Sign the signature row sig again from what it holds now, inside the
 * caller's write transaction (whose foreign keys it defers to the commit).
 * When the id changes:
 *   renamed   no other row has the new id: the row takes it, and what
 *             names the old one (resolutions, notes and their lists, the
 *             layers' notes as cached or held, links) names the new one;
 *   merged    another row has it: the older of the two rows goes into the
 *             newer (the newest signature's rowid is never freed: gc.c),
 *             its errors, runs, counts and what names it with it; an open
 *             pending error of one check under each is one error, the
 *             earlier row keeping its first failure and snapshot, with
 *             the attempts of both, the later failure, the files of both
 *             and the suggestions made to either.  A signature names one
 *             note: when both rows have one, the newer row's stays its
 *             note, and the other is still shown by its fixes.  Links
 *             stay one level deep, as their readers follow them.
 * The vectors stay the row's (made from the old text); a merged row's go
 * with it, its features out of the document frequencies, and its record
 * left in the vector files (it finds nothing; gc rewrites the file).  *id (may be NULL) receives the id the row has now.  *merged
 * (may be NULL) is set to 1 when two rows became one.  An SQLite result
 * code: SQLITE_OK also for a row that is not there (*id then "").
 */
int callus_store_resign(callus_store *s, int64_t sig, char id[CALLUS_SHA256_HEX_LEN + 1],
			int *merged);

#endif
