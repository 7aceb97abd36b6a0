/*
 * ctest.c - CTest's report, with or without --output-on-failure or -V.
 *
 *   1/5 Test #1: math_add .........................***Failed    0.00 sec
 *   /abs/tests/test_math.c:16: add(1, 2) == 4, expected 3
 *   ...
 *   The following tests FAILED:
 *             1 - math_add (Failed)
 *
 * One diagnostic per failed test: test its name, code its status (Failed,
 * Timeout, SEGFAULT, Not Run, ...), located at the first "file:LINE" with a
 * source extension in the test's output (relative paths resolve in the
 * build directory, "Test project DIR"), message what follows it there, else
 * the first output line that speaks of an error, else the status.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/capture.h"
#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

typedef struct test {
	long number;
	char *name;
	callus_buf status;
	callus_buf file, msg, fallback;
	long line, col;
	int failed, listed;
} test;

typedef struct state {
	test *t;
	size_t n, alloc;
	long current;        /* index of the test whose output follows, or -1 */
	int in_list;         /* after "The following tests FAILED:" */
	callus_pu_dir dir;     /* "Test project DIR" */
	const callus_parse_input *in;
} state;

#define MAX_TESTS (CALLUS_DIAGS_MAX + 16)

static test *find_test(state *st, long number, const char *name, size_t len)
{
	test *t;

	for (size_t i = 0; i < st->n; i++)
		if (st->t[i].number == number && strlen(st->t[i].name) == len &&
		    !memcmp(st->t[i].name, name, len))
			return &st->t[i];
	if (st->n >= MAX_TESTS)
		return NULL;
	if (st->n == st->alloc) {
		size_t n = st->alloc ? st->alloc * 2 : 16, bytes;
		test *p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(st->t, bytes)))
			return NULL;
		st->t = p;
		st->alloc = n;
	}
	t = &st->t[st->n];
	memset(t, 0, sizeof(*t));
	if (!(t->name = strndup(name, len)))
		return NULL;
	t->number = number;
	callus_buf_init(&t->status, 0);
	callus_buf_init(&t->file, 0);
	callus_buf_init(&t->msg, 0);
	callus_buf_init(&t->fallback, 0);
	st->n++;
	return t;
}

static test *by_number(state *st, long number)
{
	for (size_t i = 0; i < st->n; i++)
		if (st->t[i].number == number)
			return &st->t[i];
	return NULL;
}

/* "1/5 Test #1: math_add ....***Failed    0.00 sec" */
static int result_line(const char *s, size_t len, long *number, const char **name, size_t *nl,
		       const char **status, size_t *sl)
{
	long at = callus_pu_find(s, len, "Test #");
	size_t i, n, j;

	if (at < 0)
		return 0;
	for (i = 0; i < (size_t)at; i++)
		if (!callus_pu_is_digit(s[i]) && s[i] != '/' && s[i] != ' ')
			return 0;
	i = (size_t)at + 6;
	*number = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n + 2 >= len || s[i + n] != ':' || s[i + n + 1] != ' ')
		return 0;
	i += n + 2;
	for (j = i; j < len && !(s[j] == ' ' && j + 1 < len && (s[j + 1] == '.' || s[j + 1] == ' '));
	     j++)
		;
	if (j == i)
		return 0;
	*name = s + i;
	*nl = j - i;
	while (j < len && (s[j] == ' ' || s[j] == '.'))
		j++;
	*status = s + j;
	*sl = len - j;
	/* "***Failed    0.00 sec": the time is no part of it */
	if (callus_pu_ends(*status, *sl, " sec")) {
		size_t k = *sl - 4;
		while (k && (callus_pu_is_digit((*status)[k - 1]) || (*status)[k - 1] == '.'))
			k--;
		*sl = k;
	}
	callus_pu_trim(status, sl);
	return 1;
}

/* Status words: "***Failed" -> "Failed", "Subprocess aborted***Exception:" -> "Subprocess aborted". */
static void status_word(const char **s, size_t *len)
{
	long stars = callus_pu_find(*s, *len, "***");

	if (stars > 0) {
		*len = (size_t)stars;
	} else if (stars == 0) {
		*s += 3;
		*len -= 3;
		if (memchr(*s, ':', *len))
			*len = (size_t)((const char *)memchr(*s, ':', *len) - *s);
	}
	callus_pu_trim(s, len);
}

static int output_line(state *st, test *t, const char *s, size_t len)
{
	callus_pu_loc loc;

	if (t->file.len || !len)
		return 0;
	if (callus_pu_find_location(s, len, &loc)) {
		const char *m = s + loc.end;
		size_t ml = len - loc.end;

		callus_pu_trim(&m, &ml);
		callus_buf_put(&t->file, loc.path, loc.path_len);
		t->line = loc.line;
		t->col = loc.col;
		callus_buf_put(&t->msg, m, ml);
		return callus_buf_status(&t->file) < 0 || callus_buf_status(&t->msg) < 0 ? CALLUS_ENOMEM : 0;
	}
	/* googletest: "x.cc:12: Failure" is followed by what failed */
	if (t->msg.len == 7 && !memcmp(t->msg.ptr, "Failure", 7)) {
		callus_buf_clear(&t->msg);
		return callus_buf_put(&t->msg, s, len);
	}
	if (!t->fallback.len && callus_line_is_interesting(s, len))
		return callus_buf_put(&t->fallback, s, len);
	(void)st;
	return 0;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	const char *name, *status;
	size_t nl, sl, n;
	long number;
	test *t;

	if (callus_pu_starts(s, len, "Test project ") ||
	    callus_pu_starts(s, len, "Internal ctest changing into directory: ")) {
		const char *d = s + (s[0] == 'T' ? 13 : 40);
		return callus_pu_dir_set(&st->dir, st->in->pc, d, len - (size_t)(d - s));
	}
	if (callus_pu_starts(s, len, "The following tests FAILED:")) {
		st->in_list = 1;
		st->current = -1;
		return 0;
	}
	if (st->in_list) {
		/* "\t  1 - math_add (Failed)" */
		const char *p = s, *open, *close;
		size_t pl = len;

		callus_pu_trim(&p, &pl);
		number = callus_pu_num(p, pl, &n);
		if (!n || n + 3 > pl || memcmp(p + n, " - ", 3)) {
			st->in_list = 0;
			return 0;
		}
		close = p + pl - 1;
		for (open = close; open > p && *open != '('; open--)
			;
		if (*close != ')' || open <= p + n + 3 || open[-1] != ' ')
			return 0;
		if (!(t = find_test(st, number, p + n + 3, (size_t)(open - 1 - (p + n + 3)))))
			return st->n >= MAX_TESTS ? 0 : CALLUS_ENOMEM;
		t->failed = t->listed = 1;
		callus_buf_clear(&t->status);
		return callus_buf_put(&t->status, open + 1, (size_t)(close - open - 1));
	}
	if (callus_pu_starts(s, len, "    Start ")) {
		/* "    Start 1: math_add": what ctest says until the result is its */
		number = callus_pu_num(s + 10, len - 10, &n);
		st->current = -1;
		if (!n || 10 + n + 2 > len || s[10 + n] != ':')
			return 0;
		if (!(t = find_test(st, number, s + 12 + n, len - 12 - n)))
			return st->n >= MAX_TESTS ? 0 : CALLUS_ENOMEM;
		st->current = (long)(t - st->t);
		return 0;
	}
	if (callus_pu_find(s, len, "% tests passed") > 0) {
		st->current = -1;
		return 0;
	}
	if (result_line(s, len, &number, &name, &nl, &status, &sl)) {
		st->current = -1;
		if (!(t = find_test(st, number, name, nl)))
			return st->n >= MAX_TESTS ? 0 : CALLUS_ENOMEM;
		if (callus_pu_starts(status, sl, "Passed") || callus_pu_find(status, sl, "Skipped") >= 0 ||
		    callus_pu_find(status, sl, "Disabled") >= 0)
			return 0;
		t->failed = 1;
		status_word(&status, &sl);
		if (!t->status.len && callus_buf_put(&t->status, status, sl) < 0)
			return CALLUS_ENOMEM;
		st->current = (long)(t - st->t);
		return 0;
	}
	/* -V: "1: output" */
	number = callus_pu_num(s, len, &n);
	if (n && n + 1 < len && s[n] == ':' && (n + 1 == len || s[n + 1] == ' ')) {
		const char *o = s + n + 1;
		size_t ol = len - n - 1;

		callus_pu_trim(&o, &ol);
		if (callus_pu_starts(o, ol, "Test command: ") ||
		    callus_pu_starts(o, ol, "Working Directory: ") ||
		    callus_pu_starts(o, ol, "Test timeout computed") ||
		    callus_pu_starts(o, ol, "Environment variables:"))
			return 0;
		/* verbose output comes before the result line */
		return (t = by_number(st, number)) ? output_line(st, t, o, ol) : 0;
	}
	if (st->current >= 0)
		return output_line(st, &st->t[st->current], s, len);
	return 0;
}

static int emit(state *st, callus_diags *diags, callus_strlist *files)
{
	int rc = 0;

	for (size_t i = 0; i < st->n && rc >= 0; i++) {
		test *t = &st->t[i];
		const callus_buf *msg = t->msg.len ? &t->msg : t->fallback.len ? &t->fallback : &t->status;
		callus_diag *d = NULL;

		if (!t->failed)
			continue;
		rc = callus_pu_diag(&d, diags, files, &st->dir.pc, t->file.len ? t->file.ptr : NULL,
				  t->file.len, t->line, t->col, t->status.ptr, t->status.len, msg->ptr,
				  msg->len, "error");
		if (rc >= 0 && d)
			rc = callus_pu_set_test(d, t->name, strlen(t->name));
		if (d && msg == &t->status)
			d->vague = CALLUS_DIAG_CATCHALL;
	}
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st;
	int rc;

	memset(&st, 0, sizeof(st));
	st.current = -1;
	st.in = in;
	callus_pu_dir_init(&st.dir, in->pc);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0)
		rc = emit(&st, diags, files);
	for (size_t i = 0; i < st.n; i++) {
		free(st.t[i].name);
		callus_buf_release(&st.t[i].status);
		callus_buf_release(&st.t[i].file);
		callus_buf_release(&st.t[i].msg);
		callus_buf_release(&st.t[i].fallback);
	}
	free(st.t);
	callus_pu_dir_release(&st.dir);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	long number;
	const char *name, *status;
	size_t nl, sl;

	return callus_pu_starts(s, len, "The following tests FAILED:") ||
	       (callus_pu_find(s, len, "% tests passed, ") > 0 &&
		callus_pu_find(s, len, " tests failed out of ") > 0) ||
	       (result_line(s, len, &number, &name, &nl, &status, &sl) &&
		callus_pu_find(status, sl, "***") >= 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "ctest", NULL };

const callus_parser callus_parser_ctest = { "ctest", tools, sniff, parse, sniff_line };
