#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='a workspace made under the former name carries over (issue 18)

tests/fixtures/deja-workspace/ was made by deja, callus'"'"'s former name
(lessons, a resolution and a pending error in .deja/deja.db, a lessons
block in AGENTS.md, hooks for Claude Code, Copilot and Cline): the first
callus run moves the store to .callus/ and rewrites the markers, nothing
learnt is lost, and callus init replaces the old hook entries, saying so.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

test_expect_success 'the first run moves .deja/ to .callus/ and keeps what was learnt' '
	setup_fixture deja-workspace ws && cd ws &&
	"$CALLUS" status >out 2>err &&
	grep -q "moved the store of deja (callus.s former name) from .deja/ to .callus/" err &&
	test ! -e .deja && test -f .callus/callus.db && test ! -e .callus/deja.db &&
	test "$(stat -c %a .callus)" = 700 &&
	test "$("$CALLUS" lessons --json | jq length)" = 2 &&
	test "$("$CALLUS" resolutions --json | jq length)" = 1 &&
	test "$("$CALLUS" pending --json | jq length)" = 1 &&
	test "$(sqlite3 .callus/callus.db "SELECT DISTINCT m.name FROM signature_vectors v JOIN vector_models m ON m.id = v.model")" = callus-builtin-1
'

test_expect_success 'the lessons block keeps its place under the new markers' '
	cd ws &&
	test "$(grep -c "^<!-- callus:lessons:begin -->$" AGENTS.md)" = 1 &&
	test "$(grep -c "^<!-- callus:lessons:end -->$" AGENTS.md)" = 1 &&
	! grep -q "deja:lessons" AGENTS.md
'

test_expect_success 'a second run says nothing and moves nothing' '
	cd ws &&
	"$CALLUS" status >out 2>err &&
	! grep -q moved err && test ! -e .deja
'

test_expect_success 'the same mistake in another file gets the fix learnt under the old name' '
	cd ws &&
	printf "int third(int n)\n{\n\treturn n - z;\n}\n" >third.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -c third.c >out 2>&1 &&
	grep -q "callus: what fixed errors like this before" out &&
	test "$(grep -c "callus:lessons:begin" AGENTS.md)" = 1 &&
	grep -q "What callus learnt from this workspace" AGENTS.md
'

test_expect_success 'callus doctor names the hooks that still run the old program' '
	cd ws &&
	test_expect_code 1 "$CALLUS" doctor >out 2>&1 &&
	grep -q "claude-code: .*still runs deja, callus.s former name" out &&
	grep -q "copilot: .\.github/hooks/deja\.json. still runs deja" out
'

test_expect_success 'callus init replaces the old hook entries, once, saying so' '
	cd ws &&
	"$CALLUS" init claude-code >out &&
	grep -q "replaced 3 hook entries of deja (callus.s former name)" out &&
	test "$(jq "[.. | .command? // empty | select(test(\"hook claude-code\"))] | length" .claude/settings.json)" = 4 &&
	! grep -q "deja hook" .claude/settings.json &&
	"$CALLUS" init claude-code >again &&
	! grep -q "former name" again &&
	"$CALLUS" init cline >out &&
	grep -q "replaced 1 hook entry of deja" out &&
	grep -q "^# callus:hook" .clinerules/hooks/PostToolUse && test -x .clinerules/hooks/PostToolUse &&
	! grep -q deja .clinerules/hooks/PostToolUse
'

test_expect_success 'Copilot: the old file goes, the new one has the hook' '
	cd ws &&
	"$CALLUS" init copilot >out &&
	grep -q "deleted .\.github/hooks/deja\.json., the hook of deja" out &&
	test ! -e .github/hooks/deja.json &&
	jq -e ".hooks.postToolUse[0].bash | endswith(\"callus hook copilot\")" .github/hooks/callus.json &&
	{ "$CALLUS" doctor >out 2>&1 || :; } &&
	grep -q "copilot: callus.s hook is in" out && ! grep -q "deja\.json" out
'

test_expect_success 'a hook run by an agent migrates a workspace too' '
	setup_fixture deja-workspace ws2 && cd ws2 &&
	printf "%s" "{\"session_id\":\"s\",\"cwd\":\"$PWD\",\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"gcc -c other.c\"},\"tool_response\":{\"stdout\":\"\",\"stderr\":\"\",\"interrupted\":false}}" |
		"$CALLUS" hook claude-code >reply &&
	jq -e . reply >/dev/null &&
	test ! -e .deja && test -f .callus/callus.db &&
	test "$("$CALLUS" lessons --json | jq length)" = 2
'

test_expect_success 'a workspace with both keeps .deja/ and uses .callus/' '
	setup_fixture deja-workspace ws3 && cd ws3 &&
	mkdir -m 700 .callus &&
	"$CALLUS" status >out 2>err &&
	test -f .deja/deja.db &&
	test "$("$CALLUS" lessons --json | jq length)" = 0 &&
	{ "$CALLUS" doctor >out 2>&1 || true; } &&
	grep -q "both .deja/ (deja, callus.s old name) and .callus/ exist" out
'

test_done
