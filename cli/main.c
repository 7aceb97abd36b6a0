/*
 * callus - remember how failed checks were fixed.
 *
 * main() finds the subcommand in the table, runs it, and makes sure what it
 * printed reached stdout (git's run_builtin does the same): a full disk
 * must not turn into a silent success.
 */
#include "cli.h"

#include "callus/buf.h"
#include "callus/cleantext.h"
#include "callus/store.h"
#include "sqlmem.h"

#include <jansson.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#ifndef CALLUS_VERSION
#define CALLUS_VERSION "0.1.0"
#endif

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const cli_spec cmd_help_spec = {
	"callus help [COMMAND]",
	"Show the help of callus or of one command (the same as 'callus COMMAND --help').",
	NULL, NULL, 0
};

static const cli_spec cmd_version_spec = {
	"callus version", "Print callus's version.", NULL, NULL, 0
};

static const cli_command commands[] = {
	{ "analyze", cmd_analyze, &cmd_analyze_spec },
	{ "approve", cmd_approve, &cmd_approve_spec },
	{ "doctor", cmd_doctor, &cmd_doctor_spec },
	{ "feedback", cmd_feedback, &cmd_feedback_spec },
	{ "gc", cmd_gc, &cmd_gc_spec },
	{ "help", cmd_help, &cmd_help_spec },
	{ "hook", cmd_hook, &cmd_hook_spec },
	{ "import", cmd_import, &cmd_import_spec },
	{ "init", cmd_init, &cmd_init_spec },
	{ "lessons", cmd_lessons, &cmd_lessons_spec },
	{ "merge", cmd_merge, &cmd_merge_spec },
	{ "merges", cmd_merges, &cmd_merges_spec },
	{ "metrics", cmd_metrics, &cmd_metrics_spec },
	{ "note", cmd_note, &cmd_note_spec },
	{ "notes", cmd_notes, &cmd_notes_spec },
	{ "pending", cmd_pending, &cmd_pending_spec },
	{ "proposals", cmd_proposals, &cmd_proposals_spec },
	{ "record", cmd_record, &cmd_record_spec },
	{ "reindex", cmd_reindex, &cmd_reindex_spec },
	{ "reject", cmd_reject, &cmd_reject_spec },
	{ "report", cmd_report, &cmd_report_spec },
	{ "resolutions", cmd_resolutions, &cmd_resolutions_spec },
	{ "run", cmd_run, &cmd_run_spec },
	{ "status", cmd_status, &cmd_status_spec },
	{ "suggest", cmd_suggest, &cmd_suggest_spec },
	{ "sync", cmd_sync, &cmd_sync_spec },
	{ "version", cmd_version, &cmd_version_spec },
	{ "warnings", cmd_warnings, &cmd_warnings_spec },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* Set by cli_error_own_line(): the CLI's only mutable state besides the
 * options of the command running, and what the process started with. */
static int glued, hushed;
static sigset_t started_ignored;
static unsigned started_closed;

const sigset_t *cli_started_ignored(void)
{
	return &started_ignored;
}

unsigned cli_started_closed(void)
{
	return started_closed;
}

/* Record what the process started with, then make it callus's: fds 0, 1
 * and 2 open (a pipe callus makes must not become a command's stdin when
 * fd 0 was closed), SIGPIPE and SIGXFSZ ignored. */
static void take_start(void)
{
	static const int sigs[] = { SIGPIPE, SIGXFSZ };

	sigemptyset(&started_ignored);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa;

		if (sigaction(sigs[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN)
			sigaddset(&started_ignored, sigs[i]);
	}
	for (int fd = 0; fd < 3; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		started_closed |= 1u << fd;
		/* open() takes the lowest free number: this fd */
		if (open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			break;
	}
	/* A closed pipe or a file size limit is an error to report, not a
	 * reason to die: `callus run` must leave with its command's status,
	 * the hook with a reply.  Children get the defaults back (child.c,
	 * runner.c). */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

void cli_error_own_line(int yes)
{
	glued = yes;
}

void cli_error_hush(int yes)
{
	hushed = yes;
}

void cli_error(const char *fmt, ...)
{
	va_list ap;

	if (hushed)
		return;
	if (glued)
		fputc('\n', stderr);
	glued = 0;
	fputs("callus: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_error_untrusted(const char *fmt, ...)
{
	callus_buf line = CALLUS_BUF_INIT, clean = CALLUS_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	callus_buf_vprintf(&line, fmt, ap);
	va_end(ap);
	if (callus_buf_status(&line) == 0 &&
	    callus_text_clean(&clean, line.ptr, line.len, CALLUS_TEXT_ONE_LINE) == 0)
		cli_error("%s", clean.ptr);
	else
		cli_error("out of memory");
	callus_buf_release(&line);
	callus_buf_release(&clean);
}

static const cli_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void main_usage(FILE *f)
{
	fprintf(f, "usage: callus [--version] [--help] <command> [<args>]\n\n"
		   "callus records what failed when linters, type checkers, test runners and\n"
		   "compilers fail, as lessons an agent reads the next time.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "   %-12s %s\n", commands[i].name, commands[i].spec->summary);
	fprintf(f, "\n'callus help <command>' shows the options of a command; 'man callus' has it all.\n");
}

static int cmd_help(int argc, char **argv)
{
	const cli_command *c;
	int first = cli_parse(argc, argv, &cmd_help_spec);

	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first >= argc) {
		main_usage(stdout);
		return 0;
	}
	if (!(c = find_command(argv[first]))) {
		cli_error("'%s' is not a callus command; see 'callus --help'", argv[first]);
		return 2;
	}
	if (first + 1 < argc) {
		cli_error("unexpected argument '%s'; usage: callus help [COMMAND]", argv[first + 1]);
		return 2;
	}
	cli_print_help(stdout, c->spec);
	return 0;
}

static int cmd_version(int argc, char **argv)
{
	int first = cli_parse(argc, argv, &cmd_version_spec);

	if (first < 0)
		return first == CLI_PARSE_HELP ? 0 : 2;
	if (first < argc) {
		cli_error("unexpected argument '%s'; usage: callus version", argv[first]);
		return 2;
	}
	printf("callus %s\n", CALLUS_VERSION);
	/* `callus --version` does not reach main's flush check */
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

/* jansson seeds its hash tables at the first object it makes, from an
 * open(2) of /dev/urandom that every hook would pay for (and a sandbox
 * without /dev would miss): seeded from getrandom(2) here, before any
 * object; left to jansson when that fails. */
static void seed_json(void)
{
	uint32_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed) && seed)
		json_object_seed(seed);
}

int main(int argc, char **argv)
{
	const cli_command *c;
	int status;

	if (argc < 2) {
		main_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		main_usage(stdout);
		/* help that could not be written is a failed command */
		return fflush(stdout) || ferror(stdout) ? 1 : 0;
	}
	if (!strcmp(argv[1], "--version"))
		return cmd_version(1, argv);
	take_start();
	seed_json();
	cli_sqlmem_process();
	if (!(c = find_command(argv[1]))) {
		cli_error("'%s' is not a callus command; see 'callus --help'", argv[1]);
		return 2;
	}
	status = c->fn(argc - 1, argv + 1);
	/* `callus run` passes the child's status through and has already
	 * written everything with write(2); for the others, a failed flush
	 * is a failed command. */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			cli_error("cannot write to standard output: %s", strerror(errno));
		return status ? status : 1;
	}
	return status;
}
