#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus doctor: every problem it reports, caused on purpose

A healthy workspace passes (exit 0); a corrupt file, a damaged index, a
newer schema, a broken or wrong configuration, too many lessons and agent
settings without the hook each make it exit 1 with a line that names the
problem.  It writes nothing, not even a migration.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# make_project DIR: a failing `make check` (a check callus knows, no npm)
make_project() {
	mkdir -p "$1/src" &&
	(
		cd "$1" &&
		git init -q &&
		printf "check:\n\t@echo \"src/main.c:1:27: error: expected ';' before '}' token\"; exit 2\n" >Makefile
	)
}

# lessons N: N distinct lessons recorded by hand
lessons() {
	for i in $(seq 1 "$1"); do
		"$CALLUS" record --file "src/f$i.c" --summary "problem $i: $(printf "%0200d" 0)" >/dev/null ||
			return 1
	done
}

# problem AREA TEXT: doctor's output (in ./out) has a problem line about it
problem() {
	grep "^problem  $1 " out | grep -q -- "$2" || { cat out; return 1; }
}

test_expect_success 'a healthy workspace: no problem, exit 0' '
	make_project ok && cd ok &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	"$CALLUS" init claude-code >/dev/null &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       store      .callus/callus.db: schema [0-9]*, 1 lesson, 1 run," out &&
	grep -q "^ok       integrity  .*no problem found (integrity_check)" out &&
	grep -q "^ok       config " out &&
	grep -q "^ok       hooks      claude-code: callus.s hook is in .\.claude/settings.json." out &&
	grep -q "^note     hooks      not set up: codex, gemini, copilot, cursor, cline" out &&
	grep -q "^ok       storage    project layer: 1 lesson (threshold 10000: .retention. lessons)" out &&
	tail -n 1 out | grep -q "^no problem found$" &&
	"$CALLUS" doctor --quick | grep -q "(quick_check)"
'

test_expect_success 'no store yet is not a problem' '
	mkdir fresh && cd fresh && git init -q &&
	"$CALLUS" doctor >out &&
	grep -q "none yet" out &&
	! test -e .callus
'

test_expect_success 'a store that is not a database' '
	make_project corrupt && cd corrupt &&
	mkdir -p .callus && head -c 8192 /dev/urandom >.callus/callus.db &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem store "cannot be read: .*not a database (move it aside: callus starts a new one)" &&
	tail -n 1 out | grep -q "^1 problem needs attention$"
'

test_expect_success 'a whole store its companions stop: not to be moved aside' '
	make_project walled && cd walled &&
	lessons 2 &&
	sqlite3 .callus/callus.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	rm -f .callus/callus.db-wal .callus/callus.db-shm &&
	ln -s /nonexistent/dir/wal .callus/callus.db-wal &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem store "cannot be read: .*it is an SQLite file: check that .callus/" &&
	! grep -q "move it aside" out &&
	rm .callus/callus.db-wal &&
	"$CALLUS" doctor >out && grep -q "^ok       store" out
'

test_expect_success 'a damaged index: integrity_check finds it' '
	make_project damaged && cd damaged &&
	lessons 60 &&
	sqlite3 .callus/callus.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	page=$(sqlite3 .callus/callus.db "SELECT rootpage FROM sqlite_master WHERE name = \"lessons_last_seen\"") &&
	size=$(sqlite3 .callus/callus.db "PRAGMA page_size") &&
	# scribble over the end of the index page, where its cells are
	printf "%080d" 0 | dd of=.callus/callus.db bs=1 seek=$((page * size - 300)) conv=notrunc 2>/dev/null &&
	test "$(sqlite3 .callus/callus.db "PRAGMA integrity_check" | head -n 1)" != ok &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem integrity "is damaged according to integrity_check" &&
	grep -q "^ *row [0-9]* missing from index lessons_last_seen" out
'

test_expect_success 'a schema newer than this callus; an older one is only a note' '
	make_project newer && cd newer &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	sqlite3 .callus/callus.db "PRAGMA user_version = 99" &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem store "schema version 99, newer than this callus" &&
	sqlite3 .callus/callus.db "PRAGMA user_version = 2" &&
	"$CALLUS" doctor >out &&
	grep -q "^note     store      .*schema version 2: callus brings it to" out &&
	test "$(sqlite3 .callus/callus.db "PRAGMA user_version")" = 2
'

test_expect_success 'totals edited by hand: found, and counted again by --fix' '
	make_project totals && cd totals &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	"$CALLUS" status >out && grep -q "^lessons      1 from 1 failed runs" out &&
	sqlite3 .callus/callus.db "UPDATE totals SET lessons = 7, runs = 9" &&
	"$CALLUS" status >out && grep -q "^lessons      7 from 9 failed runs" out &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem totals "not what the store holds (.callus doctor --fix. counts them again)" &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     totals .*: counted again" out &&
	"$CALLUS" doctor >out &&
	! grep -q "^[a-z]* *totals " out &&
	"$CALLUS" status >out && grep -q "^lessons      1 from 1 failed runs" out &&
	# the signatures with a vector, from each model'"'"'s counts
	v=$(sed -n "s/^vectors *//p" out) && test -n "$v" &&
	sqlite3 .callus/callus.db "UPDATE vector_models SET n = n + 5, aliased = aliased + 2" &&
	"$CALLUS" status >out && ! grep -q "^vectors *$v\$" out &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem totals "not what the store holds" &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     totals .*: counted again" out &&
	"$CALLUS" status >out && grep -q "^vectors *$v\$" out
'

test_expect_success 'a configuration file that does not parse' '
	make_project badconf && cd badconf &&
	mkdir -p .callus && printf "[lessons]\nmax 20\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem config "line 2: expected" &&
	problem config "built-in defaults"
'

test_expect_success 'configuration values callus cannot use' '
	make_project badval && cd badval &&
	mkdir -p .callus &&
	printf "[lessons]\n\tmax = ten\n\tfile = ../outside.md\n[store]\n\ttimeout_ms = -5\n[doctor]\n\tmax_items = 0\n" >.callus/config &&
	# the retention policy'"'"'s keys, [learn] prune_hours among them, as
	# callus gc reads them (t0024)
	printf "[retention]\n\trun_days = -1\n\tlessons = 10k\n[learn]\n\tprune_hours = abc\n" >>.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem config "line 2: .lessons.max. must be an integer, got .ten." &&
	problem config "line 5: .store.timeout_ms. must be between 1 and" &&
	problem config "line 7: .doctor.max_items. must be between 1 and" &&
	problem config "line 3: .lessons.file. must be a path inside the workspace" &&
	problem config "line 9: .retention.run_days. must be between 0 and" &&
	problem config "line 10: .retention.lessons. must be an integer, got .10k." &&
	problem config "line 12: .learn.prune_hours. must be an integer, got .abc." &&
	test "$(grep -c "^problem  config " out)" = 7 &&
	tail -n 1 out | grep -q "^7 problems need attention$" &&
	# a lessons file inside git'"'"'s or callus'"'"'s own folders: refused
	# there, never written
	for f in .git/config ./.callus/callus.db .lessons/x.md; do
		printf "[lessons]\n\tfile = %s\n" "$f" >.callus/config &&
		test_expect_code 1 "$CALLUS" doctor >out &&
		problem config "line 2: .lessons.file. must be a path inside the workspace, outside .git/" ||
		return 1
	done &&
	# the keys of sync, promotion, matching and the layers too
	printf "[sync]\n\tinterval = often\n[promote]\n\tmin_applications = -3\n[match]\n\thalf_life_days = x\n[layer.team]\n\tmax_notes = many\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem config "line 2: .sync.interval. must be an integer" &&
	problem config "line 4: .promote.min_applications. must be between 0 and" &&
	problem config "line 6: .match.half_life_days. must be an integer" &&
	problem config "line 8: .layer.team.max_notes. must be an integer" &&
	# the stores sync reaches and the embedder; a URL named by its scheme only
	printf "[team]\n\turl = mysql://bob:Pw9secret@db/x\n[org]\n\turl = rel/org.db\n[embed]\n\turl = ftp://e\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem config "\[team\] url names no store this callus reads (.mysql.;" &&
	problem config "\[org\] url .rel/org.db. names a SQLite file by a relative path" &&
	problem config "\[embed\] ignored: the embedder url must start with http" &&
	! grep -q Pw9secret out &&
	# and an empty lessons file, the default as recording takes it
	printf "[team]\n\turl = postgres://bob@127.0.0.1:1/x\n[org]\n\turl = sqlite:/tmp/o.db\n[lessons]\n\tfile =\n" >.callus/config &&
	"$CALLUS" doctor >out && ! grep -q "^problem  config" out &&
	git init -q && cp .git/config git.config &&
	printf "[lessons]\n\tfile = .git/config\n" >.callus/config &&
	echo "int x = ;" >b.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -c b.c 2>/dev/null &&
	cmp git.config .git/config && git status >/dev/null
'

test_expect_success 'more lessons than [doctor] max_items: the lowest-value ones listed' '
	make_project bloat && cd bloat &&
	lessons 5 &&
	# lesson 1 has three occurrences: it is worth keeping
	"$CALLUS" record --file src/f1.c --summary "problem 1: $(printf "%0200d" 0)" >/dev/null &&
	"$CALLUS" record --file src/f1.c --summary "problem 1: $(printf "%0200d" 0)" >/dev/null &&
	printf "[doctor]\n\tmax_items = 3\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem storage "project layer: 5 lessons, over the threshold of 3" &&
	grep "^ *#[0-9]" out >candidates &&
	# the newest (#5) is no candidate: retention keeps it
	test "$(wc -l <candidates)" = 4 &&
	! grep -q "#5 " candidates &&
	head -n 1 candidates | grep -q "#2 *x1 " &&
	tail -n 1 candidates | grep -q "#1 *x3 " &&
	printf "[doctor]\n\tmax_items = 5\n" >.callus/config &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       storage    project layer: 5 lessons (threshold 5: .doctor. max_items)" out
'

test_expect_success 'unset, the threshold is what [retention] lessons keeps, and a pass'"'"'s worth more' '
	make_project kept && cd kept &&
	lessons 5 &&
	printf "[retention]\n\tgc_hours = 0\n\tlessons = 5\n" >.callus/config &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       storage    project layer: 5 lessons (threshold 5: .retention. lessons)" out &&
	# over by less than a background pass removes: only news (a doctor
	# runs no pass)
	printf "[retention]\n\tlessons = 3\n" >.callus/config &&
	"$CALLUS" doctor >out &&
	grep -q "^note     storage    project layer: 5 lessons, 2 more than .retention. lessons (3) keeps: the next recording of a new error removes them, or the next gc pass" out &&
	! grep -q "^ *#[0-9]" out &&
	# no background pass: callus gc alone removes them, which is news too
	printf "[retention]\n\tgc_hours = 0\n\tlessons = 3\n" >.callus/config &&
	"$CALLUS" doctor >out &&
	grep -q "^note     storage    project layer: 5 lessons, 2 more than .retention. lessons (3) keeps, and no background gc pass removes them (.retention. gc_hours = 0): .callus gc. does" out &&
	! grep -q "next gc pass" out &&
	# a bad [doctor] max_items is not the threshold it names
	printf "[retention]\n\tgc_hours = 0\n\tlessons = 3\n[doctor]\n\tmax_items = abc\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "^note     storage    project layer: 5 lessons, 2 more than .retention. lessons (3)" out &&
	problem config "max_items" &&
	# past it by more than a pass: what gc removes first, and no more
	# 500 more, older than the five: copies of lesson 1 in the year 2000
	sqlite3 .callus/callus.db "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c
	  WHERE i < 500) INSERT INTO lessons (signature, timestamp, type, file, error_summary, tool,
	  command, exit_code, last_seen) SELECT lower(hex(randomblob(6))), l.timestamp, l.type,
	  substr(l.file, 1, 0), l.error_summary || c.i, l.tool, l.command, l.exit_code,
	  replace(l.last_seen, substr(l.last_seen, 1, 4), 2000) FROM c, lessons l WHERE l.id = 1" &&
	printf "[retention]\n\tgc_hours = 0\n\tlessons = 3\n" >.callus/config &&
	# (the planted lessons have no .lessons/ file: a problem of views)
	test_expect_code 1 "$CALLUS" doctor >out &&
	! grep -q "^problem  storage" out &&
	grep -q "^note     storage    project layer: 505 lessons, 502 more than .retention. lessons (3) keeps, and no background gc pass removes them" out &&
	printf "[retention]\n\tlessons = 3\n" >.callus/config &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem storage "project layer: 505 lessons, more than .retention. lessons (3) keeps by more than a background gc pass removes (500): is it failing" &&
	grep "^ *#[0-9]" out >candidates &&
	test "$(wc -l <candidates)" = 10 &&
	head -n 1 candidates | grep -q "#6 " &&
	! grep -q "#505 " candidates &&
	"$CALLUS" gc >/dev/null &&
	# (the planted newest, kept, has no .lessons/ file: a problem of views)
	{ "$CALLUS" doctor >out || :; } &&
	grep -q "^ok       storage    project layer: 3 lessons (threshold 3: .retention. lessons)" out &&
	sqlite3 .callus/callus.db "SELECT max(id) FROM lessons" | grep -qx 505 &&
	printf "[retention]\n\tlessons = 0\n" >.callus/config &&
	{ "$CALLUS" doctor >out || :; } &&
	grep -q "^ok       storage    project layer: 3 lessons (threshold 1000: the default, .retention. lessons being off)" out
'

test_expect_success 'agent settings without the hook, and settings callus cannot read' '
	make_project hooks && cd hooks &&
	mkdir -p .claude .codex &&
	echo "{\"permissions\": {\"allow\": [\"Bash(ls)\"]}}" >.claude/settings.json &&
	echo "{ not json" >.codex/hooks.json &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem hooks "claude-code: .\.claude/settings.json. exists without callus.s hook" &&
	problem hooks "callus init claude-code" &&
	problem hooks "codex: .\.codex/hooks.json. cannot be read" &&
	"$CALLUS" init claude-code >/dev/null &&
	rm .codex/hooks.json &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       hooks      claude-code: callus.s hook is in" out
'

# A failing run the store turns away (held by another process) with no
# queue to leave it in: lost, and logged (record_failed).
run_lost() {
	rm -rf .callus/spool && echo "not a folder" >.callus/spool &&
		hold_store 2 &&
		test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
		wait &&
		rm .callus/spool
}

test_expect_success 'logged errors and waiting metrics are notes, with the last error' '
	make_project logged && cd logged &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	printf "[store]\n\ttimeout_ms = 100\n" >.callus/config &&
	# the store locked, and no queue to leave the run in: lost, logged
	run_lost &&
	"$CALLUS" doctor >out &&
	grep -q "^note     log        .callus/log.jsonl (.*): 1 error, the last at .*: record_failed: .*locked" out &&
	grep -q "^note     metrics    .callus/metrics.pending holds metrics" out &&
	# an error line a full disk cut short is no event, and not the last
	cp .callus/log.jsonl log.kept &&
	printf "{\"at\":\"2026-12-07T07:17:44.063Z\",\"level\":\"error\",\"event\":\"record_ke" >>.callus/log.jsonl &&
	"$CALLUS" doctor >out &&
	grep -q "^note     log        .callus/log.jsonl (.*): 1 error, the last at .*: record_failed: .*locked" out &&
	grep -q "^note     log        .callus/log.jsonl: 1 error line cut short, not read" out &&
	# the next line logged starts a line of its own, and is read
	run_lost &&
	"$CALLUS" doctor >out &&
	grep -q "^note     log        .callus/log.jsonl (.*): 2 errors, the last at .*: record_failed: .*locked" out &&
	grep -q "^note     log        .callus/log.jsonl: 1 error line cut short, not read" out &&
	mv log.kept .callus/log.jsonl &&
	# the next recording takes them, leaving the spool one blank line
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	test "$(wc -c <.callus/metrics.pending)" = 1 &&
	"$CALLUS" doctor >out &&
	! grep -q "^note     metrics" out &&
	# a FIFO there is not waited on
	rm .callus/metrics.pending && mkfifo .callus/metrics.pending &&
	{ timeout 20 "$CALLUS" doctor >out; test $? -ne 124; } &&
	! grep -q "^note     metrics" out &&
	rm .callus/metrics.pending
'

test_expect_success 'doctor writes nothing' '
	cd logged &&
	find . -path ./.git -prune -o -type f -print | sort >../files.before &&
	sha=$(sha256sum <.callus/callus.db) &&
	"$CALLUS" doctor >/dev/null &&
	find . -path ./.git -prune -o -type f -print | sort >../files.after &&
	test_cmp ../files.before ../files.after &&
	test "$(sha256sum <.callus/callus.db)" = "$sha"
'

test_expect_success 'doctor names a hook that cannot run and payloads it could not understand' '
	git init -q health && cd health &&
	"$CALLUS" init codex >/dev/null &&
	sed -i "s|\"[^\"]*callus hook|\"/nonexistent/callus hook|" .codex/hooks.json &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "runs ./nonexistent/callus., which is not found" out &&
	"$CALLUS" init codex >/dev/null &&
	printf "{\"hook_event_name\":\"PostToolUse\",\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"npx eslint .\"},\"tool_response\":\"\",\"cwd\":\"%s\"}" "$PWD" |
		"$CALLUS" hook codex >reply &&
	test "$(cat reply)" = "{}" &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "codex: the last check.s payload .* carried no exit status" out &&
	# a payload that is no JSON: its parse error quotes it, and doctor
	# prints that on a terminal, cleaned
	printf "{\"tool_name\": 123\033[2J}" | "$CALLUS" hook codex >reply &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "codex: the last payload .* could not be read" out &&
	! grep -q "$(printf "\033")" out
'

test_expect_success 'doctor reads Codex trust: the project, and the review of the hooks' '
	cd health &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "codex: no .*config.toml, so this project is not trusted" out &&
	mkdir -p codex-home &&
	printf "[projects.\"%s\"]\ntrust_level = \"trusted\"\n" "$PWD" >codex-home/config.toml &&
	CODEX_HOME=$PWD/codex-home test_expect_code 1 "$CALLUS" doctor >out &&
	! grep -q "project is not trusted" out &&
	grep -q "hooks were never reviewed in Codex" out &&
	printf "[hooks.state.\"%s/.codex/hooks.json:post_tool_use:0:0\"]\ntrusted_hash = \"sha256:00\"\n" "$PWD" >>codex-home/config.toml &&
	CODEX_HOME=$PWD/codex-home test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "codex: the project is trusted and 1 of callus.s hooks were reviewed" out &&
	# a review of a hook of the person'"'"'s own says nothing of callus'"'"'s
	jq ".hooks.Stop = [{hooks: [{type: \"command\", command: \"./mine.sh\"}]}]" .codex/hooks.json >h.json &&
	mv h.json .codex/hooks.json &&
	printf "[projects.\"%s\"]\ntrust_level = \"trusted\"\n[hooks.state.\"%s/.codex/hooks.json:stop:0:0\"]\ntrusted_hash = \"sha256:00\"\n" \
		"$PWD" "$PWD" >codex-home/config.toml &&
	CODEX_HOME=$PWD/codex-home test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "hooks were never reviewed in Codex" out
'

test_expect_success 'doctor reads Gemini CLI trust: trustedFolders.json, the longest rule, the env' '
	git init -q gem && cd gem &&
	"$CALLUS" init gemini >/dev/null &&
	unset GEMINI_CLI_TRUST_WORKSPACE GEMINI_CLI_HOME GEMINI_CLI_TRUSTED_FOLDERS_PATH &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "gemini: this folder is not trusted in .*trustedFolders.json: Gemini CLI runs no project hook here" out &&
	mkdir -p "$HOME/.gemini" &&
	jq -n --arg d "$PWD/sub" "{(\$d): \"TRUST_PARENT\"}" >"$HOME/.gemini/trustedFolders.json" &&
	{ "$CALLUS" doctor >out 2>&1 || :; } && grep -q "gemini: this folder is trusted in" out &&
	jq -n --arg p "$(dirname "$PWD")" --arg d "$PWD" \
		"{(\$p): \"TRUST_FOLDER\", (\$d): \"DO_NOT_TRUST\"}" >"$HOME/.gemini/trustedFolders.json" &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "gemini: .* marks this folder DO_NOT_TRUST" out &&
	{ GEMINI_CLI_TRUST_WORKSPACE=true "$CALLUS" doctor >out 2>&1 || :; } && grep -q "gemini: GEMINI_CLI_TRUST_WORKSPACE=true here" out &&
	printf "{\"security\": {\"folderTrust\": {\"enabled\": false}}}\n" >"$HOME/.gemini/settings.json" &&
	{ "$CALLUS" doctor >out 2>&1 || :; } && grep -q "gemini: folder trust is off" out &&
	rm -r "$HOME/.gemini"
'

test_expect_success 'doctor reads Copilot CLI trust: trusted_folders and COPILOT_ALLOW_ALL' '
	git init -q cop && cd cop &&
	"$CALLUS" init copilot >/dev/null &&
	unset COPILOT_ALLOW_ALL COPILOT_HOME &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "copilot: this folder is not in trusted_folders of .*config.json" out &&
	mkdir -p "$HOME/.copilot" &&
	jq -n --arg p "$(dirname "$PWD")" "{trusted_folders: [\"/elsewhere\", \$p]}" >"$HOME/.copilot/config.json" &&
	{ "$CALLUS" doctor >out 2>&1 || :; } && grep -q "copilot: this folder is trusted in" out &&
	jq -n "{trusted_folders: [\"$PWD-other\"]}" >"$HOME/.copilot/config.json" &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "copilot: this folder is not in trusted_folders" out &&
	{ COPILOT_ALLOW_ALL=true "$CALLUS" doctor >out 2>&1 || :; } && grep -q "copilot: COPILOT_ALLOW_ALL=true here" out &&
	rm -r "$HOME/.copilot"
'

test_expect_success 'files.idx without the lines a power loss took back: found, written again by --fix' '
	make_project fileindex && cd fileindex &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	printf "check:\n\t@true\n" >Makefile &&
	"$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	printf "check:\n\t@echo \"src/other.c:3:1: error: unknown type name foo\"; exit 2\n" >Makefile &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	printf "check:\n\t@true\n" >Makefile &&
	"$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	tail -n 1 .callus/files.idx | grep -qx "src/other.c" &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       views      .callus/files.idx lists the 2 files with a fix" out &&
	# the last append lost: its line gone, the rest as written
	size=$(stat -c %s .callus/files.idx) &&
	truncate -s $((size - 12)) .callus/files.idx &&
	! grep -q "other" .callus/files.idx &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem views ".callus/files.idx lacked 1 of the 2 files with a fix or a permanent error (.callus doctor --fix. writes it again" &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     views      .callus/files.idx lacked 1 of the 2 .*: written again from the store" out &&
	grep -qx "src/other.c" .callus/files.idx &&
	grep -qx "src/main.c" .callus/files.idx &&
	rm .callus/files.idx &&
	"$CALLUS" doctor >out &&
	grep -q "^note     views      .callus/files.idx: none that callus reads" out &&
	! test -e .callus/files.idx &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     views      .callus/files.idx: none, written from the store (2 files)" out &&
	grep -qx "src/other.c" .callus/files.idx &&
	"$CALLUS" doctor >out &&
	tail -n 1 out | grep -q "^no problem found$"
'

test_expect_success 'a vector file the store is ahead of: found, written again by --fix' '
	make_project vectors && cd vectors &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       vectors    .callus/vectors-callus-builtin-1.bin holds the store.s 1 vectors, each as the store has it" out &&
	rm .callus/vectors-callus-builtin-1.bin &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem vectors "holds 0 of the store.s 1 vectors: searches miss similar errors" &&
	! test -e .callus/vectors-callus-builtin-1.bin &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     vectors    .* written again from the store" out &&
	test -s .callus/vectors-callus-builtin-1.bin &&
	"$CALLUS" doctor >out &&
	tail -n 1 out | grep -q "^no problem found$"
'

test_expect_success 'a vector file whose bytes were damaged: found record by record, written again by --fix' '
	cd vectors && v=.callus/vectors-callus-builtin-1.bin &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$" &&
	flip "$v" $((80 + 12 + 7)) &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem vectors "holds 0 of the store.s 1 vectors; 1 of its 1 records are damaged" &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     vectors    .* 1 records were damaged .*: written again from the store" out &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$" &&
	flip "$v" $((80 + 8 + 3)) &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem vectors "1 of its 1 records are damaged" &&
	"$CALLUS" doctor --fix >/dev/null && "$CALLUS" doctor >out &&
	tail -n 1 out | grep -q "^no problem found$" &&
	flip "$v.sketch" $((40 + 32)) &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem vectors "holds the store.s 1 vectors; 1 of the sketches and postings. blocks beside it are damaged" &&
	"$CALLUS" doctor --fix >/dev/null && "$CALLUS" doctor >out &&
	tail -n 1 out | grep -q "^no problem found$" &&
	python3 -c "import sys
f = sys.argv[1]
with open(f, \"r+b\") as h:
    h.seek(80); r = bytearray(h.read(8 + 4 + 256 + 4)); r[12 + 9] = (r[12 + 9] + 5) % 256
    h.seek(0, 2); h.write(bytes(r))" "$v" &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       vectors    .*holds the store.s 1 vectors, each as the store has it" out
'

test_expect_success 'a cut rewrite'"'"'s temporary file an hour old: a note, removed by --fix; a younger one stays' '
	cd vectors && v=.callus/vectors-callus-builtin-1.bin &&
	head -c 4096 /dev/zero >$v.tmp.AbC123 && touch -d "2 hours ago" $v.tmp.AbC123 &&
	head -c 4096 /dev/zero >$v.tmp.XyZ789 &&
	"$CALLUS" doctor >out &&
	grep -q "^note     vectors    1 temporary file of a vector file.s rewrite that was cut, an hour old or more (.callus gc. or .callus doctor --fix. removes it)" out &&
	tail -n 1 out | grep -q "^no problem found$" &&
	test -e $v.tmp.AbC123 &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     vectors    1 temporary file .*: removed" out &&
	! test -e $v.tmp.AbC123 && test -e $v.tmp.XyZ789 &&
	rm $v.tmp.XyZ789
'

test_expect_success 'a reindex cut before its commit: doctor says so, the next search writes the file again' '
	cd vectors && v=.callus/vectors-callus-builtin-1.bin &&
	# killed after its commit: the mark, the records the store'"'"'s
	: >$v.reindex &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$" &&
	grep -q "^note     vectors    .callus/vectors-callus-builtin-1.bin holds the store.s vectors and a mark a .callus reindex. left (killed after its commit, or before it with the vectors as they were): the next search writes it again and takes the mark off" out &&
	make -s check 2>&1 | "$CALLUS" suggest --command "make -s check" --exit-code 2 >/dev/null &&
	! test -e $v.reindex &&
	# what a reindex cut after its rename leaves: its mark, and records
	# the store does not have (one changed here)
	: >$v.reindex && flip "$v" $((80 + 12 + 7)) &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem vectors "records are damaged (not the store.s vector of their signature).*; a .callus reindex. was cut before its commit, after writing it" &&
	test -e $v.reindex &&
	make -s check 2>&1 | "$CALLUS" suggest --command "make -s check" --exit-code 2 >/dev/null &&
	! test -e $v.reindex &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$" &&
	grep -q "^ok       vectors    .callus/vectors-callus-builtin-1.bin holds the store.s 1 vectors, each as the store has it" out &&
	: >$v.reindex && flip "$v" $((80 + 12 + 7)) &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     vectors    .*reindex. was cut before its commit, after writing it: written again from the store" out &&
	! test -e $v.reindex &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$"
'

test_skip_unless_tool gcc git python3
test_expect_success 'the noted signatures'"'"' vector file damaged: found record by record, written again by --fix' '
	mkdir noted && cd noted && git init -q &&
	git config user.email dev@example.com && git config user.name dev &&
	printf "int f(void)\n{\n\treturn g();\n}\n" >f.c &&
	git add f.c && git -c commit.gpgSign=false commit -q -m f &&
	test_expect_code 1 "$CALLUS" run -- gcc -Werror -c f.c 2>/dev/null &&
	printf "int f(void)\n{\n\treturn 0;\n}\n" >f.c &&
	"$CALLUS" run -- gcc -Werror -c f.c 2>/dev/null &&
	test "$(find .callus/notes -name "*.md" | wc -l)" = 1 &&
	n=.callus/vectors-callus-builtin-1.noted.bin && test -s $n &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       vectors    .callus/vectors-callus-builtin-1.noted.bin holds the store.s 1 vectors of noted signatures, each as the store has it" out &&
	cp $n noted.bin &&
	flip $n $((80 + 12 + 7)) &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	problem vectors "noted.bin holds 0 of the store.s 1 vectors of noted signatures; 1 of its 1 records are damaged" &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     vectors    .*noted.bin held 0 .* written again from the store" out &&
	cmp $n noted.bin &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$" &&
	truncate -s 80 $n &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$" &&
	grep -q "^note     vectors    .*noted.bin holds fewer records than the store.s 1 vectors of noted signatures: its next reader writes it again first" out &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     vectors    .*noted.bin held 0 records for the store.s 1 vectors of noted signatures: written again from the store" out &&
	cmp $n noted.bin &&
	rm $n $n.sketch &&
	"$CALLUS" doctor >out && tail -n 1 out | grep -q "^no problem found$" &&
	! grep -q "noted.bin" out
'

test_done
