#!/usr/bin/env python3
"""tests/link/text_order.py BUILD - the code a hook runs lies first in the
callus binary's .text, as cli/text-order.ld lists it, and the snapshot
helper's in callus-git's, as helper/text-order.ld does (Makefile,
scripts/link-script.sh, scripts/text-order.sh).

Checks, for each of the two:
- every object the list names exists: callus's own sources, the archives'
  members and the compiler's start files of this toolchain (a list left
  stale by a moved source or another library would silently order nothing);
- the binary was linked by it: in BUILD/PROGRAM.map the listed objects'
  sections come first in .text, in the list's order, before any other;
and:
- scripts/link-script.sh leaves an empty script, and so the link as before,
  for a compiler that prints none and for a list it cannot read, and puts
  the list right inside .text for this one.
Exits 1 with what failed.
"""
import functools
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


@functools.lru_cache(maxsize=None)
def members(archive):
    """The members of the archive the compiler links as archive, or None."""
    path = cc_file(archive)
    return (frozenset(subprocess.run(["ar", "t", path], capture_output=True,
                                     text=True).stdout.split()) if path else None)


def exists(pat):
    """Whether the object a pattern names is there to be linked."""
    for folder in ("cli", "helper"):
        if pat.startswith("*/%s/" % folder):
            return os.path.exists(os.path.join(REPO, folder, pat[len(folder) + 3:-2] + ".c"))
    if pat.startswith("*/libcallus.a:"):
        name = pat.split(":", 1)[1][:-2] + ".c"
        return any(os.path.basename(p) == name
                   for p in glob.glob(os.path.join(REPO, "src", "**", "*.c"), recursive=True))
    if ":" in pat:
        archive, member = pat[2:].split(":", 1)
        m = members(archive)
        return m is not None and member in m
    return cc_file(pat[2:]) is not None


def check_layout(build, program, order_file):
    """The list of order_file current, and BUILD/PROGRAM linked by it."""
    name = os.path.relpath(order_file, REPO)
    pats = listed(order_file)
    if len(pats) < 50:
        fail("%s lists %d objects: scripts/text-order.sh writes it" % (name, len(pats)))
    for p in pats:
        if not exists(p):
            fail("%s names %s, which is not there (run scripts/text-order.sh)" % (name, p))
    if len(set(pats)) != len(pats):
        fail("%s names an object twice" % name)

    # the binary's .text as linked: each listed object's first section at
    # its place in the list, every other object after the last listed one
    map_path = os.path.join(build, program + ".map")
    secs = text_order.text_sections(map_path) if os.path.exists(map_path) else []
    if not secs:
        fail("%s has no .text (make writes it with %s/%s)" % (map_path, build, program))
    place = {p: i for i, p in enumerate(pats)}
    last = -1
    seen_other = None
    for start, size, obj in secs:
        p = text_order.pattern(obj)
        if size == 0:
            continue
        if p in place:
            if seen_other is not None:
                fail("%s: %s lies after %s, which %s does not name" % (program, p, seen_other, name))
                break
            if place[p] < last:
                fail("%s: %s lies after %s, against %s's order" % (program, p, pats[last], name))
                break
            last = place[p]
        elif seen_other is None:
            seen_other = p
    if secs and last < 0:
        fail("no object %s lists in %s's .text: linked without it" % (name, map_path))
    return len(pats)


def main(argv):
    build = argv[1] if len(argv) > 1 else "build"
    order_file = os.path.join(REPO, "cli", "text-order.ld")
    said = []
    # Each binary is checked where the Makefile made its script: an empty
    # one is the fallback of a link that prints none (scripts/link-script.sh:
    # another linker, other flags), linked in the objects' order, which the
    # check of link-script.sh below still runs for this toolchain; none at
    # all, callus-git linked shared (the Makefile's GIT2_STATIC).
    for program, order in (("callus", order_file),
                           ("callus-git", os.path.join(REPO, "helper", "text-order.ld"))):
        lds = os.path.join(build, program + ".lds")
        if not os.path.exists(lds):
            print("# no %s: %s is not linked with a list; not checked" % (lds, program))
        elif os.path.getsize(lds) == 0:
            print("# %s is empty (link-script.sh's fallback): %s in link order; not checked" %
                  (lds, program))
        else:
            said.append("%d objects of %s" % (check_layout(build, program, order), program))
    if not said:
        fail("neither binary was linked with its list (no %s/callus.lds)" % build)
    pats = listed(order_file)

    # the script: none from a compiler that prints none; the list inside
    # .text from this one
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "none.lds")
        r = subprocess.run(["sh", os.path.join(REPO, "scripts", "link-script.sh"), order_file,
                            out, "false"], capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out) or os.path.getsize(out) != 0:
            fail("link-script.sh with a compiler that fails: status %d, script %s" % (
                r.returncode, "left out" if not os.path.exists(out) else
                "of %d bytes" % os.path.getsize(out)))
        out = os.path.join(tmp, "unread.lds")
        r = subprocess.run(["sh", os.path.join(REPO, "scripts", "link-script.sh"),
                            os.path.join(tmp, "no-such-list"), out, "cc", "-static-pie"],
                           capture_output=True, text=True)
        if r.returncode != 0 or not os.path.exists(out) or os.path.getsize(out) != 0:
            fail("link-script.sh with a list it cannot read: status %d, a script of %s bytes" % (
                r.returncode, os.path.getsize(out) if os.path.exists(out) else "no"))
        out = os.path.join(tmp, "cc.lds")
        subprocess.run(["sh", os.path.join(REPO, "scripts", "link-script.sh"), order_file,
                        out, "cc", "-static-pie"], capture_output=True, text=True)
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
        print("ok: %s listed, all there, linked in their order" % " and ".join(said))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
