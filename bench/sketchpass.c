/*
 * bench/sketchpass.c - how many rows the regex fallback's sketch turns
 * away unread (schema 31; include/callus/signature.h), against the
 * literal test it stands before, on pairs of a message and a stored row:
 *
 *   sketchpass store DB N   the N newest signatures of the store DB, each
 *                           against the newest 200 of its error type but
 *                           itself (the rows a recording's fallback tries)
 *   sketchpass pairs NAME   lines "group<TAB>message" on stdin, every
 *                           ordered pair of two different messages of a
 *                           group (a tool's), the first as the row
 *
 * Prints one Markdown row: the pairs, the share the literal test lets
 * through (callus_pattern_may_match / callus_message_may_match), the share
 * the sketch lets through, and the share of the literal test's refusals
 * the sketch makes.  A pair the literal test lets through and the sketch
 * refuses would be a match lost: counted, and the exit status is 1.
 */
#include "callus/signature.h"

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tally {
	long pairs, literal, sketch, lost;
} tally;

/* The pair of a row (stored pattern, may be "", and original) and msg. */
static void count_pair(tally *t, const char *stored, const char *original, const char *msg)
{
	int may = stored && *stored ? callus_pattern_may_match(stored, msg)
				    : callus_message_may_match(original, msg);
	int pass = callus_sketch_may_match(callus_signature_sketch(stored, original, 0),
					   callus_message_mask(msg), 0);

	t->pairs++;
	t->literal += may;
	t->sketch += pass;
	t->lost += may && !pass;
}

static int from_store(tally *t, const char *path, int n)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *q = NULL, *c = NULL;
	int rc = -1;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT error_type, original, sig FROM signatures"
			       " ORDER BY last_seen DESC LIMIT ?1",
			       -1, &q, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db,
			       "SELECT message_pattern, original FROM signatures"
			       " WHERE error_type = ?1 AND sig <> ?2 ORDER BY last_seen DESC"
			       " LIMIT 200",
			       -1, &c, NULL) != SQLITE_OK) {
		fprintf(stderr, "sketchpass: %s: %s\n", path, sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_bind_int(q, 1, n);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const char *msg = (const char *)sqlite3_column_text(q, 1);

		sqlite3_reset(c);
		sqlite3_bind_value(c, 1, sqlite3_column_value(q, 0));
		sqlite3_bind_int64(c, 2, sqlite3_column_int64(q, 2));
		while (sqlite3_step(c) == SQLITE_ROW)
			count_pair(t, (const char *)sqlite3_column_text(c, 0),
				   (const char *)sqlite3_column_text(c, 1), msg ? msg : "");
	}
	rc = 0;
out:
	sqlite3_finalize(q);
	sqlite3_finalize(c);
	sqlite3_close(db);
	return rc;
}

static int from_lines(tally *t)
{
	char **group = NULL, **msg = NULL, line[8192];
	size_t n = 0, cap = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char *tab = strchr(line, '\t');

		line[strcspn(line, "\n")] = '\0';
		if (!tab)
			continue;
		*tab = '\0';
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			group = realloc(group, cap * sizeof(*group));
			msg = realloc(msg, cap * sizeof(*msg));
			if (!group || !msg)
				return -1;
		}
		if (!(group[n] = strdup(line)) || !(msg[n] = strdup(tab + 1)))
			return -1;
		n++;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (!strcmp(group[i], group[j]) && strcmp(msg[i], msg[j]))
				count_pair(t, NULL, msg[i], msg[j]);
	for (size_t i = 0; i < n; i++) {
		free(group[i]);
		free(msg[i]);
	}
	free(group);
	free(msg);
	return 0;
}

static double pct(long a, long b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

int main(int argc, char **argv)
{
	tally t = { 0, 0, 0, 0 };
	int rc;

	if (argc == 4 && !strcmp(argv[1], "store"))
		rc = from_store(&t, argv[2], atoi(argv[3]));
	else if (argc == 3 && !strcmp(argv[1], "pairs"))
		rc = from_lines(&t);
	else {
		fprintf(stderr, "usage: sketchpass store DB N | sketchpass pairs NAME < LINES\n");
		return 2;
	}
	if (rc < 0)
		return 2;
	printf("| %s | %ld | %.2f %% | %.2f %% | %.1f %% | %ld |\n",
	       argv[2], t.pairs, pct(t.literal, t.pairs),
	       pct(t.sketch, t.pairs), pct(t.pairs - t.sketch, t.pairs - t.literal), t.lost);
	return t.lost ? 1 : 0;
}
