#include "callus/extract.h"
#include "callus/buf.h"
#include "callus/common.h"
#include "callus/utf8.h"

#include <stdlib.h>
#include <string.h>

typedef struct span {
	const char *p;
	size_t len;
} span;

/* What a scan of the lines carries from one line to the next. */
typedef struct extract_state {
	callus_diags *diags;
	callus_strlist *files;
	const callus_pathctx *pc;
	callus_buf path;      /* scratch for relativized paths */
	callus_buf stylish;   /* eslint stylish: the file of the current block */
	callus_buf pending;   /* a failing test's name waiting for its location */
} extract_state;

void callus_diags_release(callus_diags *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->count; i++) {
		callus_diag *x = &d->items[i];

		free(x->file);
		free(x->code);
		free(x->message);
		free(x->severity);
		free(x->test);
		free(x->signature);
		callus_strlist_release(&x->frames);
	}
	free(d->items);
	d->items = NULL;
	d->count = d->alloc = d->dropped = 0;
}

static char *dup_n(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

int callus_diags_add(callus_diags *d, const char *file, long line, long column, const char *code,
		   size_t code_len, const char *message, size_t message_len, const char *severity)
{
	callus_diag *x;

	if (d->count >= CALLUS_DIAGS_MAX) {
		d->dropped++;
		return 1;
	}
	if (d->count == d->alloc) {
		size_t n = d->alloc ? d->alloc * 2 : 16, bytes;
		callus_diag *p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(d->items, bytes)))
			return CALLUS_ENOMEM;
		d->items = p;
		d->alloc = n;
	}
	x = &d->items[d->count];
	memset(x, 0, sizeof(*x));
	if (code)
		code_len = callus_utf8_cut(code, code_len, CALLUS_DIAG_CODE_MAX);
	x->line = line > 0 ? line : 0;
	x->column = column > 0 ? column : 0;
	if ((file && !(x->file = strdup(file))) ||
	    (code && code_len && !(x->code = dup_n(code, code_len))) ||
	    !(x->message = dup_n(message ? message : "", message ? message_len : 0)) ||
	    (severity && !(x->severity = strdup(severity)))) {
		free(x->file);
		free(x->code);
		free(x->message);
		free(x->severity);
		return CALLUS_ENOMEM;
	}
	d->count++;
	return 0;
}

callus_diag *callus_diags_last(callus_diags *d)
{
	return d->count ? &d->items[d->count - 1] : NULL;
}

int callus_diag_set(char **field, const char *s, size_t len)
{
	char *c = dup_n(s, len);

	if (!c)
		return CALLUS_ENOMEM;
	free(*field);
	*field = c;
	return 0;
}

int callus_diag_add_frame(callus_diag *d, const callus_pathctx *pc, const char *function,
			size_t function_len, const char *file, size_t file_len)
{
	callus_buf rel = CALLUS_BUF_INIT, frame = CALLUS_BUF_INIT;
	int rc = 0;

	if (!callus_path_relativize(&rel, pc, file, file_len))
		goto out;
	callus_buf_put(&frame, function ? function : "", function ? function_len : 0);
	callus_buf_putc(&frame, '\t');
	callus_buf_put(&frame, rel.ptr, rel.len);
	if ((rc = callus_buf_status(&frame)) < 0 ||
	    (rc = callus_strlist_add(&d->frames, frame.ptr, frame.len)) < 0)
		goto out;
	rc = 1;
out:
	callus_buf_release(&rel);
	callus_buf_release(&frame);
	return rc;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_space(char c) { return c == ' ' || c == '\t'; }

static span trim(span s)
{
	while (s.len && is_space(s.p[0])) {
		s.p++;
		s.len--;
	}
	while (s.len && is_space(s.p[s.len - 1]))
		s.len--;
	return s;
}

static int starts(span s, const char *w)
{
	size_t n = strlen(w);
	return s.len >= n && !memcmp(s.p, w, n);
}

static long parse_num(const char *p, size_t len, size_t *used)
{
	long v = 0;
	size_t i = 0;

	while (i < len && is_digit(p[i]) && i < 9)
		v = v * 10 + (p[i++] - '0');
	*used = i;
	return v;
}

/* Relativize a path; add it to the affected files.  Returns 1 with the
 * relative path in st->path when it is an affected file. */
static int note_file(extract_state *st, const char *p, size_t len)
{
	if (!callus_path_relativize(&st->path, st->pc, p, len))
		return 0;
	callus_strlist_add_unique(st->files, st->path.ptr, st->path.len, NULL);
	return 1;
}

/* Split a leading or trailing error code off a message. */
static void split_code(span *msg, span *code)
{
	span m = trim(*msg);
	size_t i;

	code->p = NULL;
	code->len = 0;
	/* severity words that carry no meaning of their own */
	static const char *const sev[] = { "fatal error:", "error:", "warning:", "error -", "error" };
	for (i = 0; i < sizeof(sev) / sizeof(sev[0]); i++) {
		if (starts(m, sev[i]) && (i < 4 || (m.len > 5 && (m.p[5] == ' ' || m.p[5] == '[')))) {
			m.p += strlen(sev[i]);
			m.len -= strlen(sev[i]);
			m = trim(m);
			break;
		}
	}
	/* "TS2322: ..." (tsc), "[E0308]: ..." (rustc) */
	if (m.len > 3 && m.p[0] == 'T' && m.p[1] == 'S' && is_digit(m.p[2])) {
		for (i = 2; i < m.len && is_digit(m.p[i]); i++)
			;
		if (i < m.len && m.p[i] == ':') {
			code->p = m.p;
			code->len = i;
			m.p += i + 1;
			m.len -= i + 1;
			*msg = trim(m);
			return;
		}
	}
	if (m.len > 2 && m.p[0] == '[') {
		const char *close = memchr(m.p, ']', m.len);
		if (close && close - m.p < 40) {
			code->p = m.p + 1;
			code->len = (size_t)(close - m.p - 1);
			m.len -= (size_t)(close + 1 - m.p);
			m.p = close + 1;
			if (m.len && m.p[0] == ':') {
				m.p++;
				m.len--;
			}
			*msg = trim(m);
			return;
		}
	}
	/* flake8/ruff/pycodestyle: "E501 line too long" */
	for (i = 0; i < m.len && m.p[i] >= 'A' && m.p[i] <= 'Z'; i++)
		;
	if (i >= 1 && i <= 3 && i < m.len && is_digit(m.p[i])) {
		size_t j = i;
		while (j < m.len && is_digit(m.p[j]))
			j++;
		if (j - i >= 2 && j - i <= 4 && j < m.len && m.p[j] == ' ') {
			code->p = m.p;
			code->len = j;
			m.p += j + 1;
			m.len -= j + 1;
			*msg = trim(m);
			return;
		}
	}
	/* trailing "[-Wunused-variable]", "[Error/no-unused-vars]", "[arg-type]" */
	if (m.len > 3 && m.p[m.len - 1] == ']') {
		const char *open = NULL;
		for (i = m.len - 1; i > 0; i--)
			if (m.p[i - 1] == '[') {
				open = m.p + i;
				break;
			} else if (m.p[i - 1] == ' ') {
				break;
			}
		if (open && open - 1 > m.p && open[-2] == ' ') {
			const char *slash = memchr(open, '/', (size_t)(m.p + m.len - 1 - open));
			const char *start = slash ? slash + 1 : open;
			code->p = start;
			code->len = (size_t)(m.p + m.len - 1 - start);
			if (code->len && code->p[0] == '-' && code->len > 8 &&
			    !memcmp(code->p, "-Werror=", 8)) {
				code->p += 8;
				code->len -= 8;
			}
			m.len = (size_t)(open - 1 - m.p);
		}
	}
	*msg = trim(m);
}

static int add_diag(extract_state *st, const char *file, long line, long col, span code,
		    span msg)
{
	int rc = callus_diags_add(st->diags, file, line, col, code.p, code.len, msg.p, msg.len, NULL);

	return rc < 0 ? rc : 0;
}

static int path_char(char c)
{
	return c && !is_space(c) && c != '(' && c != ')' && c != '"' && c != '\'' &&
	       c != '`' && c != '<' && c != '>' && c != ',' && c != '[' && c != ']';
}

/* A location: PATH:LINE[:COL] or PATH(LINE,COL) starting at p.  On success
 * fills the parts and returns the offset just past it. */
static size_t match_location(span s, size_t at, span *path, long *line, long *col)
{
	size_t i = at, n;

	while (i < s.len && path_char(s.p[i]) && s.p[i] != ':')
		i++;
	/* Windows drive letters are not ours; "C:" stops the path here. */
	if (i == at || i >= s.len || !callus_path_has_source_ext(s.p + at, i - at))
		return 0;
	path->p = s.p + at;
	path->len = i - at;
	*line = -1; /* a bare path until a number follows */
	*col = 0;
	if (s.p[i] == ':' && i + 1 < s.len && is_digit(s.p[i + 1])) {
		*line = parse_num(s.p + i + 1, s.len - i - 1, &n);
		i += 1 + n;
		if (i + 1 < s.len && s.p[i] == ':' && is_digit(s.p[i + 1])) {
			*col = parse_num(s.p + i + 1, s.len - i - 1, &n);
			i += 1 + n;
		}
		return i;
	}
	if (s.p[i] == '(' && i + 1 < s.len && is_digit(s.p[i + 1])) {
		size_t j = i + 1;
		*line = parse_num(s.p + j, s.len - j, &n);
		j += n;
		if (j < s.len && s.p[j] == ',') {
			*col = parse_num(s.p + j + 1, s.len - j - 1, &n);
			j += 1 + n;
		}
		if (j < s.len && s.p[j] == ')')
			return j + 1;
	}
	return 0;
}

/* Emit the pending failing-test name at a location, once. */
static int flush_pending(extract_state *st, const char *file, long line, long col)
{
	span none = { NULL, 0 }, msg = { st->pending.ptr, st->pending.len };
	int rc;

	if (!st->pending.len)
		return 0;
	rc = add_diag(st, file, line, col, none, msg);
	callus_buf_clear(&st->pending);
	return rc;
}

/* eslint stylish: "  12:5  error  'x' is defined but never used  no-unused-vars" */
static int stylish_line(extract_state *st, span s)
{
	span t = trim(s), msg, code = { NULL, 0 };
	long line, col;
	size_t n, i = 0;

	if (!st->stylish.len || !s.len || !is_space(s.p[0]) || !t.len || !is_digit(t.p[0]))
		return 0;
	line = parse_num(t.p, t.len, &n);
	i = n;
	if (i >= t.len || t.p[i] != ':')
		return 0;
	col = parse_num(t.p + i + 1, t.len - i - 1, &n);
	i += 1 + n;
	while (i < t.len && is_space(t.p[i]))
		i++;
	if (!starts((span){ t.p + i, t.len - i }, "error") &&
	    !starts((span){ t.p + i, t.len - i }, "warning"))
		return 0;
	while (i < t.len && !is_space(t.p[i]))
		i++;
	msg.p = t.p + i;
	msg.len = t.len - i;
	msg = trim(msg);
	/* the rule id is the last field, after two or more spaces */
	for (size_t k = msg.len; k > 2; k--) {
		if (is_space(msg.p[k - 1]) && is_space(msg.p[k - 2])) {
			code.p = msg.p + k;
			code.len = msg.len - k;
			msg.len = k;
			msg = trim(msg);
			break;
		}
	}
	return add_diag(st, st->stylish.ptr, line, col, code, msg) < 0 ? CALLUS_ENOMEM : 1;
}

static int scan_line(extract_state *st, span s)
{
	span t = trim(s), path, code, msg;
	long line, col;
	size_t end;
	int rc;

	if (!t.len)
		return 0;

	/* eslint stylish: a file on a line of its own opens a block */
	if (!memchr(t.p, ' ', t.len) && callus_path_has_source_ext(t.p, t.len) &&
	    !memchr(t.p, ':', t.len)) {
		callus_buf_clear(&st->stylish);
		if (note_file(st, t.p, t.len))
			callus_buf_put(&st->stylish, st->path.ptr, st->path.len);
		return 0;
	}
	if ((rc = stylish_line(st, s)) != 0)
		return rc < 0 ? rc : 0;
	if (t.p[0] != '/' && !is_space(s.p[0]) && !is_digit(t.p[0]))
		callus_buf_clear(&st->stylish);

	/* jest "● Suite › test name": the next in-project frame locates it */
	if (starts(t, "\xe2\x97\x8f ")) {
		callus_buf_clear(&st->pending);
		callus_buf_put(&st->pending, t.p + 4, t.len - 4);
		return 0;
	}
	/* pytest "FAILED tests/test_x.py::test_name - assert 1 == 2" */
	if (starts(t, "FAILED ") || starts(t, "ERROR ")) {
		size_t skip = t.p[0] == 'F' ? 7 : 6, i = skip;
		while (i < t.len && !is_space(t.p[i]) && t.p[i] != ':')
			i++;
		if (i + 1 < t.len && t.p[i] == ':' && t.p[i + 1] == ':' &&
		    note_file(st, t.p + skip, i - skip)) {
			span none = { NULL, 0 };
			msg.p = t.p + i + 2;
			msg.len = t.len - i - 2;
			return add_diag(st, st->path.ptr, 0, 0, none, trim(msg));
		}
	}
	/* vitest "FAIL  src/a.test.ts > suite > name" */
	if (starts(t, "FAIL ")) {
		size_t i = 5, j;
		while (i < t.len && is_space(t.p[i]))
			i++;
		for (j = i; j < t.len && !is_space(t.p[j]); j++)
			;
		if (j + 3 < t.len && !memcmp(t.p + j, " > ", 3) &&
		    note_file(st, t.p + i, j - i)) {
			callus_buf_clear(&st->pending);
			callus_buf_put(&st->pending, t.p + j + 3, t.len - j - 3);
			return 0;
		}
	}
	/* Python traceback "File "x.py", line 12, in f" */
	if (starts(t, "File \"")) {
		const char *q = memchr(t.p + 6, '"', t.len - 6);
		if (q && note_file(st, t.p + 6, (size_t)(q - t.p - 6))) {
			long ln = 0;
			size_t n;
			if ((size_t)(q - t.p) + 8 < t.len && !memcmp(q, "\", line ", 8))
				ln = parse_num(q + 8, t.len - (size_t)(q + 8 - t.p), &n);
			return flush_pending(st, st->path.ptr, ln, 0);
		}
		return 0;
	}
	/* stack frames: "at fn (file:1:2)", "at file:1:2", "❯ file:1:2" */
	if (starts(t, "at ") || starts(t, "\xe2\x9d\xaf ")) {
		const char *open = memchr(t.p, '(', t.len);
		size_t at = open ? (size_t)(open - t.p) + 1 : (t.p[0] == 'a' ? 3 : 4);
		if (at < t.len && match_location(t, at, &path, &line, &col) &&
		    note_file(st, path.p, path.len))
			return flush_pending(st, st->path.ptr, line < 0 ? 0 : line, col);
		return 0;
	}

	/* FILE:LINE[:COL]: message, anywhere in the line ("  --> src/a.rs:2:9") */
	for (size_t i = 0; i < t.len; i++) {
		if (i && path_char(t.p[i - 1]))
			continue;
		if (!(end = match_location(t, i, &path, &line, &col)))
			continue;
		if (line < 0) /* a bare path: affected, nothing more */
			break;
		if (!note_file(st, path.p, path.len))
			return 0;
		msg.p = t.p + end;
		msg.len = t.len - end;
		while (msg.len && (msg.p[0] == ':' || msg.p[0] == ' ' || msg.p[0] == '-')) {
			msg.p++;
			msg.len--;
		}
		if (!msg.len)
			return flush_pending(st, st->path.ptr, line, col);
		if (starts(msg, "note:") || starts(msg, "In function") ||
		    starts(msg, "required from"))
			return 0;
		split_code(&msg, &code);
		if (!msg.len)
			return 0;
		return add_diag(st, st->path.ptr, line, col, code, msg);
	}

	/* node's version under an uncaught error names no file */
	if (starts(t, "Node.js v"))
		return 0;
	/* bare paths anywhere: "FAIL ./sum.test.js", "Error in src/x.py" */
	for (size_t i = 0; i < t.len;) {
		size_t j;
		while (i < t.len && !path_char(t.p[i]))
			i++;
		for (j = i; j < t.len && path_char(t.p[j]); j++)
			;
		if (j > i) {
			size_t e = j;
			while (e > i && (t.p[e - 1] == ':' || t.p[e - 1] == '.'))
				e--;
			if (callus_path_has_source_ext(t.p + i, e - i))
				note_file(st, t.p + i, e - i);
		}
		i = j;
	}
	return 0;
}

int callus_extract_generic(callus_diags *diags, callus_strlist *files, const char *text,
			 size_t len, const callus_pathctx *pc)
{
	extract_state st = { diags, files, pc, CALLUS_BUF_INIT, CALLUS_BUF_INIT, CALLUS_BUF_INIT };
	const char *p = text, *end = text + len;
	int rc = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		span s = { p, (size_t)((nl ? nl : end) - p) };

		if ((rc = scan_line(&st, s)) < 0)
			break;
		p = nl ? nl + 1 : end;
	}
	callus_buf_release(&st.path);
	callus_buf_release(&st.stylish);
	callus_buf_release(&st.pending);
	return rc;
}
