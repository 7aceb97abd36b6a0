#!/usr/bin/env python3
"""text_order.py - the objects of the callus binary that runs execute, as
the input-section patterns of cli/text-order.ld (scripts/text-order.sh).

usage: text_order.py [--first K] [--then LINES] BINARY MAP CASE.out [CASE.out ...]
       text_order.py --pages CASE.out [CASE.out ...]

--pages prints, a line a profile, how many 64 KB stretches and 4 KB pages of
its program's code it ran (bench/textpages.sh): a first touch of a page of a
file's mapping maps the 64 KB around it (the kernel's fault-around), so the
stretches are the faults a run takes in the program's code.

MAP is the binary's GNU ld link map (-Wl,-Map, which the Makefile writes
beside build/callus); each CASE.out a callgrind profile of one run of the
binary made with --dump-instr=yes (the address of every instruction run).
Prints one pattern an object, in the order of the cases given, each case's
new objects in address order: the objects of the first K cases (--first,
1) first, then the string functions' variants (below), then the lines of
--then LINES (patterns to place there, as given), then the other cases'
objects.

Why by object and not by function: the C library, SQLite, jansson and PCRE2
come as Debian's archives, whose members are not split into a section a
function, and a linker script can order input sections only.
"""
import bisect
import os
import re
import sys

# An object of the C library named for a string function and a CPU's
# extension (strlen-evex.o) is one of that function's variants, of which the
# start picks one for the CPU it runs on, and valgrind's CPU (no AVX-512)
# another than the machine's: every variant of each function the runs used
# is listed right after the first cases' objects, those of one extension
# together (AVX-512's, AVX2's, SSE4's, SSE2's, then the rest), so that any
# CPU's picks lie in a row near the code that calls them.
VARIANT = re.compile(r"^(?P<base>[a-z0-9_]+)-(?:avx|avx2|avx512|evex|evex512|sse2|sse4|ssse3|"
                     r"erms|unaligned|aligned|rtm|vex|sse4_1|sse4_2)[a-z0-9_-]*\.o$")


def text_sections(map_path):
    """(start, size, file) of every input section of the .text output
    section, sorted by address; file as the map names it."""
    out = []
    inside = False
    pending = None
    with open(map_path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if re.match(r"^\.text\s", line):
                inside = True
                continue
            if inside and re.match(r"^\.\S", line):
                break
            if not inside:
                continue
            m = re.match(r"^ (\.text\S*)\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S.*)$", line)
            if m:
                out.append((int(m.group(2), 16), int(m.group(3), 16), m.group(4).strip()))
                pending = None
                continue
            m = re.match(r"^ (\.text\S*)\s*$", line)
            if m:
                pending = m.group(1)
                continue
            m = re.match(r"^\s+(0x[0-9a-f]+)\s+(0x[0-9a-f]+)\s+(\S.*)$", line)
            if m and pending:
                out.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3).strip()))
                pending = None
    out.sort()
    return out


def executed(profile, binary):
    """Addresses of the binary's instructions a callgrind --dump-instr=yes
    profile counts (positions compressed as the format allows: absolute,
    +N / -N from the one before, * the same)."""
    names = {}  # an object's number, as ob= and cob= both give it, to its name
    current = None
    last = 0
    out = set()
    real = os.path.realpath(binary)
    with open(profile, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("ob=") or line.startswith("cob="):
                value = line.split("=", 1)[1].rstrip("\n")
                m = re.match(r"\((\d+)\)\s*(.*)$", value)
                if m and m.group(2):
                    names[m.group(1)] = m.group(2)
                if line.startswith("ob="):
                    current = names.get(m.group(1)) if m else value.strip() or None
                continue
            head = line[:1]
            if not (line.startswith("0x") or head in "+-*"):
                continue
            field = line.split()[0]
            if field.startswith("0x"):
                last = int(field, 16)
            elif head in "+-":
                step = int(field[1:], 16) if field[1:].startswith("0x") else int(field[1:])
                last += step if head == "+" else -step
            if current and os.path.realpath(current) == real:
                out.add(last)
    return out


def pattern(name):
    """The linker script pattern of an input file as the map names it:
    an archive's member as ARCHIVE:MEMBER, callus's own objects by their
    folder (cli/, helper/) and their name (build folders differ), the
    compiler's start files by their name alone (its folder names its
    version)."""
    m = re.match(r"^(.*)\((.*)\)$", name)
    if m:
        return "*/%s:%s" % (os.path.basename(m.group(1)), m.group(2))
    parts = name.split("/")
    if len(parts) >= 2 and parts[-2] in ("cli", "helper"):
        return "*/%s/%s" % (parts[-2], parts[-1])
    return "*/" + parts[-1]


def program(profile):
    """The program a profile is of, from its cmd: line."""
    with open(profile, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("cmd:"):
                words = line[4:].split()
                return words[0] if words else ""
    return ""


def pages(profiles):
    for prof in profiles:
        hits = executed(prof, program(prof))
        print("%s %d %d" % (os.path.basename(prof), len({a >> 16 for a in hits}),
                            len({a >> 12 for a in hits})))
    return 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "--pages":
        return pages(argv[2:])
    then = []
    first = 1
    while len(argv) >= 3 and argv[1] in ("--then", "--first"):
        if argv[1] == "--then":
            with open(argv[2], encoding="utf-8") as f:
                then = [line.rstrip("\n") for line in f if line.strip()]
        else:
            first = max(1, int(argv[2]))
        argv = argv[:1] + argv[3:]
    if len(argv) < 4:
        sys.stderr.write("usage: text_order.py [--first K] [--then LINES] BINARY MAP CASE.out [CASE.out ...]\n")
        return 2
    binary, map_path, profiles = argv[1], argv[2], argv[3:]
    secs = text_sections(map_path)
    if not secs:
        sys.stderr.write("text_order.py: no .text input sections in %s\n" % map_path)
        return 1
    starts = [s[0] for s in secs]
    members = {}
    for _, _, name in secs:
        m = re.match(r"^(.*)\((.*)\)$", name)
        if m:
            members.setdefault(m.group(1), set()).add(m.group(2))
    blocks = []  # a list of objects a case, each new in its case
    seen = set()
    variants = {}  # every variant of the string functions run: (archive, member)

    for prof in profiles:
        hits = executed(prof, binary)
        if not hits:
            sys.stderr.write("text_order.py: %s counts nothing of %s\n" % (prof, binary))
            return 1
        hit = set()
        for a in hits:
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < secs[i][0] + secs[i][1]:
                hit.add(i)
        block = []
        for i in sorted(hit):
            name = secs[i][2]
            m = re.match(r"^(.*)\((.*)\)$", name)
            v = VARIANT.match(m.group(2)) if m else None
            if v:
                for other in members.get(m.group(1), ()):
                    w = VARIANT.match(other)
                    if w and w.group("base") == v.group("base"):
                        variants[(m.group(1), other)] = w
            elif name not in seen:
                seen.add(name)
                block.append(name)
        blocks.append(block)

    def kind(item):
        """A CPU's picks together: the variants of one extension in a row,
        the most recent first."""
        member = item[1]
        for rank, exts in enumerate((("-evex", "-avx512"), ("-avx2",), ("-sse4", "-ssse3"),
                                     ("-sse2",))):
            for ext in exts:
                if ext + "." in member or ext + "-" in member or ext + "_" in member:
                    return (rank, member)
        return (4, member)

    lines = ["    %s(.text .text.*)" % pattern(n) for b in blocks[:first] for n in b]
    lines += ["    %s(.text .text.*)" % pattern("%s(%s)" % v) for v in sorted(variants, key=kind)]
    lines += then
    lines += ["    %s(.text .text.*)" % pattern(n) for b in blocks[first:] for n in b]
    for line in dict.fromkeys(lines):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
