/*
 * parse_pytest.c - pytest output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "pytest", NULL };

const deja_parser deja_parser_pytest = { "pytest", tools, NULL, deja_parse_generic };
