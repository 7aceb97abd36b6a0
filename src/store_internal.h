/*
 * store_internal.h - the store's SQLite handle, for the library modules
 * that keep their own tables in it (learn.c).  Not part of the public
 * API: the CLI goes through store.h and learn.h.
 */
#ifndef CALLUS_STORE_INTERNAL_H
#define CALLUS_STORE_INTERNAL_H

#include <sqlite3.h>

#include "callus/store.h"

/* Borrowed: valid until callus_store_close(). */
sqlite3 *callus_store_db(callus_store *s);
const char *callus_store_path(const callus_store *s);

/* Set err from SQLite's result code rc (CALLUS_EBUSY for a lock, CALLUS_ENOMEM,
 * else CALLUS_EIO), naming the store and what was being done. */
int callus_store_db_error(callus_store *s, callus_error *err, int rc, const char *what);

/* Run SQL with no results; err as above. */
int callus_store_exec(callus_store *s, const char *sql, callus_error *err);

#endif
