#!/bin/sh
# bench/hookio.sh - what one failing hook asks of the kernel as the store
# grows (issue 14): its system calls in all, the pages it writes and reads
# (pwrite64 and pread64 calls, strace), its writes to the WAL alone
# (strace -y names the file), and its minor page faults (GNU time).  Each
# hook records a gcc error never seen (a new lesson, signature, vector),
# without its snapshot ([learn] snapshots = false: callus's own work), on a
# copy of a store bench/scale.sh
# kept (CALLUS_SCALE_KEEP=DIR, ws-SIZE); two hooks first, then N counted,
# medians.  With CALLUS_HOOKIO_BASE=path/to/other/callus, that binary on a
# copy of its own, one hook of each in turn, and "base -> this".  With
# TEN=1, each failure has ten new errors (and fixes the ten before it), as
# bench/hookinstr.sh's TEN=1.
# Usage: bench/hookio.sh DIR [N] [SIZES] [path/to/callus]
#   (default N 9, SIZES "1000 100000", build/callus)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
from=${1:?usage: bench/hookio.sh DIR [N] [SIZES] [path/to/callus]}
n=${2:-9}
sizes=${3:-1000 100000}
callus=${4:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe hookio "$callus") || exit 2
base=${CALLUS_HOOKIO_BASE:-}
[ -z "$base" ] || base=$(bench_exe hookio "$base") || exit 2
errors=1
if [ "${TEN:-0}" = 1 ]; then errors=10; fi
bench_need hookio strace jq || exit 2
[ -x /usr/bin/time ] || { echo "hookio: GNU time (/usr/bin/time) is needed" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-hookio.XXXXXX")
trap 'rm -rf "$work"' EXIT
# scale_gen, built as every benchmark builds it: its own cc line here
# lacked src/ and cli/ once scale_gen.c needed them
bench_tools "$repo" "$work" "$(dirname "$callus")"

# median: of the numbers on stdin, one a line
median() {
	sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# prepare WS BIN SIZE SEED: WS a copy of DIR/ws-SIZE that BIN has opened
# (migrated) and gc'd, with payloads WS/.p-K.json of errors never seen
prepare() {
	rm -rf "$1" && bench_ready "$from/ws-$3" "$1" "$2"
	k=0
	while [ "$k" -lt $((2 * n + 2)) ]; do
		: >"$work/out.txt"
		j=0
		while [ "$j" -lt "$errors" ]; do
			"$work/scale_gen" -p $(($4 + k * errors + j)) >>"$work/out.txt"
			j=$((j + 1))
		done
		jq -n --rawfile o "$work/out.txt" --arg cwd "$1" \
			'{command: "gcc -c src/x.c", exit_code: 1, output: $o, cwd: $cwd}' >"$1/.p-$k.json"
		k=$((k + 1))
	done
	"$2" hook generic <"$1/.p-0.json" >/dev/null
	"$2" hook generic <"$1/.p-1.json" >/dev/null
}

# one WS BIN K NAME: hook K counted by strace, hook K + n timed, into NAME.*
one() {
	strace -f -y -o "$work/trace" "$2" hook generic <"$1/.p-$3.json" >/dev/null
	grep -c '^[0-9]* *[a-z_0-9]*(' "$work/trace" >>"$work/$4.calls" || :
	grep -c '^[0-9]* *pwrite64(' "$work/trace" >>"$work/$4.writes" || :
	grep -c '^[0-9]* *pwrite64([0-9]*<[^>]*-wal>' "$work/trace" >>"$work/$4.wal" || :
	grep -c '^[0-9]* *pread64(' "$work/trace" >>"$work/$4.reads" || :
	/usr/bin/time -f %R -o "$work/time" "$2" hook generic <"$1/.p-$(($3 + n)).json" >/dev/null
	tail -n 1 "$work/time" >>"$work/$4.faults"
}

# col NAME WHAT: the median of NAME.WHAT, "base -> this" with a base
col() {
	if [ -n "$base" ]; then
		printf '%s → %s' "$(median <"$work/base.$2")" "$(median <"$work/this.$2")"
	else
		median <"$work/this.$2"
	fi
}

echo "| recordings | system calls | pwrite64 calls | of them to the WAL | pread64 calls | minor page faults |"
echo "|---:|---:|---:|---:|---:|---:|"
for size in $sizes; do
	[ -d "$from/ws-$size/.callus" ] || {
		echo "bench/hookio.sh: no store at $from/ws-$size (grow one: CALLUS_SCALE_KEEP=$from bench/scale.sh)" >&2
		exit 2
	}
	rm -f "$work"/this.* "$work"/base.*
	CALLUS_GIT_HELPER="$(dirname "$callus")/callus-git"
	export CALLUS_GIT_HELPER
	prepare "$work/this" "$callus" "$size" 70000000
	[ -z "$base" ] || CALLUS_GIT_HELPER="$(dirname "$base")/callus-git" \
		prepare "$work/base" "$base" "$size" 70000000
	k=2
	while [ "$k" -lt $((n + 2)) ]; do
		one "$work/this" "$callus" "$k" this
		[ -z "$base" ] || CALLUS_GIT_HELPER="$(dirname "$base")/callus-git" \
			one "$work/base" "$base" "$k" base
		k=$((k + 1))
	done
	printf '| %s | %s | %s | %s | %s | %s |\n' "$size" "$(col x calls)" "$(col x writes)" \
		"$(col x wal)" "$(col x reads)" "$(col x faults)"
done
