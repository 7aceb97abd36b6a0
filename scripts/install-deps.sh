#!/bin/sh
# install-deps.sh - install what callus needs to build and test, on Debian 12.
#
# Idempotent: packages already installed are not asked for again, and when
# everything is there apt-get is not run at all (a second run takes well under
# a second).  Then installs the pinned npm test tools (install-test-tools.sh).
# Run as root, or as a user with sudo.
set -eu

cd "$(dirname "$0")/.."

build_pkgs="build-essential pkg-config libsqlite3-dev libjansson-dev libcmocka-dev libpcre2-dev libgit2-dev
	libcurl4-openssl-dev libpq-dev git ca-certificates"
test_pkgs="python3 hyperfine valgrind strace shellcheck clang procps util-linux time jq sqlite3 prometheus
	chromium python3-html5lib postgresql postgresql-client"
# The real tools tests/corpus/generate.sh runs for the ecosystems beyond C,
# Go, Rust, Python and JavaScript (scripts/install-corpus-tools.sh installs
# the same, with the older corpus tools): a JDK, Maven with Debian's offline
# plugin repository (/usr/share/maven-repo), kotlinc, Ruby (rspec, minitest,
# rubocop), PHP (php -l, phpunit), Perl's prove, Elixir's mix, pyflakes,
# bandit, black, isort, yamllint, clang-tidy, meson and ninja.
corpus_pkgs="default-jdk-headless maven maven-debian-helper libmaven-compiler-plugin-java
	libmaven-resources-plugin-java libsurefire-java junit4 kotlin ruby rake ruby-rspec
	ruby-minitest rubocop php-cli phpunit perl elixir pyflakes3 bandit black isort yamllint
	clang-tidy meson ninja-build cmake"
min_node_major=18

# Prints nothing and succeeds when Debian package $1 is installed.
pkg_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}

node_major() {
	node -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null
}

node_ok() {
	command -v node >/dev/null 2>&1 || return 1
	major=$(node_major) || return 1
	[ "${major:-0}" -ge "$min_node_major" ]
}

missing=
for p in $build_pkgs $test_pkgs $corpus_pkgs; do
	pkg_installed "$p" || missing="$missing $p"
done
# Node may come from elsewhere (NodeSource, nvm): only a missing or too old
# node makes us ask Debian for its nodejs and npm.
if ! node_ok; then
	missing="$missing nodejs npm"
elif ! command -v npm >/dev/null 2>&1; then
	missing="$missing npm"
fi

if [ -n "$missing" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=
	elif command -v sudo >/dev/null 2>&1; then
		sudo=sudo
	else
		echo "install-deps: need root (or sudo) to install:$missing" >&2
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
		echo "install-deps: apt-get failed installing:$missing" >&2
		exit 1
	fi
	rm -f "$log"
	echo "install-deps: installed$missing"
	if ! node_ok; then
		echo "install-deps: node >= $min_node_major is needed, found: $(node --version 2>&1)" >&2
		exit 1
	fi
else
	echo "install-deps: system packages present"
fi

./scripts/install-test-tools.sh
# the real agent CLIs are for their own tests only: without them those skip
./scripts/install-agent-clis.sh || true
