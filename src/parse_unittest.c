/*
 * parse_unittest.c - unittest output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "unittest", NULL };

const deja_parser deja_parser_unittest = { "unittest", tools, NULL, deja_parse_generic };
