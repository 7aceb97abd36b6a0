/*
 * test_parse_ecosystems.c - the parsers of the tools beyond the JavaScript
 * and native families' first members: the JVM (javac, kotlinc, Maven, Gradle),
 * Ruby (rspec, minitest, rubocop), PHP (phpunit, php -l), Perl (prove and
 * TAP), Elixir (ExUnit), Python's pyflakes, pyright, bandit, black and
 * isort, clang-tidy, ninja (meson, CMake), and the linters biome, oxlint,
 * prettier, stylelint, markdownlint, yamllint, AVA, bun test, deno test,
 * deno lint and Playwright test; and the fallback's
 * JUnit XML and TAP for a tool callus does not know.
 *
 * The samples are the corpus's own outputs (tests/corpus/cases/ID/output.txt,
 * printed by the real tools in /tmp/callus-corpus/PROJECT: the workspace
 * here), each through the whole pipeline as `callus run` does it: capture in
 * pipe-sized pieces, the parser chosen by the tool's name (then by content,
 * under `npm test`), analysis.  The expected fields were checked against
 * the corpus's ground truth (case.json).  Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/analysis.h"
#include "callus/capture.h"
#include "callus/parse.h"
#include "parse_helpers.h"

#define CASES "tests/corpus/cases/"
#define ROOT "/tmp/callus-corpus/"

typedef parse_want want;

#define END PARSE_WANT_END

typedef struct tcase {
	const char *sample, *tool, *project, *cwd, *parser;
	size_t count;
	const char *files;   /* affected files, '|'-separated */
	const char *same_as; /* or: the very same analysis as this sample's */
	want wants[4];
} tcase;

/* The analysis of data as a failed run of tool in ROOT/project/cwd. */
static void analyse_data(callus_failure *f, const char *tool, const char *data, size_t len,
			 const char *project, const char *cwd)
{
	parse_analyse(f, tool, 1, data, len, ROOT, project, cwd);
}

static void analyse(callus_failure *f, const char *tool, const char *sample, const char *project,
		    const char *cwd)
{
	callus_buf path = CALLUS_BUF_INIT;
	size_t len;
	char *data;

	callus_buf_printf(&path, CASES "%s/output.txt", sample);
	data = parse_read(path.ptr, &len);
	analyse_data(f, tool, data, len, project, cwd);
	free(data);
	callus_buf_release(&path);
}

static const tcase cases[] = {
	{ "javac", "javac", "java-app", "", "javac", 3,
	  "src/main/java/shop/Cart.java|src/main/java/shop/Inventory.java", NULL,
	  {
		{ 0, "src/main/java/shop/Cart.java", 15, 0, NULL, "error", NULL,
		  "incompatible types: String cannot be converted to int", NULL },
		{ 2, "src/main/java/shop/Inventory.java", 19, 0, NULL, "error", NULL,
		  "cannot find symbol", NULL },
		END } },
	{ "javac-werror", "javac", "java-app", "", "javac", 1,
	  "src/main/java/shop/Legacy.java", NULL,
	  {
		{ 0, "src/main/java/shop/Legacy.java", 14, 0, "unchecked", "warning", NULL,
		  "unchecked conversion", NULL },
		END } },
	{ "kotlinc", "kotlinc", "java-app", "", "kotlinc", 3,
	  "src/main/kotlin/shop/Labels.kt", NULL,
	  {
		{ 0, "src/main/kotlin/shop/Labels.kt", 4, 25, NULL, "error", NULL,
		  "type mismatch: inferred type is Int but String was expected", NULL },
		{ 2, "src/main/kotlin/shop/Labels.kt", 13, 27, NULL, "error", NULL,
		  "type inference failed. Expected type mismatch: inferred type is String but Int was expected", NULL },
		END } },
	{ "mvn-test", "mvn", "maven-app", "", "maven", 4,
	  "src/test/java/bank/AccountTest.java|src/test/java/bank/LedgerTest.java", NULL,
	  {
		{ 0, "src/test/java/bank/AccountTest.java", 18, 0, "AssertionError", "error", "bank.AccountTest.interestIsAPercentage",
		  "expected:<50> but was:<5>", "interestIsAPercentage@src/test/java/bank/AccountTest.java" },
		{ 3, "src/test/java/bank/LedgerTest.java", 18, 0, "IndexOutOfBoundsException", "error", "bank.LedgerTest.lastOfAnEmptyLedger",
		  "Index -1 out of bounds for length 0", "lastOfAnEmptyLedger@src/test/java/bank/LedgerTest.java" },
		END } },
	{ "mvn-compile-error", "mvn", "maven-app", "", "maven", 2,
	  "broken/src/main/java/bank/Transfer.java", NULL,
	  {
		{ 0, "broken/src/main/java/bank/Transfer.java", 16, 16, NULL, "error", NULL,
		  "incompatible types: possible lossy conversion from long to int", NULL },
		{ 1, "broken/src/main/java/bank/Transfer.java", 20, 44, NULL, "error", NULL,
		  "cannot find symbol", NULL },
		END } },
	{ "rspec", "rspec", "ruby-app", "", "rspec", 4,
	  "spec/cart_spec.rb|lib/cart.rb|lib/discount.rb|spec/discount_spec.rb", NULL,
	  {
		{ 0, "spec/cart_spec.rb", 9, 0, NULL, "error", "Cart#total sums the prices",
		  "expected: 30 got: 29", NULL },
		{ 3, "lib/discount.rb", 6, 0, "ArgumentError", "error", "Discount accepts a full discount",
		  "percent out of range: 150", "apply@lib/discount.rb" },
		END } },
	{ "rake-test", "rake test", "ruby-app", "", "minitest", 3,
	  "lib/discount.rb|test/test_discount.rb|lib/cart.rb|test/test_cart.rb", NULL,
	  {
		{ 0, "lib/discount.rb", 6, 0, "ArgumentError", "error", "TestDiscount#test_full_discount",
		  "percent out of range: 150", "apply@lib/discount.rb|test_full_discount@test/test_discount.rb" },
		{ 2, "test/test_cart.rb", 9, 0, NULL, "error", "TestCart#test_total",
		  "Expected: 30 Actual: 29", NULL },
		END } },
	{ "minitest-file", "minitest", "ruby-app", "", "minitest", 2,
	  "lib/cart.rb|test/test_cart.rb", NULL,
	  {
		{ 0, "lib/cart.rb", 25, 0, "NoMethodError", "error", "TestCart#test_find_missing",
		  "undefined method `fetch' for nil:NilClass", "find@lib/cart.rb|test_find_missing@test/test_cart.rb" },
		{ 1, "test/test_cart.rb", 9, 0, NULL, "error", "TestCart#test_total",
		  "Expected: 30 Actual: 29", NULL },
		END } },
	{ "rubocop", "rubocop", "ruby-app", "", "rubocop", 5,
	  "lib/report.rb", NULL,
	  {
		{ 0, "lib/report.rb", 6, 5, "Lint/UselessAssignment", "warning", NULL,
		  "Useless assignment to variable - unused.", NULL },
		{ 4, "lib/report.rb", 13, 28, "Style/StringLiterals", "warning", NULL,
		  "Prefer single-quoted strings when you don't need string interpolation or special symbols.", NULL },
		END } },
	{ "rubocop-emacs", "rubocop", "ruby-app", "", "rubocop", 5,
	  NULL, "rubocop", { END } },
	{ "phpunit", "phpunit", "php-app", "", "phpunit", 4,
	  "src/Cart.php|tests/CartTest.php|src/Discount.php|tests/DiscountTest.php", NULL,
	  {
		{ 0, "src/Cart.php", 25, 0, NULL, "error", "Shop\\Tests\\CartTest::testPriceOfMissingItem",
		  "Undefined array key \"milk\"", NULL },
		{ 3, "tests/CartTest.php", 21, 0, NULL, "error", "Shop\\Tests\\CartTest::testNames",
		  "Failed asserting that two strings are identical. --- Expected +++ Actual @@ @@ -'tea, cake' +'tea,cake'", NULL },
		END } },
	{ "php-lint", "php -l", "php-app", "", "php", 1,
	  "broken/Invoice.php", NULL,
	  {
		{ 0, "broken/Invoice.php", 12, 0, NULL, "error", NULL,
		  "syntax error, unexpected token \"}\", expecting \";\"", NULL },
		END } },
	{ "prove", "prove", "perl-app", "", "tap", 4,
	  "t/cart.t|lib/Shop/Cart.pm|t/price.t", NULL,
	  {
		{ 0, "t/cart.t", 8, 0, NULL, "error", "total sums the prices",
		  "got: '31' expected: '30'", NULL },
		{ 3, "lib/Shop/Cart.pm", 32, 0, NULL, "error", NULL,
		  "no such item: milk", NULL },
		END } },
	{ "prove-verbose", "prove", "perl-app", "", "tap", 3,
	  "t/cart.t", NULL,
	  {
		{ 0, "t/cart.t", 8, 0, NULL, "error", "total sums the prices",
		  "got: '31' expected: '30'", NULL },
		{ 2, "t/cart.t", 11, 0, NULL, "error", "an empty cart costs nothing",
		  "got: '1' expected: '0'", NULL },
		END } },
	{ "pyflakes", "pyflakes", "py-style", "", "pyflakes", 4,
	  "app/orders.py", NULL,
	  {
		{ 0, "app/orders.py", 2, 1, "F401", "error", NULL,
		  "'os' imported but unused", NULL },
		{ 3, "app/orders.py", 16, 35, "F821", "error", NULL,
		  "undefined name 'customer'", NULL },
		END } },
	{ "pyright", "pyright", "py-pyright", "", "pyright", 5,
	  "store/items.py|store/orders.py", NULL,
	  {
		{ 0, "store/items.py", 12, 17, "reportAttributeAccessIssue", "error", NULL,
		  "Cannot access attribute \"cost\" for class \"Item\"", NULL },
		{ 4, "store/orders.py", 18, 12, "reportUndefinedVariable", "error", NULL,
		  "\"undefined_total\" is not defined", NULL },
		END } },
	{ "bandit", "bandit", "py-style", "", "bandit", 5,
	  "app/shell.py", NULL,
	  {
		{ 0, "app/shell.py", 2, 0, "B404", "warning", NULL,
		  "Consider possible security implications associated with subprocess module.", NULL },
		{ 4, "app/shell.py", 14, 0, "B107", "warning", NULL,
		  "Possible hardcoded password: 'hunter2'", NULL },
		END } },
	{ "black-check", "black", "py-style", "", "black", 1,
	  "app/style.py", NULL,
	  {
		{ 0, "app/style.py", 0, 0, NULL, "error", NULL,
		  "would reformat", NULL },
		END } },
	{ "isort-check", "isort", "py-style", "", "isort", 2,
	  "app/shell.py|app/style.py", NULL,
	  {
		{ 0, "app/shell.py", 0, 0, NULL, "error", NULL,
		  "Imports are incorrectly sorted and/or formatted", NULL },
		{ 1, "app/style.py", 0, 0, NULL, "error", NULL,
		  "Imports are incorrectly sorted and/or formatted", NULL },
		END } },
	{ "clang-tidy", "clang-tidy", "c-tidy", "", "gcc", 3,
	  "src/buffer.c|src/copy.c", NULL,
	  {
		{ 0, "src/buffer.c", 24, 9, "clang-analyzer-unix.Malloc", "error", NULL,
		  "Use of memory after it is freed", NULL },
		{ 2, "src/copy.c", 10, 12, "bugprone-narrowing-conversions", "error", NULL,
		  "narrowing conversion from 'unsigned long' to signed type 'int' is implementation-defined", NULL },
		END } },
	{ "meson-compile", "meson compile", "meson-app", "", "ninja", 3,
	  "src/account.c|src/report.c", NULL,
	  {
		{ 0, "src/account.c", 5, 23, NULL, "error", NULL,
		  "‘cent’ undeclared (first use in this function); did you mean ‘cents’?", NULL },
		{ 2, "src/report.c", 9, 62, NULL, "error", NULL,
		  "‘const struct account’ has no member named ‘balanse’; did you mean ‘balance’?", NULL },
		END } },
	{ "cmake-build-ninja", "cmake --build", "meson-app", "", "ninja", 3,
	  NULL, "meson-compile", { END } },
	{ "mix-test", "mix test", "ex-app", "", "exunit", 3,
	  "test/cart_test.exs|lib/cart.ex", NULL,
	  {
		{ 0, "lib/cart.ex", 13, 0, "MatchError", "error", "test price of a missing item (Shop.CartTest)",
		  "no match of right hand side value: nil", "Shop.Cart.price!/2@lib/cart.ex|test price of a missing item (Shop.CartTest)@test/cart_test.exs" },
		{ 2, "test/cart_test.exs", 8, 0, NULL, "error", "test total sums the prices (Shop.CartTest)",
		  "Assertion with == failed left: 31 right: 30", "test total sums the prices (Shop.CartTest)@test/cart_test.exs" },
		END } },
	{ "biome-lint", "biome", "web-lint", "", "biome", 5,
	  "src/cart.js|src/format.js", NULL,
	  {
		{ 0, "src/cart.js", 13, 9, "lint/correctness/noUnusedVariables", "warning", NULL,
		  "This variable unused is unused.", NULL },
		{ 4, "src/format.js", 2, 12, "lint/style/useTemplate", "info", NULL,
		  "Template literals are preferred over string concatenation.", NULL },
		END } },
	{ "oxlint", "oxlint", "web-lint", "", "oxlint", 2,
	  "src/cart.js", NULL,
	  {
		{ 0, "src/cart.js", 7, 5, "no-debugger", "warning", NULL,
		  "`debugger` statement is not allowed", NULL },
		{ 1, "src/cart.js", 13, 9, "no-unused-vars", "warning", NULL,
		  "Variable 'unused' is declared but never used. Unused variables should start with a '_'.", NULL },
		END } },
	{ "oxlint-unix", "oxlint", "web-lint", "", "oxlint", 2,
	  NULL, "oxlint", { END } },
	{ "prettier-check", "prettier", "web-lint", "", "prettier", 1,
	  "src/format.js", NULL,
	  {
		{ 0, "src/format.js", 0, 0, NULL, "error", NULL,
		  "Code style issues found", NULL },
		END } },
	{ "stylelint", "stylelint", "web-lint", "", "stylelint", 3,
	  "styles/main.css", NULL,
	  {
		{ 0, "styles/main.css", 3, 12, "length-zero-no-unit", "error", NULL,
		  "Unexpected unit", NULL },
		{ 2, "styles/main.css", 10, 8, "block-no-empty", "error", NULL,
		  "Unexpected empty block", NULL },
		END } },
	{ "markdownlint", "markdownlint", "web-lint", "", "markdownlint", 7,
	  "docs/guide.md", NULL,
	  {
		{ 0, "docs/guide.md", 3, 0, "MD022", "error", NULL,
		  "Headings should be surrounded by blank lines [Expected: 1; Actual: 0; Below]", NULL },
		{ 6, "docs/guide.md", 12, 32, "MD009", "error", NULL,
		  "Trailing spaces [Expected: 0 or 2; Actual: 3]", NULL },
		END } },
	{ "yamllint", "yamllint", "web-lint", "", "yamllint", 5,
	  "config/deploy.yaml|config/app.yml", NULL,
	  {
		{ 0, "config/deploy.yaml", 4, 1, "key-duplicates", "error", NULL,
		  "duplication of key \"replicas\" in mapping", NULL },
		{ 4, "config/app.yml", 6, 8, "truthy", "warning", NULL,
		  "truthy value should be one of [false, true]", NULL },
		END } },
	{ "yamllint-parsable", "yamllint", "web-lint", "", "yamllint", 5,
	  NULL, "yamllint", { END } },
	{ "ava", "ava", "ava-app", "", "ava", 3,
	  "test/price.test.js|src/price.js", NULL,
	  {
		{ 0, "test/price.test.js", 5, 0, NULL, "error", "price › adds the tax",
		  "t.is: Difference (- actual, + expected): - 200 + 1200", NULL },
		{ 2, "test/price.test.js", 17, 0, NULL, "error", "price › sorts the tags",
		  "t.deepEqual: Difference (- actual, + expected): [ 'a', - 'b', + 'c', ]", NULL },
		END } },
	/* bun prints the failure first, the test's name after it */
	{ "bun-test", "bun test", "bun-app", "", "bun", 3,
	  "test/cart.test.ts|src/cart.ts", NULL,
	  {
		{ 0, "test/cart.test.ts", 15, 31, NULL, "error", "cart > takes ten percent off",
		  "expect(received).toBe(expected) Expected: 630 Received: -6300",
		  "<anonymous>@test/cart.test.ts" },
		{ 1, "test/cart.test.ts", 19, 27, NULL, "error", "cart > lists the labels",
		  "expect(received).toEqual(expected)", "<anonymous>@test/cart.test.ts" },
		{ 2, "src/cart.ts", 27, 13, NULL, "error", "cart > describes an empty cart",
		  "TypeError: undefined is not an object (evaluating 'first.name')",
		  "describe@src/cart.ts|<anonymous>@test/cart.test.ts" },
		END } },
	{ "bun-run-test", "bun run test", "bun-app", "", "bun", 3, NULL, "bun-test", { END } },
	/* deno's failures under " ERRORS ", node's assert message with its
	 * "3 !== 4" line */
	{ "deno-test", "deno test", "deno-app", "", "deno_test", 3,
	  "tests/report_test.ts|tests/slug_test.ts|src/slug.ts", NULL,
	  {
		{ 0, "tests/report_test.ts", 5, 10, NULL, "error", "counts the words of two lines",
		  "AssertionError: Expected values to be strictly equal: 3 !== 4",
		  "@tests/report_test.ts" },
		{ 2, "src/slug.ts", 13, 17, NULL, "error", "initials of nothing",
		  "TypeError: Cannot read properties of null (reading 'join')",
		  "initials@src/slug.ts|@tests/slug_test.ts" },
		END } },
	{ "deno-test-dot", "deno test", "deno-app", "", "deno_test", 3, NULL, "deno-test", { END } },
	{ "deno-lint", "deno lint", "deno-app", "", "deno_lint", 3, "src/report.ts", NULL,
	  {
		{ 0, "src/report.ts", 5, 9, "no-unused-vars", "error", NULL,
		  "`unused` is never used", NULL },
		{ 2, "src/report.ts", 21, 7, "prefer-const", "error", NULL,
		  "`all` is never reassigned", NULL },
		END } },
	{ "deno-lint-compact", "deno lint", "deno-app", "", "deno_lint", 3, NULL, "deno-lint",
	  { END } },
	/* Playwright test: the title path without the file is the test's name */
	{ "playwright", "playwright test", "pw-app", "", "playwright", 3,
	  "tests/money.spec.ts|src/money.ts", NULL,
	  {
		{ 0, "tests/money.spec.ts", 6, 26, NULL, "error",
		  "money \xe2\x80\xba parses a price with one decimal",
		  "expect(received).toBe(expected) Expected: 150 Received: 105",
		  "@tests/money.spec.ts" },
		{ 2, "src/money.ts", 12, 24, NULL, "error",
		  "money \xe2\x80\xba refuses to split nothing", "RangeError: cannot split 100 0 ways",
		  "split@src/money.ts|@tests/money.spec.ts" },
		END } },
	{ "npm-test-playwright", "npm test", "pw-app", "", "playwright", 3, NULL, "playwright",
	  { END } },
	{ "playwright-dot", "playwright test", "pw-app", "", "playwright", 3, NULL, "playwright",
	  { END } },
	{ "playwright-line", "playwright test", "pw-app", "", "playwright", 3, NULL, "playwright",
	  { END } },
	{ "ho-playwright", "playwright test", "ho-pw", "", "playwright", 3,
	  "specs/orders.spec.js|lib/orders.js", NULL, { END } },
	/* Gradle's short exception format: the test's own file, by its class */
	{ "gradle-test", "gradle", "gradle-app", "", "gradle", 2,
	  "src/test/java/shop/BasketTest.java", NULL,
	  {
		{ 1, "src/test/java/shop/BasketTest.java", 13, 0, "AssertionError", "error",
		  "shop.BasketTest > totalAddsEveryPrice",
		  "java.lang.AssertionError at BasketTest.java:13", NULL },
		END } },
	{ "gradle-test-full", "gradle", "gradle-app", "", "gradle", 2,
	  "src/main/java/shop/Basket.java|src/test/java/shop/BasketTest.java", NULL,
	  {
		{ 0, "src/main/java/shop/Basket.java", 24, 0, "IndexOutOfBoundsException", "error",
		  "shop.BasketTest > mostExpensiveOfNothingIsZero",
		  "Index 0 out of bounds for length 0", NULL },
		{ 1, "src/test/java/shop/BasketTest.java", 13, 0, "AssertionError", "error",
		  "shop.BasketTest > totalAddsEveryPrice", "expected:<350> but was:<250>", NULL },
		END } },
	/* javac's errors, the task's name glued to the first one */
	{ "gradle-compile", "gradle", "gradle-app", "", "gradle", 2,
	  "broken/src/main/java/shop/Coupon.java", NULL,
	  {
		{ 0, "broken/src/main/java/shop/Coupon.java", 12, 0, NULL, "error", NULL,
		  "incompatible types: String cannot be converted to int", NULL },
		END } },
};

static const tcase *find_case(const char *sample)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(cases[i].sample, sample))
			return &cases[i];
	fail_msg("no case %s", sample);
	return NULL;
}

static void run_case(const tcase *c)
{
	callus_buf files = CALLUS_BUF_INIT;
	callus_failure f, g;

	print_message("%s\n", c->sample);
	analyse(&f, c->tool, c->sample, c->project, c->cwd);
	parse_assert_str("parser", f.parser, c->parser);
	assert_int_equal(f.diags.count, c->count);
	if (c->same_as) {
		const tcase *o = find_case(c->same_as);

		analyse(&g, o->tool, o->sample, o->project, o->cwd);
		parse_assert_same(c->same_as, &f, &g);
		callus_failure_release(&g);
	} else {
		parse_files_of(&files, &f.files);
		parse_assert_str("files", files.ptr, c->files);
		for (const want *w = c->wants; w->index >= 0; w++) {
			assert_true((size_t)w->index < f.diags.count);
			parse_check_diag(c->sample, &f.diags.items[w->index], w);
		}
	}
	callus_failure_release(&f);
	callus_buf_release(&files);
}

static void samples(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_case(&cases[i]);
}

/* Under a wrapper (`npm test`, `make check`), the output names its tool:
 * the same parser, the same errors. */
static void sniffing(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const tcase *c = &cases[i];
		callus_failure f;

		print_message("%s\n", c->sample);
		analyse(&f, "npm test", c->sample, c->project, c->cwd);
		parse_assert_str("parser", f.parser, c->parser);
		assert_int_equal(f.diags.count, c->count);
		callus_failure_release(&f);
	}
}

/* Gradle 5 and later with Kotlin: "> Task" lines of their own, the Kotlin
 * plugin's errors in both its formats.  Written from the documented formats:
 * Debian's Gradle is 4.4.1, and the Kotlin plugin cannot be fetched here. */
static void gradle_kotlin(void **state)
{
	static const char out[] =
		"> Task :compileKotlin FAILED\n"
		"e: file:///tmp/callus-corpus/gradle-app/src/main/kotlin/shop/Labels.kt:4:25 "
		"Type mismatch: inferred type is Int but String was expected\n"
		"e: /tmp/callus-corpus/gradle-app/src/main/kotlin/shop/Price.kt: (9, 5): "
		"Unresolved reference: roundUp\n"
		"w: /tmp/callus-corpus/gradle-app/src/main/kotlin/shop/Price.kt: (3, 9): "
		"Variable 'x' is never used\n"
		"\n"
		"FAILURE: Build failed with an exception.\n"
		"\n"
		"* What went wrong:\n"
		"Execution failed for task ':compileKotlin'.\n"
		"> Compilation error. See log for more details\n"
		"\n"
		"BUILD FAILED in 3s\n"
		"1 actionable task: 1 executed\n";
	callus_buf files = CALLUS_BUF_INIT;
	callus_failure f;

	(void)state;
	analyse_data(&f, "gradle", out, sizeof(out) - 1, "gradle-app", "");
	parse_assert_str("parser", f.parser, "gradle");
	assert_int_equal(f.diags.count, 3);
	parse_files_of(&files, &f.files);
	parse_assert_str("files", files.ptr,
			 "src/main/kotlin/shop/Labels.kt|src/main/kotlin/shop/Price.kt");
	assert_string_equal(f.diags.items[0].file, "src/main/kotlin/shop/Labels.kt");
	assert_int_equal(f.diags.items[0].line, 4);
	assert_int_equal(f.diags.items[0].column, 25);
	assert_non_null(strstr(f.diags.items[0].message, "Type mismatch"));
	assert_string_equal(f.diags.items[1].file, "src/main/kotlin/shop/Price.kt");
	assert_int_equal(f.diags.items[1].line, 9);
	callus_failure_release(&f);
	callus_buf_release(&files);
}

/* Each of PHP's kinds of message, as the error log and the output print
 * it: read with its severity (errors, and warnings, notices and
 * deprecations as warnings), its message, file and line. */
static void php_kinds(void **state)
{
	static const struct {
		const char *kind, *severity;
	} kinds[] = {
		{ "Parse error", "error" },	 { "Fatal error", "error" },
		{ "Warning", "warning" },	 { "Notice", "warning" },
		{ "Deprecated", "warning" },	 { "Recoverable fatal error", "error" },
		{ "Compile error", "error" },
	};
	callus_buf out = CALLUS_BUF_INIT;
	callus_failure f;

	(void)state;
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		for (int log = 0; log < 2; log++) {
			callus_buf_clear(&out);
			callus_buf_printf(&out, "%s%s:  something odd in src/Cart.php on line %zu\n",
					  log ? "PHP " : "", kinds[k].kind, k + 3);
			analyse_data(&f, "php -l", out.ptr, out.len, "php-app", "");
			if (f.diags.count != 1)
				fail_msg("\"%s\": %zu errors", out.ptr, f.diags.count);
			parse_assert_str("severity", f.diags.items[0].severity, kinds[k].severity);
			parse_assert_str("message", f.diags.items[0].message, "something odd");
			parse_assert_str("file", f.diags.items[0].file, "src/Cart.php");
			assert_int_equal(f.diags.items[0].line, (long)k + 3);
			callus_failure_release(&f);
		}
	/* a kind it does not know, or one without its colon: none */
	analyse_data(&f, "php -l", "Panic: oops in src/Cart.php on line 3\n", 38, "php-app", "");
	assert_int_equal(f.diags.count, 0);
	callus_failure_release(&f);
	callus_buf_release(&out);
}

/* The names the detector gives (docs/config.md) choose these parsers. */
static void tool_names(void **state)
{
	static const char *const map[][2] = {
		{ "javac", "javac" },	      { "kotlinc", "kotlinc" },
		{ "mvn", "maven" },	      { "rspec", "rspec" },
		{ "gradle", "gradle" },
		{ "rake spec", "rspec" },     { "rake test", "minitest" },
		{ "rails test", "minitest" }, { "minitest", "minitest" },
		{ "rubocop", "rubocop" },     { "phpunit", "phpunit" },
		{ "composer test", "phpunit" }, { "php -l", "php" },
		{ "prove", "tap" },	      { "mix test", "exunit" },
		{ "pyflakes", "pyflakes" },   { "pyright", "pyright" },
		{ "bandit", "bandit" },	      { "black", "black" },
		{ "isort", "isort" },	      { "clang-tidy", "gcc" },
		{ "ninja", "ninja" },	      { "meson compile", "ninja" },
		{ "cmake --build", "ninja" }, { "biome", "biome" },
		{ "oxlint", "oxlint" },	      { "prettier", "prettier" },
		{ "stylelint", "stylelint" }, { "markdownlint", "markdownlint" },
		{ "yamllint", "yamllint" },   { "ava", "ava" },
		{ "bun test", "bun" },	      { "deno test", "deno_test" },
		{ "deno lint", "deno_lint" },     { "playwright test", "playwright" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const callus_parser *p = callus_parser_select(map[i][0], "", 0);

		print_message("%s\n", map[i][0]);
		assert_non_null(p);
		assert_string_equal(p->name, map[i][1]);
	}
}

/* A tool callus does not know (a [verify] add of the user's), printing
 * JUnit XML, TAP or "file:line: message": files and errors all the same. */
static void unknown_tools(void **state)
{
	static const char junit[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"all\" tests=\"2\" failures=\"1\">\n"
		"  <testsuite name=\"calc\" tests=\"2\" failures=\"1\">\n"
		"    <testcase classname=\"tests.test_calc\" name=\"test_ok\" time=\"0.001\"/>\n"
		"    <testcase classname=\"tests.test_calc\" name=\"test_add\" time=\"0.002\">\n"
		"      <failure message=\"assert 3 == 4\" type=\"AssertionError\">def test_add():\n"
		"&gt;       assert add(1, 2) == 4\n"
		"E       assert 3 == 4\n"
		"\n"
		"tests/test_calc.py:5: AssertionError</failure>\n"
		"    </testcase>\n"
		"  </testsuite>\n"
		"</testsuites>\n";
	static const char tap[] =
		"TAP version 13\n"
		"1..2\n"
		"ok 1 - parses\n"
		"not ok 2 - adds\n"
		"  ---\n"
		"  message: 'expected ''4'', got ''3'''\n"
		"  at: test/calc.js:7:3\n"
		"  ...\n";
	static const char lines[] = "lib/calc.ml:12:5: unbound value totl\n";
	callus_failure f;

	(void)state;
	analyse_data(&f, "check.sh", junit, strlen(junit), "py-test", "");
	parse_assert_str("parser", f.parser, "junit");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "tests/test_calc.py");
	assert_int_equal(f.diags.items[0].line, 5);
	parse_assert_str("code", f.diags.items[0].code, "AssertionError");
	parse_assert_str("test", f.diags.items[0].test, "tests.test_calc.test_add");
	parse_assert_str("message", f.diags.items[0].message, "assert 3 == 4");
	callus_failure_release(&f);

	analyse_data(&f, "check.sh", tap, strlen(tap), "node-test-app", "");
	parse_assert_str("parser", f.parser, "tap");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "test/calc.js");
	assert_int_equal(f.diags.items[0].line, 7);
	parse_assert_str("test", f.diags.items[0].test, "adds");
	/* YAML's quoting undone: '' is one quote */
	parse_assert_str("message", f.diags.items[0].message, "expected '4', got '3'");
	callus_failure_release(&f);

	analyse_data(&f, "check.sh", lines, strlen(lines), "misc", "");
	parse_assert_str("parser", f.parser, "generic");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "lib/calc.ml");
	assert_int_equal(f.diags.items[0].line, 12);
	callus_failure_release(&f);
}

/* A project's own Python or Node.js program that dies of an uncaught
 * error (found by an outside review: no error, no signature, and node's
 * "Node.js v20" taken for a file).  The last of chained tracebacks; a
 * SyntaxError with no "Traceback" line; an interpreter's "<frozen runpy>"
 * no file. */
static void uncaught_errors(void **state)
{
	static const char py[] =
		"Traceback (most recent call last):\n"
		"  File \"<frozen runpy>\", line 198, in _run_module_as_main\n"
		"  File \"/tmp/callus-corpus/misc/tools/check.py\", line 9, in <module>\n"
		"    main()\n"
		"  File \"/tmp/callus-corpus/misc/tools/conf.py\", line 3, in load\n"
		"    return d[\"port\"]\n"
		"KeyError: 'port'\n"
		"\n"
		"The above exception was the direct cause of the following exception:\n"
		"\n"
		"Traceback (most recent call last):\n"
		"  File \"/tmp/callus-corpus/misc/tools/check.py\", line 12, in main\n"
		"    raise ValueError(\"bad config\") from e\n"
		"ValueError: bad config\n";
	static const char syntax[] =
		"  File \"/tmp/callus-corpus/misc/tools/s.py\", line 1\n"
		"    def f(:\n"
		"          ^\n"
		"SyntaxError: '(' was never closed\n";
	static const char node[] =
		"/tmp/callus-corpus/misc/scripts/app.js:1\n"
		"function f(){ throw new TypeError(\"bad thing \" + 42); }\n"
		"              ^\n"
		"\n"
		"TypeError: bad thing 42\n"
		"    at f (/tmp/callus-corpus/misc/scripts/app.js:1:21)\n"
		"    at Object.<anonymous> (/tmp/callus-corpus/misc/scripts/main.js:2:1)\n"
		"    at Module._compile (node:internal/modules/cjs/loader:1521:14)\n"
		"    at node:internal/main/run_main_module:28:49 {\n"
		"  code: 'E_X'\n"
		"}\n"
		"\n"
		"Node.js v20.20.2\n";
	static const char nodesyntax[] =
		"/tmp/callus-corpus/misc/scripts/s.js:1\n"
		"function (\n"
		"         ^\n"
		"\n"
		"SyntaxError: Function statements require a function name\n"
		"    at internalCompileFunction (node:internal/vm:76:18)\n"
		"\n"
		"Node.js v20.20.2\n";
	callus_failure f;

	(void)state;
	analyse_data(&f, "check.sh", py, strlen(py), "misc", "");
	parse_assert_str("parser", f.parser, "generic");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "tools/check.py");
	assert_int_equal(f.diags.items[0].line, 12);
	parse_assert_str("code", f.diags.items[0].code, "ValueError");
	parse_assert_str("message", f.diags.items[0].message, "bad config");
	for (size_t i = 0; i < f.files.count; i++)
		assert_null(strchr(f.files.items[i], '<'));
	callus_failure_release(&f);

	analyse_data(&f, "check.sh", syntax, strlen(syntax), "misc", "");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "tools/s.py");
	parse_assert_str("code", f.diags.items[0].code, "SyntaxError");
	callus_failure_release(&f);

	analyse_data(&f, "check.sh", node, strlen(node), "misc", "");
	parse_assert_str("parser", f.parser, "generic");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "scripts/app.js");
	assert_int_equal(f.diags.items[0].line, 1);
	parse_assert_str("code", f.diags.items[0].code, "TypeError");
	parse_assert_str("message", f.diags.items[0].message, "bad thing 42");
	assert_int_equal(f.diags.items[0].frames.count, 2);
	assert_int_equal(f.files.count, 2);
	for (size_t i = 0; i < f.files.count; i++)
		assert_null(strstr(f.files.items[i], "Node.js"));
	callus_failure_release(&f);

	analyse_data(&f, "check.sh", nodesyntax, strlen(nodesyntax), "misc", "");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "scripts/s.js");
	parse_assert_str("code", f.diags.items[0].code, "SyntaxError");
	callus_failure_release(&f);
}

/* JSON reports, read by the tool's name (nothing in the filtered text
 * tells them under a wrapper): the same errors as the tool's text.  deno
 * lint --json counts columns from 0; Playwright's report nests describe()
 * titles in suites. */
static void json_reports(void **state)
{
	static const char *const pairs[][4] = {
		{ "deno lint", "deno-lint-json", "deno-lint", "deno_lint" },
		{ "playwright test", "playwright-json", "ho-playwright", "playwright" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		const tcase *c = find_case(pairs[i][2]);
		callus_failure f, g;

		print_message("%s\n", pairs[i][1]);
		analyse(&f, pairs[i][0], pairs[i][1], c->project, c->cwd);
		parse_assert_str("parser", f.parser, pairs[i][3]);
		analyse(&g, c->tool, c->sample, c->project, c->cwd);
		parse_assert_same(pairs[i][2], &f, &g);
		callus_failure_release(&f);
		callus_failure_release(&g);
	}
}

/* deno test --reporter=tap: deno's parser finds nothing, the fallback's
 * TAP reads each YAML block, one JSON object, its place from the stack in
 * the message */
static void deno_tap(void **state)
{
	callus_buf files = CALLUS_BUF_INIT;
	callus_failure f;

	(void)state;
	analyse(&f, "deno test", "deno-test-tap", "ho-runtimes", "");
	parse_assert_str("parser", f.parser, "generic");
	assert_int_equal(f.diags.count, 2);
	parse_files_of(&files, &f.files);
	parse_assert_str("files", files.ptr, "deno/price_test.ts|deno/price.ts");
	parse_assert_str("file", f.diags.items[1].file, "deno/price.ts");
	assert_int_equal(f.diags.items[1].line, 8);
	parse_assert_str("message", f.diags.items[1].message, "Error: no sku in \",5\"");
	callus_failure_release(&f);
	callus_buf_release(&files);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(samples),
		cmocka_unit_test(gradle_kotlin),
		cmocka_unit_test(php_kinds),
		cmocka_unit_test(sniffing),
		cmocka_unit_test(tool_names),
		cmocka_unit_test(unknown_tools),
		cmocka_unit_test(uncaught_errors),
		cmocka_unit_test(json_reports),
		cmocka_unit_test(deno_tap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
