#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='the real Gemini CLI runs callus hook gemini (issue 20)

Gemini CLI from npm (tests/agents, pinned), offline, driven by a scripted
model on loopback speaking the Gemini API (tests/agents/modelserver_gemini.py,
GOOGLE_GEMINI_BASE_URL): a failing eslint, whose status Gemini gives only
inside its <untrusted_context> wrapper, becomes a lesson and the reply
reaches the model as <hook_context>; the fix and the passing run make the
resolutions; a second session gets the digest and, for the same mistake in
another file, the past fix.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=agentlib.sh
. "$REPO/tests/e2e/agentlib.sh"

GEMINI=$AGENTS/node_modules/.bin/gemini

# gemini_session NAME TURNS: one `gemini -p` in shop/ against a model that
# plays TURNS (see agentlib.sh); the requests it
# received are left in NAME.log. 
gemini_session() {
	local dir=$TRASH_DIRECTORY name=$1 rc
	model_start gemini "$name" "$2" || return 1
	# API-key auth against the base URL, no update checks, no telemetry
	mkdir -p "$HOME/.gemini"
	cat >"$HOME/.gemini/settings.json" <<-\JSON
	{"security": {"auth": {"selectedType": "gemini-api-key"}},
	 "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
	 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}}
	JSON
	# the CLI wants Node 22, which tests/agents installs beside it
	(cd "$dir/shop" && PATH=$AGENTS/node_modules/.bin:$PATH GEMINI_API_KEY=k \
		GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:$MODEL_PORT GEMINI_CLI_TRUST_WORKSPACE=true \
		GEMINI_TELEMETRY_ENABLED=false NPM_CONFIG_UPDATE_NOTIFIER=false \
		NO_UPDATE_NOTIFIER=1 timeout -k 5 120 "$GEMINI" -p "make eslint pass" --yolo \
		--output-format json </dev/null >"$dir/$name.out" 2>"$dir/$name.err")
	rc=$?
	model_stop
	return $rc
}

# shell_call COMMAND: a turn calling Gemini's shell tool.
shell_call() {
	jq -cn --arg c "$1" '{call: "run_shell_command", args: {command: $c}}'
}

skip_unless_cli gemini
test_expect_success 'session 1: a failing eslint is a lesson, and the reply reaches the model' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init gemini >init.out &&
	grep -q "trusted folder" init.out &&
	gemini_session one "[$(shell_call "npx eslint src"),
		$(shell_call "cp $FIXED/app.js $FIXED/util.js src/"),
		$(shell_call "npx eslint src"), {\"text\": \"done\"}]" &&
	lesson_replied gemini "<hook_context>callus: eslint passes; the fix is kept in note"
'

skip_unless_cli gemini
test_expect_success 'session 1: the fix and the passing run make the resolutions, with the diff' '
	cd shop &&
	fix_kept && test "$(jq length res.json)" = 2
'

skip_unless_cli gemini
test_expect_success 'session 1 imported into the store its hooks made: nothing counted twice' '
	cd shop &&
	import_adds_nothing gemini HOME="$HOME"
'

skip_unless_cli gemini
test_expect_success 'session 2: the digest, then the past fix for the same mistake in another file' '
	cd shop &&
	git add -A && git -c commit.gpgSign=false commit -qm fixed &&
	gemini_session two "[$(shell_call "printf \"$TOTAL_JS\" > src/total.js"),
		$(shell_call "npx eslint src"), {\"text\": \"done\"}]" &&
	head -n 1 "$TRASH_DIRECTORY/two.log" | grep -q "<hook_context>callus: fixes that worked in this repository" &&
	past_fix_offered
'

test_done
