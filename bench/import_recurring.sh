#!/bin/sh
# bench/import_recurring.sh - `callus import` of one transcript in which one
# error is fixed again and again (bench/import_recurring_gen.py: CALLS tool
# calls, a third of them fixes of the same signature), two binaries in
# turn, each into a fresh workspace of its own.  A recurring error is where
# a fix's cost grows with the fixes before it: the note's sums and best
# fix, a suggestion's ranking (docs/scale.md).  The baseline row is OLD's
# `callus import --dry-run`: reading and parsing the same transcript,
# nothing written.  Each row: wall seconds, CPU seconds (user + system) and
# peak resident memory (GNU time); then what each store holds, which must
# be the same (the script fails when it is not).
# The same binary given twice is the harness's control.
# Usage: bench/import_recurring.sh CALLS OLD NEW
#   e.g. bench/import_recurring.sh 12000 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 3 ] || { echo "usage: bench/import_recurring.sh CALLS OLD NEW" >&2; exit 2; }
calls=$1
old=$(realpath "$2") new=$(realpath "$3")
for tool in git sqlite3 python3; do
	command -v "$tool" >/dev/null || { echo "bench/import_recurring.sh: needs $tool" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "bench/import_recurring.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# home NAME: a home of its own, its workspace a git repository, the
# transcript where Claude Code keeps it (the same bytes for each binary:
# the generator is seeded)
home() {
	h=$work/$1
	mkdir -p "$h/src/w"
	git -C "$h/src/w" init -q
	git -C "$h/src/w" -c user.email=bench@example.com -c user.name=bench \
		commit -q --allow-empty -m init
	d=$h/.claude/projects/$(printf %s "$h/src/w" | tr / -)
	mkdir -p "$d"
	transcript=$d/s1.jsonl
	python3 "$repo/bench/import_recurring_gen.py" "$h/src/w" "$transcript" "$calls"
}

# row NAME HOME CMD...: wall and CPU seconds and peak RSS of CMD
row() {
	name=$1 h=$2
	shift 2
	(cd "$h" && HOME=$h XDG_DATA_HOME=$h/.local/share \
		/usr/bin/time -f "%e %U %S %M" -o "$work/time" "$@" >"$work/out" 2>"$work/err") ||
		{ cat "$work/err" >&2; exit 1; }
	read -r secs user sys kb <"$work/time"
	printf '| %s | %s | %s | %s |\n' "$name" "$secs" "$(awk "BEGIN { print $user + $sys }")" \
		"$((kb / 1024))"
}

# held HOME: what its store holds (fixes, their counts, the note's sums
# and files, the suggestions made)
held() {
	sqlite3 "$1/src/w/.callus/callus.db" \
		"SELECT count(*), sum(application_count), sum(success_count) FROM resolutions;
		 SELECT count(*), sum(applications), sum(successes), sum(json_array_length(files)) FROM notes;
		 SELECT count(*), count(DISTINCT resolution_id) FROM suggestions;"
}

home dry
home old
home new
echo "# one transcript of $calls tool calls, $(wc -c <"$transcript") bytes"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| run | wall s | CPU s | peak RSS MiB |"
echo "|:---|---:|---:|---:|"
row "OLD callus import --dry-run (baseline)" "$work/dry" "$old" import --dry-run --quiet
row "OLD callus import ($old)" "$work/old" "$old" import --quiet
row "NEW callus import ($new)" "$work/new" "$new" import --quiet
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
held "$work/old" >"$work/held.old"
held "$work/new" >"$work/held.new"
sed 's/^/# held: /' "$work/held.new"
cmp -s "$work/held.old" "$work/held.new" ||
	{ echo "bench/import_recurring.sh: the two stores differ:" >&2; diff "$work/held.old" "$work/held.new" >&2; exit 1; }
