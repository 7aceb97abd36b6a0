/*
 * junit.c - JUnit XML, the report format most test runners and many
 * linters can print (pytest --junitxml, vitest and bun --reporter=junit,
 * go-junit-report, Maven's Surefire files, oxlint and eslint -f junit).
 * Chosen by the output's look, for any tool, and by the generic fallback.
 *
 *   <testsuite name="tests" failures="1">
 *     <testcase classname="tests.test_calc" name="test_add" file="tests/test_calc.py" line="3">
 *       <failure message="assert 3 == 4" type="AssertionError">tests/test_calc.py:4: ...</failure>
 *     </testcase>
 *   <testsuite name="src/cart.js">                       (a linter: one suite per file)
 *     <testcase name="eslint(no-debugger)">
 *       <failure message="`debugger` statement is not allowed">line 7, column 5, ...</failure>
 *
 * One diagnostic per <failure> or <error> of a test case: the test is
 * "classname.name"; the type attribute (a class's simple name) is the code,
 * the message attribute the message (else the body's first line).  It is
 * located by the case's file and line attributes when it has them, else by
 * the body: the crash line pytest ends a traceback with ("path:LINE:
 * Error"), else the first place in the workspace it names.  A linter's
 * report names the file in its suite, the rule in its case and "line N" in
 * its body: the rule is then the code.
 *
 * No XML library: the tags and attributes these reports use are read as
 * text, entities decoded, CDATA kept.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"
#include "callus/utf8.h"

#include <string.h>

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	callus_buf suite;          /* the suite's name when it is a file */
	callus_buf name, cls, file, line;
	callus_buf type, msg, body;
	int in_case, failed;
} state;

/* Decode XML's entities from s[0..len) into out (appended). */
static void decode(callus_buf *out, const char *s, size_t len)
{
	static const struct {
		const char *ent;
		char c;
	} ents[] = { { "&lt;", '<' }, { "&gt;", '>' }, { "&amp;", '&' }, { "&quot;", '"' },
		     { "&apos;", '\'' } };

	for (size_t i = 0; i < len; i++) {
		size_t k, n;

		if (s[i] != '&') {
			callus_buf_putc(out, s[i]);
			continue;
		}
		for (k = 0; k < sizeof(ents) / sizeof(ents[0]); k++)
			if (callus_pu_starts(s + i, len - i, ents[k].ent))
				break;
		if (k < sizeof(ents) / sizeof(ents[0])) {
			callus_buf_putc(out, ents[k].c);
			i += strlen(ents[k].ent) - 1;
		} else if (i + 3 < len && s[i + 1] == '#' && callus_pu_is_digit(s[i + 2])) {
			long v = callus_pu_num(s + i + 2, len - i - 2, &n);

			if (i + 2 + n < len && s[i + 2 + n] == ';' && v > 0 && v < 128) {
				callus_buf_putc(out, v == '\r' ? '\n' : (char)v);
				i += 2 + n;
			} else {
				callus_buf_putc(out, '&');
			}
		} else {
			callus_buf_putc(out, '&');
		}
	}
}

/* The value of attribute name in the tag's text [s, end), decoded into
 * out (cleared first).  1 when the tag has it. */
static int attr(callus_buf *out, const char *s, const char *end, const char *name)
{
	size_t n = strlen(name);

	callus_buf_clear(out);
	for (const char *p = s; p + n + 2 < end; p++) {
		const char *q;

		if ((p[-1] != ' ' && p[-1] != '\t' && p[-1] != '\n') || memcmp(p, name, n) ||
		    p[n] != '=' || (p[n + 1] != '"' && p[n + 1] != '\''))
			continue;
		if (!(q = memchr(p + n + 2, p[n + 1], (size_t)(end - p - n - 2))))
			return 0;
		decode(out, p + n + 2, (size_t)(q - p - n - 2));
		return 1;
	}
	return 0;
}

/* The first "path:LINE" of the body in the workspace, the crash line
 * ("path:LINE: ErrorType" alone on its line, one word after the place)
 * first. */
static int body_location(state *st, callus_buf *file, long *line)
{
	const char *p = st->body.ptr, *end = p + st->body.len, *s;
	callus_buf rel = CALLUS_BUF_INIT;
	callus_pu_loc loc;
	size_t len;
	int found = 0;

	for (int crash = 1; crash >= 0 && !found; crash--) {
		for (p = st->body.ptr; !found && callus_next_line(&p, end, &s, &len);) {
			size_t ind = callus_pu_indent(s, len);
			/* deno's frames name a file:// URL: the path is after it */
			long url = callus_pu_find(s, len, "file://");

			if (!crash && url >= 0) {
				s += url + 7;
				len -= (size_t)url + 7;
			}
			if (crash ? !callus_pu_location(s + ind, len - ind, &loc) ||
					    !callus_path_has_source_ext(loc.path, loc.path_len) ||
					    loc.end >= len - ind || s[ind + loc.end] != ' ' ||
					    memchr(s + ind + loc.end + 1, ' ', len - ind - loc.end - 1)
				  : !callus_pu_find_location(s, len, &loc) ||
					    /* Playwright's "a.spec.ts:5:3 › title" names the
					     * test, relative to its test directory */
					    callus_pu_starts(s + loc.end, len - loc.end, " \xe2\x80\xba "))
				continue;
			/* "at fn (/abs/x.ts:12:24)": the place inside the parenthesis */
			while (loc.path_len > 1 && loc.path[0] == '(') {
				loc.path++;
				loc.path_len--;
			}
			if (callus_path_relativize(&rel, st->in->pc, loc.path, loc.path_len)) {
				callus_buf_put(file, loc.path, loc.path_len);
				*line = loc.line;
				found = 1;
			}
		}
	}
	callus_buf_release(&rel);
	return found;
}

static int emit(state *st)
{
	callus_buf file = CALLUS_BUF_INIT, test = CALLUS_BUF_INIT, code = CALLUS_BUF_INIT;
	const char *msg = st->msg.ptr, *nl;
	size_t ml = st->msg.len, n;
	long line = 0;
	callus_diag *d = NULL;
	int lint = st->suite.len && !st->file.len && !st->cls.len, rc;

	if (st->file.len) {
		callus_buf_put(&file, st->file.ptr, st->file.len);
		line = callus_pu_num(st->line.ptr ? st->line.ptr : "", st->line.len, &n);
	} else if (lint) {
		/* "line 7, column 5, message" */
		long at = callus_pu_find(st->body.ptr ? st->body.ptr : "", st->body.len, "line ");

		callus_buf_put(&file, st->suite.ptr, st->suite.len);
		if (at >= 0)
			line = callus_pu_num(st->body.ptr + at + 5, st->body.len - (size_t)at - 5, &n);
	}
	if (!file.len)
		body_location(st, &file, &line);
	if (!ml) {
		msg = st->body.ptr ? st->body.ptr : "";
		ml = st->body.len;
		callus_pu_trim(&msg, &ml);
		while (ml && (msg[0] == '\n' || msg[0] == ' '))
			msg++, ml--;
		if ((nl = memchr(msg, '\n', ml)))
			ml = (size_t)(nl - msg);
	}
	if (lint) {
		callus_buf_put(&code, st->name.ptr ? st->name.ptr : "", st->name.len);
	} else {
		/* "java.lang.AssertionError" -> "AssertionError" */
		const char *t = st->type.ptr ? st->type.ptr : "", *dot = strrchr(t, '.');

		callus_buf_puts(&code, dot && dot[1] ? dot + 1 : t);
		if (st->cls.len) {
			callus_buf_put(&test, st->cls.ptr, st->cls.len);
			callus_buf_putc(&test, '.');
		}
		callus_buf_put(&test, st->name.ptr ? st->name.ptr : "", st->name.len);
	}
	if ((rc = callus_buf_status(&file)) < 0 || (rc = callus_buf_status(&test)) < 0 ||
	    (rc = callus_buf_status(&code)) < 0)
		goto out;
	if ((rc = callus_pu_diag(&d, st->diags, st->files, st->in->pc, file.len ? file.ptr : NULL,
			       file.len, line, 0, code.len ? code.ptr : NULL, code.len, msg, ml,
			       "error")) < 0 || !d)
		goto out;
	if (test.len)
		rc = callus_pu_set_test(d, test.ptr, test.len);
out:
	callus_buf_release(&file);
	callus_buf_release(&test);
	callus_buf_release(&code);
	return rc;
}

/* The tag at p (just past '<'), up to its '>': what it opens or closes. */
static int tag(state *st, const char *p, const char *gt, const char *end, const char **next)
{
	size_t n = (size_t)(gt - p);
	int self = n && gt[-1] == '/', rc = 0;

	*next = gt + 1;
	if (callus_pu_starts(p, n, "testsuite ") || callus_pu_starts(p, n, "testsuite>")) {
		callus_buf_clear(&st->suite);
		if ((attr(&st->file, p, gt, "file") || attr(&st->file, p, gt, "name")) &&
		    !memchr(st->file.ptr, ' ', st->file.len) &&
		    callus_path_has_source_ext(st->file.ptr, st->file.len))
			callus_buf_put(&st->suite, st->file.ptr, st->file.len);
		callus_buf_clear(&st->file);
	} else if (callus_pu_starts(p, n, "testcase ") || callus_pu_starts(p, n, "testcase>")) {
		attr(&st->name, p, gt, "name");
		attr(&st->cls, p, gt, "classname");
		attr(&st->file, p, gt, "file");
		attr(&st->line, p, gt, "line");
		st->in_case = !self;
		st->failed = 0;
	} else if (st->in_case && (callus_pu_starts(p, n, "failure") || callus_pu_starts(p, n, "error")) &&
		   (p[callus_pu_starts(p, n, "error") ? 5 : 7] == ' ' ||
		    p[callus_pu_starts(p, n, "error") ? 5 : 7] == '>' ||
		    p[callus_pu_starts(p, n, "error") ? 5 : 7] == '/')) {
		const char *close = NULL;

		st->failed = 1;
		attr(&st->type, p, gt, "type");
		attr(&st->msg, p, gt, "message");
		callus_buf_clear(&st->body);
		if (!self) {
			const char *b = gt + 1;
			long e = callus_pu_find(b, (size_t)(end - b), p[0] == 'f' ? "</failure>" : "</error>");

			close = e >= 0 ? b + e : end;
			/* "<![CDATA[...]]>" is kept as is */
			if (callus_pu_starts(b, (size_t)(close - b), "<![CDATA[")) {
				long ce = callus_pu_find(b + 9, (size_t)(close - b - 9), "]]>");
				callus_buf_put(&st->body, b + 9, ce >= 0 ? (size_t)ce : (size_t)(close - b - 9));
			} else {
				decode(&st->body, b, (size_t)(close - b));
			}
			*next = close;
		}
	} else if (callus_pu_starts(p, n, "/testcase")) {
		if (st->in_case && st->failed)
			rc = emit(st);
		st->in_case = st->failed = 0;
	} else if (callus_pu_starts(p, n, "/testsuite")) {
		callus_buf_clear(&st->suite);
	}
	return rc;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	const char *p = in->raw && in->raw_len ? in->raw : in->text;
	const char *end = p + (in->raw && in->raw_len ? in->raw_len : in->text_len), *lt, *gt, *next;
	callus_buf clean = CALLUS_BUF_INIT;
	state st;
	int rc = 0;

	/* the raw output as printed may hold invalid UTF-8: what is read
	 * from it becomes messages, names and codes */
	if (!callus_utf8_valid(p, (size_t)(end - p))) {
		if ((rc = callus_utf8_sanitize(&clean, p, (size_t)(end - p))) < 0)
			return rc;
		p = clean.ptr;
		end = p + clean.len;
	}
	memset(&st, 0, sizeof(st));
	st.in = in;
	st.diags = diags;
	st.files = files;
	callus_buf_init(&st.suite, 0);
	callus_buf_init(&st.name, 0);
	callus_buf_init(&st.cls, 0);
	callus_buf_init(&st.file, 0);
	callus_buf_init(&st.line, 0);
	callus_buf_init(&st.type, 0);
	callus_buf_init(&st.msg, 0);
	callus_buf_init(&st.body, 0);
	while (rc >= 0 && p < end && (lt = memchr(p, '<', (size_t)(end - p)))) {
		if (!(gt = memchr(lt, '>', (size_t)(end - lt))))
			break;
		rc = tag(&st, lt + 1, gt, end, &next);
		p = next > lt ? next : gt + 1;
		if (callus_buf_status(&st.body) < 0 || callus_buf_status(&st.msg) < 0 ||
		    callus_buf_status(&st.suite) < 0)
			rc = CALLUS_ENOMEM;
	}
	callus_buf_release(&st.suite);
	callus_buf_release(&st.name);
	callus_buf_release(&st.cls);
	callus_buf_release(&st.file);
	callus_buf_release(&st.line);
	callus_buf_release(&st.type);
	callus_buf_release(&st.msg);
	callus_buf_release(&st.body);
	callus_buf_release(&clean);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	long t = callus_pu_find(s, len, "<testsuite");

	return t >= 0 && (callus_pu_find(s + t, len - (size_t)t, "failures=") > 0 ||
			  callus_pu_find(s + t, len - (size_t)t, "errors=") > 0 ||
			  callus_pu_find(s + t, len - (size_t)t, "tests=") > 0);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "junit", NULL };

const callus_parser callus_parser_junit = { "junit", tools, sniff, parse, sniff_line };
