/*
 * detect_rules.c - the built-in whitelist of verification commands, as a
 * data table (docs/config.md lists the same patterns).  Apart from the
 * detector (detect.c) so that adding a tool's command is an edit here and
 * nowhere else; a config adds and removes rules on top of it
 * (detect_whitelist.c).
 */
#include "detect_internal.h"

#define LINT CALLUS_LESSON_LINT
#define TEST CALLUS_LESSON_TEST
#define ANALYSIS CALLUS_LESSON_ANALYSIS

/* `<pm> run <script>` for the scripts projects use to check themselves. */
#define PM_RUN_SCRIPTS(pm)                                   \
	{ pm " run test:*", NULL, TEST, 0 },                 \
	{ pm " run lint", NULL, LINT, 0 },                   \
	{ pm " run lint:*", NULL, LINT, 0 },                 \
	{ pm " run check", NULL, ANALYSIS, 0 },              \
	{ pm " run check:*", NULL, ANALYSIS, 0 },            \
	{ pm " run typecheck", NULL, ANALYSIS, 0 },          \
	{ pm " run type-check", NULL, ANALYSIS, 0 }

/* pnpm and yarn also run a script named without "run"; the tool name says
 * "run" anyway, so that both spellings are one check. */
#define PM_SHORT_SCRIPTS(pm)                                 \
	{ pm " test:*", pm " run *", TEST, 0 },              \
	{ pm " lint", pm " run lint", LINT, 0 },             \
	{ pm " lint:*", pm " run *", LINT, 0 },              \
	{ pm " check", pm " run check", ANALYSIS, 0 },       \
	{ pm " check:*", pm " run *", ANALYSIS, 0 },         \
	{ pm " typecheck", pm " run typecheck", ANALYSIS, 0 }, \
	{ pm " type-check", pm " run type-check", ANALYSIS, 0 }

const callus_pattern callus_detect_builtins[] = {
	/* JavaScript and TypeScript */
	{ "eslint", NULL, LINT, 0 },
	{ "jest", NULL, TEST, 0 },
	{ "vitest", NULL, TEST, 0 },
	{ "mocha", NULL, TEST, 0 },
	{ "node --test", NULL, TEST, 0 },
	{ "tsc", NULL, ANALYSIS, 0 },
	{ "ava", NULL, TEST, 0 },
	{ "biome lint", "biome", LINT, 1 },
	{ "biome check", "biome", LINT, 1 },
	{ "biome ci", "biome", LINT, 1 },
	{ "biome format", "biome", LINT, 1 },
	{ "oxlint", NULL, LINT, 0 },
	{ "prettier --check", "prettier", LINT, 1 },
	{ "prettier -c", "prettier", LINT, 1 },
	{ "prettier --list-different", "prettier", LINT, 1 },
	{ "prettier -l", "prettier", LINT, 1 },
	{ "stylelint", NULL, LINT, 0 },
	{ "markdownlint", NULL, LINT, 0 },
	{ "markdownlint-cli2", "markdownlint", LINT, 0 },
	{ "deno test", NULL, TEST, 0 },
	{ "deno lint", NULL, LINT, 0 },
	{ "playwright test", NULL, TEST, 0 },
	/* Python */
	{ "pytest", NULL, TEST, 0 },
	{ "py.test", "pytest", TEST, 0 },
	{ "python -m pytest", "pytest", TEST, 0 },
	{ "python -m unittest", "unittest", TEST, 0 },
	{ "mypy", NULL, ANALYSIS, 0 },
	{ "python -m mypy", "mypy", ANALYSIS, 0 },
	{ "ruff", NULL, LINT, 0 },
	{ "python -m ruff", "ruff", LINT, 0 },
	{ "flake8", NULL, LINT, 0 },
	{ "python -m flake8", "flake8", LINT, 0 },
	{ "pylint", NULL, LINT, 0 },
	{ "python -m pylint", "pylint", LINT, 0 },
	{ "pyflakes", NULL, LINT, 0 },
	{ "pyflakes3", "pyflakes", LINT, 0 },
	{ "python -m pyflakes", "pyflakes", LINT, 0 },
	{ "pyright", NULL, ANALYSIS, 0 },
	{ "basedpyright", "pyright", ANALYSIS, 0 },
	{ "bandit", NULL, LINT, 0 },
	{ "python -m bandit", "bandit", LINT, 0 },
	/* a formatter is a check when it only checks */
	{ "black --check", "black", LINT, 1 },
	{ "black --diff --check", "black", LINT, 1 },
	{ "python -m black --check", "black", LINT, 3 },
	{ "isort --check-only", "isort", LINT, 1 },
	{ "isort --check", "isort", LINT, 1 },
	{ "isort -c", "isort", LINT, 1 },
	{ "isort --diff --check-only", "isort", LINT, 1 },
	{ "python -m isort --check-only", "isort", LINT, 3 },
	{ "yamllint", NULL, LINT, 0 },
	{ "python -m yamllint", "yamllint", LINT, 0 },
	/* Elixir */
	{ "mix test", NULL, TEST, 0 },
	/* Go and Rust */
	{ "go test", NULL, TEST, 0 },
	{ "go vet", NULL, ANALYSIS, 0 },
	{ "go build", NULL, ANALYSIS, 0 },
	{ "cargo test", NULL, TEST, 0 },
	{ "cargo build", NULL, ANALYSIS, 0 },
	{ "cargo check", NULL, ANALYSIS, 0 },
	{ "cargo clippy", NULL, ANALYSIS, 0 },
	{ "rustc", NULL, ANALYSIS, 0 },
	/* C and C++, shell */
	{ "gcc", NULL, ANALYSIS, 0 },
	{ "g++", NULL, ANALYSIS, 0 },
	{ "clang", NULL, ANALYSIS, 0 },
	{ "clang++", NULL, ANALYSIS, 0 },
	{ "cc", NULL, ANALYSIS, 0 },
	{ "c++", NULL, ANALYSIS, 0 },
	{ "make check", "make", TEST, 1 },
	{ "make test", "make", TEST, 1 },
	{ "make", NULL, ANALYSIS, 0 },
	{ "ctest", NULL, TEST, 0 },
	{ "cppcheck", NULL, LINT, 0 },
	{ "clang-tidy", NULL, LINT, 0 },
	{ "ninja", NULL, ANALYSIS, 0 },
	{ "meson compile", NULL, ANALYSIS, 0 },
	{ "cmake --build", NULL, ANALYSIS, 0 },
	{ "shellcheck", NULL, LINT, 0 },
	/* Java and Kotlin: any Maven or Gradle run builds, and most test */
	{ "javac", NULL, ANALYSIS, 0 },
	{ "kotlinc", NULL, ANALYSIS, 0 },
	{ "mvn", NULL, TEST, 0 },
	{ "mvnw", "mvn", TEST, 0 },
	{ "gradle", NULL, TEST, 0 },
	{ "gradlew", "gradle", TEST, 0 },
	/* Ruby: minitest runs as a test file given to ruby, or rake's task */
	{ "rspec", NULL, TEST, 0 },
	{ "rake spec", NULL, TEST, 0 },
	{ "rake test", NULL, TEST, 0 },
	{ "rake test:*", "rake test", TEST, 0 },
	{ "rails test", NULL, TEST, 0 },
	{ "ruby -Itest", "minitest", TEST, 0 },
	{ "ruby -Ilib:test", "minitest", TEST, 0 },
	{ "ruby -Itest:lib", "minitest", TEST, 0 },
	{ "ruby test/*", "minitest", TEST, 0 },
	{ "rubocop", NULL, LINT, 0 },
	/* PHP and Perl */
	{ "phpunit", NULL, TEST, 0 },
	{ "php vendor/bin/phpunit", "phpunit", TEST, 0 },
	{ "pest", NULL, TEST, 0 },
	{ "composer test", NULL, TEST, 0 },
	{ "php -l", NULL, LINT, 0 },
	{ "php --syntax-check", "php -l", LINT, 0 },
	{ "prove", NULL, TEST, 0 },
	/* package managers */
	{ "npm test", NULL, TEST, 0 },
	{ "npm run test", "npm test", TEST, 0 },
	PM_RUN_SCRIPTS("npm"),
	{ "pnpm test", NULL, TEST, 0 },
	{ "pnpm run test", "pnpm test", TEST, 0 },
	PM_RUN_SCRIPTS("pnpm"),
	PM_SHORT_SCRIPTS("pnpm"),
	{ "yarn test", NULL, TEST, 0 },
	{ "yarn run test", "yarn test", TEST, 0 },
	PM_RUN_SCRIPTS("yarn"),
	PM_SHORT_SCRIPTS("yarn"),
	/* `bun test` is bun's own runner, `bun run test` the package script */
	{ "bun test", NULL, TEST, 0 },
	{ "bun run test", NULL, TEST, 0 },
	PM_RUN_SCRIPTS("bun"),
};

/* CALLUS_DETECT_NBUILTIN (detect_internal.h) must be the table's length:
 * a rule added or removed without changing it does not compile. */
_Static_assert(sizeof(callus_detect_builtins) / sizeof(callus_detect_builtins[0]) ==
		       CALLUS_DETECT_NBUILTIN,
	       "CALLUS_DETECT_NBUILTIN");

const callus_pattern *callus_whitelist_builtin(size_t i)
{
	return i < CALLUS_DETECT_NBUILTIN ? &callus_detect_builtins[i] : NULL;
}
