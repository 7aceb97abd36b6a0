#!/bin/sh
# bench/lessons_cap.sh - a workspace at its [retention] lessons (issue 14:
# ".lessons/ never holds more than the policy allows"): N new gcc errors,
# each a check of its own, through `callus hook generic`, with the
# background pass on ([retention] gc_hours = 24) and not due (its stamp
# touched), no snapshot.  Each binary works in a copy of the grown store WS
# (bench/scale.sh's CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE; ws-100000
# holds 10,000 lessons, the default count), migrated and gc'd by it; LESSONS
# sets the count instead of the default (the copy's lessons go down to it
# first, by `callus gc`).  N pairs, one hook of each binary, each first two
# pairs in four; bench/proctime's CPU ms (user + system) of each, then
# min/median/max, the mean (what a recording pays on average, the removals
# of the least valuable included: a few hooks in a hundred pay for them),
# and the lessons and .lessons/ files each copy holds at the end.
# Usage: bench/lessons_cap.sh WS N OLD NEW
#   e.g. bench/lessons_cap.sh /tmp/keep62/ws-100000 300 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: bench/lessons_cap.sh WS N OLD NEW" >&2; exit 2; }
from=$1 n=$2 old=$3 new=$4
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need bench/lessons_cap.sh jq git sqlite3 || exit 2
bench_count lessons_cap N "$n"
bench_pair lessons_cap "$repo" "$from" "$old" "$new"
config='[retention]\ngc_hours = 24\n[learn]\nsnapshots = false\n'
[ -z "${LESSONS:-}" ] || config="[retention]\ngc_hours = 24\nlessons = $LESSONS\n[learn]\nsnapshots = false\n"
for x in old new; do
	ws=$work/ws-$x
	bin=$(bench_bin_of "$x")
	bench_ready "$from" "$ws" "$bin"
	# shellcheck disable=SC2059 # the config is a format
	printf "$config" >"$ws/.callus/config"
	(cd "$ws" && "$bin" gc >/dev/null)
	touch "$ws/.callus/gc.stamp"
	i=0
	while [ "$i" -lt "$n" ]; do
		bench_fail_payload "$work" $((880000 + i)) "$ws" "$work/$x-$i.json" own
		i=$((i + 1))
	done
done
bench_settle "$work" "$work/ws-new/.callus" >/dev/null
bench_pair_fresh

# one X I: the CPU ms of hook I of binary X in its copy
one() {
	(cd "$work/ws-$1" && "$work/proctime" 1 "$work/$1-$2.json" "$(bench_bin_of "$1")" hook generic) |
		cut -d' ' -f1 >>"$work/$1.ms"
}
: >"$work/old.ms"
: >"$work/new.ms"
bench_pairs "$n"
lessons_of() {
	sqlite3 "$work/ws-$1/.callus/callus.db" 'SELECT count(*) FROM lessons'
}
files_of() {
	find "$work/ws-$1/.lessons" -name '*.md' | wc -l
}
mean_of() {
	awk '{ s += $1 } END { printf "%.3f", s / NR }' "$1"
}
echo "| binary | hooks | CPU ms min/median/max | mean | lessons at the end | .lessons/ files |"
echo "|:---|---:|---:|---:|---:|---:|"
for x in old new; do
	printf "| %s | %s | %s | %s | %s | %s |\n" "$(echo "$x" | tr a-z A-Z)" "$n" \
		"$(bench_range "$work/$x.ms")" "$(mean_of "$work/$x.ms")" "$(lessons_of "$x")" "$(files_of "$x")"
done
