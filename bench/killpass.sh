#!/bin/sh
# bench/killpass.sh - `callus gc` and `callus reindex` killed with SIGKILL
# in their pass on a copy of a large store (issue 14, docs/safety.md: a
# crash leaves nothing the next run does not repair).  The copy's
# [retention] is lowered (lessons = 500, every day count 1) so that gc has
# most of the store to remove.  For each delay of GC_AT (default "0.3 1
# 2" s) a gc is started and killed then, and callus doctor says what it
# finds wrong; then a whole `callus gc`, its lines of repair, and doctor
# again.  Then the same for `callus reindex` at each of REINDEX_AT
# (default "0.5 2 4").  WS is a store bench/scale.sh kept (ws-SIZE).
# Usage: bench/killpass.sh WS path/to/callus
#   e.g. bench/killpass.sh /tmp/keep/ws-100000 build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# = 2 ] || { echo "usage: bench/killpass.sh WS callus" >&2; exit 2; }
from=$1
[ -d "$from/.callus" ] || { echo "killpass: no store at $from" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bin=$(bench_exe killpass "$2") || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-killpass.XXXXXX")
trap 'rm -rf "$work"' EXIT
ws=$work/ws
bench_ready "$from" "$ws" "$bin"
printf '[retention]\ngc_hours = 0\nlessons = 500\nrun_days = 1\nsignature_days = 1\nlesson_days = 1\n' \
	>"$ws/.callus/config"

# killed CMD... AT: CMD started in the copy and killed AT seconds in (or
# done by then), then what callus doctor finds
killed() {
	at=$1
	shift
	(cd "$ws" && exec "$bin" "$@" >/dev/null 2>&1) &
	pid=$!
	sleep "$at"
	if kill -9 "$pid" 2>/dev/null; then
		echo "callus $* killed at $at s; callus doctor, what is not ok:"
	else
		echo "callus $* done before $at s; callus doctor, what is not ok:"
	fi
	wait "$pid" 2>/dev/null || true
	bench_doctor_findings "$ws" "$bin"
}

echo "## $bin, $(bench_store_sql "$ws/.callus/callus.db" "SELECT count(*) FROM lessons") lessons"
echo
for at in ${GC_AT:-0.3 1 2}; do
	killed "$at" gc
done
echo "callus gc, whole:"
(cd "$ws" && "$bin" gc 2>&1) | sed 's/^/    /'
echo "callus doctor, what is not ok:"
bench_doctor_findings "$ws" "$bin"
echo "lesson files: $(find "$ws/.lessons" -name '*.md' | wc -l), lessons: $(bench_store_sql "$ws/.callus/callus.db" "SELECT count(*) FROM lessons")"
for at in ${REINDEX_AT:-0.5 2 4}; do
	killed "$at" reindex
done
