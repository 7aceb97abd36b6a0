/*
 * deja metrics [--json]: the workspace's metrics (DESIGN.md §8), in the
 * Prometheus text exposition format for a scraper (through the textfile
 * collector of node_exporter, say) or as JSON for scripts.
 */
#include "cli.h"
#include "lessons_common.h"

#include "deja/buf.h"
#include "deja/metrics.h"
#include "deja/store.h"

#include <stdio.h>
#include <stdlib.h>

static int json;

static const cli_option metrics_options[] = {
	{ CLI_OPT_FLAG, 0, "json", &json, NULL,
	  "print JSON: every declared metric with its series, in the metric's own unit" },
	CLI_END
};

const cli_spec cmd_metrics_spec = {
	"deja metrics [--json]",
	"Print the metrics of this workspace in the Prometheus text format (or JSON).",
	"The hindsight.* metrics of spec 004 and deja's own (hook latency, records\n"
	"dropped by the fail-safe, deja run outcomes), as stored in .deja/deja.db, plus\n"
	"those still waiting in .deja/metrics.pending.  Prometheus names have '_' for\n"
	"'.', base units (a *_ms histogram is exported as *_seconds) and _total on\n"
	"counters; docs/metrics.md lists them all.",
	metrics_options, 0
};

int cmd_metrics(int argc, char **argv)
{
	static const char *const project[] = { DEJA_LAYER_PROJECT };
	deja_error err = DEJA_ERROR_INIT;
	deja_buf out = DEJA_BUF_INIT, dir = DEJA_BUF_INIT;
	deja_metrics *m = NULL;
	deja_store *store = NULL;
	cli_workspace ws;
	int first, rc = 1, opened;

	first = cli_parse(argc, argv, &cmd_metrics_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'deja help metrics'", argv[first]);
		return 2;
	}
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	if (deja_metrics_new(&m) < 0) {
		cli_error("out of memory");
		goto out;
	}
	if ((opened = cli_open_store(&store, &ws, 0)) < 0)
		goto out;
	if (opened == 1) {
		/* nothing recorded yet: an empty store, not an error */
		deja_metrics_set(m, DEJA_METRIC_STORAGE_COUNT, project, 0);
	} else if (deja_store_read_metrics(store, m, &err) < 0) {
		cli_error("%s", deja_error_message(&err));
		goto out;
	}
	deja_buf_printf(&dir, "%s/.deja", ws.root);
	if (deja_buf_status(&dir) < 0 || deja_metrics_spool_read(m, dir.ptr, 0) < 0 ||
	    (json ? deja_metrics_render_json(&out, m) : deja_metrics_render_prometheus(&out, m)) <
		0) {
		cli_error("out of memory");
		goto out;
	}
	fwrite(out.ptr, 1, out.len, stdout);
	rc = 0;
out:
	deja_metrics_free(m);
	deja_store_close(store);
	deja_error_release(&err);
	deja_buf_release(&out);
	deja_buf_release(&dir);
	cli_workspace_release(&ws);
	return rc;
}
