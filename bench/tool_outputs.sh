#!/bin/sh
# bench/tool_outputs.sh - the instructions callus executes recording a large
# failing output of each of eight tools (tsc, mypy, ruff, eslint, go build,
# rustc, pytest, jest: bench/tool_outputs.py writes them, each error its
# own), through the hook (`callus hook generic`, the payload carrying the
# output), counted by valgrind's callgrind: what bench/record1m.sh measures
# for make and gcc, for the other parsers and their summaries.  Each binary
# records into a store of its own, once before it is counted (the second
# recording of the same failure); snapshots off.  A count marked "cut" is of
# a hook that callgrind slowed past its deadline: only its part before the
# cut is counted (the rest went on in a detached copy), so it is low.
# With CALLUS_TOOLS_TIME=N, also the hook's CPU time and page faults: the
# medians of N runs (bench/proctime.c; ms, first touches of memory).
# Usage: bench/tool_outputs.sh [BYTES] [path/to/callus] [path/to/base/callus]
#   BYTES: each output's size (default 262144)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
size=${1:-262144}
callus=$(realpath "${2:-$repo/build/callus}")
base=${3:+$(realpath "$3")}
runs=${CALLUS_TOOLS_TIME:-0}
for tool in valgrind jq python3; do
	command -v "$tool" >/dev/null || { echo "bench: install $tool" >&2; exit 1; }
done
case $size in '' | *[!0-9]*) echo "bench: BYTES is a number" >&2; exit 2 ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ "$runs" = 0 ] || cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"

echo "| output | callus | through the hook |$([ "$runs" = 0 ] || echo " hook, CPU ms (median of $runs) | page faults |")"
echo "|:---|:---|---:|$([ "$runs" = 0 ] || echo "---:|---:|")"
for spec in "tsc:npx tsc --noEmit" "mypy:mypy src" "ruff:ruff check ." "eslint:npx eslint ." \
	"go:go build ./..." "rustc:cargo build" "pytest:pytest" "jest:npx jest"; do
	kind=${spec%%:*} cmd=${spec#*:}
	for bin in ${base:+"$base"} "$callus"; do
		ws=$work/ws-$kind-$(printf '%s' "$bin" | cksum | cut -d' ' -f1)
		mkdir -p "$ws" && cd "$ws"
		python3 "$repo/bench/tool_outputs.py" "$kind" "$size" >out.txt
		bench_output_ws "$ws" "$cmd" out.txt
		"$bin" hook generic <p.json >/dev/null
		n=$(bench_callgrind p.json "$bin" hook generic)
		if [ "$runs" = 0 ]; then
			echo "| $kind | $bin | $n |"
		else
			t=$("$work/proctime" "$runs" p.json "$bin" hook generic)
			echo "| $kind | $bin | $n | $(echo "$t" | cut -d' ' -f2) | $(echo "$t" | cut -d' ' -f8) |"
		fi
	done
done
