#!/bin/sh
# bench/match.sh - suggestion latency against 10,000, 100,000 and 1,000,000
# stored signatures (issue 6 item 7; DESIGN §9 asks for under 20 ms at
# 100,000 in the hook's path), against brute-force scoring written plainly,
# in the same run.  See bench/match.c for what each row times.
#
# Usage: bench/match.sh [QUERIES] [SIZES...]
#   QUERIES  queries per size for callus's path (default 200); the plain
#            in-memory baseline runs as many up to 100,000 signatures and a
#            tenth above (half a second per query there); the SQLite one a
#            quarter at 100,000 and none above (a 1 GB table read per
#            query).
# Needs build/libcallus.a (`make`).  Work files go to a temporary directory
# (about 2 GB at 1,000,000).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
nq=${1:-200}
[ $# -gt 0 ] && shift
sizes=${*:-10000 100000 1000000}
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-match.XXXXXX")
trap 'rm -rf "$work"' EXIT

cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
	-Wstrict-prototypes -Wshadow -Wvla -Wformat=2 \
	-I"$repo/include" -I"$repo/src" -include "$repo/src/banned.h" \
	$(pkg-config --cflags sqlite3 jansson) \
	-o "$work/match" "$repo/bench/match.c" "$repo/build/libcallus.a" \
	$(pkg-config --libs sqlite3 jansson) -lm

for n in $sizes; do
	if [ "$n" -le 10000 ]; then plain=$nq sql=$nq
	elif [ "$n" -le 100000 ]; then plain=$nq sql=$((nq / 4))
	else plain=$((nq / 10)) sql=0
	fi
	"$work/match" run "$work" "$n" "$nq" "$plain" "$sql" >>"$work/out"
	rm -f "$work/vectors.bin" "$work/vectors.db" "$work/queries.f32"
done

echo "| signatures | scoring | queries | min ms | median ms | p95 ms | max ms |"
echo "|---:|:---|---:|---:|---:|---:|---:|"
sed -n 's/^lat|/|/p' "$work/out"
echo
echo "| signatures | index file MB | peak RSS MB, callus's path | peak RSS MB, no index | queries with a match ≥ 0.85 | top score = plain's (±0.02) |"
echo "|---:|---:|---:|---:|---:|---:|"
sed -n 's/^mem|/|/p' "$work/out"
