#!/bin/sh
# bench/textpages.sh - how much of a binary's code each hook runs over, and
# what a hook that opens no store costs, for two binaries (the order of the
# code in .text: cli/text-order.ld, Makefile).  A first touch of a page of
# the binary maps the 64 KB around it (the kernel's fault-around), each
# mapping dear on a virtual machine: the 64 KB stretches a run executes in
# are the faults it takes in its code.
#
# First, for each binary, the cases scripts/text-order.sh runs (a command
# that is not a check, a check passing with nothing pending, the hook
# before an edit of an unknown file; a session's start, gcc failing with a
# new error, the same again, its fix, a pass after it, the hook before an
# edit of the fixed file, `callus suggest`, `callus status`) under callgrind,
# the programs they start too: a row a process, the 64 KB stretches and 4
# KB pages of code it executes (scripts/text_order.py --pages) and its
# instructions.  Then the three hooks that open no store in one git
# workspace, and the snapshot helper beside each binary (its start,
# `callus-git batch WS head`, and a snapshot of a changed file), N turns of
# the two binaries, copied together with their helpers just before
# (bench_fresh), each first every other turn (bench_turns): CPU ms and page
# faults from wait4 (bench/proctime), min / q1 / median / q3 / max / mean,
# and the same of the difference turn by turn.
# Usage: bench/textpages.sh OLD [NEW] [N]   (NEW: build/callus; N: 100)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { echo "usage: bench/textpages.sh OLD [NEW] [N]" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
old=$(bench_exe textpages "$1") || exit 2
new=$(bench_exe textpages "${2:-$repo/build/callus}") || exit 2
n=${3:-100}
bench_count textpages N "$n"
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-textpages.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"

# a row a process of a case: its label, 64 KB stretches, 4 KB pages and
# instructions; the two binaries' rows side by side when their cases
# started the same programs
for b in old new; do
	if [ "$b" = old ]; then bin=$old; else bin=$new; fi
	sh "$repo/scripts/text-order.sh" --profiles "$work/p-$b" "$bin" |
		sed 's/^case \([0-9]*\): \(.*\): \([0-9]*\) instructions$/case \1: \2|\3/' >"$work/$b.cases"
	python3 "$repo/scripts/text_order.py" --pages "$work/p-$b"/case-*.out >"$work/$b.pages"
	paste -d'|' "$work/$b.cases" "$work/$b.pages" >"$work/$b.rows"
done
if [ "$(cut -d'|' -f1 "$work/old.rows")" != "$(cut -d'|' -f1 "$work/new.rows")" ]; then
	echo "bench/textpages.sh: the two binaries' cases started other programs:" >&2
	diff "$work/old.rows" "$work/new.rows" >&2
	exit 1
fi
echo "| case: program | $old: 64 KB stretches / 4 KB pages of code run / instructions | $new: the same |"
echo "|:---|---:|---:|"
paste -d'|' "$work/old.rows" "$work/new.rows" |
	awk -F'|' '{ split($3, a, " "); split($6, b, " ");
		printf "| %s | %s / %s / %s | %s / %s / %s |\n", $1, a[2], a[3], $2, b[2], b[3], $5 }'

mkdir -p "$work/ws/src"
git -C "$work/ws" init -q
printf 'int twice(int n) { return 2 * n; }\n' >"$work/ws/src/x.c"
git -C "$work/ws" add src/x.c
git -C "$work/ws" -c user.email=b@example.invalid -c user.name=b commit -qm start
ws=$work/ws
# shellcheck source=scripts/hook-payloads.sh
. "$repo/scripts/hook-payloads.sh"
payload_post "$work/ls.json" "ls -la"
payload_post "$work/pass.json" "gcc -c src/x.c"
payload_edit "$work/edit.json" src/other.c
# the store made, and the check known to pass, before anything is timed;
# the file the helper snapshots changed since the commit
(cd "$work/ws" && "$new" hook claude-code <"$work/pass.json" >/dev/null)
printf 'int thrice(int n) { return 3 * n; }\n' >>"$work/ws/src/x.c"
# the two copied together just before their turns (bench_fresh: of two
# binaries copied at different times the one copied last starts faster)
old_src=$old new_src=$new
bench_pair_fresh

# one old|new: a run of the case $c, that binary's or the callus-git beside it
one() {
	bin=$(bench_bin_of "$1")
	case $c in
	git-head) set -- "$1" "${bin%/*}/callus-git" batch "$work/ws" head ;;
	git-snapshot)
		set -- "$1" "${bin%/*}/callus-git" batch --exclude .callus/ "$work/ws" \
			snapshot 1 src/x.c head
		;;
	*) set -- "$1" "$bin" hook claude-code ;;
	esac
	x=$1
	shift
	(cd "$work/ws" && "$work/proctime" 1 "$input" "$@") >"$work/line"
	cut -d' ' -f1 "$work/line" >>"$work/$x.cpu"
	cut -d' ' -f7 "$work/line" >>"$work/$x.faults"
}
echo
echo "| run ($n turns) | binary | CPU ms: min / q1 / median / q3 / max / mean | page faults: the same |"
echo "|:---|:---|---:|---:|"
for c in ls pass edit git-head git-snapshot; do
	input=$work/$c.json
	[ -f "$input" ] || input=/dev/null
	rm -f "$work"/old.* "$work"/new.*
	bench_turns "$n"
	for b in old new; do
		if [ "$b" = old ]; then src=$old_src; else src=$new_src; fi
		printf '| %s | %s | %s | %s |\n' "$c" "$src" \
			"$(bench_stats "$work/$b.cpu")" "$(bench_stats "$work/$b.faults")"
	done
	paste -d" " "$work/new.cpu" "$work/old.cpu" | awk '{ printf "%.3f\n", $1 - $2 }' >"$work/diff"
	printf '| %s | second less first, turn by turn | %s | |\n' "$c" "$(bench_stats "$work/diff")"
done
