/*
 * callus status: the workspace on one screen: what is recorded, what is
 * pending, what was fixed, and whether snapshots can be taken.
 */
#include "cli.h"
#include "callus/notes.h"
#include "team_common.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/embed.h"
#include "callus/learn.h"
#include "callus/match.h"
#include "callus/snapshot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const cli_option status_options[] = { CLI_END };

const cli_spec cmd_status_spec = {
	"callus status",
	"Show the workspace's lessons, pending errors, fixes and permanent failures at a glance.",
	NULL, status_options, 0
};

#define STATUS_LIST_MAX 5

static void print_errors(callus_store *store, int state, const char *title)
{
	callus_pending_filter f = { state, NULL, STATUS_LIST_MAX, 0 };
	callus_pending *ps = NULL;
	size_t n = 0;

	if (callus_learn_list(store, &f, &ps, &n, NULL) < 0 || !n)
		goto out;
	printf("\n%s:\n", title);
	for (size_t i = 0; i < n; i++) {
		int w = cli_first_line_width(ps[i].message, 90);

		printf("  #%-4lld %s%s%s  x%lld  %.*s\n", (long long)ps[i].id, ps[i].tool,
		       ps[i].files.count ? " " : "", ps[i].files.count ? ps[i].files.items[0] : "",
		       (long long)ps[i].attempts, w, ps[i].message);
	}
out:
	callus_pendings_free(ps, n);
}

static void print_resolutions(callus_store *store)
{
	callus_resolution *rs = NULL;
	size_t n = 0;

	if (callus_learn_resolutions(store, NULL, STATUS_LIST_MAX, &rs, &n, NULL) < 0 || !n)
		goto out;
	printf("\nbest fixes ('callus resolutions show ID' for the diff):\n");
	for (size_t i = 0; i < n; i++)
		printf("  #%-4lld %3.0f%% of %lld  %s\n", (long long)rs[i].id,
		       rs[i].success_rate * 100.0, (long long)rs[i].application_count,
		       rs[i].description);
out:
	callus_resolutions_free(rs, n);
}

/* How many signatures each embedder has a vector of. */
static void print_vectors(callus_store *store, const cli_workspace *ws)
{
	int64_t with = 0, all = 0;

	if (callus_match_count_vectors(store, CALLUS_EMBED_BUILTIN_MODEL, &with, &all, NULL) == 0)
		printf("vectors      %lld of %lld signatures (%s)\n", (long long)with,
		       (long long)all, CALLUS_EMBED_BUILTIN_MODEL);
	if (ws->embed_model &&
	    callus_match_count_vectors(store, ws->embed_model, &with, &all, NULL) == 0)
		printf("             %lld of %lld signatures (%s)\n", (long long)with, (long long)all,
		       ws->embed_model);
	if (ws->embed_error)
		printf("             [embed] ignored: %s\n", ws->embed_error);
}

/* cli_gc_policy's: a [retention] value read as its default. */
static void count_unread(const char *message, void *arg)
{
	(void)message;
	++*(int *)arg;
}

/* The lessons line: the count [retention] lessons keeps them to, and what
 * a lowered one leaves over it until a recording or a pass removes it. */
static void print_lessons(const cli_workspace *ws, const callus_store_totals *t)
{
	callus_gc_policy gp;
	int unread = 0;
	long long over;

	cli_gc_policy(ws, &gp, count_unread, &unread);
	over = gp.lessons_max > 0 ? (long long)t->lessons - gp.lessons_max : 0;
	/* retention keeps a lesson past its runs (run_days, lesson_days):
	 * "1 from 0 failed runs" would read as a count gone wrong */
	if (t->runs >= t->lessons)
		printf("lessons      %lld from %lld failed runs", (long long)t->lessons,
		       (long long)t->runs);
	else if (t->runs)
		printf("lessons      %lld from %lld failed run%s kept by [retention] run_days",
		       (long long)t->lessons, (long long)t->runs, t->runs == 1 ? "" : "s");
	else
		printf("lessons      %lld, no failed run kept by [retention] run_days",
		       (long long)t->lessons);
	if (over > 0 && gp.interval_hours <= 0)
		printf(" (%lld over [retention] lessons = %d: removed by 'callus gc')", over,
		       gp.lessons_max);
	else if (over > (long long)gp.batch)
		printf(" (%lld over [retention] lessons = %d: removed by 'callus gc', or %zu at a "
		       "time by new lessons' recordings and the background pass)",
		       over, gp.lessons_max, gp.batch);
	else if (over > 0)
		printf(" (%lld over [retention] lessons = %d: removed by the next new lesson's "
		       "recording or 'callus gc')",
		       over, gp.lessons_max);
	else if (gp.lessons_max > 0)
		printf(" (at most %d kept: [retention] lessons)", gp.lessons_max);
	if (ws->config_unread)
		printf(" (none removed: .callus/config cannot be read, so what [retention] keeps "
		       "is unknown: 'callus doctor')");
	else if (unread)
		printf(" ([retention] holds a value callus cannot read: 'callus doctor')");
	printf("\n");
}

int cmd_status(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_store *store = NULL;
	callus_store_stats st;
	callus_store_totals t;
	cli_workspace ws;
	char *helper = callus_snapshot_helper();
	int first, rc = 0, snapshots = 1;

	first = cli_parse(argc, argv, &cmd_status_spec);
	if (first < 0) {
		free(helper);
		return first == CLI_PARSE_HELP ? 0 : 2;
	}
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help status'", argv[first]);
		free(helper);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0) {
		free(helper);
		return 1;
	}
	callus_config_get_bool(&snapshots, ws.config, "learn", "snapshots", 1, NULL);
	printf("workspace    %s\n", ws.root);
	if (!snapshots)
		printf("snapshots    off ([learn] snapshots = false)\n");
	else if (helper && access(helper, X_OK) == 0)
		printf("snapshots    on (%s)\n", helper);
	else
		printf("snapshots    unavailable: %s not found; fixes are learnt without diffs\n",
		       helper ? helper : "callus-git");
	rc = cli_open_store(&store, &ws, 0);
	if (rc == 1) {
		printf("store        none yet: nothing has failed here under callus\n");
		rc = 0;
		goto out;
	}
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	if (callus_store_stats_get(store, &st, &err) < 0 || callus_store_totals_get(store, &t, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = 1;
		goto out;
	}
	{
		/* the pages SQLite counts are not the disk's: a write-ahead
		 * log beside them, which holds some of them until the next
		 * write empties it, and a file a reader kept from shrinking */
		unsigned long long db = cli_file_size(&ws, ".callus/callus.db") / 1024,
				   wal = cli_file_size(&ws, ".callus/callus.db-wal") / 1024;

		printf("store        .callus/callus.db (schema %d, %llu KiB", st.schema_version,
		       (unsigned long long)(st.db_bytes / 1024));
		if (wal || db > st.db_bytes / 1024 + 4)
			printf("; %llu KiB on disk with its write-ahead log", db + wal);
		printf(")\n");
	}
	print_lessons(&ws, &t);
	printf("checks       %lld seen\n", (long long)t.checks);
	{
		char *before = cli_abandoned_before(&ws);
		int64_t idle = 0;

		/* best-effort: without it, the count as kept */
		if (!before || callus_learn_count_abandoned(store, before, &idle, NULL) < 0)
			idle = 0;
		free(before);
		printf("errors       %lld pending", (long long)t.pending);
		if (idle > 0)
			printf(" (%lld abandoned, idle past [learn] prune_hours: 'callus pending "
			       "--prune' drops them)",
			       (long long)idle);
		printf(", %lld fixed, %lld permanent\n", (long long)t.fixed, (long long)t.permanent);
	}
	printf("resolutions  %lld", (long long)t.resolutions);
	if (t.applications)
		printf(" (applied %lld time%s, %.0f%% successful)", (long long)t.applications,
		       t.applications == 1 ? "" : "s",
		       100.0 * (double)t.successes / (double)t.applications);
	putchar('\n');
	{
		int64_t total = 0;

		for (int i = 0; i < CALLUS_LAYER_COUNT; i++)
			total += t.notes[i];
		printf("notes        %lld (", (long long)total);
		for (int i = 0; i < CALLUS_LAYER_COUNT; i++)
			printf("%s%s %lld", i ? ", " : "", callus_layer_name((callus_layer)i),
			       (long long)t.notes[i]);
		printf("; 'callus notes', .callus/notes/)\n");
	}
	{
		/* how stale the layers' cache is (callus sync) */
		callus_buf line = CALLUS_BUF_INIT;
		long age;

		if (cli_team_staleness(&line, store, &age) == 0 && callus_buf_status(&line) == 0)
			printf("layers       %s\n", line.ptr);
		callus_buf_release(&line);
	}
	print_vectors(store, &ws);
	print_errors(store, CALLUS_STATE_PENDING, "pending ('callus pending')");
	print_errors(store, CALLUS_STATE_PERMANENT, "permanent failures ('callus warnings')");
	print_resolutions(store);
out:
	callus_store_close(store);
	callus_error_release(&err);
	cli_workspace_release(&ws);
	free(helper);
	return rc;
}
