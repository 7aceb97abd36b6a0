#!/bin/sh
# bench/hookinstr.sh - the instructions of one failing hook as the store
# grows (issue 14), counted by callgrind: on a machine whose time moves by
# a tenth from one minute to the next, the count does not.  The hook
# records a gcc error never seen (a new lesson, signature, vector), without
# its snapshot ([learn] snapshots = false: callus's own work), on a fresh
# copy of a store bench/scale.sh kept (CALLUS_SCALE_KEEP=DIR, ws-SIZE),
# after the binary's own migration and gc and two such hooks (the first
# makes what a copied store lacks: its vector files' sketches and
# postings); the third is counted.  With TEN=1, a failure of ten new errors
# at once.  The counted hook also fixes the error of the one before it,
# whose type differs (a warning's, then gcc's "error"); with SAME_TYPE=1
# the three hooks' errors are of one template of scale_gen's (every
# sixteenth error), so the error fixed and the new one share their type,
# as about two pairs in three of the grown stores' do (80 % of their
# signatures are of the type "error").  With RECUR=1, the three hooks are
# of the store's own error 0 failing again in a check of its own (what
# bench/scale.sh times as "recurring error"): no new lesson, signature or
# vector, the lesson's count and its views written again.  Each binary
# given is counted on its own copy: prints the millions of instructions, a
# row a size, a column a binary.
# With CG_KEEP=DIR, each count's callgrind output is kept as
# DIR/callgrind-SIZE-K.out (K: the binary's place in the list), for
# callgrind_annotate --inclusive=yes.
# Usage: bench/hookinstr.sh DIR SIZES path/to/callus [path/to/other/callus ...]
#   e.g. bench/hookinstr.sh /tmp/keepD "1000 100000" /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/hookinstr.sh DIR SIZES callus [callus ...]" >&2; exit 2; }
from=$1 sizes=$2
shift 2
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
# each binary made absolute: the counts run in the store's copy
n=$#
for bin in "$@"; do
	b=$(bench_exe hookinstr "$bin") || exit 2
	set -- "$@" "$b"
done
shift "$n"
bench_need hookinstr valgrind jq || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-hookinstr.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$repo/build"

# payload FILE K WS: gcc error K (ten of them from K with TEN=1) failing in WS
payload() {
	cmd="gcc -c src/x.c"
	[ "${RECUR:-0}" != 1 ] || cmd="gcc -c src/r.c"
	: >"$work/out.txt"
	j=0
	while [ "$j" -lt "$([ "${TEN:-0}" = 1 ] && echo 10 || echo 1)" ]; do
		"$work/scale_gen" -p $(($2 + j)) >>"$work/out.txt"
		j=$((j + 1))
	done
	jq -n --rawfile o "$work/out.txt" --arg cwd "$3" --arg cmd "$cmd" \
		'{command: $cmd, exit_code: 1, output: $o, cwd: $cwd}' >"$1"
}

# scale_gen -p K writes template K % 16 (bench/scale_gen.c)
step=10 first=7000000
if [ "${SAME_TYPE:-0}" = 1 ]; then step=16; fi
if [ "${RECUR:-0}" = 1 ]; then step=0 first=0; fi
printf '| recordings |'
for bin in "$@"; do printf ' %s |' "$bin"; done
printf '\n|---:|'
for bin in "$@"; do printf -- '---:|'; done
printf '\n'
for size in $sizes; do
	[ -d "$from/ws-$size/.callus" ] || { echo "hookinstr: no store at $from/ws-$size" >&2; exit 2; }
	printf '| %s |' "$size"
	nbin=0
	for bin in "$@"; do
		ws=$work/ws
		rm -rf "$ws" && bench_ready "$from/ws-$size" "$ws" "$bin"
		for i in 0 1 2; do
			payload "$work/p.json" $((first + i * step)) "$ws"
			if [ "$i" -lt 2 ]; then
				(cd "$ws" && "$bin" hook generic <"$work/p.json" >/dev/null)
			else
				(cd "$ws" && valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" \
					"$bin" hook generic <"$work/p.json" >/dev/null 2>"$work/vg.err")
			fi
		done
		nbin=$((nbin + 1))
		[ -z "${CG_KEEP:-}" ] || { mkdir -p "$CG_KEEP" && cp "$work/cg.out" "$CG_KEEP/callgrind-$size-$nbin.out"; }
		ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/vg.err")
		awk -v ir="$ir" 'BEGIN { printf " %.2f |", ir / 1e6 }'
	done
	printf '\n'
done
