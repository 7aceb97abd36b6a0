/*
 * embed_remote.c - the external embedder through the deja-embed helper
 * (include/deja/embed_remote.h; the helper's protocol is described at the
 * top of helper/deja-embed.c).
 *
 * The texts go to the helper's stdin as a JSON array, the key and the
 * timeout through its environment; what it prints is checked strictly
 * (count, dimension, length to the byte) before any vector is believed,
 * and normalized here so that every caller gets unit vectors whatever the
 * server does.
 */
#include "deja/embed_remote.h"
#include "deja/buf.h"
#include "deja/child.h"
#include "deja/common.h"
#include "deja/config.h"
#include "deja/utf8.h"

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
#define KEY_ENV "DEJA_EMBED_API_KEY"
#define TIMEOUT_ENV "DEJA_EMBED_TIMEOUT_MS"
#define TIMEOUT_MAX_MS 3600000L
/* The helper enforces timeout_ms on the request itself; this much more is
 * for its start and for parsing the response before deja kills it. */
#define KILL_SLACK_MS 1000
/* "deja-embed N DIM\n" */
#define HEADER_MAX 64

char *deja_embed_remote_helper(void)
{
	return deja_child_sibling("DEJA_EMBED_HELPER", "deja-embed");
}

/* ---- the helper's environment ------------------------------------------ */

/*
 * The caller's environment without any DEJA_EMBED_API_KEY or
 * DEJA_EMBED_TIMEOUT_MS, plus ours: the options are the one source of the
 * key, so a key exported for some other purpose is not sent unasked.
 * *envp borrows environ's strings and owns the two it adds (key_var,
 * timeout_var), which the caller frees (key_var wiped first).
 */
static int child_env(char ***envp, char **key_var, char **timeout_var,
		     const deja_embed_remote_opts *opts, int timeout_ms)
{
	deja_buf k = DEJA_BUF_INIT, t = DEJA_BUF_INIT;
	size_t n = 0, i, j = 0;
	char **env;

	*envp = NULL;
	*key_var = *timeout_var = NULL;
	while (environ && environ[n])
		n++;
	if (!(env = calloc(n + 3, sizeof *env)))
		return DEJA_ENOMEM;
	for (i = 0; i < n; i++) {
		if (!strncmp(environ[i], KEY_ENV "=", sizeof KEY_ENV) ||
		    !strncmp(environ[i], TIMEOUT_ENV "=", sizeof TIMEOUT_ENV))
			continue;
		env[j++] = environ[i];
	}
	deja_buf_printf(&t, TIMEOUT_ENV "=%d", timeout_ms);
	if (opts->api_key && *opts->api_key)
		deja_buf_printf(&k, KEY_ENV "=%s", opts->api_key);
	if (deja_buf_status(&t) < 0 || deja_buf_status(&k) < 0) {
		deja_buf_release(&t);
		deja_buf_release(&k);
		free(env);
		return DEJA_ENOMEM;
	}
	env[j++] = *timeout_var = deja_buf_detach(&t);
	if (k.len)
		env[j++] = *key_var = deja_buf_detach(&k);
	env[j] = NULL;
	*envp = env;
	return 0;
}

/* ---- one batch ---------------------------------------------------------- */

/* texts as a JSON array of strings, invalid UTF-8 replaced (jansson, like
 * the server, wants valid UTF-8).  Caller frees *out. */
static int texts_json(char **out, const char *const *texts, size_t n)
{
	deja_buf clean = DEJA_BUF_INIT;
	json_t *arr = json_array();
	size_t i;
	int rc = DEJA_ENOMEM;

	*out = NULL;
	if (!arr)
		goto out;
	for (i = 0; i < n; i++) {
		const char *s = texts[i] ? texts[i] : "";

		deja_buf_clear(&clean);
		if (deja_utf8_sanitize(&clean, s, strlen(s)) < 0 ||
		    json_array_append_new(arr, json_stringn(clean.ptr, clean.len)) < 0)
			goto out;
	}
	if ((*out = json_dumps(arr, JSON_COMPACT)))
		rc = 0;
out:
	json_decref(arr);
	deja_buf_release(&clean);
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
 * What the helper printed for n texts: "deja-embed N DIM\n" and N * DIM
 * floats, nothing more.  *vecs (n * *dim floats, normalized) is the
 * caller's.
 */
static int parse_result(float **vecs, size_t *dim, const deja_buf *res, size_t n,
			deja_error *err)
{
	const char *p = res->ptr, *nl = memchr(res->ptr, '\n', res->len < HEADER_MAX ?
								 res->len : HEADER_MAX);
	const char *sp;
	const unsigned char *data;
	size_t got_n = 0, d = 0, total, bytes, i, j;
	float *v = NULL;

	*vecs = NULL;
	if (!nl || strncmp(p, "deja-embed ", 11) != 0)
		goto bad;
	p += 11;
	sp = memchr(p, ' ', (size_t)(nl - p));
	if (!sp || parse_size(&got_n, p, (size_t)(sp - p)) < 0 ||
	    parse_size(&d, sp + 1, (size_t)(nl - sp - 1)) < 0)
		goto bad;
	if (got_n != n || d == 0 || d > DEJA_EMBED_REMOTE_DIM_MAX)
		goto bad;
	/* n <= BATCH_MAX and d <= DIM_MAX: no overflow. */
	total = n * d;
	bytes = total * 4;
	data = (const unsigned char *)nl + 1;
	if ((size_t)(res->ptr + res->len - (const char *)data) != bytes)
		goto bad;
	if (!(v = malloc(total * sizeof *v)))
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		float *row = v + i * d;
		double sum = 0;

		for (j = 0; j < d; j++) {
			row[j] = get_le32(data + 4 * (i * d + j));
			sum += (double)row[j] * row[j];
		}
		if (!isfinite(sum)) {
			free(v);
			return deja_error_set(err, DEJA_EIO,
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
	return deja_error_set(err, DEJA_EIO, "embedding helper printed something unexpected: '%.*s'",
			      (int)(i < 64 ? i : 64), res->ptr);
}

static int embed_batch(float **vecs, size_t *dim, const char *const *texts, size_t n,
		       char *const *argv, char *const *envp, int timeout_ms, deja_error *err)
{
	deja_child_opts co = { WHAT, argv, envp, NULL, 0, 0, 0 };
	deja_buf res = DEJA_BUF_INIT;
	char *input = NULL;
	int rc;

	*vecs = NULL;
	if ((rc = texts_json(&input, texts, n)) < 0)
		return deja_error_set(err, rc, "out of memory");
	co.input = input;
	co.input_len = strlen(input);
	co.out_max = HEADER_MAX + n * DEJA_EMBED_REMOTE_DIM_MAX * 4;
	co.timeout_ms = timeout_ms + KILL_SLACK_MS;
	rc = deja_child_run(&res, &co, err);
	if (rc == 0)
		rc = parse_result(vecs, dim, &res, n, err);
	deja_buf_release(&res);
	free(input);
	return rc;
}

/* ---- the API ------------------------------------------------------------ */

int deja_embed_remote(float **out, size_t *dim, const char *const *texts, size_t n,
		      const deja_embed_remote_opts *opts, deja_error *err)
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
		return deja_error_set(err, DEJA_EINVAL,
				      "the external embedder needs a url and a model");
	if (n == 0)
		return 0;
	timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : DEJA_EMBED_REMOTE_TIMEOUT_MS;
	if (timeout_ms > TIMEOUT_MAX_MS)
		timeout_ms = TIMEOUT_MAX_MS;
	argv[0] = opts->helper ? (char *)opts->helper : (own = deja_embed_remote_helper());
	if (!argv[0]) {
		rc = deja_error_set(err, DEJA_ENOTFOUND, "cannot find the embedding helper deja-embed");
		goto out;
	}
	argv[1] = (char *)opts->url;
	argv[2] = (char *)opts->model;
	if ((rc = child_env(&envp, &key_var, &timeout_var, opts, timeout_ms)) < 0) {
		rc = deja_error_set(err, rc, "out of memory");
		goto out;
	}
	for (done = 0; done < n; done += DEJA_EMBED_REMOTE_BATCH_MAX) {
		size_t batch = n - done < DEJA_EMBED_REMOTE_BATCH_MAX ? n - done
								       : DEJA_EMBED_REMOTE_BATCH_MAX;
		size_t bd = 0;

		rc = embed_batch(&vecs, &bd, texts + done, batch, argv, envp, timeout_ms, err);
		if (rc < 0)
			goto out;
		if (!all) {
			d = bd;
			if (deja_size_mul(&total, n, d) < 0 ||
			    deja_size_mul(&total, total, sizeof *all) < 0 || !(all = malloc(total))) {
				rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
				goto out;
			}
		} else if (bd != d) {
			rc = deja_error_set(err, DEJA_EIO,
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

static const char *env_or_config(const char *env, const deja_config *cfg, const char *key)
{
	const char *v = getenv(env);

	if (v && *v)
		return v;
	v = deja_config_get(cfg, "embed", key);
	return v && *v ? v : NULL;
}

static int is_http_url(const char *url)
{
	return !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
}

int deja_embed_remote_config(deja_embed_remote_opts *out, const deja_config *cfg,
			     deja_error *err)
{
	deja_embed_remote_opts o = DEJA_EMBED_REMOTE_OPTS_INIT;
	const deja_config_entry *key_entry;
	const char *s;
	long t = DEJA_EMBED_REMOTE_TIMEOUT_MS;
	int rc;

	*out = o;
	/*
	 * The key is read from the environment only, never from the config
	 * file: .deja/config lives in the workspace and gets committed with
	 * it, and a key in it would be published with the repository.  One
	 * found there is refused rather than ignored, so that its owner
	 * notices it and revokes it.
	 */
	key_entry = deja_config_lookup(cfg, "embed", "api_key");
	if (!key_entry)
		key_entry = deja_config_lookup(cfg, "embed", "key");
	if (key_entry)
		return deja_error_set(err, DEJA_EINVAL,
				      "'%s' line %u: '%s.%s' is not read: config files get "
				      "committed; set DEJA_EMBED_API_KEY instead",
				      deja_config_name(cfg), key_entry->line, key_entry->section,
				      key_entry->key);
	o.url = env_or_config("DEJA_EMBED_URL", cfg, "url");
	o.model = env_or_config("DEJA_EMBED_MODEL", cfg, "model");
	if (!o.url)
		return 0;
	if (!is_http_url(o.url))
		return deja_error_set(err, DEJA_EINVAL,
				      "the embedder url must start with http:// or https://");
	if (!o.model)
		return deja_error_set(err, DEJA_EINVAL,
				      "an embedder url is set but no model: set 'embed.model' "
				      "or DEJA_EMBED_MODEL");
	s = getenv(TIMEOUT_ENV);
	if (s && *s) {
		if (env_timeout(&o.timeout_ms, s) < 0)
			return deja_error_set(err, DEJA_EINVAL,
					      TIMEOUT_ENV " must be a number of milliseconds "
					      "from 1 to %ld, got '%s'", TIMEOUT_MAX_MS, s);
	} else {
		rc = deja_config_get_long(&t, cfg, "embed", "timeout_ms",
					  DEJA_EMBED_REMOTE_TIMEOUT_MS, 1, TIMEOUT_MAX_MS, err);
		if (rc < 0)
			return rc;
		o.timeout_ms = (int)t;
	}
	s = getenv(KEY_ENV);
	o.api_key = s && *s ? s : NULL;
	*out = o;
	return 1;
}

int deja_embed_remote_model_id(char **out, const char *url, const char *model,
			       deja_error *err)
{
	deja_buf b = DEJA_BUF_INIT;
	const char *host, *end, *at;
	size_t i;

	*out = NULL;
	if (!url || !model || !*model)
		return deja_error_set(err, DEJA_EINVAL, "an embedder needs a url and a model");
	host = strstr(url, "://");
	if (!host)
		return deja_error_set(err, DEJA_EINVAL, "the embedder url has no scheme");
	host += 3;
	end = host + strcspn(host, "/?#");
	/* user:password@ is a credential, not part of the server's name. */
	for (at = end; at > host && at[-1] != '@'; at--)
		;
	if (at > host)
		host = at;
	if (end == host)
		return deja_error_set(err, DEJA_EINVAL, "the embedder url has no host");
	deja_buf_puts(&b, "openai:");
	deja_buf_puts(&b, model);
	deja_buf_putc(&b, '@');
	for (i = 0; host + i < end; i++)
		deja_buf_putc(&b, (char)tolower((unsigned char)host[i]));
	if (deja_buf_status(&b) < 0) {
		deja_buf_release(&b);
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	}
	*out = deja_buf_detach(&b);
	return 0;
}
