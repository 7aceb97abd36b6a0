#!/bin/bash
# bench/sync.sh - `callus sync` pulling N approved team notes into a fresh
# workspace's cache: from the embedded SQLite team store (the baseline: no
# server, no helper), then from a PostgreSQL server started here on
# loopback (through the callus-pg helper, a page of 5,000 notes a call).
# Each pulled note becomes a cached row, a signature and a resolution of the
# workspace store, so that matching finds it.  Wall time of the one sync,
# best of R runs (each in a new workspace: the cache starts empty), and the
# CPU time of callus and its helper in that run (the server's not counted).
# Usage: bench/sync.sh [N] [R] [path/to/callus]
# As root, the server runs as nobody.  Goal (issue 13): under 2 s at 100,000.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-100000}
runs=${2:-3}
callus=${3:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
callus=$(bench_exe sync "$callus") || exit 2
pg_bin=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n 1)
work=$(mktemp -d /tmp/callus-bench.XXXXXX)
chmod 755 "$work"
export HOME=$work/home XDG_DATA_HOME=$work/home/.local/share XDG_CONFIG_HOME=$work/home/.config
mkdir -p "$HOME"

as_pg() {
	if [ "$(id -u)" = 0 ]; then (cd / && runuser -u nobody -- "$@"); else "$@"; fi
}
cleanup() {
	if [ -f "$work/pg/data/postmaster.pid" ]; then
		as_pg "$pg_bin/pg_ctl" -D "$work/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

# The notes: distinct signatures, one line of error, a 3-line diff each.
sqlite_notes() {
	sqlite3 "$1" <<-EOF
	PRAGMA journal_mode = WAL;
	WITH RECURSIVE i(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM i WHERE k < $n),
	s(k, sig) AS (SELECT k, lower(hex(randomblob(32))) FROM i)
	INSERT INTO shared_notes (layer, id, status, signature_id, tool, error_type, title,
	  example, steps, code, files, origin, path, proposed_by, proposed_at, decided_by,
	  revision)
	SELECT 'team', substr(sig, 1, 12), 'approved', sig, 'gcc', '-Wunused-variable',
	  'gcc: unused variable ''v_' || k || '''', 'm' || k || '.c:3:6: unused variable ''v_' || k || '''',
	  'Edited f() in m' || k || '.c (-1)', '--- a/m' || k || '.c' || char(10) || '+++ b/m' || k || '.c'
	  || char(10) || '-	int v_' || k || ' = 1;', '["m' || k || '.c"]', 'bench:' || k,
	  'project>team', 'bench', '2026-01-01T00:00:00.000Z', 'bench', k FROM s;
	EOF
}

# ms_of_sync DIR: "WALL CPU" in ms of the fastest of R syncs into a new
# workspace DIR (CPU: callus and its helper, user + system; not the server's)
ms_of_sync() {
	local dir=$1 best="" cpu=""
	for _ in $(seq 1 "$runs"); do
		rm -rf "$dir" && mkdir -p "$dir/.callus" && cp "$work/config" "$dir/.callus/config"
		(cd "$dir" && git init -q . &&
			/usr/bin/time -f "%e %U %S" -o "$work/time" "$callus" sync >"$work/out")
		grep -q "$n pulled" "$work/out" || { cat "$work/out"; exit 1; }
		read -r wall user sys <"$work/time"
		ms=$(awk -v w="$wall" 'BEGIN { printf "%d", w * 1000 }')
		if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then
			best=$ms
			cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%d", (u + s) * 1000 }')
		fi
	done
	echo "$best $cpu"
}

# Baseline: the embedded store, made by callus, then filled.
mkdir -p "$work/seed" && (cd "$work/seed" && git init -q . && "$callus" proposals >/dev/null)
sqlite_notes "$XDG_DATA_HOME/callus/team.db" >/dev/null
: >"$work/config"
read -r base base_cpu <<<"$(ms_of_sync "$work/ws-sqlite")"
echo "sqlite (embedded) team store: $n notes pulled in $base ms, $base_cpu ms CPU (best of $runs)"

if [ ! -x "$pg_bin/initdb" ]; then
	echo "postgresql: no server binary; only the baseline was measured"
	exit 0
fi
mkdir "$work/pg"
if [ "$(id -u)" = 0 ]; then chown nobody "$work/pg"; fi
as_pg "$pg_bin/initdb" -D "$work/pg/data" -U admin --auth=trust -E UTF8 --no-locale >/dev/null
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
as_pg "$pg_bin/pg_ctl" -D "$work/pg/data" -l "$work/pg/log" -w \
	-o "-p $port -k $work/pg -c listen_addresses=127.0.0.1" start >/dev/null
psql -X -q -h 127.0.0.1 -p "$port" -U admin -d postgres -c "CREATE DATABASE callus"
printf '[team]\n\turl = postgresql://admin@127.0.0.1:%s/callus\n' "$port" >"$work/config"
mkdir -p "$work/seed2/.callus" && cp "$work/config" "$work/seed2/.callus/config" &&
	(cd "$work/seed2" && git init -q . && "$callus" proposals >/dev/null)
psql -X -q -h 127.0.0.1 -p "$port" -U admin -d callus <<-EOF
INSERT INTO callus.shared_notes (layer, id, status, signature_id, tool, error_type, title,
  example, steps, code, files, origin, path, proposed_by, decided_by)
SELECT 'team', substr(sig, 1, 12), 'approved', sig, 'gcc', '-Wunused-variable',
  'gcc: unused variable ''v_' || k || '''', 'm' || k || '.c:3:6: unused variable ''v_' || k || '''',
  'Edited f() in m' || k || '.c (-1)', '--- a/m' || k || '.c' || chr(10) || '+++ b/m' || k || '.c'
  || chr(10) || '-	int v_' || k || ' = 1;', '["m' || k || '.c"]', 'bench:' || k,
  'project>team', 'bench', 'bench'
FROM (SELECT k, md5(k::text) || md5((k + 1)::text) AS sig FROM generate_series(1, $n) k) s;
EOF
read -r pg pg_cpu <<<"$(ms_of_sync "$work/ws-pg")"
echo "postgresql team store: $n notes pulled in $pg ms, $pg_cpu ms CPU (best of $runs)"
