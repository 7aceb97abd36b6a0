/*
 * parse_shellcheck.c - shellcheck output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "shellcheck", NULL };

const deja_parser deja_parser_shellcheck = { "shellcheck", tools, NULL, deja_parse_generic };
