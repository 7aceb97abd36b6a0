#!/usr/bin/env python3
"""bench/import_recurring_gen.py - one Claude Code transcript in which one
error recurs and is fixed again and again, for bench/import_recurring.sh.

Usage: import_recurring_gen.py WORKSPACE OUT CALLS

Writes OUT, a transcript (the records' shapes as Claude Code writes them:
tests/import/fixtures) of CALLS tool calls in the git repository
WORKSPACE: a failing `gcc -Wall -c mN.c` ('IDENT' undeclared, one
signature however the name and the line change), the Edit that fixes it,
and the same gcc passing, over and over.  Each pass fixes its failure, so
the store ends with one note of CALLS / 3 fixes: the case where a note's
sums, its best fix and a suggestion's ranking cost what the fixes before
them number (docs/scale.md).  Deterministic (seeded).
"""
import datetime
import json
import random
import sys

ws, out, calls = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = random.Random(7)
session = "5e2141f7-22db-41bb-8790-4503cbbd4aee"
start = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
words = ["alpha", "beta", "gamma", "delta", "omega", "kappa", "sigma", "theta"]


def record(i, kind, message, **extra):
    r = {"parentUuid": None, "isSidechain": False, "userType": "external", "cwd": ws,
         "sessionId": session, "version": "2.1.331", "gitBranch": "main",
         "timestamp": (start + datetime.timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
         "uuid": "u%d" % i, "type": kind, "message": message}
    r.update(extra)
    return r


def tool_use(i, tid, name, args):
    return record(i, "assistant", {"role": "assistant", "type": "message",
                                   "content": [{"type": "tool_use", "id": tid, "name": name,
                                                "input": args}]})


def bash_result(i, tid, code, text):
    if code:
        text = "Exit code %d\n\n%s" % (code, text)
    return record(i, "user", {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tid, "is_error": code != 0, "content": text}]},
        toolUseResult=("Error: " + text) if code else
        {"stdout": text, "stderr": "", "interrupted": False, "isImage": False})


def edit_result(i, tid, path, old, new):
    return record(i, "user", {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": tid, "content": "The file %s has been updated." % path}]},
        toolUseResult={"filePath": path, "userModified": False, "replaceAll": False,
                       "structuredPatch": [{"oldStart": 3, "oldLines": 1, "newStart": 3,
                                            "newLines": 1, "lines": ["-" + old, "+" + new]}]})


with open(out, "w") as f:
    n = i = k = 0
    while n < calls:
        k += 1
        name = "m%d.c" % (k % 500)
        ident = "%s_%s_%d" % (rng.choice(words), rng.choice(words), k)
        line = k % 90 + 2
        cmd = "gcc -Wall -c %s" % name
        error = ("%s:%d:5: error: '%s' undeclared (first use in this function)\n"
                 "   %d |   return %s;\n      |          ^~~~\n" % (name, line, ident, line, ident))
        old, new = "  return %s;" % ident, "  return 0;"
        steps = [
            (tool_use(i, "a%d" % k, "Bash", {"command": cmd, "description": "build"}),
             bash_result(i + 1, "a%d" % k, 1, error)),
            (tool_use(i + 2, "e%d" % k, "Edit", {"file_path": "%s/%s" % (ws, name),
                                                  "old_string": old, "new_string": new,
                                                  "replace_all": False}),
             edit_result(i + 3, "e%d" % k, "%s/%s" % (ws, name), old, new)),
            (tool_use(i + 4, "p%d" % k, "Bash", {"command": cmd, "description": "build"}),
             bash_result(i + 5, "p%d" % k, 0, "")),
        ]
        for use, result in steps:
            if n >= calls:
                break
            f.write(json.dumps(use) + "\n")
            f.write(json.dumps(result) + "\n")
            n += 1
        i += 6
