#!/bin/sh
# bench/commands.sh - the commands that read the whole store, beside the
# hook's few pages: `callus gc`, `callus notes`, `callus reindex`, and the
# failing hook just after a reindex (it writes the notes' vector file again
# from the store: a join over every noted signature's vector).  A setting
# made for the hook's short reads (a recording keeps 64 of the store's
# pages, src/record.c) must not reach them.  Two binaries, each in its own
# copy of a store grown by bench/scale.sh (CALLUS_SCALE_KEEP=DIR keeps
# DIR/ws-SIZE), take turns, N rounds; CPU ms from bench/proctime (wait4),
# median of each binary, and the page faults of the hook after a reindex.
# The disk is let settle first (bench_settle, bench/tools.sh).
# Usage: bench/commands.sh WS N BASE [path/to/callus]
#   e.g. bench/commands.sh /tmp/keepE/ws-100000 3 /tmp/old/build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/commands.sh WS N BASE [path/to/callus]" >&2; exit 2; }
src=$1 n=$2 base=$(realpath "$3")
callus=$(realpath "${4:-$repo/build/callus}")
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_grown commands "$repo" "$src" "$callus"

bench_copies "$src" "$work" "$base" "$callus"
created=$(bench_settle "$work" "$work/ws-b/.callus")
# the two binaries copied together now (bench_fresh, bench/tools.sh)
run_a=$(bench_fresh "$work/bin-a" "$base") run_b=$(bench_fresh "$work/bin-b" "$callus")

# time X WHAT INPUT ARGS...: one run of X's binary in its copy, appended
# to $work/X.WHAT (CPU ms) and $work/X.WHAT.faults
time_one() {
	x=$1 what=$2 input=$3
	shift 3
	if [ "$x" = a ]; then bin=$run_a; else bin=$run_b; fi
	(cd "$work/ws-$x" && "$work/proctime" 1 "$input" "$bin" "$@") >"$work/line"
	cut -d' ' -f1 "$work/line" >>"$work/$x.$what"
	cut -d' ' -f7 "$work/line" >>"$work/$x.$what.faults"
}

i=0
while [ "$i" -lt "$n" ]; do
	for x in a b; do
		time_one "$x" gc /dev/null gc
		time_one "$x" notes /dev/null notes
		time_one "$x" reindex /dev/null reindex
		bench_fail_payload "$work" $((800000 + i)) "$work/ws-$x" "$work/p.json"
		time_one "$x" hook "$work/p.json" hook generic
	done
	i=$((i + 1))
done

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'; }
echo "a file created in the copy's .callus/ when timing began: $created us (bench/fsprobe.c)"
echo "| binary | callus gc | callus notes | callus reindex | failing hook after it | its page faults |"
echo "|:---|---:|---:|---:|---:|---:|"
for x in a b; do
	if [ "$x" = a ]; then bin=$base; else bin=$callus; fi
	echo "| $bin | $(median "$work/$x.gc") | $(median "$work/$x.notes") |" \
		"$(median "$work/$x.reindex") | $(median "$work/$x.hook") |" \
		"$(median "$work/$x.hook.faults") |"
done
echo "(CPU ms, medians of $n, the two binaries in turn)"
