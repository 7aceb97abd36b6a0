#include "parsers/util.h"
#include "parsers/parsers.h"
#include "callus/capture.h"
#include "callus/common.h"
#include "callus/utf8.h"
#include "swar.h"

#include <stdlib.h>
#include <string.h>

void callus_pu_lines_init(callus_pu_lines *it, const callus_parse_input *in)
{
	memset(it, 0, sizeof(*it));
	callus_buf_init(&it->strip, 0);
	callus_buf_init(&it->clean, 0);
	if (in->raw && in->raw_len && in->raw_complete) {
		it->p = in->raw;
		it->end = in->raw + in->raw_len;
		it->from_raw = 1;
		it->checked = in->clean;
	} else {
		it->p = in->text ? in->text : "";
		it->end = it->p + (in->text ? in->text_len : 0);
	}
}

/* Most lines need no cleaning: no control byte, valid UTF-8.  Printable
 * ASCII, most of any output, eight bytes at a time; from the first word
 * holding anything else, byte by byte (all before it is ASCII, so UTF-8
 * is checked from there). */
static int plain(const char *s, size_t len)
{
	size_t i = callus_swar_printable_len(s, len);
	int high = 0;

	for (size_t j = i; j < len; j++) {
		unsigned char c = (unsigned char)s[j];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 0;
		high |= c >= 0x80;
	}
	return !high || callus_utf8_valid(s + i, len - i);
}

int callus_pu_lines_next(callus_pu_lines *it, const char **line, size_t *len)
{
	const char *s;
	size_t n;

	if (!callus_next_line(&it->p, it->end, &s, &n))
		return 0;
	if (it->from_raw) {
		it->raw_line = s;
		it->raw_len = n;
		if (!it->checked && !plain(s, n)) {
			callus_buf_clear(&it->strip);
			callus_buf_clear(&it->clean);
			callus_ansi_strip_line(&it->strip, s, n);
			callus_utf8_sanitize(&it->clean, it->strip.ptr, it->strip.len);
			if (callus_buf_status(&it->strip) < 0 || callus_buf_status(&it->clean) < 0)
				return CALLUS_ENOMEM;
			s = it->clean.ptr;
			n = it->clean.len;
		}
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	*line = s;
	*len = n;
	return 1;
}

void callus_pu_lines_release(callus_pu_lines *it)
{
	callus_buf_release(&it->strip);
	callus_buf_release(&it->clean);
}

int callus_pu_each_line(const callus_parse_input *in,
		      int (*line_of)(void *st, const char *line, size_t len), void *st)
{
	callus_pu_lines it;
	const char *s;
	size_t len;
	int rc;

	callus_pu_lines_init(&it, in);
	while ((rc = callus_pu_lines_next(&it, &s, &len)) > 0)
		if ((rc = line_of(st, s, len)) < 0)
			break;
	callus_pu_lines_release(&it);
	return rc;
}

long callus_pu_findn(const char *s, size_t len, const char *needle, size_t n)
{
	size_t k = 0;

	if (!n)
		return 0;
	if (n > len)
		return -1;
	/* looked for by its first byte that is not a space: most needles
	 * start with one, and a line of output has a space every few bytes */
	while (k + 1 < n && needle[k] == ' ')
		k++;
	for (size_t i = k; i + n - k <= len; i++) {
		const char *p = memchr(s + i, needle[k], len - (n - k) + 1 - i);

		if (!p)
			break;
		i = (size_t)(p - s);
		if (!memcmp(p - k, needle, n))
			return (long)(i - k);
	}
	return -1;
}

size_t callus_pu_indent(const char *s, size_t len)
{
	size_t i = 0;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

int callus_pu_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* callus_pu_num(), inlined where a location is read: each sniffing
 * parser reads one at the start of every line it is shown. */
static inline long num_at(const char *s, size_t len, size_t *used)
{
	size_t max = len < 9 ? len : 9, i = 0;
	long v = 0;

	while (i < max && (unsigned)(s[i] - '0') < 10)
		v = v * 10 + (s[i++] - '0');
	/* a longer run is no line number */
	if (i == 9 && i < len && (unsigned)(s[i] - '0') < 10)
		i = 0, v = 0;
	*used = i;
	return v;
}

long callus_pu_num(const char *s, size_t len, size_t *used)
{
	return num_at(s, len, used);
}

int callus_pu_location(const char *s, size_t len, callus_pu_loc *loc)
{
	size_t i = callus_span_none3(s, len, ':', ' ', '\t'), n;

	if (i == 0 || i + 1 >= len || s[i] != ':' || s[0] == '<')
		return 0;
	loc->path = s;
	loc->path_len = i;
	loc->line = num_at(s + i + 1, len - i - 1, &n);
	if (!n)
		return 0;
	i += 1 + n;
	loc->col = 0;
	loc->has_col = 0;
	if (i + 1 < len && s[i] == ':' && callus_pu_is_digit(s[i + 1])) {
		loc->has_col = 1;
		loc->col = num_at(s + i + 1, len - i - 1, &n);
		if (!n)
			return 0;
		i += 1 + n;
	}
	if (i < len && s[i] == ':')
		i++;
	loc->end = i;
	return 1;
}

int callus_pu_find_location(const char *s, size_t len, callus_pu_loc *loc)
{
	for (size_t i = 0; i < len; i++) {
		if (i && !strchr(" \t('\"[=", s[i - 1]))
			continue;
		if (callus_pu_location(s + i, len - i, loc) &&
		    callus_path_has_source_ext(loc->path, loc->path_len)) {
			loc->end += i;
			return 1;
		}
	}
	return 0;
}

int callus_pu_is_c_family(const char *path, size_t len)
{
	static const char *const exts[] = {
		".c", ".h", ".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++",
		".m", ".mm", ".s", ".S", ".inl", ".tcc", ".ipp", ".C", ".H", ".cu", ".cuh",
	};

	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		if (callus_pu_ends(path, len, exts[i]) && len > strlen(exts[i]))
			return 1;
	return 0;
}

size_t callus_pu_lint_code(const char *s, size_t len)
{
	size_t i = 0, d;

	while (i < len && i < 8 && s[i] >= 'A' && s[i] <= 'Z')
		i++;
	if (!i)
		return 0;
	for (d = i; d < len && d - i < 7 && callus_pu_is_digit(s[d]); d++)
		;
	if (d == i || d - i > 6 || (d < len && s[d] != ' ' && s[d] != ']' && s[d] != ':'))
		return 0;
	return d;
}

int callus_pu_lint_line(const char *s, size_t len, callus_pu_loc *loc, const char **code,
		      size_t *code_len, const char **msg, size_t *msg_len)
{
	size_t i, n;

	if (!callus_pu_location(s, len, loc) || loc->end >= len || s[loc->end] != ' ')
		return 0;
	i = loc->end + 1;
	if (i < len && s[i] == '[') {
		/* pylint format: "[E501] message" */
		if (!(n = callus_pu_lint_code(s + i + 1, len - i - 1)) || i + 1 + n >= len ||
		    s[i + 1 + n] != ']')
			return 0;
		*code = s + i + 1;
		*code_len = n;
		i += n + 2;
	} else {
		if (!(n = callus_pu_lint_code(s + i, len - i)) || i + n >= len || s[i + n] != ' ')
			return 0;
		*code = s + i;
		*code_len = n;
		i += n;
	}
	*msg = s + i;
	*msg_len = len - i;
	callus_pu_trim(msg, msg_len);
	return 1;
}

size_t callus_pu_cut(const char *s, size_t len, size_t max)
{
	/* redacted after the cut: never half a word (utf8.h) */
	return callus_utf8_cut_word(s, len, max);
}

int callus_pu_set_test(callus_diag *d, const char *s, size_t len)
{
	return callus_diag_set(&d->test, s, callus_pu_cut(s, len, CALLUS_PU_TEXT_MAX));
}

int callus_pu_diag(callus_diag **out, callus_diags *diags, callus_strlist *files,
		 const callus_pathctx *pc, const char *file, size_t file_len, long line, long col,
		 const char *code, size_t code_len, const char *msg, size_t msg_len,
		 const char *severity)
{
	int rc = callus_parse_diag(diags, files, pc, file, file_len, line, col, code,
				 code ? callus_pu_cut(code, code_len, 128) : 0, msg,
				 msg ? callus_pu_cut(msg, msg_len, CALLUS_PU_TEXT_MAX) : 0, severity);

	callus_diag *d = rc == 0 ? callus_diags_last(diags) : NULL;

	/* a line in a file that is not the workspace's means nothing here */
	if (d && !d->file)
		d->line = d->column = 0;
	if (out)
		*out = d;
	return rc < 0 ? rc : 0;
}

void callus_pu_dir_init(callus_pu_dir *d, const callus_pathctx *base)
{
	callus_buf_init(&d->rel, 0);
	d->pc = *base;
}

int callus_pu_dir_set(callus_pu_dir *d, const callus_pathctx *base, const char *dir, size_t len)
{
	callus_buf probe = CALLUS_BUF_INIT;
	int rc;

	while (len > 1 && dir[len - 1] == '/')
		len--;
	/* relativize a file inside the directory: the workspace root itself and
	 * "." have no relative form of their own */
	callus_buf_put(&probe, dir, len);
	callus_buf_puts(&probe, "/x");
	if ((rc = callus_buf_status(&probe)) < 0)
		goto out;
	if (callus_path_relativize(&d->rel, base, probe.ptr, probe.len)) {
		char *slash = strrchr(d->rel.ptr, '/');
		callus_buf_truncate(&d->rel, slash ? (size_t)(slash - d->rel.ptr) : 0);
	} else {
		/* outside: ".." cannot be climbed from the root, so relative paths
		 * under it never resolve */
		callus_buf_clear(&d->rel);
		callus_buf_puts(&d->rel, "..");
	}
	if ((rc = callus_buf_status(&d->rel)) < 0)
		goto out;
	d->pc = *base;
	d->pc.cwd_rel = d->rel.ptr;
out:
	callus_buf_release(&probe);
	return rc;
}

void callus_pu_dir_release(callus_pu_dir *d)
{
	callus_buf_release(&d->rel);
}

int callus_pu_frames_add(callus_pu_frames *f, const char *fn, size_t fn_len, const char *file,
		       size_t file_len, long line)
{
	if (f->fn.count >= CALLUS_PU_FRAMES_MAX)
		return 0;
	if (f->fn.count == f->alloc) {
		size_t n = f->alloc ? f->alloc * 2 : 16, bytes;
		long *p;

		if (callus_size_mul(&bytes, n, sizeof(*p)) < 0 || !(p = realloc(f->line, bytes)))
			return CALLUS_ENOMEM;
		f->line = p;
		f->alloc = n;
	}
	if (callus_strlist_add(&f->fn, fn ? fn : "", fn ? fn_len : 0) < 0)
		return CALLUS_ENOMEM;
	if (callus_strlist_add(&f->file, file, file_len) < 0) {
		/* keep the two lists the same length */
		free(f->fn.items[--f->fn.count]);
		return CALLUS_ENOMEM;
	}
	f->line[f->fn.count - 1] = line;
	return 0;
}

void callus_pu_frames_clear(callus_pu_frames *f)
{
	callus_strlist_release(&f->fn);
	callus_strlist_release(&f->file);
	free(f->line);
	f->line = NULL;
	f->alloc = 0;
}

long callus_pu_frames_locate(const callus_pu_frames *f, const callus_pathctx *pc, int innermost_last)
{
	callus_buf rel = CALLUS_BUF_INIT;
	long found = -1;

	for (size_t k = 0; k < f->file.count && found < 0; k++) {
		size_t i = innermost_last ? f->file.count - 1 - k : k;

		if (callus_path_relativize(&rel, pc, f->file.items[i], strlen(f->file.items[i])))
			found = (long)i;
	}
	callus_buf_release(&rel);
	return found;
}

int callus_pu_frames_attach(callus_diag *d, const callus_pu_frames *f, const callus_pathctx *pc,
			  int innermost_last)
{
	for (size_t k = 0; d && k < f->file.count; k++) {
		size_t i = innermost_last ? f->file.count - 1 - k : k;
		int rc = callus_diag_add_frame(d, pc, f->fn.items[i], strlen(f->fn.items[i]),
					     f->file.items[i], strlen(f->file.items[i]));
		if (rc < 0)
			return rc;
	}
	return 0;
}

int callus_pu_py_frame(const char *s, size_t len, const char **file, size_t *file_len,
		     long *line, const char **fn, size_t *fn_len)
{
	const char *q;
	size_t i = callus_pu_indent(s, len), n;

	if (!callus_pu_starts(s + i, len - i, "File \""))
		return 0;
	i += 6;
	if (!(q = memchr(s + i, '"', len - i)) || q == s + i)
		return 0;
	*file = s + i;
	*file_len = (size_t)(q - (s + i));
	i = (size_t)(q - s) + 1;
	*line = 0;
	*fn = NULL;
	*fn_len = 0;
	if (callus_pu_starts(s + i, len - i, ", line ")) {
		i += 7;
		*line = callus_pu_num(s + i, len - i, &n);
		i += n;
	}
	if (callus_pu_starts(s + i, len - i, ", in ")) {
		*fn = s + i + 5;
		*fn_len = len - i - 5;
	}
	return 1;
}

static int is_ident(char c, int first)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
	       (!first && (callus_pu_is_digit(c) || c == '.'));
}

static size_t py_exception(const char *s, size_t len, const char **msg, size_t *msg_len,
			   int strict)
{
	static const char *const tails[] = {
		"Error", "Exception", "Warning", "Exit", "Interrupt", "Iteration", "Failed",
		"Failure", "Timeout", "Group",
	};
	size_t i = 0, last = 0;
	int ok = 0;

	if (!len || !is_ident(s[0], 1))
		return 0;
	while (i < len && is_ident(s[i], 0)) {
		if (s[i] == '.')
			last = i + 1;
		i++;
	}
	if (i < len && !(s[i] == ':' && (i + 1 == len || s[i + 1] == ' ')))
		return 0;
	if (last >= i)
		return 0;
	if (strict) {
		if (s[last] < 'A' || s[last] > 'Z')
			return 0;
		for (size_t k = 0; k < sizeof(tails) / sizeof(tails[0]) && !ok; k++)
			ok = callus_pu_ends(s + last, i - last, tails[k]);
		if (!ok)
			return 0;
	} else if (i + 1 == len) {
		/* "Traceback:", "Hint:" */
		return 0;
	}
	*msg = s + i;
	*msg_len = len - i;
	if (*msg_len) {
		(*msg)++;
		(*msg_len)--;
	}
	callus_pu_trim(msg, msg_len);
	return i;
}

int callus_pu_py_emit(callus_diags *diags, callus_strlist *files, const callus_pathctx *pc,
		    const callus_pu_py_failure *f)
{
	const char *file = f->fallback_file, *msg = f->msg ? f->msg : "";
	long line = f->fallback_line, at = -1;
	callus_diag *d = NULL;
	int rc;

	if (f->test_file && *f->test_file &&
	    callus_parse_file(files, NULL, pc, f->test_file, strlen(f->test_file)) < 0)
		return CALLUS_ENOMEM;
	if (f->frames && (at = callus_pu_frames_locate(f->frames, pc, 1)) >= 0) {
		file = f->frames->file.items[at];
		line = f->frames->line[at];
	}
	rc = callus_pu_diag(&d, diags, files, pc, file, file ? strlen(file) : 0, line, 0, f->type,
			  f->type ? strlen(f->type) : 0, msg, strlen(msg), "error");
	if (rc < 0 || !d)
		return rc;
	if (f->test && *f->test && (rc = callus_pu_set_test(d, f->test, strlen(f->test))) < 0)
		return rc;
	return f->frames ? callus_pu_frames_attach(d, f->frames, pc, 1) : 0;
}

size_t callus_pu_py_exception(const char *s, size_t len, const char **msg, size_t *msg_len)
{
	return py_exception(s, len, msg, msg_len, 1);
}

size_t callus_pu_py_exception_any(const char *s, size_t len, const char **msg, size_t *msg_len)
{
	return py_exception(s, len, msg, msg_len, 0);
}

int callus_pu_any_line(const char *text, size_t len, int (*fn)(const char *, size_t))
{
	const char *p = text, *end = text + len, *s, *prev = NULL;
	size_t n, prev_n = 0;

	while (callus_next_new_line(&p, end, &s, &n, &prev, &prev_n))
		if (fn(s, n))
			return 1;
	return 0;
}

json_t *callus_pu_json_document(const callus_parse_input *in)
{
	const char *p = in->raw, *end = p ? p + in->raw_len : NULL;

	if (!p || !in->raw_complete)
		return NULL;
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	if (p == end || (*p != '[' && *p != '{'))
		return NULL;
	return json_loadb(p, (size_t)(end - p), 0, NULL);
}

void callus_pu_fail_init(callus_pu_fail *f, int innermost_last)
{
	memset(f, 0, sizeof(*f));
	f->innermost_last = innermost_last;
	callus_buf_init(&f->test, 0);
	callus_buf_init(&f->type, 0);
	callus_buf_init(&f->msg, 0);
	callus_buf_init(&f->file, 0);
}

void callus_pu_fail_start(callus_pu_fail *f)
{
	callus_buf_clear(&f->test);
	callus_buf_clear(&f->type);
	callus_buf_clear(&f->msg);
	callus_buf_clear(&f->file);
	callus_pu_frames_clear(&f->frames);
	f->line = 0;
	f->open = 1;
}

int callus_pu_fail_msg(callus_pu_fail *f, const char *s, size_t len)
{
	callus_buf *m = &f->msg;
	int space = m->len > 0;

	/* one byte past the limit tells where the cut goes */
	for (size_t i = 0; i < len && m->len <= CALLUS_PU_MESSAGE_MAX; i++) {
		if (s[i] == ' ' || s[i] == '\t') {
			space = m->len > 0;
			continue;
		}
		if (space) {
			callus_buf_putc(m, ' ');
			space = 0;
		}
		callus_buf_putc(m, s[i]);
	}
	if (m->len > CALLUS_PU_MESSAGE_MAX)
		callus_buf_truncate(m, callus_pu_cut(m->ptr, m->len, CALLUS_PU_MESSAGE_MAX));
	return callus_buf_status(m);
}

int callus_pu_fail_flush(callus_pu_fail *f, callus_diags *diags, callus_strlist *files,
		       const callus_pathctx *pc)
{
	const char *file = f->file.len ? f->file.ptr : NULL;
	long line = f->line, at;
	callus_diag *d = NULL;
	int rc;

	if (!f->open)
		return 0;
	f->open = 0;
	if ((rc = callus_buf_status(&f->test)) < 0 || (rc = callus_buf_status(&f->type)) < 0 ||
	    (rc = callus_buf_status(&f->msg)) < 0 || (rc = callus_buf_status(&f->file)) < 0)
		return rc;
	if (file && callus_parse_file(files, NULL, pc, file, f->file.len) < 0)
		return CALLUS_ENOMEM;
	if ((at = callus_pu_frames_locate(&f->frames, pc, f->innermost_last)) >= 0) {
		file = f->frames.file.items[at];
		line = f->frames.line[at];
	}
	/* the other frames in the workspace: the test's own file above all */
	for (size_t i = 0; i < f->frames.file.count; i++)
		if (callus_parse_file(files, NULL, pc, f->frames.file.items[i],
				    strlen(f->frames.file.items[i])) < 0)
			return CALLUS_ENOMEM;
	rc = callus_pu_diag(&d, diags, files, pc, file, file ? strlen(file) : 0, line, 0,
			  f->type.len ? f->type.ptr : NULL, f->type.len, f->msg.ptr ? f->msg.ptr : "",
			  f->msg.len, "error");
	if (rc < 0 || !d)
		return rc;
	if (f->test.len && (rc = callus_pu_set_test(d, f->test.ptr, f->test.len)) < 0)
		return rc;
	/* a frame without a function (PHPUnit's traces) only says which file:
	 * two failures in one test file are not alike for that */
	for (size_t k = 0; k < f->frames.file.count; k++) {
		size_t i = f->innermost_last ? f->frames.file.count - 1 - k : k;
		const char *fn = f->frames.fn.items[i], *ff = f->frames.file.items[i];

		if (*fn && (rc = callus_diag_add_frame(d, pc, fn, strlen(fn), ff, strlen(ff))) < 0)
			return rc;
	}
	return 0;
}

void callus_pu_fail_release(callus_pu_fail *f)
{
	callus_buf_release(&f->test);
	callus_buf_release(&f->type);
	callus_buf_release(&f->msg);
	callus_buf_release(&f->file);
	callus_pu_frames_clear(&f->frames);
}

int callus_pu_ruby_frame(const char *s, size_t len, const char **file, size_t *file_len,
		       long *line, const char **fn, size_t *fn_len)
{
	size_t i = callus_pu_indent(s, len), start, n;

	if (callus_pu_starts(s + i, len - i, "# "))
		i += 2;
	start = i;
	while (i < len && s[i] != ':' && s[i] != ' ')
		i++;
	if (i == start || i + 1 >= len || s[i] != ':')
		return 0;
	*line = callus_pu_num(s + i + 1, len - i - 1, &n);
	if (!n || i + 1 + n + 4 > len || memcmp(s + i + 1 + n, ":in ", 4))
		return 0;
	*file = s + start;
	*file_len = i - start;
	i += 1 + n + 4;
	*fn = s + i;
	*fn_len = len - i;
	/* `fn' or 'fn' */
	if (*fn_len >= 2 && (**fn == '`' || **fn == '\'') && (*fn)[*fn_len - 1] == '\'') {
		(*fn)++;
		*fn_len -= 2;
	}
	/* "block (3 levels) in <top (required)>", "<main>": a block, a file's
	 * top level, no method: the same in every spec */
	if (callus_pu_starts(*fn, *fn_len, "block ") || callus_pu_starts(*fn, *fn_len, "block in ") ||
	    (*fn_len && **fn == '<'))
		*fn_len = 0;
	return 1;
}

/* Whether p is one of the NULL-terminated parsers at arg, or gcc's (which
 * reads every build step anyway). */
static int skipped(const callus_parser *p, const void *arg)
{
	for (const callus_parser *const *skip = arg; *skip; skip++)
		if (p == *skip)
			return 1;
	return p == &callus_parser_gcc;
}

int callus_pu_build_step(const callus_parse_input *in, const callus_pathctx *pc, const char *out,
		       size_t len, const callus_parser *const *skip, callus_diags *diags,
		       callus_strlist *files)
{
	callus_parse_input sub = { out, len, out, len, 1, "", in->command, pc, 1 };
	const callus_parser *chosen;
	size_t before = diags->count + diags->dropped, nfiles = files->count;
	int rc = 0;

	if (!len)
		return 0;
	chosen = callus_parser_sniff_first(out, len, skipped, skip);
	if (chosen)
		rc = chosen->parse(&sub, diags, files);
	if (rc >= 0 && chosen != &callus_parser_cppcheck)
		rc = callus_parser_gcc.parse(&sub, diags, files);
	if (rc >= 0 && diags->count + diags->dropped == before && files->count == nfiles)
		rc = callus_parse_generic(&sub, diags, files);
	for (size_t i = before < diags->count ? before : diags->count; i < diags->count; i++) {
		callus_diag *d = &diags->items[i];

		if (d->message)
			d->message[callus_pu_cut(d->message, strlen(d->message), CALLUS_PU_TEXT_MAX)] = '\0';
		if (d->test)
			d->test[callus_pu_cut(d->test, strlen(d->test), CALLUS_PU_TEXT_MAX)] = '\0';
	}
	return rc < 0 ? rc : 0;
}
