/* The transcript readers (src/import/) on real transcripts captured from
 * the CLIs by the e2e tests t0017 and t0012 (tests/import/fixtures/, paths
 * rewritten to /home/dev), and the line reader on broken input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/import.h"
#include "callus/lesson.h"

/* What the reads gave, one line per event. */
typedef struct seen {
	callus_buf log;
	int ncommands, nedits;
} seen;

static int record(void *ctx, const callus_import_event *ev)
{
	seen *s = ctx;

	if (ev->kind == CALLUS_IMPORT_COMMAND) {
		s->ncommands++;
		callus_buf_printf(&s->log, "cmd %d %s [%s] <%s> %.40s\n", ev->exit_code, ev->command,
				  ev->cwd, ev->time, ev->output);
	} else {
		s->nedits++;
		callus_buf_printf(&s->log, "edit %s%s\n%s", ev->path, ev->created ? " (new)" : "",
				  ev->hunks);
	}
	return 0;
}

static char *fixture(const char *name)
{
	callus_buf p = CALLUS_BUF_INIT;
	const char *dir = getenv("CALLUS_SRCDIR");

	callus_buf_printf(&p, "%s/tests/import/fixtures/%s", dir ? dir : ".", name);
	return callus_buf_detach(&p);
}

static void read_all(const char *agent, const char *name, seen *s, callus_import_counts *c,
		     callus_import_mark *wm)
{
	const callus_transcript_ops *ops = callus_transcript_find(agent);
	char *path = fixture(name);

	assert_non_null(ops);
	wm->resume = wm->seen = 0;
	assert_int_equal(callus_import_read(ops, path, wm, 0, record, s, c, NULL), 0);
	free(path);
}

/* A transcript's time in the store's format, whatever its own: the store
 * compares times as text (a queued pass fixes what failed before it). */
static void times_in_the_stores_format(void **state)
{
	static const char *const cases[][2] = {
		{ "2026-11-25T12:22:27.948Z", "2026-11-25T12:22:27.948Z" },
		{ "2026-11-25T12:22:27Z", "2026-11-25T12:22:27.000Z" },
		{ "2026-11-25T12:22:27.948123Z", "2026-11-25T12:22:27.948Z" },
		{ "2026-12-01T10:00:00.000+09:00", "2026-12-01T01:00:00.000Z" },
		{ "2026-12-01T00:30:00-0130", "2026-12-01T02:00:00.000Z" },
		{ "2026-12-31T23:59:59.5+00:00", "2026-12-31T23:59:59.500Z" },
		{ "2026-11-25 12:22:27", "2026-11-25T12:22:27.000Z" },
		{ "2026-11-25t12:22:27z", "2026-11-25T12:22:27.000Z" },
		{ "2026-11-25T12:22Z", "2026-11-25T12:22:00.000Z" },
		{ "2026-11-25T12:22:27.948Z \n", "2026-11-25T12:22:27.948Z" },
		{ "2026-12-31T23:59:60Z", "2027-01-01T00:00:00.000Z" },
		{ "2027-01-01T00:30:00+01:00", "2026-12-31T23:30:00.000Z" },
		{ "2024-02-29T00:00:00Z", "2024-02-29T00:00:00.000Z" },
		{ "2026-02-29T00:00:00Z", NULL },
		{ "2024-02-31T00:00:00Z", NULL },
		{ "2026-11-25T12:22:27+05:99", NULL },
		{ "2026-11-25T12:22:27.Z", NULL },
		{ "2600-01-01T00:00:00Z", NULL },
		{ "1969-12-31T23:59:59Z", NULL },
		{ "2026-11-25", NULL },
		{ "yesterday", NULL },
		{ "2026-13-25T12:22:27Z", NULL },
		{ "2026-11-25T12:22:27Zjunk", NULL },
		{ "", NULL },
	};

	long long ns = 7;

	(void)state;
	assert_null(callus_time_normalize(NULL));
	assert_int_equal(callus_time_parse(NULL, &ns), -1);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = callus_time_normalize(cases[i][0]), *back = NULL;

		if (!cases[i][1] ? got != NULL : !got || strcmp(got, cases[i][1]))
			fail_msg("%s: '%s', want '%s'", cases[i][0], got ? got : "(null)",
				 cases[i][1] ? cases[i][1] : "(null)");
		/* the parse alone: the same instant, in nanoseconds */
		if (callus_time_parse(cases[i][0], &ns) == 0)
			back = callus_time_iso8601(ns);
		if (!cases[i][1] ? back != NULL : !back || strcmp(back, cases[i][1]))
			fail_msg("%s parsed: '%s'", cases[i][0], back ? back : "(null)");
		free(back);
		free(got);
	}
	assert_int_equal(callus_time_parse("2026-03-01T10:00:04Z", &ns), 0);
	assert_true(ns == 1772359204LL * 1000000000LL);
}

/* What gmtime_r and strftime make of sec and nsec, as callus_now_iso8601
 * writes it. */
static void gmtimes(char out[32], time_t sec, long nsec)
{
	struct tm tm;
	size_t n;

	assert_non_null(gmtime_r(&sec, &tm));
	assert_int_equal(n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm), 19);
	snprintf(out + n, 32 - n, ".%03dZ", (int)(nsec / 1000000 % 1000));
}

/* The date counted (no gmtime_r: a signal handler dates a hook's cut with
 * it, and gmtime_r reads the time zone file) is gmtime_r's, and parsed
 * back it is the same instant: at the edges of months, leap days,
 * centuries and 400-year eras, and at 20,000 instants up to year 9999. */
static void check_date(time_t sec, long nsec)
{
	char want[32], got[CALLUS_TIME_ISO8601_LEN + 1];
	long long ns;

	struct tm tm;
	long long t = -1;

	gmtimes(want, sec, nsec);
	callus_time_iso8601_put(got, sec, nsec);
	got[CALLUS_TIME_ISO8601_LEN] = '\0';
	assert_string_equal(got, want);
	assert_non_null(gmtime_r(&sec, &tm));
	assert_int_equal(callus_time_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
					 tm.tm_min, tm.tm_sec, &t),
			 0);
	assert_true(t == (long long)sec);
	/* the store's nanoseconds reach 2262; its parse, 2199 */
	if (sec < 7258118400LL) {
		assert_int_equal(callus_time_parse(want, &ns), 0);
		assert_true(ns == (long long)sec * 1000000000LL + nsec / 1000000 * 1000000LL);
	}
}

static void dates_are_gmtimes(void **state)
{
	static const time_t edges[] = { 0,          59,         86399,      86400,
					951782399,  951782400,  951868800,  4107542400,
					4107628799, 1709164800, 1709251199, 1735689599,
					1735689600, 7258118399, 253402300799 };
	unsigned seed = 14;

	(void)state;
	for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
		check_date(edges[i], 999999999);
	for (int i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		check_date((time_t)(((uint64_t)seed * 59u) % 253402300800ull), (long)(seed % 1000000000u));
	}
	/* no second: past a month's end (leap years by the 4, 100 and 400
	 * rule), past a day's hours, minutes, seconds; out of the years */
	{
		static const int none[][6] = {
			{ 2026, 2, 29, 0, 0, 0 },  { 1900, 2, 29, 0, 0, 0 }, { 2026, 4, 31, 0, 0, 0 },
			{ 2026, 13, 1, 0, 0, 0 },  { 2026, 0, 1, 0, 0, 0 },  { 2026, 1, 0, 0, 0, 0 },
			{ 2026, 1, 1, 24, 0, 0 },  { 2026, 1, 1, 0, 60, 0 }, { 2026, 1, 1, 0, 0, 60 },
			{ 10000, 1, 1, 0, 0, 0 }, { -1, 1, 1, 0, 0, 0 },
		};
		long long t;

		for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			assert_int_equal(callus_time_civil(none[i][0], none[i][1], none[i][2], none[i][3],
							 none[i][4], none[i][5], &t),
					 -1);
		assert_int_equal(callus_time_civil(2000, 2, 29, 0, 0, 0, &t), 0);
		assert_true(t == 951782400LL);
		assert_int_equal(callus_time_civil(1969, 12, 31, 23, 59, 59, &t), 0);
		assert_true(t == -1);
		/* before the epoch, where the eras count down: 1600 a leap
		 * year (a 400th), 1700 none, and year 1's March */
		assert_int_equal(callus_time_civil(1600, 2, 29, 0, 0, 0, &t), 0);
		assert_true(t == -11670998400LL);
		assert_int_equal(callus_time_civil(1700, 2, 29, 0, 0, 0, &t), -1);
		assert_int_equal(callus_time_civil(1, 3, 1, 0, 0, 0, &t), 0);
		assert_true(t == -62130499200LL);
		/* year 0's leap day, the day before 0000-03-01 (719,468 days
		 * before the epoch), in the era before year 0's */
		assert_int_equal(callus_time_civil(0, 2, 29, 0, 0, 0, &t), 0);
		assert_true(t == -719469LL * 86400);
	}
}

static void claude_code_session(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	callus_import_mark wm;

	(void)state;
	read_all("claude-code", "claude-code-session1.jsonl", &s, &c, &wm);
	/* eslint fails (1), the masked run (0), the cp fixing two files, the pass */
	assert_int_equal(s.ncommands, 4);
	assert_non_null(strstr(s.log.ptr, "cmd 1 npx eslint src [/home/dev/shop] "
					  "<2026-11-25T12:22:28.966Z> /home/dev/shop/src/app.js"));
	assert_non_null(strstr(s.log.ptr, "cmd 0 npx eslint src 2>&1 | tail -n 3"));
	/* the cp's edits, as Claude Code measured them (bashEditDiff) */
	assert_int_equal(s.nedits, 2);
	assert_non_null(strstr(s.log.ptr, "edit /home/dev/shop/src/app.js\n@@ -1,7 +1,6 @@\n"
					  " const { formatPrice } = require(\"./util\");\n \n"
					  " function renderCart(items) {\n-  const currency = \"EUR\";\n"));
	assert_non_null(strstr(s.log.ptr, "edit /home/dev/shop/src/util.js\n@@ -1,4 +1,4 @@\n"
					  "-function formatPrice(amount) {\n"
					  "+function formatPrice(amount, decimals = 2) {\n"));
	/* the edits come before the pass that follows them */
	assert_true(strstr(s.log.ptr, "edit /home/dev/shop/src/util.js") <
		    strstr(s.log.ptr, "cmd 0 npx eslint src ["));
	assert_int_equal(c.malformed, 0);
	assert_int_equal(c.unfinished, 0);
	assert_int_equal(c.commands, 4);
	callus_buf_release(&s.log);
}

static void claude_code_edit_tool_and_new_file(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	callus_import_mark wm;

	(void)state;
	read_all("claude-code", "claude-code-session2.jsonl", &s, &c, &wm);
	assert_non_null(strstr(s.log.ptr, "edit /home/dev/shop/src/app.js\n@@ -1,6 +1,6 @@\n"
					  " const { formatPrice } = require(\"./util\");\n \n"
					  "-function renderCart(items) {\n"
					  "+function renderCart(items) { // the cart\n"));
	assert_non_null(strstr(s.log.ptr, "edit /home/dev/shop/src/total.js (new)\n@@ -0,0 +1,5 @@\n"
					  "+function total(items) {\n+  const tax = 2;\n"));
	assert_non_null(strstr(s.log.ptr, "cmd 1 npx eslint src"));
	callus_buf_release(&s.log);
}

static void codex_session(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	callus_import_mark wm;

	(void)state;
	read_all("codex", "codex-session1.jsonl", &s, &c, &wm);
	/* eslint fails, the cp, eslint passes: once each though both the
	 * item_completed event and the function_call_output carry them */
	assert_int_equal(s.ncommands, 3);
	assert_non_null(strstr(s.log.ptr, "cmd 1 npx eslint src [/home/dev/shop] "
					  "<2026-11-25T12:22:32."));
	assert_non_null(strstr(s.log.ptr, "> \n/home/dev/shop/src/app.js\n  4:9  error"));
	assert_non_null(strstr(s.log.ptr, "cmd 0 cp /home/dev/fixes/"));
	assert_int_equal(c.malformed, 0);
	callus_buf_release(&s.log);
}

static void gemini_session(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	callus_import_mark wm;

	(void)state;
	/* the directory comes from projects.json, by the transcript's place */
	read_all("gemini", "gemini/tmp/shop/chats/session-2026-11-25T12-38-2c00a4e1.jsonl", &s, &c,
		 &wm);
	assert_int_equal(s.ncommands, 3);
	assert_non_null(strstr(s.log.ptr, "cmd 1 npx eslint src [/home/dev/shop] "
					  "<2026-11-25T12:38:"));
	assert_non_null(strstr(s.log.ptr, "> /home/dev/shop/src/app.js\n  4:9  error"));
	assert_non_null(strstr(s.log.ptr, "cmd 0 cp /home/dev/fixes/"));
	/* the tool's framing and callus's own hook reply are not the output */
	assert_null(strstr(s.log.ptr, "untrusted_context"));
	assert_int_equal(c.malformed, 0);
	callus_buf_release(&s.log);
}

static void copilot_session(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	callus_import_mark wm;

	(void)state;
	read_all("copilot", "copilot/d6651f28-d9ea-4434-b19a-f142292d65ca/events.jsonl", &s, &c, &wm);
	assert_int_equal(s.ncommands, 3);
	assert_non_null(strstr(s.log.ptr, "cmd 1 npx eslint src [/home/dev/shop] "
					  "<2026-11-25T12:38:38.554Z> /home/dev/shop/src/app.js\n"));
	assert_non_null(strstr(s.log.ptr, "cmd 0 npx eslint src [/home/dev/shop] "
					  "<2026-11-25T12:38:41.896Z> \n"));
	/* the tool's status line and the hooks' guidance are not the output */
	assert_null(strstr(s.log.ptr, "shellId"));
	assert_null(strstr(s.log.ptr, "Additional guidance"));
	callus_buf_release(&s.log);
}

/* A file of lines written here: returns its path. */
static char *write_tmp(const char *text)
{
	char tmpl[] = "/tmp/callus-test-import-XXXXXX";
	int fd = mkstemp(tmpl);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return strdup(tmpl);
}

#define BASH_USE(id, cmd) \
	"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"tool_use\",\"name\":\"Bash\"," \
	"\"id\":\"" id "\",\"input\":{\"command\":\"" cmd "\"}}]}}\n"
#define BASH_RESULT(id, err, text) \
	"{\"type\":\"user\",\"cwd\":\"/w\",\"message\":{\"content\":[{\"type\":\"tool_result\"," \
	"\"tool_use_id\":\"" id "\",\"is_error\":" err ",\"content\":\"" text "\"}]}}\n"

static void broken_lines_are_counted_and_skipped(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	const callus_transcript_ops *ops = callus_transcript_find("claude-code");
	char *path = write_tmp(BASH_USE("a", "make") "{\"type\":\"user\",\"mess\n"
			       "[1,2]\n\n" BASH_RESULT("a", "true", "Exit code 2\\n\\nboom")
			       "{\"type\":\"assistant\",\"message\":{\"conte");
	callus_import_mark wm;

	(void)state;
	wm.resume = wm.seen = 0;
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_int_equal(c.malformed, 2);   /* the cut object and the array */
	assert_int_equal(c.unfinished, 1);  /* the last line, still being written */
	assert_int_equal(s.ncommands, 1);
	assert_non_null(strstr(s.log.ptr, "cmd 2 make [/w] <> boom"));
	/* the mark stops before the unfinished line: a second read from it
	 * gives nothing more, and sees the line once it is finished */
	{
		seen s2 = { CALLUS_BUF_INIT, 0, 0 };
		callus_import_counts c2 = { 0 };
		callus_import_mark wm2 = wm;
		FILE *f;

		assert_int_equal(callus_import_read(ops, path, &wm2, 0, record, &s2, &c2, NULL), 0);
		assert_int_equal(s2.ncommands, 0);
		assert_int_equal(c2.records, 0);
		assert_true(wm2.seen == wm.seen && wm2.resume == wm.resume);
		f = fopen(path, "a");
		fputs("nt\":[]}}\n", f);
		fclose(f);
		assert_int_equal(callus_import_read(ops, path, &wm2, 0, record, &s2, &c2, NULL), 0);
		assert_int_equal(c2.records, 1);
		assert_int_equal(c2.unfinished, 1); /* the first read's, no more */
		assert_true(wm2.seen > wm.seen);
		callus_buf_release(&s2.log);
	}
	unlink(path);
	free(path);
	callus_buf_release(&s.log);
}

static void watermark_waits_for_the_result(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	const callus_transcript_ops *ops = callus_transcript_find("claude-code");
	const char *first = BASH_USE("a", "make");
	char *path = write_tmp(first);
	callus_import_mark wm = { 0, 0 };
	FILE *f;

	(void)state;
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	/* the call has no result yet: resuming after it would lose it */
	assert_true(wm.resume == 0 && wm.seen == strlen(first));
	f = fopen(path, "a");
	fputs(BASH_RESULT("a", "false", "ok"), f);
	fclose(f);
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_int_equal(s.ncommands, 1);
	assert_non_null(strstr(s.log.ptr, "cmd 0 make"));
	assert_true(wm.resume == wm.seen);
	unlink(path);
	free(path);
	callus_buf_release(&s.log);
}

/* A call that never gets its result (the session died) keeps the reads
 * resuming before it: what came after is read again, never given twice. */
static void nothing_is_given_twice(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	const callus_transcript_ops *ops = callus_transcript_find("claude-code");
	char *path = write_tmp(BASH_USE("lost", "make") BASH_USE("b", "make test")
			       BASH_RESULT("b", "true", "Exit code 1\\n\\nFAIL"));
	callus_import_mark wm = { 0, 0 };
	FILE *f;

	(void)state;
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_int_equal(s.ncommands, 1);
	assert_true(wm.resume == 0);
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_int_equal(s.ncommands, 1);
	assert_int_equal(c.commands, 1);
	assert_int_equal(c.records, 3);
	f = fopen(path, "a");
	fputs(BASH_USE("c", "make lint") BASH_RESULT("c", "false", "ok"), f);
	fclose(f);
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_int_equal(s.ncommands, 2);
	assert_non_null(strstr(s.log.ptr, "cmd 0 make lint"));
	/* the file replaced by a shorter one: read from the start */
	f = fopen(path, "w");
	fputs(BASH_USE("d", "make") BASH_RESULT("d", "false", "ok"), f);
	fclose(f);
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_int_equal(s.ncommands, 3);
	unlink(path);
	free(path);
	callus_buf_release(&s.log);
}

/* A session read again after more was appended: the header's directory
 * is known to what follows (Copilot names it only in session.start). */
static void resumed_reads_know_the_directory(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	const callus_transcript_ops *ops = callus_transcript_find("copilot");
	char *path = write_tmp(
		"{\"type\":\"session.start\",\"data\":{\"sessionId\":\"s\",\"context\":{\"cwd\":\"/w\"}}}\n");
	callus_import_mark wm = { 0, 0 };
	FILE *f;

	(void)state;
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_true(wm.resume > 0);
	f = fopen(path, "a");
	fputs("{\"type\":\"tool.execution_start\",\"data\":{\"toolCallId\":\"c\",\"toolName\":\"bash\","
	      "\"arguments\":{\"command\":\"make\"}}}\n"
	      "{\"type\":\"tool.execution_complete\",\"timestamp\":\"t\",\"data\":{\"toolCallId\":\"c\","
	      "\"success\":true,\"shellExecution\":{\"exitCode\":2},\"result\":{\"content\":\"boom\\n"
	      "<shellId: 0 completed with exit code 2>\"}}}\n", f);
	fclose(f);
	assert_int_equal(callus_import_read(ops, path, &wm, 0, record, &s, &c, NULL), 0);
	assert_int_equal(s.ncommands, 1);
	assert_non_null(strstr(s.log.ptr, "cmd 2 make [/w] <t> boom\n"));
	unlink(path);
	free(path);
	callus_buf_release(&s.log);
}

static void huge_lines_are_skipped(void **state)
{
	seen s = { CALLUS_BUF_INIT, 0, 0 };
	callus_import_counts c = { 0 };
	const callus_transcript_ops *ops = callus_transcript_find("claude-code");
	callus_buf text = CALLUS_BUF_INIT;
	char *path;
	callus_import_mark wm;

	(void)state;
	callus_buf_puts(&text, "{\"type\":\"x\",\"pad\":\"");
	for (int i = 0; i < 100000; i++)
		callus_buf_puts(&text, "0123456789");
	callus_buf_puts(&text, "\"}\n" BASH_USE("a", "make") BASH_RESULT("a", "false", "ok"));
	path = write_tmp(text.ptr);
	/* a ceiling of 64 KiB: the megabyte line is skipped */
	wm.resume = wm.seen = 0;
	assert_int_equal(callus_import_read(ops, path, &wm, 65536, record, &s, &c, NULL), 0);
	assert_int_equal(c.malformed, 1);
	assert_int_equal(s.ncommands, 1);
	unlink(path);
	free(path);
	callus_buf_release(&text);
	callus_buf_release(&s.log);
}

static void hunks_from_texts(void **state)
{
	callus_buf b = CALLUS_BUF_INIT;

	(void)state;
	callus_import_hunk_from_texts(&b, "a\nb\nc\nd\ne\nf\n", "a\nb\nc\nD\ne\nf\n", 10);
	assert_string_equal(b.ptr, "@@ -10,6 +10,6 @@\n a\n b\n c\n-d\n+D\n e\n f\n");
	callus_buf_truncate(&b, 0);
	callus_import_hunk_from_texts(&b, "", "x\ny\n", 0);
	assert_string_equal(b.ptr, "@@ -0,0 +1,2 @@\n+x\n+y\n");
	callus_buf_truncate(&b, 0);
	callus_import_hunk_from_texts(&b, "same", "same", 1);
	assert_int_equal(b.len, 0);
	callus_buf_truncate(&b, 0);
	callus_import_diff_file(&b, "src/a.c", "@@ -1,1 +1,1 @@\n-x\n+y\n", 0, 0);
	assert_string_equal(b.ptr, "diff --git a/src/a.c b/src/a.c\n--- a/src/a.c\n+++ b/src/a.c\n"
				   "@@ -1,1 +1,1 @@\n-x\n+y\n");
	callus_buf_release(&b);
}

static void readers_are_named(void **state)
{
	(void)state;
	assert_non_null(callus_transcript_find("codex"));
	assert_null(callus_transcript_find("nope"));
	for (size_t i = 0; callus_transcript_nth(i); i++)
		assert_ptr_equal(callus_transcript_find(callus_transcript_name(callus_transcript_nth(i))),
				 callus_transcript_nth(i));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(times_in_the_stores_format),
		cmocka_unit_test(dates_are_gmtimes),
		cmocka_unit_test(claude_code_session),
		cmocka_unit_test(claude_code_edit_tool_and_new_file),
		cmocka_unit_test(codex_session),
		cmocka_unit_test(gemini_session),
		cmocka_unit_test(copilot_session),
		cmocka_unit_test(broken_lines_are_counted_and_skipped),
		cmocka_unit_test(watermark_waits_for_the_result),
		cmocka_unit_test(nothing_is_given_twice),
		cmocka_unit_test(resumed_reads_know_the_directory),
		cmocka_unit_test(huge_lines_are_skipped),
		cmocka_unit_test(hunks_from_texts),
		cmocka_unit_test(readers_are_named),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
