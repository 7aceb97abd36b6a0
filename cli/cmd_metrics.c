/*
 * callus metrics [--json]: the workspace's metrics (DESIGN.md §8), in the
 * Prometheus text exposition format for a scraper (through the textfile
 * collector of node_exporter, say) or as JSON for scripts.
 */
#include "cli.h"
#include "lessons_common.h"

#include "callus/buf.h"
#include "callus/knowledge.h"
#include "callus/metrics.h"
#include "callus/store.h"

#include <stdio.h>
#include <stdlib.h>

static int json;

static const cli_option metrics_options[] = {
	{ CLI_OPT_FLAG, 0, "json", &json, NULL,
	  "print JSON: every declared metric with its series, in the metric's own unit" },
	CLI_END
};

const cli_spec cmd_metrics_spec = {
	"callus metrics [--json]",
	"Print the metrics of this workspace in the Prometheus text format (or JSON).",
	"The hindsight.* metrics of spec 004 and callus's own (hook latency, records\n"
	"dropped by the fail-safe, callus run outcomes), as stored in .callus/callus.db, plus\n"
	"those still waiting in .callus/metrics.pending.  Prometheus names have '_' for\n"
	"'.', base units (a *_ms histogram is exported as *_seconds) and _total on\n"
	"counters; docs/metrics.md lists them all.",
	metrics_options, 0
};

int cmd_metrics(int argc, char **argv)
{
	static const char *const project[] = { "project" };
	callus_error err = CALLUS_ERROR_INIT;
	callus_buf out = CALLUS_BUF_INIT, dir = CALLUS_BUF_INIT;
	callus_metrics *m = NULL;
	callus_store *store = NULL;
	callus_knowledge *k = NULL;
	cli_workspace ws;
	int first, rc = 1, opened;

	first = cli_parse(argc, argv, &cmd_metrics_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help metrics'", argv[first]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	if (callus_metrics_new(&m) < 0) {
		cli_error("out of memory");
		goto out;
	}
	if ((opened = cli_open_store(&store, &ws, 0)) < 0)
		goto out;
	if (opened == 1) {
		/* nothing recorded yet: an empty store, not an error */
		callus_metrics_set(m, CALLUS_METRIC_STORAGE_COUNT, project, 0);
	} else if (callus_knowledge_over_store(&k, store, &err) < 0 ||
		   callus_knowledge_read_metrics(k, m, &err) < 0) {
		cli_error("%s", callus_error_message(&err));
		goto out;
	}
	callus_buf_printf(&dir, "%s/.callus", ws.root);
	if (callus_buf_status(&dir) < 0 || callus_metrics_spool_read(m, dir.ptr, 0) < 0 ||
	    (json ? callus_metrics_render_json(&out, m) : callus_metrics_render_prometheus(&out, m)) <
		0) {
		cli_error("out of memory");
		goto out;
	}
	fwrite(out.ptr, 1, out.len, stdout);
	rc = 0;
out:
	callus_metrics_free(m);
	callus_knowledge_close(k);
	callus_store_close(store);
	callus_error_release(&err);
	callus_buf_release(&out);
	callus_buf_release(&dir);
	cli_workspace_release(&ws);
	return rc;
}
