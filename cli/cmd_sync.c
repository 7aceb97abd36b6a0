/*
 * callus sync [--quiet]
 *
 * The workspace with the layers above it (callus/team.h): its proposals
 * and outcomes out, the approved notes in, for the team layer and the org
 * layer when one is set.
 */
#include "cli.h"
#include "lessons_common.h"
#include "record_common.h"
#include "team_common.h"

#include "callus/match.h"
#include "callus/metrics.h"
#include "callus/record.h"
#include "callus/team.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int quiet;

static const cli_option sync_options[] = {
	{ CLI_OPT_FLAG, 'q', "quiet", &quiet, NULL, "print nothing (the hook's background sync)" },
	CLI_END
};

const cli_spec cmd_sync_spec = {
	"callus sync [--quiet]",
	"Exchange notes with the team and org layers: proposals and outcomes out, approved notes in.",
	"A note of this workspace applied at least [promote] min_applications times\n"
	"(default 5) with a success rate of at least 0.8 is proposed to the team\n"
	"layer; a maintainer approves it ('callus proposals', 'callus approve ID').\n"
	"The outcomes of the layer's notes here are reported, and the approved notes\n"
	"of the layers above are pulled into this workspace's cache, where matching\n"
	"and the agent's suggestions find them.  The team store is [team] url in\n"
	".callus/config or ~/.config/callus/config, else ~/.local/share/callus/team.db\n"
	"(the repositories of one user share it with nothing set up); the org layer\n"
	"syncs when [org] url is set.  Once a workspace has synced, the hook starts\n"
	"a background sync when the last is older than [sync] interval seconds\n"
	"(default 3600; 0 never).  Exit status 1 when a layer could not be reached:\n"
	"the cache stays as it was.",
	sync_options, 0
};

int cmd_sync(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_config *user = NULL;
	callus_metrics *m = NULL;
	callus_buf loc = CALLUS_BUF_INIT;
	char *who = NULL, *dir = NULL;
	cli_workspace ws;
	int rc = 0, synced = 0, first;
	size_t pulled = 0;
	const callus_layer layers[] = { CALLUS_LAYER_TEAM, CALLUS_LAYER_ORG };

	if ((first = cli_parse(argc, argv, &cmd_sync_spec)) < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unknown argument '%s'; see 'callus help sync'", argv[first]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	/* outside git, a folder becomes a workspace by 'callus init', not
	 * by a sync that made its store (its hooks would record from then
	 * on: callus/workspace.h) */
	if (ws.kind == CALLUS_WS_NONE) {
		if (!quiet)
			cli_error("%s is in no git repository and has no .callus/: nothing to sync "
				  "('callus init AGENT' makes it a workspace)",
				  ws.root);
		rc = 1;
		goto out;
	}
	if (callus_record_dir(&dir, ws.root, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	if (cli_open_store(&store, &ws, 1) != 0) {
		rc = 1;
		goto out;
	}
	/* a store's URL an earlier callus kept, password and all, goes
	 * whether or not its layer is bound below */
	if (callus_team_hide_locations(store, &err) < 0) {
		if (!quiet)
			cli_error("%s", callus_error_message(&err));
		callus_error_release(&err);
	}
	/* a person's edit of a note file is what is proposed */
	if (cli_notes_sync(store, &ws, &err) < 0) {
		if (!quiet)
			cli_error("note files not read: %s", callus_error_message(&err));
		callus_error_release(&err);
	}
	if (!(user = cli_team_user_config()) || !(who = cli_team_identity(&ws)) ||
	    callus_metrics_new(&m) < 0) {
		cli_error("out of memory");
		rc = 1;
		goto out;
	}
	for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
		const char *name = callus_layer_name(layers[i]);
		callus_knowledge *k = NULL;
		callus_sync_report rep;
		char key[32];
		int lr;

		snprintf(key, sizeof(key), "last_error.%s", name);
		callus_buf_clear(&loc);
		lr = callus_team_location(&loc, ws.config, user, layers[i], &err);
		if (lr == CALLUS_ENOTFOUND && layers[i] == CALLUS_LAYER_ORG) {
			callus_error_release(&err);
			continue;
		}
		/* the hook's background sync: a .callus/config that came with
		 * a clone may name any path, and it runs unasked */
		if (lr == 0 && quiet && callus_team_store_missing(loc.ptr))
			lr = callus_error_set(&err, CALLUS_ENOTFOUND,
					      "no store at %s yet: a background sync makes none "
					      "('callus sync' does)",
					      loc.ptr);
		if (lr == 0)
			lr = callus_team_open(&k, ws.config, user, layers[i], &err);
		if (lr == 0)
			lr = callus_team_bind(store, layers[i], loc.ptr, &err);
		if (lr == 0)
			lr = callus_team_sync(store, k, layers[i],
					      cli_config_long(&ws, "promote", "min_applications", 0),
					      who, ws.redactor, &rep, m, &err);
		callus_knowledge_close(k);
		if (lr < 0) {
			if (!quiet)
				cli_error("%s layer: %s", name, callus_error_message(&err));
			callus_store_state_set(store, key, callus_error_message(&err), NULL);
			callus_error_release(&err);
			rc = 1;
			continue;
		}
		callus_store_state_set(store, key, "", NULL);
		synced++;
		pulled += rep.pulled;
		if (!quiet) {
			printf("%s: %zu proposed, %zu reported, %zu pulled, %zu dropped", name,
			       rep.proposed, rep.reported, rep.pulled, rep.dropped);
			if (rep.withdrawn)
				printf(", %zu withdrawn", rep.withdrawn);
			printf(" (revision %lld)\n", (long long)rep.watermark);
		}
	}
	if (pulled) {
		/* the new notes' signatures get their vectors now, so that a
		 * similar error finds them, and so that the hook's next
		 * recording has nothing to index */
		size_t added = 0;

		if (callus_match_index(store, ws.root, &added, &err) < 0) {
			if (!quiet)
				cli_error("signatures not indexed ('callus reindex --new'): %s",
					  callus_error_message(&err));
			callus_error_release(&err);
		}
	}
	if (synced) {
		char now[32];

		snprintf(now, sizeof(now), "%lld", (long long)time(NULL));
		callus_store_state_set(store, "last_sync", now, NULL);
	}
	/* the hook's background syncs start from here on */
	cli_team_stamp(&ws);
	if (callus_store_flush_metrics(store, m, &err) < 0) {
		if (!quiet)
			cli_error("metrics not kept: %s", callus_error_message(&err));
		callus_error_release(&err);
	}
out:
	callus_metrics_free(m);
	free(who);
	free(dir);
	callus_buf_release(&loc);
	callus_config_free(user);
	callus_store_close(store);
	cli_workspace_release(&ws);
	return rc;
}
