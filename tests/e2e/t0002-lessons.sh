#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
# e2e: long (started first: tests/e2e/run.sh)
test_description='a failed check becomes a lesson an agent reads

Real eslint, jest and vitest (tests/tools) fail on small projects under
`callus run`; the lesson lands in the store, in .lessons/ and in AGENTS.md.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

test_skip_unless_tool node

test_expect_success 'a check stopped (Ctrl-C, or its reader gone) records no lesson' '
	mkdir stopped && (cd stopped && git init -q &&
		echo "int main(void){ return nope; }" >t.c &&
		{ env --default-signal=PIPE,INT "$CALLUS" run -- sh -c "gcc -c t.c 2>/dev/null; kill -PIPE \$\$" || echo $? >st.pipe; } &&
		{ env --default-signal=PIPE,INT "$CALLUS" run -- sh -c "gcc -c t.c 2>/dev/null; kill -INT \$\$" || echo $? >st.int; } &&
		test "$(cat st.pipe) $(cat st.int)" = "141 130" &&
		test "$("$CALLUS" lessons --json 2>/dev/null | jq length)" = 0 &&
		test_expect_code 1 "$CALLUS" run -- gcc -c t.c 2>/dev/null &&
		test "$("$CALLUS" lessons --json | jq length)" = 1)
'

test_expect_success 'failing eslint records one lesson naming the rule and the file' '
	setup_fixture eslint-project lint &&
	cd lint &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >out 2>err &&
	grep -q "no-unused-vars" out &&
	grep -q "recorded lesson 1" err &&
	"$CALLUS" lessons --json >lessons.json &&
	test "$(jq length lessons.json)" = 1 &&
	test "$(jq -r ".[0].type" lessons.json)" = LINT &&
	test "$(jq -r ".[0].tool" lessons.json)" = eslint &&
	test "$(jq -r ".[0].file" lessons.json)" = src/app.js &&
	jq -r ".[0].error_summary" lessons.json | grep -q "no-unused-vars" &&
	jq -r ".[0].error_summary" lessons.json | grep -q "no-undef" &&
	test "$(jq -c ".[0].affected_files" lessons.json)" = "[\"src/app.js\",\"src/util.js\"]" &&
	test "$(jq -r ".[0].signature | length" lessons.json)" = 64 &&
	test "$(jq -r ".[0].occurrences" lessons.json)" = 1
'

test_expect_success 'the lesson is a Markdown file with every field' '
	cd lint &&
	sig=$(jq -r ".[0].signature" lessons.json) &&
	md=.lessons/${sig:0:12}.md &&
	test -f "$md" &&
	for field in Timestamp Type File "Intent id" Signature Tool Command \
		"Exit code" Occurrences "Last seen" "Affected files"; do
		grep -q "\*\*$field:\*\*" "$md" || { echo "missing $field"; exit 1; }
	done &&
	grep -q "no-unused-vars" "$md" &&
	grep -q "## Cause" "$md" && grep -q "## Corrective rule" "$md"
'

test_expect_success 'AGENTS.md carries the lesson between markers' '
	cd lint &&
	grep -q "<!-- callus:lessons:begin -->" AGENTS.md &&
	grep -q "<!-- callus:lessons:end -->" AGENTS.md &&
	grep -q "src/app.js" AGENTS.md
'

test_expect_success 'the same failure again adds an occurrence, not a lesson' '
	cd lint &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>err &&
	grep -q "updated lesson 1" err &&
	"$CALLUS" lessons --json >again.json &&
	test "$(jq length again.json)" = 1 &&
	test "$(jq -r ".[0].occurrences" again.json)" = 2
'

test_expect_success 'lines moving does not make a new lesson' '
	cd lint &&
	{ printf "\n\n"; cat src/app.js; } >app.tmp && mv app.tmp src/app.js &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
	"$CALLUS" lessons --json >moved.json &&
	test "$(jq length moved.json)" = 1 &&
	test "$(jq -r ".[0].occurrences" moved.json)" = 3
'

test_expect_success 'a failure recurring within its count band leaves AGENTS.md alone' '
	cd lint &&
	grep -q "(seen 3+ times;" AGENTS.md &&
	cp AGENTS.md agents.before &&
	ino=$(stat -c %i AGENTS.md) &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
	"$CALLUS" lessons --json >fourth.json &&
	test "$(jq -r ".[0].occurrences" fourth.json)" = 4 &&
	test "$(stat -c %i AGENTS.md)" = "$ino" &&
	cmp agents.before AGENTS.md
'

test_expect_success 'clean lint records nothing' '
	setup_fixture eslint-project clean &&
	fix_fixture eslint-project clean &&
	cd clean &&
	"$CALLUS" run -- npx eslint src >out 2>err &&
	test_must_be_empty out &&
	! test -e .callus/callus.db &&
	! test -e AGENTS.md &&
	! test -e .lessons
'

test_expect_success 'user text around the block is kept byte for byte' '
	setup_fixture eslint-project keep &&
	cd keep &&
	printf "# Project rules\n\nUse tabs.\r\nNo trailing newline" >AGENTS.md &&
	cp AGENTS.md before &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src/util.js >/dev/null 2>&1 &&
	head -c "$(wc -c <before)" AGENTS.md >prefix &&
	test_cmp before prefix &&
	grep -c "<!-- callus:lessons:begin -->" AGENTS.md >count &&
	echo 1 >expect && test_cmp expect count
'

test_expect_success 'two checks failing in turn leave AGENTS.md alone once counted' '
	cd keep &&
	for round in 1 2; do
		test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
		test_expect_code 1 "$CALLUS" run -- npx eslint src/util.js >/dev/null 2>&1 ||
			exit 1
	done &&
	test "$(grep -c "(seen 3+ times;" AGENTS.md)" = 2 &&
	cp AGENTS.md agents.before &&
	ino=$(stat -c %i AGENTS.md) &&
	for round in 1 2; do
		test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
		test_expect_code 1 "$CALLUS" run -- npx eslint src/util.js >/dev/null 2>&1 ||
			exit 1
	done &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
	test "$(stat -c %i AGENTS.md)" = "$ino" &&
	cmp agents.before AGENTS.md &&
	"$CALLUS" lessons --json >both.json &&
	test "$(jq length both.json)" = 2 &&
	test "$(jq -r "map(.occurrences) | sort | join(\" \")" both.json)" = "5 6" &&
	# the newest lesson first, though the older one failed last
	newest=$(jq -r "max_by(.id) | .signature[0:12]" both.json) &&
	grep "^- LINT" AGENTS.md | head -1 | grep -q "$newest"
'

test_expect_success 'the block goes to the file named in .callus/config' '
	setup_fixture eslint-project claude &&
	cd claude &&
	mkdir -p .callus && printf "[lessons]\n\tfile = CLAUDE.md\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>&1 &&
	grep -q "src/app.js" CLAUDE.md &&
	! test -e AGENTS.md
'

test_expect_success 'numbers out of range in .callus/config fall back to the defaults' '
	setup_fixture eslint-project badcfg &&
	cd badcfg &&
	mkdir -p .callus &&
	printf "[lessons]\n\tmax = 99999999999999999999\n[store]\n\ttimeout_ms = -3\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" run -- npx eslint src >/dev/null 2>err &&
	grep -q "recorded lesson 1" err &&
	grep -q "src/app.js" AGENTS.md
'

test_expect_success 'failing jest: the test name and the expected/received lines' '
	setup_fixture jest-project jest &&
	cd jest &&
	test_expect_code 1 "$CALLUS" run -- npx jest >out 2>err &&
	grep -q "recorded lesson" err &&
	"$CALLUS" lessons --json >l.json &&
	test "$(jq -r ".[0].type" l.json)" = TEST &&
	test "$(jq -r ".[0].tool" l.json)" = jest &&
	test "$(jq -r ".[0].file" l.json)" = sum.test.js &&
	jq -r ".[0].error_summary" l.json >summary &&
	grep -q "adds 1 + 2 to equal 3" summary &&
	grep -q "Expected: 4" summary &&
	grep -q "Received: 3" summary &&
	test "$(wc -c <summary)" -le 501
'

# Jest times each run: from its second on it prints "Time: 0.28 s, estimated
# 1 s", and "(4 ms)" after a test only when it took a millisecond; neither
# makes the failure another.
test_expect_success 'npm test finds the same jest failure, and jest again does' '
	cd jest &&
	test_expect_code 1 "$CALLUS" run -- npm test >/dev/null 2>err &&
	grep -q "updated lesson 1 (npm test in sum.test.js, seen 2 times)" err &&
	test_expect_code 1 "$CALLUS" run -- npx jest >/dev/null 2>err &&
	grep -q "updated lesson 1 (jest in sum.test.js, seen 3 times)" err &&
	"$CALLUS" lessons --json >all.json &&
	test "$(jq length all.json)" = 1 &&
	jq -r ".[0].error_summary" all.json | grep -q "Received: 3"
'

# Jest orders its files by the times it kept of the last runs, and only the
# first failures fit in the summary: three runs kept three different ones.
test_expect_success 'jest failing in six files, three times over, is one lesson' '
	cp -R "$REPO/tests/corpus/projects/jest-many" many &&
	(cd many && git -c init.defaultBranch=main init -q) &&
	_e2e_link_tools many &&
	cd many &&
	for round in 1 2 3; do
		test_expect_code 1 "$CALLUS" run -- npx jest >/dev/null 2>&1 || exit 1
	done &&
	"$CALLUS" lessons --json >l.json &&
	test "$(jq length l.json)" = 1 &&
	test "$(jq ".[0].occurrences" l.json)" = 3
'

# make reports only that a recipe failed when nothing it ran said where:
# what failed is in the summary, and two failures stay two lessons.
test_expect_success 'make check failing two different ways is two lessons' '
	mkdir mk &&
	cd mk &&
	git -c init.defaultBranch=main init -q &&
	printf "check:\n\t@sh ./check.sh\n" >Makefile &&
	echo "echo \"expected 3 widgets but found none\"; exit 1" >check.sh &&
	test_expect_code 2 "$CALLUS" run -- make check >/dev/null 2>&1 &&
	echo "echo \"database connection refused\"; exit 1" >check.sh &&
	test_expect_code 2 "$CALLUS" run -- make check >/dev/null 2>&1 &&
	test_expect_code 2 "$CALLUS" run -- make check >/dev/null 2>&1 &&
	"$CALLUS" lessons --json >l.json &&
	test "$(jq length l.json)" = 2 &&
	test "$(jq "[.[].occurrences] | sort | join(\" \")" -r l.json)" = "1 2"
'

test_expect_success 'failing vitest records the test and its file' '
	setup_fixture vitest-project vitest &&
	cd vitest &&
	test_expect_code 1 "$CALLUS" run -- npx vitest run >out 2>err &&
	grep -q "recorded lesson" err &&
	"$CALLUS" lessons --json >l.json &&
	test "$(jq -r ".[0].tool" l.json)" = vitest &&
	test "$(jq -r ".[0].file" l.json)" = greet.test.js &&
	jq -r ".[0].error_summary" l.json | grep -q "keeps the capital letter"
'

test_expect_success 'lessons filter by type, file and tool, and show one' '
	cd lint &&
	test "$("$CALLUS" lessons --type TEST --json | jq length)" = 0 &&
	test "$("$CALLUS" lessons --type lint --json | jq length)" = 1 &&
	test "$("$CALLUS" lessons --file src/util.js --json | jq length)" = 1 &&
	test "$("$CALLUS" lessons --tool jest --json | jq length)" = 0 &&
	"$CALLUS" lessons show 1 >show.md &&
	grep -q "no-unused-vars" show.md &&
	sig=$(jq -r ".[0].signature" lessons.json) &&
	"$CALLUS" lessons show "${sig:0:8}" --json | jq -e ".id == 1" &&
	test_expect_code 1 "$CALLUS" lessons show 99 2>err &&
	grep -q "no lesson" err &&
	# a signature whose prefix is all digits (one in sixteen) is found by it
	cp -r . ../digits && cd ../digits &&
	sqlite3 .callus/callus.db "UPDATE lessons SET signature = '"'"'111871'"'"' || substr(signature, 7) WHERE id = 1" &&
	"$CALLUS" lessons show 111871 --json | jq -e ".id == 1" &&
	test_expect_code 1 "$CALLUS" lessons show 12 2>err && grep -q "no lesson" err
'

test_expect_success 'a long listing prints its first 50 and says there are more; --json and --limit 0 all' '
	mkdir long && cd long && git init -q &&
	for i in $(seq 1 55); do
		"$CALLUS" record --summary "summary number $i" --file "s$i.c" >/dev/null 2>&1 || return 1
	done &&
	"$CALLUS" lessons >out 2>err &&
	test "$(wc -l <out)" = 100 &&
	grep -q "^callus: 50 lessons shown, and there are more: --limit N shows N, --limit 0 all" err &&
	test "$(wc -l <err)" = 1 &&
	# newest first: the last recorded leads
	head -n 2 out | grep -q "summary number 55" &&
	"$CALLUS" lessons --limit 0 >all 2>err && test "$(wc -l <all)" = 110 && test ! -s err &&
	"$CALLUS" lessons --limit 55 >all 2>err && test "$(wc -l <all)" = 110 && test ! -s err &&
	"$CALLUS" lessons --limit 7 >some 2>err && test "$(wc -l <some)" = 14 && test ! -s err &&
	test "$("$CALLUS" lessons --json 2>err | jq length)" = 55 && test ! -s err &&
	# 55 errors of one failure, each its own
	out=$(awk "BEGIN { c = \"bcdfghklmnp\"; v = \"aeiou\"; n = 0
		for (i = 1; i <= 11; i++) for (j = 1; j <= 5; j++) {
			w = substr(c, i, 1) substr(v, j, 1) substr(c, i, 1)
			printf \"src/f%d.c:1:5: error: %s %s section failed\n\", ++n, w, w } }") &&
	jq -n --arg o "$out" --arg cwd "$PWD" "{command: \"make\", exit_code: 2, cwd: \$cwd, output: \$o}" |
		"$CALLUS" hook generic >/dev/null &&
	"$CALLUS" pending >out 2>err &&
	test "$(wc -l <out)" = 50 &&
	grep -q "^callus: 50 errors shown, and there are more" err &&
	test "$("$CALLUS" pending --json | jq length)" = 55 &&
	test "$("$CALLUS" pending -n 0 | wc -l)" = 55 &&
	test_expect_code 2 "$CALLUS" pending --limit -1 2>err &&
	grep -q "between 0 and 1000000" err
'

# The first recording's file is written late (strace delays its second
# rename(2), the file after its commit), after the second has written its
# own: written from its own copy, the file stayed a recording behind.
test_skip_unless_tool strace
if test_have_tool strace && ! strace -f -o /dev/null -e trace=rename \
	-e inject=rename:delay_enter=1000:when=2 true 2>/dev/null; then
	test_skip "strace cannot delay rename(2) here (ptrace refused, no injection, or no rename)"
fi
test_expect_success 'two recordings of one lesson at once: its file is what the store holds last' '
	git init -q twice && cd twice && echo "int x;" >link.c &&
	"$CALLUS" record --summary "linker fails on libfoo" --file link.c --cause "cause zero" \
		>/dev/null 2>&1 &&
	{ ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -o /dev/null -f -e trace=rename -e inject=rename:delay_enter=300000:when=2 \
		"$CALLUS" record --summary "linker fails on libfoo" --file link.c --cause "cause one" \
		>/dev/null 2>&1 & } &&
	sleep 0.1 &&
	"$CALLUS" record --summary "linker fails on libfoo" --file link.c --cause "cause two" \
		--resolution "res two" >/dev/null 2>&1 &&
	wait &&
	"$CALLUS" lessons --json >lessons.json &&
	test "$(jq length lessons.json)" = 1 &&
	test "$(jq ".[0].occurrences" lessons.json)" = 3 &&
	grep -q "^- \*\*Occurrences:\*\* 3$" .lessons/*.md &&
	grep -q "res two" .lessons/*.md &&
	grep -q "$(jq -r ".[0].cause" lessons.json)" .lessons/*.md
'

test_expect_success 'the store is private and versioned' '
	cd lint &&
	test "$(stat -c %a .callus/callus.db)" = 600 &&
	test "$(stat -c %a .callus)" = 700 &&
	test "$(sqlite3 .callus/callus.db "PRAGMA user_version")" = \
		"$(sed -n "s/^#define CALLUS_STORE_SCHEMA_VERSION //p" "$REPO/include/callus/store.h")" &&
	test "$(sqlite3 .callus/callus.db "PRAGMA journal_mode")" = wal &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 4 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM signatures")" = 2 &&
	test "$(sqlite3 .callus/callus.db "SELECT sum(occurrence_count) FROM signatures WHERE error_type = '"'"'no-unused-vars'"'"'")" = 4
'

test_done
