/*
 * deja status: the workspace on one screen: what is recorded, what is
 * pending, what was fixed, and whether snapshots can be taken.
 */
#include "cli.h"
#include "lessons_common.h"

#include "deja/embed.h"
#include "deja/learn.h"
#include "deja/match.h"
#include "deja/snapshot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_option status_options[] = { CLI_END };

const cli_spec cmd_status_spec = {
	"deja status",
	"Show the workspace's lessons, pending errors, fixes and permanent failures at a glance.",
	NULL, status_options, 0
};

#define STATUS_LIST_MAX 5

static void print_errors(deja_store *store, int state, const char *title)
{
	deja_pending_filter f = { state, NULL, STATUS_LIST_MAX };
	deja_pending *ps = NULL;
	size_t n = 0;

	if (deja_learn_list(store, &f, &ps, &n, NULL) < 0 || !n)
		goto out;
	printf("\n%s:\n", title);
	for (size_t i = 0; i < n; i++) {
		int w = cli_first_line_width(ps[i].message, 90);

		printf("  #%-4lld %s%s%s  x%lld  %.*s\n", (long long)ps[i].id, ps[i].tool,
		       ps[i].files.count ? " " : "", ps[i].files.count ? ps[i].files.items[0] : "",
		       (long long)ps[i].attempts, w, ps[i].message);
	}
out:
	deja_pendings_free(ps, n);
}

static void print_resolutions(deja_store *store)
{
	deja_resolution *rs = NULL;
	size_t n = 0;

	if (deja_learn_resolutions(store, NULL, STATUS_LIST_MAX, &rs, &n, NULL) < 0 || !n)
		goto out;
	printf("\nbest fixes ('deja resolutions show ID' for the diff):\n");
	for (size_t i = 0; i < n; i++)
		printf("  #%-4lld %3.0f%% of %lld  %s\n", (long long)rs[i].id,
		       rs[i].success_rate * 100.0, (long long)rs[i].application_count,
		       rs[i].description);
out:
	deja_resolutions_free(rs, n);
}

/* How many signatures each embedder has a vector of. */
static void print_vectors(deja_store *store, const cli_workspace *ws)
{
	int64_t with = 0, all = 0;

	if (deja_match_count_vectors(store, DEJA_EMBED_BUILTIN_MODEL, &with, &all, NULL) == 0)
		printf("vectors      %lld of %lld signatures (%s)\n", (long long)with,
		       (long long)all, DEJA_EMBED_BUILTIN_MODEL);
	if (ws->embed_model &&
	    deja_match_count_vectors(store, ws->embed_model, &with, &all, NULL) == 0)
		printf("             %lld of %lld signatures (%s)\n", (long long)with, (long long)all,
		       ws->embed_model);
	if (ws->embed_error)
		printf("             [embed] ignored: %s\n", ws->embed_error);
}

int cmd_status(int argc, char **argv)
{
	deja_error err = DEJA_ERROR_INIT;
	deja_store *store = NULL;
	deja_store_stats st;
	deja_learn_stats ls;
	cli_workspace ws;
	char *helper = deja_snapshot_helper();
	int first, rc = 0, snapshots = 1;

	first = cli_parse(argc, argv, &cmd_status_spec);
	if (first < 0) {
		free(helper);
		return first == CLI_PARSE_HELP ? 0 : 2;
	}
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'deja help status'", argv[first]);
		free(helper);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0) {
		free(helper);
		return 1;
	}
	deja_config_get_bool(&snapshots, ws.config, "learn", "snapshots", 1, NULL);
	printf("workspace    %s\n", ws.root);
	if (!snapshots)
		printf("snapshots    off ([learn] snapshots = false)\n");
	else if (helper && access(helper, X_OK) == 0)
		printf("snapshots    on (%s)\n", helper);
	else
		printf("snapshots    unavailable: %s not found; fixes are learnt without diffs\n",
		       helper ? helper : "deja-git");
	rc = cli_open_store(&store, &ws, 0);
	if (rc == 1) {
		printf("store        none yet: nothing has failed here under deja\n");
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	if (deja_store_stats_get(store, &st, &err) < 0 || deja_learn_stats_get(store, &ls, &err) < 0) {
		cli_error("%s", deja_error_message(&err));
		rc = 1;
		goto out;
	}
	printf("store        .deja/deja.db (schema %d, %llu KiB)\n", st.schema_version,
	       (unsigned long long)(st.db_bytes / 1024));
	printf("lessons      %lld from %lld failed runs\n", (long long)st.lessons,
	       (long long)st.runs);
	printf("checks       %lld seen\n", (long long)ls.checks);
	printf("errors       %lld pending, %lld fixed, %lld permanent\n", (long long)ls.pending,
	       (long long)ls.fixed, (long long)ls.permanent);
	printf("resolutions  %lld", (long long)ls.resolutions);
	if (ls.applications)
		printf(" (applied %lld time%s, %.0f%% successful)", (long long)ls.applications,
		       ls.applications == 1 ? "" : "s",
		       100.0 * (double)ls.successes / (double)ls.applications);
	putchar('\n');
	print_vectors(store, &ws);
	print_errors(store, DEJA_STATE_PENDING, "pending ('deja pending')");
	print_errors(store, DEJA_STATE_PERMANENT, "permanent failures ('deja warnings')");
	print_resolutions(store);
out:
	deja_store_close(store);
	deja_error_release(&err);
	cli_workspace_release(&ws);
	free(helper);
	return rc;
}
