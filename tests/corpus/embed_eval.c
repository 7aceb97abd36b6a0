/*
 * embed_eval.c - calibrate the built-in embedder on the corpus.
 *
 *	embed_eval SIGNATURES.json [-v] [--no-idf]
 *
 * Reads what `check.py --dump-signatures` writes (every error of the corpus
 * matched to its planted root-cause group, with its signature), keeps one
 * signature per id, builds the document frequencies over all of them,
 * embeds them and prints how well the cosine tells the groups apart: the
 * similarity of pairs in one group and in different groups, precision and
 * recall of "similar >= t => same group" over pairs, and a leave-one-out
 * nearest-neighbour measure.  -v also lists the pairs that fool it;
 * --no-idf weighs every feature 1 (a store that has seen nothing yet).
 * tests/corpus/embed_eval.sh builds and runs it; docs/matching.md has the
 * numbers.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/embed.h"
#include "callus/signature.h"
#include "callus/strlist.h"

typedef struct item {
	callus_signature sig;
	char *group, *case_id;
	float vec[CALLUS_EMBED_DIM];
} item;

typedef struct pair {
	float sim;
	size_t a, b;
} pair;

static char *dup_str(json_t *v)
{
	const char *s = json_is_string(v) ? json_string_value(v) : "";
	return strdup(s);
}

static int load_list(callus_strlist *out, json_t *arr)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		if (json_is_string(v) && callus_strlist_add(out, json_string_value(v), strlen(json_string_value(v))) < 0)
			return -1;
	}
	return 0;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

static int cmp_pair_desc(const void *a, const void *b)
{
	float x = ((const pair *)a)->sim, y = ((const pair *)b)->sim;

	return x > y ? -1 : x < y;
}

/* Nearest rank: the value below which a fraction q of the sorted v lies. */
static float quantile(const float *v, size_t n, double q)
{
	return n ? v[(size_t)(q * (double)(n - 1) + 0.5)] : 0.0f;
}

static void distribution(const char *name, float *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_float);
	if (!n) {
		printf("| %s | 0 | | | | | |\n", name);
		return;
	}
	printf("| %s | %zu | %.3f | %.3f | %.3f | %.3f | %.3f |\n", name, n, v[0],
	       quantile(v, n, 0.05), quantile(v, n, 0.5), quantile(v, n, 0.95), v[n - 1]);
}

static void show(const item *it)
{
	printf("      %s  [%s] %s  %.90s", it->group, it->sig.tool, it->sig.error_type,
	       it->sig.message_pattern);
	for (size_t i = 0; i < it->sig.stack_patterns.count && i < 2; i++)
		printf("  <%s>", it->sig.stack_patterns.items[i]);
	printf("\n");
}

int main(int argc, char **argv)
{
	json_error_t jerr;
	json_t *root = NULL, *rec;
	item *items = NULL;
	size_t n = 0, idx;
	callus_idf *idf = NULL;
	callus_features feat = CALLUS_FEATURES_INIT;
	float *same = NULL, *diff = NULL, *best = NULL;
	pair *pairs = NULL;
	size_t nsame = 0, ndiff = 0, npairs = 0, *nearest = NULL, *mates = NULL;
	int verbose = 0, use_idf = 1, rc = 1;

	for (int a = 2; a < argc; a++) {
		if (!strcmp(argv[a], "-v"))
			verbose = 1;
		else if (!strcmp(argv[a], "--no-idf"))
			use_idf = 0;
		else
			argc = 0;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: embed_eval SIGNATURES.json [-v] [--no-idf]\n");
		return 2;
	}
	if (!(root = json_load_file(argv[1], 0, &jerr)) || !json_is_array(root)) {
		fprintf(stderr, "embed_eval: %s: %s\n", argv[1], root ? "not a list" : jerr.text);
		goto out;
	}
	if (!(items = calloc(json_array_size(root) + 1, sizeof(*items))))
		goto out;
	/* one item per signature id: the first error that had it */
	json_array_foreach(root, idx, rec) {
		json_t *s = json_object_get(rec, "signature");
		const char *id = json_string_value(json_object_get(s, "id"));
		const char *group = json_string_value(json_object_get(rec, "group"));
		int seen = 0;
		item *it;

		if (!id || !group)
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = !strcmp(items[k].sig.id, id);
		if (seen)
			continue;
		it = &items[n++];
		snprintf(it->sig.id, sizeof(it->sig.id), "%s", id);
		it->sig.error_type = dup_str(json_object_get(s, "error_type"));
		it->sig.message_pattern = dup_str(json_object_get(s, "message_pattern"));
		it->sig.original = dup_str(json_object_get(s, "original"));
		it->sig.tool = dup_str(json_object_get(s, "tool"));
		it->group = strdup(group);
		it->case_id = dup_str(json_object_get(rec, "case"));
		if (!it->sig.error_type || !it->sig.message_pattern || !it->sig.original ||
		    !it->sig.tool || !it->group || !it->case_id ||
		    load_list(&it->sig.stack_patterns, json_object_get(s, "stack_patterns")) < 0 ||
		    load_list(&it->sig.context_patterns, json_object_get(s, "context_patterns")) < 0)
			goto out;
	}
	if (n < 2) {
		fprintf(stderr, "embed_eval: fewer than two signatures in %s\n", argv[1]);
		goto out;
	}

	/* document frequencies over the whole set, as a store holding all of
	 * them would have */
	if (callus_idf_new(&idf) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (callus_embed_features(&feat, &items[i].sig) < 0 || callus_idf_add(idf, &feat) < 0)
			goto out;
	for (size_t i = 0; i < n; i++) {
		if (callus_embed_features(&feat, &items[i].sig) < 0)
			goto out;
		callus_embed_vector(items[i].vec, &feat, use_idf ? idf : NULL);
	}

	npairs = n * (n - 1) / 2;
	if (!(same = calloc(npairs, sizeof(*same))) || !(diff = calloc(npairs, sizeof(*diff))) ||
	    !(pairs = calloc(npairs, sizeof(*pairs))) || !(best = calloc(n, sizeof(*best))) ||
	    !(nearest = calloc(n, sizeof(*nearest))) || !(mates = calloc(n, sizeof(*mates))))
		goto out;
	for (size_t i = 0; i < n; i++)
		best[i] = -2.0f;
	npairs = 0;
	for (size_t i = 0; i < n; i++) {
		for (size_t j = i + 1; j < n; j++) {
			float s = callus_dot(items[i].vec, items[j].vec, CALLUS_EMBED_DIM);
			int sg = !strcmp(items[i].group, items[j].group);

			if (sg) {
				same[nsame++] = s;
				mates[i]++;
				mates[j]++;
			} else {
				diff[ndiff++] = s;
			}
			pairs[npairs].sim = s;
			pairs[npairs].a = i;
			pairs[npairs].b = j;
			npairs++;
			/* ties go to the earlier signature: fixed, not lucky */
			if (s > best[i]) {
				best[i] = s;
				nearest[i] = j;
			}
			if (s > best[j]) {
				best[j] = s;
				nearest[j] = i;
			}
		}
	}
	qsort(pairs, npairs, sizeof(*pairs), cmp_pair_desc);

	{
		size_t groups = 0, with_mate = 0, top1 = 0, alone = 0;

		for (size_t i = 0; i < n; i++) {
			int first = 1;
			for (size_t k = 0; k < i && first; k++)
				first = strcmp(items[k].group, items[i].group) != 0;
			groups += first;
			if (mates[i]) {
				with_mate++;
				top1 += !strcmp(items[nearest[i]].group, items[i].group);
			} else {
				alone++;
			}
		}
		printf("signatures: %zu (distinct ids), groups: %zu, with a group-mate: %zu, alone in "
		       "their group: %zu\n", n, groups, with_mate, alone);
		printf("pairs: %zu same group, %zu different groups\n\n", nsame, ndiff);
		printf("| pairs | n | min | p5 | median | p95 | max |\n");
		printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
		distribution("same group", same, nsame);
		distribution("different groups", diff, ndiff);
		printf("\nnearest neighbour (leave one out): top-1 in the same group %zu/%zu = %.3f\n\n",
		       top1, with_mate, with_mate ? (double)top1 / (double)with_mate : 0.0);

		printf("| t | pairs >= t: same | different | of which same tool | precision | recall | "
		       "with mate: nearest >= t and right | alone: max < t |\n");
		printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
		/* 0.30 .. 0.95 by 0.05, then 0.97 .. 0.99 for the duplicate
		 * threshold */
		for (int k = 0; k <= 16; k++) {
			float t = k <= 13 ? 0.30f + 0.05f * (float)k : 0.97f + 0.01f * (float)(k - 14);
			size_t tp = 0, fp = 0, fp_tool = 0, hit = 0, quiet = 0;

			for (size_t i = 0; i < nsame; i++)
				tp += same[i] >= t - 1e-6f;
			for (size_t p = 0; p < npairs; p++) {
				const item *a = &items[pairs[p].a], *b = &items[pairs[p].b];
				if (pairs[p].sim >= t - 1e-6f && strcmp(a->group, b->group)) {
					fp++;
					fp_tool += !strcmp(a->sig.tool, b->sig.tool);
				}
			}
			for (size_t i = 0; i < n; i++) {
				if (mates[i])
					hit += best[i] >= t - 1e-6f &&
					       !strcmp(items[nearest[i]].group, items[i].group);
				else
					quiet += best[i] < t - 1e-6f;
			}
			printf("| %.2f | %zu | %zu | %zu | %s%.3f | %.3f | %.3f | %.3f |\n", (double)t, tp, fp, fp_tool,
			       tp + fp ? "" : "(none) ", tp + fp ? (double)tp / (double)(tp + fp) : 1.0,
			       nsame ? (double)tp / (double)nsame : 0.0,
			       with_mate ? (double)hit / (double)with_mate : 0.0,
			       alone ? (double)quiet / (double)alone : 0.0);
		}
	}

	if (verbose) {
		size_t shown = 0;

		printf("\nmost similar pairs of different groups:\n");
		for (size_t p = 0; p < npairs && shown < 25; p++) {
			const item *a = &items[pairs[p].a], *b = &items[pairs[p].b];
			if (!strcmp(a->group, b->group))
				continue;
			printf("  %.3f\n", (double)pairs[p].sim);
			show(a);
			show(b);
			shown++;
		}
		printf("\nleast similar pairs of one group:\n");
		shown = 0;
		for (size_t p = npairs; p-- > 0 && shown < 15;) {
			const item *a = &items[pairs[p].a], *b = &items[pairs[p].b];
			if (strcmp(a->group, b->group))
				continue;
			printf("  %.3f\n", (double)pairs[p].sim);
			show(a);
			show(b);
			shown++;
		}
		printf("\nwrong nearest neighbours:\n");
		for (size_t i = 0; i < n; i++) {
			if (!mates[i] || !strcmp(items[nearest[i]].group, items[i].group))
				continue;
			printf("  %.3f\n", (double)best[i]);
			show(&items[i]);
			show(&items[nearest[i]]);
		}
	}
	rc = 0;
out:
	for (size_t i = 0; items && i < n; i++) {
		callus_signature_release(&items[i].sig);
		free(items[i].group);
		free(items[i].case_id);
	}
	free(items);
	free(same);
	free(diff);
	free(pairs);
	free(best);
	free(nearest);
	free(mates);
	callus_features_release(&feat);
	callus_idf_free(idf);
	json_decref(root);
	return rc;
}
