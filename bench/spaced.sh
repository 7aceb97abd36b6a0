#!/bin/sh
# bench/spaced.sh - failing hooks spaced as an agent spaces them.  An agent
# runs a command, reads its output, thinks and edits before the next one:
# seconds go by between two hooks, and a benchmark that runs them back to
# back times a machine in another state (memory a process just freed is
# still warm; on a virtual machine that hands free memory back to its host
# it is not, seconds later: docs/scale-history.md, the nineteenth pass).  Two
# binaries, each in its own copy of a store grown by bench/scale.sh
# (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE), take turns: GAP seconds of
# sleep, then a failing `callus hook generic` (a gcc error never seen: a new
# lesson, signature, vector; no snapshot unless SNAPSHOTS=1), N times each.  CPU ms of each
# hook from bench/proctime (wait4), and its page faults (first touches of
# memory); prints min / first quartile / median / third quartile / max /
# mean of each binary, the same of the two hooks' difference turn by turn
# (each binary first every other turn; over a few hundred turns the
# difference shows a change of a few percent that either binary's own
# spread hides), and how many rows of the recent document
# frequencies the second binary's hooks add: how many new signatures go
# by between two folds.  GAP 0: back to back.  With FOLD=1, every timed
# hook is one that folds the recent document frequencies into embed_df
# (src/match_df.c): before it, embed_df_recent is filled to one feature
# short of the fold (4,095 new keys, as new errors' words bring).  The
# copies made, the harness waits for the disk to settle before timing
# (bench_settle, bench/tools.sh; CALLUS_BENCH_SETTLE_S=0: no wait) and
# prints what creating a file in the copy's .callus/ cost then.  With
# SNAPSHOTS=1 the hooks take their snapshot as a user's do (the copies'
# index refreshed first, as any git command leaves it), and the wall time
# of each hook is what tells (the helper works while the hook records).
# Wall ms are printed beside the CPU ms either way.
# Usage: bench/spaced.sh WS N GAP BASE [path/to/callus]
#   e.g. bench/spaced.sh /tmp/keepD/ws-10000 40 3 /tmp/old/build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 4 ] || { echo "usage: bench/spaced.sh WS N GAP BASE [path/to/callus]" >&2; exit 2; }
src=$1 n=$2 gap=$3 base=$(realpath "$4")
callus=$(realpath "${5:-$repo/build/callus}")
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_grown spaced "$repo" "$src" "$callus"

snaps=
[ "${SNAPSHOTS:-0}" != 1 ] || snaps=snapshots
bench_copies "$src" "$work" "$base" "$callus" "$snaps"
: >"$work/a.txt"
: >"$work/b.txt"
: >"$work/a.wall"
: >"$work/b.wall"

created=$(bench_settle "$work" "$work/ws-b/.callus")
# the two binaries copied together now (bench_fresh, bench/tools.sh)
run_a=$(bench_fresh "$work/bin-a" "$base") run_b=$(bench_fresh "$work/bin-b" "$callus")

# the recent document frequencies' rows each of the second binary's hooks
# adds (a hook that folds them is left out): how many new signatures go
# by between two folds (src/match_df.c)
# (bench_store_sql: read between timed hooks, the store left as found)
recent() { bench_store_sql -readonly "$work/ws-b/.callus/callus.db" 'SELECT count(*) FROM embed_df_recent'; }
added=0 counted=0 was=$(recent)
i=0
while [ "$i" -lt "$n" ]; do
	# each first every other time: whatever going first does falls on
	# both alike
	order="a b"
	[ $((i % 2)) = 0 ] || order="b a"
	for x in $order; do
		if [ "$x" = a ]; then bin=$run_a; else bin=$run_b; fi
		bench_fail_payload "$work" $((700000 + i)) "$work/ws-$x" "$work/p.json"
		if [ "${FOLD:-0}" = 1 ]; then
			bench_store_sql "$work/ws-$x/.callus/callus.db" "WITH RECURSIVE k(n) AS (SELECT 1 UNION ALL
				SELECT n + 1 FROM k WHERE n < 4095 - (SELECT count(*) FROM embed_df_recent))
				INSERT OR IGNORE INTO embed_df_recent
				SELECT (n * 2654435761 + $i * 40503) % 4294967296, 1 FROM k"
		fi
		sleep "$gap"
		(cd "$work/ws-$x" && "$work/proctime" 1 "$work/p.json" "$bin" hook generic) >"$work/line"
		cut -d' ' -f1 "$work/line" >>"$work/$x.txt"
		cut -d' ' -f4 "$work/line" >>"$work/$x.wall"
		cut -d' ' -f7 "$work/line" >>"$work/$x.faults"
		if [ "$x" = b ] && [ "${FOLD:-0}" != 1 ]; then
			now=$(recent)
			if [ "$now" -ge "$was" ]; then
				added=$((added + now - was)) counted=$((counted + 1))
			fi
			was=$now
		fi
	done
	i=$((i + 1))
done

echo "a file created in the copy's .callus/ when timing began: $created us (bench/fsprobe.c)"
echo "| binary | failing hooks, $gap s apart: min / q1 / median / q3 / max / mean (CPU ms, $n each) | page faults: the same |"
echo "|:---|---:|---:|"
echo "| $base | $(bench_stats "$work/a.txt") | $(bench_stats "$work/a.faults") |"
echo "| $callus | $(bench_stats "$work/b.txt") | $(bench_stats "$work/b.faults") |"
# the two hooks of a turn ran one after the other (GAP seconds apart): their
# difference leaves out most of what the machine does from one minute to
# the next.  (With N odd, the first binary went first once more.)
paste "$work/a.txt" "$work/b.txt" | awk '{ print $2 - $1 }' >"$work/diff.txt"
echo "second less first, hook by hook: min / q1 / median / q3 / max / mean $(bench_stats "$work/diff.txt") ms"
echo "wall ms, the same: $base $(bench_stats "$work/a.wall"); $callus $(bench_stats "$work/b.wall")"
paste "$work/a.wall" "$work/b.wall" | awk '{ print $2 - $1 }' >"$work/diff.wall"
echo "wall, second less first, hook by hook: $(bench_stats "$work/diff.wall") ms"
if [ "$counted" -gt 0 ] && [ "$added" -gt 0 ]; then
	awk -v a="$added" -v c="$counted" 'BEGIN { printf "%s: %.1f rows of embed_df_recent a hook (%d hooks): a fold every %.0f new signatures\n", "'"$callus"'", a / c, c, 4096 * c / a }'
fi
