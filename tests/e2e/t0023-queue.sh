#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
# e2e: alone (tests/e2e/run.sh).  Its holds of the store and of the queue
# last until the test lets go, so that a slow hook does not outlive them;
# but its hooks still have their own deadlines and the snapshot helper's
# timeout: beside another script under the sanitizers, a busy store's
# queued failure lost its snapshot (one run in eight), and its fix with it
test_description='the hook queue piece by piece (issue 16)

What the burst of t0022 leaves to the queue, one case at a time: a hook cut
by its deadline before it has its event, a failure delivered twice, what a
drainer does with a queued, a torn and a live entry, a busy store, a slow
snapshot helper, and the order in which queued failures and passes of one
check are learnt.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

test_skip_unless_tool jq git

# occurrences: the lesson's occurrences, 0 before there is one
occurrences() {
	"$CALLUS" lessons --json 2>/dev/null | jq "[.[].occurrences] | add // 0"
}

# payload_for CWD [FILE [STATUS]]: the generic hook event of `gcc -c FILE`
# (main.c) run in CWD (""; none), failing with FILE's error (STATUS 1, the
# default) or passing (0)
payload_for() {
	jq -n --arg cwd "$1" --arg f "${2:-main.c}" --argjson x "${3:-1}" \
		'{command: "gcc -c \($f)", exit_code: $x, session_id: "s",
		  output: (if $x == 0 then "" else "\($f):1:5: error: expected identifier or (" end)}
		 + (if $cwd == "" then {} else {cwd: $cwd} end)'
}

# wait_lessons N: until the store holds N lessons (a hook in the
# background has committed its failure), ten seconds at most
wait_lessons() {
	for _ in $(seq 1 200); do
		test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM lessons")" = "$1" && return 0
		sleep 0.05
	done
}

# slow_helper: ../slow-helper, a snapshot helper that never answers (it
# sleeps 30 s), its pid added to ../helpers for end_helpers
slow_helper() {
	printf "#!/bin/sh\necho \$\$ >>\"%s/helpers\"\nexec sleep 30\n" "$(cd .. && pwd)" \
		>../slow-helper &&
	chmod +x ../slow-helper
}

# end_helpers: the slow helpers started so far ended, ../helpers emptied
end_helpers() {
	# shellcheck disable=SC2046 # one pid a word
	[ ! -s ../helpers ] || kill $(cat ../helpers) 2>/dev/null
	: >../helpers
}

# hold_store [SECONDS]: the store's write lock held, as another process's
# long transaction, for SECONDS, else until release_store (at most a
# minute): run it in the background, then store_held.  Held until
# released, a test's window does not depend on how fast a loaded machine
# runs the hooks inside it.
# shellcheck disable=SC2120 # SECONDS is passed in the test bodies
hold_store() {
	rm -f "../release-store.${PWD##*/}"
	# waits for a hook that holds the lock, and stops, not saying it
	# holds what it does not, when it cannot take it
	{
		echo ".timeout 10000"
		echo ".bail on"
		echo "BEGIN IMMEDIATE;"
		echo ".system touch ../held-store.${PWD##*/}"
		if [ -n "${1:-}" ]; then
			sleep "$1"
		else
			until_released "../release-store.${PWD##*/}" || echo ".exit 1"
		fi
		echo "COMMIT;"
	} | sqlite3 .callus/callus.db
}

# hold_queue: the queue's drain lock held, as by another drainer, until
# release_queue (at most a minute): run it in the background, then
# queue_held
hold_queue() {
	rm -f "../release-queue.${PWD##*/}"
	# shellcheck disable=SC2016 # the script's own arguments
	flock .callus/spool/.drain.lock bash -c 'touch "$1" &&
		for _ in $(seq 1 1200); do [ ! -e "$2" ] || exit 0; sleep 0.05; done; exit 1' - \
		"../held-queue.${PWD##*/}" "../release-queue.${PWD##*/}"
}

# until_released FILE: sleeps until FILE is there, a minute at most (then
# fails: release_* says so)
until_released() {
	for _ in $(seq 1 1200); do
		[ ! -e "$1" ] || return 0
		sleep 0.05
	done
	return 1
}

# held WHAT: waits for hold_WHAT (store, queue) to hold its lock: on a
# loaded machine (a script beside this one, the sanitizers) it may take
# longer to start than a fixed sleep would guess
held() {
	for _ in $(seq 1 200); do
		if [ -e "../held-$1.${PWD##*/}" ]; then
			rm -f "../held-$1.${PWD##*/}"
			return 0
		fi
		sleep 0.05
	done
	echo "hold_$1 never held its lock"
	return 1
}
store_held() { held store; }
queue_held() { held queue; }

# hold_both: hold_queue, then hold_store, each held once it returns: their
# pids in $holder and $lock, for release_queue and release_store
# shellcheck disable=SC2034,SC2119 # the test bodies, strings, use them
hold_both() {
	hold_queue &
	holder=$!
	queue_held || return 1
	hold_store &
	lock=$!
	store_held
}

# release_store PID, release_queue PID: the hold in the background (PID)
# lets go, and has ended
release_store() {
	touch "../release-store.${PWD##*/}" && wait "$1"
}
release_queue() {
	touch "../release-queue.${PWD##*/}" && wait "$1"
}

# cut_count STAGE: the hook cuts counted at STAGE, 0 when none
cut_count() {
	"$CALLUS" metrics --json |
		jq "[.metrics[] | select(.name == \"callus.hook.cut_total\") | .series[]? |
		     select(.labels.stage == \"$1\") | .value] | add // 0"
}

test_expect_success 'a hook whose event comes after its deadline replies, then records it detached' '
	mkdir late && cd late && git init -q && payload_for "$PWD" >payload &&
	# the agent is slow to write: the alarm comes while the hook reads
	{ sleep 7; cat payload; } | "$CALLUS" hook generic >reply 2>err &&
	jq -e "type == \"object\"" reply >/dev/null &&
	for _ in $(seq 1 120); do
		test "$(occurrences)" -ge 1 && grep -q "\"hook_cut\"" .callus/log.jsonl && break
		sleep 0.5
	done &&
	test "$(occurrences)" = 1 &&
	grep "\"hook_cut\"" .callus/log.jsonl | grep -q "\"stage\":\"reading\"" &&
	test "$(cut_count reading)" = 1
'

test_expect_success 'a failure delivered twice is stored once' '
	cd late &&
	origin=$(sqlite3 .callus/callus.db "SELECT origin FROM runs WHERE origin IS NOT NULL") &&
	test -n "$origin" &&
	# as if the hook had been cut between its commit and the queue clean-up
	cp payload ".callus/spool/$origin.left.json" &&
	"$CALLUS" hook --drain generic &&
	test "$(occurrences)" = 1 &&
	test ! -e ".callus/spool/$origin.left.json"
'

test_expect_success 'a drainer records a queued and a cut entry, drops a torn one, leaves a live one' '
	cd late &&
	# the live entry is this shell, as a hook still recording it
	payload_for "$PWD" >.callus/spool/0000000000000000001-1.left.json &&
	printf "{\"command\": \"gcc -c ma" >.callus/spool/0000000000000000002-2.left.json &&
	payload_for "$PWD" >".callus/spool/0000000000000000003-$$.json" &&
	payload_for "$PWD" >.callus/spool/0000000000000000004-4.cut.json &&
	# entries never named: a dead hook'"'"'s goes (nothing of it was
	# recorded, it never answered), a live one'"'"'s stays
	payload_for "$PWD" >.callus/spool/0000000000000000005-999999.json.tmp &&
	payload_for "$PWD" >".callus/spool/0000000000000000006-$$.json.tmp" &&
	"$CALLUS" hook --drain generic &&
	test "$(cd .callus/spool && echo *.json)" = "0000000000000000003-$$.json" &&
	test "$(cd .callus/spool && echo *.tmp)" = "0000000000000000006-$$.json.tmp" &&
	test "$(occurrences)" = 3 &&
	test "$(cut_count recording)" = 1 &&
	grep "\"hook_cut\"" .callus/log.jsonl | grep -q "\"stage\":\"recording\"" &&
	# a run lost: an error for callus doctor to count
	grep "\"spool_unreadable\"" .callus/log.jsonl | jq -e ".level == \"error\"" &&
	grep "\"spool_drained\"" .callus/log.jsonl | tail -n 1 | grep -q "\"count\":\"2\""
'

test_expect_success 'a drainer that cannot write the store keeps the queued failures for the next' '
	mkdir full && cd full && git init -q &&
	payload_for "$PWD" f0.c | "$CALLUS" hook generic >/dev/null &&
	test "$(occurrences)" = 1 &&
	payload_for "$PWD" f1.c >.callus/spool/0000000000000000001-1.left.json &&
	payload_for "$PWD" f2.c >.callus/spool/0000000000000000002-2.cut.json &&
	# a file size limit: each write past 1 KiB fails, as on a full disk
	( ulimit -f 1 && "$CALLUS" hook --drain generic ) &&
	test -e .callus/spool/0000000000000000001-1.left.json &&
	test -e .callus/spool/0000000000000000002-2.cut.json &&
	test "$(occurrences)" = 1 &&
	"$CALLUS" hook --drain generic &&
	test "$(occurrences)" = 3 &&
	test "$(cd .callus/spool && echo *.json)" = "*.json" &&
	test "$(cut_count recording)" = 1
'

test_expect_success 'a hook whose store cannot be opened keeps its failure queued for the next drainer' '
	mkdir unread && cd unread && git init -q &&
	payload_for "$PWD" f0.c | "$CALLUS" hook generic >/dev/null &&
	test "$(occurrences)" = 1 &&
	sqlite3 .callus/callus.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	mv .callus/callus.db ../unread.db && echo garbage >.callus/callus.db &&
	payload_for "$PWD" f1.c | "$CALLUS" hook generic >reply 2>/dev/null &&
	jq -e . reply >/dev/null &&
	# queued (its detached drainer, failing as it did, keeps it too)
	ls .callus/spool/*.json >/dev/null &&
	mv ../unread.db .callus/callus.db &&
	for _ in $(seq 1 100); do
		"$CALLUS" hook --drain generic 2>/dev/null
		test "$(occurrences)" = 2 && break
		sleep 0.05
	done &&
	test "$(occurrences)" = 2 &&
	test "$(cd .callus/spool && echo *.json)" = "*.json"
'

test_expect_success 'counts left pending are taken once the store is ours: a process killed waiting for it keeps them' '
	mkdir waiting && cd waiting && git init -q &&
	payload_for "$PWD" f0.c | "$CALLUS" hook generic >/dev/null &&
	printf "[store]\n\ttimeout_ms = 60000\n" >.callus/config &&
	jq -n -c "[[\"callus.hook.cut_total\", ({stage: \"recording\"} | tojson), \"\", 1, false]]" \
		>.callus/metrics.pending &&
	test "$(cut_count recording)" = 1 &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	payload_for "$PWD" f1.c >.callus/spool/0000000000000000001-1.left.json &&
	{ "$CALLUS" hook --drain generic & } &&
	drainer=$! &&
	# the drainer waits for the store (a minute at most): killed there,
	# as a hook at its deadline is
	sleep 2 &&
	grep -q "[^[:space:]]" .callus/metrics.pending &&
	kill -9 "$drainer" && { wait "$drainer" || :; } &&
	release_store "$lock" &&
	test "$(cut_count recording)" = 1 &&
	"$CALLUS" hook --drain generic &&
	test "$(occurrences)" = 2 &&
	test "$(cut_count recording)" = 1
'

test_expect_success 'a queue folder that cannot be written: its entry recorded once, its cut counted once' '
	mkdir ro && cd ro && git init -q &&
	payload_for "$PWD" f0.c | "$CALLUS" hook generic >/dev/null &&
	payload_for "$PWD" f1.c >.callus/spool/0000000000000000001-1.cut.json &&
	touch .callus/spool/.drain.lock &&
	chown -R nobody: . && chmod 555 .callus/spool &&
	# (root writes through any mode: the drainer runs as nobody, who may
	# pass through the test'"'"'s folders for this test)
	chmod o+x "$TEST_ROOT" "$TRASH_DIRECTORY" &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$CALLUS" hook --drain generic &&
	test "$(occurrences)" = 2 &&
	test -e .callus/spool/0000000000000000001-1.cut.json &&
	test "$(( $(cut_count recording) + $(cut_count learning) ))" -le 1 &&
	test_expect_code 1 setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$CALLUS" doctor >doc &&
	grep -q "^problem  spool      .callus/spool cannot be written by this user (Permission denied)" doc &&
	chmod 755 .callus/spool &&
	setpriv --reuid=nobody --regid=nogroup --clear-groups "$CALLUS" hook --drain generic &&
	test ! -e .callus/spool/0000000000000000001-1.cut.json &&
	test "$(occurrences)" = 2 &&
	test "$(( $(cut_count recording) + $(cut_count learning) ))" = 1 &&
	chmod o-x "$TEST_ROOT" "$TRASH_DIRECTORY"
'

test_expect_success 'a drained failure is recorded in the folder its hook ran in' '
	mkdir nested && cd nested && git init -q && mkdir sub && printf "int 1x;\n" >sub/f1.c &&
	mkdir -m 700 .callus .callus/spool &&
	payload_for "$PWD/sub" f1.c >.callus/spool/0000000000000000007-7.left.json &&
	"$CALLUS" hook --drain generic &&
	"$CALLUS" lessons --json >lessons.json &&
	test "$(jq -r ".[0].file" lessons.json)" = sub/f1.c &&
	test "$(jq length lessons.json)" = 1
'

test_expect_success 'a snapshot helper slower than the deadline does not cost a failure its pending error' '
	mkdir slow && cd slow && git init -q && printf "int 1x;\n" >main.c &&
	mkdir -m 700 .callus &&
	printf "[learn]\nsnapshot_timeout_ms = 20000\n" >.callus/config &&
	slow_helper &&
	payload_for "$PWD" main.c >../slow.json &&
	start=$(date +%s%N) &&
	CALLUS_GIT_HELPER="$PWD/../slow-helper" "$CALLUS" hook generic <../slow.json >reply &&
	took=$(( ($(date +%s%N) - start) / 1000000 )) &&
	test_info "the hook took $took ms" &&
	jq -e "type == \"object\"" reply &&
	test "$("$CALLUS" lessons --json | jq length)" = 1 &&
	"$CALLUS" pending --json >pending.json &&
	test "$(jq length pending.json)" = 1 &&
	! grep -q "\"hook_cut\"" .callus/log.jsonl &&
	grep -q "\"snapshot_failed\"" .callus/log.jsonl
'

test_expect_success 'a hook cut after its failure is stored, while learning: logged, counted, and learnt by its drainer' '
	cd slow &&
	: >.callus/log.jsonl &&
	printf "int 2y;\n" >other.c && printf "int 3z;\n" >third.c &&
	payload_for "$PWD" other.c >../cut.json &&
	payload_for "$PWD" third.c >../third.json &&
	# the failure is committed at once; learning waits for the helper
	{ CALLUS_GIT_HELPER="$PWD/../slow-helper" "$CALLUS" hook generic <../cut.json >reply & } &&
	hook=$! &&
	wait_lessons 2 &&
	# a store busy until the other hook has ended, and that hook, which the
	# busy store queues: its entry takes the workspace'"'"'s spare
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	{ "$CALLUS" hook generic <../third.json >reply3 2>/dev/null & } &&
	other=$! &&
	# the other hook has its entry, and waits for the store
	for _ in $(seq 1 200); do
		test -n "$(find .callus/spool -name "*-$other.json")" && break
		sleep 0.05
	done &&
	# the drainer the cut starts reads this: its own wait for the slow
	# helper need not be the twenty seconds the hook was cut in
	printf "[learn]\nsnapshot_timeout_ms = 1000\n" >.callus/config &&
	# the deadline, early: as the alarm comes while learning waits
	kill -ALRM $hook &&
	wait $hook && jq -e "type == \"object\"" reply &&
	wait $other && release_store $lock &&
	for _ in $(seq 1 60); do
		grep "\"hook_cut\"" .callus/log.jsonl | grep -q "\"stage\":\"learning\"" &&
			test "$("$CALLUS" lessons --json | jq length)" = 3 && break
		sleep 0.5
	done &&
	grep "\"hook_cut\"" .callus/log.jsonl | grep -q "\"stage\":\"learning\"" &&
	test "$(cut_count learning)" = 1 &&
	test "$("$CALLUS" lessons --json | jq length)" = 3 &&
	test -z "$(find .callus/spool -name "*.json")" &&
	# what the cut hook had not learnt, its drainer did: the error is pending
	"$CALLUS" pending --json | jq -e "any(.[]; .args == \"-c other.c\")"
'

test_expect_success 'a hook cut with nothing queued (its queue cannot be written) still logs and counts the cut' '
	mkdir unq && cd unq && git init -q && printf "int 1x;\n" >main.c && printf "int 2y;\n" >b.c &&
	mkdir -m 700 .callus &&
	printf "[learn]\nsnapshot_timeout_ms = 20000\n" >.callus/config &&
	# a file where the queue'"'"'s folder goes: no entry can be written
	: >.callus/spool &&
	slow_helper &&
	payload_for "$PWD" main.c >../unq.json &&
	payload_for "$PWD" b.c >../unq-b.json &&
	# not cut: recorded and learnt without a queue, and no cut said
	"$CALLUS" hook generic <../unq-b.json >reply &&
	jq -e "type == \"object\"" reply &&
	test "$("$CALLUS" lessons --json | jq length)" = 1 &&
	! grep -q "\"hook_cut\"" .callus/log.jsonl &&
	test "$(cut_count unqueued)" = 0 &&
	{ CALLUS_GIT_HELPER="$PWD/../slow-helper" "$CALLUS" hook generic <../unq.json >reply & } &&
	hook=$! &&
	wait_lessons 2 &&
	# the deadline, early: as the alarm comes while learning waits
	kill -ALRM $hook &&
	wait $hook && jq -e "type == \"object\"" reply &&
	end_helpers &&
	grep "\"hook_cut\"" .callus/log.jsonl >cut.jsonl &&
	test "$(wc -l <cut.jsonl)" = 1 &&
	jq -e ".level == \"warn\" and .stage == \"unqueued\" and (.message | test(\"nothing queued\"))" cut.jsonl &&
	# dated as callus_log_event dates a line, now
	jq -e ".at | test(\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$\")" cut.jsonl &&
	at=$(jq -r ".at | sub(\"[.][0-9]+Z$\"; \"Z\") | fromdateiso8601" cut.jsonl) &&
	now=$(date +%s) &&
	test $((now - at)) -ge 0 && test $((now - at)) -lt 120 &&
	test "$(cut_count unqueued)" = 1 &&
	# the count is kept by the next command that writes the store
	grep -q "cut_total" .callus/metrics.pending &&
	"$CALLUS" hook generic <../unq-b.json >reply &&
	! grep -q "cut_total" .callus/metrics.pending &&
	test "$(sqlite3 .callus/callus.db "SELECT value FROM metrics
		WHERE name = '"'"'callus.hook.cut_total'"'"'")" = 1.0 &&
	test "$(cut_count unqueued)" = 1
'

test_expect_success 'a pass waits for a drainer that holds the queue, and fixes the failure queued' '
	mkdir passing && cd passing && git init -q && printf "int 1x;\n" >f1.c &&
	mkdir -m 700 .callus .callus/spool &&
	payload_for "$PWD" f1.c >.callus/spool/0000000000000000008-8.left.json &&
	payload_for "$PWD" f1.c 0 >../pass.json &&
	# another drainer, as far as the queue can tell, for a second
	{ flock .callus/spool/.drain.lock sleep 0.6 & } &&
	holder=$! &&
	sleep 0.3 &&
	printf "int x;\n" >f1.c &&
	"$CALLUS" hook generic <../pass.json >reply &&
	wait $holder &&
	jq -e "type == \"object\"" reply &&
	test "$("$CALLUS" lessons --json | jq length)" = 1 &&
	"$CALLUS" pending --json >pending.json &&
	test "$(jq length pending.json)" = 0 &&
	test "$(sqlite3 .callus/callus.db "SELECT group_concat(state) FROM pending_errors")" = fixed &&
	test -z "$(find .callus/spool -name "*.json")"
'

test_expect_success 'callus doctor reports failures still queued, and --fix has them recorded' '
	mkdir queued && cd queued && git init -q && printf "int 1x;\n" >f1.c &&
	mkdir -m 700 .callus .callus/spool &&
	payload_for "$PWD" f1.c >.callus/spool/0000000000000000009-9.left.json &&
	test_expect_code 1 "$CALLUS" doctor >out 2>&1 &&
	grep "spool" out | grep -q "not recorded yet" &&
	"$CALLUS" doctor --fix >out 2>&1 || true &&
	grep "spool" out | grep -q "a drainer was started" &&
	# the drainer records the lesson, then removes the entry once its
	# learning is done: both waited for
	for _ in $(seq 1 40); do
		test "$("$CALLUS" lessons --json | jq length)" = 1 &&
			test -z "$(find .callus/spool -name "*.json")" && break
		sleep 0.25
	done &&
	test "$("$CALLUS" lessons --json | jq length)" = 1 &&
	test -z "$(find .callus/spool -name "*.json")"
'

test_expect_success 'a failure queued from a subfolder, with no cwd in its event, is drained there' '
	cd nested &&
	printf "int 4w;\n" >sub/f4.c &&
	payload_for "" f4.c >../nocwd.json &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	(cd sub && "$CALLUS" hook generic <../../nocwd.json >/dev/null 2>&1) &&
	left=$(find .callus/spool -name "*.left.json") &&
	test -n "$left" &&
	test "$(jq -r .cwd "$left")" = "$(cd sub && pwd -P)" &&
	release_store $lock &&
	# the drainer the hook started, or this one
	"$CALLUS" hook --drain generic &&
	for _ in $(seq 1 40); do
		"$CALLUS" lessons --json | jq -e "[.[].file] | index(\"sub/f4.c\")" >/dev/null && break
		sleep 0.25
	done &&
	"$CALLUS" lessons --json | jq -e "[.[].file] | index(\"sub/f4.c\")"
'

test_expect_success 'a run queued once is logged queued once, a drainer that finds the store busy says so apart' '
	mkdir busyagain && cd busyagain && git init -q && printf "int 5v;\n" >f5.c &&
	payload_for "$PWD" f5.c | "$CALLUS" hook generic >/dev/null &&
	printf "int 6u;\n" >f6.c &&
	printf "[store]\n\ttimeout_ms = 300\n" >.callus/config &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	payload_for "$PWD" f6.c | "$CALLUS" hook generic >/dev/null 2>&1 &&
	test -n "$(find .callus/spool -name "*.left.json")" &&
	# the drainer the hook started finds the store busy too
	for _ in $(seq 1 100); do
		jq -s -e "any(.[]; .event == \"queue_busy\")" .callus/log.jsonl >/dev/null && break
		sleep 0.1
	done &&
	jq -s -e "any(.[]; .event == \"queue_busy\" and .run == \"failure\")" .callus/log.jsonl &&
	test "$(jq -s "[.[] | select(.event == \"record_queued\")] | length" .callus/log.jsonl)" = 1 &&
	release_store $lock &&
	for _ in $(seq 1 100); do
		test -z "$(find .callus/spool -name "*.json")" && break
		"$CALLUS" hook --drain generic 2>/dev/null
		sleep 0.1
	done &&
	test -z "$(find .callus/spool -name "*.json")" &&
	test "$(jq -s "[.[] | select(.event == \"record_queued\")] | length" .callus/log.jsonl)" = 1
'

test_expect_success 'with no queue to leave it in, a hook waits longer for a busy store' '
	mkdir noqueue && cd noqueue && git init -q && printf "int 1x;\n" >f1.c &&
	payload_for "$PWD" f1.c >../nq1.json &&
	printf "int 2x;\n" >f2.c &&
	payload_for "$PWD" f2.c >../nq2.json &&
	"$CALLUS" hook generic <../nq1.json >/dev/null 2>&1 &&
	rm -rf .callus/spool && : >.callus/spool &&
	{ hold_store 2.6 & } &&
	lock=$! &&
	store_held &&
	"$CALLUS" hook generic <../nq2.json >reply 2>err &&
	wait $lock &&
	jq -e "type == \"object\"" reply &&
	test "$("$CALLUS" lessons --json | jq length)" = 2 &&
	! grep -q "\"store_locked\"" .callus/log.jsonl &&
	# callus doctor names the file for what it is, not as a folder of
	# another user
	test_expect_code 1 "$CALLUS" doctor >doc &&
	grep -q "^problem  spool      .callus/spool is no folder" doc &&
	! grep -q "cannot be written by this user" doc
'

# checks_runs: the runs the store counts of the workspace's one check
checks_runs() {
	sqlite3 .callus/callus.db "SELECT runs FROM checks"
}

# eventually CMD...: CMD succeeds within 15 s (a drainer works in the
# background), its last try's status
eventually() {
	for _ in $(seq 1 60); do
		"$@" && return 0
		sleep 0.25
	done
	"$@"
}

# drain_all: the queue drained, all of it and learnt: by this drainer, or
# by one a hook started that has the lock (it turns this one away), within
# eventually's 15 s
drain_all() {
	"$CALLUS" hook --drain generic &&
	eventually eval "test -z \"\$(find .callus/spool -name \"*.json\")\"" &&
	# a failure's entry goes when its lesson is committed; its learning
	# after, still under the drainer's lock
	flock .callus/spool/.drain.lock true
}

# idle_here: no callus process works in this folder any more (the drainer
# a queued hook started, turned away by a held queue, or still to be), 15 s
# at most
idle_here() {
	local here p busy
	here=$(pwd -P)
	for _ in $(seq 1 300); do
		busy=
		for p in $(pgrep -x callus); do
			[ "$(readlink "/proc/$p/cwd" 2>/dev/null)" != "$here" ] || busy=1
		done
		[ -n "$busy" ] || return 0
		sleep 0.05
	done
	echo "callus still works in $here"
	return 1
}

# none_pending [FILE]: no error is pending (naming FILE, when given)
none_pending() {
	"$CALLUS" pending --json |
		jq -e --arg f "${1:-}" "map(select(\$f == \"\" or (.files | index(\$f)))) | length == 0" \
			>/dev/null
}

# fixed_count: the errors closed as fixed
fixed_count() {
	sqlite3 .callus/callus.db "SELECT count(*) FROM pending_errors WHERE state = 'fixed'"
}

# slow_once_helper: a snapshot helper (../slow-once-helper) that never
# answers its first request (../slow-once made then; its pid in ../helpers,
# for end_helpers) and is the real one after, for a hook cut while it
# waits and the drainer its cut starts
slow_once_helper() {
	rm -rf ../slow-once &&
	printf "#!/bin/sh\nmkdir \"%s/slow-once\" 2>/dev/null && echo \$\$ >>\"%s/helpers\" && exec sleep 30\nexec \"%s\" \"\$@\"\n" \
		"$PWD/.." "$PWD/.." "$(dirname "$CALLUS")/callus-git" >../slow-once-helper &&
	chmod +x ../slow-once-helper
}

# cut_waiting HOOK: the hook (a pid) cut by its alarm once it waits for the
# slow helper's snapshot.  Waited for up to 10 s, or until the hook has
# ended: on a loaded machine the hook came to the helper after the 4 s this
# used to wait (the alarm then cut it at another step); its own deadline,
# 5 s from its start, cuts it anyway by then.
cut_waiting() {
	for _ in $(seq 1 100); do
		test -d ../slow-once && break
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done &&
	kill -ALRM "$1" &&
	wait "$1"
}

test_expect_success 'a pass kept waiting by a busy store is queued with its fix, learnt as it was when it passed' '
	mkdir qpass && cd qpass && git init -q && printf "int 1x;\n" >f1.c &&
	payload_for "$PWD" f1.c >../qf.json &&
	payload_for "$PWD" f1.c 0 | jq ".output = \"compiled 1 file\"" >../qp.json &&
	"$CALLUS" hook generic <../qf.json >/dev/null 2>&1 &&
	test "$("$CALLUS" pending --json | jq length)" = 1 &&
	printf "int x;\n" >f1.c &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	# the replies outside the workspace: files the pass would take for
	# part of its fix
	"$CALLUS" hook generic <../qp.json >../qreply 2>../qerr &&
	jq -e "type == \"object\"" ../qreply &&
	entry=$(find .callus/spool -name "*.left.json") &&
	test -n "$entry" &&
	# a pass queued: its command and status, not its output, and the fix
	# it found
	test "$(jq -c "[.exit_code, .output]" "$entry")" = "[0,\"\"]" &&
	jq -e ".fixes | length == 1 and (.[0][1] | test(\"[+]int x;\"))" "$entry" &&
	grep -q "fix queued" ../qerr &&
	# the agent goes on while the pass waits in the queue: the fixed file
	# edited again, another made; the fix is the one the pass found
	sleep 0.05 && printf "int x;\nint z;\n" >f1.c && printf "int y;\n" >next.c &&
	release_store $lock &&
	eventually none_pending &&
	"$CALLUS" resolutions --json >../res.json &&
	test "$(jq -c "[.[].files]" ../res.json)" = "[[\"f1.c\"]]" &&
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions" >../fix.diff &&
	grep -q "^+int x;" ../fix.diff &&
	! grep -q "int z" ../fix.diff &&
	test -z "$(find .callus/spool -name "*.json")" &&
	! grep -q "\"learn_failed\"" .callus/log.jsonl
'

test_expect_success 'a failure and its pass, both queued, are drained in order: the fix is learnt' '
	mkdir bothq && cd bothq && git init -q && printf "int 1x;\n" >f1.c &&
	payload_for "$PWD" f9.c >../b9.json &&
	printf "int 9x;\n" >f9.c &&
	"$CALLUS" hook generic <../b9.json >/dev/null 2>&1 &&
	now=$(date +%s%N) &&
	payload_for "$PWD" f1.c >".callus/spool/$((now - 3000000000))-11.left.json" &&
	payload_for "$PWD" f1.c 0 >".callus/spool/$((now - 2000000000))-12.left.json" &&
	"$CALLUS" hook --drain generic &&
	test -z "$(find .callus/spool -name "*.json")" &&
	none_pending f1.c &&
	test "$(fixed_count)" = 1 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM checks WHERE args = '"'"'-c f1.c'"'"' AND last_pass_at IS NOT NULL")" = 1
'

test_expect_success 'a pass queued after the clock was set back is drained after the failure it fixes' '
	mkdir clockq && cd clockq && git init -q && printf "int 1x;\n" >f1.c &&
	payload_for "$PWD" f9.c >../k9.json &&
	printf "int 9x;\n" >f9.c &&
	"$CALLUS" hook generic <../k9.json >/dev/null 2>&1 &&
	# the failure queued an hour ago by the clock then, which has since
	# been set back an hour: its name is ahead of the clock now
	ahead=$(( $(date +%s%N) + 3600000000000 )) &&
	payload_for "$PWD" f1.c >".callus/spool/$ahead-11.left.json" &&
	printf "int x;\n" >f1.c &&
	payload_for "$PWD" f1.c 0 >../k1.json &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	"$CALLUS" hook generic <../k1.json >/dev/null 2>&1 &&
	pass=$(find .callus/spool -name "*.json" ! -name "$ahead-11.left.json") &&
	test -n "$pass" &&
	test "${pass##*/}" \> "$ahead-11.left.json" &&
	release_store $lock &&
	drain_all &&
	none_pending f1.c &&
	test "$(fixed_count)" = 1
'

test_expect_success 'a failure a busy store queued keeps its snapshot: its fix, made before the drain, is learnt' '
	mkdir keepsnap && cd keepsnap && git init -q && printf "int 1x;\n" >f1.c && printf "int 9x;\n" >f9.c &&
	payload_for "$PWD" f9.c >../k9.json &&
	payload_for "$PWD" f1.c >../kf.json &&
	payload_for "$PWD" f1.c 0 >../kp.json &&
	"$CALLUS" hook generic <../k9.json >/dev/null 2>&1 &&
	# no drainer gets to the failure before its fix is made
	hold_both &&
	"$CALLUS" hook generic <../kf.json >../kreply 2>../kerr &&
	jq -e "type == \"object\"" ../kreply &&
	grep -q "lesson queued" ../kerr &&
	entry=$(find .callus/spool -name "*.left.json") &&
	jq -e ".snapshot | test(\"^git [0-9a-f]{40} -$\")" "$entry" &&
	printf "int x;\n" >f1.c &&
	"$CALLUS" hook generic <../kp.json >/dev/null 2>&1 &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 2 &&
	release_store $lock && release_queue $holder &&
	drain_all &&
	none_pending f1.c &&
	"$CALLUS" resolutions --json >res.json &&
	test "$(jq -c "[.[].files]" res.json)" = "[[\"f1.c\"]]" &&
	jq -e ".[0].description | test(\"f1.c\")" res.json
'

test_expect_success 'a queued failure of an error known when it ran keeps a snapshot: a pass queued before it closed that error' '
	mkdir knownq && cd knownq && git init -q && printf "int 1x;\n" >f1.c &&
	payload_for "$PWD" f1.c >../nf.json &&
	payload_for "$PWD" f1.c 0 >../np.json &&
	"$CALLUS" hook generic <../nf.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	hold_both &&
	# the pass, queued: it will close the error at its drain
	"$CALLUS" hook generic <../np.json >/dev/null 2>&1 &&
	# the same error again, queued: pending when it ran, so it asked
	# for no snapshot; it has one all the same
	printf "int 2y;\n" >f1.c &&
	"$CALLUS" hook generic <../nf.json >/dev/null 2>../nerr &&
	grep -q "lesson queued" ../nerr &&
	test "$(jq -s -c "map(select(.exit_code == 1) | .snapshot | type)" .callus/spool/*.left.json)" = "[\"string\"]" &&
	printf "int y;\n" >f1.c &&
	"$CALLUS" hook generic <../np.json >/dev/null 2>&1 &&
	release_store $lock && release_queue $holder &&
	drain_all &&
	none_pending f1.c &&
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions ORDER BY id" >../fixes.diff &&
	grep -q "^-int 1x;" ../fixes.diff && grep -q "^+int x;" ../fixes.diff &&
	grep -q "^-int 2y;" ../fixes.diff && grep -q "^+int y;" ../fixes.diff
'

test_expect_success 'a queued failure that no longer shows an error keeps the fix it found, not the next work' '
	mkdir closesq && cd closesq && git init -q && printf "int 1x;\n" >f1.c && printf "int 2x;\n" >f2.c &&
	for out in "f1.c:1:5: error: expected identifier or (
f2.c:3:9: error: undeclared here" "f2.c:3:9: error: undeclared here"; do
		jq -n --arg cwd "$PWD" --arg o "$out" \
			"{command: \"make\", exit_code: 1, session_id: \"s\", cwd: \$cwd, output: \$o}"
	done >../two.json &&
	jq -s ".[0]" ../two.json >../cboth.json && jq -s ".[1]" ../two.json >../conly2.json &&
	"$CALLUS" hook generic <../cboth.json >/dev/null 2>&1 &&
	test "$("$CALLUS" pending --json | jq length)" = 2 &&
	printf "int x;\n" >f1.c &&
	hold_both &&
	"$CALLUS" hook generic <../conly2.json >/dev/null 2>../cerr &&
	grep -q "lesson queued" ../cerr &&
	jq -e ".fixes | length == 1" .callus/spool/*.left.json &&
	# the agent goes on before the drain
	printf "int x;\nint next_work;\n" >f1.c && printf "int more;\n" >g.c &&
	release_store $lock && release_queue $holder &&
	drain_all &&
	none_pending f1.c &&
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions" >../cfix.diff &&
	grep -q "^+int x;" ../cfix.diff &&
	! grep -q "next_work" ../cfix.diff && ! grep -q "g.c" ../cfix.diff
'

test_expect_success 'a pass queued behind its queued failure keeps its tree: the fix is the one it found, not the next work' '
	mkdir behindtree && cd behindtree && git init -q && printf "int 1x;\n" >f1.c && printf "int 9x;\n" >f9.c &&
	payload_for "$PWD" f9.c >../t9.json &&
	payload_for "$PWD" f1.c >../tf.json &&
	payload_for "$PWD" f1.c 0 >../tp.json &&
	"$CALLUS" hook generic <../t9.json >/dev/null 2>&1 &&
	hold_both &&
	"$CALLUS" hook generic <../tf.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	"$CALLUS" hook generic <../tp.json >../treply 2>/dev/null &&
	jq -e "type == \"object\"" ../treply &&
	# the pass waits behind its failure, with the tree it found; a pass
	# of a check that never failed, behind it too, has nothing to keep
	payload_for "$PWD" other.c 0 | "$CALLUS" hook generic >/dev/null 2>&1 &&
	test "$(jq -s -c "map(select(.exit_code == 0) | [.command, (.snapshot // \"-\" | test(\"^git [0-9a-f]{40} -$\"))])" \
		.callus/spool/*.left.json)" = "[[\"gcc -c f1.c\",true],[\"gcc -c other.c\",false]]" &&
	# the agent goes on before the drain
	printf "int x;\nint next_work;\n" >f1.c && printf "int more;\n" >g.c &&
	release_store $lock && release_queue $holder &&
	drain_all &&
	none_pending f1.c &&
	"$CALLUS" resolutions --json >../tres.json &&
	test "$(jq -c "[.[].files]" ../tres.json)" = "[[\"f1.c\"]]" &&
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions" >../tfix.diff &&
	grep -q "^+int x;" ../tfix.diff &&
	! grep -q "next_work" ../tfix.diff && ! grep -q "g.c" ../tfix.diff
'

test_expect_success 'two queued failures, the second fixing the first'"'"'s error: the fix ends at the second'"'"'s tree' '
	mkdir twoq && cd twoq && git init -q && printf "int 1x;\n" >f1.c && printf "int 2x;\n" >f2.c &&
	printf "int 9x;\n" >f9.c &&
	payload_for "$PWD" f9.c >../w9.json &&
	for out in "f1.c:1:5: error: expected identifier or (" "f2.c:3:9: error: undeclared here"; do
		jq -n --arg cwd "$PWD" --arg o "$out" \
			"{command: \"make\", exit_code: 1, session_id: \"s\", cwd: \$cwd, output: \$o}" \
			>"../w-${out%%:*}.json"
	done &&
	"$CALLUS" hook generic <../w9.json >/dev/null 2>&1 &&
	# until both hooks have waited their 2 s and been queued
	hold_both &&
	"$CALLUS" hook generic <../w-f1.c.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	"$CALLUS" hook generic <../w-f2.c.json >/dev/null 2>&1 &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 2 &&
	# the agent goes on before the drain
	printf "int x;\nint next_work;\n" >f1.c &&
	release_store $lock && release_queue $holder &&
	drain_all &&
	none_pending f1.c &&
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions" >../wfix.diff &&
	grep -q "^+int x;" ../wfix.diff &&
	! grep -q "next_work" ../wfix.diff
'

test_expect_success 'a pass whose failure is still queued, behind another drainer, waits behind it' '
	mkdir behind && cd behind && git init -q && printf "int 1x;\n" >f1.c && printf "int 9x;\n" >f9.c &&
	payload_for "$PWD" f9.c >../h9.json &&
	payload_for "$PWD" f1.c 0 >../hp.json &&
	"$CALLUS" hook generic <../h9.json >/dev/null 2>&1 &&
	payload_for "$PWD" f1.c >".callus/spool/$(( $(date +%s%N) - 1000000000 ))-13.left.json" &&
	# another drainer, as far as the queue can tell, past the pass'"'"'s wait
	{ hold_queue & } &&
	holder=$! &&
	queue_held &&
	"$CALLUS" hook generic <../hp.json >reply 2>/dev/null &&
	jq -e "type == \"object\"" reply &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 2 &&
	release_queue $holder &&
	drain_all &&
	none_pending f1.c &&
	test "$(fixed_count)" = 1
'

# make_failing OUT...: the generic event of `make` failing in this folder
# with OUT (each a line of gcc's)
make_failing() {
	jq -n --arg cwd "$PWD" --arg o "$(printf "%s\n" "$@")" \
		"{command: \"make\", exit_code: 1, session_id: \"s\", cwd: \$cwd, output: \$o}"
}

# queue_ws DIR: a git workspace DIR, entered, with f1.c, f2.c and f9.c
# that do not compile, its store made by `gcc -c f9.c` failing
queue_ws() {
	mkdir "$1" && cd "$1" && git init -q && printf "int 1x;\n" >f1.c &&
	printf "int 2x;\n" >f2.c && printf "int 9x;\n" >f9.c &&
	payload_for "$PWD" f9.c >"../$1-9.json" &&
	"$CALLUS" hook generic <"../$1-9.json" >/dev/null 2>&1
}

test_expect_success 'a failure after one still queued drains it first: the earlier error, gone now, is fixed' '
	queue_ws fbehind &&
	make_failing "f1.c:1:5: error: expected identifier or (" >../fb1.json &&
	# the first failure queued with its snapshot (a busy store), and no
	# drainer to take it before the next hook
	hold_both &&
	"$CALLUS" hook generic <../fb1.json >/dev/null 2>&1 &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 1 &&
	# its drainer gone, which would take the queue from the next hook
	idle_here &&
	release_store $lock && release_queue $holder &&
	printf "int x;\n" >f1.c &&
	make_failing "f2.c:1:5: error: undeclared here" >../fb2.json &&
	"$CALLUS" hook generic <../fb2.json >reply 2>/dev/null &&
	jq -e "type == \"object\"" reply &&
	test -z "$(find .callus/spool -name "*.json")" &&
	none_pending f1.c &&
	! none_pending f2.c &&
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions" >../fbfix.diff &&
	grep -q "^+int x;" ../fbfix.diff
'

test_expect_success 'a failure with only another check'"'"'s run queued leaves that run to its drainer' '
	queue_ws fother &&
	payload_for "$PWD" f1.c >../fo1.json &&
	make_failing "f2.c:1:5: error: undeclared here" >../fo2.json &&
	# gcc -c f1.c queued as a hook leaves it (its first bytes as a hook
	# writes them), by a hook that is gone; no drainer started for it
	jq -c . ../fo1.json >".callus/spool/$(( $(date +%s%N) - 1000000000 ))-13.left.json" &&
	"$CALLUS" hook generic <../fo2.json >/dev/null 2>&1 &&
	# its drainer, started after make'"'"'s reply
	eventually eval "test -z \"\$(find .callus/spool -name \"*.json\")\"" &&
	# make'"'"'s lesson first: the queued gcc run was not drained before it
	test "$(sqlite3 .callus/callus.db "SELECT tool FROM lessons ORDER BY rowid" | tr "\n" " ")" = \
		"gcc make gcc "
'

test_expect_success 'a queued run a failing hook drains but cannot record is not said to be the hook'"'"'s' '
	queue_ws fsaid &&
	make_failing "f1.c:1:5: error: expected identifier or (" |
		jq -c . >".callus/spool/$(( $(date +%s%N) - 1000000000 ))-13.left.json" &&
	make_failing "f2.c:1:5: error: undeclared here" >../fs2.json &&
	# the store busy through the drain'"'"'s wait, free for the hook'"'"'s own
	{ hold_store 1.5 & } &&
	lock=$! &&
	store_held &&
	"$CALLUS" hook generic <../fs2.json >/dev/null 2>../fserr &&
	wait $lock &&
	! grep -q "queued" ../fserr &&
	! none_pending f2.c
'

test_expect_success 'a failure while another drainer holds the queue is recorded at once, and the queue after' '
	queue_ws fwait &&
	make_failing "f1.c:1:5: error: expected identifier or (" >../fw1.json &&
	make_failing "f2.c:1:5: error: undeclared here" >../fw2.json &&
	# the first failure queued (a busy store); another drainer, as far
	# as the queue can tell, holds it past the second hook'"'"'s look
	hold_both &&
	"$CALLUS" hook generic <../fw1.json >/dev/null 2>&1 &&
	release_store $lock &&
	printf "int x;\n" >f1.c &&
	"$CALLUS" hook generic <../fw2.json >reply 2>/dev/null &&
	# not waiting: recorded, and only the first is queued
	jq -e "type == \"object\"" reply &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 1 &&
	! none_pending f2.c &&
	# a drain by hand, turned away, says so and leaves the entry
	"$CALLUS" hook --drain generic 2>../fwdrain &&
	grep -q "another drainer holds the queue" ../fwdrain &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 1 &&
	release_queue $holder &&
	drain_all &&
	"$CALLUS" lessons --json |
		jq -e "[.[].affected_files[]?] | (index(\"f1.c\") and index(\"f2.c\"))" >/dev/null
'

test_expect_success 'a queued run whose command held a secret is the same check as the live one' '
	mkdir secretq && cd secretq && git init -q && printf "int 1x;\n" >f1.c &&
	tok=ghp_$(printf "%036d" 7) &&
	jq -n --arg cwd "$PWD" --arg t "$tok" --argjson x 1 \
		"{command: (\"gcc -c f1.c -DTOKEN=\" + \$t + \" -DPASSWORD='"'"'hunter2!'"'"'\"),
		  exit_code: \$x, session_id: \"s\",
		  cwd: \$cwd, output: \"f1.c:1:5: error: expected identifier or (\"}" >../sf.json &&
	jq ".exit_code = 0 | .output = \"\"" ../sf.json >../sp.json &&
	"$CALLUS" hook generic <../sf.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	"$CALLUS" hook generic <../sp.json >/dev/null 2>&1 &&
	test -n "$(find .callus/spool -name "*.left.json")" &&
	! grep -rq "$tok" .callus/spool &&
	release_store $lock &&
	eventually none_pending &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM checks")" = 1 &&
	! grep -rq "$tok" .callus &&
	! grep -rq "hunter2" .callus
'

test_expect_success 'a queued pass fixes no error that failed after it, and learns nothing delivered again' '
	mkdir latepass && cd latepass && git init -q && printf "int 1x;\n" >f1.c &&
	payload_for "$PWD" f1.c >../lf.json &&
	payload_for "$PWD" f1.c 0 >../lp.json &&
	"$CALLUS" hook generic <../lf.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	runs=$(checks_runs) &&
	# a pass queued a minute before the failure was recorded
	cp ../lp.json ".callus/spool/$(( $(date +%s%N) - 60000000000 ))-1.left.json" &&
	"$CALLUS" hook --drain generic &&
	test -z "$(find .callus/spool -name "*.json")" &&
	test "$("$CALLUS" pending --json | jq length)" = 1 &&
	test "$("$CALLUS" lessons --json | jq length)" = 1 &&
	test "$(checks_runs)" = "$runs" &&
	# one queued since: it fixes the error, once
	name=$(date +%s%N)-2 &&
	cp ../lp.json ".callus/spool/$name.left.json" &&
	"$CALLUS" hook --drain generic &&
	test "$("$CALLUS" pending --json | jq length)" = 0 &&
	test "$("$CALLUS" resolutions --json | jq length)" = 1 &&
	runs=$(checks_runs) &&
	cp ../lp.json ".callus/spool/$name.cut.json" &&
	"$CALLUS" hook --drain generic &&
	test "$(checks_runs)" = "$runs" &&
	test "$("$CALLUS" resolutions --json | jq "[.[].application_count] | add")" = 1 &&
	test "$(cut_count pass)" = 1 &&
	# learnt once, counted once
	test "$("$CALLUS" metrics --json | jq "[.metrics[] |
		select(.name == \"callus.hook.deferred_total\") | .series[]?.value] | add // 0")" = 1 &&
	test -z "$(find .callus/spool -name "*.json")" &&
	# a name of no time, made by hand: learnt as of now
	printf "int 1x;\n" >f1.c &&
	"$CALLUS" hook generic <../lf.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	cp ../lp.json .callus/spool/manual.left.json &&
	"$CALLUS" hook --drain generic &&
	test "$("$CALLUS" pending --json | jq length)" = 0 &&
	test -z "$(find .callus/spool -name "*.json")" &&
	# so is a name ahead of the clock (an hour)
	printf "int 1x;\n" >f1.c &&
	"$CALLUS" hook generic <../lf.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	cp ../lp.json ".callus/spool/$(( $(date +%s%N) + 3600000000000 ))-3.left.json" &&
	"$CALLUS" hook --drain generic &&
	test "$("$CALLUS" pending --json | jq length)" = 0 &&
	test "$(sqlite3 .callus/callus.db "SELECT last_pass_at < strftime('"'"'%Y-%m-%dT%H:%M:%fZ'"'"', '"'"'now'"'"', '"'"'+1 minute'"'"') FROM checks")" = 1 &&
	test -z "$(find .callus/spool -name "*.json")"
'

test_expect_success 'a pass cut by its deadline is queued, logged and counted, and its fix learnt' '
	mkdir cutpass && cd cutpass && git init -q && printf "int 1x;\n" >f1.c &&
	payload_for "$PWD" f1.c >../cf.json &&
	payload_for "$PWD" f1.c 0 >../cp.json &&
	"$CALLUS" hook generic <../cf.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	: >.callus/log.jsonl &&
	# the pass waits for a snapshot that never comes; the drainer the
	# cut starts takes the real one
	slow_once_helper &&
	{ CALLUS_GIT_HELPER="$PWD/../slow-once-helper" "$CALLUS" hook generic <../cp.json >../creply & } &&
	cut_waiting $! && jq -e "type == \"object\"" ../creply &&
	eventually none_pending &&
	test "$("$CALLUS" resolutions --json | jq -c "[.[].files]")" = "[[\"f1.c\"]]" &&
	grep "\"hook_cut\"" .callus/log.jsonl | grep -q "\"stage\":\"pass\"" &&
	test "$(cut_count pass)" = 1 &&
	test -z "$(find .callus/spool -name "*.json")"
'

test_expect_success 'a failure stored, and the store busy when it comes to learn: its drainer learns it' '
	mkdir owed && cd owed && git init -q && printf "int 1x;\n" >f1.c &&
	mkdir -m 700 .callus &&
	# a short wait for the store: it is busy before the deadline
	printf "[learn]\nsnapshot_timeout_ms = 1500\n[store]\ntimeout_ms = 300\n" >.callus/config &&
	slow_helper &&
	payload_for "$PWD" f1.c >../owed.json &&
	{ CALLUS_GIT_HELPER="$PWD/../slow-helper" "$CALLUS" hook generic <../owed.json \
		>reply 2>err & } &&
	hook=$! &&
	# the failure is committed at once; learning waits for the helper,
	# and then for the store another process holds
	eventually eval "test \"\$(sqlite3 .callus/callus.db \"SELECT count(*) FROM lessons\" \
		2>/dev/null)\" = 1" &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	wait $hook && jq -e "type == \"object\"" reply &&
	grep -q "lesson recorded; the store is busy with other recordings: its errors are learnt in the background" err &&
	grep "\"learn_queued\"" .callus/log.jsonl | jq -e ".level == \"warn\"" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL")" = 1 &&
	test -n "$(find .callus/spool -name "*.left.json")" &&
	release_store $lock &&
	rm .callus/config &&
	drain_all &&
	test "$("$CALLUS" lessons --json | jq "[.[].occurrences] | add")" = 1 &&
	"$CALLUS" pending --json | jq -e "length == 1 and .[0].args == \"-c f1.c\"" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL")" = 0 &&
	test "$(cut_count recording)" = 0 && test "$(cut_count learning)" = 0
'

test_expect_success 'a hook killed outright while learning: a drainer learns its failure, and writes the block again' '
	mkdir killhook && cd killhook && git init -q &&
	printf "int 1x;\nint y;\n" >f1.c &&
	mkdir -m 700 .callus &&
	payload_for "$PWD" f1.c >../kh1.json &&
	"$CALLUS" hook generic <../kh1.json >/dev/null &&
	# the first error fixed, another in its place: the learning fixes the
	# first (a note for the block) after the slow helper
	printf "int x;\nint 2y;\n" >f1.c &&
	jq -n --arg cwd "$PWD" "{command: \"gcc -c f1.c\", exit_code: 1, session_id: \"s\", cwd: \$cwd,
		output: \"f1.c:2:5: error: invalid suffix on integer constant\"}" >../kh2.json &&
	printf "[learn]\nsnapshot_timeout_ms = 20000\n" >.callus/config &&
	end_helpers && slow_helper &&
	{ CALLUS_GIT_HELPER="$PWD/../slow-helper" "$CALLUS" hook generic <../kh2.json >/dev/null 2>&1 & } &&
	hook=$! &&
	# stored, its entry named as owed learning, the hook waiting for its helper
	eventually eval "test -n \"\$(find .callus/spool -name \"*-$hook.owed.json\")\"" &&
	eventually test -s ../helpers &&
	kill -9 $hook && { wait $hook || true; } &&
	end_helpers &&
	test "$("$CALLUS" notes --json | jq length)" = 0 &&
	rm .callus/config &&
	drain_all &&
	test -z "$(find .callus/spool -name "*.json*")" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL")" = 0 &&
	"$CALLUS" pending --json | jq -e "length == 1 and (.[0].message | test(\"suffix\"))" &&
	test "$("$CALLUS" notes --json | jq length)" = 1 &&
	grep -q "Fixes that worked here" AGENTS.md
'

test_expect_success 'a drainer killed while learning from a cut failure: counted once, and the next one learns it' '
	mkdir killed && cd killed && git init -q && printf "int 1x;\n" >f1.c &&
	mkdir -m 700 .callus &&
	printf "[learn]\nsnapshot_timeout_ms = 20000\n" >.callus/config &&
	end_helpers && slow_helper &&
	payload_for "$PWD" f1.c >"$PWD/.callus/spool.json" &&
	mkdir -m 700 .callus/spool &&
	name=$(date +%s%N)-1 &&
	mv .callus/spool.json ".callus/spool/$name.cut.json" &&
	{ CALLUS_GIT_HELPER="$PWD/../slow-helper" "$CALLUS" hook --drain generic \
		</dev/null >/dev/null 2>&1 & } &&
	drainer=$! &&
	# committed and counted, the entry says so and stays; the drainer
	# then waits for the snapshot helper, learning, and is killed there
	eventually test -e ".callus/spool/$name.left.json" &&
	test ! -e ".callus/spool/$name.cut.json" &&
	kill -9 $drainer && { wait $drainer || true; } &&
	end_helpers &&
	test "$("$CALLUS" lessons --json | jq "[.[].occurrences] | add")" = 1 &&
	test "$("$CALLUS" pending --json | jq length)" = 0 &&
	test "$(cut_count recording)" = 1 &&
	grep -q "\"hook_cut\".*\"stage\":\"recording\"" .callus/log.jsonl &&
	# the next drainer finds the failure stored and its learning owed
	rm .callus/config &&
	"$CALLUS" hook --drain generic &&
	test -z "$(find .callus/spool -name "*.json")" &&
	test "$("$CALLUS" lessons --json | jq "[.[].occurrences] | add")" = 1 &&
	"$CALLUS" pending --json >pending.json &&
	test "$(jq length pending.json)" = 1 && jq -e ".[0].args == \"-c f1.c\"" pending.json &&
	test "$(cut_count recording)" = 1 && test "$(cut_count learning)" = 0 &&
	test "$("$CALLUS" metrics --json | jq "[.metrics[] |
		select(.name == \"callus.hook.deferred_total\") | .series[]?.value] | add // 0")" = 1 &&
	# the failure captured once: its second delivery learns, and counts no capture
	test "$("$CALLUS" metrics --json | jq "[.metrics[] |
		select(.name == \"hindsight.capture.total\") | .series[]?.value] | add // 0")" = 1 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL")" = 0
'

test_expect_success 'a pass cut while it drains the queue leaves itself queued, and the drainer learns it' '
	mkdir draincut && cd draincut && git init -q && printf "int 1x;\n" >f1.c && printf "int 2x;\n" >f2.c &&
	payload_for "$PWD" f1.c >../df1.json &&
	payload_for "$PWD" f1.c 0 >../dp.json &&
	"$CALLUS" hook generic <../df1.json >/dev/null 2>&1 &&
	printf "int x;\n" >f1.c &&
	: >.callus/log.jsonl &&
	# another check'"'"'s failure queued: the pass records it first, and
	# its snapshot never comes; the drainer the cut starts takes the real one
	payload_for "$PWD" f2.c >".callus/spool/$(date +%s%N)-1.left.json" &&
	slow_once_helper &&
	{ CALLUS_GIT_HELPER="$PWD/../slow-once-helper" "$CALLUS" hook generic <../dp.json >../dreply & } &&
	cut_waiting $! && jq -e "type == \"object\"" ../dreply &&
	eventually none_pending f1.c &&
	test "$("$CALLUS" resolutions --json | jq -c "[.[].files]")" = "[[\"f1.c\"]]" &&
	test "$("$CALLUS" lessons --json | jq length)" = 2 &&
	test "$(cut_count pass)" = 1 &&
	test -z "$(find .callus/spool -name "*.json")"
'

test_expect_success 'a queued failure whose folder leads out of the workspace is recorded at its root' '
	mkdir outside elsewhere && cd outside && git init -q && printf "int 5x;\n" >f5.c &&
	ln -s ../elsewhere away &&
	mkdir -m 700 .callus .callus/spool &&
	payload_for "$PWD/../elsewhere" f5.c >.callus/spool/0000000000000000010-10.left.json &&
	payload_for "$PWD/away" f5.c >.callus/spool/0000000000000000011-11.left.json &&
	"$CALLUS" hook --drain generic &&
	test -z "$(find .callus/spool -name "*.json")" &&
	test "$("$CALLUS" lessons --json | jq -c "[.[].file]")" = "[\"f5.c\"]" &&
	test "$("$CALLUS" lessons --json | jq ".[0].occurrences")" = 2 &&
	test -z "$(ls ../elsewhere)"
'

test_expect_success 'a pass where nothing ever failed writes nothing, store or no store' '
	mkdir fresh && cd fresh && git init -q && printf "int x;\n" >f1.c &&
	payload_for "$PWD" f1.c 0 >../fp.json &&
	"$CALLUS" hook generic <../fp.json >../freply &&
	jq -e "type == \"object\"" ../freply &&
	test ! -e .callus &&
	payload_for "$PWD" f9.c >../f9.json &&
	"$CALLUS" hook generic <../f9.json >/dev/null 2>&1 &&
	# the spool untouched: nothing made, renamed or removed in it
	sleep 0.05 &&
	stat -c "%y %i" .callus/spool .callus/spool/.spare >../before &&
	"$CALLUS" hook generic <../fp.json >../freply &&
	stat -c "%y %i" .callus/spool .callus/spool/.spare >../after &&
	test_cmp ../before ../after
'

test_expect_success 'a queued run that is no check any more is dropped, and said' '
	mkdir nocheck && cd nocheck && git init -q &&
	mkdir -m 700 .callus .callus/spool &&
	jq -n --arg cwd "$PWD" "{command: \"echo gcc -c f1.c\",
		exit_code: 1, cwd: \$cwd, output: \"\"}" >.callus/spool/0000000000000000012-12.left.json &&
	"$CALLUS" hook --drain generic &&
	test -z "$(find .callus/spool -name "*.json")" &&
	grep "\"spool_dropped\"" .callus/log.jsonl | grep -q "0000000000000000012-12" &&
	# closed again, a redacted command names another tool than its hook
	# did (sh -c "pytest --password=X'"'"'x"; mypy .): dropped too
	jq -n --arg cwd "$PWD" "{command: \"sh -c \\\"pytest --password=[REDACTED:cli-password]\",
		exit_code: 1, cwd: \$cwd, output: \"\", tool: \"mypy\"}" >.callus/spool/0000000000000000013-13.left.json &&
	"$CALLUS" hook --drain generic &&
	grep "\"spool_dropped\"" .callus/log.jsonl | grep -q "0000000000000000013-13" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM checks" 2>/dev/null || echo 0)" = 0
'

test_expect_success 'a queued run whose redaction took its script'"'"'s closing quote is the live run'"'"'s check' '
	mkdir scriptq && cd scriptq && git init -q && printf "int 1x;\n" >f1.c &&
	jq -n --arg cwd "$PWD" "{command: \"bash -c '"'"'gcc -c f1.c --password=hunter2'"'"'\",
		exit_code: 1, session_id: \"s\", cwd: \$cwd,
		output: \"f1.c:1:5: error: expected identifier or (\"}" >../sq.json &&
	"$CALLUS" hook generic <../sq.json >/dev/null 2>&1 &&
	test "$(occurrences)" = 1 &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	"$CALLUS" hook generic <../sq.json >/dev/null 2>../sqerr &&
	grep -q "lesson queued" ../sqerr &&
	! grep -rq hunter2 .callus/spool &&
	release_store $lock &&
	eventually eval "test \"\$(occurrences)\" = 2" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM checks")" = 1 &&
	! grep -q "\"spool_dropped\"" .callus/log.jsonl &&
	! grep -rq hunter2 .callus
'

test_expect_success 'a hook ended by SIGTERM, SIGINT or SIGHUP replies, exits 0, and its queued failure is recorded' '
	mkdir termed && cd termed && git init -q && printf "int 1x;\n" >first.c &&
	payload_for "$PWD" first.c >../first.json &&
	"$CALLUS" hook generic <../first.json >/dev/null 2>&1 &&
	for sig in TERM INT HUP; do
		printf "int %s x;\n" "$sig" >"$sig.c" &&
		payload_for "$PWD" "$sig.c" >"../$sig.json" || return 1
	done &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	for sig in TERM INT HUP; do
		{ "$CALLUS" hook generic <"../$sig.json" >"../$sig.reply" 2>/dev/null & } &&
		hook=$! &&
		# its entry is written: it waits for the store
		for _ in $(seq 1 200); do
			test -n "$(find .callus/spool -name "*-$hook.json")" && break
			sleep 0.05
		done &&
		test -n "$(find .callus/spool -name "*-$hook.json")" &&
		kill -$sig $hook &&
		{ wait $hook; rc=$?; } &&
		test "$rc" = 0 &&
		jq -e "type == \"object\"" "../$sig.reply" &&
		# left to a drainer as a cut
		test -n "$(find .callus/spool -name "*-$hook.cut.json")" || return 1
	done &&
	release_store $lock &&
	drain_all &&
	test "$("$CALLUS" lessons --json | jq length)" = 4 &&
	test "$(cut_count recording)" = 3
'

test_expect_success 'a drain lock no drainer can open is logged, named by callus doctor, and removed by --fix' '
	mkdir badlock && cd badlock && git init -q && printf "int 1x;\n" >f1.c &&
	printf "int 2x;\n" >f2.c &&
	payload_for "$PWD" f1.c >../bl1.json &&
	"$CALLUS" hook generic <../bl1.json >/dev/null 2>&1 &&
	mkdir -p .callus/spool &&
	for kind in folder link; do
		# what a drainer made, gone: this test makes its own
		rm -f .callus/spool/.drain.lock &&
		if [ $kind = folder ]; then
			mkdir .callus/spool/.drain.lock
		else
			ln -s ../../../elsewhere.lock .callus/spool/.drain.lock
		fi &&
		entry=.callus/spool/000000000000000000$([ $kind = folder ] && echo 5 || echo 6)-7.left.json &&
		payload_for "$PWD" f2.c >"$entry" &&
		: >.callus/log.jsonl &&
		"$CALLUS" hook --drain generic &&
		grep -q "\"spool_lock_unusable\"" .callus/log.jsonl &&
		test -e "$entry" &&
		test_must_fail "$CALLUS" doctor >../bl.out &&
		grep "drain.lock is a $kind" ../bl.out &&
		{ "$CALLUS" doctor --fix >../bl.fix || :; } &&
		grep "drain.lock is a $kind.*removed" ../bl.fix &&
		test ! -e ../elsewhere.lock &&
		# the drainer --fix started may hold the queue still
		{ "$CALLUS" hook --drain generic 2>/dev/null || :; } &&
		eventually eval "test -z \"\$(find .callus/spool -name \"*.json\")\"" &&
		flock .callus/spool/.drain.lock true &&
		test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = \
			"$([ $kind = folder ] && echo 2 || echo 3)" || return 1
	done
'

test_expect_success 'a queued failure is recorded as of when its hook ran, not when it was drained' '
	mkdir asof && cd asof && git init -q && printf "int 1x;\n" >f1.c && printf "int 2x;\n" >f2.c &&
	payload_for "$PWD" f1.c | "$CALLUS" hook generic >/dev/null 2>&1 &&
	payload_for "$PWD" f2.c >../asof.json &&
	hold_both &&
	"$CALLUS" hook generic <../asof.json >/dev/null 2>../asof.err &&
	grep -q "lesson queued" ../asof.err &&
	sleep 2 &&
	after=$(date -u +%Y-%m-%dT%H:%M:%S) &&
	release_store $lock && release_queue $holder &&
	drain_all &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 2 &&
	at=$(sqlite3 .callus/callus.db "SELECT at FROM runs ORDER BY id DESC LIMIT 1") &&
	seen=$(sqlite3 .callus/callus.db "SELECT timestamp FROM lessons ORDER BY id DESC LIMIT 1") &&
	test "$at" \< "$after" && test "$seen" \< "$after"
'

# run_ws DIR: a git workspace DIR, entered, whose `make -s check` prints a
# GitHub token, then fails as gcc does on f1.c; its store made by one such
# run, its store's wait [store] timeout_ms = 200, its queue's folder made
# (hold_queue's lock is in it)
run_ws() {
	mkdir "$1" && cd "$1" && git init -q && printf "int 1x;\n" >f1.c &&
	tok=ghp_$(printf "%036d" 8) &&
	printf "check:\n\t@echo \"token %s\"; gcc -c f1.c\n" "$tok" >Makefile &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	printf "[store]\n\ttimeout_ms = 200\n" >>.callus/config &&
	mkdir -p .callus/spool
}

test_expect_success 'callus run: a failure a busy store turns away is queued, redacted, and recorded when it is free' '
	run_ws runq &&
	hold_both &&
	test_expect_code 2 "$CALLUS" run -- make -s check >../runq.out 2>../runq.err &&
	grep -q "^token $tok$" ../runq.out &&
	grep -q "f1.c:1:5: error" ../runq.err &&
	grep -q "^callus: lesson queued" ../runq.err &&
	! grep -q "not recorded" ../runq.err &&
	entry=$(find .callus/spool -name "*.left.json") &&
	test "$(echo "$entry" | wc -w)" = 1 &&
	jq -e ".command == \"make -s check\" and .exit_code == 2 and
	       (.output | test(\"f1.c:1:5: error\"))" "$entry" &&
	! grep -q "$tok" "$entry" &&
	# a wait that loses nothing: no error for callus doctor to count
	tail -n 1 .callus/log.jsonl |
		jq -e ".event == \"run_queued\" and .tool == \"make\" and .level == \"warn\"" &&
	release_store $lock && release_queue $holder &&
	drain_all &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 2 &&
	# gcc says two things of f1.c: each pending, failed twice
	"$CALLUS" pending --json >../runq.pending &&
	test "$(jq -c "[.[].attempts]" ../runq.pending)" = "[2,2]" &&
	"$CALLUS" metrics >../runq.prom &&
	grep -q "^callus_run_total{recorded=\"true\"} 2$" ../runq.prom &&
	! grep -q "dropped_total" ../runq.prom &&
	! grep -rq "$tok" .callus/callus.db .lessons
'

test_expect_success 'callus run: a pass whose failure is still queued waits behind it, and fixes it' '
	run_ws runp &&
	hold_both &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	# the store free, the queue still held: the pass would be learnt at
	# once, before the failure it fixes is recorded
	release_store $lock &&
	printf "int x;\n" >f1.c &&
	"$CALLUS" run -- make -s check >../runp.out 2>../runp.err &&
	grep -q "^token $tok$" ../runp.out &&
	grep -q "^callus: fix queued" ../runp.err &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 2 &&
	release_queue $holder &&
	drain_all &&
	none_pending &&
	test "$(fixed_count)" = 2 &&
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions" >../runp.diff &&
	grep -q "^+int x;" ../runp.diff
'

test_expect_success 'callus run: a failure while a run of its check is queued goes behind it: the error gone since is fixed' '
	run_ws runb &&
	printf "int ok2;\n" >f2.c &&
	printf "check:\n\t@gcc -c f1.c f2.c\n" >Makefile &&
	hold_both &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	# the store free, the queue still held: recorded at once, this run
	# would come before the one it follows
	release_store $lock &&
	printf "int x;\n" >f1.c && printf "int f(void) { return nowhere; }\n" >f2.c &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>../runb.err &&
	grep -q "^callus: lesson queued: a run of this check is queued before it" ../runb.err &&
	test "$(find .callus/spool -name "*.left.json" | wc -l)" = 2 &&
	release_queue $holder &&
	drain_all &&
	none_pending f1.c &&
	! none_pending f2.c
'

test_expect_success 'callus run: without git, a failure queued behind a run keeps its files: its fix, made before the drain, is learnt' '
	mkdir rung && cd rung && mkdir .callus && printf "int 1x;\n" >f1.c &&
	printf "int ok2;\n" >f2.c && printf "check:\n\t@gcc -c f1.c f2.c\n" >Makefile &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	printf "[store]\n\ttimeout_ms = 200\n" >>.callus/config && mkdir -p .callus/spool &&
	hold_both &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	release_store $lock &&
	printf "int f(void) { return nowhere; }\n" >f2.c &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>../rung.err &&
	grep -q "^callus: lesson queued: a run of this check is queued before it" ../rung.err &&
	entry=$(find .callus/spool -name "*.left.json" | sort | tail -n 1) &&
	jq -e ".snapshot | startswith(\"files \")" "$entry" &&
	# both fixed before the drainer takes the two
	printf "int ok2;\n" >f2.c && printf "int x;\n" >f1.c &&
	release_queue $holder &&
	drain_all &&
	"$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	none_pending &&
	"$CALLUS" resolutions --json >../rung.res &&
	jq -e "map(.files | index(\"f2.c\")) | any" ../rung.res
'

test_expect_success 'callus run: a failure the busy store kept waiting is queued as of when it ended' '
	run_ws runt &&
	printf "[store]\n\ttimeout_ms = 6000\n" >.callus/config &&
	printf "check:\n\t@gcc -c f1.c || { touch ../runt.ended; exit 1; }\n" >Makefile &&
	rm -f ../runt.ended &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	{ "$CALLUS" run -- make -s check >/dev/null 2>../runt.err & } &&
	runner=$! &&
	for _ in $(seq 1 200); do test -e ../runt.ended && break; sleep 0.05; done &&
	test -e ../runt.ended &&
	# fixed while the run waits for the store, and passed through a
	# hook, which queues its pass after its own 2 s wait
	printf "int x;\n" >f1.c &&
	jq -n --arg cwd "$PWD" "{command: \"make -s check\", exit_code: 0, cwd: \$cwd, output: \"\"}" |
		"$CALLUS" hook generic >/dev/null 2>../runt.hook &&
	grep -q "fix queued" ../runt.hook &&
	test_expect_code 2 wait $runner &&
	grep -q "^callus: lesson queued" ../runt.err &&
	first=$(find .callus/spool -name "*.left.json" | sort | head -n 1) &&
	test "$(jq .exit_code "$first")" = 2 &&
	release_store $lock &&
	drain_all &&
	none_pending f1.c &&
	test "$(fixed_count)" = 2
'

test_expect_success 'callus run: a failure the busy store queued goes after an entry named ahead of the clock' '
	run_ws runk &&
	# queued by a hook before the clock was set back a minute
	payload_for "$PWD" other.c >".callus/spool/$(( $(date +%s%N) + 60000000000 ))-15.left.json" &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>../runk.err &&
	grep -q "^callus: lesson queued: the store is busy" ../runk.err &&
	last=$(find .callus/spool -name "*.left.json" | sort | tail -n 1) &&
	test "$(jq -r .command "$last")" = "make -s check" &&
	release_store $lock &&
	drain_all
'

test_expect_success 'callus run: a busy store with a queue that cannot be written loses the failure, and says so' '
	run_ws rund &&
	rm -rf .callus/spool && echo "not a folder" >.callus/spool &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	test_expect_code 2 "$CALLUS" run -- make -s check >../rund.out 2>../rund.err &&
	grep -q "^token $tok$" ../rund.out &&
	grep -q "^callus: lesson not recorded: the store is locked by another writer, and the queue cannot be written" ../rund.err &&
	tail -n 1 .callus/log.jsonl |
		jq -e ".event == \"record_failed\" and .reason == \"store_locked\" and .tool == \"make\"" &&
	release_store $lock &&
	"$CALLUS" metrics >../rund.prom &&
	grep -q "^callus_failsafe_dropped_total{reason=\"store_locked\"} 1$" ../rund.prom &&
	grep -q "^callus_run_total{recorded=\"false\"} 1$" ../rund.prom
'

test_expect_success 'callus run: a failure stored, and the store busy when it comes to learn: its drainer learns it' '
	# new errors: learning waits for their snapshot
	mkdir runo && cd runo && git init -q && printf "int 1x;\n" >f1.c &&
	printf "check:\n\t@gcc -c f1.c\n" >Makefile && mkdir .callus &&
	printf "[store]\n\ttimeout_ms = 200\n[learn]\n\tsnapshot_timeout_ms = 1500\n" \
		>.callus/config &&
	slow_helper &&
	{ CALLUS_GIT_HELPER="$PWD/../slow-helper" "$CALLUS" run -- make -s check \
		>/dev/null 2>../runo.err & } &&
	runner=$! &&
	# the failure is committed at once; learning waits for the helper,
	# and then for the store another process holds
	eventually eval "test \"\$(sqlite3 .callus/callus.db \"SELECT count(*) FROM runs\" \
		2>/dev/null)\" = 1" &&
	{ hold_store & } &&
	lock=$! &&
	store_held &&
	test_expect_code 2 wait $runner &&
	grep -q "^callus: lesson recorded; the store is busy with other work: its errors are learnt in the background" ../runo.err &&
	grep -q "^callus: recorded lesson\|^callus: updated lesson" ../runo.err &&
	! grep -q "not updated" ../runo.err &&
	tail -n 1 .callus/log.jsonl |
		jq -e ".event == \"learn_queued\" and .tool == \"make\" and .level == \"warn\"" &&
	entry=$(find .callus/spool -name "*.left.json") &&
	test "$(echo "$entry" | wc -w)" = 1 &&
	origin=${entry##*/} && origin=${origin%%.*} &&
	release_store $lock &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE origin = '"'"'$origin'"'"' AND learn_owed IS NOT NULL")" = 1 &&
	drain_all &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 1 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL")" = 0 &&
	# learnt: each of gcc'"'"'s two errors of f1.c pending
	"$CALLUS" pending --json >../runo.pending &&
	test "$(jq -c "[.[].attempts]" ../runo.pending)" = "[1,1]" &&
	"$CALLUS" metrics >../runo.prom &&
	grep -q "^callus_run_total{recorded=\"true\"} 1$" ../runo.prom
'

# the slow helpers no test ended (their hooks were cut while they waited)
(cd "$TRASH_DIRECTORY/." && mkdir -p helpers-end && cd helpers-end && end_helpers)

test_done
