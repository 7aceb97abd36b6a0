#!/bin/sh
# bench/capture.sh - the capture pipeline (callus analyze: ANSI stripping,
# filtering, parsing, summary, signatures) on 1 MB and 100 MB outputs,
# against `grep -E -i 'error|fail|exception'` on the same text in the same
# run (grep's count goes to a file: with /dev/null as its output, GNU grep
# stops at the first match).  The output mixes what big test and build logs are made of: passing
# tests, progress lines, colour codes, and failures with stack traces.
# Usage: bench/capture.sh [path/to/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
callus=${1:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe capture "$callus") || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q

# one block of a realistic log, about 4 KB
{
	for i in 1 2 3 4 5 6 7 8; do
		printf '\033[32m PASS \033[39m src/components/widget%d.test.tsx (%d.%d s)\n' "$i" "$i" "$i"
		printf '  \033[32m✓\033[39m renders the widget with its default props (%d ms)\n' "$i"
		printf '  \033[32m✓\033[39m updates the counter when the button is clicked (%d ms)\n' "$i"
		printf '[webpack] compiled module ./node_modules/react-dom/cjs/react-dom.development.js 1.2 MiB\n'
	done
	printf '\033[31m FAIL \033[39m src/cart.test.ts\n'
	printf '  ● cart › applies the discount\n\n    expect(received).toBe(expected)\n\n'
	printf '    Expected: 90\n    Received: 100\n\n      at Object.<anonymous> (src/cart.test.ts:42:23)\n'
	printf '      at processTicksAndRejections (node:internal/process/task_queues:95:5)\n'
	printf 'src/cart.ts:17:5 - error TS2322: Type '"'"'string'"'"' is not assignable to type '"'"'number'"'"'.\n'
	for i in $(seq 1 30); do
		printf 'INFO  2026-11-21T10:%02d:00Z worker-%d processed batch %d of 1000 in 12ms\n' "$i" "$i" "$i"
	done
} >block
: >out1m
while [ "$(wc -c <out1m)" -lt 1048576 ]; do cat block >>out1m; done
: >out100m
for i in $(seq 1 100); do cat out1m >>out100m; done

cmd="npx jest"
row() {
	label=$1 file=$2
	bytes=$(wc -c <"$file")
	hyperfine -N --warmup 2 --runs "$3" --export-json "$work/r.json" \
		-n "grep -c -E -i" "sh -c \"grep -c -E -i 'error|fail|exception' $file >$work/grep.out\"" \
		-n "callus analyze" "sh -c \"$callus analyze --command '$cmd' --exit-code 1 <$file >/dev/null\"" \
		>/dev/null
	python3 - "$work/r.json" "$label" "$bytes" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[3])
for x in r:
    mb_s = size / x["median"] / 1e6
    print(f"| {sys.argv[2]} | {x['command']} | {x['median']*1000:.1f} | {mb_s:.0f} |")
PY
}
echo "| output | command | median ms | MB/s |"
echo "|:---|:---|---:|---:|"
row "1 MB" out1m 30
row "100 MB" out100m 5
for f in out1m out100m; do
	rss=$( { /usr/bin/time -f %M "$callus" analyze --command "$cmd" --exit-code 1 <$f >/dev/null; } 2>&1 | tail -n 1)
	echo "peak RSS, callus analyze on $f: $rss KB"
done
