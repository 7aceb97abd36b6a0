/*
 * rspec.c - RSpec's report (progress and documentation formats).
 *
 *   Failures:
 *
 *     1) Cart#total sums the prices
 *        Failure/Error: expect(cart.total).to eq(30)
 *
 *          expected: 30
 *               got: 29
 *
 *          (compared using ==)
 *        # ./spec/cart_spec.rb:9:in `block (3 levels) in <top (required)>'
 *
 *     2) Cart#find raises for a missing item
 *        Failure/Error: @items.find { |item| item[:name] == name }.fetch(:price)
 *
 *        NoMethodError:
 *          undefined method `fetch' for nil:NilClass
 *        # ./lib/cart.rb:25:in `find'
 *        # ./spec/cart_spec.rb:26:in `block (3 levels) in <top (required)>'
 *
 *   Failed examples:
 *
 *   rspec ./spec/cart_spec.rb:7 # Cart#total sums the prices
 *
 * One diagnostic per failure, named by the example's description, at the
 * innermost backtrace line inside the workspace.  An exception's class is
 * the code; an expectation that was not met has none, and its message is
 * what RSpec says of it ("expected: 30 got: 29"), up to the first blank
 * line (then come the "(compared using ==)" note, a diff, or Ruby's
 * highlighted source).  "Failure/Error:" repeats the source line: skipped.
 * A file that does not load ("An error occurred while loading
 * ./spec/x_spec.rb.") is a failure of that file.  "Failed examples:" is
 * read only when no failure was (an output cut short).
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct state {
	callus_pu_fail f;
	int in_failures;
	int msg_done;  /* a blank line ended the message */
	int after_type; /* the exception's class was read: its message follows */
	size_t found;
} state;

/* "  12) description" -> the description. */
static int example_header(const char *s, size_t len, const char **desc, size_t *dl)
{
	size_t i = callus_pu_indent(s, len), n;

	if (i < 1 || i > 4)
		return 0;
	callus_pu_num(s + i, len - i, &n);
	if (!n || i + n + 2 > len || s[i + n] != ')' || s[i + n + 1] != ' ')
		return 0;
	*desc = s + i + n + 2;
	*dl = len - i - n - 2;
	return *dl > 0;
}

/* "NoMethodError:", "ActiveRecord::RecordNotFound:" alone on a line. */
static size_t exception_class(const char *s, size_t len)
{
	if (len < 2 || s[len - 1] != ':' || s[0] < 'A' || s[0] > 'Z')
		return 0;
	for (size_t i = 0; i + 1 < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == ':'))
			return 0;
	return len - 1;
}

static int flush(state *st, const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	st->found += st->f.open;
	return callus_pu_fail_flush(&st->f, diags, files, in->pc);
}

static int failure_line(state *st, const char *s, size_t len)
{
	const char *file, *fn, *t = s;
	size_t fl, fnl, tl = len, n;
	long line;

	callus_pu_trim(&t, &tl);
	if (callus_pu_ruby_frame(s, len, &file, &fl, &line, &fn, &fnl)) {
		st->msg_done = 1;
		return callus_pu_frames_add(&st->f.frames, fn, fnl, file, fl, line);
	}
	if (!tl) {
		if (st->f.msg.len)
			st->msg_done = 1;
		return 0;
	}
	if (st->msg_done || callus_pu_starts(t, tl, "Failure/Error:") || t[0] == '#')
		return 0;
	if (!st->f.type.len && !st->f.msg.len && (n = exception_class(t, tl))) {
		callus_buf_put(&st->f.type, t, n);
		return callus_buf_status(&st->f.type);
	}
	return callus_pu_fail_msg(&st->f, t, tl);
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st = { 0 };
	callus_pu_lines it;
	const char *s, *desc;
	size_t len, dl;
	int rc;

	callus_pu_fail_init(&st.f, 0);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if (len == 9 && !memcmp(s, "Failures:", 9)) {
			st.in_failures = 1;
			continue;
		}
		if (callus_pu_starts(s, len, "Pending:") || callus_pu_starts(s, len, "Finished in ") ||
		    callus_pu_starts(s, len, "Failed examples:")) {
			if ((rc = flush(&st, in, diags, files)) < 0)
				break;
			st.in_failures = 0;
			continue;
		}
		/* "An error occurred while loading ./spec/x_spec.rb." */
		if (callus_pu_starts(s, len, "An error occurred while loading ")) {
			if ((rc = flush(&st, in, diags, files)) < 0)
				break;
			callus_pu_fail_start(&st.f);
			st.msg_done = 0;
			dl = len - 32;
			if (dl && s[len - 1] == '.')
				dl--;
			callus_buf_put(&st.f.file, s + 32, dl);
			st.in_failures = 1;
			continue;
		}
		if (st.in_failures && example_header(s, len, &desc, &dl)) {
			if ((rc = flush(&st, in, diags, files)) < 0)
				break;
			callus_pu_fail_start(&st.f);
			st.msg_done = 0;
			callus_buf_put(&st.f.test, desc, dl);
			continue;
		}
		if (st.f.open && (rc = failure_line(&st, s, len)) < 0)
			break;
		/* "rspec ./spec/cart_spec.rb:7 # Cart#total sums the prices" */
		if (!st.found && !st.f.open && callus_pu_starts(s, len, "rspec ")) {
			long hash = callus_pu_find(s, len, " # ");
			callus_pu_loc loc;
			callus_diag *d;

			if (hash < 7 || !callus_pu_location(s + 6, (size_t)hash - 6, &loc))
				continue;
			if ((rc = callus_pu_diag(&d, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, 0, NULL, 0, "failed", 6, "error")) < 0)
				break;
			if (d && (rc = callus_pu_set_test(d, s + hash + 3, len - (size_t)hash - 3)) < 0)
				break;
		}
	}
	if (rc >= 0)
		rc = flush(&st, in, diags, files);
	callus_pu_fail_release(&st.f);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t n;

	/* "7 examples, 4 failures" */
	callus_pu_num(s, len, &n);
	return (n && callus_pu_starts(s + n, len - n, " example") &&
		callus_pu_find(s, len, " failure") > 0) ||
	       (callus_pu_starts(s, len, "rspec ./") && callus_pu_find(s, len, " # ") > 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "rspec", "rake spec", NULL };

const callus_parser callus_parser_rspec = { "rspec", tools, sniff, parse, sniff_line };
