/*
 * patchdesc.c - read a unified diff in git's patch format and say what it
 * changed.
 *
 * The parser works on lines of patch[0..len): the text may lack a final NUL
 * and hold NUL bytes or invalid UTF-8, so every scan is bounded by a length
 * and nothing here calls a str* function on patch text.  Hunks are read by
 * their line counts, so a removed line that happens to start with "-- a/"
 * or "diff --git" is still counted and never taken for a header.
 *
 * Functions: the "@@ ... @@ TEXT" context names the line git found above
 * the hunk, but when a hunk starts before the definition it changes (a
 * short file, an edit near the top of a function) that line is empty or
 * names the previous function.  So the lines of the hunk are read too:
 * a definition seen there becomes the enclosing function of the changes
 * that follow it, a closing brace at its indentation (or, in Python, a
 * dedent) ends it.  Names come from heuristics for C/C++, JS/TS, Python,
 * Go, Rust and friends (patchdesc_funcs.c); a line that matches none
 * names no function.  Test blocks (jest's describe/it/test) are calls, not
 * definitions, and are deliberately not named: "describe('sum')()" would
 * read as nonsense in a description.
 *
 * What a summary says in words is patchdesc_describe.c.
 */
#include "callus/patchdesc.h"
#include "callus/buf.h"
#include "callus/utf8.h"
#include "patchdesc_internal.h"

#include <stdlib.h>
#include <string.h>

/* Nesting deeper than this is not worth tracking: the innermost entry is
 * replaced instead. */
#define STACK_MAX 16

typedef struct parser {
	callus_patch_summary *out;
	int open;                 /* out->files[count - 1] is being read */
	callus_buf old_path, new_path;
	int saw_minus, has_content, is_new, is_deleted, is_rename, is_copy;
	int in_hunk, loose;       /* loose: the header had no usable counts */
	unsigned long old_left, new_left;
	lang lang;
	callus_strlist stack;       /* enclosing definitions, innermost last */
	size_t indent[STACK_MAX];
	callus_buf tmp;
} parser;

/* ---- quoting and paths ---- */

/* git's C-style quoting: s[0] is '"'.  1 with the text in out and *used
 * set past the closing quote; 0 when there is none (use the raw text). */
static int unquote(callus_buf *out, const char *s, size_t n, size_t *used)
{
	callus_buf_clear(out);
	for (size_t i = 1; i < n; i++) {
		char c = s[i];

		if (c == '"') {
			*used = i + 1;
			return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : 1;
		}
		if (c != '\\' || i + 1 >= n) {
			callus_buf_putc(out, c);
			continue;
		}
		c = s[++i];
		if (c >= '0' && c <= '7') {
			unsigned v = 0;

			for (int d = 0; d < 3 && i < n && s[i] >= '0' && s[i] <= '7'; d++, i++)
				v = v * 8 + (unsigned)(s[i] - '0');
			i--;
			c = (char)(v & 0xff);
		} else {
			const char *from = "abfnrtv", *to = "\a\b\f\n\r\t\v";
			const char *hit = strchr(from, c);

			if (hit && c)
				c = to[hit - from];
		}
		callus_buf_putc(out, c);
	}
	return 0;
}

/* Store path text into b, dropping git's one-letter side prefix ("a/"). */
static int put_path(callus_buf *b, const char *s, size_t n, char side)
{
	callus_buf_clear(b);
	if (n >= 2 && s[0] == side && s[1] == '/')
		s += 2, n -= 2;
	callus_buf_put(b, s, n);
	return callus_buf_status(b) < 0 ? CALLUS_ENOMEM : 0;
}

/* One path that may be quoted: quoted text is decoded, the rest is raw. */
static int read_path(parser *p, callus_buf *b, const char *s, size_t n, char side)
{
	size_t used = 0;
	int rc;

	if (n && s[0] == '"') {
		rc = unquote(&p->tmp, s, n, &used);
		if (rc < 0)
			return rc;
		if (rc == 1)
			return put_path(b, p->tmp.ptr, p->tmp.len, side);
	}
	return put_path(b, s, n, side);
}

static int is_dev_null(const char *s, size_t n)
{
	return n == 9 && !memcmp(s, "/dev/null", 9);
}

/*
 * Two paths separated by sep ("a/X b/Y", "a/X and b/Y").  Unquoted paths
 * may contain the separator; git's own trick resolves the usual case, the
 * same path on both sides, by splitting in the middle.  *null_a and *null_b
 * say a side was /dev/null.
 */
static int read_pair(parser *p, const char *s, size_t n, const char *sep, int *null_a,
		     int *null_b)
{
	size_t sl = strlen(sep), used = 0, half;
	int rc;

	*null_a = *null_b = 0;
	if (n && s[0] == '"' && (rc = unquote(&p->tmp, s, n, &used)) != 0) {
		if (rc < 0 || (rc = put_path(&p->old_path, p->tmp.ptr, p->tmp.len, 'a')) < 0)
			return rc;
		if (used + sl > n || memcmp(s + used, sep, sl))
			return 0;
		s += used + sl, n -= used + sl;
		if (is_dev_null(s, n)) {
			*null_b = 1;
			return 0;
		}
		return read_path(p, &p->new_path, s, n, 'b');
	}
	if (n > 9 + sl && !memcmp(s, "/dev/null", 9) && !memcmp(s + 9, sep, sl)) {
		*null_a = 1;
		return read_path(p, &p->new_path, s + 9 + sl, n - 9 - sl, 'b');
	}
	if (n > 9 + sl && !memcmp(s + n - 9 - sl, sep, sl) && is_dev_null(s + n - 9, 9)) {
		*null_b = 1;
		return read_path(p, &p->old_path, s, n - 9 - sl, 'a');
	}
	/* an unquoted old path, a quoted new one */
	if (n && s[n - 1] == '"') {
		for (size_t i = 0; i + sl < n; i++) {
			if (memcmp(s + i, sep, sl) || s[i + sl] != '"')
				continue;
			rc = unquote(&p->tmp, s + i + sl, n - i - sl, &used);
			if (rc < 0)
				return rc;
			if (rc == 1 && used == n - i - sl) {
				if ((rc = put_path(&p->new_path, p->tmp.ptr, p->tmp.len, 'b')) < 0)
					return rc;
				return put_path(&p->old_path, s, i, 'a');
			}
		}
	}
	if (n > sl && (n - sl) % 2 == 0) {
		half = (n - sl) / 2;
		if (!memcmp(s + half, sep, sl) && half >= 2 && s[1] == '/' &&
		    s[half + sl + 1] == '/' && !memcmp(s + 2, s + half + sl + 2, half - 2)) {
			if ((rc = put_path(&p->old_path, s, half, s[0])) < 0)
				return rc;
			return put_path(&p->new_path, s + half + sl, half, s[half + sl]);
		}
	}
	for (size_t i = 0; i + sl < n; i++) {
		if (memcmp(s + i, sep, sl) || (i + sl + 1 < n && s[i + sl + 1] != '/'))
			continue;
		if ((rc = put_path(&p->old_path, s, i, 'a')) < 0)
			return rc;
		return put_path(&p->new_path, s + i + sl, n - i - sl, 'b');
	}
	return 0;
}

/* ---- files ---- */

static lang lang_of(const char *path, size_t n)
{
	static const char *const js[] = { ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs",
					  ".mts", ".cts", ".vue", ".svelte", NULL };
	static const char *const py[] = { ".py", ".pyi", ".pyw", NULL };

	for (size_t i = 0; js[i]; i++)
		if (n >= strlen(js[i]) && !memcmp(path + n - strlen(js[i]), js[i], strlen(js[i])))
			return LANG_JS;
	for (size_t i = 0; py[i]; i++)
		if (n >= strlen(py[i]) && !memcmp(path + n - strlen(py[i]), py[i], strlen(py[i])))
			return LANG_PY;
	return LANG_OTHER;
}

static void stack_clear(parser *p)
{
	while (p->stack.count)
		free(p->stack.items[--p->stack.count]);
}

static void stack_pop_while(parser *p, size_t indent, int inclusive)
{
	while (p->stack.count) {
		size_t top = p->indent[p->stack.count - 1];

		if (inclusive ? top < indent : top <= indent)
			break;
		free(p->stack.items[--p->stack.count]);
	}
}

static int stack_push(parser *p, const char *name, size_t len, size_t indent)
{
	if (p->stack.count == STACK_MAX)
		free(p->stack.items[--p->stack.count]);
	p->indent[p->stack.count] = indent;
	return callus_strlist_add(&p->stack, name, len);
}

/* Copy without NUL bytes: a path is a C string from here on. */
static char *dup_path(const callus_buf *b)
{
	char *s = malloc(b->len + 1);

	if (!s)
		return NULL;
	for (size_t i = 0; i < b->len; i++)
		s[i] = b->ptr[i] ? b->ptr[i] : '?';
	s[b->len] = '\0';
	return s;
}

static int finish_file(parser *p)
{
	callus_patch_summary *s = p->out;
	callus_patch_file *f;
	const callus_buf *path, *other;

	p->in_hunk = 0;
	stack_clear(p);
	if (!p->open)
		return 0;
	p->open = 0;
	f = &s->files[s->count - 1];
	if (p->is_deleted) {
		f->change = CALLUS_PATCH_DELETED;
		path = &p->old_path, other = &p->new_path;
	} else {
		f->change = p->is_new || p->is_copy ? CALLUS_PATCH_ADDED : CALLUS_PATCH_MODIFIED;
		path = &p->new_path, other = &p->old_path;
	}
	if (!path->len)
		path = other;
	if (!path->len) { /* a header we could not read: nothing to name */
		callus_strlist_release(&f->functions);
		s->count--;
		return 0;
	}
	if (!(f->path = dup_path(path)))
		return CALLUS_ENOMEM;
	if (p->is_rename && !p->is_new && !p->is_deleted && p->old_path.len &&
	    p->new_path.len &&
	    (p->old_path.len != p->new_path.len ||
	     memcmp(p->old_path.ptr, p->new_path.ptr, p->old_path.len))) {
		f->change = CALLUS_PATCH_RENAMED;
		if (!(f->old_path = dup_path(&p->old_path)))
			return CALLUS_ENOMEM;
	}
	s->added += f->added;
	s->removed += f->removed;
	return 0;
}

static int start_file(parser *p)
{
	callus_patch_summary *s = p->out;
	int rc = finish_file(p);

	if (rc < 0)
		return rc;
	if ((s->count & (s->count - 1)) == 0) { /* full at 0, 1, 2, 4, 8, ... */
		size_t n = s->count ? s->count * 2 : 1, bytes;
		callus_patch_file *files;

		if (callus_size_mul(&bytes, n, sizeof(*files)) < 0 ||
		    !(files = realloc(s->files, bytes)))
			return CALLUS_ENOMEM;
		s->files = files;
	}
	memset(&s->files[s->count], 0, sizeof(s->files[0]));
	s->count++;
	p->open = 1;
	p->saw_minus = p->has_content = p->is_new = p->is_deleted = 0;
	p->is_rename = p->is_copy = 0;
	p->lang = LANG_OTHER;
	callus_buf_clear(&p->old_path);
	callus_buf_clear(&p->new_path);
	return 0;
}

static callus_patch_file *current(parser *p)
{
	return p->open ? &p->out->files[p->out->count - 1] : NULL;
}

/* ---- hunks ---- */

static size_t read_number(const char *s, size_t n, size_t i, unsigned long *v, int *ok)
{
	size_t start = i;

	*v = 0;
	for (; i < n && is_digit((unsigned char)s[i]); i++)
		if (*v < 1000000000ul) /* saturate: only "how many left" matters */
			*v = *v * 10 + (unsigned long)(s[i] - '0');
	*ok = i > start;
	return i;
}

/* "@@ -a[,b] +c[,d] @@[ TEXT]": the counts, and where TEXT starts. */
static int parse_hunk_header(const char *s, size_t n, unsigned long *old_n,
			     unsigned long *new_n, size_t *text)
{
	unsigned long v;
	size_t i = 4;
	int ok;

	i = read_number(s, n, i, &v, &ok);
	if (!ok)
		return 0;
	*old_n = 1;
	if (i < n && s[i] == ',') {
		i = read_number(s, n, i + 1, old_n, &ok);
		if (!ok)
			return 0;
	}
	if (i + 2 > n || s[i] != ' ' || s[i + 1] != '+')
		return 0;
	i = read_number(s, n, i + 2, &v, &ok);
	if (!ok)
		return 0;
	*new_n = 1;
	if (i < n && s[i] == ',') {
		i = read_number(s, n, i + 1, new_n, &ok);
		if (!ok)
			return 0;
	}
	if (i + 3 > n || memcmp(s + i, " @@", 3))
		return 0;
	i += 3;
	*text = i < n && s[i] == ' ' ? i + 1 : i;
	return 1;
}

static int attribute(parser *p, int change)
{
	callus_patch_file *f = current(p);
	const char *name;

	if (!change || !f || !p->stack.count)
		return 0;
	name = p->stack.items[p->stack.count - 1];
	/* a name that is not UTF-8 would only garble the description */
	if (!callus_utf8_valid(name, strlen(name)))
		return 0;
	return callus_strlist_add_unique(&f->functions, name, strlen(name), NULL);
}

static int track_function(parser *p, const char *s, size_t n, int change)
{
	size_t indent = skip_ws(s, n, 0);
	int rc;

	if (indent >= n || s[indent] == '\n')
		return attribute(p, change);
	rc = callus_patchdesc_function(&p->tmp, s, n, 0, p->lang);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		stack_pop_while(p, indent, 1);
		if ((rc = stack_push(p, p->tmp.ptr, p->tmp.len, indent)) < 0)
			return rc;
		return attribute(p, change);
	}
	if (s[indent] == '}') {
		/* the closing brace still belongs to what it closes */
		stack_pop_while(p, indent, 0);
		rc = attribute(p, change);
		if (p->stack.count && p->indent[p->stack.count - 1] == indent)
			free(p->stack.items[--p->stack.count]);
		return rc;
	}
	if (p->lang == LANG_PY && s[indent] && !strchr("#@)]}\"'", s[indent]))
		stack_pop_while(p, indent, 1);
	return attribute(p, change);
}

static int start_hunk(parser *p, const char *s, size_t n)
{
	size_t text = n;
	int rc;

	p->in_hunk = 1;
	p->loose = !parse_hunk_header(s, n, &p->old_left, &p->new_left, &text);
	stack_clear(p);
	if (p->open)
		p->has_content = 1;
	if (p->loose || text >= n)
		return 0;
	rc = callus_patchdesc_function(&p->tmp, s + text, n - text, 1, p->lang);
	if (rc == 1)
		rc = stack_push(p, p->tmp.ptr, p->tmp.len, skip_ws(s + text, n - text, 0));
	return rc < 0 ? rc : 0;
}

/* 1 when the line belonged to the hunk, 0 when the hunk is over and the
 * line is to be read as a header. */
static int hunk_line(parser *p, const char *s, size_t n, int *rc)
{
	callus_patch_file *f = current(p);
	char c = n ? s[0] : ' ';

	*rc = 0;
	if (c == '\\') /* "\ No newline at end of file" */
		return 1;
	if (c != ' ' && c != '+' && c != '-') {
		p->in_hunk = 0;
		return 0;
	}
	if (!p->loose) {
		if ((c != '+' && !p->old_left) || (c != '-' && !p->new_left)) {
			p->in_hunk = 0;
			return 0;
		}
		if (c != '+')
			p->old_left--;
		if (c != '-')
			p->new_left--;
	}
	if (f && c == '+')
		f->added++;
	else if (f && c == '-')
		f->removed++;
	*rc = track_function(p, n ? s + 1 : s, n ? n - 1 : 0, c != ' ');
	if (!p->loose && !p->old_left && !p->new_left)
		p->in_hunk = 0;
	return 1;
}

/* ---- headers ---- */

static int header_line(parser *p, const char *s, size_t n)
{
	int rc = 0, null_a = 0, null_b = 0;

	while (n && (s[n - 1] == '\r' || s[n - 1] == '\n'))
		n--;
	if (starts_with(s, n, "diff --git ")) {
		if ((rc = start_file(p)) < 0)
			return rc;
		rc = read_pair(p, s + 11, n - 11, " ", &null_a, &null_b);
	} else if (starts_with(s, n, "@@ -")) {
		return start_hunk(p, s, n);
	} else if (starts_with(s, n, "--- ") || starts_with(s, n, "+++ ")) {
		int minus = s[0] == '-';
		const char *v = s + 4;
		size_t vn = n - 4;

		/* a plain unified diff has no "diff --git" line between files */
		if ((minus && (!p->open || p->saw_minus || p->has_content)) || !p->open)
			if ((rc = start_file(p)) < 0)
				return rc;
		if (minus)
			p->saw_minus = 1;
		if (vn && v[0] != '"') { /* "\t" then a date, or git's marker for spaces */
			const char *tab = memchr(v, '\t', vn);

			if (tab)
				vn = (size_t)(tab - v);
		}
		if (is_dev_null(v, vn)) {
			if (minus)
				p->is_new = 1;
			else
				p->is_deleted = 1;
			return 0;
		}
		rc = read_path(p, minus ? &p->old_path : &p->new_path, v, vn, minus ? 'a' : 'b');
	} else if (starts_with(s, n, "Binary files ") && n >= 13 + 7 &&
		   !memcmp(s + n - 7, " differ", 7)) {
		if ((!p->open || p->has_content) && (rc = start_file(p)) < 0)
			return rc;
		p->has_content = 1;
		current(p)->binary = 1;
		/* paths the "diff --git" line gave are as good, and safer */
		if (!p->old_path.len || !p->new_path.len)
			rc = read_pair(p, s + 13, n - 13 - 7, " and ", &null_a, &null_b);
		else {
			null_a = starts_with(s + 13, n - 13, "/dev/null ");
			null_b = n > 13 + 7 + 9 && !memcmp(s + n - 7 - 9, "/dev/null", 9);
		}
		if (null_a && !p->is_deleted)
			p->is_new = 1;
		if (null_b && !p->is_new)
			p->is_deleted = 1;
	} else if (!p->open) {
		/* what follows needs a file header first */
	} else if (starts_with(s, n, "GIT binary patch")) {
		p->has_content = 1;
		current(p)->binary = 1;
	} else if (starts_with(s, n, "new file mode")) {
		p->is_new = 1;
	} else if (starts_with(s, n, "deleted file mode")) {
		p->is_deleted = 1;
	} else if (starts_with(s, n, "rename from ")) {
		p->is_rename = 1;
		rc = read_path(p, &p->old_path, s + 12, n - 12, 0);
	} else if (starts_with(s, n, "rename to ")) {
		p->is_rename = 1;
		rc = read_path(p, &p->new_path, s + 10, n - 10, 0);
	} else if (starts_with(s, n, "copy to ")) {
		/* a copy adds a file; where it came from does not matter here */
		p->is_copy = 1;
		rc = read_path(p, &p->new_path, s + 8, n - 8, 0);
	}
	/* "similarity index", "index", "old mode", "copy from": nothing to keep */
	if (rc >= 0 && p->open)
		p->lang = lang_of(p->new_path.len ? p->new_path.ptr : p->old_path.ptr,
				  p->new_path.len ? p->new_path.len : p->old_path.len);
	return rc < 0 ? rc : 0;
}

/* "[callus: N more files changed: A, B, ...]", as callus-git writes it */
#define TRUNCATION_PREFIX "[callus: "

static void truncation_line(parser *p, const char *s, size_t n)
{
	unsigned long v = 0;
	size_t i;
	int ok;

	i = read_number(s, n, strlen(TRUNCATION_PREFIX), &v, &ok);
	if (ok && starts_with(s + i, n - i, " more file"))
		p->out->more_files += v;
}

int callus_patch_summarize(callus_patch_summary *out, const char *patch, size_t len)
{
	parser p;
	size_t at = 0;
	int rc = 0;

	memset(&p, 0, sizeof(p));
	p.out = out;
	callus_buf_init(&p.old_path, 0);
	callus_buf_init(&p.new_path, 0);
	callus_buf_init(&p.tmp, 0);
	memset(out, 0, sizeof(*out));
	while (patch && at < len) {
		const char *s = patch + at, *nl = memchr(s, '\n', len - at);
		size_t n = nl ? (size_t)(nl - s) : len - at;

		at += nl ? n + 1 : n;
		if (p.in_hunk && hunk_line(&p, s, n, &rc)) {
			if (rc < 0)
				goto out;
			continue;
		}
		if (starts_with(s, n, TRUNCATION_PREFIX))
			truncation_line(&p, s, n);
		else
			rc = header_line(&p, s, n);
		if (rc < 0)
			goto out;
	}
	rc = finish_file(&p);
out:
	if (rc < 0) /* a half-made file has a NULL path: release takes it */
		callus_patch_summary_release(out);
	stack_clear(&p);
	callus_strlist_release(&p.stack);
	callus_buf_release(&p.old_path);
	callus_buf_release(&p.new_path);
	callus_buf_release(&p.tmp);
	return rc;
}

void callus_patch_summary_release(callus_patch_summary *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->count; i++) {
		free(s->files[i].path);
		free(s->files[i].old_path);
		callus_strlist_release(&s->files[i].functions);
	}
	free(s->files);
	memset(s, 0, sizeof(*s));
}

/* The line after the one at p (past its newline), or the end. */
static const char *next_line(const char *p)
{
	const char *nl = strchr(p, '\n');

	return nl ? nl + 1 : p + strlen(p);
}

/* Does the text at p start with lit?  Byte by byte: p may be shorter. */
static int opens(const char *p, const char *lit)
{
	while (*lit && *p == *lit) {
		p++;
		lit++;
	}
	return !*lit;
}

/* "@@ -A[,B] +C[,D] @@" at p: the numbers (B and D are 1 when left out,
 * as git leaves them out), and where the text after the header starts.  0
 * when p holds no such header. */
static int hunk_header(const char *p, unsigned long n[4], const char **rest)
{
	static const char *const before[] = { "@@ -", ",", " +", "," };
	char *e;

	for (int k = 0; k < 4; k++) {
		size_t bl = strlen(before[k]);

		if (strncmp(p, before[k], bl)) {
			if (k % 2 == 0)
				return 0;
			n[k] = 1;   /* ",B" left out */
			continue;
		}
		n[k] = strtoul(p + bl, &e, 10);
		if (e == p + bl || *(p + bl) < '0' || *(p + bl) > '9')
			return 0;
		p = e;
	}
	if (strncmp(p, " @@", 3))
		return 0;
	*rest = p + 3;
	return 1;
}

int callus_patch_recount(char **patch)
{
	callus_buf out = CALLUS_BUF_INIT;
	const char *p = *patch, *copied = *patch;
	int changed = 0;

	while (p && *p) {
		unsigned long n[4], old = 0, new = 0;
		const char *rest, *q;

		if (!hunk_header(p, n, &rest)) {
			p = next_line(p);
			continue;
		}
		/* a hunk's lines, up to the next hunk, or the next file's
		 * "--- "/"+++ " pair (plain diff -u has no "diff" line) */
		for (q = next_line(p); *q && strchr(" +-\\", *q) && !opens(q, "@@ ") &&
				       !(opens(q, "--- ") && opens(next_line(q), "+++ "));
		     q = next_line(q)) {
			old += *q == ' ' || *q == '-';
			new += *q == ' ' || *q == '+';
		}
		if (old != n[1] || new != n[3]) {
			if (callus_buf_put(&out, copied, (size_t)(p - copied)) < 0 ||
			    callus_buf_printf(&out, "@@ -%lu,%lu +%lu,%lu @@", n[0], old, n[2],
					      new) < 0)
				goto oom;
			copied = rest;
			changed = 1;
		}
		p = q;
	}
	if (!changed)
		return 0;
	if (callus_buf_puts(&out, copied) < 0)
		goto oom;
	free(*patch);
	*patch = callus_buf_detach(&out);
	return *patch ? 0 : CALLUS_ENOMEM;
oom:
	callus_buf_release(&out);
	return CALLUS_ENOMEM;
}
