/*
 * maven.c - Maven: its compiler plugin's errors and Surefire's test
 * failures, behind Maven's log levels (and colours).
 *
 *   [ERROR] /abs/src/main/java/bank/Transfer.java:[16,16] incompatible types: ...
 *   [ERROR] interest(bank.AccountTest)  Time elapsed: 0.004 s  <<< FAILURE!     Surefire 2
 *   [ERROR] bank.AccountTest.interest -- Time elapsed: 0.004 s <<< FAILURE!      Surefire 3
 *   java.lang.AssertionError: expected:<50> but was:<5>
 *   	at bank.AccountTest.interest(AccountTest.java:18)
 *   [ERROR] Failures:
 *   [ERROR]   AccountTest.interest:18 expected:<50> but was:<5>
 *   [ERROR] Please refer to /abs/target/surefire-reports for the individual test results.
 *
 * A compiler error is printed twice (in the build and in the final
 * "Failed to execute goal"): read once.  A failing test is one diagnostic:
 * the exception's class (simple name) is its code, its message the
 * message, located at the innermost frame of the project's own classes
 * (the stack names classes and base names: jvm_util.h rebuilds the path in
 * Maven's layout, under the module's directory, which Maven prints as
 * "Compiling N source files to DIR/target/classes" or "Please refer to
 * DIR/target/surefire-reports", maybe after the failures: so failures are
 * emitted at the end).  The "Results:" list repeats each failure in one
 * line: it is read only for a test whose details were not printed.  When
 * neither is found, Maven's own "Failed to execute goal" message is the
 * error (a missing dependency, a plugin's failure).
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "parsers/jvm_util.h"
#include "parsers/util.h"
#include "callus/common.h"
#include "wordlist.h"

#include <stdlib.h>
#include <string.h>

#define MAX_FAILURES 1000

typedef struct failure {
	callus_buf test, type, msg;
	callus_pu_frames frames; /* in-project frames, innermost first, paths under the module */
	long base;		 /* index in st->bases, -1: not known when read */
} failure;

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	callus_strlist seen;    /* compiler errors read, "path:line:col msg" */
	callus_strlist bases;   /* module directories, as printed */
	callus_strlist classes; /* "Running CLASS": test classes */
	failure *f;
	size_t nf, cap;
	int phase;              /* 0 none, 1 its exception next, 2 message, 3 frames */
	callus_strlist summary; /* "Class.method:LINE msg" of the Results list */
	int in_results;
	callus_buf goal;        /* the first "Failed to execute goal" */
} state;

/* "[ERROR] " and friends: their length. */
static size_t level_prefix(const char *s, size_t len)
{
	static const callus_word levels[] = {
		CALLUS_WORD("[ERROR]"), CALLUS_WORD("[INFO]"), CALLUS_WORD("[WARNING]"),
		CALLUS_WORD("[WARN]"),  CALLUS_WORD("[DEBUG]"),
	};
	int k = callus_words_which_start(levels, CALLUS_WORDS_COUNT(levels), s, len);
	size_t n;

	if (k < 0)
		return 0;
	n = levels[k].len;
	return len > n && s[n] == ' ' ? n + 1 : n == len ? n : 0;
}

/* "PATH:[L,C] msg" (the compiler plugin) -> 1. */
static int compiler_line(const char *s, size_t len, callus_pu_loc *loc, const char **msg,
			 size_t *ml)
{
	long at = callus_pu_find(s, len, ":[");
	size_t i, n;

	if (at <= 0 || memchr(s, ' ', (size_t)at) ||
	    !(callus_pu_ends(s, (size_t)at, ".java") || callus_pu_ends(s, (size_t)at, ".kt")))
		return 0;
	loc->path = s;
	loc->path_len = (size_t)at;
	i = (size_t)at + 2;
	loc->line = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n >= len || s[i + n] != ',')
		return 0;
	i += n + 1;
	loc->col = callus_pu_num(s + i, len - i, &n);
	if (!n || i + n + 1 >= len || s[i + n] != ']')
		return 0;
	*msg = s + i + n + 1;
	*ml = len - (i + n + 1);
	callus_pu_trim(msg, ml);
	return 1;
}

static int compiler_error(state *st, const char *s, size_t len, const char *sev)
{
	callus_buf key = CALLUS_BUF_INIT;
	callus_pu_loc loc;
	const char *msg;
	size_t ml;
	int rc, added = 0;

	if (!compiler_line(s, len, &loc, &msg, &ml))
		return 0;
	callus_buf_put(&key, s, len);
	if ((rc = callus_buf_status(&key)) < 0 ||
	    (rc = callus_strlist_add_unique(&st->seen, key.ptr, key.len, &added)) < 0 || !added)
		goto out;
	rc = callus_pu_diag(NULL, st->diags, st->files, st->in->pc, loc.path, loc.path_len,
			  loc.line, loc.col, NULL, 0, msg, ml, sev);
out:
	callus_buf_release(&key);
	return rc < 0 ? rc : 1;
}

/* "DIR/target/classes", "DIR/target/surefire-reports" in a line: DIR. */
static int note_base(state *st, const char *s, size_t len)
{
	long t = callus_pu_find(s, len, "/target/");
	size_t start;

	if (t <= 0)
		return 0;
	for (start = (size_t)t; start > 0 && s[start - 1] != ' '; start--)
		;
	if (s[start] != '/' || (size_t)t == start)
		return 0;
	if (st->bases.count &&
	    strlen(st->bases.items[st->bases.count - 1]) == (size_t)t - start &&
	    !memcmp(st->bases.items[st->bases.count - 1], s + start, (size_t)t - start))
		return 0;
	return callus_strlist_add(&st->bases, s + start, (size_t)t - start) < 0 ? CALLUS_ENOMEM : 0;
}

/* A failing test's header -> its name, "pkg.Class.method". */
static int test_header(const char *s, size_t len, callus_buf *name)
{
	long t = callus_pu_find(s, len, " Time elapsed: ");
	size_t n;

	if (t <= 0 || callus_pu_starts(s, len, "Tests run:") ||
	    (callus_pu_find(s, len, "<<< FAILURE!") < 0 && callus_pu_find(s, len, "<<< ERROR!") < 0))
		return 0;
	n = (size_t)t;
	while (n && s[n - 1] == ' ')
		n--;
	if (n > 3 && !memcmp(s + n - 3, " --", 3))
		n -= 3;
	while (n && s[n - 1] == ' ')
		n--;
	callus_buf_clear(name);
	if (n && s[n - 1] == ')') {
		/* "method(pkg.Class)" */
		const char *open = memchr(s, '(', n);

		if (!open || open == s)
			return 0;
		callus_buf_put(name, open + 1, (size_t)(s + n - 1 - open - 1));
		callus_buf_putc(name, '.');
		callus_buf_put(name, s, (size_t)(open - s));
	} else {
		if (!n || memchr(s, ' ', n))
			return 0;
		callus_buf_put(name, s, n);
	}
	return 1;
}

static failure *new_failure(state *st)
{
	failure *f;

	if (st->nf >= MAX_FAILURES)
		return NULL;
	if (!(f = callus_array_grow(st->f, &st->cap, st->nf + 1, sizeof(*f))))
		return NULL;
	st->f = f;
	f = &st->f[st->nf++];
	memset(f, 0, sizeof(*f));
	callus_buf_init(&f->test, 0);
	callus_buf_init(&f->type, 0);
	callus_buf_init(&f->msg, 0);
	f->base = st->bases.count ? (long)st->bases.count - 1 : -1;
	return f;
}

static void free_failure(failure *f)
{
	callus_buf_release(&f->test);
	callus_buf_release(&f->type);
	callus_buf_release(&f->msg);
	callus_pu_frames_clear(&f->frames);
}

/* "java.lang.AssertionError: msg" -> the simple name and the message. */
static int exception_line(failure *f, const char *s, size_t len)
{
	size_t i = 0, last = 0;

	while (i < len && s[i] != ':' && s[i] != ' ') {
		if (s[i] == '.')
			last = i + 1;
		i++;
	}
	if (!i || (i < len && s[i] != ':') || last == i)
		return 0;
	callus_buf_put(&f->type, s + last, i - last);
	if (i + 1 < len)
		callus_js_message_add(&f->msg, s + i + 1, len - i - 1);
	return 1;
}

/* The first component of the test's package ("bank" of
 * "bank.AccountTest.interest"), the project's own: 0 without a package. */
static size_t top_package(const char *test, size_t len)
{
	const char *dot = memchr(test, '.', len);

	if (!dot || !memchr(dot + 1, '.', len - (size_t)(dot + 1 - test)))
		return 0;
	return (size_t)(dot - test);
}

static int add_frame(state *st, failure *f, const callus_jvm_frame *fr)
{
	callus_buf path = CALLUS_BUF_INIT, fn = CALLUS_BUF_INIT;
	size_t top = top_package(f->test.ptr ? f->test.ptr : "", f->test.len);
	int rc, test;

	(void)st;
	if (!fr->file_len || !fr->line || callus_jvm_third_party(fr->cls, fr->cls_len) ||
	    (top && (fr->cls_len <= top || memcmp(fr->cls, f->test.ptr, top + 1))))
		return 0;
	/* the failing test's own class, or one named like a test */
	test = (f->test.len > fr->cls_len && !memcmp(f->test.ptr, fr->cls, fr->cls_len) &&
		f->test.ptr[fr->cls_len] == '.') ||
	       callus_jvm_is_test_class(fr->cls, fr->cls_len);
	callus_buf_put(&fn, fr->method, fr->method_len);
	if ((rc = callus_jvm_source(&path, NULL, 0, fr, test)) == 0 &&
	    (rc = callus_buf_status(&fn)) == 0)
		rc = callus_pu_frames_add(&f->frames, fn.ptr, fn.len, path.ptr, path.len, fr->line);
	callus_buf_release(&path);
	callus_buf_release(&fn);
	return rc;
}

static int emit(state *st, failure *f)
{
	callus_pu_dir dir;
	const callus_pathctx *pc = st->in->pc;
	callus_diag *d = NULL;
	const char *file = NULL;
	long line = 0;
	int rc = 0;

	callus_pu_dir_init(&dir, st->in->pc);
	if (st->bases.count) {
		const char *b = st->bases.items[f->base >= 0 ? (size_t)f->base : st->bases.count - 1];

		if ((rc = callus_pu_dir_set(&dir, st->in->pc, b, strlen(b))) < 0)
			goto out;
		pc = &dir.pc;
	}
	if (f->frames.file.count) {
		file = f->frames.file.items[0];
		line = f->frames.line[0];
	}
	if ((rc = callus_buf_status(&f->msg)) < 0 || (rc = callus_buf_status(&f->type)) < 0 ||
	    (rc = callus_pu_diag(&d, st->diags, st->files, pc, file, file ? strlen(file) : 0, line,
			       0, f->type.len ? f->type.ptr : NULL, f->type.len,
			       f->msg.ptr ? f->msg.ptr : "", f->msg.len, "error")) < 0 ||
	    !d)
		goto out;
	if (f->test.len && (rc = callus_pu_set_test(d, f->test.ptr, f->test.len)) < 0)
		goto out;
	rc = callus_pu_frames_attach(d, &f->frames, pc, 0);
out:
	callus_pu_dir_release(&dir);
	return rc;
}

/* "  AccountTest.interest:18 expected:<50> but was:<5>" of the Results list. */
static int summary_line(state *st, const char *s, size_t len)
{
	if (len < 3 || s[0] != ' ' || s[1] != ' ' || s[2] == ' ')
		return 0;
	return callus_strlist_add(&st->summary, s + 2, len - 2) < 0 ? CALLUS_ENOMEM : 1;
}

/* Was "Class.method" (name[0..len)) read with its details? */
static int has_details(const state *st, const char *name, size_t len)
{
	for (size_t i = 0; i < st->nf; i++) {
		const callus_buf *t = &st->f[i].test;

		if (t->len == len ? !memcmp(t->ptr, name, len)
				  : t->len > len && t->ptr[t->len - len - 1] == '.' &&
					    !memcmp(t->ptr + t->len - len, name, len))
			return 1;
	}
	return 0;
}

/* A test of the Results list whose details were not printed. */
static int emit_summary(state *st, const char *s)
{
	size_t len = strlen(s), name_end = 0, n = 0, dot, ml, cls, base;
	callus_buf file = CALLUS_BUF_INIT;
	callus_jvm_frame fr;
	const char *msg;
	long line = 0;
	failure *f;
	int rc;

	while (name_end < len && s[name_end] != ':' && s[name_end] != ' ')
		name_end++;
	if (name_end < len && s[name_end] == ':')
		line = callus_pu_num(s + name_end + 1, len - name_end - 1, &n);
	for (dot = name_end; dot > 0 && s[dot - 1] != '.'; dot--)
		;
	if (dot < 2 || has_details(st, s, name_end))
		return 0;
	if (!(f = new_failure(st)))
		return st->nf >= MAX_FAILURES ? 0 : CALLUS_ENOMEM;
	f->base = -1;
	/* the class's full name, from "Running pkg.Class" */
	for (size_t i = 0; i < st->classes.count && !f->test.len; i++) {
		const char *c = st->classes.items[i];
		size_t cl = strlen(c);

		if (cl >= dot - 1 && !memcmp(c + cl - (dot - 1), s, dot - 1) &&
		    (cl == dot - 1 || c[cl - dot] == '.')) {
			callus_buf_put(&f->test, c, cl);
			callus_buf_put(&f->test, s + dot - 1, name_end - dot + 1);
		}
	}
	if (!f->test.len)
		callus_buf_put(&f->test, s, name_end);
	msg = s + name_end + (line > 0 ? 1 + n : 0);
	ml = len - (size_t)(msg - s);
	callus_pu_trim(&msg, &ml);
	/* "» IllegalArgument deposit must be positi..." */
	if (callus_pu_starts(msg, ml, "\xc2\xbb ")) {
		size_t t = 3;

		while (t < ml && msg[t] != ' ')
			t++;
		callus_buf_put(&f->type, msg + 3, t - 3);
		msg += t;
		ml -= t;
	}
	callus_js_message_add(&f->msg, msg, ml);
	if ((rc = callus_buf_status(&f->test)) < 0 || line <= 0)
		return rc;
	/* the test's class as a frame: Maven's layout finds its file */
	for (cls = f->test.len; cls > 0 && f->test.ptr[cls - 1] != '.'; cls--)
		;
	if (cls < 2)
		return 0;
	for (base = cls - 1; base > 0 && f->test.ptr[base - 1] != '.'; base--)
		;
	fr.cls = f->test.ptr;
	fr.cls_len = cls - 1;
	fr.method = f->test.ptr + cls;
	fr.method_len = f->test.len - cls;
	callus_buf_put(&file, f->test.ptr + base, cls - 1 - base);
	callus_buf_puts(&file, ".java");
	fr.file = file.ptr;
	fr.file_len = file.len;
	fr.line = line;
	rc = callus_buf_status(&file) < 0 ? CALLUS_ENOMEM : add_frame(st, f, &fr);
	callus_buf_release(&file);
	return rc;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	size_t p = level_prefix(s, len);
	int error = callus_pu_starts(s, len, "[ERROR]");
	failure *f = st->nf ? &st->f[st->nf - 1] : NULL;
	callus_jvm_frame fr;
	callus_buf name = CALLUS_BUF_INIT;
	int rc = 0;

	s += p;
	len -= p;
	if ((rc = note_base(st, s, len)) < 0)
		return rc;
	if (st->phase && f) {
		if (callus_jvm_frame_parse(s, len, &fr)) {
			st->phase = 3;
			return add_frame(st, f, &fr);
		}
		if (st->phase == 3 && callus_pu_starts(s + callus_pu_indent(s, len),
						       len - callus_pu_indent(s, len), "..."))
			return 0;
		if (!len || p || st->phase == 3) {
			st->phase = 0;
		} else if (st->phase == 1) {
			st->phase = 2;
			if (!exception_line(f, s, len))
				callus_js_message_add(&f->msg, s, len);
			return 0;
		} else {
			callus_js_message_add(&f->msg, s, len);
			return 0;
		}
	}
	if (test_header(s, len, &name)) {
		rc = CALLUS_ENOMEM;
		if (callus_buf_status(&name) == 0 && (f = new_failure(st))) {
			callus_buf_put(&f->test, name.ptr, name.len);
			st->phase = 1;
			rc = 0;
		} else if (st->nf >= MAX_FAILURES) {
			rc = 0;
		}
		callus_buf_release(&name);
		st->in_results = 0;
		return rc;
	}
	callus_buf_release(&name);
	if (callus_pu_starts(s, len, "Running ") && len > 8 && !memchr(s + 8, ' ', len - 8))
		return callus_strlist_add(&st->classes, s + 8, len - 8) < 0 ? CALLUS_ENOMEM : 0;
	if (error && (callus_pu_starts(s, len, "Failures:") || callus_pu_starts(s, len, "Errors:"))) {
		st->in_results = 1;
		return 0;
	}
	if (st->in_results) {
		if (error && (rc = summary_line(st, s, len)) != 0)
			return rc < 0 ? rc : 0;
		st->in_results = 0;
	}
	if ((rc = compiler_error(st, s, len, error || !p ? "error" : "warning")) != 0)
		return rc < 0 ? rc : 0;
	if (error && !st->goal.len && callus_pu_starts(s, len, "Failed to execute goal ")) {
		/* "... on project bank: There are test failures." */
		long on = callus_pu_find(s, len, " on project ");
		const char *m = s;
		size_t ml = len;

		if (on > 0) {
			const char *colon = memchr(s + on, ':', len - (size_t)on);
			if (colon) {
				m = colon + 1;
				ml = len - (size_t)(colon + 1 - s);
			}
		}
		callus_pu_trim(&m, &ml);
		callus_buf_put(&st->goal, m, ml);
		return callus_buf_status(&st->goal);
	}
	return 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	size_t before = diags->count + diags->dropped;
	state st;
	int rc;

	memset(&st, 0, sizeof(st));
	st.in = in;
	st.diags = diags;
	st.files = files;
	callus_buf_init(&st.goal, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	for (size_t i = 0; rc >= 0 && i < st.summary.count; i++)
		rc = emit_summary(&st, st.summary.items[i]);
	for (size_t i = 0; rc >= 0 && i < st.nf; i++)
		rc = emit(&st, &st.f[i]);
	if (rc >= 0 && st.goal.len && diags->count + diags->dropped == before)
		rc = callus_pu_diag(NULL, diags, files, in->pc, NULL, 0, 0, 0, NULL, 0, st.goal.ptr,
				  st.goal.len, "error");
	for (size_t i = 0; i < st.nf; i++)
		free_failure(&st.f[i]);
	free(st.f);
	callus_strlist_release(&st.seen);
	callus_strlist_release(&st.bases);
	callus_strlist_release(&st.classes);
	callus_strlist_release(&st.summary);
	callus_buf_release(&st.goal);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t p = level_prefix(s, len);

	return p && (callus_pu_starts(s + p, len - p, "BUILD FAILURE") ||
		     callus_pu_starts(s + p, len - p, "Failed to execute goal ") ||
		     callus_pu_starts(s + p, len - p, " T E S T S"));
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "mvn", "mvnw", "maven", NULL };

const callus_parser callus_parser_maven = { "maven", tools, sniff, parse, sniff_line };
