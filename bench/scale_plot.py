#!/usr/bin/env python3
"""bench/scale_plot.py - the curve of bench/scale.sh as an SVG line chart.

Reads the Markdown tables bench/scale.sh prints (one file a binary, as
kept in bench/results/; the first table of each) and draws the median CPU
time of each command against the number of recordings (log scale), one
colour a command, a solid line for the last file and dashed ones for the
others (a command a file's table has no column for is left out of it),
and the issue's goal for a recording, 5 ms:

    python3 bench/scale_plot.py BEFORE.md AFTER.md > docs/scale.svg

The standard library only: the figure is a few lines and labels.
"""
import math
import sys

# column of the table -> label; the medians are the middle of "min/med/max"
SERIES = [
    ("failing hook", "failing hook, with snapshot + diff", "#c0392b"),
    ("failing hook, no snapshot", "failing hook, callus alone", "#2471a3"),
    ("recurring error", "recurring error", "#d68910"),
    ("callus suggest", "callus suggest", "#7d3c98"),
    ("passing check", "passing check", "#229954"),
]
GOAL_MS = 5
W, H = 760, 420
LEFT, RIGHT, TOP, BOTTOM = 70, 250, 30, 50


def read_table(path):
    """{column name: [(recordings, median ms)]} of one scale.sh table."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("|"):
                rows.append(line.strip().strip("|").split("|"))
            elif rows:
                break
    head = [c.strip() for c in rows[0]]
    out = {}
    for r in rows[2:]:
        cells = [c.strip() for c in r]
        n = int(cells[0].replace(",", ""))
        for name, _, _ in SERIES:
            if name in head:
                med = float(cells[head.index(name)].split("/")[1])
                out.setdefault(name, []).append((n, med))
    return out


def main(paths):
    tables = [read_table(p) for p in paths]
    xs = sorted({n for t in tables for s in t.values() for n, _ in s})
    ymax = max(v for t in tables for s in t.values() for _, v in s)
    ytop = 10 * math.ceil(ymax / 10)
    lx0, lx1 = math.log10(xs[0]), math.log10(xs[-1])
    if lx1 == lx0:  # one size: its points in the middle
        lx0, lx1 = lx0 - 0.5, lx1 + 0.5

    def px(n):
        return LEFT + (math.log10(n) - lx0) / (lx1 - lx0) * (W - LEFT - RIGHT)

    def py(v):
        return H - BOTTOM - v / ytop * (H - TOP - BOTTOM)

    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
         f'font-family="sans-serif" font-size="12">',
         f'<rect width="{W}" height="{H}" fill="white"/>']
    for v in range(0, ytop + 1, 10):
        o.append(f'<line x1="{LEFT}" y1="{py(v):.1f}" x2="{W - RIGHT}" y2="{py(v):.1f}" '
                 f'stroke="#ddd"/>')
        o.append(f'<text x="{LEFT - 8}" y="{py(v) + 4:.1f}" text-anchor="end">{v}</text>')
    for n in xs:
        o.append(f'<line x1="{px(n):.1f}" y1="{TOP}" x2="{px(n):.1f}" y2="{H - BOTTOM}" '
                 f'stroke="#eee"/>')
        o.append(f'<text x="{px(n):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle">'
                 f'{n:,}</text>')
    o.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 10}" text-anchor="middle">'
             'recordings in the store (log scale)</text>')
    o.append(f'<text x="16" y="{(TOP + H - BOTTOM) / 2}" text-anchor="middle" '
             f'transform="rotate(-90 16 {(TOP + H - BOTTOM) / 2})">CPU ms, median</text>')
    o.append(f'<line x1="{LEFT}" y1="{py(GOAL_MS):.1f}" x2="{W - RIGHT}" y2="{py(GOAL_MS):.1f}" '
             'stroke="#555" stroke-dasharray="2 3"/>')
    ly = TOP + 10
    for i, t in enumerate(tables):
        last = i == len(tables) - 1
        dash = "" if last else ' stroke-dasharray="5 4"'
        for name, label, colour in SERIES:
            if name not in t:
                continue
            pts = " ".join(f"{px(n):.1f},{py(v):.1f}" for n, v in t[name])
            o.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" '
                     f'stroke-width="{2 if last else 1.5}"{dash}/>')
            if last:
                for n, v in t[name]:
                    o.append(f'<circle cx="{px(n):.1f}" cy="{py(v):.1f}" r="3" '
                             f'fill="{colour}"/>')
    for name, label, colour in SERIES:
        o.append(f'<line x1="{W - RIGHT + 14}" y1="{ly}" x2="{W - RIGHT + 38}" y2="{ly}" '
                 f'stroke="{colour}" stroke-width="2"/>')
        o.append(f'<text x="{W - RIGHT + 44}" y="{ly + 4}">{label}</text>')
        ly += 20
    o.append(f'<line x1="{W - RIGHT + 14}" y1="{ly}" x2="{W - RIGHT + 38}" y2="{ly}" '
             'stroke="#555" stroke-dasharray="2 3"/>')
    o.append(f'<text x="{W - RIGHT + 44}" y="{ly + 4}">the goal, {GOAL_MS} ms</text>')
    ly += 20
    if len(tables) > 1:
        o.append(f'<line x1="{W - RIGHT + 14}" y1="{ly}" x2="{W - RIGHT + 38}" y2="{ly}" '
                 'stroke="#555" stroke-dasharray="5 4"/>')
        o.append(f'<text x="{W - RIGHT + 44}" y="{ly + 4}">dashed: an earlier curve</text>')
    o.append("</svg>")
    sys.stdout.write("\n".join(o) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: scale_plot.py TABLE.md... > plot.svg")
    main(sys.argv[1:])
