/*
 * noted_clusters - whether the noted signatures' vectors cluster tightly
 * enough for a search to skip a cluster at once (docs/scale-history.md,
 * the sixty-sixth pass): what a search of the noted file would still read
 * if the file were kept in cluster order with each cluster's centroid c
 * and radius r (the largest |x - c| of its members), a cluster ruled out
 * when q.c + r stays under the threshold (Cauchy-Schwarz, |q| = 1: exact).
 *
 * The clusters are a leader clustering in the file's order: a vector joins
 * the first leader of the most similar ones at cosine TAU or more, else
 * leads a cluster of its own.  The queries are the newest QUERIES records
 * of a second vector file (the store's own: the errors a recording
 * searches with).
 *
 * usage: noted_clusters NOTED.bin ALL.bin TAU [THRESHOLD [QUERIES]]
 *        (THRESHOLD 0.85, the least a recording's search of the noted
 *        file asks; QUERIES 500)
 * prints: records, clusters, the share of records in clusters of 32 or
 *         more, and for the queries the share of records a search would
 *         still read, the clusters it could not rule out, the records
 *         reaching the threshold (what the search must find), and how many
 *         of their components a query sets (the postings' lists a search
 *         visits, vi_query_weighed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/vecindex.h"

#define DIM 256
#define MODEL "callus-builtin-1"

/* The records of the vector file at path as unit float vectors (*n of
 * them); NULL when it cannot be read. */
static float *load(const char *path, size_t *n)
{
	callus_vecindex *vi = NULL;
	float *v = NULL;
	int8_t q[DIM];

	*n = 0;
	if (callus_vecindex_open(&vi, path, MODEL, DIM, NULL, NULL) < 0 || !vi)
		return NULL;
	*n = callus_vecindex_count(vi);
	if (*n && (v = malloc(*n * DIM * sizeof(*v)))) {
		for (size_t i = 0; i < *n; i++) {
			float scale, *x = v + i * DIM;
			double n2 = 0;

			(void)callus_vecindex_record(vi, i, &scale, q);
			for (size_t d = 0; d < DIM; d++) {
				x[d] = (float)q[d] * scale;
				n2 += (double)x[d] * x[d];
			}
			for (size_t d = 0; n2 > 0 && d < DIM; d++)
				x[d] = (float)(x[d] / sqrt(n2));
		}
	}
	callus_vecindex_close(vi);
	return v;
}

static double dot(const float *a, const double *b)
{
	double s = 0;

	for (size_t d = 0; d < DIM; d++)
		s += a[d] * b[d];
	return s;
}

static double dotf(const float *a, const float *b)
{
	double s = 0;

	for (size_t d = 0; d < DIM; d++)
		s += (double)a[d] * b[d];
	return s;
}

int main(int argc, char **argv)
{
	size_t n, nq, nl = 0, big = 0, from, hits = 0, weighed = 0;
	float *v, *q;
	double tau, min, read = 0, open = 0;
	double *lead = NULL, *cen = NULL, *rad = NULL;
	size_t *of = NULL, *cnt = NULL, queries;
	int rc = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: noted_clusters NOTED.bin ALL.bin TAU [THRESHOLD [QUERIES]]\n");
		return 2;
	}
	tau = atof(argv[3]);
	min = argc > 4 ? atof(argv[4]) : 0.85;
	queries = argc > 5 ? (size_t)atol(argv[5]) : 500;
	v = load(argv[1], &n);
	q = load(argv[2], &nq);
	if (!v || !q || !n || !nq) {
		fprintf(stderr, "noted_clusters: cannot read the vectors of %s or %s\n", argv[1],
			argv[2]);
		goto out;
	}
	/* at most one leader a record */
	lead = malloc(n * DIM * sizeof(*lead));
	of = malloc(n * sizeof(*of));
	if (!lead || !of)
		goto out;
	for (size_t i = 0; i < n; i++) {
		size_t best = nl;
		double bs = tau;

		for (size_t c = 0; c < nl; c++) {
			double s = dot(v + i * DIM, lead + c * DIM);

			if (s >= bs) {
				bs = s;
				best = c;
			}
		}
		if (best == nl) {
			for (size_t d = 0; d < DIM; d++)
				lead[nl * DIM + d] = v[i * DIM + d];
			nl++;
		}
		of[i] = best;
	}
	cen = calloc(nl * DIM, sizeof(*cen));
	rad = calloc(nl, sizeof(*rad));
	cnt = calloc(nl, sizeof(*cnt));
	if (!cen || !rad || !cnt)
		goto out;
	for (size_t i = 0; i < n; i++) {
		cnt[of[i]]++;
		for (size_t d = 0; d < DIM; d++)
			cen[of[i] * DIM + d] += v[i * DIM + d];
	}
	for (size_t c = 0; c < nl; c++)
		for (size_t d = 0; d < DIM; d++)
			cen[c * DIM + d] /= (double)cnt[c];
	for (size_t i = 0; i < n; i++) {
		double s = 0;

		for (size_t d = 0; d < DIM; d++) {
			double x = v[i * DIM + d] - cen[of[i] * DIM + d];

			s += x * x;
		}
		if (sqrt(s) > rad[of[i]])
			rad[of[i]] = sqrt(s);
	}
	for (size_t c = 0; c < nl; c++)
		if (cnt[c] >= 32)
			big += cnt[c];
	from = nq > queries ? nq - queries : 0;
	for (size_t k = from; k < nq; k++) {
		const float *x = q + k * DIM;

		/* the components a search's sums visit (vi_query_weighed):
		 * a record's are its query's, quantized alike */
		for (size_t d = 0; d < DIM; d++)
			weighed += x[d] != 0;

		for (size_t c = 0; c < nl; c++) {
			if (dot(x, cen + c * DIM) + rad[c] >= min) {
				read += (double)cnt[c];
				open++;
			}
		}
		for (size_t i = 0; i < n; i++)
			hits += dotf(x, v + i * DIM) >= min;
	}
	printf("records %zu, clusters %zu (%.1f %% of the records in clusters of 32 or more); "
	       "%zu queries at %.2f: %.1f %% of the records still read, %.1f clusters not ruled "
	       "out, %zu records reaching it; %.1f of the %d components set a query\n",
	       n, nl, 100.0 * (double)big / (double)n, nq - from, min,
	       100.0 * read / (double)(nq - from) / (double)n, open / (double)(nq - from), hits,
	       (double)weighed / (double)(nq - from), DIM);
	rc = 0;
out:
	free(v);
	free(q);
	free(lead);
	free(of);
	free(cen);
	free(rad);
	free(cnt);
	return rc;
}
