# bench/tools.sh - sourced by the benchmarks that time callus processes and
# make gcc failures: bench_tools REPO WORK LIBDIR builds WORK/proctime
# (bench/proctime.c: a process's CPU time from wait4), WORK/scale_gen
# (bench/scale_gen.c, linked with LIBDIR/libcallus.a: a store grown through
# the recording path, and `scale_gen -p K`, gcc error K's output) and
# WORK/fsprobe (bench/fsprobe.c: what creating a file costs in a directory).
# bench_settle WORK DIR waits, after a harness removed thousands of files,
# until creating one in DIR costs what it costs on a quiet disk
# (bench/fsprobe.c says why), and prints that cost in microseconds.
# shellcheck shell=sh

bench_tools() {
	cc -O2 -o "$2/proctime" "$1/bench/proctime.c"
	cc -O2 -o "$2/fsprobe" "$1/bench/fsprobe.c"
	# shellcheck disable=SC2046 # pkg-config's flags are word lists
	cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
		-I"$1/include" $(pkg-config --cflags sqlite3 jansson) \
		-o "$2/scale_gen" "$1/bench/scale_gen.c" "$3/libcallus.a" \
		$(pkg-config --libs sqlite3 jansson libpcre2-8) -lm
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
