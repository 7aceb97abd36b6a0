#!/bin/sh
# bench/snapshot.sh - what a failure snapshot and the diff of a fix cost in a
# large git workspace, against git's own `git status --porcelain` (which
# must look at the same files) and `git stash create` (which writes a
# similar tree) in the same run.
#
# The repository: 500 directories of 100 small files (50,000 files),
# committed; then 5 tracked files changed and 2 untracked files added.
# Rows: the helper asked for HEAD alone (process start and libgit2's
# initialisation, the floor of every helper run), a snapshot, the diff from
# that snapshot to the working tree after a further change, and the three
# in one run, as a recording that fixes an error and fails anew asks them
# (src/learn.c).  Times in ms,
# min / median / max, from hyperfine (or a loop over `date +%s%N` when
# hyperfine is missing); then the helper's start (head) in CPU time.
# Usage: bench/snapshot.sh [RUNS] [path/to/callus-git]   (default 30, build/callus-git)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-30}
helper=${2:-$repo/build/callus-git}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
helper=$(bench_exe snapshot "$helper") || exit 2
[ -x "$helper" ] || { echo "bench: no $helper (run make)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
ws=$work/ws
mkdir "$ws"
cd "$ws"
git init -q .
d=1
while [ $d -le 500 ]; do
	mkdir "d$d"
	f=1
	while [ $f -le 100 ]; do
		printf 'file %s/%s\nsecond line\n' "$d" "$f" >"d$d/f$f.txt"
		f=$((f + 1))
	done
	d=$((d + 1))
done
git add .
git -c user.name=bench -c user.email=bench@example.com commit -q -m files
for i in 1 2 3 4 5; do echo changed >>"d$((i * 97))/f$i.txt"; done
echo new >new-top.txt
echo new >d250/new-nested.txt
# As a user's repository would be: an index whose stat data is fresh.
git status --porcelain >/dev/null
tree=$("$helper" batch "$ws" snapshot 0 | sed -n 2p | cut -d' ' -f2)
echo "after the snapshot" >>d1/f1.txt
echo "files: $(git ls-files | wc -l) tracked, $(git status --porcelain | wc -l) changed"
echo

# row NAME CMD...: min / median / max wall ms over $runs runs.
if command -v hyperfine >/dev/null && command -v jq >/dev/null; then
	row() {
		name=$1
		shift
		hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/h.json" "$*" \
			>/dev/null 2>"$work/h.err" || { cat "$work/h.err" >&2; exit 1; }
		jq -r '.results[0] | "\(.min) \(.median) \(.max)"' "$work/h.json" |
			awk -v n="$name" '{ printf "| %s | %.1f | %.1f | %.1f |\n", n, $1 * 1000, $2 * 1000, $3 * 1000 }'
	}
else
	row() {
		name=$1
		shift
		i=0
		while [ $i -lt "$runs" ]; do
			t0=$(date +%s%N)
			"$@" >/dev/null
			t1=$(date +%s%N)
			echo $(((t1 - t0) / 1000))
			i=$((i + 1))
		done | sort -n | awk -v n="$name" '{ v[NR] = $1 } END {
			printf "| %s | %.1f | %.1f | %.1f |\n", n, v[1] / 1000, v[int((NR + 1) / 2)] / 1000, v[NR] / 1000 }'
	}
fi

echo "| command | min ms | median ms | max ms |"
echo "|:---|---:|---:|---:|"
row "git status --porcelain" git status --porcelain
row "git stash create" git stash create
row "callus-git: head" "$helper" batch "$ws" head
row "callus-git: snapshot" "$helper" batch "$ws" snapshot 0
row "callus-git: diff (6 files changed)" "$helper" batch "$ws" diff git "$tree" 65536
row "callus-git: snapshot, diff, head in one run" "$helper" batch "$ws" snapshot 0 diff git "$tree" 65536 head

# The helper's start in CPU time (user + system, from wait4), what a
# recording's process time counts of it.
cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"
echo
echo "callus-git: head, CPU ms (bench/proctime, $runs runs), min / median / max:" \
	"$("$work/proctime" "$runs" /dev/null "$helper" batch "$ws" head | awk '{ print $1 " / " $2 " / " $3 }')"
