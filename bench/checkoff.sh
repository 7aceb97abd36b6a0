#!/bin/sh
# bench/checkoff.sh - a check's whole cycle in a grown store: it fails, it
# passes (the fix kept), it passes again (the run after the fix, counted:
# learn.h), and again (nothing to learn: the store left closed); then, N
# times, the list removed and a pass that writes it from the store.  The run
# after the fix takes the check off .callus/checks.idx, the list a pass
# reads to know whether to open the store (checkindex.h); at 100,000
# recordings the list names 12,234 checks.  Two binaries, each in its
# own copy of a store grown by bench/scale.sh (CALLUS_SCALE_KEEP=DIR keeps
# DIR/ws-SIZE), take turns, N cycles each; each hook a `callus hook
# generic` of `gcc -c src/x.c` (a gcc error never seen, then exit 0), no
# snapshot.  CPU ms of each hook from bench/proctime (wait4): min / first
# quartile / median / third quartile / max / mean of each step and binary.
# The copies made, the harness waits for the disk to settle (bench_settle,
# bench/tools.sh; CALLUS_BENCH_SETTLE_S=0: no wait).
# Usage: bench/checkoff.sh WS N BASE [path/to/callus]
#   e.g. bench/checkoff.sh /tmp/keepE/ws-100000 30 /tmp/old/build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/checkoff.sh WS N BASE [path/to/callus]" >&2; exit 2; }
src=$1 n=$2 base=$(realpath "$3")
callus=$(realpath "${4:-$repo/build/callus}")
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_grown checkoff "$repo" "$src" "$callus"

steps="fail fix after idle rebuild"
bench_copies "$src" "$work" "$base" "$callus"
for x in a b; do
	jq -n --arg cwd "$work/ws-$x" '{command: "gcc -c src/x.c", exit_code: 0, output: "", cwd: $cwd}' \
		>"$work/pass-$x.json"
	for s in $steps; do : >"$work/$x.$s"; done
done
# each writes its list from the store before anything is timed (the grown
# store's own list, of an older format or listing checks by mistake, would
# time a list the store does not hold)
for x in a b; do rm -f "$work/ws-$x/.callus/checks.idx"; done
(cd "$work/ws-a" && "$base" hook generic <"$work/pass-a.json" >/dev/null)
(cd "$work/ws-b" && "$callus" hook generic <"$work/pass-b.json" >/dev/null)

created=$(bench_settle "$work" "$work/ws-b/.callus")
# the two binaries copied together now (bench_fresh, bench/tools.sh)
run_a=$(bench_fresh "$work/bin-a" "$base") run_b=$(bench_fresh "$work/bin-b" "$callus")
# the checks listed, as each binary wrote its list: the sorted part
listed() { head -n 1 "$work/ws-$1/.callus/checks.idx" | awk '{ print $3 + 0 }'; }
listed_a=$(listed a) listed_b=$(listed b)

# hook X STEP INPUT: one timed hook of binary X
hook() {
	if [ "$1" = a ]; then bin=$run_a; else bin=$run_b; fi
	(cd "$work/ws-$1" && "$work/proctime" 1 "$3" "$bin" hook generic) | cut -d' ' -f1 >>"$work/$1.$2"
}
i=0
while [ "$i" -lt "$n" ]; do
	for x in a b; do
		bench_fail_payload "$work" $((900000 + i)) "$work/ws-$x" "$work/fail.json"
		hook "$x" fail "$work/fail.json"
		hook "$x" fix "$work/pass-$x.json"
		hook "$x" after "$work/pass-$x.json"
		hook "$x" idle "$work/pass-$x.json"
	done
	i=$((i + 1))
done
# then, the list removed, the pass that writes it again from the store:
# what a list lost costs, and what `callus gc` adds when it removed errors
# or checks (callus_checkindex_rewrite)
i=0
while [ "$i" -lt "$n" ]; do
	for x in a b; do
		rm -f "$work/ws-$x/.callus/checks.idx"
		hook "$x" rebuild "$work/pass-$x.json"
	done
	i=$((i + 1))
done

echo "a file created in the copy's .callus/ when timing began: $created us (bench/fsprobe.c)"
echo "checks in .callus/checks.idx when timing began: $listed_a ($base), $listed_b ($callus)"
echo "| binary | step | CPU ms, $n cycles: min / q1 / median / q3 / max / mean |"
echo "|:---|:---|---:|"
for x in a b; do
	if [ "$x" = a ]; then bin=$base; else bin=$callus; fi
	for s in $steps; do
		case $s in
		fail) what="the failure (a new error)" ;;
		fix) what="the pass that fixes it" ;;
		after) what="the pass after the fix (the check taken off the list)" ;;
		idle) what="a pass with nothing to learn" ;;
		rebuild) what="a pass with no list: the list written from the store" ;;
		esac
		echo "| $bin | $what | $(bench_stats "$work/$x.$s") |"
	done
done
