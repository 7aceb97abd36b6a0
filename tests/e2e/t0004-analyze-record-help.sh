#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus analyze, callus record and the help

analyze prints the capture pipeline as JSON and writes nothing; record stores
lessons by hand; --help, help CMD and the man page tell the truth.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

test_expect_success 'analyze: real eslint output, workspace-relative files, nothing written' '
	setup_fixture eslint-project lint &&
	cd lint &&
	test_expect_code 1 npx eslint src >out 2>/dev/null &&
	"$CALLUS" analyze --command "npx eslint src" --exit-code 1 <out >a.json &&
	jq -e ".verification and .failed and .tool == \"eslint\" and .category == \"LINT\"" a.json &&
	jq -e ".exit_code == 1 and .command == \"npx eslint src\"" a.json &&
	test "$(jq -c .affected_files a.json)" = "[\"src/app.js\",\"src/util.js\"]" &&
	jq -e ".errors[0] | {file, line, column, code, message} == {file: \"src/app.js\", line: 4,
		column: 9, code: \"no-unused-vars\",
		message: \"'"'"'currency'"'"' is assigned a value but never used\"}" a.json &&
	jq -e ".errors[1].code == \"no-undef\" and .errors[1].file == \"src/util.js\"" a.json &&
	jq -e "(.error_summary | length) <= 500" a.json &&
	jq -e ".parser == \"eslint\" and (.signatures | length) == 2" a.json &&
	jq -e "[.errors[].signature] - [.signatures[].id] == []" a.json &&
	jq -e ".signatures[0].error_type == \"no-unused-vars\"" a.json &&
	! test -e .callus && ! test -e AGENTS.md && ! test -e .lessons
'

test_expect_success 'analyze: colours, a cd in the command line, paths outside left out' '
	mkdir -p ws/web/src && cd ws && git init -q &&
	printf "\033[96msrc/a.ts\033[0m:\033[93m3\033[0m:\033[93m7\033[0m - \033[91merror\033[0m\033[90m TS2322: \033[0mType '"'"'string'"'"' is not assignable to type '"'"'number'"'"'.\n\n/tmp/elsewhere/b.ts:1:1 - error TS1005: x\n/usr/lib/node_modules/typescript/lib/lib.d.ts:1:1 - error TS2304: y\n" >out &&
	"$CALLUS" analyze --command "cd web && npx tsc --noEmit" --exit-code 2 <out >a.json &&
	jq -e ".tool == \"tsc\" and .category == \"ANALYSIS\"" a.json &&
	test "$(jq -c .affected_files a.json)" = "[\"web/src/a.ts\"]" &&
	jq -e ".errors[0].code == \"TS2322\"" a.json
'

test_expect_success 'analyze: detection of real command lines' '
	git init -q det && cd det &&
	check() {
		"$CALLUS" analyze --command "$1" --exit-code 1 </dev/null >a.json &&
		got=$(jq -r "if .verification then .tool else \"-\" end" a.json) &&
		test "$got" = "$2" || { echo "$1: got $got, want $2"; return 1; }
	}
	check "cd web && npm test" "npm test" &&
	check "CI=1 npx jest --ci" jest &&
	check "./node_modules/.bin/eslint ." eslint &&
	check "python3 -m pytest -q" pytest &&
	check "pnpm run lint" "pnpm run lint" &&
	check "bun test" "bun test" &&
	check "make check" make &&
	check "npm test 2>&1 | tail -20" "npm test" &&
	check "ls -la" - &&
	check "git commit -m \"fix eslint\"" - &&
	check "cat package.json | grep test" - &&
	check "curl -f https://example.com" - &&
	check "npm install" -
'

test_expect_success 'analyze: a passing run and a non-verification command' '
	git init -q pass && cd pass &&
	echo "src/a.js:1:1: error x" | "$CALLUS" analyze --command "npx eslint ." --exit-code 0 >a.json &&
	jq -e ".verification and (.failed | not) and .affected_files == [] and .errors == []" a.json &&
	echo "error: boom in a.c:1:1" | "$CALLUS" analyze --command "ls" --exit-code 2 >b.json &&
	jq -e "(.verification | not) and (.failed | not) and .category == \"OTHER\"" b.json
'

test_expect_success 'analyze: binary and invalid UTF-8 input give valid JSON' '
	git init -q bin && cd bin &&
	{ printf "src/a.c:1:1: error: \377\376 bad\n"; head -c 100000 /dev/urandom; } >out &&
	"$CALLUS" analyze --command "gcc a.c" --exit-code 1 <out >a.json &&
	jq -e ".failed" a.json
'

test_expect_success 'analyze: secrets redacted, the signatures those suggest and a recording use' '
	git init -q sec && cd sec &&
	tok="gh""p_abcdefghijklmnopqrstuvwxyz0123456789" &&
	printf "#error \"rejected token %s\"\n" "$tok" >a.c &&
	test_expect_code 1 gcc -c a.c 2>out &&
	grep -q "$tok" out &&
	"$CALLUS" analyze --command "gcc -c a.c" --exit-code 1 <out >a.json &&
	! grep -q "$tok" a.json &&
	jq -e ".errors[0].message | contains(\"[REDACTED:github-token]\")" a.json &&
	"$CALLUS" suggest --command "gcc -c a.c" --exit-code 1 --json <out >s.json &&
	test "$(jq -r ".signatures[0].id" a.json)" = "$(jq -r ".[0].signature_id" s.json)" &&
	test "$(jq -r ".errors[0].signature" a.json)" = "$(jq -r ".[0].signature_id" s.json)"
'

test_expect_success 'analyze: usage errors are clear' '
	test_expect_code 2 "$CALLUS" analyze --exit-code 1 </dev/null 2>err &&
	grep -q "command is required" err &&
	test_expect_code 2 "$CALLUS" analyze --command x --exit-code abc </dev/null 2>err &&
	grep -q "expects a number" err &&
	test_expect_code 2 "$CALLUS" analyze --bogus 2>err &&
	grep -q "unknown option" err
'

test_expect_success 'record: flags, de-duplication, analysis fields filled later' '
	git init -q rec && cd rec && mkdir src && touch src/api.js &&
	"$CALLUS" record --type TEST --file src/api.js --summary "fetch not awaited" \
		--intent task-7 >out &&
	grep -q "recorded lesson 1" out &&
	"$CALLUS" record --type TEST --file ./src/api.js --summary "fetch not awaited" \
		--cause "missing await" --rule "await every api call" >out &&
	grep -q "updated lesson 1" out &&
	"$CALLUS" lessons show 1 --json >l.json &&
	jq -e ".occurrences == 2 and .cause == \"missing await\" and .intent_id == \"task-7\"" l.json &&
	jq -e ".corrective_rule == \"await every api call\" and .file == \"src/api.js\"" l.json &&
	grep -q "fetch not awaited" AGENTS.md
'

test_expect_success 'record: JSON on stdin, and bad input refused' '
	git init -q recj && cd recj &&
	echo "{\"type\":\"LINT\",\"file\":\"a.py\",\"error_summary\":\"E501 line too long\",\"corrective_rule\":\"wrap at 88\"}" |
		"$CALLUS" record --json >l.json &&
	jq -e ".type == \"LINT\" and .corrective_rule == \"wrap at 88\" and .id == 1" l.json &&
	echo "{bad" | test_expect_code 1 "$CALLUS" record --json 2>err &&
	grep -q "not a JSON object" err &&
	test_expect_code 2 "$CALLUS" record --file a.py 2>err &&
	grep -q "needs a summary" err &&
	test_expect_code 2 "$CALLUS" record --summary x --file ../../etc/passwd 2>err &&
	grep -q "not a file inside the workspace" err &&
	test_expect_code 2 "$CALLUS" record --summary x --type BOGUS 2>err &&
	grep -q "unknown lesson type" err
'

test_expect_success 'help: every command listed, help CMD equals CMD --help' '
	"$CALLUS" --help >top &&
	for cmd in run analyze lessons record hook init help version; do
		grep -q "^   $cmd " top || { echo "$cmd missing from --help"; exit 1; }
		"$CALLUS" help $cmd >a && "$CALLUS" $cmd --help >b && test_cmp a b
	done &&
	test_expect_code 2 "$CALLUS" nope 2>err && grep -q "not a callus command" err &&
	test_expect_code 2 "$CALLUS" 2>/dev/null &&
	"$CALLUS" --version | grep -q "^callus "
'

test_expect_success 'help and version: output that cannot be written fails, extra words refused' '
	test_expect_code 1 "$CALLUS" --help >/dev/full &&
	test_expect_code 1 "$CALLUS" --version >/dev/full &&
	test_expect_code 2 "$CALLUS" version x 2>err && grep -q "unexpected argument" err &&
	test_expect_code 2 "$CALLUS" help lessons x 2>err && grep -q "unexpected argument" err &&
	test_expect_code 2 "$CALLUS" lessons --limit -1 2>err && grep -q "between 0 and" err &&
	test_expect_code 2 "$CALLUS" hook generic extra </dev/null 2>err &&
	grep -q "unexpected argument .extra. after the agent" err &&
	# a file named where a directory goes
	echo x >plain.txt &&
	echo x | test_expect_code 1 "$CALLUS" analyze --command "gcc x.c" --exit-code 1 -w plain.txt 2>err &&
	grep -q "cannot use .plain.txt. as the workspace: Not a directory" err &&
	test_expect_code 1 "$CALLUS" import --project plain.txt --dry-run 2>err &&
	grep -q "Not a directory" err &&
	# an option that would be dropped is said
	test_expect_code 2 "$CALLUS" note retire abcd --why x 2>err &&
	grep -q "why goes with" err &&
	test_expect_code 2 "$CALLUS" note retire abcd --layer bogus 2>err &&
	grep -q "layer is team or org, not .bogus." err &&
	test_expect_code 2 "$CALLUS" notes show abcd --layer team 2>err &&
	grep -q "layer goes with the list" err &&
	test_expect_code 2 "$CALLUS" notes show abcd --limit 0 2>err &&
	grep -q "limit goes with the list" err &&
	test_expect_code 2 "$CALLUS" suggest --signature abcdef -e 1 2>err &&
	grep -q "exit-code goes with --command" err &&
	test_expect_code 1 "$CALLUS" notes show abcd 2>err && grep -q "no note abcd" err
'

test_expect_success 'help: every option of every command is in the man page' '
	for cmd in run analyze lessons record hook init; do
		"$CALLUS" help $cmd | grep -o -- "--[a-z-]*" | sort -u | while read -r opt; do
			test "$opt" = "--help" && continue
			sed "s/\\\\-/-/g" "$REPO/docs/callus.1" | grep -q -- "$opt" ||
				{ echo "callus $cmd $opt is not in docs/callus.1"; exit 1; }
		done
	done
'

test_done
