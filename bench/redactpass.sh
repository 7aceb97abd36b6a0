#!/bin/sh
# bench/redactpass.sh - what redacting an older store again costs
# (include/callus/store_redact.h), against the same work on a store already
# marked, in copies of a store grown by bench/scale.sh (CALLUS_SCALE_KEEP=DIR
# keeps DIR/ws-SIZE), N cycles.  A cycle times, each in a fresh copy whose
# retention was applied first (bench_ready, bench/tools.sh):
#   gc due     `callus gc` of a store with no redaction mark (one an older
#              callus made): the whole pass, and the VACUUM it then owes
#   gc marked  `callus gc` of the same store marked
#   hook due   a failing `callus hook generic` (a gcc error never seen) whose
#              daily background pass is due (gc.stamp removed, gc_hours 24)
#              in a store with no mark: the bounded pass, 32,768 rows
#   hook marked the same hook, the store marked
# CPU and wall ms of each from bench/proctime (wait4): min / q1 / median /
# q3 / max / mean.  No store holds a secret: the cost is reading, redacting
# and the marks, which is what every store pays once.
# Usage: bench/redactpass.sh WS N [path/to/callus]
#   e.g. bench/redactpass.sh /tmp/keepE/ws-100000 3
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: bench/redactpass.sh WS N [path/to/callus]" >&2; exit 2; }
src=$1 n=$2
callus=$(realpath "${3:-$repo/build/callus}")
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_grown redactpass "$repo" "$src" "$callus"

steps="gc-due gc-marked hook-due hook-marked"
for s in $steps; do : >"$work/$s.cpu" && : >"$work/$s.wall"; done
bin=$(bench_fresh "$work/bin" "$callus")

# copy MARKED: $work/ws, ready, without (no) or with (yes) the mark
copy() {
	rm -rf "$work/ws"
	bench_ready "$src" "$work/ws" "$bin"
	bench_store_sql "$work/ws/.callus/callus.db" \
		"DELETE FROM sync_state WHERE key LIKE 'redaction.%'"
	[ "$1" = no ] || bench_store_sql "$work/ws/.callus/callus.db" \
		"INSERT INTO sync_state VALUES ('redaction.version', '1')"
}

# timed STEP INPUT ARGS...: one run of callus ARGS in the copy
timed() {
	step=$1 input=$2
	shift 2
	(cd "$work/ws" && "$work/proctime" 1 "$input" "$bin" "$@") >"$work/out"
	# proctime's line: CPU min, median, max, then wall's, then faults'
	cut -d' ' -f1 "$work/out" >>"$work/$step.cpu"
	cut -d' ' -f4 "$work/out" >>"$work/$step.wall"
}

i=0
while [ "$i" -lt "$n" ]; do
	copy no
	timed gc-due /dev/null gc
	copy yes
	timed gc-marked /dev/null gc
	for m in no yes; do
		copy "$m"
		printf '[retention]\ngc_hours = 24\n[learn]\nsnapshots = false\n' \
			>"$work/ws/.callus/config"
		rm -f "$work/ws/.callus/gc.stamp"
		bench_fail_payload "$work" $((910000 + i)) "$work/ws" "$work/fail.json"
		if [ "$m" = no ]; then step=hook-due; else step=hook-marked; fi
		timed "$step" "$work/fail.json" hook generic
	done
	i=$((i + 1))
done

rows=$(bench_store_sql "$work/ws/.callus/callus.db" "SELECT (SELECT count(*) FROM lessons)
	+ (SELECT count(*) FROM runs) + (SELECT count(*) FROM run_errors)
	+ (SELECT count(*) FROM checks) + (SELECT count(*) FROM signatures)
	+ (SELECT count(*) FROM pending_errors) + (SELECT count(*) FROM resolutions)
	+ (SELECT count(*) FROM notes)")
echo "rows of text in the store (its main tables): $rows"
echo "| step | CPU ms, $n runs: min / q1 / median / q3 / max / mean | wall ms, the same |"
echo "|:---|---:|---:|"
for s in $steps; do
	echo "| $s | $(bench_stats "$work/$s.cpu") | $(bench_stats "$work/$s.wall") |"
done
