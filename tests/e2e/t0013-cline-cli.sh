#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='the real Cline CLI runs callus hook cline (issue 22)

Cline CLI from npm (tests/agents, pinned), offline, driven by a scripted model
on loopback (tests/agents/modelserver_chat.py): run_commands carrying one
failing eslint becomes a lesson and the reply reaches the model; one call
carrying the fix and the passing eslint makes the resolutions; a second task
making the same mistake in another file gets the past fix.  Cline discards
its TaskStart hook output, so no session-start digest reaches it (the lessons
reach it through AGENTS.md).'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

AGENTS=$REPO/tests/agents
CLINE=$AGENTS/node_modules/.bin/cline
FIXED=$FIXTURES/eslint-project.fixed/src
SUBMIT='{"call": "submit_and_exit", "args": {"result": "done", "summary": "done", "verified": true}}'

skip_unless_cline() {
	if [ ! -x "$CLINE" ]; then
		test_skip "Cline CLI not installed in tests/agents (scripts/install-agent-clis.sh)"
	elif ! command -v python3 >/dev/null; then
		test_skip "python3 (the scripted model) not found"
	fi
}

# cline_task NAME TURNS: one `cline --json -y` task in shop/ (a private HOME
# under the test's directory) against a model playing TURNS; the requests
# are left in NAME.log.  The model server is stopped by its pid.
cline_task() {
	local dir=$TRASH_DIRECTORY name=$1 pid port rc
	printf '%s\n' "$2" >"$dir/$name.turns"
	rm -f "$dir/$name.port"
	python3 "$AGENTS/modelserver_chat.py" "$dir/$name.port" "$dir/$name.log" "$dir/$name.turns" &
	pid=$!
	for _ in $(seq 50); do [ -s "$dir/$name.port" ] && break; sleep 0.1; done
	port=$(cat "$dir/$name.port")
	mkdir -p "$dir/cline-home"
	(cd "$dir/shop" && HOME=$dir/cline-home &&
		timeout -k 5 60 "$CLINE" auth --provider openai --apikey k --modelid scripted \
			--baseurl "http://127.0.0.1:$port/v1" >"$dir/$name.auth" 2>&1 &&
		timeout -k 5 120 "$CLINE" --json -y "make eslint pass" </dev/null \
			>"$dir/$name.out" 2>"$dir/$name.err")
	rc=$?
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return $rc
}

later_requests() {
	tail -n +2 "$TRASH_DIRECTORY/$1.log"
}

skip_unless_cline
test_expect_success 'task 1: a failing eslint in run_commands is a lesson, and the reply reaches the model' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init cline >init.out &&
	grep -q "Cline CLI runs it as it is" init.out &&
	cline_task one "[
		{\"call\": \"run_commands\", \"args\": {\"commands\": [\"npx eslint src\"]}},
		{\"call\": \"run_commands\", \"args\": {\"commands\": [\"cp $FIXED/app.js $FIXED/util.js src/\", \"npx eslint src\"]}},
		$SUBMIT]" &&
	test "$("$CALLUS" lessons --json | jq length)" = 1 &&
	later_requests one | grep -q "hook_context source=..PostToolUse" &&
	later_requests one | grep -q "callus: eslint failed (exit 1) in src/app.js; recorded lesson #1"
'

skip_unless_cline
test_expect_success 'task 1: one call with the fix and the passing eslint makes the resolutions' '
	cd shop &&
	"$CALLUS" resolutions --json >res.json &&
	jq -e "length >= 1" res.json &&
	"$CALLUS" resolutions show "$(jq -r ".[0].id" res.json)" >fix &&
	grep -q "^-  const currency" fix &&
	later_requests one | grep -q "callus: eslint passes now" &&
	test "$("$CALLUS" pending --json | jq length)" = 0 &&
	grep -q " read eslint" .callus/hook-cline.last
'

skip_unless_cline
test_expect_success 'task 2: the same mistake in another file gets the past fix' '
	cd shop &&
	git add -A && git -c commit.gpgSign=false commit -qm fixed &&
	cline_task two "[
		{\"call\": \"run_commands\", \"args\": {\"commands\": [\"printf \\\"function total(items) {\\\\n  const tax = 2;\\\\n  return items.length;\\\\n}\\\\nmodule.exports = total;\\\\n\\\" > src/total.js\", \"npx eslint src\"]}},
		$SUBMIT]" &&
	later_requests two | grep -q "callus: eslint failed (exit 1) in src/total.js" &&
	later_requests two | grep -q "past fix #"
'

test_done
