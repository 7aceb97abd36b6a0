/*
 * parse_ruff.c - ruff output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "ruff", NULL };

const deja_parser deja_parser_ruff = { "ruff", tools, NULL, deja_parse_generic };
