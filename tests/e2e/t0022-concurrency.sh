#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
# e2e: alone (its hundreds of hooks at once took a script beside it past a
# snapshot's 3 s: tests/e2e/run.sh)
test_description='a thousand concurrent failing hooks lose nothing (issue 16)

Every hook answers with valid JSON, and once the background drainer has
recorded what the hooks queued (a busy store, the deadline), the lesson has
exactly one occurrence per hook.  CALLUS_TEST_HOOKS sets how many (1000;
300 under the sanitizers, CALLUS_TEST_SKIP_HUGE=1).  The queue piece by
piece is t0023-queue.sh.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

if [ "${CALLUS_TEST_SKIP_HUGE:-}" = 1 ]; then
	N=${CALLUS_TEST_HOOKS:-300}
else
	N=${CALLUS_TEST_HOOKS:-1000}
fi

test_skip_unless_tool jq git

# occurrences: the lesson's occurrences, 0 before there is one
occurrences() {
	"$CALLUS" lessons --json 2>/dev/null | jq "[.[].occurrences] | add // 0"
}

test_expect_success "$N concurrent failing hooks: every reply valid, every failure stored" '
	mkdir ws && cd ws && git init -q && printf "int 1x;\n" >main.c &&
	jq -n --arg cwd "$PWD" "{command: \"gcc -c main.c\", exit_code: 1, session_id: \"s\",
		cwd: \$cwd, output: \"main.c:1:5: error: expected identifier or (\"}" >payload &&
	mkdir replies &&
	for i in $(seq 1 "$N"); do
		"$CALLUS" hook generic <payload >"replies/$i" 2>>hook.err &
	done &&
	wait &&
	# the replies read by one jq; one each only to name the one that failed
	{ jq -n -e --argjson n "$N" "[inputs] | length == \$n and all(.[]; type == \"object\")" \
		replies/* >/dev/null || {
		for i in $(seq 1 "$N"); do
			jq -e "type == \"object\"" "replies/$i" >/dev/null || { echo "reply $i:"; cat "replies/$i"; exit 1; }
		done
		echo "the replies are not $N objects"
		exit 1
	}; } &&
	# the drainer (started by the hooks) finishes what they queued; one
	# that a store busy for 15 s made give up leaves the rest to the next
	# hook, which here is this loop, every 20 s (turned away while a
	# drainer works)
	for i in $(seq 1 600); do
		test "$(occurrences)" -ge "$N" && break
		[ $((i % 40)) -ne 0 ] || "$CALLUS" hook --drain generic 2>/dev/null || :
		sleep 0.5
	done &&
	test_info "queued then drained: $(grep -c "queued" hook.err) (stderr lines: $(wc -l <hook.err))" &&
	test "$(occurrences)" = "$N" &&
	test -z "$(find .callus/spool -name "*.json" 2>/dev/null)"
'

test_done
