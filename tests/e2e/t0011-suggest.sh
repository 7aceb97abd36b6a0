#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='deja suggest, reindex, merges, merge and the external embedder (issue 6)

Real gcc failing in a real git repository: the fix is learnt, deja suggest
names it for the same error in another file and nothing for an unrelated
one; a maintainer merges two signatures; an OpenAI-compatible endpoint on
loopback (tests/unit/embed_server.py) embeds new errors in the background,
never while deja run or the hook waits.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

semicolon() {
	printf 'int %s(void)\n{\n\tint x = 1%s\n\treturn x;\n}\n' "$1" "$2"
}

# The ids of the pending, fixed and permanent errors' signatures, oldest first.
signature_of() {
	"$DEJA" pending --state all --json | jq -r "[.[] | select(.message | test(\"$1\"))][0].signature_id"
}

# wait_vectors MODEL_PATTERN N: until status shows N vectors for the model.
wait_vectors() {
	local i
	for i in $(seq 1 100); do
		if "$DEJA" status | grep -q "^ *$2 of [0-9]* signatures ($1"; then
			return 0
		fi
		sleep 0.1
	done
	"$DEJA" status
	return 1
}

test_expect_success 'bad arguments: a clear message and status 2' '
	mkdir empty && cd empty &&
	test_expect_code 2 "$DEJA" suggest 2>err && grep -q "what should deja match" err &&
	test_expect_code 2 "$DEJA" suggest --command "gcc a.c" --signature abcdef 2>err &&
	grep -q "choose one" err &&
	test_expect_code 2 "$DEJA" suggest --command "gcc a.c" --exit-code 0 </dev/null 2>err &&
	grep -q "exit-code" err &&
	test_expect_code 2 "$DEJA" suggest --command "gcc a.c" --limit 0 </dev/null 2>err &&
	test_expect_code 2 "$DEJA" suggest --command "gcc a.c" extra </dev/null 2>err &&
	test_expect_code 2 "$DEJA" merge onlyone 2>err && grep -q "usage: deja merge A B" err &&
	test_expect_code 2 "$DEJA" reindex --bogus 2>err &&
	test_expect_code 2 "$DEJA" merges extra 2>err &&
	test_expect_code 1 "$DEJA" reindex 2>err && grep -q "nothing recorded" err &&
	test_expect_code 1 "$DEJA" suggest --signature abcdef 2>err &&
	grep -q "nothing recorded" err &&
	"$DEJA" merges >out && grep -q "no signatures to merge" out &&
	"$DEJA" merges --json >out && test "$(jq length out)" = 0 &&
	"$DEJA" suggest --command "ls" </dev/null 2>err && false ||
	grep -q "not a check" err &&
	test ! -e .deja
'

test_skip_unless_tool gcc jq
test_expect_success 'a fixed gcc error: suggested for the same error elsewhere, nothing for another' '
	mkdir proj && cd proj &&
	git -c init.defaultBranch=main init -q &&
	printf "*.o\n.deja/\nerr\nout\nsugg\n*.json\nport\nserver.pid\nnow\n" >.gitignore &&
	semicolon a "" >a.c &&
	git add -A && git -c user.name=t -c user.email=t@e -c commit.gpgSign=false commit -qm a &&
	test_expect_code 1 "$DEJA" run -- gcc -c a.c 2>err &&
	grep -q "recorded lesson" err &&
	semicolon a ";" >a.c &&
	"$DEJA" run -- gcc -c a.c 2>err &&
	grep -q "resolution #1" err &&
	semicolon b "" >b.c &&
	{ gcc -c b.c 2>out || true; } &&
	"$DEJA" suggest --command "gcc -c b.c" <out >sugg &&
	cat sugg &&
	grep -q "^  #1 .*worked 100% of 1 time: Edited a() in a.c .*deja resolutions show 1" sugg &&
	"$DEJA" suggest --command "gcc -c b.c" --json <out >sugg.json &&
	jq -e ".[0].suggestions[0].resolution_id == 1 and .[0].suggestions[0].confidence <= 1
		and .[0].suggestions[0].confidence > 0.9 and .[0].tool == \"gcc\"" sugg.json &&
	id=$(jq -r ".[0].signature_id" sugg.json) &&
	"$DEJA" suggest --signature "${id:0:8}" --json >by-id.json &&
	jq -e ".[0].signature_id == \"$id\" and .[0].suggestions[0].resolution_id == 1" by-id.json &&
	printf "int c(void)\n{\n\treturn nowhere;\n}\n" >c.c &&
	{ gcc -c c.c 2>out || true; } &&
	"$DEJA" suggest --command "gcc -c c.c" <out >sugg &&
	grep -q "no past fix matches" sugg &&
	! grep -q "#1" sugg &&
	"$DEJA" suggest --command "gcc -c c.c" --json <out | jq -e ".[0].suggestions == []" &&
	test_expect_code 2 "$DEJA" suggest --signature zz 2>err && grep -q "not a signature id" err &&
	test_expect_code 1 "$DEJA" suggest --signature ffffffff 2>err && grep -q "no signature" err
'

test_skip_unless_tool gcc jq sqlite3
test_expect_success 'recency: a fix that last worked 30 days ago counts half, [match] half_life_days' '
	cd proj &&
	{ gcc -c b.c 2>out || true; } &&
	sqlite3 .deja/deja.db "UPDATE resolutions SET last_success_at =
		strftime('"'"'%Y-%m-%dT%H:%M:%fZ'"'"', '"'"'now'"'"', '"'"'-30 days'"'"')" &&
	"$DEJA" suggest --command "gcc -c b.c" --json <out >s30.json &&
	jq -e ".[0].suggestions[0].confidence | . > 0.49 and . < 0.51" s30.json &&
	printf "[match]\n\thalf_life_days = 15\n" >.deja/config &&
	"$DEJA" suggest --command "gcc -c b.c" --json <out >s15.json &&
	jq -e ".[0].suggestions[0].confidence | . > 0.24 and . < 0.26" s15.json &&
	rm .deja/config
'

test_skip_unless_tool gcc jq
test_expect_success 'a miss is logged once, when the error first fails' '
	cd proj &&
	test_expect_code 1 "$DEJA" run -- gcc -c c.c 2>/dev/null &&
	test_expect_code 1 "$DEJA" run -- gcc -c c.c 2>/dev/null &&
	test "$(grep -c "\"event\":\"match_miss\".*nowhere" .deja/log.jsonl)" = 1
'

test_skip_unless_tool gcc jq
test_expect_success 'merge: only with the approval, and the fixes follow' '
	cd proj &&
	printf "int c(void)\n{\n\treturn 0;\n}\n" >c.c &&
	"$DEJA" run -- gcc -c c.c 2>/dev/null &&
	a=$(signature_of "before") && c=$(signature_of "nowhere") &&
	test "$a" != "$c" && test "$a" != null && test "$c" != null &&
	test "$("$DEJA" resolutions --signature "$a" --json | jq length)" = 1 &&
	test_expect_code 2 "$DEJA" merge "${a:0:10}" "${a:0:10}" 2>err &&
	grep -q "into itself" err &&
	test_expect_code 1 "$DEJA" merge "${a:0:10}" ffffffffff 2>err &&
	"$DEJA" merge "${a:0:10}" "${c:0:10}" >out &&
	grep -q "^merged ${c:0:10} into ${a:0:10}" out &&
	test "$("$DEJA" resolutions --signature "$a" --json | jq length)" = 2 &&
	"$DEJA" suggest --signature "$c" --json | jq -e "[.[0].suggestions[].resolution_id] | length == 2"
'

test_skip_unless_tool gcc jq python3
test_expect_success 'an external embedder: reindex, new errors embedded in the background' '
	cd proj
	python3 "$REPO/tests/unit/embed_server.py" --dim 16 >port 2>/dev/null </dev/null &
	echo $! >server.pid
	for i in $(seq 1 50); do test -s port && break; sleep 0.1; done &&
	port=$(head -n 1 port) &&
	printf "[embed]\n\turl = http://127.0.0.1:%s/v1/embeddings\n\tmodel = nomic-embed-text\n" \
		"$port" >.deja/config &&
	"$DEJA" reindex >out &&
	cat out &&
	grep -q "^embedded again [0-9]* signatures\{0,1\} (deja-builtin-1)" out &&
	grep -q "^embedded [1-9][0-9]* signatures\{0,1\} (openai:nomic-embed-text@127.0.0.1:$port)" out &&
	n=$("$DEJA" status | sed -n "s/^vectors *\([0-9]*\) of .*/\1/p") &&
	wait_vectors openai "$n" &&
	printf "int d(int a)\n{\n\treturn d();\n}\n" >d.c &&
	test_expect_code 1 "$DEJA" run -- gcc -c d.c 2>/dev/null &&
	n=$("$DEJA" status | sed -n "s/^vectors *\([0-9]*\) of .*/\1/p") &&
	wait_vectors openai "$n" &&
	{ gcc -c b.c 2>out || true; } &&
	"$DEJA" suggest --command "gcc -c b.c" <out | grep -q "deja resolutions show 1"
'

test_skip_unless_tool gcc jq python3
test_expect_success 'a slow endpoint: deja run and the hook answer before it does' '
	cd proj &&
	port=$(head -n 1 port) &&
	printf "[embed]\n\turl = http://127.0.0.1:%s/v1/embeddings\n\tmodel = sleep-3000\n" \
		"$port" >.deja/config &&
	"$DEJA" reindex --new --quiet &&
	before=$("$DEJA" status | grep -c "sleep-3000") &&
	printf "void e0(void)\n{\n}\nint e(void)\n{\n\treturn e0();\n}\n" >e.c &&
	test_expect_code 1 "$DEJA" run -- gcc -c e.c 2>/dev/null &&
	n=$("$DEJA" status | sed -n "s/^vectors *\([0-9]*\) of .*/\1/p") &&
	"$DEJA" status | grep "sleep-3000" >now &&
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
		"$port" >.deja/config &&
	printf "int f(void)\n{\n\tint *p = 1.5;\n\treturn *p;\n}\n" >f.c &&
	test_expect_code 1 "$DEJA" run -- gcc -c f.c 2>err &&
	grep -q "recorded lesson" err &&
	for i in $(seq 1 100); do grep -q "embed_failed" .deja/log.jsonl && break; sleep 0.1; done &&
	grep -q "\"event\":\"embed_failed\"" .deja/log.jsonl &&
	test_expect_code 1 "$DEJA" reindex --new >out 2>err &&
	grep -q "openai:nomic-embed-text@127.0.0.1:$port" err &&
	{ gcc -c b.c 2>out || true; } &&
	"$DEJA" suggest --command "gcc -c b.c" <out >sugg 2>err &&
	grep -q "built-in embedder alone" err &&
	grep -q "deja resolutions show 1" sugg
'

test_expect_success 'a half-configured embedder is named and ignored' '
	cd proj &&
	printf "[embed]\n\turl = http://127.0.0.1:9/v1/embeddings\n" >.deja/config &&
	"$DEJA" status >out && grep -q "\[embed\] ignored" out &&
	{ gcc -c b.c 2>out || true; } &&
	"$DEJA" suggest --command "gcc -c b.c" <out >sugg 2>err &&
	grep -q "\[embed\] ignored" err && grep -q "deja resolutions show 1" sugg
'

test_skip_unless_tool flock
test_expect_success 'one reindex at a time: a second finds the lock taken and leaves' '
	cd proj &&
	flock .deja/embed.lock "$DEJA" reindex >out 2>err &&
	grep -q "another deja reindex is running here" out &&
	! grep -q "embedded" out &&
	flock .deja/embed.lock "$DEJA" reindex --quiet >out 2>err &&
	test_must_be_empty out &&
	"$DEJA" reindex >out && grep -q "^embedded again" out
'

if [ -f "$TRASH_DIRECTORY/proj/server.pid" ]; then
	kill "$(cat "$TRASH_DIRECTORY/proj/server.pid")" 2>/dev/null
fi
test_done
