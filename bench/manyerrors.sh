#!/bin/sh
# bench/manyerrors.sh - a build that fails with N distinct errors at once
# (N gcc errors of bench/scale_gen.c, each another message in another file),
# recorded through the hook: the first time (N new errors, N signatures, N
# open episodes of one check) and again, as the agent runs the build again
# before fixing anything (N errors recurring).  What grows with the errors of
# one run, where bench/scale.sh grows the store a run at a time.  Two
# binaries, each in a workspace of its own, take turns; CPU ms of each hook
# from bench/proctime (wait4), medians of ROUNDS.
# Usage: bench/manyerrors.sh N ROUNDS BASE [path/to/callus]
#   e.g. bench/manyerrors.sh 1000 5 /tmp/old/build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/manyerrors.sh N ROUNDS BASE [path/to/callus]" >&2; exit 2; }
n=$1 rounds=$2 base=$(realpath "$3")
callus=$(realpath "${4:-$repo/build/callus}")
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-many.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_tools "$repo" "$work" "$(dirname "$callus")"

i=1
while [ "$i" -le "$n" ]; do
	"$work/scale_gen" -p $((900000 + i))
	i=$((i + 1))
done >"$work/out.txt"

# median FILE
median() {
	sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.1f", v[int((NR + 1) / 2)] }'
}

for x in a b; do : >"$work/$x.first"; : >"$work/$x.again"; done
# the two binaries copied together (bench_fresh, bench/tools.sh)
run_a=$(bench_fresh "$work/bin-a" "$base") run_b=$(bench_fresh "$work/bin-b" "$callus")
r=0
while [ "$r" -lt "$rounds" ]; do
	for x in a b; do
		if [ "$x" = a ]; then bin=$run_a; else bin=$run_b; fi
		ws=$work/ws-$x
		rm -rf "$ws" && mkdir -p "$ws/.callus"
		printf '[learn]\nsnapshots = false\n[retention]\ngc_hours = 0\n' >"$ws/.callus/config"
		jq -n --rawfile o "$work/out.txt" --arg cwd "$ws" \
			'{command: "make", exit_code: 2, output: $o, cwd: $cwd}' >"$work/p.json"
		(cd "$ws" && "$work/proctime" 1 "$work/p.json" "$bin" hook generic) |
			cut -d' ' -f1 >>"$work/$x.first"
		(cd "$ws" && "$work/proctime" 1 "$work/p.json" "$bin" hook generic) |
			cut -d' ' -f1 >>"$work/$x.again"
	done
	r=$((r + 1))
done
echo "| binary | $n errors, first recorded (CPU ms, median of $rounds) | recorded again |"
echo "|:---|---:|---:|"
echo "| $base | $(median "$work/a.first") | $(median "$work/a.again") |"
echo "| $callus | $(median "$work/b.first") | $(median "$work/b.again") |"
