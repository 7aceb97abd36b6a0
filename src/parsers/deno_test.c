/*
 * deno_test.c - `deno test`'s reporters (pretty, the default, and dot:
 * both print their failures under " ERRORS ").
 *
 *   running 4 tests from ./tests/slug_test.ts
 *   slugify joins words with dashes ... FAILED (1ms)
 *
 *    ERRORS
 *
 *   slugify joins words with dashes => ./tests/slug_test.ts:4:6
 *   error: AssertionError: Expected values to be strictly equal:
 *
 *   3 !== 4
 *
 *     assert.equal(slugify("Hello Big World"), "hello-big-world");   (code)
 *            ^
 *       at file:///abs/tests/slug_test.ts:5:10
 *
 *    FAILURES                                  (the names again: not read)
 *
 * One diagnostic per "NAME => FILE:L:C" block: the test's name, the error
 * line without deno's "error: ", and when it ends in ":" (node's assert)
 * the lines that go on flush left ("3 !== 4", an actual/expected diff; the
 * code echo is indented), located at the innermost in-project frame, else
 * at the test's own place.  Type errors stop `deno test` before any test
 * runs: "TS2322 [ERROR]: message" and the "at FILE:L:C" under it are one
 * diagnostic with its code.  Without an ERRORS section (an output cut
 * short), the "NAME ... FAILED" lines say which tests of which file failed.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <string.h>

/* Lines of a message kept after an assertion that ends in ":". */
#define MORE_LINES 3

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* "NAME => ./tests/slug_test.ts:4:6": the offset of " => ", or 0 */
static size_t failure_header(const char *s, size_t len)
{
	const char *a = memmem(s, len, " => ", 4);
	size_t fl;
	long l, c;

	if (!a || a == s || s[0] == ' ')
		return 0;
	if (!callus_js_split_location(a + 4, (size_t)(s + len - a - 4), &fl, &l, &c) || !fl)
		return 0;
	return (size_t)(a - s);
}

/* "TS2322 [ERROR]: message": the offset of the message, or 0 */
static size_t ts_error(const char *s, size_t len, size_t *code_len)
{
	size_t i = 2;

	if (len < 12 || s[0] != 'T' || s[1] != 'S')
		return 0;
	while (i < len && is_digit(s[i]))
		i++;
	if (i == 2 || !callus_pu_starts(s + i, len - i, " [ERROR]: "))
		return 0;
	*code_len = i;
	return i + 10;
}

/* "NAME ... FAILED (5ms)": the name's length, or 0 */
static size_t failed_line(const char *s, size_t len)
{
	const char *d = memmem(s, len, " ... FAILED", 11);

	return d && d > s && s[0] != ' ' ? (size_t)(d - s) : 0;
}

/* "         ^": a caret under code or a diff */
static int caret_line(const char *s, size_t len)
{
	size_t i = callus_js_indent(s, len);

	while (i < len && (s[i] == '^' || s[i] == '~'))
		i++;
	return len && i == len && s[len - 1] != ' ';
}

static int emit_failed_lines(const callus_strlist *failed, const callus_pathctx *pc,
			     callus_diags *diags, callus_strlist *files)
{
	callus_js_failure f;
	int rc = 0;

	callus_js_failure_init(&f);
	/* "file\tname" */
	for (size_t i = 0; i < failed->count && rc >= 0; i++) {
		const char *e = failed->items[i], *tab = strchr(e, '\t');

		callus_js_failure_start(&f);
		callus_buf_put(&f.file, e, (size_t)(tab - e));
		if ((rc = callus_js_failure_test(&f, tab + 1, strlen(tab + 1))) >= 0)
			rc = callus_js_failure_flush(&f, pc, diags, files, NULL);
	}
	callus_js_failure_release(&f);
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	callus_js_failure f;
	callus_buf suite = CALLUS_BUF_INIT, entry = CALLUS_BUF_INIT, tsmsg = CALLUS_BUF_INIT;
	callus_strlist failed = CALLUS_STRLIST_INIT;
	const char *s;
	size_t len, before = diags->count + diags->dropped, more = 0, code_len = 0;
	char code[16] = "";
	int rc, errors = 0, continues = 0;

	callus_js_lines_init(&it, in);
	callus_js_failure_init(&f);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len), n, off;
		const char *t = s + i;
		size_t tl = len - i;
		callus_js_frame fr;

		if (!len || callus_js_wrapper_noise(s, len))
			continue;
		if (tl == 6 && !memcmp(t, "ERRORS", 6)) {
			errors = 1;
			continue;
		}
		if (tl == 8 && !memcmp(t, "FAILURES", 8))
			break;
		if (callus_pu_starts(s, len, "FAILED |") || callus_pu_starts(s, len, "ok |"))
			break;
		if ((off = ts_error(s, len, &code_len)) > 0) {
			callus_buf_clear(&tsmsg);
			if ((rc = callus_js_message_add(&tsmsg, s + off, len - off)) < 0)
				break;
			memcpy(code, s, code_len < sizeof(code) ? code_len : sizeof(code) - 1);
			code[code_len < sizeof(code) ? code_len : sizeof(code) - 1] = '\0';
			continue;
		}
		if (tsmsg.len && callus_js_parse_frame(s, len, 1, &fr)) {
			callus_buf path = CALLUS_BUF_INIT;

			rc = callus_js_path(&path, fr.file, fr.file_len);
			if (rc >= 0)
				rc = callus_parse_diag(diags, files, in->pc, path.ptr, path.len, fr.line,
						       fr.column, code, strlen(code), tsmsg.ptr,
						       tsmsg.len, "error");
			callus_buf_release(&path);
			callus_buf_clear(&tsmsg);
			if (rc < 0)
				break;
			continue;
		}
		if (!errors) {
			if (callus_pu_starts(s, len, "running ") && (off = (size_t)(
				    (const char *)memmem(s, len, " from ", 6) ?
				    (const char *)memmem(s, len, " from ", 6) - s + 6 : 0)) > 0) {
				if ((rc = callus_js_path(&suite, s + off, len - off)) < 0)
					break;
			} else if ((n = failed_line(s, len)) > 0) {
				callus_buf_clear(&entry);
				callus_buf_printf(&entry, "%.*s\t%.*s", (int)suite.len,
						  suite.ptr ? suite.ptr : "", (int)n, s);
				if (callus_buf_status(&entry) < 0 ||
				    callus_strlist_add(&failed, entry.ptr, entry.len) < 0) {
					rc = CALLUS_ENOMEM;
					break;
				}
			}
			continue;
		}
		if ((n = failure_header(s, len)) > 0) {
			size_t fl;

			if ((rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL)) < 0)
				break;
			callus_js_failure_start(&f);
			if ((rc = callus_js_failure_test(&f, s, n)) < 0)
				break;
			callus_js_split_location(s + n + 4, len - n - 4, &fl, &f.line, &f.column);
			if ((rc = callus_js_path(&f.file, s + n + 4, fl)) < 0)
				break;
			continues = 0;
			more = 0;
			continue;
		}
		if (!f.open)
			continue;
		if (callus_js_parse_frame(s, len, 1, &fr)) {
			continues = 0;
			if ((rc = callus_js_failure_frame(&f, in->pc, &fr)) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(t, tl, "at ") || f.frames.count || caret_line(s, len))
			continue;
		if (!f.has_header) {
			if (callus_pu_starts(t, tl, "error: ")) {
				t += 7;
				tl -= 7;
			}
			f.has_header = 1;
			continues = t[tl - 1] == ':';
			rc = callus_js_message_add(&f.message, t, tl);
		} else if (continues && !i && more < MORE_LINES) {
			more++;
			rc = callus_js_message_add(&f.message, s, len);
		}
		if (rc < 0)
			break;
	}
	if (rc >= 0)
		rc = callus_js_failure_flush(&f, in->pc, diags, files, NULL);
	if (rc >= 0 && diags->count + diags->dropped == before)
		rc = emit_failed_lines(&failed, in->pc, diags, files);
	callus_js_failure_release(&f);
	callus_js_lines_release(&it);
	callus_buf_release(&suite);
	callus_buf_release(&entry);
	callus_buf_release(&tsmsg);
	callus_strlist_release(&failed);
	return rc < 0 ? rc : 0;
}

/* "running 4 tests from ./x_test.ts", "FAILED | 2 passed | 3 failed" */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;

	while (callus_next_line(&p, end, &s, &n)) {
		if ((callus_pu_starts(s, n, "running ") && memmem(s, n, " from ./", 8)) ||
		    (callus_pu_starts(s, n, "FAILED | ") && memmem(s, n, " failed", 7)))
			return 1;
	}
	return 0;
}

static const char *const tools[] = {"deno test", NULL};

const callus_parser callus_parser_deno_test = { "deno_test", tools, sniff, parse, NULL };
