#!/bin/sh
# bench/hookpages.sh - which of the store's b-trees one failing hook reads,
# as the store grows (issue 14).  A page of callus.db a hook needs and has
# not read is a pread64 of 4 KB; strace gives their offsets, and SQLite's
# dbstat names the table or index each page belongs to.  The hook records
# N gcc errors never seen ([learn] snapshots = false: callus's own work), on
# a fresh copy of a store bench/scale.sh kept (CALLUS_SCALE_KEEP=DIR,
# ws-SIZE), after the binary's own migration and gc and two such hooks, as
# bench/hookinstr.sh counts its instructions; K hooks are traced (each on
# the store the one before left) and the medians printed: a row a b-tree
# (those reaching 2 pages at some size), then the store's pages in all, the
# WAL's frames read (the WAL's index rebuilt at the store's opening, and a
# checkpoint's copy), and what the hook read of other files (the vector
# files' sketches and postings), in KB.
# Usage: bench/hookpages.sh DIR SIZES [K] [path/to/callus]
#   e.g. bench/hookpages.sh /tmp/keepE "1000 100000" 5 build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: bench/hookpages.sh DIR SIZES [K] [callus]" >&2; exit 2; }
from=$1 sizes=$2 k=${3:-5}
callus=$(realpath "${4:-$repo/build/callus}")
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need hookpages strace jq sqlite3 || exit 2
bench_grown hookpages "$repo" "$from/ws-${sizes%% *}" "$callus"

# median of the numbers on stdin, one a line (0 for none)
median() {
	sort -n | awk '{ v[NR] = $1 } END { if (!NR) print 0; else
		print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

for size in $sizes; do
	[ -d "$from/ws-$size/.callus" ] || { echo "hookpages: no store at $from/ws-$size" >&2; exit 2; }
	ws=$work/ws-$size
	rm -rf "$ws" && bench_ready "$from/ws-$size" "$ws" "$callus"
	i=0
	while [ "$i" -lt $((k + 2)) ]; do
		bench_fail_payload "$work" $((8000000 + size + i * 10)) "$ws" "$work/p.json"
		if [ "$i" -lt 2 ]; then
			(cd "$ws" && "$callus" hook generic <"$work/p.json" >/dev/null)
		else
			(cd "$ws" && strace -o "$work/st" -e trace=openat,pread64 \
				"$callus" hook generic <"$work/p.json" >/dev/null)
			# the descriptors of the store and its WAL, as opened
			db=$(sed -n 's/^openat(.*\/\.callus\/callus\.db", O_RDWR.* = \([0-9]*\)$/\1/p' \
				"$work/st" | tail -1)
			wal=$(sed -n 's/^openat(.*\/\.callus\/callus\.db-wal", .* = \([0-9]*\)$/\1/p' \
				"$work/st" | tail -1)
			sed -n "s/^pread64($db, .*, 4096, \([0-9]*\)) = 4096$/\1/p" "$work/st" |
				awk '{ print int($1 / 4096) + 1 }' >"$work/pages"
			# dbstat after the hook: the pages it read kept their owners
			sqlite3 "$ws/.callus/callus.db" "CREATE TEMP TABLE p(n INTEGER);" \
				".import $work/pages p" \
				"SELECT s.name, count(*) FROM p JOIN dbstat s ON s.pageno = p.n
				 GROUP BY s.name;" | tr '|' ' ' >"$work/$size-$i.trees"
			{
				echo "(store, in all) $(wc -l <"$work/pages")"
				echo "(WAL frames) $(grep -c "^pread64($wal, " "$work/st" || true)"
				grep -v -e "^pread64($db, " -e "^pread64($wal, " "$work/st" |
					sed -n 's/^pread64(.* = \([0-9]*\)$/\1/p' |
					awk '{ s += $1 } END { printf "(other files, KB) %d\n", s / 1024 }'
			} >>"$work/$size-$i.trees"
		fi
		i=$((i + 1))
	done
done

# a row a name: the median of its count over the K hooks at each size
cat "$work"/*.trees | awk '{ $NF = ""; sub(/ $/, ""); print }' | sort -u >"$work/names"
printf '| b-tree |'
for size in $sizes; do printf ' %s |' "$size"; done
printf '\n|---|'
for size in $sizes; do printf -- '---:|'; done
printf '\n'
while IFS= read -r name; do
	row="| $name |" keep=0
	for size in $sizes; do
		m=$(for f in "$work/$size"-*.trees; do
			awk -v n="$name" '{ c = $NF; $NF = ""; sub(/ $/, "") } $0 == n { print c; f = 1 }
				END { if (!f) print 0 }' "$f"
		done | median)
		row="$row $m |"
		case $name in "("*) keep=1 ;; esac
		awk -v m="$m" 'BEGIN { exit !(m >= 2) }' && keep=1
	done
	[ "$keep" = 1 ] && echo "$row"
done <"$work/names" | sort -t'|' -k2,2
echo "($callus; pages of 4 KB read by a failing hook, medians of $k hooks)"
