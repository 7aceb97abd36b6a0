/*
 * parse_ctest.c - ctest output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "ctest", NULL };

const deja_parser deja_parser_ctest = { "ctest", tools, NULL, deja_parse_generic };
