/*
 * parse_helpers.c - see parse_helpers.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_helpers.h"

char *parse_read(const char *path, size_t *len)
{
	callus_buf full = CALLUS_BUF_INIT, data = CALLUS_BUF_INIT;
	const char *dir = getenv("CALLUS_SRCDIR");
	char chunk[65536];
	size_t n;
	FILE *f;

	callus_buf_printf(&full, "%s/%s", dir ? dir : ".", path);
	if (!(f = fopen(full.ptr, "rb")))
		fail_msg("cannot open %s (run from the repository root)", full.ptr);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		callus_buf_put(&data, chunk, n);
	fclose(f);
	callus_buf_release(&full);
	assert_int_equal(callus_buf_status(&data), 0);
	assert_true(data.len > 0);
	*len = data.len;
	return callus_buf_detach(&data);
}

void parse_capture(callus_capture *c, const char *data, size_t len)
{
	callus_capture_init(c);
	for (size_t off = 0; off < len; off += 4093)
		callus_capture_feed(c, data + off, len - off < 4093 ? len - off : 4093);
	callus_capture_finish(c);
}

static void analyse(callus_failure *f, int whole, const char *tool, int exit_code,
		    const char *data, size_t len, const char *root, const char *project,
		    const char *cwd)
{
	callus_buf ws = CALLUS_BUF_INIT;
	callus_pathctx pc;
	callus_capture c;
	callus_check chk = { tool, exit_code, 1, tool, CALLUS_LESSON_TEST };

	callus_buf_printf(&ws, "%s%s", root, project);
	/* the workspace has no trailing slash */
	if (!*project && ws.len > 1 && ws.ptr[ws.len - 1] == '/')
		callus_buf_truncate(&ws, ws.len - 1);
	pc.workspace = ws.ptr;
	pc.workspace_real = NULL;
	pc.cwd_rel = cwd;
	pc.memo = NULL;
	if (whole) {
		callus_capture_init(&c);
		callus_capture_whole(&c, data, len);
	} else {
		parse_capture(&c, data, len);
	}
	assert_int_equal(callus_failure_build(f, &chk, &c, &pc, NULL), 0);
	assert_true(strlen(f->summary) <= CALLUS_SUMMARY_MAX);
	callus_capture_release(&c);
	callus_buf_release(&ws);
}

void parse_analyse(callus_failure *f, const char *tool, int exit_code, const char *data,
		   size_t len, const char *root, const char *project, const char *cwd)
{
	analyse(f, 0, tool, exit_code, data, len, root, project, cwd);
}

void parse_analyse_whole(callus_failure *f, const char *tool, int exit_code, const char *data,
			 size_t len, const char *root, const char *project, const char *cwd)
{
	analyse(f, 1, tool, exit_code, data, len, root, project, cwd);
}

void parse_assert_str(const char *what, const char *got, const char *expected)
{
	if (!expected && !got)
		return;
	if (!expected || !got || strcmp(got, expected))
		fail_msg("%s: got \"%s\", expected \"%s\"", what, got ? got : "(null)",
			 expected ? expected : "(null)");
}

void parse_files_of(callus_buf *out, const callus_strlist *files)
{
	callus_buf_clear(out);
	for (size_t i = 0; i < files->count; i++) {
		if (i)
			callus_buf_putc(out, '|');
		callus_buf_puts(out, files->items[i]);
	}
}

void parse_frames_of(callus_buf *out, const callus_diag *d)
{
	callus_buf_clear(out);
	for (size_t k = 0; k < d->frames.count; k++) {
		const char *tab = strchr(d->frames.items[k], '\t');

		assert_non_null(tab);
		if (k)
			callus_buf_putc(out, '|');
		callus_buf_put(out, d->frames.items[k], (size_t)(tab - d->frames.items[k]));
		callus_buf_printf(out, "@%s", tab + 1);
	}
}

void parse_check_diag(const char *sample, const callus_diag *d, const parse_want *w)
{
	callus_buf frames = CALLUS_BUF_INIT;

	print_message("  %s #%d\n", sample, w->index);
	parse_assert_str("file", d->file, w->file);
	assert_int_equal(d->line, w->line);
	assert_int_equal(d->column, w->column);
	parse_assert_str("code", d->code, w->code);
	parse_assert_str("severity", d->severity, w->severity);
	parse_assert_str("test", d->test, w->test);
	parse_assert_str("message", d->message, w->message);
	parse_frames_of(&frames, d);
	parse_assert_str("frames", frames.len ? frames.ptr : NULL, w->frames);
	callus_buf_release(&frames);
}

void parse_assert_same(const char *a, const callus_failure *x, const callus_failure *y)
{
	callus_buf fx = CALLUS_BUF_INIT, fy = CALLUS_BUF_INIT;

	print_message("  %s\n", a);
	parse_assert_str("parser", x->parser, y->parser);
	parse_files_of(&fx, &x->files);
	parse_files_of(&fy, &y->files);
	parse_assert_str("files", fx.ptr, fy.ptr);
	assert_int_equal(x->diags.count, y->diags.count);
	for (size_t i = 0; i < x->diags.count; i++) {
		const callus_diag *d = &x->diags.items[i], *e = &y->diags.items[i];

		parse_assert_str("file", d->file, e->file);
		assert_int_equal(d->line, e->line);
		assert_int_equal(d->column, e->column);
		parse_assert_str("code", d->code, e->code);
		parse_assert_str("severity", d->severity, e->severity);
		parse_assert_str("test", d->test, e->test);
		parse_assert_str("message", d->message, e->message);
		parse_frames_of(&fx, d);
		parse_frames_of(&fy, e);
		parse_assert_str("frames", fx.ptr, fy.ptr);
	}
	callus_buf_release(&fx);
	callus_buf_release(&fy);
}
