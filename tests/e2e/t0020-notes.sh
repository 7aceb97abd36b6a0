#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='hindsight notes (issue 12)

Real gcc, eslint and jest failing and fixed in git repositories: one note per
error with the fix'"'"'s own lines and not the build products, the lines in
the reply to a similar mistake elsewhere, later fixes merged into the same
note, .callus/.gitignore letting git see only the notes, a note edited by
hand winning, a note pulled into a second clone used there, the reply budget
held with a 2 MB diff, a secret in a diff kept out of the note.'

# Scratch files (err, reply, ...) are written outside the repositories or
# ignored by them: a file the test writes there would be part of a fix.

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# The test's own scratch files, ignored where they are written.
scratch_ignored() {
	printf "reply*\nc1\nc2ctx\nc3ctx\nbctx\nst\nextra\nshown\nlist*\n" >>.git/info/exclude
}

# c_project DIR: show.c with a format mistake, committed.
c_project() {
	mkdir "$1" && (
		cd "$1" &&
		printf '#include <stdio.h>\n\nvoid show(int n)\n{\n\tprintf("%%s\\n", n);\n}\n' >show.c &&
		git -c init.defaultBranch=main init -q &&
		git config user.email dev@example.com && git config user.name dev &&
		scratch_ignored &&
		git add -A && git -c commit.gpgSign=false commit -q -m show
	)
}

# ctx FILE: the context of a generic hook reply
ctx() {
	jq -r '.additionalContext // empty' "$1"
}

# hook_gcc FILE STATUS: a generic hook payload for `gcc -Werror=format -c FILE`
# as it ran here, answered into reply.
hook_gcc() {
	local out
	out=$(gcc -Werror=format -c "$1" 2>&1) || true
	jq -n --arg c "gcc -Werror=format -c $1" --argjson x "$2" --arg o "$out" --arg cwd "$PWD" \
		'{command: $c, exit_code: $x, output: $o, cwd: $cwd}' | "$CALLUS" hook generic >reply
}

notes() {
	find .callus/notes -name "*.md" | wc -l
}

test_skip_unless_tool gcc jq git
test_expect_success 'gcc: fail, fix, pass makes one note with the fix lines, not show.o' '
	c_project c && cd c &&
	test_expect_code 1 "$CALLUS" run -- gcc -Werror=format -c show.c 2>../err &&
	! test -d .callus/notes &&
	sed -i "s/%s/%d/" show.c &&
	"$CALLUS" run -- gcc -Werror=format -c show.c 2>../err &&
	test -f show.o &&
	grep -q "the fix is kept in note [0-9a-f]\{12\}" ../err &&
	grep -q "callus note [0-9a-f]\{12\} --rule" ../err &&
	test "$(notes)" = 1 &&
	n=$(ls .callus/notes) &&
	grep -q "^## Error Pattern" ".callus/notes/$n" &&
	grep -q "^## Resolution" ".callus/notes/$n" &&
	grep -q "^## Code Examples" ".callus/notes/$n" &&
	grep -q "^## Tags" ".callus/notes/$n" &&
	grep -q "^-	printf(\"%s\\\\n\", n);" ".callus/notes/$n" &&
	grep -q "^+	printf(\"%d\\\\n\", n);" ".callus/notes/$n" &&
	grep -q "^1\. Edited show() in show.c" ".callus/notes/$n" &&
	! grep -q "show\.o" ".callus/notes/$n" &&
	grep -q "^type: hindsight" ".callus/notes/$n" &&
	grep -q "^layer: project" ".callus/notes/$n" &&
	"$CALLUS" notes --json | jq -e "length == 1 and .[0].success_rate == 1" &&
	"$CALLUS" status | grep -q "^notes        1 " &&
	grep -q "Fixes that worked here" AGENTS.md &&
	grep -q "printf(\"%d" AGENTS.md
'

test_expect_success 'callus run: a text file the passing check writes is no part of the fix' '
	c_project mk && cd mk &&
	printf "all:\n\tgcc -Werror=format -c show.c\n\tdate >build.log\n" >Makefile &&
	git add Makefile && git -c commit.gpgSign=false commit -qm make &&
	test_expect_code 2 "$CALLUS" run -- make 2>../err >/dev/null &&
	sed -i "s/%s/%d/" show.c &&
	"$CALLUS" run -- make 2>../err >/dev/null &&
	test -f build.log &&
	"$CALLUS" resolutions --json | jq -e "length == 1 and .[0].files == [\"show.c\"]" &&
	! grep -rq "build.log" .callus/notes
'

test_expect_success 'git sees only the notes of .callus/, and none of .lessons/' '
	cd c &&
	echo "*.o" >.gitignore &&
	git status --porcelain --untracked-files=all >st &&
	grep -q "^?? .callus/notes/[0-9a-f]\{12\}\.md$" st &&
	grep -q "^?? .callus/.gitignore$" st &&
	! grep -q "callus.db\|log.jsonl\|vectors\|lock\|\.lessons/" st &&
	git add -A &&
	git -c commit.gpgSign=false commit -q -m "notes" &&
	git ls-files .callus | grep -v "^.callus/notes/\|^.callus/.gitignore$" >extra || true &&
	test_must_be_empty extra
'

test_expect_success 'the same mistake in total.c: the reply holds the fix lines of show.c' '
	cd c &&
	printf "#include <stdio.h>\n\nvoid total(int a, int b)\n{\n\tint t = a + b;\n\tprintf(\"total: %%s\\\\n\", t);\n}\n" >total.c &&
	hook_gcc total.c 1 &&
	ctx reply >c1 &&
	grep -q "what fixed errors like this before" c1 &&
	grep -q "^  -	printf(\"%s\\\\n\", n);" c1 &&
	grep -q "^  +	printf(\"%d\\\\n\", n);" c1 &&
	test "$(wc -c <c1)" -le 1500 &&
	sed -i "s/%s/%d/" total.c &&
	hook_gcc total.c 0 &&
	ctx reply | grep -q "the fix is kept in note" &&
	test "$(notes)" = 1 &&
	"$CALLUS" notes --json | jq -e ".[0].resolutions == 2 and .[0].application_count >= 2"
'

test_expect_success 'a third fix of the same kind merges into the same note' '
	cd c &&
	printf "#include <stdio.h>\n\nvoid avg(int s, int n)\n{\n\tint a = s / n;\n\tprintf(\"avg: %%s\\\\n\", a);\n}\n" >avg.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -Werror=format -c avg.c 2>../err &&
	grep -q "callus:   +	printf(\".*%d" ../err &&
	sed -i "s/%s/%d/" avg.c &&
	"$CALLUS" run -- gcc -Werror=format -c avg.c 2>../err &&
	test "$(notes)" = 1 &&
	"$CALLUS" notes --json | jq -e "length == 1 and .[0].resolutions == 3"
'

test_expect_success 'the agent adds the rule; it heads the note and the next reply' '
	cd c &&
	id=$("$CALLUS" notes --json | jq -r ".[0].id") &&
	"$CALLUS" note "${id%????????}" --rule "format specifiers must match the argument type: %d for int" >../rule-out &&
	test "$(cat ../rule-out)" = "note ${id%????????}: rule recorded" &&
	grep -q "^Rule: format specifiers must match" ".callus/notes/$id.md" &&
	grep -q "Rule: \`format specifiers" AGENTS.md &&
	"$CALLUS" lessons --json >../list-rule &&
	jq -e "any(.[]; .corrective_rule | startswith(\"format specifiers must match\"))" ../list-rule &&
	{ git checkout -q show.c 2>/dev/null || :; } && sed -i "s/%d/%s/" show.c &&
	hook_gcc show.c 1 &&
	ctx reply | grep -q "^  Rule: format specifiers must match" &&
	"$CALLUS" record --summary "format mismatch" --rule "printf formats follow the argument types" --note "$id" >/dev/null &&
	grep -q "^Rule: printf formats follow the argument types" ".callus/notes/$id.md" &&
	"$CALLUS" note "$id" --rule "format specifiers must match the argument type: %d for int" &&
	test_must_fail "$CALLUS" record --summary x --note "$id" 2>../err &&
	grep -q "needs the --rule" ../err &&
	test_must_fail "$CALLUS" note "$id" --rule "" 2>../err &&
	test_must_fail "$CALLUS" note 0000 --rule "x" 2>../err &&
	grep -q "no note 0000" ../err &&
	# a note that is not there is said before anything is recorded
	n=$("$CALLUS" lessons --json | jq length) &&
	test_expect_code 1 "$CALLUS" record --summary "never kept" --rule r --note ffffffffffff 2>../err &&
	grep -q "no note ffffffffffff" ../err &&
	test "$("$CALLUS" lessons --json | jq length)" = "$n"
'

test_expect_success 'callus feedback moves the note'"'"'s metrics and its file' '
	cd c &&
	id=$("$CALLUS" notes --json | jq -r ".[0].id") &&
	before=$("$CALLUS" notes --json | jq ".[0].application_count") &&
	rid=$("$CALLUS" resolutions --json | jq ".[0].id") &&
	"$CALLUS" feedback "$rid" failure >/dev/null &&
	"$CALLUS" notes --json | jq -e ".[0].application_count == $before + 1" &&
	grep -q "^applications: $((before + 1))$" ".callus/notes/$id.md" &&
	# counts edited by hand are not read back: the file says the store'"'"'s again
	sed -i "s/^applications: .*/applications: 500/; s/^successes: .*/successes: 500/" \
		".callus/notes/$id.md" &&
	"$CALLUS" notes --json | jq -e ".[0].application_count == $before + 1" &&
	grep -q "^applications: $((before + 1))$" ".callus/notes/$id.md" &&
	! grep -q "^successes: 500" ".callus/notes/$id.md"
'

test_expect_success 'a note edited by hand wins; one deleted by hand is retired' '
	cd c &&
	id=$("$CALLUS" notes --json | jq -r ".[0].id") &&
	sed -i "s/^1\. .*/1. Use %d for an int, %ld for a long (see docs\/printf.md)/" ".callus/notes/$id.md" &&
	printf "\n## Why\n\nOur logger wraps printf.\n" >>".callus/notes/$id.md" &&
	"$CALLUS" notes show "$id" >shown &&
	grep -q "^1\. Use %d for an int" shown &&
	grep -q "^## Why" shown &&
	"$CALLUS" notes --json | jq -e ".[0].edited == true" &&
	# a later fix merges into it without writing over the person
	sed -i "s/%s/%d/" show.c && hook_gcc show.c 0 &&
	grep -q "^1\. Use %d for an int" ".callus/notes/$id.md" &&
	grep -q "^## Why" ".callus/notes/$id.md" &&
	grep -q "$id" AGENTS.md &&
	rm ".callus/notes/$id.md" &&
	"$CALLUS" notes >list &&
	grep -q "no notes yet" list &&
	# retired: the instructions file no longer shows it
	! grep -q "$id" AGENTS.md &&
	"$CALLUS" notes --all --json | jq -e ".[0].status == \"retired\"" &&
	! test -e ".callus/notes/$id.md" &&
	git checkout -q ".callus/notes/$id.md" &&
	"$CALLUS" notes --json | jq -e "length == 1 and .[0].status == \"active\""
'

test_expect_success 'bad input: a file that is no note, a bad layer, a bad id, a bad rule' '
	cd c &&
	printf "not a note\n" >.callus/notes/0123456789ab.md &&
	printf "%s\n" "---" "id: 0123456789ab" >.callus/notes/abcdefabcdef.md &&
	"$CALLUS" notes --json >list.json 2>../err &&
	test_must_be_empty ../err &&
	jq -e "length == 1" list.json &&
	grep -q "note_unreadable" .callus/log.jsonl &&
	test "$(cat .callus/notes/0123456789ab.md)" = "not a note" &&
	rm .callus/notes/0123456789ab.md .callus/notes/abcdefabcdef.md list.json &&
	test_expect_code 2 "$CALLUS" notes --layer bogus 2>../err &&
	grep -q "unknown layer .bogus." ../err &&
	# what is no id at all is a usage error (2), as for callus resolutions
	test_expect_code 2 "$CALLUS" notes show zz 2>../err &&
	grep -q "not a note id" ../err &&
	test_expect_code 2 "$CALLUS" notes show 62 2>../err &&
	test_expect_code 2 "$CALLUS" note zz --rule "x" 2>../err &&
	test_expect_code 2 "$CALLUS" lessons show abc 2>../err &&
	grep -q "neither a lesson id" ../err &&
	test_expect_code 1 "$CALLUS" notes show 0000 2>../err &&
	grep -q "no note 0000" ../err &&
	test_expect_code 2 "$CALLUS" notes show 2>../err &&
	test_expect_code 2 "$CALLUS" note retire 2>../err &&
	test_expect_code 2 "$CALLUS" note 628d --rule "two
lines" 2>../err &&
	grep -q "one line" ../err
'

test_expect_success 'a note pulled into a second clone is used there' '
	git clone -q c c2 && cd c2 && scratch_ignored &&
	! test -e .callus/callus.db &&
	test "$(notes)" = 1 &&
	printf "#include <stdio.h>\n\nvoid count(int k)\n{\n\tprintf(\"count: %%s\\\\n\", k);\n}\n" >count.c &&
	hook_gcc count.c 1 &&
	ctx reply >c2ctx &&
	grep -q "what fixed errors like this before" c2ctx &&
	grep -q "^  +	printf(\"%d\\\\n\", n);" c2ctx &&
	"$CALLUS" notes --json | jq -e "length == 1 and .[0].layer == \"project\""
'

test_expect_success 'a note file that names the team or org layer is a project'"'"'s note: only a layer'"'"'s store says so' '
	git clone -q c c3 && cd c3 && scratch_ignored &&
	f=$(ls .callus/notes/*.md) &&
	sed -i "s/^layer: .*/layer: org/" "$f" && grep -q "^layer: org" "$f" &&
	"$CALLUS" notes --json | jq -e "length == 1 and .[0].layer == \"project\"" &&
	"$CALLUS" notes --layer org --json | jq -e "length == 0" &&
	printf "#include <stdio.h>\n\nvoid count(int k)\n{\n\tprintf(\"count: %%s\\\\n\", k);\n}\n" >count.c &&
	hook_gcc count.c 1 &&
	ctx reply >c3ctx &&
	grep -q "what fixed errors like this before" c3ctx &&
	grep -q "(worked [0-9]* of [0-9]* times*, project)" c3ctx &&
	! grep -q ", org)" c3ctx &&
	# edited in a clone that knew the note: the same
	cd ../c && f=$(ls .callus/notes/*.md) && cp "$f" ../saved.md &&
	sed -i "s/^layer: .*/layer: team/" "$f" &&
	"$CALLUS" notes --json | jq -e "all(.[]; .layer == \"project\")" &&
	cp ../saved.md "$f"
'

test_expect_success 'a note edited in place, outside the recording'"'"'s slice of the notes, is shown as edited' '
	cd c2 &&
	id=$("$CALLUS" notes --json | jq -r ".[0].id") &&
	"$CALLUS" note "$id" --rule "first rule" &&
	# more notes than a recording checks the files of, all before it
	for i in $(seq 1 70); do
		fid=$(printf "%012x" "$i") &&
		sed -e "s/^id: .*/id: $fid/" -e "s/^  - [0-9a-f]\{64\}$/  - $(printf "%064x" "$i")/" \
			-e "s/^tool: .*/tool: eslint/" -e "s/^error_type: .*/error_type: no-unused-vars/" \
			-e "s/^# .*/# eslint: filler $i/" -e "s/^Rule: .*/Rule: filler $i/" \
			-e "s/^    format .*/    unused$i is assigned a value but never used/" \
			".callus/notes/$id.md" >".callus/notes/$fid.md" || return 1
	done &&
	test "$("$CALLUS" notes --json | jq length)" = 71 &&
	# a recording looks at the whole folder, which changed, once
	hook_gcc count.c 1 &&
	test "$(cut -d" " -f2 .callus/notes.cursor)" = "" &&
	before=$(stat -c %y .callus/notes) &&
	# written in place, as an editor may: the folder does not change
	edited=$(sed "s/^Rule: .*/Rule: edited in place/" ".callus/notes/$id.md") &&
	printf "%s\n" "$edited" >".callus/notes/$id.md" &&
	test "$(stat -c %y .callus/notes)" = "$before" &&
	# a new mistake the note answers (one it answered before would
	# change the note, which takes its file in first)
	printf "#include <stdio.h>\n\nvoid tally(int t)\n{\n\tprintf(\"tally: %%s\\\\n\", t);\n}\n" >tally.c &&
	hook_gcc tally.c 1 &&
	ctx reply >c2ctx &&
	grep -q "Rule: edited in place" c2ctx &&
	! grep -q "first rule" c2ctx &&
	# the recording looked at a slice, not at the whole folder
	test "$(cut -d" " -f2 .callus/notes.cursor)" = "$(printf "%012x" 64)"
'

# session_start: a Claude Code session's start here, answered into reply
session_start() {
	jq -n --arg cwd "$PWD" '{session_id: "s20", cwd: $cwd, hook_event_name: "SessionStart",
		source: "startup"}' | "$CALLUS" hook claude-code >reply
}

test_expect_success 'a session start looks at a slice of the notes, and at a new file at once' '
	cd c2 &&
	# a session start, as a recording, looks at the slice of files after
	# the last one looked at, and moves on (it looked at every file, and
	# left the place: 10,033 stats at 9,998 notes, strace -c)
	was=$(cut -d" " -f2 .callus/notes.cursor) && test -n "$was" &&
	session_start && jq -e ".hookSpecificOutput.hookEventName == \"SessionStart\"" reply &&
	now=$(cut -d" " -f2 .callus/notes.cursor) && test -n "$now" && test "$now" != "$was" &&
	# a file new to the folder (a teammate'"'"'s, through git) is taken in
	# by the next start
	n=$(sqlite3 .callus/callus.db "SELECT count(*) FROM notes") &&
	fid=$(printf "%012x" 200) &&
	sed -e "s/^id: .*/id: $fid/" -e "s/^  - [0-9a-f]\{64\}$/  - $(printf "%064x" 200)/" \
		-e "s/^# .*/# eslint: filler 200/" ".callus/notes/$(printf "%012x" 1).md" \
		>".callus/notes/$fid.md" &&
	session_start &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM notes")" = $((n + 1)) &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM notes WHERE id = '"'"'$fid'"'"'")" = 1 &&
	# a note the start shows is as its file says, edited in place outside
	# the slice it looks at: the one after this note, which the fillers
	# fill (the cursor says where the last slice ended)
	id=$(sqlite3 .callus/callus.db "SELECT id FROM notes WHERE id NOT LIKE '"'"'00000000%'"'"'") &&
	edited=$(sed "s/^Rule: .*/Rule: zq9/" ".callus/notes/$id.md") &&
	before=$(stat -c %y .callus/notes) &&
	printf "%s\n" "$edited" >".callus/notes/$id.md" &&
	test "$(stat -c %y .callus/notes)" = "$before" &&
	printf "%020d %-12s\n" "$(stat -c %.9Y .callus/notes | tr -d .)" "$id" >.callus/notes.cursor &&
	session_start &&
	jq -r .hookSpecificOutput.additionalContext reply >startctx &&
	grep -q "note $id .*" startctx && grep -q "Rule: zq9" startctx &&
	! grep -q "Rule: edite" startctx
'

test_expect_success 'the reply keeps its budget with a 2 MB diff; a secret in the diff stays out' '
	c_project big && cd big &&
	printf "static const char *table[] = {\n" >table.c &&
	git add table.c && git -c commit.gpgSign=false commit -q -m table &&
	hook_gcc show.c 1 &&
	# the fix, and a 2 MB regenerated table, and a key pasted in
	sed -i "s/%s/%d/" show.c &&
	awk "BEGIN { for (i = 0; i < 40000; i++) printf \"\\\"%060d\\\",\\n\", i; print \"};\" }" >>table.c &&
	printf "const char *aws = \"AKIAIOSFODNN7EXAMPLE\";\nconst char *pw = \"password=hunter2hunter2\";\n" >>show.c &&
	test "$(wc -c <table.c)" -gt 2000000 &&
	hook_gcc show.c 0 &&
	test "$(notes)" = 1 &&
	! grep -r "AKIAIOSFODNN7EXAMPLE\|hunter2hunter2" .callus/notes AGENTS.md &&
	git checkout -q show.c &&
	printf "void more(int m)\n{\n\tprintf(\"%%s\", m);\n}\n" >>show.c &&
	hook_gcc show.c 1 &&
	ctx reply >bctx &&
	test -s bctx &&
	test "$(wc -c <bctx)" -le 1500 &&
	"$CALLUS" hook generic --context-chars 300 <<-EOF >reply2 &&
	$(jq -n --arg o "$(gcc -Werror=format -c show.c 2>&1)" --arg cwd "$PWD" \
		"{command: \"gcc -Werror=format -c show.c\", exit_code: 1, output: \$o, cwd: \$cwd}")
	EOF
	test "$(ctx reply2 | wc -c)" -le 301
'

test_skip_unless_tool npx
test_expect_success 'eslint: the fix of an unused variable answers an unused one elsewhere' '
	setup_fixture eslint-project lint && cd lint &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src 2>/dev/null >/dev/null &&
	fix_fixture eslint-project . &&
	"$CALLUS" run -- npx eslint src 2>../err &&
	grep -q "the fix is kept in note" ../err &&
	grep -rq "^-  const currency" .callus/notes &&
	printf "function total(items) {\n  const tax = 2;\n  return items.length;\n}\nmodule.exports = total;\n" >src/total.js &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src 2>../err &&
	grep -q "what fixed errors like this before" ../err &&
	grep -q "callus:   -  const currency" ../err
'

test_skip_unless_tool npx
test_expect_success 'jest: the fix of a failing assertion is a note with its lines' '
	setup_fixture jest-project j && cd j &&
	test_expect_code 1 "$CALLUS" run -- npx jest 2>/dev/null >/dev/null &&
	fix_fixture jest-project . &&
	"$CALLUS" run -- npx jest 2>../err &&
	grep -q "the fix is kept in note" ../err &&
	test "$(notes)" -ge 1 &&
	"$CALLUS" notes show "$("$CALLUS" notes --json | jq -r ".[0].id")" >shown &&
	grep -q "^## Code Examples" shown &&
	grep -q "^[-+].*expect(" shown
'

test_expect_success 'a retired note'"'"'s fix is offered no more; a fix found since is' '
	c_project r && cd r &&
	hook_gcc show.c 1 && sed -i "s/%s/%d/" show.c && hook_gcc show.c 0 &&
	id=$("$CALLUS" notes --json | jq -r ".[0].id") &&
	sed -i "s/%d/%s/" show.c && hook_gcc show.c 1 &&
	ctx reply | grep -q "note $id" &&
	"$CALLUS" note retire "$id" >/dev/null &&
	hook_gcc show.c 1 && ctx reply >../rctx &&
	! grep -q "what fixed errors like this before" ../rctx &&
	{ gcc -Werror=format -c show.c 2>&1 || :; } |
		"$CALLUS" suggest -c "gcc -Werror=format -c show.c" >../sg &&
	grep -q "format" ../sg && ! grep -q "printf" ../sg &&
	# fixed another way: offered on its own, and no note comes back
	sed -i "s/(\"%s\\\\n\", n)/(\"%s\\\\n\", \"n\")/" show.c && grep -q "\"n\")" show.c &&
	hook_gcc show.c 0 &&
	git checkout -q show.c && hook_gcc show.c 1 && ctx reply >../rctx &&
	grep -q "past fix" ../rctx && grep -q "^  +.*\"n\");" ../rctx &&
	! grep -q "note $id" ../rctx &&
	"$CALLUS" notes --json | jq -e "length == 0" &&
	# a rule given to the retired note is kept, and said to be shown no more
	"$CALLUS" note "$id" --rule "match the format to the argument" >../ro &&
	grep -qx "note $id: rule recorded" ../ro &&
	grep -qx "  the note is retired: its lessons carry the rule, the note is shown no more" ../ro &&
	"$CALLUS" notes --all --json | jq -e ".[] | select(.id == \"$id\") | .rule == \"match the format to the argument\""
'

test_expect_success 'a note file git left in conflict is not read, nor written over, until resolved' '
	git clone -q c c4 && cd c4 && scratch_ignored &&
	git config user.email dev4@example.com && git config user.name dev4 &&
	id=$("$CALLUS" notes --json | jq -r ".[0].id") &&
	"$CALLUS" note "$id" --rule "rule of the clone" >/dev/null &&
	git commit -qam clone &&
	(cd ../c && "$CALLUS" note "$id" --rule "rule upstream" >/dev/null &&
	 git add .callus/notes && git -c commit.gpgSign=false commit -qm upstream) &&
	test_expect_code 1 git -c commit.gpgSign=false pull -q --no-rebase ../c main >/dev/null 2>&1 &&
	grep -q "^<<<<<<<" ".callus/notes/$id.md" &&
	"$CALLUS" notes show "$id" --json | jq -e ".rule == \"rule of the clone\"" &&
	grep -q "\"note_unreadable\".*conflict markers" .callus/log.jsonl &&
	{ "$CALLUS" doctor >../doc4 || :; } &&
	grep -q "^problem  notes .*$id.*conflict markers" ../doc4 &&
	# what callus learns meanwhile is not written over the person'"'"'s merge
	rid=$("$CALLUS" resolutions --json | jq ".[0].id") &&
	"$CALLUS" feedback "$rid" success >/dev/null && "$CALLUS" notes >/dev/null &&
	grep -q "^<<<<<<<" ".callus/notes/$id.md" &&
	grep -q "\"note_conflicted\"" .callus/log.jsonl &&
	git checkout -q --theirs ".callus/notes/$id.md" &&
	"$CALLUS" notes show "$id" --json | jq -e ".rule == \"rule upstream\"" &&
	{ "$CALLUS" doctor >../doc4 || :; } && ! grep -q "conflict markers" ../doc4
'

test_expect_success 'one fix of several errors of one note is said once' '
	mkdir py pybin && cd py && git init -q && scratch_ignored &&
	printf "#!/bin/sh\n[ -z \"\$PYOUT\" ] || cat \"\$PYOUT\"\nexit \${PYRC:-1}\n" >../pybin/pytest &&
	chmod +x ../pybin/pytest &&
	for t in alpha beta gamma; do
		printf "def test_%s():\n    assert %s\n" $t $t >test_$t.py &&
		printf "____ test_%s ____\n\n    def test_%s():\n>       assert %s\nE       NameError: name %s is not defined\n\ntest_%s.py:2: NameError\n" \
			$t $t $t "'"'"'$t'"'"'" $t >>../three.txt || return 1
	done &&
	{ echo "=================================== FAILURES ==================================="; cat ../three.txt; } >../three.out &&
	git add -A && git -c commit.gpgSign=false commit -qm tests &&
	test_expect_code 1 env PATH="$PWD/../pybin:$PATH" PYOUT=../three.out "$CALLUS" run -- pytest 2>../err &&
	sed -i "s/assert .*/assert 1/" test_*.py &&
	env PATH="$PWD/../pybin:$PATH" PYRC=0 "$CALLUS" run -- pytest 2>../err &&
	test "$(grep -c "passes; the fix" ../err)" = 1 &&
	grep -q "passes; the fix of 3 errors is kept in note" ../err
'

test_expect_success 'callus note retire takes several notes: one it cannot take is said, the rest are retired' '
	cd c2 &&
	n=$("$CALLUS" notes --json | jq length) &&
	test -e .callus/notes/000000000001.md && test -e .callus/notes/000000000002.md &&
	test_expect_code 1 "$CALLUS" note retire 000000000001 ffffffffffff 000000000002 >out 2>err &&
	grep -q "^note 000000000001 retired$" out && grep -q "^note 000000000002 retired$" out &&
	test "$(wc -l <err)" = 1 && grep -q "ffffffffffff" err &&
	test "$("$CALLUS" notes --json | jq length)" = $((n - 2)) &&
	test ! -e .callus/notes/000000000001.md && test ! -e .callus/notes/000000000002.md &&
	test_expect_code 2 "$CALLUS" note retire 000000000003 000000000004 --layer team 2>err &&
	grep -q "one note at a time" err &&
	test -e .callus/notes/000000000003.md
'

test_done
