#!/bin/sh
# bench/schemaread.sh - what SQLite's reading of the store's schema costs
# every process that opens the store, against the rest of its work:
# callgrind's instructions of one `callus suggest` on a stored error's
# output (bench/scale_gen -p 0), in all and in sqlite3InitOne (the schema
# read at the first statement), on a copy of each workspace given
# (bench/scale.sh's CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE).  Then, on
# the first one, the read again on copies without some of the schema's
# triggers, to tell what each group costs to read (those copies count
# nothing: they are for measuring only).  Each count is of the third run
# in its copy: the first makes what a copied store lacks (the vector files'
# sketches and postings, the migration).
# Usage: bench/schemaread.sh path/to/callus WS [WS ...]
#   e.g. bench/schemaread.sh build/callus /tmp/keepE/ws-1000 /tmp/keepE/ws-100000
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: bench/schemaread.sh path/to/callus WS [WS ...]" >&2; exit 2; }
callus=$(realpath "$1")
shift
[ -f "$(dirname "$callus")/libcallus.a" ] ||
	{ echo "bench/schemaread.sh: no libcallus.a beside $callus" >&2; exit 2; }
for ws in "$@"; do
	[ -f "$ws/.callus/callus.db" ] || { echo "bench/schemaread.sh: no store in $ws" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-schemaread.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need bench/schemaread.sh valgrind callgrind_annotate sqlite3 || exit 2
bench_tools "$repo" "$work" "$(dirname "$callus")"
"$work/scale_gen" -p 0 >"$work/suggest.txt"

# count WS: "instructions schema-read" of the third suggest in WS
count() {
	(cd "$1" && for i in 1 2; do
		"$callus" suggest --command "gcc -c src/d0/f0.c" <"$work/suggest.txt" >/dev/null
	done
	valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" "$callus" suggest \
		--command "gcc -c src/d0/f0.c" <"$work/suggest.txt" >/dev/null 2>"$work/vg.txt")
	total=$(sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' "$work/vg.txt" | tr -d ,)
	init=$(callgrind_annotate --inclusive=yes "$work/cg.out" 2>/dev/null |
		awk '/sqlite3InitOne / { gsub(",", "", $1); print $1; exit }')
	echo "$total ${init:-0}"
}

# a fresh copy of WS at DIR, its config as bench/scale.sh writes it
copy() {
	rm -rf "$2" && bench_copy_store "$1" "$2"
	printf '[retention]\ngc_hours = 0\n' >"$2/.callus/config"
}

mil() { awk -v n="$1" 'BEGIN { printf "%.2f", n / 1e6 }'; }

first=$1
echo "| store | millions of instructions, \`callus suggest\` | of them the schema's read |"
echo "|---|---:|---:|"
for ws in "$@"; do
	copy "$ws" "$work/ws"
	read -r total init <<-END
	$(count "$work/ws")
	END
	echo "| $(basename "$ws") | $(mil "$total") | $(mil "$init") |"
done

echo
echo "| the schema of $(basename "$first"), on a copy | objects | bytes of SQL | millions of instructions to read it |"
echo "|---|---:|---:|---:|"
# without: a label and the triggers left out (a LIKE pattern on their
# names, or nothing)
for case in "as it is|" "without the totals triggers|totals_%" \
	"without the noted-count triggers|noted_count_%" "without any trigger|%"; do
	label=${case%%|*} drop=${case#*|}
	copy "$first" "$work/ws"
	db=$work/ws/.callus/callus.db
	# migrated first, as the count's runs would be
	(cd "$work/ws" && "$callus" status >/dev/null)
	if [ -n "$drop" ]; then
		sql=$(sqlite3 "$db" "SELECT group_concat('DROP TRIGGER ' || name, ';') FROM sqlite_master
			WHERE type = 'trigger' AND name LIKE '$drop'")
		[ -z "$sql" ] || sqlite3 "$db" "$sql"
	fi
	read -r objects bytes <<-END
	$(sqlite3 -separator ' ' "$db" "SELECT count(*), sum(length(sql)) FROM sqlite_master")
	END
	read -r total init <<-END
	$(count "$work/ws")
	END
	echo "| $label | $objects | $bytes | $(mil "$init") |"
done
echo "($callus; callgrind, the third run in each copy)"
