/*
 * patchdesc_funcs.c - the name of the function or class a line of source
 * defines, for patchdesc.c to say which functions a patch changed.
 * Heuristics for C/C++, JS/TS, Python, Go, Rust and friends: keyword
 * definitions (def, fn, func, class, ...) anywhere, call-shaped ones
 * (`int main(void) {`, `get(url) {`) where the context says they are
 * trusted; a line that matches none names no function.  Test blocks
 * (jest's describe/it/test) are calls, not definitions, and are
 * deliberately not named.  Apart from the diff reader because each
 * language adds its own shapes here.  Every scan is bounded by n: the text
 * comes from a patch and may hold NUL bytes.
 */
#include "patchdesc_internal.h"

#include <string.h>

static int is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Bytes >= 0x80 count as identifier bytes: several languages allow
 * non-ASCII names; invalid sequences are dropped when a name is kept. */
static int is_ident_start(unsigned char c)
{
	return is_alpha(c) || c == '_' || c == '$' || c >= 0x80;
}

static int is_ident(unsigned char c)
{
	return is_ident_start(c) || is_digit(c);
}

static size_t ident_end(const char *s, size_t n, size_t i)
{
	if (i >= n || !is_ident_start((unsigned char)s[i]))
		return i;
	while (i < n && is_ident((unsigned char)s[i]))
		i++;
	return i;
}

static int word_eq(const char *s, size_t a, size_t b, const char *w)
{
	size_t wl = strlen(w);

	return b - a == wl && !memcmp(s + a, w, wl);
}

static int word_in(const char *s, size_t a, size_t b, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (word_eq(s, a, b, list[i]))
			return 1;
	return 0;
}

static int mem_has(const char *s, size_t n, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; i + nl <= n; i++)
		if (!memcmp(s + i, needle, nl))
			return 1;
	return 0;
}

/* Index of the bracket closing the one at s[open], or n. */
static size_t match_close(const char *s, size_t n, size_t open, char o, char c)
{
	size_t depth = 0;

	for (size_t i = open; i < n; i++) {
		if (s[i] == o)
			depth++;
		else if (s[i] == c && --depth == 0)
			return i;
	}
	return n;
}

/* ---- function names ---- */

static const char *const modifiers[] = {
	"export", "default", "async", "static", "public", "private", "protected",
	"internal", "abstract", "final", "override", "virtual", "inline", "unsafe",
	"extern", "pub", "open", "sealed", "suspend", "declare", "get", "set",
	"readonly", NULL
};

/* Words that are followed by "(" in statements, never a definition. */
static const char *const not_names[] = {
	"if", "else", "for", "while", "switch", "return", "sizeof", "catch", "elif",
	"elsif", "with", "do", "foreach", "synchronized", "using", "lock", "fixed",
	"unless", "until", "match", "when", "loop", "typeof", "alignof", "_Alignof",
	"decltype", "new", "delete", "throw", "case", "defined", "__attribute__",
	"static_assert", "_Static_assert", "assert", "require", "import", "super",
	"this", "print", "function", "int", "void", "char", NULL
};

/* Words that make what follows them an expression or a statement. */
static const char *const not_types[] = {
	"return", "else", "new", "throw", "case", "goto", "await", "yield", "typeof",
	"delete", "in", "of", "do", "if", "while", "for", "not", "and", "or", "echo",
	"print", NULL
};

static int set_name(callus_buf *out, const char *s, size_t a, size_t b)
{
	if (a >= b)
		return 0;
	callus_buf_clear(out);
	callus_buf_put(out, s + a, b - a);
	return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : 1;
}

/* After the "=" or ":" of `x = ...`: is it a function (`function`, an
 * arrow function, possibly async)? */
static int rhs_is_function(const char *s, size_t n, size_t i)
{
	size_t e;

	i = skip_ws(s, n, i);
	e = ident_end(s, n, i);
	if (word_eq(s, i, e, "async") && e < n && is_space((unsigned char)s[e])) {
		i = skip_ws(s, n, e);
		e = ident_end(s, n, i);
	}
	if (word_eq(s, i, e, "function"))
		return 1;
	if (i < n && s[i] == '(') {
		size_t c = match_close(s, n, i, '(', ')');

		if (c == n)
			return 0;
		i = skip_ws(s, n, c + 1);
		/* a TypeScript return type sits between ")" and "=>" */
		if (i < n && s[i] == ':')
			return mem_has(s + i, n - i, "=>");
		return starts_with(s + i, n - i, "=>");
	}
	if (e > i) {
		i = skip_ws(s, n, e);
		return starts_with(s + i, n - i, "=>");
	}
	return 0;
}

/* A Rust/Go type path ("a::b::Name<T>", "*Name", "&'a mut Name"): the
 * span of its last segment. */
static void type_name(const char *s, size_t n, size_t i, size_t *a, size_t *b)
{
	*a = *b = i;
	for (;;) {
		i = skip_ws(s, n, i);
		if (i < n && (s[i] == '&' || s[i] == '*')) {
			i++;
			continue;
		}
		if (i < n && s[i] == '\'') { /* a lifetime */
			i = ident_end(s, n, i + 1);
			continue;
		}
		size_t e = ident_end(s, n, i);

		if (word_eq(s, i, e, "mut") || word_eq(s, i, e, "dyn") ||
		    word_eq(s, i, e, "const")) {
			i = e;
			continue;
		}
		break;
	}
	for (;;) {
		size_t e = ident_end(s, n, i);

		if (e == i)
			return;
		*a = i;
		*b = e;
		if (e + 1 < n && s[e] == ':' && s[e + 1] == ':')
			i = e + 2;
		else if (e < n && s[e] == '.')
			i = e + 1;
		else
			return;
	}
}

/* Definitions introduced by a keyword: unambiguous at any indentation.
 * 1 with a name in out, 0 when the line is not one, or CALLUS_ENOMEM. */
static int keyword_definition(callus_buf *out, const char *s, size_t n, size_t i)
{
	size_t e = ident_end(s, n, i), j, k;

	if (word_eq(s, i, e, "def") || word_eq(s, i, e, "fn") || word_eq(s, i, e, "fun")) {
		j = skip_ws(s, n, e);
		if (j == e)
			return 0;
		k = ident_end(s, n, j);
		/* Ruby's "def self.call" defines call */
		if (k + 1 < n && s[k] == '.' && ident_end(s, n, k + 1) > k + 1) {
			j = k + 1;
			k = ident_end(s, n, j);
		}
		return set_name(out, s, j, k);
	}
	if (word_eq(s, i, e, "class") || word_eq(s, i, e, "interface") ||
	    word_eq(s, i, e, "trait")) {
		/* "class Foo;" declares, "class extends Base" has no name */
		if (s[n - 1] == ';')
			return 0;
		j = skip_ws(s, n, e);
		k = ident_end(s, n, j);
		if (j == e || word_eq(s, j, k, "extends") || word_eq(s, j, k, "implements"))
			return 0;
		return set_name(out, s, j, k);
	}
	if (word_eq(s, i, e, "function")) {
		j = skip_ws(s, n, e);
		if (j < n && s[j] == '*')
			j = skip_ws(s, n, j + 1);
		return set_name(out, s, j, ident_end(s, n, j));
	}
	if (word_eq(s, i, e, "func")) {
		size_t ta = 0, tb = 0;

		j = skip_ws(s, n, e);
		if (j < n && s[j] == '(') {
			/* a method: "func (r *T[K]) Name(" names T.Name */
			size_t c = match_close(s, n, j, '(', ')'), last = j + 1;

			if (c == n)
				return 0;
			for (size_t q = j + 1; q < c && s[q] != '['; q++)
				if (is_ident_start((unsigned char)s[q]) &&
				    !is_ident((unsigned char)s[q - 1])) {
					last = q;
				}
			ta = last;
			tb = ident_end(s, n, last);
			j = skip_ws(s, n, c + 1);
		}
		k = ident_end(s, n, j);
		if (k == j)
			return 0;
		if (tb > ta) {
			callus_buf_clear(out);
			callus_buf_put(out, s + ta, tb - ta);
			callus_buf_putc(out, '.');
			callus_buf_put(out, s + j, k - j);
			return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : 1;
		}
		return set_name(out, s, j, k);
	}
	if (word_eq(s, i, e, "impl")) {
		size_t a, b, fa, fb;

		j = skip_ws(s, n, e);
		if (j < n && s[j] == '<') {
			j = match_close(s, n, j, '<', '>');
			if (j == n)
				return 0;
			j++;
		}
		type_name(s, n, j, &a, &b);
		if (a == b)
			return 0;
		/* "impl Trait for Type" is about Type */
		k = b;
		if (k < n && s[k] == '<')
			k = match_close(s, n, k, '<', '>') + 1;
		k = skip_ws(s, n, k);
		if (word_eq(s, k, ident_end(s, n, k), "for")) {
			type_name(s, n, k + 3, &fa, &fb);
			if (fb > fa)
				return set_name(out, s, fa, fb);
		}
		return set_name(out, s, a, b);
	}
	if (word_eq(s, i, e, "const") || word_eq(s, i, e, "let") || word_eq(s, i, e, "var")) {
		j = skip_ws(s, n, e);
		k = ident_end(s, n, j);
		if (word_eq(s, j, k, "fn")) /* Rust's const fn */
			return keyword_definition(out, s, n, j);
		if (j == e || k == j)
			return 0;
		/* past a TypeScript annotation to the "=" of the initialiser */
		for (size_t q = k; q < n; q++) {
			if (s[q] != '=')
				continue;
			if (q + 1 < n && (s[q + 1] == '=' || s[q + 1] == '>'))
				return 0;
			return rhs_is_function(s, n, q + 1) ? set_name(out, s, j, k) : 0;
		}
		return 0;
	}
	/* "name = function", "a.b.name = (x) =>", "name: async () =>" */
	if (e > i) {
		size_t last_a = i, last_b = e;

		j = e;
		while (j + 1 < n && s[j] == '.' && ident_end(s, n, j + 1) > j + 1) {
			last_a = j + 1;
			last_b = ident_end(s, n, j + 1);
			j = last_b;
		}
		j = skip_ws(s, n, j);
		if (j + 1 < n && ((s[j] == '=' && s[j + 1] != '=' && s[j + 1] != '>') ||
				  (s[j] == ':' && s[j + 1] != ':')) &&
		    rhs_is_function(s, n, j + 1))
			return set_name(out, s, last_a, last_b);
	}
	return 0;
}

/*
 * "type name(args)", "Foo::bar(args) const {", "method(args) {": the name
 * before the first "(".  typed_ok/untyped_ok/bare_ok say which shapes the
 * caller trusts here (with a return type; without one but ending in "{";
 * without one and without "{", as in a C definition split over lines).
 */
static int call_shaped_definition(callus_buf *out, const char *s, size_t n, size_t i,
				  int typed_ok, int untyped_ok, int bare_ok)
{
	size_t paren = i, a, b, close, q;
	int typed = 0;

	while (paren < n && s[paren] != '(')
		paren++;
	if (paren == n)
		return 0;
	b = paren;
	while (b > i && is_space((unsigned char)s[b - 1]))
		b--;
	a = b;
	while (a > i && (is_ident((unsigned char)s[a - 1]) || s[a - 1] == ':' ||
			 s[a - 1] == '~'))
		a--;
	while (a < b && s[a] == ':')
		a++;
	if (a == b || s[b - 1] == ':' || is_digit((unsigned char)s[a]))
		return 0;
	/* the last segment decides: "Foo::if" is no more a name than "if" */
	for (q = b; q > a && s[q - 1] != ':'; q--)
		;
	if (word_in(s, q, b, not_names))
		return 0;
	for (q = i; q < a; q++) {
		unsigned char c = (unsigned char)s[q];

		if (!is_ident(c) && !is_space(c) && (!c || !strchr("*&<>,:[]", c)))
			return 0;
		if (!is_space(c))
			typed = 1;
		if (is_ident_start(c) && (q == i || !is_ident((unsigned char)s[q - 1])) &&
		    word_in(s, q, ident_end(s, n, q), not_types))
			return 0;
	}
	/* a call with a literal first argument, or a function pointer */
	q = skip_ws(s, n, paren + 1);
	if (q < n && (strchr("'\"`*^", s[q]) || is_digit((unsigned char)s[q])))
		return 0;
	close = match_close(s, n, paren, '(', ')');
	if (close == n) /* parameters go on over the next lines */
		return typed && typed_ok && !memchr(s + paren, ';', n - paren) ?
			set_name(out, s, a, b) : 0;
	for (q = close + 1; q < n; q++)
		if (s[q] == ';' || s[q] == '=' || s[q] == '.' || s[q] == '"' || s[q] == '\'')
			return 0;
	if (typed)
		return typed_ok ? set_name(out, s, a, b) : 0;
	if (s[n - 1] == '{')
		return untyped_ok ? set_name(out, s, a, b) : 0;
	return bare_ok ? set_name(out, s, a, b) : 0;
}

int callus_patchdesc_function(callus_buf *out, const char *s, size_t n, int header, lang lg)
{
	size_t i = skip_ws(s, n, 0);
	int col0 = i == 0, rc;

	while (n > i && is_space((unsigned char)s[n - 1]))
		n--;
	if (i == n || !is_ident_start((unsigned char)s[i]))
		return 0;
	for (;;) {
		size_t e = ident_end(s, n, i), j = e;

		if (!word_in(s, i, e, modifiers))
			break;
		if (word_eq(s, i, e, "pub") && j < n && s[j] == '(')
			j = match_close(s, n, j, '(', ')') + 1;
		j = skip_ws(s, n, j);
		if (word_eq(s, i, e, "extern") && j < n && s[j] == '"') {
			while (++j < n && s[j] != '"')
				;
			j = skip_ws(s, n, j + 1);
		}
		/* "get(url) {" is a method named get, not a getter */
		if (j == e || j >= n || !is_ident_start((unsigned char)s[j]))
			break;
		i = j;
	}
	rc = keyword_definition(out, s, n, i);
	if (rc != 0 || lg == LANG_PY)
		return rc;
	return call_shaped_definition(out, s, n, i, header || col0,
				      header || col0 || lg == LANG_JS,
				      lg != LANG_JS && (header || col0));
}
