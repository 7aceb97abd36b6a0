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

test_done
