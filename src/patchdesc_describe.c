/*
 * patchdesc_describe.c - what a patch summary (patchdesc.c) says in words:
 * one line of UTF-8 naming the files, their line counts and the functions
 * changed, cut to a byte budget; and the list of the files.  Apart from
 * the diff reader because this is presentation: the wording changes
 * without the parsing.
 */
#include "callus/patchdesc.h"
#include "callus/buf.h"
#include "callus/utf8.h"

#include <stdlib.h>
#include <string.h>

/* Text from a patch, made fit for one line of UTF-8. */
static void put_clean(callus_buf *b, const char *s)
{
	size_t start = b->len;

	callus_utf8_sanitize(b, s, strlen(s));
	for (size_t i = start; i < b->len; i++)
		if ((unsigned char)b->ptr[i] < 0x20 || b->ptr[i] == 0x7f)
			b->ptr[i] = '?';
}

static void put_counts(callus_buf *b, size_t added, size_t removed)
{
	if (added && removed)
		callus_buf_printf(b, " (+%zu -%zu)", added, removed);
	else if (added)
		callus_buf_printf(b, " (+%zu)", added);
	else if (removed)
		callus_buf_printf(b, " (-%zu)", removed);
}

static void put_functions(callus_buf *b, const callus_strlist *fn)
{
	size_t shown = fn->count > 3 ? 3 : fn->count;

	for (size_t i = 0; i < shown; i++) {
		if (i)
			callus_buf_puts(b, i + 1 == shown && fn->count <= 3 ? " and " : ", ");
		put_clean(b, fn->items[i]);
		callus_buf_puts(b, "()");
	}
	if (fn->count > 3)
		callus_buf_printf(b, " and %zu more", fn->count - 3);
	callus_buf_puts(b, " in ");
}

static void put_clause(callus_buf *b, const callus_patch_file *f)
{
	const char *kind = f->binary ? "binary " : "";

	switch (f->change) {
	case CALLUS_PATCH_ADDED:
		callus_buf_printf(b, "added %s", kind);
		put_clean(b, f->path);
		if (!f->binary)
			put_counts(b, f->added, 0);
		break;
	case CALLUS_PATCH_DELETED:
		callus_buf_printf(b, "deleted %s", kind);
		put_clean(b, f->path);
		break;
	case CALLUS_PATCH_RENAMED:
		callus_buf_puts(b, "renamed ");
		put_clean(b, f->old_path ? f->old_path : f->path);
		callus_buf_puts(b, " to ");
		put_clean(b, f->path);
		put_counts(b, f->added, f->removed);
		break;
	case CALLUS_PATCH_MODIFIED:
	default:
		if (f->binary) {
			callus_buf_puts(b, "changed binary ");
			put_clean(b, f->path);
			break;
		}
		callus_buf_puts(b, "edited ");
		if (f->functions.count)
			put_functions(b, &f->functions);
		put_clean(b, f->path);
		put_counts(b, f->added, f->removed);
		break;
	}
}

static void put_more(callus_buf *b, size_t kept, size_t more)
{
	if (!more)
		return;
	if (kept)
		callus_buf_printf(b, "; and %zu more file%s", more, more == 1 ? "" : "s");
	else
		callus_buf_printf(b, "changed %zu file%s", more, more == 1 ? "" : "s");
}

/* The longest prefix of b->ptr[0..max) that ends on a character boundary. */
static size_t utf8_cut(const callus_buf *b, size_t max)
{
	if (b->len <= max)
		return b->len;
	while (max > 0 && ((unsigned char)b->ptr[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/*
 * max_bytes 0 means no limit, as elsewhere in callus.  When the clauses do
 * not all fit, as many whole clauses as fit are kept and the rest counted
 * ("; and 2 more files"); when not even the first fits, it is cut short
 * with "...".
 */
int callus_patch_describe(char **out, const callus_patch_summary *s, size_t max_bytes)
{
	callus_strlist clauses = CALLUS_STRLIST_INIT;
	callus_buf b = CALLUS_BUF_INIT, c = CALLUS_BUF_INIT;
	size_t max = max_bytes ? max_bytes : (size_t)-1, kept = 0;
	int rc = 0;

	*out = NULL;
	if (!s->count && !s->more_files) {
		callus_buf_puts(&b, "No changes in the working tree");
		goto cut;
	}
	for (size_t i = 0; i < s->count; i++) {
		callus_buf_clear(&c);
		put_clause(&c, &s->files[i]);
		if (callus_buf_status(&c) < 0 ||
		    callus_strlist_add(&clauses, c.ptr, c.len) < 0) {
			rc = CALLUS_ENOMEM;
			goto out;
		}
	}
	for (kept = clauses.count; kept > 0; kept--) {
		callus_buf_clear(&b);
		for (size_t i = 0; i < kept; i++) {
			if (i)
				callus_buf_puts(&b, "; ");
			callus_buf_puts(&b, clauses.items[i]);
		}
		put_more(&b, kept, s->count - kept + s->more_files);
		if (b.len <= max)
			break;
	}
	if (!kept) {
		size_t rest = s->count + s->more_files;

		callus_buf_clear(&b);
		if (clauses.count) {
			callus_buf_clear(&c);
			put_more(&c, 1, rest - 1);
			if (c.len + 3 < max) {
				callus_buf_puts(&b, clauses.items[0]);
				callus_buf_truncate(&b, utf8_cut(&b, max - c.len - 3));
				callus_buf_puts(&b, "...");
				callus_buf_puts(&b, c.ptr);
			}
			/* a stub of a clause says less than a count */
			if (b.len < c.len + 3 + 8)
				callus_buf_clear(&b);
		}
		if (!b.len || b.len > max) {
			callus_buf_clear(&b);
			put_more(&b, 0, rest);
		}
	}
	if (b.len && b.ptr[0] >= 'a' && b.ptr[0] <= 'z')
		b.ptr[0] = (char)(b.ptr[0] - 'a' + 'A');
cut:
	callus_buf_truncate(&b, utf8_cut(&b, max));
	if (callus_buf_status(&b) < 0 || !(*out = callus_buf_detach(&b)))
		rc = CALLUS_ENOMEM;
out:
	callus_strlist_release(&clauses);
	callus_buf_release(&b);
	callus_buf_release(&c);
	return rc;
}

int callus_patch_files(callus_strlist *out, const callus_patch_summary *s)
{
	callus_strlist l = CALLUS_STRLIST_INIT;
	int rc = 0;

	for (size_t i = 0; i < s->count; i++)
		if ((rc = callus_strlist_add(&l, s->files[i].path, strlen(s->files[i].path))) < 0)
			goto out;
	*out = l;
	l = (callus_strlist)CALLUS_STRLIST_INIT;
out:
	callus_strlist_release(&l);
	return rc;
}
