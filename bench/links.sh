#!/bin/sh
# bench/links.sh - `callus status` in a store whose near-duplicate errors
# were linked to the signature they duplicate (issue 14): the count of
# signatures with a vector leaves the aliases out.  A store grown by
# bench/scale.sh (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE) is copied, and
# LINKS of its signatures with a vector are linked, each to the one stored
# before it, as `callus reindex` links the duplicates it finds (reason
# 'duplicate'); then copied for each binary, each migrating its copy
# before anything is timed.  N pairs of `callus status`, the binaries in
# turn (each first in every other pair); the baseline row is NEW's
# `callus status` in a copy with no link.  bench/proctime's CPU ms (user +
# system): min/median/max, and the median of the pairs' differences (NEW -
# OLD).  The two binaries must print the same counts (the script fails
# when they do not).  The same binary given twice is the harness's control.
# Usage: bench/links.sh WS LINKS N OLD NEW
#   e.g. bench/links.sh /tmp/keep/ws-10000 3000 40 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 5 ] || { echo "usage: bench/links.sh WS LINKS N OLD NEW" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count links LINKS "$2"
bench_count links N "$3"
src=$1 links=$2 n=$3
old_src=$(bench_exe links "$4") || exit 2
new_src=$(bench_exe links "$5") || exit 2
bench_need bench/links.sh git sqlite3 || exit 2
bench_grown links "$repo" "$src" "$new_src"

# the linked store: before either binary opens it, so that each migrates
# the same rows
bench_copy_store "$src" "$work/linked"
have=$(sqlite3 "$work/linked/.callus/callus.db" "SELECT count(*) FROM signature_vectors")
[ "$have" -gt "$links" ] || {
	echo "bench/links.sh: $src holds $have signatures with a vector, not more than $links" >&2
	exit 2
}
sqlite3 "$work/linked/.callus/callus.db" "
	WITH v AS (SELECT g.id, row_number() OVER (ORDER BY g.rowid) AS k
		   FROM signatures g WHERE EXISTS (SELECT 1 FROM signature_vectors x
						   WHERE x.sig = g.rowid))
	INSERT INTO signature_links (alias_id, canonical_id, similarity, reason, linked_at)
	SELECT a.id, c.id, 0.97, 'duplicate', '2026-12-01T00:00:00Z'
	FROM v a JOIN v c ON c.k = a.k - 1 WHERE a.k % 2 = 0 AND a.k <= 2 * $links;"
made=$(sqlite3 "$work/linked/.callus/callus.db" "SELECT count(*) FROM signature_links")

# ready X SRC BIN: X's copy of SRC, migrated by BIN, no background gc;
# the counts `callus status` prints (its lessons, errors and vectors) into X.counts
ready() {
	bench_copy_store "$2" "$work/$1"
	printf '[retention]\ngc_hours = 0\n' >"$work/$1/.callus/config"
	(cd "$work/$1" && git status --porcelain >/dev/null && "$3" status >/dev/null &&
		"$3" status | grep -E '^(lessons|errors|vectors) ' >"$work/$1.counts")
}
ready old "$work/linked" "$old_src"
ready new "$work/linked" "$new_src"
ready base "$src" "$new_src"
cmp -s "$work/old.counts" "$work/new.counts" || {
	echo "bench/links.sh: the two binaries count differently:" >&2
	diff "$work/old.counts" "$work/new.counts" >&2
	exit 1
}
bench_pair_fresh

# one X: the CPU ms of one `callus status` of binary X in its copy
one() {
	bin=$(bench_bin_of "$1")
	[ "$1" != base ] || bin=$new
	(cd "$work/$1" && "$work/proctime" 1 /dev/null "$bin" status) | cut -d' ' -f1 >>"$work/$1.ms"
}
echo "# $src: $made links; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# counted by both: $(grep '^vectors' "$work/new.counts" | tr -s ' ')"
: >"$work/old.ms"
: >"$work/new.ms"
: >"$work/base.ms"
bench_turns "$n" base
paste "$work/old.ms" "$work/new.ms" | awk '{ print $2 - $1 }' >"$work/d"
echo "| command | pairs | OLD min/median/max | NEW min/median/max | NEW - OLD, median of the pairs |"
echo "|:---|---:|---:|---:|---:|"
printf '| callus status, %s links | %s | %s | %s | %s |\n' "$made" "$n" "$(bench_range "$work/old.ms")" \
	"$(bench_range "$work/new.ms")" "$(bench_range "$work/d" | cut -d/ -f2)"
printf '| callus status, no link (baseline, NEW) | %s | | %s | |\n' "$n" "$(bench_range "$work/base.ms")"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
