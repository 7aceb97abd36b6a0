#!/bin/bash
# run.sh - runs the end-to-end test scripts (all tests/e2e/t[0-9]*.sh, or
# those named) and prints the total as "N passed, N failed".  A script that
# ends without its own summary line counts as one failure.
#
# CALLUS_E2E_JOBS scripts run at a time (default 1); each script's output is
# shown whole, in the order they run, when it ends and those before it have
# been shown.  The scripts share nothing (each has its own directory, $HOME
# and loopback ports), so the order they run in does not matter to them; but
# a script with a line "# e2e: alone" runs with none beside it: one that
# loads the machine (hundreds of processes at once) would push the
# time-bounded steps of the script beside it (a snapshot's 3 s) past their
# bounds.  The order matters to the suite's time: those run first, then the
# scripts with a line "# e2e: long" (a minute or more), then the rest, so
# that no long script starts last while the other slots sit idle.
#
#	tests/e2e/run.sh                          # all, against build/callus
#	CALLUS_E2E_JOBS=2 tests/e2e/run.sh        # two at a time
#	CALLUS_BIN=build-asan/callus tests/e2e/run.sh t0001-run-passthrough.sh
#	tests/e2e/t0001-run-passthrough.sh -v     # one script, verbose
set -u

cd "$(dirname "$0")" || exit 1

if [ $# -gt 0 ]; then
	scripts=("$@")
else
	scripts=(t[0-9]*.sh)
fi
scripts=("${scripts[@]#tests/e2e/}")
if [ ! -e "${scripts[0]}" ]; then
	echo "run.sh: no test scripts found" >&2
	exit 1
fi
# the scripts whose first line "# e2e: ..." says $1 ("alone", "long", or
# "" for neither), in their order; a script that is not there is run, and
# fails, with the rest
marked() {
	local t how
	for t in "${scripts[@]}"; do
		how=$(grep -m 1 -oE '^# e2e: (alone|long)' "$t" 2>/dev/null)
		[ "${how#\# e2e: }" = "$1" ] && printf '%s\n' "$t"
	done
}
mapfile -t first < <(marked alone)
mapfile -t next < <(marked long)
mapfile -t rest < <(marked "")
scripts=("${first[@]}" "${next[@]}" "${rest[@]}")

# a filter for running some tests by hand would skip the rest unnoticed
if [ -n "${CALLUS_TEST_ONLY:-}" ]; then
	echo "run.sh: CALLUS_TEST_ONLY is set: only the tests matching '$CALLUS_TEST_ONLY' run" >&2
fi

jobs=${CALLUS_E2E_JOBS:-1}
case $jobs in
[1-9] | [1-9][0-9]) ;;
*)
	echo "run.sh: CALLUS_E2E_JOBS must be a number from 1 to 99, not '$jobs'" >&2
	exit 2
	;;
esac

out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT

passed=0
failed=0
# tell I T: the output of script number I (T), then its tally.
tell() {
	local i=$1 t=$2 rc summary p f
	cat "$out/$i.log"
	rc=$(cat "$out/$i.rc" 2>/dev/null || echo none)
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out/$i.log" | tail -n 1)
	if [ -z "$summary" ]; then
		echo "not ok - $t ended (status $rc) without a summary line"
		failed=$((failed + 1))
		return
	fi
	read -r p _ f _ <<<"$summary"
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" != 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		failed=$((failed + 1))
	fi
}

told=0
for i in "${!scripts[@]}"; do
	t=${scripts[$i]}
	alone=0
	if grep -q '^# e2e: alone' "./$t"; then
		alone=1
		wait
	fi
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	# what has ended, in order, shown while the rest run
	while [ "$told" -lt "$i" ] && [ -e "$out/$told.rc" ]; do
		tell "$told" "${scripts[$told]}"
		told=$((told + 1))
	done
	(
		echo "# $t"
		start=$SECONDS
		bash "./$t" </dev/null 2>&1
		rc=$?
		# the suite has a time limit: what each script takes, to see it grow
		echo "# $t took $((SECONDS - start)) s"
		# renamed in whole: the file's being there says the script ended
		echo $rc >"$out/$i.rc.tmp" && mv "$out/$i.rc.tmp" "$out/$i.rc"
	) >"$out/$i.log" &
	if [ "$alone" = 1 ]; then
		wait
	fi
done
wait
while [ "$told" -lt "${#scripts[@]}" ]; do
	tell "$told" "${scripts[$told]}"
	told=$((told + 1))
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
