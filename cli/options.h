/*
 * options.h - one table per command drives both option parsing and the
 * help text, so `callus help CMD` cannot drift from what CMD accepts.
 */
#ifndef CALLUS_CLI_OPTIONS_H
#define CALLUS_CLI_OPTIONS_H

#include <stdio.h>

typedef enum cli_opt_type {
	CLI_OPT_END = 0,
	CLI_OPT_FLAG,   /* int *: set to 1 */
	CLI_OPT_STRING, /* const char **: the argument (borrowed from argv) */
	CLI_OPT_INT,    /* long *: a decimal number */
	CLI_OPT_LIST    /* cli_list *: every occurrence appended */
} cli_opt_type;

typedef struct cli_list {
	const char **items; /* borrowed from argv; the array is owned */
	int count;
} cli_list;

typedef struct cli_option {
	cli_opt_type type;
	char short_name;       /* 0 for none */
	const char *long_name; /* without the dashes */
	void *value;
	const char *argh;      /* argument placeholder in help */
	const char *help;
} cli_option;

#define CLI_END { CLI_OPT_END, 0, NULL, NULL, NULL, NULL }

/* What a command tells the parser and the help printer about itself. */
typedef struct cli_spec {
	const char *usage;       /* "callus run [options] [--] CMD [ARGS...]" lines, '\n'-separated */
	const char *summary;     /* one line */
	const char *description; /* paragraphs printed after the usage, or NULL */
	const cli_option *options;
	int stop_at_nonoption;   /* `callus run`: the command's own options are not ours */
} cli_spec;

enum { CLI_PARSE_HELP = -2, CLI_PARSE_ERROR = -1 };

/*
 * Parse argv[1..] (argv[0] is the command name).  Returns the index of the
 * first operand (argc when none), CLI_PARSE_HELP after printing the help on
 * stdout (-h/--help), or CLI_PARSE_ERROR after printing a message and the
 * usage on stderr.  Operands and options may mix unless stop_at_nonoption;
 * "--" ends the options.  Operands are moved to the end of argv in order.
 */
int cli_parse(int argc, char **argv, const cli_spec *spec);

void cli_print_help(FILE *f, const cli_spec *spec);
void cli_print_usage(FILE *f, const cli_spec *spec);

void cli_list_release(cli_list *l);

#endif
