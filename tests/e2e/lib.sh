# shellcheck shell=bash
# lib.sh - harness for callus's end-to-end tests, in the style of git's
# t/test-lib.sh.  A test script is
#
#	#!/bin/bash
#	test_description='what this script covers'
#	. "$(dirname "$0")/lib.sh"
#
#	test_expect_success 'title' '
#		"$CALLUS" run -- true
#	'
#	test_done
#
# Each script gets a private directory (removed at the end unless
# CALLUS_TEST_KEEP=1) holding trash/ (where every test starts), home/ ($HOME:
# the real one is never touched) and tmp/ ($TMPDIR).  Each test body runs in a
# subshell with `set -e`, stdin from /dev/null, output captured and shown only
# when the test fails (or with -v / CALLUS_TEST_VERBOSE=1), and a time limit
# (CALLUS_TEST_TIMEOUT seconds, default 300).  Write a body as one && chain (git
# style) or as plain lines: `set -e` does not stop at a failure inside an &&
# chain that is not the body's last command.  A body given as '-' is read from
# standard input (a quoted here-document), for bodies that need single quotes.
# State carries over from test to test in the trash directory, as in git.
#
# Helpers: test_cmp, test_must_fail, test_expect_code, test_must_be_empty,
# test_info (a measurement to print), setup_fixture / fix_fixture (the
# projects in tests/fixtures, see its README), test_skip_unless_tool and
# test_skip (each applies to the next test only).
#
# Exported for the bodies:
#   CALLUS      the callus binary: $CALLUS_BIN if set (relative paths are taken from
#             the repository root), else build/callus
#   REPO      the repository root
#   TOOLS     tests/tools/node_modules/.bin (eslint, jest, vitest: see
#             scripts/install-test-tools.sh)
#   FIXTURES  tests/fixtures
#   TRASH_DIRECTORY  the directory every test starts in
#
# Options: -v/--verbose shows every test's output; -k/--keep keeps the
# directory (as CALLUS_TEST_KEEP=1); -h/--help prints $test_description.

if [ -z "${BASH_VERSION:-}" ]; then
	echo "lib.sh: run the tests with bash" >&2
	exit 1
fi

for _e2e_arg in "$@"; do
	case $_e2e_arg in
	-v | --verbose) CALLUS_TEST_VERBOSE=1 ;;
	-k | --keep) CALLUS_TEST_KEEP=1 ;;
	-h | --help)
		printf '%s\n' "${test_description:-}"
		exit 0
		;;
	*)
		echo "usage: $0 [-v|--verbose] [-k|--keep] [-h|--help]" >&2
		exit 1
		;;
	esac
done

TEST_NAME=$(basename "$0" .sh)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P) || exit 1
FIXTURES=$REPO/tests/fixtures
TOOLS=$REPO/tests/tools/node_modules/.bin
case ${CALLUS_BIN:=build/callus} in
/*) CALLUS=$CALLUS_BIN ;;
*) CALLUS=$REPO/$CALLUS_BIN ;;
esac
export REPO FIXTURES TOOLS CALLUS

TEST_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/callus-e2e.$TEST_NAME.XXXXXX") || exit 1
TEST_ROOT=$(cd "$TEST_ROOT" && pwd -P) || exit 1
TRASH_DIRECTORY=$TEST_ROOT/trash
_e2e_h=$TEST_ROOT/.harness
mkdir "$TRASH_DIRECTORY" "$TEST_ROOT/home" "$TEST_ROOT/tmp" "$_e2e_h" || exit 1
export TRASH_DIRECTORY

# _e2e_busy: the callus and callus-git processes working under TEST_ROOT
# (their working directory there): the detached ones a hook starts (the
# queue's drainer, a snapshot it takes) can outlive the test that started
# them.
_e2e_busy() {
	local p d
	for p in $(pgrep -x 'callus(-git)?'); do
		d=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
		case $d in "$TEST_ROOT" | "$TEST_ROOT"/*) echo "$p" ;; esac
	done
}

_e2e_cleanup() {
	local i
	if [ "${CALLUS_TEST_KEEP:-}" = 1 ]; then
		echo "# kept $TEST_ROOT"
	elif [ -d "$TEST_ROOT" ]; then
		# what a detached process still writes would recreate the
		# directories removed below (up to 30 s, then removed anyway)
		for i in $(seq 1 60); do
			[ -n "$(_e2e_busy)" ] || break
			[ "$i" != 1 ] || echo "# $TEST_NAME: waiting for callus processes still working here"
			sleep 0.5
		done
		# Tests may leave read-only files behind (read-only store tests).
		# rm never follows the node_modules symlinks into tests/tools.
		chmod -R u+rwx "$TEST_ROOT" 2>/dev/null
		rm -rf "$TEST_ROOT"
	fi
}
_e2e_done=
# Only the script's own shell cleans up.  A subshell just forked still has
# this trap until it resets its traps; a TERM in that window (the watchdog
# of a test body that ended at once, _e2e_run_body) made bash run it there:
# the directory went from under the next test ("Bail out!" in t0018, on a
# loaded machine).
_e2e_main=$BASHPID _e2e_rc=0
trap '_e2e_rc=$?; [ "$BASHPID" = "$_e2e_main" ] || exit "$_e2e_rc"; [ -n "$_e2e_done" ] ||
	echo "# $TEST_NAME: stopped before test_done" >&2; _e2e_cleanup' EXIT

# A clean, private environment: nothing from the user's or CI's own setup.
export HOME=$TEST_ROOT/home TMPDIR=$TEST_ROOT/tmp
export XDG_CONFIG_HOME=$HOME/.config XDG_DATA_HOME=$HOME/.local/share \
	XDG_CACHE_HOME=$HOME/.cache XDG_STATE_HOME=$HOME/.local/state
export LC_ALL=C LANG=C TZ=UTC
unset CDPATH GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY \
	GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT NODE_OPTIONS NODE_PATH \
	FORCE_COLOR NPM_CONFIG_PREFIX
for _e2e_v in $(compgen -e); do
	case $_e2e_v in
	CALLUS_BIN | CALLUS_TEST_*) ;;
	CALLUS_*) unset "$_e2e_v" ;;
	esac
done
export GIT_CONFIG_NOSYSTEM=1 GIT_CEILING_DIRECTORIES=$TEST_ROOT
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com \
	GIT_AUTHOR_DATE='1112911993 +0000' \
	GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=committer@example.com \
	GIT_COMMITTER_DATE='1112911993 +0000'

test_count=0
test_passed=0
test_failed=0
test_skipped=0
_e2e_skip_next=
_e2e_fail_next=

[ -x "$CALLUS" ] || echo "# warning: $CALLUS is not an executable file (make? CALLUS_BIN?)"

# Prefixes each line of stdin for TAP, keeping it printable and short.
_e2e_comment() {
	LC_ALL=C tr -c '[:print:]\t\n' '?' | cut -c 1-300 | sed 's/^/#   /'
}

# Prints process $1 and all its descendants, parents first.
_e2e_tree() {
	local child
	echo "$1"
	for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		_e2e_tree "$child"
	done
}

# Sends signal $2 to process $1 and all its descendants, parents first (so
# that a parent does not go on to its next command when its child dies).
_e2e_kill_tree() {
	local pids
	pids=$(_e2e_tree "$1")
	# shellcheck disable=SC2086 # a list of pids
	kill "-$2" $pids 2>/dev/null
}

# The body's ERR trap: says where `set -e` stopped the body (for a helper that
# returned 1, the body line that called it).
_e2e_err() {
	local rc=$1 n text
	if [ "${FUNCNAME[1]}" != _e2e_run_body ]; then
		text="in ${FUNCNAME[1]}: $3"
	elif [ "$3" = "eval \"\$_e2e_body\"" ]; then
		text="the body's last command list"
	else
		n=$(($2 - _e2e_line + 1))
		text=$(sed -n "${n}{s/^[[:space:]]*//;p;}" <<<"$_e2e_body")
		text="line $n: ${text:-$3}"
	fi
	printf '%s (exit %s)\n' "$text" "$rc" >"$_e2e_h/failed-command"
}

# A body's line "! cmd" (a pipeline too) stops nothing under `set -e`: bash
# never exits for a pipeline that "!" inverts.  Only the body's last command
# is checked by its status, so anywhere else such a line is an assertion
# that cannot fail.  Prints the first one of body $1, if any: a line of its
# own that is not the body's last, nor a function's or a group's (before a
# line starting with '}'), nor continued (&&, ||, |, \).
_e2e_lint_body() {
	local line prev=
	while IFS= read -r line; do
		line=${line#"${line%%[![:space:]]*}"}
		case $line in '' | '#'*) continue ;; esac
		# a function's or a group's last command is checked by its call
		case $line in '}'*) prev=$line && continue ;; esac
		case $prev in
		'! '*'&&' | '! '*'||'* | '! '*'|' | '! '*\\) ;;
		'! '*)
			printf '%s\n' "$prev"
			return
			;;
		esac
		prev=$line
	done <<<"$1"
}

# Runs body $1 in a subshell; returns its status.  The body runs in the
# foreground (a background job would start with SIGINT and SIGQUIT ignored);
# a watchdog in the background ends it after CALLUS_TEST_TIMEOUT seconds.
_e2e_run_body() {
	local - wd rc

	set +e
	: >"$_e2e_h/failed-command"
	: >"$_e2e_h/pid"
	rm -f "$_e2e_h/timed-out"
	(
		sleep "${CALLUS_TEST_TIMEOUT:-300}"
		echo "timed out after ${CALLUS_TEST_TIMEOUT:-300}s (CALLUS_TEST_TIMEOUT)" \
			>"$_e2e_h/timed-out"
		read -r pid <"$_e2e_h/pid" && [ -n "$pid" ] || exit 0
		_e2e_kill_tree "$pid" TERM
		sleep 2
		_e2e_kill_tree "$pid" KILL
	) >/dev/null 2>&1 </dev/null &
	wd=$!
	# The braces catch the shell's own "Terminated" notice too.
	{ (
		echo "$BASHPID" >"$_e2e_h/pid"
		_e2e_body=$1
		trap '_e2e_err "$?" "$LINENO" "$BASH_COMMAND"' ERR
		set -eE
		cd "$TRASH_DIRECTORY"
		_e2e_line=$LINENO; eval "$_e2e_body"
	); } >"$_e2e_h/out" 2>&1 </dev/null
	rc=$? # not `|| rc=$?`: that too would turn `set -e` off in the body
	_e2e_kill_tree "$wd" TERM
	wait "$wd" 2>/dev/null
	[ ! -f "$_e2e_h/timed-out" ] || mv "$_e2e_h/timed-out" "$_e2e_h/failed-command"
	return "$rc"
}

# test_expect_success TITLE BODY: runs BODY (or stdin, if BODY is -) as test
# number N and prints "ok N - TITLE" or "not ok N - TITLE" with the failing
# command and its output.
test_expect_success() {
	local title=$1 body=${2-} rc

	if [ $# -ne 2 ]; then
		echo "bug in the test script: test_expect_success TITLE BODY" >&2
		exit 1
	fi
	[ "$body" != - ] || body=$(cat)
	if [ ! -d "$_e2e_h" ]; then
		echo "Bail out! $TEST_ROOT was removed from under the tests"
		exit 1
	fi
	test_count=$((test_count + 1))
	if [ -n "$_e2e_fail_next" ]; then
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $title # $_e2e_fail_next"
		_e2e_fail_next=
		_e2e_skip_next=
		return 0
	fi
	if [ -n "$_e2e_skip_next" ]; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $title ($_e2e_skip_next)"
		_e2e_skip_next=
		return 0
	fi
	# CALLUS_TEST_ONLY=REGEX, by hand: only the tests whose titles match
	# it (a test that needs an earlier one's folder fails without it)
	if [ -n "${CALLUS_TEST_ONLY:-}" ] &&
		! printf "%s\n" "$title" | grep -Eq -- "$CALLUS_TEST_ONLY"; then
		test_skipped=$((test_skipped + 1))
		echo "ok $test_count # skip $title (CALLUS_TEST_ONLY)"
		return 0
	fi
	: >"$_e2e_h/info"
	local bang
	bang=$(_e2e_lint_body "$body")
	if [ -n "$bang" ]; then
		printf "bug in the test script: '%s' checks nothing but as the body's last" \
			"$bang" >"$_e2e_h/failed-command"
		printf " command (set -e ignores a failing '! cmd'): write '! cmd || false'\n" \
			>>"$_e2e_h/failed-command"
		: >"$_e2e_h/out"
		rc=1
	else
		# Not `if _e2e_run_body`: a condition would turn `set -e` off in the body.
		_e2e_run_body "$body"
		rc=$?
	fi
	if [ "$rc" -eq 0 ]; then
		test_passed=$((test_passed + 1))
		echo "ok $test_count - $title"
		[ "${CALLUS_TEST_VERBOSE:-}" != 1 ] || _e2e_comment <"$_e2e_h/out"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $title"
		if [ -s "$_e2e_h/failed-command" ]; then
			sed 's/^/failed: /' "$_e2e_h/failed-command" | _e2e_comment
		fi
		if [ "${CALLUS_TEST_VERBOSE:-}" = 1 ]; then
			_e2e_comment <"$_e2e_h/out"
		else
			tail -n 40 "$_e2e_h/out" | _e2e_comment
		fi
	fi
	sed 's/^/# /' "$_e2e_h/info"
	return 0
}

# test_done: prints the plan and the summary line, cleans up, exits non-zero
# if a test failed.
test_done() {
	_e2e_done=1
	echo "1..$test_count"
	[ "$test_skipped" -eq 0 ] || echo "# $test_skipped skipped"
	echo "$test_passed passed, $test_failed failed"
	[ "$test_failed" -eq 0 ]
	exit
}

# test_have_tool NAME: true if NAME is an executable path (has a /), an npm
# tool in $TOOLS (with node on PATH), or a command on PATH.
test_have_tool() {
	case $1 in
	*/*) [ -x "$1" ] ;;
	*)
		if [ -x "$TOOLS/$1" ]; then
			command -v node >/dev/null 2>&1
		else
			command -v "$1" >/dev/null 2>&1
		fi
		;;
	esac
}

# test_skip_unless_tool NAME...: the next test is skipped unless every NAME is
# there (see test_have_tool).  In CI (env CI set) a missing tool fails the
# test instead: real-tool tests must never quietly stop running.
test_skip_unless_tool() {
	local t missing=
	for t in "$@"; do
		test_have_tool "$t" || missing="$missing $t"
	done
	[ -n "$missing" ] || return 0
	if [ -n "${CI:-}" ]; then
		_e2e_fail_next="missing:$missing (CI is set; run scripts/install-deps.sh)"
	else
		_e2e_skip_next="missing:$missing"
	fi
}

# test_skip REASON: the next test is skipped (e.g. when an env var asks).
test_skip() {
	_e2e_skip_next=$1
}

# Helpers for the bodies.  Each prints why it failed and returns 1.

# jq ARGS...: jq, but with -e (--exit-status) an input with no value at all
# fails (status 4, as jq 1.7 has it): Debian 12's jq 1.6 exits 0 there, so
# that a check of a file a command left empty (`jq -e ".x == 1" out`)
# passed.
jq() {
	local a out rc
	for a in "$@"; do
		case $a in
		--exit-status | -e | -[a-zA-Z]*e*)
			out=$(command jq "$@")
			rc=$?
			if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
				echo "jq: no value in the input (jq $*)" >&2
				return 4
			fi
			[ -z "$out" ] || printf '%s\n' "$out"
			return "$rc"
			;;
		esac
	done
	command jq "$@"
}

# test_cmp EXPECTED ACTUAL
test_cmp() {
	if ! diff -u "$1" "$2"; then
		return 1
	fi
}

# test_must_be_empty FILE
test_must_be_empty() {
	if [ -s "$1" ]; then
		echo "'$1' should be empty but contains:"
		head -c 2000 "$1"
		return 1
	fi
}

# test_must_fail CMD...: CMD must exit non-zero, but not by a signal, 126
# or 127 (which mean it crashed or did not run at all).
test_must_fail() {
	local rc=0
	"$@" || rc=$?
	if [ "$rc" -eq 0 ]; then
		echo "test_must_fail: command succeeded: $*" >&2
		return 1
	elif [ "$rc" -gt 128 ]; then
		echo "test_must_fail: died of signal $((rc - 128)): $*" >&2
		return 1
	elif [ "$rc" -eq 126 ] || [ "$rc" -eq 127 ]; then
		echo "test_must_fail: could not run ($rc): $*" >&2
		return 1
	fi
}

# test_expect_code CODE CMD...: CMD must exit with status CODE.
test_expect_code() {
	local want=$1 rc=0
	shift
	"$@" || rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "test_expect_code: exit status $rc, expected $want: $*" >&2
		return 1
	fi
}

# test_info TEXT...: prints "# TEXT" after the test's result line (a
# measurement, say), whether it passed or not.
test_info() {
	printf '%s\n' "$*" >>"$_e2e_h/info"
}

# Links tests/tools/node_modules into $1/node_modules entry by entry, so that
# what tools write there (vitest's cache) stays in the test's directory.
_e2e_link_tools() {
	local src=$REPO/tests/tools/node_modules
	if [ ! -d "$src" ]; then
		echo "# setup_fixture: $src missing (scripts/install-test-tools.sh)" >&2
		return 0
	fi
	# one ln for all of them: a process per entry (nearly 500) made this
	# a tenth of the end-to-end tests' CPU time
	mkdir -p "$1/node_modules" && ln -s "$src"/* "$src"/.bin "$1/node_modules/"
}

# setup_fixture NAME [DIR]: copies tests/fixtures/NAME to DIR (default NAME,
# relative to the current directory), makes it a git repository with one
# commit (fixed author and date), and links the test tools in as its
# node_modules, so `node_modules/.bin/eslint .`, `npm test` and `npx jest`
# work in it as in a real project.
setup_fixture() {
	local name=$1 dir=${2:-$1}
	if [ ! -d "$FIXTURES/$name" ]; then
		echo "setup_fixture: no fixture '$name' in $FIXTURES" >&2
		return 1
	fi
	if [ -e "$dir" ]; then
		echo "setup_fixture: '$dir' already exists" >&2
		return 1
	fi
	cp -R "$FIXTURES/$name" "$dir" || return 1
	(
		cd "$dir" &&
			git -c init.defaultBranch=main init -q &&
			git add -A &&
			git -c commit.gpgSign=false commit -q -m "$name fixture"
	) || return 1
	_e2e_link_tools "$dir"
}

# fix_fixture NAME [DIR]: copies tests/fixtures/NAME.fixed/ over DIR (default
# NAME), which makes its check pass.
fix_fixture() {
	local name=$1 dir=${2:-$1}
	if [ ! -d "$FIXTURES/$name.fixed" ]; then
		echo "fix_fixture: no '$name.fixed' in $FIXTURES" >&2
		return 1
	fi
	cp -R "$FIXTURES/$name.fixed/." "$dir/" || return 1
}

cd "$TRASH_DIRECTORY" || exit 1

# until_true CMD...: CMD, tried for up to 15 s (what a detached callus
# does, seen done: CMD's words are read once, so a count read anew each
# time goes through eval)
until_true() {
	for _ in $(seq 1 300); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}

# hold_store SECONDS: another process holds the write lock of the current
# directory's .callus/callus.db for SECONDS from now, in the background
# (`wait` for it); returns once the lock is held, non-zero if it never is.
# Written `hold_store N &&`: a list ended by `&` would put all of its
# commands in the background, unchecked.
hold_store() {
	rm -f store.held &&
		{ { printf ".timeout 10000\nBEGIN EXCLUSIVE;\n.shell touch store.held\n"
		    sleep "$1"; printf "COMMIT;\n"; } | sqlite3 -bail .callus/callus.db >/dev/null & } &&
		for _ in $(seq 1 100); do test -e store.held && break; sleep 0.1; done &&
		rm store.held
}

# flip FILE OFFSET: one byte of FILE changed in place
flip() {
	python3 -c 'import sys
f, at = sys.argv[1], int(sys.argv[2])
with open(f, "r+b") as h:
    h.seek(at); b = h.read(1)[0]; h.seek(at); h.write(bytes([(b + 3) % 256]))' "$1" "$2"
}
