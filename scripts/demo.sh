#!/bin/sh
# callus's main job on a real example: eslint fails on a small project under
# `callus run`, and a lesson appears in the store, in .lessons/ and in
# AGENTS.md.  Runs in a temporary directory; touches nothing else.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
callus="$repo/build/callus"
[ -x "$callus" ] || { echo "demo: build callus first (make)" >&2; exit 1; }
[ -d "$repo/tests/tools/node_modules" ] || "$repo/scripts/install-test-tools.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/callus-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp -R "$repo/tests/fixtures/eslint-project/." "$work/"
ln -s "$repo/tests/tools/node_modules" "$work/node_modules"
cd "$work"
git init -q && git add -A && git -c user.name=demo -c user.email=demo@example.com commit -qm demo

echo "== callus run -- npx eslint src   (eslint fails: the exit status passes through)"
status=0
"$callus" run -- npx eslint src || status=$?
echo "== exit status: $status"
echo
echo "== callus lessons"
"$callus" lessons
echo
echo "== AGENTS.md (the block an agent reads)"
cat AGENTS.md
echo
echo "== .lessons/"
ls .lessons
[ "$status" -eq 1 ] && [ -s AGENTS.md ] && ls .lessons/*.md >/dev/null
echo
echo "demo: ok"
