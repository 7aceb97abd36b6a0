#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus hook: every agent, every variant, never in the way

Payload fixtures (tests/hooks/fixtures, built from the agents'"'"' documented
schemas) and payloads made on the spot from real eslint and jest runs go
through the real binary; failures become lessons, the reply is in the
agent'"'"'s format, and bad input of every kind still gets exit 0 and a valid
reply.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

HOOKS=$REPO/tests/hooks/fixtures

# payload FIXTURE: the fixture with its workspace moved to the current directory
payload() {
	sed "s|/home/dev/shop|$PWD|g" "$HOOKS/$1.json"
}

# reply_context AGENT FILE: the context text of a reply, by agent
reply_context() {
	case $1 in
	claude-code | codex | gemini) jq -r '.hookSpecificOutput.additionalContext // empty' "$2" ;;
	copilot | generic) jq -r '.additionalContext // empty' "$2" ;;
	cline) jq -r '.contextModification // empty' "$2" ;;
	cursor) jq -r '.additional_context // .additionalContext // empty' "$2" ;;
	esac
}

lessons() {
	if test -e .callus/callus.db; then "$CALLUS" lessons --json | jq length; else echo 0; fi
}

for case in claude-code:claude-code-eslint-fail \
	codex:codex-argv-eslint codex:codex-jest-fail gemini:gemini-tsc-fail \
	copilot:copilot-failure copilot:copilot-jest-fail cursor:cursor-eslint-fail \
	cline:cline-jest-fail generic:generic-eslint-fail; do
	agent=${case%%:*} fixture=${case#*:}
	test_expect_success "$agent: $fixture records a lesson and replies" "
		git init -q $fixture && cd $fixture && mkdir web api &&
		payload $fixture | \"\$CALLUS\" hook $agent >reply 2>err &&
		test_must_be_empty err &&
		test \"\$(lessons)\" = 1 &&
		jq -e . reply >/dev/null &&
		# a first failure: nothing new to tell the agent, which knows
		test -z \"\$(reply_context $agent reply)\" &&
		payload $fixture | \"\$CALLUS\" hook $agent >reply 2>err &&
		test_must_be_empty err &&
		if test $agent != cursor; then
			reply_context $agent reply | grep -q 'has failed this way 1 time before'
		fi
	"
done

for case in claude-code:claude-code-ls claude-code:claude-code-jest-pass claude-code:claude-code-string-response \
	claude-code:claude-code-interrupted codex:codex-jest-pass codex:codex-no-status \
	gemini:gemini-ls gemini:gemini-jest-pass gemini:gemini-cancelled gemini:gemini-not-found \
	copilot:copilot-ls copilot:copilot-view cursor:cursor-ls cursor:cursor-jest-pass \
	cline:cline-read-file cline:cline-jest-pass generic:generic-jest-pass; do
	agent=${case%%:*} fixture=${case#*:}
	test_expect_success "$agent: $fixture records nothing" "
		git init -q $fixture && cd $fixture && mkdir web api &&
		payload $fixture | \"\$CALLUS\" hook $agent >reply 2>err &&
		test_must_be_empty err &&
		! test -e .callus/callus.db &&
		if test $agent = cline; then
			jq -e '.cancel == false' reply
		else
			test \"\$(cat reply)\" = '{}'
		fi
	"
done

# jansson seeds its hash tables from /dev/urandom unless told a seed: an
# open(2) every hook paid, and one a sandbox without /dev would refuse
test_skip_unless_tool strace
if test_have_tool strace && ! strace -f -o /dev/null true 2>/dev/null; then
	test_skip "strace cannot trace here (ptrace refused)"
fi
test_expect_success 'a hook opens no /dev/urandom (the JSON seed is getrandom'"'"'s)' '
	git init -q seeded && cd seeded && mkdir web api &&
	# (LeakSanitizer cannot run under ptrace: off for this one, in ASan)
	payload claude-code-ls | ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -f -o trace -e trace=open,openat "$CALLUS" hook claude-code >reply &&
	test "$(cat reply)" = "{}" &&
	grep -q "openat(.*\.callus/config" trace &&
	! grep "/dev/urandom" trace
'

test_expect_success 'session start: a digest of the lessons' '
	git init -q digest && cd digest &&
	payload claude-code-eslint-fail | "$CALLUS" hook claude-code >/dev/null &&
	payload claude-code-session-start | "$CALLUS" hook claude-code >reply &&
	jq -e ".hookSpecificOutput.hookEventName == \"SessionStart\"" reply &&
	jq -r .hookSpecificOutput.additionalContext reply | grep -q "eslint" &&
	payload gemini-session-start | "$CALLUS" hook gemini >reply &&
	jq -r .hookSpecificOutput.additionalContext reply | grep -q "eslint"
'

test_expect_success 'the session id becomes the lesson intent_id' '
	git init -q intent && cd intent &&
	payload claude-code-eslint-fail | "$CALLUS" hook claude-code >/dev/null &&
	"$CALLUS" lessons --json | jq -e ".[0].intent_id == \"3f9c2b1e-7a44-4d1f-9b0e-52c1d7e8a6f1\""
'

test_expect_success 'real eslint output in a Claude Code payload: rule, file, earlier lessons' '
	setup_fixture eslint-project lint &&
	cd lint &&
	out=$(npx eslint src 2>&1) && exit 1 || true &&
	jq -n --arg cwd "$PWD" --arg out "$out" "{session_id: \"s1\", cwd: \$cwd,
		hook_event_name: \"PostToolUseFailure\", tool_name: \"Bash\",
		tool_input: {command: \"npx eslint src\"}, error: (\"Exit code 1\n\" + \$out),
		is_interrupt: false}" >p.json &&
	"$CALLUS" hook claude-code <p.json >reply &&
	reply_context claude-code reply >ctx &&
	! grep -q "failed (exit" ctx &&
	"$CALLUS" record --file src/app.js --summary "unused constants" --rule "delete what you do not use" &&
	"$CALLUS" hook claude-code <p.json >reply2 &&
	reply_context claude-code reply2 | grep -q "Rule: delete what you do not use" &&
	test "$(reply_context claude-code reply2 | wc -c)" -le 1501 &&
	"$CALLUS" lessons --json | jq -e "[.[] | select(.tool == \"eslint\")][0].occurrences == 2" &&
	# the spool entry and the views debt are gone once stored, each file
	# kept as the next one'"'"'s (no inode made and freed a hook)
	test -z "$(find .callus/spool .callus/owed -type f ! -name .spare)" &&
	spool=$(stat -c %i .callus/spool/.spare) && owed=$(stat -c %i .callus/owed/.spare) &&
	"$CALLUS" hook claude-code <p.json >/dev/null &&
	test -z "$(find .callus/spool .callus/owed -type f ! -name .spare)" &&
	test "$(stat -c %i .callus/spool/.spare)" = "$spool" &&
	test "$(stat -c %i .callus/owed/.spare)" = "$owed"
'

test_expect_success 'real jest output through a generic payload' '
	setup_fixture jest-project jest &&
	cd jest &&
	out=$(npx jest 2>&1) && exit 1 || true &&
	jq -n --arg cwd "$PWD" --arg out "$out" "{command: \"npx jest\", exit_code: 1,
		output: \$out, cwd: \$cwd, session_id: \"g1\"}" |
		"$CALLUS" hook generic >reply &&
	jq -e . reply >/dev/null &&
	"$CALLUS" lessons --json | jq -r ".[0].error_summary" | grep -q "Received: 3"
'

test_expect_success 'bad input of every kind: exit 0, valid reply, one line on stderr' '
	git init -q bad && cd bad &&
	for input in "" "{" "[1,2]" "null" "\"str\"" "{\"tool_input\": 5}" "not json at all"; do
		printf "%s" "$input" | "$CALLUS" hook claude-code >reply 2>err ||
			{ echo "exit status $? for <$input>"; exit 1; }
		test ! -s reply || jq -e . reply >/dev/null
		test "$(wc -l <err)" -le 1
		printf "%s" "$input" | "$CALLUS" hook cline >reply 2>/dev/null
		jq -e ".cancel == false" reply >/dev/null
	done &&
	head -c 200000 /dev/urandom | "$CALLUS" hook gemini >reply 2>/dev/null &&
	{ test ! -s reply || jq -e . reply >/dev/null; }
'

test_expect_success 'a 50 MB payload is answered, and recorded' '
	git init -q big && cd big &&
	{
		printf "{\"cwd\":\"%s\",\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"Bash\"," "$PWD"
		printf "\"tool_input\":{\"command\":\"make check\"},\"error\":\"Exit code 2\\\\n"
		yes "src/main.c:1:1: error: boom\\\\n" | head -c 52428800
		printf "\"}"
	} >big.json &&
	"$CALLUS" hook claude-code <big.json >reply 2>err &&
	jq -e . reply >/dev/null &&
	# under ASan on a busy machine the deadline can cut the recording: it
	# is queued and recorded by the drainer the hook starts
	for _ in $(seq 1 240); do
		test "$(lessons)" = 1 && break
		sleep 0.5
	done &&
	test "$(lessons)" = 1
'

test_expect_success 'an unwritable store: exit 0, valid reply, trouble on stderr and in the log' '
	git init -q ro && cd ro &&
	mkdir -p .callus && head -c 4096 /dev/urandom >.callus/callus.db &&
	payload claude-code-eslint-fail | "$CALLUS" hook claude-code >reply 2>err &&
	{ test ! -s reply || jq -e . reply >/dev/null; } &&
	test "$(wc -l <err)" = 1 &&
	grep -q "^callus: lesson queued: cannot open the store .*: file is not a database; it is recorded once the store can take it$" err &&
	grep -q "record_kept" .callus/log.jsonl &&
	# kept in the queue, not lost: the store moved aside (as callus
	# doctor advises), the next drainer records it into a new one
	test "$(ls .callus/spool | grep -c "\.left\.json$")" = 1 &&
	mv .callus/callus.db callus.db.aside &&
	"$CALLUS" hook --drain generic </dev/null >/dev/null 2>&1 &&
	test -z "$(ls .callus/spool | grep "\.json$")" &&
	test "$("$CALLUS" lessons --json | jq length)" = 1
'

test_expect_success 'unknown agent or no agent: a usage error for the person typing it' '
	test_expect_code 2 "$CALLUS" hook nosuch </dev/null 2>err &&
	grep -q "unknown agent" err &&
	test_expect_code 2 "$CALLUS" hook </dev/null 2>err
'

# masked COMMAND EXIT: the generic eslint failure, run as COMMAND and ending EXIT
masked() {
	payload generic-eslint-fail | jq -c --arg c "$1" --argjson x "$2" '.command = $c | .exit_code = $x'
}

test_expect_success 'a status hidden by the command line: the output decides a failure, nothing decides a pass' '
	git init -q masked && cd masked &&
	masked "npx eslint . 2>&1 | tail -n 5" 0 | "$CALLUS" hook generic >reply &&
	test "$(lessons)" = 1 &&
	"$CALLUS" lessons --json | jq -e ".[0].tool == \"eslint\"" &&
	test "$("$CALLUS" pending --json | jq length)" = 2 &&
	# a clean output behind "|| true" says nothing: the errors stay pending
	masked "npx eslint . || true" 0 | jq -c ".output = \"\"" | "$CALLUS" hook generic >reply &&
	test "$(cat reply)" = "{}" &&
	test "$("$CALLUS" pending --json | jq length)" = 2 &&
	# nor does a run killed by a timeout, even with a clean output
	masked "timeout 5 npx eslint ." 124 | jq -c ".output = \"\"" | "$CALLUS" hook generic >reply &&
	test "$("$CALLUS" pending --json | jq length)" = 2 &&
	# the real status, unmasked, fixes them
	masked "npx eslint ." 0 | jq -c ".output = \"\"" | "$CALLUS" hook generic >reply &&
	reply_context generic reply | grep -q "went away with no change" &&
	test "$("$CALLUS" pending --json | jq length)" = 0
'

test_expect_success 'an invalid payload gets {} on stdout, the message only on stderr, and a note for callus doctor' '
	git init -q invalid && cd invalid && mkdir .callus &&
	printf "{not json" | "$CALLUS" hook gemini >reply 2>err &&
	test "$(cat reply)" = "{}" &&
	grep -q "not valid JSON" err &&
	grep -q " invalid " .callus/hook-gemini.last
'

test_expect_success 'the note is written again when it changes or is a minute old, not at every check' '
	git init -q burst && cd burst && mkdir .callus &&
	pass() { jq -n --arg c "$1" --arg d "$PWD" "{command: \$c, exit_code: 0, output: \"\", cwd: \$d}" |
		"$CALLUS" hook generic >/dev/null; } &&
	pass "npx eslint ." && grep -q " read eslint" .callus/hook-generic.last &&
	inode=$(stat -c %i .callus/hook-generic.last) &&
	pass "npx eslint src" &&
	test "$(stat -c %i .callus/hook-generic.last)" = "$inode" &&
	pass "npx jest" && grep -q " read jest" .callus/hook-generic.last &&
	inode=$(stat -c %i .callus/hook-generic.last) &&
	printf "%s read jest\n" $(($(date +%s) - 61)) >.callus/hook-generic.last &&
	pass "npx jest" &&
	test "$(cut -d" " -f1 .callus/hook-generic.last)" -ge $(($(date +%s) - 5)) &&
	# a note from ahead of the clock (a clock set back) is not trusted as fresh
	printf "%s read jest\n" $(($(date +%s) + 3600)) >.callus/hook-generic.last &&
	pass "npx jest" &&
	test "$(cut -d" " -f1 .callus/hook-generic.last)" -le $(date +%s) &&
	printf "{not json" | "$CALLUS" hook generic >/dev/null 2>&1 &&
	grep -q " invalid " .callus/hook-generic.last
'

test_done
