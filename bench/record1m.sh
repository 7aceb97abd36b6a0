#!/bin/sh
# bench/record1m.sh - the instructions callus executes recording a failure
# that printed 1 MB (`make` printing 19,000 gcc error lines; 1,000 kept as
# errors), through the hook (`callus hook generic`, the payload carrying the
# output) and through `callus run`, counted by valgrind's callgrind (callus
# alone: not make).  Instructions, not time: on a shared machine whose speed
# varies by half from one minute to the next they are what compares two
# binaries.  Each binary records into a store of its own, once before it is
# counted (the second recording of the same failure); snapshots off.
# Usage: bench/record1m.sh [path/to/callus] [path/to/base/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
callus=$(realpath "${1:-$repo/build/callus}")
base=${2:+$(realpath "$2")}
command -v valgrind >/dev/null || { echo "bench: install valgrind" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# count BIN ARGS...: the instructions of one run of BIN ARGS, stdin p.json
count() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" <p.json 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "| callus | through the hook | through callus run |"
echo "|:---|---:|---:|"
for bin in ${base:+"$base"} "$callus"; do
	ws=$work/ws$$-$(printf '%s' "$bin" | cksum | cut -d' ' -f1)
	mkdir -p "$ws/.callus" && cd "$ws"
	git init -q .
	printf '[learn]\nsnapshots = false\n[retention]\ngc_hours = 0\n' >.callus/config
	yes "src/main.c:1:27: error: expected ';' before '}' token" | head -c 1048576 >out.txt
	printf 'fail:\n\t@cat out.txt; exit 1\n' >Makefile
	jq -n --rawfile o out.txt --arg cwd "$ws" \
		'{command: "make -s fail", exit_code: 2, output: $o, cwd: $cwd}' >p.json
	"$bin" hook generic <p.json >/dev/null
	hook=$(count "$bin" hook generic)
	"$bin" run -q -- make -s fail >/dev/null 2>&1 || true
	run=$(count "$bin" run -q -- make -s fail)
	echo "| $bin | $hook | $run |"
done
