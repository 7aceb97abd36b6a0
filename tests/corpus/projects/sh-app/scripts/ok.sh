#!/bin/sh
# Nothing to report here.
set -eu
name=${1:-world}
printf 'hello %s\n' "$name"
