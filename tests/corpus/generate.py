#!/usr/bin/env python3
"""Regenerate tests/corpus/cases/ by running the real tools (see generate.sh).

The manifest is manifest.py: its planted errors list, per project, the
errors planted in tests/corpus/projects/<project>/ (file, a text that finds
the line, the code or rule, the root-cause group); CASES lists the commands
run and which planted errors each output shows.  From those, each case.json
gets its ground truth; the output itself is never rewritten.

After each run the script checks the ground truth against the output (every
affected file, code and must-keep text is in it; the exit status is as
expected) and prints a warning for each mismatch: fix the manifest, not the
output.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from typing import List, Optional

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from manifest import CASES, PROJECTS, Case, P, find_line  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CASES_DIR = os.path.join(HERE, "cases")
ROOT = "/tmp/callus-corpus"
TOOLS = os.path.join(REPO, "tests", "tools", "node_modules")
# bun and deno (scripts/install-corpus-tools.sh): on the tools' PATH, as if installed
CORPUS_TOOLS = os.path.join(HERE, "tools", "node_modules", ".bin")

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    text = ANSI.sub("", text)
    # carriage-return redraws: keep what follows the last \r of a line
    return "\n".join(ln.rsplit("\r", 1)[-1] if "\r" in ln.rstrip("\r") else ln.rstrip("\r")
                     for ln in text.split("\n"))


# --- running ----------------------------------------------------------------


def base_env() -> dict:
    path = [CORPUS_TOOLS, "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]
    env = {
        "HOME": f"{ROOT}/.home",
        "TMPDIR": f"{ROOT}/.tmp",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TZ": "UTC",
        "COLUMNS": "100",
        "USER": "dev",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "A U Thor", "GIT_AUTHOR_EMAIL": "author@example.com",
        "GIT_AUTHOR_DATE": "1112911993 +0000",
        "GIT_COMMITTER_NAME": "C O Mitter", "GIT_COMMITTER_EMAIL": "committer@example.com",
        "GIT_COMMITTER_DATE": "1112911993 +0000",
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
        "npm_config_cache": f"{ROOT}/.cache/npm",
        "GOCACHE": f"{ROOT}/.cache/go-build",
        "GOPATH": f"{ROOT}/.cache/gopath",
        "GOPROXY": "off",
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-modcacherw",
        "CGO_ENABLED": "0",
        "CARGO_NET_OFFLINE": "true",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONHASHSEED": "0",
        "DENO_DIR": f"{ROOT}/.cache/deno",
        "DENO_NO_UPDATE_CHECK": "1",
    }
    # rustup's cargo (if that is the one installed) finds its toolchains here
    real_home = os.path.expanduser("~")
    for var, default in (("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")):
        val = os.environ.get(var) or os.path.join(real_home, default)
        if os.path.isdir(val):
            env[var] = val
            if var == "CARGO_HOME" and os.path.isdir(os.path.join(val, "bin")):
                path.append(os.path.join(val, "bin"))
    env["PATH"] = ":".join(path)
    return env


def sh(cmd: str, cwd: str, env: dict) -> None:
    subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def link_tools(dest: str) -> None:
    """node_modules as a real directory in the project (hard links to
    tests/tools/node_modules, else a copy): tools print its paths as
    node_modules/..., as in any project, not the checkout's path."""
    nm = os.path.join(dest, "node_modules")
    if subprocess.run(["cp", "-al", TOOLS, nm], stderr=subprocess.DEVNULL).returncode != 0:
        shutil.rmtree(nm, ignore_errors=True)
        shutil.copytree(TOOLS, nm, symlinks=True)


PREPARE = {
    "cmake-app": "cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug && cmake --build build && "
                 "cmake -S . -B build-broken -DWITH_BROKEN=ON",
    "meson-app": "meson setup builddir && cmake -S . -B cbuild -G Ninja",
    "ho-c": "meson setup builddir",
}


def setup_project(name: str, env: dict) -> str:
    dest = os.path.join(ROOT, name)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    shutil.copytree(os.path.join(PROJECTS, name), dest, symlinks=True)
    sh("git -c init.defaultBranch=main init -q && git add -A && "
       f"git -c commit.gpgSign=false commit -q -m '{name}'", dest, env)
    if os.path.exists(os.path.join(dest, "package.json")):
        link_tools(dest)
        with open(os.path.join(dest, ".git", "info", "exclude"), "a") as f:
            f.write("node_modules/\n")
    if name in PREPARE:
        sh(PREPARE[name], dest, env)
    return dest


def rel_in_output(path: str, text: str) -> Optional[str]:
    """The longest suffix of path (by components) printed in text."""
    parts = path.split("/")
    for i in range(len(parts)):
        cand = "/".join(parts[i:])
        if re.search(r"(?<![\w.-])" + re.escape(cand) + r"(?![\w-])", text):
            return cand
    return None


def shown_first(path: str, text: str) -> Optional[str]:
    """How the output first names path: of its printed suffixes, the one
    whose first occurrence ends first (the longer one on a tie)."""
    parts = path.split("/")
    best, best_end = None, None
    for i in range(len(parts)):
        cand = "/".join(parts[i:])
        m = re.search(r"(?<![\w.-])" + re.escape(cand) + r"(?![\w-])", text)
        if m and (best_end is None or m.end() < best_end):
            best, best_end = cand, m.end()
    return best


def first_in_output(errors: List[P], text: str) -> Optional[P]:
    best, best_pos = None, None
    for e in errors:
        pats = []
        if e.test:
            pats.append(e.test)
        shown = rel_in_output(e.file, text)
        if shown:
            pats.append(shown)
        for p in pats:
            pos = text.find(p)
            if pos >= 0 and (best_pos is None or pos < best_pos):
                best, best_pos = e, pos
    return best


def ground_truth(c: Case, text: str, status: int, warn) -> dict:
    failing = c.verification and status != 0
    errors = c.errors if failing else []
    if c.files is not None:
        files = list(c.files) if failing else []
    else:
        files = []
        for e in errors:
            for f in [e.file] + [a[0] for a in e.also]:
                if f not in files:
                    files.append(f)
    codes = c.codes if c.codes is not None else sorted({e.code for e in errors if e.code})
    if not failing:
        codes = []
    if c.must_keep is not None:
        keep = list(c.must_keep)
    else:
        keep = []
        first = first_in_output(errors, text)
        if first:
            # a test's exception class alone (Error, AssertionError) says little
            if first.code and first.code in text and not (
                    first.test and first.code in ("Error", "AssertionError")):
                keep.append(first.code)
            shown = shown_first(first.file, text)
            if shown:
                keep.append(shown)
            if first.test:
                keep.append(first.test)
    keep += [k for k in c.keep_more if k not in keep]
    groups = []
    for e in errors:
        g = {"file": e.file, "line": e.line, "code": e.code, "group": e.group}
        if e.test:
            g["test"] = e.test
        if e.also:
            g["also"] = [{"file": a[0], "line": find_line(c.project, a[0], a[1])} for a in e.also]
        groups.append(g)

    # sanity checks of the manifest against the real output
    if c.expect == "fail" and status == 0:
        warn("expected a failure, got exit status 0")
    elif c.expect != "fail" and status != c.expect:
        warn(f"expected exit status {c.expect}, got {status}")
    for f in c.ctx:
        if f in files:
            warn(f"{f} is both affected and context")
    for f in files:
        if not rel_in_output(f, text):
            warn(f"affected file {f} not in the output")
    for code in codes:
        if code not in text and not (code.startswith("SC") and f'"code":{code[2:]}' in text):
            warn(f"code {code} not in the output")
    for k in keep:
        if k not in text:
            warn(f"must-keep {k!r} not in the output")
    if failing:
        # project files the output names that the ground truth leaves out
        for dirpath, dirnames, filenames in os.walk(os.path.join(PROJECTS, c.project)):
            dirnames[:] = [d for d in dirnames if d not in ("node_modules", "target", "build")]
            for fn in filenames:
                p = os.path.relpath(os.path.join(dirpath, fn), os.path.join(PROJECTS, c.project))
                named = re.search(r"(?<![\w.-])" + re.escape(p) + r"(?![\w-])", text)
                if p not in files and p not in c.ctx and named:
                    warn(f"output names {p}, not an affected file here")

    case = {
        "id": c.id,
        "tool": c.tool,
        "command": c.command,
        "project": c.project,
        "cwd": c.cwd,
        "exit_code": status,
        "verification": c.verification,
        "color": c.color,
        "affected_files": files,
        "must_keep": keep,
        "error_codes": codes,
        "groups": groups,
        "not_affected": c.ctx if failing else [],
        "notes": c.notes,
    }
    if c.runner:
        case["runner"] = c.runner
    if c.heldout:
        case["heldout"] = True
    if c.env:
        case["env"] = c.env
    return case


def run_case(c: Case, env0: dict, warnings: list, truth_only: bool = False) -> None:
    d = os.path.join(CASES_DIR, c.id)
    if truth_only:
        # the ground truth again, from the output already there
        with open(os.path.join(d, "output.txt"), "rb") as f:
            out = f.read()
        with open(os.path.join(d, "case.json"), encoding="utf-8") as f:
            status = json.load(f)["exit_code"]
    else:
        proj = os.path.join(ROOT, c.project)
        cwd = os.path.normpath(os.path.join(proj, c.cwd))
        env = dict(env0)
        env.update(c.env)
        if c.pre:
            sh(c.pre, proj, env)
        r = subprocess.run(["bash", "-c", c.command], cwd=cwd, env=env,
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=600)
        out, status = r.stdout, r.returncode
    text = strip_ansi(out.decode("utf-8", "replace"))

    def warn(msg):
        warnings.append(f"{c.id}: {msg}")

    for e in c.errors:
        if not e.line:
            e.locate(c.project)
    case = ground_truth(c, text, status, warn)
    if c.color and b"\x1b[" not in out and b"\\u001b[" not in out:
        warn("color case without ANSI escapes")
    os.makedirs(d, exist_ok=True)
    if not truth_only:
        with open(os.path.join(d, "output.txt"), "wb") as f:
            f.write(out)
    with open(os.path.join(d, "case.json"), "w", encoding="utf-8") as f:
        json.dump(case, f, indent=2, ensure_ascii=False)
        f.write("\n")
    print(f"{c.id}: exit {status}, {len(out)} bytes, {len(case['affected_files'])} files",
          flush=True)


VERSION_CMDS = [
    ("node", "node --version"),
    ("npm", "npm --version"),
    ("eslint", f"{TOOLS}/.bin/eslint --version"),
    ("typescript (tsc)", f"{TOOLS}/.bin/tsc --version"),
    ("jest", f"{TOOLS}/.bin/jest --version"),
    ("vitest", f"{TOOLS}/.bin/vitest --version"),
    ("mocha", f"{TOOLS}/.bin/mocha --version"),
    ("python3", "python3 --version"),
    ("pytest", "python3 -m pytest --version"),
    ("mypy", "mypy --version"),
    ("flake8", "flake8 --version"),
    ("pylint", "pylint --version | head -n 1"),
    ("gcc", "gcc --version | head -n 1"),
    ("clang", "clang --version | head -n 1"),
    ("make", "make --version | head -n 1"),
    ("cmake/ctest", "ctest --version | head -n 1"),
    ("cppcheck", "cppcheck --version"),
    ("go", "go version"),
    ("cargo", "cargo --version"),
    ("rustc", "rustc --version"),
    ("clippy", "cargo clippy --version"),
    ("shellcheck", "shellcheck --version | sed -n 2p"),
    ("git", "git --version"),
    ("bash", "bash --version | head -n 1"),
    ("javac", "javac -version"),
    ("maven", "mvn -B -v -s /etc/maven/settings-debian.xml 2>/dev/null | sed -n 1p | "
     "sed 's/\\x1b\\[[0-9;]*m//g'"),
    ("maven-surefire-plugin", "ls /usr/share/maven-repo/org/apache/maven/plugins/"
     "maven-surefire-plugin | grep -v debian | tail -n 1"),
    ("kotlinc", "kotlinc -version 2>&1 | tail -n 1"),
    ("ruby", "ruby --version"),
    ("rspec", "rspec --version | head -n 1"),
    ("minitest", "ruby -e 'require \"minitest\"; puts Minitest::VERSION'"),
    ("rubocop", "rubocop --version"),
    ("php", "php --version | head -n 1"),
    ("phpunit", "phpunit --version | head -n 1"),
    ("prove", "prove --version"),
    ("elixir (mix)", "elixir --version | tail -n 1"),
    ("pyflakes", "python3 -m pyflakes --version"),
    ("bandit", "bandit --version | head -n 1"),
    ("black", "black --version | head -n 1"),
    ("isort", "isort --version | grep VERSION"),
    ("yamllint", "yamllint --version"),
    ("clang-tidy", "clang-tidy --version | grep version"),
    ("meson", "meson --version"),
    ("ninja", "ninja --version"),
    ("xmllint", "xmllint --version 2>&1 | head -n 1"),
    ("pyright", f"{TOOLS}/.bin/pyright --version"),
    ("biome", f"{TOOLS}/.bin/biome --version"),
    ("oxlint", f"{TOOLS}/.bin/oxlint --version"),
    ("prettier", f"{TOOLS}/.bin/prettier --version"),
    ("stylelint", f"{TOOLS}/.bin/stylelint --version"),
    ("markdownlint", f"{TOOLS}/.bin/markdownlint --version"),
    ("ava", f"{TOOLS}/.bin/ava --version"),
    ("bun", "bun --version"),
    ("deno", "deno --version | head -n 1"),
    ("playwright test", f"{TOOLS}/.bin/playwright --version"),
    ("gradle", "gradle --version 2>/dev/null | grep '^Gradle'"),
]


def write_versions(env: dict) -> None:
    lines = ["# Tool versions used by tests/corpus/generate.sh for the committed outputs.",
             "# Regenerating with other versions changes the outputs (fine: commit both).", ""]
    for name, cmd in VERSION_CMDS:
        r = subprocess.run(["bash", "-c", cmd], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, cwd=ROOT)
        v = r.stdout.decode("utf-8", "replace").strip().replace("\n", " ") or "(missing)"
        lines.append(f"{name}: {v}")
    with open(os.path.join(HERE, "VERSIONS"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv: List[str]) -> int:
    truth_only = len(argv) > 1 and argv[1] == "--truth-only"
    only = argv[2:] if truth_only else argv[1:]
    cases = [c for c in CASES if not only or any(c.id.startswith(p) for p in only)]
    if not cases:
        print("generate: no case matches", file=sys.stderr)
        return 2
    ids = [c.id for c in CASES]
    dup = {i for i in ids if ids.count(i) > 1}
    if dup:
        print(f"generate: duplicate case ids: {sorted(dup)}", file=sys.stderr)
        return 2
    env = base_env()
    for d in (ROOT, env["HOME"], env["TMPDIR"]):
        os.makedirs(d, exist_ok=True)
    if truth_only:
        missing = [c.id for c in cases
                   if not os.path.isfile(os.path.join(CASES_DIR, c.id, "output.txt"))]
        if missing:
            print(f"generate: no output yet for {', '.join(missing)}", file=sys.stderr)
            return 2
    elif not only and os.path.isdir(CASES_DIR):
        shutil.rmtree(CASES_DIR)
    os.makedirs(CASES_DIR, exist_ok=True)
    warnings: List[str] = []
    done = set()
    for c in cases:
        if c.project not in done and not truth_only:
            setup_project(c.project, env)
            done.add(c.project)
        run_case(c, env, warnings, truth_only)
    if not only and not truth_only:
        write_versions(env)
    for w in warnings:
        print(f"warning: {w}", file=sys.stderr)
    tools = {c.tool for c in cases}
    print(f"generate: {len(cases)} cases, {len(tools)} tools, {len(warnings)} warnings")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
