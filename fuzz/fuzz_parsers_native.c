/*
 * fuzz_parsers_native.c - the native tools' parsers (pytest, unittest,
 * mypy, ruff, flake8, pylint, gcc, make, go, cargo, shellcheck, cppcheck,
 * ctest; javac, maven, kotlinc, rspec, minitest, rubocop, phpunit, php,
 * tap, exunit, pyflakes, pyright, bandit, black, isort, ninja, biome,
 * oxlint, prettier, stylelint, markdownlint, yamllint, junit, gradle) on arbitrary
 * bytes; the checks are in parser_invariants.h.  Seeds:
 * tests/parsers/native/ and outputs of tests/corpus/cases/ (real outputs).
 */
#include "parsers/util.h"
#include "parser_invariants.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = {
		"pytest",  "unittest", "mypy",	   "ruff",	   "flake8",   "pylint",
		"gcc",	   "make",     "go",	   "cargo",	   "shellcheck", "cppcheck",
		"ctest",   "javac",    "maven",	   "kotlinc",	   "rspec",    "minitest",
		"rubocop", "phpunit",  "php",	   "tap",	   "exunit",   "pyflakes",
		"pyright", "bandit",   "black",	   "isort",	   "ninja",    "biome",
		"oxlint",  "prettier", "stylelint", "markdownlint", "yamllint", "junit",
		"gradle",
	};
	static const callus_pathctx ctx[] = {
		{ "/tmp/callus-native/c", NULL, "", NULL },
		{ "/work/proj", "/srv/proj", "api/v1", NULL },
	};
	static const parser_limits lim = { CALLUS_PU_TEXT_MAX, CALLUS_PU_TEXT_MAX, CALLUS_PU_FRAMES_MAX,
					   1 };

	fuzz_parsers(data, size, names, sizeof(names) / sizeof(names[0]), ctx,
		     sizeof(ctx) / sizeof(ctx[0]), &lim);
	return 0;
}
