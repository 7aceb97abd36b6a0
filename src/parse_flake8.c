/*
 * parse_flake8.c - flake8 output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "flake8", NULL };

const deja_parser deja_parser_flake8 = { "flake8", tools, NULL, deja_parse_generic };
