#!/bin/sh
# bench/payload.sh - reading a failing check's hook payload: the generic
# payload of `make` printing gcc errors, 1 MB and 50 MB of output, read by
# callus (bench/payload.c: callus_hook_event_parse, the long output decoded
# by callus) against jansson alone reading the same text (json_loadb: how
# callus read all of it before), each N times in the same run, in turn.
# Usage: bench/payload.sh [N] [path/to/build]   (default 20, build)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
build=${2:-$repo/build}
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -I"$repo/include" \
	$(pkg-config --cflags jansson) -o "$work/payload" "$repo/bench/payload.c" \
	"$build/libcallus.a" $(pkg-config --libs sqlite3 jansson libpcre2-8) -lm

echo "| output | callus best / median ms | jansson alone best / median ms |"
echo "|---:|---:|---:|"
for mb in 1 50; do
	yes "src/main.c:1:27: error: expected ';' before '}' token" |
		head -c $((mb * 1048576)) >"$work/out.txt"
	jq -n --rawfile o "$work/out.txt" \
		'{command: "make -s", exit_code: 2, output: $o, cwd: "/tmp"}' >"$work/p.json"
	runs=$n
	[ "$mb" -lt 50 ] || runs=$(((n + 4) / 5))
	"$work/payload" "$work/p.json" "$runs" | {
		read -r _ cb cm
		read -r _ jb jm
		echo "| $mb MB | $cb / $cm | $jb / $jm |"
	}
done
