#include "parsers/js_util.h"
#include "callus/capture.h"
#include "callus/common.h"
#include "callus/utf8.h"
#include "swar.h"
#include "wordlist.h"

#include <string.h>

void callus_js_lines_init(callus_js_lines *it, const callus_parse_input *in)
{
	it->raw = in->raw && in->raw_len && in->raw_complete;
	it->p = it->raw ? in->raw : in->text;
	it->end = it->p ? it->p + (it->raw ? in->raw_len : in->text_len) : NULL;
	callus_buf_init(&it->stripped, 0);
	callus_buf_init(&it->line, 0);
}

int callus_js_lines_next(callus_js_lines *it, const char **s, size_t *len)
{
	const char *line;
	size_t n;

	if (!it->p || !callus_next_line(&it->p, it->end, &line, &n))
		return 0;
	if (!it->raw) {
		*s = line;
		*len = n;
		return 1;
	}
	/* printable ASCII has no escape to strip nor byte to repair: the line
	 * as it lies, its trailing blanks cut (each line of a large output
	 * was copied twice) */
	if (callus_swar_printable_len(line, n) == n) {
		while (n && line[n - 1] == ' ')
			n--;
		*s = line;
		*len = n;
		return 1;
	}
	callus_buf_clear(&it->stripped);
	callus_buf_clear(&it->line);
	callus_ansi_strip_line(&it->stripped, line, n);
	callus_utf8_sanitize(&it->line, it->stripped.ptr, it->stripped.len);
	callus_buf_rtrim(&it->line);
	if (callus_buf_status(&it->stripped) < 0 || callus_buf_status(&it->line) < 0)
		return CALLUS_ENOMEM;
	*s = it->line.ptr;
	*len = it->line.len;
	return 1;
}

void callus_js_lines_release(callus_js_lines *it)
{
	callus_buf_release(&it->stripped);
	callus_buf_release(&it->line);
}

int callus_js_wrapper_noise(const char *s, size_t len)
{
	/* At the start of a line only: "> " and "$ " echo the script that
	 * runs; none of the JavaScript tools starts a line with them.  By
	 * their first byte, which most lines of any output (a summary asks
	 * each) start none of. */
	static const callus_word npm[] = {
		CALLUS_WORD("npm warn"),   CALLUS_WORD("npm WARN"), CALLUS_WORD("npm error"),
		CALLUS_WORD("npm ERR!"),   CALLUS_WORD("npm notice"), CALLUS_WORD("npm verb"),
	};
	static const callus_word error[] = {
		CALLUS_WORD("error Command failed with exit code"), CALLUS_WORD("error: script \""),
	};
	static const callus_word blank[] = {
		CALLUS_WORD(" ELIFECYCLE "), CALLUS_WORD(" ERR_PNPM_"),
	};
	static const callus_word pnpm[] = {
		CALLUS_WORD("ELIFECYCLE "), CALLUS_WORD("ERR_PNPM_"),
	};
	static const callus_word echo = CALLUS_WORD("> "), shell = CALLUS_WORD("$ "),
				  yarn = CALLUS_WORD("yarn run v"),
				  visit = CALLUS_WORD("info Visit https://yarnpkg.com"),
				  done = CALLUS_WORD("Done in "), lifecycle = CALLUS_WORD("[ELIFECYCLE]");

	if (!len)
		return 0;
	switch (s[0]) {
	case 'n': return callus_words_start(npm, CALLUS_WORDS_COUNT(npm), s, len);
	case 'e': return callus_words_start(error, CALLUS_WORDS_COUNT(error), s, len);
	case ' ': return callus_words_start(blank, CALLUS_WORDS_COUNT(blank), s, len);
	case 'E': return callus_words_start(pnpm, CALLUS_WORDS_COUNT(pnpm), s, len);
	case '>': return callus_words_start(&echo, 1, s, len);
	case '$': return callus_words_start(&shell, 1, s, len);
	case 'y': return callus_words_start(&yarn, 1, s, len);
	case 'i': return callus_words_start(&visit, 1, s, len);
	case 'D': return callus_words_start(&done, 1, s, len);
	case '[': return callus_words_start(&lifecycle, 1, s, len);
	}
	return 0;
}

size_t callus_js_indent(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* Digits ending at s[end) going back; their value, and where they start. */
static int digits_before(const char *s, size_t end, size_t *start, long *value)
{
	size_t i = end;
	long v = 0, scale = 1;

	while (i > 0 && is_digit(s[i - 1]) && end - i < 9) {
		i--;
		v += (s[i] - '0') * scale;
		scale *= 10;
	}
	if (i == end)
		return 0;
	*start = i;
	*value = v;
	return 1;
}

int callus_js_split_location(const char *s, size_t len, size_t *file_len, long *line,
			   long *col)
{
	size_t a, b;
	long x, y;

	if (!digits_before(s, len, &a, &x) || a == 0 || s[a - 1] != ':')
		return 0;
	if (a >= 2 && digits_before(s, a - 1, &b, &y) && b > 0 && s[b - 1] == ':') {
		if (b - 1 == 0)
			return 0;
		*file_len = b - 1;
		*line = y;
		*col = x;
		return 1;
	}
	if (a - 1 == 0)
		return 0;
	*file_len = a - 1;
	*line = x;
	*col = 0;
	return 1;
}

static const char *memmem_last(const char *s, size_t len, const char *w, size_t wl)
{
	for (size_t i = len; i >= wl; i--)
		if (!memcmp(s + i - wl, w, wl))
			return s + i - wl;
	return NULL;
}

int callus_js_parse_frame(const char *s, size_t len, int need_at, callus_js_frame *f)
{
	size_t i = callus_js_indent(s, len), flen;
	const char *b, *loc;
	size_t blen, loclen;
	int vitest = 0;

	memset(f, 0, sizeof(*f));
	if (callus_pu_starts(s + i, len - i, "at "))
		i += 3;
	else if (callus_pu_starts(s + i, len - i, "\xe2\x9d\xaf ")) /* ❯ */
		i += 4, vitest = 1;
	else if (need_at)
		return 0;
	if (callus_pu_starts(s + i, len - i, "async "))
		i += 6;
	b = s + i;
	blen = len - i;
	while (blen && (b[blen - 1] == ' ' || b[blen - 1] == '\t'))
		blen--;
	/* node's inspect of an error with properties: "at f (a.js:1:2) {" */
	if (blen > 2 && b[blen - 1] == '{' && b[blen - 2] == ' ')
		blen -= 2;
	/* V8 prints "fn (location)", or the bare location of an anonymous
	 * function; node's TAP stacks the same without "at "; vitest
	 * "fn location" */
	if (blen > 2 && b[blen - 1] == ')') {
		const char *open = memmem_last(b, blen - 1, " (", 2);

		if (!open)
			return 0;
		f->fn = b;
		f->fn_len = (size_t)(open - b);
		loc = open + 2;
		loclen = (size_t)(b + blen - 1 - loc);
	} else if (vitest && memchr(b, ' ', blen)) {
		const char *sp = memmem_last(b, blen, " ", 1);

		f->fn = b;
		f->fn_len = (size_t)(sp - b);
		loc = sp + 1;
		loclen = (size_t)(b + blen - loc);
	} else {
		if (memchr(b, ' ', blen))
			return 0;
		loc = b;
		loclen = blen;
	}
	if (!callus_js_split_location(loc, loclen, &flen, &f->line, &f->column) ||
	    !callus_path_has_source_ext(loc, flen))
		return 0;
	if (callus_pu_starts(loc, flen, "node:") || callus_pu_starts(loc, flen, "internal/"))
		return 0;
	f->file = loc;
	f->file_len = flen;
	/* "Parser.parseExpr [as parseMaybeAssign]": the alias says nothing more */
	if (f->fn_len > 1 && f->fn[f->fn_len - 1] == ']') {
		const char *as = memmem_last(f->fn, f->fn_len, " [as ", 5);
		if (as)
			f->fn_len = (size_t)(as - f->fn);
	}
	return 1;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int callus_js_path(callus_buf *out, const char *p, size_t len)
{
	callus_buf_clear(out);
	if (len < 7 || memcmp(p, "file://", 7)) {
		callus_buf_put(out, p, len);
		return callus_buf_status(out);
	}
	/* node and mocha print ES modules' frames as file:// URLs */
	for (size_t i = 7; i < len; i++) {
		int hi, lo;

		if (p[i] == '%' && i + 2 < len && (hi = hexval(p[i + 1])) >= 0 &&
		    (lo = hexval(p[i + 2])) >= 0 && (hi || lo)) {
			callus_buf_putc(out, (char)(hi * 16 + lo));
			i += 2;
		} else {
			callus_buf_putc(out, p[i]);
		}
	}
	return callus_buf_status(out);
}

int callus_js_message_add(callus_buf *m, const char *s, size_t len)
{
	size_t i = 0;
	int space = m->len > 0;

	/* one byte past the limit tells where the cut goes */
	while (i < len && m->len <= CALLUS_JS_MESSAGE_MAX) {
		size_t run = i, room;

		if (s[i] == ' ' || s[i] == '\t') {
			space = m->len > 0;
			i++;
			continue;
		}
		if (space) {
			callus_buf_putc(m, ' ');
			space = 0;
		}
		/* a word in one piece, up to that byte past the limit */
		while (run < len && s[run] != ' ' && s[run] != '\t')
			run++;
		room = m->len <= CALLUS_JS_MESSAGE_MAX ? CALLUS_JS_MESSAGE_MAX + 1 - m->len : 1;
		callus_buf_put(m, s + i, run - i < room ? run - i : room);
		i = run;
	}
	if (m->len > CALLUS_JS_MESSAGE_MAX) {
		/* the input is valid UTF-8: cut before a sequence, not inside */
		callus_buf_truncate(m, callus_utf8_cut(m->ptr, m->len, CALLUS_JS_MESSAGE_MAX));
		callus_buf_rtrim(m);
	}
	return callus_buf_status(m);
}

void callus_js_failure_init(callus_js_failure *f)
{
	memset(f, 0, sizeof(*f));
	callus_buf_init(&f->file, 0);
	callus_buf_init(&f->message, 0);
	callus_buf_init(&f->scratch, 0);
}

static void failure_clear(callus_js_failure *f)
{
	f->open = 0;
	f->has_header = 0;
	f->line = f->column = 0;
	callus_strlist_release(&f->tests);
	callus_strlist_release(&f->frames);
	callus_buf_clear(&f->file);
	callus_buf_clear(&f->message);
}

void callus_js_failure_release(callus_js_failure *f)
{
	callus_strlist_release(&f->tests);
	callus_strlist_release(&f->frames);
	callus_buf_release(&f->file);
	callus_buf_release(&f->message);
	callus_buf_release(&f->scratch);
	f->open = 0;
}

size_t callus_js_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

int callus_js_failure_test(callus_js_failure *f, const char *s, size_t len)
{
	return callus_strlist_add(&f->tests, s, callus_js_cut(s, len, CALLUS_JS_TEST_MAX));
}

void callus_js_failure_start(callus_js_failure *f)
{
	failure_clear(f);
	f->open = 1;
}

int callus_js_failure_frame(callus_js_failure *f, const callus_pathctx *pc,
			  const callus_js_frame *fr)
{
	callus_buf rel = CALLUS_BUF_INIT, e = CALLUS_BUF_INIT;
	int rc = 0;

	if (!f->open || f->frames.count >= CALLUS_JS_FRAMES_MAX)
		return 0;
	if ((rc = callus_js_path(&f->scratch, fr->file, fr->file_len)) < 0)
		goto out;
	if (memchr(f->scratch.ptr, '\t', f->scratch.len) ||
	    !callus_path_relativize(&rel, pc, f->scratch.ptr, f->scratch.len))
		goto out;
	if (fr->fn && !memchr(fr->fn, '\t', fr->fn_len))
		callus_buf_put(&e, fr->fn, fr->fn_len);
	callus_buf_putc(&e, '\t');
	callus_buf_puts(&e, f->scratch.ptr);
	callus_buf_putc(&e, '\t');
	callus_buf_put_int(&e, fr->line);
	callus_buf_putc(&e, '\t');
	callus_buf_put_int(&e, fr->column);
	if ((rc = callus_buf_status(&e)) < 0 ||
	    (rc = callus_strlist_add(&f->frames, e.ptr, e.len)) < 0)
		goto out;
	rc = 1;
out:
	callus_buf_release(&rel);
	callus_buf_release(&e);
	return rc;
}

/* "fn\tfile\tline\tcol" */
static void split_frame(const char *e, const char **fn, size_t *fn_len, const char **file,
			size_t *file_len, long *line, long *col)
{
	const char *t1 = strchr(e, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
	const char *t3 = t2 ? strchr(t2 + 1, '\t') : NULL;

	*fn = e;
	*fn_len = t1 ? (size_t)(t1 - e) : 0;
	*file = t1 ? t1 + 1 : e;
	*file_len = t2 ? (size_t)(t2 - *file) : strlen(*file);
	*line = *col = 0;
	for (const char *p = t2 ? t2 + 1 : ""; is_digit(*p) && *line < 100000000; p++)
		*line = *line * 10 + (*p - '0');
	for (const char *p = t3 ? t3 + 1 : ""; is_digit(*p) && *col < 100000000; p++)
		*col = *col * 10 + (*p - '0');
}

int callus_js_failure_flush(callus_js_failure *f, const callus_pathctx *pc, callus_diags *diags,
			  callus_strlist *files, size_t *first_diag)
{
	size_t n, i;
	int rc = 0;

	if (first_diag)
		*first_diag = (size_t)-1;
	if (!f->open)
		return 0;
	n = f->tests.count ? f->tests.count : 1;
	for (i = 0; i < n; i++) {
		const char *fn = NULL, *file = f->file.ptr;
		size_t fn_len = 0, file_len = f->file.len;
		long line = f->line, col = f->column;
		callus_diag *d;

		if (f->frames.count)
			split_frame(f->frames.items[0], &fn, &fn_len, &file, &file_len,
				    &line, &col);
		rc = callus_parse_diag(diags, files, pc, file, file_len, line, col, NULL, 0,
				     f->message.ptr, f->message.len, "error");
		if (rc < 0)
			goto out;
		if (rc > 0) /* the list is full: counted, nothing to attach */
			continue;
		d = callus_diags_last(diags);
		if (first_diag && *first_diag == (size_t)-1)
			*first_diag = diags->count - 1;
		if (f->tests.count && (rc = callus_diag_set(&d->test, f->tests.items[i],
							  strlen(f->tests.items[i]))) < 0)
			goto out;
		for (size_t k = 0; k < f->frames.count; k++) {
			split_frame(f->frames.items[k], &fn, &fn_len, &file, &file_len,
				    &line, &col);
			if ((rc = callus_diag_add_frame(d, pc, fn, fn_len, file,
						      file_len)) < 0)
				goto out;
		}
	}
	/* the failing test's own file is affected even when the error was
	 * raised elsewhere */
	rc = 0;
	if (f->file.len &&
	    (rc = callus_parse_file(files, NULL, pc, f->file.ptr, f->file.len)) > 0)
		rc = 0;
out:
	failure_clear(f);
	return rc < 0 ? rc : 0;
}

void callus_js_yaml_unquote(callus_buf *out, const char *v, size_t len)
{
	callus_buf_clear(out);
	if (len >= 2 && (v[0] == '\'' || v[0] == '"') && v[len - 1] == v[0]) {
		for (size_t i = 1; i + 1 < len; i++) {
			if (v[0] == '\'' && v[i] == '\'' && i + 2 < len &&
			    v[i + 1] == '\'')
				i++;
			else if (v[0] == '"' && v[i] == '\\' && i + 2 < len)
				i++;
			callus_buf_putc(out, v[i]);
		}
		return;
	}
	callus_buf_put(out, v, len);
}
