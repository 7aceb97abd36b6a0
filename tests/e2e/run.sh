#!/bin/bash
# run.sh - runs the end-to-end test scripts (all tests/e2e/t[0-9]*.sh in order,
# or those named) and prints the total as "N passed, N failed".  A script that
# ends without its own summary line counts as one failure.
#
#	tests/e2e/run.sh                          # all, against build/callus
#	CALLUS_BIN=build-asan/callus tests/e2e/run.sh t0001-run-passthrough.sh
#	tests/e2e/t0001-run-passthrough.sh -v     # one script, verbose
set -u

cd "$(dirname "$0")" || exit 1

if [ $# -gt 0 ]; then
	scripts=("$@")
else
	scripts=(t[0-9]*.sh)
fi
if [ ! -e "${scripts[0]}" ]; then
	echo "run.sh: no test scripts found" >&2
	exit 1
fi

log=$(mktemp) || exit 1
trap 'rm -f "$log"' EXIT

passed=0
failed=0
for t in "${scripts[@]}"; do
	t=${t#tests/e2e/}
	echo "# $t"
	bash "./$t" </dev/null 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1)
	if [ -z "$summary" ]; then
		echo "not ok - $t ended (status $rc) without a summary line"
		failed=$((failed + 1))
		continue
	fi
	read -r p _ f _ <<<"$summary"
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "not ok - $t exited with status $rc"
		failed=$((failed + 1))
	fi
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
