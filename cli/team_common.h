/*
 * team_common.h - what `callus sync`, `proposals`, `approve`, `reject`,
 * `status`, `doctor` and the hook share about the layers above a
 * workspace (callus/team.h): the user's config, who the user is, a
 * layer's store, the age of the last sync, the background sync.
 */
#ifndef CALLUS_CLI_TEAM_COMMON_H
#define CALLUS_CLI_TEAM_COMMON_H

#include "cli.h"
#include "callus/knowledge.h"
#include "callus/notes.h"
#include "callus/store.h"

/* The user's identity: $CALLUS_USER, else git's user.email in the
 * workspace; "" when neither.  The caller frees it. */
char *cli_team_identity(const cli_workspace *ws);

/* The user's config (~/.config/callus/config); an unreadable one is said
 * and taken as empty.  Never NULL unless out of memory. */
callus_config *cli_team_user_config(void);

/* `[layer.L] max_notes`, else `[doctor] max_notes`, else 1000. */
long cli_team_max_notes(const cli_workspace *ws, const callus_config *user, callus_layer l);

/* "synced 3 minutes ago" / "never synced" and the last error of the
 * layers, from the store's sync_state, on one line (no newline) into
 * out; *age the seconds since the last sync (-1: never). */
int cli_team_staleness(callus_buf *out, callus_store *s, long *age);

/* From the hook: start `callus sync --quiet` detached when the workspace
 * synced once (its stamp exists) and longer ago than `[sync] interval`.
 * Never waits, never fails the caller. */
void cli_team_maybe_sync(const cli_workspace *ws);

/* `callus note retire ID --layer L`: a maintainer retires a team or org
 * note in its store (cmd_proposals.c).  The exit status. */
int cli_team_retire(callus_layer l, const char *id, const char *reason);

/* Touch the stamp the hook reads (after a sync). */
void cli_team_stamp(const cli_workspace *ws);

#endif
