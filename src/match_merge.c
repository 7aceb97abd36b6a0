/*
 * match_merge.c - signatures that are one error: the pairs worth merging
 * (callus_match_merges), a signature named by an id prefix
 * (callus_match_get_signature) and the merge itself, which links one to
 * the other and moves its resolutions (callus_match_merge).  Apart from the
 * search because it is an operator's command, never on the hook's path.
 */
#include "callus/match.h"
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/hash.h"
#include "callus/lesson.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

void callus_merge_pairs_free(callus_merge_pair *p, size_t count)
{
	for (size_t i = 0; p && i < count; i++) {
		free(p[i].a);
		free(p[i].b);
		free(p[i].a_message);
		free(p[i].b_message);
	}
	free(p);
}

/* The best success rate among a signature's resolutions, with its message. */
#define GOOD_SIGNATURES                                                                       \
	"SELECT g.rowid, g.id, g.original, max(CAST(r.success_count AS REAL) /"               \
	" max(r.application_count, 1)) AS rate FROM signatures g"                               \
	" JOIN resolutions r ON r.signature_id = g.id"                                          \
	" WHERE NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id)"         \
	" GROUP BY g.id HAVING rate > ?1"

int callus_match_merges(callus_store *s, const char *workspace, callus_merge_pair **out,
		      size_t *count, callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;
	sqlite3_stmt *st = NULL, *vec = NULL, *current = NULL;
	callus_merge_pair *pairs = NULL;
	struct good { int64_t rowid; char *id, *msg; double rate; } *good = NULL;
	size_t ngood = 0, n = 0;
	int rc = 0, sq;

	*out = NULL;
	*count = 0;
	if (callus_match_builtin_vector_path(&path, workspace) < 0) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), GOOD_SIGNATURES, -1, &st, NULL)) !=
	    SQLITE_OK)
		goto fail;
	sqlite3_bind_double(st, 1, CALLUS_MATCH_MERGE_SUCCESS);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		struct good *p = realloc(good, (ngood + 1) * sizeof(*p));

		if (!p) {
			sq = SQLITE_NOMEM;
			goto fail;
		}
		good = p;
		good[ngood].rowid = sqlite3_column_int64(st, 0);
		good[ngood].id = callus_sql_column_dup(st, 1);
		good[ngood].msg = callus_sql_column_dup(st, 2);
		good[ngood].rate = sqlite3_column_double(st, 3);
		ngood++;
		if (!good[ngood - 1].id || !good[ngood - 1].msg) {
			sq = SQLITE_NOMEM;
			goto fail;
		}
	}
	if (sq != SQLITE_DONE)
		goto fail;
	(void)callus_match_reindex_mend(s, path.ptr, 0, NULL);
	if (callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, err) <
	    0) {
		rc = err && err->code ? err->code : CALLUS_EIO;
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), CALLUS_MATCH_STORED_VECTOR_SQL, -1, &vec,
				     NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(callus_store_db(s), CALLUS_MATCH_RECORD_VECTOR_SQL, -1, &current,
				     NULL)) != SQLITE_OK)
		goto fail;
	for (size_t i = 0; i < ngood; i++) {
		float q[CALLUS_EMBED_DIM];
		callus_vecmatch m[16];
		size_t nm;

		if (!callus_match_stored_vector(vec, good[i].id, q))
			continue;
		nm = callus_vecindex_search(vi, q, (float)CALLUS_MATCH_MERGE, m, 16);
		for (size_t j = 0; j < nm; j++) {
			size_t o;
			callus_merge_pair *p;

			/* each pair once: from its first member, to a later one */
			for (o = i + 1; o < ngood && good[o].rowid != m[j].id; o++)
				;
			if (o >= ngood)
				continue;
			/* a record of a number the store gave again pairs nothing */
			{
				callus_match_record_check check = {
					.st = current,
					.model = CALLUS_EMBED_BUILTIN_MODEL,
					.q = q,
					.dim = CALLUS_EMBED_DIM,
				};
				int is = 0;

				if ((sq = callus_match_record_current(&check, m[j].id, m[j].score, &is)) !=
				    SQLITE_OK)
					goto fail;
				if (!is)
					continue;
			}
			if (!(p = realloc(pairs, (n + 1) * sizeof(*p)))) {
				sq = SQLITE_NOMEM;
				goto fail;
			}
			pairs = p;
			memset(&pairs[n], 0, sizeof(*p));
			pairs[n].similarity = m[j].score;
			pairs[n].a_success = good[i].rate;
			pairs[n].b_success = good[o].rate;
			pairs[n].a = strdup(good[i].id);
			pairs[n].b = strdup(good[o].id);
			pairs[n].a_message = strdup(good[i].msg);
			pairs[n].b_message = strdup(good[o].msg);
			n++;
			if (!pairs[n - 1].a || !pairs[n - 1].b || !pairs[n - 1].a_message ||
			    !pairs[n - 1].b_message) {
				sq = SQLITE_NOMEM;
				goto fail;
			}
		}
	}
	*out = pairs;
	*count = n;
	pairs = NULL;
	n = 0;
	goto out;
fail:
	rc = callus_store_db_error(s, err, sq, "cannot look for merges in");
out:
	for (size_t i = 0; i < ngood; i++) {
		free(good[i].id);
		free(good[i].msg);
	}
	free(good);
	sqlite3_finalize(st);
	sqlite3_finalize(vec);
	sqlite3_finalize(current);
	callus_vecindex_close(vi);
	callus_merge_pairs_free(pairs, n);
	callus_buf_release(&path);
	return rc;
}

/* A signature id from a unique prefix of at least 6 hex digits. */
static int resolve_id(callus_store *s, const char *arg, char *out, size_t outsz, callus_error *err)
{
	char key[CALLUS_SHA256_HEX_LEN + 1];
	sqlite3_stmt *st = NULL;
	size_t len = strlen(arg), n = 0;
	int sq;

	if (len < 6 || len > CALLUS_SHA256_HEX_LEN ||
	    strspn(arg, "0123456789abcdefABCDEF") != len)
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' is not a signature id (6 to 64 hex digits)", arg);
	/* ids are stored in lowercase; a copy from elsewhere may not be */
	for (size_t i = 0; i <= len; i++)
		key[i] = (char)tolower((unsigned char)arg[i]);
	sq = callus_store_stmt(s,
			       /* ids are lowercase hex: those starting with the key
				* sort between it and the key followed by 'g', a
				* range the primary key's index reads directly */
			       "SELECT id FROM signatures WHERE id >= ?1 AND id < ?1 || 'g' LIMIT 2",
			       &st);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read");
	callus_sql_bind_text(st, 1, key);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW)
		if (n++ == 0)
			snprintf(out, outsz, "%s", (const char *)sqlite3_column_text(st, 0));
	callus_store_stmt_done(s, st);
	if (sq != SQLITE_DONE)
		return callus_store_db_error(s, err, sq, "cannot read");
	if (n == 0)
		return callus_error_set(err, CALLUS_ENOTFOUND, "no signature '%s'", key);
	if (n > 1)
		return callus_error_set(err, CALLUS_EINVAL, "'%s' names more than one signature", key);
	return 0;
}

int callus_match_get_signature(callus_store *s, const char *key, callus_signature *out,
			     callus_error *err)
{
	char id[CALLUS_SHA256_HEX_LEN + 1];
	sqlite3_stmt *st = NULL;
	int rc, sq;

	memset(out, 0, sizeof(*out));
	if ((rc = resolve_id(s, key, id, sizeof(id), err)) < 0)
		return rc;
	sq = callus_store_stmt(s, "SELECT " CALLUS_MATCH_SIGNATURE_COLUMNS " FROM signatures WHERE id = ?1",
			       &st);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, id);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			sq = callus_match_read_signature(st, 0, out);
	}
	callus_store_stmt_done(s, st);
	if (sq == SQLITE_DONE)
		return callus_error_set(err, CALLUS_ENOTFOUND, "no signature '%s'", key);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot read");
}

/* A merge of b (?1) into a (?2) at ?3, in order: b linked to a; b's note
 * a's too (a has none yet), so that a search of the noted signatures finds
 * a (match.h: b, linked, is no match); what pointed at b pointing at a,
 * its resolutions and aliases. */
static const char *const merge_sql[] = {
	/* an upsert: a row INSERT OR REPLACE deleted would fire no trigger,
	 * and the count of the aliases' vectors keeps (store_schema.c) */
	("INSERT INTO signature_links (alias_id, canonical_id, similarity, reason, linked_at)"
	 " VALUES (?1, ?2, 1.0, 'merge', ?3) ON CONFLICT (alias_id) DO UPDATE SET"
	 " canonical_id = excluded.canonical_id, similarity = excluded.similarity,"
	 " reason = excluded.reason, linked_at = excluded.linked_at"),
	("INSERT OR IGNORE INTO note_signatures (signature_id, note_id)"
	 " SELECT ?2, note_id FROM note_signatures WHERE signature_id = ?1"),
	"UPDATE resolutions SET signature_id = ?2 WHERE signature_id = ?1",
	"UPDATE signature_links SET canonical_id = ?2 WHERE canonical_id = ?1",
};

/* The signature id is merged into (its link's canonical) into out, "" for
 * none.  An SQLite result code. */
static int merged_into(callus_store *s, const char *id, char out[CALLUS_SHA256_HEX_LEN + 1])
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT canonical_id FROM signature_links WHERE alias_id = ?1", -1,
				    &st, NULL);

	*out = '\0';
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, id);
	if ((sq = sqlite3_step(st)) == SQLITE_ROW)
		snprintf(out, CALLUS_SHA256_HEX_LEN + 1, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
}

int callus_match_merge(callus_store *s, const char *a, const char *b,
		       char into[CALLUS_SHA256_HEX_LEN + 1], callus_error *err)
{
	char ida[CALLUS_SHA256_HEX_LEN + 1], idb[CALLUS_SHA256_HEX_LEN + 1];
	char a_in[CALLUS_SHA256_HEX_LEN + 1], b_in[CALLUS_SHA256_HEX_LEN + 1];
	const char *v[3] = { idb, ida, NULL };
	char *now = NULL;
	int rc, sq = SQLITE_OK;

	if (into)
		*into = '\0';
	if ((rc = resolve_id(s, a, ida, sizeof(ida), err)) < 0 ||
	    (rc = resolve_id(s, b, idb, sizeof(idb), err)) < 0)
		return rc;
	if (!strcmp(ida, idb))
		return callus_error_set(err, CALLUS_EINVAL, "a signature cannot be merged into itself");
	if (!(v[2] = now = callus_now_iso8601()))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	if ((sq = merged_into(s, ida, a_in)) != SQLITE_OK ||
	    (sq = merged_into(s, idb, b_in)) != SQLITE_OK)
		goto fail;
	/* a is merged itself: b joins the signature a joined, as every
	 * lookup follows one link */
	if (*a_in)
		memcpy(ida, a_in, sizeof(ida));
	if (!strcmp(ida, idb)) {
		rc = callus_error_set(err, CALLUS_EEXIST, "%.12s is merged into %.12s already", a, b);
		goto rollback;
	}
	/* b joined one already: the same one is done; another would move
	 * b's link and leave its fixes behind */
	if (*b_in) {
		rc = !strcmp(b_in, ida)
			     ? callus_error_set(err, CALLUS_EEXIST, "%.12s is merged into %.12s already",
						b, ida)
			     : callus_error_set(err, CALLUS_EEXIST,
						"%.12s is merged into %.12s already: merge %.12s into "
						"%.12s instead",
						b, b_in, b_in, ida);
		goto rollback;
	}
	for (size_t i = 0; i < sizeof(merge_sql) / sizeof(*merge_sql) && sq == SQLITE_OK; i++)
		sq = callus_sql_exec_texts(callus_store_db(s), merge_sql[i], v, 3);
	if (sq != SQLITE_OK)
		goto fail;
	if ((rc = callus_store_exec(s, "COMMIT", err)) == 0 && into)
		memcpy(into, ida, sizeof(ida));
	goto out;
fail:
	rc = callus_store_db_error(s, err, sq, "cannot merge in");
rollback:
	sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
out:
	free(now);
	return rc;
}
