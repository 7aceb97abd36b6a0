/*
 * parse_pylint.c - pylint output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "pylint", NULL };

const deja_parser deja_parser_pylint = { "pylint", tools, NULL, deja_parse_generic };
