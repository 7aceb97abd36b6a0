#!/bin/sh
# bench/fixpass.sh - a passing check's hook that fixes an error (learns
# its diff from the failure's snapshot), two binaries in turn: the store's
# gcc error 0 (bench/scale_gen -p 0) failing its own check, its file
# edited, the check passing.  Each binary works in a copy of the grown
# store WS (bench/scale.sh's CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE),
# snapshots on; each turn is a failure (untimed), the edit, the pass
# (timed), and the edit undone.  N turns of each, each binary first two
# turns in four; bench/proctime's CPU ms (user + system, the snapshot
# helper's included) of each pass, then the medians and the median of the
# pairs' differences (NEW - OLD).
# Usage: bench/fixpass.sh WS N OLD NEW
#   e.g. bench/fixpass.sh /tmp/keepE/ws-1000 40 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: bench/fixpass.sh WS N OLD NEW" >&2; exit 2; }
from=$1 n=$2 old=$3 new=$4
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need bench/fixpass.sh jq git || exit 2
bench_pair fixpass "$repo" "$from" "$old" "$new"
for x in old new; do
	ws=$work/ws-$x
	bench_ready "$from" "$ws" "$(bench_bin_of "$x")" snapshots
	bench_fail_payload "$work" 0 "$ws" "$work/$x-fail.json" own
	jq '.exit_code = 0 | .output = ""' "$work/$x-fail.json" >"$work/$x-pass.json"
	# the error's file, committed, as a project's sources are
	file=$(sed -n '1s/:.*//p' "$work/out.txt")
	mkdir -p "$ws/$(dirname "$file")"
	echo "int fixpass_x;" >"$ws/$file"
	git -C "$ws" add "$file"
	git -C "$ws" -c user.name=bench -c user.email=bench@localhost commit -qm "$file"
done

# turn X: one failure, the fix, the timed pass, the fix undone
turn() {
	bin=$(bench_bin_of "$1")
	ws=$work/ws-$1
	helper=$(dirname "$bin")/callus-git
	CALLUS_GIT_HELPER=$helper "$bin" hook generic <"$work/$1-fail.json" >/dev/null
	cp "$ws/$file" "$work/$1.orig"
	echo "/* fixed */" >>"$ws/$file"
	CALLUS_GIT_HELPER=$helper "$work/proctime" 1 "$work/$1-pass.json" "$bin" hook generic |
		cut -d' ' -f1 >>"$work/$1.ms"
	cp "$work/$1.orig" "$ws/$file"
}
# two untimed turns each: the resolution made, the store's pages read once
for x in old new old new; do
	turn "$x"
done
: >"$work/old.ms"
: >"$work/new.ms"
bench_settle "$work" "$work/ws-new/.callus" >/dev/null
bench_pair_fresh
# fixes: the errors the new binary's copy has closed as fixed
fixes() {
	bench_store_sql "$work/ws-new/.callus/callus.db" \
		"SELECT count(*) FROM pending_errors WHERE state = 'fixed'"
}
before=$(fixes)
bench_pairs "$n" turn
fixed=$(($(fixes) - before))
echo "| passes | OLD min/median/max | NEW min/median/max | NEW - OLD, median of the pairs | fixes the new binary learnt |"
echo "|---:|---:|---:|---:|---:|"
printf "| %s | %s | %s | %s | %s |\n" "$n" "$(bench_range "$work/old.ms")" "$(bench_range "$work/new.ms")" \
	"$(paste "$work/old.ms" "$work/new.ms" | awk '{ print $2 - $1 }' >"$work/d" &&
		bench_range "$work/d" | cut -d/ -f2)" "$fixed"
