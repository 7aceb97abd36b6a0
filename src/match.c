/*
 * match.c - matching a new error to stored signatures (include/callus/match.h):
 * the candidates of the vector scans (built-in, and an external model's
 * through match_remote.c), a regex fallback over stored patterns, each
 * weighed by shared context and ranked by similarity.  The vectors are
 * written by match_index.c, suggestions ranked by match_suggest.c,
 * duplicates merged by match_merge.c.
 */
#define PCRE2_CODE_UNIT_WIDTH 8

#include "callus/match.h"
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/hash.h"
#include "callus/lesson.h"
#include "callus/signature.h"
#include "callus/vecindex.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <ctype.h>
#include <math.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REGEX_CANDIDATES_MAX 200  /* stored patterns tried per query */

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

double callus_match_context_score(const callus_strlist *a, const callus_strlist *b)
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
	/* the columns of CALLUS_MATCH_SIGNATURE_COLUMNS it needs: not the
	 * whole signature, whose pattern a row mostly makes again */
	const char *id = (const char *)sqlite3_column_text(st, 0);
	const char *etype = (const char *)sqlite3_column_text(st, 1);
	const char *tool = (const char *)sqlite3_column_text(st, 6);
	const char *fq = framework_of(&q->context_patterns), *fg;
	callus_strlist ctx = CALLUS_STRLIST_INIT;
	int sq = SQLITE_OK;

	if (how == CALLUS_MATCH_VECTOR && sim < general_min &&
	    !(callus_error_type_is_rule(q->error_type) && etype && !strcmp(q->error_type, etype)))
		return SQLITE_OK;
	if (callus_sql_json_strlist(&ctx, (const char *)sqlite3_column_text(st, 4)) < 0)
		return SQLITE_NOMEM;
	fg = framework_of(&ctx);
	if (!fq || !fg || !strcmp(fq, fg) || !strcmp(q->tool ? q->tool : "", tool ? tool : ""))
		sq = list_add(l, id ? id : "", sim,
			      callus_match_context_score(&q->context_patterns, &ctx), how);
	callus_strlist_release(&ctx);
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

/* The first word of a message (letters, 2 or more), lower-cased, into
 * out[0..size); "" when it has none. */
static void first_word(char *out, size_t size, const char *msg)
{
	size_t n = 0;

	while (*msg && !(isalpha((unsigned char)msg[0]) && isalpha((unsigned char)msg[1])))
		msg++;
	while (isalpha((unsigned char)*msg) && n + 1 < size)
		out[n++] = (char)tolower((unsigned char)*msg++);
	out[n] = '\0';
}

/*
 * A shared frame is evidence of the same error only for messages of one
 * kind: the same first word.  The same function raising one exception
 * type for two reasons ("invalid literal for int()" and "math domain
 * error", both ValueError in parse()) is two errors; the corpus has no
 * pair the frame alone found (docs/matching.md).
 */
static int same_first_word(const char *a, const char *b)
{
	char wa[32], wb[32];

	first_word(wa, sizeof(wa), a);
	first_word(wb, sizeof(wb), b);
	return *wa && !strcmp(wa, wb);
}

/* The statement of one signature's CALLUS_MATCH_SIGNATURE_COLUMNS by rowid. */
#define SIGNATURE_BY_ROWID "SELECT " CALLUS_MATCH_SIGNATURE_COLUMNS " FROM signatures WHERE rowid = ?1"

/* Row rowid of signatures read by by_rowid (SIGNATURE_BY_ROWID, maybe
 * with a condition): SQLITE_ROW, SQLITE_DONE when the statement gives
 * none, or an error. */
static int step_rowid(sqlite3_stmt *by_rowid, sqlite3_int64 rowid)
{
	sqlite3_reset(by_rowid);
	sqlite3_bind_int64(by_rowid, 1, rowid);
	return sqlite3_step(by_rowid);
}

/* Row rowid, considered; a row the statement does not give is skipped. */
static int consider_rowid(match_list *l, sqlite3_stmt *by_rowid, const callus_signature *q,
			  sqlite3_int64 rowid, double sim, callus_match_how how, double general_min)
{
	int sq = step_rowid(by_rowid, rowid);

	if (sq == SQLITE_ROW)
		return consider(l, by_rowid, q, sim, how, general_min);
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

/*
 * The regular-expression fallback: the stored signatures of the same error
 * type whose message_pattern matches the new message, or whose stack
 * patterns share a frame with it: the newest REGEX_CANDIDATES_MAX of them
 * (an index's first rows, with each row's sketch), from cands when the
 * caller keeps them across its searches.  Only a row whose sketch the
 * message passes is read (one in a hundred or so, and the query's own):
 * the others, scattered over the table by their recurrences, were most of
 * the pages a failing hook read at 100,000 recordings.  A pattern is
 * compiled only when the message holds its literal words
 * (callus_pattern_may_match), and matched once, without the JIT: compiling
 * 200 patterns to machine code cost more than matching them.
 */
static int regex_fallback(callus_store *s, callus_match_candidates *cands, match_list *l,
			  const callus_signature *q, size_t k)
{
	callus_match_candidates *own = NULL;
	callus_match_candidate *rows;
	sqlite3_stmt *row = NULL;
	pcre2_match_data *md = NULL;
	callus_buf made = CALLUS_BUF_INIT, plain = CALLUS_BUF_INIT;
	const char *msg = q->original ? q->original : "";
	uint64_t mask = 0;
	int has_stack = q->stack_patterns.count > 0;
	size_t nrows, tried = 0;
	int sq;

	if (!q->error_type)
		return SQLITE_OK;
	/* matched as patterns are made: without the message's hints */
	if ((sq = callus_message_unhinted(&plain, msg, strlen(msg))) < 0)
		return SQLITE_NOMEM;
	if (sq > 0)
		msg = plain.ptr;
	if (!cands && callus_match_candidates_new(&own) < 0) {
		callus_buf_release(&plain);
		return SQLITE_NOMEM;
	}
	/* one more than are tried: the query's own row is not one of them */
	sq = callus_match_candidates_get(cands ? cands : own, s, q->error_type,
					 REGEX_CANDIDATES_MAX + 1, &rows, &nrows);
	/* a type with no row stored (a new one) asks for nothing more */
	if (sq == SQLITE_OK && nrows) {
		mask = callus_message_mask(msg);
		if (!(md = pcre2_match_data_create(1, NULL)))
			sq = SQLITE_NOMEM;
		else
			sq = callus_store_stmt_again(s, SIGNATURE_BY_ROWID, &row);
	}
	for (size_t i = 0; sq == SQLITE_OK && l->count < k && i < nrows; i++) {
		callus_strlist stack = CALLUS_STRLIST_INIT;
		const char *id = NULL, *stored, *original;
		pcre2_code *re = NULL;
		int errcode, hit = 0;
		PCRE2_SIZE erroff;

		/* the query's own row passes its sketch: it is read, and passed
		 * over uncounted */
		if (callus_sketch_may_match(rows[i].sketch, mask, has_stack)) {
			if ((sq = step_rowid(row, rows[i].rowid)) == SQLITE_ROW)
				id = (const char *)sqlite3_column_text(row, 0);
			else if (sq != SQLITE_DONE)
				break;
			sq = SQLITE_OK;
			if (id && !strcmp(id, q->id))
				continue;
		}
		if (tried++ == REGEX_CANDIDATES_MAX)
			break;
		if (!id || list_find(l, id) >= 0)
			continue;
		stored = (const char *)sqlite3_column_text(row, 2);
		original = (const char *)sqlite3_column_text(row, 5);
		if (!stored || !original)
			continue;
		/* most candidates read still lack a word of the message: not
		 * compiled, nor made from their original when the row keeps none */
		if (*stored ? callus_pattern_may_match(stored, msg)
			    : callus_match_candidate_may_match(&rows[i], original, msg)) {
			callus_buf_clear(&made);
			if (callus_signature_pattern_load(&made, stored, original) < 0) {
				sq = SQLITE_NOMEM;
				break;
			}
			re = pcre2_compile((PCRE2_SPTR)made.ptr, PCRE2_ZERO_TERMINATED,
					   PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_UTF |
						   PCRE2_MATCH_INVALID_UTF,
					   &errcode, &erroff, NULL);
		}
		if (re) {
			hit = pcre2_match(re, (PCRE2_SPTR)msg, strlen(msg), 0, 0, md, NULL) >= 0;
			pcre2_code_free(re);
		}
		if (!hit && has_stack && same_first_word(msg, original) &&
		    callus_sql_json_strlist(&stack, (const char *)sqlite3_column_text(row, 3)) == 0)
			hit = stack_overlap(&q->stack_patterns, &stack);
		callus_strlist_release(&stack);
		if (hit)
			sq = consider(l, row, q, CALLUS_MATCH_THRESHOLD, CALLUS_MATCH_REGEX, 0);
	}
	pcre2_match_data_free(md);
	callus_buf_release(&made);
	callus_buf_release(&plain);
	callus_store_stmt_done(s, row);
	callus_match_candidates_free(own);
	return sq;
}

/* The most a record's score and its stored vector's may differ: the same
 * integers, the float products in another order. */
#define RECORD_SCORE_SLACK 1e-4

int callus_match_record_current(callus_match_record_check *c, int64_t rowid, float score,
				int *current)
{
	const void *blob;
	float *v = NULL, got;
	size_t len;
	int sq;

	*current = 0;
	sqlite3_reset(c->st);
	sqlite3_bind_int64(c->st, 1, rowid);
	callus_sql_bind_text(c->st, 2, c->model);
	if ((sq = sqlite3_step(c->st)) != SQLITE_ROW)
		return sq == SQLITE_DONE ? SQLITE_OK : sq;
	blob = sqlite3_column_blob(c->st, 0);
	len = (size_t)sqlite3_column_bytes(c->st, 0);
	/* the built-in model's packed (vecindex.h): scored as it is, the
	 * query quantized once for every record of the search */
	if (!strcmp(c->model, CALLUS_EMBED_BUILTIN_MODEL)) {
		if (c->dim != CALLUS_EMBED_DIM)
			return SQLITE_OK;
		if (!c->quantized) {
			c->qscale = callus_vecindex_quantize(c->qq, c->q, c->dim);
			c->quantized = 1;
		}
		if ((got = callus_vecindex_score_packed(c->q, c->qq, c->qscale, blob, len, c->dim)) ==
		    -3)
			return SQLITE_OK;
	} else if (blob && len == c->dim * sizeof(*v)) {
		/* another's as floats */
		if (!(v = malloc(c->dim * sizeof(*v))))
			return SQLITE_NOMEM;
		memcpy(v, blob, len);
		got = callus_vecindex_score(c->q, v, c->dim);
		free(v);
	} else {
		return SQLITE_OK;
	}
	*current = got > -2 && fabsf(got - score) <= RECORD_SCORE_SLACK;
	return got > -2 ? SQLITE_OK : SQLITE_NOMEM;
}

/*
 * The candidates a vector scan found (vm[0..n), ids are signature rowids),
 * each checked against the store's vector (check), read through by_rowid (a
 * statement of CALLUS_MATCH_SIGNATURE_COLUMNS for one rowid, linked
 * duplicates excluded) and considered until l holds k.
 */
static int add_vector_hits(match_list *l, sqlite3_stmt *by_rowid, callus_match_record_check *check,
			   const callus_signature *sig, const callus_vecmatch *vm, size_t n, size_t k,
			   double general_min)
{
	int sq = SQLITE_OK;

	/* a vector ahead of the store, or a linked one, gives no row; a
	 * record of a number given again, another's vector */
	for (size_t i = 0; i < n && l->count < k && sq == SQLITE_OK; i++) {
		int current = 0;

		if ((sq = callus_match_record_current(check, vm[i].id, vm[i].score, &current)) ==
			    SQLITE_OK &&
		    current)
			sq = consider_rowid(l, by_rowid, sig, vm[i].id, vm[i].score,
					    CALLUS_MATCH_VECTOR, general_min);
	}
	return sq;
}

/*
 * The external model's neighbours of sig, when there is a vector of sig
 * from it: the caller's, or the stored one of sig (or of the signature it
 * is linked to).  A missing or stale vector file finds nothing.
 */
static int remote_search(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
			 sqlite3_stmt *by_rowid, sqlite3_stmt *vector_of, match_list *l, size_t k)
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
					"SELECT v.vector FROM signatures g JOIN signature_vectors v"
					" ON v.sig = g.rowid WHERE v.model ="
					" (SELECT id FROM vector_models WHERE name = ?2) AND"
					" g.id = coalesce((SELECT canonical_id FROM"
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
	{
		callus_match_record_check check = {
			.st = vector_of, .model = opts->remote_model, .q = q, .dim = dim };

		sq = add_vector_hits(l, by_rowid, &check, sig, vm, n, l->count + k, 0);
	}
out:
	sqlite3_finalize(st);
	callus_vecindex_close(vi);
	free(vm);
	callus_buf_release(&path);
	return sq;
}

/*
 * The records of the vector file of noted signatures (opts->noted, or
 * opts->noted_index open) scoring at least min with vec, taken into the k
 * best out[0..n) as a search continued (callus_vecindex_search_from: each
 * id once): the signatures with a fix among those older than a search's
 * window.  A file that cannot be opened is one with no records.  The new
 * count.
 */
static size_t search_noted(const callus_match_opts *opts, const float *vec, float min,
			   callus_vecmatch *out, size_t n, size_t k)
{
	callus_vecindex *vi = NULL;

	if (!opts->noted_index)
		callus_match_noted_open(&vi, opts->noted);
	n = callus_vecindex_search_from(opts->noted_index ? opts->noted_index : vi, vec, min, out,
				       k, n, 0);
	callus_vecindex_close(vi);
	return n;
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

int callus_match_stored_vector(sqlite3_stmt *st, const char *id, float v[CALLUS_EMBED_DIM])
{
	sqlite3_reset(st);
	callus_sql_bind_text(st, 1, id);
	return sqlite3_step(st) == SQLITE_ROW &&
	       callus_vecindex_unpack(v, CALLUS_EMBED_DIM, sqlite3_column_blob(st, 0),
				      (size_t)sqlite3_column_bytes(st, 0)) == 0;
}

/* The same, its statement made for one read. */
static int stored_vector(callus_store *s, const char *id, float v[CALLUS_EMBED_DIM])
{
	sqlite3_stmt *st = NULL;
	int found = callus_store_stmt(s, CALLUS_MATCH_STORED_VECTOR_SQL, &st) == SQLITE_OK &&
		    callus_match_stored_vector(st, id, v);

	callus_store_stmt_done(s, st);
	return found;
}

void callus_match_index_open(callus_store *s, callus_vecindex **out, const char *workspace)
{
	callus_buf path = CALLUS_BUF_INIT;

	*out = NULL;
	if (callus_match_builtin_vector_path(&path, workspace) == 0 &&
	    callus_match_reindex_mend(s, path.ptr, 0, NULL) >= 0)
		(void)callus_vecindex_open(out, path.ptr, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM,
					 NULL, NULL);
	callus_buf_release(&path);
}

void callus_match_noted_open(callus_vecindex **out, const char *path)
{
	*out = NULL;
	(void)callus_vecindex_open(out, path, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL,
				   NULL);
}

/*
 * The built-in vector file at path opened into *vi for a search (NULL when
 * it cannot be read: searched as empty, the same signature and the
 * patterns still answer).  A recording appends its vectors before it
 * commits them, so a file behind the store is a damaged one (removed,
 * truncated, unreadable, restored from a copy): with own (the store's own
 * file), written again first when this connection may take the write lock
 * (in no transaction, or in a write one), so that a search of a signature
 * already indexed (callus suggest, a recurring error) does not miss what
 * the store holds until the next new signature's recording.
 */
static void open_searched(callus_store *s, const char *path, int own, callus_vecindex **vi)
{
	sqlite3 *db = callus_store_db(s);
	int64_t stored;

	/* a cut reindex's file first: a reader of its own store that may
	 * write (a reader in a read transaction cannot take the lock) */
	if (own)
		(void)callus_match_reindex_mend(s, path, 0, NULL);
	if (callus_vecindex_open(vi, path, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL,
				 NULL) < 0)
		*vi = NULL;
	if (!own || (!sqlite3_get_autocommit(db) && sqlite3_txn_state(db, "main") != SQLITE_TXN_WRITE))
		return;
	stored = callus_match_builtin_count(s);
	if (stored <= 0 || callus_vecindex_count(*vi) >= (size_t)stored)
		return;
	if (callus_match_file_sync(s, path, callus_vecindex_count(*vi), stored, SIZE_MAX,
				   CALLUS_MATCH_BUILTIN_VECTORS, NULL) > 0) {
		callus_vecindex_close(*vi);
		if (callus_vecindex_open(vi, path, CALLUS_EMBED_BUILTIN_MODEL, CALLUS_EMBED_DIM, NULL,
					 NULL) < 0)
			*vi = NULL;
	}
}

int callus_match_find(callus_store *s, const callus_match_opts *opts, const callus_signature *sig,
		    callus_match **out, size_t *count, callus_error *err)
{
	struct timespec start;
	callus_buf path = CALLUS_BUF_INIT;
	callus_vecindex *vi = NULL;        /* opened here */
	const callus_vecindex *shared;     /* searched: vi or the caller's */
	callus_vecmatch *vm = NULL;
	sqlite3_stmt *st = NULL, *vector_of = NULL;
	match_list l = { NULL, 0 };
	size_t k = opts->k ? opts->k : CALLUS_MATCH_K, n = 0;
	double min = opts->threshold > 0 ? opts->threshold : CALLUS_MATCH_THRESHOLD;
	double rule_min = opts->threshold > 0 ? opts->threshold : CALLUS_MATCH_THRESHOLD_RULE;
	float vec[CALLUS_EMBED_DIM];
	int rc = 0, sq;

	clock_gettime(CLOCK_MONOTONIC, &start);
	*out = NULL;
	*count = 0;
	if ((opts->vectors ? callus_buf_printf(&path, "%s", opts->vectors)
			   : callus_match_builtin_vector_path(&path, opts->workspace)) < 0 ||
	    !(vm = calloc(k + 1, sizeof(*vm)))) {
		rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
		goto out;
	}
	/* a recording searches twice: the new error, then what its fix
	 * closed (notes.c) */
	sq = callus_store_stmt_again(s,
				     SIGNATURE_BY_ROWID
				     " AND NOT EXISTS (SELECT 1 FROM signature_links WHERE alias_id = id)",
				     &st);
	if (sq == SQLITE_OK)
		sq = callus_store_stmt_again(s, CALLUS_MATCH_RECORD_VECTOR_SQL, &vector_of);
	if (sq != SQLITE_OK)
		goto fail;
	/* the same signature, stored: the surest match */
	{
		sqlite3_stmt *same = NULL;

		sq = callus_store_stmt_again(s,
					     "SELECT coalesce((SELECT canonical_id FROM signature_links"
					     " WHERE alias_id = ?1), id) FROM signatures WHERE id = ?1",
					     &same);
		if (sq != SQLITE_OK)
			goto fail;
		callus_sql_bind_text(same, 1, sig->id);
		if ((sq = sqlite3_step(same)) == SQLITE_ROW)
			sq = list_add(&l, (const char *)sqlite3_column_text(same, 0), 1.0, 1.0,
				      CALLUS_MATCH_SAME);
		callus_store_stmt_done(s, same);
		if (sq != SQLITE_OK && sq != SQLITE_DONE)
			goto fail;
	}
	/* a signature this recording just indexed: the vector its check
	 * searched with, which the file holds for it (made again, it read
	 * some seventy document frequencies of the store for a difference of
	 * one in the document count) */
	if (!callus_match_scans_vector(opts->scans, sig->id, vec) &&
	    !(opts->stored && stored_vector(s, sig->id, vec)) &&
	    (sq = opts->counted ? callus_match_embed_counted(s, sig, opts->counted,
							   opts->ncounted, vec)
				: callus_match_embed_memo(s, sig, opts->df_memo, vec)) != SQLITE_OK)
		goto fail;
	if (opts->index) {
		shared = opts->index;
	} else {
		open_searched(s, path.ptr, !opts->vectors, &vi);
		shared = vi;
	}
	{
		float least = (float)(rule_min < min ? rule_min : min);
		const size_t *recs = NULL;
		size_t nrecs = 0, cut = 0, from = 0;

		/* a new signature: its near-duplicate check noted the records
		 * that can reach least; the rest of the file is what was
		 * appended since (and what came before the check's window) */
		if (callus_match_scans_get(opts->scans, sig->id, vec, least, shared, &recs, &nrecs,
					 &cut, &from)) {
			if (cut && !(opts->window && opts->noted)) {
				/* every record wanted: the window's unseen too */
				cut = from = 0;
			} else {
				n = callus_vecindex_search_records(shared, vec, least, vm, k + 1, 0,
								 recs, nrecs);
			}
		} else if (opts->window && opts->noted) {
			cut = from = callus_vecindex_newest(shared, opts->window);
		}
		n = callus_vecindex_search_from(shared, vec, least, vm, k + 1, n, from);
		if (cut)
			n = search_noted(opts, vec, least, vm, n, k + 1);
	}
	{
		callus_match_record_check check = { .st = vector_of,
						     .model = CALLUS_EMBED_BUILTIN_MODEL,
						     .q = vec,
						     .dim = CALLUS_EMBED_DIM };

		if ((sq = add_vector_hits(&l, st, &check, sig, vm, n, k, min)) != SQLITE_OK)
			goto fail;
	}
	if (opts->remote_model &&
	    (sq = remote_search(s, opts, sig, st, vector_of, &l, k)) != SQLITE_OK)
		goto fail;
	if (l.count < k && (sq = regex_fallback(s, opts->candidates, &l, sig, k)) != SQLITE_OK)
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
	callus_store_stmt_done(s, st);
	callus_store_stmt_done(s, vector_of);
	callus_vecindex_close(vi);
	callus_matches_free(l.items, l.count);
	free(vm);
	callus_buf_release(&path);
	return rc;
}

