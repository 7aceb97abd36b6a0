#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
# e2e: long (started first: tests/e2e/run.sh)
test_description='no planted secret reaches a file callus writes, nor a reply

Every format of tests/fixtures/secrets/formats.tsv (fake secrets of every
kind the redactor knows: see its generate.py) is planted four ways: in the
error line of a failing check run by callus run and in its script (the
command line callus quotes), both in one run; as words of one (an option
and its value in two words); and in the command and the output of a callus
hook generic payload.  Every run passes its output and exit status through and records
a lesson; a fix adds a token to the source (its diff is kept); then no secret may be found in .callus/ (the SQLite database, its
WAL, the log), .lessons/, AGENTS.md, the replies, callus'"'"'s own messages
or what callus lists.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

FORMATS=$REPO/tests/fixtures/secrets/formats.tsv
# Under the sanitizers (CALLUS_TEST_SKIP_HUGE=1) every tenth format is
# planted: there to find memory errors in the paths to the store, which a
# format differs from the next only by its pattern; every format goes
# through the redactor under the sanitizers in test_redact_formats, and the
# release pass plants every one here.
EVERY=1
[ "${CALLUS_TEST_SKIP_HUGE:-}" = 1 ] && EVERY=10

# decode VAR TEXT: VAR set to TEXT with the escapes of formats.tsv undone
# (\n, \t, \\, and \z for nothing); no subshell: the formats are read four
# times, and a fork costs milliseconds
decode() {
	local s=$2
	s=${s//\\z/}
	s=${s//\\\\/$'\001'}
	s=${s//\\n/$'\n'}
	s=${s//\\t/$'\t'}
	s=${s//$'\001'/\\}
	printf -v "$1" '%s' "$s"
}

# tag N: sets TAG to a word of letters naming format N, so that each one's
# error is its own lesson (numbers are normalized out of signatures)
tag() {
	local n=$1 d letters=abcdefghij
	for d in 0 1 2 3 4 5 6 7 8 9; do n=${n//$d/${letters:$d:1}}; done
	TAG=fmt$n
}

# for_each_format: reads formats.tsv, setting i, name, line (decoded),
# secret (the first secret, decoded), cmd (1 when the line is a command
# line, flagged !cmd) and TAG for every EVERY-th format, and calls "$@",
# which counts in planted what it planted; then checks that each plant
# recorded a lesson of its own (the lessons counted once, not around every
# plant: a sqlite3 process each time was most of the script's time)
for_each_format() {
	local cols before
	before=$(lessons)
	i=0 planted=0
	while IFS= read -r row; do
		case $row in '#'* | '') continue ;; esac
		i=$((i + 1))
		[ $(((i - 1) % EVERY)) -eq 0 ] || continue
		IFS=$'\t' read -r -a cols <<<"$row"
		name=${cols[0]}
		decode line "${cols[1]}"
		decode secret "${cols[2]}"
		cmd=0
		case $'\t'$row$'\t' in *$'\t!cmd\t'*) cmd=1 ;; esac
		tag "$i"
		"$@" || { echo "format $i ($name) failed"; return 1; }
	done <"$FORMATS"
	if [ "$(lessons)" -ne $((before + planted)) ]; then
		echo "$planted formats planted: $before lessons before, $(lessons) after"
		return 1
	fi
}

# lessons: how many lessons the workspace's store holds
lessons() {
	sqlite3 .callus/callus.db "SELECT count(*) FROM lessons" 2>/dev/null || echo 0
}

# no_secret FILE...: none of the planted secrets is in FILE... (read as bytes)
no_secret() {
	if grep -a -n -F -f "$TRASH_DIRECTORY/secrets" -- "$@" >"$TRASH_DIRECTORY/found"; then
		echo "secrets found:"
		cut -c 1-300 "$TRASH_DIRECTORY/found"
		return 1
	fi
}

test_expect_success 'the planted formats: at least 100, each with its secret' - <<\EOF
	: >secrets
	while IFS= read -r row; do
		case $row in "#"* | "") continue ;; esac
		IFS=$'\t' read -r -a cols <<<"$row"
		for c in "${cols[@]:2}"; do
			case $c in +* | !*) ;; *) decode v "$c" && printf "%s\n" "$v" >>secrets ;; esac
		done
	done <"$FORMATS"
	n=$(grep -vc "^#" "$FORMATS")
	test_info "$n formats, $(wc -l <secrets) secrets"
	test "$n" -ge 100
	! grep -qx "" secrets || false
	git init -q ws
	printf "int main(void) { return 0; }\n" >ws/main.c
	# No snapshots of the work tree, which holds no secret: a snapshot a
	# failure was a third of callus's time here; a fix's diff is planted
	# below, with snapshots again.
	mkdir ws/.callus
	printf "[learn]\nsnapshots = false\n" >ws/.callus/config
	mkdir replies
	: >callus-said
EOF

# What callus runs write goes outside the workspace ($T): the check's own
# output holds the secrets, and it is not callus's to redact.
T=$TRASH_DIRECTORY

# One failing run per format, the secret in its error line (the output)
# and in the script sh runs: after `exit 1`, so never run, but in the
# command line callus records (the script is one word that callus quotes).
# One run for both: each is redacted on its own path (the output's lines,
# the command's words), and a run each took a quarter of this script's time.
plant_output() {
	planted=$((planted + 1))
	PLANTED=$line TAG=$TAG test_expect_code 1 "$CALLUS" run -- sh -c \
		'printf "src/main.c:%s:1: error: %s: %s\n" "${#TAG}" "$TAG" "$PLANTED" >&2; exit 1; gcc -c main.c
: '"$line" >"$T/out" 2>"$T/err" &&
	# the output passes through untouched
	grep -qF -- "$secret" "$T/err" &&
	{ grep "^callus:" "$T/err" >>"$T/callus-said" || :; }
}

test_expect_success 'in the output and the script of a failing check: status and output passed through, a lesson each' '
	cd ws &&
	for_each_format plant_output &&
	test "$("$CALLUS" lessons --json | jq length)" -ge "$planted"
'

# A command line split into words as a shell splits it (Python's shlex):
# options and their values in separate words, as argv gives them to callus
# run, which quotes them again.  One python3 splits every line (cmdlines,
# then split_words): it takes a third of a second to start here, and one a
# format was most of this script's time.
words_wanted() {
	# shlex does not know bash's $'...' quoting
	test "$cmd" = 1 && case $line in *"\$'"*) false ;; esac
}

cmdlines() {
	if words_wanted; then printf '%s\0' "$line" >>"$T/cmdlines"; fi
}

# each line of cmdlines as the count of its words, then the words, each
# ended by a NUL
split_words() {
	python3 -c 'import shlex, sys
out = sys.stdout.buffer
for line in sys.stdin.buffer.read().split(b"\0")[:-1]:
    words = shlex.split(line.decode("utf-8", "surrogateescape"))
    out.write(b"%d\0" % len(words))
    for w in words:
        out.write(w.encode("utf-8", "surrogateescape") + b"\0")' <"$T/cmdlines" >"$T/words"
}

# plant_words, with split_words's output on descriptor 9
plant_words() {
	local words=() n w
	words_wanted || return 0
	IFS= read -r -d '' n <&9 &&
	while [ "${#words[@]}" -lt "$n" ] && IFS= read -r -d '' w <&9; do words+=("$w"); done &&
	test "${#words[@]}" -gt 0 &&
	test "${#words[@]}" = "$n" || return 1
	planted=$((planted + 1))
	TAG=$TAG test_expect_code 1 "$CALLUS" run -- sh -c \
		'printf "src/argv.c:1:1: error: %s failed\n" "$TAG" >&2; exit 1; gcc -c main.c' sh "${words[@]}" \
		>"$T/out" 2>"$T/err" &&
	{ grep "^callus:" "$T/err" >>"$T/callus-said" || :; }
}

test_skip_unless_tool python3
test_expect_success 'as words of a failing check'"'"'s command line' '
	cd ws &&
	: >"$T/cmdlines" &&
	for_each_format cmdlines &&
	split_words &&
	{ for_each_format plant_words 9<"$T/words"; } &&
	test "$planted" -gt 0
'

# A generic hook payload: the secret in the command (on one line) and in
# the output; the reply is kept.
plant_hook() {
	planted=$((planted + 1))
	jq -n --arg cmd "gcc -c main.c # ${line//$'\n'/ }" --arg cwd "$PWD" \
		--arg out "src/hook.c:1:1: error: $TAG: $line" \
		'{command: $cmd, exit_code: 1, output: $out, cwd: $cwd, session_id: "s1"}' >"$T/payload" &&
	"$CALLUS" hook generic <"$T/payload" >"$T/replies/$i.json" 2>"$T/err" &&
	test_must_be_empty "$T/err"
}

# each reply one JSON object, read by one jq for all of them
test_expect_success 'in the command and the output of a hook payload' '
	cd ws &&
	for_each_format plant_hook &&
	jq -n -e --argjson n "$planted" "[inputs] | length == \$n and all(.[]; type == \"object\")" \
		"$T"/replies/*.json >/dev/null
'

test_expect_success 'a hook payload whose command is argv, joined with quotes by callus' - <<\EOF
	cd ws
	p=$(sed -n 1p ../secrets)
	before=$(lessons)
	jq -n --arg p "it's $p" --arg cwd "$PWD" \
		'{command: ["gcc", "-c", "main.c", ("-DDB_PASSWORD=" + $p)], exit_code: 1,
		  output: "src/env.c:1:1: error: argv payload", cwd: $cwd}' |
		"$CALLUS" hook generic >../replies/argv.json
	test "$(lessons)" -gt "$before"
	"$CALLUS" lessons --json | jq -r ".[].command" | grep "DDB_PASSWORD" >../argv-command
	grep -qx "gcc -c main.c '-DDB_PASSWORD=\[REDACTED:secret-assignment\]'" ../argv-command
EOF

test_expect_success 'the arguments of a check that failed, then passed, are stored redacted' - <<\EOF
	cd ws
	p=$(sed -n 2p ../secrets)
	test_expect_code 1 "$CALLUS" run -- sh -c \
		"echo 'src/args.c:1:1: error: args' >&2; exit 1; gcc -c main.c -DAPI_TOKEN=$p" 2>/dev/null
	test_expect_code 0 "$CALLUS" run -- sh -c "exit 0; gcc -c main.c -DAPI_TOKEN=$p" 2>/dev/null
	sqlite3 .callus/callus.db "SELECT args FROM checks" >../checks
	grep -q "API_TOKEN=.REDACTED" ../checks
EOF

# With snapshots again: a fix is kept as its diff, and this one adds a
# token to the source.
test_expect_success 'a fix whose diff adds a secret is kept redacted' - <<\EOF
	cd ws
	printf "[learn]\nsnapshots = true\n" >.callus/config
	p=$(grep -m 1 "^ghp_" ../secrets)
	test -n "$p"
	test_expect_code 1 "$CALLUS" run -- sh -c \
		"echo 'src/main.c:1:1: error: no token' >&2; exit 1; gcc -c main.c -DFIX" 2>/dev/null
	printf 'static const char *token = "%s";\n' "$p" >>main.c
	"$CALLUS" run -- sh -c "exit 0; gcc -c main.c -DFIX" 2>../err
	grep -q "gcc passes; the fix is kept in note" ../err
	sqlite3 .callus/callus.db "SELECT code_changes FROM resolutions" >../diffs
	grep -q "^+static const char \*token = .*REDACTED" ../diffs
EOF

test_expect_success 'a status other than 1 passes through too' - <<\EOF
	cd ws
	p=$(sed -n 3p ../secrets)
	test_expect_code 7 "$CALLUS" run -- sh -c \
		"echo 'src/seven.c:1:1: error: --password $p' >&2; exit 7; gcc -c main.c" 2>../err
	grep -qF -- "$p" ../err
EOF

# A tool's words about where and what: a token in a folder's name, and as
# the bracketed id a parser takes for the error's code.
test_expect_success 'in a diagnostic'"'"'s path and its code' - <<\EOF
	cd ws
	tok=ghp_$(printf "%036d" 43)
	test_expect_code 1 "$CALLUS" run -- sh -c "echo 'src/$tok/main.c:1:1: error: pathed' >&2
echo 'main.c:2:1: error: coded [$tok]' >&2; exit 1; gcc -c main.c" 2>/dev/null
	sqlite3 .callus/callus.db "SELECT file FROM run_errors" | grep -qxF "src/[REDACTED:github-token]/main.c"
	! grep -rqF "$tok" .callus .lessons AGENTS.md || false
	! sqlite3 .callus/callus.db .dump | grep -qF "$tok"
EOF

# The words a pattern's * takes become the check's tool (npm run test:*);
# the folder a check runs in, and the session it runs for, are kept with
# its runs and its fix.  A hook's entry in the queue keeps them too.
test_expect_success 'in a check'"'"'s tool, its folder and its session' - <<\EOF
	cd ws
	tok=ghp_$(printf "%036d" 45)
	mkdir -p ../bin "$tok"
	printf "#!/bin/sh\ntest -f %s/fixed && exit 0\necho \"src/app.js:1:1: error: scripted\" >&2\nexit 1\n" \
		"$PWD" >../bin/npm
	chmod +x ../bin/npm
	bin=$PWD/../bin
	(cd "$tok" && PATH="$bin:$PATH" CALLUS_INTENT_ID="s $tok" test_expect_code 1 \
		"$CALLUS" run -- npm run "test:$tok" 2>/dev/null)
	: >fixed
	(cd "$tok" && PATH="$bin:$PATH" CALLUS_INTENT_ID="s $tok" "$CALLUS" run -- npm run "test:$tok" 2>/dev/null)
	rm fixed
	jq -n --arg cwd "$PWD/$tok" --arg s "s $tok" --arg c "npm run test:$tok" \
		"{command: \$c, exit_code: 1, output: \"src/app.js:1:1: error: scripted\", cwd: \$cwd, session_id: \$s}" |
		PATH="$bin:$PATH" "$CALLUS" hook generic >/dev/null
	sqlite3 .callus/callus.db "SELECT tool FROM checks" | grep -qxF "npm run test:[REDACTED:github-token]"
	sqlite3 .callus/callus.db "SELECT context FROM resolutions" |
		grep -qF "\"session\":\"s [REDACTED:github-token]\""
	! grep -rqaF "$tok" .callus .lessons AGENTS.md || false
	! sqlite3 .callus/callus.db .dump | grep -qF "$tok"
EOF

# A command that records nothing, and so sets up no redactor of its own,
# still logs through one: reindex --quiet (run in the background after
# recordings) logs what the embedding helper printed.
test_expect_success 'a message logged by a command that records nothing' - <<\EOF
	cd ws
	cp .callus/config ../config.kept
	printf "[embed]\n\turl = http://127.0.0.1:9/v1/embeddings\n\tmodel = m\n" >>.callus/config
	tok=ghp_$(printf "%036d" 42)
	printf "#!/bin/sh\ncat >/dev/null\necho \"token %s\"\n" "$tok" >../embed-helper
	chmod +x ../embed-helper
	rc=0
	CALLUS_EMBED_HELPER="$PWD/../embed-helper" "$CALLUS" reindex --quiet || rc=$?
	# the config back before anything can fail: the tests after record
	mv ../config.kept .callus/config
	test "$rc" = 1
	grep "\"embed_failed\"" .callus/log.jsonl | grep -qF "token [REDACTED:"
	! grep -qF "$tok" .callus/log.jsonl
EOF

# A store an earlier callus (or deja) wrote holds what its redactor did
# not find.  Made here from a real one: every redaction put back as the
# token it replaced, in the store and in the files written from it; then
# `callus gc` must leave it nowhere, neither in the store's file (its freed
# pages too) nor in the pages and note files, and the check keep its
# identity; and a recording's background pass does the same.
test_expect_success 'a store an earlier callus left a secret in is redacted again' - <<\EOF
	mkdir old && cd old
	git init -q
	printf "int main(void) { return 0; }\n" >main.c
	git add main.c && git -c user.name=t -c user.email=t@e commit -qm init
	mkdir .callus
	printf "[learn]\nsnapshots = true\n" >.callus/config
	tok=ghp_$(printf "%036d" 47)
	check() {
		"$CALLUS" run -- sh -c "test -f fixed && exit 0; echo 'src/main.c:1:1: error: bad token $tok' >&2; exit 1; gcc -c main.c -DAPI_TOKEN=$tok" 2>/dev/null
	}
	test_expect_code 1 check
	printf "static const char *t = \"%s\";\n" "$tok" >>main.c
	: >fixed
	check
	rm fixed
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM notes")" = 1
	unredact() {
		kinds=$(sqlite3 .callus/callus.db .dump | grep -o "\[REDACTED:[a-z0-9-]*\]" | sort -u)
		test -n "$kinds"
		for k in $kinds; do
			for tc in lessons.error_summary lessons.command runs.command run_errors.message \
				signatures.original checks.args resolutions.code_changes \
				pending_errors.message notes.code notes.example; do
				sqlite3 .callus/callus.db "UPDATE ${tc%.*} SET ${tc#*.} = replace(${tc#*.}, '$k', '$tok')"
			done
			for f in .lessons/*.md .callus/notes/*.md AGENTS.md; do
				sed -i "s/$(printf "%s" "$k" | sed "s/[][]/\\\\&/g")/$tok/g" "$f"
			done
		done
		sqlite3 .callus/callus.db "DELETE FROM sync_state WHERE key LIKE 'redaction.%'"
		# and a line of its log, as an earlier callus logged it
		printf '{"event":"embed_failed","message":"token %s"}\n' "$tok" >>.callus/log.jsonl
		sqlite3 .callus/callus.db .dump | grep -qF "$tok"
		grep -qF "$tok" .lessons/*.md .callus/notes/*.md
	}
	"$CALLUS" doctor >../doctor.out
	grep -q "^ok  *redaction " ../doctor.out
	unredact
	"$CALLUS" doctor >../doctor.out
	grep -q "^note  *redaction .*callus gc" ../doctor.out
	"$CALLUS" gc >../gc.out
	grep -q "^redacted again [1-9][0-9]* stored texts" ../gc.out
	grep -q "^redacted again 1 line of callus's log" ../gc.out
	"$CALLUS" doctor >../doctor.out
	grep -q "^ok  *redaction " ../doctor.out
	# a test in the middle of the body: "! cmd" would not stop it
	test "$(sqlite3 .callus/callus.db .dump | grep -cF "$tok")" = 0
	test "$(grep -rlaF "$tok" .callus .lessons AGENTS.md | wc -l)" = 0
	grep -qF "[REDACTED:" .callus/notes/*.md
	# the check is the one its next run names
	test_expect_code 1 check
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM checks")" = 1
	# a recording's background pass, once a day: the run makes the
	# check under its redacted name, and the pass merges the old one
	unredact
	touch -d "2 days ago" .callus/gc.stamp
	test_expect_code 1 check
	# in a process of its own (callus gc --background), not waited for:
	# its commit, then the files it writes again after it
	until_true eval "test \"\$(sqlite3 .callus/callus.db .dump | grep -cF \"\$tok\")\" = 0 &&
		test \"\$(grep -rlaF \"\$tok\" .callus/notes .callus/log.jsonl .lessons AGENTS.md |
		wc -l)\" = 0"
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM checks")" = 1
	test "$(sqlite3 .callus/callus.db .dump | grep -cF "$tok")" = 0
	test "$(grep -rlaF "$tok" .callus/notes .callus/log.jsonl .lessons AGENTS.md | wc -l)" = 0
EOF

# The same store's ids: an earlier callus signed the error with the token
# in its message, where this one signs "[REDACTED:...]".  Made here by
# giving the stored error another id (nothing names it yet but by its
# row).  The check's next failure, which also fails another way, must see
# the error again, not take it for fixed (absent from a failing run) and
# start it over; then `callus gc` goes over the rest.
test_expect_success 'an error an earlier callus signed with a secret is seen again' - <<\EOF
	mkdir signed && cd signed
	git init -q
	printf "int main(void) { return 0; }\n" >main.c
	git add main.c && git -c user.name=t -c user.email=t@e commit -qm init
	mkdir .callus
	printf "[learn]\nsnapshots = true\n[retention]\ngc_hours = 0\n" >.callus/config
	tok=ghp_$(printf "%036d" 48)
	check() {
		"$CALLUS" run -- sh -c "echo 'src/main.c:1:1: error: bad token $tok' >&2; test -f other && echo 'src/main.c:2:1: error: other thing' >&2; exit 1; gcc -c main.c" 2>/dev/null
	}
	test_expect_code 1 check
	old=$(printf "signed with %s" "$tok" | sha256sum | cut -c1-64)
	sqlite3 .callus/callus.db "PRAGMA foreign_keys = OFF;
		UPDATE signatures SET original = replace(original, '[REDACTED:github-token]', '$tok'), id = '$old';
		UPDATE run_errors SET message = replace(message, '[REDACTED:github-token]', '$tok');
		DELETE FROM sync_state WHERE key LIKE 'redaction.%'"
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM signatures WHERE id = '$old'")" = 1
	printf "int x;\n" >>main.c
	: >other
	test_expect_code 1 check
	# the token's error once, failed twice, still pending; nothing fixed
	test "$(sqlite3 .callus/callus.db "SELECT group_concat(attempts) FROM (SELECT attempts FROM pending_errors ORDER BY id)")" = "2,1"
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM pending_errors WHERE state <> 'pending'")" = 0
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM resolutions")" = 0
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM signatures WHERE id = '$old'")" = 0
	"$CALLUS" gc >/dev/null
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM signatures")" = 2
	test "$(sqlite3 .callus/callus.db .dump | grep -cF "$tok")" = 0
EOF

test_expect_success 'no secret in any file callus wrote' - <<\EOF
	cd ws
	ls .callus/callus.db .callus/callus.db-wal .callus/log.jsonl AGENTS.md >/dev/null
	# a lesson file for each plant (about 500; 50 under the sanitizers)
	test "$(find .lessons -type f | wc -l)" -ge $((300 / EVERY))
	no_secret $(find .callus .lessons -type f) AGENTS.md
	sqlite3 .callus/callus.db .dump >../dump.sql
	no_secret ../dump.sql
	test_info "$(grep -o "REDACTED:[a-z0-9-]*" ../dump.sql | sort -u | wc -l) kinds of redaction in the store," \
		"$(find .lessons -type f | wc -l) lesson files"
EOF

test_expect_success 'no secret in the replies, callus'"'"'s messages or its listings' - <<\EOF
	cd ws
	"$CALLUS" lessons --json >../lessons.json
	"$CALLUS" status >../status.txt 2>&1
	"$CALLUS" pending >../pending.txt 2>&1
	no_secret ../replies/*.json ../callus-said ../lessons.json ../status.txt ../pending.txt
	grep -q REDACTED ../lessons.json
EOF

test_expect_success 'a secret a message'"'"'s cut falls in is not kept in part' - <<\EOF
	mkdir cut && cd cut && git init -q
	tok=ghp_sMehGAkWvj7FAc9QeWJKY40uvSwMFLZDe1f8
	url=postgres://admin:ZqbjL5DZPjN0MEQ7@db.example.com/x
	# the summary cuts a message at 160 bytes, a parser at 1,024: each
	# secret planted across each cut, a few bytes either way
	for n in 108 114 120 126 970 978 986; do
		pad=$(printf "x%.0s" $(seq "$n"))
		for s in "$tok" "$url"; do
			jq -n -c --arg o "x.c:1:1: error: request failed $pad $s" --arg d "$PWD" \
				'{command: "gcc -c x.c", exit_code: 1, output: $o, cwd: $d}' |
				"$CALLUS" hook generic >/dev/null
		done
	done
	test "$("$CALLUS" lessons --json | jq length)" -ge 7
	sqlite3 .callus/callus.db .dump >../cut.sql
	! grep -rao "ghp_[A-Za-z0-9]\{4,\}" ../cut.sql .callus .lessons AGENTS.md || false
	! grep -rao "ZqbjL" ../cut.sql .callus .lessons AGENTS.md || false
EOF

test_expect_success 'callus record cuts a long summary before no part of a token' - <<\EOF
	mkdir rec && cd rec && git init -q
	tok=ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3f4
	pad=$(python3 -c "print('w ' * 231, end='')")
	"$CALLUS" record --summary "${pad}token $tok end" >/dev/null
	printf '{"error_summary": "%stoken %s end"}' "$pad" "$tok" | "$CALLUS" record --json >/dev/null
	test "$("$CALLUS" lessons --json | jq length)" -ge 1
	sqlite3 .callus/callus.db .dump >../rec.sql
	! grep -rao "ghp_[A-Za-z0-9]\{4,\}" ../rec.sql .callus .lessons AGENTS.md || false
EOF

test_done
