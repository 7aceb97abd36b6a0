#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
test_description='user data is precious, and callus never changes a result

Concurrent writers lose nothing; a store that cannot be written (read-only
directory, corrupt file, locked past the timeout) leaves the command output
and exit status untouched, with one message on stderr and one in the log;
secrets are redacted before anything is written.'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

# A failing make target is a verification command callus knows (make is on the
# built-in whitelist) that needs no tool from npm.
make_project() {
	mkdir -p "$1/src" &&
	(
		cd "$1" &&
		git init -q &&
		printf "int main(void) { return 0 }\n" >src/main.c &&
		printf "check:\n\t@echo \"src/main.c:1:27: error: expected ';' before '}' token\"; exit 2\n" >Makefile
	)
}

# What the first test asks is that concurrent writers lose nothing, not how
# long one may wait: 100 processes under AddressSanitizer on two cores take
# 16 s on a slow machine, past the default 10 s for the store's lock (a store
# locked past its timeout is the fifth test's).
test_expect_success '100 concurrent failing runs: every occurrence is stored' '
	make_project conc &&
	cd conc &&
	mkdir -m 700 .callus && printf "[store]\ntimeout_ms = 120000\n" >.callus/config &&
	for i in $(seq 1 100); do
		"$CALLUS" run -- make -s check >"out.$i" 2>"err.$i" &
	done &&
	wait &&
	for i in $(seq 1 100); do
		grep -q "expected" "out.$i" || { echo "run $i lost its output"; exit 1; }
		if grep -qi "locked\|not recorded" "err.$i"; then cat "err.$i"; exit 1; fi
	done &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 100 &&
	test "$(sqlite3 .callus/callus.db "SELECT sum(occurrences) FROM lessons")" = 100 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM lessons")" = 1 &&
	test "$(sqlite3 .callus/callus.db "PRAGMA integrity_check")" = ok
'

test_expect_success 'concurrent exit statuses are each the command'"'"'s own' '
	make_project codes &&
	cd codes &&
	printf "check:\n\t@echo \"src/main.c:1:1: error: code \$(CODE)\"; exit \$(CODE)\n" >Makefile &&
	for i in $(seq 1 20); do
		( "$CALLUS" run -- make -s check CODE=$i >/dev/null 2>&1; echo $? >"code.$i" ) &
	done &&
	wait &&
	for i in $(seq 1 20); do
		test "$(cat "code.$i")" = $((i == 0 ? 0 : 2)) || { echo "run $i: $(cat "code.$i")"; exit 1; }
	done
'

test_expect_success '[store] timeout_ms = 0 is the default, as doctor says: a busy store is waited for' '
	mkdir busy && cd busy && git init -q &&
	echo "int f(void){ return nope; }" >b.c &&
	{ "$CALLUS" run -- gcc -c b.c 2>/dev/null || :; } &&
	echo "int f(void){ return 0; }" >b.c &&
	"$CALLUS" run -- gcc -c b.c 2>/dev/null &&
	printf "[store]\n\ttimeout_ms = 0\n" >.callus/config &&
	{ "$CALLUS" doctor >doc 2>&1 || :; } &&
	grep -q "timeout_ms. must be between 1 and" doc || return 1
	(printf ".timeout 10000\nBEGIN EXCLUSIVE;\n.shell touch held\n"; sleep 1; echo "COMMIT;") |
		sqlite3 .callus/callus.db &
	for i in $(seq 1 100); do test -e held && break; sleep 0.1; done
	test -e held || return 1
	"$CALLUS" feedback 1 success >out 2>err &&
	wait && grep -q "recorded a success" out
'

test_expect_success 'a store in a read-only directory: output and status unchanged' '
	# root writes anywhere: run callus as nobody, in a directory nobody can
	# reach but not write
	ro_root=$(mktemp -d /tmp/callus-ro.XXXXXX) &&
	chmod 0755 "$ro_root" &&
	make_project "$ro_root/p" &&
	chmod -R a+rX "$ro_root/p" &&
	cd "$ro_root/p" &&
	make -s check >"$TRASH_DIRECTORY/expect.out" 2>/dev/null || true &&
	chmod 0555 . &&
	status=0 &&
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CALLUS" run -- make -s check >"$TRASH_DIRECTORY/out" 2>"$TRASH_DIRECTORY/err" ||
		status=$? &&
	chmod 0755 . &&
	! test -e .callus &&
	cd "$TRASH_DIRECTORY" && rm -rf "$ro_root" &&
	test $status = 2 &&
	test_cmp expect.out out &&
	grep -c "^callus: " err >count &&
	echo 1 >one && test_cmp one count &&
	grep -q "lesson not recorded" err
'

test_expect_success 'a corrupt store: output and status unchanged, the run queued, logged' '
	make_project corrupt &&
	cd corrupt &&
	mkdir -p .callus && head -c 8192 /dev/urandom >.callus/callus.db &&
	make -s check >expect.out 2>/dev/null || true &&
	test_expect_code 2 "$CALLUS" run -- make -s check >out 2>err &&
	test_cmp expect.out out &&
	grep -q "^callus: lesson queued: .*file is not a database; it is recorded once the store can take it$" err &&
	test "$(grep -c "^callus: " err)" = 1 &&
	test "$(ls .callus/spool | grep -c "\.json$")" = 1 &&
	grep -q "\"event\":\"record_kept\"" .callus/log.jsonl
'

test_expect_success 'a store locked past the timeout: output and status unchanged, the run queued' '
	make_project locked &&
	cd locked &&
	test_expect_code 2 "$CALLUS" run -- make -s check >/dev/null 2>&1 &&
	printf "[store]\n\ttimeout_ms = 200\n" >.callus/config &&
	# another process holds the write lock for 3 s
	hold_store 3 &&
	make -s check >expect.out 2>/dev/null || true &&
	test_expect_code 2 "$CALLUS" run -- make -s check >out 2>err &&
	wait &&
	test_cmp expect.out out &&
	grep -q "^callus: lesson queued" err &&
	test "$(grep -c "^callus: " err)" = 1 &&
	# its drainer records it once the lock is let go
	for i in $(seq 1 100); do
		test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 2 && break
		sleep 0.2
	done &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM runs")" = 2
'

test_expect_success 'a .callus that is a file: output and status unchanged' '
	make_project notdir &&
	cd notdir &&
	echo "not a directory" >.callus &&
	test_expect_code 2 "$CALLUS" run -- make -s check >out 2>err &&
	grep -q "expected" out &&
	grep -q "lesson not recorded" err
'

test_expect_success 'secrets planted in the output are in no file callus wrote' '
	make_project secret &&
	cd secret &&
	{
		printf "check:\n"
		printf "\t@echo \"src/main.c:1:1: error: request failed for https://bob:hunter2secret@api.example.com/v1\"\n"
		printf "\t@echo \"env: GITHUB_TOKEN=ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8\"\n"
		printf "\t@echo \"AWS key AKIAIOSFODNN7EXAMPLE failed; API_KEY=sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789\"\n"
		printf "\t@exit 1\n"
	} >Makefile &&
	test_expect_code 2 "$CALLUS" run -- make -s check >out 2>err &&
	grep -q "ghp_a1B2c3D4" out &&
	test -s .callus/callus.db && test -s AGENTS.md &&
	for secret in hunter2secret ghp_a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8 AKIAIOSFODNN7EXAMPLE \
		sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789; do
		if grep -rqa "$secret" .callus .lessons AGENTS.md; then
			echo "found $secret"; exit 1
		fi
	done &&
	grep -q "REDACTED" AGENTS.md
'

test_expect_success 'non-verification commands are never recorded, even failing' '
	mkdir plain && cd plain && git init -q &&
	test_expect_code 2 "$CALLUS" run -- ls /nonexistent >/dev/null 2>&1 &&
	test_expect_code 1 "$CALLUS" run -- sh -c "echo error: src/a.c:1:1: bad; exit 1" >/dev/null &&
	test_expect_code 1 "$CALLUS" run -- git log --bad-flag >/dev/null 2>&1 || true &&
	! test -e .callus && ! test -e AGENTS.md
'

test_expect_success 'a verification command with 1 GB of output: bounded memory, lesson recorded' '
	test -z "${CALLUS_TEST_SKIP_HUGE:-}" || { echo "skipped (CALLUS_TEST_SKIP_HUGE)"; exit 0; }
	make_project huge &&
	cd huge &&
	printf "check:\n\t@yes \"src/main.c:1:27: error: expected ; before } token\" | head -c 1073741824; exit 1\n" >Makefile &&
	/usr/bin/time -f %M -o rss "$CALLUS" run -- make -s check | cksum >got || true &&
	yes "src/main.c:1:27: error: expected ; before } token" | head -c 1073741824 | cksum >want &&
	test_cmp want got &&
	rss=$(tail -n 1 rss) &&
	test_info "peak RSS recording 1 GB of failing output: $rss KB" &&
	test "$rss" -lt 65536 &&
	test "$(sqlite3 .callus/callus.db "SELECT count(*) FROM lessons")" = 1
'

# Whether this machine lets the suite bind-mount a folder read-only (root
# with the privilege to mount): the read-only store's test needs it.
ro_mount_ok() {
	local d
	d=$(mktemp -d) || return 1
	if mount --bind "$d" "$d" 2>/dev/null; then
		mount -o remount,ro,bind "$d" 2>/dev/null && ! touch "$d/x" 2>/dev/null
		local r=$?
		umount "$d"
		rmdir "$d"
		return $r
	fi
	rmdir "$d"
	return 1
}

ro_mount_ok || test_skip "no read-only bind mount here (root with CAP_SYS_ADMIN needed)"
test_expect_success 'a store on a read-only file system is read; a recording fails, and doctor says why' '
	mkdir rofs && cd rofs && git init -q &&
	printf "int main(void){ return undefined_x; }\n" >x.c &&
	test_expect_code 1 "$CALLUS" run -- gcc -c x.c -o /dev/null 2>/dev/null &&
	sqlite3 .callus/callus.db "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null &&
	mount --bind .callus .callus && mount -o remount,ro,bind .callus &&
	{ "$CALLUS" status >../ro-status 2>&1; s=$?
	  "$CALLUS" lessons --json >../ro-lessons 2>&1; l=$?
	  "$CALLUS" doctor >../ro-doctor 2>&1
	  test_expect_code 1 "$CALLUS" run -- gcc -c x.c -o /dev/null 2>../ro-run; r=$?
	  umount .callus; test $s = 0 && test $l = 0 && test $r = 0; } &&
	grep -q "^lessons      1 from 1 failed run" ../ro-status &&
	jq -e "length == 1" ../ro-lessons &&
	grep -q "^problem  store      .callus/callus.db can only be read" ../ro-doctor &&
	! grep -q "move it aside" ../ro-doctor &&
	grep -q "lesson not recorded" ../ro-run
'

test_done
