/*
 * parse_make.c - make output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "make", NULL };

const deja_parser deja_parser_make = { "make", tools, NULL, deja_parse_generic };
