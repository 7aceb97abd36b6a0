/*
 * parse_cppcheck.c - cppcheck output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "cppcheck", NULL };

const deja_parser deja_parser_cppcheck = { "cppcheck", tools, NULL, deja_parse_generic };
