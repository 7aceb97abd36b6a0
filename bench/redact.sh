#!/bin/sh
# bench/redact.sh - throughput of the redactor (callus_redact) on a few MiB of
# output, against a plain copy of the same bytes in the same run.  The
# redactor runs on every failing check's output, so its cost is paid on the
# hook's path.  See bench/redact.c for what each row times.
#
# Usage: bench/redact.sh [MB] [RUNS]
#   MB    size of each input, repeated from its sources (default 8)
#   RUNS  runs per input; the median is reported (default 15)
# Rows:
#   corpus     the real outputs of tests/corpus/cases (213 outputs, 30 tools)
#   dense      command lines and logs where every trigger fires, no secret
#   clean      tests/fixtures/secrets/clean/*.txt (the negative set)
#   planted    the planted lines of tests/fixtures/secrets/formats.tsv
#              (a secret on every line: the worst case)
# Needs build/libcallus.a (`make`).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
mb=${1:-8}
runs=${2:-15}
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-redact.XXXXXX")
trap 'rm -rf "$work"' EXIT

cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
	-Wstrict-prototypes -Wshadow -Wvla -Wformat=2 \
	-I"$repo/include" -I"$repo/src" -include "$repo/src/banned.h" \
	-o "$work/redact" "$repo/bench/redact.c" "$repo/build/libcallus.a"

echo "| input | MiB | copy MB/s | redact MB/s | redact ms per MiB | replacements |"
echo "|:---|---:|---:|---:|---:|---:|"
# shellcheck disable=SC2046 # one argument per file
"$work/redact" corpus "$mb" "$runs" $(ls "$repo"/tests/corpus/cases/*/output.txt) | sed 's/^/|/;s/$/|/'
"$work/redact" dense "$mb" "$runs" - | sed 's/^/|/;s/$/|/'
if ls "$repo"/tests/fixtures/secrets/clean/*.txt >/dev/null 2>&1; then
	# shellcheck disable=SC2046
	"$work/redact" clean "$mb" "$runs" $(ls "$repo"/tests/fixtures/secrets/clean/*.txt) |
		sed 's/^/|/;s/$/|/'
fi
if [ -f "$repo/tests/fixtures/secrets/formats.tsv" ]; then
	grep -v '^#' "$repo/tests/fixtures/secrets/formats.tsv" | cut -f 2 |
		sed 's/\\n/\n/g;s/\\t/\t/g' >"$work/planted.txt"
	"$work/redact" planted "$mb" "$runs" "$work/planted.txt" | sed 's/^/|/;s/$/|/'
fi
