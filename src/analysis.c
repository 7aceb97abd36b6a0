#include "callus/analysis.h"
#include "callus/context.h"
#include "callus/parse.h"
#include "parsers/js_util.h"
#include "callus/utf8.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

void callus_failure_release(callus_failure *f)
{
	if (!f)
		return;
	free(f->tool);
	free(f->command);
	free(f->summary);
	callus_strlist_release(&f->files);
	callus_diags_release(&f->diags);
	for (size_t i = 0; i < f->nsigs; i++)
		callus_signature_release(&f->sigs[i]);
	free(f->sigs);
	memset(f, 0, sizeof(*f));
}

static int is_space(char c) { return c == ' ' || c == '\t'; }

/* Code frames ("  3 | x = 1", "    |     ^") repeat the source: no room for
 * them in 500 characters. */
static int is_code_frame(const char *s, size_t len)
{
	size_t i = 0;

	if (i < len && s[i] == '>')
		i++;
	while (i < len && is_space(s[i]))
		i++;
	while (i < len && s[i] >= '0' && s[i] <= '9')
		i++;
	while (i < len && is_space(s[i]))
		i++;
	return i < len && s[i] == '|';
}

/* Copy line to out, dropping the workspace prefix of absolute paths so that
 * the summary is the same wherever the workspace lives. */
static void put_relative(callus_buf *out, const char *s, size_t len, const callus_pathctx *pc)
{
	const char *roots[2] = { pc->workspace, pc->workspace_real };
	size_t rlen[2] = { roots[0] ? strlen(roots[0]) : 0, roots[1] ? strlen(roots[1]) : 0 };
	size_t i = 0, run = 0;

	while (i < len) {
		const char *slash = memchr(s + i, '/', len - i);
		int skipped = 0;

		if (!slash)
			break;
		i = (size_t)(slash - s);
		for (int r = 0; r < 2 && !skipped; r++) {
			if (rlen[r] > 1 && i + rlen[r] < len && s[i + rlen[r]] == '/' &&
			    !memcmp(s + i, roots[r], rlen[r])) {
				callus_buf_put(out, s + run, i - run);
				i += rlen[r] + 1;
				run = i;
				skipped = 1;
			}
		}
		if (!skipped)
			i++;
	}
	callus_buf_put(out, s + run, len - run);
}

/* Cut at most max bytes without splitting a UTF-8 sequence. */
static size_t utf8_cut(const char *s, size_t len, size_t max)
{
	if (len <= max)
		return len;
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/*
 * The error summary: the lines that say what failed first, then the other
 * interesting lines, then the other tail lines while there is room; at
 * most CALLUS_SUMMARY_MAX bytes, the chosen lines shown in output order, each
 * once.
 */
/* Diagnostics take at most this much of the summary; the output's own
 * lines the rest. */
#define SUMMARY_DIAG_BUDGET 300

/* One diagnostic as a summary line: where, what, which test. */
static void diag_line(callus_buf *out, const callus_diag *d)
{
	const char *m = d->message ? d->message : "";
	size_t mlen = strcspn(m, "\n");

	if (mlen > 160)
		mlen = utf8_cut(m, mlen, 160);
	if (d->test)
		callus_buf_printf(out, "FAIL %.*s", (int)utf8_cut(d->test, strlen(d->test), 120),
				d->test);
	if (d->file) {
		callus_buf_printf(out, "%s%s", d->test ? " at " : "", d->file);
		if (d->line)
			callus_buf_printf(out, ":%ld", d->line);
		if (d->line && d->column)
			callus_buf_printf(out, ":%ld", d->column);
	}
	if (d->code)
		callus_buf_printf(out, "%s%s", out->len ? ": " : "", d->code);
	if (mlen)
		callus_buf_printf(out, "%s%.*s", out->len ? ": " : "", (int)mlen, m);
}

static int build_summary(char **out, const char *text, size_t len, const callus_pathctx *pc,
			 const callus_diags *diags)
{
	callus_buf sum = CALLUS_BUF_INIT, line = CALLUS_BUF_INIT;
	callus_strlist lines = CALLUS_STRLIST_INIT;
	unsigned char *chosen = NULL;
	size_t used = 0;
	int rc = CALLUS_ENOMEM;
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		const char *s = p;

		p = nl ? nl + 1 : end;
		while (n && is_space(*s)) {
			s++;
			n--;
		}
		if (!n || is_code_frame(s, n) || callus_js_wrapper_noise(s, n))
			continue;
		callus_buf_clear(&line);
		put_relative(&line, s, n, pc);
		if (callus_strlist_add_unique(&lines, line.ptr, line.len, NULL) < 0)
			goto out;
	}
	if (lines.count && !(chosen = calloc(lines.count, 1)))
		goto out;
	/* What the parser understood comes first, so that the first errors'
	 * files, codes and tests survive whatever the output looks like. */
	for (size_t i = 0; diags && i < diags->count && sum.len < SUMMARY_DIAG_BUDGET; i++) {
		callus_buf_clear(&line);
		diag_line(&line, &diags->items[i]);
		if (!sum.len && line.len > SUMMARY_DIAG_BUDGET) /* the first one, cut */
			callus_buf_truncate(&line, utf8_cut(line.ptr, line.len, SUMMARY_DIAG_BUDGET));
		if (!line.len || sum.len + line.len + 1 > SUMMARY_DIAG_BUDGET ||
		    strstr(sum.ptr, line.ptr))
			continue;
		if (sum.len)
			callus_buf_putc(&sum, '\n');
		callus_buf_put(&sum, line.ptr, line.len);
	}
	used = sum.len ? sum.len + 1 : 0;
	/* the lines that say what failed, then the lines around them, then
	 * the rest of the tail, while there is room */
	for (int rank = 2; rank >= 0; rank--)
		for (size_t i = 0; i < lines.count; i++) {
			size_t n = strlen(lines.items[i]);

			if (chosen[i] || callus_line_rank(lines.items[i], n) != rank ||
			    used + n + 1 > CALLUS_SUMMARY_MAX + 1)
				continue;
			chosen[i] = 1;
			used += n + 1;
		}
	for (size_t i = 0; i < lines.count; i++) {
		if (!chosen[i])
			continue;
		if (sum.len)
			callus_buf_putc(&sum, '\n');
		callus_buf_puts(&sum, lines.items[i]);
	}
	if (sum.len > CALLUS_SUMMARY_MAX)
		callus_buf_truncate(&sum, utf8_cut(sum.ptr, sum.len, CALLUS_SUMMARY_MAX));
	/* a first line longer than the whole budget is cut, not dropped */
	if (!sum.len && lines.count) {
		const char *first = lines.items[0];
		callus_buf_put(&sum, first, utf8_cut(first, strlen(first), CALLUS_SUMMARY_MAX));
	}
	if ((rc = callus_buf_status(&sum)) == 0)
		*out = callus_buf_detach(&sum);
out:
	free(chosen);
	callus_buf_release(&sum);
	callus_buf_release(&line);
	callus_strlist_release(&lines);
	return rc;
}

/*
 * The tool's own parser when there is one (by name, else by content), the
 * generic extractor when there is none or it finds nothing.
 */
static int parse_output(callus_failure *out, const callus_check *chk, const callus_capture *cap,
			const callus_buf *text, const callus_pathctx *pc)
{
	callus_parse_input in = {
		text->ptr, text->len, cap->head.ptr, cap->head.len,
		cap->head.len == cap->total_bytes, chk->tool ? chk->tool : "",
		chk->command ? chk->command : "", pc,
	};
	const callus_parser *p = callus_parser_select(in.tool, text->ptr, text->len);
	int rc;

	if (p) {
		if ((rc = p->parse(&in, &out->diags, &out->files)) < 0)
			return rc;
		if (out->diags.count || out->files.count) {
			out->parser = p->name;
			return 0;
		}
	}
	out->parser = "generic";
	return callus_parse_generic(&in, &out->diags, &out->files);
}

const char *callus_failure_framework(const callus_failure *f)
{
	return f->parser && strcmp(f->parser, "generic") ? f->parser : f->tool;
}

int callus_failure_build(callus_failure *out, const callus_check *chk, const callus_capture *cap,
		       const callus_pathctx *pc, callus_error *err)
{
	callus_buf text = CALLUS_BUF_INIT;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->verification = chk->verification;
	out->failed = chk->verification && chk->exit_code != 0;
	out->category = chk->verification ? chk->category : CALLUS_LESSON_OTHER;
	out->exit_code = chk->exit_code;
	out->output_bytes = cap->total_bytes;
	out->output_lines = cap->total_lines;
	out->dropped_lines = cap->dropped_lines;
	if (!(out->tool = strdup(chk->tool ? chk->tool : "")))
		goto oom;
	/* an argv may hold any bytes; the JSON and the store need UTF-8 */
	if (chk->command && callus_utf8_sanitize(&text, chk->command, strlen(chk->command)) < 0)
		goto oom;
	out->command = callus_buf_detach(&text);
	if (!out->command)
		goto oom;
	if (out->failed) {
		if ((rc = callus_capture_text(cap, &text)) < 0 ||
		    (rc = parse_output(out, chk, cap, &text, pc)) < 0 ||
		    (rc = callus_signatures_for(&out->sigs, &out->nsigs, &out->diags, &out->files,
					      callus_failure_framework(out), pc)) < 0 ||
		    (rc = build_summary(&out->summary, text.ptr, text.len, pc, &out->diags)) < 0)
			goto oom;
		/* files named only by diagnostics come first in the list already;
		 * every diagnostic file is an affected file */
		for (size_t i = 0; i < out->diags.count; i++)
			if (out->diags.items[i].file &&
			    callus_strlist_add_unique(&out->files, out->diags.items[i].file,
						    strlen(out->diags.items[i].file), NULL) < 0)
				goto oom;
	} else if (!(out->summary = strdup(""))) {
		goto oom;
	}
	callus_buf_release(&text);
	return 0;
oom:
	callus_buf_release(&text);
	callus_failure_release(out);
	return callus_error_set(err, CALLUS_ENOMEM, "out of memory while analysing the output");
}

const char *callus_failure_primary_file(const callus_failure *f)
{
	for (size_t i = 0; i < f->diags.count; i++)
		if (f->diags.items[i].file)
			return f->diags.items[i].file;
	return f->files.count ? f->files.items[0] : "";
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *strlist_json(const callus_strlist *l)
{
	json_t *a = json_array();

	for (size_t i = 0; i < l->count; i++)
		json_array_append_new(a, json_string(l->items[i]));
	return a;
}

static json_t *signatures_json(const callus_failure *f)
{
	json_t *a = json_array();

	for (size_t i = 0; i < f->nsigs; i++) {
		const callus_signature *s = &f->sigs[i];
		json_t *o = json_object();

		json_object_set_new(o, "id", json_string(s->id));
		json_object_set_new(o, "error_type", json_string(s->error_type));
		json_object_set_new(o, "message_pattern", json_string(s->message_pattern));
		json_object_set_new(o, "stack_patterns", strlist_json(&s->stack_patterns));
		json_object_set_new(o, "context_patterns", strlist_json(&s->context_patterns));
		json_object_set_new(o, "original", json_string(s->original));
		json_object_set_new(o, "tool", json_string(s->tool));
		json_array_append_new(a, o);
	}
	return a;
}

int callus_failure_to_json(callus_buf *out, const callus_failure *f)
{
	json_t *o = json_object(), *files = json_array(), *errors = json_array();
	char *text = NULL;
	int rc = CALLUS_ENOMEM;

	if (!o || !files || !errors)
		goto out;
	for (size_t i = 0; i < f->files.count; i++)
		json_array_append_new(files, json_string(f->files.items[i]));
	for (size_t i = 0; i < f->diags.count; i++) {
		const callus_diag *d = &f->diags.items[i];
		json_t *e = json_object();

		json_object_set_new(e, "file", str_or_null(d->file));
		json_object_set_new(e, "line", d->line ? json_integer(d->line) : json_null());
		json_object_set_new(e, "column", d->column ? json_integer(d->column) : json_null());
		json_object_set_new(e, "code", str_or_null(d->code));
		json_object_set_new(e, "message", json_string(d->message ? d->message : ""));
		json_object_set_new(e, "severity", str_or_null(d->severity));
		json_object_set_new(e, "test", str_or_null(d->test));
		json_object_set_new(e, "signature", str_or_null(d->signature));
		{
			json_t *frames = json_array();

			for (size_t k = 0; k < d->frames.count; k++) {
				const char *fr = d->frames.items[k], *tab = strchr(fr, '\t');
				json_t *f1 = json_object();

				json_object_set_new(f1, "function",
						    json_stringn(fr, tab ? (size_t)(tab - fr) : 0));
				json_object_set_new(f1, "file", json_string(tab ? tab + 1 : fr));
				json_array_append_new(frames, f1);
			}
			json_object_set_new(e, "frames", frames);
		}
		json_array_append_new(errors, e);
	}
	json_object_set_new(o, "verification", json_boolean(f->verification));
	json_object_set_new(o, "failed", json_boolean(f->failed));
	json_object_set_new(o, "tool", json_string(f->tool ? f->tool : ""));
	json_object_set_new(o, "category", json_string(callus_lesson_type_name(f->category)));
	json_object_set_new(o, "command", json_string(f->command ? f->command : ""));
	json_object_set_new(o, "exit_code", json_integer(f->exit_code));
	json_object_set_new(o, "affected_files", files);
	files = NULL;
	json_object_set_new(o, "error_summary", json_string(f->summary ? f->summary : ""));
	json_object_set_new(o, "errors", errors);
	errors = NULL;
	json_object_set_new(o, "parser", json_string(f->parser ? f->parser : ""));
	json_object_set_new(o, "signatures", signatures_json(f));
	json_object_set_new(o, "output_bytes", json_integer((json_int_t)f->output_bytes));
	json_object_set_new(o, "dropped_lines", json_integer((json_int_t)f->dropped_lines));
	/* invalid UTF-8 in tool output must not lose the whole object */
	if (!(text = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII)))
		goto out;
	rc = callus_buf_puts(out, text);
out:
	free(text);
	json_decref(files);
	json_decref(errors);
	json_decref(o);
	return rc;
}
