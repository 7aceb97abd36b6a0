#!/bin/sh
# bench/notes.sh - what hindsight notes cost a recording: a failing check
# recorded through `callus hook generic` in a workspace with no notes (the
# baseline), then with 100 and 1,000 notes in .callus/notes/ (taken into the
# store by the first run; each run after checks every note file: one stat
# when nothing changed), and a failure that one of those notes answers (the
# reply carries the note, compact).  The notes' signatures are matched
# against like any stored error's, so the recording rows include matching
# against 1,000 more signatures; the last two rows time the folder's sync
# alone (`callus notes --limit 1`: open, stat each note, the best one).
# Each row runs N times with the payload
# on stdin; bench/proctime reports per-process CPU and wall time,
# min / median / max in ms.
# Usage: bench/notes.sh [N] [path/to/callus]
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100}
callus=${2:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe notes "$callus") || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/proctime" "$repo/bench/proctime.c"

# ws DIR NOTES: a git workspace with a gcc failure's payload (fail.json)
# and NOTES note files, each a different error with its fix (unused
# variables: none of them answers the failure)
ws() {
	mkdir "$1" && cd "$1"
	git init -q .
	printf 'int f(int n)\n{\n\treturn n + undefined_name;\n}\n' >f.c
	out=$(gcc -c f.c 2>&1 || true)
	jq -n --arg o "$out" --arg cwd "$PWD" \
		'{command: "gcc -c f.c", exit_code: 1, output: $o, cwd: $cwd}' >fail.json
	mkdir -p .callus/notes
	i=0
	while [ "$i" -lt "$2" ]; do
		sig=$(printf 'bench %d' "$i" | sha256sum | cut -c1-64)
		id=$(printf '%.12s' "$sig")
		cat >".callus/notes/$id.md" <<-EOF
		---
		id: $id
		type: hindsight
		layer: project
		status: active
		tool: gcc
		error_type: -Wunused-variable
		signatures:
		  - $sig
		files:
		  - src/m$i.c
		applications: 3
		successes: 3
		---

		# gcc: unused variable 'v_$i' [-Wunused-variable]

		## Error Pattern

		A \`gcc\` error of type \`-Wunused-variable\`. Example:

		    unused variable 'v_$i' [-Wunused-variable]

		## Resolution

		1. Edited m$i() in src/m$i.c (+1 -1)

		## Code Examples

		\`\`\`diff
		--- a/src/m$i.c
		+++ b/src/m$i.c
		@@ -1,3 +1,3 @@
		 int m$i(void)
		-{ int v_$i; return 0; }
		+{ return 0; }
		\`\`\`
		EOF
		i=$((i + 1))
	done
	"$callus" hook generic <fail.json >/dev/null # the first run takes the notes in
	cd ..
}

# row TITLE DIR [CMD...]: the failure recorded N times in DIR (or CMD run)
row() {
	title=$1 dir=$2
	shift 2
	[ $# -gt 0 ] || set -- "$callus" hook generic
	printf "| %s |" "$title"
	(cd "$dir" && "$work/proctime" "$n" fail.json "$@") | {
		read -r cmin cmed cmax wmin wmed wmax _
		printf " %s / %s / %s | %s / %s / %s |\n" "$cmin" "$cmed" "$cmax" "$wmin" "$wmed" "$wmax"
	}
}

cd "$work"
ws none 0
ws hundred 100
ws thousand 1000
# the same failure in a workspace whose note 'undefined_name' answers it
ws answered 1000
(
	cd answered
	# ws's first run left the failure pending: fixed, it makes a note
	sed -i 's/undefined_name/0/' f.c
	jq '.exit_code = 0 | .output = ""' fail.json | "$callus" hook generic >/dev/null
	printf 'int f(int n)\n{\n\treturn n + undefined_name;\n}\n' >f.c
	test "$("$callus" notes --json | jq length)" = 1001
	"$callus" hook generic <fail.json | jq -e '.additionalContext | test("note [0-9a-f]{12}")' \
		>/dev/null
)

echo "| a failing gcc check recorded by \`callus hook generic\` | CPU ms min / median / max | wall ms min / median / max |"
echo "|:---|---:|---:|"
row "no notes (baseline)" none
row "100 notes" hundred
row "1,000 notes" thousand
row "1,000 notes, one answers the failure (reply with the note)" answered
# the folder's sync alone: open the store, stat every note file, read the best
row "\`callus notes --limit 1\`, no notes" none "$callus" notes --limit 1
row "\`callus notes --limit 1\`, 1,000 notes" thousand "$callus" notes --limit 1
