#!/bin/sh
# bench/context.sh - what a signature's context list weighs in a project
# with a manifest (schema 28 keeps each list once, in contexts).  A
# workspace whose package.json names N dependencies, then M different gcc
# errors (bench/scale_gen.c's) recorded there through `callus hook generic`: prints the list's
# bytes, the signatures and the contexts rows the store holds, and the
# bytes the rows of schemas 2 to 27 held (the list in every signature).
# Usage: bench/context.sh [N] [M] [path/to/callus]   (default: 30 10)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
deps=${1:-30} errors=${2:-10}
callus=${3:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe context "$callus") || exit 2
bench_need context jq sqlite3 cc || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-context.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$(dirname "$callus")"
mkdir "$work/ws"
cd "$work/ws"
git init -q .
{
	printf '{"name": "bench", "dependencies": {'
	i=1
	while [ "$i" -le "$deps" ]; do
		[ "$i" = 1 ] || printf ', '
		printf '"dependency-%d": "^1.0.0"' "$i"
		i=$((i + 1))
	done
	printf '}}\n'
} >package.json
"$callus" init >/dev/null 2>&1 || true
i=1
while [ "$i" -le "$errors" ]; do
	"$work/scale_gen" -p "$i" >"$work/out.txt"
	jq -n --rawfile o "$work/out.txt" --arg cwd "$work/ws" \
		'{command: "gcc -c src/x.c", exit_code: 1, output: $o, cwd: $cwd}' |
		"$callus" hook generic >/dev/null
	i=$((i + 1))
done
sqlite3 .callus/callus.db "SELECT 'dependencies: $deps; signatures: ' || (SELECT count(*) FROM signatures)
	|| '; contexts rows: ' || (SELECT count(*) FROM contexts)
	|| '; a list: ' || (SELECT max(length(patterns)) FROM contexts) || ' bytes'
	|| '; the lists as rows held them before schema 28: '
	|| (SELECT sum(length(c.patterns)) FROM signatures g JOIN contexts c ON c.ctx = g.ctx)
	|| ' bytes, now ' || (SELECT sum(length(patterns)) FROM contexts)"
