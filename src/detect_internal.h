/*
 * detect_internal.h - what the pieces of the detector share: the built-in
 * rule table (detect_rules.c), the whitelist built from it and the config
 * (detect_whitelist.c), the classification of a simple command
 * (detect_classify.c) and the matching of a line (detect.c).  Not part of
 * the public API: callers go through callus/detect.h.
 */
#ifndef CALLUS_DETECT_INTERNAL_H
#define CALLUS_DETECT_INTERNAL_H

#include <stddef.h>
#include <string.h>

#include "callus/detect.h"

/* How many rules detect_rules.c holds (it checks the count at compile
 * time): the whitelist keeps one "removed" flag per built-in. */
#define CALLUS_DETECT_NBUILTIN 149

/* The built-in whitelist (docs/config.md lists the same patterns). */
extern const callus_pattern callus_detect_builtins[];

struct callus_whitelist {
	callus_pattern *adds;             /* [verify] add, in file order; patterns owned */
	size_t nadds;
	unsigned char removed[CALLUS_DETECT_NBUILTIN]; /* [verify] remove, by built-in index */
};

/* Rule i of wl (NULL: the built-ins alone): the added patterns first, then
 * the built-ins; NULL past the last. */
const callus_pattern *callus_detect_rule_at(const callus_whitelist *wl, size_t i);

/* Whether rule i is a built-in that [verify] remove took out. */
int callus_detect_rule_removed(const callus_whitelist *wl, size_t i);

/* ------------------------------------------------------------------ */
/* Small helpers.                                                       */

struct span {
	const char *p;
	size_t len;
};

static inline int eq(const char *p, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	return n == len && !memcmp(p, lit, n);
}

/* Is p[0..len) one of the names in list, written "|a|b|c|"? */
static inline int in_list(const char *list, const char *p, size_t len)
{
	const char *q;

	if (!list || !len)
		return 0;
	for (q = list; (q = strchr(q, '|')) && q[1]; q++) {
		const char *e = strchr(q + 1, '|');

		if (!e)
			break;
		if ((size_t)(e - q - 1) == len && !memcmp(q + 1, p, len))
			return 1;
	}
	return 0;
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* ------------------------------------------------------------------ */
/* A simple command, as classified.                                     */

struct word {
	const char *p;
	size_t len;
	unsigned char assign;
};

/* A match word: what the whitelist is compared with, and which word of the
 * command it stands for (several match words may share one: -mpytest). */
struct mword {
	const char *p;
	size_t len;
	size_t idx;
};

/* What a simple command does.  K_AGAIN, from the classify_* helpers: the
 * word at *ip is a new program to classify (a wrapper's command, a script). */
enum { K_AGAIN = -1, K_NONE, K_RUN, K_CD, K_CDBACK, K_NEST };

struct cmd {
	struct word *a;       /* the words, redirections removed */
	size_t n, cap_a;
	unsigned char *hide;  /* per word: not one of the tool's arguments */
	size_t cap_hide;
	struct mword *w;
	size_t nw, cap_w;
	struct span *dirs;    /* directory options (env -C, make -C, ...) */
	size_t ndirs, cap_dirs;
	size_t prog;          /* index of the program word (K_RUN) */
	struct span target;   /* K_CD: the directory; K_NEST: the command line */
	int nested;           /* an option gave a command line (npx -c) */
	int nomem;
};

/*
 * Work out what the simple command c->a[0..n) runs (c->hide has room for
 * n flags).  K_RUN fills c->w (match words), c->prog, c->hide and c->dirs;
 * K_CD and K_NEST set c->target.  wl NULL means the built-in whitelist.
 */
int callus_detect_classify(const callus_whitelist *wl, struct cmd *c);

/* Free c's arrays (not c itself). */
void callus_detect_cmd_release(struct cmd *c);

#endif
