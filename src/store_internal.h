/*
 * store_internal.h - the store's SQLite handle, for the library modules
 * that keep their own tables in it (learn.c).  Not part of the public
 * API: the CLI goes through store.h and learn.h.
 */
#ifndef DEJA_STORE_INTERNAL_H
#define DEJA_STORE_INTERNAL_H

#include <sqlite3.h>

#include "deja/store.h"

/* Borrowed: valid until deja_store_close(). */
sqlite3 *deja_store_db(deja_store *s);
const char *deja_store_path(const deja_store *s);

/* Set err from SQLite's result code rc (DEJA_EBUSY for a lock, DEJA_ENOMEM,
 * else DEJA_EIO), naming the store and what was being done. */
int deja_store_db_error(deja_store *s, deja_error *err, int rc, const char *what);

/* Run SQL with no results; err as above. */
int deja_store_exec(deja_store *s, const char *sql, deja_error *err);

#endif
