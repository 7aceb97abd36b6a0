/*
 * fuzz_parsers_js.c - the JavaScript parsers (eslint, tsc, jest, vitest,
 * mocha, node --test) on arbitrary bytes.
 *
 * Each parser reads the input three ways: as the whole raw output (its
 * filtered text beside it, made by a capture as the pipeline does), as
 * the filtered text alone (an output beyond the raw head), and as a raw
 * head cut short.  Besides memory errors, checks what callers rely on:
 * every diagnostic's file and frame is workspace-relative without "..",
 * messages and names are valid UTF-8 and bounded, at most DEJA_DIAGS_MAX
 * diagnostics are kept, every affected file is relative.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deja/capture.h"
#include "deja/common.h"
#include "deja/parse.h"
#include "deja/utf8.h"
#include "parse_js_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"eslint", "tsc",   "jest",
				    "vitest", "mocha", "node_test"};

static void check_path(const char *p)
{
	size_t n = strlen(p);

	if (!n || p[0] == '/' || !strcmp(p, "..") || !strncmp(p, "../", 3) ||
	    strstr(p, "/../") || (n >= 3 && !strcmp(p + n - 3, "/..")))
		abort();
}

static void check(const deja_diags *d, const deja_strlist *files)
{
	if (d->count > DEJA_DIAGS_MAX || (d->dropped && d->count != DEJA_DIAGS_MAX))
		abort();
	for (size_t i = 0; i < d->count; i++) {
		const deja_diag *x = &d->items[i];

		if (x->file)
			check_path(x->file);
		if (!x->message || strlen(x->message) > DEJA_JS_MESSAGE_MAX ||
		    !deja_utf8_valid(x->message, strlen(x->message)))
			abort();
		if (x->test && (strlen(x->test) > DEJA_JS_TEST_MAX ||
				!deja_utf8_valid(x->test, strlen(x->test))))
			abort();
		if (x->line < 0 || x->column < 0 || x->frames.count > DEJA_JS_FRAMES_MAX)
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

static void run(const deja_parser *p, const deja_parse_input *in)
{
	deja_diags d = DEJA_DIAGS_INIT;
	deja_strlist files = DEJA_STRLIST_INIT;
	int rc = p->parse(in, &d, &files);

	if (rc != 0 && rc != DEJA_ENOMEM)
		abort();
	if (rc == 0)
		check(&d, &files);
	deja_diags_release(&d);
	deja_strlist_release(&files);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const deja_pathctx ctx[] = {
	    {"/tmp/deja-js/jest", NULL, ""},
	    {"/work/proj", "/srv/proj", "web"},
	};
	const char *raw = (const char *)data;
	deja_capture c;
	deja_buf text = DEJA_BUF_INIT;

	deja_capture_init(&c);
	deja_capture_feed(&c, raw, size);
	deja_capture_finish(&c);
	if (deja_capture_text(&c, &text) < 0)
		goto out;
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const deja_parser *p = deja_parser_find(names[k]);

		if (!p || !p->parse || !p->sniff)
			abort();
		p->sniff(text.ptr, text.len);
		for (size_t c2 = 0; c2 < sizeof(ctx) / sizeof(ctx[0]); c2++) {
			const deja_pathctx *pc = &ctx[c2];
			deja_parse_input whole = {text.ptr, text.len, raw, size, 1,
						  names[k], "", pc};
			deja_parse_input filtered = {text.ptr, text.len, NULL, 0, 0,
						     names[k], "", pc};
			deja_parse_input cut = {text.ptr, text.len, raw, size / 2, 0,
						names[k], "", pc};

			run(p, &whole);
			run(p, &filtered);
			run(p, &cut);
		}
	}
	/* selection by content never picks a parser that is not registered */
	{
		const deja_parser *sel =
		    deja_parser_select("npm test", text.ptr, text.len);
		if (sel && deja_parser_find(sel->name) != sel)
			abort();
	}
out:
	deja_buf_release(&text);
	deja_capture_release(&c);
	return 0;
}
