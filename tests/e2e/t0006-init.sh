#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus init: the agents hook settings

init merges callus'"'"'s hook into an agent'"'"'s settings file and keeps everything
else, writes a backup, changes nothing the second time, refuses files it
cannot edit safely, and --remove gives back the original; the hook command
it writes really runs callus hook.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# A Claude Code project settings file as people have them: permissions,
# env, other hooks in the events callus uses (one on the same matcher) and in
# another event.
# shellcheck disable=SC2317 # called from the test bodies
write_claude_settings() {
	mkdir -p .claude &&
		cat >.claude/settings.json <<-\EOF
		{
		  "permissions": {
		    "allow": ["Bash(npm test:*)", "Bash(npx eslint:*)"],
		    "deny": ["Read(./.env)"]
		  },
		  "hooks": {
		    "PostToolUse": [
		      {
		        "matcher": "Bash",
		        "hooks": [{"type": "command", "command": "./scripts/log-bash.sh", "timeout": 5}]
		      },
		      {
		        "matcher": "Edit|Write",
		        "hooks": [{"type": "command", "command": "npx prettier --write \"$CLAUDE_PROJECT_DIR\""}]
		      }
		    ],
		    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
		  },
		  "env": {"NODE_ENV": "test"},
		  "cleanupPeriodDays": 30
		}
		EOF
}

test_expect_success 'init claude-code: merged, backup written, second run changes nothing' - <<\EOF
git init -q ws && cd ws &&
write_claude_settings &&
cp .claude/settings.json orig.json &&
PATH=/usr/bin:/bin "$CALLUS" init claude-code >out &&
grep -q "^claude-code: configured in '.claude/settings.json'" out &&
grep -q "previous version saved as '.claude/settings.json.callus-backup'" out &&
cmp orig.json .claude/settings.json.callus-backup &&
# the user's hooks and settings are all still there
jq -e --slurpfile o orig.json '
	.permissions == $o[0].permissions and .env == $o[0].env and
	.cleanupPeriodDays == 30 and .hooks.Stop == $o[0].hooks.Stop and
	.hooks.PostToolUse[0] == $o[0].hooks.PostToolUse[0] and
	.hooks.PostToolUse[1] == $o[0].hooks.PostToolUse[1]' .claude/settings.json &&
# and callus's, with this callus by its path (it is not on that PATH)
want="$(realpath "$CALLUS") hook claude-code" &&
jq -e --arg c "$want" '
	.hooks.PostToolUse[2] == {matcher: "Bash", hooks: [{type: "command", command: $c, timeout: 10}]} and
	.hooks.PostToolUseFailure == [{matcher: "Bash", hooks: [{type: "command", command: $c, timeout: 10}]}] and
	.hooks.SessionStart == [{hooks: [{type: "command", command: $c}]}]' .claude/settings.json &&
grep -q "^hook command: $want (this callus is not on PATH" out &&
# key order kept, 2-space indent, final newline
test "$(jq -r 'keys_unsorted | join(",")' .claude/settings.json)" = "permissions,hooks,env,cleanupPeriodDays" &&
head -2 .claude/settings.json | tail -1 | grep -q '^  "permissions": {$' &&
test "$(tail -c 1 .claude/settings.json | od -An -c | tr -d ' ')" = '\n' &&
cp .claude/settings.json once.json &&
cp .claude/settings.json.callus-backup backup.json &&
PATH=/usr/bin:/bin "$CALLUS" init claude >out &&
grep -q "already configured in '.claude/settings.json'; nothing changed" out &&
cmp once.json .claude/settings.json &&
cmp backup.json .claude/settings.json.callus-backup
EOF

test_expect_success 'init claude-code --remove gives back the original settings' - <<\EOF
git init -q ws && cd ws &&
write_claude_settings &&
cp .claude/settings.json orig.json &&
"$CALLUS" init claude-code >/dev/null &&
cp .claude/settings.json with-callus.json &&
"$CALLUS" init claude-code --remove >out &&
grep -q "took callus's hook out of '.claude/settings.json' (4 entries)" out &&
jq -S . orig.json >expect &&
jq -S . .claude/settings.json >actual &&
test_cmp expect actual &&
# the copy is the file before callus first changed it, not callus's text
cmp orig.json .claude/settings.json.callus-backup &&
"$CALLUS" init claude-code --remove >out &&
grep -q "no callus hook in '.claude/settings.json'; nothing changed" out &&
test_cmp expect actual
EOF

test_expect_success 'files callus cannot edit safely are refused and left untouched' - <<\EOF
git init -q bad && cd bad &&
mkdir .claude .gemini .codex .clinerules .clinerules/hooks &&
printf '{\n  // the team settings\n  "hooks": {}\n}\n' >.gemini/settings.json &&
printf '{"hooks": [{"matcher": "Bash"}]}\n' >.claude/settings.json &&
printf '{"hooks": {"PostToolUse": [}\n' >.codex/hooks.json &&
printf '#!/bin/sh\n./my-own-hook\n' >.clinerules/hooks/PostToolUse &&
for f in .gemini/settings.json .claude/settings.json .codex/hooks.json .clinerules/hooks/PostToolUse; do
	cp "$f" "$f.orig"
done &&
test_expect_code 1 "$CALLUS" init gemini >out 2>err &&
grep -q "comments are not JSON" err &&
grep -q "'.gemini/settings.json' is left as it is" err &&
test_expect_code 1 "$CALLUS" init claude-code 2>err &&
grep -q '"hooks" is an array, not an object' err &&
test_expect_code 1 "$CALLUS" init codex 2>err &&
grep -q "is not valid JSON" err &&
test_expect_code 1 "$CALLUS" init cline 2>err &&
grep -q "is not callus's" err &&
test_expect_code 1 "$CALLUS" init claude-code --remove 2>err &&
test_expect_code 1 "$CALLUS" init gemini --dry-run 2>err &&
for f in .gemini/settings.json .claude/settings.json .codex/hooks.json .clinerules/hooks/PostToolUse; do
	cmp "$f.orig" "$f" && ! test -e "$f.callus-backup" || exit 1
done &&
"$CALLUS" init cline --remove >out &&
grep -q "no callus hook" out &&
cmp .clinerules/hooks/PostToolUse.orig .clinerules/hooks/PostToolUse &&
"$CALLUS" init >list &&
grep -A1 "^gemini " list | grep -q "comments are not JSON" &&
grep -q "^cline  .*would refuse" list
EOF

test_expect_success 'every agent: new files, idempotent, status list, remove deletes them' - <<\EOF
umask 022 &&
git init -q all && cd all &&
"$CALLUS" init >list &&
grep -q "^workspace: $PWD$" list &&
test "$(grep -c "missing; 'callus init [a-z-]*' would create it" list)" = 6 &&
for a in claude-code codex gemini copilot cursor cline; do
	"$CALLUS" init $a >"$a.out" || exit 1
done &&
jq -e '.hooks.PostToolUse[0].matcher == "Bash" and .hooks.PostToolUse[0].hooks[0].timeout == 10 and
	(.hooks.SessionStart[0].hooks[0].command | endswith("callus hook codex"))' .codex/hooks.json &&
jq -e '.hooks.AfterTool[0].matcher == "run_shell_command" and .hooks.AfterTool[0].hooks[0].timeout == 10000 and
	.hooks.SessionStart[0].hooks[0].type == "command"' .gemini/settings.json &&
jq -e '.version == 1 and ([.hooks.postToolUse, .hooks.postToolUseFailure, .hooks.sessionStart][][0] |
	.type == "command" and .timeoutSec == 10 and (.bash | endswith("callus hook copilot"))) ' .github/hooks/callus.json &&
jq -e '.version == 1 and (.hooks.afterShellExecution[0].command | endswith("callus hook cursor"))' .cursor/hooks.json &&
test -x .clinerules/hooks/PostToolUse &&
test "$(head -1 .clinerules/hooks/PostToolUse)" = "#!/bin/sh" &&
grep -q "^# callus:hook" .clinerules/hooks/PostToolUse &&
grep -q "^exec .*callus hook cline$" .clinerules/hooks/PostToolUse &&
test "$(stat -c %a .codex/hooks.json)" = 644 &&
test "$(stat -c %a .clinerules/hooks/PostToolUse)" = 755 &&
grep -q "^note: Codex runs hooks only in a trusted project, and only hooks you reviewed" codex.out &&
grep -q "trusted folder" gemini.out && grep -q "trusted folder" copilot.out &&
test "$(cat CLAUDE.md)" = "@AGENTS.md" && grep -q "CLAUDE.md imports AGENTS.md" claude-code.out &&
files=".claude/settings.json .codex/hooks.json .gemini/settings.json .github/hooks/callus.json .cursor/hooks.json .clinerules/hooks/PostToolUse" &&
# shellcheck disable=SC2086
cat $files >before &&
"$CALLUS" init >list &&
test "$(grep -c "callus's hook configured; nothing to do" list)" = 6 &&
for a in claude-code codex gemini copilot cursor cline; do
	"$CALLUS" init $a >out && grep -q "already configured" out || exit 1
done &&
# the import is added once, and never over what CLAUDE.md already says
test "$(cat CLAUDE.md)" = "@AGENTS.md" &&
# shellcheck disable=SC2086
cat $files >after &&
cmp before after &&
for a in claude-code codex gemini copilot cursor cline; do
	"$CALLUS" init $a --remove >out && grep -q "deleted '.*': nothing but callus's hook was in it" out || exit 1
done &&
for f in $files; do
	! test -e "$f" && ! test -e "$f.callus-backup" || exit 1
done &&
"$CALLUS" init >list &&
test "$(grep -c "missing;" list)" = 6
EOF

test_expect_success '--dry-run prints what would be written and writes nothing' - <<\EOF
git init -q dry && cd dry &&
"$CALLUS" init codex --dry-run >out &&
grep -q "^would create '.codex/hooks.json' with:" out &&
sed 1d out | jq -e '.hooks.PostToolUse[0].matcher == "Bash"' &&
! test -e .codex &&
write_claude_settings &&
cp .claude/settings.json orig.json &&
"$CALLUS" init claude-code -n >out &&
grep -q "^would rewrite '.claude/settings.json' with:" out &&
grep -q "would save the previous version as '.claude/settings.json.callus-backup'" out &&
cmp orig.json .claude/settings.json &&
! test -e .claude/settings.json.callus-backup &&
"$CALLUS" init claude-code >/dev/null &&
cp .claude/settings.json with-callus.json &&
"$CALLUS" init claude-code --remove --dry-run >out &&
grep -q "^would rewrite" out &&
cmp with-callus.json .claude/settings.json
EOF

test_expect_success 'mode kept, symlinked settings edited in place, subdirectory, PATH' - <<\EOF
git init -q modes && cd modes && mkdir -p web/src dotfiles .cursor &&
write_claude_settings &&
chmod 600 .claude/settings.json &&
(cd web/src && "$CALLUS" init claude >/dev/null) &&
test "$(stat -c %a .claude/settings.json)" = 600 &&
test "$(stat -c %a .claude/settings.json.callus-backup)" = 600 &&
! test -e web/src/.claude &&
echo '{"version": 1, "hooks": {"beforeShellExecution": [{"command": "./guard.sh"}]}}' >dotfiles/cursor-hooks.json &&
ln -s ../dotfiles/cursor-hooks.json .cursor/hooks.json &&
"$CALLUS" init cursor >/dev/null &&
test -L .cursor/hooks.json &&
jq -e '.hooks.beforeShellExecution[0].command == "./guard.sh" and
	(.hooks.afterShellExecution[0].command | endswith("callus hook cursor"))' dotfiles/cursor-hooks.json &&
test -e dotfiles/cursor-hooks.json.callus-backup &&
# a callus that is the one on PATH is written as plain "callus"
mkdir bin && ln -s "$CALLUS" bin/callus &&
PATH="$PWD/bin:/usr/bin:/bin" "$CALLUS" init gemini >out &&
grep -q "^hook command: callus hook gemini (this callus, found on PATH as 'callus')" out &&
jq -e '.hooks.AfterTool[0].hooks[0].command == "callus hook gemini"' .gemini/settings.json &&
# ... and re-running with another callus replaces the entry, no duplicate
PATH=/usr/bin:/bin "$CALLUS" init gemini >/dev/null &&
jq -e --arg c "$(realpath "$CALLUS") hook gemini" '
	(.hooks.AfterTool | length) == 1 and .hooks.AfterTool[0].hooks == [{name: "callus", type: "command", command: $c, timeout: 10000}]' .gemini/settings.json
EOF

test_expect_success 'init leaves what is not callus'"'"'s: links out, a person'"'"'s entries and lines, the first copy, owners' - <<\EOF
git init -q mine && cd mine && mkdir -p .claude .clinerules/hooks out &&
# a link leaving the workspace (a cloned repository's): nothing written,
# made or deleted there
ln -s "$TRASH_DIRECTORY/elsewhere/deep/s.json" .claude/settings.json &&
test_expect_code 1 "$CALLUS" init claude-code 2>err &&
grep -q "outside the workspace: callus does not write through it" err &&
test ! -e "$TRASH_DIRECTORY/elsewhere" &&
printf "#!/bin/sh\n# callus:hook\nexec callus hook cline\n" >"$TRASH_DIRECTORY/outside-hook" &&
ln -s "$TRASH_DIRECTORY/outside-hook" .clinerules/hooks/PostToolUse &&
test_expect_code 1 "$CALLUS" init cline --remove 2>err &&
test -f "$TRASH_DIRECTORY/outside-hook" &&
rm .claude/settings.json .clinerules/hooks/PostToolUse &&
# an entry of a person's that runs the hook with more is theirs
printf "{\"hooks\":{\"PostToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"callus hook claude-code >>hook.log 2>&1; ./notify.sh\"}]}]}}\n" \
	>.claude/settings.json &&
cp .claude/settings.json first.json &&
"$CALLUS" init claude-code >/dev/null &&
test "$(jq "[.hooks.PostToolUse[].hooks[].command | select(test(\"hook claude-code\"))] | length" .claude/settings.json)" = 1 &&
jq -e ".hooks.PostToolUse[0].hooks[0].command | endswith(\"./notify.sh\")" .claude/settings.json &&
"$CALLUS" init claude-code --remove >/dev/null &&
jq -e ".hooks.PostToolUse[0].hooks[0].command | endswith(\"./notify.sh\")" .claude/settings.json &&
# the copy is of the file before callus first changed it
cmp first.json .claude/settings.json.callus-backup &&
# a Cline script with a line of its own is not deleted
"$CALLUS" init cline >/dev/null &&
echo "./my-own-step" >>.clinerules/hooks/PostToolUse &&
test_expect_code 1 "$CALLUS" init cline --remove 2>err &&
grep -q "has lines of its own" err && grep -q my-own-step .clinerules/hooks/PostToolUse &&
# CLAUDE.md keeps its mode, owner and line ends; a read-only file is left
printf "rules\r\n" >CLAUDE.md && chmod 600 CLAUDE.md &&
if [ "$(id -u)" = 0 ]; then chown nobody CLAUDE.md; fi &&
"$CALLUS" init claude-code >/dev/null &&
test "$(stat -c %a CLAUDE.md)" = 600 &&
if [ "$(id -u)" = 0 ]; then test "$(stat -c %U CLAUDE.md)" = nobody; fi &&
test "$(cat CLAUDE.md)" = "$(printf "rules\r\n@AGENTS.md\r")" &&
rm -rf .gemini && mkdir .gemini && echo "{}" >.gemini/settings.json && chmod 444 .gemini/settings.json &&
test_expect_code 1 "$CALLUS" init gemini 2>err && grep -q "is read-only: callus leaves it" err &&
test "$(cat .gemini/settings.json)" = "{}"
EOF

test_expect_success 'a Cline script that cannot run is made runnable; a person'"'"'s that runs the hook counts' - <<\EOF
git init -q cl && cd cl && mkdir bin && ln -s "$CALLUS" bin/callus && export PATH="$PWD/bin:$PATH" &&
"$CALLUS" init cline >/dev/null && chmod 644 .clinerules/hooks/PostToolUse &&
test_expect_code 1 "$CALLUS" init cline --check >out 2>&1 &&
grep -q "is not executable, so Cline does not run it" out &&
"$CALLUS" init cline >out && grep -q "made executable" out &&
test -x .clinerules/hooks/PostToolUse &&
"$CALLUS" init cline --check >/dev/null &&
# the way docs/agents.md shows to keep a hook of one's own
printf '#!/bin/sh\ncat | tee -a hook.log | callus hook cline\n' >.clinerules/hooks/PostToolUse &&
"$CALLUS" init cline --check >out 2>&1 &&
! grep -q "without callus's hook" out
EOF

test_expect_success 'init --check: Claude Code settings that turn every hook off' - <<\EOF
git init -q off && cd off && mkdir bin && ln -s "$CALLUS" bin/callus && export PATH="$PWD/bin:$PATH" &&
"$CALLUS" init claude-code >/dev/null &&
echo '{"disableAllHooks": true}' >.claude/settings.local.json &&
test_expect_code 1 "$CALLUS" init claude-code --check >out 2>&1 &&
grep -q 'problem .*"disableAllHooks" is true in .claude/settings.local.json' out &&
rm .claude/settings.local.json &&
{ "$CALLUS" init claude-code --check >out 2>&1 || :; } &&
grep -q "ok .*no settings file turns Claude Code's hooks off" out
EOF

test_expect_success 'init --check finds a quoted program that is gone' - <<\EOF
mkdir "sp ace" && cp "$CALLUS" "sp ace/callus" && git init -q q && cd q &&
PATH=/usr/bin:/bin "../sp ace/callus" init claude-code >/dev/null &&
grep -q "sp ace/callus' hook" .claude/settings.json &&
"$CALLUS" init claude-code --check >/dev/null &&
rm "../sp ace/callus" &&
test_expect_code 1 "$CALLUS" init claude-code --check >out 2>&1 &&
grep -q "sp ace/callus" out
EOF

test_expect_success 'usage: unknown agent, --remove without agent, help and man page' '
	git init -q u && cd u &&
	test_expect_code 2 "$CALLUS" init aider 2>err &&
	grep -q "unknown agent '"'"'aider'"'"'; callus init knows claude-code (or claude), codex" err &&
	test_expect_code 2 "$CALLUS" init --remove 2>err &&
	grep -q "remove needs an AGENT" err &&
	test_expect_code 2 "$CALLUS" init codex cursor 2>err &&
	test_expect_code 2 "$CALLUS" init --bogus 2>err &&
	"$CALLUS" help init >a && "$CALLUS" init --help >b && test_cmp a b &&
	"$CALLUS" --help | grep -q "^   init " &&
	for opt in --remove --dry-run; do
		grep -q -- "$opt" a &&
		sed "s/\\\\-/-/g" "$REPO/docs/callus.1" | grep -q -- "$opt" || exit 1
	done &&
	! test -e .claude && ! test -e .callus
'

test_expect_success 'the hook command init wrote runs callus hook: a failing eslint is recorded' - <<\EOF
setup_fixture eslint-project shop && cd shop &&
"$CALLUS" init claude-code >/dev/null &&
cmd=$(jq -r '.hooks.PostToolUseFailure[].hooks[].command | select(test(" hook claude-code$"))' .claude/settings.json) &&
test -n "$cmd" &&
# the fixture payload, moved to this workspace
jq --arg ws "$PWD" '.cwd = $ws | .transcript_path = ($ws + "/transcript.jsonl") |
	.error |= gsub("/home/dev/shop"; $ws)' \
	"$REPO/tests/hooks/fixtures/claude-code-eslint-fail.json" >payload.json &&
sh -c "$cmd" <payload.json >out 2>err &&
{ test ! -s out || jq -e . out >/dev/null; } &&
test "$("$CALLUS" lessons --json | jq length)" = 1 &&
"$CALLUS" lessons --json | jq -e '.[0].tool == "eslint"'
EOF

test_expect_success 'init claude-code adds @AGENTS.md to an existing CLAUDE.md, keeps the rest, and never writes through a link' '
	git init -q claudemd && cd claudemd &&
	printf "# Project rules\nUse tabs." >CLAUDE.md &&
	"$CALLUS" init claude-code >out &&
	printf "# Project rules\nUse tabs.\n@AGENTS.md\n" >expect &&
	test_cmp expect CLAUDE.md &&
	"$CALLUS" init claude-code >out && test_cmp expect CLAUDE.md &&
	git init -q ../linked && cd ../linked &&
	echo outside >../outside.md && ln -s ../outside.md CLAUDE.md &&
	"$CALLUS" init claude-code >out &&
	grep -q "not a plain file" out &&
	test "$(cat ../outside.md)" = outside
'

test_expect_success 'init --check: whether the agent will run callus, writing nothing' '
	git init -q chk && cd chk &&
	unset GEMINI_CLI_TRUST_WORKSPACE GEMINI_CLI_HOME GEMINI_CLI_TRUSTED_FOLDERS_PATH &&
	test_expect_code 1 "$CALLUS" init --check gemini >out &&
	grep -q "gemini: no .\.gemini/settings\.json., so Gemini CLI never runs callus" out &&
	test ! -e .gemini &&
	"$CALLUS" init gemini >/dev/null &&
	cp .gemini/settings.json before.json &&
	test_expect_code 1 "$CALLUS" init --check gemini >out &&
	grep -q "^ok .*gemini: callus.s hook is in" out &&
	grep -q "^problem .*gemini: this folder is not trusted" out &&
	GEMINI_CLI_TRUST_WORKSPACE=true "$CALLUS" init --check gemini >out &&
	! grep -q "^problem" out &&
	cmp before.json .gemini/settings.json &&
	test_expect_code 2 "$CALLUS" init --check --remove gemini 2>err &&
	grep -q "writes nothing" err
'

test_done
