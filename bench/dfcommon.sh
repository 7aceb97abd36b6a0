#!/bin/sh
# bench/dfcommon.sh - how many of a signature's document-frequency lookups
# the common features' table answers (embed_df_hot, schema 33;
# bench/dfcommon.c says how each row is counted): for each STORE given (a
# grown workspace, bench/scale.sh's CALLUS_SCALE_KEEP=DIR keeps
# DIR/ws-SIZE), on a copy migrated by BUILD's callus, its 100 newest
# signatures; and tests/corpus's signatures (tests/corpus/check.py
# --dump-signatures, as tests/corpus/embed_eval.sh runs it).
# Usage: bench/dfcommon.sh [BUILD] [STORE...]   BUILD holds libcallus.a and
#   callus (default build/), e.g. bench/dfcommon.sh build /tmp/keepE/ws-100000
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$repo/build}")
[ $# -gt 0 ] && shift
if [ ! -f "$build/libcallus.a" ] || [ ! -x "$build/callus" ]; then
	echo "bench/dfcommon.sh: no libcallus.a and callus in $build (make)" >&2
	exit 2
fi
for ws in "$@"; do
	[ -f "$ws/.callus/callus.db" ] || {
		echo "bench/dfcommon.sh: no store in $ws (.callus/callus.db)" >&2
		exit 2
	}
done
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-dfcommon.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck disable=SC2046 # pkg-config's flags are word lists
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
	-I"$repo/include" -I"$repo/src" $(pkg-config --cflags sqlite3 jansson) \
	-o "$work/dfcommon" "$repo/bench/dfcommon.c" "$build/libcallus.a" \
	$(pkg-config --libs sqlite3 jansson libpcre2-8) -lm

echo "| signatures of | signatures | lookups a signature | answered by embed_df_hot |"
echo "|:---|---:|---:|---:|"
i=0
for ws in "$@"; do
	i=$((i + 1))
	bench_copy_store "$ws/.callus" "$work/ws-$i"
	"$work/dfcommon" store "$work/ws-$i/callus.db" 100 | sed "s|$work/ws-$i/callus.db|$ws|"
done
(cd "$repo" && CALLUS_BIN="$build/callus" CALLUS_ACCURACY_ENFORCE=0 \
	CALLUS_ACCURACY_REPORT="$work/accuracy.md" \
	python3 tests/corpus/check.py --dump-signatures "$work/signatures.json" >"$work/check.log") ||
	{ cat "$work/check.log" >&2; exit 1; }
"$work/dfcommon" corpus "$work/signatures.json" "tests/corpus"
