#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
# e2e: long (started first: tests/e2e/run.sh)
test_description='pending -> fixed with its diff, or permanent (issue 5)

Real jest failing in real git repositories, through callus run and callus hook
claude-code: the fix becomes a resolution whose diff is the edit, three
failures make a permanent failure and a warning, the user'"'"'s index, HEAD,
stash and untracked files are left as they were.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

test_skip_unless_tool npx
# The first test runs `npx jest`, as agents most often do; the rest run the
# same jest by its name: npx walks the project's node_modules on each call,
# a second each on a slow machine, and this script runs jest about fifty
# times.
PATH=$TOOLS:$PATH

# A project whose test fails because sum() subtracts.  The tools are linked
# in by setup_fixture's helper; node_modules and .callus are ignored, as in a
# real project.
make_project() {
	mkdir "$1" && (
		cd "$1" &&
		cat >package.json <<-\EOF &&
		{ "name": "calc", "version": "1.0.0", "private": true }
		EOF
		printf 'function sum(a, b) {\n  return a - b;\n}\n\nmodule.exports = sum;\n' >sum.js &&
		cat >sum.test.js <<-\EOF &&
		const sum = require("./sum");

		test("adds 1 + 2 to equal 3", () => {
		  expect(sum(1, 2)).toBe(3);
		});
		EOF
		printf 'node_modules/\n.callus/\n' >.gitignore &&
		git -c init.defaultBranch=main init -q &&
		git add -A &&
		git -c commit.gpgSign=false commit -q -m "calc" &&
		_e2e_link_tools .
	)
}

fix_sum() {
	sed -i "s/a - b/a + b/" sum.js
}

count() {
	"$CALLUS" pending --state "$1" --json | jq length
}

test_expect_success 'callus run: jest fails, the source is fixed, one resolution with that edit' '
	make_project calc && cd calc &&
	# scratch files stay outside the repository: they would be changes too
	test_expect_code 1 "$CALLUS" run -- npx jest 2>../err &&
	grep -q "recorded lesson" ../err &&
	test "$(count pending)" = 1 &&
	"$CALLUS" pending --json | jq -e ".[0].files == [\"sum.test.js\"] and .[0].attempts == 1 and (.[0].snapshot | startswith(\"git \"))" &&
	fix_sum &&
	"$CALLUS" run -- npx jest 2>../err &&
	grep -q "jest passes; the fix is kept in note [0-9a-f]\{12\}" ../err &&
	test "$(count pending)" = 0 &&
	test "$(count fixed)" = 1 &&
	"$CALLUS" resolutions --json >r.json &&
	jq -e "length == 1 and .[0].success_rate == 1 and .[0].application_count == 1" r.json &&
	jq -e ".[0].files == [\"sum.js\"]" r.json &&
	jq -r ".[0].description" r.json | grep -q "sum() in sum.js (+1 -1)" &&
	"$CALLUS" resolutions show 1 >show &&
	test "$(grep -c "^diff --git" show)" = 1 &&
	grep -q "^-  return a - b;" show &&
	grep -q "^+  return a + b;" show &&
	"$CALLUS" resolutions show 1 --json | jq -e ".context.command == \"npx jest\" and (.context.commit | length) == 40"
'

test_expect_success 'three failures in a row: permanent, and a warning for that file' '
	make_project perm && cd perm &&
	for i in 1 2 3; do test_expect_code 1 "$CALLUS" run -- jest 2>err || exit 1; done &&
	grep -q "now permanent" err &&
	test "$(count pending)" = 0 &&
	test "$(count permanent)" = 1 &&
	"$CALLUS" warnings --files sum.test.js --json | jq -e "length == 1 and .[0].attempts == 3" &&
	"$CALLUS" warnings --files other.js --json | jq -e "length == 0" &&
	"$CALLUS" warnings | grep -q "toBe" &&
	fix_sum && "$CALLUS" run -- jest 2>err &&
	test "$(count permanent)" = 1 &&
	test "$("$CALLUS" resolutions --json | jq length)" = 0
'

test_expect_success 'two errors, one fixed: one fixed, the other still pending' '
	make_project two && cd two &&
	cat >mul.test.js <<-\EOF &&
	test("multiplies", () => {
	  expect([2 * 3]).toEqual([7]);
	});
	EOF
	git add mul.test.js && git -c commit.gpgSign=false commit -q -m mul &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	test "$(count pending)" = 2 &&
	fix_sum &&
	test_expect_code 1 "$CALLUS" run -- jest 2>err &&
	grep -q "fixed an error of jest" err &&
	test "$(count fixed)" = 1 &&
	"$CALLUS" pending --json | jq -e "length == 1 and .[0].files == [\"mul.test.js\"] and .[0].attempts == 2"
'

test_expect_success 'a fix that adds a new untracked file: the file is in the diff' '
	make_project newfile && cd newfile &&
	printf "module.exports = require(\"./impl\");\n" >sum.js &&
	git -c commit.gpgSign=false commit -q -am "use impl" &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	test "$(count pending)" = 1 &&
	printf "module.exports = (a, b) => a + b;\n" >impl.js &&
	"$CALLUS" run -- jest 2>/dev/null &&
	"$CALLUS" resolutions show 1 >show &&
	grep -q "^diff --git a/impl.js b/impl.js" show &&
	grep -q "^new file mode" show &&
	grep -q "^+module.exports = (a, b) => a + b;" show &&
	"$CALLUS" resolutions --json | jq -r ".[0].description" | grep -q "dded impl.js"
'

test_expect_success 'untracked files that hold secrets are never copied into the repository' '
	make_project keys && cd keys &&
	tok="gh""p_abcdefghijklmnopqrstuvwxyz0123456789" &&
	mkdir conf &&
	printf "GITHUB_TOKEN=%s\n" "$tok" >.env &&
	printf "export GITHUB_TOKEN=%s\n" "$tok" >.envrc &&
	printf "%s\n" "$tok" >conf/id_ed25519 &&
	printf -- "-----BEGIN PRIVATE KEY-----\n%s\n" "$tok" >conf/server.pem &&
	printf "API_URL=http://localhost %s\n" "$tok" >.env.example &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	printf "GITHUB_TOKEN=%s2\n" "$tok" >.env &&
	fix_sum &&
	"$CALLUS" run -- jest 2>/dev/null &&
	test "$(count fixed)" = 1 &&
	"$CALLUS" resolutions show 1 >show &&
	grep -q "^diff --git a/sum.js b/sum.js" show &&
	! grep -q "\.env\b\|server.pem\|id_ed25519" show &&
	git cat-file --batch-all-objects --batch >objects &&
	test "$(grep -c "$tok" objects)" = 1 &&
	grep -q "API_URL=http://localhost" objects
'

test_expect_success 'a private key in a fix: its lines are one redaction, and the diff still applies' '
	make_project pem && cd pem &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	fix_sum &&
	{
		printf "/*\n-----BEGIN RSA PRIVATE KEY-----\n" &&
		for i in 1 2 3 4 5; do printf "MIIEowIBAAKCAQEA%048d\n" "$i"; done &&
		printf -- "-----END RSA PRIVATE KEY-----\n*/\n"
	} >>sum.js &&
	"$CALLUS" run -- jest 2>/dev/null &&
	"$CALLUS" resolutions show 1 --json | jq -r ".code_changes" >fix.patch &&
	grep -q "^+\[REDACTED:private-key\]" fix.patch &&
	! grep -q MIIEowIBAAKCAQEA fix.patch &&
	grep -q "^@@ -1,5 +1,8 @@" fix.patch &&
	git stash -q &&
	git apply --check fix.patch
'

test_expect_success 'the user index, HEAD, refs, stash and untracked files stay byte-identical' '
	make_project intact && cd intact &&
	echo "// staged" >>sum.test.js && git add sum.test.js &&
	echo "// stashed" >>package.json && git stash -q &&
	echo "scratch" >notes.txt && echo "// unstaged" >>sum.js &&
	# callus writes .lessons/ and AGENTS.md by design (lessons, issue 2):
	# every other byte of the user'"'"'s state is compared
	snap() {
		export GIT_OPTIONAL_LOCKS=0 &&
		cat .git/index | sha256sum &&
		cat .git/HEAD && git rev-parse HEAD &&
		git for-each-ref && git stash list && git stash show -p &&
		git status --porcelain=v1 | grep -v -e "^?? .lessons/" -e "^?? AGENTS.md" &&
		sha256sum notes.txt sum.js sum.test.js &&
		ls .git/refs/heads .git/logs/HEAD
	} &&
	snap >../before &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	snap >../after1 && test_cmp ../before ../after1 &&
	sed -i "s/a - b/a + b/" sum.js &&
	snap >../before2 &&
	"$CALLUS" run -- jest 2>/dev/null &&
	snap >../after2 && test_cmp ../before2 ../after2 &&
	test "$(count fixed)" = 1 &&
	"$CALLUS" resolutions show 1 | grep -q "^+  return a + b;"
'

test_expect_success 'a workspace without git: copies of the affected files, the fix diffed' '
	make_project nogit && cd nogit && rm -rf .git && mkdir .callus &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	"$CALLUS" pending --json | jq -e ".[0].snapshot | startswith(\"files \")" &&
	test "$(stat -c %a .callus/snapshots.git)" = 700 &&
	sed -i "s/toBe(3)/toBe(-1)/" sum.test.js &&
	"$CALLUS" run -- jest 2>/dev/null &&
	"$CALLUS" resolutions show 1 >show &&
	grep -q "^+  expect(sum(1, 2)).toBe(-1);" show &&
	test "$(grep -c "^diff --git" show)" = 1
'

test_expect_success 'callus hook claude-code: failure, fix, pass; the same error elsewhere names the fix' '
	make_project hook && cd hook &&
	post() { # post EVENT COMMAND EXIT_CODE OUTPUT SESSION
		if test "$1" = PostToolUseFailure; then
			jq -n --arg cwd "$PWD" --arg cmd "$2" --arg out "$4" --arg s "$5" \
				"{session_id: \$s, cwd: \$cwd, hook_event_name: \"PostToolUseFailure\",
				  tool_name: \"Bash\", tool_input: {command: \$cmd},
				  error: (\"Exit code $3\n\" + \$out), is_interrupt: false}"
		else
			jq -n --arg cwd "$PWD" --arg cmd "$2" --arg out "$4" --arg s "$5" \
				"{session_id: \$s, cwd: \$cwd, hook_event_name: \"PostToolUse\",
				  tool_name: \"Bash\", tool_input: {command: \$cmd},
				  tool_response: {stdout: \$out, stderr: \"\", interrupted: false}}"
		fi | "$CALLUS" hook claude-code
	} &&
	out=$(jest 2>&1) && exit 1 || true &&
	post PostToolUseFailure "npx jest" 1 "$out" s1 >reply &&
	jq -e . reply >/dev/null &&
	test "$(count pending)" = 1 &&
	fix_sum && out=$(jest 2>&1) &&
	post PostToolUse "npx jest" 0 "$out" s1 >reply &&
	jq -r .hookSpecificOutput.additionalContext reply >ctx &&
	grep -q "jest passes; the fix is kept in note" ctx &&
	grep -q "Edited sum() in sum.js" ctx &&
	grep -q "callus note [0-9a-f]\{12\} --rule" ctx &&
	test "$(count fixed)" = 1 &&
	"$CALLUS" resolutions show 1 | grep -q "^+  return a + b;" &&
	git checkout -q sum.js &&
	out=$(jest sum.test.js 2>&1) && exit 1 || true &&
	post PostToolUseFailure "npx jest sum.test.js" 1 "$out" s2 >reply &&
	jq -r .hookSpecificOutput.additionalContext reply >ctx &&
	grep -q "note [0-9a-f]\{12\} (worked 1 of 1 time" ctx &&
	grep -q "^  +  return a + b;" ctx &&
	fix_sum && out=$(jest sum.test.js 2>&1) &&
	post PostToolUse "npx jest sum.test.js" 0 "$out" s2 >reply &&
	"$CALLUS" resolutions show 1 --json | jq -e ".application_count == 2 and .success_count == 2"
'

test_expect_success 'a session start warns about permanent failures' '
	make_project warn && cd warn &&
	for i in 1 2 3; do test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null || exit 1; done &&
	jq -n --arg cwd "$PWD" "{session_id: \"s9\", cwd: \$cwd, hook_event_name: \"SessionStart\", source: \"startup\"}" |
		"$CALLUS" hook claude-code >reply &&
	jq -r .hookSpecificOutput.additionalContext reply >ctx &&
	grep -q "could not fix" ctx &&
	grep -q "jest in sum.test.js (3 attempts)" ctx
'

# last_failure_shown BULLET YES NO: the workspace's one signature, one
# permanent error after three failures, shown with a message matching YES
# and not NO (grep patterns) by callus pending (into ./perm) and in
# AGENTS.md's bullet that starts with BULLET.
last_failure_shown() {
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM signatures")" = 1 &&
	"$CALLUS" pending --state permanent --json >perm &&
	jq -e "length == 1 and .[0].attempts == 3" perm &&
	jq -r ".[0].message" perm | grep -q "$2" &&
	grep "^- $1 (3+ attempts): " AGENTS.md >bullet &&
	grep -q "$2" bullet && ! grep -q "$3" bullet
}

test_expect_success 'a permanent failure is shown with its own file'"'"'s message' '
	mkdir own && cd own && git init -q &&
	printf "int f(void) { return x; }\n" >a.c &&
	printf "int g(void) { return 0; }\n" >b.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -fsyntax-only a.c b.c 2>/dev/null &&
	printf "int f(void) { return 0; }\n" >a.c &&
	printf "int g(void) { return y; }\n" >b.c &&
	for i in 1 2; do
		test_expect_code 1 "$CALLUS" run -- gcc -fsyntax-only a.c b.c 2>/dev/null || exit 1
	done &&
	# gcc quotes a name with ‘’ in a UTF-8 locale, with ASCII quotes in C
	last_failure_shown "\`gcc\` in \`b.c\`" "[^a-z]y[^a-z]* undeclared" \
		"[^a-z]x[^a-z]* undeclared"
'

test_expect_success 'and an error naming no file with its own last message' '
	mkdir own-make && cd own-make && git init -q &&
	printf "all: x.h\n" >Makefile &&
	test_expect_code 2 "$CALLUS" run -- make 2>/dev/null &&
	printf "all: y.h\n" >Makefile &&
	for i in 1 2; do
		test_expect_code 2 "$CALLUS" run -- make 2>/dev/null || exit 1
	done &&
	last_failure_shown "\`make\`" "target .y\.h." "x\.h" &&
	jq -e ".[0].files == []" perm
'

test_expect_success 'a failure left in the spool is recorded before the pass after it' '
	make_project queued && cd queued &&
	generic() { # generic EXIT_CODE OUTPUT
		jq -n --arg cwd "$PWD" --arg out "$2" \
			"{command: \"npx jest\", exit_code: $1, output: \$out, cwd: \$cwd, session_id: \"s1\"}"
	} &&
	"$CALLUS" init >/dev/null &&
	mkdir -p .callus/spool &&
	# as a hook that found the store busy leaves it
	out=$(jest 2>&1) && exit 1 || true &&
	generic 1 "$out" >.callus/spool/0000000000000000001-1.left.json &&
	fix_sum && out=$(jest 2>&1) &&
	generic 0 "$out" | "$CALLUS" hook generic >reply &&
	jq -e . reply >/dev/null &&
	test ! -e .callus/spool/0000000000000000001-1.left.json &&
	test "$(count fixed)" = 1 && test "$(count pending)" = 0
'

test_expect_success 'concurrent sessions on one workspace: nothing lost, no error twice' '
	make_project conc && cd conc &&
	out=$(jest 2>&1) && exit 1 || true &&
	for i in 1 2 3 4 5 6 7 8; do
		jq -n --arg cwd "$PWD" --arg out "$out" --arg s "s$i" \
			"{command: \"npx jest\", exit_code: 1, output: \$out, cwd: \$cwd, session_id: \$s}" >p$i.json
	done &&
	for i in 1 2 3 4 5 6 7 8; do "$CALLUS" hook generic <p$i.json >r$i 2>e$i & done &&
	wait &&
	cat e1 e2 e3 e4 e5 e6 e7 e8 >errs && test_must_be_empty errs &&
	"$CALLUS" lessons --json | jq -e ".[0].occurrences == 8" &&
	"$CALLUS" pending --state all --json >all &&
	jq -e "map(.attempts) | add == 8" all &&
	jq -e "map(select(.state == \"pending\")) | length <= 1" all
'

test_expect_success 'pruning drops pending errors left by abandoned sessions' '
	make_project prune && cd prune &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	test "$(count pending)" = 1 &&
	sqlite3 .callus/callus.db "UPDATE pending_errors SET last_failure_at = '\''2020-01-01T00:00:00.000Z'\''" &&
	# shown for what they are until dropped
	"$CALLUS" pending >list &&
	grep -q "^#1 *abandoned jest" list &&
	"$CALLUS" pending --json | jq -e ".[0].state == \"pending\" and .[0].abandoned" &&
	"$CALLUS" status | grep -q "^errors       1 pending (1 abandoned, idle past .learn. prune_hours" &&
	"$CALLUS" pending --prune 2>err >/dev/null &&
	grep -q "pruned 1 pending error" err &&
	test "$(count pending)" = 0 &&
	printf "[learn]\nprune_hours = 1\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	test "$(count pending)" = 1
'

test_expect_success 'an abandoned error back again is new: its snapshot taken, its fix learnt whole' '
	make_project back && cd back &&
	test_expect_code 1 "$CALLUS" run -- npx jest 2>/dev/null &&
	sqlite3 .callus/callus.db "UPDATE pending_errors SET first_failure_at = '\''2020-01-01T00:00:00.000Z'\'', last_failure_at = '\''2020-01-01T00:00:00.000Z'\''" &&
	test_expect_code 1 "$CALLUS" run -- npx jest 2>/dev/null &&
	"$CALLUS" pending --json >../p.json &&
	jq -e "length == 1 and .[0].attempts == 1 and (.[0].snapshot | startswith(\"git \"))" ../p.json &&
	fix_sum &&
	"$CALLUS" run -- npx jest 2>/dev/null &&
	"$CALLUS" resolutions --json >../r.json &&
	jq -e "length == 1 and .[0].files == [\"sum.js\"]" ../r.json &&
	jq -r ".[0].description" ../r.json | grep -q "sum() in sum.js (+1 -1)"
'

test_expect_success 'callus feedback and callus status' '
	make_project fb && cd fb &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	fix_sum && "$CALLUS" run -- jest 2>/dev/null &&
	"$CALLUS" feedback 1 failure --note "token=ghp_abcdefghijklmnopqrstuvwxyz0123456789" >out &&
	grep -q "recorded a failure for resolution #1" out &&
	"$CALLUS" resolutions show 1 --json | jq -e ".application_count == 2 and .success_count == 1" &&
	! sqlite3 .callus/callus.db "SELECT context FROM applications" | grep -q ghp_abc &&
	# the block of AGENTS.md shows the note'"'"'s metrics as they are now
	{ "$CALLUS" doctor >doc 2>&1 || :; } &&
	! grep -q "block of AGENTS.md is not what the store says" doc &&
	test_expect_code 1 "$CALLUS" feedback 99 success 2>err && grep -q "no resolution 99" err &&
	test_expect_code 2 "$CALLUS" feedback 1 maybe 2>err && grep -q "success" err &&
	"$CALLUS" status >st &&
	grep -q "errors       0 pending, 1 fixed, 0 permanent" st &&
	grep -q "resolutions  1 (applied 2 times, 50% successful)" st &&
	grep -q "snapshots    on" st &&
	# the store on disk is its file and its write-ahead log, which the
	# pages SQLite counts leave out: a failure leaves one
	sed -i "s/a + b/a * b/" sum.js &&
	test_expect_code 1 "$CALLUS" run -- jest 2>/dev/null &&
	"$CALLUS" status >st &&
	test -s .callus/callus.db-wal &&
	disk=$(( $(stat -c %s .callus/callus.db) / 1024 + $(stat -c %s .callus/callus.db-wal) / 1024 )) &&
	grep -q "^store        .callus/callus.db (schema [0-9]*, [0-9]* KiB; $disk KiB on disk with its write-ahead log)$" st
'

test_expect_success 'without the snapshot helper the states are still learnt' '
	make_project nohelper && cd nohelper &&
	CALLUS_GIT_HELPER=/nonexistent test_expect_code 1 "$CALLUS" run -- jest 2>err &&
	! grep -q "pending errors not updated" err &&
	fix_sum && CALLUS_GIT_HELPER=/nonexistent "$CALLUS" run -- jest 2>err &&
	grep -q "fixed an error of jest" err &&
	grep -q snapshot_failed .callus/log.jsonl
'

# The helper, linked statically, binds libgit2's starts of TLS and SSH to
# nothing and GSSAPI to refusals (helper/callus-git-offline.c): the system's
# certificates it parsed were most of a snapshot's cost, and GSSAPI's
# libraries are not loaded.  Linked with a shared libgit2 (the sanitizer
# build, another distribution) it keeps them.
helper=$(dirname "$CALLUS")/callus-git
if ldd "$helper" 2>/dev/null | grep -q libgit2; then
	test_skip "callus-git links a shared libgit2"
else
	test_skip_unless_tool strace
fi
test_expect_success 'a snapshot neither reads the system'"'"'s certificates nor loads GSSAPI' '
	make_project offline && cd offline &&
	strace -f -e trace=%file -o trace "$helper" batch "$PWD" head snapshot 0 >out &&
	grep -q "^ok 41$" out && grep -q "^git [0-9a-f]\{40\} [0-9a-f]\{40\}$" out &&
	grep -q "\.git/HEAD" trace &&
	! grep -E "/etc/ssl|/usr/lib/ssl|ca-certificates|gssapi|krb5" trace &&
	# nor carries the SSH and TLS stacks whose tables it relocated at
	# every start (libssh2, OpenSSL, mbedTLS'"'"'s TLS)
	nm "$helper" >symbols && grep -q " T git_repository_open" symbols &&
	! grep -E " [Tt] (libssh2_|mbedtls_ssl_|OPENSSL_)" symbols &&
	# a static glibc cannot promise NSS: the helper never asks it for the
	# home directory, with no HOME or with macOS'"'"'s sandbox variable
	env -u HOME "$helper" batch "$PWD" head >out && grep -q "^ok 41$" out &&
	APP_SANDBOX_CONTAINER_ID=x strace -f -e trace=%file -o trace "$helper" batch "$PWD" head >out &&
	grep -q "^ok 41$" out && grep -q "\.git/HEAD" trace &&
	! grep -E "passwd|nsswitch|libnss" trace
'

test_expect_success 'bad arguments: a clear message and status 2; no store: empty answers' '
	git init -q bare && cd bare &&
	test_expect_code 2 "$CALLUS" pending --state bogus 2>err && grep -q "unknown state .bogus." err &&
	test_expect_code 2 "$CALLUS" pending --limit -1 2>err && grep -q "limit" err &&
	test_expect_code 2 "$CALLUS" pending extra 2>err && grep -q "unexpected argument" err &&
	test_expect_code 2 "$CALLUS" warnings extra 2>err && grep -q "after --files" err &&
	test_expect_code 2 "$CALLUS" resolutions --signature xyz 2>err && grep -q "64 hex digits" err &&
	test_expect_code 2 "$CALLUS" resolutions show 2>err && grep -q "usage" err &&
	test_expect_code 2 "$CALLUS" resolutions show abc 2>err && grep -q "not a resolution number" err &&
	test_expect_code 2 "$CALLUS" feedback 1 2>err && grep -q "usage" err &&
	test_expect_code 2 "$CALLUS" feedback 0 success 2>err && grep -q "not a resolution number" err &&
	test_expect_code 2 "$CALLUS" status extra 2>err && grep -q "unexpected argument" err &&
	test_expect_code 1 "$CALLUS" resolutions show 5 2>err && grep -q "nothing recorded" err &&
	"$CALLUS" pending --json >out && test "$(cat out)" = "[]" &&
	"$CALLUS" warnings --files a.js >out && test_must_be_empty out &&
	"$CALLUS" resolutions --json >out && test "$(cat out)" = "[]" &&
	"$CALLUS" status >out && grep -q "none yet" out &&
	test ! -e .callus/callus.db &&
	for c in pending warnings resolutions feedback status; do
		"$CALLUS" help $c >out && grep -q "^usage: callus $c" out || exit 1
	done
'

test_expect_success 'a first line cut for display never splits a UTF-8 character' '
	make_project utf && cd utf &&
	printf "test(\"é\", () => { expect(\"%s\").toBe(\"x\"); });\n" \
		"$(printf "é%.0s" $(seq 1 80))" >utf.test.js &&
	test_expect_code 1 "$CALLUS" run -- jest utf.test.js 2>/dev/null &&
	"$CALLUS" pending >out && iconv -f UTF-8 -t UTF-8 out >/dev/null &&
	"$CALLUS" status >out && iconv -f UTF-8 -t UTF-8 out >/dev/null
'

test_expect_success 'a pass with no change since the failure learns nothing (a flaky or hidden failure)' '
	make_project flaky && cd flaky &&
	# flaky: passes when the environment says so, the tree never changes
	sed -i "s/toBe(3)/toBe(process.env.FLAKE ? -1 : 3)/" sum.test.js &&
	git -c commit.gpgSign=false commit -qam flaky &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	test "$(count pending)" = 1 &&
	FLAKE=1 "$CALLUS" run -- jest 2>../err &&
	grep -q "went away with no change since the failure: nothing learnt" ../err &&
	test "$(count pending)" = 0 &&
	test "$(count fixed)" = 1 &&
	test "$("$CALLUS" resolutions --json | jq length)" = 0
'

# checkindex.h: a pass that has nothing to learn leaves the store closed,
# but the run after a fix is still counted, so a fix that held is not
# taken for one that failed.
runs_of() {
	sqlite3 .callus/callus.db "SELECT runs FROM checks WHERE tool = 'jest'"
}
# the checks listed: the sorted hashes, then lines appended since ("+" or
# "-" and a hash), a hash's last line deciding (checkindex.h)
listed() {
	tail -n +2 .callus/checks.idx | awk '
		/^[+-]/ { on[substr($0, 2)] = substr($0, 1, 1) == "+"; next }
		{ on[$0] = 1 }
		END { n = 0; for (k in on) n += on[k]; print n }'
}

test_expect_success 'a pass with nothing to learn leaves the store closed; the run after a fix still counts' '
	make_project quiet && cd quiet &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	head -n 1 .callus/checks.idx | grep -q "^callus-checks 2 [0-9]\{10\}$" &&
	test "$(listed)" = 1 &&
	fix_sum &&
	"$CALLUS" run -- jest 2>../err &&
	test "$(count fixed)" = 1 &&
	test "$(listed)" = 1 &&
	test "$(runs_of)" = 2 &&
	# the run after the fix: counted, and the check leaves the list
	"$CALLUS" run -- jest 2>../err &&
	test "$(runs_of)" = 3 &&
	test "$(listed)" = 0 &&
	# from now on the store is not opened: not a byte of it changes
	cksum .callus/callus.db* >../before &&
	"$CALLUS" run -- jest 2>../err &&
	out=$(jest 2>&1) &&
	jq -n --arg cwd "$PWD" --arg out "$out" \
		"{command: \"jest\", exit_code: 0, output: \$out, cwd: \$cwd}" |
		"$CALLUS" hook generic >reply &&
	test "$(cat reply)" = "{}" &&
	cksum .callus/callus.db* >../after &&
	test_cmp ../before ../after &&
	# the hook latency of that pass waits in the spool, not lost
	"$CALLUS" metrics >m.prom &&
	grep -q "^callus_hook_latency_seconds_count{agent=\"generic\",path=\"pass\"} 1$" m.prom &&
	# the error is back; the kept fix is suggested, and fixes it again
	git checkout -q sum.js &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	test "$(runs_of)" = 4 &&
	test "$(listed)" = 1 &&
	fix_sum && "$CALLUS" run -- jest 2>../err &&
	"$CALLUS" resolutions show 1 --json |
		jq -e ".application_count == 2 and .success_count == 2" &&
	# the run after, then one the store does not see, then the error:
	# not on the very next run, so the suggested fix held
	"$CALLUS" run -- jest 2>../err &&
	"$CALLUS" run -- jest 2>../err &&
	test "$(runs_of)" = 6 &&
	git checkout -q sum.js &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	test "$(runs_of)" = 7 &&
	"$CALLUS" resolutions show 1 --json |
		jq -e ".application_count == 2 and .success_count == 2"
'

test_expect_success 'the error back on the very next run: the fix did not hold' '
	make_project relapse && cd relapse &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	fix_sum && "$CALLUS" run -- jest 2>../err &&
	git checkout -q sum.js &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	fix_sum && "$CALLUS" run -- jest 2>../err &&
	"$CALLUS" resolutions show 1 --json |
		jq -e ".application_count == 2 and .success_count == 2" &&
	git checkout -q sum.js &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	"$CALLUS" resolutions show 1 --json |
		jq -e ".application_count == 2 and .success_count == 1"
'

test_expect_success 'a lost list of checks: the next pass opens the store and writes it again' '
	cd quiet &&
	test "$(count pending)" = 1 &&
	rm .callus/checks.idx &&
	fix_sum && "$CALLUS" run -- jest 2>../err &&
	test "$(count pending)" = 0 &&
	test "$(listed)" = 1
'

# The hook runs after every command an agent runs: a command that is no
# check reads the workspace's config and nothing else of it, and a pass
# with nothing to learn never opens the store and looks at the spool once.
hook_traced() {
	jq -n --arg cwd "$PWD" --arg cmd "$1" --arg out "$2" \
		"{command: \$cmd, exit_code: 0, output: \$out, cwd: \$cwd}" >../event.json &&
	strace -f -e trace=openat -o "$3" "$CALLUS" hook generic <../event.json >reply &&
	test "$(cat reply)" = "{}"
}
test_skip_unless_tool strace
test_expect_success 'the hook'"'"'s fast paths: no store opened, the spool looked at once' '
	make_project hot && cd hot &&
	test_expect_code 1 "$CALLUS" run -- jest 2>../err &&
	fix_sum && "$CALLUS" run -- jest 2>../err && "$CALLUS" run -- jest 2>../err &&
	test "$(listed)" = 0 &&
	hook_traced "ls -la" "" ../ls.trace &&
	grep "\"$PWD/" ../ls.trace >../ls.opened &&
	test "$(wc -l <../ls.opened)" = 1 && grep -q "/.callus/config\"" ../ls.opened &&
	hook_traced jest "$(jest 2>&1)" ../pass.trace &&
	! grep -q "callus\.db" ../pass.trace &&
	test "$(grep -c "/.callus/spool\"" ../pass.trace)" = 1
'

test_done
