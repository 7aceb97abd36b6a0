#!/bin/bash
# shellcheck disable=SC2016 # jq programs and test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='a fix learnt on one error is offered for a similar one (spec 004)

Real jest in a git monorepo whose packages share one store (.callus/ at the
git top level).  In packages/calc, sum() forgets its return: "Expected: 3,
Received: undefined"; the fix is learnt through callus hook claude-code.  In
packages/greet, greet() makes the same mistake with a string: "Expected:
"Hello, Ann!", Received: undefined", another signature (a string
placeholder where the first has a number) that the built-in embedder finds
similar (docs/matching.md): the hook'"'"'s reply and callus run name the first
fix.  An unrelated jest error and an eslint error get no past fix.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# Scratch files (replies, JSON) stay outside the repository: in the
# repository they would be part of the diff of a fix.
S=$TRASH_DIRECTORY

# post EVENT COMMAND EXIT_CODE OUTPUT SESSION: a Bash tool call as Claude
# Code reports it to the hook (as in t0009), from the current directory.
post() {
	if test "$1" = PostToolUseFailure; then
		jq -n --arg cwd "$PWD" --arg cmd "$2" --arg out "$4" --arg s "$5" --arg code "$3" \
			'{session_id: $s, cwd: $cwd, hook_event_name: "PostToolUseFailure",
			  tool_name: "Bash", tool_input: {command: $cmd},
			  error: ("Exit code " + $code + "\n" + $out), is_interrupt: false}'
	else
		jq -n --arg cwd "$PWD" --arg cmd "$2" --arg out "$4" --arg s "$5" \
			'{session_id: $s, cwd: $cwd, hook_event_name: "PostToolUse",
			  tool_name: "Bash", tool_input: {command: $cmd},
			  tool_response: {stdout: $out, stderr: "", interrupted: false}}'
	fi | "$CALLUS" hook claude-code
}

# context REPLY: the text the hook gives the agent
context() {
	jq -r '.hookSpecificOutput.additionalContext // empty' "$1"
}

# has FILE TEXT / lacks FILE TEXT: FILE has (lacks) the fixed string TEXT;
# else say so and show FILE.
has() {
	if ! grep -qF -e "$2" "$1"; then
		echo "has: '$2' is not in $1, which holds:"
		cat "$1"
		return 1
	fi
}

lacks() {
	local rc=0
	grep -qF -e "$2" "$1" || rc=$?
	if test "$rc" -ne 1; then
		echo "lacks: '$2' is in $1 (grep status $rc), which holds:"
		cat "$1"
		return 1
	fi
}

# json FILE JQ_ARGS...: jq -e on FILE; shows FILE when it fails.
json() {
	local file=$1
	shift
	if ! jq -e "$@" "$file" >/dev/null; then
		echo "json: jq -e $* failed on $file:"
		cat "$file"
		return 1
	fi
}

# is WHAT ACTUAL EXPECTED: ACTUAL is EXPECTED; else say what differs.
is() {
	if test "$2" != "$3"; then
		echo "$1: '$2', expected '$3'"
		return 1
	fi
}

# pending_of DIR: the one pending error of the checks run in DIR (relative to
# the workspace: packages/calc).
pending_of() {
	"$CALLUS" pending --json |
		jq -e --arg dir "$1" '[.[] | select(.dir == $dir)] |
			if length == 1 then .[0] else error("\(length) pending errors in \($dir)") end'
}

# sql QUERY: a query on the shared store (from the trash directory's mono).
sql() {
	sqlite3 "$S/mono/.callus/callus.db" "$1"
}

# package NAME: packages/NAME with a package.json and the test tools
package() {
	mkdir -p "packages/$1" &&
	printf '{ "name": "%s", "version": "1.0.0", "private": true }\n' "$1" \
		>"packages/$1/package.json" &&
	_e2e_link_tools "packages/$1"
}

test_skip_unless_tool npx jest eslint jq sqlite3
test_expect_success 'setup: a monorepo of four packages' - <<-\EOF
	git -c init.defaultBranch=main init -q mono && cd mono &&
	printf 'node_modules/\n.callus/\n' >.gitignore &&
	package calc && package greet && package cart && package lint &&

	cat >packages/calc/sum.js <<-\JS &&
	function sum(a, b) {
	  a + b;
	}

	module.exports = sum;
	JS
	cat >packages/calc/sum.test.js <<-\JS &&
	const sum = require("./sum");

	test("adds 1 + 2 to equal 3", () => {
	  expect(sum(1, 2)).toBe(3);
	});
	JS

	cat >packages/greet/greet.js <<-\JS &&
	function greet(name) {
	  `Hello, ${name}!`;
	}

	module.exports = greet;
	JS
	cat >packages/greet/greet.test.js <<-\JS &&
	const greet = require("./greet");

	test("greets Ann", () => {
	  expect(greet("Ann")).toBe("Hello, Ann!");
	});
	JS

	cat >packages/cart/cart.js <<-\JS &&
	function total(cart) {
	  return cart.items.reduce((t, item) => t + item.price, 0);
	}

	module.exports = total;
	JS
	cat >packages/cart/cart.test.js <<-\JS &&
	const total = require("./cart");

	test("an empty cart costs nothing", () => {
	  expect(total({})).toBe(0);
	});
	JS

	cp "$FIXTURES/eslint-project/eslint.config.js" packages/lint/ &&
	cat >packages/lint/app.js <<-\JS &&
	function render(items) {
	  const currency = "EUR";
	  return items.length;
	}

	module.exports = { render };
	JS

	git add -A &&
	git -c commit.gpgSign=false commit -q -m "four packages"
EOF

test_skip_unless_tool npx jest jq sqlite3
test_expect_success 'calc: jest fails, sum() gets its return, jest passes: one resolution' - <<-\EOF
	cd mono/packages/calc &&
	out=$(npx jest 2>&1) && exit 1 || true &&
	printf '%s\n' "$out" >"$S/out" && has "$S/out" "Received: undefined" &&
	cp "$S/out" "$S/out_calc" &&
	post PostToolUseFailure "npx jest" 1 "$out" s1 >"$S/reply" &&
	context "$S/reply" >"$S/ctx" &&
	# a first failure with nothing to add: no words at all
	test ! -s "$S/ctx" &&
	# one store for the whole repository, at its top level
	test -f ../../.callus/callus.db && test ! -e .callus &&
	pending_of packages/calc >"$S/calc.json" &&
	json "$S/calc.json" '.error_type == "expect.toBe" and .files == ["packages/calc/sum.test.js"]' &&

	sed -i "s/^  a + b;/  return a + b;/" sum.js &&
	out=$(npx jest 2>&1) &&
	post PostToolUse "npx jest" 0 "$out" s1 >"$S/reply" &&
	context "$S/reply" >"$S/ctx" &&
	has "$S/ctx" "jest passes; the fix is kept in note" &&
	has "$S/ctx" "Edited sum() in packages/calc/sum.js (+1 -1)" &&
	"$CALLUS" resolutions --json >"$S/r.json" &&
	json "$S/r.json" 'length == 1 and .[0].id == 1 and .[0].files == ["packages/calc/sum.js"]' &&
	"$CALLUS" resolutions show 1 --json >"$S/r1.json" &&
	json "$S/r1.json" --slurpfile c "$S/calc.json" \
		'.signature_id == $c[0].signature_id and .success_count == 1' &&
	"$CALLUS" resolutions show 1 >"$S/show" &&
	has "$S/show" "+  return a + b;"
EOF

test_skip_unless_tool npx jest jq sqlite3
test_expect_success 'greet: the same mistake, another signature; the hook names fix #1' - <<-\EOF
	cd mono/packages/greet &&
	out=$(npx jest 2>&1) && exit 1 || true &&
	printf '%s\n' "$out" >"$S/out" && has "$S/out" "Received: undefined" &&
	post PostToolUseFailure "npx jest" 1 "$out" s2 >"$S/reply" &&
	context "$S/reply" >"$S/ctx" &&
	has "$S/ctx" "what fixed errors like this before" &&
	has "$S/ctx" "(worked 1 of 1 time, session)" &&
	has "$S/ctx" "  +  return a + b;" &&

	# not the same signature: the fix was found by similarity
	pending_of packages/greet >"$S/greet.json" &&
	sig_a=$(jq -r .signature_id "$S/calc.json") &&
	sig_b=$(jq -r .signature_id "$S/greet.json") &&
	if test -z "$sig_a" || test -z "$sig_b" || test "$sig_a" = "$sig_b"; then
		echo "the signatures should be two: calc $sig_a, greet $sig_b"
		false
	fi &&
	json "$S/greet.json" '.error_type == "expect.toBe"' &&
	# stored as analysed: the stack frames are part of the signature
	"$CALLUS" analyze --command "npx jest" --exit-code 1 <"$S/out" >"$S/analyzed.json" &&
	is "the analysed signature" "$(jq -r '.signatures[0].id' "$S/analyzed.json")" "$sig_b" &&
	sql "SELECT stack_patterns FROM signatures WHERE id = '$sig_b'" >"$S/stack_b" &&
	has "$S/stack_b" "greet.test.js" &&
	"$CALLUS" analyze --command "npx jest" --exit-code 1 <"$S/out_calc" >"$S/analyzed_a.json" &&
	is "calc's analysed signature" "$(jq -r '.signatures[0].id' "$S/analyzed_a.json")" "$sig_a" &&
	jq -r '.signatures[0].message_pattern' "$S/analyzed_a.json" >"$S/pat_a" &&
	jq -r '.signatures[0].message_pattern' "$S/analyzed.json" >"$S/pat_b" &&
	# the store keeps neither: each is the one its original makes
	is "patterns kept" "$(sql "SELECT count(*) FROM signatures WHERE message_pattern <> ''")" 0 &&
	has "$S/pat_a" "Expected:\s+(?#num)" && lacks "$S/pat_a" "(?#str)" &&
	has "$S/pat_b" "Expected:\s+(?#str)" && lacks "$S/pat_b" "(?#num)" &&
	has "$S/pat_b" "Received:\s+undefined" &&
	# nor one linked to it as a near-duplicate (CALLUS_MATCH_DUPLICATE)
	is "signatures linked" "$(sql "SELECT count(*) FROM signature_links")" 0 &&
	# the suggestion kept for the pending error: its confidence is the
	# similarity here (success rate 1, the same context, a fix seconds
	# old): at least the match threshold 0.85, below 1 (not the same id)
	pid=$(jq -r .id "$S/greet.json") &&
	conf=$(sql "SELECT confidence FROM suggestions WHERE pending_id = $pid AND resolution_id = 1") &&
	test_info "similarity of the two signatures (the suggestion's confidence): $conf" &&
	awk -v c="$conf" 'BEGIN { exit !(c >= 0.85 && c < 1) }'
EOF

test_skip_unless_tool npx jest jq sqlite3
test_expect_success 'greet: callus run names fix #1 too; the fix of greet() credits it' - <<-\EOF
	cd mono/packages/greet &&
	test_expect_code 1 "$CALLUS" run -- npx jest >/dev/null 2>"$S/err" &&
	has "$S/err" "callus:   +  return a + b;" &&
	pending_of packages/greet >"$S/greet.json" &&
	json "$S/greet.json" '.attempts == 2' &&
	sed -i 's/^  `Hello/  return `Hello/' greet.js &&
	"$CALLUS" run -- npx jest >/dev/null 2>"$S/err" &&
	has "$S/err" "jest passes; the fix is kept in note" &&
	has "$S/err" "Edited greet() in packages/greet/greet.js (+1 -1)" &&
	"$CALLUS" resolutions show 1 --json >"$S/r1.json" &&
	json "$S/r1.json" '.application_count == 2 and .success_count == 2' &&
	"$CALLUS" resolutions show 2 >"$S/show" &&
	has "$S/show" '+  return `Hello, ${name}!`;'
EOF

test_skip_unless_tool npx jest jq sqlite3
test_expect_success 'cart: an unrelated jest error gets no past fix; the miss is logged' - <<-\EOF
	cd mono/packages/cart &&
	out=$(npx jest 2>&1) && exit 1 || true &&
	printf '%s\n' "$out" >"$S/out" &&
	has "$S/out" "TypeError: Cannot read properties of undefined" &&
	post PostToolUseFailure "npx jest" 1 "$out" s3 >"$S/reply" &&
	context "$S/reply" >"$S/ctx" &&
	# a first failure with nothing to add: no words at all
	test ! -s "$S/ctx" &&
	test_expect_code 1 "$CALLUS" run -- npx jest >/dev/null 2>"$S/err" &&
	has "$S/err" "lesson" &&
	lacks "$S/err" "what fixed errors" && lacks "$S/err" "past fix" &&
	pending_of packages/cart >"$S/cart.json" &&
	jq -c --slurpfile c "$S/cart.json" \
		'select(.event == "match_miss" and .signature == $c[0].signature_id)' \
		../../.callus/log.jsonl >"$S/miss" &&
	is "misses logged for the cart error" "$(wc -l <"$S/miss")" 1 &&
	is "suggestions for the cart error" \
		"$(sql "SELECT count(*) FROM suggestions WHERE pending_id = $(jq .id "$S/cart.json")")" 0
EOF

test_skip_unless_tool npx eslint jq sqlite3
test_expect_success 'lint: an eslint error (another tool) gets no past fix' - <<-\EOF
	cd mono/packages/lint &&
	out=$(npx eslint . 2>&1) && exit 1 || true &&
	printf '%s\n' "$out" >"$S/out" && has "$S/out" "no-unused-vars" &&
	post PostToolUseFailure "npx eslint ." 1 "$out" s4 >"$S/reply" &&
	context "$S/reply" >"$S/ctx" &&
	test ! -s "$S/ctx" &&
	test_expect_code 1 "$CALLUS" run -- npx eslint . >/dev/null 2>"$S/err" &&
	has "$S/err" "lesson" &&
	lacks "$S/err" "what fixed errors" && lacks "$S/err" "past fix" &&
	pending_of packages/lint >"$S/lint.json" &&
	json "$S/lint.json" '.error_type == "no-unused-vars"' &&
	# the one suggestion ever made: fix #1, for greet
	is "suggestions made, resolution" \
		"$(sql "SELECT count(*) || ' ' || min(resolution_id) FROM suggestions")" "1 1"
EOF

test_done
