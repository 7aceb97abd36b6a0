/*
 * test_config.c - the .callus/config parser (src/config.c, docs/config.md).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "callus/buf.h"
#include "callus/config.h"

static callus_config *parse_ok(const char *text)
{
	callus_config *c = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	int rc = callus_config_parse(&c, text, strlen(text), ".callus/config", &err);

	if (rc != 0)
		fail_msg("parse failed: %s", callus_error_message(&err));
	assert_non_null(c);
	callus_error_release(&err);
	return c;
}

/* Parse text that must fail; check the code and the exact message. */
static void parse_fails(const char *text, const char *msg)
{
	callus_config *c = (callus_config *)1;
	callus_error err = CALLUS_ERROR_INIT;

	assert_int_equal(callus_config_parse(&c, text, strlen(text), ".callus/config", &err),
			 CALLUS_EINVAL);
	assert_null(c);
	assert_int_equal(err.code, CALLUS_EINVAL);
	assert_string_equal(callus_error_message(&err), msg);
	callus_error_release(&err);
}

static void test_example_from_the_docs(void **state)
{
	const char *text = "# comment  ; comment\n"
			   "[verify]\n"
			   "\tadd = mytool            # a pattern, optional category after it:\n"
			   "\tadd = ./scripts/check.sh TEST\n"
			   "\tremove = make\n"
			   "[lessons]\n"
			   "\tfile = CLAUDE.md\n"
			   "\tmax = 20\n";
	callus_config *c = parse_ok(text);
	long max = 0;

	(void)state;
	assert_string_equal(callus_config_get(c, "verify", "add"), "./scripts/check.sh TEST");
	assert_string_equal(callus_config_get(c, "verify", "remove"), "make");
	assert_string_equal(callus_config_get(c, "lessons", "file"), "CLAUDE.md");
	assert_int_equal(callus_config_get_long(&max, c, "lessons", "max", 5, 1, 1000, NULL), 0);
	assert_int_equal(max, 20);
	assert_null(callus_config_get(c, "lessons", "nope"));
	assert_null(callus_config_get(c, "nope", "file"));
	assert_string_equal(callus_config_name(c), ".callus/config");
	callus_config_free(c);
}

static void test_case_insensitive_names(void **state)
{
	callus_config *c = parse_ok("[VeRiFy]\nADD = Tool\n[Lessons]\nFile = X.md\n");
	const callus_config_entry *e;

	(void)state;
	assert_string_equal(callus_config_get(c, "verify", "add"), "Tool"); /* value kept */
	assert_string_equal(callus_config_get(c, "VERIFY", "Add"), "Tool");
	assert_string_equal(callus_config_get(c, "lessons", "file"), "X.md");
	e = callus_config_lookup(c, "lessons", "file");
	assert_non_null(e);
	assert_string_equal(e->section, "lessons"); /* stored in lower case */
	assert_string_equal(e->key, "file");
	assert_int_equal(e->line, 4);
	callus_config_free(c);
}

static void test_values_trimmed_and_comments(void **state)
{
	callus_config *c = parse_ok("  [a]   # after header\n"
				  "k1 =   spaced value   \n"
				  "k2=tight\n"
				  "k3 = v ; semicolon comment\n"
				  "k4 =\n"
				  "k5 = \t\n"
				  "   ; indented comment\n"
				  "\t# indented hash comment\n"
				  "\n"
				  "k6 = x#y\n");

	(void)state;
	assert_string_equal(callus_config_get(c, "a", "k1"), "spaced value");
	assert_string_equal(callus_config_get(c, "a", "k2"), "tight");
	assert_string_equal(callus_config_get(c, "a", "k3"), "v");
	assert_string_equal(callus_config_get(c, "a", "k4"), "");
	assert_string_equal(callus_config_get(c, "a", "k5"), "");
	assert_string_equal(callus_config_get(c, "a", "k6"), "x"); /* '#' starts a comment */
	callus_config_free(c);
}

static void test_quoted_values(void **state)
{
	callus_config *c = parse_ok("[q]\n"
				  "a = \"  keeps spaces  \"\n"
				  "b = \"has # and ; inside\"   # real comment\n"
				  "c = \"say \\\"hi\\\" \\\\ done\"\n"
				  "d = \"tab\\there\\nnewline\"\n"
				  "e = \"\"\n"
				  "f = not \"quoted\" here\n");

	(void)state;
	assert_string_equal(callus_config_get(c, "q", "a"), "  keeps spaces  ");
	assert_string_equal(callus_config_get(c, "q", "b"), "has # and ; inside");
	assert_string_equal(callus_config_get(c, "q", "c"), "say \"hi\" \\ done");
	assert_string_equal(callus_config_get(c, "q", "d"), "tab\there\nnewline");
	assert_string_equal(callus_config_get(c, "q", "e"), "");
	/* quotes count only at the start of a value */
	assert_string_equal(callus_config_get(c, "q", "f"), "not \"quoted\" here");
	callus_config_free(c);
}

static void test_multi_valued_keys(void **state)
{
	callus_config *c = parse_ok("[verify]\n"
				  "add = one\n"
				  "remove = gcc\n"
				  "[other]\n"
				  "add = not-verify\n"
				  "[verify]\n"
				  "ADD = two LINT\n"
				  "add = three\n");
	const callus_config_entry *e;
	const char *want[] = { "one", "two LINT", "three" };
	unsigned lines[] = { 2, 7, 8 };
	size_t it = 0, n = 0;

	(void)state;
	while ((e = callus_config_next(c, "verify", "add", &it))) {
		assert_true(n < 3);
		assert_string_equal(e->value, want[n]);
		assert_int_equal(e->line, lines[n]);
		n++;
	}
	assert_int_equal(n, 3);
	assert_null(callus_config_next(c, "verify", "add", &it)); /* stays at the end */
	assert_string_equal(callus_config_get(c, "verify", "add"), "three"); /* the last */

	/* key NULL: every key of the section, in order */
	it = 0;
	n = 0;
	while ((e = callus_config_next(c, "verify", NULL, &it)))
		n++;
	assert_int_equal(n, 4);
	/* section NULL: every entry */
	it = 0;
	n = 0;
	while ((e = callus_config_next(c, NULL, NULL, &it)))
		n++;
	assert_int_equal(n, 5);
	it = 0;
	assert_null(callus_config_next(c, "missing", NULL, &it));
	callus_config_free(c);
}

static void test_crlf_bom_and_no_final_newline(void **state)
{
	callus_config *c = parse_ok("\xef\xbb\xbf[s]\r\nk = v\r\nlast = end");

	(void)state;
	assert_string_equal(callus_config_get(c, "s", "k"), "v");
	assert_string_equal(callus_config_get(c, "s", "last"), "end");
	callus_config_free(c);
}

static void test_empty_and_null(void **state)
{
	callus_config *c = NULL;
	long n = 0;
	int b = 0;
	size_t it = 0;

	(void)state;
	assert_int_equal(callus_config_parse(&c, "", 0, NULL, NULL), 0);
	assert_non_null(c);
	assert_string_equal(callus_config_name(c), "config");
	assert_null(callus_config_get(c, "a", "b"));
	assert_null(callus_config_next(c, "a", NULL, &it));
	callus_config_free(c);

	/* a NULL config reads as an empty one */
	assert_null(callus_config_get(NULL, "lessons", "max"));
	assert_int_equal(callus_config_get_long(&n, NULL, "lessons", "max", 20, 1, 100, NULL), 0);
	assert_int_equal(n, 20);
	assert_int_equal(callus_config_get_bool(&b, NULL, "x", "y", 1, NULL), 0);
	assert_int_equal(b, 1);
	callus_config_free(NULL);
	assert_int_equal(callus_config_parse(NULL, "", 0, NULL, NULL), CALLUS_EINVAL);
}

static void test_syntax_errors_name_the_line(void **state)
{
	(void)state;
	parse_fails("[verify]\nadd = x\njust words\n",
		    "'.callus/config' line 3: expected 'key = value'");
	parse_fails("[verify]\n= value\n", "'.callus/config' line 2: expected 'key = value'");
	parse_fails("key = value\n", "'.callus/config' line 1: key before any [section]");
	parse_fails("# c\n\n[verify\n", "'.callus/config' line 3: expected ']' after the section name");
	parse_fails("[]\n", "'.callus/config' line 1: empty section name");
	parse_fails("[a] b\n", "'.callus/config' line 1: unexpected text after the section header");
	parse_fails("[a \"sub\"]\n",
		    "'.callus/config' line 1: subsections ([section \"name\"]) are not supported");
	parse_fails("[a]\nk = \"open\n", "'.callus/config' line 2: unterminated quoted value");
	parse_fails("[a]\nk = \"ends in backslash\\", "'.callus/config' line 2: unterminated quoted value");
	parse_fails("[a]\nk = \"x\" y\n",
		    "'.callus/config' line 2: unexpected text after the quoted value");
	parse_fails("[a]\nk = \"\\q\"\n",
		    "'.callus/config' line 2: unknown escape in quoted value (use \\\" \\\\ \\n \\t)");
	parse_fails("[a]\nk.x y = 1\n", "'.callus/config' line 2: expected 'key = value'");
}

static void test_nul_byte_is_an_error(void **state)
{
	static const char text[] = "[a]\nk = v\0w\n";
	callus_config *c = NULL;
	callus_error err = CALLUS_ERROR_INIT;

	(void)state;
	assert_int_equal(callus_config_parse(&c, text, sizeof(text) - 1, "cfg", &err), CALLUS_EINVAL);
	assert_null(c);
	assert_string_equal(callus_error_message(&err), "'cfg' line 2: unexpected NUL byte");
	callus_error_release(&err);
}

static void test_get_long(void **state)
{
	callus_config *c = parse_ok("[n]\nok = 42\nneg = -7\nplus = +3\nword = ten\n"
				  "tail = 5x\nspace = \" 5\"\nbig = 99999999999999999999999\n"
				  "empty =\n");
	callus_error err = CALLUS_ERROR_INIT;
	long v = 0;

	(void)state;
	assert_int_equal(callus_config_get_long(&v, c, "n", "ok", 0, LONG_MIN, LONG_MAX, &err), 0);
	assert_int_equal(v, 42);
	assert_int_equal(callus_config_get_long(&v, c, "n", "neg", 0, -10, 10, &err), 0);
	assert_int_equal(v, -7);
	assert_int_equal(callus_config_get_long(&v, c, "n", "plus", 0, 0, 10, &err), 0);
	assert_int_equal(v, 3);
	assert_int_equal(callus_config_get_long(&v, c, "n", "unset", 11, 0, 10, &err), 0);
	assert_int_equal(v, 11); /* the default is not range-checked */
	assert_null(err.msg);

	assert_int_equal(callus_config_get_long(&v, c, "n", "word", 20, 0, 100, &err), CALLUS_EINVAL);
	assert_int_equal(v, 20);
	assert_string_equal(callus_error_message(&err),
			    "'.callus/config' line 5: 'n.word' must be an integer, got 'ten'");
	callus_error_release(&err);

	assert_int_equal(callus_config_get_long(&v, c, "n", "tail", 1, 0, 100, &err), CALLUS_EINVAL);
	assert_int_equal(v, 1);
	callus_error_release(&err);
	assert_int_equal(callus_config_get_long(&v, c, "n", "space", 1, 0, 100, &err), CALLUS_EINVAL);
	callus_error_release(&err);
	assert_int_equal(callus_config_get_long(&v, c, "n", "empty", 1, 0, 100, &err), CALLUS_EINVAL);
	callus_error_release(&err);

	assert_int_equal(callus_config_get_long(&v, c, "n", "ok", 1, 0, 10, &err), CALLUS_EINVAL);
	assert_int_equal(v, 1);
	assert_string_equal(callus_error_message(&err),
			    "'.callus/config' line 2: 'n.ok' must be between 0 and 10, got '42'");
	callus_error_release(&err);
	assert_int_equal(callus_config_get_long(&v, c, "n", "big", 1, LONG_MIN, LONG_MAX, &err),
			 CALLUS_EINVAL);
	assert_non_null(strstr(callus_error_message(&err), "line 8: 'n.big' must be between"));
	callus_error_release(&err);
	callus_config_free(c);
}

static void test_get_bool(void **state)
{
	callus_config *c = parse_ok("[b]\nt1 = true\nt2 = YES\nt3 = on\nt4 = 1\n"
				  "f1 = False\nf2 = no\nf3 = off\nf4 = 0\nbad = maybe\n");
	const char *yes[] = { "t1", "t2", "t3", "t4" }, *no[] = { "f1", "f2", "f3", "f4" };
	callus_error err = CALLUS_ERROR_INIT;
	int b;

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		b = 0;
		assert_int_equal(callus_config_get_bool(&b, c, "b", yes[i], 0, NULL), 0);
		assert_int_equal(b, 1);
		b = 1;
		assert_int_equal(callus_config_get_bool(&b, c, "b", no[i], 1, NULL), 0);
		assert_int_equal(b, 0);
	}
	assert_int_equal(callus_config_get_bool(&b, c, "b", "bad", 1, &err), CALLUS_EINVAL);
	assert_int_equal(b, 1);
	assert_string_equal(callus_error_message(&err),
			    "'.callus/config' line 10: 'b.bad' must be true or false, got 'maybe'");
	callus_error_release(&err);
	callus_config_free(c);
}

/* A temporary workspace; returns its path (free it and remove_tree it). */
static char *make_workspace(const char *config_text)
{
	char *dir = strdup("/tmp/callus-test-config-XXXXXX");
	callus_buf p = CALLUS_BUF_INIT;
	FILE *f;

	assert_non_null(dir);
	assert_non_null(mkdtemp(dir));
	if (config_text) {
		callus_buf_printf(&p, "%s/.callus", dir);
		assert_int_equal(mkdir(p.ptr, 0700), 0);
		callus_buf_puts(&p, "/config");
		assert_non_null(f = fopen(p.ptr, "w"));
		assert_int_equal(fputs(config_text, f) >= 0, 1);
		assert_int_equal(fclose(f), 0);
	}
	callus_buf_release(&p);
	return dir;
}

static void remove_workspace(char *dir)
{
	callus_buf p = CALLUS_BUF_INIT;

	callus_buf_printf(&p, "%s/.callus/config", dir);
	unlink(p.ptr);
	callus_buf_clear(&p);
	callus_buf_printf(&p, "%s/.callus", dir);
	rmdir(p.ptr);
	rmdir(dir);
	callus_buf_release(&p);
	free(dir);
}

static void test_load_missing_file_is_empty(void **state)
{
	char *ws = make_workspace(NULL);
	callus_config *c = NULL;
	callus_error err = CALLUS_ERROR_INIT;

	(void)state;
	assert_int_equal(callus_config_load(&c, ws, &err), 0);
	assert_non_null(c);
	assert_null(err.msg);
	assert_null(callus_config_get(c, "lessons", "file"));
	assert_string_equal(callus_config_name(c), ".callus/config");
	callus_config_free(c);

	/* a workspace path that does not exist either */
	assert_int_equal(callus_config_load(&c, "/nonexistent/callus/ws", &err), 0);
	assert_non_null(c);
	callus_config_free(c);
	remove_workspace(ws);
}

static void test_load_reads_the_file(void **state)
{
	char *ws = make_workspace("[lessons]\nfile = CLAUDE.md\nmax = 7\n");
	callus_config *c = NULL;
	long max = 0;

	(void)state;
	assert_int_equal(callus_config_load(&c, ws, NULL), 0);
	assert_string_equal(callus_config_get(c, "lessons", "file"), "CLAUDE.md");
	assert_int_equal(callus_config_get_long(&max, c, "lessons", "max", 20, 1, 100, NULL), 0);
	assert_int_equal(max, 7);
	callus_config_free(c);
	remove_workspace(ws);
}

static void test_load_syntax_error(void **state)
{
	char *ws = make_workspace("[lessons]\nfile = a\n\noops\n");
	callus_config *c = NULL;
	callus_error err = CALLUS_ERROR_INIT;

	(void)state;
	assert_int_equal(callus_config_load(&c, ws, &err), CALLUS_EINVAL);
	assert_null(c);
	assert_string_equal(callus_error_message(&err), "'.callus/config' line 4: expected 'key = value'");
	callus_error_release(&err);
	remove_workspace(ws);
}

static void test_load_unreadable(void **state)
{
	char *ws = make_workspace("[a]\nb = c\n");
	callus_buf p = CALLUS_BUF_INIT;
	callus_config *c = NULL;
	callus_error err = CALLUS_ERROR_INIT;

	(void)state;
	/* a directory where the file should be */
	callus_buf_printf(&p, "%s/.callus/config", ws);
	assert_int_equal(unlink(p.ptr), 0);
	assert_int_equal(mkdir(p.ptr, 0700), 0);
	assert_int_equal(callus_config_load(&c, ws, &err), CALLUS_EINVAL);
	assert_null(c);
	assert_non_null(strstr(callus_error_message(&err), "not a regular file"));
	callus_error_release(&err);
	assert_int_equal(rmdir(p.ptr), 0);
	/* a FIFO: refused, not waited on for a writer that never comes */
	assert_int_equal(mkfifo(p.ptr, 0600), 0);
	assert_int_equal(callus_config_load(&c, ws, &err), CALLUS_EINVAL);
	assert_null(c);
	callus_error_release(&err);
	assert_int_equal(unlink(p.ptr), 0);
	/* .callus a file: no config there, the defaults */
	callus_buf_clear(&p);
	callus_buf_printf(&p, "%s/.callus", ws);
	assert_int_equal(rmdir(p.ptr), 0);
	assert_int_equal(close(creat(p.ptr, 0600)), 0);
	assert_int_equal(callus_config_load(&c, ws, &err), 0);
	assert_non_null(c);
	callus_config_free(c);
	assert_int_equal(unlink(p.ptr), 0);
	callus_buf_release(&p);
	remove_workspace(ws);
}

static void test_load_too_big(void **state)
{
	char *ws = make_workspace("");
	callus_buf p = CALLUS_BUF_INIT, text = CALLUS_BUF_INIT;
	callus_config *c = NULL;
	callus_error err = CALLUS_ERROR_INIT;
	FILE *f;

	(void)state;
	callus_buf_printf(&p, "%s/.callus/config", ws);
	callus_buf_puts(&text, "[a]\n");
	while (text.len <= CALLUS_CONFIG_MAX_BYTES)
		callus_buf_puts(&text, "# padding padding padding padding padding padding\n");
	assert_non_null(f = fopen(p.ptr, "w"));
	assert_int_equal(fwrite(text.ptr, 1, text.len, f), text.len);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(callus_config_load(&c, ws, &err), CALLUS_ETOOBIG);
	assert_null(c);
	callus_error_release(&err);
	callus_buf_release(&p);
	callus_buf_release(&text);
	remove_workspace(ws);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_example_from_the_docs),
		cmocka_unit_test(test_case_insensitive_names),
		cmocka_unit_test(test_values_trimmed_and_comments),
		cmocka_unit_test(test_quoted_values),
		cmocka_unit_test(test_multi_valued_keys),
		cmocka_unit_test(test_crlf_bom_and_no_final_newline),
		cmocka_unit_test(test_empty_and_null),
		cmocka_unit_test(test_syntax_errors_name_the_line),
		cmocka_unit_test(test_nul_byte_is_an_error),
		cmocka_unit_test(test_get_long),
		cmocka_unit_test(test_get_bool),
		cmocka_unit_test(test_load_missing_file_is_empty),
		cmocka_unit_test(test_load_reads_the_file),
		cmocka_unit_test(test_load_syntax_error),
		cmocka_unit_test(test_load_unreadable),
		cmocka_unit_test(test_load_too_big),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
