/*
 * embed_remote.c - the external embedder through the callus-embed helper
 * (include/callus/embed_remote.h; the helper's protocol is described at the
 * top of helper/callus-embed.c).
 *
 * The texts go to the helper's stdin as a JSON array, the key and the
 * timeout through its environment; what it prints is checked strictly
 * (count, dimension, length to the byte) before any vector is believed,
 * and normalized here so that every caller gets unit vectors whatever the
 * server does.
 */
#include "callus/embed_remote.h"
#include "callus/buf.h"
#include "callus/child.h"
#include "callus/common.h"
#include "callus/config.h"
#include "callus/utf8.h"

#include <jansson.h>

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

#define WHAT "embedding helper"
#define KEY_ENV "CALLUS_EMBED_API_KEY"
#define TIMEOUT_ENV "CALLUS_EMBED_TIMEOUT_MS"
#define TIMEOUT_MAX_MS 3600000L
/* The helper enforces timeout_ms on the request itself; this much more is
 * for its start and for parsing the response before callus kills it. */
#define KILL_SLACK_MS 1000
/* "callus-embed N DIM\n" */
#define HEADER_MAX 64

char *callus_embed_remote_helper(void)
{
	return callus_child_sibling("CALLUS_EMBED_HELPER", "callus-embed");
}

/* ---- the helper's environment ------------------------------------------ */

/*
 * The caller's environment without any CALLUS_EMBED_API_KEY or
 * CALLUS_EMBED_TIMEOUT_MS, plus ours: the options are the one source of the
 * key, so a key exported for some other purpose is not sent unasked.
 * *envp borrows environ's strings and owns the two it adds (key_var,
 * timeout_var), which the caller frees (key_var wiped first).
 */
static int child_env(char ***envp, char **key_var, char **timeout_var,
		     const callus_embed_remote_opts *opts, int timeout_ms)
{
	callus_buf k = CALLUS_BUF_INIT, t = CALLUS_BUF_INIT;
	size_t n = 0, i, j = 0;
	char **env;

	*envp = NULL;
	*key_var = *timeout_var = NULL;
	while (environ && environ[n])
		n++;
	if (!(env = calloc(n + 3, sizeof *env)))
		return CALLUS_ENOMEM;
	for (i = 0; i < n; i++) {
		if (!strncmp(environ[i], KEY_ENV "=", sizeof KEY_ENV) ||
		    !strncmp(environ[i], TIMEOUT_ENV "=", sizeof TIMEOUT_ENV))
			continue;
		env[j++] = environ[i];
	}
	callus_buf_printf(&t, TIMEOUT_ENV "=%d", timeout_ms);
	if (opts->api_key && *opts->api_key)
		callus_buf_printf(&k, KEY_ENV "=%s", opts->api_key);
	if (callus_buf_status(&t) < 0 || callus_buf_status(&k) < 0) {
		callus_buf_release(&t);
		callus_buf_release(&k);
		free(env);
		return CALLUS_ENOMEM;
	}
	env[j++] = *timeout_var = callus_buf_detach(&t);
	if (k.len)
		env[j++] = *key_var = callus_buf_detach(&k);
	env[j] = NULL;
	*envp = env;
	return 0;
}

/* ---- one batch ---------------------------------------------------------- */

/* texts as a JSON array of strings, invalid UTF-8 replaced (jansson, like
 * the server, wants valid UTF-8).  Caller frees *out. */
static int texts_json(char **out, const char *const *texts, size_t n)
{
	callus_buf clean = CALLUS_BUF_INIT;
	json_t *arr = json_array();
	size_t i;
	int rc = CALLUS_ENOMEM;

	*out = NULL;
	if (!arr)
		goto out;
	for (i = 0; i < n; i++) {
		const char *s = texts[i] ? texts[i] : "";

		callus_buf_clear(&clean);
		if (callus_utf8_sanitize(&clean, s, strlen(s)) < 0 ||
		    json_array_append_new(arr, json_stringn(clean.ptr, clean.len)) < 0)
			goto out;
	}
	if ((*out = json_dumps(arr, JSON_COMPACT)))
		rc = 0;
out:
	json_decref(arr);
	callus_buf_release(&clean);
	return rc;
}

static float get_le32(const unsigned char *p)
{
	uint32_t u = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
		     (uint32_t)p[3] << 24;
	float f;

	memcpy(&f, &u, sizeof f);
	return f;
}

/* A decimal number in s[0..len) into *out: digits only. */
static int parse_size(size_t *out, const char *s, size_t len)
{
	size_t v = 0, i;

	if (len == 0 || len > 9)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (size_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/*
 * What the helper printed for n texts: "callus-embed N DIM\n" and N * DIM
 * floats, nothing more.  *vecs (n * *dim floats, normalized) is the
 * caller's.
 */
static int parse_result(float **vecs, size_t *dim, const callus_buf *res, size_t n,
			callus_error *err)
{
	const char *p = res->ptr, *nl = memchr(res->ptr, '\n', res->len < HEADER_MAX ?
								 res->len : HEADER_MAX);
	const char *sp;
	const unsigned char *data;
	size_t got_n = 0, d = 0, total, bytes, i, j;
	float *v = NULL;

	*vecs = NULL;
	static const char magic[] = "callus-embed ";

	if (!nl || strncmp(p, magic, sizeof(magic) - 1) != 0)
		goto bad;
	p += sizeof(magic) - 1;
	sp = memchr(p, ' ', (size_t)(nl - p));
	if (!sp || parse_size(&got_n, p, (size_t)(sp - p)) < 0 ||
	    parse_size(&d, sp + 1, (size_t)(nl - sp - 1)) < 0)
		goto bad;
	if (got_n != n || d == 0 || d > CALLUS_EMBED_REMOTE_DIM_MAX)
		goto bad;
	/* n <= BATCH_MAX and d <= DIM_MAX: no overflow. */
	total = n * d;
	bytes = total * 4;
	data = (const unsigned char *)nl + 1;
	if ((size_t)(res->ptr + res->len - (const char *)data) != bytes)
		goto bad;
	if (!(v = malloc(total * sizeof *v)))
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		float *row = v + i * d;
		double sum = 0;

		for (j = 0; j < d; j++) {
			row[j] = get_le32(data + 4 * (i * d + j));
			sum += (double)row[j] * row[j];
		}
		if (!isfinite(sum)) {
			free(v);
			return callus_error_set(err, CALLUS_EIO,
					      "the embedding server sent a vector that is not finite");
		}
		/* A zero vector stays zero: similar to nothing, which is what
		 * it says. */
		if (sum > 0) {
			double inv = 1.0 / sqrt(sum);

			for (j = 0; j < d; j++)
				row[j] = (float)(row[j] * inv);
		}
	}
	*vecs = v;
	*dim = d;
	return 0;
bad:
	/* Quote the start of the first line: the rest may be binary. */
	i = strcspn(res->ptr, "\n");
	return callus_error_set(err, CALLUS_EIO, "embedding helper printed something unexpected: '%.*s'",
			      (int)(i < 64 ? i : 64), res->ptr);
}

static int embed_batch(float **vecs, size_t *dim, const char *const *texts, size_t n,
		       char *const *argv, char *const *envp, int timeout_ms, callus_error *err)
{
	callus_child_opts co = { WHAT, argv, envp, NULL, 0, 0, 0, 0 };
	callus_buf res = CALLUS_BUF_INIT;
	char *input = NULL;
	int rc;

	*vecs = NULL;
	if ((rc = texts_json(&input, texts, n)) < 0)
		return callus_error_set(err, rc, "out of memory");
	co.input = input;
	co.input_len = strlen(input);
	co.out_max = HEADER_MAX + n * CALLUS_EMBED_REMOTE_DIM_MAX * 4;
	co.timeout_ms = timeout_ms + KILL_SLACK_MS;
	rc = callus_child_run(&res, &co, err);
	if (rc == 0)
		rc = parse_result(vecs, dim, &res, n, err);
	callus_buf_release(&res);
	free(input);
	return rc;
}

/* ---- the API ------------------------------------------------------------ */

int callus_embed_remote(float **out, size_t *dim, const char *const *texts, size_t n,
		      const callus_embed_remote_opts *opts, callus_error *err)
{
	char *own = NULL, *key_var = NULL, *timeout_var = NULL;
	char **envp = NULL;
	char *argv[4] = { NULL };
	float *all = NULL, *vecs = NULL;
	size_t d = 0, done, total;
	int timeout_ms, rc = 0;

	*out = NULL;
	*dim = 0;
	if (!opts || !opts->url || !*opts->url || !opts->model || !*opts->model)
		return callus_error_set(err, CALLUS_EINVAL,
				      "the external embedder needs a url and a model");
	if (n == 0)
		return 0;
	timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : CALLUS_EMBED_REMOTE_TIMEOUT_MS;
	if (timeout_ms > TIMEOUT_MAX_MS)
		timeout_ms = TIMEOUT_MAX_MS;
	argv[0] = opts->helper ? (char *)opts->helper : (own = callus_embed_remote_helper());
	if (!argv[0]) {
		rc = callus_error_set(err, CALLUS_ENOTFOUND, "cannot find the embedding helper callus-embed");
		goto out;
	}
	argv[1] = (char *)opts->url;
	argv[2] = (char *)opts->model;
	if ((rc = child_env(&envp, &key_var, &timeout_var, opts, timeout_ms)) < 0) {
		rc = callus_error_set(err, rc, "out of memory");
		goto out;
	}
	for (done = 0; done < n; done += CALLUS_EMBED_REMOTE_BATCH_MAX) {
		size_t batch = n - done < CALLUS_EMBED_REMOTE_BATCH_MAX ? n - done
								       : CALLUS_EMBED_REMOTE_BATCH_MAX;
		size_t bd = 0;

		rc = embed_batch(&vecs, &bd, texts + done, batch, argv, envp, timeout_ms, err);
		if (rc < 0)
			goto out;
		if (!all) {
			d = bd;
			if (callus_size_mul(&total, n, d) < 0 ||
			    callus_size_mul(&total, total, sizeof *all) < 0 || !(all = malloc(total))) {
				rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
				goto out;
			}
		} else if (bd != d) {
			rc = callus_error_set(err, CALLUS_EIO,
					    "the embedding server changed dimension from %zu to %zu",
					    d, bd);
			goto out;
		}
		memcpy(all + done * d, vecs, batch * d * sizeof *all);
		free(vecs);
		vecs = NULL;
	}
	*out = all;
	*dim = d;
	all = NULL;
out:
	if (key_var) {
		/* Not left lying in freed memory, which a core dump would keep. */
		memset(key_var, 0, strlen(key_var));
		free(key_var);
	}
	free(timeout_var);
	free(envp);
	free(vecs);
	free(all);
	free(own);
	return rc;
}

/* A timeout in milliseconds from the environment: digits only, in range. */
static int env_timeout(int *out, const char *s)
{
	size_t v = 0;

	if (parse_size(&v, s, strlen(s)) < 0 || v < 1 || v > TIMEOUT_MAX_MS)
		return -1;
	*out = (int)v;
	return 0;
}

static const char *env_or_config(const char *env, const callus_config *cfg, const char *key)
{
	const char *v = getenv(env);

	if (v && *v)
		return v;
	v = callus_config_get(cfg, "embed", key);
	return v && *v ? v : NULL;
}

static int is_http_url(const char *url)
{
	return !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
}

int callus_embed_remote_config(callus_embed_remote_opts *out, const callus_config *cfg,
			     callus_error *err)
{
	callus_embed_remote_opts o = CALLUS_EMBED_REMOTE_OPTS_INIT;
	const callus_config_entry *key_entry;
	const char *s;
	long t = CALLUS_EMBED_REMOTE_TIMEOUT_MS;
	int rc;

	*out = o;
	/*
	 * The key is read from the environment only, never from the config
	 * file: .callus/config lives in the workspace and gets committed with
	 * it, and a key in it would be published with the repository.  One
	 * found there is refused rather than ignored, so that its owner
	 * notices it and revokes it.
	 */
	key_entry = callus_config_lookup(cfg, "embed", "api_key");
	if (!key_entry)
		key_entry = callus_config_lookup(cfg, "embed", "key");
	if (key_entry)
		return callus_error_set(err, CALLUS_EINVAL,
				      "'%s' line %u: '%s.%s' is not read: config files get "
				      "committed; set CALLUS_EMBED_API_KEY instead",
				      callus_config_name(cfg), key_entry->line, key_entry->section,
				      key_entry->key);
	o.url = env_or_config("CALLUS_EMBED_URL", cfg, "url");
	o.model = env_or_config("CALLUS_EMBED_MODEL", cfg, "model");
	if (!o.url)
		return 0;
	if (!is_http_url(o.url))
		return callus_error_set(err, CALLUS_EINVAL,
				      "the embedder url must start with http:// or https://");
	if (!o.model)
		return callus_error_set(err, CALLUS_EINVAL,
				      "an embedder url is set but no model: set 'embed.model' "
				      "or CALLUS_EMBED_MODEL");
	s = getenv(TIMEOUT_ENV);
	if (s && *s) {
		if (env_timeout(&o.timeout_ms, s) < 0)
			return callus_error_set(err, CALLUS_EINVAL,
					      TIMEOUT_ENV " must be a number of milliseconds "
					      "from 1 to %ld, got '%s'", TIMEOUT_MAX_MS, s);
	} else {
		rc = callus_config_get_long(&t, cfg, "embed", "timeout_ms",
					  CALLUS_EMBED_REMOTE_TIMEOUT_MS, 1, TIMEOUT_MAX_MS, err);
		if (rc < 0)
			return rc;
		o.timeout_ms = (int)t;
	}
	s = getenv(KEY_ENV);
	o.api_key = s && *s ? s : NULL;
	*out = o;
	return 1;
}

int callus_embed_remote_model_id(char **out, const char *url, const char *model,
			       callus_error *err)
{
	callus_buf b = CALLUS_BUF_INIT;
	const char *host, *end, *at;
	size_t i;

	*out = NULL;
	if (!url || !model || !*model)
		return callus_error_set(err, CALLUS_EINVAL, "an embedder needs a url and a model");
	host = strstr(url, "://");
	if (!host)
		return callus_error_set(err, CALLUS_EINVAL, "the embedder url has no scheme");
	host += 3;
	end = host + strcspn(host, "/?#");
	/* user:password@ is a credential, not part of the server's name. */
	for (at = end; at > host && at[-1] != '@'; at--)
		;
	if (at > host)
		host = at;
	if (end == host)
		return callus_error_set(err, CALLUS_EINVAL, "the embedder url has no host");
	callus_buf_puts(&b, "openai:");
	callus_buf_puts(&b, model);
	callus_buf_putc(&b, '@');
	for (i = 0; host + i < end; i++)
		callus_buf_putc(&b, (char)tolower((unsigned char)host[i]));
	if (callus_buf_status(&b) < 0) {
		callus_buf_release(&b);
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	}
	*out = callus_buf_detach(&b);
	return 0;
}
