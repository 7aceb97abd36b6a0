#!/bin/sh
# bench/first_failure.sh - what a new workspace's first failing hook costs:
# the hook makes the store (.callus/ and callus.db, from the script of the
# current schema, src/store_fresh.inc) before it records.  A git repository
# with no .callus/ and a payload of one gcc error; each run on a fresh copy
# of it, the binaries in turn.  Prints, for each binary, the hook's CPU ms
# (bench/proctime.c: the process and its callus-git child) as min/median/max
# of RUNS runs, and the instructions of one run (callgrind, callus alone);
# and, for comparison, the same failure recorded again in the workspace the
# first made.
# Usage: bench/first_failure.sh [RUNS] [path/to/callus] [path/to/base/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-11}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count first_failure RUNS "$runs"
callus=$(bench_exe first_failure "${2:-$repo/build/callus}") || exit 2
base=
[ -z "${3:-}" ] || base=$(bench_exe first_failure "$3") || exit 2
for tool in valgrind jq git; do
	command -v "$tool" >/dev/null || { echo "bench: install $tool" >&2; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-first.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"

# a new workspace at $work/ws (its payload in $work/p.json)
fresh() {
	rm -rf "$work/ws"
	mkdir "$work/ws"
	git -C "$work/ws" init -q .
	printf "src/a.c:3:5: error: expected ';' before '}' token\n" >"$work/out.txt"
	jq -n --rawfile o "$work/out.txt" --arg cwd "$work/ws" \
		'{command: "gcc -c src/a.c", exit_code: 1, output: $o, cwd: $cwd}' >"$work/p.json"
}

i=0
while [ "$i" -lt "$runs" ]; do
	n=0
	for bin in ${base:+"$base"} "$callus"; do
		fresh
		(cd "$work/ws" && "$work/proctime" 1 "$work/p.json" "$bin" hook generic) |
			cut -d' ' -f2 >>"$work/ms-$n"
		n=$((n + 1))
	done
	i=$((i + 1))
done
echo "| callus | first failure, CPU ms (min/median/max of $runs) | instructions | the next failure, CPU ms (median of $runs) |"
echo "|:---|---:|---:|---:|"
n=0
for bin in ${base:+"$base"} "$callus"; do
	fresh
	count=$(cd "$work/ws" && bench_callgrind "$work/p.json" "$bin" hook generic)
	again=$(cd "$work/ws" && "$work/proctime" "$runs" "$work/p.json" "$bin" hook generic | cut -d' ' -f2)
	echo "| $bin | $(bench_range "$work/ms-$n") | $count | $again |"
	n=$((n + 1))
done
