/*
 * node_test.c - node's built-in test runner (node --test), with its
 * TAP reporter (the default when not on a terminal, before node 23) and
 * its spec reporter.
 *
 * TAP:
 *
 *   # Subtest: sum
 *       not ok 2 - adds 2 + 2
 *         ---
 *         location: '/abs/test/a.js:11:3'
 *         failureType: 'testCodeFailure'
 *         error: |-
 *           Expected values to be strictly equal: ...
 *         code: 'ERR_ASSERTION'
 *         name: 'AssertionError'
 *         stack: |-
 *           TestContext.<anonymous> (/abs/test/a.js:12:12)
 *         ...
 *   not ok 3 - sum
 *     failureType: 'subtestsFailed'
 *
 * spec:
 *
 *   ▶ sum
 *     ✖ adds 2 + 2 (1.2ms)
 *       AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:
 *       3 !== 4
 *           at TestContext.<anonymous> (/abs/test/a.js:12:12)
 *   ✖ sum (3.5ms)
 *   ✖ failing tests:
 *   test at test/a.js:11:3
 *   ✖ adds 2 + 2 (1.2ms)
 *     (the same error again)
 *
 * A suite or a test with failing subtests fails too, after them and less
 * indented, with no error of its own: it is not a diagnostic, but its name
 * is the prefix of theirs ("sum › adds 2 + 2").  The names of suites are
 * taken there rather than from "# Subtest:" or "▶" lines, which the
 * filtered text does not keep.  spec repeats every failure under "failing
 * tests:"; that section is read only when the report above it was not
 * (an output cut at the raw head's limit).
 */
#include "parsers/parsers.h"
#include "parsers/js_util.h"
#include "callus/common.h"

#include <stdlib.h>
#include <string.h>

#define SEP " \xe2\x80\xba "  /* " › " */
#define CROSS "\xe2\x9c\x96 " /* "✖ " */

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Diagnostics waiting for their suites' names: index and depth. */
typedef struct pending {
	size_t *index;
	size_t *depth;
	size_t count, alloc;
} pending;

static int pending_add(pending *p, size_t index, size_t depth)
{
	if (p->count == p->alloc) {
		size_t n = p->alloc ? p->alloc * 2 : 32, bytes;
		size_t *a, *b;

		if (callus_size_mul(&bytes, n, sizeof(size_t)) < 0)
			return CALLUS_ENOMEM;
		if (!(a = realloc(p->index, bytes)))
			return CALLUS_ENOMEM;
		p->index = a;
		if (!(b = realloc(p->depth, bytes)))
			return CALLUS_ENOMEM;
		p->depth = b;
		p->alloc = n;
	}
	p->index[p->count] = index;
	p->depth[p->count] = depth;
	p->count++;
	return 0;
}

/* A parent at depth failed: it is the suite of every failure deeper than
 * it that has none yet. */
static int pending_parent(pending *p, callus_diags *diags, size_t depth, const char *name,
			  size_t name_len)
{
	callus_buf b = CALLUS_BUF_INIT;
	size_t k = 0;
	int rc = 0;

	for (size_t i = 0; i < p->count; i++) {
		callus_diag *d = &diags->items[p->index[i]];

		if (p->depth[i] <= depth) {
			p->index[k] = p->index[i];
			p->depth[k++] = p->depth[i];
			continue;
		}
		callus_buf_clear(&b);
		callus_buf_put(&b, name, name_len);
		callus_buf_puts(&b, SEP);
		callus_buf_puts(&b, d->test ? d->test : "");
		if ((rc = callus_buf_status(&b)) < 0 ||
		    (rc = callus_diag_set(&d->test, b.ptr,
					callus_js_cut(b.ptr, b.len, CALLUS_JS_TEST_MAX))) < 0)
			goto out;
		/* a grandparent may come: keep it, one level up */
		p->index[k] = p->index[i];
		p->depth[k++] = depth;
	}
	p->count = k;
out:
	callus_buf_release(&b);
	return rc;
}

/* One test's failure as it is read. */
typedef struct reading {
	callus_js_failure f;
	size_t depth;
	int parent;	     /* failed only because subtests did */
	int todo;	     /* "# TODO": a failure that does not count */
	callus_buf name;	     /* TAP: error class */
	callus_buf code;	     /* TAP: error code */
	callus_buf error;	     /* TAP: the error's message */
	int error_more;	     /* the error's first line ends in ':' */
	size_t block_indent; /* TAP: indent of the YAML keys */
	int block;	     /* TAP: in the YAML block */
	int key;	     /* TAP: block scalar being read: 'e'rror, 's'tack, 0 */
	size_t key_indent;
	int tap;
} reading;

static void reading_clear(reading *r)
{
	r->depth = 0;
	r->parent = r->todo = r->block = r->key = r->error_more = r->tap = 0;
	callus_buf_clear(&r->name);
	callus_buf_clear(&r->code);
	callus_buf_clear(&r->error);
}

/* A line of node's diff ("+ actual - expected", "+ 3", "- 4"): a sign
 * and a blank.  "-1 !== 3" is a comparison of a negative number, the
 * same line "4 !== 3" is for a positive one (found by an outside review:
 * one assertion, two signatures by the sign of a value). */
static int diff_line(const char *t, size_t tl)
{
	return (t[0] == '+' || t[0] == '-') && (tl == 1 || t[1] == ' ' || t[1] == '\t');
}

/* Add a line of the error's text: the first, and the next when the
 * first ends in ':' ("Expected values to be strictly equal:" / "3 !== 4"). */
static int error_text(reading *r, const char *t, size_t tl)
{
	if (!tl)
		return 0;
	if (!r->error.len) {
		r->error_more = t[tl - 1] == ':';
		return callus_js_message_add(&r->error, t, tl);
	}
	if (r->error_more) {
		r->error_more = 0;
		if (!diff_line(t, tl))
			return callus_js_message_add(&r->error, t, tl);
	}
	return 0;
}

/* "key: value" or "key:" of node's YAML block */
static int yaml_key(const char *t, size_t tl)
{
	size_t i = 0;

	while (i < tl && ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
			  t[i] == '_'))
		i++;
	return i && i < tl && t[i] == ':' && (i + 1 == tl || t[i + 1] == ' ');
}

/* "AssertionError [ERR_ASSERTION]: x", "TypeError: x" */
static int error_class(const char *t, size_t tl)
{
	size_t i = 0;

	while (i < tl && ((t[i] >= 'a' && t[i] <= 'z') || (t[i] >= 'A' && t[i] <= 'Z') ||
			  is_digit(t[i]) || t[i] == '_' || t[i] == '$' || t[i] == '.'))
		i++;
	if (i < 5 || i >= tl || (t[i] != ':' && t[i] != ' '))
		return 0;
	return !memcmp(t + i - 5, "Error", 5) ||
	       (i >= 9 && !memcmp(t + i - 9, "Exception", 9));
}

/* Done with a test: a diagnostic unless it is a parent or a todo. */
static int finish(reading *r, const callus_pathctx *pc, callus_diags *diags,
		  callus_strlist *files, pending *p)
{
	size_t first;
	int rc = 0;

	if (!r->f.open)
		goto out;
	if (r->parent) {
		rc = pending_parent(p, diags, r->depth,
				    r->f.tests.count ? r->f.tests.items[0] : "",
				    r->f.tests.count ? strlen(r->f.tests.items[0]) : 0);
		callus_js_failure_start(&r->f);
		r->f.open = 0;
		goto out;
	}
	if (r->todo) {
		callus_js_failure_start(&r->f);
		r->f.open = 0;
		goto out;
	}
	if (r->tap) {
		/* as spec prints it: "AssertionError [ERR_ASSERTION]: ..." */
		callus_buf head = CALLUS_BUF_INIT;

		if (r->name.len) {
			callus_buf_put(&head, r->name.ptr, r->name.len);
			if (r->code.len && strcmp(r->code.ptr, "ERR_TEST_FAILURE")) {
				callus_buf_puts(&head, " [");
				callus_buf_put(&head, r->code.ptr, r->code.len);
				callus_buf_putc(&head, ']');
			}
			callus_buf_putc(&head, ':');
		}
		callus_buf_clear(&r->f.message);
		callus_js_message_add(&r->f.message, head.ptr, head.len);
		callus_js_message_add(&r->f.message, r->error.ptr, r->error.len);
		rc = callus_buf_status(&head);
		callus_buf_release(&head);
		if (rc < 0 || (rc = callus_buf_status(&r->f.message)) < 0)
			goto out;
	}
	if ((rc = callus_js_failure_flush(&r->f, pc, diags, files, &first)) < 0)
		goto out;
	if (first != (size_t)-1)
		rc = pending_add(p, first, r->depth);
out:
	reading_clear(r);
	return rc;
}

/* "not ok 2 - name # TODO": 1 and the parts; ok lines give 2 */
static int tap_result(const char *s, size_t len, size_t *indent, const char **name,
		      size_t *name_len, int *todo)
{
	size_t i = callus_js_indent(s, len), j;
	int ok;

	*indent = i;
	if (callus_pu_starts(s + i, len - i, "not ok "))
		ok = 0, j = i + 7;
	else if (callus_pu_starts(s + i, len - i, "ok "))
		ok = 1, j = i + 3;
	else
		return 0;
	if (j >= len || !is_digit(s[j]))
		return 0;
	while (j < len && is_digit(s[j]))
		j++;
	if (callus_pu_starts(s + j, len - j, " - "))
		j += 3;
	else
		j += callus_js_indent(s + j, len - j); /* mocha: "not ok 2 title" */
	*name = s + j;
	*name_len = len - j;
	*todo = 0;
	/* directives: " # TODO", " # SKIP" (a '#' in a name is escaped) */
	for (size_t k = j; k + 2 < len; k++)
		if (s[k] == ' ' && s[k + 1] == '#' && s[k + 2] == ' ' &&
		    s[k - 1] != '\\') {
			*name_len = k - j;
			*todo = callus_pu_starts(s + k + 3, len - k - 3, "TODO") ||
				callus_pu_starts(s + k + 3, len - k - 3, "SKIP");
			break;
		}
	return ok ? 2 : 1;
}

/* "✖ name (1.2ms)": the name without the duration */
static size_t spec_name(const char *t, size_t tl)
{
	size_t n = tl;

	if (n && t[n - 1] == ')') {
		const char *open = memrchr(t, '(', n);
		if (open && open > t && open[-1] == ' ' && open + 1 < t + n &&
		    is_digit(open[1]) && memmem(open, (size_t)(t + n - open), "ms)", 3))
			n = (size_t)(open - 1 - t);
	}
	return n;
}

/* spec's "TypeError [Error]: x": util.inspect's aside on the class */
static size_t error_header(callus_buf *out, const char *t, size_t tl)
{
	const char *b = memmem(t, tl, " [Error]: ", 10);

	callus_buf_clear(out);
	if (b && memchr(t, ' ', (size_t)(b - t)) == NULL) {
		callus_buf_put(out, t, (size_t)(b - t));
		callus_buf_put(out, b + 8, (size_t)(t + tl - b - 8));
	} else {
		callus_buf_put(out, t, tl);
	}
	return out->len;
}

static int parse(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	callus_js_lines it;
	reading r;
	pending p = {NULL, NULL, 0, 0};
	callus_buf tmp = CALLUS_BUF_INIT, test_at = CALLUS_BUF_INIT;
	const char *s;
	size_t len, before_section = (size_t)-1;
	int rc;

	memset(&r, 0, sizeof(r));
	callus_js_failure_init(&r.f);
	callus_buf_init(&r.name, 0);
	callus_buf_init(&r.code, 0);
	callus_buf_init(&r.error, 0);
	callus_js_lines_init(&it, in);
	while ((rc = callus_js_lines_next(&it, &s, &len)) > 0) {
		size_t i = callus_js_indent(s, len), indent, name_len;
		const char *t = s + i, *name;
		size_t tl = len - i;
		callus_js_frame fr;
		int res, todo;

		if (!len || callus_js_wrapper_noise(s, len))
			continue;

		/* ---- TAP ---- */
		if ((res = tap_result(s, len, &indent, &name, &name_len, &todo))) {
			if ((rc = finish(&r, in->pc, diags, files, &p)) < 0)
				break;
			if (res == 2)
				continue;
			callus_js_failure_start(&r.f);
			r.tap = 1;
			r.todo = todo;
			r.depth = indent / 4;
			r.block_indent = indent + 2;
			if ((rc = callus_js_failure_test(&r.f, name, name_len)) < 0)
				break;
			continue;
		}
		if (r.f.open && r.tap) {
			const char *v;
			size_t vl;

			if (tl == 3 && !memcmp(t, "---", 3))
				continue;
			if (tl == 3 && !memcmp(t, "...", 3)) {
				if ((rc = finish(&r, in->pc, diags, files, &p)) < 0)
					break;
				continue;
			}
			if (r.key && i > r.key_indent) {
				/* frames right under the error: the filtered text
				 * lacks the keys between */
				if (callus_js_parse_frame(s, len, 0, &fr))
					rc = callus_js_failure_frame(&r.f, in->pc, &fr);
				else if (r.key == 'e')
					rc = error_text(&r, t, tl);
				if (rc < 0)
					break;
				continue;
			}
			r.key = 0;
			/* mocha's TAP reporter: the message, then "Error: message"
			 * and the stack, without YAML */
			if (error_class(t, tl)) {
				callus_buf_clear(&r.error);
				if ((rc = error_text(&r, t, tl)) < 0)
					break;
				continue;
			}
			if (i == r.block_indent && yaml_key(t, tl)) {
				const char *colon = memchr(t, ':', tl);
				size_t kl = (size_t)(colon - t);

				v = colon + 1;
				vl = (size_t)(t + tl - v);
				while (vl && *v == ' ')
					v++, vl--;
				if ((vl == 2 &&
				     (!memcmp(v, "|-", 2) || !memcmp(v, "|+", 2))) ||
				    (vl == 1 && *v == '|')) {
					if ((kl == 5 && !memcmp(t, "error", 5)) ||
					    (kl == 5 && !memcmp(t, "stack", 5))) {
						r.key = t[0];
						r.key_indent = i;
					}
					continue;
				}
				callus_js_yaml_unquote(&tmp, v, vl);
				if ((rc = callus_buf_status(&tmp)) < 0)
					break;
				if (kl == 8 && !memcmp(t, "location", 8)) {
					size_t fl;
					long l, c;

					if (callus_js_split_location(tmp.ptr, tmp.len, &fl,
								   &l, &c) &&
					    (rc = callus_js_path(&r.f.file, tmp.ptr, fl)) >=
						0) {
						r.f.line = l;
						r.f.column = c;
					}
				} else if (kl == 11 && !memcmp(t, "failureType", 11)) {
					r.parent = !strcmp(tmp.ptr, "subtestsFailed");
				} else if (kl == 5 && !memcmp(t, "error", 5)) {
					rc = error_text(&r, tmp.ptr, tmp.len);
				} else if (kl == 4 && !memcmp(t, "name", 4)) {
					callus_buf_clear(&r.name);
					rc = callus_buf_put(&r.name, tmp.ptr, tmp.len);
				} else if (kl == 4 && !memcmp(t, "code", 4)) {
					callus_buf_clear(&r.code);
					rc = callus_buf_put(&r.code, tmp.ptr, tmp.len);
				}
				if (rc < 0)
					break;
				continue;
			}
			/* the filtered text lacks "stack: |-": frames stand alone */
			if (i >= r.block_indent && callus_js_parse_frame(s, len, 0, &fr)) {
				if ((rc = callus_js_failure_frame(&r.f, in->pc, &fr)) < 0)
					break;
				continue;
			}
			if (i >= r.block_indent && (!r.error.len || r.error_more) &&
			    (rc = error_text(&r, t, tl)) < 0)
				break;
			continue;
		}

		/* ---- spec ---- */
		if (callus_pu_starts(t, tl, CROSS "failing tests:")) {
			if ((rc = finish(&r, in->pc, diags, files, &p)) < 0)
				break;
			before_section = diags->count + diags->dropped;
			if (before_section)
				break;
			continue;
		}
		if (callus_pu_starts(t, tl, "test at ")) {
			if ((rc = finish(&r, in->pc, diags, files, &p)) < 0)
				break;
			callus_buf_clear(&test_at);
			if ((rc = callus_buf_put(&test_at, t + 8, tl - 8)) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(t, tl, CROSS) ||
		    callus_pu_starts(t, tl, "\xe2\x96\xb6 ") /* ▶ */ ||
		    callus_pu_starts(t, tl, "\xe2\x9c\x94 ") /* ✔ */ ||
		    callus_pu_starts(t, tl, "\xe2\x84\xb9 ") /* ℹ */ ||
		    callus_pu_starts(t, tl, "\xef\xb9\xa3 ") /* ﹣ */) {
			int cross = callus_pu_starts(t, tl, CROSS);

			/* a ✖ whose error never came is a parent's summary */
			if (r.f.open && !r.f.has_header && !r.tap)
				r.parent = 1;
			if ((rc = finish(&r, in->pc, diags, files, &p)) < 0)
				break;
			if (!cross)
				continue;
			callus_js_failure_start(&r.f);
			r.depth = i / 2;
			if ((rc = callus_js_failure_test(&r.f, t + 4,
						       spec_name(t + 4, tl - 4))) < 0)
				break;
			if (test_at.len) {
				size_t fl;
				long l, c;

				if (callus_js_split_location(test_at.ptr, test_at.len, &fl,
							   &l, &c) &&
				    (rc = callus_js_path(&r.f.file, test_at.ptr, fl)) >=
					0) {
					r.f.line = l;
					r.f.column = c;
				}
				callus_buf_clear(&test_at);
				if (rc < 0)
					break;
			}
			continue;
		}
		if (!r.f.open || r.tap)
			continue;
		if (callus_js_parse_frame(s, len, 1, &fr)) {
			if ((rc = callus_js_failure_frame(&r.f, in->pc, &fr)) < 0)
				break;
			continue;
		}
		if (callus_pu_starts(t, tl, "at ") || r.f.frames.count || t[0] == '{' ||
		    t[0] == '}')
			continue;
		if (!r.f.has_header) {
			r.f.has_header = 1;
			error_header(&tmp, t, tl);
			callus_buf_clear(&r.error);
			if ((rc = callus_buf_status(&tmp)) < 0 ||
			    (rc = error_text(&r, tmp.ptr, tmp.len)) < 0 ||
			    (rc = callus_js_message_add(&r.f.message, tmp.ptr, tmp.len)) <
				0)
				break;
		} else if (r.error_more) {
			r.error_more = 0;
			if (!diff_line(t, tl) &&
			    (rc = callus_js_message_add(&r.f.message, t, tl)) < 0)
				break;
		}
	}
	if (rc >= 0) {
		if (r.f.open && !r.f.has_header && !r.tap)
			r.parent = 1;
		rc = finish(&r, in->pc, diags, files, &p);
	}
	callus_js_failure_release(&r.f);
	callus_buf_release(&r.name);
	callus_buf_release(&r.code);
	callus_buf_release(&r.error);
	callus_buf_release(&tmp);
	callus_buf_release(&test_at);
	callus_js_lines_release(&it);
	free(p.index);
	free(p.depth);
	return rc < 0 ? rc : 0;
}

/* "✖ failing tests:", "ℹ fail 2", "# fail 2", "failureType: '...'" */
static int sniff(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *s;
	size_t n;

	while (callus_next_line(&p, end, &s, &n)) {
		size_t i = callus_js_indent(s, n);
		const char *t = s + i;
		size_t tl = n - i;

		if (callus_pu_starts(t, tl, CROSS "failing tests:") ||
		    callus_pu_starts(t, tl, "failureType: '"))
			return 1;
		if ((callus_pu_starts(t, tl, "\xe2\x84\xb9 fail ") && tl > 9 &&
		     is_digit(t[9])) ||
		    (callus_pu_starts(s, n, "# fail ") && n > 7 && is_digit(s[7])))
			return 1;
	}
	return 0;
}

static const char *const tools[] = {"node --test", NULL};

const callus_parser callus_parser_node_test = { "node_test", tools, sniff, parse, NULL };
