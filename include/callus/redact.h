/*
 * redact.h - remove secrets from tool output before it is stored or written
 * anywhere (store, lesson Markdown, AGENTS.md, logs).
 *
 * Each secret is replaced by "[REDACTED:<kind>]".  Kinds:
 *
 *   github-token    ghp_ gho_ ghu_ ghs_ ghr_ github_pat_
 *   gitlab-token    glpat- gloas- gldt- glrt- glcbt- glptt- glft- ...
 *   aws-key         AKIA/ASIA/ABIA/ACCA access key ids
 *   aws-secret      the value of aws_secret_access_key
 *   slack-token     xoxb- xoxp- xoxa- xoxr- xoxs- xoxe- xapp-
 *   slack-webhook   the path of https://hooks.slack.com/services/...
 *   npm-token       npm_
 *   openai-key      sk-, sk-proj-, ...
 *   anthropic-key   sk-ant-
 *   google-api-key  AIza
 *   stripe-key      sk_live_ rk_live_ sk_test_ rk_test_
 *   jwt             eyJ<header>.<payload>.<signature>
 *   private-key     a PEM "-----BEGIN ... PRIVATE KEY-----" block through
 *                   its END line, or to the end of the input if unterminated
 *   url-password    the password of scheme://user:password@host
 *   auth-header     the credentials of "Authorization: <scheme> <creds>"
 *   bearer-token    the token after a bare "Bearer "
 *   secret-assignment  the value of NAME=value, NAME: value, "NAME": "value"
 *                   where NAME ends in TOKEN, SECRET, PASSWORD, PASSWD or a
 *                   separated KEY (API_KEY, apiKey, x-api-key)
 *
 * What is kept: the scheme, user (unless itself a token) and host of a URL,
 * the name of an assignment, the scheme word of an Authorization header,
 * so that a lesson still says what was wrong.  What is deliberately not
 * redacted: empty values, placeholders (${X}, $X, <x>, ***, {{x}}), quoted
 * values containing spaces (prose such as "must be 8 chars"), code
 * (get_token(), self.token, TOKEN_EXPIRED), type annotations (token:
 * string), and anything without a known prefix or name, so git SHAs, UUIDs
 * and hex or base64 digests survive.  Redaction is idempotent: redacting
 * redacted text changes nothing.
 */
#ifndef CALLUS_REDACT_H
#define CALLUS_REDACT_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"

/* Immutable after creation: one redactor may be shared by any number of
 * threads without locking. */
typedef struct callus_redactor callus_redactor;

/* Create a redactor into *out (the caller's; free it with
 * callus_redactor_free()).  Fails with CALLUS_ENOMEM, or CALLUS_EINVAL for a NULL
 * out. */
int callus_redactor_new(callus_redactor **out, callus_error *err);

/* Accepts NULL. */
void callus_redactor_free(callus_redactor *r);

/*
 * Append in[0..len) to out with every secret replaced.  The input may hold
 * any bytes (NUL, invalid UTF-8); bytes that are not part of a secret are
 * copied unchanged.  The output grows by at most 28 bytes per input byte
 * (a one-byte password becomes "[REDACTED:secret-assignment]").  If count
 * is not NULL it receives the number of replacements.
 * Returns 0, CALLUS_EINVAL (NULL r or out, or NULL in with len > 0),
 * CALLUS_ENOMEM, or CALLUS_ETOOBIG when out has a limit; on failure out is left
 * as it was and *count is 0.
 */
int callus_redact(const callus_redactor *r, callus_buf *out, const char *in,
		size_t len, size_t *count);

/* Redacted copy of the NUL-terminated in, in a malloc'd string that the
 * caller frees; a NULL in gives *out = NULL and returns 0. */
int callus_redact_str(const callus_redactor *r, char **out, const char *in);

#endif
