#!/bin/sh
# generate.sh - regenerate the corpus of real tool outputs (tests/corpus/cases/).
#
# Copies each project of tests/corpus/projects/ to /tmp/callus-corpus/<project>
# (a fixed place, so that absolute paths in the outputs are the same on every
# machine), makes it a git repository, runs the real tools on it (eslint, tsc,
# jest, vitest, mocha, node --test, ava, biome, oxlint, prettier, stylelint,
# markdownlint, npm, pytest, unittest, mypy, flake8, pylint, pyflakes,
# pyright, bandit, black, isort, yamllint, gcc, clang, clang-tidy, make,
# cppcheck, ctest, meson, ninja, go, cargo, rustc, javac, kotlinc, mvn, rspec,
# minitest, rubocop, phpunit, php -l, prove, mix test, shellcheck, a project's
# own scripts, and a few commands that are not checks), and writes each case as
# cases/<id>/output.txt (stdout and stderr as one stream, byte for byte) and
# cases/<id>/case.json (the ground truth: the errors planted in the project).
# The manifest of cases and planted errors is in generate.py; the tool
# versions used go to tests/corpus/VERSIONS.
#
# Not part of the test suite: the outputs are committed, and
# tests/corpus/check.sh scores callus on them.  Install the tools first with
# scripts/install-corpus-tools.sh.
#
# Usage: tests/corpus/generate.sh [--truth-only] [CASE_ID_PREFIX...]
# Default: every case.  With prefixes, only the matching cases are rewritten
# and the rest kept.  --truth-only rewrites case.json from manifest.py and the
# output.txt already there, running no tool (after a change of the manifest).
set -eu

here=$(cd "$(dirname "$0")" && pwd -P)
# Debian's python3 (pytest, mypy, flake8 and pylint are its packages), not a
# pyenv or virtualenv one that may come first on PATH.
py=/usr/bin/python3
[ -x "$py" ] || py=python3
exec "$py" "$here/generate.py" "$@"
