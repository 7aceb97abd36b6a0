#!/bin/sh
# bench/pagefault.sh - what a first touch of memory costs here: why
# cli/sqlmem.c asked for huge pages (docs/scale-history.md, the fifteenth pass), and
# why it no longer does (the nineteenth: a huge page's max here, the host
# backing it again, is what bench/spaced.sh meets one hook in two):
# 2 MB touched a page at a time (the baseline), with MAP_POPULATE, and in
# one huge page; and whether the kernel has them (where it does not, the
# third way is the first); then 2 MB of the callus binary read a byte a
# 4 KB page, as its code is first run (why cli/text-order.ld puts the
# hooks' code first: a fault a 64 KB stretch).
# Usage: bench/pagefault.sh [N [FILE]]   (default 50 runs a way; FILE:
#   build/callus)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-50}
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-pagefault.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -Wall -Wextra -Werror -o "$work/pagefault" "$repo/bench/pagefault.c"
echo "| what | how | min ms | median ms | max ms |"
echo "|:---|:---|---:|---:|---:|"
"$work/pagefault" "$n" "${2:-$repo/build/callus}"
echo
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
