#!/bin/sh
# bench/fulldisk.sh - N failing hooks, one after the other, on a copy of a
# large store whose disk is full but for LEFT KB (issue 14, docs/safety.md):
# what each hook says and what is kept, not their time.  The copy is made
# on a tmpfs of its own (mounted here: run as root), filled with a file
# that leaves LEFT KB; each hook records a gcc error never seen, a check of
# its own, snapshots off.  Prints the hooks' exit statuses and callus's
# lines on their stderr by kind, the runs the store gained while the disk
# was full and the queue entries left; then the filler is removed, the
# queue drained, and the runs gained since, the entries left, and what
# callus doctor finds wrong (its lines that are not ok).  A hook whose
# queue entry could be written keeps it, and the drain records it; one
# whose entry found no room either is lost, and says so.
# Usage: bench/fulldisk.sh WS N path/to/callus [LEFT_KB]
#   e.g. bench/fulldisk.sh /tmp/keep/ws-10000 30 build/callus 600
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/fulldisk.sh WS N callus [LEFT_KB]" >&2; exit 2; }
from=$1 n=$2 left=${4:-600}
[ -d "$from/.callus" ] || { echo "fulldisk: no store at $from" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fulldisk: mounting a tmpfs needs root" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need fulldisk jq sqlite3 fallocate flock || exit 2
bench_count fulldisk N "$n"
bench_count fulldisk LEFT_KB "$left"
bin=$(bench_exe fulldisk "$3") || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-fulldisk.XXXXXX")
mnt=$work/disk
mkdir "$mnt" "$work/out"
trap 'umount "$mnt" 2>/dev/null || true; rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$repo/build"
# room for the copy and 64 MB more (what a link to the store names: its
# own size would be none)
mb=$(($(du -sm "$from/." | cut -f1) + 64))
mount -t tmpfs -o size="${mb}m" tmpfs "$mnt"
ws=$mnt/ws
bench_ready "$from" "$ws" "$bin"
i=1
while [ "$i" -le "$n" ]; do
	bench_fail_payload "$work" $((8600000 + i * 10)) "$ws" "$work/out/p$i.json" own
	i=$((i + 1))
done
# the store's runs; empty when the shell cannot read it (no room for its
# shared memory)
count() { bench_store_sql "$ws/.callus/callus.db" "SELECT count(*) FROM runs" 2>/dev/null || true; }
gained() { c=$(count); [ -n "$c" ] && echo $((c - runs)) || echo "? (the store cannot be read now)"; }
entries() { find "$ws/.callus/spool" -name '*.json' 2>/dev/null | wc -l; }
runs=$(count)
fallocate -l $(($(df --output=avail -B1 "$mnt" | tail -1) - left * 1024)) "$mnt/filler"
echo "## $bin, $n failing hooks in turn, $(df --output=avail -B1 "$mnt" | tail -1) bytes free"
echo
i=1
while [ "$i" -le "$n" ]; do
	st=0
	(cd "$ws" && "$bin" hook generic <"$work/out/p$i.json" >"$work/out/r$i.json" \
		2>"$work/out/e$i.txt") || st=$?
	echo "$st" >>"$work/out/rc"
	i=$((i + 1))
done
printf 'hooks by exit status: %s; replies not JSON: %s\n' \
	"$(sort "$work/out/rc" | uniq -c | awk '{ printf "%s%s: %s", (NR > 1 ? ", " : ""), $2, $1 }')" \
	"$(i=1; while [ "$i" -le "$n" ]; do jq -e type "$work/out/r$i.json" >/dev/null 2>&1 || echo x; i=$((i + 1)); done | wc -l)"
printf '\nstderr:\n'
cat "$work"/out/e*.txt | sed "s|$ws|WS|g" | sort | uniq -c | sort -rn
printf '\nwhile full: runs +%s, queue entries %s\n' "$(gained)" "$(entries)"
rm -f "$mnt/filler"
(cd "$ws" && "$bin" hook --drain generic) </dev/null >/dev/null 2>&1 || true
flock "$ws/.callus/spool/.drain.lock" true
printf 'the room back, drained: runs +%s, queue entries %s\n' "$(gained)" "$(entries)"
printf 'callus doctor, what is not ok:\n'
bench_doctor_findings "$ws" "$bin"
