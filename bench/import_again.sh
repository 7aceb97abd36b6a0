#!/bin/sh
# bench/import_again.sh - `callus import` run again over a history it is
# part way through, against the same history imported once whole (issue
# 14, docs/import.md: nothing counts twice).  Two homes get the same
# synthetic history (bench/import_gen.py, seeded: Claude Code and Codex
# transcripts); the first is imported once, the second
#   kill:  again and again, each import killed with SIGKILL after a random
#          0 to 1 s, up to KILLS times (default 12), then let finish (an
#          import cut short reads again what it replayed since its last
#          save);
#   twice: by two imports started together (a second terminal, `callus
#          init AGENT --import` beside a running import: the second waits
#          for the first and reads what is left).
# ROUNDS times (default 1), two new homes each.  Prints, for each round and
# workspace, the two stores' counts side by side (bench_import_compare),
# "same" when they agree; with twice, how many of the pair said they
# waited.
# Usage: bench/import_again.sh kill|twice [SESSIONS] [MEGABYTES] [path/to/callus]
#   (defaults 2000 and 150: some 25 s of import on the machine it was
#   written on)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
case $mode in
kill | twice) ;;
*) echo "usage: bench/import_again.sh kill|twice [SESSIONS] [MEGABYTES] [callus]" >&2; exit 2 ;;
esac
sessions=${2:-2000}
mb=${3:-150}
kills=${KILLS:-12}
rounds=${ROUNDS:-1}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count import_again SESSIONS "$sessions"
bench_count import_again MEGABYTES "$mb"
bench_count import_again KILLS "$kills"
bench_count import_again ROUNDS "$rounds"
callus=$(bench_exe import_again "${4:-$repo/build/callus}") || exit 2
bench_need import_again python3 sqlite3 git || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-import-again.XXXXXX")
trap 'rm -rf "$work"' EXIT
nws=3

# import HOME OUT: callus import of what HOME's agents wrote, exec'd: called
# in a ( ... ) of its own, whose pid is then the import's (a function
# started with & is a subshell that waits for the import: killing it left
# the import running beside the next one)
import() {
	exec env HOME="$1" XDG_DATA_HOME="$1/.local/share" "$callus" import --quiet >"$2" 2>&1
}
# failed WHAT OUT...: an import failed; what it said
failed() {
	echo "import_again: $1 failed:" >&2
	shift
	cat "$@" >&2
	exit 1
}

echo "## $callus, $sessions sessions ($mb MB), the second home imported again ($mode)"
r=1
while [ "$r" -le "$rounds" ]; do
	# two homes of one path length: the generator fills its megabytes
	# with sessions, and a longer path in every line makes fewer of them
	rm -rf "$work/whole" "$work/again"
	bench_import_history "$repo" "$work/whole" "$sessions" "$mb" "$nws" >/dev/null
	bench_import_history "$repo" "$work/again" "$sessions" "$mb" "$nws" >/dev/null
	(import "$work/whole" "$work/whole.out") || failed "the whole import" "$work/whole.out"
	if [ "$mode" = kill ]; then
		n=0
		while :; do
			(import "$work/again" "$work/a.out") &
			pid=$!
			sleep "0.$(printf %03d $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % 1000)))"
			if [ "$n" -lt "$kills" ] && kill -9 "$pid" 2>/dev/null; then
				wait "$pid" 2>/dev/null || true
				n=$((n + 1))
				continue
			fi
			wait "$pid" || failed "the last import" "$work/a.out"
			break
		done
		said="killed $n times, then let finish"
	else
		(import "$work/again" "$work/a.out") &
		a=$!
		(import "$work/again" "$work/b.out") &
		b=$!
		st=0
		wait "$a" || st=$?
		wait "$b" || st=$?
		[ "$st" = 0 ] || failed "an import" "$work/a.out" "$work/b.out"
		said="two at once, $(cat "$work/a.out" "$work/b.out" | grep -c 'waiting for it') of 2 waited"
	fi
	echo
	echo "### round $r: $said"
	echo
	echo "| workspace | imported whole | imported again | |"
	echo "|:---|:---|:---|:---|"
	bench_import_compare "$work/whole" "$work/again" "$nws"
	r=$((r + 1))
done
