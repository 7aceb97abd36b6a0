#!/bin/sh
# bench/import_kill.sh - `callus import` killed with SIGKILL at random
# moments until it is let finish, against the same history imported once
# whole (issue 14, docs/import.md: an import killed before its end reads
# again what it replayed since its last save, and nothing counts twice).
# Two homes get the same synthetic history (bench/import_gen.py, seeded:
# Claude Code and Codex transcripts); the first is imported once, the
# second is started again and again, each run killed after a random 0 to
# 1 s, up to KILLS times (default 12), then let finish.  Prints, for each
# workspace, the two stores' counts side by side: runs, lessons, their
# occurrences, signatures, resolutions, their applications, notes, and
# pending errors by state; "same" when they agree.
# Usage: bench/import_kill.sh [SESSIONS] [MEGABYTES] [path/to/callus]
#   (defaults 2000 and 150: some 25 s of import on the machine it was
#   written on)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
sessions=${1:-2000}
mb=${2:-150}
kills=${KILLS:-12}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count import_kill SESSIONS "$sessions"
bench_count import_kill MEGABYTES "$mb"
bench_count import_kill KILLS "$kills"
callus=$(bench_exe import_kill "${3:-$repo/build/callus}") || exit 2
for tool in python3 sqlite3 git; do
	command -v "$tool" >/dev/null || { echo "import_kill: $tool is needed" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-import-kill.XXXXXX")
trap 'rm -rf "$work"' EXIT
nws=3

# history HOME: the workspaces and their agents' transcripts
history() {
	bench_import_history "$repo" "$1" "$sessions" "$mb" "$nws" >/dev/null
}
# import HOME: callus import of what HOME's agents wrote, exec'd: called in
# a ( ... ) of its own, whose pid is then the import's (a function started
# with & is a subshell that waits for the import: killing it left the
# import running beside the next one)
import() {
	exec env HOME="$1" XDG_DATA_HOME="$1/.local/share" "$callus" import --quiet >"$1.out" 2>&1
}
# two homes of one path length: the generator fills its megabytes with
# sessions, and a longer path in every line would make fewer of them
history "$work/whole"
history "$work/kills"
(import "$work/whole") || { echo "import_kill: the whole import failed:" >&2; cat "$work/whole.out" >&2; exit 1; }
n=0
while :; do
	(import "$work/kills") &
	pid=$!
	sleep "0.$(printf %03d $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 1000)))"
	if [ "$n" -lt "$kills" ] && kill -9 "$pid" 2>/dev/null; then
		wait "$pid" 2>/dev/null || true
		n=$((n + 1))
		continue
	fi
	wait "$pid" || { echo "import_kill: the last import failed:" >&2; cat "$work/kills.out" >&2; exit 1; }
	break
done
echo "## $callus, $sessions sessions ($mb MB), the second import killed $n times"
echo
echo "| workspace | imported whole | killed $n times, then let finish | |"
echo "|:---|:---|:---|:---|"
bench_import_compare "$work/whole" "$work/kills" "$nws"
