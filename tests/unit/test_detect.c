/*
 * test_detect.c - verification command detection (src/detect.c) and the
 * [verify] section of the config.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "callus/buf.h"
#include "callus/config.h"
#include "callus/detect.h"

#define LINT CALLUS_LESSON_LINT
#define TEST CALLUS_LESSON_TEST
#define ANALYSIS CALLUS_LESSON_ANALYSIS
#define OTHER CALLUS_LESSON_OTHER

struct positive {
	const char *command;
	const char *tool;
	callus_lesson_type category;
	const char *dir; /* NULL: none */
	const char *args;
};

static const struct positive positives[] = {
	/* the command lines of the brief and DESIGN §3.1 */
	{ "cd web && npm test", "npm test", TEST, "web", "" },
	{ "CI=1 npx jest --ci", "jest", TEST, NULL, "--ci" },
	{ "./node_modules/.bin/eslint .", "eslint", LINT, NULL, "." },
	{ "/usr/bin/python3 -m pytest -q", "pytest", TEST, NULL, "-q" },
	{ "python3 -m pytest -q", "pytest", TEST, NULL, "-q" },
	{ "python3.11 -m pytest", "pytest", TEST, NULL, "" },
	{ "pnpm run lint", "pnpm run lint", LINT, NULL, "" },
	{ "bun test", "bun test", TEST, NULL, "" },
	{ "make check", "make", TEST, NULL, "check" },
	{ "make -C sub -j4 check", "make", TEST, "sub", "-j4 check" },
	{ "env FOO=1 pytest", "pytest", TEST, NULL, "" },
	{ "time npm test", "npm test", TEST, NULL, "" },
	{ "timeout 60 go test ./...", "go test", TEST, NULL, "./..." },
	{ "npm test 2>&1 | tail -20", "npm test", TEST, NULL, "" },
	{ "npm test | tee log", "npm test", TEST, NULL, "" },
	{ "cd a; eslint src || true", "eslint", LINT, "a", "src" },
	{ "(cd web && npx vitest run)", "vitest", TEST, "web", "run" },
	{ "bash -c \"npm test\"", "npm test", TEST, NULL, "" },
	{ "sh -c 'pytest -q'", "pytest", TEST, NULL, "-q" },
	{ "pytest -k \"test a or b\" tests/", "pytest", TEST, NULL, "-k 'test a or b' tests/" },
	{ "mocha 'a b' \"c'd\" e\\ f", "mocha", TEST, NULL, "'a b' 'c'\\''d' 'e f'" },
	{ "eslint --format=json $(git ls-files '*.js')", "eslint", LINT, NULL,
	  "--format=json '$(git ls-files '\\''*.js'\\'')'" },
	{ "pytest `cat tests.txt`", "pytest", TEST, NULL, "'`cat tests.txt`'" },

	/* every built-in tool */
	{ "eslint src --fix", "eslint", LINT, NULL, "src --fix" },
	{ "jest", "jest", TEST, NULL, "" },
	{ "vitest run --reporter=dot", "vitest", TEST, NULL, "run --reporter=dot" },
	{ "tsc --noEmit -p .", "tsc", ANALYSIS, NULL, "--noEmit -p ." },
	{ "mocha test/", "mocha", TEST, NULL, "test/" },
	{ "node --test", "node --test", TEST, NULL, "" },
	{ "node --test test/a.test.js", "node --test", TEST, NULL, "test/a.test.js" },
	{ "pytest", "pytest", TEST, NULL, "" },
	{ "py.test -x", "pytest", TEST, NULL, "-x" },
	{ "python -m pytest tests", "pytest", TEST, NULL, "tests" },
	{ "python -m unittest discover", "unittest", TEST, NULL, "discover" },
	{ "python3 -m unittest", "unittest", TEST, NULL, "" },
	{ "mypy src", "mypy", ANALYSIS, NULL, "src" },
	{ "python -m mypy .", "mypy", ANALYSIS, NULL, "." },
	{ "ruff check .", "ruff", LINT, NULL, "check ." },
	{ "ruff .", "ruff", LINT, NULL, "." },
	{ "ruff", "ruff", LINT, NULL, "" },
	{ "flake8 app", "flake8", LINT, NULL, "app" },
	{ "pylint pkg", "pylint", LINT, NULL, "pkg" },
	{ "go test ./...", "go test", TEST, NULL, "./..." },
	{ "go vet ./...", "go vet", ANALYSIS, NULL, "./..." },
	{ "go build ./cmd/x", "go build", ANALYSIS, NULL, "./cmd/x" },
	{ "go -C svc test ./...", "go test", TEST, "svc", "./..." },
	{ "cargo test", "cargo test", TEST, NULL, "" },
	{ "cargo build --release", "cargo build", ANALYSIS, NULL, "--release" },
	{ "cargo check", "cargo check", ANALYSIS, NULL, "" },
	{ "cargo clippy -- -D warnings", "cargo clippy", ANALYSIS, NULL, "-- -D warnings" },
	{ "cargo +nightly test", "cargo test", TEST, NULL, "+nightly" },
	{ "gcc -Wall -c foo.c", "gcc", ANALYSIS, NULL, "-Wall -c foo.c" },
	{ "g++ -o a a.cpp", "g++", ANALYSIS, NULL, "-o a a.cpp" },
	{ "clang -c x.c", "clang", ANALYSIS, NULL, "-c x.c" },
	{ "clang++ -std=c++17 a.cpp", "clang++", ANALYSIS, NULL, "-std=c++17 a.cpp" },
	{ "cc -o x x.c", "cc", ANALYSIS, NULL, "-o x x.c" },
	{ "c++ a.cc", "c++", ANALYSIS, NULL, "a.cc" },
	{ "gcc-12 -c x.c", "gcc", ANALYSIS, NULL, "-c x.c" },
	{ "/usr/bin/clang-17 -c x.c", "clang", ANALYSIS, NULL, "-c x.c" },
	{ "make", "make", ANALYSIS, NULL, "" },
	{ "make -j8", "make", ANALYSIS, NULL, "-j8" },
	{ "make test", "make", TEST, NULL, "test" },
	{ "make -j 4 test", "make", TEST, NULL, "-j 4 test" },
	{ "make CC=clang check", "make", TEST, NULL, "CC=clang check" },
	{ "make all", "make", ANALYSIS, NULL, "all" },
	{ "make --directory=lib -f Build.mk check", "make", TEST, "lib", "-f Build.mk check" },
	{ "ctest --output-on-failure", "ctest", TEST, NULL, "--output-on-failure" },
	{ "shellcheck scripts/*.sh", "shellcheck", LINT, NULL, "'scripts/*.sh'" },
	{ "cppcheck src", "cppcheck", LINT, NULL, "src" },
	{ "clang-tidy src/a.c --", "clang-tidy", LINT, NULL, "src/a.c --" },
	/* ninja says where it went ("Entering directory"), as it was told */
	{ "ninja -C build", "ninja", ANALYSIS, NULL, "-C build" },
	{ "meson compile -C builddir", "meson compile", ANALYSIS, NULL, "-C builddir" },
	{ "cmake --build build", "cmake --build", ANALYSIS, NULL, "build" },

	/* the JVM, Ruby, PHP, Perl, Elixir */
	{ "javac -d out src/A.java", "javac", ANALYSIS, NULL, "-d out src/A.java" },
	{ "kotlinc src -d out", "kotlinc", ANALYSIS, NULL, "src -d out" },
	{ "mvn -q test", "mvn", TEST, NULL, "-q test" },
	{ "./mvnw verify", "mvn", TEST, NULL, "verify" },
	{ "rspec spec/a_spec.rb", "rspec", TEST, NULL, "spec/a_spec.rb" },
	{ "bundle exec rspec", "rspec", TEST, NULL, "" },
	{ "bundle exec rake test", "rake test", TEST, NULL, "" },
	{ "bin/rails test", "rails test", TEST, NULL, "" },
	{ "ruby -Itest test/test_cart.rb", "minitest", TEST, NULL, "test/test_cart.rb" },
	{ "ruby test/test_cart.rb", "minitest", TEST, NULL, "" },
	{ "rubocop lib", "rubocop", LINT, NULL, "lib" },
	{ "vendor/bin/phpunit", "phpunit", TEST, NULL, "" },
	{ "php vendor/bin/phpunit --filter x", "phpunit", TEST, NULL, "--filter x" },
	{ "php -l src/A.php", "php -l", LINT, NULL, "src/A.php" },
	{ "prove -l t", "prove", TEST, NULL, "-l t" },
	{ "mix test", "mix test", TEST, NULL, "" },

	/* more Python and JavaScript */
	{ "pyflakes3 app", "pyflakes", LINT, NULL, "app" },
	{ "python3 -m pyflakes .", "pyflakes", LINT, NULL, "." },
	{ "npx pyright", "pyright", ANALYSIS, NULL, "" },
	{ "bandit -r app", "bandit", LINT, NULL, "-r app" },
	{ "black --check .", "black", LINT, NULL, "--check ." },
	{ "isort --check-only --diff .", "isort", LINT, NULL, "--check-only --diff ." },
	{ "yamllint -f parsable .", "yamllint", LINT, NULL, "-f parsable ." },
	{ "npx prettier --check src", "prettier", LINT, NULL, "--check src" },
	{ "npx biome lint src", "biome", LINT, NULL, "lint src" },
	{ "npx oxlint --deny-warnings", "oxlint", LINT, NULL, "--deny-warnings" },
	{ "npx stylelint '**/*.css'", "stylelint", LINT, NULL, "'**/*.css'" },
	{ "npx markdownlint docs", "markdownlint", LINT, NULL, "docs" },
	{ "npx ava", "ava", TEST, NULL, "" },

	/* package managers */
	{ "npm test", "npm test", TEST, NULL, "" },
	{ "npm t", "npm test", TEST, NULL, "" },
	{ "npm tst", "npm test", TEST, NULL, "" },
	{ "npm run test", "npm test", TEST, NULL, "" },
	{ "npm run test -- --watch", "npm test", TEST, NULL, "-- --watch" },
	{ "npm run-script test", "npm test", TEST, NULL, "" },
	{ "npm run lint", "npm run lint", LINT, NULL, "" },
	{ "npm run lint -- --fix", "npm run lint", LINT, NULL, "-- --fix" },
	{ "npm run -s lint", "npm run lint", LINT, NULL, "-s" },
	{ "npm run test:unit", "npm run test:unit", TEST, NULL, "" },
	{ "npm run lint:css", "npm run lint:css", LINT, NULL, "" },
	{ "npm run check", "npm run check", ANALYSIS, NULL, "" },
	{ "npm run check:types", "npm run check:types", ANALYSIS, NULL, "" },
	{ "npm run typecheck", "npm run typecheck", ANALYSIS, NULL, "" },
	{ "npm run type-check", "npm run type-check", ANALYSIS, NULL, "" },
	{ "npm --prefix web test", "npm test", TEST, "web", "" },
	{ "npm -w packages/a test", "npm test", TEST, NULL, "-w packages/a" },
	{ "npm exec -- eslint .", "eslint", LINT, NULL, "." },
	{ "npm exec --package=typescript -- tsc", "tsc", ANALYSIS, NULL, "" },
	{ "npx tsc --noEmit", "tsc", ANALYSIS, NULL, "--noEmit" },
	{ "npx --yes eslint@8.57.0 src", "eslint", LINT, NULL, "src" },
	{ "npx -c 'eslint .'", "eslint", LINT, NULL, "." },
	{ "pnpm test", "pnpm test", TEST, NULL, "" },
	{ "pnpm t", "pnpm test", TEST, NULL, "" },
	{ "pnpm run test", "pnpm test", TEST, NULL, "" },
	{ "pnpm lint", "pnpm run lint", LINT, NULL, "" },
	{ "pnpm lint:fix", "pnpm run lint:fix", LINT, NULL, "" },
	{ "pnpm test:e2e", "pnpm run test:e2e", TEST, NULL, "" },
	{ "pnpm typecheck", "pnpm run typecheck", ANALYSIS, NULL, "" },
	{ "pnpm -C web lint", "pnpm run lint", LINT, "web", "" },
	{ "pnpm --filter api test", "pnpm test", TEST, NULL, "--filter api" },
	{ "pnpm exec tsc --noEmit", "tsc", ANALYSIS, NULL, "--noEmit" },
	{ "pnpm dlx eslint .", "eslint", LINT, NULL, "." },
	{ "pnpm vitest run", "vitest", TEST, NULL, "run" },
	{ "pnpx jest", "jest", TEST, NULL, "" },
	{ "yarn test", "yarn test", TEST, NULL, "" },
	{ "yarn run test", "yarn test", TEST, NULL, "" },
	{ "yarn lint", "yarn run lint", LINT, NULL, "" },
	{ "yarn run lint:js", "yarn run lint:js", LINT, NULL, "" },
	{ "yarn eslint .", "eslint", LINT, NULL, "." },
	{ "yarn dlx jest", "jest", TEST, NULL, "" },
	{ "yarn --cwd web test", "yarn test", TEST, "web", "" },
	{ "yarn workspace web test", "yarn test", TEST, NULL, "workspace web" },
	{ "bun run lint", "bun run lint", LINT, NULL, "" },
	{ "bun run test", "bun run test", TEST, NULL, "" },
	{ "bun test --watch", "bun test", TEST, NULL, "--watch" },
	{ "bun x vitest", "vitest", TEST, NULL, "" },
	{ "bunx tsc", "tsc", ANALYSIS, NULL, "" },

	/* wrappers and prefixes */
	{ "FOO=\"a b\" BAR=1 pytest", "pytest", TEST, NULL, "" },
	{ "env -i PATH=/bin FOO=1 pytest", "pytest", TEST, NULL, "" },
	{ "env -u HOME -- pytest", "pytest", TEST, NULL, "" },
	{ "env -C web npm test", "npm test", TEST, "web", "" },
	{ "env --chdir=web npm test", "npm test", TEST, "web", "" },
	{ "env -S 'npm test'", "npm test", TEST, NULL, "" },
	{ "time -p pytest", "pytest", TEST, NULL, "" },
	{ "nice -n 10 make", "make", ANALYSIS, NULL, "" },
	{ "nice -5 make", "make", ANALYSIS, NULL, "" },
	{ "nohup pytest &", "pytest", TEST, NULL, "" },
	{ "timeout -s KILL 5m pytest", "pytest", TEST, NULL, "" },
	{ "timeout --kill-after=10 60 go test ./...", "go test", TEST, NULL, "./..." },
	{ "sudo -u ci npm test", "npm test", TEST, NULL, "" },
	{ "sudo -E FOO=1 pytest", "pytest", TEST, NULL, "" },
	{ "xvfb-run -a npm test", "npm test", TEST, NULL, "" },
	{ "xvfb-run --server-args=\"-screen 0 1x1x8\" npm test", "npm test", TEST, NULL, "" },
	{ "command pytest", "pytest", TEST, NULL, "" },
	{ "exec pytest", "pytest", TEST, NULL, "" },
	{ "stdbuf -oL pytest", "pytest", TEST, NULL, "" },
	{ "find . -name '*.sh' | xargs -0 shellcheck", "shellcheck", LINT, NULL, "" },
	{ "uv run pytest -x", "pytest", TEST, NULL, "-x" },
	/* a redaction marker needs no quotes (a queued run's redacted command
	 * names the check its live run named); brackets otherwise do */
	{ "gcc -c f1.c -DTOKEN=[REDACTED:github-token]", "gcc", ANALYSIS, NULL,
	  "-c f1.c -DTOKEN=[REDACTED:github-token]" },
	{ "pytest 'tests/x.py::t[1]' [REDACTED:]", "pytest", TEST, NULL,
	  "'tests/x.py::t[1]' '[REDACTED:]'" },
	{ "pytest \"--k=a [REDACTED:aws-key] b\"", "pytest", TEST, NULL,
	  "'--k=a [REDACTED:aws-key] b'" },
	{ "uv run --with pytest-cov pytest", "pytest", TEST, NULL, "" },
	{ "uvx ruff check", "ruff", LINT, NULL, "check" },
	{ "poetry run pytest", "pytest", TEST, NULL, "" },
	{ "pipenv run flake8", "flake8", LINT, NULL, "" },
	{ "python -W error -m pytest -q", "pytest", TEST, NULL, "-W error -q" },
	{ "python -mpytest", "pytest", TEST, NULL, "" },
	{ "node --experimental-vm-modules node_modules/.bin/jest", "jest", TEST, NULL, "" },
	{ "node ./node_modules/typescript/bin/tsc -p .", "tsc", ANALYSIS, NULL, "-p ." },
	{ "bash -lc 'cd web && npm test'", "npm test", TEST, "web", "" },
	{ "bash -o pipefail -c 'pytest | tee log'", "pytest", TEST, NULL, "" },
	{ "bash scripts/lint.sh; eslint .", "eslint", LINT, NULL, "." },
	{ "if npm test; then echo ok; fi", "npm test", TEST, NULL, "" },
	{ "for f in a b; do pytest $f; done", "pytest", TEST, NULL, "'$f'" },
	{ "! npm test", "npm test", TEST, NULL, "" },
	{ "{ npm test; }", "npm test", TEST, NULL, "" },
	{ "pytest > out.log 2> err.log", "pytest", TEST, NULL, "" },
	{ ">log pytest -q", "pytest", TEST, NULL, "-q" },
	{ "pytest -q &> log", "pytest", TEST, NULL, "-q" },
	{ "pytest <<< input", "pytest", TEST, NULL, "" },
	{ "npm \\\n  test", "npm test", TEST, NULL, "" },

	/* the first verification wins; cd chains */
	{ "eslint . && pytest", "eslint", LINT, NULL, "." },
	{ "npm install && npm test", "npm test", TEST, NULL, "" },
	{ "npm ci; npm run build; npm run lint", "npm run lint", LINT, NULL, "" },
	{ "cd web && cd src && eslint .", "eslint", LINT, "web/src", "." },
	{ "cd /abs/dir && cd sub && make test", "make", TEST, "/abs/dir/sub", "test" },
	{ "cd ./web/ && pytest", "pytest", TEST, "web", "" },
	{ "cd web && cd /other && pytest", "pytest", TEST, "/other", "" },
	{ "cd ~/proj && pytest", "pytest", TEST, "~/proj", "" },
	{ "cd \"my dir\" && pytest", "pytest", TEST, "my dir", "" },
	{ "cd -P web && pytest", "pytest", TEST, "web", "" },
	{ "cd web && env -C sub make", "make", ANALYSIS, "web/sub", "" },
	{ "cd web && (cd sub && npm run build) && npm test", "npm test", TEST, "web", "" },
	{ "(cd web && npm run build); npm test", "npm test", TEST, NULL, "" },
	{ "cd web && cd - && npm test", "npm test", TEST, NULL, "" },
	{ "cd . && pytest", "pytest", TEST, NULL, "" },
	{ "pushd web && pytest", "pytest", TEST, "web", "" },
	{ "cd a && bash -c 'cd b && pytest'", "pytest", TEST, "a/b", "" },
	{ "cd web\nnpm test", "npm test", TEST, "web", "" },
	{ "echo $(cd x) && pytest", "pytest", TEST, NULL, "" },
	{ "eslint --version .", "eslint", LINT, NULL, "--version ." },

	/* here-documents are skipped, what follows them is not */
	{ "cat <<EOF\nnot a command\nEOF\nnpm test", "npm test", TEST, NULL, "" },
	{ "cat <<EOF | pytest -q\nbody\nEOF", "pytest", TEST, NULL, "-q" },
	{ "cat <<-'END' >x\n\tnpm test\n\tEND\npytest", "pytest", TEST, NULL, "" },
};

static const char *const negatives[] = {
	"ls",
	"ls -la",
	"cat x",
	"git commit -m \"fix eslint\"",
	"git commit -m 'make tests pass'",
	"grep -r jest .",
	"curl https://example.com/pytest",
	"echo pytest",
	"echo npm test",
	"rm -rf node_modules",
	"npm install",
	"npm i -D eslint",
	"npm run dev",
	"npm run build",
	"npm start",
	"node script.js",
	"node test.js",
	"node -e 'require(\"jest\")'",
	"python app.py",
	"python -c 'import pytest'",
	"python manage.py runserver",
	"cat package.json | grep test",
	"vim eslint.config.js",
	"code .",
	"which eslint",
	"command -v pytest",
	"type pytest",
	"man gcc",
	"pip install pytest",
	"apt-get install gcc",
	"brew install shellcheck",
	"yarn add -D jest",
	"pnpm install",
	"go run main.go",
	"go mod tidy",
	"cargo run",
	"cargo install ripgrep",
	"npx create-react-app my-app",
	"npx prettier --write .",
	"black .",
	"isort src",
	"ruby script.rb",
	"php artisan serve",
	"perl Makefile.PL",
	"uv pip install pytest",
	"poetry install",
	"docker run node npm test",
	"echo $(npm test)",
	"echo `pytest`",
	"x=$(make check)",
	"diff <(npm test) expected",
	"echo \"$(eslint .)\"",
	"echo hi # npm test",
	"# npm test",
	"cat <<EOF > x.sh\nnpm test\nEOF",
	"git commit -m \"$(cat <<'EOF'\nFix eslint and don't run npm test\n\nCo-authored-by: x\nEOF\n)\"",
	"cat <<'EOF'\nit's (unbalanced\nEOF",
	"eslint --version",
	"pytest --help",
	"gcc -V",
	"make --version",
	"npm test \"unterminated",
	"npm test 'unterminated",
	"npm test )",
	"(npm test",
	"echo $(npm test",
	"echo `npm test",
	"bash -c \"bash -c 'pytest'\"",
	"sh",
	"bash -s",
	"sudo -l pytest",
	"env",
	"time",
	"FOO=1",
	"\"FOO=1\" ls",
	"",
	"   ",
	";;",
	"&& ||",
	"cd web",
	"cd web && ls",
	"echo test > eslint",
	"cat < pytest",
};

static void check_positive(const callus_whitelist *wl, const struct positive *p)
{
	callus_detection d;
	callus_error err = CALLUS_ERROR_INIT;

	if (callus_detect(&d, wl, p->command, &err) != 0)
		fail_msg("%s: %s", p->command, callus_error_message(&err));
	if (!d.verification)
		fail_msg("not detected: %s", p->command);
	if (strcmp(d.tool, p->tool))
		fail_msg("%s: tool '%s', want '%s'", p->command, d.tool, p->tool);
	if (d.category != p->category)
		fail_msg("%s: category %d, want %d", p->command, (int)d.category, (int)p->category);
	if ((d.dir == NULL) != (p->dir == NULL) || (d.dir && strcmp(d.dir, p->dir)))
		fail_msg("%s: dir '%s', want '%s'", p->command, d.dir ? d.dir : "(null)",
			 p->dir ? p->dir : "(null)");
	if (strcmp(d.args, p->args))
		fail_msg("%s: args '%s', want '%s'", p->command, d.args, p->args);
	callus_detection_release(&d);
	assert_null(d.tool);
	assert_int_equal(d.verification, 0);
}

static void check_negative(const callus_whitelist *wl, const char *command)
{
	callus_detection d;

	assert_int_equal(callus_detect(&d, wl, command, NULL), 0);
	if (d.verification)
		fail_msg("detected as '%s': %s", d.tool, command);
	assert_null(d.tool);
	assert_null(d.dir);
	assert_null(d.args);
	callus_detection_release(&d);
}

static void test_positives(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(positives) / sizeof(positives[0]); i++)
		check_positive(NULL, &positives[i]);
}

static void test_negatives(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(negatives) / sizeof(negatives[0]); i++)
		check_negative(NULL, negatives[i]);
}

/* An empty config gives the same answers as no config. */
static void test_empty_config_is_builtins(void **state)
{
	callus_config *cfg = NULL;
	callus_whitelist *wl = NULL;

	(void)state;
	assert_int_equal(callus_config_parse(&cfg, "[lessons]\nmax = 3\n", 18, NULL, NULL), 0);
	assert_int_equal(callus_whitelist_new(&wl, cfg, NULL), 0);
	callus_config_free(cfg);
	for (size_t i = 0; i < sizeof(positives) / sizeof(positives[0]); i++)
		check_positive(wl, &positives[i]);
	for (size_t i = 0; i < sizeof(negatives) / sizeof(negatives[0]); i++)
		check_negative(wl, negatives[i]);
	callus_whitelist_free(wl);
}

/* Every built-in pattern, run as a command, is detected with its own
 * category and tool name, and no two share a text. */
static void test_builtins_match_themselves(void **state)
{
	const callus_pattern *b;

	(void)state;
	for (size_t i = 0; (b = callus_whitelist_builtin(i)); i++) {
		callus_buf cmd = CALLUS_BUF_INIT, tool = CALLUS_BUF_INIT;
		callus_detection d;

		for (size_t j = 0; j < i; j++)
			if (!strcmp(callus_whitelist_builtin(j)->pattern, b->pattern))
				fail_msg("duplicate built-in pattern '%s'", b->pattern);
		for (const char *p = b->pattern; *p; p++)
			if (*p == '*')
				callus_buf_puts(&cmd, "x");
			else
				callus_buf_putc(&cmd, *p);
		if (!b->tool) {
			callus_buf_puts(&tool, cmd.ptr);
		} else {
			/* the word with the '*' replaces the '*' of the name */
			const char *star = strchr(cmd.ptr, ':');
			const char *word = star ? strrchr(cmd.ptr, ' ') + 1 : NULL;

			for (const char *p = b->tool; *p; p++)
				if (*p == '*' && word)
					callus_buf_puts(&tool, word);
				else
					callus_buf_putc(&tool, *p);
		}
		assert_int_equal(callus_detect(&d, NULL, cmd.ptr, NULL), 0);
		if (!d.verification)
			fail_msg("built-in '%s' not detected as '%s'", b->pattern, cmd.ptr);
		if (d.category != b->category)
			fail_msg("built-in '%s': category %d, want %d", b->pattern, (int)d.category,
				 (int)b->category);
		if (strcmp(d.tool, tool.ptr))
			fail_msg("built-in '%s': tool '%s', want '%s'", b->pattern, d.tool, tool.ptr);
		callus_detection_release(&d);
		callus_buf_release(&cmd);
		callus_buf_release(&tool);
	}
	assert_null(callus_whitelist_builtin((size_t)-1));
}

/* docs/config.md lists every built-in pattern (as `pattern` in a table). */
static void test_builtins_are_documented(void **state)
{
	static const char *const paths[] = { "docs/config.md", "../docs/config.md",
					     "../../docs/config.md" };
	callus_buf doc = CALLUS_BUF_INIT;
	const callus_pattern *b;
	FILE *f = NULL;
	char chunk[4096];
	size_t n;

	(void)state;
	for (size_t i = 0; i < 3 && !f; i++)
		f = fopen(paths[i], "r");
	if (!f) {
		skip(); /* run from the repository root to check the docs */
		return;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		callus_buf_put(&doc, chunk, n);
	fclose(f);
	for (size_t i = 0; (b = callus_whitelist_builtin(i)); i++) {
		callus_buf needle = CALLUS_BUF_INIT;

		callus_buf_printf(&needle, "| `%s` |", b->pattern);
		if (!strstr(doc.ptr, needle.ptr))
			fail_msg("docs/config.md does not list the built-in '%s'", b->pattern);
		callus_buf_release(&needle);
	}
	callus_buf_release(&doc);
}

static callus_whitelist *whitelist_from(const char *text)
{
	callus_config *cfg = NULL;
	callus_whitelist *wl = NULL;
	callus_error err = CALLUS_ERROR_INIT;

	if (callus_config_parse(&cfg, text, strlen(text), ".callus/config", &err) != 0 ||
	    callus_whitelist_new(&wl, cfg, &err) != 0)
		fail_msg("%s", callus_error_message(&err));
	/* the whitelist keeps its own copies */
	callus_config_free(cfg);
	return wl;
}

static void whitelist_fails(const char *text, const char *msg)
{
	callus_config *cfg = NULL;
	callus_whitelist *wl = (callus_whitelist *)1;
	callus_error err = CALLUS_ERROR_INIT;

	assert_int_equal(callus_config_parse(&cfg, text, strlen(text), ".callus/config", NULL), 0);
	assert_int_equal(callus_whitelist_new(&wl, cfg, &err), CALLUS_EINVAL);
	assert_null(wl);
	assert_string_equal(callus_error_message(&err), msg);
	callus_error_release(&err);
	callus_config_free(cfg);
}

static void test_config_add(void **state)
{
	callus_whitelist *wl = whitelist_from("[verify]\n"
					    "add = ./scripts/check.sh TEST\n"
					    "add = just test\n"
					    "add = dune build LINT\n"
					    "add = npm run e2e:* TEST\n"
					    "add = python3 -m tox ANALYSIS\n"
					    "add = mytool            # no category: OTHER\n"
					    "add = eslint ANALYSIS\n");
	static const struct positive added[] = {
		{ "./scripts/check.sh", "check.sh", TEST, NULL, "" },
		{ "cd x && ./scripts/check.sh --fast", "check.sh", TEST, "x", "--fast" },
		{ "bash scripts/check.sh", "check.sh", TEST, NULL, "" },
		{ "just test unit", "just test", OTHER, NULL, "unit" },
		{ "dune build @fmt", "dune build", LINT, NULL, "@fmt" },
		{ "npm run e2e:chrome", "npm run e2e:chrome", TEST, NULL, "" },
		{ "python -m tox -e py311", "python -m tox", ANALYSIS, NULL, "-e py311" },
		{ "mytool --all", "mytool", OTHER, NULL, "--all" },
		/* an added pattern as long as a built-in one overrides it */
		{ "eslint .", "eslint", ANALYSIS, NULL, "." },
		/* the built-ins are still there */
		{ "npm test", "npm test", TEST, NULL, "" },
	};
	static const char *const still_not[] = { "just build", "deno run x.ts", "npm run e2e",
						 "echo mytool" };

	(void)state;
	for (size_t i = 0; i < sizeof(added) / sizeof(added[0]); i++)
		check_positive(wl, &added[i]);
	for (size_t i = 0; i < sizeof(still_not) / sizeof(still_not[0]); i++)
		check_negative(wl, still_not[i]);
	callus_whitelist_free(wl);
}

static void test_config_remove(void **state)
{
	callus_whitelist *wl = whitelist_from("[verify]\n"
					    "remove = make\n"
					    "remove =   gcc  \n"
					    "REMOVE = npm run lint:*\n"
					    "remove = \"python -m pytest\"\n");
	static const struct positive kept[] = {
		/* only the pattern named goes: make check is its own pattern */
		{ "make check", "make", TEST, NULL, "check" },
		{ "clang -c x.c", "clang", ANALYSIS, NULL, "-c x.c" },
		{ "npm run lint", "npm run lint", LINT, NULL, "" },
		{ "pytest -q", "pytest", TEST, NULL, "-q" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		check_positive(wl, &kept[i]);
	check_negative(wl, "make");
	check_negative(wl, "make -j4 all");
	check_negative(wl, "gcc -c x.c");
	check_negative(wl, "npm run lint:fix");
	check_negative(wl, "python3 -m pytest -q");
	/* a pnpm shorthand no longer runs gcc through `pnpm gcc` */
	check_negative(wl, "pnpm gcc");
	callus_whitelist_free(wl);
}

static void test_config_errors(void **state)
{
	(void)state;
	whitelist_fails("[verify]\nadd = x\n\nremove = mak\n",
			"'.callus/config' line 4: 'remove = mak' names no built-in pattern "
			"(see docs/config.md)");
	whitelist_fails("[verify]\nremove = python3 -m pytest\n",
			"'.callus/config' line 2: 'remove = python3 -m pytest' names no built-in "
			"pattern (see docs/config.md)");
	whitelist_fails("[verify]\nadd = TEST\n", "'.callus/config' line 2: pattern 'TEST' is empty");
	whitelist_fails("[verify]\nadd =\n", "'.callus/config' line 2: pattern '' is empty");
	whitelist_fails("[verify]\nadd = a && b\n",
			"'.callus/config' line 2: pattern 'a && b' must be one command, without "
			"operators or redirections");
	whitelist_fails("[verify]\nadd = a > log\n",
			"'.callus/config' line 2: pattern 'a > log' must be one command, without "
			"operators or redirections");
	whitelist_fails("[verify]\nadd = \"x 'y\"\n",
			"'.callus/config' line 2: pattern 'x 'y' cannot be parsed (unbalanced quote "
			"or parenthesis?)");
	whitelist_fails("[verify]\nadd = cd web\n",
			"'.callus/config' line 2: pattern 'cd web' does not name a program");
	whitelist_fails("[verify]\nadd = FOO=1\n",
			"'.callus/config' line 2: pattern 'FOO=1' does not name a program");
	whitelist_fails("[verify]\nadd = bash -c x\n",
			"'.callus/config' line 2: pattern 'bash -c x' does not name a program");
	whitelist_fails("[verify]\nadd = tool* TEST\n",
			"'.callus/config' line 2: pattern 'tool* TEST' cannot start with a wildcard");
	whitelist_fails("[verify]\nadd = tool 'a b'\n",
			"'.callus/config' line 2: pattern 'tool 'a b'' has an empty word or a word "
			"with spaces");
}

/* A category is only an all-caps last word. */
static void test_config_category_words(void **state)
{
	callus_whitelist *wl = whitelist_from("[verify]\nadd = tool lint\nadd = other OTHER\n"
					    "add = t3 TEST LINT\n");
	static const struct positive p[] = {
		{ "tool lint x", "tool lint", OTHER, NULL, "x" },
		{ "other", "other", OTHER, NULL, "" },
		{ "t3 TEST", "t3 TEST", LINT, NULL, "" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		check_positive(wl, &p[i]);
	check_negative(wl, "tool");
	check_negative(wl, "t3");
	callus_whitelist_free(wl);
}

/* Which lines can hide the tool's exit status: a 0 from them proves no pass. */
static void test_status_masked(void **state)
{
	static const struct {
		const char *command;
		int masked;
	} cases[] = {
		{ "npx eslint src", 0 },
		{ "cd web && npx eslint src", 0 },
		{ "npx eslint src && echo ok", 0 },
		{ "npx eslint src;", 0 },
		{ "cat list | xargs eslint", 0 },
		{ "npx eslint src 2>&1 | tail -n 5", 1 },
		{ "set -o pipefail; npx eslint src 2>&1 | tail -n 5", 0 },
		{ "npx eslint src || true", 1 },
		{ "npx eslint src; true", 1 },
		{ "npx eslint src\necho done", 1 },
		{ "npx eslint src &", 1 },
		{ "! npx eslint src", 1 },
		{ "npx eslint src && echo ok || echo bad", 1 },
		{ "npx eslint src && npm test | tee log", 0 },
		{ "(cd web && npx eslint src) | tail", 1 },
		{ "sh -c 'npx eslint src | tail'", 1 },
		{ "bash -c 'npx eslint src' || true", 1 },
		{ "pytest -x; echo $?", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		callus_detection d;

		assert_int_equal(callus_detect(&d, NULL, cases[i].command, NULL), 0);
		if (!d.verification || d.status_masked != cases[i].masked)
			fail_msg("'%s': verification %d, masked %d (want 1, %d)", cases[i].command,
				 d.verification, d.status_masked, cases[i].masked);
		callus_detection_release(&d);
	}
}

/* Args redacted once detected, quoted again as a detection of the redacted
 * line quotes them: a marker needs no quotes, anything else keeps its own;
 * args that are no list of words (an unterminated quote a redaction left,
 * an operator) are kept as they are. */
static void test_requote(void **state)
{
	static const char *const cases[][2] = {
		{ "'-DPASSWORD=[REDACTED:secret-assignment]'", "-DPASSWORD=[REDACTED:secret-assignment]" },
		{ "-c f1.c '-DTOKEN=[REDACTED:github-token]' -O2", "-c f1.c -DTOKEN=[REDACTED:github-token] -O2" },
		{ "'--k=a [REDACTED:aws-key] b'", "'--k=a [REDACTED:aws-key] b'" },
		{ "'tests/x.py::t[1]'", "'tests/x.py::t[1]'" },
		{ "'it'\\''s'", "'it'\\''s'" },
		{ "'--password=[REDACTED:cli-password]", "'--password=[REDACTED:cli-password]" },
		{ "a && b", "a && b" },
		{ "", "" },
	};
	char *out = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(callus_detect_requote(&out, cases[i][0]), 0);
		if (strcmp(out, cases[i][1]))
			fail_msg("%s: '%s', want '%s'", cases[i][0], out, cases[i][1]);
		free(out);
	}
	assert_int_equal(callus_detect_requote(&out, NULL), CALLUS_EINVAL);
	assert_null(out);
}

/* A command whose redaction took a script's closing quote (the secret's
 * value ran into it) reads again with the quote closed, and names the
 * check the live command named; nothing else is touched. */
static void test_close_quote(void **state)
{
	static const char *const cases[][2] = {
		{ "bash -c 'gcc -c f1.c --password=[REDACTED:cli-password]",
		  "bash -c 'gcc -c f1.c --password=[REDACTED:cli-password]'" },
		{ "sh -c \"make test --token [REDACTED:cli-password]",
		  "sh -c \"make test --token [REDACTED:cli-password]\"" },
		/* a quote taken from the middle of the line, not with its end:
		 * closed at the end, it would read as another command */
		{ "bash -c 'DB_PASSWORD=\"[REDACTED:secret-assignment]\"'\"'\"'x\" pytest -x; ruff check .'",
		  NULL },
		/* read whole already, or no redaction: nothing to close */
		{ "make test --token [REDACTED:cli-password]", NULL },
		{ "gcc -c f1.c '-DTOKEN=[REDACTED:github-token]'", NULL },
		{ "bash -c 'gcc -c f1.c", NULL },
		{ "", NULL },
	};
	callus_whitelist *wl = NULL;
	callus_detection live, drained;
	char *out = NULL, *args = NULL;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		out = callus_detect_close_quote(cases[i][0]);
		if (cases[i][1] ? !out || strcmp(out, cases[i][1]) : out != NULL)
			fail_msg("%s: '%s', want '%s'", cases[i][0], out ? out : "(null)",
				 cases[i][1] ? cases[i][1] : "(null)");
		free(out);
	}
	assert_null(callus_detect_close_quote(NULL));

	/* the check the live command names, its args redacted as stored */
	assert_int_equal(callus_whitelist_new(&wl, NULL, NULL), 0);
	memset(&live, 0, sizeof(live));
	memset(&drained, 0, sizeof(drained));
	assert_int_equal(callus_detect(&live, wl, "bash -c 'gcc -c f1.c --password=[REDACTED:cli-password]'",
				       NULL), 0);
	assert_non_null(out = callus_detect_close_quote("bash -c 'gcc -c f1.c "
							"--password=[REDACTED:cli-password]"));
	assert_int_equal(callus_detect(&drained, wl, out, NULL), 0);
	assert_true(live.verification && drained.verification);
	assert_string_equal(live.tool, drained.tool);
	assert_int_equal(callus_detect_requote(&args, drained.args), 0);
	assert_string_equal(args, "-c f1.c --password=[REDACTED:cli-password]");
	free(args);
	free(out);
	callus_detection_release(&live);
	callus_detection_release(&drained);
	callus_whitelist_free(wl);
}

static void test_bad_arguments(void **state)
{
	callus_detection d;
	callus_whitelist *wl = NULL;
	callus_error err = CALLUS_ERROR_INIT;

	(void)state;
	assert_int_equal(callus_detect(&d, NULL, NULL, &err), CALLUS_EINVAL);
	assert_non_null(err.msg);
	callus_error_release(&err);
	assert_int_equal(callus_detect(NULL, NULL, "npm test", NULL), CALLUS_EINVAL);
	assert_int_equal(callus_whitelist_new(NULL, NULL, NULL), CALLUS_EINVAL);
	assert_int_equal(callus_whitelist_new(&wl, NULL, NULL), 0);
	assert_non_null(wl);
	callus_whitelist_free(wl);
	callus_whitelist_free(NULL);
	callus_detection_release(NULL);
}

/* Hostile shapes: deep nesting, huge lines; no crash, linear time. */
static void test_hostile_input(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;
	callus_detection d;
	clock_t t0;

	(void)state;
	for (int i = 0; i < 100000; i++)
		callus_buf_puts(&b, "$(");
	assert_int_equal(callus_detect(&d, NULL, b.ptr, NULL), 0);
	assert_int_equal(d.verification, 0);
	callus_buf_clear(&b);

	for (int i = 0; i < 100000; i++)
		callus_buf_puts(&b, "((((");
	callus_buf_puts(&b, "npm test");
	assert_int_equal(callus_detect(&d, NULL, b.ptr, NULL), 0);
	assert_int_equal(d.verification, 0); /* unbalanced */
	callus_buf_clear(&b);

	/* 1 MB of commands before the verification */
	t0 = clock();
	while (b.len < 1000000)
		callus_buf_puts(&b, "echo 'a b' \"c $(d) e\" | grep -v x; cd y && ls -la >/dev/null\n");
	callus_buf_puts(&b, "npm test");
	assert_int_equal(callus_detect(&d, NULL, b.ptr, NULL), 0);
	assert_int_equal(d.verification, 1);
	assert_string_equal(d.tool, "npm test");
	assert_non_null(d.dir);
	callus_detection_release(&d);
	/* generous: about 20 ms without sanitizers */
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
	callus_buf_release(&b);
}

/* The hook runs this on every command: the non-verification path must stay
 * far below a millisecond (the bench measures it properly). */
static void test_fast_enough(void **state)
{
	static const char *const lines[] = {
		"ls -la",
		"git status && git diff --stat",
		"cat package.json | grep -n \"test\" | head -5",
		"git commit -m \"$(cat <<'EOF'\nfix: eslint warnings\nEOF\n)\"",
	};
	callus_detection d;
	clock_t t0 = clock();
	double per_call;

	(void)state;
	for (int i = 0; i < 20000; i++) {
		assert_int_equal(callus_detect(&d, NULL, lines[i % 4], NULL), 0);
		assert_int_equal(d.verification, 0);
	}
	per_call = (double)(clock() - t0) / CLOCKS_PER_SEC / 20000;
	assert_true(per_call < 100e-6); /* measured: about 1 us */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_positives),
		cmocka_unit_test(test_requote),
		cmocka_unit_test(test_close_quote),
		cmocka_unit_test(test_status_masked),
		cmocka_unit_test(test_negatives),
		cmocka_unit_test(test_empty_config_is_builtins),
		cmocka_unit_test(test_builtins_match_themselves),
		cmocka_unit_test(test_builtins_are_documented),
		cmocka_unit_test(test_config_add),
		cmocka_unit_test(test_config_remove),
		cmocka_unit_test(test_config_errors),
		cmocka_unit_test(test_config_category_words),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_hostile_input),
		cmocka_unit_test(test_fast_enough),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
