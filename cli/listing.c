#include "listing.h"
#include "cli.h"

#include <stdio.h>

long cli_list_limit(long given, int json)
{
	if (given == CLI_LIMIT_UNSET)
		return json ? 0 : CLI_LIST_DEFAULT + 1;
	if (given < 0 || given > 1000000) {
		cli_error("--limit must be between 0 and 1000000");
		return -1;
	}
	return given;
}

size_t cli_list_shown(long given, int json, size_t n)
{
	return given == CLI_LIMIT_UNSET && !json && n > CLI_LIST_DEFAULT ? CLI_LIST_DEFAULT : n;
}

void cli_list_more(long given, int json, size_t n, const char *what)
{
	if (cli_list_shown(given, json, n) == n)
		return;
	fflush(stdout);
	cli_error("%d %s shown, and there are more: --limit N shows N, --limit 0 all of them",
		  CLI_LIST_DEFAULT, what);
}
