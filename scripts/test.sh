#!/bin/bash
# test.sh - the whole test suite, as `make check` (and so .ci/run) runs it.
#
# First the documents' relative links (tests/docs/links.py) and the
# benchmarks' copy of a kept store (tests/bench/copy_store.sh).  Then twice: a
# release build in build/, then an ASan+UBSan build in build-asan/.  Each
# time: build callus (the release build's code laid out as
# cli/text-order.ld and helper/text-order.ld say: tests/link/text_order.py),
# build and run every unit test binary (the release pass runs five of them
# again under valgrind's memcheck), replay every fuzz corpus (fuzz/corpus/X
# through build*/fuzz/fuzz_X), score that build's callus on the corpus of
# real tool outputs (tests/corpus/check.sh; the release pass writes
# docs/accuracy.md, and its summary is printed) and
# measure the suggestions on the corpus's signatures, leave one out
# (tests/corpus/match_eval.sh; the release pass writes docs/match-quality.md,
# and its bars are printed), beside the first end-to-end script that runs
# alone, then run the other end-to-end tests (tests/e2e/run.sh, one script a
# processor at a time) against that build's callus.  Output of a step is
# shown only when it fails.  Ends with "N passed, N failed" over unit test
# binaries, fuzz corpora, end-to-end tests and builds that failed, and exits
# non-zero on any failure.
#
# Environment: CALLUS_TEST_SKIP_ASAN=1 skips the sanitizer pass (a quick local
# run; CI never sets it).  A missed accuracy bar fails the accuracy step
# (CALLUS_ACCURACY_ENFORCE=0 only reports it; a crash of callus analyze on the
# corpus fails it either way); CALLUS_MATCH_ENFORCE=0 likewise for the
# suggestion bars.  Under ASan, CALLUS_TEST_SKIP_HUGE=1: the 1 GB streaming
# tests are skipped (too slow there, and RSS means little with ASan), and
# t0019's formats and t0022's hooks are sampled; the scripts of t0009 and of
# the agent CLIs are left to the release pass (see suite()).  Each stage's
# time and each end-to-end script's are printed: the suite has 25 minutes on
# two cores.
set -u

cd "$(dirname "$0")/.." || exit 1

jobs=$(nproc 2>/dev/null || echo 2)
passed=0
failed=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

pass() {
	passed=$((passed + 1))
	echo "ok - $*"
}

fail() {
	failed=$((failed + 1))
	echo "not ok - $*"
}

# show_log FILE: the tail of a failed step's output, indented.
show_log() {
	tail -n 80 "$1" | sed 's/^/    /'
}

# lap WHAT: how long WHAT took, since the last lap (the suite has a time
# limit: where it goes, on every run)
lap_at=$SECONDS
lap() {
	echo "# $1 took $((SECONDS - lap_at)) s"
	lap_at=$SECONDS
}

# step TITLE CMD...: runs CMD quietly; on failure counts it and shows why.
step() {
	local title=$1
	shift
	if "$@" >"$tmp/log" 2>&1; then
		return 0
	fi
	fail "$title"
	show_log "$tmp/log"
	return 1
}

# scratch_dir: where throwaway stores go: /dev/shm when it is writable with
# 256 MB free, else $TMPDIR or /tmp.  match_eval's rounds each learn a copy
# of a store and ask it one question; on a disk, creating and syncing their
# files took near half of their time (the release pass's rounds: 225 s on
# the disk, 133 s on tmpfs, on this project's 2-core machine).
scratch_dir() {
	local free
	free=$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
	if [ -d /dev/shm ] && [ -w /dev/shm ] && [ "${free:-0}" -ge 262144 ]; then
		echo /dev/shm
	else
		echo "${TMPDIR:-/tmp}"
	fi
}

# Uninitialised reads, which AddressSanitizer does not see (gcc has no
# MemorySanitizer): valgrind's memcheck over the unit tests of the store,
# its retention and the files beside it ($jobs at a time, about a minute
# in all).  A forced rewrite of .callus/checks.idx once closed a list it
# had never opened, unmapping whatever its uninitialised pointer named.
# Without --track-origins, which finds the same errors and near doubled
# the stage's time (test_gc: 97 s with it, 56 s without, on two slow
# cores): a test that fails is run again with it, for where the value
# came from.  test_gc, four fifths of the work (80 s of it under valgrind),
# runs as two halves side by side: the tests whose names start with "a",
# and the rest (TEST@GLOB runs TEST's tests matching GLOB, TEST@-GLOB the
# others: CALLUS_TEST_FILTER and CALLUS_TEST_SKIP, tests/unit/test_gc.c).
# The longest first, so that none starts last while the other core idles:
# under valgrind, one at a time, the halves took 65 and 52 s, test_store
# 28, test_record 7, the other two a second each: started last, as it
# was, test_store ran some 25 s with the other core idle.
MEMCHECK_TESTS=("test_gc@-a*" "test_gc@a*" test_store test_record test_views test_hook_spool)
# memcheck_run BUILD ENTRY [VALGRIND_ARGS...]: one entry of MEMCHECK_TESTS
memcheck_run() {
	local build=$1 x=$2 filter=
	shift 2
	[ "$x" != "${x#*@}" ] && filter=${x#*@}
	case $filter in
	"") set -- valgrind "$@" ;;
	-*) set -- env CALLUS_TEST_SKIP="${filter#-}" valgrind "$@" ;;
	*) set -- env CALLUS_TEST_FILTER="$filter" valgrind "$@" ;;
	esac
	"$@" -q --error-exitcode=99 "$build/tests/${x%%@*}" </dev/null
}
memcheck() {
	local build=$1 x i
	if ! command -v valgrind >/dev/null; then
		if [ -n "${CI:-}" ]; then fail "memcheck: no valgrind"; else echo "# memcheck skipped: no valgrind"; fi
		return 0
	fi
	i=0
	for x in "${MEMCHECK_TESTS[@]}"; do
		i=$((i + 1))
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		(memcheck_run "$build" "$x" >"$tmp/mc-$i.log" 2>&1; echo $? >"$tmp/mc-$i.rc") &
	done
	wait
	i=0
	for x in "${MEMCHECK_TESTS[@]}"; do
		i=$((i + 1))
		if [ "$(cat "$tmp/mc-$i.rc" 2>/dev/null)" = 0 ]; then
			pass "memcheck: unit $x"
		else
			fail "memcheck: unit $x (status $(cat "$tmp/mc-$i.rc" 2>/dev/null))"
			show_log "$tmp/mc-$i.log"
			memcheck_run "$build" "$x" --track-origins=yes >"$tmp/mc-$i.origins" 2>&1
			echo "    run again with --track-origins=yes (status $?):"
			show_log "$tmp/mc-$i.origins"
			rm -f "$tmp/mc-$i.origins"
		fi
		rm -f "$tmp/mc-$i.rc" "$tmp/mc-$i.log"
	done
	lap "memcheck"
}

# units_by_time BUILD: BUILD's unit test binaries, those that took longest
# in the pass before first (their times in $tmp/unit-NAME.ms), so that none
# starts last while the other core idles (the sanitizer pass's test_snapshot
# and test_vecindex, 16 and 11 s, came among the last in the names' order);
# the first pass's in the names' order.
units_by_time() {
	local t x
	for t in "$1"/tests/test_*; do
		x=${t##*/}
		printf '%s %s\n' "$(cat "$tmp/unit-$x.ms" 2>/dev/null || echo 0)" "$t"
	done | sort -k1,1nr -k2 | cut -d' ' -f2
}

# suite NAME BUILD [MAKE_ARGS...]: one full pass over one build.
suite() {
	local name=$1 build=$2 t x corpus rc scripts alone acc
	shift 2

	echo "# $name build ($build)"
	prebuild_wait
	step "$name: make" make -j"$jobs" BUILD="$build" "$@" || return 0
	# The release binaries' code in the order cli/text-order.ld and
	# helper/text-order.ld give (tests/link/text_order.py: the lists are
	# current, the links used them).
	if [ "$name" = release ] && command -v python3 >/dev/null; then
		if python3 tests/link/text_order.py "$build" >"$tmp/log" 2>&1; then
			pass "$name: the hooks' code first in .text (tests/link/text_order.py)"
		else
			fail "$name: the hooks' code not first in .text (tests/link/text_order.py)"
			show_log "$tmp/log"
		fi
	fi

	# The unit test binaries $jobs at a time (each makes its own temporary
	# directories), each into its own log; told in their order.
	if step "$name: make unit" make -j"$jobs" BUILD="$build" "$@" unit; then
		for t in $(units_by_time "$build"); do
			if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
			x=${t##*/}
			while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
			(
				start=$(date +%s%N)
				"$t" >"$tmp/unit-$x.log" 2>&1 </dev/null
				echo $? >"$tmp/unit-$x.rc"
				echo $((($(date +%s%N) - start) / 1000000)) >"$tmp/unit-$x.ms"
			) &
		done
		wait
		for t in "$build"/tests/test_*; do
			if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
			x=${t##*/}
			rc=$(cat "$tmp/unit-$x.rc" 2>/dev/null || echo none)
			if [ "$rc" = 0 ]; then
				pass "$name: unit $x"
			else
				fail "$name: unit $x (status $rc)"
				show_log "$tmp/unit-$x.log"
			fi
			rm -f "$tmp/unit-$x.rc" "$tmp/unit-$x.log"
		done
	fi
	lap "$name: build and unit tests"
	[ "$name" = release ] && [ -x "$build/tests/test_gc" ] && memcheck "$build"

	if step "$name: make fuzz" make -j"$jobs" BUILD="$build" "$@" fuzz; then
		for t in "$build"/fuzz/fuzz_*; do
			if [ ! -f "$t" ] || [ ! -x "$t" ]; then continue; fi
			x=${t##*/fuzz_}
			corpus=fuzz/corpus/$x
			if "$t" "$corpus" >"$tmp/log" 2>&1 </dev/null; then
				pass "$name: fuzz corpus $corpus ($(tail -n 1 "$tmp/log" | sed 's/.*: //'))"
			else
				rc=$?
				if [ -d "$corpus" ]; then
					fail "$name: fuzz corpus $corpus (status $rc)"
				else
					fail "$name: fuzz_$x has no corpus in $corpus"
				fi
				show_log "$tmp/log"
			fi
		done
	fi

	lap "$name: fuzz corpora"
	echo "# $name: end-to-end tests ($jobs at a time)"
	# Under the sanitizers, not the five agent CLIs' scripts (t0012,
	# t0013, t0015 to t0017): their time goes to the CLIs (node, seconds
	# a start; Cline's 39 s of the sanitizer pass), and what callus does
	# with each agent's payloads runs under the sanitizers in t0005 (a
	# failure and a pass of every agent, the replies' fields), t0014 and
	# t0018, and in test_hookio (the agents' real payloads, Codex's
	# transcript, Cline's commands) and the hookio fuzz target.  The
	# release pass runs them all.  Nor t0009: its time is jest's (fifty
	# runs, a second of CPU each: 223 of the pass's 610 s), and the
	# paths it takes through callus run under the sanitizers in t0002,
	# t0005, t0010 and t0020 (a check failing, then fixed: the snapshot,
	# the diff, the resolution) and in test_learn (permanent failures,
	# feedback, pruning) and test_snapshot.
	scripts=() alone=()
	for t in tests/e2e/t[0-9]*.sh; do
		if [ "$name" != release ]; then
			case $t in
			*-cli.sh | *t0009-learning.sh) continue ;;
			esac
		fi
		if grep -q '^# e2e: alone' "$t"; then
			alone+=("${t#tests/e2e/}")
		else
			scripts+=("${t#tests/e2e/}")
		fi
	done
	# The accuracy step runs beside the first script that runs alone
	# (tests/e2e/run.sh), t0022, whose hundreds of hooks at once are meant
	# to be cut and queued by load.  Not beside t0023: under the
	# sanitizers, with the accuracy step beside it, a queued failure lost
	# its snapshot in one run of two.  Given a slot of the end-to-end pool
	# to itself instead, until it ended, the step gained nothing: its
	# suggestion rounds keep both cores busy (132 s of CPU in 68 s).
	rm -f "$tmp"/acc-[12].rc
	accuracy "$name" "$build" "$@" &
	acc=$!
	[ ${#alone[@]} -gt 0 ] && e2e "$name" "$build" "${alone[0]}"
	wait "$acc"
	accuracy_told "$name"
	lap "$name: ${alone[0]:-no end-to-end test}, beside the accuracy and suggestion quality"
	# The other scripts that run alone (t0023) mostly wait for their
	# hooks' deadlines, store holds and queue drains (t0023: 25 s of CPU
	# in its 64 s; under ASan 97 s): the next stage's build starts beside
	# them, one compiler at a time, at the lowest priority (nice 19, idle
	# I/O), and goes on beside the pool's scripts until that stage waits
	# for it (prebuild_wait).  At normal priority, beside the sanitizer
	# build, the release t0023 failed one run of two (a hook cut at the
	# wrong step); beside the accuracy step (two cores), under ASan, one
	# of two.
	prebuild_start
	if [ ${#alone[@]} -gt 1 ]; then
		e2e "$name" "$build" "${alone[@]:1}"
		lap "$name: ${alone[*]:1}, beside the next stage's build"
	fi
	e2e "$name" "$build" "${scripts[@]}"
	lap "$name: the other end-to-end tests"
}

# next_build: the next stage's build, a make command run one job at a time
# beside t0023 (see suite()); empty when there is no next stage.
next_build=()
prebuild_pid=

prebuild_start() {
	local idle=(nice -n 19)
	[ ${#next_build[@]} -gt 0 ] || return 0
	command -v ionice >/dev/null && idle+=(ionice -c 3)
	"${idle[@]}" "${next_build[@]}" >"$tmp/prebuild.log" 2>&1 </dev/null &
	prebuild_pid=$!
}

# prebuild_wait: the build prebuild_start began, ended (before the same
# build directory's make runs again: that make then finishes it, or fails
# and shows why).
prebuild_wait() {
	[ -n "$prebuild_pid" ] || return 0
	wait "$prebuild_pid"
	prebuild_pid=
	lap "the rest of the prebuilt stage's build"
}

# e2e NAME BUILD SCRIPT...: those end-to-end scripts ($jobs at a time, but
# a script marked "# e2e: alone" with none beside it: tests/e2e/run.sh),
# against BUILD's callus; their tally added to the suite's.
e2e() {
	local name=$1 build=$2 rc summary p f
	shift 2
	CALLUS_E2E_JOBS=$jobs CALLUS_BIN=$build/callus tests/e2e/run.sh "$@" 2>&1 |
		tee "$tmp/e2e"
	rc=${PIPESTATUS[0]}
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$tmp/e2e" | tail -n 1)
	if [ -z "$summary" ]; then
		fail "$name: tests/e2e/run.sh ended (status $rc) without a summary"
		return 0
	fi
	read -r p _ f _ <<<"$summary"
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		fail "$name: tests/e2e/run.sh exited with status $rc"
	fi
}

# accuracy NAME BUILD [MAKE_ARGS...]: accuracy on tests/corpus and
# ../shared/corpus/external, then the suggestions' quality over the
# signatures it dumps.  Run in the background: each step's status goes to
# $tmp/acc-N.rc (the caller removes them first) and its output to
# $tmp/acc-N.log, told by accuracy_told.
accuracy() {
	local name=$1 build=$2 report every enforce
	shift 2
	rm -f "$tmp/signatures.json"
	if [ "$name" = release ]; then report=docs/accuracy.md; else report=$tmp/accuracy.md; fi
	CALLUS_BIN=$build/callus CALLUS_ACCURACY_REPORT=$report \
		CALLUS_ACCURACY_ENFORCE=${CALLUS_ACCURACY_ENFORCE:-1} \
		tests/corpus/check.sh --dump-signatures "$tmp/signatures.json" >"$tmp/acc-1.log" 2>&1
	echo $? >"$tmp/acc-1.rc"

	# Suggestion quality, leave one out over those signatures.  The make
	# arguments go in its environment: SAN=1 links it with the sanitizers.
	# The release pass holds out every signature and enforces the bars;
	# the sanitizer pass, there to catch memory errors and undefined
	# behaviour (status 3), holds out every twelfth (each round learns the
	# whole corpus but one signature: a twelfth of the rounds) and only
	# reports the sample's figures.  Each round also asks its question with
	# the suggestions' search cut to the newest 16 vectors and the noted
	# signatures' file, as a recording's is in a store past
	# CALLUS_MATCH_WINDOW (include/callus/match.h; match_eval.sh's
	# MATCH_EVAL_WINDOW): every fix of the corpus has a note, so the answer
	# must be the same, in both passes (status 4, never waived).  Asked in
	# the same rounds: a second run of them, to compare its report with the
	# first's, took 70 s of the release pass on two slow cores.
	if [ "$name" = release ]; then
		report=docs/match-quality.md every=1 enforce=${CALLUS_MATCH_ENFORCE:-1}
	else
		report=$tmp/match-quality.md every=12 enforce=0
	fi
	if [ ! -s "$tmp/signatures.json" ]; then
		echo "the accuracy step dumped no signatures" >"$tmp/acc-2.log"
		echo none >"$tmp/acc-2.rc"
		return
	fi
	env "$@" BUILD="$build" CALLUS_BIN="$build/callus" CALLUS_MATCH_REPORT="$report" \
		MATCH_EVAL_EVERY=$every CALLUS_MATCH_ENFORCE="$enforce" TMPDIR="$(scratch_dir)" \
		tests/corpus/match_eval.sh "$tmp/signatures.json" >"$tmp/acc-2.log" 2>&1
	echo $? >"$tmp/acc-2.rc"
}

# accuracy_told NAME: what accuracy's two steps found, counted and shown.
accuracy_told() {
	local name=$1 i rc what
	for i in 1 2; do
		if [ "$i" = 1 ]; then
			what="accuracy (tests/corpus/check.sh"
		else
			what="suggestion quality (tests/corpus/match_eval.sh"
		fi
		rc=$(cat "$tmp/acc-$i.rc" 2>/dev/null || echo none)
		if [ "$rc" = 0 ]; then
			pass "$name: $what)"
		else
			fail "$name: $what, status $rc)"
		fi
		sed 's/^/# /' "$tmp/acc-$i.log" 2>/dev/null
	done
}

# The build dependencies and the real tools for the end-to-end tests, so
# that `make check` works on a fresh clone (quick when already installed).
# Without them the real-tool tests skip, except in CI where they fail.
if ! ./scripts/install-deps.sh; then
	if [ -n "${CI:-}" ]; then
		fail "scripts/install-deps.sh"
	else
		echo "# warning: no test tools: the real-tool e2e tests will be skipped"
	fi
fi

lap "dependencies"

# The documents' relative links: each names a file that exists, and a
# heading that file has (a section renamed or moved breaks them silently).
if command -v python3 >/dev/null; then
	if python3 tests/docs/links.py >"$tmp/log" 2>&1; then
		pass "docs: every relative link leads somewhere (tests/docs/links.py)"
	else
		fail "docs: broken links (tests/docs/links.py)"
		show_log "$tmp/log"
	fi
elif [ -n "${CI:-}" ]; then
	fail "docs: no python3 to check the links"
else
	echo "# docs' links not checked: no python3"
fi

# The benchmarks' copy of a kept store: a store given as a link comes out a
# folder of its own (tests/bench/copy_store.sh), or every hook they run "on a
# copy" writes the kept store.
if sh tests/bench/copy_store.sh >"$tmp/log" 2>&1; then
	pass "bench: a store given as a link is copied, not written through (tests/bench/copy_store.sh)"
else
	fail "bench: a kept store written through its copy (tests/bench/copy_store.sh)"
	show_log "$tmp/log"
fi

fuzz_build=()
if [ "${CALLUS_TEST_SKIP_FUZZ:-}" != 1 ] && command -v clang >/dev/null; then
	fuzz_build=(make -j1 CC=clang BUILD=build-fuzz SAN=1 FUZZ=1 fuzz-libfuzzer)
fi

if [ "${CALLUS_TEST_SKIP_ASAN:-}" = 1 ]; then
	next_build=("${fuzz_build[@]}")
else
	next_build=(make -j1 BUILD=build-asan SAN=1 all unit fuzz)
fi
suite release build

if [ "${CALLUS_TEST_SKIP_ASAN:-}" = 1 ]; then
	echo "# sanitizer build skipped (CALLUS_TEST_SKIP_ASAN=1)"
else
	export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
	next_build=("${fuzz_build[@]}")
	CALLUS_TEST_SKIP_HUGE=1 suite asan build-asan SAN=1
fi

# A bounded fuzzing run: each target for CALLUS_FUZZ_RUNS inputs (1000, for
# the suite's 25 minutes on two slow cores; set it higher for a longer
# search) from its corpus, over the coverage-compiled library (clang only).
# A fixed seed and a count, not a time: a run of the same length on any
# machine.
# Not the same inputs on every run: the targets' coverage differs between
# runs (addresses reach their comparisons; runs differ with ASLR off too),
# so a finding may show on one run in several; a failure prints the report
# and, when small, the input itself, to be replayed from the log.  The
# targets run $jobs at a time (each is one thread), each into its own log;
# their results are then told in the targets' order.
fuzz_one() {
	local t=$1 x=$2 runs=$3 seed=$4 work=$tmp/fuzz-$2
	rm -rf "$work" && mkdir -p "$work" || return 1
	# The seeds named in one order, not read from a directory: the
	# order readdir gives differs between file systems.
	printf '%s\n' "$PWD/fuzz/corpus/$x"/* | LC_ALL=C sort | paste -sd, - |
		tr -d '\n' >"$tmp/seeds-$x"
	"$t" -runs="$runs" -seed="$seed" -timeout=10 -rss_limit_mb=2048 \
		-seed_inputs=@"$tmp/seeds-$x" -artifact_prefix="$tmp/crash-$x-" \
		"$work" >"$tmp/fuzz-$x.log" 2>&1 </dev/null
}

# fuzz_targets: the targets, the largest seed corpus first.  A target's time
# goes with its corpus (each input runs every parser of the family): the
# native parsers' (210 KB) took 57 s of 1000 runs, the other eight 1 to 4 s
# each but the JS parsers' (27 s).  Started last, as the names' order had
# it, the native parsers' run left the other core idle for half its time.
fuzz_targets() {
	local t x
	for t in build-fuzz/fuzz/lf_fuzz_*; do
		x=${t##*/lf_fuzz_}
		printf '%s %s\n' "$(du -sb "fuzz/corpus/$x" 2>/dev/null | cut -f1)" "$t"
	done | sort -k1,1nr -k2 | cut -d' ' -f2
}

fuzz_bounded() {
	local c t x rc runs=${CALLUS_FUZZ_RUNS:-1000} seed=${CALLUS_FUZZ_SEED:-1}
	if ! command -v clang >/dev/null; then
		echo "# bounded fuzzing skipped: no clang"
		return 0
	fi
	echo "# bounded fuzzing ($runs inputs per target, seed $seed, $jobs at a time)"
	prebuild_wait
	step "fuzz: make fuzz-libfuzzer" make -j"$jobs" CC=clang BUILD=build-fuzz SAN=1 FUZZ=1 \
		fuzz-libfuzzer || return 0
	for t in $(fuzz_targets); do
		x=${t##*/lf_fuzz_}
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
		(fuzz_one "$t" "$x" "$runs" "$seed"; echo $? >"$tmp/fuzz-$x.rc") &
	done
	wait
	for t in build-fuzz/fuzz/lf_fuzz_*; do
		x=${t##*/lf_fuzz_}
		rc=$(cat "$tmp/fuzz-$x.rc" 2>/dev/null || echo "none")
		if [ "$rc" = 0 ]; then
			pass "fuzz: $x, $runs inputs ($(grep -o 'cov: [0-9]* ft: [0-9]*' "$tmp/fuzz-$x.log" | tail -n 1))"
			continue
		fi
		fail "fuzz: $x (status $rc; the input is in $tmp/crash-$x-*)"
		# The report, not the progress lines before it: a tail of the
		# log can be all "#N NEW ..." lines.
		grep -vE '^#[0-9]+[[:space:]]' "$tmp/fuzz-$x.log" >"$tmp/report"
		show_log "$tmp/report"
		for c in "$tmp/crash-$x-"*; do
			[ -f "$c" ] && [ "$(stat -c %s "$c")" -le 16384 ] &&
				echo "    ${c##*/} (base64): $(base64 -w 0 "$c")"
		done
	done
}
[ "${CALLUS_TEST_SKIP_FUZZ:-}" = 1 ] || fuzz_bounded
lap "bounded fuzzing"
echo "# the whole suite took $SECONDS s"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
