/*
 * minitest.c - Minitest's report (ruby -Itest, rake test, rails test).
 *
 *     1) Failure:
 *   TestCart#test_total [test/test_cart.rb:9]:
 *   Expected: 30
 *     Actual: 29
 *
 *     2) Error:
 *   TestCart#test_find_missing:
 *   NoMethodError: undefined method `fetch' for nil:NilClass
 *
 *       @items.find { |item| item[:name] == name }.fetch(:price)
 *                                                 ^^^^^^
 *       /abs/lib/cart.rb:25:in `find'
 *       test/test_cart.rb:18:in `test_find_missing'
 *
 *   6 runs, 5 assertions, 1 failures, 2 errors, 0 skips
 *
 * One diagnostic per failure or error, named "Class#test".  A failure's
 * location is in its header; its message is the assertion's, up to the
 * first blank line.  An error's first line is "Class: message" (the code);
 * the source Ruby highlights under it is skipped; it is located at the
 * innermost backtrace line inside the workspace.  rails test prints
 * "Failure:" and "Error:" without a number.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "  1) Failure:", "Error:" -> 'F' or 'E'. */
static int entry_header(const char *s, size_t len)
{
	size_t i = callus_pu_indent(s, len), n;

	callus_pu_num(s + i, len - i, &n);
	if (n) {
		if (i + n + 2 > len || s[i + n] != ')' || s[i + n + 1] != ' ')
			return 0;
		i += n + 2;
	} else if (i) {
		return 0;
	}
	if (len - i == 8 && !memcmp(s + i, "Failure:", 8))
		return 'F';
	if (len - i == 6 && !memcmp(s + i, "Error:", 6))
		return 'E';
	return 0;
}

/* "Class: message" -> the class's length. */
static size_t exception_line(const char *s, size_t len)
{
	size_t i = 0;

	if (!len || s[0] < 'A' || s[0] > 'Z')
		return 0;
	for (;;) {
		while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
				   (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			i++;
		/* Module::Class */
		if (i + 2 < len && s[i] == ':' && s[i + 1] == ':') {
			i += 2;
			continue;
		}
		break;
	}
	if (i < 2 || i + 1 >= len || s[i] != ':' || s[i + 1] != ' ')
		return 0;
	return i;
}

typedef struct state {
	callus_pu_fail f;
	int kind;     /* 'F' or 'E' */
	int phase;    /* 1 the header next, 2 the message, 3 the backtrace */
} state;

/* "TestCart#test_total [test/test_cart.rb:9]:" or "TestCart#test_x:" */
static int header(state *st, const char *s, size_t len)
{
	long open;
	callus_pu_loc loc;

	if (len < 2 || s[len - 1] != ':')
		return 0;
	len--;
	open = callus_pu_find(s, len, " [");
	if (open > 0 && s[len - 1] == ']' && callus_pu_location(s + open + 2, len - (size_t)open - 3, &loc)) {
		callus_buf_put(&st->f.file, loc.path, loc.path_len);
		st->f.line = loc.line;
		len = (size_t)open;
	}
	callus_buf_put(&st->f.test, s, len);
	return callus_buf_status(&st->f.test);
}

static int entry_line(state *st, const char *s, size_t len)
{
	const char *file, *fn, *t = s;
	size_t fl, fnl, tl = len, n;
	long line;

	if (st->phase == 1) {
		st->phase = 2;
		return header(st, s, len);
	}
	if (callus_pu_ruby_frame(s, len, &file, &fl, &line, &fn, &fnl)) {
		st->phase = 3;
		return callus_pu_frames_add(&st->f.frames, fn, fnl, file, fl, line);
	}
	callus_pu_trim(&t, &tl);
	if (!tl) {
		if (st->f.msg.len || st->f.type.len)
			st->phase = 3;
		return 0;
	}
	if (st->phase != 2)
		return 0;
	if (st->kind == 'E' && !st->f.type.len && !st->f.msg.len && (n = exception_line(t, tl))) {
		callus_buf_put(&st->f.type, t, n);
		return callus_pu_fail_msg(&st->f, t + n + 2, tl - n - 2);
	}
	return callus_pu_fail_msg(&st->f, t, tl);
}

static int is_totals(const char *s, size_t len)
{
	size_t n;

	callus_pu_num(s, len, &n);
	return n && (callus_pu_starts(s + n, len - n, " runs, ") ||
		     callus_pu_starts(s + n, len - n, " tests, ")) &&
	       callus_pu_find(s, len, " assertions, ") > 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st = { 0 };
	callus_pu_lines it;
	const char *s;
	size_t len;
	int rc, kind;

	callus_pu_fail_init(&st.f, 0);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if ((kind = entry_header(s, len))) {
			if ((rc = callus_pu_fail_flush(&st.f, diags, files, in->pc)) < 0)
				break;
			callus_pu_fail_start(&st.f);
			st.kind = kind;
			st.phase = 1;
			continue;
		}
		if (!st.f.open)
			continue;
		/* the totals, or rails's "bin/rails test test/x.rb:7" */
		if (is_totals(s, len) || callus_pu_find(s, len, "rails test ") >= 0) {
			if ((rc = callus_pu_fail_flush(&st.f, diags, files, in->pc)) < 0)
				break;
			continue;
		}
		if ((rc = entry_line(&st, s, len)) < 0)
			break;
	}
	if (rc >= 0)
		rc = callus_pu_fail_flush(&st.f, diags, files, in->pc);
	callus_pu_fail_release(&st.f);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	return is_totals(s, len) && callus_pu_find(s, len, " skips") > 0;
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "minitest", "rake test", "rails test", NULL };

const callus_parser callus_parser_minitest = { "minitest", tools, sniff, parse, sniff_line };
