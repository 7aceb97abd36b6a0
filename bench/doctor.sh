#!/bin/sh
# bench/doctor.sh - what `callus doctor` costs in a grown store, two binaries
# in turn: made for the check of the vector file record by record against
# the store's vectors (every record read and compared, every vector read),
# where the doctor before it compared the two counts.  A store grown by
# bench/scale.sh (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE) is copied for
# each binary, each migrating its copy and running `callus doctor` once
# before anything is timed.  N pairs of `callus doctor`, the binaries in
# turn (each first in every other pair); the baseline row is NEW's
# `callus status` in its copy (opening the store, reading its totals).
# bench/proctime's CPU ms (user + system): min/median/max, and the median
# of the pairs' differences (NEW - OLD).  Both binaries must find the
# store's vectors whole in every vector file (the script fails when either
# reports a problem with them).  The same binary given twice is the harness's control.
# Usage: bench/doctor.sh WS N OLD NEW
#   e.g. bench/doctor.sh /tmp/keep/ws-10000 21 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: bench/doctor.sh WS N OLD NEW" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count doctor N "$2"
src=$1 n=$2
old_src=$(bench_exe doctor "$3") || exit 2
new_src=$(bench_exe doctor "$4") || exit 2
command -v git >/dev/null || { echo "bench/doctor.sh: git is needed" >&2; exit 2; }
bench_grown doctor "$repo" "$src" "$new_src"

# ready X BIN: X's copy of the store, migrated by BIN, no background gc;
# BIN's doctor lines about the vector files into X.vectors
ready() {
	bench_copy_store "$src" "$work/$1"
	printf '[retention]\ngc_hours = 0\n' >"$work/$1/.callus/config"
	(cd "$work/$1" && git status --porcelain >/dev/null && "$2" status >/dev/null &&
		{ "$2" doctor || :; } | grep '^[a-z]* *vectors ' >"$work/$1.vectors")
	grep -q '^ok ' "$work/$1.vectors" && ! grep -qv '^ok ' "$work/$1.vectors" || {
		echo "bench/doctor.sh: $2 finds the vector file of $src wanting:" >&2
		cat "$work/$1.vectors" >&2
		exit 1
	}
}
ready old "$old_src"
ready new "$new_src"
bench_pair_fresh

# one X [CMD]: the CPU ms of one `callus CMD` (doctor) of binary X in its copy
one() {
	bin=$(bench_bin_of "$1")
	(cd "$work/$1" && "$work/proctime" 1 /dev/null "$bin" "${2:-doctor}") | cut -d' ' -f1 \
		>>"$work/$1.${2:-doctor}.ms"
}
echo "# $src; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# OLD: $(cut -c1-120 "$work/old.vectors")"
echo "# NEW: $(cut -c1-120 "$work/new.vectors")"
: >"$work/old.doctor.ms"
: >"$work/new.doctor.ms"
: >"$work/new.status.ms"
bench_turns "$n" new status
paste "$work/old.doctor.ms" "$work/new.doctor.ms" | awk '{ print $2 - $1 }' >"$work/d"
echo "| command | pairs | OLD min/median/max | NEW min/median/max | NEW - OLD, median of the pairs |"
echo "|:---|---:|---:|---:|---:|"
printf '| callus doctor | %s | %s | %s | %s |\n' "$n" "$(bench_range "$work/old.doctor.ms")" \
	"$(bench_range "$work/new.doctor.ms")" "$(bench_range "$work/d" | cut -d/ -f2)"
printf '| callus status (baseline, NEW) | %s | | %s | |\n' "$n" "$(bench_range "$work/new.status.ms")"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
