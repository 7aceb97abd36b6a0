#!/bin/sh
# bench/sync_twice.sh - a workspace's first `callus sync` started twice at
# once (two terminals, a sync beside an agent's), ROUNDS times (default
# 60), each round a copy of one workspace with three notes at 5/5 (three
# gcc failures, their fixes and four successes each, through `callus run`
# and `callus feedback`) and a team store of its own (the embedded SQLite
# one, $XDG_DATA_HOME/callus/team.db).  Prints how many rounds had a sync
# that failed, and how many ended with other than one sync's result: three
# shared notes, three outcome rows under one name of the workspace, and
# three proposals recorded in the workspace.
# Usage: bench/sync_twice.sh [ROUNDS] [path/to/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-60}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count sync_twice ROUNDS "$rounds"
callus=$(bench_exe sync_twice "${2:-$repo/build/callus}") || exit 2
for tool in gcc git jq sqlite3; do
	command -v "$tool" >/dev/null || { echo "sync_twice: $tool is needed" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-sync-twice.XXXXXX")
trap 'rm -rf "$work"' EXIT
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
	{ echo "sync_twice: the workspace did not learn its three notes" >&2; exit 1; }
failed=0 other=0 r=1
while [ "$r" -le "$rounds" ]; do
	home "$work/home$r"
	cp -a "$work/base" "$work/w$r"
	cd "$work/w$r"
	st=0
	"$callus" sync >a.out 2>&1 & a=$!
	"$callus" sync >b.out 2>&1 & b=$!
	wait "$a" || st=1
	wait "$b" || st=1
	[ "$st" = 0 ] || failed=$((failed + 1))
	got=$(bench_store_sql "$XDG_DATA_HOME/callus/team.db" "SELECT (SELECT count(*) FROM
		shared_notes) || ' ' || (SELECT count(*) FROM shared_outcomes) || ' ' ||
		(SELECT count(DISTINCT instance) FROM shared_outcomes)")
	got="$got $(bench_store_sql .callus/callus.db "SELECT count(*) FROM note_promotions")"
	[ "$got" = "3 3 1 3" ] || { other=$((other + 1)); echo "round $r: $got (shared notes, outcome rows, names, proposals recorded)"; }
	cd "$work"
	rm -rf "${work:?}/w$r" "${work:?}/home$r"
	r=$((r + 1))
done
echo "## $callus: a first sync twice at once, $rounds rounds"
echo
echo "- rounds where a sync failed: $failed"
echo "- rounds that ended other than one sync's result: $other"
