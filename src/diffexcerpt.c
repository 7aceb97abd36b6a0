/*
 * diffexcerpt.c - the changed lines of one file of a unified diff, bounded
 * (diffexcerpt.h).
 */
#include "callus/diffexcerpt.h"
#include "callus/common.h"
#include "callus/utf8.h"

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

/* The next '-' or '+' line of a hunk, without its newline, or NULL at the
 * end; w->file names its file. */
static const char *next_change(walk *w, size_t *len)
{
	while (*w->p) {
		const char *line = w->p, *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);

		w->p = nl ? nl + 1 : line + n;
		if (w->old_left > 0 || w->new_left > 0) {
			/* inside a hunk: its counts say where it ends */
			if (n && *line == '\\')
				continue; /* "\ No newline at end of file" */
			if (n && *line == '-') {
				w->old_left--;
			} else if (n && *line == '+') {
				w->new_left--;
			} else {
				w->old_left--;
				w->new_left--;
				continue;
			}
			*len = n;
			return line;
		}
		if (starts(line, n, "diff --git ")) {
			w->file = NULL;
			w->file_len = 0;
		} else if (starts(line, n, "+++ b/")) {
			w->file = line + 6;
			w->file_len = n - 6;
		} else if (starts(line, n, "--- a/") && !w->file) {
			/* a deleted file's only name; "+++ b/" follows otherwise */
			w->file = line + 6;
			w->file_len = n - 6;
		} else if (starts(line, n, "@@ -")) {
			hunk_counts(w, line + 3, line + n);
		}
	}
	return NULL;
}

/* The file whose lines to show: file when it has changed lines, else the
 * first file that has; *name NULL when no file has any. */
static void pick_file(const char *diff, const char *file, const char **name, size_t *len)
{
	walk w = { diff, NULL, 0, 0, 0 };
	size_t n;

	*name = NULL;
	*len = 0;
	while (next_change(&w, &n)) {
		const char *f = w.file ? w.file : "";

		if (!*name) {
			*name = f;
			*len = w.file_len;
		}
		if (file && strlen(file) == w.file_len && !memcmp(f, file, w.file_len)) {
			*name = f;
			*len = w.file_len;
			return;
		}
	}
}

int callus_diff_excerpt(callus_buf *out, const char *diff, const char *file, size_t max_lines,
			size_t width, const char *indent)
{
	walk w = { diff, NULL, 0, 0, 0 };
	const char *line, *name;
	size_t len, n, count = 0;

	if (!diff || !max_lines)
		return 0;
	pick_file(diff, file, &name, &len);
	while (name && count < max_lines && (line = next_change(&w, &n))) {
		size_t keep = width ? callus_utf8_cut(line, n, width) : n;

		if (w.file_len != len || memcmp(w.file ? w.file : "", name, len) != 0)
			continue;
		callus_buf_puts(out, indent ? indent : "");
		callus_buf_put(out, line, keep);
		callus_buf_puts(out, keep < n ? "...\n" : "\n");
		count++;
	}
	return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : (int)count;
}
