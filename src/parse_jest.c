/*
 * parse_jest.c - jest output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "jest", NULL };

const deja_parser deja_parser_jest = { "jest", tools, NULL, deja_parse_generic };
