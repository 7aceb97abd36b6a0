/*
 * checkindex.h - which checks' next pass the store has to see, beside the
 * store.  A pass is the verification an agent runs most, and a pass of a
 * check with nothing pending and nothing just fixed changes nothing the
 * store is asked about: it still cost a store's opening (SQLite reads the
 * whole schema at the first statement, 60% of that pass).  This small file,
 * .callus/checks.idx, lets the pass answer "nothing to do" without it.
 *
 * A check is listed when it has an error pending, or when its last run
 * closed one (fixed or failing for good): the next run of such a check
 * decides whether the fix held (learn.h: an error back on the very next run
 * fails the suggestions credited with it), so it is counted.  A check
 * listed by mistake costs a pass the store's opening, and the pass that
 * finds nothing to do takes it off; a check missing from the list would
 * lose a fix.  So the list is changed only under the store's write lock,
 * a check is added (and the addition synced) before the transaction that
 * makes it pending commits, and a list that cannot be written is removed:
 * a pass with no list opens the store, which writes the list again.
 *
 * Checks are not named but hashed (16 hex digits of SHA-256 over the
 * tool, arguments and directory): the list holds no text of the workspace,
 * and two checks sharing a hash only cost a pass the store.
 *
 * Format: a first line "callus-checks 2 NNNNNNNNNN" (the count, ten digits,
 * of the hashes after it that are sorted), then one hash a line, each once,
 * sorted; then at most a few hundred lines appended since, each a '+' (the
 * check listed) or a '-' (taken off) and a hash, in the order they were
 * made: a hash's last appended line overrides the sorted part.
 */
#ifndef CALLUS_CHECKINDEX_H
#define CALLUS_CHECKINDEX_H

#include "callus/common.h"
#include "callus/learn.h"
#include "callus/store.h"

#include <stdint.h>

#define CALLUS_CHECKINDEX_NAME "checks.idx"
#define CALLUS_CHECKINDEX_KEY_LEN 16

/* c's hash as the list holds it: 16 hex digits and a NUL into out.  0, or
 * CALLUS_ENOMEM. */
int callus_checkindex_key(char out[CALLUS_CHECKINDEX_KEY_LEN + 1], const callus_check_key *c);

/* Whether check c is listed in store_dir's list: 1 or 0; CALLUS_ENOTFOUND
 * when there is no list it can read (the store's next writer, or
 * callus_checkindex_ensure(), makes one).  Reads one small file, nothing
 * else. */
int callus_checkindex_lookup(const char *store_dir, const callus_check_key *c);

/*
 * Whether check check_id (named c) needs its next pass seen, from what s
 * holds now, and the list made to say so: c appended (synced) or taken
 * off, nothing written when it says so already, the whole list written
 * from s when there is none.  The caller holds s's write lock, inside the
 * transaction that changed the check, before its commit.  A list that
 * could not be changed is removed.  0, or a negative CALLUS_E* code with
 * err set (a store that cannot be read).
 */
int callus_checkindex_update(callus_store *s, int64_t check_id, const callus_check_key *c,
			     callus_error *err);

/* Make sure there is a list beside s's database file: when there is none
 * it reads, the whole list written from what s holds, under s's write
 * lock (taken here: call it outside a transaction).  What a pass that
 * learnt nothing calls, so that the next pass can do without the store.
 * 0, or a negative CALLUS_E* code with err set. */
int callus_checkindex_ensure(callus_store *s, callus_error *err);

/* The whole list written again from what s holds, under s's write lock
 * (taken here: call it outside a transaction): what removes checks or
 * their errors in bulk (callus gc) calls it, so that the checks it
 * unlisted do not each cost their next pass the store's opening.  A list
 * that cannot be written is removed.  0, or a negative CALLUS_E* code
 * with err set. */
int callus_checkindex_rewrite(callus_store *s, callus_error *err);

#endif
