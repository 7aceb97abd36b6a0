#!/usr/bin/env python3
"""tests/docs/links.py - every relative link of the Markdown documents
leads somewhere: the file it names exists, and so does the heading its
#anchor names (GitHub's way of making an anchor from a heading).

Usage: tests/docs/links.py [ROOT]   (ROOT: the repository, by default the
one this file is in).  Prints each broken link as FILE:LINE: TARGET and
exits 1 when there is one; 0 when every link leads somewhere.

The documents checked: README.md, docs/*.md, bench/README.md and every
README.md under tests/ (but node_modules).  Links to http(s) and mailto addresses are
not followed (the suite runs without a network).
"""
import html
import os
import re
import sys
import unicodedata

# an inline link or image: its destination, then an optional title
LINK = re.compile(r"\]\(\s*<?([^()\s<>]+(?:\([^()\s]*\))?[^()\s<>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
# a reference definition: [label]: destination
REFDEF = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def slug(text):
    """The anchor GitHub gives a heading: lower case, its punctuation
    dropped (hyphens and underscores kept), each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link: its words
    text = re.sub(r"(?<!\w)_(.+?)_(?!\w)", r"\1", text)  # _emphasis_: its words
    text = html.unescape(text)
    out = []
    for ch in text.lower():
        if ch in "-_ " or ch.isalnum():
            out.append("-" if ch == " " else ch)
        elif unicodedata.category(ch).startswith(("L", "N", "M")):
            out.append(ch)
    return "".join(out)


def lines_outside_fences(path):
    """(number, line) of the lines of a Markdown file outside code fences.
    As CommonMark closes a fence: with a line of the same character, at
    least as long, and nothing after it (a ```diff inside a ```markdown
    block opens nothing; a bare ``` inside it closes the outer block)."""
    fence = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = FENCE.match(line)
            if fence is None:
                if m and not (m.group(1)[0] == "`" and "`" in m.group(2)):
                    fence = m.group(1)
                    continue
                yield n, line
            elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not m.group(2).strip():
                fence = None


def anchors(path, cache={}):
    """The anchors of a Markdown file's headings (repeats numbered -1, -2
    as GitHub numbers them)."""
    if path not in cache:
        seen, found = {}, set()
        for _, line in lines_outside_fences(path):
            m = HEADING.match(line)
            if not m:
                continue
            base = slug(m.group(2))
            k = seen.get(base, 0)
            found.add(base if k == 0 else "%s-%d" % (base, k))
            seen[base] = k + 1
        cache[path] = found
    return cache[path]


def check(root):
    docs = [os.path.join(root, "README.md"), os.path.join(root, "bench", "README.md")]
    docdir = os.path.join(root, "docs")
    docs += sorted(os.path.join(docdir, f) for f in os.listdir(docdir) if f.endswith(".md"))
    for top, dirs, files in os.walk(os.path.join(root, "tests")):
        dirs[:] = sorted(d for d in dirs if d != "node_modules")
        docs += [os.path.join(top, f) for f in sorted(files) if f == "README.md"]
    broken = 0
    for doc in docs:
        for n, line in lines_outside_fences(doc):
            # inline code is not a link
            text = re.sub(r"`[^`]*`", "", line)
            targets = LINK.findall(text)
            m = REFDEF.match(text)
            if m:
                targets.append(m.group(1))
            for target in targets:
                if re.match(r"[a-z]+:", target):
                    continue
                path, _, anchor = target.partition("#")
                dest = os.path.normpath(os.path.join(os.path.dirname(doc), path)) if path else doc
                ok = os.path.exists(dest)
                if ok and anchor and dest.endswith(".md"):
                    ok = anchor in anchors(dest)
                if not ok:
                    broken += 1
                    print("%s:%d: %s" % (os.path.relpath(doc, root), n, target))
    return broken


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    broken = check(os.path.abspath(root))
    if broken:
        print("%d broken link(s)" % broken, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
