/*
 * test_report.c - the report's escaping, its SVG charts, and its page on a
 * store whose rows the test wrote itself, so every figure is known.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka needs the four above first */
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/notes.h"
#include "callus/report.h"
#include "callus/store.h"
#include "store_internal.h"

static char *escaped(const char *s, size_t len)
{
	callus_buf b = CALLUS_BUF_INIT;

	assert_int_equal(callus_report_escape(&b, s, len), 0);
	return callus_buf_detach(&b);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void escapes_markup(void **state)
{
	const char in[] = "<script>alert('x')</script></svg> a&b \"q\"";
	char *out = escaped(in, strlen(in));

	(void)state;
	assert_string_equal(out,
			    "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&lt;/svg&gt; "
			    "a&amp;b &quot;q&quot;");
	free(out);
}

static void replaces_what_xml_cannot_hold(void **state)
{
	/* NUL, ESC, an invalid byte, a lone continuation byte, an overlong
	 * '<', a C1 control; tab, newline and real UTF-8 pass. */
	const char in[] = "a\0b\x1b[31m\xff\x80\xc0\xbc\xc2\x85\t\n\xc3\xa9\xe2\x82\xac";
	char *out = escaped(in, sizeof(in) - 1);

	(void)state;
	assert_string_equal(
	    out, "a\xef\xbf\xbd"
		 "b\xef\xbf\xbd[31m\xef\xbf\xbd\xef\xbf\xbd"
		 "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\t\n\xc3\xa9\xe2\x82\xac");
	assert_null(strchr(out, '<'));
	free(out);
}

static void cuts_at_a_character(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	/* "é" is two bytes: a cut at 2 keeps "a" and not half of it. */
	assert_int_equal(callus_report_escape_cut(&b, "a\xc3\xa9<b", 2), 0);
	assert_string_equal(b.ptr, "a...");
	callus_buf_clear(&b);
	assert_int_equal(callus_report_escape_cut(&b, "<b>", 3), 0);
	assert_string_equal(b.ptr, "&lt;b&gt;");
	callus_buf_clear(&b);
	assert_int_equal(callus_report_escape_cut(&b, NULL, 3), 0);
	assert_string_equal(b.ptr, "");
	callus_buf_release(&b);
}

static void bar_chart_stacks_and_escapes(void **state)
{
	const char *labels[] = {"d1", "d2", "<x>"};
	const double gcc[] = {1, 0, 3}, lint[] = {2, 5, 0};
	const callus_chart_series s[] = {{"gcc", gcc}, {"</svg><script>", lint}};
	callus_chart c = {CALLUS_CHART_BARS, "by <tool>", labels, 3, s, 2, 0};
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(callus_report_chart(&b, &c), 0);
	/* one rect per non-zero value, in each series' colour */
	assert_int_equal(count(b.ptr, "<rect "), 4);
	assert_int_equal(count(b.ptr, "<rect class=\"c0\""), 2);
	assert_int_equal(count(b.ptr, "<rect class=\"c1\""), 2);
	/* the stacked maximum (2 + 1, 5, 3 + 0) is 5: the axis goes to 8 in
	 * four steps of 2 */
	assert_non_null(strstr(b.ptr, ">8</text>"));
	assert_non_null(strstr(b.ptr, ">6</text>"));
	assert_null(strstr(b.ptr, ">5</text>"));
	/* one <svg> closed once: no text closes it or opens a script */
	assert_int_equal(count(b.ptr, "</svg>"), 1);
	assert_null(strstr(b.ptr, "<script"));
	assert_non_null(strstr(b.ptr, "&lt;/svg&gt;&lt;script&gt;"));
	assert_non_null(strstr(b.ptr, "aria-label=\"by &lt;tool&gt;\""));
	assert_non_null(strstr(b.ptr, "<h3>by &lt;tool&gt;</h3>"));
	assert_non_null(strstr(b.ptr, "&lt;x&gt;"));
	/* legend: both series */
	assert_int_equal(count(b.ptr, "class=\"key\""), 2);
	callus_buf_release(&b);
}

static void line_chart_breaks_at_gaps(void **state)
{
	const char *labels[] = {"a", "b", "c", "d", "e"};
	const double v[] = {50, -1, 100, 25, -1};
	const callus_chart_series s[] = {{"share", v}};
	callus_chart c = {CALLUS_CHART_LINES, "t", labels, 5, s, 1, 1};
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(callus_report_chart(&b, &c), 0);
	/* a, then c-d: two pieces of line, a point for each of the 3 values */
	assert_int_equal(count(b.ptr, "<polyline "), 2);
	assert_int_equal(count(b.ptr, "<circle "), 3);
	assert_non_null(strstr(b.ptr, ">100%</text>"));
	callus_buf_release(&b);
}

static void empty_chart_is_still_a_figure(void **state)
{
	callus_chart c = {CALLUS_CHART_BARS, "nothing", NULL, 0, NULL, 0, 0};
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(callus_report_chart(&b, &c), 0);
	assert_non_null(strstr(b.ptr, "<figure"));
	assert_int_equal(count(b.ptr, "</svg>"), 1);
	assert_null(strstr(b.ptr, "<rect"));
	callus_buf_release(&b);
}

static void no_store_says_nothing_was_recorded(void **state)
{
	callus_report_opts o = {NULL, "2026-03-10T12:00:00.000Z", -1, "/w<s>"};
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	assert_int_equal(callus_report_write(NULL, &o, &b, NULL), 0);
	assert_non_null(strstr(b.ptr, "<!DOCTYPE html>"));
	assert_non_null(strstr(b.ptr, "Nothing recorded yet"));
	assert_non_null(strstr(b.ptr, "/w&lt;s&gt;"));
	assert_non_null(strstr(b.ptr, "2026-02-09 to 2026-03-10"));
	assert_null(strstr(b.ptr, "<script"));
	assert_null(strstr(b.ptr, "id=\"overview\""));
	assert_non_null(strstr(b.ptr, "</html>"));
	callus_buf_release(&b);
}

static void refuses_a_date_that_is_none(void **state)
{
	const char *bad[] = {"yesterday", "2026-02-30", "2026-1-5", "2026-01-05x",
			     "2027-01-01"};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		callus_report_opts o = {bad[i], "2026-03-10T12:00:00.000Z", -1, NULL};
		callus_buf b = CALLUS_BUF_INIT;
		callus_error err = CALLUS_ERROR_INIT;

		assert_int_equal(callus_report_write(NULL, &o, &b, &err), CALLUS_EINVAL);
		assert_non_null(strstr(callus_error_message(&err), bad[i]));
		callus_error_release(&err);
		callus_buf_release(&b);
	}
}

/* A store with rows written here: in March, 3 errors of check 1 (gcc) on
 * main.c: one fixed after 2 attempts in an hour, one fixed after 4 in
 * three hours, one permanent; one pending of check 2 (eslint) in
 * web/app.js.  In February (the ten days before), one error fixed after 1 attempt.  A
 * note in the project layer and one in the session layer. */
typedef struct fixture {
	char dir[64];
	char path[96];
	callus_store *s;
} fixture;

static int teardown(void **state)
{
	fixture *f = *state;
	char cmd[128];

	callus_store_close(f->s);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->dir);
	if (system(cmd) != 0)
		return -1;
	free(f);
	return 0;
}

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof(*f));
	const char *sql =
	    "INSERT INTO checks (id, tool, args, dir) VALUES (1, 'gcc', '-c', ''), (2, "
	    "'eslint', '.', '');"
	    "INSERT INTO signatures (id, error_type, message_pattern, original, tool, "
	    "first_seen, last_seen)"
	    " VALUES ('s1', '-Wformat', 'format \\S+', 'format <script>x</script> "
	    "wrong', 'gcc', 1, 1),"
	    " ('s2', 'no-undef', 'undefined', 'foo is not defined', 'eslint', 1, 1),"
	    " ('s3', '-Wall', 'old', 'an old error', 'gcc', 1, 1);"
	    /* one open error per check and signature: each closed before the next
	     * (an error names its signature by rowid: s1, s2, s3 are 1, 2, 3) */
	    "INSERT INTO pending_errors (id, check_id, sig, attempts, "
	    "first_failure_at,"
	    " last_failure_at, files) VALUES"
	    " (1, 1, 1, 2, '2026-03-02T10:00:00.000Z', '2026-03-02T10:30:00.000Z', "
	    "'[\"main.c\"]');"
	    "UPDATE pending_errors SET state = 'fixed', closed_at = "
	    "'2026-03-02T11:00:00.000Z' WHERE id = 1;"
	    "INSERT INTO pending_errors (id, check_id, sig, attempts, "
	    "first_failure_at,"
	    " last_failure_at, files) VALUES"
	    " (2, 1, 1, 4, '2026-03-04T10:00:00.000Z', '2026-03-04T12:00:00.000Z', "
	    "'[\"main.c\"]');"
	    "UPDATE pending_errors SET state = 'fixed', closed_at = "
	    "'2026-03-04T13:00:00.000Z' WHERE id = 2;"
	    "INSERT INTO pending_errors (id, check_id, sig, attempts, "
	    "first_failure_at,"
	    " last_failure_at, files) VALUES"
	    " (3, 1, 1, 3, '2026-03-05T10:00:00.000Z', '2026-03-05T11:00:00.000Z', "
	    "'[\"main.c\"]'),"
	    " (4, 2, 2, 1, '2026-03-06T10:00:00.000Z', '2026-03-06T10:00:00.000Z', "
	    "'[\"web/app.js\"]'),"
	    " (5, 1, 3, 1, '2026-02-25T10:00:00.000Z', '2026-02-25T10:00:00.000Z', "
	    "'[\"old.c\"]');"
	    "UPDATE pending_errors SET state = 'permanent', closed_at = "
	    "'2026-03-05T11:00:00.000Z' WHERE id = 3;"
	    "UPDATE pending_errors SET state = 'fixed', closed_at = "
	    "'2026-02-25T10:10:00.000Z' WHERE id = 5;"
	    "INSERT INTO resolutions (id, signature_id, description, code_changes, "
	    "created_at)"
	    " VALUES (1, 's1', 'Edited show() in main.c',"
	    " 'diff --git a/main.c b/main.c\n--- a/main.c\n+++ b/main.c\n@@ -1 +1 "
	    "@@\n-printf(\"%s\", n);\n+printf(\"%d\", n);\n',"
	    " '2026-03-02T11:00:00.000Z');"
	    "INSERT INTO notes (id, signature_id, layer, title, created_at, updated_at, "
	    "applications, successes)"
	    " VALUES ('aaaaaaaaaaaa', 's1', 'project', 'format mismatch', "
	    "'2026-03-02T11:00:00.000Z',"
	    " '2026-03-02T11:00:00.000Z', 1, 1),"
	    " ('bbbbbbbbbbbb', 's2', 'session', 'undefined name', "
	    "'2026-03-06T11:00:00.000Z',"
	    " '2026-03-06T11:00:00.000Z', 0, 0);"
	    "INSERT INTO note_signatures VALUES ('s1', 'aaaaaaaaaaaa'), ('s2', "
	    "'bbbbbbbbbbbb');";

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/callus-report-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/callus.db", f->dir);
	if (callus_store_open(&f->s, f->path, 5000, NULL) < 0 ||
	    sqlite3_exec(callus_store_db(f->s), sql, NULL, NULL, NULL) != SQLITE_OK) {
		fprintf(stderr, "setup: %s\n",
			f->s ? sqlite3_errmsg(callus_store_db(f->s))
			     : "cannot open the store");
		*state = f;
		teardown(state);
		return -1;
	}
	*state = f;
	return 0;
}

static char *page(fixture *f, const char *since, int layer)
{
	callus_report_opts o = {since, "2026-03-10T12:00:00.000Z", layer, "/w"};
	callus_buf b = CALLUS_BUF_INIT;
	callus_error err = CALLUS_ERROR_INIT;

	assert_int_equal(callus_report_write(f->s, &o, &b, &err), 0);
	callus_error_release(&err);
	return callus_buf_detach(&b);
}

/* The text of the card labelled label, up to the next card. */
static const char *card(const char *p, const char *label)
{
	char key[128];
	const char *at;

	snprintf(key, sizeof(key), "<div class=\"meta\">%s</div>", label);
	at = strstr(p, key);
	assert_non_null(at);
	return at + strlen(key);
}

static void figures_of_the_period(void **state)
{
	char *p = page(*state, "2026-03-01", -1);

	/* March: 4 errors, 2 fixed, 1 permanent; February before it. */
	assert_non_null(strstr(p, "2026-03-01 to 2026-03-10, compared with 2026-02-19"));
	assert_int_equal(strncmp(card(p, "errors recorded"),
				 "<div class=\"v\">4</div>"
				 "<div class=\"d bad\">+3 (was 1)</div>",
				 57),
			 0);
	assert_int_equal(strncmp(card(p, "errors fixed"),
				 "<div class=\"v\">2</div>"
				 "<div class=\"d good\">+1 (was 1)</div>",
				 57),
			 0);
	assert_int_equal(strncmp(card(p, "fix rate"),
				 "<div class=\"v\">67%</div>"
				 "<div class=\"d bad\">&#8722;33 pts (was 100%)</div>",
				 70),
			 0);
	/* medians of the fixed: 1 h and 3 h -> the lower, 60 min; 2 and 4 -> 2 */
	assert_int_equal(
	    strncmp(card(p, "median time to fix"), "<div class=\"v\">60 min</div>", 27),
	    0);
	assert_int_equal(
	    strncmp(card(p, "median attempts to fix"), "<div class=\"v\">2</div>", 22),
	    0);
	assert_int_equal(
	    strncmp(card(p, "permanent failures"), "<div class=\"v\">1</div>", 22), 0);
	assert_int_equal(strncmp(card(p, "pending now"), "<div class=\"v\">1</div>", 22),
			 0);
	assert_int_equal(strncmp(card(p, "notes made"), "<div class=\"v\">2</div>", 22),
			 0);
	/* the recurring error: its message escaped, 9 failing runs as 3
	 * errors, its note linked, its fix's lines */
	assert_non_null(strstr(p, "format &lt;script&gt;x&lt;/script&gt; wrong"));
	assert_non_null(strstr(p, "seen 9 times as 3 errors"));
	assert_non_null(strstr(p, "<a href=\"#n-aaaaaaaaaaaa\">"));
	assert_non_null(strstr(p, "id=\"n-aaaaaaaaaaaa\""));
	assert_non_null(
	    strstr(p, "<span class=\"add\">+printf(&quot;%d&quot;, n);</span>"));
	assert_non_null(
	    strstr(p, "<span class=\"del\">-printf(&quot;%s&quot;, n);</span>"));
	/* hot spots: the directory of web/app.js, and . for main.c */
	assert_non_null(strstr(p, "<code>web/</code>"));
	assert_non_null(
	    strstr(p, "<code>main.c</code></span><span class=\"n\">3</span>"));
	/* rules and error types, by the errors' signatures: March's three of
	 * s1 and one of s2, not February's s3 */
	assert_non_null(strstr(p, "<code>gcc: -Wformat</code> <span class=\"meta\">2 fixed, 1 "
				  "permanent</span></span><span class=\"n\">3</span>"));
	assert_non_null(strstr(p, "<code>eslint: no-undef</code> <span class=\"meta\">0 fixed, 0 "
				  "permanent</span></span><span class=\"n\">1</span>"));
	assert_null(strstr(p, "gcc: -Wall"));
	/* February's error is not March's */
	assert_null(strstr(p, "an old error"));
	assert_null(strstr(p, "<script"));
	/* one chart bar per day: March 1st to 10th */
	assert_non_null(strstr(p, ">03-01</text>"));
	assert_null(strstr(p, ">02-28</text>"));
	free(p);
}

static void everything_and_a_layer(void **state)
{
	char *p = page(*state, "all", CALLUS_LAYER_SESSION);

	assert_non_null(strstr(p, "everything recorded, up to 2026-03-10"));
	assert_non_null(strstr(p, "an old error"));
	assert_int_equal(
	    strncmp(card(p, "errors recorded"), "<div class=\"v\">5</div>", 22), 0);
	/* no previous period: no change shown */
	assert_null(strstr(p, "(was "));
	/* only the session layer's note */
	assert_non_null(strstr(p, "id=\"n-bbbbbbbbbbbb\""));
	assert_null(strstr(p, "id=\"n-aaaaaaaaaaaa\""));
	assert_null(strstr(p, "href=\"#n-aaaaaaaaaaaa\""));
	assert_int_equal(strncmp(card(p, "notes made"), "<div class=\"v\">1</div>", 22),
			 0);
	free(p);
}

static void lists_are_bounded(void **state)
{
	fixture *f = *state;
	sqlite3 *db = callus_store_db(f->s);
	char *p;

	/* 40 more signatures failing in March: 10 are shown */
	assert_int_equal(
	    sqlite3_exec(db,
			 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
			 "WHERE i < 40)"
			 " INSERT INTO signatures (id, error_type, message_pattern, "
			 "original, tool, first_seen,"
			 " last_seen) SELECT 'm' || i, 'e', 'p', 'many ' || i, 'gcc', "
			 "1, 1 FROM n;"
			 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
			 "WHERE i < 40)"
			 " INSERT INTO pending_errors (check_id, sig, "
			 "first_failure_at, last_failure_at,"
			 " files) SELECT 1, (SELECT rowid FROM signatures WHERE id = 'm' || i),"
			 " '2026-03-08T00:00:00.000Z', "
			 "'2026-03-08T00:00:00.000Z',"
			 " json_array('f' || i || '.c') FROM n;",
			 NULL, NULL, NULL),
	    SQLITE_OK);
	p = page(f, "2026-03-01", -1);
	assert_int_equal(count(p, "<article class=\"card\" id=\"e"), CALLUS_REPORT_TOP);
	/* files: the first 10 of 42; directories ./ and web/; tools gcc and
	 * eslint; rules gcc -Wformat, gcc e, eslint no-undef */
	assert_int_equal(count(p, "<li><span class=\"bar\""), 10 + 2 + 2 + 3);
	free(p);
	/* 200 days: weeks, at most CALLUS_REPORT_BUCKETS bars' labels */
	p = page(f, "2025-08-22", -1);
	assert_non_null(strstr(p, "Errors recorded per week"));
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(escapes_markup),
	    cmocka_unit_test(replaces_what_xml_cannot_hold),
	    cmocka_unit_test(cuts_at_a_character),
	    cmocka_unit_test(bar_chart_stacks_and_escapes),
	    cmocka_unit_test(line_chart_breaks_at_gaps),
	    cmocka_unit_test(empty_chart_is_still_a_figure),
	    cmocka_unit_test(no_store_says_nothing_was_recorded),
	    cmocka_unit_test(refuses_a_date_that_is_none),
	    cmocka_unit_test_setup_teardown(figures_of_the_period, setup, teardown),
	    cmocka_unit_test_setup_teardown(everything_and_a_layer, setup, teardown),
	    cmocka_unit_test_setup_teardown(lists_are_bounded, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
