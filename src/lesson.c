#include "callus/lesson.h"
#include "callus/buf.h"
#include "callus/extract.h"
#include "callus/hash.h"
#include "callus/signature.h"
#include "callus/strlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static const char *const type_names[] = { "LINT", "TEST", "ANALYSIS", "OTHER" };

const char *callus_lesson_type_name(callus_lesson_type t)
{
	return (unsigned)t < 4 ? type_names[t] : "OTHER";
}

int callus_lesson_type_parse(callus_lesson_type *out, const char *s)
{
	for (int i = 0; i < 4; i++)
		if (!strcasecmp(s, type_names[i])) {
			*out = (callus_lesson_type)i;
			return 0;
		}
	return CALLUS_EINVAL;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static int is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static int is_wordc(char c) { return is_alpha(c) || is_digit(c) || c == '_' || (unsigned char)c >= 0x80; }

/* A duration at s (callus_duration_len), go's hours and minutes glued
 * before it ("1m30.5s", "2h0m0s") included: its length, or 0.  Tools print
 * some durations only now and then (jest's "(4 ms)" above a millisecond),
 * so a duration is not even counted as a number: it goes. */
static size_t duration_len(const char *s, const char *end)
{
	const char *p = s, *q;
	size_t n;

	for (;;) {
		for (q = p; q < end && is_digit(*q); q++)
			;
		if (q == p || !(q + 1 < end && (*q == 'h' || *q == 'm') && is_digit(q[1])))
			break;
		p = q + 1;
	}
	n = callus_duration_len(p, (size_t)(end - p));
	return n ? (size_t)(p + n - s) : 0;
}

/* The words of a line that only times the run ("Time: 0.3 s, estimated
 * 1 s", "Done in 2.1s"): such a line comes and goes with the clock. */
static int timing_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"time", "estimated", "duration", "elapsed", "took", "finished", "done", "in",
		"after", "total", NULL,
	};

	for (size_t i = 0; words[i]; i++)
		if (strlen(words[i]) == n && !strncasecmp(w, words[i], n))
			return 1;
	return 0;
}

/*
 * Append line [s, end) to out the way a signature reads it.  What does not
 * identify a failure: numbers (line and column, counts, addresses),
 * durations and spacing.  Every digit run, with a "0x" prefix or hex
 * letters glued to it, becomes "#"; whitespace runs become one space.
 * Unless former, a duration goes with the brackets around it alone, and a
 * line that held one and says nothing but timing goes whole.
 */
static void normalize_line(callus_buf *out, const char *s, const char *end, int former)
{
	size_t mark = out->len;
	int space = out->len > 0, timed = 0, only_timing = 1;
	const char *prev = NULL; /* the source byte before s */

	while (s < end) {
		size_t n;

		if (is_digit(*s)) {
			if (!former && (!prev || (!is_wordc(*prev) && *prev != '.')) &&
			    (n = duration_len(s, end))) {
				const char *after = s + n;

				timed = 1;
				/* "(4 ms)", "[0.1ms]": the brackets go too, and
				 * the space put before them */
				if (out->len > mark && (out->ptr[out->len - 1] == '(' ||
							out->ptr[out->len - 1] == '[') &&
				    after < end && (*after == ')' || *after == ']')) {
					callus_buf_truncate(out, out->len - 1);
					if (out->len > mark && out->ptr[out->len - 1] == ' ')
						callus_buf_truncate(out, out->len - 1);
					space = 1;
					after++;
				}
				prev = after - 1;
				s = after;
				continue;
			}
			/* glued to what came before, as callus always signed it */
			if (s[0] == '0' && s + 1 < end && (s[1] == 'x' || s[1] == 'X'))
				s += 2;
			while (s < end && is_hex(*s))
				s++;
			prev = s - 1;
			callus_buf_putc(out, '#');
			space = 0;
			continue;
		}
		if (*s == ' ' || *s == '\t' || *s == '\r') {
			space = 1;
			prev = s++;
			continue;
		}
		if (is_alpha(*s)) {
			const char *w = s;

			while (s < end && is_alpha(*s))
				s++;
			only_timing &= timing_word(w, (size_t)(s - w));
			if (space && out->len)
				callus_buf_putc(out, ' ');
			callus_buf_put(out, w, (size_t)(s - w));
			space = 0;
			prev = s - 1;
			continue;
		}
		if (space && out->len)
			callus_buf_putc(out, ' ');
		space = 0;
		prev = s;
		/* a word of another script is no timing word */
		if ((unsigned char)*s >= 0x80)
			only_timing = 0;
		callus_buf_putc(out, *s++);
	}
	if (timed && only_timing)
		callus_buf_truncate(out, mark);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The summary as a signature reads it.  Unless former, its lines are
 * taken in sorted order: a command's two pipes, read in turn, give their
 * lines in either order (make's recipe on stdout, its "*** [check] Error
 * 1" on stderr), and so do a runner's workers.
 */
static int normalize_summary(callus_buf *out, const char *s, int former)
{
	callus_strlist lines = CALLUS_STRLIST_INIT;
	callus_buf one = CALLUS_BUF_INIT;
	int rc = 0;

	while (*s) {
		const char *nl = strchr(s, '\n'), *end = nl ? nl : s + strlen(s);

		if (former) {
			normalize_line(out, s, end, 1);
		} else {
			callus_buf_clear(&one);
			normalize_line(&one, s, end, 0);
			if (callus_buf_status(&one) < 0 ||
			    (one.len && callus_strlist_add(&lines, one.ptr, one.len) < 0))
				rc = CALLUS_ENOMEM;
		}
		s = nl ? nl + 1 : end;
	}
	if (lines.count)
		qsort(lines.items, lines.count, sizeof(*lines.items), cmp_line);
	for (size_t i = 0; i < lines.count; i++) {
		if (i)
			callus_buf_putc(out, ' ');
		callus_buf_puts(out, lines.items[i]);
	}
	callus_strlist_release(&lines);
	callus_buf_release(&one);
	return rc < 0 ? rc : callus_buf_status(out);
}

static int sign(const callus_lesson *l, int former, char hex[CALLUS_SHA256_HEX_LEN + 1])
{
	callus_buf norm = CALLUS_BUF_INIT;
	callus_sha256 *h = NULL;
	const char *file = l->file ? l->file : "";
	int rc;

	if ((rc = normalize_summary(&norm, l->error_summary ? l->error_summary : "", former)) < 0 ||
	    (rc = callus_sha256_new(&h)) < 0)
		goto out;
	if ((rc = callus_sha256_part(h, file, strlen(file))) < 0 ||
	    (rc = callus_sha256_part(h, norm.ptr, norm.len)) < 0)
		goto out;
	rc = callus_sha256_finish(h, hex);
	h = NULL;
out:
	callus_sha256_free(h);
	callus_buf_release(&norm);
	return rc;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_error(const void *pa, const void *pb)
{
	const callus_diag *a = *(const callus_diag *const *)pa, *b = *(const callus_diag *const *)pb;
	int c;

	if ((c = cmp_str(a->file, b->file)) || (c = cmp_str(a->test, b->test)))
		return c;
	return cmp_str(a->signature, b->signature);
}

int callus_lesson_sign_errors(callus_lesson *l, const callus_diags *diags)
{
	const callus_diag **v = NULL;
	callus_sha256 *h = NULL;
	char hex[CALLUS_SHA256_HEX_LEN + 1], *sig;
	size_t n = 0;
	int rc = CALLUS_ENOMEM;

	/* past CALLUS_DIAGS_MAX, which errors were kept hangs on their order */
	if (!diags || !diags->count || diags->dropped)
		return 0;
	if (!(v = calloc(diags->count, sizeof(*v))))
		return CALLUS_ENOMEM;
	for (size_t i = 0; i < diags->count; i++) {
		const callus_diag *d = &diags->items[i];

		/* an error the generic extractor found may not say what failed
		 * (a "file:line" above the line that does): the summary says
		 * more */
		if (d->vague == CALLUS_DIAG_GENERIC) {
			n = 0;
			break;
		}
		/* make's "target 'x' failed", Maven's goal, a test's bare
		 * status: they follow from what failed, which they leave to
		 * the summary when nothing else names it */
		if (d->signature && d->vague != CALLUS_DIAG_CATCHALL &&
		    ((d->file && *d->file) || (d->test && *d->test)))
			v[n++] = d;
	}
	if (!n) {
		rc = 0;
		goto out;
	}
	qsort(v, n, sizeof(*v), cmp_error);
	if ((rc = callus_sha256_new(&h)) < 0)
		goto out;
	/* apart from every summary's hash: "errors" and no file come first */
	(void)callus_sha256_part(h, "errors", 6);
	for (size_t i = 0; i < n; i++) {
		const callus_diag *d = v[i];

		if (i && !cmp_error(&v[i - 1], &v[i]))
			continue;
		(void)callus_sha256_part(h, d->file ? d->file : "", d->file ? strlen(d->file) : 0);
		(void)callus_sha256_part(h, d->test ? d->test : "", d->test ? strlen(d->test) : 0);
		(void)callus_sha256_part(h, d->signature, strlen(d->signature));
	}
	rc = callus_sha256_finish(h, hex);
	h = NULL;
	if (rc < 0)
		goto out;
	if (!(sig = strdup(hex))) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	free(l->signature);
	l->signature = sig;
out:
	callus_sha256_free(h);
	free(v);
	return rc;
}

int callus_lesson_sign_former(const callus_lesson *l, char hex[CALLUS_SHA256_HEX_LEN + 1])
{
	return sign(l, 1, hex);
}

int callus_lesson_sign(callus_lesson *l)
{
	char hex[CALLUS_SHA256_HEX_LEN + 1];
	int rc;

	if ((rc = sign(l, 0, hex)) < 0)
		return rc;
	free(l->signature);
	return (l->signature = strdup(hex)) ? 0 : CALLUS_ENOMEM;
}

/* Days from 1970-01-01 to the civil date y-m-d, and back: counted in
 * 400-year eras of 146,097 days, each era's years from March, so that a
 * leap day ends its year and a year's days before it are the same in every
 * year.  719,468 days from 0000-03-01 to 1970-01-01. */
static long long days_from_civil(long long y, long long m, long long d)
{
	long long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static void civil_from_days(long long days, long long *y, long long *m, long long *d)
{
	long long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	long long doe = z - era * 146097;
	long long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	long long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	long long mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yoe + era * 400 + (*m <= 2);
}

int callus_time_civil(int y, int mo, int d, int h, int mi, int s, long long *t)
{
	long long days, cy, cm, cd;

	if (y < 0 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 ||
	    mi < 0 || mi > 59 || s < 0 || s > 59)
		return -1;
	/* 2026-02-31 is no day: counted, it would be March 3rd */
	days = days_from_civil(y, mo, d);
	civil_from_days(days, &cy, &cm, &cd);
	if (cd != d || cm != mo)
		return -1;
	*t = days * 86400 + h * 3600LL + mi * 60LL + s;
	return 0;
}

/* n's width digits into p, zeros first */
static char *put_digits(char *p, long long n, int width)
{
	for (int i = width - 1; i >= 0; i--, n /= 10)
		p[i] = (char)('0' + n % 10);
	return p + width;
}

void callus_time_iso8601_put(char *out, long long sec, long ns)
{
	long long y, m, d, s = sec % 86400;
	char *p = out;

	civil_from_days(sec / 86400, &y, &m, &d);
	p = put_digits(p, y, 4);
	*p++ = '-';
	p = put_digits(p, m, 2);
	*p++ = '-';
	p = put_digits(p, d, 2);
	*p++ = 'T';
	p = put_digits(p, s / 3600, 2);
	*p++ = ':';
	p = put_digits(p, s / 60 % 60, 2);
	*p++ = ':';
	p = put_digits(p, s % 60, 2);
	*p++ = '.';
	p = put_digits(p, ns / 1000000, 3);
	*p = 'Z';
}

char *callus_time_iso8601(long long ns)
{
	char *out;

	if (ns < 0 || !(out = malloc(CALLUS_TIME_ISO8601_LEN + 1)))
		return NULL;
	callus_time_iso8601_put(out, ns / 1000000000LL, (long)(ns % 1000000000LL));
	out[CALLUS_TIME_ISO8601_LEN] = '\0';
	return out;
}

/* n digits at *p, as a number; -1 when they are not all there. */
static int digits(const char **p, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*p)++) {
		if (**p < '0' || **p > '9')
			return -1;
		v = v * 10 + (**p - '0');
	}
	return v;
}

time_t callus_time_day(const char *s)
{
	struct tm tm;
	int y, m, d;
	char end;

	memset(&tm, 0, sizeof(tm));
	if (!s || strlen(s) < 10 || sscanf(s, "%4d-%2d-%2d%c", &y, &m, &d, &end) < 3 ||
	    s[4] != '-' || s[7] != '-' || (s[10] && s[10] != 'T'))
		return -1;
	if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1970 || y > 9999)
		return -1;
	tm.tm_year = y - 1900;
	tm.tm_mon = m - 1;
	tm.tm_mday = d;
	{
		time_t t = timegm(&tm);
		struct tm back;

		/* 2026-02-31 is no day (timegm would make it March 3rd). */
		gmtime_r(&t, &back);
		if (back.tm_mday != d || back.tm_mon != m - 1)
			return -1;
		return t;
	}
}

int callus_time_parse(const char *s, long long *ns)
{
	const char *p = s;
	long long ms = 0, off = 0, t;
	int y, mo, d, h, mi, sec = 0;

	if (!s)
		return -1;
	/* years a store's nanoseconds hold (to 2262), and sane ones */
	if ((y = digits(&p, 4)) < 1970 || y > 2199 || *p++ != '-' ||
	    (mo = digits(&p, 2)) < 1 || mo > 12 || *p++ != '-' || (d = digits(&p, 2)) < 1 ||
	    d > 31 || (*p != 'T' && *p != 't' && *p != ' '))
		return -1;
	p++;
	if ((h = digits(&p, 2)) < 0 || h > 23 || *p++ != ':' || (mi = digits(&p, 2)) < 0 || mi > 59)
		return -1;
	/* a leap second's 60 is the next minute's 0 */
	if (*p == ':' && (p++, (sec = digits(&p, 2)) < 0 || sec > 60))
		return -1;
	if (*p == '.' || *p == ',') {
		long long scale = 100;

		if (p[1] < '0' || p[1] > '9')
			return -1;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			ms += scale * (*p - '0');
	}
	if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1, oh, om = 0;

		if ((oh = digits(&p, 2)) < 0 || oh > 23)
			return -1;
		if (*p == ':')
			p++;
		if (*p >= '0' && *p <= '9' && ((om = digits(&p, 2)) < 0 || om > 59))
			return -1;
		off = sign * (oh * 3600LL + om * 60LL);
	} else if (*p == 'Z' || *p == 'z') {
		p++;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p)
		return -1;
	/* a leap second's 60 is counted as the next minute's 0 */
	if (callus_time_civil(y, mo, d, h, mi, 0, &t) < 0)
		return -1;
	*ns = (t + sec - off) * 1000000000LL + ms * 1000000LL;
	return 0;
}

char *callus_time_normalize(const char *s)
{
	long long ns;

	return callus_time_parse(s, &ns) < 0 ? NULL : callus_time_iso8601(ns);
}

char *callus_now_iso8601(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return callus_time_iso8601((long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

void callus_lesson_release(callus_lesson *l)
{
	if (!l)
		return;
	free(l->timestamp);
	free(l->file);
	free(l->error_summary);
	free(l->cause);
	free(l->resolution);
	free(l->corrective_rule);
	free(l->intent_id);
	free(l->signature);
	free(l->tool);
	free(l->command);
	for (size_t i = 0; i < l->affected_count; i++)
		free(l->affected_files[i]);
	free(l->affected_files);
	free(l->last_seen);
	memset(l, 0, sizeof(*l));
}
