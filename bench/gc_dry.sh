#!/bin/sh
# bench/gc_dry.sh - `callus gc --dry-run` against the pass it foretells
# (issue 14's retention): N rounds, each in a fresh copy of a store grown
# by bench/scale.sh (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE) whose
# [retention] keeps KEEP lessons, so that the pass has thousands of
# lessons and their files to take.  In each copy the dry run is timed,
# then the real pass (the baseline, same copy, same policy); their counts
# must agree, and the dry run must leave the store's rows as they were.
# CPU ms from bench/proctime (wait4) of each: min / q1 / median / q3 /
# max / mean.  The copy is migrated and read once (`callus status`)
# before anything is timed.
# Usage: bench/gc_dry.sh WS N KEEP [path/to/callus]
#   e.g. bench/gc_dry.sh /tmp/keepNew/ws-10000 9 3000
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/gc_dry.sh WS N KEEP [path/to/callus]" >&2; exit 2; }
src=$1 n=$2 keep=$3
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count gc_dry N "$n"
bench_count gc_dry KEEP "$keep"
callus=$(bench_exe gc_dry "${4:-$repo/build/callus}") || exit 2
bench_grown gc_dry "$repo" "$src" "$callus"

# the store's rows, table by table, on one line
rows() {
	sqlite3 "$1/.callus/callus.db" "SELECT (SELECT count(*) FROM lessons) || ' ' ||
		(SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM signatures) || ' ' ||
		(SELECT count(*) FROM pending_errors) || ' ' || (SELECT count(*) FROM checks)"
}
# what a pass removed, without what only a real pass does
counts() {
	jq -c 'del(.dry_run, .vacuumed, .wal_left, .temp_files, .snapshot_objects)' "$1"
}

: >"$work/dry" && : >"$work/real"
agree=0 unchanged=0 i=0
while [ "$i" -lt "$n" ]; do
	rm -rf "$work/ws"
	bench_copy_store "$src" "$work/ws"
	printf '[retention]\ngc_hours = 0\nlessons = %s\n' "$keep" >"$work/ws/.callus/config"
	(cd "$work/ws" && "$callus" status >/dev/null)
	before=$(rows "$work/ws")
	(cd "$work/ws" && "$work/proctime" 1 /dev/null "$callus" gc --dry-run) | cut -d' ' -f1 >>"$work/dry"
	(cd "$work/ws" && "$callus" gc --dry-run --json >"$work/dry.json")
	[ "$(rows "$work/ws")" != "$before" ] || unchanged=$((unchanged + 1))
	(cd "$work/ws" && "$work/proctime" 1 /dev/null "$callus" gc) | cut -d' ' -f1 >>"$work/real"
	# the real pass's counts: from a copy made again (the one above is done)
	rm -rf "$work/ws2" && bench_copy_store "$src" "$work/ws2" && cp "$work/ws/.callus/config" "$work/ws2/.callus/config"
	(cd "$work/ws2" && "$callus" status >/dev/null && "$callus" gc --json >"$work/real.json")
	[ "$(counts "$work/dry.json")" != "$(counts "$work/real.json")" ] || agree=$((agree + 1))
	i=$((i + 1))
done

echo "store: $src, [retention] lessons = $keep; a pass removes: $(counts "$work/real.json")"
echo "rounds where the dry run's counts equal the real pass's: $agree of $n;" \
	"where the store's rows were unchanged by it: $unchanged of $n"
echo "| command | CPU ms, $n rounds: min / q1 / median / q3 / max / mean |"
echo "|:---|---:|"
echo "| callus gc --dry-run | $(bench_stats "$work/dry") |"
echo "| callus gc (the baseline) | $(bench_stats "$work/real") |"
