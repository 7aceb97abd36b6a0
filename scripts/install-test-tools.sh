#!/bin/sh
# install-test-tools.sh - install the real eslint, jest and vitest that the
# end-to-end tests run, at the versions pinned in tests/tools/package-lock.json,
# into tests/tools/node_modules (`npm ci`: exactly the lock file, nothing else).
#
# Skipped when node_modules was installed from the same lock file (a stamp
# inside node_modules records its checksum).  Quiet: one line on success, npm's
# log on failure.  Needs node >= 18 and npm (scripts/install-deps.sh).
#
# To change a version: edit tests/tools/package.json (exact versions only),
# then `scripts/install-test-tools.sh --update-lock` and commit both files.
# Keep to what Debian 12's node 18 runs (vite stays at 6: vite 7 needs node
# 20.19).
set -eu

cd "$(dirname "$0")/../tests/tools"

stamp=node_modules/.callus-stamp

die() {
	echo "install-test-tools: $*" >&2
	exit 1
}

command -v node >/dev/null 2>&1 || die "node not found (run scripts/install-deps.sh)"
command -v npm >/dev/null 2>&1 || die "npm not found (run scripts/install-deps.sh)"
node -e 'process.exit(+process.versions.node.split(".")[0] >= 18 ? 0 : 1)' ||
	die "node >= 18 needed, found $(node --version)"

# Rewrites package-lock.json from package.json.  A registry that has no copy
# of some other platform's optional native package (@rollup/rollup-darwin-x64
# and friends: only the Linux glibc ones are served here) leaves it out of the
# lock, and then `npm ci` refuses the lock as out of sync with package.json;
# so such entries are added back with the os/cpu/libc their name says, which
# is all `npm ci` needs to skip them on this platform.
update_lock() {
	npm install --package-lock-only --ignore-scripts --no-audit --no-fund \
		--loglevel=error >/dev/null
	node ../../scripts/npm-lock-platforms.js
}

if [ "${1:-}" = --update-lock ]; then
	update_lock
	shift
fi

# The stamp covers the lock file, package.json and node's major version (a
# different node can need different native optional packages).
want=$(cat package-lock.json package.json | sha256sum | cut -d' ' -f1)-node$(node -p 'process.versions.node.split(".")[0]')

up_to_date() {
	[ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
		[ -x node_modules/.bin/eslint ] && [ -x node_modules/.bin/jest ] &&
		[ -x node_modules/.bin/vitest ]
}

versions() {
	node -p '["eslint", "jest", "vitest"].map(p => p + " " +
		require("./node_modules/" + p + "/package.json").version).join(", ")'
}

if ! up_to_date; then
	# Two runs at once (parallel checkouts of the same tree) must not both
	# rewrite node_modules: hold a lock on the lock file while installing.
	if command -v flock >/dev/null 2>&1; then
		exec 9<package-lock.json
		flock 9
	fi
fi
if up_to_date; then
	echo "install-test-tools: up to date ($(versions))"
	exit 0
fi

log=$(mktemp)
if ! npm ci --no-audit --no-fund --no-update-notifier --loglevel=error \
	>"$log" 2>&1; then
	cat "$log" >&2
	rm -f "$log"
	die "npm ci failed in tests/tools"
fi
rm -f "$log"
printf '%s\n' "$want" >"$stamp"
echo "install-test-tools: installed $(versions) in tests/tools/node_modules"
