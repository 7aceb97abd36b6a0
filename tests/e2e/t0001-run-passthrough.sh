#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='callus run passes a command through unchanged

Whatever callus does with the output of `callus run [--] CMD`, the caller sees
exactly what running CMD bare would show: the same bytes on stdout and on
stderr, streamed live, the same exit status (128+n when CMD dies of signal n),
stdin passed through, and a terminal when callus itself has one.  None of the
commands here is a verification command, so callus records nothing.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

for code in 0 1 3 255; do
	test_expect_success "exit status $code passes through, nothing added" "
		test_expect_code $code \"\$CALLUS\" run -- sh -c 'exit $code' >out 2>err &&
		test_must_be_empty out &&
		test_must_be_empty err
	"
done

test_expect_success 'the -- before the command is optional' '
	test_expect_code 3 "$CALLUS" run sh -c "echo hi; exit 3" >out &&
	echo hi >expect &&
	test_cmp expect out
'

test_expect_success 'options after the command name belong to the command' '
	"$CALLUS" run -- printf "%s|" --help -v -- >out &&
	printf "%s|" --help -v -- >expect &&
	test_cmp expect out
'

test_expect_success 'death by SIGKILL is status 137' '
	test_expect_code 137 "$CALLUS" run -- sh -c "kill -9 \$\$"
'

test_expect_success 'death by SIGTERM is status 143' '
	test_expect_code 143 "$CALLUS" run -- sh -c "kill -TERM \$\$"
'

test_expect_success 'killed by a signal, callus ends the same way: a shell loop stops at Ctrl-C' '
	cat >loop.sh <<-\SH &&
	for i in 1 2 3; do "$CALLUS" run -- sleep 5; done; echo END
	SH
	# Ctrl-C: SIGINT to the whole foreground group
	CALLUS="$CALLUS" python3 -c "
import os, signal, subprocess, time
p = subprocess.Popen([\"bash\", \"loop.sh\"], start_new_session=True, stdout=open(\"out\", \"w\"),
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(1.5)
os.killpg(p.pid, signal.SIGINT)
p.wait(timeout=30)
" &&
	! grep -q END out &&
	# the status a shell reports stays 128+N
	test_expect_code 130 env --default-signal=INT "$CALLUS" run -- sh -c "kill -INT \$\$"
'

test_expect_success 'stdout and stderr are byte-identical to a bare run' - <<\EOF
	cat >noisy.sh <<\SH
printf 'line one\n'
printf 'to stderr\n' >&2
printf '\033[31mred\033[0m\r\ncarriage\rreturn\ttab\n'
printf 'nul:\000 high:\377\376 bad utf-8:\300\n' >&2
printf 'no final newline'
exit 5
SH
	test_expect_code 5 sh noisy.sh >expect.out 2>expect.err &&
	test_expect_code 5 "$CALLUS" run -- sh noisy.sh >out 2>err &&
	cmp expect.out out &&
	cmp expect.err err
EOF

test_expect_success 'stdout and stderr keep their order when merged' '
	sh -c "echo 1; sleep 0.2; echo 2 >&2; sleep 0.2; echo 3" >expect 2>&1 &&
	"$CALLUS" run -- sh -c "echo 1; sleep 0.2; echo 2 >&2; sleep 0.2; echo 3" >out 2>&1 &&
	test_cmp expect out
'

test_expect_success 'stdout and stderr written at once into one file keep their order' '
	cat >mix.py <<-\PY &&
	import sys
	for i in range(200):
	    print("out", i, flush=True)
	    print("err", i, file=sys.stderr, flush=True)
	PY
	python3 mix.py >expect 2>&1 &&
	"$CALLUS" run -- python3 mix.py >out 2>&1 &&
	test_cmp expect out
'

test_expect_success 'a reader gone: the command dies of SIGPIPE as it would bare' '
	# callus started as a shell starts a command: SIGPIPE and SIGXFSZ at
	# their defaults (the suite may run where they are not)
	dflt="env --default-signal=PIPE,XFSZ" &&
	# it ends (an endless writer used to be drained for ever), 141 as bare
	timeout 20 $dflt "$CALLUS" run -- yes | head -n 1 >out &&
	test "${PIPESTATUS[0]}" = 141 && test "$(cat out)" = y &&
	# SIGPIPE and SIGXFSZ are the command'"'"'s defaults, not callus'"'"'s
	test_expect_code 141 $dflt "$CALLUS" run -- sh -c "kill -PIPE \$\$" &&
	$dflt "$CALLUS" run -- sh -c "grep ^SigIgn: /proc/self/status" >out &&
	test $((0x$(awk "/^SigIgn:/ { print \$2 }" out) & 0x1001000)) = 0 &&
	test_expect_code 153 $dflt sh -c "ulimit -f 1; exec \"\$CALLUS\" run -- sh -c \"head -c 10000 /dev/zero >big\"" &&
	# ignored from the start, ignored for the command too
	(trap "" PIPE; "$CALLUS" run -- sh -c "grep ^SigIgn: /proc/self/status") >out &&
	test $((0x$(awk "/^SigIgn:/ { print \$2 }" out) & 0x1000)) = 4096
'

test_expect_success 'output that cannot be written fails the run, and says so' '
	test_expect_code 1 "$CALLUS" run -- sh -c "echo x" >/dev/full 2>err &&
	grep -q "callus: the command.s output could not all be written: No space left on device" err &&
	# a failing command keeps its own status
	test_expect_code 3 "$CALLUS" run -- sh -c "echo x; exit 3" >/dev/full 2>err
'

test_expect_success 'a descriptor closed for callus is closed for the command' '
	test_expect_code 1 "$CALLUS" run -- cat <&- 2>err &&
	grep -q "Bad file descriptor" err &&
	test_expect_code 0 "$CALLUS" run -- sh -c "echo x >&3 2>/dev/null || echo closed" 3>&- >out &&
	test "$(cat out)" = closed
'

test_expect_success '1 MB of random bytes through a pipe' '
	head -c 1000000 /dev/urandom >f &&
	"$CALLUS" run -- cat f | cmp - f
'

test_expect_success '1 MB of random bytes to a file, exit status kept' '
	head -c 1000000 /dev/urandom >f &&
	"$CALLUS" run -- cat f >out &&
	cmp f out
'

test_expect_success '1 MB of random bytes on stderr' '
	head -c 1000000 /dev/urandom >f &&
	"$CALLUS" run -- sh -c "cat f >&2" >out 2>err &&
	cmp f err &&
	test_must_be_empty out
'

test_expect_success 'stdin passes through' '
	printf x | "$CALLUS" run -- cat >out &&
	printf x >expect &&
	test_cmp expect out
'

test_expect_success 'binary stdin passes through' '
	head -c 1000000 /dev/urandom >f &&
	"$CALLUS" run -- cat <f >out &&
	cmp f out
'

test_expect_success 'without a terminal the command gets none' '
	"$CALLUS" run -- sh -c "test -t 1 && echo TTY || echo NOTTY" >out &&
	echo NOTTY >expect &&
	test_cmp expect out
'

test_expect_success 'output is streamed while the command runs' - <<\EOF
	mkfifo go out.pipe &&
	# Read-write, so that writing to it never blocks and the command's
	# `read <go` waits until we write.
	exec 4<>go &&
	{ "$CALLUS" run -- sh -c 'echo first; read x <go; echo second' >out.pipe & } &&
	pid=$! &&
	exec 3<out.pipe &&
	first=TIMEOUT &&
	{ read -r -t 10 first <&3 || :; } &&
	echo >&4 &&
	read -r -t 10 second <&3 &&
	wait "$pid" &&
	test "$first" = first &&
	test "$second" = second
EOF

test_expect_success 'run -q says nothing of a workspace it cannot use' '
	mkdir gone && (cd gone && rmdir ../gone &&
		{ "$CALLUS" run -q -- false 2>../err.q || echo $? >../st.q; } &&
		{ "$CALLUS" run -- false 2>../err.loud || :; }) &&
	test "$(cat st.q)" = 1 && test_must_be_empty err.q &&
	grep -q "cannot use" err.loud
'

test_expect_success 'a missing command is status 127 with a message' '
	test_expect_code 127 "$CALLUS" run -- callus-test-no-such-command arg >out 2>err &&
	test_must_be_empty out &&
	grep callus-test-no-such-command err
'

test_skip_unless_tool /usr/bin/time
if [ "${CALLUS_TEST_SKIP_HUGE:-}" = 1 ]; then
	test_skip 'CALLUS_TEST_SKIP_HUGE=1'
fi
test_expect_success '1 GB of output streams through in under 64 MB of memory' - <<\EOF
	gen="yes 'src/app.js:12:5 error: 0123456789 abcdef' | head -c 1073741824"
	/usr/bin/time -f '%M %e' -o rss "$CALLUS" run -- sh -c "$gen" |
		cmp - <(sh -c "$gen")
	status=${PIPESTATUS[0]}
	read -r kb seconds < <(tail -n 1 rss)
	test_info "peak RSS streaming 1 GB through callus run: $kb KB in $seconds s (limit 65536 KB)"
	test "$status" -eq 0
	test "$kb" -lt 65536
EOF

test_skip_unless_tool script
test_expect_success 'under a terminal the command gets one' '
	script -qec "\"\$CALLUS\" run -- sh -c \"test -t 1 && echo TTY || echo NOTTY\"" /dev/null >out &&
	tr -d "\r" <out >actual &&
	echo TTY >expect &&
	test_cmp expect actual
'

test_skip_unless_tool script
test_expect_success 'stdout redirected, stderr the terminal: the command'"'"'s stderr is one too' '
	# so a compiler keeps its colours on the screen, as bare
	test_expect_code 5 script -qec "\"\$CALLUS\" run -- sh -c \"test -t 1 && echo TTY || echo NOTTY; test -t 2 && echo ETTY >&2 || echo ENOTTY >&2; exit 5\" >file.out" /dev/null >term &&
	echo NOTTY >expect &&
	test_cmp expect file.out &&
	grep -q "^ETTY" term && ! grep -q "ENOTTY" term
'

test_skip_unless_tool script
test_expect_success 'under a terminal the exit status passes through' '
	test_expect_code 3 script -qec "\"\$CALLUS\" run -- sh -c \"exit 3\"" /dev/null
'

test_skip_unless_tool script
test_expect_success 'under a terminal the output passes through' '
	script -qec "\"\$CALLUS\" run -- printf \"one\\ntwo\\n\"" /dev/null >out &&
	tr -d "\r" <out >actual &&
	printf "one\ntwo\n" >expect &&
	test_cmp expect actual
'

test_skip_unless_tool script
test_expect_success 'under a terminal the command stays in the terminal'"'"'s session: /dev/tty is the user'"'"'s' '
	# script feeds the terminal: a command reading /dev/tty (a pager, a
	# password prompt) gets it, as bare; through a pty of its own session
	# it waited for ever
	printf "typed\n" | timeout 20 script -qec "\"\$CALLUS\" run -- sh -c \"read x </dev/tty; echo got \\\$x\"" /dev/null >out &&
	tr -d "\r" <out | grep -q "^got typed$" &&
	script -qec "\"\$CALLUS\" run -- sh -c \"ps -o sid= -p \\\$\\\$ -p \\\$PPID\"" /dev/null >out &&
	test "$(tr -d "\r " <out | sort -u | wc -l)" = 1
'

test_expect_success 'a signal while the run is being recorded: the command'"'"'s status, not the signal'"'"'s' '
	mkdir rec && cd rec && git init -q &&
	echo "int main(void){ return nope; }" >bad.c &&
	{ test_expect_code 1 "$CALLUS" run -- gcc -c bad.c 2>/dev/null || return 1; }
	# the store held by another writer: the recording waits for it
	(printf ".timeout 10000\nBEGIN EXCLUSIVE;\n.shell touch held\n"; sleep 8; echo "COMMIT;") |
		sqlite3 .callus/callus.db &
	for i in $(seq 1 100); do test -e held && break; sleep 0.1; done
	test -e held || return 1
	# the command leaves callus'"'"'s pid (its parent) and fails
	{ st=0; "$CALLUS" run -- sh -c "gcc -c bad.c 2>/dev/null; echo \$PPID >callus.pid; exit 1" \
		2>/dev/null || st=$?; echo $st >status; } &
	for i in $(seq 1 100); do test -s callus.pid && break; sleep 0.1; done
	test -s callus.pid && sleep 0.5 &&
	kill -TERM "$(cat callus.pid)" || return 1
	for i in $(seq 1 100); do test -s status && break; sleep 0.1; done
	wait || :
	test "$(cat status)" = 1
'

test_have_tool unshare && test "$(id -u)" = 0 || test_skip "unshare and root, to take /dev/ptmx away"
test_expect_success 'no pseudo-terminal to be had: the command runs all the same' '
	cat >noptmx.sh <<-\SH &&
	mount --bind /dev/null /dev/ptmx && exec "$CALLUS" run -- sh -c "echo ran; exit 4"
	SH
	test_expect_code 4 script -qec "unshare -m --propagation private sh noptmx.sh" /dev/null >out &&
	tr -d "\r" <out | grep -q "^ran$" &&
	! grep -q "pseudo-terminal" out
'

test_done
