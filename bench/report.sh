#!/bin/sh
# bench/report.sh - `callus report` on a store of N errors (default 100,000;
# DESIGN §9 and issue 17 ask for under a second there), against
# `callus status` on the same store in the same run (one read of counts and
# a few rows: the cheapest command that opens the store).
#
# The store is callus's own: a real gcc failure and fix make it, then SQL
# grows it to N runs, N lessons and N errors over the last 90 days (six
# tools, 40 directories, 500 files, a fifth of the errors' signatures
# recurring; 80% fixed with their resolutions, 10% permanent, 10% pending;
# a note for every tenth recurring signature; suggestions for a third of
# the errors), the shapes the page's queries read.  Each command runs
# RUNS times under hyperfine; its mean CPU time (user + system) is printed
# too, steadier than the wall time on a shared machine.
# Usage: bench/report.sh [N] [RUNS] [path/to/callus]
# KEEP=DIR keeps the workspace there (its .callus/report.html is the page).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100000}
runs=${2:-10}
callus=${3:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe report "$callus") || exit 2
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
git init -q .
git config user.email bench@example.com
git config user.name bench

printf '#include <stdio.h>\n\nvoid show(int n)\n{\n\tprintf("%%s\\n", n);\n}\n' >show.c
git add show.c && git -c commit.gpgSign=false commit -qm start
"$callus" run -- gcc -Werror=format -c show.c >/dev/null 2>&1 || true
sed -i 's/%s/%d/' show.c
"$callus" run -- gcc -Werror=format -c show.c >/dev/null 2>&1

s=$((n / 5))   # recurring signatures
# the errors are written as they end up (fixed, permanent), which the
# trigger that starts every error pending refuses: it is dropped for them
# and made again as the store has it (its name and body change with the
# schema: a script that named an old one wrote no error at all, silently)
name=$(sqlite3 .callus/callus.db "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND
	tbl_name = 'pending_errors' AND sql LIKE '%an error starts pending%'")
trig=$(sqlite3 .callus/callus.db "SELECT sql FROM sqlite_schema WHERE name = '$name'")
if [ -z "$name" ] || [ -z "$trig" ]; then
	echo "bench/report.sh: no trigger that starts errors pending in the store" >&2
	exit 1
fi
sqlite3 -bail .callus/callus.db >/dev/null <<SQL || { echo "bench/report.sh: the store was not grown" >&2; exit 1; }
PRAGMA journal_mode = WAL;
BEGIN;
-- six tools, each with an error's words (%d: the error's number) and the
-- line its fix removes and adds
CREATE TEMP TABLE tools (k INTEGER PRIMARY KEY, tool TEXT, kind TEXT, msg TEXT, ext TEXT,
 old TEXT, new TEXT);
INSERT INTO tools VALUES
 (0, 'gcc', 'error', '''count_%d'' undeclared (first use in this function)', 'c',
  '	return count_%d;', '	return count;'),
 (1, 'eslint', 'no-unused-vars', '''handler%d'' is assigned a value but never used', 'js',
  '  const handler%d = makeHandler();', ''),
 (2, 'tsc', 'TS2339', 'Property ''total%d'' does not exist on type ''Cart''', 'ts',
  '  return cart.total%d;', '  return cart.total;'),
 (3, 'pytest', 'AssertionError', 'assert cart_total(%d) == 90', 'py',
  '    return price  # %d', '    return price * (1 - discount)'),
 (4, 'cargo', 'E0425', 'cannot find value len_%d in this scope', 'rs',
  '    buf.truncate(len_%d);', '    buf.truncate(len);'),
 (5, 'go', 'vet', 'undefined: parseItem%d', 'go',
  '	item := parseItem%d(line)', '	item := parseItem(line)');
CREATE TEMP TABLE dirs (k INTEGER PRIMARY KEY, d TEXT);
INSERT INTO dirs VALUES (0, 'src/cart'), (1, 'src/api'), (2, 'src/ui'), (3, 'lib/util'),
 (4, 'src/auth'), (5, 'cmd/server'), (6, 'tests'), (7, 'src/db');
INSERT INTO checks (id, tool, args, dir) SELECT 1000 + k, tool, 'bench', '' FROM tools;
CREATE TEMP TABLE seq AS WITH RECURSIVE q(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM q WHERE i < $n - 1)
 SELECT i FROM q;
-- error i: tool i % 6, recurring signature i % s (a tenth are pending,
-- each with a signature of its own: one open error per check and signature)
CREATE TEMP TABLE e AS SELECT i, i % 6 AS k, i % $s AS n,
 CASE WHEN i % 10 = 0 THEN 'u' || i ELSE 'b' || (i % $s) END AS sig,
 CASE WHEN i % 10 = 0 THEN 'pending' WHEN i % 10 = 1 THEN 'permanent' ELSE 'fixed' END AS state,
 strftime('%Y-%m-%dT%H:%M:%S.000Z', 'now', '-' || (i % 90) || ' days',
          '-' || (i % 1440) || ' minutes') AS at,
 (SELECT d FROM dirs WHERE k = i % 8) || '/part' || (i % 5) || '/file' || (i % 500) AS file
 FROM seq;
INSERT INTO signatures (id, error_type, message_pattern, original, tool, first_seen, last_seen)
 SELECT e.sig, t.kind, replace(t.msg, '%d', '\d+'), printf(t.msg, e.n), t.tool, unixepoch(e.at),
 unixepoch(e.at)
 FROM e JOIN tools t ON t.k = e.k WHERE e.i < $s OR e.i % 10 = 0;
INSERT INTO runs (at, tool, command, exit_code) SELECT e.at, t.tool, t.tool || ' bench', 1
 FROM e JOIN tools t ON t.k = e.k;
INSERT INTO lessons (signature, timestamp, type, file, error_summary, tool, command, exit_code,
 affected_files, last_seen)
 SELECT 'L' || e.i, e.at, 'LINT', e.file || '.' || t.ext, printf(t.msg, e.n), t.tool,
 t.tool || ' bench', 1, json_array(e.file || '.' || t.ext), e.at FROM e JOIN tools t ON t.k = e.k;
-- a resolution for each recurring signature, made from its first error
INSERT INTO resolutions (id, signature_id, description, code_changes, files, created_at,
 application_count, success_count, last_success_at)
 SELECT 100000 + e.n, e.sig, 'Edited run() in ' || e.file || '.' || t.ext || ' (+1 -1)',
 'diff --git a/' || e.file || '.' || t.ext || ' b/' || e.file || '.' || t.ext || char(10) ||
 '--- a/' || e.file || '.' || t.ext || char(10) || '+++ b/' || e.file || '.' || t.ext || char(10) ||
 '@@ -10 +10 @@' || char(10) || '-' || printf(t.old, e.n) || char(10) ||
 CASE WHEN t.new = '' THEN '' ELSE '+' || t.new || char(10) END,
 '[]', e.at, 3 + e.i % 3, 2 + e.i % 2, e.at
 FROM e JOIN tools t ON t.k = e.k WHERE e.i < $s AND e.i % 10 <> 0;
DROP TRIGGER $name;
INSERT INTO pending_errors (id, check_id, sig, state, attempts, first_failure_at,
 last_failure_at, files, closed_at, resolution_id)
 SELECT 1000000 + e.i, 1000 + e.k, (SELECT g.sig FROM signatures g WHERE g.id = e.sig), e.state,
 1 + e.i % 4, e.at, e.at,
 json_array(e.file || '.' || t.ext),
 CASE WHEN e.state = 'pending' THEN ''
  ELSE strftime('%Y-%m-%dT%H:%M:%S.000Z', e.at, '+' || (5 + e.i % 300) || ' minutes') END,
 CASE WHEN e.state = 'fixed' THEN (SELECT id FROM resolutions WHERE id = 100000 + e.n) END
 FROM e JOIN tools t ON t.k = e.k;
$trig;
INSERT INTO suggestions (pending_id, resolution_id, confidence, made_at, outcome, outcome_at)
 SELECT 1000000 + e.i, r.id, 0.9, e.at,
 CASE WHEN e.state = 'fixed' THEN 'success' WHEN e.state = 'permanent' THEN 'failure' END,
 CASE WHEN e.state = 'pending' THEN '' ELSE e.at END
 FROM e JOIN resolutions r ON r.id = 100000 + (e.n + 1) % $s WHERE e.i % 3 = 0;
-- a note for every tenth resolution
INSERT INTO notes (id, signature_id, layer, tool, error_type, title, code, files, applications,
 successes, created_at, updated_at)
 SELECT printf('%012x', 4096 + r.id), r.signature_id,
 CASE WHEN r.id % 7 = 0 THEN 'session' ELSE 'project' END, s.tool, s.error_type,
 s.tool || ': ' || s.original, substr(r.code_changes, instr(r.code_changes, '---')), '[]',
 r.application_count, r.success_count, r.created_at, r.created_at
 FROM resolutions r JOIN signatures s ON s.id = r.signature_id
 WHERE r.id >= 100000 AND r.id % 10 = 1;
INSERT INTO note_signatures SELECT signature_id, id FROM notes WHERE signature_id LIKE 'b%';
INSERT INTO note_resolutions SELECT r.id, n.id FROM notes n
 JOIN resolutions r ON r.signature_id = n.signature_id WHERE n.signature_id LIKE 'b%';
COMMIT;
PRAGMA wal_checkpoint(TRUNCATE);
ANALYZE;
SQL
# the counts the triggers keep, taken again from the rows written past them
"$callus" doctor --fix >/dev/null 2>&1 || true

"$callus" status | sed -n '/^lessons/,/^notes/p'
hyperfine -N --warmup 1 --runs "$runs" --export-markdown "$work/times.md" \
	--export-json "$work/times.json" \
	-n "callus status (baseline)" "$callus status" \
	-n "callus report (last 30 days)" "$callus report -o $work/r30.html" \
	-n "callus report --since all" "$callus report --since all -o $work/rall.html" >/dev/null
cat "$work/times.md"
echo
echo "CPU time (user + system), mean: wall time on a shared machine waits for the other work"
jq -r '.results[] | "\(.command): \((.user + .system) * 1000 | floor) ms"' "$work/times.json"
echo
echo "page: $(wc -c <"$work/r30.html") bytes (last 30 days), $(wc -c <"$work/rall.html") bytes (--since all)"
if [ -n "${KEEP:-}" ]; then
	rm -rf "$KEEP" && cp -r "$work" "$KEEP" && echo "kept in $KEEP"
fi
