/*
 * embed_remote.h - the external embedder: any OpenAI-compatible
 * /v1/embeddings endpoint (a local Ollama or llama.cpp server, or a hosted
 * API), configured instead of the built-in one (DESIGN §5).
 *
 * The HTTP request is made by a helper program, callus-embed
 * (helper/callus-embed.c), run as a child process (include/callus/child.h):
 * libcurl and the TLS libraries it loads would otherwise be mapped at every
 * start of callus, and the hook runs after every shell command an agent
 * executes.  Even so, a request takes network time: the hook must never
 * call this; new errors are embedded later, with the built-in embedder
 * used meanwhile.
 */
#ifndef CALLUS_EMBED_REMOTE_H
#define CALLUS_EMBED_REMOTE_H

#include <stddef.h>

#include "callus/common.h"
#include "callus/config.h"

/* Texts per request; callus_embed_remote() splits longer lists. */
#define CALLUS_EMBED_REMOTE_BATCH_MAX 256
/* Larger vectors are refused (today's models have up to a few thousand). */
#define CALLUS_EMBED_REMOTE_DIM_MAX 16384
#define CALLUS_EMBED_REMOTE_TIMEOUT_MS 10000

/* Borrowed strings: they must outlive the calls that use the options. */
typedef struct callus_embed_remote_opts {
	const char *helper;  /* path of callus-embed; NULL: callus_embed_remote_helper() */
	const char *url;     /* the whole endpoint: http://127.0.0.1:11434/v1/embeddings */
	const char *model;   /* as the server names it: "nomic-embed-text" */
	const char *api_key; /* sent as a Bearer token; NULL: none.  Reaches the
			      * helper through its environment, never its
			      * command line, and appears in no message */
	int timeout_ms;      /* per request; <= 0: CALLUS_EMBED_REMOTE_TIMEOUT_MS */
} callus_embed_remote_opts;

#define CALLUS_EMBED_REMOTE_OPTS_INIT { NULL, NULL, NULL, NULL, 0 }

/*
 * The helper's path: $CALLUS_EMBED_HELPER when set, else callus-embed in the
 * directory of the running executable.  Caller frees; NULL when out of
 * memory or the executable's path is unknown.
 */
char *callus_embed_remote_helper(void);

/*
 * Embed texts[0..n) (NUL-terminated; bytes that are not UTF-8 are sent as
 * U+FFFD).  *out receives n * *dim floats, text i's vector at
 * (*out)[i * *dim], each L2-normalized so that cosine similarity is a dot
 * product; the caller frees *out with free().  n == 0 gives *out NULL and
 * *dim 0 without running anything.
 *
 * CALLUS_EINVAL: no url or model, or the helper refused its input;
 * CALLUS_ENOTFOUND: no helper; CALLUS_EIO: the server could not be reached,
 * answered other than 200, timed out (the helper is killed a little after
 * timeout_ms), or sent something that is not a list of n vectors of one
 * dimension (err says which, quoting the helper).  On error *out is NULL.
 */
int callus_embed_remote(float **out, size_t *dim, const char *const *texts, size_t n,
		      const callus_embed_remote_opts *opts, callus_error *err);

/*
 * Fill *out from the configuration and the environment:
 *   url         CALLUS_EMBED_URL, else [embed] url
 *   model       CALLUS_EMBED_MODEL, else [embed] model
 *   timeout_ms  CALLUS_EMBED_TIMEOUT_MS, else [embed] timeout_ms
 *   api_key     CALLUS_EMBED_API_KEY only
 * helper is left NULL.  Strings are borrowed from cfg (valid until
 * callus_config_free) and from the environment (valid until it changes).
 * cfg may be NULL.
 *
 * 1 when an external embedder is configured (url and model both set), 0
 * when not (url unset: the built-in embedder is the one to use).
 * CALLUS_EINVAL when the configuration is half there or wrong: a url without
 * a model, a url that is not http:// or https://, a timeout that is not a
 * number of milliseconds.
 */
int callus_embed_remote_config(callus_embed_remote_opts *out, const callus_config *cfg,
			     callus_error *err);

/*
 * The model id stored with the vectors this embedder makes:
 * "openai:" MODEL "@" HOST, HOST being the url's host and port, lower case,
 * without user name or password: the same model name served by two
 * servers may be two different models, while the path is the same API.
 * Caller frees *out.  CALLUS_EINVAL when url or model is missing or the url
 * has no host.
 */
int callus_embed_remote_model_id(char **out, const char *url, const char *model,
			       callus_error *err);

#endif
