/*
 * notemd.c - a hindsight note as text (notemd.h): its Markdown file, read
 * back, and its compact form.  Apart from notes.c because it is the
 * format, with no store: the same text is what a teammate commits and
 * what the reader takes back.
 */
#include "callus/notemd.h"
#include "callus/diffexcerpt.h"
#include "callus/utf8.h"
#include "mdtext.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COMPACT_WIDTH 160
#define COMPACT_LINES 12

/* s with its line breaks as spaces, for a one-line field. */
static void put_line(callus_buf *out, const char *s)
{
	for (; s && *s; s++)
		callus_buf_putc(out, *s == '\n' || *s == '\r' ? ' ' : *s);
}

/* put_line's, for a line a renderer reads as Markdown (the title, the
 * rule, a step, the tags): a '<' that would open raw HTML is escaped,
 * "\\<", which renders as '<' and which take_md() reads back as it was
 * (a tool's message such as "<img src=...>" stays text). */
static void put_md(callus_buf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '<' && callus_md_opens_html(s[1]))
			callus_buf_putc(out, '\\');
		callus_buf_putc(out, *s == '\n' || *s == '\r' ? ' ' : *s);
	}
}

static void put_list(callus_buf *out, const char *key, const callus_strlist *l)
{
	callus_buf_printf(out, "%s:\n", key);
	for (size_t i = 0; i < l->count; i++) {
		callus_buf_puts(out, "  - ");
		put_line(out, l->items[i]);
		callus_buf_putc(out, '\n');
	}
}

static void put_kv(callus_buf *out, const char *key, const char *v)
{
	callus_buf_printf(out, "%s: ", key);
	put_line(out, v);
	callus_buf_putc(out, '\n');
}

/* Each line of text prefixed, the last one ended. */
static void put_prefixed(callus_buf *out, const char *prefix, const char *text)
{
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		callus_buf_puts(out, prefix);
		callus_buf_put(out, p, n);
		callus_buf_putc(out, '\n');
		p = nl ? nl + 1 : p + n;
	}
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

int callus_note_md_render(callus_buf *out, const callus_note *n)
{
	int step = 0;

	callus_buf_puts(out, "---\n");
	put_kv(out, "id", n->id);
	put_kv(out, "type", "hindsight");
	put_kv(out, "layer", callus_layer_name(n->layer));
	put_kv(out, "status", n->retired ? "retired" : "active");
	put_kv(out, "tool", n->tool);
	put_kv(out, "error_type", n->error_type);
	if (n->framework && *n->framework)
		put_kv(out, "framework", n->framework);
	put_list(out, "signatures", &n->signatures);
	put_list(out, "files", &n->files);
	callus_buf_printf(out, "applications: %lld\nsuccesses: %lld\nsuccess_rate: %.2f\n",
			  (long long)n->applications, (long long)n->successes, n->success_rate);
	put_kv(out, "created", n->created_at);
	put_kv(out, "updated", n->updated_at);
	callus_buf_puts(out, "---\n\n# ");
	put_md(out, n->title);
	callus_buf_puts(out, "\n\n");
	if (n->rule && *n->rule) {
		callus_buf_puts(out, "Rule: ");
		put_md(out, n->rule);
		callus_buf_puts(out, "\n\n");
	}
	callus_buf_printf(out, "## Error Pattern\n\nA `%s` error of type `%s`%s%s%s. Example:\n\n",
			  or_empty(n->tool), or_empty(n->error_type),
			  n->framework && *n->framework ? " (" : "", or_empty(n->framework),
			  n->framework && *n->framework ? ")" : "");
	put_prefixed(out, "    ", n->example && *n->example ? n->example : n->title);
	callus_buf_puts(out, "\n## Resolution\n\n");
	for (const char *p = n->steps; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len) {
			char *one = strndup(p, len);

			callus_buf_printf(out, "%d. ", ++step);
			if (one)
				put_md(out, one);
			else
				out->failed = 1;
			callus_buf_putc(out, '\n');
			free(one);
		}
		p = nl ? nl + 1 : p + len;
	}
	if (!step)
		callus_buf_puts(out, "1. The fix is not known: see the code examples.\n");
	if (n->code && *n->code) {
		callus_buf_puts(out, "\n## Code Examples\n\n```diff\n");
		callus_buf_puts(out, n->code);
		if (n->code[strlen(n->code) - 1] != '\n')
			callus_buf_putc(out, '\n');
		callus_buf_puts(out, "```\n");
	}
	callus_buf_puts(out, "\n## Tags\n\n");
	put_md(out, n->error_type);
	callus_buf_puts(out, ", ");
	put_md(out, n->tool);
	if (n->framework && *n->framework) {
		callus_buf_puts(out, ", ");
		put_md(out, n->framework);
	}
	for (size_t i = 0; i < n->files.count; i++) {
		callus_buf_puts(out, ", ");
		put_md(out, n->files.items[i]);
	}
	callus_buf_putc(out, '\n');
	if (n->extra && *n->extra) {
		callus_buf_putc(out, '\n');
		callus_buf_puts(out, n->extra);
		if (n->extra[strlen(n->extra) - 1] != '\n')
			callus_buf_putc(out, '\n');
	}
	return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : 0;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */

typedef struct reader {
	const char *p, *end;
} reader;

/* The next line without its line break (trailing '\r's dropped: one
 * would come back as a line break of its own). */
static int next_line(reader *r, const char **line, size_t *len)
{
	const char *nl;

	if (r->p >= r->end)
		return 0;
	*line = r->p;
	nl = memchr(r->p, '\n', (size_t)(r->end - r->p));
	*len = nl ? (size_t)(nl - r->p) : (size_t)(r->end - r->p);
	r->p = nl ? nl + 1 : r->end;
	while (*len && (*line)[*len - 1] == '\r')
		(*len)--;
	return 1;
}

static int is(const char *line, size_t len, const char *s)
{
	return strlen(s) == len && !memcmp(line, s, len);
}

static int starts_with(const char *line, size_t len, const char *pre)
{
	size_t k = strlen(pre);

	return len >= k && !memcmp(line, pre, k);
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* s[0..n) without its surrounding blanks, as a string; an embedded NUL
 * ends it, as it would on disk.  What the writer's put_line() would make
 * of it, so that a note read, written and read again is the same. */
static char *dup_trim(const char *s, size_t n)
{
	const char *nul = memchr(s, '\0', n);
	char *d;

	if (nul)
		n = (size_t)(nul - s);
	while (n && blank(*s)) {
		s++;
		n--;
	}
	while (n && blank(s[n - 1]))
		n--;
	if (!(d = malloc(n + 1)))
		return NULL;
	for (size_t i = 0; i < n; i++)
		d[i] = s[i] == '\r' ? ' ' : s[i];
	d[n] = '\0';
	return d;
}

/* A front matter value. */
static int set_field(char **field, const char *s, size_t n)
{
	free(*field);
	return (*field = dup_trim(s, n)) ? 0 : CALLUS_ENOMEM;
}

/* A line put_md() wrote, as it was: "\\<" before what opens HTML is '<'
 * again (in place: the text only shrinks). */
static void take_md(char *s)
{
	char *w = s;

	for (; s && *s; s++) {
		if (s[0] == '\\' && s[1] == '<' && callus_md_opens_html(s[2]))
			continue;
		*w++ = *s;
	}
	if (w)
		*w = '\0';
}

static int set_md_field(char **field, const char *s, size_t n)
{
	int rc = set_field(field, s, n);

	if (rc == 0)
		take_md(*field);
	return rc;
}



/* A count: digits, at most 10^15; anything else is 0.  From a copy: the
 * value is not NUL-terminated where the text ends. */
static int read_count(int64_t *out, const char *v, size_t n)
{
	char *d = dup_trim(v, n);
	size_t k;

	if (!d)
		return CALLUS_ENOMEM;
	k = strspn(d, "0123456789");
	*out = !d[k] && k && k <= 15 ? strtoll(d, NULL, 10) : 0;
	free(d);
	return 0;
}

/* The front matter, up to its closing "---". */
static int read_front(callus_note *n, reader *r, callus_error *err)
{
	callus_strlist *list = NULL;
	const char *line;
	size_t len;
	int rc = 0;

	while (rc == 0 && next_line(r, &line, &len)) {
		const char *colon;
		size_t klen;
		const char *v;
		size_t vlen;

		if (is(line, len, "---"))
			return 0;
		if (list && starts_with(line, len, "  - ")) {
			char *item = dup_trim(line + 4, len - 4);

			rc = item && callus_strlist_add_unique(list, item, strlen(item), NULL) == 0
				     ? 0 : CALLUS_ENOMEM;
			free(item);
			continue;
		}
		list = NULL;
		if (!(colon = memchr(line, ':', len)))
			continue;
		klen = (size_t)(colon - line);
		v = colon + 1;
		vlen = len - klen - 1;
#define KEY(k) (klen == strlen(k) && !memcmp(line, k, klen))
		if (KEY("id")) {
			char *id = dup_trim(v, vlen);

			if (!id)
				return CALLUS_ENOMEM;
			snprintf(n->id, sizeof(n->id), "%s", id);
			free(id);
		} else if (KEY("layer")) {
			char *l = dup_trim(v, vlen);

			if (!l)
				return CALLUS_ENOMEM;
			if (callus_layer_parse(&n->layer, l) < 0)
				rc = callus_error_set(err, CALLUS_EINVAL, "unknown layer '%s'", l);
			free(l);
		} else if (KEY("status")) {
			char *s = dup_trim(v, vlen);

			if (!s)
				return CALLUS_ENOMEM;
			n->retired = !strcmp(s, "retired");
			free(s);
		} else if (KEY("tool")) {
			rc = set_field(&n->tool, v, vlen);
		} else if (KEY("error_type")) {
			rc = set_field(&n->error_type, v, vlen);
		} else if (KEY("framework")) {
			rc = set_field(&n->framework, v, vlen);
		} else if (KEY("signatures")) {
			list = &n->signatures;
		} else if (KEY("files")) {
			list = &n->files;
		} else if (KEY("applications")) {
			rc = read_count(&n->applications, v, vlen);
		} else if (KEY("successes")) {
			rc = read_count(&n->successes, v, vlen);
		} else if (KEY("created")) {
			rc = set_field(&n->created_at, v, vlen);
		} else if (KEY("updated")) {
			rc = set_field(&n->updated_at, v, vlen);
		}
#undef KEY
	}
	if (rc == 0)
		rc = callus_error_set(err, CALLUS_EINVAL, "its front matter has no closing '---'");
	return rc;
}

enum section { S_HEAD, S_PATTERN, S_RESOLUTION, S_CODE, S_TAGS, S_EXTRA, S_SKIP };

/* A step's text without its "N. " or "- " marker. */
static void step_text(const char **s, size_t *n)
{
	size_t i = 0;

	while (i < *n && (*s)[i] >= '0' && (*s)[i] <= '9')
		i++;
	if (i && i + 1 < *n && (*s)[i] == '.' && (*s)[i + 1] == ' ')
		i += 2;
	else if (*n >= 2 && ((*s)[0] == '-' || (*s)[0] == '*') && (*s)[1] == ' ')
		i = 2;
	else
		i = 0;
	*s += i;
	*n -= i;
}

static int read_body(callus_note *n, reader *r)
{
	callus_buf steps = CALLUS_BUF_INIT, code = CALLUS_BUF_INIT, example = CALLUS_BUF_INIT;
	callus_buf extra = CALLUS_BUF_INIT;
	enum section sec = S_HEAD;
	const char *line;
	size_t len;
	int fenced = 0, tags_seen = 0, rc = 0;
	unsigned seen = 0;

	while (rc == 0 && next_line(r, &line, &len)) {
		size_t hl;

		/* a note is text: what follows a NUL would not come back */
		len = strnlen(line, len);
		/* a heading is known with its trailing blanks, which the
		 * text around it would lose */
		for (hl = len; hl && blank(line[hl - 1]); hl--)
			;
		if (fenced) {
			/* a section of a person's own is kept as written, fences
			 * included: its closing one too */
			if (sec == S_EXTRA)
				callus_buf_put(&extra, line, len), callus_buf_putc(&extra, '\n');
			if (is(line, len, "```"))
				fenced = 0;
			else if (sec == S_CODE)
				callus_buf_put(&code, line, len), callus_buf_putc(&code, '\n');
			continue;
		}
		/* the tags line is whatever the tags are, even "## x" */
		if (sec == S_TAGS && !tags_seen) {
			tags_seen = len > 0;
			if (tags_seen)
				continue;
		}
		if (starts_with(line, len, "## ") && len > 3 && !blank(line[3])) {
			if (is(line, hl, "## Error Pattern"))
				sec = S_PATTERN;
			else if (is(line, hl, "## Resolution"))
				sec = S_RESOLUTION;
			else if (is(line, hl, "## Code Examples"))
				sec = S_CODE;
			else if (is(line, hl, "## Tags"))
				sec = S_TAGS;
			else
				sec = S_EXTRA;
			/* callus writes each of its sections once: a second one
			 * of the same name is dropped (kept as a person's own
			 * text, it would be read back as callus's section in a
			 * file where callus wrote none) */
			if (sec != S_EXTRA && (seen & (1u << sec)))
				sec = S_SKIP;
			seen |= 1u << sec;
			if (sec == S_SKIP)
				continue;
			if (sec != S_EXTRA)
				continue;
		}
		if (starts_with(line, len, "```")) {
			fenced = 1;
			if (sec != S_EXTRA)
				continue;
		}
		switch (sec) {
		case S_HEAD:
			if (starts_with(line, len, "# ") && !n->title)
				rc = set_md_field(&n->title, line + 2, len - 2);
			else if (starts_with(line, len, "Rule: "))
				rc = set_md_field(&n->rule, line + 6, len - 6);
			break;
		case S_PATTERN:
			if (starts_with(line, len, "    ")) {
				if (example.len)
					callus_buf_putc(&example, '\n');
				callus_buf_put(&example, line + 4, len - 4);
			}
			break;
		case S_RESOLUTION:
			step_text(&line, &len);
			if (len && !starts_with(line, len, "The fix is not known")) {
				callus_buf_put(&steps, line, len);
				callus_buf_putc(&steps, '\n');
			}
			break;
		case S_EXTRA:
			callus_buf_put(&extra, line, len);
			callus_buf_putc(&extra, '\n');
			break;
		default:
			break;
		}
	}
	callus_buf_rtrim(&steps);
	if (steps.ptr) {
		take_md(steps.ptr);
		steps.len = strlen(steps.ptr);
	}
	callus_buf_rtrim(&extra);
	/* the example's blank last lines are not written back */
	callus_buf_rtrim(&example);
	if (rc == 0 && (callus_buf_status(&steps) < 0 || callus_buf_status(&code) < 0 ||
			callus_buf_status(&example) < 0 || callus_buf_status(&extra) < 0))
		rc = CALLUS_ENOMEM;
	if (rc == 0) {
		free(n->steps);
		free(n->code);
		free(n->example);
		free(n->extra);
		n->steps = callus_buf_detach(&steps);
		n->code = callus_buf_detach(&code);
		n->example = callus_buf_detach(&example);
		n->extra = callus_buf_detach(&extra);
		if (!n->steps || !n->code || !n->example || !n->extra)
			rc = CALLUS_ENOMEM;
	}
	callus_buf_release(&steps);
	callus_buf_release(&code);
	callus_buf_release(&example);
	callus_buf_release(&extra);
	return rc;
}

/* Fields a file may leave out, as "" rather than NULL. */
static int fill_empty(callus_note *n)
{
	char **f[] = { &n->tool, &n->error_type, &n->framework, &n->rule, &n->session,
		       &n->created_at, &n->updated_at, &n->signature_id };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (!*f[i] && !(*f[i] = strdup("")))
			return CALLUS_ENOMEM;
	return 0;
}

/* Read in, the two sides' lines of a conflict were taken as one edit
 * (both rules, both updated: lines). */
int callus_note_md_conflicted(const char *text, size_t len)
{
	reader r = { text, text + len };
	const char *line;
	size_t n;
	int open = 0;

	while (next_line(&r, &line, &n)) {
		if (n >= 7 && !memcmp(line, "<<<<<<<", 7))
			open = 1;
		else if (open && n >= 7 && !memcmp(line, ">>>>>>>", 7))
			return 1;
	}
	return 0;
}

int callus_note_md_parse(callus_note *out, const char *text, size_t len, callus_error *err)
{
	reader r = { text, text + len };
	const char *line;
	size_t n;
	int rc;

	memset(out, 0, sizeof(*out));
	out->layer = CALLUS_LAYER_PROJECT;
	/* a note is text: a NUL ends it, as it ends every string read from it */
	{
		const char *nul = memchr(text, '\0', len);

		if (nul)
			r.end = nul;
	}
	if (!next_line(&r, &line, &n) || !is(line, n, "---"))
		return callus_error_set(err, CALLUS_EINVAL, "it does not begin with front matter ('---')");
	if (callus_note_md_conflicted(text, (size_t)(r.end - text)))
		return callus_error_set(err, CALLUS_EINVAL,
					"it has git's conflict markers ('<<<<<<<'): resolve them");
	if ((rc = read_front(out, &r, err)) < 0 || (rc = read_body(out, &r)) < 0)
		goto fail;
	if (strlen(out->id) != CALLUS_NOTE_ID_LEN ||
	    strspn(out->id, "0123456789abcdef") != CALLUS_NOTE_ID_LEN) {
		rc = callus_error_set(err, CALLUS_EINVAL, "its id is not %d hex digits",
				      CALLUS_NOTE_ID_LEN);
		goto fail;
	}
	if (!out->title || !*out->title) {
		rc = callus_error_set(err, CALLUS_EINVAL, "it has no '# ' title");
		goto fail;
	}
	if ((rc = fill_empty(out)) < 0)
		goto oom;
	if (out->signatures.count && (rc = set_field(&out->signature_id, out->signatures.items[0],
						     strlen(out->signatures.items[0]))) < 0)
		goto oom;
	out->success_rate = out->applications > 0
				    ? (double)out->successes / (double)out->applications : 0;
	return 0;
oom:
	rc = callus_error_set(err, CALLUS_ENOMEM, "out of memory");
fail:
	if (rc == CALLUS_ENOMEM && !err->code)
		callus_error_set(err, CALLUS_ENOMEM, "out of memory");
	callus_note_release(out);
	return rc;
}

/* ------------------------------------------------------------------ */
/* For an agent                                                         */

/* One line, cut to width and to what is left of max_bytes; 0 when even
 * its beginning does not fit. */
static int put_cut(callus_buf *out, size_t start, size_t max_bytes, const char *indent,
		   const char *head, const char *text)
{
	size_t used = out->len - start, fixed = strlen(indent) + strlen(head) + 1;
	size_t n = strcspn(text, "\r\n"), room, keep;

	if (used + fixed + 8 > max_bytes)
		return 0;
	room = max_bytes - used - fixed;
	if (room > COMPACT_WIDTH)
		room = COMPACT_WIDTH;
	keep = callus_utf8_cut(text, n, n < room ? n : room - 3);
	callus_buf_printf(out, "%s%s%.*s%s\n", indent, head, (int)keep, text, keep < n ? "..." : "");
	return 1;
}

int callus_note_compact(callus_buf *out, const callus_note *n, const char *file, long line,
			const char *indent, size_t max_bytes)
{
	callus_buf head = CALLUS_BUF_INIT;
	size_t start = out->len;
	callus_excerpt_opts eo;
	int rc = 0;

	indent = indent ? indent : "";
	/* a fix whose note is not made yet has no id */
	callus_buf_printf(&head, "%s%s (worked %lld of %lld time%s, %s): ",
			  *n->id ? "note " : "past fix", n->id, (long long)n->successes,
			  (long long)n->applications, n->applications == 1 ? "" : "s",
			  callus_layer_name(n->layer));
	if (callus_buf_status(&head) < 0) {
		rc = CALLUS_ENOMEM;
		goto out;
	}
	if (!put_cut(out, start, max_bytes, indent, head.ptr, n->title ? n->title : ""))
		goto out;
	if (n->rule && *n->rule && !put_cut(out, start, max_bytes, indent, "Rule: ", n->rule))
		goto out;
	memset(&eo, 0, sizeof(eo));
	eo.headers = 1;
	eo.file = file;
	eo.line = line;
	eo.max_lines = COMPACT_LINES;
	/* 0 would mean no limit to the excerpt */
	if (!(eo.max_bytes = max_bytes - (out->len - start)))
		goto out;
	eo.width = COMPACT_WIDTH;
	eo.indent = indent;
	{
		callus_buf lines = CALLUS_BUF_INIT;

		if ((rc = callus_diff_excerpt(&lines, n->code, &eo)) > 0)
			callus_buf_put(out, lines.ptr, lines.len);
		callus_buf_release(&lines);
		if (rc < 0)
			goto out;
	}
	/* no diff to show: the steps say what was done */
	if (rc == 0 && n->steps && *n->steps)
		put_cut(out, start, max_bytes, indent, "Fix: ", n->steps);
	rc = 0;
out:
	callus_buf_release(&head);
	if (rc == 0 && callus_buf_status(out) < 0)
		rc = CALLUS_ENOMEM;
	return rc;
}

int callus_notes_compact(callus_buf *out, const callus_note *n, size_t count, const char *file,
			 long line, const char *indent, size_t max_bytes)
{
	size_t start = out->len;
	int rc = 0;

	for (size_t i = 0; i < count && rc == 0; i++) {
		size_t used = out->len - start;

		if (used >= max_bytes)
			break;
		rc = callus_note_compact(out, &n[i], file, line, indent,
					 (max_bytes - used) / (count - i));
	}
	return rc;
}
