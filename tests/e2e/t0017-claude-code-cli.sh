#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='the real Claude Code runs callus hook claude-code (issue 20)

Claude Code from npm (tests/agents, pinned), offline, driven by a scripted
model on loopback speaking the Anthropic Messages API
(tests/agents/modelserver_anthropic.py, ANTHROPIC_BASE_URL): a failing eslint
(PostToolUseFailure) becomes a lesson and the reply reaches the model; a run
whose status a pipe hides fixes nothing; the fix and the passing run make the
resolutions; a second session gets the digest, before editing app.js the
lines of the fix made there (PreToolUse), and, for the same mistake in
another file, the past fix.  CLAUDE.md imports AGENTS.md, so the lessons
block reaches the model too.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=agentlib.sh
. "$REPO/tests/e2e/agentlib.sh"

# claude_session NAME TURNS: one `claude -p` in shop/ against a model that
# plays TURNS; the requests it received are left in NAME.log.  IS_SANDBOX:
# the tests run as root, where Claude Code takes
# --dangerously-skip-permissions only inside a sandbox (this is one).
claude_session() {
	local rc
	model_start anthropic "$1" "$2" || return 1
	(cd "$TRASH_DIRECTORY/shop" && ANTHROPIC_BASE_URL=http://127.0.0.1:$MODEL_PORT \
		ANTHROPIC_API_KEY=k CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 IS_SANDBOX=1 \
		PATH=$AGENTS/node_modules/.bin:$PATH \
		timeout -k 5 120 "$AGENTS/node_modules/.bin/claude" -p "make eslint pass" \
		--dangerously-skip-permissions --output-format json </dev/null \
		>"$TRASH_DIRECTORY/$1.out" 2>"$TRASH_DIRECTORY/$1.err")
	rc=$?
	model_stop
	return $rc
}

# bash_call COMMAND: a turn calling Claude Code's Bash tool.
bash_call() {
	jq -cn --arg c "$1" '{call: "Bash", args: {command: $c, description: "run a command"}}'
}

# read_call FILE, edit_call FILE OLD NEW: turns calling Read and Edit.
read_call() {
	jq -cn --arg f "$1" '{call: "Read", args: {file_path: $f}}'
}
edit_call() {
	jq -cn --arg f "$1" --arg o "$2" --arg n "$3" \
		'{call: "Edit", args: {file_path: $f, old_string: $o, new_string: $n}}'
}

skip_unless_cli claude
test_expect_success 'session 1: a failing eslint is a lesson, and the reply reaches the model' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init claude-code >init.out &&
	grep -q "CLAUDE.md imports AGENTS.md" init.out &&
	claude_session one "[$(bash_call "npx eslint src"),
		$(bash_call "npx eslint src 2>&1 | tail -n 3"),
		$(bash_call "cp $FIXED/app.js $FIXED/util.js src/"),
		$(bash_call "npx eslint src"), {\"text\": \"done\"}]" &&
	lesson_replied claude-code "PostToolUse:Bash hook additional context: callus: eslint passes; the fix is kept in note"
'

# read_call FILE, edit_call FILE OLD NEW: turns calling Read and Edit.
read_call() {
	jq -cn --arg f "$1" '{call: "Read", args: {file_path: $f}}'
}
edit_call() {
	jq -cn --arg f "$1" --arg o "$2" --arg n "$3" \
		'{call: "Edit", args: {file_path: $f, old_string: $o, new_string: $n}}'
}

skip_unless_cli claude
test_expect_success 'session 1: the masked run fixed nothing; the fix and the pass make the resolutions' '
	cd shop &&
	fix_kept && test "$(jq length res.json)" = 2 &&
	! grep -q "No changes" res.json
'

skip_unless_cli claude
test_expect_success 'session 2: the lessons and the digest, the fix before an edit, the past fix in another file' '
	cd shop &&
	git add -A && git -c commit.gpgSign=false commit -qm fixed &&
	claude_session two "[$(read_call "$PWD/src/app.js"),
		$(edit_call "$PWD/src/app.js" "function renderCart(items) {" "function renderCart(items) { // the cart"),
		$(bash_call "printf \"$TOTAL_JS\" > src/total.js"),
		$(bash_call "npx eslint src"), {\"text\": \"done\"}]" &&
	head -n 1 "$TRASH_DIRECTORY/two.log" | grep -q "callus: recent failed checks in this workspace" &&
	later_requests two | grep -q "PreToolUse:Edit hook additional context: callus: before you edit src/app.js" &&
	later_requests two | grep -q "    -  const currency" &&
	grep -q "// the cart" src/app.js &&
	head -n 1 "$TRASH_DIRECTORY/two.log" | grep -q "What callus learnt from this workspace" &&
	past_fix_offered
'

test_done
