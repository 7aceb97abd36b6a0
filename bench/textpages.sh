#!/bin/sh
# bench/textpages.sh - how much of a binary's code each hook runs over, and
# what a hook that opens no store costs, for two binaries (the order of the
# code in .text: cli/text-order.ld, Makefile).  A first touch of a page of
# the binary maps the 64 KB around it (the kernel's fault-around), each
# mapping dear on a virtual machine: the 64 KB stretches a run executes in
# are the faults it takes in its code.
#
# First, for each binary, the cases scripts/text-order.sh runs (a command
# that is not a check, a check that passes, the hook before an edit, a
# session's start, gcc failing, the same again, the fix, the hook before an
# edit of the fixed file, `callus suggest`, `callus status`), each under
# callgrind: the 64 KB stretches and 4 KB pages of code each executes
# (scripts/text_order.py --pages).  Then the three hooks that open no
# store (`ls`, a check that passes and never failed, the hook before an
# edit of a file callus knows nothing of) in one git workspace, and the
# snapshot helper beside each binary, its start (`callus-git batch WS
# head`) and a snapshot of a changed file, N turns of the two binaries,
# copied together with their helpers just before (bench_fresh), each first
# every other turn (bench_turns): CPU ms and page faults from wait4
# (bench/proctime), min / q1 / median / q3 / max / mean, and the same of
# the difference turn by turn.
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

sh "$repo/scripts/text-order.sh" --profiles "$work/p-old" "$old" >"$work/cases"
sh "$repo/scripts/text-order.sh" --profiles "$work/p-new" "$new" >/dev/null
python3 "$repo/scripts/text_order.py" --pages "$work"/p-old/case-*.out >"$work/old.pages"
python3 "$repo/scripts/text_order.py" --pages "$work"/p-new/case-*.out >"$work/new.pages"
echo "| case: program | $old: 64 KB stretches / 4 KB pages of code run | $new: the same |"
echo "|:---|---:|---:|"
sed 's/^case [0-9]*: //; s/: [0-9,]* instructions$//' "$work/cases" |
	paste -d'|' - "$work/old.pages" "$work/new.pages" |
	awk -F'|' '{ split($2, a, " "); split($3, b, " ");
		printf "| %s | %s / %s | %s / %s |\n", $1, a[2], a[3], b[2], b[3] }'

mkdir -p "$work/ws/src"
git -C "$work/ws" init -q
printf 'int twice(int n) { return 2 * n; }\n' >"$work/ws/src/x.c"
git -C "$work/ws" add src/x.c
git -C "$work/ws" -c user.email=b@example.invalid -c user.name=b commit -qm start
post() {
	jq -n --arg cwd "$work/ws" --arg cmd "$2" \
		'{session_id: "b", transcript_path: "/tmp/b.jsonl", cwd: $cwd,
		  hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: {command: $cmd},
		  tool_response: {stdout: "", stderr: "", interrupted: false, isImage: false}}' >"$1"
}
post "$work/ls.json" "ls -la"
post "$work/pass.json" "gcc -c src/x.c"
jq -n --arg cwd "$work/ws" --arg f "$work/ws/src/other.c" \
	'{session_id: "b", transcript_path: "/tmp/b.jsonl", cwd: $cwd,
	  hook_event_name: "PreToolUse", tool_name: "Edit",
	  tool_input: {file_path: $f, old_string: "a", new_string: "b"}}' >"$work/edit.json"
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
