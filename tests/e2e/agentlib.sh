# shellcheck shell=bash
# agentlib.sh - what the real-agent tests (t0012, t0013, t0015 ... t0017)
# share, sourced after lib.sh: the CLIs installed in tests/agents, the
# scripted model servers beside them, and the scenario's files.
#
# A model server (tests/agents/modelserver_*.py) plays a list of turns on
# loopback and logs every request body as one JSON line: what reached the
# model is asserted on that log.

AGENTS=$REPO/tests/agents
# the eslint-project fixture with its two errors fixed: the model's "fix"
FIXED=$FIXTURES/eslint-project.fixed/src
# session 2's new file: the same unused-variable mistake as app.js had
TOTAL_JS='function total(items) {\n  const tax = 2;\n  return items.length;\n}\nmodule.exports = total;\n'

# skip_unless_cli NAME: skips the next test unless tests/agents has the CLI
# NAME (and python3 for the model).
skip_unless_cli() {
	if [ ! -x "$AGENTS/node_modules/.bin/$1" ]; then
		test_skip "$1 CLI not installed in tests/agents (scripts/install-agent-clis.sh)"
	elif ! command -v python3 >/dev/null; then
		test_skip "python3 (the scripted model) not found"
	fi
}

# model_start SERVER NAME TURNS: starts tests/agents/modelserver_SERVER.py
# playing TURNS (a JSON list of {"call": TOOL, "args": {...}} and
# {"text": "..."}), its requests logged in NAME.log; sets MODEL_PORT and
# MODEL_PID.  Fails when the server did not say its port within 5 s.
model_start() {
	local dir=$TRASH_DIRECTORY
	printf '%s\n' "$3" >"$dir/$2.turns"
	rm -f "$dir/$2.port"
	PYTHONDONTWRITEBYTECODE=1 python3 "$AGENTS/modelserver_$1.py" "$dir/$2.port" "$dir/$2.log" "$dir/$2.turns" \
		2>"$dir/$2.model-err" &
	MODEL_PID=$!
	for _ in $(seq 50); do [ -s "$dir/$2.port" ] && break; sleep 0.1; done
	MODEL_PORT=$(cat "$dir/$2.port" 2>/dev/null)
	[ -n "$MODEL_PORT" ]
}

# model_stop: stops the server model_start started, by its pid.
model_stop() {
	kill "$MODEL_PID" 2>/dev/null
	wait "$MODEL_PID" 2>/dev/null
	return 0
}

# later_requests NAME: the requests after the first, what the model was sent
# once tools had run.
later_requests() {
	tail -n +2 "$TRASH_DIRECTORY/$1.log"
}

# The scenario's checks, the same for every agent (run in shop/):
#
# lesson_replied AGENT TEXT: session 1's failing eslint is one lesson about
# src/app.js, TEXT (a grep pattern: a reply as the agent frames it; a first
# failure says nothing new, so it is the passing run's) reached the model in
# a later request of one.log, and the hook could read the check's exit
# status.
lesson_replied() {
	{ "$CALLUS" lessons --json >lessons.json &&
		jq -e 'map(select(.file == "src/app.js" and .tool == "eslint")) | length == 1' \
			lessons.json >/dev/null &&
		later_requests one | grep -q "$2" &&
		grep -q " read eslint" ".callus/hook-$1.last"; } || { agent_said one; return 1; }
}

# agent_said NAME: what callus told the agent, recorded and queued, for a
# failed check of a session's outcome (a flake is read from its log)
agent_said() {
	# each line whatever the one before found: a test body runs under
	# errexit, and a missing file (a hook that never ran) is what to see
	echo "# callus's replies that reached the model in $1:"
	{ later_requests "$1" | grep -o 'callus: [^"\\]*' | sort | uniq -c | head -n 20; } || true
	echo "# hook health:"
	cat .callus/hook-*.last 2>/dev/null || echo "(none)"
	echo "# queued:"
	ls .callus/spool 2>/dev/null || echo "(no queue)"
	echo "# pending:"
	{ "$CALLUS" pending --json 2>&1 | head -c 2000; } || true
	echo "# the log's last lines:"
	{ tail -n 15 .callus/log.jsonl 2>/dev/null | cut -c1-300; } || true
	return 0
}

# fix_kept: the passing run made a resolution for app.js's unused variable
# with the line the fix removed, the model was told, nothing is pending.
fix_kept() {
	{ "$CALLUS" resolutions --json >res.json &&
		"$CALLUS" resolutions show \
			"$(jq -r 'map(select(.message | test("currency")))[0].id' res.json)" >fix &&
		grep -q "^-  const currency" fix &&
		later_requests one | grep -q "callus: eslint passes; the fix is kept in note" &&
		test "$("$CALLUS" pending --json | jq length)" = 0; } || { agent_said one; return 1; }
}

# past_fix_offered: session 2's same mistake in src/total.js is answered
# with the past fix.
past_fix_offered() {
	{ later_requests two | grep -q "callus: what fixed errors like this before" &&
		later_requests two | grep -q "note [0-9a-f]\{12\} (worked"; } ||
		{ agent_said two; return 1; }
}

# import_adds_nothing AGENT [NAME=VALUE...]: the agent's own transcripts of
# this workspace (read where NAME=VALUE says) imported into the store its
# hooks made as they ran: each failure is found recorded live (the hook's
# session id is the transcript's) and the store is unchanged.
import_adds_nothing() {
	local agent=$1 dir=$TRASH_DIRECTORY
	shift
	sqlite3 .callus/callus.db .dump >"$dir/live.dump" &&
	env "$@" "$CALLUS" import --agent "$agent" --project . >"$dir/import.out" &&
	{ grep -q "failures the hooks recorded when they ran, not counted again: [1-9]" \
		"$dir/import.out" || { cat "$dir/import.out"; return 1; }; } &&
	sqlite3 .callus/callus.db .dump >"$dir/imported.dump" &&
	test_cmp "$dir/live.dump" "$dir/imported.dump"
}
