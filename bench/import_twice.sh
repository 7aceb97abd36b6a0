#!/bin/sh
# bench/import_twice.sh - two `callus import`s of one user started at once
# (a second terminal, `callus init AGENT --import` beside a running
# import), against the same history imported by one (docs/import.md: one
# import at a time; the second waits for the first and reads what is
# left).  Two homes get the same synthetic history (bench/import_gen.py,
# seeded: Claude Code and Codex transcripts); the first is imported once,
# the second by two imports started together, ROUNDS times (default 3, a
# new pair of homes each).  Prints, for each round and workspace, the two
# stores' counts side by side (bench_import_compare), "same" when they
# agree, and what the second import of each pair said it waited for.
# Usage: bench/import_twice.sh [SESSIONS] [MEGABYTES] [path/to/callus]
#   (defaults 2000 and 150: some 25 s of import on the machine it was
#   written on)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
sessions=${1:-2000}
mb=${2:-150}
rounds=${ROUNDS:-3}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count import_twice SESSIONS "$sessions"
bench_count import_twice MEGABYTES "$mb"
bench_count import_twice ROUNDS "$rounds"
callus=$(bench_exe import_twice "${3:-$repo/build/callus}") || exit 2
for tool in python3 sqlite3 git; do
	command -v "$tool" >/dev/null || { echo "import_twice: $tool is needed" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-import-twice.XXXXXX")
trap 'rm -rf "$work"' EXIT
nws=3

# import HOME OUT: callus import of what HOME's agents wrote, exec'd: called
# in a ( ... ) of its own, whose pid is then the import's
import() {
	exec env HOME="$1" XDG_DATA_HOME="$1/.local/share" "$callus" import --quiet >"$2" 2>&1
}
echo "## $callus, $sessions sessions ($mb MB), the second home imported by two imports at once"
r=1
while [ "$r" -le "$rounds" ]; do
	# two homes of one path length: the generator fills its megabytes
	# with sessions, and a longer path in every line makes fewer of them
	rm -rf "$work/whole" "$work/twice"
	bench_import_history "$repo" "$work/whole" "$sessions" "$mb" "$nws" >/dev/null
	bench_import_history "$repo" "$work/twice" "$sessions" "$mb" "$nws" >/dev/null
	(import "$work/whole" "$work/whole.out") ||
		{ echo "import_twice: the one import failed:" >&2; cat "$work/whole.out" >&2; exit 1; }
	(import "$work/twice" "$work/a.out") &
	a=$!
	(import "$work/twice" "$work/b.out") &
	b=$!
	st=0
	wait "$a" || st=$?
	wait "$b" || st=$?
	[ "$st" = 0 ] || { echo "import_twice: an import failed:" >&2; cat "$work/a.out" "$work/b.out" >&2; exit 1; }
	echo
	echo "### round $r; waited: $(cat "$work/a.out" "$work/b.out" | grep -c 'waiting for it') of 2"
	echo
	echo "| workspace | one import | two at once | |"
	echo "|:---|:---|:---|:---|"
	bench_import_compare "$work/whole" "$work/twice" "$nws"
	r=$((r + 1))
done
