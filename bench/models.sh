#!/bin/sh
# bench/models.sh - what the vectors of an external embedding model weigh
# in a grown store once the workspace is no longer set up with it, and
# what `callus gc` ([retention] model_days) gives back, two binaries on
# copies of the same store.  A store grown by bench/scale.sh
# (CALLUS_SCALE_KEEP=DIR keeps DIR/ws-SIZE) is copied for each binary;
# in each, a loopback embeddings endpoint (tests/unit/embed_server.py, DIM
# components, default 1536: a common model's) embeds every signature
# (`callus reindex`), then [embed] is taken out of .callus/config and the
# time a callus process last had the model set up is dated 31 days back
# (the model dropped a month ago; the default model_days is 30), and one
# `callus gc` runs (timed: bench/proctime's
# CPU ms).  Rows: the store's bytes (.callus/callus.db after a checkpoint)
# per signature and the model's vector file, as grown (the baseline), with
# the model's vectors, and after each binary's gc.
# Usage: bench/models.sh WS OLD NEW [DIM]
#   e.g. bench/models.sh /tmp/keep/ws-10000 /tmp/old/build/callus build/callus
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: bench/models.sh WS OLD NEW [DIM]" >&2; exit 2; }
# shellcheck source=bench/tools.sh
. "$repo/bench/tools.sh"
src=$1 dim=${4:-1536}
bench_count models DIM "$dim"
old_src=$(bench_exe models "$2") || exit 2
new_src=$(bench_exe models "$3") || exit 2
bench_grown models "$repo" "$src" "$new_src"

bench_embed_server models "$repo" "$dim"

# bytes X: .callus/callus.db of X's copy per signature, after a checkpoint
bytes() {
	db=$work/$1/.callus/callus.db
	sigs=$(bench_store_sql "$db" "PRAGMA wal_checkpoint(TRUNCATE);" \
		"SELECT count(*) FROM signatures;" | tail -n 1)
	echo "$(( $(stat -c %s "$db") / sigs )) ($sigs signatures)"
}

# ext X: the bytes of X's external model's vector files, 0 when none
ext() {
	find "$work/$1/.callus" -maxdepth 1 -name 'vectors-ext-*' -exec stat -c %s {} + |
		awk '{ s += $1 } END { print s + 0 }'
}

# ready X BIN: X's copy of the store, every signature embedded through
# BIN, then the model dropped a month ago
ready() {
	bench_copy_store "$src" "$work/$1"
	printf '[retention]\ngc_hours = 0\n' >"$work/$1/.callus/config"
	(cd "$work/$1" && "$2" gc >/dev/null)
	[ "$1" != old ] || echo "| as grown (the baseline) | $(bytes old) | $(ext old) |"
	printf '[retention]\ngc_hours = 0\n[embed]\nurl = http://127.0.0.1:%s/v1/embeddings\nmodel = bench\n' \
		"$port" >"$work/$1/.callus/config"
	(cd "$work/$1" && "$2" reindex --quiet)
	[ "$1" != old ] || echo "| with the model's vectors | $(bytes old) | $(ext old) |"
	printf '[retention]\ngc_hours = 0\n' >"$work/$1/.callus/config"
	bench_store_sql "$work/$1/.callus/callus.db" \
		"UPDATE sync_state SET value = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-31 days')
		 WHERE key LIKE 'embed.named_at %';" >/dev/null
}
echo "# $src; DIM $dim; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "| store | bytes per signature | the model's vector files, bytes |"
echo "|:---|---:|---:|"
ready old "$old_src"
ready new "$new_src"
bench_pair_fresh
for x in old new; do
	bin=$(bench_bin_of "$x")
	ms=$(cd "$work/$x" && "$work/proctime" 1 /dev/null "$bin" gc | cut -d' ' -f1)
	echo "| after $(echo "$x" | tr a-z A-Z)'s callus gc ($ms ms of CPU) | $(bytes "$x") | $(ext "$x") |"
done
