#!/bin/sh
# scripts/store_fresh.sh - write src/store_fresh.inc again from the
# migrations (scripts/store_fresh.c), after one is added: a new store is
# made from that script, and test_store fails while it lags behind them.
# Run from the repository, after `make` (it links build/libcallus.a).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-$repo/build}
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-fresh.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/store"
cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -I"$repo/include" -I"$repo/src" \
	-o "$work/store_fresh" "$repo/scripts/store_fresh.c" "$build/libcallus.a" \
	-lsqlite3 -ljansson -lpcre2-8 -lm
"$work/store_fresh" "$work/store" >"$work/store_fresh.inc"
mv "$work/store_fresh.inc" "$repo/src/store_fresh.inc"
