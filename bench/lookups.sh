#!/bin/sh
# bench/lookups.sh - the lookups that read whole tables as the store grew
# (the ninety-second pass, docs/scale-history.md), counted by callgrind
# for two binaries, each in its own copy of a store grown by bench/scale.sh
# (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE), with snapshots on:
#   - the passing check that fixes an error: the store's gcc error 0
#     failing its own check (untimed), its file edited, the check passing
#     (counted): its reply names the fix's note, looked up by its id;
#   - `callus note ID --rule TEXT` of the store's first note, which each
#     fix's reply offers: the rule goes to its errors' lessons;
#   - `callus pending --state all`: its first 50;
#   - the hook before an edit (Claude Code's PreToolUse of Edit) of a file
#     callus knows: src/d0/f0.c, the store's error 0, failing for good, and
#     the file of the newest error a resolution fixed; the replies of the
#     two binaries are compared, and must be the same;
#   - a failing hook (a new error, the store's gcc error 500,000) whose
#     retention pass is due ([retention] gc_hours = 24, the stamp two days
#     old): the hook's own process, not a pass it starts apart.
# Run at two sizes to see what grows: instructions do not move with the
# machine's load, as CPU time does.
# Usage: bench/lookups.sh WS OLD NEW
#   e.g. bench/lookups.sh /tmp/keep92/ws-100000 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 3 ] || {
	echo "usage: bench/lookups.sh WS OLD NEW" >&2
	exit 2
}
from=$1
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
bench_need lookups jq git sqlite3 valgrind || exit 2
old_bin=$(bench_exe lookups "$2") || exit 2
new_bin=$(bench_exe lookups "$3") || exit 2
bench_pair lookups "$repo" "$from" "$old_bin" "$new_bin"

count() { # X what... : one line "X what instructions"
	x=$1
	shift
	printf '%s\n' "$(cd "$work/ws-$x" && CALLUS_GIT_HELPER=$(dirname "$(bench_bin_of "$x")")/callus-git \
		bench_callgrind "$@")"
}

for x in old new; do
	ws=$work/ws-$x
	bin=$(bench_bin_of "$x")
	bench_ready "$from" "$ws" "$bin" snapshots
	bench_fail_payload "$work" 0 "$ws" "$work/$x-fail.json" own
	jq '.exit_code = 0 | .output = ""' "$work/$x-fail.json" >"$work/$x-pass.json"
	file=$(sed -n '1s/:.*//p' "$work/out.txt")
	mkdir -p "$ws/$(dirname "$file")"
	echo "int lookups_x;" >"$ws/$file"
	git -C "$ws" add "$file"
	git -C "$ws" -c user.name=bench -c user.email=bench@localhost commit -qm "$file"
	(cd "$ws" && CALLUS_GIT_HELPER=$(dirname "$bin")/callus-git "$bin" hook generic \
		<"$work/$x-fail.json" >/dev/null)
	echo "/* fixed */" >>"$ws/$file"
	fixes=$(bench_store_sql "$ws/.callus/callus.db" "SELECT count(*) FROM resolutions")
	eval "${x}_pass=\$(count $x $work/$x-pass.json $bin hook generic)"
	# the pass must have learnt its fix, or its count says nothing of one
	[ "$(bench_store_sql "$ws/.callus/callus.db" "SELECT count(*) FROM resolutions")" -gt "$fixes" ] || {
		echo "bench/lookups.sh: the $x binary's pass learnt no fix" >&2
		exit 1
	}
	note=$(bench_store_sql "$ws/.callus/callus.db" "SELECT id FROM notes ORDER BY id LIMIT 1")
	[ -n "$note" ] || {
		echo "bench/lookups.sh: $from holds no note" >&2
		exit 1
	}
	eval "${x}_rule=\$(count $x /dev/null $bin note $note --rule 'check the argument first')"
	eval "${x}_all=\$(count $x /dev/null $bin pending --state all)"
	fixed=$(bench_store_sql "$ws/.callus/callus.db" "SELECT json_extract(files, '\$[0]')
		FROM pending_errors WHERE state = 'fixed' AND resolution_id IS NOT NULL
		ORDER BY id DESC LIMIT 1")
	for f in src/d0/f0.c "$fixed"; do
		jq -n --arg cwd "$ws" --arg f "$ws/$f" '{session_id: "s1", cwd: $cwd,
			hook_event_name: "PreToolUse", tool_name: "Edit",
			tool_input: {file_path: $f, old_string: "a", new_string: "b"}}' >"$work/edit.json"
		(cd "$ws" && "$bin" hook claude <"$work/edit.json" >>"$work/$x-edits.txt")
		eval "${x}_edit=\"\${${x}_edit:-}\${${x}_edit:+ / }\$(count $x $work/edit.json $bin hook claude)\""
	done
done
# the pass due last: it may remove what the rows above read
for x in old new; do
	ws=$work/ws-$x
	bin=$(bench_bin_of "$x")
	bench_fail_payload "$work" 500000 "$ws" "$work/$x-due.json" own
	printf '[retention]\ngc_hours = 24\n' >"$ws/.callus/config"
	touch -d "2 days ago" "$ws/.callus/gc.stamp"
	eval "${x}_due=\$(count $x $work/$x-due.json $bin hook generic)"
	[ -z "$(find "$ws/.callus/gc.stamp" -mmin +60)" ] || {
		echo "bench/lookups.sh: the $x binary's hook ran no retention pass" >&2
		exit 1
	}
done
# a pass started apart ends before the copies are removed
sleep 5
cmp -s "$work/old-edits.txt" "$work/new-edits.txt" || {
	echo "bench/lookups.sh: the two binaries told the edits different things:" >&2
	diff "$work/old-edits.txt" "$work/new-edits.txt" >&2
	exit 1
}
grep -q "failed .* times and was never fixed" "$work/new-edits.txt" || {
	echo "bench/lookups.sh: the edit of src/d0/f0.c was told nothing of its error" >&2
	exit 1
}
echo "| instructions, $(basename "$from") | OLD | NEW |"
echo "|:---|---:|---:|"
echo "| the passing check that fixes an error | $old_pass | $new_pass |"
echo "| \`callus note ID --rule TEXT\` | $old_rule | $new_rule |"
echo "| \`callus pending --state all\` | $old_all | $new_all |"
echo "| the hook before an edit of a file failing for good / of one fixed | $old_edit | $new_edit |"
echo "| a failing hook whose retention pass is due | $old_due | $new_due |"
