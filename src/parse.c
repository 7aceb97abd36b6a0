#include "deja/parse.h"
#include "deja/common.h"
#include "parsers.h"

#include <string.h>

/* Order matters for content sniffing: the most specific first. */
static const deja_parser *const parsers[] = {
	&deja_parser_jest,   &deja_parser_vitest,   &deja_parser_mocha,  &deja_parser_node_test,
	&deja_parser_eslint, &deja_parser_tsc,      &deja_parser_pytest, &deja_parser_unittest,
	&deja_parser_mypy,   &deja_parser_ruff,     &deja_parser_flake8, &deja_parser_pylint,
	&deja_parser_cargo,  &deja_parser_go,       &deja_parser_shellcheck,
	&deja_parser_cppcheck, &deja_parser_ctest,  &deja_parser_gcc,    &deja_parser_make,
};

#define NPARSERS (sizeof(parsers) / sizeof(parsers[0]))

const deja_parser *deja_parser_at(size_t i)
{
	return i < NPARSERS ? parsers[i] : NULL;
}

const deja_parser *deja_parser_find(const char *name)
{
	for (size_t i = 0; i < NPARSERS; i++)
		if (!strcmp(parsers[i]->name, name))
			return parsers[i];
	return NULL;
}

int deja_parser_sniff(const deja_parser *p, const char *text, size_t len)
{
	const char *nl, *tail;

	if (!p->sniff)
		return 0;
	if (len <= 2 * DEJA_SNIFF_WINDOW)
		return p->sniff(text, len);
	/* whole lines of the head, whole lines of the tail */
	nl = memrchr(text, '\n', DEJA_SNIFF_WINDOW);
	if (p->sniff(text, nl ? (size_t)(nl - text) + 1 : DEJA_SNIFF_WINDOW))
		return 1;
	tail = text + len - DEJA_SNIFF_WINDOW;
	nl = memchr(tail, '\n', DEJA_SNIFF_WINDOW);
	tail = nl ? nl + 1 : tail;
	return p->sniff(tail, (size_t)(text + len - tail));
}

const deja_parser *deja_parser_select(const char *tool, const char *text, size_t len)
{
	for (size_t i = 0; tool && *tool && i < NPARSERS; i++)
		for (const char *const *t = parsers[i]->tools; t && *t; t++)
			if (!strcmp(*t, tool))
				return parsers[i];
	/* a wrapper (npm test, make check, ...): recognise the output */
	for (size_t i = 0; i < NPARSERS; i++)
		if (deja_parser_sniff(parsers[i], text, len))
			return parsers[i];
	return NULL;
}

int deja_next_line(const char **cursor, const char *end, const char **line, size_t *len)
{
	const char *p = *cursor, *nl;

	if (p >= end)
		return 0;
	nl = memchr(p, '\n', (size_t)(end - p));
	*line = p;
	*len = (size_t)((nl ? nl : end) - p);
	*cursor = nl ? nl + 1 : end;
	return 1;
}

int deja_parse_file(deja_strlist *files, deja_buf *rel, const deja_pathctx *pc, const char *p,
		    size_t len)
{
	deja_buf tmp = DEJA_BUF_INIT;
	deja_buf *b = rel ? rel : &tmp;
	int ok = deja_path_relativize(b, pc, p, len);

	if (ok && deja_strlist_add_unique(files, b->ptr, b->len, NULL) < 0)
		ok = DEJA_ENOMEM;
	deja_buf_release(&tmp);
	return ok;
}

int deja_parse_diag(deja_diags *diags, deja_strlist *files, const deja_pathctx *pc,
		    const char *file, size_t file_len, long line, long column, const char *code,
		    size_t code_len, const char *message, size_t message_len, const char *severity)
{
	deja_buf rel = DEJA_BUF_INIT;
	int in = 0, rc;

	if (file && file_len && (in = deja_parse_file(files, &rel, pc, file, file_len)) < 0) {
		deja_buf_release(&rel);
		return in;
	}
	rc = deja_diags_add(diags, in ? rel.ptr : NULL, line, column, code, code_len, message,
			    message_len, severity);
	deja_buf_release(&rel);
	return rc;
}

int deja_parse_generic(const deja_parse_input *in, deja_diags *diags, deja_strlist *files)
{
	return deja_extract_generic(diags, files, in->text, in->text_len, in->pc);
}
