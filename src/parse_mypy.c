/*
 * parse_mypy.c - mypy output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "mypy", NULL };

const deja_parser deja_parser_mypy = { "mypy", tools, NULL, deja_parse_generic };
