#include "sqlutil.h"
#include "callus/lesson.h"

#include "callus/buf.h"
#include "callus/common.h"
#include "callus/utf8.h"

#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int callus_sql_bind_text(sqlite3_stmt *st, int i, const char *v)
{
	return sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_TRANSIENT);
}

/* The number the n digits at s write. */
static int digits(const char *s, int n)
{
	int v = 0;

	while (n--)
		v = v * 10 + (*s++ - '0');
	return v;
}

int callus_sql_bind_epoch(sqlite3_stmt *st, int i, const char *now)
{
	/* "2026-12-04T14:35:10.123Z": SQLite reads it as UTC, to the second */
	static const char form[] = "dddd-dd-ddTdd:dd:dd.dddZ";
	long long sec;

	if (!now || strlen(now) != sizeof(form) - 1)
		return sqlite3_bind_null(st, i);
	for (size_t k = 0; k < sizeof(form) - 1; k++)
		if (form[k] == 'd' ? now[k] < '0' || now[k] > '9' : now[k] != form[k])
			return sqlite3_bind_null(st, i);
	/* in seconds: years past 2262 are past a count of nanoseconds */
	if (callus_time_civil(digits(now, 4), digits(now + 5, 2), digits(now + 8, 2),
			      digits(now + 11, 2), digits(now + 14, 2), digits(now + 17, 2), &sec) < 0 ||
	    sec < 0)
		return sqlite3_bind_null(st, i);
	return sqlite3_bind_int64(st, i, sec);
}

int callus_sql_bind_text_or_null(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

int callus_sql_bind_text_kept(sqlite3_stmt *st, int i, const char *v)
{
	return sqlite3_bind_text(st, i, v ? v : "", -1, SQLITE_STATIC);
}

int callus_sql_bind_text_or_null_kept(sqlite3_stmt *st, int i, const char *v)
{
	return v ? sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC) : sqlite3_bind_null(st, i);
}

int callus_sql_exec_texts(sqlite3 *db, const char *sql, const char *const *v, size_t n)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	for (size_t i = 0; i < n; i++)
		callus_sql_bind_text(st, (int)i + 1, v[i]);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
	sqlite3_finalize(st);
	return sq;
}

int callus_sql_exec_ints(sqlite3 *db, const char *sql, const int64_t *v, size_t n)
{
	sqlite3_stmt *st = NULL;
	int sq = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	if (sq != SQLITE_OK)
		return sq;
	for (size_t i = 0; i < n; i++)
		sqlite3_bind_int64(st, (int)i + 1, v[i]);
	sq = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
	sqlite3_finalize(st);
	return sq;
}

char *callus_sql_column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return strdup(t ? (const char *)t : "");
}

void callus_sql_column_copy(sqlite3_stmt *st, int i, char *out, size_t outsz)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	size_t n = t ? (size_t)sqlite3_column_bytes(st, i) : 0;

	if (n >= outsz)
		n = outsz - 1;
	if (n)
		memcpy(out, t, n);
	out[n] = '\0';
}

/*
 * As jansson's compact dump writes it, byte for byte (callus_buf_put_json):
 * a stored list is also looked up by its text (a context's patterns).
 * jansson's setup cost a list thousands of instructions, two lists a
 * signature, a thousand signatures a large build's failure.
 */
char *callus_sql_strlist_json(const callus_strlist *l)
{
	callus_buf b = CALLUS_BUF_INIT;

	callus_buf_putc(&b, '[');
	for (size_t i = 0; l && i < l->count; i++) {
		size_t n = strlen(l->items[i]);

		/* what json_string() refuses, this refuses as it did */
		if (!callus_utf8_valid(l->items[i], n)) {
			callus_buf_release(&b);
			return NULL;
		}
		if (i)
			callus_buf_putc(&b, ',');
		callus_buf_put_json(&b, l->items[i], n);
	}
	if (callus_buf_putc(&b, ']') < 0) {
		callus_buf_release(&b);
		return NULL;
	}
	return callus_buf_detach(&b);
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/*
 * The lists callus itself writes (a file's paths, a note's signatures):
 * strings of plain ASCII, no escape.  Read here without jansson, whose
 * setup cost a list some 5,000 instructions, 48 lists a failing hook (0.26
 * of its 12.4 million).  1 when json was such a list (its strings added to
 * out), 0 when it holds anything else (an escape, a byte past ASCII, a
 * number, a list cut short: jansson reads it, and rejects what it must),
 * CALLUS_ENOMEM.
 */
static int plain_strlist(callus_strlist *out, const char *json)
{
	const char *p = skip_ws(json);
	size_t start = out->count;

	if (*p++ != '[')
		return 0;
	p = skip_ws(p);
	if (*p == ']')
		return *skip_ws(p + 1) ? 0 : 1;
	for (;;) {
		const char *s;

		if (*p++ != '"')
			goto other;
		for (s = p; *p != '"'; p++)
			if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e || *p == '\\')
				goto other;
		if (callus_strlist_add(out, s, (size_t)(p - s)) < 0)
			return CALLUS_ENOMEM;
		p = skip_ws(p + 1);
		if (*p == ']')
			break;
		if (*p++ != ',')
			goto other;
		p = skip_ws(p);
	}
	if (!*skip_ws(p + 1))
		return 1;
other:
	/* what was added goes: jansson reads the whole list again */
	while (out->count > start)
		free(out->items[--out->count]);
	return 0;
}

int callus_sql_json_strlist(callus_strlist *out, const char *json)
{
	json_t *a = NULL;
	size_t i;
	json_t *v;
	int rc = 0;

	if (!json || (rc = plain_strlist(out, json)) != 0)
		return rc < 0 ? rc : 0;
	a = json_loads(json, 0, NULL);
	if (!json_is_array(a))
		goto out;
	json_array_foreach(a, i, v) {
		if (json_is_string(v) &&
		    (rc = callus_strlist_add(out, json_string_value(v), json_string_length(v))) < 0)
			break;
	}
out:
	json_decref(a);
	return rc;
}

int callus_sql_collect(sqlite3_stmt *st, size_t elem, int (*read)(sqlite3_stmt *, void *, void *),
		     void *ctx, size_t limit, void **items, size_t *count)
{
	char *arr = NULL;
	size_t n = 0, alloc = 0;
	int sq;

	while ((!limit || n < limit) && (sq = sqlite3_step(st)) == SQLITE_ROW) {
		int kept;

		if (n == alloc) {
			size_t na = alloc ? alloc * 2 : 16;
			char *p = realloc(arr, na * elem);

			if (!p) {
				sq = SQLITE_NOMEM;
				break;
			}
			arr = p;
			alloc = na;
		}
		if ((kept = read(st, arr + n * elem, ctx)) < 0) {
			sq = SQLITE_NOMEM;
			break;
		}
		n += kept == 0;
	}
	if (limit && n == limit)
		sq = SQLITE_DONE;
	*items = arr;
	*count = n;
	return sq == SQLITE_DONE ? SQLITE_OK : sq;
}

char *callus_sql_time_ago(int64_t seconds_ago)
{
	return callus_sql_time_before(NULL, seconds_ago);
}

char *callus_sql_time_before(const char *now, int64_t seconds)
{
	long long ns;
	/* counted, not timegm'd: glibc's reads the time zone file first */
	time_t t = now && callus_time_parse(now, &ns) == 0 ? (time_t)(ns / 1000000000LL) : time(NULL);

	/* A rule of more days than have passed since 1970 keeps everything:
	 * the cutoff stops at the epoch rather than go before it, where no
	 * time is written (learning then failed "out of memory"), or wrap
	 * around in nanoseconds to a date ahead (gc then removed all). */
	if (t < 0)
		t = 0;
	if (seconds > 0)
		t = seconds >= (int64_t)t ? 0 : t - (time_t)seconds;
	if ((long long)t > LLONG_MAX / 1000000000LL)
		t = (time_t)(LLONG_MAX / 1000000000LL);
	return callus_time_iso8601((long long)t * 1000000000LL);
}
