#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus metrics: what real runs and hook calls leave in the store

Failing make checks under callus run and hook payloads fill a store; callus
metrics prints it in the Prometheus text format, which promtool check metrics
accepts, and as JSON.  A recording the fail-safe drops is counted in the
spool and folded into the store by the next recording; the log of those
events rotates by size.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# make_project DIR: a failing `make check` (TEST) and `make build`
# (ANALYSIS), which callus knows without any tool from npm.
make_project() {
	mkdir -p "$1/src" &&
	(
		cd "$1" &&
		git init -q &&
		printf "int main(void) { return 0 }\n" >src/main.c &&
		{
			printf "check:\n\t@echo \"src/main.c:1:27: error: expected ';' before '}' token\"; exit 2\n"
			printf "build:\n\t@echo \"src/util.c:3:1: error: unknown type name 'sizet'\"; exit 1\n"
		} >Makefile
	)
}

# old_log FILE BYTES: FILE filled with BYTES of an older log'"'"'s lines
old_log() {
	yes "{\"at\":\"2000-01-01T00:00:00.000Z\",\"level\":\"error\",\"event\":\"old\",\"message\":\"x\"}" |
		head -c "$2" >"$1"
}

# a_run_keeps_its_log BYTES: a store that is no database, a log of BYTES,
# then a failing run, which keeps its failure and logs it
a_run_keeps_its_log() {
	mkdir -p .callus &&
	head -c 8192 /dev/urandom >.callus/callus.db &&
	old_log .callus/log.jsonl "$1" &&
	cp .callus/log.jsonl old.jsonl &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1
}

# generic_payload COMMAND EXIT OUTPUT: callus's own hook event, here
generic_payload() {
	jq -n --arg c "$1" --argjson e "$2" --arg o "$3" --arg d "$PWD" \
		'{command: $c, exit_code: $e, output: $o, cwd: $d, session_id: "s-1"}'
}

test_expect_success 'an empty workspace: storage at 0, valid exposition' '
	mkdir empty && cd empty && git init -q &&
	"$CALLUS" metrics >out &&
	grep -q "^hindsight_storage_notes{layer=\"project\"} 0$" out &&
	! test -e .callus &&
	"$CALLUS" metrics --json | jq -e ".metrics | length > 0"
'

test_skip_unless_tool promtool
test_expect_success 'runs and hook calls fill the store; promtool accepts it' '
	make_project shop && cd shop &&
	for i in 1 2 3; do test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1; done &&
	test_expect_code 2 "$CALLUS" run -- make -s build >/dev/null 2>&1 &&
	sed "s|/home/dev/shop|$PWD|g" "$REPO/tests/hooks/fixtures/claude-code-eslint-fail.json" |
		"$CALLUS" hook claude-code >reply &&
	jq -e . reply >/dev/null &&
	generic_payload "make -s check" 2 "src/main.c:1:27: error: expected ; before }" |
		"$CALLUS" hook generic >/dev/null &&
	sed "s|/home/dev/shop|$PWD|g" "$REPO/tests/hooks/fixtures/claude-code-session-start.json" |
		"$CALLUS" hook claude-code >/dev/null &&
	"$CALLUS" metrics >metrics.prom &&
	cat metrics.prom &&
	promtool check metrics <metrics.prom &&
	lessons=$("$CALLUS" lessons --json | jq length) &&
	test "$lessons" -ge 3 &&
	grep -q "^hindsight_storage_notes{layer=\"project\"} $("$CALLUS" notes --json | jq length)$" metrics.prom &&
	grep -q "^hindsight_capture_total{error_type=\"TEST\",layer=\"project\"} 4$" metrics.prom &&
	grep -q "^hindsight_capture_total{error_type=\"ANALYSIS\",layer=\"project\"} 1$" metrics.prom &&
	grep -q "^hindsight_capture_total{error_type=\"LINT\",layer=\"project\"} 1$" metrics.prom &&
	grep -q "^hindsight_capture_signature_size_bytes_count 6$" metrics.prom &&
	grep -q "^hindsight_capture_signature_size_bytes_bucket{le=\"+Inf\"} 6$" metrics.prom &&
	grep -q "^callus_run_total{recorded=\"true\"} 4$" metrics.prom &&
	grep -q "^callus_hook_latency_seconds_count{agent=\"claude-code\",path=\"record\"} 1$" metrics.prom &&
	grep -q "^callus_hook_latency_seconds_count{agent=\"claude-code\",path=\"session_start\"} 1$" metrics.prom &&
	grep -q "^callus_hook_latency_seconds_count{agent=\"generic\",path=\"record\"} 1$" metrics.prom &&
	grep -q "^# TYPE callus_hook_latency_seconds histogram$" metrics.prom &&
	grep -q "^# HELP hindsight_capture_total .*(hindsight.capture.total)$" metrics.prom &&
	grep -q "^hindsight_match_total{match_type=\"same\",found=\"true\"} [1-9]" metrics.prom &&
	searches=$(awk "/^hindsight_match_total[{]/ { n += \$NF } END { print n }" metrics.prom) &&
	grep -q "^hindsight_match_latency_seconds_count $searches$" metrics.prom &&
	grep -q "^hindsight_match_results_count_count $searches$" metrics.prom &&
	! grep -q "hindsight_resolution\|hindsight_promotion" metrics.prom
'

test_expect_success '--json: the same values, in the spec names and units' '
	cd shop &&
	"$CALLUS" metrics --json >metrics.json &&
	jq -e "[.metrics[].name] | index(\"hindsight.match.latency_ms\") != null" metrics.json &&
	jq -e ".metrics[] | select(.name == \"hindsight.capture.total\") | .prometheus == \"hindsight_capture_total\"" metrics.json &&
	jq -e ".metrics[] | select(.name == \"callus.run.total\") | .series[0].value == 4" metrics.json &&
	jq -e ".metrics[] | select(.name == \"hindsight.match.total\") | .series | length > 0" metrics.json &&
	jq -e ".metrics[] | select(.name == \"hindsight.resolution.applications\") | .series == []" metrics.json &&
	jq -e ".metrics[] | select(.name == \"callus.hook.latency_ms\") | .series[] |
		select(.labels.path == \"record\" and .labels.agent == \"claude-code\") |
		.count == 1 and .buckets[-1].le == \"+Inf\" and .buckets[-1].count == 1 and .sum > 0" metrics.json
'

test_expect_success 'a command that is not a check leaves the store alone' '
	cd shop &&
	"$CALLUS" metrics >before &&
	sed "s|/home/dev/shop|$PWD|g" "$REPO/tests/hooks/fixtures/claude-code-ls.json" |
		"$CALLUS" hook claude-code >reply &&
	test "$(cat reply)" = "{}" &&
	"$CALLUS" metrics >after &&
	test_cmp before after
'

test_expect_success 'a drop is counted in the spool, then stored by the next recording' '
	cd shop &&
	printf "[store]\n\ttimeout_ms = 200\n" >.callus/config &&
	# another process holds the write lock for 3 s, and the queue a busy
	# store leaves a run in cannot be written: the run is lost
	{ mv .callus/spool .callus/spool.away 2>/dev/null || :; } &&
	echo "not a folder" >.callus/spool &&
	hold_store 3 &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>err &&
	grep -q "lesson not recorded" err &&
	grep -q "[^[:space:]]" .callus/metrics.pending &&
	tail -n 1 .callus/log.jsonl | jq -e ".event == \"record_failed\" and .reason == \"store_locked\" and .tool == \"make\"" &&
	wait &&
	rm .callus/spool &&
	{ test ! -e .callus/spool.away || mv .callus/spool.away .callus/spool; } &&
	"$CALLUS" metrics >pending.prom &&
	grep -q "^callus_failsafe_dropped_total{reason=\"store_locked\"} 1$" pending.prom &&
	grep -q "[^[:space:]]" .callus/metrics.pending &&
	ino=$(stat -c %i .callus/metrics.pending) &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	# emptied in place to one blank line (a file cut to nothing is
	# written out at the next close of a writer), not made again
	test "$(wc -c <.callus/metrics.pending)" = 1 &&
	test -z "$(tr -d "\n" <.callus/metrics.pending)" &&
	test "$(stat -c %i .callus/metrics.pending)" = "$ino" &&
	test "$(sqlite3 .callus/callus.db "SELECT value FROM metrics WHERE name = \"callus.failsafe.dropped_total\"")" = 1.0 &&
	"$CALLUS" metrics >stored.prom &&
	grep -q "^callus_failsafe_dropped_total{reason=\"store_locked\"} 1$" stored.prom &&
	grep -q "^callus_run_total{recorded=\"false\"} 1$" stored.prom &&
	grep -q "^callus_run_total{recorded=\"true\"} 5$" stored.prom &&
	if test_have_tool promtool; then promtool check metrics <stored.prom; fi
'

test_expect_success 'the log rotates past 1 MiB, keeping one old file' '
	make_project rotate && cd rotate &&
	a_run_keeps_its_log 1048600 &&
	test_cmp old.jsonl .callus/log.jsonl.1 &&
	# the run queued for a store that is no database, and the drainer it
	# started (in the background: its line may come before or after) kept
	# it too, each saying why
	test "$(wc -l <.callus/log.jsonl)" -le 2 &&
	jq -s -e "length >= 1 and all(.event == \"record_kept\" and .reason == \"io_error\")" \
		.callus/log.jsonl &&
	jq -s -e "any(.tool == \"make\")" .callus/log.jsonl &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	test "$(wc -l <.callus/log.jsonl)" -ge 2 &&
	test_cmp old.jsonl .callus/log.jsonl.1
'

test_expect_success 'the log rotates past [retention] log_kb, and gc holds it to twice that' '
	make_project rotate-kb && cd rotate-kb &&
	mkdir -p .callus &&
	printf "[retention]\nlog_kb = 32\n" >.callus/config &&
	a_run_keeps_its_log 40000 &&
	test_cmp old.jsonl .callus/log.jsonl.1 &&
	test "$(wc -c <.callus/log.jsonl)" -lt 2000 &&
	# a .1 past twice the size (kept when log_kb was larger) is cut by gc
	rm -rf .callus/callus.db .callus/spool &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	old_log .callus/log.jsonl.1 100000 &&
	"$CALLUS" gc >/dev/null &&
	test "$(wc -c <.callus/log.jsonl.1)" -le 32768 &&
	test "$(wc -c <.callus/log.jsonl.1)" -gt 32000 &&
	# out of range: said, and the default kept
	printf "[retention]\nlog_kb = 4\n" >.callus/config &&
	"$CALLUS" gc 2>err >/dev/null &&
	grep "retention.log_kb. must be between 16 and 16384" err
'

test_done
