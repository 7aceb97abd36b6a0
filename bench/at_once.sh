#!/bin/sh
# bench/at_once.sh - one workspace's command started twice at once (two
# terminals, a command beside the hooks'), ROUNDS times (default 60), each
# round a copy of one workspace with three notes at 5/5 (three gcc
# failures, their fixes and four successes each, through `callus run` and
# `callus feedback`), in a home of its own.
#   sync: the copy's first `callus sync`, to a team store of its own (the
#     embedded SQLite one, $XDG_DATA_HOME/callus/team.db); one sync's
#     result is three shared notes, three outcome rows under one name of
#     the workspace, and three proposals recorded in the workspace.
#   notes: a clone of the workspace's repository from before its notes
#     were committed, its store made, then the commit pulled: `callus
#     notes` takes the three note files in; one's result is three notes,
#     three resolutions, and no error said.
#   gc: a copy with twelve lessons more (failures never fixed) and
#     `[retention] lessons = 4`: `callus gc`; one's result is what one gc
#     leaves a copy of its own (lessons, their files, runs, signatures).
# Prints how many rounds had a command that failed or said an error, and
# how many ended other than one command's result.
# Usage: bench/at_once.sh sync|notes|gc [ROUNDS] [path/to/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
case $mode in
sync | notes | gc) ;;
*) echo "usage: bench/at_once.sh sync|notes|gc [ROUNDS] [callus]" >&2; exit 2 ;;
esac
rounds=${2:-60}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count at_once ROUNDS "$rounds"
callus=$(bench_exe at_once "${3:-$repo/build/callus}") || exit 2
bench_need at_once gcc git jq sqlite3 || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-at-once.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
export GIT_CONFIG_NOSYSTEM=1

# home DIR: a user of their own
home() {
	export HOME="$1" XDG_DATA_HOME="$1/.local/share" XDG_CONFIG_HOME="$1/.config"
	mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME"
}
# learn FLAG FILE SED: the file fails gcc -Werror=FLAG, is mended by SED,
# passes, and its fix is told to have worked four times more (5/5)
learn() {
	"$callus" run -- gcc -Werror="$1" -c "$2" -o /dev/null >/dev/null 2>&1 || :
	sed -i "$3" "$2"
	"$callus" run -- gcc -Werror="$1" -c "$2" -o /dev/null >/dev/null 2>&1
	rid=$("$callus" resolutions --json | jq -r "map(select(.files | index(\"$2\"))) | .[0].id")
	for _ in 1 2 3 4; do "$callus" feedback "$rid" success >/dev/null; done
}

home "$work/home"
mkdir -p "$work/base"
(
	cd "$work/base"
	printf '#include <stdio.h>\n\nvoid show(int n)\n{\n\tprintf("%%s\\n", n);\n}\n' >show.c
	printf 'int cnt(void)\n{\n\tint unused = 1;\n\treturn 0;\n}\n' >cnt.c
	printf 'int big(int n)\n{\n\tif (n)\n\t\treturn 1;\n}\n' >big.c
	git -c init.defaultBranch=main init -q
	git config user.email dev@example.com
	git config user.name dev
	git add -A
	git -c commit.gpgSign=false commit -q -m init
	learn format show.c 's/%s/%d/'
	learn unused-variable cnt.c '/unused = 1/d'
	learn return-type big.c 's/^}/\treturn 0;\n}/'
)
[ "$(cd "$work/base" && "$callus" notes --json | jq length)" = 3 ] ||
	{ echo "at_once: the workspace did not learn its three notes" >&2; exit 1; }
git -C "$work/base" add -A .callus/notes
git -C "$work/base" -c commit.gpgSign=false commit -q -m notes

# twice CMD...: CMD run twice at once in the current directory; 1 when
# either failed or said an error
twice() {
	"$callus" "$@" >a.out 2>&1 & a=$!
	"$callus" "$@" >b.out 2>&1 & b=$!
	tw=0
	wait "$a" || tw=1
	wait "$b" || tw=1
	! grep -q '^callus: ' a.out b.out || tw=1
	return "$tw"
}
# kept COPY: what gc leaves of a copy, a line
kept() {
	printf '%s %s\n' "$(bench_store_sql "$1/.callus/callus.db" "SELECT (SELECT count(*) FROM
		lessons) || ' ' || (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM
		signatures)")" "$(find "$1/.lessons" -name '*.md' | wc -l)"
}
if [ "$mode" = gc ]; then
	(
		cd "$work/base"
		i=1
		while [ "$i" -le 12 ]; do
			printf 'int e%d(void) { return x%d; }\n' "$i" "$i" >"e$i.c"
			"$callus" run -- gcc -c "e$i.c" -o /dev/null >/dev/null 2>&1 || :
			i=$((i + 1))
		done
		printf '[retention]\n\tlessons = 4\n\tgc_hours = 0\n' >>.callus/config
	)
	cp -a "$work/base" "$work/one"
	(cd "$work/one" && "$callus" gc >/dev/null)
	one=$(kept "$work/one")
fi
failed=0 other=0 r=1
while [ "$r" -le "$rounds" ]; do
	home "$work/home$r"
	if [ "$mode" = sync ]; then
		cp -a "$work/base" "$work/w$r"
		cd "$work/w$r"
		twice sync || failed=$((failed + 1))
		got=$(bench_store_sql "$XDG_DATA_HOME/callus/team.db" "SELECT (SELECT count(*) FROM
			shared_notes) || ' ' || (SELECT count(*) FROM shared_outcomes) || ' ' ||
			(SELECT count(DISTINCT instance) FROM shared_outcomes)")
		got="$got $(bench_store_sql .callus/callus.db "SELECT count(*) FROM note_promotions")"
		want="3 3 1 3" what="shared notes, outcome rows, names, proposals recorded"
	elif [ "$mode" = gc ]; then
		cp -a "$work/base" "$work/w$r"
		cd "$work/w$r"
		twice gc || failed=$((failed + 1))
		got=$(kept .)
		want=$one what="lessons, runs, signatures, lesson files; one gc: $one"
	else
		git clone -q "$work/base" "$work/w$r"
		cd "$work/w$r"
		git reset -q --hard HEAD~1
		"$callus" run -- true >/dev/null 2>&1
		git merge -q --ff-only origin/main
		twice notes || failed=$((failed + 1))
		got=$(bench_store_sql .callus/callus.db "SELECT (SELECT count(*) FROM notes) || ' ' ||
			(SELECT count(*) FROM resolutions)")
		want="3 3" what="notes, resolutions"
	fi
	[ "$got" = "$want" ] || { other=$((other + 1)); echo "round $r: $got ($what)"; }
	cd "$work"
	rm -rf "${work:?}/w$r" "${work:?}/home$r"
	r=$((r + 1))
done
echo "## $callus: $mode twice at once, $rounds rounds"
echo
echo "- rounds where one failed or said an error: $failed"
echo "- rounds that ended other than one command's result: $other"
[ "$mode" != gc ] || echo "- one gc leaves (lessons, runs, signatures, lesson files): $one, of $(kept "$work/base")"
