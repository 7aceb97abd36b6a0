#!/usr/bin/env python3
"""bench/tool_outputs.py - a large failing output of one tool, on stdout.

    python3 bench/tool_outputs.py KIND BYTES

KIND is one of the names in OUTPUTS: each error is its own (an identifier,
a file of 37 folders and 211 names, a line and a column numbered from its
place), in the tool's own format, until the output holds BYTES bytes.
What bench/tool_outputs.sh records through the hook.
"""
import sys


def tsc(i, k, d, f, ln, col):
    return [f"src/d{d}/f{f}.ts({ln},{col}): error TS{2300 + i % 40}: "
            f"Property 'p{k}' does not exist on type 'T{k % 97}'."]


def mypy(i, k, d, f, ln, col):
    return [f"src/d{d}/f{f}.py:{ln}: error: Name \"n{k}\" is not defined  [name-defined]"]


def ruff(i, k, d, f, ln, col):
    return [f"src/d{d}/f{f}.py:{ln}:{col}: F821 Undefined name `n{k}`"]


def eslint(i, k, d, f, ln, col):
    head = ["", f"/w/src/d{d}/f{f}.js"] if i % 5 == 0 else []
    return head + [f"  {ln}:{col}  error  'v{k}' is not defined  no-undef"]


def go(i, k, d, f, ln, col):
    return [f"./pkg{d}/f{f}.go:{ln}:{col}: undefined: v{k}"]


def rustc(i, k, d, f, ln, col):
    return [f"error[E0425]: cannot find value `v{k}` in this scope",
            f"  --> src/m{d}/f{f}.rs:{ln}:{col}",
            "   |",
            f"{ln} |     let x = v{k} + 1;",
            "   |             ^^^^ not found in this scope",
            ""]


def pytest(i, k, d, f, ln, col):
    return [f"_____________________________ test_case_{k} _____________________________",
            f"    def test_case_{k}():",
            f">       assert f{k}() == {k}",
            f"E       assert {k + 1} == {k}",
            f"tests/d{d}/test_f{f}.py:{ln}: AssertionError"]


def jest(i, k, d, f, ln, col):
    return [f"  \u25cf Suite {d} \u203a case {k}",
            "",
            "    expect(received).toBe(expected) // Object.is equality",
            "",
            f"    Expected: {k}",
            f"    Received: {k + 1}",
            "",
            f"      at Object.<anonymous> (src/d{d}/f{f}.test.js:{ln}:{col})",
            ""]


OUTPUTS = {"tsc": tsc, "mypy": mypy, "ruff": ruff, "eslint": eslint, "go": go,
           "rustc": rustc, "pytest": pytest, "jest": jest}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in OUTPUTS or not sys.argv[2].isdigit():
        sys.exit("usage: tool_outputs.py {%s} BYTES" % ",".join(OUTPUTS))
    make, size = OUTPUTS[sys.argv[1]], int(sys.argv[2])
    lines, n, i = [], 0, 0
    while n < size:
        k = (i * 7919) % 100003
        for line in make(i, k, i % 37, i % 211, 10 + i % 900, 1 + i % 60):
            lines.append(line)
            n += len(line.encode()) + 1
        i += 1
    out = ("\n".join(lines) + "\n").encode()[:size]
    sys.stdout.buffer.write(out if out.endswith(b"\n") else out + b"\n")


if __name__ == "__main__":
    main()
