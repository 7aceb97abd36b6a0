#!/bin/sh
# bench/walframes.sh - what one new error's hook writes to the store's WAL.
# A copy of each grown store (bench/scale.sh; CALLUS_SCALE_KEEP=DIR keeps
# DIR/ws-SIZE), made ready as a user's is (`callus status`, `callus gc`,
# one failing hook), its WAL emptied, then one more new gcc error through
# `callus hook generic` (no snapshot); the WAL's frames read back, and
# their pages named by SQLite's dbstat: frames, commits, distinct pages,
# the b-trees they belong to and the pages of none (the free list's),
# each page a 4 KB write now and another when the WAL is copied into the
# store.
# Usage: bench/walframes.sh DIR "SIZES" [path/to/callus]
#   e.g. bench/walframes.sh /tmp/keepE "1000 10000 100000"
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo 'usage: bench/walframes.sh DIR "SIZES" [path/to/callus]' >&2; exit 2; }
dir=$1 sizes=$2
callus=$(realpath "${3:-$repo/build/callus}")
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-walframes.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$(dirname "$callus")"

echo "| recordings | frames | commits | distinct pages | b-trees | pages of no b-tree |"
echo "|---:|---:|---:|---:|---:|---:|"
for size in $sizes; do
	[ -d "$dir/ws-$size/.callus" ] || { echo "bench: $dir/ws-$size holds no store" >&2; exit 2; }
	ws=$work/ws
	rm -rf "$ws"
	bench_ready "$dir/ws-$size" "$ws" "$callus"
	bench_fail_payload "$work" 970001 "$ws" "$work/p.json" own
	(cd "$ws" && "$callus" hook generic <"$work/p.json" >/dev/null)
	# emptied, and left so (a closing sqlite3 would delete the WAL)
	bench_store_sql "$ws/.callus/callus.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	bench_fail_payload "$work" 970002 "$ws" "$work/p.json" own
	(cd "$ws" && "$callus" hook generic <"$work/p.json" >/dev/null)
	python3 - "$ws/.callus/callus.db" "$size" <<'EOF'
import sqlite3, struct, sys

db, size = sys.argv[1], int(sys.argv[2])
wal = open(db + "-wal", "rb").read()
page = struct.unpack(">I", wal[8:12])[0]
frames, at = [], 32
while at + 24 + page <= len(wal):
    frames.append(struct.unpack(">II", wal[at:at + 8]))
    at += 24 + page
con = sqlite3.connect("file:" + db + "?mode=ro", uri=True)
name = {p: n for n, p in con.execute("SELECT name, pageno FROM dbstat")}
pages = {p for p, _ in frames}
# a page dbstat names no b-tree for (the free list's, the lock byte's) is
# no b-tree of its own
trees = {name[p] for p in pages if p in name}
print("| %s | %d | %d | %d | %d | %d |" % (f"{size:,}", len(frames), sum(1 for _, c in frames if c),
                                           len(pages), len(trees), len(pages - name.keys())))
EOF
done
