/*
 * gradle.c - Gradle: its Java compile tasks' errors, its test task's
 * failures, and what went wrong when neither says.
 *
 *   :compileJava/abs/src/main/java/shop/Coupon.java:12: error: incompatible types: ...
 *   > Task :compileJava FAILED                 (Gradle 5 and later: on its own line)
 *   shop.BasketTest > totalAddsEveryPrice FAILED
 *       java.lang.AssertionError at BasketTest.java:13          (the short format)
 *   shop.BasketTest > totalAddsEveryPrice FAILED
 *       java.lang.AssertionError: expected:<350> but was:<250>   (exceptionFormat full)
 *           at org.junit.Assert.fail(Assert.java:89)
 *           at shop.BasketTest.totalAddsEveryPrice(BasketTest.java:13)
 *   * What went wrong:
 *   Execution failed for task ':test'.
 *   > There were failing tests. See the report at: file:///abs/build/reports/tests/test/index.html
 *
 * The compile errors are javac's (the plain console glues the task's name
 * to the first one): javac's parser reads them, the task names taken off;
 * the Kotlin plugin's ("e: file:///abs/x.kt:4:25 msg") are kotlinc's.
 * A failing test is one diagnostic: "CLASS > METHOD" as printed is the
 * test, the exception's simple name the code, its message (else its line)
 * the message, located at the innermost frame of the project's classes,
 * in the build's layout (jvm_util.h) under the project whose report the
 * output names.  When neither is found, the "What went wrong" message is
 * the error, without a place.
 */
#include "parsers/parsers.h"
#include "parsers/jvm_util.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FAILURES 1000

/* ":compileJava/abs/x.java:3: error": the task's length before the path */
static size_t task_prefix(const char *s, size_t len)
{
	size_t i = 1;

	if (!len || s[0] != ':')
		return 0;
	while (i < len && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
			   (s[i] >= '0' && s[i] <= '9') || s[i] == ':' || s[i] == '-' || s[i] == '_'))
		i++;
	return i > 1 && i < len && s[i] == '/' ? i : 0;
}

/* text without the task names glued to javac's lines, into out */
static int strip_tasks(callus_buf *out, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;

	while (callus_next_line(&p, end, &s, &n)) {
		size_t t = task_prefix(s, n);

		callus_buf_put(out, s + t, n - t);
		callus_buf_putc(out, '\n');
	}
	return callus_buf_status(out);
}

static int compile_errors(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_buf text = CALLUS_BUF_INIT, raw = CALLUS_BUF_INIT;
	callus_parse_input j = *in;
	int rc;

	if ((rc = strip_tasks(&text, in->text, in->text_len)) < 0 ||
	    (in->raw && (rc = strip_tasks(&raw, in->raw, in->raw_len)) < 0))
		goto out;
	j.text = text.ptr ? text.ptr : "";
	j.text_len = text.len;
	j.raw = in->raw ? (raw.ptr ? raw.ptr : "") : NULL;
	j.raw_len = raw.len;
	if ((rc = callus_parser_javac.parse(&j, diags, files)) == 0)
		rc = callus_parser_kotlinc.parse(&j, diags, files);
out:
	callus_buf_release(&text);
	callus_buf_release(&raw);
	return rc;
}

typedef struct failure {
	callus_buf test, type, msg;
	callus_jvm_frame where; /* spans into `frame` */
	callus_buf frame;	/* "cls\tmethod\tfile" of the innermost project frame */
	long line;
} failure;

/* "shop.BasketTest > totalAddsEveryPrice FAILED": the test's length */
static size_t test_header(const char *s, size_t len)
{
	const char *gt;

	if (!len || s[0] == ' ' || s[0] == '\t' || !callus_pu_ends(s, len, " FAILED") ||
	    !(gt = memmem(s, len, " > ", 3)))
		return 0;
	return len - 7;
}

/* "java.lang.AssertionError at BasketTest.java:13": Gradle's short
 * format, the exception and the place of the test's own frame */
static int short_place(const char *s, size_t len, size_t *exc_len, const char **file,
		       size_t *file_len, long *line)
{
	long at = callus_pu_find(s, len, " at ");
	callus_pu_loc loc;

	if (at <= 0 || !callus_pu_location(s + at + 4, len - (size_t)at - 4, &loc) ||
	    loc.end != len - (size_t)at - 4)
		return 0;
	*exc_len = (size_t)at;
	*file = loc.path;
	*file_len = loc.path_len;
	*line = loc.line;
	return 1;
}

static int set_frame(failure *f, const char *cls, size_t cls_len, const char *method,
		     size_t method_len, const char *file, size_t file_len, long line)
{
	callus_buf_clear(&f->frame);
	callus_buf_put(&f->frame, cls, cls_len);
	callus_buf_put(&f->frame, method, method_len);
	callus_buf_put(&f->frame, file, file_len);
	if (callus_buf_status(&f->frame) < 0)
		return CALLUS_ENOMEM;
	f->where.cls = f->frame.ptr;
	f->where.cls_len = cls_len;
	f->where.method = f->frame.ptr + cls_len;
	f->where.method_len = method_len;
	f->where.file = f->frame.ptr + cls_len + method_len;
	f->where.file_len = file_len;
	f->where.line = line;
	f->line = line;
	return 0;
}

static int emit(failure *f, const char *base, size_t base_len, const callus_parse_input *in,
		callus_diags *diags, callus_strlist *files)
{
	callus_buf path = CALLUS_BUF_INIT;
	const char *t = f->type.ptr ? f->type.ptr : "", *dot = strrchr(t, '.');
	const char *code = dot && dot[1] ? dot + 1 : t;
	callus_diag *d = NULL;
	int rc = 0;

	if (f->frame.len &&
	    (rc = callus_jvm_source(&path, base, base_len, &f->where,
				    callus_jvm_is_test_class(f->where.cls, f->where.cls_len))) < 0)
		goto out;
	if ((rc = callus_pu_diag(&d, diags, files, in->pc, path.len ? path.ptr : NULL, path.len,
				 path.len ? f->line : 0, 0, *code ? code : NULL, strlen(code),
				 f->msg.ptr ? f->msg.ptr : "", f->msg.len, "error")) < 0 || !d)
		goto out;
	rc = callus_pu_set_test(d, f->test.ptr, f->test.len);
out:
	callus_buf_release(&path);
	return rc;
}

static void failure_release(failure *f)
{
	callus_buf_release(&f->test);
	callus_buf_release(&f->type);
	callus_buf_release(&f->msg);
	callus_buf_release(&f->frame);
}

/* "See the report at: file:///abs/sub/build/reports/tests/...": /abs/sub */
static int report_base(const char *s, size_t len, callus_buf *base)
{
	long at = callus_pu_find(s, len, "See the report at: file://"), b;
	const char *p;
	size_t n;

	if (at < 0)
		return 0;
	p = s + at + 26;
	n = len - (size_t)at - 26;
	if ((b = callus_pu_find(p, n, "/build/reports/")) < 0)
		return 0;
	callus_buf_clear(base);
	callus_buf_put(base, p, (size_t)b);
	return 1;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_pu_lines it;
	callus_buf base = CALLUS_BUF_INIT, wrong = CALLUS_BUF_INIT;
	failure *fs = NULL, *f = NULL;
	size_t nf = 0, before = diags->count + diags->dropped;
	const char *s;
	size_t len;
	int rc, phase = 0, what_went_wrong = 0;

	if ((rc = compile_errors(in, diags, files)) < 0)
		return rc;
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		size_t ind = callus_pu_indent(s, len), n, exc_len, file_len;
		const char *t = s + ind, *file;
		size_t tl = len - ind;
		callus_jvm_frame fr;
		long line;

		if ((n = test_header(s, len)) > 0) {
			failure *grown;

			if (nf == MAX_FAILURES)
				continue;
			if (!(grown = realloc(fs, (nf + 1) * sizeof(*fs)))) {
				rc = CALLUS_ENOMEM;
				break;
			}
			fs = grown;
			f = &fs[nf++];
			memset(f, 0, sizeof(*f));
			callus_buf_put(&f->test, s, n);
			phase = 1;
			continue;
		}
		if (report_base(s, len, &base))
			continue;
		if (callus_pu_starts(s, len, "* What went wrong:")) {
			what_went_wrong = 1;
			continue;
		}
		if (what_went_wrong == 1 && !wrong.len && callus_pu_starts(s, len, "> ")) {
			callus_buf_put(&wrong, s + 2, callus_pu_cut(s + 2, len - 2, CALLUS_PU_TEXT_MAX));
			what_went_wrong = 2;
			continue;
		}
		if (!phase || !f)
			continue;
		if (!ind) {
			phase = 0;
			continue;
		}
		if (phase == 1) {
			/* the exception's line */
			const char *colon = memchr(t, ':', tl);

			phase = 2;
			if (short_place(t, tl, &exc_len, &file, &file_len, &line)) {
				/* the test's own class and method: "CLASS > METHOD" */
				const char *cls = f->test.ptr, *gt = strstr(cls, " > ");

				callus_buf_put(&f->type, t, exc_len);
				callus_buf_put(&f->msg, t, callus_pu_cut(t, tl, CALLUS_PU_TEXT_MAX));
				if ((rc = set_frame(f, cls, (size_t)(gt - cls), gt + 3,
						    f->test.len - (size_t)(gt + 3 - cls), file, file_len,
						    line)) < 0)
					break;
				continue;
			}
			if (colon && colon[1] == ' ') {
				callus_buf_put(&f->type, t, (size_t)(colon - t));
				callus_buf_put(&f->msg, colon + 2,
					       callus_pu_cut(colon + 2, (size_t)(t + tl - colon - 2),
							     CALLUS_PU_TEXT_MAX));
			} else {
				callus_buf_put(&f->type, t, tl);
				callus_buf_put(&f->msg, t, callus_pu_cut(t, tl, CALLUS_PU_TEXT_MAX));
			}
			continue;
		}
		/* the full format's frames: the innermost of the project's classes */
		if (!f->frame.len && callus_jvm_frame_parse(s, len, &fr) && fr.line &&
		    !callus_jvm_third_party(fr.cls, fr.cls_len) &&
		    (rc = set_frame(f, fr.cls, fr.cls_len, fr.method, fr.method_len, fr.file,
				    fr.file_len, fr.line)) < 0)
			break;
	}
	callus_pu_lines_release(&it);
	for (size_t i = 0; rc >= 0 && i < nf; i++)
		rc = emit(&fs[i], base.ptr ? base.ptr : "", base.len, in, diags, files);
	if (rc >= 0 && wrong.len && diags->count + diags->dropped == before)
		rc = callus_parse_diag(diags, files, in->pc, NULL, 0, 0, 0, NULL, 0, wrong.ptr,
				       wrong.len, "error");
	for (size_t i = 0; i < nf; i++)
		failure_release(&fs[i]);
	free(fs);
	callus_buf_release(&base);
	callus_buf_release(&wrong);
	return rc < 0 ? rc : 0;
}

/* "FAILURE: Build failed with an exception.", "BUILD FAILED in 5s" */
static int sniff_line(const char *s, size_t len)
{
	return callus_pu_starts(s, len, "FAILURE: Build failed with an exception") ||
	       callus_pu_starts(s, len, "BUILD FAILED in ") ||
	       (callus_pu_starts(s, len, "> Task :") && callus_pu_ends(s, len, " FAILED"));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = {"gradle", NULL};

const callus_parser callus_parser_gradle = { "gradle", tools, sniff, parse, sniff_line };
