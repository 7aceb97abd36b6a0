/*
 * parse_eslint.c - eslint output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "eslint", NULL };

const deja_parser deja_parser_eslint = { "eslint", tools, NULL, deja_parse_generic };
