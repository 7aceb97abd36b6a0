#!/bin/sh
# bench/record1m.sh - the instructions callus executes recording a failure
# that printed 1 MB, through the hook (`callus hook generic`, the payload
# carrying the output) and through `callus run`, counted by valgrind's
# callgrind (callus alone: not make).  Two megabytes, `make` printing:
#   repeated   one gcc error line 19,000 times (1,000 kept as errors)
#   distinct   13,765 gcc errors, each its own, in 7,807 files of 37
#              folders (three messages, their identifiers numbered): what
#              a large build's first compile of a broken header prints
# A hook count marked "cut" is of a hook callgrind slowed past its deadline:
# only its part before the cut is counted (the rest went on in a detached
# copy), so it is low.
# Instructions, not time: on a shared machine whose speed varies by half
# from one minute to the next they are what compares two binaries.  Each
# binary records into a store of its own, once before it is counted (the
# second recording of the same failure); snapshots off.
# With CALLUS_1M_TIME=N, also the hook's CPU time and page faults: the
# medians of N runs (bench/proctime.c); with CALLUS_1M_WHAT=run, those of
# `callus run -q -- make -s fail` instead (make's and cat's included, the
# same for both binaries).  With CALLUS_1M_ROUNDS=R as well
# and a base given, then R rounds of the two binaries in turn, each first in
# every other round, each timed N times in its own workspace:
# a row a round, CPU ms min / median of each (page faults, median); what
# compares two binaries
# on a machine whose speed moves from one minute to the next.
# Usage: bench/record1m.sh [path/to/callus] [path/to/base/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
callus=$(realpath "${1:-$repo/build/callus}")
base=${2:+$(realpath "$2")}
runs=${CALLUS_1M_TIME:-0}
rounds=${CALLUS_1M_ROUNDS:-0}
what=${CALLUS_1M_WHAT:-hook}
case $what in hook | run) ;; *) echo "bench/record1m.sh: CALLUS_1M_WHAT is hook or run" >&2; exit 2 ;; esac
command -v valgrind >/dev/null || { echo "bench: install valgrind" >&2; exit 1; }
if [ "$rounds" != 0 ] && { [ "$runs" = 0 ] || [ -z "$base" ]; }; then
	echo "bench/record1m.sh: CALLUS_1M_ROUNDS needs CALLUS_1M_TIME and a base binary" >&2
	exit 2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
[ "$runs" = 0 ] || cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
[ "$runs" = 0 ] || bench_count record1m CALLUS_1M_TIME "$runs"
[ "$rounds" = 0 ] || bench_count record1m CALLUS_1M_ROUNDS "$rounds"

# output KIND: the megabyte on stdout
output() {
	if [ "$1" = repeated ]; then
		yes "src/main.c:1:27: error: expected ';' before '}' token" | head -c 1048576
		return
	fi
	awk 'BEGIN {
		for (i = 0; i < 30000; i++) {
			k = (i * 7919) % 100003
			if (i % 3 == 0)
				m = sprintf("\047var_%d\047 undeclared (first use in this function)", k)
			else if (i % 3 == 1)
				m = sprintf("expected \047;\047 before \047}\047 token near item_%d", k)
			else
				m = sprintf("implicit declaration of function \047fn_%d\047", k)
			printf "src/d%d/f%d.c:%d:%d: error: %s\n", i % 37, i % 211, 10 + i % 900, 1 + i % 60, m
		}
	}' | head -c 1048576
}

if [ "$runs" = 0 ]; then
	echo "| output | callus | through the hook | through callus run |"
	echo "|:---|:---|---:|---:|"
else
	echo "| output | callus | through the hook | through callus run | $what, CPU ms (median of $runs) | page faults |"
	echo "|:---|:---|---:|---:|---:|---:|"
fi
# timed BIN: proctime's line for BIN's $what in this workspace
timed() {
	if [ "$what" = run ]; then
		"$work/proctime" "$runs" /dev/null "$1" run -q -- make -s fail
	else
		"$work/proctime" "$runs" p.json "$1" hook generic
	fi
}

for kind in repeated distinct; do
	for bin in ${base:+"$base"} "$callus"; do
		ws=$work/ws$$-$kind-$(printf '%s' "$bin" | cksum | cut -d' ' -f1)
		mkdir -p "$ws" && cd "$ws"
		output "$kind" >out.txt
		printf 'fail:\n\t@cat out.txt; exit 1\n' >Makefile
		bench_output_ws "$ws" "make -s fail" out.txt 2
		"$bin" hook generic <p.json >/dev/null
		hook=$(bench_callgrind p.json "$bin" hook generic)
		"$bin" run -q -- make -s fail >/dev/null 2>&1 || true
		run=$(bench_callgrind /dev/null "$bin" run -q -- make -s fail)
		if [ "$runs" = 0 ]; then
			echo "| $kind | $bin | $hook | $run |"
		else
			t=$(timed "$bin")
			echo "| $kind | $bin | $hook | $run | $(echo "$t" | cut -d' ' -f2) | $(echo "$t" | cut -d' ' -f8) |"
		fi
	done
done

# time old|new: the binary's $what timed in its own workspace, into t_old
# or t_new (CPU ms min / median, and the median's page faults)
time_one() {
	if [ "$1" = old ]; then one_bin=$base; else one_bin=$callus; fi
	cd "$work/ws$$-$kind-$(printf '%s' "$one_bin" | cksum | cut -d' ' -f1)"
	one_t=$(timed "$one_bin")
	one_t="$(echo "$one_t" | cut -d' ' -f1) / $(echo "$one_t" | cut -d' ' -f2) ($(echo "$one_t" | cut -d' ' -f8) faults)"
	if [ "$1" = old ]; then t_old=$one_t; else t_new=$one_t; fi
}
if [ "$rounds" != 0 ] && [ "$runs" != 0 ] && [ -n "$base" ]; then
	for kind in repeated distinct; do
		echo
		echo "$kind, in turn, $what, CPU ms min / median of $runs (page faults, median):"
		echo
		echo "| round | first | base | callus |"
		echo "|---:|:---|---:|---:|"
		r=0
		while [ "$r" -lt "$rounds" ]; do
			# each binary first in every other round: the first of
			# a round starts from a colder cache
			if [ $((r % 2)) = 0 ]; then
				time_one old
				time_one new
				first=base
			else
				time_one new
				time_one old
				first=callus
			fi
			echo "| $((r + 1)) | $first | $t_old | $t_new |"
			r=$((r + 1))
		done
	done
fi
