/*
 * parsers.h - the parsers registered in src/parse.c (library-internal).
 * Each is defined in src/parse_<name>.c.
 */
#ifndef DEJA_PARSERS_H
#define DEJA_PARSERS_H

#include "deja/parse.h"

extern const deja_parser deja_parser_eslint, deja_parser_tsc, deja_parser_jest,
	deja_parser_vitest, deja_parser_mocha, deja_parser_node_test, deja_parser_pytest,
	deja_parser_unittest, deja_parser_mypy, deja_parser_ruff, deja_parser_flake8,
	deja_parser_pylint, deja_parser_gcc, deja_parser_make, deja_parser_go,
	deja_parser_cargo, deja_parser_shellcheck, deja_parser_cppcheck, deja_parser_ctest;

#endif
