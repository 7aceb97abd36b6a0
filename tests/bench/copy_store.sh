#!/bin/sh
# tests/bench/copy_store.sh - bench_copy_store (bench/tools.sh), which every
# benchmark copies a kept store with: a store given as a link must come out
# a folder of its own, so that the hooks run "on a copy" leave the kept
# store as it was.  `cp -a` copied such a link as the link, and the
# eightieth pass's figures at 1,000 recordings were taken on a store the
# runs before had written (docs/scale-history.md, the eighty-first pass).
# Also bench_need, the benchmarks' check of their tools.  Exits non-zero
# on the first check that fails.
set -eu
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-benchcopy.XXXXXX")
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/kept/ws-1000/.callus" "$work/kept/ws-1000/src"
printf 'kept\n' >"$work/kept/ws-1000/.callus/callus.db"
printf 'int x;\n' >"$work/kept/ws-1000/src/x.c"
ln -s "$work/kept/ws-1000" "$work/link"

for src in "$work/kept/ws-1000" "$work/link"; do
	rm -rf "$work/copy"
	bench_copy_store "$src" "$work/copy"
	if [ -L "$work/copy" ] || [ ! -d "$work/copy" ]; then
		echo "not ok: $src copied as a link" >&2
		exit 1
	fi
	cmp -s "$work/copy/.callus/callus.db" "$work/kept/ws-1000/.callus/callus.db" ||
		{ echo "not ok: $src's store not copied" >&2; exit 1; }
	[ -f "$work/copy/src/x.c" ] || { echo "not ok: $src's sources not copied" >&2; exit 1; }
	printf 'written\n' >"$work/copy/.callus/callus.db"
	rm "$work/copy/src/x.c"
	if [ "$(cat "$work/kept/ws-1000/.callus/callus.db")" != kept ] ||
		[ ! -f "$work/kept/ws-1000/src/x.c" ]; then
		echo "not ok: writing the copy of $src wrote the kept store" >&2
		exit 1
	fi
done
# a copy over one that exists is refused, not nested inside it
if bench_copy_store "$work/link" "$work/copy" 2>/dev/null; then
	echo "not ok: a copy made over an existing folder" >&2
	exit 1
fi
# and bench_need, which every benchmark checks its tools with: a missing
# one named, 2; all there, 0
st=0
bench_need copytest sh no-such-tool-callus 2>"$work/need" || st=$?
if [ "$st" != 2 ] || ! grep -q "^copytest: no-such-tool-callus is needed$" "$work/need"; then
	echo "not ok: a missing tool not said" >&2
	exit 1
fi
bench_need copytest sh ls || { echo "not ok: tools there taken for missing" >&2; exit 1; }
echo "ok"
