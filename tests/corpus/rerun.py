#!/usr/bin/env python3
"""Runs each failing test-runner case of the corpus several times with
`callus run` and counts the lessons it leaves: the same failure run again is
one lesson, whatever the clock printed (durations, estimates).

    tests/corpus/rerun.py [--runs N] [--only PREFIX ...] CALLUS [CALLUS ...]

Each case gets a fresh copy of its project (generate.py's setup), so that
runs of other cases do not mix in.  Prints one table row per binary: the
cases run, and those whose runs left more than one lesson, tuned-on and
held-out apart (the corpus's own split, tests/corpus/README.md), then the
cases that split.  Commands that need a shell (cd, &&, |, globs) are left
out, as are tools this machine lacks (exit 127).
"""
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import generate  # noqa: E402  (base_env, setup_project)
from manifest import CASES  # noqa: E402

RUNNERS = ("jest", "vitest", "mocha", "node --test", "ava", "bun test", "deno test", "pytest",
           "unittest", "go test", "cargo test", "rspec", "minitest", "phpunit", "prove",
           "mix test", "npm test", "ctest", "playwright", "bun run test")


def simple_argv(command):
    """The command's environment and argv, or None when it needs a shell."""
    if any(ch in command for ch in "&|;*$<>`"):
        return None
    words = shlex.split(command)
    env = {}
    while words and "=" in words[0] and not words[0].startswith("-"):
        k, v = words.pop(0).split("=", 1)
        env[k] = v
    return (env, words) if words and words[0] != "cd" else None


def lessons_left(callus, case, runs, env0):
    proj = generate.setup_project(case.project, env0)
    cwd = os.path.normpath(os.path.join(proj, case.cwd))
    env = dict(env0)
    env.update(case.env)
    extra, argv = simple_argv(case.command)
    env.update(extra)
    if case.pre:
        try:
            generate.sh(case.pre, proj, env)
        except subprocess.CalledProcessError:
            return None
    for _ in range(runs):
        r = subprocess.run([callus, "run", "--", *argv], cwd=cwd, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=600)
        if r.returncode in (0, 126, 127):
            return None
    out = subprocess.run([callus, "lessons", "--json"], cwd=cwd, env=env,
                         capture_output=True, check=True).stdout
    return len(json.loads(out))


def main(argv):
    runs, only, bins = 3, [], []
    args = argv[1:]
    while args:
        a = args.pop(0)
        if a == "--runs":
            runs = int(args.pop(0))
        elif a == "--only":
            only.append(args.pop(0))
        else:
            bins.append(os.path.abspath(a))
    if not bins:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    cases = [c for c in CASES
             if c.tool in RUNNERS and simple_argv(c.command)
             and (not only or any(c.id.startswith(p) for p in only))]
    env0 = generate.base_env()
    for d in (generate.ROOT, env0["HOME"], env0["TMPDIR"]):
        os.makedirs(d, exist_ok=True)
    print(f"| callus | runs each | cases, tuned on | split, tuned on | cases, held out |"
          f" split, held out |")
    print("|:---|---:|---:|---:|---:|---:|")
    for callus in bins:
        ran = {False: 0, True: 0}
        split = {False: [], True: []}
        for c in cases:
            n = lessons_left(callus, c, runs, env0)
            if n is None:
                continue
            held = bool(getattr(c, "heldout", False))
            ran[held] += 1
            if n > 1:
                split[held].append(f"{c.id} ({n})")
        print(f"| `{callus}` | {runs} | {ran[False]} | {len(split[False])} | {ran[True]} |"
              f" {len(split[True])} |", flush=True)
        for held in (False, True):
            if split[held]:
                print(f"<!-- split{' (held out)' if held else ''}: {', '.join(split[held])} -->",
                      flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
