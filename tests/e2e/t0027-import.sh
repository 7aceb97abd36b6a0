#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus import: learning from the transcripts agents keep (issue 19)

A fake home holds transcripts in the agents'"'"' real formats: Claude Code'"'"'s
session files (the records of tests/import/fixtures/, captured from the real
CLI) with a real gcc failure, the Edit that fixed it and the passing run; the
real Claude Code transcript of t0017 (eslint failing, fixed, passing) with its
paths moved to a copy of the project; a Codex rollout.  After callus import the
workspace has the lesson, the resolution whose diff is the edit and the note,
as the live hook makes them; a second import adds nothing; a truncated line is
counted; a workspace that is gone or outside the home is skipped and counted;
--dry-run writes nothing; callus init offers the import; and the real Claude
Code run live with the hook, then its transcript imported into the same
workspace, gives the same lessons, diffs and notes.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=agentlib.sh
. "$REPO/tests/e2e/agentlib.sh"

# shellcheck disable=SC2034 # read in the test bodies
IMPORT_FIXTURES=$REPO/tests/import/fixtures

# c_project DIR: show.c with a format mistake, committed (under $HOME: an
# import leaves directories outside the home alone).
c_project() {
	mkdir -p "$1" && (
		cd "$1" &&
		printf '#include <stdio.h>\n\nvoid show(int n)\n{\n\tprintf("%%s\\n", n);\n}\n' >show.c &&
		git -c init.defaultBranch=main init -q &&
		git config user.email dev@example.com && git config user.name dev &&
		git add -A && git -c commit.gpgSign=false commit -q -m show
	)
}

# Claude Code's records, as its transcripts have them (see the fixtures).
# bash_use ID COMMAND CWD SECONDS, bash_result ID CWD SECONDS STATUS OUTPUT,
# edit_use ID FILE CWD SECONDS OLD NEW, edit_result ID FILE CWD SECONDS HUNK...
rec_base() {
	jq -cn --arg cwd "$1" --arg t "2026-03-01T10:00:$(printf %02d "$2").000Z" \
		'{parentUuid: null, isSidechain: false, userType: "external", cwd: $cwd,
		  sessionId: "5e2141f7-22db-41bb-8790-4503cbbd4aee", version: "2.1.331",
		  gitBranch: "main", timestamp: $t, uuid: "u"}'
}
bash_use() {
	rec_base "$3" "$4" | jq -c --arg id "$1" --arg c "$2" \
		'. + {type: "assistant", message: {role: "assistant", type: "message",
		  content: [{type: "tool_use", id: $id, name: "Bash",
		  input: {command: $c, description: "run a command"}}]}}'
}
bash_result() {
	local text=$5
	[ "$4" = 0 ] || text="Exit code $4

$5"
	rec_base "$2" "$3" | jq -c --arg id "$1" --arg t "$text" --arg o "$5" --argjson x "$4" \
		'. + {type: "user", message: {role: "user", content: [{type: "tool_result",
		  tool_use_id: $id, is_error: ($x != 0), content: $t}]},
		  toolUseResult: (if $x != 0 then ("Error: " + $t) else
		  {stdout: $o, stderr: "", interrupted: false, isImage: false} end)}'
}
edit_use() {
	rec_base "$3" "$4" | jq -c --arg id "$1" --arg f "$2" --arg o "$5" --arg n "$6" \
		'. + {type: "assistant", message: {role: "assistant", type: "message",
		  content: [{type: "tool_use", id: $id, name: "Edit",
		  input: {file_path: $f, old_string: $o, new_string: $n, replace_all: false}}]}}'
}
# edit_result ID FILE CWD SECONDS OLDSTART OLDLINES NEWSTART NEWLINES LINE...
edit_result() {
	local id=$1 f=$2 cwd=$3 s=$4 os=$5 ol=$6 ns=$7 nl=$8
	shift 8
	rec_base "$cwd" "$s" | jq -c --arg id "$id" --arg f "$f" \
		--argjson h "$(printf '%s\n' "$@" | jq -R . | jq -cs \
			--argjson os "$os" --argjson ol "$ol" --argjson ns "$ns" --argjson nl "$nl" \
			'[{oldStart: $os, oldLines: $ol, newStart: $ns, newLines: $nl, lines: .}]')" \
		'. + {type: "user", message: {role: "user", content: [{type: "tool_result",
		  tool_use_id: $id, content: ("The file " + $f + " has been updated.")}]},
		  toolUseResult: {filePath: $f, structuredPatch: $h, userModified: false,
		  replaceAll: false}}'
}

# claude_session DIR NAME: writes stdin as the transcript NAME of a session
# in DIR, where Claude Code keeps it.
claude_session() {
	local d
	d=$HOME/.claude/projects/$(printf %s "$1" | tr / -)
	mkdir -p "$d" && cat >"$d/$2.jsonl"
}

# the gcc session in c/: gcc fails, Edit fixes show.c, gcc passes
gcc_session() {
	local w=$1 out
	out=$(cd "$w" && gcc -Werror=format -c show.c 2>&1) && return 1
	{
		bash_use t1 "gcc -Werror=format -c show.c" "$w" 1
		bash_result t1 "$w" 2 1 "$out"
		edit_use t2 "$w/show.c" "$w" 3 'printf("%s\n", n);' 'printf("%d\n", n);'
		edit_result t2 "$w/show.c" "$w" 4 2 5 2 5 \
			" " " void show(int n)" " {" "-	printf(\"%s\\n\", n);" \
			"+	printf(\"%d\\n\", n);" " }"
		bash_use t3 "gcc -Werror=format -c show.c" "$w" 5
		bash_result t3 "$w" 6 0 ""
	}
}

test_skip_unless_tool gcc jq git
test_expect_success 'a gcc failure, the Edit that fixed it and the pass: lesson, resolution, note' '
	c_project "$HOME/src/c" && W=$HOME/src/c &&
	gcc_session "$W" | claude_session "$W" s1 &&
	sed -i "s/%s/%d/" "$W/show.c" && (cd "$W" && git commit -qam fixed) &&
	(cd "$W" && "$CALLUS" import >"$TRASH_DIRECTORY/out" 2>"$TRASH_DIRECTORY/err") &&
	cat out && grep -q "imported 2 verification commands (1 failed, 1 passed)" out &&
	grep -q "fixes found: 1, notes made or merged: 1" out &&
	cd "$W" &&
	"$CALLUS" lessons --json >"$TRASH_DIRECTORY/lessons.json" &&
	jq -e "length == 1 and .[0].file == \"show.c\" and .[0].tool == \"gcc\"
		and (.[0].timestamp | startswith(\"2026-03-01T10:00:02\"))" \
		"$TRASH_DIRECTORY/lessons.json" &&
	"$CALLUS" resolutions --json >"$TRASH_DIRECTORY/res.json" &&
	jq -e "length == 1" "$TRASH_DIRECTORY/res.json" &&
	"$CALLUS" resolutions show "$(jq -r ".[0].id" "$TRASH_DIRECTORY/res.json")" \
		>"$TRASH_DIRECTORY/fix" &&
	grep -q "^diff --git a/show.c b/show.c" "$TRASH_DIRECTORY/fix" &&
	grep -q "^-	printf(\"%s" "$TRASH_DIRECTORY/fix" &&
	grep -q "^+	printf(\"%d" "$TRASH_DIRECTORY/fix" &&
	grep -q "learnt:    2026-03-01T10:00:06" "$TRASH_DIRECTORY/fix" &&
	test "$(find .callus/notes -name "*.md" | wc -l)" = 1 &&
	grep -q "printf(\"%d" .callus/notes/*.md &&
	test "$("$CALLUS" pending --json | jq length)" = 0 &&
	sed -n "/callus:lessons:begin/,/callus:lessons:end/p" AGENTS.md >"$TRASH_DIRECTORY/block" &&
	grep -q "show.c" "$TRASH_DIRECTORY/block"
'

test_expect_success 'a second import adds nothing' '
	cd "$HOME/src/c" &&
	"$CALLUS" import >"$TRASH_DIRECTORY/out2" &&
	grep -q "imported 0 verification commands" "$TRASH_DIRECTORY/out2" &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 1" &&
	"$CALLUS" resolutions --json | jq -e "length == 1"
'

test_expect_success 'what was added to a transcript since is read; a truncated line is counted' '
	W=$HOME/src/c && f=$(ls "$HOME"/.claude/projects/*/s1.jsonl) &&
	printf "{\"type\":\"user\",\"message\":{\"conte\n" >>"$f" &&
	out=$(cd "$W" && gcc -Werror=format -c show.c 2>&1) &&
	{ bash_use t4 "gcc -Wall -c show.c" "$W" 7 && bash_result t4 "$W" 8 0 ""; } >>"$f" &&
	(cd "$W" && "$CALLUS" import >"$TRASH_DIRECTORY/out3") &&
	cat "$TRASH_DIRECTORY/out3" &&
	grep -q "imported 1 verification commands (0 failed, 1 passed)" "$TRASH_DIRECTORY/out3" &&
	grep -q "skipped as malformed: 1" "$TRASH_DIRECTORY/out3"
'

test_expect_success 'older history imported after a live failure leaves it live: gc keeps it' '
	c_project "$HOME/src/late" && W=$HOME/src/late &&
	(cd "$W" && test_must_fail "$CALLUS" run -- gcc -Werror=format -c show.c >/dev/null 2>&1) &&
	out=$(cd "$W" && gcc -Werror=format -c show.c 2>&1 || :) &&
	{
		bash_use l1 "gcc -Werror=format -c show.c" "$W" 1 &&
		bash_result l1 "$W" 2 1 "$out"
	} | claude_session "$W" old &&
	cd "$W" &&
	seen=$("$CALLUS" lessons --json | jq -r ".[0].last_seen") &&
	"$CALLUS" import >/dev/null &&
	"$CALLUS" lessons --json >"$TRASH_DIRECTORY/late.json" &&
	jq -e --arg s "$seen" "length == 1 and .[0].occurrences == 2 and .[0].last_seen == \$s" \
		"$TRASH_DIRECTORY/late.json" &&
	sqlite3 .callus/callus.db "SELECT count(*) FROM pending_errors WHERE state = '"'"'pending'"'"'
		AND last_failure_at >= first_failure_at AND last_failure_at > '"'"'2026-03-01T10:01'"'"'" >n &&
	test "$(cat n)" -ge 1 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM signatures
		WHERE last_seen < first_seen")" = 0 &&
	"$CALLUS" gc >/dev/null &&
	test "$("$CALLUS" pending --json | jq length)" -ge 1 &&
	test "$("$CALLUS" lessons --json | jq length)" = 1
'

test_expect_success 'an import cut short and run again stores nothing twice' '
	c_project "$HOME/src/again" && W=$HOME/src/again &&
	gcc_session "$W" | claude_session "$W" again &&
	cd "$W" && "$CALLUS" import --project . >"$TRASH_DIRECTORY/out7" &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" "$TRASH_DIRECTORY/out7" &&
	! grep -q "not counted again" "$TRASH_DIRECTORY/out7" &&
	sqlite3 .callus/callus.db .dump >"$TRASH_DIRECTORY/again.before" &&
	cat .callus/notes/*.md AGENTS.md >"$TRASH_DIRECTORY/again.files" &&
	grep -q "INSERT INTO runs" "$TRASH_DIRECTORY/again.before" &&
	marks=$HOME/.local/share/callus/import-watermarks.tsv &&
	{ grep -v "again.jsonl" "$marks" >"$TRASH_DIRECTORY/marks" || :; } &&
	cat "$TRASH_DIRECTORY/marks" >"$marks" &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/out8" && cat "$TRASH_DIRECTORY/out8" &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" "$TRASH_DIRECTORY/out8" &&
	grep -q "failures stored by an earlier import, not counted again: 1" "$TRASH_DIRECTORY/out8" &&
	sqlite3 .callus/callus.db .dump >"$TRASH_DIRECTORY/again.after" &&
	test_cmp "$TRASH_DIRECTORY/again.before" "$TRASH_DIRECTORY/again.after" &&
	cat .callus/notes/*.md AGENTS.md | test_cmp "$TRASH_DIRECTORY/again.files" - &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 1" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL")" = 0
'

# held IMPORT_LOCK FIFO: holds the import lock (flock(1), the lock callus
# takes) until a line is written to fd 4, FIFO opened read-write (a write
# never blocks, the holder gone or not), a minute at most (a test that fails
# before it leaves no process behind); returns once the lock is held (flock
# -E: another's lock, not a file flock could not open).
held() {
	mkdir -p "${1%/*}" && mkfifo "$2" && exec 4<>"$2" &&
	{ timeout 60 flock "$1" sh -c 'read -r x <"$1"' sh "$2" & } &&
	for _ in $(seq 100); do
		flock -n -E 99 "$1" true || test $? != 99 || return 0
		sleep 0.1
	done
	return 1
}

test_skip_unless_tool flock timeout
test_expect_success 'an import started while one runs waits for it, then reads what is left' '
	c_project "$HOME/src/wait" && W=$HOME/src/wait &&
	gcc_session "$W" | claude_session "$W" wait && cd "$W" &&
	held "$HOME/.local/share/callus/import.lock" "$TRASH_DIRECTORY/go" &&
	{ "$CALLUS" import --project . >"$TRASH_DIRECTORY/wait.out" 2>"$TRASH_DIRECTORY/wait.err" &
	  imp=$!; } &&
	ok=0 && {
		for _ in $(seq 100); do
			grep -q "waiting for it to end" "$TRASH_DIRECTORY/wait.err" && break
			sleep 0.1
		done
		cat "$TRASH_DIRECTORY/wait.err" &&
		grep -q "another callus import is running (it holds .*import.lock.); waiting for it to end" \
			"$TRASH_DIRECTORY/wait.err" &&
		kill -0 "$imp" && ! test -e .callus &&
		"$CALLUS" import --project . --dry-run >"$TRASH_DIRECTORY/wait.dry" &&
		grep -q "would import 2 verification commands" "$TRASH_DIRECTORY/wait.dry"
	} || ok=1
	echo go >&4 && wait "$imp" && test "$ok" = 0 &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" "$TRASH_DIRECTORY/wait.out" &&
	"$CALLUS" resolutions --json | jq -e "length == 1" &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/wait2.out" &&
	grep -q "imported 0 verification commands" "$TRASH_DIRECTORY/wait2.out"
'

test_expect_success 'no HOME: nothing to import, no lock, nothing made; no lock to be had: said' '
	mkdir nohome && cd nohome &&
	env -u HOME -u XDG_DATA_HOME "$CALLUS" import >out 2>err && cat out err &&
	grep -q "imported 0 verification commands" out && test_must_be_empty err &&
	env -u XDG_DATA_HOME HOME="$TRASH_DIRECTORY/nohome/gone" "$CALLUS" import >out 2>err &&
	test_must_be_empty err && ! test -e gone &&
	: >afile && HOME=$PWD XDG_DATA_HOME=$PWD/afile "$CALLUS" import >out 2>err && cat err &&
	grep -q "cannot take the import lock: .*afile.*; importing without it" err &&
	grep -q "imported 0 verification commands" out
'

test_expect_success 'history imported after a failure of today closes nothing of today' '
	c_project "$HOME/src/today" && W=$HOME/src/today &&
	(cd "$W" && test_must_fail "$CALLUS" run -- gcc -Werror=format -c show.c >/dev/null 2>&1) &&
	gcc_session "$W" | claude_session "$W" today &&
	cd "$W" && "$CALLUS" import --project . >"$TRASH_DIRECTORY/out9" &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" "$TRASH_DIRECTORY/out9" &&
	"$CALLUS" pending --json >"$TRASH_DIRECTORY/today.json" &&
	jq -e "length == 1" "$TRASH_DIRECTORY/today.json" &&
	"$CALLUS" resolutions --json | jq -e "length == 0" &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 2"
'

test_expect_success 'history imported after its check failed and passed live: its own fix is learnt' '
	c_project "$HOME/src/after" && W=$HOME/src/after &&
	(cd "$W" && test_must_fail "$CALLUS" run -- gcc -Werror=format -c show.c >/dev/null 2>&1) &&
	gcc_session "$W" | claude_session "$W" after &&
	sed -i "s/%s/%d/" "$W/show.c" &&
	(cd "$W" && "$CALLUS" run -- gcc -Werror=format -c show.c >/dev/null 2>&1) &&
	cd "$W" && test "$("$CALLUS" resolutions --json | jq length)" = 1 &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/out10" && cat "$TRASH_DIRECTORY/out10" &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" "$TRASH_DIRECTORY/out10" &&
	grep -q "fixes found: 1," "$TRASH_DIRECTORY/out10" &&
	test "$("$CALLUS" pending --json | jq length)" = 0 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs WHERE learn_owed IS NOT NULL")" = 0
'

# dated_session W NAME PREFIX: a gcc failure in W (the session of
# rec_base) at PREFIX (YYYY-MM-DDTHH:MM:) seconds 1 and 2, as transcript NAME
dated_session() {
	local out
	out=$(cd "$1" && gcc -Werror=format -c show.c 2>&1) && return 1
	{
		bash_use "$2" "gcc -Werror=format -c show.c" "$1" 1 &&
		bash_result "$2" "$1" 2 1 "$out"
	} | sed "s/2026-03-01T10:00:/$3/" | claude_session "$1" "$2"
}

test_expect_success 'runs callus gc removed: an import read again counts none of them twice' '
	c_project "$HOME/src/aged" && W=$HOME/src/aged &&
	dated_session "$W" aged "$(date -u -d "60 days ago" +%Y-%m-%dT10:00:)" &&
	cd "$W" && "$CALLUS" import --project . >"$TRASH_DIRECTORY/aged1" &&
	grep -q "imported 1 verification commands (1 failed, 0 passed)" "$TRASH_DIRECTORY/aged1" &&
	"$CALLUS" gc >/dev/null &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 0 &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 1" &&
	sqlite3 .callus/callus.db .dump >"$TRASH_DIRECTORY/aged.before" &&
	# the watermarks lost: the transcript is read from its start again
	marks=$HOME/.local/share/callus/import-watermarks.tsv &&
	{ grep -v "aged.jsonl" "$marks" >"$TRASH_DIRECTORY/marks" || :; } &&
	cat "$TRASH_DIRECTORY/marks" >"$marks" &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/aged2" && cat "$TRASH_DIRECTORY/aged2" &&
	grep -q "imported 0 verification commands" "$TRASH_DIRECTORY/aged2" &&
	grep -q "checks older than the runs the store keeps (callus gc removed those), not replayed: 1" \
		"$TRASH_DIRECTORY/aged2" &&
	sqlite3 .callus/callus.db .dump >"$TRASH_DIRECTORY/aged.after" &&
	test_cmp "$TRASH_DIRECTORY/aged.before" "$TRASH_DIRECTORY/aged.after" &&
	# history newer than the runs gc removed is replayed
	dated_session "$W" recent "$(date -u -d "10 days ago" +%Y-%m-%dT10:00:)" &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/aged3" &&
	grep -q "imported 1 verification commands (1 failed, 0 passed)" "$TRASH_DIRECTORY/aged3" &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 2"
'

test_expect_success 'an import leaves no more lessons than [retention] lessons keeps' '
	c_project "$HOME/src/cap" && W=$HOME/src/cap &&
	for f in ca cb cc; do
		printf "int %s(void)\n{\n\treturn undefined_%s;\n}\n" $f $f >"$W/$f.c" &&
		{ (cd "$W" && gcc -c $f.c) >"$TRASH_DIRECTORY/$f.out" 2>&1 && return 1 || :; }
	done &&
	{
		bash_use tca "gcc -c ca.c" "$W" 1 &&
		bash_result tca "$W" 2 1 "$(cat "$TRASH_DIRECTORY/ca.out")" &&
		bash_use tcb "gcc -c cb.c" "$W" 3 &&
		bash_result tcb "$W" 4 1 "$(cat "$TRASH_DIRECTORY/cb.out")" &&
		bash_use tcc "gcc -c cc.c" "$W" 5 &&
		bash_result tcc "$W" 6 1 "$(cat "$TRASH_DIRECTORY/cc.out")"
	} | claude_session "$W" cap &&
	mkdir "$W/.callus" && printf "[retention]\nlessons = 1\ngc_hours = 24\n" >"$W/.callus/config" &&
	cd "$W" && "$CALLUS" import --project . >"$TRASH_DIRECTORY/cap" &&
	grep -q "imported 3 verification commands (3 failed, 0 passed)" "$TRASH_DIRECTORY/cap" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM lessons")" = 1 &&
	test "$(find .lessons -name "*.md" | wc -l)" = 1 &&
	grep "\"gc_removed\"" .callus/log.jsonl | grep -q "\"lessons\":\"2\"" &&
	# the block names the one left
	test "$(grep -c "\.lessons/" AGENTS.md)" = 2 &&
	{ "$CALLUS" doctor >"$TRASH_DIRECTORY/doc" || :; } &&
	grep -q "^ok       storage    project layer: 1 lesson " "$TRASH_DIRECTORY/doc" &&
	# a count of 100 or more: the import comes down to it, not below (a
	# recording leaves a hundredth under it, for the next ones)
	sqlite3 .callus/callus.db "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1
	  FROM c WHERE i < 100) INSERT INTO lessons (signature, timestamp, type, file,
	  error_summary, tool, command, exit_code, last_seen) SELECT printf('\''%064d'\'', c.i),
	  l.timestamp, l.type, '\'\'', l.error_summary || c.i, l.tool, l.command, l.exit_code,
	  '\''2001-01-01T00:00:00.000Z'\'' FROM c, lessons l" &&
	printf "[retention]\nlessons = 100\ngc_hours = 24\n" >.callus/config &&
	printf "int cd(void)\n{\n\treturn undefined_cd;\n}\n" >cd.c &&
	{ gcc -c cd.c >"$TRASH_DIRECTORY/cd.out" 2>&1 && return 1 || :; } &&
	{
		bash_use tcd "gcc -c cd.c" "$W" 1 &&
		bash_result tcd "$W" 2 1 "$(cat "$TRASH_DIRECTORY/cd.out")"
	} | claude_session "$W" cap2 &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/cap2" &&
	grep -q "imported 1 verification commands (1 failed, 0 passed)" "$TRASH_DIRECTORY/cap2" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM lessons")" = 100
'

test_expect_success 'a failure a hook queued is recorded before the import looks: counted once' '
	c_project "$HOME/src/queued" && W=$HOME/src/queued &&
	at=$(( $(date -u +%s) / 60 * 60 - 300 )) &&
	dated_session "$W" queued "$(date -u -d "@$at" +%Y-%m-%dT%H:%M:)" &&
	cd "$W" && mkdir -p .callus/spool &&
	# as a hook leaves it when the store is busy: named by the time it ran
	out=$(gcc -Werror=format -c show.c 2>&1 || :) &&
	jq -n --arg cwd "$W" --arg o "$out" \
		"{command: \"gcc -Werror=format -c show.c\", exit_code: 1, cwd: \$cwd,
		  session_id: \"5e2141f7-22db-41bb-8790-4503cbbd4aee\", output: \$o}" \
		>".callus/spool/$(( at + 3 ))000000000-1.left.json" &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/queued1" && cat "$TRASH_DIRECTORY/queued1" &&
	grep -q "imported 1 verification commands (1 failed, 0 passed)" "$TRASH_DIRECTORY/queued1" &&
	grep -q "failures the hooks recorded when they ran, not counted again: 1" \
		"$TRASH_DIRECTORY/queued1" &&
	test -z "$(ls .callus/spool/*.json 2>/dev/null)" &&
	"$CALLUS" hook --drain generic &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 1" &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 1
'

# spool_entry W SECONDS PID COMMAND [OUTPUT]: a generic payload of COMMAND
# failing in W (with show.c's gcc error, or OUTPUT), of rec_base's session,
# queued as a hook queues it at SECONDS (epoch) by process PID (0: one left
# to a drainer)
spool_entry() {
	local name out=${5:-}
	# never a spool at the file system's root
	[ -d "$1/.git" ] || return 1
	[ -n "$out" ] || out=$(cd "$1" && gcc -Werror=format -c show.c 2>&1 || :)
	name="$2"000000000-$3
	[ "$3" != 0 ] || name="$2"000000000-1.left
	mkdir -p "$1/.callus/spool" &&
	jq -n --arg cwd "$1" --arg o "$out" --arg c "$4" \
		"{command: \$c, exit_code: 1, cwd: \$cwd,
		  session_id: \"5e2141f7-22db-41bb-8790-4503cbbd4aee\", output: \$o}" \
		>"$1/.callus/spool/$name.json"
}

test_expect_success 'the drain'"'"'s background gc runs before the runs are read: nothing counted twice' '
	c_project "$HOME/src/drained" && W=$HOME/src/drained && cd "$W" &&
	at=$(( $(date -u +%s) / 60 * 60 - 40 * 86400 )) &&
	dated_session "$W" drained "$(date -u -d "@$at" +%Y-%m-%dT%H:%M:)" &&
	# the hook queued the failure 40 days ago, a drainer recorded it then
	mkdir -p .callus && touch .callus/gc.stamp &&
	spool_entry "$W" $((at + 3)) 0 "gcc -Werror=format -c show.c" &&
	"$CALLUS" hook --drain generic &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 1 &&
	# a day later another failure is queued; its drainer runs the
	# background pass, which removes the old run
	touch -d "3 days ago" .callus/gc.stamp &&
	spool_entry "$W" $(( $(date -u +%s) - 60 )) 0 "gcc -c other.c" \
		"other.c:1:1: error: unknown type name '"'"'frob'"'"'" &&
	"$CALLUS" import --project . >"$TRASH_DIRECTORY/drained1" && cat "$TRASH_DIRECTORY/drained1" &&
	grep -q "imported 0 verification commands" "$TRASH_DIRECTORY/drained1" &&
	grep -q "not replayed: 1" "$TRASH_DIRECTORY/drained1" &&
	"$CALLUS" lessons --json >"$TRASH_DIRECTORY/drained.json" &&
	jq -e "[.[] | select(.command == \"gcc -Werror=format -c show.c\")]
		| length == 1 and .[0].occurrences == 1" "$TRASH_DIRECTORY/drained.json"
'

test_expect_success 'a failure a hook is still recording takes one replayed failure, not two' '
	# the hook of the later failure, still recording it: no drainer takes it
	sleep 60 & hook=$!
	c_project "$HOME/src/recording" && W=$HOME/src/recording && cd "$W" &&
	now=$(( $(date -u +%s) / 60 * 60 )) &&
	{
		dated_session "$W" early "$(date -u -d "@$((now - 5 * 86400))" +%Y-%m-%dT%H:%M:)" &&
		dated_session "$W" late "$(date -u -d "@$((now - 600))" +%Y-%m-%dT%H:%M:)"
	} &&
	spool_entry "$W" $((now - 600 + 3)) "$hook" "gcc -Werror=format -c show.c" &&
	{ "$CALLUS" import --project . >"$TRASH_DIRECTORY/recording1"; rc=$?; } &&
	{ kill "$hook"; wait "$hook"; } 2>/dev/null || :
	test "$rc" = 0 && cat "$TRASH_DIRECTORY/recording1" &&
	grep -q "imported 2 verification commands (2 failed, 0 passed)" "$TRASH_DIRECTORY/recording1" &&
	grep -q "failures hooks queued that no drainer has recorded yet, left to it: 1" \
		"$TRASH_DIRECTORY/recording1" &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 1" &&
	"$CALLUS" hook --drain generic &&
	"$CALLUS" lessons --json | jq -e "length == 1 and .[0].occurrences == 2"
'

test_expect_success 'workspaces that are gone or outside the home are skipped and counted' '
	G=$HOME/src/gone && mkdir -p "$G" &&
	{ bash_use g1 "gcc -c gone.c" "$G" 1 && bash_result g1 "$G" 2 1 "gone.c:1:1: error: boom"; } |
		claude_session "$G" gone &&
	rmdir "$G" &&
	c_project "$TRASH_DIRECTORY/outside" && O=$TRASH_DIRECTORY/outside &&
	gcc_session "$O" | claude_session "$O" outside &&
	"$CALLUS" import >out4 && cat out4 &&
	grep -q "skipped: 1 directory that no longer exist (1 commands)" out4 &&
	grep -q "skipped: 1 directory outside your home" out4 &&
	! test -e "$O/.callus" &&
	"$CALLUS" import --project "$O" >out5 && cat out5 &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" out5 &&
	test -d "$O/.callus"
'

test_expect_success '--dry-run reads and counts, writes nothing' '
	c_project "$HOME/src/dry" && D=$HOME/src/dry &&
	gcc_session "$D" | claude_session "$D" dry &&
	marks=$HOME/.local/share/callus/import-watermarks.tsv &&
	cp "$marks" marks.before &&
	"$CALLUS" import --dry-run >out6 && cat out6 &&
	grep -q "would import 2 verification commands (1 failed, 1 passed)" out6 &&
	grep -q "fixes found: 1 (edits between a failure and a passing run)" out6 &&
	! test -e "$D/.callus" && test_cmp marks.before "$marks"
'

test_expect_success 'callus init offers the import; --import does it' '
	cd "$HOME/src/dry" &&
	"$CALLUS" init claude-code >"$TRASH_DIRECTORY/init.out" &&
	grep -q "would import 2 verification commands" "$TRASH_DIRECTORY/init.out" &&
	! test -e .callus/callus.db &&
	"$CALLUS" init claude-code --import >"$TRASH_DIRECTORY/init2.out" &&
	grep -q "imported 2 verification commands" "$TRASH_DIRECTORY/init2.out" &&
	"$CALLUS" resolutions --json | jq -e "length == 1"
'

test_expect_success 'the real Claude Code transcript of t0017: the note the live hook made' '
	setup_fixture eslint-project "$HOME/src/shop" && S=$HOME/src/shop &&
	sed "s#/home/dev/shop#$S#g" "$IMPORT_FIXTURES/claude-code-session1.jsonl" |
		claude_session "$S" 92e9281f-9548-4ebf-aad5-a38391842d3d &&
	"$CALLUS" import --project "$S" >out7 && cat out7 &&
	cd "$S" &&
	"$CALLUS" lessons --json | jq -e "map(select(.file == \"src/app.js\" and .tool == \"eslint\")) | length == 1" &&
	"$CALLUS" resolutions --json >"$TRASH_DIRECTORY/res7.json" &&
	"$CALLUS" resolutions show \
		"$(jq -r "map(select(.message | test(\"currency\")))[0].id" "$TRASH_DIRECTORY/res7.json")" \
		>"$TRASH_DIRECTORY/fix7" &&
	grep -q "^-  const currency" "$TRASH_DIRECTORY/fix7" &&
	grep -q "^+function formatPrice(amount, decimals = 2) {" "$TRASH_DIRECTORY/fix7" &&
	test -f .callus/notes/01b7ce37994f.md &&
	test "$("$CALLUS" pending --json | jq length)" = 0
'

test_expect_success 'a Codex rollout: failures and passes of its checks' '
	setup_fixture eslint-project "$HOME/src/cx" && X=$HOME/src/cx &&
	mkdir -p "$HOME/.codex/sessions/2026/11/25" &&
	sed "s#/home/dev/shop#$X#g" "$IMPORT_FIXTURES/codex-session1.jsonl" \
		>"$HOME/.codex/sessions/2026/11/25/rollout-2026-11-25T12-22-32-x.jsonl" &&
	"$CALLUS" import --agent codex >out8 && cat out8 &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" out8 &&
	cd "$X" && "$CALLUS" lessons --json | jq -e "map(select(.file == \"src/app.js\")) | length == 1" &&
	test "$("$CALLUS" pending --json | jq length)" = 0
'

test_expect_success 'a Codex record whose script is no string is passed over, the rest imported' '
	mkdir -p "$HOME/src" && setup_fixture eslint-project "$HOME/src/cxnull" && X=$HOME/src/cxnull &&
	mkdir -p "$HOME/.codex/sessions/2026/11/26" &&
	f=$HOME/.codex/sessions/2026/11/26/rollout-2026-11-26T09-00-00-y.jsonl &&
	sed "s#/home/dev/shop#$X#g" "$IMPORT_FIXTURES/codex-session1.jsonl" >whole.jsonl &&
	head -n 11 whole.jsonl >"$f" &&
	sed -n 12p whole.jsonl |
		jq -c ".payload.item.command[2] = null | .payload.item.id = \"call_resp_0\"" >>"$f" &&
	sed -n 12p whole.jsonl | jq -c ".payload.item.command = [] | .payload.item.id = \"call_resp_00\"" >>"$f" &&
	tail -n +12 whole.jsonl >>"$f" &&
	"$CALLUS" import --agent codex --project "$X" >out9 && cat out9 &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" out9 &&
	cd "$X" && "$CALLUS" lessons --json | jq -e "map(select(.file == \"src/app.js\")) | length == 1"
'

test_expect_success 'a Gemini CLI session: its directory from projects.json' '
	setup_fixture eslint-project "$HOME/src/gm" && G=$HOME/src/gm &&
	mkdir -p "$HOME/.gemini/tmp/shop/chats" &&
	jq -n --arg d "$G" "{projects: {(\$d): \"shop\"}}" >"$HOME/.gemini/projects.json" &&
	sed "s#/home/dev/shop#$G#g" \
		"$IMPORT_FIXTURES/gemini/tmp/shop/chats/session-2026-11-25T12-38-2c00a4e1.jsonl" \
		>"$HOME/.gemini/tmp/shop/chats/session-2026-11-25T12-38-2c00a4e1.jsonl" &&
	"$CALLUS" import --agent gemini >out10 && cat out10 &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" out10 &&
	cd "$G" && "$CALLUS" lessons --json | jq -e "map(select(.file == \"src/app.js\")) | length == 1" &&
	test "$("$CALLUS" pending --json | jq length)" = 0
'

test_expect_success 'a Copilot CLI session' '
	setup_fixture eslint-project "$HOME/src/cp" && C=$HOME/src/cp &&
	id=d6651f28-d9ea-4434-b19a-f142292d65ca &&
	mkdir -p "$HOME/.copilot/session-state/$id" &&
	sed "s#/home/dev/shop#$C#g" "$IMPORT_FIXTURES/copilot/$id/events.jsonl" \
		>"$HOME/.copilot/session-state/$id/events.jsonl" &&
	"$CALLUS" import --agent copilot >out11 && cat out11 &&
	grep -q "imported 2 verification commands (1 failed, 1 passed)" out11 &&
	cd "$C" && "$CALLUS" lessons --json | jq -e "map(select(.file == \"src/app.js\")) | length == 1" &&
	test "$("$CALLUS" pending --json | jq length)" = 0
'

test_expect_success 'import --since takes a date of the calendar only' '
	for d in abcd-ef-ghij 2026-13-01 2026-02-30 26-11-25; do
		test_expect_code 2 "$CALLUS" import --since "$d" --dry-run 2>err &&
		grep -q "since takes a date" err || return 1
	done &&
	"$CALLUS" import --since 2026-02-28 --dry-run >/dev/null
'

test_expect_success 'secrets in a transcript are redacted; an edit outside the workspace is no part of a fix' '
	c_project "$HOME/src/sec" && S=$HOME/src/sec &&
	tok=ghp_0123456789abcdefghijABCDEFGHIJ012345 &&
	out=$(cd "$S" && gcc -Werror=format -c show.c 2>&1) && false || true &&
	{
		bash_use s1 "GITHUB_TOKEN=$tok gcc -Werror=format -c show.c" "$S" 1
		bash_result s1 "$S" 2 1 "$out
token: $tok"
		edit_use s2 "$S/show.c" "$S" 3 "x" "y"
		edit_result s2 "$S/show.c" "$S" 4 5 1 5 2 "-	printf(\"%s\\n\", n);" \
			"+	printf(\"%d\\n\", n); /* $tok */" "+	(void)0;"
		edit_use s3 "$S/../../etc/passwd" "$S" 5 "x" "y"
		edit_result s3 "$S/../../etc/passwd" "$S" 6 1 1 1 1 "-root" "+evil"
		bash_use s4 "gcc -Werror=format -c show.c" "$S" 7
		bash_result s4 "$S" 8 0 ""
	} | claude_session "$S" secrets &&
	"$CALLUS" import --project "$S" >out9 && cat out9 &&
	grep -q "fixes found: 1" out9 &&
	cd "$S" && "$CALLUS" resolutions show 1 >"$TRASH_DIRECTORY/fix9" &&
	cat "$TRASH_DIRECTORY/fix9" &&
	grep -q "^+	(void)0;" "$TRASH_DIRECTORY/fix9" &&
	! grep -q "passwd\|evil" "$TRASH_DIRECTORY/fix9" &&
	! grep -rq "$tok" .callus .lessons AGENTS.md &&
	! sqlite3 .callus/callus.db .dump | grep -q "$tok"
'

# claude_live NAME TURNS: one `claude -p` in shop/ against the scripted model
# (as t0017 runs it), callus's hook installed.
claude_live() {
	local rc
	model_start anthropic "$1" "$2" || return 1
	(cd "$TRASH_DIRECTORY/shop" && ANTHROPIC_BASE_URL=http://127.0.0.1:$MODEL_PORT \
		ANTHROPIC_API_KEY=k CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
		DISABLE_AUTOUPDATER=1 DISABLE_TELEMETRY=1 IS_SANDBOX=1 \
		PATH=$AGENTS/node_modules/.bin:$PATH \
		timeout -k 5 120 "$AGENTS/node_modules/.bin/claude" -p "make eslint pass" \
		--dangerously-skip-permissions --output-format json </dev/null \
		>"$TRASH_DIRECTORY/$1.out" 2>"$TRASH_DIRECTORY/$1.err")
	rc=$?
	model_stop
	return "$rc"
}

bash_turn() {
	jq -cn --arg c "$1" '{call: "Bash", args: {command: $c, description: "run a command"}}'
}

# facts: what a store learnt, without ids, times and commits: the lessons,
# each resolution's diff (git's index lines aside), the notes' ids.
facts() {
	"$CALLUS" lessons --json | jq -c "map({file, tool, type, error_summary, occurrences}) | sort_by(.file)"
	"$CALLUS" resolutions --json | jq -r "sort_by(.message) | .[].id" | while read -r id; do
		"$CALLUS" resolutions show "$id" | sed -n "/^diff --git/,\$p" | grep -v "^index "
	done
	ls .callus/notes
}

skip_unless_cli claude
test_expect_success 'the real Claude Code, live and imported: the same lessons, fixes and notes' '
	setup_fixture eslint-project shop && cd shop &&
	"$CALLUS" init claude-code >init.out &&
	claude_live live "[$(bash_turn "npx eslint src"),
		$(bash_turn "cp $FIXED/app.js $FIXED/util.js src/"),
		$(bash_turn "npx eslint src"), {\"text\": \"done\"}]" &&
	facts >"$TRASH_DIRECTORY/live.facts" &&
	grep -q "^-  const currency" "$TRASH_DIRECTORY/live.facts" &&
	mv .callus "$TRASH_DIRECTORY/live.callus" && rm -rf .lessons &&
	git checkout -q -- . && mkdir .callus &&
	cp "$TRASH_DIRECTORY/live.callus/config" .callus/ 2>/dev/null || true &&
	"$CALLUS" import --agent claude-code --project . >"$TRASH_DIRECTORY/imp.out" &&
	cat "$TRASH_DIRECTORY/imp.out" &&
	facts >"$TRASH_DIRECTORY/imported.facts" &&
	test_cmp "$TRASH_DIRECTORY/live.facts" "$TRASH_DIRECTORY/imported.facts"
'

test_expect_success 'the same session imported into the store its live hook made: nothing counted twice' '
	cd shop && rm -rf .callus && mv "$TRASH_DIRECTORY/live.callus" .callus &&
	sqlite3 .callus/callus.db .dump >"$TRASH_DIRECTORY/live.dump" &&
	sqlite3 .callus/callus.db "SELECT count(*) FROM runs" >"$TRASH_DIRECTORY/live.runs" &&
	test "$(cat "$TRASH_DIRECTORY/live.runs")" -ge 1 &&
	marks=$HOME/.local/share/callus/import-watermarks.tsv &&
	{ grep -v -- "-shop/" "$marks" >"$TRASH_DIRECTORY/marks" || :; } &&
	cat "$TRASH_DIRECTORY/marks" >"$marks" &&
	"$CALLUS" import --agent claude-code --project . >"$TRASH_DIRECTORY/imp2.out" &&
	cat "$TRASH_DIRECTORY/imp2.out" &&
	grep -q "failures the hooks recorded when they ran, not counted again: $(cat "$TRASH_DIRECTORY/live.runs")" \
		"$TRASH_DIRECTORY/imp2.out" &&
	sqlite3 .callus/callus.db .dump >"$TRASH_DIRECTORY/again.dump" &&
	test_cmp "$TRASH_DIRECTORY/live.dump" "$TRASH_DIRECTORY/again.dump"
'

test_done
