#!/bin/sh
# bench/scale.sh - what one more recording costs as a workspace's knowledge
# grows (issue 14).  One git workspace's store is grown by bench/scale_gen.c
# (gcc failures through the hook's recording path, in one process: per 20
# recordings 13 new errors, 5 recurring ones, 2 fixed: snapshot, edit,
# passing check, resolution and note, the fix committed; the default
# retention every 1,000 recordings) to each size in turn (SIZES counts
# recordings); at each size, with the real `callus` binary, N runs of:
#   - a failing `callus hook generic` (a gcc error never seen, a different
#     one each run: a new lesson, signature, vector, pending error), with
#     the failure's snapshot (callus-git) and without ([learn] snapshots =
#     false: callus's own cost); and without, a failure of ten new errors
#     at once (ten signatures: their near duplicates searched together);
#   - a passing check (`callus hook generic`, gcc exiting 0: a check that
#     failed before and has nothing pending);
#   - a recurring error: a check failing again with an error it failed
#     with before (the lesson's occurrences, the error's attempts counted;
#     permanent from the third: no snapshot is needed for either);
#   - `callus suggest` on a stored error's output;
#   - `callus status`;
#   - a session's start (`callus hook claude-code`, SessionStart: the
#     notes and lessons an agent is told of first);
#   - `callus gc` (nothing old to remove: the sweep of .lessons/ and the
#     count; 3 runs);
#   - `callus --version`, the baseline: what any start of the binary costs
#     on this machine (exec, loading, exit), which no store size changes;
#   - a C program that returns 0, linked as callus is (static PIE): what
#     any process costs here, before callus's own code (on a virtual
#     machine most of it is the C library's start reading the CPU's
#     features, each CPUID instruction a trap to the hypervisor);
# bench/proctime gives per-process CPU time (user + system, from wait4):
# min / median / max ms.  Then the store: bytes of .callus/callus.db (after
# the gc and a checkpoint) per signature, those of its pages in use (SQLite's
# dbstat: the file less its free pages), and the files in .lessons/.  The
# background retention is off while measuring ([retention] gc_hours = 0).
# Before the timings of each size the harness waits for the disk to settle
# (bench_settle, bench/tools.sh): growing a store, or copying one over the
# last, removes thousands of files, and on ext4 without a journal every
# file created in the next minutes (a failing hook creates five) costs ten
# to twenty times what it does on a quiet disk (bench/fsprobe.c).  The
# column "file create" is what creating one cost in .callus/ when timing
# began (microseconds; CALLUS_BENCH_SETTLE_S=0 times without waiting).
# The baseline in the same run is the smallest size: flat costs are the goal.
# Usage: bench/scale.sh [N] [SIZES] [path/to/callus]   (default: 20 "1000 10000")
#   CALLUS_SCALE_KEEP=DIR keeps a copy of the workspace at each size, as
#   grown and before it is measured (DIR/ws-SIZE); CALLUS_SCALE_FROM=DIR
#   measures copies of those instead of growing (another binary on the same
#   stores: its first command migrates a store of an older schema, then a
#   `callus gc` applies its retention before anything is timed).
#   bench/scale.sh 20 "1000 10000 100000" grows to 100,000 recordings (the
#   growth with fsync skipped, bench/nosync.c).
#   CALLUS_SCALE_DAYS=D grows each size's store from nothing, in one run,
#   as a history of D days that ends now (scale_gen -d): the retention by
#   age acts as in a workspace that has recorded for D days (runs kept
#   30 days, pending errors of abandoned checks a week, signatures seen
#   within 180 days or needed); without it the history is as old as the
#   growth, an hour at 100,000 recordings, and only the lesson count bounds.
#   CALLUS_SCALE_BASE=path/to/other/callus times that binary too, on copies of
#   the same stores (one each: either may migrate its copy), one run of each
#   in turn, each first every other time (each with its own callus-git), and the table gives "base -> this"
#   medians: the machine's slow and fast minutes fall on both alike, where
#   two runs one after the other differed by half.  The store's figures are
#   of this binary's copy.  Both binaries (and their callus-git) are copied
#   into the run's directory again before each size's runs.
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
n=${1:-20}
sizes=${2:-1000 10000}
callus=${3:-$repo/build/callus}
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_count scale N "$n"
# absolute: the runs below work in the workspace
callus=$(bench_exe scale "$callus") || exit 2
build=$(dirname "$callus")
# scale_gen links the library beside the binary, and the fixes' snapshots
# need its helper: without it every fix is recorded with no diff, so with
# no note, and the store is smaller than a workspace's (silently)
for f in libcallus.a callus-git; do
	[ -e "$build/$f" ] || { echo "bench/scale.sh: no $f beside $callus" >&2; exit 2; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/callus-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
bench_tools "$repo" "$work" "$build"
cc -O2 -shared -fPIC -o "$work/nosync.so" "$repo/bench/nosync.c"
export CALLUS_GIT_HELPER="$build/callus-git"

ws=$work/ws
mkdir "$ws" && cd "$ws"
git init -q .
printf 'int ok(void)\n{\n\treturn 0;\n}\n' >ok.c
git add ok.c && git -c user.name=bench -c user.email=bench@localhost commit -qm init
mkdir .callus
printf '[retention]\ngc_hours = 0\n' >.callus/config

# payload FILE K EXIT [CWD] [COUNT] [COMMAND]: a generic hook payload of
# COMMAND (`gcc -c src/x.c`) printing error K (COUNT errors: K to K + COUNT
# - 1, each in its own file)
payload() {
	: >"$work/out.txt"
	j=0
	while [ "$j" -lt "${5:-1}" ]; do
		"$work/scale_gen" -p $(($2 + j)) >>"$work/out.txt"
		j=$((j + 1))
	done
	jq -n --rawfile o "$work/out.txt" --arg cwd "${4:-$ws}" --argjson x "$3" \
		--arg cmd "${6:-gcc -c src/x.c}" \
		'{command: $cmd, exit_code: $x, output: $o, cwd: $cwd}' >"$1"
}
base=${CALLUS_SCALE_BASE:-}
# its failing hook with a snapshot needs its helper as much
[ -z "$base" ] || [ -e "$(dirname "$base")/callus-git" ] ||
	{ echo "bench/scale.sh: no callus-git beside $base" >&2; exit 2; }
# Both binaries are copied again before each size's runs (bench_fresh,
# bench/tools.sh): a process's start varied with the file its binary was
# read from.
callus_src=$callus base_src=$base
callus=$(bench_fresh "$work/this" "$callus_src")
[ -z "$base" ] || base=$(bench_fresh "$work/base" "$base_src")
# the base binary works in a copy of its own: a store the binary timed
# migrates to a newer schema is one the base would refuse
bws=$ws.base
payload "$work/pass.json" 0 0
payload "$work/base-pass.json" 0 0 "$bws"
# a recurring error: the store's error 0 failing a check of its own again
# and again (the lesson's occurrences and the error's attempts counted)
payload "$work/rec.json" 0 1 "$ws" 1 "gcc -c src/r.c"
payload "$work/base-rec.json" 0 1 "$bws" 1 "gcc -c src/r.c"
"$work/scale_gen" -p 0 >"$work/suggest.txt"
cp "$work/suggest.txt" "$work/base-suggest.txt"
# a session's start, Claude Code's, in each copy
start_payload() {
	jq -n --arg cwd "$2" '{session_id: "callus-scale", cwd: $cwd,
		hook_event_name: "SessionStart", source: "startup"}' >"$1"
}
start_payload "$work/start.json" "$ws"
start_payload "$work/base-start.json" "$bws"

# one BIN INPUT ARGS...: the CPU ms of one run of BIN ARGS, with its own helper
one() {
	one_bin=$1 one_in=$2
	shift 2
	CALLUS_GIT_HELPER=$(dirname "$one_bin")/callus-git "$work/proctime" 1 "$one_in" "$one_bin" "$@" |
		cut -d' ' -f1
}

# noop: N runs of a program that returns 0, linked as callus is, the
# median (the same for both binaries: printed once)
printf 'int main(void) { return 0; }\n' >"$work/noop.c"
cc -O2 -static-pie -o "$work/noop" "$work/noop.c"
noop() {
	"$work/proctime" "$n" /dev/null "$work/noop" >"$work/noop.out"
	printf "noop %s " "$(cut -d' ' -f1-3 "$work/noop.out" | tr ' ' '/')"
}

# row WHAT INPUT ARGS...: N runs of callus ARGS (and of the base's, in turn,
# in its copy, reading $work/base-* for $work/*; run i reads INPUT with %d as
# i, the base's as N + i), the medians
row() {
	what=$1 input=$2
	shift 2
	case $input in
	"$work"/*) binput=$work/base-${input#"$work"/} ;;
	*) binput=$input ;;
	esac
	: >"$work/a"
	: >"$work/b"
	i=0
	while [ "$i" -lt "$n" ]; do
		# the two in turn, each first every other run: whatever going
		# first or second does to a run falls on both alike
		if [ -n "$base" ] && [ $((i % 2)) = 1 ]; then
			# shellcheck disable=SC2059
			(cd "$bws" && one "$base" "$(printf "$binput" $((n + i)))" "$@") >>"$work/b"
		fi
		# shellcheck disable=SC2059 # INPUT is a format
		one "$callus" "$(printf "$input" "$i")" "$@" >>"$work/a"
		if [ -n "$base" ] && [ $((i % 2)) = 0 ]; then
			# shellcheck disable=SC2059
			(cd "$bws" && one "$base" "$(printf "$binput" $((n + i)))" "$@") >>"$work/b"
		fi
		i=$((i + 1))
	done
	if [ -n "$base" ]; then
		printf "%s %s→%s " "$what" "$(bench_range "$work/b")" "$(bench_range "$work/a")"
	else
		printf "%s %s " "$what" "$(bench_range "$work/a")"
	fi
}

echo "| recordings | file create | lessons | signatures | failing hook | failing hook, no snapshot | ten new errors, no snapshot | passing check | recurring error | callus suggest | callus status | session start | callus gc | callus --version | a program that returns 0 | store bytes per signature | in pages used | .lessons/ files |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
have=0
for size in $sizes; do
	start=$(date +%s)
	if [ -n "${CALLUS_SCALE_FROM:-}" ]; then
		cd "$work" && rm -rf "$ws" && bench_copy_store "$CALLUS_SCALE_FROM/ws-$size" "$ws" && cd "$ws"
		printf '[retention]\ngc_hours = 0\n' >.callus/config
		# migrated, then what this binary's retention removes at once
		# (not in the timed gc's first run)
		"$callus" status >/dev/null && "$callus" gc >/dev/null
	elif [ -n "${CALLUS_SCALE_DAYS:-}" ]; then
		# a history of its own for each size, grown from nothing, in the
		# repository as it began (the fixes commit their edits again)
		git reset -q --hard "$(git rev-list --max-parents=0 HEAD)"
		git clean -qfdx
		mkdir .callus
		printf '[retention]\ngc_hours = 0\n' >.callus/config
		LD_PRELOAD="$work/nosync.so" "$work/scale_gen" -d "$CALLUS_SCALE_DAYS" "$ws" 0 "$size" ||
			echo "scale_gen: errors at $size" >&2
		echo "grown to $size recordings over $CALLUS_SCALE_DAYS days in $(($(date +%s) - start)) s" >&2
	else
		# growing only: fsync skipped (bench/nosync.c), the measured runs below wait for the disk
		LD_PRELOAD="$work/nosync.so" "$work/scale_gen" "$ws" "$have" "$size" ||
			echo "scale_gen: errors at $size" >&2
		echo "grown to $size recordings in $(($(date +%s) - start)) s" >&2
	fi
	if [ -n "${CALLUS_SCALE_KEEP:-}" ]; then
		# replaced whole: cp -a into a kept one would put this store
		# inside it (ws-SIZE/ws), and leave the old one where it was read
		mkdir -p "$CALLUS_SCALE_KEEP" && rm -rf "$CALLUS_SCALE_KEEP/ws-$size" &&
			cp -a "$ws" "$CALLUS_SCALE_KEEP/ws-$size"
	fi
	# the index's stat data refreshed, as any git command leaves it: the
	# generator's files, written within the index's own second, would be
	# read and hashed again by every snapshot ("racily clean")
	git status --porcelain >/dev/null
	if [ -n "$base" ]; then
		from=$ws
		[ -z "${CALLUS_SCALE_FROM:-}" ] || from=$CALLUS_SCALE_FROM/ws-$size
		rm -rf "$bws" && bench_copy_store "$from" "$bws"
		(cd "$bws" && printf '[retention]\ngc_hours = 0\n' >.callus/config &&
			git status --porcelain >/dev/null && "$base" status >/dev/null &&
			"$base" gc >/dev/null)
	fi
	have=$size
	i=0
	while [ "$i" -lt "$n" ]; do
		payload "$work/fail$i.json" $((50000000 + size * 100 + i)) 1
		payload "$work/bare$i.json" $((60000000 + size * 100 + i)) 1
		payload "$work/ten$i.json" $((70000000 + size * 1000 + i * 10)) 1 "$ws" 10
		if [ -n "$base" ]; then
			payload "$work/base-fail$((n + i)).json" $((50000000 + size * 100 + n + i)) 1 "$bws"
			payload "$work/base-bare$((n + i)).json" $((60000000 + size * 100 + n + i)) 1 "$bws"
			payload "$work/base-ten$((n + i)).json" \
				$((70000000 + size * 1000 + (n + i) * 10)) 1 "$bws" 10
		fi
		i=$((i + 1))
	done
	created=$(bench_settle "$work" "$ws/.callus")
	callus=$(bench_fresh "$work/this" "$callus_src")
	[ -z "$base" ] || base=$(bench_fresh "$work/base" "$base_src")
	# config CONTENTS: both copies' .callus/config
	config() {
		printf "$1" >.callus/config
		[ -z "$base" ] || printf "$1" >"$bws/.callus/config"
	}
	# rec: one untimed failure of the recurring error, by each binary
	rec() {
		"$callus" hook generic <"$work/rec.json" >/dev/null
		[ -z "$base" ] || (cd "$bws" && CALLUS_GIT_HELPER=$(dirname "$base")/callus-git \
			"$base" hook generic <"$work/base-rec.json" >/dev/null)
	}
	# its first three failures: the first is new to the check (a pending
	# error and its snapshot), the third makes it permanent ("3+ attempts")
	rec && rec && rec
	line=$(
		row fail "$work/fail%d.json" hook generic
		config '[retention]\ngc_hours = 0\n[learn]\nsnapshots = false\n'
		row bare "$work/bare%d.json" hook generic
		row ten "$work/ten%d.json" hook generic
		config '[retention]\ngc_hours = 0\n'
		row pass "$work/pass.json" hook generic
		# the new errors timed above took its lesson out of the block:
		# its coming back (a rewrite of AGENTS.md) is not the recurrence
		rec
		row recur "$work/rec.json" hook generic
		row suggest "$work/suggest.txt" suggest --command "gcc -c src/d0/f0.c"
		row status /dev/null status
		row session "$work/start.json" hook claude-code
		n=3 row gc /dev/null gc
		# the baseline: a start that opens nothing, what the machine
		# charges any process of this binary (exec, loading, exit)
		row start /dev/null --version
		# and what any process costs, which callus cannot lower
		noop
	)
	sqlite3 .callus/callus.db 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
	nl=$(sqlite3 .callus/callus.db 'SELECT count(*) FROM lessons')
	ns=$(sqlite3 .callus/callus.db 'SELECT count(*) FROM signatures')
	bytes=$(stat -c %s .callus/callus.db)
	# the pages that hold something (the file less its free list)
	used=$(sqlite3 .callus/callus.db 'SELECT sum(pgsize) FROM dbstat')
	files=$(find .lessons -name '*.md' | wc -l)
	set -- $line
	printf "| %s | %s us | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n" \
		"$size" "$created" "$nl" "$ns" "$2" "$4" "$6" "$8" "${10}" "${12}" "${14}" "${16}" \
		"${18}" "${20}" "${22}" $((bytes / ns)) $((used / ns)) "$files"
done
