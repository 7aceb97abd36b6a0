#!/usr/bin/env python3
"""tests/link/text_order.py BUILD - the code a hook runs lies first in the
callus binary's .text, as cli/text-order.ld lists it (Makefile,
scripts/link-script.sh, scripts/text-order.sh).

Checks:
- every object the list names exists: callus's own sources, the archives'
  members and the compiler's start files of this toolchain (a list left
  stale by a moved source or another library would silently order nothing);
- BUILD/callus was linked by it: in BUILD/callus.map the listed objects'
  sections come first in .text, in the list's order, before any other;
- scripts/link-script.sh leaves an empty script, and so the link as before,
  for a compiler that prints none, and puts the list right inside .text for
  this one.
Exits 1 with what failed.
"""
import glob
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "scripts"))
import text_order  # noqa: E402

failures = []


def fail(msg):
    failures.append(msg)


def listed(path):
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line.endswith("(.text .text.*)"):
                out.append(line[: -len("(.text .text.*)")])
    return out


def cc_file(name):
    p = subprocess.run(["cc", "-print-file-name=" + name], capture_output=True, text=True)
    path = p.stdout.strip()
    return path if os.path.isabs(path) and os.path.exists(path) else None


def members(archive, cache={}):
    if archive not in cache:
        path = cc_file(archive)
        cache[archive] = (set(subprocess.run(["ar", "t", path], capture_output=True,
                                             text=True).stdout.split()) if path else None)
    return cache[archive]


def exists(pat):
    """Whether the object a pattern names is there to be linked."""
    if pat.startswith("*/cli/"):
        return os.path.exists(os.path.join(REPO, "cli", pat[6:-2] + ".c"))
    if pat.startswith("*/libcallus.a:"):
        name = pat.split(":", 1)[1][:-2] + ".c"
        return any(os.path.basename(p) == name
                   for p in glob.glob(os.path.join(REPO, "src", "**", "*.c"), recursive=True))
    if ":" in pat:
        archive, member = pat[2:].split(":", 1)
        m = members(archive)
        return m is not None and member in m
    return cc_file(pat[2:]) is not None


def main(argv):
    build = argv[1] if len(argv) > 1 else "build"
    order_file = os.path.join(REPO, "cli", "text-order.ld")
    pats = listed(order_file)
    if len(pats) < 50:
        fail("cli/text-order.ld lists %d objects: scripts/text-order.sh writes it" % len(pats))
    for p in pats:
        if not exists(p):
            fail("cli/text-order.ld names %s, which is not there (run scripts/text-order.sh)" % p)
    if len(set(pats)) != len(pats):
        fail("cli/text-order.ld names an object twice")

    # the binary's .text as linked: each listed object's first section at
    # its place in the list, every other object after the last listed one
    map_path = os.path.join(build, "callus.map")
    secs = text_order.text_sections(map_path) if os.path.exists(map_path) else []
    if not secs:
        fail("%s has no .text (make writes it with build/callus)" % map_path)
    place = {p: i for i, p in enumerate(pats)}
    last = -1
    seen_other = None
    for start, size, name in secs:
        p = text_order.pattern(name)
        if size == 0:
            continue
        if p in place:
            if seen_other is not None:
                fail("%s lies after %s, which the list does not name" % (p, seen_other))
                break
            if place[p] < last:
                fail("%s lies after %s, against the list's order" % (p, pats[last]))
                break
            last = place[p]
        elif seen_other is None:
            seen_other = p
    if secs and last < 0:
        fail("no listed object in %s's .text: linked without the list" % map_path)

    # the script: none from a compiler that prints none; the list inside
    # .text from this one
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "none.lds")
        r = subprocess.run(["sh", os.path.join(REPO, "scripts", "link-script.sh"), "false",
                            order_file, out], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out) or os.path.getsize(out) != 0:
            fail("link-script.sh with a compiler that fails: status %d, script %s" % (
                r.returncode, "left out" if not os.path.exists(out) else
                "of %d bytes" % os.path.getsize(out)))
        out = os.path.join(tmp, "cc.lds")
        subprocess.run(["sh", os.path.join(REPO, "scripts", "link-script.sh"), "cc",
                        order_file, out], capture_output=True, text=True)
        text = open(out, encoding="utf-8").read().splitlines() if os.path.exists(out) else []
        opens = [i for i in range(1, len(text)) if text[i].strip() == "{" and
                 text[i - 1].replace(" ", "") == ".text:"]
        first = [i for i, line in enumerate(text) if line.strip() == pats[0] + "(.text .text.*)"]
        rest = [i for i, line in enumerate(text) if "*(.text.unlikely" in line]
        if not (opens and first and rest and opens[0] < first[0] < rest[0]):
            fail("link-script.sh with cc: the list is not at the start of .text's input")
    for f in failures:
        print("FAIL: " + f)
    if not failures:
        print("ok: %d objects listed, all there; %s/callus linked in their order" % (len(pats), build))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
