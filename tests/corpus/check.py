#!/usr/bin/env python3
"""Score `callus analyze` on the corpus (tests/corpus/cases) and on the external
samples (../shared/corpus/external); write docs/accuracy.md.  See check.sh.
"""

import concurrent.futures
import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASES = os.path.join(HERE, "cases")
PROJECTS = os.path.join(HERE, "projects")
ROOT = "/tmp/callus-corpus"   # where generate.sh ran the projects: absolute paths point there

NOT_A_CHECK = "(not a check: ls, git, node ...)"
BARS = {"detection": 0.99, "recall": 0.98, "precision": 0.95, "with_file": 0.99, "keep": 0.95,
        "collisions": 0}

# External samples: the command callus is told for each tool (any command that
# callus sees as running that tool).  Tools callus does not claim are not scored.
EXTERNAL_COMMANDS = {
    "reviewdog-errorformat": {
        "eslint": "npx eslint .",
        "eslint-compact": "npx eslint -f compact .",
        "tsc": "npx tsc --noEmit",
        "mypy": "mypy .",
        "govet": "go vet ./...",
        "cargo-check": "cargo check -q --message-format=short",
        "clippy": "cargo clippy -q --message-format=short",
        "flake8": "flake8 .",
    },
    "ale": {
        "gcc": "gcc -fsyntax-only -x c -",
        "clang": "clang -fsyntax-only -x c -",
        "cppcheck": "cppcheck --enable=style .",
        "shellcheck": "shellcheck -f gcc -",
        "mypy": "mypy .",
        "eslint": "npx eslint -f unix .",
        "eslint_json": "npx eslint -f json .",
        "flake8": "flake8 -",
        "pylint": "pylint --output-format=text .",
        "ruff": "ruff check --output-format=json-lines .",
        "rust": "cargo build --message-format=json",
        "gobuild": "go build ./...",
        "go_generic": "go vet ./...",
    },
}


def env_flag(name, default):
    v = os.environ.get(name)
    return default if v is None or v == "" else v


CALLUS = env_flag("CALLUS_BIN", "build/callus")
if not os.path.isabs(CALLUS):
    CALLUS = os.path.join(REPO, CALLUS)
ENFORCE = env_flag("CALLUS_ACCURACY_ENFORCE", "1") != "0"
REPORT = env_flag("CALLUS_ACCURACY_REPORT", os.path.join(REPO, "docs", "accuracy.md"))
EXTERNAL = env_flag("CALLUS_CORPUS_EXTERNAL",
                    os.path.join(os.path.dirname(REPO), "shared", "corpus", "external"))
JOBS = int(env_flag("CALLUS_ACCURACY_JOBS", str(os.cpu_count() or 2)))


# --- running callus --------------------------------------------------------------------


def clean_env(tmp):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": tmp, "TMPDIR": tmp,
           "LC_ALL": "C", "LANG": "C", "TZ": "UTC"}
    for k, v in os.environ.items():   # sanitizer settings for the ASan build
        if k.endswith("SAN_OPTIONS"):
            env[k] = v
    return env


def analyze(command, exit_code, workspace, cwd, data, env):
    """Runs callus analyze; returns (result dict or None, error text)."""
    try:
        r = subprocess.run([CALLUS, "analyze", "--command", command, "--exit-code", str(exit_code),
                            "--workspace", workspace], input=data, cwd=cwd, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, str(e)
    if r.returncode != 0:
        return None, f"exit {r.returncode}: {r.stderr.decode('utf-8', 'replace')[:300]}"
    try:
        return json.loads(r.stdout), ""
    except ValueError as e:
        return None, f"invalid JSON ({e}): {r.stdout[:200]!r}"


def prepare_workspaces(cases):
    """The projects at the paths used when the outputs were made.  A tree
    already there (from generate.sh or an earlier run) is kept; the
    project's files are copied in where missing."""
    os.makedirs(ROOT, exist_ok=True)
    with open(os.path.join(ROOT, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        for c in cases:
            dest = os.path.join(ROOT, c["project"])
            src = os.path.join(PROJECTS, c["project"])
            if os.path.isdir(src):
                for dirpath, dirnames, filenames in os.walk(src):
                    rel = os.path.relpath(dirpath, src)
                    os.makedirs(os.path.join(dest, rel), exist_ok=True)
                    for f in filenames:
                        d = os.path.join(dest, rel, f)
                        if not os.path.lexists(d):
                            shutil.copy2(os.path.join(dirpath, f), d)
            os.makedirs(os.path.normpath(os.path.join(dest, c["cwd"])), exist_ok=True)


# --- matching errors to planted groups --------------------------------------------------


def norm_code(c):
    if c is None:
        return None
    c = str(c).strip().lower()
    c = re.sub(r"^-?w(error=)?(?=[a-z])", "", c)
    c = re.sub(r"^(clippy|sc)(::)?", "", c)
    return c


def codes_compatible(a, b):
    a, b = norm_code(a), norm_code(b)
    if not a or not b:
        return True
    return a == b or a.endswith(b) or b.endswith(a)


def match_group(err, groups):
    """The planted group an error reported by callus stands for, or None."""
    f, line, code = err.get("file"), err.get("line"), err.get("code")
    msg = err.get("message") or ""
    test = err.get("test") or err.get("test_name") or ""
    at = []
    for g in groups:
        locs = [(g["file"], g["line"])] + [(a["file"], a["line"]) for a in g.get("also", [])]
        if (f, line) in locs:
            at.append(g)
    if at:
        fit = [g for g in at if codes_compatible(code, g["code"])]
        if len({g["group"] for g in fit}) == 1:
            return fit[0]["group"]
        if len({g["group"] for g in at}) == 1:
            return at[0]["group"]
        exact = [g for g in fit if norm_code(g["code"]) == norm_code(code)]
        if len({g["group"] for g in exact}) == 1:
            return exact[0]["group"]
        return None
    named = [g for g in groups if g.get("test") and (g["test"] == test or
             (len(g["test"]) > 6 and g["test"] in msg))]
    if len({g["group"] for g in named}) == 1:
        return named[0]["group"]
    return None


def signature_of(err, sigs_by_id, sigs):
    s = err.get("signature")
    if isinstance(s, dict):
        return s
    for key in ("signature", "signature_id"):
        v = err.get(key)
        if isinstance(v, str) and v in sigs_by_id:
            return sigs_by_id[v]
    v = err.get("signature_index")
    if isinstance(v, int) and 0 <= v < len(sigs):
        return sigs[v]
    return None


# --- scoring ------------------------------------------------------------------------------


def new_stats():
    return defaultdict(int)


def score_files(st, predicted, truth, judge_precision=True):
    p, t = set(predicted), set(truth)
    st["tp"] += len(p & t)
    st["fn"] += len(t - p)
    if judge_precision:
        st["fp"] += len(p - t)
        st["tp_judged"] += len(p & t)
    if t:
        st["with_truth"] += 1
        if p & t:
            st["with_file"] += 1


def ratio(a, b):
    return None if b == 0 else a / b


def fmt(x, digits=3):
    if x is None:
        return "–"
    return f"{x:.{digits}f}"


def run_corpus(env, dump=None):
    """dump: a list to append, for every error matched to a planted group,
    its case, tool, group and signature (--dump-signatures)."""
    cases = []
    for d in sorted(os.listdir(CASES)) if os.path.isdir(CASES) else []:
        p = os.path.join(CASES, d, "case.json")
        if os.path.isfile(p):
            with open(p, encoding="utf-8") as f:
                c = json.load(f)
            c["_dir"] = os.path.join(CASES, d)
            cases.append(c)
    prepare_workspaces(cases)

    def one(c):
        with open(os.path.join(c["_dir"], "output.txt"), "rb") as f:
            data = f.read()
        ws = os.path.join(ROOT, c["project"])
        cwd = os.path.normpath(os.path.join(ws, c["cwd"]))
        return analyze(c["command"], c["exit_code"], ws, cwd, data, env)

    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as ex:
        results = list(ex.map(one, cases))

    per_tool = defaultdict(new_stats)
    # the same figures for the held-out cases alone, and for the others
    split = {"heldout": defaultdict(new_stats), "tuned": defaultdict(new_stats)}
    problems = defaultdict(list)
    group_sigs = defaultdict(set)          # group -> {(error_type, message_pattern)}
    group_tools = defaultdict(set)
    sig_groups = defaultdict(set)          # signature id -> {group}
    sig_tools = defaultdict(set)
    have_signatures = False
    for c, (res, err) in zip(cases, results):
        tool = c["tool"] if c["verification"] else NOT_A_CHECK
        st = new_stats()   # this case's, added to the tables below
        st["cases"] += 1
        want_failed = c["verification"] and c["exit_code"] != 0
        st["failing"] += want_failed
        if res is None:
            st["crashes"] += 1
            problems[tool].append(f"`{c['id']}`: callus analyze failed: {err}")
            res = {}
        ok = (res.get("verification") == c["verification"] and res.get("failed") == want_failed)
        st["detected"] += ok
        if res and not ok:
            problems[tool].append(
                f"`{c['id']}`: detection verification={res.get('verification')} "
                f"failed={res.get('failed')}, expected {c['verification']}/{want_failed}")
        pred = res.get("affected_files") or []
        score_files(st, pred, c["affected_files"])
        missed = [f for f in c["affected_files"] if f not in pred]
        extra = [f for f in pred if f not in c["affected_files"]]
        if missed or extra:
            problems[tool].append(f"`{c['id']}`: " + "; ".join(
                x for x in (f"missed {', '.join(missed)}" if missed else "",
                            f"extra {', '.join(extra)}" if extra else "") if x))
        if want_failed:
            summary = res.get("error_summary") or ""
            kept = [k for k in c["must_keep"] if k in summary]
            st["keep_total"] += len(c["must_keep"])
            st["keep_found"] += len(kept)
            st["keep_cases"] += 1
            st["keep_cases_all"] += len(kept) == len(c["must_keep"])
            # every planted failure the output shows, by its test or its file:line,
            # and no line of the summary twice
            st["named_total"] += len(c["groups"])
            st["named_found"] += sum(
                1 for g in c["groups"]
                if (g.get("test") and g["test"] in summary)
                or (g["file"] and f"{g['file']}:{g['line']}" in summary))
            slines = summary.split("\n") if summary else []
            st["twice"] += len(slines) - len(set(slines))
            lost = [k for k in c["must_keep"] if k not in summary]
            if lost:
                problems[tool].append(f"`{c['id']}`: summary lacks "
                                      + ", ".join(repr(k) for k in lost))
            errs = res.get("errors") or []
            seen_codes = {norm_code(e.get("code")) for e in errs if e.get("code")}
            for sg in res.get("signatures") or []:   # a test's exception class
                if isinstance(sg, dict) and sg.get("error_type"):
                    seen_codes.add(norm_code(sg["error_type"]))
            for code in c["error_codes"]:
                st["codes_total"] += 1
                st["codes_found"] += any(codes_compatible(code, s) and s for s in seen_codes)
        for table in (per_tool, split["heldout" if c.get("heldout") else "tuned"]):
            for k, v in st.items():
                table[tool][k] += v
        sigs = res.get("signatures")
        if isinstance(sigs, list):
            have_signatures = True
            by_id = {s.get("id"): s for s in sigs if isinstance(s, dict)}
            for e in res.get("errors") or []:
                if str(e.get("severity") or "").lower() in ("note", "info", "help"):
                    continue
                g = match_group(e, c["groups"])
                s = signature_of(e, by_id, sigs)
                if g is None or s is None:
                    continue
                group_sigs[g].add((s.get("error_type"), s.get("message_pattern")))
                group_tools[g].add(tool)
                sig_groups[s.get("id")].add(g)
                sig_tools[s.get("id")].add(tool)
                if dump is not None:
                    dump.append({"case": c["id"], "tool": tool, "group": g,
                                 "heldout": bool(c.get("heldout")), "signature": {
                        k: s.get(k) for k in ("id", "error_type", "message_pattern",
                                              "stack_patterns", "context_patterns",
                                              "original", "tool")}})

    # signature stability, per tool and in all
    sig = {"available": have_signatures, "unstable": [], "collisions": []}
    if have_signatures:
        for g, pats in sorted(group_sigs.items()):
            for t in group_tools[g]:
                per_tool[t]["groups"] += 1
                per_tool[t]["groups_stable"] += len(pats) == 1
            if len(pats) > 1:
                sig["unstable"].append((g, sorted(map(str, pats))))
        for sid, gs in sorted(sig_groups.items(), key=lambda kv: str(kv[0])):
            if len(gs) > 1:
                sig["collisions"].append((sid, sorted(gs)))
                for t in sig_tools[sid]:
                    per_tool[t]["collisions"] += 1
    sig["split"] = split
    return cases, per_tool, problems, sig


SYSTEM_DIRS = ("/usr/", "/opt/", "/lib/", "/Library/", "/Applications/")


def truth_paths(c, text=None):
    """Expected files of an external sample: the toolchain's own files
    (/usr/include/...) are never affected files.  ALE's null is the buffer:
    named by buffer_file when the output prints that name, else unknown."""
    out = []
    for e in c["expected"]:
        f = e.get("file")
        if not f and c.get("buffer_file") and text is not None:
            b = c["buffer_file"].rsplit("/", 1)[-1]
            if b and b in text:
                f = c["buffer_file"]
        if f and not f.startswith(SYSTEM_DIRS) and f not in out:
            out.append(f)
    return out


def base(p):
    return p.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]


def run_external(env):
    """Per tool stats on the external samples, and the tools not scored."""
    per_tool = defaultdict(new_stats)
    problems = defaultdict(list)
    skipped = defaultdict(int)
    if not os.path.isdir(EXTERNAL):
        return None, per_tool, problems, skipped
    jobs = []
    for src in sorted(os.listdir(EXTERNAL)):
        path = os.path.join(EXTERNAL, src, "cases.jsonl")
        if not os.path.isfile(path):
            continue
        cmds = EXTERNAL_COMMANDS.get(src, {})
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                c = json.loads(line)
                if c["tool"] not in cmds:
                    skipped[f"{src}/{c['tool']}"] += 1
                    continue
                jobs.append((src, n, c, cmds[c["tool"]]))
    ws = os.path.join(ROOT, ".external")
    os.makedirs(ws, exist_ok=True)

    def one(job):
        src, n, c, cmd = job
        with open(os.path.join(EXTERNAL, src, c["output_file"]), "rb") as f:
            data = f.read()
        # The samples were made on other machines: their absolute paths
        # (/path/to/x.js, /home/someone/...) are moved under the workspace, as
        # they would be in it on the machine that made them.  The file's base
        # name is what is compared.
        for root in sorted({"/" + f.split("/")[1] + "/" for f in truth_paths(c)
                            if f.startswith("/")}):
            data = re.sub(rb"(?<![\w.~/-])" + re.escape(root.encode()),
                          ws.encode() + root.encode(), data)
        return analyze(cmd, 1, ws, ws, data, env)

    with concurrent.futures.ThreadPoolExecutor(max_workers=JOBS) as ex:
        results = list(ex.map(one, jobs))
    for (src, n, c, cmd), (res, err) in zip(jobs, results):
        with open(os.path.join(EXTERNAL, src, c["output_file"]), encoding="utf-8",
                  errors="replace") as f:
            text = f.read()
        tool = f"{src}/{c['tool']}"
        st = per_tool[tool]
        st["cases"] += 1
        st["failing"] += 1
        if res is None:
            st["crashes"] += 1
            problems[tool].append(f"line {n}: callus analyze failed: {err}")
            res = {}
        st["detected"] += bool(res.get("verification") and res.get("failed"))
        truth = {base(f) for f in truth_paths(c, text)}
        # ALE's expectations are an editor's: files other than the buffer
        # are dropped, some entries depend on options, and a null file is
        # "the buffer" (name unknown).  So ALE samples count for recall only.
        judge = src != "ale"
        pred = {base(f) for f in res.get("affected_files") or []}
        score_files(st, pred, truth, judge_precision=judge)
        missed = sorted(truth - pred)
        extra = sorted(pred - truth) if judge else []
        if missed or extra:
            problems[tool].append(f"{c['output_file']}: " + "; ".join(
                x for x in (f"missed {', '.join(missed)}" if missed else "",
                            f"extra {', '.join(extra)}" if extra else "") if x))
    return True, per_tool, problems, skipped


# --- the report ------------------------------------------------------------------------------


def totals(per_tool):
    t = new_stats()
    for st in per_tool.values():
        for k, v in st.items():
            t[k] += v
    return t


def figures(st):
    return {
        "detection": ratio(st["detected"], st["cases"]),
        "precision": ratio(st["tp_judged"], st["tp_judged"] + st["fp"]),
        "recall": ratio(st["tp"], st["tp"] + st["fn"]),
        "with_file": ratio(st["with_file"], st["with_truth"]),
        "keep": ratio(st["keep_found"], st["keep_total"]),
        "keep_cases": ratio(st["keep_cases_all"], st["keep_cases"]),
        "codes": ratio(st["codes_found"], st["codes_total"]),
        "named": ratio(st["named_found"], st["named_total"]),
    }


def mark(value, bar):
    if value is None:
        return "–"
    return f"{value:.3f}" + ("" if value >= bar else " ✗")


def tool_table(per_tool, sig, lines, external=False):
    head = "| tool | cases | failing | detection | precision | recall | with a correct file |"
    sep = "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    if not external:
        head += (" must-keep lines | cases keeping all | codes found | signatures stable |"
                 " collisions |")
        sep += " ---: | ---: | ---: | ---: | ---: |"
    lines += [head, sep]
    rows = sorted(per_tool.items()) + [("**total**", totals(per_tool))]
    for tool, st in rows:
        f = figures(st)
        row = (f"| {tool} | {st['cases']} | {st['failing']} | {fmt(f['detection'])} | "
               f"{mark(f['precision'], BARS['precision'])} | {mark(f['recall'], BARS['recall'])} | "
               f"{mark(f['with_file'], BARS['with_file'])} |")
        if not external:
            stable = (f"{st['groups_stable']}/{st['groups']}" if sig["available"] and st["groups"]
                      else ("–" if sig["available"] else "n/a"))
            coll = str(st["collisions"]) if sig["available"] else "n/a"
            if tool == "**total**" and sig["available"]:
                ng = len(sig["unstable"])
                stable = f"{ng} group(s) unstable"
                coll = str(len(sig["collisions"]))
            row += (f" {fmt(f['keep'])} | {fmt(f['keep_cases'])} | {fmt(f['codes'])} | "
                    f"{stable} | {coll} |")
        lines.append(row)


def bars_of(name, st, sig, external=False):
    f = figures(st)
    out = []
    keys = [("recall", "affected-file recall", BARS["recall"]),
            ("precision", "affected-file precision", BARS["precision"]),
            ("with_file", "failing cases with a correct file", BARS["with_file"])]
    # the external samples are bare errors: no command to detect, no summary to keep
    if not external:
        keys = [("detection", "detection", BARS["detection"])] + keys + \
               [("keep", "must-keep lines in the summary", BARS["keep"])]
    for key, label, bar in keys:
        v = f[key]
        out.append((f"{name}: {label} ≥ {bar}", fmt(v), v is not None and v >= bar))
    if sig is not None:
        if sig["available"]:
            n = len(sig["collisions"])
            out.append((f"{name}: signature collisions across groups = 0", str(n), n == 0))
        else:
            out.append((f"{name}: signature collisions across groups = 0",
                        "n/a (no `signatures` in callus analyze yet)", False))
    return out


def main():
    # --dump-signatures FILE: also write the signatures of the errors matched
    # to a planted group, as JSON (tests/corpus/embed_eval.sh calibrates the
    # built-in embedder on them)
    args, dump_path = sys.argv[1:], None
    if args[:1] == ["--dump-signatures"] and len(args) == 2:
        dump_path = args[1]
    elif args:
        print("usage: check.py [--dump-signatures FILE]", file=sys.stderr)
        return 2
    dump = [] if dump_path else None
    if not os.access(CALLUS, os.X_OK):
        print(f"check: {CALLUS} is not an executable (make? CALLUS_BIN?)", file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix="callus-accuracy.")
    try:
        env = clean_env(tmp)
        cases, per_tool, problems, sig = run_corpus(env, dump)
        ext_ok, ext_tools, ext_problems, skipped = run_external(env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    tot = totals(per_tool)
    held = sig["split"]["heldout"]
    tuned = sig["split"]["tuned"]
    bars = bars_of("corpus", tot, sig)
    if held:
        bars += bars_of("held-out cases", totals(held), None)
    if ext_ok:
        bars += bars_of("external", totals(ext_tools), None, external=True)
    lines = ["# Accuracy of `callus analyze`", "",
             "Generated by `tests/corpus/check.sh` (run by `make check`); do not edit.",
             "", "It runs `callus analyze` on every case of `tests/corpus/cases/` (outputs of real "
             "tools on the projects of `tests/corpus/projects/`, made by "
             "`tests/corpus/generate.sh`; versions in `tests/corpus/VERSIONS`) and on the "
             "external samples of `../shared/corpus/external/`, and compares with the ground "
             "truth.", "",
             "- **detection**: `verification` and `failed` both as expected.",
             "- **precision / recall**: of `affected_files`, over all files of all cases "
             "(a file reported for a clean run or a non-verification command is a false positive).",
             "- **with a correct file**: failing cases whose output names a file that at least "
             "one reported file matches (cases whose output names no file are not counted).",
             "- **must-keep lines**: the texts each case says the 500-byte `error_summary` must "
             "keep (the first error's code and file, the failing test), found / expected.",
             "- **failures named**: the planted errors of the failing cases whose test or "
             "`file:line` the `error_summary` names (an output of 550 errors cannot have them "
             "all in 500 bytes: a figure to compare, not a bar); **lines twice**: summary lines "
             "that are the same line again.",
             "- **codes found**: expected codes and rules among the `code`s of `errors` and the "
             "`error_type`s of `signatures`.",
             "- **signatures stable**: planted root-cause groups whose errors all got one "
             "`error_type` and `message_pattern`; **collisions**: signature ids shared by two "
             "groups.", "",
             f"Corpus: {len(cases)} cases, {len(set(per_tool) - {NOT_A_CHECK})} tools "
             f"({tot['failing']} failing, {tot['cases'] - tot['failing']} clean runs or "
             f"non-verification commands); {totals(held)['cases']} of the cases are held out "
             "([below](#held-out-cases)).", "", "## Bars", "",
             "| bar | value | holds |", "| --- | ---: | :---: |"]
    for label, value, ok in bars:
        lines.append(f"| {label} | {value} | {'yes' if ok else '**no**'} |")
    lines += ["", "## Corpus, per tool", ""]
    tool_table(per_tool, sig, lines)
    if sig["available"] and (sig["unstable"] or sig["collisions"]):
        lines += ["", "### Signature problems", ""]
        for g, pats in sig["unstable"][:30]:
            lines.append(f"- group `{g}`: {len(pats)} patterns: " + "; ".join(
                f"`{p}`" for p in pats[:3]))
        for sid, gs in sig["collisions"][:30]:
            lines.append(f"- signature `{str(sid)[:16]}` shared by groups {', '.join(gs)}")
    lines += ["", "## Held-out cases", "",
              "Cases marked `heldout` in `tests/corpus/manifest.py`: their outputs were made "
              "after the parsers that read them were written, and no parser, rule or threshold "
              "was changed for them. The same figures, held-out cases apart from the others "
              "(whose outputs the parsers were written on):", "",
              "| cases | n | failing | detection | precision | recall | with a correct file | "
              "must-keep lines | codes found | failures named | lines twice |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, table in (("tuned on", tuned), ("held out", held)):
        t = totals(table)
        f = figures(t)
        lines.append(f"| {name} | {t['cases']} | {t['failing']} | {fmt(f['detection'])} | "
                     f"{mark(f['precision'], BARS['precision'])} | "
                     f"{mark(f['recall'], BARS['recall'])} | "
                     f"{mark(f['with_file'], BARS['with_file'])} | {fmt(f['keep'])} | "
                     f"{fmt(f['codes'])} | {fmt(f['named'])} | {t['twice']} |")
    if held:
        lines += ["", "Held-out cases, per tool:", ""]
        tool_table(held, {"available": False}, lines)
    lines += ["", "## External samples, per tool", ""]
    if not ext_ok:
        lines.append(f"Not found: `{EXTERNAL}` (set CALLUS_CORPUS_EXTERNAL).")
    else:
        lines += ["File names (base names) are compared: the samples were made on other "
                  "machines (their absolute paths are moved under the workspace; toolchain files "
                  "such as /usr/include/... are not expected). ALE's expectations are an "
                  "editor's (only the buffer's file, option-dependent, `null` for the buffer), so "
                  "ALE samples count for recall only; reviewdog's for precision too. Only the "
                  "tools callus claims are scored; the others are listed below.", ""]
        tool_table(ext_tools, sig, lines, external=True)
        if skipped:
            lines += ["", "Not scored (not a tool callus detects): " + ", ".join(
                f"{t} ({n})" for t, n in sorted(skipped.items())) + "."]
    lines += ["", "## Misses, per tool (first 8 each)", ""]
    for name, probs in (("corpus", problems), ("external", ext_problems)):
        for tool in sorted(probs):
            ps = probs[tool]
            more = f" (+{len(ps) - 8} more)" if len(ps) > 8 else ""
            lines.append(f"- {name} **{tool}**{more}: " + " · ".join(ps[:8]))
    text = "\n".join(lines) + "\n"
    if dump_path:
        with open(dump_path, "w", encoding="utf-8") as f:
            json.dump(dump, f, indent=1)
            f.write("\n")
    os.makedirs(os.path.dirname(REPORT), exist_ok=True)
    with open(REPORT, "w", encoding="utf-8") as f:
        f.write(text)

    # the summary on stdout
    f = figures(tot)
    print(f"accuracy: corpus {len(cases)} cases, {len(set(per_tool) - {NOT_A_CHECK})} tools: "
          "detection "
          f"{fmt(f['detection'])}, precision {fmt(f['precision'])}, recall {fmt(f['recall'])}, "
          f"with a correct file {fmt(f['with_file'])}, must-keep {fmt(f['keep'])}, signatures "
          + (f"{len(sig['collisions'])} collisions, {len(sig['unstable'])} unstable groups"
             if sig["available"] else "n/a"))
    for name, table in (("tuned-on", tuned), ("held-out", held)):
        if table:
            ft, tt = figures(totals(table)), totals(table)
            print(f"accuracy: {name} {tt['cases']} cases: detection {fmt(ft['detection'])}, "
                  f"precision {fmt(ft['precision'])}, recall {fmt(ft['recall'])}, with a correct "
                  f"file {fmt(ft['with_file'])}, must-keep {fmt(ft['keep'])}, failures named "
                  f"{fmt(ft['named'])}, summary lines twice {tt['twice']}")
    if ext_ok:
        fe = figures(totals(ext_tools))
        print(f"accuracy: external {totals(ext_tools)['cases']} samples: precision "
              f"{fmt(fe['precision'])}, recall {fmt(fe['recall'])}, with a correct file "
              f"{fmt(fe['with_file'])}")
    crashed = tot["crashes"] + totals(ext_tools)["crashes"]
    if crashed:
        print(f"accuracy: callus analyze failed (crash, bad status or invalid JSON) on {crashed} "
              "output(s): see the report's misses")
    missed = [label for label, _, ok in bars if not ok]
    for label in missed:
        print(f"accuracy: bar missed: {label}")
    shown = os.path.relpath(REPORT, REPO)
    print(f"accuracy: report in {REPORT if shown.startswith('..') else shown}")
    if crashed:
        return 3
    if missed and ENFORCE:
        return 1
    if missed:
        print("accuracy: not enforced (CALLUS_ACCURACY_ENFORCE=0)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
