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
# shellcheck source=agentlib.sh
. "$REPO/tests/e2e/agentlib.sh"

CLINE=$AGENTS/node_modules/.bin/cline
SUBMIT='{"call": "submit_and_exit", "args": {"result": "done", "summary": "done", "verified": true}}'

# cline_task NAME TURNS: one `cline --json -y` task in shop/ (a private HOME
# under the test's directory) against a model playing TURNS; the requests
# are left in NAME.log. 
cline_task() {
	local dir=$TRASH_DIRECTORY name=$1 rc
	model_start chat "$name" "$2" || return 1
	mkdir -p "$dir/cline-home"
	(cd "$dir/shop" && HOME=$dir/cline-home &&
		timeout -k 5 60 "$CLINE" auth --provider openai --apikey k --modelid scripted \
			--baseurl "http://127.0.0.1:$MODEL_PORT/v1" >"$dir/$name.auth" 2>&1 &&
		timeout -k 5 120 "$CLINE" --json -y "make eslint pass" </dev/null \
			>"$dir/$name.out" 2>"$dir/$name.err")
	rc=$?
	model_stop
	return $rc
}

# commands_call COMMAND...: a turn calling Cline CLI's run_commands.
commands_call() {
	jq -cn '{call: "run_commands", args: {commands: $ARGS.positional}}' --args "$@"
}

skip_unless_cli cline
test_expect_success 'task 1: a failing eslint in run_commands is a lesson, and the reply reaches the model' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init cline >init.out &&
	grep -q "Cline CLI runs it as it is" init.out &&
	cline_task one "[
		$(commands_call "npx eslint src"),
		$(commands_call "cp $FIXED/app.js $FIXED/util.js src/" "npx eslint src"),
		$SUBMIT]" &&
	later_requests one | grep -q "hook_context source=..PostToolUse" &&
	lesson_replied cline "callus: eslint passes; the fix is kept in note"
'

skip_unless_cli cline
test_expect_success 'task 1: one call with the fix and the passing eslint makes the resolutions' '
	cd shop &&
	fix_kept
'

skip_unless_cli cline
test_expect_success 'task 2: the same mistake in another file gets the past fix' '
	cd shop &&
	git add -A && git -c commit.gpgSign=false commit -qm fixed &&
	cline_task two "[
		$(commands_call "printf \"$TOTAL_JS\" > src/total.js" "npx eslint src"),
		$SUBMIT]" &&
	past_fix_offered
'

test_done
