#!/bin/sh
# bench/sizes.sh - the curve of a failing hook, its sizes in the same
# minutes: one binary's failing hooks (a gcc error never seen, no snapshot)
# in copies of stores of several sizes kept by bench/scale.sh
# (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE), taking turns one hook at a
# time, each round starting at the next size.  bench/scale.sh times the
# sizes one after the other, minutes apart, and this machine's minutes
# differ: its ratio of the largest size to the smallest moved from x1.08 to
# x1.3 between two runs of the same binaries (docs/scale-history.md, the
# twenty-ninth pass).  Here the slow and fast minutes fall on every size
# alike.  CPU ms from bench/proctime (wait4); min/median/max of each size,
# and its median over the first size's.
# Usage: bench/sizes.sh DIR N SIZES [path/to/callus]
#   e.g. bench/sizes.sh /tmp/keepE 61 "1000 100000" build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/sizes.sh DIR N SIZES [path/to/callus]" >&2; exit 2; }
from=$1 n=$2 sizes=$3
callus=$(realpath "${4:-$repo/build/callus}")
first=${sizes%% *}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_grown sizes "$repo" "$from/ws-$first" "$callus"

for size in $sizes; do
	[ -d "$from/ws-$size/.callus" ] || { echo "bench/sizes.sh: no store $from/ws-$size" >&2; exit 2; }
	ws=$work/ws-$size
	bench_ready "$from/ws-$size" "$ws" "$callus"
	i=0
	while [ "$i" -lt "$n" ]; do
		bench_fail_payload "$work" $((90000000 + size * 10 + i)) "$ws" "$work/$size-$i.json"
		i=$((i + 1))
	done
	: >"$work/$size.txt"
done
created=$(bench_settle "$work" "$work/ws-$first/.callus")
bin=$(bench_fresh "$work/bin" "$callus")

# the sizes from the k-th on, then those before it
rotated() {
	echo "$sizes" | awk -v k="$1" '{ for (j = 0; j < NF; j++) printf "%s ", $(((j + k) % NF) + 1) }'
}
i=0
while [ "$i" -lt "$n" ]; do
	for size in $(rotated "$i"); do
		(cd "$work/ws-$size" && "$work/proctime" 1 "$work/$size-$i.json" "$bin" hook generic) |
			cut -d' ' -f1 >>"$work/$size.txt"
	done
	i=$((i + 1))
done

median() { bench_range "$1" | cut -d/ -f2; }
base=$(median "$work/$first.txt")
echo "a file created in .callus/ when timing began: $created us (bench/fsprobe.c)"
echo "| recordings | failing hook, no snapshot (min/median/max) | median over $first's |"
echo "|---:|---:|---:|"
for size in $sizes; do
	echo "| $size | $(bench_range "$work/$size.txt") |" \
		"$(awk -v a="$(median "$work/$size.txt")" -v b="$base" 'BEGIN { printf "x%.2f", a / b }') |"
done
echo "($callus; CPU ms, $n hooks a size, the sizes in turn)"
