/*
 * hook_health.h - whether an agent's hook payloads are understood.
 *
 * An agent that changes its payload format keeps running the hook, which
 * keeps exiting 0: nothing fails, and nothing is learnt.  So each check the
 * hook sees leaves a note, .callus/hook-AGENT.last, saying whether its exit
 * status could be read; `callus doctor` reports the notes.  Written only on
 * the hook's slow path (a check, or a payload it could not parse), never
 * for ordinary commands, and only in a workspace that has a .callus/; a
 * note that would say the same as one written within the minute is not
 * written again (a new file at each check of a burst cost a passing check
 * more than its own work).
 */
#ifndef CALLUS_CLI_HOOK_HEALTH_H
#define CALLUS_CLI_HOOK_HEALTH_H

#include <time.h>

#include "cli.h"

/* The note's words: what the last check's payload gave. */
#define CLI_HEALTH_OK "read"            /* an exit status */
#define CLI_HEALTH_GUESSED "guessed"    /* no status; a failure read in the output */
#define CLI_HEALTH_UNKNOWN "unknown"    /* no status, nothing learnt */
#define CLI_HEALTH_INVALID "invalid"    /* the payload could not be parsed */

/* Best-effort: never fails the hook.  detail (the command, or the parse
 * error) is cut to one short line; it must already be redacted. */
void cli_hook_health_note(const char *root, const char *agent, const char *verdict,
			  const char *detail);

typedef struct cli_hook_health {
	time_t at;
	char verdict[16];
	char detail[256];
} cli_hook_health;

/* The note of agent in root's .callus/: 1 when there is one, 0 when none. */
int cli_hook_health_read(const char *root, const char *agent, cli_hook_health *out);

#endif
