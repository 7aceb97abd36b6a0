# scripts/hook-payloads.sh - Claude Code's hook payloads, for the scripts
# that run callus's hooks as an agent calls them (scripts/text-order.sh,
# bench/textpages.sh).  Sourced; each writes one payload into FILE, for
# the workspace the caller names in $ws:
#   payload_post FILE COMMAND [STDOUT]   PostToolUse of Bash, exited 0
#   payload_failed FILE COMMAND OUTPUT   PostToolUseFailure, exit 1
#   payload_edit FILE PATH               PreToolUse of an Edit of $ws/PATH
#   payload_start FILE                   SessionStart
payload_post() {
	jq -n --arg cwd "$ws" --arg cmd "$2" --arg out "${3:-}" \
		'{session_id: "callus-payload", transcript_path: "/tmp/callus-payload.jsonl",
		  cwd: $cwd, hook_event_name: "PostToolUse", tool_name: "Bash",
		  tool_input: {command: $cmd},
		  tool_response: {stdout: $out, stderr: "", interrupted: false, isImage: false}}' >"$1"
}
payload_failed() {
	jq -n --arg cwd "$ws" --arg cmd "$2" --arg out "$3" \
		'{session_id: "callus-payload", transcript_path: "/tmp/callus-payload.jsonl",
		  cwd: $cwd, hook_event_name: "PostToolUseFailure", tool_name: "Bash",
		  tool_input: {command: $cmd}, error: ("Exit code 1\n\n" + $out),
		  is_interrupt: false}' >"$1"
}
payload_edit() {
	jq -n --arg cwd "$ws" --arg f "$ws/$2" \
		'{session_id: "callus-payload", transcript_path: "/tmp/callus-payload.jsonl",
		  cwd: $cwd, hook_event_name: "PreToolUse", tool_name: "Edit",
		  tool_input: {file_path: $f, old_string: "a", new_string: "b"}}' >"$1"
}
payload_start() {
	jq -n --arg cwd "$ws" \
		'{session_id: "callus-payload", transcript_path: "/tmp/callus-payload.jsonl",
		  cwd: $cwd, hook_event_name: "SessionStart", source: "startup"}' >"$1"
}
