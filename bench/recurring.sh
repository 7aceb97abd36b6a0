#!/bin/sh
# bench/recurring.sh - a recurring error's failing hook, two binaries in
# turn (issue 14): the store's gcc error 0 (bench/scale_gen -p 0) failing a
# check of its own (`gcc -c src/0.c`) again and again, as an agent's check
# does before it is fixed: the lesson's occurrences and the error's
# attempts counted (permanent from the third), no snapshot needed.  Each
# binary works in a copy of the grown store WS (bench/scale.sh's
# CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE), migrated and gc'd by it, after
# three untimed failures.  N pairs, one hook of each, each binary first
# two pairs in four (with TWO=1, first for each check's hooks alike);
# bench/proctime's CPU ms (user + system) of each, then the medians and
# the median of the pairs' differences (NEW - OLD).
# The disk is settled first (bench_settle, bench/tools.sh): what a hook's
# sync of AGENTS.md costs depends on what else waits to be written.
# TWO=1: two checks failing in turn, as an agent's lint and tests do
# (error 1 failing `gcc -c src/1.c` every other hook).
# The same binary given twice is the harness's control: what it tells
# apart when nothing differs (bench/README.md gives its figures).
# Usage: bench/recurring.sh WS N OLD NEW
#   e.g. bench/recurring.sh /tmp/keepE/ws-1000 80 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: bench/recurring.sh WS N OLD NEW" >&2; exit 2; }
from=$1 n=$2 old=$3 new=$4
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need bench/recurring.sh jq git || exit 2
bench_count recurring N "$n"
bench_pair recurring "$repo" "$from" "$old" "$new"
for x in old new; do
	ws=$work/ws-$x
	bin=$(bench_bin_of "$x")
	bench_ready "$from" "$ws" "$bin" snapshots
	for e in 0 1; do
		bench_fail_payload "$work" "$e" "$ws" "$work/$x-$e.json" "gcc -c src/$e.c"
	done
	for _ in 1 2 3; do
		for e in 0 1; do
			[ "$e" = 0 ] || [ "${TWO:-0}" = 1 ] || continue
			CALLUS_GIT_HELPER=$(dirname "$bin")/callus-git "$bin" hook generic \
				<"$work/$x-$e.json" >/dev/null
		done
	done
done
bench_settle "$work" "$work/ws-new/.callus" >/dev/null
bench_pair_fresh

# one X I: the CPU ms of pair I's hook of binary X in its copy
one() {
	bin=$(bench_bin_of "$1")
	e=0
	[ "${TWO:-0}" != 1 ] || e=$(($2 % 2))
	CALLUS_GIT_HELPER=$(dirname "$bin")/callus-git "$work/proctime" 1 "$work/$1-$e.json" \
		"$bin" hook generic | cut -d' ' -f1 >>"$work/$1.ms"
}
: >"$work/old.ms"
: >"$work/new.ms"
bench_pairs "$n"
echo "| hooks | OLD min/median/max | NEW min/median/max | NEW - OLD, median of the pairs |"
echo "|---:|---:|---:|---:|"
printf "| %s | %s | %s | %s |\n" "$n" "$(bench_range "$work/old.ms")" "$(bench_range "$work/new.ms")" \
	"$(paste "$work/old.ms" "$work/new.ms" | awk '{ print $2 - $1 }' >"$work/d" &&
		bench_range "$work/d" | cut -d/ -f2)"
