/*
 * unittest.c - python -m unittest (and runners that print its report:
 * Django's, nose2's).
 *
 *   ======================================================================
 *   FAIL: test_number (test_units.TestParse.test_number)
 *   ----------------------------------------------------------------------
 *   Traceback (most recent call last):
 *     File "/abs/ut/test_units.py", line 8, in test_number
 *   AssertionError: 12 != 13
 *
 * One diagnostic per FAIL/ERROR block: at the innermost frame inside the
 * workspace, code the exception type, test the dotted id (before Python
 * 3.11 the parentheses hold only module.Class: the method is added).  Of
 * chained tracebacks the last one counts, as it is the exception raised.
 */
#include "parsers/parsers.h"
#include "parsers/util.h"
#include "callus/common.h"

#include <string.h>

typedef struct block {
	int open;            /* a FAIL/ERROR header was seen */
	int dashes;          /* the "-----" line under the header was seen */
	int fresh;           /* frames seen, not yet their exception */
	callus_buf test, method;
	callus_pu_frames frames;
	callus_buf type, msg;
} block;

static int rule(const char *s, size_t len, char c)
{
	if (len < 20)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (s[i] != c)
			return 0;
	return 1;
}

/* "FAIL: name (id)rest": offsets of the parts, or 0. */
static int header(const char *s, size_t len, size_t *name, size_t *name_len, size_t *id,
		  size_t *id_len, size_t *rest)
{
	size_t i;
	const char *close;

	if (callus_pu_starts(s, len, "FAIL: "))
		i = 6;
	else if (callus_pu_starts(s, len, "ERROR: "))
		i = 7;
	else if (callus_pu_starts(s, len, "UNEXPECTED SUCCESS: "))
		i = 20;
	else
		return 0;
	*name = i;
	while (i < len && s[i] != ' ')
		i++;
	if (i == *name || i + 2 >= len || s[i + 1] != '(')
		return 0;
	*name_len = i - *name;
	*id = i + 2;
	if (!(close = memchr(s + *id, ')', len - *id)) || close == s + *id)
		return 0;
	*id_len = (size_t)(close - (s + *id));
	*rest = (size_t)(close - s) + 1;
	return 1;
}

static void block_reset(block *b)
{
	b->open = b->dashes = b->fresh = 0;
	callus_buf_clear(&b->test);
	callus_buf_clear(&b->method);
	callus_buf_clear(&b->type);
	callus_buf_clear(&b->msg);
	callus_pu_frames_clear(&b->frames);
}

static int block_start(block *b, const char *s, size_t len)
{
	size_t name, nlen, id, idlen, rest;
	const char *last;

	block_reset(b);
	if (!header(s, len, &name, &nlen, &id, &idlen, &rest))
		return 0;
	b->open = 1;
	callus_buf_put(&b->method, s + name, nlen);
	/* an import failure: the module is the test */
	if (callus_pu_starts(s + id, idlen, "unittest.loader.")) {
		callus_buf_put(&b->test, s + name, nlen);
		return callus_buf_status(&b->test);
	}
	callus_buf_put(&b->test, s + id, idlen);
	last = s + id + idlen;
	while (last > s + id && last[-1] != '.')
		last--;
	/* Python <= 3.10 prints "(module.Class)" */
	if ((size_t)(s + id + idlen - last) != nlen || memcmp(last, s + name, nlen)) {
		callus_buf_putc(&b->test, '.');
		callus_buf_put(&b->test, s + name, nlen);
	}
	/* a subTest's parameters: " (i=2)" */
	if (rest < len)
		callus_buf_put(&b->test, s + rest, len - rest);
	return callus_buf_status(&b->test) < 0 || callus_buf_status(&b->method) < 0 ? CALLUS_ENOMEM : 0;
}

static int block_emit(block *b, const callus_pathctx *pc, callus_diags *diags, callus_strlist *files)
{
	callus_pu_py_failure f = { 0 };
	callus_buf rel = CALLUS_BUF_INIT;
	const char *test_file = NULL;
	int rc;

	if (!b->open)
		return 0;
	/* the test's own file: its method's frame, else the outermost one inside */
	for (size_t i = 0; i < b->frames.fn.count && !test_file; i++)
		if (!strcmp(b->frames.fn.items[i], b->method.ptr))
			test_file = b->frames.file.items[i];
	for (size_t i = 0; i < b->frames.file.count && !test_file; i++) {
		const char *file = b->frames.file.items[i];
		if (callus_path_relativize(&rel, pc, file, strlen(file)))
			test_file = file;
	}
	callus_buf_release(&rel);
	f.frames = &b->frames;
	f.type = b->type.len ? b->type.ptr : NULL;
	/* an unexpected success has no traceback */
	f.msg = b->msg.len || b->type.len ? b->msg.ptr : "unexpected success";
	f.test = b->test.ptr;
	f.test_file = test_file;
	rc = callus_pu_py_emit(diags, files, pc, &f);
	block_reset(b);
	return rc;
}

static int block_line(block *b, const char *s, size_t len)
{
	const char *file, *fn, *msg;
	size_t flen, fnlen, mlen, tl;
	long line;

	if (callus_pu_starts(s, len, "Traceback (most recent call last)")) {
		callus_pu_frames_clear(&b->frames);
		return 0;
	}
	if (callus_pu_py_frame(s, len, &file, &flen, &line, &fn, &fnlen)) {
		b->fresh = 1;
		return callus_pu_frames_add(&b->frames, fn, fnlen, file, flen, line);
	}
	if (len && s[0] != ' ' &&
	    ((tl = callus_pu_py_exception(s, len, &msg, &mlen)) ||
	     (b->fresh && (tl = callus_pu_py_exception_any(s, len, &msg, &mlen))))) {
		b->fresh = 0;
		callus_buf_clear(&b->type);
		callus_buf_clear(&b->msg);
		callus_buf_put(&b->type, s, tl);
		callus_buf_put(&b->msg, msg, mlen);
		return callus_buf_status(&b->type) < 0 || callus_buf_status(&b->msg) < 0 ? CALLUS_ENOMEM
										      : 0;
	}
	return 0;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	block b;
	callus_pu_lines it;
	const char *s;
	size_t len;
	int rc;

	memset(&b, 0, sizeof(b));
	callus_buf_init(&b.test, 0);
	callus_buf_init(&b.method, 0);
	callus_buf_init(&b.type, 0);
	callus_buf_init(&b.msg, 0);
	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0) {
		size_t a, bb, c, d, e;

		if (rule(s, len, '=')) {
			if ((rc = block_emit(&b, in->pc, diags, files)) < 0)
				break;
			continue;
		}
		if (header(s, len, &a, &bb, &c, &d, &e)) {
			if ((rc = block_emit(&b, in->pc, diags, files)) < 0 ||
			    (rc = block_start(&b, s, len)) < 0)
				break;
			continue;
		}
		if (!b.open)
			continue;
		if (rule(s, len, '-')) {
			/* under the header it opens the traceback; later it ends the
			 * report ("Ran 3 tests") */
			if (b.dashes && (rc = block_emit(&b, in->pc, diags, files)) < 0)
				break;
			b.dashes = 1;
			continue;
		}
		if ((rc = block_line(&b, s, len)) < 0)
			break;
	}
	if (rc >= 0)
		rc = block_emit(&b, in->pc, diags, files);
	block_reset(&b);
	callus_buf_release(&b.test);
	callus_buf_release(&b.method);
	callus_buf_release(&b.type);
	callus_buf_release(&b.msg);
	callus_pu_lines_release(&it);
	return rc < 0 ? rc : 0;
}

static int sniff_line(const char *s, size_t len)
{
	size_t a, b, c, d, e;

	return (callus_pu_starts(s, len, "FAIL: ") || callus_pu_starts(s, len, "ERROR: ")) &&
	       header(s, len, &a, &b, &c, &d, &e);
}

static int sniff(const char *text, size_t len)
{
	return callus_pu_any_line(text, len, sniff_line);
}

static const char *const tools[] = { "unittest", NULL };

const callus_parser callus_parser_unittest = { "unittest", tools, sniff, parse, sniff_line };
