/*
 * redact.h - remove secrets from tool output before it is stored or written
 * anywhere (store, lesson Markdown, AGENTS.md, logs).
 *
 * Each secret is replaced by "[REDACTED:<kind>]", the kind at most 17
 * bytes.  What is recognised (docs/redaction.md lists every format, and
 * tests/fixtures/secrets/formats.tsv plants each one):
 *
 *   by shape      tokens with a vendor's prefix (170 prefixes: GitHub, GitLab,
 *                 AWS, Slack, OpenAI, Anthropic, Stripe, SendGrid, Hugging
 *                 Face, Shopify, Vault, PyPI, npm, DigitalOcean, ...; kinds
 *                 such as github-token, aws-key, stripe-key), Telegram and
 *                 Discord bot tokens, Azure AD client secrets, age keys,
 *                 JWTs (jwt), PEM private key blocks (private-key, through
 *                 the END line or the end of the input), webhook URLs
 *                 (slack-webhook, discord-webhook, teams-webhook), bare
 *                 "Bearer <token>" (bearer-token)
 *   in URLs       the password of scheme://user:password@host of any scheme
 *                 (url-password), a user that is itself a key, as in a
 *                 Sentry DSN (url-token)
 *   by name       the value of NAME=value, NAME: value, "NAME": "value",
 *                 <NAME>value</NAME> where NAME ends in TOKEN, SECRET,
 *                 PASSWORD, PASSWD, PASSPHRASE, PASS, PWD, a separated KEY
 *                 (API_KEY, apiKey, AccountKey), AUTH or CREDENTIALS (when the
 *                 value looks like one), and sig/signature in a query
 *                 (secret-assignment, aws-secret); connection strings
 *                 (Password=...;) end at ';'; an Authorization header's
 *                 credentials (auth-header); Cookie and Set-Cookie values
 *                 (cookie)
 *   by option     the value of --password, --token, --secret, --api-key,
 *                 --auth... (and =, and single-dash -password forms) in any
 *                 tool, the password of -u/--user user:password, and short
 *                 options that carry a password in a known tool: mysql -pX,
 *                 docker login -p X, sshpass -p, redis-cli -a, ldapsearch
 *                 -w, zip -P, openssl -passin pass:X, ... (cli-password);
 *                 "password X" in a .netrc and "config set NAME X"
 *
 * Shell quoting is read where a value is: single quotes with '\'' inside,
 * double quotes, $'...', and quoting nested in sh -c '...'.
 *
 * What is kept: the scheme, user (unless itself a token) and host of a URL,
 * the name of an assignment or option, the scheme word of an Authorization
 * header, the quotes around a value, so that a lesson still says what was
 * wrong.  What is deliberately not redacted: empty values, placeholders
 * (${X}, $X, <x>, ***, {{x}}), quoted values containing spaces after a ':'
 * (prose such as "must be 8 chars"), code (get_token(), self.token,
 * TOKEN_EXPIRED), type annotations (token: string), paths (./x, /run/x),
 * and anything without a known prefix, name or option, so git SHAs, UUIDs,
 * hex or base64 digests and npm integrity strings survive.  Redaction is
 * idempotent: redacting redacted text changes nothing.
 */
#ifndef CALLUS_REDACT_H
#define CALLUS_REDACT_H

#include <stddef.h>

#include "callus/buf.h"
#include "callus/common.h"

/* The redactor's version, raised whenever it comes to find what it did
 * not, or the pass over a store (store_redact.h) to redact or follow what
 * it did not: a store gone over whole by an older one is gone over again.
 * 1: the 220 formats of tests/fixtures/secrets/.  2: a signature's frames
 * and its id (store_resign.h), the layers' notes as pulled before they
 * were redacted on the way in.  3: the 286 formats (SQL's passwords,
 * typed and grouped declarations, wrapped values, environment entries
 * named by a sibling, YAML blocks, Terraform's changes, fallbacks). */
#define CALLUS_REDACT_VERSION 3

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

/* The text of the NUL-terminated in as callus stores it: cleaned
 * (callus/cleantext.h: no terminal escapes, visible bidi controls), then
 * redacted, in a malloc'd string that the caller frees; a NULL in gives
 * *out = NULL and returns 0. */
int callus_redact_str(const callus_redactor *r, char **out, const char *in);
/* The same text appended to out escaped as a JSON string's contents
 * (callus_buf_put_json_chars): a hook's megabyte of output goes into its
 * queue entry without a redacted copy of its own first.  0, CALLUS_EINVAL
 * (a NULL argument), CALLUS_ENOMEM or CALLUS_ETOOBIG (out as it was). */
int callus_redact_str_json(const callus_redactor *r, callus_buf *out, const char *in);

/* A jansson value (jansson.h), kept opaque here: most users of the
 * redactor never read JSON. */
struct json_t;

/*
 * Every string of the JSON value v (keys are left: callus names them)
 * redacted in place as callus_redact_str() makes a stored text; *changed
 * is set to 1 when one changed and left as it was otherwise.  For JSON
 * stored before today's redactor (store_redact.h, the log).  Returns 0 or
 * CALLUS_ENOMEM; on failure the strings done so far stay redacted.
 */
int callus_redact_json(const callus_redactor *r, struct json_t *v, int *changed);

/*
 * A stored text as today's redactor stores it, for text stored by an
 * older one (store_redact.h, the log, a layer's notes): with json, the
 * strings of the JSON value it holds redacted one by one and written back
 * compact (jansson's dump flags json_flags added: JSON_ENSURE_ASCII, say);
 * else, or when it is not JSON, the whole text as callus_redact_str()
 * makes it.  *out: the new text (the caller frees it), or NULL when
 * nothing in it changed.  0 or CALLUS_ENOMEM.
 */
int callus_redact_again(const callus_redactor *r, const char *text, int json, size_t json_flags,
			char **out);

/* *text (malloc'd; NULL is left) replaced by callus_redact_str()'s copy.
 * 0 or CALLUS_ENOMEM (*text then as it was). */
int callus_redact_in_place(const callus_redactor *r, char **text);

/*
 * Append the command line argv[0..argc) to out as a POSIX shell reads it
 * back (words one space apart, each quoted as callus_shell_quote() does),
 * each word cleaned (callus/cleantext.h), with every secret replaced.  Each word is redacted before it is quoted,
 * with what the words before it say: the tool they run (mysql -pX), an
 * option whose value is this word (--password X, -u user:X).  If count is
 * not NULL it receives the number of replacements.  Returns 0,
 * CALLUS_EINVAL (NULL r, out or word), CALLUS_ENOMEM or CALLUS_ETOOBIG; on
 * failure out is left as it was.
 */
int callus_redact_argv(const callus_redactor *r, callus_buf *out, size_t argc,
		       const char *const *argv, size_t *count);

#endif
