/*
 * sketchrest - whether an inverted search could skip records of a vector
 * file (docs/scale-history.md, the twenty-sixth pass): from its sketch file (the
 * vector file's path + ".sketch", src/vecindex_internal.h), how much of
 * each vector lies outside its VI_SKETCH_TOP heaviest components (rest /
 * |v|), and, for a search's threshold, the share of a query's squared
 * length its heaviest components would have to hold for a record sharing
 * none of them to be left unread: such a record scores at most
 * |q outside| + |q inside| * rest / |v|.
 *
 * usage: sketchrest FILE.sketch [THRESHOLD]   (default 0.80, the lowest a
 *        recording searches with)
 * prints: records, rest / |v| at the median, p90, p99 and most; then the
 *         share needed with the p99's and the largest rest.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "vecindex_internal.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The least share of |q|^2 the query's heaviest components must hold so
 * that a record whose rest is r reaches under lo without them: 1 - x^2
 * for the largest x (|q outside| / |q|) with x + r sqrt(1 - x^2) < lo. */
static double share_needed(double r, double lo)
{
	for (double x = 1.0; x >= 0; x -= 0.001)
		if (x + r * sqrt(1 - x * x) < lo)
			return 1 - x * x;
	return 1;
}

int main(int argc, char **argv)
{
	double lo = argc > 2 ? atof(argv[2]) : 0.80, *ratio;
	vi_sketch_rec s;
	size_t n = 0, cap = 1024;
	FILE *f;

	if (argc < 2 || argc > 3 || !(lo > 0 && lo <= 1)) {
		fprintf(stderr, "usage: sketchrest FILE.sketch [THRESHOLD]\n");
		return 2;
	}
	if (!(f = fopen(argv[1], "rb")) || fseek(f, VI_DERIVED_HEADER, SEEK_SET) < 0) {
		perror(argv[1]);
		return 1;
	}
	if (!(ratio = malloc(cap * sizeof(*ratio))))
		return 1;
	while (fread(&s, sizeof(s), 1, f) == 1) {
		double top = 0;

		for (int t = 0; t < VI_SKETCH_TOP; t++)
			top += (double)s.v[t] * s.v[t];
		if (n == cap && !(ratio = realloc(ratio, (cap *= 2) * sizeof(*ratio))))
			return 1;
		ratio[n++] = top + (double)s.rest * s.rest > 0
				     ? fabs((double)s.rest) / sqrt(top + (double)s.rest * s.rest)
				     : 0;
	}
	fclose(f);
	if (!n) {
		fprintf(stderr, "%s: no sketches\n", argv[1]);
		return 1;
	}
	qsort(ratio, n, sizeof(*ratio), cmp);
	printf("%zu records; rest / |v|: median %.3f, p90 %.3f, p99 %.3f, most %.3f\n", n,
	       ratio[n / 2], ratio[n * 9 / 10], ratio[n * 99 / 100], ratio[n - 1]);
	printf("at %.2f the query's heaviest components must hold %.1f %% of |q|^2 (p99's rest),"
	       " %.1f %% (the largest)\n",
	       lo, 100 * share_needed(ratio[n * 99 / 100], lo), 100 * share_needed(ratio[n - 1], lo));
	free(ratio);
	return 0;
}
