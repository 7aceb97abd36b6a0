/*
 * match_scans.c - what the near-duplicate check of a recording's new
 * signatures learnt of the built-in vector file (match.h:
 * callus_match_scans), for the search of the same signatures' suggestions
 * that follows: the records that can reach its threshold are the few the
 * check saw near the signature, and the vectors appended since (and,
 * when the check searched only the newest, the older ones it did not
 * see).  The
 * search takes the check's vector (callus_match_scans_vector: the one the
 * file holds for the signature) rather than make it again; one made again
 * differs by the document count, so a bound on how far any record's score
 * can move (callus_vecindex_score_gap) says which records a search with it
 * may skip; when it cannot say, the search reads the whole file as before.
 */
#include "callus/buf.h"
#include "callus/hash.h"
#include "callus/match.h"

#include "match_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct scan {
	char sig_id[CALLUS_SHA256_HEX_LEN + 1];
	float q[CALLUS_EMBED_DIM];
	size_t start, count;      /* the records the check read: start..count */
	uint64_t file[2];
	size_t *recs, n;          /* those scoring at least KEEP_MIN */
} scan;

struct callus_match_scans {
	scan *items;
	size_t count, cap;
};

int callus_match_scans_new(callus_match_scans **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : CALLUS_ENOMEM;
}

void callus_match_scans_free(callus_match_scans *sc)
{
	if (!sc)
		return;
	for (size_t i = 0; i < sc->count; i++)
		free(sc->items[i].recs);
	free(sc->items);
	free(sc);
}

int callus_match_scans_put(callus_match_scans *sc, const char *sig_id, const float *q,
			   const callus_vecindex *vi, size_t start, const size_t *keep, size_t n)
{
	scan *it;

	if (!sc || strlen(sig_id) > CALLUS_SHA256_HEX_LEN || n > CALLUS_MATCH_KEEP_MAX)
		return 0;
	if (!(it = callus_array_grow(sc->items, &sc->cap, sc->count + 1, sizeof(*it))))
		return CALLUS_ENOMEM;
	sc->items = it;
	it = &sc->items[sc->count];
	memset(it, 0, sizeof(*it));
	if (n && !(it->recs = malloc(n * sizeof(*it->recs))))
		return CALLUS_ENOMEM;
	snprintf(it->sig_id, sizeof(it->sig_id), "%s", sig_id);
	memcpy(it->q, q, sizeof(it->q));
	if (n)
		memcpy(it->recs, keep, n * sizeof(*keep));
	it->n = n;
	it->start = start;
	it->count = callus_vecindex_count(vi);
	callus_vecindex_file_id(vi, it->file);
	sc->count++;
	return 0;
}

int callus_match_scans_vector(const callus_match_scans *sc, const char *sig_id,
			      float q[CALLUS_EMBED_DIM])
{
	for (size_t i = sc ? sc->count : 0; i-- > 0;)
		if (!strcmp(sc->items[i].sig_id, sig_id)) {
			memcpy(q, sc->items[i].q, sizeof(sc->items[i].q));
			return 1;
		}
	return 0;
}

int callus_match_scans_get(const callus_match_scans *sc, const char *sig_id, const float *q,
			   float min, const callus_vecindex *vi, const size_t **recs, size_t *n,
			   size_t *start, size_t *from)
{
	uint64_t file[2];

	if (!sc)
		return 0;
	callus_vecindex_file_id(vi, file);
	for (size_t i = sc->count; i-- > 0;) {
		const scan *it = &sc->items[i];
		double gap;

		if (strcmp(it->sig_id, sig_id) != 0)
			continue;
		/* the same file, which only grew since (a rewrite renames
		 * another file in) */
		if (it->count && (it->file[0] != file[0] || it->file[1] != file[1] ||
				  callus_vecindex_count(vi) < it->count))
			return 0;
		/* a record the check saw under KEEP_MIN scores under
		 * KEEP_MIN + gap now: under min, never found */
		gap = callus_vecindex_score_gap(it->q, q, CALLUS_EMBED_DIM);
		if (gap < 0 || (double)CALLUS_MATCH_KEEP_MIN + gap > (double)min)
			return 0;
		*recs = it->recs;
		*n = it->n;
		*start = it->start;
		*from = it->count;
		return 1;
	}
	return 0;
}

