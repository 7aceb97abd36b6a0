/*
 * test_embed_remote.c - the external embedder through the real callus-embed
 * helper, against tests/unit/embed_server.py on loopback (an
 * OpenAI-compatible /v1/embeddings stand-in; see the top of that file for
 * what it answers and how the model name makes it misbehave).
 *
 * The helper is the one built next to this test (build/callus-embed for
 * build/tests/test_embed_remote), passed in the options; the server is
 * started once for the whole run, on a port it picks, and killed at the
 * end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/config.h"
#include "callus/embed_remote.h"
#include "callus/gc.h"
#include "callus/lesson.h"
#include "callus/match.h"
#include "callus/signature.h"
#include "callus/store.h"
#include "callus/vecindex.h"
#include "match_internal.h"
#include "sqlutil.h"
#include "steps_helpers.h"

#include <sqlite3.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KEY "sk-test-4f3c2b1a0987654321fedcba"
#define WRONG_KEY "sk-wrong-0123456789abcdef0123456789"
#define DIM 16

static char helper_path[PATH_MAX];
static char server_script[PATH_MAX];
static char tmp_dir[] = "/tmp/callus-embed-test-XXXXXX";
static char log_path[PATH_MAX];
static char url[128];
static pid_t server_pid = -1;

/* ---- the server --------------------------------------------------------- */

static void start_server(void)
{
	int fds[2];
	char line[32];
	ssize_t n;
	size_t len = 0;

	if (pipe(fds) < 0)
		abort();
	server_pid = fork();
	if (server_pid < 0)
		abort();
	if (server_pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execlp("python3", "python3", server_script, "--key", KEY, "--log", log_path,
		       "--dim", "16", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* The first line is the port; the server prints it once bound. */
	while (len < sizeof line - 1 && (n = read(fds[0], line + len, 1)) == 1 &&
	       line[len] != '\n')
		len++;
	line[len] = '\0';
	close(fds[0]);
	if (len == 0) {
		fprintf(stderr, "test_embed_remote: %s did not start\n", server_script);
		exit(1);
	}
	snprintf(url, sizeof url, "http://127.0.0.1:%s/v1/embeddings", line);
}

static void stop_server(void)
{
	if (server_pid > 0) {
		kill(server_pid, SIGTERM);
		waitpid(server_pid, NULL, 0);
		server_pid = -1;
	}
}

/* ---- helpers ------------------------------------------------------------ */

static uint32_t fnv1a32(const char *s, size_t len, unsigned char extra)
{
	uint32_t h = 0x811C9DC5u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x01000193u;
	}
	h ^= extra;
	h *= 0x01000193u;
	return h;
}

/* What the server sends for text, normalized: see embed_server.py. */
static void expected_vector(float out[DIM], const char *text)
{
	double sum = 0;
	int j;

	for (j = 0; j < DIM; j++) {
		uint32_t h = fnv1a32(text, strlen(text), (unsigned char)j);

		out[j] = (float)(((double)(h % 2001) - 1000) / 250.0);
		sum += (double)out[j] * out[j];
	}
	for (j = 0; j < DIM; j++)
		out[j] = (float)(out[j] / sqrt(sum));
}

static void assert_vector(const float *got, const char *text)
{
	float want[DIM];
	int j;

	expected_vector(want, text);
	for (j = 0; j < DIM; j++)
		if (fabs((double)got[j] - want[j]) > 1e-6)
			fail_msg("'%s'[%d]: got %g, want %g", text, j, got[j], want[j]);
}

static double norm(const float *v, size_t dim)
{
	double sum = 0;
	size_t j;

	for (j = 0; j < dim; j++)
		sum += (double)v[j] * v[j];
	return sqrt(sum);
}

static callus_embed_remote_opts opts_for(const char *model)
{
	callus_embed_remote_opts o = CALLUS_EMBED_REMOTE_OPTS_INIT;

	o.helper = helper_path;
	o.url = url;
	o.model = model;
	o.api_key = KEY;
	o.timeout_ms = 5000;
	return o;
}

static char *slurp(const char *path)
{
	callus_buf b = CALLUS_BUF_INIT;
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return strdup("");
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		assert_int_equal(callus_buf_put(&b, chunk, n), 0);
	fclose(f);
	return callus_buf_detach(&b);
}

static int count_lines(const char *s, const char *needle)
{
	int n = 0;
	const char *p = s;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* ---- tests -------------------------------------------------------------- */

static void test_vectors_in_order(void **state)
{
	static const char *const texts[] = {
		"TypeError: x is undefined", "error[E0308]: mismatched types",
		"ModuleNotFoundError: No module named 'foo'", "TypeError: x is undefined"
	};
	callus_embed_remote_opts o = opts_for("m");
	callus_error e = CALLUS_ERROR_INIT;
	float *v = NULL;
	size_t dim = 0, i;

	(void)state;
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 4, &o, &e), 0);
	assert_int_equal(dim, DIM);
	/* The server answers in reverse order: these only hold when the
	 * client sorted by index. */
	for (i = 0; i < 4; i++) {
		assert_true(fabs(norm(v + i * dim, dim) - 1.0) < 1e-5);
		assert_vector(v + i * dim, texts[i]);
	}
	assert_memory_equal(v, v + 3 * dim, dim * sizeof *v);
	assert_memory_not_equal(v, v + dim, dim * sizeof *v);
	free(v);

	/* Items without "index" are taken in order. */
	o.model = "no-index";
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 3, &o, &e), 0);
	for (i = 0; i < 3; i++)
		assert_vector(v + i * dim, texts[i]);
	free(v);

	/* Nothing to embed: nothing run. */
	v = (float *)1;
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 0, &o, &e), 0);
	assert_null(v);
	assert_int_equal(dim, 0);
	callus_error_release(&e);
}

static void test_batches_and_bytes(void **state)
{
	enum { N = 300 };
	callus_embed_remote_opts o = opts_for("batch-test");
	callus_error e = CALLUS_ERROR_INIT;
	char *store = calloc(N, 16), *logged;
	const char **texts = calloc(N, sizeof *texts);
	const char *odd[] = { "caf\xc3\xa9 \"quoted\"\n\ttab \\ back", "bad \xff byte" };
	float *v = NULL;
	size_t dim = 0, i;

	(void)state;
	assert_non_null(store);
	assert_non_null(texts);
	for (i = 0; i < N; i++) {
		snprintf(store + 16 * i, 16, "text %zu", i);
		texts[i] = store + 16 * i;
	}
	assert_int_equal(callus_embed_remote(&v, &dim, texts, N, &o, &e), 0);
	assert_int_equal(dim, DIM);
	for (i = 0; i < N; i++)
		assert_vector(v + i * dim, texts[i]);
	free(v);
	/* Two requests: 256 texts, then 44. */
	logged = slurp(log_path);
	assert_int_equal(count_lines(logged, "\"model\": \"batch-test\", \"n\": 256,"), 1);
	assert_int_equal(count_lines(logged, "\"model\": \"batch-test\", \"n\": 44,"), 1);
	assert_true(count_lines(logged, "\"content_type\": \"application/json\"") >= 2);
	free(logged);

	/* JSON escapes survive the trip; a byte that is not UTF-8 arrives as
	 * U+FFFD. */
	assert_int_equal(callus_embed_remote(&v, &dim, odd, 2, &o, &e), 0);
	assert_vector(v, odd[0]);
	assert_vector(v + dim, "bad \xef\xbf\xbd byte");
	free(v);
	free(texts);
	free(store);
	callus_error_release(&e);
}

static void test_api_key(void **state)
{
	static const char *const texts[] = { "a" };
	callus_embed_remote_opts o = opts_for("key-test");
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf cmd = CALLUS_BUF_INIT;
	char *logged, *out;
	float *v = NULL;
	size_t dim = 0;

	(void)state;
	/* An inherited key is not what is sent: the options are. */
	assert_int_equal(setenv("CALLUS_EMBED_API_KEY", WRONG_KEY, 1), 0);
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), 0);
	free(v);
	logged = slurp(log_path);
	assert_int_equal(count_lines(logged, "\"model\": \"key-test\", \"n\": 1, "
					     "\"auth\": \"expected\""), 1);
	free(logged);

	/* The server quotes the wrong key back; the message must not. */
	o.api_key = WRONG_KEY;
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_EIO);
	assert_null(v);
	assert_non_null(strstr(callus_error_message(&e), "callus-embed: HTTP 401: "));
	assert_non_null(strstr(callus_error_message(&e), "Bearer [REDACTED]"));
	assert_null(strstr(callus_error_message(&e), WRONG_KEY));
	assert_null(strstr(callus_error_message(&e), "0123456789abcdef"));
	callus_error_release(&e);

	o.api_key = NULL;
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_EIO);
	assert_non_null(strstr(callus_error_message(&e), "HTTP 401"));
	callus_error_release(&e);
	logged = slurp(log_path);
	assert_int_equal(count_lines(logged, "\"model\": \"key-test\", \"n\": 1, "
					     "\"auth\": \"none\""), 1);
	assert_null(strstr(logged, KEY));
	free(logged);
	unsetenv("CALLUS_EMBED_API_KEY");

	/* All the helper prints, not just the first line. */
	callus_buf_printf(&cmd, "echo '[\"a\"]' | CALLUS_EMBED_API_KEY='%s' '%s' '%s' m 2>&1 >/dev/null",
			WRONG_KEY, helper_path, url);
	{
		FILE *p = popen(cmd.ptr, "r");
		callus_buf b = CALLUS_BUF_INIT;
		char chunk[4096];
		size_t n;

		assert_non_null(p);
		while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
			assert_int_equal(callus_buf_put(&b, chunk, n), 0);
		assert_int_not_equal(pclose(p), 0);
		out = callus_buf_detach(&b);
	}
	assert_non_null(strstr(out, "HTTP 401"));
	assert_null(strstr(out, WRONG_KEY));
	free(out);
	callus_buf_release(&cmd);
}

static void test_failures(void **state)
{
	static const struct {
		const char *model;
		const char *msg;
	} cases[] = {
		{ "fail-500", "callus-embed: HTTP 500: {\"error\": {\"message\": \"the model fell over\"}}" },
		{ "malformed", "callus-embed: the response is not JSON" },
		{ "wrong-count", "callus-embed: asked for 3 embeddings, the response has 2" },
		{ "mixed-dims", "callus-embed: embeddings of different dimensions" },
	};
	static const char *const texts[] = { "a", "b", "c" };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		callus_embed_remote_opts o = opts_for(cases[i].model);
		callus_error e = CALLUS_ERROR_INIT;
		float *v = (float *)1;
		size_t dim = 7;

		if (callus_embed_remote(&v, &dim, texts, 3, &o, &e) != CALLUS_EIO)
			fail_msg("%s: %s", cases[i].model, callus_error_message(&e));
		if (strncmp(callus_error_message(&e), cases[i].msg, strlen(cases[i].msg)) != 0)
			fail_msg("%s: message '%s'", cases[i].model, callus_error_message(&e));
		assert_null(v);
		assert_int_equal(dim, 0);
		callus_error_release(&e);
	}
	/* Nothing listening. */
	{
		callus_embed_remote_opts o = opts_for("m");
		callus_error e = CALLUS_ERROR_INIT;
		float *v = NULL;
		size_t dim;

		o.url = "http://127.0.0.1:1/v1/embeddings";
		assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_EIO);
		assert_non_null(strstr(callus_error_message(&e), "callus-embed: "));
		callus_error_release(&e);
		o.url = NULL;
		assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_EINVAL);
		callus_error_release(&e);
		/* The helper refuses what is not http. */
		o.url = "file:///etc/passwd";
		assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_EINVAL);
		callus_error_release(&e);
	}
}

/* A fake helper: a shell script in the test's directory. */
static void fake_helper(const char *body, callus_buf *path)
{
	FILE *f;

	callus_buf_clear(path);
	callus_buf_printf(path, "%s/callus-embed", tmp_dir);
	f = fopen(path->ptr, "w");
	assert_non_null(f);
	fputs(body, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path->ptr, 0755), 0);
}

static void test_timeout(void **state)
{
	static const char *const texts[] = { "slow" };
	callus_embed_remote_opts o = opts_for("sleep-5000");
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT, pidfile = CALLUS_BUF_INIT;
	struct timespec t0;
	float *v = NULL;
	size_t dim;
	long ms;
	char *pid_text;
	pid_t pid;

	(void)state;
	/* The server is slow: the helper gives up at the timeout. */
	o.timeout_ms = 500;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_EIO);
	ms = elapsed_ms(&t0);
	assert_true(ms >= 450 && ms < 2500);
	assert_non_null(strstr(callus_error_message(&e), "timed out"));
	assert_null(v);
	callus_error_release(&e);

	/* The helper hangs: callus kills it a second past the timeout. */
	callus_buf_printf(&pidfile, "%s/pid", tmp_dir);
	{
		callus_buf body = CALLUS_BUF_INIT;

		callus_buf_printf(&body, "#!/bin/sh\necho $$ >'%s'\nexec sleep 30\n", pidfile.ptr);
		fake_helper(body.ptr, &path);
		callus_buf_release(&body);
	}
	o.helper = path.ptr;
	o.timeout_ms = 300;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_EIO);
	ms = elapsed_ms(&t0);
	assert_true(ms >= 1250 && ms < 3000);
	assert_string_equal(callus_error_message(&e), "embedding helper timed out after 1300 ms");
	pid_text = slurp(pidfile.ptr);
	pid = (pid_t)strtol(pid_text, NULL, 10);
	assert_true(pid > 0);
	/* Killed and reaped: the pid is gone. */
	assert_int_equal(kill(pid, 0), -1);
	assert_int_equal(errno, ESRCH);
	free(pid_text);
	callus_error_release(&e);
	callus_buf_release(&path);
	callus_buf_release(&pidfile);
}

static void test_helper_missing_or_odd(void **state)
{
	static const char *const texts[] = { "a" };
	static const struct {
		const char *script;
		int rc;
		const char *msg;
	} cases[] = {
		{ "cat >/dev/null; echo 'callus-embed: boom' >&2; exit 1", CALLUS_EIO, "callus-embed: boom" },
		{ "cat >/dev/null; exit 3", CALLUS_EIO, "embedding helper exited with status 3" },
		{ "kill -9 $$", CALLUS_EIO, "embedding helper killed by signal 9" },
		{ "cat >/dev/null; echo 'callus-embed 1 2'", CALLUS_EIO, NULL },
		{ "cat >/dev/null; echo 'callus-embed 2 1'; printf '\\0\\0\\200?\\0\\0\\200?'",
		  CALLUS_EIO, NULL },
		{ "cat >/dev/null; echo 'callus-embed 1 0'", CALLUS_EIO, NULL },
		{ "cat >/dev/null; echo 'something else'", CALLUS_EIO, NULL },
		/* Exits without reading its stdin, which is larger than a
		 * socket buffer: no SIGPIPE in the caller. */
		{ "echo 'callus-embed 1 2'; printf '\\0\\0\\200?\\0\\0\\0\\0'", 0, NULL },
	};
	callus_embed_remote_opts o = opts_for("m");
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf path = CALLUS_BUF_INIT, body = CALLUS_BUF_INIT;
	const size_t last = sizeof cases / sizeof cases[0] - 1;
	char *huge = malloc(4u << 20);
	const char *big[1] = { huge };
	float *v = NULL;
	size_t dim, i;

	(void)state;
	assert_non_null(huge);
	memset(huge, 'x', (4u << 20) - 1);
	huge[(4u << 20) - 1] = '\0';
	o.helper = "/nonexistent/callus-embed";
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_ENOTFOUND);
	assert_null(v);
	callus_error_release(&e);
	/* By default, next to the running program: not here. */
	o.helper = NULL;
	unsetenv("CALLUS_EMBED_HELPER");
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), CALLUS_ENOTFOUND);
	callus_error_release(&e);
	/* $CALLUS_EMBED_HELPER. */
	assert_int_equal(setenv("CALLUS_EMBED_HELPER", helper_path, 1), 0);
	assert_int_equal(callus_embed_remote(&v, &dim, texts, 1, &o, &e), 0);
	free(v);
	unsetenv("CALLUS_EMBED_HELPER");

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		callus_buf_clear(&body);
		callus_buf_printf(&body, "#!/bin/sh\n%s\n", cases[i].script);
		fake_helper(body.ptr, &path);
		o.helper = path.ptr;
		v = NULL;
		if (callus_embed_remote(&v, &dim, i == last ? big : texts, 1, &o, &e) != cases[i].rc)
			fail_msg("case %zu (%s): %s", i, cases[i].script, callus_error_message(&e));
		if (cases[i].msg)
			assert_string_equal(callus_error_message(&e), cases[i].msg);
		if (cases[i].rc == 0) {
			/* (1, 0) as sent, unit already. */
			assert_int_equal(dim, 2);
			assert_true(v[0] == 1.0f && v[1] == 0.0f);
		} else {
			assert_null(v);
		}
		free(v);
		callus_error_release(&e);
	}
	free(huge);
	callus_buf_release(&path);
	callus_buf_release(&body);
}

static void test_helper_usage(void **state)
{
	static const struct {
		const char *stdin_from; /* a command piped in, or "" */
		const char *args;
	} cases[] = {
		{ "", "" },
		{ "", "http://127.0.0.1:1/" },
		{ "", "ftp://127.0.0.1/ m </dev/null" },
		{ "echo '[]' | ", "http://127.0.0.1:1/ m" },
		{ "echo '[1]' | ", "http://127.0.0.1:1/ m" },
		{ "echo 'nope' | ", "http://127.0.0.1:1/ m" },
		{ "echo '[\"a\"]' | CALLUS_EMBED_TIMEOUT_MS=soon ", "http://127.0.0.1:1/ m" },
		{ "python3 -c 'import json; print(json.dumps([\"x\"] * 257))' | ",
		  "http://127.0.0.1:1/ m" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		callus_buf cmd = CALLUS_BUF_INIT;
		int st;

		callus_buf_printf(&cmd, "%s'%s' %s 2>/dev/null", cases[i].stdin_from, helper_path,
				cases[i].args);
		st = system(cmd.ptr);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 2)
			fail_msg("exit %d, want 2: %s", WEXITSTATUS(st), cmd.ptr);
		callus_buf_release(&cmd);
	}
}

static void test_config(void **state)
{
	static const char text[] = "[embed]\n"
				   "url = http://Localhost:11434/v1/embeddings\n"
				   "model = nomic-embed-text\n"
				   "timeout_ms = 2500\n";
	callus_embed_remote_opts o;
	callus_config *cfg = NULL, *bad = NULL;
	callus_error e = CALLUS_ERROR_INIT;

	(void)state;
	unsetenv("CALLUS_EMBED_URL");
	unsetenv("CALLUS_EMBED_MODEL");
	unsetenv("CALLUS_EMBED_TIMEOUT_MS");
	unsetenv("CALLUS_EMBED_API_KEY");
	/* Nothing configured: the built-in embedder. */
	assert_int_equal(callus_embed_remote_config(&o, NULL, &e), 0);
	assert_null(o.url);

	assert_int_equal(callus_config_parse(&cfg, text, strlen(text), NULL, &e), 0);
	assert_int_equal(callus_embed_remote_config(&o, cfg, &e), 1);
	assert_string_equal(o.url, "http://Localhost:11434/v1/embeddings");
	assert_string_equal(o.model, "nomic-embed-text");
	assert_int_equal(o.timeout_ms, 2500);
	assert_null(o.api_key);
	assert_null(o.helper);

	setenv("CALLUS_EMBED_URL", "https://api.example.com/v1/embeddings", 1);
	setenv("CALLUS_EMBED_MODEL", "text-embedding-3-small", 1);
	setenv("CALLUS_EMBED_TIMEOUT_MS", "700", 1);
	setenv("CALLUS_EMBED_API_KEY", KEY, 1);
	assert_int_equal(callus_embed_remote_config(&o, cfg, &e), 1);
	assert_string_equal(o.url, "https://api.example.com/v1/embeddings");
	assert_string_equal(o.model, "text-embedding-3-small");
	assert_int_equal(o.timeout_ms, 700);
	assert_string_equal(o.api_key, KEY);

	setenv("CALLUS_EMBED_TIMEOUT_MS", "soon", 1);
	assert_int_equal(callus_embed_remote_config(&o, cfg, &e), CALLUS_EINVAL);
	callus_error_release(&e);
	unsetenv("CALLUS_EMBED_TIMEOUT_MS");
	setenv("CALLUS_EMBED_URL", "ftp://example.com/", 1);
	assert_int_equal(callus_embed_remote_config(&o, cfg, &e), CALLUS_EINVAL);
	callus_error_release(&e);
	unsetenv("CALLUS_EMBED_MODEL");
	setenv("CALLUS_EMBED_URL", "http://example.com/v1/embeddings", 1);
	assert_int_equal(callus_embed_remote_config(&o, NULL, &e), CALLUS_EINVAL);
	assert_non_null(strstr(callus_error_message(&e), "no model"));
	callus_error_release(&e);
	unsetenv("CALLUS_EMBED_URL");
	unsetenv("CALLUS_EMBED_API_KEY");
	callus_config_free(cfg);

	/* A key in the config file is refused, not used. */
	{
		static const char keyed[] = "[embed]\nurl = http://h/v1/embeddings\nmodel = m\n"
					    "api_key = sk-committed-by-mistake\n";

		assert_int_equal(callus_config_parse(&bad, keyed, strlen(keyed), NULL, &e), 0);
		assert_int_equal(callus_embed_remote_config(&o, bad, &e), CALLUS_EINVAL);
		assert_non_null(strstr(callus_error_message(&e), "CALLUS_EMBED_API_KEY"));
		assert_null(strstr(callus_error_message(&e), "sk-committed"));
		assert_null(o.api_key);
		callus_error_release(&e);
		callus_config_free(bad);
	}
}

static void test_model_id(void **state)
{
	callus_error e = CALLUS_ERROR_INIT;
	char *id = NULL;

	(void)state;
	assert_int_equal(callus_embed_remote_model_id(&id, "http://LocalHost:11434/v1/embeddings",
						    "nomic-embed-text", &e), 0);
	assert_string_equal(id, "openai:nomic-embed-text@localhost:11434");
	free(id);
	assert_int_equal(callus_embed_remote_model_id(&id, "https://user:secret@api.example.com"
						    "/v1/embeddings?x=1", "text-embedding-3-small",
						    &e), 0);
	assert_string_equal(id, "openai:text-embedding-3-small@api.example.com");
	free(id);
	assert_int_equal(callus_embed_remote_model_id(&id, "https://h.example", "m", &e), 0);
	assert_string_equal(id, "openai:m@h.example");
	free(id);
	assert_int_equal(callus_embed_remote_model_id(&id, "http:///v1", "m", &e), CALLUS_EINVAL);
	assert_null(id);
	callus_error_release(&e);
	assert_int_equal(callus_embed_remote_model_id(&id, "localhost", "m", &e), CALLUS_EINVAL);
	callus_error_release(&e);
	assert_int_equal(callus_embed_remote_model_id(&id, "http://h/", "", &e), CALLUS_EINVAL);
	callus_error_release(&e);
}

/* ---- the store's signatures, embedded by the external model ------------ */

static void store_signature(callus_store *s, const char *ws, callus_signature *g, const char *msg)
{
	callus_lesson l;
	callus_run_info run;
	callus_diag d;

	memset(&d, 0, sizeof(d));
	memset(&l, 0, sizeof(l));
	memset(&run, 0, sizeof(run));
	d.file = (char *)"src/a.ts";
	d.code = (char *)"TS2339";
	d.message = (char *)msg;
	assert_int_equal(callus_signature_build(g, &d, "tsc", NULL), 0);
	l.type = CALLUS_LESSON_ANALYSIS;
	l.file = strdup("src/a.ts");
	l.error_summary = strdup(msg);
	l.tool = strdup("tsc");
	l.command = strdup("npx tsc");
	assert_int_equal(callus_lesson_sign(&l), 0);
	run.sigs = g;
	run.nsigs = 1;
	assert_int_equal(callus_store_record_lesson(s, &l, &run, NULL, NULL), 0);
	callus_lesson_release(&l);
	assert_int_equal(callus_match_index(s, ws, NULL, NULL), 0);
}

/* A new workspace NAME under the test's folder: ws its root, db its
 * store's path, *s the store open. */
static void new_workspace(const char *name, char ws[PATH_MAX], char db[PATH_MAX], callus_store **s)
{
	snprintf(ws, PATH_MAX, "%s/%s", tmp_dir, name);
	snprintf(db, PATH_MAX, "%s/.callus", ws);
	assert_int_equal(mkdir(ws, 0700), 0);
	assert_int_equal(mkdir(db, 0700), 0);
	strncat(db, "/callus.db", PATH_MAX - strlen(db) - 1);
	assert_int_equal(callus_store_open(s, db, 5000, NULL), 0);
}

static int count_vectors(const char *db, const char *model)
{
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int n;

	assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(h, "SELECT count(*) FROM signature_vectors v"
					       " JOIN vector_models m ON m.id = v.model"
					       " WHERE m.name = ?1", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return n;
}

static void test_match_external_vectors(void **state)
{
	callus_embed_remote_opts o = opts_for("nomic-embed-text"), bad = opts_for("fail-500");
	char ws[PATH_MAX], dir[PATH_MAX], *model = NULL;
	callus_signature a, b;
	callus_store *s = NULL;
	callus_error e = CALLUS_ERROR_INIT;
	callus_buf text = CALLUS_BUF_INIT;
	callus_match *m = NULL;
	callus_match_opts mo;
	float *qv = NULL;
	size_t added = 0, nm = 0, dim = 0;
	const char *texts[1];
	struct stat st;

	(void)state;
	new_workspace("ws", ws, dir, &s);
	store_signature(s, ws, &a, "Property 'total' does not exist on type 'Order'.");
	store_signature(s, ws, &b, "Cannot find name 'process'.");
	assert_int_equal(callus_embed_remote_model_id(&model, url, o.model, NULL), 0);

	/* the endpoint failing: an error, nothing stored */
	assert_int_equal(callus_match_index_remote(s, ws, &bad, 0, &added, &e), CALLUS_EIO);
	callus_error_release(&e);
	assert_int_equal(added, 0);

	/* every signature once; again, none; with all, every one again */
	assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
	assert_int_equal(added, 2);
	assert_int_equal(count_vectors(dir, model), 2);
	assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
	assert_int_equal(added, 0);
	assert_int_equal(callus_match_index_remote(s, ws, &o, 1, &added, NULL), 0);
	assert_int_equal(added, 2);
	assert_int_equal(count_vectors(dir, model), 2);

	/* a query whose external vector is a's (the server hashes whole
	 * texts: the same text, the same vector) finds a through the external
	 * index, where the built-in one, made strict here, finds nothing */
	assert_int_equal(callus_match_remote_text(&text, &a), 0);
	texts[0] = text.ptr;
	assert_int_equal(callus_embed_remote(&qv, &dim, texts, 1, &o, NULL), 0);
	assert_int_equal(dim, DIM);
	memset(&mo, 0, sizeof(mo));
	mo.workspace = ws;
	mo.threshold = 0.99999;
	{
		callus_signature q;

		/* another pattern than a's: another signature */
		store_signature(s, ws, &q, "Property 'count' does not exist on type 'Cart'"
					   " in strict mode.");
		assert_string_not_equal(q.id, a.id);
		assert_int_equal(callus_match_find(s, &mo, &q, &m, &nm, NULL), 0);
		/* only itself, built-in */
		assert_int_equal(nm, 1);
		assert_string_equal(m[0].signature_id, q.id);
		callus_matches_free(m, nm);
		mo.remote_model = model;
		mo.remote_query = qv;
		mo.remote_dim = dim;
		assert_int_equal(callus_match_find(s, &mo, &q, &m, &nm, NULL), 0);
		assert_int_equal(nm, 2);
		assert_string_equal(m[1].signature_id, a.id);
		assert_int_equal(m[1].how, CALLUS_MATCH_VECTOR);
		assert_true(m[1].similarity > 0.99);
		callus_matches_free(m, nm);
		/* without a vector of its own from the model (q is new to it),
		 * the stored ones are no help: nothing waits on the network */
		mo.remote_query = NULL;
		assert_int_equal(callus_match_find(s, &mo, &q, &m, &nm, NULL), 0);
		assert_int_equal(nm, 1);
		callus_matches_free(m, nm);
		/* once embedded, its stored vector is used: only itself is
		 * that close */
		assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
		assert_int_equal(added, 1);
		assert_int_equal(callus_match_find(s, &mo, &q, &m, &nm, NULL), 0);
		assert_int_equal(nm, 1);
		callus_matches_free(m, nm);
		/* and it is the stored one that is read: q's made a's, a is
		 * found through the external index */
		{
			char *up = sqlite3_mprintf(
				"UPDATE signature_vectors SET vector = (SELECT v.vector FROM"
				" signature_vectors v JOIN signatures g ON g.rowid = v.sig"
				" WHERE g.id = %Q AND v.model = signature_vectors.model)"
				" WHERE sig = (SELECT rowid FROM signatures WHERE id = %Q)"
				" AND model = (SELECT id FROM vector_models WHERE name = %Q)",
				a.id, q.id, model);

			assert_non_null(up);
			assert_int_equal(sqlite3_exec(callus_store_db(s), up, NULL, NULL, NULL),
					 SQLITE_OK);
			assert_int_equal(sqlite3_changes(callus_store_db(s)), 1);
			sqlite3_free(up);
		}
		assert_int_equal(callus_match_find(s, &mo, &q, &m, &nm, NULL), 0);
		assert_int_equal(nm, 2);
		assert_string_equal(m[1].signature_id, a.id);
		callus_matches_free(m, nm);
		callus_signature_release(&q);
	}
	/* the external model's own vector file, beside the built-in one's */
	{
		char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
		callus_buf vf = CALLUS_BUF_INIT;

		assert_int_equal(callus_match_vector_name(name, model), 0);
		assert_memory_equal(name, "ext-", 4);
		assert_int_equal(callus_match_vector_path(&vf, ws, name), 0);
		assert_int_equal(stat(vf.ptr, &st), 0);
		/* 3 records of { id, scale, 16 int8 } after the header */
		assert_int_equal(st.st_size % 8, 0);
		assert_true(st.st_size > 3 * (8 + 4 + DIM));
		callus_buf_release(&vf);
	}
	/* the built-in model's vectors made again leave the external ones */
	assert_int_equal(callus_match_reindex(s, ws, &added, NULL), 0);
	assert_int_equal(added, 3);
	assert_int_equal(count_vectors(dir, model), 3);
	/* all again while the endpoint does not answer: an error, and the
	 * vectors it had given are kept (the last test: the server stops) */
	stop_server();
	assert_int_equal(callus_match_index_remote(s, ws, &o, 1, &added, &e), CALLUS_EIO);
	callus_error_release(&e);
	assert_int_equal(count_vectors(dir, model), 3);
	free(qv);
	free(model);
	callus_buf_release(&text);
	callus_signature_release(&a);
	callus_signature_release(&b);
	callus_store_close(s);
}

/* The steps of one callus_match_index_remote(--new) of s. */
static long long new_steps(callus_store *s, const char *ws, const callus_embed_remote_opts *o,
			   size_t *added)
{
	long long steps = 0;

	steps_trace(callus_store_db(s), &steps);
	assert_int_equal(callus_match_index_remote(s, ws, o, 0, added, NULL), 0);
	sqlite3_trace_v2(callus_store_db(s), 0, NULL, NULL);
	return steps;
}

/*
 * What the background reindex a new error starts does: with every
 * signature embedded, a few lookups whatever the store's size (it walked
 * every signature: SQLite's steps grew with them); a new signature is
 * found from the newest embedded; one older without a vector (a batch the
 * endpoint failed) is still found.
 */
static void test_new_signatures_only(void **state)
{
	callus_embed_remote_opts o = opts_for("nomic-embed-text");
	char ws[PATH_MAX], dir[PATH_MAX], *model = NULL, q[1024];
	callus_store *s = NULL;
	callus_signature g;
	size_t added = 0;
	long long small, large;

	(void)state;
	new_workspace("ws-new", ws, dir, &s);
	assert_int_equal(callus_embed_remote_model_id(&model, url, o.model, NULL), 0);
	for (int size = 100; size <= 1000; size += 900) {
		snprintf(q, sizeof q,
			 "WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < %d)"
			 " INSERT INTO signatures (id, error_type, message_pattern, original, tool,"
			 " first_seen, last_seen) SELECT printf('%%064x', %d + i), 'TS2339',"
			 " 'Property word' || (%d + i), 'Property word' || (%d + i), 'tsc',"
			 " unixepoch(), unixepoch() FROM k",
			 size - (size == 100 ? 0 : 100), size == 100 ? 0 : 100,
			 size == 100 ? 0 : 100, size == 100 ? 0 : 100);
		assert_int_equal(sqlite3_exec(callus_store_db(s), q, NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
		assert_int_equal(added, (size_t)(size == 100 ? 100 : 900));
		assert_int_equal(count_vectors(dir, model), size);
		if (size == 100)
			small = new_steps(s, ws, &o, &added);
		else
			large = new_steps(s, ws, &o, &added);
		assert_int_equal(added, 0);
	}
	print_message("reindex --new with nothing to send: %lld VM steps at 100 signatures,"
		      " %lld at 1,000\n", small, large);
	/* not ten times the steps for ten times the signatures */
	assert_true(large < small * 2);
	/* a new one, found from the newest embedded */
	store_signature(s, ws, &g, "Property 'sum' does not exist on type 'Totals'.");
	assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
	assert_int_equal(added, 1);
	/* an old one without a vector, and a new one: both */
	snprintf(q, sizeof q,
		 "DELETE FROM signature_vectors WHERE sig = 7 AND model ="
		 " (SELECT id FROM vector_models WHERE name = '%s')",
		 model);
	assert_int_equal(sqlite3_exec(callus_store_db(s), q, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_changes(callus_store_db(s)), 1);
	callus_signature_release(&g);
	store_signature(s, ws, &g, "Cannot find module 'lodash' or its type declarations.");
	assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
	assert_int_equal(added, 2);
	assert_int_equal(count_vectors(dir, model), 1002);
	callus_signature_release(&g);

	/* the model's vector file lost while the endpoint fails: written
	 * again from the store all the same (it needs no endpoint) */
	{
		/* the same model, its helper gone: every send fails */
		callus_embed_remote_opts bad = o;
		char name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
		callus_buf vf = CALLUS_BUF_INIT;
		callus_error e = CALLUS_ERROR_INIT;
		callus_match_file_state fs;
		struct stat st1, st2;

		assert_int_equal(callus_match_vector_name(name, model), 0);
		assert_int_equal(callus_match_vector_path(&vf, ws, name), 0);
		bad.helper = "/nonexistent/callus-embed";
		assert_int_equal(callus_vecindex_remove(vf.ptr), 0);
		store_signature(s, ws, &g, "Type 'string' is not assignable to type 'number'.");
		assert_true(callus_match_index_remote(s, ws, &bad, 0, &added, &e) < 0);
		callus_error_release(&e);
		assert_int_equal(callus_vecindex_file_count(vf.ptr, name, DIM), 1002);
		assert_int_equal(callus_match_file_check(s, ws, CALLUS_MATCH_FILE_EXTERNAL, model, 0,
							 &fs, NULL),
				 0);
		/* vectors of another dimension (an endpoint that changed models
		 * under one name), the file lost: dropped and sent again, and
		 * the file then in step, not written again at each reindex */
		snprintf(q, sizeof q,
			 "UPDATE signature_vectors SET vector = zeroblob(32) WHERE sig IN (3, 4, 5)"
			 " AND model = (SELECT id FROM vector_models WHERE name = '%s')",
			 model);
		assert_int_equal(sqlite3_exec(callus_store_db(s), q, NULL, NULL, NULL), SQLITE_OK);
		assert_int_equal(callus_match_file_check(s, ws, CALLUS_MATCH_FILE_EXTERNAL, model, 0,
							 &fs, NULL),
				 1);
		assert_int_equal(fs.unreadable, 3);
		assert_int_equal(callus_vecindex_remove(vf.ptr), 0);
		assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
		/* the new signature the failing endpoint left, and the three */
		assert_int_equal(added, 4);
		assert_int_equal(callus_match_file_check(s, ws, CALLUS_MATCH_FILE_EXTERNAL, model, 0,
							 &fs, NULL),
				 0);
		assert_int_equal(fs.unreadable, 0);
		assert_int_equal(fs.have, 1003);
		assert_int_equal(stat(vf.ptr, &st1), 0);
		assert_int_equal(callus_match_index_remote(s, ws, &o, 0, &added, NULL), 0);
		assert_int_equal(added, 0);
		assert_int_equal(stat(vf.ptr, &st2), 0);
		assert_int_equal(st1.st_ino, st2.st_ino);
		/* signatures removed: their vectors go, their records stay
		 * until callus gc writes the model's file again */
		assert_int_equal(sqlite3_exec(callus_store_db(s),
					      "DELETE FROM signatures WHERE rowid BETWEEN 10 AND 20",
					      NULL, NULL, NULL),
				 SQLITE_OK);
		assert_int_equal(count_vectors(dir, model), 992);
		assert_int_equal(callus_vecindex_file_count(vf.ptr, name, DIM), 1003);
		{
			callus_gc_policy p;
			callus_gc_result r;

			callus_gc_policy_default(&p);
			p.sweep = 1;
			assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
		}
		assert_int_equal(callus_vecindex_file_count(vf.ptr, name, DIM), 992);
		assert_int_equal(callus_match_file_check(s, ws, CALLUS_MATCH_FILE_EXTERNAL, model, 0,
							 &fs, NULL),
				 0);
		callus_signature_release(&g);
		callus_buf_release(&vf);
	}
	free(model);
	callus_store_close(s);
}

/* A model's time since a callus process last had it set up, set back. */
static void named_ago(callus_store *s, const char *model, int days)
{
	char *t = callus_sql_time_before(NULL, (int64_t)days * 86400), key[512];

	assert_non_null(t);
	snprintf(key, sizeof key, "embed.named_at %s", model);
	assert_int_equal(callus_store_state_set(s, key, t, NULL), 0);
	free(t);
}

/* The vectors of a model the workspace is no longer set up with: kept
 * while the configuration is unknown, while the model is the one named,
 * and until no callus process has had it set up for model_days (a model
 * no pass saw named starts its days at the first); then gone with its
 * file (a batch at a time in the background), the built-in model's and
 * the named one's untouched.  The age of the signatures it embedded does
 * not count: a model that embedded only old history was named today. */
static void test_models_no_longer_set_up(void **state)
{
	callus_embed_remote_opts a = opts_for("nomic-embed-text"), b = opts_for("other-model");
	char ws[PATH_MAX], dir[PATH_MAX], name[CALLUS_MATCH_VECTOR_NAME_MAX + 1];
	char *ma = NULL, *mb = NULL, *named = NULL, q[512];
	callus_buf fa = CALLUS_BUF_INIT, fb = CALLUS_BUF_INIT;
	callus_store *s = NULL;
	callus_gc_policy p;
	callus_gc_result r;
	size_t added = 0;
	int builtin;

	(void)state;
	new_workspace("ws-models", ws, dir, &s);
	assert_int_equal(callus_embed_remote_model_id(&ma, url, a.model, NULL), 0);
	assert_int_equal(callus_embed_remote_model_id(&mb, url, b.model, NULL), 0);
	for (int i = 0; i < 30; i++) {
		callus_signature g;
		char msg[96];

		/* different words, not numbers: a signature's pattern has
		 * none */
		snprintf(msg, sizeof msg, "Cannot find module '%c%c' or its declarations %c%c.",
			 'a' + i % 26, 'a' + i / 26, 'k' + i % 13, 'p' + i / 13);
		store_signature(s, ws, &g, msg);
		callus_signature_release(&g);
	}
	/* every signature first seen long ago: it is not what counts */
	assert_int_equal(sqlite3_exec(callus_store_db(s),
				      "UPDATE signatures SET first_seen = first_seen - 400 * 86400",
				      NULL, NULL, NULL),
			 SQLITE_OK);
	assert_int_equal(callus_match_index_remote(s, ws, &a, 0, &added, NULL), 0);
	assert_int_equal(added, 30);
	assert_int_equal(callus_match_index_remote(s, ws, &b, 0, &added, NULL), 0);
	assert_int_equal(added, 30);
	assert_int_equal(callus_match_vector_name(name, ma), 0);
	assert_int_equal(callus_match_vector_path(&fa, ws, name), 0);
	assert_int_equal(callus_match_vector_name(name, mb), 0);
	assert_int_equal(callus_match_vector_path(&fb, ws, name), 0);
	assert_int_equal(access(fa.ptr, F_OK), 0);
	builtin = count_vectors(dir, CALLUS_EMBED_BUILTIN_MODEL);
	assert_true(builtin >= 30);

	callus_gc_policy_default(&p);
	p.sweep = 0;
	/* the configuration unknown (the default): nothing goes, nothing is
	 * said named */
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors + r.models, 0);
	assert_int_equal(callus_gc_model_named_at(s, ma, &named, NULL), 0);
	assert_null(named);
	/* set up with b: b said named now, a's days start now */
	p.embed_known = 1;
	p.embed_model = mb;
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors, 0);
	assert_int_equal(callus_gc_model_named_at(s, ma, &named, NULL), 0);
	assert_non_null(named);
	free(named);
	assert_int_equal(callus_gc_model_named_at(s, mb, &named, NULL), 0);
	assert_non_null(named);
	free(named);
	/* a last set up 20 days ago: kept; 31 days ago: it goes */
	named_ago(s, ma, 20);
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors, 0);
	named_ago(s, ma, 31);
	/* a dry run counts them and leaves them, and the file */
	p.dry_run = 1;
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors, 30);
	assert_int_equal(r.models, 1);
	assert_int_equal(count_vectors(dir, ma), 30);
	assert_int_equal(access(fa.ptr, F_OK), 0);
	p.dry_run = 0;
	/* the background pass: a batch, the file at once */
	p.batch = 12;
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors, 12);
	assert_int_equal(r.models, 0);
	assert_int_equal(count_vectors(dir, ma), 18);
	assert_true(access(fa.ptr, F_OK) < 0 && errno == ENOENT);
	p.batch = 0;
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors, 18);
	assert_int_equal(r.models, 1);
	assert_int_equal(count_vectors(dir, ma), 0);
	snprintf(q, sizeof q, "SELECT count(*) FROM vector_models WHERE name = '%s'", ma);
	assert_int_equal(callus_store_query_int(s, q), 0);
	assert_int_equal(callus_gc_model_named_at(s, ma, &named, NULL), 0);
	assert_null(named);
	/* the named model and the built-in one keep theirs */
	assert_int_equal(count_vectors(dir, mb), 30);
	assert_int_equal(access(fb.ptr, F_OK), 0);
	assert_int_equal(count_vectors(dir, CALLUS_EMBED_BUILTIN_MODEL), builtin);
	/* b set up in another process's environment only: a pass without it
	 * keeps b while that process said so within model_days */
	p.embed_model = NULL;
	named_ago(s, mb, 10);
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors, 0);
	/* a day old or more: said again (a reindex there), else written
	 * once a day at most */
	assert_int_equal(callus_gc_model_named(s, mb, NULL, NULL), 0);
	named_ago(s, mb, 0);
	assert_int_equal(callus_gc_model_named_at(s, mb, &named, NULL), 0);
	assert_non_null(named);
	{
		char *before = named;

		named = NULL;
		assert_int_equal(callus_gc_model_named(s, mb, NULL, NULL), 0);
		assert_int_equal(callus_gc_model_named_at(s, mb, &named, NULL), 0);
		assert_string_equal(named, before);
		free(before);
		free(named);
	}
	named_ago(s, mb, 10);
	p.model_days = 5;
	assert_int_equal(callus_gc(s, ws, &p, &r, NULL), 0);
	assert_int_equal(r.model_vectors, 30);
	assert_int_equal(count_vectors(dir, mb), 0);
	assert_true(access(fb.ptr, F_OK) < 0);
	assert_int_equal(count_vectors(dir, CALLUS_EMBED_BUILTIN_MODEL), builtin);
	callus_buf_release(&fa);
	callus_buf_release(&fb);
	free(ma);
	free(mb);
	callus_store_close(s);
}

/* ---- main --------------------------------------------------------------- */

static void find_files(const char *argv0)
{
	char *self = realpath(argv0, NULL);
	char *slash;

	if (!self) {
		fprintf(stderr, "test_embed_remote: cannot resolve %s\n", argv0);
		exit(1);
	}
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(helper_path, sizeof helper_path, "%s/../callus-embed", self);
	/* The build directory's tests/ is two levels under the source tree. */
	snprintf(server_script, sizeof server_script, "%s/../../tests/unit/embed_server.py", self);
	free(self);
	if (access(helper_path, X_OK) != 0) {
		fprintf(stderr, "test_embed_remote: no helper at %s (make builds it)\n",
			helper_path);
		exit(1);
	}
	if (access(server_script, R_OK) != 0) {
		fprintf(stderr, "test_embed_remote: no server at %s\n", server_script);
		exit(1);
	}
}

static int teardown(void **state)
{
	callus_buf cmd = CALLUS_BUF_INIT;

	(void)state;
	stop_server();
	callus_buf_printf(&cmd, "rm -rf '%s'", tmp_dir);
	if (system(cmd.ptr) != 0)
		fprintf(stderr, "test_embed_remote: cannot remove %s\n", tmp_dir);
	callus_buf_release(&cmd);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const proxies[] = {
		"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_in_order),
		cmocka_unit_test(test_batches_and_bytes),
		cmocka_unit_test(test_api_key),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_helper_missing_or_odd),
		cmocka_unit_test(test_helper_usage),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_model_id),
		cmocka_unit_test(test_new_signatures_only),
		cmocka_unit_test(test_models_no_longer_set_up),
		cmocka_unit_test(test_match_external_vectors),
	};
	size_t i;

	(void)argc;
	find_files(argv[0]);
	/* The server is on loopback whatever proxy the caller uses. */
	for (i = 0; i < sizeof proxies / sizeof proxies[0]; i++)
		unsetenv(proxies[i]);
	unsetenv("CALLUS_EMBED_API_KEY");
	unsetenv("CALLUS_EMBED_HELPER");
	if (!mkdtemp(tmp_dir)) {
		perror("test_embed_remote: mkdtemp");
		return 1;
	}
	snprintf(log_path, sizeof log_path, "%s/requests.log", tmp_dir);
	start_server();
	return cmocka_run_group_tests(tests, NULL, teardown);
}
