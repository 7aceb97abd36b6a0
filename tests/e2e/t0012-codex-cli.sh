#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='the real Codex CLI runs callus hook codex (issue 22)

Codex CLI from npm (tests/agents, pinned), offline, driven by a scripted model
on loopback (tests/agents/modelserver_responses.py): a failing eslint becomes a
lesson and the reply reaches the model, the fix and the passing run make a
resolution with the diff, and a second session gets the digest and, for the
same mistake in another file, the past fix.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=agentlib.sh
. "$REPO/tests/e2e/agentlib.sh"

CODEX=$AGENTS/node_modules/.bin/codex

# codex_session NAME TURNS: one `codex exec` in shop/ against a model that
# plays TURNS (see agentlib.sh); the requests it received are left in NAME.log.
codex_session() {
	local dir=$TRASH_DIRECTORY name=$1 rc
	model_start responses "$name" "$2" || return 1
	mkdir -p "$dir/codex-home"
	cat >"$dir/codex-home/config.toml" <<-TOML
	model = "scripted"
	model_provider = "loopback"
	approval_policy = "never"
	sandbox_mode = "danger-full-access"
	[model_providers.loopback]
	name = "loopback"
	base_url = "http://127.0.0.1:$MODEL_PORT/v1"
	wire_api = "responses"
	env_key = "LOOPBACK_KEY"
	[projects."$dir/shop"]
	trust_level = "trusted"
	TOML
	(cd "$dir/shop" && CODEX_HOME=$dir/codex-home LOOPBACK_KEY=k \
		timeout -k 5 120 "$CODEX" exec --json --strict-config \
		--dangerously-bypass-hook-trust "make eslint pass" </dev/null \
		>"$dir/$name.out" 2>"$dir/$name.err")
	rc=$?
	model_stop
	return $rc
}

# exec_call COMMAND: a turn calling Codex's shell tool.
exec_call() {
	jq -cn --arg c "$1" '{call: "exec_command", args: {cmd: $c}}'
}

skip_unless_cli codex
test_expect_success 'session 1: a failing eslint is a lesson, and the reply reaches the model' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init codex >init.out &&
	grep -q "trusted project" init.out &&
	codex_session one "[
		$(exec_call "npx eslint src"),
		$(exec_call "cp $FIXED/app.js $FIXED/util.js src/"),
		$(exec_call "npx eslint src"),
		{\"text\": \"eslint passes\"}]" &&
	lesson_replied codex "callus: eslint passes; the fix is kept in note"
'

skip_unless_cli codex
test_expect_success 'session 1: the fix and the passing run make a resolution with the diff' '
	cd shop &&
	fix_kept
'

skip_unless_cli codex
test_expect_success 'session 1 imported into the store its hooks made: nothing counted twice' '
	cd shop &&
	import_adds_nothing codex CODEX_HOME="$TRASH_DIRECTORY/codex-home"
'

skip_unless_cli codex
test_expect_success 'session 2: the digest, then the past fix for the same mistake in another file' '
	cd shop &&
	git add -A && git -c commit.gpgSign=false commit -qm fixed &&
	codex_session two "[
		$(exec_call "printf \"$TOTAL_JS\" > src/total.js"),
		$(exec_call "npx eslint src"),
		{\"text\": \"done\"}]" &&
	head -n 1 "$TRASH_DIRECTORY/two.log" | grep -q "recent failed checks in this workspace" &&
	past_fix_offered
'

test_done
