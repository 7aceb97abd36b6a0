#!/bin/sh
# bench/reindex.sh - what the background `callus reindex --new --quiet`
# costs with an external embedder ([embed]) set, in a grown store, two
# binaries in turn: made for the check of the model's vector file against
# the store's count of its vectors (and its rewrite when it fell behind),
# which every reindex now does.  A store grown by bench/scale.sh
# (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE) is copied for each binary; a
# loopback embeddings endpoint (tests/unit/embed_server.py, DIM
# components, default 768) embeds every signature once in each copy
# (`callus reindex`), untimed.  Then N pairs of `callus reindex --new
# --quiet` with nothing new to send (what a failure that brings no new
# signature for the model leaves it), the binaries in turn (each first in
# every other pair); the baseline row is NEW's `callus status` in its copy.
# bench/proctime's CPU ms (user + system): min/median/max, and the median
# of the pairs' differences (NEW - OLD).  Then the file removed in NEW's
# copy and one `callus reindex --new` timed: the rewrite from the store.
# The same binary given twice is the harness's control.
# Usage: bench/reindex.sh WS N OLD NEW [DIM]
#   e.g. bench/reindex.sh /tmp/keep/ws-10000 21 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 4 ] || { echo "usage: bench/reindex.sh WS N OLD NEW [DIM]" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count reindex N "$2"
src=$1 n=$2 dim=${5:-768}
old_src=$(bench_exe reindex "$3") || exit 2
new_src=$(bench_exe reindex "$4") || exit 2
bench_grown reindex "$repo" "$src" "$new_src"

bench_embed_server reindex "$repo" "$dim"

# ready X BIN: X's copy of the store, every signature embedded by the
# endpoint through BIN, no background gc
ready() {
	bench_copy_store "$src" "$work/$1"
	printf '[retention]\ngc_hours = 0\n[embed]\nurl = http://127.0.0.1:%s/v1/embeddings\nmodel = bench\n' \
		"$port" >"$work/$1/.callus/config"
	(cd "$work/$1" && "$2" reindex --quiet && "$2" reindex --new --quiet)
}
ready old "$old_src"
ready new "$new_src"
bench_pair_fresh

# one X [CMD...]: the CPU ms of one `callus CMD` of binary X in its copy
one() {
	x=$1
	bin=$(bench_bin_of "$x")
	shift
	[ $# -gt 0 ] || set -- reindex --new --quiet
	(cd "$work/$x" && "$work/proctime" 1 /dev/null "$bin" "$@") | cut -d' ' -f1 \
		>>"$work/$x.$1.ms"
}
echo "# $src; DIM $dim; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# NEW: $(cd "$work/new" && "$new" status | grep -i "^ *[0-9]* of [0-9]* signatures (openai" || :)"
: >"$work/old.reindex.ms"
: >"$work/new.reindex.ms"
: >"$work/new.status.ms"
bench_turns "$n" new status
paste "$work/old.reindex.ms" "$work/new.reindex.ms" | awk '{ print $2 - $1 }' >"$work/d"
echo "| command | pairs | OLD min/median/max | NEW min/median/max | NEW - OLD, median of the pairs |"
echo "|:---|---:|---:|---:|---:|"
printf '| callus reindex --new --quiet (nothing new) | %s | %s | %s | %s |\n' "$n" \
	"$(bench_range "$work/old.reindex.ms")" "$(bench_range "$work/new.reindex.ms")" \
	"$(bench_range "$work/d" | cut -d/ -f2)"
printf '| callus status (baseline, NEW) | %s | | %s | |\n' "$n" "$(bench_range "$work/new.status.ms")"
f=$(ls "$work"/new/.callus/vectors-ext-*.bin)
records=$(( ($(stat -c %s "$f") - 80) ))
rm -f "$f" "$f.sketch" "$f.postings"
: >"$work/new.reindex.ms"
one new
printf '| NEW: callus reindex --new --quiet, its file removed (written again) | 1 | | %s | |\n' \
	"$(cat "$work/new.reindex.ms")"
[ -s "$f" ] || { echo "bench/reindex.sh: NEW did not write the file again" >&2; exit 1; }
echo "# the file: $records bytes of records before, $(( $(stat -c %s "$f") - 80 )) after"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
