#!/bin/sh
# scripts/store_fresh.sh - write src/store_fresh.inc again from the
# migrations (scripts/store_fresh.c), after one is added: a new store is
# made from that script, and test_store fails while it lags behind them.
# Its arguments go to make, which builds the program first:
#   scripts/store_fresh.sh                      (build/)
#   scripts/store_fresh.sh BUILD=build-asan SAN=1
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
build=build
for arg in "$@"; do
	case $arg in BUILD=*) build=${arg#BUILD=} ;; esac
done
make -s "$@" "$build/scripts/store_fresh"
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-fresh.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$build/scripts/store_fresh" "$work" >"$work/store_fresh.inc"
mv "$work/store_fresh.inc" src/store_fresh.inc
