/*
 * match.c - matching new errors to stored signatures and suggesting the
 * resolutions that fixed them (include/callus/match.h).
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "callus/match.h"
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/hash.h"
#include "callus/lesson.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REGEX_CANDIDATES_MAX 200  /* stored patterns tried per query */

int callus_match_vector_name(char out[CALLUS_MATCH_VECTOR_NAME_MAX + 1], const char *model)
{
	char hex[CALLUS_SHA256_HEX_LEN + 1];
	callus_sha256 *h = NULL;

	if (!strcmp(model, CALLUS_EMBED_BUILTIN_MODEL)) {
		snprintf(out, CALLUS_MATCH_VECTOR_NAME_MAX + 1, "%s", CALLUS_EMBED_BUILTIN_MODEL);
		return 0;
	}
	/* never a fallback name: another model's file would be taken for
	 * stale and rewritten */
	if (callus_sha256_new(&h) < 0)
		return CALLUS_ENOMEM;
	/* update and finish cannot fail; finish frees h */
	callus_sha256_update(h, model, strlen(model));
	callus_sha256_finish(h, hex);
	snprintf(out, CALLUS_MATCH_VECTOR_NAME_MAX + 1, "ext-%.16s", hex);
	return 0;
}

int callus_match_vector_path(callus_buf *out, const char *workspace, const char *name)
{
	callus_buf_clear(out);
	return callus_buf_printf(out, "%s/.callus/vectors-%s.bin", workspace, name);
}

static int vector_path(callus_buf *out, const char *workspace)
{
	return callus_match_vector_path(out, workspace, CALLUS_EMBED_BUILTIN_MODEL);
}

static int64_t feature_key(uint64_t id)
{
	int64_t k;

	/* SQLite keeps signed 64-bit integers: the same bits */
	memcpy(&k, &id, sizeof(k));
	return k;
}

/* The document frequencies of f's features, and the number of documents:
 * the part of the store's table a vector needs. */
static int load_idf(callus_store *s, const callus_features *f, callus_idf **out)
{
	sqlite3_stmt *st = NULL;
	callus_idf *idf = NULL;
	int sq;

	*out = NULL;
	if (callus_idf_new(&idf) < 0)
		return SQLITE_NOMEM;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT count(*) FROM signature_vectors WHERE model = ?1", -1, &st,
				NULL);
	if (sq != SQLITE_OK)
		goto out;
	callus_sql_bind_text(st, 1, CALLUS_EMBED_BUILTIN_MODEL);
	if ((sq = sqlite3_step(st)) != SQLITE_ROW)
		goto out;
	callus_idf_set_docs(idf, (uint32_t)sqlite3_column_int64(st, 0));
	sqlite3_finalize(st);
	st = NULL;
	if ((sq = sqlite3_prepare_v2(callus_store_db(s), "SELECT df FROM embed_df WHERE feature = ?1",
				     -1, &st, NULL)) != SQLITE_OK)
		goto out;
	for (size_t i = 0; i < f->count; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, feature_key(f->items[i].id));
		if ((sq = sqlite3_step(st)) == SQLITE_ROW &&
		    callus_idf_set(idf, f->items[i].id, (uint32_t)sqlite3_column_int64(st, 0)) < 0) {
			sq = SQLITE_NOMEM;
			goto out;
		}
		if (sq != SQLITE_ROW && sq != SQLITE_DONE)
			goto out;
	}
	sq = SQLITE_OK;
	*out = idf;
	idf = NULL;
out:
	sqlite3_finalize(st);
	callus_idf_free(idf);
	return sq;
}

/* A signature as stored, from columns id, error_type, message_pattern,
 * stack_patterns, context_patterns, original, tool starting at col. */
int callus_match_read_signature(sqlite3_stmt *st, int col, callus_signature *g)
{
	const unsigned char *id = sqlite3_column_text(st, col);

	memset(g, 0, sizeof(*g));
	snprintf(g->id, sizeof(g->id), "%s", id ? (const char *)id : "");
	if (!(g->error_type = callus_sql_column_dup(st, col + 1)) ||
	    !(g->message_pattern = callus_sql_column_dup(st, col + 2)) ||
	    callus_sql_json_strlist(&g->stack_patterns,
				  (const char *)sqlite3_column_text(st, col + 3)) < 0 ||
	    callus_sql_json_strlist(&g->context_patterns,
				  (const char *)sqlite3_column_text(st, col + 4)) < 0 ||
	    !(g->original = callus_sql_column_dup(st, col + 5)) ||
	    !(g->tool = callus_sql_column_dup(st, col + 6))) {
		callus_signature_release(g);
		return SQLITE_NOMEM;
	}
	return SQLITE_OK;
}

#define SIGNATURE_COLUMNS CALLUS_MATCH_SIGNATURE_COLUMNS

/* The vector of sig as the store weighs features now. */
static int embed(callus_store *s, const callus_signature *sig, float vec[CALLUS_EMBED_DIM])
{
	callus_features f = CALLUS_FEATURES_INIT;
	callus_idf *idf = NULL;
	int sq;

	if (callus_embed_features(&f, sig) < 0)
		return SQLITE_NOMEM;
	if ((sq = load_idf(s, &f, &idf)) == SQLITE_OK)
		callus_embed_vector(vec, &f, idf);
	callus_idf_free(idf);
	callus_features_release(&f);
	return sq;
}

static int count_features(callus_store *s, const callus_signature *sig)
{
	callus_features f = CALLUS_FEATURES_INIT;
	sqlite3_stmt *st = NULL;
	int sq;

	if (callus_embed_features(&f, sig) < 0)
		return SQLITE_NOMEM;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"INSERT INTO embed_df (feature, df) VALUES (?1, 1)"
				" ON CONFLICT (feature) DO UPDATE SET df = df + 1",
				-1, &st, NULL);
	for (size_t i = 0; sq == SQLITE_OK && i < f.count; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, feature_key(f.items[i].id));
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK
						      : sqlite3_errcode(callus_store_db(s));
	}
	sqlite3_finalize(st);
	callus_features_release(&f);
	return sq;
}

static int store_vector(callus_store *s, const char *sig_id, const float *vec)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "INSERT OR REPLACE INTO signature_vectors (signature_id, model,"
				    " vector) VALUES (?1, ?2, ?3)",
				    -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, sig_id);
	callus_sql_bind_text(st, 2, CALLUS_EMBED_BUILTIN_MODEL);
	sqlite3_bind_blob(st, 3, vec, (int)(CALLUS_EMBED_DIM * sizeof(float)), SQLITE_TRANSIENT);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
	sqlite3_finalize(st);
	return sq;
}

/* The closest indexed signature of the same tool, for de-duplication. */
static int nearest_same_tool(callus_store *s, const callus_vecindex *vi, const float *vec,
			     const char *tool, const char *self, char *out, size_t outsz,
			     double *sim)
{
	callus_vecmatch m[4];
	size_t n = vi ? callus_vecindex_search(vi, vec, (float)CALLUS_MATCH_DUPLICATE, m, 4) : 0;
	sqlite3_stmt *st = NULL;
	int sq = SQLITE_OK;

	*out = '\0';
	if (!n)
		return SQLITE_OK;
	sq = sqlite3_prepare_v2(callus_store_db(s), "SELECT id FROM signatures WHERE rowid = ?1"
						  " AND tool = ?2 AND id <> ?3",
				-1, &st, NULL);
	for (size_t i = 0; sq == SQLITE_OK && i < n && !*out; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, m[i].id);
		callus_sql_bind_text(st, 2, tool);
		callus_sql_bind_text(st, 3, self);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			snprintf(out, outsz, "%s", (const char *)sqlite3_column_text(st, 0));
			*sim = m[i].score;
		}
		if (sq == SQLITE_ROW || sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	sqlite3_finalize(st);
	return sq;
}

static int link_duplicate(callus_store *s, const char *alias, const char *canonical, double sim)
{
	sqlite3_stmt *st = NULL;
	char *now = callus_now_iso8601();
	int sq;

	if (!now)
		return SQLITE_NOMEM;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"INSERT OR IGNORE INTO signature_links (alias_id, canonical_id,"
				" similarity, reason, linked_at) VALUES (?1, ?2, ?3, 'duplicate', ?4)",
				-1, &st, NULL);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, alias);
		callus_sql_bind_text(st, 2, canonical);
		sqlite3_bind_double(st, 3, sim);
		callus_sql_bind_text(st, 4, now);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
		sqlite3_finalize(st);
	}
	/* the duplicate's occurrences count for the signature it joins */
	if (sq == SQLITE_OK &&
	    (sq = sqlite3_prepare_v2(callus_store_db(s),
				     "UPDATE signatures SET occurrence_count = occurrence_count +"
				     " (SELECT occurrence_count FROM signatures WHERE id = ?1),"
				     " last_seen = ?3 WHERE id = ?2",
				     -1, &st, NULL)) == SQLITE_OK) {
		callus_sql_bind_text(st, 1, alias);
		callus_sql_bind_text(st, 2, canonical);
		callus_sql_bind_text(st, 3, now);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
		sqlite3_finalize(st);
	}
	free(now);
	return sq;
}

typedef struct pending_vecs {
	int64_t *ids;
	float *vecs;
	size_t n;
} pending_vecs;

static int pending_add(pending_vecs *p, int64_t id, const float *vec)
{
	int64_t *ids = realloc(p->ids, (p->n + 1) * sizeof(*ids));
	float *vecs;

	if (!ids)
		return SQLITE_NOMEM;
	p->ids = ids;
	if (!(vecs = realloc(p->vecs, (p->n + 1) * CALLUS_EMBED_DIM * sizeof(float))))
		return SQLITE_NOMEM;
	p->vecs = vecs;
	memcpy(p->vecs + p->n * CALLUS_EMBED_DIM, vec, CALLUS_EMBED_DIM * sizeof(float));
	p->ids[p->n++] = id;
	return SQLITE_OK;
}

#define UNINDEXED                                                                             \
	" FROM signatures g WHERE NOT EXISTS (SELECT 1 FROM signature_vectors v"               \
	"  WHERE v.signature_id = g.id AND v.model = ?1)"                                      \
	" AND NOT EXISTS (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id)"

static int any_unindexed(callus_store *s, int *any)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s), "SELECT 1" UNINDEXED " LIMIT 1", -1, &st,
				    NULL);

	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, CALLUS_EMBED_BUILTIN_MODEL);
	sq = sqlite3_step(st);
	*any = sq == SQLITE_ROW;
	sqlite3_finalize(st);
	return sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
}

static int index_signatures(callus_store *s, const char *workspace, int all, size_t *added,
			    callus_error *err)
{
	callus_buf path = CALLUS_BUF_INIT;
	sqlite3_stmt *st = NULL;
	callus_vecindex *vi = NULL;
	pending_vecs pv = { NULL, NULL, 0 };
	int rc = 0, sq;

	if (added)
		*added = 0;
	/* most recordings bring no new signature: find out without taking
	 * the write lock (the transaction below looks again) */
	if (!all) {
		int any = 0;

		if ((sq = any_unindexed(s, &any)) != SQLITE_OK)
			return callus_store_db_error(s, err, sq, "cannot read");
		if (!any)
			return 0;
	}
	if (vector_path(&path, workspace) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out_nodb;
	if (all && (sq = sqlite3_exec(callus_store_db(s),
				      "DELETE FROM embed_df; DELETE FROM signature_vectors",
				      NULL, NULL, NULL)) != SQLITE_OK)
		goto fail;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT rowid, " SIGNATURE_COLUMNS UNINDEXED " ORDER BY rowid",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		goto fail;
	callus_sql_bind_text(st, 1, CALLUS_EMBED_BUILTIN_MODEL);
	/* the new signatures are few: read them first, then write */
	{
		callus_signature *sigs = NULL;
		int64_t *rowids = NULL;
		size_t n = 0;

		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			callus_signature *g = realloc(sigs, (n + 1) * sizeof(*g));
			int64_t *r = g ? realloc(rowids, (n + 1) * sizeof(*r)) : NULL;

			if (g)
				sigs = g;
			if (!g || !r) {
				sq = SQLITE_NOMEM;
				break;
			}
			rowids = r;
			rowids[n] = sqlite3_column_int64(st, 0);
			if ((sq = callus_match_read_signature(st, 1, &sigs[n])) != SQLITE_OK)
				break;
			n++;
		}
		sqlite3_finalize(st);
		st = NULL;
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
		if (sq == SQLITE_OK && n && !all)
			callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
					   NULL, NULL);
		/* every count first, so that the vectors of a batch (a
		 * reindex) are weighed alike */
		for (size_t i = 0; sq == SQLITE_OK && i < n; i++)
			sq = count_features(s, &sigs[i]);
		for (size_t i = 0; sq == SQLITE_OK && i < n; i++) {
			float vec[CALLUS_EMBED_DIM];
			char near[CALLUS_SHA256_HEX_LEN + 1] = "";
			double sim = 0;

			if ((sq = embed(s, &sigs[i], vec)) != SQLITE_OK)
				break;
			if (!all && (sq = nearest_same_tool(s, vi, vec, sigs[i].tool, sigs[i].id,
							    near, sizeof(near), &sim)) != SQLITE_OK)
				break;
			if (*near) {
				sq = link_duplicate(s, sigs[i].id, near, sim);
				continue;
			}
			if ((sq = store_vector(s, sigs[i].id, vec)) == SQLITE_OK)
				sq = pending_add(&pv, rowids[i], vec);
		}
		callus_signatures_free(sigs, n);
		free(rowids);
	}
	if (sq != SQLITE_OK)
		goto fail;
	if (all) {
		/* every stored vector, with the ones kept from before */
		if ((rc = callus_vecindex_rewrite(path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
						pv.ids, pv.vecs, pv.n, err)) < 0)
			goto rollback;
	} else if (pv.n && (rc = callus_vecindex_append(path.ptr, CALLUS_EMBED_BUILTIN_MODEL,
						       CALLUS_EMBED_DIM, pv.ids, pv.vecs, pv.n,
						       err)) < 0) {
		goto rollback;
	}
	if (added)
		*added = pv.n;
	rc = callus_store_exec(s, "COMMIT", err);
	goto out_nodb;
fail:
	rc = callus_store_db_error(s, err, sq, "cannot index the signatures of");
rollback:
	sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
out_nodb:
	sqlite3_finalize(st);
	callus_vecindex_close(vi);
	free(pv.ids);
	free(pv.vecs);
	callus_buf_release(&path);
	return rc;
}

int callus_match_index(callus_store *s, const char *workspace, size_t *added, callus_error *err)
{
	return index_signatures(s, workspace, 0, added, err);
}

int callus_match_reindex(callus_store *s, const char *workspace, size_t *count, callus_error *err)
{
	return index_signatures(s, workspace, 1, count, err);
}

void callus_matches_free(callus_match *m, size_t count)
{
	for (size_t i = 0; m && i < count; i++)
		free(m[i].signature_id);
	free(m);
}

static const char *framework_of(const callus_strlist *ctx)
{
	for (size_t i = 0; i < ctx->count; i++)
		if (!strncmp(ctx->items[i], "framework:", 10))
			return ctx->items[i] + 10;
	return NULL;
}

/* 0.5 + 0.5 x |a & b| / |a | b|: shared context raises a match, none
 * halves it. */
static double context_score(const callus_strlist *a, const callus_strlist *b)
{
	size_t both = 0, either;

	for (size_t i = 0; i < a->count; i++)
		both += callus_strlist_contains(b, a->items[i], strlen(a->items[i])) != 0;
	either = a->count + b->count - both;
	return either ? 0.5 + 0.5 * (double)both / (double)either : 1.0;
}

typedef struct match_list {
	callus_match *items;
	size_t count;
} match_list;

static int list_find(const match_list *l, const char *id)
{
	for (size_t i = 0; i < l->count; i++)
		if (!strcmp(l->items[i].signature_id, id))
			return (int)i;
	return -1;
}

static int list_add(match_list *l, const char *id, double sim, double ctx, callus_match_how how)
{
	callus_match *p;
	int at = list_find(l, id);

	/* the int8 vectors' rounding can put a cosine a little over 1 */
	if (sim > 1.0)
		sim = 1.0;
	if (at >= 0) {
		if (sim > l->items[at].similarity)
			l->items[at].similarity = sim;
		return SQLITE_OK;
	}
	if (!(p = realloc(l->items, (l->count + 1) * sizeof(*p))))
		return SQLITE_NOMEM;
	l->items = p;
	p += l->count;
	p->similarity = sim;
	p->context_score = ctx;
	p->how = how;
	if (!(p->signature_id = strdup(id)))
		return SQLITE_NOMEM;
	l->count++;
	return SQLITE_OK;
}

/*
 * A stored candidate, kept when its framework is the query's.  A vector
 * match below general_min is kept only when both errors are the same rule
 * of the tool: the words around an identifier say little more than the
 * code does ("Unused import os" / "Unused import json"), while two
 * assertion failures as close are often two different mistakes
 * (docs/matching.md, "Quality").
 */
static int consider(match_list *l, sqlite3_stmt *st, const callus_signature *q, double sim,
		    callus_match_how how, double general_min)
{
	callus_signature g;
	const char *fq = framework_of(&q->context_patterns), *fg;
	int sq;

	if ((sq = callus_match_read_signature(st, 0, &g)) != SQLITE_OK)
		return sq;
	if (how == CALLUS_MATCH_VECTOR && sim < general_min &&
	    !(callus_error_type_is_rule(q->error_type) && g.error_type &&
	      !strcmp(q->error_type, g.error_type))) {
		callus_signature_release(&g);
		return SQLITE_OK;
	}
	fg = framework_of(&g.context_patterns);
	if (!fq || !fg || !strcmp(fq, fg) || !strcmp(q->tool ? q->tool : "", g.tool))
		sq = list_add(l, g.id, sim, context_score(&q->context_patterns, &g.context_patterns),
			      how);
	callus_signature_release(&g);
	return sq;
}

/*
 * Does a named frame of a appear in b?  Anonymous functions are left out:
 * "Context.<anonymous>@user.spec.js" is every test of that file, and the
 * corpus's false matches across assertion kinds came from it.
 */
static int stack_overlap(const callus_strlist *a, const callus_strlist *b)
{
	for (size_t i = 0; i < a->count; i++)
		if (!strstr(a->items[i], "<anonymous>") &&
		    callus_strlist_contains(b, a->items[i], strlen(a->items[i])))
			return 1;
	return 0;
}

/*
 * The regular-expression fallback: the stored signatures of the same error
 * type whose message_pattern matches the new message, or whose stack
 * patterns share a frame with it.  They are few (one error type), so each
 * pattern is compiled here, with the JIT when it is available.
 */
static int regex_fallback(callus_store *s, match_list *l, const callus_signature *q, size_t k)
{
	sqlite3_stmt *st = NULL;
	pcre2_match_data *md = NULL;
	const char *msg = q->original ? q->original : "";
	int sq;

	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT " SIGNATURE_COLUMNS " FROM signatures WHERE error_type = ?1"
				" AND id <> ?2 ORDER BY last_seen DESC LIMIT ?3",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		return sq;
	callus_sql_bind_text(st, 1, q->error_type);
	callus_sql_bind_text(st, 2, q->id);
	sqlite3_bind_int(st, 3, REGEX_CANDIDATES_MAX);
	if (!(md = pcre2_match_data_create(1, NULL))) {
		sqlite3_finalize(st);
		return SQLITE_NOMEM;
	}
	while (l->count < k && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		const char *pat = (const char *)sqlite3_column_text(st, 2);
		const char *id = (const char *)sqlite3_column_text(st, 0);
		callus_strlist stack = CALLUS_STRLIST_INIT;
		pcre2_code *re;
		int errcode, hit = 0;
		PCRE2_SIZE erroff;

		if (!pat || !id || list_find(l, id) >= 0)
			continue;
		re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED,
				   PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
				   &errcode, &erroff, NULL);
		if (re) {
			pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
			hit = pcre2_match(re, (PCRE2_SPTR)msg, strlen(msg), 0, 0, md, NULL) >= 0;
			pcre2_code_free(re);
		}
		if (!hit && q->stack_patterns.count &&
		    callus_sql_json_strlist(&stack, (const char *)sqlite3_column_text(st, 3)) == 0)
			hit = stack_overlap(&q->stack_patterns, &stack);
		callus_strlist_release(&stack);
		if (hit && (sq = consider(l, st, q, CALLUS_MATCH_THRESHOLD, CALLUS_MATCH_REGEX, 0)) !=
				   SQLITE_OK)
			break;
	}
	pcre2_match_data_free(md);
	sqlite3_finalize(st);
	return sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/*
 * The candidates a vector scan found (vm[0..n), ids are signature rowids),
 * read through by_rowid (a statement of CALLUS_MATCH_SIGNATURE_COLUMNS for
 * one rowid, linked duplicates excluded) and considered until l holds k.
 */
static int add_vector_hits(match_list *l, sqlite3_stmt *by_rowid, const callus_signature *sig,
			   const callus_vecmatch *vm, size_t n, size_t k, double general_min)
{
	int sq = SQLITE_OK;

	for (size_t i = 0; i < n && l->count < k && sq == SQLITE_OK; i++) {
		sqlite3_reset(by_rowid);
		sqlite3_bind_int64(by_rowid, 1, vm[i].id);
		if ((sq = sqlite3_step(by_rowid)) == SQLITE_ROW)
			sq = consider(l, by_rowid, sig, vm[i].score, CALLUS_MATCH_VECTOR, general_min);
		else if (sq == SQLITE_DONE)
			sq = SQLITE_OK; /* a vector ahead of the store, or a linked one */
	}
	return sq;
}

/*
 * The external model's neighbours of sig, when there is a vector of sig
 * from it: the caller's, or the stored one of sig (or of the signature it
 * is linked to).  A missing or stale vector file finds nothing.
 */
static int remote_search(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
			 sqlite3_stmt *by_rowid, match_list *l, size_t k)
{
	char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;
	callus_vecmatch *vm = NULL;
	sqlite3_stmt *st = NULL;
	const float *q = opts->remote_query;
	size_t dim = opts->remote_dim, n;
	int sq = SQLITE_OK;

	if (!q) {
		sq = sqlite3_prepare_v2(callus_store_db(s),
					"SELECT vector FROM signature_vectors WHERE model = ?2 AND"
					" signature_id = coalesce((SELECT canonical_id FROM"
					" signature_links WHERE alias_id = ?1), ?1)",
					-1, &st, NULL);
		if (sq != SQLITE_OK)
			return sq;
		callus_sql_bind_text(st, 1, sig->id);
		callus_sql_bind_text(st, 2, opts->remote_model);
		if ((sq = sqlite3_step(st)) != SQLITE_ROW) {
			sq = sq == SQLITE_DONE ? SQLITE_OK : sq;
			goto out;
		}
		q = sqlite3_column_blob(st, 0);
		dim = (size_t)sqlite3_column_bytes(st, 0) / sizeof(float);
		sq = SQLITE_OK;
	}
	if (!q || !dim)
		goto out;
	if (callus_match_vector_name(name, opts->remote_model) < 0 ||
	    callus_match_vector_path(&path, opts->workspace, name) < 0 ||
	    !(vm = calloc(k + 1, sizeof(*vm)))) {
		sq = SQLITE_NOMEM;
		goto out;
	}
	if (callus_vecindex_open(&vi, path.ptr, name, dim, NULL, NULL) < 0)
		goto out;
	n = callus_vecindex_search(vi, q, (float)CALLUS_MATCH_THRESHOLD_EXTERNAL, vm, k + 1);
	/* what the built-in scan found counts once: up to k more */
	sq = add_vector_hits(l, by_rowid, sig, vm, n, l->count + k, 0);
out:
	sqlite3_finalize(st);
	callus_vecindex_close(vi);
	free(vm);
	callus_buf_release(&path);
	return sq;
}

static int by_similarity(const void *a, const void *b)
{
	const callus_match *x = a, *y = b;
	double kx = x->similarity * x->context_score, ky = y->similarity * y->context_score;

	if (x->how == CALLUS_MATCH_SAME || y->how == CALLUS_MATCH_SAME)
		return (y->how == CALLUS_MATCH_SAME) - (x->how == CALLUS_MATCH_SAME);
	return (kx < ky) - (kx > ky);
}

static const char *how_name(callus_match_how how)
{
	switch (how) {
	case CALLUS_MATCH_SAME: return "same";
	case CALLUS_MATCH_VECTOR: return "vector";
	case CALLUS_MATCH_REGEX: return "regex";
	}
	return "none";
}

/* hindsight.match.*: one count per search, labelled with how its best
 * candidate was found ("none" when there is none). */
static void match_metrics(callus_metrics *m, const struct timespec *start, const callus_match *best,
			  size_t n)
{
	struct timespec end;
	const char *labels[] = { best ? how_name(best->how) : "none", best ? "true" : "false" };

	if (!m)
		return;
	clock_gettime(CLOCK_MONOTONIC, &end);
	callus_metrics_observe(m, CALLUS_METRIC_MATCH_LATENCY, NULL,
			     (double)(end.tv_sec - start->tv_sec) * 1e3 +
				     (double)(end.tv_nsec - start->tv_nsec) / 1e6);
	callus_metrics_add(m, CALLUS_METRIC_MATCH_TOTAL, labels, 1);
	callus_metrics_observe(m, CALLUS_METRIC_MATCH_RESULTS, NULL, (double)n);
}

int callus_match_find(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
		    callus_match **out, size_t *count, callus_error *err)
{
	struct timespec start;
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;
	callus_vecmatch *vm = NULL;
	sqlite3_stmt *st = NULL;
	match_list l = { NULL, 0 };
	size_t k = opts->k ? opts->k : CALLUS_MATCH_K, n = 0;
	double min = opts->threshold > 0 ? opts->threshold : CALLUS_MATCH_THRESHOLD;
	double rule_min = opts->threshold > 0 ? opts->threshold : CALLUS_MATCH_THRESHOLD_RULE;
	float vec[CALLUS_EMBED_DIM];
	int rc = 0, sq;

	clock_gettime(CLOCK_MONOTONIC, &start);
	*out = NULL;
	*count = 0;
	if (vector_path(&path, opts->workspace) < 0 || !(vm = calloc(k + 1, sizeof(*vm)))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT " SIGNATURE_COLUMNS " FROM signatures WHERE rowid = ?1"
				" AND NOT EXISTS (SELECT 1 FROM signature_links WHERE alias_id = id)",
				-1, &st, NULL);
	if (sq != SQLITE_OK)
		goto fail;
	/* the same signature, stored: the surest match */
	{
		sqlite3_stmt *same = NULL;

		sq = sqlite3_prepare_v2(callus_store_db(s),
					"SELECT coalesce((SELECT canonical_id FROM signature_links"
					" WHERE alias_id = ?1), id) FROM signatures WHERE id = ?1",
					-1, &same, NULL);
		if (sq != SQLITE_OK)
			goto fail;
		callus_sql_bind_text(same, 1, sig->id);
		if ((sq = sqlite3_step(same)) == SQLITE_ROW)
			sq = list_add(&l, (const char *)sqlite3_column_text(same, 0), 1.0, 1.0,
				      CALLUS_MATCH_SAME);
		sqlite3_finalize(same);
		if (sq != SQLITE_OK && sq != SQLITE_DONE)
			goto fail;
	}
	if ((sq = embed(s, sig, vec)) != SQLITE_OK)
		goto fail;
	if (callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, err) <
	    0) {
		rc = err && err->code ? err->code : CALLUS_EIO;
		goto out;
	}
	n = callus_vecindex_search(vi, vec, (float)(rule_min < min ? rule_min : min), vm, k + 1);
	if ((sq = add_vector_hits(&l, st, sig, vm, n, k, min)) != SQLITE_OK)
		goto fail;
	if (opts->remote_model && (sq = remote_search(s, opts, sig, st, &l, k)) != SQLITE_OK)
		goto fail;
	if (l.count < k && (sq = regex_fallback(s, &l, sig, k)) != SQLITE_OK)
		goto fail;
	if (l.count > 1)
		qsort(l.items, l.count, sizeof(*l.items), by_similarity);
	match_metrics(opts->metrics, &start, l.count ? &l.items[0] : NULL, l.count);
	*out = l.items;
	*count = l.count;
	l.items = NULL;
	l.count = 0;
	goto out;
fail:
	rc = callus_store_db_error(s, err, sq, "cannot match signatures in");
out:
	sqlite3_finalize(st);
	callus_vecindex_close(vi);
	callus_matches_free(l.items, l.count);
	free(vm);
	callus_buf_release(&path);
	return rc;
}

void callus_suggestions_free(callus_suggestion *g, size_t count)
{
	for (size_t i = 0; g && i < count; i++) {
		free(g[i].signature_id);
		free(g[i].description);
	}
	free(g);
}

/* 1 for a success now, halving every half-life since. */
static double recency(const char *last_success, double half_life_days)
{
	struct tm tm;
	time_t then;
	double days;

	memset(&tm, 0, sizeof(tm));
	if (!last_success || !*last_success || !strptime(last_success, "%Y-%m-%dT%H:%M:%S", &tm))
		return 0.5;
	then = timegm(&tm);
	days = difftime(time(NULL), then) / 86400.0;
	if (days < 0)
		days = 0;
	return pow(0.5, days / half_life_days);
}

static int by_confidence(const void *a, const void *b)
{
	const callus_suggestion *x = a, *y = b;

	if (x->confidence != y->confidence)
		return (x->confidence < y->confidence) - (x->confidence > y->confidence);
	return (x->resolution_id < y->resolution_id) - (x->resolution_id > y->resolution_id);
}

int callus_match_suggest(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
		       size_t max, callus_suggestion **out, size_t *count, callus_error *err)
{
	callus_match *m = NULL;
	size_t nm = 0, n = 0;
	callus_suggestion *g = NULL;
	sqlite3_stmt *st = NULL;
	double half = opts->half_life_days > 0 ? opts->half_life_days : CALLUS_MATCH_HALF_LIFE_DAYS;
	int rc, sq = SQLITE_OK;

	*out = NULL;
	*count = 0;
	if ((rc = callus_match_find(s, opts, sig, &m, &nm, err)) < 0)
		return rc;
	if (!nm)
		goto out;
	sq = sqlite3_prepare_v2(
		callus_store_db(s),
		"SELECT r.id, r.signature_id, r.description,"
		" CAST(r.success_count AS REAL) / max(r.application_count, 1),"
		" r.application_count, r.last_success_at FROM resolutions r"
		" WHERE r.success_count > 0 AND (r.signature_id = ?1 OR r.signature_id IN"
		"  (SELECT alias_id FROM signature_links WHERE canonical_id = ?1))",
		-1, &st, NULL);
	for (size_t i = 0; sq == SQLITE_OK && i < nm; i++) {
		sqlite3_reset(st);
		callus_sql_bind_text(st, 1, m[i].signature_id);
		while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t rid = sqlite3_column_int64(st, 0);
			callus_suggestion *p;
			size_t j;

			for (j = 0; j < n && g[j].resolution_id != rid; j++)
				;
			if (j < n)
				continue; /* reached through a better match */
			if (!(p = realloc(g, (n + 1) * sizeof(*p)))) {
				sq = SQLITE_NOMEM;
				break;
			}
			g = p;
			memset(&g[n], 0, sizeof(g[n]));
			g[n].resolution_id = rid;
			g[n].success_rate = sqlite3_column_double(st, 3);
			g[n].application_count = sqlite3_column_int64(st, 4);
			g[n].confidence =
				g[n].success_rate * m[i].context_score *
				recency((const char *)sqlite3_column_text(st, 5), half) *
				m[i].similarity;
			g[n].signature_id = callus_sql_column_dup(st, 1);
			g[n].description = callus_sql_column_dup(st, 2);
			n++;
			if (!g[n - 1].signature_id || !g[n - 1].description) {
				sq = SQLITE_NOMEM;
				break;
			}
		}
		if (sq == SQLITE_DONE)
			sq = SQLITE_OK;
	}
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot read resolutions in");
		goto out;
	}
	if (n > 1)
		qsort(g, n, sizeof(*g), by_confidence);
	if (!max)
		max = CALLUS_LEARN_SUGGEST_MAX;
	while (n > max) {
		n--;
		free(g[n].signature_id);
		free(g[n].description);
	}
	*out = g;
	*count = n;
	g = NULL;
	n = 0;
out:
	sqlite3_finalize(st);
	callus_suggestions_free(g, n);
	callus_matches_free(m, nm);
	return rc;
}

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
	sqlite3_stmt *st = NULL, *vec = NULL;
	callus_merge_pair *pairs = NULL;
	struct good { int64_t rowid; char *id, *msg; double rate; } *good = NULL;
	size_t ngood = 0, n = 0;
	int rc = 0, sq;

	*out = NULL;
	*count = 0;
	if (vector_path(&path, workspace) < 0) {
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
	if (callus_vecindex_open(&vi, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL, err) <
	    0) {
		rc = err && err->code ? err->code : CALLUS_EIO;
		goto out;
	}
	if ((sq = sqlite3_prepare_v2(callus_store_db(s),
				     "SELECT vector FROM signature_vectors WHERE signature_id = ?1"
				     " AND model = ?2",
				     -1, &vec, NULL)) != SQLITE_OK)
		goto fail;
	for (size_t i = 0; i < ngood; i++) {
		callus_vecmatch m[16];
		size_t nm;

		sqlite3_reset(vec);
		callus_sql_bind_text(vec, 1, good[i].id);
		callus_sql_bind_text(vec, 2, CALLUS_EMBED_BUILTIN_MODEL);
		if ((sq = sqlite3_step(vec)) != SQLITE_ROW ||
		    sqlite3_column_bytes(vec, 0) != (int)(CALLUS_EMBED_DIM * sizeof(float)))
			continue;
		nm = callus_vecindex_search(vi, sqlite3_column_blob(vec, 0), (float)CALLUS_MATCH_MERGE,
					  m, 16);
		for (size_t j = 0; j < nm; j++) {
			size_t o;
			callus_merge_pair *p;

			/* each pair once: from its first member, to a later one */
			for (o = i + 1; o < ngood && good[o].rowid != m[j].id; o++)
				;
			if (o >= ngood)
				continue;
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
	callus_vecindex_close(vi);
	callus_merge_pairs_free(pairs, n);
	callus_buf_release(&path);
	return rc;
}

/* A signature id from a unique prefix of at least 6 hex digits. */
static int resolve_id(callus_store *s, const char *key, char *out, size_t outsz, callus_error *err)
{
	sqlite3_stmt *st = NULL;
	size_t len = strlen(key), n = 0;
	int sq;

	if (len < 6 || len > CALLUS_SHA256_HEX_LEN || strspn(key, "0123456789abcdef") != len)
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' is not a signature id (6 to 64 hex digits)", key);
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT id FROM signatures WHERE substr(id, 1, ?2) = ?1 LIMIT 2", -1,
				&st, NULL);
	if (sq != SQLITE_OK)
		return callus_store_db_error(s, err, sq, "cannot read");
	callus_sql_bind_text(st, 1, key);
	sqlite3_bind_int(st, 2, (int)len);
	while ((sq = sqlite3_step(st)) == SQLITE_ROW)
		if (n++ == 0)
			snprintf(out, outsz, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (sq != SQLITE_DONE)
		return callus_store_db_error(s, err, sq, "cannot read");
	if (n == 0)
		return callus_error_set(err, CALLUS_ENOTFOUND, "no signature '%s'", key);
	if (n > 1)
		return callus_error_set(err, CALLUS_EINVAL, "'%s' names more than one signature", key);
	return 0;
}

int callus_match_count_vectors(callus_store *s, const char *model, int64_t *with, int64_t *all,
			     callus_error *err)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT (SELECT count(*) FROM signature_vectors v WHERE model = ?1"
				    "  AND NOT EXISTS (SELECT 1 FROM signature_links l"
				    "   WHERE l.alias_id = v.signature_id)),"
				    " (SELECT count(*) FROM signatures g WHERE NOT EXISTS"
				    "  (SELECT 1 FROM signature_links l WHERE l.alias_id = g.id))",
				    -1, &st, NULL);

	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, model);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW) {
			*with = sqlite3_column_int64(st, 0);
			*all = sqlite3_column_int64(st, 1);
			sq = SQLITE_OK;
		}
	}
	sqlite3_finalize(st);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot read");
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
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"SELECT " SIGNATURE_COLUMNS " FROM signatures WHERE id = ?1", -1, &st,
				NULL);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, id);
		if ((sq = sqlite3_step(st)) == SQLITE_ROW)
			sq = callus_match_read_signature(st, 0, out);
	}
	sqlite3_finalize(st);
	if (sq == SQLITE_DONE)
		return callus_error_set(err, CALLUS_ENOTFOUND, "no signature '%s'", key);
	return sq == SQLITE_OK ? 0 : callus_store_db_error(s, err, sq, "cannot read");
}

int callus_match_merge(callus_store *s, const char *a, const char *b, callus_error *err)
{
	char ida[CALLUS_SHA256_HEX_LEN + 1], idb[CALLUS_SHA256_HEX_LEN + 1];
	sqlite3_stmt *st = NULL;
	char *now = NULL;
	int rc, sq;

	if ((rc = resolve_id(s, a, ida, sizeof(ida), err)) < 0 ||
	    (rc = resolve_id(s, b, idb, sizeof(idb), err)) < 0)
		return rc;
	if (!strcmp(ida, idb))
		return callus_error_set(err, CALLUS_EINVAL, "a signature cannot be merged into itself");
	if (!(now = callus_now_iso8601()))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	if ((rc = callus_store_exec(s, "BEGIN IMMEDIATE", err)) < 0)
		goto out;
	sq = sqlite3_prepare_v2(callus_store_db(s),
				"INSERT OR REPLACE INTO signature_links (alias_id, canonical_id,"
				" similarity, reason, linked_at) VALUES (?1, ?2, 1.0, 'merge', ?3)",
				-1, &st, NULL);
	if (sq == SQLITE_OK) {
		callus_sql_bind_text(st, 1, idb);
		callus_sql_bind_text(st, 2, ida);
		callus_sql_bind_text(st, 3, now);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
		sqlite3_finalize(st);
		st = NULL;
	}
	/* what pointed at b now points at a: its resolutions and aliases */
	if (sq == SQLITE_OK &&
	    (sq = sqlite3_prepare_v2(callus_store_db(s),
				     "UPDATE resolutions SET signature_id = ?2 WHERE signature_id = ?1;",
				     -1, &st, NULL)) == SQLITE_OK) {
		callus_sql_bind_text(st, 1, idb);
		callus_sql_bind_text(st, 2, ida);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
		sqlite3_finalize(st);
		st = NULL;
	}
	if (sq == SQLITE_OK &&
	    (sq = sqlite3_prepare_v2(callus_store_db(s),
				     "UPDATE signature_links SET canonical_id = ?2"
				     " WHERE canonical_id = ?1",
				     -1, &st, NULL)) == SQLITE_OK) {
		callus_sql_bind_text(st, 1, idb);
		callus_sql_bind_text(st, 2, ida);
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(callus_store_db(s));
		sqlite3_finalize(st);
		st = NULL;
	}
	if (sq != SQLITE_OK) {
		rc = callus_store_db_error(s, err, sq, "cannot merge in");
		sqlite3_exec(callus_store_db(s), "ROLLBACK", NULL, NULL, NULL);
		goto out;
	}
	rc = callus_store_exec(s, "COMMIT", err);
out:
	free(now);
	return rc;
}
