#include "callus/lesson.h"
#include "callus/buf.h"
#include "callus/hash.h"

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

/*
 * What does not identify a failure: numbers (line and column, durations,
 * counts, addresses) and spacing.  Every digit run, with a "0x" prefix or
 * hex letters glued to it, becomes "#"; whitespace runs become one space.
 */
static int normalize_summary(callus_buf *out, const char *s)
{
	int space = 0;

	while (*s) {
		if (*s >= '0' && *s <= '9') {
			if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
				s += 2;
			while ((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
			       (*s >= 'A' && *s <= 'F'))
				s++;
			callus_buf_putc(out, '#');
			space = 0;
			continue;
		}
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') {
			space = 1;
			s++;
			continue;
		}
		if (space && out->len)
			callus_buf_putc(out, ' ');
		space = 0;
		callus_buf_putc(out, *s++);
	}
	return callus_buf_status(out);
}

int callus_lesson_sign(callus_lesson *l)
{
	callus_buf norm = CALLUS_BUF_INIT;
	callus_sha256 *h = NULL;
	char hex[CALLUS_SHA256_HEX_LEN + 1];
	const char *file = l->file ? l->file : "";
	int rc;

	if ((rc = normalize_summary(&norm, l->error_summary ? l->error_summary : "")) < 0 ||
	    (rc = callus_sha256_new(&h)) < 0)
		goto out;
	if ((rc = callus_sha256_part(h, file, strlen(file))) < 0 ||
	    (rc = callus_sha256_part(h, norm.ptr, norm.len)) < 0)
		goto out;
	rc = callus_sha256_finish(h, hex);
	h = NULL;
	if (rc < 0)
		goto out;
	free(l->signature);
	if (!(l->signature = strdup(hex)))
		rc = CALLUS_ENOMEM;
out:
	callus_sha256_free(h);
	callus_buf_release(&norm);
	return rc;
}

char *callus_time_iso8601(long long ns)
{
	time_t sec = (time_t)(ns / 1000000000LL);
	struct tm tm;
	callus_buf b = CALLUS_BUF_INIT;

	if (ns < 0 || !gmtime_r(&sec, &tm))
		return NULL;
	callus_buf_printf(&b, "%04d-%02d-%02dT%02d:%02d:%02d.%03lldZ", tm.tm_year + 1900,
			tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			ns % 1000000000LL / 1000000);
	if (callus_buf_status(&b) < 0)
		return NULL;
	return callus_buf_detach(&b);
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

char *callus_time_normalize(const char *s)
{
	struct tm tm, back;
	time_t t;
	const char *p = s;
	long long ms = 0, off = 0;
	int y, mo, d, h, mi, sec = 0;

	if (!s)
		return NULL;
	memset(&tm, 0, sizeof(tm));
	/* years a store's nanoseconds hold (to 2262), and sane ones */
	if ((y = digits(&p, 4)) < 1970 || y > 2199 || *p++ != '-' ||
	    (mo = digits(&p, 2)) < 1 || mo > 12 || *p++ != '-' || (d = digits(&p, 2)) < 1 ||
	    d > 31 || (*p != 'T' && *p != 't' && *p != ' '))
		return NULL;
	p++;
	if ((h = digits(&p, 2)) < 0 || h > 23 || *p++ != ':' || (mi = digits(&p, 2)) < 0 || mi > 59)
		return NULL;
	/* a leap second's 60 is the next minute's 0 */
	if (*p == ':' && (p++, (sec = digits(&p, 2)) < 0 || sec > 60))
		return NULL;
	if (*p == '.' || *p == ',') {
		long long scale = 100;

		if (p[1] < '0' || p[1] > '9')
			return NULL;
		for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10)
			ms += scale * (*p - '0');
	}
	if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1, oh, om = 0;

		if ((oh = digits(&p, 2)) < 0 || oh > 23)
			return NULL;
		if (*p == ':')
			p++;
		if (*p >= '0' && *p <= '9' && ((om = digits(&p, 2)) < 0 || om > 59))
			return NULL;
		off = sign * (oh * 3600LL + om * 60LL);
	} else if (*p == 'Z' || *p == 'z') {
		p++;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	if (*p)
		return NULL;
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = 0;
	t = timegm(&tm);
	/* 2026-02-31 is no day: timegm would make it March 3rd */
	if (!gmtime_r(&t, &back) || back.tm_mday != d || back.tm_mon != mo - 1)
		return NULL;
	return callus_time_iso8601(((long long)t + sec - off) * 1000000000LL + ms * 1000000LL);
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
