#!/bin/sh
# bench/sketchpass.sh - the regex fallback's sketch (schema 31,
# include/callus/signature.h): how many pairs of a message and a stored row
# it turns away unread, against the literal test it stands before
# (bench/sketchpass.c says how each row is made).  Rows:
#   - each STORE given (a grown workspace, bench/scale.sh's
#     CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE): its 40 newest signatures,
#     each against the newest 200 of its error type;
#   - tests/corpus: the error messages `callus analyze` reads from each
#     case's output, every pair of two of one tool; the cases made before
#     the hash was chosen, and the held-out ones (tests/corpus/README.md)
#     apart.
# Exit status 1 when a pair the literal test lets through is refused (a
# match lost): the last column.
# Usage: bench/sketchpass.sh [BUILD] [STORE...]   BUILD holds libcallus.a
#   and callus (default build/), e.g. bench/sketchpass.sh build /tmp/keepE/ws-100000
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$(realpath "${1:-$repo/build}")
[ $# -gt 0 ] && shift
if [ ! -f "$build/libcallus.a" ] || [ ! -x "$build/callus" ]; then
	echo "bench/sketchpass.sh: no libcallus.a and callus in $build (make)" >&2
	exit 2
fi
for db in "$@"; do
	[ -f "$db/.callus/callus.db" ] || {
		echo "bench/sketchpass.sh: no store in $db (.callus/callus.db)" >&2
		exit 2
	}
done
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-sketchpass.XXXXXX")
trap 'rm -rf "$work"' EXIT

# shellcheck disable=SC2046 # pkg-config's flags are word lists
cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
	-I"$repo/include" $(pkg-config --cflags sqlite3 jansson) \
	-o "$work/sketchpass" "$repo/bench/sketchpass.c" "$build/libcallus.a" \
	$(pkg-config --libs sqlite3 jansson libpcre2-8) -lm

# tests/corpus's messages: "heldout<TAB>tool<TAB>message" per error
python3 - "$repo/tests/corpus/cases" "$build/callus" >"$work/msgs" <<'PY'
import json, os, subprocess, sys
base, callus = sys.argv[1], sys.argv[2]
for case in sorted(os.listdir(base)):
    try:
        meta = json.load(open(os.path.join(base, case, 'case.json')))
    except (OSError, ValueError):
        continue
    with open(os.path.join(base, case, 'output.txt'), 'rb') as out:
        r = subprocess.run([callus, 'analyze', '-c', meta['command'], '-e',
                            str(meta.get('exit_code', 1))], stdin=out,
                           capture_output=True)
    try:
        res = json.loads(r.stdout)
    except ValueError:
        continue
    for e in res.get('errors', []):
        m = ' '.join((e.get('message') or '').split())
        if m:
            print('%d\t%s\t%s' % (bool(meta.get('heldout')), res.get('tool', '?'), m))
PY

status=0
echo "| pairs of | pairs | the literal test lets through | the sketch lets through | of the literal test's refusals, made by the sketch | lost |"
echo "|:---|---:|---:|---:|---:|---:|"
for db in "$@"; do
	"$work/sketchpass" store "$db/.callus/callus.db" 40 || status=1
done
grep '^0	' "$work/msgs" | cut -f2- | "$work/sketchpass" pairs "tests/corpus" || status=1
grep '^1	' "$work/msgs" | cut -f2- | "$work/sketchpass" pairs "tests/corpus, held out" || status=1
exit $status
