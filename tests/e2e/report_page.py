#!/usr/bin/python3
"""report_page.py - what tests/e2e/t0025-report.sh asks of a report page.

  report_page.py valid FILE       the page is well-formed HTML5: html5lib's
                                  strict parser (Debian's python3-html5lib)
                                  finds no parse error; exit 1 with the first
  report_page.py requests NETLOG  the URLs a page asked for, one a line, from
                                  a Chromium --log-net-log file: requests whose
                                  network isolation key is the file:// page's
                                  (Chromium's own background requests have none)
  report_page.py measured FILE OUT  a copy of the page that measures itself: the
                                  page's policy taken out (it forbids scripts)
                                  and a script that writes how far the page is
                                  wider than the window into <body data-overflow>,
                                  and its background colour into data-bg
                                  (test-only: the report itself has no script)
"""
import json
import sys


def valid(path):
    import html5lib

    with open(path, "rb") as f:
        data = f.read()
    try:
        html5lib.HTMLParser(strict=True).parse(data)
    except html5lib.html5parser.ParseError as e:
        print("%s: %s" % (path, e))
        return 1
    return 0


def requests(path):
    with open(path) as f:
        log = json.load(f)
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    seen = set()
    for e in log["events"]:
        p = e.get("params") or {}
        if types.get(e["type"]) != "URL_REQUEST_START_JOB" or "url" not in p:
            continue
        if "file://" in p.get("network_isolation_key", "") and p["url"] not in seen:
            seen.add(p["url"])
            print(p["url"])
    return 0


MEASURE = ("<script>document.body.setAttribute('data-overflow', String("
           "document.documentElement.scrollWidth - document.documentElement.clientWidth));"
           "document.body.setAttribute('data-bg', getComputedStyle(document.body).backgroundColor)"
           "</script>")


def measured(path, out):
    with open(path, encoding="utf-8") as f:
        page = f.read()
    start = page.find('<meta http-equiv="Content-Security-Policy"')
    if start < 0:
        print("%s: no Content-Security-Policy" % path)
        return 1
    page = page[:start] + page[page.index(">", start) + 1:]
    page = page.replace("</body>", MEASURE + "</body>", 1)
    with open(out, "w", encoding="utf-8") as f:
        f.write(page)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "valid":
        return valid(argv[2])
    if len(argv) == 3 and argv[1] == "requests":
        return requests(argv[2])
    if len(argv) == 4 and argv[1] == "measured":
        return measured(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
