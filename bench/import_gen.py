#!/usr/bin/env python3
"""bench/import_gen.py - a synthetic history of agent sessions for bench/import.sh.

Usage: import_gen.py HOME SESSIONS MEGABYTES WORKSPACES FIXTURES

Writes SESSIONS transcripts of about MEGABYTES in all, half Claude Code
sessions (HOME/.claude/projects/<dir>/<uuid>.jsonl) and half Codex rollouts
(HOME/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), in the records' real
shapes: the records of the captured transcripts in FIXTURES (tests/import/
fixtures, from the real CLIs) are the templates, their fields rewritten.
Each session works in one of WORKSPACES git repositories HOME/src/wN (made
by bench/import.sh), runs ordinary commands (ls, cat, git status), and in
three sessions out of ten a gcc failure with gcc's own message format, an
Edit fixing it and the passing gcc; the rest of its size is the assistant's
text and tool results (Read of a file), as real sessions are mostly.
Deterministic (seeded).
"""
import copy
import json
import os
import random
import sys
import uuid

home, sessions, megabytes, nws, fixtures = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rng = random.Random(19)
per_session = int(megabytes * 1024 * 1024 / max(sessions, 1))


def load(name):
    with open(os.path.join(fixtures, name)) as f:
        return [json.loads(line) for line in f if line.strip()]


claude = load("claude-code-session1.jsonl")
codex = load("codex-session1.jsonl")
# templates: the first record of each shape
c_use = next(r for r in claude if r["type"] == "assistant" and r["message"]["content"][0].get("type") == "tool_use")
c_fail = next(r for r in claude if r["type"] == "user" and isinstance(r["message"]["content"], list) and r["message"]["content"][0].get("is_error"))
c_pass = next(r for r in claude if r["type"] == "user" and isinstance(r["message"]["content"], list)
              and isinstance(r.get("toolUseResult"), dict) and "stdout" in r["toolUseResult"])
c_other = [r for r in claude if r["type"] in ("attachment", "queue-operation", "last-prompt")][:6]
x_meta = next(r for r in codex if r["type"] == "session_meta")
x_ctx = next(r for r in codex if r["type"] == "turn_context")
x_item = next(r for r in codex if r["type"] == "event_msg" and r["payload"]["type"] == "item_completed"
              and r["payload"]["item"]["type"] == "CommandExecution")
x_call = next(r for r in codex if r["type"] == "response_item" and r["payload"]["type"] == "function_call")
x_out = next(r for r in codex if r["type"] == "response_item" and r["payload"]["type"] == "function_call_output")

WORDS = ("the function returns the total of the cart and the tests check it against "
         "the fixture so I will read the file first then run the build again").split()
SOURCE = "#include <stdio.h>\n\nint total(int *v, int n)\n{\n\tint s = 0;\n\tfor (int i = 0; i < n; i++)\n\t\ts += v[i];\n\treturn s;\n}\n"


def text(n):
    out, size = [], 0
    while size < n:
        w = rng.choice(WORDS)
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


class Clock:
    def __init__(self, start):
        self.t = start

    def tick(self, s=1.0):
        self.t += s
        return self.t

    def iso(self):
        import time
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.t)) + ".%03dZ" % int((self.t % 1) * 1000)


def gcc_error(i):
    name = "v%d" % i
    out = ("f%d.c: In function 'total':\nf%d.c:5:14: error: '%s' undeclared (first use in this function)\n"
           "    5 |         int s = %s;\n      |                 ^~\n"
           "f%d.c:5:14: note: each undeclared identifier is reported only once for each function it appears in\n"
           % (i, i, name, name, i))
    return name, out


def claude_session(path, ws, clock, sid, fail):
    recs = []
    n = [0]

    def base(r):
        r = copy.deepcopy(r)
        r["cwd"] = ws
        r["sessionId"] = sid
        r["timestamp"] = clock.iso()
        clock.tick(0.5)
        return r

    def use(name, inp):
        n[0] += 1
        tid = "toolu_%d" % n[0]
        r = base(c_use)
        r["message"]["content"] = [{"type": "tool_use", "id": tid, "name": name, "input": inp}]
        recs.append(r)
        return tid

    def result(tid, ok, out, extra=None):
        r = base(c_pass if ok else c_fail)
        body = out if ok else "Exit code 1\n\n" + out
        r["message"]["content"] = [{"type": "tool_result", "tool_use_id": tid, "is_error": not ok, "content": body}]
        r["toolUseResult"] = ({"stdout": out, "stderr": "", "interrupted": False, "isImage": False}
                              if ok else "Error: " + body)
        if extra:
            r["toolUseResult"] = extra
        recs.append(r)

    for r in c_other[:3]:
        recs.append(base(r))
    for cmd in ("ls -la", "git status --short", "cat README.md"):
        result(use("Bash", {"command": cmd, "description": "look"}), True, text(200))
    if fail is not None:
        name, out = gcc_error(fail)
        cmd = "gcc -Wall -c f%d.c" % fail
        result(use("Bash", {"command": cmd, "description": "build"}), False, out)
        f = "%s/f%d.c" % (ws, fail)
        tid = use("Edit", {"file_path": f, "old_string": "int s = %s;" % name, "new_string": "int s = 0;", "replace_all": False})
        result(tid, True, "", {"filePath": f, "oldString": "int s = %s;" % name, "newString": "int s = 0;",
                               "structuredPatch": [{"oldStart": 2, "oldLines": 7, "newStart": 2, "newLines": 7, "lines": [
                                   " ", " int total(int *v, int n)", " {", "-\tint s = %s;" % name, "+\tint s = 0;",
                                   " \tfor (int i = 0; i < n; i++)", " \t\ts += v[i];"]}],
                               "userModified": False, "replaceAll": False})
        result(use("Bash", {"command": cmd, "description": "build"}), True, "")
    # the rest: reading files and talking, as most of a session is
    size = sum(len(json.dumps(r)) + 1 for r in recs)
    while size < per_session:
        tid = use("Read", {"file_path": ws + "/f.c"})
        r = base(c_pass)
        r["message"]["content"] = [{"type": "tool_result", "tool_use_id": tid, "content": SOURCE + text(1500)}]
        r["toolUseResult"] = {"type": "text", "file": {"filePath": ws + "/f.c", "content": SOURCE + text(1500)}}
        recs.append(r)
        size += len(json.dumps(recs[-1])) + len(json.dumps(recs[-2])) + 2
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


def codex_session(path, ws, clock, sid, fail):
    recs = []
    n = [0]

    def rec(t, payload):
        r = {"timestamp": clock.iso(), "type": t, "payload": payload}
        clock.tick(0.5)
        recs.append(r)

    meta = copy.deepcopy(x_meta["payload"])
    meta.update({"id": sid, "session_id": sid, "cwd": ws, "timestamp": clock.iso()})
    rec("session_meta", meta)
    ctx = copy.deepcopy(x_ctx["payload"])
    ctx["cwd"] = ws
    rec("turn_context", ctx)

    def command(cmd, code, out):
        n[0] += 1
        cid = "call_%d" % n[0]
        call = copy.deepcopy(x_call["payload"])
        call.update({"call_id": cid, "arguments": json.dumps({"cmd": cmd})})
        rec("response_item", call)
        item = copy.deepcopy(x_item["payload"])
        item["item"].update({"id": cid, "command": ["/bin/bash", "-lc", cmd], "cwd": "file://" + ws,
                             "aggregated_output": out, "exit_code": code,
                             "status": "completed" if code == 0 else "failed"})
        item["completed_at_ms"] = int(clock.t * 1000)
        rec("event_msg", item)
        o = copy.deepcopy(x_out["payload"])
        o.update({"call_id": cid, "output": "Process exited with code %d\nOutput:\n%s" % (code, out)})
        rec("response_item", o)

    for cmd in ("ls -la", "git status --short"):
        command(cmd, 0, text(200))
    if fail is not None:
        _, out = gcc_error(fail)
        command("gcc -Wall -c f%d.c" % fail, 1, out)
        command("gcc -Wall -c f%d.c" % fail, 0, "")
    size = sum(len(json.dumps(r)) + 1 for r in recs)
    while size < per_session:
        rec("response_item", {"type": "message", "role": "assistant",
                              "content": [{"type": "output_text", "text": text(3000)}]})
        size += len(json.dumps(recs[-1])) + 1
    with open(path, "w") as f:
        for r in recs:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


clock = Clock(1767225600.0)  # 2026-01-01
for i in range(sessions):
    ws = "%s/src/w%d" % (home, i % nws)
    fail = i if rng.random() < 0.3 else None
    sid = str(uuid.UUID(int=rng.getrandbits(128)))
    if i % 2 == 0:
        d = "%s/.claude/projects/%s" % (home, ws.replace("/", "-"))
        os.makedirs(d, exist_ok=True)
        path = "%s/%s.jsonl" % (d, sid)
        claude_session(path, ws, clock, sid, fail)
    else:
        import time
        day = time.strftime("%Y/%m/%d", time.gmtime(clock.t))
        d = "%s/.codex/sessions/%s" % (home, day)
        os.makedirs(d, exist_ok=True)
        path = "%s/rollout-%s-%s.jsonl" % (d, time.strftime("%Y-%m-%dT%H-%M-%S", time.gmtime(clock.t)), sid)
        codex_session(path, ws, clock, sid, fail)
    # sessions in order: the file's time is its last record's
    os.utime(path, (clock.t, clock.t))
    clock.tick(600)
