#!/bin/sh
# bench/history.sh - what a recording costs as one check's history grows
# (issue 14).  bench/scale.sh's checks are one a file (`gcc -c FILE`), so
# each has a short history; an agent's project-wide check (`make`, `npm
# test`) closes errors for months.  Here one such check has closed H errors
# before (for each H of HISTORIES: errors that failed for good, each in a
# file of its own, written into the store directly, of signatures long gone), then N
# failing hooks of it, each a gcc error never seen (a new signature) that
# fixes the one before: the fix (its files added to files.idx), the new
# error, the check index's question whether the next pass matters.  And N
# runs of the hook before an edit (Claude Code's PreToolUse of Edit), which
# reads .callus/files.idx: a file each closed error (H files listed).
# Snapshots off: callus's own cost.  CPU ms of the process (bench/proctime,
# from wait4): min / median / max.  A flat row is the goal.
# Usage: bench/history.sh [N] [HISTORIES] [path/to/callus]
#        (default: 21 "0 1000 10000" build/callus)
#   CALLUS_HISTORY_BASE=path/to/other/callus times that binary too, in a
#   workspace of its own grown the same way, one run of each in turn, and
#   the row gives "base -> this" medians.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-21}
histories=${2:-0 1000 10000}
callus=${3:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe history "$callus") || exit 2
base=${CALLUS_HISTORY_BASE:-}
[ -z "$base" ] || base=$(bench_exe history "$base") || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-history.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$repo/build"

# payload FILE K CWD: a generic hook payload of `make` printing gcc error K
payload() {
	"$work/scale_gen" -p "$2" >"$work/out.txt"
	jq -n --rawfile o "$work/out.txt" --arg cwd "$3" \
		'{command: "make", exit_code: 1, output: $o, cwd: $cwd}' >"$1"
}

# grow BIN WS H: a workspace whose check `make` has closed H errors and
# has one open (the one the first timed hook fixes)
grow() {
	mkdir -p "$2/.callus"
	printf '[retention]\ngc_hours = 0\n[learn]\nsnapshots = false\n' >"$2/.callus/config"
	payload "$work/first.json" 1 "$2"
	(cd "$2" && "$1" hook generic <"$work/first.json" >/dev/null)
	# each error with a signature of its own (an error's rows go with its
	# signature), not queued for the vector file (old errors were indexed)
	sqlite3 "$2/.callus/callus.db" "
		WITH RECURSIVE k(i) AS (SELECT 1 WHERE $3 > 0 UNION ALL SELECT i + 1 FROM k WHERE i < $3)
		INSERT INTO signatures (sig, id, error_type, message_pattern, original, tool,
		                        first_seen, last_seen)
		SELECT 1000000000 + i, printf('%064x', 1000000000 + i), 'error', 'old error ' || i,
		       'old error ' || i, 'gcc', unixepoch('2026-01-01'), unixepoch('2026-01-01')
		FROM k;
		DELETE FROM signatures_unindexed;
		WITH RECURSIVE k(i) AS (SELECT 1 WHERE $3 > 0 UNION ALL SELECT i + 1 FROM k WHERE i < $3)
		INSERT INTO pending_errors (check_id, sig, first_failure_at, last_failure_at, files)
		SELECT c.id, 1000000000 + i, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z',
		       '[\"src/h' || i || '.c\"]'
		FROM k, (SELECT id FROM checks WHERE tool = 'make') c;
		UPDATE pending_errors SET state = 'permanent',
		       closed_at = '2026-01-02T00:00:00Z', closed_run = 1
		WHERE sig > 1000000000 AND state = 'pending';
		PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
	# the file index made again from the store, by a hook before an edit
	rm -f "$2/.callus/files.idx"
	edit "$work/edit.json" "$2"
	(cd "$2" && "$1" hook claude-code <"$work/edit.json" >/dev/null)
}

# edit FILE CWD: Claude Code's PreToolUse of Edit on a file callus knows
# nothing of
edit() {
	jq --arg cwd "$2" --arg f "$2/src/new.c" '.cwd = $cwd | .tool_input.file_path = $f' \
		"$repo/tests/hooks/fixtures/real/claude-code-edit.json" >"$1"
}

echo "| closed errors behind the check | failing hook (a new error fixing the last) | hook before an edit |"
echo "|---:|---:|---:|"
for h in $histories; do
	ws=$work/ws-$h bws=$work/base-$h
	grow "$callus" "$ws" "$h"
	[ -z "$base" ] || grow "$base" "$bws" "$h"
	# the two binaries copied together now (bench_fresh, bench/tools.sh)
	run=$(bench_fresh "$work/bin-this" "$callus")
	[ -z "$base" ] || run_base=$(bench_fresh "$work/bin-base" "$base")
	: >"$work/a"
	: >"$work/b"
	i=0
	while [ "$i" -lt "$n" ]; do
		payload "$work/p.json" $((100 + i)) "$ws"
		(cd "$ws" && "$work/proctime" 1 "$work/p.json" "$run" hook generic |
			cut -d' ' -f1) >>"$work/a"
		if [ -n "$base" ]; then
			payload "$work/p.json" $((100 + i)) "$bws"
			(cd "$bws" && "$work/proctime" 1 "$work/p.json" "$run_base" hook generic |
				cut -d' ' -f1) >>"$work/b"
		fi
		i=$((i + 1))
	done
	: >"$work/ea"
	: >"$work/eb"
	edit "$work/e.json" "$ws"
	[ -z "$base" ] || edit "$work/be.json" "$bws"
	i=0
	while [ "$i" -lt "$n" ]; do
		(cd "$ws" && "$work/proctime" 1 "$work/e.json" "$run" hook claude-code |
			cut -d' ' -f1) >>"$work/ea"
		if [ -n "$base" ]; then
			(cd "$bws" && "$work/proctime" 1 "$work/be.json" "$run_base" hook claude-code |
				cut -d' ' -f1) >>"$work/eb"
		fi
		i=$((i + 1))
	done
	if [ -n "$base" ]; then
		echo "| $h | $(bench_range "$work/b") → $(bench_range "$work/a") | $(bench_range "$work/eb") → $(bench_range "$work/ea") |"
	else
		echo "| $h | $(bench_range "$work/a") | $(bench_range "$work/ea") |"
	fi
done
