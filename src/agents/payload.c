/*
 * payload.c - what the agents' payload readers share: text and JSON
 * helpers, the loader that repairs what agents' JSON encoders let through,
 * the event's setters, and the raw-text walker of the peek (which skips
 * strings with memchr, so that a 50 MB `cat` output costs a scan, not a
 * tree).  See agent.h.
 */
#include "agents/agent.h"
#include "callus/fsutil.h"
#include "callus/paths.h"
#include "callus/utf8.h"
#include "swar.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

int callus_payload_streq(const char *a, const char *b)
{
	return a && b && strcmp(a, b) == 0;
}

int callus_payload_has_prefix(const char *p, const char *end, const char *pre)
{
	size_t n = strlen(pre);

	return (size_t)(end - p) >= n && memcmp(p, pre, n) == 0;
}

const char *callus_payload_eol(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse a non-negative decimal at p (clamped to INT_MAX: Windows reports
 * NTSTATUS values as exit codes); *after points past it.  0 when p does not
 * start with a digit. */
int callus_payload_uint(const char *p, const char *end, int *out, const char **after)
{
	long long v = 0;

	if (p >= end || !is_digit(*p))
		return 0;
	while (p < end && is_digit(*p)) {
		if (v < INT_MAX)
			v = v * 10 + (*p - '0');
		p++;
	}
	*out = v > INT_MAX ? INT_MAX : (int)v;
	if (after)
		*after = p;
	return 1;
}

/* The rest of the line at p is "N" plus, at most, spaces, '\r' or a short
 * parenthesised note: the status lines agents write.  *code is set only
 * then. */
int callus_payload_code_line(const char *p, const char *end, int *code)
{
	const char *le = callus_payload_eol(p, end), *q;
	int v;

	if (!callus_payload_uint(p, le, &v, &q))
		return 0;
	while (q < le && (*q == ' ' || *q == '\r' || *q == '.'))
		q++;
	if (q != le && *q != '(')
		return 0;
	*code = v;
	return 1;
}

/* Copy s[0..n) into a new string, each NUL (which JSON_ALLOW_NUL lets
 * through from "\u0000") becoming U+FFFD, so that the C string is the whole
 * text. */
int callus_payload_set_text(char **dst, size_t *dlen, const char *s, size_t n)
{
	callus_buf b = CALLUS_BUF_INIT;
	const char *z;
	size_t k = 0;

	free(*dst);
	*dst = NULL;
	if (!memchr(s, '\0', n)) {
		if (!(*dst = malloc(n + 1)))
			return CALLUS_ENOMEM;
		callus_prefault(*dst, n);
		memcpy(*dst, s, n);
		(*dst)[n] = '\0';
		if (dlen)
			*dlen = n;
		return 0;
	}
	while ((z = memchr(s + k, '\0', n - k))) {
		callus_buf_put(&b, s + k, (size_t)(z - (s + k)));
		callus_buf_put(&b, "\xef\xbf\xbd", 3);
		k = (size_t)(z - s) + 1;
	}
	callus_buf_put(&b, s + k, n - k);
	if (callus_buf_status(&b) < 0) {
		callus_buf_release(&b);
		return CALLUS_ENOMEM;
	}
	if (dlen)
		*dlen = b.len;
	*dst = callus_buf_detach(&b);
	return *dst ? 0 : CALLUS_ENOMEM;
}

const char *callus_payload_jstr(const json_t *obj, const char *key, size_t *len)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_string(v))
		return NULL;
	if (len)
		*len = json_string_length(v);
	return json_string_value(v);
}

int callus_payload_jtrue(const json_t *obj, const char *key)
{
	return json_is_true(json_object_get(obj, key));
}

/* An exit status given as a number (or a numeric string); negative values
 * mean "unknown" to us, so they are refused. */
int callus_payload_jcode(const json_t *v, int *out)
{
	if (json_is_integer(v)) {
		json_int_t i = json_integer_value(v);

		if (i < 0)
			return 0;
		*out = i > INT_MAX ? INT_MAX : (int)i;
		return 1;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);

		/* range first: converting an out-of-range double is undefined */
		if (!(d >= 0))
			return 0;
		if (d >= (double)INT_MAX) {
			*out = INT_MAX;
			return 1;
		}
		if (d != (double)(int)d)
			return 0;
		*out = (int)d;
		return 1;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);
		const char *end = s + json_string_length(v);

		return !memchr(s, '\n', (size_t)(end - s)) && callus_payload_code_line(s, end, out);
	}
	return 0;
}

int callus_payload_jcode_any(const json_t *obj, int *out)
{
	static const char *const keys[] = { "exit_code", "exitCode", "exit_status", "returncode" };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (callus_payload_jcode(json_object_get(obj, keys[i]), out))
			return 1;
	return 0;
}

int callus_payload_set_jstr(char **dst, const json_t *obj, const char *key)
{
	size_t n;
	const char *s = callus_payload_jstr(obj, key, &n);

	if (!s || !n)
		return 0;
	return callus_payload_set_text(dst, NULL, s, n);
}

static int shell_safe(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit((char)c) ||
		      strchr("_@%+=:,./-", c)))
			return 0;
	}
	return 1;
}

static int is_shell_binary(const char *argv0)
{
	static const char *const shells[] = { "sh", "bash", "zsh", "dash", "ksh", NULL };
	const char *base = strrchr(argv0, '/');

	base = base ? base + 1 : argv0;
	for (size_t i = 0; shells[i]; i++)
		if (strcmp(base, shells[i]) == 0)
			return 1;
	return 0;
}

/* A command given as a string, or as an argv (codex): `bash -lc X` is the
 * command line X; anything else is joined with shell quoting so that the
 * detector sees what a person would have typed. */
int callus_payload_command_value(char **out, const json_t *v)
{
	callus_buf b = CALLUS_BUF_INIT;
	size_t n, i;
	const char *a0, *a1;
	int rc;

	*out = NULL;
	if (json_is_string(v)) {
		if (!json_string_length(v))
			return 0;
		return callus_payload_set_text(out, NULL, json_string_value(v), json_string_length(v));
	}
	if (!json_is_array(v) || !(n = json_array_size(v)))
		return 0;
	for (i = 0; i < n; i++)
		if (!json_is_string(json_array_get(v, i)))
			return 0;
	a0 = json_string_value(json_array_get(v, 0));
	a1 = n > 1 ? json_string_value(json_array_get(v, 1)) : "";
	if (n >= 3 && is_shell_binary(a0) && a1[0] == '-' && a1[strlen(a1) - 1] == 'c')
		return callus_payload_command_value(out, json_array_get(v, 2));
	for (i = 0; i < n; i++) {
		const char *s = json_string_value(json_array_get(v, i));

		if (i)
			callus_buf_putc(&b, ' ');
		if (shell_safe(s)) {
			callus_buf_puts(&b, s);
			continue;
		}
		callus_buf_putc(&b, '\'');
		for (; *s; s++) {
			if (*s == '\'')
				callus_buf_puts(&b, "'\\''");
			else
				callus_buf_putc(&b, *s);
		}
		callus_buf_putc(&b, '\'');
	}
	if ((rc = callus_buf_status(&b)) < 0) {
		callus_buf_release(&b);
		return rc;
	}
	rc = callus_payload_set_text(out, NULL, b.ptr, b.len);
	callus_buf_release(&b);
	return rc;
}

/* Where each agent keeps the command inside the tool's arguments. */
int callus_payload_command(char **out, const json_t *input)
{
	json_t *v = json_object_get(input, "command");

	if (!v)
		v = json_object_get(input, "cmd"); /* codex exec_command */
	return callus_payload_command_value(out, v);
}

static int hex4(const char *p, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (is_digit(c))
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return 0;
	}
	*out = v;
	return 1;
}

/*
 * Copy s into out, repairing what jansson refuses but a payload may carry
 * inside a string: invalid UTF-8 bytes (tool output is bytes) and \uXXXX
 * escapes of unpaired surrogates (JavaScript's JSON.stringify writes them)
 * become U+FFFD; raw control characters are escaped, so nothing of them is
 * lost; a NUL outside strings becomes a blank.  Every structural JSON character is ASCII and nothing ASCII outside
 * a string is touched, so the document keeps its shape.  Returns the
 * number of repairs, or CALLUS_ENOMEM.
 */
static long repair(callus_buf *out, const char *s, size_t n)
{
	size_t i = 0, run = 0;
	long changes = 0;
	int in_str = 0;

#define FLUSH_AND(text, skip)                                  \
	do {                                                   \
		callus_buf_put(out, s + run, i - run);           \
		callus_buf_puts(out, text);                      \
		i += (skip);                                   \
		run = i;                                       \
		changes++;                                     \
	} while (0)

	while (i < n) {
		unsigned char c = (unsigned char)s[i];

		if (c >= 0x80) {
			size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;

			if (want && want <= n - i && callus_utf8_valid(s + i, want)) {
				i += want;
				continue;
			}
			FLUSH_AND("\xef\xbf\xbd", 1);
			continue;
		}
		if (!in_str) {
			if (c == '\0') {
				FLUSH_AND(" ", 1);
				continue;
			}
			in_str = c == '"';
			i++;
			continue;
		}
		if (c == '"') {
			in_str = 0;
			i++;
		} else if (c == '\\') {
			unsigned hi, lo;

			if (n - i >= 6 && s[i + 1] == 'u' && hex4(s + i + 2, &hi)) {
				if (hi >= 0xd800 && hi <= 0xdbff && n - i >= 12 && s[i + 6] == '\\' &&
				    s[i + 7] == 'u' && hex4(s + i + 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff)
					i += 12;
				else if (hi >= 0xd800 && hi <= 0xdfff)
					FLUSH_AND("\\ufffd", 6);
				else
					i += 6;
			} else {
				i += n - i >= 2 ? 2 : 1;
			}
		} else if (c < 0x20) {
			/* kept, escaped: an ESC starts a colour code that later
			 * ANSI stripping must still recognise */
			callus_buf_put(out, s + run, i - run);
			callus_buf_printf(out, "\\u%04x", c);
			run = ++i;
			changes++;
		} else {
			i++;
		}
	}
#undef FLUSH_AND
	callus_buf_put(out, s + run, i - run);
	return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : changes;
}

/* NUL counts as a blank, as repair() makes it one for the full parse. */
static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || !*p))
		p++;
	return p;
}

/* p at an opening '"': just past the closing one, or NULL.  memchr does
 * the walking, so a megabyte of output costs microseconds. */
static const char *str_end(const char *p, const char *end)
{
	const char *q = p + 1, *r, *b;

	for (;;) {
		if (!(r = memchr(q, '"', (size_t)(end - q))))
			return NULL;
		for (b = r; b > p + 1 && b[-1] == '\\'; b--)
			;
		if ((r - b) % 2 == 0)
			return r + 1;
		q = r + 1;
	}
}

/*
 * jansson's parse, and once more after repair() when it refused.  A raw NUL
 * always goes through repair(): jansson drops one that directly follows a
 * literal or a number ("true\0}" parses, "true \0}" does not), and the peek
 * must read every payload as the full parse does.
 */
static json_t *load_small(const char *s, size_t n, size_t flags, json_error_t *jerr, int *oom)
{
	callus_buf fixed = CALLUS_BUF_INIT;
	json_t *v = NULL;
	long changes;

	*oom = 0;
	if (!memchr(s, '\0', n) && (v = json_loadb(s, n, flags | JSON_ALLOW_NUL, jerr)))
		return v;
	changes = repair(&fixed, s, n);
	if (changes < 0)
		*oom = 1;
	else if (changes > 0)
		v = json_loadb(fixed.ptr, fixed.len, flags | JSON_ALLOW_NUL, jerr);
	callus_buf_release(&fixed);
	return v;
}

/*
 * Long strings (a tool's output) are decoded here, not by jansson, which
 * appends them to its buffer a byte at a time: 1 MB of output was 11 of
 * the 40 ms of recording it.  The rest of the payload, each long string
 * replaced by a tag, goes through load_small(); the tags are then replaced
 * by the strings.  Decoded as load_small() would (repair()'s rules, then
 * jansson's), so both agree on every payload (fuzz_hookio checks it); a
 * string they would refuse, or a payload that does not parse, goes to
 * load_small() whole, for its error.
 */
#define BIG_STRING 4096

typedef struct bigs {
	callus_buf *items;
	size_t count, alloc;
	char tag[48]; /* after a NUL: no payload can guess it */
	size_t tag_len;
} bigs;

static void bigs_release(bigs *b)
{
	for (size_t i = 0; i < b->count; i++)
		callus_buf_release(&b->items[i]);
	free(b->items);
}

/* The contents of a string, p to e (quotes excluded), decoded.  0, or -1
 * for an escape jansson refuses even repaired. */
static int decode(callus_buf *out, const char *p, const char *e)
{
	while (p < e) {
		const char *run = p;
		unsigned hi, lo;
		unsigned char c;

		p += callus_json_ascii_len(p, (size_t)(e - p));
		callus_buf_put(out, run, (size_t)(p - run));
		if (p >= e)
			break;
		c = (unsigned char)*p;
		if (c >= 0x80) {
			/* repair()'s rule: a sequence as its lead byte says, or
			 * that one byte as U+FFFD */
			size_t want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;

			if (want && want <= (size_t)(e - p) && callus_utf8_valid(p, want)) {
				callus_buf_put(out, p, want);
				p += want;
			} else {
				callus_buf_puts(out, "\xef\xbf\xbd");
				p++;
			}
			continue;
		}
		if (c < 0x20) {
			/* repair() escapes it, jansson gives it back */
			callus_buf_putc(out, (char)c);
			p++;
			continue;
		}
		if (e - p < 2)
			return -1;
		switch (p[1]) {
		case '"': case '\\': case '/':
			callus_buf_putc(out, p[1]);
			break;
		case 'b': callus_buf_putc(out, '\b'); break;
		case 'f': callus_buf_putc(out, '\f'); break;
		case 'n': callus_buf_putc(out, '\n'); break;
		case 'r': callus_buf_putc(out, '\r'); break;
		case 't': callus_buf_putc(out, '\t'); break;
		case 'u':
			if (e - p < 6 || !hex4(p + 2, &hi))
				return -1;
			if (hi >= 0xd800 && hi <= 0xdbff && e - p >= 12 && p[6] == '\\' &&
			    p[7] == 'u' && hex4(p + 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff) {
				callus_utf8_put(out, 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00));
				p += 12;
				continue;
			}
			/* an unpaired surrogate: repair() makes it U+FFFD */
			callus_utf8_put(out, hi >= 0xd800 && hi <= 0xdfff ? 0xfffd : hi);
			p += 6;
			continue;
		default:
			return -1;
		}
		p += 2;
	}
	return 0;
}

/* s without its long values: *skel, with bigs b holding them.  1 when
 * there were some, 0 when none or when one would not decode (s goes to
 * load_small() whole), CALLUS_ENOMEM. */
static int extract(callus_buf *skel, bigs *b, const char *s, size_t n, size_t big)
{
	const char *p = s, *end = s + n, *q, *r;
	callus_buf *items;
	int rc;

	while ((q = memchr(p, '"', (size_t)(end - p)))) {
		if (!(r = str_end(q, end)))
			return 0;
		/* a key stays: only values are replaced */
		if ((size_t)(r - q) - 2 < big || ((p = skip_ws(r, end)) < end && *p == ':')) {
			callus_buf_put(skel, s, (size_t)(r - s));
			s = p = r;
			continue;
		}
		if (!(items = callus_array_grow(b->items, &b->alloc, b->count + 1, sizeof(*items))))
			return CALLUS_ENOMEM;
		b->items = items;
		callus_buf_init(&b->items[b->count], 0);
		/* what it decodes to is no longer than its text */
		(void)callus_buf_prefault(&b->items[b->count], (size_t)(r - q) - 2);
		rc = decode(&b->items[b->count], q + 1, r - 1);
		b->count++;
		if (rc < 0)
			return 0;
		callus_buf_put(skel, s, (size_t)(q - s));
		callus_buf_printf(skel, "\"\\u0000%s%zu\"", b->tag, b->count - 1);
		s = p = r;
	}
	callus_buf_put(skel, s, (size_t)(end - s));
	if (callus_buf_status(skel) < 0)
		return CALLUS_ENOMEM;
	for (size_t i = 0; i < b->count; i++)
		if (callus_buf_status(&b->items[i]) < 0)
			return CALLUS_ENOMEM;
	return b->count > 0;
}

/* The long string v's tag names, as a new value; NULL when v is no tag. */
static json_t *untag(const json_t *v, const bigs *b, int *oom)
{
	const char *t = json_string_value(v);
	size_t len = json_string_length(v), k = 0;
	json_t *out;

	if (!t || len <= b->tag_len + 1 || t[0] != '\0' || memcmp(t + 1, b->tag, b->tag_len))
		return NULL;
	for (size_t i = b->tag_len + 1; i < len; i++) {
		if (t[i] < '0' || t[i] > '9' || k > b->count)
			return NULL;
		k = k * 10 + (size_t)(t[i] - '0');
	}
	if (k >= b->count)
		return NULL;
	/* valid UTF-8 as decode() makes it */
	if (!(out = json_stringn_nocheck(b->items[k].ptr ? b->items[k].ptr : "", b->items[k].len)))
		*oom = 1;
	return out;
}

static void put_back(json_t *v, const bigs *b, int *oom)
{
	json_t *s;

	if (json_is_object(v)) {
		for (void *it = json_object_iter(v); it && !*oom; it = json_object_iter_next(v, it)) {
			json_t *m = json_object_iter_value(it);

			if ((s = untag(m, b, oom)))
				json_object_iter_set_new(v, it, s);
			else
				put_back(m, b, oom);
		}
	} else if (json_is_array(v)) {
		for (size_t i = 0; i < json_array_size(v) && !*oom; i++) {
			json_t *m = json_array_get(v, i);

			if ((s = untag(m, b, oom)))
				json_array_set_new(v, i, s);
			else
				put_back(m, b, oom);
		}
	}
}

/* callus_payload_load_with(), releasing owner (which holds s) once s is
 * read, when owner is not NULL: before the long strings are put back,
 * so that jansson's copies of them take its pages. */
static json_t *load(const char *s, size_t n, size_t flags, json_error_t *jerr, int *oom,
		    size_t big, callus_buf *owner)
{
	callus_buf skel = CALLUS_BUF_INIT;
	bigs b;
	json_t *v = NULL, *t;
	uint64_t nonce = 0;
	int rc;

	*oom = 0;
	memset(&b, 0, sizeof(b));
	if (n < big) {
		v = load_small(s, n, flags, jerr, oom);
		goto out;
	}
	if (getrandom(&nonce, sizeof(nonce), GRND_NONBLOCK) != (ssize_t)sizeof(nonce))
		nonce ^= (uint64_t)(uintptr_t)&b ^ (uint64_t)time(NULL) << 20;
	b.tag_len = (size_t)snprintf(b.tag, sizeof(b.tag), "callus-%016llx-",
				     (unsigned long long)nonce);
	if ((rc = extract(&skel, &b, s, n, big)) < 0) {
		*oom = 1;
		goto out;
	}
	if (rc == 0) {
		v = load_small(s, n, flags, jerr, oom);
		goto out;
	}
	if (!(v = load_small(skel.ptr, skel.len, flags, jerr, oom))) {
		if (!*oom)
			v = load_small(s, n, flags, jerr, oom);
		goto out;
	}
	if (owner)
		callus_buf_release(owner);
	if ((t = untag(v, &b, oom))) {
		json_decref(v);
		v = t;
	} else {
		put_back(v, &b, oom);
	}
	if (*oom) {
		json_decref(v);
		v = NULL;
	}
out:
	bigs_release(&b);
	callus_buf_release(&skel);
	if (owner)
		callus_buf_release(owner);
	return v;
}

json_t *callus_payload_load_with(const char *s, size_t n, size_t flags, json_error_t *jerr,
				 int *oom, size_t big)
{
	return load(s, n, flags, jerr, oom, big, NULL);
}

json_t *callus_payload_load(const char *s, size_t n, size_t flags, json_error_t *jerr, int *oom)
{
	return load(s, n, flags, jerr, oom, BIG_STRING, NULL);
}

json_t *callus_payload_load_buf(callus_buf *s, size_t flags, json_error_t *jerr, int *oom)
{
	return load(s->ptr, s->len, flags, jerr, oom, BIG_STRING, s);
}

int callus_payload_set_output(callus_hook_event *e, const char *s, size_t n)
{
	return callus_payload_set_text(&e->output, &e->output_len, s, n);
}

/* stdout, then stderr on a line of its own. */
int callus_payload_set_output2(callus_hook_event *e, const char *out, size_t on, const char *err, size_t en)
{
	callus_buf b = CALLUS_BUF_INIT;
	int rc;

	if (!en)
		return callus_payload_set_output(e, out ? out : "", out ? on : 0);
	if (!on)
		return callus_payload_set_output(e, err, en);
	callus_buf_put(&b, out, on);
	if (out[on - 1] != '\n')
		callus_buf_putc(&b, '\n');
	callus_buf_put(&b, err, en);
	rc = callus_buf_status(&b) < 0 ? CALLUS_ENOMEM : callus_payload_set_output(e, b.ptr, b.len);
	callus_buf_release(&b);
	return rc;
}

/* cwd, joined with a relative working directory the tool was given. */
int callus_payload_set_cwd(callus_hook_event *e, const char *base, const char *sub)
{
	callus_buf b = CALLUS_BUF_INIT;
	int rc;

	if (!sub || !*sub || (base && *sub != '/' && (!strcmp(sub, ".") || !*base)))
		sub = NULL;
	if (!sub)
		return base && *base ? callus_payload_set_text(&e->cwd, NULL, base, strlen(base)) : 0;
	if (*sub == '/' || !base)
		return callus_payload_set_text(&e->cwd, NULL, sub, strlen(sub));
	callus_buf_puts(&b, base);
	if (b.len && b.ptr[b.len - 1] != '/')
		callus_buf_putc(&b, '/');
	callus_buf_puts(&b, sub);
	rc = callus_buf_status(&b) < 0 ? CALLUS_ENOMEM : callus_payload_set_text(&e->cwd, NULL, b.ptr, b.len);
	callus_buf_release(&b);
	return rc;
}

int callus_payload_set_event(callus_hook_event *e, const json_t *root, const char *key, const char *alt)
{
	size_t n;
	const char *s = callus_payload_jstr(root, key, &n);

	if (!s && alt)
		s = callus_payload_jstr(root, alt, &n);
	return s ? callus_payload_set_text(&e->event, NULL, s, n) : 0;
}

/* Just past the value starting at p, or NULL.  Brackets are counted, not
 * matched: this only has to find the end, jansson judges the rest. */
static const char *val_end(const char *p, const char *end)
{
	size_t depth = 0;
	const char *q;

	if (p >= end)
		return NULL;
	if (*p == '"')
		return str_end(p, end);
	if (*p == '{' || *p == '[') {
		while (p < end) {
			if (*p == '"') {
				if (!(p = str_end(p, end)))
					return NULL;
				continue;
			}
			if (*p == '{' || *p == '[')
				depth++;
			else if ((*p == '}' || *p == ']') && --depth == 0)
				return p + 1;
			p++;
		}
		return NULL;
	}
	for (q = p; q < end && *q && !strchr(",}] \t\r\n", *q); q++)
		;
	return q > p ? q : NULL;
}

/* A JSON fragment of the payload, decoded (and repaired) as in the full
 * parse, so that both readers agree. */
static int frag(json_t **out, const char *p, const char *e)
{
	json_error_t jerr;
	int oom;

	*out = callus_payload_load(p, (size_t)(e - p), JSON_DECODE_ANY, &jerr, &oom);
	return oom ? CALLUS_ENOMEM : *out ? 0 : CALLUS_EINVAL;
}

/* The last member named key (as jansson keeps the last of duplicates) of
 * the object at obj: its value's span, or *v NULL. */
static int member(const char *obj, const char *end, const char *key, const char **v,
		  const char **ve)
{
	size_t klen = strlen(key);
	const char *p, *ke, *q;
	int rc, match;

	*v = *ve = NULL;
	if (obj >= end || *obj != '{')
		return CALLUS_EINVAL;
	p = skip_ws(obj + 1, end);
	if (p < end && *p == '}')
		return 0;
	for (;;) {
		if (p >= end || *p != '"' || !(ke = str_end(p, end)))
			return CALLUS_EINVAL;
		if (memchr(p + 1, '\\', (size_t)(ke - p - 1))) {
			json_t *k;

			if ((rc = frag(&k, p, ke)) < 0)
				return rc;
			match = json_string_length(k) == klen && !memcmp(json_string_value(k), key, klen);
			json_decref(k);
		} else {
			match = (size_t)(ke - p - 2) == klen && !memcmp(p + 1, key, klen);
		}
		p = skip_ws(ke, end);
		if (p >= end || *p != ':')
			return CALLUS_EINVAL;
		p = skip_ws(p + 1, end);
		if (!(q = val_end(p, end)))
			return CALLUS_EINVAL;
		if (match) {
			*v = p;
			*ve = q;
		}
		p = skip_ws(q, end);
		if (p < end && *p == ',') {
			p = skip_ws(p + 1, end);
			continue;
		}
		return p < end && *p == '}' ? 0 : CALLUS_EINVAL;
	}
}

/* The decoded value of a member, or *out NULL when absent. */
int callus_payload_member(json_t **out, const char *obj, const char *end, const char *key)
{
	const char *v, *ve;
	int rc;

	*out = NULL;
	if ((rc = member(obj, end, key, &v, &ve)) < 0 || !v)
		return rc;
	return frag(out, v, ve);
}

int callus_payload_member_object(const char **tobj, const char *obj, const char *end,
			       const char *key)
{
	const char *v, *ve;
	int rc = member(obj, end, key, &v, &ve);

	*tobj = rc == 0 && v && *v == '{' ? v : NULL;
	return rc;
}

int callus_payload_in_list(const char *name, const char *const *list)
{
	for (; name && *list; list++)
		if (strcmp(name, *list) == 0)
			return 1;
	return 0;
}

int callus_payload_peek_tool(char **out, const char *obj, const char *end, const char *tool_key,
			   const char *input_key, const char *const *shells)
{
	json_t *tool = NULL, *in = NULL;
	int rc;

	*out = NULL;
	if ((rc = callus_payload_member(&tool, obj, end, tool_key)) < 0 ||
	    !callus_payload_in_list(json_string_value(tool), shells))
		goto out;
	if ((rc = callus_payload_member(&in, obj, end, input_key)) == 0)
		rc = callus_payload_command(out, in);
out:
	json_decref(tool);
	json_decref(in);
	return rc;
}

static int dup_field(char **dst, const char *s)
{
	return s ? callus_payload_set_text(dst, NULL, s, strlen(s)) : 0;
}

callus_hook_event *callus_payload_chain(callus_hook_event *e)
{
	callus_hook_event *n = calloc(1, sizeof(*n)), **tail = &e->next;

	if (!n)
		return NULL;
	*n = (callus_hook_event)CALLUS_HOOK_EVENT_INIT;
	n->agent = e->agent;
	n->is_shell = e->is_shell;
	if (dup_field(&n->event, e->event) < 0 || dup_field(&n->cwd, e->cwd) < 0 ||
	    dup_field(&n->session_id, e->session_id) < 0) {
		callus_hook_event_release(n);
		free(n);
		return NULL;
	}
	while (*tail)
		tail = &(*tail)->next;
	*tail = n;
	return n;
}

int callus_payload_reply_specific(json_t *root, const char *event, const char *dflt,
				const char *ctx, size_t n)
{
	callus_buf ev = CALLUS_BUF_INIT;
	json_t *inner = json_object();
	int rc = CALLUS_ENOMEM;

	if (!event || !*event)
		event = dflt;
	/* json_object_set_new() takes a NULL value as a failure: no leak */
	if (inner && callus_utf8_sanitize(&ev, event, strlen(event)) == 0 &&
	    json_object_set_new(inner, "hookEventName", json_stringn(ev.ptr, ev.len)) == 0 &&
	    json_object_set_new(inner, "additionalContext", json_stringn(ctx, n)) == 0 &&
	    json_object_set(root, "hookSpecificOutput", inner) == 0)
		rc = 0;
	json_decref(inner);
	callus_buf_release(&ev);
	return rc;
}

int callus_payload_reply_context(json_t *root, const char *event, const char *ctx, size_t n)
{
	(void)event;
	return json_object_set_new(root, "additionalContext", json_stringn(ctx, n)) < 0 ? CALLUS_ENOMEM
											  : 0;
}

int callus_agent_folder_holds(const char *folder, const char *root)
{
	char *real = realpath(folder, NULL);
	int yes = callus_path_within(real ? real : folder, root);

	free(real);
	return yes;
}

int callus_agent_settings_path(callus_buf *where, const char *env_dir, const char *name,
			       const char *rel)
{
	const char *dir = env_dir ? getenv(env_dir) : NULL, *home = getenv("HOME");

	callus_buf_clear(where);
	if (dir && *dir)
		callus_buf_printf(where, "%s/%s", dir, name);
	else if (home && *home)
		callus_buf_printf(where, "%s/%s", home, rel);
	return where->len && callus_buf_status(where) == 0 ? 0 : -1;
}

json_t *callus_agent_load_settings(callus_buf *where, const char *env_dir, const char *name,
				   const char *rel)
{
	callus_buf text = CALLUS_BUF_INIT;
	json_t *j = NULL;

	if (callus_agent_settings_path(where, env_dir, name, rel) == 0 &&
	    callus_fs_read_file(&text, where->ptr, 4u << 20, NULL) == 0)
		j = json_loadb(text.ptr, text.len, 0, NULL);
	callus_buf_release(&text);
	return j;
}
