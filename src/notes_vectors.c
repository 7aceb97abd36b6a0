/*
 * notes_vectors.c - the vectors of the signatures that have a note, in a
 * vector file of their own (CALLUS_MATCH_NOTED_FILE beside the store), so that the search for a note a fix can merge into scans the
 * noted signatures and not every stored one: a fix searched the whole
 * vector file (3.4 ms at 75,000 signatures, a tenth of them noted;
 * docs/scale.md).
 *
 * The file is derived from the store, like the main vector file
 * (callus/vecindex.h), and kept by appends: a signature's vector is
 * appended when note_signatures gains it (callus_notes_attach), in the
 * store's transaction; a rollback leaves a record for a signature with no
 * note, which a search finds and the caller ignores, as a vector ahead of
 * the store.  Whatever else happened (a crash between the insert and the
 * append, a file removed, an older callus), the store counts its noted
 * signatures (noted_count, kept by triggers): a file with fewer records is
 * rebuilt from the store before a search, and one with many more (notes
 * removed) is compacted.  A noted signature without a vector, or unknown
 * to the store, is a zero record: never similar, and the counts agree.
 */
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/match.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "notes_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <string.h>

/* Records beyond the store's count a file may hold before a search
 * compacts it: removed notes, rolled-back appends, racing appenders. */
#define SLACK(n) ((n) / 4 + 64)

int callus_notes_vectors_path(callus_buf *out, callus_store *s)
{
	const char *db = callus_store_path(s), *slash = db ? strrchr(db, '/') : NULL;

	callus_buf_clear(out);
	if (!slash)
		return CALLUS_EINVAL;
	return callus_buf_printf(out, "%.*s/" CALLUS_MATCH_NOTED_FILE, (int)(slash - db), db);
}

/* Signature id's rowid and built-in vector (zeros without one; rowid 0
 * when the store does not know it). */
static int read_vector(callus_store *s, const char *id, int64_t *rowid, float *vec)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT g.rowid, v.vector FROM signatures g LEFT JOIN"
				    " signature_vectors v ON v.signature_id = g.id AND v.model = '"
				    CALLUS_EMBED_BUILTIN_MODEL "' WHERE g.id = ?1",
				    -1, &st, NULL);

	*rowid = 0;
	memset(vec, 0, CALLUS_EMBED_DIM * sizeof(*vec));
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		*rowid = sqlite3_column_int64(st, 0);
		if (callus_vecindex_unpack(vec, CALLUS_EMBED_DIM, sqlite3_column_blob(st, 1),
					 (size_t)sqlite3_column_bytes(st, 1)) < 0)
			memset(vec, 0, CALLUS_EMBED_DIM * sizeof(*vec));
	}
	sqlite3_finalize(st);
	return sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
}

void callus_notes_vectors_add(callus_store *s, const char *sig)
{
	callus_buf path = CALLUS_BUF_INIT;
	float vec[CALLUS_EMBED_DIM];
	int64_t rowid;

	/* a failure leaves the file behind the store's count: rebuilt */
	if (callus_notes_vectors_path(&path, s) == 0 && read_vector(s, sig, &rowid, vec) == SQLITE_OK)
		(void)callus_vecindex_append(path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
					   &rowid, vec, 1, NULL);
	callus_buf_release(&path);
}

/* The file rewritten with every noted signature's vector, from the store
 * (a zero record for one without: the counts agree). */
static int rebuild(callus_store *s, const char *path, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int rc, sq;

	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT coalesce(g.rowid, 0), v.vector FROM note_signatures x"
				" LEFT JOIN signatures g ON g.id = x.signature_id"
				" LEFT JOIN signature_vectors v ON v.signature_id = g.id AND v.model = '"
				CALLUS_EMBED_BUILTIN_MODEL "' ORDER BY 1",
				-1, &st, NULL);
	rc = sq != SQLITE_OK ? callus_store_db_error(s, err, sq, "cannot read the noted signatures in")
			     : callus_match_rewrite_file(s, st, path, 1, err);
	sqlite3_finalize(st);
	return rc;
}

int callus_notes_vectors_fresh(callus_store *s, callus_buf *path, callus_error *err)
{
	callus_vecindex *vi = NULL;
	int64_t noted = callus_store_query_int(s, "SELECT n FROM noted_count");
	size_t have;
	int rc;

	if (noted < 0)
		return callus_error_set(err, CALLUS_EIO, "cannot count the noted signatures");
	if (callus_notes_vectors_path(path, s) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = callus_vecindex_open(&vi, path->ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
				     NULL, err)) < 0)
		return rc;
	have = callus_vecindex_count(vi);
	callus_vecindex_close(vi);
	if (have >= (size_t)noted && have - (size_t)noted <= SLACK((size_t)noted))
		return 0;
	return rebuild(s, path->ptr, err);
}
