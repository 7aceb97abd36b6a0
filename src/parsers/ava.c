/*
 * ava.c - AVA's report.
 *
 *     ✘ [fail]: price › adds the tax
 *     ✘ [fail]: price › parses a whole price Error thrown in test
 *     ─
 *
 *     price › adds the tax
 *
 *     test/price.test.js:5
 *
 *      4: test("adds the tax", (t) => {
 *      5:   t.is(withTax(1000, 0.2), 1200);
 *
 *     Difference (- actual, + expected):
 *
 *     - 200
 *     + 1200
 *
 *     › file://test/price.test.js:5:5
 *
 *     price › parses a whole price
 *
 *     Error thrown in test:
 *
 *     TypeError {
 *       message: 'Cannot read properties of undefined (reading \'padEnd\')',
 *     }
 *
 *     TypeError: Cannot read properties of undefined (reading 'padEnd')
 *         at parsePrice (file:///abs/src/price.js:7:48)
 *
 * The "✘ [fail]:" lines name the failed tests; below the rule each one's
 * details start with its name alone.  One diagnostic per failed test: its
 * message is what AVA says of the assertion (the difference included) or
 * the error's own line; a failed assertion's message starts with the
 * assertion the excerpt shows at its line ("t.is: Difference ..."): which
 * assertion failed is the kind of failure.  It is located at the innermost
 * stack frame in the project, else where AVA says the assertion is.  The
 * error's object dump is context.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

#define FAIL "\xe2\x9c\x98 [fail]: " /* ✘ [fail]: */
#define RULE "\xe2\x94\x80"          /* ─ */

typedef struct state {
	callus_strlist failed;   /* "✘ [fail]:" names, as printed */
	callus_js_failure f;
	int details;             /* past the rule */
	int dump;                /* inside an error's object dump */
	int error_line;          /* the error's own line was read */
	callus_buf assertion;    /* "t.is", from the source excerpt at the location */
} state;

/* s (trimmed) is the name of a failed test: a "✘ [fail]:" line is it,
 * maybe followed by " Error thrown in test" or the like. */
static int is_title(const state *st, const char *s, size_t len)
{
	for (size_t i = 0; i < st->failed.count; i++) {
		const char *n = st->failed.items[i];
		size_t nl = strlen(n);

		if (nl >= len && !memcmp(n, s, len) && (nl == len || n[len] == ' '))
			return 1;
	}
	return 0;
}

static int flush(state *st, const callus_parse_input *in, callus_diags *diags,
		 callus_strlist *files)
{
	/* the test's own file is a frame of the stack when an error was thrown */
	for (size_t k = 0; st->f.open && k < st->f.frames.count; k++) {
		const char *e = st->f.frames.items[k], *file = strchr(e, '\t'), *end;

		if (file && (end = strchr(file + 1, '\t')) &&
		    callus_parse_file(files, NULL, in->pc, file + 1, (size_t)(end - file - 1)) < 0)
			return CALLUS_ENOMEM;
	}
	/* "t.is: Difference ...": which assertion failed is the kind of failure */
	if (st->f.open && st->assertion.len && !st->error_line) {
		callus_buf m = CALLUS_BUF_INIT;

		callus_buf_put(&m, st->assertion.ptr, st->assertion.len);
		callus_buf_puts(&m, ": ");
		callus_buf_put(&m, st->f.message.ptr ? st->f.message.ptr : "", st->f.message.len);
		callus_buf_clear(&st->f.message);
		callus_js_message_add(&st->f.message, m.ptr ? m.ptr : "", m.len);
		callus_buf_release(&m);
	}
	callus_buf_clear(&st->assertion);
	st->dump = st->error_line = 0;
	return callus_js_failure_flush(&st->f, in->pc, diags, files, NULL);
}

/* "› file://test/price.test.js:5:5": where the assertion is, again (with
 * its column); not a frame of a stack */
static int arrow_location(state *st, const char *s, size_t len)
{
	size_t fl;
	long line, col;

	if (!callus_pu_starts(s, len, "\xe2\x80\xba ") ||
	    !callus_js_split_location(s + 4, len - 4, &fl, &line, &col))
		return 0;
	if (!st->f.file.len && callus_js_path(&st->f.file, s + 4, fl) < 0)
		return CALLUS_ENOMEM;
	if (!st->f.line)
		st->f.line = line;
	return 1;
}

/* " 5:   t.is(withTax(1000, 0.2), 1200);" at the assertion's line: "t.is" */
static int excerpt(state *st, const char *t, size_t tl)
{
	size_t i = 0, n, start;
	long line = callus_pu_num(t, tl, &n);

	if (!n || n >= tl || t[n] != ':')
		return 0;
	if (line != st->f.line || st->assertion.len)
		return 1;
	for (i = n + 1; i < tl && t[i] == ' '; i++)
		;
	start = i;
	while (i < tl && ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
			  (t[i] >= '0' && t[i] <= '9') || t[i] == '.' || t[i] == '_' || t[i] == '$'))
		i++;
	if (i < tl && t[i] == '(' && i > start && memchr(t + start, '.', i - start))
		callus_buf_put(&st->assertion, t + start, i - start);
	return 1;
}

static int detail_line(state *st, const callus_parse_input *in, const char *s, size_t len)
{
	size_t ind = callus_js_indent(s, len), fl;
	const char *t = s + ind;
	size_t tl = len - ind;
	callus_js_frame fr;
	long line, col;
	int rc;

	if (ind == 2 && is_title(st, t, tl)) {
		/* the previous one was flushed by the caller */
		callus_js_failure_start(&st->f);
		return callus_js_failure_test(&st->f, t, tl);
	}
	if (!st->f.open || !tl)
		return 0;
	if (callus_js_parse_frame(s, len, 1, &fr))
		return callus_js_failure_frame(&st->f, in->pc, &fr) < 0 ? CALLUS_ENOMEM : 0;
	if ((rc = arrow_location(st, t, tl)))
		return rc < 0 ? rc : 0;
	/* "test/price.test.js:5": where the assertion is */
	if (!st->f.file.len && !st->f.message.len && callus_js_split_location(t, tl, &fl, &line, &col) &&
	    !memchr(t, ' ', tl)) {
		callus_buf_put(&st->f.file, t, fl);
		st->f.line = line;
		return callus_buf_status(&st->f.file);
	}
	/* the source excerpt: " 5:   t.is(...)" */
	if (ind >= 3 && t[0] >= '0' && t[0] <= '9' && (rc = excerpt(st, t, tl)))
		return callus_buf_status(&st->assertion);
	if (callus_pu_starts(t, tl, "Error thrown in test"))
		return 0;
	/* the error's object dump: "TypeError {" ... "}" */
	if (tl > 2 && t[tl - 1] == '{' && t[tl - 2] == ' ') {
		st->dump = 1;
		return 0;
	}
	if (st->dump) {
		st->dump = !(ind == 2 && tl == 1 && t[0] == '}');
		return 0;
	}
	if (st->error_line)
		return 0;
	/* "TypeError: message" ends what is said of it; its stack follows */
	if (memchr(t, ':', tl) && t[0] >= 'A' && t[0] <= 'Z' && !callus_pu_starts(t, tl, "Difference")) {
		const char *colon = memchr(t, ':', tl);
		size_t nl = (size_t)(colon - t);

		if (nl > 5 && (!memcmp(colon - 5, "Error", 5) || (nl > 9 && !memcmp(colon - 9, "Exception", 9)))) {
			callus_buf_clear(&st->f.message);
			st->error_line = 1;
		}
	}
	return callus_js_message_add(&st->f.message, t, tl);
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st;
	callus_js_lines it;
	const char *s;
	size_t len, ind;
	int rc;

	memset(&st, 0, sizeof(st));
	callus_buf_init(&st.assertion, 0);
	callus_js_failure_init(&st.f);
	callus_js_lines_init(&it, in);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		ind = callus_js_indent(s, len);
		if (!st.details && callus_pu_starts(s + ind, len - ind, FAIL)) {
			if ((rc = callus_strlist_add(&st.failed, s + ind + strlen(FAIL),
						   len - ind - strlen(FAIL))) < 0)
				break;
			continue;
		}
		if (len - ind == 3 && !memcmp(s + ind, RULE, 3)) {
			/* the rule before the details, and the one after them */
			if (st.details && (rc = flush(&st, in, diags, files)) < 0)
				break;
			st.details = !st.details;
			continue;
		}
		if (!st.details)
			continue;
		if (callus_js_indent(s, len) == 2 && is_title(&st, s + 2, len - 2) &&
		    (rc = flush(&st, in, diags, files)) < 0)
			break;
		if ((rc = detail_line(&st, in, s, len)) < 0)
			break;
	}
	if (rc >= 0)
		rc = flush(&st, in, diags, files);
	callus_strlist_release(&st.failed);
	callus_buf_release(&st.assertion);
	callus_js_failure_release(&st.f);
	callus_js_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t ind = callus_js_indent(s, len);

	return callus_pu_starts(s + ind, len - ind, FAIL);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "ava", NULL };

const callus_parser callus_parser_ava = { "ava", tools, sniff, parse, sniff_line };
