#!/bin/sh
# bench/hook.sh - the agent hook's cost, against hooks that only parse the
# same JSON: a minimal Node.js hook and a minimal Python hook.
#
# Payloads: Claude Code PostToolUse for `ls -la` (not a check: callus answers
# without opening the store) and PostToolUseFailure for a failing eslint run
# (callus records a lesson), then PostToolUse for passing checks: eslint, which
# failed just before (its pending errors are fixed), and tsc, which never
# failed here (one read, no write); last PreToolUse of Edit, for a file callus
# knows nothing about (against cat: the file index answers, no store) and
# for src/app.js, where those errors were fixed (the store is read).  Each command runs N times with the payload on
# stdin; bench/proctime reports per-process CPU time (user + system, from
# wait4) and wall time: min / median / max in ms.
# Usage: bench/hook.sh [N] [path/to/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-200}
callus=${2:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe hook "$callus") || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"

cd "$work"
git init -q ws
cat >ls.json <<'JSON'
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"WS","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls -la","description":"List files"},"tool_response":{"stdout":"total 8\ndrwxr-xr-x 2 u u 4096 .\ndrwxr-xr-x 9 u u 4096 ..\n","stderr":"","interrupted":false,"isImage":false}}
JSON
cat >eslint.json <<'JSON'
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"WS","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"npx eslint src"},"error":"Exit code 1\n\nWS/src/app.js\n  4:9  error  'currency' is assigned a value but never used  no-unused-vars\n\nWS/src/util.js\n  2:25  error  'decimals' is not defined  no-undef\n\n✖ 2 problems (2 errors, 0 warnings)\n","is_interrupt":false}
JSON
# passing checks: one that failed before (its pending errors are fixed,
# then its runs counted) and one that never failed here (one read, no write)
cat >eslint-pass.json <<'JSON'
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"WS","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npx eslint src"},"tool_response":{"stdout":"","stderr":"","interrupted":false,"isImage":false}}
JSON
cat >tsc-pass.json <<'JSON'
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"WS","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npx tsc --noEmit"},"tool_response":{"stdout":"","stderr":"","interrupted":false,"isImage":false}}
JSON
# before an edit of a file callus knows nothing about (the file index
# answers), and of src/app.js, where the eslint errors above were fixed
cat >edit.json <<'JSON'
{"session_id":"bench","transcript_path":"/tmp/t.jsonl","cwd":"WS","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"WS/src/other.js","old_string":"a","new_string":"b","replace_all":false},"tool_use_id":"t1"}
JSON
sed 's|src/other.js|src/app.js|' edit.json >edit-known.json
sed -i "s|WS|$work/ws|g" ls.json eslint.json eslint-pass.json tsc-pass.json edit.json edit-known.json
cat >hook.js <<'JS'
let d = "";
process.stdin.on("data", (c) => (d += c)).on("end", () => { JSON.parse(d); });
JS
cat >hook.py <<'PY'
import json, sys
json.load(sys.stdin)
PY

cd ws
# row TITLE PAYLOAD-NAME PAYLOAD-FILE CMD [ARGS...]
row() {
	title=$1 what=$2 input=$3
	shift 3
	printf "| %s | %s |" "$title" "$what"
	"$work/proctime" "$n" "$input" "$@" | {
		read -r cmin cmed cmax wmin wmed wmax _
		printf " %s / %s / %s | %s / %s / %s |\n" "$cmin" "$cmed" "$cmax" "$wmin" "$wmed" "$wmax"
	}
}
echo "| hook | payload | CPU ms min / median / max | wall ms min / median / max |"
echo "|:---|:---|---:|---:|"
command -v node >/dev/null && row "node (parse only)" "ls -la" ../ls.json node ../hook.js
command -v python3 >/dev/null && row "python3 (parse only)" "ls -la" ../ls.json python3 ../hook.py
row "callus hook claude-code" "ls -la" ../ls.json "$callus" hook claude-code
command -v node >/dev/null && row "node (parse only)" "eslint failure" ../eslint.json node ../hook.js
row "callus hook claude-code" "eslint failure (recorded)" ../eslint.json "$callus" hook claude-code
row "callus hook claude-code" "eslint passes (a check that failed)" ../eslint-pass.json "$callus" hook claude-code
row "callus hook claude-code" "tsc passes (never failed here)" ../tsc-pass.json "$callus" hook claude-code
row "cat (baseline)" "before an edit" ../edit.json cat
row "callus hook claude-code" "before an edit, nothing known" ../edit.json "$callus" hook claude-code
row "callus hook claude-code" "before an edit of a fixed file" ../edit-known.json "$callus" hook claude-code
