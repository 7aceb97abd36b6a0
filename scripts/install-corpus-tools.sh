#!/bin/sh
# install-corpus-tools.sh - install the real tools that tests/corpus/generate.sh
# runs to regenerate the corpus, on Debian 12: Go, pytest, mypy, flake8,
# pylint, ShellCheck, cppcheck, cmake (ctest), gcc, clang, make, and
# cargo/rustc unless a cargo is already on PATH (rustup's, say); javac,
# Maven (offline, on Debian's plugin repository), kotlinc, rspec, minitest,
# rubocop, php -l, phpunit, prove, mix (ExUnit), pyflakes, bandit, black,
# isort, yamllint, clang-tidy, meson, ninja and gradle; bun and deno (the
# pinned npm packages of tests/corpus/tools/, which carry their binaries); then
# the pinned npm tools of tests/tools/ (eslint, tsc, jest, vitest, mocha,
# pyright, biome, oxlint, prettier, stylelint, markdownlint, ava, Playwright
# test: install-test-tools.sh).
#
# Only regenerating the corpus needs these: checking it (tests/corpus/check.sh,
# part of the test suite) needs only python3, git and build/callus.
#
# Not installable here: ruff (not packaged in Debian 12; npm has only its wasm
# bindings, not the command-line tool), so the corpus has no ruff case.
#
# Idempotent: packages already installed are not asked for again.  Run as
# root, or as a user with sudo.
set -eu

cd "$(dirname "$0")/.."

pkgs="golang-go python3 python3-pytest mypy flake8 pylint shellcheck cppcheck
	cmake gcc g++ clang make git
	default-jdk-headless maven maven-debian-helper libmaven-compiler-plugin-java
	libmaven-resources-plugin-java libsurefire-java junit4 kotlin ruby rake ruby-rspec
	ruby-minitest rubocop php-cli phpunit perl elixir pyflakes3 bandit black isort yamllint
	clang-tidy meson ninja-build gradle"
command -v cargo >/dev/null 2>&1 || pkgs="$pkgs cargo rustc"

pkg_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}

missing=
for p in $pkgs; do
	pkg_installed "$p" || missing="$missing $p"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=
	elif command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "install-corpus-tools: need root (or sudo) to install:$missing" >&2
		exit 1
	fi
	log=$(mktemp)
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086 # $sudo and $missing are word lists
	if ! { $sudo apt-get -q update &&
		$sudo apt-get -q -y --no-install-recommends \
			-o Dpkg::Use-Pty=0 install $missing; } >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "install-corpus-tools: apt-get failed installing:$missing" >&2
		exit 1
	fi
	rm -f "$log"
	echo "install-corpus-tools: installed$missing"
else
	echo "install-corpus-tools: system packages present"
fi

# bun and deno: npm ci of the lock file, skipped when node_modules was made
# from the same one (a stamp records its checksum, as install-test-tools.sh)
corpus_tools=tests/corpus/tools
want=$(cat "$corpus_tools/package-lock.json" | sha256sum | cut -d' ' -f1)
if [ "$(cat "$corpus_tools/node_modules/.callus-stamp" 2>/dev/null)" != "$want" ]; then
	log=$(mktemp)
	if ! (cd "$corpus_tools" && npm ci --no-audit --no-fund --no-update-notifier \
		--loglevel=error) >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "install-corpus-tools: npm ci failed in $corpus_tools" >&2
		exit 1
	fi
	rm -f "$log"
	printf '%s\n' "$want" >"$corpus_tools/node_modules/.callus-stamp"
	echo "install-corpus-tools: installed bun and deno in $corpus_tools/node_modules"
fi

exec ./scripts/install-test-tools.sh
