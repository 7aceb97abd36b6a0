#!/bin/sh
# bench/hookprof.sh - where a failing hook's time goes, by time, not by
# instructions (bench/hookinstr.sh counts those): N new gcc errors (each a
# check of its own, no snapshot) through `callus hook generic`, GAP seconds
# apart, in a copy of a store grown by bench/scale.sh (CALLUS_SCALE_KEEP=DIR
# keeps DIR/ws-SIZE), under `perf record -g`; then the share of the callus
# processes' samples under each of the system calls a hook makes most of
# its time in (the C library's wrappers, callers included), and of the
# hottest functions of their own.  perf's call graphs by frame pointers
# stop at those wrappers in callus's code, which is enough for the calls.
# With TEN=1, each failure has ten new errors of one check (bench/scale.sh's
# "ten new errors" column); with RECUR=1, each is the store's error 0
# failing its own check again (bench/recurring.sh's hook).  Then the
# shares of the file system's work that no store size needs (the
# sixty-fifth pass): files written out at a close or a rename, blocks freed
# and discarded at a cut.  The share of the vector files' scans is
# printed either way: the near duplicates of a failure's new errors, and
# each one's search of the noted signatures (one a note: what grows).
# Usage: bench/hookprof.sh WS N [GAP [path/to/callus]]
#   e.g. bench/hookprof.sh /tmp/keepE/ws-10000 40 0.1
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 2 ] || { echo "usage: bench/hookprof.sh WS N [GAP [path/to/callus]]" >&2; exit 2; }
src=$1 n=$2 gap=${3:-0.1}
callus=$(realpath "${4:-$repo/build/callus}")
command -v perf >/dev/null || { echo "bench: needs perf" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_grown hookprof "$repo" "$src" "$callus"

ws=$work/ws
bench_ready "$src" "$ws" "$callus"
i=0
while [ "$i" -lt "$n" ]; do
	if [ "${RECUR:-0}" = 1 ]; then
		bench_fail_payload "$work" 0 "$ws" "$work/p$i.json" "gcc -c src/0.c"
	elif [ "${TEN:-0}" = 1 ]; then
		# ten new errors in one failure of one check, as bench/scale.sh's
		# column: each failure fixes the ten before it
		: >"$work/ten.txt"
		j=0
		while [ "$j" -lt 10 ]; do
			"$work/scale_gen" -p $((9900000 + i * 10 + j)) >>"$work/ten.txt"
			j=$((j + 1))
		done
		jq -n --rawfile o "$work/ten.txt" --arg cwd "$ws" \
			'{command: "gcc -c src/x.c", exit_code: 1, output: $o, cwd: $cwd}' >"$work/p$i.json"
	else
		bench_fail_payload "$work" $((990000 + i)) "$ws" "$work/p$i.json" own
	fi
	i=$((i + 1))
done
created=$(bench_settle "$work" "$ws/.callus")
cat >"$work/loop.sh" <<EOF
cd "$ws"
i=0
while [ "\$i" -lt $n ]; do
	"$callus" hook generic <"$work/p\$i.json" >/dev/null
	sleep $gap
	i=\$((i + 1))
done
EOF
perf record -q -F 20000 -g -o "$work/perf.data" -- sh "$work/loop.sh" 2>/dev/null
perf report -i "$work/perf.data" --comm callus --percentage relative --children \
	--sort sym -q -g none 2>/dev/null >"$work/children.txt"
perf report -i "$work/perf.data" --comm callus --percentage relative --no-children \
	--sort sym -q -g none 2>/dev/null >"$work/self.txt"

echo "a file created in the copy's .callus/ when timing began: $created us (bench/fsprobe.c)"
echo "$n failing hooks, $gap s apart, in a copy of $src: share of the callus processes' samples"
echo
echo "| system call (its wrapper, callers included) | share |"
echo "|:---|---:|"
for f in __madvise __libc_pread64 __GI___fstatat rename fsync fdatasync __libc_pwrite64 \
	__libc_open64 __ftruncate64; do
	awk -v f="$f" '$NF == f { s += $1 } END { printf "| %s | %.1f %% |\n", f, s }' \
		"$work/children.txt"
done
echo
echo "| the file system's work (the kernel's, callers included) | share |"
echo "|:---|---:|"
for f in ext4_release_file ext4_writepages do_truncate ext4_free_blocks blkdev_issue_discard; do
	awk -v f="$f" '$NF == f { s += $1 } END { printf "| %s | %.1f %% |\n", f, s }' \
		"$work/children.txt"
done
echo
echo "| the vector files' scans (vecindex.c's scan, what it inlines) | share |"
echo "|:---|---:|"
awk '$NF == "scan" { s += $1 } END { printf "| own samples | %.2f %% |\n", s }' "$work/self.txt"
echo
echo "| the hottest functions, their own samples | share |"
echo "|:---|---:|"
head -n 12 "$work/self.txt" | awk '{ printf "| %s %s | %s |\n", $2, $3, $1 }'
