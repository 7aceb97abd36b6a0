/*
 * exunit.c - ExUnit's report (mix test).
 *
 *     1) test price of a missing item (Shop.CartTest)
 *        test/cart_test.exs:16
 *        ** (MatchError) no match of right hand side value: nil
 *        code: assert Cart.price!(Cart.new(), "milk") == 0
 *        stacktrace:
 *          (shop 0.1.0) lib/cart.ex:13: Shop.Cart.price!/2
 *          test/cart_test.exs:17: (test)
 *
 *     2) test total sums the prices (Shop.CartTest)
 *        test/cart_test.exs:6
 *        Assertion with == failed
 *        code:  assert Cart.total(cart) == 30
 *        left:  31
 *        right: 30
 *        stacktrace:
 *          test/cart_test.exs:8: (test)
 *
 * One diagnostic per failure, named as ExUnit names it; an exception's
 * module (MatchError) is the code.  The message is the assertion's, with
 * its left and right values: what differs is what the lesson needs; the
 * "code:" line repeats the source.  It is located at the innermost frame
 * of the stack inside the workspace (frames in dependencies are under
 * deps/), else at the test's line.  A file that does not compile ("**
 * (CompileError) lib/x.ex:3: ...") is an error there.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "  12) test name (Module)" -> the name. */
static int failure_header(const char *s, size_t len, const char **name, size_t *nl)
{
	size_t i = callus_pu_indent(s, len), n;

	if (i < 1 || i > 4)
		return 0;
	callus_pu_num(s + i, len - i, &n);
	if (!n || i + n + 2 > len || s[i + n] != ')' || s[i + n + 1] != ' ')
		return 0;
	*name = s + i + n + 2;
	*nl = len - i - n - 2;
	return *nl > 0;
}

/* "** (MatchError) msg" -> the module's span, and what follows. */
static int exception_line(const char *s, size_t len, const char **mod, size_t *ml,
			  const char **rest, size_t *rl)
{
	const char *close;

	if (!callus_pu_starts(s, len, "** (") || !(close = memchr(s + 4, ')', len - 4)))
		return 0;
	*mod = s + 4;
	*ml = (size_t)(close - s - 4);
	*rest = close + 1;
	*rl = (size_t)(s + len - *rest);
	callus_pu_trim(rest, rl);
	return *ml > 0;
}

/* "(shop 0.1.0) lib/cart.ex:13: Shop.Cart.price!/2", "test/x.exs:8: (test)" */
static int frame_line(const char *s, size_t len, callus_pu_loc *loc, const char **fn, size_t *fl)
{
	if (len && s[0] == '(') {
		const char *close = memchr(s, ')', len);

		if (!close || close + 2 > s + len)
			return 0;
		len -= (size_t)(close + 2 - s);
		s = close + 2;
	}
	if (!callus_pu_location(s, len, loc) || loc->has_col || loc->end >= len || s[loc->end] != ' ')
		return 0;
	*fn = s + loc->end + 1;
	*fl = len - loc->end - 1;
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_fail f;
	callus_pu_lines it;
	callus_pu_loc loc;
	const char *s, *t, *name, *mod, *rest, *fn;
	size_t len, tl, nl, ml, rl, fl;
	int rc, stack = 0;

	callus_pu_fail_init(&f, 0);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		t = s;
		tl = len;
		callus_pu_trim(&t, &tl);
		if (failure_header(s, len, &name, &nl)) {
			if ((rc = callus_pu_fail_flush(&f, diags, files, in->pc)) < 0)
				break;
			callus_pu_fail_start(&f);
			callus_buf_put(&f.test, name, nl);
			stack = 0;
			continue;
		}
		if (!f.open) {
			/* "** (CompileError) lib/cart.ex:5: undefined function foo/0" */
			if (!callus_pu_indent(s, len) && exception_line(s, len, &mod, &ml, &rest, &rl) &&
			    callus_pu_location(rest, rl, &loc) &&
			    (rc = callus_pu_diag(NULL, diags, files, in->pc, loc.path, loc.path_len,
					       loc.line, loc.col, mod, ml, rest + loc.end,
					       rl - loc.end, "error")) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(s, len, "Finished in ") || (len && s[0] != ' ')) {
			if ((rc = callus_pu_fail_flush(&f, diags, files, in->pc)) < 0)
				break;
			continue;
		}
		if (stack) {
			if (frame_line(t, tl, &loc, &fn, &fl)) {
				/* "(test)": the test's own body, which the test's name names */
				if (fl == 6 && !memcmp(fn, "(test)", 6)) {
					fn = f.test.ptr ? f.test.ptr : "";
					fl = f.test.len;
				}
				if ((rc = callus_pu_frames_add(&f.frames, fn, fl, loc.path, loc.path_len,
							     loc.line)) < 0)
					break;
				continue;
			}
			/* the stack ends a failure: what follows (--trace's "* test"
			 * lines) is not its message */
			stack = 0;
			if ((rc = callus_pu_fail_flush(&f, diags, files, in->pc)) < 0)
				break;
			continue;
		}
		if (!tl || callus_pu_starts(t, tl, "code:"))
			continue;
		if (tl == 11 && !memcmp(t, "stacktrace:", 11)) {
			stack = 1;
			continue;
		}
		/* the test's line, first */
		if (!f.file.len && !f.msg.len && callus_pu_location(t, tl, &loc) && loc.end == tl) {
			callus_buf_put(&f.file, loc.path, loc.path_len);
			f.line = loc.line;
			continue;
		}
		if (!f.type.len && !f.msg.len && exception_line(t, tl, &mod, &ml, &rest, &rl)) {
			callus_buf_put(&f.type, mod, ml);
			rc = callus_pu_fail_msg(&f, rest, rl);
		} else {
			rc = callus_pu_fail_msg(&f, t, tl);
		}
		if (rc < 0)
			break;
	}
	if (rc >= 0)
		rc = callus_pu_fail_flush(&f, diags, files, in->pc);
	callus_pu_fail_release(&f);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t n;

	/* "4 tests, 3 failures", "1 doctest, 4 tests, 0 failures" */
	callus_pu_num(s, len, &n);
	return n && (callus_pu_starts(s + n, len - n, " test, ") ||
		     callus_pu_starts(s + n, len - n, " tests, ") ||
		     callus_pu_starts(s + n, len - n, " doctest")) &&
	       callus_pu_find(s, len, " failure") > 0 && callus_pu_find(s, len, " assertions") < 0;
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "mix test", "exunit", NULL };

const callus_parser callus_parser_exunit = { "exunit", tools, sniff, parse, sniff_line };
