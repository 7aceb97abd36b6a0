/*
 * parse_vitest.c - vitest output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "vitest", NULL };

const deja_parser deja_parser_vitest = { "vitest", tools, NULL, deja_parse_generic };
