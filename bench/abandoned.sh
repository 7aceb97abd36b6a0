#!/bin/sh
# bench/abandoned.sh - one failing hook in a workspace back after a week
# away: every pending error of a grown store (bench/scale.sh's
# CALLUS_SCALE_KEEP) idle past [learn] prune_hours, against the same store
# as grown (its errors recent), each on a fresh copy (bench_ready), the hook
# (`callus hook generic`, a gcc error never seen, snapshots off) timed once
# per copy by bench/proctime: CPU ms min/median/max of N copies.  A
# recording drops its own check's abandoned errors and at most 100 of the
# others' (src/learn.c); before the fifty-fourth pass it dropped all of
# them, with their cascades, in that hook.
# Usage: bench/abandoned.sh DIR [N] [SIZE] [path/to/callus]
#   (default: 5 10000 build/callus; DIR/ws-SIZE the grown store)
#   CALLUS_ABANDONED_BASE=path/to/other/callus times it too, on copies of
#   the same store, the two binaries' copies taken in turn.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
from=${1:?usage: bench/abandoned.sh DIR [N] [SIZE] [path/to/callus]}
n=${2:-5}
size=${3:-10000}
callus=${4:-$repo/build/callus}
. "$repo/bench/tools.sh"
bench_count abandoned N "$n"
callus=$(bench_exe abandoned "$callus") || exit 2
base=${CALLUS_ABANDONED_BASE:-}
[ -z "$base" ] || base=$(bench_exe abandoned "$base") || exit 2
command -v jq >/dev/null || { echo "bench/abandoned.sh: jq is needed" >&2; exit 2; }
bench_grown abandoned "$repo" "$from/ws-$size" "$callus"

# one [label binary aged] round: a fresh copy, its pending errors aged
# eight days when aged is 1, one failing hook timed
one() {
	ws=$work/ws
	rm -rf "$ws"
	bench_ready "$from/ws-$size" "$ws" "$2"
	if [ "$3" = 1 ]; then
		bench_store_sql "$ws/.callus/callus.db" \
			"UPDATE pending_errors SET last_failure_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-8 days') WHERE state = 'pending'"
	fi
	bench_fail_payload "$work" 90000001 "$ws" "$work/fail.json" own
	(cd "$ws" && "$work/proctime" 1 "$work/fail.json" "$2" hook generic) |
		awk '{ print $1 }' >>"$work/$1-$3"
}

pending=$(sqlite3 "$from/ws-$size/.callus/callus.db" \
	"SELECT count(*) FROM pending_errors WHERE state = 'pending'")
i=0
while [ "$i" -lt "$n" ]; do
	for aged in 1 0; do
		if [ -n "$base" ] && [ $((i % 2)) = 0 ]; then one base "$base" "$aged"; fi
		one this "$callus" "$aged"
		if [ -n "$base" ] && [ $((i % 2)) = 1 ]; then one base "$base" "$aged"; fi
	done
	i=$((i + 1))
done
echo "| binary | $pending pending errors abandoned | none abandoned |"
echo "|:---|---:|---:|"
[ -z "$base" ] || echo "| base | $(bench_range "$work/base-1") | $(bench_range "$work/base-0") |"
echo "| this | $(bench_range "$work/this-1") | $(bench_range "$work/this-0") |"
