#!/bin/sh
# bench/import.sh - `callus import` of a synthetic history of agent sessions
# (bench/import_gen.py: Claude Code and Codex transcripts in their real
# formats, from the captured transcripts of tests/import/fixtures/), against
# reading the same files with cat (the baseline: what the bytes cost).
# Rows: cat; callus import --dry-run (read, parse, detect; nothing written);
# callus import (every check replayed into its workspace's store); the same
# import again (incremental: nothing new, the watermarks).  Each row: wall
# seconds, CPU seconds (user + system: what the machine's load does not
# change much) and peak resident memory (GNU time).
# Usage: bench/import.sh [SESSIONS] [MEGABYTES] [path/to/callus]
#   (defaults 1000 and 100: a tenth of the goal; bench/import.sh 10000 1024
#   is the goal's size, 10,000 sessions and 1 GB)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
sessions=${1:-1000}
mb=${2:-100}
callus=${3:-$repo/build/callus}
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
home=$work/home
nws=20

# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_import_history "$repo" "$home" "$sessions" "$mb" "$nws"
files=$(find "$home/.claude" "$home/.codex" -name '*.jsonl' | wc -l)
bytes=$(find "$home/.claude" "$home/.codex" -name '*.jsonl' -exec cat {} + | wc -c)
echo "# $files transcript files, $((bytes / 1048576)) MiB, $nws workspaces"

# row NAME CMD...: wall seconds and peak RSS of CMD, run with HOME=$home
row() {
	name=$1
	shift
	HOME=$home XDG_DATA_HOME=$home/.local/share /usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" \
		>"$work/out" 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
	read -r secs user sys kb <"$work/time"
	printf '| %s | %s | %s | %s |\n' "$name" "$secs" "$(awk "BEGIN { print $user + $sys }")" "$((kb / 1024))"
}

echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | wall s | CPU s | peak RSS MiB |"
echo "|:---|---:|---:|---:|"
row "cat (baseline)" sh -c "find '$home/.claude' '$home/.codex' -name '*.jsonl' -exec cat {} + >/dev/null"
row "callus import --dry-run" "$callus" import --dry-run --quiet
cp "$work/out" "$work/dry"
row "callus import" "$callus" import --quiet
cp "$work/out" "$work/full"
row "callus import again (nothing new)" "$callus" import --quiet
echo
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
sed 's/^/# /' "$work/full"
grep -q "imported 0 verification commands" "$work/out"
