/*
 * parse_cargo.c - cargo test output.  (Placeholder: the generic extractor, until
 * the dedicated parser lands.)
 */
#include "parsers.h"

static const char *const tools[] = { "cargo test", NULL };

const deja_parser deja_parser_cargo = { "cargo", tools, NULL, deja_parse_generic };
