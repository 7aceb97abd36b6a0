#!/bin/sh
# bench/run-overhead.sh - what `callus run` costs on top of the command it wraps.
#
# Each row times `callus run -- CMD` against CMD run bare, in the same
# hyperfine run, on the same machine:
#   1. a non-verification command (true): process start, detection, exec;
#   2. a passing verification command (make, exit 0): capture on, no write;
#   3. a failing verification command printing 1 MB: capture, analysis, one
#      store transaction, .lessons/ and AGENTS.md (the recording path);
#   4. 1 GB of output through a non-verification command: pass-through
#      throughput, and callus's peak RSS (from /usr/bin/time).
# Usage: bench/run-overhead.sh [path/to/callus]   (default build/callus)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
callus=${1:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe run-overhead "$callus") || exit 2
command -v hyperfine >/dev/null || { echo "bench: install hyperfine" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q
cat >Makefile <<'MK'
pass:
	@true
fail:
	@yes "src/main.c:1:27: error: expected ';' before '}' token" | head -c 1048576; exit 1
MK

hyperfine -N --warmup 5 --runs 200 --export-markdown "$work/t1.md" \
	-n 'true' 'true' -n 'callus run -- true' "$callus run -- true" >/dev/null
hyperfine -N --warmup 5 --runs 100 --export-markdown "$work/t2.md" \
	-n 'make -s pass' 'make -s pass' -n 'callus run -- make -s pass' "$callus run -- make -s pass" >/dev/null
hyperfine --warmup 3 --runs 30 -i --export-markdown "$work/t3.md" \
	-n 'make -s fail (1 MB)' 'make -s fail >/dev/null' \
	-n 'callus run -- make -s fail (1 MB, recorded)' "$callus run -q -- make -s fail >/dev/null" >/dev/null
hyperfine --warmup 1 --runs 5 --export-markdown "$work/t4.md" \
	-n 'head -c 1G /dev/zero | cat' 'head -c 1G /dev/zero | cat >/dev/null' \
	-n 'callus run -- head -c 1G /dev/zero' "$callus run -- head -c 1G /dev/zero >/dev/null" >/dev/null

for t in t1 t2 t3 t4; do tail -n +3 "$work/$t.md"; done | {
	echo "| command | mean [ms] | min [ms] | max [ms] | relative |"
	echo "|:---|---:|---:|---:|---:|"
	cat
}
rss=$( { /usr/bin/time -f %M "$callus" run -- head -c 1G /dev/zero >/dev/null; } 2>&1 | tail -n 1)
echo
echo "peak RSS of callus run streaming 1 GB: $rss KB"
rss=$( { /usr/bin/time -f %M "$callus" run -q -- make -s fail >/dev/null; } 2>&1 | tail -n 1)
echo "peak RSS of callus run recording a 1 MB failure: $rss KB"
