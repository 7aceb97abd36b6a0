/*
 * parse_gcc.c - gcc output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "gcc", NULL };

const deja_parser deja_parser_gcc = { "gcc", tools, NULL, deja_parse_generic };
