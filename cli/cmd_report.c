/*
 * callus report [-o FILE] [--since DATE] [--layer L]
 *
 * One self-contained HTML page of what the workspace has learnt
 * (report.h), for a person: written to .callus/report.html unless told
 * otherwise, "-" for standard output.
 */
#include "cli.h"
#include "lessons_common.h"
#include "record_common.h"

#include "callus/fsutil.h"
#include "callus/notes.h"
#include "callus/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *output, *since, *layer;

static const cli_option report_options[] = {
    {CLI_OPT_STRING, 'o', "output", &output, "FILE",
     "write the page to FILE (default .callus/report.html; - for standard output)"},
    {CLI_OPT_STRING, 0, "since", &since, "DATE",
     "the period starts on DATE (YYYY-MM-DD, UTC), or 'all' (default: the last 30 days)"},
    {CLI_OPT_STRING, 0, "layer", &layer, "L",
     "only the notes of this layer: session, project, team, org"},
    CLI_END};

const cli_spec cmd_report_spec = {
    "callus report [-o FILE] [--since DATE] [--layer L]",
    "Write one HTML page of what was learnt: failures, fixes, recurring errors, notes.",
    "The page is one file with its style and its charts inside (no script, nothing\n"
    "fetched): open it in a browser, attach it to a CI run, or commit it.  It shows,\n"
    "for the period against the period of the same length before it, the errors\n"
    "recorded and fixed, the fix rate, the median time and attempts to fix,\n"
    "permanent failures and notes made; errors and fixes per day (per week over\n"
    "long periods) by tool, and how often a past fix was suggested and worked; the\n"
    "recurring errors with their pattern, files, note and the lines of their fix;\n"
    "the files, directories, tools and rules with the most errors; the permanent\n"
    "failures; the notes proposed to a layer above; the notes.  Lists are cut at\n"
    "their first rows, so the page stays small whatever the store holds.  Text from\n"
    "tools is escaped; secrets were redacted before they were stored.",
    report_options, 0};

int cmd_report(int argc, char **argv)
{
	callus_error err = CALLUS_ERROR_INIT;
	callus_report_opts o = {NULL, NULL, -1, NULL};
	callus_buf page = CALLUS_BUF_INIT, path = CALLUS_BUF_INIT;
	callus_store *store = NULL;
	cli_workspace ws;
	int first, rc = 0, setup = 0;

	first = cli_parse(argc, argv, &cmd_report_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; see 'callus help report'",
			  argv[first]);
		return 2;
	}
	if (layer) {
		callus_layer l;

		if (callus_layer_parse(&l, layer) < 0) {
			cli_error("unknown layer '%s': session, project, team or org",
				  layer);
			return 2;
		}
		o.layer = (int)l;
	}
	o.since = since;
	if (cli_workspace_setup(&ws, NULL, 0) < 0)
		return 1;
	setup = 1;
	o.workspace = ws.root;
	rc = cli_open_store(&store, &ws, 0);
	if (rc < 0) {
		rc = 1;
		goto out;
	}
	/* Notes are read as every command that reads them does: their files
	 * first (a person's edit wins); the store still answers without. */
	if (store && cli_notes_sync(store, &ws, &err) < 0) {
		cli_error("note files not read: %s", callus_error_message(&err));
		callus_error_release(&err);
	}
	if ((rc = callus_report_write(store, &o, &page, &err)) < 0) {
		cli_error("%s", callus_error_message(&err));
		rc = rc == CALLUS_EINVAL ? 2 : 1;
		goto out;
	}
	if (output && !strcmp(output, "-")) {
		if (fwrite(page.ptr, 1, page.len, stdout) != page.len)
			rc = 1;
		goto out;
	}
	if (output) {
		callus_buf_puts(&path, output);
	} else if (ws.kind == CALLUS_WS_NONE) {
		/* a .callus/ made here would make the folder a workspace,
		 * whose hooks then record (callus/workspace.h) */
		cli_error("%s is in no git repository and has no .callus/: the page goes nowhere "
			  "by default here; name a file with -o FILE, or '-'",
			  ws.root);
		rc = 1;
		goto out;
	} else {
		callus_buf_printf(&path, "%s/.callus", ws.root);
		if (callus_fs_mkdir_p(path.ptr, 0777, &err) < 0) {
			cli_error("%s", callus_error_message(&err));
			rc = 1;
			goto out;
		}
		callus_buf_puts(&path, "/report.html");
	}
	/* a FILE of the user's is reached as a shell's > would (a device is
	 * written through, never replaced); the default is callus's own */
	if (callus_buf_status(&path) < 0 ||
	    (output ? callus_fs_write_output(path.ptr, page.ptr, page.len, &err)
		    : callus_fs_write_atomic(path.ptr, page.ptr, page.len, 0666, CALLUS_FS_UMASK,
					     &err)) < 0) {
		cli_error("cannot write '%s': %s", path.ptr, callus_error_message(&err));
		rc = 1;
		goto out;
	}
	printf("wrote %s (%zu KiB): open it in a browser\n", path.ptr,
	       (page.len + 1023) / 1024);
out:
	callus_store_close(store);
	callus_buf_release(&page);
	callus_buf_release(&path);
	callus_error_release(&err);
	if (setup)
		cli_workspace_release(&ws);
	return rc;
}
