/*
 * parser_invariants.h - the fuzz driver shared by the parser fuzz targets
 * (fuzz_parsers_js.c, fuzz_parsers_native.c): each parser reads the input
 * as the whole raw output (beside the filtered text a capture makes of it,
 * as the pipeline does), as the filtered text alone (an output beyond the
 * raw head) and as a raw head cut short, in each given workspace.  Besides
 * memory errors it checks what callers rely on: every diagnostic's file,
 * frame and affected file is workspace-relative without "..", messages,
 * codes and test names are valid UTF-8 within the family's limits, at most
 * CALLUS_DIAGS_MAX diagnostics are kept, content selection only picks
 * registered parsers, and the summary made of what a parser found is valid
 * UTF-8 of at most CALLUS_SUMMARY_MAX bytes with no line twice.  Included by
 * exactly one file per target.
 */
#ifndef CALLUS_FUZZ_PARSER_INVARIANTS_H
#define CALLUS_FUZZ_PARSER_INVARIANTS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "callus/capture.h"
#include "callus/common.h"
#include "callus/lesson.h"
#include "callus/parse.h"
#include "callus/summary.h"
#include "callus/utf8.h"

#include "capture_view.h"

/* What a family of parsers promises about what it produces. */
typedef struct parser_limits {
	size_t message_max, test_max, frames_max;
	int fileless_has_no_line; /* a diagnostic without a file has no line */
} parser_limits;

static void check_path(const char *p)
{
	size_t n = strlen(p);

	if (!n || p[0] == '/' || !strcmp(p, "..") || !strncmp(p, "../", 3) || strstr(p, "/../") ||
	    (n >= 3 && !strcmp(p + n - 3, "/..")) || strstr(p, "//"))
		abort();
}

static void check_text(const char *s, size_t max)
{
	if (s && (strlen(s) > max || !callus_utf8_valid(s, strlen(s))))
		abort();
}

static void check_output(const callus_diags *d, const callus_strlist *files, const parser_limits *lim)
{
	if (d->count > CALLUS_DIAGS_MAX || (d->dropped && d->count != CALLUS_DIAGS_MAX))
		abort();
	for (size_t i = 0; i < d->count; i++) {
		const callus_diag *x = &d->items[i];

		if (x->file)
			check_path(x->file);
		else if (lim->fileless_has_no_line && (x->line || x->column))
			abort();
		if (!x->message)
			abort();
		check_text(x->message, lim->message_max);
		check_text(x->test, lim->test_max);
		check_text(x->code, lim->message_max);
		if (x->line < 0 || x->column < 0 || x->frames.count > lim->frames_max)
			abort();
		for (size_t k = 0; k < x->frames.count; k++) {
			const char *tab = strchr(x->frames.items[k], '\t');

			if (!tab)
				abort();
			check_path(tab + 1);
		}
	}
	for (size_t i = 0; i < files->count; i++)
		check_path(files->items[i]);
}

static void check_summary(const callus_parse_input *in, const callus_diags *d)
{
	char *s = NULL;
	size_t n;

	if (callus_summary_build(&s, in->text, in->text_len, in->raw, in->raw_len, in->pc, d) < 0)
		return;
	n = strlen(s);
	if (n > CALLUS_SUMMARY_MAX || !callus_utf8_valid(s, n))
		abort();
	for (const char *a = s; *a;) {
		size_t la = strcspn(a, "\n");

		for (const char *b = a + la; *b == '\n' && b[1];) {
			size_t lb = strcspn(++b, "\n");

			if (la == lb && !memcmp(a, b, la))
				abort();
			b += lb;
		}
		a += la;
		a += *a == '\n';
	}
	free(s);
}

static void run_parser(const callus_parser *p, const callus_parse_input *in, const parser_limits *lim)
{
	callus_diags d = CALLUS_DIAGS_INIT;
	callus_strlist files = CALLUS_STRLIST_INIT;
	int rc = p->parse(in, &d, &files);

	if (rc != 0 && rc != CALLUS_ENOMEM)
		abort();
	if (rc == 0) {
		check_output(&d, &files, lim);
		check_summary(in, &d);
	}
	callus_diags_release(&d);
	callus_strlist_release(&files);
}

static void fuzz_parsers(const uint8_t *data, size_t size, const char *const *names,
			 size_t nnames, const callus_pathctx *ctx, size_t nctx,
			 const parser_limits *lim)
{
	const char *raw = (const char *)data;
	callus_capture c;
	callus_buf text = CALLUS_BUF_INIT;

	callus_capture_init(&c);
	callus_capture_feed(&c, raw, size);
	callus_capture_finish(&c);
	if (callus_capture_text(&c, &text) < 0)
		goto out;
	/* the same bytes known whole (a hook's payload): the same text, kept
	 * as it lies (lent from the bytes, it may lack only the newline
	 * their last line lacks) or made, and the raw head the bytes
	 * themselves */
	{
		callus_capture w;
		callus_buf scratch = CALLUS_BUF_INIT;
		const char *t = NULL, *r;
		size_t tlen = 0, rlen = 0;

		callus_capture_init(&w);
		callus_capture_whole(&w, raw, size);
		if (callus_capture_text_view(&w, &scratch, &t, &tlen) == 0 &&
		    !fuzz_view_is_text(t, tlen, text.ptr, text.len, (const char *)raw, size))
			abort();
		r = callus_capture_raw(&w, &rlen);
		if (r != raw || rlen != (size < CALLUS_CAPTURE_HEAD_MAX ? size : CALLUS_CAPTURE_HEAD_MAX))
			abort();
		callus_buf_release(&scratch);
		callus_capture_release(&w);
	}
	for (size_t k = 0; k < nnames; k++) {
		const callus_parser *p = callus_parser_find(names[k]);

		if (!p || !p->parse || !p->sniff)
			abort();
		p->sniff(text.ptr, text.len);
		p->sniff(raw, size);
		for (size_t i = 0; i < nctx; i++) {
			callus_parse_input whole = { text.ptr, text.len, raw, size, 1, names[k], "", &ctx[i], 0 };
			callus_parse_input filtered = { text.ptr, text.len, NULL, 0, 0, names[k], "", &ctx[i], 0 };
			callus_parse_input cut = { text.ptr, text.len, raw, size / 2, 0, names[k], "", &ctx[i], 0 };

			run_parser(p, &whole, lim);
			run_parser(p, &filtered, lim);
			run_parser(p, &cut, lim);
		}
	}
	{
		const callus_parser *sel = callus_parser_select("npm test", text.ptr, text.len);

		if (sel && callus_parser_find(sel->name) != sel)
			abort();
	}
out:
	callus_buf_release(&text);
	callus_capture_release(&c);
}

#endif
