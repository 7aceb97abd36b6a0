/*
 * diffexcerpt.c - the changed lines of a unified diff that matter for one
 * file and line, bounded (diffexcerpt.h).
 */
#include "callus/diffexcerpt.h"
#include "callus/common.h"
#include "callus/utf8.h"

#include <stdlib.h>
#include <string.h>

/* Where the walk is in the diff. */
typedef struct walk {
	const char *p;        /* the next line */
	const char *file;     /* the current file's new-side path (in the diff) */
	size_t file_len;
	long old_left, new_left; /* lines of the current hunk still to come */
} walk;

static int starts(const char *s, size_t n, const char *pre)
{
	size_t k = strlen(pre);

	return n >= k && memcmp(s, pre, k) == 0;
}

/* The line counts of a hunk header "@@ -a[,b] +c[,d] @@": b and d, 1 when
 * absent (git's short form). */
static void hunk_counts(walk *w, const char *s, const char *end)
{
	long *dst[2] = { &w->old_left, &w->new_left };

	for (int i = 0; i < 2; i++) {
		const char *comma;

		while (s < end && *s != (i ? '+' : '-'))
			s++;
		*dst[i] = 1;
		while (s < end && *s != ',' && *s != ' ')
			s++;
		comma = s;
		if (s < end && *s == ',') {
			*dst[i] = 0;
			for (s = comma + 1; s < end && *s >= '0' && *s <= '9'; s++)
				if (*dst[i] < 1000000)
					*dst[i] = *dst[i] * 10 + (*s - '0');
		}
	}
}

/* One hunk of a diff. */
typedef struct hunk {
	const char *file;   /* new-side path, in the diff */
	size_t file_len;
	long new_start, old_count, new_count;
	const char *body;   /* its first line after the header */
	size_t changes;     /* '-' and '+' lines */
	size_t order;       /* its place in the diff */
	long rank;          /* lower first */
	int in_file;        /* in the error's file */
} hunk;

/* "@@ -a,b +c,d @@": c (the new side's first line), 0 when unreadable. */
static long hunk_new_start(const char *s, const char *end)
{
	long v = 0;

	while (s < end && *s != '+')
		s++;
	for (s++; s < end && *s >= '0' && *s <= '9'; s++)
		if (v < 100000000)
			v = v * 10 + (*s - '0');
	return v;
}

/* The line at *p, its length without the newline; *p moves past it. */
static const char *take_line(const char **p, size_t *len)
{
	const char *line = *p, *nl = strchr(line, '\n');

	*len = nl ? (size_t)(nl - line) : strlen(line);
	*p = nl ? nl + 1 : line + *len;
	return line;
}

/* Every hunk of diff, in diff order, with its changed lines counted. */
static int collect_hunks(const char *diff, hunk **out, size_t *count)
{
	walk w = { diff, NULL, 0, 0, 0 };
	hunk *v = NULL, *h;
	size_t n = 0, cap = 0, len;

	while (*w.p) {
		const char *line = take_line(&w.p, &len);

		if (w.old_left > 0 || w.new_left > 0) {
			if (len && *line == '\\')
				continue; /* "\ No newline at end of file" */
			if (len && *line == '-') {
				w.old_left--;
				v[n - 1].changes++;
			} else if (len && *line == '+') {
				w.new_left--;
				v[n - 1].changes++;
			} else {
				w.old_left--;
				w.new_left--;
			}
			continue;
		}
		if (starts(line, len, "diff --git ")) {
			w.file = NULL;
			w.file_len = 0;
		} else if (starts(line, len, "+++ b/")) {
			w.file = line + 6;
			w.file_len = len - 6;
		} else if (starts(line, len, "--- a/") && !w.file) {
			w.file = line + 6;
			w.file_len = len - 6;
		} else if (starts(line, len, "@@ -")) {
			hunk_counts(&w, line + 3, line + len);
			if (!(h = callus_array_grow(v, &cap, n + 1, sizeof(*v)))) {
				free(v);
				return CALLUS_ENOMEM;
			}
			v = h;
			memset(&v[n], 0, sizeof(v[n]));
			v[n].file = w.file ? w.file : "";
			v[n].file_len = w.file_len;
			v[n].new_start = hunk_new_start(line + 3, line + len);
			v[n].old_count = w.old_left;
			v[n].new_count = w.new_left;
			v[n].body = w.p;
			v[n].order = n;
			n++;
		}
	}
	*out = v;
	*count = n;
	return 0;
}

static int by_rank(const void *a, const void *b)
{
	const hunk *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

/* Append the hunk's changed lines, each indented and cut, while out stays
 * within max_bytes; *lines says how many. */
static void hunk_lines(callus_buf *out, const hunk *h, const callus_excerpt_opts *o,
		       size_t max_lines, size_t max_bytes, size_t *lines)
{
	const char *p = h->body, *indent = o->indent ? o->indent : "";
	long old_left = h->old_count, new_left = h->new_count;
	size_t n;

	*lines = 0;
	while (*p && (old_left > 0 || new_left > 0) && *lines < max_lines) {
		const char *line = take_line(&p, &n);
		size_t keep, need;

		if (n && *line == '\\')
			continue;
		if (!n || (*line != '-' && *line != '+')) {
			old_left--;
			new_left--;
			continue;
		}
		if (*line == '-')
			old_left--;
		else
			new_left--;
		keep = o->width ? callus_utf8_cut(line, n, o->width) : n;
		need = strlen(indent) + keep + (keep < n ? 4 : 1);
		if (out->len + need > max_bytes)
			break;
		callus_buf_puts(out, indent);
		callus_buf_put(out, line, keep);
		callus_buf_puts(out, keep < n ? "...\n" : "\n");
		(*lines)++;
	}
}

int callus_diff_excerpt(callus_buf *out, const char *diff, const callus_excerpt_opts *o)
{
	callus_buf one = CALLUS_BUF_INIT;
	hunk *h = NULL;
	size_t nh = 0, total = 0, used = 0, flen = o->file ? strlen(o->file) : 0;
	size_t max_bytes = o->max_bytes ? o->max_bytes : (size_t)-1;
	const char *last = NULL;
	size_t last_len = 0;
	int rc;

	if (!diff || !o->max_lines)
		return 0;
	if ((rc = collect_hunks(diff, &h, &nh)) < 0)
		return rc;
	for (size_t i = 0; i < nh; i++) {
		h[i].in_file = o->file && h[i].file_len == flen && !memcmp(h[i].file, o->file, flen);
		if (h[i].in_file && o->line > 0) {
			long lo = h[i].new_start, hi = lo + (h[i].new_count ? h[i].new_count - 1 : 0);

			h[i].rank = o->line < lo ? lo - o->line : o->line > hi ? o->line - hi : 0;
		} else if (h[i].in_file) {
			h[i].rank = (long)h[i].order;
		} else {
			h[i].rank = (long)h[i].changes + (1L << 40);
		}
	}
	if (nh > 1)
		qsort(h, nh, sizeof(*h), by_rank);
	for (size_t i = 0; i < nh && total < o->max_lines; i++) {
		size_t lines = 0, budget;
		int new_file = !last || last_len != h[i].file_len ||
			       memcmp(last, h[i].file, last_len) != 0;

		if (!h[i].changes || (o->only_file && !h[i].in_file))
			continue;
		callus_buf_clear(&one);
		if (new_file && o->headers)
			callus_buf_printf(&one, "%sin %.*s:\n", o->indent ? o->indent : "",
					  (int)h[i].file_len, h[i].file);
		budget = max_bytes - used;
		if (one.len >= budget)
			continue;
		hunk_lines(&one, &h[i], o, o->max_lines - total, budget, &lines);
		/* the first hunk as far as it fits; the others whole or not at all */
		if (!lines || (total && lines < h[i].changes))
			continue;
		callus_buf_put(out, one.ptr, one.len);
		used += one.len;
		total += lines;
		last = h[i].file;
		last_len = h[i].file_len;
	}
	rc = callus_buf_status(out) < 0 || callus_buf_status(&one) < 0 ? CALLUS_ENOMEM : (int)total;
	callus_buf_release(&one);
	free(h);
	return rc;
}
