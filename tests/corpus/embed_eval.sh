#!/bin/sh
# embed_eval.sh - calibrate the built-in embedder (src/embed.c) on the corpus.
#
# Builds tests/corpus/embed_eval.c against build/libcallus.a (run `make`
# first: check.py scores build/callus, or CALLUS_BIN), has check.py dump the
# signature of every error it matches to a planted root-cause group, and
# prints the evaluator's tables (docs/matching.md, "Calibration").  The
# accuracy report check.py writes goes to a temporary file: docs/accuracy.md
# is left alone.  Arguments go to the evaluator (-v: the pairs that fool
# the embedder).
#
# Environment: BUILD (default build), CC, CALLUS_BIN (see check.sh).
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
build=${BUILD:-build}
cc=${CC:-cc}

cd "$repo"
if [ ! -f "$build/libcallus.a" ]; then
	echo "embed_eval: $build/libcallus.a is missing (make?)" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/callus-embed-eval.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# shellcheck disable=SC2046 # pkg-config's flags are words
$cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wmissing-prototypes -Wshadow -Wvla \
	-Wformat=2 -O2 -Iinclude -Isrc -include src/banned.h \
	$(pkg-config --cflags jansson sqlite3) -o "$tmp/embed_eval" \
	tests/corpus/embed_eval.c "$build/libcallus.a" $(pkg-config --libs jansson sqlite3)

CALLUS_ACCURACY_ENFORCE=0 CALLUS_ACCURACY_REPORT="$tmp/accuracy.md" \
	python3 tests/corpus/check.py --dump-signatures "$tmp/signatures.json" >"$tmp/check.log" ||
	{ cat "$tmp/check.log" >&2; exit 1; }
"$tmp/embed_eval" "$tmp/signatures.json" "$@"
