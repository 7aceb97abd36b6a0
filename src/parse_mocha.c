/*
 * parse_mocha.c - mocha output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "mocha", NULL };

const deja_parser deja_parser_mocha = { "mocha", tools, NULL, deja_parse_generic };
