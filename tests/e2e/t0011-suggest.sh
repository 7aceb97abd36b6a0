#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus suggest, reindex, merges, merge and the external embedder (issue 6)

Real gcc failing in a real git repository: the fix is learnt, callus suggest
names it for the same error in another file and nothing for an unrelated
one; a maintainer merges two signatures; an OpenAI-compatible endpoint on
loopback (tests/unit/embed_server.py) embeds new errors in the background,
never while callus run or the hook waits.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

semicolon() {
	printf 'int %s(void)\n{\n\tint x = 1%s\n\treturn x;\n}\n' "$1" "$2"
}

# The ids of the pending, fixed and permanent errors' signatures, oldest first.
signature_of() {
	"$CALLUS" pending --state all --json | jq -r "[.[] | select(.message | test(\"$1\"))][0].signature_id"
}

# wait_vectors MODEL_PATTERN N: until status shows N vectors for the model.
wait_vectors() {
	local i
	for i in $(seq 1 100); do
		if "$CALLUS" status | grep -q "^ *$2 of [0-9]* signatures ($1"; then
			return 0
		fi
		sleep 0.1
	done
	"$CALLUS" status
	return 1
}

test_expect_success 'bad arguments: a clear message and status 2' '
	mkdir empty && cd empty &&
	test_expect_code 2 "$CALLUS" suggest 2>err && grep -q "what should callus match" err &&
	test_expect_code 2 "$CALLUS" suggest --command "gcc a.c" --signature abcdef 2>err &&
	grep -q "choose one" err &&
	test_expect_code 2 "$CALLUS" suggest --command "gcc a.c" --exit-code 0 </dev/null 2>err &&
	grep -q "exit-code" err &&
	test_expect_code 2 "$CALLUS" suggest --command "gcc a.c" --limit 0 </dev/null 2>err &&
	test_expect_code 2 "$CALLUS" suggest --command "gcc a.c" extra </dev/null 2>err &&
	test_expect_code 2 "$CALLUS" merge onlyone 2>err && grep -q "usage: callus merge A B" err &&
	test_expect_code 2 "$CALLUS" reindex --bogus 2>err &&
	test_expect_code 2 "$CALLUS" merges extra 2>err &&
	test_expect_code 1 "$CALLUS" reindex 2>err && grep -q "nothing recorded" err &&
	test_expect_code 1 "$CALLUS" suggest --signature abcdef 2>err &&
	grep -q "nothing recorded" err &&
	"$CALLUS" merges >out && grep -q "no signatures to merge" out &&
	"$CALLUS" merges --json >out && test "$(jq length out)" = 0 &&
	"$CALLUS" suggest --command "ls" </dev/null 2>err && false ||
	grep -q "not a check" err &&
	test ! -e .callus
'

test_skip_unless_tool gcc jq
test_expect_success 'a fixed gcc error: suggested for the same error elsewhere, nothing for another' '
	mkdir proj && cd proj &&
	git -c init.defaultBranch=main init -q &&
	printf "*.o\n.callus/\nerr\nout\nsugg\n*.json\nport\nserver.pid\nnow\n" >.gitignore &&
	semicolon a "" >a.c &&
	git add -A && git -c user.name=t -c user.email=t@e -c commit.gpgSign=false commit -qm a &&
	test_expect_code 1 "$CALLUS" run -- gcc -c a.c 2>err &&
	grep -q "recorded lesson" err &&
	semicolon a ";" >a.c &&
	"$CALLUS" run -- gcc -c a.c 2>err &&
	grep -q "the fix is kept in note" err &&
	semicolon b "" >b.c &&
	{ gcc -c b.c 2>out || true; } &&
	"$CALLUS" suggest --command "gcc -c b.c" <out >sugg &&
	cat sugg &&
	grep -q "^  #1 .*worked 100% of 1 time: Edited a() in a.c .*callus resolutions show 1" sugg &&
	"$CALLUS" suggest --command "gcc -c b.c" --json <out >sugg.json &&
	jq -e ".[0].suggestions[0].resolution_id == 1 and .[0].suggestions[0].confidence <= 1
		and .[0].suggestions[0].confidence > 0.9 and .[0].tool == \"gcc\"" sugg.json &&
	id=$(jq -r ".[0].signature_id" sugg.json) &&
	"$CALLUS" suggest --signature "${id:0:8}" --json >by-id.json &&
	jq -e ".[0].signature_id == \"$id\" and .[0].suggestions[0].resolution_id == 1" by-id.json &&
	printf "int c(void)\n{\n\treturn nowhere;\n}\n" >c.c &&
	{ gcc -c c.c 2>out || true; } &&
	"$CALLUS" suggest --command "gcc -c c.c" <out >sugg &&
	grep -q "no past fix matches" sugg &&
	! grep -q "#1" sugg &&
	"$CALLUS" suggest --command "gcc -c c.c" --json <out | jq -e ".[0].suggestions == []" &&
	test_expect_code 2 "$CALLUS" suggest --signature zz 2>err && grep -q "not a signature id" err &&
	test_expect_code 1 "$CALLUS" suggest --signature ffffffff 2>err && grep -q "no signature" err
'

test_skip_unless_tool gcc jq sqlite3
test_skip_unless_tool gcc jq
test_expect_success 'suggest answers what the recording of the same output then shows' '
	mkdir same && cd same &&
	git init -q && printf ".callus/\n*.o\nB.txt\n" >.gitignore &&
	echo "int g(void){ return foo_bar(1); }" >a.c &&
	git add -A && git -c user.name=t -c user.email=t@e -c commit.gpgSign=false commit -qm a &&
	test_expect_code 1 "$CALLUS" run -q -- gcc -Werror -c a.c 2>/dev/null &&
	echo "int ok(void){return 0;}" >a.c && "$CALLUS" run -q -- gcc -Werror -c a.c &&
	# another function, and a hint the first had not: words no signature
	# stored has (a search that weighed them unseen found nothing)
	printf "#include <string.h>\nint g(void){ return strlenx(\"a\"); }\n" >a.c &&
	{ gcc -Werror -c a.c >B.txt 2>&1 || :; } &&
	"$CALLUS" suggest --command "gcc -Werror -c a.c" --json <B.txt >sugg.json &&
	rid=$(jq -r ".[0].suggestions[0].resolution_id" sugg.json) && test "$rid" != null &&
	test_expect_code 1 "$CALLUS" run -- gcc -Werror -c a.c 2>err &&
	grep -q "what fixed errors like this before" err &&
	# and again, the error stored now: the same answer
	"$CALLUS" suggest --command "gcc -Werror -c a.c" --json <B.txt >again.json &&
	test "$(jq -r ".[0].suggestions[0].resolution_id" again.json)" = "$rid"
'

test_expect_success 'recency: a fix that last worked 30 days ago counts half, [match] half_life_days' '
	cd proj &&
	{ gcc -c b.c 2>out || true; } &&
	sqlite3 .callus/callus.db "UPDATE resolutions SET last_success_at =
		strftime('"'"'%Y-%m-%dT%H:%M:%fZ'"'"', '"'"'now'"'"', '"'"'-30 days'"'"')" &&
	"$CALLUS" suggest --command "gcc -c b.c" --json <out >s30.json &&
	jq -e ".[0].suggestions[0].confidence | . > 0.49 and . < 0.51" s30.json &&
	printf "[match]\n\thalf_life_days = 15\n" >.callus/config &&
	"$CALLUS" suggest --command "gcc -c b.c" --json <out >s15.json &&
	jq -e ".[0].suggestions[0].confidence | . > 0.24 and . < 0.26" s15.json &&
	rm .callus/config
'

test_skip_unless_tool gcc jq
test_expect_success 'a miss is logged once, when the error first fails' '
	cd proj &&
	test_expect_code 1 "$CALLUS" run -- gcc -c c.c 2>/dev/null &&
	test_expect_code 1 "$CALLUS" run -- gcc -c c.c 2>/dev/null &&
	test "$(grep -c "\"event\":\"match_miss\".*nowhere" .callus/log.jsonl)" = 1
'

test_skip_unless_tool gcc jq
test_expect_success 'merge: only with the approval, and the fixes follow' '
	cd proj &&
	printf "int c(void)\n{\n\treturn 0;\n}\n" >c.c &&
	"$CALLUS" run -- gcc -c c.c 2>/dev/null &&
	a=$(signature_of "before") && c=$(signature_of "nowhere") &&
	test "$a" != "$c" && test "$a" != null && test "$c" != null &&
	test "$("$CALLUS" resolutions --signature "$a" --json | jq length)" = 1 &&
	test_expect_code 2 "$CALLUS" merge "${a:0:10}" "${a:0:10}" 2>err &&
	grep -q "into itself" err &&
	test_expect_code 1 "$CALLUS" merge "${a:0:10}" ffffffffff 2>err &&
	"$CALLUS" merge "${a:0:10}" "${c:0:10}" >out &&
	grep -q "^merged ${c:0:10} into ${a:0:10}" out &&
	test "$("$CALLUS" resolutions --signature "$a" --json | jq length)" = 2 &&
	"$CALLUS" suggest --signature "$c" --json | jq -e "[.[0].suggestions[].resolution_id] | length == 2"
'

test_skip_unless_tool gcc jq python3
test_expect_success 'an external embedder: reindex, new errors embedded in the background' '
	cd proj
	python3 "$REPO/tests/unit/embed_server.py" --dim 16 >port 2>/dev/null </dev/null &
	echo $! >server.pid
	for i in $(seq 1 50); do test -s port && break; sleep 0.1; done &&
	port=$(head -n 1 port) &&
	printf "[embed]\n\turl = http://127.0.0.1:%s/v1/embeddings\n\tmodel = nomic-embed-text\n" \
		"$port" >.callus/config &&
	"$CALLUS" reindex >out &&
	cat out &&
	grep -q "^embedded again [0-9]* signatures\{0,1\} (callus-builtin-1)" out &&
	grep -q "^embedded [1-9][0-9]* signatures\{0,1\} (openai:nomic-embed-text@127.0.0.1:$port)" out &&
	n=$("$CALLUS" status | sed -n "s/^vectors *\([0-9]*\) of .*/\1/p") &&
	wait_vectors openai "$n" &&
	printf "int d(int a)\n{\n\treturn d();\n}\n" >d.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -c d.c 2>/dev/null &&
	n=$("$CALLUS" status | sed -n "s/^vectors *\([0-9]*\) of .*/\1/p") &&
	wait_vectors openai "$n" &&
	{ gcc -c b.c 2>out || true; } &&
	"$CALLUS" suggest --command "gcc -c b.c" <out | grep -q "callus resolutions show 1"
'

test_skip_unless_tool gcc jq python3
test_expect_success 'the external model'"'"'s vector file: made again when lost, checked record by record' '
	cd proj &&
	port=$(head -n 1 port) && model="openai:nomic-embed-text@127.0.0.1:$port" &&
	x=$(ls .callus/vectors-ext-*.bin) && test -s "$x" &&
	n=$("$CALLUS" status | sed -n "s/^ *\([0-9]*\) of [0-9]* signatures ($model).*/\1/p") &&
	test "$n" -gt 0 &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       vectors    .callus/vectors-ext-[0-9a-f]*.bin ($model) holds the store.s $n vectors, each as the store has it" out &&
	cp "$x" ext.bin &&
	rm "$x" "$x.sketch" &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "^problem  vectors    .*($model) holds 0 of the store.s $n vectors" out &&
	"$CALLUS" reindex --new >out &&
	grep -q "^embedded 0 signatures ($model)" out &&
	cmp "$x" ext.bin &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       vectors    .*($model) holds the store.s $n vectors" out &&
	flip "$x" $((80 + 12 + 3)) &&
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "^problem  vectors    .*($model) holds $((n - 1)) of the store.s $n vectors; 1 of its $n records are damaged" out &&
	"$CALLUS" doctor --fix >out &&
	grep -q "^note     vectors    .*($model) held .*: written again from the store" out &&
	cmp "$x" ext.bin &&
	"$CALLUS" doctor >out &&
	grep -q "^ok       vectors    .*($model) holds the store.s $n vectors" out
'

test_skip_unless_tool gcc jq python3
test_expect_success 'a slow endpoint: callus run and the hook answer before it does' '
	cd proj &&
	port=$(head -n 1 port) &&
	printf "[embed]\n\turl = http://127.0.0.1:%s/v1/embeddings\n\tmodel = sleep-3000\n" \
		"$port" >.callus/config &&
	"$CALLUS" reindex --new --quiet &&
	before=$("$CALLUS" status | grep -c "sleep-3000") &&
	printf "void e0(void)\n{\n}\nint e(void)\n{\n\treturn e0();\n}\n" >e.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -c e.c 2>/dev/null &&
	n=$("$CALLUS" status | sed -n "s/^vectors *\([0-9]*\) of .*/\1/p") &&
	"$CALLUS" status | grep "sleep-3000" >now &&
	! grep -q "^ *$n of" now &&
	wait_vectors openai:sleep-3000 "$n" &&
	test "$before" = 1
'

test_skip_unless_tool gcc jq python3
test_expect_success 'an endpoint that is down: reindex says so, recording goes on, the log has it' '
	cd proj &&
	kill "$(cat server.pid)" && rm -f server.pid &&
	port=$(head -n 1 port) &&
	printf "[embed]\n\turl = http://127.0.0.1:%s/v1/embeddings\n\tmodel = nomic-embed-text\n" \
		"$port" >.callus/config &&
	printf "int f(void)\n{\n\tint *p = 1.5;\n\treturn *p;\n}\n" >f.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -c f.c 2>err &&
	grep -q "recorded lesson" err &&
	for i in $(seq 1 100); do grep -q "embed_failed" .callus/log.jsonl && break; sleep 0.1; done &&
	grep -q "\"event\":\"embed_failed\"" .callus/log.jsonl &&
	test_expect_code 1 "$CALLUS" reindex --new >out 2>err &&
	grep -q "openai:nomic-embed-text@127.0.0.1:$port" err &&
	{ gcc -c b.c 2>out || true; } &&
	"$CALLUS" suggest --command "gcc -c b.c" <out >sugg 2>err &&
	grep -q "built-in embedder alone" err &&
	grep -q "callus resolutions show 1" sugg
'

test_expect_success 'a half-configured embedder is named and ignored' '
	cd proj &&
	printf "[embed]\n\turl = http://127.0.0.1:9/v1/embeddings\n" >.callus/config &&
	"$CALLUS" status >out && grep -q "\[embed\] ignored" out &&
	{ gcc -c b.c 2>out || true; } &&
	"$CALLUS" suggest --command "gcc -c b.c" <out >sugg 2>err &&
	grep -q "\[embed\] ignored" err && grep -q "callus resolutions show 1" sugg
'

test_expect_success 'models no longer set up: their vectors go model_days after a callus last had them, not while [embed] is unreadable' '
	cd proj &&
	port=$(head -n 1 port) &&
	ext() { sqlite3 .callus/callus.db "SELECT count(*) FROM signature_vectors v
		JOIN vector_models m ON m.id = v.model WHERE m.name LIKE \"%${1:-}%\" AND m.id != 1"; } &&
	named_ago() { sqlite3 .callus/callus.db "UPDATE sync_state SET value =
		strftime(\"%Y-%m-%dT%H:%M:%fZ\", \"now\", \"-$2 days\") WHERE key LIKE \"embed.named_at %$1%\""; } &&
	n=$(ext) && s=$(ext sleep-3000) && test "$s" -gt 0 && test "$n" -gt "$s" &&
	# the half-configured [embed] of the test before: a problem of its own
	test_expect_code 1 "$CALLUS" doctor >out &&
	grep -q "^problem  config     \[embed\] ignored: an embedder url is set but no model" out &&
	grep -q "^note     vectors    $s vectors of openai:sleep-3000@127.0.0.1:$port, which \[embed\] does not name: kept while the configuration cannot be read" out &&
	"$CALLUS" gc >out && ! grep -q "embedding models" out &&
	test "$(ext)" = "$n" &&
	rm .callus/config &&
	# last set up by the reindexes of the tests before: kept
	"$CALLUS" gc --dry-run >out && ! grep -q "embedding models" out &&
	named_ago "" 31 &&
	# set up in this process'"'"'s environment only (the endpoint is down)
	{ CALLUS_EMBED_URL=http://127.0.0.1:$port/v1/embeddings CALLUS_EMBED_MODEL=nomic-embed-text \
		"$CALLUS" reindex --new --quiet 2>/dev/null || :; } &&
	"$CALLUS" doctor >out &&
	grep -q "^note     vectors    $((n - s)) vectors of openai:nomic-embed-text@127.0.0.1:$port, which \[embed\] does not name here: .callus gc. removes them, and its file, once no callus process has had it set up for 30 days (\[retention\] model_days; last set up $(date -u +%Y-%m-%d)" out &&
	"$CALLUS" gc --dry-run >out && cat out &&
	grep -q "^would remove $s vectors of embedding models the workspace is no longer set up with (\[embed\]; 1 model gone whole)" out &&
	test "$(ext)" = "$n" && ls .callus/vectors-ext-*.bin &&
	"$CALLUS" gc --json >out.json &&
	jq -e ".model_vectors == $s and .models == 1" out.json &&
	test "$(ext sleep-3000)" = 0 && test "$(ext)" = "$((n - s))" &&
	named_ago nomic 31 &&
	"$CALLUS" gc --json >out.json &&
	jq -e ".model_vectors == $((n - s)) and .models == 1" out.json &&
	test "$(ext)" = 0 &&
	! ls .callus/vectors-ext-* 2>/dev/null &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM sync_state WHERE key LIKE \"embed.named_at %\"")" = 0 &&
	! "$CALLUS" status | grep -q openai &&
	"$CALLUS" doctor >out && ! grep -q "^problem" out && ! grep -q "which \[embed\]" out
'

test_skip_unless_tool flock
test_expect_success 'one reindex at a time: a second finds the lock taken and leaves' '
	cd proj &&
	flock .callus/embed.lock "$CALLUS" reindex >out 2>err &&
	grep -q "another callus reindex is running here" out &&
	! grep -q "embedded" out &&
	flock .callus/embed.lock "$CALLUS" reindex --quiet >out 2>err &&
	test_must_be_empty out &&
	"$CALLUS" reindex >out && grep -q "^embedded again" out
'

if [ -f "$TRASH_DIRECTORY/proj/server.pid" ]; then
	kill "$(cat "$TRASH_DIRECTORY/proj/server.pid")" 2>/dev/null
fi
test_done
