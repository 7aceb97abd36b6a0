#include "callus/parse.h"
#include "callus/common.h"
#include "parsers/parsers.h"

#include <string.h>

/* Order matters for content sniffing: the most specific first. */
static const callus_parser *const parsers[] = {
	/* its "N) title" blocks look like mocha's */
	&callus_parser_playwright,
	&callus_parser_jest,   &callus_parser_vitest,   &callus_parser_mocha,  &callus_parser_node_test,
	&callus_parser_ava,    &callus_parser_exunit,   &callus_parser_bun,
	&callus_parser_deno_test,
	/* eslint's stylish summary ("✖ 3 problems") is stylelint's too */
	&callus_parser_stylelint, &callus_parser_biome, &callus_parser_oxlint,
	&callus_parser_prettier, &callus_parser_markdownlint,
	&callus_parser_eslint, &callus_parser_tsc,      &callus_parser_pytest, &callus_parser_unittest,
	&callus_parser_mypy,   &callus_parser_ruff,     &callus_parser_flake8, &callus_parser_pylint,
	&callus_parser_pyright, &callus_parser_bandit,  &callus_parser_black,  &callus_parser_isort,
	&callus_parser_cargo,  &callus_parser_go,       &callus_parser_shellcheck,
	/* after cargo: its pretty output is rustc's layout */
	&callus_parser_deno_lint,
	&callus_parser_maven,  &callus_parser_gradle,   &callus_parser_javac,    &callus_parser_kotlinc,
	&callus_parser_rspec,  &callus_parser_minitest, &callus_parser_rubocop,
	&callus_parser_phpunit, &callus_parser_php,	&callus_parser_ninja,
	&callus_parser_cppcheck, &callus_parser_ctest,  &callus_parser_gcc,    &callus_parser_make,
	&callus_parser_tap,    &callus_parser_junit,    &callus_parser_pyflakes,
	&callus_parser_yamllint,
};

#define NPARSERS (sizeof(parsers) / sizeof(parsers[0]))

const callus_parser *callus_parser_at(size_t i)
{
	return i < NPARSERS ? parsers[i] : NULL;
}

const callus_parser *callus_parser_find(const char *name)
{
	for (size_t i = 0; i < NPARSERS; i++)
		if (!strcmp(parsers[i]->name, name))
			return parsers[i];
	return NULL;
}

/* What a parser is shown of text: all of it, or whole lines of its head
 * and of its tail.  How many windows (1 or 2).  A text whose last line
 * has no newline (a capture's text lent from the output,
 * callus_capture_text_view) is cut where it would be with one. */
static size_t sniff_windows(const char *text, size_t len, const char *w[2], size_t wl[2])
{
	size_t whole = len + (len && text[len - 1] != '\n');
	const char *nl, *tail;

	w[0] = text;
	wl[0] = len;
	if (whole <= 2 * CALLUS_SNIFF_WINDOW)
		return 1;
	nl = memrchr(text, '\n', CALLUS_SNIFF_WINDOW);
	wl[0] = nl ? (size_t)(nl - text) + 1 : CALLUS_SNIFF_WINDOW;
	tail = text + whole - CALLUS_SNIFF_WINDOW;
	nl = memchr(tail, '\n', (size_t)(text + len - tail));
	w[1] = nl ? nl + 1 : text + len - CALLUS_SNIFF_WINDOW;
	wl[1] = (size_t)(text + len - w[1]);
	return 2;
}

int callus_parser_sniff(const callus_parser *p, const char *text, size_t len)
{
	const char *w[2];
	size_t wl[2], nw;

	if (!p->sniff)
		return 0;
	nw = sniff_windows(text, len, w, wl);
	for (size_t k = 0; k < nw; k++)
		if (p->sniff(w[k], wl[k]))
			return 1;
	return 0;
}

const callus_parser *callus_parser_sniff_first(const char *text, size_t len,
					       int (*skip)(const callus_parser *, const void *),
					       const void *arg)
{
	unsigned char asked[NPARSERS];
	const char *w[2];
	size_t wl[2], nw = sniff_windows(text, len, w, wl), first = NPARSERS;

	for (size_t i = 0; i < NPARSERS; i++)
		asked[i] = !skip || !skip(parsers[i], arg);
	/* the line sniffers, each line of each window read once for all of
	 * them, as callus_pu_any_line reads it for one; past the first that
	 * took one, the later ones need not be asked */
	for (size_t k = 0; k < nw && first > 0; k++) {
		const char *p = w[k], *end = w[k] + wl[k], *s, *prev = NULL;
		size_t n, prev_n = 0;

		while (first > 0 && callus_next_new_line(&p, end, &s, &n, &prev, &prev_n))
			for (size_t i = 0; i < first; i++)
				if (asked[i] && parsers[i]->sniff_line && parsers[i]->sniff_line(s, n)) {
					first = i;
					break;
				}
	}
	/* the others, in the table's order, before it */
	for (size_t i = 0; i < first; i++)
		if (asked[i] && !parsers[i]->sniff_line && callus_parser_sniff(parsers[i], text, len))
			return parsers[i];
	return first < NPARSERS ? parsers[first] : NULL;
}

const callus_parser *callus_parser_select(const char *tool, const char *text, size_t len)
{
	for (size_t i = 0; tool && *tool && i < NPARSERS; i++)
		for (const char *const *t = parsers[i]->tools; t && *t; t++)
			if (!strcmp(*t, tool))
				return parsers[i];
	/* a wrapper (npm test, make check, ...): recognise the output */
	return callus_parser_sniff_first(text, len, NULL, NULL);
}

int callus_parse_file(callus_strlist *files, callus_buf *rel, const callus_pathctx *pc, const char *p,
		    size_t len)
{
	callus_buf tmp = CALLUS_BUF_INIT;
	callus_buf *b = rel ? rel : &tmp;
	const char *known;
	size_t known_len;
	int ok;

	/* resolved in the context's memo, without a copy: a build repeats
	 * one file's name for each of its errors */
	if (!rel && (ok = callus_path_memo_resolve(pc, p, len, &known, &known_len)) >= 0)
		return ok && callus_strlist_add_unique(files, known, known_len, NULL) < 0
			       ? CALLUS_ENOMEM
			       : ok;
	ok = callus_path_relativize(b, pc, p, len);

	if (ok && callus_strlist_add_unique(files, b->ptr, b->len, NULL) < 0)
		ok = CALLUS_ENOMEM;
	callus_buf_release(&tmp);
	return ok;
}

int callus_parse_diag(callus_diags *diags, callus_strlist *files, const callus_pathctx *pc,
		    const char *file, size_t file_len, long line, long column, const char *code,
		    size_t code_len, const char *message, size_t message_len, const char *severity)
{
	callus_buf rel = CALLUS_BUF_INIT;
	int in = 0, rc;

	/* counted, not kept: its file is still one the output names */
	if (diags->count >= CALLUS_DIAGS_MAX) {
		if (file && file_len && (in = callus_parse_file(files, NULL, pc, file, file_len)) < 0)
			return in;
		return callus_diags_add(diags, NULL, line, column, code, code_len, message,
					message_len, severity);
	}
	if (file && file_len && (in = callus_parse_file(files, &rel, pc, file, file_len)) < 0) {
		callus_buf_release(&rel);
		return in;
	}
	rc = callus_diags_add(diags, in ? rel.ptr : NULL, line, column, code, code_len, message,
			    message_len, severity);
	callus_buf_release(&rel);
	return rc;
}

/*
 * What any tool may print, read whoever prints it: JUnit XML and TAP are
 * reports of their own (a tool callus does not know, a known one asked for
 * them: `vitest --reporter=junit`), a Python or Node.js program's uncaught
 * error (a project's own check), then "file:line" lines, stack frames and
 * test names (the generic extractor).
 */
int callus_parse_generic(const callus_parse_input *in, callus_diags *diags, callus_strlist *files)
{
	static const callus_parser *const formats[] = { &callus_parser_junit, &callus_parser_tap,
							&callus_parser_pytraceback,
							&callus_parser_node_crash };
	size_t before = diags->count + diags->dropped, nfiles = files->count, first;
	int rc;

	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		/* a TAP plan or an XML header has no error keyword: the filtered
		 * text may have dropped it, the raw output has it */
		if (!callus_parser_sniff(formats[i], in->text, in->text_len) &&
		    !(in->raw && callus_parser_sniff(formats[i], in->raw, in->raw_len)))
			continue;
		if ((rc = formats[i]->parse(in, diags, files)) < 0)
			return rc;
		if (diags->count + diags->dropped > before || files->count > nfiles)
			return 0;
	}
	first = diags->count;
	if ((rc = callus_extract_generic(diags, files, in->text, in->text_len, in->pc)) < 0)
		return rc;
	for (size_t i = first; i < diags->count; i++)
		diags->items[i].vague = CALLUS_DIAG_GENERIC;
	return rc;
}
