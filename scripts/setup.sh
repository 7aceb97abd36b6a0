#!/bin/sh
# Set callus up from nothing on Debian 12 (as root): install what it needs,
# build it, and run its main job on a real example - a real eslint failing
# on a small project, and the lesson that callus records from it.
set -eu
cd "$(dirname "$0")/.."

./scripts/install-deps.sh
make -s
./scripts/demo.sh
