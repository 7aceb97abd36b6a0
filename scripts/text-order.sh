#!/bin/sh
# scripts/text-order.sh - write cli/text-order.ld again: the objects of the
# callus binary its hooks run, most frequent hook first, which the link
# places at the start of its .text (scripts/link-script.sh; why: Makefile,
# docs/scale.md "Where a start's time goes").
#
# Runs build/callus (a release build: `make`, which also writes
# build/callus.map) under callgrind, one run a case, in a scratch git
# workspace made as an agent's are (its store made, a failure and its fix
# recorded), as Claude Code calls it.  First the hooks that open no store,
# the most frequent: a command that is not a check, a check that passes
# with nothing pending, the hook before an edit of a file callus knows
# nothing of; their objects come first, then every variant of the C
# library's string functions the runs call (scripts/text_order.py), then
# what a start runs outside valgrind's sight (below), then every agent's
# payload reader (src/agents/: another agent's hooks are as frequent as
# Claude Code's).  Then the hooks that open the store: a
# session's start, gcc failing with a new error, the same again (recurring),
# the file mended and gcc passing (the fix kept), passing again, the hook
# before an edit of the fixed file; then `callus suggest` and `callus
# status`.  Run it when the hot path moves; a stale list costs time, never
# correctness (an object no case runs is placed after the listed ones, as
# linked).
# The snapshot helper the runs start (callus-git, beside callus) is
# profiled too, and its objects listed the same way in helper/text-order.ld.
# Usage: scripts/text-order.sh [BUILD]   (BUILD: build)
#        scripts/text-order.sh --profiles DIR CALLUS: only the runs, of the
#        binary CALLUS and the callus-git beside it, their profiles left in
#        DIR as case-NN-K.out (bench/textpages.sh)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in valgrind python3 gcc git jq; do
	command -v "$tool" >/dev/null || { echo "text-order: $tool is needed" >&2; exit 2; }
done
keep=
if [ "${1:-}" = --profiles ]; then
	[ $# -eq 3 ] || { echo "usage: scripts/text-order.sh --profiles DIR CALLUS" >&2; exit 2; }
	keep=$2 callus=$(realpath "$3")
	mkdir -p "$keep"
else
	build=${1:-build}
	case $build in /*) ;; *) build=$repo/$build ;; esac
	callus=$build/callus
	for b in callus callus-git; do
		[ -x "$build/$b" ] && [ -s "$build/$b.map" ] ||
			{ echo "text-order: no $build/$b and $build/$b.map (run make)" >&2; exit 2; }
	done
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/callus-text-order.XXXXXX")
trap 'rm -rf "$work"' EXIT
out_dir=${keep:-$work}
ws=$work/ws
mkdir -p "$ws/src"
git -C "$ws" init -q
git -C "$ws" config user.email order@example.invalid
git -C "$ws" config user.name order
cat >"$ws/src/x.c" <<'C'
int twice(int n)
{
	return 2 * n;
}
C
git -C "$ws" add src/x.c
git -C "$ws" commit -qm start

# Claude Code's payloads (payload_post, payload_failed, payload_edit,
# payload_start, for $ws)
# shellcheck source=scripts/hook-payloads.sh
. "$repo/scripts/hook-payloads.sh"

n=0
# profile INPUT ARGS...: one run of callus under callgrind, in the
# workspace, the programs it starts too (callus-git, the snapshot helper):
# a profile a process, case-NN-K.out, K from 1 in the order of the
# processes' ids (the hook first)
profile() {
	n=$((n + 1))
	nn=$(printf %02d "$n")
	input=$1
	shift
	(cd "$ws" && valgrind --tool=callgrind --trace-children=yes --dump-instr=yes \
		--callgrind-out-file="$work/run.%p.cg" \
		"$callus" "$@" <"$input" >/dev/null 2>"$work/valgrind.log") ||
		{ echo "text-order: case $n (callus $*) failed:" >&2; cat "$work/valgrind.log" >&2; exit 1; }
	k=0
	for f in $(find "$work" -maxdepth 1 -name 'run.*.cg' -printf '%f\n' | sort -t. -k2,2n); do
		k=$((k + 1))
		mv "$work/$f" "$out_dir/case-$nn-$k.out"
	done
	for f in "$out_dir"/case-"$nn"-*.out; do
		printf 'case %s: %s (%s): %s instructions\n' "$n" \
			"$(sed -n 's/^cmd: *//p' "$f" | awk '{ sub(".*/", "", $1); print $1, $2, $3 }')" \
			"${input##*/}" "$(sed -n 's/^summary: //p' "$f")"
	done
}
# bad STATEMENT: src/x.c's function returning by STATEMENT, which gcc
# refuses, and gcc's output of it in $out
bad() {
	printf 'int twice(int n)\n{\n\t%s\n}\n' "$1" >"$ws/src/x.c"
	out=$(cd "$ws" && gcc -c src/x.c -o /dev/null 2>&1) &&
		{ echo "text-order: gcc did not fail" >&2; exit 1; }
	return 0
}
mend() {
	printf 'int twice(int n)\n{\n\treturn 2 * n;\n}\n' >"$ws/src/x.c"
}
payload_post "$work/ls.json" "ls -la" "src"
payload_post "$work/pass.json" "gcc -c src/x.c"
payload_post "$work/never.json" "gcc -c src/y.c"
payload_edit "$work/edit.json" src/other.c
payload_edit "$work/edit-known.json" src/x.c
payload_start "$work/start.json"

# a workspace as an agent's are, not the first hook's: its store made, a
# failure recorded and its fix kept, unprofiled
bad 'return 2 * m;' # m never declared
payload_failed "$work/fail.json" "gcc -c src/x.c" "$out"
(cd "$ws" && "$callus" hook claude-code <"$work/fail.json" >/dev/null)
mend
(cd "$ws" && "$callus" hook claude-code <"$work/pass.json" >/dev/null)

# the hooks that open no store, the first block of the list
profile "$work/ls.json" hook claude-code
profile "$work/never.json" hook claude-code
profile "$work/edit.json" hook claude-code
first=$n
# the hooks that open it: a session's start, a new error, the same again,
# its fix, a pass after it, the edit of the fixed file
profile "$work/start.json" hook claude-code
bad 'return 2 * n' # an error of another kind: a new one
payload_failed "$work/fail.json" "gcc -c src/x.c" "$out"
profile "$work/fail.json" hook claude-code
profile "$work/fail.json" hook claude-code
mend
profile "$work/pass.json" hook claude-code
profile "$work/pass.json" hook claude-code
profile "$work/edit-known.json" hook claude-code
printf '%s\n' "$out" >"$work/suggest.txt"
profile "$work/suggest.txt" suggest --command "gcc -c src/x.c"
profile /dev/null status

[ -z "$keep" ] || exit 0

# After the first cases' objects: what the binary's start and end run
# natively but not under valgrind, which hands it no vDSO (glibc's static
# start makes the vDSO's link map and looks its symbols up, under the
# loader's lock; crtendS.o's _fini runs after valgrind stops counting);
# then every agent's payload reader.
for o in libc.a:dl-object.o libc.a:dl-lookup.o libc.a:dl-setup_hash.o \
	libc.a:pthread_mutex_lock.o libc.a:pthread_mutex_unlock.o crtendS.o; do
	printf '    */%s(.text .text.*)\n' "$o"
done >"$work/native.txt"
cp "$work/native.txt" "$work/agents.txt"
for f in "$repo"/src/agents/*.c; do
	b=${f##*/}
	[ "$b" != install.c ] || continue # callus init's, not a hook's
	printf '    */libcallus.a:%s(.text .text.*)\n' "${b%.c}.o"
done >>"$work/agents.txt"
# each process's profile by its program: callus's, the helper's
for f in "$work"/case-*.out; do
	case $(sed -n 's/^cmd: *//p' "$f" | awk '{ print $1 }') in
	*/callus-git) echo "$f" >>"$work/git.list" ;;
	*/callus) echo "$f" >>"$work/callus.list" ;;
	esac
done
[ -s "$work/git.list" ] || { echo "text-order: no run started callus-git" >&2; exit 1; }
{
	cat <<'HEAD'
/* cli/text-order.ld - the objects of callus that its hooks run, placed
 * first in the binary's .text, in this order (Makefile, scripts/link-script.sh):
 * the code a hook runs then lies in a few pages, each first touch of which
 * maps sixteen more.  Written by scripts/text-order.sh; do not edit by hand. */
HEAD
	# shellcheck disable=SC2046 # the profiles' names have no spaces
	python3 "$repo/scripts/text_order.py" --first "$first" --then "$work/agents.txt" \
		"$callus" "$build/callus.map" $(cat "$work/callus.list")
} >"$work/order.ld"
{
	cat <<'HEAD'
/* helper/text-order.ld - the objects of callus-git that a hook's snapshots
 * and diffs run, placed first in its .text, in this order (Makefile,
 * scripts/link-script.sh).  Written by scripts/text-order.sh; do not edit
 * by hand. */
HEAD
	# shellcheck disable=SC2046
	python3 "$repo/scripts/text_order.py" --then "$work/native.txt" \
		"$build/callus-git" "$build/callus-git.map" $(cat "$work/git.list")
} >"$work/git-order.ld"
mv "$work/order.ld" "$repo/cli/text-order.ld"
mv "$work/git-order.ld" "$repo/helper/text-order.ld"
echo "text-order: cli/text-order.ld: $(grep -c '(.text' "$repo/cli/text-order.ld") objects," \
	"helper/text-order.ld: $(grep -c '(.text' "$repo/helper/text-order.ld"), from $n runs"
