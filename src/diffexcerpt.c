/*
 * diffexcerpt.c - the changed lines of one file of a unified diff, bounded
 * (diffexcerpt.h).
 */
#include "callus/diffexcerpt.h"
#include "callus/common.h"

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

static int same_file(const walk *w, const char *file)
{
	return file && w->file && strlen(file) == w->file_len &&
	       memcmp(w->file, file, w->file_len) == 0;
}

/* Whether file has a changed line in diff. */
static int has_changes(const char *diff, const char *file)
{
	walk w = { diff, NULL, 0, 0, 0 };
	size_t n;

	while (next_change(&w, &n))
		if (same_file(&w, file))
			return 1;
	return 0;
}

int callus_diff_excerpt(callus_buf *out, const char *diff, const char *file, size_t max_lines,
			size_t width, const char *indent)
{
	walk w = { diff ? diff : "", NULL, 0, 0, 0 };
	const char *line, *chosen = NULL;
	size_t chosen_len = 0, n, count = 0;

	if (!diff || !max_lines)
		return 0;
	if (file && !has_changes(diff, file))
		file = NULL;
	while (count < max_lines && (line = next_change(&w, &n))) {
		if (file ? !same_file(&w, file)
			 : chosen && (w.file_len != chosen_len ||
				      memcmp(w.file ? w.file : "", chosen, chosen_len) != 0))
			continue;
		if (!file && !chosen) {
			chosen = w.file ? w.file : "";
			chosen_len = w.file_len;
		}
		callus_buf_puts(out, indent ? indent : "");
		if (width && n > width) {
			size_t cut = width;

			/* never inside a UTF-8 sequence */
			while (cut > 1 && ((unsigned char)line[cut] & 0xC0) == 0x80)
				cut--;
			callus_buf_put(out, line, cut);
			callus_buf_puts(out, "...");
		} else {
			callus_buf_put(out, line, n);
		}
		callus_buf_putc(out, '\n');
		count++;
	}
	return callus_buf_status(out) < 0 ? CALLUS_ENOMEM : (int)count;
}
