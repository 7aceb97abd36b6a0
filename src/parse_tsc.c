/*
 * parse_tsc.c - tsc output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "tsc", NULL };

const deja_parser deja_parser_tsc = { "tsc", tools, NULL, deja_parse_generic };
