/*
 * parse_node_test.c - node --test output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "node --test", NULL };

const deja_parser deja_parser_node_test = { "node_test", tools, NULL, deja_parse_generic };
