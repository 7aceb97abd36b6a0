#!/bin/sh
# bench/migrate.sh - what the first open after an upgrade costs: a copy of
# the workspace WS brought to OLD's schema by OLD and vacuumed (a store as
# OLD leaves it, compact), then N copies of that, each opened once by NEW
# (`callus status`, which migrates): CPU and wall ms of that first run
# (bench/proctime), the schema versions, and the store's bytes before, after
# the migration, and after a VACUUM (what the migration leaves free until
# later recordings reuse it).
# Usage: bench/migrate.sh path/to/old/callus path/to/new/callus WS [N]
#   e.g. bench/migrate.sh /tmp/old/callus build/callus /tmp/keepE/ws-100000 5
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/migrate.sh OLD NEW WS [N]" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
old=$(bench_exe migrate "$1") || exit 2
new=$(bench_exe migrate "$2") || exit 2
from=$3 n=${4:-5}
[ -f "$from/.callus/callus.db" ] || { echo "bench/migrate.sh: no store in $from" >&2; exit 2; }
command -v sqlite3 >/dev/null || { echo "bench/migrate.sh: sqlite3 is needed" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-migrate.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"

base=$work/base
bench_copy_store "$from" "$base"
printf '[retention]\ngc_hours = 0\n' >"$base/.callus/config"
(cd "$base" && "$old" status >/dev/null)
sqlite3 "$base/.callus/callus.db" "PRAGMA wal_checkpoint(TRUNCATE); VACUUM" >/dev/null
db=.callus/callus.db
version() { sqlite3 "$1/$db" "PRAGMA user_version"; }
size() { stat -c %s "$1/$db"; }
echo "a copy of $from at schema $(version "$base") (the old binary's), vacuumed: $(size "$base") bytes," \
	"$(sqlite3 "$base/$db" "SELECT count(*) FROM signatures") signatures"

: >"$work/cpu" && : >"$work/wall"
i=0
while [ "$i" -lt "$n" ]; do
	ws=$work/ws-$i
	cp -a "$base" "$ws"
	(cd "$ws" && "$work/proctime" 1 /dev/null "$new" status) >"$work/one"
	cut -d' ' -f1 "$work/one" >>"$work/cpu"
	cut -d' ' -f4 "$work/one" >>"$work/wall"
	i=$((i + 1))
done
sqlite3 "$ws/$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
after=$(size "$ws")
sqlite3 "$ws/$db" "VACUUM"
echo "| schema | first \`callus status\`, CPU ms (min/median/max of $n copies) | wall ms | bytes after | after VACUUM |"
echo "|---|---:|---:|---:|---:|"
echo "| $(version "$base") → $(version "$ws") | $(bench_range "$work/cpu") | $(bench_range "$work/wall") |" \
	"$after | $(size "$ws") |"
echo "($old, then $new)"
