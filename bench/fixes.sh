#!/bin/sh
# bench/fixes.sh - a suggestion for an error fixed thousands of times, two
# binaries in turn (issue 14).  One workspace is grown by OLD's `callus
# import` of one transcript (bench/import_recurring_gen.py: CALLS tool
# calls, a third of them fixes of the same gcc error, so CALLS / 3 fixes of
# one signature), then copied for each binary, each migrating its copy
# before anything is timed.  Two things are timed, N pairs each, the
# binaries in turn (each first in every other pair): `callus suggest` of
# that error's output, and a failing hook of it (`callus hook generic`),
# each hook's command a check of its own (`gcc -Wall -c m7.c -DPAIR_I`):
# an error fails its check three times before it is permanent, and only a
# pending one is given suggestions, its fixes ranked.  The baseline row is NEW's
# `callus suggest` in a third copy holding only the newest fix of the
# error: what a suggestion costs apart from the many fixes.  bench/proctime's
# CPU ms (user + system) of each: min/median/max, and the median of the
# pairs' differences (NEW - OLD).  The two binaries must suggest the same
# fixes (the script fails when they do not).
# The same binary given twice is the harness's control.
# Usage: bench/fixes.sh CALLS N OLD NEW
#   e.g. bench/fixes.sh 12000 40 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 4 ] || { echo "usage: bench/fixes.sh CALLS N OLD NEW" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count fixes CALLS "$1"
bench_count fixes N "$2"
calls=$1 n=$2
old_src=$(bench_exe fixes "$3") || exit 2
new_src=$(bench_exe fixes "$4") || exit 2
bench_need bench/fixes.sh git jq sqlite3 python3 cc || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-fixes.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"

# the grown home: a git workspace and the transcript where Claude Code
# keeps it; imported by OLD (a newer store is one OLD may not open)
h=$work/home
mkdir -p "$h/src/w"
git -C "$h/src/w" init -q
git -C "$h/src/w" -c user.email=bench@example.com -c user.name=bench commit -q --allow-empty -m init
d=$h/.claude/projects/$(printf %s "$h/src/w" | tr / -)
mkdir -p "$d"
python3 "$repo/bench/import_recurring_gen.py" "$h/src/w" "$d/s1.jsonl" "$calls"
(cd "$h/src/w" && HOME=$h XDG_DATA_HOME=$h/.local/share "$old_src" import --quiet >/dev/null)
printf '[retention]\ngc_hours = 0\n' >"$h/src/w/.callus/config"
rm -rf "$h/.claude"

# the error's output, as its check prints it, with a name it never had
cmd="gcc -Wall -c m7.c"
printf "m7.c:12:5: error: 'zeta_q_99999' undeclared (first use in this function)\n   12 |   return zeta_q_99999;\n      |          ^~~~\n" >"$work/out.txt"

# ready X BIN: X's copy of the workspace, migrated and gc'd by BIN; the
# fixes BIN suggests, by id, into X.ids
ready() {
	cp -a "$h/src/w" "$work/$1"
	(cd "$work/$1" && "$2" status >/dev/null && "$2" gc >/dev/null &&
		"$2" suggest --command "$cmd" --limit 3 --json <"$work/out.txt" |
		jq -c '[.[].suggestions[].resolution_id]' >"$work/$1.ids")
}
ready old "$old_src"
ready new "$new_src"
ready base "$new_src"
sqlite3 "$work/base/.callus/callus.db" "PRAGMA foreign_keys = ON;
	DELETE FROM resolutions WHERE id < (SELECT max(id) FROM resolutions);"
fixes=$(sqlite3 "$work/new/.callus/callus.db" "SELECT count(*) FROM resolutions")
cmp -s "$work/old.ids" "$work/new.ids" || {
	echo "bench/fixes.sh: the two binaries suggest different fixes: $(cat "$work/old.ids") and $(cat "$work/new.ids")" >&2
	exit 1
}
bench_pair_fresh

# one X KIND I: the CPU ms of one KIND (suggest, hook) of binary X in its
# copy, in pair I
one() {
	bin=$(bench_bin_of "$1")
	ws=$work/$1
	[ "$1" != base ] || bin=$new
	if [ "$2" = suggest ]; then
		(cd "$ws" && "$work/proctime" 1 "$work/out.txt" "$bin" suggest --command "$cmd") |
			cut -d' ' -f1 >>"$work/$1-$2.ms"
	else
		jq -n --rawfile o "$work/out.txt" --arg cwd "$ws" --arg cmd "$cmd -DPAIR_$3" \
			'{command: $cmd, exit_code: 1, output: $o, cwd: $cwd}' >"$work/payload.json"
		(cd "$ws" && CALLUS_GIT_HELPER=$(dirname "$bin")/callus-git \
			"$work/proctime" 1 "$work/payload.json" "$bin" hook generic) |
			cut -d' ' -f1 >>"$work/$1-$2.ms"
	fi
}
echo "# $calls tool calls imported: $fixes fixes of one error; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# suggested by both, best first: $(cat "$work/new.ids")"
echo "| command | pairs | OLD min/median/max | NEW min/median/max | NEW - OLD, median of the pairs |"
echo "|:---|---:|---:|---:|---:|"
for kind in suggest hook; do
	: >"$work/old-$kind.ms"
	: >"$work/new-$kind.ms"
	i=0
	while [ "$i" -lt "$n" ]; do
		if [ $((i % 2)) = 0 ]; then
			one old "$kind" "$i"
			one new "$kind" "$i"
		else
			one new "$kind" "$i"
			one old "$kind" "$i"
		fi
		[ "$kind" != suggest ] || one base suggest "$i"
		i=$((i + 1))
	done
	paste "$work/old-$kind.ms" "$work/new-$kind.ms" | awk '{ print $2 - $1 }' >"$work/d"
	printf '| %s | %s | %s | %s | %s |\n' "$kind" "$n" "$(bench_range "$work/old-$kind.ms")" \
		"$(bench_range "$work/new-$kind.ms")" "$(bench_range "$work/d" | cut -d/ -f2)"
done
printf '| suggest with the newest fix alone (baseline, NEW) | %s | | %s | |\n' "$n" \
	"$(bench_range "$work/base-suggest.ms")"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
