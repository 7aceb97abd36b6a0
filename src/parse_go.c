/*
 * parse_go.c - go test output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "go test", NULL };

const deja_parser deja_parser_go = { "go", tools, NULL, deja_parse_generic };
