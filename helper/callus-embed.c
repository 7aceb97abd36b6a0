/*
 * callus-embed.c - one request to an OpenAI-compatible /v1/embeddings
 * endpoint (include/callus/embed_remote.h), as a program of its own so that
 * callus never maps libcurl and the TLS libraries it loads: src/embed_remote.c
 * runs it when texts need embedding, and nothing else does.
 *
 * Protocol (private between src/embed_remote.c and this program; both
 * change together):
 *
 *   callus-embed URL MODEL
 *	stdin: a JSON array of 1 to CALLUS_EMBED_REMOTE_BATCH_MAX strings, the
 *	texts to embed.  POSTs {"model": MODEL, "input": [...]} to URL (the
 *	whole endpoint, http:// or https://; redirects are not followed, so
 *	the key never goes to a host it was not meant for).
 *
 *	Environment:
 *	  CALLUS_EMBED_API_KEY     sent as "Authorization: Bearer <key>" when
 *	                         set and not empty; never on the command line
 *	                         (any user can read another's argv), never
 *	                         printed
 *	  CALLUS_EMBED_TIMEOUT_MS  connect timeout and total timeout of the
 *	                         request, 1..3600000 (default 10000)
 *
 *	stdout on success, N the number of texts and DIM the dimension:
 *	    "callus-embed N DIM\n"
 *	followed by N * DIM IEEE-754 single-precision floats, little-endian,
 *	4 bytes each, text by text in input order, exactly as the server sent
 *	them (not normalized).  Raw floats rather than decimal text: exact, a
 *	quarter of the size, and no locale in the way of parsing.
 *
 * Exit status 0 on success; 1 after printing one line "callus-embed:
 * <message>" on stderr (the server unreachable or too slow, an HTTP status
 * other than 200 as "callus-embed: HTTP 401: <start of the body>", a response
 * that is not what the API describes); 2 on a usage error (arguments,
 * environment, stdin).  The body quoted in a message is at most
 * BODY_QUOTE_MAX bytes on one line, with the key and anything that looks
 * like a credential replaced by [REDACTED]: servers echo what they were
 * sent, and the message ends up in logs.
 */
#include <curl/curl.h>
#include <jansson.h>

#include "callus/embed_remote.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_FAIL 1
#define EXIT_USAGE 2

#define DEFAULT_TIMEOUT_MS 10000L
#define MAX_TIMEOUT_MS 3600000L

/* 256 texts of a few kilobytes each fit easily; anything far larger is a
 * mistake, not a batch. */
#define INPUT_MAX (64u << 20)
/* 256 vectors of CALLUS_EMBED_REMOTE_DIM_MAX numbers of ~20 characters each,
 * with room to spare. */
#define BODY_MAX (128u << 20)
#define BODY_QUOTE_MAX 200
/* How far into an error body redaction looks before the quote is cut: a
 * credential straddling the cut must still be recognised whole. */
#define BODY_SCAN_MAX 4096
/* Runs of token characters at least this long with letters and digits are
 * taken for credentials. */
#define SECRET_RUN_MIN 32

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *fmt, ...)
{
	va_list ap;

	fputs("callus-embed: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ---- a growable byte string --------------------------------------------- */

struct bytes {
	char *ptr;
	size_t len, cap, max;
	int too_big; /* a write past max was refused */
};

static int bytes_put(struct bytes *b, const void *data, size_t n)
{
	if (n > b->max - b->len) {
		b->too_big = 1;
		return -1;
	}
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(p = realloc(b->ptr, cap)))
			return -1;
		b->ptr = p;
		b->cap = cap;
	}
	memcpy(b->ptr + b->len, data, n);
	b->len += n;
	b->ptr[b->len] = '\0';
	return 0;
}

static int bytes_puts(struct bytes *b, const char *s)
{
	return bytes_put(b, s, strlen(s));
}

/* ---- redaction ---------------------------------------------------------- */

static int is_token_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/*
 * Does the run s[0..n) of token characters look like a credential: the
 * OpenAI key prefixes, or a long run mixing letters and digits (hex and
 * base64 keys, JWTs).  Plain words and model names are rarely that long.
 */
static int looks_secret(const char *s, size_t n)
{
	int letters = 0, digits = 0;
	size_t i;

	if (n > 3 && (!strncmp(s, "sk-", 3) || !strncmp(s, "sk_", 3)))
		return 1;
	if (n < SECRET_RUN_MIN)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits = 1;
		else if ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z'))
			letters = 1;
	}
	return letters && digits;
}

/*
 * The start of an error body fit to quote: on one line (control bytes as
 * spaces), the key (when there is one) and credential-like tokens, and
 * whatever follows the word "Bearer", replaced by [REDACTED], cut to
 * BODY_QUOTE_MAX bytes without splitting a UTF-8 sequence.  Never NULL
 * unless out of memory; the caller frees.
 */
static char *redact_quote(const char *body, size_t len, const char *key)
{
	struct bytes pass1 = { NULL, 0, 0, (size_t)-1, 0 }, out = { NULL, 0, 0, (size_t)-1, 0 };
	size_t klen = key ? strlen(key) : 0, i = 0;
	int after_bearer = 0;

	if (len > BODY_SCAN_MAX)
		len = BODY_SCAN_MAX;
	/* The key itself first: it may hold characters that the token rule
	 * below would split on. */
	while (i < len) {
		unsigned char c = (unsigned char)body[i];

		if (klen && len - i >= klen && !memcmp(body + i, key, klen)) {
			bytes_puts(&pass1, "[REDACTED]");
			i += klen;
			continue;
		}
		if (c < 0x20 || c == 0x7f)
			c = ' ';
		bytes_put(&pass1, &c, 1);
		i++;
	}
	bytes_puts(&pass1, "");
	if (!pass1.ptr)
		return NULL;
	for (i = 0; i < pass1.len;) {
		size_t j = i;

		while (j < pass1.len && is_token_char((unsigned char)pass1.ptr[j]))
			j++;
		if (j == i) {
			bytes_put(&out, pass1.ptr + i, 1);
			i++;
			continue;
		}
		if (j - i == 8 && !strncmp(pass1.ptr + i, "REDACTED", 8))
			bytes_puts(&out, "REDACTED"); /* the key, replaced above */
		else if (after_bearer || looks_secret(pass1.ptr + i, j - i))
			bytes_puts(&out, "[REDACTED]");
		else
			bytes_put(&out, pass1.ptr + i, j - i);
		after_bearer = j - i == 6 && !strncasecmp(pass1.ptr + i, "bearer", 6);
		i = j;
	}
	free(pass1.ptr);
	bytes_puts(&out, "");
	if (!out.ptr)
		return NULL;
	if (out.len > BODY_QUOTE_MAX) {
		size_t cut = BODY_QUOTE_MAX;

		/* Back off continuation bytes to the start of the sequence. */
		while (cut > 0 && ((unsigned char)out.ptr[cut] & 0xc0) == 0x80)
			cut--;
		out.ptr[cut] = '\0';
	}
	return out.ptr;
}

/* ---- input -------------------------------------------------------------- */

/* stdin as a JSON array of strings, or NULL after saying why (usage). */
static json_t *read_texts(void)
{
	struct bytes in = { NULL, 0, 0, INPUT_MAX, 0 };
	char chunk[65536];
	json_error_t jerr;
	json_t *arr = NULL;
	size_t n, i;

	while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0) {
		if (bytes_put(&in, chunk, n) < 0) {
			if (in.too_big)
				fail("stdin holds more than %u bytes", INPUT_MAX);
			else
				fail("out of memory");
			goto out;
		}
	}
	if (ferror(stdin)) {
		fail("cannot read stdin: %s", strerror(errno));
		goto out;
	}
	arr = json_loadb(in.ptr ? in.ptr : "", in.len, 0, &jerr);
	if (!arr) {
		fail("stdin is not JSON: %s (line %d column %d)", jerr.text, jerr.line,
		     jerr.column);
		goto out;
	}
	if (!json_is_array(arr) || json_array_size(arr) == 0) {
		fail("stdin must be a non-empty JSON array of strings");
		goto bad;
	}
	if (json_array_size(arr) > CALLUS_EMBED_REMOTE_BATCH_MAX) {
		fail("%zu texts: at most %d at a time", json_array_size(arr),
		     CALLUS_EMBED_REMOTE_BATCH_MAX);
		goto bad;
	}
	for (i = 0; i < json_array_size(arr); i++) {
		if (!json_is_string(json_array_get(arr, i))) {
			fail("stdin must be a non-empty JSON array of strings");
			goto bad;
		}
	}
	goto out;
bad:
	json_decref(arr);
	arr = NULL;
out:
	free(in.ptr);
	return arr;
}

/* CALLUS_EMBED_TIMEOUT_MS, or -1 after saying why (usage). */
static long timeout_ms(void)
{
	const char *s = getenv("CALLUS_EMBED_TIMEOUT_MS");
	char *end = NULL;
	long v;

	if (!s || !*s)
		return DEFAULT_TIMEOUT_MS;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 1 || v > MAX_TIMEOUT_MS) {
		fail("CALLUS_EMBED_TIMEOUT_MS must be a number of milliseconds from 1 to %ld",
		     MAX_TIMEOUT_MS);
		return -1;
	}
	return v;
}

/* ---- the request -------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct bytes *body = arg;
	size_t n = size * nmemb;

	/* Returning less than n makes libcurl abort the transfer. */
	return bytes_put(body, data, n) < 0 ? 0 : n;
}

/*
 * POST request to url; the body in *body and the status in *status.  0, or
 * -1 after saying why.
 */
static int post(struct bytes *body, long *status, const char *url, const char *request,
		const char *key, long timeout)
{
	char errbuf[CURL_ERROR_SIZE];
	struct curl_slist *headers = NULL, *h;
	char *auth = NULL;
	CURL *curl = NULL;
	CURLcode cc;
	int rc = -1;

	errbuf[0] = '\0';
	if (!(curl = curl_easy_init())) {
		fail("cannot start libcurl");
		goto out;
	}
	if (!(h = curl_slist_append(headers, "Content-Type: application/json")))
		goto oom;
	headers = h;
	if (key) {
		size_t n = strlen("Authorization: Bearer ") + strlen(key) + 1;

		if (!(auth = malloc(n)))
			goto oom;
		snprintf(auth, n, "Authorization: Bearer %s", key);
		if (!(h = curl_slist_append(headers, auth)))
			goto oom;
		headers = h;
	}
	if (curl_easy_setopt(curl, CURLOPT_URL, url) != CURLE_OK) {
		fail("cannot use the URL");
		goto out;
	}
#if LIBCURL_VERSION_NUM >= 0x075500
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(request));
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "callus-embed");
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout);
	/* Timeouts without SIGALRM: the resolver may be threaded. */
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, body);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	cc = curl_easy_perform(curl);
	if (cc == CURLE_WRITE_ERROR && body->too_big) {
		fail("the response is larger than %u bytes", BODY_MAX);
		goto out;
	}
	if (cc != CURLE_OK) {
		/* libcurl's own words; they name the host, never the headers. */
		fail("%s", errbuf[0] ? errbuf : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
	rc = 0;
	goto out;
oom:
	fail("out of memory");
out:
	curl_slist_free_all(headers);
	if (auth) {
		/* Not left lying in freed memory, which a core dump would keep. */
		memset(auth, 0, strlen(auth));
		free(auth);
	}
	curl_easy_cleanup(curl);
	return rc;
}

/* ---- the response ------------------------------------------------------- */

static void put_le32(unsigned char *p, float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof u);
	p[0] = (unsigned char)u;
	p[1] = (unsigned char)(u >> 8);
	p[2] = (unsigned char)(u >> 16);
	p[3] = (unsigned char)(u >> 24);
}

/*
 * Check the response ({"data": [{"index": i, "embedding": [...]}, ...]})
 * and print the result.  An item without "index" is taken at its position.
 * 0, or -1 after saying why.
 */
static int emit(const char *body, size_t len, size_t n)
{
	json_t *root = NULL, *data, **by_index = NULL;
	unsigned char *row = NULL;
	json_error_t jerr;
	size_t dim = 0, i, j;
	int rc = -1;

	root = json_loadb(body, len, 0, &jerr);
	if (!root) {
		fail("the response is not JSON: %s (line %d column %d)", jerr.text, jerr.line,
		     jerr.column);
		goto out;
	}
	data = json_object_get(root, "data");
	if (!json_is_array(data)) {
		fail("the response has no \"data\" array");
		goto out;
	}
	if (json_array_size(data) != n) {
		fail("asked for %zu embeddings, the response has %zu", n, json_array_size(data));
		goto out;
	}
	if (!(by_index = calloc(n, sizeof *by_index))) {
		fail("out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		json_t *item = json_array_get(data, i), *ix = json_object_get(item, "index");
		json_t *emb = json_object_get(item, "embedding");
		json_int_t k = (json_int_t)i;

		if (ix && !json_is_integer(ix)) {
			fail("data[%zu].index is not an integer", i);
			goto out;
		}
		if (ix)
			k = json_integer_value(ix);
		if (k < 0 || (size_t)k >= n || by_index[k]) {
			fail("data[%zu].index is out of range or repeated", i);
			goto out;
		}
		if (!json_is_array(emb) || json_array_size(emb) == 0) {
			fail("data[%zu].embedding is not an array of numbers", i);
			goto out;
		}
		if (i == 0)
			dim = json_array_size(emb);
		if (json_array_size(emb) != dim) {
			fail("embeddings of different dimensions: %zu and %zu", dim,
			     json_array_size(emb));
			goto out;
		}
		by_index[k] = emb;
	}
	if (dim > CALLUS_EMBED_REMOTE_DIM_MAX) {
		fail("embeddings of %zu dimensions: at most %d", dim, CALLUS_EMBED_REMOTE_DIM_MAX);
		goto out;
	}
	if (!(row = malloc(dim * 4))) {
		fail("out of memory");
		goto out;
	}
	printf("callus-embed %zu %zu\n", n, dim);
	for (i = 0; i < n; i++) {
		for (j = 0; j < dim; j++) {
			json_t *v = json_array_get(by_index[i], j);
			double d = json_number_value(v);

			if (!json_is_number(v) || !isfinite(d) || fabs(d) > 3.0e38) {
				fail("embedding %zu has a value that is not a finite number", i);
				goto out;
			}
			put_le32(row + 4 * j, (float)d);
		}
		if (fwrite(row, 4, dim, stdout) != dim)
			break;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fail("cannot write the result: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(row);
	free(by_index);
	json_decref(root);
	return rc;
}

/* ---- main --------------------------------------------------------------- */

int main(int argc, char **argv)
{
	struct bytes body = { NULL, 0, 0, BODY_MAX, 0 };
	const char *key = getenv("CALLUS_EMBED_API_KEY");
	json_t *texts = NULL, *req = NULL;
	char *request = NULL, *quote = NULL;
	int status = EXIT_FAIL, curl_up = 0;
	long timeout, http = 0;
	size_t n;

	if (argc != 3 || !argv[1][0] || !argv[2][0]) {
		fputs("usage: callus-embed URL MODEL < texts.json\n", stderr);
		return EXIT_USAGE;
	}
	if (strncasecmp(argv[1], "http://", 7) != 0 && strncasecmp(argv[1], "https://", 8) != 0) {
		fail("URL must start with http:// or https://");
		return EXIT_USAGE;
	}
	if (key && !*key)
		key = NULL;
	if (key && strpbrk(key, "\r\n")) {
		/* It would end the header and start another. */
		fail("CALLUS_EMBED_API_KEY holds a line break");
		return EXIT_USAGE;
	}
	if ((timeout = timeout_ms()) < 0)
		return EXIT_USAGE;
	if (!(texts = read_texts()))
		return EXIT_USAGE;
	n = json_array_size(texts);
	req = json_pack("{s:s, s:O}", "model", argv[2], "input", texts);
	if (!req || !(request = json_dumps(req, JSON_COMPACT))) {
		fail("cannot build the request (is MODEL valid UTF-8?)");
		goto out;
	}
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fail("cannot start libcurl");
		goto out;
	}
	curl_up = 1;
	if (post(&body, &http, argv[1], request, key, timeout) < 0)
		goto out;
	if (http != 200) {
		quote = redact_quote(body.ptr ? body.ptr : "", body.len, key);
		fail("HTTP %ld: %s", http, quote ? quote : "");
		goto out;
	}
	if (emit(body.ptr ? body.ptr : "", body.len, n) < 0)
		goto out;
	status = 0;
out:
	if (curl_up)
		curl_global_cleanup();
	free(quote);
	free(body.ptr);
	free(request);
	json_decref(req);
	json_decref(texts);
	return status;
}
