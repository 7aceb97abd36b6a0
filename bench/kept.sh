#!/bin/sh
# bench/kept.sh - what a failing hook would cost if the store stayed open.
# Every `callus hook` is a process that opens the store, has SQLite parse
# its schema and compile each statement, reads the pages it needs and
# exits; a process that stayed (a server per workspace) would do each of
# these once.  Before building one, this measures what it could save, in
# three copies of a store grown by bench/scale.sh (CALLUS_SCALE_KEEP=DIR
# keeps DIR/ws-SIZE), the same new gcc errors (a new lesson, signature,
# vector; no snapshot), in turns:
#   hook    - `callus hook generic`, one process each (bench/proctime);
#   opened  - the same recording in one process (bench/scale_gen.c -t):
#             no process start, no hook around it, the store opened and
#             closed by each recording as the hook's is;
#   kept    - the same, the store opened once and kept (scale_gen -t -k):
#             the schema parsed once, the statements the store keeps
#             compiled once (about half of a recording's), pages kept.
# opened less kept is what a server would save of a recording; hook less
# opened, what a process and the hook's own work around the recording
# cost (the first stays to pay in a server's client, the second partly).
# The three record alike: each error a check of its own (`gcc -c` of the
# error's file), three related lessons asked for, no session, the store's
# cache at the recording's 64 pages, SQLite single-threaded on the CLI's
# allocator (cli/sqlmem.c) and the heap set up as cli/main.c sets it.
# They differ besides in what hook less opened counts: scale_gen links
# SQLite, jansson and PCRE2 as shared libraries where callus is a static
# PIE, and records with no origin and no stored callback (the hook's
# recording has both, cli/record_common.c).
# Each round runs the three in a rotating order, PER recordings each,
# GAP_MS apart (an agent's hooks are seconds apart: docs/scale-history.md, the
# nineteenth pass); the first two recordings of each in-process run are
# left out: in both, the first pays the process's first faults of its
# memory (some 270 page faults more than the next), and the kept store's
# also its opening, its second the statements compiled again before the
# store keeps them.  Prints min / first quartile / median / third quartile / max / mean
# of each one's CPU ms and wall ms.
# Usage: bench/kept.sh WS ROUNDS [GAP_MS [path/to/callus]]
#   e.g. bench/kept.sh /tmp/keepE/ws-100000 20 200
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: bench/kept.sh WS ROUNDS [GAP_MS [path/to/callus]]" >&2; exit 2; }
src=$1 rounds=$2 gap=${3:-200}
callus=$(realpath "${4:-$repo/build/callus}")
per=5
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_grown kept "$repo" "$src" "$callus"

bench_copies "$src" "$work" "$callus" "$callus"
bench_ready "$src" "$work/ws-c" "$callus"
created=$(bench_settle "$work" "$work/ws-c/.callus")
bin=$(bench_fresh "$work/bin" "$callus")
export CALLUS_GIT_HELPER="$work/bin/callus-git"
gap_s=$(awk -v g="$gap" 'BEGIN { printf "%.3f", g / 1000 }')
for x in hook opened kept; do : >"$work/$x.cpu"; : >"$work/$x.wall"; done

hook() {
	j=0
	while [ "$j" -lt "$per" ]; do
		bench_fail_payload "$work" $((k + j)) "$work/ws-a" "$work/p.json" own
		sleep "$gap_s"
		(cd "$work/ws-a" && "$work/proctime" 1 "$work/p.json" "$bin" hook generic) >"$work/line"
		cut -d' ' -f1 "$work/line" >>"$work/hook.cpu"
		cut -d' ' -f4 "$work/line" >>"$work/hook.wall"
		j=$((j + 1))
	done
}
opened() {
	"$work/scale_gen" -t "$gap" "$work/ws-b" $((k - 2)) $((k + per)) >"$work/all"
	sed 1,2d "$work/all" >"$work/lines"
	cut -d' ' -f1 "$work/lines" >>"$work/opened.cpu"
	cut -d' ' -f2 "$work/lines" >>"$work/opened.wall"
}
kept() {
	# two more: the first opens the store, the second compiles again
	# what the store keeps from a statement's second use
	"$work/scale_gen" -t -k "$gap" "$work/ws-c" $((k - 2)) $((k + per)) >"$work/all"
	sed 1,2d "$work/all" >"$work/lines"
	cut -d' ' -f1 "$work/lines" >>"$work/kept.cpu"
	cut -d' ' -f2 "$work/lines" >>"$work/kept.wall"
}

r=0
while [ "$r" -lt "$rounds" ]; do
	# error numbers far above the grown store's, a block per round (the
	# in-process runs' two extra ones below it)
	k=$((900000 + r * 10 + 2))
	case $((r % 3)) in
	0) hook; opened; kept ;;
	1) opened; kept; hook ;;
	*) kept; hook; opened ;;
	esac
	r=$((r + 1))
done

n=$((rounds * per))
echo "a file created in a copy's .callus/ when timing began: $created us (bench/fsprobe.c)"
echo "| $n new errors, $gap ms apart | CPU ms: min / q1 / median / q3 / max / mean | wall ms: the same |"
echo "|:---|---:|---:|"
for x in hook opened kept; do
	echo "| $x | $(bench_stats "$work/$x.cpu") | $(bench_stats "$work/$x.wall") |"
done
