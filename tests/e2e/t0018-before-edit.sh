#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus hook before an edit (issue 20, item 3)

Claude Code asks the hook before Edit, Write, MultiEdit and NotebookEdit
(PreToolUse, the payload the real CLI sent: tests/hooks/fixtures/real/
claude-code-edit.json).  For a file where real eslint errors were fixed the
reply carries the lines each fix changed; for a file callus knows nothing
about it is {} and the store is never opened (the file index answers); a
store from before the index gets one.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# edit_payload FILE: Claude Code's PreToolUse of Edit on FILE, run in $PWD
edit_payload() {
	jq --arg cwd "$PWD" --arg f "$1" '.cwd = $cwd | .tool_input.file_path = $f' \
		"$REPO/tests/hooks/fixtures/real/claude-code-edit.json"
}

context() {
	jq -r '.hookSpecificOutput.additionalContext // empty' "$1"
}

test_expect_success 'init claude-code hooks the edit tools before they run' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init claude-code >out &&
	jq -e ".hooks.PreToolUse[0].matcher == \"Edit|Write|MultiEdit|NotebookEdit\"" \
		.claude/settings.json &&
	jq -e ".hooks.PreToolUse[0].hooks[0].command | endswith(\"callus hook claude-code\")" \
		.claude/settings.json
'

test_expect_success 'nothing learnt yet: {} and no store made' '
	cd shop &&
	edit_payload "$PWD/src/app.js" | "$CALLUS" hook claude-code >reply 2>err &&
	test "$(cat reply)" = "{}" && test_must_be_empty err &&
	test ! -e .callus
'

test_expect_success 'after a real eslint fix: the fix'"'"'s lines before editing the file' '
	cd shop &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
	cp "$FIXTURES/eslint-project.fixed/src/"*.js src/ &&
	"$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
	grep -qx "src/app.js" .callus/files.idx &&
	edit_payload "$PWD/src/app.js" | "$CALLUS" hook claude-code >reply 2>err &&
	test_must_be_empty err &&
	jq -e ".hookSpecificOutput.hookEventName == \"PreToolUse\"" reply &&
	context reply >ctx &&
	grep -q "^callus: before you edit src/app.js" ctx &&
	grep -q "no-unused-vars: ..currency. is assigned a value but never used" ctx &&
	grep -q "fixed, note [0-9a-f]\{12\} (worked 1 of 1 time)" ctx &&
	grep -q "^    -  const currency" ctx &&
	! grep -q "decimals" ctx &&
	id=$("$CALLUS" notes --json | jq -r "map(select(.title | test(\"currency\")))[0].id") &&
	"$CALLUS" note "$id" --rule "delete a variable you stop using" &&
	edit_payload "$PWD/src/app.js" | "$CALLUS" hook claude-code >reply &&
	context reply | grep -q "^  Rule: delete a variable you stop using" &&
	"$CALLUS" metrics | grep -q "callus_hook_latency_seconds_count{agent=\"claude-code\",path=\"before_edit\"} 2"
'

test_expect_success 'a path relative to the working directory is the same file' '
	cd shop/src &&
	edit_payload app.js | "$CALLUS" hook claude-code >reply &&
	context reply | grep -q "^callus: before you edit src/app.js"
'

test_expect_success 'a file callus knows nothing about: {} without opening the store' '
	cd shop &&
	mv .callus saved && mkdir -m 700 .callus && cp saved/files.idx .callus/ &&
	echo "not a database" >.callus/callus.db &&
	edit_payload "$PWD/eslint.config.js" | "$CALLUS" hook claude-code >reply 2>err &&
	test "$(cat reply)" = "{}" && test_must_be_empty err &&
	for f in /etc/passwd ../../etc/passwd "" src/../../outside.js src/app.js/..; do
		edit_payload "$f" | "$CALLUS" hook claude-code >reply 2>err &&
		test "$(cat reply)" = "{}" && test_must_be_empty err || return 1
	done &&
	rm -r .callus && mv saved .callus
'

test_expect_success 'a store without an index: answered from the store, which makes one' '
	cd shop &&
	rm .callus/files.idx &&
	edit_payload "$PWD/src/util.js" | "$CALLUS" hook claude-code >reply 2>err &&
	context reply | grep -q "no-undef: ..decimals. is not defined" &&
	test -f .callus/files.idx && grep -qx "src/util.js" .callus/files.idx &&
	test "$(stat -c %a .callus/files.idx)" = 600
'

test_expect_success 'a broken store never breaks the edit: {} and one line on stderr (so an empty stderr above means the store was not opened)' '
	cd shop &&
	echo "not a database" >.callus/callus.db && rm -f .callus/callus.db-wal .callus/callus.db-shm &&
	edit_payload "$PWD/src/app.js" | "$CALLUS" hook claude-code >reply 2>err &&
	test "$(cat reply)" = "{}" &&
	test "$(wc -l <err)" = 1 && grep -q "callus.db" err
'

test_done
