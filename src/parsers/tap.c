/*
 * tap.c - the Test Anything Protocol, as prove runs it (Perl's
 * Test::More and friends) and as any TAP producer prints it (bats, tape,
 * node-tap): chosen by the tool's name (prove) or by the output's look,
 * for tools callus does not know.
 *
 *   t/cart.t .. 
 *   not ok 1 - total sums the prices              (prove -v, raw TAP)
 *   #   Failed test 'total sums the prices'       (Test::More, on stderr)
 *   #   at t/cart.t line 8.
 *   #          got: '31'
 *   #     expected: '30'
 *   no such item: milk at /abs/lib/Shop/Cart.pm line 32.     (a die)
 *   Test Summary Report
 *   t/price.t (Wstat: 65280 (exited 255) Tests: 1 Failed: 0)
 *
 *   not ok 2 - parses a price                     (a YAML block after it)
 *     ---
 *     message: 'should be equal'
 *     at:
 *       file: test/price.js
 *       line: 12
 *     ...
 *
 * A failed test is one diagnostic: Test::More's "Failed test" names it
 * and says where; its got/expected lines are its message.  A "not ok"
 * line without such a comment is a failure too (located by its YAML block
 * when it has one, else in the test file prove was running); "# TODO" and
 * "# SKIP" ones are not.  Perl's die and warn ("MESSAGE at FILE line N.")
 * are errors where they say.  The files of prove's summary failed: they
 * are affected, and stand for the failure when nothing else was read.
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "parsers/util.h"
#include "callus/cleantext.h"
#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

typedef struct state {
	const callus_parse_input *in;
	callus_diags *diags;
	callus_strlist *files;
	callus_pu_fail f;       /* a Test::More failure or a "not ok" being read */
	int diag_msg;           /* reading the comment lines of f */
	int yaml;               /* in a "not ok"'s YAML block: its indent + 1 */
	callus_strlist named;   /* tests a "Failed test" comment named */
	callus_strlist notok;   /* "not ok" without a comment: "name\tfile\tline" */
	callus_buf file;        /* the test file prove is running */
	callus_buf check;       /* the YAML block's assertion or operator */
	callus_buf fold;        /* a folded YAML value being read */
	callus_buf value;       /* a YAML key's value, unquoted */
	size_t fold_indent;
	int folded, placed;     /* reading fold; a place in the workspace was found */
	size_t yaml_base;       /* the indent of the block's keys, + 1 */
	callus_strlist summary; /* files prove's summary lists */
	size_t before;
} state;

/* "not ok 3 - name # TODO x" -> 1 and the name (TODO and SKIP: 0). */
static int not_ok(const char *s, size_t len, const char **name, size_t *nl)
{
	size_t i = callus_pu_indent(s, len), n;
	long hash;

	if (!callus_pu_starts(s + i, len - i, "not ok"))
		return 0;
	i += 6;
	if (i < len && s[i] != ' ')
		return 0;
	i += i < len;
	callus_pu_num(s + i, len - i, &n);
	i += n;
	while (i < len && (s[i] == ' ' || s[i] == '-'))
		i++;
	*name = s + i;
	*nl = len - i;
	hash = callus_pu_find(*name, *nl, " # ");
	if (hash >= 0) {
		const char *d = *name + hash + 3;
		size_t dl = *nl - (size_t)hash - 3;

		if (callus_pu_starts(d, dl, "TODO") || callus_pu_starts(d, dl, "todo") ||
		    callus_pu_starts(d, dl, "SKIP") || callus_pu_starts(d, dl, "skip"))
			return 0;
		*nl = (size_t)hash;
	}
	return 1;
}

/* "... at FILE line N." -> the message's length, the file and the line. */
static int perl_at(const char *s, size_t len, size_t *ml, const char **file, size_t *fl,
		   long *line)
{
	long at, ln;
	size_t n, end = len;

	if (end && s[end - 1] == '.')
		end--;
	ln = -1;
	for (long k = (long)end - 6; k >= 0; k--)
		if (!memcmp(s + k, " line ", 6)) {
			ln = k;
			break;
		}
	if (ln <= 0)
		return 0;
	*line = callus_pu_num(s + ln + 6, end - (size_t)ln - 6, &n);
	if (!n || (size_t)ln + 6 + n != end)
		return 0;
	for (at = ln - 1; at >= 0 && memcmp(s + at, " at ", 4) && !(at == 0 && !memcmp(s, "at ", 3)); at--)
		;
	if (at < 0)
		return 0;
	*file = s + at + (at == 0 && s[0] == 'a' ? 3 : 4);
	*fl = (size_t)(s + ln - *file);
	*ml = (size_t)at;
	return *fl > 0 && !memchr(*file, ' ', *fl);
}

static int flush(state *st)
{
	if (st->f.open && st->f.test.len &&
	    callus_strlist_add(&st->named, st->f.test.ptr, st->f.test.len) < 0)
		return CALLUS_ENOMEM;
	st->diag_msg = 0;
	return callus_pu_fail_flush(&st->f, st->diags, st->files, st->in->pc);
}

static int yaml_folded_end(state *st);

/* The open "not ok" (no comment explained it yet): kept for the end,
 * when a comment naming the same test may have come after it. */
static int defer_notok(state *st)
{
	callus_buf b = CALLUS_BUF_INIT;
	int rc;

	if (!st->f.open || st->diag_msg)
		return 0;
	st->f.open = 0;
	st->placed = 0;
	st->yaml_base = 0;
	if ((rc = yaml_folded_end(st)) < 0 || st->notok.count >= 1000) {
		callus_buf_clear(&st->check);
		return rc < 0 ? rc : 0;
	}
	callus_buf_put(&b, st->f.test.ptr ? st->f.test.ptr : "", st->f.test.len);
	callus_buf_putc(&b, '\t');
	callus_buf_put(&b, st->f.file.ptr ? st->f.file.ptr : "", st->f.file.len);
	callus_buf_printf(&b, "\t%ld\t", st->f.line);
	callus_buf_put(&b, st->f.type.ptr ? st->f.type.ptr : "", st->f.type.len);
	callus_buf_putc(&b, '\t');
	if (st->f.msg.len) {
		callus_buf_put(&b, st->f.msg.ptr, st->f.msg.len);
	} else if (st->check.len) {
		/* no message: the check that failed says what kind of failure */
		callus_buf_put(&b, st->check.ptr, st->check.len);
		callus_buf_puts(&b, " failed");
	}
	rc = callus_buf_status(&b) < 0 ? CALLUS_ENOMEM : callus_strlist_add(&st->notok, b.ptr, b.len);
	callus_buf_release(&b);
	callus_buf_clear(&st->check);
	return rc;
}

/* "#   Failed test 'name'" and the lines under it. */
static int comment(state *st, const char *s, size_t len)
{
	size_t i = 1, ml, fl;
	const char *t, *file;
	long line;
	int rc;

	while (i < len && s[i] == ' ')
		i++;
	t = s + i;
	len -= i;
	if (callus_pu_starts(t, len, "Failed test")) {
		t += 11;
		len -= 11;
		callus_pu_trim(&t, &len);
		/* "Failed test at t/x.t line 5." (unnamed) or "'name'" (then "at ..." below) */
		if (perl_at(t, len, &ml, &file, &fl, &line))
			len = ml;
		else
			fl = 0;
		if (len >= 2 && (t[0] == '\'' || t[0] == '"') && t[len - 1] == t[0]) {
			t++;
			len -= 2;
		}
		/* the comment of the "not ok" just read: one failure */
		if (st->f.open && !st->diag_msg && st->f.test.len == len &&
		    !memcmp(st->f.test.ptr, t, len)) {
			st->diag_msg = 1;
			callus_buf_clear(&st->f.file);
		} else {
			if ((rc = defer_notok(st)) < 0 || (rc = flush(st)) < 0)
				return rc;
			callus_pu_fail_start(&st->f);
			st->diag_msg = 1;
			callus_buf_put(&st->f.test, t, len);
		}
		if (fl) {
			callus_buf_put(&st->f.file, file, fl);
			st->f.line = line;
		}
		return callus_buf_status(&st->f.test);
	}
	if (!st->f.open || !st->diag_msg)
		return 0;
	if (callus_pu_starts(t, len, "Looks like ") || callus_pu_starts(t, len, "Tests were run")) {
		st->diag_msg = 0;
		return flush(st);
	}
	if (!st->f.file.len && callus_pu_starts(t, len, "at ") &&
	    perl_at(t, len, &ml, &file, &fl, &line)) {
		callus_buf_put(&st->f.file, file, fl);
		st->f.line = line;
		return callus_buf_status(&st->f.file);
	}
	return len ? callus_pu_fail_msg(&st->f, t, len) : 0;
}

/* A place a YAML value names: "test/x.js:12:5", "/abs/x.js:3:1", a
 * stack frame "fn (file:///abs/x.js:7:48)"; the first of them inside the
 * workspace locates the failure. */
static int yaml_place(state *st, const char *v, size_t vl)
{
	callus_buf path = CALLUS_BUF_INIT, rel = CALLUS_BUF_INIT;
	callus_js_frame fr;
	callus_pu_loc loc;
	int rc = 0;

	if (st->f.file.len && st->placed)
		return 0;
	if (callus_pu_location(v, vl, &loc)) {
		callus_buf_put(&path, loc.path, loc.path_len);
		fr.line = loc.line;
	} else if (callus_js_parse_frame(v, vl, 0, &fr)) {
		rc = callus_js_path(&path, fr.file, fr.file_len);
	} else {
		return 0;
	}
	if (rc >= 0 && (rc = callus_buf_status(&path)) >= 0 &&
	    callus_path_relativize(&rel, st->in->pc, path.ptr, path.len)) {
		callus_buf_clear(&st->f.file);
		callus_buf_put(&st->f.file, path.ptr, path.len);
		st->f.line = fr.line;
		st->placed = 1;
		rc = callus_buf_status(&st->f.file);
	}
	callus_buf_release(&path);
	callus_buf_release(&rel);
	return rc;
}

/* The value of a key folded over the lines under it ("at: >-"), joined. */
static int yaml_folded_end(state *st)
{
	int rc = 0;

	if (st->folded && st->fold.len)
		rc = yaml_place(st, st->fold.ptr, st->fold.len);
	st->folded = 0;
	callus_buf_clear(&st->fold);
	return rc;
}

/*
 * deno's block is one JSON object (YAML's flow style):
 *   {"message":"AssertionError: ...\n    at file:///abs/x_test.ts:6:10","severity":"fail",
 *    "at":{"file":"./x_test.ts","line":4}}
 * The message's first line is the message, its first frame in the
 * workspace the place (the message keeps deno's colours: taken off), else
 * "at", the test's own place.
 */
static int yaml_json(state *st, const char *t, size_t tl)
{
	json_t *doc = json_loadb(t, tl, 0, NULL), *at;
	const char *m, *file;
	callus_buf clean = CALLUS_BUF_INIT;
	int rc = 0;

	if (!doc)
		return 0;
	if ((m = json_string_value(json_object_get(doc, "message"))) &&
	    (rc = callus_text_clean(&clean, m, strlen(m), 0)) >= 0) {
		const char *p = clean.ptr ? clean.ptr : "", *end = p + clean.len, *line;
		size_t n, first = 1;

		while (rc >= 0 && callus_next_line(&p, end, &line, &n)) {
			callus_pu_trim(&line, &n);
			if (first && n && !st->f.msg.len)
				rc = callus_pu_fail_msg(&st->f, line, n);
			else if (callus_pu_starts(line, n, "at "))
				rc = yaml_place(st, line + 3, n - 3);
			first = 0;
		}
	}
	at = json_object_get(doc, "at");
	if (rc >= 0 && !st->placed && (file = json_string_value(json_object_get(at, "file")))) {
		callus_buf_clear(&st->f.file);
		callus_buf_puts(&st->f.file, file);
		st->f.line = (long)json_integer_value(json_object_get(at, "line"));
		rc = callus_buf_status(&st->f.file);
	}
	callus_buf_release(&clean);
	json_decref(doc);
	return rc;
}

/* A key of a "not ok"'s YAML block. */
static int yaml_line(state *st, const char *s, size_t len)
{
	size_t ind = callus_pu_indent(s, len);
	const char *t = s + ind, *v;
	size_t tl = len - ind, vl;
	size_t n;
	int rc;

	if (st->folded && ind > st->fold_indent && tl) {
		if (st->fold.len)
			callus_buf_putc(&st->fold, ' ');
		callus_buf_put(&st->fold, t, tl);
		return callus_buf_status(&st->fold);
	}
	if ((rc = yaml_folded_end(st)) < 0)
		return rc;
	if (callus_pu_starts(t, tl, "...") || (ind + 1 < (size_t)st->yaml && tl)) {
		st->yaml = 0;
		return 0;
	}
	/* the block's own keys, not those of the values nested in it */
	if (!tl)
		return 0;
	if (!st->yaml_base)
		st->yaml_base = ind + 1;
	if (ind + 1 != st->yaml_base)
		return 0;
	if (t[0] == '{' && t[tl - 1] == '}')
		return yaml_json(st, t, tl);
	v = memchr(t, ':', tl);
	if (!v)
		return 0;
	vl = tl - (size_t)(v + 1 - t);
	v++;
	callus_pu_trim(&v, &vl);
	callus_js_yaml_unquote(&st->value, v, vl);
	if ((rc = callus_buf_status(&st->value)) < 0)
		return rc;
	v = st->value.ptr;
	vl = st->value.len;
	/* "at: >-", "stack: |-": the value is on the lines under the key */
	if ((callus_pu_starts(t, tl, "at:") || callus_pu_starts(t, tl, "location:") ||
	     callus_pu_starts(t, tl, "stack:")) &&
	    vl && vl <= 3 && (v[0] == '>' || v[0] == '|')) {
		st->folded = 1;
		st->fold_indent = ind;
		return 0;
	}
	if ((callus_pu_starts(t, tl, "message:") || callus_pu_starts(t, tl, "error:")) && vl &&
	    !st->f.msg.len)
		return callus_pu_fail_msg(&st->f, v, vl);
	/* "name: AssertionError": the error's class */
	if (callus_pu_starts(t, tl, "name:") && !st->f.type.len &&
	    (callus_pu_ends(v, vl, "Error") || callus_pu_ends(v, vl, "Exception")) &&
	    !memchr(v, ' ', vl)) {
		callus_buf_put(&st->f.type, v, vl);
		return callus_buf_status(&st->f.type);
	}
	/* "assertion: t.is()", "operator: equal": which check failed */
	if ((callus_pu_starts(t, tl, "assertion:") || callus_pu_starts(t, tl, "operator:")) && vl &&
	    !st->check.len) {
		callus_buf_put(&st->check, v, vl);
		return callus_buf_status(&st->check);
	}
	if ((callus_pu_starts(t, tl, "file:")) && vl && !st->placed) {
		callus_buf_clear(&st->f.file);
		callus_buf_put(&st->f.file, v, vl);
		return callus_buf_status(&st->f.file);
	}
	if (callus_pu_starts(t, tl, "line:") && !st->placed) {
		st->f.line = callus_pu_num(v, vl, &n);
		return 0;
	}
	/* "at: test/x.js:12:5", "location: '/abs/x.js:3:1'", "at: 'fn (file:///x.js:7:48)'" */
	if (callus_pu_starts(t, tl, "at:") || callus_pu_starts(t, tl, "location:"))
		return yaml_place(st, v, vl);
	return 0;
}

/* "t/cart.t ..... ok", "t/cart.t .. " -> the test file. */
static int prove_header(const char *s, size_t len, size_t *fl)
{
	long dots = callus_pu_find(s, len, " ..");

	if (dots <= 0 || memchr(s, ' ', (size_t)dots) || s[0] == '#')
		return 0;
	*fl = (size_t)dots;
	return 1;
}

static int line_of(void *arg, const char *s, size_t len)
{
	state *st = arg;
	const char *name, *file, *t = s;
	size_t nl, ml, fl, tl = len;
	long line;
	int rc;

	if (st->yaml) {
		if (callus_pu_indent(s, len) + 1 >= (size_t)st->yaml || !len)
			return yaml_line(st, s, len);
		st->yaml = 0;
	}
	callus_pu_trim(&t, &tl);
	if (tl && t[0] == '#')
		return comment(st, t, tl);
	if (not_ok(s, len, &name, &nl)) {
		if ((rc = defer_notok(st)) < 0 || (rc = flush(st)) < 0)
			return rc;
		callus_pu_fail_start(&st->f);
		callus_buf_put(&st->f.test, name, nl);
		callus_buf_put(&st->f.file, st->file.ptr ? st->file.ptr : "", st->file.len);
		/* "not ok" is flushed only with its YAML block, when it has one */
		return callus_buf_status(&st->f.test);
	}
	if (st->f.open && !st->diag_msg && callus_pu_starts(t, tl, "---")) {
		st->yaml = (int)callus_pu_indent(s, len) + 1;
		return 0;
	}
	if ((rc = defer_notok(st)) < 0)
		return rc;
	if (prove_header(s, len, &fl)) {
		callus_buf_clear(&st->file);
		callus_buf_put(&st->file, s, fl);
		return callus_buf_status(&st->file);
	}
	/* the summary: "t/price.t (Wstat: 65280 (exited 255) Tests: 1 Failed: 0)" */
	if (callus_pu_find(s, len, " (Wstat: ") > 0 && !memchr(s, ' ', (size_t)callus_pu_find(s, len, " (Wstat: ")))
		return callus_strlist_add(&st->summary, s, (size_t)callus_pu_find(s, len, " (Wstat: ")) < 0
			       ? CALLUS_ENOMEM
			       : 0;
	/* a die: "no such item: milk at /abs/lib/Shop/Cart.pm line 32." */
	if (!memchr(s, '\t', len) && perl_at(s, len, &ml, &file, &fl, &line) && ml &&
	    !callus_pu_starts(s, len, "ok ")) {
		if ((rc = flush(st)) < 0)
			return rc;
		return callus_pu_diag(NULL, st->diags, st->files, st->in->pc, file, fl, line, 0, NULL,
				    0, s, ml, "error");
	}
	return 0;
}

/* The "not ok" lines no comment explained. */
static int emit_notok(state *st)
{
	for (size_t i = 0; i < st->notok.count; i++) {
		/* "name\tfile\tline\ttype\tmessage" */
		char *e = st->notok.items[i], *t1 = strchr(e, '\t'), *t2, *t3, *t4;
		callus_diag *d;
		long line;
		int named = 0, rc;

		if (!t1 || !(t2 = strchr(t1 + 1, '\t')) || !(t4 = strchr(t2 + 1, '\t')) ||
		    !(t3 = strchr(t4 + 1, '\t')))
			continue;
		for (size_t k = 0; k < st->named.count && !named; k++)
			named = strlen(st->named.items[k]) == (size_t)(t1 - e) &&
				!memcmp(st->named.items[k], e, (size_t)(t1 - e));
		if (named)
			continue;
		line = strtol(t2 + 1, NULL, 10);
		if ((rc = callus_pu_diag(&d, st->diags, st->files, st->in->pc, t1 + 1,
				       (size_t)(t2 - t1 - 1), line, 0, t4 + 1 < t3 ? t4 + 1 : NULL,
				       (size_t)(t3 - t4 - 1),
				       t3[1] ? t3 + 1 : "not ok", t3[1] ? strlen(t3 + 1) : 6,
				       "error")) < 0)
			return rc;
		if (d && t1 > e && (rc = callus_pu_set_test(d, e, (size_t)(t1 - e))) < 0)
			return rc;
	}
	return 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	state st;
	int rc;

	memset(&st, 0, sizeof(st));
	st.in = in;
	st.diags = diags;
	st.files = files;
	st.before = diags->count + diags->dropped;
	callus_buf_init(&st.file, 0);
	callus_buf_init(&st.check, 0);
	callus_buf_init(&st.fold, 0);
	callus_buf_init(&st.value, 0);
	callus_pu_fail_init(&st.f, 0);
	rc = callus_pu_each_line(in, line_of, &st);
	if (rc >= 0 && (rc = defer_notok(&st)) >= 0)
		rc = flush(&st);
	if (rc >= 0)
		rc = emit_notok(&st);
	for (size_t i = 0; rc >= 0 && i < st.summary.count; i++) {
		const char *f = st.summary.items[i];

		if (diags->count + diags->dropped == st.before)
			rc = callus_pu_diag(NULL, diags, files, in->pc, f, strlen(f), 0, 0, NULL, 0,
					  "test file failed", 16, "error");
		else if (callus_parse_file(files, NULL, in->pc, f, strlen(f)) < 0)
			rc = CALLUS_ENOMEM;
	}
	callus_pu_fail_release(&st.f);
	callus_strlist_release(&st.named);
	callus_strlist_release(&st.notok);
	callus_strlist_release(&st.summary);
	callus_buf_release(&st.file);
	callus_buf_release(&st.check);
	callus_buf_release(&st.fold);
	callus_buf_release(&st.value);
	return rc < 0 ? rc : 0;
}

/* "TAP version 13", a plan "1..4", prove's summary */
static int sniff_line(const char *s, size_t len)
{
	size_t n;

	if (callus_pu_starts(s, len, "TAP version ") || callus_pu_starts(s, len, "Test Summary Report"))
		return 1;
	if (!callus_pu_starts(s, len, "1.."))
		return 0;
	callus_pu_num(s + 3, len - 3, &n);
	return n && (n + 3 == len || callus_pu_starts(s + 3 + n, len - 3 - n, " #"));
}

static int sniff_fail(const char *s, size_t len)
{
	const char *name;
	size_t nl;

	return (not_ok(s, len, &name, &nl) && !callus_pu_indent(s, len)) ||
	       callus_pu_starts(s, len, "Result: FAIL");
}

/* Either alone may be anything: a plan (or prove's summary) and a failure. */
static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line) && callus_pu_any_line(text, len, sniff_fail);
}

static const char *const tools[] = { "prove", "tap", NULL };

const callus_parser callus_parser_tap = { "tap", tools, sniff, parse, NULL };
