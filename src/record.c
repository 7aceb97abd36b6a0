#include "deja/record.h"
#include "deja/buf.h"
#include "deja/fsutil.h"
#include "deja/lessonmd.h"
#include "deja/match.h"
#include "deja/metrics.h"
#include "deja/redact.h"
#include "deja/signature.h"
#include "deja/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int deja_record_dir(char **out, const char *workspace, deja_error *err)
{
	deja_buf dir = DEJA_BUF_INIT;
	int rc;

	*out = NULL;
	if (deja_buf_printf(&dir, "%s/.deja", workspace) < 0)
		return deja_error_set(err, DEJA_ENOMEM, "out of memory");
	if ((rc = deja_fs_mkdir_p(dir.ptr, 0700, err)) < 0) {
		deja_buf_release(&dir);
		return rc;
	}
	*out = deja_buf_detach(&dir);
	return 0;
}

/* Redact *field in place. */
static int redact_field(const deja_redactor *r, char **field)
{
	char *red = NULL;
	int rc;

	if (!*field)
		return 0;
	if ((rc = deja_redact_str(r, &red, *field)) < 0)
		return rc;
	free(*field);
	*field = red;
	return 0;
}

/* A summary can grow by redaction: cut it back to the limit on a UTF-8
 * boundary. */
static void clamp_summary(char *s)
{
	size_t n;

	if (!s || (n = strlen(s)) <= DEJA_SUMMARY_MAX)
		return;
	n = DEJA_SUMMARY_MAX;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	s[n] = '\0';
}

static int redact_lesson(deja_lesson *l, const deja_redactor *r)
{
	int rc = 0;

	if ((rc = redact_field(r, &l->error_summary)) < 0 || (rc = redact_field(r, &l->cause)) < 0 ||
	    (rc = redact_field(r, &l->resolution)) < 0 ||
	    (rc = redact_field(r, &l->corrective_rule)) < 0 ||
	    (rc = redact_field(r, &l->command)) < 0 || (rc = redact_field(r, &l->file)) < 0 ||
	    (rc = redact_field(r, &l->intent_id)) < 0)
		return rc;
	for (size_t i = 0; i < l->affected_count; i++)
		if ((rc = redact_field(r, &l->affected_files[i])) < 0)
			return rc;
	clamp_summary(l->error_summary);
	return 0;
}

int deja_lesson_from_failure(deja_lesson *out, const deja_failure *f,
			     const deja_record_opts *opts, deja_error *err)
{
	memset(out, 0, sizeof(*out));
	out->type = f->category;
	out->exit_code = f->exit_code;
	if (!(out->file = strdup(deja_failure_primary_file(f))) ||
	    !(out->error_summary = strdup(f->summary ? f->summary : "")) ||
	    !(out->tool = strdup(f->tool ? f->tool : "")) ||
	    !(out->command = strdup(f->command ? f->command : "")) ||
	    !(out->intent_id = strdup(opts->intent_id ? opts->intent_id : "")) ||
	    !(out->cause = strdup("")) || !(out->resolution = strdup("")) ||
	    !(out->corrective_rule = strdup("")))
		goto oom;
	if (f->files.count) {
		if (!(out->affected_files = calloc(f->files.count, sizeof(char *))))
			goto oom;
		for (size_t i = 0; i < f->files.count; i++) {
			if (!(out->affected_files[i] = strdup(f->files.items[i])))
				goto oom;
			out->affected_count++;
		}
	}
	/* redaction and the final signature happen in deja_record_lesson() */
	if (deja_lesson_sign(out) < 0)
		goto oom;
	return 0;
oom:
	deja_lesson_release(out);
	return deja_error_set(err, DEJA_ENOMEM, "out of memory while building the lesson");
}

static int redact_diags(deja_diags *out, const deja_diags *in, const deja_redactor *r)
{
	if (!in || !in->count)
		return 0;
	if (!(out->items = calloc(in->count, sizeof(deja_diag))))
		return DEJA_ENOMEM;
	out->alloc = in->count;
	for (size_t i = 0; i < in->count; i++) {
		const deja_diag *s = &in->items[i];
		deja_diag *d = &out->items[i];

		out->count++;
		d->line = s->line;
		d->column = s->column;
		if ((s->file && !(d->file = strdup(s->file))) ||
		    (s->code && !(d->code = strdup(s->code))) ||
		    (s->severity && !(d->severity = strdup(s->severity))) ||
		    deja_redact_str(r, &d->message, s->message ? s->message : "") < 0 ||
		    (s->test && deja_redact_str(r, &d->test, s->test) < 0))
			return DEJA_ENOMEM;
		/* the frames are part of the signature (its stack patterns and
		 * its id): without them a stored error would sign differently
		 * from the same error analysed */
		for (size_t j = 0; j < s->frames.count; j++) {
			char *f = NULL;

			if (deja_redact_str(r, &f, s->frames.items[j]) < 0 ||
			    deja_strlist_add(&d->frames, f, strlen(f)) < 0) {
				free(f);
				return DEJA_ENOMEM;
			}
			free(f);
		}
	}
	return 0;
}

int deja_record_signatures(deja_signature **out, size_t *count, const deja_failure *f,
			   const deja_redactor *r, const deja_pathctx *pc, deja_error *err)
{
	deja_diags red = DEJA_DIAGS_INIT;
	const char *framework = deja_failure_framework(f);
	int rc;

	*out = NULL;
	*count = 0;
	if ((rc = redact_diags(&red, &f->diags, r)) < 0 ||
	    (rc = deja_signatures_for(out, count, &red, &f->files,
				      framework ? framework : f->tool, pc)) < 0)
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory while signing errors");
	deja_diags_release(&red);
	return rc;
}

/* A relative path that stays inside the workspace. */
static int safe_relative(const char *p)
{
	const char *s = p;

	if (!*p || *p == '/')
		return 0;
	while (*s) {
		if (s[0] == '.' && s[1] == '.' && (s[2] == '/' || !s[2]) &&
		    (s == p || s[-1] == '/'))
			return 0;
		s++;
	}
	return 1;
}

static size_t len0(const char *s)
{
	return s ? strlen(s) : 0;
}

/* What spec 004 counts at a capture.  The size is the stored record's
 * text until the error signatures have a size of their own. */
static void capture_metrics(deja_metrics *m, const deja_lesson *l)
{
	const char *const labels[] = { deja_lesson_type_name(l->type), DEJA_LAYER_PROJECT };
	size_t size = len0(l->signature) + len0(l->file) + len0(l->error_summary) +
		      len0(l->cause) + len0(l->resolution) + len0(l->corrective_rule) +
		      len0(l->intent_id) + len0(l->tool) + len0(l->command);

	for (size_t i = 0; i < l->affected_count; i++)
		size += len0(l->affected_files[i]);
	deja_metrics_add(m, DEJA_METRIC_CAPTURE_TOTAL, labels, 1);
	deja_metrics_observe(m, DEJA_METRIC_CAPTURE_SIGNATURE_SIZE, NULL, (double)size);
}

/* Move the spool of deja_dir into m (the transaction about to be written
 * carries it); *taken keeps what was taken, to be put back on failure. */
static void take_spool(deja_metrics *m, deja_metrics **taken, const char *deja_dir)
{
	*taken = NULL;
	if (!m || deja_metrics_new(taken) < 0)
		return;
	/* a failed read leaves the spool where it was */
	if (deja_metrics_spool_read(*taken, deja_dir, 1) < 0) {
		deja_metrics_free(*taken);
		*taken = NULL;
	} else if (deja_metrics_merge(m, *taken) < 0) {
		deja_metrics_spool_put(*taken, deja_dir);
		deja_metrics_free(*taken);
		*taken = NULL;
	}
}

int deja_record_metrics(const char *workspace, deja_metrics *m, int timeout_ms, int spool_only,
			deja_error *err)
{
	deja_buf dir = DEJA_BUF_INIT, path = DEJA_BUF_INIT;
	deja_store *store = NULL;
	deja_metrics *taken = NULL;
	struct stat st;
	int rc = 0;

	if (deja_metrics_is_empty(m))
		return 0;
	deja_buf_printf(&dir, "%s/.deja", workspace);
	deja_buf_printf(&path, "%s/deja.db", dir.ptr);
	if (deja_buf_status(&dir) < 0 || deja_buf_status(&path) < 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
		goto out;
	}
	if (spool_only) {
		if (deja_metrics_spool_put(m, dir.ptr) < 0)
			rc = deja_error_set(err, DEJA_EIO, "cannot write '%s/%s'", dir.ptr,
					    DEJA_METRICS_SPOOL);
		goto out;
	}
	/* metrics describe what the store holds: without one, nothing */
	if (stat(path.ptr, &st) < 0 && errno == ENOENT)
		goto out;
	if ((rc = deja_store_open(&store, path.ptr, timeout_ms > 0 ? timeout_ms : 10000, err)) < 0) {
		deja_metrics_spool_put(m, dir.ptr);
		goto out;
	}
	take_spool(m, &taken, dir.ptr);
	/* on failure m holds what was taken too: all of it goes back */
	if ((rc = deja_store_flush_metrics(store, m, err)) < 0)
		deja_metrics_spool_put(m, dir.ptr);
out:
	deja_metrics_clear(m);
	deja_metrics_free(taken);
	deja_store_close(store);
	deja_buf_release(&dir);
	deja_buf_release(&path);
	return rc;
}

void deja_record_result_release(deja_record_result *r)
{
	if (!r)
		return;
	deja_lessons_free(r->related, r->nrelated);
	deja_learn_result_release(&r->learnt);
	free(r->learn_error);
	memset(r, 0, sizeof(*r));
}

/* The run's errors for learn.c: each signature with the files its
 * (redacted) diagnostics name. */
static int learn_errors(deja_learn_error **out, deja_strlist **files, const deja_signature *sigs,
			size_t nsigs, const deja_diags *diags)
{
	*out = NULL;
	*files = NULL;
	if (!nsigs)
		return 0;
	if (!(*out = calloc(nsigs, sizeof(**out))) || !(*files = calloc(nsigs, sizeof(**files))))
		return DEJA_ENOMEM;
	for (size_t i = 0; i < nsigs; i++) {
		(*out)[i].sig = &sigs[i];
		(*out)[i].files = &(*files)[i];
		for (size_t j = 0; diags && j < diags->count; j++) {
			const deja_diag *d = &diags->items[j];

			if (d->file && d->signature && !strcmp(d->signature, sigs[i].id) &&
			    deja_strlist_add_unique(&(*files)[i], d->file, strlen(d->file), NULL) < 0)
				return DEJA_ENOMEM;
		}
	}
	return 0;
}

/* Learn from the failed run in the lesson's store session.  A failure here
 * leaves the lesson stored: it is reported in res->learn_error. */
static void learn_failure(deja_store *store, const deja_record_opts *opts, const deja_lesson *l,
			  const char *session, const deja_signature *sigs, size_t nsigs,
			  const deja_diags *red, deja_metrics *m, deja_record_result *res)
{
	deja_learn_opts lo = *opts->learn;
	deja_learn_error *errs = NULL;
	deja_strlist *files = NULL;
	deja_error err = DEJA_ERROR_INIT;

	lo.command = l->command;   /* the redacted one */
	lo.metrics = m;
	lo.session = session;
	if (!lo.redactor)
		lo.redactor = opts->redactor;
	if (learn_errors(&errs, &files, sigs, nsigs, red) < 0)
		deja_error_set(&err, DEJA_ENOMEM, "out of memory");
	else
		deja_learn_failure(store, &lo, errs, nsigs, &res->learnt, &err);
	if (err.code && !res->learn_error)
		res->learn_error = strdup(deja_error_message(&err));
	for (size_t i = 0; files && i < nsigs; i++)
		deja_strlist_release(&files[i]);
	free(files);
	free(errs);
	deja_error_release(&err);
}

/* The other lessons about l's file, newest first, at most max. */
static int related_lessons(deja_record_result *res, deja_store *store, const deja_lesson *l,
			   int max)
{
	deja_lesson_filter f = { NULL, l->file, NULL, max + 1 };
	deja_lesson *ls = NULL;
	size_t n = 0, kept = 0;
	int rc;

	if (max <= 0 || !l->file || !*l->file)
		return 0;
	if ((rc = deja_store_list_lessons(store, &f, &ls, &n, NULL)) < 0)
		return rc;
	for (size_t i = 0; i < n; i++) {
		if (ls[i].id == l->id || kept == (size_t)max) {
			deja_lesson_release(&ls[i]);
			continue;
		}
		if (kept != i)
			ls[kept] = ls[i];
		kept++;
	}
	res->related = ls;
	res->nrelated = kept;
	return 0;
}

int deja_record_lesson(deja_lesson *l, const deja_diags *diags, uint64_t output_bytes,
		       const deja_record_opts *opts, deja_record_result *res, deja_error *err)
{
	deja_store *store = NULL;
	deja_diags red = DEJA_DIAGS_INIT;
	deja_buf path = DEJA_BUF_INIT, lock = DEJA_BUF_INIT, lessons_dir = DEJA_BUF_INIT;
	deja_lesson *recent = NULL;
	deja_signature *sigs = NULL;
	deja_metrics *own = NULL, *taken = NULL;
	size_t nrecent = 0, nsigs = 0;
	deja_lesson_filter filter = { NULL, NULL, NULL, opts->agents_max > 0 ? opts->agents_max : 20 };
	char *dir = NULL, *session = NULL;
	const char *agents = opts->agents_file && *opts->agents_file ? opts->agents_file : "AGENTS.md";
	deja_run_info run = { opts->cwd_rel ? opts->cwd_rel : "", opts->intent_id, output_bytes,
			      NULL, NULL, 0, opts->metrics };
	int rc;

	if (!safe_relative(agents))
		return deja_error_set(err, DEJA_EINVAL,
				      "lessons file '%s' must be a path inside the workspace", agents);
	if ((rc = redact_lesson(l, opts->redactor)) < 0 || (rc = deja_lesson_sign(l)) < 0 ||
	    (rc = redact_diags(&red, diags, opts->redactor)) < 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory while redacting");
		goto out;
	}
	run.diags = &red;
	/* signatures are made from the redacted messages: a secret must not
	 * survive inside a pattern or an original message */
	{
		deja_strlist files = { l->affected_files, l->affected_count, l->affected_count };
		deja_pathctx pc = { opts->workspace, NULL, opts->cwd_rel ? opts->cwd_rel : "" };

		if ((rc = deja_signatures_for(&sigs, &nsigs, &red, &files,
					      opts->framework ? opts->framework : l->tool, &pc)) < 0) {
			rc = deja_error_set(err, rc, "out of memory while signing errors");
			goto out;
		}
		run.sigs = sigs;
		run.nsigs = nsigs;
	}
	/* the caller's intent may be the lesson's own field, just replaced by
	 * its redacted copy: take that one.  The store gives an existing
	 * lesson its first intent back: this run's session is kept aside. */
	run.intent_id = l->intent_id;
	if (!(session = strdup(l->intent_id ? l->intent_id : ""))) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = deja_record_dir(&dir, opts->workspace, err)) < 0)
		goto out;
	deja_buf_printf(&path, "%s/deja.db", dir);
	deja_buf_printf(&lock, "%s/agents.lock", dir);
	deja_buf_printf(&lessons_dir, "%s/.lessons", opts->workspace);
	if (deja_buf_status(&path) < 0 || deja_buf_status(&lock) < 0 ||
	    deja_buf_status(&lessons_dir) < 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
		goto out;
	}
	/* metrics never stop a recording: without memory for them, none */
	if (!run.metrics && deja_metrics_new(&own) == 0)
		run.metrics = own;
	if (run.metrics)
		capture_metrics(run.metrics, l);
	if ((rc = deja_store_open(&store, path.ptr, opts->timeout_ms > 0 ? opts->timeout_ms : 10000,
				  err)) < 0)
		goto out;
	take_spool(run.metrics, &taken, dir);
	if (res)
		memset(res, 0, sizeof(*res));
	if ((rc = deja_store_record_lesson(store, l, &run, res ? &res->is_new : NULL, err)) < 0) {
		deja_metrics_spool_put(taken, dir);
		goto out;
	}
	/* the new signatures are embedded now, with the built-in embedder
	 * (no network, microseconds): the next failure can match them */
	if (opts->learn && res) {
		deja_error ie = DEJA_ERROR_INIT;

		if (deja_match_index(store, opts->workspace, NULL, &ie) < 0)
			res->learn_error = strdup(deja_error_message(&ie));
		deja_error_release(&ie);
		learn_failure(store, opts, l, session ? session : "", sigs, nsigs, &red, run.metrics,
			      res);
		/* what learning measured (matching, resolutions) goes out in
		 * this store session too; left to the caller when it cannot */
		if (run.metrics && !deja_metrics_is_empty(run.metrics))
			deja_store_flush_metrics(store, run.metrics, NULL);
	}
	/* The store is the truth; the Markdown views are rebuilt from it, so
	 * a failure below loses no data and the next recording repairs them. */
	if ((rc = deja_lesson_md_write(lessons_dir.ptr, l, err)) < 0)
		goto out;
	if ((rc = deja_store_list_lessons(store, &filter, &recent, &nrecent, err)) < 0 ||
	    (res && (rc = related_lessons(res, store, l, opts->related_max)) < 0))
		goto out;
	deja_buf_clear(&path);
	deja_buf_printf(&path, "%s/%s", opts->workspace, agents);
	if (deja_buf_status(&path) < 0) {
		rc = deja_error_set(err, DEJA_ENOMEM, "out of memory");
		goto out;
	}
	rc = deja_agents_block_update(path.ptr, recent, nrecent, DEJA_AGENTS_BLOCK_MAX_BYTES,
				      lock.ptr, err);
out:
	deja_metrics_free(own);
	deja_metrics_free(taken);
	deja_signatures_free(sigs, nsigs);
	deja_lessons_free(recent, nrecent);
	deja_store_close(store);
	deja_diags_release(&red);
	deja_buf_release(&path);
	deja_buf_release(&lock);
	deja_buf_release(&lessons_dir);
	free(session);
	free(dir);
	return rc;
}
