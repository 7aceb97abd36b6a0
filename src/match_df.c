/*
 * match_df.c - the built-in embedder's document frequencies as the store
 * keeps them (schema 27): in how many indexed signatures each feature
 * occurs.
 *
 * embed_df holds a row for each bucket of 65,536 feature keys (the key
 * shifted right 16 bits), its counts packed in one blob: for each feature
 * of the bucket, in increasing order of key, the key's low 16 bits (two
 * bytes, little-endian) then its count (LEB128, at least 1).  A row a
 * feature took about 12 bytes of pages: 77 bytes a signature in
 * docs/scale-history.md's 100,000-recording store, whose 433,732 features are
 * nearly all (410,000) counted once, a word only one error has.  Packed,
 * a feature takes 3 bytes and the row's overhead is shared.
 *
 * The counts a recording adds (or gc takes off) go to embed_df_recent, a
 * row a feature, and are folded into the buckets once it holds
 * CALLUS_MATCH_DF_FOLD_ROWS of them (match_internal.h).  The features
 * counted by many signatures are kept apart, a row each in embed_df_hot,
 * whose few pages a lookup of a new error's common words reads instead of
 * a bucket's page each (CALLUS_MATCH_DF_HOT_MIN); a fold moves them
 * there, and back.  A feature's count is what its bucket or embed_df_hot
 * holds, plus embed_df_recent's.
 */
#include "callus/buf.h"
#include "callus/embed.h"
#include "callus/signature.h"

#include "match_internal.h"
#include "sqlutil.h"
#include "store_internal.h"

#include <stdlib.h>
#include <string.h>

#define LOW_BITS 16
#define LOW_MASK ((1 << LOW_BITS) - 1)

int64_t callus_match_feature_key(uint64_t id)
{
	/* 5 bytes a key in the b-tree where the whole id took 9 */
	return (int64_t)(id & 0xffffffffu);
}

/* One entry of b[*at..n): its low bits and count; 0 at the end, or where
 * the bytes cannot be an entry (a cut or damaged blob: what follows is
 * not read). */
static int next_entry(const uint8_t *b, size_t n, size_t *at, uint16_t *low, int64_t *df)
{
	size_t i = *at;
	uint64_t v = 0;

	if (i > n || n - i < 3)
		return 0;
	*low = (uint16_t)(b[i] | b[i + 1] << 8);
	i += 2;
	for (unsigned shift = 0; i < n && shift < 63; shift += 7) {
		uint8_t c = b[i++];

		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			if (!v || v > INT64_MAX)
				return 0;
			*df = (int64_t)v;
			*at = i;
			return 1;
		}
	}
	return 0;
}

static int put_entry(callus_buf *out, uint16_t low, int64_t df)
{
	uint8_t e[2 + 10];
	size_t n = 2;
	uint64_t v = (uint64_t)df;

	e[0] = (uint8_t)(low & 0xff);
	e[1] = (uint8_t)(low >> 8);
	do {
		e[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return callus_buf_put(out, e, n);
}

int64_t callus_match_df_find(const uint8_t *b, size_t n, uint16_t low)
{
	size_t at = 0;
	uint16_t l;
	int64_t df;

	while (next_entry(b, n, &at, &l, &df)) {
		if (l == low)
			return df;
		if (l > low)
			break;
	}
	return 0;
}

/* The entries split off a bucket by merge_split: its features counted
 * often enough to be kept in embed_df_hot, by low bits. */
typedef struct df_split {
	callus_df_delta *items;
	size_t count, cap;
} df_split;

/* callus_match_df_merge, and with min > 0 the entries counted min times or
 * more left out of out and added to hot instead. */
static int merge_split(callus_buf *out, const uint8_t *b, size_t n, const callus_df_delta *d,
		       size_t nd, int64_t min, df_split *hot)
{
	size_t at = 0, j = 0;
	uint16_t low = 0;
	int64_t df = 0;
	int have = next_entry(b, n, &at, &low, &df);

	callus_buf_clear(out);
	while (have || j < nd) {
		uint16_t k;
		int64_t sum = 0;

		/* the smaller key of the two, with what both say of it */
		if (have && (j == nd || low <= d[j].low)) {
			k = low;
			sum = df;
			have = next_entry(b, n, &at, &low, &df);
		} else {
			k = d[j].low;
		}
		while (j < nd && d[j].low == k)
			sum += d[j++].delta;
		if (min > 0 && sum >= min) {
			callus_df_delta *g = callus_array_grow(hot->items, &hot->cap,
							       hot->count + 1, sizeof(*g));

			if (!g)
				return CALLUS_ENOMEM;
			hot->items = g;
			hot->items[hot->count].low = k;
			hot->items[hot->count++].delta = sum;
			continue;
		}
		/* a count taken to nothing, or taken off a feature that has
		 * none, leaves no entry */
		if (sum > 0 && put_entry(out, k, sum) < 0)
			return CALLUS_ENOMEM;
	}
	return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : 0;
}

int callus_match_df_merge(callus_buf *out, const uint8_t *b, size_t n, const callus_df_delta *d,
			  size_t nd)
{
	return merge_split(out, b, n, d, nd, 0, NULL);
}

int64_t callus_match_df_hot_min(int64_t docs)
{
	int64_t share = docs / CALLUS_MATCH_DF_HOT_SHARE;

	return share > CALLUS_MATCH_DF_HOT_MIN ? share : CALLUS_MATCH_DF_HOT_MIN;
}

static int delta_cmp(const void *a, const void *b)
{
	const callus_df_delta *x = a, *y = b;

	return (x->low > y->low) - (x->low < y->low);
}

/*
 * The memo: each feature's count by the store's key of it (its low 32
 * bits, callus_match_feature_key: two features the key joins share one
 * count), kept as key + 1 in a table of counts, which tells of no id 0.
 * A count is kept when it is a count (at least 1), and as 0 otherwise:
 * what callus_match_df_load does with either.
 */
struct callus_match_df_memo {
	callus_idf *seen;
	int64_t docs; /* -1 until read */
};

int callus_match_df_memo_new(callus_match_df_memo **out)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return CALLUS_ENOMEM;
	if (callus_idf_new(&(*out)->seen) < 0) {
		free(*out);
		*out = NULL;
		return CALLUS_ENOMEM;
	}
	(*out)->docs = -1;
	return 0;
}

void callus_match_df_memo_free(callus_match_df_memo *m)
{
	if (!m)
		return;
	callus_idf_free(m->seen);
	free(m);
}

void callus_match_df_memo_forget_docs(callus_match_df_memo *m)
{
	if (m)
		m->docs = -1;
}

/* Whether key's count is known; its count in *df when it is. */
static int memo_get(const callus_match_df_memo *m, int64_t key, int64_t *df)
{
	uint32_t v;

	if (!m || !callus_idf_lookup(m->seen, (uint64_t)key + 1, &v))
		return 0;
	*df = v;
	return 1;
}

/* key's count kept; without memory, forgotten (the next search reads it). */
static void memo_put(callus_match_df_memo *m, int64_t key, int64_t df)
{
	if (m)
		(void)callus_idf_set(m->seen, (uint64_t)key + 1, df > 0 ? (uint32_t)df : 0);
}

/* The count of the feature of key as the store holds it now, in *df;
 * *st and *bucket the statements it reads with, made at their first use
 * (the caller's to finish).  An SQLite result code. */
static int read_df(callus_store *s, sqlite3_stmt **st, sqlite3_stmt **bucket, int64_t key,
		   int64_t *df)
{
	int sq;

	/* most features are common words, in embed_df_hot's few pages: a
	 * bucket is read only for the others */
	if (!*st && (sq = callus_store_stmt(s,
					    "SELECT (SELECT df FROM embed_df_hot WHERE feature = ?1),"
					    " coalesce((SELECT df FROM embed_df_recent WHERE feature = ?1), 0)",
					    st)) != SQLITE_OK)
		return sq;
	sqlite3_reset(*st);
	sqlite3_bind_int64(*st, 1, key);
	if ((sq = sqlite3_step(*st)) != SQLITE_ROW)
		return sq;
	*df = sqlite3_column_int64(*st, 1);
	if (sqlite3_column_type(*st, 0) != SQLITE_NULL) {
		*df += sqlite3_column_int64(*st, 0);
		return SQLITE_OK;
	}
	/* read while st is not reset: its read of the store is still open, so
	 * the bucket is of the same snapshot (a fold in between could have
	 * moved the feature) */
	if (!*bucket &&
	    (sq = callus_store_stmt(s, "SELECT counts FROM embed_df WHERE bucket = ?1", bucket)) !=
		    SQLITE_OK)
		return sq;
	sqlite3_reset(*bucket);
	sqlite3_bind_int64(*bucket, 1, key >> LOW_BITS);
	if ((sq = sqlite3_step(*bucket)) == SQLITE_ROW)
		*df += callus_match_df_find(sqlite3_column_blob(*bucket, 0),
					    (size_t)sqlite3_column_bytes(*bucket, 0),
					    (uint16_t)(key & LOW_MASK));
	else if (sq != SQLITE_DONE)
		return sq;
	return SQLITE_OK;
}

int callus_match_df_load(callus_store *s, const callus_features *f, callus_match_df_memo *memo,
			 callus_idf **out)
{
	sqlite3_stmt *st = NULL, *bucket = NULL;
	callus_idf *idf = NULL;
	int64_t docs;
	int sq;

	*out = NULL;
	if (callus_idf_new(&idf) < 0)
		return SQLITE_NOMEM;
	/* the count kept by the store's triggers (counting the vectors read
	 * them all at each embedding), in the words a recording asks it in
	 * elsewhere: one statement, kept by the store */
	if (memo && memo->docs >= 0) {
		docs = memo->docs;
	} else if ((docs = callus_match_builtin_count(s)) < 0) {
		sq = sqlite3_errcode(callus_store_db(s));
		if (sq == SQLITE_OK || sq == SQLITE_ROW || sq == SQLITE_DONE)
			sq = SQLITE_ERROR;
		goto out;
	}
	if (memo)
		memo->docs = docs;
	callus_idf_set_docs(idf, (uint32_t)docs);
	for (size_t i = 0; i < f->count; i++) {
		int64_t key = callus_match_feature_key(f->items[i].id), df = 0;

		if (!memo_get(memo, key, &df)) {
			if ((sq = read_df(s, &st, &bucket, key, &df)) != SQLITE_OK)
				goto out;
			memo_put(memo, key, df);
		}
		/* a feature no document has is left out, as before either
		 * table held it */
		if (df > 0 && callus_idf_set(idf, f->items[i].id, (uint32_t)df) < 0) {
			sq = SQLITE_NOMEM;
			goto out;
		}
	}
	sq = SQLITE_OK;
	*out = idf;
	idf = NULL;
out:
	callus_store_stmt_done(s, st);
	callus_store_stmt_done(s, bucket);
	callus_idf_free(idf);
	return sq;
}

int callus_match_df_count_features(callus_store *s, const callus_features *f,
				   const uint32_t *times, int delta)
{
	sqlite3_stmt *st = NULL;
	int sq = callus_store_stmt(s,
				   "INSERT INTO embed_df_recent (feature, df) VALUES (?1, ?2)"
				   " ON CONFLICT (feature) DO UPDATE SET df = df + excluded.df",
				   &st);

	for (size_t i = 0; sq == SQLITE_OK && i < f->count; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, callus_match_feature_key(f->items[i].id));
		sqlite3_bind_int64(st, 2, (int64_t)delta * (times ? times[i] : 1));
		sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK
						      : sqlite3_errcode(callus_store_db(s));
	}
	callus_store_stmt_done(s, st);
	return sq;
}

int callus_match_df_count(callus_store *s, const callus_signature *sig, int delta)
{
	callus_features f = CALLUS_FEATURES_INIT;
	int sq;

	if (callus_embed_features(&f, sig) < 0)
		return SQLITE_NOMEM;
	sq = callus_match_df_count_features(s, &f, NULL, delta);
	callus_features_release(&f);
	return sq;
}

/* What a fold runs: embed_df's bucket read, written and removed, and
 * embed_df_hot's row written and removed. */
typedef struct fold_stmts {
	sqlite3_stmt *get, *put, *del, *hot_put, *hot_del;
} fold_stmts;

static int step_done(callus_store *s, sqlite3_stmt *st)
{
	int sq = sqlite3_step(st);

	sqlite3_reset(st);
	return sq == SQLITE_DONE ? SQLITE_OK : sq == SQLITE_ROW ? SQLITE_ERROR
								 : sqlite3_errcode(callus_store_db(s));
}

/* Feature key's row of embed_df_hot: df, or none when df is 0 or less. */
static int hot_set(callus_store *s, const fold_stmts *fs, int64_t key, int64_t df)
{
	sqlite3_stmt *st = df > 0 ? fs->hot_put : fs->hot_del;

	sqlite3_bind_int64(st, 1, key);
	if (df > 0)
		sqlite3_bind_int64(st, 2, df);
	return step_done(s, st);
}

/* A bucket's row made of what it held and the changes d[0..nd) (sorted),
 * its entries counted min times or more moved to embed_df_hot. */
static int fold_bucket(callus_store *s, const fold_stmts *fs, int64_t bucket,
		       const callus_df_delta *d, size_t nd, int64_t min, callus_buf *out,
		       df_split *hot)
{
	int sq;

	sqlite3_reset(fs->get);
	sqlite3_bind_int64(fs->get, 1, bucket);
	sq = sqlite3_step(fs->get);
	if (sq != SQLITE_ROW && sq != SQLITE_DONE)
		return sq;
	hot->count = 0;
	if (merge_split(out, sq == SQLITE_ROW ? sqlite3_column_blob(fs->get, 0) : NULL,
			sq == SQLITE_ROW ? (size_t)sqlite3_column_bytes(fs->get, 0) : 0, d, nd, min,
			hot) < 0)
		return SQLITE_NOMEM;
	sqlite3_reset(fs->get);
	for (size_t i = 0; i < hot->count; i++)
		if ((sq = hot_set(s, fs, bucket << LOW_BITS | hot->items[i].low,
				  hot->items[i].delta)) != SQLITE_OK)
			return sq;
	if (!out->len) {
		sqlite3_bind_int64(fs->del, 1, bucket);
		return step_done(s, fs->del);
	}
	sqlite3_bind_int64(fs->put, 1, bucket);
	sqlite3_bind_blob(fs->put, 2, out->ptr, (int)out->len, SQLITE_STATIC);
	return step_done(s, fs->put);
}

/* The changes of one bucket at a time, in key order, folded as the next
 * bucket's first comes. */
typedef struct fold_run {
	callus_df_delta *d;
	size_t nd, cap;
	int64_t bucket, min;
	callus_buf out;
	df_split hot;
} fold_run;

static int fold_add(callus_store *s, const fold_stmts *fs, fold_run *fr, int64_t key,
		    int64_t delta)
{
	int64_t b = key >> LOW_BITS;
	callus_df_delta *g;
	int sq;

	if (fr->nd && b != fr->bucket) {
		if ((sq = fold_bucket(s, fs, fr->bucket, fr->d, fr->nd, fr->min, &fr->out,
				      &fr->hot)) != SQLITE_OK)
			return sq;
		fr->nd = 0;
	}
	fr->bucket = b;
	if (!(g = callus_array_grow(fr->d, &fr->cap, fr->nd + 1, sizeof(*g))))
		return SQLITE_NOMEM;
	fr->d = g;
	fr->d[fr->nd].low = (uint16_t)(key & LOW_MASK);
	fr->d[fr->nd++].delta = delta;
	return SQLITE_OK;
}

static int fold_flush(callus_store *s, const fold_stmts *fs, fold_run *fr)
{
	int sq = SQLITE_OK;

	if (fr->nd)
		sq = fold_bucket(s, fs, fr->bucket, fr->d, fr->nd, fr->min, &fr->out, &fr->hot);
	fr->nd = 0;
	return sq;
}

/* A row of embed_df_hot. */
typedef struct hot_row {
	int64_t key, df;
} hot_row;

/* callus_sql_collect's reader of a hot_row. */
static int read_hot_row(sqlite3_stmt *st, void *item, void *ctx)
{
	hot_row *r = item;

	(void)ctx;
	r->key = sqlite3_column_int64(st, 0);
	r->df = sqlite3_column_int64(st, 1);
	return 0;
}

/* The rows of embed_df_hot counted fewer than low times moved back to
 * their buckets, with their whole counts (gc took counts off, or the
 * documents grew and the mark with them): the table stays bounded. */
static int hot_sweep(callus_store *s, const fold_stmts *fs, fold_run *fr, int64_t low)
{
	sqlite3_stmt *st = NULL;
	void *rows = NULL;
	size_t n = 0;
	int sq = sqlite3_prepare_v2(callus_store_db(s),
				    "SELECT feature, df FROM embed_df_hot WHERE df < ?1"
				    " ORDER BY feature",
				    -1, &st, NULL);

	if (sq == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, low);
		sq = callus_sql_collect(st, sizeof(hot_row), read_hot_row, NULL, 0, &rows, &n);
	}
	for (size_t i = 0; sq == SQLITE_OK && i < n; i++) {
		const hot_row *r = (const hot_row *)rows + i;

		if ((sq = hot_set(s, fs, r->key, 0)) == SQLITE_OK)
			sq = fold_add(s, fs, fr, r->key, r->df);
	}
	if (sq == SQLITE_OK)
		sq = fold_flush(s, fs, fr);
	sqlite3_finalize(st);
	free(rows);
	return sq;
}

int callus_match_fold_df(callus_store *s)
{
	sqlite3 *db = callus_store_db(s);
	sqlite3_stmt *st = NULL;
	fold_stmts fs = { NULL, NULL, NULL, NULL, NULL };
	fold_run fr;
	int64_t docs, low;
	int sq;

	memset(&fr, 0, sizeof(fr));
	if ((docs = callus_match_builtin_count(s)) < 0) {
		sq = sqlite3_errcode(db);
		return sq == SQLITE_OK || sq == SQLITE_ROW || sq == SQLITE_DONE ? SQLITE_ERROR : sq;
	}
	fr.min = callus_match_df_hot_min(docs);
	/* under half of it a common feature goes back: a count that moves
	 * about the mark does not move its row at every fold */
	low = fr.min / 2;
	/* in key order: each bucket met once, embed_df's pages left to
	 * right; with what embed_df_hot holds of each feature */
	if ((sq = sqlite3_prepare_v2(db,
				     "SELECT r.feature, r.df, h.df FROM embed_df_recent r"
				     " LEFT JOIN embed_df_hot h ON h.feature = r.feature"
				     " ORDER BY r.feature",
				     -1, &st, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(db, "SELECT counts FROM embed_df WHERE bucket = ?1", -1,
				     &fs.get, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(db,
				     "INSERT INTO embed_df (bucket, counts) VALUES (?1, ?2)"
				     " ON CONFLICT (bucket) DO UPDATE SET counts = excluded.counts",
				     -1, &fs.put, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(db, "DELETE FROM embed_df WHERE bucket = ?1", -1, &fs.del,
				     NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(db,
				     "INSERT INTO embed_df_hot (feature, df) VALUES (?1, ?2)"
				     " ON CONFLICT (feature) DO UPDATE SET df = excluded.df",
				     -1, &fs.hot_put, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_prepare_v2(db, "DELETE FROM embed_df_hot WHERE feature = ?1", -1,
				     &fs.hot_del, NULL)) != SQLITE_OK)
		goto out;
	while ((sq = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t key = sqlite3_column_int64(st, 0), delta = sqlite3_column_int64(st, 1);

		/* a common feature's count changed where it is: the sweep
		 * below moves it back when it fell under half the mark */
		sq = sqlite3_column_type(st, 2) == SQLITE_NULL
			     ? fold_add(s, &fs, &fr, key, delta)
			     : hot_set(s, &fs, key, sqlite3_column_int64(st, 2) + delta);
		if (sq != SQLITE_OK)
			goto out;
	}
	if (sq != SQLITE_DONE || (sq = fold_flush(s, &fs, &fr)) != SQLITE_OK)
		goto out;
	sqlite3_finalize(st);
	st = NULL;
	if ((sq = hot_sweep(s, &fs, &fr, low)) == SQLITE_OK)
		sq = sqlite3_exec(db, "DELETE FROM embed_df_recent", NULL, NULL, NULL);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(fs.get);
	sqlite3_finalize(fs.put);
	sqlite3_finalize(fs.del);
	sqlite3_finalize(fs.hot_put);
	sqlite3_finalize(fs.hot_del);
	callus_buf_release(&fr.out);
	free(fr.d);
	free(fr.hot.items);
	return sq;
}

/* Fold the recent frequencies once there are CALLUS_MATCH_DF_FOLD_ROWS:
 * count(*) of a rowid table reads its leaf pages' cell counts, a few
 * pages here. */
int callus_match_df_fold_when_full(callus_store *s)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(callus_store_db(s), "SELECT count(*) FROM embed_df_recent", -1,
				    &st, NULL);

	if (sq == SQLITE_OK && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t n = sqlite3_column_int64(st, 0);

		sq = SQLITE_OK;
		sqlite3_finalize(st);
		st = NULL;
		if (n >= CALLUS_MATCH_DF_FOLD_ROWS)
			sq = callus_match_fold_df(s);
	}
	sqlite3_finalize(st);
	return sq;
}

/*
 * The SQL functions over the packed counts.
 */

typedef struct pack_state {
	callus_df_delta *d;
	size_t n, cap;
	int failed;
} pack_state;

/* callus_df_pack(KEY, DF), an aggregate: one bucket's blob of the rows
 * given (keys of one bucket; their order does not matter) */
static void pack_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	pack_state *p = sqlite3_aggregate_context(ctx, sizeof(*p));
	callus_df_delta *g;

	(void)argc;
	if (!p || p->failed)
		return;
	if (!(g = callus_array_grow(p->d, &p->cap, p->n + 1, sizeof(*g)))) {
		p->failed = 1;
		return;
	}
	p->d = g;
	p->d[p->n].low = (uint16_t)(sqlite3_value_int64(argv[0]) & LOW_MASK);
	p->d[p->n++].delta = sqlite3_value_int64(argv[1]);
}

static void pack_final(sqlite3_context *ctx)
{
	pack_state *p = sqlite3_aggregate_context(ctx, 0);
	callus_buf out = CALLUS_BUF_INIT;

	if (!p || !p->n) {
		sqlite3_result_null(ctx);
	} else if (p->failed) {
		sqlite3_result_error_nomem(ctx);
	} else {
		qsort(p->d, p->n, sizeof(*p->d), delta_cmp);
		if (callus_match_df_merge(&out, NULL, 0, p->d, p->n) < 0)
			sqlite3_result_error_nomem(ctx);
		else if (!out.len)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_blob(ctx, out.ptr, (int)out.len, SQLITE_TRANSIENT);
	}
	callus_buf_release(&out);
	if (p)
		free(p->d);
}

/* callus_df_features(COUNTS [, MIN]): how many features the blob counts
 * (of those, how many at least MIN times) */
static void df_features(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const uint8_t *b = sqlite3_value_blob(argv[0]);
	size_t n = (size_t)sqlite3_value_bytes(argv[0]), at = 0;
	int64_t min = argc > 1 ? sqlite3_value_int64(argv[1]) : 1, features = 0, df;
	uint16_t low;

	while (next_entry(b, n, &at, &low, &df))
		features += df >= min;
	sqlite3_result_int64(ctx, features);
}

/* callus_df_sum(COUNTS): the sum of the blob's counts */
static void df_sum(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const uint8_t *b = sqlite3_value_blob(argv[0]);
	size_t n = (size_t)sqlite3_value_bytes(argv[0]), at = 0;
	int64_t sum = 0, df;
	uint16_t low;

	(void)argc;
	while (next_entry(b, n, &at, &low, &df))
		sum += df;
	sqlite3_result_int64(ctx, sum);
}

/* callus_df_of(COUNTS, KEY): KEY's count in its bucket's blob */
static void df_of(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	sqlite3_result_int64(ctx, callus_match_df_find(sqlite3_value_blob(argv[0]),
						       (size_t)sqlite3_value_bytes(argv[0]),
						       (uint16_t)(sqlite3_value_int64(argv[1]) &
								  LOW_MASK)));
}

/* callus_df_split(COUNTS, MIN, COMMON): with COMMON 1, the blob's entries
 * counted MIN times or more as a JSON array of [low bits, count]; with
 * COMMON 0, the blob of the others (NULL when none).  The migration to
 * schema 33 moves a bucket's common features to embed_df_hot with them. */
static void df_split_sql(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	callus_buf out = CALLUS_BUF_INIT, json = CALLUS_BUF_INIT;
	df_split hot = { NULL, 0, 0 };
	int64_t min = sqlite3_value_int64(argv[1]);

	(void)argc;
	if (min < 1) {
		sqlite3_result_error(ctx, "callus_df_split: MIN under 1", -1);
		goto out;
	}
	if (merge_split(&out, sqlite3_value_blob(argv[0]), (size_t)sqlite3_value_bytes(argv[0]),
			NULL, 0, min, &hot) < 0) {
		sqlite3_result_error_nomem(ctx);
		goto out;
	}
	if (!sqlite3_value_int(argv[2])) {
		if (out.len)
			sqlite3_result_blob(ctx, out.ptr, (int)out.len, SQLITE_TRANSIENT);
		else
			sqlite3_result_null(ctx);
		goto out;
	}
	callus_buf_putc(&json, '[');
	for (size_t i = 0; i < hot.count; i++)
		callus_buf_printf(&json, "%s[%u,%lld]", i ? "," : "", (unsigned)hot.items[i].low,
				  (long long)hot.items[i].delta);
	callus_buf_putc(&json, ']');
	if (callus_buf_status(&json) < 0)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_text(ctx, json.ptr, (int)json.len, SQLITE_TRANSIENT);
out:
	callus_buf_release(&out);
	callus_buf_release(&json);
	free(hot.items);
}

int callus_match_df_sql_register(sqlite3 *db)
{
	const int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
	int sq;

	if ((sq = sqlite3_create_function(db, "callus_df_pack", 2, flags, NULL, NULL, pack_step,
					  pack_final)) != SQLITE_OK ||
	    (sq = sqlite3_create_function(db, "callus_df_features", 1, flags, NULL, df_features,
					  NULL, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_create_function(db, "callus_df_features", 2, flags, NULL, df_features,
					  NULL, NULL)) != SQLITE_OK ||
	    (sq = sqlite3_create_function(db, "callus_df_sum", 1, flags, NULL, df_sum, NULL,
					  NULL)) != SQLITE_OK)
		return sq;
	if ((sq = sqlite3_create_function(db, "callus_df_split", 3, flags, NULL, df_split_sql,
					  NULL, NULL)) != SQLITE_OK)
		return sq;
	return sqlite3_create_function(db, "callus_df_of", 2, flags, NULL, df_of, NULL, NULL);
}
