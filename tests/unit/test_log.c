/*
 * test_log.c - the log's lines: what a caller passes is redacted, with its
 * redactor or one built for the line, message and extra values alike; and
 * a log an earlier callus wrote, redacted again (callus_log_redact).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/fsutil.h"
#include "callus/log.h"
#include "callus/redact.h"
#include "tmpdir_helpers.h"

#define TOKEN "ghp_000000000000000000000000000000000007"
#define LOG_BYTES ((long)CALLUS_LOG_DEFAULT_KB * 1024)

struct fixture {
	char dir[64];
	callus_buf callus_dir, log;
};

static int teardown(void **state)
{
	struct fixture *f = *state;

	test_tmpdir_remove(f->dir);
	callus_buf_release(&f->callus_dir);
	callus_buf_release(&f->log);
	free(f);
	return 0;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || test_tmpdir_make(f->dir, sizeof(f->dir), "log") < 0) {
		free(f);
		return -1;
	}
	*state = f;
	callus_buf_printf(&f->callus_dir, "%s/.callus", f->dir);
	callus_buf_printf(&f->log, "%s/.callus/log.jsonl", f->dir);
	if (callus_buf_status(&f->log) < 0 || mkdir(f->callus_dir.ptr, 0700) < 0) {
		teardown(state);
		return -1;
	}
	return 0;
}

/* The log's text, in out (replaced). */
static void read_log(struct fixture *f, callus_buf *out)
{
	callus_buf_clear(out);
	assert_int_equal(callus_fs_read_file(out, f->log.ptr, 1 << 20, NULL), 0);
	assert_non_null(out->ptr);
}

/* Without a redactor of its caller's, the line is redacted anyway: a
 * message and an extra value each holding a token. */
static void redacted_without_a_redactor(void **state)
{
	struct fixture *f = *state;
	const char *const extra[] = { "tool", "npm run test:" TOKEN, "count", "3", NULL };
	callus_buf text = CALLUS_BUF_INIT;

	assert_int_equal(callus_log_event(f->callus_dir.ptr, "warn", "unknown_layer",
					"unknown layer '" TOKEN "'", extra),
			 0);
	read_log(f, &text);
	assert_null(strstr(text.ptr, TOKEN));
	assert_non_null(strstr(text.ptr, "\"message\":\"unknown layer '[REDACTED:github-token]'\""));
	assert_non_null(strstr(text.ptr, "\"tool\":\"npm run test:[REDACTED:github-token]\""));
	/* what holds no secret is kept as it was */
	assert_non_null(strstr(text.ptr, "\"count\":\"3\""));
	assert_non_null(strstr(text.ptr, "\"event\":\"unknown_layer\""));
	callus_buf_release(&text);
}

/* The caller's redactor is used, and a second pass changes nothing. */
static void redacted_with_the_callers(void **state)
{
	struct fixture *f = *state;
	callus_redactor *r = NULL;
	callus_buf text = CALLUS_BUF_INIT;
	const char *const extra[] = { "original", "token [REDACTED:github-token]", NULL };

	assert_int_equal(callus_redactor_new(&r, NULL), 0);
	assert_int_equal(callus_log_event_with(r, f->callus_dir.ptr, "info", "match_miss",
					       "export GITHUB_TOKEN=" TOKEN, extra),
			 0);
	read_log(f, &text);
	assert_null(strstr(text.ptr, TOKEN));
	assert_non_null(strstr(text.ptr, "REDACTED"));
	assert_non_null(strstr(text.ptr, "\"original\":\"token [REDACTED:github-token]\""));
	callus_redactor_free(r);
	callus_buf_release(&text);
}

/* A .callus that leads out of the workspace: refused before the line is
 * made, and nothing written where it leads. */
static void refused_through_a_link(void **state)
{
	struct fixture *f = *state;
	callus_buf away = CALLUS_BUF_INIT, there = CALLUS_BUF_INIT;
	struct stat st;
	char out[64];

	assert_int_equal(test_tmpdir_make(out, sizeof(out), "log-away"), 0);
	callus_buf_printf(&there, "%s/log.jsonl", out);
	callus_buf_printf(&away, "%s/.callus", f->dir);
	assert_int_equal(rmdir(away.ptr), 0);
	assert_int_equal(symlink(out, away.ptr), 0);
	assert_int_equal(callus_log_event(f->callus_dir.ptr, "warn", "x", "y", NULL), -1);
	assert_int_equal(lstat(there.ptr, &st), -1);
	test_tmpdir_remove(out);
	callus_buf_release(&away);
	callus_buf_release(&there);
}

/* path's contents replaced by text */
static void put(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static void slurp(const char *path, callus_buf *out)
{
	callus_buf_clear(out);
	assert_int_equal(callus_fs_read_file(out, path, 1 << 20, NULL), 0);
}

/* What an earlier callus logged: its JSON lines' strings redacted one by
 * one, a line that is not JSON as text, a last line a crash cut kept; a
 * line with nothing to redact kept byte for byte, spacing and all; the
 * rotated log too; and nothing found the second time. */
static void an_earlier_log_redacted_again(void **state)
{
	struct fixture *f = *state;
	callus_redactor *r = NULL;
	callus_buf text = CALLUS_BUF_INIT, old = CALLUS_BUF_INIT;
	struct stat st;
	size_t lines = 99;

	assert_int_equal(callus_redactor_new(&r, NULL), 0);
	callus_buf_printf(&old, "%s.1", f->log.ptr);
	put(f->log.ptr, "{\"at\":\"t\",\"event\":\"e\",\"message\":\"token " TOKEN " here\"}\n"
			"{ \"event\" : \"clean\",  \"n\": 3 }\n"
			"not json: --token " TOKEN "\n"
			"{\"event\":\"cut\",\"message\":\"" TOKEN);
	put(old.ptr, "{\"event\":\"old\",\"cmd\":[\"curl\",\"-H\",\"" TOKEN "\"]}\n");
	assert_int_equal(callus_log_redact(r, f->callus_dir.ptr, &lines), 0);
	assert_int_equal(lines, 4);
	slurp(f->log.ptr, &text);
	assert_null(strstr(text.ptr, TOKEN));
	assert_string_equal(text.ptr,
			    "{\"at\":\"t\",\"event\":\"e\",\"message\":\"token "
			    "[REDACTED:github-token] here\"}\n"
			    "{ \"event\" : \"clean\",  \"n\": 3 }\n"
			    "not json: --token [REDACTED:github-token]\n"
			    "{\"event\":\"cut\",\"message\":\"[REDACTED:github-token]");
	assert_int_equal(stat(f->log.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	slurp(old.ptr, &text);
	assert_string_equal(text.ptr, "{\"event\":\"old\",\"cmd\":[\"curl\",\"-H\","
				      "\"[REDACTED:github-token]\"]}\n");
	/* redacted already: not written again */
	assert_int_equal(stat(f->log.ptr, &st), 0);
	{
		ino_t ino = st.st_ino;

		assert_int_equal(callus_log_redact(r, f->callus_dir.ptr, &lines), 0);
		assert_int_equal(lines, 0);
		assert_int_equal(stat(f->log.ptr, &st), 0);
		assert_true(st.st_ino == ino);
	}
	callus_redactor_free(r);
	callus_buf_release(&text);
	callus_buf_release(&old);
}

/* A log that is a link is not callus's: neither it nor what it leads to
 * is written; no log at all is nothing to do. */
static void an_earlier_log_through_a_link_left(void **state)
{
	struct fixture *f = *state;
	callus_redactor *r = NULL;
	callus_buf there = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	struct stat st;
	size_t lines = 99;
	char out[64];

	assert_int_equal(callus_redactor_new(&r, NULL), 0);
	assert_int_equal(callus_log_redact(r, f->callus_dir.ptr, &lines), 0);
	assert_int_equal(lines, 0);
	assert_int_equal(test_tmpdir_make(out, sizeof(out), "log-away"), 0);
	callus_buf_printf(&there, "%s/log.jsonl", out);
	put(there.ptr, "token " TOKEN "\n");
	assert_int_equal(symlink(there.ptr, f->log.ptr), 0);
	assert_int_equal(callus_log_redact(r, f->callus_dir.ptr, &lines), 0);
	assert_int_equal(lines, 0);
	assert_int_equal(lstat(f->log.ptr, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	slurp(there.ptr, &text);
	assert_string_equal(text.ptr, "token " TOKEN "\n");
	test_tmpdir_remove(out);
	callus_redactor_free(r);
	callus_buf_release(&there);
	callus_buf_release(&text);
}

/* path filled with lines "line N" up to at least bytes; the last N. */
static long fill_lines(const char *path, long bytes)
{
	FILE *fp = fopen(path, "w");
	long n = 0, size = 0;

	assert_non_null(fp);
	while (size < bytes)
		size += fprintf(fp, "{\"line\":%ld}\n", ++n);
	assert_int_equal(fclose(fp), 0);
	return n;
}

static long file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (long)st.st_size;
}

/* A log far past its size (an older callus's, another program's lines)
 * keeps no more than its two files' worth: rotated, its .1 holds the last
 * LOG_BYTES from a line's start; a .1 left that large is cut
 * the same by callus_log_trim.  A rotation of callus's own size is a
 * rename, the whole file kept. */
static void held_to_two_files(void **state)
{
	struct fixture *f = *state;
	callus_buf old = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	char last[32];
	long n;

	callus_buf_printf(&old, "%s.1", f->log.ptr);
	n = fill_lines(f->log.ptr, 5L * LOG_BYTES);
	assert_int_equal(callus_log_event(f->callus_dir.ptr, "info", "x", "after", NULL), 0);
	assert_true(file_size(old.ptr) <= LOG_BYTES);
	assert_true(file_size(old.ptr) > LOG_BYTES - 64);
	callus_buf_clear(&text);
	assert_int_equal(callus_fs_read_file(&text, old.ptr, 2 << 20, NULL), 0);
	snprintf(last, sizeof(last), "{\"line\":%ld}\n", n);
	/* whole lines, the newest last */
	assert_memory_equal(text.ptr, "{\"line\":", 8);
	assert_string_equal(text.ptr + text.len - strlen(last), last);
	read_log(f, &text);
	assert_non_null(strstr(text.ptr, "\"after\""));
	assert_null(strstr(text.ptr, "\"line\""));

	/* callus's own size: renamed whole */
	fill_lines(f->log.ptr, LOG_BYTES + 10);
	assert_int_equal(callus_log_event(f->callus_dir.ptr, "info", "x", "again", NULL), 0);
	assert_true(file_size(old.ptr) > LOG_BYTES);

	/* a .1 left too large, cut by the trim; one of a rotation's size is
	 * left as it is */
	fill_lines(old.ptr, 3L * LOG_BYTES);
	callus_log_trim(f->callus_dir.ptr);
	assert_true(file_size(old.ptr) <= LOG_BYTES);
	fill_lines(old.ptr, LOG_BYTES + 100);
	callus_log_trim(f->callus_dir.ptr);
	assert_true(file_size(old.ptr) > LOG_BYTES);
	/* a .1 that links elsewhere is not cut through the link */
	callus_buf_clear(&text);
	callus_buf_printf(&text, "%s/elsewhere", f->dir);
	fill_lines(text.ptr, 3L * LOG_BYTES);
	assert_int_equal(unlink(old.ptr), 0);
	assert_int_equal(symlink(text.ptr, old.ptr), 0);
	callus_log_trim(f->callus_dir.ptr);
	assert_true(file_size(text.ptr) >= 3L * LOG_BYTES);
	{
		struct stat st;

		assert_int_equal(lstat(old.ptr, &st), 0);
		assert_true(S_ISLNK(st.st_mode));
	}
	callus_buf_release(&old);
	callus_buf_release(&text);
}

/* config's text in the fixture's .callus/config */
static void configure(struct fixture *f, const char *config)
{
	callus_buf path = CALLUS_BUF_INIT;

	callus_buf_printf(&path, "%s/config", f->callus_dir.ptr);
	put(path.ptr, config);
	callus_buf_release(&path);
}

/* [retention] log_kb sets the size: a log past it rotated whole, one
 * under it kept, a .1 past twice it cut to it by the trim; lowered, a
 * kept log comes down at its next line; a value out of range or no
 * number keeps the default.  It fails when the size is fixed. */
static void held_to_the_configured_size(void **state)
{
	struct fixture *f = *state;
	callus_buf old = CALLUS_BUF_INIT;
	const long kb64 = 64 * 1024;

	callus_buf_printf(&old, "%s.1", f->log.ptr);
	assert_int_equal(callus_log_limit(f->callus_dir.ptr), LOG_BYTES);
	configure(f, "[retention]\nlog_kb = 64\n");
	assert_int_equal(callus_log_limit(f->callus_dir.ptr), kb64);

	fill_lines(f->log.ptr, kb64 / 2);
	assert_int_equal(callus_log_event(f->callus_dir.ptr, "info", "x", "under", NULL), 0);
	assert_true(file_size(f->log.ptr) > kb64 / 2);
	assert_int_equal(access(old.ptr, F_OK), -1);

	fill_lines(f->log.ptr, kb64 + 10);
	assert_int_equal(callus_log_event(f->callus_dir.ptr, "info", "x", "past", NULL), 0);
	assert_true(file_size(old.ptr) > kb64);
	assert_true(file_size(f->log.ptr) < 1024);

	fill_lines(old.ptr, 3 * kb64);
	callus_log_trim(f->callus_dir.ptr);
	assert_true(file_size(old.ptr) <= kb64);
	assert_true(file_size(old.ptr) > kb64 - 64);

	/* lowered: the log and its .1 come down at the next line */
	fill_lines(f->log.ptr, kb64);
	configure(f, "[retention]\nlog_kb = 16\n");
	assert_int_equal(callus_log_event(f->callus_dir.ptr, "info", "x", "lowered", NULL), 0);
	assert_true(file_size(old.ptr) <= 16 * 1024);
	assert_true(file_size(f->log.ptr) < 1024);

	/* out of range, or no number: the default's size */
	configure(f, "[retention]\nlog_kb = 8\n");
	assert_int_equal(callus_log_limit(f->callus_dir.ptr), LOG_BYTES);
	configure(f, "[retention]\nlog_kb = ten\n");
	assert_int_equal(callus_log_limit(f->callus_dir.ptr), LOG_BYTES);
	fill_lines(f->log.ptr, kb64 + 10);
	assert_int_equal(callus_log_event(f->callus_dir.ptr, "info", "x", "default", NULL), 0);
	assert_true(file_size(f->log.ptr) > kb64);

	/* a caller that read the size once passes it: the file is not read */
	assert_int_equal(callus_log_event_limit(NULL, f->callus_dir.ptr, 32 * 1024, "info", "x",
						"given", NULL),
			 0);
	assert_true(file_size(f->log.ptr) < 1024);
	callus_buf_release(&old);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(redacted_without_a_redactor, setup, teardown),
		cmocka_unit_test_setup_teardown(redacted_with_the_callers, setup, teardown),
		cmocka_unit_test_setup_teardown(refused_through_a_link, setup, teardown),
		cmocka_unit_test_setup_teardown(an_earlier_log_redacted_again, setup, teardown),
		cmocka_unit_test_setup_teardown(an_earlier_log_through_a_link_left, setup, teardown),
		cmocka_unit_test_setup_teardown(held_to_two_files, setup, teardown),
		cmocka_unit_test_setup_teardown(held_to_the_configured_size, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
