#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cli_print_usage(FILE *f, const cli_spec *spec)
{
	const char *p = spec->usage;
	int first = 1;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		int lead = (int)strspn(p, " ");

		/* a line of its own command is another form ("or:"); one
		 * that goes on with options continues the line above */
		if (first)
			fprintf(f, "usage: %.*s\n", n, p);
		else if (lead < n && !strncmp(p + lead, "callus ", 7))
			fprintf(f, "   or: %.*s\n", n - lead, p + lead);
		else
			fprintf(f, "       %.*s\n", n, p);
		first = 0;
		p = nl ? nl + 1 : p + n;
	}
}

void cli_print_help(FILE *f, const cli_spec *spec)
{
	cli_print_usage(f, spec);
	if (spec->summary)
		fprintf(f, "\n%s\n", spec->summary);
	if (spec->description)
		fprintf(f, "\n%s\n", spec->description);
	if (spec->options && spec->options[0].type != CLI_OPT_END) {
		fprintf(f, "\noptions:\n");
		for (const cli_option *o = spec->options; o->type != CLI_OPT_END; o++) {
			char left[96];
			int n = 0;

			if (o->short_name)
				n = snprintf(left, sizeof(left), "-%c, ", o->short_name);
			else
				n = snprintf(left, sizeof(left), "    ");
			snprintf(left + n, sizeof(left) - (size_t)n, "--%s%s%s", o->long_name,
				 o->argh ? " " : "", o->argh ? o->argh : "");
			fprintf(f, "    %-28s %s\n", left, o->help);
		}
	}
	fprintf(f, "    %-28s %s\n", "-h, --help", "show this help");
}

void cli_list_release(cli_list *l)
{
	free(l->items);
	l->items = NULL;
	l->count = 0;
}

static int set_value(const cli_option *o, const char *name, const char *arg)
{
	switch (o->type) {
	case CLI_OPT_FLAG:
		*(int *)o->value = 1;
		return 0;
	case CLI_OPT_STRING:
		*(const char **)o->value = arg;
		return 0;
	case CLI_OPT_INT: {
		char *end;
		long v;

		errno = 0;
		v = strtol(arg, &end, 10);
		if (errno || end == arg || *end) {
			fprintf(stderr, "callus: option '%s' expects a number, not '%s'\n", name, arg);
			return -1;
		}
		*(long *)o->value = v;
		return 0;
	}
	case CLI_OPT_LIST: {
		cli_list *l = o->value;
		const char **p = realloc(l->items, sizeof(*p) * (size_t)(l->count + 1));

		if (!p) {
			fprintf(stderr, "callus: out of memory\n");
			return -1;
		}
		p[l->count++] = arg;
		l->items = p;
		return 0;
	}
	default:
		return -1;
	}
}

static const cli_option *find_long(const cli_spec *spec, const char *name, size_t len)
{
	for (const cli_option *o = spec->options; o && o->type != CLI_OPT_END; o++)
		if (strlen(o->long_name) == len && !strncmp(o->long_name, name, len))
			return o;
	return NULL;
}

static const cli_option *find_short(const cli_spec *spec, char c)
{
	for (const cli_option *o = spec->options; o && o->type != CLI_OPT_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

int cli_parse(int argc, char **argv, const cli_spec *spec)
{
	char **operands = calloc((size_t)argc + 1, sizeof(char *));
	int nops = 0, i, rc;

	if (!operands) {
		fprintf(stderr, "callus: out of memory\n");
		return CLI_PARSE_ERROR;
	}
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const cli_option *o;

		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (spec->stop_at_nonoption)
				break;
			operands[nops++] = argv[i];
			continue;
		}
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			cli_print_help(stdout, spec);
			free(operands);
			return CLI_PARSE_HELP;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const char *arg = eq ? eq + 1 : NULL;

			if (!(o = find_long(spec, name, len))) {
				fprintf(stderr, "callus: unknown option '--%.*s'\n", (int)len, name);
				goto usage;
			}
			if (o->type == CLI_OPT_FLAG && arg) {
				fprintf(stderr, "callus: option '--%s' takes no value\n", o->long_name);
				goto usage;
			}
			if (o->type != CLI_OPT_FLAG && !arg) {
				if (i + 1 >= argc) {
					fprintf(stderr, "callus: option '--%s' requires a value\n",
						o->long_name);
					goto usage;
				}
				arg = argv[++i];
			}
			if (set_value(o, a, arg) < 0)
				goto usage;
			continue;
		}
		/* short options, possibly bundled: -qv, -n5, -n 5 */
		for (const char *c = a + 1; *c; c++) {
			if (!(o = find_short(spec, *c))) {
				fprintf(stderr, "callus: unknown option '-%c'\n", *c);
				goto usage;
			}
			if (o->type == CLI_OPT_FLAG) {
				set_value(o, a, NULL);
				continue;
			}
			if (c[1]) {
				rc = set_value(o, a, c + 1);
			} else if (i + 1 < argc) {
				rc = set_value(o, a, argv[++i]);
			} else {
				fprintf(stderr, "callus: option '-%c' requires a value\n", *c);
				goto usage;
			}
			if (rc < 0)
				goto usage;
			break;
		}
	}
	/* operands first, then whatever followed "--" or the first operand */
	{
		int rest = argc - i, first = argc - rest - nops;

		memmove(argv + first + nops, argv + i, sizeof(char *) * (size_t)rest);
		memcpy(argv + first, operands, sizeof(char *) * (size_t)nops);
		free(operands);
		return first;
	}
usage:
	free(operands);
	cli_print_usage(stderr, spec);
	return CLI_PARSE_ERROR;
}
