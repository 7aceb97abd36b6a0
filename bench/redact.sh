#!/bin/sh
# bench/redact.sh - throughput of the redactor (callus_redact) on a few MiB of
# output, against a plain copy of the same bytes in the same run.  The
# redactor runs on every failing check's output, so its cost is paid on the
# hook's path.  See bench/redact.c for what each row times.
#
# Usage: [BASE=COMMIT] bench/redact.sh [MB] [RUNS]
#   MB    size of each input, repeated from its sources (default 8)
#   RUNS  runs per input; the median is reported (default 15)
#   BASE  also time the redactor of that commit (its src/redact*.c and
#         headers, with today's buffer), row names ending in "@BASE"
# Rows:
#   corpus     the real outputs of tests/corpus/cases (344 outputs)
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

# shellcheck disable=SC2046 # pkg-config's flags are word lists
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
	-Wstrict-prototypes -Wshadow -Wvla -Wformat=2 \
	-I"$repo/include" -I"$repo/src" -include "$repo/src/banned.h" \
	-o "$work/redact" "$repo/bench/redact.c" "$repo/build/libcallus.a" \
	$(pkg-config --libs jansson)

bins=redact
if [ -n "${BASE:-}" ]; then
	b=$work/base
	mkdir -p "$b/src" "$b/include/callus"
	for f in $(git -C "$repo" ls-tree --name-only "$BASE" src/ | grep '^src/redact') \
		include/callus/redact.h; do
		git -C "$repo" show "$BASE:$f" >"$b/$f"
	done
	# what the redactor calls besides itself (shellquote: callus_redact_argv;
	# cleantext and utf8: callus_redact_str cleans what it is given)
	cp "$repo"/src/buf.c "$repo"/src/swar.h "$repo"/src/error.c "$repo"/src/shellquote.c \
		"$repo"/src/cleantext.c "$repo"/src/utf8.c "$repo"/src/banned.h "$b/src/"
	cp "$repo"/include/callus/buf.h "$repo"/include/callus/common.h \
		"$repo"/include/callus/shellquote.h "$repo"/include/callus/cleantext.h \
		"$repo"/include/callus/utf8.h "$b/include/callus/"
	# shellcheck disable=SC2046 # pkg-config's flags are word lists
	cc -std=c11 -D_GNU_SOURCE -O2 -I"$b/include" -I"$b/src" -include "$b/src/banned.h" \
		-o "$work/redact_base" "$repo/bench/redact.c" "$b"/src/*.c $(pkg-config --libs jansson)
	bins="redact redact_base"
fi

# row NAME FILE...: one row per redactor
row() {
	local name=$1 bin
	shift
	for bin in $bins; do
		"$work/$bin" "$name${bin#redact}" "$mb" "$runs" "$@" |
			sed "s/^\([a-z]*\)_base|/\1@${BASE:-}|/;s/^/|/;s/\$/|/"
	done
}

echo "| input | MiB | copy MB/s | redact MB/s | redact ms per MiB | replacements |"
echo "|:---|---:|---:|---:|---:|---:|"
# shellcheck disable=SC2046 # one argument per file
row corpus $(ls "$repo"/tests/corpus/cases/*/output.txt)
row dense -
if ls "$repo"/tests/fixtures/secrets/clean/*.txt >/dev/null 2>&1; then
	# shellcheck disable=SC2046
	row clean $(ls "$repo"/tests/fixtures/secrets/clean/*.txt)
fi
if [ -f "$repo/tests/fixtures/secrets/formats.tsv" ]; then
	grep -v '^#' "$repo/tests/fixtures/secrets/formats.tsv" | cut -f 2 |
		sed 's/\\z//g;s/\\n/\n/g;s/\\t/\t/g' >"$work/planted.txt"
	row planted "$work/planted.txt"
fi
