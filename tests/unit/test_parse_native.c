/*
 * test_parse_native.c - the parsers of the native tools (pytest, unittest,
 * mypy, ruff, flake8, pylint, gcc/clang, make, go, cargo/rustc, shellcheck,
 * cppcheck, ctest) on real outputs: tests/parsers/native/NAME.txt, printed
 * by the real tools on the projects tests/parsers/native/generate.sh builds
 * in /tmp/callus-native (ruff-*.txt excepted: ruff is not packaged here, they
 * follow its documented formats).  Each goes through the whole pipeline
 * (capture in pipe-sized pieces, parser selection by the tool's name,
 * analysis) as `callus run` does; the expected fields were checked by hand
 * against the outputs.  Run from the repository root.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callus/analysis.h"
#include "callus/capture.h"
#include "callus/parse.h"
#include "parse_helpers.h"
#include "parsers/util.h"
#include "pieces_helpers.h"

#define SAMPLES "tests/parsers/native/"
/* where generate.sh ran the tools: absolute paths in the outputs are there */
#define ROOT "/tmp/callus-native/"

typedef parse_want want;

#define END PARSE_WANT_END

typedef struct tcase {
	const char *sample, *tool, *project, *cwd, *parser;
	size_t count;
	const char *files;   /* affected files, '|'-separated */
	const char *same_as; /* or: the very same analysis as this sample's */
	want wants[8];
} tcase;

/* The analysis of data as a failed run of tool in ROOT/project/cwd. */
static void analyse_data(callus_failure *f, const char *tool, const char *data, size_t len,
			 const char *project, const char *cwd)
{
	parse_analyse(f, tool, 2, data, len, ROOT, project, cwd);
}

static char *read_sample(const char *name, size_t *len)
{
	callus_buf path = CALLUS_BUF_INIT;
	char *data;

	callus_buf_printf(&path, SAMPLES "%s.txt", name);
	data = parse_read(path.ptr, len);
	callus_buf_release(&path);
	return data;
}

static void analyse(callus_failure *f, const char *tool, const char *sample, const char *project,
		    const char *cwd)
{
	size_t len;
	char *data = read_sample(sample, &len);

	analyse_data(f, tool, data, len, project, cwd);
	free(data);
}

/* Every sample, with what its analysis must hold. */
static const tcase cases[] = {
	{ "pytest-default", "pytest", "py", "", "pytest", 4,
	  "tests/test_cart.py|src/shop/cart.py", NULL,
	  {
		{ 0, "tests/test_cart.py", 8, 0, "AssertionError", "error", "tests/test_cart.py::TestCart::test_total",
		  "assert 3 == 4", "test_total@tests/test_cart.py" },
		{ 1, "src/shop/cart.py", 11, 0, "ValueError", "error", "tests/test_cart.py::TestCart::test_discount_rate",
		  "rate 1.5 is above 1", "discount@src/shop/cart.py|test_discount_rate@tests/test_cart.py" },
		{ 2, "src/shop/cart.py", 21, 0, "IndexError", "error", "tests/test_cart.py::test_first_empty",
		  "list index out of range", "first@src/shop/cart.py|test_first_empty@tests/test_cart.py" },
		{ 3, "tests/test_cart.py", 23, 0, "AssertionError", "error", "tests/test_cart.py::test_param[3]",
		  "assert 3 < 3", "test_param@tests/test_cart.py" },
		END } },
	{ "pytest-color", "pytest", "py", "", "pytest", 4, NULL, "pytest-default", { END } },
	{ "pytest-short", "pytest", "py", "", "pytest", 4, NULL, "pytest-default", { END } },
	{ "pytest-native-abs", "pytest", "py", "", "pytest", 4, NULL, "pytest-default", { END } },
	{ "pytest-verbose-line", "pytest", "py", "", "pytest", 4,
	  "tests/test_cart.py|src/shop/cart.py", NULL,
	  {
		{ 0, "tests/test_cart.py", 8, 0, "AssertionError", "error", "tests/test_cart.py::TestCart::test_total",
		  "assert 3 == 4", NULL },
		{ 1, "src/shop/cart.py", 11, 0, "ValueError", "error", "tests/test_cart.py::TestCart::test_discount_rate",
		  "rate 1.5 is above 1", NULL },
		{ 2, "src/shop/cart.py", 21, 0, "IndexError", "error", "tests/test_cart.py::test_first_empty",
		  "list index out of range", NULL },
		{ 3, "tests/test_cart.py", 23, 0, "AssertionError", "error", "tests/test_cart.py::test_param[3]",
		  "assert 3 < 3", NULL },
		END } },
	{ "pytest-collect-error", "pytest", "py", "", "pytest", 1,
	  "tests/test_broken.py", NULL,
	  {
		{ 0, "tests/test_broken.py", 1, 0, "ImportError", "error", "tests/test_broken.py",
		  "cannot import name 'no_such_name' from 'shop.cart' (/tmp/callus-native/py/src/shop/cart.py)", "<module>@tests/test_broken.py" },
		END } },
	{ "pytest-many", "pytest", "py", "", "pytest", 120,
	  "tests/test_many.py", NULL,
	  {
		{ 0, "tests/test_many.py", 6, 0, "AssertionError", "error", "tests/test_many.py::test_many[0]",
		  "value 0", "test_many@tests/test_many.py" },
		{ 1, "tests/test_many.py", 6, 0, "AssertionError", "error", "tests/test_many.py::test_many[1]",
		  "value 1", "test_many@tests/test_many.py" },
		{ 2, "tests/test_many.py", 6, 0, "AssertionError", "error", "tests/test_many.py::test_many[2]",
		  "value 2", "test_many@tests/test_many.py" },
		{ 119, "tests/test_many.py", 6, 0, "AssertionError", "error", "tests/test_many.py::test_many[119]",
		  "value 119", "test_many@tests/test_many.py" },
		END } },
	{ "unittest-default", "unittest", "py", "ut", "unittest", 2,
	  "ut/test_units.py|ut/helpers.py", NULL,
	  {
		{ 0, "ut/helpers.py", 6, 0, "ValueError", "error", "test_units.TestParse.test_error",
		  "invalid literal for int() with base 10: 'x'", "convert@ut/helpers.py|parse@ut/helpers.py|test_error@ut/test_units.py" },
		{ 1, "ut/test_units.py", 8, 0, "AssertionError", "error", "test_units.TestParse.test_number",
		  "12 != 13", "test_number@ut/test_units.py" },
		END } },
	{ "unittest-verbose", "unittest", "py", "ut", "unittest", 2, NULL, "unittest-default", { END } },
	{ "unittest-discover", "unittest", "py", "ut", "unittest", 4,
	  "ut/test_missing.py|ut/test_units.py|ut/helpers.py|ut/pkg/test_sub.py", NULL,
	  {
		{ 0, "ut/test_missing.py", 1, 0, "ModuleNotFoundError", "error", "test_missing",
		  "No module named 'nosuchmodule'", "<module>@ut/test_missing.py" },
		{ 1, "ut/helpers.py", 6, 0, "ValueError", "error", "test_units.TestParse.test_error",
		  "invalid literal for int() with base 10: 'x'", "convert@ut/helpers.py|parse@ut/helpers.py|test_error@ut/test_units.py" },
		{ 2, "ut/pkg/test_sub.py", 8, 0, "AssertionError", "error", "pkg.test_sub.TestSub.test_values (i=2)",
		  "2 not less than 2", "test_values@ut/pkg/test_sub.py" },
		{ 3, "ut/test_units.py", 8, 0, "AssertionError", "error", "test_units.TestParse.test_number",
		  "12 != 13", "test_number@ut/test_units.py" },
		END } },
	{ "unittest-abs", "unittest", "py", "", "unittest", 4, NULL, "unittest-discover", { END } },
	{ "mypy-default", "mypy", "py", "", "mypy", 5,
	  "src/shop/cart.py|src/shop/typed.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 16, 24, "operator", "error", NULL,
		  "Unsupported operand types for + (\"str\" and \"int\")", NULL },
		{ 1, "src/shop/typed.py", 5, 18, "arg-type", "error", NULL,
		  "Argument 1 to \"total\" has incompatible type \"List[str]\"; expected \"List[int]\"", NULL },
		{ 2, "src/shop/typed.py", 9, 12, "return-value", "error", NULL,
		  "Incompatible return value type (got \"int\", expected \"str\")", NULL },
		{ 3, "src/shop/typed.py", 9, 28, "arg-type", "error", NULL,
		  "Argument 2 to \"discount\" has incompatible type \"str\"; expected \"float\"", NULL },
		{ 4, "src/shop/typed.py", 13, 19, "assignment", "error", NULL,
		  "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")", NULL },
		END } },
	{ "mypy-pretty", "mypy", "py", "", "mypy", 5,
	  "src/shop/cart.py|src/shop/typed.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 16, 0, "operator", "error", NULL,
		  "Unsupported operand types for + (\"str\" and \"int\")", NULL },
		{ 1, "src/shop/typed.py", 5, 0, "arg-type", "error", NULL,
		  "Argument 1 to \"total\" has incompatible type \"List[str]\"; expected \"List[int]\"", NULL },
		{ 2, "src/shop/typed.py", 9, 0, "return-value", "error", NULL,
		  "Incompatible return value type (got \"int\", expected \"str\")", NULL },
		{ 3, "src/shop/typed.py", 9, 0, "arg-type", "error", NULL,
		  "Argument 2 to \"discount\" has incompatible type \"str\"; expected \"float\"", NULL },
		{ 4, "src/shop/typed.py", 13, 0, "assignment", "error", NULL,
		  "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")", NULL },
		END } },
	{ "mypy-color", "mypy", "py", "", "mypy", 7,
	  "src/shop/notes.py|src/shop/cart.py|src/shop/typed.py", NULL,
	  {
		{ 0, "src/shop/notes.py", 1, 1, "import", "error", NULL,
		  "Cannot find implementation or library stub for module named \"nosuchmodule\"", NULL },
		{ 1, "src/shop/notes.py", 10, 5, "override", "error", NULL,
		  "Argument 1 of \"f\" is incompatible with supertype \"Base\"; supertype defines the argument type as \"int\"", NULL },
		{ 2, "src/shop/cart.py", 16, 24, "operator", "error", NULL,
		  "Unsupported operand types for + (\"str\" and \"int\")", NULL },
		{ 6, "src/shop/typed.py", 13, 19, "assignment", "error", NULL,
		  "Incompatible types in assignment (expression has type \"str\", variable has type \"int\")", NULL },
		END } },
	{ "mypy-abs", "mypy", "py", "", "mypy", 5, NULL, "mypy-pretty", { END } },
	{ "mypy-notes", "mypy", "py", "", "mypy", 2,
	  "src/shop/notes.py", NULL,
	  {
		{ 0, "src/shop/notes.py", 1, 0, "import", "error", NULL,
		  "Cannot find implementation or library stub for module named \"nosuchmodule\"", NULL },
		{ 1, "src/shop/notes.py", 10, 0, "override", "error", NULL,
		  "Argument 1 of \"f\" is incompatible with supertype \"Base\"; supertype defines the argument type as \"int\"", NULL },
		END } },
	{ "flake8-default", "flake8", "py", "", "flake8", 3,
	  "src/shop/cart.py|src/shop/notes.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 1, 1, "F401", "error", NULL,
		  "'os' imported but unused", NULL },
		{ 1, "src/shop/cart.py", 20, 5, "F841", "error", NULL,
		  "local variable 'unused' is assigned to but never used", NULL },
		{ 2, "src/shop/notes.py", 1, 1, "F401", "error", NULL,
		  "'nosuchmodule' imported but unused", NULL },
		END } },
	{ "flake8-color", "flake8", "py", "", "flake8", 3, NULL, "flake8-default", { END } },
	{ "flake8-abs", "flake8", "py", "", "flake8", 2,
	  "src/shop/cart.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 1, 1, "F401", "error", NULL,
		  "'os' imported but unused", NULL },
		{ 1, "src/shop/cart.py", 20, 5, "F841", "error", NULL,
		  "local variable 'unused' is assigned to but never used", NULL },
		END } },
	{ "pylint-default", "pylint", "py", "", "pylint", 21,
	  "src/shop/cart.py|src/shop/typed.py|src/shop/notes.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 1, 1, "C0114", "note", NULL,
		  "Missing module docstring", NULL },
		{ 1, "src/shop/cart.py", 5, 1, "C0116", "note", NULL,
		  "Missing function or method docstring", NULL },
		{ 2, "src/shop/cart.py", 9, 1, "C0116", "note", NULL,
		  "Missing function or method docstring", NULL },
		{ 20, "src/shop/notes.py", 1, 1, "W0611", "warning", NULL,
		  "Unused import 'nosuchmodule'", NULL },
		END } },
	{ "pylint-color", "pylint", "py", "", "pylint", 7,
	  "src/shop/cart.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 1, 1, "C0114", "note", NULL,
		  "Missing module docstring", NULL },
		{ 1, "src/shop/cart.py", 5, 1, "C0116", "note", NULL,
		  "Missing function or method docstring", NULL },
		{ 2, "src/shop/cart.py", 9, 1, "C0116", "note", NULL,
		  "Missing function or method docstring", NULL },
		{ 6, "src/shop/cart.py", 1, 1, "W0611", "warning", NULL,
		  "Unused import 'os'", NULL },
		END } },
	{ "pylint-parseable", "pylint", "py", "", "pylint", 7,
	  "src/shop/cart.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 1, 0, "C0114", "note", NULL,
		  "Missing module docstring", NULL },
		{ 1, "src/shop/cart.py", 5, 0, "C0116", "note", NULL,
		  "Missing function or method docstring", NULL },
		{ 2, "src/shop/cart.py", 9, 0, "C0116", "note", NULL,
		  "Missing function or method docstring", NULL },
		{ 6, "src/shop/cart.py", 1, 0, "W0611", "warning", NULL,
		  "Unused import 'os'", NULL },
		END } },
	{ "pylint-json", "pylint", "py", "", "pylint", 7, NULL, "pylint-color", { END } },
	{ "ruff-concise", "ruff", "py", "", "ruff", 3,
	  "src/shop/cart.py|src/shop/typed.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 1, 8, "F401", "error", NULL,
		  "`os` imported but unused", NULL },
		{ 1, "src/shop/cart.py", 20, 5, "F841", "error", NULL,
		  "Local variable `unused` is assigned to but never used", NULL },
		{ 2, "src/shop/typed.py", 3, 1, "invalid-syntax", "error", NULL,
		  "Cannot use `match` statement on Python 3.9 (syntax was added in Python 3.10)", NULL },
		END } },
	{ "ruff-full", "ruff", "py", "", "ruff", 3, NULL, "ruff-concise", { END } },
	{ "ruff-full-old", "ruff", "py", "", "ruff", 3, NULL, "ruff-concise", { END } },
	{ "ruff-grouped", "ruff", "py", "", "ruff", 3, NULL, "ruff-concise", { END } },
	{ "ruff-pylint", "ruff", "py", "", "ruff", 2,
	  "src/shop/cart.py", NULL,
	  {
		{ 0, "src/shop/cart.py", 1, 0, "F401", "error", NULL,
		  "`os` imported but unused", NULL },
		{ 1, "src/shop/cart.py", 20, 0, "F841", "error", NULL,
		  "Local variable `unused` is assigned to but never used", NULL },
		END } },
	{ "gcc-errors", "gcc", "c", "", "gcc", 4,
	  "include/util.h|src/main.c", NULL,
	  {
		{ 0, "include/util.h", 4, 46, NULL, "error", NULL,
		  "expected \xe2\x80\x98;\xe2\x80\x99 before \xe2\x80\x98}\xe2\x80\x99 token", NULL },
		{ 1, "src/main.c", 10, 22, "-Wint-conversion", "warning", NULL,
		  "initialization of \xe2\x80\x98""char *\xe2\x80\x99 from \xe2\x80\x98int\xe2\x80\x99 makes pointer from integer without a cast", NULL },
		{ 2, "src/main.c", 11, 25, NULL, "error", NULL,
		  "\xe2\x80\x98struct point\xe2\x80\x99 has no member named \xe2\x80\x98z\xe2\x80\x99", NULL },
		{ 3, "src/main.c", 13, 27, NULL, "error", NULL,
		  "\xe2\x80\x98""count\xe2\x80\x99 undeclared (first use in this function)", NULL },
		END } },
	{ "gcc-errors-color", "gcc", "c", "", "gcc", 4, NULL, "gcc-errors", { END } },
	{ "gcc-werror", "gcc", "c", "", "gcc", 3,
	  "src/warn.c", NULL,
	  {
		{ 0, "src/warn.c", 8, 13, "-Werror=parentheses", "error", NULL,
		  "suggest parentheses around assignment used as truth value", NULL },
		{ 1, "src/warn.c", 7, 13, "-Werror=unused-variable", "error", NULL,
		  "unused variable \xe2\x80\x98unused\xe2\x80\x99", NULL },
		{ 2, "src/warn.c", 3, 12, "-Werror=unused-function", "error", NULL,
		  "\xe2\x80\x98helper\xe2\x80\x99 defined but not used", NULL },
		END } },
	{ "gcc-abs", "gcc", "c", "", "gcc", 3,
	  "src/warn.c", NULL,
	  {
		{ 0, "src/warn.c", 8, 13, "-Werror=parentheses", "error", NULL,
		  "suggest parentheses around assignment used as truth value", NULL },
		{ 1, "src/warn.c", 7, 13, "-Werror=unused-variable", "error", NULL,
		  "unused variable \xe2\x80\x98unused\xe2\x80\x99", NULL },
		{ 2, "src/warn.c", 3, 12, "-Wunused-function", "warning", NULL,
		  "\xe2\x80\x98helper\xe2\x80\x99 defined but not used", NULL },
		END } },
	{ "gcc-link", "gcc", "c", "", "gcc", 3,
	  "src/link.c", NULL,
	  {
		{ 0, "src/link.c", 5, 38, "-Wimplicit-function-declaration", "warning", NULL,
		  "implicit declaration of function \xe2\x80\x98other_missing\xe2\x80\x99", NULL },
		{ 1, "src/link.c", 0, 0, NULL, "error", NULL,
		  "undefined reference to `missing_function'", NULL },
		{ 2, "src/link.c", 0, 0, NULL, "error", NULL,
		  "undefined reference to `other_missing'", NULL },
		END } },
	{ "gcc-link-g", "gcc", "c", "", "gcc", 3,
	  "src/link.c", NULL,
	  {
		{ 0, "src/link.c", 5, 38, "-Wimplicit-function-declaration", "warning", NULL,
		  "implicit declaration of function \xe2\x80\x98other_missing\xe2\x80\x99", NULL },
		{ 1, "src/link.c", 5, 0, NULL, "error", NULL,
		  "undefined reference to `missing_function'", NULL },
		{ 2, "src/link.c", 5, 0, NULL, "error", NULL,
		  "undefined reference to `other_missing'", NULL },
		END } },
	{ "gcc-fatal", "gcc", "c", "", "gcc", 2,
	  "src/fatal.c", NULL,
	  {
		{ 0, "src/fatal.c", 1, 10, NULL, "error", NULL,
		  "nosuch.h: No such file or directory", NULL },
		{ 1, NULL, 0, 0, NULL, "error", NULL,
		  "src/missing.c: No such file or directory", NULL },
		END } },
	{ "gxx-template", "g++", "c", "", "gcc", 1,
	  "src/tmpl.cpp", NULL,
	  {
		{ 0, "src/tmpl.cpp", 8, 19, NULL, "error", NULL,
		  "no match for \xe2\x80\x98operator+=\xe2\x80\x99 (operand types are \xe2\x80\x98int\xe2\x80\x99 and \xe2\x80\x98""const std::__cxx11::basic_string<char>\xe2\x80\x99)", NULL },
		END } },
	{ "clang-errors", "clang", "c", "", "gcc", 5,
	  "include/util.h|src/main.c", NULL,
	  {
		{ 0, "include/util.h", 4, 46, NULL, "error", NULL,
		  "expected ';' after return statement", NULL },
		{ 1, "src/main.c", 10, 8, "-Wint-conversion", "warning", NULL,
		  "incompatible integer to pointer conversion initializing 'char *' with an expression of type 'int'", NULL },
		{ 2, "src/main.c", 11, 19, NULL, "error", NULL,
		  "no member named 'z' in 'struct point'", NULL },
		{ 3, "src/main.c", 12, 17, "-Wformat", "warning", NULL,
		  "format specifies type 'char *' but the argument has type 'int'", NULL },
		{ 4, "src/main.c", 13, 20, NULL, "error", NULL,
		  "use of undeclared identifier 'count'", NULL },
		END } },
	{ "clang-errors-color", "clang", "c", "", "gcc", 5, NULL, "clang-errors", { END } },
	{ "clang-werror", "clang", "c", "", "gcc", 3,
	  "src/warn.c", NULL,
	  {
		{ 0, "src/warn.c", 8, 8, "-Wparentheses", "error", NULL,
		  "using the result of an assignment as a condition without parentheses", NULL },
		{ 1, "src/warn.c", 7, 6, "-Wunused-variable", "error", NULL,
		  "unused variable 'unused'", NULL },
		{ 2, "src/warn.c", 10, 1, "-Wreturn-type", "error", NULL,
		  "non-void function does not return a value in all control paths", NULL },
		END } },
	{ "clang-link", "clang", "c", "", "gcc", 3,
	  "src/link.c", NULL,
	  {
		{ 0, "src/link.c", 5, 31, "-Wimplicit-function-declaration", "warning", NULL,
		  "implicit declaration of function 'other_missing' is invalid in C99", NULL },
		{ 1, "src/link.c", 0, 0, NULL, "error", NULL,
		  "undefined reference to `missing_function'", NULL },
		{ 2, "src/link.c", 0, 0, NULL, "error", NULL,
		  "undefined reference to `other_missing'", NULL },
		END } },
	{ "clangxx-template", "clang++", "c", "", "gcc", 1,
	  "src/tmpl.cpp", NULL,
	  {
		{ 0, "src/tmpl.cpp", 8, 5, NULL, "error", NULL,
		  "invalid operands to binary expression ('int' and 'std::basic_string<char> const')", NULL },
		END } },
	{ "make-subdir", "make", "c", "", "make", 3,
	  "lib/bad.c", NULL,
	  {
		{ 0, "lib/bad.c", 4, 20, NULL, "error", NULL,
		  "\xe2\x80\x98z\xe2\x80\x99 undeclared (first use in this function)", NULL },
		{ 1, "lib/bad.c", 3, 13, "-Werror=unused-variable", "error", NULL,
		  "unused variable \xe2\x80\x98y\xe2\x80\x99", NULL },
		{ 2, "lib/bad.c", 5, 1, "-Werror=return-type", "error", NULL,
		  "control reaches end of non-void function", NULL },
		END } },
	{ "make-keep-going", "make", "c", "", "make", 7,
	  "lib/bad.c|include/util.h|src/main.c", NULL,
	  {
		{ 0, "lib/bad.c", 4, 20, NULL, "error", NULL,
		  "\xe2\x80\x98z\xe2\x80\x99 undeclared (first use in this function)", NULL },
		{ 1, "lib/bad.c", 3, 13, "-Werror=unused-variable", "error", NULL,
		  "unused variable \xe2\x80\x98y\xe2\x80\x99", NULL },
		{ 2, "lib/bad.c", 5, 1, "-Werror=return-type", "error", NULL,
		  "control reaches end of non-void function", NULL },
		{ 6, "src/main.c", 13, 27, NULL, "error", NULL,
		  "\xe2\x80\x98""count\xe2\x80\x99 undeclared (first use in this function)", NULL },
		END } },
	{ "make-color", "make", "c", "", "make", 3, NULL, "make-subdir", { END } },
	{ "make-outside", "make", "c", "", "make", 6,
	  "src/warn.c", NULL,
	  {
		{ 0, NULL, 0, 0, NULL, "error", NULL,
		  "\xe2\x80\x98z\xe2\x80\x99 undeclared (first use in this function)", NULL },
		{ 1, NULL, 0, 0, "-Werror=unused-variable", "error", NULL,
		  "unused variable \xe2\x80\x98y\xe2\x80\x99", NULL },
		{ 2, NULL, 0, 0, "-Werror=return-type", "error", NULL,
		  "control reaches end of non-void function", NULL },
		{ 5, "src/warn.c", 3, 12, "-Werror=unused-function", "error", NULL,
		  "\xe2\x80\x98helper\xe2\x80\x99 defined but not used", NULL },
		END } },
	{ "make-no-rule", "make", "c", "", "make", 1,
	  "", NULL,
	  {
		{ 0, NULL, 0, 0, NULL, "error", NULL,
		  "No rule to make target 'nosuch'.", NULL },
		END } },
	{ "make-missing-dep", "make", "c", "", "make", 1,
	  "", NULL,
	  {
		{ 0, NULL, 0, 0, NULL, "error", NULL,
		  "No rule to make target 'src/nosuch.c', needed by 'prog'.", NULL },
		END } },
	{ "make-separator", "make", "c", "", "make", 1,
	  "Makefile.bad", NULL,
	  {
		{ 0, "Makefile.bad", 3, 0, NULL, "error", NULL,
		  "missing separator.", NULL },
		END } },
	{ "make-check-script", "make", "c", "", "make", 1,
	  "run-tests.sh", NULL,
	  {
		{ 0, NULL, 0, 0, NULL, "error", NULL,
		  "target 'check' failed: Error 1", NULL },
		END } },
	{ "make-check-ctest", "make", "cm", "", "make", 1,
	  "tests/test_str.c", NULL,
	  {
		{ 0, "tests/test_str.c", 6, 0, "Subprocess aborted", "error", "str_upper",
		  "main: Assertion `toupper('a') == 'a'' failed.", NULL },
		END } },
	{ "make-check-pytest", "make", "py", "", "make", 4,
	  "tests/test_cart.py|src/shop/cart.py", NULL,
	  {
		{ 0, "tests/test_cart.py", 8, 0, "AssertionError", "error", "tests/test_cart.py::TestCart::test_total",
		  "assert 3 == 4", "test_total@tests/test_cart.py" },
		{ 1, "src/shop/cart.py", 11, 0, "ValueError", "error", "tests/test_cart.py::TestCart::test_discount_rate",
		  "rate 1.5 is above 1", "discount@src/shop/cart.py|test_discount_rate@tests/test_cart.py" },
		{ 2, "src/shop/cart.py", 21, 0, "IndexError", "error", "tests/test_cart.py::test_first_empty",
		  "list index out of range", "first@src/shop/cart.py|test_first_empty@tests/test_cart.py" },
		{ 3, "tests/test_cart.py", 23, 0, "AssertionError", "error", "tests/test_cart.py::test_param[3]",
		  "assert 3 < 3", "test_param@tests/test_cart.py" },
		END } },
	{ "make-test-go", "make", "go", "", "make", 3,
	  "calc/calc_test.go|calc/calc.go", NULL,
	  {
		{ 0, "calc/calc_test.go", 7, 0, NULL, "error", "TestAdd",
		  "Add(1, 2) = 4, want 3", NULL },
		{ 1, "calc/calc_test.go", 14, 0, NULL, "error", "TestDescribe/plural",
		  "Describe(2) = \"2 items\"", NULL },
		{ 2, "calc/calc.go", 11, 0, "panic", "error", "TestIndex",
		  "runtime error: index out of range [5] with length 2", "calc.Index@calc/calc.go|calc.TestIndex@calc/calc_test.go" },
		END } },
	{ "cppcheck-default", "cppcheck", "c", "", "cppcheck", 3,
	  "check/null.c", NULL,
	  {
		{ 0, "check/null.c", 12, 3, "arrayIndexOutOfBounds", "error", NULL,
		  "Array 'a[4]' accessed at index 4, which is out of bounds.", NULL },
		{ 1, "check/null.c", 20, 1, "memleak", "error", NULL,
		  "Memory leak: buf", NULL },
		{ 2, "check/null.c", 6, 10, "nullPointer", "error", NULL,
		  "Null pointer dereference: p", NULL },
		END } },
	{ "cppcheck-all", "cppcheck", "c", "", "cppcheck", 8,
	  "check/null.c|check/style.c", NULL,
	  {
		{ 0, "check/null.c", 12, 3, "arrayIndexOutOfBounds", "error", NULL,
		  "Array 'a[4]' accessed at index 4, which is out of bounds.", NULL },
		{ 1, "check/null.c", 20, 1, "memleak", "error", NULL,
		  "Memory leak: buf", NULL },
		{ 2, "check/null.c", 6, 10, "nullPointer", "error", NULL,
		  "Null pointer dereference: p", NULL },
		{ 7, "check/style.c", 1, 0, "unusedFunction", "warning", NULL,
		  "The function 'unused_fn' is never used.", NULL },
		END } },
	{ "cppcheck-gcc-template", "cppcheck", "c", "", "cppcheck", 3,
	  "check/null.c", NULL,
	  {
		{ 0, "check/null.c", 12, 3, "arrayIndexOutOfBounds", "warning", NULL,
		  "Array 'a[4]' accessed at index 4, which is out of bounds.", NULL },
		{ 1, "check/null.c", 20, 1, "memleak", "warning", NULL,
		  "Memory leak: buf", NULL },
		{ 2, "check/null.c", 6, 10, "nullPointer", "warning", NULL,
		  "Null pointer dereference: p", NULL },
		END } },
	{ "cppcheck-quiet-abs", "cppcheck", "c", "", "cppcheck", 3, NULL, "cppcheck-default", { END } },
	{ "go-build", "go build", "go", "", "go", 3,
	  "broken/broken.go", NULL,
	  {
		{ 0, "broken/broken.go", 3, 8, "UnusedImport", "error", NULL,
		  "imported and not used: \"os\"", NULL },
		{ 1, "broken/broken.go", 6, 17, "IncompatibleAssign", "error", NULL,
		  "cannot use 3 (untyped int constant) as string value in variable declaration", NULL },
		{ 2, "broken/broken.go", 7, 9, "UndeclaredName", "error", NULL,
		  "undefined: undefinedThing", NULL },
		END } },
	{ "go-vet", "go vet", "go", "", "go", 2,
	  "cmd/app/main.go", NULL,
	  {
		{ 0, "cmd/app/main.go", 7, 2, "printf", "error", NULL,
		  "fmt.Printf format %d has arg name of wrong type string", NULL },
		{ 1, "cmd/app/main.go", 9, 2, "unreachable", "error", NULL,
		  "unreachable code", NULL },
		END } },
	{ "go-test", "go test", "go", "", "go", 3,
	  "calc/calc_test.go|calc/calc.go", NULL,
	  {
		{ 0, "calc/calc_test.go", 7, 0, NULL, "error", "TestAdd",
		  "Add(1, 2) = 4, want 3", NULL },
		{ 1, "calc/calc_test.go", 14, 0, NULL, "error", "TestDescribe/plural",
		  "Describe(2) = \"2 items\"", NULL },
		{ 2, "calc/calc.go", 11, 0, "panic", "error", "TestIndex",
		  "runtime error: index out of range [5] with length 2", "calc.Index@calc/calc.go|calc.TestIndex@calc/calc_test.go" },
		END } },
	{ "go-test-verbose", "go test", "go", "", "go", 3, NULL, "go-test", { END } },
	{ "go-test-broken", "go test", "go", "", "go", 7,
	  "broken/broken.go|cmd/app/main.go|calc/calc_test.go|calc/calc.go", NULL,
	  {
		{ 0, "broken/broken.go", 3, 8, "UnusedImport", "error", NULL,
		  "imported and not used: \"os\"", NULL },
		{ 1, "broken/broken.go", 6, 17, "IncompatibleAssign", "error", NULL,
		  "cannot use 3 (untyped int constant) as string value in variable declaration", NULL },
		{ 2, "broken/broken.go", 7, 9, "UndeclaredName", "error", NULL,
		  "undefined: undefinedThing", NULL },
		{ 6, "calc/calc.go", 11, 0, "panic", "error", "TestIndex",
		  "runtime error: index out of range [5] with length 2", "calc.Index@calc/calc.go|calc.TestIndex@calc/calc_test.go" },
		END } },
	{ "go-test-count", "go test", "go", "", "go", 2,
	  "calc/calc_test.go", NULL,
	  {
		{ 0, "calc/calc_test.go", 7, 0, NULL, "error", "TestAdd",
		  "Add(1, 2) = 4, want 3", NULL },
		{ 1, "calc/calc_test.go", 14, 0, NULL, "error", "TestDescribe/plural",
		  "Describe(2) = \"2 items\"", NULL },
		END } },
	{ "go-test-json", "go test", "go", "", "go", 3, NULL, "go-test", { END } },
	{ "cargo-build", "cargo build", "rs", "", "cargo", 3,
	  "src/main.rs", NULL,
	  {
		{ 0, "src/main.rs", 6, 22, "E0308", "error", NULL,
		  "mismatched types: expected `u32`, found `&str`", NULL },
		{ 1, "src/main.rs", 9, 26, "E0308", "error", NULL,
		  "mismatched types: expected `&[u32]`, found `Vec<{integer}>`", NULL },
		{ 2, "src/main.rs", 10, 20, "E0425", "error", NULL,
		  "cannot find function `missing_fn` in this scope: not found in this scope", NULL },
		END } },
	{ "cargo-build-color", "cargo build", "rs", "", "cargo", 3, NULL, "cargo-build", { END } },
	{ "cargo-check-json", "cargo check", "rs", "", "cargo", 3, NULL, "cargo-build", { END } },
	{ "cargo-build-short", "cargo build", "rs", "", "cargo", 3, NULL, "cargo-build", { END } },
	{ "rustc-direct", "rustc", "rs", "", "cargo", 3, NULL, "cargo-build", { END } },
	{ "rustc-direct-json", "rustc", "rs", "", "cargo", 3, NULL, "cargo-build", { END } },
	{ "cargo-test", "cargo test", "rs", "t", "cargo", 3,
	  "t/src/lib.rs", NULL,
	  {
		{ 0, "t/src/lib.rs", 6, 5, "panic", "error", "tests::it_picks",
		  "index out of bounds: the len is 2 but the index is 7", NULL },
		{ 1, "t/src/lib.rs", 15, 9, "panic", "error", "tests::it_adds",
		  "assertion `left == right` failed left: 4 right: 3", NULL },
		{ 2, "t/src/lib.rs", 31, 11, "panic", "error", "tests::it_unwraps",
		  "called `Result::unwrap()` on an `Err` value: \"boom\"", NULL },
		END } },
	{ "cargo-test-color", "cargo test", "rs", "t", "cargo", 3,
	  "t/src/lib.rs", NULL,
	  {
		{ 0, "t/src/lib.rs", 6, 5, "panic", "error", "tests::it_picks",
		  "index out of bounds: the len is 2 but the index is 7", NULL },
		{ 1, "t/src/lib.rs", 31, 11, "panic", "error", "tests::it_unwraps",
		  "called `Result::unwrap()` on an `Err` value: \"boom\"", NULL },
		{ 2, "t/src/lib.rs", 15, 9, "panic", "error", "tests::it_adds",
		  "assertion `left == right` failed left: 4 right: 3", NULL },
		END } },
	{ "cargo-test-backtrace", "cargo test", "rs", "t", "cargo", 1,
	  "t/src/lib.rs", NULL,
	  {
		{ 0, "t/src/lib.rs", 6, 5, "panic", "error", "tests::it_picks",
		  "index out of bounds: the len is 2 but the index is 7", "calc::pick@t/src/lib.rs|calc::tests::it_picks@t/src/lib.rs|calc::tests::it_picks::{{closure}}@t/src/lib.rs" },
		END } },
	{ "cargo-test-from-root", "cargo test", "rs", "", "cargo", 3, NULL, "cargo-test", { END } },
	{ "cargo-ws-member", "cargo build", "rs", "ws/core", "cargo", 1,
	  "ws/core/src/lib.rs", NULL,
	  {
		{ 0, "ws/core/src/lib.rs", 2, 5, "E0308", "error", NULL,
		  "mismatched types: expected `i32`, found `Result<i32, ParseIntError>`", NULL },
		END } },
	{ "cargo-ws-json", "cargo build", "rs", "ws", "cargo", 1, NULL, "cargo-ws-member", { END } },
	{ "cargo-clippy", "cargo clippy", "rs", "ws", "cargo", 2,
	  "ws/lint/src/lib.rs", NULL,
	  {
		{ 0, "ws/lint/src/lib.rs", 2, 9, "unused_variables", "error", NULL,
		  "unused variable: `unused`", NULL },
		{ 1, "ws/lint/src/lib.rs", 3, 5, "clippy::needless_return", "error", NULL,
		  "unneeded `return` statement", NULL },
		END } },
	{ "cargo-ws-short-warning", "cargo build", "rs", "ws", "cargo", 1,
	  "ws/lint/src/lib.rs", NULL,
	  {
		{ 0, "ws/lint/src/lib.rs", 2, 9, "unused_variables", "warning", NULL,
		  "unused variable: `unused`", NULL },
		END } },
	{ "shellcheck-tty", "shellcheck", "sh", "", "shellcheck", 10,
	  "deploy.sh|bin/clean.sh", NULL,
	  {
		{ 0, "deploy.sh", 3, 4, "SC2086", "note", NULL,
		  "Double quote to prevent globbing and word splitting.", NULL },
		{ 1, "deploy.sh", 4, 6, "SC2086", "note", NULL,
		  "Double quote to prevent globbing and word splitting.", NULL },
		{ 2, "deploy.sh", 5, 8, "SC2046", "warning", NULL,
		  "Quote this to prevent word splitting.", NULL },
		{ 9, "bin/clean.sh", 3, 31, "SC2086", "note", NULL,
		  "Double quote to prevent globbing and word splitting.", NULL },
		END } },
	{ "shellcheck-color", "shellcheck", "sh", "", "shellcheck", 6,
	  "deploy.sh", NULL,
	  {
		{ 0, "deploy.sh", 3, 4, "SC2086", "note", NULL,
		  "Double quote to prevent globbing and word splitting.", NULL },
		{ 1, "deploy.sh", 4, 6, "SC2086", "note", NULL,
		  "Double quote to prevent globbing and word splitting.", NULL },
		{ 2, "deploy.sh", 5, 8, "SC2046", "warning", NULL,
		  "Quote this to prevent word splitting.", NULL },
		{ 5, "deploy.sh", 7, 1, "SC2164", "warning", NULL,
		  "Use 'cd ... || exit' or 'cd ... || return' in case cd fails.", NULL },
		END } },
	{ "shellcheck-gcc", "shellcheck", "sh", "", "shellcheck", 10, NULL, "shellcheck-tty", { END } },
	{ "shellcheck-abs", "shellcheck", "sh", "", "shellcheck", 4,
	  "bin/clean.sh", NULL,
	  {
		{ 0, "bin/clean.sh", 2, 8, "SC2115", "warning", NULL,
		  "Use \"${var:?}\" to ensure this never expands to /* .", NULL },
		{ 1, "bin/clean.sh", 3, 10, "SC2045", "error", NULL,
		  "Iterating over ls output is fragile. Use globs.", NULL },
		{ 2, "bin/clean.sh", 3, 15, "SC2035", "note", NULL,
		  "Use ./*glob* or -- *glob* so names with dashes won't become options.", NULL },
		{ 3, "bin/clean.sh", 3, 31, "SC2086", "note", NULL,
		  "Double quote to prevent globbing and word splitting.", NULL },
		END } },
	{ "shellcheck-tty-abs", "shellcheck", "sh", "", "shellcheck", 4, NULL, "shellcheck-abs", { END } },
	{ "shellcheck-json1", "shellcheck", "sh", "", "shellcheck", 6, NULL, "shellcheck-color", { END } },
	{ "ctest-default", "ctest", "cm", "build", "ctest", 4,
	  "", NULL,
	  {
		{ 0, NULL, 0, 0, "Failed", "error", "math_add",
		  "Failed", NULL },
		{ 1, NULL, 0, 0, "Timeout", "error", "math_div",
		  "Timeout", NULL },
		{ 2, NULL, 0, 0, "Subprocess aborted", "error", "str_upper",
		  "Subprocess aborted", NULL },
		{ 3, NULL, 0, 0, "Not Run", "error", "missing_exe",
		  "Not Run", NULL },
		END } },
	{ "ctest-output", "ctest", "cm", "build", "ctest", 4,
	  "tests/test_math.c|tests/test_str.c", NULL,
	  {
		{ 0, "tests/test_math.c", 16, 0, "Failed", "error", "math_add",
		  "add(1, 2) == 4, expected 3", NULL },
		{ 1, NULL, 0, 0, "Timeout", "error", "math_div",
		  "Timeout", NULL },
		{ 2, "tests/test_str.c", 6, 0, "Subprocess aborted", "error", "str_upper",
		  "main: Assertion `toupper('a') == 'a'' failed.", NULL },
		{ 3, NULL, 0, 0, "Not Run", "error", "missing_exe",
		  "Not Run", NULL },
		END } },
	{ "ctest-verbose", "ctest", "cm", "build", "ctest", 1,
	  "tests/test_math.c", NULL,
	  {
		{ 0, "tests/test_math.c", 16, 0, "Failed", "error", "math_add",
		  "add(1, 2) == 4, expected 3", NULL },
		END } },
	{ "ctest-test-dir", "ctest", "cm", "", "ctest", 2,
	  "tests/test_math.c|tests/test_str.c", NULL,
	  {
		{ 0, "tests/test_math.c", 16, 0, "Failed", "error", "math_add",
		  "add(1, 2) == 4, expected 3", NULL },
		{ 1, "tests/test_str.c", 6, 0, "Subprocess aborted", "error", "str_upper",
		  "main: Assertion `toupper('a') == 'a'' failed.", NULL },
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
	callus_failure f, g;
	callus_buf files = CALLUS_BUF_INIT;

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
	callus_buf_release(&files);
	callus_failure_release(&f);
}

static void run_prefix(const char *prefix)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strncmp(cases[i].sample, prefix, strlen(prefix))) {
			run_case(&cases[i]);
			n++;
		}
	assert_true(n > 0);
}

static void pytest_samples(void **state) { (void)state; run_prefix("pytest-"); }
static void unittest_samples(void **state) { (void)state; run_prefix("unittest-"); }
static void mypy_samples(void **state) { (void)state; run_prefix("mypy-"); }
static void flake8_samples(void **state) { (void)state; run_prefix("flake8-"); }
static void pylint_samples(void **state) { (void)state; run_prefix("pylint-"); }
static void ruff_samples(void **state) { (void)state; run_prefix("ruff-"); }
static void gcc_samples(void **state) { (void)state; run_prefix("gcc-"); run_prefix("gxx-"); }
static void clang_samples(void **state) { (void)state; run_prefix("clang"); }
static void make_samples(void **state) { (void)state; run_prefix("make-"); }
static void cppcheck_samples(void **state) { (void)state; run_prefix("cppcheck-"); }

/*
 * make's parser takes a recipe's lines where they lie in the output while
 * they follow one another, and copies them once one does not: the same
 * analysis whether the output ends with its newline or not, and whether
 * some lines (with trailing blanks, which a line is read without) break
 * the run there.
 */
static void make_segments_read_in_place_or_copied(void **state)
{
	static const char *const samples[] = { "make-subdir", "make-keep-going", "make-outside" };

	(void)state;
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const tcase *c = find_case(samples[i]);
		callus_failure f, g;
		callus_buf v = CALLUS_BUF_INIT;
		size_t len, line = 0;
		char *data = read_sample(c->sample, &len);

		analyse_data(&f, c->tool, data, len, c->project, c->cwd);
		/* unterminated */
		while (len && data[len - 1] == '\n')
			len--;
		analyse_data(&g, c->tool, data, len, c->project, c->cwd);
		parse_assert_same(c->sample, &f, &g);
		callus_failure_release(&g);
		/* every third line with blanks after it, the last one too */
		for (size_t k = 0; k < len; k++) {
			if (data[k] == '\n' && ++line % 3 == 0)
				callus_buf_puts(&v, "  \t");
			callus_buf_putc(&v, data[k]);
		}
		callus_buf_puts(&v, " ");
		assert_int_equal(callus_buf_status(&v), 0);
		analyse_data(&g, c->tool, v.ptr, v.len, c->project, c->cwd);
		parse_assert_same(c->sample, &f, &g);
		callus_failure_release(&g);
		callus_failure_release(&f);
		callus_buf_release(&v);
		free(data);
	}
	/* a recipe's line last, unterminated (an agent's payload seldom ends
	 * with a newline): the run ends there, as it lies */
	{
		static const char *const ended[] = {
			"cc -c bad.c\nbad.c:4:20: error: 'z' undeclared\nbad.c:3:13: error: unused variable 'y'\n",
			"make[1]: Entering directory '/tmp/callus-native/c/lib'\ncc -c bad.c\n"
			"bad.c:4:20: error: 'z' undeclared\nbad.c:3:13: error: unused variable 'y'\n",
		};
		callus_failure f, g;

		for (size_t i = 0; i < sizeof(ended) / sizeof(ended[0]); i++) {
			size_t len = strlen(ended[i]);

			analyse_data(&f, "make", ended[i], len, "c", "");
			assert_int_equal(f.diags.count, 2);
			analyse_data(&g, "make", ended[i], len - 1, "c", "");
			parse_assert_same("unterminated", &f, &g);
			callus_failure_release(&g);
			callus_failure_release(&f);
		}
	}
}
/*
 * What make's parser hands on of a recipe's lines.  A compiler's line
 * names a file before anything else: never taken for a command line
 * echoed, even when the file is named as a versioned compiler is
 * (gcc-12.c, cc-4.c).  A step's lines are cleaned once, by make's reader,
 * and read again as they are: colours and a byte of Latin-1 are gone from
 * what gcc's parser finds.
 */
static void make_recipes_read_as_said(void **state)
{
	static const struct {
		const char *out;
		size_t n;
		struct {
			const char *file, *message;
			long line;
		} want[2];
	} recipes[] = {
		{ "gcc-12 -c gcc-12.c\n"
		  "gcc-12.c:4:20: error: 'z' undeclared (first use in this function)\n"
		  "x86_64-linux-gnu-gcc -c cc-4.c\n"
		  "cc-4.c:2:1: error: expected ';' before '}' token\n"
		  "make: *** [Makefile:3: all] Error 1\n",
		  2,
		  { { "gcc-12.c", "'z' undeclared (first use in this function)", 4 },
		    { "cc-4.c", "expected ';' before '}' token", 2 } } },
		{ "make[1]: Entering directory '/tmp/callus-native/c/lib'\n"
		  "\033[01m\033[Kbad.c:4:20:\033[m\033[K \033[01;31m\033[Kerror: \033[m\033[K"
		  "'caf\xe9' undeclared\n"
		  "make[1]: *** [Makefile:3: all] Error 1\n",
		  1,
		  { { "lib/bad.c", "'caf\xef\xbf\xbd' undeclared", 4 } } },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(recipes) / sizeof(recipes[0]); i++) {
		callus_failure f;

		analyse_data(&f, "make", recipes[i].out, strlen(recipes[i].out), "c", "");
		assert_int_equal(f.diags.count, recipes[i].n);
		for (size_t k = 0; k < recipes[i].n; k++) {
			assert_string_equal(f.diags.items[k].file, recipes[i].want[k].file);
			assert_int_equal(f.diags.items[k].line, recipes[i].want[k].line);
			assert_string_equal(f.diags.items[k].message, recipes[i].want[k].message);
		}
		callus_failure_release(&f);
	}
}
static void go_samples(void **state) { (void)state; run_prefix("go-"); }
static void cargo_samples(void **state) { (void)state; run_prefix("cargo-"); run_prefix("rustc-"); }
static void shellcheck_samples(void **state) { (void)state; run_prefix("shellcheck-"); }
static void ctest_samples(void **state) { (void)state; run_prefix("ctest-"); }

/* Under a wrapper (`npm test`, `make check` running anything), the output
 * itself names the parser. */
static const struct {
	const char *sample, *parser;
} sniffed[] = {
	{ "pytest-default", "pytest" },
	{ "pytest-color", "pytest" },
	{ "pytest-short", "pytest" },
	{ "pytest-native-abs", "pytest" },
	{ "pytest-verbose-line", "pytest" },
	{ "pytest-collect-error", "pytest" },
	{ "pytest-many", "pytest" },
	{ "unittest-default", "unittest" },
	{ "unittest-verbose", "unittest" },
	{ "unittest-discover", "unittest" },
	{ "unittest-abs", "unittest" },
	{ "mypy-default", "mypy" },
	{ "mypy-pretty", "mypy" },
	{ "mypy-color", "mypy" },
	{ "mypy-abs", "mypy" },
	{ "mypy-notes", "mypy" },
	{ "flake8-default", "flake8" },
	{ "flake8-color", "flake8" },
	{ "flake8-abs", "flake8" },
	{ "pylint-default", "pylint" },
	{ "pylint-color", "pylint" },
	{ "pylint-parseable", "pylint" },
	{ "pylint-json", "pylint" },
	{ "ruff-concise", "ruff" },
	{ "ruff-full", "ruff" },
	{ "ruff-full-old", "ruff" },
	{ "ruff-grouped", "ruff" },
	{ "ruff-pylint", "flake8" },
	{ "gcc-errors", "gcc" },
	{ "gcc-errors-color", "gcc" },
	{ "gcc-werror", "gcc" },
	{ "gcc-abs", "gcc" },
	{ "gcc-link", "gcc" },
	{ "gcc-link-g", "gcc" },
	{ "gcc-fatal", "gcc" },
	{ "gxx-template", "gcc" },
	{ "clang-errors", "gcc" },
	{ "clang-errors-color", "gcc" },
	{ "clang-werror", "gcc" },
	{ "clang-link", "gcc" },
	{ "clangxx-template", "gcc" },
	{ "make-subdir", "make" },
	{ "make-keep-going", "make" },
	{ "make-color", "make" },
	{ "make-outside", "make" },
	{ "make-no-rule", "make" },
	{ "make-missing-dep", "make" },
	{ "make-separator", "make" },
	{ "make-check-script", "make" },
	{ "make-check-ctest", "ctest" },
	{ "make-check-pytest", "pytest" },
	{ "make-test-go", "go" },
	{ "cppcheck-default", "cppcheck" },
	{ "cppcheck-all", "cppcheck" },
	{ "cppcheck-gcc-template", "cppcheck" },
	{ "cppcheck-quiet-abs", "cppcheck" },
	{ "go-build", "go" },
	{ "go-vet", "go" },
	{ "go-test", "go" },
	{ "go-test-verbose", "go" },
	{ "go-test-broken", "go" },
	{ "go-test-count", "go" },
	{ "go-test-json", "generic" },
	{ "cargo-build", "cargo" },
	{ "cargo-build-color", "cargo" },
	{ "cargo-check-json", "cargo" },
	{ "cargo-build-short", "cargo" },
	{ "rustc-direct", "cargo" },
	{ "rustc-direct-json", "cargo" },
	{ "cargo-test", "cargo" },
	{ "cargo-test-color", "cargo" },
	{ "cargo-test-backtrace", "cargo" },
	{ "cargo-test-from-root", "cargo" },
	{ "cargo-ws-member", "cargo" },
	{ "cargo-ws-json", "cargo" },
	{ "cargo-clippy", "cargo" },
	{ "cargo-ws-short-warning", "generic" },
	{ "shellcheck-tty", "shellcheck" },
	{ "shellcheck-color", "shellcheck" },
	{ "shellcheck-gcc", "shellcheck" },
	{ "shellcheck-abs", "shellcheck" },
	{ "shellcheck-tty-abs", "shellcheck" },
	{ "shellcheck-json1", "shellcheck" },
	{ "ctest-default", "ctest" },
	{ "ctest-output", "ctest" },
	{ "ctest-verbose", "ctest" },
	{ "ctest-test-dir", "ctest" },
};

static void sniffing(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sniffed) / sizeof(sniffed[0]); i++) {
		const tcase *c = find_case(sniffed[i].sample);
		callus_failure f;

		print_message("%s\n", c->sample);
		analyse(&f, "npm test", c->sample, c->project, c->cwd);
		parse_assert_str("parser", f.parser, sniffed[i].parser);
		/* the same errors as when the tool is named, unless make's
		 * recipes were read without make's directories */
		if (!strcmp(f.parser, c->parser))
			assert_int_equal(f.diags.count, c->count);
		callus_failure_release(&f);
	}
}

/* The names the detector gives (docs/config.md) choose these parsers. */
static void tool_names(void **state)
{
	static const char *const map[][2] = {
		{ "pytest", "pytest" },	       { "unittest", "unittest" },
		{ "mypy", "mypy" },	       { "ruff", "ruff" },
		{ "flake8", "flake8" },	       { "pylint", "pylint" },
		{ "gcc", "gcc" },	       { "g++", "gcc" },
		{ "clang", "gcc" },	       { "clang++", "gcc" },
		{ "cc", "gcc" },	       { "c++", "gcc" },
		{ "make", "make" },	       { "go test", "go" },
		{ "go vet", "go" },	       { "go build", "go" },
		{ "cargo test", "cargo" },     { "cargo build", "cargo" },
		{ "cargo check", "cargo" },    { "cargo clippy", "cargo" },
		{ "shellcheck", "shellcheck" }, { "cppcheck", "cppcheck" },
		{ "ctest", "ctest" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const callus_parser *p = callus_parser_select(map[i][0], "", 0);

		assert_non_null(p);
		parse_assert_str(map[i][0], p->name, map[i][1]);
		assert_true(callus_parser_find(map[i][1]) == p);
	}
}

/*
 * Beyond the raw head the capture keeps (outputs over 4 MB), the parsers
 * read the filtered lines alone: the errors are still found.
 */
static void filtered_text_only(void **state)
{
	static const char *const samples[] = {
		"gcc-errors", "clang-werror", "flake8-default", "mypy-default", "pylint-default",
		"go-build", "go-test", "cargo-build-short", "pytest-default", "ctest-output",
		"shellcheck-gcc", "cppcheck-default", "unittest-default",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		const tcase *c = find_case(samples[i]);
		callus_buf text = CALLUS_BUF_INIT, ws = CALLUS_BUF_INIT;
		callus_diags d = CALLUS_DIAGS_INIT;
		callus_strlist files = CALLUS_STRLIST_INIT;
		callus_capture cap;
		callus_pathctx pc;
		callus_parse_input in;
		const callus_parser *p = callus_parser_find(c->parser);
		size_t len;
		char *data = read_sample(c->sample, &len);

		print_message("%s\n", c->sample);
		parse_capture(&cap, data, len);
		assert_int_equal(callus_capture_text(&cap, &text), 0);
		callus_buf_printf(&ws, ROOT "%s", c->project);
		pc.workspace = ws.ptr;
		pc.workspace_real = NULL;
		pc.cwd_rel = c->cwd;
		pc.memo = NULL;
		memset(&in, 0, sizeof(in));
		in.text = text.ptr;
		in.text_len = text.len;
		in.tool = c->tool;
		in.command = "";
		in.pc = &pc;
		assert_int_equal(p->parse(&in, &d, &files), 0);
		assert_int_equal(d.count, c->count);
		callus_diags_release(&d);
		callus_strlist_release(&files);
		callus_buf_release(&text);
		callus_buf_release(&ws);
		callus_capture_release(&cap);
		free(data);
	}
}

/* More errors than are kept: counted, not kept; the files all noted. */
static void many_errors(void **state)
{
	callus_buf out = CALLUS_BUF_INIT;
	callus_failure f;

	(void)state;
	for (int i = 0; i < 1500; i++)
		callus_buf_printf(&out, "src/m%02d.py:%d:1: E501 line too long (%d > 79 characters)\n",
				i % 30, i + 1, 80 + i);
	analyse_data(&f, "flake8", out.ptr, out.len, "py", "");
	parse_assert_str("parser", f.parser, "flake8");
	assert_int_equal(f.diags.count, CALLUS_DIAGS_MAX);
	assert_int_equal(f.diags.dropped, 500);
	assert_int_equal(f.files.count, 30);
	parse_assert_str("last", f.diags.items[CALLUS_DIAGS_MAX - 1].file, "src/m09.py");
	assert_int_equal(f.diags.items[CALLUS_DIAGS_MAX - 1].line, 1000);
	callus_failure_release(&f);
	callus_buf_release(&out);
}

/* Toolchains, third-party trees and other projects are no affected files,
 * nor their frames; the errors stay, without a location. */
static void outside_paths(void **state)
{
	static const char gcc[] =
		"In file included from src/main.c:1:\n"
		"/usr/include/stdio.h:12:5: error: conflicting types for 'printf'\n"
		"/tmp/callus-native/other/x.c:3:1: error: expected ';'\n"
		"../../x.c:4:1: error: expected ')'\n";
	static const char cargo[] =
		"error[E0432]: unresolved import `serde::Foo`\n"
		" --> /root/.cargo/registry/src/index.crates.io-6f17d22bba15001f/serde-1.0.0/src/lib.rs:3:5\n"
		"  |\n\n";
	static const char py[] =
		"======================================================================\n"
		"ERROR: test_get (test_net.TestNet.test_get)\n"
		"----------------------------------------------------------------------\n"
		"Traceback (most recent call last):\n"
		"  File \"/tmp/callus-native/py/ut/test_net.py\", line 9, in test_get\n"
		"    fetch()\n"
		"  File \"/tmp/callus-native/py/.venv/lib/python3.11/site-packages/requests/api.py\", line 73, in get\n"
		"    return request(\"get\", url)\n"
		"  File \"/usr/lib/python3.11/socket.py\", line 962, in getaddrinfo\n"
		"    for res in _socket.getaddrinfo(host, port, family, type, proto, flags):\n"
		"socket.gaierror: [Errno -2] Name or service not known\n"
		"\n----------------------------------------------------------------------\n"
		"Ran 1 test in 0.001s\n\nFAILED (errors=1)\n";
	callus_failure f;

	(void)state;
	analyse_data(&f, "gcc", gcc, sizeof(gcc) - 1, "c", "");
	assert_int_equal(f.diags.count, 3);
	assert_int_equal(f.files.count, 0);
	for (size_t i = 0; i < 3; i++) {
		assert_null(f.diags.items[i].file);
		assert_int_equal(f.diags.items[i].line, 0);
	}
	callus_failure_release(&f);

	analyse_data(&f, "cargo build", cargo, sizeof(cargo) - 1, "rs", "");
	assert_int_equal(f.diags.count, 1);
	assert_null(f.diags.items[0].file);
	parse_assert_str("code", f.diags.items[0].code, "E0432");
	assert_int_equal(f.files.count, 0);
	callus_failure_release(&f);

	analyse_data(&f, "unittest", py, sizeof(py) - 1, "py", "");
	assert_int_equal(f.diags.count, 1);
	/* the innermost frame inside the workspace: the test's own */
	parse_assert_str("file", f.diags.items[0].file, "ut/test_net.py");
	assert_int_equal(f.diags.items[0].line, 9);
	parse_assert_str("code", f.diags.items[0].code, "socket.gaierror");
	assert_int_equal(f.diags.items[0].frames.count, 1);
	assert_int_equal(f.files.count, 1);
	callus_failure_release(&f);
}

/* go test run from above the module (`cd go && ...` from the workspace
 * root): log lines resolve in the package's directory under it. */
static void go_from_parent(void **state)
{
	callus_failure f;

	(void)state;
	analyse(&f, "go test", "go-test-count", "", "go");
	assert_int_equal(f.diags.count, 2);
	parse_assert_str("file", f.diags.items[0].file, "go/calc/calc_test.go");
	parse_assert_str("test", f.diags.items[1].test, "TestDescribe/plural");
	callus_failure_release(&f);
}

/* What any_line_asked saw: the lines it was asked about, one a line. */
static callus_buf asked = CALLUS_BUF_INIT;

/* Says yes to the line "ab" alone, and notes each line asked. */
static int any_line_asked(const char *s, size_t len)
{
	callus_buf_put(&asked, s, len);
	callus_buf_putc(&asked, '\n');
	return len == 2 && !memcmp(s, "ab", 2);
}

/* callus_pu_any_line asks a line equal to the one before it no more (a
 * sniffer's predicate reads the line alone), but asks a line that only
 * begins like it, or that comes again later, and stops at a yes. */
static void any_line_asks_each_run_once(void **state)
{
	static const char text[] = "x\nx\nabc\nabc\nx\nabc\nab\nab\nz\n";

	(void)state;
	assert_int_equal(callus_pu_any_line(text, strlen(text), any_line_asked), 1);
	assert_string_equal(asked.ptr, "x\nabc\nx\nabc\nab\n");
	callus_buf_clear(&asked);
	assert_int_equal(callus_pu_any_line("abc\nabc\n", 8, any_line_asked), 0);
	assert_string_equal(asked.ptr, "abc\n");
	callus_buf_release(&asked);
}

/* What a parser's sniff was shown: each window's place in the text and
 * its length (a test's record, reset before each use). */
static struct {
	const char *base;
	size_t n, off[2], len[2];
} shown;

static int record_windows(const char *text, size_t len)
{
	if (shown.n < 2) {
		shown.off[shown.n] = (size_t)(text - shown.base);
		shown.len[shown.n] = len;
	}
	shown.n++;
	return 0;
}

/* A text whose last line has no newline (a capture's text lent from the
 * output) is shown to the sniffs in the windows of the same text with
 * it: the same lines, the last without its newline.  Texts of random
 * lines around two windows' length and past it, some whose byte a
 * window's length before their end is a newline (where the tail's first
 * line would move by one). */
static void sniff_windows_as_with_the_last_newline(void **state)
{
	static const callus_parser recorder = { "recorder", NULL, record_windows, NULL, NULL };
	callus_buf text = CALLUS_BUF_INIT;
	unsigned seed = 792;
	int edge = 0, two = 0;

	(void)state;
	for (int round = 0; round < 400; round++) {
		size_t target, off[2], len[2], n;

		seed = seed * 1103515245u + 12345u;
		target = 2 * CALLUS_SNIFF_WINDOW - 300 + (seed >> 16) % (round % 4 ? 600 : 70000);
		callus_buf_clear(&text);
		while (text.len < target) {
			seed = seed * 1103515245u + 12345u;
			for (size_t k = (seed >> 16) % 90; k > 0; k--)
				callus_buf_putc(&text, 'a' + (char)(k % 26));
			callus_buf_putc(&text, '\n');
		}
		assert_int_equal(callus_buf_status(&text), 0);
		/* with its last newline */
		memset(&shown, 0, sizeof(shown));
		shown.base = text.ptr;
		assert_int_equal(callus_parser_sniff(&recorder, text.ptr, text.len), 0);
		n = shown.n;
		memcpy(off, shown.off, sizeof(off));
		memcpy(len, shown.len, sizeof(len));
		if (text.len > CALLUS_SNIFF_WINDOW && text.ptr[text.len - 1 - CALLUS_SNIFF_WINDOW] == '\n')
			edge++;
		two += n == 2;
		/* without it */
		memset(&shown, 0, sizeof(shown));
		shown.base = text.ptr;
		assert_int_equal(callus_parser_sniff(&recorder, text.ptr, text.len - 1), 0);
		assert_int_equal(shown.n, n);
		for (size_t w = 0; w < n; w++) {
			assert_int_equal(shown.off[w], off[w]);
			assert_int_equal(shown.len[w] + (off[w] + len[w] == text.len), len[w]);
		}
	}
	callus_buf_release(&text);
	assert_true(two > 100);
	assert_true(edge > 0);
}

/* The parsers in the table's order, each asked on its own, but those
 * refuse() refuses: what callus_parser_sniff_first answers. */
static const callus_parser *sniffed_in_turn(const char *text, size_t len,
					    int (*refuse)(const callus_parser *, const void *),
					    const void *arg)
{
	const callus_parser *p;

	for (size_t i = 0; (p = callus_parser_at(i)); i++)
		if ((!refuse || !refuse(p, arg)) && callus_parser_sniff(p, text, len))
			return p;
	return NULL;
}

/* Refuses the parsers at places of the table that are multiples of *arg,
 * and the one named *(arg + 1) when set. */
static int skip_every(const callus_parser *p, const void *arg)
{
	const size_t *every = arg;
	const callus_parser *q;

	for (size_t i = 0; (q = callus_parser_at(i)); i++)
		if (q == p)
			return (every[0] && i % every[0] == 0) || (every[1] && i + 1 == every[1]);
	return 0;
}

/* The table's search, its line sniffers asked as each line is read once,
 * answers as the parsers asked one by one: every sample of
 * tests/parsers/, alone and followed by three others (a parser's lines
 * after another's), one pair long enough for a head and a tail window
 * (the sample repeated past 128 KB, the other after it), with every
 * fourth parser, or the answer itself, refused. */
static void sniff_first_as_each_in_turn(void **state)
{
	static const char *const dirs[] = { "tests/parsers/native", "tests/parsers/js" };
	callus_strlist names = CALLUS_STRLIST_INIT;
	callus_buf text = CALLUS_BUF_INIT;
	char **data = NULL;
	size_t *lens = NULL, n = 0, chosen = 0, nasked = 0;
	const callus_parser *seen[64];

	(void)state;
	for (size_t d = 0; d < 2; d++) {
		char path[512];
		const char *root = getenv("CALLUS_SRCDIR");
		DIR *dir;
		struct dirent *e;

		snprintf(path, sizeof(path), "%s/%s", root ? root : ".", dirs[d]);
		assert_non_null(dir = opendir(path));
		while ((e = readdir(dir)))
			if (strstr(e->d_name, ".txt") || strstr(e->d_name, ".json")) {
				snprintf(path, sizeof(path), "%s/%s", dirs[d], e->d_name);
				assert_int_equal(callus_strlist_add(&names, path, strlen(path)), 0);
			}
		closedir(dir);
	}
	assert_true(names.count > 60);
	/* no text, a line without its newline, blank lines, one repeated */
	{
		static const char *const small[] = { "", "x", "\n\n\n", "error TS2322: x\n",
						     "a\na\na", "src/a.c:1:2: error: x" };

		for (size_t i = 0; i < sizeof(small) / sizeof(small[0]); i++)
			assert_ptr_equal(callus_parser_sniff_first(small[i], strlen(small[i]), NULL,
								   NULL),
					 sniffed_in_turn(small[i], strlen(small[i]), NULL, NULL));
	}
	assert_non_null(data = calloc(names.count, sizeof(*data)));
	assert_non_null(lens = calloc(names.count, sizeof(*lens)));
	for (; n < names.count; n++)
		data[n] = parse_read(names.items[n], &lens[n]);
	for (size_t i = 0; i < n; i++)
		for (size_t p = 0; p < 4; p++) {
			/* the sample alone, then after it three others */
			size_t j = p == 0 ? i : p == 1 ? (i + 1) % n : (i * (p == 2 ? 7 : 13) + 5) % n;

			for (int form = p ? 1 : 0; form < (p ? (p == 1 ? 3 : 2) : 1); form++) {
				size_t skips[3][2] = { { 0, 0 }, { 4, 0 }, { 0, 0 } };
				const callus_parser *expect;

				callus_buf_clear(&text);
				/* the sample alone, a pair, or a pair past two windows */
				do
					callus_buf_put(&text, data[i], lens[i]);
				while (form == 2 && text.len <= 2 * CALLUS_SNIFF_WINDOW);
				if (form)
					callus_buf_put(&text, data[j], lens[j]);
				assert_int_equal(callus_buf_status(&text), 0);
				expect = sniffed_in_turn(text.ptr, text.len, NULL, NULL);
				/* the answer refused too: the next one found */
				for (size_t k = 0; expect && !skips[2][1] && callus_parser_at(k); k++)
					if (callus_parser_at(k) == expect)
						skips[2][1] = k + 1;
				for (size_t s = 0; s < 3; s++) {
					const callus_parser *a =
						sniffed_in_turn(text.ptr, text.len, s ? skip_every : NULL,
								skips[s]),
						*b = callus_parser_sniff_first(text.ptr, text.len,
									       s ? skip_every : NULL,
									       skips[s]);

					if (a != b)
						fail_msg("%s then %s (form %d, skip %zu): %s, in turn %s",
							 names.items[i], names.items[j], form, s,
							 b ? b->name : "none", a ? a->name : "none");
					nasked++;
					if (a && chosen < 64) {
						size_t k = 0;

						while (k < chosen && seen[k] != a)
							k++;
						if (k == chosen)
							seen[chosen++] = a;
					}
				}
			}
		}
	/* many parsers answered, and the answers were asked of thousands */
	assert_true(chosen >= 20);
	assert_true(nasked > 1000);
	for (size_t i = 0; i < n; i++)
		free(data[i]);
	free(data);
	free(lens);
	callus_strlist_release(&names);
	callus_buf_release(&text);
}

/* callus_pu_find against the byte-by-byte search it stands for: needles
 * with leading spaces (found by their first other byte), all spaces, at
 * the start, at the end, overlapping, longer than the text. */
static void find_is_the_first_occurrence(void **state)
{
	static const char *const needles[] = { " [*] ", "  x", " ", "   ", "ab", "aab", " a ",
					       "b  ", "abab", "x" };
	static const char alphabet[] = "ab x";
	char text[24];
	unsigned seed = 12345;
	(void)state;

	for (int round = 0; round < 20000; round++) {
		size_t len = (seed = seed * 1103515245u + 12345u) >> 16 & 15;

		for (size_t i = 0; i < len; i++)
			text[i] = alphabet[(seed = seed * 1103515245u + 12345u) >> 16 & 3];
		for (size_t k = 0; k < sizeof(needles) / sizeof(needles[0]); k++) {
			size_t n = strlen(needles[k]);
			long first = -1;

			for (size_t at = 0; first < 0 && at + n <= len; at++)
				if (!memcmp(text + at, needles[k], n))
					first = (long)at;
			assert_int_equal(callus_pu_find(text, len, needles[k]), first);
		}
	}
}

/* "path:LINE[:COL]" read as its definition says (util.h), a byte and a
 * digit at a time. */
static int location_as_said(const char *s, size_t len, callus_pu_loc *loc)
{
	size_t i = 0, d;

	while (i < len && s[i] != ':' && s[i] != ' ' && s[i] != '\t')
		i++;
	if (i == 0 || i + 1 >= len || s[i] != ':' || s[0] == '<')
		return 0;
	loc->path = s;
	loc->path_len = i++;
	for (d = 0, loc->line = 0; i + d < len && d < 9 && s[i + d] >= '0' && s[i + d] <= '9'; d++)
		loc->line = loc->line * 10 + (s[i + d] - '0');
	/* ten digits and more are no line number */
	if (!d || (d == 9 && i + d < len && s[i + d] >= '0' && s[i + d] <= '9'))
		return 0;
	i += d;
	loc->col = 0;
	loc->has_col = 0;
	if (i + 1 < len && s[i] == ':' && s[i + 1] >= '0' && s[i + 1] <= '9') {
		i++;
		for (d = 0; i + d < len && d < 9 && s[i + d] >= '0' && s[i + d] <= '9'; d++)
			loc->col = loc->col * 10 + (s[i + d] - '0');
		if (d == 9 && i + d < len && s[i + d] >= '0' && s[i + d] <= '9')
			return 0;
		loc->has_col = 1;
		i += d;
	}
	if (i < len && s[i] == ':')
		i++;
	loc->end = i;
	return 1;
}

/* callus_pu_location (the bytes that end a path sought by
 * callus_span_none3, sixteen at a time; its numbers read inline) against
 * its definition, on
 * 300,000 texts of paths short and long, blanks, colons and numbers of
 * every length up to eleven digits. */
static void location_read_as_said(void **state)
{
	static const char *const pieces[] = {
		"src/a.c", "a", "<", ":", "::", " ", "\t", "0", "7", "12", "123456789",
		"1234567890", "99999999999", "-", "x:1", "\xc3\xa9", "lib/deep/tree/of/modules",
	};
	uint64_t x = 0x853c49e6748fea9bu;
	size_t located = 0;
	char text[128];

	(void)state;
	for (int round = 0; round < 300000; round++) {
		callus_pu_loc got, said;
		size_t n = (size_t)(pieces_next(&x) % 11), len;
		int g, w;

		len = pieces_line(text, sizeof(text), pieces, sizeof(pieces) / sizeof(*pieces), n, &x);
		/* digits past the end, never to be read */
		memset(text + len, '5', sizeof(text) - len);
		memset(&got, 0, sizeof(got));
		memset(&said, 0, sizeof(said));
		g = callus_pu_location(text, len, &got);
		w = location_as_said(text, len, &said);
		if (g != w)
			fail_msg("\"%.*s\": %d, as said %d", (int)len, text, g, w);
		if (!w)
			continue;
		located++;
		assert_ptr_equal(got.path, said.path);
		assert_int_equal(got.path_len, said.path_len);
		assert_int_equal(got.line, said.line);
		assert_int_equal(got.col, said.col);
		assert_int_equal(got.has_col, said.has_col);
		assert_int_equal(got.end, said.end);
	}
	assert_true(located > 10000);
}

/* g++'s error inside a system header an instantiation of the project's
 * reached: at the project's "required from here" (found by an outside
 * review: no file at all). */
static void gxx_error_from_a_system_header(void **state)
{
	static const char out[] =
		"In file included from /usr/include/c++/12/map:60,\n"
		"                 from src/app.cpp:1:\n"
		"/usr/include/c++/12/bits/stl_function.h: In instantiation of \xe2\x80\x98" "constexpr bool std::less<_Tp>::operator()\xe2\x80\x99:\n"
		"/usr/include/c++/12/bits/stl_map.h:529:32:   required from \xe2\x80\x98" "std::map<K, int>::operator[]\xe2\x80\x99\n"
		"src/app.cpp:3:37:   required from here\n"
		"/usr/include/c++/12/bits/stl_function.h:408:20: error: no match for \xe2\x80\x98" "operator<\xe2\x80\x99\n"
		"  408 |       { return __x < __y; }\n"
		"/usr/include/c++/12/bits/stl_pair.h:663:5: note: candidate: \xe2\x80\x98template<...>\xe2\x80\x99\n"
		"/usr/include/c++/12/bits/stl_function.h:409:1: error: expected \xe2\x80\x98;\xe2\x80\x99\n";
	callus_failure f;

	(void)state;
	analyse_data(&f, "g++", out, strlen(out), "c-app", "");
	parse_assert_str("parser", f.parser, "gcc");
	assert_int_equal(f.diags.count, 2);
	parse_assert_str("file", f.diags.items[0].file, "src/app.cpp");
	assert_int_equal(f.diags.items[0].line, 3);
	/* the next error has no "required from" of its own: no file */
	assert_null(f.diags.items[1].file);
	callus_failure_release(&f);
}

/* A link whose object names its source by base name only, no other
 * line naming it: the file the command compiled (found by an outside
 * review: no file at all); two such files: no guess. */
static void linker_file_from_the_command(void **state)
{
	static const char out[] =
		"/usr/bin/ld: /tmp/ccU17p5I.o: in function `main':\n"
		"main.c:(.text+0x5): undefined reference to `helper'\n"
		"collect2: error: ld returned 1 exit status\n";
	callus_failure f;

	(void)state;
	analyse_data(&f, "gcc -o prog src/main.c lib/util.c", out, strlen(out), "c-app", "");
	parse_assert_str("parser", f.parser, "gcc");
	assert_int_equal(f.diags.count, 1);
	parse_assert_str("file", f.diags.items[0].file, "src/main.c");
	callus_failure_release(&f);
	analyse_data(&f, "gcc -o prog src/main.c test/main.c", out, strlen(out), "c-app", "");
	assert_int_equal(f.diags.count, 1);
	assert_null(f.diags.items[0].file);
	callus_failure_release(&f);
}

/* The linker's two phrases are found wherever a line has them (the
 * search reads sixteen places at a time, then the last sixteen again):
 * each at every place of lines of 23 to 90 bytes, "ef" elsewhere in the
 * line, and both in one line, where "undefined reference to " is read
 * wherever it is. */
static void linker_phrases_anywhere(void **state)
{
	static const char *const phrases[] = { "undefined reference to ",
					       "multiple definition of " };
	callus_buf out = CALLUS_BUF_INIT;
	callus_failure f;

	(void)state;
	for (size_t p = 0; p < 2; p++)
		for (size_t pad = 0; pad <= 48; pad++)
			for (size_t tail = 0; tail <= 20; tail += 4) {
				callus_buf_clear(&out);
				callus_buf_puts(&out, "/usr/bin/ld: o");
				for (size_t k = 0; k < pad; k++)
					callus_buf_putc(&out, k % 7 == 3 ? 'e' : k % 5 == 1 ? 'f' : 'x');
				callus_buf_puts(&out, ".o: ");
				callus_buf_puts(&out, phrases[p]);
				callus_buf_puts(&out, "`sym'");
				for (size_t k = 0; k < tail; k++)
					callus_buf_puts(&out, k % 2 ? "f" : "e");
				callus_buf_puts(&out, "\ncollect2: error: ld returned 1 exit status\n");
				analyse_data(&f, "gcc -o prog main.c", out.ptr, out.len, "c-app", "");
				if (f.diags.count != 1 || !f.diags.items[0].message ||
				    strncmp(f.diags.items[0].message, phrases[p], strlen(phrases[p])))
					fail_msg("\"%s\": %zu errors, \"%s\"", out.ptr, f.diags.count,
						 f.diags.count && f.diags.items[0].message
							 ? f.diags.items[0].message
							 : "");
				callus_failure_release(&f);
			}
	/* a line that begins with either */
	for (size_t p = 0; p < 2; p++) {
		callus_buf_clear(&out);
		callus_buf_puts(&out, phrases[p]);
		callus_buf_puts(&out, "`sym'\ncollect2: error: ld returned 1 exit status\n");
		analyse_data(&f, "gcc -o prog main.c", out.ptr, out.len, "c-app", "");
		assert_int_equal(f.diags.count, 1);
		assert_non_null(f.diags.items[0].message);
		assert_true(strncmp(f.diags.items[0].message, phrases[p], strlen(phrases[p])) == 0);
		callus_failure_release(&f);
	}
	/* both: the undefined reference, before or after the other */
	for (size_t pad = 0; pad <= 20; pad++) {
		callus_buf_clear(&out);
		callus_buf_puts(&out, "/usr/bin/ld: o");
		for (size_t k = 0; k < pad; k++)
			callus_buf_putc(&out, 'x');
		callus_buf_puts(&out, ".o: ");
		callus_buf_puts(&out, pad % 2 ? "multiple definition of `a'; undefined reference to `b'\n"
					      : "undefined reference to `b'; multiple definition of `a'\n");
		callus_buf_puts(&out, "collect2: error: ld returned 1 exit status\n");
		analyse_data(&f, "gcc -o prog main.c", out.ptr, out.len, "c-app", "");
		assert_int_equal(f.diags.count, 1);
		assert_non_null(f.diags.items[0].message);
		assert_true(strncmp(f.diags.items[0].message, "undefined reference to `b'", 26) == 0);
		callus_failure_release(&f);
	}
	callus_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(find_is_the_first_occurrence),
		cmocka_unit_test(location_read_as_said),
		cmocka_unit_test(pytest_samples),
		cmocka_unit_test(unittest_samples),
		cmocka_unit_test(mypy_samples),
		cmocka_unit_test(flake8_samples),
		cmocka_unit_test(pylint_samples),
		cmocka_unit_test(ruff_samples),
		cmocka_unit_test(gcc_samples),
		cmocka_unit_test(clang_samples),
		cmocka_unit_test(make_samples),
		cmocka_unit_test(make_segments_read_in_place_or_copied),
		cmocka_unit_test(make_recipes_read_as_said),
		cmocka_unit_test(cppcheck_samples),
		cmocka_unit_test(go_samples),
		cmocka_unit_test(cargo_samples),
		cmocka_unit_test(shellcheck_samples),
		cmocka_unit_test(ctest_samples),
		cmocka_unit_test(sniffing),
		cmocka_unit_test(tool_names),
		cmocka_unit_test(filtered_text_only),
		cmocka_unit_test(many_errors),
		cmocka_unit_test(outside_paths),
		cmocka_unit_test(go_from_parent),
		cmocka_unit_test(linker_file_from_the_command),
		cmocka_unit_test(linker_phrases_anywhere),
		cmocka_unit_test(gxx_error_from_a_system_header),
		cmocka_unit_test(any_line_asks_each_run_once),
		cmocka_unit_test(sniff_first_as_each_in_turn),
		cmocka_unit_test(sniff_windows_as_with_the_last_newline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
