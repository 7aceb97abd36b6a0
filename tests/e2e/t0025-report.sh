#!/bin/bash
# shellcheck disable=SC2016 # test bodies are single-quoted on purpose
# shellcheck source-path=SCRIPTDIR
# e2e: long (started first: tests/e2e/run.sh)
test_description='callus report (issue 17)

A store filled by real gcc failures and fixes, one of them an #error whose
message carries <script> and </svg>, one that stays failing until it is
permanent: the page says what callus status says, shows the known error with
its note and the lines of its fix, shows the injected markup as text, is
well-formed HTML5 (html5lib), and in Debian'"'"'s headless Chromium at 1280 and
390 pixels loads with no console message, asks for nothing over the network
and is no wider than the window, in light and dark.  An empty workspace gets a
page that says so; --layer picks the notes of a layer.  The screenshots are
kept in the test'"'"'s directory (and copied to $CALLUS_TEST_ARTEFACTS when set).'

# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

SHOTS=$TEST_ROOT/screenshots
PAGE_PY=$REPO/tests/e2e/report_page.py

# c_project DIR: a git repository with show.c (a format mistake), inject.c
# (an #error carrying markup) and perm.c (an #error nobody fixes).
c_project() {
	mkdir "$1" && (
		cd "$1" &&
		printf '#include <stdio.h>\n\nvoid show(int n)\n{\n\tprintf("%%s\\n", n);\n}\n' >show.c &&
		printf '#error <script>alert(1)</script></svg> tag soup\nint x;\n' >inject.c &&
		printf '#error this one stays broken\n' >perm.c &&
		git -c init.defaultBranch=main init -q &&
		git config user.email dev@example.com && git config user.name dev &&
		printf "*.o\n" >.gitignore &&
		git add -A && git -c commit.gpgSign=false commit -q -m start
	)
}

# browse ARGS...: Debian's Chromium, headless, on a private profile, with its
# own background traffic kept on this machine (any name resolves to nothing).
browse() {
	rm -rf "$TEST_ROOT/profile" &&
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$TEST_ROOT/profile" --no-first-run --no-default-browser-check \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-default-apps --disable-extensions --disable-features=Translate,MediaRouter \
		--host-resolver-rules="MAP * ~NOTFOUND, EXCLUDE 127.0.0.1" \
		--enable-logging=stderr --v=0 "$@"
}

# card LABEL FILE: the figure of an overview card
card() {
	grep -o "<div class=\"meta\">$1</div><div class=\"v\">[^<]*" "$2" | sed "s/.*class=\"v\">//"
}

# look PAGE WIDTH NAME: screenshot PAGE at WIDTH into $SHOTS/NAME.png; then
# a measuring copy of it, loaded with the network logged: no console
# message, no request, no horizontal overflow.
look() {
	mkdir -p "$SHOTS" &&
	browse --window-size="$2,2400" --screenshot="$SHOTS/$3.png" "file://$1" 2>"$3.shot.err" &&
	test -s "$SHOTS/$3.png" &&
	! grep "CONSOLE" "$3.shot.err" &&
	"$PAGE_PY" measured "$1" "$3.measured.html" &&
	browse --window-size="$2,2400" --log-net-log="$PWD/$3.net.json" --dump-dom \
		"file://$PWD/$3.measured.html" >"$3.dom" 2>"$3.err" &&
	! grep "CONSOLE" "$3.err" &&
	"$PAGE_PY" requests "$3.net.json" >"$3.requests" &&
	test_must_be_empty "$3.requests" &&
	grep -q "<body data-overflow=\"0\"" "$3.dom"
}

test_skip_unless_tool gcc git
test_expect_success 'an empty workspace: a page that says nothing was recorded' '
	mkdir empty && cd empty && git init -q &&
	"$CALLUS" report >out &&
	grep -q "^wrote .*/\.callus/report\.html" out &&
	grep -q "Nothing recorded yet" .callus/report.html &&
	! grep -q "id=\"overview\"" .callus/report.html &&
	/usr/bin/python3 "$PAGE_PY" valid .callus/report.html
'

test_skip_unless_tool gcc git
test_expect_success 'real gcc failures, fixes and a permanent failure' '
	c_project c && cd c &&
	test_expect_code 1 "$CALLUS" run -- gcc -Werror=format -c show.c 2>../err &&
	test_expect_code 1 "$CALLUS" run -- gcc -Werror=format -c show.c 2>../err &&
	sed -i "s/%s/%d/" show.c &&
	"$CALLUS" run -- gcc -Werror=format -c show.c 2>../err &&
	test_expect_code 1 "$CALLUS" run -- gcc -c inject.c 2>../err &&
	sed -i 1d inject.c &&
	"$CALLUS" run -- gcc -c inject.c 2>../err &&
	for i in 1 2 3 4; do
		test_expect_code 1 "$CALLUS" run -- gcc -c perm.c 2>../err || exit 1
	done &&
	"$CALLUS" status >../status &&
	grep -q "errors       0 pending, 2 fixed, 1 permanent" ../status
'

test_skip_unless_tool gcc git
test_expect_success 'the numbers are those of callus status' '
	cd c &&
	"$CALLUS" report -o ../report.html >../out &&
	grep -q "^wrote \.\./report\.html" ../out &&
	line=$(grep "^errors " ../status) &&
	pending=$(echo "$line" | sed "s/^errors *\([0-9]*\) pending.*/\1/") &&
	fixed=$(echo "$line" | sed "s/.* \([0-9]*\) fixed.*/\1/") &&
	permanent=$(echo "$line" | sed "s/.* \([0-9]*\) permanent.*/\1/") &&
	runs=$(grep "^lessons " ../status | sed "s/.* from \([0-9]*\) failed run.*/\1/") &&
	test "$(card "errors fixed" ../report.html)" = "$fixed" &&
	test "$(card "permanent failures" ../report.html)" = "$permanent" &&
	test "$(card "pending now" ../report.html)" = "$pending" &&
	test "$(card "errors recorded" ../report.html)" = "$((pending + fixed + permanent))" &&
	grep -q "None: no note of this workspace has been proposed" ../report.html &&
	grep -q "in $runs failed runs" ../report.html &&
	notes=$(grep "^notes " ../status | sed "s/^notes *\([0-9]*\) .*/\1/") &&
	grep -q "$notes active" ../report.html &&
	test "$(card "fix rate" ../report.html)" = "67%"
'

test_skip_unless_tool gcc git
test_expect_success 'the known error, its note and the lines of its fix' '
	grep -q "format &#39;%s&#39; expects argument of type" report.html ||
		grep -q "format .%s. expects argument of type" report.html &&
	grep -q "seen 2 times as 1 error" report.html &&
	grep -q "Fixed by resolution #[0-9]*: Edited show() in show.c" report.html &&
	grep -q "<span class=\"del\">-	printf(&quot;%s\\\\n&quot;, n);</span>" report.html &&
	grep -q "<span class=\"add\">+	printf(&quot;%d\\\\n&quot;, n);</span>" report.html &&
	note=$(ls c/.callus/notes | head -n 1) && note=${note%.md} &&
	grep -q "<a href=\"#n-$note\">" report.html &&
	grep -q "id=\"n-$note\"" report.html &&
	grep -q "this one stays broken" report.html &&
	grep -q "<code>show.c</code>" report.html
'

test_skip_unless_tool gcc git
test_expect_success '<script> and </svg> from gcc are text, the page has no script' '
	grep -q "#error &lt;script&gt;alert(1)&lt;/script&gt;&lt;/svg&gt; tag soup" report.html &&
	! grep -qi "<script" report.html &&
	test "$(grep -o "<svg " report.html | wc -l)" = 3 &&
	test "$(grep -o "</svg>" report.html | wc -l)" = 3 &&
	grep -q "Content-Security-Policy\" content=\"default-src .none.;" report.html
'

test_skip_unless_tool /usr/bin/python3
test_expect_success 'the page is well-formed HTML5, and a broken one would not be' '
	/usr/bin/python3 -c "import html5lib" &&
	/usr/bin/python3 "$PAGE_PY" valid report.html &&
	sed "s|</figure>|</div></figure>|" report.html >broken.html &&
	test_must_fail /usr/bin/python3 "$PAGE_PY" valid broken.html
'

test_skip_unless_tool gcc git
test_expect_success '--layer picks the notes of a layer; --since checks its date' '
	cd c &&
	"$CALLUS" report --layer session -o ../session.html &&
	grep -q "No notes in the layer session yet" ../session.html &&
	! grep -q "id=\"n-" ../session.html &&
	"$CALLUS" report --layer project --since all -o ../project.html &&
	grep -q "id=\"n-" ../project.html &&
	grep -q "everything recorded" ../project.html &&
	test_expect_code 2 "$CALLUS" report --since yesterday 2>../err &&
	grep -q "not a date" ../err &&
	test_expect_code 2 "$CALLUS" report --layer nope 2>../err &&
	"$CALLUS" report -o - | grep -q "^<!DOCTYPE html>"
'

# -o FILE is reached as a shell's > would: a FIFO (as /dev/null or a
# terminal) is written through, never replaced by a file; a link leads on.
test_skip_unless_tool gcc git
test_expect_success '-o a FIFO, a link, a directory: written through, followed, refused' '
	cd c &&
	mkfifo ../pipe &&
	{ timeout 20 cat ../pipe >../piped & } &&
	"$CALLUS" report -o ../pipe >../out &&
	wait &&
	test -p ../pipe &&
	grep -q "^<!DOCTYPE html>" ../piped &&
	ln -s piped-page.html ../link.html &&
	"$CALLUS" report -o ../link.html >../out &&
	test -L ../link.html &&
	grep -q "^<!DOCTYPE html>" ../piped-page.html &&
	mkdir ../adir &&
	test_expect_code 1 "$CALLUS" report -o ../adir 2>../err &&
	grep -q "is a directory" ../err
'

test_expect_success 'help report is report --help, and its options are in the man page' '
	"$CALLUS" --help | grep -q "^   report " &&
	"$CALLUS" help report >a && "$CALLUS" report --help >b && test_cmp a b &&
	grep -o -- "--[a-z-]*" a | sort -u >opts &&
	test -s opts &&
	while read -r opt; do
		test "$opt" = "--help" && continue
		sed "s/\\\\-/-/g" "$REPO/docs/callus.1" | grep -q -- "$opt" ||
			{ echo "callus report $opt is not in docs/callus.1"; exit 1; }
	done <opts
'

test_skip_unless_tool chromium /usr/bin/python3
test_expect_success 'chromium: the checks below can fail (a page that breaks each)' '
	"$PAGE_PY" measured report.html bad.html &&
	sed -i "s|</main>|<script>console.error(\"boom\")</script><img src=\"http://127.0.0.1:9/x.png\" alt=\"\"><div style=\"width:3000px\">w</div></main>|" bad.html &&
	browse --window-size=390,2400 --log-net-log="$PWD/bad.net.json" --dump-dom \
		"file://$PWD/bad.html" >bad.dom 2>bad.err &&
	grep -q "CONSOLE.*boom" bad.err &&
	"$PAGE_PY" requests bad.net.json | grep -q "^http://127.0.0.1:9/x.png$" &&
	grep -q "<body data-overflow=\"[1-9][0-9]*\"" bad.dom
'

test_skip_unless_tool chromium /usr/bin/python3
test_expect_success 'chromium at 1280 px: no console message, no request, no overflow' '
	look "$PWD/report.html" 1280 desktop
'

test_skip_unless_tool chromium /usr/bin/python3
test_expect_success 'chromium at 390 px: no console message, no request, no overflow' '
	look "$PWD/report.html" 390 phone &&
	look "$PWD/empty/.callus/report.html" 390 empty-phone
'

test_skip_unless_tool chromium /usr/bin/python3
test_expect_success 'chromium: light, and dark when the system asks for it' '
	"$PAGE_PY" measured report.html colours.html &&
	browse --window-size=390,2400 --dump-dom "file://$PWD/colours.html" >light.dom 2>/dev/null &&
	grep -q "data-bg=\"rgb(251, 251, 248)\"" light.dom &&
	browse --force-dark-mode --window-size=390,2400 --dump-dom "file://$PWD/colours.html" \
		>dark.dom 2>/dev/null &&
	grep -q "data-bg=\"rgb(21, 24, 28)\"" dark.dom &&
	grep -q "<body data-overflow=\"0\"" dark.dom &&
	browse --force-dark-mode --window-size=390,2400 --screenshot="$SHOTS/phone-dark.png" \
		"file://$PWD/report.html" 2>dark.err &&
	test -s "$SHOTS/phone-dark.png" &&
	! grep "CONSOLE" dark.err &&
	if [ -n "${CALLUS_TEST_ARTEFACTS:-}" ]; then
		mkdir -p "$CALLUS_TEST_ARTEFACTS" && cp "$SHOTS"/*.png "$CALLUS_TEST_ARTEFACTS"/
	fi &&
	test_info "screenshots in $SHOTS (kept with CALLUS_TEST_KEEP=1)"
'

test_done
