# bench/tools.sh - sourced by the benchmarks that time callus processes and
# make gcc failures: bench_tools REPO WORK LIBDIR builds WORK/proctime
# (bench/proctime.c: a process's CPU time from wait4) and WORK/scale_gen
# (bench/scale_gen.c, linked with LIBDIR/libcallus.a: a store grown through
# the recording path, and `scale_gen -p K`, gcc error K's output).
# shellcheck shell=sh

bench_tools() {
	cc -O2 -o "$2/proctime" "$1/bench/proctime.c"
	# shellcheck disable=SC2046 # pkg-config's flags are word lists
	cc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wmissing-prototypes \
		-I"$1/include" $(pkg-config --cflags sqlite3 jansson) \
		-o "$2/scale_gen" "$1/bench/scale_gen.c" "$3/libcallus.a" \
		$(pkg-config --libs sqlite3 jansson libpcre2-8) -lm
}
