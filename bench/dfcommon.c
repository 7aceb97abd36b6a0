/*
 * dfcommon - how many of a signature's document-frequency lookups the
 * common features' table (embed_df_hot, schema 33, src/match_df.c) answers:
 * the features counted at least callus_match_df_hot_min(documents) times,
 * which share a few pages where each of the others reads a bucket's page.
 *
 *	dfcommon store DB N
 *		the N newest signatures of a store (a copy: it is migrated),
 *		each feature looked up in embed_df_hot as callus_match_df_load
 *		looks it up;
 *	dfcommon corpus SIGNATURES.json LABEL
 *		the signatures tests/corpus/check.py --dump-signatures writes
 *		(one per id), their frequencies counted over all of them, each
 *		signature's own left out of its lookups, the mark made of their
 *		number.
 *
 * Prints a Markdown row: what was read, signatures, lookups a signature,
 * and the share of lookups that are common.  bench/dfcommon.sh runs both.
 */
#include "callus/embed.h"
#include "callus/match.h"
#include "callus/signature.h"
#include "callus/store.h"
#include "callus/strlist.h"

#include "match_internal.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void row(const char *what, size_t sigs, size_t lookups, size_t common)
{
	printf("| %s | %zu | %.1f | %zu of %zu (%.1f %%) |\n", what, sigs,
	       sigs ? (double)lookups / (double)sigs : 0.0, common, lookups,
	       lookups ? 100.0 * (double)common / (double)lookups : 0.0);
}

static int from_store(const char *db, int n)
{
	callus_store *s = NULL;
	sqlite3_stmt *ids = NULL, *hot = NULL;
	size_t sigs = 0, lookups = 0, common = 0;
	int rc = 1;

	if (callus_store_open(&s, db, 5000, NULL) < 0 ||
	    sqlite3_prepare_v2(callus_store_db(s),
			       "SELECT id FROM signatures ORDER BY rowid DESC LIMIT ?1", -1, &ids,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(callus_store_db(s), "SELECT 1 FROM embed_df_hot WHERE feature = ?1",
			       -1, &hot, NULL) != SQLITE_OK) {
		fprintf(stderr, "dfcommon: cannot read %s\n", db);
		goto out;
	}
	sqlite3_bind_int(ids, 1, n);
	while (sqlite3_step(ids) == SQLITE_ROW) {
		callus_signature g;
		callus_features f = CALLUS_FEATURES_INIT;

		memset(&g, 0, sizeof(g));
		if (callus_match_get_signature(s, (const char *)sqlite3_column_text(ids, 0), &g,
					       NULL) < 0 ||
		    callus_embed_features(&f, &g) < 0) {
			callus_signature_release(&g);
			continue;
		}
		sigs++;
		for (size_t i = 0; i < f.count; i++) {
			sqlite3_reset(hot);
			sqlite3_bind_int64(hot, 1, callus_match_feature_key(f.items[i].id));
			lookups++;
			common += sqlite3_step(hot) == SQLITE_ROW;
		}
		callus_features_release(&f);
		callus_signature_release(&g);
	}
	row(db, sigs, lookups, common);
	rc = 0;
out:
	sqlite3_finalize(ids);
	sqlite3_finalize(hot);
	callus_store_close(s);
	return rc;
}

/* A feature's count among the corpus's signatures: open addressing by id. */
typedef struct count {
	uint64_t id;
	int64_t n;
} count;

static count *slot(count *t, size_t cap, uint64_t id)
{
	size_t h = (size_t)(id * 0x9E3779B97F4A7C15ull) & (cap - 1);

	while (t[h].id && t[h].id != id)
		h = (h + 1) & (cap - 1);
	return &t[h];
}

static char *text_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return strdup(json_is_string(v) ? json_string_value(v) : "");
}

static void list_of(callus_strlist *out, json_t *o, const char *key)
{
	size_t i;
	json_t *v;

	json_array_foreach(json_object_get(o, key), i, v)
		if (json_is_string(v))
			callus_strlist_add(out, json_string_value(v), json_string_length(v));
}

static int from_corpus(const char *path, const char *label)
{
	json_t *root = json_load_file(path, 0, NULL), *rec;
	callus_strlist seen = CALLUS_STRLIST_INIT;
	callus_signature *g = NULL;
	callus_features f = CALLUS_FEATURES_INIT;
	size_t n = 0, cap = 1u << 20, idx, lookups = 0, common = 0;
	count *t = calloc(cap, sizeof(*t));
	int64_t mark;
	int rc = 1;

	if (!json_is_array(root) || !t || !(g = calloc(json_array_size(root) + 1, sizeof(*g)))) {
		fprintf(stderr, "dfcommon: cannot read %s\n", path);
		goto out;
	}
	json_array_foreach(root, idx, rec) {
		json_t *s = json_object_get(rec, "signature");
		const char *id = json_string_value(json_object_get(s, "id"));
		int added = 0;

		if (!id || callus_strlist_add_unique(&seen, id, strlen(id), &added) < 0 || !added)
			continue;
		snprintf(g[n].id, sizeof(g[n].id), "%s", id);
		g[n].error_type = text_of(s, "error_type");
		g[n].message_pattern = text_of(s, "message_pattern");
		g[n].original = text_of(s, "original");
		g[n].tool = text_of(s, "tool");
		list_of(&g[n].stack_patterns, s, "stack_patterns");
		list_of(&g[n].context_patterns, s, "context_patterns");
		n++;
	}
	/* two passes: the counts, then each signature's lookups less itself */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			if (callus_embed_features(&f, &g[i]) < 0)
				goto out;
			for (size_t j = 0; j < f.count; j++) {
				count *c = slot(t, cap, f.items[j].id);

				if (pass == 0) {
					c->id = f.items[j].id;
					c->n++;
				} else {
					lookups++;
					common += c->n - 1 >= callus_match_df_hot_min((int64_t)n);
				}
			}
			callus_features_release(&f);
		}
	}
	mark = callus_match_df_hot_min((int64_t)n);
	{
		char what[160];

		snprintf(what, sizeof(what), "%s (the mark %lld)", label, (long long)mark);
		row(what, n, lookups, common);
	}
	rc = 0;
out:
	for (size_t i = 0; g && i < n; i++)
		callus_signature_release(&g[i]);
	free(g);
	free(t);
	callus_strlist_release(&seen);
	json_decref(root);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "store"))
		return from_store(argv[2], atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "corpus"))
		return from_corpus(argv[2], argv[3]);
	fprintf(stderr, "usage: dfcommon store DB N | dfcommon corpus SIGNATURES.json LABEL\n");
	return 2;
}
