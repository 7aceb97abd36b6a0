#!/bin/sh
# bench/note_race.sh - a person's edit of a hindsight note's file while
# callus writes it, two binaries in turn: the note of gcc's implicit
# declaration made by a fix of f0.c, then two checks (f1.c, f2.c) whose
# fixes join it passing at once, and the person's edit (the file copied,
# a section appended, moved back, as an editor saves) a random 0 to 49 ms
# after they start.  Then `callus notes` takes in what changed.  A round
# LOST the edit when neither the file nor the store has it; the note's
# applications are compared between the store and the file's front matter
# too (DIFFER).  Not a timing: a count of outcomes of a race, each round in
# a repository of its own, the two binaries alternating.
# Usage: bench/note_race.sh N OLD NEW
#   e.g. bench/note_race.sh 60 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 3 ] || { echo "usage: bench/note_race.sh N OLD NEW" >&2; exit 2; }
n=$1 old=$(realpath "$2") new=$(realpath "$3")
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need bench/note_race.sh gcc git jq || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-race.XXXXXX")
trap 'rm -rf "$work"' EXIT

# round BIN DIR: prints "lost differ"
round() {
	bin=$1 d=$2
	CALLUS_GIT_HELPER=$(dirname "$bin")/callus-git
	export CALLUS_GIT_HELPER
	mkdir "$d" && cd "$d"
	git init -q && git config user.email bench@localhost && git config user.name bench
	echo 'int m0(void){ return foo(); }' >f0.c
	echo 'int m1(void){ return bar(); }' >f1.c
	echo 'int m2(void){ return baz(); }' >f2.c
	git add . && git commit -qm start
	"$bin" run -- gcc -Werror -c f0.c >/dev/null 2>&1 || :
	sed -i '1i int foo(void);' f0.c
	"$bin" run -- gcc -Werror -c f0.c >/dev/null 2>&1
	git add . && git commit -qm fix
	for f in f1 f2; do "$bin" run -- gcc -Werror -c $f.c >/dev/null 2>&1 || :; done
	sed -i '1i int bar(void);' f1.c
	sed -i '1i int baz(void);' f2.c
	note=.callus/notes/$(ls .callus/notes)
	"$bin" run -- gcc -Werror -c f1.c >/dev/null 2>&1 &
	p1=$!
	"$bin" run -- gcc -Werror -c f2.c >/dev/null 2>&1 &
	p2=$!
	sleep "$(awk -v s="$(od -An -N2 -tu2 /dev/urandom)" 'BEGIN { printf "0.%03d", s % 50 }')"
	{ cat "$note"; printf '\n## Person\n\nkeep me\n'; } >"$work/edit" && mv "$work/edit" "$note"
	wait $p1 $p2
	"$bin" notes >/dev/null
	in_file=$(grep -c 'keep me' "$note" || :)
	in_store=$("$bin" notes --json | jq '[.[] | select(.edited)] | length')
	apps=$("$bin" notes --json | jq '.[0].application_count')
	file_apps=$(sed -n 's/^applications: //p' "$note")
	lost=0 differ=0
	[ "$in_file" = 0 ] && [ "$in_store" = 0 ] && lost=1
	[ "$apps" = "$file_apps" ] || differ=1
	echo "$lost $differ"
}

lost_old=0 lost_new=0 differ_old=0 differ_new=0
i=0
while [ "$i" -lt "$n" ]; do
	for x in old new; do
		eval "bin=\$$x"
		res=$(round "$bin" "$work/$x-$i")
		eval "lost_$x=\$((lost_$x + ${res% *})); differ_$x=\$((differ_$x + ${res#* }))"
	done
	rm -rf "$work/old-$i" "$work/new-$i"
	i=$((i + 1))
done
echo "| binary | rounds | edit lost | applications differ (store, file) |"
echo "|:---|---:|---:|---:|"
echo "| $old | $n | $lost_old | $differ_old |"
echo "| $new | $n | $lost_new | $differ_new |"
