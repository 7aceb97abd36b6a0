#!/bin/sh
# bench/burst.sh - N failing hooks at once on a copy of a large store
# (issue 14): what a busy store does to the recordings, not their time.
# Each hook records a gcc error never seen, a check of its own, with its
# snapshot (callus-git), all N started together; then the queue is
# drained.  Prints, for each binary given (each on its own copy of WS):
# how many runs and signatures the store gained (N of each when nothing
# is lost), the hooks that did not exit 0 or replied no JSON, callus's
# lines on the hooks' stderr by kind, and the events the burst added to
# the workspace's log, by kind.  WS is a store bench/scale.sh kept (CALLUS_SCALE_KEEP=DIR,
# DIR/ws-SIZE).
# Usage: bench/burst.sh WS N path/to/callus [path/to/other/callus ...]
#   e.g. bench/burst.sh /tmp/keep/ws-100000 150 /tmp/old/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/burst.sh WS N callus [callus ...]" >&2; exit 2; }
from=$1 n=$2
shift 2
[ -d "$from/.callus" ] || { echo "burst: no store at $from" >&2; exit 2; }
for tool in jq sqlite3 flock; do
	command -v "$tool" >/dev/null || { echo "burst: $tool is needed" >&2; exit 2; }
done
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count burst N "$n"
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-burst.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$repo/build"

count() {
	bench_store_sql "$1/.callus/callus.db" "SELECT count(*) FROM $2"
}

for bin in "$@"; do
	bin=$(bench_exe burst "$bin") || exit 2
	ws=$work/ws
	rm -rf "$ws" "$work/out" && mkdir "$work/out"
	bench_ready "$from" "$ws" "$bin" snapshots
	runs=$(count "$ws" runs) sigs=$(count "$ws" signatures)
	logged=$(wc -l <"$ws/.callus/log.jsonl" 2>/dev/null || echo 0)
	i=1
	while [ "$i" -le "$n" ]; do
		bench_fail_payload "$work" $((8000000 + i * 10)) "$ws" "$work/out/p$i.json" own
		i=$((i + 1))
	done
	i=1
	while [ "$i" -le "$n" ]; do
		(cd "$ws" && { "$bin" hook generic <"$work/out/p$i.json" >"$work/out/r$i.json" \
			2>"$work/out/e$i.txt"; echo $? >"$work/out/rc$i"; }) &
		i=$((i + 1))
	done
	wait
	# what was left to a drainer, recorded before counting
	(cd "$ws" && "$bin" hook --drain generic) 2>/dev/null || true
	for _ in $(seq 1 600); do
		[ -z "$(find "$ws/.callus/spool" -name '*.json' 2>/dev/null)" ] && break
		sleep 0.1
	done
	flock "$ws/.callus/spool/.drain.lock" true
	printf '## %s, %s hooks at once\n\n' "$bin" "$n"
	printf 'runs +%s, signatures +%s\n' "$(($(count "$ws" runs) - runs))" \
		"$(($(count "$ws" signatures) - sigs))"
	printf 'exit status not 0: %s; reply not JSON: %s\n' \
		"$(cat "$work"/out/rc* | grep -vc '^0$' || true)" \
		"$(for f in "$work"/out/r*.json; do jq -e type "$f" >/dev/null 2>&1 || echo x; done | wc -l)"
	printf '\nstderr:\n'
	cat "$work"/out/e*.txt | sed "s|$ws|WS|g" | sort | uniq -c | sort -rn
	printf '\nlog events (the burst'"'"'s):\n'
	tail -n +$((logged + 1)) "$ws/.callus/log.jsonl" | jq -r '.level + " " + .event' |
		sort | uniq -c | sort -rn
	printf '\n'
done
