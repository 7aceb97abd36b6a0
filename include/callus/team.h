/*
 * team.h - the layers above a workspace (DESIGN §7, spec 004): the team
 * and org stores, promotion into them, and the workspace's cache of what
 * they approved.
 *
 * A layer store is a callus_knowledge (knowledge.h) at the layer's URL:
 * `[team] url` / `[org] url` in .callus/config, else in the user's
 * config (~/.config/callus/config), else, for the team layer only, the
 * embedded default: the SQLite file $XDG_DATA_HOME/callus/team.db
 * (~/.local/share/callus/team.db), so that one person's repositories
 * share knowledge with nothing set up.  The org layer has no default.
 *
 * Promotion: an active session or project note whose applications reach
 * `[promote] min_applications` (default 5) with a success rate of at
 * least 0.8 is proposed to the team layer by callus_team_sync(); an
 * approved team note meeting the same rule over every workspace's
 * applications is proposed to the org layer.  Nothing is approved
 * automatically: a maintainer of the target layer approves or rejects
 * (callus_knowledge_decide()).
 *
 * Sync pulls the approved notes of a layer into the workspace store's
 * note_cache, each with a resolution of its own (made from its steps and
 * code), so matching, suggestions and outcomes treat it as any fix; the
 * outcomes of that resolution go back with the next sync.  Conflicts: a
 * note retired (or rejected) upstream leaves the cache with its
 * resolution (upstream wins); a note edited both upstream and here keeps
 * both: the cached copy takes the upstream text, the workspace's own
 * note (notes.h) is left as it is, and where the workspace has an active
 * note of that id, the cached copy gets no resolution of its own (the
 * local note answers that error).
 */
#ifndef CALLUS_TEAM_H
#define CALLUS_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/config.h"
#include "callus/knowledge.h"
#include "callus/redact.h"
#include "callus/notes.h"
#include "callus/store.h"

#define CALLUS_PROMOTE_MIN_APPLICATIONS 5 /* spec 004 */
#define CALLUS_PROMOTE_MIN_SUCCESS 0.8    /* spec 004 */
#define CALLUS_SYNC_INTERVAL 3600         /* seconds between background syncs */
#define CALLUS_SYNC_STAMP ".callus/sync.stamp"

/*
 * The user's configuration file: $XDG_CONFIG_HOME/callus/config, else
 * ~/.config/callus/config.  A missing file gives an empty config.
 */
int callus_team_user_config(callus_config **out, callus_error *err);

/* A value of the workspace's config, else the user's; NULL when neither
 * sets it.  Borrowed from the configs. */
const char *callus_team_setting(const callus_config *ws, const callus_config *user,
				const char *section, const char *key);

/*
 * The location of layer l's store (team or org) into *out: the configured
 * URL, else for the team layer "sqlite:" and the embedded default path.
 * CALLUS_ENOTFOUND when l has none (org unset, session, project);
 * CALLUS_EINVAL for a SQLite file not named by an absolute path (it would
 * be another file from each folder a command runs in) or a "key=value"
 * connection string (callus takes URLs; the message does not quote it,
 * which may hold a password).
 */
int callus_team_location(callus_buf *out, const callus_config *ws, const callus_config *user,
			 callus_layer l, callus_error *err);

/* Whether location (callus_team_location's) is a SQLite file that does
 * not exist yet: a background sync makes none (a .callus/config that came
 * with a clone may name any path), only `callus sync` does. */
int callus_team_store_missing(const char *location);

/* Open layer l's store (its folder made for the embedded default). */
int callus_team_open(callus_knowledge **out, const callus_config *ws, const callus_config *user,
		     callus_layer l, callus_error *err);

/*
 * Whether identity may approve or reject in layer l: it is one of
 * `[layer.L] maintainers` (comma-separated, case-insensitive), or none
 * is named (the embedded store's local user maintains it; a server
 * store's roles decide alone).  A server store (PostgreSQL) enforces its
 * own rule in any case: this check only refuses early and by name.
 */
int callus_team_may_decide(const callus_config *ws, const callus_config *user, callus_layer l,
			   int embedded, const char *identity);

typedef struct callus_sync_report {
	size_t proposed;  /* notes proposed to the layer */
	size_t reported;  /* notes whose outcomes were sent */
	size_t pulled;    /* approved notes taken into the cache */
	size_t dropped;   /* cached notes retired or rejected upstream */
	size_t withdrawn; /* proposals of notes retired here, withdrawn */
	int64_t watermark; /* the layer's last revision seen */
} callus_sync_report;

/*
 * One layer's sync of the workspace store s: propose what meets the
 * promotion rule, send the outcomes of this workspace's copies, pull what
 * changed since the last watermark into the cache.  min_applications 0
 * is the default; identity is who proposes.  What is proposed is redacted
 * again by r (borrowed; NULL: a redactor of the built-in rules made for
 * the sync): a note stored by an older callus, whose store the catch-up
 * pass (store_redact.h) has not gone over yet, may hold what today's
 * redactor finds, and the layer's store is read by every maintainer.
 * m (may be NULL) counts the promotions proposed.
 */
int callus_team_sync(callus_store *s, callus_knowledge *k, callus_layer l, long min_applications,
		     const char *identity, const callus_redactor *r, callus_sync_report *rep,
		     callus_metrics *m, callus_error *err);

/*
 * Layer l of the workspace store s is now at location: when it was
 * elsewhere before, what came from there is forgotten (the cache with its
 * resolutions, the watermark, the record of what was proposed), so that
 * the new store gets the proposals and the cache its notes.  The notes of
 * the workspace stay.  What s keeps of the location is its SHA-256 (a URL
 * may hold a password).  A location an earlier callus kept as it was
 * reads as another store: callus_team_hide_locations() first.
 */
int callus_team_bind(callus_store *s, callus_layer l, const char *location, callus_error *err);

/* Every location an earlier callus kept as it was replaced by its SHA-256,
 * as callus_team_bind() keeps one: the same store to the next bind, and
 * the password gone, bound again or not (a layer no longer configured,
 * or whose store cannot be reached now). */
int callus_team_hide_locations(callus_store *s, callus_error *err);

/* The approved notes of layer l in the cache, best first (layer and
 * metrics as upstream aggregated them); callus_notes_free(). */
int callus_team_cached_list(callus_store *s, callus_layer l, callus_note **out, size_t *count,
			    callus_error *err);

/* The cached note a resolution was made for; CALLUS_ENOTFOUND. */
int callus_team_cached_of_resolution(callus_store *s, int64_t resolution_id, callus_note *out,
				     callus_error *err);


#endif
