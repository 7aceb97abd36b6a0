#!/bin/bash
# generate.sh - regenerate the real tool outputs the native parsers are
# tested on (tests/unit/test_parse_native.c) and fuzzed from
# (fuzz/corpus/parsers_native/).
#
# Builds small projects with planted errors under $ROOT (default
# /tmp/callus-native: the tests take that as the workspace, so keep it), runs
# the real tools on them and writes each output (stdout and stderr merged,
# as an agent sees it) to tests/parsers/native/NAME.txt.  Tools: Debian 12's
# python3-pytest mypy flake8 pylint golang-go cppcheck cmake shellcheck, gcc,
# clang, make, and rustup's cargo/rustc.  ruff is not packaged there: its
# parser is tested on hand-written samples of its documented formats
# (ruff-*.txt, not produced here: written after ruff's documentation and the
# snapshots of its own test suite, crates/ruff/tests/cli/snapshots/).
#
# Output differs between tool versions; the versions used are written to
# versions.txt.  Usage: tests/parsers/native/generate.sh [ROOT]
set -u
ROOT=${1:-/tmp/callus-native}
OUT=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
export PATH=/usr/bin:/bin:$HOME/.cargo/bin:$PATH
export LC_ALL=C.UTF-8 TERM=dumb
unset RUST_BACKTRACE CARGO_TERM_COLOR PY_COLORS FORCE_COLOR NO_COLOR CLICOLOR_FORCE MYPY_FORCE_COLOR

rm -rf "$ROOT"
mkdir -p "$ROOT"

# run NAME DIR CMD...: run CMD in DIR, record its output as NAME.txt
run() {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && "$@") >"$OUT/$name.txt" 2>&1
	echo "$name: exit $?  ($*)"
}

# --- Python: pytest, unittest, mypy, flake8, pylint --------------------------
P=$ROOT/py
mkdir -p "$P/src/shop" "$P/tests"
cat >"$P/src/shop/__init__.py" <<'PY'
PY
cat >"$P/src/shop/cart.py" <<'PY'
import os
from typing import List


def total(prices: List[int]) -> int:
    return sum(prices)


def discount(price: int, rate: float) -> int:
    if rate > 1:
        raise ValueError(f"rate {rate} is above 1")
    return price - int(price * rate)


def label(count: int) -> str:
    return "items: " + count


def first(items):
    unused = 1
    return items[0]
PY
cat >"$P/src/shop/typed.py" <<'PY'
from shop.cart import total, discount


def checkout(names: list[str]) -> int:
    return total(names)


def apply(price: int) -> str:
    return discount(price, "half")


def count() -> int:
    result: int = "three"
    return result
PY
cat >"$P/tests/conftest.py" <<'PY'
import sys
import pathlib

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "src"))
PY
cat >"$P/tests/test_cart.py" <<'PY'
import pytest

from shop.cart import discount, first, total


class TestCart:
    def test_total(self):
        assert total([1, 2]) == 4

    def test_discount_rate(self):
        assert discount(100, 1.5) == 0

    def test_ok(self):
        assert total([]) == 0


def test_first_empty():
    assert first([]) is None


@pytest.mark.parametrize("n", [1, 2, 3])
def test_param(n):
    assert n < 3
PY
cat >"$P/tests/test_broken.py" <<'PY'
from shop.cart import no_such_name


def test_never():
    assert no_such_name
PY
cat >"$P/tests/test_many.py" <<'PY'
import pytest


@pytest.mark.parametrize("i", range(120))
def test_many(i):
    assert i % 2 == 0 and i < 0, f"value {i}"
PY
run pytest-default "$P" $PY -m pytest tests/test_cart.py
run pytest-color "$P" env PY_COLORS=1 $PY -m pytest --color=yes tests/test_cart.py
run pytest-short "$P" $PY -m pytest --tb=short -q tests/test_cart.py
run pytest-native-abs "$P" $PY -m pytest --tb=native "$P/tests/test_cart.py"
run pytest-collect-error "$P" $PY -m pytest tests/test_broken.py tests/test_cart.py::TestCart::test_ok
run pytest-many "$P" $PY -m pytest -q -p no:randomly tests/test_many.py
run pytest-verbose-line "$P" $PY -m pytest -v --tb=line tests/test_cart.py

mkdir -p "$P/ut"
cat >"$P/ut/test_units.py" <<'PY'
import unittest

from helpers import parse


class TestParse(unittest.TestCase):
    def test_number(self):
        self.assertEqual(parse("12"), 13)

    def test_error(self):
        parse("x")

    def test_good(self):
        self.assertTrue(True)
PY
cat >"$P/ut/helpers.py" <<'PY'
def parse(text):
    return convert(text)


def convert(text):
    return int(text)
PY
mkdir -p "$P/ut/pkg"
: >"$P/ut/pkg/__init__.py"
cat >"$P/ut/pkg/test_sub.py" <<'PY'
import unittest


class TestSub(unittest.TestCase):
    def test_values(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertLess(i, 2)
PY
cat >"$P/ut/test_missing.py" <<'PY'
import nosuchmodule
PY
run unittest-default "$P/ut" $PY -m unittest test_units
run unittest-discover "$P/ut" $PY -m unittest
run unittest-verbose "$P/ut" $PY -m unittest -v test_units
run unittest-abs "$P" $PY -m unittest discover -s "$P/ut" -t "$P/ut"

run mypy-default "$P" mypy --no-error-summary --show-column-numbers src/shop/typed.py src/shop/cart.py
run mypy-pretty "$P" mypy --pretty src/shop/typed.py
cat >"$P/src/shop/notes.py" <<'PY'
import nosuchmodule


class Base:
    def f(self, x: int) -> int:
        return x


class Child(Base):
    def f(self, x: str) -> int:
        return len(x)
PY
run mypy-notes "$P" mypy src/shop/notes.py
run mypy-color "$P" env TERM=xterm-256color MYPY_FORCE_COLOR=1 mypy --color-output --show-column-numbers src/shop
run mypy-abs "$P" mypy --show-absolute-path src/shop/typed.py
run flake8-default "$P" flake8 src tests
run flake8-color "$P" flake8 --color=always src
run flake8-abs "$P" flake8 "$P/src/shop/cart.py"
run pylint-default "$P" pylint --persistent=n src/shop
run pylint-color "$P" pylint --persistent=n --output-format=colorized src/shop/cart.py
run pylint-parseable "$P" pylint --persistent=n --output-format=parseable src/shop/cart.py
run pylint-json "$P" pylint --persistent=n --output-format=json src/shop/cart.py
printf 'check:\n\t%s -m pytest -q tests/test_cart.py\n' "$PY" >"$P/Makefile"
run make-check-pytest "$P" make check

# --- C: gcc, clang, make, cppcheck ------------------------------------------
C=$ROOT/c
mkdir -p "$C/src" "$C/include" "$C/lib"
cat >"$C/include/util.h" <<'CC'
#ifndef UTIL_H
#define UTIL_H
int scale(int x, int factor);
static inline int twice(int x) { return x * 2 }
#endif
CC
cat >"$C/src/main.c" <<'CC'
#include <stdio.h>
#include "util.h"

struct point { int x, y; };

int main(void)
{
	int unused;
	struct point p = { 1, 2 };
	char *name = 42;
	printf("%d\n", p.z);
	printf("%s\n", p.x);
	return scale(p.x, count);
}
CC
cat >"$C/src/warn.c" <<'CC'
#include <stdio.h>

static int helper(int x) { return x; }

int compute(int n)
{
	int unused = 3;
	if (n = 2)
		return 1;
}
CC
cat >"$C/src/link.c" <<'CC'
int missing_function(int);

int main(void)
{
	return missing_function(3) + other_missing();
}
CC
cat >"$C/src/ok.c" <<'CC'
int scale(int x, int factor) { return x * factor; }
CC
cat >"$C/src/tmpl.cpp" <<'CC'
#include <vector>
#include <string>

template <typename T> int sum(const std::vector<T> &v)
{
	int s = 0;
	for (const auto &x : v)
		s += x;
	return s;
}

int main()
{
	std::vector<std::string> names{"a"};
	return sum(names);
}
CC
run gcc-errors "$C" gcc -Iinclude -c src/main.c -o /dev/null
run gcc-errors-color "$C" gcc -fdiagnostics-color=always -Iinclude -c src/main.c -o /dev/null
run gcc-werror "$C" gcc -Wall -Wextra -Werror -c src/warn.c -o /dev/null
run gcc-abs "$C" gcc -Wall -Werror=unused-variable -Werror=parentheses -c "$C/src/warn.c" -o /dev/null
run gcc-link "$C" gcc -o /dev/null src/link.c
run gcc-link-g "$C" gcc -g -o /dev/null src/link.c src/ok.c
printf '#include "nosuch.h"\nint x;\n' >"$C/src/fatal.c"
run gcc-fatal "$C" gcc -c src/fatal.c src/missing.c
run gxx-template "$C" g++ -c src/tmpl.cpp -o /dev/null
run clang-errors "$C" clang -Iinclude -c src/main.c -o /dev/null
run clang-errors-color "$C" clang -fcolor-diagnostics -Iinclude -c src/main.c -o /dev/null
run clang-werror "$C" clang -Wall -Wextra -Werror -c src/warn.c -o /dev/null
run clang-link "$C" clang -o /dev/null src/link.c
run clangxx-template "$C" clang++ -c src/tmpl.cpp -o /dev/null

# make: a sub-make in lib/ (relative paths printed there are lib/...), and
# make's own errors
mkdir -p "$C/lib"
cat >"$C/lib/Makefile" <<'MK'
CFLAGS = -Wall -Werror

all: bad.o good.o

%.o: %.c
	$(CC) $(CFLAGS) -c $< -o $@
MK
cat >"$C/lib/bad.c" <<'CC'
int bad(int x)
{
	int y;
	return x + z;
}
CC
printf 'int good(void) { return 1; }\n' >"$C/lib/good.c"
cat >"$C/Makefile" <<'MK'
all: lib app

lib:
	$(MAKE) -C lib

app: src/main.c
	$(CC) -Iinclude -c src/main.c -o /dev/null

check:
	./run-tests.sh

.PHONY: all lib app check
MK
printf '#!/bin/sh\necho "running 3 tests"\necho "test_scale: ok"\necho "test_twice: failed (expected 4, got 5)"\nexit 1\n' >"$C/run-tests.sh"
chmod +x "$C/run-tests.sh"
printf 'all:\n\techo broken\n  echo indented with spaces\n' >"$C/Makefile.bad"
run make-subdir "$C" make
run make-keep-going "$C" make -k
run make-color "$C" make -C lib CFLAGS="-Wall -Werror -fdiagnostics-color=always"
run make-no-rule "$C" make nosuch
printf 'prog: src/nosuch.c\n\tcc -o prog src/nosuch.c\n' >"$C/Makefile.dep"
run make-missing-dep "$C" make -f Makefile.dep
run make-separator "$C" make -f Makefile.bad
run make-check-script "$C" make check
# a sub-make outside the workspace ($C): its bad.c is not the workspace's
mkdir -p "$ROOT/ext"
cp "$C/lib/Makefile" "$C/lib/bad.c" "$ROOT/ext/"
printf 'ext:\n\t-$(MAKE) -C ../ext\n\t$(CC) -c src/warn.c -Werror -Wall -o /dev/null\n' >"$C/Makefile.ext"
run make-outside "$C" make -f Makefile.ext

# cppcheck
mkdir -p "$C/check"
cat >"$C/check/null.c" <<'CC'
#include <stdlib.h>

int deref(void)
{
	int *p = NULL;
	return *p;
}

int overflow(void)
{
	int a[4];
	a[4] = 1;
	return a[0];
}

void leak(void)
{
	char *buf = malloc(10);
	buf[0] = 0;
}
CC
cat >"$C/check/style.c" <<'CC'
int unused_fn(int x)
{
	int y = 0;
	if (x == x)
		return 1;
	return y;
}
CC
run cppcheck-default "$C" cppcheck --error-exitcode=1 check
run cppcheck-all "$C" cppcheck --enable=all --error-exitcode=1 --suppress=missingIncludeSystem check/null.c check/style.c
run cppcheck-quiet-abs "$C" cppcheck -q --error-exitcode=1 "$C/check/null.c"
run cppcheck-gcc-template "$C" cppcheck -q --template=gcc --error-exitcode=1 check/null.c

# --- Go: go build, go vet, go test -------------------------------------------
G=$ROOT/go
mkdir -p "$G/calc" "$G/cmd/app" "$G/broken"
cat >"$G/go.mod" <<'GO'
module example.com/shop

go 1.19
GO
cat >"$G/calc/calc.go" <<'GO'
package calc

import "fmt"

func Add(a, b int) int { return a + b + 1 }

func Div(a, b int) int { return a / b }

func Describe(n int) string { return fmt.Sprintf("%d items", n) }

func Index(xs []int, i int) int { return xs[i] }
GO
cat >"$G/calc/calc_test.go" <<'GO'
package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Errorf("Add(1, 2) = %d, want 3", got)
	}
}

func TestDescribe(t *testing.T) {
	t.Run("plural", func(t *testing.T) {
		if got := Describe(2); got != "2 item" {
			t.Fatalf("Describe(2) = %q", got)
		}
	})
	t.Run("one", func(t *testing.T) {})
}

func TestIndex(t *testing.T) {
	Index([]int{1, 2}, 5)
}

func TestOK(t *testing.T) {}
GO
cat >"$G/broken/broken.go" <<'GO'
package broken

import "os"

func Broken() int {
	var s string = 3
	return undefinedThing + s
}
GO
cat >"$G/cmd/app/main.go" <<'GO'
package main

import "fmt"

func main() {
	name := "x"
	fmt.Printf("%d\n", name)
	return
	fmt.Println("unreachable")
}
GO
run go-build "$G" go build ./...
run go-vet "$G" go vet ./cmd/... ./calc/...
run go-test "$G" go test ./calc/...
run go-test-verbose "$G" go test -v ./calc/...
run go-test-broken "$G" go test ./...
run go-test-count "$G" go test -count=1 -run 'TestAdd|TestDescribe' ./calc/
run go-test-json "$G" go test -json -count=1 ./calc/
printf 'test:\n\tgo vet ./calc/\n\tgo test -count=1 ./calc/\n' >"$G/Makefile"
run make-test-go "$G" make test

# --- Rust: cargo build/check/test/clippy, rustc ------------------------------
R=$ROOT/rs
mkdir -p "$R/src" "$R/tests" "$R/t/src"
cat >"$R/Cargo.toml" <<'TOML'
[package]
name = "shop"
version = "0.1.0"
edition = "2021"

[dependencies]
TOML
cat >"$R/src/main.rs" <<'RS'
fn total(prices: &[u32]) -> u32 {
    prices.iter().sum()
}

fn main() {
    let count: u32 = "three";
    let unused = 5;
    let v = vec![1, 2];
    println!("{}", total(v));
    println!("{}", missing_fn(count));
}
RS
cp -r "$R/src" "$R/orig-src"
cat >"$R/t/Cargo.toml" <<'TOML'
[package]
name = "calc"
version = "0.1.0"
edition = "2021"
TOML
cat >"$R/t/src/lib.rs" <<'RS'
pub fn add(a: i32, b: i32) -> i32 {
    a + b + 1
}

pub fn pick(v: &[i32], i: usize) -> i32 {
    v[i]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_adds() {
        assert_eq!(add(1, 2), 3);
    }

    #[test]
    fn it_picks() {
        assert_eq!(pick(&[1, 2], 7), 0);
    }

    #[test]
    fn it_works() {
        assert!(add(0, 0) >= 0);
    }

    #[test]
    fn it_unwraps() {
        let r: Result<i32, String> = Err("boom".into());
        r.unwrap();
    }
}
RS
run cargo-build "$R" cargo build --color=never
run cargo-build-color "$R" cargo build --color=always
run cargo-check-json "$R" cargo check --message-format=json
run cargo-build-short "$R" cargo build --color=never --message-format=short
run rustc-direct "$R" rustc --color=never --edition 2021 src/main.rs -o /dev/null
run rustc-direct-json "$R" rustc --error-format=json --edition 2021 src/main.rs -o /dev/null
run cargo-test "$R/t" cargo test --color=never
run cargo-test-color "$R/t" cargo test --color=always
run cargo-test-backtrace "$R/t" env RUST_BACKTRACE=1 cargo test --color=never it_picks
run cargo-test-from-root "$R" cargo test --color=never --manifest-path t/Cargo.toml

# a cargo workspace: rustc's paths are relative to its root, wherever cargo runs
mkdir -p "$R/ws/core/src" "$R/ws/lint/src"
printf '[workspace]\nmembers = ["core", "lint"]\nresolver = "2"\n' >"$R/ws/Cargo.toml"
printf '[package]\nname = "core"\nversion = "0.1.0"\nedition = "2021"\n' >"$R/ws/core/Cargo.toml"
printf '[package]\nname = "lint"\nversion = "0.1.0"\nedition = "2021"\n' >"$R/ws/lint/Cargo.toml"
cat >"$R/ws/core/src/lib.rs" <<'RS'
pub fn parse(s: &str) -> i32 {
    s.parse::<i32>()
}
RS
cat >"$R/ws/lint/src/lib.rs" <<'RS'
pub fn double(x: i32) -> i32 {
    let unused = 1;
    return x * 2;
}
RS
run cargo-ws-member "$R/ws/core" cargo build --color=never
run cargo-ws-json "$R/ws" cargo build --message-format=json -p core
run cargo-clippy "$R/ws" cargo clippy --color=never -p lint -- -D warnings
run cargo-ws-short-warning "$R/ws" cargo build --message-format=short -p lint

# --- shellcheck ----------------------------------------------------------------
S=$ROOT/sh
mkdir -p "$S/bin"
cat >"$S/deploy.sh" <<'SH'
#!/bin/bash
target=$1
cp $target /tmp/out
if [ $target == "x" ]; then
  echo `date`
fi
cd /var/log
SH
cat >"$S/bin/clean.sh" <<'SH'
#!/bin/sh
rm -rf "$DIR"/*
for f in $(ls *.log); do echo $f; done
SH
run shellcheck-tty "$S" shellcheck deploy.sh bin/clean.sh
run shellcheck-color "$S" shellcheck --color=always deploy.sh
run shellcheck-gcc "$S" shellcheck -f gcc deploy.sh bin/clean.sh
run shellcheck-abs "$S" shellcheck -f gcc "$S/bin/clean.sh"
run shellcheck-tty-abs "$S" shellcheck "$S/bin/clean.sh"
run shellcheck-json1 "$S" shellcheck -f json1 deploy.sh

# --- ctest ---------------------------------------------------------------------
T=$ROOT/cm
mkdir -p "$T/tests"
cat >"$T/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(calc C)
enable_testing()
add_executable(test_math tests/test_math.c)
add_executable(test_str tests/test_str.c)
add_executable(test_ok tests/test_ok.c)
add_test(NAME math_add COMMAND test_math add)
add_test(NAME math_div COMMAND test_math div)
add_test(NAME str_upper COMMAND test_str)
add_test(NAME ok COMMAND test_ok)
add_test(NAME missing_exe COMMAND no_such_program)
set_tests_properties(math_div PROPERTIES TIMEOUT 1)
CMAKE
cat >"$T/tests/test_math.c" <<'CC'
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int add(int a, int b) { return a + b + 1; }

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "div")) {
		sleep(3);
		return 0;
	}
	printf("checking add\n");
	if (add(1, 2) != 3) {
		fprintf(stderr, "%s:%d: add(1, 2) == %d, expected 3\n", __FILE__, __LINE__, add(1, 2));
		return 1;
	}
	return 0;
}
CC
cat >"$T/tests/test_str.c" <<'CC'
#include <assert.h>
#include <ctype.h>

int main(void)
{
	assert(toupper('a') == 'a');
	return 0;
}
CC
printf 'int main(void) { return 0; }\n' >"$T/tests/test_ok.c"
(cd "$T" && cmake -S . -B build >/dev/null && cmake --build build >/dev/null)
run ctest-default "$T/build" ctest
run ctest-output "$T/build" ctest --output-on-failure
run ctest-verbose "$T/build" ctest -V -R math_add
run ctest-test-dir "$T" ctest --test-dir build --output-on-failure -R 'str|math_add'
printf 'check:\n\tcd build && ctest --output-on-failure -R str\n' >"$T/Makefile"
run make-check-ctest "$T" make check

{
	gcc --version | head -n 1
	clang --version | head -n 1
	make --version | head -n 1
	cppcheck --version
	cmake --version | head -n 1
	go version
	rustc --version
	cargo --version
	shellcheck --version | sed -n 2p
	$PY --version
	$PY -m pytest --version 2>&1 | head -n 1
	mypy --version
	echo "flake8 $(flake8 --version | head -n 1)"
	pylint --version 2>/dev/null | head -n 1
} >"$OUT/versions.txt" 2>&1
