#include "callus/analysis.h"
#include "callus/context.h"
#include "callus/parse.h"
#include "callus/summary.h"
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

/*
 * The tool's own parser when there is one (by name, else by content), the
 * generic extractor when there is none or it finds nothing.
 */
static int parse_output(callus_failure *out, const callus_check *chk, const callus_capture *cap,
			const char *text, size_t text_len, const char *raw, size_t raw_len,
			const callus_pathctx *pc)
{
	callus_parse_input in = {
		text, text_len, raw, raw_len,
		raw_len == cap->total_bytes, chk->tool ? chk->tool : "",
		chk->command ? chk->command : "", pc, 0,
	};
	const callus_parser *p = callus_parser_select(in.tool, text, text_len);
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
	callus_pathmemo memo = CALLUS_PATHMEMO_INIT;
	callus_pathctx here;
	int rc = 0;

	/* the paths of the output resolved once each in a row of them */
	if (pc && !pc->memo) {
		here = *pc;
		here.memo = &memo;
		pc = &here;
	}
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
		/* each diagnostic's file is looked for in it, and kept in it:
		 * thousands of them in a large build's output */
		const char *t, *raw;
		size_t tlen, raw_len;

		raw = callus_capture_raw(cap, &raw_len);
		if ((rc = callus_strlist_pool(&out->files)) < 0 ||
		    (rc = callus_strlist_index(&out->files)) < 0 ||
		    (rc = callus_capture_text_view(cap, &text, &t, &tlen)) < 0 ||
		    (rc = parse_output(out, chk, cap, t, tlen, raw, raw_len, pc)) < 0 ||
		    (rc = callus_summary_build(&out->summary, t, tlen, raw, raw_len, pc,
						 &out->diags)) < 0)
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
	callus_pathmemo_release(&memo);
	return 0;
oom:
	callus_buf_release(&text);
	callus_pathmemo_release(&memo);
	callus_failure_release(out);
	return callus_error_set(err, CALLUS_ENOMEM, "out of memory while analysing the output");
}

int callus_failure_sign(callus_failure *f, const callus_pathctx *pc, callus_error *err)
{
	callus_signatures_free(f->sigs, f->nsigs);
	f->sigs = NULL;
	f->nsigs = 0;
	if (callus_signatures_for(&f->sigs, &f->nsigs, &f->diags, &f->files,
				  callus_failure_framework(f), pc) < 0)
		return callus_error_set(err, CALLUS_ENOMEM, "out of memory while signing errors");
	return 0;
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
