/*
 * notes_vectors.c - the vectors of the signatures that have a note, in a
 * vector file of their own (callus_match_noted_vector_path(), beside the
 * store), so that the search for a note a fix can merge into scans the
 * noted signatures and not every stored one (docs/scale.md).
 *
 * The file is derived from the store, like the main vector file
 * (callus/vecindex.h).  The store counts the signatures that have both a
 * note and a built-in vector (noted_count, kept by triggers whichever
 * comes first).  A note that gains a signature with a vector appends it
 * here, in the store's transaction: a rollback leaves a record for a
 * signature with no note, which a search finds and the caller ignores, as
 * a vector ahead of the store.  Anything else that moves the count (a
 * note pulled with git whose signature is indexed later, a crash between
 * the insert and the append, a file removed, an older callus) leaves the
 * file behind it: rebuilt from the store before the next search.  A file
 * far ahead (notes removed) is compacted.
 */
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "notes_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

/* Records beyond the store's count a file may hold before a search
 * compacts it: removed notes, rolled-back appends, racing appenders. */
#define SLACK(n) ((n) / 4 + 64)

void callus_notes_vectors_add(callus_store *s, const char *sig)
{
	callus_buf path = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;

	/* one without a vector yet is counted, and appended, when it gets one;
	 * a failure leaves the file behind the count: rebuilt */
	if (callus_match_noted_vector_path(&path, s) == 0 &&
	    sqlite3_prepare_v2(callus_store_db(s),
			       CALLUS_MATCH_NOTED_VECTORS " WHERE x.signature_id = ?1", -1, &st,
			       NULL) == SQLITE_OK) {
		float vec[CALLUS_EMBED_DIM];
		int64_t rowid;

		callus_sql_bind_text(st, 1, sig);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    callus_vecindex_unpack(vec, CALLUS_EMBED_DIM, sqlite3_column_blob(st, 1),
					 (size_t)sqlite3_column_bytes(st, 1)) == 0) {
			rowid = sqlite3_column_int64(st, 0);
			(void)callus_vecindex_append(path.ptr, CALLUS_EMBED_BUILTIN_MODEL,
						   CALLUS_EMBED_DIM, &rowid, vec, 1, NULL);
		}
	}
	sqlite3_finalize(st);
	callus_buf_release(&path);
}

int callus_notes_vectors_fresh(callus_store *s, callus_buf *path, callus_error *err)
{
	int64_t noted = callus_store_query_int(s, "SELECT n FROM noted_count");
	size_t have;
	int rc;

	if (callus_store_sibling_path(path, s, "vectors-" CALLUS_EMBED_BUILTIN_MODEL ".bin") < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* a reindex killed after its commit and before it removed this file
	 * left it holding the old vectors, and its mark beside the built-in
	 * file (the store's sibling, in the workspace's .callus) */
	(void)callus_match_reindex_mend(s, path->ptr, 0, NULL);
	if (callus_match_noted_vector_path(path, s) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	/* counted, not opened: the search that follows maps it (one file a
	 * failing hook opened twice for each of its searches of it) */
	have = callus_vecindex_file_count(path->ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM);
	rc = callus_match_file_sync(s, path->ptr, have, noted,
				    noted < 0 ? 0 : SLACK((size_t)noted),
				    CALLUS_MATCH_NOTED_VECTORS " ORDER BY g.rowid", err);
	return rc < 0 ? rc : 0;
}

int callus_notes_window(callus_store *s, size_t window, callus_match_opts *mo, callus_buf *path,
			callus_error *err)
{
	int rc;

	if (!callus_match_window_cuts(s, window))
		return 0;
	if ((rc = callus_notes_vectors_fresh(s, path, err)) < 0)
		return rc;
	mo->window = window;
	mo->noted = path->ptr;
	return 0;
}
