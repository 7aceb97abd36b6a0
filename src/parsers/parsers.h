/*
 * parsers.h - the parsers registered in src/parse.c (library-internal).
 * Each is defined in src/parsers/<name>.c.
 */
#ifndef CALLUS_PARSERS_H
#define CALLUS_PARSERS_H

#include "callus/parse.h"

extern const callus_parser callus_parser_eslint, callus_parser_tsc, callus_parser_jest,
	callus_parser_vitest, callus_parser_mocha, callus_parser_node_test, callus_parser_pytest,
	callus_parser_unittest, callus_parser_mypy, callus_parser_ruff, callus_parser_flake8,
	callus_parser_pylint, callus_parser_gcc, callus_parser_make, callus_parser_go,
	callus_parser_cargo, callus_parser_shellcheck, callus_parser_cppcheck, callus_parser_ctest,
	callus_parser_javac, callus_parser_maven, callus_parser_kotlinc, callus_parser_rspec,
	callus_parser_minitest, callus_parser_rubocop, callus_parser_phpunit, callus_parser_php,
	callus_parser_tap, callus_parser_pyflakes, callus_parser_pyright, callus_parser_bandit,
	callus_parser_black, callus_parser_isort, callus_parser_ninja, callus_parser_biome,
	callus_parser_oxlint, callus_parser_prettier, callus_parser_stylelint,
	callus_parser_markdownlint, callus_parser_yamllint, callus_parser_ava, callus_parser_exunit,
	callus_parser_junit, callus_parser_bun, callus_parser_deno_test,
	callus_parser_deno_lint, callus_parser_playwright,
	callus_parser_gradle, callus_parser_pytraceback, callus_parser_node_crash;

#endif
