/*
 * phpunit.c - PHPUnit's report (9 and later; also through composer and
 * Pest's PHPUnit-style output).
 *
 *   There were 2 failures:
 *
 *   1) Shop\Tests\CartTest::testNames
 *   Failed asserting that two strings are identical.
 *   --- Expected
 *   +++ Actual
 *   @@ @@
 *   -'tea, cake'
 *   +'tea,cake'
 *
 *   /abs/tests/CartTest.php:21
 *
 *   There were 2 errors:
 *
 *   1) Shop\Tests\DiscountTest::testFullDiscount
 *   InvalidArgumentException: percent out of range: 150
 *
 *   /abs/src/Discount.php:12
 *   /abs/tests/DiscountTest.php:19
 *
 * One diagnostic per failure and error, named by the test, located at
 * the innermost line of its trace inside the workspace (the lines
 * "path:LINE" after the message, innermost first).  The message is the
 * block under the name, the expected/actual diff included: what changed is
 * what the lesson needs.  An error that names its exception's class
 * ("InvalidArgumentException: ...") has it as its code; PHP's warnings
 * turned into errors ("Undefined array key") have none.  The sections of
 * warnings, risky, skipped and incomplete tests do not fail a run.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

/* "There were 2 failures:", "There was 1 error:" -> 1 for failures and
 * errors, 0 for the other sections, -1 for no section header. */
static int section(const char *s, size_t len)
{
	if (!callus_pu_starts(s, len, "There w") || !callus_pu_ends(s, len, ":"))
		return -1;
	return callus_pu_find(s, len, " failure") > 0 || callus_pu_find(s, len, " error") > 0;
}

/* "12) Name" at the start of a line -> the name. */
static int entry(const char *s, size_t len, const char **name, size_t *nl)
{
	size_t n;

	callus_pu_num(s, len, &n);
	if (!n || n + 2 > len || s[n] != ')' || s[n + 1] != ' ')
		return 0;
	*name = s + n + 2;
	*nl = len - n - 2;
	return *nl > 0;
}

/* "Class: message": the class's length; PHP classes have namespaces. */
static size_t exception_class(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			   (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '\\'))
		i++;
	if (i < 2 || i + 1 >= len || s[i] != ':' || s[i + 1] != ' ' || s[0] < 'A' || s[0] > 'Z')
		return 0;
	/* "Error", "TypeError", "RuntimeException": a class, not a sentence */
	return callus_pu_ends(s, i, "Exception") || callus_pu_ends(s, i, "Error") ? i : 0;
}

/* A trace line: "/abs/src/Cart.php:25" alone. */
static int trace_line(const char *s, size_t len, callus_pu_loc *loc)
{
	return callus_pu_location(s, len, loc) && loc->end == len && !loc->has_col;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_fail f;
	callus_pu_lines it;
	callus_pu_loc loc;
	const char *s, *name;
	size_t len, nl, n;
	int rc, in_section = 0, msg_done = 0, sec;

	callus_pu_fail_init(&f, 0);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		if ((sec = section(s, len)) >= 0 || callus_pu_starts(s, len, "FAILURES!") ||
		    callus_pu_starts(s, len, "ERRORS!") || (len == 2 && !memcmp(s, "--", 2))) {
			if ((rc = callus_pu_fail_flush(&f, diags, files, in->pc)) < 0)
				break;
			in_section = sec > 0;
			continue;
		}
		if (!in_section)
			continue;
		if (entry(s, len, &name, &nl)) {
			if ((rc = callus_pu_fail_flush(&f, diags, files, in->pc)) < 0)
				break;
			callus_pu_fail_start(&f);
			callus_buf_put(&f.test, name, nl);
			msg_done = 0;
			continue;
		}
		if (!f.open)
			continue;
		if (trace_line(s, len, &loc)) {
			msg_done = 1;
			if ((rc = callus_pu_frames_add(&f.frames, NULL, 0, loc.path, loc.path_len,
						     loc.line)) < 0)
				break;
			continue;
		}
		if (!len) {
			/* the message ends at the trace, after a blank line */
			continue;
		}
		if (msg_done)
			continue;
		if (!f.msg.len && !f.type.len && (n = exception_class(s, len))) {
			callus_buf_put(&f.type, s, n);
			rc = callus_pu_fail_msg(&f, s + n + 2, len - n - 2);
		} else {
			rc = callus_pu_fail_msg(&f, s, len);
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
	return callus_pu_starts(s, len, "PHPUnit ") ||
	       (callus_pu_starts(s, len, "Tests: ") && callus_pu_find(s, len, "Assertions: ") > 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "phpunit", "composer test", "pest", NULL };

const callus_parser callus_parser_phpunit = { "phpunit", tools, sniff, parse, sniff_line };
