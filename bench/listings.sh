#!/bin/sh
# bench/listings.sh - the listing commands on a large store (issue 14):
# `callus pending` (pending, every state), `lessons`, `notes` and
# `resolutions`, each as a person reads it and with --json, for two
# binaries, each in its own copy of a store bench/scale.sh kept
# (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE), N runs of each in turn: the
# median of the CPU ms (user + system) and the largest peak memory (max
# RSS, KB) of its runs, from /usr/bin/time; the bytes printed, and whether
# the two binaries printed the same ones.
# Usage: bench/listings.sh WS N BASE [path/to/callus]
#   e.g. bench/listings.sh /tmp/keep81/ws-100000 3 /tmp/old/build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/listings.sh WS N BASE [path/to/callus]" >&2; exit 2; }
src=$1 n=$2
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count listings N "$n"
base=$(bench_exe listings "$3") || exit 2
callus=$(bench_exe listings "${4:-$repo/build/callus}") || exit 2
[ -x /usr/bin/time ] || { echo "bench/listings.sh: install time (/usr/bin/time)" >&2; exit 2; }
bench_grown listings "$repo" "$src" "$callus"
bench_copies "$src" "$work" "$base" "$callus"

# one X ARGS...: a run of binary X (a: the base, b: this) in its copy;
# appends "CPU_MS RSS_KB" to $work/X.t, its output in $work/X.out
one() {
	x=$1
	shift
	if [ "$x" = a ]; then bin=$base; else bin=$callus; fi
	(cd "$work/ws-$x" && /usr/bin/time -f '%U %S %M' -o "$work/time" "$bin" "$@" \
		>"$work/$x.out" 2>/dev/null) || true
	awk '{ printf "%.0f %d\n", ($1 + $2) * 1000, $3 }' "$work/time" >>"$work/$x.t"
}

# median FILE: the median of the first column
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# peak FILE: the largest of the second column
peak() { sort -k2,2n "$1" | tail -n 1 | cut -d' ' -f2; }

echo "| command | $base: CPU ms / peak KB | $callus: CPU ms / peak KB | bytes printed | the same bytes |"
echo "|:---|---:|---:|---:|:---:|"
for cmd in "pending" "pending --json" "pending --state all --json" "lessons" "lessons --json" \
	"notes" "notes --json" "resolutions" "resolutions --json"; do
	: >"$work/a.t"
	: >"$work/b.t"
	i=0
	while [ "$i" -lt "$n" ]; do
		# each first every other run
		if [ $((i % 2)) = 0 ]; then
			# shellcheck disable=SC2086 # a command and its options
			one a $cmd && one b $cmd
		else
			# shellcheck disable=SC2086
			one b $cmd && one a $cmd
		fi
		i=$((i + 1))
	done
	same=no
	cmp -s "$work/a.out" "$work/b.out" && same=yes
	echo "| callus $cmd | $(median "$work/a.t") / $(peak "$work/a.t") |" \
		"$(median "$work/b.t") / $(peak "$work/b.t") | $(wc -c <"$work/b.out") | $same |"
done
