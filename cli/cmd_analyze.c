/*
 * callus analyze --command CMD --exit-code N [--workspace DIR] < output
 *
 * The capture pipeline without writing anything; its JSON is a stable
 * interface (docs/analyze.md).
 */
#include "cli.h"
#include "record_common.h"

#include "callus/analysis.h"
#include "callus/capture.h"
#include "callus/record.h"

#include <string.h>

static const char *command, *workspace;
static long exit_code = -1;

static const cli_option analyze_options[] = {
	{ CLI_OPT_STRING, 'c', "command", &command, "CMD", "the command line that ran (required)" },
	{ CLI_OPT_INT, 'e', "exit-code", &exit_code, "N", "its exit status (required)" },
	{ CLI_OPT_STRING, 'w', "workspace", &workspace, "DIR",
	  "workspace root (default: the git top level of the current directory, else it)" },
	CLI_END
};

const cli_spec cmd_analyze_spec = {
	"callus analyze --command CMD --exit-code N [--workspace DIR] < OUTPUT",
	"Analyse a command's output (on stdin) and print the result as JSON; writes nothing.",
	"Prints one JSON object on one line:\n"
	"  {\"verification\": bool, \"failed\": bool, \"tool\": str,\n"
	"   \"category\": \"LINT|TEST|ANALYSIS|OTHER\", \"command\": str, \"exit_code\": int,\n"
	"   \"affected_files\": [str], \"error_summary\": str (at most 500 bytes),\n"
	"   \"errors\": [{\"file\", \"line\", \"column\", \"code\", \"message\"}],\n"
	"   \"output_bytes\": int, \"dropped_lines\": int}\n"
	"Secrets are redacted, as a recording redacts them.  Paths are relative to\n"
	"the workspace; paths outside it (node_modules, site-packages, the toolchain)\n"
	"are left out.  Errors, files and summary are filled only when a\n"
	"verification command failed.  See docs/analyze.md.",
	analyze_options, 0
};

int cmd_analyze(int argc, char **argv)
{
	callus_detection det;
	callus_failure f;
	callus_buf json = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;
	cli_workspace ws;
	char *dir = NULL;
	int first, rc = 1;

	memset(&det, 0, sizeof(det));
	memset(&f, 0, sizeof(f));
	first = cli_parse(argc, argv, &cmd_analyze_spec);
	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'", argv[first]);
		return 2;
	}
	if (!command || exit_code < 0 || exit_code > 255) {
		cli_error(!command ? "--command is required" : "--exit-code N (0-255) is required");
		cli_print_usage(stderr, &cmd_analyze_spec);
		return 2;
	}
	if (cli_workspace_setup(&ws, workspace, 1) < 0)
		return 1;
	if (workspace)
		cli_workspace_cwd_inside(&ws);
	if (ws.config_error)
		cli_error("ignoring .callus/config: %s", ws.config_error);
	/* Signed after redaction, as a recording signs: the ids are the ones
	 * `callus suggest` and the store know, and no secret is printed. */
	if (cli_analyze_stdin(&ws, command, (int)exit_code, 0, &det, &f, &dir) < 0)
		goto out;
	{
		callus_pathctx pc = { ws.root, ws.root_real, dir ? dir : ws.cwd_rel, NULL };

		if (callus_record_redact_failure(&f, ws.redactor, &err) < 0 ||
		    callus_failure_sign(&f, &pc, &err) < 0) {
			cli_error("%s", callus_error_message(&err));
			goto out;
		}
	}
	if (callus_failure_to_json(&json, &f) < 0) {
		cli_error("out of memory");
		goto out;
	}
	printf("%s\n", json.ptr);
	rc = 0;
out:
	free(dir);
	callus_error_release(&err);
	callus_failure_release(&f);
	callus_detection_release(&det);
	callus_buf_release(&json);
	cli_workspace_release(&ws);
	return rc;
}
