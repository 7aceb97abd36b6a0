/*
 * test_redact_formats.c - the redactor against data: every planted secret
 * of tests/fixtures/secrets/formats.tsv must go, and every output of the
 * negative sets must come out byte for byte: tests/fixtures/secrets/clean/
 * (hashes, UUIDs, base64 fixtures, integrity strings, command lines whose
 * options look like credentials and are not) and the real tool outputs of
 * tests/corpus/cases/.  Also command lines given as words
 * (callus_redact_argv), as `callus run` records them.
 *
 * formats.tsv is written by its generate.py, whose header describes it.
 * Fixtures are found under $CALLUS_SRCDIR, else the current directory.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "callus/redact.h"

/* "[REDACTED:" + a kind of at most 17 bytes + "]" */
#define MAX_MARKER 28

static int setup(void **state)
{
	callus_redactor *r = NULL;

	if (callus_redactor_new(&r, NULL) < 0)
		return -1;
	*state = r;
	return 0;
}

static int teardown(void **state)
{
	callus_redactor_free(*state);
	return 0;
}

static void src_path(callus_buf *b, const char *rel)
{
	const char *dir = getenv("CALLUS_SRCDIR");

	callus_buf_clear(b);
	callus_buf_printf(b, "%s/%s", dir && *dir ? dir : ".", rel);
}

static int read_file(callus_buf *out, const char *path)
{
	char chunk[65536];
	size_t n;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		callus_buf_put(out, chunk, n);
	fclose(f);
	return callus_buf_status(out);
}

/* The escapes of formats.tsv: \n \t \\ and \z (nothing). */
static void decode(callus_buf *out, const char *p, size_t len)
{
	callus_buf_clear(out);
	for (size_t k = 0; k < len; k++) {
		if (p[k] != '\\' || k + 1 == len) {
			callus_buf_putc(out, p[k]);
			continue;
		}
		switch (p[++k]) {
		case 'n': callus_buf_putc(out, '\n'); break;
		case 't': callus_buf_putc(out, '\t'); break;
		case '\\': callus_buf_putc(out, '\\'); break;
		case 'z': break;
		default:
			callus_buf_putc(out, '\\');
			callus_buf_putc(out, p[k]);
		}
	}
}

static int contains(const callus_buf *b, const char *s, size_t len)
{
	return len && memmem(b->ptr, b->len, s, len) != NULL;
}

/* Every marker's kind fits the growth bound callus/redact.h states. */
static int kinds_fit(const callus_buf *b)
{
	const char *p = b->ptr, *end = b->ptr + b->len, *q;

	while ((p = memmem(p, (size_t)(end - p), "[REDACTED:", 10))) {
		if (!(q = memchr(p, ']', (size_t)(end - p))) || q - p + 1 > MAX_MARKER)
			return 0;
		p = q;
	}
	return 1;
}

/* ---- the planted secrets ------------------------------------------------ */

static void test_formats(void **state)
{
	callus_buf path = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT, line = CALLUS_BUF_INIT;
	callus_buf field = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT, again = CALLUS_BUF_INIT;
	callus_buf failures = CALLUS_BUF_INIT;
	size_t rows = 0, failed = 0, count, count2;
	char *p, *nl, *next;

	src_path(&path, "tests/fixtures/secrets/formats.tsv");
	assert_int_equal(read_file(&file, path.ptr), 0);
	for (p = file.ptr; p && *p; p = next) {
		char *name, *col, *tab;
		int bad = 0;

		if ((nl = strchr(p, '\n')))
			*nl = '\0';
		next = nl ? nl + 1 : NULL;
		if (*p == '#' || !*p)
			continue;
		rows++;
		name = p;
		assert_non_null(tab = strchr(name, '\t'));
		*tab = '\0';
		col = tab + 1;
		tab = strchr(col, '\t');
		assert_non_null(tab);
		decode(&line, col, (size_t)(tab - col));
		callus_buf_clear(&out);
		assert_int_equal(callus_redact(*state, &out, line.ptr, line.len, &count), 0);
		if (count == 0)
			bad = 1;
		/* the secrets, then the context kept (+...) */
		for (col = tab + 1; col; col = tab ? tab + 1 : NULL) {
			size_t len;

			tab = strchr(col, '\t');
			len = tab ? (size_t)(tab - col) : strlen(col);
			if (*col == '!')
				continue;   /* a flag (!cmd: a command line) */
			if (*col == '+') {
				decode(&field, col + 1, len - 1);
				if (!contains(&out, field.ptr, field.len))
					bad = 1;
			} else {
				decode(&field, col, len);
				if (contains(&out, field.ptr, field.len))
					bad = 1;
			}
		}
		/* redacting again changes nothing */
		callus_buf_clear(&again);
		assert_int_equal(callus_redact(*state, &again, out.ptr, out.len, &count2), 0);
		if (count2 != 0 || again.len != out.len || memcmp(again.ptr, out.ptr, out.len) ||
		    !kinds_fit(&out))
			bad = 1;
		if (bad) {
			failed++;
			callus_buf_printf(&failures, "  %s\n    in:  %s\n    out: %s\n", name, line.ptr,
					  out.ptr);
		}
	}
	if (failed) {
		fprintf(stderr, "%s", failures.ptr);
		fail_msg("%zu of %zu formats not redacted as planted (above)", failed, rows);
	}
	/* the test set is as large as the issue asks */
	assert_true(rows >= 100);
	callus_buf_release(&path);
	callus_buf_release(&file);
	callus_buf_release(&line);
	callus_buf_release(&field);
	callus_buf_release(&out);
	callus_buf_release(&again);
	callus_buf_release(&failures);
}

/* ---- what must survive ------------------------------------------------ */

/* Corpus cases whose tool reports a secret, which must go: bandit's
 * B105-B107 print the hard-coded password they found. */
static const char *const reports_secret[] = { "bandit", "bandit-json", "bandit-quiet", NULL };

static int allowed_to_change(const char *name)
{
	for (size_t k = 0; reports_secret[k]; k++)
		if (!strcmp(name, reports_secret[k]))
			return 1;
	return 0;
}

/* Every file of dir (relative to the source tree) whose name ends in
 * suffix, or every DIR/<case>/suffix when nested, comes out unchanged
 * (but for the cases above). */
static void expect_dir_unchanged(void **state, const char *dir, const char *suffix, int nested,
				 size_t min_files)
{
	callus_buf path = CALLUS_BUF_INIT, file = CALLUS_BUF_INIT, out = CALLUS_BUF_INIT;
	callus_buf failures = CALLUS_BUF_INIT;
	size_t files = 0, failed = 0, count;
	struct dirent *e;
	DIR *d;

	src_path(&path, dir);
	assert_non_null(d = opendir(path.ptr));
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name), sl = strlen(suffix);

		if (e->d_name[0] == '.')
			continue;
		if ((!nested && (l < sl || strcmp(e->d_name + l - sl, suffix))) ||
		    (nested && allowed_to_change(e->d_name)))
			continue;
		src_path(&path, dir);
		callus_buf_printf(&path, "/%s%s%s", e->d_name, nested ? "/" : "", nested ? suffix : "");
		callus_buf_clear(&file);
		if (read_file(&file, path.ptr) < 0)
			continue;   /* a case without that file */
		files++;
		callus_buf_clear(&out);
		assert_int_equal(callus_redact(*state, &out, file.ptr, file.len, &count), 0);
		if (count || out.len != file.len || memcmp(out.ptr, file.ptr, file.len)) {
			const char *m = memmem(out.ptr, out.len, "[REDACTED:", 10);
			const char *from = m ? m : out.ptr;

			while (m && from > out.ptr && from[-1] != '\n')
				from--;
			failed++;
			callus_buf_printf(&failures, "  %s (%zu): %.200s\n", e->d_name, count, from);
		}
	}
	closedir(d);
	if (failed) {
		fprintf(stderr, "%s", failures.ptr);
		fail_msg("%zu of %zu files of %s changed (above)", failed, files, dir);
	}
	assert_true(files >= min_files);
	callus_buf_release(&path);
	callus_buf_release(&file);
	callus_buf_release(&out);
	callus_buf_release(&failures);
}

static void test_clean_set(void **state)
{
	expect_dir_unchanged(state, "tests/fixtures/secrets/clean", ".txt", 0, 15);
}

static void test_corpus_outputs(void **state)
{
	expect_dir_unchanged(state, "tests/corpus/cases", "output.txt", 1, 200);
}

/* ---- command lines given as words ---------------------------------------- */

static void expect_argv(void **state, const char *want, size_t want_count, ...)
{
	const char *argv[32];
	callus_buf out = CALLUS_BUF_INIT, again = CALLUS_BUF_INIT;
	size_t argc = 0, count = 99, count2 = 99;
	va_list ap;

	va_start(ap, want_count);
	while ((argv[argc] = va_arg(ap, const char *)))
		argc++;
	va_end(ap);
	assert_int_equal(callus_redact_argv(*state, &out, argc, argv, &count), 0);
	assert_string_equal(out.ptr, want);
	assert_int_equal(count, want_count);
	/* what is stored is redacted again as text: nothing more goes */
	assert_int_equal(callus_redact(*state, &again, out.ptr, out.len, &count2), 0);
	assert_string_equal(again.ptr, out.ptr);
	assert_int_equal(count2, 0);
	callus_buf_release(&out);
	callus_buf_release(&again);
}

static void test_argv(void **state)
{
	/* the quoting that used to split the secret: redacted before quoting */
	expect_argv(state,
		    "sh -c 'DB_PASSWORD='\\''[REDACTED:secret-assignment]'\\'' gcc -c main.c'", 1,
		    "sh", "-c", "DB_PASSWORD='x9Kq2mVb7Lp4Tz' gcc -c main.c", NULL);
	expect_argv(state, "sh -c 'DB_PASSWORD=\"[REDACTED:secret-assignment]\" make'", 1,
		    "sh", "-c", "DB_PASSWORD=\"it's a pass\" make", NULL);
	/* an option and its value in two words */
	expect_argv(state, "deploy --password '[REDACTED:cli-password]' --env prod", 1,
		    "deploy", "--password", "it's two words", "--env", "prod", NULL);
	expect_argv(state, "curl -u 'admin:[REDACTED:cli-password]' https://api.example.com/", 1,
		    "curl", "-u", "admin:S3cr3t pass", "https://api.example.com/", NULL);
	expect_argv(state, "docker login -u ci -p '[REDACTED:cli-password]' registry.example.com", 1,
		    "docker", "login", "-u", "ci", "-p", "bluefish", "registry.example.com", NULL);
	expect_argv(state, "mysql -u root '-p[REDACTED:cli-password]' app", 1,
		    "mysql", "-u", "root", "-pletmein", "app", NULL);
	expect_argv(state, "/usr/bin/sshpass -p '[REDACTED:cli-password]' ssh host", 1,
		    "/usr/bin/sshpass", "-p", "hunter2", "ssh", "host", NULL);
	expect_argv(state, "curl -b '[REDACTED:cookie]' https://x.example.com", 1,
		    "curl", "-b", "sid=abc123", "https://x.example.com", NULL);
	expect_argv(state, "env 'API_TOKEN=[REDACTED:github-token]' npm test", 1,
		    "env", "API_TOKEN=gh" "p_R7kQ2mX9vL4nT8wZ1bC5dF3gH6jK0pS2uY4a", "npm", "test", NULL);
	/* a word is a value whole: the shell removed its quotes */
	expect_argv(state, "env 'DB_PASSWORD=[REDACTED:secret-assignment]' gcc", 1,
		    "env", "DB_PASSWORD=it's a b", "gcc", NULL);
	expect_argv(state, "tool '--password=[REDACTED:cli-password]' x", 1,
		    "tool", "--password=two words", "x", NULL);
	/* but a script is text: its first word ends the value */
	expect_argv(state, "bash -lc 'DB_PASSWORD=[REDACTED:secret-assignment] gcc -c main.c'", 1,
		    "bash", "-lc", "DB_PASSWORD=x9Kq2mVb gcc -c main.c", NULL);
	/* nothing to redact: the words as callus_shell_quote writes them */
	expect_argv(state, "docker run -p 8080:80 -u 1000:1000 node:20 npm test", 0,
		    "docker", "run", "-p", "8080:80", "-u", "1000:1000", "node:20", "npm", "test", NULL);
	expect_argv(state, "mysql -u root -p app_test", 0, "mysql", "-u", "root", "-p", "app_test",
		    NULL);
	expect_argv(state, "mkdir -p build/out", 0, "mkdir", "-p", "build/out", NULL);
	expect_argv(state, "docker login -u ci --password-stdin registry", 0,
		    "docker", "login", "-u", "ci", "--password-stdin", "registry", NULL);
	expect_argv(state, "'' 'a b'", 0, "", "a b", NULL);
	expect_argv(state, "", 0, NULL);
}

/* Words cut short or malformed: an option that ends the command, an
 * empty word, an unterminated quote, a word far longer than a value. */
static void test_argv_bad_inputs(void **state)
{
	callus_buf big = CALLUS_BUF_INIT;

	expect_argv(state, "tool --password", 0, "tool", "--password", NULL);
	expect_argv(state, "mysql -p", 0, "mysql", "-p", NULL);
	expect_argv(state, "docker login -u ci -p", 0, "docker", "login", "-u", "ci", "-p", NULL);
	expect_argv(state, "curl -u", 0, "curl", "-u", NULL);
	expect_argv(state, "sh -c", 0, "sh", "-c", NULL);
	expect_argv(state, "tool --password ''", 0, "tool", "--password", "", NULL);
	expect_argv(state, "tool --password --yes", 0, "tool", "--password", "--yes", NULL);
	expect_argv(state, "tool --password=", 0, "tool", "--password=", NULL);
	expect_argv(state, "tool DB_PASSWORD=", 0, "tool", "DB_PASSWORD=", NULL);
	/* a word is a value whole, a quote in it included */
	expect_argv(state, "tool --password '[REDACTED:cli-password]'", 1, "tool", "--password",
		    "'", NULL);
	/* an unterminated quote in a script: to its end */
	expect_argv(state, "sh -c 'DB_PASSWORD='\\''[REDACTED:secret-assignment]'", 1,
		    "sh", "-c", "DB_PASSWORD='abc12345", NULL);
	expect_argv(state, "sh -c 'mysql -p[REDACTED:cli-password]'", 1,
		    "sh", "-c", "mysql -p'abc12345", NULL);
	/* huge words */
	for (int i = 0; i < 10000; i++)
		callus_buf_putc(&big, "aZ3"[i % 3]);
	expect_argv(state, "deploy --password '[REDACTED:cli-password]'", 1,
		    "deploy", "--password", big.ptr, NULL);
	expect_argv(state, "deploy '--password=[REDACTED:cli-password]'", 1,
		    "deploy", "--password=x y", NULL);
	callus_buf_clear(&big);
	callus_buf_puts(&big, "-p");
	for (int i = 0; i < 10000; i++)
		callus_buf_putc(&big, "aZ3"[i % 3]);
	expect_argv(state, "mysql '-p[REDACTED:cli-password]' app", 1, "mysql", big.ptr, "app", NULL);
	callus_buf_release(&big);
}

static void test_argv_arguments(void **state)
{
	const char *argv[] = { "a", NULL };
	callus_buf out = CALLUS_BUF_INIT;
	size_t count = 5;

	assert_int_equal(callus_redact_argv(NULL, &out, 1, argv, &count), CALLUS_EINVAL);
	assert_int_equal(count, 0);
	assert_int_equal(callus_redact_argv(*state, NULL, 1, argv, NULL), CALLUS_EINVAL);
	assert_int_equal(callus_redact_argv(*state, &out, 2, argv, NULL), CALLUS_EINVAL);
	assert_int_equal(callus_redact_argv(*state, &out, 1, NULL, NULL), CALLUS_EINVAL);
	assert_int_equal(out.len, 0);
	/* a ceiling: out is left as it was */
	callus_buf_init(&out, 12);
	callus_buf_puts(&out, "keep");
	{
		const char *words[] = { "tool", "--password", "s3cr3t-x" };

		assert_int_equal(callus_redact_argv(*state, &out, 3, words, NULL), CALLUS_ETOOBIG);
	}
	assert_string_equal(out.ptr, "keep");
	callus_buf_release(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_clean_set),
		cmocka_unit_test(test_corpus_outputs),
		cmocka_unit_test(test_argv),
		cmocka_unit_test(test_argv_arguments),
		cmocka_unit_test(test_argv_bad_inputs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
