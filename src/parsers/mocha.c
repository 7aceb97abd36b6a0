/*
 * mocha.c - mocha's reporters (spec, dot, list...: they share the
 * failure report printed after "N failing").
 *
 *     3 passing (10ms)
 *     2 failing
 *
 *     1) cart                              the title path, one level per
 *          summarises a cart:              line, each two blanks deeper
 *
 *         AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
 *
 *   3 !== 4
 *
 *         + expected - actual              (diff)
 *
 *         at Context.<anonymous> (test/cart.spec.js:12:12)
 *
 * The same "N) title" lines appear in the progress above "N failing", so
 * only what follows it is read.  Title lines are indented by 7 blanks or
 * more, the message by 5 or 6: a title ending in ":" does not end the
 * path early.  The test's name joins the path with " › ".  An assertion
 * that ends in ":" goes on on the next line ("3 !== 4"), which is kept;
 * diffs are not.  With only the filtered lines (no raw output) the title
 * lines are missing: each message then starts a failure without a name.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <string.h>

#define SEP " \xe2\x80\xba " /* " › " */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "  12) title": the number's end, or 0 */
static size_t numbered(const char *s, size_t len)
{
	size_t i = callus_js_indent(s, len), d = i;

	while (i < len && is_digit(s[i]))
		i++;
	if (i == d || i + 2 > len || s[i] != ')' || s[i + 1] != ' ')
		return 0;
	return i + 2;
}

/* "5 failing" */
static int failing_line(const char *t, size_t tl)
{
	size_t i = 0;

	while (i < tl && is_digit(t[i]))
		i++;
	return i && tl - i == 8 && !memcmp(t + i, " failing", 8);
}

/* A diff header or line under an assertion. */
static int diff_line(const char *t, size_t tl)
{
	return tl && (t[0] == '+' || t[0] == '-');
}

/* "Error: Timeout of 20ms exceeded. ... (/abs/test/a.spec.js)": the test's
 * file, when no frame names one. */
static void file_in_parens(callus_js_failure *f, const char *t, size_t tl)
{
	const char *open;

	if (tl < 4 || t[tl - 1] != ')' || !(open = memrchr(t, '(', tl)))
		return;
	if (callus_path_has_source_ext(open + 1, (size_t)(t + tl - 1 - open - 1)) &&
	    !memchr(open, ' ', (size_t)(t + tl - open)))
		callus_js_path(&f->file, open + 1, (size_t)(t + tl - open - 2));
}

enum { BEFORE, REPORT };

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	callus_js_failure f;
	callus_buf title = CALLUS_BUF_INIT;
	const char *s;
	size_t len;
	int rc, state = BEFORE, in_title = 0, want_more = 0, stack = 0;

	callus_js_lines_init(&it, in);
	callus_js_failure_init(&f);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len), n;
		const char *t = s + i;
		size_t tl = len - i;
		callus_js_frame fr;

		if (!len)
			continue;
		if (callus_js_wrapper_noise(s, len))
			continue;
		if (state == BEFORE) {
			if (failing_line(t, tl))
				state = REPORT;
			continue;
		}
		if ((n = numbered(s, len)) && n - i > 2 && i <= 4) {
			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) <
			    0)
				break;
			callus_js_failure_start(&f);
			callus_buf_clear(&title);
			callus_buf_put(&title, s + n, len - n);
			in_title = 1;
			want_more = stack = 0;
			continue;
		}
		if (in_title && i >= 7 && !f.has_header) {
			if (title.len < CALLUS_JS_TEST_MAX) {
				callus_buf_puts(&title, SEP);
				callus_buf_put(&title, t, tl);
			}
			continue;
		}
		if (in_title) {
			/* mocha appends ":" to the last title */
			if (title.len && title.ptr[title.len - 1] == ':')
				callus_buf_truncate(&title, title.len - 1);
			if ((rc = callus_buf_status(&title)) < 0 ||
			    (rc = callus_js_failure_test(&f, title.ptr, title.len)) < 0)
				break;
			in_title = 0;
		}
		if (callus_js_parse_frame(s, len, 1, &fr)) {
			if ((rc = callus_js_failure_frame(&f, in->pc, &fr)) < 0)
				break;
			want_more = 0;
			stack = 1;
			continue;
		}
		if (callus_pu_starts(t, tl, "at ")) {
			stack = 1;
			continue;
		}
		if (!f.open || (f.has_header && stack)) {
			/* a message without its title (filtered lines) */
			if (i < 4 || i > 6)
				continue;
			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) <
			    0)
				break;
			callus_js_failure_start(&f);
			stack = 0;
		}
		if (!f.has_header) {
			f.has_header = 1;
			want_more = tl && t[tl - 1] == ':';
			if ((rc = callus_js_message_add(&f.message, t, tl)) < 0)
				break;
			file_in_parens(&f, t, tl);
		} else if (want_more) {
			want_more = 0;
			if (!diff_line(t, tl) &&
			    (rc = callus_js_message_add(&f.message, t, tl)) < 0)
				break;
		}
	}
	if (rc >= 0 && in_title) {
		if (title.len && title.ptr[title.len - 1] == ':')
			callus_buf_truncate(&title, title.len - 1);
		rc = callus_js_failure_test(&f, title.ptr, title.len);
	}
	if (rc >= 0)
		rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL);
	callus_js_failure_release(&f);
	callus_js_lines_release(&it);
	callus_buf_release(&title);
	/* --reporter tap: node's runner speaks TAP too */
	if (rc >= 0 && state == BEFORE)
		return callus_parser_node_test.parse(in, diags, files);
	return rc < 0 ? rc : 0;
}

/* "  2 failing" */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;

	while (callus_next_line(&p, end, &s, &n)) {
		size_t i = callus_js_indent(s, n);

		if (i && failing_line(s + i, n - i))
			return 1;
	}
	return 0;
}

static const char *const tools[] = {"mocha", NULL};

const callus_parser callus_parser_mocha = { "mocha", tools, sniff, parse, NULL };
