/*
 * shlex.c - the shell lexer (shlex.h): quotes, escapes, substitutions,
 * here-documents and operators, nothing expanded.
 */
#include "shlex.h"

#include <stdint.h>
#include <string.h>

/* Command substitutions nested deeper than this are not parsed: a shell
 * would cope, but nobody writes them, and the recursion must stay bounded
 * for hostile input. */
#define MAX_NEST 32

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

struct lexer {
	const char *s;
	size_t n, i;
};

static int lex(struct lexer *lx, unsigned depth, int nested, callus_shtoks *out);

static int emit(callus_shtoks *t, unsigned char kind, size_t off, size_t len, unsigned char assign)
{
	callus_shtok *v;

	if (!t)
		return 0;
	if (!(v = callus_array_grow(t->v, &t->cap, t->n + 1, sizeof(*v))))
		return CALLUS_ENOMEM;
	t->v = v;
	v[t->n].kind = kind;
	v[t->n].assign = assign;
	v[t->n].off = off;
	v[t->n].len = len;
	v[t->n].sep = 0;
	t->n++;
	return 0;
}

static int emit_end(callus_shtoks *t, unsigned char sep)
{
	int rc = emit(t, T_END, 0, 0, 0);

	if (rc == 0 && t)
		t->v[t->n - 1].sep = sep;
	return rc;
}

/* `...`: lx->i is on the opening backquote; append the raw text. */
static int read_backquote(struct lexer *lx, callus_buf *dst)
{
	size_t start = lx->i;

	for (lx->i++; lx->i < lx->n; lx->i++) {
		if (lx->s[lx->i] == '\\' && lx->i + 1 < lx->n) {
			lx->i++;
		} else if (lx->s[lx->i] == '`') {
			lx->i++;
			return callus_buf_put(dst, lx->s + start, lx->i - start) < 0 ? CALLUS_ENOMEM : 0;
		}
	}
	return CALLUS_SHLEX_SYNTAX;
}

/* $( ), <( ), >( ): lx->i is on the character before '('; run a nested
 * lexer, in skip mode, to the matching ')' and append the raw text. */
static int read_subst(struct lexer *lx, unsigned depth, callus_buf *dst)
{
	size_t start = lx->i;
	int rc;

	lx->i += 2;
	if ((rc = lex(lx, depth + 1, 1, NULL)) != 0)
		return rc;
	return callus_buf_put(dst, lx->s + start, lx->i - start) < 0 ? CALLUS_ENOMEM : 0;
}

/* ${...}: to the matching brace, over quotes and $( ); raw text. */
static int read_brace(struct lexer *lx, unsigned depth, callus_buf *dst)
{
	const char *s = lx->s;
	size_t start = lx->i, level = 1;
	callus_buf junk = CALLUS_BUF_INIT;
	int rc = CALLUS_SHLEX_SYNTAX;

	lx->i += 2;
	while (lx->i < lx->n) {
		char c = s[lx->i];

		if (c == '\\') {
			lx->i += 2;
		} else if (c == '\'' || c == '"') {
			const char *e = memchr(s + lx->i + 1, c, lx->n - lx->i - 1);

			if (!e)
				goto out;
			lx->i = (size_t)(e - s) + 1;
		} else if (c == '$' && lx->i + 1 < lx->n && s[lx->i + 1] == '(') {
			if ((rc = read_subst(lx, depth, &junk)) != 0)
				goto out;
			rc = CALLUS_SHLEX_SYNTAX;
		} else if (c == '{') {
			level++;
			lx->i++;
		} else if (c == '}') {
			lx->i++;
			if (--level == 0) {
				rc = callus_buf_put(dst, s + start, lx->i - start) < 0 ? CALLUS_ENOMEM : 0;
				goto out;
			}
		} else {
			lx->i++;
		}
	}
out:
	if (lx->i > lx->n)
		lx->i = lx->n;
	callus_buf_release(&junk);
	return rc;
}

/* '$' outside single quotes: expansions are kept as written. */
static int read_dollar(struct lexer *lx, unsigned depth, callus_buf *dst, int in_dquote)
{
	char d = lx->i + 1 < lx->n ? lx->s[lx->i + 1] : '\0';

	if (d == '(')
		return read_subst(lx, depth, dst);
	if (d == '{')
		return read_brace(lx, depth, dst);
	if (!in_dquote && d == '\'') {
		/* $'...': ANSI-C quoting; the escapes are kept undecoded */
		size_t j;

		for (j = lx->i + 2; j < lx->n && lx->s[j] != '\''; j++)
			if (lx->s[j] == '\\')
				j++;
		if (j >= lx->n)
			return CALLUS_SHLEX_SYNTAX;
		callus_buf_put(dst, lx->s + lx->i + 2, j - lx->i - 2);
		lx->i = j + 1;
		return 0;
	}
	if (!in_dquote && d == '"') {
		lx->i++; /* $"...": a translated string; the '"' is read next */
		return 0;
	}
	lx->i++;
	return callus_buf_putc(dst, '$') < 0 ? CALLUS_ENOMEM : 0;
}

static int read_dquote(struct lexer *lx, unsigned depth, callus_buf *dst)
{
	const char *s = lx->s;
	int rc;

	for (lx->i++; lx->i < lx->n;) {
		char c = s[lx->i], d = lx->i + 1 < lx->n ? s[lx->i + 1] : '\0';

		if (c == '"') {
			lx->i++;
			return 0;
		}
		if (c == '\\' && d == '\n') {
			lx->i += 2;
		} else if (c == '\\' && d && strchr("$`\"\\", d)) {
			callus_buf_putc(dst, d);
			lx->i += 2;
		} else if (c == '$') {
			if ((rc = read_dollar(lx, depth, dst, 1)) != 0)
				return rc;
		} else if (c == '`') {
			if ((rc = read_backquote(lx, dst)) != 0)
				return rc;
		} else {
			callus_buf_putc(dst, c);
			lx->i++;
		}
	}
	return CALLUS_SHLEX_SYNTAX;
}

/*
 * Read one word at lx->i and append its value (quotes removed, escapes
 * applied, expansions kept as written) to dst.  *quoted is set to the
 * length of the value when the first quote, escape or expansion was met
 * (SIZE_MAX if none): "A=1" is not an assignment, A="1" is.
 */
static int read_word(struct lexer *lx, unsigned depth, callus_buf *dst, size_t *quoted)
{
	const char *s = lx->s;
	size_t base = dst->len;
	int rc = 0;

	*quoted = SIZE_MAX;
	while (lx->i < lx->n) {
		char c = s[lx->i], d = lx->i + 1 < lx->n ? s[lx->i + 1] : '\0';

		if (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' ||
		    c == '(' || c == ')')
			break;
		if (c == '<' || c == '>') {
			if (d != '(')
				break;
			if (*quoted == SIZE_MAX)
				*quoted = dst->len - base;
			if ((rc = read_subst(lx, depth, dst)) != 0)
				return rc;
			continue;
		}
		if (c == '\\' || c == '\'' || c == '"' || c == '$' || c == '`')
			if (*quoted == SIZE_MAX)
				*quoted = dst->len - base;
		switch (c) {
		case '\\':
			if (d == '\n') {
				lx->i += 2; /* line continuation */
			} else if (!d) {
				callus_buf_putc(dst, '\\');
				lx->i++;
			} else {
				callus_buf_putc(dst, d);
				lx->i += 2;
			}
			break;
		case '\'': {
			const char *e = memchr(s + lx->i + 1, '\'', lx->n - lx->i - 1);

			if (!e)
				return CALLUS_SHLEX_SYNTAX;
			callus_buf_put(dst, s + lx->i + 1, (size_t)(e - s) - lx->i - 1);
			lx->i = (size_t)(e - s) + 1;
			break;
		}
		case '"':
			rc = read_dquote(lx, depth, dst);
			break;
		case '$':
			rc = read_dollar(lx, depth, dst, 0);
			break;
		case '`':
			rc = read_backquote(lx, dst);
			break;
		default:
			callus_buf_putc(dst, c);
			lx->i++;
		}
		if (rc)
			return rc;
	}
	return callus_buf_status(dst) < 0 ? CALLUS_ENOMEM : 0;
}

static size_t skip_digits(const char *s, size_t i, size_t n)
{
	while (i < n && is_digit(s[i]))
		i++;
	return i;
}

static int is_assignment(const char *v, size_t len, size_t quoted)
{
	size_t k = 0;

	if (!len || !is_name_start(v[0]))
		return 0;
	while (k < len && (is_name_start(v[k]) || is_digit(v[k])))
		k++;
	if (k + 1 < len && v[k] == '+' && v[k + 1] == '=')
		k++;
	return k < len && v[k] == '=' && k < quoted;
}

/* After a newline: skip the bodies of the here-documents opened on the
 * line, each up to its delimiter line.  docs holds, per document, '-' (tabs
 * stripped, <<-) or ' ', the delimiter, and a NUL. */
static void skip_heredocs(struct lexer *lx, const callus_buf *docs)
{
	const char *p = docs->ptr, *end = docs->ptr + docs->len;

	while (p < end && lx->i < lx->n) {
		int strip = *p == '-';
		const char *delim = p + 1;
		size_t dlen = strlen(delim);

		p = delim + dlen + 1;
		while (lx->i < lx->n) {
			const char *line = lx->s + lx->i;
			const char *nl = memchr(line, '\n', lx->n - lx->i);
			size_t len = nl ? (size_t)(nl - line) : lx->n - lx->i;
			const char *t = line;

			lx->i += nl ? len + 1 : len;
			if (strip)
				while (t < line + len && *t == '\t')
					t++;
			if ((size_t)(line + len - t) == dlen && !memcmp(t, delim, dlen))
				break;
		}
	}
}

/*
 * Split lx->s from lx->i into tokens (appended to out; out NULL only
 * checks the syntax and moves lx->i).  Nested: stop after the ')' that
 * closes a substitution.  Returns 0, CALLUS_SHLEX_SYNTAX, or CALLUS_ENOMEM.
 */
static int lex(struct lexer *lx, unsigned depth, int nested, callus_shtoks *out)
{
	callus_buf scratch = CALLUS_BUF_INIT; /* word values when out is NULL */
	callus_buf docs = CALLUS_BUF_INIT;    /* here-document delimiters pending */
	const char *s = lx->s;
	size_t parens = 0;
	int want_doc = 0, rc = 0; /* want_doc: 1 after <<, 2 after <<- */

	if (depth > MAX_NEST)
		return CALLUS_SHLEX_SYNTAX;
	while (lx->i < lx->n && rc == 0) {
		char c = s[lx->i], d = lx->i + 1 < lx->n ? s[lx->i + 1] : '\0';
		size_t j;

		if (c == ' ' || c == '\t' || c == '\r') {
			lx->i++;
		} else if (c == '\\' && d == '\n') {
			lx->i += 2;
		} else if (c == '#') {
			const char *nl = memchr(s + lx->i, '\n', lx->n - lx->i);

			lx->i = nl ? (size_t)(nl - s) : lx->n;
		} else if (c == '\n') {
			lx->i++;
			rc = emit_end(out, ';');
			if (docs.len) {
				skip_heredocs(lx, &docs);
				callus_buf_clear(&docs);
			}
		} else if (c == '(') {
			lx->i++;
			parens++;
			rc = emit(out, T_LPAREN, 0, 0, 0);
		} else if (c == ')') {
			lx->i++;
			if (!parens) {
				rc = nested ? 0 : CALLUS_SHLEX_SYNTAX;
				goto out;
			}
			parens--;
			rc = emit(out, T_RPAREN, 0, 0, 0);
		} else if (c == ';') {
			for (lx->i++; lx->i < lx->n && (s[lx->i] == ';' || s[lx->i] == '&'); lx->i++)
				;
			rc = emit_end(out, ';');
		} else if (c == '|') {
			lx->i += (d == '|' || d == '&') ? 2 : 1;
			rc = emit_end(out, d == '|' ? 'o' : '|');
		} else if (c == '&' && d == '>') {
			lx->i += 2;
			if (lx->i < lx->n && s[lx->i] == '>')
				lx->i++;
			rc = emit(out, T_REDIR, 0, 0, 0);
		} else if (c == '&') {
			lx->i += d == '&' ? 2 : 1;
			rc = emit_end(out, d == '&' ? 'a' : '&');
		} else if ((j = skip_digits(s, lx->i, lx->n)) < lx->n && (s[j] == '<' || s[j] == '>') &&
			   !(j == lx->i && j + 1 < lx->n && s[j + 1] == '(')) {
			/* a redirection, maybe with a file descriptor: 2>&1 <<EOF */
			char e = j + 1 < lx->n ? s[j + 1] : '\0';

			want_doc = 0;
			if (s[j] == '<' && e == '<') {
				char f = j + 2 < lx->n ? s[j + 2] : '\0';

				if (f == '<') {
					j += 3; /* <<< here-string */
				} else if (f == '-') {
					j += 3;
					want_doc = 2;
				} else {
					j += 2;
					want_doc = 1;
				}
			} else if (e == '&' || e == '>' || (s[j] == '>' && e == '|')) {
				j += 2;
			} else {
				j++;
			}
			lx->i = j;
			rc = emit(out, T_REDIR, 0, 0, 0);
		} else {
			callus_buf *dst = out ? &out->text : &scratch;
			size_t start, quoted, before = lx->i;

			if (!out)
				callus_buf_clear(&scratch);
			start = dst->len;
			if ((rc = read_word(lx, depth, dst, &quoted)) != 0)
				goto out;
			if (lx->i == before) { /* cannot happen; never loop forever */
				lx->i++;
				continue;
			}
			if (want_doc) {
				callus_buf_putc(&docs, want_doc == 2 ? '-' : ' ');
				callus_buf_put(&docs, dst->ptr + start, dst->len - start);
				callus_buf_putc(&docs, '\0');
				want_doc = 0;
			}
			if (out) {
				size_t len = dst->len - start;

				callus_buf_putc(dst, '\0');
				rc = emit(out, T_WORD, start, len,
					  (unsigned char)is_assignment(dst->ptr + start, len, quoted));
			}
		}
	}
	if (rc == 0 && (nested || parens))
		rc = CALLUS_SHLEX_SYNTAX; /* an unclosed $( or ( */
out:
	if (rc == 0 && (callus_buf_status(&scratch) < 0 || callus_buf_status(&docs) < 0 ||
			(out && callus_buf_status(&out->text) < 0)))
		rc = CALLUS_ENOMEM;
	callus_buf_release(&scratch);
	callus_buf_release(&docs);
	return rc;
}

int callus_shlex(const char *s, size_t n, callus_shtoks *out)
{
	struct lexer lx = { s, n, 0 };

	return lex(&lx, 0, 0, out);
}
