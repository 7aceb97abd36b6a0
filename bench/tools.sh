# bench/tools.sh - sourced by the benchmarks that time callus processes and
# make gcc failures: bench_tools REPO WORK LIBDIR builds WORK/proctime
# (bench/proctime.c: a process's CPU time from wait4), WORK/scale_gen
# (bench/scale_gen.c, linked with LIBDIR/libcallus.a: a store grown through
# the recording path, and `scale_gen -p K`, gcc error K's output) and
# WORK/fsprobe (bench/fsprobe.c: what creating a file costs in a directory).
# bench_settle WORK DIR waits, after a harness removed thousands of files,
# until creating one in DIR costs what it costs on a quiet disk
# (bench/fsprobe.c says why), and prints that cost in microseconds.
# bench_grown, bench_embed_server, bench_pair, bench_ready, bench_copies,
# bench_fail_payload, bench_store_sql and bench_stats serve the benchmarks that time binaries in
# copies of a grown store; bench_range prints min/median/max.  bench_output_ws
# and bench_callgrind serve those that record a large output in a workspace
# of its own (bench/record1m.sh, bench/tool_outputs.sh).
# shellcheck shell=sh

bench_tools() {
	cc -O2 -o "$2/proctime" "$1/bench/proctime.c"
	cc -O2 -o "$2/fsprobe" "$1/bench/fsprobe.c"
	# shellcheck disable=SC2046 # pkg-config's flags are word lists
	cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
		-I"$1/include" -I"$1/src" -I"$1/cli" $(pkg-config --cflags sqlite3 jansson) \
		-o "$2/scale_gen" "$1/bench/scale_gen.c" "$1/cli/sqlmem.c" "$3/libcallus.a" \
		$(pkg-config --libs sqlite3 jansson libpcre2-8) -lm
}

# bench_exe NAME PATH: PATH made absolute, as the benchmarks run it from
# other folders (a relative build/callus was not found there); a message
# and status 2 when it is no executable file: callus=$(bench_exe NAME
# "$callus") || exit 2.
bench_exe() {
	if [ ! -f "$2" ] || [ ! -x "$2" ]; then
		echo "bench/$1.sh: no executable at '$2'" >&2
		return 2
	fi
	realpath -- "$2"
}

# bench_count NAME WHAT VALUE: a message and exit 2 unless VALUE is a
# positive integer (a count given as a word ran nothing and printed zeros).
bench_count() {
	case $3 in
	'' | *[!0-9]* | 0*)
		echo "bench/$1.sh: $2 must be a positive integer, not '$3'" >&2
		exit 2
		;;
	esac
}

# bench_grown NAME REPO WS CALLUS: for the benchmarks that time two binaries
# in copies of a grown store: exit 2 unless WS holds one; else $work, a
# fresh directory removed at exit, with REPO's helpers built (bench_tools,
# against the libcallus.a beside CALLUS).  Sets work and the EXIT trap.
bench_grown() {
	[ -d "$3/.callus" ] || {
		echo "bench: $3 holds no .callus/ (grow one: CALLUS_SCALE_KEEP=DIR bench/scale.sh)" >&2
		exit 2
	}
	work=$(mktemp -d "${TMPDIR:-/tmp}/callus-$1.XXXXXX")
	trap 'rm -rf "$work"' EXIT
	bench_tools "$2" "$work" "$(dirname "$4")"
}

# bench_embed_server NAME REPO DIM: a loopback embeddings endpoint
# (tests/unit/embed_server.py, DIM components) for a benchmark made by
# bench_grown: sets server (its pid, killed at exit with $work removed) and
# port; exit 1 when it does not start.
bench_embed_server() {
	command -v python3 >/dev/null || { echo "bench/$1.sh: python3 is needed" >&2; exit 2; }
	python3 "$2/tests/unit/embed_server.py" --dim "$3" >"$work/port" 2>/dev/null </dev/null &
	server=$!
	trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
	embed_i=0
	while [ ! -s "$work/port" ] && [ "$embed_i" -lt 50 ]; do
		sleep 0.1
		embed_i=$((embed_i + 1))
	done
	port=$(head -n 1 "$work/port")
	[ -n "$port" ] || { echo "bench/$1.sh: the endpoint did not start" >&2; exit 1; }
}

# bench_pair NAME REPO WS OLD NEW: bench_grown for two binaries timed in
# turn, and each copied (bench_fresh) into $work/old and $work/new: sets
# old and new to the copies, old_src and new_src to the binaries given.
bench_pair() {
	bench_grown "$1" "$2" "$3" "$5"
	old_src=$4 new_src=$5
	bench_pair_fresh
}

# bench_pair_fresh: the pair copied again together just before the runs,
# the old one last: of two binaries copied at different times the one
# copied last started faster (bench_fresh), so what is left of that
# favours the old one.
bench_pair_fresh() {
	new=$(bench_fresh "$work/new" "$new_src")
	old=$(bench_fresh "$work/old" "$old_src")
}

# bench_pairs N [FN]: N pairs of the caller's `FN old I` and `FN new I`
# (FN: one), I the pair's number from 0, each binary first two pairs in
# four: whatever going first or second does to a run falls on both alike,
# and on a pair's hooks that share a store's state the same way.
bench_pairs() {
	pairs_fn=${2:-one}
	pairs_i=0
	while [ "$pairs_i" -lt "$1" ]; do
		if [ $((pairs_i / 2 % 2)) = 0 ]; then
			"$pairs_fn" old "$pairs_i"
			"$pairs_fn" new "$pairs_i"
		else
			"$pairs_fn" new "$pairs_i"
			"$pairs_fn" old "$pairs_i"
		fi
		pairs_i=$((pairs_i + 1))
	done
}

# bench_turns N [BASE...]: N rounds of the caller's `one old` and `one
# new`, each first in every other round (what comes first in a round
# starts from a colder cache), and then `one BASE...` when given: the
# row's baseline, timed in the same minutes.
bench_turns() {
	turns_n=$1
	shift
	turns_i=0
	while [ "$turns_i" -lt "$turns_n" ]; do
		if [ $((turns_i % 2)) = 0 ]; then
			one old
			one new
		else
			one new
			one old
		fi
		[ $# -eq 0 ] || one "$@"
		turns_i=$((turns_i + 1))
	done
}

# bench_bin_of X: the binary X of the pair (old or new).
bench_bin_of() {
	if [ "$1" = old ]; then echo "$old"; else echo "$new"; fi
}

# CALLUS_BENCH_CREATE_US (40): what a settled create may cost;
# CALLUS_BENCH_SETTLE_S (420): the longest wait (the allocator skips an
# inode freed within 60 s, 360 s while its inode table is unwritten).
bench_settle() {
	settle_waited=0
	sync
	while :; do
		settle_us=$("$1/fsprobe" "$2")
		if awk -v u="$settle_us" -v max="${CALLUS_BENCH_CREATE_US:-40}" \
			'BEGIN { exit !(u <= max) }' ||
			[ "$settle_waited" -ge "${CALLUS_BENCH_SETTLE_S:-420}" ]; then
			break
		fi
		sleep 15
		settle_waited=$((settle_waited + 15))
		sync
	done
	[ "$settle_waited" = 0 ] || echo "settled in $settle_waited s: a file created in $2 in $settle_us us" >&2
	echo "$settle_us"
}

# bench_fresh DIR BIN: BIN and the callus-git beside it copied into DIR
# again; prints DIR/callus.  A process's start varied by a tenth of a
# millisecond with the file its binary was read from, and of two binaries
# copied at different times the one copied last was the faster
# (bench/README.md): two binaries timed in turn are copied together, just
# before their runs.
bench_fresh() {
	mkdir -p "$1"
	cp "$2" "$1/callus.tmp" && mv "$1/callus.tmp" "$1/callus"
	if [ -e "$(dirname "$2")/callus-git" ]; then
		cp "$(dirname "$2")/callus-git" "$1/callus-git.tmp" &&
			mv "$1/callus-git.tmp" "$1/callus-git"
	fi
	echo "$(cd "$1" && pwd)/callus"
}

# bench_copy_store SRC DST: DST, which must not exist, a copy of the
# workspace SRC, or of the one SRC links to.  `cp -a` copies a link as a
# link: a kept store's size linked to another folder (ws-1000 -> elsewhere)
# was "copied" as that link, and every hook the benchmarks ran on their
# copies, and the config bench_ready writes, went into the kept store
# itself, whose errors were then no longer new (docs/scale-history.md, the
# eighty-first pass).
bench_copy_store() {
	mkdir "$2" && cp -a "$1/." "$2/"
}

# bench_ready SRC WS CALLUS [snapshots]: WS, a copy of the store SRC grown
# by bench/scale.sh, with no background retention, and no snapshot unless
# snapshots is given; git's index refreshed (a copy's files are new inodes:
# a user's index is fresh, and the first snapshot timed would refresh it);
# migrated, its vector files' sketches made (src/vecindex_sketch.c) and its
# retention applied by CALLUS (`callus status`, `callus gc`) before
# anything is timed.
bench_ready() {
	bench_copy_store "$1" "$2"
	if [ "${4:-}" = snapshots ]; then
		printf '[retention]\ngc_hours = 0\n' >"$2/.callus/config"
	else
		printf '[retention]\ngc_hours = 0\n[learn]\nsnapshots = false\n' >"$2/.callus/config"
	fi
	(cd "$2" && git status --porcelain >/dev/null && "$3" status >/dev/null && "$3" gc >/dev/null)
}

# bench_copies SRC WORK BASE CALLUS [snapshots]: WORK/ws-a and WORK/ws-b,
# each bench_ready by its own binary (BASE for a, CALLUS for b).
bench_copies() {
	bench_ready "$1" "$2/ws-a" "$3" "${5:-}"
	bench_ready "$1" "$2/ws-b" "$4" "${5:-}"
}

# bench_fail_payload WORK K CWD OUT [own|COMMAND]: into OUT, a generic hook
# payload of `gcc -c src/x.c` in CWD failing with gcc error K
# (WORK/scale_gen -p K): one check, whose every new error closes the one
# before as fixed.  With own, `gcc -c` of error K's own file, as scale_gen
# records it: each error a check of its own; with another word, that
# command.
bench_fail_payload() {
	"$1/scale_gen" -p "$2" >"$1/out.txt"
	bench_cmd=${5:-gcc -c src/x.c}
	[ "$bench_cmd" != own ] || bench_cmd="gcc -c $(sed -n '1s/:.*//p' "$1/out.txt")"
	jq -n --rawfile o "$1/out.txt" --arg cwd "$3" --arg cmd "$bench_cmd" \
		'{command: $cmd, exit_code: 1, output: $o, cwd: $cwd}' >"$4"
}

# bench_need NAME TOOL...: 0 when every TOOL is on the PATH, else says
# which is missing (as NAME) and returns 2.
bench_need() {
	bench_name=$1
	shift
	for bench_tool in "$@"; do
		command -v "$bench_tool" >/dev/null ||
			{ echo "$bench_name: $bench_tool is needed" >&2; return 2; }
	done
}

# bench_import_history REPO HOME SESSIONS MB NWS: HOME's workspaces
# HOME/src/w0..w(NWS-1), git repositories, and its agents' transcripts in
# them, SESSIONS sessions of MB megabytes in all (bench/import_gen.py,
# seeded: the same history each time).
bench_import_history() {
	bench_i=0
	while [ "$bench_i" -lt "$5" ]; do
		mkdir -p "$2/src/w$bench_i"
		git -C "$2/src/w$bench_i" init -q
		bench_i=$((bench_i + 1))
	done
	python3 "$1/bench/import_gen.py" "$2" "$3" "$4" "$5" "$1/tests/import/fixtures"
}

# bench_import_compare A B NWS: the stores of two homes' workspaces w0 ..
# w(NWS-1) side by side, a table row each (bench_import_history made
# both): runs, lessons, their occurrences, signatures, resolutions, their
# applications, notes and pending errors by state; "same" when they agree.
bench_import_compare() {
	bench_q="SELECT (SELECT count(*) FROM runs) || ' runs, ' || (SELECT count(*) FROM lessons) ||
	' lessons, ' || (SELECT coalesce(sum(occurrences), 0) FROM lessons) || ' occurrences, ' ||
	(SELECT count(*) FROM signatures) || ' signatures, ' || (SELECT count(*) FROM resolutions) ||
	' resolutions, ' || (SELECT coalesce(sum(application_count), 0) FROM resolutions) ||
	' applications, ' || (SELECT count(*) FROM notes) || ' notes, pending ' ||
	coalesce((SELECT group_concat(state || ' ' || k, ', ') FROM
		(SELECT state, count(*) k FROM pending_errors GROUP BY state ORDER BY state)), 'none')"
	bench_i=0
	while [ "$bench_i" -lt "$3" ]; do
		bench_a=$(bench_store_sql "$1/src/w$bench_i/.callus/callus.db" "$bench_q" 2>/dev/null ||
			echo "no store")
		bench_b=$(bench_store_sql "$2/src/w$bench_i/.callus/callus.db" "$bench_q" 2>/dev/null ||
			echo "no store")
		[ "$bench_a" = "$bench_b" ] && bench_same=same || bench_same=DIFFER
		echo "| w$bench_i | $bench_a | $bench_b | $bench_same |"
		bench_i=$((bench_i + 1))
	done
}

# bench_doctor_findings WS CALLUS: what callus doctor finds wrong in WS,
# its lines that are not ok, indented; the notes every kept store copied
# gives are left out (notes over their threshold, a team cache never
# synced, no agent's hook set up).
bench_doctor_findings() {
	(cd "$1" && "$2" doctor 2>&1) | grep -Ev '^ok|^ |^workspace|over the threshold' |
		grep -Ev '^note *layers .*never synced|^note *hooks *not set up' |
		grep -Ev 'problems? needs? attention' | sed 's/^/    /' || true
}

# bench_store_sql ARGS...: the shell's sqlite3 on a store between timed
# hooks, leaving it as it found it: a connection that closes last copies
# the WAL into the store and deletes it, which callus's own never do
# (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, src/store.c).  Done after each of one
# binary's hooks, that spared them every copy and every read of the WAL at
# open: one binary against itself came out 0.98 ms faster in the second
# place (docs/scale-history.md, the thirty-seventh pass).  The line sqlite3 prints
# for the .dbconfig is dropped.
bench_store_sql() {
	sqlite3 -cmd '.dbconfig no_ckpt_on_close on' "$@" | sed 1d
}

# bench_stats FILE: min / q1 / median / q3 / max / mean of its numbers, one
# a line.
bench_stats() {
	sort -n "$1" | awk '{ v[NR] = $1; s += $1 }
		END { printf "%.2f / %.2f / %.2f / %.2f / %.2f / %.2f",
		      v[1], v[int(NR / 4) + 1], v[int(NR / 2) + 1], v[int(3 * NR / 4) + 1], v[NR], s / NR }'
}

# bench_range FILE: min/median/max of its numbers, one a line.
bench_range() {
	sort -n "$1" | awk '{ v[NR] = $1 }
		END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		      printf "%.3f/%.3f/%.3f", v[1], m, v[NR] }'
}

# bench_output_ws WS CMD FILE [CODE]: WS a git workspace (snapshots off, no
# retention pass) whose p.json is a hook's payload of CMD failing with exit
# status CODE (default 1), FILE's text its output.
bench_output_ws() {
	mkdir -p "$1/.callus"
	git -C "$1" init -q .
	printf '[learn]\nsnapshots = false\n[retention]\ngc_hours = 0\n' >"$1/.callus/config"
	jq -n --rawfile o "$3" --arg cwd "$1" --arg cmd "$2" --argjson code "${4:-1}" \
		'{command: $cmd, exit_code: $code, output: $o, cwd: $cwd}' >"$1/p.json"
}

# bench_callgrind INPUT CMD ARGS...: the instructions callgrind counts for
# one run of CMD ARGS (stdin INPUT), in the current folder, a workspace:
# the first process's, as a hook that callgrind slowed past its deadline
# leaves a detached copy counted apart; "(cut)" after it when that hook's
# log says so (the count is then low).
bench_callgrind() {
	bench_in=$1
	shift
	bench_cuts=$(bench_cuts_logged)
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" <"$bench_in" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | head -n 1 | tr -d '\n'
	[ "$(bench_cuts_logged)" = "$bench_cuts" ] || printf ' (cut)'
	echo
}

# bench_cuts_logged: how many hooks the workspace in the current folder
# logged as cut by their deadline.
bench_cuts_logged() {
	bench_n=$(grep -c '"event":"hook_cut"' .callus/log.jsonl 2>/dev/null || true)
	echo "${bench_n:-0}"
}
