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
# With KILL=1, what crashes do instead: while the hooks run, as often as
# they can be listed (a pgrep and a find: some 20 to 50 ms apart), one of
# the binary's processes (a hook, a drainer, a background pass, the
# snapshot helper beside it) is killed at random with SIGKILL, and for 2 s
# after them (the drainers they started); then what is
# left is drained by a drainer of its own, and callus doctor says what it
# finds wrong (its lines that are not ok, the notes over their threshold
# aside: the kept stores' notes pass it by design).  A killed hook's agent
# gets no reply, so its exit status is counted apart; its failure is in
# the store when it was queued before the kill.  Also printed then: the
# pending errors gained (N when every failure's learning was done) and the
# runs whose learning is still owed (0).  BURST_KEEP=1 keeps the work
# folder (its path is mktemp's, under $TMPDIR).
# Usage: bench/burst.sh WS N path/to/callus [path/to/other/callus ...]
#   e.g. bench/burst.sh /tmp/keep/ws-100000 150 /tmp/old/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/burst.sh WS N callus [callus ...]" >&2; exit 2; }
from=$1 n=$2
shift 2
[ -d "$from/.callus" ] || { echo "burst: no store at $from" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need burst jq sqlite3 flock pgrep || exit 2
bench_count burst N "$n"
case ${KILL:-0} in
0 | 1) ;;
*) echo "bench/burst.sh: KILL is 0 or 1, not '$KILL'" >&2; exit 2 ;;
esac
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-burst.XXXXXX")
trap '[ -n "${BURST_KEEP:-}" ] || rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$repo/build"

# ours: the pids of the processes running $bin or the helper beside it
# ($helper) in the copy $ws, a line each: the hooks, and what they start
# (a drainer and a background pass are named "callus ..." on their
# command line); never another workspace's, nor another binary's
ours() {
	# shellcheck disable=SC2046 # the paths, a word each
	set -- $(pgrep -f "^$bin |^callus |^$helper" | sed 's|.*|/proc/&/exe|')
	# shellcheck disable=SC2046 # the paths, a word each
	[ $# = 0 ] || set -- $(find "$@" -maxdepth 0 \( -lname "$bin" -o -lname "$helper" \) \
		2>/dev/null | sed 's|/exe$|/cwd|')
	[ $# = 0 ] ||
		find "$@" -maxdepth 0 \( -lname "$ws" -o -lname "$ws/*" \) 2>/dev/null | cut -d/ -f3
}

# any_alive PID...: whether one of them still runs
any_alive() {
	for p in "$@"; do
		! kill -0 "$p" 2>/dev/null || return 0
	done
	return 1
}

count() {
	bench_store_sql "$1/.callus/callus.db" "SELECT count(*) FROM $2"
}

for bin in "$@"; do
	bin=$(bench_exe burst "$bin") || exit 2
	ws=$work/ws
	rm -rf "$ws" "$work/out" && mkdir "$work/out"
	bench_ready "$from" "$ws" "$bin" snapshots
	runs=$(count "$ws" runs) sigs=$(count "$ws" signatures)
	pending=$(count "$ws" "pending_errors WHERE state = 'pending'")
	logged=$(wc -l <"$ws/.callus/log.jsonl" 2>/dev/null || echo 0)
	i=1
	while [ "$i" -le "$n" ]; do
		bench_fail_payload "$work" $((8000000 + i * 10)) "$ws" "$work/out/p$i.json" own
		i=$((i + 1))
	done
	i=1
	while [ "$i" -le "$n" ]; do
		# the status kept whatever it is (set -e would end the
		# subshell at a hook's failure, before it is written)
		(cd "$ws" && { st=0; "$bin" hook generic <"$work/out/p$i.json" \
			>"$work/out/r$i.json" 2>"$work/out/e$i.txt" || st=$?; echo "$st" >"$work/out/rc$i"; }) &
		pids="${pids:-} $!"
		i=$((i + 1))
	done
	killed=0
	if [ "${KILL:-0}" = 1 ]; then
		helper=$(dirname "$bin")/callus-git
		# while the hooks run, then 2 s more: the drainers they started
		until=0
		# shellcheck disable=SC2086 # $pids: the pids, a word each
		while any_alive $pids || [ "$until" = 0 ] || [ "$(date +%s)" -lt "$until" ]; do
			[ "$until" != 0 ] || any_alive $pids || until=$(($(date +%s) + 2))
			# shellcheck disable=SC2046 # the pids, a word each
			set -- $(ours)
			if [ $# -gt 0 ]; then
				shift $(($(od -An -N2 -tu2 /dev/urandom | tr -d ' ') % $#))
				! kill -9 "$1" 2>/dev/null || killed=$((killed + 1))
			fi
		done
	fi
	wait
	pids=
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
	if [ "${KILL:-0}" = 1 ]; then
		printf 'pending errors +%s; runs whose learning is still owed: %s\n' \
			"$(($(count "$ws" "pending_errors WHERE state = 'pending'") - pending))" \
			"$(count "$ws" "runs WHERE learn_owed")"
		printf 'processes killed: %s (hooks among them: %s)\n' "$killed" \
			"$(cat "$work"/out/rc* | grep -c '^137$' || true)"
		printf 'exit status neither 0 nor killed: %s\n' \
			"$(cat "$work"/out/rc* | grep -Evc '^(0|137)$' || true)"
		printf 'callus doctor, what is not ok:\n'
		bench_doctor_findings "$ws" "$bin"
	else
		printf 'exit status not 0: %s; reply not JSON: %s\n' \
			"$(cat "$work"/out/rc* | grep -vc '^0$' || true)" \
			"$(for f in "$work"/out/r*.json; do jq -e type "$f" >/dev/null 2>&1 || echo x; done | wc -l)"
	fi
	printf '\nstderr:\n'
	cat "$work"/out/e*.txt | sed "s|$ws|WS|g" | sort | uniq -c | sort -rn
	printf '\nlog events (the burst'"'"'s):\n'
	tail -n +$((logged + 1)) "$ws/.callus/log.jsonl" | jq -r '.level + " " + .event' |
		sort | uniq -c | sort -rn
	printf '\n'
done
