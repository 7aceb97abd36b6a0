#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='the real Copilot CLI runs callus hook copilot (issue 20)

Copilot CLI from npm (tests/agents, pinned), offline (COPILOT_OFFLINE and a
provider base URL), driven by a scripted model on loopback speaking Chat
Completions (tests/agents/modelserver_chat.py): a failing eslint, which
Copilot reports as a tool "success" with the status only in its
"<shellId: N completed with exit code 1>" trailer, becomes a lesson and the
reply reaches the model; the fix and the passing run make the resolutions;
a second session gets the digest and, for the same mistake in another
file, the past fix.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=agentlib.sh
. "$REPO/tests/e2e/agentlib.sh"

COPILOT=$AGENTS/node_modules/.bin/copilot

# copilot_session NAME TURNS: one `copilot -p` in shop/ against a model that
# plays TURNS (see agentlib.sh); the requests it
# received are left in NAME.log. 
copilot_session() {
	local dir=$TRASH_DIRECTORY name=$1 rc
	model_start chat "$name" "$2" || return 1
	# the package unpacks itself (about 235 MB) once per test file
	(cd "$dir/shop" && COPILOT_HOME=$HOME/.copilot COPILOT_PKG_CACHE_HOME=$dir/pkg-cache \
		COPILOT_OFFLINE=true COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:$MODEL_PORT/v1 \
		COPILOT_PROVIDER_WIRE_API=completions COPILOT_MODEL=scripted \
		COPILOT_AUTO_UPDATE=false npm_config_offline=true \
		npm_config_update_notifier=false \
		timeout -k 5 120 "$COPILOT" -p "make eslint pass" --allow-all-tools \
		--trust-folder --add-dir "$FIXED" --no-auto-update --no-ask-user \
		--disable-client-telemetry --no-color </dev/null \
		>"$dir/$name.out" 2>"$dir/$name.err")
	rc=$?
	model_stop
	return $rc
}

# bash_call COMMAND: a turn calling Copilot's shell tool.
bash_call() {
	jq -cn --arg c "$1" '{call: "bash", args: {command: $c, description: "run a command"}}'
}

skip_unless_cli copilot
test_expect_success 'session 1: a failing eslint is a lesson, and the reply reaches the model' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init copilot >init.out &&
	grep -q "trusted folder" init.out &&
	copilot_session one "[$(bash_call "npx eslint src"),
		$(bash_call "cp $FIXED/app.js $FIXED/util.js src/"),
		$(bash_call "npx eslint src"), {\"text\": \"eslint passes\"}]" &&
	lesson_replied copilot "Additional guidance from postToolUse hooks:\\\\ncallus: eslint passes; the fix is kept in note"
'

skip_unless_cli copilot
test_expect_success 'session 1: the fix and the passing run make the resolutions, with the diff' '
	cd shop &&
	fix_kept && test "$(jq length res.json)" = 2
'

skip_unless_cli copilot
test_expect_success 'session 1 imported into the store its hooks made: nothing counted twice' '
	cd shop &&
	import_adds_nothing copilot COPILOT_HOME="$HOME/.copilot"
'

skip_unless_cli copilot
test_expect_success 'session 2: the digest, then the past fix for the same mistake in another file' '
	cd shop &&
	git add -A && git -c commit.gpgSign=false commit -qm fixed &&
	copilot_session two "[$(bash_call "printf \"$TOTAL_JS\" > src/total.js"),
		$(bash_call "npx eslint src"), {\"text\": \"done\"}]" &&
	head -n 1 "$TRASH_DIRECTORY/two.log" | grep -q "recent failed checks in this workspace" &&
	past_fix_offered
'

test_done
