/*
 * failtext.c - does a check's output read like a failure?  For the
 * statuses callus is not told, or told wrongly: agents that send no exit
 * status, and command lines that hide the tool's (`eslint . | tail`).
 * A heuristic over the lines failing tools print; see failtext.h.
 */
#include "callus/failtext.h"

#include <string.h>

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int has_prefix(const char *p, const char *end, const char *pre)
{
	size_t n = strlen(pre);

	return (size_t)(end - p) >= n && memcmp(p, pre, n) == 0;
}

static const char *eol(const char *p, const char *end)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	return nl ? nl : end;
}

/* A decimal at p (saturating); *after past it when not NULL. */
static int parse_uint(const char *p, const char *end, int *out, const char **after)
{
	long v = 0;

	if (p >= end || !is_digit(*p))
		return 0;
	while (p < end && is_digit(*p)) {
		if (v < 1000000000L)
			v = v * 10 + (*p - '0');
		p++;
	}
	*out = (int)v;
	if (after)
		*after = p;
	return 1;
}

/* Past leading blanks and ANSI CSI sequences (colour, bold). */
static const char *skip_decor(const char *p, const char *e)
{
	for (;;) {
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (e - p < 2 || p[0] != '\x1b' || p[1] != '[')
			return p;
		for (p += 2; p < e && !(*p >= 0x40 && *p <= 0x7e); p++)
			;
		if (p < e)
			p++;
	}
}

/* word (" failed", " error") preceded by a count above 0. */
static int has_count(const char *b, const char *e, const char *word)
{
	size_t wl = strlen(word);
	const char *q = b, *d;

	while ((q = memmem(q, (size_t)(e - q), word, wl))) {
		for (d = q; d > b && is_digit(d[-1]); d--)
			;
		for (; d < q; d++)
			if (*d != '0')
				return 1;
		q += wl;
	}
	return 0;
}

/* "exit code N", "exit status N", "exited with code N" with N != 0. */
static int nonzero_exit(const char *b, const char *e)
{
	static const char *const needles[] = { "xit code", "xit status", "with code", NULL };

	for (size_t i = 0; needles[i]; i++) {
		size_t nl = strlen(needles[i]);
		const char *q = b;
		int code;

		while ((q = memmem(q, (size_t)(e - q), needles[i], nl))) {
			q += nl;
			while (q < e && (*q == ':' || *q == ' '))
				q++;
			if (parse_uint(q, e, &code, NULL) && code != 0)
				return 1;
		}
	}
	return 0;
}

static int word_at(const char *b, const char *e, const char *w)
{
	size_t wl = strlen(w);
	const char *q = b;

	while ((q = memmem(q, (size_t)(e - q), w, wl))) {
		int before = q > b && ((q[-1] >= 'A' && q[-1] <= 'Z') || (q[-1] >= 'a' && q[-1] <= 'z'));
		int after = q + wl < e && ((q[wl] >= 'A' && q[wl] <= 'Z') || (q[wl] >= 'a' && q[wl] <= 'z'));

		if (!before && !after)
			return 1;
		q += wl;
	}
	return 0;
}

static int line_failed(const char *b, const char *e)
{
	static const char *const starts[] = {
		"npm ERR!", "npm error", "FAIL ", "FAIL\t", "--- FAIL", "error:", "error[", "Error:",
		"ERROR:", "ERROR ", "Traceback (most recent call last)", "make: *** ", NULL
	};
	const char *t, *q;
	int n;

	if (e > b && e[-1] == '\r')
		e--;
	t = skip_decor(b, e);
	for (size_t i = 0; starts[i]; i++)
		if (has_prefix(t, e, starts[i]))
			return 1;
	if (has_prefix(t, e, "make[") && memmem(t, (size_t)(e - t), "]: *** ", 7))
		return 1;
	if ((has_prefix(t, e, "Test") || (t < e && *t == '=')) && has_count(t, e, " failed"))
		return 1;
	if (t < e && *t == '=' && has_count(t, e, " error"))
		return 1;
	if (has_prefix(t, e, "\xe2\x9c\x96 ") && !memmem(t, (size_t)(e - t), "(0 errors", 9))
		return 1; /* eslint's "✖ N problems": warnings alone exit 0 */
	if (has_prefix(t, e, "Found ") && has_count(t, e, " error"))
		return 1;
	if (parse_uint(t, e, &n, &q) && n > 0 && has_prefix(q, e, " failing"))
		return 1; /* mocha */
	return memmem(b, (size_t)(e - b), ": error:", 8) ||
	       memmem(b, (size_t)(e - b), ": fatal error:", 14) ||
	       ((q = memmem(b, (size_t)(e - b), "error TS", 8)) && q + 8 < e && is_digit(q[8])) ||
	       memmem(b, (size_t)(e - b), "command not found", 17) || word_at(b, e, "FAILED") ||
	       nonzero_exit(b, e);
}

int callus_output_looks_failed(const char *output, size_t len)
{
	const char *p = output, *end = output + len;

	while (p && p < end) {
		const char *le = eol(p, end);

		if (line_failed(p, le))
			return 1;
		p = le + 1;
	}
	return 0;
}
