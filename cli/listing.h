/*
 * listing.h - how long a listing is (callus lessons, pending, notes,
 * resolutions) when --limit is not given, and saying that it was cut.
 */
#ifndef CALLUS_CLI_LISTING_H
#define CALLUS_CLI_LISTING_H

#include <limits.h>
#include <stddef.h>

/* A plain listing's length when --limit is not given: what a person, or an
 * agent that AGENTS.md or a reply sends to `callus lessons`, reads at once
 * (at 10,000 lessons the whole list was 20,000 lines into the agent's
 * context).  --json lists everything unless limited. */
#define CLI_LIST_DEFAULT 50

/* A listing's --limit before it is given: the variable's initial value. */
#define CLI_LIMIT_UNSET LONG_MIN

/* The limit to ask the store for: as given (0: all), or with none given,
 * all for --json and one more than CLI_LIST_DEFAULT for a plain listing
 * (that one tells whether there are more).  -1 after saying that a given
 * limit is out of range. */
long cli_list_limit(long given, int json);

/* How many of the n found a listing prints: CLI_LIST_DEFAULT at most when
 * the default applies, else all of them. */
size_t cli_list_shown(long given, int json, size_t n);

/* After a listing: when it printed fewer than the n found (the default's
 * cut), says so on stderr, what in the plural ("lessons"), once stdout's
 * lines are out. */
void cli_list_more(long given, int json, size_t n, const char *what);

#endif
