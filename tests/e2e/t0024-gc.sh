#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='retention: callus gc (issue 14)

Real gcc failures recorded by callus run in a git repository, one of them
fixed (a resolution and a note): aged by hand in the store, callus gc removes
the old lessons with their .lessons/ files, the old runs, the idle checks no
error names and the signature nothing needs, and keeps the note, the
resolution, the signature it fixes (still suggested for the same mistake) and
its check; [retention] lessons bounds the count;
a recording runs the policy in the background once gc_hours have passed.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# A C file with an error of its own: FILE WORDS
c_file() {
	printf 'int %s(void)\n{\n\treturn %s;\n}\n' "$1" "$2" >"$1.c"
}

# q SQL: SQL on the store, waiting for its lock as callus does (a pass
# a recording started in the background may hold it)
q() {
	sqlite3 -cmd ".timeout 10000" .callus/callus.db "$1"
}

lesson_files() {
	find .lessons -name "*.md" | wc -l
}

# plant_lessons N TAG: N more lessons, older than any recorded (2001) and
# seen once, copies of na.c's with no file of their own; TAG keeps the
# signatures of two plantings apart
plant_lessons() {
	q "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < $1)
	   INSERT INTO lessons (signature, timestamp, type, file, error_summary, tool, command,
	   exit_code, last_seen) SELECT printf('%063d', c.i) || '$2', l.timestamp, l.type, '',
	   l.error_summary || c.i, l.tool, l.command, l.exit_code, '2001-01-01T00:00:00.000Z'
	   FROM c, lessons l WHERE l.file = 'na.c'"
}

# two_failures: one.c and two.c, each failing gcc once in this repository
# (two lessons, their files, a block naming both)
two_failures() {
	c_file one undefined_one && c_file two undefined_two &&
	for f in one two; do
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
	done
}

# Every lesson file AGENTS.md's block names exists, and it names N (the
# list kept outside the workspace).
agents_names() {
	test -f AGENTS.md &&
	{ grep -o '\.lessons/[0-9a-f]*\.md' AGENTS.md || true; } | sort -u >../named &&
	while read -r f; do test -f "$f" || { echo "AGENTS.md names $f, gone"; return 1; }; done <../named &&
	test "$(wc -l <../named)" = "$1"
}

test_skip_unless_tool gcc jq git sqlite3
test_expect_success 'setup: three failing files, one fixed (a resolution and a note)' '
	mkdir p && cd p &&
	git -c init.defaultBranch=main init -q &&
	git config user.email dev@example.com && git config user.name dev &&
	printf "err\nout*\n*.o\n" >>.git/info/exclude &&
	c_file alpha undefined_alpha && c_file beta "\"x\" * 2" && c_file gamma undefined_gamma &&
	git add -A && git -c commit.gpgSign=false commit -q -m start &&
	# the fix makes its note from the snapshot taken at the failure, which
	# a loaded machine (the suite runs two scripts at once) could take past
	# the usual 3 s: a note missing here would say nothing of gc
	mkdir .callus && printf "[learn]\nsnapshot_timeout_ms = 60000\n" >.callus/config &&
	for f in alpha beta gamma; do
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
	done &&
	sed -i "s/undefined_alpha/0/" alpha.c &&
	"$CALLUS" run -- gcc -c alpha.c 2>err &&
	test "$(q "SELECT count(*) FROM lessons")" = 3 &&
	test "$(lesson_files)" = 3 &&
	test "$(q "SELECT count(*) FROM resolutions")" = 1 &&
	test "$(find .callus/notes -name "*.md" | wc -l)" = 1
'

test_expect_success 'callus gc with nothing old removes nothing' '
	cd p &&
	"$CALLUS" gc --json >out &&
	jq -e ".lessons == 0 and .runs == 0 and .signatures == 0" out &&
	test "$(lesson_files)" = 3
'

test_expect_success 'aged, the lessons, runs, idle checks and unneeded signatures go; the fix and its note stay' '
	cd p &&
	fixed=$(q "SELECT signature_id FROM resolutions") &&
	q "UPDATE lessons SET last_seen = '\''2001-01-01T00:00:00.000Z'\'';
	   UPDATE runs SET at = '\''2001-01-01T00:00:00.000Z'\'';
	   UPDATE signatures SET last_seen = unixepoch('\''2001-01-01'\'');
	   UPDATE pending_errors SET last_failure_at = '\''2001-01-01T00:00:00.000Z'\'';
	   UPDATE checks SET last_run_at = '\''2001-01-01T00:00:00.000Z'\''" &&
	newest=$(q "SELECT max(rowid) FROM signatures") &&
	last=$(q "SELECT max(id) FROM lessons") &&
	# a dry run first: what the pass removes, and nothing changed
	sqlite3 .callus/callus.db .dump >../dump.before &&
	ls -R .lessons .callus/notes >../files.before &&
	cp AGENTS.md ../agents.before &&
	"$CALLUS" gc --dry-run --json >dry &&
	"$CALLUS" gc --dry-run >dry.txt &&
	grep -q "^would remove 2 lessons (2 files in .lessons/), 2 runs" dry.txt &&
	grep -q "^nothing was changed (--dry-run)$" dry.txt &&
	sqlite3 .callus/callus.db .dump | cmp - ../dump.before &&
	ls -R .lessons .callus/notes | cmp - ../files.before &&
	cmp AGENTS.md ../agents.before &&
	"$CALLUS" gc --json >out &&
	# the dry run said what went
	test "$(jq -c "del(.dry_run)" dry)" = "$(jq -c "del(.dry_run, .vacuumed, .wal_left)
		| . + {vacuumed: false, wal_left: false}" out)" &&
	jq -e ".dry_run == true" dry && jq -e ".dry_run == false" out &&
	# gamma'"'"'s error is alike alpha'"'"'s, and in its note: its lesson, the
	# newest, keeps its run, by which the note'"'"'s rule reaches it
	jq -e ".lessons == 2 and .lesson_files == 2 and .runs == 2 and .pending >= 2 and .signatures >= 1" out &&
	test "$(q "SELECT max(rowid) FROM signatures")" = "$newest" &&
	test "$(q "SELECT count(*) FROM signatures")" = 2 &&
	agents_names 1 &&
	jq -e ".checks == 2" out &&
	test "$(q "SELECT args FROM checks")" = "-c alpha.c" &&
	# the newest lesson stays, whatever its age: its number is never
	# given to another
	test "$(q "SELECT id FROM lessons")" = "$last" &&
	test "$(lesson_files)" = 1 &&
	test "$(q "SELECT command FROM runs")" = "gcc -c gamma.c" &&
	test "$(q "SELECT count(*) FROM run_errors e JOIN signatures g ON g.rowid = e.sig
		   JOIN note_signatures x ON x.signature_id = g.id")" = 1 &&
	test "$(q "SELECT count(*) FROM resolutions")" = 1 &&
	test "$(q "SELECT count(*) FROM signatures WHERE id = '\''$fixed'\''")" = 1 &&
	test "$(find .callus/notes -name "*.md" | wc -l)" = 1 &&
	"$CALLUS" notes --json | jq -e "length == 1" &&
	test "$(q "SELECT sum(n) FROM vector_models")" = "$(q "SELECT count(*) FROM signature_vectors")"
'

test_expect_success 'a note'"'"'s rule reaches its lessons past run_days, in the store and in .lessons/' '
	cd p &&
	id=$("$CALLUS" notes --json | jq -r ".[0].id") &&
	"$CALLUS" note "$id" --rule "Declare each identifier before its use" &&
	test "$(q "SELECT corrective_rule FROM lessons")" = "Declare each identifier before its use" &&
	grep -q "Declare each identifier before its use" .lessons/*.md
'

test_expect_success 'the fix kept is still suggested for the same mistake' '
	cd p &&
	c_file alpha undefined_alpha &&
	out=$(gcc -c alpha.c 2>&1 || true) &&
	printf "%s\n" "$out" | "$CALLUS" suggest --command "gcc -c alpha.c" --json >out &&
	jq -e "[.[].suggestions[]] | length >= 1" out &&
	git checkout -q alpha.c
'

test_expect_success '[retention] lessons bounds the lessons and their files' '
	cd p &&
	# no background pass: the recordings leave it to callus gc
	printf "[retention]\nlessons = 2\ngc_hours = 0\n" >.callus/config &&
	c_file delta undefined_delta && c_file epsilon undefined_epsilon && c_file zeta undefined_zeta &&
	for f in delta epsilon zeta; do
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
	done &&
	test "$(lesson_files)" = 4 &&
	agents_names 4 &&
	"$CALLUS" gc >out &&
	grep "removed 2 lessons (2 files in .lessons/)" out &&
	test "$(q "SELECT count(*) FROM lessons")" = 2 &&
	test "$(lesson_files)" = 2 &&
	agents_names 2 &&
	# gamma, seen in 2001, outlasts lesson_days by the rule a person wrote
	# into it (its note'"'"'s): the count took delta and epsilon before it
	test "$(q "SELECT group_concat(file) FROM (SELECT file FROM lessons ORDER BY file)")" = \
		gamma.c,zeta.c
'

test_expect_success 'after a gc killed during a removal, the pass removes the pages its dry run counted' '
	mkdir killed && cd killed && git init -q &&
	for f in k1 k2 k3 k4 k5; do
		c_file $f undefined_$f &&
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
	done &&
	printf "[retention]\nlessons = 2\ngc_hours = 0\n" >.callus/config &&
	# what a gc killed between its pages'"'"' removal and its commit leaves:
	# lessons without pages, and its debt naming no lesson
	rm .lessons/*.md && echo views >.callus/owed/999999-1 &&
	"$CALLUS" gc --dry-run >dry.out &&
	grep "^would remove 3 lessons (0 files in .lessons/)" dry.out &&
	"$CALLUS" gc >out &&
	grep "^removed 3 lessons (0 files in .lessons/)" out &&
	grep -qx "repaired what 1 crashed callus process left unwritten: 2 lesson files written again" out &&
	test "$(lesson_files)" = 2 &&
	agents_names 2
'

test_expect_success 'a lesson a dead recording still owes its page goes by the policy as any other' '
	mkdir owed-dead && cd owed-dead && git init -q &&
	for f in d1 d2 d3 d4; do
		c_file $f undefined_$f &&
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
	done &&
	q "UPDATE lessons SET last_seen = '"'"'2001-01-01T00:00:00.000Z'"'"' WHERE file = '"'"'d1.c'"'"'" &&
	sig=$(q "SELECT signature FROM lessons WHERE file = '"'"'d1.c'"'"'") &&
	# its recording died before writing the page: a debt no live process
	# will pay (a live one'"'"'s lesson would wait for the next pass)
	rm .lessons/$(printf %.12s "$sig").md && echo "$sig" >.callus/owed/999999-1 &&
	printf "[retention]\nlesson_days = 30\nlessons = 100\ngc_hours = 0\n" >.callus/config &&
	# its page written first (the pass keeps a lesson a debt names),
	# then removed with it; the dry run, which writes none, says the same
	"$CALLUS" gc --dry-run >dry &&
	grep "^would remove 1 lesson (1 file in .lessons/)" dry &&
	test -e .callus/owed/999999-1 &&
	"$CALLUS" gc >out &&
	grep "^removed 1 lesson (1 file in .lessons/)" out &&
	grep -qx "repaired what 1 crashed callus process left unwritten: 1 lesson file written again" out &&
	test "$(q "SELECT group_concat(file) FROM (SELECT file FROM lessons ORDER BY file)")" = d2.c,d3.c,d4.c &&
	test "$(ls .callus/owed | grep -v "^\.spare$" | wc -l)" = 0 &&
	test "$(lesson_files)" = 3
'

test_expect_success 'a recording runs the policy in the background once gc_hours have passed' '
	cd p &&
	printf "[retention]\nlessons = 1\ngc_hours = 24\n" >.callus/config &&
	test "$(q "SELECT group_concat(file) FROM (SELECT file FROM lessons ORDER BY file)")" = \
		gamma.c,zeta.c &&
	touch .callus/gc.stamp &&
	: >.callus/log.jsonl &&
	test_expect_code 1 "$CALLUS" run -- gcc -c zeta.c 2>err &&
	test "$(q "SELECT count(*) FROM lessons")" = 2 &&
	! grep -q "\"gc_removed\"" .callus/log.jsonl &&
	touch -d "2 days ago" .callus/gc.stamp &&
	test_expect_code 1 "$CALLUS" run -- gcc -c zeta.c 2>err &&
	# in a process of its own (callus gc --background), which the run
	# does not wait for; what went is said in the log
	until_true grep -q "\"gc_removed\"" .callus/log.jsonl &&
	test "$(q "SELECT count(*) FROM lessons")" = 1 &&
	grep "\"gc_removed\"" .callus/log.jsonl | grep -q "\"lessons\":\"1\"" &&
	grep "\"gc_removed\"" .callus/log.jsonl | grep -q "background pass" &&
	test "$(lesson_files)" = 1 &&
	test "$(q "SELECT file FROM lessons")" = zeta.c &&
	agents_names 1
'

test_expect_success 'a recording that adds a lesson past [retention] lessons removes the least valuable at once' '
	mkdir n && cd n && git init -q && mkdir .callus &&
	printf "[retention]\nlessons = 3\ngc_hours = 24\n" >.callus/config &&
	touch -d "1 hour ago" .callus/gc.stamp &&
	stamp=$(stat -c %Y .callus/gc.stamp) &&
	for f in na nb nc nd ne nf ng; do c_file $f undefined_$f || return 1; done &&
	# never more lessons, nor files, than the count, after any recording
	for f in na na nb nc nd ne; do
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
		n=$(q "SELECT count(*) FROM lessons") &&
		test "$n" -le 3 && test "$(lesson_files)" = "$n" || return 1
	done &&
	# na (seen twice) and the two newest stay: nb went, then nc
	test "$(q "SELECT group_concat(file) FROM (SELECT file FROM lessons ORDER BY file)")" = \
		na.c,nd.c,ne.c &&
	agents_names 3 &&
	test "$(grep -c "\"gc_removed\"" .callus/log.jsonl)" = 2 &&
	grep "\"gc_removed\"" .callus/log.jsonl | grep -q "past \[retention\] lessons" &&
	# the rule, not the background pass: its stamp is as it was
	test "$(stat -c %Y .callus/gc.stamp)" = "$stamp" &&
	# a lower count: a recurrence adds no lesson and removes none, the
	# next new one takes the count back down
	printf "[retention]\nlessons = 2\ngc_hours = 24\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" run -- gcc -c na.c 2>err &&
	test "$(q "SELECT count(*) FROM lessons")" = 3 &&
	"$CALLUS" status >out &&
	grep -q "^lessons      3 from 7 failed runs (1 over \[retention\] lessons = 2: removed by the next new lesson.s recording or .callus gc.)" out &&
	test_expect_code 1 "$CALLUS" run -- gcc -c nf.c 2>err &&
	grep -q nf.c err &&
	test "$(q "SELECT group_concat(file) FROM (SELECT file FROM lessons ORDER BY file)")" = \
		na.c,nf.c &&
	test "$(lesson_files)" = 2 &&
	agents_names 2 &&
	# no background pass: left to callus gc
	printf "[retention]\nlessons = 2\ngc_hours = 0\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" run -- gcc -c ng.c 2>err &&
	test "$(q "SELECT count(*) FROM lessons")" = 3 &&
	"$CALLUS" status >out &&
	grep -q "^lessons      3 from 9 failed runs (1 over \[retention\] lessons = 2: removed by .callus gc.)" out &&
	printf "[retention]\nlessons = 3\n" >.callus/config &&
	"$CALLUS" status >out &&
	grep -q "^lessons      3 from 9 failed runs (at most 3 kept: \[retention\] lessons)" out
'

test_expect_success 'a lesson recorded by hand counts within [retention] lessons too' '
	mkdir nr && cd nr && git init -q && mkdir .callus &&
	printf "[retention]\nlessons = 2\ngc_hours = 24\n" >.callus/config &&
	for w in alpha bravo charlie; do
		"$CALLUS" record -s "a lesson about $w things" >/dev/null || return 1
	done &&
	test "$(q "SELECT count(*) FROM lessons")" = 2 &&
	test "$(lesson_files)" = 2 &&
	! q "SELECT error_summary FROM lessons" | grep -q alpha
'

test_expect_success 'past a [retention] lessons of 100 or more, a recording leaves a hundredth below it' '
	cd n &&
	# 200 more lessons, older than the three: copies of the first
	plant_lessons 200 a &&
	test "$(q "SELECT count(*) FROM lessons")" = 203 &&
	printf "[retention]\nlessons = 200\ngc_hours = 24\n" >.callus/config &&
	c_file nh undefined_nh &&
	test_expect_code 1 "$CALLUS" run -- gcc -c nh.c 2>err &&
	# 204 against 200: down to 198, the planted oldest
	test "$(q "SELECT count(*) FROM lessons")" = 198 &&
	test "$(q "SELECT count(*) FROM lessons WHERE file <> '\'\''")" = 4 &&
	grep "\"gc_removed\"" .callus/log.jsonl | tail -n 1 | grep -q "\"lessons\":\"6\"" &&
	# over by more than a recording removes: callus status says so
	plant_lessons 400 b &&
	printf "[retention]\nlessons = 10\ngc_hours = 24\n" >.callus/config &&
	"$CALLUS" status >out &&
	grep -q "^lessons      598 from .* (588 over \[retention\] lessons = 10: removed by .callus gc., or 500 at a time" out &&
	printf "[retention]\nlessons = ten\n" >.callus/config &&
	"$CALLUS" status >out &&
	grep -q "^lessons      598 from .* (at most 10000 kept: \[retention\] lessons) (\[retention\] holds a value callus cannot read" out
'

test_expect_success 'the background pass keeps the lesson its recording has just told of' '
	mkdir k && cd k && git init -q && mkdir .callus &&
	printf "[retention]\ngc_hours = 0\n" >.callus/config &&
	c_file ka undefined_ka && c_file kb undefined_kb && c_file kc undefined_kc &&
	for f in ka kb kc kb kc kb kc; do
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
	done &&
	test "$(q "SELECT group_concat(occurrences) FROM (SELECT occurrences FROM lessons ORDER BY id)")" = 1,3,3 &&
	# ka, the least valuable, fails again (2 occurrences) as the pass
	# is due: the reply names it, and it stays; kb goes instead
	printf "[retention]\nlessons = 2\ngc_hours = 24\n" >.callus/config &&
	touch -d "2 days ago" .callus/gc.stamp &&
	test_expect_code 1 "$CALLUS" run -- gcc -c ka.c 2>err &&
	id=$(sed -n "s/.*callus lessons show \([0-9]*\).*/\1/p" err | head -n 1) &&
	test -n "$id" &&
	"$CALLUS" lessons show "$id" >out &&
	grep -q ka.c out &&
	until_true eval "test \"\$(q \"SELECT count(*) FROM lessons\")\" = 2" &&
	test "$(q "SELECT group_concat(file) FROM (SELECT file FROM lessons ORDER BY file)")" = ka.c,kc.c
'

# A recording that cannot start a process of its own (no /proc to find
# its program by, here a mount namespace without one) runs the pass
# itself: the stamp it touched would otherwise keep the pass away a day,
# and the next, for as long as that lasted.
unshare -m sh -c "umount -l /proc" 2>/dev/null ||
	test_skip "no mount namespace to leave /proc out of (unshare -m, as root)"
test_expect_success 'a recording that cannot start the background pass runs it itself' '
	mkdir np && cd np && git init -q && mkdir .callus &&
	printf "[retention]\ngc_hours = 24\n" >.callus/config &&
	touch .callus/gc.stamp &&
	c_file old undefined_old && c_file new undefined_new &&
	test_expect_code 1 "$CALLUS" run -- gcc -c old.c 2>err &&
	q "UPDATE lessons SET last_seen = '"'"'2001-01-01T00:00:00.000Z'"'"'" &&
	touch -d "2 days ago" .callus/gc.stamp &&
	unshare -m sh -c "umount -l /proc && \"\$0\" run -- gcc -c new.c 2>err; test \$? = 1" "$CALLUS" &&
	test "$(q "SELECT group_concat(file) FROM lessons")" = new.c &&
	grep "\"gc_removed\"" .callus/log.jsonl | grep -q "background pass" &&
	test -z "$(find .callus/gc.stamp -mmin +60)"
'

test_expect_success 'the block is written from the store as its lock finds it: a lesson gc took meanwhile is not named' '
	mkdir r && cd r && git init -q && mkdir .callus &&
	printf "[retention]\ngc_hours = 0\n" >.callus/config &&
	c_file ra undefined_ra && c_file rb undefined_rb &&
	test_expect_code 1 "$CALLUS" run -- gcc -c ra.c 2>err &&
	agents_names 1 &&
	gone=$(grep -o "\.lessons/[0-9a-f]*\.md" AGENTS.md) &&
	# another writer holds the block: the next recording waits for it
	# (a minute at most, should the test fail before it lets go)
	{ flock .callus/agents.lock sh -c "touch ../held-r; for i in \$(seq 1 1200); do test -e ../release-r && break; sleep 0.05; done" & } &&
	holder=$! &&
	until_true test -e ../held-r &&
	{ "$CALLUS" run -- gcc -c rb.c >/dev/null 2>&1 & } &&
	rec=$! &&
	until_true eval "test \"\$(q \"SELECT count(*) FROM lessons\")\" = 2" &&
	sleep 1 &&
	# meanwhile the first lesson goes, as callus gc takes it
	q "DELETE FROM lessons WHERE file = '"'"'ra.c'"'"'" && rm "$gone" &&
	touch ../release-r && wait "$holder" &&
	{ wait "$rec" || :; } &&
	agents_names 1 &&
	! grep -q "$gone" AGENTS.md
'

test_expect_success 'without git, callus gc removes the copies no kept snapshot needs, a day old' '
	mkdir nogit && cd nogit && mkdir .callus &&
	printf "[retention]\ngc_hours = 0\n" >.callus/config &&
	c_file na SECRET_na && c_file nb undefined_nb &&
	for f in na nb; do
		test_expect_code 1 "$CALLUS" run -- gcc -c $f.c 2>err || return 1
	done &&
	all=$(find .callus/snapshots.git/objects -type f | wc -l) &&
	test "$all" -gt 0 &&
	# na'"'"'s error abandoned: its snapshot is needed no more
	q "UPDATE pending_errors SET last_failure_at = '"'"'2020-01-01T00:00:00.000Z'"'"' WHERE files LIKE '"'"'%na.c%'"'"'" &&
	"$CALLUS" gc >out &&
	grep -q "1 abandoned pending error, 0 signatures, 1 snapshot" out &&
	# younger than a day, a copy stays (a snapshot being taken has no row yet)
	test "$(find .callus/snapshots.git/objects -type f | wc -l)" = "$all" &&
	find .callus/snapshots.git/objects -type f -exec touch -d "2 days ago" {} + &&
	# a dry run counts the copies the pass removes, and leaves them
	"$CALLUS" gc --dry-run --json >dry.json &&
	"$CALLUS" gc --dry-run >dry.txt &&
	test "$(find .callus/snapshots.git/objects -type f | wc -l)" = "$all" &&
	# and counts them with the store free: its transaction is over
	# before the helper reads every object (a writer waits for none)
	real=$(dirname "$CALLUS")/callus-git &&
	printf "#!/bin/sh\ncase \" \$* \" in *\" prunable \"*)\n" >helper &&
	printf "  if sqlite3 %s \"BEGIN IMMEDIATE; COMMIT;\" 2>/dev/null; then echo free; else echo held; fi >>%s ;;\nesac\nexec %s \"\$@\"\n" \
		"$PWD/.callus/callus.db" "$PWD/lock.txt" "$real" >>helper &&
	chmod +x helper &&
	CALLUS_GIT_HELPER=$PWD/helper "$CALLUS" gc --dry-run --json >dry2.json &&
	test "$(cat lock.txt)" = free &&
	test "$(jq .snapshot_objects dry2.json)" = "$(jq .snapshot_objects dry.json)" &&
	"$CALLUS" gc --json >out.json &&
	jq -e ".snapshot_objects > 0" out.json &&
	test "$(jq .snapshot_objects dry.json)" = "$(jq .snapshot_objects out.json)" &&
	grep -q "^would remove $(jq .snapshot_objects out.json) objects of the copies" dry.txt &&
	test "$(find .callus/snapshots.git/objects -type f | wc -l)" = \
		"$((all - $(jq .snapshot_objects out.json)))" &&
	# nb'"'"'s stay: its fix is learnt with its diff
	c_file nb 0 &&
	"$CALLUS" run -- gcc -c nb.c 2>err &&
	"$CALLUS" resolutions --json | jq -e ".[0].files == [\"nb.c\"]"
'

test_expect_success 'a rule of more days than since 1970 keeps everything; callus doctor names a value it cannot read' '
	cd k &&
	printf "[retention]\nlesson_days = 200000\nrun_days = 36500\nsignature_days = 2147483647\ngc_hours = 0\n" >.callus/config &&
	"$CALLUS" gc --json >out &&
	jq -e ".lessons == 0 and .runs == 0 and .signatures == 0" out &&
	test "$(q "SELECT count(*) FROM lessons")" = 2 &&
	printf "[retention]\nlessons = 2,000\nrun_days = -1\nmodel_days = thirty\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out 2>&1 &&
	grep -q "retention.lessons. must be an integer, got .2,000." out &&
	grep -q "retention.run_days. must be between 0 and" out &&
	grep -q "retention.model_days. must be an integer, got .thirty." out &&
	"$CALLUS" gc >/dev/null 2>err &&
	grep -q "gc: .*retention.model_days. must be an integer, got .thirty. (the default is used)" err
'

test_expect_success '[learn] prune_hours 0 is its default for callus gc too' '
	cd p &&
	printf "[learn]\nprune_hours = 0\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" run -- gcc -c zeta.c 2>err &&
	test "$(q "SELECT count(*) FROM pending_errors WHERE state = '\''pending'\''")" -ge 1 &&
	q "UPDATE pending_errors SET last_failure_at = '\''2001-01-01T00:00:00.000Z'\''
	   WHERE state = '\''pending'\''" &&
	"$CALLUS" gc --json >out &&
	jq -e ".pending >= 1" out &&
	test "$(q "SELECT count(*) FROM pending_errors WHERE state = '\''pending'\''")" = 0
'

test_expect_success 'callus gc says so when the block cannot be written again' '
	cd p &&
	printf "[retention]\nlessons = 1\ngc_hours = 0\n" >.callus/config &&
	c_file eta undefined_eta &&
	test_expect_code 1 "$CALLUS" run -- gcc -c eta.c 2>err &&
	test "$(q "SELECT count(*) FROM lessons")" = 2 &&
	mv AGENTS.md ../outside.md && ln -s ../outside.md AGENTS.md &&
	test_expect_code 1 "$CALLUS" gc >out 2>err &&
	grep "removed 1 lesson" out &&
	grep "still names its file" err &&
	test "$(q "SELECT count(*) FROM lessons")" = 1 &&
	rm AGENTS.md && mv ../outside.md AGENTS.md &&
	"$CALLUS" doctor --fix >out 2>&1 &&
	agents_names 1
'

test_expect_success 'callus gc that fails still says what it did, as JSON too' '
	cd p &&
	printf "[store]\ntimeout_ms = 200\n" >>.callus/config &&
	rm -f ../held &&
	{ { echo ".timeout 10000"; echo "BEGIN IMMEDIATE;"; echo ".system touch ../held"
	    for _ in $(seq 1 100); do test -e ../gc-done && break; sleep 0.1; done
	    echo "COMMIT;"; } | sqlite3 .callus/callus.db & } &&
	for _ in $(seq 1 100); do test -e ../held && break; sleep 0.1; done &&
	test_expect_code 1 "$CALLUS" gc --json >out 2>err &&
	# a dry run that fails counted nothing: its error alone is said
	test_expect_code 1 "$CALLUS" gc --dry-run >dry 2>dry.err &&
	touch ../gc-done && wait &&
	test ! -s dry && grep -q "locked" dry.err &&
	# jq 1.6 -e passes an empty input: the values compared
	jq -r .error out | grep -q "locked" &&
	test "$(jq -c "[.lessons, .vacuumed]" out)" = "[0,false]" &&
	grep -q "locked" err &&
	"$CALLUS" gc >out &&
	grep -q "^removed" out
'

test_expect_success 'callus gc whose AGENTS.md cannot be rewritten says why, as JSON too' '
	mkdir v && cd v && git init -q &&
	two_failures &&
	printf "[retention]\nlessons = 1\n" >>.callus/config &&
	cp AGENTS.md ../outside.md && rm AGENTS.md && ln -s ../outside.md AGENTS.md &&
	test_expect_code 1 "$CALLUS" gc --json >out 2>err &&
	test "$(jq .lessons out)" = 1 &&
	jq -r .error out | grep -q "AGENTS.md" &&
	grep -q "still names" err
'

test_expect_success 'callus gc says which policy value or key it cannot read, and goes on with the default' '
	mkdir bad && cd bad && git init -q && mkdir .callus &&
	printf "[retention]\nlessons = 10k\nrun_days = -1\nlesson_day = 5\n[learn]\nprune_hours = abc\n" \
		>.callus/config &&
	"$CALLUS" gc >out 2>err &&
	grep -q "^removed" out &&
	grep -q "retention.lessons. must be an integer, got .10k. (the default is used)" err &&
	grep -q "retention.run_days. must be between 0 and" err &&
	grep -q "learn.prune_hours. must be an integer" err &&
	# a key of [retention] that is none (a typo) is said too
	grep -q "line 4: .retention.lesson_day. is no key of \[retention\]" err &&
	test "$(wc -l <err)" = 4
'

test_expect_success 'a .callus/config that cannot be read removes nothing until it is mended' '
	mkdir unread && cd unread && git init -q &&
	two_failures &&
	q "UPDATE lessons SET last_seen = '"'"'2001-01-01T00:00:00.000Z'"'"'" &&
	# lesson_days = 0 keeps them; the unclosed quote makes it unknown
	printf "[retention]\nlesson_days = 0\ngc_hours = 24\n[verify]\nadd = \"./check.sh\n" \
		>.callus/config &&
	test_expect_code 1 "$CALLUS" gc >out 2>err &&
	test ! -s out && grep -q "cannot be read" err && grep -q "nothing removed" err &&
	test_expect_code 1 "$CALLUS" gc --dry-run --json >out 2>err &&
	test "$(jq -c "[.dry_run, has(\"lessons\")]" out)" = "[true,false]" &&
	test_expect_code 1 "$CALLUS" gc --json >out 2>err &&
	test "$(jq -c "[.dry_run, has(\"lessons\")]" out)" = "[false,false]" &&
	jq -r .error out | grep -q "line 5" &&
	# a recording'"'"'s background pass, due, takes nothing either
	touch -d "2 days ago" .callus/gc.stamp &&
	c_file three undefined_three &&
	test_expect_code 1 "$CALLUS" run -- gcc -c three.c 2>err &&
	test "$(q "SELECT count(*) FROM lessons")" = 3 &&
	test "$(lesson_files)" = 3 &&
	# nor is it counted as run: the pass stays due for when it is mended
	test -n "$(find .callus/gc.stamp -mmin +1000)" &&
	"$CALLUS" status >out && grep -q "none removed: .callus/config cannot be read" out &&
	test_expect_code 1 "$CALLUS" doctor >out 2>&1 &&
	grep -q "removes nothing by \[retention\]" out &&
	# mended, the next recording runs the pass that was due
	printf "[retention]\ngc_hours = 24\n" >.callus/config &&
	c_file four undefined_four &&
	test_expect_code 1 "$CALLUS" run -- gcc -c four.c 2>err &&
	until_true eval "test \"\$(q \"SELECT count(*) FROM lessons\")\" = 2" &&
	test -z "$(find .callus/gc.stamp -mmin +1000)" &&
	# and callus gc says what it removed in the log
	q "UPDATE lessons SET last_seen = '"'"'2001-01-01T00:00:00.000Z'"'"' WHERE file = '"'"'three.c'"'"'" &&
	"$CALLUS" gc >out && grep -q "^removed 1 lesson" out &&
	grep "\"gc_removed\"" .callus/log.jsonl | grep -q "callus gc removed"
'

test_expect_success 'without a store, callus gc leaves the files of .lessons/ and says so' '
	mkdir clone && cd clone && git init -q &&
	mkdir .lessons && cp ../p/.lessons/*.md .lessons/ &&
	n=$(ls .lessons | wc -l) && test "$n" -ge 1 &&
	"$CALLUS" gc >out 2>err &&
	grep -q "^removed 0 lessons" out &&
	grep -q "no store in .*/clone/.callus: the $n files\{0,1\} in .lessons/ .* kept" err &&
	test "$(ls .lessons | wc -l)" = "$n" &&
	test ! -e .callus/callus.db
'

test_expect_success 'without a store, a .lessons/ linking out of the workspace is not counted' '
	mkdir outside linked && cp p/.lessons/*.md outside/ &&
	n=$(ls outside | wc -l) && test "$n" -ge 1 &&
	(cd linked && git init -q && ln -s ../outside .lessons &&
	 "$CALLUS" gc >out 2>err &&
	 grep -q "^removed 0 lessons" out &&
	 ! grep -q "in .lessons/" err) &&
	test "$(ls outside | wc -l)" = "$n"
'

test_expect_success 'lessons kept past their runs: status does not count them from fewer runs' '
	mkdir longer && cd longer && git init -q &&
	two_failures &&
	printf "[retention]\nlesson_days = 0\nrun_days = 1\n" >.callus/config &&
	q "UPDATE lessons SET last_seen = '"'"'2001-01-01T00:00:00.000Z'"'"';
	   UPDATE runs SET at = '"'"'2001-01-01T00:00:00.000Z'"'"'" &&
	"$CALLUS" status >out && grep -q "^lessons      2 from 2 failed runs" out &&
	"$CALLUS" gc >out && grep -q "^removed 0 lessons.*, 2 runs" out &&
	test "$(q "SELECT count(*) FROM lessons")" = 2 &&
	"$CALLUS" status >out &&
	grep -q "^lessons      2, no failed run kept by \[retention\] run_days (at most" out &&
	c_file three undefined_three &&
	test_expect_code 1 "$CALLUS" run -- gcc -c three.c 2>err &&
	"$CALLUS" status >out &&
	grep -q "^lessons      3 from 1 failed run kept by \[retention\] run_days (at most" out
'

test_expect_success 'a store that cannot be opened: gc --json prints the error alone' '
	mkdir broken && cd broken && git init -q && mkdir .callus &&
	echo garbage >.callus/callus.db &&
	test_expect_code 1 "$CALLUS" gc --dry-run --json >out 2>err &&
	jq -e ".dry_run == true and (.error | length > 0) and (has(\"lessons\") | not)" out &&
	test_expect_code 1 "$CALLUS" gc --json >out 2>err &&
	jq -e ".dry_run == false and (.error | length > 0)" out
'

test_expect_success 'callus help gc states the policy' '
	"$CALLUS" help gc >out &&
	grep -q "lesson_days" out && grep -q "Notes, resolutions and" out
'

test_done
